"""`ks.Module`: TF's `tf.Module`, a plain container that tracks variables by attribute.

Subclass it for model code that does not need `Layer`'s build/call contract:
assign variables, layers and other modules (or lists/dicts of them) as
attributes, and `variables`, `trainable_variables` and `submodules` find them,
in assignment order (TF sorts by attribute name instead). A `ks.Checkpoint`
saves a module's variables under their attribute paths, like any other tracked
object. Layers count as modules (as they do in TF); optimizers and metrics held
by a module are tracked for checkpoints but their variables are not the
module's own. `with module.name_scope:` prefixes the names of the variables
created inside it with the module's name (names are labels; checkpoints use
object paths).
"""

from __future__ import annotations

import functools
import re

from kerasish.core.naming import snake_case
from kerasish.core.tensor import Variable, name_scope
from kerasish.core.tracking import Trackable
from kerasish.layers.base import Layer

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def _is_module(value) -> bool:
    return isinstance(value, (Module, Layer))


class Module(Trackable):
    """A named container of variables and submodules.

    Args:
        name: the module's name (default: the class name in snake_case). It
            must start with a letter or underscore and hold only letters,
            digits, `_`, `.` and `-`.

    Raises:
        ValueError: if `name` is not a valid module name.

    Example:
        >>> import kerasish as ks
        >>> class Affine(ks.Module):
        ...     def __init__(self, name=None):
        ...         super().__init__(name=name)
        ...         self.w = ks.Variable([[2.0]], name="w")
        ...         self.b = ks.Variable([0.5], name="b")
        ...         self.steps = ks.Variable(0, trainable=False, name="steps")
        ...     def __call__(self, x):
        ...         return ks.matmul(x, self.w) + self.b
        >>> class Net(ks.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.blocks = [Affine(), Affine()]
        >>> net = Net()
        >>> net.name, len(net.variables), len(net.trainable_variables), len(net.submodules)
        ('net', 6, 4, 2)
    """

    def __init__(self, name: str | None = None):
        if name is None:
            name = snake_case(type(self).__name__)
        if not isinstance(name, str) or _NAME.fullmatch(name) is None:
            raise ValueError(
                f"Module: {name!r} is not a valid module name; use letters, digits, '_', '.' "
                "and '-', starting with a letter or '_'"
            )
        self._name = name

    @property
    def name(self) -> str:
        """The name given at construction."""
        return self._name

    @property
    def name_scope(self):
        """A context manager naming the variables created inside it `<name>/...`.

        Example:
            >>> import kerasish as ks
            >>> class Bias(ks.Module):
            ...     def __init__(self):
            ...         super().__init__()
            ...         with self.name_scope:
            ...             self.b = ks.Variable(0.0, name="b")
            >>> Bias().b.name
            'bias/b'
        """
        return name_scope(self._name)

    @staticmethod
    def with_name_scope(method):
        """Decorate a method so that it runs inside its module's `name_scope` (TF's
        `tf.Module.with_name_scope`).

        Args:
            method: a method of a `Module` subclass.

        Returns:
            The wrapped method: variables it creates get the module's name as a prefix.

        Example:
            >>> import kerasish as ks
            >>> class Counter(ks.Module):
            ...     @ks.Module.with_name_scope
            ...     def make(self):
            ...         return ks.Variable(0.0, name="count")
            >>> Counter(name="counter").make().name
            'counter/count'
        """

        @functools.wraps(method)
        def run_in_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return run_in_scope

    def _module_variables(self, want) -> list:
        """Variables of this module and its submodules, each once; want = None, True or False."""
        result, seen_variables, seen_modules = [], set(), {id(self)}

        def visit(module, module_trainable: bool) -> None:
            for _, child in module._tracked_children():
                if isinstance(child, Variable):
                    if id(child) in seen_variables:
                        continue
                    seen_variables.add(id(child))
                    if want is None or want == (module_trainable and child.trainable):
                        result.append(child)
                elif _is_module(child) and id(child) not in seen_modules:
                    seen_modules.add(id(child))
                    visit(child, module_trainable and getattr(child, "trainable", True))

        visit(self, True)
        return result

    @property
    def variables(self) -> list:
        """Every variable of this module and its submodules, each once."""
        return self._module_variables(None)

    @property
    def trainable_variables(self) -> list:
        """The trainable ones (a frozen layer's variables are not)."""
        return self._module_variables(True)

    @property
    def non_trainable_variables(self) -> list:
        return self._module_variables(False)

    @property
    def submodules(self) -> list:
        """Every module and layer nested in this one (breadth first, as TF lists them)."""
        result, seen, queue = [], {id(self)}, [self]
        while queue:
            next_queue = []
            for module in queue:
                for _, child in module._tracked_children():
                    if _is_module(child) and id(child) not in seen:
                        seen.add(id(child))
                        result.append(child)
                        next_queue.append(child)
            queue = next_queue
        return result
