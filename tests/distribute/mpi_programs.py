"""The programs `test_distribute.py` runs under `mpiexec -n N`: python mpi_programs.py NAME ARGS.

Each prints "NAME ok" on the chief when its checks pass; a failed check raises,
which aborts the job (the tests then see the rank and the error in the output).
"""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np

import kerasish as ks

dist = ks.distribute


def _data(count=40, features=5):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(count, features)).astype("float32")
    y = (x @ rng.normal(size=(features, 1)) + 0.5).astype("float32")
    return x, y


def _model(name):
    return ks.Sequential([ks.layers.Dense(8, activation="tanh"), ks.layers.Dense(1)], name=name)


def _optimizer(kind):
    return ks.optimizers.SGD(0.05, momentum=0.9) if kind == "sgd" else ks.optimizers.Adam(0.01)


class _OwnStep(ks.Sequential):
    """A train_step of its own, as in Keras's guide (no `scale_loss`): fit weights its
    gradients in the exchange instead of scaling its loss."""

    def train_step(self, data):
        x, y, sample_weight = ks.utils.unpack_x_y_sample_weight(data)
        with ks.GradientTape() as tape:
            loss = self.compute_loss(y=y, y_pred=self(x, training=True),
                                     sample_weight=sample_weight)
        variables = self.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return {"loss": loss}


def fit(out, epochs="3", batch="10"):
    """SGD and Adam models trained by fit, and one with a train_step of its own; every rank
    seeded differently (rank 0's values win)."""
    x, y = _data()
    results = {}
    for kind in ("sgd", "adam", "own_step"):
        ks.random.set_seed(5 + 1000 * dist.rank())
        if kind == "own_step":
            model = _OwnStep(_model(kind).layers, name=kind)
        else:
            model = _model(kind)
        model.compile(_optimizer(kind), "mse", metrics=["mae"])
        ones = np.ones(len(x), np.float32)
        if kind != "adam":  # (adam's results are also test_resume's reference)
            # a step compiled before fit distributes the optimizer (with this rank's shard
            # of the first batch, as fit will give it): weighted 0, it moves nothing (SGD),
            # and fit must not replay it as traced (without scaling its loss for the exchange)
            first = dist.shard_batch(x[:int(batch)], y[:int(batch)], ones[:int(batch)])
            model.train_on_batch(first[0], first[1], sample_weight=0.0 * first[2])
        history = model.fit(x, y, sample_weight=ones, batch_size=int(batch),
                            epochs=int(epochs), verbose=0)
        if dist.size() > 1:  # Model's step scaled its loss; the other one's gradients were weighted
            scaled = model.optimizer.gradient_exchange._share is not None
            assert scaled == (kind != "own_step"), (kind, scaled)
        for i, weight in enumerate(model.get_weights()):
            results[f"{kind}_{i}"] = weight
        results[f"{kind}_loss"] = np.array(history.history["loss"])
        results[f"{kind}_eval"] = np.array(model.evaluate(x, y))
    check_same_on_all_ranks(results)
    if dist.is_chief():
        np.savez(out, **results)
        print("fit ok", flush=True)


