"""Attention layers: MultiHeadAttention, Attention (dot-product) and AdditiveAttention.

MultiHeadAttention keeps Keras 3's weight structure: four projection sub-layers
named `query`, `key`, `value` and `attention_output`, with kernels of shape
(dim, heads, key_dim) and (heads, value_dim, dim) and biases (heads, key_dim) and
(dim,), so weights carry over to and from Keras. The projections are single
matrix products over the flattened head axes; the attention itself is two
batched matrix products around a stable softmax.

Masks: positions where a mask is False take no attention. Masks attached to the
inputs (from `Embedding(mask_zero=True)` or `Masking`) are used as Keras uses
them: the query's mask rows, the value's (and key's) mask columns.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core import arguments, backend, tracking
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.ops import creation_ops, math_ops, nn_ops, reduction_ops, shape_ops
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.layers.base import Layer, _with_unknown_batch, in_training_mode

_MASKED_SCORE = 1e9  # what a masked position's score loses before the softmax (as Keras)


def check_flash_attention(flash_attention, where: str) -> None:
    """Refuse `flash_attention=True`: the fused kernel is cuDNN's / JAX's / PyTorch's.

    None and False compute the same attention without it (as Keras does where it is
    unavailable).
    """
    if flash_attention:
        raise InvalidArgumentError(
            f"{where}: flash_attention=True needs a fused flash-attention kernel (cuDNN, JAX "
            "or PyTorch), which the NumPy/CuPy backend does not have; leave it None or False "
            "(the same attention, computed without the fused kernel)"
        )


def _as_bool(mask):
    mask = convert_to_tensor(mask)
    return mask if mask.dtype.kind == "b" else math_ops.cast(mask, "bool")


def _position_mask(query_length: int, key_length: int, allowed, like):
    """(1, Tq, Tk) boolean `allowed(rows, cols)` of the positions, on the device of `like`."""
    rows = np.arange(query_length)[:, None]
    cols = np.arange(key_length)[None, :]
    return Tensor(backend.to_device(allowed(rows, cols)[None], backend.device_of(like._value)))


def _causal_mask(query_length: int, key_length: int, like):
    """(1, Tq, Tk): query position i may attend to key positions j <= i."""
    return _position_mask(query_length, key_length, np.greater_equal, like)


class _HeadProjection(Layer):
    """x (..., *in_shape) -> (..., *out_shape): one matrix product with a kernel of shape
    in_shape + out_shape (the heads kept as their own axes), plus a bias of shape out_shape."""

    supports_masking = True  # as Dense: a mask on the positions passes through

    def __init__(self, contracted: int, out_shape, settings: dict, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.contracted, self.out_shape = contracted, tuple(out_shape)
        self.settings = settings  # use_bias and the kernel/bias initializers, ... of the owner
        self.activation = activations.get(activation)

    def build(self, input_shape):
        in_shape = tuple(input_shape[-self.contracted:])
        settings = self.settings
        self.kernel = self.add_weight(
            "kernel", in_shape + self.out_shape, initializer=settings["kernel_initializer"],
            regularizer=settings["kernel_regularizer"], constraint=settings["kernel_constraint"],
        )
        self.bias = None
        if settings["use_bias"]:
            self.bias = self.add_weight(
                "bias", self.out_shape, initializer=settings["bias_initializer"],
                regularizer=settings["bias_regularizer"], constraint=settings["bias_constraint"],
            )

    def call(self, inputs):
        in_shape = self.kernel.shape[: self.contracted]
        if inputs.shape[-self.contracted:] != in_shape:
            raise InvalidArgumentError(
                f"expected inputs ending in {in_shape} (the layer was built for them), got "
                f"shape {inputs.shape}"
            )
        lead = inputs.shape[: -self.contracted]
        size_in, size_out = math.prod(in_shape), math.prod(self.out_shape)
        flat = shape_ops.reshape(inputs, (-1, size_in))
        out = math_ops.matmul(flat, shape_ops.reshape(self.kernel, (size_in, size_out)))
        if self.bias is not None:
            out = out + shape_ops.reshape(self.bias, (size_out,))
        return self.activation(shape_ops.reshape(out, lead + self.out_shape))


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017) with Keras 3's arguments and weights.

    Call as `layer(query, value, key=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False)`:
    query (batch, Tq, dim), value and key (batch, Tv, dim_v) (key defaults to
    value); `attention_mask` (batch, Tq, Tv) is True where attention is allowed.
    The output has the query's shape (or `output_shape` as its last axes); the
    scores, if asked for, have shape (batch, heads, Tq, Tv).

    Args:
        num_heads: the number of attention heads.
        key_dim: the size of each head's query and key projections.
        value_dim: the size of each head's value projection (default: key_dim).
        dropout: the fraction of attention weights dropped in training.
        use_bias: whether to add a learned bias.
        output_shape: the last axes of the output (default: the query's last axis).
        attention_axes: the axes attention runs over (default: all but batch, heads and
            features).
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        use_gate: gate each head's output with a learned sigmoid of the query.
        sliding_window: each query attends only to keys within this distance (None: all).
        seed: an op seed, for a separate reproducible random stream.
        flash_attention: None or False; True raises (no fused flash-attention kernel on
            the NumPy/CuPy backend).
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> mha = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4)
        >>> out, scores = mha(ks.ones([3, 5, 8]), ks.ones([3, 6, 8]),
        ...                   return_attention_scores=True)
        >>> out.shape, scores.shape, mha.weights[0].shape
        ((3, 5, 8), (3, 2, 5, 6), (8, 2, 4))
    """

    supports_masking = True

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim=None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape=None,
        attention_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        use_gate: bool = False,
        sliding_window=None,
        seed=None,
        flash_attention=None,
        **kwargs,
    ):
        where = "MultiHeadAttention"
        check_flash_attention(flash_attention, type(self).__name__)
        num_heads = arguments.integer(num_heads, "num_heads", where)
        key_dim = arguments.integer(key_dim, "key_dim", where)
        value_dim = arguments.integer(value_dim, "value_dim", where, none=True)
        dropout = arguments.number(dropout, "dropout", where, 0, 1, high_open=True)
        sliding_window = arguments.integer(sliding_window, "sliding_window", where, none=True)
        super().__init__(**kwargs)
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim or key_dim
        self.dropout, self.use_bias, self.seed = dropout, bool(use_bias), seed
        if isinstance(output_shape, (int, np.integer)):
            output_shape = (int(output_shape),)
        self.output_shape_arg = tuple(output_shape) if output_shape else None
        if isinstance(attention_axes, (int, np.integer)):
            attention_axes = (int(attention_axes),)
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.use_gate = bool(use_gate)
        self.sliding_window = sliding_window
        # the projections, created at build (in Keras's order: their weights' order)
        self._query_dense = self._key_dense = self._gate_dense = None
        self._value_dense = self._output_dense = None

    # -- weights ------------------------------------------------------------------
    def _projection(self, contracted: int, out_shape, name: str, activation=None):
        settings = {key: getattr(self, key) for key in (
            "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
            "bias_regularizer", "kernel_constraint", "bias_constraint")}
        return _HeadProjection(contracted, out_shape, settings, activation, name=name,
                               dtype=self.dtype)

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the projections; without `value_shape` that waits for the first call.

        Args:
            query_shape: the query's shape (batch, Tq, dim).
            value_shape: the value's shape (batch, Tv, dim_v).
            key_shape: the key's shape (default: the value's).

        Raises:
            InvalidArgumentError: if value and key differ in shape except the last axis.

        Example:
            >>> import kerasish as ks
            >>> attention = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4)
            >>> attention.build((None, 5, 8), (None, 7, 6))
            >>> attention.weights[0].shape  # the query kernel: (dim, heads, key_dim)
            (8, 2, 4)
        """
        if value_shape is None:
            return
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise InvalidArgumentError(
                f"MultiHeadAttention '{self.name}': value and key must have the same shape "
                f"except the last axis, got value {tuple(value_shape)} and key {tuple(key_shape)}"
            )
        self._build_shapes = {"query_shape": _with_unknown_batch(query_shape),
                              "value_shape": _with_unknown_batch(value_shape)}
        if key_shape is not value_shape:
            self._build_shapes["key_shape"] = _with_unknown_batch(key_shape)
        heads = self.num_heads
        output_shape = self.output_shape_arg or (query_shape[-1],)
        self._query_dense = self._projection(1, (heads, self.key_dim), "query")
        self._key_dense = self._projection(1, (heads, self.key_dim), "key")
        if self.use_gate:
            self._gate_dense = self._projection(1, (heads, self.value_dim), "gate", "sigmoid")
        self._value_dense = self._projection(1, (heads, self.value_dim), "value")
        self._output_dense = self._projection(2, output_shape, "attention_output")
        for layer, shape in ((self._query_dense, query_shape), (self._key_dense, key_shape),
                             (self._gate_dense, query_shape), (self._value_dense, value_shape),
                             (self._output_dense, (None, heads, self.value_dim))):
            if layer is None:
                continue
            layer.build(tuple(shape))
            layer.built = True

    def get_build_config(self):
        """Keras's form for a layer built from several shapes: {"shapes_dict": {...}}."""
        shapes = getattr(self, "_build_shapes", None)
        return None if shapes is None else {"shapes_dict": shapes}

    def build_from_config(self, config: dict) -> None:
        if self._query_dense is None:
            shapes = config.get("shapes_dict") or {"query_shape": config["input_shape"],
                                                   "value_shape": config["input_shape"]}
            self.build(**shapes)
            self.built = True
            tracking.notify_created()

    @property
    def query_dense(self):
        return self._query_dense

    @property
    def key_dense(self):
        return self._key_dense

    @property
    def value_dense(self):
        return self._value_dense

    @property
    def output_dense(self):
        return self._output_dense

    # -- the computation -----------------------------------------------------------
    def _axes(self, rank: int) -> tuple:
        """The attention axes of a rank-`rank` input, as non-negative axes in 1 .. rank-2."""
        if self.attention_axes is None:
            return tuple(range(1, rank - 1))
        axes = tuple(sorted(a % rank for a in self.attention_axes))
        if any(not 1 <= a <= rank - 2 for a in axes):
            raise InvalidArgumentError(
                f"MultiHeadAttention '{self.name}': attention_axes {self.attention_axes} must "
                f"name axes between the batch and the feature axis of rank-{rank} inputs"
            )
        return axes

    def _attention_mask(self, query, value, key, query_mask, value_mask, key_mask,
                        attention_mask, use_causal_mask):
        """All masks combined into one boolean (broadcastable to (B, Tq, Tv)), or None."""
        combined = None

        def both(mask):
            return mask if combined is None else math_ops.logical_and(combined, mask)

        if query_mask is not None:
            combined = both(shape_ops.expand_dims(_as_bool(query_mask), -1))
        if value_mask is not None:
            combined = both(shape_ops.expand_dims(_as_bool(value_mask), -2))
        if key_mask is not None and key is not value:
            combined = both(shape_ops.expand_dims(_as_bool(key_mask), -2))
        if use_causal_mask:
            combined = both(_causal_mask(query.shape[1], value.shape[1], query))
        if self.sliding_window is not None:
            window = self.sliding_window
            combined = both(_position_mask(query.shape[1], value.shape[1],
                                           lambda rows, cols: np.abs(rows - cols) < window, query))
        if attention_mask is not None:
            combined = both(_as_bool(attention_mask))
        return combined

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        key = value if key is None else key
        query, value, key = (convert_to_tensor(t) for t in (query, value, key))
        if query_mask is None:
            query_mask = getattr(query, "_keras_mask", None)
        if value_mask is None:
            value_mask = getattr(value, "_keras_mask", None)
        if key_mask is None:
            key_mask = getattr(key, "_keras_mask", None)
        if self._query_dense is None:
            self.build(query.shape, value.shape, None if key is value else key.shape)
        mask = self._attention_mask(query, value, key, query_mask, value_mask, key_mask,
                                    attention_mask, use_causal_mask)
        q = self._query_dense(query)  # (B, *Tq, H, key_dim)
        k = self._key_dense(key)
        v = self._value_dense(value)
        output, scores = self._attend(q, k, v, mask, training)
        if self._gate_dense is not None:
            output = output * self._gate_dense(query)
        output = self._output_dense(output)
        if query_mask is not None:
            output._keras_mask = _as_bool(query_mask)
        return (output, scores) if return_attention_scores else output

    def _attend(self, q, k, v, mask, training):
        """Scaled dot-product attention of projected (B, *positions, H, depth) tensors."""
        rank = q.ndim - 1  # the rank of the unprojected inputs
        axes = self._axes(rank)
        others = tuple(a for a in range(1, rank - 1) if a not in axes)
        heads_axis = rank - 1
        # (B, *others, H, *attention axes, depth), then the attention axes flattened into one
        perm = (0,) + others + (heads_axis,) + axes + (rank,)

        def gather_heads(t):
            t = shape_ops.transpose(t, perm)
            lead = t.shape[: 2 + len(others)]
            return shape_ops.reshape(t, lead + (-1, t.shape[-1])), t.shape

        q, q_shape = gather_heads(q * (1.0 / math.sqrt(self.key_dim)))
        k, k_shape = gather_heads(k)
        v, _ = gather_heads(v)
        scores = math_ops.matmul(q, k, transpose_b=True)  # (B, *others, H, Lq, Lk)
        query_dims, key_dims = q_shape[-1 - len(axes):-1], k_shape[-1 - len(axes):-1]
        if mask is not None:
            scores = math_ops.where(self._scores_mask(mask, scores, query_dims, key_dims),
                                    scores, scores - _MASKED_SCORE)
        weights = nn_ops.softmax(scores, axis=-1)
        dropped = weights
        if self.dropout and in_training_mode(self, training):
            dropped = nn_ops.dropout(weights, self.dropout, seed=self.seed)
        output = math_ops.matmul(dropped, v)  # (B, *others, H, Lq, value_dim)
        output = shape_ops.reshape(output, q_shape[:-1] + (self.value_dim,))
        output = shape_ops.transpose(output, tuple(int(i) for i in np.argsort(perm)))
        scores_shape = weights.shape[:-2] + query_dims + key_dims
        return output, shape_ops.reshape(weights, scores_shape)

    def _scores_mask(self, mask, scores, query_dims, key_dims):
        """A mask in Keras's score layout (B, *others, H, *Tq, *Tk) for the flattened scores."""
        n = len(query_dims)
        full_rank = scores.ndim - 2 + 2 * n
        while mask.ndim < full_rank:  # new axes go before the query dims, as Keras inserts them
            mask = shape_ops.expand_dims(mask, mask.ndim - 2 * n)
        if mask.ndim > full_rank:
            raise InvalidArgumentError(
                f"MultiHeadAttention '{self.name}': attention_mask of shape {mask.shape} has "
                f"more axes than the attention scores {scores.shape[:-2] + query_dims + key_dims}"
            )
        mask = shape_ops.broadcast_to(mask, mask.shape[: -2 * n] + query_dims + key_dims)
        return shape_ops.reshape(mask, mask.shape[: -2 * n] + scores.shape[-2:])

    def compute_mask(self, inputs, mask=None):
        query_mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        return query_mask

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        """The output's shape: the query's, or with `output_shape` as its last axes.

        Args:
            query_shape: the query's shape.
            value_shape: the value's shape (not needed for the answer).
            key_shape: the key's shape (not needed for the answer).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> attention = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4)
            >>> attention.compute_output_shape((None, 5, 8), (None, 7, 6))
            (None, 5, 8)
        """
        query_shape = tuple(query_shape)
        if self.output_shape_arg:
            return query_shape[:-1] + self.output_shape_arg
        return query_shape

    def compute_output_spec(self, query, value, key=None, query_mask=None, value_mask=None,
                            key_mask=None, attention_mask=None, return_attention_scores=False,
                            training=None, use_causal_mask=False):
        """Symbolic outputs for the functional API (the scores too, when asked for).

        Builds the layer from the shapes if it is not built yet.

        Args:
            query: the symbolic query.
            value: the symbolic value.
            key: the symbolic key (default: the value).
            query_mask: unused for the shapes (as for `call`).
            value_mask: unused for the shapes.
            key_mask: unused for the shapes.
            attention_mask: unused for the shapes.
            return_attention_scores: also return the scores' spec (batch, heads, Tq, Tv).
            training: unused for the shapes.
            use_causal_mask: unused for the shapes.

        Returns:
            The output's symbolic tensor, or (output, scores).

        Example:
            >>> import kerasish as ks
            >>> attention = ks.layers.MultiHeadAttention(num_heads=2, key_dim=4)
            >>> output, scores = attention.compute_output_spec(
            ...     ks.Input((5, 8)), ks.Input((7, 6)), return_attention_scores=True)
            >>> output.shape, scores.shape
            ((None, 5, 8), (None, 2, 5, 7))
        """
        key_shape = None if key is None else key.shape
        if self._query_dense is None:
            self.build(query.shape, value.shape, key_shape)
        output = KerasTensor(self.compute_output_shape(query.shape), self.dtype)
        if not return_attention_scores:
            return output
        rank = len(query.shape)
        axes = self._axes(rank)
        others = tuple(query.shape[a] for a in range(1, rank - 1) if a not in axes)
        scores_shape = ((query.shape[0],) + others + (self.num_heads,)
                        + tuple(query.shape[a] for a in axes) + tuple(value.shape[a] for a in axes))
        return output, KerasTensor(scores_shape, self.dtype)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
            "output_shape": self.output_shape_arg,
            "attention_axes": self.attention_axes,
            "kernel_initializer": self.kernel_initializer,
            "bias_initializer": self.bias_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "bias_regularizer": self.bias_regularizer,
            "kernel_constraint": self.kernel_constraint,
            "bias_constraint": self.bias_constraint,
            "use_gate": self.use_gate,
            "sliding_window": self.sliding_window,
            "seed": self.seed,
        }


