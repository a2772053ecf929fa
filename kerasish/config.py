"""`ks.config`: which devices this process can use, in `tf.config` spelling, and Keras 3's
`enable_unsafe_deserialization`.

Example:
    >>> import kerasish as ks
    >>> ks.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
"""

from __future__ import annotations

from typing import NamedTuple

from kerasish.core import backend as core_backend
from kerasish.core.dtype_policy import dtype_policy, set_dtype_policy  # noqa: F401
from kerasish.core.serialization import enable_unsafe_deserialization
from kerasish.core.settings import (
    disable_interactive_logging,
    enable_interactive_logging,
    epsilon,
    floatx,
    image_data_format,
    is_interactive_logging_enabled,
    max_epochs,
    max_steps_per_epoch,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    set_max_epochs,
    set_max_steps_per_epoch,
)

__all__ = [
    "PhysicalDevice", "backend", "disable_flash_attention", "disable_interactive_logging",
    "dtype_policy", "set_dtype_policy",
    "disable_traceback_filtering", "enable_flash_attention", "enable_interactive_logging",
    "experimental",
    "enable_traceback_filtering", "enable_unsafe_deserialization", "epsilon", "floatx",
    "image_data_format", "is_flash_attention_enabled", "is_interactive_logging_enabled",
    "is_nnx_enabled", "is_traceback_filtering_enabled", "list_physical_devices", "max_epochs",
    "max_steps_per_epoch", "set_backend", "set_epsilon", "set_floatx", "set_image_data_format",
    "set_max_epochs", "set_max_steps_per_epoch",
]


class experimental:  # noqa: N801 - TF's `tf.config.experimental` namespace
    """TF's `tf.config.experimental` switches that apply to kerasish."""

    @staticmethod
    def enable_tensor_float_32_execution(enabled: bool) -> None:
        """Let float32 matrix products on GPUs use TF32 tensor cores (kerasish's default:
        off, unlike TF's, so GPU products round as the CPU's do).

        Args:
            enabled: True to allow TF32.

        Example:
            >>> import kerasish as ks
            >>> ks.config.experimental.enable_tensor_float_32_execution(False)
            >>> ks.config.experimental.tensor_float_32_execution_enabled()
            False
        """
        core_backend.set_tensor_float_32(enabled)

    @staticmethod
    def tensor_float_32_execution_enabled() -> bool:
        return core_backend.tensor_float_32_enabled()


def backend() -> str:
    """The computing backend, as Keras 3 names them: 'numpy' (NumPy on the CPU, CuPy on GPUs)."""
    return "numpy"


def set_backend(backend: str) -> None:  # noqa: F811 - Keras's argument name
    """Keras 3 reloads itself on another backend; kerasish has one.

    Args:
        backend: 'numpy' (the only one).

    Raises:
        ValueError: for any backend but 'numpy', naming the one there is.

    Example:
        >>> import kerasish as ks
        >>> ks.config.set_backend("numpy")
        >>> ks.config.backend()
        'numpy'
    """
    if backend != "numpy":
        raise ValueError(f"set_backend: kerasish computes with NumPy (CuPy on GPUs), the "
                         f"'numpy' backend; {backend!r} is not available (jax, tensorflow "
                         "and torch are other libraries' backends)")


def is_nnx_enabled() -> bool:
    """Flax NNX integration (JAX backend only): never enabled here."""
    return False


def is_flash_attention_enabled() -> bool:
    """Whether attention layers use fused flash-attention kernels: never in kerasish."""
    return False


def disable_flash_attention() -> None:
    """Attention layers never use flash attention here: nothing to disable."""


def enable_flash_attention() -> None:
    """Raises: kerasish has no flash-attention kernels (COMPATIBILITY.md)."""
    raise NotImplementedError(
        "enable_flash_attention: kerasish has no flash-attention kernels; attention layers "
        "compute softmax(QK^T)V with matrix products")


def is_traceback_filtering_enabled() -> bool:
    """Whether tracebacks hide the library's frames: never in kerasish (its errors name the
    op, layer and shapes instead)."""
    return False


def disable_traceback_filtering() -> None:
    """Tracebacks are never filtered here: nothing to disable."""


def enable_traceback_filtering() -> None:
    """Raises: kerasish does not filter tracebacks."""
    raise NotImplementedError("enable_traceback_filtering: kerasish shows whole tracebacks; "
                              "its errors name the op, the layer and the shapes")


class PhysicalDevice(NamedTuple):
    """A device seen by the process: its `name` and `device_type` ("CPU" or "GPU").

    Args:
        name: TF's spelling, '/physical_device:CPU:0' or '/physical_device:GPU:N'.
        device_type: "CPU" or "GPU".

    Example:
        >>> import kerasish as ks
        >>> ks.config.list_physical_devices("CPU")[0]
        PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')
    """

    name: str
    device_type: str


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The CPU and every GPU CuPy can see, or only those of `device_type`.

    Args:
        device_type: "CPU", "GPU" (any case), or None for all devices.

    Returns:
        A list of `PhysicalDevice`; `len(ks.config.list_physical_devices("GPU"))`
        is the number of usable GPUs (0 without CuPy or without a GPU).

    Raises:
        ValueError: if `device_type` is neither CPU nor GPU.

    Example:
        >>> import kerasish as ks
        >>> len(ks.config.list_physical_devices("GPU")) == ks.num_gpus()
        True
    """
    kinds = ("CPU", "GPU")
    wanted = kinds if device_type is None else (str(device_type).upper(),)
    if wanted[0] not in kinds:
        raise ValueError(
            f"list_physical_devices: device_type must be 'CPU', 'GPU' or None, "
            f"got {device_type!r}"
        )
    devices = []
    if "CPU" in wanted:
        devices.append(PhysicalDevice("/physical_device:CPU:0", "CPU"))
    if "GPU" in wanted:
        devices += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU")
                    for i in range(core_backend.num_gpus())]
    return devices
