"""The Layer base class: lazy `build`, weight creation, tracking and the `training` flag."""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import warnings

import numpy as np

from kerasish import constraints, initializers, regularizers
from kerasish.core import dtype_policy, limits, nest, recording, tracking
from kerasish.core.errors import KerasishError
from kerasish.core.keras_tensor import KerasTensor, any_symbolic
from kerasish.core.naming import snake_case, unique_name
from kerasish.core.tensor import Tensor, Variable, as_dtype, convert_to_tensor, name_scope
from kerasish.core.tracking import Trackable
from kerasish.layers import symbolic
from kerasish.layers.input_spec import InputSpec, assert_input_compatibility


class _CallContext(threading.local):
    training = None  # the `training` value of the outermost layer call in progress
    depth = 0  # layer calls in progress: 0 outside any, 1 inside the outermost one
    loss_holders = None  # {id: layer} of layers holding `add_loss` terms (a dict once used)


_context = _CallContext()
_warned_inference_in_tape: set = set()



def in_training_mode(layer, training) -> bool:
    """Resolve `training` for layers whose behaviour depends on it (Dropout, BatchNormalization).

    None means: inherit from the enclosing call; if still unknown, inference,
    with a one-time warning when a tape is recording (a forgotten training=True).
    """
    if training is None:
        training = _context.training
    if training is None:
        kind = type(layer).__name__
        if recording.active_tapes() and kind not in _warned_inference_in_tape:
            _warned_inference_in_tape.add(kind)
            warnings.warn(
                f"{kind} '{layer.name}' was called under a GradientTape without `training`; "
                "it runs in inference mode. Pass training=True (e.g. model(x, training=True)) "
                "to train with it.",
                stacklevel=4,
            )
        return False
    return bool(training)