class Attention(Layer):
    """Dot-product (Luong-style) attention: softmax(query @ key^T) @ value.

    Call on `[query, value]` or `[query, value, key]`, shapes (batch, Tq, dim) and
    (batch, Tv, dim); `mask=[query_mask, value_mask]` (or masks attached to the
    inputs) hide padded positions. `score_mode='concat'` scores with
    sum(tanh(query + key)) instead; `use_scale` learns a scalar score scale.

    Args:
        use_scale: learn a scalar scale of the scores.
        score_mode: 'dot' (query @ key^T) or 'concat' (sum(tanh(query + key))).
        dropout: the fraction of attention weights dropped in training.
        seed: an op seed, for a separate reproducible random stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Attention()([ks.ones([2, 3, 4]), ks.ones([2, 5, 4])]).shape
        (2, 3, 4)
    """

    supports_masking = True

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0,
                 seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise InvalidArgumentError(
                f"{type(self).__name__}: score_mode must be 'dot' or 'concat', got {score_mode!r}"
            )
        if not 0.0 <= float(dropout) < 1.0:
            raise InvalidArgumentError(
                f"{type(self).__name__}: dropout must be in [0, 1), got {dropout}"
            )
        self.use_scale, self.score_mode = bool(use_scale), score_mode
        self.dropout, self.seed = float(dropout), seed

    def _check_inputs(self, inputs) -> None:
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': call it on [query, value] or "
                f"[query, value, key], got {type(inputs).__name__}"
                + (f" of length {len(inputs)}" if isinstance(inputs, (list, tuple)) else "")
            )

    def build(self, input_shape):
        self._check_inputs(input_shape)
        self.scale = self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight("scale", (), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                "concat_score_weight", (), initializer="ones"
            )

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = math_ops.matmul(query, key, transpose_b=True)
            return scores if self.scale is None else scores * self.scale
        pairs = shape_ops.expand_dims(query, -2) + shape_ops.expand_dims(key, -3)
        if self.scale is not None:
            pairs = self.scale * pairs
        return self.concat_score_weight * reduction_ops.reduce_sum(math_ops.tanh(pairs), -1)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        self._check_inputs(inputs)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = value_mask = None
        if mask is not None:
            query_mask, value_mask = mask[0], mask[1]
        scores = self._scores(query, key)
        allowed = None
        if value_mask is not None:
            allowed = shape_ops.expand_dims(_as_bool(value_mask), -2)
        if use_causal_mask:
            causal = _causal_mask(scores.shape[-2], scores.shape[-1], scores)
            allowed = causal if allowed is None else math_ops.logical_and(allowed, causal)
        if allowed is not None:
            scores = math_ops.where(allowed, scores, scores - _MASKED_SCORE)
        weights = nn_ops.softmax(scores, axis=-1)
        dropped = weights
        if self.dropout and in_training_mode(self, training):
            dropped = nn_ops.dropout(weights, self.dropout, seed=self.seed)
        output = math_ops.matmul(dropped, value)
        if query_mask is not None:
            keep = shape_ops.expand_dims(_as_bool(query_mask), -1)
            output = math_ops.where(keep, output, creation_ops.zeros_like(output))
        return (output, weights) if return_attention_scores else output

    def compute_mask(self, inputs, mask=None):
        if mask is None or mask[0] is None:
            return None
        return _as_bool(mask[0])

    def compute_output_shape(self, input_shape):
        """The output's shape: the query's, with the value's last axis.

        Args:
            input_shape: the shapes [query, value] (or [query, value, key]).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Attention().compute_output_shape([(None, 5, 4), (None, 7, 4)])
            (None, 5, 4)
        """
        query_shape, value_shape = input_shape[0], input_shape[1]
        return tuple(query_shape[:-1]) + (value_shape[-1],)

    def compute_output_spec(self, inputs, mask=None, training=None, return_attention_scores=False,
                            use_causal_mask=False):
        """Symbolic outputs for the functional API (the scores too, when asked for).

        Args:
            inputs: the symbolic [query, value] (or [query, value, key]).
            mask: unused for the shapes.
            training: unused for the shapes.
            return_attention_scores: also return the scores' spec (batch, Tq, Tv).
            use_causal_mask: unused for the shapes.

        Returns:
            The output's symbolic tensor, or (output, scores).

        Example:
            >>> import kerasish as ks
            >>> output, scores = ks.layers.Attention().compute_output_spec(
            ...     [ks.Input((5, 4)), ks.Input((7, 4))], return_attention_scores=True)
            >>> output.shape, scores.shape
            ((None, 5, 4), (None, 5, 7))
        """
        self._check_inputs(inputs)
        query, value = inputs[0], inputs[1]
        output = KerasTensor(self.compute_output_shape([query.shape, value.shape]), self.dtype)
        if not return_attention_scores:
            return output
        return output, KerasTensor(tuple(query.shape[:-1]) + (value.shape[-2],), self.dtype)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention: scores = sum(scale * tanh(query + key), -1).

    `use_scale=True` (the default) learns a per-feature scale of shape (dim,).

    Args:
        use_scale: learn a per-feature scale of the scores.
        dropout: the fraction of attention weights dropped in training.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.AdditiveAttention()
        >>> layer([ks.ones([2, 3, 4]), ks.ones([2, 5, 4])]).shape, layer.scale.shape
        ((2, 3, 4), (4,))
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._check_inputs(input_shape)
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight("scale", (input_shape[0][-1],),
                                         initializer="glorot_uniform")

    def _scores(self, query, key):
        pairs = math_ops.tanh(shape_ops.expand_dims(query, -2) + shape_ops.expand_dims(key, -3))
        if self.scale is not None:
            pairs = self.scale * pairs
        return reduction_ops.reduce_sum(pairs, -1)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["score_mode"]
        return config
