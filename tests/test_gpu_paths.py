"""Paths that only a GPU exercises (marked `gpu`: skipped without CuPy and a GPU).

Each was found by running the suite with KERASISH_DEVICE=gpu on a GPU machine: the CPU
suite cannot see a tensor left on the host or an index that CuPy wraps silently.
"""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import backend

pytestmark = pytest.mark.gpu


def test_functional_models_build_and_run_on_the_gpu_with_python_scalars():
    with ks.device("/gpu:0"):
        inputs = ks.Input((3,))
        outputs = ks.layers.Dense(2)(inputs * 2.0 + 1.0)  # scalars are cached on the host
        model = ks.Model(inputs, outputs)
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        got = model(x)
        assert backend.is_gpu_array(got._value)
        kernel, bias = (backend.to_numpy(v.numpy()) for v in model.layers[-1].weights)
        np.testing.assert_allclose(got.numpy(), (x * 2.0 + 1.0) @ kernel + bias, rtol=1e-6)
        model.compile("sgd", "mse")
        assert np.isfinite(model.fit(x, np.zeros((2, 2), np.float32), verbose=0)
                           .history["loss"][0])


def test_symbolic_op_errors_name_the_shapes_not_a_device_mismatch_on_the_gpu():
    with ks.device("/gpu:0"):
        with pytest.raises(ks.InvalidArgumentError, match=r"matmul: .*\(None, 3\)"):
            ks.Input((3,)) @ ks.ones([4, 2])


def test_compiled_functions_place_numpy_arguments_on_the_current_device():
    @ks.function
    def double(x):
        return x * 2.0

    with ks.device("/gpu:0"):
        double(ks.ones((2,)))
        got = double(np.ones((2,), np.float32))  # placed as eager code places it: replays
        assert backend.is_gpu_array(got._value) and double.trace_count == 1


def test_replayed_gathers_check_indices_on_the_gpu():
    with ks.device("/gpu:0"):
        params = ks.constant([[1.0], [2.0]])
        pick = ks.function(lambda i: ks.gather(params, i))
        pick(ks.constant([1]))
        pick(ks.constant([0]))
        with pytest.raises(ks.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 2\)"):
            pick(ks.constant([5]))  # CuPy's take would wrap it to row 1


def test_shuffle_on_the_gpu_permutes_and_repeats_with_a_seed():
    with ks.device("/gpu:0"):
        x = ks.range(10)
        ks.random.set_seed(3)
        a = ks.random.shuffle(x, seed=3).numpy()
        ks.random.set_seed(3)
        b = ks.random.shuffle(x, seed=3).numpy()
    assert sorted(a.tolist()) == list(range(10))
    np.testing.assert_array_equal(a, b)


def test_word2vec_recipe_trains_on_the_gpu(tmp_path):
    from kerasish.recipes import word2vec  # installed with the package, from any directory

    words = ("cat dog horse the red blue green the " * 300).split()
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(" ".join(words))
    runs = (("neg", ["--epochs", "1"]), ("nce", ["--steps", "20", "--num-sampled", "3"]))
    for loss, extra in runs:
        result = word2vec.main(["--loss", loss, "--corpus", str(corpus), "--min-count", "1",
                                "--dim", "8", "--batch-size", "64", "--quiet", "--device", "gpu",
                                "--logdir", str(tmp_path / loss), *extra])
        assert np.isfinite(result["loss"])


def test_fit_keeps_arrays_that_fit_on_the_gpu_and_shuffles_them_there():
    from kerasish.models import data_adapter

    x, y = np.arange(20, dtype=np.float32).reshape(10, 2), np.arange(10)

    def epoch():
        ks.random.set_seed(3)
        batches = data_adapter.ArrayBatches(x, y, batch_size=4, shuffle=True)
        return batches, [(bx.numpy(), by.numpy()) for bx, by, _ in batches]

    with ks.device("/gpu:0"):
        on_gpu, got = epoch()
    assert backend.is_gpu_array(on_gpu.x) and backend.is_gpu_array(on_gpu.y)
    with ks.device("/cpu:0"):
        on_host, want = epoch()
    assert isinstance(on_host.x, np.ndarray)
    assert all(np.array_equal(a, c) and np.array_equal(b, d) for (a, b), (c, d) in zip(got, want))


@pytest.mark.parametrize("shape, axis", [((64, 8, 8, 16), (0, 1, 2)), ((300, 7), 0),
                                         ((5, 4, 3), (0, 1))])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sums_over_leading_axes_on_the_gpu_equal_numpys(shape, axis, dtype):
    """Sums over leading axes (BatchNormalization's statistics, bias gradients) run as a
    product with a row of ones on the GPU; values, keepdims and gradients are NumPy's."""
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    want = x.astype(np.float64).sum(axis=axis)
    rtol = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    with ks.device("/gpu:0"):
        gx = ks.constant(x)
        with ks.GradientTape() as tape:
            tape.watch(gx)
            total = ks.reduce_sum(gx, axis)
            kept = ks.reduce_sum(gx, axis, keepdims=True)
            loss = ks.reduce_sum(total * total) + ks.reduce_sum(kept)
        grad = tape.gradient(loss, gx)
        compiled = ks.function(lambda t: ks.reduce_mean(t, axis))(gx)
    assert total.dtype == dtype and backend.is_gpu_array(total._value)
    np.testing.assert_allclose(total.numpy(), want, rtol=rtol, atol=rtol * 10)
    assert kept.shape == np.sum(x, axis=axis, keepdims=True).shape
    np.testing.assert_allclose(grad.numpy(), np.broadcast_to(2 * want + 1, x.shape),
                               rtol=rtol, atol=rtol * 10)  # (the kept axes are the last)
    np.testing.assert_allclose(compiled.numpy(), x.astype(np.float64).mean(axis=axis),
                               rtol=rtol, atol=rtol * 10)


def test_a_functional_conv_built_on_the_gpu_runs_its_tap_products_there():
    """A functional model chooses its convolution's algorithm from the symbolic input's
    shape; a stride-1 Conv1D of 16+ channels records the per-tap products, which then run
    on CuPy arrays (values and gradients equal to the same model's on the CPU)."""
    x = np.random.default_rng(0).standard_normal((4, 50, 16)).astype(np.float32)

    def conv_model():
        inputs = ks.Input((50, 16))
        return ks.Model(inputs, ks.layers.Conv1D(8, 5, padding="same")(inputs))

    def run(model, data):
        with ks.GradientTape() as tape:
            out = model(data)
            loss = ks.reduce_sum(out * out)
        return out, tape.gradient(loss, model.trainable_variables)

    cpu = conv_model()
    want, want_grads = run(cpu, x)
    with ks.device("/gpu:0"):
        gpu = conv_model()
        gpu.set_weights(cpu.get_weights())
        got, grads = run(gpu, ks.constant(x))
    assert backend.is_gpu_array(got._value)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4, atol=1e-3)