class Layer(Trackable):
    """A callable unit that owns weights: subclass and implement `build` and `call`.

    `build(input_shape)` runs once, on the first call, so weight shapes can
    follow the input; `call(inputs, training=None)` computes the output.

    Args:
        name: the layer's name, the prefix of its weights' names (default: the class
            name in snake_case, made unique).
        trainable: whether its weights are updated by training.
        dtype: its dtype policy: a policy name ('float32', 'float64', 'mixed_float16'), a
            `ks.DTypePolicy` or a dtype. Weights are made in the policy's
            `variable_dtype`; floating inputs are cast to its `compute_dtype` at the call
            (Keras's autocast). Default: the global policy
            (`ks.mixed_precision.set_global_policy`), else `ks.config.floatx()`.
        autocast: whether the call casts floating inputs to the compute dtype and, under a
            mixed policy, reads the weights in it (True, as Keras).
        input_shape: the shape of one example, without the batch axis; a first layer of a
            `Sequential` given it builds the model at once.
        activity_regularizer: a penalty on the layer's outputs, added to `losses` at each
            call (divided by the batch size).
        **kwargs: ``input_dim=n``, Keras's spelling of ``input_shape=(n,)``.

    Raises:
        TypeError: for any other keyword argument, naming it.

    Example:
        >>> import kerasish as ks
        >>> class Scale(ks.layers.Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight("w", [input_shape[-1]], initializer="ones")
        ...     def call(self, inputs):
        ...         return inputs * self.w
        >>> Scale()(ks.ones([2, 3])).shape
        (2, 3)
    """

    _untracked_attributes = frozenset(
        {"_weights", "_regularizers", "_added_losses", "_inbound_nodes"}
    )
    trainable_changes = 0  # `trainable` flips so far (with Variable.created_count: cache keys)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_marks_built", False):
            cls.build = _marking_built(build)

    def __init__(
        self,
        name=None,
        trainable: bool = True,
        dtype=None,
        input_shape=None,
        activity_regularizer=None,
        autocast: bool = True,
        **kwargs,
    ):
        input_dim = kwargs.pop("input_dim", None)
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}: unexpected argument(s) {', '.join(sorted(kwargs))}"
            )
        if input_dim is not None:
            input_shape = (input_dim,)
        self._name = name or unique_name(snake_case(type(self).__name__))
        self._trainable = trainable
        self._dtype_policy = dtype_policy.get(dtype)
        self._dtype = as_dtype(self._dtype_policy.variable_dtype)
        self._compute = as_dtype(self._dtype_policy.compute_dtype)
        self.autocast = bool(autocast)
        self._weights: list[Variable] = []
        self._regularizers: list = []
        self._added_losses: list = []
        # penalty on the outputs, added with add_loss at each call (divided by the batch size)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._batch_input_shape = None if input_shape is None else (None,) + tuple(input_shape)
        self.built = False
        self.output_shape_seen = None

    # -- identity -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self):
        """The dtype of the weights (`variable_dtype`, as a NumPy dtype)."""
        return self._dtype

    @property
    def dtype_policy(self):
        """The layer's `ks.DTypePolicy` (assign a name or a policy to change it before the
        layer is built)."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value) -> None:
        self._dtype_policy = dtype_policy.get(value)
        self._dtype = as_dtype(self._dtype_policy.variable_dtype)
        self._compute = as_dtype(self._dtype_policy.compute_dtype)

    @property
    def compute_dtype(self) -> str:
        """The dtype the layer computes in: its floating inputs are cast to it."""
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype the layer's weights are made in."""
        return self._dtype_policy.variable_dtype

    @property
    def input_dtype(self) -> str:
        """The dtype floating inputs are cast to at the call (the compute dtype)."""
        return self._dtype_policy.compute_dtype

    @property
    def input_spec(self):
        """What the layer accepts (`ks.InputSpec`, or a list of them, or None): checked at
        every call, with an error naming the layer, the input and the rule broken."""
        return self.__dict__.get("_input_spec")

    @input_spec.setter
    def input_spec(self, value) -> None:
        for spec in nest.flatten(value):
            if spec is not None and not isinstance(spec, InputSpec):
                raise TypeError(f"layer '{self.name}': input_spec must be InputSpec objects, "
                                f"got {spec!r}")
        self.__dict__["_input_spec"] = value

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        """Set on this layer and on every layer nested in it, as Keras 3 does."""
        for layer in [self, *self.submodules]:
            layer._trainable = bool(value)
        Layer.trainable_changes += 1

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"

    # -- the functional API ----------------------------------------------------
    @property
    def input(self):
        """The symbolic input(s) of this layer's first call on symbolic tensors."""
        return symbolic.node_attribute(self, "input")

    @property
    def output(self):
        """The symbolic output(s) of this layer's first call on symbolic tensors."""
        return symbolic.node_attribute(self, "output")

    @property
    def output_shape(self):
        """The shape of `output` (a list of shapes for several outputs); for a layer only
        called eagerly, the shape of its last output with the batch dimension as None."""
        if not getattr(self, "_inbound_nodes", None) and self.output_shape_seen is not None:
            return self.output_shape_seen
        output = self.output
        return [t.shape for t in output] if isinstance(output, list) else output.shape

    # -- serialization --------------------------------------------------------
    def get_config(self) -> dict:
        """The constructor arguments that rebuild this layer (Keras 3 key names).

        Subclasses return `{**super().get_config(), <their own arguments>}`; values
        may be initializers, regularizers, constraints, activations or layers, which
        `kerasish.saving` serializes. Weights are not part of the config.
        """
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self._dtype_policy.name}
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = self.activity_regularizer
        return config

    @classmethod
    def from_config(cls, config: dict):
        """A new, unbuilt layer from `get_config()`'s dict.

        Args:
            config: the constructor's keyword arguments, as `get_config` returns them.

        Returns:
            A new layer with the same settings and fresh weights (made when it is built).

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Dense.from_config(ks.layers.Dense(4, name="d").get_config())
            >>> layer.units, layer.name, layer.built
            (4, 'd', False)
        """
        return cls(**config)

    def get_build_config(self) -> dict | None:
        """`{"input_shape": ...}` (batch size None) of the first call, or None if not built so.

        Saved next to the config, so a loaded layer can create its weights before they are
        read (Keras 3's `build_config`).
        """
        shapes = getattr(self, "_build_input_shape", None)
        if shapes is None:
            return None
        return {"input_shape": _with_unknown_batch(shapes)}

    def build_from_config(self, config: dict) -> None:
        """Build from `get_build_config()`'s dict (weights get their shapes, not values).

        Args:
            config: ``{"input_shape": ...}``; without an input shape nothing is built.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Dense(4)
            >>> layer.build_from_config({"input_shape": [None, 3]})
            >>> layer.kernel.shape
            (3, 4)
        """
        input_shape = config.get("input_shape")
        if input_shape is not None and not self.built:
            self.build(input_shape)
            self.built = True
            self._build_input_shape = input_shape
            tracking.notify_created()

    # -- the Keras contract -------------------------------------------------
    def build(self, input_shape) -> None:
        """Create weights from the input shape; the default creates none.

        Called once, by the first `__call__` (or explicitly); afterwards `built` is True.

        Args:
            input_shape: the shape of the first inputs, batch axis included (a list or
                dict of shapes for several inputs).

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Dense(2)
            >>> layer.build((None, 5))
            >>> layer.built, [w.shape for w in layer.weights]
            (True, [(5, 2), (2,)])
        """
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The computation; the default passes inputs through.

        Override it in a subclass; `__call__` builds the layer first and hands over the
        mask and the `training` flag when `call` takes them.

        Args:
            inputs: a tensor, or a list/dict of tensors.
            *args: further positional arguments, as the layer defines them.
            **kwargs: keyword arguments such as ``training`` (True in `fit`, False in
                `evaluate`/`predict`) and ``mask``.

        Returns:
            The outputs.

        Example:
            >>> import kerasish as ks
            >>> dropout = ks.layers.Dropout(0.5)
            >>> dropout.call(ks.ones([1, 4]), training=False).numpy()
            array([[1., 1., 1., 1.]], dtype=float32)
        """
        return inputs

    @property
    def supports_masking(self) -> bool:
        """Whether a mask on the inputs is passed on to the outputs (through `compute_mask`).

        A layer that does not support masking drops the mask, with a warning. By default
        (as in Keras 3) a layer supports masking when its class defines `compute_mask`;
        layers that keep positions as they are set it to True (Dense, LayerNormalization).
        """
        explicit = self.__dict__.get("_supports_masking")
        if explicit is not None:
            return explicit
        return type(self).compute_mask is not Layer.compute_mask

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self._supports_masking = bool(value)

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs, given the inputs and their mask (None: no mask).

        The default passes `mask` through; it is used only when `supports_masking`.

        Args:
            inputs: the layer's inputs.
            mask: the inputs' mask (booleans, True where a position is real), or None.

        Returns:
            The outputs' mask, or None.

        Example:
            >>> import kerasish as ks
            >>> embed = ks.layers.Embedding(10, 2, mask_zero=True)
            >>> embed.compute_mask(ks.constant([[3, 0]])).numpy()
            array([[ True, False]])
        """
        return mask

    def __call__(self, inputs, *args, **kwargs):
        if inputs.__class__ is KerasTensor or (  # (a concrete first input may come with
            (args or kwargs or not isinstance(inputs, Tensor))  # symbolic later arguments)
            and any_symbolic((inputs, args, kwargs))
        ):
            if self.__dict__.get("_input_spec") is not None:
                assert_input_compatibility(self.__dict__["_input_spec"], inputs, self.name)
            return symbolic.layer_call(self, inputs, args, kwargs)  # the functional API
        inputs = _convert_inputs(inputs)
        if self.autocast and self._compute.kind == "f":
            if inputs.__class__ is not Tensor or inputs._value.dtype != self._compute:
                inputs = _cast_floating(inputs, self._compute, self._compute != self._dtype)
            if args:
                args = _cast_floating(args, self._compute, self._compute != self._dtype)
        if self.__dict__.get("_input_spec") is not None:
            assert_input_compatibility(self.__dict__["_input_spec"], inputs, self.name)
        previous_mask = kwargs.get("mask")  # a mask given explicitly wins over one attached
        if previous_mask is None:
            previous_mask = _mask_of(inputs)
            if previous_mask is not None and self._accepts_mask():
                kwargs["mask"] = previous_mask
        training = kwargs.pop("training", None)
        if training is None:
            training = _context.training
        outer_training = _context.training
        _context.training = training
        if _context.depth == 0 and _context.loss_holders:
            _forget_added_losses(self)  # as Keras: each outermost call starts a new set
        _context.depth += 1
        try:
            if self._accepts_training():
                kwargs["training"] = training
            scope = self._autocast_scope()
            if not self.built:  # the variables made now (its own and those of the layers it
                # builds as it runs) are named under this layer's name, as in Keras
                with name_scope(self.name, caller=self):
                    self._build_from(inputs)
                    with scope or contextlib.nullcontext():
                        outputs = self.call(inputs, *args, **kwargs)
            elif scope is None:
                outputs = self.call(inputs, *args, **kwargs)
            else:
                with scope:
                    outputs = self.call(inputs, *args, **kwargs)
            if self.activity_regularizer is not None:
                self._add_activity_penalty(outputs)
        except KerasishError as exc:
            if str(exc).startswith(f"layer '{self.name}'"):
                raise
            raise type(exc)(f"layer '{self.name}' ({type(self).__name__}): {exc}") from exc
        finally:
            _context.training = outer_training
            _context.depth -= 1
        first = nest.flatten(outputs)[0] if outputs is not None else None
        if isinstance(first, Tensor):
            self.output_shape_seen = (None,) + first.shape[1:] if first.ndim else ()
        if self.supports_masking:
            if previous_mask is not None or type(self).compute_mask is not Layer.compute_mask:
                _attach_masks(outputs, self.compute_mask(inputs, previous_mask))
        elif (previous_mask is not None and type(self) not in _warned_mask_dropped
              and not self._accepts_mask()):  # a layer that takes `mask` has used it
            _warned_mask_dropped.add(type(self))
            warnings.warn(
                f"{type(self).__name__} '{self.name}' received an input with a mask but neither "
                "uses nor supports masking: the mask is dropped and later layers will not see it",
                stacklevel=2,
            )
        return outputs

    def _autocast_scope(self):
        """The autocast scope to open around `call` (Keras's rule), or None to keep the
        current one: a mixed policy reads its autocast weights in its compute dtype; a layer
        that does not autocast, or computes in a non-float dtype, turns it off inside."""
        current = dtype_policy.autocast_dtype()
        compute = self._compute
        if current is not None:
            if not self.autocast or compute.kind != "f":
                return dtype_policy.AutocastScope(None)
            return None if current == compute else dtype_policy.AutocastScope(compute)
        if self.autocast and compute != self._dtype and compute.kind == "f":
            return dtype_policy.AutocastScope(compute)
        return None

    def _build_from(self, inputs) -> None:
        shapes = nest.pack_sequence_as(inputs, [x.shape for x in nest.flatten(inputs)])
        self._build_input_shape = shapes
        self.build(shapes)
        self.built = True
        tracking.notify_created()

    @classmethod
    def _accepts_mask(cls) -> bool:
        cached = cls.__dict__.get("_mask_arg")
        if cached is None:
            cached = cls._mask_arg = "mask" in inspect.signature(cls.call).parameters
        return cached

    @classmethod
    def _accepts_training(cls) -> bool:
        cached = cls.__dict__.get("_training_arg")
        if cached is None:
            parameters = inspect.signature(cls.call).parameters
            cached = "training" in parameters or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
            )
            cls._training_arg = cached
        return cached

    # -- weights ------------------------------------------------------------
    def add_weight(
        self,
        name=None,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable: bool = True,
        constraint=None,
        autocast: bool = True,
        aggregation: str = "none",
    ) -> Variable:
        """Create, track and return a weight variable.

        Positional arguments follow tf.keras's order (name, shape, dtype, initializer);
        a first argument that is a shape is read in Keras 3's order instead (shape,
        initializer, dtype), so `self.add_weight((3, 4), "zeros")` works too.

        Args:
            name: the weight's name within this layer ('kernel').
            shape: its shape.
            dtype: default: the layer's dtype (float32).
            initializer: a name ('glorot_uniform', the default for floats; 'zeros'),
                an initializer, or a callable (shape, dtype) -> values.
            regularizer: a name ('l2'), a regularizer or a callable weight -> scalar
                loss, collected in `layer.losses`.
            trainable: whether optimizers should update it.
            constraint: a name ('non_neg'), a `ks.constraints` object or a callable
                w -> w' that optimizers apply after each update (`Variable.constraint`).
            autocast: whether a mixed-precision call reads it in the compute dtype (True);
                False keeps it in its own dtype (normalization statistics).
            aggregation: Keras's replica aggregation, kept on the variable.

        Returns:
            The variable, named ``"<layer name>/<name>"``.

        Raises:
            TypeError: when a shape comes first and the initializer is given twice.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Layer(name="scale")
            >>> w = layer.add_weight("w", shape=(2,), initializer="ones")
            >>> w.name, w.numpy()
            ('scale/w', array([1., 1.], dtype=float32))
        """
        if name is not None and not isinstance(name, str):  # Keras 3: (shape, initializer)
            if shape is not None and initializer is not None:
                raise TypeError(
                    f"layer '{self.name}': add_weight got the shape {name!r} first (Keras 3's "
                    f"order: shape, initializer, dtype) and also initializer={initializer!r}; "
                    "pass the arguments by keyword"
                )
            name, shape, initializer = None, name, initializer if shape is None else shape
        name = name or f"weight_{len(self._weights)}"
        shape = () if shape is None else (
            (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
        )
        dtype = as_dtype(dtype) or self._dtype
        if initializer is None:
            initializer = "glorot_uniform" if dtype.kind == "f" else "zeros"
        init = initializers.get(initializer)
        limits.charge_weight(shape, f"layer '{self.name}'")  # (a file's model: bounded)
        with name_scope(self.name, caller=self):  # (inside the layer's own call: no repeat)
            variable = Variable(init(shape, dtype), name=name, trainable=trainable, dtype=dtype,
                                autocast=autocast, aggregation=aggregation)
        self._weights.append(variable)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._regularizers.append((regularizer, variable))
        variable.constraint = constraints.get(constraint)
        return variable

    def add_variable(self, name=None, shape=None, dtype=None, initializer=None, **kwargs):
        """TF1's name for `add_weight`.

        Args:
            name: the weight's name within this layer.
            shape: its shape.
            dtype: default: the layer's dtype.
            initializer: as for `add_weight`.
            **kwargs: the other arguments of `add_weight`.

        Returns:
            The variable.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Layer(name="tf1")
            >>> layer.add_variable("b", shape=(3,), initializer="zeros").name
            'tf1/b'
        """
        return self.add_weight(name, shape, dtype, initializer, **kwargs)

    def _add_activity_penalty(self, outputs) -> None:
        """add_loss(activity_regularizer(y) / batch size) for each output y (Keras 3's rule)."""
        for output in nest.flatten(outputs):
            if isinstance(output, Tensor):
                penalty = self.activity_regularizer(output)
                if output.ndim and output.shape[0]:
                    penalty = penalty / float(output.shape[0])
                self.add_loss(penalty)

    def add_loss(self, loss) -> None:
        """Add a loss term (e.g. an activity penalty) to `losses`.

        As in Keras, the terms added during a call last until the next outermost call of
        a layer or model that contains this one, so `sum(model.losses)` after
        `model(x)` holds this call's terms only.

        Args:
            loss: a scalar tensor.

        Example:
            >>> import kerasish as ks
            >>> class Penalized(ks.layers.Layer):
            ...     def call(self, inputs):
            ...         self.add_loss(ks.reduce_sum(inputs) * 0.1)
            ...         return inputs
            >>> layer = Penalized()
            >>> _ = layer(ks.ones([2, 5]))
            >>> [round(float(term), 4) for term in layer.losses]
            [1.0]
        """
        if _context.loss_holders is None:
            _context.loss_holders = {}
        _context.loss_holders[id(self)] = self
        self._added_losses.append(loss)

    def _tracked_children(self) -> list:
        children = super()._tracked_children()
        found = {id(child) for _, child in children}
        for variable in self._weights:
            if id(variable) not in found:
                children.append((variable.name.rsplit("/", 1)[-1], variable))
        return children

    def _layer_variables(self, want) -> list:
        """Variables of this layer and nested layers, each once; want = None, True or False."""
        result, seen_vars, seen_layers = [], set(), set()

        def visit(layer, layer_trainable: bool) -> None:
            seen_layers.add(id(layer))
            for _, child in layer._tracked_children():
                if isinstance(child, Variable):
                    if id(child) in seen_vars:
                        continue
                    seen_vars.add(id(child))
                    trainable = layer_trainable and child.trainable
                    if want is None or want == trainable:
                        result.append(child)
                elif isinstance(child, Layer) and id(child) not in seen_layers:
                    visit(child, layer_trainable and child.trainable)

        visit(self, self.trainable)
        return result

    @property
    def variables(self) -> list:
        """Every variable of this layer and its sublayers, in tracking order."""
        return self._layer_variables(None)

    weights = variables

    @property
    def trainable_variables(self) -> list:
        return self._layer_variables(True)

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self) -> list:
        return self._layer_variables(False)

    non_trainable_weights = non_trainable_variables

    @property
    def submodules(self) -> list:
        """Every layer nested in this one (depth first), each once."""
        result, seen = [], {id(self)}

        def visit(layer):
            for _, child in layer._tracked_children():
                if isinstance(child, Layer) and id(child) not in seen:
                    seen.add(id(child))
                    result.append(child)
                    visit(child)

        visit(self)
        return result

    @property
    def losses(self) -> list:
        """Regularization losses of this layer and its sublayers, plus `add_loss` terms."""
        return losses_of([self] + self.submodules)

    def clear_added_losses(self) -> None:
        """Forget `add_loss` terms (done before each training step)."""
        for layer in [self] + self.submodules:
            layer._added_losses.clear()

    def get_weights(self) -> list:
        """Current values of `variables` as NumPy arrays."""
        return [v.numpy() for v in self.variables]

    def set_weights(self, weights) -> None:
        """Assign NumPy arrays to `variables`, in order (shapes must match).

        Args:
            weights: one array per variable, in the order of `get_weights()`.

        Raises:
            ValueError: naming the layer, if the number of arrays differs from the
                number of variables.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> layer = ks.layers.Dense(1)
            >>> layer.build((None, 2))
            >>> layer.set_weights([np.ones((2, 1)), np.zeros(1)])
            >>> layer(ks.constant([[1., 2.]])).numpy()
            array([[3.]], dtype=float32)
        """
        variables = self.variables
        if len(weights) != len(variables):
            raise ValueError(
                f"layer '{self.name}': set_weights got {len(weights)} arrays for "
                f"{len(variables)} variables"
            )
        for variable, value in zip(variables, weights):
            variable.assign(value)

    def count_params(self) -> int:
        return int(sum(v.size for v in self.variables))


