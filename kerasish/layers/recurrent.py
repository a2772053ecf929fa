"""Recurrent layers: RNN(cell) for any cell; SimpleRNN, LSTM, GRU; the wrappers
Bidirectional and TimeDistributed. The cells are in `recurrent_cells`.

How a sequence runs. A built-in cell splits its step in two: `project` multiplies
the inputs of ALL time steps by the input kernel in one matrix product (and adds
the input bias) before the loop, and the step function then needs one matrix
product per state. The projected sequence is cut into steps by one `unstack`
(views; its gradient is one concat), so backpropagation through time holds each
step's activations once and never builds per-step zero arrays of the whole
sequence. A user cell (any Layer with `state_size` and `call(inputs, states)`
returning `(output, new_states)`) is called on each step's slice instead.

Masks (from `Embedding(mask_zero=True)`, `Masking`, or `mask=`) mark real steps:
at a masked step the states are carried through unchanged and the output repeats
the previous one (zeros with `zero_output_for_mask=True`), as Keras does.
Dropout masks are drawn once per sequence and reused at every step.
Weights have Keras 3's names, shapes and gate order (LSTM: i, f, c, o; GRU: z, r, h),
so weights carry over to and from Keras.
"""

from __future__ import annotations

from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, shape_ops
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.layers.base import Layer, in_training_mode
from kerasish.layers.recurrent_cells import (
    BuiltinCell,
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
    as_list,
    build_child,
    clone_layer,
    nested_layer,
    reset_dropout_masks,
    zero_states,
)

# ---------------------------------------------------------------- the loop


