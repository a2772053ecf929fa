"""Error types. Each message names the op or object, and the offending values."""


class KerasishError(Exception):
    """Base of the errors kerasish raises on purpose (never re-wrapped)."""


class InvalidArgumentError(KerasishError, ValueError):
    """An op received values it cannot work with (shapes, ranges, dtypes)."""


class DeviceError(KerasishError, RuntimeError):
    """A device was asked for that does not exist, or inputs live on different devices."""
