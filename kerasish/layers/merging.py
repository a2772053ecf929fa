"""Merging layers: combine a list of tensors elementwise, by concatenation, or by dot products.

`Add`, `Subtract`, `Multiply`, `Average`, `Maximum` and `Minimum` broadcast as
Keras does: the batch sizes must agree, the other axes are aligned from the
right and a size of 1 stretches (an input of lower rank gains axes after the
batch axis). `Concatenate` joins along one axis, `Dot` takes per-example dot
products. Each has a functional form (`ks.layers.add([a, b])`, ...), and a
mismatch names the layer and every shape involved.

Masks (Keras semantics): the output mask is the OR of the input masks (None if
an input has none); `Maximum` and `Minimum` of masked inputs use, at each
position, only the inputs whose mask is set there (the others merge all values).

Example:
    >>> import kerasish as ks
    >>> ks.layers.add([ks.ones([2, 3]), ks.ones([2, 1])]).numpy()
    array([[2., 2., 2.],
           [2., 2., 2.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, nn_ops, reduction_ops, shape_ops
from kerasish.layers.base import Layer

__all__ = [
    "Add",
    "Average",
    "Concatenate",
    "Dot",
    "Maximum",
    "Minimum",
    "Multiply",
    "Subtract",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]


def _shapes_text(shapes) -> str:
    return ", ".join(str(tuple(s)) for s in shapes)


class _Merge(Layer):
    """Shared checks of merging layers: a list of inputs, one batch size, broadcastable shapes."""

    supports_masking = True
    _count: int | None = None  # the exact number of inputs, if the layer needs one

    def _error(self, message: str) -> InvalidArgumentError:
        return InvalidArgumentError(f"layer '{self.name}' ({type(self).__name__}): {message}")

    def _check_list(self, shapes) -> list:
        if not isinstance(shapes, (list, tuple)) or not all(
            isinstance(s, (list, tuple)) for s in shapes
        ):
            raise self._error(
                f"expects a list of input tensors, e.g. {type(self).__name__}()([a, b]); "
                f"got inputs of shape {shapes}"
            )
        if not shapes:
            raise self._error("expects at least one input, got an empty list")
        if self._count is not None and len(shapes) != self._count:
            raise self._error(
                f"expects exactly {self._count} inputs, got {len(shapes)} (shapes "
                f"{_shapes_text(shapes)})"
            )
        if any(len(s) == 0 for s in shapes):
            raise self._error(
                f"inputs need a batch axis; got a scalar among shapes {_shapes_text(shapes)}"
            )
        batch_sizes = {s[0] for s in shapes} - {None}
        if len(batch_sizes) > 1:
            raise self._error(
                f"inputs have different batch sizes: shapes {_shapes_text(shapes)}"
            )
        return [tuple(s) for s in shapes]

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        masks = list(mask) if isinstance(mask, (list, tuple)) else [mask]
        if any(m is None for m in masks):
            return None
        result = masks[0]
        for m in masks[1:]:
            result = math_ops.logical_or(result, m)
        return result


class _ElementwiseMerge(_Merge):
    """A merge that combines its inputs pairwise with `_combine(a, b)` (then `_finish`)."""

    _masked_values = False  # whether masked-out positions are left out of the values

    def _combine(self, a, b):
        raise NotImplementedError

    def _finish(self, merged, count: int):
        return merged

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Add().compute_output_shape([(None, 3), (None, 3)])
            (None, 3)
        """
        shapes = self._check_list(input_shape)
        batch = next((s[0] for s in shapes if s[0] is not None), None)
        result = shapes[0][1:]
        for shape in shapes[1:]:
            result = self._broadcast(result, shape[1:], shapes)
        return (batch,) + result

    def _broadcast(self, first: tuple, second: tuple, shapes) -> tuple:
        if len(first) < len(second):
            first, second = second, first
        out = list(first[: len(first) - len(second)])
        for i, j in zip(first[len(first) - len(second):], second, strict=True):
            if i is None or j is None:
                out.append(None if i in (None, 1) or j in (None, 1) else max(i, j))
            elif i == 1 or j == 1 or i == j:
                out.append(j if i == 1 else i)
            else:
                raise self._error(
                    f"inputs of shapes {_shapes_text(shapes)} cannot be combined elementwise: "
                    "apart from the batch axis, each axis must match or be 1"
                )
        return tuple(out)

    def build(self, input_shape):
        self.compute_output_shape(input_shape)

    def call(self, inputs, mask=None):
        shapes = self._check_list([x.shape for x in inputs])
        self.compute_output_shape(shapes)
        rank = max(len(s) for s in shapes)
        inputs = [
            shape_ops.reshape(x, (x.shape[0],) + (1,) * (rank - x.ndim) + x.shape[1:])
            if x.ndim < rank
            else x
            for x in inputs
        ]
        masks = list(mask) if isinstance(mask, (list, tuple)) else [None] * len(inputs)
        if not self._masked_values or all(m is None for m in masks):
            merged = inputs[0]
            for x in inputs[1:]:
                merged = self._combine(merged, x)
            return self._finish(merged, len(inputs))
        return self._masked_merge(inputs, masks)

    def _masked_merge(self, inputs, masks):
        """Keras's masked merge: where one input is masked out, the other's value is used."""
        merged, merged_mask = None, None
        for x, m in zip(inputs, masks, strict=True):
            if m is not None:
                m = shape_ops.broadcast_to(shape_ops.expand_dims(m, -1), x.shape)
            if merged is None:
                merged, merged_mask = x, m
                continue
            if m is not None:
                x = math_ops.where(m, x, merged)
            if merged_mask is not None:
                merged = math_ops.where(merged_mask, merged, x)
            merged_mask = (
                math_ops.logical_or(merged_mask, m)
                if m is not None and merged_mask is not None
                else None
            )
            merged = self._combine(merged, x)
        return self._finish(merged, len(inputs))


