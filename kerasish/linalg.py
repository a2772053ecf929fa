"""`ks.linalg`: the `tf.linalg` names that kerasish's ops cover.

`matmul`, `norm` and `eye` are the flat ops themselves; `matrix_transpose`,
`diag_part` and `trace` are compositions of them, so their gradients come for
free (to any order). `inv`, `solve`, `det`, `slogdet`, `logdet`, `cholesky` and
`eigh` are the decompositions of `kerasish.core.ops.linalg_ops`, with their
closed-form gradients.

Example:
    >>> import kerasish as ks
    >>> x = ks.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> ks.linalg.diag_part(x).numpy().tolist(), float(ks.linalg.trace(x))
    ([1.0, 4.0], 5.0)
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops.array_ops import eye, transpose
from kerasish.core.ops.linalg_ops import cholesky, det, eigh, inv, logdet, slogdet, solve
from kerasish.core.ops.math_ops import matmul, norm, reduce_sum
from kerasish.core.ops.nn_ops import l2_normalize
from kerasish.core.tensor import Tensor, convert_to_tensor

__all__ = [
    "cholesky", "det", "diag_part", "eigh", "eye", "inv", "l2_normalize", "logdet", "matmul",
    "matrix_transpose", "norm", "slogdet", "solve", "trace",
]


def _matrices(x, op_name: str) -> Tensor:
    x = convert_to_tensor(x)
    if x.ndim < 2:
        raise InvalidArgumentError(
            f"linalg.{op_name}: needs a matrix or a batch of matrices (rank >= 2), "
            f"got shape {x.shape}"
        )
    return x


def matrix_transpose(a) -> Tensor:
    """Swap the last two axes of a (batch of) matrices.

    Args:
        a: a tensor of rank >= 2, shape (..., M, N).

    Returns:
        The tensor of shape (..., N, M).

    Raises:
        InvalidArgumentError: if `a` has rank below 2.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.matrix_transpose(ks.zeros([5, 2, 3])).shape
        (5, 3, 2)
    """
    x = _matrices(a, "matrix_transpose")
    perm = list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2]
    return transpose(x, perm)


def diag_part(input) -> Tensor:  # noqa: A002 - TF's name
    """The main diagonal of a (batch of) matrices.

    Args:
        input: a tensor of shape (..., M, N).

    Returns:
        A tensor of shape (..., min(M, N)).

    Raises:
        InvalidArgumentError: if `input` has rank below 2.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.diag_part(ks.reshape(ks.range(6.0), [2, 3])).numpy().tolist()
        [0.0, 4.0]
    """
    x = _matrices(input, "diag_part")
    rows, columns = x.shape[-2:]
    # the identity mask on x's own device (ks.eye would use the current one)
    identity = np.eye(rows, columns, dtype=x.dtype)
    mask = Tensor(backend.to_device(identity, backend.device_of(x._value)))
    return reduce_sum(x * mask, axis=-1 if rows <= columns else -2)


def trace(x) -> Tensor:
    """Sum of the main diagonal of a (batch of) matrices: shape (..., M, N) -> (...).

    Args:
        x: a tensor of rank at least 2.

    Returns:
        The traces, one per matrix.

    Example:
        >>> import kerasish as ks
        >>> float(ks.linalg.trace(ks.eye(3)))
        3.0
        >>> ks.linalg.trace(ks.reshape(ks.range(8.0), (2, 2, 2))).numpy().tolist()
        [3.0, 11.0]
    """
    return reduce_sum(diag_part(x), axis=-1)
