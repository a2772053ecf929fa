"""Keras's default names: the snake_case of a class name (one rule for layers, losses, metrics
and saved groups) and the per-process counters that make layer and op-node names unique."""

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


_name_counts: dict[str, int] = {}


def unique_name(base: str) -> str:
    """'dense', then 'dense_1', 'dense_2', ... within this process."""
    count = next_uid(base) - 1
    return base if count == 0 else f"{base}_{count}"


def next_uid(prefix: str) -> int:
    """1, 2, 3, ... for successive calls with one prefix (the counter of layer names)."""
    _name_counts[prefix] = _name_counts.get(prefix, 0) + 1
    return _name_counts[prefix]


def reset_names() -> None:
    """Restart the numbering of names (what Keras's clear_session does)."""
    _name_counts.clear()
