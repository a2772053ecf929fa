"""fit/evaluate numbers against Keras 3 from the same weights (skipped without Keras).

Run with the Keras 3 + tensorflow-cpu environment:
`/tmp/kvenv/bin/python -m pytest tests/models/test_keras_parity_fit.py`.
"""

import numpy as np
import pytest

import kerasish as ks

keras = pytest.importorskip("keras")


def _data(n=64):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = {"score": rng.standard_normal((n, 1)).astype(np.float32),
         "label": rng.integers(0, 3, n)}
    weights = rng.uniform(0.0, 2.0, n).astype(np.float32)
    return x, y, weights


def _initial_weights():
    rng = np.random.default_rng(1)
    shapes = {"hidden": (4, 8), "score": (8, 1), "label": (8, 3)}
    return {name: [rng.standard_normal(shape).astype(np.float32) * 0.5,
                   rng.standard_normal(shape[1]).astype(np.float32) * 0.1]
            for name, shape in shapes.items()}


def _keras_model(weights):
    inputs = keras.Input((4,))
    hidden_layer = keras.layers.Dense(8, activation="tanh")
    score_layer, label_layer = keras.layers.Dense(1), keras.layers.Dense(3)
    hidden = hidden_layer(inputs)
    model = keras.Model(inputs, {"score": score_layer(hidden), "label": label_layer(hidden)})
    for layer, name in ((hidden_layer, "hidden"), (score_layer, "score"), (label_layer, "label")):
        layer.set_weights(weights[name])
    return model


class _TwoHeads(ks.Model):
    def __init__(self, weights):
        super().__init__()
        self.hidden = ks.layers.Dense(8, activation="tanh")
        self.score = ks.layers.Dense(1)
        self.label = ks.layers.Dense(3)
        for name in ("hidden", "score", "label"):
            getattr(self, name).build((None, weights[name][0].shape[0]))
            getattr(self, name).set_weights(weights[name])

    def call(self, inputs):
        h = self.hidden(inputs)
        return {"score": self.score(h), "label": self.label(h)}


def _compile(module, model):
    model.compile(
        optimizer=module.optimizers.SGD(learning_rate=0.05),
        loss={"score": "mse",
              "label": module.losses.SparseCategoricalCrossentropy(from_logits=True)},
        loss_weights={"score": 0.5, "label": 2.0},
        metrics={"score": ["mae"], "label": ["accuracy"]},
        weighted_metrics={"score": ["mse"]},
    )


def test_multi_output_fit_and_evaluate_match_keras():
    x, y, sample_weight = _data()
    weights = _initial_weights()
    ours, theirs = _TwoHeads(weights), _keras_model(weights)
    _compile(ks, ours)
    _compile(keras, theirs)
    kwargs = dict(batch_size=16, epochs=3, shuffle=False, verbose=0, sample_weight=sample_weight)
    got = ours.fit(x, y, **kwargs).history
    want = theirs.fit(x, y, **kwargs).history
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6, err_msg=key)
    got = ours.evaluate(x, y, batch_size=16, return_dict=True)
    want = theirs.evaluate(x, y, batch_size=16, return_dict=True, verbose=0)
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6, err_msg=key)
    got = ours.predict(x, batch_size=16)
    want = theirs.predict(x, batch_size=16, verbose=0)
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6)
