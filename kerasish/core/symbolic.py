"""Op nodes of the functional API, and shape inference by evaluation on zeros.

An op applied to a symbolic tensor (`x + 1`, `x[:, 0]`, `ks.concat`, `ks.nn.relu`)
reaches `primitive.apply`, whose error path sees the symbolic input and calls
`primitive_call` here: each primitive becomes a `PrimitiveOp` node, so composite ops
and plain Python arithmetic mix freely with layers. A function that needs concrete
shapes (`ks.ops.mean` over an unknown axis, `ks.reduce_mean`, `ks.zeros_like`: those
defined with `symbolic_fallback`) becomes one `FunctionOp` node, and a Keras 3 op read
from a Keras config a `KerasOp` node. A layer's call on symbolic tensors is recorded by
`kerasish.layers.symbolic`; `kerasish.models.functional` turns the nodes into a model.

Output shapes of an op (and of a layer without `compute_output_shape`) are found by
`infer_output_specs`: it runs the computation once on zero arrays where each unknown
(None) dimension is given a small sentinel size, then again with a second sentinel
size if there are unknown dimensions; an output dimension that differs between the two
runs is unknown (None). This runs under no tape and costs one call on a few examples.

Example:
    >>> import kerasish as ks
    >>> x = ks.Input((3,))
    >>> y = ks.layers.Dense(4)(x) * 2.0
    >>> y.shape
    (None, 4)
"""

from __future__ import annotations

import functools
import inspect
import sys

import numpy as np

from kerasish.core import backend, nest, recording
from kerasish.core import primitive as primitive_module
from kerasish.core.errors import InvalidArgumentError, KerasishError
from kerasish.core.keras_tensor import KerasTensor, Node, any_symbolic
from kerasish.core.naming import snake_case, unique_name
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

# The sizes an unknown dimension takes in the two inference runs: small (cheap), above 1
# (so broadcasting cannot hide them), and with common factors (so reshapes with -1 work).
SENTINEL_SIZES = (4, 8)


# -- op nodes ------------------------------------------------------------------------


class PrimitiveOp:
    """An op node: one primitive with fixed attributes, applied to symbolic tensors.

    Calling it on tensors runs the primitive eagerly (recorded on tapes as usual);
    calling it on symbolic tensors records another node of this op.

    Args:
        primitive: a registered primitive, or its name ('add').
        attrs: the primitive's attributes (an axis, a shape, an index).
        name: the node name in a model (default: the primitive's name, made unique).

    Raises:
        InvalidArgumentError: for a name that is not a registered primitive.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.symbolic import PrimitiveOp
        >>> add = PrimitiveOp("add")
        >>> add(ks.ones([2]), ks.ones([2])).numpy()
        array([2., 2.], dtype=float32)
        >>> add(ks.Input((3,)), ks.Input((3,))).shape
        (None, 3)
    """

    def __init__(self, primitive, attrs: dict | None = None, name: str | None = None):
        if isinstance(primitive, str):
            if primitive not in primitive_module.REGISTRY:
                raise InvalidArgumentError(f"PrimitiveOp: there is no primitive {primitive!r}")
            primitive = primitive_module.REGISTRY[primitive]
        self.primitive = primitive
        self.attrs = dict(attrs or {})
        self.name = name or unique_name(primitive.name)
        self._inbound_nodes: list = []

    def __call__(self, *inputs):
        inputs = tuple(x if isinstance(x, Tensor) else convert_to_tensor(x) for x in inputs)
        if any_symbolic(inputs):
            return self.symbolic_call(inputs)
        return primitive_module.apply(self.primitive, inputs, self.attrs)

    def symbolic_call(self, inputs: tuple):
        """Record a node of this op on `inputs` (some symbolic) and return its outputs.

        Args:
            inputs: the primitive's inputs, a tuple of symbolic or concrete tensors.

        Returns:
            Symbolic outputs of the shapes the primitive gives.

        Raises:
            InvalidArgumentError: naming the op and the shapes, if the primitive rejects them.

        Example:
            >>> import kerasish as ks
            >>> from kerasish.core.symbolic import PrimitiveOp
            >>> PrimitiveOp("multiply").symbolic_call((ks.Input((4,)), ks.Input((1,)))).shape
            (None, 4)
        """
        prim, attrs = self.primitive, self.attrs

        def run(*tensors):
            out = prim.forward(*[t._value for t in tensors], **attrs)
            return tuple(out) if prim.multi_output else out

        try:
            specs = infer_output_specs(run, inputs, {})
        except KerasishError:
            raise
        except Exception as exc:
            raise primitive_module.op_error(prim, exc, inputs, attrs) from exc
        return Node(self, inputs, {}, specs).outputs

    def get_config(self) -> dict:
        return {"name": self.name, "primitive": self.primitive.name,
                "attrs": _encode_attr(self.attrs)}

    @classmethod
    def from_config(cls, config: dict):
        """The op `get_config()` describes.

        Args:
            config: ``{"name", "primitive", "attrs"}``, as `get_config` returns it.

        Returns:
            A new op node.

        Example:
            >>> from kerasish.core.symbolic import PrimitiveOp
            >>> PrimitiveOp.from_config(PrimitiveOp("add", name="plus").get_config())
            <PrimitiveOp 'plus' (add)>
        """
        return cls(config["primitive"], _decode_attr(config["attrs"]), config["name"])

    def __repr__(self) -> str:
        return f"<PrimitiveOp '{self.name}' ({self.primitive.name})>"


