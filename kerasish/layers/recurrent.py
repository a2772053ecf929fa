"""Recurrent layers: the cells SimpleRNNCell, LSTMCell, GRUCell (and StackedRNNCells);
RNN(cell) for any cell; SimpleRNN, LSTM, GRU; the wrappers Bidirectional and TimeDistributed.

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

import numpy as np

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core import arguments, nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import array_ops, math_ops, nn_ops, rnn_ops
from kerasish.core.serialization import deserialize_keras_object
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.layers.base import Layer, in_training_mode


def _as_list(states) -> list:
    return list(states) if isinstance(states, (list, tuple)) else [states]


def _clone(layer: Layer, **overrides) -> Layer:
    """A new, unbuilt layer with `layer`'s config (nested layers cloned too), some keys changed."""
    return type(layer).from_config({**layer.get_config(), **overrides})


def _zero_states(size, batch: int, dtype):
    """Zero states for a `state_size` (an int, or a list of them, nested for stacked cells)."""
    if isinstance(size, (list, tuple)):
        return [_zero_states(s, batch, dtype) for s in size]
    return array_ops.zeros((batch, int(size)), dtype=dtype)


def _reset_dropout_masks(cell) -> None:
    """Forget the dropout masks drawn for one sequence (the next one draws new masks)."""
    if isinstance(cell, _BuiltinCell):
        cell.reset_dropout_mask()
        cell.reset_recurrent_dropout_mask()
    for inner in getattr(cell, "cells", ()):
        _reset_dropout_masks(inner)


def _build_child(layer: Layer, input_shape) -> None:
    """Build a wrapped layer from a shape (so a wrapper's weights exist after its build)."""
    if not layer.built:
        layer.build(tuple(input_shape))
        layer.built = True


def _nested_layer(value) -> Layer:
    """A config's nested layer: a serialized dict is deserialized, a Layer object cloned."""
    if isinstance(value, dict):
        return deserialize_keras_object(value)
    return _clone(value) if isinstance(value, Layer) else value


# ---------------------------------------------------------------- cells


