"""Keras 2's HDF5 weights layout (Keras's ImageNet files): read by position or by name,
through `model.load_weights("x.h5")`, with an error for each way a file can misfit."""

import os

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.saving import legacy_h5
from kerasish.saving.weights_layout import WeightsFileError


def _model(module, units=3):
    inputs = module.Input((6, 6, 2))
    x = module.layers.Conv2D(4, 3, name="conv")(inputs)
    x = module.layers.BatchNormalization(name="bn")(x)
    x = module.layers.Flatten(name="flat")(x)
    outputs = module.layers.Dense(units, name="dense")(x)
    return module.Model(inputs, outputs)


def _write(path, model, values=None, layer_names=None):
    """A legacy file of `model`'s layers, as Keras 2 writes it (trainable weights first)."""
    with h5py.File(path, "w") as f:
        names = layer_names or [layer.name for layer in model.layers]
        f.attrs["layer_names"] = [name.encode() for name in names]
        for layer in model.layers:
            group = f.create_group(layer.name)
            variables = legacy_h5.legacy_weights(layer)
            weight_names = [f"{layer.name}/{v.name}:0".encode() for v in variables]
            group.attrs["weight_names"] = weight_names
            for name, v in zip(weight_names, variables):
                data = v.numpy() if values is None else values[name.decode()]
                group.create_dataset(name, data=data)
    return str(path)


def test_keras_written_legacy_file_loads_and_predicts_the_same(tmp_path):
    keras = pytest.importorskip("keras")
    from keras.src.legacy.saving import legacy_h5_format

    source = _model(keras)
    rng = np.random.default_rng(0)
    source.set_weights([rng.standard_normal(w.shape).astype("float32") for w in
                        source.get_weights()])
    bn = source.get_layer("bn")
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, bn.moving_variance.shape))
    path = str(tmp_path / "keras2.h5")
    with h5py.File(path, "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, source)
    model = _model(ks)
    assert legacy_h5.is_legacy_weights_file(path)
    assert model.load_weights(path) is None
    x = rng.standard_normal((2, 6, 6, 2)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), np.asarray(source(x)), rtol=1e-5, atol=1e-5)


def test_whole_model_file_and_chunked_names(tmp_path):
    source, model = _model(ks), _model(ks)
    path = tmp_path / "whole.h5"
    _write(path, source)
    with h5py.File(path, "a") as f:  # move it under model_weights, names in two chunks
        names = [n.decode() if isinstance(n, bytes) else n for n in f.attrs["layer_names"]]
        del f.attrs["layer_names"]
        group = f.create_group("model_weights")
        for name in names:
            f.move(name, f"model_weights/{name}")
        encoded = [name.encode() for name in names]
        group.attrs["layer_names0"], group.attrs["layer_names1"] = encoded[:2], encoded[2:]
    legacy_h5.load_legacy_weights(model, path)
    for a, b in zip(source.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_by_name_and_skip_mismatch(tmp_path):
    source, model = _model(ks, units=3), _model(ks, units=5)
    path = _write(tmp_path / "w.h5", source)
    dense_before = model.get_layer("dense").get_weights()
    with pytest.raises(WeightsFileError, match="shape mismatch for layer #2 .*'dense'"
                                               ".*expects \\(64, 5\\), the file holds \\(64, 3\\)"):
        legacy_h5.load_legacy_weights(model, path)
    legacy_h5.load_legacy_weights(model, path, by_name=True, skip_mismatch=True)
    np.testing.assert_array_equal(model.get_layer("conv").get_weights()[0],
                                  source.get_layer("conv").get_weights()[0])
    np.testing.assert_array_equal(model.get_layer("dense").get_weights()[0], dense_before[0])


def test_errors(tmp_path):
    model = _model(ks)
    with pytest.raises(FileNotFoundError, match="no such file"):
        legacy_h5.load_legacy_weights(model, tmp_path / "absent.h5")
    not_h5 = tmp_path / "text.h5"
    not_h5.write_text("hello")
    assert not legacy_h5.is_legacy_weights_file(not_h5)
    with pytest.raises(WeightsFileError, match="not an HDF5 weights file"):
        legacy_h5.load_legacy_weights(model, not_h5)
    bare = tmp_path / "bare.h5"
    h5py.File(bare, "w").close()
    with pytest.raises(WeightsFileError, match="not in Keras 2's weights layout"):
        legacy_h5.load_legacy_weights(model, bare)
    fewer = ks.Model(model.inputs, model.get_layer("bn").output)
    path = _write(tmp_path / "w.h5", model)
    with pytest.raises(WeightsFileError, match="layer count mismatch: the model has 2 layers "
                                               "with weights, the file holds 3"):
        legacy_h5.load_legacy_weights(fewer, path)
    with h5py.File(path, "a") as f:
        f["bn"].attrs["weight_names"] = list(f["bn"].attrs["weight_names"])[:2]
    with pytest.raises(WeightsFileError, match="weight count mismatch for layer #1 .*the "
                                               "layer has 4 weight\\(s\\), the file holds 2"):
        legacy_h5.load_legacy_weights(model, path)
    with h5py.File(path, "a") as f:
        f["conv"].attrs["weight_names"] = [b"conv/missing:0", b"conv/bias:0"]
    with pytest.raises(WeightsFileError, match="lists weight 'conv/missing:0' but holds no "
                                               "dataset of that name"):
        legacy_h5.load_legacy_weights(model, path)


def test_kerasish_checkpoint_named_h5_still_loads(tmp_path):
    """`save_weights("x.h5")` writes a kerasish checkpoint; load_weights reads it as one."""
    source, model = _model(ks), _model(ks)
    path = os.fspath(tmp_path / "ckpt.h5")
    source.save_weights(path)
    assert not legacy_h5.is_legacy_weights_file(path)
    model.load_weights(path)
    for a, b in zip(source.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
