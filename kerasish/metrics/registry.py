"""Metric look-up: `get` (names, classes, instances, functions) and `resolve_accuracy`.

`'accuracy'` in `compile(metrics=[...])` is not one metric: the right one
depends on the loss and the shapes of labels and predictions. `resolve_accuracy`
makes that choice once, the way Keras does, but also reads `from_logits`
from the loss, so a BCE-with-logits model's accuracy thresholds sigmoid(logits)
rather than the raw logits. The returned metric keeps the name 'accuracy', so
logs say 'accuracy', and its class says which one was chosen.
"""

from __future__ import annotations

import difflib

from kerasish import losses
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.naming import snake_case
from kerasish.core.serialization import deserialize_keras_object
from kerasish.metrics.base import Metric
from kerasish.metrics.classification import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
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
from kerasish.metrics.correlation import ConcordanceCorrelation, PearsonCorrelation
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
from kerasish.metrics.reduction import Mean, MeanMetricWrapper, Sum
from kerasish.metrics.regression import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    R2Score,
    RootMeanSquaredError,
)

ACCURACY_NAMES = ("accuracy", "acc")

_BY_NAME = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mean_squared_error": MeanSquaredError,
    "mse": MeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError,
    "mae": MeanAbsoluteError,
    "root_mean_squared_error": RootMeanSquaredError,
    "rmse": RootMeanSquaredError,
    "auc": AUC,
    "precision": Precision,
    "recall": Recall,
    "mean": Mean,
    "sum": Sum,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "mape": MeanAbsolutePercentageError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "msle": MeanSquaredLogarithmicError,
    "cosine_similarity": CosineSimilarity,
    "logcosh": LogCoshError,
    "log_cosh": LogCoshError,
    "kl_divergence": KLDivergence,
    "kld": KLDivergence,
    "poisson": Poisson,
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "categorical_hinge": CategoricalHinge,
    "true_positives": TruePositives,
    "false_positives": FalsePositives,
    "true_negatives": TrueNegatives,
    "false_negatives": FalseNegatives,
    "f1_score": F1Score,
    "fbeta_score": FBetaScore,
    "r2_score": R2Score,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "pearson_correlation": PearsonCorrelation,
    "concordance_correlation": ConcordanceCorrelation,
}
_BY_CLASS_NAME = {cls.__name__: cls for cls in set(_BY_NAME.values())}
_BY_CLASS_NAME.update(
    {
        cls.__name__: cls
        for cls in (
            BinaryIoU,
            IoU,
            MeanIoU,
            OneHotIoU,
            OneHotMeanIoU,
            PrecisionAtRecall,
            RecallAtPrecision,
            SensitivityAtSpecificity,
            SpecificityAtSensitivity,
        )
    }
)


def get(identifier):
    """A metric from a name, a class, an instance, a config dict or a function.

    Args:
        identifier: a name ('accuracy', 'acc', 'mse', 'mae', 'rmse', 'auc',
            'precision', 'recall', 'binary_accuracy', 'categorical_accuracy',
            'sparse_categorical_accuracy', 'top_k_categorical_accuracy', ...,
            or a class name such as 'MeanSquaredError'); a `Metric` subclass
            (instantiated) or instance (returned as is); a dict
            `{'class_name': ..., 'config': {...}}`; or a function
            `fn(y_true, y_pred)` returning per-example values (wrapped in a
            `MeanMetricWrapper` named after it). A loss name (e.g.
            'binary_crossentropy') or a `ks.losses.Loss` object gives the
            streaming weighted mean of that loss's per-example values.

    A metric made from a name is named by it, so `metrics=['mse']` logs 'mse'.
    'accuracy' gives the elementwise `Accuracy`; `compile` should call
    `resolve_accuracy` instead to pick the concrete accuracy.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.get("mse")
        >>> type(m).__name__, m.name
        ('MeanSquaredError', 'mse')
    """
    if identifier is None or isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, dict):  # `serialize`'s form, or Keras 3's (through the registry)
        return get(deserialize_keras_object(identifier, module_objects=_BY_CLASS_NAME))
    if isinstance(identifier, str):
        key = identifier.strip()
        if key.lower() in _BY_NAME:
            return _BY_NAME[key.lower()](name=key)
        if key in _BY_CLASS_NAME:
            return _BY_CLASS_NAME[key]()
        loss = _loss_function(key)
        if loss is not None:
            return MeanMetricWrapper(loss, name=key)
        known = sorted(_BY_NAME)
        close = difflib.get_close_matches(key.lower(), known + sorted(_BY_CLASS_NAME), n=3)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise InvalidArgumentError(
            f"unknown metric {identifier!r}.{hint} Known names: {', '.join(known)}; a Metric "
            "instance or a function fn(y_true, y_pred) also works"
        )
    if _is_loss_object(identifier):  # the streaming mean of the loss, per example
        return MeanMetricWrapper(_per_example(identifier), name=identifier.name)
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise InvalidArgumentError(
        f"cannot interpret {identifier!r} ({type(identifier).__name__}) as a metric; pass a "
        "name such as 'accuracy', a Metric instance, or a function fn(y_true, y_pred)"
    )


def _loss_function(name: str):
    """The per-example form of the loss `ks.losses.get(name)` knows, or None."""
    try:
        loss = losses.get(name)
    except (ValueError, KeyError, TypeError):
        return None
    return _per_example(loss)


def _per_example(loss):
    """A loss object's per-example function (`loss.call`), so weights work per example."""
    per_example = getattr(loss, "call", None)
    return per_example if callable(per_example) else loss


