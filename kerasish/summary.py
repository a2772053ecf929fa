"""TensorBoard summaries, written by tensorboardX's event writer.

    writer = ks.summary.create_file_writer("runs/exp")
    with writer.as_default():
        ks.summary.scalar("loss", 0.5, step=1)

`step=None` uses the default step: the one given to `writer.as_default(step=...)`
or `ks.summary.experimental.set_step`, else the global step
(`ks.get_or_create_global_step()`). A step may be a variable (e.g. an
optimizer's `iterations`); it is read when each summary is written. With no
default writer a summary returns False and warns once. Inside
`record_if(False)` (or between the steps chosen by
`record_summaries_every_n_global_steps`) a summary returns False before
touching its data, so disabled summaries cost almost nothing.

Events are tensorboardX's protos, written to one file per writer as TFRecords
(tensorboardX's CRC), synchronously, so `flush()` really puts them in the
file (tensorboardX's own SummaryWriter queues them to a thread and its flush
does not wait for it) and no fsync is paid per flush, only at `close()`.
Images are encoded to PNG here (zlib, no imaging library needed); embeddings
for the projector are written as TSV files plus `projector_config.pbtxt` in
the log directory, under `<step:05d>/<tag>/` as tensorboardX lays them out.
tensorboardX is imported when the first writer is created, not with kerasish
(it imports PyTorch when that is installed, which costs about a second).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import itertools
import math
import os
import re
import socket
import struct
import threading
import time
import types
import warnings
import weakref
import zlib

import numpy as np

from kerasish import checkpoint
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.function.effects import host_effect
from kerasish.core.global_step import get_or_create_global_step
from kerasish.core.tensor import Tensor

DEFAULT_HISTOGRAM_BINS = 30


class _State(threading.local):
    def __init__(self):
        self.writers = []  # default-writer stack; the last is used
        self.condition = True  # bool or callable deciding whether to record
        self.step = None  # the default step (an int or a variable), or None


_state = _State()
_warned_no_writer = False
_open_writers: "weakref.WeakSet[SummaryFileWriter]" = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    for writer in list(_open_writers):
        writer.close()


_file_numbers = itertools.count()


def _event_file_name(suffix: str) -> str:
    """A name no other writer uses, ordered by creation time as TensorBoard reads them."""
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname())
    return (f"events.out.tfevents.{int(time.time()):010d}.{host}.{os.getpid()}."
            f"{next(_file_numbers):04d}{suffix}")


class SummaryFileWriter:
    """An event file in `logdir`, written with tensorboardX's record writer and event protos.

    Events are written synchronously (no queue, no thread) and flushed to the
    file every `max_queue` events, when `flush_millis` have passed since the
    last flush (checked as events are written), on `flush()`, `close()`,
    at the end of each `fit` epoch, and at interpreter exit. Every writer
    gets a file of its own, even several in one directory within a second.
    Make one with `ks.summary.create_file_writer`, which takes the same arguments.

    Args:
        logdir: the directory of the event file (created if needed).
        max_queue: events written between two flushes to the file, at most.
        flush_millis: the longest time between flushes (checked as events are written).
        filename_suffix: appended to the event file's name.
        purge_step: TensorBoard hides the events an earlier run wrote at steps
            >= this one (for a resumed run).

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=0):
        ...     ks.summary.scalar("loss", 1.0)
        True
        >>> writer.close()
    """

    def __init__(self, logdir, max_queue: int = 10, flush_millis: int = 120_000,
                 filename_suffix: str = "", purge_step=None):
        from tensorboardX.proto.event_pb2 import Event, SessionLog
        from tensorboardX.proto.summary_pb2 import Summary
        from tensorboardX.record_writer import masked_crc32c

        self._Event, self._Summary, self._crc = Event, Summary, masked_crc32c
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        self.path = os.path.join(self.logdir, _event_file_name(filename_suffix))
        self._file = open(self.path, "xb")  # never another writer's file
        self._lock = threading.Lock()
        self._max_queue = max(1, int(max_queue))
        self._flush_seconds = max(0.0, flush_millis / 1000)
        self._pending = 0
        self._next_flush = time.monotonic() + self._flush_seconds
        self.closed = False
        self._write(Event(wall_time=time.time(), file_version="brain.Event:2"))
        if purge_step is not None:
            # TensorBoard drops the events at steps >= purge_step written before this one
            self._write(Event(wall_time=time.time(), step=int(purge_step),
                              session_log=SessionLog(status=SessionLog.START)))
        self.flush()
        _open_writers.add(self)

    def _write(self, event) -> None:
        data = event.SerializeToString()
        with self._lock:
            if self.closed:
                raise ValueError(f"summary writer for {self.logdir!r} is closed")
            # a TFRecord: length, its masked CRC-32C, the event, the event's masked CRC-32C
            length = struct.pack("<Q", len(data))
            self._file.write(b"".join((length, struct.pack("<I", self._crc(length)), data,
                                       struct.pack("<I", self._crc(data)))))
            self._pending += 1
            if self._pending >= self._max_queue or time.monotonic() >= self._next_flush:
                self._flush_locked()

    def _flush_locked(self) -> None:
        self._file.flush()  # to the OS (tensorboardX's RecordWriter also fsyncs every time)
        self._pending = 0
        self._next_flush = time.monotonic() + self._flush_seconds

    def add_summary(self, summary, step: int) -> None:
        """Write a tensorboardX `Summary` proto at `step` (for summaries this module lacks).

        Args:
            summary: a `tensorboardX.proto.summary_pb2.Summary`.
            step: the step it is recorded at.

        Example:
            >>> import tempfile
            >>> import kerasish as ks
            >>> from tensorboardX.proto.summary_pb2 import Summary
            >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
            >>> proto = Summary(value=[Summary.Value(tag="accuracy", simple_value=0.9)])
            >>> writer.add_summary(proto, step=3)
            >>> writer.close()
        """
        self._write(self._Event(wall_time=time.time(), step=int(step), summary=summary))

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Make this the writer that `ks.summary.*` calls use inside the block.

        Args:
            step: if given, the default step inside the block (as
                `ks.summary.experimental.set_step(step)`; the previous default
                step is back after the block). A variable is read at each write.

        Example:
            >>> import tempfile
            >>> import kerasish as ks
            >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
            >>> with writer.as_default(step=7):
            ...     int(ks.summary.experimental.get_step()), ks.summary.scalar("loss", 0.25)
            (7, True)
        """
        _state.writers.append(self)
        saved_step = _state.step
        if step is not None:
            _state.step = step
        try:
            yield self
        finally:
            _state.step = saved_step
            # closed or replaced by set_as_default() inside the block: already off the stack
            if self in _state.writers:
                del _state.writers[len(_state.writers) - 1 - _state.writers[::-1].index(self)]
            self.flush()

    def set_as_default(self) -> None:
        """Make this the default writer from now on (TF1 eager's style)."""
        _state.writers[:] = [self]

    def flush(self) -> None:
        """Write everything recorded so far to the event file."""
        with self._lock:
            if not self.closed:
                self._flush_locked()

    def close(self) -> None:
        """Flush and close the file; the writer stops being a default writer."""
        with self._lock:
            if not self.closed:
                self._flush_locked()
                os.fsync(self._file.fileno())
                self._file.close()
                self.closed = True
        while self in _state.writers:
            _state.writers.remove(self)
        _open_writers.discard(self)


