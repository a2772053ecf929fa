"""Object-oriented streaming metrics: `update_state`, `result`, `reset_state`, `__call__`.

State lives in non-trainable variables (checkpointable, found by
`kerasish.core.tracking.named_variables`), is updated in place on the device of
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

from kerasish.losses import (  # Keras 3 exports these loss functions as metrics too
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
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
from kerasish.metrics.confusion import (
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    PrecisionAtRecall,
    Recall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    TrueNegatives,
    TruePositives,
)
from kerasish.metrics.correlation import (
    ConcordanceCorrelation,
    PearsonCorrelation,
    concordance_correlation,
    pearson_correlation,
)
from kerasish.metrics.f_score import F1Score, FBetaScore
from kerasish.metrics.hinge_metrics import CategoricalHinge, Hinge, SquaredHinge
from kerasish.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from kerasish.metrics.probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
)
from kerasish.metrics.reduction import Mean, MeanMetricWrapper, Sum, weighted_sum_and_count
from kerasish.metrics.registry import (
    ACCURACY_NAMES,
    deserialize,
    get,
    resolve_accuracy,
    serialize,
)
from kerasish.metrics.regression import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    R2Score,
    RootMeanSquaredError,
    cosine_similarity,
)

__all__ = [
    "squared_hinge",
    "sparse_categorical_crossentropy",
    "poisson",
    "pearson_correlation",
    "mean_squared_logarithmic_error",
    "mean_squared_error",
    "mean_absolute_percentage_error",
    "mean_absolute_error",
    "log_cosh",
    "kl_divergence",
    "huber",
    "hinge",
    "deserialize",
    "concordance_correlation",
    "categorical_hinge",
    "categorical_focal_crossentropy",
    "categorical_crossentropy",
    "binary_focal_crossentropy",
    "binary_crossentropy",
    "SparseCategoricalCrossentropy",
    "PearsonCorrelation",
    "OneHotMeanIoU",
    "OneHotIoU",
    "IoU",
    "ConcordanceCorrelation",
    "CategoricalCrossentropy",
    "BinaryCrossentropy",
    "ACCURACY_NAMES",
    "AUC",
    "Accuracy",
    "BinaryAccuracy",
    "BinaryIoU",
    "CategoricalAccuracy",
    "CategoricalHinge",
    "CosineSimilarity",
    "F1Score",
    "FBetaScore",
    "FalseNegatives",
    "FalsePositives",
    "Hinge",
    "KLDivergence",
    "LogCoshError",
    "Mean",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanIoU",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Metric",
    "Poisson",
    "Precision",
    "PrecisionAtRecall",
    "R2Score",
    "Recall",
    "RecallAtPrecision",
    "RootMeanSquaredError",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "SquaredHinge",
    "TrueNegatives",
    "TruePositives",
    "SparseCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "Sum",
    "TopKCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "cosine_similarity",
    "get",
    "resolve_accuracy",
    "serialize",
    "sparse_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
    "weighted_sum_and_count",
]
