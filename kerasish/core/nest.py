"""Flatten and rebuild nested structures (lists, tuples, dicts) of values."""

from __future__ import annotations


def flatten(structure) -> list:
    """Leaves of `structure` in a deterministic order (dicts by sorted key)."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack_sequence_as(structure, flat: list):
    """Rebuild `structure` with the leaves taken from `flat`, in `flatten` order."""
    leaves = iter(flat)

    def build(item):
        if isinstance(item, (list, tuple)):
            rebuilt = [build(x) for x in item]
            if isinstance(item, tuple) and hasattr(item, "_fields"):
                return type(item)(*rebuilt)
            return type(item)(rebuilt)
        if isinstance(item, dict):
            built = {key: build(item[key]) for key in sorted(item)}
            return type(item)((key, built[key]) for key in item)
        return next(leaves)

    return build(structure)
