"""`ks.print`: print tensor values when the line runs (TF's `tf.print`).

It is one function on purpose: a later compiled mode (`ks.function`) records
it as a side effect to replay at run time, which needs a single entry point.
"""

from __future__ import annotations

import sys

import numpy as np

from kerasish.core import backend
from kerasish.core.function.effects import RUN_NOW, record_host_call
from kerasish.core.recording import current_tracer
from kerasish.core.tensor import Tensor


def _format(value, summarize: int) -> str:
    if isinstance(value, Tensor):
        host = np.asarray(backend.to_numpy(value._value))
        if host.ndim == 0:
            return str(host[()])
        options = {"threshold": sys.maxsize} if summarize < 0 else {
            "threshold": 2 * summarize, "edgeitems": summarize}
        return np.array2string(host, **options)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_format(item, summarize) for item in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(
            f"{key!r}: {_format(item, summarize)}" for key, item in value.items()) + "}"
    return str(value)


def print(*inputs, output_stream=None, summarize: int = 3, sep: str = " ",  # noqa: A001
          end: str = "\n", name=None) -> None:
    """Print tensors (their values, not their reprs) and other values, like `tf.print`.

    Args:
        *inputs: tensors, Python values, and lists/tuples/dicts of them.
        output_stream: a file-like object (default: `sys.stderr`, as in TF), or
            "file://<path>" to append to a file.
        summarize: elements shown at each end of every axis before "..." is
            used; -1 prints everything.
        sep, end: as for the built-in `print`.
        name: accepted for TF compatibility; unused.

    Raises:
        ValueError: if `output_stream` is a string other than "file://<path>".

    Example:
        >>> import sys
        >>> import kerasish as ks
        >>> ks.print("loss:", ks.constant(0.25), ks.range(10), output_stream=sys.stdout)
        loss: 0.25 [0 1 2 ... 7 8 9]
    """
    if current_tracer() is not None:  # under ks.function: print on every call
        recorded = record_host_call(print, *inputs, output_stream=output_stream,
                                    summarize=summarize, sep=sep, end=end)
        if recorded is not RUN_NOW:
            return recorded
    del name
    text = sep.join(_format(value, summarize) for value in inputs) + end
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(
                f"ks.print: output_stream must be a file-like object or 'file://<path>', "
                f"got {output_stream!r}"
            )
        with open(output_stream[len("file://"):], "a", encoding="utf-8") as handle:
            handle.write(text)
        return
    stream = sys.stderr if output_stream is None else output_stream
    stream.write(text)
    stream.flush()