class RNN(Layer):
    """Run a cell over the time axis of (batch, time, features) inputs.

    Args:
        cell: a built-in cell, or any Layer with `state_size` (an int or a list of
            ints) and `call(inputs, states, training=None)` returning
            `(output, new_states)`; optionally `get_initial_state(batch_size)`.
        return_sequences: return every step's output (batch, time, units) rather
            than the last (batch, units).
        return_state: also return the final states: `(output, *states)`.
        go_backwards: process the sequence in reverse (outputs come in that order).
        stateful: the final states of a batch are the initial states of the next
            (`reset_states()` zeroes them); the batch size must stay the same.
        unroll: accepted for Keras compatibility: an eager loop is always unrolled.
        zero_output_for_mask: masked steps output zeros instead of repeating the
            previous output.

    Call with `initial_state=[...]` to start from given states, `mask=` a
    (batch, time) boolean tensor (or let a masking layer before it supply one),
    and `training=` for dropout.

    Example:
        >>> import kerasish as ks
        >>> class Accumulate(ks.layers.Layer):
        ...     state_size = 2
        ...     def call(self, inputs, states):
        ...         total = states[0] + inputs
        ...         return total, [total]
        >>> ks.layers.RNN(Accumulate())(ks.ones([1, 3, 2])).numpy().tolist()
        [[3.0, 3.0]]
    """

    supports_masking = True

    def __init__(
        self,
        cell,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs,
    ):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
            raise InvalidArgumentError(
                f"RNN: cell must be a Layer with a `state_size` attribute and a "
                f"`call(inputs, states)` method, got {cell!r}"
            )
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences, self.return_state = bool(return_sequences), bool(return_state)
        self.go_backwards, self.stateful = bool(go_backwards), bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self._carried_states = None  # the stateful layer's states between calls

    @property
    def state_size(self) -> list:
        return as_list(self.cell.state_size)

    @property
    def states(self):
        """A stateful layer's current states (None before its first call or after a reset)."""
        return self._carried_states

    def reset_states(self) -> None:
        """Zero a stateful layer's states (the next call starts from zeros)."""
        self._carried_states = None

    reset_state = reset_states

    def build(self, sequences_shape):
        if len(sequences_shape) < 3:
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': expected inputs of shape "
                f"(batch, time, features), got {tuple(sequences_shape)}"
            )
        build_child(self.cell, (sequences_shape[0],) + tuple(sequences_shape[2:]))

    def get_initial_state(self, batch_size: int) -> list:
        """The states a sequence starts from when no `initial_state` is given.

        Args:
            batch_size: the number of sequences.

        Returns:
            The cell's initial states (zeros unless the cell defines them), as a list.

        Example:
            >>> import kerasish as ks
            >>> [state.shape for state in ks.layers.LSTM(3).get_initial_state(2)]
            [(2, 3), (2, 3)]
        """
        make = getattr(self.cell, "get_initial_state", None)
        if make is not None:
            return as_list(make(batch_size))
        return zero_states(self.state_size, batch_size, self.cell.dtype)

    def _check_initial_state(self, initial_state, template: list) -> list:
        """`initial_state` (flat or nested) in the structure of the zero states `template`."""
        given = [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        expected = nest.flatten(template)
        if len(given) != len(expected):
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': initial_state has {len(given)} "
                f"tensor(s) but the cell has {len(expected)} state(s) of shapes "
                f"{[t.shape for t in expected]}"
            )
        for i, (state, want) in enumerate(zip(given, expected)):
            if state.shape != want.shape:
                raise InvalidArgumentError(
                    f"{type(self).__name__} '{self.name}': initial_state[{i}] has shape "
                    f"{state.shape}, expected {want.shape}"
                )
        return nest.pack_sequence_as(template, given)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        batch, steps = sequences.shape[0], sequences.shape[1]
        if steps == 0:
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': the input has no time steps "
                f"(shape {sequences.shape})"
            )
        cell = self.cell
        if isinstance(cell, BuiltinCell):  # resolved here: `project` and the steps agree
            uses_dropout = bool(cell.dropout or cell.recurrent_dropout)
            training = uses_dropout and in_training_mode(self, training)
        if initial_state is not None:
            states = self._check_initial_state(initial_state, self.get_initial_state(batch))
        elif self.stateful and self._carried_states is not None:
            carried = nest.flatten(self._carried_states)[0].shape[0]
            if carried != batch:
                raise InvalidArgumentError(
                    f"{type(self).__name__} '{self.name}' is stateful and its states are for "
                    f"batch size {carried}, but the input has batch size {batch}; keep the batch "
                    "size fixed or call reset_states()"
                )
            states = self._carried_states
        else:
            states = self.get_initial_state(batch)
        step_masks = self._step_masks(mask, batch, steps)

        if isinstance(cell, LSTMCell) and step_masks is None:
            fused = cell.run_sequence(sequences, list(states), training, self.go_backwards)
            if fused is not None:
                outputs, states = fused
                return self._finish(outputs, states, outputs_stacked=True)
        if isinstance(cell, BuiltinCell):
            step_inputs = shape_ops.unstack(cell.project(sequences, training), axis=1)
            step = cell.stepper(training)
        else:
            step_inputs = shape_ops.unstack(sequences, axis=1)

            def step(inputs, states):
                output, new_states = cell(inputs, states, training=training)
                return output, as_list(new_states)

        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs, previous = [], None
        try:
            for t in order:
                output, new_states = step(step_inputs[t], states)
                if step_masks is not None:
                    keep = step_masks[t]
                    if output.ndim > 2:  # spatial outputs (ConvLSTM): broadcast over them
                        keep = shape_ops.reshape(keep, (batch,) + (1,) * (output.ndim - 1))
                    if previous is None or self.zero_output_for_mask:
                        previous = creation_ops.zeros_like(output)
                    output = math_ops.where(keep, output, previous)
                    new_states = nest.pack_sequence_as(new_states, [
                        math_ops.where(keep, new, old)
                        for new, old in zip(nest.flatten(new_states), nest.flatten(states))
                    ])
                states, previous = new_states, output
                outputs.append(output)
        finally:
            reset_dropout_masks(cell)
        return self._finish(outputs, states, outputs_stacked=False)

    def _finish(self, outputs, states, outputs_stacked: bool):
        """The layer's result from the step outputs (a list, or stacked (batch, time, units))
        and the last states; a stateful layer keeps the states."""
        if self.stateful:
            self._carried_states = nest.pack_sequence_as(
                states, [creation_ops.stop_gradient(s) for s in nest.flatten(states)]
            )
        if self.return_sequences:
            result = outputs if outputs_stacked else shape_ops.stack(outputs, axis=1)
        else:
            result = states[0] if outputs_stacked else outputs[-1]
        return (result, *states) if self.return_state else result

    def _step_masks(self, mask, batch: int, steps: int):
        """The mask as one (batch, 1) boolean tensor per step, or None."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if mask is None:
            return None
        mask = convert_to_tensor(mask)
        if mask.shape != (batch, steps):
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': the mask must have shape (batch, time) = "
                f"{(batch, steps)}, got {mask.shape}"
            )
        if mask.dtype.kind != "b":
            mask = math_ops.cast(mask, "bool")
        return shape_ops.unstack(shape_ops.reshape(mask, (batch, steps, 1)), axis=1)

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self.state_size)
        return output_mask

    def _output_size(self) -> int:
        size = getattr(self.cell, "output_size", None)
        return size if size is not None else nest.flatten(self.state_size)[0]

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.LSTM(4, return_sequences=True).compute_output_shape((None, 10, 3))
            (None, 10, 4)
        """
        batch, steps = input_shape[0], input_shape[1]
        units = self._output_size()
        output = (batch, steps, units) if self.return_sequences else (batch, units)
        if self.return_state:

            def shapes(size):
                if isinstance(size, (list, tuple)):
                    return [shapes(s) for s in size]
                return (batch, size)

            return [output] + shapes(self.state_size)
        return output

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "cell": self.cell,
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        if "cell" in config:
            config["cell"] = nested_layer(config["cell"])
        return cls(**config)