def create_file_writer(logdir, max_queue: int = 10, flush_millis: int = 120_000,
                       filename_suffix: str = "", purge_step=None) -> SummaryFileWriter:
    """A writer of a new event file in `logdir` (created if needed).

    Args:
        logdir: the directory; TensorBoard shows each directory as a run.
        max_queue: events written between two flushes to the file, at most.
        flush_millis: the longest time between flushes (checked as events are written).
        filename_suffix: appended to the event file's name.
        purge_step: when resuming from a checkpoint at step S, pass S: TensorBoard
            then hides the events an interrupted run wrote at steps >= S.

    Returns:
        A `SummaryFileWriter`; use it with `with writer.as_default():`.

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default():
        ...     ks.summary.scalar("accuracy", 0.9, step=3)
        True
        >>> writer.close()
    """
    return SummaryFileWriter(logdir, max_queue, flush_millis, filename_suffix, purge_step)


def get_default_writer():
    return _state.writers[-1] if _state.writers else None


def flush(writer=None) -> None:
    """Flush `writer`, or the default writer (nothing happens without one).

    Args:
        writer: a writer from `create_file_writer`, or None for the default one.

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=0):
        ...     _ = ks.summary.scalar("loss", 0.5)
        ...     ks.summary.flush()  # in the file now, for a TensorBoard reading it
    """
    writer = writer if writer is not None else get_default_writer()
    if writer is not None:
        writer.flush()


