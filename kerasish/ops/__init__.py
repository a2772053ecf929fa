"""`ks.ops`: Keras 3's backend-neutral op names (NumPy spellings) on kerasish's ops.

Keras 3 code writes `ops.sum(x, axis=1)`, `ops.concatenate([a, b])`,
`ops.shape(x)`; with `import kerasish as keras` (or `from kerasish import
ops`) those names are here. Each is the kerasish op that computes it
(same gradient, same checks; `kerasish.core.ops` holds every op once), renamed,
or a thin adapter where only the argument spelling differs (`axes` for `perm`,
`num_classes` for `depth`, NumPy's split points, `x_min`/`x_max`). The NumPy
names TF had no op for (`dot`, `tensordot`, `repeat`, `flip`, `tril`, `isnan`,
`quantile`, `einsum`, ...) are core ops composed of others, so their gradients
come for free. Ops with real results (`exp`, `sqrt`, `mean`, `softmax`, ...) turn
integer inputs into float32, as Keras does (kerasish's own ops follow NumPy's
float64).

Sorting and selection (`sort`, `top_k`, `take_along_axis`, `quantile`) gather with the
indices an `argsort` finds, so gradients flow to the picked values. The decompositions
(`inv`, `solve`, `det`, `cholesky`, `eigh`, `svd`, `qr`; also as `ops.linalg.*`) have
closed-form gradients (`svd`'s for distinct singular values, `qr`'s for M >= N). The
control-flow ops (`cond`, `while_loop`, `fori_loop`, `scan`, `map`, `vectorized_map`) run
their Python loop eagerly; `ks.function` records the ops each iteration runs (the loop is
unrolled, and a data-dependent trip count is checked on every call). `unique` and
`nonzero` return shapes that depend on the values, so they run eagerly only.

Example:
    >>> import numpy as np
    >>> from kerasish import ops
    >>> x = ops.reshape(ops.arange(6, dtype="float32"), (2, 3))
    >>> ops.shape(x), float(ops.sum(ops.square(x)))
    ((2, 3), 55.0)
    >>> ops.convert_to_numpy(ops.mean(x, axis=1, keepdims=True)).tolist()
    [[1.0], [4.0]]
"""

from __future__ import annotations

import inspect
import types

from kerasish.core.ops import image_ops
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor  # noqa: F401
from kerasish.ops import keras_names, namespaces
from kerasish.ops.control_flow import *  # noqa: F403
from kerasish.ops.creation import *  # noqa: F403
from kerasish.ops.elementwise import *  # noqa: F403
from kerasish.ops.keras_core import *  # noqa: F403
from kerasish.ops.linear_algebra import *  # noqa: F403
from kerasish.ops.neural_network import *  # noqa: F403
from kerasish.ops.reductions import *  # noqa: F403
from kerasish.ops.selection import *  # noqa: F403
from kerasish.ops.shapes import *  # noqa: F403

globals().update(namespaces.public_ops("ops"))  # the core ops ks.ops shows as they are

# The functional API: a function here that fails on symbolic tensors because it needs
# concrete shapes records one node running it whole (see kerasish.core.symbolic). The
# re-exported kerasish ops stay the same objects (those that read static shapes, such as
# zeros_like, are defined with the fallback), except these two, kept bare for their speed.
# The functions of this package's modules take `kerasish.ops` as their module (as NumPy's
# public functions name `numpy`): saved functional models name them by their `ks.ops` name.
_READ_SHAPES = {"broadcast_to", "reshape"}
for _name, _value in list(globals().items()):
    if not inspect.isfunction(_value) or _name.startswith("_"):
        continue
    if _value.__module__.startswith(__name__ + "."):
        _value.__module__ = __name__
    if _value.__module__ == __name__ or _name in _READ_SHAPES:
        globals()[_name] = symbolic_fallback(_value)
globals().update(keras_names.keras_named(globals()))  # core ops under Keras's argument names

linalg = types.SimpleNamespace(**{name: globals()[name] for name in (
    "cholesky", "det", "eigh", "inv", "norm", "qr", "solve", "solve_triangular", "svd")})
