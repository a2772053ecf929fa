"""`.keras` files: save/load of Sequential, functional and subclassed models, optimizer state,
compile settings, safety checks and error messages, JSON, clone_model, `.weights.h5`."""

import io
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import zipfile

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.saving import KerasFileError, SerializationError, WeightsFileError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _data(n=16, features=4, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, features)).astype(np.float32), rng.integers(0, classes, n)


def _mlp(name=None, dropout=True):
    return ks.Sequential([
        ks.layers.Dense(8, activation="relu", input_shape=(4,)),
        ks.layers.BatchNormalization(),
        ks.layers.Dropout(0.1 if dropout else 0.0),
        ks.layers.Dense(3, activation="softmax"),
    ], name=name)


def _compiled_mlp(dropout=True):
    model = _mlp(dropout=dropout)
    model.compile(optimizer=ks.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def _archive(path):
    with zipfile.ZipFile(path) as archive:
        return sorted(archive.namelist()), json.loads(archive.read("config.json")), \
            json.loads(archive.read("metadata.json"))


def test_sequential_round_trip_keeps_predictions_compile_and_optimizer_state(tmp_path):
    x, y = _data()
    model = _compiled_mlp()
    model.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
    path = model.save(tmp_path / "m.keras")
    names, config, metadata = _archive(path)
    assert names == ["config.json", "metadata.json", "model.weights.h5"]
    assert config["class_name"] == "Sequential" and config["module"] == "keras"
    assert config["config"]["build_input_shape"] == [None, 4]
    assert [layer["class_name"] for layer in config["config"]["layers"]] == [
        "Dense", "BatchNormalization", "Dropout", "Dense"]
    compile_config = config["compile_config"]
    assert compile_config["optimizer"]["class_name"] == "Adam"
    assert compile_config["loss"] == "sparse_categorical_crossentropy"
    assert compile_config["metrics"] == ["accuracy"]
    assert metadata["kerasish_version"] == ks.__version__ and "date_saved" in metadata

    loaded = ks.models.load_model(path)
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
    assert int(loaded.optimizer.iterations) == int(model.optimizer.iterations) == 4
    for old, new in zip(model.trainable_variables, loaded.trainable_variables):
        for slot in ("m", "v"):
            np.testing.assert_array_equal(model.optimizer.get_slot(old, slot).numpy(),
                                          loaded.optimizer.get_slot(new, slot).numpy())
    assert loaded.evaluate(x, y, return_dict=True) == model.evaluate(x, y, return_dict=True)


def test_training_continues_exactly_after_load(tmp_path):
    x, y = _data(24)
    ks.random.set_seed(7)
    straight = _compiled_mlp(dropout=False)  # no random draws during training
    ks.random.set_seed(7)
    resumed = _compiled_mlp(dropout=False)
    straight.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False)
    resumed.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
    resumed.save(tmp_path / "m.keras")
    resumed = ks.models.load_model(tmp_path / "m.keras")
    resumed.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    for a, b in zip(straight.variables, resumed.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
    assert int(resumed.optimizer.iterations) == 9


def test_load_without_compile_leaves_model_uncompiled(tmp_path):
    model = _compiled_mlp()
    model.save(tmp_path / "m.keras")
    loaded = ks.models.load_model(tmp_path / "m.keras", compile=False)
    assert loaded.optimizer is None and not loaded.compiled


def test_functional_multi_input_multi_output_and_nested_model(tmp_path):
    inner_in = ks.Input((3,), name="inner_in")
    inner = ks.Model(inner_in, ks.layers.Dense(3, activation="tanh", name="inner_dense")(inner_in),
                     name="inner")
    a = ks.Input((4,), name="a")
    b = ks.Input((3,), name="b")
    shared = ks.layers.Dense(3, name="shared")
    joined = ks.layers.Dense(3, name="joined")(a) + inner(shared(b))
    out1 = ks.layers.Dense(2, name="out1")(joined)
    out2 = ks.layers.Dense(1, name="out2")(shared(joined))
    model = ks.Model([a, b], [out1, out2], name="two_headed")
    model.compile(optimizer="adam", loss=["mse", "mae"], loss_weights=[1.0, 0.5])
    xa, xb = _data(8)[0], _data(8, 3)[0]
    targets = [np.ones((8, 2), np.float32), np.zeros((8, 1), np.float32)]
    model.fit([xa, xb], targets, epochs=1, batch_size=4, verbose=0)
    model.save(tmp_path / "f.keras")
    loaded = ks.models.load_model(tmp_path / "f.keras")
    for got, want in zip(loaded.predict([xa, xb]), model.predict([xa, xb])):
        np.testing.assert_array_equal(got, want)
    assert int(loaded.optimizer.iterations) == 2
    assert loaded.get_layer("inner").get_layer("inner_dense").kernel.shape == (3, 3)
    loaded.fit([xa, xb], targets, epochs=1, batch_size=4, verbose=0)


@ks.saving.register_keras_serializable(package="TestKerasFile")
class _Residual(ks.Model):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = ks.layers.Dense(units, activation="relu")
        self.out = ks.layers.Dense(units)

    def call(self, inputs):
        return inputs + self.out(self.inner(inputs))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_subclassed_model_with_get_config_round_trips(tmp_path):
    model = _Residual(4)
    x = _data(5)[0]
    model(x)
    model.compile(optimizer="sgd", loss="mse")
    model.save(tmp_path / "r.keras")
    _, config, _ = _archive(tmp_path / "r.keras")
    assert config["registered_name"] == "TestKerasFile>_Residual"
    assert config["build_config"] == {"input_shape": [None, 4]}
    loaded = ks.models.load_model(tmp_path / "r.keras")
    assert type(loaded) is _Residual and loaded.units == 4
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))