def _is_loss_object(identifier) -> bool:
    return isinstance(identifier, losses.Loss)


def serialize(metric: Metric) -> dict:
    """{'class_name': ..., 'config': {...}} for the built-in metrics that have a config.

    Args:
        metric: a metric object.

    Returns:
        A dict that `ks.metrics.get` turns back into an equal metric.

    Example:
        >>> import kerasish as ks
        >>> ks.metrics.serialize(ks.metrics.Mean(name="avg"))
        {'class_name': 'Mean', 'config': {'name': 'avg', 'dtype': 'float32'}}
    """
    config = metric.get_config() if hasattr(metric, "get_config") else {"name": metric.name}
    return {"class_name": type(metric).__name__, "config": config}


def deserialize(config, custom_objects: dict | None = None) -> Metric:
    """The metric a `serialize` (or Keras 3) dict describes.

    Args:
        config: the ``{'class_name': ..., 'config': ...}`` dict.
        custom_objects: name -> class, for metrics of your own.

    Returns:
        The rebuilt metric.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.deserialize({"class_name": "IoU", "config": {
        ...     "num_classes": 3, "target_class_ids": [0, 2]}})
        >>> m.target_class_ids
        [0, 2]
    """
    return deserialize_keras_object(config, custom_objects, module_objects=_BY_CLASS_NAME)


# ---------------------------------------------------------------- 'accuracy' in compile


def _loss_names(loss) -> list:
    """Lower-case names a loss goes by: the string, its `name`, its class or function name."""
    if loss is None:
        return []
    if isinstance(loss, str):
        return [snake_case(loss.strip())]
    names = []
    for candidate in (
        getattr(loss, "name", None),
        getattr(loss, "__name__", None),
        getattr(getattr(loss, "fn", None), "__name__", None),
        None if isinstance(loss, type) else type(loss).__name__,
    ):
        if isinstance(candidate, str):
            names.append(snake_case(candidate))
    return names


def _loss_kind(loss) -> tuple:
    """('sparse' | 'categorical' | 'binary' | None, from_logits) for a loss."""
    kind, from_logits = None, False
    for name in _loss_names(loss):
        if name in ("bce", "binary_crossentropy", "binary_focal_crossentropy") or (
            "sigmoid_cross_entropy" in name or "binary_crossentropy" in name
        ):
            kind = "binary"
        elif "sparse" in name and ("crossentropy" in name or "cross_entropy" in name):
            kind = "sparse"
        elif name == "cce" or "categorical_crossentropy" in name or "softmax_cross_entropy" in name:
            kind = "categorical"
        else:
            continue
        from_logits = from_logits or "with_logits" in name
        break
    settings = [getattr(loss, "from_logits", None), getattr(loss, "_from_logits", None)]
    if not isinstance(loss, (str, type)) and callable(getattr(loss, "get_config", None)):
        settings.append(loss.get_config().get("from_logits"))
    return kind, from_logits or any(value is True for value in settings)


def _dims(shape) -> tuple | None:
    if shape is None:
        return None
    return tuple(None if d is None else int(d) for d in shape)


def resolve_accuracy(loss=None, y_true_shape=None, y_pred_shape=None, name: str = "accuracy"):
    """The concrete accuracy metric that `compile(metrics=['accuracy'])` means.

    The loss decides first: sparse categorical cross-entropy gives
    `SparseCategoricalAccuracy`, categorical cross-entropy
    `CategoricalAccuracy`, binary cross-entropy `BinaryAccuracy` (with the
    loss's `from_logits`, so the 0.5 threshold applies to probabilities).
    Otherwise the shapes decide, as in Keras: one output unit (or rank-1
    predictions) is binary; labels of lower rank than the predictions, or
    labels (batch, 1) against several units, are sparse; the rest categorical.

    Args:
        loss: the loss as given to `compile` (a name, function, class or instance), or None.
        y_true_shape: shape of one batch of labels (the batch size may be None).
        y_pred_shape: shape of one batch of predictions.
        name: the returned metric's name (default 'accuracy', so logs say 'accuracy').

    Returns:
        A new metric instance named `name`.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.resolve_accuracy("sparse_categorical_crossentropy", (32,), (32, 10))
        >>> type(m).__name__, m.name
        ('SparseCategoricalAccuracy', 'accuracy')
        >>> type(ks.metrics.resolve_accuracy("mse", (32, 1), (32, 1))).__name__
        'BinaryAccuracy'
    """
    kind, from_logits = _loss_kind(loss)
    true_shape, pred_shape = _dims(y_true_shape), _dims(y_pred_shape)
    if kind is None and pred_shape is not None:
        if len(pred_shape) <= 1 or pred_shape[-1] == 1:
            kind = "binary"
        elif true_shape is not None:
            sparse = len(true_shape) < len(pred_shape) or (
                len(true_shape) == len(pred_shape) and true_shape[-1] == 1
            )
            kind = "sparse" if sparse else "categorical"
    if kind == "binary":
        return BinaryAccuracy(name=name, from_logits=from_logits)
    if kind == "sparse":
        return SparseCategoricalAccuracy(name=name, from_logits=from_logits)
    if kind == "categorical":
        return CategoricalAccuracy(name=name, from_logits=from_logits)
    if pred_shape is None:
        return Accuracy(name=name)  # nothing to go on: plain elementwise equality
    raise InvalidArgumentError(
        f"resolve_accuracy: cannot tell whether labels for predictions of shape {pred_shape} "
        f"are class indices or one-hot with loss {loss!r}; pass y_true_shape, or name the "
        "metric: 'sparse_categorical_accuracy' or 'categorical_accuracy'"
    )