class _BuiltinCell(Layer):
    """What the three built-in cells share: settings, weights and per-sequence dropout masks.

    Subclasses set `_blocks` (kernel column blocks per unit: 1, 4 or 3) and
    implement `_stepper(training)`, which returns the step function
    `(projected_input, states) -> (output, new_states)` with whatever is fixed
    for a whole sequence (dropout masks, kernel pieces) prepared once.
    """

    _blocks = 1

    def __init__(
        self,
        units: int,
        activation="tanh",
        use_bias: bool = True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        kind = type(self).__name__
        self.units = arguments.integer(units, "units", kind)
        dropout = arguments.number(dropout, "dropout", kind, 0, 1, high_open=True)
        recurrent_dropout = arguments.number(recurrent_dropout, "recurrent_dropout", kind, 0, 1,
                                             high_open=True)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout, self.recurrent_dropout = dropout, recurrent_dropout
        self.seed = seed
        self._dropout_mask = self._recurrent_dropout_mask = None

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def _bias_shape(self) -> tuple:
        return (self._blocks * self.units,)

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape):
        if not input_shape or input_shape[-1] is None:
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': the last dimension of the input must be "
                f"known, got shape {tuple(input_shape)}"
            )
        width = self._blocks * self.units
        self.kernel = self.add_weight(
            "kernel", (input_shape[-1], width), initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", (self.units, width), initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", self._bias_shape(), initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )

    # -- dropout masks, fixed across the steps of one sequence -------------------
    def _draw_mask(self, shape, rate: float):
        ones = array_ops.ones(shape, dtype=self.kernel.dtype)
        return nn_ops.dropout(ones, rate, seed=self.seed)

    def get_dropout_mask(self, step_input):
        """The input dropout mask (scaled 0/1 values shaped like one step's input), drawn once
        and reused until `reset_dropout_mask`.

        Args:
            step_input: one step's input (batch, features); only its shape is read.

        Returns:
            The mask, of `step_input`'s shape.

        Example:
            >>> import kerasish as ks
            >>> cell = ks.layers.SimpleRNNCell(4, dropout=0.5)
            >>> cell.build((None, 3))
            >>> mask = cell.get_dropout_mask(ks.ones([2, 3]))
            >>> mask.shape, mask is cell.get_dropout_mask(ks.ones([2, 3]))
            ((2, 3), True)
        """
        if self._dropout_mask is None:
            self._dropout_mask = self._draw_mask(tuple(step_input.shape), self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, state):
        """The recurrent dropout mask (shaped like the state), drawn once per sequence.

        Args:
            state: one state (batch, units); only its shape is read.

        Returns:
            The mask, of `state`'s shape.

        Example:
            >>> import kerasish as ks
            >>> cell = ks.layers.SimpleRNNCell(4, recurrent_dropout=0.5)
            >>> cell.build((None, 3))
            >>> cell.get_recurrent_dropout_mask(ks.ones([2, 4])).shape
            (2, 4)
        """
        if self._recurrent_dropout_mask is None:
            self._recurrent_dropout_mask = self._draw_mask(
                tuple(state.shape), self.recurrent_dropout
            )
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self) -> None:
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        self._recurrent_dropout_mask = None

    # -- the two halves of a step ----------------------------------------------
    def _input_bias(self):
        return self.bias

    def project(self, inputs, training=None, time_major: bool = False):
        """inputs (..., features) -> inputs @ kernel + input bias, for one step or a whole
        sequence (batch, time, features) at once; input dropout applied when training.

        Args:
            inputs: one step (batch, features) or a sequence (batch, time, features).
            training: whether to apply the input dropout.
            time_major: a sequence is (time, batch, features) (its dropout mask is per
                sequence, as in the batch-major form).

        Returns:
            The projected inputs, last axis ``blocks * units`` (1, 4 or 3 blocks).

        Example:
            >>> import kerasish as ks
            >>> cell = ks.layers.LSTMCell(4)
            >>> cell.build((None, 3))
            >>> cell.project(ks.ones([2, 5, 3])).shape
            (2, 5, 16)
        """
        inputs = inputs if inputs.dtype == self.dtype else math_ops.cast(inputs, self.dtype)
        if self.dropout and in_training_mode(self, training):
            batch = inputs.shape[1] if time_major else inputs.shape[0]
            step_shape = (batch, inputs.shape[-1])
            mask = self.get_dropout_mask(array_ops.zeros(step_shape, dtype=inputs.dtype))
            if inputs.ndim == 3 and not time_major:
                mask = array_ops.reshape(mask, (batch, 1, step_shape[1]))
            inputs = inputs * mask
        flat = array_ops.reshape(inputs, (-1, inputs.shape[-1]))
        projected = math_ops.matmul(flat, self.kernel)
        bias = self._input_bias()
        if bias is not None:
            projected = projected + bias
        return array_ops.reshape(projected, inputs.shape[:-1] + (projected.shape[-1],))

    def _recurrent_input(self, state, training):
        """The state as the recurrent matmul sees it: with recurrent dropout when training."""
        if self.recurrent_dropout and training:
            return state * self.get_recurrent_dropout_mask(state)
        return state

    def call(self, inputs, states, training=None):
        """One step: (inputs (batch, features), states) -> (output, new states).

        Args:
            inputs: one step's input (batch, features).
            states: the states, a list (or a single tensor for a one-state cell).
            training: whether dropout applies.

        Returns:
            The pair (output (batch, units), new states in the structure of `states`).

        Example:
            >>> import kerasish as ks
            >>> cell = ks.layers.LSTMCell(4)
            >>> output, states = cell(ks.ones([2, 3]), cell.get_initial_state(2))
            >>> output.shape, [state.shape for state in states]
            ((2, 4), [(2, 4), (2, 4)])
        """
        training = bool(self.dropout or self.recurrent_dropout) and in_training_mode(self, training)
        step = self._stepper(training)
        output, new_states = step(self.project(inputs, training), _as_list(states))
        return output, (new_states if isinstance(states, (list, tuple)) else new_states[0])

    def get_initial_state(self, batch_size: int) -> list:
        """Zero states for a batch.

        Args:
            batch_size: the number of sequences.

        Returns:
            One zero tensor (batch_size, size) per state.

        Example:
            >>> import kerasish as ks
            >>> [state.shape for state in ks.layers.LSTMCell(3).get_initial_state(2)]
            [(2, 3), (2, 3)]
        """
        return [array_ops.zeros((batch_size, size), dtype=self.dtype)
                for size in _as_list(self.state_size)]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": self.activation,
            "use_bias": self.use_bias,
            "kernel_initializer": self.kernel_initializer,
            "recurrent_initializer": self.recurrent_initializer,
            "bias_initializer": self.bias_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "recurrent_regularizer": self.recurrent_regularizer,
            "bias_regularizer": self.bias_regularizer,
            "kernel_constraint": self.kernel_constraint,
            "recurrent_constraint": self.recurrent_constraint,
            "bias_constraint": self.bias_constraint,
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }


