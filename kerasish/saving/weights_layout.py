"""Keras 3's weights layout in HDF5: where each variable of a model and its optimizer goes.

A `.keras` file's `model.weights.h5` (and a `*.weights.h5` file) holds one
group per object, named by its place in the model, each with a `vars` group
of datasets `0`, `1`, ... in the object's weight-creation order::

    vars                                    (the model's own variables; attrs: name)
    layers/dense/vars/0, layers/dense/vars/1
    layers/dense_1/vars/0, ...              (a list of layers: class name in snake case,
                                             numbered in order, never the layer's name)
    layers/bidirectional/forward_layer/...  (a sublayer held by an attribute: its name)
    optimizer/vars/0 (iterations), 1 (learning rate), 2... (slots, in Keras's order)
    optimizer/inner_optimizer/vars/...      (a LossScaleOptimizer's inner optimizer, again)
    d_optimizer/vars/...                    (any other optimizer held as an attribute, as a
                                             GAN's compile keeps two: its attribute name)

Sequential and functional models list `layers` first; other attributes follow,
public ones in alphabetical order, then private ones, each object written once
(the first time it is reached), as Keras walks them. Reading walks the model
the same way, so a file Keras wrote fills a kerasish model and the other way round.

An optimizer's slots are those of the variables it has updated (or been built for);
the compiled `optimizer` of a model, once started, has slots for all the model's
trainable variables, as Keras builds it. One that has not started holds only
`iterations` (and its learning rate), as in Keras.
"""

from __future__ import annotations

import warnings

import numpy as np

from kerasish.core import tracking
from kerasish.core.errors import KerasishError
from kerasish.core.naming import snake_case
from kerasish.core.tensor import Variable
from kerasish.layers.base import Layer
from kerasish.optimizers.loss_scale_optimizer import LossScaleOptimizer
from kerasish.optimizers.multi_optimizer import MultiOptimizer
from kerasish.optimizers.nadam import Nadam
from kerasish.optimizers.optimizer import Optimizer


class WeightsFileError(KerasishError, ValueError):
    """A weights file does not fit the model, or holds something kerasish refuses to read."""


def own_variables(layer: Layer) -> list:
    """The variables `layer` created itself (not its sublayers'), in creation order."""
    result = list(layer._weights)
    seen = {id(v) for v in result}
    for _, child in layer._tracked_children():
        if isinstance(child, Variable) and id(child) not in seen:
            seen.add(id(child))
            result.append(child)
    return result


def file_variables(layer, writing: bool) -> list:
    """The variables of `layer`'s `vars` group in a weights file: its own variables, or what
    the layer says it stores (a layer with LoRA enabled: Keras's merged kernel in the
    kernel's place and no LoRA factors; `writing` picks the merged value or the variable
    read into)."""
    hook = getattr(layer, "_variables_for_file", None)
    return hook(writing) if hook is not None else own_variables(layer)


def _kerasish_base(layer, names: tuple):
    """The first class of `layer`'s MRO that is one of kerasish's classes `names` (found by
    name, as saving sits below `models`), or None."""
    return next((cls for cls in type(layer).__mro__
                 if cls.__name__ in names and cls.__module__.startswith("kerasish.")), None)


def is_container_model(layer) -> bool:
    """Whether `layer` is a kerasish Sequential or functional model (or derives from one):
    those list their `layers` first when saved, as in Keras."""
    return _kerasish_base(layer, ("Sequential", "Functional")) is not None


def _base_attributes(layer: Layer) -> set:
    """Names every layer (or model) has: never walked for sublayers (Keras's skip set)."""
    return set(dir(_kerasish_base(layer, ("Model",)) or Layer))


