"""Object tracking: what a layer, model, optimizer or metric owns, by attribute path.

A `Trackable`'s children are read from its attributes, in assignment order:
variables, other trackables, and lists/tuples/dicts holding them (walked when
asked, so later appends are seen). Variable lists, `summary()`, optimizer slot
names and checkpoint paths are all derived from this one walk, so nothing is
named by creation order or global counters.
"""

from __future__ import annotations

import weakref

from kerasish.core.tensor import Variable

# Objects (checkpoint restorations) waiting for variables that do not exist yet.
_creation_observers: "weakref.WeakSet" = weakref.WeakSet()


def observe_creation(observer) -> None:
    """Call `observer.objects_created()` whenever new variables may have appeared."""
    _creation_observers.add(observer)


def stop_observing_creation(observer) -> None:
    _creation_observers.discard(observer)


def notify_created() -> None:
    """Announce that variables were created (a layer was built, an optimizer slot made)."""
    for observer in list(_creation_observers):
        observer.objects_created()


class Trackable:
    """Base of every object that owns variables or other trackables."""

    # Attributes that hold bookkeeping rather than owned state.
    _untracked_attributes: frozenset = frozenset()

    def _tracked_children(self) -> list:
        """(name, child) pairs: variables and trackables, containers flattened as `attr/i`."""
        children = []
        for attr, value in vars(self).items():
            if attr in self._untracked_attributes:
                continue
            children.extend(_walk(attr, value))
        return children


def _walk(path: str, value) -> list:
    if isinstance(value, (Variable, Trackable)):
        return [(path, value)]
    if isinstance(value, (list, tuple)):
        return [pair for i, item in enumerate(value) for pair in _walk(f"{path}/{i}", item)]
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _walk(f"{path}/{key}", item)]
    return []


def tracked_children(obj) -> list:
    """(name, child) pairs of a trackable (none for a variable): the default step of `walk`."""
    return obj._tracked_children() if isinstance(obj, Trackable) else []


def walk(root, children=tracked_children, depth_first: bool = False, prefix: str = "") -> list:
    """(path, object) for every object reachable from `root` (root excluded), each once.

    An object is listed when first met, under the path it was met by (`name`s
    from `children(obj)` joined by `/`, after `prefix`). Breadth-first (the
    default) names an object shared along several paths by its shortest one;
    depth-first lists an object's descendants right after it.

    Args:
        root: where the walk starts.
        children: `obj -> [(name, child)]`; the trackable's attributes by default
            (a weights file walks a model its own way).
        depth_first: the order of the walk.
        prefix: the path of `root`.
    """
    seen = {id(root)}
    found = []
    pending = [(prefix, root)]

    def expand(path: str, obj) -> None:
        for name, child in children(obj):
            if id(child) in seen:
                continue
            seen.add(id(child))
            child_path = f"{path}/{name}" if path else name
            found.append((child_path, child))
            if depth_first:
                expand(child_path, child)
            else:
                pending.append((child_path, child))

    for path, obj in pending:  # grows while it is read: breadth-first
        expand(path, obj)
    return found


def named_variables(root, prefix: str = "") -> list:
    """(path, variable) for every variable reachable from `root`, each once, in tracking order.

    A variable reachable along several paths (a shared layer) is named by the
    first path met in a breadth-first walk, so the name is the shortest one.
    """
    return [(path, obj) for path, obj in walk(root, prefix=prefix) if isinstance(obj, Variable)]


def named_trackables(root, prefix: str = "") -> list:
    """(path, trackable) for every trackable reachable from `root` (root excluded), each once."""
    return [(path, obj) for path, obj in walk(root, prefix=prefix) if isinstance(obj, Trackable)]


def variables_depth_first(root) -> list:
    """Every variable reachable from `root`, each once, children in attribute order (DFS)."""
    return [obj for _, obj in walk(root, depth_first=True) if isinstance(obj, Variable)]
