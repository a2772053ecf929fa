"""Shared test set-up: a fixed seed per test, and the `gpu` marker."""

import os

import pytest

import kerasish as ks

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")


@pytest.fixture(autouse=True)
def _seed():
    ks.random.set_seed(1234)
    yield


def pytest_collection_modifyitems(config, items):
    if ks.num_gpus() > 0:
        return
    skip = pytest.mark.skip(reason="needs CuPy and a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