# Primitives that are one Keras 3 op (same arguments and meaning), so that a config we write
# loads in Keras: primitive -> (Keras module, class name, {attr: Keras config key}).
_NUMPY, _NN, _CORE = "keras.src.ops.numpy", "keras.src.ops.nn", "keras.src.ops.core"
_KERAS_OPS = {
    **{name: (_NUMPY, cls, {}) for name, cls in [
        ("add", "Add"), ("subtract", "Subtract"), ("multiply", "Multiply"),
        ("divide", "TrueDivide"), ("pow", "Power"), ("maximum", "Maximum"),
        ("minimum", "Minimum"), ("exp", "Exp"), ("log", "Log"), ("log1p", "Log1p"),
        ("expm1", "Expm1"), ("sqrt", "Sqrt"), ("square", "Square"), ("abs", "Absolute"),
        ("negative", "Negative"), ("sign", "Sign"), ("tanh", "Tanh"), ("sin", "Sin"),
        ("cos", "Cos"), ("floor", "Floor"), ("ceil", "Ceil"), ("equal", "Equal"),
        ("not_equal", "NotEqual"), ("greater", "Greater"), ("greater_equal", "GreaterEqual"),
        ("less", "Less"), ("less_equal", "LessEqual"),
    ]},
    "relu": (_NN, "Relu", {}), "sigmoid": (_NN, "Sigmoid", {}),
    "softplus": (_NN, "Softplus", {}), "softmax": (_NN, "Softmax", {"axis": "axis"}),
    "concat": (_NUMPY, "Concatenate", {"axis": "axis"}),
    "reshape": (_NUMPY, "Reshape", {"shape": "newshape"}),
    "transpose": (_NUMPY, "Transpose", {"perm": "axes"}),
    "cast": (_CORE, "Cast", {"dtype": "dtype"}),
    "getitem": (_NUMPY, "GetItem", {}),
    "matmul": (_NUMPY, "Matmul", {}),
}


def _keras_index(key):
    """A NumPy index in Keras's serialized form (slices and Ellipsis tagged), or `_NO_INDEX`
    if it holds arrays (which Keras's configs do not carry)."""
    if isinstance(key, tuple):
        parts = [_keras_index(k) for k in key]
        return _NO_INDEX if any(p is _NO_INDEX for p in parts) else parts
    if isinstance(key, slice):
        return {"class_name": "__slice__",
                "config": {"start": key.start, "stop": key.stop, "step": key.step}}
    if key is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if key is None:
        return None
    if isinstance(key, (int, np.integer)):
        return int(key)
    return _NO_INDEX


