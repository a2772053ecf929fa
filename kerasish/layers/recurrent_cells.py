"""Recurrent cells: SimpleRNNCell, LSTMCell and GRUCell (on `BuiltinCell`, what they
share), StackedRNNCells, and the helpers the RNN layers and wrappers (`recurrent`) share
with them.

A built-in cell splits its step in two: `project` multiplies the inputs of all time steps
by the input kernel in one matrix product (and adds the input bias) before the loop, and
the step function from `stepper` then needs one matrix product per state. LSTMCell can
also run a whole sequence as one op (`run_sequence`). Weights have Keras 3's names, shapes
and gate order (LSTM: i, f, c, o; GRU: z, r, h), so weights carry over to and from Keras.
"""

from __future__ import annotations

import numpy as np

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core import arguments, nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, indexing_ops, math_ops, nn_ops, rnn_ops, shape_ops
from kerasish.core.serialization import deserialize_keras_object
from kerasish.layers.base import Layer, in_training_mode


def as_list(states) -> list:
    """`states` as a list (a single state becomes a list of one)."""
    return list(states) if isinstance(states, (list, tuple)) else [states]


def clone_layer(layer: Layer, **overrides) -> Layer:
    """A new, unbuilt layer with `layer`'s config (nested layers cloned too), some keys changed."""
    return type(layer).from_config({**layer.get_config(), **overrides})


def zero_states(size, batch: int, dtype):
    """Zero states for a `state_size` (an int, or a list of them, nested for stacked cells)."""
    if isinstance(size, (list, tuple)):
        return [zero_states(s, batch, dtype) for s in size]
    return creation_ops.zeros((batch, int(size)), dtype=dtype)


def reset_dropout_masks(cell) -> None:
    """Forget the dropout masks drawn for one sequence (the next one draws new masks)."""
    if isinstance(cell, BuiltinCell):
        cell.reset_dropout_mask()
        cell.reset_recurrent_dropout_mask()
    for inner in getattr(cell, "cells", ()):
        reset_dropout_masks(inner)


def build_child(layer: Layer, input_shape) -> None:
    """Build a wrapped layer from a shape (so a wrapper's weights exist after its build)."""
    if not layer.built:
        layer.build(tuple(input_shape))
        layer.built = True


def nested_layer(value) -> Layer:
    """A config's nested layer: a serialized dict is deserialized, a Layer object cloned."""
    if isinstance(value, dict):
        return deserialize_keras_object(value)
    return clone_layer(value) if isinstance(value, Layer) else value


# ---------------------------------------------------------------- cells


