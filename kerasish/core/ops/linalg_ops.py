"""Matrix decompositions and solves: each primitive with its gradient; NumPy's diagonals,
traces and triangles (`diagonal`, `diag`, `trace`, `tril`, `triu`), composed of gathers and
`where`, with theirs.

Every op works on a matrix or a batch of matrices (the last two axes). The gradient rules
are the standard closed forms written with these same ops (so they are differentiable
again): d inv(A) = -inv(A) dA inv(A); log|det A| has gradient inv(A)^T; the Cholesky and
symmetric eigendecomposition rules return the symmetric gradient (the input is taken to be
symmetric; only its lower triangle is read); `svd` and `qr` follow Townsend's and Seeger
et al.'s rules, which need distinct singular values, and for `qr` at least as many rows as
columns (else the rule raises, naming the op).
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import indexing_ops, math_ops, reduction_ops, shape_ops
from kerasish.core.ops.creation_ops import zeros_like
from kerasish.core.primitive import apply, primitive
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor


def _matrices(x, op_name: str, square: bool = True, floating: bool = True) -> Tensor:
    """`x` as a tensor, checked to be a (batch of) matrices; integers cast to float32 when
    `floating`."""
    x = convert_to_tensor(x)
    if x.ndim < 2 or (square and x.shape[-1] != x.shape[-2]):
        kind = "square matrix (..., M, M)" if square else "matrix (..., M, N)"
        raise InvalidArgumentError(
            f"{op_name}: needs a {kind} or a batch of them, got shape {x.shape}"
        )
    if floating and x.dtype.kind not in "fc":
        x = math_ops.cast(x, np.float32)
    return x


def _mT(x: Tensor) -> Tensor:
    """The batch of transposed matrices."""
    return shape_ops.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _constant_like(array, like: Tensor) -> Tensor:
    """A NumPy constant on `like`'s device, in its dtype."""
    return Tensor(backend.to_device(array.astype(like.dtype), backend.device_of(like._value)))


def _eye_like(size: int, like: Tensor) -> Tensor:
    return _constant_like(np.eye(size), like)


def _inverse_gaps(values: Tensor) -> Tensor:
    """F[..., i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it."""
    off = _constant_like(1.0 - np.eye(values.shape[-1]), values)
    gaps = shape_ops.expand_dims(values, -2) - shape_ops.expand_dims(values, -1)
    return off / (gaps + (1.0 - off))


def _lower_halved(x: Tensor) -> Tensor:
    """The lower triangle of `x` with its diagonal halved."""
    size = x.shape[-1]
    return x * _constant_like(np.tril(np.ones((size, size))) - 0.5 * np.eye(size), x)


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
    return _mT(_matrices(a, "linalg.matrix_transpose", square=False, floating=False))


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
    return diagonal(_matrices(input, "linalg.diag_part", square=False, floating=False), 0, -2, -1)


@symbolic_fallback
def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal `offset` above the main one (below for negative) of the matrices in the
    axes `axis1` and `axis2`; it becomes the last axis, as in NumPy (a gather).

    Args:
        x: a tensor of rank >= 2.
        offset: which diagonal.
        axis1: the rows' axis.
        axis2: the columns' axis.

    Returns:
        The diagonals: the other axes, then the diagonal's.

    Raises:
        InvalidArgumentError: the two axes are the same or out of range.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diagonal([[1, 2], [3, 4]], offset=1)).tolist()
        [2]
    """
    x = convert_to_tensor(x)
    rows_axis, cols_axis = (reduction_ops.normalize_axis(a, x.ndim, "diagonal")[0]
                            for a in (axis1, axis2))
    if rows_axis == cols_axis:
        raise InvalidArgumentError(
            f"diagonal: axis1 and axis2 are the same axis ({axis1}, {axis2}) of shape {x.shape}")
    rest = [a for a in range(x.ndim) if a not in (rows_axis, cols_axis)]
    x = shape_ops.transpose(x, rest + [rows_axis, cols_axis])
    first_row, first_col = max(0, -offset), max(0, offset)
    n = max(0, min(x.shape[-2] - first_row, x.shape[-1] - first_col))
    return indexing_ops.getitem(x, (Ellipsis, np.arange(n) + first_row, np.arange(n) + first_col))


@symbolic_fallback
def diag(x, k: int = 0) -> Tensor:
    """The k-th diagonal of a matrix, or the square matrix with a vector on its k-th diagonal
    (NumPy's diag).

    Args:
        x: a 1-D or 2-D tensor.
        k: which diagonal (above the main one for k > 0).

    Returns:
        A 1-D tensor for a matrix; a (n + |k|, n + |k|) matrix for a vector of length n.

    Raises:
        InvalidArgumentError: `x` has another rank.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.diag([1, 2], k=1)).tolist()
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    x = convert_to_tensor(x)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise InvalidArgumentError(f"diag: needs a 1-D or 2-D tensor, got shape {x.shape}")
    n = x.shape[0] + abs(k)
    padded = shape_ops.pad(x, [[0, abs(k)]])
    line = shape_ops.reshape(padded, (-1, 1) if k >= 0 else (1, -1))
    return math_ops.multiply(line, np.eye(n, k=k, dtype=x.dtype))


