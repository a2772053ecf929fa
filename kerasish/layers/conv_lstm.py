"""Convolutional LSTMs: ConvLSTM1D, ConvLSTM2D and ConvLSTM3D (Shi et al., 2015).

An LSTM whose input and recurrent transformations are convolutions, on the RNN loop of
`recurrent`: the cell is a `BuiltinCell`, so the input convolution of ALL time steps runs
as one convolution of the (batch * time) frames before the loop (`project`), and each
step then needs one recurrent convolution (stride 1, 'same' padding, as Keras). Weights
have Keras 3's names, shapes and order: `kernel` (window..., channels, 4 * filters),
`recurrent_kernel` (window..., filters, 4 * filters), `bias` (4 * filters), gates i, f,
c, o, so a Keras model's weights load unchanged. 'channels_first' inputs are moved to
channels last for the arithmetic and the outputs and states moved back.
"""

from __future__ import annotations

from kerasish import activations
from kerasish.core import arguments
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import conv_ops, creation_ops, math_ops, shape_ops
from kerasish.core.tensor import convert_to_tensor
from kerasish.layers.base import in_training_mode
from kerasish.layers.convolutional import (
    from_channels_last,
    normalize_data_format,
    normalize_padding,
    to_channels_last,
    window_output_length,
)
from kerasish.layers.recurrent import RNN, _named_arguments
from kerasish.layers.recurrent_cells import BuiltinCell


def _convolve(x, kernel, rank: int, strides, padding: str, dilation_rate):
    """A channels-last convolution of rank 1, 2 or 3 (TF's padding names)."""
    padding = padding.upper()
    if rank == 1:
        return conv_ops.conv1d(x, kernel, strides[0], padding, dilation_rate[0])
    if rank == 2:
        return conv_ops.conv2d(x, kernel, strides, padding, dilation_rate)
    return conv_ops.conv3d(x, kernel, strides, padding, dilation_rate)


