"""Keras 2's weights layout in HDF5 (the "legacy" `.h5` files), read into a kerasish model.

Keras's ImageNet weights for `keras.applications` (and any `model.save_weights("x.h5")`
of Keras 2 or tf.keras) are written in this layout::

    attrs: layer_names = [b"input_1", b"block1_conv1", ...]   (model.layers, in order)
           backend, keras_version
    block1_conv1/                                 (one group per layer, by layer name)
        attrs: weight_names = [b"block1_conv1/kernel:0", b"block1_conv1/bias:0"]
        block1_conv1/kernel:0, block1_conv1/bias:0  (datasets named as weight_names says)

A whole-model `.h5` file holds the same under its `model_weights` group. Each layer's
weights are listed as its trainable weights, then its non-trainable ones (a
BatchNormalization's gamma, beta, moving_mean, moving_variance). Long attribute lists are
split into `layer_names0`, `layer_names1`, ... Keras 3 reads these files by position:
the n-th layer with weights in the file fills the n-th layer with weights of the model;
`by_name=True` matches layers by name instead.
"""

from __future__ import annotations

import os

import h5py
import numpy as np

from kerasish.saving.weights_layout import WeightsFileError


def _attribute_list(group, name: str) -> list:
    """The strings of attribute `name` of `group`, joined from its chunks if split."""
    if name in group.attrs:
        chunks = [group.attrs[name]]
    else:
        chunks, index = [], 0
        while f"{name}{index}" in group.attrs:
            chunks.append(group.attrs[f"{name}{index}"])
            index += 1
    return [item.decode("utf8") if hasattr(item, "decode") else str(item)
            for chunk in chunks for item in chunk]


def weights_root(h5file):
    """The group of a legacy file that lists `layer_names` (the file itself, or its
    `model_weights` group for a whole-model file), or None when the file has neither."""
    if "layer_names" in h5file.attrs or "layer_names0" in h5file.attrs:
        return h5file
    group = h5file.get("model_weights")
    if isinstance(group, h5py.Group) and (
            "layer_names" in group.attrs or "layer_names0" in group.attrs):
        return group
    return None


def is_legacy_weights_file(filepath) -> bool:
    """Whether `filepath` is an HDF5 file in Keras 2's weights layout (not a kerasish
    checkpoint, not Keras 3's `.weights.h5`).

    Args:
        filepath: the path of a file.

    Returns:
        True when it opens with h5py and lists `layer_names` (at its root or under
        `model_weights`).

    Example:
        >>> import os, tempfile
        >>> import h5py
        >>> path = os.path.join(tempfile.mkdtemp(), "old.h5")
        >>> with h5py.File(path, "w") as f:
        ...     f.attrs["layer_names"] = [b"dense"]
        >>> is_legacy_weights_file(path)
        True
    """
    path = os.fspath(filepath)
    if not os.path.isfile(path) or not h5py.is_hdf5(path):
        return False
    with h5py.File(path, "r") as h5file:
        return weights_root(h5file) is not None