def set_step(step) -> None:
    """Make `step` the default step of summaries written without `step=` in this thread.

    TF's `tf.summary.experimental.set_step`.

    Args:
        step: an int, a variable (read at each write), or None to unset.

    Example:
        >>> import kerasish as ks
        >>> ks.summary.experimental.set_step(12)
        >>> int(ks.summary.experimental.get_step())
        12
        >>> ks.summary.experimental.set_step(None)
    """
    _state.step = step


def get_step():
    """The default step set by `set_step` or `writer.as_default(step=...)`, or None."""
    return _state.step


experimental = types.SimpleNamespace(set_step=set_step, get_step=get_step)
experimental.__doc__ = "TF's `tf.summary.experimental`: `set_step`, `get_step`."


# ---------------------------------------------------------------- recording conditions


def should_record() -> bool:
    condition = _state.condition
    return bool(condition() if callable(condition) else condition)


@contextlib.contextmanager
def record_if(condition):
    """Record summaries inside the block only when `condition` is true.

    Args:
        condition: a bool, or a callable returning one (asked at each write).

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=0), ks.summary.record_if(False):
        ...     ks.summary.scalar("loss", 0.5)
        False
    """
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
    """Record only when the global step is a multiple of `n` (TF1's `tf.contrib.summary` API).

    Args:
        n: the recording interval in steps.
        global_step: the step variable (default: `ks.get_or_create_global_step()`).

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> step = ks.Variable(3, dtype=ks.int64, trainable=False)
        >>> with writer.as_default(step=step), \\
        ...         ks.summary.record_summaries_every_n_global_steps(2, step):
        ...     ks.summary.scalar("loss", 0.5)
        False
    """
    if global_step is None:
        global_step = get_or_create_global_step()
    return record_if(lambda: int(global_step) % int(n) == 0)


# ---------------------------------------------------------------- summaries


def _target(step, stacklevel: int = 4):
    """(writer, step) if this summary should be written now, else None.

    `stacklevel` makes the no-writer warning name the caller's line: 4 from a
    `host_effect` function (its wrapper is one more frame), 3 from any other."""
    global _warned_no_writer
    writer = get_default_writer()
    if writer is None:
        if not _warned_no_writer:
            _warned_no_writer = True
            warnings.warn(
                "ks.summary: no default writer, so nothing is recorded; create one with "
                "ks.summary.create_file_writer(logdir) and use `with writer.as_default():`",
                stacklevel=stacklevel,
            )
        return None
    if not should_record():
        return None
    if step is None:
        step = _state.step
    if step is None:
        step = get_or_create_global_step()
    return writer, int(step)


def _host(value):
    return np.asarray(value.numpy() if isinstance(value, Tensor) else value)


@host_effect  # under ks.function: written on every call
def scalar(name: str, data, step=None, description=None) -> bool:
    """Write one number to the default writer.

    Args:
        name: the tag (the chart's title in TensorBoard).
        data: a Python number, or a tensor or array with one element.
        step: default: the default step (see the module docstring).
        description: optional Markdown shown with the chart.

    Returns:
        Whether it was written (False without a default writer or when
        recording is off; the data is then not even read).

    Raises:
        InvalidArgumentError: if `data` has more than one element.

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> with ks.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=1):
        ...     ks.summary.scalar("loss", ks.constant(0.25), description="training loss")
        True
    """
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    if isinstance(data, (float, int)):
        value = float(data)
    else:
        array = _host(data)
        if array.size != 1:
            raise InvalidArgumentError(
                f"summary.scalar {name!r}: needs one value, got shape {array.shape}"
            )
        value = float(array.reshape(()))
    Summary = writer._Summary
    entry = Summary.Value(tag=name, simple_value=value)
    if description:
        entry.metadata.summary_description = description
    writer.add_summary(Summary(value=[entry]), step)
    return True


