"""MultiOptimizer and OptimizerMap: different optimizers for different variables."""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.optimizers.loss_scale_optimizer import LossScaleOptimizer
from kerasish.optimizers.optimizer import Optimizer


class OptimizerMap(MutableMapping):
    """Variable paths (exact, or regular expressions matched whole) to optimizers, with a
    default for the rest, as Keras 3.15's.

    Args:
        default_optimizer: the optimizer of a variable no key matches.
        optimizer_map: a dict {path or pattern: optimizer}.

    Raises:
        TypeError: for a default that is not an optimizer, or a map that is not a dict.

    Example:
        >>> import kerasish as ks
        >>> opts = ks.optimizers.OptimizerMap(ks.optimizers.RMSprop())
        >>> opts["encoder/.*"] = ks.optimizers.SGD()
        >>> opts["encoder/dense/kernel"].name, opts["decoder/dense/kernel"].name
        ('sgd', 'rmsprop')
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError("OptimizerMap: default_optimizer must be a ks.optimizers.Optimizer, "
                            f"got {default_optimizer!r}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"OptimizerMap: optimizer_map must be a dict, got {optimizer_map!r}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = dict(optimizer_map or {})

    @property
    def default_optimizer(self):
        """The optimizer of the variables no key matches."""
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"OptimizerMap: variable {key!r} matches several keys {matching}; "
                             "each variable must match at most one")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"OptimizerMap: {key!r} is already mapped to "
                             f"{self._optimizer_map[key]!r}; keys must not repeat")
        if not isinstance(key, str):
            raise ValueError(f"OptimizerMap: a key must be a string, got {key!r}")
        if not isinstance(optimizer, Optimizer):
            raise ValueError(f"OptimizerMap: {key!r} must map to a ks.optimizers.Optimizer, got "
                             f"{optimizer!r}")
        if isinstance(optimizer, (LossScaleOptimizer, MultiOptimizer)):
            raise ValueError(f"OptimizerMap: {key!r} cannot map to a "
                             f"{type(optimizer).__name__}; use plain optimizers")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        """The optimizer of `variable`, by its path."""
        return self[variable.path]

    def get_config(self) -> dict:
        return {"default_optimizer": serialize_keras_object(self._default_optimizer),
                "optimizer_map": serialize_keras_object(self._optimizer_map)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """An OptimizerMap from `get_config`'s dict (or Keras's).

        Args:
            config: the dict `get_config` returns.
            custom_objects: name -> class, for optimizers of your own.

        Returns:
            A new OptimizerMap with new optimizers.

        Example:
            >>> import kerasish as ks
            >>> opts = ks.optimizers.OptimizerMap(ks.optimizers.SGD(),
            ...                                   {"b.*": ks.optimizers.Adam()})
            >>> again = ks.optimizers.OptimizerMap.from_config(opts.get_config())
            >>> again["bias"].name, again["kernel"].name
            ('adam', 'sgd')
        """
        default = deserialize_keras_object(config["default_optimizer"], custom_objects)
        mapping = {key: deserialize_keras_object(value, custom_objects)
                   for key, value in (config.get("optimizer_map") or {}).items()}
        return cls(default, mapping)


class MultiOptimizer(Optimizer):
    """Hands each variable's gradient to its own optimizer, as Keras 3.15's.

    The sub-optimizers keep their own steps and state; this one counts its `apply` calls
    in `iterations`. It has no learning rate (reading or setting one is an error: the
    sub-optimizers have theirs). In a weights file its state is its `iterations` and
    (unused) learning rate, then each sub-optimizer's, in Keras's order (those of the
    map, then the default, then any a callable returned).

    Args:
        optimizer_map: an `OptimizerMap`, or a callable `fn(variable) -> optimizer`.
        loss_scale_factor: set on every sub-optimizer (Keras's).
        name: the optimizer's name.

    Raises:
        ValueError: when a variable's optimizer is not a plain optimizer (a
            LossScaleOptimizer or a MultiOptimizer), or the gradients do not match the
            variables built for.

    Example:
        >>> import kerasish as ks
        >>> kernel, bias = ks.Variable([1.0], name="kernel"), ks.Variable([1.0], name="bias")
        >>> opt = ks.optimizers.MultiOptimizer(ks.optimizers.OptimizerMap(
        ...     ks.optimizers.SGD(0.5), {"bias": ks.optimizers.SGD(0.1)}))
        >>> _ = opt.apply([ks.constant([1.0]), ks.constant([1.0])], [kernel, bias])
        >>> round(float(kernel.numpy()[0]), 6), round(float(bias.numpy()[0]), 6)
        (0.5, 0.9)
    """

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        self._inner_optimizers = []
        super().__init__(0.0, loss_scale_factor=loss_scale_factor,
                         name=name or "multi_optimizer")
        self._optimizer_map = optimizer_map
        self._assigned = {}  # id(variable) -> index of its optimizer in _inner_optimizers
        for opt in getattr(optimizer_map, "values", lambda: [])():
            self._add_inner(opt)
        default = getattr(optimizer_map, "default_optimizer", None)
        if default is not None:
            self._add_inner(default)

    def _add_inner(self, opt) -> int:
        if opt not in self._inner_optimizers:
            opt.loss_scale_factor = self.loss_scale_factor
            self._inner_optimizers.append(opt)
        return self._inner_optimizers.index(opt)

    @property
    def optimizers(self) -> list:
        """The sub-optimizers, in the order of their state."""
        return self._inner_optimizers

    @property
    def learning_rate(self):
        raise AttributeError("MultiOptimizer has no learning rate; read it on a sub-optimizer "
                             "(optimizer.optimizers[i].learning_rate)")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError("MultiOptimizer has no learning rate; set it on a sub-optimizer "
                             "(optimizer.optimizers[i].learning_rate = ...)")

    @property
    def loss_scale_factor(self):
        """The loss scale, shared with every sub-optimizer."""
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self.__dict__["_loss_scale_factor"] = value
        for opt in self.__dict__.get("_inner_optimizers", []):
            opt.loss_scale_factor = value

    def _optimizer_of(self, var) -> Optimizer:
        index = self._assigned.get(id(var))
        if index is not None:
            return self._inner_optimizers[index]
        opt = self._optimizer_map(var)
        if not isinstance(opt, Optimizer):
            raise ValueError(f"MultiOptimizer: the optimizer for variable '{var.name}' is "
                             f"{opt!r}, not a ks.optimizers.Optimizer")
        if isinstance(opt, (LossScaleOptimizer, MultiOptimizer)):
            raise ValueError(f"MultiOptimizer: a {type(opt).__name__} cannot be used inside a "
                             f"MultiOptimizer (variable '{var.name}')")
        self._assigned[id(var)] = self._add_inner(opt)
        self._slot_owners[id(var)] = var
        self._built.add(id(var))
        return opt

    def build(self, var_list) -> None:
        """Choose each variable's optimizer and build it for its variables.

        Args:
            var_list: the variables that will be trained.

        Example:
            >>> import kerasish as ks
            >>> w = ks.Variable([1.0], name="w")
            >>> opt = ks.optimizers.MultiOptimizer(ks.optimizers.OptimizerMap(ks.optimizers.Adam()))
            >>> opt.build([w])
            >>> opt.optimizers[0].get_slot(w, "m").numpy()
            array([0.], dtype=float32)
        """
        groups: dict[int, list] = {}
        for var in var_list:
            opt = self._optimizer_of(var)
            groups.setdefault(id(opt), []).append(var)
        for opt in self._inner_optimizers:
            if id(opt) in groups:
                opt.build(groups[id(opt)])

    def variables_of(self, opt, var_list) -> list:
        """The variables of `var_list` that sub-optimizer `opt` updates.

        Args:
            opt: one of `optimizers`.
            var_list: variables.

        Returns:
            Those of `var_list` that `opt` updates, in order.

        Example:
            >>> import kerasish as ks
            >>> a, b = ks.Variable([1.0], name="a"), ks.Variable([1.0], name="b")
            >>> sgd = ks.optimizers.SGD()
            >>> opt = ks.optimizers.MultiOptimizer(
            ...     ks.optimizers.OptimizerMap(ks.optimizers.Adam(), {"b": sgd}))
            >>> [v.name for v in opt.variables_of(sgd, [a, b])]
            ['b']
        """
        return [var for var in var_list if self._optimizer_of(var) is opt]

    @property
    def variables(self) -> list:
        result = [self._iterations, self._learning_rate]
        for opt in self._inner_optimizers:
            result.extend(opt.variables)
        return result

    def apply_eagerly(self, pairs) -> None:
        groups: dict[int, list] = {}
        for grad, var in pairs:
            groups.setdefault(id(self._optimizer_of(var)), []).append((grad, var))
        for opt in self._inner_optimizers:
            if id(opt) in groups:
                opt.apply_eagerly(groups[id(opt)])
        self._iterations._value += 1
        self._iterations._version += 1

    def replay_plan(self, variables: list):
        return None  # each sub-optimizer applies its own share on every call

    def finalize_variable_values(self, var_list) -> None:
        for opt in self._inner_optimizers:
            opt.finalize_variable_values(self.variables_of(opt, var_list))

    def reset_state(self) -> None:
        super().reset_state()
        for opt in self._inner_optimizers:
            opt.reset_state()

    def get_config(self) -> dict:
        return {"optimizer_map": serialize_keras_object(self._optimizer_map),
                "loss_scale_factor": self.loss_scale_factor, "name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """A MultiOptimizer from `get_config`'s dict (or Keras's).

        Args:
            config: the dict `get_config` returns.
            custom_objects: name -> class, for optimizers of your own.

        Returns:
            A new MultiOptimizer with new sub-optimizers.

        Example:
            >>> import kerasish as ks
            >>> opt = ks.optimizers.MultiOptimizer(ks.optimizers.OptimizerMap(ks.optimizers.SGD()))
            >>> again = ks.optimizers.MultiOptimizer.from_config(opt.get_config())
            >>> [o.name for o in again.optimizers]
            ['sgd']
        """
        config = dict(config)
        config["optimizer_map"] = deserialize_keras_object(config["optimizer_map"],
                                                           custom_objects)
        return cls(**config)