@ks.saving.register_keras_serializable(package="TestKerasFile")
class _LazyScale(ks.layers.Layer):
    """Creates its weight at the first call on data, not at build (as some layers do)."""

    def build(self, input_shape):
        self.scale = None

    def call(self, inputs):
        if self.scale is None:
            self.scale = self.add_weight("scale", inputs.shape[-1:], initializer="ones")
        return inputs * self.scale

    def compute_output_shape(self, input_shape):
        return input_shape


def test_weights_created_at_the_first_call_are_made_before_loading(tmp_path):
    inputs = ks.Input((3,))
    model = ks.Model(inputs, _LazyScale()(inputs))
    x = _data(2, 3)[0]
    model(x)
    model.layers[1].scale.assign([1.0, 2.0, 3.0])
    model.save(tmp_path / "lazy.keras")
    loaded = ks.models.load_model(tmp_path / "lazy.keras")
    np.testing.assert_array_equal(loaded.layers[1].scale.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))


def test_subclassed_model_without_get_config_is_refused_naming_the_methods(tmp_path):
    class NoConfig(ks.Model):
        def __init__(self, units):
            super().__init__()
            self.dense = ks.layers.Dense(units)

        def call(self, inputs):
            return self.dense(inputs)

    model = NoConfig(2)
    model(np.ones((1, 3), np.float32))
    with pytest.raises(SerializationError, match=r"NoConfig is a subclassed Model without a "
                       r"get_config\(\).*from_config\(cls, config\)"):
        model.save(tmp_path / "n.keras")
    assert not os.path.exists(tmp_path / "n.keras")

    class NoArguments(ks.Model):
        def call(self, inputs):
            return inputs

    with pytest.raises(SerializationError, match="NoArguments is a subclassed") as info:
        NoArguments().save(tmp_path / "n.keras")
    assert "from_config" not in str(info.value)


def test_save_needs_the_keras_extension(tmp_path):
    with pytest.raises(ValueError, match=r"must end in '.keras'.*save_weights"):
        _mlp().save(tmp_path / "m.h5")


def test_overwrite_false_refuses_an_existing_file(tmp_path):
    model = _mlp()
    model.save(tmp_path / "m.keras")
    with pytest.raises(FileExistsError, match="overwrite=False"):
        model.save(tmp_path / "m.keras", overwrite=False)


