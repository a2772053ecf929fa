"""TensorBoard summaries, written by tensorboardX's event writer.

    writer = ks.summary.create_file_writer("runs/exp")
    with writer.as_default():
        ks.summary.scalar("loss", 0.5, step=1)

`step=None` uses the global step (`ks.get_or_create_global_step()`). With no
default writer a summary returns False and warns once. Inside
`record_if(False)` (or between the steps chosen by
`record_summaries_every_n_global_steps`) a summary returns False before
touching its data, so disabled summaries cost almost nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import warnings
import weakref

import numpy as np
from tensorboardX import SummaryWriter

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor import Tensor

DEFAULT_HISTOGRAM_BINS = 30


class _State(threading.local):
    def __init__(self):
        self.writers = []  # default-writer stack; the last is used
        self.condition = True  # bool or callable deciding whether to record


_state = _State()
_warned_no_writer = False
_open_writers: "weakref.WeakSet[SummaryFileWriter]" = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    for writer in list(_open_writers):
        writer.close()


class SummaryFileWriter:
    """An event-file writer for one log directory (wraps tensorboardX.SummaryWriter)."""

    def __init__(self, logdir, max_queue: int = 10, flush_millis: int = 120_000,
                 filename_suffix: str = "", purge_step=None):
        self.logdir = os.fspath(logdir)
        self._writer = SummaryWriter(
            logdir=self.logdir, max_queue=max_queue, flush_secs=max(1, int(flush_millis / 1000)),
            filename_suffix=filename_suffix, purge_step=purge_step,
        )
        self.closed = False
        _open_writers.add(self)

    @contextlib.contextmanager
    def as_default(self):
        """Make this the writer that `ks.summary.*` calls use inside the block."""
        _state.writers.append(self)
        try:
            yield self
        finally:
            _state.writers.remove(self)
            self.flush()

    def set_as_default(self) -> None:
        """Make this the default writer from now on (the seeds' style)."""
        _state.writers[:] = [self]

    def flush(self) -> None:
        if not self.closed:
            self._writer.flush()

    def close(self) -> None:
        if not self.closed:
            self._writer.close()
            self.closed = True
        if self in _state.writers:
            _state.writers.remove(self)

    @property
    def writer(self) -> SummaryWriter:
        """The underlying tensorboardX writer, for anything this module does not wrap."""
        return self._writer


def create_file_writer(logdir, max_queue: int = 10, flush_millis: int = 120_000,
                       filename_suffix: str = "", purge_step=None) -> SummaryFileWriter:
    """A writer for `logdir`. Pass `purge_step=S` when resuming from a checkpoint at step S:
    TensorBoard then hides events an interrupted run wrote at steps >= S."""
    return SummaryFileWriter(logdir, max_queue, flush_millis, filename_suffix, purge_step)


def get_default_writer():
    return _state.writers[-1] if _state.writers else None


# ---------------------------------------------------------------- recording conditions


def should_record() -> bool:
    condition = _state.condition
    return bool(condition() if callable(condition) else condition)


@contextlib.contextmanager
def record_if(condition):
    """Record summaries inside the block only when `condition` (a bool or callable) is true."""
    saved = _state.condition
    _state.condition = condition
    try:
        yield
    finally:
        _state.condition = saved


def always_record_summaries():
    return record_if(True)


def never_record_summaries():
    return record_if(False)


def record_summaries_every_n_global_steps(n: int, global_step=None):
    """Record only when the global step is a multiple of `n` (the seeds' TF1 API)."""
    if global_step is None:
        from kerasish.optimizers import get_or_create_global_step

        global_step = get_or_create_global_step()
    return record_if(lambda: int(global_step) % int(n) == 0)


# ---------------------------------------------------------------- summaries


def _target(step):
    """(writer, step) if this summary should be written now, else None."""
    global _warned_no_writer
    writer = get_default_writer()
    if writer is None:
        if not _warned_no_writer:
            _warned_no_writer = True
            warnings.warn(
                "ks.summary: no default writer, so nothing is recorded; create one with "
                "ks.summary.create_file_writer(logdir) and use `with writer.as_default():`",
                stacklevel=3,
            )
        return None
    if not should_record():
        return None
    if step is None:
        from kerasish.optimizers import get_or_create_global_step

        step = get_or_create_global_step()
    return writer, int(step)


def _host(value):
    return np.asarray(value.numpy() if isinstance(value, Tensor) else value)


def scalar(name: str, data, step=None, description=None) -> bool:
    """Write a scalar; returns whether it was written."""
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    value = _host(data)
    if value.size != 1:
        raise InvalidArgumentError(f"summary.scalar {name!r}: needs one value, got shape {value.shape}")
    writer._writer.add_scalar(name, float(value.reshape(())), step)
    return True


def histogram(name: str, data, step=None, buckets: int | None = None) -> bool:
    """Write a histogram of `data` with `buckets` (default 30) equal-width bins."""
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    values = _host(data).astype(np.float64).ravel()
    writer._writer.add_histogram(name, values, step, bins=buckets or DEFAULT_HISTOGRAM_BINS)
    return True


def image(name: str, data, step=None, max_outputs: int = 3) -> bool:
    """Write up to `max_outputs` images of an NHWC batch (floats in [0, 1] or uint8)."""
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    images = _host(data)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise InvalidArgumentError(
            f"summary.image {name!r}: expects an NHWC batch with 1, 3 or 4 channels, "
            f"got shape {images.shape}"
        )
    images = images[:max_outputs]
    if images.dtype != np.uint8:
        images = np.clip(images, 0.0, 1.0).astype(np.float32)
    writer._writer.add_images(name, images, step, dataformats="NHWC")
    return True


def text(name: str, data, step=None) -> bool:
    """Write a text summary (Markdown is rendered by TensorBoard)."""
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    value = data.numpy() if isinstance(data, Tensor) else data
    if isinstance(value, bytes):
        value = value.decode()
    writer._writer.add_text(name, str(value), step)
    return True


def embedding(matrix, metadata=None, metadata_header=None, tag: str = "default", step=None,
              label_img=None) -> bool:
    """Write an embedding for the TensorBoard projector.

    `metadata` is one label per row, or one list of columns per row together
    with `metadata_header` (the column names).
    """
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    mat = _host(matrix).astype(np.float32)
    if mat.ndim != 2:
        raise InvalidArgumentError(f"summary.embedding {tag!r}: needs a 2-D matrix, got {mat.shape}")
    if metadata is not None and len(metadata) != mat.shape[0]:
        raise InvalidArgumentError(
            f"summary.embedding {tag!r}: {len(metadata)} metadata rows for {mat.shape[0]} vectors"
        )
    writer._writer.add_embedding(mat, metadata=metadata, label_img=label_img, global_step=step,
                                 tag=tag, metadata_header=metadata_header)
    return True
