"""Losses: per-example functions and Keras-style `Loss` objects.

Functions (``mean_squared_error(y_true, y_pred)``, ...) return one loss per
example: they reduce the last axis, as in Keras, so a (batch, d) prediction
gives a (batch,) loss. Every function is a composition of kerasish ops, so its
gradients (and gradients of gradients) come from the tape with no loss-specific
rules. Each function has its `Loss` class (``MeanSquaredError``, ...), which
weights and reduces the per-example losses (`compute_weighted_loss`).

The package, by family: `base` (input shapes, the weighted reduction, `Loss`),
`regression`, `probabilistic` (the cross-entropies, KL, Poisson), `hinge`,
`overlap` (Dice, Tversky, Circle) and `registry` (`get`, `serialize`,
`deserialize`); every name is reached here, as ``ks.losses.<name>``.

Example:
    >>> import kerasish as ks
    >>> ks.losses.mean_squared_error([[0., 1.], [1., 1.]], [[1., 1.], [1., 0.]]).numpy()
    array([0.5, 0.5], dtype=float32)
    >>> float(ks.losses.MeanSquaredError()([[0., 1.], [1., 1.]], [[1., 1.], [1., 0.]]))
    0.5
    >>> float(ks.losses.get("mse")([[0., 1.], [1., 1.]], [[1., 1.], [1., 0.]], [1., 0.]))
    0.25
"""

from kerasish.losses.base import (
    Loss,
    LossFunctionWrapper,
    Reduction,
    compute_weighted_loss,
)
from kerasish.losses.ctc import CTC, ctc
from kerasish.losses.hinge import (
    CategoricalHinge,
    Hinge,
    SquaredHinge,
    categorical_hinge,
    hinge,
    squared_hinge,
)
from kerasish.losses.overlap import (
    Circle,
    Dice,
    Tversky,
    circle,
    dice,
    tversky,
)
from kerasish.losses.probabilistic import (
    KLD,
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    kl_divergence,
    kld,
    kullback_leibler_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from kerasish.losses.registry import (
    deserialize,
    get,
    serialize,
)
from kerasish.losses.regression import (
    MAE,
    MAPE,
    MSE,
    MSLE,
    CosineSimilarity,
    Huber,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    cosine_similarity,
    huber,
    log_cosh,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
)

__all__ = [
    "Reduction",
    "compute_weighted_loss",
    "mean_squared_error",
    "mean_absolute_error",
    "huber",
    "binary_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
    "log_cosh",
    "kl_divergence",
    "poisson",
    "cosine_similarity",
    "hinge",
    "squared_hinge",
    "categorical_hinge",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "dice",
    "tversky",
    "circle",
    "ctc",
    "categorical_generalized_cross_entropy",
    "mse",
    "MSE",
    "mae",
    "MAE",
    "mape",
    "MAPE",
    "msle",
    "MSLE",
    "logcosh",
    "kld",
    "KLD",
    "kullback_leibler_divergence",
    "Loss",
    "LossFunctionWrapper",
    "CTC",
    "MeanSquaredError",
    "MeanAbsoluteError",
    "Huber",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "LogCosh",
    "KLDivergence",
    "Poisson",
    "CosineSimilarity",
    "Hinge",
    "SquaredHinge",
    "CategoricalHinge",
    "BinaryFocalCrossentropy",
    "CategoricalFocalCrossentropy",
    "Dice",
    "Tversky",
    "Circle",
    "CategoricalGeneralizedCrossEntropy",
    "get",
    "serialize",
    "deserialize",
]