def _with_unknown_batch(shapes):
    """A shape (or a list/dict of shapes) as lists, with the batch dimension None."""
    if isinstance(shapes, dict):
        return {key: _with_unknown_batch(value) for key, value in shapes.items()}
    if isinstance(shapes, (list, tuple)) and all(d is None or isinstance(d, int) for d in shapes):
        return [None, *shapes[1:]] if shapes else []
    return [_with_unknown_batch(shape) for shape in shapes]


def _marking_built(build):
    """`build` that also marks the layer built, so an explicit `layer.build(shape)` counts,
    and runs under the layer's name scope, so that the weights of the sublayers it builds
    are named under it however it is reached (Keras 3's paths: 'lstm/lstm_cell/kernel')."""

    @functools.wraps(build)
    def build_and_mark(self, *args, **kwargs):
        was_built = self.built
        with name_scope(self.name, caller=self):
            build(self, *args, **kwargs)
        self.built = True
        if not was_built:
            tracking.notify_created()

    build_and_mark._marks_built = True
    return build_and_mark


def _forget_added_losses(layer) -> None:
    """Clear the `add_loss` terms held by `layer` and the layers inside it."""
    holders = _context.loss_holders
    for sub in [layer] + layer.submodules:
        if holders.pop(id(sub), None) is not None:
            sub._added_losses.clear()


