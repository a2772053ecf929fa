"""keras.utils names added for issue 20: get_file, the image files, the model diagrams,
Config, get_source_inputs, audio_dataset_from_directory, Progbar(stateless_metrics) and
timeseries_dataset_from_array(format)."""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tarfile
import wave
import zipfile

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.datasets import _files
from kerasish.utils import _visualization


# -- get_file ------------------------------------------------------------------------------
def _no_network(url, timeout=None):
    raise OSError("network is unreachable")


def test_get_file_uses_a_file_already_in_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(_files, "urlopen", _no_network)
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "data.csv").write_text("a,b\n")
    digest = hashlib.sha256(b"a,b\n").hexdigest()
    path = ks.utils.get_file(origin="https://example.com/files/data.csv", file_hash=digest)
    assert path == str(tmp_path / "datasets" / "data.csv")
    md5 = hashlib.md5(b"a,b\n").hexdigest()
    assert ks.utils.get_file("data.csv", "https://x/y", md5_hash=md5) == path


def test_get_file_without_network_names_the_url_and_where_to_place_the_file(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr(_files, "urlopen", _no_network)
    with pytest.raises(_files.DownloadError,
                       match=r"https://example.com/m.npz.*place it at .*cache[/\\]sub[/\\]m.npz"):
        ks.utils.get_file(origin="https://example.com/m.npz", cache_dir=str(tmp_path / "cache"),
                          cache_subdir="sub")


def test_get_file_downloads_checks_the_hash_and_extracts(tmp_path, monkeypatch):
    payload = io.BytesIO()
    with tarfile.open(fileobj=payload, mode="w:gz") as bundle:
        info = tarfile.TarInfo("folder/hello.txt")
        info.size = 2
        bundle.addfile(info, io.BytesIO(b"hi"))
    data = payload.getvalue()

    class Response(io.BytesIO):
        headers = {"Content-Length": str(len(data))}

    monkeypatch.setattr(_files, "urlopen", lambda url, timeout=None: Response(data))
    folder = ks.utils.get_file("pack.tar.gz", "https://x/pack.tar.gz", cache_dir=str(tmp_path),
                               extract=True, file_hash=hashlib.sha256(data).hexdigest())
    assert folder == str(tmp_path / "datasets" / "pack_extracted")
    assert open(os.path.join(folder, "folder", "hello.txt")).read() == "hi"
    with pytest.raises(ValueError, match="does not match the sha256 hash"):
        ks.utils.get_file("other.tar.gz", "https://x/p", cache_dir=str(tmp_path),
                          file_hash="0" * 64)
    assert not (tmp_path / "datasets" / "other.tar.gz").exists()


def test_get_file_extracts_zip_archives(tmp_path, monkeypatch):
    (tmp_path / "datasets").mkdir()
    with zipfile.ZipFile(tmp_path / "datasets" / "z_archive", "w") as bundle:
        bundle.writestr("a.txt", "zip")
    monkeypatch.setattr(_files, "urlopen", _no_network)
    folder = ks.utils.get_file(origin="https://x/z", cache_dir=str(tmp_path), extract=True)
    assert open(os.path.join(folder, "a.txt")).read() == "zip"


def test_get_file_refuses_what_keras_refuses(tmp_path):
    with pytest.raises(ValueError, match='give the "origin" argument'):
        ks.utils.get_file("x.txt")
    with pytest.raises(ValueError, match="fname must be a file name, not a path"):
        ks.utils.get_file(os.path.join("a", "b.txt"), "https://x/b.txt", cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match="cannot take a file name from origin"):
        ks.utils.get_file(origin="https://example.com/", cache_dir=str(tmp_path))
    (tmp_path / "datasets" / "f").write_text("x")
    with pytest.raises(ValueError, match="hash_algorithm must be"):
        ks.utils.get_file("f", "https://x/f", cache_dir=str(tmp_path), file_hash="ab",
                          hash_algorithm="sha1")


# -- images ------------------------------------------------------------------------------
def test_save_load_img_round_trip(tmp_path):
    pytest.importorskip("PIL")
    pixels = np.arange(4 * 6 * 3, dtype=np.float32).reshape(4, 6, 3)
    ks.utils.save_img(tmp_path / "a.png", pixels, scale=False)
    image = ks.utils.load_img(tmp_path / "a.png")
    np.testing.assert_array_equal(ks.utils.img_to_array(image), pixels)
    grey = ks.utils.load_img(str(tmp_path / "a.png"), color_mode="grayscale", target_size=(2, 3))
    assert ks.utils.img_to_array(grey).shape == (2, 3, 1)
    cropped = ks.utils.load_img(tmp_path / "a.png", target_size=(2, 2), keep_aspect_ratio=True,
                                interpolation="bilinear")
    assert cropped.size == (2, 2)
    with open(tmp_path / "a.png", "rb") as f:
        assert ks.utils.load_img(io.BytesIO(f.read()), color_mode="rgba").mode == "RGBA"
    with pytest.warns(UserWarning, match="JPEG has no alpha channel"):
        ks.utils.save_img(tmp_path / "b.jpg", np.zeros((2, 2, 4)))


def test_array_to_img_dtype_and_32_bit_grey():
    pytest.importorskip("PIL")
    assert ks.utils.array_to_img(np.full((2, 2, 1), 1000.0), scale=False).mode == "I"
    image = ks.utils.array_to_img(np.ones((2, 2, 3), np.float64), dtype="float64",
                                  data_format="channels_last")
    assert image.mode == "RGB"
    assert ks.utils.img_to_array(np.zeros((3, 4, 2)), dtype="uint8").dtype == np.uint8


def test_image_errors_say_what_is_wrong(tmp_path, monkeypatch):
    pytest.importorskip("PIL")
    with pytest.raises(ValueError, match="color_mode must be"):
        ks.utils.save_img(tmp_path / "c.png", np.zeros((2, 2, 3)))
        ks.utils.load_img(tmp_path / "c.png", color_mode="cmyk")
    with pytest.raises(ValueError, match="interpolation must be one of"):
        ks.utils.load_img(tmp_path / "c.png", target_size=(1, 1), interpolation="cubic")
    with pytest.raises(TypeError, match="path must be path-like"):
        ks.utils.load_img(3)
    with pytest.raises(InvalidArgumentError, match="data_format must be"):
        ks.utils.array_to_img(np.zeros((2, 2, 3)), data_format="nhwc")
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="load_img needs the Pillow package.*pip install pillow"):
        ks.utils.load_img(tmp_path / "c.png")


