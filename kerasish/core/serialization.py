"""The serialization registry: objects to Keras-3-form dicts and back.

Every serializable object (layer, model, loss, metric, optimizer, schedule,
initializer, regularizer, constraint, activation function) becomes::

    {"module": "keras.layers", "class_name": "Dense", "config": {...}, "registered_name": None}

the form Keras 3 writes in `.keras` files, so a file written here loads in
Keras and the other way round. Built-in classes are written with Keras's
public module names (`keras.layers`, `keras.optimizers`, ...) and found again
by class name within their family; user classes are found through
`register_keras_serializable`, `custom_objects=` or `custom_object_scope`.
Nothing is ever imported by the module name a file gives, and Python code in a
config (a lambda's bytecode) is refused unless the caller passes `safe_mode=False`.
"""

from __future__ import annotations

import base64
import contextlib
import inspect
import marshal
import sys
import threading
import types

import numpy as np

from kerasish.core import limits
from kerasish.core.errors import InvalidArgumentError, KerasishError
from kerasish.core.tensor import Tensor, constant


class SerializationError(KerasishError, ValueError):
    """An object cannot be serialized, or a config cannot be turned back into one."""


# ---------------------------------------------------------------- registry and scopes

_REGISTERED: dict[str, object] = {}  # "package>name" -> class or function
_REGISTERED_NAMES: dict[object, str] = {}  # class or function -> "package>name"


class _State(threading.local):
    def __init__(self):
        self.scopes: list[dict] = []  # custom_object_scope dicts, innermost last
        self.safe_mode: bool | None = None  # set while a deserialization runs


_state = _State()


def register_keras_serializable(package: str = "Custom", name: str | None = None):
    """Decorator: make a class or function findable by `deserialize_keras_object`.

    The object is registered as `"package>name"` (name defaults to its `__name__`),
    and that key is written as the `registered_name` of its serialized form.

    Args:
        package: the first part of the key; may not contain ',' or '>'.
        name: the second part (default: the object's `__name__`).

    Returns:
        The decorator, which registers its argument and returns it unchanged.

    Raises:
        ValueError: for a package containing ',' or '>', or (from the decorator) a class
            without `get_config()`.

    Example:
        >>> import kerasish as ks
        >>> @ks.saving.register_keras_serializable(package="Docs")
        ... class Twice(ks.layers.Layer):
        ...     def call(self, inputs):
        ...         return inputs * 2
        >>> ks.saving.get_registered_name(Twice)
        'Docs>Twice'
        >>> ks.saving.get_registered_object("Docs>Twice") is Twice
        True
    """
    if "," in package or ">" in package:
        raise ValueError(f"register_keras_serializable: package {package!r} may not contain "
                         "',' or '>'")

    def decorator(obj):
        key = f"{package}>{name or obj.__name__}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError(
                f"register_keras_serializable: class {obj.__name__} has no get_config(); a "
                "registered class must implement get_config() returning its constructor arguments"
            )
        _REGISTERED[key] = obj
        _REGISTERED_NAMES[obj] = key
        return obj

    return decorator


def get_custom_objects() -> dict:
    """The global registry {'package>name' or name: object}; entries added to it are found
    by deserialization like registered ones (Keras's `get_custom_objects`)."""
    return _REGISTERED


def get_registered_name(obj) -> str:
    """The key `obj` was registered under ('package>name'), or its `__name__`.

    Args:
        obj: a class or function.

    Returns:
        The name serialized configs use for it.

    Example:
        >>> import kerasish as ks
        >>> @ks.saving.register_keras_serializable(package="registry_doc")
        ... class Twice(ks.layers.Layer):
        ...     def call(self, x):
        ...         return 2 * x
        >>> ks.saving.get_registered_name(Twice), ks.saving.get_registered_name(len)
        ('registry_doc>Twice', 'len')
    """
    return _REGISTERED_NAMES.get(obj, getattr(obj, "__name__", type(obj).__name__))


