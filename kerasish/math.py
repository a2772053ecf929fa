"""`ks.math`: the `tf.math` spellings of kerasish's math ops.

Every name here is the very same function as its flat counterpart
(`ks.math.reduce_mean is ks.reduce_mean`), so code written against
`tf.math.*` runs unchanged and nothing is computed twice.

Example:
    >>> import kerasish as ks
    >>> float(ks.math.reduce_mean(ks.constant([1.0, 2.0, 6.0])))
    3.0
    >>> ks.math.log1p is ks.log1p
    True
"""

from kerasish.core.ops.array_ops import (  # noqa: F401
    in_top_k,
    top_k,
    unsorted_segment_max,
    unsorted_segment_sum,
)
from kerasish.core.ops.cumulative_ops import cumprod, cumsum, reduce_prod  # noqa: F401
from kerasish.core.ops.math_ops import (  # noqa: F401
    abs,
    acos,
    acosh,
    add,
    add_n,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    cos,
    cosh,
    divide,
    divide_no_nan,
    equal,
    erf,
    erfc,
    exp,
    expm1,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    log_sigmoid,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_std,
    reduce_sum,
    reduce_variance,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    softplus,
    softsign,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
    truediv,
    truncatediv,
)
from kerasish.core.ops.nn_ops import l2_normalize, log_softmax, reduce_logsumexp  # noqa: F401
