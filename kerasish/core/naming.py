"""Keras's default names for classes: one rule for layers, losses, metrics and saved groups."""

from __future__ import annotations

import re


def snake_case(name: str) -> str:
    """Keras's snake_case of a class name: 'Conv2D' -> 'conv2d', 'KLDivergence' -> 'kl_divergence'.

    A word starts at a capital followed by lower-case letters, or at a capital after a
    lower-case letter; a digit does not start one, so '2D' stays attached.

    Args:
        name: a class name (characters that are not letters, digits or '_' are dropped).

    Returns:
        The lower-case name with words joined by '_'.

    Example:
        >>> from kerasish.core.naming import snake_case
        >>> [snake_case(n) for n in ("MaxPooling2D", "KLDivergence", "MeanSquaredError")]
        ['max_pooling2d', 'kl_divergence', 'mean_squared_error']
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
