"""`ks.math`: the `tf.math` spellings of kerasish's math ops.

Every name here is the very same function as its flat counterpart
(`ks.math.reduce_mean is ks.reduce_mean`), so code written against
`tf.math.*` runs unchanged and nothing is computed twice. The names come from the table
in `kerasish.ops.namespaces`.

Example:
    >>> import kerasish as ks
    >>> float(ks.math.reduce_mean(ks.constant([1.0, 2.0, 6.0])))
    3.0
    >>> ks.math.log1p is ks.log1p
    True
"""

from kerasish.ops import namespaces as _namespaces

globals().update(_namespaces.public_ops("math"))
