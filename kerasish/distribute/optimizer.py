"""Averaging gradients across ranks before an optimizer applies them.

`DistributedOptimizer(optimizer)` gives the optimizer a `GradientExchange`,
which its `apply_gradients` calls on the gradients after they are prepared
(on the variables' device and dtype, sparse rows de-duplicated) and before
clipping, so clipping and the update rule see the global gradient.

Dense gradients are packed into flat buckets of up to `bucket_bytes`, one in-place
allreduce per bucket, except the large ones (from `handover.HAND_OVER_MIN_BYTES`, 256
KiB): each is a call of its own, and when the tape handed it over
(`GradientTape.gradient` marks the large gradients it made that nothing else holds,
and a compiled step the ones its program made and reads no more;
`kerasish.distribute.handover`) it is reduced where it lies, with no copy:
the caller's gradient then holds the global one, as PyTorch DDP leaves it in
`.grad`. Everything else is copied and never changed: arrays the user made, a custom
gradient's, a compiled step's that it still reads. The copies are all made before
anything is overwritten, so one array given twice, or a view of a handed-over one,
is read unchanged. The calls are started together and waited for at once
(`communicator.sum_arrays`), so splitting 1 MB in two costs nothing. (Measured on 2
ranks, the MLP's 1 MB: copying 1 MB costs 0.1 ms, a third of the `Allreduce`; an MPI
`Allreduce` from the gradients into the buckets, not in place, copies inside MPI and
cost as much; a third call, started with the others, cost less than copying the 256
KiB kernel. BENCHMARKS.md.)
Bucket size: 4 MiB, by measurement: on one machine an `Allreduce` reaches full
bandwidth from 256 KiB, and the bucket size made no consistent difference to the
MLP's 1 MB of gradients (64 KiB to 4 MiB buckets, two runs on a loaded machine,
BENCHMARKS.md); across machines a 4 MiB call
keeps a ~50 µs network latency under 2% of its time at 10 Gb/s. Sparse gradients
(`ks.IndexedSlices`, from `Embedding` or word2vec's lookups) are exchanged as
rows: one small allgather of every rank's row counts, then one allgather of
the bytes of all their rows and indices; repeated rows are summed, so no
vocabulary-sized array is made, unless the gathered rows reach
`sparse_as_dense_above` (0.5) times the rows of the variable: there one dense
allreduce is faster (a 50,000 x 128 embedding on 2 ranks, 6 runs on a loaded
machine: gathered 13-65 ms against dense 38-56 ms at 0.3 of the rows, 58-139 ms
against 29-56 ms at 0.96; they cross near one half; see BENCHMARKS.md). The
exchange runs after the backward pass, not overlapped with it: the tape hands
over all gradients at once, and what an overlap could hide is small. In the
MLP the gradients ready first (25% of the bytes) could be reduced during the
last backward op (0.2-0.3 ms of a 3-8 ms step); done by a second thread on 2
ranks of 2 cores, that cost 0.13-0.26 ms more than one after the other.

Each rank's gradient counts with weight `local_weight` (1 by default, so the
result is the plain mean; `fit` sets it to the rank's number of examples in the
batch, so uneven shards still give the gradient of the whole global batch).
With `total_weight` known too (`fit` sets it), each rank scales its gradients by
its share (while copying them, or in place) and the sum is the average; without
it, the weight travels in the first bucket (no extra collective) and the sum is
divided by the total after. Neither pass is needed with `op="sum"` and a loss
that is already each rank's share (`ks.distribute.compute_average_loss`, as TF
and Keras 3 scale the loss rather than the gradients): the custom loops' fast
path. `fit` does the same with `Model.train_step`: for each batch it sets the
rank's share (`set_batch`), the step multiplies the loss it differentiates by it
(`Optimizer.scale_loss`, Keras 3's name; the share is a variable, so a compiled
step reads each batch's), and the exchange sums. A step of the model's own, which
may not call `scale_loss`, has its gradients weighted instead.
"""

from __future__ import annotations

import time
import zlib

import numpy as np

from kerasish.core import backend
from kerasish.core.ops import math_ops
from kerasish.core.tensor import Variable
from kerasish.distribute import communicator, handover
from kerasish.optimizers.optimizer import Optimizer, SparseGrad

DEFAULT_BUCKET_BYTES = 4 << 20
DEFAULT_SPARSE_AS_DENSE_ABOVE = 0.5