def _children(layer) -> list:
    """(path, layer or optimizer) in Keras's walking order: instance attributes and
    properties of the layer's own class (as `dir()` lists them), public ones in
    alphabetical order, then private ones; a list of layers gives `attr/dense`,
    `attr/dense_1`, ... (class names in snake case, numbered in order). Optimizers count
    wherever they are held (a compiled model's `optimizer` too, which checkpoints of the
    model leave out), and have no children here."""
    if not isinstance(layer, Layer):
        return []
    result = _listed("layers", layer.layers) if is_container_model(layer) else []
    base = _base_attributes(layer)
    untracked = set(layer._untracked_attributes)
    names = set(vars(layer)) | {
        name for name in dir(type(layer))
        if isinstance(getattr(type(layer), name, None), property) and name not in untracked
    }
    for attr in sorted(names - base, key=lambda n: ("~" + n) if n.startswith("_") else n):
        try:
            value = getattr(layer, attr)
        except Exception:  # a property that cannot be read now holds nothing to save
            continue
        if isinstance(value, Optimizer):
            result.append((attr, value))
        elif attr in untracked:
            continue
        elif isinstance(value, Layer):
            result.append((attr, value))
        elif isinstance(value, (list, tuple, dict)):
            items = list(value.values()) if isinstance(value, dict) else list(value)
            if any(isinstance(item, Layer) for item in items):
                result.extend(_listed(attr, [item for item in items if isinstance(item, Layer)]))
    return result


def _listed(attr: str, layers: list) -> list:
    """(path, layer) for a list of layers held by `attr`: `attr/dense`, `attr/dense_1`, ..."""
    pairs, used = [], {}
    for item in layers:
        # Keras names the group after the layer's Python class, which for a few layers is
        # not the exported name (GroupQueryAttention is Keras's GroupedQueryAttention)
        name = snake_case(getattr(type(item), "keras_class_name", type(item).__name__))
        used[name] = used.get(name, -1) + 1
        pairs.append((f"{attr}/{name}_{used[name]}" if used[name] else f"{attr}/{name}", item))
    return pairs


def saveable_paths(model: Layer) -> list:
    """(group path, object) for the model and every layer and optimizer in it, in Keras's
    order (a depth-first walk); an optimizer comes with the model it is compiled into, or
    None: (path, (optimizer, model or None))."""
    found = [("", model), *tracking.walk(model, _children, depth_first=True)]
    holders = dict(found)
    result = []
    for path, item in found:
        if isinstance(item, Optimizer):
            holder_path, _, attr = path.rpartition("/")
            holder = holders[holder_path]
            compiled = attr == "optimizer" and getattr(holder, "compiled", False)
            item = (item, holder if compiled else None)
        result.append((path, item))
    return result


def layer_paths(model: Layer) -> list:
    """(group path, layer) for the model and every layer in it, in Keras's order."""
    return [(path, item) for path, item in saveable_paths(model) if isinstance(item, Layer)]


# Keras creates an optimizer's slots in groups: within a group, for each variable in
# turn, one slot per name; the groups one after the other. Optimizers not listed keep
# all their slots in one group (per variable, in `_slot_specs` order).
_KERAS_SLOT_GROUPS = {
    "Adam": [("m", "v"), ("vhat",)],
    "AdamW": [("m", "v"), ("vhat",)],
    "RMSprop": [("rms",), ("momentum",), ("mg",)],
}