_RNN_ARGUMENTS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
                  "zero_output_for_mask")
_LAYER_ARGUMENTS = ("name", "trainable", "dtype", "input_shape", "input_dim")


class _CellLayer(RNN):
    """SimpleRNN, LSTM and GRU: an RNN whose cell is built from the layer's own arguments."""

    _cell_class: type = BuiltinCell
    _cell_name = ""

    def __init__(self, units: int, **kwargs):
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGUMENTS + _LAYER_ARGUMENTS if k in kwargs}
        try:
            cell = self._cell_class(
                units, name=self._cell_name, dtype=rnn_kwargs.get("dtype"),
                trainable=rnn_kwargs.get("trainable", True), **kwargs,
            )
        except InvalidArgumentError as exc:  # the cell's arguments are the layer's: name it
            cell_kind = f"{self._cell_class.__name__}: "
            raise InvalidArgumentError(
                str(exc).replace(cell_kind, f"{type(self).__name__}: ", 1)) from None
        super().__init__(cell, **rnn_kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["cell"]
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            del cell_config[key]
        return {**config, **cell_config}


def _delegate(name: str):
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's `{name}`.")


for _name in ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
              "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
              "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
              "dropout", "recurrent_dropout", "seed"):
    setattr(_CellLayer, _name, _delegate(_name))


def _named_arguments(arguments: dict) -> dict:
    """A recurrent layer's own `__init__` arguments (Keras's names, given explicitly) as
    the keyword arguments of `_CellLayer`: `use_cudnn` checked and dropped, an unset
    activity_regularizer left out, the rest passed on (cell, RNN and Layer arguments)."""
    arguments = dict(arguments)
    owner = arguments.pop("self")
    arguments.pop("__class__", None)
    kwargs = arguments.pop("kwargs")
    use_cudnn = arguments.pop("use_cudnn", "auto")
    if use_cudnn is True:
        raise InvalidArgumentError(
            f"{type(owner).__name__}: use_cudnn=True asks for cuDNN's fused recurrent kernel, "
            "which kerasish does not use (its recurrent layers run their cell step by step on "
            "NumPy/CuPy, also on a GPU); leave use_cudnn='auto' or False"
        )
    if use_cudnn not in ("auto", False):
        raise InvalidArgumentError(
            f"{type(owner).__name__}: use_cudnn must be 'auto', True or False, got {use_cudnn!r}"
        )
    if arguments.get("activity_regularizer") is None:
        arguments.pop("activity_regularizer", None)
    return {**arguments, **kwargs}


