"""`ks.config`: which devices this process can use, in `tf.config` spelling, and Keras 3's
`enable_unsafe_deserialization`.

Example:
    >>> import kerasish as ks
    >>> ks.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
"""

from __future__ import annotations

from typing import NamedTuple

from kerasish.core import backend
from kerasish.saving.serialization import enable_unsafe_deserialization

__all__ = ["PhysicalDevice", "enable_unsafe_deserialization", "list_physical_devices"]


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
                    for i in range(backend.num_gpus())]
    return devices
