"""Devices: the CPU scope, clear errors without CuPy, KERASISH_DEVICE, mixed devices, GPU tests.

Tests marked `gpu` run only where CuPy sees a GPU (see conftest.py); the rest
simulate what they need by monkeypatching `kerasish.core.backend`.
"""

import os
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import backend

ROOT = Path(__file__).resolve().parents[2]
INSTALL_HINT = re.escape('pip install -e ".[gpu]" in the kerasish checkout')  # README's command

HAS_GPU = ks.num_gpus() > 0

# ---------------------------------------------------------------- CPU scope and parsing


def test_cpu_scope_places_new_tensors_on_the_cpu():
    with ks.device("/cpu:0"):
        assert backend.current_device() == ("cpu", 0)
        x = ks.constant([1.0, 2.0])
        r = ks.random.normal([3])
        z = ks.zeros([2])
        y = ks.matmul([[2.0]], [[2.0]])
    for t in (x, r, z, y):
        assert t.device == "/cpu:0"
        assert type(t.numpy()) is np.ndarray


def test_device_scopes_nest_and_unwind_on_errors():
    before = backend.current_device()
    with pytest.raises(ZeroDivisionError):
        with ks.device("cpu"):
            with ks.device("/device:CPU:0"):
                raise ZeroDivisionError
    assert backend.current_device() == before


@pytest.mark.parametrize(
    "spec, parsed",
    [
        ("/cpu:0", ("cpu", 0)),
        ("cpu", ("cpu", 0)),
        ("CPU:0", ("cpu", 0)),
        ("/gpu:0", ("gpu", 0)),
        ("gpu:1", ("gpu", 1)),
        ("GPU", ("gpu", 0)),
        ("/device:GPU:2", ("gpu", 2)),
        (" /cpu:0 ", ("cpu", 0)),
    ],
)
def test_parse_device(spec, parsed):
    assert backend.parse_device(spec) == parsed


@pytest.mark.parametrize("spec", ["/tpu:0", "gpu:x", "", "/gpu:-1", "cpu0", "/job:localhost"])
def test_bad_device_string_is_a_clear_error_at_the_call(spec):
    with pytest.raises(
        ValueError, match=rf"device: cannot parse {spec!r}; use '/cpu:0' or '/gpu:N'"
    ):
        ks.device(spec)  # raised by the call itself, not only on entering the block


# ---------------------------------------------------------- no GPU: errors naming the fix


@pytest.fixture
def no_cupy(monkeypatch):
    monkeypatch.setattr(backend, "cupy", None)


class _FakeRuntime:
    def __init__(self, count):
        self.count = count

    def getDeviceCount(self):  # noqa: N802 - CuPy's name
        if self.count is None:
            raise RuntimeError("no CUDA driver")
        return self.count


class _FakeCupy:
    """Just enough of CuPy for device counting."""

    class ndarray:  # noqa: N801 - CuPy's name; no array is ever one of these
        pass

    def __init__(self, count):
        self.cuda = type("cuda", (), {"runtime": _FakeRuntime(count)})()


def test_num_gpus_without_cupy(no_cupy):
    assert ks.num_gpus() == 0


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU")
def test_num_gpus_is_zero_here():
    assert ks.num_gpus() == 0


def test_num_gpus_with_cupy_but_no_driver(monkeypatch):
    monkeypatch.setattr(backend, "cupy", _FakeCupy(None))
    assert ks.num_gpus() == 0
    monkeypatch.setattr(backend, "cupy", _FakeCupy(2))
    assert ks.num_gpus() == 2


def test_gpu_scope_without_cupy_names_the_fix(no_cupy):
    before = backend.current_device()
    with pytest.raises(ks.DeviceError, match=INSTALL_HINT) as info:
        ks.device("/gpu:0")
    assert "GPU requested ('/gpu:0') but CuPy is not installed" in str(info.value)
    assert isinstance(info.value, RuntimeError)
    with pytest.raises(ks.DeviceError, match=INSTALL_HINT):
        with ks.device("gpu:0"):
            pass
    assert backend.current_device() == before


def test_tensor_gpu_without_cupy_names_the_fix(no_cupy):
    with ks.device("/cpu:0"):
        x = ks.constant([1.0, 2.0])
    with pytest.raises(
        ks.DeviceError,
        match=r"GPU requested \('/gpu:0'\) but CuPy is not installed.*" + INSTALL_HINT,
    ):
        x.gpu()
    with pytest.raises(ks.DeviceError, match=r"GPU requested \('/gpu:1'\)"):
        x.gpu(1)


