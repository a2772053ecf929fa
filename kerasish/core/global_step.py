"""The process-wide step counter of TF1-style code, in the core so that both the optimizers
(which count it up) and `ks.summary` (whose default step it is) can reach it."""

from __future__ import annotations

import threading

import numpy as np

from kerasish.core.tensor import Tensor, Variable

_global_step: Variable | None = None
_global_step_lock = threading.Lock()


def get_or_create_global_step() -> Variable:
    """The process-wide step counter of TF1-style code (a non-trainable int64 variable).

    Created at 0 on the first call; later calls return the same variable.
    `apply_gradients(..., global_step=step)` and `minimize(..., global_step=step)`
    add one to it per call.

    Example:
        >>> import kerasish as ks
        >>> step = ks.optimizers.get_or_create_global_step()
        >>> step is ks.optimizers.get_or_create_global_step(), step.name, str(step.dtype)
        (True, 'global_step', 'int64')
    """
    global _global_step
    with _global_step_lock:
        if _global_step is None:
            # in host memory: read every step without a device sync
            _global_step = Variable(Tensor(np.asarray(0, np.int64)), name="global_step",
                                    trainable=False)
        return _global_step