_NO_INDEX = object()


def keras_op_form(operation, args: tuple):
    """(Keras 3's serialized op, node args) for a `PrimitiveOp` Keras has an op for, else None.

    Matmul qualifies only without transposes, GetItem only for basic indices.
    """
    entry = _KERAS_OPS.get(operation.primitive.name)
    if entry is None:
        return None
    module, class_name, renames = entry
    attrs = operation.attrs
    if class_name == "Matmul" and (attrs.get("transpose_a") or attrs.get("transpose_b")):
        return None
    config = {"name": operation.name}
    for attr, key in renames.items():
        value = attrs[attr]
        config[key] = value.name if isinstance(value, np.dtype) else (
            list(value) if isinstance(value, tuple) else value
        )
    if class_name == "GetItem":
        key = attrs["key"]
        index = _keras_index(key)
        if index is _NO_INDEX or key is None:
            return None
        args = tuple(args) + (index,)
    if class_name == "Concatenate":
        args = (list(args),)
    return {"module": module, "class_name": class_name, "config": config,
            "registered_name": class_name}, args


class KerasOp:
    """An op node read from a Keras 3 config (`keras.ops.add`, `x[:, 0]`, ...), run by `ks.ops`.

    The Keras class maps onto the `ks.ops` function of the same name in snake case
    (`NotEqual` -> `ops.not_equal`, the op behind an `Embedding(mask_zero=True)` mask).
    Its config arguments and its node's keyword arguments (symbolic tensors too) are
    passed on; an argument the kerasish function lacks is accepted only at Keras's
    "off" value (None or False, e.g. `ops.max(..., initial=None)`).

    Args:
        layer_config: Keras's serialized op (`module`, `class_name`, `config`).
    """

    _RENAMED = {"newshape": "shape"}
    # Keras op classes whose snake_case is not the function's name
    _FUNCTIONS = {"SearchSorted": "searchsorted", "BatchNorm": "batch_normalization"}
    # Keras op classes whose call takes the tensors in another order than the function
    _CALL_ARGUMENTS = {"BatchNorm": ("x", "mean", "variance", "offset", "scale")}
    # config entries that are the function's leading positional argument, before the tensors
    _LEADING = {"Einsum": "subscripts"}

    def __init__(self, layer_config: dict):
        self.keras_module = layer_config.get("module")
        self.keras_class = layer_config["class_name"]
        config = dict(layer_config.get("config") or {})
        self.name = config.pop("name", None) or unique_name(snake_case(self.keras_class))
        self.config = config
        if self.keras_class == "GetItem":
            self._function = _get_item
        else:
            function = self._FUNCTIONS.get(self.keras_class) or snake_case(self.keras_class)
            self._function = ops_function(function)
            if self._function is None:
                raise InvalidArgumentError(
                    f"unsupported Keras op {self.keras_class!r} (module {self.keras_module!r}) "
                    f"in node '{self.name}': ks.ops has no {function}"
                )
        taken = inspect.signature(self._function).parameters  # Keras's names where it has them
        kwargs = {key if key in taken else self._RENAMED.get(key, key): value
                  for key, value in config.items()}
        leading = self._LEADING.get(self.keras_class)
        self._leading = (kwargs.pop(leading),) if leading in kwargs else ()
        self._kwargs = self._supported(kwargs, "config argument")
        self._inbound_nodes: list = []

    def _supported(self, kwargs: dict, what: str) -> dict:
        """`kwargs` the function takes; others must be at Keras's off value (None, False)."""
        parameters = inspect.signature(self._function).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            return kwargs
        for key, value in kwargs.items():
            if key not in parameters and value is not None and value is not False:
                raise InvalidArgumentError(
                    f"Keras op '{self.name}' ({self.keras_class}): {what} {key}={value!r} is "
                    f"not supported (ks.ops.{self._function.__name__} has no {key!r}; only "
                    "None or False, Keras's default, is accepted)"
                )
        return {key: value for key, value in kwargs.items() if key in parameters}

    def _run(self, *args, **kwargs):
        names = self._CALL_ARGUMENTS.get(self.keras_class)
        if names:
            args, kwargs = (), {**dict(zip(names, args)), **kwargs}
        return self._function(*self._leading, *args, **kwargs, **self._kwargs)

    def __call__(self, *args, **kwargs):
        kwargs = self._supported(kwargs, "keyword argument") if kwargs else kwargs
        if any_symbolic((args, kwargs)):
            try:
                specs = infer_output_specs(self._run, args, kwargs)
            except KerasishError as exc:
                raise type(exc)(f"Keras op '{self.name}' ({self.keras_class}): {exc}") from exc
            return Node(self, args, kwargs, specs).outputs
        return self._run(*args, **kwargs)

    def keras_form(self) -> dict:
        return {"module": self.keras_module, "class_name": self.keras_class,
                "config": {"name": self.name, **self.config},
                "registered_name": self.keras_class}

    def __repr__(self) -> str:
        return f"<KerasOp '{self.name}' ({self.keras_class})>"


