"""Weight regularizers: callables `reg(weight) -> scalar` added to a layer's `losses`."""

from __future__ import annotations

import math

from kerasish.core import serialization
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, nn_ops, reduction_ops, shape_ops
from kerasish.core.tensor import convert_to_tensor


class Regularizer:
    """Base class: subclasses implement `__call__(weight)` and `get_config()`.

    `reg(weight)` returns the penalty, a scalar tensor (differentiable in the weight);
    layers add it to their `losses` for each regularized weight.

    Example:
        >>> import kerasish as ks
        >>> class MaxAbs(ks.regularizers.Regularizer):
        ...     def __call__(self, weight):
        ...         return ks.reduce_max(ks.abs(weight))
        >>> float(MaxAbs()([1.0, -3.0]))
        3.0
    """

    def __call__(self, weight):
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments that rebuild this regularizer (Keras 3 key names)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """The regularizer `get_config` describes.

        Args:
            config: the constructor arguments, by name.

        Returns:
            A new regularizer of this class.

        Example:
            >>> import kerasish as ks
            >>> ks.regularizers.L1L2.from_config({"l1": 0.1}).get_config()
            {'l1': 0.1, 'l2': 0.0}
        """
        return cls(**config)


class L1L2(Regularizer):
    """l1 * sum(|w|) + l2 * sum(w**2).

    Args:
        l1: the L1 factor.
        l2: the L2 factor.

    Example:
        >>> import kerasish as ks
        >>> float(ks.regularizers.L1L2(l1=0.5, l2=0.25)([1.0, -2.0]))
        2.75
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, weight):
        total = 0.0
        if self.l1:
            total = total + reduction_ops.reduce_sum(math_ops.abs(weight)) * self.l1
        if self.l2:
            total = total + reduction_ops.reduce_sum(math_ops.square(weight)) * self.l2
        return total

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """l1 * sum(|w|).

    Args:
        l1: the factor.

    Example:
        >>> import kerasish as ks
        >>> float(ks.regularizers.L1(0.5)([1.0, -2.0]))
        1.5
    """

    def __init__(self, l1: float = 0.01):  # noqa: E741 - Keras's argument name
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """l2 * sum(w**2).

    Args:
        l2: the factor.

    Example:
        >>> import kerasish as ks
        >>> float(ks.regularizers.L2(0.5)([1.0, -2.0]))
        2.5
    """

    def __init__(self, l2: float = 0.01):
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


def l1(l1: float = 0.01) -> L1:  # noqa: E743 - Keras's name
    """`L1(l1)`, Keras's lower-case spelling.

    Args:
        l1: the factor.

    Returns:
        An `L1` regularizer.

    Example:
        >>> import kerasish as ks
        >>> ks.regularizers.l1().get_config()
        {'l1': 0.01}
    """
    return L1(l1)


def l2(l2: float = 0.01) -> L2:
    """`L2(l2)`, Keras's lower-case spelling.

    Args:
        l2: the factor.

    Returns:
        An `L2` regularizer.

    Example:
        >>> import kerasish as ks
        >>> ks.regularizers.l2(0.1).get_config()
        {'l2': 0.1}
    """
    return L2(l2)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E743
    """`L1L2(l1, l2)` with Keras's defaults for this spelling (0.01 each, not 0).

    Args:
        l1: the L1 factor.
        l2: the L2 factor.

    Returns:
        An `L1L2` regularizer.

    Example:
        >>> import kerasish as ks
        >>> ks.regularizers.l1_l2().get_config()
        {'l1': 0.01, 'l2': 0.01}
    """
    return L1L2(l1=l1, l2=l2)


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (or columns) of a 2-D weight towards being mutually orthogonal.

    With the rows (``mode='rows'``) or columns L2-normalized, the penalty is
    ``factor * mean over pairs i < j of |<u_i, u_j>|``: 0 for orthogonal vectors, `factor`
    for parallel ones.

    Args:
        factor: the penalty's scale, >= 0.
        mode: 'rows' or 'columns': which vectors are made orthogonal.

    Raises:
        InvalidArgumentError: a negative factor or an unknown mode; or, when called, a
            weight that is not 2-D.

    Example:
        >>> import kerasish as ks
        >>> reg = ks.regularizers.OrthogonalRegularizer(factor=1.0)
        >>> float(reg([[1.0, 0.0], [0.0, 2.0]])), round(float(reg([[1.0, 1.0], [2.0, 2.0]])), 5)
        (0.0, 1.0)
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows"):
        if not float(factor) >= 0 or math.isinf(float(factor)):
            raise InvalidArgumentError(
                f"OrthogonalRegularizer: factor must be a finite number >= 0, got {factor!r}"
            )
        if mode not in ("rows", "columns"):
            raise InvalidArgumentError(
                f"OrthogonalRegularizer: mode must be 'rows' or 'columns', got {mode!r}"
            )
        self.factor, self.mode = float(factor), mode

    def __call__(self, weight):
        weight = convert_to_tensor(weight)
        if weight.ndim != 2:
            raise InvalidArgumentError(
                f"OrthogonalRegularizer: needs a 2-D weight, got shape {weight.shape}"
            )
        if self.mode == "columns":
            weight = shape_ops.transpose(weight)
        unit = nn_ops.l2_normalize(weight, axis=1)
        size = weight.shape[0]
        products = math_ops.matmul(unit, unit, transpose_b=True)
        off_diagonal = products * (1.0 - creation_ops.eye(size, dtype=weight.dtype))
        pairs = size * (size - 1) / 2
        return reduction_ops.reduce_sum(math_ops.abs(off_diagonal)) * (0.5 * self.factor / pairs)

    def get_config(self) -> dict:
        return {"factor": self.factor, "mode": self.mode}


orthogonal_regularizer = OrthogonalRegularizer

_CLASSES = {
    "L1L2": L1L2, "L1": L1, "L2": L2, "OrthogonalRegularizer": OrthogonalRegularizer,
}
_NAMES = {
    "l1": l1, "l2": l2, "l1_l2": l1_l2, "orthogonal_regularizer": orthogonal_regularizer,
    **_CLASSES,
}


def serialize(regularizer) -> dict:
    """Keras 3's serialized form of a regularizer (see `ks.saving.serialize_keras_object`).

    Args:
        regularizer: a regularizer object.

    Returns:
        A dict with `module`, `class_name`, `config` and `registered_name`.

    Example:
        >>> import kerasish as ks
        >>> ks.regularizers.serialize(ks.regularizers.L2(0.1))["config"]
        {'l2': 0.1}
    """
    return serialization.serialize_keras_object(regularizer)


def deserialize(config: dict, custom_objects: dict | None = None):
    """A regularizer from `serialize`'s dict (`module` may be omitted).

    Args:
        config: the dict `serialize` returns (or Keras 3 writes).
        custom_objects: name -> class, for regularizers of your own.

    Returns:
        The regularizer.

    Example:
        >>> import kerasish as ks
        >>> config = {"class_name": "L1", "config": {"l1": 0.2}}
        >>> ks.regularizers.deserialize(config).get_config()
        {'l1': 0.2}
    """
    return serialization.deserialize_keras_object(config, custom_objects, module_objects=_CLASSES)


def get(identifier):
    """A regularizer from a name ('l2' or 'L2'), an instance, a serialized dict, or any
    callable.

    Args:
        identifier: what to turn into a regularizer (None gives None).

    Returns:
        A regularizer (a callable `weight -> scalar`), or None.

    Raises:
        InvalidArgumentError: an unknown name or a value that is not callable.

    Example:
        >>> import kerasish as ks
        >>> ks.regularizers.get("l2").get_config()
        {'l2': 0.01}
    """
    return serialization.resolve_callable(identifier, "regularizer", _NAMES, _CLASSES)