class Add(_ElementwiseMerge):
    """The elementwise sum of a list of inputs (broadcast as Keras does).

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Add()([ks.ones([1, 2]), ks.ones([1, 2])]).numpy()
        array([[2., 2.]], dtype=float32)
    """

    def _combine(self, a, b):
        return math_ops.add(a, b)


class Subtract(_ElementwiseMerge):
    """inputs[0] - inputs[1], for exactly two inputs.

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Subtract()([ks.ones([1, 2]), ks.ones([1, 2])]).numpy()
        array([[0., 0.]], dtype=float32)
    """

    _count = 2

    def _combine(self, a, b):
        return math_ops.subtract(a, b)


class Multiply(_ElementwiseMerge):
    """The elementwise product of a list of inputs.

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Multiply()([ks.ones([1, 2]) * 2, ks.ones([1, 2]) * 3]).numpy()
        array([[6., 6.]], dtype=float32)
    """

    def _combine(self, a, b):
        return math_ops.multiply(a, b)


class Average(_ElementwiseMerge):
    """The elementwise mean of a list of inputs.

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Average()([ks.ones([1, 2]), ks.zeros([1, 2])]).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """

    def _combine(self, a, b):
        return math_ops.add(a, b)

    def _finish(self, merged, count: int):
        return merged if count == 1 else merged * (1.0 / count)


class Maximum(_ElementwiseMerge):
    """The elementwise maximum of a list of inputs.

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Maximum()([ks.constant([[1., 4.]]), ks.constant([[3., 2.]])]).numpy()
        array([[3., 4.]], dtype=float32)
    """

    _masked_values = True

    def _combine(self, a, b):
        return math_ops.maximum(a, b)


class Minimum(_ElementwiseMerge):
    """The elementwise minimum of a list of inputs.

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Minimum()([ks.constant([[1., 4.]]), ks.constant([[3., 2.]])]).numpy()
        array([[1., 2.]], dtype=float32)
    """

    _masked_values = True

    def _combine(self, a, b):
        return math_ops.minimum(a, b)


