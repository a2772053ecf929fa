"""Making the ranks agree: variables broadcast from one rank, metrics summed over all."""

from __future__ import annotations

from kerasish.callbacks import Callback
from kerasish.core import backend
from kerasish.distribute import communicator


def _grouped(variables) -> dict:
    """Variables by (dtype, device), in order, each once."""
    groups: dict = {}
    seen = set()
    for var in variables:
        if id(var) not in seen:
            seen.add(id(var))
            groups.setdefault((var.dtype.str, backend.device_of(var._value)), []).append(var)
    return groups


def _flat(group: list):
    xp = backend.array_module(group[0]._value)
    return xp.concatenate([var._value.reshape(-1) for var in group])


def _write_back(group: list, flat) -> None:
    offset = 0
    for var in group:
        count = var._value.size
        var._value[...] = flat[offset:offset + count].reshape(var._value.shape)
        var._version += 1
        offset += count


def broadcast_variables(variables, root: int = 0) -> None:
    """Overwrite every rank's `variables` with rank `root`'s values, in place.

    Call it after the variables exist (a model built, e.g. by calling it once)
    and before training, so that ranks seeded differently start identical.
    Every rank must pass the same variables (shapes, dtypes) in the same order.
    One collective per dtype and device. Running alone it does nothing.

    Args:
        variables: an iterable of `ks.Variable` (e.g. `model.variables +
            optimizer.variables`).
        root: the rank whose values everyone receives.

    Raises:
        ValueError: if `root` is not a rank of the job, or the ranks passed
            different variables (naming this rank's).

    Example:
        >>> import kerasish as ks
        >>> w = ks.Variable([1.0, 2.0])
        >>> ks.distribute.broadcast_variables([w])  # alone: unchanged
        >>> w.numpy()
        array([1., 2.], dtype=float32)
    """
    variables = list(variables)
    if communicator.size() == 1:
        return
    if not 0 <= root < communicator.size():
        raise ValueError(
            f"broadcast_variables: root must be a rank in [0, {communicator.size()}), got {root}"
        )
    signature = [(var.name, var.dtype.str, tuple(var.shape)) for var in variables]
    theirs = communicator.broadcast_object(signature, root, "comparing the variables to broadcast")
    if [entry[1:] for entry in theirs] != [entry[1:] for entry in signature]:
        mismatch = next((i, mine, other) for i, (mine, other) in enumerate(
            zip(signature + [None] * len(theirs), theirs + [None] * len(signature)))
            if mine is None or other is None or mine[1:] != other[1:])
        raise ValueError(
            f"broadcast_variables: rank {communicator.rank()} has {len(signature)} variables "
            f"and rank {root} has {len(theirs)}; they first differ at index {mismatch[0]}: "
            f"{mismatch[1]} here, {mismatch[2]} on rank {root} (name, dtype, shape)"
        )
    for group in _grouped(variables).values():
        flat = _flat(group)
        communicator.broadcast_array(flat, root, f"broadcasting {len(group)} variables")
        _write_back(group, flat)


def sync(metric):
    """Sum `metric`'s state over all ranks, in place, so its `result()` is the global one.

    Valid for metrics whose state adds up over examples: totals and counts
    (`Mean`, `Sum`, the accuracies, the losses as metrics, `MeanSquaredError`,
    ...) and confusion counts (`Precision`, `Recall`, `AUC`, IoU). Call it once,
    after the last `update_state` of a period (`fit` and `evaluate` do it at the
    end of each epoch and evaluation); calling it twice would count every
    other rank twice. Returns the metric. Running alone it does nothing.

    Args:
        metric: a metric whose state variables add up over examples.

    Returns:
        The same metric, now holding the sum over the ranks.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.Mean()
        >>> m.update_state([1.0, 3.0])
        >>> float(ks.distribute.sync(m).result())  # alone: its own result
        2.0
    """
    sync_all([metric])
    return metric


def sync_all(metrics) -> None:
    """`sync` several metrics with one collective per dtype and device."""
    if communicator.size() == 1:
        return
    variables = [var for metric in metrics for var in metric.variables]
    if not variables:
        return
    groups = list(_grouped(variables).values())
    flats = [_flat(group) for group in groups]
    communicator.sum_arrays(flats, "summing the metrics over the ranks")
    for group, flat in zip(groups, flats):
        _write_back(group, flat)


class BroadcastVariablesCallback(Callback):
    """Start every rank of `fit` from the same state as rank `root`.

    At the start of training it sends rank `root`'s resume position (set by a
    `BackupAndRestore` that only the chief runs), and at the first batch,
    once the model is built and the optimizer's slots exist (restored from a
    checkpoint, if one was read), the values of the model's and the
    optimizer's variables. `fit` adds it by itself under MPI.

    Args:
        root: the rank whose state everyone receives.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> callbacks = [ks.distribute.BroadcastVariablesCallback(root=0)]
        >>> history = model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0, callbacks=callbacks)
        >>> history.epoch  # alone, there is nothing to send
        [0]
    """

    def __init__(self, root: int = 0):
        super().__init__()
        self.root = root
        self._pending = True

    def on_train_begin(self, logs=None):
        self._pending = True
        if communicator.size() > 1:
            self.model._resume_at = communicator.broadcast_object(
                self.model._resume_at, self.root, "broadcasting where training resumes")

    def on_train_batch_begin(self, batch, logs=None):
        if not self._pending:
            return
        self._pending = False
        model = self.model
        optimizer = model.optimizer
        if model.built and optimizer is not None:
            optimizer.build(model.trainable_variables)
        state = list(model.variables) + (list(optimizer.variables) if optimizer else [])
        broadcast_variables(state, self.root)

