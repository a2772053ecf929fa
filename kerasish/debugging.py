"""`ks.debugging`: run-time assertions on tensor values, in `tf.debugging` spelling.

Each assertion returns None when it holds and raises `ks.InvalidArgumentError`
when it does not, with a message that names the assertion, how many elements
failed, the index of the first one and the values there. Values are compared
on the host (an assertion is a synchronisation point, as in TF).
`check_numerics` returns its input unchanged, so it can sit inside an
expression without cutting the gradient.

Example:
    >>> import kerasish as ks
    >>> ks.debugging.assert_near(ks.constant([1.0, 2.0]), [1.0, 2.0 + 1e-7])
    >>> ks.debugging.assert_less(ks.constant([1, 5]), 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kerasish.core.errors.InvalidArgumentError: assert_less: x < y fails at 1 of 2 elements; ...
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor import Tensor, convert_to_tensor

__all__ = [
    "assert_equal", "assert_greater", "assert_greater_equal", "assert_less",
    "assert_less_equal", "assert_near", "check_numerics",
]


def _host(value) -> np.ndarray:
    return np.asarray(backend.to_numpy(convert_to_tensor(value)._value))


def _broadcast(op_name: str, x, y) -> tuple:
    a, b = _host(x), _host(y)
    try:
        return np.broadcast_arrays(a, b)
    except ValueError:
        raise InvalidArgumentError(
            f"{op_name}: x has shape {a.shape} and y has shape {b.shape}, which do not broadcast"
        ) from None


def _fail(op_name: str, what: str, holds: np.ndarray, a, b, message, extra: str = "") -> None:
    """Raise if `holds` is False anywhere, naming the first failing index and its values."""
    if holds.all():
        return
    failing = np.argwhere(~holds)
    first = tuple(int(i) for i in failing[0])
    prefix = f"{message}: " if message else ""
    raise InvalidArgumentError(
        f"{prefix}{op_name}: {what} fails at {len(failing)} of {holds.size} elements; "
        f"first at index {first}: x = {a[first]!s}, y = {b[first]!s}{extra}"
    )


def _comparison(op_name: str, symbol: str, holding: tuple, compare):
    def check(x, y, message: str | None = None, summarize=None, name=None) -> None:
        del summarize, name  # TF's arguments; the message shows the first failure
        a, b = _broadcast(op_name, x, y)
        _fail(op_name, f"x {symbol} y", np.asarray(compare(a, b)), a, b, message)

    check.__name__ = check.__qualname__ = op_name
    check.__doc__ = f"""Raise unless `x {symbol} y` holds everywhere (after broadcasting).

    Args:
        x, y: tensors, arrays or Python values of broadcastable shapes.
        message: text put in front of the error message.
        summarize, name: accepted for TF compatibility; unused.

    Raises:
        InvalidArgumentError: naming how many elements fail, the first index and
            the values of x and y there; or if the shapes do not broadcast.

    Example:
        >>> import kerasish as ks
        >>> ks.debugging.{op_name}(ks.constant({holding[0]}), {holding[1]})  # holds: no error
    """
    return check


# each with an (x, y) for which it holds, for its example
assert_equal = _comparison("assert_equal", "==", ([1, 2], [1, 2]), np.equal)
assert_less = _comparison("assert_less", "<", ([1, 2], [2, 3]), np.less)
assert_less_equal = _comparison("assert_less_equal", "<=", ([1, 2], 2), np.less_equal)
assert_greater = _comparison("assert_greater", ">", ([2, 3], [1, 2]), np.greater)
assert_greater_equal = _comparison("assert_greater_equal", ">=", ([2, 3], 2), np.greater_equal)


def assert_near(x, y, rtol=None, atol=None, message: str | None = None, summarize=None,
                name=None) -> None:
    """Raise unless `|x - y| <= atol + rtol * |y|` everywhere (after broadcasting).

    Args:
        x, y: tensors, arrays or Python values of broadcastable shapes.
        rtol, atol: tolerances; default 10 * the machine epsilon of x's dtype
            (as in TF), or 1e-6 for integer inputs.
        message: text put in front of the error message.
        summarize, name: accepted for TF compatibility; unused.

    Raises:
        InvalidArgumentError: naming how many elements are too far apart, the
            first index, both values and the tolerance; or if the shapes do not
            broadcast.

    Example:
        >>> import kerasish as ks
        >>> ks.debugging.assert_near([1.0, 2.0], [1.0, 2.1], atol=0.01)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kerasish.core.errors.InvalidArgumentError: assert_near: ... at index (1,): x = 2.0, ...
    """
    del summarize, name
    a, b = _broadcast("assert_near", x, y)
    kind = np.result_type(a.dtype, b.dtype)
    default = 10 * float(np.finfo(kind).eps) if kind.kind == "f" else 1e-6
    atol = default if atol is None else float(atol)
    rtol = default if rtol is None else float(rtol)
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    holds = np.abs(wide_a - wide_b) <= atol + rtol * np.abs(wide_b)
    _fail("assert_near", "|x - y| <= atol + rtol * |y|", holds, a, b, message,
          f" (atol={atol:g}, rtol={rtol:g})")


def check_numerics(tensor, message: str, name=None) -> Tensor:
    """Return `tensor` unchanged if it holds no NaN or infinity, else raise.

    Args:
        tensor: a floating-point tensor (or array).
        message: says where the check is (it starts the error message).
        name: accepted for TF compatibility; unused.

    Returns:
        The same tensor (gradients flow through it as before).

    Raises:
        InvalidArgumentError: naming how many values are NaN and how many are
            infinite, and the index of the first.

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant([1.0, float("inf"), float("nan")])
        >>> ks.debugging.check_numerics(x, "after layer 3")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kerasish.core.errors.InvalidArgumentError: after layer 3: ... first at index (1,) = inf
    """
    del name
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.kind not in "fc":
        return tensor
    values = _host(tensor)
    finite = np.isfinite(values)
    if finite.all():
        return tensor
    first = tuple(int(i) for i in np.argwhere(~finite)[0])
    nans = int(np.isnan(values).sum())
    raise InvalidArgumentError(
        f"{message}: check_numerics found {nans} NaN and {values.size - int(finite.sum()) - nans} "
        f"infinite of {values.size} values; first at index {first} = {values[first]!s}"
    )