@symbolic_fallback
def trace(x, offset: int = 0, axis1: int = -2, axis2: int = -1) -> Tensor:
    """The sum of a diagonal (see `diagonal`) of the matrices in `axis1` and `axis2`: by
    default the main diagonal of the last two axes, as TF's `linalg.trace` (`ks.ops.trace`
    takes NumPy's defaults, the first two).

    Args:
        x: a tensor of rank >= 2.
        offset: which diagonal.
        axis1: the rows' axis.
        axis2: the columns' axis.

    Returns:
        The sums, with the two axes removed.

    Raises:
        InvalidArgumentError: the two axes are the same or out of range.

    Example:
        >>> import kerasish as ks
        >>> float(ks.linalg.trace(ks.eye(3)))
        3.0
        >>> ks.linalg.trace(ks.reshape(ks.range(8.0), (2, 2, 2))).numpy().tolist()
        [3.0, 11.0]
    """
    return reduction_ops.reduce_sum(diagonal(x, offset, axis1, axis2), -1)


@symbolic_fallback
def tril(x, k: int = 0) -> Tensor:
    """`x` with the elements above the k-th diagonal of its last two axes set to zero.

    Args:
        x: a tensor of rank at least 2.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A tensor of `x`'s shape; the gradient flows to the kept elements.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.tril(ops.ones((2, 2)))).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    return _band(x, k, lower=True)


@symbolic_fallback
def triu(x, k: int = 0) -> Tensor:
    """`x` with the elements below the k-th diagonal of its last two axes set to zero.

    Args:
        x: a tensor of rank at least 2.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A tensor of `x`'s shape; the gradient flows to the kept elements.

    Example:
        >>> from kerasish import ops
        >>> ops.convert_to_numpy(ops.triu(ops.ones((2, 2)), k=1)).tolist()
        [[0.0, 1.0], [0.0, 0.0]]
    """
    return _band(x, k, lower=False)


def _band(x, k, lower):
    """`x` with the elements on one side of its k-th diagonal kept, the others zero."""
    x = convert_to_tensor(x)
    rows, cols = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
    keep = cols - rows <= k if lower else cols - rows >= k
    return math_ops.where(keep, x, zeros_like(x))


@primitive("matrix_inverse")
def _inv(a):
    return backend.array_module(a).linalg.inv(a)


@_inv.defgrad
def _(op, dy):
    y = op.output
    return (math_ops.negative(math_ops.matmul(math_ops.matmul(y, dy, transpose_a=True), y,
                                              transpose_b=True)),)


def inv(input) -> Tensor:  # noqa: A002 - TF's name
    """The inverse of a (batch of) square matrices.

    Args:
        input: a tensor of shape (..., M, M).

    Returns:
        The inverses, same shape; float32 for integer input.

    Raises:
        InvalidArgumentError: `input` is not square, or a matrix is singular.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.inv([[2.0, 0.0], [0.0, 4.0]]).numpy().tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    return apply(_inv, (_matrices(input, "inv"),))


@primitive("matrix_solve")
def _solve(a, b):
    return backend.array_module(a).linalg.solve(a, b)


@_solve.defgrad
def _(op, dy):
    a, _ = op.inputs
    db = apply(_solve, (_mT(a), dy))
    da = math_ops.negative(math_ops.matmul(db, op.output, transpose_b=True)) if op.needs[0] \
        else None
    return da, db


