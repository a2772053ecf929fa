"""Whole-model files in Keras 3's `.keras` format, and `*.weights.h5` weights files.

A `.keras` file is a zip archive holding::

    config.json        the model's serialized config (`serialize_keras_object`), with
                       `build_config` and, when compiled, `compile_config` (optimizer,
                       loss, metrics, loss_weights, ...), as Keras 3 lays them out
    model.weights.h5   the model's variables and the optimizer's state, in Keras 3's
                       layout (see `kerasish.saving.weights_layout`)
    metadata.json      the kerasish version and the date saved

Files are written atomically (to a temporary name, fsynced, then renamed), so
a crash during `save` leaves the previous file as it was. Reading never runs
code from the file unless `safe_mode=False`: classes are looked up, never
imported; lambdas are refused; archive entries with absolute or `..` paths,
HDF5 links to other files and non-numeric datasets are refused.
"""

from __future__ import annotations

import datetime
import inspect
import io
import json
import math
import os
import tempfile
import zipfile

import h5py
import numpy as np

from kerasish.checkpoint import atomic_write
from kerasish.core import limits, nest
from kerasish.core.errors import KerasishError
from kerasish.core.serialization import (
    SerializationError,
    deserialization_scope,
    deserialize_keras_object,
    serialize_keras_object,
)
from kerasish.core.version import __version__
from kerasish.layers.base import Layer
from kerasish.saving import weights_layout

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.weights.h5"
METADATA_NAME = "metadata.json"


class KerasFileError(KerasishError, ValueError):
    """A file is not a `.keras` archive kerasish can read, or holds something unsafe."""


# ---------------------------------------------------------------- configs

def _check_model_has_config(model) -> None:
    """Refuse a subclassed model (a layer with `compile`) whose `get_config` is still the
    one every layer inherits: its config could not rebuild it."""
    cls = type(model)
    if not hasattr(model, "compile") or weights_layout.is_container_model(model):
        return
    if cls.get_config is not Layer.get_config:
        return
    parameters = [
        p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "name"
    ]
    advice = (
        f"implement get_config() returning the arguments of {cls.__name__}.__init__ "
        "(e.g. {**super().get_config(), 'units': self.units})"
    )
    if parameters:
        advice += (f", and from_config(cls, config) if they need more than "
                   f"{cls.__name__}(**config) to be rebuilt")
    raise SerializationError(
        f"cannot save model '{model.name}': {cls.__name__} is a subclassed Model without a "
        f"get_config() of its own, so it cannot be rebuilt when loaded; {advice}. "
        "To keep only the weights, use model.save_weights('name.weights.h5')"
    )


def model_config(model, include_compile: bool = True) -> dict:
    """The model's serialized config, as `config.json` holds it."""
    _check_model_has_config(model)
    config = serialize_keras_object(model)
    if include_compile:
        compile_config = model.get_compile_config()
        if compile_config is not None:
            config["compile_config"] = compile_config
    return config


# ---------------------------------------------------------------- .keras files