class SimpleRNN(_CellLayer):
    """A fully connected RNN: h = tanh(x @ kernel + h_prev @ recurrent_kernel + bias).

    Args:
        units: the size of the output and of the state.
        activation: the activation of the output (default tanh).
        use_bias: whether the cell has a bias.
        kernel_initializer: the input kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        kernel_regularizer: a penalty on the input kernel.
        recurrent_regularizer: a penalty on the recurrent kernel.
        bias_regularizer: a penalty on the bias.
        kernel_constraint: applied to the input kernel after each update.
        recurrent_constraint: applied to the recurrent kernel after each update.
        bias_constraint: applied to the bias after each update.
        dropout: the dropout rate on the inputs (in training).
        recurrent_dropout: the dropout rate on the recurrent state (in training).
        seed: the dropout's seed.
        activity_regularizer: a penalty on the layer's output.
        return_sequences: return the whole sequence of outputs (else the last).
        return_state: also return the last state(s).
        go_backwards: run over the sequence backwards.
        stateful: keep the last state of each batch as the next batch's first.
        unroll: accepted as Keras (the loop runs step by step either way).
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.SimpleRNN(4, return_sequences=True)(ks.ones([2, 5, 3])).shape
        (2, 5, 4)
    """

    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, seed=None, **kwargs):
        arguments_ = dict(locals())
        super().__init__(**_named_arguments(arguments_))


class LSTM(_CellLayer):
    """Long short-term memory (Hochreiter and Schmidhuber, 1997) with Keras 3's defaults.

    Its cell (`layer.cell`, an LSTMCell) holds `kernel` (features, 4 * units),
    `recurrent_kernel` (units, 4 * units) and `bias` (4 * units,), gates i, f, c, o.

    Args:
        units: the size of the output and of the states.
        activation: the activation of the output (default tanh).
        recurrent_activation: the gates' activation (default sigmoid).
        use_bias: whether the cell has a bias.
        kernel_initializer: the input kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        unit_forget_bias: add 1 to the forget gate's bias at initialization.
        kernel_regularizer: a penalty on the input kernel.
        recurrent_regularizer: a penalty on the recurrent kernel.
        bias_regularizer: a penalty on the bias.
        kernel_constraint: applied to the input kernel after each update.
        recurrent_constraint: applied to the recurrent kernel after each update.
        bias_constraint: applied to the bias after each update.
        dropout: the dropout rate on the inputs (in training).
        recurrent_dropout: the dropout rate on the recurrent state (in training).
        seed: the dropout's seed.
        activity_regularizer: a penalty on the layer's output.
        return_sequences: return the whole sequence of outputs (else the last).
        return_state: also return the last state(s).
        go_backwards: run over the sequence backwards.
        stateful: keep the last state of each batch as the next batch's first.
        unroll: accepted as Keras (the loop runs step by step either way).
        use_cudnn: "auto" or False; True raises (no cuDNN kernel here, also on a GPU).
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> output, h, c = ks.layers.LSTM(4, return_state=True)(ks.ones([2, 5, 3]))
        >>> output.shape, c.shape
        ((2, 4), (2, 4))
    """

    _cell_class, _cell_name = LSTMCell, "lstm_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, unroll=False,
                 use_cudnn="auto", **kwargs):
        arguments_ = dict(locals())
        super().__init__(**_named_arguments(arguments_))
    recurrent_activation = _delegate("recurrent_activation")
    unit_forget_bias = _delegate("unit_forget_bias")