def get_registered_object(name: str, custom_objects: dict | None = None,
                          module_objects: dict | None = None):
    """The class or function known as `name`, or None.

    Looked up in `custom_objects`, then the active `custom_object_scope`s
    (innermost first), then the registry, then `module_objects`.

    Args:
        name: a registered name ('package>name') or a plain one.
        custom_objects: name -> object, searched first.
        module_objects: name -> object, searched last.

    Returns:
        The object, or None if no table has `name`.

    Example:
        >>> import kerasish as ks
        >>> def double(x):
        ...     return 2 * x
        >>> ks.saving.get_registered_object("double", custom_objects={"double": double}) is double
        True
        >>> ks.saving.get_registered_object("nowhere") is None
        True
    """
    for table in [custom_objects or {}, *reversed(_state.scopes), _REGISTERED,
                  module_objects or {}]:
        if name in table:
            return table[name]
    return None


class CustomObjectScope:
    """Within `with CustomObjectScope({"Name": obj}):`, deserialization finds those objects.

    Args:
        custom_objects: a dict of {name: class or function} (Keras's argument).
        *more_custom_objects: more such dicts; later ones win on a name.

    Example:
        >>> import kerasish as ks
        >>> def cube(x):
        ...     return x ** 3
        >>> with ks.saving.custom_object_scope({"cube": cube}):
        ...     ks.activations.get("cube") is cube
        True
    """

    def __init__(self, custom_objects=None, *more_custom_objects: dict):
        self._objects = {}
        for table in (custom_objects, *more_custom_objects):
            self._objects.update(table or {})

    def __enter__(self):
        _state.scopes.append(self._objects)
        return self

    def __exit__(self, *exc_info):
        _state.scopes.pop()


custom_object_scope = CustomObjectScope


def _custom_lookup(name: str):
    for table in reversed(_state.scopes):
        if name in table:
            return table[name]
    return _REGISTERED.get(name)


# ---------------------------------------------------------------- families of built-ins

# family -> (kerasish module holding its public names, Keras module string written in files)
_FAMILIES = {
    "layers": ("kerasish.layers", "keras.layers"),
    "models": ("kerasish.models", "keras"),
    "losses": ("kerasish.losses", "keras.losses"),
    "metrics": ("kerasish.metrics", "keras.metrics"),
    "schedules": ("kerasish.optimizers.schedules", "keras.optimizers.schedules"),
    "optimizers": ("kerasish.optimizers", "keras.optimizers"),
    "initializers": ("kerasish.initializers", "keras.initializers"),
    "regularizers": ("kerasish.regularizers", "keras.regularizers"),
    "constraints": ("kerasish.constraints", "keras.constraints"),
    "activations": ("kerasish.activations", "keras.activations"),
}


def family_objects(family: str) -> dict:
    """{public name: class or function} of one built-in family (read from its namespace now,
    so classes added to the package later are included).

    The namespace is looked up in `sys.modules`, not imported: the families stand on floors
    above this one, and importing any part of kerasish runs the package root, which imports
    every family before a config can be read."""
    module = sys.modules[_FAMILIES[family][0]]
    objects = {}
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(value) or (inspect.isfunction(value) and family != "models"):
            objects[name] = value
    if family == "layers":  # models are layers too (a Sequential inside a Sequential)
        objects.update({k: v for k, v in family_objects("models").items() if k not in objects})
    return objects


def _family_of_module(module: str | None) -> str | None:
    """The family a Keras or kerasish module string names ('keras.layers' -> 'layers')."""
    if not module:
        return None
    parts = module.split(".")
    if parts[0] not in ("keras", "kerasish", "tf_keras"):
        return None
    if "schedules" in parts or "learning_rate_schedule" in parts:
        return "schedules"
    for part in parts[1:]:
        if part in _FAMILIES:
            return part
        if part in ("functional", "sequential", "model"):
            return "models"
    if module in ("keras", "kerasish"):
        return "models"
    return None