def test_gpu_index_beyond_count(monkeypatch):
    monkeypatch.setattr(backend, "cupy", _FakeCupy(1))
    with pytest.raises(
        ks.DeviceError,
        match=r"GPU requested \('/gpu:3'\) but CuPy sees 1 GPU\(s\): use '/gpu:0' or run on "
        r"'/cpu:0'",
    ):
        ks.device("/gpu:3")
    monkeypatch.setattr(backend, "cupy", _FakeCupy(3))
    with pytest.raises(ks.DeviceError, match=r"CuPy sees 3 GPU\(s\): use '/gpu:0' to '/gpu:2'"):
        ks.device("/gpu:3")
    monkeypatch.setattr(backend, "cupy", _FakeCupy(0))
    with pytest.raises(ks.DeviceError, match=r"^GPU requested \('/gpu:0'\) but CuPy sees no GPU "
                       r"\(no NVIDIA driver or no device on this machine\); run on '/cpu:0'$"):
        ks.constant(1.0).gpu()


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU")
def test_without_cupy_here_errors_are_real():
    with pytest.raises(ks.DeviceError, match=INSTALL_HINT):
        ks.device("/gpu:0")
    with pytest.raises(ks.DeviceError, match=INSTALL_HINT):
        ks.constant(1.0).gpu()


# ---------------------------------------------------------------- KERASISH_DEVICE


def test_default_device_unset_or_empty_is_cpu(monkeypatch):
    monkeypatch.delenv("KERASISH_DEVICE", raising=False)
    assert backend._default_device() == ("cpu", 0)
    monkeypatch.setenv("KERASISH_DEVICE", "  ")
    assert backend._default_device() == ("cpu", 0)


@pytest.mark.parametrize("value", ["cpu", "/cpu:0", "CPU"])
def test_default_device_cpu_values(monkeypatch, value):
    monkeypatch.setenv("KERASISH_DEVICE", value)
    assert backend._default_device() == ("cpu", 0)