class Concatenate(_Merge):
    """Join a list of inputs along `axis`; every other axis must match.

    Args:
        axis: the axis to join along (default -1, the features); not the batch axis.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Concatenate()([ks.ones([2, 3]), ks.zeros([2, 1])]).shape
        (2, 4)
    """

    def __init__(self, axis: int = -1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _axis(self, shapes) -> int:
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise self._error(
                f"inputs to concatenate must have the same rank; got shapes {_shapes_text(shapes)}"
            )
        if not -rank <= self.axis < rank or self.axis % rank == 0:
            raise self._error(
                f"axis={self.axis} is not a non-batch axis of inputs of rank {rank} "
                f"(shapes {_shapes_text(shapes)})"
            )
        return self.axis % rank

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Concatenate().compute_output_shape([(None, 3), (None, 2)])
            (None, 5)
        """
        shapes = self._check_list(input_shape)
        axis = self._axis(shapes)
        output = list(shapes[0])
        for shape in shapes[1:]:
            for i, (a, b) in enumerate(zip(output, shape, strict=True)):
                if i == axis:
                    continue
                if a is not None and b is not None and a != b:
                    raise self._error(
                        f"inputs must match in every axis except axis {self.axis}; got shapes "
                        f"{_shapes_text(shapes)} (they differ in axis {i})"
                    )
                if a is None:
                    output[i] = b
        sizes = [s[axis] for s in shapes]
        output[axis] = None if None in sizes else sum(sizes)
        return tuple(output)

    def build(self, input_shape):
        self.compute_output_shape(input_shape)

    def call(self, inputs):
        shapes = [x.shape for x in inputs]
        self.compute_output_shape(shapes)
        return shape_ops.concat(list(inputs), self._axis(shapes))

    def compute_mask(self, inputs, mask=None):
        """The concatenated masks (all-True for unmasked inputs), reduced with any over axis -1
        when the masks have the inputs' rank (Keras's rule).

        Args:
            inputs: the list of inputs.
            mask: a list with one mask (or None) per input, or None.

        Returns:
            The output's mask, or None when no input has one.

        Example:
            >>> import kerasish as ks
            >>> masks = [ks.constant([[True, False]]), None]
            >>> ks.layers.Concatenate(axis=1).compute_mask(
            ...     [ks.ones([1, 2, 3]), ks.ones([1, 1, 3])], masks).numpy()
            array([[ True, False,  True]])
        """
        if mask is None or not isinstance(mask, (list, tuple)) or all(m is None for m in mask):
            return None
        pieces = []
        for x, m in zip(inputs, mask, strict=True):
            if m is None:
                m = creation_ops.ones(x.shape, dtype=np.bool_)
            elif m.ndim < x.ndim:
                m = shape_ops.broadcast_to(shape_ops.expand_dims(m, -1), x.shape)
            pieces.append(m)
        joined = shape_ops.concat(pieces, self._axis([x.shape for x in inputs]))
        return reduction_ops.reduce_any(joined, -1)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


class Dot(_Merge):
    """Per-example dot products of two inputs along `axes` (Keras's batch_dot).

    For inputs of shapes (batch, a..., n) and (batch, b..., n) contracted over
    the n axes, the output has shape (batch, a..., b...); a result of shape
    (batch,) becomes (batch, 1), as in Keras.

    Args:
        axes: one axis for both inputs, or a pair (axis of the first, axis of
            the second); never the batch axis.
        normalize: L2-normalize both inputs along the contracted axes first, so
            the result is the cosine similarity.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Dot(axes=1)([ks.constant([[1., 2.]]), ks.constant([[3., 4.]])]).numpy()
        array([[11.]], dtype=float32)
    """

    _count = 2

    def __init__(self, axes, normalize: bool = False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axes, (list, tuple)):
            if len(axes) != 2 or not all(isinstance(a, (int, np.integer)) for a in axes):
                raise InvalidArgumentError(
                    f"Dot: axes must be an integer or a pair of integers, got {axes!r}"
                )
            axes = [int(a) for a in axes]
        elif isinstance(axes, (int, np.integer)):
            axes = int(axes)
        else:
            raise InvalidArgumentError(
                f"Dot: axes must be an integer or a pair of integers, got {axes!r}"
            )
        self.axes = axes
        self.normalize = bool(normalize)

    def _pair(self, shapes) -> tuple:
        wanted = self.axes if isinstance(self.axes, list) else [self.axes, self.axes]
        pair = []
        for axis, shape in zip(wanted, shapes, strict=True):
            rank = len(shape)
            if not -rank <= axis < rank or axis % rank == 0:
                raise self._error(
                    f"axes={self.axes} does not name a non-batch axis of both inputs "
                    f"(shapes {_shapes_text(shapes)})"
                )
            pair.append(axis % rank)
        first, second = (shapes[0][pair[0]], shapes[1][pair[1]])
        if first is not None and second is not None and first != second:
            raise self._error(
                f"cannot take dot products of inputs of shapes {_shapes_text(shapes)} along "
                f"axes {pair}: sizes {first} and {second} differ"
            )
        return tuple(pair)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Dot(axes=1).compute_output_shape([(None, 3), (None, 3)])
            (None, 1)
        """
        shapes = self._check_list(input_shape)
        a, b = self._pair(shapes)
        batch = shapes[0][0] if shapes[0][0] is not None else shapes[1][0]
        rest = [d for i, d in enumerate(shapes[0]) if i not in (0, a)]
        rest += [d for i, d in enumerate(shapes[1]) if i not in (0, b)]
        return (batch,) + tuple(rest or [1])

    def build(self, input_shape):
        self.compute_output_shape(input_shape)

    def call(self, inputs):
        shapes = self._check_list([x.shape for x in inputs])
        a, b = self._pair(shapes)
        x, y = inputs
        if self.normalize:
            x = nn_ops.l2_normalize(x, a, epsilon=1e-14)
            y = nn_ops.l2_normalize(y, b, epsilon=1e-14)
        batch = x.shape[0]
        x_rest = [i for i in range(1, x.ndim) if i != a]
        y_rest = [i for i in range(1, y.ndim) if i != b]
        x = shape_ops.transpose(x, [0] + x_rest + [a])
        y = shape_ops.transpose(y, [0, b] + y_rest)
        x_shape, y_shape = x.shape[1:-1], y.shape[2:]
        size = x.shape[-1]
        product = math_ops.matmul(
            shape_ops.reshape(x, (batch, int(np.prod(x_shape)), size)),
            shape_ops.reshape(y, (batch, size, int(np.prod(y_shape)))),
        )
        return shape_ops.reshape(product, (batch,) + (tuple(x_shape + y_shape) or (1,)))

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self) -> dict:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


