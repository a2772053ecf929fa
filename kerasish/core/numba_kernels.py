"""Compiled loops for jobs that NumPy has no fast form of (numba, the optional extra
`kerasish[fast]`).

`backend` imports this module on first use and falls back to its NumPy forms when numba is
not installed or `KERASISH_NUMBA=0` is set. The results differ from those forms only in the
order in which repeated rows are added.
"""

import numba


@numba.njit(cache=True, nogil=True)
def scatter_add_rows(target, indices, rows, scale):
    """Add `scale * rows[i]` to `target[indices[i]]` for each i in order, in place.

    `target` is (N, W) and `rows` is (n, W), both C-contiguous and of one dtype, and
    `scale` is of that dtype. Returns -1, or the position of the first index outside
    [0, N); in that case nothing is changed.
    """
    limit = target.shape[0]
    for i in range(indices.shape[0]):
        if indices[i] < 0 or indices[i] >= limit:
            return i
    for i in range(indices.shape[0]):
        row = indices[i]
        for j in range(rows.shape[1]):
            target[row, j] += scale * rows[i, j]
    return -1
