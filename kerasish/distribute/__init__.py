"""`ks.distribute`: data-parallel training over the processes of an MPI job.

Launch the same script N times with `mpiexec -n N python train.py` (one
machine) or `mpiexec -f hostfile -n N python train.py` (several); run alone,
every function here answers as the only rank of one (rank 0 of 1), so the
script needs no change. Under MPI, `model.fit` splits each batch across the
ranks, averages the gradients, keeps the ranks' variables identical, reports
global metrics and leaves printing and files to the chief (rank 0); see
`kerasish.distribute.training` for the details. Custom loops wrap the
optimizer with `DistributedOptimizer` and call `broadcast_variables` once the
model is built.

Tensors on GPUs are reduced with NCCL (through CuPy, one GPU per rank: use
`ks.device(f"/gpu:{ks.distribute.local_rank()}")`), host arrays with MPI;
`kerasish.core.backend.collective_engine` makes that choice.

Example:
    >>> import kerasish as ks
    >>> ks.distribute.init()
    >>> ks.distribute.size(), ks.distribute.is_chief()
    (1, True)
"""

from kerasish.distribute import training
from kerasish.distribute.communicator import (
    CollectiveTimeoutError,
    init,
    is_chief,
    local_rank,
    rank,
    size,
    timeout,
)
from kerasish.distribute.optimizer import DistributedOptimizer, GradientExchange
from kerasish.distribute.state import BroadcastVariablesCallback, broadcast_variables, sync
from kerasish.distribute.training import compute_average_loss, shard_batch
from kerasish.models import training_hooks

training_hooks.install(training.DistributedHooks())  # fit and evaluate consult them from now on

__all__ = [
    "BroadcastVariablesCallback",
    "CollectiveTimeoutError",
    "DistributedOptimizer",
    "GradientExchange",
    "broadcast_variables",
    "compute_average_loss",
    "init",
    "is_chief",
    "local_rank",
    "rank",
    "shard_batch",
    "size",
    "sync",
    "timeout",
]
