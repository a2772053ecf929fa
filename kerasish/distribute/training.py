"""`fit` and `evaluate` in an MPI job: the same call, trained as one model over all ranks.

When the job has more than one rank, `fit`:

- keeps the global batch size: each batch of the data (`batch_size` examples
  of the arrays, or a batch of the dataset) is split across the ranks, rank r
  taking the r-th of N contiguous parts. When N does not divide the batch,
  the first `batch % N` ranks take one example more, and each rank's gradient
  is weighted by its number of examples, so the step is still the gradient of
  the whole batch. A batch with fewer examples than ranks (a small last batch)
  is skipped, with a warning;
- shuffles arrays the same way on every rank (from rank 0's random stream);
  a `ks.data.Dataset` must yield the same batches on every rank (shuffle it
  with a seed), or be given to each rank already sharded and batched by the
  per-rank size in a custom loop (`dataset.shard(size(), rank())`);
- averages the gradients over the ranks (`DistributedOptimizer`), and starts
  every rank from rank 0's model and optimizer state (`BroadcastVariablesCallback`);
- sums the metrics over the ranks at the end of each epoch and evaluation,
  so the logs, `History` and the callbacks see global figures on every rank;
- prints progress, writes TensorBoard and CSV logs, and saves checkpoints and
  backups on the chief (rank 0) only; the other ranks receive a restored
  backup's state from it.

`evaluate` splits its batches and sums its metrics the same way; `predict`
runs on every rank over all the data.
"""

from __future__ import annotations

import warnings

import numpy as np

from kerasish import callbacks as callbacks_module
from kerasish.core import nest, random
from kerasish.core.ops import reduction_ops
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.distribute import communicator, state
from kerasish.distribute.optimizer import DistributedOptimizer
from kerasish.models import data_adapter, training_hooks
from kerasish.models.model import Model

# callbacks that print or write files: the chief runs them, the other ranks leave them out
CHIEF_ONLY_CALLBACKS = (
    callbacks_module.ProgbarLogger,
    callbacks_module.TensorBoard,
    callbacks_module.CSVLogger,
    callbacks_module.ModelCheckpoint,
    callbacks_module.BackupAndRestore,
)
_END = object()


def active() -> bool:
    """Whether this process is one of several in an MPI job (joining it on first use)."""
    return communicator.size() > 1


def prepare_fit(model, data, validation, callbacks, verbose: int):
    """`fit`'s data, validation data, callbacks and verbosity for this rank.

    Unchanged when running alone.
    """
    if not active():
        return data, validation, callbacks, verbose
    if model.optimizer.gradient_exchange is None:
        DistributedOptimizer(model.optimizer)
        # steps compiled before (train_on_batch, say) did not scale their loss for the
        # exchange (`Optimizer.scale_loss`): traced again, they do
        model._step_functions = {}
    data = ShardedBatches(data, model)
    if validation is not None:
        validation = ShardedBatches(validation)
    callbacks = list(callbacks or [])
    if not communicator.is_chief():
        callbacks = [c for c in callbacks if not isinstance(c, CHIEF_ONLY_CALLBACKS)]
        verbose = 0
    callbacks.append(state.BroadcastVariablesCallback())
    return data, validation, callbacks, verbose


def prepare_evaluation(data):
    """`evaluate`'s batches for this rank: its share of each (unchanged when running alone)."""
    return ShardedBatches(data) if active() else data


def sync_metrics(metrics) -> None:
    """Sum the metrics over the ranks (nothing when running alone)."""
    if active():
        state.sync_all(metrics)


class DistributedHooks(training_hooks.TrainingHooks):
    """`fit` and `evaluate` in an MPI job: this module's `prepare_fit`, `prepare_evaluation`
    and `sync_metrics` (each unchanged when running alone)."""

    def prepare_fit(self, model, data, validation, callbacks, verbose: int):
        return prepare_fit(model, data, validation, callbacks, verbose)

    def prepare_evaluation(self, data):
        return prepare_evaluation(data)

    def sync_metrics(self, metrics) -> None:
        sync_metrics(metrics)