def save_model(model, filepath, overwrite: bool = True, include_optimizer: bool = True,
               zipped=None) -> str:
    """Write `model` to a `.keras` file, atomically; returns the path.

    Args:
        model: a Sequential, functional, or subclassed model with `get_config()`.
        filepath: a path ending in `.keras`.
        overwrite: when False, an existing file is an error.
        include_optimizer: also save the state of the optimizers: the compiled one and
            any other the model holds as an attribute (a GAN's `d_optimizer`), as Keras does.
        zipped: None or True: the zip archive Keras writes. False (Keras's unzipped
            folder, meant for Hugging Face Hub uploads) is refused: only the archive is
            written and read here.

    Raises:
        NotImplementedError: for zipped=False.

    Example:
        >>> import os, tempfile, numpy as np, kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(2, input_shape=(3,))])
        >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
        >>> _ = model.save(path)
        >>> again = ks.models.load_model(path)
        >>> x = np.ones((1, 3), np.float32)
        >>> bool(np.array_equal(again.predict(x), model.predict(x)))
        True
    """
    if zipped is False:
        raise NotImplementedError(
            "save_model(zipped=False): kerasish writes and reads the zipped .keras archive "
            "only, not Keras's unzipped folder; save with zipped=True (the default)")
    path = os.fspath(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            f"save: the file name must end in '.keras', got {path!r}. For weights only use "
            "model.save_weights('name.weights.h5'); for a checkpoint use ks.Checkpoint"
        )
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"save: {path!r} exists and overwrite=False")
    config = model_config(model)
    weights = io.BytesIO()
    with h5py.File(weights, "w") as h5file:
        weights_layout.write_weights(h5file, model, include_optimizers=include_optimizer)
    metadata = {
        "kerasish_version": __version__,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }

    def write(temporary: str) -> None:
        with zipfile.ZipFile(temporary, "w") as archive:
            archive.writestr(METADATA_NAME, json.dumps(metadata))
            archive.writestr(CONFIG_NAME, json.dumps(config))
            archive.writestr(WEIGHTS_NAME, weights.getvalue())

    atomic_write(path, write)
    return path


def _read_archive(path: str) -> tuple:
    """(config dict, weights bytes) of a `.keras` file, with every check on the way."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_model: no such file: {path!r}")
    if not zipfile.is_zipfile(path):
        raise KerasFileError(
            f"{path}: not a .keras file: it is not a zip archive (a truncated file, or another "
            "kind of file; a weights file is read with model.load_weights)"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            for name in names:
                parts = name.replace("\\", "/").split("/")
                if name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
                    raise KerasFileError(
                        f"{path}: refusing to read this archive: entry {name!r} points outside "
                        "it (an absolute path or '..')"
                    )
            missing = [n for n in (CONFIG_NAME, WEIGHTS_NAME) if n not in names]
            if missing:
                raise KerasFileError(
                    f"{path}: not a .keras file: the archive has no {' or '.join(missing)} "
                    f"(it holds {sorted(names)[:10]})"
                )
            config_text = limits.read_member(archive, CONFIG_NAME, path, KerasFileError,
                                             limit=limits.JSON_BYTES)
            weights = limits.read_member(archive, WEIGHTS_NAME, path, KerasFileError)
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile) as exc:
        raise KerasFileError(f"{path}: the .keras archive is damaged or truncated ({exc})") from exc
    config = limits.load_json(config_text, path, KerasFileError, what=CONFIG_NAME)
    if not isinstance(config, dict) or "class_name" not in config:
        raise KerasFileError(f"{path}: config.json does not describe a model")
    return config, weights


def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,
               safe_mode: bool = True):
    """A model from a `.keras` file: architecture, weights, and (with `compile=True`) the
    compile settings and optimizer state, so `fit` continues where it stopped.

    Args:
        filepath: a `.keras` file written by kerasish or by Keras 3.
        custom_objects: {name: class or function} for your own layers, losses, ...
            (or register them with `ks.saving.register_keras_serializable`).
        compile: compile the model as it was when saved.
        safe_mode: refuse Python code stored in the file (a lambda's bytecode);
            pass False only for files you trust.

    Returns:
        The model (or layer) the file describes, with its saved weights.

    Raises:
        FileNotFoundError: if there is no file at `filepath`.
        KerasFileError: naming the file, for a damaged archive, an unreadable config or
            weights file, or a config that is not a model or layer.
        SerializationError: naming the file and the class that cannot be found (pass it
            in `custom_objects`), or the lambda refused in safe mode.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
        >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
        >>> _ = model.save(path)
        >>> loaded = ks.saving.load_model(path)
        >>> x = np.ones((1, 2), np.float32)
        >>> bool(np.allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0)))
        True
    """
    path = os.fspath(filepath)
    config, weights = _read_archive(path)
    budget = limits.weight_budget(_declared_values(weights, path) + limits.WEIGHT_SLACK,
                                  f"{path} ({CONFIG_NAME})", KerasFileError)
    try:
        with budget:
            model = deserialize_keras_object(config, custom_objects, safe_mode)
    except SerializationError as exc:
        raise type(exc)(f"{path}: {exc}") from exc
    if not isinstance(model, Layer):
        raise KerasFileError(
            f"{path}: config.json describes a {type(model).__name__}, not a model or layer"
        )
    if compile and config.get("compile_config"):
        with deserialization_scope(custom_objects, safe_mode):
            model.compile_from_config(config["compile_config"])
    _load_assets(path, model)  # first: a run on zeros for lazily made weights needs them
    try:
        with h5py.File(io.BytesIO(weights), "r") as h5file:
            if weights_layout.has_unmade_weights(h5file, model):
                with limits.weight_budget(_declared_values(weights, path) + limits.WEIGHT_SLACK,
                                          f"{path} ({CONFIG_NAME})", KerasFileError):
                    _create_lazy_weights(model)
            weights_layout.read_weights(h5file, model, include_optimizers=compile,
                                        source=f"{path} ({WEIGHTS_NAME})")
    except OSError as exc:
        raise KerasFileError(f"{path}: {WEIGHTS_NAME} is not a readable HDF5 file ({exc})") from exc
    return model


def _declared_values(weights: bytes, path: str) -> int:
    """How many values the weights file's datasets declare (read from their headers)."""
    total = [0]

    def count(_, item):
        if isinstance(item, h5py.Dataset):
            total[0] += math.prod(int(d) for d in item.shape)

    try:
        with h5py.File(io.BytesIO(weights), "r") as h5file:
            h5file.visititems(count)
    except OSError as exc:
        raise KerasFileError(f"{path}: {WEIGHTS_NAME} is not a readable HDF5 file ({exc})") from exc
    return total[0]