def _builtin_family(cls) -> str | None:
    """The family whose namespace exports `cls` under its own name, for kerasish classes."""
    module = getattr(cls, "__module__", "") or ""
    if not module.startswith("kerasish."):
        return None
    for family, (home, _) in _FAMILIES.items():  # its home family first (a model is a layer too)
        if module == home or module.startswith(home + "."):
            if family_objects(family).get(cls.__name__) is cls:
                return family
    for family in _FAMILIES:
        if family_objects(family).get(cls.__name__) is cls:
            return family
    return None


# ---------------------------------------------------------------- built-in functions

_BUILTIN_FUNCTIONS: dict[str, object] = {}  # name written in configs -> built-in function
_BUILTIN_FUNCTION_NAMES: dict[object, str] = {}  # built-in function -> that name


def register_builtin_functions(by_name: dict, name_of: dict) -> None:
    """Make built-in functions (the activations) serialize as their bare name ('relu') and
    a bare name in a function config resolve to them. `ks.activations` calls this when it is
    imported, so the registry needs no import of it.

    Args:
        by_name: {name: function}, every name a config may hold ('swish' and 'silu').
        name_of: {function: the one name to write for it}.
    """
    _BUILTIN_FUNCTIONS.update(by_name)
    _BUILTIN_FUNCTION_NAMES.update(name_of)


def _builtin_function_name(fn) -> str | None:
    try:
        return _BUILTIN_FUNCTION_NAMES.get(fn)
    except TypeError:  # an unhashable callable
        return None


# ---------------------------------------------------------------- serialize


def serialize_keras_object(obj):
    """`obj` as plain JSON data, in Keras 3's serialized form.

    Plain values (None, bool, int, float, str) are returned as they are, lists
    and tuples as lists, dicts with each value serialized; NumPy arrays and
    scalars become Keras's `__numpy__` form or plain numbers; objects with
    `get_config()` become `{"module", "class_name", "config", "registered_name"}`
    (layers also carry `build_config`); built-in activation functions their
    name ('relu'), other registered functions Keras's `function` form.

    Args:
        obj: a plain value, container, NumPy value, object with `get_config()` or function.

    Returns:
        JSON-ready data that `deserialize_keras_object` turns back into an equal object.

    Example:
        >>> import kerasish as ks
        >>> config = ks.saving.serialize_keras_object(ks.layers.Dense(3, name="d"))
        >>> config["module"], config["class_name"], config["config"]["units"]
        ('keras.layers', 'Dense', 3)
    """
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.dtype):
        return obj.name
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(item) for item in obj]
    if isinstance(obj, dict):
        return {key: serialize_keras_object(value) for key, value in obj.items()}
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, (np.ndarray, Tensor)):
        array = np.asarray(obj.numpy() if isinstance(obj, Tensor) else obj)
        return {"class_name": "__numpy__", "config": {"value": array.tolist(),
                                                      "dtype": array.dtype.name}}
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return _serialize_function(obj)
    if inspect.isclass(obj):
        raise SerializationError(
            f"cannot serialize the class {obj.__name__} itself; serialize an instance"
        )
    get_config = getattr(obj, "get_config", None)
    if get_config is None:
        raise SerializationError(
            f"cannot serialize {obj!r} ({type(obj).__name__}): it has no get_config() method; "
            "implement get_config() returning its constructor arguments"
        )
    return _serialize_object(obj, get_config())


def _serialize_function(fn) -> object:
    name = _builtin_function_name(fn)
    if name is not None and fn not in _REGISTERED_NAMES:
        return name
    if fn.__name__ == "<lambda>":
        if fn.__closure__:
            raise SerializationError(
                f"cannot serialize a lambda that uses variables of its enclosing function "
                f"({', '.join(fn.__code__.co_freevars)}): the file could not rebuild them; "
                "use a module-level function registered with "
                "@ks.saving.register_keras_serializable()"
            )
        code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
        return {
            "class_name": "__lambda__",
            "config": {"code": code, "defaults": serialize_keras_object(fn.__defaults__),
                       "closure": None},
        }
    module = fn.__module__
    if fn not in _REGISTERED_NAMES:
        family = _builtin_family_of_function(fn)
        if family is not None:
            module = _FAMILIES[family][1]
    return {"module": module, "class_name": "function",
            "config": get_registered_name(fn), "registered_name": "function"}