class _Bucket:
    """Gradients reduced in one call: their positions in the call, and their places in the
    flat buffer (offset, size, shape). A gradient of `HAND_OVER_MIN_BYTES` or more has a
    bucket of its own (`alone`), reduced in place when the tape handed it over; the buffer
    is made on first use (for a gradient alone: the first time one was not handed over)."""

    def __init__(self, dtype, device, entries: list, extra: int, alone: bool = False):
        self.positions = [i for i, _, _, _ in entries]
        self.places = [(offset, count, shape) for _, offset, count, shape in entries]
        self.alone = alone
        self.dtype, self.device = dtype, device
        self.size = sum(count for _, count, _ in self.places) + extra
        self.buffer = None
        self.views = None  # per gradient, its part of the buffer in its shape

    def parts(self) -> list:
        if self.buffer is None:
            with backend.device(backend.device_name(self.device)):
                xp = np if self.device[0] == "cpu" else backend.cupy
                self.buffer = xp.empty(self.size, dtype=self.dtype)
            self.views = [self.buffer[offset:offset + count].reshape(shape)
                          for offset, count, shape in self.places]
        return self.views


class GradientExchange:
    """Sums the ranks' weighted gradients and divides by the sum of the weights.

    Args:
        bucket_bytes: the most bytes of dense gradients reduced in one call
            (a larger gradient gets a bucket of its own).
        sparse_as_dense_above: exchange a sparse gradient densely when the rows
            of all ranks together are at least this many times the variable's rows.
        op: "mean" (the weighted average), or "sum" (the plain sum, for a loss
            summed over the examples rather than averaged).

    Attributes:
        local_weight: this rank's weight in the average (`fit` sets it to the
            rank's examples per batch).
        total_weight: the sum of every rank's `local_weight` where each rank knows it
            (`fit` sets the global batch's examples), else None. Known, each rank scales
            its gradients while copying them (or in place) and the allreduce's sum is the
            average: no pass over the gradients after it (and no weight travels).
        scales_losses: set by `fit` (`set_batch`) while `Model.train_step` scales its loss
            by the rank's share (`scale_loss`): the gradients are then summed as they are.
        takes_handed_over: whether large handed-over gradients are reduced in place (in a
            job of several ranks).
        seconds, bytes, calls: time spent exchanging, bytes this rank sent
            (as reduced or gathered), and exchanges made (for benchmarks).

    Raises:
        ValueError: for an `op` other than "mean" and "sum", or `bucket_bytes` <= 0.

    Example:
        >>> import kerasish as ks
        >>> opt = ks.distribute.DistributedOptimizer(ks.optimizers.SGD(0.1), op="sum")
        >>> exchange = opt.gradient_exchange
        >>> type(exchange).__name__, exchange.op, exchange.local_weight
        ('GradientExchange', 'sum', 1.0)
    """

    def __init__(self, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                 sparse_as_dense_above: float = DEFAULT_SPARSE_AS_DENSE_ABOVE, op: str = "mean"):
        if op not in ("mean", "sum"):
            raise ValueError(f"DistributedOptimizer: op must be 'mean' or 'sum', got {op!r}")
        if int(bucket_bytes) <= 0:
            raise ValueError(f"DistributedOptimizer: bucket_bytes must be > 0, got {bucket_bytes}")
        self.bucket_bytes = int(bucket_bytes)
        self.sparse_as_dense_above = float(sparse_as_dense_above)
        self.op = op
        self.local_weight = 1.0
        self.total_weight = None
        self.scales_losses = False
        self._share = None  # this rank's share of the batch, a variable compiled steps read
        self._plans: dict = {}
        # several ranks: gradients are combined (an optimizer that would apply a sparse
        # gradient's repeated rows one by one sums them first, see SGD)
        self.combines_ranks = communicator.size() > 1
        # large gradients handed over (by the tape, or a compiled step) are reduced in place
        self.takes_handed_over = self.combines_ranks
        if self.takes_handed_over:
            handover.start()
        self.seconds, self.bytes, self.calls = 0.0, 0, 0

    def set_batch(self, local_weight: float, total_weight: float | None,
                  scales_losses: bool = False) -> None:
        """This step's weights (`fit` calls it per batch): with `scales_losses`, the step
        scales its loss by the rank's share (`scale_loss`) and the gradients are summed.

        Args:
            local_weight: this rank's examples in the batch.
            total_weight: all ranks' examples in the batch, or None (unknown).
            scales_losses: whether the step scales its loss (`Model.train_step` does).

        Example:
            >>> import kerasish as ks
            >>> exchange = ks.distribute.GradientExchange()
            >>> exchange.set_batch(3, 8, scales_losses=True)
            >>> exchange.local_weight, exchange.total_weight, exchange.scales_losses
            (3.0, 8, True)
        """
        self.local_weight, self.total_weight = float(local_weight), total_weight
        self.scales_losses = bool(scales_losses and self.op == "mean" and total_weight)
        if self._share is not None:
            self._share.assign(self._share_value())

    def _share_value(self) -> float:
        return self.local_weight / float(self.total_weight) if self.scales_losses else 1.0

    def scale_loss(self, loss):
        """`loss` times this rank's share of the batch (local / total weight) while `fit`
        asks for it (`scales_losses`), else times 1: the sum over the ranks of the scaled
        losses' gradients is the gradient of the global batch, with no pass over them.
        (The factor is a variable, read live by compiled steps: a step traced in `fit`
        and replayed outside it, or the other way round, scales by what applies now.)
        With `op="sum"`, `loss` itself.

        Args:
            loss: the step's loss, a scalar tensor.

        Returns:
            The loss to differentiate.

        Example:
            >>> import kerasish as ks
            >>> exchange = ks.distribute.GradientExchange()
            >>> exchange.set_batch(3, 8, scales_losses=True)
            >>> float(exchange.scale_loss(ks.constant(2.0)))
            0.75
        """
        if self.op != "mean":
            return loss
        if self._share is None:  # (made in the first trace of a compiled step: allowed)
            self._share = Variable(self._share_value(), trainable=False,
                                   name="ks_distribute_loss_share")
        return loss * math_ops.cast(self._share, loss.dtype)

    def __call__(self, prepared: list) -> list:
        """(gradient, variable) pairs with each rank's gradients replaced by their average.

        A large gradient the tape handed over is reduced in place (and returned); the
        other inputs are left as they are.
        """
        if communicator.size() == 1:
            return prepared
        start = time.perf_counter()
        dense, sparse = [], []
        for i, (grad, _) in enumerate(prepared):
            (sparse if grad.__class__ is SparseGrad else dense).append(i)
        result = list(prepared)
        if dense:
            self._exchange_dense(prepared, dense, result)
        if sparse:
            self._exchange_sparse(prepared, sparse, result)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return result

    # -- dense: flat buckets, and large gradients on their own ------------------------------
    def _plan(self, prepared: list, dense: list) -> list:
        """The buckets for these gradients, cached by a key that costs a few µs to make:
        each gradient's dtype, shape and (for a GPU array) device."""
        key = []
        for i in dense:
            grad = prepared[i][0]
            key.append((i, grad.dtype, grad.shape) if grad.__class__ is np.ndarray else
                       (i, grad.dtype, grad.shape, backend.device_of(grad)))
        key = tuple(key)
        plan = self._plans.get(key)
        if plan is None:
            layout = [(i, prepared[i][0].dtype, backend.device_of(prepared[i][0]),
                       tuple(prepared[i][0].shape)) for i in dense]
            _check_same_layout(layout, [prepared[i][1].name for i in dense])
            plan = self._plans[key] = self._make_buckets(layout)
        return plan

    def _make_buckets(self, layout) -> list:
        """Large gradients alone, the others packed up to `bucket_bytes`; for "mean", the
        first packed bucket has one element more, for the weight (a bucket of its own if
        none): the calls are the same on every rank, whether its weights are known or not."""
        travels = self.op == "mean"
        groups: dict = {}
        alone = []
        for i, dtype, device, shape in layout:
            count = int(np.prod(shape, dtype=np.int64))
            if count * dtype.itemsize >= handover.HAND_OVER_MIN_BYTES:
                alone.append(_Bucket(dtype, device, [(i, 0, count, shape)], 0, alone=True))
            else:
                groups.setdefault((dtype, device), []).append((i, count, shape))
        packed = []
        for (dtype, device), members in groups.items():
            entries, offset = [], 0
            for i, count, shape in members:
                if entries and (offset + count) * dtype.itemsize > self.bucket_bytes:
                    packed.append(_Bucket(dtype, device, entries, travels and not packed))
                    entries, offset = [], 0
                entries.append((i, offset, count, shape))
                offset += count
            packed.append(_Bucket(dtype, device, entries, travels and not packed))
        if travels and not packed:
            dtype, device = layout[0][1], layout[0][2]
            packed.append(_Bucket(dtype, device, [], 1))
        return packed + alone

    def _exchange_dense(self, prepared, dense, result) -> None:
        if self.op == "sum" or self.scales_losses:  # (scaled losses: each rank's share)
            scale, travels = 1.0, False
        elif self.total_weight is not None:  # scaled before the sum: the sum is the average
            scale, travels = self.local_weight / float(self.total_weight), False
        else:  # the weight travels in the first packed bucket; the sum is divided by the total
            scale, travels = float(self.local_weight), True
        buckets = self._plan(prepared, dense)
        # every copy first, then what is overwritten: an input read by a copy (the same
        # array given twice, or a view of a handed-over one) is read before it changes
        reduced, owned = [], []
        for bucket in buckets:
            if bucket.alone:
                i = bucket.positions[0]
                grad = prepared[i][0]
                if handover.take_handed_over(grad):
                    owned.append(grad)
                    reduced.append(grad)
                    result[i] = prepared[i]
                    continue
            for i, view in zip(bucket.positions, bucket.parts()):
                if scale == 1.0:
                    view[...] = prepared[i][0]
                else:
                    np.multiply(prepared[i][0], scale, out=view)  # (CuPy's for CuPy arrays)
                result[i] = (view, prepared[i][1])
            reduced.append(bucket.buffer)
        if self.op == "mean":  # (read back only when the total was not known)
            buckets[0].buffer[-1] = scale
        if scale != 1.0:
            for grad in owned:
                grad *= scale
        communicator.sum_arrays(reduced, "the allreduce of the dense gradients")
        total = float(buckets[0].buffer[-1]) if travels else 1.0
        for array in reduced:
            if total != 1.0:
                array *= 1.0 / total
            self.bytes += array.nbytes

    # -- sparse: rows gathered, or densified when that moves fewer bytes ------------------
    def _exchange_sparse(self, prepared, sparse, result) -> None:
        # every rank's weight and number of rows per sparse gradient, in one small call
        local = [self.local_weight] + [prepared[i][0].indices.shape[0] for i in sparse]
        table = communicator.allgather(np.asarray(local, np.float64),
                                       "gathering the sparse gradients' row counts")
        counts = table[:, 1:].astype(np.int64)
        summed = self.op == "sum" or self.scales_losses
        weights = np.ones(len(table)) if summed else table[:, 0]
        scales = weights if summed else weights / weights.sum()
        gathered = []
        for column, i in enumerate(sparse):
            grad, var = prepared[i]
            if int(counts[:, column].sum()) >= self.sparse_as_dense_above * var.shape[0]:
                result[i] = (self._densified(grad, var, scales[communicator.rank()]), var)
            else:
                gathered.append((column, i))
        if gathered:
            self._gather_rows(prepared, gathered, counts, scales, result)

    def _densified(self, grad: SparseGrad, var, scale: float) -> SparseGrad:
        """One dense allreduce, and one of a mask of the rows any rank touched: the result is
        still sparse, so the update stays lazy (untouched rows keep their slots)."""
        values, indices = grad.values, grad.indices
        xp = backend.array_module(values)
        dense = xp.zeros(var.shape, dtype=values.dtype)
        dense[indices] = values * scale
        touched = xp.zeros(var.shape[0], dtype=np.int32)
        touched[indices] = 1
        communicator.sum_arrays([dense, touched], f"the allreduce of the gradient of '{var.name}'")
        self.bytes += dense.nbytes + touched.nbytes
        rows = xp.flatnonzero(touched)
        return SparseGrad(dense.take(rows, axis=0), rows)

    def _gather_rows(self, prepared, gathered, counts, scales, result) -> None:
        """Every rank's rows and indices of these sparse gradients, in one allgather of bytes;
        the rows of all ranks, scaled by their weights, then summed where they repeat."""
        row_bytes, pieces = [], []
        for _, i in gathered:
            grad, var = prepared[i]
            row_bytes.append(8 + int(np.prod(var.shape[1:], dtype=np.int64)) * var.dtype.itemsize)
            pieces.append(backend.to_numpy(grad.indices).astype(np.int64).view(np.uint8))
            pieces.append(np.ascontiguousarray(backend.to_numpy(grad.values)).view(np.uint8)
                          .reshape(-1))
        payload = np.concatenate(pieces)
        columns = [column for column, _ in gathered]
        sizes = counts[:, columns] @ np.asarray(row_bytes, np.int64)
        received = communicator.allgather_rows(payload, sizes,
                                               "the allgather of the sparse gradients")
        self.bytes += payload.nbytes
        parts = {i: ([], []) for _, i in gathered}
        offset = 0
        for rank, scale in enumerate(scales):
            for column, i in gathered:
                var = prepared[i][1]
                rows = int(counts[rank, column])
                indices = np.frombuffer(received, np.int64, rows, offset)
                offset += 8 * rows
                values = np.frombuffer(received, var.dtype, rows * int(np.prod(var.shape[1:])),
                                       offset).reshape((rows,) + tuple(var.shape[1:]))
                offset += values.nbytes
                parts[i][0].append(indices)
                parts[i][1].append(values * values.dtype.type(scale))
        for _, i in gathered:
            var = prepared[i][1]
            where = backend.device_of(prepared[i][0].values)
            indices, values = np.concatenate(parts[i][0]), np.concatenate(parts[i][1])
            if where[0] != "cpu":
                indices = backend.to_device(indices, where)
                values = backend.to_device(values, where)
            unique, summed = backend.unique_sum_rows(indices, values, backend.RowGroups(indices))
            result[i] = (SparseGrad(summed, unique), var)