# ---------------------------------------------------------------- functional forms


def add(inputs, **kwargs):
    """`Add(**kwargs)(inputs)`: the elementwise sum of a list of tensors.

    Args:
        inputs: a list of tensors of the same shape (or broadcastable ones).
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        Their sum.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.add([ks.ones([1, 2]), ks.ones([1, 2])]).numpy()
        array([[2., 2.]], dtype=float32)
    """
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """`Subtract(**kwargs)(inputs)`: inputs[0] - inputs[1].

    Args:
        inputs: a list of exactly two tensors.
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        inputs[0] - inputs[1].

    Example:
        >>> import kerasish as ks
        >>> ks.layers.subtract([ks.ones([1, 2]) * 3, ks.ones([1, 2])]).numpy()
        array([[2., 2.]], dtype=float32)
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """`Multiply(**kwargs)(inputs)`: the elementwise product of a list of tensors.

    Args:
        inputs: a list of tensors of the same shape (or broadcastable ones).
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        Their product.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.multiply([ks.ones([1, 2]) * 2, ks.ones([1, 2]) * 3]).numpy()
        array([[6., 6.]], dtype=float32)
    """
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """`Average(**kwargs)(inputs)`: the elementwise mean of a list of tensors.

    Args:
        inputs: a list of tensors of the same shape (or broadcastable ones).
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        Their mean.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.average([ks.ones([1, 2]), ks.zeros([1, 2])]).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """`Maximum(**kwargs)(inputs)`: the elementwise maximum of a list of tensors.

    Args:
        inputs: a list of tensors of the same shape (or broadcastable ones).
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        Their elementwise maximum.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.maximum([ks.constant([[1., 4.]]), ks.constant([[3., 2.]])]).numpy()
        array([[3., 4.]], dtype=float32)
    """
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """`Minimum(**kwargs)(inputs)`: the elementwise minimum of a list of tensors.

    Args:
        inputs: a list of tensors of the same shape (or broadcastable ones).
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        Their elementwise minimum.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.minimum([ks.constant([[1., 4.]]), ks.constant([[3., 2.]])]).numpy()
        array([[1., 2.]], dtype=float32)
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis: int = -1, **kwargs):
    """`Concatenate(axis, **kwargs)(inputs)`: join a list of tensors along `axis`.

    Args:
        inputs: a list of tensors, equal in shape except along `axis`.
        axis: the axis they are joined along.
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        The joined tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.concatenate([ks.ones([2, 3]), ks.ones([2, 2])]).shape
        (2, 5)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, **kwargs):
    """`Dot(axes, **kwargs)(inputs)`: per-example dot products of two tensors.

    Args:
        inputs: a list of two tensors with a batch axis.
        axes: the axis (or one per input) summed over.
        **kwargs: the `Layer` arguments of the layer made (``name``, ``dtype``).

    Returns:
        The per-example dot products.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.dot([ks.constant([[1., 2.]]), ks.constant([[3., 4.]])]).numpy()
        array([[11.]], dtype=float32)
    """
    return Dot(axes=axes, **kwargs)(inputs)