@symbolic_fallback
def solve(matrix, rhs) -> Tensor:
    """X with matrix @ X = rhs, for a (batch of) square matrices.

    Args:
        matrix: a tensor of shape (..., M, M).
        rhs: (..., M, K) right-hand sides, or one vector (M,).

    Returns:
        X, of `rhs`' shape (batch axes broadcast).

    Raises:
        InvalidArgumentError: the shapes do not fit, or a matrix is singular.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[1.0], [2.0]]).numpy().tolist()
        [[0.5], [0.5]]
    """
    a = _matrices(matrix, "solve")
    b = math_ops.cast(convert_to_tensor(rhs), a.dtype)
    if b.ndim == 0 or b.shape[-2 if b.ndim > 1 else 0] != a.shape[-1]:
        raise InvalidArgumentError(
            f"solve: the right-hand side of shape {b.shape} does not fit the matrix of shape "
            f"{a.shape} (expected (..., {a.shape[-1]}, K) or ({a.shape[-1]},))"
        )
    if b.ndim == 1:
        return shape_ops.reshape(apply(_solve, (a, shape_ops.reshape(b, (-1, 1)))), (-1,))
    if a.shape[:-2] != b.shape[:-2]:  # broadcast the batch axes here (CuPy's solve does not)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = shape_ops.broadcast_to(a, batch + a.shape[-2:])
        b = shape_ops.broadcast_to(b, batch + b.shape[-2:])
    return apply(_solve, (a, b))


@primitive("log_abs_determinant")
def _logabsdet(a):
    return backend.array_module(a).linalg.slogdet(a)[1]


@_logabsdet.defgrad
def _(op, dy):
    return (shape_ops.expand_dims(shape_ops.expand_dims(dy, -1), -1) * _mT(inv(op.inputs[0])),)


_det_sign = primitive("determinant_sign", differentiable=False)(
    lambda a: backend.array_module(a).linalg.slogdet(a)[0]
)


def slogdet(input) -> tuple:  # noqa: A002
    """The sign and the log of the absolute value of the determinant, without overflow.

    Args:
        input: a tensor of shape (..., M, M).

    Returns:
        (sign, log_abs_determinant), each of shape (...); sign is -1, 0 or 1 (not
        differentiable); the log's gradient is inv(input)^T.

    Example:
        >>> import kerasish as ks
        >>> sign, logdet = ks.linalg.slogdet([[-2.0, 0.0], [0.0, 4.0]])
        >>> float(sign), round(float(logdet), 4)
        (-1.0, 2.0794)
    """
    a = _matrices(input, "slogdet")
    return apply(_det_sign, (a,)), apply(_logabsdet, (a,))


def det(input) -> Tensor:  # noqa: A002
    """The determinant of a (batch of) square matrices (sign * exp(log|det|)).

    Args:
        input: a tensor of shape (..., M, M).

    Returns:
        The determinants, shape (...).

    Example:
        >>> import kerasish as ks
        >>> float(ks.linalg.det([[1.0, 2.0], [3.0, 4.0]]))
        -2.0
    """
    sign, logabs = slogdet(input)
    return sign * math_ops.exp(logabs)


def logdet(matrix) -> Tensor:
    """The log of the determinant (NaN where it is negative): for a positive definite
    matrix, as tf.linalg.logdet.

    Args:
        matrix: a tensor of shape (..., M, M).

    Returns:
        The log-determinants, shape (...).

    Example:
        >>> import kerasish as ks
        >>> round(float(ks.linalg.logdet([[2.0, 0.0], [0.0, 3.0]])), 4)
        1.7918
    """
    sign, logabs = slogdet(matrix)
    return math_ops.where(math_ops.less(sign, 0), float("nan"), logabs)


@primitive("cholesky")
def _cholesky(a):
    return backend.array_module(a).linalg.cholesky(a)


@_cholesky.defgrad
def _(op, dy):
    # dA = sym(L^-T Phi(L^T dL) L^-1), Phi: the lower triangle with the diagonal halved
    lower = op.output
    lower_inv = inv(lower)
    middle = _lower_halved(math_ops.matmul(lower, dy, transpose_a=True))
    s = math_ops.matmul(math_ops.matmul(lower_inv, middle, transpose_a=True), lower_inv)
    return ((s + _mT(s)) * 0.5,)