# -- diagrams ----------------------------------------------------------------------------
def _two_input_model():
    a, b = ks.Input((2,), name="a"), ks.Input((2,), name="b")
    out = ks.layers.Dense(1, activation="relu", name="head")(ks.layers.Add(name="sum")([a, b]))
    return ks.Model([a, b], out)


def test_dot_source_has_every_layer_and_connection():
    model = _two_input_model()
    text = _visualization.dot_source(model, show_shapes=True, show_dtype=True,
                                     show_layer_activations=True, show_trainable=True)
    assert text.startswith('digraph "functional')
    assert "head (Dense)" in text and "Activation: relu" in text and "Trainable: Y" in text
    assert "Output shape: (None, 1)" in text
    assert text.count("->") == 3
    chain = _visualization.dot_source(ks.Sequential([ks.Input((3,)), ks.layers.Dense(2),
                                                     ks.layers.Dense(1)]))
    assert chain.count("->") == 1


def test_plot_model_without_pydot_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)
    for function in (ks.utils.plot_model, ks.utils.model_to_dot):
        with pytest.raises(ImportError, match="needs pydot and Graphviz.*pip install pydot"):
            function(_two_input_model())


def test_model_to_dot_hands_the_text_to_pydot(monkeypatch):
    seen = []

    class FakePydot:
        @staticmethod
        def graph_from_dot_data(text):
            seen.append(text)
            return ["graph"]

    monkeypatch.setitem(sys.modules, "pydot", FakePydot)
    assert ks.utils.model_to_dot(_two_input_model(), rankdir="LR") == "graph"
    assert "rankdir=LR;" in seen[0]


