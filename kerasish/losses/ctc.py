"""The CTC loss (`ctc`, `CTC`) for sequence labelling without alignments: speech,
handwriting. Its recursion is `kerasish.core.ops.ctc_ops.ctc_loss`."""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import ctc_ops, math_ops, reduction_ops
from kerasish.core.tensor import convert_to_tensor
from kerasish.losses.base import LossFunctionWrapper, loss_function


@loss_function
def ctc(y_true, y_pred):
    """The CTC loss per sequence, as Keras's `losses.ctc`: every frame of `y_pred` counts,
    and a sequence's labels are its entries other than 0 (class 0 is the blank, and pads
    the label rows).

    Args:
        y_true: (batch, max_label_length) integer labels, padded with 0.
        y_pred: (batch, frames, num_classes) logits.

    Returns:
        (batch,) losses.

    Raises:
        InvalidArgumentError: `y_true` is not of rank 2 or `y_pred` of rank 3.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> round(float(ks.losses.ctc([[1, 0]], np.zeros((1, 2, 2), np.float32))[0]), 4)
        0.2877
    """
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.ndim != 2 or y_pred.ndim != 3:
        raise InvalidArgumentError(
            f"ctc: needs labels y_true of shape (batch, max_length) and logits y_pred of "
            f"shape (batch, frames, num_classes); got {y_true.shape} and {y_pred.shape}")
    labels = y_true if y_true.dtype.kind in "iu" else math_ops.cast(y_true, np.int64)
    label_length = reduction_ops.reduce_sum(
        math_ops.cast(math_ops.not_equal(labels, 0), np.int64), -1)
    frames = np.full((y_pred.shape[0],), y_pred.shape[1], np.int64)
    return ctc_ops.ctc_loss(labels, y_pred, label_length, frames, mask_index=0)


class CTC(LossFunctionWrapper):
    """`ctc` as a `Loss` object.

    Args:
        reduction: how the losses are reduced (see `Loss`).
        name: the loss's name in logs (default 'ctc').
        dtype: the dtype the logits are computed in (None: as given; Keras's floatx).

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> round(float(ks.losses.CTC()([[1, 0]], np.zeros((1, 2, 2), np.float32))), 4)
        0.2877
    """

    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "ctc", dtype=None):
        super().__init__(ctc, reduction, name, dtype)

    def call(self, y_true, y_pred):
        """The per-sequence CTC losses (`ctc`); calling the loss casts the logits to `dtype`
        first, if one was given.

        Args:
            y_true: (batch, max_label_length) labels, padded with 0.
            y_pred: (batch, frames, num_classes) logits.

        Returns:
            (batch,) losses.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> ks.losses.CTC().call([[1, 0]], np.zeros((1, 2, 2), np.float32)).shape
            (1,)
        """
        return ctc(y_true, y_pred)

    def get_config(self) -> dict:
        config = super().get_config()
        if self.dtype is not None:
            config["dtype"] = self.dtype
        return config
