"""An LSTM's whole sequence as one primitive, and its backward pass through time as another.

Recorded step by step, an LSTM of T steps costs the tape some 40 ops per step
and its gradient a recurrent-kernel product (and a sum) per step. Here the
forward loop runs on the arrays (the same arithmetic as the step-by-step cell,
in the same order, so the same bits), keeping the gates and cell states; the
backward loop computes each step's pre-activation gradient with a few array
passes, and the recurrent kernel's gradient is one product over all steps:
[h_0 .. h_{T-1}]^T [dz_1 .. dz_T]. With numba (`kerasish[fast]`), a step's gate
arithmetic on NumPy arrays runs as compiled loops (`numba_kernels.lstm_*`): in float64
between NumPy's exp and tanh, in the same order of operations (the same bits, fewer
passes); in float32 as one loop that also evaluates the sigmoids and tanh, as a rational
approximation within an ulp of tanh (other bits than the cell's; a step's gate work about
twice as fast as the loops around NumPy's exp and tanh). The backward loop gives the passes'
bits in both.

The gates are i, f, c, o (Keras's order), with sigmoid gates and tanh
activations; other activations take the step-by-step path. A gradient taken
while a tape records (a second order) runs the step-by-step ops instead, so
every order stays available.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend, recording
from kerasish.core import tape as tape_module
from kerasish.core.ops import activation_ops, math_ops, shape_ops
from kerasish.core.primitive import apply, primitive


def _sigmoid_in_place(block) -> None:
    """sigmoid_values's arithmetic (1 / (1 + e**-x)), written into `block`: the same bits."""
    np.negative(block, out=block)
    np.exp(block, out=block)
    block += 1.0
    np.divide(1.0, block, out=block)


@primitive("lstm_sequence", multi_output=True)
def _lstm_sequence(projected, recurrent_kernel, h0, c0):
    """Time-major: projected (T, batch, 4 units) -> (hs (T, batch, units), h_T, c_T, and for
    the backward pass the gates (T, batch, 4 units: i, f, tanh(c~), o) and tanh(c) of each
    step); the cell states themselves are `cs` (T, batch, units), the fifth output."""
    xp = backend.array_module(projected)
    steps, batch, width = projected.shape
    units = width // 4
    gates = xp.empty((steps, batch, width), projected.dtype)
    cs = xp.empty((steps, batch, units), projected.dtype)
    tanh_cs = xp.empty_like(cs)
    hs = xp.empty_like(cs)
    h, c = h0, c0
    gate_step = _gate_step(projected, recurrent_kernel, h0, c0)
    with np.errstate(over="ignore"):  # (e**-x overflows where the sigmoid is 0)
        for t in range(steps):
            z = gates[t]
            backend.matmul(h, recurrent_kernel, out=z)
            gate_step(z, projected[t], c, cs[t], tanh_cs[t], hs[t])
            h, c = hs[t], cs[t]
    return hs, h, c, gates, cs, tanh_cs


def _gate_step(*arrays):
    """A step's work after its recurrent product z = h @ U, as
    step(z, projected_t, c, c_next, tanh_c, h_next): z becomes the gates (i, f, tanh(c~), o)
    and the rest are written. In float32 with numba, one compiled loop whose tanh is a
    rational approximation (within an ulp: `numba_kernels.lstm_step_float32`); in float64
    with numba, compiled gate loops around NumPy's exp and tanh; else NumPy's (or CuPy's)
    array passes. The last two give the step-by-step cell's bits."""
    kernels = _compiled_kernels(*arrays)
    if kernels is not None and arrays[0].dtype == np.float32:
        return kernels.lstm_step_float32
    return _step_with_kernels(kernels) if kernels is not None else _step_passes


def _step_with_kernels(kernels):
    """The array passes with their gate arithmetic in two compiled loops (the same bits)."""

    def step(z, projected, c, c_next, tanh_c, h_next):
        units = c.shape[-1]
        kernels.lstm_gate_inputs(z, projected)
        np.exp(z[:, :2 * units], out=z[:, :2 * units])
        np.tanh(z[:, 2 * units:3 * units], out=z[:, 2 * units:3 * units])
        np.exp(z[:, 3 * units:], out=z[:, 3 * units:])
        kernels.lstm_cell_state(z, c, c_next)
        np.tanh(c_next, out=tanh_c)
        np.multiply(z[:, 3 * units:], tanh_c, out=h_next)

    return step


def _step_passes(z, projected, c, c_next, tanh_c, h_next) -> None:
    """The cell's arithmetic, in the cell's order, as array passes (NumPy or CuPy)."""
    units = c.shape[-1]
    z += projected
    candidate = np.tanh(z[:, 2 * units:3 * units])
    _sigmoid_in_place(z[:, :2 * units])
    _sigmoid_in_place(z[:, 3 * units:])
    z[:, 2 * units:3 * units] = candidate
    np.multiply(z[:, units:2 * units], c, out=c_next)
    candidate *= z[:, :units]
    c_next += candidate
    np.tanh(c_next, out=tanh_c)
    np.multiply(z[:, 3 * units:], tanh_c, out=h_next)


def _compiled_kernels(*arrays):
    """numba's gate loops (`kerasish[fast]`) for NumPy arrays of one float dtype, else None
    (the array passes: mixed dtypes would round where the passes round differently)."""
    dtype = arrays[0].dtype
    if dtype.char not in "fd" or any(type(a) is not np.ndarray or a.dtype != dtype
                                     for a in arrays):
        return None
    return backend.numba_kernels()


def _through_sigmoid(block, upstream, factor, gate, spare) -> None:
    """block = upstream * factor * gate * (1 - gate): a gate's pre-activation gradient."""
    np.multiply(upstream, factor, out=block)
    block *= gate
    np.subtract(1.0, gate, out=spare)
    block *= spare