def losses_of(layers) -> list:
    """The loss terms `layers` hold: their weight regularizers' penalties, then the terms
    added with `add_loss` (what `Layer.losses` and a model's `compute_loss` sum)."""
    result = []
    for layer in layers:
        result.extend(reg(var) for reg, var in layer._regularizers)
        result.extend(layer._added_losses)
    return result


_warned_mask_dropped: set = set()


def _mask_of(inputs):
    """The `_keras_mask` of `inputs` (a structure of them for several inputs), or None."""
    if isinstance(inputs, Tensor):
        return getattr(inputs, "_keras_mask", None)
    masks = [getattr(x, "_keras_mask", None) for x in nest.flatten(inputs)]
    if all(m is None for m in masks):
        return None
    return nest.pack_sequence_as(inputs, masks)


def _attach_masks(outputs, masks) -> None:
    """Set each output's `_keras_mask` from `masks` (one per output), keeping masks already set."""
    if masks is None:
        return
    flat_outputs = nest.flatten(outputs)
    for output, mask in zip(flat_outputs, nest.flatten(masks)):
        if (isinstance(output, Tensor) and mask is not None
                and getattr(output, "_keras_mask", None) is None):
            output._keras_mask = mask if isinstance(mask, Tensor) else convert_to_tensor(mask)


