"""Process-wide settings of Keras 3's `keras.config` / `keras.backend`: the default float
dtype, the image layout, interactive logging and the loop caps.

They live in the core so that layers, initializers, losses and `fit` read them without
importing the public namespaces (`ks.config` and `ks.backend` re-export them).
"""

from __future__ import annotations

import numpy as np

_FLOATS = ("float16", "float32", "float64")
_state = {"floatx": "float32", "interactive_logging": True, "max_epochs": None,
          "max_steps_per_epoch": None,
          "dtype_policy": None}  # the global DTypePolicy once set (core/dtype_policy.py)


def floatx() -> str:
    """The default float dtype of layers' weights, initializers and random draws ('float32').

    Example:
        >>> import kerasish as ks
        >>> ks.config.floatx()
        'float32'
    """
    return _state["floatx"]


def set_floatx(value) -> None:
    """Set the default float dtype: 'float16', 'float32' or 'float64'.

    A global dtype policy set before (`ks.mixed_precision.set_global_policy`) is dropped,
    so new layers take the new float dtype.

    Args:
        value: the dtype's name (or a NumPy float dtype).

    Raises:
        ValueError: for any other value (bfloat16 has no NumPy dtype, so it is refused).

    Example:
        >>> import kerasish as ks
        >>> ks.config.set_floatx("float64")
        >>> ks.layers.Dense(2).dtype
        dtype('float64')
        >>> ks.config.set_floatx("float32")
    """
    name = np.dtype(value).name if not isinstance(value, str) else value
    if name not in _FLOATS:
        raise ValueError(f"set_floatx: expected one of {list(_FLOATS)}, got {value!r}"
                         + (" (bfloat16 has no NumPy dtype)" if name == "bfloat16" else ""))
    _state["floatx"] = name
    _state["dtype_policy"] = None


def epsilon() -> float:
    """The fuzz factor of numeric expressions: 1e-7 unless `set_epsilon` changed it.

    Example:
        >>> import kerasish as ks
        >>> ks.backend.epsilon()
        1e-07
    """
    return _state.get("epsilon", 1e-7)


def set_epsilon(value) -> None:
    """Set the fuzz factor `epsilon()` returns (Keras's `set_epsilon`).

    What reads `ks.backend.epsilon()` when it runs follows it (`ops.rms_normalization`'s
    default, the colour augmentations); the losses, metrics and constraints divide by their
    own constant 1e-7, Keras's default.

    Args:
        value: a positive float.

    Raises:
        ValueError: a value that is not a positive number.

    Example:
        >>> import kerasish as ks
        >>> ks.config.set_epsilon(1e-5)
        >>> ks.config.epsilon()
        1e-05
        >>> ks.config.set_epsilon(1e-7)
    """
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"set_epsilon: expected a positive float, got {value!r}") from None
    if not value > 0.0:
        raise ValueError(f"set_epsilon: expected a positive float, got {value!r}")
    _state["epsilon"] = value


def image_data_format() -> str:
    """The image layout of the layers: always 'channels_last' (NHWC) in kerasish."""
    return "channels_last"


def set_image_data_format(data_format: str) -> None:
    """Accepts 'channels_last', the only layout kerasish's layers compute in.

    Args:
        data_format: 'channels_last'.

    Raises:
        NotImplementedError: for 'channels_first' (not supported; say so rather than
            ignore it).
        ValueError: for any other value.

    Example:
        >>> import kerasish as ks
        >>> ks.config.set_image_data_format("channels_last")
        >>> ks.config.image_data_format()
        'channels_last'
    """
    if data_format == "channels_last":
        return
    if data_format == "channels_first":
        raise NotImplementedError(
            "set_image_data_format: kerasish's convolution, pooling and image layers compute "
            "in channels_last (NHWC) only; transpose the data instead (COMPATIBILITY.md)")
    raise ValueError(f"set_image_data_format: expected 'channels_last' or 'channels_first', "
                     f"got {data_format!r}")


def enable_interactive_logging() -> None:
    """Progress bars in a terminal (the default); see `disable_interactive_logging`."""
    _state["interactive_logging"] = True


def disable_interactive_logging() -> None:
    """`fit`'s progress is written as one line per epoch even in a terminal (no bar)."""
    _state["interactive_logging"] = False


def is_interactive_logging_enabled() -> bool:
    return _state["interactive_logging"]


def _positive_or_none(value, what: str):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what}: expected a positive integer or None, got {value!r}")
    return int(value)


def set_max_epochs(max_epochs) -> None:
    """Cap the epochs of every `fit` (None: no cap), as Keras 3's config does for tests.

    Args:
        max_epochs: a positive integer, or None.

    Example:
        >>> import kerasish as ks
        >>> ks.config.set_max_epochs(1)
        >>> ks.config.max_epochs()
        1
        >>> ks.config.set_max_epochs(None)
    """
    _state["max_epochs"] = _positive_or_none(max_epochs, "set_max_epochs")


def max_epochs():
    return _state["max_epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch) -> None:
    """Cap the steps of each epoch of `fit` (None: no cap).

    Args:
        max_steps_per_epoch: a positive integer, or None.

    Example:
        >>> import kerasish as ks
        >>> ks.config.set_max_steps_per_epoch(10)
        >>> ks.config.max_steps_per_epoch()
        10
        >>> ks.config.set_max_steps_per_epoch(None)
    """
    _state["max_steps_per_epoch"] = _positive_or_none(max_steps_per_epoch,
                                                      "set_max_steps_per_epoch")


def max_steps_per_epoch():
    return _state["max_steps_per_epoch"]