def optimizer_variables(optimizer, trainable_variables: list) -> list:
    """The optimizer's variables in Keras's order: iterations, the learning rate (when it is
    a variable), the EMA averages and the gradient accumulators (when kept), then the slots
    of `trainable_variables`, created now if missing, then
    what Keras's `build` makes after them (Nadam's `u_product`). A LossScaleOptimizer:
    its own (unused) step and learning rate, `step_counter` and `dynamic_scale` (made by
    Keras's `build`), then the inner optimizer's variables."""
    if isinstance(optimizer, LossScaleOptimizer):
        own = [optimizer._iterations, optimizer._learning_rate]
        if trainable_variables:
            own += [optimizer.step_counter, optimizer.dynamic_scale]
        return own + optimizer_variables(optimizer.inner_optimizer, trainable_variables)
    if isinstance(optimizer, MultiOptimizer):  # its step and learning rate, then each one's
        optimizer.build(trainable_variables)
        own = [optimizer._iterations, optimizer._learning_rate]
        for inner in optimizer.optimizers:
            own += optimizer_variables(inner, optimizer.variables_of(inner, trainable_variables))
        return own
    optimizer.build(trainable_variables)
    names = optimizer.get_slot_names()
    groups = _KERAS_SLOT_GROUPS.get(type(optimizer).__name__, [tuple(names)])
    listed = {name for group in groups for name in group}
    groups = groups + [tuple(name for name in names if name not in listed)]
    result = [optimizer._iterations]
    if isinstance(optimizer._learning_rate, Variable):
        result.append(optimizer._learning_rate)
    for aux_name in ("average", "gradient_accumulator"):  # Keras's base `build` makes these
        for var in trainable_variables:
            aux = optimizer._aux.get(id(var), {})
            if aux_name in aux:
                result.append(aux[aux_name])
    for group in groups:
        present = [name for name in group if name in names]
        for var in trainable_variables:
            made = optimizer._slots.get(id(var), {})  # Muon: Adam's velocity on some only
            result.extend(optimizer.get_slot(var, name) for name in present if name in made)
    if isinstance(optimizer, Nadam) and trainable_variables:
        result.append(optimizer.u_product)
    return result


def _updated_variables(optimizer) -> list:
    """The variables `optimizer` has slots for (it has updated them or was built for them),
    in the order it met them."""
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # (LossScaleOptimizer)
    return [var for key, var in optimizer._slot_owners.items() if key in optimizer._built]


def optimizer_state(optimizer, compiled_into=None) -> list:
    """What a weights file holds for `optimizer`, in Keras's order: iterations, the learning
    rate, and the slots of the variables it updates. For the compiled optimizer of a model
    (`compiled_into`) that has started, those are all the model's trainable variables."""
    if compiled_into is not None and _updated_variables(optimizer):
        return optimizer_variables(optimizer, compiled_into.trainable_variables)
    return optimizer_variables(optimizer, _updated_variables(optimizer))


# ---------------------------------------------------------------- writing

def write_weights(h5file, model: Layer, include_optimizers: bool = True) -> None:
    """Write `model`'s variables (and, if asked, the state of every optimizer it holds: the
    compiled one, a GAN's two) into an open h5py file."""
    for path, item in saveable_paths(model):
        if isinstance(item, tuple):
            if not include_optimizers:
                continue
            optimizer, compiled_into = item
            variables = optimizer_state(optimizer, compiled_into)
            if isinstance(optimizer, LossScaleOptimizer):  # Keras writes the inner one too
                inner = optimizer.inner_optimizer
                _write_group(h5file, f"{path}/inner_optimizer/vars", inner.name,
                             optimizer_state(inner, compiled_into))
            if isinstance(optimizer, MultiOptimizer):  # Keras writes each sub-optimizer too
                _write_sub_optimizers(h5file, path, optimizer, compiled_into)
        else:
            optimizer, variables = item, file_variables(item, writing=True)
        _write_group(h5file, f"{path}/vars" if path else "vars", optimizer.name, variables)


def _write_sub_optimizers(h5file, path: str, optimizer, compiled_into) -> None:
    """A MultiOptimizer's sub-optimizers under `optimizers/<class in snake case>` (`_1`,
    `_2` for repeats), as Keras's container of them is written."""
    trainable = compiled_into.trainable_variables if compiled_into is not None else \
        _updated_variables(optimizer)
    used: dict = {}
    for inner in optimizer.optimizers:
        name = snake_case(type(inner).__name__)
        if name in used:
            used[name] += 1
            name = f"{name}_{used[name]}"
        else:
            used[name] = 0
        _write_group(h5file, f"{path}/optimizers/{name}/vars", inner.name,
                     optimizer_variables(inner, optimizer.variables_of(inner, trainable)))