def _cast_floating(structure, dtype, mixed: bool):
    """Floating tensors of `structure` cast to `dtype` (Keras's autocast of a layer's
    inputs), each keeping its mask.

    Under a mixed policy every floating input is cast; otherwise only narrower ones (float16
    into a float32 layer), so float64 data keeps its precision through layers without
    weights (kerasish's float64 gradient checks rely on it; Keras would cast it to float32).
    """
    def cast(leaf):
        if not isinstance(leaf, Tensor):
            return leaf
        current = leaf._value.dtype
        if current.kind != "f" or current == dtype or (
                not mixed and current.itemsize >= dtype.itemsize):
            return leaf
        mask = getattr(leaf, "_keras_mask", None)
        result = dtype_policy.cast_floating(leaf, dtype)
        if mask is not None:
            result._keras_mask = mask
        return result

    if isinstance(structure, Tensor):
        return cast(structure)
    return nest.pack_sequence_as(structure, [cast(leaf) for leaf in nest.flatten(structure)])


def _convert_inputs(inputs):
    """Tensors from arrays; a (nested) list of plain numbers is one tensor, not a structure."""
    leaves = nest.flatten(inputs)
    if isinstance(inputs, (list, tuple)) and all(
        isinstance(leaf, (int, float, bool, np.number)) for leaf in leaves
    ):
        return convert_to_tensor(inputs)
    return nest.pack_sequence_as(
        inputs,
        [leaf if leaf is None or isinstance(leaf, Tensor) else convert_to_tensor(leaf)
         for leaf in leaves],
    )


class SameShapeLayer(Layer):
    """Base of layers whose output has their input's shape (activations, noise), passing masks
    through."""

    supports_masking = True

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.GaussianNoise(0.1).compute_output_shape((None, 4))
            (None, 4)
        """
        return tuple(input_shape)
