"""`ks.config.set_epsilon` reaches every formula that Keras writes with
`backend.epsilon()`: the clipped cross-entropies and Poisson, the percentage and
logarithmic errors, Dice, the metrics' thresholds and divisions, the norm constraints and
Normalization's smallest deviation. Each value below is Keras 3.15.1's with epsilon 1e-2
(run in the interop venv) or its closed form."""

import numpy as np
import pytest

import kerasish as ks


@pytest.fixture(autouse=True)
def _epsilon_1e_2():
    ks.config.set_epsilon(1e-2)
    yield
    ks.config.set_epsilon(1e-7)


def test_losses_read_the_epsilon_at_each_call():
    one, zero = np.array([[1.0]]), np.array([[0.0]])
    log_100 = float(np.log(100.0))  # -log(epsilon): the clipped probability 0 -> 1e-2
    np.testing.assert_allclose(ks.losses.binary_crossentropy(one, zero).numpy(), [log_100])
    np.testing.assert_allclose(
        ks.losses.categorical_crossentropy([[1.0, 0.0]], [[0.0, 1.0]]).numpy(), [log_100])
    np.testing.assert_allclose(ks.losses.poisson(one, zero).numpy(), [log_100])
    np.testing.assert_allclose(ks.losses.kl_divergence(one, zero).numpy(), [log_100])
    np.testing.assert_allclose(ks.losses.mean_absolute_percentage_error(zero, one).numpy(),
                               [10000.0])  # 100 * 1 / max(0, 1e-2)
    np.testing.assert_allclose(  # (log(1 + 0.01) - log(2))**2: -1 is raised to epsilon
        ks.losses.mean_squared_logarithmic_error([[-1.0]], one).numpy(),
        [(np.log1p(0.01) - np.log(2.0)) ** 2])
    dice = ks.losses.Dice()(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]]))
    np.testing.assert_allclose(float(dice), 1.0 - 2.0 / 2.01, rtol=1e-6)
    ks.config.set_epsilon(1e-7)
    np.testing.assert_allclose(ks.losses.binary_crossentropy(one, zero).numpy(),
                               [-np.log(1e-7)], rtol=1e-6)


def test_metrics_constraints_and_normalization_read_it_too():
    f1 = ks.metrics.F1Score(average="micro")
    f1.update_state(np.array([[0.0, 1.0]]), np.array([[0.0, 1.0]]))
    precision = 1.0 / 1.01  # tp / (tp + fp + epsilon)
    np.testing.assert_allclose(float(f1.result()),
                               2 * precision * precision / (2 * precision + 0.01), rtol=1e-6)
    w = ks.Variable(np.array([[3.0], [4.0]]))  # norm 5, max_value 1
    w.assign(ks.constraints.MaxNorm(1.0)(w))
    np.testing.assert_allclose(w.numpy(), [[3.0 / 5.01], [4.0 / 5.01]], rtol=1e-6)
    layer = ks.layers.Normalization(mean=2.0, variance=0.0)  # std 0 -> divided by epsilon
    np.testing.assert_allclose(layer(np.array([[2.5]])).numpy(), [[50.0]], rtol=1e-6)
    np.testing.assert_allclose(ks.ops.normalize(np.array([[0.001, 0.0]])).numpy(),
                               [[0.1, 0.0]], rtol=1e-6)  # x / max(norm, epsilon)
    np.testing.assert_allclose(ks.metrics.AUC(num_thresholds=3).thresholds, [-0.01, 0.5, 1.01],
                               rtol=1e-6)
