"""Large gradients handed over to the gradient exchange, to be reduced where they lie.

A backward pass knows which gradient arrays it made and holds nowhere else:
`GradientTape.gradient` its fresh gradients, a ks.function replay those its program
reads no more after the optimizer update. Once a `DistributedOptimizer` exchanges
gradients across ranks, `start()` has them hand the large ones over
(`kerasish.core.tape.set_gradient_taker`), and the exchange reduces each array it
takes in place, with no copy: the caller's gradient then holds the global one, as
PyTorch DDP leaves it in `.grad`.
"""

from __future__ import annotations

import weakref

from kerasish.core import tape as tape_module

# Gradients from this many bytes are handed over: a DistributedOptimizer reduces such an
# array in place, in a call of its own, instead of copying it into a bucket. By measurement
# (2 ranks on 2 shared cores, the MLP's freshly computed gradients, 3 runs): with the calls
# started together, a third call for the 256 KiB kernel cost less than copying it (1.12-1.14x
# against 1.19-1.21x a raw Allreduce of the same bytes; BENCHMARKS.md, issue 14).
HAND_OVER_MIN_BYTES = 256 << 10

_marked: dict = {}  # id(array) -> weak reference to the array, dropped when it dies


def start() -> None:
    """Have backward passes hand their large fresh gradients over from now on."""
    tape_module.set_gradient_taker(hand_over, HAND_OVER_MIN_BYTES)


def hand_over(array) -> None:
    """Mark `array`, a gradient its maker holds nowhere else, as the exchange's to overwrite.

    Args:
        array: a NumPy or CuPy array; the mark goes when the array dies.

    Example:
        >>> import numpy as np
        >>> from kerasish.distribute import handover
        >>> gradient = np.ones(3)
        >>> handover.hand_over(gradient)
        >>> handover.take_handed_over(gradient)
        True
    """
    key = id(array)
    _marked[key] = weakref.ref(array, lambda _, key=key: _marked.pop(key, None))


def take_handed_over(array) -> bool:
    """Whether `array` was handed over (and nothing took it since).

    Whoever takes a handed-over array may overwrite it, and its maker's caller then
    holds what was written. Taking it clears the mark, so an array is taken at most once.

    Args:
        array: a NumPy or CuPy array.

    Returns:
        True if the array was handed over and is now the taker's.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> from kerasish.distribute import handover
        >>> handover.start()
        >>> w = ks.Variable(np.ones((512, 256), np.float32))
        >>> with ks.GradientTape() as tape:
        ...     loss = ks.reduce_sum(w * w)
        >>> grad = tape.gradient(loss, w)
        >>> handover.take_handed_over(grad._value), handover.take_handed_over(grad._value)
        (True, False)
    """
    reference = _marked.pop(id(array), None)
    return reference is not None and reference() is array
