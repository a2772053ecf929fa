"""`ks.ops` linear algebra (also as `ks.ops.linalg.*`): the decompositions of
`kerasish.core.ops.linalg_ops`, `cholesky` with `upper`, `solve_triangular`."""

from __future__ import annotations

from kerasish.core.ops import linalg_ops
from kerasish.core.ops.linalg_ops import tril, triu
from kerasish.core.ops.shape_ops import swapaxes
from kerasish.core.tensor import Tensor

__all__ = [
    "cholesky",
    "det",
    "eigh",
    "inv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
]


inv, solve, det, slogdet, logdet, eigh, svd, qr = (
    linalg_ops.inv, linalg_ops.solve, linalg_ops.det, linalg_ops.slogdet, linalg_ops.logdet,
    linalg_ops.eigh, linalg_ops.svd, linalg_ops.qr)


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
