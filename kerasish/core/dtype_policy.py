"""Dtype policies (Keras 3's `keras.DTypePolicy`): which dtype a layer keeps its weights in
and which it computes in, and the autocast scope that casts weights as they are read.

A policy named after a float dtype ('float32', 'float64', 'float16') keeps and computes in
that dtype. 'mixed_float16' keeps weights in float32 and computes in float16: a layer casts
its floating inputs to float16 at its call, and inside the call every variable made with
`autocast=True` is read as float16 (the cast is an op, so gradients reach the float32
variable). 'mixed_bfloat16' is refused: NumPy has no bfloat16 (COMPATIBILITY.md).

On NumPy, float16 arithmetic is emulated by the CPU in software (each op converts to float32
and back), so mixed_float16 makes a CPU step slower, not faster; on a GPU (CuPy) float16
uses the half-precision units. COMPATIBILITY.md gives a measured figure.

The global policy (`set_dtype_policy`) is what layers made without `dtype=` take; unset, it
is the policy of `ks.config.floatx()`.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import primitive, settings
from kerasish.core.tensor import Tensor, convert_to_tensor

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
_BFLOAT16_REASON = (
    "NumPy has no bfloat16 dtype and kerasish's ops run on NumPy/CuPy arrays, so bfloat16 "
    "cannot be computed in; use 'mixed_float16' (float16 compute, float32 weights) instead "
    "(see COMPATIBILITY.md)")


class DTypePolicy:
    """A layer's dtype policy: the dtype of its weights and the dtype it computes in.

    Args:
        name: 'mixed_float16' (compute in float16, weights in float32), or a dtype name
            such as 'float32' or 'float64' (both dtypes that one). None: the global policy's
            name (`ks.mixed_precision.global_policy()`).

    Raises:
        TypeError: `name` is not a string.
        ValueError: `name` is neither a mixed policy nor a dtype.
        NotImplementedError: for 'mixed_bfloat16' or 'bfloat16' (NumPy has no bfloat16).

    Example:
        >>> import kerasish as ks
        >>> policy = ks.mixed_precision.DTypePolicy("mixed_float16")
        >>> policy.compute_dtype, policy.variable_dtype
        ('float16', 'float32')
        >>> ks.layers.Dense(2, dtype=policy).compute_dtype
        'float16'
    """

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._compute_dtype, self._variable_dtype = _parse_name(name)
        self._name = name
        self._quantization_mode = None

    @property
    def name(self) -> str:
        """The policy's name ('mixed_float16', 'float32', ...)."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype a layer casts its floating inputs to and computes in."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype a layer creates its weights in."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """None: kerasish has no quantized policies."""
        return self._quantization_mode

    def convert_input(self, x, autocast: bool, dtype):
        """`x` cast to `dtype` when it is floating, of another dtype, and `autocast` is on.

        Integer and boolean inputs are never cast (as in Keras).

        Args:
            x: a tensor (or array).
            autocast: whether to cast at all.
            dtype: the dtype to cast floating values to.

        Returns:
            The (maybe cast) tensor; arrays are converted to tensors.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> policy = ks.DTypePolicy("mixed_float16")
            >>> policy.convert_input(np.ones(2), True, "float16").dtype
            dtype('float16')
        """
        return cast_floating(x, np.dtype(dtype)) if autocast else x

    def get_config(self) -> dict:
        """`{"name": ...}`, the constructor's argument."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict):
        """A policy from `get_config()`'s dict.

        Args:
            config: ``{"name": ...}``.

        Returns:
            The policy.

        Example:
            >>> import kerasish as ks
            >>> ks.DTypePolicy.from_config({"name": "mixed_float16"})
            <DTypePolicy "mixed_float16">
        """
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other) -> bool:
        return isinstance(other, DTypePolicy) and self._name == other._name

    def __hash__(self) -> int:
        return hash(("DTypePolicy", self._name))


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's other name for `DTypePolicy` (its float, non-quantized policies).

    Args:
        name: as for `DTypePolicy`.

    Example:
        >>> import kerasish as ks
        >>> ks.FloatDTypePolicy("float32") == ks.DTypePolicy("float32")
        True
    """


def _parse_name(name) -> tuple[str, str]:
    if not isinstance(name, str):
        raise TypeError(f"DTypePolicy: the name must be a string such as 'mixed_float16', "
                        f"got {name!r} (of type {type(name).__name__})")
    if "bfloat16" in name:
        raise NotImplementedError(f"dtype policy {name!r}: {_BFLOAT16_REASON}")
    if name in _MIXED:
        return _MIXED[name]
    try:
        dtype = np.dtype("str" if name == "string" else name)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "fiubU":
        raise ValueError(
            f"DTypePolicy: cannot make a dtype policy of {name!r}; valid policies are "
            "'mixed_float16' and the name of a dtype such as 'float32'")
    return (name, name) if name == "string" else (dtype.name, dtype.name)


