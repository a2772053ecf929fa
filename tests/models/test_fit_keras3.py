"""fit/evaluate/predict as Keras 3: validation_steps, validation_freq, steps, batch_size
ignored for batched data, tf.data and PyTorch DataLoader inputs, compile's order."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks


def _model():
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(1, kernel_initializer="ones")])
    model.compile("sgd", "mse", metrics=["mae"])
    return model


def _data(n=20):
    x = np.arange(n * 3, dtype="float32").reshape(n, 3) / (3 * n)
    return x, x.sum(axis=1, keepdims=True)




def _counted(batches):
    """A re-iterable of batches that records how many were drawn."""
    class Source:
        drawn = 0

        def __iter__(self):
            for batch in batches:
                Source.drawn += 1
                yield batch
    return Source()


def test_validation_steps_limits_each_validation():
    x, y = _data()
    validation = _counted([(x[i:i + 2], y[i:i + 2]) for i in range(0, 20, 2)])
    _model().fit(x, y, epochs=2, verbose=0, validation_data=validation, validation_steps=3)
    assert validation.drawn == 6


def test_validation_freq_int_and_list_as_keras():
    x, y = _data()
    history = _model().fit(x, y, epochs=4, verbose=0, validation_data=(x, y),
                           validation_freq=[1, 4])
    assert len(history.history["val_loss"]) == 2
    history = _model().fit(x, y, epochs=4, verbose=0, validation_data=(x, y), validation_freq=2)
    assert len(history.history["val_loss"]) == 2
    for bad, message in ((0, "validation_freq must be a positive integer"),
                         ([0, 2], "positive integers"),
                         (1.5, "validation_freq must be an int or a list of epochs")):
        with pytest.raises(ks.InvalidArgumentError, match=message):
            _model().fit(x, y, verbose=0, validation_data=(x, y), validation_freq=bad)


def test_fit_positional_order_is_keras_3s():
    x, y = _data()
    # x, y, batch_size, epochs, verbose, callbacks, validation_split, validation_data,
    # shuffle, class_weight, sample_weight, initial_epoch, steps_per_epoch, validation_steps
    history = _model().fit(x, y, 4, 2, 0, None, 0.0, (x, y), False, None, None, 0, 2, 1)
    assert len(history.history["loss"]) == 2 and "val_loss" in history.history


def test_evaluate_and_predict_steps_and_verbose_auto():
    x, y = _data()
    model = _model()
    full = model.evaluate(x, y, batch_size=5, return_dict=True)
    first = model.evaluate(x[:5], y[:5], return_dict=True)
    assert model.evaluate(x, y, batch_size=5, steps=1, return_dict=True) == first
    assert model.evaluate(x, y, batch_size=5, verbose="auto", return_dict=True) == full
    assert model.predict(x, batch_size=4, steps=2, verbose="auto").shape == (8, 1)
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        model.evaluate(x, y, bogus=1)


def test_batched_inputs_ignore_batch_size():
    x, y = _data()
    generator = ((x[i:i + 5], y[i:i + 5]) for i in range(0, 20, 5))
    model = _model()
    model.fit(generator, batch_size=2, verbose=0)
    assert model.predict(ks.data.Dataset.from_tensor_slices(x).batch(7),
                         batch_size=3).shape == (20, 1)


def test_compile_positional_order_is_keras_3s():
    model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
    model.compile("sgd", "mse", None, ["mae"])
    assert model.get_compile_config()["metrics"] == ["mae"]
    assert model.get_compile_config()["loss_weights"] is None
    with pytest.raises(TypeError, match="the third argument is loss_weights in Keras 3"):
        model.compile("sgd", "mse", ["mae"])


def test_a_pytorch_dataloader_is_taken_as_batches():
    torch = pytest.importorskip("torch")
    x, y = _data()
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=4)
    model = _model()
    history = model.fit(loader, epochs=2, verbose=0, validation_data=loader)
    assert len(history.history["val_loss"]) == 2
    expected = model.evaluate(x, y, batch_size=4, return_dict=True)
    got = model.evaluate(loader, return_dict=True)
    assert got == pytest.approx(expected, rel=1e-6)
    features = torch.utils.data.DataLoader(torch.from_numpy(x), batch_size=6)
    np.testing.assert_allclose(model.predict(features), model.predict(x), rtol=1e-6)


def test_a_tf_data_dataset_is_taken_as_batches():
    tf = pytest.importorskip("tensorflow")
    x, y = _data()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    model = _model()
    history = model.fit(dataset, epochs=2, verbose=0, validation_data=dataset,
                        validation_steps=2)
    assert len(history.history["loss"]) == 2
    got = model.evaluate(dataset, return_dict=True)
    assert got == pytest.approx(model.evaluate(x, y, batch_size=4, return_dict=True), rel=1e-6)
    np.testing.assert_allclose(model.predict(tf.data.Dataset.from_tensor_slices(x).batch(3)),
                               model.predict(x), rtol=1e-6)
    texts = tf.data.Dataset.from_tensor_slices(["a b", "b"]).batch(2)
    vectorize = ks.layers.TextVectorization()
    vectorize.adapt(["a b"])
    inputs = ks.Input((), dtype="string")
    reader = ks.Model(inputs, vectorize(inputs))
    assert reader.predict(texts).tolist() == reader.predict(np.array(["a b", "b"])).tolist()
    infinite = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat()
    model.fit(infinite, steps_per_epoch=3, epochs=1, verbose=0)


# -- summary as Keras 3 ----------------------------------------------------------------------
def _nested_model():
    inner = ks.Sequential([ks.Input((4,)), ks.layers.Dense(3, name="inner_dense"),
                           ks.layers.Dropout(0.1)], name="inner")
    inner.trainable = False
    a, b = ks.Input((4,), name="a"), ks.Input((4,), name="b")
    summed = ks.layers.Add(name="sum")([a, b])
    out = ks.layers.Dense(1, name="head_with_a_long_name_that_goes_on")(inner(summed))
    return ks.Model([a, b], out, name="outer")


def _lines(model, **kwargs):
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return lines


def test_summary_expand_nested_and_show_trainable():
    lines = _lines(_nested_model(), expand_nested=True, show_trainable=True)
    header = next(line for line in lines if line.startswith("Layer (type)"))
    assert header.split("  ")[0] == "Layer (type)" and header.endswith("Trainable")
    assert "Connected to" in header
    rows = {line.split()[0] if not line.startswith(" ") else line.split()[1]: line
            for line in lines if "(" in line and not line.startswith(("Layer", "Model"))}
    assert rows["inner"].endswith("N") and rows["head_with_a_long_name_that_goes_on"].endswith(
        "Y") and rows["sum"].endswith("-")
    assert rows["inner_dense"].startswith("   └ inner_dense (Dense)")
    assert "sum[0][0]" in rows["inner"]
    plain = _lines(_nested_model())
    assert not any("inner_dense" in line for line in plain)


def test_summary_layer_range_line_length_and_positions():
    model = _nested_model()
    lines = _lines(model, layer_range=["sum", "inn"], line_length=60)
    names = [line.split()[0] for line in lines[4:-5]]
    assert names == ["sum", "inner"]
    assert len(lines[1]) >= 60
    lines = _lines(model.layers[3], positions=[0.5, 0.9, 1.0], line_length=80)
    header = lines[2]
    assert header.index("Output Shape") == 40 and header.index("Param #") == 72
    with pytest.raises(ValueError, match="layer_range must be two strings"):
        model.summary(layer_range=["sum"])
    with pytest.raises(ValueError, match="matches no layer names"):
        model.summary(layer_range=["nothing", "sum"])
    with pytest.raises(ValueError, match="positions needs one end per column"):
        model.summary(positions=[0.5, 1.0])


def test_summary_long_names_never_run_together():
    model = _nested_model()
    for line in _lines(model, line_length=20):
        if line.startswith("head_with"):
            assert line.split()[:2] == ["head_with_a_long_name_that_goes_on", "(Dense)"]
            assert "(Dense)  " in line
