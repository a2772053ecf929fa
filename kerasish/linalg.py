"""`ks.linalg`: the `tf.linalg` names that kerasish's ops cover.

`matmul`, `norm` and `eye` are the flat ops themselves. The rest are
`kerasish.core.ops.linalg_ops`: `matrix_transpose`, `diag_part` and `trace`, compositions
whose gradients come for free (to any order), and the decompositions `inv`, `solve`, `det`,
`slogdet`, `logdet`, `cholesky` and `eigh` with their closed-form gradients. The names come
from the table in `kerasish.ops.namespaces`.

Example:
    >>> import kerasish as ks
    >>> x = ks.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> ks.linalg.diag_part(x).numpy().tolist(), float(ks.linalg.trace(x))
    ([1.0, 4.0], 5.0)
"""

from kerasish.ops import namespaces as _namespaces

globals().update(_namespaces.public_ops("linalg"))
