"""The library the keras-io ports run on: kerasish by default, Keras 3 itself with
`KERAS_IO_LIBRARY=keras`.

Each port is written as a Keras 3 user writes the keras-io program, with `keras`
bound here instead of by `import keras`; running one under both names and comparing
what each learns is how tests/examples check that kerasish learns what Keras learns.
"""

from __future__ import annotations

import importlib
import os

from kerasish.datasets import fashion_mnist as _fashion_mnist

LIBRARY = os.environ.get("KERAS_IO_LIBRARY", "kerasish")
if LIBRARY not in ("kerasish", "keras"):
    raise SystemExit(f"KERAS_IO_LIBRARY must be 'kerasish' or 'keras', got {LIBRARY!r}")
keras = importlib.import_module(LIBRARY)


def fashion_mnist(data_dir=None):
    """Fashion-MNIST as Keras's `load_data` returns it, read from local files only
    (kerasish's reader; the Debian package `dataset-fashion-mnist` installs them)."""
    return _fashion_mnist.load_data(data_dir, download=False)
