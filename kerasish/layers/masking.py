"""Masking: mark the time steps whose features all equal `mask_value` as padding."""

from __future__ import annotations

from kerasish.core.ops import math_ops, reduction_ops
from kerasish.layers.base import Layer


class Masking(Layer):
    """Mask the steps of (batch, time, features) inputs where every feature equals `mask_value`.

    Masked steps are zeroed in the output, and the output carries the mask
    (batch, time) so that RNN layers skip those steps and pooling ignores them.

    Args:
        mask_value: a step whose features all equal it is masked.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> x = ks.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]])
        >>> ks.layers.Masking()(x)._keras_mask.numpy().tolist()
        [[True, False, True]]
    """

    supports_masking = True

    def __init__(self, mask_value: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return reduction_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = reduction_ops.reduce_any(
            math_ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True
        )
        return inputs * math_ops.cast(keep, inputs.dtype)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Masking().compute_output_shape((None, 10, 3))
            (None, 10, 3)
        """
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