def _builtin_family_of_function(fn) -> str | None:
    module = getattr(fn, "__module__", "") or ""
    for family, (home, _) in _FAMILIES.items():
        if module == home and family_objects(family).get(fn.__name__) is fn:
            return family
    return None


# Arguments of kerasish's built-in classes that Keras's classes of the same name lack, by
# family, with their default: left out of a config at the default, so Keras reads the file.
_KERASISH_ONLY_DEFAULTS = {"metrics": {"from_logits": False}}


def _serialize_object(obj, config) -> dict:
    cls = type(obj)
    family = _builtin_family(cls)
    config = serialize_keras_object(config)
    layer = hasattr(obj, "get_build_config")  # layers (and models): the objects built from shapes
    if layer and isinstance(config, dict) and isinstance(config.get("dtype"), str):
        if cls.__name__ != "InputLayer":  # Keras writes a dtype policy, InputLayer a plain name
            config["dtype"] = {"module": "keras", "class_name": "DTypePolicy",
                               "config": {"name": config["dtype"]}, "registered_name": None}
    if family is not None:
        for key, default in _KERASISH_ONLY_DEFAULTS.get(family, {}).items():
            if isinstance(config, dict) and key in config and config[key] == default:
                del config[key]  # Keras's class has no such argument; the default restores it
        module = _FAMILIES[family][1]
        registered = None
        if family == "models" and cls.__name__ == "Functional":
            module, registered = "keras.src.models.functional", "Functional"
    else:  # a class Keras keeps outside its public families says where (`keras_module`)
        module = vars(cls).get("keras_module") or cls.__module__
        registered = get_registered_name(cls)
    result = {"module": module, "class_name": cls.__name__, "config": config,
              "registered_name": registered}
    if layer:
        build_config = obj.get_build_config()
        if build_config:
            result["build_config"] = serialize_keras_object(build_config)
    return result


# ---------------------------------------------------------------- the small callables' get

def resolve_callable(identifier, what: str, names: dict, module_objects: dict, *,
                     none=None, instantiate: bool = True, hint: str = ""):
    """The shared `get` of activations, initializers, regularizers and constraints: turn
    what a user passed (a name, a serialized dict, a class, an instance, a callable) into
    the callable itself.

    Args:
        identifier: None (gives `none`), a name (looked up in `names`, then the registry
            and custom-object scopes, then `names` in lower case), a dict (deserialized
            with `module_objects`), a class (instantiated when `instantiate`), or any
            callable (returned as it is).
        what: the family's singular, for error messages ('initializer').
        names: {name: class or function} of the built-ins.
        module_objects: {class name: class} resolving a dict without `module`.
        none: what None stands for (None, or `linear` for activations).
        instantiate: call the class a name or identifier gives (False for activations,
            which are functions).
        hint: appended to the "unknown name" and "cannot interpret" errors.

    Returns:
        The callable.

    Raises:
        InvalidArgumentError: an unknown name (the known ones are listed) or a value that is
            not callable.
    """
    if identifier is None:
        return none
    if isinstance(identifier, dict):
        return deserialize_keras_object(identifier, module_objects=module_objects)
    if isinstance(identifier, str):
        found = (names.get(identifier) or get_registered_object(identifier)
                 or names.get(identifier.lower()))
        if found is None:
            raise InvalidArgumentError(
                f"unknown {what} {identifier!r}; choose one of: {', '.join(sorted(names))}{hint}"
            )
        return found() if instantiate else found
    if instantiate and inspect.isclass(identifier):
        return identifier()
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"cannot interpret {identifier!r} as {_article(what)} {what}{hint}")


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


