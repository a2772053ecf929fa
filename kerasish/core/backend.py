"""The one place that decides between NumPy (CPU) and CuPy (GPU).

Every other module asks this one which array module an array belongs to,
where new arrays should be placed, and how to do the few things whose spelling
differs between NumPy and CuPy (scatter-add, host transfer, device ids).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading

import numpy

from kerasish.core.errors import DeviceError

try:  # CuPy is the optional extra `kerasish[gpu]`.
    import cupy
    import cupyx
except ImportError:  # pragma: no cover - depends on the machine
    cupy = None
    cupyx = None

GPU_INSTALL_HINT = "pip install kerasish[gpu] (CuPy) on a machine with an NVIDIA GPU"


def num_gpus() -> int:
    """Number of GPUs CuPy can see (0 without CuPy or without a GPU)."""
    if cupy is None:
        return 0
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver, no device
        return 0


def parse_device(spec: str) -> tuple[str, int]:
    """Turn '/gpu:0', 'gpu:1', 'GPU', 'cpu' or '/device:GPU:0' into ('gpu', 0)."""
    text = str(spec).strip().lower()
    match = re.fullmatch(r"/?(?:device:)?(cpu|gpu)(?::(\d+))?", text)
    if match is None:
        raise ValueError(
            f"device: cannot parse {spec!r}; use '/cpu:0' or '/gpu:N' (for example '/gpu:0')"
        )
    return match.group(1), int(match.group(2) or 0)


def check_gpu(index: int = 0) -> None:
    """Raise a DeviceError that names the fix if GPU `index` is unavailable."""
    if cupy is None:
        raise DeviceError(
            f"GPU requested ('/gpu:{index}') but CuPy is not installed; install it with: "
            f"{GPU_INSTALL_HINT}"
        )
    count = num_gpus()
    if index >= count:
        raise DeviceError(
            f"GPU requested ('/gpu:{index}') but CuPy sees {count} GPU(s); "
            "pick an index below that or run on '/cpu:0'"
        )


class _DeviceState(threading.local):
    """The device scope stack of the current thread; its bottom is the default."""

    def __init__(self):
        self.stack = [_default_device()]


def _default_device() -> tuple[str, int]:
    """The default device: KERASISH_DEVICE ('cpu', 'gpu', 'gpu:1') or the CPU."""
    spec = os.environ.get("KERASISH_DEVICE", "").strip()
    if not spec:
        return ("cpu", 0)
    kind, index = parse_device(spec)
    if kind == "gpu":
        check_gpu(index)
    return kind, index


_state = _DeviceState()


def current_device() -> tuple[str, int]:
    """The (kind, index) on which new tensors are created."""
    return _state.stack[-1]


def device(spec: str):
    """Place tensors created inside the block on `spec` ('/cpu:0' or '/gpu:N').

    Ops run where their inputs live; this scope decides where new tensors
    (constants, random values, zeros, converted NumPy data) are created.
    A bad or unavailable device raises here, at the call.
    """
    kind, index = parse_device(spec)
    if kind == "gpu":
        check_gpu(index)
    return _device_scope(kind, index)


@contextlib.contextmanager
def _device_scope(kind: str, index: int):
    _state.stack.append((kind, index))
    try:
        if kind == "gpu":
            with cupy.cuda.Device(index):
                yield
        else:
            yield
    finally:
        _state.stack.pop()


def array_module(array):
    """`numpy` or `cupy`, whichever owns `array`."""
    if cupy is not None and isinstance(array, cupy.ndarray):
        return cupy
    return numpy


def is_gpu_array(array) -> bool:
    return cupy is not None and isinstance(array, cupy.ndarray)


def device_of(array) -> tuple[str, int]:
    """The (kind, index) where `array` lives."""
    if is_gpu_array(array):
        return ("gpu", array.device.id)
    return ("cpu", 0)


def device_name(dev: tuple[str, int]) -> str:
    return f"/{dev[0]}:{dev[1]}"


def to_device(array, dev: tuple[str, int] | None = None):
    """Copy `array` (NumPy, CuPy or anything array-like) to `dev` (default: current)."""
    kind, index = dev if dev is not None else current_device()
    if kind == "cpu":
        if is_gpu_array(array):
            return array.get()
        return numpy.asarray(array)
    check_gpu(index)
    with cupy.cuda.Device(index):
        return cupy.asarray(array)


def to_numpy(array):
    """A NumPy array (or NumPy scalar) holding the same values as `array`."""
    if is_gpu_array(array):
        return array.get()
    return array


def scatter_add(target, indices, values) -> None:
    """target[indices] += values, accumulating over repeated indices, in place."""
    if is_gpu_array(target):
        cupyx.scatter_add(target, indices, values)
    else:
        numpy.add.at(target, indices, values)


def random_generator(seed, like_device: tuple[str, int]):
    """A NumPy or CuPy random Generator for `like_device`, seeded with `seed`."""
    if like_device[0] == "gpu":
        check_gpu(like_device[1])
        with cupy.cuda.Device(like_device[1]):
            return cupy.random.default_rng(seed)
    return numpy.random.default_rng(seed)