def cholesky(input) -> Tensor:  # noqa: A002
    """The lower-triangular L with L @ L^T = input, for symmetric positive definite matrices
    (only the lower triangle of `input` is read).

    Args:
        input: a tensor of shape (..., M, M).

    Returns:
        L, same shape; its gradient is symmetric.

    Raises:
        InvalidArgumentError: a matrix is not positive definite.

    Example:
        >>> import kerasish as ks
        >>> ks.linalg.cholesky([[4.0, 2.0], [2.0, 5.0]]).numpy().tolist()
        [[2.0, 0.0], [1.0, 2.0]]
    """
    return apply(_cholesky, (_matrices(input, "cholesky"),))


@primitive("self_adjoint_eig", multi_output=True)
def _eigh(a):
    return tuple(backend.array_module(a).linalg.eigh(a))


@_eigh.defgrad
def _(op, dys):
    # dA = V (diag(dw) + F * (V^T dV)) V^T, F[i, j] = 1 / (w[j] - w[i]) off the diagonal
    (w, v), (dw, dv) = op.output, dys
    inner = math_ops.matmul(v, dv, transpose_a=True) * _inverse_gaps(w)
    inner = inner + shape_ops.expand_dims(dw, -1) * _eye_like(w.shape[-1], w)
    grad = math_ops.matmul(math_ops.matmul(v, inner), v, transpose_b=True)
    return ((grad + _mT(grad)) * 0.5,)


