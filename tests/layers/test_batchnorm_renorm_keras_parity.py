"""BatchNormalization's Keras 3 parameters: renorm (training steps and weights as Keras's),
gamma/beta regularizers and constraints, synchronized=True refused as Keras's non-TF
backends refuse it; compared with Keras where it is installed."""

import numpy as np
import pytest

import kerasish as ks

RNG = np.random.default_rng(11)
BATCHES = [RNG.standard_normal((8, 3)).astype("float32") * 2 + 1 for _ in range(3)]


def _run(library, **kwargs):
    layer = library.layers.BatchNormalization(**kwargs)
    outputs = [np.asarray(layer(x, training=True)) for x in BATCHES]
    outputs.append(np.asarray(layer(BATCHES[0], training=False)))
    return layer, outputs


@pytest.mark.parametrize("kwargs", [
    {"renorm": True, "momentum": 0.5, "renorm_momentum": 0.7},
    {"renorm": True, "renorm_clipping": {"rmax": 1.2, "rmin": 0.9, "dmax": 0.1},
     "momentum": 0.6, "renorm_momentum": 0.3, "center": False},
])
def test_renorm_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    theirs, expected = _run(keras, **kwargs)
    ours, got = _run(ks, **kwargs)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert [w.path.split("/")[-1] for w in theirs.weights] == [
        w.name.split("/")[-1] for w in ours.weights]
    for a, b in zip(ours.weights, theirs.weights):
        np.testing.assert_allclose(a.numpy(), np.asarray(b), rtol=1e-5, atol=1e-6)
    config = ks.saving.serialize_keras_object(ours)["config"]
    for key in ("renorm", "renorm_clipping", "renorm_momentum", "synchronized"):
        assert config[key] == theirs.get_config()[key]


def test_renorm_training_gradient_holds_r_and_d_constant():
    # momenta of 1 leave the statistics as they are, so each call sees the same state. As in
    # Keras, r and d are constants for the gradient (the batch moments are not): the layer's
    # gradient is that of batch normalization times fixed r, plus fixed d, which itself
    # matches finite differences
    eps = 1e-3
    layer = ks.layers.BatchNormalization(renorm=True, momentum=1.0, renorm_momentum=1.0,
                                         renorm_clipping={"rmax": 1.5}, dtype="float64")
    x = BATCHES[1].astype("float64")
    layer.build(x.shape)
    layer.renorm_mean.assign(np.array([0.5, 1.0, 1.5]))
    layer.renorm_stddev.assign(np.array([1.5, 2.0, 2.5]))
    stddev = np.sqrt(x.var(0) + eps)
    r = np.minimum(stddev / layer.renorm_stddev.numpy(), 1.5)
    d = (x.mean(0) - layer.renorm_mean.numpy()) / layer.renorm_stddev.numpy()

    def fixed(v):
        mean = ks.reduce_mean(v, 0)
        variance = ks.reduce_mean(ks.square(v - mean), 0)
        return (v - mean) / ks.sqrt(variance + eps) * r + d

    ks.testing.check_gradients(fixed, [x], order=1)
    weights = RNG.standard_normal(x.shape)
    grads = []
    for fn in (lambda v: layer(v, training=True), fixed):
        v = ks.constant(x)
        with ks.GradientTape() as tape:
            tape.watch(v)
            out = ks.reduce_sum(fn(v) * weights)
        grads.append(tape.gradient(out, v).numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


def test_gamma_beta_regularizers_and_constraints():
    layer = ks.layers.BatchNormalization(gamma_regularizer=ks.regularizers.L2(0.5),
                                         beta_regularizer="l1",
                                         gamma_constraint=ks.constraints.NonNeg())
    layer(BATCHES[0])
    assert len(layer.losses) == 2
    assert layer.gamma.constraint is not None and layer.beta.constraint is None
    clone = ks.layers.BatchNormalization.from_config(layer.get_config())
    clone(BATCHES[0])
    assert len(clone.losses) == 2


def test_synchronized_and_bad_clipping_are_refused():
    with pytest.raises(ValueError, match="synchronized=True .* only supported by Keras's "
                                         "TensorFlow backend"):
        ks.layers.BatchNormalization(synchronized=True)
    with pytest.raises(ValueError, match=r"unknown keys \['rmid'\]"):
        ks.layers.BatchNormalization(renorm=True, renorm_clipping={"rmid": 1})
    with pytest.raises(ValueError, match="rmax >= rmin"):
        ks.layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 1, "rmin": 2})
    with pytest.raises(ValueError, match="dmax >= 0"):
        ks.layers.BatchNormalization(renorm=True, renorm_clipping={"dmax": -1})