# -- Config, get_source_inputs -------------------------------------------------------------
def test_config_behaves_as_keras():
    config = ks.utils.Config(learning_rate=0.1, momentum=0.9)
    config.seed = 1
    config["epochs"] = 3
    assert config.as_dict() == {"learning_rate": 0.1, "momentum": 0.9, "seed": 1, "epochs": 3}
    assert list(config) == ["epochs", "learning_rate", "momentum", "seed"]
    assert len(config) == 4 and "seed" in config and config.get("x", 5) == 5
    with pytest.raises(AttributeError, match="Unknown attribute: 'momentun'. Did you mean "
                                             "'momentum'?"):
        _ = config.momentun
    config.freeze()
    assert config.frozen
    for change in (lambda: setattr(config, "seed", 2), lambda: config.update(a=1),
                   lambda: config.pop("seed"), lambda: config.__delitem__("seed")):
        with pytest.raises(ValueError, match="the config is frozen"):
            change()
    config.unfreeze()
    del config["seed"]
    assert config.to_json() == '{"learning_rate": 0.1, "momentum": 0.9, "epochs": 3}'


def test_get_source_inputs():
    model = _two_input_model()
    assert ks.utils.get_source_inputs(model.outputs[0]) == model.inputs
    assert ks.utils.get_source_inputs(model.inputs[1])[0] is model.inputs[1]
    assert ks.utils.get_source_inputs(3) == 3


# -- audio ---------------------------------------------------------------------------------
def _write_wav(path, values, width=2, rate=8000, channels=1):
    scale = {1: 128, 2: 2 ** 15, 4: 2 ** 31}[width]
    ints = np.round(np.asarray(values) * scale).astype(np.int64)
    raw = ((ints + 128).astype(np.uint8).tobytes() if width == 1 else
           ints.astype({2: "<i2", 4: "<i4"}[width]).tobytes())
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(channels)
        handle.setsampwidth(width)
        handle.setframerate(rate)
        handle.writeframes(raw)


def test_audio_dataset_pads_each_batch_and_labels_by_folder(tmp_path):
    for label, values, width in (("down", [0.5, -0.5], 2), ("up", [0.25, 0.5, -1.0, 0.0], 4),
                                 ("up", [0.5], 1)):
        (tmp_path / label).mkdir(exist_ok=True)
        _write_wav(tmp_path / label / f"{width}.wav", values, width)
    ds = ks.utils.audio_dataset_from_directory(tmp_path, batch_size=2, shuffle=False,
                                               verbose=False)
    assert ds.class_names == ["down", "up"]
    (audio, labels), (last, last_labels) = list(ds)
    np.testing.assert_allclose(audio.numpy()[..., 0], [[0.5, -0.5], [0.5, 0]])  # up/1.wav
    assert labels.numpy().tolist() == [0, 1] and last.shape == (1, 4, 1)
    np.testing.assert_allclose(last.numpy()[0, :, 0], [0.25, 0.5, -1.0, 0.0])
    fixed = ks.utils.audio_dataset_from_directory(tmp_path, batch_size=None, shuffle=False,
                                                  output_sequence_length=3, verbose=False,
                                                  label_mode="categorical")
    clip, onehot = next(iter(fixed))
    assert clip.shape == (3, 1) and onehot.numpy().tolist() == [1.0, 0.0]
    train, val = ks.utils.audio_dataset_from_directory(tmp_path, validation_split=0.34,
                                                       subset="both", seed=1, verbose=False)
    assert sum(len(x) for x, _ in train) + sum(len(x) for x, _ in val) == 3


