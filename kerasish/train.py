"""`ks.train`: TF's `tf.train` home of the checkpoint API (the same objects as `ks.Checkpoint`,
`ks.CheckpointManager` and `ks.latest_checkpoint`).

Example:
    >>> import kerasish as ks
    >>> ks.train.Checkpoint is ks.Checkpoint
    True
"""

from kerasish.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint"]