def _write_group(h5file, path: str, name: str, variables: list) -> None:
    group = h5file.require_group(path)
    group.attrs["name"] = name
    for index, variable in enumerate(variables):
        group.create_dataset(str(index), data=np.asarray(variable.numpy()))


# ---------------------------------------------------------------- reading

def check_safe(h5file, source: str) -> None:
    """Refuse links to other files, external or virtual datasets, Python-object dtypes, and
    objects reached twice (a hard-link cycle, which a recursive walk would never leave)."""
    import h5py

    problems = []
    seen, pending = {h5file.id}, [("", h5file)]
    while pending:
        prefix, group = pending.pop()
        for key in group:
            name = f"{prefix}{key}"
            link = group.get(key, getlink=True)
            if isinstance(link, (h5py.ExternalLink, h5py.SoftLink)):
                problems.append(f"'{name}' is a {type(link).__name__}")
                continue
            obj = group[key]
            if obj.id in seen:
                problems.append(f"'{name}' links back to an object already seen (a hard-link "
                                "cycle or a shared object)")
                continue
            seen.add(obj.id)
            if isinstance(obj, h5py.Group):
                pending.append((name + "/", obj))
            elif isinstance(obj, h5py.Dataset):
                if obj.external or obj.is_virtual:
                    problems.append(f"dataset '{name}' stores its data in other files")
                elif obj.dtype.kind not in "biuf" or obj.dtype.hasobject:
                    problems.append(f"dataset '{name}' has dtype {obj.dtype}, not a number type")
    if problems:
        raise WeightsFileError(
            f"{source}: refusing to read this weights file: " + "; ".join(problems)
            + ". Weights files only hold numeric arrays."
        )


def _read_group(h5file, path: str, variables: list, what: str, source: str) -> list:
    """[(variable, array)] for the datasets under `path`/vars, checked against `variables`."""
    group_path = f"{path}/vars" if path else "vars"
    group = h5file.get(group_path)
    count = 0 if group is None else len(group)
    if count != len(variables):
        raise WeightsFileError(
            f"{source}: {what} has {len(variables)} variables but the file has {count} under "
            f"'{group_path}'"
            + (" (build the model, e.g. by calling it on a batch, before loading weights)"
               if count and not variables else "")
        )
    datasets = [group[str(index)] for index in range(len(variables))]
    for index, (variable, dataset) in enumerate(zip(variables, datasets)):
        # the declared shape, before any data is read: a huge one is never allocated
        if tuple(dataset.shape) != tuple(variable.shape):
            raise WeightsFileError(
                f"{source}: variable {index} of {what} ('{variable.name}') has shape "
                f"{tuple(variable.shape)} but '{group_path}/{index}' in the file has shape "
                f"{tuple(dataset.shape)}"
            )
    return [(variable, dataset[()]) for variable, dataset in zip(variables, datasets)]


def _is_optimizer_group(group) -> bool:
    """Whether a `vars` group holds an optimizer's state: its first variable is a scalar
    integer, the optimizer's `iterations` (as Keras and kerasish write it)."""
    first = group.get("0")
    return first is not None and first.shape == () and first.dtype.kind in "iu"


def unused_groups(h5file, model: Layer) -> list:
    """Paths of the file's non-empty `vars` groups that `model` has no layer for (optimizer
    groups aside: a model loaded without its compile settings has no optimizer to fill)."""
    expected = {path for path, _ in saveable_paths(model)}
    holders = []

    def visit(name, obj):
        if name.rsplit("/", 1)[-1] == "vars" and len(obj) and not _is_optimizer_group(obj):
            holders.append(name[: -len("/vars")] if "/" in name else "")

    h5file.visititems(visit)
    return sorted(path for path in holders if path not in expected)