class SimpleRNNCell(_BuiltinCell):
    """h = activation(x @ kernel + h_prev @ recurrent_kernel + bias).

    Args:
        units: the size of the output and of the state.
        activation: the activation of the candidate state (default tanh).
        use_bias: whether to add a learned bias.
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable.
        recurrent_initializer: how `recurrent_kernel` starts: a name, an initializer or a
            callable.
        bias_initializer: how `bias` starts: a name, an initializer or a callable.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        recurrent_regularizer: a penalty on `recurrent_kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        recurrent_constraint: applied to `recurrent_kernel` after each optimizer update
            (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        dropout: the fraction of the inputs dropped during training.
        recurrent_dropout: the fraction of the recurrent state dropped during training.
        seed: an op seed, for a separate reproducible random stream.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> cell = ks.layers.SimpleRNNCell(4)
        >>> output, states = cell(ks.ones([2, 3]), [ks.zeros([2, 4])])
        >>> output.shape, len(states)
        ((2, 4), 1)
    """

    def _stepper(self, training: bool):
        def step(projected, states):
            h_prev = self._recurrent_input(states[0], training)
            h = self.activation(projected + math_ops.matmul(h_prev, self.recurrent_kernel))
            return h, [h]

        return step


class LSTMCell(_BuiltinCell):
    """Long short-term memory step; states [h, c]; gates i, f, c, o in the kernel's columns.

    `unit_forget_bias=True` starts the forget gate's bias at 1 (Keras's default).

    Args:
        units: the size of the output and of the state.
        activation: the activation of the candidate state (default tanh).
        recurrent_activation: the activation of the gates.
        use_bias: whether to add a learned bias.
        unit_forget_bias: start the forget gate's bias at 1.
        **kwargs: the `SimpleRNNCell` arguments (initializers, regularizers, constraints,
            dropout, ...) and the `Layer` ones.

    Example:
        >>> import kerasish as ks
        >>> cell = ks.layers.LSTMCell(4)
        >>> output, (h, c) = cell(ks.ones([2, 3]), [ks.zeros([2, 4]), ks.zeros([2, 4])])
        >>> output.shape, cell.kernel.shape, cell.bias.shape
        ((2, 4), (3, 16), (16,))
    """

    _blocks = 4

    def __init__(self, units: int, activation="tanh", recurrent_activation="sigmoid",
                 use_bias: bool = True, unit_forget_bias: bool = True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base = self.units, self.bias_initializer

        def forget_ones(shape, dtype):
            return array_ops.concat(
                [base((units,), dtype), array_ops.ones((units,), dtype), base((2 * units,), dtype)],
                0,
            )

        return forget_ones

    def _sequence(self, sequences, states, training: bool, go_backwards: bool):
        """The whole sequence as one op (`rnn_ops.lstm_sequence`, time-major): (outputs
        (batch, time, units), [h, c]), or None where the step-by-step path is needed (other
        activations, recurrent dropout when training)."""
        if (self.activation is not activations.tanh
                or self.recurrent_activation is not activations.sigmoid
                or (self.recurrent_dropout and training)):
            return None
        time_major = array_ops.transpose(sequences, (1, 0, 2))
        if go_backwards:
            time_major = array_ops.gather(time_major, np.arange(time_major.shape[0])[::-1])
        try:
            projected = self.project(time_major, training, time_major=True)
        finally:
            self.reset_dropout_mask()
        outputs, h, c = rnn_ops.lstm_sequence(projected, self.recurrent_kernel, *states)
        return array_ops.transpose(outputs, (1, 0, 2)), [h, c]

    def _stepper(self, training: bool):
        act, gate = self.activation, self.recurrent_activation

        def step(projected, states):
            h_prev, c_prev = states
            z = projected + math_ops.matmul(
                self._recurrent_input(h_prev, training), self.recurrent_kernel
            )
            z_i, z_f, z_c, z_o = array_ops.split(z, 4, axis=-1)
            c = gate(z_f) * c_prev + gate(z_i) * act(z_c)
            h = gate(z_o) * act(c)
            return h, [h, c]

        return step

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "recurrent_activation": self.recurrent_activation,
            "unit_forget_bias": self.unit_forget_bias,
        }


