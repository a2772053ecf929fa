"""Losses by name, class, function or config: `get`, `serialize`, `deserialize`."""

from __future__ import annotations

import difflib

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.serialization import deserialize_keras_object
from kerasish.losses.base import Loss, LossFunctionWrapper
from kerasish.losses.ctc import CTC, ctc
from kerasish.losses.hinge import (
    CategoricalHinge,
    Hinge,
    SquaredHinge,
    categorical_hinge,
    hinge,
    squared_hinge,
)
from kerasish.losses.overlap import Circle, Dice, Tversky, circle, dice, tversky
from kerasish.losses.probabilistic import (
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
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from kerasish.losses.regression import (
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
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)

_CLASSES = {
    cls.__name__: cls
    for cls in (
        MeanSquaredError,
        MeanAbsoluteError,
        Huber,
        BinaryCrossentropy,
        CategoricalCrossentropy,
        SparseCategoricalCrossentropy,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
        LogCosh,
        KLDivergence,
        Poisson,
        CosineSimilarity,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        BinaryFocalCrossentropy,
        CategoricalFocalCrossentropy,
        Dice,
        Tversky,
        Circle,
        CategoricalGeneralizedCrossEntropy,
        CTC,
    )
}


_NAMES = {
    "mean_squared_error": MeanSquaredError,
    "mse": MeanSquaredError,
    "MSE": MeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError,
    "mae": MeanAbsoluteError,
    "MAE": MeanAbsoluteError,
    "huber": Huber,
    "huber_loss": Huber,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "mape": MeanAbsolutePercentageError,
    "MAPE": MeanAbsolutePercentageError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "msle": MeanSquaredLogarithmicError,
    "MSLE": MeanSquaredLogarithmicError,
    "log_cosh": LogCosh,
    "logcosh": LogCosh,
    "kl_divergence": KLDivergence,
    "kld": KLDivergence,
    "KLD": KLDivergence,
    "kullback_leibler_divergence": KLDivergence,
    "poisson": Poisson,
    "cosine_similarity": CosineSimilarity,
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "categorical_hinge": CategoricalHinge,
    "binary_focal_crossentropy": BinaryFocalCrossentropy,
    "categorical_focal_crossentropy": CategoricalFocalCrossentropy,
    "dice": Dice,
    "tversky": Tversky,
    "circle": Circle,
    "categorical_generalized_cross_entropy": CategoricalGeneralizedCrossEntropy,
    "ctc": CTC,
    **_CLASSES,
}


_FUNCTIONS = {
    mean_squared_error: MeanSquaredError,
    mean_absolute_error: MeanAbsoluteError,
    huber: Huber,
    binary_crossentropy: BinaryCrossentropy,
    categorical_crossentropy: CategoricalCrossentropy,
    sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
    mean_absolute_percentage_error: MeanAbsolutePercentageError,
    mean_squared_logarithmic_error: MeanSquaredLogarithmicError,
    log_cosh: LogCosh,
    kl_divergence: KLDivergence,
    poisson: Poisson,
    cosine_similarity: CosineSimilarity,
    hinge: Hinge,
    squared_hinge: SquaredHinge,
    categorical_hinge: CategoricalHinge,
    binary_focal_crossentropy: BinaryFocalCrossentropy,
    categorical_focal_crossentropy: CategoricalFocalCrossentropy,
    dice: Dice,
    tversky: Tversky,
    circle: Circle,
    ctc: CTC,
}


def get(identifier) -> Loss | None:
    """Resolve a loss given by name, class, instance, function or config to a `Loss` object.

    Always returns a `Loss` (or None for None), so whoever calls it (``compile``)
    has one reduction path and a string gives exactly the values of the
    corresponding object: ``get('mse')`` is ``MeanSquaredError()``,
    ``get(ks.losses.huber)`` is ``Huber()``, any other callable
    ``fn(y_true, y_pred)`` returning per-example losses is wrapped in a
    `LossFunctionWrapper`, and a ``{'class_name': ..., 'config': ...}`` dict (from
    `serialize`) is rebuilt. String names use the default arguments
    (``from_logits=False``); pass an object for other settings.

    Raises:
        InvalidArgumentError: for an unknown name, listing the valid names.
        TypeError: for anything else.

    Args:
        identifier: None, a name ('mse'), a `Loss` class or instance, a loss function, or a
            ``{'class_name': ..., 'config': ...}`` dict.

    Returns:
        A `Loss` object (the one given, if it is one), or None for None.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.get("sparse_categorical_crossentropy")
        SparseCategoricalCrossentropy(reduction='sum_over_batch_size', \
name='sparse_categorical_crossentropy', from_logits=False, ignore_class=None)
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        cls = _NAMES.get(identifier)
        if cls is None:
            close = difflib.get_close_matches(identifier, list(_NAMES), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise InvalidArgumentError(
                f"unknown loss {identifier!r}.{hint} Valid names: {', '.join(sorted(_NAMES))}; "
                "or pass a ks.losses.Loss object or a function fn(y_true, y_pred)"
            )
        return cls()
    if isinstance(identifier, dict):  # `serialize`'s form, or Keras 3's (through the registry)
        return get(deserialize_keras_object(identifier, module_objects=_CLASSES))
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier) and identifier in _FUNCTIONS:
        return _FUNCTIONS[identifier]()
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise TypeError(
        f"cannot interpret {identifier!r} as a loss; pass a name like 'mse', a "
        "ks.losses.Loss object or class, or a function fn(y_true, y_pred)"
    )


def serialize(loss: Loss) -> dict:
    """``{'class_name': ..., 'config': ...}`` for a built-in `Loss` (inverse of `get`).

    Args:
        loss: an instance of one of the built-in loss classes.

    Returns:
        A dict that `get` turns back into an equal loss.

    Raises:
        InvalidArgumentError: for a loss that is not of a built-in class.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.serialize(ks.losses.Huber(delta=2.0))["config"]["delta"]
        2.0
    """
    if type(loss).__name__ not in _CLASSES:
        raise InvalidArgumentError(
            f"serialize: only the built-in loss classes {sorted(_CLASSES)} can be serialized, "
            f"got {loss!r}"
        )
    return {"class_name": type(loss).__name__, "config": loss.get_config()}


def deserialize(name, custom_objects: dict | None = None) -> Loss:
    """The loss a `serialize` (or Keras 3) dict describes.

    Args:
        name: the ``{'class_name': ..., 'config': ...}`` dict.
        custom_objects: name -> class, for losses of your own.

    Returns:
        The rebuilt `Loss`.

    Example:
        >>> import kerasish as ks
        >>> ks.losses.deserialize({"class_name": "Dice", "config": {"axis": [1, 2]}})
        Dice(reduction='sum_over_batch_size', name='dice', axis=[1, 2])
    """
    return deserialize_keras_object(name, custom_objects, module_objects=_CLASSES)
