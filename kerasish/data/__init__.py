"""`ks.data`: the input pipeline (tf.data's `Dataset`, eager).

Example:
    >>> import numpy as np
    >>> from kerasish import data
    >>> ds = data.Dataset.from_tensor_slices(np.arange(6)).shuffle(6, seed=1).batch(4)
    >>> [b.shape for b in ds]
    [(4,), (2,)]
"""

from kerasish.data.dataset import (  # noqa: F401
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    DatasetIterator,
)
from kerasish.data.structure import TensorSpec  # noqa: F401

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetIterator",
    "TensorSpec",
]
