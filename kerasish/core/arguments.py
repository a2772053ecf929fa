"""Checking the arguments of public calls: misuse is refused at the call, in one way.

Layer and optimizer constructors and `fit`/`evaluate`/`predict` check their counts,
sizes, rates and hyperparameters with these functions, so `Dense(3.5)`,
`fit(batch_size=0)` or `Adam(learning_rate='0.001')` is an `InvalidArgumentError`
naming the call, the argument, what was given and what is allowed, instead of being
rounded, ignored, or failing deep inside.

- An integer is a Python or NumPy integer (`np.int64(3)`, as shapes and `argmax` give
  them). Floats are refused even when whole, as Keras 3 refuses `Dense(3.0)` (the
  message says which integer to pass); so are bools and strings.
- A number is an int, a float or a NumPy real scalar, finite; not a bool or a string.
"""

from __future__ import annotations

import math
import reprlib

import numpy as np

from kerasish.core.errors import InvalidArgumentError

_INTEGERS = (int, np.integer)
_NUMBERS = (int, float, np.integer, np.floating)


def _given(value, whole_hint: bool = False) -> str:
    """A refused value as the message shows it: its repr and type, with the obvious fix."""
    kind = type(value).__name__
    text = f"{reprlib.repr(value)} ({'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    if isinstance(value, str):
        try:
            float(value)
            text += f"; write {value.strip()} without quotes"
        except ValueError:
            pass
    elif whole_hint and isinstance(value, (float, np.floating)) and float(value).is_integer():
        text += f"; pass {int(value)}"
    return text + ")"


def _refuse(where: str, name: str, allowed: str, value, whole_hint: bool = False):
    raise InvalidArgumentError(f"{where}: {name} must be {allowed}, got "
                               f"{_given(value, whole_hint)}")


def integer(value, name: str, where: str, minimum: int = 1, none: bool = False):
    """`value` as an int at least `minimum` (None passes through when `none`).

    Args:
        value: what the caller passed.
        name: the argument's name, e.g. "units".
        where: the call, e.g. "Dense" or "fit".
        minimum: the smallest value allowed.
        none: whether None is allowed (and returned).

    Raises:
        InvalidArgumentError: for anything else, saying what is allowed.

    Example:
        >>> import numpy as np
        >>> integer(np.int64(3), "units", "Dense")
        3
        >>> try:
        ...     integer(3.5, "units", "Dense")
        ... except ValueError as error:
        ...     print(error)
        Dense: units must be a positive integer, got 3.5 (a float)
    """
    if value is None and none:
        return None
    if isinstance(value, _INTEGERS) and not isinstance(value, bool) and value >= minimum:
        return int(value)
    allowed = {1: "a positive integer", 0: "a non-negative integer"}.get(
        minimum, f"an integer >= {minimum}")
    _refuse(where, name, allowed + (" or None" if none else ""), value, whole_hint=True)


def integers(value, name: str, where: str, rank: int, minimum: int = 1) -> tuple:
    """`value` (one integer for every axis, or `rank` of them) as a tuple of `rank` ints.

    Example:
        >>> integers(3, "kernel_size", "Conv2D", 2)
        (3, 3)
        >>> try:
        ...     integers((3, 0), "kernel_size", "Conv2D", 2)
        ... except ValueError as error:
        ...     print(error)
        Conv2D: kernel_size must be a positive integer or 2 of them, got (3, 0) (a tuple)
    """
    values = (value,) * rank if isinstance(value, _INTEGERS) else value
    if (isinstance(values, (tuple, list)) and len(values) == rank
            and all(isinstance(v, _INTEGERS) and not isinstance(v, bool) and v >= minimum
                    for v in values)):
        return tuple(int(v) for v in values)
    allowed = {1: "a positive integer", 0: "a non-negative integer"}.get(
        minimum, f"an integer >= {minimum}")
    _refuse(where, name, f"{allowed} or {rank} of them", value, whole_hint=True)


def number(value, name: str, where: str, low=None, high=None, low_open: bool = False,
           high_open: bool = False, none: bool = False, other: str = ""):
    """`value` as a float within [low, high] (an open end excludes its bound; None: no bound).

    `other` names what else the caller accepts (checked by the caller before), for the message.

    Example:
        >>> number(0.5, "rate", "Dropout", 0, 1, high_open=True)
        0.5
        >>> try:
        ...     number("0.5", "rate", "Dropout", 0, 1, high_open=True)
        ... except ValueError as error:
        ...     print(error)
        Dropout: rate must be a number in [0, 1), got '0.5' (a str; write 0.5 without quotes)
    """
    if value is None and none:
        return None
    if isinstance(value, _NUMBERS) and not isinstance(value, bool) and math.isfinite(value):
        inside = ((low is None or (value > low if low_open else value >= low))
                  and (high is None or (value < high if high_open else value <= high)))
        if inside:
            return float(value)
    if low is not None and high is not None:
        span = f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    elif low is not None:
        span = f" {'>' if low_open else '>='} {low}"
    elif high is not None:
        span = f" {'<' if high_open else '<='} {high}"
    else:
        span = ""
    allowed = " or ".join([f"a number{span}"] + [o for o in (other, none and "None") if o])
    _refuse(where, name, allowed, value)