def eigh(tensor) -> tuple:
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices (the lower triangle is
    read).

    Args:
        tensor: a tensor of shape (..., M, M).

    Returns:
        (eigenvalues (..., M), eigenvectors (..., M, M) as columns). Gradients assume
        distinct eigenvalues (a repeated one gives inf) and a result that does not depend on
        the eigenvectors' signs.

    Example:
        >>> import kerasish as ks
        >>> w, v = ks.linalg.eigh([[2.0, 0.0], [0.0, 1.0]])
        >>> w.numpy().tolist(), abs(v.numpy()).tolist()
        ([1.0, 2.0], [[0.0, 1.0], [1.0, 0.0]])
    """
    return apply(_eigh, (_matrices(tensor, "eigh"),))


@primitive("svd", multi_output=True)
def _svd(a, full_matrices):
    return tuple(backend.array_module(a).linalg.svd(a, full_matrices=full_matrices))


@_svd.defgrad
def _(op, dys):
    # Townsend's rule for a = u s vh (distinct non-zero singular values), with the terms for
    # the columns outside u's or v's span when the matrix is not square
    a, (u, s, vh), (du, ds, dvh) = op.inputs[0], op.output, dys
    rows, columns = a.shape[-2:]
    if op.attrs["full_matrices"] and rows != columns:
        raise InvalidArgumentError(
            f"svd: no gradient with full_matrices=True for a non-square matrix (shape "
            f"{a.shape}): the extra columns of u or rows of vh are not unique; use "
            "full_matrices=False")
    f = _inverse_gaps(s * s)
    u_du = math_ops.matmul(u, du, transpose_a=True)
    vh_dv = math_ops.matmul(vh, dvh, transpose_b=True)  # V^T dV
    j, k = f * (u_du - _mT(u_du)), f * (vh_dv - _mT(vh_dv))
    row_s, column_s = shape_ops.expand_dims(s, -2), shape_ops.expand_dims(s, -1)
    inner = j * row_s + k * column_s + shape_ops.expand_dims(ds, -1) * _eye_like(s.shape[-1], s)
    grad = math_ops.matmul(math_ops.matmul(u, inner), vh)
    if rows > columns:
        grad = grad + math_ops.matmul((du - math_ops.matmul(u, u_du)) / row_s, vh)
    if columns > rows:
        grad = grad + math_ops.matmul(u, (dvh - math_ops.matmul(_mT(vh_dv), vh)) / column_s)
    return (grad,)


@primitive("singular_values")
def _singular_values(a):
    return backend.array_module(a).linalg.svd(a, compute_uv=False)


@_singular_values.defgrad
def _(op, ds):
    u, _, vh = apply(_svd, op.inputs, {"full_matrices": False})
    return (math_ops.matmul(u * shape_ops.expand_dims(ds, -2), vh),)


def svd(x, full_matrices: bool = True, compute_uv: bool = True):
    """The singular value decomposition x = u @ diag(s) @ vh (NumPy's and Keras's order).

    Gradients assume distinct, non-zero singular values and a result that does not depend
    on the signs of the singular vectors (u's column and vh's row flip together).

    Args:
        x: a tensor of shape (..., M, N).
        full_matrices: u (..., M, M) and vh (..., N, N); False: K = min(M, N) columns/rows.
            A non-square matrix has gradients only with False.
        compute_uv: False: only s.

    Returns:
        (u, s, vh), or s alone; s descending, shape (..., K).

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> linalg_ops.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False).numpy().tolist()
        [4.0, 3.0]
    """
    a = _matrices(x, "svd", square=False)
    if not compute_uv:
        return apply(_singular_values, (a,))
    return apply(_svd, (a,), {"full_matrices": bool(full_matrices)})


@primitive("qr", multi_output=True)
def _qr(a, mode):
    return tuple(backend.array_module(a).linalg.qr(a, mode=mode))


@_qr.defgrad
def _(op, dys):
    # for M >= N: da = (dq + q sym(r dr^T - dq^T q)) r^-T, sym copying the lower triangle up
    a, (q, r), (dq, dr) = op.inputs[0], op.output, dys
    rows, columns = a.shape[-2:]
    if rows < columns or (op.attrs["mode"] == "complete" and rows != columns):
        raise InvalidArgumentError(
            f"qr: gradients need a matrix with at least as many rows as columns and the "
            f"reduced mode (got shape {a.shape}, mode {op.attrs['mode']!r})")
    m = _lower_halved(math_ops.matmul(r, dr, transpose_b=True)
                      - math_ops.matmul(dq, q, transpose_a=True))
    b = dq + math_ops.matmul(q, m + _mT(m))
    return (_mT(apply(_solve, (r, _mT(b)))),)


def qr(x, mode: str = "reduced") -> tuple:
    """The QR decomposition x = q @ r, q with orthonormal columns, r upper triangular.

    Gradients need M >= N and the reduced mode (then the decomposition is unique up to the
    signs of r's diagonal, which stay put under small changes).

    Args:
        x: a tensor of shape (..., M, N).
        mode: 'reduced' (q (..., M, K), r (..., K, N), K = min(M, N)) or 'complete'
            (q (..., M, M), r (..., M, N)).

    Returns:
        (q, r).

    Raises:
        InvalidArgumentError: another mode.

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> q, r = linalg_ops.qr([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
        >>> q.shape, r.shape
        ((3, 2), (2, 2))
    """
    if mode not in ("reduced", "complete"):
        raise InvalidArgumentError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return apply(_qr, (_matrices(x, "qr", square=False),), {"mode": mode})


def _host_eig(a):
    """NumPy's general eigendecomposition on the host (CuPy has none), back on a's device."""
    values, vectors = np.linalg.eig(backend.to_numpy(a))
    device = backend.device_of(a)
    return backend.to_device(values, device), backend.to_device(vectors, device)


_eig = primitive("eig", differentiable=False, multi_output=True)(_host_eig)


def eig(x) -> tuple:
    """Eigenvalues and right eigenvectors of general square matrices (complex in general).

    No gradient (Keras has none either: a general eigendecomposition's is ill-conditioned
    near repeated eigenvalues; `eigh` has one for symmetric matrices). CuPy has no general
    eigensolver, so GPU inputs are decomposed by NumPy on the host.

    Args:
        x: a tensor of shape (..., M, M).

    Returns:
        (eigenvalues (..., M), eigenvectors (..., M, M) as unit columns), real when all
        eigenvalues are, complex otherwise (NumPy's rule).

    Raises:
        InvalidArgumentError: `x` is not square.

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> w, v = linalg_ops.eig([[2.0, 0.0], [0.0, 3.0]])
        >>> w.numpy().tolist()
        [2.0, 3.0]
    """
    return apply(_eig, (_matrices(x, "eig"),))


@primitive("pinv")
def _pinv(a, rcond):
    xp = backend.array_module(a)
    return xp.linalg.pinv(a) if rcond is None else xp.linalg.pinv(a, rcond)


@_pinv.defgrad
def _(op, dy):
    # Golub and Pereyra: dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, so
    # the gradient is -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A) (constant rank)
    (a,), p = op.inputs, op.output
    m, n = a.shape[-2:]
    left = _eye_like(m, a) - math_ops.matmul(a, p)
    right = _eye_like(n, a) - math_ops.matmul(p, a)
    g_t = _mT(dy)
    grad = math_ops.negative(math_ops.matmul(math_ops.matmul(_mT(p), dy), _mT(p)))
    grad = grad + math_ops.matmul(math_ops.matmul(left, g_t), math_ops.matmul(p, _mT(p)))
    grad = grad + math_ops.matmul(math_ops.matmul(_mT(p), p), math_ops.matmul(g_t, right))
    return (grad,)


def pinv(x, rcond=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of a (batch of) matrices, by the SVD: singular
    values at most rcond times the largest are treated as zero.

    The gradient holds where the rank does not change (always for matrices of full rank).

    Args:
        x: a tensor of shape (..., M, N).
        rcond: the relative cutoff (None: NumPy's default, 1e-15).

    Returns:
        (..., N, M).

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> linalg_ops.pinv([[2.0, 0.0], [0.0, 0.0]]).numpy().tolist()
        [[0.5, 0.0], [0.0, 0.0]]
    """
    return apply(_pinv, (_matrices(x, "pinv", square=False),),
                 {"rcond": None if rcond is None else float(rcond)})


def lstsq(a, b, rcond=None) -> Tensor:
    """The least-squares solution of a @ X = b with the smallest norm: pinv(a) @ b.

    Args:
        a: a tensor of shape (..., M, N).
        b: (..., M, K) right-hand sides, or one vector (M,).
        rcond: singular values at most rcond times the largest count as zero (None: machine
            epsilon times max(M, N), NumPy's `lstsq` default).

    Returns:
        X, (..., N, K) (or (N,) for a vector `b`).

    Raises:
        InvalidArgumentError: the shapes do not fit.

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> linalg_ops.lstsq([[1.0], [1.0]], [1.0, 3.0]).numpy().round(4).tolist()
        [2.0]
    """
    a = _matrices(a, "lstsq", square=False)
    b = math_ops.cast(convert_to_tensor(b), a.dtype)
    if b.ndim == 0 or b.shape[-2 if b.ndim > 1 else 0] != a.shape[-2]:
        raise InvalidArgumentError(
            f"lstsq: the right-hand side of shape {b.shape} does not fit the matrix of shape "
            f"{a.shape} (expected (..., {a.shape[-2]}, K) or ({a.shape[-2]},))")
    if rcond is None:
        rcond = float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
    inverse = pinv(a, rcond)
    if b.ndim == 1:
        return shape_ops.reshape(math_ops.matmul(inverse, shape_ops.reshape(b, (-1, 1))), (-1,))
    return math_ops.matmul(inverse, b)


def _matrix_rank_values(x, tol):
    rank = backend.array_module(x).linalg.matrix_rank(x, tol=tol)
    return rank.astype(np.int32)


_matrix_rank = primitive("matrix_rank", differentiable=False)(_matrix_rank_values)


def matrix_rank(x, tol=None) -> Tensor:
    """The rank of a (batch of) matrices: the singular values above `tol` (no gradient:
    an integer).

    Args:
        x: a tensor of shape (..., M, N).
        tol: the threshold (None: the largest singular value times max(M, N) times the
            dtype's epsilon, NumPy's default).

    Returns:
        int32 ranks, of shape (...).

    Raises:
        InvalidArgumentError: `x` has rank below 2.

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> int(linalg_ops.matrix_rank([[1.0, 2.0], [2.0, 4.0]]))
        1
    """
    x = _matrices(x, "matrix_rank", square=False)
    return apply(_matrix_rank, (x,), {"tol": None if tol is None else float(tol)})


def _lu_values(a):
    """LAPACK's getrf by rows: the packed factors (L's unit diagonal implied) and the pivot
    rows, as SciPy's `lu_factor` returns them; a zero pivot leaves its column unscaled."""
    xp = backend.array_module(a)
    lu = a.copy()
    m, n = lu.shape[-2:]
    steps = min(m, n)
    pivots = xp.zeros(lu.shape[:-2] + (steps,), dtype=np.int32)
    flat = lu.reshape(-1, m, n)
    flat_pivots = pivots.reshape(-1, steps)
    rows = xp.arange(flat.shape[0])
    for k in range(steps):
        best = k + xp.abs(flat[:, k:, k]).argmax(axis=1)
        flat_pivots[:, k] = best
        top = flat[rows, k].copy()
        flat[rows, k] = flat[rows, best]
        flat[rows, best] = top
        pivot = flat[:, k, k]
        safe = xp.where(pivot == 0, 1, pivot)
        flat[:, k + 1:, k] /= safe[:, None]
        flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k:k + 1] * flat[:, k:k + 1, k + 1:]
    return flat.reshape(lu.shape), flat_pivots.reshape(pivots.shape)


@primitive("lu_factor", multi_output=True)
def _lu_factor(a):
    lu, pivots = _lu_values(a)
    return lu, pivots.astype(lu.dtype)  # floating, so the tape follows the factors


@_lu_factor.defgrad
def _(op, dys):
    # A = P L U; dLU = L tril(X, -1) + triu(X) U with X = L^-1 P^T dA U^-1, so
    # dA-bar = P L^-T (tril(L^T G_lower, -1) + triu(G_upper U^T)) U^-T
    (lu, pivots), (d_lu, _) = op.output, dys
    n = lu.shape[-1]
    eye = _eye_like(n, lu)
    lower = _band(lu, -1, True) + eye
    upper = _band(lu, 0, False)
    phi = _band(math_ops.matmul(lower, _band(d_lu, -1, True), transpose_a=True), -1, True)
    phi = phi + _band(math_ops.matmul(_band(d_lu, 0, False), upper, transpose_b=True), 0,
                      False)
    x = _mT(solve(upper, _mT(solve(_mT(lower), phi))))
    order = _pivot_order(backend.to_numpy(pivots._value).astype(np.int64), n)  # P^T A = A[order]
    permutation = np.zeros(order.shape + (n,))
    np.put_along_axis(permutation, order[..., None], 1.0, axis=-1)  # its rows: P^T
    return (math_ops.matmul(_constant_like(permutation, lu), x, transpose_a=True),)


def _pivot_order(pivots: np.ndarray, n: int) -> np.ndarray:
    """The row order that the pivots' interchanges give: P^T A = A[order]."""
    order = np.broadcast_to(np.arange(n), pivots.shape[:-1] + (n,)).copy()
    flat, flat_pivots = order.reshape(-1, n), pivots.reshape(-1, pivots.shape[-1])
    for row, swaps in zip(flat, flat_pivots):
        for k, p in enumerate(swaps):
            row[k], row[p] = row[p], row[k]
    return order


def lu_factor(x) -> tuple:
    """The LU factorization with partial pivoting, packed as SciPy's (and Keras's)
    `lu_factor`: P^T x = L U with L unit lower triangular, both in one matrix.

    Gradients for square matrices (the factors of an invertible one).

    Args:
        x: a tensor of shape (..., M, N).

    Returns:
        (lu (..., M, N): U on and above the diagonal, L below it; pivots (..., min(M, N))
        int32: row i was interchanged with row pivots[i]).

    Raises:
        InvalidArgumentError: `x` has rank below 2.

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> lu, pivots = linalg_ops.lu_factor([[1.0, 2.0], [3.0, 4.0]])
        >>> lu.numpy().astype("float64").round(2).tolist(), pivots.numpy().tolist()
        ([[3.0, 4.0], [0.33, 0.67]], [1, 1])
    """
    lu, pivots = apply(_lu_factor, (_matrices(x, "lu_factor", square=False),))
    return lu, math_ops.cast(pivots, np.int32)


def cholesky_inverse(x, upper: bool = False) -> Tensor:
    """The inverse of A from its Cholesky factor: (L L^T)^-1 = L^-T L^-1 for the lower
    factor L = x (or (U^T U)^-1 = U^-1 U^-T for the upper one), reading only its triangle.

    Args:
        x: the factor, (..., M, M).
        upper: `x` is the upper factor U (A = U^T U).

    Returns:
        A^-1, (..., M, M).

    Raises:
        InvalidArgumentError: `x` is not square, or the factor is singular.

    Example:
        >>> from kerasish.core.ops import linalg_ops
        >>> linalg_ops.cholesky_inverse([[2.0, 0.0], [1.0, 1.0]]).numpy().tolist()
        [[0.5, -0.5], [-0.5, 1.0]]
    """
    x = _matrices(x, "cholesky_inverse")
    factor = triu(x) if upper else tril(x)
    inverse = solve(factor, _eye_like(x.shape[-1], x))
    if upper:
        return math_ops.matmul(inverse, inverse, transpose_b=True)
    return math_ops.matmul(inverse, inverse, transpose_a=True)
