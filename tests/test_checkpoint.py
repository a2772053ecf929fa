"""Object-based checkpoints: round trips, deferred restoration, status, errors, manager, crashes."""

import fnmatch
import gc
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish import checkpoint as ckpt_module
from kerasish.checkpoint import CheckpointError
from kerasish.core import global_step as global_step_module

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- helpers


class MLP(ks.Model):
    def __init__(self, hidden=5, out=2):
        super().__init__()
        self.d1 = ks.layers.Dense(hidden, activation="tanh")
        self.d2 = ks.layers.Dense(out)

    def call(self, x):
        return self.d2(self.d1(x))


class Reversed(ks.Model):
    """MLP's structure, with the layers created in the other order (and other global names)."""

    def __init__(self, hidden=5, out=2):
        super().__init__()
        ks.layers.Dense(3)  # shifts the global layer-name counter
        self.d2 = ks.layers.Dense(out)
        self.d1 = ks.layers.Dense(hidden, activation="tanh")

    def call(self, x):
        return self.d2(self.d1(x))


class Nested(ks.Model):
    """A model holding a model, a list of layers and a dict of layers."""

    def __init__(self):
        super().__init__()
        self.encoder = MLP(4, 3)
        self.blocks = [ks.layers.Dense(3), ks.layers.Dense(3)]
        self.heads = {"mean": ks.layers.Dense(1), "scale": ks.layers.Dense(1)}
        self.norm = ks.layers.BatchNormalization()

    def call(self, x, training=None):
        h = self.encoder(x)
        for block in self.blocks:
            h = block(h)
        h = self.norm(h, training=training)
        return self.heads["mean"](h) + self.heads["scale"](h)


def data(n=16, features=3, outputs=2, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features)).astype(np.float32)
    y = rng.normal(size=(n, outputs)).astype(np.float32)
    return ks.constant(x), ks.constant(y)


def train(model, optimizer, steps, seed=0, global_step=None):
    for i in range(steps):
        x, y = data(seed=seed + i, outputs=2)
        with ks.GradientTape() as tape:
            loss = ks.reduce_mean(ks.square(model(x, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True),
                                  global_step=global_step)


def weights(model):
    return [v.numpy() for v in model.variables]


def slots(optimizer, model):
    return {
        (i, name): optimizer.get_slot(var, name).numpy()
        for i, var in enumerate(model.trainable_variables)
        for name in optimizer.get_slot_names()
    }


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


OPTIMIZERS = {
    "sgd": lambda: ks.optimizers.SGD(0.1),
    "sgd_momentum": lambda: ks.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: ks.optimizers.Adam(0.01, amsgrad=True),
    "adam_schedule": lambda: ks.optimizers.Adam(
        ks.optimizers.schedules.ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5)
    ),
    "rmsprop": lambda: ks.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: ks.optimizers.Adagrad(0.1),
}


@pytest.fixture
def fresh_global_step(monkeypatch):
    """Make ks.get_or_create_global_step() start over, as in a new process."""
    monkeypatch.setattr(global_step_module, "_global_step", None)


# ---------------------------------------------------------------- the seeds' examples


def test_seed_example_variable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = ks.Variable(10.)
    checkpoint = ks.Checkpoint(x=x)  # save as "x"
    x.assign(2.)
    save_path = checkpoint.save('./ckpt/')
    x.assign(11.)
    checkpoint.restore(save_path)
    assert float(x) == 2.0
    assert "2.0" in repr(x)
    assert os.path.isfile(save_path) and os.path.dirname(save_path) == "./ckpt"
    assert ks.latest_checkpoint("./ckpt") == os.path.join("./ckpt", os.path.basename(save_path))


def test_seed_example_model_optimizer_global_step(tmp_path, fresh_global_step, monkeypatch):
    model = MLP()
    optimizer = ks.optimizers.Adam(learning_rate=0.001)
    checkpoint_dir = str(tmp_path / "model_dir")
    checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
    root = ks.Checkpoint(optimizer=optimizer, model=model,
                         optimizer_step=ks.get_or_create_global_step())
    train(model, optimizer, 3, global_step=ks.get_or_create_global_step())
    path = root.save(file_prefix=checkpoint_prefix)
    assert int(ks.get_or_create_global_step()) == 3

    # a new "process": new objects, a new global step
    monkeypatch.setattr(global_step_module, "_global_step", None)
    model2, optimizer2 = MLP(), ks.optimizers.Adam(learning_rate=0.001)
    root2 = ks.Checkpoint(optimizer=optimizer2, model=model2,
                          optimizer_step=ks.get_or_create_global_step())
    assert ks.latest_checkpoint(checkpoint_dir) == path
    status = root2.restore(ks.latest_checkpoint(checkpoint_dir))
    assert int(ks.get_or_create_global_step()) == 3
    assert int(optimizer2.iterations) == 3
    x, _ = data()
    np.testing.assert_array_equal(model2(x).numpy(), model(x).numpy())
    train(model2, optimizer2, 1)  # creates the slots: restored on creation
    status.assert_consumed()


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("value", [
    np.float32(3.5), np.arange(12, dtype=np.float32).reshape(3, 4), np.arange(5, dtype=np.int64),
    np.array([[1.5, -2.0]], dtype=np.float64), np.array([True, False]),
])
def test_variable_round_trip(tmp_path, value):
    v = ks.Variable(value)
    path = ks.Checkpoint(v=v).write(tmp_path / "v.h5")
    w = ks.Variable(np.zeros_like(value))
    ks.Checkpoint(v=w).read(path).assert_consumed()
    np.testing.assert_array_equal(w.numpy(), value)
    assert w.dtype == np.asarray(value).dtype


