"""kerasish: a Keras-style training toolkit with an eager core on NumPy/CuPy.

Everything TF-eager users reach for lives in this flat namespace
(`ks.constant`, `ks.matmul`, `ks.GradientTape`, ...); neural-network ops are in
`ks.nn`, random draws in `ks.random`, gradient checking in `ks.testing`.
"""

import numpy as _np

from kerasish import (  # noqa: F401 - the submodules, as ks.layers etc.
    activations,
    applications,
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
    mixed_precision,
    nn,
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    saving,
    strings,
    summary,
    testing,
    train,
    tree,
    utils,
)
from kerasish.backend import clear_session  # noqa: F401
from kerasish.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint  # noqa: F401
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
from kerasish.core.dtype_policy import DTypePolicy, FloatDTypePolicy  # noqa: F401
from kerasish.core.errors import DeviceError, InvalidArgumentError, KerasishError  # noqa: F401
from kerasish.core.function import defun, function  # noqa: F401
from kerasish.core.keras_tensor import KerasTensor  # noqa: F401
from kerasish.core.operation import (  # noqa: F401
    Function,
    Operation,
    Quantizer,
    RematScope,
    StatelessScope,
    SymbolicScope,
    remat,
)
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
from kerasish.layers.input_spec import InputSpec  # noqa: F401
from kerasish.losses import Loss  # noqa: F401
from kerasish.metrics import Metric  # noqa: F401
from kerasish.models import Model, Sequential  # noqa: F401
from kerasish.module import Module  # noqa: F401
from kerasish.ops import namespaces as _namespaces
from kerasish.optimizers import get_or_create_global_step  # noqa: F401
from kerasish.optimizers.optimizer import Optimizer  # noqa: F401
from kerasish.printing import print  # noqa: F401 - TF's tf.print
from kerasish.regularizers import Regularizer  # noqa: F401

globals().update(_namespaces.public_ops("ks"))  # ks.matmul, ks.reduce_sum, ...


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
