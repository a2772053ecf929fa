"""fit/evaluate numbers against Keras 3 from the same weights (skipped without Keras).

Run with a Python that has Keras 3 and tensorflow-cpu installed:
`python -m pytest tests/models/test_keras_parity_fit.py`.
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


def _functional(module, weights, as_dict=True):
    """The same two-output network in Keras's or kerasish's functional API."""
    inputs = module.Input((4,))
    hidden_layer = module.layers.Dense(8, activation="tanh", name="hidden")
    score_layer = module.layers.Dense(1, name="score")
    label_layer = module.layers.Dense(3, name="label")
    hidden = hidden_layer(inputs)
    score, label = score_layer(hidden), label_layer(hidden)
    model = module.Model(inputs, {"score": score, "label": label} if as_dict else [score, label])
    for layer in (hidden_layer, score_layer, label_layer):
        layer.set_weights(weights[layer.name])
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


@pytest.mark.parametrize("ours", ["subclassed", "functional_dict", "functional_list"])
def test_multi_output_fit_and_evaluate_match_keras(ours):
    x, y, sample_weight = _data()
    weights = _initial_weights()
    as_dict = ours != "functional_list"
    theirs = _functional(keras, weights, as_dict)
    ours = (_TwoHeads(weights) if ours == "subclassed"
            else _functional(ks, weights, as_dict))
    _compile(ks, ours)
    _compile(keras, theirs)
    if not as_dict:  # Keras 3.15 fails on dict targets with sample weights for list outputs
        y = [y["score"], y["label"]]
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
    np.testing.assert_allclose(ours.evaluate(x, y, batch_size=16),  # the list, in Keras's order
                               theirs.evaluate(x, y, batch_size=16, verbose=0), rtol=2e-5)
    got = ours.predict(x, batch_size=16)
    want = theirs.predict(x, batch_size=16, verbose=0)
    assert type(got) is type(want) and len(got) == len(want)
    for key in (want if as_dict else range(len(want))):
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6)


def test_single_output_fit_with_class_weight_and_validation_matches_keras():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((80, 5)).astype(np.float32)
    y = rng.integers(0, 3, 80)
    kernel = rng.standard_normal((5, 3)).astype(np.float32) * 0.3
    bias = np.zeros(3, np.float32)

    def run(module):
        model = module.Sequential([module.Input((5,)), module.layers.Dense(3)])
        model.layers[-1].set_weights([kernel, bias])
        model.compile(optimizer=module.optimizers.SGD(learning_rate=0.1),
                      loss=module.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"], weighted_metrics=["accuracy"])
        history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                            validation_split=0.25, class_weight={0: 1.0, 1: 2.0, 2: 0.5})
        return history.history

    got, want = run(ks), run(keras)
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6, err_msg=key)
