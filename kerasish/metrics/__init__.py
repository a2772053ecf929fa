"""Object-oriented streaming metrics: `update_state`, `result`, `reset_state`, `__call__`.

State lives in non-trainable variables (checkpointable, found by
`kerasish.tracking.named_variables`), is updated in place on the device of
the data, and never on a `GradientTape`. Every averaging metric uses one
weighted reduction, sum(w * x) / sum(w).

Example (the eager user guide's):
    >>> import kerasish as ks
    >>> m = ks.metrics.Mean("loss")
    >>> _ = m(0); _ = m(5)
    >>> float(m.result())
    2.5
    >>> _ = m([8, 9])
    >>> float(m.result())
    5.5
"""

from kerasish.metrics.base import Metric
from kerasish.metrics.classification import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from kerasish.metrics.confusion import AUC, Precision, Recall
from kerasish.metrics.reduction import Mean, MeanMetricWrapper, Sum, weighted_sum_and_count
from kerasish.metrics.registry import ACCURACY_NAMES, get, resolve_accuracy, serialize
from kerasish.metrics.regression import (
    MeanAbsoluteError,
    MeanSquaredError,
    RootMeanSquaredError,
)

__all__ = [
    "ACCURACY_NAMES",
    "AUC",
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "Mean",
    "MeanAbsoluteError",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "Metric",
    "Precision",
    "Recall",
    "RootMeanSquaredError",
    "SparseCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "Sum",
    "TopKCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "get",
    "resolve_accuracy",
    "serialize",
    "sparse_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
    "weighted_sum_and_count",
]