def test_layer_round_trip(tmp_path):
    layer = ks.layers.Dense(4)
    layer(ks.ones([2, 3]))
    path = ks.Checkpoint(layer=layer).write(tmp_path / "l.h5")
    other = ks.layers.Dense(4)
    other(ks.ones([2, 3]))
    ks.Checkpoint(layer=other).read(path).assert_consumed()
    assert_same(weights(other), weights(layer))
    with h5py.File(path) as f:
        assert set(f["values/layer"]) == {"kernel", "bias"}


def test_nested_model_with_lists_and_dicts_round_trip(tmp_path):
    model = Nested()
    x, _ = data()
    model(x, training=True)  # BatchNormalization's moving statistics change
    path = ks.Checkpoint(model=model).write(tmp_path / "n.h5")
    with h5py.File(path) as f:
        names = []
        f["values"].visititems(
            lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    assert "model/encoder/d1/kernel" in names
    assert "model/blocks/1/bias" in names
    assert "model/heads/scale/kernel" in names
    assert any(n.startswith("model/norm/") for n in names)
    assert len(names) == len(model.variables) + 1  # + save_counter

    other = Nested()
    other(x)
    ks.Checkpoint(model=other).read(path).assert_consumed()
    assert_same(weights(other), weights(model))
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())


def test_sequential_round_trip(tmp_path):
    model = ks.Sequential([ks.layers.Dense(4, input_shape=(3,)), ks.layers.Dense(2)])
    model(ks.ones([1, 3]))
    path = model.save_weights(tmp_path / "seq.h5")
    other = ks.Sequential([ks.layers.Dense(4, input_shape=(3,)), ks.layers.Dense(2)])
    other.load_weights(path).assert_consumed()
    assert_same(weights(other), weights(model))


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_optimizer_round_trip_iterations_and_every_slot(tmp_path, kind):
    model, optimizer = MLP(), OPTIMIZERS[kind]()
    train(model, optimizer, 3)
    path = ks.Checkpoint(model=model, optimizer=optimizer).write(tmp_path / "o.h5")

    model2, optimizer2 = MLP(), OPTIMIZERS[kind]()
    model2(data()[0])
    optimizer2.build(model2.trainable_variables)  # slots exist before the restore
    ks.Checkpoint(model=model2, optimizer=optimizer2).read(path).assert_consumed()
    assert int(optimizer2.iterations) == 3
    assert float(optimizer2.learning_rate) == float(optimizer.learning_rate)
    assert_same(weights(model2), weights(model))
    expected, got = slots(optimizer, model), slots(optimizer2, model2)
    assert expected.keys() == got.keys()
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key])
    with h5py.File(path) as f:
        stored = set()
        f["values/optimizer"].visititems(lambda n, o: stored.add(n) if isinstance(o, h5py.Dataset)
                                         else None)
    assert "iterations" in stored
    for name in optimizer.get_slot_names():
        assert f".slots/model/d1/kernel/{name}" in stored


def test_learning_rate_variable_round_trip(tmp_path):
    optimizer = ks.optimizers.SGD(0.1)
    optimizer.learning_rate = 0.025
    path = ks.Checkpoint(optimizer=optimizer).write(tmp_path / "lr.h5")
    other = ks.optimizers.SGD(0.1)
    ks.Checkpoint(optimizer=other).read(path).assert_consumed()
    assert float(other.learning_rate) == pytest.approx(0.025)


@pytest.mark.parametrize("make, updates", [
    (lambda: ks.metrics.Mean("loss"), [(0.,), (5.,), ([8., 9.],)]),
    (lambda: ks.metrics.Sum(), [([1., 2.],), (4.,)]),
    (lambda: ks.metrics.Accuracy(), [([1, 2, 3], [1, 2, 4])]),
    (lambda: ks.metrics.SparseCategoricalAccuracy(), [([1, 0], [[0.1, 0.9], [0.2, 0.8]])]),
    (lambda: ks.metrics.MeanSquaredError(), [([1., 2.], [1.5, 2.5])]),
    (lambda: ks.metrics.Precision(), [([1, 0, 1], [0.9, 0.8, 0.2])]),
    (lambda: ks.metrics.Recall(), [([1, 0, 1], [0.9, 0.8, 0.2])]),
])
def test_metric_round_trip(tmp_path, make, updates):
    metric = make()
    for args in updates:
        metric.update_state(*args)
    path = ks.Checkpoint(metric=metric).write(tmp_path / "m.h5")
    other = make()
    ks.Checkpoint(metric=other).read(path).assert_consumed()
    assert float(other.result()) == float(metric.result())
    assert float(other.result()) != float(make().result()) or not updates


def test_seed_metric_numbers_survive_a_restore(tmp_path):
    m = ks.metrics.Mean("loss")
    m(0)
    m(5)
    path = ks.Checkpoint(m=m).write(tmp_path / "m.h5")
    m2 = ks.metrics.Mean("loss")
    ks.Checkpoint(m=m2).read(path)
    assert float(m2.result()) == 2.5
    m2([8, 9])
    assert float(m2.result()) == 5.5


def test_global_step_round_trip(tmp_path, fresh_global_step, monkeypatch):
    step = ks.get_or_create_global_step()
    step.assign_add(41)
    path = ks.Checkpoint(step=step).write(tmp_path / "g.h5")
    monkeypatch.setattr(global_step_module, "_global_step", None)
    step2 = ks.get_or_create_global_step()
    assert step2 is not step and int(step2) == 0
    ks.Checkpoint(step=step2).read(path).assert_consumed()
    assert int(step2) == 41 and step2.dtype == np.int64


