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


def named_variables(root, prefix: str = "") -> list:
    """(path, variable) for every variable reachable from `root`, each once, in tracking order.

    A variable reachable along several paths (a shared layer) is named by the
    first path met in a breadth-first walk, so the name is the shortest one.
    """
    seen_objects = {id(root)}
    seen_variables = set()
    result = []
    queue = [(prefix, root)]
    while queue:
        next_queue = []
        for path, obj in queue:
            for name, child in obj._tracked_children():
                child_path = f"{path}/{name}" if path else name
                if isinstance(child, Variable):
                    if id(child) not in seen_variables:
                        seen_variables.add(id(child))
                        result.append((child_path, child))
                elif id(child) not in seen_objects:
                    seen_objects.add(id(child))
                    next_queue.append((child_path, child))
        queue = next_queue
    return result


def named_trackables(root, prefix: str = "") -> list:
    """(path, trackable) for every trackable reachable from `root` (root excluded), each once."""
    seen = {id(root)}
    result = []
    queue = [(prefix, root)]
    while queue:
        next_queue = []
        for path, obj in queue:
            for name, child in obj._tracked_children():
                if isinstance(child, Trackable) and id(child) not in seen:
                    seen.add(id(child))
                    child_path = f"{path}/{name}" if path else name
                    result.append((child_path, child))
                    next_queue.append((child_path, child))
        queue = next_queue
    return result


def variables_depth_first(root) -> list:
    """Every variable reachable from `root`, each once, children in attribute order (DFS)."""
    seen_objects = set()
    seen_variables = set()
    result = []

    def visit(obj):
        seen_objects.add(id(obj))
        for _, child in obj._tracked_children():
            if isinstance(child, Variable):
                if id(child) not in seen_variables:
                    seen_variables.add(id(child))
                    result.append(child)
            elif id(child) not in seen_objects:
                visit(child)

    visit(root)
    return result
