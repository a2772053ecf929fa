"""`ks.optimizers`: Keras 3's optimizers, learning-rate schedules, and `get`.

Example:
    >>> import kerasish as ks
    >>> type(ks.optimizers.get("Adam")).__name__
    'Adam'
"""

from __future__ import annotations

from kerasish.core.global_step import get_or_create_global_step  # noqa: F401
from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.optimizers import schedules  # noqa: F401
from kerasish.optimizers.adadelta import Adadelta
from kerasish.optimizers.adafactor import Adafactor
from kerasish.optimizers.adagrad import Adagrad
from kerasish.optimizers.adam import Adam, AdamW
from kerasish.optimizers.adamax import Adamax
from kerasish.optimizers.ftrl import Ftrl
from kerasish.optimizers.lamb import Lamb
from kerasish.optimizers.lion import Lion
from kerasish.optimizers.loss_scale_optimizer import LossScaleOptimizer
from kerasish.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from kerasish.optimizers.muon import Muon
from kerasish.optimizers.nadam import Nadam
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rmsprop import RMSprop
from kerasish.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from kerasish.optimizers.schedules import (  # noqa: F401
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    LearningRateSchedule,
    PiecewiseConstantDecay,
    PolynomialDecay,
)
from kerasish.optimizers.sgd import SGD

_BY_NAME = {cls.__name__.lower(): cls for cls in (
    SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adafactor, Adamax, Ftrl, Lamb, Lion, Nadam,
    Muon, ScheduleFreeAdamW)}


def serialize(optimizer: Optimizer) -> dict:
    """Keras 3's serialized form (`ks.saving.serialize_keras_object`; plain data that
    `deserialize` or `get` rebuilds).

    Args:
        optimizer: an optimizer object.

    Returns:
        A dict with `module`, `class_name`, `config` (the hyperparameters, not the
        state) and `registered_name`.

    Example:
        >>> import kerasish as ks
        >>> config = ks.optimizers.serialize(ks.optimizers.SGD(0.5, momentum=0.9))
        >>> config["class_name"], config["config"]["momentum"]
        ('SGD', 0.9)
    """
    return serialize_keras_object(optimizer)


def deserialize(config: dict, custom_objects: dict | None = None) -> Optimizer:
    """Rebuild an optimizer (with fresh state) from `serialize`'s dict (or Keras's).

    Args:
        config: the dict `serialize` returns (or Keras 3 writes).
        custom_objects: name -> class, for optimizers of your own.

    Returns:
        A new optimizer with those hyperparameters.

    Example:
        >>> import kerasish as ks
        >>> sgd = ks.optimizers.deserialize(ks.optimizers.serialize(ks.optimizers.SGD(0.5)))
        >>> type(sgd).__name__, float(sgd.learning_rate)
        ('SGD', 0.5)
    """
    classes = {cls.__name__: cls for cls in (*_BY_NAME.values(), LossScaleOptimizer,
                                             MultiOptimizer, OptimizerMap)}
    return deserialize_keras_object(config, custom_objects, module_objects=classes)


def get(identifier) -> Optimizer:
    """An optimizer from a name ('adam', case-insensitive), an instance, a class or a config dict.

    Names: 'adadelta', 'adafactor', 'adagrad', 'adam', 'adamax', 'adamw', 'ftrl', 'lamb',
    'lion', 'muon', 'nadam', 'rmsprop', 'schedulefreeadamw', 'sgd' (with default
    hyperparameters).

    Args:
        identifier: a name, an optimizer object (returned as it is), an optimizer
            class (made with its defaults) or a serialized dict.

    Returns:
        An optimizer.

    Raises:
        ValueError: for an unknown name (listing the valid ones).
        TypeError: for anything else.

    Example:
        >>> import kerasish as ks
        >>> type(ks.optimizers.get("Adam")).__name__
        'Adam'
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.strip().lower())
        if cls is None:
            valid = ", ".join(repr(n) for n in sorted(_BY_NAME))
            raise ValueError(
                f"unknown optimizer {identifier!r}; valid names are {valid} (case-insensitive), "
                "or pass an optimizer object such as ks.optimizers.Adam(learning_rate=1e-3)"
            )
        return cls()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise TypeError(
        f"cannot interpret {type(identifier).__name__} {identifier!r} as an optimizer; pass a "
        "name such as 'adam' or an optimizer object"
    )


__all__ = [
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "CosineDecay",
    "CosineDecayRestarts",
    "ExponentialDecay",
    "Ftrl",
    "InverseTimeDecay",
    "Lamb",
    "LearningRateSchedule",
    "Lion",
    "LossScaleOptimizer",
    "MultiOptimizer",
    "Muon",
    "Nadam",
    "Optimizer",
    "OptimizerMap",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
    "RMSprop",
    "SGD",
    "ScheduleFreeAdamW",
    "deserialize",
    "get",
    "get_or_create_global_step",
    "schedules",
    "serialize",
]
