"""Tensor (an immutable value on a device), Variable (mutable state) and conversion.

Operators (`+`, `*`, `@`, indexing, comparisons) are attached to `Tensor` by
`kerasish.core.ops.operators`, so that each op is defined once, in its op module.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import threading

import numpy as np

from kerasish.core import backend, recording
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor_shape import TensorShape

_new_tuple = tuple.__new__  # TensorShape of an array's shape, without re-checking it

_INT32_MIN, _INT32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def as_dtype(dtype) -> np.dtype | None:
    """A NumPy dtype from a dtype, a name ('float32') or a Python type; None stays None.

    Args:
        dtype: a NumPy dtype, a name such as 'float32' (or 'string' for text), a Python
            type, or None.

    Returns:
        The `np.dtype`, or None.

    Raises:
        TypeError: the name or type is not a dtype.

    Example:
        >>> import kerasish as ks
        >>> ks.as_dtype("float32"), ks.as_dtype(None)
        (dtype('float32'), None)
    """
    if dtype is None:
        return None
    if isinstance(dtype, str) and dtype == "string":  # TF's and Keras's name for text
        return np.dtype(str)
    try:
        return np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"unknown dtype {dtype!r}; use e.g. ks.float32 or 'int32'") from exc


def dtype_name(dtype) -> str:
    """The name configs use for a dtype: NumPy's ('float32'), with 'string' for text as in
    TF and Keras (the inverse of `as_dtype`)."""
    dtype = np.dtype(dtype)
    return "string" if dtype.kind == "U" else dtype.name


def _python_value_to_array(value, dtype):
    """Convert Python scalars and (nested) lists following TF's defaults.

    Python floats become float32 and Python ints int32 (int64 only if they do
    not fit), so a Python literal never silently introduces 64-bit values.
    """
    if dtype is None and value.__class__ is int and _INT32_MIN <= value <= _INT32_MAX:
        return np.asarray(value, dtype=np.int32)  # the common scalar: no min/max pass
    try:
        array = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
    except ValueError:
        if isinstance(value, (list, tuple)):
            _nested_shape(value, "value")  # raises, naming where the rows differ
        raise
    if dtype is None:
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64 and array.size and (
            array.min() >= _INT32_MIN and array.max() <= _INT32_MAX
        ):
            array = array.astype(np.int32)
        elif array.dtype == np.int64 and not array.size:
            array = array.astype(np.int32)
        elif array.dtype.kind in "OUS":
            raise TypeError(
                f"cannot convert {type(value).__name__} value {value!r} to a tensor: "
                f"it holds {array.dtype} data, not numbers"
            )
    return array


def _nested_shape(value, where: str) -> tuple:
    """The shape of a nested list, or an InvalidArgumentError saying where it is ragged."""
    if not isinstance(value, (list, tuple)):
        return ()
    shapes = [_nested_shape(item, f"{where}[{i}]") for i, item in enumerate(value)]
    for i, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise InvalidArgumentError(
                f"cannot convert a ragged nested list to a tensor: {where}[{i}] has shape "
                f"{shape} where {where}[0] has shape {shapes[0]}; every row must have the same "
                "shape (pad them, e.g. with ks.utils.pad_sequences, or keep one tensor per row)"
            )
    return (len(value),) + (shapes[0] if shapes else ())


def _format_value(array, separator: str) -> str:
    """NumPy's text for the value; scalars as Python prints them (6.0, not 6.)."""
    host = np.asarray(backend.to_numpy(array))
    if host.ndim == 0:
        return str(host[()])
    return np.array2string(host, separator=separator)


