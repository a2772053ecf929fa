"""Whether `Model.build` is running the model on a probe batch to create its weights.

Layers whose state arrives after their weights exist (an adapted Normalization, whose
statistics are read from a file after the probe; a lookup layer whose vocabulary is kept
in a file's assets) let the probe through instead of refusing to run without that state.
"""

from __future__ import annotations

import contextlib
import threading


class _Depth(threading.local):
    value = 0  # > 0 while a probe runs, in this thread


_depth = _Depth()


@contextlib.contextmanager
def running():
    """Within it, `active()` is True (in this thread)."""
    _depth.value += 1
    try:
        yield
    finally:
        _depth.value -= 1


def active() -> bool:
    """Whether a model's build probe is running in this thread."""
    return _depth.value > 0
