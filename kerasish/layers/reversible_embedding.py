"""ReversibleEmbedding: an Embedding that also maps vectors back to logits over the ids."""

from __future__ import annotations

import numpy as np

from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.ops import math_ops, shape_ops
from kerasish.layers.core import Embedding


class ReversibleEmbedding(Embedding):
    """An Embedding whose `call(x, reverse=True)` projects vectors back onto the ids.

    The usual output layer of a language model: the forward call looks ids up; the
    reverse call multiplies by the transposed table (`tie_weights=True`) or by a separate
    `reverse_embeddings` weight of shape (output_dim, input_dim), giving logits over the
    ids. Weights and config keys as Keras's, so its files load here.

    Args:
        input_dim: the number of ids.
        output_dim: the size of each vector.
        tie_weights: reuse the table for the reverse projection (else a weight of its own).
        embeddings_initializer: default "uniform": uniform in [-0.05, 0.05], as Keras.
        embeddings_regularizer: a penalty on the table.
        embeddings_constraint: a projection applied after every update.
        mask_zero: id 0 is padding (the forward output carries a mask).
        reverse_dtype: the dtype the reverse projection computes in (None: the layer's).
        logit_soft_cap: if set, logits become cap * tanh(logits / cap).
        **kwargs: the Layer arguments.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.ReversibleEmbedding(10, 4)
        >>> vectors = layer(ks.constant([[1, 2]]))
        >>> layer(vectors, reverse=True).shape
        (1, 2, 10)
    """

    def __init__(self, input_dim, output_dim, tie_weights=True, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 reverse_dtype=None, logit_soft_cap=None, **kwargs):
        if embeddings_initializer == "uniform":  # Keras's alias of its default
            embeddings_initializer = None
        super().__init__(input_dim, output_dim,
                         embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap
        self._reversed = False  # whether the latest call projected back (it has no mask)

    def build(self, input_shape=None):
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                "reverse_embeddings", (self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer)

    def call(self, inputs, reverse=False):
        self._reversed = bool(reverse)
        if not reverse:
            return super().call(inputs)
        kernel = (shape_ops.transpose(self.embeddings) if self.tie_weights
                  else self.reverse_embeddings)
        if self.reverse_dtype is not None:
            inputs = math_ops.cast(inputs, self.reverse_dtype)
            kernel = math_ops.cast(kernel, self.reverse_dtype)
        logits = math_ops.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = math_ops.tanh(logits / cap) * cap
        return logits

    def compute_mask(self, inputs, mask=None):
        return None if self._reversed else super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse=False):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape (ids, or vectors when `reverse`).
            reverse: the reverse projection's shape.

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.ReversibleEmbedding(10, 4).compute_output_shape((None, 3, 4), True)
            (None, 3, 10)
        """
        if reverse:
            return tuple(input_shape)[:-1] + (self.input_dim,)
        return tuple(input_shape) + (self.output_dim,)

    def compute_output_spec(self, inputs, reverse=False):
        """The symbolic output (Keras 3's name), forward or reverse.

        Args:
            inputs: a symbolic tensor of ids (or of vectors when `reverse`).
            reverse: the reverse projection.

        Returns:
            A symbolic tensor of the output's shape and the layer's compute dtype.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.ReversibleEmbedding(10, 4).compute_output_spec(ks.Input((3,)))
            <KerasTensor shape=(None, 3, 4), dtype=float32, name=None>
        """
        return KerasTensor(self.compute_output_shape(inputs.shape, reverse),
                           np.dtype(self.compute_dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "tie_weights": self.tie_weights,
                "reverse_dtype": self.reverse_dtype, "logit_soft_cap": self.logit_soft_cap}