# Where op functions are defined: a config may name a function of these (packages) only.
_OP_MODULES = ("kerasish.ops", "kerasish.activations", "kerasish.losses", "kerasish.core.ops")


def _is_op_module(module_name: str) -> bool:
    return any(module_name == package or module_name.startswith(package + ".")
               for package in _OP_MODULES)


# Configs written before `math_ops` and `array_ops` were split into families (issue 22)
# name these ops by their old module: the name of each now.
_RENAMED_OPS = {
    f"kerasish.core.ops.{old}.{op}": f"kerasish.core.ops.{new}.{op}"
    for old, new, ops in (
        ("math_ops", "reduction_ops", ("reduce_mean", "reduce_variance", "reduce_std")),
        ("array_ops", "creation_ops", ("zeros_like", "ones_like", "shape", "size")),
        ("array_ops", "shape_ops", ("expand_dims", "squeeze", "unstack")),
        ("array_ops", "indexing_ops", ("one_hot",)),
    )
    for op in ops
}


def ops_function(name: str):
    """The op called `name`, or None: a `ks.ops` name ('mean'), or a module and function
    ('kerasish.core.ops.reduction_ops.reduce_mean'). Only ops qualify (functions defined in
    kerasish's op modules, activations, loss functions or `ks.ops`), never another object a
    config could name, and no module is imported for it. A name from before the op families
    were split ('kerasish.core.ops.math_ops.reduce_mean') is read as the op's name now.

    The modules are looked up in `sys.modules`, so this floor never imports the public
    `ks.ops` above it: importing any part of kerasish runs the package root, which imports
    `ks.ops` and every op module before a model or a config can name an op.
    """
    module_name, _, attr = _RENAMED_OPS.get(name, name).rpartition(".")
    if attr.startswith("_") or (module_name and not _is_op_module(module_name)):
        return None
    found = getattr(sys.modules.get(module_name or "kerasish.ops"), attr, None)
    if not inspect.isfunction(found):
        return None
    defined_in = getattr(found, "__wrapped_op__", found).__module__
    if module_name and defined_in != module_name:
        return None
    return found if _is_op_module(defined_in) else None


def _get_item(x, key):
    return x[tuple(key) if isinstance(key, list) else key]


