"""The `Metric` base class: streaming state in non-trainable variables, updated off the tape.

A metric accumulates state over batches (`update_state`), reports a value
(`result`) and starts over (`reset_state`). Its state lives in non-trainable
`ks.Variable`s held as attributes, so checkpoints capture it under readable
paths (`accuracy/total`, `accuracy/count`), and it is updated in place on the
device where the data lives: nothing leaves the device before `result()` is
read as a number.

Updates never reach a `GradientTape`: every subclass's `update_state` and
`result` run with recording paused, so a metric called inside a training
step adds nothing to the tape and costs no more than the raw array arithmetic.
"""

from __future__ import annotations

import functools

import numpy as np

from kerasish import initializers
from kerasish.core import backend, recording
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.naming import snake_case
from kerasish.core.ops import math_ops, shape_ops
from kerasish.core.tensor import Tensor, Variable, as_dtype, convert_to_tensor
from kerasish.core.tracking import Trackable


def _off_tape(method):
    """Run `method` with every tape paused (a no-op cost when no tape is recording)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if not recording.active_tapes():
            return method(self, *args, **kwargs)
        with recording.paused():
            return method(self, *args, **kwargs)

    wrapper._off_tape = True
    return wrapper


class Metric(Trackable):
    """Base class of streaming metrics: subclass and implement `update_state` and `result`.

    Create state with `add_weight` in `__init__` and keep it as attributes;
    `update_state` adds to it in place with `assign_add`; `result` computes the
    value from it. `reset_state` (alias `reset_states`) restores every weight
    to its initial value. Calling the metric updates it and returns `result()`.

    Args:
        name: the metric's name, as it appears in logs (default: from the class).
        dtype: dtype of the state and the result (default float32).

    Example:
        >>> import kerasish as ks
        >>> class Count(ks.metrics.Metric):
        ...     def __init__(self, name="count"):
        ...         super().__init__(name=name)
        ...         self.n = self.add_weight("n")
        ...     def update_state(self, values):
        ...         self.n.assign_add(ks.cast(ks.size(values), self.dtype))
        ...     def result(self):
        ...         return ks.identity(self.n)
        >>> m = Count()
        >>> float(m([1, 2, 3]))
        3.0
    """

    _untracked_attributes = frozenset({"_weights", "_initializers"})
    _default_name: str | None = None  # the Keras name; snake_case of the class name if None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for attr in ("update_state", "result"):
            method = cls.__dict__.get(attr)
            if method is not None and not getattr(method, "_off_tape", False):
                setattr(cls, attr, _off_tape(method))

    def __init__(self, name: str | None = None, dtype=None):
        if name is None:
            name = self._default_name or snake_case(type(self).__name__)
        self._name = str(name)
        self._dtype = as_dtype(dtype) or np.dtype("float32")
        self._weights: list[Variable] = []
        self._initializers: list = []

    # -- identity -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def variables(self) -> list:
        """The state variables, in creation order."""
        return list(self._weights)

    weights = variables

    @property
    def trainable_variables(self) -> list:
        return []

    @property
    def non_trainable_variables(self) -> list:
        return list(self._weights)

    def _describe(self) -> str:
        return f"{type(self).__name__} metric '{self._name}'"

    # -- state --------------------------------------------------------------
    def add_weight(self, name: str, shape=(), initializer="zeros", dtype=None) -> Variable:
        """Create a non-trainable state variable; keep it as an attribute to name its path.

        Args:
            name: the variable's name (e.g. 'total').
            shape: its shape (default: a scalar).
            initializer: a name ('zeros', 'ones'), an initializer, or a callable
                `(shape, dtype) -> tensor`; `reset_state` re-applies it.
            dtype: defaults to the metric's dtype.

        Returns:
            The new variable.

        Example:
            >>> import kerasish as ks
            >>> metric = ks.metrics.Mean()
            >>> best = metric.add_weight("best", shape=(2,), initializer="ones")
            >>> best.name, best.numpy()
            ('best', array([1., 1.], dtype=float32))
        """
        dtype = as_dtype(dtype) or self._dtype
        shape = tuple(int(d) for d in shape)
        init = initializers.get(initializer)
        variable = Variable(init(shape, dtype), name=name, trainable=False, dtype=dtype)
        self._weights.append(variable)
        self._initializers.append(init)
        return variable

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """Keras 3's spelling of `add_weight`: a non-trainable state variable.

        Args:
            shape: its shape.
            initializer: a name ('zeros', 'ones'), an initializer, or a callable.
            dtype: defaults to the metric's dtype.
            aggregation: how replicas would combine it (Keras's argument); one of
                'sum', 'mean', 'only_first_replica', 'none'. kerasish keeps one copy.
            name: the variable's name (default 'variable').

        Returns:
            The new variable.

        Raises:
            ValueError: for an unknown aggregation.

        Example:
            >>> import kerasish as ks
            >>> count = ks.metrics.Mean().add_variable((), "zeros", name="count")
            >>> count.name, float(count)
            ('count', 0.0)
        """
        if aggregation not in ("sum", "mean", "only_first_replica", "none", None):
            raise ValueError(
                f"{type(self).__name__}.add_variable: aggregation must be one of 'sum', 'mean', "
                f"'only_first_replica' or 'none', got {aggregation!r}")
        return self.add_weight(name or "variable", shape, initializer, dtype)

    def _tracked_children(self) -> list:
        """Attribute children first; weights not held by any attribute under their own name."""
        children = super()._tracked_children()
        held = {id(child) for _, child in children}
        taken = {path for path, _ in children}
        for variable in self._weights:
            if id(variable) not in held:
                path, n = variable.name, 1
                while path in taken:
                    path, n = f"{variable.name}_{n}", n + 1
                taken.add(path)
                children.append((path, variable))
        return children

    def _follow_device(self, array) -> None:
        """Move the state to the device of `array` if it lives elsewhere (once, not per batch).

        Metrics are usually created before anyone knows where the data will
        live; moving the state to the data keeps every update on the device
        (no per-batch transfer or synchronisation).
        """
        if not self._weights:
            return
        where = backend.device_of(array)
        if backend.device_of(self._weights[0]._value) == where:
            return
        for variable in self._weights:
            variable._value = backend.to_device(variable._value, where)
            variable._version += 1

    def get_config(self) -> dict:
        """The constructor arguments that recreate this metric (`cls(**config)`)."""
        return {"name": self._name, "dtype": str(self._dtype)}

    @classmethod
    def from_config(cls, config: dict):
        """A metric of this class made from `get_config`'s dict (Keras's ``cls(**config)``).

        Args:
            config: the constructor's keyword arguments, as `get_config` returns them.

        Returns:
            A new metric with the same settings and a fresh state.

        Example:
            >>> import kerasish as ks
            >>> ks.metrics.IoU.from_config(ks.metrics.IoU(3, [1]).get_config()).target_class_ids
            [1]
        """
        return cls(**config)

    def reset_state(self) -> None:
        """Set every state variable back to its initial value."""
        for variable, init in zip(self._weights, self._initializers, strict=True):
            variable.assign(init(variable.shape, variable.dtype))

    def reset_states(self) -> None:
        """Alias of `reset_state` (the TF 2.0-2.4 spelling)."""
        self.reset_state()

    # -- the contract ---------------------------------------------------------
    def update_state(self, *args, **kwargs) -> None:
        """Accumulate statistics from one batch; subclasses implement it.

        Args:
            *args: the batch as the metric reads it: ``(y_true, y_pred)`` for most
                built-in metrics, ``(values,)`` for `Mean` and `Sum`.
            **kwargs: options, e.g. ``sample_weight``: weights broadcastable to the
                batch's values (default 1 each).

        Raises:
            NotImplementedError: on a subclass that does not define it.

        Example:
            >>> import kerasish as ks
            >>> m = ks.metrics.Precision()
            >>> m.update_state([0, 1, 1], [1, 1, 0])
            >>> m.update_state([1], [1])
            >>> float(m.result())  # 2 true positives, 1 false positive
            0.6666666865348816
        """
        raise NotImplementedError(f"{type(self).__name__} must implement update_state")

    def result(self) -> Tensor:
        """The metric's value from the state so far (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} must implement result")

    def __call__(self, *args, **kwargs) -> Tensor:
        """Update with one batch and return the result so far."""
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name!r}>"


