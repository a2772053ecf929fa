"""kerasish: a Keras-style training toolkit with an eager core on NumPy/CuPy.

Everything TF-eager users reach for lives in this flat namespace
(`ks.constant`, `ks.matmul`, `ks.GradientTape`, ...); neural-network ops are in
`ks.nn`, random draws in `ks.random`, gradient checking in `ks.testing`.
"""

import numpy as _np

from kerasish import (  # noqa: F401 - the submodules, as ks.layers etc.
    activations,
    backend,
    callbacks,
    checkpoint,
    config,
    constraints,
    data,
    datasets,
    debugging,
    distribute,
    initializers,
    layers,
    linalg,
    losses,
    math,
    metrics,
    nn,
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    saving,
    summary,
    testing,
    train,
    tree,
    utils,
)
from kerasish.backend import clear_session  # noqa: F401
from kerasish.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint  # noqa: F401
from kerasish.core import ops as _ops  # noqa: F401 - attaches Tensor operators
from kerasish.core.autodiff import (  # noqa: F401
    custom_gradient,
    gradients_function,
    hessian,
    implicit_gradients,
    implicit_value_and_gradients,
    jacobian,
    value_and_gradients_function,
)
from kerasish.core.backend import device, num_gpus  # noqa: F401
from kerasish.core.errors import DeviceError, InvalidArgumentError, KerasishError  # noqa: F401
from kerasish.core.function import defun, function  # noqa: F401
from kerasish.core.keras_tensor import KerasTensor  # noqa: F401
from kerasish.core.ops.array_ops import (  # noqa: F401
    boolean_mask,
    broadcast_to,
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    concat,
    expand_dims,
    eye,
    fill,
    gather,
    gather_nd,
    global_norm,
    identity,
    linspace,
    one_hot,
    ones,
    ones_like,
    pad,
    range,
    rank,
    reshape,
    scatter_rows,
    shape,
    size,
    split,
    squeeze,
    stack,
    stop_gradient,
    tile,
    transpose,
    unsorted_segment_sum,
    unstack,
    zeros,
    zeros_like,
)
from kerasish.core.ops.math_ops import (  # noqa: F401
    abs,
    add,
    add_n,
    argmax,
    argmin,
    cast,
    ceil,
    cos,
    divide,
    equal,
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
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    norm,
    not_equal,
    pow,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
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
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
    truncatediv,
    where,
)
from kerasish.core.ops.scan_ops import cumprod, cumsum, reduce_prod  # noqa: F401
from kerasish.core.tape import GradientTape  # noqa: F401
from kerasish.core.tensor import (  # noqa: F401
    IndexedSlices,
    Tensor,
    Variable,
    as_dtype,
    constant,
    convert_to_tensor,
    name_scope,
)
from kerasish.core.tensor_shape import TensorShape  # noqa: F401
from kerasish.core.version import __version__  # noqa: F401
from kerasish.initializers import Initializer  # noqa: F401
from kerasish.layers.base import Layer  # noqa: F401
from kerasish.layers.input_layer import Input  # noqa: F401
from kerasish.losses import Loss  # noqa: F401
from kerasish.metrics import Metric  # noqa: F401
from kerasish.models import Model, Sequential  # noqa: F401
from kerasish.module import Module  # noqa: F401
from kerasish.optimizers import get_or_create_global_step  # noqa: F401
from kerasish.optimizers.optimizer import Optimizer  # noqa: F401
from kerasish.printing import print  # noqa: F401 - TF's tf.print
from kerasish.regularizers import Regularizer  # noqa: F401


def version() -> str:
    """kerasish's version (Keras 3's `keras.version()`)."""
    return __version__

float16 = _np.dtype("float16")
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
int8 = _np.dtype("int8")
int16 = _np.dtype("int16")
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
uint8 = _np.dtype("uint8")
bool = _np.dtype("bool")  # noqa: A001 - TF's name

random_normal = random.normal  # the seeds' TF1 spelling (tf.random_normal)
random_uniform = random.uniform


def executing_eagerly() -> bool:
    """Always True: every kerasish op runs at once."""
    return True
