"""InputSpec (Keras 3's `keras.InputSpec`): the rank, dtype and shape a layer accepts,
checked at every call of a layer that sets `input_spec`."""

from __future__ import annotations

import numpy as np

from kerasish.core import nest


class InputSpec:
    """What a layer accepts for one input: checked by `Layer.__call__` when the layer sets
    `self.input_spec`, so a wrong input fails at the call with a message naming the layer,
    the input and the rule, rather than deep inside an op.

    A None in a shape matches any size.

    Args:
        dtype: the dtype the input must have.
        shape: its full shape, batch axis included (sets `ndim`).
        ndim: its rank.
        max_ndim: its largest rank.
        min_ndim: its smallest rank.
        axes: ``{axis: size}`` for axes that must have that size.
        allow_last_axis_squeeze: accept a rank one more than the spec's when the input's
            last axis is 1, or one less when the spec's last axis is 1.
        name: the key of this input when inputs come as a dict.
        optional: whether the input may be None.

    Raises:
        TypeError: `axes` is not a dict with integer keys.
        ValueError: an axis of `axes` is beyond the rank given.

    Example:
        >>> import kerasish as ks
        >>> class Pair(ks.layers.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.input_spec = ks.InputSpec(ndim=2, axes={-1: 2})
        >>> Pair()(ks.ones([3, 2])).shape
        (3, 2)
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = None if dtype is None else (
            "string" if dtype in ("string", str) else np.dtype(dtype).name)
        if shape is not None:
            self.shape = tuple(None if d is None else int(d) for d in shape)
            self.ndim = len(self.shape)
        else:
            self.shape = None
            self.ndim = ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(key): axes[key] for key in axes}
        except (ValueError, TypeError):
            raise TypeError(f"InputSpec: axes must be a dict with integer keys, got "
                            f"{axes!r}") from None
        limit = self.ndim if self.ndim else self.max_ndim
        if self.axes and limit is not None and max(self.axes) > limit - 1:
            raise ValueError(f"InputSpec: axis {max(self.axes)} is greater than the largest "
                             f"axis allowed, {limit - 1}")

    def __repr__(self) -> str:
        parts = [f"{key}={value}" for key, value in (
            ("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
            ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim), ("axes", self.axes))
            if value]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict:
        """The constructor's arguments, Keras's keys."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
                "optional": self.optional}

    @classmethod
    def from_config(cls, config: dict):
        """An InputSpec from `get_config()`'s dict.

        Args:
            config: the constructor's keyword arguments.

        Returns:
            The spec.

        Example:
            >>> import kerasish as ks
            >>> ks.InputSpec.from_config(ks.InputSpec(ndim=3).get_config())
            InputSpec(ndim=3)
        """
        return cls(**config)


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raise ValueError, as Keras does, when `inputs` break `input_spec`.

    Args:
        input_spec: an InputSpec, a list of them (one per input), or None.
        inputs: the layer's first argument: a tensor, or a list or dict of tensors.
        layer_name: the layer's name, for the message.

    Raises:
        ValueError: the number of inputs, a rank, a dtype, an axis size or the shape
            differs from the spec (naming the input, the rule and what was received).

    Example:
        >>> import kerasish as ks
        >>> from kerasish.layers.input_spec import assert_input_compatibility
        >>> assert_input_compatibility(ks.InputSpec(ndim=2), ks.ones([2, 3]), "dense")
    """
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in specs]
        if all(names):
            missing = [name for name in names if name not in inputs]
            if missing:
                raise ValueError(f'Missing data for input "{missing[0]}". You passed a data '
                                 f"dictionary with keys {list(inputs)}. Expected the "
                                 f"following keys: {names}")
            inputs = [inputs[name] for name in names]
    flat = nest.flatten(inputs)
    if len(flat) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
                         f"{len(flat)} input tensors")
    for index, (x, spec) in enumerate(zip(flat, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type "
                             f"{type(x).__name__}) as input for layer '{layer_name}'.")
        _check_one(index, x, spec, layer_name)


def _check_one(index: int, x, spec: InputSpec, layer_name: str) -> None:
    shape = tuple(x.shape)
    ndim = len(shape)
    where = (f"Input {index} with name '{spec.name}' of layer '{layer_name}' is incompatible "
             "with the layer:")
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(f"{where} expected ndim={spec.ndim}, found ndim={ndim}. Full shape "
                         f"received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{where} expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(f"{where} expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full "
                         f"shape received: {shape}")
    if spec.dtype is not None:
        dtype = "string" if np.dtype(x.dtype).kind in "US" else np.dtype(x.dtype).name
        if dtype != spec.dtype:
            raise ValueError(f"{where} expected dtype={spec.dtype}, found dtype={dtype}")
    for axis, value in spec.axes.items():
        if value is not None and -ndim <= axis < ndim and shape[axis] not in (value, None):
            raise ValueError(f"{where} expected axis {axis} of input shape to have value "
                             f"{value}, but received input with shape {shape}")
    if spec.shape is not None:
        spec_shape = spec.shape
        if spec.allow_last_axis_squeeze:
            if shape and shape[-1] == 1:
                shape = shape[:-1]
            if spec_shape and spec_shape[-1] == 1:
                spec_shape = spec_shape[:-1]
        for spec_dim, dim in zip(spec_shape, shape):
            if spec_dim is not None and dim is not None and spec_dim != dim:
                raise ValueError(f"{where} expected shape={spec.shape}, found shape={shape}")
