"""Gradient checking for kerasish ops and for users' own functions.

`check_gradients` compares the tape's gradient with a central finite
difference along a random direction, in float64, and (with order=2) does the
same for the gradient itself, which checks second derivatives.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.ops import math_ops, reduction_ops
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import Tensor, convert_to_tensor


def _as_float64(x):
    array = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    return array.astype(np.float64) if array.dtype.kind == "f" else array


def _vdot(a, b) -> float:
    return float(np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)))


def check_gradients(
    f,
    args,
    order: int = 2,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    seed: int = 0,
) -> None:
    """Assert that the gradients of `f` at `args` match finite differences.

    Args:
        f: a function of tensors returning a tensor (any shape).
        args: its arguments (arrays or tensors); floating ones are differentiated
            (in float64), others (integer indices, say) are passed as they are.
        order: 1 checks first derivatives; 2 also checks second derivatives.
        eps, rtol, atol: step and tolerances of the comparison.

    Raises:
        AssertionError: naming the order, the inputs, the direction and both values.
        ValueError: no argument is floating point.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> from kerasish.testing import check_gradients
        >>> check_gradients(lambda x: ks.sin(x) * x, [np.array([0.5, 1.0])])  # passes
        >>> try:  # a stopped gradient disagrees with finite differences
        ...     check_gradients(lambda x: ks.stop_gradient(x) * x, [np.array([0.5, 1.0])])
        ... except AssertionError as error:
        ...     print(str(error).split(" along")[0])
        check_gradients: order-1 derivative mismatch
    """
    rng = np.random.default_rng(seed)
    values = [_as_float64(a) for a in args]
    float_positions = [i for i, v in enumerate(values) if v.dtype.kind == "f"]
    if not float_positions:
        raise ValueError("check_gradients: no floating-point argument to differentiate")
    probe = np.asarray(f(*[convert_to_tensor(v) for v in values]).numpy(), dtype=np.float64)
    weights = rng.standard_normal(probe.shape)

    def projected(*xs):
        out = f(*xs)
        return _weighted_sum(out, weights)

    _check_order(projected, values, float_positions, order, eps, rtol, atol, rng, 1)


def _weighted_sum(out, weights):
    out = convert_to_tensor(out)
    weights = backend.to_device(weights.astype(out.dtype), backend.device_of(out._value))
    # on the output's device, wherever f put it
    return reduction_ops.reduce_sum(out * Tensor(weights))


def _check_order(scalar_fn, values, float_positions, order, eps, rtol, atol, rng, level):
    """Check d scalar_fn along a random direction; recurse on <grad, w> for higher orders."""
    direction = {i: rng.standard_normal(values[i].shape) for i in float_positions}

    def evaluate(shift: float) -> float:
        shifted = [
            convert_to_tensor(v + shift * direction[i]) if i in direction else convert_to_tensor(v)
            for i, v in enumerate(values)
        ]
        return float(scalar_fn(*shifted).numpy())

    numeric = (evaluate(eps) - evaluate(-eps)) / (2 * eps)
    tensors = [convert_to_tensor(v) for v in values]
    with GradientTape(watch_accessed_variables=False) as tape:
        for i in float_positions:
            tape.watch(tensors[i])
        out = scalar_fn(*tensors)
    grads = tape.gradient(out, [tensors[i] for i in float_positions], unconnected_gradients="zero")
    analytic = sum(
        _vdot(convert_to_tensor(g).numpy(), direction[i]) for g, i in zip(grads, float_positions)
    )
    if not np.isclose(analytic, numeric, rtol=rtol, atol=atol):
        raise AssertionError(
            f"check_gradients: order-{level} derivative mismatch along a random direction\n"
            f"  analytic (tape):      {analytic!r}\n"
            f"  numeric (central fd): {numeric!r}\n"
            f"  inputs:    {[np.round(values[i], 4).tolist() for i in float_positions]}\n"
            f"  direction: {[np.round(direction[i], 4).tolist() for i in float_positions]}"
        )
    if level < order:
        weights = {i: rng.standard_normal(values[i].shape) for i in float_positions}

        def gradient_projection(*xs):
            with GradientTape(watch_accessed_variables=False) as inner:
                for i in float_positions:
                    inner.watch(xs[i])
                y = scalar_fn(*xs)
            gs = inner.gradient(y, [xs[i] for i in float_positions], unconnected_gradients="zero")
            total = None
            for g, i in zip(gs, float_positions):
                term = _weighted_sum(convert_to_tensor(g), weights[i])
                total = term if total is None else total + term
            return total

        _check_order(
            gradient_projection, values, float_positions, order, eps, rtol, atol, rng, level + 1
        )


def check_layer_gradients(layer, inputs, eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-8,
                          seed: int = 0, training=None) -> None:
    """Assert that a layer's gradients (inputs and trainable weights) match finite differences.

    Build the layer with dtype=float64 for meaningful precision. The weights
    are perturbed in place along a random direction and restored afterwards.

    Args:
        layer: the layer (built on the first call if it is not yet).
        inputs: an input batch (made float64).
        eps: the finite-difference step.
        rtol: the relative tolerance of the comparison.
        atol: the absolute tolerance.
        seed: the seed of the random direction and output weights.
        training: passed to the layer's call.

    Raises:
        AssertionError: naming the layer and both directional derivatives.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> from kerasish.testing import check_layer_gradients
        >>> check_layer_gradients(ks.layers.Dense(2, dtype="float64"), np.ones((3, 4)))
    """
    rng = np.random.default_rng(seed)
    x = convert_to_tensor(_as_float64(inputs))
    probe = layer(x, training=training)
    variables = layer.trainable_variables
    weights = rng.standard_normal(probe.shape)
    dx = rng.standard_normal(x.shape)
    dvs = [rng.standard_normal(v.shape) for v in variables]
    originals = [v.numpy() for v in variables]

    def evaluate(shift: float) -> float:
        for v, start, d in zip(variables, originals, dvs):
            v.assign(start + shift * d)
        out = layer(convert_to_tensor(x.numpy() + shift * dx), training=training)
        return float(_weighted_sum(out, weights).numpy())

    try:
        numeric = (evaluate(eps) - evaluate(-eps)) / (2 * eps)
    finally:
        for v, start in zip(variables, originals):
            v.assign(start)
    with GradientTape() as tape:
        tape.watch(x)
        out = _weighted_sum(layer(x, training=training), weights)
    grads = tape.gradient(out, [x] + variables, unconnected_gradients="zero")
    analytic = sum(
        _vdot(convert_to_tensor(g).numpy(), d) for g, d in zip(grads, [dx] + dvs)
    )
    if not np.isclose(analytic, numeric, rtol=rtol, atol=atol):
        raise AssertionError(
            f"check_layer_gradients: layer '{layer.name}' gradient mismatch along a random "
            f"direction: analytic {analytic!r}, numeric {numeric!r}"
        )


def layer_test(layer, input_shape, expected_output_shape=None, expected_num_weights=None,
               learning_rate: float = 0.01, seed: int = 0):
    """Build a layer on random input, check its output shape and weight count, and check
    that one SGD step on a random regression target lowers the loss. Returns the output.

    Args:
        layer: the layer to test.
        input_shape: the shape of the random float32 input, batch included.
        expected_output_shape: the output shape to check; None: not checked.
        expected_num_weights: the number of variables to check; None: not checked.
        learning_rate: the SGD step size.
        seed: the seed of the input and the target.

    Returns:
        The layer's output on the random input.

    Raises:
        AssertionError: naming the layer, for a wrong shape or weight count, or a step
            that did not lower the loss.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.testing import layer_test
        >>> layer_test(ks.layers.Dense(3), (2, 4), expected_output_shape=(2, 3),
        ...            expected_num_weights=2).shape
        (2, 3)
    """
    rng = np.random.default_rng(seed)
    x = convert_to_tensor(rng.standard_normal(input_shape).astype(np.float32))
    output = layer(x, training=True)
    if expected_output_shape is not None and output.shape != tuple(expected_output_shape):
        raise AssertionError(
            f"layer_test: '{layer.name}' output shape {output.shape}, expected "
            f"{tuple(expected_output_shape)}"
        )
    if expected_num_weights is not None and len(layer.variables) != expected_num_weights:
        raise AssertionError(
            f"layer_test: '{layer.name}' has {len(layer.variables)} weights, expected "
            f"{expected_num_weights}"
        )
    variables = layer.trainable_variables
    if variables:
        target = convert_to_tensor(rng.standard_normal(output.shape).astype(np.float32))

        def loss_fn():
            return reduction_ops.reduce_mean(math_ops.square(layer(x, training=False) - target))

        before = float(loss_fn())
        with GradientTape() as tape:
            loss = loss_fn()
        for g, v in zip(tape.gradient(loss, variables), variables):
            if g is not None:
                v.assign_sub(convert_to_tensor(g) * learning_rate)
        after = float(loss_fn())
        if not after < before:
            raise AssertionError(
                f"layer_test: one SGD step did not lower the loss of '{layer.name}' "
                f"({before} -> {after})"
            )
    return output