def _load_assets(path: str, model) -> None:
    """Hand each layer with a `load_assets(dir_path)` hook (Keras 3's; the lookup layers) the
    files Keras wrote for it under `assets/<layer path>/`, copied to a temporary folder."""
    hooked = [(layer_path, layer) for layer_path, layer in weights_layout.layer_paths(model)
              if callable(getattr(layer, "load_assets", None))]
    if not hooked:
        return
    with zipfile.ZipFile(path) as archive, tempfile.TemporaryDirectory() as folder:
        names = archive.namelist()  # checked by _read_archive: no absolute or '..' entries
        for layer_path, layer in hooked:
            prefix = f"assets/{layer_path}/" if layer_path else "assets/"
            files = [n for n in names if n.startswith(prefix) and "/" not in n[len(prefix):]
                     and not n.endswith("/")]
            if not files:
                continue
            directory = os.path.join(folder, *layer_path.split("/"))
            os.makedirs(directory, exist_ok=True)
            for name in files:
                with open(os.path.join(directory, name[len(prefix):]), "wb") as file:
                    file.write(limits.read_member(archive, name, path, KerasFileError))
            try:
                layer.load_assets(directory)
            except KerasishError as exc:
                raise type(exc)(f"{path}: layer '{layer.name}': {exc}") from exc


def _create_lazy_weights(model) -> None:
    """Run a model with symbolic inputs once on zeros (inference mode), so layers that create
    weights only when first called on data (e.g. MultiHeadAttention) have them."""
    try:
        inputs = model.inputs
    except AttributeError:
        return
    shapes = [tuple(t.shape) for t in inputs]
    if not inputs or any(d is None for shape in shapes for d in shape[1:]):
        return
    zeros = [np.zeros((1,) + shape[1:], dtype=t.dtype) for shape, t in zip(shapes, inputs)]
    structure = getattr(model, "input", zeros)
    model(nest.pack_sequence_as(structure, zeros) if len(zeros) > 1 else zeros[0],
          training=False)


# ---------------------------------------------------------------- weights files

def _check_weights_name(path: str, what: str) -> None:
    if not path.endswith(".weights.h5"):
        raise ValueError(
            f"{what}: the file name must end in '.weights.h5' (Keras 3's weights layout), got "
            f"{path!r}; model.{what} also takes other names, for a kerasish checkpoint"
        )