def test_plain_containers_round_trip(tmp_path):
    a, b, c, d = (ks.Variable(float(i)) for i in range(4))
    path = ks.Checkpoint(vars=[a, b], table={"c": c, "more": [d]}).write(tmp_path / "c.h5")
    with h5py.File(path) as f:
        assert float(f["values/vars/1"][()]) == 1.0
        assert float(f["values/table/more/0"][()]) == 3.0
    new = [ks.Variable(0.) for _ in range(4)]
    ks.Checkpoint(vars=new[:2], table={"c": new[2], "more": [new[3]]}).read(path).assert_consumed()
    assert [float(v) for v in new] == [0., 1., 2., 3.]


def test_save_counter_is_saved_and_numbers_continue(tmp_path):
    x = ks.Variable(1.)
    root = ks.Checkpoint(x=x)
    prefix = str(tmp_path / "ckpt")
    assert root.save(prefix).endswith("ckpt-1.h5")
    assert root.save(prefix).endswith("ckpt-2.h5")
    root2 = ks.Checkpoint(x=ks.Variable(0.))
    root2.restore(ks.latest_checkpoint(tmp_path))
    assert int(root2.save_counter) == 2
    assert root2.save(prefix).endswith("ckpt-3.h5")


def test_write_does_not_number_or_index(tmp_path):
    root = ks.Checkpoint(x=ks.Variable(1.))
    assert root.write(tmp_path / "exact.h5") == str(tmp_path / "exact.h5")
    assert ks.latest_checkpoint(tmp_path) is None
    assert int(root.save_counter) == 0


def test_reserved_names_are_refused():
    with pytest.raises(ValueError, match="save_counter"):
        ks.Checkpoint(save_counter=ks.Variable(1.))
    with pytest.raises(ValueError, match="'restore'"):
        ks.Checkpoint(restore=ks.Variable(1.))
    with pytest.raises(TypeError, match="not trackable"):
        ks.Checkpoint(x=3.0)


# ---------------------------------------------------------------- deferred restoration


def test_restore_before_the_model_is_called(tmp_path):
    model = MLP()
    x, _ = data()
    expected = model(x).numpy()
    path = ks.Checkpoint(model=model).write(tmp_path / "m.h5")

    fresh = MLP()
    status = ks.Checkpoint(model=fresh).restore(path)
    assert set(status.pending) == {"model/d1/kernel", "model/d1/bias", "model/d2/kernel",
                                   "model/d2/bias"}
    assert "pending" in status.report() or "not (yet)" in status.report()
    np.testing.assert_array_equal(fresh(x).numpy(), expected)  # built -> restored at once
    assert status.pending == []
    status.assert_consumed()


def test_deferred_restore_survives_dropping_the_status(tmp_path):
    model = MLP()
    x, _ = data()
    expected = model(x).numpy()
    path = ks.Checkpoint(model=model).write(tmp_path / "m.h5")
    fresh = MLP()
    ks.Checkpoint(model=fresh).restore(path)  # status and checkpoint dropped at once
    gc.collect()
    np.testing.assert_array_equal(fresh(x).numpy(), expected)


def test_sequential_deferred_restore(tmp_path):
    model = ks.Sequential([ks.layers.Dense(4), ks.layers.Dense(2)])
    x, _ = data()
    expected = model(x).numpy()
    path = model.save_weights(tmp_path / "w.h5")
    other = ks.Sequential([ks.layers.Dense(4), ks.layers.Dense(2)])
    status = other.load_weights(path)
    assert status.pending
    np.testing.assert_array_equal(other(x).numpy(), expected)
    status.assert_consumed()


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_resumed_training_equals_uninterrupted_training(tmp_path, kind):
    """Train N, save, train M -> A; new objects restore (slots pending), train M -> exactly A."""
    n, m = 3, 4
    model, optimizer = MLP(), OPTIMIZERS[kind]()
    train(model, optimizer, n)
    path = ks.Checkpoint(model=model, optimizer=optimizer).write(tmp_path / "ckpt.h5")
    saved_slots = slots(optimizer, model)
    train(model, optimizer, m, seed=100)
    uninterrupted = weights(model)

    model2, optimizer2 = MLP(), OPTIMIZERS[kind]()
    status = ks.Checkpoint(model=model2, optimizer=optimizer2).restore(path)
    assert int(optimizer2.iterations) == n
    if optimizer.get_slot_names():
        assert any(".slots/" in key for key in status.pending)
    train(model2, optimizer2, m, seed=100)
    assert_same(weights(model2), uninterrupted)
    assert int(optimizer2.iterations) == n + m
    status.assert_consumed()

    # the slots got the saved values at the moment they were created
    model3, optimizer3 = MLP(), OPTIMIZERS[kind]()
    ks.Checkpoint(model=model3, optimizer=optimizer3).restore(path)
    model3(data()[0])
    optimizer3.build(model3.trainable_variables)
    got = slots(optimizer3, model3)
    assert got.keys() == saved_slots.keys()
    for key in saved_slots:
        np.testing.assert_array_equal(got[key], saved_slots[key])


