"""`ks.ops` linear algebra (also as `ks.ops.linalg.*`): the decompositions of
`kerasish.core.ops.linalg_ops` under Keras's argument names (`x`, `a`/`b`), `cholesky`
with `upper`, `solve_triangular`, and `jvp` (forward-mode products from two reverse
passes)."""

from __future__ import annotations

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, linalg_ops, math_ops, reduction_ops
from kerasish.core.ops.linalg_ops import (
    cholesky_inverse,
    eig,
    lstsq,
    lu_factor,
    matrix_rank,
    pinv,
    tril,
    triu,
)
from kerasish.core.ops.shape_ops import swapaxes
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import Tensor, convert_to_tensor

__all__ = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eig",
    "eigh",
    "inv",
    "jvp",
    "lstsq",
    "lu_factor",
    "matrix_rank",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
]


slogdet, logdet, svd, qr = linalg_ops.slogdet, linalg_ops.logdet, linalg_ops.svd, linalg_ops.qr


def inv(x) -> Tensor:
    """The inverse of a (batch of) square matrices (`ks.linalg.inv` under Keras's name).

    Args:
        x: a tensor of shape (..., M, M).

    Returns:
        The inverses, same shape.

    Raises:
        InvalidArgumentError: `x` is not square, or a matrix is singular.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.inv([[2.0, 0.0], [0.0, 4.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    return linalg_ops.inv(x)


def det(x) -> Tensor:
    """The determinant of a (batch of) square matrices.

    Args:
        x: a tensor of shape (..., M, M).

    Returns:
        (...) determinants.

    Raises:
        InvalidArgumentError: `x` is not square.

    Example:
        >>> from kerasish import ops
        >>> float(ops.det([[2.0, 0.0], [0.0, 4.0]]))
        8.0
    """
    return linalg_ops.det(x)


def eigh(x) -> tuple:
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices (see
    `ks.linalg.eigh`).

    Args:
        x: a tensor of shape (..., M, M).

    Returns:
        (eigenvalues (..., M), eigenvectors (..., M, M) as columns).

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.eigh([[2.0, 0.0], [0.0, 1.0]])[0]).tolist()
        [1.0, 2.0]
    """
    return linalg_ops.eigh(x)


def solve(a, b) -> Tensor:
    """X with a @ X = b, for a (batch of) square matrices.

    Args:
        a: a tensor of shape (..., M, M).
        b: (..., M, K) right-hand sides, or one vector (M,).

    Returns:
        X, of `b`'s shape.

    Raises:
        InvalidArgumentError: the shapes do not fit, or a matrix is singular.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.solve([[2.0, 0.0], [0.0, 4.0]], [1.0, 2.0])).tolist()
        [0.5, 0.5]
    """
    return linalg_ops.solve(a, b)


def _tensors(name: str, what: str, values) -> list:
    if not isinstance(values, (list, tuple)):
        raise InvalidArgumentError(f"{name}: {what} must be a list or tuple of tensors, got "
                                   f"{type(values).__name__}")
    return [convert_to_tensor(v) for v in values]


def jvp(fun, primals, tangents, has_aux: bool = False) -> tuple:
    """The Jacobian-vector product of `fun` at `primals` along `tangents` (forward mode),
    computed from two reverse passes: J^T u for a watched u, then the gradient of
    <J^T u, tangents> with respect to u, which is J @ tangents.

    Args:
        fun: a function of `len(primals)` tensors returning a tensor or a list/tuple of
            tensors (with `has_aux`, a pair (output, aux)).
        primals: a list or tuple of the inputs.
        tangents: the directions, one per primal, of the same shapes.
        has_aux: `fun` returns (output, aux); aux is returned as it is.

    Returns:
        (output, tangent_output), or (output, tangent_output, aux) with `has_aux`; the
        tangent output has the output's structure.

    Raises:
        InvalidArgumentError: `primals` and `tangents` differ in length or shapes.

    Example:
        >>> from kerasish import ops
        >>> y, dy = ops.linalg.jvp(lambda x: x * x, (ops.convert_to_tensor(3.0),), (1.0,))
        >>> float(y), float(dy)
        (9.0, 6.0)
    """
    primals = _tensors("jvp", "primals", primals)
    tangents = _tensors("jvp", "tangents", tangents)
    if len(primals) != len(tangents) or any(
            p.shape != t.shape for p, t in zip(primals, tangents)):
        raise InvalidArgumentError(
            f"jvp: needs one tangent of each primal's shape; got primals of shapes "
            f"{[p.shape for p in primals]} and tangents of shapes {[t.shape for t in tangents]}")
    with GradientTape(persistent=True) as outer:
        with GradientTape() as inner:
            for p in primals:
                inner.watch(p)
            result = fun(*primals)
        output, aux = result if has_aux else (result, None)
        many = isinstance(output, (list, tuple))
        outputs = [convert_to_tensor(o) for o in (output if many else [output])]
        dummies = [creation_ops.zeros_like(o) for o in outputs]
        for u in dummies:
            outer.watch(u)
        grads = inner.gradient(outputs, primals, output_gradients=dummies)
        total = None
        for g, t in zip(grads, tangents):
            if g is not None:
                term = reduction_ops.reduce_sum(g * math_ops.cast(t, g.dtype))
                total = term if total is None else total + term
    if total is None:
        products = [creation_ops.zeros_like(o) for o in outputs]
    else:
        products = [creation_ops.zeros_like(o) if g is None else g
                    for o, g in zip(outputs, outer.gradient(total, dummies))]
    tangent_out = type(output)(products) if many else products[0]
    return (output, tangent_out, aux) if has_aux else (output, tangent_out)


def cholesky(x, upper: bool = False) -> Tensor:
    """The Cholesky factor of symmetric positive definite matrices: lower L with L L^T = x,
    or its transpose.

    Args:
        x: a tensor of shape (..., M, M).
        upper: return the upper factor U = L^T (x = U^T U).

    Returns:
        The factor, same shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.cholesky([[4.0, 2.0], [2.0, 5.0]], upper=True)).tolist()
        [[2.0, 1.0], [0.0, 2.0]]
    """
    lower = linalg_ops.cholesky(x)
    return swapaxes(lower, -1, -2) if upper else lower


def solve_triangular(a, b, lower: bool = False) -> Tensor:
    """X with a @ X = b, reading only the lower (or upper) triangle of `a`.

    Args:
        a: a tensor of shape (..., M, M).
        b: (..., M, K) right-hand sides, or one vector (M,).
        lower: read the lower triangle; False: the upper.

    Returns:
        X, of `b`'s shape.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.solve_triangular([[2.0, 9.0], [1.0, 4.0]], [2.0, 4.0],
        ...                                            lower=True)).tolist()
        [1.0, 0.75]
    """
    return linalg_ops.solve(tril(a) if lower else triu(a), b)