def save_weights(model, filepath, overwrite: bool = True, max_shard_size=None) -> str:
    """Write the model's variables (and its optimizers' state) to a `.weights.h5`
    file in Keras 3's layout, atomically; returns the path.

    Args:
        model: a built model.
        filepath: a name ending in `.weights.h5`.
        overwrite: replace an existing file.
        max_shard_size: must be None: one file is written. Keras's sharded files
            (`.weights.json` and numbered parts) are not written here.

    Returns:
        `filepath`.

    Raises:
        NotImplementedError: for a max_shard_size.
        ValueError: for a name that does not end in `.weights.h5`.
        FileExistsError: if the file exists and `overwrite` is False.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(2)])
        >>> _ = model(np.ones((1, 3), "float32"))
        >>> path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
        >>> ks.saving.save_weights(model, path) == path
        True
    """
    if max_shard_size is not None:
        raise NotImplementedError(
            f"save_weights(max_shard_size={max_shard_size!r}): sharded weights files are not "
            "written by kerasish; save one .weights.h5 file (max_shard_size=None)")
    path = os.fspath(filepath)
    _check_weights_name(path, "save_weights")
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"save_weights: {path!r} exists and overwrite=False")

    def write(temporary: str) -> None:
        with h5py.File(temporary, "w") as h5file:
            weights_layout.write_weights(h5file, model)

    atomic_write(path, write)
    return path


def load_weights(model, filepath, skip_mismatch: bool = False, **kwargs) -> None:
    """Read a `.weights.h5` file in Keras 3's layout into the (built) model, and into the
    optimizers it holds (the compiled one, others as attributes) whose state the file has.

    Args:
        model: a built model with the structure of the one saved.
        filepath: a name ending in `.weights.h5` (written by `save_weights` or Keras 3).
        skip_mismatch: leave a layer whose variables do not fit the file's (count or
            shapes) as it is, with a warning, instead of refusing the file.
        **kwargs: Keras's other keyword arguments; none is used, a given one is refused.

    Raises:
        ValueError: for a name that does not end in `.weights.h5`.
        TypeError: for a keyword argument other than those.
        FileNotFoundError: if there is no such file.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> def build():
        ...     model = ks.Sequential([ks.layers.Dense(2)])
        ...     _ = model(np.ones((1, 3), "float32"))
        ...     return model
        >>> saved, restored = build(), build()
        >>> path = ks.saving.save_weights(saved, os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
        >>> ks.saving.load_weights(restored, path)
        >>> bool((restored.get_weights()[0] == saved.get_weights()[0]).all())
        True
    """
    if kwargs:
        raise TypeError(f"load_weights: unexpected argument(s) {sorted(kwargs)}")
    path = os.fspath(filepath)
    _check_weights_name(path, "load_weights")
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_weights: no such file: {path!r}")
    try:
        h5file = h5py.File(path, "r")
    except OSError as exc:
        raise weights_layout.WeightsFileError(
            f"{path}: not a weights file (HDF5 cannot open it: {exc})"
        ) from exc
    with h5file:
        weights_layout.read_weights(h5file, model, source=path, skip_mismatch=skip_mismatch)


# ---------------------------------------------------------------- JSON

def model_to_json(model, **kwargs) -> str:
    """The model's config (architecture, no weights or compile settings) as JSON text."""
    return json.dumps(model_config(model, include_compile=False), **kwargs)


def model_from_json(json_string: str, custom_objects: dict | None = None):
    """A new model (fresh weights) from `model.to_json()`'s text, or Keras's.

    Args:
        json_string: the JSON text of a model's config.
        custom_objects: {name: class or function} for your own layers, losses, ...

    Returns:
        A new model of that architecture, with newly initialized weights.

    Raises:
        SerializationError: naming a class that cannot be found.

    Example:
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3, name="hidden")])
        >>> again = ks.models.model_from_json(model.to_json())
        >>> again.get_layer("hidden").units
        3
    """
    config = limits.load_json(json_string, "model_from_json", SerializationError,
                              what="the model's JSON text")
    return deserialize_keras_object(config, custom_objects)