@host_effect  # under ks.function: written on every call
def histogram(name: str, data, step=None, buckets: int | None = None) -> bool:
    """Write a histogram of `data` with `buckets` (default 30) equal-width bins.

    Args:
        name: the tag.
        data: a tensor or array of any shape (e.g. a weight variable).
        step: default: the default step (see the module docstring).
        buckets: the number of bins.

    Returns:
        Whether it was written.

    Raises:
        InvalidArgumentError: if `data` is empty or holds NaN or infinite values
            (saying how many).

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=3):
        ...     ks.summary.histogram("weights", ks.random.normal([100]), buckets=10)
        True
    """
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    from tensorboardX.summary import histogram as histogram_summary

    values = _host(data).astype(np.float64).ravel()
    if values.size == 0:
        raise InvalidArgumentError(f"summary.histogram {name!r}: the data is empty")
    finite = np.isfinite(values)
    if not finite.all():
        raise InvalidArgumentError(
            f"summary.histogram {name!r}: {values.size - int(finite.sum())} of {values.size} "
            "values are NaN or infinite"
        )
    writer.add_summary(histogram_summary(name, values, buckets or DEFAULT_HISTOGRAM_BINS), step)
    return True


def _to_uint8(images):
    """uint8 pixels: uint8 unchanged, floats clipped to [0, 1] and scaled to [0, 255]."""
    if images.dtype == np.uint8:
        return images
    return (np.clip(images.astype(np.float32), 0.0, 1.0) * 255.5).astype(np.uint8)


def encode_png(pixels) -> bytes:
    """PNG bytes of an HxWxC uint8 image (C = 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).

    Args:
        pixels: a uint8 NumPy array of shape (height, width, channels).

    Returns:
        The bytes of a PNG file (unfiltered rows, zlib-compressed).

    Example:
        >>> import numpy as np
        >>> from kerasish import summary
        >>> summary.encode_png(np.zeros((2, 2, 3), np.uint8))[:8]
        b'\\x89PNG\\r\\n\\x1a\\n'
    """
    height, width, channels = pixels.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = np.zeros((height, width * channels + 1), np.uint8)  # filter byte 0 per row
    rows[:, 1:] = pixels.reshape(height, width * channels)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


@host_effect  # under ks.function: written on every call
def image(name: str, data, step=None, max_outputs: int = 3, description=None) -> bool:
    """Write up to `max_outputs` images of an NHWC batch as one tag, as TF2 does.

    The batch is stored the way TF2's `tf.summary.image` stores it (a string
    tensor `[width, height, png_0, png_1, ...]` for TensorBoard's image
    plugin), so TensorBoard shows one card named `name` with a slider over the
    samples, not one card per image.

    Args:
        name: the tag.
        data: an NHWC batch with 1, 3 or 4 channels: uint8, or floats in [0, 1]
            (clipped).
        step: default: the default step (see the module docstring).
        max_outputs: how many images of the batch to write, from the first.
        description: optional Markdown shown with the card.

    Returns:
        Whether the images were written (False without a default writer or
        when recording is off).

    Raises:
        InvalidArgumentError: if `data` is not an NHWC batch with 1, 3 or 4 channels.

    Example:
        >>> import numpy as np
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> digits = np.zeros((5, 28, 28, 1), np.uint8)
        >>> with writer.as_default(step=0):
        ...     ks.summary.image("digits", digits, max_outputs=4)  # one card, four samples
        True
    """
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
    from tensorboardX.proto.summary_pb2 import SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
    from tensorboardX.proto.types_pb2 import DT_STRING

    images = _to_uint8(images[:max(0, int(max_outputs))])
    height, width = images.shape[1:3]
    strings = [str(width).encode(), str(height).encode()] + [encode_png(p) for p in images]
    tensor = TensorProto(dtype=DT_STRING, string_val=strings, tensor_shape=TensorShapeProto(
        dim=[TensorShapeProto.Dim(size=len(strings))]))
    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="images"),
        summary_description=description or "")
    Summary = writer._Summary
    writer.add_summary(Summary(value=[Summary.Value(tag=name, metadata=metadata, tensor=tensor)]),
                       step)
    return True


