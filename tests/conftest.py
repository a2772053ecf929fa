"""Shared test set-up: a fixed seed per test, and the `gpu` and `cpu` markers."""

import os

import pytest

import kerasish as ks

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")


@pytest.fixture(autouse=True)
def _seed():
    ks.random.set_seed(1234)
    yield


@pytest.fixture(autouse=True)
def _cpu_default(request):
    """Tests marked `cpu` assert what the CPU gives (NumPy's random streams and bit patterns,
    reprs without a device, exact resumes): with KERASISH_DEVICE=gpu they still run there."""
    if request.node.get_closest_marker("cpu") is None:
        yield
        return
    with ks.device("/cpu:0"):
        yield


def pytest_collection_modifyitems(config, items):
    if ks.num_gpus() > 0:
        return
    skip = pytest.mark.skip(reason="needs CuPy and a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def run_capped():
    """Run Python code in a subprocess whose address space is capped (RLIMIT_AS, `cap_mb`),
    so that a reader allocating what a hostile file declares fails there with MemoryError
    instead of swapping (or crashing pytest); returns (exit status, stdout + stderr).
    The subprocess runs without CuPy: its CUDA libraries cannot be mapped under the cap,
    and the readers under test run on the host."""
    import subprocess
    import sys
    import textwrap

    def run(code: str, cap_mb: int = 384, timeout: float = 120) -> tuple:
        cap = cap_mb << 20
        preamble = ("import resource, sys\nsys.modules['cupy'] = None  # kerasish runs on NumPy\n"
                    f"resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))\n")
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "PYTHONPATH": ROOT,
               "KERASISH_DEVICE": "cpu"}
        done = subprocess.run([sys.executable, "-c", preamble + textwrap.dedent(code)],
                              capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
        return done.returncode, done.stdout + done.stderr

    return run