def set_dtype_policy(policy) -> None:
    """Set the policy that layers made without `dtype=` take (Keras's `set_global_policy`).

    Args:
        policy: a policy name ('mixed_float16', 'float32', ...) or a `DTypePolicy`.

    Raises:
        ValueError: `policy` is neither (naming it).
        NotImplementedError: for 'mixed_bfloat16' (NumPy has no bfloat16).

    Example:
        >>> import kerasish as ks
        >>> ks.mixed_precision.set_global_policy("mixed_float16")
        >>> ks.layers.Dense(2).dtype_policy
        <DTypePolicy "mixed_float16">
        >>> ks.config.set_floatx("float32")  # back to the default (drops the policy)
    """
    if isinstance(policy, str):
        policy = DTypePolicy(policy)
    elif not isinstance(policy, DTypePolicy):
        raise ValueError(
            f"set_dtype_policy: expected the name of a policy (such as 'mixed_float16') or a "
            f"DTypePolicy, got {policy!r} (of type {type(policy).__name__})")
    settings._state["dtype_policy"] = policy


def dtype_policy() -> DTypePolicy:
    """The global dtype policy: the one set last (until `ks.config.set_floatx`), else the
    policy of `ks.config.floatx()`.

    Example:
        >>> import kerasish as ks
        >>> ks.mixed_precision.global_policy()
        <DTypePolicy "float32">
    """
    policy = settings._state["dtype_policy"]
    return DTypePolicy(settings.floatx()) if policy is None else policy


def get(identifier) -> DTypePolicy:
    """A policy from a layer's `dtype=` argument.

    Args:
        identifier: None (the global policy), a `DTypePolicy`, a policy name, a NumPy dtype
            or type, or Keras's config dict ``{"class_name": "DTypePolicy", "config":
            {"name": ...}}``.

    Returns:
        The `DTypePolicy`.

    Raises:
        ValueError: for anything else, naming it.

    Example:
        >>> import numpy as np
        >>> from kerasish.core import dtype_policy
        >>> dtype_policy.get(np.float64)
        <DTypePolicy "float64">
    """
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    if isinstance(identifier, dict) and identifier.get("class_name") in (
            "DTypePolicy", "FloatDTypePolicy"):
        return DTypePolicy(**identifier.get("config", {}))
    try:
        name = np.dtype(identifier).name
    except TypeError:
        name = None
    if name is None or isinstance(identifier, dict):
        raise ValueError(f"cannot read the dtype argument {identifier!r}: expected a dtype "
                         "name, a dtype or a DTypePolicy")
    return DTypePolicy("string" if name.startswith("str") else name)


def cast_floating(x, dtype: np.dtype):
    """`x` cast to `dtype` if it is a floating tensor (or array) of another dtype; anything
    else (integers, booleans, strings, None) is returned as it is."""
    if not isinstance(x, Tensor):
        if getattr(getattr(x, "dtype", None), "kind", None) != "f":
            return x
        x = convert_to_tensor(x)
    current = x._value.dtype
    if current.kind != "f" or current == dtype:
        return x
    return primitive.apply(primitive.REGISTRY["cast"], (x,), {"dtype": dtype})


# -- the autocast scope: variables read in the compute dtype ----------------------------


class AutocastScope:
    """Inside, every floating variable made with `autocast=True` is read in `dtype` (a cast
    op, recorded like any other, so gradients still reach the variable).

    A layer whose policy computes in another dtype than its weights opens one around its
    `call`; `AutocastScope(None)` turns autocasting off inside.

    Args:
        dtype: a floating dtype, or None.

    Raises:
        ValueError: `dtype` is not floating point.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.core.dtype_policy import AutocastScope
        >>> w = ks.Variable([1.0, 2.0])
        >>> with AutocastScope("float16"):
        ...     (w * 2).dtype
        dtype('float16')
    """

    def __init__(self, dtype):
        if dtype is not None:
            dtype = np.dtype(dtype)
            if dtype.kind != "f":
                raise ValueError(f"AutocastScope: the dtype must be floating point, such as "
                                 f"'float16', got {dtype}")
        self.dtype = dtype
        self._outer = None

    def __enter__(self):
        state = primitive.autocast_state
        self._outer = state.dtype
        state.dtype = self.dtype
        return self

    def __exit__(self, *exc_info):
        primitive.autocast_state.dtype = self._outer


def autocast_dtype():
    """The dtype variables are read in now (inside a mixed layer's call), or None."""
    return primitive.autocast_state.dtype