def test_different_creation_order_restores_by_attribute(tmp_path):
    model = MLP()
    x, _ = data()
    expected = model(x).numpy()
    path = ks.Checkpoint(model=model).write(tmp_path / "m.h5")
    other = Reversed()
    assert [layer.name for layer in (other.d1, other.d2)] != [model.d1.name, model.d2.name]
    ks.Checkpoint(model=other).restore(path)
    np.testing.assert_array_equal(other(x).numpy(), expected)
    # built in the other order too: d2 is built after d1 but was created first
    third = Reversed()
    third.d1(x)
    ks.Checkpoint(model=third).restore(path).assert_existing_objects_matched()
    np.testing.assert_array_equal(third(x).numpy(), expected)


# ---------------------------------------------------------------- shared objects


class Shared(ks.Model):
    def __init__(self):
        super().__init__()
        self.first = ks.layers.Dense(3)
        self.again = self.first  # the same layer under a second attribute
        self.pair = [self.first, ks.layers.Dense(2)]

    def call(self, x):
        return self.pair[1](self.again(self.first(x)))


def test_shared_objects_are_stored_once(tmp_path):
    model = Shared()
    model(ks.ones([2, 3]))
    shared_var = model.first.kernel
    path = ks.Checkpoint(model=model, alias=model.first, direct=shared_var).write(tmp_path / "s.h5")
    with h5py.File(path) as f:
        datasets = []
        f["values"].visititems(lambda n, o: datasets.append(n) if isinstance(o, h5py.Dataset)
                               else None)
    # 4 model variables + save_counter; the shared kernel is stored once, under its shortest path
    assert len(datasets) == 5, datasets
    assert "direct" in datasets and "alias/bias" in datasets
    assert not any(d.startswith("model/first") or d.startswith("model/again") for d in datasets)

    other = Shared()
    other(ks.ones([2, 3]))
    ks.Checkpoint(model=other, alias=other.first, direct=other.first.kernel).read(path) \
        .assert_consumed()
    assert_same(weights(other), weights(model))


# ---------------------------------------------------------------- partial restores and status


def test_partial_restore_status_report(tmp_path):
    model, optimizer = MLP(), ks.optimizers.Adam(0.01)
    train(model, optimizer, 2)
    path = ks.Checkpoint(model=model, optimizer=optimizer).write(tmp_path / "full.h5")

    inference = MLP()
    inference(data()[0])
    extra = ks.Variable(1.0)
    status = ks.Checkpoint(model=inference, extra=extra).restore(path)
    assert "model/d1/kernel" in status.matched
    assert "optimizer/iterations" in status.unmatched
    assert "optimizer/.slots/model/d1/kernel/m" in status.unmatched
    assert status.missing == ["extra"]
    report = status.report()
    assert "unmatched (file only): optimizer/iterations" in report
    assert "missing (program only): extra" in report
    assert f"{len(status.matched)} matched" in report.splitlines()[0]
    with pytest.raises(CheckpointError, match="assert_consumed") as info:
        status.assert_consumed()
    assert "optimizer/iterations" in str(info.value)
    with pytest.raises(CheckpointError, match="extra"):
        status.assert_existing_objects_matched()
    assert status.expect_partial() is status
    assert_same([inference.d1.kernel.numpy()], [model.d1.kernel.numpy()])

    # the model alone, all its variables present: existing objects matched
    ok = ks.Checkpoint(model=inference).restore(path).expect_partial()
    ok.assert_existing_objects_matched()
    ok.assert_nontrivial_match()