def _rewrite(path, target, replace=None, extra=None):
    """Copy the archive at `path` to `target`, replacing entries or adding some."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            data = source.read(name)
            if replace and name in replace:
                data = replace[name]
            out.writestr(name, data)
        for name, data in (extra or {}).items():
            out.writestr(name, data)
    return target


def test_not_a_zip_truncated_and_foreign_files_name_the_path(tmp_path):
    text = tmp_path / "notes.keras"
    text.write_text("hello")
    with pytest.raises(KerasFileError, match=f"{text}: not a .keras file: it is not a zip"):
        ks.models.load_model(text)
    good = _mlp().save(tmp_path / "good.keras")
    truncated = tmp_path / "truncated.keras"
    truncated.write_bytes(open(good, "rb").read()[:-200])
    with pytest.raises(KerasFileError, match=f"{truncated}"):
        ks.models.load_model(truncated)
    foreign = tmp_path / "foreign.keras"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("readme.txt", "not a model")
    with pytest.raises(KerasFileError, match=f"{foreign}: not a .keras file: the archive has no "
                       "config.json or model.weights.h5"):
        ks.models.load_model(foreign)
    with pytest.raises(FileNotFoundError, match="missing.keras"):
        ks.models.load_model(tmp_path / "missing.keras")


def test_archive_entries_pointing_outside_are_refused(tmp_path):
    good = _mlp().save(tmp_path / "good.keras")
    for entry in ("../evil.txt", "/etc/evil.txt", "assets/../../evil.txt"):
        bad = _rewrite(good, tmp_path / "bad.keras", extra={entry: "x"})
        with pytest.raises(KerasFileError, match="points outside it"):
            ks.models.load_model(bad)


def test_external_links_and_object_datasets_in_weights_are_refused(tmp_path):
    good = _mlp().save(tmp_path / "good.keras")
    with zipfile.ZipFile(good) as archive:
        weights = archive.read("model.weights.h5")
    buffer = io.BytesIO(weights)
    with h5py.File(buffer, "a") as h5file:
        h5file["layers/extra"] = h5py.ExternalLink("/etc/secret.h5", "/data")
    bad = _rewrite(good, tmp_path / "link.keras", replace={"model.weights.h5": buffer.getvalue()})
    with pytest.raises(WeightsFileError, match="'layers/extra' is a ExternalLink"):
        ks.models.load_model(bad)
    buffer = io.BytesIO(weights)
    with h5py.File(buffer, "a") as h5file:
        h5file.create_dataset("junk", data=np.array([b"pickle"], dtype=object),
                              dtype=h5py.string_dtype())
    bad = _rewrite(good, tmp_path / "obj.keras", replace={"model.weights.h5": buffer.getvalue()})
    with pytest.raises(WeightsFileError, match="dataset 'junk' has dtype object"):
        ks.models.load_model(bad)


def test_lambda_in_config_needs_safe_mode_false(tmp_path):
    good = _mlp().save(tmp_path / "good.keras")
    _, config, _ = _archive(good)
    config["config"]["layers"][0]["config"]["activation"] = ks.saving.serialize_keras_object(
        lambda x: x * 2.0)
    bad = _rewrite(good, tmp_path / "lambda.keras",
                   replace={"config.json": json.dumps(config)})
    with pytest.raises(SerializationError, match=r"lambda.*pass safe_mode=False"):
        ks.models.load_model(bad)
    trusted = ks.models.load_model(bad, safe_mode=False)
    assert float(trusted.layers[0].activation(ks.constant(2.0))) == 4.0


def test_unknown_layer_class_in_a_file_is_named(tmp_path):
    good = _mlp().save(tmp_path / "good.keras")
    _, config, _ = _archive(good)
    config["config"]["layers"][1]["class_name"] = "NoSuchLayer"
    bad = _rewrite(good, tmp_path / "u.keras", replace={"config.json": json.dumps(config)})
    with pytest.raises(SerializationError, match="unsupported layer class 'NoSuchLayer'"):
        ks.models.load_model(bad)


def test_weights_that_do_not_fit_name_layer_and_shapes(tmp_path):
    path = _mlp().save(tmp_path / "m.keras")
    _, config, _ = _archive(path)
    config["config"]["layers"][3]["config"]["units"] = 2
    bad = _rewrite(path, tmp_path / "bad.keras", replace={"config.json": json.dumps(config)})
    with pytest.raises(WeightsFileError, match=r"variable 0 of layer 'dense.*has shape \(8, 2\) "
                       r"but 'layers/dense_1/vars/0' in the file has shape \(8, 3\)"):
        ks.models.load_model(bad)


def test_to_json_and_model_from_json():
    model = _mlp()
    text = model.to_json()
    assert json.loads(text)["class_name"] == "Sequential"
    copy = ks.models.model_from_json(text)
    assert copy.count_params() == model.count_params()
    assert copy.layers[0].kernel is not model.layers[0].kernel


def test_clone_model_sequential_and_functional():
    model = _mlp()
    clone = ks.models.clone_model(model)
    assert clone.count_params() == model.count_params()
    assert all(a is not b for a, b in zip(clone.variables, model.variables))
    inputs = ks.Input((4,), name="x")
    functional = ks.Model(inputs, ks.layers.Dense(2)(ks.layers.Dense(3)(inputs)))
    fresh = ks.models.clone_model(functional)
    assert [type(layer).__name__ for layer in fresh.layers] == ["InputLayer", "Dense", "Dense"]
    assert fresh.layers[1] is not functional.layers[1]
    shared = ks.models.clone_model(functional, clone_function=lambda layer: layer)
    x = _data(3)[0]
    np.testing.assert_array_equal(shared.predict(x), functional.predict(x))
    rebased = ks.models.clone_model(functional, input_tensors=ks.Input((4,), name="y"))
    assert rebased.input_names == ["y"]
    on_input = ks.models.clone_model(model, input_tensors=ks.Input((4,)))
    assert on_input.built and on_input.count_params() == model.count_params()

    class Sub(ks.Model):
        def call(self, inputs):
            return inputs

    with pytest.raises(ks.InvalidArgumentError, match="only Sequential and functional"):
        ks.models.clone_model(Sub())


def test_weights_h5_uses_keras_layout_and_old_checkpoints_still_work(tmp_path):
    x, y = _data()
    model = _compiled_mlp()
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    path = model.save_weights(tmp_path / "m.weights.h5")
    with h5py.File(path, "r") as h5file:
        assert h5file["layers/dense/vars"].attrs["name"] == model.layers[0].name
        assert sorted(h5file["layers/batch_normalization/vars"]) == ["0", "1", "2", "3"]
        assert h5file["layers/dense_1/vars/0"].shape == (8, 3)
        assert h5file["optimizer/vars/0"][()] == 2  # iterations
    other = _compiled_mlp()
    other.load_weights(path)
    np.testing.assert_array_equal(other.predict(x), model.predict(x))
    assert int(other.optimizer.iterations) == 2
    legacy = model.save_weights(tmp_path / "legacy.h5")
    with h5py.File(legacy, "r") as h5file:
        assert h5file.attrs["kerasish_format"] == "kerasish-checkpoint"
    fresh = _mlp()
    fresh.load_weights(legacy)
    np.testing.assert_array_equal(fresh.predict(x), model.predict(x))


def test_load_weights_into_a_different_model_names_the_layer(tmp_path):
    path = _mlp().save_weights(tmp_path / "m.weights.h5")
    smaller = ks.Sequential([ks.layers.Dense(8, input_shape=(4,)), ks.layers.Dense(3)])
    with pytest.raises(WeightsFileError, match=r"holds weights for 'layers/batch_normalization', "
                       r"which model 'sequential.*' does not have"):
        smaller.load_weights(path)
    no_bias = ks.Sequential([
        ks.layers.Dense(8, input_shape=(4,)), ks.layers.BatchNormalization(),
        ks.layers.Dropout(0.1), ks.layers.Dense(3, use_bias=False),
    ])
    with pytest.raises(WeightsFileError, match=r"layer 'dense.*\(Dense, at 'layers/dense_1'\) has "
                       "1 variables but the file has 2 under 'layers/dense_1/vars'"):
        no_bias.load_weights(path)
    not_h5 = tmp_path / "x.weights.h5"
    not_h5.write_text("nope")
    with pytest.raises(WeightsFileError, match="x.weights.h5: not a weights file"):
        smaller.load_weights(not_h5)


# ---------------------------------------------------------------- crash safety

SAVER = textwrap.dedent("""
    import sys
    import numpy as np
    import kerasish as ks

    path = sys.argv[1]
    model = ks.Sequential([ks.layers.Dense(2000, input_shape=(2000,))])  # a 16 MB kernel
    n = 0
    print("ready", flush=True)
    while True:
        n += 1
        model.layers[0].kernel.assign(np.full((2000, 2000), n, np.float32))
        model.layers[0].bias.assign(np.full((2000,), -n, np.float32))
        model.save(path)
        print("saved", flush=True)