def shard_bounds(batch: int, rank: int, size: int) -> tuple[int, int]:
    """[start, stop) of rank `rank`'s contiguous part of a batch of `batch` examples.

    Example:
        >>> [shard_bounds(10, r, 3) for r in range(3)]
        [(0, 4), (4, 7), (7, 10)]
    """
    base, extra = divmod(batch, size)
    start = rank * base + min(rank, extra)
    return start, start + base + (rank < extra)


def shard_batch(*arrays):
    """This rank's contiguous part of each array of a global batch, for custom loops.

    Rank r of N takes the r-th of N parts (the first `len % N` parts one example
    longer); None stays None. One array in, one out; several in, a tuple out.
    For an exact average over parts of different sizes, either make the loss each rank's
    share with `compute_average_loss` and sum the gradients (`op="sum"`: no pass over
    them), or set the optimizer's `gradient_exchange.local_weight` to the part's length
    (and `total_weight` to the global batch's, which spares a pass over the gradients after
    the allreduce). Alone, the arrays are returned as they are.

    Args:
        *arrays: arrays (or None) with the global batch on their first axis.

    Returns:
        This rank's slice of the one array, or a tuple with one slice per array.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> x, y = ks.distribute.shard_batch(np.arange(6), np.arange(6) * 10)
        >>> x.tolist(), y.tolist()  # alone: everything
        ([0, 1, 2, 3, 4, 5], [0, 10, 20, 30, 40, 50])
    """
    length = next((len(a) for a in arrays if a is not None), 0)
    start, stop = shard_bounds(length, communicator.rank(), communicator.size())
    parts = tuple(None if a is None else a[start:stop] for a in arrays)
    return parts[0] if len(parts) == 1 else parts


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """This rank's share of the global batch's mean loss: its examples' losses summed,
    divided by the examples of all ranks (TF's `tf.nn.compute_average_loss`).

    Summed over the ranks, these shares are the mean loss of the global batch, and so
    are their gradients: with `DistributedOptimizer(optimizer, op="sum")` the exchange
    adds the gradients as they are, with no pass over them to weight them (uneven
    shards are exact too). Alone, it is the mean of `per_example_loss`.

    The arguments come in TF's order.

    Args:
        per_example_loss: the loss of each of this rank's examples (first axis: the
            examples; any further axes are summed too, as TF does).
        sample_weight: optional weights multiplied into the losses first (a scalar, or one
            per example).
        global_batch_size: the examples of all ranks in this step (default: this rank's
            count times `size()`, right when every rank has as many).

    Returns:
        A scalar tensor: sum(per_example_loss * sample_weight) / global_batch_size.

    Raises:
        ValueError: if `global_batch_size` is not a positive number, or it is left out
            for a scalar `per_example_loss`.

    Example:
        >>> import kerasish as ks
        >>> float(ks.distribute.compute_average_loss(ks.constant([1.0, 2.0, 3.0]),
        ...                                          global_batch_size=6))
        1.0

        In a custom loop (`per_rank` examples per rank, `batch` in all)::

            optimizer = ks.distribute.DistributedOptimizer(ks.optimizers.Adam(), op="sum")
            with ks.GradientTape() as tape:
                per_example = ks.losses.sparse_categorical_crossentropy(y, model(x))
                loss = ks.distribute.compute_average_loss(per_example,
                                                          global_batch_size=batch)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
    """
    loss = convert_to_tensor(per_example_loss)
    if sample_weight is not None:
        loss = loss * sample_weight
    if global_batch_size is None:
        if len(loss.shape) == 0:
            raise ValueError("compute_average_loss: per_example_loss is a scalar; give "
                             "global_batch_size (the examples of all ranks)")
        global_batch_size = loss.shape[0] * communicator.size()
    if not float(global_batch_size) > 0:
        raise ValueError(f"compute_average_loss: global_batch_size must be > 0, got "
                         f"{global_batch_size!r}")
    return reduction_ops.reduce_sum(loss) / float(global_batch_size)