def test_unused_values_warn_once_unless_expect_partial(tmp_path):
    model, optimizer = MLP(), ks.optimizers.Adam(0.01)
    train(model, optimizer, 1)
    path = ks.Checkpoint(model=model, optimizer=optimizer).write(tmp_path / "full.h5")

    def restore(expect_partial):
        other = MLP()
        other(data()[0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            status = ks.Checkpoint(model=other).restore(path)
            if expect_partial:
                status.expect_partial()
            del status, other
            gc.collect()
        return [str(w.message) for w in caught]

    messages = restore(expect_partial=False)
    assert len(messages) == 1, messages  # one line, not one per key
    assert "never used" in messages[0] and "expect_partial" in messages[0]
    assert restore(expect_partial=True) == []


def test_load_weights_for_inference_is_quiet(tmp_path):
    model = MLP()
    model.compile(optimizer="adam", loss="mse")
    x, y = data()
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    path = model.save_weights(tmp_path / "w.h5")
    with h5py.File(path) as f:
        assert "optimizer" not in f["values/model"]  # weights only
    other = MLP()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status = other.load_weights(path)
        np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())
        status.assert_consumed()
        del status
        gc.collect()


def test_checkpoint_written_for_another_model(tmp_path):
    model = MLP()
    model(data()[0])
    path = ks.Checkpoint(model=model).write(tmp_path / "mlp.h5")
    other = Nested()
    other(data()[0])
    status = ks.Checkpoint(model=other).restore(path).expect_partial()
    assert status.matched == ["save_counter"]
    with pytest.raises(CheckpointError, match="another model"):
        status.assert_consumed()


# ---------------------------------------------------------------- mismatches


def test_shape_mismatch_names_path_and_both_shapes(tmp_path):
    model = MLP(hidden=5)
    model(data()[0])
    path = ks.Checkpoint(model=model).write(tmp_path / "m.h5")
    other = MLP(hidden=6)
    other(data()[0])
    before = weights(other)
    with pytest.raises(CheckpointError) as info:
        ks.Checkpoint(model=other).restore(path)
    message = str(info.value)
    assert "m.h5" in message
    assert "'model/d1/kernel': the checkpoint has shape (3, 5) but the program's variable has " \
           "shape (3, 6)" in message
    assert "'model/d2/kernel': the checkpoint has shape (5, 2)" in message
    assert_same(weights(other), before)  # nothing half-restored


def test_shape_mismatch_in_deferred_restore_raises_when_built(tmp_path):
    model = MLP(hidden=5)
    model(data()[0])
    path = ks.Checkpoint(model=model).write(tmp_path / "m.h5")
    other = MLP(hidden=7)
    status = ks.Checkpoint(model=other).restore(path).expect_partial()
    assert status.pending
    with pytest.raises(CheckpointError, match=r"checkpoint has shape \(3, 5\).*shape \(3, 7\)"):
        other(data()[0])


def test_dtype_mismatch(tmp_path):
    path = ks.Checkpoint(v=ks.Variable([1.5, 2.5])).write(tmp_path / "f.h5")
    target = ks.Variable(np.array([0, 0], dtype=np.int64))
    with pytest.raises(CheckpointError) as info:
        ks.Checkpoint(v=target).restore(path)
    assert "dtype mismatch for 'v'" in str(info.value)
    assert "checkpoint has float32" in str(info.value) and "variable is int64" in str(info.value)
    assert target.numpy().tolist() == [0, 0]
    # widening or same-kind values are accepted and cast
    wide = ks.Checkpoint(v=ks.Variable(np.array([1.5, 2.5], np.float64))).write(tmp_path / "d.h5")
    narrow = ks.Variable([0.0, 0.0])
    ks.Checkpoint(v=narrow).restore(wide)
    assert narrow.dtype == np.float32 and narrow.numpy().tolist() == [1.5, 2.5]


# ---------------------------------------------------------------- bad files


@pytest.fixture
def good_file(tmp_path):
    v = ks.Variable(np.arange(200_000, dtype=np.float32))
    return ks.Checkpoint(v=v).write(tmp_path / "good.h5")


def _restore_error(path) -> CheckpointError:
    with pytest.raises(CheckpointError) as info:
        ks.Checkpoint(v=ks.Variable(np.zeros(200_000, np.float32))).restore(path)
    error = info.value
    # no h5py exception chained to it (the traceback shows one clear error)
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    assert "Traceback" not in str(error)
    return error


@pytest.mark.parametrize("fraction", [0.001, 0.01, 0.5, 0.99])
def test_truncated_file(tmp_path, good_file, fraction):
    content = open(good_file, "rb").read()
    bad = tmp_path / "truncated.h5"
    bad.write_bytes(content[: max(1, int(len(content) * fraction))])
    error = _restore_error(str(bad))
    assert "truncated.h5" in str(error)
    assert "not a readable HDF5 file" in str(error) or "damaged" in str(error)


def test_empty_file(tmp_path):
    (tmp_path / "empty.h5").write_bytes(b"")
    error = _restore_error(str(tmp_path / "empty.h5"))
    assert "empty.h5" in str(error) and "empty (0 bytes)" in str(error)


def test_non_hdf5_file(tmp_path):
    (tmp_path / "notes.h5").write_text("these are not the weights you are looking for\n" * 20)
    error = _restore_error(str(tmp_path / "notes.h5"))
    assert "notes.h5" in str(error) and "not a readable HDF5 file" in str(error)


def test_foreign_hdf5_file(tmp_path):
    with h5py.File(tmp_path / "keras.h5", "w") as f:
        f.create_dataset("model_weights/dense/kernel", data=np.zeros((3, 2)))
    error = _restore_error(str(tmp_path / "keras.h5"))
    assert "keras.h5" in str(error) and "not a kerasish checkpoint" in str(error)


def test_missing_path_and_directory(tmp_path):
    error = _restore_error(str(tmp_path / "nope.h5"))
    assert "nope.h5" in str(error) and "not found" in str(error)
    error = _restore_error(str(tmp_path))
    assert "is a directory" in str(error) and "latest_checkpoint" in str(error)


def test_unreadable_index_is_a_clear_error(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-1"\n')  # TF's format
    with pytest.raises(CheckpointError, match="index .*checkpoint.*: it is not valid JSON"):
        ks.latest_checkpoint(tmp_path)


# ---------------------------------------------------------------- atomic writes


def test_failed_save_leaves_previous_checkpoint_and_index(tmp_path, monkeypatch):
    x = ks.Variable(np.ones(1000, np.float32))
    root = ks.Checkpoint(x=x, y=ks.Variable(2.0))
    prefix = str(tmp_path / "ckpt")
    first = root.save(prefix)
    index_before = (tmp_path / "checkpoint").read_text()

    calls = []
    original = h5py.Group.create_dataset

    def failing(self, name, *args, **kwargs):
        calls.append(name)
        if len(calls) == 2:
            raise OSError("disk full (simulated)")
        return original(self, name, *args, **kwargs)

    monkeypatch.setattr(h5py.Group, "create_dataset", failing)
    x.assign(np.zeros(1000, np.float32))
    with pytest.raises(OSError, match="simulated"):
        root.save(prefix)
    monkeypatch.undo()

    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.h5"]  # no temporary left
    assert (tmp_path / "checkpoint").read_text() == index_before
    assert ks.latest_checkpoint(tmp_path) == first
    assert int(root.save_counter) == 1
    ks.Checkpoint(x=x, y=ks.Variable(0.0)).restore(first).assert_consumed()
    assert float(x.numpy().min()) == 1.0


def test_stale_temporaries_of_dead_processes_are_removed(tmp_path):
    host = ckpt_module._HOST
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".ckpt-3.h5.{host}-{dead_pid}.abc123.tmp"
    alive = tmp_path / f".ckpt-4.h5.{host}-{os.getppid()}.def456.tmp"
    other_host = tmp_path / f".ckpt-5.h5.elsewhere-{dead_pid}.ghi789.tmp"
    foreign = tmp_path / ".editor-swap.tmp"
    for f in (stale, alive, other_host, foreign):
        f.write_bytes(b"partial")
    manager = ks.CheckpointManager(ks.Checkpoint(x=ks.Variable(1.)), tmp_path)
    assert not stale.exists()
    assert alive.exists() and other_host.exists() and foreign.exists()
    manager.save()
    assert alive.exists() and other_host.exists() and foreign.exists()


# ---------------------------------------------------------------- CheckpointManager


def _numbers(directory):
    return sorted(int(n[5:-3]) for n in os.listdir(directory)
                  if n.startswith("ckpt-") and n.endswith(".h5"))


def test_manager_retention_and_latest(tmp_path):
    x = ks.Variable(0.)
    manager = ks.CheckpointManager(ks.Checkpoint(x=x), tmp_path, max_to_keep=3)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = []
    for i in range(6):
        x.assign(float(i))
        paths.append(manager.save())
    assert paths[0] == os.path.join(str(tmp_path), "ckpt-1.h5")
    assert _numbers(tmp_path) == [4, 5, 6]
    assert manager.checkpoints == paths[3:]
    assert manager.latest_checkpoint == paths[-1] == ks.latest_checkpoint(tmp_path)
    y = ks.Variable(-1.)
    ks.Checkpoint(x=y).restore(manager.latest_checkpoint)
    assert float(y) == 5.0
    assert manager.save(checkpoint_number=100).endswith("ckpt-100.h5")
    assert _numbers(tmp_path) == [5, 6, 100]


def test_manager_keeps_all_with_max_to_keep_none(tmp_path):
    manager = ks.CheckpointManager(ks.Checkpoint(x=ks.Variable(0.)), tmp_path, max_to_keep=None)
    for _ in range(7):
        manager.save()
    assert _numbers(tmp_path) == list(range(1, 8))


def test_manager_restart_continues_numbering_and_prunes(tmp_path):
    x = ks.Variable(0.)
    manager = ks.CheckpointManager(ks.Checkpoint(x=x), tmp_path, max_to_keep=2)
    for _ in range(3):
        manager.save()
    assert _numbers(tmp_path) == [2, 3]
    del manager

    # a new process: fresh objects, counter at 0, nothing restored yet
    root = ks.Checkpoint(x=ks.Variable(0.))
    manager = ks.CheckpointManager(root, tmp_path, max_to_keep=2)
    assert manager.checkpoints == [os.path.join(str(tmp_path), f"ckpt-{i}.h5") for i in (2, 3)]
    assert manager.save().endswith("ckpt-4.h5")
    assert _numbers(tmp_path) == [3, 4]
    # resumed from the checkpoint: the restored save_counter agrees
    root2 = ks.Checkpoint(x=ks.Variable(0.))
    root2.restore(ks.latest_checkpoint(tmp_path))
    assert int(root2.save_counter) == 4
    assert ks.CheckpointManager(root2, tmp_path, max_to_keep=2).save().endswith("ckpt-5.h5")
    assert _numbers(tmp_path) == [4, 5]


def test_manager_deletes_only_its_own_files(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    (tmp_path / "other-1.h5").write_bytes(b"not ours")
    (tmp_path / "ckpt-1.h5.bak").write_bytes(b"a backup")
    root = ks.Checkpoint(x=ks.Variable(0.))
    root.save(tmp_path / "run")  # run-1.h5: in the index (by Checkpoint.save), not the manager's
    manager = ks.CheckpointManager(root, tmp_path, max_to_keep=1, checkpoint_name="ckpt")
    other_manager_file = ks.CheckpointManager(
        ks.Checkpoint(x=ks.Variable(0.)), tmp_path, checkpoint_name="model").save()
    for _ in range(4):
        manager.save()
    names = set(os.listdir(tmp_path))
    assert {"notes.txt", "other-1.h5", "ckpt-1.h5.bak", "checkpoint", "run-1.h5"} <= names
    assert os.path.basename(other_manager_file) in names
    # numbering continues from the shared save_counter (1 after run-1): ckpt-2 .. ckpt-5
    assert sorted(n for n in names if n.startswith("ckpt-") and n.endswith(".h5")) == ["ckpt-5.h5"]
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    assert (tmp_path / "other-1.h5").read_bytes() == b"not ours"
    index = ckpt_module.read_index(tmp_path)
    assert "run-1.h5" in index["checkpoints"] and "model-1.h5" in index["checkpoints"]


def test_manager_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr(ckpt_module.time, "time", lambda: clock[0])
    hour = 3600.0
    root = ks.Checkpoint(x=ks.Variable(0.))
    manager = ks.CheckpointManager(root, tmp_path, max_to_keep=2, keep_checkpoint_every_n_hours=1)
    for _ in range(7):  # saved at 0, 0.5, ..., 3 hours
        manager.save()
        clock[0] += 0.5 * hour
    # 3 (1 h after the start) and 5 (1 h after 3) are kept for good; the newest 2 are kept
    assert _numbers(tmp_path) == [3, 5, 6, 7]
    assert manager.checkpoints == [os.path.join(str(tmp_path), f"ckpt-{i}.h5") for i in (6, 7)]

    # after a restart, kept checkpoints are never pruned and the numbering goes on
    manager = ks.CheckpointManager(ks.Checkpoint(x=ks.Variable(0.)), tmp_path, max_to_keep=2,
                                   keep_checkpoint_every_n_hours=1)
    for _ in range(4):  # 3.5 .. 5 hours
        manager.save()
        clock[0] += 0.5 * hour
    assert _numbers(tmp_path) == [3, 5, 7, 9, 10, 11]
    index = json.loads((tmp_path / "checkpoint").read_text())
    assert index["preserved"] == ["ckpt-3.h5", "ckpt-5.h5", "ckpt-7.h5", "ckpt-9.h5"]


def test_manager_removes_its_unlisted_files_on_start(tmp_path):
    manager = ks.CheckpointManager(ks.Checkpoint(x=ks.Variable(0.)), tmp_path, max_to_keep=2)
    for _ in range(3):
        manager.save()
    # left by interrupted saves: pruned from the index but not deleted, written but not indexed
    for orphan in ("ckpt-1.h5", "ckpt-4.h5"):
        shutil.copy(tmp_path / "ckpt-3.h5", tmp_path / orphan)
    live = f".ckpt-5.h5.{ckpt_module._HOST}-{os.getppid()}.abc123.tmp"  # another live writer's
    others = ["model-1.h5", "ckpt-1.h5.bak", "ckpt-x.h5", "notes.txt", live]
    for name in others:
        (tmp_path / name).write_bytes(b"not the manager's")
    ks.CheckpointManager(ks.Checkpoint(x=ks.Variable(0.)), tmp_path, max_to_keep=2)
    assert sorted(os.listdir(tmp_path)) == sorted(["checkpoint", "ckpt-2.h5", "ckpt-3.h5"]
                                                   + others)
    assert ks.latest_checkpoint(tmp_path) == os.path.join(str(tmp_path), "ckpt-3.h5")


def test_manager_keeps_every_listed_file_and_those_of_a_directory_without_index(tmp_path):
    clock = [1_000_000.0]
    root = ks.Checkpoint(x=ks.Variable(0.))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ckpt_module.time, "time", lambda: clock[0])
        manager = ks.CheckpointManager(root, tmp_path / "a", max_to_keep=1,
                                       keep_checkpoint_every_n_hours=1)
        for _ in range(4):
            manager.save()
            clock[0] += 3600.0
    index = ckpt_module.read_index(tmp_path / "a")
    assert index["preserved"] == ["ckpt-2.h5", "ckpt-3.h5"]
    assert index["checkpoints"] == [index["latest"]] == ["ckpt-4.h5"]
    ks.CheckpointManager(root, tmp_path / "a", max_to_keep=1).save()
    assert _numbers(tmp_path / "a") == [2, 3, 5]
    # copied checkpoints without their index: nothing says they are orphans
    (tmp_path / "b").mkdir()
    for n in (2, 3):
        shutil.copy(tmp_path / "a" / f"ckpt-{n}.h5", tmp_path / "b")
    ks.CheckpointManager(root, tmp_path / "b")
    assert _numbers(tmp_path / "b") == [2, 3]


def test_a_full_disk_while_writing_the_index_leaves_a_file_the_next_save_removes(tmp_path,
                                                                                 monkeypatch):
    manager = ks.CheckpointManager(ks.Checkpoint(x=ks.Variable(0.)), tmp_path, max_to_keep=2)
    manager.save()
    original = ckpt_module.write_index

    def full(directory, index):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ckpt_module, "write_index", full)
    with pytest.raises(OSError, match="No space left"):
        manager.save()
    assert _numbers(tmp_path) == [1, 2]  # ckpt-2.h5: written, named by no index
    monkeypatch.setattr(ckpt_module, "write_index", original)
    assert manager.save().endswith("ckpt-3.h5")
    assert _numbers(tmp_path) == [1, 3]
    assert manager.checkpoints == [os.path.join(str(tmp_path), f"ckpt-{i}.h5") for i in (1, 3)]


def test_index_paths_are_relative_and_directory_can_move(tmp_path):
    old = tmp_path / "run1"
    x = ks.Variable(0.)
    manager = ks.CheckpointManager(ks.Checkpoint(x=x), old, max_to_keep=2)
    for i in range(3):
        x.assign(float(i + 1))
        manager.save()
    index_text = (old / "checkpoint").read_text()
    assert str(tmp_path) not in index_text
    index = json.loads(index_text)
    assert index["latest"] == "ckpt-3.h5"
    assert all(not os.path.isabs(n) for n in index["checkpoints"])

    new = tmp_path / "moved" / "run1"
    shutil.move(str(old), str(new))
    assert ks.latest_checkpoint(old) is None
    assert ks.latest_checkpoint(new) == os.path.join(str(new), "ckpt-3.h5")
    y = ks.Variable(0.)
    root = ks.Checkpoint(x=y)
    root.restore(ks.latest_checkpoint(new))
    assert float(y) == 3.0
    manager = ks.CheckpointManager(root, new, max_to_keep=2)
    assert manager.save().endswith("ckpt-4.h5")
    assert _numbers(new) == [3, 4]


def test_latest_checkpoint_of_missing_or_empty_directory(tmp_path):
    assert ks.latest_checkpoint(tmp_path / "does-not-exist") is None
    assert ks.latest_checkpoint(tmp_path) is None


# ---------------------------------------------------------------- crash safety

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import kerasish as ks

    directory = sys.argv[1]
    a = ks.Variable(np.zeros(50_000_000, np.float32))   # 200 MB
    b = ks.Variable(np.zeros(25_000_000, np.float32))   # 100 MB
    root = ks.Checkpoint(a=a, b=b)
    latest = ks.latest_checkpoint(directory)
    if latest:
        root.restore(latest)
    manager = ks.CheckpointManager(root, directory, max_to_keep=2)
    print("ready", flush=True)
    while True:
        n = float(int(root.save_counter) + 1)
        a.assign(np.full(a.shape, n, np.float32))
        b.assign(np.full(b.shape, -n, np.float32))
        manager.save()
        root.write(directory + "/weights.h5")  # the same name overwritten, as save_weights does
        print("saved", flush=True)
""")


def _check_consistent(path):
    """A complete checkpoint of the child's: all of a == n and all of b == -n; returns n."""
    with h5py.File(path, "r") as f:
        n = int(f["values/save_counter"][()])
        a = f["values/a"][:]
        b = f["values/b"][:]
    assert a.shape == (50_000_000,) and b.shape == (25_000_000,)
    assert a.min() == a.max() == n and b.min() == b.max() == -n, f"{path} is torn"
    return n


def _check_directory(directory):
    """The index parses, names only complete files, and the latest restores consistently."""
    if os.path.exists(os.path.join(directory, "weights.h5")):
        _check_consistent(os.path.join(directory, "weights.h5"))
    latest = ks.latest_checkpoint(directory)
    index = ckpt_module.read_index(directory)
    for name in index["checkpoints"]:
        path = os.path.join(directory, name)
        assert os.path.exists(path), f"index names a missing file {name}"
        with h5py.File(path, "r") as f:  # opens: complete HDF5 with our marker
            assert f.attrs["kerasish_format"] == "kerasish-checkpoint"
    if latest is None:
        return 0
    n = _check_consistent(latest)
    assert os.path.basename(latest) == f"ckpt-{n}.h5"
    return n


KILLED_SAVE = textwrap.dedent("""
    import os, signal, sys
    import kerasish as ks
    from kerasish import checkpoint

    directory, point = sys.argv[1], sys.argv[2]
    step = ks.Variable(0.0)
    manager = ks.CheckpointManager(ks.Checkpoint(step=step), directory, max_to_keep=2)
    for _ in range(3):
        step.assign_add(1.0)
        manager.save()

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    if point == "before-index":  # the new file is complete, the index does not name it yet
        checkpoint.update_index = die
    elif point == "before-unlink":  # the index no longer names the pruned file
        os.remove = die
    else:  # in the middle of writing the index: its temporary is left
        checkpoint.json.dump = die
    step.assign_add(1.0)
    manager.save()
""")


@pytest.mark.parametrize("point, saved, left", [
    ("before-index", 3, ["ckpt-4.h5"]),  # complete, not yet indexed
    ("before-unlink", 4, ["ckpt-2.h5"]),  # pruned from the index, not yet deleted
    ("index-write", 3, ["ckpt-4.h5", ".checkpoint.*.tmp"]),  # and the index's temporary
])
def test_a_save_killed_at_any_step_leaves_nothing_after_the_next_save(tmp_path, point, saved,
                                                                      left):
    directory = tmp_path / "ckpts"
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.run([sys.executable, "-c", KILLED_SAVE, str(directory), point], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    kept = [f"ckpt-{saved - 1}.h5", f"ckpt-{saved}.h5"]
    names = sorted(os.listdir(directory))
    assert len(names) == 3 + len(left)
    assert all(any(fnmatch.fnmatch(n, pattern) for n in names) for pattern in kept + left)
    step = ks.Variable(0.0)
    root = ks.Checkpoint(step=step)
    root.restore(ks.latest_checkpoint(directory)).assert_consumed()
    assert float(step) == saved
    manager = ks.CheckpointManager(root, directory, max_to_keep=2)
    assert os.path.basename(manager.save()) == f"ckpt-{saved + 1}.h5"
    assert sorted(os.listdir(directory)) == ["checkpoint", kept[1], f"ckpt-{saved + 1}.h5"]


KILLS = 10


@pytest.mark.slow
def test_sigkill_during_saves_never_damages_the_latest_checkpoint(tmp_path):
    directory = str(tmp_path / "ckpts")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rng = random.Random(4)
    last, kills, cycle = 0, 0, None
    # a number of kills, not a time budget: a loaded machine takes longer but proves as much
    # (the kill points scale with the measured save cycle); keep going until the latest
    # checkpoint has advanced twice, which the kills at random points must not prevent
    while kills < KILLS or last < 2:
        assert kills < 4 * KILLS, f"{kills} kills and the latest checkpoint is only {last}"
        child = subprocess.Popen([sys.executable, str(script), directory], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = child.stdout.readline()
        assert line.strip() == "ready", child.stderr.read()
        if cycle is None:  # the first child saves once untouched: how long a cycle takes here
            began = time.monotonic()
            assert child.stdout.readline().strip() == "saved", child.stderr.read()
            cycle = time.monotonic() - began
        time.sleep(rng.uniform(0.0, 2.5 * cycle))  # anywhere in the next two or three saves
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
        kills += 1
        n = _check_directory(directory)
        assert n >= last, "the latest checkpoint went backwards"
        last = n
    # the next manager removes the dead writers' temporaries; nothing else is left over
    ks.CheckpointManager(ks.Checkpoint(a=ks.Variable(0.)), directory, max_to_keep=2)
    leftovers = [n for n in os.listdir(directory) if n.endswith(".tmp")]
    assert leftovers == []
    # and nothing but the two checkpoints kept: unindexed files of killed saves are gone
    assert len([n for n in os.listdir(directory) if n.startswith("ckpt-")]) == 2
