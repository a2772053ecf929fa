"""The one place that decides between NumPy (CPU) and CuPy (GPU).

Every other module asks this one which array module an array belongs to,
where new arrays should be placed, and how to do the few things whose spelling
differs between NumPy and CuPy (scatter-add, host transfer, device ids).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import math
import os
import platform
import re
import sys
import threading
import warnings

import numpy

from kerasish.core.errors import DeviceError

try:  # CuPy is the optional extra `kerasish[gpu]`.
    import cupy
except ImportError:  # pragma: no cover - depends on the machine
    cupy = None

GPU_INSTALL_HINT = (
    'pip install -e ".[gpu]" in the kerasish checkout (CuPy), on a machine with an NVIDIA GPU'
)


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
    if count == 0:
        raise DeviceError(
            f"GPU requested ('/gpu:{index}') but CuPy sees no GPU (no NVIDIA driver or no "
            "device on this machine); run on '/cpu:0'"
        )
    if index >= count:
        choices = "'/gpu:0'" if count == 1 else f"'/gpu:0' to '/gpu:{count - 1}'"
        raise DeviceError(
            f"GPU requested ('/gpu:{index}') but CuPy sees {count} GPU(s): use {choices} "
            "or run on '/cpu:0'"
        )


class _DeviceState(threading.local):
    """The device scope stack of the current thread; its bottom is the default."""

    def __init__(self):
        self.stack = [_default_device()]


_warned_defaults: set = set()  # KERASISH_DEVICE values already warned about


def _default_device() -> tuple[str, int]:
    """The default device: KERASISH_DEVICE ('cpu', 'gpu', 'gpu:1') or the CPU.

    The environment never makes `import kerasish` fail: a value that cannot be
    parsed, or a GPU that is not there, gives one RuntimeWarning naming the
    reason and the CPU is the default instead. (`ks.device("/gpu:0")` and
    `tensor.gpu()` still raise: there the program asked for the GPU itself.)
    """
    spec = os.environ.get("KERASISH_DEVICE", "").strip()
    if not spec:
        return ("cpu", 0)
    try:
        kind, index = parse_device(spec)
        if kind == "gpu":
            check_gpu(index)
    except (ValueError, DeviceError) as exc:
        if spec not in _warned_defaults:
            _warned_defaults.add(spec)
            warnings.warn(
                f"KERASISH_DEVICE={spec!r} ignored, using the CPU: {exc}",
                RuntimeWarning, stacklevel=2,
            )
        return ("cpu", 0)
    return kind, index


_state = _DeviceState()


def current_device() -> tuple[str, int]:
    """The (kind, index) on which new tensors are created."""
    return _state.stack[-1]


def device(device_name: str):
    """Place tensors created inside the block on `device_name` ('/cpu:0' or '/gpu:N').

    Ops run where their inputs live; this scope decides where new tensors
    (constants, random values, zeros, converted NumPy data) are created.
    A bad or unavailable device raises here, at the call.

    Args:
        device_name: '/cpu:0', '/gpu:N' (also 'cpu', 'gpu', 'GPU:1' and TF's
            '/device:GPU:0' spellings).

    Returns:
        A context manager.

    Raises:
        ValueError: `device_name` cannot be parsed.
        DeviceError: a GPU is asked for and CuPy or that GPU is missing.

    Example:
        >>> import kerasish as ks
        >>> with ks.device("/cpu:0"):
        ...     x = ks.constant([1.0])
        >>> x.device
        '/cpu:0'
    """
    kind, index = parse_device(device_name)
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


class _GraphState(threading.local):
    """How the device work of a program's effects is launched (see `function/graphs.py`).

    `mode` is None (launch it), "capture" (a CUDA graph is being captured: launch the
    device work into it, change no host state) or "host" (a captured graph does the
    device work: change only the host state, such as step counters and versions).
    Update rules read their per-step numbers from `scalars` (a float64 device array) at
    offsets handed out in capture order; in "host" mode they write them into
    `host_scalars` at the same offsets, and `position` counts them. A replay runs the
    host side while the GPU checks the step's inputs, before it knows the result: in
    "host" mode an effect that changes host state (an optimizer's step count) appends to
    `undo` a callable that puts it back, called if the check failed.
    """

    def __init__(self):
        self.mode = None
        self.scalars = None
        self.host_scalars = None
        self.position = 0
        self.undo = None


graph_state = _GraphState()


class NotCapturable(RuntimeError):
    """Raised while a CUDA graph is captured by work that a graph cannot replay."""


# CUDA helpers every kernel of `elementwise_kernel` can call: NumPy's maximum and minimum
# (a NaN in either argument gives NaN; CUDA's fmax and fmin return the other argument), and
# NumPy's sign (0 for -0, NaN for NaN)
KERNEL_HELPERS = """
template <typename T> __device__ T ks_maximum(T a, T b) { return (a >= b || a != a) ? a : b; }
template <typename T> __device__ T ks_minimum(T a, T b) { return (a <= b || a != a) ? a : b; }
template <typename T> __device__ T ks_sign(T a) {
    return a > 0 ? T(1) : a < 0 ? T(-1) : a == a ? T(0) : a; }
"""


def elementwise_kernel(in_params: str, out_params: str, body: str, name: str):
    """A CuPy `ElementwiseKernel` that rounds every statement of `body` as its ufunc would.

    Compiled with `--fmad=false`: NVRTC otherwise contracts `a * b + c` into one
    fused multiply-add, which rounds once where the ufuncs round twice. The body
    may call `KERNEL_HELPERS`.
    """
    return cupy.ElementwiseKernel(in_params, out_params, body, name,
                                  preamble=KERNEL_HELPERS, options=("--fmad=false",))


def matmul(a, b, out=None):
    """`a @ b` (into `out` if given); on the GPU, 2-D float products go to cuBLAS directly.

    CuPy refuses to call cuBLAS while a stream is being captured into a CUDA graph, so the
    GPU's matrix products call cuBLAS's GEMM through ctypes on a handle of kerasish's own
    (`_CuBLAS`), eagerly and in graphs alike: a captured step computes the same bits as
    the plain one. Other shapes and dtypes use CuPy's `matmul` (not capturable).
    """
    if (is_gpu_array(a) and a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]
            and a.dtype == b.dtype and a.dtype.char in "fd" and a.size and b.size
            and is_gpu_array(b) and (a.flags.c_contiguous or a.flags.f_contiguous)
            and (b.flags.c_contiguous or b.flags.f_contiguous)
            and (out is None or (out.flags.c_contiguous and out.dtype == a.dtype
                                 and out.shape == (a.shape[0], b.shape[1])))):
        return _cublas().gemm(a, b, out)
    if out is None:
        return a @ b
    return array_module(a).matmul(a, b, out=out)


def sum_leading_axes(x, count: int):
    """A C-contiguous float16/32/64 GPU array summed over its first `count` axes.

    CuPy reduces over leading axes with threads that read memory `prod(kept)` elements
    apart: a BatchNormalization statistic or bias gradient over (256, 32, 32, 64) took
    about 10 ms on an H200, 200x the time to read it. A product with a row of ones reads
    the rows coalesced, through the same cuBLAS GEMM as `matmul` (so a CUDA graph can
    capture it). float16 is summed in float32 (that GEMM, and a wider accumulator).
    """
    if x.dtype == numpy.float16:
        return sum_leading_axes(x.astype(numpy.float32), count).astype(numpy.float16)
    kept = x.shape[count:]
    rows = x.reshape(-1, math.prod(kept))
    ones = cupy.ones((1, rows.shape[0]), x.dtype)
    return matmul(ones, rows).reshape(kept)


class _CuBLAS:
    """cuBLAS's SGEMM and DGEMM through ctypes, one handle per device, math mode default
    (no TF32 unless `set_tensor_float_32(True)`), with a fixed workspace so that captured
    products allocate nothing."""

    _WORKSPACE_BYTES = 32 << 20  # cuBLAS's recommendation for Hopper

    def __init__(self):
        cupy.cuda.device.get_cublas_handle()  # (CuPy loads libcublas: use the same library)
        library = _loaded_library("libcublas.so") or ctypes.util.find_library("cublas")
        self.lib = lib = ctypes.CDLL(library)
        for name in ("cublasCreate_v2", "cublasSetStream_v2", "cublasSetWorkspace_v2",
                     "cublasSetMathMode", "cublasSgemm_v2", "cublasDgemm_v2"):
            getattr(lib, name).restype = ctypes.c_int
        self.handles: dict = {}
        self.workspaces: dict = {}
        self.one = {"f": ctypes.c_float(1.0), "d": ctypes.c_double(1.0)}
        self.zero = {"f": ctypes.c_float(0.0), "d": ctypes.c_double(0.0)}

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise RuntimeError(f"cuBLAS {what} failed with status {status}")

    def handle(self, device_id: int):
        handle = self.handles.get(device_id)
        if handle is None:
            with cupy.cuda.Device(device_id):
                handle = ctypes.c_void_p()
                self._check(self.lib.cublasCreate_v2(ctypes.byref(handle)), "create")
                workspace = cupy.empty(self._WORKSPACE_BYTES, numpy.uint8)
                self._check(self.lib.cublasSetWorkspace_v2(
                    handle, ctypes.c_void_p(workspace.data.ptr),
                    ctypes.c_size_t(workspace.nbytes)), "set workspace")
                self.workspaces[device_id] = workspace
                self.handles[device_id] = handle
                self.set_math_mode(handle)
        return handle

    def set_math_mode(self, handle) -> None:
        self._check(self.lib.cublasSetMathMode(handle, 3 if _tf32[0] else 0), "math mode")

    def gemm(self, a, b, out):
        """Row-major `a @ b` as the column-major product b^T a^T (each operand C- or
        F-contiguous: an F-contiguous one is a transposed view, passed as op T)."""
        m, k = a.shape
        n = b.shape[1]
        if out is None:
            out = cupy.empty((m, n), a.dtype)
        handle = self.handle(a.device.id)
        self._check(self.lib.cublasSetStream_v2(
            handle, ctypes.c_void_p(cupy.cuda.get_current_stream().ptr)), "set stream")
        op_a, ld_a = (0, k) if a.flags.c_contiguous else (1, m)
        op_b, ld_b = (0, n) if b.flags.c_contiguous else (1, k)
        kind = a.dtype.char
        gemm = self.lib.cublasSgemm_v2 if kind == "f" else self.lib.cublasDgemm_v2
        self._check(gemm(handle, op_b, op_a, n, m, k, ctypes.byref(self.one[kind]),
                         ctypes.c_void_p(b.data.ptr), ld_b, ctypes.c_void_p(a.data.ptr), ld_a,
                         ctypes.byref(self.zero[kind]), ctypes.c_void_p(out.data.ptr), n),
                    "gemm")
        return out


def _loaded_library(prefix: str) -> str | None:
    """The path of a shared library this process has loaded whose name starts with `prefix`."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith(prefix):
                    return path
    except OSError:
        pass
    return None


_cublas_instance = None


def _cublas() -> _CuBLAS:
    global _cublas_instance
    if _cublas_instance is None:
        _cublas_instance = _CuBLAS()
    return _cublas_instance


_tf32 = [False]  # TF32 tensor cores for float32 GPU products (see set_tensor_float_32)


def set_tensor_float_32(enabled: bool) -> None:
    """Let the GPU's float32 matrix products use TF32 tensor cores (off by default: they
    round the operands to 10-bit mantissas). No effect on NumPy's products."""
    _tf32[0] = bool(enabled)
    if _cublas_instance is not None:
        for handle in _cublas_instance.handles.values():
            _cublas_instance.set_math_mode(handle)


def tensor_float_32_enabled() -> bool:
    return _tf32[0]


def free_device_memory(dev: tuple[str, int]) -> int:
    """Bytes free on GPU `dev` (what CuPy's memory pool holds unused counts as free)."""
    with cupy.cuda.Device(dev[1]):
        free, _ = cupy.cuda.runtime.memGetInfo()
        pool = cupy.get_default_memory_pool()
        return free + pool.free_bytes()


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
    if isinstance(array, numpy.ndarray) and array.dtype.kind in "US":
        return array  # text has no GPU form: string tensors stay on the host
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


def scatter_add(target, indices, values, scale: float = 1.0) -> None:
    """target[indices] += scale * values, accumulating over repeated indices, in place.

    Adding whole rows (a 1-D integer `indices` along axis 0, one row of `values` per
    index) is plain SGD's sparse update and a gather's gradient. With numba installed
    (`pip install kerasish[fast]`) a NumPy target takes one compiled pass that adds the
    rows in order. Without it, the rows go through `unique_sum_rows` (the repeats summed
    first, then scaled), which is 5-10x faster in NumPy than `numpy.add.at`. The two differ
    only in the last bits of repeated rows. Anything else uses `numpy.add.at` (CuPy:
    `cupy.add.at`). Negative indices count from the end; others outside the rows raise
    IndexError.
    """
    if is_gpu_array(target):
        cupy.add.at(target, indices, values if scale == 1.0 else values * scale)
        return
    if not (isinstance(indices, numpy.ndarray) and indices.ndim == 1
            and indices.dtype.kind in "iu" and getattr(values, "ndim", 0) == target.ndim >= 1
            and values.shape[0] == indices.shape[0] and values.shape[1:] == target.shape[1:]):
        numpy.add.at(target, indices, values if scale == 1.0 else values * scale)
        return
    given = indices
    if indices.dtype.kind == "i" and indices.shape[0] and int(indices.min()) < 0:
        indices = numpy.where(indices < 0, indices + target.shape[0], indices)
    kernels = numba_kernels()
    if (kernels is not None and target.flags.c_contiguous and target.dtype.char in "fd"
            and values.dtype == target.dtype):
        width = math.prod(target.shape[1:])
        bad = kernels.scatter_add_rows(
            target.reshape(target.shape[0], width), indices,
            numpy.ascontiguousarray(values).reshape(indices.shape[0], width),
            target.dtype.type(scale))
        if bad >= 0:
            raise IndexError(f"index {int(given[bad])} is out of bounds for axis 0 with "
                             f"size {target.shape[0]}")
    elif values.shape[0] > _ROWS_FAST_PATH_MIN and target.ndim >= 2:
        rows, sums = unique_sum_rows(indices, values)
        target[rows] += sums if scale == 1.0 else target.dtype.type(scale) * sums
    else:
        numpy.add.at(target, indices, values if scale == 1.0 else values * scale)


_ROWS_FAST_PATH_MIN = 64  # below this many rows numpy.add.at is as fast


class RowGroups:
    """How a 1-D index array groups into distinct values: one sort, reusable.

    `unique_sum_rows` needs it for every array of rows keyed by these indices;
    gradients that share their indices (the weights and biases looked up with
    the same ids, as in `nce_loss`) build it once. On NumPy: `order` (a
    sort), `new` (True where a sorted entry starts a group), `starts`
    and `unique`; on CuPy: `unique` and `inverse`.
    """

    __slots__ = ("indices", "order", "new", "starts", "unique", "inverse")

    def __init__(self, indices):
        self.indices = indices  # kept alive: callers cache plans by id(indices)
        xp = array_module(indices)
        if xp is not numpy:
            self.unique, self.inverse = xp.unique(indices, return_inverse=True)
            return
        n = indices.shape[0]
        self.order = order = numpy.argsort(indices)
        ordered = indices.take(order)
        self.new = new = numpy.empty(n, dtype=bool)
        new[:1] = True
        numpy.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        self.starts = new.nonzero()[0]
        self.unique = ordered.take(self.starts)


def unique_sum_rows(indices, values, groups: RowGroups | None = None):
    """(unique, sums): the sorted distinct `indices` and, for each, the sum of its rows of `values`.

    `indices` is 1-D (N,) and `values` (N, ...); `groups`, if given, is
    `RowGroups(indices)` already computed. This is how a sparse gradient
    with repeated rows is reduced before an optimizer applies it. NumPy has no
    fast segment sum for rows (`add.at` and `add.reduceat` loop element by
    element), so this sorts once and adds rows in rounds. The groups with
    repeats are ordered by size, largest first, so the groups that still
    have an r-th row form a prefix: round r is one `take` and one contiguous
    add into a running-sum array, and each group's total is written once at
    the end. The few very frequent indices left after the rounds (hundreds of
    repeats, as the most frequent words have in a word2vec batch) are summed
    with one `add.reduceat` over their runs. Small batches with few repeats
    take a shorter path: one flat `add.at` of the repeated rows onto their
    group's first row. Scalar rows use `add.reduceat` directly. The result is
    deterministic (same inputs, same summation order). On CuPy:
    `unique(return_inverse=True)` and `cupy.add.at`.
    """
    if groups is None:
        groups = RowGroups(indices)
    unique = groups.unique
    if array_module(values) is not numpy:
        sums = cupy.zeros((unique.shape[0],) + tuple(values.shape[1:]), dtype=values.dtype)
        cupy.add.at(sums, groups.inverse.reshape(-1), values)
        return unique, sums
    n = indices.shape[0]
    order, new, starts = groups.order, groups.new, groups.starts
    if starts.shape[0] == n:  # no repeats (or no rows)
        return unique, values.take(order, axis=0)
    if values.ndim == 1:  # scalar rows: reduceat's loop is one tight pass
        return unique, numpy.add.reduceat(values.take(order), starts)
    sums = values.take(order.take(starts), axis=0)  # the first row of every group
    width = sums[0].size
    if (n - starts.shape[0]) * width <= _FEW_REPEATS_MAX:
        # few repeated rows (a small batch): add them to their group's first row with one
        # flat add.at, which for 1-D indices is a tight loop
        rest = (~new).nonzero()[0]
        group = numpy.cumsum(new).take(rest) - 1
        repeats = values.take(order.take(rest), axis=0).reshape(rest.shape[0], width)
        target = sums.reshape(-1)
        pairs = _AS_COMPLEX.get(sums.dtype.type)
        if pairs is not None and width % 2 == 0:
            # adding a complex number is adding its two floats, so viewing float32 (float64)
            # pairs as complex64 (complex128) gives the same sums with half the loop
            width //= 2
            target, repeats = target.view(pairs), repeats.view(pairs)
        flat = (group[:, None] * width + numpy.arange(width)).reshape(-1)
        numpy.add.at(target, flat, repeats.reshape(-1))
        return unique, sums
    sizes = numpy.empty_like(starts)  # run lengths
    numpy.subtract(starts[1:], starts[:-1], out=sizes[:-1])
    sizes[-1] = n - starts[-1]
    repeated = (sizes > 1).nonzero()[0]
    by_size = repeated.take(numpy.argsort(-sizes.take(repeated), kind="stable"))
    firsts = starts.take(by_size)
    descending = sizes.take(by_size)
    ascending = descending[::-1]
    running = values.take(order.take(firsts + 1), axis=0)  # second rows
    r = 2
    while True:
        active = ascending.shape[0] - int(numpy.searchsorted(ascending, r, side="right"))
        if active <= _ROUNDS_MIN_GROUPS:
            break
        running[:active] += values.take(order.take(firsts[:active] + r), axis=0)
        r += 1
    if active:  # a few long runs left: one add.reduceat over their remaining rows
        lengths = descending[:active] - r
        offsets = numpy.cumsum(lengths) - lengths
        positions = numpy.repeat(firsts[:active] + r - offsets, lengths)
        positions += numpy.arange(positions.shape[0])
        running[:active] += numpy.add.reduceat(
            values.take(order.take(positions), axis=0), offsets, axis=0)
    sums[by_size] += running
    return unique, sums


_numba_module = None  # kerasish.core.numba_kernels once loaded; False where it cannot be


def numba_kernels():
    """The compiled kernels, or None without numba (or with KERASISH_NUMBA=0)."""
    global _numba_module
    if _numba_module is None:
        _numba_module = False
        if os.environ.get("KERASISH_NUMBA", "1").strip() != "0":
            try:
                # (imported on first use: numba is optional and takes 0.3 s to import)
                from kerasish.core import numba_kernels
                _numba_module = numba_kernels
            except ImportError:  # the optional extra kerasish[fast] is not installed
                pass
    return _numba_module or None


_AS_COMPLEX = {numpy.float32: numpy.complex64, numpy.float64: numpy.complex128}
_ROUNDS_MIN_GROUPS = 32  # with this few groups left, one add.reduceat over their runs is cheaper
_FEW_REPEATS_MAX = 16384  # repeated-row elements up to which one flat add.at beats the rounds


def random_generator(seed):
    """The host's NumPy random Generator seeded with `seed` (a GPU's stream is a
    `philox.PhiloxStream`, whose state stays on the device)."""
    return numpy.random.default_rng(seed)


def permutation(generator, n: int):
    """A random ordering of range(n) drawn from a NumPy or CuPy generator (CuPy's has no
    `permutation`: there, the order that sorts n uniform draws)."""
    if isinstance(generator, numpy.random.Generator):
        return generator.permutation(n)
    return generator.random(n).argsort()


# -- subnormal floats on the CPU ----------------------------------------------------------
# Optimizer state that decays (Adam's moments for an input pixel that stays 0) passes through
# the subnormal range, where x86 arithmetic takes a slow microcode path per value: the
# Fashion-MNIST MLP's epochs ran 25-35% slower from the second epoch on. TF and XLA flush
# subnormals to zero on their CPU threads; kerasish does so while optimizers update.


def _load_fenv():
    """glibc's fegetenv/fesetenv on x86-64 Linux (whose fenv_t ends with MXCSR), else None."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        return libm.fegetenv, libm.fesetenv
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return None


_FENV = _load_fenv()
_FENV_SIZE, _MXCSR_AT = 32, 28  # x86-64 glibc: 28 bytes of x87 state, then MXCSR
_FLUSH_BITS = 0x8040  # MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6)


@contextlib.contextmanager
def subnormals_flushed(enabled: bool = True):
    """Within the block, this thread's CPU arithmetic reads and writes subnormal floats as 0.

    A no-op where it cannot be set (not x86-64 glibc) and for CuPy arrays (the GPU is not
    slowed by subnormals). The previous floating-point environment is restored on exit.
    """
    if not enabled or _FENV is None:
        yield
        return
    get, set_ = _FENV
    saved = ctypes.create_string_buffer(_FENV_SIZE)
    if get(saved) != 0:  # (cannot happen on glibc; then nothing is changed)
        yield
        return
    key = saved.raw
    flushed = _flushed_envs.get(key)
    if flushed is None:  # (the environment seldom changes: one entry, made once)
        raw = bytearray(key)
        mxcsr = int.from_bytes(raw[_MXCSR_AT:], "little") | _FLUSH_BITS
        raw[_MXCSR_AT:] = mxcsr.to_bytes(4, "little")
        flushed = _flushed_envs[key] = ctypes.create_string_buffer(bytes(raw), _FENV_SIZE)
    set_(flushed)
    try:
        yield
    finally:
        set_(saved)


_flushed_envs: dict = {}  # a saved environment's bytes -> the same with subnormals flushed


# -- collectives across processes (ks.distribute): MPI for host arrays, NCCL for GPU arrays --


def collective_engine(array) -> str:
    """'nccl' for a CuPy array (its collectives run on the GPUs through NCCL), else 'mpi'."""
    return "nccl" if is_gpu_array(array) else "mpi"


def nccl_unique_id():
    """A new NCCL unique id (rank 0 makes it; the others receive it over MPI)."""
    from cupy.cuda import nccl

    return nccl.get_unique_id()


def nccl_communicator(size: int, unique_id, rank: int):
    """This rank's NCCL communicator, on the current CUDA device."""
    from cupy.cuda import nccl

    return nccl.NcclCommunicator(size, unique_id, rank)


_NCCL_TYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
               "int32": "NCCL_INT32", "int64": "NCCL_INT64", "uint64": "NCCL_UINT64",
               "uint8": "NCCL_UINT8"}


def nccl_collective(communicator, array, root=None):
    """Sum `array` in place across ranks (root None) or broadcast rank `root`'s into it.

    Returns a CUDA event recorded after the call on the current stream; poll
    `event.done` to wait (with a deadline) for the result.
    """
    from cupy.cuda import nccl

    kind = getattr(nccl, _NCCL_TYPES[array.dtype.name])
    stream = cupy.cuda.get_current_stream()
    pointer = array.data.ptr
    if root is None:
        communicator.allReduce(pointer, pointer, array.size, kind, nccl.NCCL_SUM, stream.ptr)
    else:
        communicator.bcast(pointer, array.size, kind, root, stream.ptr)
    event = cupy.cuda.Event(block=False, disable_timing=True)
    event.record(stream)
    return event
