"""Products beside `matmul` (NumPy's): `dot`, `tensordot`, `outer`, `inner`, `vdot`, `cross`.

Each is composed of transposes, reshapes, multiplies, sums and matmuls, so its gradient
comes from theirs (to any order).
"""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import reduction_ops, shape_ops
from kerasish.core.ops.creation_ops import zeros_like
from kerasish.core.ops.math_ops import matmul, multiply
from kerasish.core.ops.shape_ops import expand_dims, moveaxis, reshape, squeeze, stack, unstack
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor


@symbolic_fallback
def dot(x1, x2) -> Tensor:
    """NumPy's dot: a product for scalars, the inner product of vectors, else a sum over
    the last axis of `x1` and the first (1-D) or second-to-last (2-D) axis of `x2`.

    Args:
        x1: a tensor.
        x2: a tensor of rank 0, 1 or 2.

    Returns:
        The product.

    Raises:
        InvalidArgumentError: the shapes do not align, or `x2` has rank 3 or more.

    Example:
        >>> from kerasish import ops
        >>> float(ops.dot([1, 2], [3, 4]))
        11.0
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim == 1:
        if a.shape[-1] != b.shape[0]:
            raise InvalidArgumentError(
                f"dot: shapes {a.shape} and {b.shape} do not align ({a.shape[-1]} != "
                f"{b.shape[0]})"
            )
        return reduction_ops.reduce_sum(multiply(a, b), axis=-1)
    if b.ndim == 2:
        if a.ndim == 1:
            return squeeze(matmul(expand_dims(a, 0), b), 0)
        return matmul(a, b)
    raise InvalidArgumentError(
        f"dot: the second operand has rank {b.ndim} (shape {b.shape}); kerasish's dot takes "
        "rank 0, 1 or 2 there: use matmul for batched products"
    )


@symbolic_fallback
def tensordot(x1, x2, axes=2) -> Tensor:
    """The sum of products over `axes` (NumPy's tensordot): the last `axes` of x1 with the
    first of x2, or the axes listed as (x1's, x2's). One matmul of the two inputs
    transposed and flattened.

    Args:
        x1: a tensor.
        x2: a tensor.
        axes: an int, or a pair of axis lists (or ints) of equal length.

    Returns:
        x1's other axes followed by x2's.

    Raises:
        InvalidArgumentError: the summed axes differ in number or size.

    Example:
        >>> import numpy as np
        >>> from kerasish import ops
        >>> ops.shape(ops.tensordot(np.ones((2, 3, 4)), np.ones((4, 3, 5)), ([1, 2], [1, 0])))
        (2, 5)
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if isinstance(axes, (int, np.integer)):
        a_axes, b_axes = list(range(a.ndim - int(axes), a.ndim)), list(range(int(axes)))
    else:
        a_axes, b_axes = ([ax] if isinstance(ax, (int, np.integer)) else list(ax) for ax in axes)
    a_axes = [reduction_ops.normalize_axis(ax, a.ndim, "tensordot")[0] for ax in a_axes]
    b_axes = [reduction_ops.normalize_axis(ax, b.ndim, "tensordot")[0] for ax in b_axes]
    if [a.shape[i] for i in a_axes] != [b.shape[i] for i in b_axes]:
        raise InvalidArgumentError(
            f"tensordot: axes {a_axes} of shape {a.shape} and axes {b_axes} of shape {b.shape} "
            "differ in number or size"
        )
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]

    def volume(shape, picked):
        return int(np.prod([shape[i] for i in picked], dtype=np.int64))

    left = reshape(shape_ops.transpose(a, a_free + a_axes),
                   (volume(a.shape, a_free), volume(a.shape, a_axes)))
    right = reshape(shape_ops.transpose(b, b_axes + b_free),
                    (volume(b.shape, b_axes), volume(b.shape, b_free)))
    return reshape(matmul(left, right), [a.shape[i] for i in a_free] + [b.shape[i] for i in b_free])


@symbolic_fallback
def outer(x1, x2) -> Tensor:
    """Every product x1[i] * x2[j] of the flattened inputs, as a matrix.

    Args:
        x1: a tensor (flattened).
        x2: a tensor (flattened).

    Returns:
        A (size(x1), size(x2)) tensor.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.outer([1, 2], [3, 4, 5])).tolist()
        [[3, 4, 5], [6, 8, 10]]
    """
    return multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


@symbolic_fallback
def inner(x1, x2) -> Tensor:
    """The sum of products over the last axes (NumPy's inner); a product when one is a scalar.

    Args:
        x1: a tensor.
        x2: a tensor whose last axis matches x1's.

    Returns:
        x1's other axes followed by x2's.

    Example:
        >>> from kerasish import ops
        >>> float(ops.inner([1.0, 2.0], [3.0, 4.0]))
        11.0
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


@symbolic_fallback
def vdot(x1, x2) -> Tensor:
    """The dot product of the flattened inputs.

    Args:
        x1: a tensor.
        x2: a tensor of as many elements.

    Returns:
        A scalar.

    Example:
        >>> from kerasish import ops
        >>> float(ops.vdot([[1.0, 2.0]], [3.0, 4.0]))
        11.0
    """
    return dot(reshape(x1, [-1]), reshape(x2, [-1]))


@symbolic_fallback
def cross(x1, x2, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None) -> Tensor:
    """The cross product of 3-vectors (or 2-vectors, with a zero third component) along the
    given axes, the other axes broadcast (NumPy's cross).

    Args:
        x1: vectors along `axisa`.
        x2: vectors along `axisb`.
        axisa: x1's vector axis.
        axisb: x2's vector axis.
        axisc: the result's vector axis.
        axis: when given, the vector axis of all three.

    Returns:
        The cross products; for two 2-vectors, the scalar third component (the axis
        removed).

    Raises:
        InvalidArgumentError: a vector axis is not of length 2 or 3.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])).tolist()
        [0.0, 0.0, 1.0]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise InvalidArgumentError(
            f"cross: the vector axes must have length 2 or 3, got shapes {a.shape} and "
            f"{b.shape} (vectors last)"
        )

    def components(v):
        parts = unstack(v, axis=-1)
        return parts if len(parts) == 3 else [*parts, zeros_like(parts[0])]

    (ax, ay, az), (bx, by, bz) = components(a), components(b)
    z = ax * by - ay * bx
    if a.shape[-1] == b.shape[-1] == 2:
        return z
    return moveaxis(stack([ay * bz - az * by, az * bx - ax * bz, z], axis=-1), -1, axisc)
