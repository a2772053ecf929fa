"""ks.function replays the ops whose index arrays depend on tensor values (candidate sampling,
accidental hits, the sampled losses' rows and log Q) instead of falling back to eager: a
compiled step gives exactly the eager step's results, call after call, with fresh draws."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kerasish as ks


def _trainer(loss_fn):
    """A fresh (variables, step): one SGD step on `loss_fn(weights, biases, labels, inputs)`."""
    rng = np.random.default_rng(0)
    weights = ks.Variable(rng.normal(size=(30, 4)).astype(np.float32))
    biases = ks.Variable(rng.normal(size=30).astype(np.float32))
    optimizer = ks.optimizers.SGD(0.5)

    def step(labels, inputs):
        with ks.GradientTape() as tape:
            loss = ks.reduce_mean(loss_fn(weights, biases, labels, inputs))
        grads = tape.gradient(loss, [weights, biases])
        optimizer.apply_gradients(zip(grads, [weights, biases]))
        return loss

    return (weights, biases), step


def _batches(num_true):
    rng = np.random.default_rng(1)
    for _ in range(5):
        yield (ks.constant(rng.integers(0, 30, (6, num_true)).astype(np.int64)),
               ks.constant(rng.normal(size=(6, 4)).astype(np.float32)))


LOSSES = {
    "nce": lambda w, b, y, x: ks.nn.nce_loss(w, b, y, x, num_sampled=5, num_classes=30),
    "nce, 2 labels, hits kept": lambda w, b, y, x: ks.nn.nce_loss(
        w, b, y, x, num_sampled=5, num_classes=30, num_true=2, remove_accidental_hits=False),
    "sampled softmax": lambda w, b, y, x: ks.nn.sampled_softmax_loss(
        w, b, y, x, num_sampled=5, num_classes=30),
    "sampled softmax, 2 labels": lambda w, b, y, x: ks.nn.sampled_softmax_loss(
        w, b, y, x, num_sampled=5, num_classes=30, num_true=2),
}


@pytest.mark.cpu  # on a GPU, rows a batch repeats are summed by atomic adds in no fixed order
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_sampled_loss_steps_replay_exactly(name):
    num_true = 2 if "2 labels" in name else 1
    results = []
    for compiled in (False, True):
        ks.random.set_seed(3)
        variables, step = _trainer(LOSSES[name])
        if compiled:
            step = ks.function(step)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fall-back to eager
            losses = [float(step(y, x)) for y, x in _batches(num_true)]
        results.append((losses, [v.numpy() for v in variables]))
    (eager_losses, eager_vars), (compiled_losses, compiled_vars) = results
    assert compiled_losses == eager_losses
    assert len(set(compiled_losses)) == len(compiled_losses)  # fresh draws on every call
    for ours, theirs in zip(compiled_vars, eager_vars):
        np.testing.assert_array_equal(ours, theirs)
    assert step.trace_count == 1


@pytest.mark.parametrize("unique", [True, False])
def test_compiled_candidate_sampler_draws_as_eager(unique):
    def sample(labels):
        sampled, true_count, sampled_count = ks.random.log_uniform_candidate_sampler(
            labels, 1, 6, unique=unique, range_max=20)
        return sampled, true_count, sampled_count, ks.nn.compute_accidental_hits(labels, sampled)

    compiled = ks.function(sample)
    labels = [ks.constant(np.array([[i], [2 * i]], np.int64)) for i in range(4)]
    runs = []
    for fn in (sample, compiled):
        ks.random.set_seed(9)
        runs.append([[t.numpy() for t in fn(y)] for y in labels])
    for eager_outputs, compiled_outputs in zip(*runs):
        for a, b in zip(eager_outputs, compiled_outputs):
            np.testing.assert_array_equal(a, b)
    assert compiled.trace_count == 1


INDEX_OPS = {  # name: (function, argument batches)
    "boolean_mask": (lambda x: ks.boolean_mask(x, x > 0), [  # (2 selected: the same shapes)
        [[1.0, -1.0], [2.0, -3.0]], [[-1.0, 1.0], [2.0, -3.0]], [[-1.0, -2.0], [3.0, 4.0]]]),
    "gather with batch_dims": (
        lambda x, i: ks.gather(x, i, axis=1, batch_dims=1),
        [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[2, 0], [1, 1]]),
         ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[0, 0], [2, 1]])]),
    "gather_nd": (lambda x, i: ks.gather_nd(x, i),
                  [([[1.0, 2.0], [3.0, 4.0]], [[1, 0], [0, 1]]),
                   ([[1.0, 2.0], [3.0, 4.0]], [[0, 0], [1, 1]])]),
    "gather_nd with batch_dims": (
        lambda x, i: ks.gather_nd(x, i, batch_dims=1),
        [([[1.0, 2.0], [3.0, 4.0]], [[1], [0]]), ([[1.0, 2.0], [3.0, 4.0]], [[0], [0]])]),
}


@pytest.mark.parametrize("name", sorted(INDEX_OPS))
def test_index_ops_replay_values_and_gradients(name):
    """Outputs and gradients of the compiled op follow each call's indices, with one trace."""
    fn, batches = INDEX_OPS[name]

    def value_and_grad(x, *rest):
        with ks.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, *rest)
            loss = ks.reduce_sum(y * y)
        return y, tape.gradient(loss, x)

    compiled = ks.function(value_and_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fall-back to eager
        for args in batches * 2:
            args = args if isinstance(args, tuple) else (args,)
            tensors = [ks.constant(np.array(a, np.float64 if i == 0 else np.int64))
                       for i, a in enumerate(args)]
            for ours, theirs in zip(compiled(*tensors), value_and_grad(*tensors)):
                np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert compiled.trace_count == 1


def test_boolean_mask_replays_on_selections_of_any_size():
    """Where nothing after it depends on the number selected, one program serves every mask."""
    def positives(x):
        return ks.boolean_mask(x, x > 0) * 2.0

    compiled = ks.function(positives)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for values in ([1.0, -1.0, 2.0], [-1.0, 3.0, 4.0], [-5.0, -6.0, 7.0], [-1.0, -2.0, -8.0]):
            x = ks.constant(values)
            np.testing.assert_array_equal(compiled(x).numpy(), positives(x).numpy())
    assert compiled.trace_count == 1


def test_gather_nd_checks_the_indices_of_every_compiled_call():
    compiled = ks.function(lambda x, i: ks.gather_nd(x, i))
    x = ks.constant([[1.0, 2.0], [3.0, 4.0]])
    compiled(x, ks.constant([[1, 0]]))
    compiled(x, ks.constant([[0, 1]]))
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"gather_nd: indices\[0\] = \[2, 0\] does not index into params of "
                             r"shape \(2, 2\)"):
        compiled(x, ks.constant([[2, 0]]))


@pytest.mark.parametrize("metric_class", [ks.metrics.Precision, ks.metrics.Recall])
def test_confusion_metrics_with_top_k_replay(metric_class):
    rng = np.random.default_rng(2)
    batches = [(ks.constant((rng.random((8, 5)) > 0.6).astype(np.float32)),
                ks.constant(rng.random((8, 5)).astype(np.float32))) for _ in range(4)]
    eager, compiled = metric_class(top_k=2), metric_class(top_k=2)
    update = ks.function(compiled.update_state)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fall-back to eager
        for y_true, y_pred in batches:
            eager.update_state(y_true, y_pred)
            update(y_true, y_pred)
            assert float(compiled.result()) == float(eager.result())
    assert update.trace_count == 1
