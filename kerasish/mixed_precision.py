"""`ks.mixed_precision`: Keras 3's mixed-precision names.

`set_global_policy("mixed_float16")` makes new layers keep their weights in float32 and
compute in float16; `fit` then scales the loss with a `LossScaleOptimizer` so small float16
gradients do not flush to zero. 'mixed_bfloat16' is refused: NumPy has no bfloat16. On the
CPU, NumPy emulates float16 arithmetic, so a mixed step is slower than a float32 one
(COMPATIBILITY.md gives the figure); on a GPU (CuPy) float16 runs on the half-precision units.

Example:
    >>> import kerasish as ks
    >>> ks.mixed_precision.set_global_policy("mixed_float16")
    >>> layer = ks.layers.Dense(2)
    >>> layer(ks.ones([1, 3])).dtype, layer.variable_dtype
    (dtype('float16'), 'float32')
    >>> ks.config.set_floatx("float32")  # back to the default (drops the policy)
"""

from kerasish.core.dtype_policy import (
    DTypePolicy,
    FloatDTypePolicy,
    dtype_policy,
    set_dtype_policy,
)
from kerasish.optimizers.loss_scale_optimizer import LossScaleOptimizer

Policy = DTypePolicy  # Keras's legacy name
global_policy = dtype_policy  # Keras's legacy name
set_global_policy = set_dtype_policy  # Keras's legacy name

__all__ = ["DTypePolicy", "FloatDTypePolicy", "LossScaleOptimizer", "Policy", "dtype_policy",
           "global_policy", "set_dtype_policy", "set_global_policy"]