def _slice(structure, start: int, stop: int):
    if structure is None:
        return None
    return nest.pack_sequence_as(
        structure, [Tensor(leaf._value[start:stop]) for leaf in nest.flatten(structure)]
    )


class ShardedBatches(data_adapter.IterableBatches):
    """This rank's part of every batch of `data` (`fit`'s or `evaluate`'s batches).

    Args:
        data: the batches of all ranks (`ArrayBatches` or `IterableBatches`).
        model: for training: the model, built at the first batch if needed, whose
            optimizer's exchange gets each batch's number of local examples.
    """

    def __init__(self, data, model=None):
        # `source` is what the user gave (a Dataset: fit finds its shuffles' pass counters
        # there, for BackupAndRestore); the batches are drawn from `data`
        super().__init__(data.source if isinstance(data, data_adapter.IterableBatches) else data)
        self.batches = data
        self.model = model
        self._warned_small = False

    @property
    def steps(self):
        return data_adapter.num_steps(self.batches)

    def _start(self):
        """The source's iterator and first batch, drawn from rank 0's random stream.

        Arrays are shuffled when their iteration starts, so every rank then
        takes the same order; the other ranks keep their own stream otherwise
        (their dropout differs from rank 0's).
        """
        seed_state = np.array(random.get_global_generator().state.numpy(), np.uint64)
        communicator.broadcast_array(seed_state, 0, "sharing the shuffling order")
        if communicator.is_chief():
            iterator = iter(self.batches)
            return iterator, next(iterator, _END)
        own = random.get_global_generator()
        twin = random.Generator()
        twin.state.assign(seed_state)
        random.set_global_generator(twin)
        try:
            iterator = iter(self.batches)
            return iterator, next(iterator, _END)
        finally:
            random.set_global_generator(own)

    def __iter__(self):
        rank, size = communicator.rank(), communicator.size()
        iterator, item = self._start()
        try:
            while item is not _END:
                x, y, w = item
                batch = int(nest.flatten(x)[0].shape[0])
                if batch < size:
                    self._warn_small(batch, size)
                else:
                    start, stop = shard_bounds(batch, rank, size)
                    local = tuple(_slice(part, start, stop) for part in (x, y, w))
                    if self.model is None:
                        yield local
                    else:
                        yield from self._training_batch(local, stop - start, batch)
                item = next(iterator, _END)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()  # a prefetching dataset's thread stops with this pass

    def _training_batch(self, local, examples: int, global_examples: int):
        model = self.model
        if not model.built:  # built now, to receive rank 0's values before the first step
            if model._resume_at is not None:
                model._build_before_resuming(local[0])  # without moving the random stream
            else:
                model(local[0], training=False)  # drawing from it, as a first step would
        exchange = model.optimizer.gradient_exchange
        # Model's own train_step scales its loss by this rank's share (as Keras 3 does under
        # a distribution strategy): the gradients are summed as they are; an overridden
        # step may not, so its gradients are weighted in the exchange
        exchange.set_batch(examples, float(global_examples),
                           scales_losses=type(model).train_step is Model.train_step)
        try:
            yield local
        finally:
            exchange.set_batch(1.0, None)

    def _warn_small(self, batch: int, size: int) -> None:
        if not self._warned_small:
            self._warned_small = True
            warnings.warn(
                f"ks.distribute: a batch of {batch} examples is smaller than the {size} ranks, "
                "so it was skipped (every rank needs at least one example); choose a batch size "
                "that leaves a last batch of at least one example per rank",
                UserWarning,
                stacklevel=2,
            )