class GRU(_CellLayer):
    """Gated recurrent unit (Cho et al., 2014) with Keras 3's defaults (`reset_after=True`).

    Args:
        units: the size of the output and of the state.
        activation: the activation of the output (default tanh).
        recurrent_activation: the gates' activation (default sigmoid).
        use_bias: whether the cell has a bias.
        kernel_initializer: the input kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        kernel_regularizer: a penalty on the input kernel.
        recurrent_regularizer: a penalty on the recurrent kernel.
        bias_regularizer: a penalty on the bias.
        kernel_constraint: applied to the input kernel after each update.
        recurrent_constraint: applied to the recurrent kernel after each update.
        bias_constraint: applied to the bias after each update.
        dropout: the dropout rate on the inputs (in training).
        recurrent_dropout: the dropout rate on the recurrent state (in training).
        seed: the dropout's seed.
        reset_after: apply the reset gate after the recurrent product (Keras 3's default).
        activity_regularizer: a penalty on the layer's output.
        return_sequences: return the whole sequence of outputs (else the last).
        return_state: also return the last state(s).
        go_backwards: run over the sequence backwards.
        stateful: keep the last state of each batch as the next batch's first.
        unroll: accepted as Keras (the loop runs step by step either way).
        use_cudnn: "auto" or False; True raises (no cuDNN kernel here, also on a GPU).
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.GRU(4)(ks.ones([2, 5, 3])).shape
        (2, 4)
    """

    _cell_class, _cell_name = GRUCell, "gru_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, reset_after=True,
                 use_cudnn="auto", **kwargs):
        arguments_ = dict(locals())
        super().__init__(**_named_arguments(arguments_))
    recurrent_activation = _delegate("recurrent_activation")
    reset_after = _delegate("reset_after")


# ---------------------------------------------------------------- wrappers


_MERGE_MODES = ("concat", "sum", "mul", "ave", None)