# ---------------------------------------------------------------- deserialize

def deserialize_keras_object(config, custom_objects: dict | None = None,
                             safe_mode: bool = True, module_objects: dict | None = None):
    """The object a `serialize_keras_object` dict describes.

    Classes are found, in order, in `custom_objects`, the active
    `custom_object_scope`s, the registry (`registered_name`), and then the
    built-in family named by `module` ('keras.layers' or 'kerasish.layers' ->
    `ks.layers`) or, when the dict has no module, `module_objects`. The
    class's `from_config(config)` builds it (nested objects in the config
    are left for its constructor, which resolves them with `initializers.get`,
    `activations.get`, ...); custom objects and `safe_mode` stay in effect
    while it runs. A layer with a `build_config` is built.

    Args:
        config: the dict (or a list of them, or a plain value, returned as is).
        custom_objects: {name: class or function} for user objects.
        safe_mode: refuse Python bytecode (lambdas) in the config; pass False
            only for files you trust.
        module_objects: {name: class or function} to resolve a dict without `module`.

    Returns:
        The rebuilt object.

    Raises:
        SerializationError: naming the class (and module) that cannot be found,
            or the lambda refused in safe mode.

    Example:
        >>> import kerasish as ks
        >>> config = ks.saving.serialize_keras_object(ks.layers.Dense(3, name="d"))
        >>> layer = ks.saving.deserialize_keras_object(config)
        >>> type(layer).__name__, layer.units, layer.name
        ('Dense', 3, 'd')
    """
    with deserialization_scope(custom_objects, safe_mode):
        return _deserialize(config, module_objects)


@contextlib.contextmanager
def deserialization_scope(custom_objects: dict | None = None, safe_mode: bool = True):
    """Within it, nested deserializations (`from_config`, `compile_from_config`, the `get`
    functions) find `custom_objects` and follow `safe_mode`; an inner True does not undo an
    outer `safe_mode=False`."""
    outer = _state.safe_mode
    _state.safe_mode = outer if outer is not None and safe_mode else safe_mode
    if custom_objects is not None:
        _state.scopes.append(dict(custom_objects))
    try:
        yield
    finally:
        if custom_objects is not None:
            _state.scopes.pop()
        _state.safe_mode = outer


_unsafe_enabled = False  # set for the whole process by enable_unsafe_deserialization


def enable_unsafe_deserialization() -> None:
    """Allow Python code in configs and `.keras` files (a `Lambda` layer's bytecode) from now
    on in this process, as if every load passed `safe_mode=False` (Keras 3's
    `keras.config.enable_unsafe_deserialization`). Only for files you trust: loading such
    a file runs the code it holds.

    Example (not run here, since it lasts for the process)::

        keras.config.enable_unsafe_deserialization()
        model = keras.models.load_model("model_with_a_lambda.keras")
    """
    global _unsafe_enabled
    _unsafe_enabled = True


def in_safe_mode() -> bool:
    """Whether code from configs is refused right now (True outside any deserialization,
    unless `enable_unsafe_deserialization` was called)."""
    return _state.safe_mode is not False and not _unsafe_enabled


