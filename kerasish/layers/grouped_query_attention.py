"""GroupQueryAttention: attention whose key/value heads are shared by groups of query heads."""

from __future__ import annotations

from kerasish.core import arguments
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.naming import unique_name
from kerasish.core.ops import indexing_ops
from kerasish.layers.attention import MultiHeadAttention, check_flash_attention
from kerasish.layers.base import Layer, _with_unknown_batch


class GroupQueryAttention(MultiHeadAttention):
    """Grouped-query attention (GQA): `num_query_heads` query heads share
    `num_key_value_heads` key and value heads, each key/value head serving
    num_query_heads // num_key_value_heads query heads.

    Inputs are (batch, length, features). The projections are Keras's (`query`, `key`,
    optional `gate`, `value`, `attention_output`, each a kernel and a bias), in Keras's
    order and shapes, so a Keras file's weights load here.

    Args:
        head_dim: the size of each head.
        num_query_heads: the number of query heads.
        num_key_value_heads: the number of key and value heads (divides num_query_heads).
        dropout: the dropout rate on the attention weights.
        use_bias: whether the projections have biases.
        sliding_window: each query attends only to keys closer than this (None: all).
        flash_attention: None or False; True raises (no fused kernel on NumPy/CuPy).
        kernel_initializer: the projections' kernel initializer.
        bias_initializer: the projections' bias initializer.
        kernel_regularizer: a penalty on the kernels.
        bias_regularizer: a penalty on the biases.
        activity_regularizer: a penalty on the output.
        kernel_constraint: applied to the kernels after each update.
        bias_constraint: applied to the biases after each update.
        use_gate: gate each head's output with a learned sigmoid of the query.
        seed: the dropout's seed.
        **kwargs: the Layer arguments.

    Raises:
        InvalidArgumentError: num_query_heads not divisible by num_key_value_heads, a
            sliding_window that is not a positive integer, flash_attention=True.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> gqa = ks.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
        ...                                     num_key_value_heads=2)
        >>> x = np.zeros((2, 5, 8), "float32")
        >>> gqa(x, x).shape
        (2, 5, 8)
    """

    # Keras's class has no public query_dense/... properties: its sublayers are saved
    # under their private names (_query_dense, ...), so those are the ones walked here
    keras_class_name = "GroupedQueryAttention"  # the Python class behind Keras's export
    _untracked_attributes = MultiHeadAttention._untracked_attributes | {
        "query_dense", "key_dense", "value_dense", "output_dense"}

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None,
                 **kwargs):
        where = "GroupQueryAttention"
        check_flash_attention(flash_attention, where)
        num_query_heads = arguments.integer(num_query_heads, "num_query_heads", where)
        num_key_value_heads = arguments.integer(num_key_value_heads, "num_key_value_heads",
                                                where)
        if num_query_heads % num_key_value_heads != 0:
            raise InvalidArgumentError(
                f"{where}: num_query_heads ({num_query_heads}) must be divisible by "
                f"num_key_value_heads ({num_key_value_heads})"
            )
        if sliding_window is not None and (
                not isinstance(sliding_window, int) or sliding_window <= 0):
            raise InvalidArgumentError(
                f"{where}: sliding_window must be None or a positive integer, got "
                f"{sliding_window!r}"
            )
        super().__init__(num_query_heads, head_dim, dropout=dropout, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         use_gate=use_gate, sliding_window=sliding_window, seed=seed,
                         activity_regularizer=activity_regularizer,
                         name=kwargs.pop("name", None) or unique_name("grouped_query_attention"),
                         **kwargs)
        self.head_dim = self.key_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_repeats = num_query_heads // num_key_value_heads

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the projections (Keras's order: query, key, gate, value, output).

        Args:
            query_shape: the query's shape (batch, Tq, features).
            value_shape: the value's shape (batch, Tv, features_v).
            key_shape: the key's shape (default: the value's).

        Example:
            >>> import kerasish as ks
            >>> gqa = ks.layers.GroupQueryAttention(4, 4, 2)
            >>> gqa.build((None, 5, 8), (None, 5, 8))
            >>> [tuple(w.shape) for w in gqa.weights][:4]
            [(8, 4, 4), (4, 4), (8, 2, 4), (2, 4)]
        """
        if value_shape is None:
            return
        key_shape = value_shape if key_shape is None else key_shape
        self._build_shapes = {"query_shape": _with_unknown_batch(query_shape),
                              "value_shape": _with_unknown_batch(value_shape)}
        if key_shape is not value_shape:
            self._build_shapes["key_shape"] = _with_unknown_batch(key_shape)
        heads, kv_heads, dim = self.num_query_heads, self.num_key_value_heads, self.head_dim
        self._query_dense = self._projection(1, (heads, dim), "query")
        self._key_dense = self._projection(1, (kv_heads, dim), "key")
        if self.use_gate:
            self._gate_dense = self._projection(1, (heads, dim), "gate", "sigmoid")
        self._value_dense = self._projection(1, (kv_heads, dim), "value")
        self._output_dense = self._projection(2, (query_shape[-1],), "attention_output")
        for layer, shape in ((self._query_dense, query_shape), (self._key_dense, key_shape),
                             (self._gate_dense, query_shape), (self._value_dense, value_shape),
                             (self._output_dense, (None, None, heads, dim))):
            if layer is not None:
                layer.build(tuple(shape))
                layer.built = True

    def _attend(self, q, k, v, mask, training):
        if q.ndim != 4:
            raise InvalidArgumentError(
                f"GroupQueryAttention '{self.name}' takes inputs of shape (batch, length, "
                f"features), got a projected query of shape {q.shape}"
            )
        k = indexing_ops.repeat(k, self.num_repeats, axis=2)
        v = indexing_ops.repeat(v, self.num_repeats, axis=2)
        return super()._attend(q, k, v, mask, training)

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        """The output's shape: the query's.

        Args:
            query_shape: the query's shape.
            value_shape: the value's shape (its last axis must equal the query's).
            key_shape: the key's shape.

        Returns:
            The output's shape.

        Raises:
            InvalidArgumentError: the query's and value's last axes differ.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.GroupQueryAttention(4, 2, 1).compute_output_shape((None, 3, 8),
            ...                                                            (None, 6, 8))
            (None, 3, 8)
        """
        if value_shape is not None and tuple(query_shape)[-1] != tuple(value_shape)[-1]:
            raise InvalidArgumentError(
                f"GroupQueryAttention '{self.name}': the last axes of the query and the value "
                f"must be equal, got {tuple(query_shape)} and {tuple(value_shape)}"
            )
        return tuple(query_shape)

    def get_config(self) -> dict:
        return {
            **Layer.get_config(self),
            "head_dim": self.head_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "use_bias": self.use_bias,
            "use_gate": self.use_gate,
            "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            "kernel_initializer": self.kernel_initializer,
            "bias_initializer": self.bias_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "bias_regularizer": self.bias_regularizer,
            "activity_regularizer": self.activity_regularizer,
            "kernel_constraint": self.kernel_constraint,
            "bias_constraint": self.bias_constraint,
            "seed": self.seed,
        }