class BuiltinCell(Layer):
    """What the three built-in cells share: settings, weights and per-sequence dropout masks.

    Subclasses set `_blocks` (kernel column blocks per unit: 1, 4 or 3) and
    implement `stepper(training)`, which returns the step function
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
        ones = creation_ops.ones(shape, dtype=self.kernel.dtype)
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
            mask = self.get_dropout_mask(creation_ops.zeros(step_shape, dtype=inputs.dtype))
            if inputs.ndim == 3 and not time_major:
                mask = shape_ops.reshape(mask, (batch, 1, step_shape[1]))
            inputs = inputs * mask
        flat = shape_ops.reshape(inputs, (-1, inputs.shape[-1]))
        projected = math_ops.matmul(flat, self.kernel)
        bias = self._input_bias()
        if bias is not None:
            projected = projected + bias
        return shape_ops.reshape(projected, inputs.shape[:-1] + (projected.shape[-1],))

    def stepper(self, training: bool):
        """The step function of one sequence, with what is fixed for the whole sequence
        (dropout masks, kernel pieces) prepared once; each cell defines its own.

        Args:
            training: whether to apply the recurrent dropout.

        Returns:
            `step(projected_input, states) -> (output, new_states)`, taking one step of
            `project`'s output and the list of states.

        Example:
            >>> import kerasish as ks
            >>> cell = ks.layers.SimpleRNNCell(2)
            >>> cell.build((None, 3))
            >>> step = cell.stepper(training=False)
            >>> output, states = step(cell.project(ks.ones([1, 3])), [ks.zeros([1, 2])])
            >>> output.shape
            (1, 2)
        """
        raise NotImplementedError(f"{type(self).__name__} defines no stepper")

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
        step = self.stepper(training)
        output, new_states = step(self.project(inputs, training), as_list(states))
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
        return [creation_ops.zeros((batch_size, size), dtype=self.dtype)
                for size in as_list(self.state_size)]

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


class SimpleRNNCell(BuiltinCell):
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

    def stepper(self, training: bool):
        def step(projected, states):
            h_prev = self._recurrent_input(states[0], training)
            h = self.activation(projected + math_ops.matmul(h_prev, self.recurrent_kernel))
            return h, [h]

        return step


class LSTMCell(BuiltinCell):
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
            return shape_ops.concat(
                [base((units,), dtype), creation_ops.ones((units,), dtype),
                 base((2 * units,), dtype)],
                0,
            )

        return forget_ones

    def run_sequence(self, sequences, states, training: bool, go_backwards: bool):
        """The whole sequence as one op (`rnn_ops.lstm_sequence`), or None where the
        step-by-step path is needed (other activations, recurrent dropout when training).

        Args:
            sequences: the inputs (batch, time, features).
            states: the initial [h, c].
            training: whether dropout applies.
            go_backwards: run the sequence from its last step.

        Returns:
            (outputs (batch, time, units), [h, c]), or None.

        Example:
            >>> import kerasish as ks
            >>> cell = ks.layers.LSTMCell(2)
            >>> cell.build((None, 3))
            >>> outputs, (h, c) = cell.run_sequence(
            ...     ks.ones([1, 5, 3]), [ks.zeros([1, 2])] * 2, training=False,
            ...     go_backwards=False)
            >>> outputs.shape, h.shape
            ((1, 5, 2), (1, 2))
        """
        if (self.activation is not activations.tanh
                or self.recurrent_activation is not activations.sigmoid
                or (self.recurrent_dropout and training)):
            return None
        time_major = shape_ops.transpose(sequences, (1, 0, 2))
        if go_backwards:
            time_major = indexing_ops.gather(time_major, np.arange(time_major.shape[0])[::-1])
        try:
            projected = self.project(time_major, training, time_major=True)
        finally:
            self.reset_dropout_mask()
        outputs, h, c = rnn_ops.lstm_sequence(projected, self.recurrent_kernel, *states)
        return shape_ops.transpose(outputs, (1, 0, 2)), [h, c]

    def stepper(self, training: bool):
        act, gate = self.activation, self.recurrent_activation

        def step(projected, states):
            h_prev, c_prev = states
            z = projected + math_ops.matmul(
                self._recurrent_input(h_prev, training), self.recurrent_kernel
            )
            z_i, z_f, z_c, z_o = shape_ops.split(z, 4, axis=-1)
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


class GRUCell(BuiltinCell):
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

    def stepper(self, training: bool):
        act, gate, units = self.activation, self.recurrent_activation, self.units
        if self.reset_after:
            recurrent_bias = None if self.bias is None else self.bias[1]
            kernel_zr = kernel_h = None
        else:  # cut once per sequence, not at every step
            kernel_zr, kernel_h = shape_ops.split(self.recurrent_kernel, [2 * units, units], 1)

        def step(projected, states):
            h_prev = states[0]
            recurrent_in = self._recurrent_input(h_prev, training)
            x_z, x_r, x_h = shape_ops.split(projected, 3, axis=-1)
            if self.reset_after:
                inner = math_ops.matmul(recurrent_in, self.recurrent_kernel)
                if recurrent_bias is not None:
                    inner = inner + recurrent_bias
                r_z, r_r, r_h = shape_ops.split(inner, 3, axis=-1)
                z, r = gate(x_z + r_z), gate(x_r + r_r)
                candidate = act(x_h + r * r_h)
            else:
                r_z, r_r = shape_ops.split(math_ops.matmul(recurrent_in, kernel_zr), 2, axis=-1)
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
        return [as_list(cell.state_size) for cell in self.cells]

    @property
    def output_size(self) -> int:
        last = self.cells[-1]
        size = getattr(last, "output_size", None)
        return size if size is not None else nest.flatten(as_list(last.state_size))[0]

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            build_child(cell, shape)
            size = getattr(cell, "output_size", None)
            shape = (shape[0], size if size is not None else nest.flatten(
                as_list(cell.state_size))[0])

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
            states.append(as_list(make(batch_size)) if make is not None
                          else zero_states(as_list(cell.state_size), batch_size, cell.dtype))
        return states

    def call(self, inputs, states, training=None):
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            inputs, cell_states = cell(inputs, as_list(cell_states), training=training)
            new_states.append(as_list(cell_states))
        return inputs, new_states

    def get_config(self) -> dict:
        return {**super().get_config(), "cells": list(self.cells)}

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        config["cells"] = [nested_layer(cell) for cell in config["cells"]]
        return cls(**config)