def _check_same_layout(layout, names: list) -> None:
    """All ranks must reduce the same gradients in the same order: compare a fingerprint."""
    fingerprint = zlib.crc32(repr([(i, str(dtype), device, shape)
                                   for i, dtype, device, shape in layout]).encode())
    extremes = communicator.allreduce(np.array([fingerprint, -fingerprint], np.int64),
                                      "comparing the gradients of the ranks", op="max")
    if extremes[0] != -extremes[1]:
        raise ValueError(
            f"ks.distribute: rank {communicator.rank()} has different gradients than another "
            f"rank: every rank must apply gradients for the same variables, in the same order, "
            f"with the same shapes and dtypes (this rank: {len(names)} dense gradients, for "
            f"{names[:8]}{' ...' if len(names) > 8 else ''})"
        )


def DistributedOptimizer(optimizer: Optimizer,  # noqa: N802 - Horovod's and ChainerMN's name
                         bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                         sparse_as_dense_above: float = DEFAULT_SPARSE_AS_DENSE_ABOVE,
                         op: str = "mean") -> Optimizer:
    """Make `optimizer` average the gradients of all ranks before applying them.

    The optimizer itself is returned, changed in place: its class, state,
    checkpoints and configuration stay the same, so a model saved by a
    distributed run loads in a single process and the other way round.
    Running alone, it behaves exactly as before. `fit` does this by itself
    when the job has more than one rank.

    The large gradients that `GradientTape.gradient` handed over (those it made and
    nothing else holds) are reduced in place: after `apply_gradients`, those gradient
    tensors hold the global gradient, as PyTorch DDP's `.grad` does; other gradients
    are copied and left unchanged.

    Args:
        optimizer: a `ks.optimizers.Optimizer`.
        bucket_bytes: the most bytes of dense gradients reduced in one call.
        sparse_as_dense_above: reduce a sparse gradient densely when all ranks'
            rows together reach this many times the variable's rows.
        op: "mean" averages the gradients (weighted by `local_weight`, see
            `GradientExchange`); "sum" adds them, for a loss that is each rank's share
            of the global mean (`ks.distribute.compute_average_loss`: no pass over the
            gradients to weight them) or a loss summed over examples.

    Returns:
        `optimizer`, now exchanging gradients (`optimizer.gradient_exchange`).

    Raises:
        TypeError: if `optimizer` is not a kerasish optimizer.
        ValueError: for an `op` other than "mean" and "sum", or `bucket_bytes` <= 0.

    Example:
        >>> import kerasish as ks
        >>> opt = ks.distribute.DistributedOptimizer(ks.optimizers.SGD(0.1))
        >>> w = ks.Variable([1.0])
        >>> _ = opt.apply_gradients([(ks.constant([2.0]), w)])  # alone: the gradient itself
        >>> w.numpy()
        array([0.8], dtype=float32)
    """
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"DistributedOptimizer: expected a ks.optimizers.Optimizer, got "
            f"{type(optimizer).__name__}"
        )
    optimizer.gradient_exchange = GradientExchange(bucket_bytes, sparse_as_dense_above, op)
    return optimizer