@host_effect  # under ks.function: written on every call
def text(name: str, data, step=None) -> bool:
    """Write a text summary; TensorBoard renders it as Markdown.

    Args:
        name: the tag.
        data: a str, bytes, or a scalar string tensor.
        step: default: the default step (see the module docstring).

    Returns:
        Whether it was written (False without a default writer or when recording is off).

    Example:
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=1):
        ...     ks.summary.text("notes", "learning rate **halved**")
        True
    """
    target = _target(step)
    if target is None:
        return False
    writer, step = target
    from tensorboardX.summary import text as text_summary

    value = data
    if not isinstance(value, (str, bytes)):
        array = _host(value)
        if array.ndim != 0:
            raise InvalidArgumentError(
                f"summary.text {name!r}: needs one string, got an array of shape {array.shape}"
            )
        value = array.item()
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    writer.add_summary(text_summary(name, str(value)), step)
    return True


_MAX_SPRITE_SIZE = 8192  # pixels per side, the projector's limit


def _tsv_field(value) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return re.sub(r"[\t\r\n]", " ", str(value))  # a tab or newline would shift the columns


def _metadata_lines(tag: str, metadata, header, rows: int) -> list:
    if len(metadata) != rows:
        raise InvalidArgumentError(
            f"summary.embedding {tag!r}: {len(metadata)} metadata rows for {rows} vectors"
        )
    multi = len(metadata) > 0 and isinstance(metadata[0], (list, tuple, np.ndarray))
    if not multi:
        if header is not None and len(header) > 1:
            raise InvalidArgumentError(
                f"summary.embedding {tag!r}: metadata_header names {len(header)} columns but "
                "the metadata has one label per row"
            )
        return [_tsv_field(label) for label in metadata]  # one column: no header row
    if header is None:
        raise InvalidArgumentError(
            f"summary.embedding {tag!r}: multi-column metadata needs metadata_header "
            "(the column names; TensorBoard reads the first row of such a file as the header)"
        )
    for i, row in enumerate(metadata):
        if len(row) != len(header):
            raise InvalidArgumentError(
                f"summary.embedding {tag!r}: metadata row {i} has {len(row)} columns but "
                f"metadata_header has {len(header)}"
            )
    return ["\t".join(_tsv_field(v) for v in row) for row in [list(header)] + list(metadata)]


def _sprite(tag: str, label_img, rows: int) -> tuple:
    """(PNG bytes, (width, height)) of the projector's sprite: NHWC thumbnails on a square grid."""
    images = _host(label_img)
    if images.ndim != 4 or images.shape[0] != rows or images.shape[-1] not in (1, 3, 4):
        raise InvalidArgumentError(
            f"summary.embedding {tag!r}: label_img must be an NHWC batch of {rows} images with "
            f"1, 3 or 4 channels, got shape {images.shape}"
        )
    images = _to_uint8(images)
    if images.shape[-1] == 1:
        images = np.repeat(images, 3, axis=-1)
    count, height, width, channels = images.shape
    per_row = math.ceil(math.sqrt(count))
    if per_row * max(height, width) > _MAX_SPRITE_SIZE:
        raise InvalidArgumentError(
            f"summary.embedding {tag!r}: a sprite of {count} images of {height}x{width} would be "
            f"{per_row * max(height, width)} pixels wide; TensorBoard shows at most "
            f"{_MAX_SPRITE_SIZE}, so use smaller thumbnails"
        )
    sheet = np.zeros((per_row * height, per_row * width, channels), np.uint8)
    for i, pixels in enumerate(images):
        r, c = divmod(i, per_row)
        sheet[r * height:(r + 1) * height, c * width:(c + 1) * width] = pixels
    return encode_png(sheet), (width, height)