def has_unmade_weights(h5file, model: Layer) -> bool:
    """Whether the file holds more weights than the model has made so far: groups it has no
    layer for, or more variables for a layer than it created (weights made at a first call)."""
    if unused_groups(h5file, model):
        return True
    for path, layer in layer_paths(model):
        group = h5file.get(f"{path}/vars" if path else "vars")
        if group is not None and len(group) > len(own_variables(layer)):
            return True
    return False


def _check_no_unused_groups(h5file, model: Layer, source: str) -> None:
    """Refuse a file holding weights this model has no place for (another architecture)."""
    unused = unused_groups(h5file, model)
    if unused:
        expected = sorted(path for path, _ in layer_paths(model) if path)
        raise WeightsFileError(
            f"{source}: the file holds weights for {', '.join(repr(p) for p in unused)}, which "
            f"model '{model.name}' does not have (its layers are at {expected}); it was saved "
            "from another architecture, or a layer creates its weights only when first called "
            "(call the model on a batch before loading)"
        )


def _optimizer_pairs(h5file, path: str, optimizer, compiled_into, source: str) -> list:
    """[(variable, array)] for an optimizer's group, or [] (with a warning, as Keras skips
    it) when the file holds slots for an optimizer that has not started and is not the
    compiled one, whose variables are then unknown."""
    group = h5file[f"{path}/vars"]
    what = f"optimizer '{optimizer.name}' ({type(optimizer).__name__}, at '{path}')"
    head = optimizer_variables(optimizer, [])
    if compiled_into is not None and len(group) > len(head):
        variables = optimizer_variables(optimizer, compiled_into.trainable_variables)
    else:
        variables = optimizer_state(optimizer)
    if len(group) > len(variables) == len(head):
        warnings.warn(
            f"{source}: the state of {what} was not loaded: the file holds {len(group)} "
            f"variables (slots included) but the optimizer has not been built, so which "
            "variables its slots belong to is unknown. Build it before loading, e.g. in "
            "compile_from_config: optimizer.build(sub_model.trainable_variables)",
            stacklevel=4,
        )
        return []
    if len(variables) > len(group) == len(head):
        warnings.warn(
            f"{source}: the state of {what} was not loaded: the file holds only its "
            f"{len(group)} step and learning-rate variables (it was saved before the "
            "optimizer's first step), and this optimizer has started; its state is kept",
            stacklevel=4,
        )
        return []
    return _read_group(h5file, path, variables, what, source)


def read_weights(h5file, model: Layer, include_optimizers: bool = True,
                 source: str = "weights file", skip_mismatch: bool = False) -> None:
    """Assign the variables of `model` (and, if asked, of the optimizers it holds whose groups
    the file has) from an open h5py file in Keras's layout; nothing is assigned unless all
    fit, or, with `skip_mismatch` (Keras's), a layer whose variables do not fit (count or
    shapes) keeps its values, with a warning naming it."""
    check_safe(h5file, source)
    pairs = []
    _check_no_unused_groups(h5file, model, source)
    for path, item in saveable_paths(model):
        if isinstance(item, tuple):
            if include_optimizers and f"{path}/vars" in h5file:
                pairs.extend(_optimizer_pairs(h5file, path, *item, source))
            continue
        what = f"layer '{item.name}' ({type(item).__name__}, at '{path or '/'}')"
        if not path and "vars" not in h5file and not own_variables(item):
            continue
        try:
            pairs.extend(_read_group(h5file, path, file_variables(item, writing=False),
                                     what, source))
        except WeightsFileError as exc:
            if not skip_mismatch:
                raise
            warnings.warn(f"skip_mismatch: {exc}; that layer keeps its values", stacklevel=3)
    for variable, array in pairs:
        variable.assign(array.astype(variable.dtype, copy=False))
    for _, item in saveable_paths(model):  # LoRA factors zeroed: the file's kernel is merged
        reset = getattr(item, "_after_weights_loaded", None)
        if reset is not None and not isinstance(item, tuple):
            reset()