def test_audio_dataset_errors(tmp_path):
    (tmp_path / "a").mkdir()
    _write_wav(tmp_path / "a" / "x.wav", [0.1], rate=16000)
    with pytest.raises(ValueError, match="ragged=True makes tf.RaggedTensor batches"):
        ks.utils.audio_dataset_from_directory(tmp_path, ragged=True)
    with pytest.raises(ValueError, match="sampled at 16000 Hz, not sampling_rate=8000"):
        ks.utils.audio_dataset_from_directory(tmp_path, sampling_rate=8000, verbose=False)
    (tmp_path / "a" / "bad.wav").write_bytes(b"not a wav")
    with pytest.raises(ValueError, match="is not a PCM WAV file"):
        ks.utils.audio_dataset_from_directory(tmp_path, verbose=False)
    with pytest.raises(ValueError, match="output_sequence_length must be positive"):
        ks.utils.audio_dataset_from_directory(tmp_path, output_sequence_length=0)


# -- Progbar, timeseries ---------------------------------------------------------------------
def test_progbar_stateless_metrics_are_the_only_averaged_ones():
    bar = ks.utils.Progbar(2, verbose=0, stateless_metrics=["loss"])
    bar.update(1, [("loss", 1.0), ("acc", 0.5)])
    bar.update(2, [("loss", 3.0), ("acc", 0.75)])
    assert bar.averages() == {"loss": 2.0, "acc": 0.75}
    with pytest.raises(ValueError, match="not both"):
        ks.utils.Progbar(2, stateful_metrics=["a"], stateless_metrics=["b"])


def test_timeseries_format():
    ds = ks.utils.timeseries_dataset_from_array(np.arange(5), None, 2, format="tf")
    assert next(iter(ds)).shape == (4, 2)
    with pytest.raises(ValueError, match='format="grain" makes a Grain dataset'):
        ks.utils.timeseries_dataset_from_array(np.arange(5), None, 2, format="grain")
    with pytest.raises(ValueError, match='format must be "tf"'):
        ks.utils.timeseries_dataset_from_array(np.arange(5), None, 2, format="np")


# -- against Keras -----------------------------------------------------------------------------
def test_get_file_finds_what_keras_finds(tmp_path, monkeypatch):
    keras = pytest.importorskip("keras")
    monkeypatch.setattr(_files, "urlopen", _no_network)
    for sub in ("datasets", "models"):
        (tmp_path / sub).mkdir(exist_ok=True)
        (tmp_path / sub / "f.npz").write_bytes(b"x")
        (tmp_path / sub / "pack_archive").write_bytes(b"x")
    for kwargs in ({"origin": "https://x/f.npz"}, {"fname": "f.npz", "origin": "https://x/y",
                                                   "cache_subdir": "models"}):
        ours = ks.utils.get_file(cache_dir=str(tmp_path), **kwargs)
        assert ours == keras.utils.get_file(cache_dir=str(tmp_path), **kwargs)


def test_audio_dataset_matches_keras(tmp_path):
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    for label, values in (("a", [0.5, -0.25, 0.125]), ("a", [0.75]), ("b", [-0.5, 0.5])):
        (tmp_path / label).mkdir(exist_ok=True)
        _write_wav(tmp_path / label / f"{len(values)}.wav", values)
    for kwargs in ({"batch_size": 2}, {"batch_size": None, "output_sequence_length": 2},
                   {"batch_size": 3, "label_mode": "categorical"}):
        theirs = keras.utils.audio_dataset_from_directory(tmp_path, shuffle=False,
                                                          verbose=False, **kwargs)
        ours = ks.utils.audio_dataset_from_directory(tmp_path, shuffle=False, verbose=False,
                                                     **kwargs)
        for (xa, ya), (xb, yb) in zip(theirs, ours, strict=True):
            np.testing.assert_allclose(xb.numpy(), np.asarray(xa), atol=1e-6)
            np.testing.assert_array_equal(yb.numpy(), np.asarray(ya))
