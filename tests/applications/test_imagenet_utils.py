"""ks.applications' shared part: preprocessing modes, decoding, Keras's input-shape and
argument checks, and finding Keras's weight files in its cache folder (no download)."""

import json
import os

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.applications import imagenet_utils


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX", None)
    return tmp_path


def test_preprocess_modes_on_arrays_and_tensors():
    rng = np.random.default_rng(0)
    images = rng.uniform(0, 255, (2, 4, 5, 3))
    caffe = images[..., ::-1] - np.array([103.939, 116.779, 123.68])
    torch = (images / 255.0 - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    expected = {"caffe": caffe, "tf": images / 127.5 - 1.0, "torch": torch}
    for mode, want in expected.items():
        np.testing.assert_allclose(
            imagenet_utils.preprocess_input(images.copy(), mode=mode), want, rtol=1e-6)
        tensor = imagenet_utils.preprocess_input(ks.convert_to_tensor(images), mode=mode)
        np.testing.assert_allclose(tensor.numpy(), want, rtol=1e-6)
    first = np.moveaxis(images, -1, 1)
    np.testing.assert_allclose(
        imagenet_utils.preprocess_input(first.copy(), data_format="channels_first"),
        np.moveaxis(caffe, -1, 1), rtol=1e-6)
    np.testing.assert_allclose(
        imagenet_utils.preprocess_input(ks.convert_to_tensor(first[0]),
                                        data_format="channels_first").numpy(),
        np.moveaxis(caffe[0], -1, 0), rtol=1e-6)


def test_preprocess_casts_integers_and_writes_over_floats():
    out = imagenet_utils.preprocess_input(np.full((1, 1, 3), 255, np.uint8), mode="tf")
    assert out.dtype == np.float32 and np.all(out == 1.0)
    floats = np.full((1, 1, 3), 255.0, np.float32)
    imagenet_utils.preprocess_input(floats, mode="tf")
    assert np.all(floats == 1.0)  # as Keras: the input is written over


def test_preprocess_inside_a_functional_model():
    inputs = ks.Input((4, 4, 3))
    model = ks.Model(inputs, ks.applications.vgg16.preprocess_input(inputs))
    images = np.random.default_rng(1).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    np.testing.assert_allclose(model(images).numpy(),
                               images[..., ::-1] - np.array([103.939, 116.779, 123.68]),
                               rtol=1e-5)


def test_preprocess_errors():
    with pytest.raises(ValueError, match="Expected mode to be one of `caffe`, `tf` or "
                                         "`torch`. Received: mode=bad"):
        imagenet_utils.preprocess_input(np.zeros((1, 1, 3)), mode="bad")
    with pytest.raises(ValueError, match="Received: data_format=nchw"):
        imagenet_utils.preprocess_input(np.zeros((1, 1, 3)), data_format="nchw")


def test_decode_predictions_reads_keras_class_index(keras_home):
    (keras_home / "models").mkdir()
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (keras_home / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    imagenet_utils.CLASS_INDEX_HASH = None  # our stand-in file, not Keras's
    try:
        preds = np.zeros((2, 1000), "float32")
        preds[0, [3, 7]] = [0.9, 0.1]
        preds[1, 999] = 1.0
        decoded = ks.applications.vgg16.decode_predictions(preds, top=2)
    finally:
        imagenet_utils.CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"
    assert decoded[0] == [("n00000003", "class_3", np.float32(0.9)),
                          ("n00000007", "class_7", np.float32(0.1))]
    assert decoded[1][0][:2] == ("n00000999", "class_999")


def test_decode_predictions_errors(keras_home):
    with pytest.raises(ValueError, match=r"Received array with shape: \(3,\)"):
        imagenet_utils.decode_predictions(np.zeros(3))
    with pytest.raises(FileNotFoundError) as error:
        imagenet_utils.decode_predictions(np.zeros((1, 1000)))
    message = str(error.value)
    assert "imagenet_class_index.json" in message and str(keras_home / "models") in message
    assert imagenet_utils.CLASS_INDEX_PATH in message


def test_cache_dir_follows_keras_home(monkeypatch, tmp_path):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    assert imagenet_utils.cache_dir() == str(tmp_path / "models")
    monkeypatch.delenv("KERAS_HOME")
    assert imagenet_utils.cache_dir() == os.path.join(os.path.expanduser("~"), ".keras",
                                                      "models")


def test_cached_file_checks_the_hash(keras_home):
    (keras_home / "models").mkdir()
    path = keras_home / "models" / "w.h5"
    path.write_bytes(b"abc")
    md5 = "900150983cd24fb0d6963f7d28e17f72"
    assert imagenet_utils.cached_file("w.h5", "https://x/w.h5", md5) == str(path)
    with pytest.raises(ValueError, match="its md5 is 9001.*download it again from https://x"):
        imagenet_utils.cached_file("w.h5", "https://x/w.h5", "0" * 32)


def test_imagenet_weights_absent_names_file_url_and_folder(keras_home):
    with pytest.raises(FileNotFoundError) as error:
        ks.applications.VGG16(include_top=False, input_shape=(32, 32, 3))
    message = str(error.value)
    assert "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5" in message
    assert ks.applications.vgg16.WEIGHTS_PATH_NO_TOP in message
    assert str(keras_home / "models") in message


def test_imagenet_weights_found_in_the_cache_folder(keras_home):
    """A legacy-layout file under Keras's name in $KERAS_HOME/models loads (hash aside)."""
    source = ks.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3))
    (keras_home / "models").mkdir()
    fname = "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5"
    with h5py.File(keras_home / "models" / fname, "w") as f:
        layers = [layer for layer in source.layers if layer.weights]
        f.attrs["layer_names"] = [layer.name.encode() for layer in source.layers]
        for layer in layers:
            group = f.create_group(layer.name)
            names = [f"{layer.name}/{w.name}:0".encode() for w in layer.weights]
            group.attrs["weight_names"] = names
            for name, w in zip(names, layer.weights):
                group.create_dataset(name, data=w.numpy())
    files = ks.applications.vgg16._FILES
    saved = files[False]
    files[False] = saved[:2] + (None,)
    try:
        model = ks.applications.VGG16(include_top=False, input_shape=(32, 32, 3))
    finally:
        files[False] = saved
    for a, b in zip(source.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_argument_checks():
    with pytest.raises(ValueError, match="The `weights` argument should be either `None`"):
        ks.applications.VGG16(weights="/no/such/file.h5")
    with pytest.raises(ValueError, match="`classes` should be 1000.  Received classes=10"):
        ks.applications.VGG16(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="Input size must be at least 32x32"):
        ks.applications.VGG16(weights=None, include_top=False, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="`input_shape` must be a tuple of three integers"):
        ks.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32))
    with pytest.raises(ValueError, match="The input must have 3 channels"):
        imagenet_utils.obtain_input_shape((32, 32, 1), 224, 32, "channels_last", False,
                                          "imagenet")
    with pytest.raises(ValueError, match=r"`input_shape` should be \(224, 224, 3\)"):
        imagenet_utils.obtain_input_shape((64, 64, 3), 224, 32, "channels_last", True,
                                          "imagenet")
    with pytest.raises(ValueError, match="you should specify a static `input_shape`"):
        imagenet_utils.obtain_input_shape((None, None, 3), 224, 32, "channels_last", True)
    with pytest.raises(ValueError, match="Only `None` and `softmax` activations"):
        ks.applications.VGG16(weights="imagenet", classifier_activation="relu")
    with pytest.warns(UserWarning, match="usually expects 1 or 3 input channels"):
        assert imagenet_utils.obtain_input_shape(
            (40, 40, 5), 224, 32, "channels_last", False) == (40, 40, 5)
    assert imagenet_utils.obtain_input_shape(
        None, 224, 32, "channels_first", True) == (3, 224, 224)
    assert imagenet_utils.obtain_input_shape(
        (3, 64, 64), 224, 32, "channels_first", False) == (3, 64, 64)


def test_input_tensor_and_pooling():
    inputs = ks.Input((32, 32, 3))
    scaled = ks.layers.Rescaling(1 / 255.0)(inputs)
    model = ks.applications.VGG19(weights=None, include_top=False, input_tensor=scaled,
                                  pooling="max")
    assert model.inputs[0] is inputs and model.output.shape == (None, 512)
    top = ks.applications.VGG16(weights=None, input_shape=(32, 32, 3), classes=7,
                                classifier_activation=None)
    assert top.output.shape == (None, 7) and top.get_layer("predictions").activation is not None
    assert imagenet_utils.correct_pad(ks.Input((33, 32, 3)), (3, 3)) == ((1, 1), (0, 1))
