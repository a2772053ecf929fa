"""What every loss shares: input checks, the weighted reduction and the `Loss` classes.

Shapes: if y_true and y_pred differ in rank by one and the longer one ends in a
1, they are aligned as Keras does (a (batch,) target against a (batch, 1)
prediction is expanded to (batch, 1), never broadcast to (batch, batch)).
After that y_true must broadcast to y_pred's shape; anything else raises an
error that prints both shapes.

Weighted reduction (the one definition, `compute_weighted_loss`, used by every
`Loss` object and by string names resolved with `get`): with per-example losses
``l`` (any shape) and ``w = sample_weight`` (broadcast to ``l``'s shape, default 1):

- ``'sum_over_batch_size'`` (default): ``sum(w * l) / N``, where N is the
  number of elements of ``l``, *not* ``sum(w)``; so a weight of 0 still counts in
  N, as in Keras. An empty batch gives 0.
- ``'sum'``: ``sum(w * l)``.
- ``'none'``: ``w * l``, unreduced.
- ``'mean_with_sample_weight'``: ``sum(w * l) / sum(w)`` (Keras 3: the weights as
  given, not broadcast), ``'sum_over_batch_size'`` when no weights are given.

A mask (``SparseCategoricalCrossentropy(ignore_class=...)`` makes one) leaves
its False positions out of the sum, of N and of ``sum(w)``.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.naming import snake_case
from kerasish.core.ops import math_ops, reduction_ops, shape_ops
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor


def loss_function(function):
    """Declare a built-in loss function: its module is `kerasish.losses`, its public home,
    whichever file of the package defines it, since saved files name it by module and name
    (``keras.losses`` for a compiled loss, ``kerasish.losses.huber`` for a functional
    model's node); on symbolic tensors of unknown batch size it records one node
    (`symbolic_fallback`)."""
    function.__module__ = __package__
    return symbolic_fallback(function)


def _prediction(y_pred, name: str) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    if y_pred.dtype.kind != "f":
        y_pred = math_ops.cast(y_pred, np.float32)
    return y_pred


def _align_ranks(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Keras's squeeze-or-expand: make ranks equal when they differ by a trailing 1."""
    if a.ndim == b.ndim + 1 and a.shape[-1] == 1:
        if b.ndim == 1:
            return a, shape_ops.expand_dims(b, -1)
        return shape_ops.squeeze(a, -1), b
    if b.ndim == a.ndim + 1 and b.shape[-1] == 1:
        if a.ndim == 1:
            return shape_ops.expand_dims(a, -1), b
        return a, shape_ops.squeeze(b, -1)
    return a, b


def _prepare(y_true, y_pred, name: str, exact: bool = False) -> tuple[Tensor, Tensor]:
    """y_true cast to y_pred's float dtype, ranks aligned, broadcast to y_pred's shape.

    Broadcasting is allowed only from a scalar or between equal ranks (size-1
    axes), never by prepending axes: (n,) against (n, n) is an error, not an
    outer difference. With `exact`, shapes must be equal after rank alignment.
    """
    y_pred = _prediction(y_pred, name)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = _align_ranks(y_true, y_pred)
    shape = None
    if y_true.shape == y_pred.shape or (
        not exact and (y_true.ndim == 0 or y_true.ndim == y_pred.ndim)
    ):
        try:
            shape = np.broadcast_shapes(y_true.shape, y_pred.shape)
        except ValueError:
            pass
    if shape != y_pred.shape:
        raise InvalidArgumentError(
            f"{name}: y_true shape {y_true.shape} does not match y_pred shape {y_pred.shape}; "
            "give targets with the prediction's shape"
            + (
                " (integer class ids need sparse_categorical_crossentropy)"
                if exact and y_true.ndim + 1 == y_pred.ndim
                else ""
            )
        )
    if y_true.shape != y_pred.shape:
        y_true = shape_ops.broadcast_to(y_true, y_pred.shape)
    return y_true, y_pred


def _mean_last_axis(values: Tensor) -> Tensor:
    return reduction_ops.reduce_mean(values, -1) if values.ndim else values


# ---------------------------------------------------------------- weighted reduction


class Reduction:
    """The reductions a `Loss` accepts (``tf.keras.losses.Reduction`` spelling)."""

    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    SUM = "sum"
    NONE = "none"
    MEAN_WITH_SAMPLE_WEIGHT = "mean_with_sample_weight"
    AUTO = "auto"  # = SUM_OVER_BATCH_SIZE

    @classmethod
    def all(cls) -> tuple:
        return (cls.SUM_OVER_BATCH_SIZE, cls.SUM, cls.NONE, cls.MEAN_WITH_SAMPLE_WEIGHT)

    @classmethod
    def validate(cls, reduction) -> str:
        """The canonical name of `reduction` (None means 'none', 'auto' the default).

        Args:
            reduction: a reduction name, 'auto' or None.

        Returns:
            One of `Reduction.all()`.

        Raises:
            InvalidArgumentError: for an unknown name, listing the valid ones.

        Example:
            >>> import kerasish as ks
            >>> ks.losses.Reduction.validate("auto")
            'sum_over_batch_size'
        """
        if reduction is None:
            return cls.NONE
        if reduction == cls.AUTO:
            return cls.SUM_OVER_BATCH_SIZE
        if reduction not in cls.all():
            raise InvalidArgumentError(
                f"unknown loss reduction {reduction!r}; use one of {list(cls.all())}"
            )
        return reduction


def compute_weighted_loss(
    losses,
    sample_weight=None,
    reduction: str = "sum_over_batch_size",
    name: str = "loss",
    mask=None,
):
    """Weight per-example `losses` by `sample_weight` and reduce them.

    The one weighted reduction of kerasish losses (see the module docstring):
    ``'sum_over_batch_size'`` gives ``sum(w * l) / N`` with N the number of
    elements of `losses` (0 for an empty batch), ``'sum'`` gives ``sum(w * l)``,
    ``'none'`` gives ``w * l``, and ``'mean_with_sample_weight'`` gives
    ``sum(w * l) / sum(w)`` (Keras 3: the sum of the weights as given, not
    broadcast to the losses' shape; without weights it is
    ``'sum_over_batch_size'``). Zero total weight gives 0.

    Args:
        losses: per-example losses, e.g. shape (batch,) or (batch, time).
        sample_weight: None, a scalar, or weights broadcastable to `losses`; a
            (batch,) weight against (batch, time) losses weighs each row, a
            (batch, 1) weight against (batch,) losses is squeezed.
        reduction: 'sum_over_batch_size' (default), 'sum', 'none' or
            'mean_with_sample_weight'.
        name: used in error messages.
        mask: None, or booleans of the losses' shape: False positions count
            neither in the sum nor in N (nor in the weight total), as Keras
            treats a mask (e.g. `SparseCategoricalCrossentropy(ignore_class=)`).

    Example:
        >>> import kerasish as ks
        >>> float(ks.losses.compute_weighted_loss([1., 2., 3., 4.], [1., 1., 0., 0.]))
        0.75
        >>> float(ks.losses.compute_weighted_loss(
        ...     [1., 2., 3., 4.], [1., 1., 0., 0.], reduction="mean_with_sample_weight"))
        1.5
    """
    reduction = Reduction.validate(reduction)
    losses = convert_to_tensor(losses)
    if losses.dtype.kind != "f":
        losses = math_ops.cast(losses, np.float32)
    if sample_weight is not None:
        w = math_ops.cast(convert_to_tensor(sample_weight), losses.dtype)
        if w.ndim == losses.ndim + 1 and w.shape[-1] == 1:
            w = shape_ops.squeeze(w, -1)
        elif w.ndim >= 1 and w.ndim + 1 == losses.ndim:
            w = shape_ops.expand_dims(w, -1)
        try:
            shape = np.broadcast_shapes(w.shape, losses.shape)
        except ValueError:
            shape = None
        if shape != losses.shape:
            hint = ""
            if losses.ndim == 0:
                hint = (
                    "; the loss reduced the last axis of rank-1 y_true/y_pred to a scalar: "
                    "give them shape (batch, 1) for one loss per example"
                )
            raise InvalidArgumentError(
                f"{name}: sample_weight shape {tuple(np.shape(sample_weight))} does not fit the "
                f"per-example losses of shape {losses.shape}{hint}"
            )
        losses = losses * w
    if mask is not None:
        mask = math_ops.cast(convert_to_tensor(mask), losses.dtype)
        if mask.shape != losses.shape:
            raise InvalidArgumentError(
                f"{name}: mask shape {mask.shape} does not match the per-example losses' "
                f"shape {losses.shape}"
            )
        losses = losses * mask
    if reduction == Reduction.NONE:
        return losses
    total = reduction_ops.reduce_sum(losses)
    if reduction == Reduction.SUM:
        return total
    if reduction == Reduction.MEAN_WITH_SAMPLE_WEIGHT and sample_weight is not None:
        if mask is not None:
            w = shape_ops.broadcast_to(w, losses.shape) * mask
        # all weights 0: 0, not NaN
        return math_ops.divide_no_nan(total, reduction_ops.reduce_sum(w))
    if mask is not None:
        return math_ops.divide_no_nan(total, reduction_ops.reduce_sum(mask))
    return total / float(max(losses.size, 1))


# ---------------------------------------------------------------- Loss objects


def _computation_dtype(dtype, name: str):
    """A loss's `dtype` argument as a float dtype name, or None."""
    if dtype is None:
        return None
    dtype = getattr(dtype, "compute_dtype", dtype)  # a DTypePolicy
    try:
        kind = np.dtype(dtype)
    except TypeError:
        kind = None
    if kind is None or kind.kind != "f":
        raise InvalidArgumentError(
            f"{name}: dtype must be a floating-point dtype (the dtype of the loss's "
            f"computation), got {dtype!r}")
    return kind.name


class Loss:
    """Base of loss objects: ``loss(y_true, y_pred, sample_weight=None)`` -> reduced loss.

    Subclasses implement ``call(y_true, y_pred)`` (given tensors) returning
    per-example losses; ``__call__`` weights and reduces them with
    `compute_weighted_loss`.

    Args:
        reduction: 'sum_over_batch_size' (default), 'sum' or 'none'.
        name: a name for logs (default: the class name in snake_case).
        dtype: the dtype of the computation (Keras's `dtype`): given, y_pred and float
            y_true are cast to it before `call`, and the loss comes out in it; a
            `DTypePolicy` gives its compute dtype. None: the dtype of y_pred, except
            that float16 predictions (a mixed-precision model's) are computed in
            `floatx()`, as Keras does, so the loss neither overflows nor rounds away.

    Example:
        >>> import kerasish as ks
        >>> class Cube(ks.losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return ks.reduce_mean(ks.abs(y_pred - y_true) ** 3, -1)
        >>> float(Cube()([[0.], [0.]], [[1.], [2.]]))
        4.5
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str | None = None,
                 dtype=None):
        self.reduction = Reduction.validate(reduction)
        self.name = name or snake_case(type(self).__name__)
        self._dtype = _computation_dtype(dtype, self.name)

    @property
    def dtype(self):
        """The dtype the loss computes in (a string), or None: y_pred's."""
        return self._dtype

    def _cast_inputs(self, y_true, y_pred):
        """y_pred, and y_true when it holds floats, as tensors of the loss's dtype."""
        y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
        dtype = self._dtype
        if dtype is None and y_pred.dtype == np.float16:
            dtype = settings.floatx()
        if dtype is None:
            return y_true, y_pred
        if y_true.dtype.kind in "fb":
            y_true = math_ops.cast(y_true, dtype)
        return y_true, math_ops.cast(y_pred, dtype)

    def call(self, y_true, y_pred):
        """The per-example losses, before weighting and reduction; subclasses override it.

        Args:
            y_true: the targets, as a tensor.
            y_pred: the predictions, as a tensor.

        Returns:
            The unreduced losses, e.g. one per example.

        Raises:
            NotImplementedError: on a subclass that does not override it.

        Example:
            >>> import kerasish as ks
            >>> loss = ks.losses.MeanAbsoluteError()
            >>> loss.call(ks.constant([[1.], [1.]]), ks.constant([[3.], [0.]])).numpy()
            array([2., 1.], dtype=float32)
        """
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred)")

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(*self._cast_inputs(y_true, y_pred))
        return compute_weighted_loss(losses, sample_weight, self.reduction, self.name)

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        """A loss of this class made from `get_config`'s dict.

        Args:
            config: the constructor's keyword arguments, as `get_config` returns them.

        Returns:
            A new loss equal to the one the config came from.

        Example:
            >>> import kerasish as ks
            >>> ks.losses.Huber.from_config(ks.losses.Huber(delta=2.0).get_config())
            Huber(reduction='sum_over_batch_size', name='huber_loss', delta=2.0)
        """
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class LossFunctionWrapper(Loss):
    """A `Loss` around a per-example loss function ``fn(y_true, y_pred, **kwargs)``.

    As in Keras 3, `fn` gets y_true and y_pred with their ranks aligned when they differ
    by a trailing axis of size 1 (`_align_ranks`): (batch,) labels against a (batch, 1)
    prediction reach `fn` as (batch, 1), so ``mean(square(y_true - y_pred))`` is not an
    outer difference. `compile` wraps a plain function in this class; a `Loss` subclass
    that overrides `call` gets the tensors as they are, as in Keras.

    Args:
        fn: ``fn(y_true, y_pred, **kwargs)`` returning per-example losses.
        reduction: how the per-example losses are reduced (see `Loss`).
        name: the loss's name in logs (default: fn's ``__name__``).
        dtype: the dtype of the computation (see `Loss`).
        **kwargs: keyword arguments passed to every call of `fn` (and kept in the config).

    Example:
        >>> import kerasish as ks
        >>> loss = ks.losses.LossFunctionWrapper(lambda t, p, power: abs(p - t) ** power, power=3)
        >>> float(loss([0., 0.], [1., 2.]))
        4.5
    """

    def __init__(
        self, fn, reduction: str = "sum_over_batch_size", name: str | None = None, dtype=None,
        **kwargs
    ):
        super().__init__(reduction, name or getattr(fn, "__name__", "loss"), dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        """``fn(y_true, y_pred, **kwargs)``: the wrapped function's per-example losses.

        Args:
            y_true: the targets.
            y_pred: the predictions.

        Returns:
            What the wrapped function returns.

        Example:
            >>> import kerasish as ks
            >>> ks.losses.Huber(delta=1.0).call([[0.]], [[3.]]).numpy()
            array([2.5], dtype=float32)
        """
        y_true, y_pred = _align_ranks(convert_to_tensor(y_true), convert_to_tensor(y_pred))
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}
