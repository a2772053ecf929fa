"""Primitive ops with their gradients, grouped by family (math, array, nn)."""

from kerasish.core.ops import operators  # noqa: F401 - attaches Tensor operators