class GRUCell(_BuiltinCell):
    """Gated recurrent unit step; gates z, r, h in the kernel's columns.

    With `reset_after=True` (Keras 3's default) the reset gate multiplies the
    recurrent product after the matmul and the bias has shape (2, 3 * units):
    row 0 for the input, row 1 for the recurrent product.

    Args:
        units: the size of the output and of the state.
        activation: the activation of the candidate state (default tanh).
        recurrent_activation: the activation of the gates.
        use_bias: whether to add a learned bias.
        reset_after: apply the reset gate after the recurrent matmul (Keras 3's default), with
            a (2, 3 * units) bias.
        **kwargs: the `SimpleRNNCell` arguments (initializers, regularizers, constraints,
            dropout, ...) and the `Layer` ones.

    Example:
        >>> import kerasish as ks
        >>> cell = ks.layers.GRUCell(4)
        >>> output, state = cell(ks.ones([2, 3]), ks.zeros([2, 4]))
        >>> output.shape, cell.bias.shape
        ((2, 4), (2, 12))
    """

    _blocks = 3

    def __init__(self, units: int, activation="tanh", recurrent_activation="sigmoid",
                 use_bias: bool = True, reset_after: bool = True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self):
        if self.bias is None or not self.reset_after:
            return self.bias
        return self.bias[0]

    def _stepper(self, training: bool):
        act, gate, units = self.activation, self.recurrent_activation, self.units
        if self.reset_after:
            recurrent_bias = None if self.bias is None else self.bias[1]
            kernel_zr = kernel_h = None
        else:  # cut once per sequence, not at every step
            kernel_zr, kernel_h = array_ops.split(self.recurrent_kernel, [2 * units, units], 1)

        def step(projected, states):
            h_prev = states[0]
            recurrent_in = self._recurrent_input(h_prev, training)
            x_z, x_r, x_h = array_ops.split(projected, 3, axis=-1)
            if self.reset_after:
                inner = math_ops.matmul(recurrent_in, self.recurrent_kernel)
                if recurrent_bias is not None:
                    inner = inner + recurrent_bias
                r_z, r_r, r_h = array_ops.split(inner, 3, axis=-1)
                z, r = gate(x_z + r_z), gate(x_r + r_r)
                candidate = act(x_h + r * r_h)
            else:
                r_z, r_r = array_ops.split(math_ops.matmul(recurrent_in, kernel_zr), 2, axis=-1)
                z, r = gate(x_z + r_z), gate(x_r + r_r)
                candidate = act(x_h + math_ops.matmul(r * recurrent_in, kernel_h))
            h = z * h_prev + (1.0 - z) * candidate
            return h, [h]

        return step

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "recurrent_activation": self.recurrent_activation,
            "reset_after": self.reset_after,
        }


