"""`EinsumDense`: a dense layer whose product is any einsum of the input with its kernel,
as Keras's (the projections of multi-head attention and many transformer blocks use it).

Keras's equation forms are taken: `ab,bc->ac`, with `...` on the left (`...b,bc->...c`)
or on the right of the input and output (`ab...,bc->ac...`). The kernel's shape comes
from the letters: each kernel letter takes its size from the output (`output_shape`) or
from the input. The ellipsis is written out as letters before the einsum runs.
"""

from __future__ import annotations

import math
import re

from kerasish import activations, constraints, initializers, regularizers
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import einsum_ops, math_ops, shape_ops
from kerasish.layers.base import Layer
from kerasish.layers.lora import LoRAMixin, lora_weight_property

_FORMS = (  # (pattern over the equation with "..." written "0", where the ellipsis is)
    (r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", None),
    (r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", "left"),
    (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", "right"),
)


def _parse(equation: str):
    """(input letters, kernel letters, output letters, where the ellipsis is or None)."""
    text = equation.replace("...", "0")
    for pattern, side in _FORMS:
        match = re.fullmatch(pattern, text)
        if match:
            return (*match.groups(), side)
    raise InvalidArgumentError(
        f"EinsumDense: invalid equation {equation!r}; equations must be in the form "
        "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]..."
    )


def analyze(equation: str, bias_axes, input_shape, output_shape):
    """(kernel shape, bias shape or None, full output shape, kernel's input axes, kernel's
    output axes) for an equation, by Keras's rules."""
    inputs, kernel, outputs, side = _parse(equation)
    input_shape = tuple(input_shape)
    elided = len(input_shape) - len(inputs)
    full = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    full.insert(0, input_shape[0])
    if elided > 0 and side == "left":
        for i in range(1, elided):
            full.insert(1, input_shape[i])
    elif elided > 0:
        full.extend(input_shape[len(input_shape) - elided:])
    if side == "left":
        input_axis = {dim: i + elided - len(input_shape) for i, dim in enumerate(inputs)}
        output_axis = {dim: i + elided for i, dim in enumerate(outputs)}
    else:
        input_axis = {dim: i for i, dim in enumerate(inputs)}
        output_axis = {dim: i for i, dim in enumerate(outputs)}
    for dim in inputs:
        if dim in output_axis:
            size, wanted = input_shape[input_axis[dim]], full[output_axis[dim]]
            if wanted is not None and size is not None and wanted != size:
                raise InvalidArgumentError(
                    f"EinsumDense: input shape and output shape do not match at shared "
                    f"dimension '{dim}': the input has {size}, output_shape asks {wanted}"
                )
    for dim in outputs:
        if dim not in inputs and dim not in kernel:
            raise InvalidArgumentError(
                f"EinsumDense: dimension '{dim}' of the output '{outputs}' is neither in the "
                f"input spec '{inputs}' nor in the weight spec '{kernel}'"
            )
    kernel_shape, input_axes, output_axes = [], [], []
    for i, dim in enumerate(kernel):
        if dim in output_axis:
            kernel_shape.append(full[output_axis[dim]])
            output_axes.append(i)
        elif dim in input_axis:
            kernel_shape.append(input_shape[input_axis[dim]])
            input_axes.append(i)
        else:
            raise InvalidArgumentError(
                f"EinsumDense: weight dimension '{dim}' is in neither the input spec "
                f"'{inputs}' nor the output spec '{outputs}'; the weight must be fully "
                "specified"
            )
    bias_shape = None
    if bias_axes is not None:
        offset = elided if side == "left" else 0
        sizes = {dim: full[i + offset] for i, dim in enumerate(outputs)}
        for dim in bias_axes:
            if dim not in outputs:
                raise InvalidArgumentError(
                    f"EinsumDense: bias dimension '{dim}' was requested, but is not part of "
                    f"the output spec '{outputs}'"
                )
        first = min(outputs.find(dim) for dim in bias_axes)
        bias_shape = [sizes[dim] if dim in bias_axes else 1 for dim in outputs[first:]]
        if side != "left":
            bias_shape.extend([1] * max(elided, 0))
    return kernel_shape, bias_shape, full, input_axes, output_axes


def _written_out(equation: str, rank: int) -> str:
    """The equation with its ellipsis replaced by letters it does not use (for rank-`rank`
    inputs)."""
    inputs, kernel, outputs, side = _parse(equation)
    if side is None:
        return equation
    used = set(inputs + kernel + outputs)
    spare = "".join(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    if c not in used)
    fill = spare[:rank - len(inputs)]
    if side == "left":
        return f"{fill}{inputs},{kernel}->{fill}{outputs}"
    return f"{inputs}{fill},{kernel}->{outputs}{fill}"


class EinsumDense(LoRAMixin, Layer):
    """A dense layer computing `einsum(equation, inputs, kernel) + bias`, as Keras's.

    Args:
        equation: the einsum of the input (first) with the kernel (second), e.g.
            "ab,bc->ac" (Dense), "...b,bc->...c", "abc,cde->abde" (a projection into
            heads); '...' on the left, or on the right of input and output.
        output_shape: the output's shape without the batch axis (an int for rank 1); None
            entries take the input's size of that letter.
        activation: applied to the output: a name, a callable, or None for none.
        bias_axes: the output letters the bias runs along (None: no bias), e.g. "c".
        kernel_initializer: how `kernel` starts: a name, an initializer or a callable. A
            variance-scaling one (Glorot, He, ...) counts fans over the kernel's input and
            output letters, as Keras does.
        bias_initializer: how `bias` starts.
        kernel_regularizer: a penalty on `kernel`, added to `losses` (None: none).
        bias_regularizer: a penalty on `bias`, added to `losses` (None: none).
        kernel_constraint: applied to `kernel` after each optimizer update (None: none).
        bias_constraint: applied to `bias` after each optimizer update (None: none).
        lora_rank: enable LoRA of this rank at build (see `enable_lora`): the kernel
            frozen, low-rank factors `lora_kernel_a` (kernel's leading axes, rank) and
            `lora_kernel_b` (rank, kernel's last axis) trained.
        lora_alpha: LoRA's scale is `lora_alpha / lora_rank` (default: `lora_rank`).
        gptq_unpacked_column_size: Keras's GPTQ quantization; refused unless None.
        quantization_config: Keras's quantization; refused unless None.
        **kwargs: the `Layer` arguments (``name``, ``dtype``, ``activity_regularizer``, ...).

    Raises:
        ValueError: an equation outside Keras's forms, letters that do not fit.
        NotImplementedError: quantization asked for.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 8),
        ...                               bias_axes="de")
        >>> layer(ks.ones([2, 5, 16])).shape, layer.kernel.shape, layer.bias.shape
        ((2, 5, 4, 8), (16, 4, 8), (4, 8))
    """

    kernel = lora_weight_property("kernel")

    def __init__(
        self,
        equation: str,
        output_shape,
        activation=None,
        bias_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        lora_rank=None,
        lora_alpha=None,
        gptq_unpacked_column_size=None,
        quantization_config=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if quantization_config is not None or gptq_unpacked_column_size is not None:
            raise NotImplementedError(
                "EinsumDense: quantization (quantization_config, gptq_unpacked_column_size) "
                "is not available in kerasish; leave them None (see COMPATIBILITY.md)"
            )
        _parse(equation)
        self.equation = equation
        self.partial_output_shape = (
            (output_shape,) if isinstance(output_shape, int) else tuple(output_shape))
        self.activation = activations.get(activation)
        self.bias_axes = bias_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self._setup_lora(lora_rank, lora_alpha)

    def build(self, input_shape):
        kernel_shape, bias_shape, _, input_axes, output_axes = analyze(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape)
        self.kernel = self.add_weight(
            "kernel", tuple(kernel_shape),
            initializer=self._kernel_initializer(kernel_shape, input_axes, output_axes),
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
        )
        self.bias = None if bias_shape is None else self.add_weight(
            "bias", tuple(bias_shape), initializer=self.bias_initializer,
            regularizer=self.bias_regularizer, constraint=self.bias_constraint,
        )
        self._build_lora()

    def _kernel_initializer(self, shape, input_axes, output_axes):
        """A variance-scaling initializer drawn as a (fan_in, fan_out) matrix, so its fans
        are the products of the kernel's input and output sizes (Keras's rule); others as
        they are."""
        if not isinstance(self.kernel_initializer, initializers.VarianceScaling):
            return self.kernel_initializer
        fan_in = math.prod(shape[i] for i in input_axes)
        fan_out = math.prod(shape[i] for i in output_axes)
        base = self.kernel_initializer

        def initializer(kernel_shape, dtype=None):
            return shape_ops.reshape(base((fan_in, fan_out), dtype=dtype), kernel_shape)

        return initializer

    def call(self, inputs):
        if inputs.dtype.kind != "f":
            inputs = math_ops.cast(inputs, self.dtype)
        x = einsum_ops.einsum(_written_out(self.equation, inputs.ndim), inputs, self.kernel)
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.EinsumDense("...b,bc->...c", 8).compute_output_shape((None, 3, 4))
            (None, 3, 8)
        """
        return tuple(analyze(self.equation, self.bias_axes, input_shape,
                             self.partial_output_shape)[2])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": self.activation,
            "bias_axes": self.bias_axes,
            "kernel_initializer": self.kernel_initializer,
            "bias_initializer": self.bias_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "bias_regularizer": self.bias_regularizer,
            "activity_regularizer": self.activity_regularizer,
            "kernel_constraint": self.kernel_constraint,
            "bias_constraint": self.bias_constraint,
            "quantization_config": None,
            **self._lora_config(),
        }