def test_default_device_gpu_without_cupy_warns_once_and_uses_the_cpu(monkeypatch, no_cupy):
    monkeypatch.setattr(backend, "_warned_defaults", set())
    monkeypatch.setenv("KERASISH_DEVICE", "gpu")
    with pytest.warns(RuntimeWarning, match=r"KERASISH_DEVICE='gpu' ignored, using the CPU: GPU "
                      r"requested \('/gpu:0'\) but CuPy is not installed; install it with: "
                      + INSTALL_HINT):
        assert backend._default_device() == ("cpu", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once: a second thread does not warn again
        assert backend._default_device() == ("cpu", 0)


def test_import_never_fails_because_of_kerasish_device(tmp_path):
    env = dict(os.environ, KERASISH_DEVICE="gpu:7", PYTHONPATH=str(ROOT))
    program = "import kerasish as ks; print(ks.zeros([1]).device)"
    result = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "/cpu:0"
    assert result.stderr.count("KERASISH_DEVICE='gpu:7' ignored, using the CPU") == 1


def test_default_device_gpu_with_gpus(monkeypatch):
    monkeypatch.setattr(backend, "cupy", _FakeCupy(2))
    monkeypatch.setenv("KERASISH_DEVICE", "gpu")
    assert backend._default_device() == ("gpu", 0)
    monkeypatch.setenv("KERASISH_DEVICE", "gpu:1")
    assert backend._default_device() == ("gpu", 1)


def test_default_device_bad_value_warns_and_uses_the_cpu(monkeypatch):
    monkeypatch.setattr(backend, "_warned_defaults", set())
    monkeypatch.setenv("KERASISH_DEVICE", "tpu")
    with pytest.warns(RuntimeWarning, match="KERASISH_DEVICE='tpu' ignored, using the CPU: "
                      "device: cannot parse 'tpu'"):
        assert backend._default_device() == ("cpu", 0)


def test_default_device_applies_to_new_threads(monkeypatch):
    monkeypatch.setattr(backend, "cupy", _FakeCupy(1))
    monkeypatch.setenv("KERASISH_DEVICE", "gpu")
    seen = []
    thread = threading.Thread(target=lambda: seen.append(backend.current_device()))
    thread.start()
    thread.join()
    assert seen == [("gpu", 0)]


# ---------------------------------------------------------------- mixed devices


class _FakeGpuArray(np.ndarray):
    """Behaves like a CuPy array meeting a NumPy one: arithmetic refuses the mix."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise TypeError("Unsupported type <class 'numpy.ndarray'>")


@pytest.fixture
def fake_gpu_tensor(monkeypatch):
    real_device_of = backend.device_of

    def device_of(array):
        if isinstance(array, _FakeGpuArray):
            return ("gpu", 0)
        return real_device_of(array)

    monkeypatch.setattr(backend, "device_of", device_of)
    return ks.Tensor(np.ones((2, 2), np.float32).view(_FakeGpuArray))


def test_mixed_devices_error_names_both_devices(fake_gpu_tensor):
    with ks.device("/cpu:0"):
        cpu = ks.constant(np.ones((2, 2), np.float32))
    assert fake_gpu_tensor.device == "/gpu:0"
    for op, name in [(ks.add, "add"), (ks.multiply, "multiply"), (ks.matmul, "matmul")]:
        with pytest.raises(
            ks.DeviceError,
            match=rf"{name}: inputs are on different devices \(/cpu:0 and /gpu:0\); move them to "
            r"one device with x\.cpu\(\) or x\.gpu\(\) first",
        ):
            op(cpu, fake_gpu_tensor)


# ---------------------------------------------------------------- GPU (CuPy) tests


@pytest.mark.gpu
def test_gpu_scope_places_tensors_and_ops_on_the_gpu():
    import cupy

    with ks.device("/gpu:0"):
        x = ks.constant([[1.0, 2.0], [3.0, 4.0]])
        r = ks.random.normal([3])
        z = ks.zeros([2])
    assert x.device == "/gpu:0" and r.device == "/gpu:0" and z.device == "/gpu:0"
    assert isinstance(x._value, cupy.ndarray)
    y = ks.matmul(x, x) + 1.0
    assert y.device == "/gpu:0"
    assert type(y.numpy()) is np.ndarray  # numpy() copies to the host
    np.testing.assert_allclose(y.numpy(), [[8.0, 11.0], [16.0, 23.0]])
    assert "device=/gpu:0" in repr(y)
    np.testing.assert_allclose(np.asarray(y), y.numpy())
    assert float(ks.reduce_sum(x)) == 10.0


@pytest.mark.gpu
def test_gpu_cpu_round_trip_is_differentiable():
    with ks.device("/cpu:0"):
        x = ks.constant([1.0, 2.0])
    with ks.GradientTape() as tape:
        tape.watch(x)
        g = x.gpu()
        y = ks.reduce_sum(g * g).cpu()
    assert g.device == "/gpu:0" and y.device == "/cpu:0"
    grad = tape.gradient(y, x)
    assert grad.device == "/cpu:0"
    np.testing.assert_allclose(grad.numpy(), [2.0, 4.0])


@pytest.mark.gpu
def test_real_mixed_devices_error():
    with ks.device("/cpu:0"):
        cpu = ks.constant([1.0, 2.0])
    gpu = cpu.gpu()
    with pytest.raises(
        ks.DeviceError, match=r"inputs are on different devices \(/cpu:0 and /gpu:0\)"
    ):
        ks.add(cpu, gpu)


@pytest.mark.gpu
def test_gpu_variable_assign_and_gradient():
    with ks.device("/gpu:0"):
        v = ks.Variable([1.0, 2.0], name="v")
    assert v.device == "/gpu:0"
    v.assign(np.array([3.0, 4.0], np.float32))  # a host value is moved to the variable's device
    assert v.device == "/gpu:0"
    with ks.GradientTape() as tape:
        y = ks.reduce_sum(v * v)
    g = tape.gradient(y, v)
    assert g.device == "/gpu:0"
    v.assign_sub(g * 0.5)
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])


@pytest.mark.gpu
def test_gpu_random_is_reproducible():
    with ks.device("/gpu:0"):
        ks.random.set_seed(5)
        a = ks.random.normal([4]).numpy()
        ks.random.set_seed(5)
        b = ks.random.normal([4]).numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_gpu_embedding_lookup_and_sparse_gradient():
    with ks.device("/gpu:0"):
        table = ks.Variable(ks.ones([128, 4]))
    with pytest.raises(
        ks.InvalidArgumentError, match=r"embedding_lookup: indices\[0\] = 3081 is not in \[0, 128\)"
    ):
        ks.nn.embedding_lookup(table, ks.constant([3081]).gpu())
    ids = ks.constant([1, 1, 5]).gpu()
    with ks.GradientTape() as tape:
        y = ks.reduce_sum(ks.nn.embedding_lookup(table, ids))
    g = tape.gradient(y, table)
    assert isinstance(g, ks.IndexedSlices) and g.values.shape == (3, 4)
    dense = g.to_dense().numpy()
    assert dense[1, 0] == 2.0 and dense[5, 0] == 1.0 and dense.sum() == 12.0