class StackedRNNCells(Layer):
    """Several cells as one: each step runs them in order, each cell's output the next one's
    input; the states are one list per cell. `RNN([cell1, cell2])` makes one.

    Args:
        cells: the cells, first to last.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``input_shape``, ...).

    Example:
        >>> import kerasish as ks
        >>> cells = [ks.layers.LSTMCell(4), ks.layers.GRUCell(3)]
        >>> output, lstm_states, gru_states = ks.layers.RNN(cells, return_state=True)(
        ...     ks.ones([2, 5, 6]))
        >>> output.shape, len(lstm_states), len(gru_states)
        ((2, 3), 2, 1)
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        cells = list(cells)
        for i, cell in enumerate(cells):
            if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
                raise InvalidArgumentError(
                    f"StackedRNNCells: cells[{i}] must be a Layer with a `state_size` attribute "
                    f"and a `call(inputs, states)` method, got {cell!r}"
                )
        if not cells:
            raise InvalidArgumentError("StackedRNNCells: needs at least one cell")
        self.cells = cells

    @property
    def state_size(self) -> list:
        """One list of state sizes per cell (as the states are passed and returned)."""
        return [_as_list(cell.state_size) for cell in self.cells]

    @property
    def output_size(self) -> int:
        last = self.cells[-1]
        size = getattr(last, "output_size", None)
        return size if size is not None else nest.flatten(_as_list(last.state_size))[0]

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            _build_child(cell, shape)
            size = getattr(cell, "output_size", None)
            shape = (shape[0], size if size is not None else nest.flatten(
                _as_list(cell.state_size))[0])

    def get_initial_state(self, batch_size: int) -> list:
        """Each cell's initial states (its own `get_initial_state`, else zeros).

        Args:
            batch_size: the number of sequences.

        Returns:
            One list of states per cell.

        Example:
            >>> import kerasish as ks
            >>> cells = ks.layers.StackedRNNCells([ks.layers.LSTMCell(3), ks.layers.GRUCell(2)])
            >>> [[state.shape for state in states] for states in cells.get_initial_state(4)]
            [[(4, 3), (4, 3)], [(4, 2)]]
        """
        states = []
        for cell in self.cells:
            make = getattr(cell, "get_initial_state", None)
            states.append(_as_list(make(batch_size)) if make is not None
                          else _zero_states(_as_list(cell.state_size), batch_size, cell.dtype))
        return states

    def call(self, inputs, states, training=None):
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            inputs, cell_states = cell(inputs, _as_list(cell_states), training=training)
            new_states.append(_as_list(cell_states))
        return inputs, new_states

    def get_config(self) -> dict:
        return {**super().get_config(), "cells": list(self.cells)}

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        config["cells"] = [_nested_layer(cell) for cell in config["cells"]]
        return cls(**config)


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
        return _as_list(self.cell.state_size)

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
        _build_child(self.cell, (sequences_shape[0],) + tuple(sequences_shape[2:]))

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
            return _as_list(make(batch_size))
        return _zero_states(self.state_size, batch_size, self.cell.dtype)

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
        if isinstance(cell, _BuiltinCell):  # resolved here: `project` and the steps agree
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
            fused = cell._sequence(sequences, list(states), training, self.go_backwards)
            if fused is not None:
                outputs, states = fused
                return self._finish(outputs, states, outputs_stacked=True)
        if isinstance(cell, _BuiltinCell):
            step_inputs = array_ops.unstack(cell.project(sequences, training), axis=1)
            step = cell._stepper(training)
        else:
            step_inputs = array_ops.unstack(sequences, axis=1)

            def step(inputs, states):
                output, new_states = cell(inputs, states, training=training)
                return output, _as_list(new_states)

        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs, previous = [], None
        try:
            for t in order:
                output, new_states = step(step_inputs[t], states)
                if step_masks is not None:
                    keep = step_masks[t]
                    if previous is None or self.zero_output_for_mask:
                        previous = array_ops.zeros_like(output)
                    output = math_ops.where(keep, output, previous)
                    new_states = nest.pack_sequence_as(new_states, [
                        math_ops.where(keep, new, old)
                        for new, old in zip(nest.flatten(new_states), nest.flatten(states))
                    ])
                states, previous = new_states, output
                outputs.append(output)
        finally:
            _reset_dropout_masks(cell)
        return self._finish(outputs, states, outputs_stacked=False)

    def _finish(self, outputs, states, outputs_stacked: bool):
        """The layer's result from the step outputs (a list, or stacked (batch, time, units))
        and the last states; a stateful layer keeps the states."""
        if self.stateful:
            self._carried_states = nest.pack_sequence_as(
                states, [array_ops.stop_gradient(s) for s in nest.flatten(states)]
            )
        if self.return_sequences:
            result = outputs if outputs_stacked else array_ops.stack(outputs, axis=1)
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
        return array_ops.unstack(array_ops.reshape(mask, (batch, steps, 1)), axis=1)

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
            config["cell"] = _nested_layer(config["cell"])
        return cls(**config)


_RNN_ARGUMENTS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
                  "zero_output_for_mask")
_LAYER_ARGUMENTS = ("name", "trainable", "dtype", "input_shape", "input_dim")


class _CellLayer(RNN):
    """SimpleRNN, LSTM and GRU: an RNN whose cell is built from the layer's own arguments."""

    _cell_class: type = _BuiltinCell
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