def legacy_weights(layer) -> list:
    """A layer's variables in the legacy order: trainable ones, then non-trainable ones."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _group_values(group, what: str, source: str) -> list:
    values = []
    for name in _attribute_list(group, "weight_names"):
        if name not in group:
            raise WeightsFileError(
                f"{source}: {what} lists weight {name!r} but holds no dataset of that name")
        values.append(np.asarray(group[name]))
    return values


def _assign(layer, values: list, what: str, skip_mismatch: bool, source: str) -> None:
    variables = legacy_weights(layer)
    if len(values) != len(variables):
        raise WeightsFileError(
            f"{source}: weight count mismatch for {what}: the layer has {len(variables)} "
            f"weight(s), the file holds {len(values)}")
    pairs = []
    for variable, value in zip(variables, values):
        if tuple(variable.shape) != tuple(value.shape):
            if skip_mismatch:
                continue
            raise WeightsFileError(
                f"{source}: shape mismatch for {what}, weight {variable.name!r}: the layer "
                f"expects {tuple(variable.shape)}, the file holds {tuple(value.shape)}; "
                "pass skip_mismatch=True to leave such weights as they are")
        pairs.append((variable, value))
    for variable, value in pairs:
        variable.assign(value.astype(np.dtype(variable.dtype), copy=False))


def read_legacy_weights(h5file, model, by_name: bool = False, skip_mismatch: bool = False,
                        source: str = "weights file") -> None:
    """Fill `model`'s layers from an open HDF5 file in Keras 2's weights layout.

    By position (Keras's default): the layers of the file that hold weights fill the
    model's layers that have weights, in `model.layers` order; the counts must agree.
    By name: each model layer with weights takes the file's group of its name, if any.

    Args:
        h5file: an open `h5py.File` (or group) in the legacy layout.
        model: a built model (its layers have their variables).
        by_name: match layers by name instead of position.
        skip_mismatch: leave weights whose shape differs from the file's as they are
            (instead of raising).
        source: the file's name, for error messages.

    Raises:
        WeightsFileError: when the file is not in that layout, or its layers or weights
            do not fit the model's.

    Example:
        >>> import os, tempfile
        >>> import h5py, numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1, name="out")])
        >>> path = os.path.join(tempfile.mkdtemp(), "old.h5")
        >>> with h5py.File(path, "w") as f:
        ...     f.attrs["layer_names"] = [b"out"]
        ...     g = f.create_group("out")
        ...     g.attrs["weight_names"] = [b"out/kernel:0", b"out/bias:0"]
        ...     _ = g.create_dataset("out/kernel:0", data=np.ones((2, 1), "float32"))
        ...     _ = g.create_dataset("out/bias:0", data=np.zeros((1,), "float32"))
        >>> with h5py.File(path, "r") as f:
        ...     read_legacy_weights(f, model)
        >>> model(np.ones((1, 2), "float32")).numpy()
        array([[2.]], dtype=float32)
    """
    root = weights_root(h5file)
    if root is None:
        raise WeightsFileError(
            f"{source}: not in Keras 2's weights layout (no 'layer_names' attribute at its "
            "root or in a 'model_weights' group)")
    saved = [name for name in _attribute_list(root, "layer_names")
             if name in root and _attribute_list(root[name], "weight_names")]
    layers = [layer for layer in model.layers if legacy_weights(layer)]
    if by_name:
        for layer in layers:
            if layer.name in saved:
                values = _group_values(root[layer.name], f"layer {layer.name!r}", source)
                _assign(layer, values, f"layer {layer.name!r}", skip_mismatch, source)
        return
    if len(saved) != len(layers):
        raise WeightsFileError(
            f"{source}: layer count mismatch: the model has {len(layers)} layers with "
            f"weights, the file holds {len(saved)} ({saved[:5]}{'...' if len(saved) > 5 else ''}"
            "); build the same architecture, or pass by_name=True to match layers by name")
    for index, (name, layer) in enumerate(zip(saved, layers)):
        what = f"layer #{index} (named {layer.name!r} in the model, {name!r} in the file)"
        _assign(layer, _group_values(root[name], what, source), what, skip_mismatch, source)


def load_legacy_weights(model, filepath, by_name: bool = False,
                        skip_mismatch: bool = False) -> None:
    """Read a Keras 2 (legacy layout) `.h5` weights file, such as Keras's ImageNet weights
    for `keras.applications`, into a built model.

    Args:
        model: a built model of the architecture the file was saved from.
        filepath: the `.h5` file.
        by_name: match layers by name instead of position.
        skip_mismatch: leave weights of a different shape as they are.

    Raises:
        FileNotFoundError: if there is no such file.
        WeightsFileError: when the file is not in that layout or does not fit the model.

    Example:
        >>> import os, tempfile
        >>> import h5py, numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((1,)), ks.layers.Dense(1, name="out")])
        >>> path = os.path.join(tempfile.mkdtemp(), "old.h5")
        >>> with h5py.File(path, "w") as f:
        ...     f.attrs["layer_names"] = [b"out"]
        ...     g = f.create_group("out")
        ...     g.attrs["weight_names"] = [b"kernel:0", b"bias:0"]
        ...     _ = g.create_dataset("kernel:0", data=np.full((1, 1), 3.0, "float32"))
        ...     _ = g.create_dataset("bias:0", data=np.ones((1,), "float32"))
        >>> load_legacy_weights(model, path)
        >>> model(np.ones((1, 1), "float32")).numpy()
        array([[4.]], dtype=float32)
    """
    path = os.fspath(filepath)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_weights: no such file: {path!r}")
    try:
        h5file = h5py.File(path, "r")
    except OSError as exc:
        raise WeightsFileError(f"{path}: not an HDF5 weights file ({exc})") from exc
    with h5file:
        read_legacy_weights(h5file, model, by_name=by_name, skip_mismatch=skip_mismatch,
                            source=path)
