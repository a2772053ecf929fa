"""Flatten and rebuild nested structures (lists, tuples, dicts) of values."""

from __future__ import annotations

_CONTAINERS = (list, tuple, dict)


def flatten(structure) -> list:
    """Leaves of `structure` in a deterministic order (dicts by sorted key)."""
    if isinstance(structure, (list, tuple)):
        if _is_flat(structure):
            return list(structure)
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def _is_flat(sequence) -> bool:
    """True if no item of a list or tuple is itself a container."""
    for item in sequence:
        if isinstance(item, _CONTAINERS):
            return False
    return True


def pack_sequence_as(structure, flat: list):
    """Rebuild `structure` with the leaves taken from `flat`, in `flatten` order."""
    if not isinstance(structure, _CONTAINERS):
        return flat[0]
    if structure.__class__ in (list, tuple) and _is_flat(structure):  # the common case
        return structure.__class__(flat)
    return _build(structure, iter(flat))


def _build(item, leaves):
    if isinstance(item, (list, tuple)):
        rebuilt = [_build(x, leaves) for x in item]
        if isinstance(item, tuple) and hasattr(item, "_fields"):
            return type(item)(*rebuilt)
        return type(item)(rebuilt)
    if isinstance(item, dict):
        built = {key: _build(item[key], leaves) for key in sorted(item)}
        return type(item)((key, built[key]) for key in item)
    return next(leaves)