""")


def _saved_number(path):
    """The n of a complete save of the child's: kernel all n, bias all -n."""
    model = ks.models.load_model(path)
    kernel, bias = model.layers[0].kernel.numpy(), model.layers[0].bias.numpy()
    n = kernel[0, 0]
    assert kernel.min() == kernel.max() == n and bias.min() == bias.max() == -n, "torn file"
    return int(n)


@pytest.mark.slow
def test_sigkill_during_save_leaves_the_previous_file_loadable(tmp_path):
    path = str(tmp_path / "model.keras")
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rng = random.Random(5)
    last, kills, cycle = 0, 0, None
    # a number of kills, not a time budget: on a loaded machine each child starts slower but
    # each kill proves as much (the kill points scale with the measured save time)
    while kills < 6:
        child = subprocess.Popen([sys.executable, str(script), path], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        if cycle is None:  # the first child saves once untouched: how long a save takes here
            began = time.monotonic()
            assert child.stdout.readline().strip() == "saved", child.stderr.read()
            cycle = time.monotonic() - began
        time.sleep(rng.uniform(0.0, 2.5 * cycle))  # anywhere in the next two or three saves
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
        kills += 1
        last = max(last, _saved_number(path))  # always a complete, loadable file
    assert last >= 1  # (the first child saved once before it was killed)
    leftovers = [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
    assert len(leftovers) <= kills  # killed writers' temporaries; never the file itself


@ks.saving.register_keras_serializable(package="TestKerasFile")
class _ScaledMSE(ks.losses.Loss):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, y_true, y_pred):
        return self.factor * ks.reduce_mean(ks.square(y_true - y_pred), -1)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_registered_custom_loss_comes_back_compiled(tmp_path):
    model = ks.Sequential([ks.layers.Dense(1, input_shape=(4,))])
    model.compile(optimizer="sgd", loss=_ScaledMSE(3.0))
    model.save(tmp_path / "c.keras")
    loaded = ks.models.load_model(tmp_path / "c.keras")
    x, _ = _data(4)
    y = np.ones((4, 1), np.float32)
    assert loaded.evaluate(x, y) == pytest.approx(model.evaluate(x, y))


def test_model_with_its_own_compile_is_loaded_uncompiled_with_a_warning(tmp_path):
    @ks.saving.register_keras_serializable(package="TestKerasFile")
    class TwoOptimizers(ks.Sequential):
        def compile(self, first, second):
            super().compile(optimizer=first, loss="mse")
            self.second = second

    model = TwoOptimizers([ks.layers.Dense(1, input_shape=(2,))])
    model.compile(ks.optimizers.SGD(), ks.optimizers.Adam())
    model.save(tmp_path / "gan.keras")
    with pytest.warns(UserWarning, match="overrides compile.*call compile\\(\\) yourself"):
        loaded = ks.models.load_model(tmp_path / "gan.keras")
    assert type(loaded) is TwoOptimizers and not loaded.compiled


def test_saving_functions_take_weights_h5_names_only(tmp_path):
    model = _mlp()
    path = ks.saving.save_weights(model, tmp_path / "m.weights.h5")
    ks.saving.load_weights(_mlp(), path)
    with pytest.raises(ValueError, match=r"must end in '.weights.h5'"):
        ks.saving.save_weights(model, tmp_path / "m.h5")
    with pytest.raises(ValueError, match=r"load_weights: the file name must end in"):
        ks.saving.load_weights(model, tmp_path / "m.h5")


def test_model_checkpoint_with_a_keras_name_saves_whole_models(tmp_path):
    x, y = _data()
    model = _compiled_mlp()
    template = str(tmp_path / "epoch-{epoch}.keras")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0,
              callbacks=[ks.callbacks.ModelCheckpoint(template, monitor="loss")])
    second = ks.models.load_model(tmp_path / "epoch-2.keras")
    np.testing.assert_array_equal(second.predict(x), model.predict(x))
    assert int(second.optimizer.iterations) == 4
    assert int(ks.models.load_model(tmp_path / "epoch-1.keras").optimizer.iterations) == 2