def loop(out, steps="6", batch="10"):
    """A custom loop: DistributedOptimizer, broadcast_variables, shard_batch and local_weight."""
    x, y = _data()
    ks.random.set_seed(11 + 1000 * dist.rank())
    model = _model("loop")
    model(x[:1])
    dist.broadcast_variables(model.variables)
    optimizer = dist.DistributedOptimizer(ks.optimizers.Adam(0.01))
    batch = int(batch)
    for step in range(int(steps)):
        start = (step * batch) % len(x)
        xb, yb = dist.shard_batch(x[start:start + batch], y[start:start + batch])
        optimizer.gradient_exchange.local_weight = len(xb)
        with ks.GradientTape() as tape:
            loss = ks.reduce_mean(ks.square(model(xb) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    results = {f"w{i}": w for i, w in enumerate(model.get_weights())}
    check_same_on_all_ranks(results)
    if dist.is_chief():
        np.savez(out, **results)
        print("loop ok", flush=True)


def loop_average_loss(out, steps="6", batch="10", compiled="eager"):
    """A custom loop with compute_average_loss and op="sum", and a kernel large enough
    (400 x 400 float32, 640,000 bytes) to be handed over by the tape and reduced in place
    (eager), or copied (a ks.function step: its arrays are the program's)."""
    x, y = _data(features=400)
    ks.random.set_seed(11 + 1000 * dist.rank())
    model = ks.Sequential([ks.layers.Dense(400, activation="tanh"), ks.layers.Dense(1)])
    model(x[:1])
    dist.broadcast_variables(model.variables)
    optimizer = dist.DistributedOptimizer(ks.optimizers.SGD(1e-4, momentum=0.9), op="sum")
    batch = int(batch)

    def train_step(xb, yb):
        with ks.GradientTape() as tape:
            per_example = ks.reduce_mean(ks.square(model(xb) - yb), axis=-1)
            loss = dist.compute_average_loss(per_example, global_batch_size=batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    if compiled == "compiled":
        train_step = ks.function(train_step)
    for step in range(int(steps)):
        start = (step * batch) % len(x)
        train_step(*dist.shard_batch(x[start:start + batch], y[start:start + batch]))
    results = {f"w{i}": w for i, w in enumerate(model.get_weights())}
    check_same_on_all_ranks(results)
    if dist.is_chief():
        np.savez(out, **results)
        print("loop_average_loss ok", flush=True)


def _large_gradients(seed):
    """A fresh tape's gradients (kernel 400 x 400: handed over; bias: not), and the variables."""
    rng = np.random.default_rng(seed)
    kernel = ks.Variable(rng.normal(size=(400, 400)).astype("float32"), name="kernel")
    bias = ks.Variable(rng.normal(size=400).astype("float32"), name="bias")
    x = ks.constant(rng.normal(size=(8, 400)).astype("float32"))
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(ks.square(ks.tanh(ks.matmul(x, kernel) + bias)))
    return tape.gradient(loss, [kernel, bias]), [kernel, bias]


def in_place():
    """Gradients the tape handed over are reduced in place: the same results as the copies of
    the same values give (which are left unchanged), for each kind of weighting."""
    from kerasish.distribute import GradientExchange, communicator

    rank, size = dist.rank(), dist.size()
    weights = [1.0 + r for r in range(size)]
    for op, local, total in (("mean", weights[rank], sum(weights)), ("mean", weights[rank], None),
                             ("sum", 1.0, None)):
        handed, copied = GradientExchange(op=op), GradientExchange(op=op)  # (the tape now
        for exchange in (handed, copied):  # hands gradients over: there is a taker)
            exchange.local_weight, exchange.total_weight = local, total
        grads, variables = _large_gradients(100 + rank)
        arrays = [g._value for g in grads]
        kept = [a.copy() for a in arrays]
        copies = [a.copy() for a in arrays]  # given to the other exchange: never handed over
        got = handed(list(zip(arrays, variables)))
        assert got[0][0] is arrays[0], "the handed-over kernel gradient is reduced in place"
        assert got[1][0] is not arrays[1], "the small bias gradient goes into a bucket"
        np.testing.assert_array_equal(arrays[1], kept[1])  # the bias input is unchanged
        want = copied(list(zip(copies, variables)))
        for a, b in zip(copies, kept):  # not handed over: inputs unchanged
            np.testing.assert_array_equal(a, b)
        # every rank's gradients, weighted in float64, as the reference
        everyone = communicator.allgather(np.concatenate([k.ravel() for k in kept]), "check")
        scale = np.asarray(weights) / sum(weights) if op == "mean" else np.ones(size)
        reference = (everyone * scale[:, None]).sum(axis=0)
        for i, ((g, _), (w, _)) in enumerate(zip(got, want)):
            np.testing.assert_array_equal(g, w, err_msg=f"{op} {total} {i}")
        flat = np.concatenate([np.ravel(g) for g, _ in got])
        np.testing.assert_allclose(flat, reference, rtol=1e-5, atol=1e-6, err_msg=op)
    # one handed-over array given for two variables: the copy for the second is made first
    grads, variables = _large_gradients(200 + rank)
    twin = ks.Variable(np.zeros((400, 400), np.float32), name="twin")
    kernel_grad = grads[0]._value
    before = kernel_grad.copy()
    got = GradientExchange(op="sum")([(kernel_grad, variables[0]), (kernel_grad, twin)])
    everyone = communicator.allgather(before.ravel(), "check").sum(axis=0).reshape(400, 400)
    for g, _ in got:
        np.testing.assert_allclose(g, everyone, rtol=1e-5, atol=1e-6)
    # through apply_gradients: the caller's handed-over gradient holds the average afterwards
    grads, variables = _large_gradients(300 + rank)
    kernel_before, bias_before = grads[0].numpy().copy(), grads[1].numpy().copy()
    optimizer = dist.DistributedOptimizer(ks.optimizers.SGD(0.0))
    optimizer.apply_gradients(zip(grads, variables))
    mean = communicator.allgather(kernel_before.ravel(), "check").mean(axis=0)
    assert not np.allclose(mean, kernel_before.ravel()), "the ranks' gradients should differ"
    np.testing.assert_allclose(grads[0].numpy().ravel(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(grads[1].numpy(), bias_before)  # copied, not overwritten
    if dist.is_chief():
        print("in_place ok", flush=True)


def check_same_on_all_ranks(arrays: dict) -> None:
    flat = np.concatenate([np.ravel(arrays[k]).astype(np.float64) for k in sorted(arrays)])
    highest, lowest = flat.copy(), -flat
    if dist.size() > 1:
        from kerasish.distribute import communicator

        communicator.allreduce(highest, "check", op="max")
        communicator.allreduce(lowest, "check", op="max")
    if not np.array_equal(highest, -lowest):
        raise AssertionError(f"rank {dist.rank()}: the ranks ended with different values")


def _sparse_gradient(rank, vocab, dim):
    rng = np.random.default_rng(100 + rank)
    rows = 3 + rank  # ranks contribute different numbers of rows, with repeats
    indices = rng.integers(0, vocab, rows)
    indices[-1] = indices[0]
    values = rng.normal(size=(rows, dim)).astype("float32")
    return indices, values


def sparse():
    """IndexedSlices gradients, gathered or densified, equal the dense gradients' exchange."""
    from kerasish.core.tensor import IndexedSlices

    vocab, dim = 50, 4
    weights = [2.0 + r for r in range(dist.size())]
    expected = np.zeros((vocab, dim))
    for r in range(dist.size()):
        indices, values = _sparse_gradient(r, vocab, dim)
        np.add.at(expected, indices, values * weights[r])
    expected /= sum(weights)
    touched = np.flatnonzero(np.abs(expected).sum(axis=1) > 0)
    indices, values = _sparse_gradient(dist.rank(), vocab, dim)
    dense_local = np.zeros((vocab, dim), np.float32)
    np.add.at(dense_local, indices, values)
    results = {}
    for label, above in (("gathered", 1e9), ("densified", 0.0)):
        for form in ("sparse", "dense"):
            # two sparse gradients in one step (rows of 4 and scalar rows), exchanged together
            var = ks.Variable(np.zeros((vocab, dim), np.float32), name="embeddings")
            bias = ks.Variable(np.zeros(vocab, np.float32), name="bias")
            optimizer = dist.DistributedOptimizer(ks.optimizers.SGD(1.0),
                                                  sparse_as_dense_above=above)
            optimizer.gradient_exchange.local_weight = weights[dist.rank()]
            if form == "sparse":
                grads = [IndexedSlices(ks.constant(values), ks.constant(indices), (vocab, dim)),
                         IndexedSlices(ks.constant(values[:, 0]), ks.constant(indices), (vocab,))]
            else:
                grads = [ks.constant(dense_local), ks.constant(dense_local[:, 0])]
            optimizer.apply_gradients(zip(grads, [var, bias]))
            results[f"{label}_{form}"] = -var.numpy()
            results[f"{label}_{form}_bias"] = -bias.numpy()
    for key, got in results.items():
        want = expected[:, 0] if key.endswith("_bias") else expected
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=key)
    # a lazy (sparse) update touches only the rows some rank sent: Adam's moments elsewhere stay 0
    var = ks.Variable(np.zeros((vocab, dim), np.float32), name="embeddings")
    adam = dist.DistributedOptimizer(ks.optimizers.Adam(0.1), sparse_as_dense_above=0.0)
    adam.apply_gradients([(IndexedSlices(ks.constant(values), ks.constant(indices),
                                         (vocab, dim)), var)])
    moved = np.flatnonzero(np.abs(var.numpy()).sum(axis=1) > 0)
    np.testing.assert_array_equal(moved, touched)
    if dist.is_chief():
        print("sparse ok", flush=True)


def broadcast():
    """Differently seeded ranks differ, and are identical after broadcast_variables."""
    ks.random.set_seed(dist.rank())
    model = _model("b")
    model(np.zeros((1, 5), np.float32))
    mine = np.concatenate([w.ravel() for w in model.get_weights()])
    from kerasish.distribute import communicator

    spread = communicator.allgather(mine.astype(np.float64), "test")
    assert not np.array_equal(spread[0], spread[-1]), "the ranks started identical"
    dist.broadcast_variables(model.variables, root=dist.size() - 1)
    check_same_on_all_ranks({"w": np.concatenate([w.ravel() for w in model.get_weights()])})
    np.testing.assert_array_equal(np.concatenate([w.ravel() for w in model.get_weights()]),
                                  spread[-1].astype(np.float32))
    if dist.is_chief():
        print("broadcast ok", flush=True)


def files(directory):
    """fit with every writing callback; each rank runs in its own folder (relative paths)."""
    here = os.path.join(directory, f"rank{dist.rank()}")
    os.makedirs(here, exist_ok=True)
    os.chdir(here)
    x, y = _data()
    model = _model("files")
    model.compile("adam", "mse")
    callbacks = [ks.callbacks.TensorBoard("tb"), ks.callbacks.CSVLogger("log.csv"),
                 ks.callbacks.ModelCheckpoint("model.keras", monitor="loss"),
                 ks.callbacks.BackupAndRestore("backup", delete_checkpoint=False)]
    model.fit(x, y, batch_size=8, epochs=2, verbose=2, callbacks=callbacks)


def raising():
    """Rank 1 fails before training; rank 0 waits in fit's first collective."""
    if dist.rank() == 1:
        raise ValueError("rank one fails on purpose")
    x, y = _data()
    model = _model("r")
    model.compile("sgd", "mse")
    model.fit(x, y, batch_size=8, epochs=50, verbose=0)


def exiting(how):
    """Rank 1 leaves before training, by sys.exit(how) or by returning; rank 0 waits in fit."""
    if dist.rank() == 1:
        if how != "return":
            sys.exit(int(how))
        return
    x, y = _data()
    model = _model("e")
    model.compile("sgd", "mse")
    model.fit(x, y, batch_size=8, epochs=50, verbose=0)


def hanging():
    """Rank 1 stops taking part (sleeps); rank 0's collective times out."""
    if dist.rank() == 1:
        time.sleep(120)
        return
    x, y = _data()
    model = _model("h")
    model.compile("sgd", "mse")
    model.fit(x, y, batch_size=8, epochs=50, verbose=0)


def killed():
    """Rank 1 is killed by SIGKILL after its first epoch."""

    class Kill(ks.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if dist.rank() == 1:
                os.kill(os.getpid(), signal.SIGKILL)

    x, y = _data()
    model = _model("k")
    model.compile("sgd", "mse")
    model.fit(x, y, batch_size=8, epochs=1000, verbose=0, callbacks=[Kill()])


def resume(phase, path, out):
    """Phase 1 trains 2 epochs and saves a checkpoint (chief); phase 2 restores it on every rank
    (any number of them) and trains epochs 3 and 4."""
    x, y = _data()
    ks.random.set_seed(5)
    model = _model("adam")
    model.compile(_optimizer("adam"), "mse", metrics=["mae"])
    checkpoint = ks.Checkpoint(model=model, optimizer=model.optimizer,
                               rng=ks.random.get_global_generator())
    if phase == "1":
        model.fit(x, y, batch_size=10, epochs=2, verbose=0)
        if dist.is_chief():
            checkpoint.write(path)
        return
    model(x[:1])
    checkpoint.read(path)
    model.fit(x, y, batch_size=10, epochs=4, initial_epoch=2, verbose=0)
    results = {f"adam_{i}": w for i, w in enumerate(model.get_weights())}
    check_same_on_all_ranks(results)
    if dist.is_chief():
        np.savez(out, **results)
        print("resume ok", flush=True)


def backup(phase, directory, out, kind="arrays"):
    """fit with BackupAndRestore (a backup after every batch, by the chief); phase 1 stops in
    the middle of epoch 3, phase 2 (any number of ranks) resumes there and ends epoch 4;
    phase 0 trains straight through (the reference). On arrays or a shuffled ks.data.Dataset."""
    x, y = _data()
    data = {"x": x, "y": y, "batch_size": 10}
    if kind == "dataset":
        dataset = ks.data.Dataset.from_tensor_slices((x, y)).shuffle(40, seed=3).batch(10)
        data = {"x": dataset}
    ks.random.set_seed(5)
    model = _model("adam")
    model.compile(_optimizer("adam"), "mse")

    class Stop(ks.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.epoch = epoch

        def on_train_batch_end(self, batch, logs=None):
            if phase == "1" and self.epoch == 2 and batch == 1:
                self.model.stop_training = True

    callbacks = [ks.callbacks.BackupAndRestore(directory, save_freq=1, delete_checkpoint=False),
                 Stop()]
    model.fit(**data, epochs=4, verbose=0, callbacks=callbacks if phase != "0" else [])
    results = {f"adam_{i}": w for i, w in enumerate(model.get_weights())}
    check_same_on_all_ranks(results)
    if dist.is_chief():
        np.savez(out, **results)
        print("backup ok", flush=True)


PROGRAMS = {"fit": fit, "loop": loop, "loop_average_loss": loop_average_loss,
            "in_place": in_place, "sparse": sparse, "broadcast": broadcast, "files": files,
            "raise": raising, "exit": exiting, "hang": hanging, "kill": killed, "resume": resume,
            "backup": backup}

if __name__ == "__main__":
    dist.init()
    PROGRAMS[sys.argv[1]](*sys.argv[2:])