class FunctionOp:
    """An op node that runs a whole op function (one that needs concrete shapes, such as
    `ops.mean` over an unknown axis, `ops.one_hot` or `ks.reduce_mean`); shapes are found
    on zeros.

    Args:
        function: the function's name in `ks.ops` ('one_hot'), or its module and name
            ('kerasish.core.ops.reduction_ops.reduce_mean').
        name: the node name (default: the function's name, made unique).

    Raises:
        InvalidArgumentError: for a name that is no op function.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.symbolic import FunctionOp
        >>> one_hot = FunctionOp("one_hot")
        >>> one_hot(ks.Input((2,), dtype="int32"), 4).shape
        (None, 2, 4)
    """

    def __init__(self, function: str, name: str | None = None):
        found = ops_function(function)
        if found is None:
            raise InvalidArgumentError(f"FunctionOp: there is no op {function!r}")
        self.function_name = function
        self._function = getattr(found, "__wrapped_op__", found)
        self.name = name or unique_name(function.rpartition(".")[2])
        self._inbound_nodes: list = []

    def __call__(self, *args, **kwargs):
        if any_symbolic((args, kwargs)):
            return self.symbolic_call(args, kwargs)
        return self._function(*args, **kwargs)

    def _label(self) -> str:
        return self.function_name if "." in self.function_name else f"ops.{self.function_name}"

    def symbolic_call(self, args: tuple, kwargs: dict):
        """Record a node of this function on `args`/`kwargs` (some symbolic); its outputs.

        Args:
            args: the function's positional arguments.
            kwargs: its keyword arguments.

        Returns:
            Symbolic outputs of the shapes the function gives (found by running it on zeros).

        Raises:
            InvalidArgumentError: naming the op and the input shapes, if the function fails.

        Example:
            >>> import kerasish as ks
            >>> from kerasish.core.symbolic import FunctionOp
            >>> FunctionOp("one_hot").symbolic_call((ks.Input((2,), dtype="int32"), 3), {}).shape
            (None, 2, 3)
        """
        try:
            specs = infer_output_specs(self._function, tuple(args), dict(kwargs))
        except KerasishError as exc:
            raise type(exc)(f"{self._label()}: {exc}") from exc
        except Exception as exc:
            raise InvalidArgumentError(
                f"{self._label()} on symbolic inputs of shape "
                f"{[t.shape for t in nest.flatten((args, kwargs)) if isinstance(t, KerasTensor)]}:"
                f" {exc}"
            ) from exc
        return Node(self, tuple(args), dict(kwargs), specs).outputs

    def get_config(self) -> dict:
        return {"name": self.name, "function": self.function_name}

    @classmethod
    def from_config(cls, config: dict):
        """The op `get_config()` describes.

        Args:
            config: ``{"name", "function"}``, as `get_config` returns it.

        Returns:
            A new op node.

        Example:
            >>> from kerasish.core.symbolic import FunctionOp
            >>> FunctionOp.from_config(FunctionOp("one_hot", name="hot").get_config())
            <FunctionOp 'hot' (ops.one_hot)>
        """
        return cls(config["function"], config["name"])

    def __repr__(self) -> str:
        return f"<FunctionOp '{self.name}' ({self._label()})>"


def primitive_call(prim, inputs: tuple, attrs: dict):
    """Record `prim(inputs, attrs)` on symbolic inputs as a new op node; return its outputs.

    Concrete inputs move to the current device, where the symbolic inputs' zeros (and
    later their data) live: Python numbers meeting a symbolic tensor are cached on the host.
    """
    current = backend.current_device()
    inputs = tuple(
        Tensor(backend.to_device(t._value, current))
        if isinstance(t, Tensor) and not isinstance(t, KerasTensor)
        and backend.device_of(t._value) != current else t
        for t in inputs)
    return PrimitiveOp(prim, attrs).symbolic_call(inputs)