# ---------------------------------------------------------------- helpers shared by metrics


def as_tensor(value, like: Tensor | None = None) -> Tensor:
    """`value` as a tensor; host data (lists, NumPy) is placed on the device of `like`.

    Tensors are never moved: tensors on different devices make the op raise a
    DeviceError that says so.
    """
    if isinstance(value, Tensor):
        return value
    tensor = convert_to_tensor(value)
    if like is not None:
        where = backend.device_of(like._value)
        if backend.device_of(tensor._value) != where:
            tensor = Tensor(backend.to_device(tensor._value, where))
    return tensor


def as_pair(y_true, y_pred) -> tuple:
    """(y_true, y_pred) as tensors; host labels go to the device of the predictions."""
    y_pred = as_tensor(y_pred)
    return as_tensor(y_true, like=y_pred), y_pred


def as_float(x: Tensor, like: Tensor | None = None) -> Tensor:
    """`x` as floating point: float inputs keep their dtype, others become `like`'s or float32."""
    if like is not None and like.dtype.kind == "f":
        return math_ops.cast(x, like.dtype)
    if x.dtype.kind == "f":
        return x
    return math_ops.cast(x, np.float32)


def match_shapes(y_true: Tensor, y_pred: Tensor, what: str) -> tuple:
    """(y_true, y_pred) with equal shapes; a trailing dimension of 1 on one side is squeezed.

    Anything else is an error: broadcasting (batch,) against (batch, 1) would
    silently compare every example with every other.
    """
    if y_true.shape == y_pred.shape:
        return y_true, y_pred
    if y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred = shape_ops.squeeze(y_pred, -1)
    elif y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true = shape_ops.squeeze(y_true, -1)
    if y_true.shape != y_pred.shape:
        raise InvalidArgumentError(
            f"{what}: y_true has shape {y_true.shape} but y_pred has shape {y_pred.shape}; "
            "they must have the same shape (a trailing dimension of 1 on either side is allowed)"
        )
    return y_true, y_pred


def align_sample_weight(sample_weight, values: Tensor, what: str) -> Tensor:
    """`sample_weight` as a tensor of `values`' dtype that broadcasts to `values`' shape.

    Weights are aligned with the leading (batch) dimensions, as in Keras: a
    weight of shape (batch,) applies to every element of its example's values
    of shape (batch, d); a trailing dimension of 1 ((batch, 1)) is accepted.
    """
    weight = math_ops.cast(as_tensor(sample_weight, like=values), values.dtype)
    if weight.shape == values.shape:
        return weight
    received = weight.shape
    while weight.ndim > values.ndim and weight.shape[-1] == 1:
        weight = shape_ops.squeeze(weight, -1)
    if 0 < weight.ndim < values.ndim:
        weight = shape_ops.reshape(weight, weight.shape + (1,) * (values.ndim - weight.ndim))
    if weight.ndim > values.ndim or any(
        w not in (1, v) for w, v in zip(weight.shape, values.shape, strict=True)
    ):
        batch = values.shape[:1]
        raise InvalidArgumentError(
            f"{what}: sample_weight has shape {received} but the values it weighs have shape "
            f"{values.shape}; give one weight per example (shape {batch}) or weights of shape "
            f"{values.shape}"
        )
    return weight
