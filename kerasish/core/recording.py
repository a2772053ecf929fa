"""What records this thread's ops: the active GradientTapes and the ks.function tracer.

With nothing recording, an op checks one thread-local tuple and does nothing else.
Recorders are reported each op they see (`recorder._record(prim, inputs, output,
attrs)`, called by `primitive.apply`) and each tensor that leaves for NumPy
(`recorder._note_escape(tensor)`, through `note_escape`). This module sits below
the ops and `GradientTape` (core/tape.py), so that tensors and primitives can ask
who records without importing either.
"""

from __future__ import annotations

import contextlib
import threading


class _State(threading.local):
    tapes: tuple = ()  # the recorders of this thread, innermost last
    # the ks.function tracer recording this thread's ops, or None; while it traces it is
    # also the first entry of `tapes`, so `primitive.apply` reports ops to it unchanged
    tracer = None


# Read through the functions below; only `primitive.apply`, run for every op, reads
# `_state.tapes` itself.
_state = _State()


def is_recording() -> bool:
    """Whether anything records this thread's ops: a GradientTape or a ks.function tracer."""
    return bool(_state.tapes)


def current_tracer():
    """The ks.function tracer recording this thread's ops, or None.

    Code with effects a compiled program must repeat on every call (printing, summaries,
    random draws, variable and optimizer updates) asks this and, while tracing, records
    the effect with the tracer instead of running it once.
    """
    return _state.tracer


def active_tapes() -> tuple:
    """The GradientTapes recording in this thread (not a ks.function tracer)."""
    tracer = _state.tracer
    if tracer is None:
        return _state.tapes
    return tuple(t for t in _state.tapes if t is not tracer)


def start(tape) -> None:
    """Make `tape` record this thread's ops, innermost (a GradientTape entering)."""
    _state.tapes = _state.tapes + (tape,)


def stop(tape) -> None:
    """Stop `tape` recording this thread's ops (a GradientTape leaving)."""
    tapes = _state.tapes
    if tapes and tapes[-1] is tape:
        _state.tapes = tapes[:-1]
    else:
        _state.tapes = tuple(t for t in tapes if t is not tape)


@contextlib.contextmanager
def paused(tapes_to_keep: tuple = ()):
    """Run a block with only `tapes_to_keep` recording (a ks.function tracer keeps recording)."""
    saved = _state.tapes
    tracer = _state.tracer
    if tracer is not None and tracer not in tapes_to_keep:
        tapes_to_keep = (tracer, *tapes_to_keep)
    _state.tapes = tapes_to_keep
    try:
        yield
    finally:
        _state.tapes = saved


@contextlib.contextmanager
def tracing(tracer):
    """Run a block with `tracer` recording this thread's ops, and nothing else (ks.function
    traces a Python function in it; a tape around the call sees the compiled call)."""
    saved = _state.tapes, _state.tracer
    _state.tapes, _state.tracer = (tracer,), tracer
    try:
        yield
    finally:
        _state.tapes, _state.tracer = saved


def note_escape(tensor) -> None:
    """Tell the recorders that `tensor` left for NumPy (`.numpy()`, `float()`, `np.asarray`).

    A tape remembers it if watched (for `explain`); a ks.function tracer records a
    guard on the value instead.
    """
    tracer = _state.tracer
    for tape in _state.tapes:
        if tape is tracer:
            tracer.guard(tensor)
        else:
            tape._note_escape(tensor)