def _deserialize(config, module_objects):
    if config is None or isinstance(config, (bool, int, float, str)):
        return config
    if isinstance(config, (list, tuple)):
        return [_deserialize(item, module_objects) for item in config]
    if not isinstance(config, dict):
        raise SerializationError(f"cannot deserialize {config!r} ({type(config).__name__})")
    if "class_name" not in config:
        return {key: _deserialize(value, module_objects) for key, value in config.items()}
    class_name = config["class_name"]
    inner = config.get("config")
    marker = _deserialize_marker(class_name, inner)
    if marker is not _NOT_A_MARKER:
        return marker
    module = config.get("module")
    registered = config.get("registered_name")
    if class_name == "function":
        return _resolve_function(inner, module, module_objects)
    cls = _resolve_class(class_name, module, registered, module_objects)
    try:
        resolved = _resolve_markers(dict(inner or {}))
    except SerializationError as exc:  # e.g. a lambda refused in safe mode: say whose
        name = (inner or {}).get("name")
        raise SerializationError(
            f"{class_name}{'' if name is None else f' {name!r}'}: {exc}"
        ) from exc
    inner = _strip_keras_only_keys(cls, resolved)
    try:
        obj = cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
    except TypeError as exc:
        raise SerializationError(
            f"cannot rebuild {class_name} from its config: {exc}. Its config was {inner!r}"
        ) from exc
    build_config = config.get("build_config")
    if build_config and hasattr(obj, "build_from_config") and not getattr(obj, "built", True):
        obj.build_from_config(build_config)
    return obj


_NOT_A_MARKER = object()


