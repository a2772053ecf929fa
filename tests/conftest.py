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