def _step_gradient_passes(spare):
    """numba_kernels.lstm_step_gradient as array passes (NumPy or CuPy), with a scratch
    array of dh's shape."""

    def step_gradient(dh, dc, dz, gates, tanh_c, c_previous, dh_output, add_output):
        units = dh.shape[-1]
        if add_output:
            dh += dh_output
        i, f = gates[:, :units], gates[:, units:2 * units]
        g, o = gates[:, 2 * units:3 * units], gates[:, 3 * units:]
        _through_sigmoid(dz[:, 3 * units:], dh, tanh_c, o, spare)  # d o = dh tanh(c)
        dh *= o  # dh o (1 - tanh(c)^2): the cell state's gradient from h
        np.multiply(tanh_c, tanh_c, out=spare)
        np.subtract(1.0, spare, out=spare)
        dh *= spare
        dc += dh
        _through_sigmoid(dz[:, :units], dc, g, i, spare)  # d i = dc c~
        _through_sigmoid(dz[:, units:2 * units], dc, c_previous, f, spare)
        block = dz[:, 2 * units:3 * units]  # d c~ = dc i, through tanh: (1 - g^2)
        np.multiply(dc, i, out=block)
        np.multiply(g, g, out=spare)
        np.subtract(1.0, spare, out=spare)
        block *= spare
        dc *= f

    return step_gradient


@primitive("lstm_sequence_grad", differentiable=False, multi_output=True)
def _lstm_sequence_grad(recurrent_kernel, h0, c0, hs, gates, cs, tanh_cs, dhs, dh_last,
                        dc_last):
    """(d projected (T, batch, 4 units), d recurrent_kernel, d h0, d c0), backpropagating
    through time; each step's pre-activation gradient dz_t is a few array passes."""
    xp = backend.array_module(gates)
    steps, batch, width = gates.shape
    units = width // 4
    dz = xp.empty_like(gates)
    dh, dc = dh_last + dhs[-1], dc_last.copy()
    kernel_t = recurrent_kernel.T
    kernels = _compiled_kernels(gates, c0, dhs, dh_last, dc_last)
    step_gradient = (kernels.lstm_step_gradient if kernels is not None
                     else _step_gradient_passes(xp.empty_like(dc_last)))
    for t in range(steps - 1, -1, -1):
        step_gradient(dh, dc, dz[t], gates[t], tanh_cs[t], cs[t - 1] if t else c0, dhs[t],
                      t < steps - 1)
        dh = backend.matmul(dz[t], kernel_t)
    previous = xp.empty_like(hs)  # h_{t-1} for every step
    previous[0] = h0
    previous[1:] = hs[:-1]
    d_kernel = backend.matmul(previous.reshape(-1, units).T, dz.reshape(-1, width))
    return dz, d_kernel, dh, dc


@_lstm_sequence.defgrad
def _(op, dys):
    projected, recurrent_kernel, h0, c0 = op.inputs
    dhs, dh_last, dc_last = dys[:3]
    if recording.active_tapes():  # a tape records this gradient: the differentiable ops
        return _gradient_by_steps(op.inputs, (dhs, dh_last, dc_last))
    hs, _, _, gates, cs, tanh_cs = op.output
    return apply(_lstm_sequence_grad,
                 (recurrent_kernel, h0, c0, hs, gates, cs, tanh_cs, dhs, dh_last, dc_last))


def _steps_with_ops(projected, recurrent_kernel, h0, c0):
    """The sequence with recorded ops, step by step (for gradients of higher order)."""
    units = h0.shape[-1]
    h, c, outputs = h0, c0, []
    for x in shape_ops.unstack(projected, axis=0):
        z = x + math_ops.matmul(h, recurrent_kernel)
        z_i, z_f, z_c, z_o = shape_ops.split(z, [units] * 4, axis=-1)
        c = activation_ops.sigmoid(z_f) * c + activation_ops.sigmoid(z_i) * math_ops.tanh(z_c)
        h = activation_ops.sigmoid(z_o) * math_ops.tanh(c)
        outputs.append(h)
    return shape_ops.stack(outputs, axis=0), h, c


def _gradient_by_steps(inputs, output_gradients):
    """The gradient of the recorded steps, taken on a tape (so an outer tape records it)."""
    with tape_module.GradientTape() as tape:
        for tensor in inputs:
            tape.watch(tensor)
        outputs = _steps_with_ops(*inputs)
    return tuple(tape.gradient(list(outputs), list(inputs),
                               output_gradients=list(output_gradients)))


def lstm_sequence(projected, recurrent_kernel, h0, c0) -> tuple:
    """Run an LSTM (sigmoid gates, tanh activations, gates i, f, c, o) over a sequence.

    Time-major, so that each step's block and its gradient are contiguous and the
    projection's gradient needs no transposed copy.

    Args:
        projected: (time, batch, 4 * units): each step's input times the kernel, plus
            the bias.
        recurrent_kernel: (units, 4 * units).
        h0, c0: the initial states, (batch, units) each.

    Returns:
        (outputs (time, batch, units), last h, last c).

    Example:
        >>> import numpy as np, kerasish as ks
        >>> from kerasish.core.ops.rnn_ops import lstm_sequence
        >>> out, h, c = lstm_sequence(ks.ones([3, 2, 8]), ks.zeros([2, 8]), ks.zeros([2, 2]),
        ...                           ks.zeros([2, 2]))
        >>> out.shape, bool(np.array_equal(out.numpy()[-1], h.numpy()))
        ((3, 2, 2), True)
    """
    hs, h, c, _, _, _ = apply(_lstm_sequence, (projected, recurrent_kernel, h0, c0))
    return hs, h, c
