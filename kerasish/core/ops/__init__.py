"""Primitive ops with their gradients, one module per family: `math_ops` (arithmetic,
comparisons, elementwise math, cast, where, matmul), `activation_ops`, `reduction_ops`,
`creation_ops`, `shape_ops`, `indexing_ops`, `clip_ops`, `nn_ops`, `conv_ops`, and the
smaller families."""

from kerasish.core.ops import operators  # noqa: F401 - attaches Tensor operators