def symbolic_fallback(function):
    """`function` that, when it fails on symbolic arguments (it needs concrete shapes, as a
    mean over an unknown axis does), records one node running it whole instead.

    A function that works on symbolic tensors records its primitives as usual; on concrete
    tensors the only cost is the wrapper's call. Composite ops that read static shapes
    (`reduce_mean`, `zeros_like`, `one_hot`, ...) are defined with it, so every namespace
    that offers them (`ks.`, `ks.nn`, `ks.ops`, the losses) works on unknown dimensions.
    The node names the function by its `ks.ops` name when it is `ks.ops`'s own, else by
    module and name (`kerasish.core.ops.reduction_ops.reduce_mean`).

    Args:
        function: a module-level function (the node finds it again by that name when a
            model is loaded).

    Returns:
        The wrapped function (the original is its `__wrapped_op__`).

    Example:
        >>> import kerasish as ks
        >>> inputs = ks.Input((3,))  # the batch size is unknown
        >>> model = ks.Model(inputs, ks.reduce_mean(inputs, axis=0))
        >>> model(ks.reshape(ks.range(6.0), (2, 3))).numpy().tolist()
        [1.5, 2.5, 3.5]
    """
    name = function.__name__
    if function.__module__ != "kerasish.ops":
        name = f"{function.__module__}.{name}"

    @functools.wraps(function)
    def op(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception:
            if not any_symbolic((args, kwargs)):
                raise
        return FunctionOp(name).symbolic_call(args, kwargs)

    op.__wrapped_op__ = function
    return op


def _encode_attr(value):
    """A primitive attribute as JSON data (tuples, slices, Ellipsis and arrays tagged)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.dtype):
        return {"dtype": value.name}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"dtype": np.dtype(value).name}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, slice):
        return {"slice": [_encode_attr(v) for v in (value.start, value.stop, value.step)]}
    if isinstance(value, tuple):
        return {"tuple": [_encode_attr(v) for v in value]}
    if isinstance(value, list):
        return [_encode_attr(v) for v in value]
    if isinstance(value, dict):
        return {"dict": {key: _encode_attr(v) for key, v in value.items()}}
    if isinstance(value, Tensor):
        value = value.numpy()
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        array = np.asarray(backend.to_numpy(value))
        return {"array": array.tolist(), "dtype": array.dtype.name}
    raise InvalidArgumentError(
        f"cannot serialize the op attribute {value!r} ({type(value).__name__})"
    )


def _decode_attr(value):
    if isinstance(value, list):
        return [_decode_attr(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "array" in value:
        return np.asarray(value["array"], dtype=value["dtype"])
    if "dtype" in value:
        return np.dtype(value["dtype"])
    if "ellipsis" in value:
        return Ellipsis
    if "slice" in value:
        return slice(*[_decode_attr(v) for v in value["slice"]])
    if "tuple" in value:
        return tuple(_decode_attr(v) for v in value["tuple"])
    return {key: _decode_attr(v) for key, v in value["dict"].items()}


# -- shape inference by evaluation ---------------------------------------------------


def _zeros_for(tensor: KerasTensor, size: int) -> Tensor:
    shape = tuple(size if d is None else d for d in tensor.shape)
    return Tensor(backend.to_device(np.zeros(shape, tensor.dtype)))


def infer_output_specs(run, args: tuple, kwargs: dict):
    """Output KerasTensors of `run(*args, **kwargs)`, found by running it on zeros.

    Symbolic arguments become zero tensors whose unknown dimensions take a
    sentinel size; with unknown dimensions it runs twice, and an output
    dimension that differs between the runs is unknown.
    """
    flat = nest.flatten((args, kwargs))
    symbolic = [t for t in flat if isinstance(t, KerasTensor)]
    unknown = any(d is None for t in symbolic for d in t.shape)
    runs = []
    for size in SENTINEL_SIZES if unknown else SENTINEL_SIZES[:1]:
        concrete = [_zeros_for(t, size) if isinstance(t, KerasTensor) else t for t in flat]
        call_args, call_kwargs = nest.pack_sequence_as((args, kwargs), concrete)
        with recording.paused(), np.errstate(all="ignore"):
            runs.append(run(*call_args, **call_kwargs))
    first = nest.flatten(runs[0])
    last = nest.flatten(runs[-1])
    specs = []
    for index, (a, b) in enumerate(zip(first, last)):
        if not hasattr(a, "shape") or not hasattr(a, "dtype"):
            raise InvalidArgumentError(
                f"output {index} is a {type(a).__name__}, not a tensor; a layer called on "
                "symbolic tensors must return tensors"
            )
        shape = tuple(d if d == e else None for d, e in zip(a.shape, b.shape))
        specs.append(KerasTensor(shape, as_dtype(a.dtype)))
    return nest.pack_sequence_as(runs[0], specs)