class ConvLSTMCell(BuiltinCell):
    """One step of a convolutional LSTM on channels-last frames; states [h, c].

    The layers (`ConvLSTM1D/2D/3D`) build it; it is not a public Keras name. Its
    arithmetic is channels last whatever the layer's `data_format`.

    Args:
        rank: the number of spatial axes (1, 2 or 3).
        filters: the number of output channels (the state's channels).
        kernel_size: the convolution window (an int or `rank` ints).
        strides: the input convolution's step (the recurrent one has stride 1).
        padding: 'valid' or 'same' for the input convolution (the recurrent one is 'same').
        dilation_rate: the input convolution's dilation.
        activation: the candidate state's and output's activation (default tanh).
        recurrent_activation: the gates' activation (default sigmoid).
        use_bias: whether to add a learned bias.
        unit_forget_bias: start the forget gate's bias at 1.
        **kwargs: the `BuiltinCell` arguments (initializers, regularizers, constraints,
            dropout, recurrent_dropout, seed) and the `Layer` ones.

    Example:
        >>> from kerasish.layers.conv_lstm import ConvLSTMCell
        >>> cell = ConvLSTMCell(2, 4, 3, padding="same")
        >>> cell.build((None, 5, 5, 3))
        >>> cell.kernel.shape, cell.recurrent_kernel.shape, cell.bias.shape
        ((3, 3, 3, 16), (3, 3, 4, 16), (16,))
    """

    _blocks = 4

    def __init__(self, rank: int, filters: int, kernel_size, strides=1, padding="valid",
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias: bool = True, unit_forget_bias: bool = True, **kwargs):
        kind = f"ConvLSTM{rank}D"
        filters = arguments.integer(filters, "filters", kind)
        super().__init__(filters, activation=activation, use_bias=use_bias, **kwargs)
        self.rank = rank
        self.filters = filters
        self.kernel_size = arguments.integers(kernel_size, "kernel_size", kind, rank)
        self.strides = arguments.integers(strides, "strides", kind, rank)
        self.padding = normalize_padding(padding, kind)
        self.dilation_rate = arguments.integers(dilation_rate, "dilation_rate", kind, rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise InvalidArgumentError(
                f"{kind}: strides > 1 together with dilation_rate > 1 is not supported (as in "
                f"Keras), got strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.spatial_dims = None

    @property
    def state_size(self):
        return [self.filters, self.filters]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        filters, base = self.filters, self.bias_initializer

        def forget_ones(shape, dtype):
            return shape_ops.concat(
                [base((filters,), dtype), creation_ops.ones((filters,), dtype),
                 base((2 * filters,), dtype)],
                0,
            )

        return forget_ones

    def output_spatial(self, spatial) -> tuple:
        """The state's spatial shape for input frames of spatial shape `spatial`."""
        return tuple(
            window_output_length(size, k, s, self.padding, d)
            for size, k, s, d in zip(spatial, self.kernel_size, self.strides,
                                     self.dilation_rate)
        )

    def build(self, input_shape):
        kind = f"ConvLSTM{self.rank}D"
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 2:
            raise InvalidArgumentError(
                f"{kind} '{self.name}': expects inputs of rank {self.rank + 3} (batch, time, "
                f"{self.rank} spatial axes, channels), got frames of shape {input_shape}"
            )
        spatial, channels = input_shape[1:-1], input_shape[-1]
        if None in spatial or channels is None:
            raise InvalidArgumentError(
                f"{kind} '{self.name}': the spatial and channel axes of the input must be "
                f"known (ConvLSTM layers need static frame shapes), got frames of shape "
                f"{input_shape}"
            )
        out = self.output_spatial(spatial)
        if 0 in out:
            raise InvalidArgumentError(
                f"{kind} '{self.name}': kernel_size {self.kernel_size} does not fit in frames "
                f"of shape {input_shape} with padding {self.padding!r}"
            )
        self.spatial_dims = tuple(int(s) for s in spatial)
        width = 4 * self.filters
        self.kernel = self.add_weight(
            "kernel", self.kernel_size + (int(channels), width),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", self.kernel_size + (self.filters, width),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", (width,), initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )

    def get_initial_state(self, batch_size: int) -> list:
        """Zero states [h, c], each (batch_size, output spatial..., filters)."""
        shape = (batch_size,) + self.output_spatial(self.spatial_dims) + (self.filters,)
        return [creation_ops.zeros(shape, dtype=self.dtype) for _ in range(2)]

    def project(self, inputs, training=None, time_major: bool = False):
        """The input convolution (all four gates at once, bias added) of one frame
        (batch, spatial..., channels) or of a whole sequence (batch, time, spatial...,
        channels); input dropout (one mask per sequence) when training.

        Args:
            inputs: one step's frames or a sequence of them.
            training: whether to apply the input dropout.
            time_major: unused (kept for `BuiltinCell`'s signature).

        Returns:
            The convolved inputs, last axis 4 * filters.

        Example:
            >>> from kerasish.layers.conv_lstm import ConvLSTMCell
            >>> import kerasish as ks
            >>> cell = ConvLSTMCell(1, 2, 3)
            >>> cell.build((None, 6, 1))
            >>> cell.project(ks.ones([2, 5, 6, 1])).shape
            (2, 5, 4, 8)
        """
        del time_major
        inputs = inputs if inputs.dtype == self.dtype else math_ops.cast(inputs, self.dtype)
        sequence = inputs.ndim == self.rank + 3
        frame_shape = tuple(inputs.shape[2:] if sequence else inputs.shape[1:])
        batch = inputs.shape[0]
        if self.dropout and in_training_mode(self, training):
            mask = self.get_dropout_mask(creation_ops.zeros((batch,) + frame_shape,
                                                            dtype=inputs.dtype))
            if sequence:
                mask = shape_ops.reshape(mask, (batch, 1) + frame_shape)
            inputs = inputs * mask
        frames = shape_ops.reshape(inputs, (-1,) + frame_shape) if sequence else inputs
        out = _convolve(frames, self.kernel, self.rank, self.strides, self.padding,
                        self.dilation_rate)
        if self.bias is not None:
            out = out + self.bias
        if sequence:
            out = shape_ops.reshape(out, (batch, inputs.shape[1]) + tuple(out.shape[1:]))
        return out

    def stepper(self, training: bool):
        act, gate = self.activation, self.recurrent_activation
        ones = (1,) * self.rank

        def step(projected, states):
            h_prev, c_prev = states
            z = projected + _convolve(self._recurrent_input(h_prev, training),
                                      self.recurrent_kernel, self.rank, ones, "same", ones)
            z_i, z_f, z_c, z_o = shape_ops.split(z, 4, axis=-1)
            c = gate(z_f) * c_prev + gate(z_i) * act(z_c)
            h = gate(z_o) * act(c)
            return h, [h, c]

        return step

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "rank": self.rank,
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "dilation_rate": self.dilation_rate,
            "recurrent_activation": self.recurrent_activation,
            "unit_forget_bias": self.unit_forget_bias,
        }


_CELL_KEYS = ("filters", "kernel_size", "strides", "padding", "dilation_rate", "activation",
              "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
              "bias_initializer", "unit_forget_bias", "kernel_regularizer",
              "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
              "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "seed")
_RNN_KEYS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")
_LAYER_KEYS = ("name", "trainable", "dtype", "input_shape", "batch_input_shape",
               "batch_size", "input_dim", "activity_regularizer")


class _ConvLSTM(RNN):
    """What ConvLSTM1D/2D/3D share: the cell from the layer's arguments, the data format,
    shapes and config (Keras's keys: the RNN's and the cell's, flat)."""

    rank = 2

    def __init__(self, **kwargs):
        kind = type(self).__name__
        data_format = normalize_data_format(kwargs.pop("data_format", None), kind)
        cell_kwargs = {k: kwargs.pop(k) for k in _CELL_KEYS if k in kwargs}
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_KEYS + _LAYER_KEYS if k in kwargs}
        if kwargs:
            raise InvalidArgumentError(
                f"{kind}: unexpected argument(s) {sorted(kwargs)}")
        cell = ConvLSTMCell(self.rank, name="conv_lstm_cell", dtype=rnn_kwargs.get("dtype"),
                            trainable=rnn_kwargs.get("trainable", True), **cell_kwargs)
        super().__init__(cell, **rnn_kwargs)
        self.data_format = data_format

    def build(self, sequences_shape):
        sequences_shape = tuple(sequences_shape)
        if len(sequences_shape) != self.rank + 3:
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': expects inputs of rank {self.rank + 3} "
                f"(batch, time, {self.rank} spatial axes, channels), got shape "
                f"{sequences_shape}"
            )
        super().build(self._last(sequences_shape))

    def _last(self, shape: tuple) -> tuple:
        """A (batch, time, ...) shape in channels-last order."""
        if self.data_format == "channels_last":
            return shape
        return shape[:2] + shape[3:] + (shape[2],)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        sequences = convert_to_tensor(sequences)
        if self.data_format == "channels_first":
            sequences = shape_ops.transpose(
                sequences, (0, 1) + tuple(range(3, sequences.ndim)) + (2,))
            if initial_state is not None:
                initial_state = [to_channels_last(convert_to_tensor(s), self.data_format)
                                 for s in initial_state]
        result = super().call(sequences, initial_state=initial_state, mask=mask,
                              training=training)
        if self.data_format == "channels_last":
            return result
        if not self.return_state:
            return self._first_output(result)
        return (self._first_output(result[0]),
                *[from_channels_last(s, "channels_first") for s in result[1:]])

    def _first_output(self, output):
        if self.return_sequences:  # (batch, time, spatial..., filters)
            return shape_ops.transpose(
                output, (0, 1, output.ndim - 1) + tuple(range(2, output.ndim - 1)))
        return from_channels_last(output, "channels_first")

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: (batch, time, spatial..., channels) (channels after time for
                'channels_first').

        Returns:
            The output's shape (a list with the states' shapes when `return_state`).

        Example:
            >>> import kerasish as ks
            >>> ks.layers.ConvLSTM2D(4, 3).compute_output_shape((None, 5, 8, 8, 2))
            (None, 6, 6, 4)
        """
        shape = self._last(tuple(input_shape))
        batch, steps = shape[0], shape[1]
        spatial = self.cell.output_spatial(shape[2:-1])
        if self.data_format == "channels_first":
            state = (batch, self.cell.filters) + spatial
        else:
            state = (batch,) + spatial + (self.cell.filters,)
        output = (state[0], steps) + state[1:] if self.return_sequences else state
        return [output, state, state] if self.return_state else output

    def get_config(self) -> dict:
        config = super().get_config()
        del config["cell"]
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype", "rank", "units"):
            cell_config.pop(key, None)
        return {**config, **cell_config, "data_format": self.data_format,
                "activity_regularizer": self.activity_regularizer}


def _delegate(name: str):
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's `{name}`.")


for _name in _CELL_KEYS:
    setattr(_ConvLSTM, _name, _delegate(_name))


_ARGS_DOC = """
    Args:
        filters: the number of output channels.
        kernel_size: the convolution window (an int or one per spatial axis).
        strides: the input convolution's step (not with dilation_rate > 1).
        padding: 'valid' or 'same' (the input convolution; the recurrent one is 'same').
        data_format: 'channels_last' (default: (batch, time, spatial..., channels)) or
            'channels_first' ((batch, time, channels, spatial...)).
        dilation_rate: the input convolution's dilation.
        activation: the candidate state's and output's activation (default tanh).
        recurrent_activation: the gates' activation (default sigmoid).
        use_bias: whether to add a learned bias.
        kernel_initializer: the input kernel's initializer.
        recurrent_initializer: the recurrent kernel's initializer.
        bias_initializer: the bias's initializer.
        unit_forget_bias: start the forget gate's bias at 1.
        kernel_regularizer: a penalty on the input kernel.
        recurrent_regularizer: a penalty on the recurrent kernel.
        bias_regularizer: a penalty on the bias.
        activity_regularizer: a penalty on the layer's output.
        kernel_constraint: applied to the input kernel after each update.
        recurrent_constraint: applied to the recurrent kernel after each update.
        bias_constraint: applied to the bias after each update.
        dropout: the dropout rate on the inputs (in training; one mask per sequence).
        recurrent_dropout: the dropout rate on the recurrent state (in training).
        seed: the dropout's seed.
        return_sequences: return every step's output (else the last).
        return_state: also return the last states [h, c].
        go_backwards: run over the sequence backwards.
        stateful: keep the last states of each batch as the next batch's first.
        **kwargs: the `Layer` arguments (and RNN's `unroll`, `zero_output_for_mask`).
"""


def _init(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
          dilation_rate=1, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
          kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
          bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
          recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
          kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
          dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False,
          return_state=False, go_backwards=False, stateful=False, **kwargs):
    _ConvLSTM.__init__(self, **_named_arguments(dict(locals())))


class ConvLSTM1D(_ConvLSTM):
    __doc__ = ("1-D convolutional LSTM on (batch, time, steps, channels) inputs." + _ARGS_DOC
               + """
    Example:
        >>> import kerasish as ks
        >>> ks.layers.ConvLSTM1D(4, 3, padding="same")(ks.ones([2, 5, 7, 3])).shape
        (2, 7, 4)
""")
    rank = 1
    __init__ = _init


class ConvLSTM2D(_ConvLSTM):
    __doc__ = ("2-D convolutional LSTM on (batch, time, rows, cols, channels) inputs."
               + _ARGS_DOC + """
    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.ConvLSTM2D(4, 3, return_sequences=True)
        >>> layer(ks.ones([2, 5, 8, 8, 3])).shape
        (2, 5, 6, 6, 4)
""")
    rank = 2
    __init__ = _init


class ConvLSTM3D(_ConvLSTM):
    __doc__ = ("3-D convolutional LSTM on (batch, time, depth, rows, cols, channels) inputs."
               + _ARGS_DOC + """
    Example:
        >>> import kerasish as ks
        >>> ks.layers.ConvLSTM3D(2, 2)(ks.ones([1, 3, 4, 4, 4, 1])).shape
        (1, 3, 3, 3, 2)
""")
    rank = 3
    __init__ = _init
