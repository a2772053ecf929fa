"""`ks.utils.Config` (a dict with attribute access that can be frozen) and
`ks.utils.get_source_inputs` (the inputs a symbolic tensor was computed from)."""

from __future__ import annotations

import copy
import difflib
import json

from kerasish.core.keras_tensor import KerasTensor, producing_node


class Config:
    """A dict of settings with attribute access, which can be frozen and saved as JSON.

    Args:
        **kwargs: the first settings.

    Example:
        >>> import kerasish as ks
        >>> config = ks.utils.Config(learning_rate=0.1)
        >>> config.seed = 123
        >>> config["learning_rate"], config.seed, sorted(config)
        (0.1, 123, ['learning_rate', 'seed'])
        >>> config.freeze()
        >>> config.seed = 1
        Traceback (most recent call last):
        ...
        ValueError: Config: cannot change 'seed': the config is frozen (call unfreeze() first)
    """

    __attrs__ = None

    def __init__(self, **kwargs):
        self._config = kwargs
        self._frozen = False
        self.__attrs__ = set(dir(self))

    @property
    def frozen(self) -> bool:
        """Whether changes are refused."""
        return self._frozen

    def freeze(self):
        """Refuse changes from now on."""
        self._frozen = True

    def unfreeze(self):
        """Accept changes again."""
        self._frozen = False

    def _refuse_if_frozen(self, what):
        if self._frozen:
            raise ValueError(f"Config: cannot change {what!r}: the config is frozen (call "
                             "unfreeze() first)")

    def as_dict(self) -> dict:
        """A (shallow) copy of the settings as a dict."""
        return copy.copy(self._config)

    def to_json(self) -> str:
        """The settings as a JSON string."""
        return json.dumps(self._config)

    def keys(self):
        """The settings' names."""
        return self._config.keys()

    def values(self):
        """The settings' values."""
        return self._config.values()

    def items(self):
        """(name, value) pairs."""
        return self._config.items()

    def pop(self, *args):
        """Remove a setting and return its value, as `dict.pop`.

        Args:
            *args: the name, and optionally a default.

        Example:
            >>> import kerasish as ks
            >>> ks.utils.Config(a=1).pop("a")
            1
        """
        self._refuse_if_frozen(args[0] if args else None)
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        """Set several settings, as `dict.update`.

        Args:
            *args: a mapping or (name, value) pairs.
            **kwargs: settings by name.

        Example:
            >>> import kerasish as ks
            >>> config = ks.utils.Config(); config.update(a=1); config.a
            1
        """
        self._refuse_if_frozen("update")
        return self._config.update(*args, **kwargs)

    def get(self, keyname, value=None):
        """A setting's value, or `value` when it is not set.

        Args:
            keyname: the name.
            value: the default.

        Example:
            >>> import kerasish as ks
            >>> ks.utils.Config(a=1).get("b", 2)
            2
        """
        return self._config.get(keyname, value)

    def __setattr__(self, name, value):
        attrs = object.__getattribute__(self, "__attrs__")
        if attrs is None or name in attrs:
            object.__setattr__(self, name, value)
            return
        self._refuse_if_frozen(name)
        self._config[name] = value

    def __getattr__(self, name):
        attrs = object.__getattribute__(self, "__attrs__")
        if attrs is None or name in attrs:
            return object.__getattribute__(self, name)
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        message = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, config.keys(), n=1, cutoff=0.7)
        if close:
            message += f" Did you mean '{close[0]}'?"
        raise AttributeError(message)

    def __setitem__(self, key, item):
        self._refuse_if_frozen(key)
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._refuse_if_frozen(key)
        del self._config[key]

    def __contains__(self, item):
        return item in self._config

    def __iter__(self):
        return iter(sorted(self._config))

    def __len__(self):
        return len(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"


def get_source_inputs(tensor):
    """The `Input` tensors a symbolic tensor was computed from (a list, each once).

    Args:
        tensor: a symbolic tensor (anything else is returned as it is, as in Keras).

    Returns:
        A list of the input tensors, in the order they are first reached.

    Example:
        >>> import kerasish as ks
        >>> a, b = ks.Input((2,)), ks.Input((2,))
        >>> out = ks.layers.Dense(1)(ks.layers.Add()([a, b]))
        >>> [t is s for t, s in zip(ks.utils.get_source_inputs(out), [a, b])]
        [True, True]
    """
    if not isinstance(tensor, KerasTensor):
        return tensor
    if tensor._keras_history is None:
        return [tensor]
    node = producing_node(tensor)
    if not node.input_tensors:
        return [tensor]
    sources: list = []
    for parent in node.input_tensors:
        for found in get_source_inputs(parent):
            if all(found is not seen for seen in sources):
                sources.append(found)
    return sources