# `cpu`, `gpu`, `Variable.read_value`, `IndexedSlices.to_dense` and the Python operators
# are ops: core/ops/operators.py installs them.
class Tensor:
    """An immutable multi-dimensional value backed by a NumPy or CuPy array.

    Tensors are made with `ks.constant`, `ks.convert_to_tensor` or by ops; the constructor
    wraps an array as it is.

    Args:
        value: a NumPy or CuPy array, kept without a copy.

    Example:
        >>> import kerasish as ks
        >>> t = ks.constant([[1, 2], [3, 4]])
        >>> t.shape, str(t.dtype)
        ((2, 2), 'int32')
    """

    # `_keras_mask`: the boolean mask a masking layer attached (unset on most tensors)
    __slots__ = ("_value", "_keras_mask")
    _trainable = False  # overridden per instance by Variable; read by the tape
    # NumPy arrays and scalars on the left of an operator (`array * tensor`)
    # defer to the tensor's reflected operator, so the result stays a tensor
    # (and on the tape) instead of silently becoming an ndarray.
    __array_priority__ = 100

    def __init__(self, value):
        self._value = value

    # -- inspection ---------------------------------------------------------
    @property
    def shape(self) -> TensorShape:
        """The dimensions: a tuple (a `ks.TensorShape`, so `x.shape.as_list()` works too)."""
        return _new_tuple(TensorShape, self._value.shape)

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return int(self._value.size)

    @property
    def device(self) -> str:
        return backend.device_name(backend.device_of(self._value))

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for 0-d tensors); copied from a GPU."""
        recording.note_escape(self)
        value = backend.to_numpy(self._value)
        return value[()] if value.ndim == 0 else value

    # -- Python protocol ----------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        recording.note_escape(self)
        array = backend.to_numpy(self._value)
        array = np.asarray(array, dtype=dtype)
        return array.copy() if copy else array

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a 0-d tensor (a scalar) is undefined")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d tensor (a scalar) is undefined")
        for i in range(self._value.shape[0]):
            yield self[i]

    def _scalar(self, what: str):
        if self._value.size != 1:
            raise TypeError(
                f"{what}() needs a tensor with exactly one element, got shape {self.shape}; "
                "reduce it first (e.g. ks.reduce_all, ks.reduce_sum) or index one element"
            )
        recording.note_escape(self)  # a Python number is a constant to every tape
        return backend.to_numpy(self._value).reshape(()).item()

    def __bool__(self) -> bool:
        value = self._value
        if value.ndim == 0 and not backend.is_gpu_array(value):  # the `if loss > m:` fast path
            if recording.is_recording():
                recording.note_escape(self)
            return bool(value)
        return bool(self._scalar("bool"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._value.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self._scalar("index"))

    def __format__(self, spec: str) -> str:
        if self._value.size == 1 and self._value.ndim == 0:
            return format(self._scalar("format"), spec)
        if spec:
            raise TypeError(f"format spec {spec!r} needs a scalar tensor, got shape {self.shape}")
        return str(self)

    __hash__ = None  # `==` is elementwise, as in NumPy and TF2

    def __repr__(self) -> str:
        device = "" if self.device == "/cpu:0" else f", device={self.device}"
        value = _format_value(self._value, ", ")
        return f"<ks.Tensor: shape={self.shape}, dtype={self.dtype}{device}, numpy={value}>"

    def __str__(self) -> str:
        value = _format_value(self._value, " ")
        return f"ks.Tensor({value}, shape={self.shape}, dtype={self.dtype})"


class _NameScope(threading.local):
    def __init__(self):
        self.prefix = ""  # "outer/inner/" inside nested name scopes
        self.innermost = (None, None)  # (name, caller) of the innermost scope


_scope = _NameScope()
variable_update_hooks: list = []  # called with a variable before it is assigned to


@contextlib.contextmanager
def name_scope(name: str, caller=None, deduplicate: bool = True, override_parent=None):
    """Prefix `name/` to the names of the variables created inside the block (TF's
    `tf.name_scope`, Keras's `keras.name_scope`); nested scopes add up. Names are labels
    only: checkpoints and optimizer slots use object paths, so a scope never changes what is
    saved where.

    Args:
        name: the scope's name (no "/").
        caller: the object opening the scope (a layer), for `deduplicate`.
        deduplicate: with a `caller`, re-entering the innermost scope of the same name and
            caller adds nothing (a layer calling itself); a caller's `_parent_path`, when it
            has one, becomes `override_parent`.
        override_parent: a path ('outer/inner') to nest under instead of the open scopes.

    Raises:
        ValueError: if `name` is empty or contains "/".

    Example:
        >>> import kerasish as ks
        >>> with ks.name_scope("encoder") as scope:
        ...     with ks.name_scope("block1"):
        ...         w = ks.Variable(1.0, name="w")
        >>> scope, w.name
        ('encoder/', 'encoder/block1/w')
    """
    name = str(name)
    if not name or "/" in name:
        raise ValueError(f"name_scope: {name!r} is not a scope name (non-empty, without '/')")
    if override_parent is None and deduplicate:
        override_parent = getattr(caller, "_parent_path", None)
    saved, innermost = _scope.prefix, _scope.innermost
    if deduplicate and caller is not None and innermost == (name, caller):
        yield saved
        return
    base = saved if override_parent is None else "".join(
        f"{part}/" for part in str(override_parent).split("/") if part)
    _scope.prefix, _scope.innermost = f"{base}{name}/", (name, caller)
    try:
        yield _scope.prefix
    finally:
        _scope.prefix, _scope.innermost = saved, innermost


class Variable(Tensor):
    """Mutable, named state read as a tensor by every op.

    Takes TF's arguments (`initial_value`, `name`, `trainable`, `dtype`) and Keras 3's
    (`initializer` with `shape`, `autocast`, `aggregation`, `synchronization`); in Keras's
    positional order, `Variable("zeros", (2, 3))` reads the second argument as the shape.

    Args:
        initial_value: a tensor, array, Python value, or a callable returning one.
        name: a readable name (default 'Variable').
        trainable: whether tapes watch it automatically. Default: True for
            floating-point values, False otherwise; asking for a trainable
            integer or boolean variable is an error (it could never get a gradient).
        dtype: cast the initial value to this dtype.
        initializer: Keras's spelling of the initial value: a value, or an initializer
            (a name such as 'zeros', an initializer object, or a callable (shape, dtype))
            called with `shape`.
        shape: the shape to initialize with (required with an initializer that is not a
            value).
        autocast: whether a layer computing in float16 (mixed_float16) reads this
            variable in float16 (True, Keras's default) or as it is.
        aggregation: Keras's replica aggregation ('none', 'mean', 'sum',
            'only_first_replica'); kept as an attribute (`ks.distribute` averages the
            gradients of trainable variables whatever it is).
        synchronization: Keras's 'auto', 'none', 'on_write' or 'on_read'; kept as an
            attribute (a kerasish process holds one copy of each variable).
        layout: a JAX sharding layout; only None is accepted (kerasish does not shard
            variables).

    Raises:
        ValueError: both `initial_value` and `initializer`, neither, an initializer that
            needs a shape without one, or an unknown aggregation or synchronization.
        NotImplementedError: a `layout`.

    Example:
        >>> import kerasish as ks
        >>> v = ks.Variable(1.0, name="w")
        >>> _ = v.assign_add(2.0)
        >>> float(v)
        3.0
        >>> ks.Variable(initializer="ones", shape=(2,), name="b").numpy()
        array([1., 1.], dtype=float32)
    """

    # `constraint`: None, or a projection w -> w' every optimizer applies after updating this
    # variable (set by `Layer.add_weight(constraint=...)`, as Keras's kernel_constraint)
    __slots__ = ("_name", "_trainable", "_version", "constraint", "_autocast", "_aggregation",
                 "_synchronization")
    created_count = 0  # variables made so far: lets models cache their variable lists

    def __init__(self, initial_value=None, name=None, trainable=None, dtype=None, *,
                 initializer=None, shape=None, autocast=True, aggregation="none",
                 synchronization="auto", layout=None):
        if name is not None and not isinstance(name, str) and shape is None:
            name, shape = None, name  # Keras's order: Variable(initializer, shape)
        initial_value = _initial_value(initial_value, initializer, shape, dtype, name)
        if aggregation not in _AGGREGATIONS:
            raise ValueError(f"Variable '{name}': aggregation must be one of "
                             f"{list(_AGGREGATIONS)}, got {aggregation!r}")
        if synchronization not in _SYNCHRONIZATIONS:
            raise ValueError(f"Variable '{name}': synchronization must be one of "
                             f"{list(_SYNCHRONIZATIONS)}, got {synchronization!r}")
        if layout is not None:
            raise NotImplementedError(
                f"Variable '{name}': layout={layout!r} is a JAX sharding layout; kerasish "
                "keeps each variable whole on one device (see COMPATIBILITY.md)")
        if callable(initial_value):
            initial_value = initial_value()
        value = convert_to_tensor(initial_value, dtype=dtype, _allow_cast=True)._value
        xp = backend.array_module(value)
        super().__init__(xp.array(value, copy=True))  # own the memory: assign is in place
        self._name = _scope.prefix + ("Variable" if name is None else str(name))
        floating = value.dtype.kind == "f"
        if trainable and not floating:
            raise InvalidArgumentError(
                f"Variable '{self._name}': a trainable variable must be floating point, got "
                f"{value.dtype}; pass trainable=False for a counter, or a float dtype "
                "(e.g. dtype=ks.float32) for a parameter"
            )
        self._trainable = floating if trainable is None else bool(trainable)
        self._version = 0
        self.constraint = None
        self._autocast = bool(autocast)
        self._aggregation = aggregation
        self._synchronization = synchronization
        Variable.created_count += 1
        tracer = recording.current_tracer()
        if tracer is not None:  # inside ks.function: only a first trace may make variables
            tracer.created_variable(self, value)

    @property
    def autocast(self) -> bool:
        """Whether a mixed-precision layer reads this variable in its compute dtype."""
        return self._autocast

    @property
    def aggregation(self) -> str:
        """Keras's replica aggregation setting, as given ('none' by default)."""
        return self._aggregation

    @property
    def synchronization(self) -> str:
        """Keras's synchronization setting, as given ('auto' by default)."""
        return self._synchronization

    @property
    def path(self) -> str:
        """Keras 3's variable path: the name, which holds the layer's name ('dense/kernel')."""
        return self._name

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    def numpy(self):
        """A copy of the current value (later assignments do not change it)."""
        tracer = recording.current_tracer()
        if tracer is not None:
            tracer.guard(self)
        value = backend.to_numpy(self._value)
        if value.ndim == 0:
            return value[()]
        return value.copy() if value is self._value else value

    @property
    def value(self) -> Tensor:
        """The current value as a tensor (a recorded read, as `read_value()`).

        Keras 3 reads it as a property (`v.value`), TF as a method (`v.value()`): the
        tensor it gives returns itself when called, so both spellings work.
        """
        read = self.read_value()
        read.__class__ = VariableValue
        return read

    def _converted(self, value, what: str):
        """`value` as an array of this variable's shape, dtype and device, or a clear error."""
        array = value._value if isinstance(value, Tensor) else convert_to_tensor(value)._value
        if array.shape != self._value.shape:
            raise InvalidArgumentError(
                f"Variable '{self._name}'.{what}: value has shape {tuple(array.shape)} but the "
                f"variable has shape {self.shape}; shapes must match exactly"
            )
        target = self._value.dtype
        if array.dtype is not target and not np.can_cast(array.dtype, target, "safe"):
            if not np.can_cast(array.dtype, target, casting="same_kind"):
                raise InvalidArgumentError(
                    f"Variable '{self._name}'.{what}: cannot store {array.dtype} values in a "
                    f"{self.dtype} variable; cast with ks.cast(value, {str(self.dtype)!r})"
                )
            if target.kind in "iu" and array.size:  # a narrower integer type: values must fit
                info = np.iinfo(target)
                low, high = int(array.min()), int(array.max())
                if low < info.min or high > info.max:
                    raise InvalidArgumentError(
                        f"Variable '{self._name}'.{what}: value {high if high > info.max else low}"
                        f" does not fit in the variable's {self.dtype} (range [{info.min}, "
                        f"{info.max}]); create the variable with a wider dtype"
                    )
        if backend.cupy is not None and backend.device_of(array) != backend.device_of(self._value):
            array = backend.to_device(array, backend.device_of(self._value))
        return array

    def assign(self, value) -> Variable:
        """Replace the value in place (same shape); returns the variable.

        Args:
            value: a tensor or value of the variable's shape, converted to its dtype.

        Returns:
            The variable itself.

        Raises:
            InvalidArgumentError: the shape differs from the variable's, the values are of
                another kind (floats into an integer variable), or an integer does not fit.

        Example:
            >>> import kerasish as ks
            >>> v = ks.Variable([1.0, 2.0])
            >>> v.assign([3.0, 4.0])
            <ks.Variable 'Variable' shape=(2,) dtype=float32, numpy=[3., 4.]>
        """
        return self._update_from("assign", value)

    def assign_add(self, delta) -> Variable:
        """Add `delta` in place; returns the variable.

        Args:
            delta: a tensor or value of the variable's shape, converted to its dtype.

        Returns:
            The variable itself.

        Raises:
            InvalidArgumentError: the shape differs from the variable's, the values are of
                another kind (floats into an integer variable), or an integer does not fit.

        Example:
            >>> import kerasish as ks
            >>> ks.Variable([1.0, 2.0]).assign_add([1.0, 1.0]).numpy().tolist()
            [2.0, 3.0]
        """
        return self._update_from("assign_add", delta)

    def assign_sub(self, delta) -> Variable:
        """Subtract `delta` in place; returns the variable.

        Args:
            delta: a tensor or value of the variable's shape, converted to its dtype.

        Returns:
            The variable itself.

        Raises:
            InvalidArgumentError: the shape differs from the variable's, the values are of
                another kind (floats into an integer variable), or an integer does not fit.

        Example:
            >>> import kerasish as ks
            >>> ks.Variable([1.0, 2.0]).assign_sub([1.0, 1.0]).numpy().tolist()
            [0.0, 1.0]
        """
        return self._update_from("assign_sub", delta)

    def _update_from(self, how: str, value) -> Variable:
        for hook in variable_update_hooks:  # a StatelessScope keeps the value it changes
            hook(self)
        tracer = recording.current_tracer()
        if tracer is not None:  # inside ks.function: recorded, to be replayed on every call
            return tracer.update_variable(self, how, value)
        return self._update(how, self._converted(value, how))

    def _update(self, how: str, array) -> Variable:
        """`how` ('assign', 'assign_add' or 'assign_sub') with a converted array, in place.

        Replayed by a CUDA graph (`backend.graph_state`): while it is captured the array
        is updated (into the graph) and the version is not; while it replays, the reverse.
        """
        mode = backend.graph_state.mode
        if mode is not None:
            if mode == "host":
                self._version += 1
                return self
            self._version -= 1  # (the capture changes no host state)
        if how == "assign":
            self._value[...] = array
        elif self._value.ndim == 0:  # much cheaper than += on a 0-d array
            if how == "assign_add":
                self._value[()] = self._value[()] + array
            else:
                self._value[()] = self._value[()] - array
        elif how == "assign_add":
            self._value += array
        else:
            self._value -= array
        self._version += 1
        return self

    def __repr__(self) -> str:
        value = _format_value(self._value, ", ")
        return (
            f"<ks.Variable '{self._name}' shape={self.shape} dtype={self.dtype}, numpy={value}>"
        )

    __str__ = __repr__


_AGGREGATIONS = ("none", "mean", "sum", "only_first_replica")
_SYNCHRONIZATIONS = ("auto", "none", "on_write", "on_read")


def _initial_value(initial_value, initializer, shape, dtype, name):
    """The initial value from TF's `initial_value` or Keras's `initializer` and `shape`."""
    if initializer is None:
        if initial_value is None:
            raise ValueError(f"Variable '{name}': give an initial value (or Keras's "
                             "initializer= with shape=)")
        initializer = initial_value
    elif initial_value is not None:
        raise ValueError(f"Variable '{name}': got both initial_value and initializer; give "
                         "one of them")
    if isinstance(initializer, str) or (callable(initializer) and _takes_shape(initializer)):
        if shape is None:
            raise ValueError(f"Variable '{name}': the initializer {initializer!r} needs a "
                             "shape; pass shape=(...)")
        if isinstance(initializer, str):
            family = sys.modules.get("kerasish.initializers")  # (a floor above: by name)
            if family is None:
                raise ValueError(f"Variable '{name}': initializer names need kerasish's "
                                 "initializers (import kerasish)")
            initializer = family.get(initializer)
        shape = tuple(int(d) for d in shape)
        return initializer(shape, dtype=np.dtype(dtype or "float32"))
    value = initializer() if callable(initializer) else initializer
    if shape is not None and tuple(np.shape(getattr(value, "_value", value))) != tuple(shape):
        raise ValueError(f"Variable '{name}': the initial value has shape "
                         f"{tuple(np.shape(getattr(value, '_value', value)))}, not the "
                         f"shape {tuple(shape)} given")
    return value


def _takes_shape(fn) -> bool:
    """Whether `fn` is an initializer (called with a shape) rather than a value factory."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return bool(parameters) and any(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in parameters.values())


class IndexedSlices:
    """A sparse gradient: rows `indices` of a `dense_shape` tensor hold `values`.

    The gradient of `gather`/`embedding_lookup` with respect to its params is
    one of these, so a step touching 128 rows of a 50,000-row embedding never
    builds a 50,000-row array. Optimizers apply it row by row; anything else
    that needs a dense tensor converts it with `ks.convert_to_tensor`.

    Args:
        values: a tensor of rows, shape (n,) + dense_shape[1:].
        indices: the n row numbers (an integer array or tensor); repeats add up.
        dense_shape: the shape of the dense tensor.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> rows = ks.IndexedSlices(ks.constant([[1.0, 1.0]]), np.array([2]), (3, 2))
        >>> ks.convert_to_tensor(rows).numpy().tolist()
        [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    """

    __slots__ = ("values", "indices", "dense_shape")

    def __init__(self, values: Tensor, indices, dense_shape: tuple):
        self.values = values
        self.indices = indices
        self.dense_shape = tuple(dense_shape)

    @property
    def shape(self) -> tuple:
        return self.dense_shape

    @property
    def dtype(self):
        return self.values.dtype

    def numpy(self):
        return self.to_dense().numpy()

    def __repr__(self) -> str:
        return (
            f"<ks.IndexedSlices: dense_shape={self.dense_shape}, "
            f"rows={len(self.indices)}, dtype={self.dtype}>"
        )


def convert_to_tensor(value, dtype=None, _allow_cast: bool = False) -> Tensor:
    """Return `value` as a Tensor: tensors pass through, everything else is converted.

    NumPy and CuPy arrays keep their dtype and share memory; Python floats
    become float32 and ints int32. New tensors are placed on the current device
    (see `ks.device`).

    Args:
        value: a tensor, variable, `IndexedSlices` (made dense), array (a string array
            too), NumPy scalar, Python number or bool, or nested list of them.
        dtype: the dtype wanted; None: the value's own (see above).

    Returns:
        A tensor (`value` itself when it already is one of that dtype).

    Raises:
        InvalidArgumentError: `value` is a tensor of another dtype than `dtype` (cast
            it with `ks.cast`).
        TypeError: a Python value holds no numbers (a str, a list of mixed objects).

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> ks.convert_to_tensor(2)
        <ks.Tensor: shape=(), dtype=int32, numpy=2>
        >>> ks.convert_to_tensor(np.arange(3, dtype=np.int64))
        <ks.Tensor: shape=(3,), dtype=int64, numpy=[0, 1, 2]>
    """
    if dtype is None and isinstance(value, Tensor):  # the common case, first
        return value
    dtype = as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            if _allow_cast:
                return Tensor(value._value.astype(dtype))
            raise InvalidArgumentError(
                f"convert_to_tensor: requested dtype {dtype} for a tensor of dtype {value.dtype}; "
                f"cast explicitly with ks.cast(x, {str(dtype)!r})"
            )
        return value
    if isinstance(value, IndexedSlices):
        return convert_to_tensor(value.to_dense(), dtype)
    dev = backend.current_device()
    if isinstance(value, np.ndarray) or backend.is_gpu_array(value):
        array = value if dtype is None else value.astype(dtype, copy=False)
    elif isinstance(value, np.generic):
        array = np.asarray(value, dtype=dtype)
    else:
        array = _python_value_to_array(value, dtype)
    if dev[0] == "gpu" or backend.is_gpu_array(array):
        if backend.device_of(array) != dev and not backend.is_gpu_array(value):
            array = backend.to_device(array, dev)
    return Tensor(array)


def constant(value, dtype=None, shape=None) -> Tensor:
    """A new tensor holding a copy of `value`, optionally cast and reshaped.

    Args:
        value: a tensor, array, Python number or nested list.
        dtype: cast to this dtype; None: as `convert_to_tensor` decides.
        shape: the result's shape: a single value is repeated to fill it, otherwise the
            values are reshaped (their number must match).

    Returns:
        A new tensor, not sharing memory with `value`.

    Raises:
        InvalidArgumentError: `value` cannot fill `shape`.

    Example:
        >>> import kerasish as ks
        >>> ks.constant(3.0).dtype
        dtype('float32')
        >>> ks.constant([1, 2, 3, 4], shape=(2, 2)).numpy().tolist()
        [[1, 2], [3, 4]]
    """
    tensor = convert_to_tensor(value, dtype=dtype, _allow_cast=True)
    array = tensor._value
    xp = backend.array_module(array)
    array = xp.array(array, copy=True)
    if shape is not None:
        shape = tuple(shape)
        if array.size == 1:
            array = xp.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise InvalidArgumentError(
                f"constant: a value with {array.size} elements (shape {tuple(array.shape)}) "
                f"cannot fill shape {shape}"
            )
    return Tensor(array)


class VariableValue(Tensor):
    """A tensor read by `Variable.value`: calling it returns itself, so TF's `v.value()` and
    Keras 3's `v.value` give the same tensor."""

    __slots__ = ()

    def __call__(self) -> Tensor:
        return self