class Bidirectional(Layer):
    """Run a recurrent layer forwards and a copy of it backwards, and merge their outputs.

    Args:
        layer: an RNN layer (LSTM, GRU, SimpleRNN, RNN); it is cloned as
            `forward_<name>`, and as `backward_<name>` with `go_backwards` flipped
            unless `backward_layer` is given.
        merge_mode: 'concat' (default), 'sum', 'mul', 'ave', or None (a list of both).
        weights: initial weights (a list of arrays): the first half the forward layer's,
            the second half the backward layer's, set when the layer is built.
        backward_layer: an RNN layer to use for the backward direction.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Bidirectional(ks.layers.LSTM(4))(ks.ones([2, 5, 3])).shape
        (2, 8)
    """

    supports_masking = True

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, RNN):
            raise InvalidArgumentError(
                f"Bidirectional: layer must be a recurrent layer (RNN, LSTM, GRU, SimpleRNN), "
                f"got {layer!r}"
            )
        if backward_layer is not None and not isinstance(backward_layer, RNN):
            raise InvalidArgumentError(
                f"Bidirectional: backward_layer must be a recurrent layer, got {backward_layer!r}"
            )
        if merge_mode not in _MERGE_MODES:
            raise InvalidArgumentError(
                f"Bidirectional: merge_mode must be one of {_MERGE_MODES}, got {merge_mode!r}"
            )
        super().__init__(**kwargs)
        base = layer.name.removeprefix("forward_")
        self.forward_layer = clone_layer(layer, name=f"forward_{base}")
        if backward_layer is None:
            self.backward_layer = clone_layer(
                layer, name=f"backward_{layer.name.removeprefix('backward_')}",
                go_backwards=not layer.go_backwards,
            )
        else:
            self.backward_layer = backward_layer
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise InvalidArgumentError(
                f"Bidirectional: the forward and backward layers must differ in go_backwards, "
                f"both have go_backwards={forward.go_backwards}"
            )
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(forward, attribute) != getattr(backward, attribute):
                raise InvalidArgumentError(
                    f"Bidirectional: the forward and backward layers must agree on {attribute}: "
                    f"{getattr(forward, attribute)} and {getattr(backward, attribute)}"
                )
        for rnn in (forward, backward):  # as Keras: masked steps of sequences output zeros
            rnn.zero_output_for_mask = rnn.return_sequences
        self.merge_mode = merge_mode
        self.stateful = forward.stateful
        self.return_sequences = forward.return_sequences
        self.return_state = forward.return_state
        self._initial_weights = None if not weights else list(weights)

    def build(self, sequences_shape):
        build_child(self.forward_layer, sequences_shape)
        build_child(self.backward_layer, sequences_shape)
        if self._initial_weights is not None:
            half = len(self._initial_weights) // 2
            self.forward_layer.set_weights(self._initial_weights[:half])
            self.backward_layer.set_weights(self._initial_weights[half:])
            self._initial_weights = None

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            initial_state = as_list(initial_state)
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, mask=mask,
                               training=training)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, mask=mask,
                                    training=training)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = y_rev[:, ::-1]
        if self.merge_mode == "concat":
            output = shape_ops.concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) * 0.5
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if not self.return_state:
            return output
        return (*output, *states) if self.merge_mode is None else (output, *states)

    def reset_states(self) -> None:
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    reset_state = reset_states

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        output_masks = [output_mask, output_mask] if self.merge_mode is None else [output_mask]
        if self.return_state:
            return output_masks + [None] * (2 * len(self.forward_layer.state_size))
        return output_masks if self.merge_mode is None else output_mask

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Bidirectional(ks.layers.LSTM(4)).compute_output_shape((None, 10, 3))
            (None, 8)
        """
        shape = self.forward_layer.compute_output_shape(input_shape)
        state_shapes = []
        if self.return_state:
            shape, state_shapes = shape[0], list(shape[1:])
            state_shapes = state_shapes + state_shapes
        if self.merge_mode == "concat":
            outputs = [tuple(shape[:-1]) + (None if shape[-1] is None else 2 * shape[-1],)]
        elif self.merge_mode is None:
            outputs = [tuple(shape), tuple(shape)]
        else:
            outputs = [tuple(shape)]
        if self.return_state or self.merge_mode is None:
            return outputs + state_shapes
        return outputs[0]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "layer": self.forward_layer,
            "merge_mode": self.merge_mode,
            "backward_layer": self.backward_layer,
        }

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        config["layer"] = nested_layer(config["layer"])
        if config.get("backward_layer") is not None:
            config["backward_layer"] = nested_layer(config["backward_layer"])
        return cls(**config)


class TimeDistributed(Layer):
    """Apply a layer to every time step: (batch, time, ...) -> (batch, time, ...out).

    The steps are folded into the batch axis, so the wrapped layer runs once,
    with one set of weights for all steps.

    Args:
        layer: the layer applied to every step.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> ks.layers.TimeDistributed(ks.layers.Dense(8))(ks.ones([2, 5, 3])).shape
        (2, 5, 8)
    """

    supports_masking = True

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise InvalidArgumentError(f"TimeDistributed: layer must be a Layer, got {layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape):
        if len(input_shape) < 3:
            raise InvalidArgumentError(
                f"TimeDistributed: inputs need shape (batch, time, ...), got {tuple(input_shape)}"
            )
        build_child(self.layer, (input_shape[0],) + tuple(input_shape[2:]))

    def call(self, inputs, training=None, mask=None):
        if inputs.ndim < 3:
            raise InvalidArgumentError(
                f"TimeDistributed: inputs need shape (batch, time, ...), got {inputs.shape}"
            )
        batch, steps = inputs.shape[:2]
        folded = shape_ops.reshape(inputs, (batch * steps,) + inputs.shape[2:])
        kwargs = {"training": training}
        if mask is not None and self.layer._accepts_mask():
            mask = convert_to_tensor(mask)
            kwargs["mask"] = shape_ops.reshape(mask, (batch * steps,) + mask.shape[2:])
        outputs = self.layer(folded, **kwargs)
        if not isinstance(outputs, Tensor):
            raise InvalidArgumentError(
                f"TimeDistributed: the wrapped layer '{self.layer.name}' must return one tensor"
            )
        return shape_ops.reshape(outputs, (batch, steps) + outputs.shape[1:])

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.TimeDistributed(ks.layers.Dense(2)).compute_output_shape((None, 10, 3))
            (None, 10, 2)
        """
        inner = self.layer.compute_output_shape((input_shape[0],) + tuple(input_shape[2:]))
        return (inner[0], input_shape[1]) + tuple(inner[1:])

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": self.layer}

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        config["layer"] = nested_layer(config["layer"])
        return cls(**config)
