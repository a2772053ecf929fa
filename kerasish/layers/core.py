"""Dense, Embedding, Activation, Flatten, Reshape, Dropout, Lambda, Identity."""

from __future__ import annotations

import inspect

import numpy as np

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core import arguments, nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.ops import indexing_ops, math_ops, nn_ops, shape_ops
from kerasish.core.serialization import deserialize_keras_object
from kerasish.core.symbolic import SENTINEL_SIZES, infer_output_specs
from kerasish.initializers import RandomUniform
from kerasish.layers.base import Layer, in_training_mode
from kerasish.layers.lora import LoRAMixin, lora_weight_property


def _floating_input(layer: Layer, inputs):
    """Cast integer or other-precision inputs to the layer's compute dtype (Keras
    autocasting; float16 under 'mixed_float16')."""
    dtype = layer.compute_dtype
    return inputs if inputs.dtype == dtype else math_ops.cast(inputs, dtype)


class Dense(LoRAMixin, Layer):
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
        lora_rank: enable LoRA of this rank at build (see `enable_lora`): the kernel
            frozen, low-rank factors `lora_kernel_a/b` trained.
        lora_alpha: LoRA's scale is `lora_alpha / lora_rank` (default: `lora_rank`).
        quantization_config: must be None (no quantized kernels: a clear error).
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
    kernel = lora_weight_property("kernel")

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
        lora_rank=None,
        lora_alpha=None,
        quantization_config=None,
        **kwargs,
    ):
        check_no_quantization(quantization_config, "Dense")
        super().__init__(**kwargs)
        self._setup_lora(lora_rank, lora_alpha)
        self.units = arguments.integer(units, "units", "Dense")
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
        self._build_lora()

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
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Dense(3).compute_output_shape((None, 5))
            (None, 3)
        """
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
            **self._lora_config(),
        }


def check_no_quantization(quantization_config, where: str) -> None:
    """Refuse a `quantization_config`: kerasish has no int8/int4/float8/GPTQ layers.

    Args:
        quantization_config: Keras's quantization config (None: none).
        where: the layer's class name, for the message.

    Raises:
        InvalidArgumentError: a config is given.

    Example:
        >>> from kerasish.layers.core import check_no_quantization
        >>> check_no_quantization(None, "Dense")
    """
    if quantization_config is not None:
        raise InvalidArgumentError(
            f"{where}: quantization_config is not supported: kerasish has no quantized "
            "(int8/int4/float8/GPTQ) kernels; leave it None"
        )


class Embedding(LoRAMixin, Layer):
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
        weights: the initial table, an (input_dim, output_dim) array (or a list holding it).
        lora_rank: enable LoRA of this rank at build (see `enable_lora`): the table
            frozen, low-rank factors `lora_embeddings_a/b` trained.
        lora_alpha: LoRA's scale is `lora_alpha / lora_rank` (default: `lora_rank`).
        quantization_config: must be None (quantized layers are not supported).
        **kwargs: `name`, `trainable`, `dtype`, `input_shape` (see `Layer`).

    Ids may be floats holding whole numbers (the float32 ids of a `ks.Input(shape=(n,))`),
    cast to integers as Keras casts them.

    Raises:
        InvalidArgumentError: at the call, for ids that are not integers or not
            in [0, input_dim) (naming the first such id and its position).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.Embedding(input_dim=100, output_dim=8)
        >>> layer(ks.constant([[3, 14, 15]])).shape
        (1, 3, 8)
    """

    embeddings = lora_weight_property("embeddings")
    _lora_target = "embeddings"
    _lora_names = ("lora_embeddings_a", "lora_embeddings_b")

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer=None,
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero: bool = False,
        weights=None,
        lora_rank=None,
        lora_alpha=None,
        quantization_config=None,
        **kwargs,
    ):
        kwargs.pop("input_length", None)
        check_no_quantization(quantization_config, "Embedding")
        if embeddings_initializer == "uniform":  # Keras's alias of its default
            embeddings_initializer = None
        super().__init__(**kwargs)
        self.input_dim = arguments.integer(input_dim, "input_dim", "Embedding")
        self.output_dim = arguments.integer(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = embeddings_initializer or RandomUniform(-0.05, 0.05)
        self.embeddings_regularizer = embeddings_regularizer
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        # mask_zero: id 0 is padding; the output carries a mask (ids != 0) for later layers
        self.mask_zero = self.supports_masking = bool(mask_zero)
        self._setup_lora(lora_rank, lora_alpha)
        if weights is not None:  # as Keras: the table given, set now
            self.build()
            self.built = True
            if not (isinstance(weights, list) and len(weights) == 1):
                weights = [weights]
            self.set_weights(weights)

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(
            "embeddings",
            (self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self._build_lora()

    def call(self, inputs):
        ids = indexing_ops.integer_ids(inputs, "embedding_lookup")  # float ids cast, as Keras
        return nn_ops.embedding_lookup(self.embeddings, ids)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Embedding(10, 4).compute_output_shape((None, 7))
            (None, 7, 4)
        """
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
            **self._lora_config(),
        }

    def compute_mask(self, inputs, mask=None):
        return math_ops.not_equal(inputs, 0) if self.mask_zero else None


class Activation(Layer):
    """Apply an activation function ('relu', 'softmax', or a callable).

    Args:
        activation: a name ('relu', 'softmax', ...) or a callable tensor -> tensor.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Activation("relu")(ks.constant([[-1.0, 2.0]])).numpy()
        array([[0., 2.]], dtype=float32)
    """

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Activation("relu").compute_output_shape((None, 4))
            (None, 4)
        """
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "activation": self.activation}


class Flatten(Layer):
    """Collapse every axis but the batch axis: (batch, ...) -> (batch, product).

    With data_format='channels_first' the channel axis (1) is moved last before
    flattening, as Keras does, so the order of the features is that of the channels-last
    layout (a Dense after it sees the same features whichever layout came before).

    Args:
        data_format: 'channels_last' (default) or 'channels_first': the inputs' layout.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Flatten()(ks.ones([2, 3, 4])).shape
        (2, 12)
        >>> x = ks.reshape(ks.range(4.0), (1, 2, 2))  # 2 channels of 2 steps
        >>> ks.layers.Flatten(data_format="channels_first")(x).numpy().tolist()
        [[0.0, 2.0, 1.0, 3.0]]
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        data_format = "channels_last" if data_format is None else str(data_format).lower()
        if data_format not in ("channels_last", "channels_first"):
            raise InvalidArgumentError(
                f"Flatten: data_format must be 'channels_last' or 'channels_first', got "
                f"{data_format!r}"
            )
        self.data_format = data_format

    def call(self, inputs):
        if inputs.ndim == 0:
            raise InvalidArgumentError("Flatten: needs a batch axis, got a scalar")
        if self.data_format == "channels_first" and inputs.ndim > 2:
            inputs = shape_ops.transpose(inputs, (0, *range(2, inputs.ndim), 1))
        return shape_ops.reshape(inputs, (inputs.shape[0], int(np.prod(inputs.shape[1:]))))

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Flatten().compute_output_shape((None, 3, 4))
            (None, 12)
        """
        rest = input_shape[1:]
        return (input_shape[0], None if None in rest else int(np.prod(rest)))


class Reshape(Layer):
    """Reshape each example to `target_shape` (the batch axis is kept).

    Args:
        target_shape: the shape of one example (no batch axis); one entry may be -1, inferred from
            the size.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Reshape((3, 2))(ks.ones([4, 6])).shape
        (4, 3, 2)
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def call(self, inputs):
        return shape_ops.reshape(inputs, (inputs.shape[0],) + self.target_shape)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Reshape((-1, 2)).compute_output_shape((None, 6))
            (None, 3, 2)
        """
        target = list(self.target_shape)
        if -1 in target:  # the one free dimension, when the input's size is known
            rest = input_shape[1:]
            known = -int(np.prod(target))
            target[target.index(-1)] = None if None in rest else int(np.prod(rest)) // known
        return (input_shape[0],) + tuple(target)

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": list(self.target_shape)}


class Dropout(Layer):
    """Drop a fraction `rate` of inputs during training (scaling the rest); identity otherwise.

    Args:
        rate: the fraction of inputs set to 0 in training, in [0, 1); the kept ones are
            scaled by 1 / (1 - rate).
        noise_shape: the shape of the keep/drop mask, broadcast to the inputs (e.g. (batch, 1,
            features) drops whole features for every step); None: the inputs' shape.
        seed: an op seed, for a separate reproducible random stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.random.set_seed(0)
        >>> ks.layers.Dropout(0.5)(ks.ones([1, 6]), training=True).numpy()
        array([[2., 0., 0., 0., 2., 2.]], dtype=float32)
        >>> ks.layers.Dropout(0.5)(ks.ones([1, 2]), training=False).numpy()
        array([[1., 1.]], dtype=float32)
    """

    supports_masking = True

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = arguments.number(rate, "rate", "Dropout", 0, 1, high_open=True)
        self.noise_shape, self.seed = noise_shape, seed

    def call(self, inputs, training=None):
        if not in_training_mode(self, training) or self.rate == 0:
            return inputs
        return nn_ops.dropout(inputs, self.rate, self.noise_shape, self.seed)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Dropout(0.5).compute_output_shape((None, 4))
            (None, 4)
        """
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}


def _is_shape(value) -> bool:
    return isinstance(value, (tuple, list)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in value
    )


def _map_shapes(fn, shapes):
    """`fn` applied to each shape of a shape or a (nested) list/tuple/dict of shapes."""
    if _is_shape(shapes):
        return fn(tuple(None if d is None else int(d) for d in shapes))
    if isinstance(shapes, dict):
        return {key: _map_shapes(fn, value) for key, value in shapes.items()}
    return [_map_shapes(fn, value) for value in shapes]


def _parameter_names(function) -> set:
    try:
        return set(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # some builtins have no signature
        return set()


def _function_config(function):
    """A built-in activation in Keras's `function` form (a plain name would not load in
    Keras's Lambda); any other function is left to `kerasish.saving`, which writes a
    lambda's bytecode (`__lambda__`) or a named function's registered name."""
    name = activations.builtin_name(function)
    if name is None:
        return function
    return {"module": "keras.activations", "class_name": "function", "config": name,
            "registered_name": "function"}


class Lambda(Layer):
    """A layer that applies `function(inputs, **arguments)`: quick expressions in a model.

    `function` also receives `mask=` and `training=` when its signature names them.
    For the functional API the output shape is `output_shape` when given (the shape
    without the batch axis, a list of such shapes, or a function of the full input
    shape), and otherwise found by running `function` once on zeros.

    Saving: a model with a Lambda is saved like Keras 3 saves it. A Python `lambda`
    is written as its marshalled bytecode (class name `__lambda__`), which runs code
    when loaded, so loading refuses it unless the caller passes `safe_mode=False`; a
    named function is written by name and found again through
    `ks.saving.register_keras_serializable` or `custom_objects`. Bytecode only loads
    in the Python version that wrote it. A subclass of `Layer` with `get_config` is
    the portable choice.

    Args:
        function: the callable applied to the inputs.
        output_shape: the output shape without the batch axis (or a list of them, or
            a function of the input shape); None: inferred.
        mask: None (no mask on the output), a function `(inputs, mask) -> mask`, or a
            fixed mask tensor.
        arguments: keyword arguments passed to `function` at every call.
        **kwargs: `name`, `trainable`, `dtype`, `input_shape` (see `Layer`).

    Raises:
        TypeError: if `function` is not callable.
        InvalidArgumentError: if `output_shape` is neither a shape, a list of shapes
            nor callable.

    Example:
        >>> import kerasish as ks
        >>> square = ks.layers.Lambda(lambda x: x ** 2)
        >>> square(ks.constant([[1.0, 2.0, 3.0]])).numpy().tolist()
        [[1.0, 4.0, 9.0]]
        >>> scale = ks.layers.Lambda(lambda x, factor: x * factor, arguments={"factor": 10.0})
        >>> scale(ks.constant([[1.0]])).numpy().tolist()
        [[10.0]]
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(
                f"Lambda: function must be callable, got {function!r} ({type(function).__name__})"
            )
        if output_shape is not None and not callable(output_shape):
            several = isinstance(output_shape, (list, tuple)) and output_shape and all(
                _is_shape(shape) for shape in output_shape
            )
            if not (_is_shape(output_shape) or several):
                raise InvalidArgumentError(
                    f"Lambda: output_shape must be a shape (the dimensions after the batch "
                    f"axis), a list of shapes or a function of the input shape, got "
                    f"{output_shape!r}"
                )
            output_shape = _map_shapes(lambda shape: shape, output_shape)
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None
        self._output_shape = output_shape
        parameters = _parameter_names(function)
        self._function_takes_mask = "mask" in parameters
        self._function_takes_training = "training" in parameters

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._function_takes_mask:
            kwargs["mask"] = mask
        if self._function_takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        return self.mask(inputs, mask) if callable(self.mask) else self.mask

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Lambda(lambda x: x[:, :2], output_shape=(2,))
            >>> layer.compute_output_shape((None, 5))
            (None, 2)
        """
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        if self._output_shape is not None:
            batch = nest.flatten(input_shape)[0] if input_shape else None
            return _map_shapes(lambda shape: (batch,) + shape, self._output_shape)
        specs = self._inferred_specs(
            _map_shapes(lambda shape: KerasTensor(shape, self.dtype), input_shape)
        )
        return nest.pack_sequence_as(specs, [spec.shape for spec in nest.flatten(specs)])

    def compute_output_spec(self, inputs, mask=None, training=None):
        """Symbolic outputs: from `output_shape` when given (with the input's dtype), else
        from one run of `function` on zeros of the inputs' shapes and dtypes.

        Args:
            inputs: symbolic inputs.
            mask: unused for the shapes.
            training: unused for the shapes.

        Returns:
            Symbolic outputs.

        Raises:
            InvalidArgumentError: naming the input shapes, when the run on zeros fails.

        Example:
            >>> import kerasish as ks
            >>> twice = ks.layers.Lambda(lambda x: ks.concat([x, x], -1))
            >>> twice.compute_output_spec(ks.Input((3,))).shape
            (None, 6)
        """
        if self._output_shape is None:
            return self._inferred_specs(inputs)
        dtype = nest.flatten(inputs)[0].dtype
        shapes = self.compute_output_shape(
            nest.pack_sequence_as(inputs, [t.shape for t in nest.flatten(inputs)])
        )
        return _map_shapes(lambda shape: KerasTensor(shape, dtype), shapes)

    def _inferred_specs(self, inputs):
        try:
            return infer_output_specs(lambda x: self.call(x, training=False), (inputs,), {})
        except Exception as exc:
            shapes = ", ".join(str(t.shape) for t in nest.flatten(inputs))
            raise InvalidArgumentError(
                f"layer '{self.name}' (Lambda): could not infer the output shape by running the "
                f"function on zeros of shape {shapes} (unknown dimensions set to "
                f"{SENTINEL_SIZES[0]}): {type(exc).__name__}: {exc}. Pass "
                "output_shape=(...) (the shape after the batch axis)"
            ) from exc

    def get_config(self) -> dict:
        config = {**super().get_config(), "function": _function_config(self.function)}
        if self._output_shape is not None:
            config["output_shape"] = (
                _function_config(self._output_shape) if callable(self._output_shape)
                else self._output_shape
            )
        if self.mask is not None:
            config["mask"] = _function_config(self.mask) if callable(self.mask) else self.mask
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config: dict):
        """Rebuild from `get_config()`; a serialized function (`__lambda__` bytecode or a
        function by name) is deserialized here, and bytecode only with `safe_mode=False`.

        Args:
            config: the dict `get_config` returned (or Keras 3's).

        Returns:
            A new Lambda layer.

        Raises:
            SerializationError: for bytecode outside ``safe_mode=False``.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Lambda(ks.activations.relu, output_shape=(3,))
            >>> again = ks.layers.Lambda.from_config(layer.get_config())
            >>> again(ks.constant([[-1.0, 2.0, 0.5]])).numpy()
            array([[0. , 2. , 0.5]], dtype=float32)
        """
        config = dict(config)
        for key in ("function", "output_shape", "mask", "arguments"):
            if isinstance(config.get(key), dict):
                config[key] = deserialize_keras_object(config[key])
        return cls(**config)


class Identity(Layer):
    """Returns its inputs unchanged (a placeholder where a model needs a layer); masks pass.

    Args:
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Identity()(ks.constant([[1.0, 2.0]])).numpy().tolist()
        [[1.0, 2.0]]
    """

    supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Identity().compute_output_shape((None, 4))
            (None, 4)
        """
        return input_shape

    def compute_output_spec(self, inputs):
        """Symbolic outputs with the shapes and dtypes of the inputs.

        Args:
            inputs: symbolic inputs (any structure).

        Returns:
            New symbolic tensors like them.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Identity().compute_output_spec(ks.Input((3,)))
            <KerasTensor shape=(None, 3), dtype=float32, name=None>
        """
        return nest.pack_sequence_as(
            inputs, [KerasTensor(t.shape, t.dtype) for t in nest.flatten(inputs)]
        )
