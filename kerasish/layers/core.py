"""Dense, Embedding, Activation, Flatten, Reshape, Dropout."""

from __future__ import annotations

import numpy as np

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import array_ops, math_ops, nn_ops
from kerasish.initializers import RandomUniform
from kerasish.layers.base import Layer, in_training_mode


def _floating_input(layer: Layer, inputs):
    """Cast integer or other-precision inputs to the layer's dtype (Keras autocasting)."""
    return inputs if inputs.dtype == layer.dtype else math_ops.cast(inputs, layer.dtype)


class Dense(Layer):
    """activation(inputs @ kernel + bias) over the last axis.

    The weights are made on the first call, from the size of the input's last
    axis: `kernel` of shape (input_dim, units) and `bias` of shape (units,).
    Inputs of rank above 2 are multiplied along their last axis (the leading
    axes are kept).

    Args:
        units: the size of the output's last axis (a positive integer).
        activation: an activation name ('relu', 'softmax', ...) or function;
            None applies none.
        use_bias: whether to add `bias`.
        kernel_initializer, bias_initializer: initializer names or objects
            (defaults: 'glorot_uniform' and 'zeros', as in Keras).
        kernel_regularizer, bias_regularizer: penalties added to the model's
            losses (e.g. `ks.regularizers.L2(1e-4)`).
        kernel_constraint, bias_constraint: projections applied after every
            optimizer update.
        **kwargs: `name`, `trainable`, `dtype`, `input_shape` (see `Layer`).

    Raises:
        InvalidArgumentError: if `units` is not positive, or (at the first call)
            the input's last dimension is unknown.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.Dense(10, activation="relu")
        >>> layer(ks.zeros([1, 1, 784])).shape
        (1, 1, 10)
        >>> [tuple(w.shape) for w in layer.weights]
        [(784, 10), (10,)]
    """

    supports_masking = True

    def __init__(
        self,
        units: int,
        activation=None,
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if int(units) <= 0:
            raise InvalidArgumentError(f"Dense: units must be a positive integer, got {units}")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        if not input_shape or input_shape[-1] is None:
            raise InvalidArgumentError(
                f"Dense '{self.name}': the last dimension of the input must be known, "
                f"got shape {input_shape}"
            )
        self.kernel = self.add_weight(
            "kernel",
            (input_shape[-1], self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = (
            self.add_weight(
                "bias",
                (self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )

    def call(self, inputs):
        expected = self.kernel.shape[0]
        if inputs.ndim == 0 or inputs.shape[-1] != expected:
            raise InvalidArgumentError(
                f"expected inputs with last dimension {expected} (the layer was built for "
                f"(..., {expected})), got shape {inputs.shape}"
            )
        outputs = math_ops.matmul(_floating_input(self, inputs), self.kernel)
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": self.activation,
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.get(self.kernel_initializer),
            "bias_initializer": initializers.get(self.bias_initializer),
            "kernel_regularizer": regularizers.get(self.kernel_regularizer),
            "bias_regularizer": regularizers.get(self.bias_regularizer),
            "kernel_constraint": self.kernel_constraint,
            "bias_constraint": self.bias_constraint,
        }


class Embedding(Layer):
    """Rows of an (input_dim, output_dim) table; ids outside [0, input_dim) raise at the call.

    Its gradient is sparse (`ks.IndexedSlices`): a step touches only the rows it used.

    Args:
        input_dim: the number of ids (the table's rows).
        output_dim: the size of each embedding vector.
        embeddings_initializer: default: uniform in [-0.05, 0.05], as Keras.
        embeddings_regularizer: a penalty on the table, added to the model's losses.
        embeddings_constraint: a projection applied after every optimizer update.
        mask_zero: id 0 is padding: the output carries a mask (ids != 0) that
            mask-aware layers after it (recurrent layers, pooling) respect.
        **kwargs: `name`, `trainable`, `dtype`, `input_shape` (see `Layer`).

    Raises:
        InvalidArgumentError: at the call, for ids that are not integers or not
            in [0, input_dim) (naming the first such id and its position).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.Embedding(input_dim=100, output_dim=8)
        >>> layer(ks.constant([[3, 14, 15]])).shape
        (1, 3, 8)
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer=None,
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero: bool = False,
        **kwargs,
    ):
        kwargs.pop("input_length", None)
        super().__init__(**kwargs)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = embeddings_initializer or RandomUniform(-0.05, 0.05)
        self.embeddings_regularizer = embeddings_regularizer
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        # mask_zero: id 0 is padding; the output carries a mask (ids != 0) for later layers
        self.mask_zero = self.supports_masking = bool(mask_zero)

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings",
            (self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )

    def call(self, inputs):
        return nn_ops.embedding_lookup(self.embeddings, inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": initializers.get(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.get(self.embeddings_regularizer),
            "embeddings_constraint": self.embeddings_constraint,
            "mask_zero": self.mask_zero,
        }

    def compute_mask(self, inputs, mask=None):
        return math_ops.not_equal(inputs, 0) if self.mask_zero else None


class Activation(Layer):
    """Apply an activation function ('relu', 'softmax', or a callable)."""

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "activation": self.activation}


class Flatten(Layer):
    """Collapse every axis but the batch axis: (batch, ...) -> (batch, product)."""

    def call(self, inputs):
        if inputs.ndim == 0:
            raise InvalidArgumentError("Flatten: needs a batch axis, got a scalar")
        return array_ops.reshape(inputs, (inputs.shape[0], int(np.prod(inputs.shape[1:]))))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        return (input_shape[0], None if None in rest else int(np.prod(rest)))


class Reshape(Layer):
    """Reshape each example to `target_shape` (the batch axis is kept)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def call(self, inputs):
        return array_ops.reshape(inputs, (inputs.shape[0],) + self.target_shape)

    def compute_output_shape(self, input_shape):
        target = list(self.target_shape)
        if -1 in target:  # the one free dimension, when the input's size is known
            rest = input_shape[1:]
            known = -int(np.prod(target))
            target[target.index(-1)] = None if None in rest else int(np.prod(rest)) // known
        return (input_shape[0],) + tuple(target)

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": list(self.target_shape)}


class Dropout(Layer):
    """Drop a fraction `rate` of inputs during training (scaling the rest); identity otherwise."""

    supports_masking = True

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise InvalidArgumentError(f"Dropout: rate must be in [0, 1), got {rate}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs, training=None):
        if not in_training_mode(self, training) or self.rate == 0:
            return inputs
        return nn_ops.dropout(inputs, self.rate, self.noise_shape, self.seed)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}