"""Keras's `ops.linalg` names: the same functions as `ops.inv`, `ops.solve`, ..."""
vars(linalg).update({name: globals()[name] for name in (
    "cholesky_inverse", "eig", "jvp", "lstsq", "lu_factor", "matrix_rank", "pinv")})

# Keras 3's listings of `keras.ops.numpy` and `keras.ops.nn`: which of the ops above each
# sub-namespace holds (the same functions; a name kerasish does not have yet is absent)
_KERAS_NUMPY = (
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append",
    "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "argmax", "argmin", "argpartition", "argsort", "array", "array_split", "average",
    "bartlett", "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "blackman",
    "broadcast_to", "cbrt", "ceil", "clip", "concatenate", "conj", "conjugate", "copy",
    "corrcoef", "correlate", "cos", "cosh", "count_nonzero", "cross", "cumprod", "cumsum",
    "deg2rad", "diag", "diagflat", "diagonal", "diff", "digitize", "divide", "divide_no_nan",
    "dot", "dsplit", "dstack", "einsum", "empty", "empty_like", "equal", "exp", "exp2",
    "expand_dims", "expm1", "eye", "fabs", "flip", "fliplr", "flipud", "floor", "floor_divide",
    "fmax", "fmin", "fmod", "full", "full_like", "gcd", "geomspace", "get_item", "greater",
    "greater_equal", "hamming", "hanning", "heaviside", "histogram", "hsplit", "hstack",
    "hypot", "i0", "identity", "imag", "inner", "isclose", "isfinite", "isin", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "kaiser", "kron", "lcm", "ldexp", "left_shift", "less",
    "less_equal", "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "matmul", "max",
    "maximum", "mean", "median", "meshgrid", "min", "minimum", "mod", "moveaxis", "multiply",
    "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum",
    "nanvar", "ndim", "negative", "nextafter", "nonzero", "not_equal", "ones", "ones_like",
    "outer", "pad", "percentile", "power", "prod", "ptp", "quantile", "rad2deg", "ravel",
    "real", "reciprocal", "repeat", "reshape", "right_shift", "roll", "rot90", "round",
    "searchsorted", "select", "sign", "signbit", "sin", "sinc", "sinh", "size", "slogdet",
    "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes",
    "take", "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose",
    "trapezoid", "tri", "tril", "triu", "true_divide", "trunc", "unique", "unravel_index",
    "vander", "var", "vdot", "vectorize", "view", "vsplit", "vstack", "where", "zeros",
    "zeros_like"
)
_KERAS_NN = (
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv", "dot_product_attention",
    "elu", "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish",
    "hard_tanh", "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax", "max_pool",
    "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu", "relu6",
    "rms_normalization", "selu", "separable_conv", "sigmoid", "silu", "soft_shrink", "softmax",
    "softplus", "softsign", "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh_shrink", "threshold", "unfold"
)
numpy = types.SimpleNamespace(**{name: globals()[name] for name in _KERAS_NUMPY
                                 if name in globals()})
"""Keras's `ops.numpy` names: the same functions as `ops.add`, `ops.matmul`, ..."""
nn = types.SimpleNamespace(**{name: globals()[name] for name in _KERAS_NN
                              if name in globals()})
"""Keras's `ops.nn` names: the same functions as `ops.relu`, `ops.softmax`, ..."""
image = types.SimpleNamespace(**{name: getattr(image_ops, name) for name in (
    "affine_transform", "crop_images", "elastic_transform", "extract_patches", "gaussian_blur",
    "hsv_to_rgb", "map_coordinates", "pad_images", "perspective_transform", "resize",
    "rgb_to_grayscale", "rgb_to_hsv", "sobel_edges")})
"""Keras's `ops.image` names (those kerasish has): resizing, crops, pads, colour spaces."""
vars(image).update({name: getattr(image_ops, name) for name in (
    "extract_patches_3d", "scale_and_translate", "ssim")})
