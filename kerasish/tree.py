"""`ks.tree`: Keras 3's `keras.tree`, functions over nested structures.

A structure is a leaf or a list, tuple (named tuples included) or dict of structures;
dicts are walked in sorted key order and rebuilt with their own order, and None is a
leaf, as in Keras 3. Flattening and rebuilding are `core.nest`'s, which the whole
library uses, so `ks.tree.flatten` orders leaves exactly as `fit` and `ks.function` do.

Example:
    >>> import kerasish as ks
    >>> ks.tree.flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
    >>> ks.tree.map_structure(lambda x, y: x + y, (1, [2]), (10, [20]))
    (11, [22])
"""

from __future__ import annotations

from kerasish.core import nest

__all__ = [
    "MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
    "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
    "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse",
]


class _MapToNone:
    """`traverse`'s sentinel: a node for which `func` returns it becomes None."""

    def __repr__(self) -> str:
        return "MAP_TO_NONE"


MAP_TO_NONE = _MapToNone()


def is_nested(structure) -> bool:
    """Whether `structure` is a list, tuple or dict (not a leaf)."""
    return isinstance(structure, (list, tuple, dict))


def flatten(structure) -> list:
    """The leaves, dicts in sorted key order."""
    return nest.flatten(structure)


def _children(structure):
    """(key, child) pairs in flattening order."""
    if isinstance(structure, dict):
        return [(key, structure[key]) for key in sorted(structure)]
    return list(enumerate(structure))


def flatten_with_path(structure) -> list:
    """(path, leaf) pairs: a path is the tuple of indices and dict keys to the leaf.

    Example:
        >>> import kerasish as ks
        >>> ks.tree.flatten_with_path({"a": [5, 6]})
        [(('a', 0), 5), (('a', 1), 6)]
    """
    if not is_nested(structure):
        return [((), structure)]
    return [((key,) + path, leaf) for key, child in _children(structure)
            for path, leaf in flatten_with_path(child)]


def pack_sequence_as(structure, flat_sequence):
    """`structure` rebuilt with the leaves of `flat_sequence`, in `flatten` order.

    Raises:
        ValueError: when the numbers of leaves differ.
    """
    flat = list(flat_sequence)
    count = len(flatten(structure))
    if len(flat) != count:
        raise ValueError(f"pack_sequence_as: the structure has {count} leaves but "
                         f"flat_sequence has {len(flat)}")
    return nest.pack_sequence_as(structure, flat)


def _signature(structure):
    """The structure's shape: containers' types and keys (or indices), leaves as None."""
    if not is_nested(structure):
        return None
    keys = tuple(key for key, _ in _children(structure))
    return (type(structure), keys, tuple(_signature(c) for _, c in _children(structure)))


def assert_same_structure(a, b, check_types=None):
    """Raise ValueError naming both when `a` and `b` do not nest alike: the same container
    types (a list is not a tuple), keys and lengths. `check_types` is Keras's deprecated
    argument, ignored there too."""
    del check_types
    if _signature(a) != _signature(b):
        raise ValueError(f"assert_same_structure: the structures differ: {a!r} and {b!r}")


def assert_same_paths(a, b):
    """Raise ValueError when `a` and `b` have different sets of leaf paths."""
    paths_a = {path for path, _ in flatten_with_path(a)}
    paths_b = {path for path, _ in flatten_with_path(b)}
    if paths_a != paths_b:
        raise ValueError(f"assert_same_paths: paths only in the first: "
                         f"{sorted(map(str, paths_a - paths_b))}, only in the second: "
                         f"{sorted(map(str, paths_b - paths_a))}")


def map_structure(func, *structures, none_is_leaf: bool = True):
    """`func` applied to the corresponding leaves of `structures`, rebuilt as the first.

    Args:
        func: called with one leaf of each structure.
        *structures: structures that nest alike.
        none_is_leaf: pass None leaves to `func` (True); False keeps them as None.

    Raises:
        ValueError: when the structures do not nest alike.
    """
    if not structures:
        raise ValueError("map_structure: give at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    columns = zip(*[flatten(s) for s in structures])
    values = [None if not none_is_leaf and all(v is None for v in column) else func(*column)
              for column in columns]
    return nest.pack_sequence_as(structures[0], values)


def map_structure_up_to(shallow_structure, func, *structures):
    """Like `map_structure`, down to the leaves of `shallow_structure` only: what the
    deeper `structures` hold at each of those places is passed to `func` whole.

    Example:
        >>> import kerasish as ks
        >>> ks.tree.map_structure_up_to((None, None), len, ([1, 2], [3]))
        (2, 1)
    """
    def cut(shallow, deep):
        if not is_nested(shallow):
            return [deep]
        if not is_nested(deep) or _signature(shallow)[:2] != _signature(deep)[:2]:
            raise ValueError(f"map_structure_up_to: {deep!r} does not nest as {shallow!r}")
        return [part for (_, s), (_, d) in zip(_children(shallow), _children(deep))
                for part in cut(s, d)]

    columns = zip(*[cut(shallow_structure, s) for s in structures])
    return nest.pack_sequence_as(shallow_structure, [func(*column) for column in columns])


def lists_to_tuples(structure):
    """`structure` with every list made a tuple."""
    if isinstance(structure, dict):
        return type(structure)((k, lists_to_tuples(v)) for k, v in structure.items())
    if isinstance(structure, list):
        return tuple(lists_to_tuples(item) for item in structure)
    if isinstance(structure, tuple):
        items = [lists_to_tuples(item) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    return structure


def _is_shape(value) -> bool:
    return isinstance(value, (list, tuple)) and all(
        v is None or isinstance(v, int) for v in value)


def map_shape_structure(func, structure):
    """`func` on each shape (a tuple or list of ints and None) of a structure of shapes."""
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    if isinstance(structure, dict):
        return type(structure)((k, map_shape_structure(func, v)) for k, v in structure.items())
    items = [map_shape_structure(func, item) for item in structure]
    return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)


def _rebuilt(structure, children: list):
    """A container like `structure` holding `children` (in flattening order)."""
    if isinstance(structure, dict):
        keys = sorted(structure)
        values = dict(zip(keys, children))
        return type(structure)((key, values[key]) for key in structure)
    if hasattr(structure, "_fields"):
        return type(structure)(*children)
    return type(structure)(children)


def traverse(func, structure, top_down: bool = True):
    """Apply `func` to every node (containers and leaves).

    Top down, a node where `func` returns None is kept and its children are traversed;
    any other result replaces the node (`MAP_TO_NONE`: by None). Bottom up, the children
    are traversed first and `func` sees the rebuilt node; None keeps it.

    Example:
        >>> import kerasish as ks
        >>> ks.tree.traverse(lambda x: x * 2 if isinstance(x, int) else None, [1, (2, 3)])
        [2, (4, 6)]
    """
    def replaced(node, result):
        if result is None:
            return node
        return None if result is MAP_TO_NONE else result

    if top_down:
        result = func(structure)
        if result is not None:
            return None if result is MAP_TO_NONE else result
        if not is_nested(structure):
            return structure
        return _rebuilt(structure, [traverse(func, c, True) for _, c in _children(structure)])
    if is_nested(structure):
        structure = _rebuilt(structure,
                             [traverse(func, c, False) for _, c in _children(structure)])
    return replaced(structure, func(structure))