def _resolve_markers(value):
    """`value` with Keras's plain-value forms (`__numpy__`, `__tuple__`, dtype policies,
    lambdas) rebuilt at any depth; serialized objects are left for their owner's constructor."""
    if isinstance(value, list):
        return [_resolve_markers(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "class_name" in value:
        marker = _deserialize_marker(value["class_name"], value.get("config"))
        return value if marker is _NOT_A_MARKER else marker
    return {key: _resolve_markers(item) for key, item in value.items()}


def _deserialize_marker(class_name, inner):
    if class_name == "__numpy__":
        return _config_array(class_name, inner)
    if class_name == "__tensor__":
        return constant(_config_array(class_name, inner))
    if class_name == "__tuple__":
        return tuple(_deserialize(v, None) for v in inner["value"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name in ("DTypePolicy", "FloatDTypePolicy"):
        return inner["name"]
    if class_name == "__lambda__":
        if in_safe_mode():
            raise SerializationError(
                "refusing to load a Python lambda from this config: it would run code stored "
                "in the file. If you trust the file, pass safe_mode=False (e.g. "
                "ks.models.load_model(path, safe_mode=False))"
            )
        code = marshal.loads(base64.b64decode(inner["code"]))
        defaults = inner.get("defaults")
        closure = inner.get("closure")  # Keras writes the captured values of a closure
        cells = None if closure is None else tuple(
            types.CellType(_deserialize(value, None)) for value in closure
        )
        if len(cells or ()) != len(code.co_freevars):
            raise SerializationError(
                f"lambda in this config: its code uses {len(code.co_freevars)} captured "
                f"variable(s) ({', '.join(code.co_freevars) or 'none'}) but the config holds "
                f"{len(cells or ())} value(s) for them"
            )
        return types.FunctionType(code, globals(), argdefs=tuple(defaults) if defaults else None,
                                  closure=cells)
    return _NOT_A_MARKER


def _config_array(class_name: str, inner: dict) -> np.ndarray:
    """The array of a `__numpy__` or `__tensor__` value, its declared size checked first (a
    dtype such as 'S500000000' would otherwise allocate gigabytes for one element)."""
    limits.check_array(np.shape(inner["value"]), inner["dtype"], f"a {class_name} value",
                       SerializationError)
    return np.asarray(inner["value"], dtype=inner["dtype"])


def _resolve_function(name, module, module_objects):
    found = _custom_lookup(name)
    if found is None and module_objects:
        found = module_objects.get(name)
    family = _family_of_module(module)
    if found is None and family in ("activations", None):
        found = _BUILTIN_FUNCTIONS.get(name)
    if found is None and family in ("losses", "metrics"):
        candidate = family_objects(family).get(name)
        found = candidate if _is_loss_function(candidate) else None
    if found is None:
        raise SerializationError(
            f"unknown function {name!r} (module {module!r}): register it with "
            "@ks.saving.register_keras_serializable() or pass custom_objects={"
            f"{name!r}: fn}}"
        )
    return found


def _is_loss_function(candidate) -> bool:
    """Whether a built-in function is a loss or metric (`fn(y_true, y_pred, ...)`): the only
    functions a config may name by module; helpers such as `get` or `clear_session` never."""
    if not inspect.isfunction(candidate):
        return False
    return list(inspect.signature(candidate).parameters)[:2] == ["y_true", "y_pred"]


def _resolve_class(class_name, module, registered, module_objects):
    for key in (registered, class_name):
        if key:
            found = _custom_lookup(key)
            if found is not None:
                return found
    family = _family_of_module(module)
    if family is not None:
        found = family_objects(family).get(class_name)
        if inspect.isclass(found):  # never a function of the namespace (clear_session)
            return found
        what = {"layers": "layer", "models": "model", "losses": "loss", "metrics": "metric",
                "optimizers": "optimizer", "schedules": "learning-rate schedule",
                "initializers": "initializer", "regularizers": "regularizer",
                "constraints": "constraint", "activations": "activation"}[family]
        raise SerializationError(
            f"unsupported {what} class {class_name!r} (module {module!r}): kerasish has no "
            f"built-in {what} of that name. If it is your own class, register it with "
            "@ks.saving.register_keras_serializable() or pass custom_objects="
            f"{{{class_name!r}: cls}}"
        )
    if module_objects and class_name in module_objects:
        return module_objects[class_name]
    raise SerializationError(
        f"unknown class {class_name!r} (module {module!r}, registered name {registered!r}): "
        "register it with @ks.saving.register_keras_serializable() or pass custom_objects="
        f"{{{class_name!r}: cls}}"
    )


# Arguments Keras 3 writes that kerasish's classes do not take, with the value that means
# "the behaviour kerasish has". A config holding such a key with exactly that value loads
# (the key is dropped); any other value is refused, naming the class, key and value.
_KERAS_ONLY_DEFAULTS = {
    "data_format": "channels_last",
    "dilation_rate": [1, 1],
    "groups": 1,
    "activity_regularizer": None,
    "kernel_constraint": None,
    "bias_constraint": None,
    "embeddings_constraint": None,
    "beta_constraint": None,
    "gamma_constraint": None,
    "beta_regularizer": None,
    "gamma_regularizer": None,
    "quantization_config": None,
    "lora_rank": None,
    "lora_alpha": None,
    "synchronized": False,
    "renorm": False,
    "renorm_clipping": None,
    "renorm_momentum": 0.99,
    "sparse": False,
    "ragged": False,
    "optional": False,
    "input_axes": None,
    "output_axes": None,
    "ignore_class": None,
    "axis": -1,
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
    "input_length": None,
    "multi_label": False,
    "num_labels": None,
    "label_weights": None,
}


def _accepted_arguments(cls) -> tuple[set, bool]:
    """(names the constructor accepts, whether it accepts any keyword), following **kwargs
    up the class hierarchy as far as each __init__ passes them on."""
    names: set = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            parameters = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            return names, True
        names.update(p.name for p in parameters
                     if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return names, False
        if klass is object:
            break
    return names, False


def _is_default(value, default) -> bool:
    if isinstance(value, (list, tuple)):
        value = list(value)
    return value == default or (isinstance(default, list) and value == default[0])


def _strip_keras_only_keys(cls, config: dict) -> dict:
    """Drop the keys of `_KERAS_ONLY_DEFAULTS` that `cls` does not take and that hold the
    default; refuse one with another value."""
    keys = [key for key in config if key in _KERAS_ONLY_DEFAULTS]
    if not keys:
        return config
    accepted, open_ended = _accepted_arguments(cls)
    if open_ended:
        return config
    for key in keys:
        if key in accepted:
            continue
        value, default = config[key], _KERAS_ONLY_DEFAULTS[key]
        if not _is_default(value, default):
            raise SerializationError(
                f"{cls.__name__}: the config sets {key}={value!r}, which kerasish's "
                f"{cls.__name__} does not support (only the default, {default!r})"
            )
        del config[key]
    return config
