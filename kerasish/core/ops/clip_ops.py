"""Clipping: by value, by norm and by global norm (composites: their gradients are those of
the ops they are made of)."""

from __future__ import annotations

from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.ops.creation_ops import zeros
from kerasish.core.tensor import convert_to_tensor


def clip_by_value(t, clip_value_min, clip_value_max):
    """Clamp to [min, max]; the gradient passes where the value was inside.

    Args:
        t: a tensor or a value `convert_to_tensor` takes.
        clip_value_min: the lower bound (broadcast against `t`).
        clip_value_max: the upper bound (broadcast against `t`).

    Returns:
        The clipped tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0).numpy().tolist()
        [-1.0, 0.5, 1.0]
    """
    return math_ops.minimum(math_ops.maximum(t, clip_value_min), clip_value_max)


def clip_by_norm(t, clip_norm, axes=None):
    """Rescale `t` so its L2 norm over `axes` is at most `clip_norm` (safe at zero).

    Args:
        t: a floating tensor.
        clip_norm: the largest norm kept.
        axes: the axes the norm is taken over; None: all of them.

    Returns:
        `t` scaled by clip_norm / max(norm, clip_norm).

    Example:
        >>> import kerasish as ks
        >>> ks.clip_by_norm([6.0, 8.0], 5.0).numpy().tolist()
        [3.0, 4.0]
    """
    t = convert_to_tensor(t)
    squared = reduction_ops.reduce_sum(t * t, axes, keepdims=True)
    positive = math_ops.greater(squared, 0)
    safe = math_ops.where(positive, squared, 1.0)
    l2 = math_ops.where(positive, math_ops.sqrt(safe), squared)
    return t * clip_norm / math_ops.maximum(l2, clip_norm)


def global_norm(tensors):
    """sqrt(sum of squares) over a list of tensors (None entries are skipped).

    Args:
        tensors: a sequence of tensors or None.

    Returns:
        A 0-d tensor (0 for no tensors).

    Example:
        >>> import kerasish as ks
        >>> float(ks.global_norm([[3.0], [4.0], None]))
        5.0
    """
    total = None
    for t in tensors:
        if t is None:
            continue
        t = convert_to_tensor(t)
        part = reduction_ops.reduce_sum(t * t)
        total = part if total is None else total + part
    return math_ops.sqrt(total) if total is not None else zeros(())


def clip_by_global_norm(t_list, clip_norm, use_norm=None):
    """Scale all tensors by clip_norm / max(global_norm, clip_norm); returns (list, norm).

    Args:
        t_list: a sequence of tensors or None (kept as None).
        clip_norm: the largest global norm kept.
        use_norm: the global norm, when already computed.

    Returns:
        (the scaled tensors, the global norm before clipping).

    Example:
        >>> import kerasish as ks
        >>> clipped, norm = ks.clip_by_global_norm([[6.0], [8.0]], 5.0)
        >>> [t.numpy().tolist() for t in clipped], float(norm)
        ([[3.0], [4.0]], 10.0)
    """
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    scale = clip_norm / math_ops.maximum(norm, clip_norm)
    return [None if t is None else convert_to_tensor(t) * scale for t in t_list], norm