def test_damaged_archive_contents_are_named(tmp_path):
    good = _mlp().save(tmp_path / "good.keras")
    data = bytearray(open(good, "rb").read())
    with zipfile.ZipFile(good) as archive:
        info = archive.getinfo("config.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 5] ^= 0xFF  # one byte of config.json: its CRC no longer matches
    crc = tmp_path / "crc.keras"
    crc.write_bytes(bytes(data))
    with pytest.raises(KerasFileError, match=f"{crc}: the .keras archive is damaged"):
        ks.models.load_model(crc)
    cases = {
        "json.keras": ({"config.json": b"{not json"}, "config.json is not valid JSON"),
        "list.keras": ({"config.json": b"[1, 2]"}, "config.json does not describe a model"),
        "h5.keras": ({"model.weights.h5": b"junk"}, "model.weights.h5 is not a readable HDF5"),
    }
    for name, (replace, message) in cases.items():
        bad = _rewrite(good, tmp_path / name, replace=replace)
        with pytest.raises(KerasFileError, match=message):
            ks.models.load_model(bad)
    optimizer = json.dumps(ks.saving.serialize_keras_object(ks.optimizers.Adam())).encode()
    bad = _rewrite(good, tmp_path / "opt.keras", replace={"config.json": optimizer})
    with pytest.raises(KerasFileError, match="describes a Adam, not a model or layer"):
        ks.models.load_model(bad)


def test_clone_model_input_tensors_must_match_the_inputs():
    a, b = ks.Input((2,)), ks.Input((2,))
    model = ks.Model([a, b], ks.layers.Add()([a, b]))
    with pytest.raises(ks.InvalidArgumentError, match="has 2 inputs but input_tensors has 1"):
        ks.models.clone_model(model, input_tensors=[ks.Input((2,))])


def test_model_with_its_own_compile_restores_it_through_the_compile_config_hooks(tmp_path):
    def halved_mse(y_true, y_pred):
        return 0.5 * ks.reduce_mean(ks.square(y_true - y_pred), -1)

    @ks.saving.register_keras_serializable(package="TestKerasFile")
    class TwoSpeeds(ks.Sequential):
        def compile(self, fast, slow, loss_fn):
            super().compile(optimizer=fast, loss=loss_fn)
            self.slow, self.loss_fn = slow, loss_fn

        def get_compile_config(self):
            return {"fast": ks.saving.serialize_keras_object(self.optimizer),
                    "slow": ks.saving.serialize_keras_object(self.slow),
                    "loss_fn": ks.saving.serialize_keras_object(self.loss_fn)}

        def compile_from_config(self, config):
            self.compile(**ks.saving.deserialize_keras_object(config))

    model = TwoSpeeds([ks.layers.Dense(1, input_shape=(4,))])
    model.compile(ks.optimizers.SGD(0.1), ks.optimizers.Adam(1e-4), halved_mse)
    x, _ = _data(8)
    y = np.zeros((8, 1), np.float32)
    model.fit(x, y, batch_size=4, verbose=0)
    model.save(tmp_path / "two.keras")
    with pytest.raises(SerializationError, match="unknown function"):
        ks.models.load_model(tmp_path / "two.keras")
    loaded = ks.models.load_model(tmp_path / "two.keras",
                                  custom_objects={"halved_mse": halved_mse})
    assert loaded.loss_fn is halved_mse
    assert float(loaded.slow.learning_rate) == pytest.approx(1e-4)
    assert int(loaded.optimizer.iterations) == 2
    assert loaded.evaluate(x, y) == pytest.approx(model.evaluate(x, y))