def _write_file(path: str, data) -> None:
    def write(temporary):
        with open(temporary, "wb") as handle:
            handle.write(data)

    checkpoint.atomic_write(path, write)


def _update_projector_config(logdir: str, name: str, entry: str) -> None:
    """Add `entry` to projector_config.pbtxt, replacing an earlier one for the same tensor."""
    path = os.path.join(logdir, "projector_config.pbtxt")
    blocks = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            blocks = re.findall(r"^embeddings \{\n.*?^\}\n", handle.read(), re.M | re.S)
    marker = f'  tensor_name: "{name}"\n'
    blocks = [b for b in blocks if marker not in b] + [entry]
    _write_file(path, "".join(blocks).encode("utf-8"))


def embedding(matrix, metadata=None, metadata_header=None, tag: str = "default", step=None,
              label_img=None) -> bool:
    """Write an embedding for the TensorBoard projector.

    Args:
        matrix: N x D vectors (e.g. an Embedding layer's weights).
        metadata: one label per row (a one-column metadata.tsv, no header), or
            one list of column values per row together with `metadata_header`.
        metadata_header: the column names of multi-column metadata.
        tag: the tensor's name in the projector.
        step: default: the global step.
        label_img: optional NHWC thumbnails (square), one per row, for the sprite.

    Files: `<logdir>/<step:05d>/<tag>/tensors.tsv` (and `metadata.tsv`,
    `sprite.png`), listed in `<logdir>/projector_config.pbtxt` as
    `<tag>:<step:05d>`; writing the same tag and step again replaces them.

    Returns:
        Whether it was written (False without a default writer or when recording is off).

    Raises:
        InvalidArgumentError: if `matrix` is not 2-D, or the metadata or
            thumbnails do not match its rows.

    Example:
        >>> import numpy as np
        >>> import tempfile
        >>> import kerasish as ks
        >>> writer = ks.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=0):
        ...     ks.summary.embedding(np.eye(3), metadata=["a", "b", "c"], tag="words")
        True
    """
    target = _target(step, stacklevel=3)
    if target is None:
        return False
    writer, step = target
    mat = _host(matrix).astype(np.float32)
    if mat.ndim != 2:
        raise InvalidArgumentError(
            f"summary.embedding {tag!r}: needs a 2-D matrix, got shape {mat.shape}"
        )
    lines = None if metadata is None else _metadata_lines(tag, metadata, metadata_header, len(mat))
    sprite = None if label_img is None else _sprite(tag, label_img, len(mat))
    subdir = f"{step:05d}/{re.sub(r'[^A-Za-z0-9_.-]', '_', tag)}"
    directory = os.path.join(writer.logdir, subdir)
    os.makedirs(directory, exist_ok=True)
    name = f"{tag}:{step:05d}"
    entry = [f'  tensor_name: "{name}"', f'  tensor_shape: {mat.shape[0]}',
             f'  tensor_shape: {mat.shape[1]}', f'  tensor_path: "{subdir}/tensors.tsv"']
    buffer = io.StringIO()
    np.savetxt(buffer, mat, fmt="%.9g", delimiter="\t")  # float32 exactly
    _write_file(os.path.join(directory, "tensors.tsv"), buffer.getvalue().encode("utf-8"))
    if lines is not None:
        _write_file(os.path.join(directory, "metadata.tsv"),
                    ("\n".join(lines) + "\n").encode("utf-8"))
        entry.append(f'  metadata_path: "{subdir}/metadata.tsv"')
    if sprite is not None:
        png, (width, height) = sprite
        _write_file(os.path.join(directory, "sprite.png"), png)
        entry += ["  sprite {", f'    image_path: "{subdir}/sprite.png"',
                  f"    single_image_dim: {width}", f"    single_image_dim: {height}", "  }"]
    _update_projector_config(writer.logdir, name, "embeddings {\n" + "\n".join(entry) + "\n}\n")
    return True
