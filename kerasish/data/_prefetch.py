"""The background thread behind `Dataset.prefetch`.

A producer thread runs the input pipeline and puts elements into a bounded
queue; the consumer takes them out. So the next elements are being prepared
while the training step runs (NumPy and CuPy release the GIL in their
kernels, and I/O or sleeping generators overlap fully).

Lifetime rules:
- an exception raised while producing is re-raised in the consumer, as the
  same exception object with its original traceback;
- the thread stops when the input is exhausted, when the consumer closes the
  iterator (a `break` out of a for loop drops it), or when the iterator is
  garbage-collected: stopping sets an event, empties the queue so a blocked
  `put` returns, and joins the thread (at most `JOIN_TIMEOUT` seconds, in case
  the input is stuck inside user code);
- the thread is a daemon, so a stuck input never blocks interpreter exit.
The thread never holds a reference to the iterator object itself, otherwise
garbage collection could not find the iterator unreachable.
"""

from __future__ import annotations

import queue
import threading
import weakref

from kerasish.core import backend

JOIN_TIMEOUT = 2.0
_POLL = 0.05  # seconds between checks of the stop event while the queue is full

_ITEM, _END, _ERROR = 0, 1, 2


def close_iterator(iterator) -> None:
    """Close a pipeline iterator that supports it (generators, prefetch iterators)."""
    close = getattr(iterator, "close", None)
    if close is not None:
        close()


def _produce(make_source, items: queue.Queue, stop: threading.Event, device) -> None:
    def put(entry) -> bool:
        while not stop.is_set():
            try:
                items.put(entry, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    try:
        with backend._device_scope(*device):
            source = make_source()
            try:
                for element in source:
                    if not put((_ITEM, element)):
                        return
            finally:
                close_iterator(source)
        put((_END, None))
    except BaseException as exc:  # noqa: BLE001 - delivered to the consumer, not swallowed
        put((_ERROR, exc))


def _shutdown(items: queue.Queue, stop: threading.Event, thread: threading.Thread) -> None:
    stop.set()
    try:
        while True:
            items.get_nowait()
    except queue.Empty:
        pass
    if thread is not threading.current_thread() and thread.is_alive():
        thread.join(JOIN_TIMEOUT)


class PrefetchIterator:
    """Iterator over `make_source()`'s elements, produced up to `buffer_size` ahead."""

    def __init__(self, make_source, buffer_size: int, device=None):
        device = backend.current_device() if device is None else device
        self._items = queue.Queue(maxsize=buffer_size)
        stop = threading.Event()
        self._thread = threading.Thread(
            target=_produce,
            args=(make_source, self._items, stop, device),
            name="kerasish-data-prefetch",
            daemon=True,
        )
        self._done = False
        self._finalizer = weakref.finalize(self, _shutdown, self._items, stop, self._thread)
        self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        while True:
            try:
                kind, value = self._items.get(timeout=_POLL)
                break
            except queue.Empty:
                if not self._thread.is_alive() and self._items.empty():
                    self.close()
                    raise RuntimeError(
                        "prefetch: the producer thread ended without a result; "
                        "this is a kerasish bug, please report it"
                    ) from None
        if kind == _ITEM:
            return value
        self.close()
        if kind == _END:
            raise StopIteration
        raise value  # the producer's exception, with its original traceback

    def close(self) -> None:
        """Stop the producer thread (idempotent)."""
        self._done = True
        self._finalizer()

    @property
    def thread(self) -> threading.Thread:
        return self._thread