class SimpleRNN(_CellLayer):
    """A fully connected RNN: h = tanh(x @ kernel + h_prev @ recurrent_kernel + bias).

    Args:
        units: the size of the output and of the state.
        **kwargs: the `SimpleRNNCell` arguments (activation, initializers, dropout, ...), the
            `RNN` ones (return_sequences, return_state, go_backwards, stateful, ...) and the
            `Layer` ones.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.SimpleRNN(4, return_sequences=True)(ks.ones([2, 5, 3])).shape
        (2, 5, 4)
    """

    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"


class LSTM(_CellLayer):
    """Long short-term memory (Hochreiter and Schmidhuber, 1997) with Keras 3's defaults.

    Its cell (`layer.cell`, an LSTMCell) holds `kernel` (features, 4 * units),
    `recurrent_kernel` (units, 4 * units) and `bias` (4 * units,), gates i, f, c, o.

    Args:
        units: the size of the output and of the states.
        **kwargs: the `LSTMCell` arguments (activation, recurrent_activation,
            unit_forget_bias, dropout, ...), the `RNN` ones (return_sequences, return_state,
            go_backwards, stateful, ...) and the `Layer` ones.

    Example:
        >>> import kerasish as ks
        >>> output, h, c = ks.layers.LSTM(4, return_state=True)(ks.ones([2, 5, 3]))
        >>> output.shape, c.shape
        ((2, 4), (2, 4))
    """

    _cell_class, _cell_name = LSTMCell, "lstm_cell"
    recurrent_activation = _delegate("recurrent_activation")
    unit_forget_bias = _delegate("unit_forget_bias")


class GRU(_CellLayer):
    """Gated recurrent unit (Cho et al., 2014) with Keras 3's defaults (`reset_after=True`).

    Args:
        units: the size of the output and of the state.
        **kwargs: the `GRUCell` arguments (activation, recurrent_activation, reset_after,
            dropout, ...), the `RNN` ones (return_sequences, return_state, go_backwards,
            stateful, ...) and the `Layer` ones.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.GRU(4)(ks.ones([2, 5, 3])).shape
        (2, 4)
    """

    _cell_class, _cell_name = GRUCell, "gru_cell"
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
        backward_layer: an RNN layer to use for the backward direction.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Bidirectional(ks.layers.LSTM(4))(ks.ones([2, 5, 3])).shape
        (2, 8)
    """

    supports_masking = True

    def __init__(self, layer, merge_mode="concat", backward_layer=None, **kwargs):
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
        self.forward_layer = _clone(layer, name=f"forward_{base}")
        if backward_layer is None:
            self.backward_layer = _clone(
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

    def build(self, sequences_shape):
        _build_child(self.forward_layer, sequences_shape)
        _build_child(self.backward_layer, sequences_shape)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            initial_state = _as_list(initial_state)
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
            output = array_ops.concat([y, y_rev], -1)
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
        config["layer"] = _nested_layer(config["layer"])
        if config.get("backward_layer") is not None:
            config["backward_layer"] = _nested_layer(config["backward_layer"])
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
        _build_child(self.layer, (input_shape[0],) + tuple(input_shape[2:]))

    def call(self, inputs, training=None, mask=None):
        if inputs.ndim < 3:
            raise InvalidArgumentError(
                f"TimeDistributed: inputs need shape (batch, time, ...), got {inputs.shape}"
            )
        batch, steps = inputs.shape[:2]
        folded = array_ops.reshape(inputs, (batch * steps,) + inputs.shape[2:])
        kwargs = {"training": training}
        if mask is not None and self.layer._accepts_mask():
            mask = convert_to_tensor(mask)
            kwargs["mask"] = array_ops.reshape(mask, (batch * steps,) + mask.shape[2:])
        outputs = self.layer(folded, **kwargs)
        if not isinstance(outputs, Tensor):
            raise InvalidArgumentError(
                f"TimeDistributed: the wrapped layer '{self.layer.name}' must return one tensor"
            )
        return array_ops.reshape(outputs, (batch, steps) + outputs.shape[1:])

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
        config["layer"] = _nested_layer(config["layer"])
        return cls(**config)
