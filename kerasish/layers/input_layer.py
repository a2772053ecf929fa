"""InputLayer and `ks.Input`: where a functional model starts.

`ks.Input(shape)` makes an InputLayer and returns its symbolic output, a
`KerasTensor` with a None batch dimension; layers and ops called on it record
nodes (see `kerasish.layers.symbolic`) and `ks.Model(inputs, outputs)` turns
them into a model.
"""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor, Node
from kerasish.core.tensor import dtype_name
from kerasish.layers.base import Layer


class InputLayer(Layer):
    """The start of a functional model: holds the shape and dtype of one input.

    Usually made through `ks.Input(shape)`; its `output` is the symbolic tensor.

    Args:
        shape: the shape of one example (without the batch axis).
        batch_size: a fixed batch size, or None (any).
        dtype: the input dtype (default float32).
        batch_shape: the full shape including the batch axis, instead of
            `shape` and `batch_size`.
        name: the layer name, also the input's name in dict inputs.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.InputLayer(shape=(3,), name="features")
        >>> layer.output.shape, layer.name
        ((None, 3), 'features')
    """

    def __init__(
        self,
        shape=None,
        batch_size=None,
        dtype=None,
        sparse=None,
        batch_shape=None,
        input_tensor=None,
        optional: bool = False,
        name=None,
        ragged=None,
        **kwargs,
    ):
        if sparse or ragged or optional:
            what = "sparse" if sparse else "ragged" if ragged else "optional"
            raise InvalidArgumentError(f"InputLayer: {what} inputs are not supported by kerasish")
        if input_tensor is not None:
            raise InvalidArgumentError(
                "InputLayer: input_tensor is not supported; pass shape and dtype instead"
            )
        if batch_shape is None:
            if shape is None:
                raise InvalidArgumentError(
                    "InputLayer: give the shape of one example, e.g. ks.Input(shape=(784,))"
                )
            shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
            batch_shape = (batch_size,) + shape
        elif shape is not None:
            raise InvalidArgumentError("InputLayer: pass shape or batch_shape, not both")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        self._batch_input_shape = self.batch_shape
        self.built = True
        self.output_shape_seen = self.batch_shape
        Node(self, (), {}, KerasTensor(self.batch_shape, self.dtype))

    def get_config(self) -> dict:
        """Keras 3's InputLayer config (no `trainable`: an input has nothing to train)."""
        return {
            "batch_shape": list(self.batch_shape),
            "dtype": dtype_name(self.dtype),
            "sparse": False,
            "ragged": False,
            "name": self.name,
            "optional": False,
        }


def Input(  # noqa: N802 - Keras's name for a function returning a tensor
    shape=None,
    batch_size=None,
    dtype=None,
    sparse=None,
    ragged=None,
    batch_shape=None,
    name=None,
    tensor=None,
    optional: bool = False,
) -> KerasTensor:
    """A symbolic input for the functional API: `ks.Model(inputs, outputs)`.

    Args:
        shape: the shape of one example, without the batch axis; None for an
            unknown dimension (e.g. `(None,)` for variable-length sequences).
        batch_size: a fixed batch size, or None (any).
        dtype: e.g. 'int32' for token ids; default float32.
        batch_shape: the full shape including the batch axis (instead of shape).
        name: the input's name (default 'input_layer', 'input_layer_1', ...).
        ragged: Keras's flag for ragged inputs (TensorFlow's); True raises.

    Raises:
        ValueError: `ragged=True`: kerasish's tensors are dense (pad the sequences, or give
            an unknown dimension with None).

    Example:
        >>> import kerasish as ks
        >>> ks.Input((28, 28, 1), name="image").shape
        (None, 28, 28, 1)
    """
    if ragged:
        raise ValueError(
            "Input: ragged=True is not supported: ragged tensors are TensorFlow's, kerasish's "
            "tensors are dense (pad the sequences, or give an unknown dimension with None)")
    layer = InputLayer(
        shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
        batch_shape=batch_shape, input_tensor=tensor, optional=optional, name=name,
    )
    return layer.output
