"""`KerasFileEditor`: inspect, edit and resave the weights of a `.keras` or `.weights.h5` file.

The weights are read into nested dicts that follow the file's groups (a layer's `vars`
group becomes the layer's dict of arrays, `{"0": kernel, "1": bias}`), as Keras 3.15's
editor reads them, so the same paths ("layers/dense_2") name the same objects; `save`
writes them back in Keras's layout.
"""

from __future__ import annotations

import collections
import io
import os
import zipfile

import h5py
import numpy as np

from kerasish.core import limits
from kerasish.saving import weights_layout
from kerasish.saving.keras_file import METADATA_NAME, KerasFileError, _read_archive

_MAX_BYTES = 1 << 32  # one array of a file may not claim more than 4 GiB (Keras's limit)


class KerasFileEditor:
    """Open a Keras weights file to inspect it, adapt it to a changed model and resave it.

    Args:
        filepath: a `.keras` archive or a `.weights.h5` file (written by Keras 3 or
            kerasish).

    Raises:
        ValueError: for a name ending in neither `.keras` nor `.weights.h5`, or a file
            holding links or external or virtual datasets (refused, as Keras does).

    Example:
        >>> import os, tempfile
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3, name="d")])
        >>> path = os.path.join(tempfile.mkdtemp(), "m.weights.h5")
        >>> _ = model.save_weights(path)
        >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
        Keras model file '...m.weights.h5'
        >>> {name: value.shape for name, value in editor.weights_dict["layers"]["dense"].items()}
        {'0': (2, 3), '1': (3,)}
    """

    def __init__(self, filepath):
        filepath = os.fspath(filepath)
        self.filepath = filepath
        self.metadata = None
        self.config = None
        self.model = None
        if filepath.endswith(".keras"):
            self.config, weights = _read_archive(filepath)
            with zipfile.ZipFile(filepath) as archive:
                if METADATA_NAME in archive.namelist():
                    self.metadata = limits.load_json(
                        limits.read_member(archive, METADATA_NAME, filepath, KerasFileError,
                                           limit=limits.JSON_BYTES),
                        filepath, KerasFileError, what=METADATA_NAME)
            source = io.BytesIO(weights)
        elif filepath.endswith(".weights.h5"):
            source = filepath
        else:
            raise ValueError(f"KerasFileEditor: expected a .keras or .weights.h5 file, got "
                             f"filepath={filepath!r}")
        with h5py.File(source, "r") as h5file:
            self.weights_dict, self.object_metadata = _extract(h5file, {}, "")
        print(f"Keras model file '{filepath}'")
        if self.metadata:
            print(f"Saved with Keras {self.metadata.get('keras_version', '?')} - date: "
                  f"{self.metadata.get('date_saved', '?')}")

    def summary(self) -> None:
        """Print the weights' structure: each object, and each array's shape and dtype.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3, name="d")])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> ks.saving.KerasFileEditor(path).summary()  # doctest: +ELLIPSIS
            Keras model file '...'
            Weights structure
              > layers
                  └─ dense ('d')
                      ├─ 0: shape=(2, 3), dtype=float32
                      └─ 1: shape=(3,), dtype=float32
        """
        print("Weights structure")
        for line in _structure_lines(self.weights_dict, "  ", self.object_metadata, ""):
            print(line)

    def compare(self, reference_model) -> dict:
        """List every difference between the file and `reference_model`'s weights: objects
        or weights present in one only, and shapes that differ.

        Args:
            reference_model: a built model (kerasish) to compare the file with.

        Returns:
            `{"status": "success" or "error", "error_count": n, "match_count": m}`.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> wider = ks.Sequential([ks.Input((2,)), ks.layers.Dense(4)])
            >>> editor.compare(wider)["error_count"]  # doctest: +ELLIPSIS
            Running comparison
            ...
            2
        """
        print("Running comparison")
        reference = _weights_of(reference_model)
        checked: set = set()
        errors, matches = _compare(self.weights_dict, reference, "", "saved file",
                                   "reference model", checked)
        more, _ = _compare(reference, self.weights_dict, "", "reference model", "saved file",
                           checked)
        errors += more
        print("─────────────────────")
        if errors == 0:
            print("Comparison successful: saved file is compatible with the reference model")
            print(f"    Found {matches} matching weight{'' if matches == 1 else 's'}")
        else:
            print(f"Found {errors} error{'' if errors == 1 else 's'}: saved file is not "
                  "compatible with the reference model")
        return {"status": "success" if errors == 0 else "error", "error_count": errors,
                "match_count": matches}

    # -- editing -------------------------------------------------------------------------
    def _edit_object(self, edit, source_name: str, target_name=None) -> None:
        if target_name is not None and "/" in target_name:
            raise ValueError(f"KerasFileEditor: the new name must be a leaf name, not a path; "
                             f"got {target_name!r}")
        if "/" in source_name:
            *parents, leaf = source_name.split("/")
            holder = self.weights_dict
            for part in parents:
                if part not in holder or not isinstance(holder[part], dict):
                    raise ValueError(f"KerasFileEditor: path {source_name!r} is not in the file")
                holder = holder[part]
            if leaf not in holder:
                raise ValueError(f"KerasFileEditor: path {source_name!r} is not in the file")
            edit(holder, leaf, target_name)
            return
        holders = list(_holders_of(self.weights_dict, source_name))
        if len(holders) > 1:
            raise ValueError(f"KerasFileEditor: name {source_name!r} occurs more than once in the "
                             "file; pass its whole path (editor.summary() lists them)")
        if not holders:
            raise ValueError(f"KerasFileEditor: name {source_name!r} does not appear in the file; "
                             "editor.summary() lists its objects")
        edit(holders[0], source_name, target_name)

    def rename_object(self, object_name, new_name) -> None:
        """Rename an object of the file (a layer).

        Args:
            object_name: its name ("dense_2") or path ("layers/dense_2").
            new_name: the new name (a leaf name, not a path).

        Raises:
            ValueError: for a name not in the file, one found more than once, or a new
                name holding "/".

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.rename_object("dense", "dense_1")
            >>> list(editor.weights_dict["layers"])
            ['dense_1']
        """
        def rename(holder, source, target):
            holder[target] = holder.pop(source)

        self._edit_object(rename, object_name, new_name)

    def delete_object(self, object_name) -> None:
        """Remove an object (a layer) and its weights from the file.

        Args:
            object_name: its name ("dense_2") or path ("layers/dense_2").

        Raises:
            ValueError: for a name not in the file or found more than once.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3), ks.layers.Dense(1)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.delete_object("layers/dense_1")
            >>> list(editor.weights_dict["layers"])
            ['dense']
        """
        self._edit_object(lambda holder, source, target: holder.pop(source), object_name)

    def add_object(self, object_path, weights) -> None:
        """Add an object (a layer) with its weights.

        Args:
            object_path: its whole path ("layers/dense_2").
            weights: a dict of weight names to arrays, `{"0": kernel, "1": bias}`.

        Raises:
            ValueError: for weights that are not a dict, or a parent path not in the file.

        Example:
            >>> import os, tempfile
            >>> import numpy as np, kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.add_object("layers/dense_1", {"0": np.ones((3, 1)), "1": np.zeros(1)})
            >>> list(editor.weights_dict["layers"])
            ['dense', 'dense_1']
        """
        _check_weights_dict(weights)
        *parents, leaf = object_path.split("/")
        holder = self.weights_dict
        for part in parents:
            if part not in holder or not isinstance(holder[part], dict):
                raise ValueError(f"KerasFileEditor: path {'/'.join(parents)!r} is not in the "
                                 "file")
            holder = holder[part]
        holder[leaf] = weights

    def delete_weight(self, object_name, weight_name) -> None:
        """Remove one weight of an object.

        Args:
            object_name: the object's name ("dense_2") or path ("layers/dense_2").
            weight_name: the weight's name ("0").

        Raises:
            ValueError: for an object not in the file, or a weight it does not have.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.delete_weight("dense", "1")
            >>> list(editor.weights_dict["layers"]["dense"])
            ['0']
        """
        def delete(holder, source, target):
            if weight_name not in holder[source]:
                raise ValueError(f"KerasFileEditor: weight {weight_name!r} is not in object "
                                 f"{object_name!r}; its weights are {list(holder[source])}")
            holder[source].pop(weight_name)

        self._edit_object(delete, object_name)

    def add_weights(self, object_name, weights) -> None:
        """Add weights to an object of the file.

        Args:
            object_name: the object's name ("dense_2") or path ("layers/dense_2").
            weights: a dict of weight names to arrays, `{"2": value}`.

        Raises:
            ValueError: for weights that are not a dict, or an object not in the file.

        Example:
            >>> import os, tempfile
            >>> import numpy as np, kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3, use_bias=False)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.add_weights("dense", {"1": np.zeros(3, "float32")})
            >>> list(editor.weights_dict["layers"]["dense"])
            ['0', '1']
        """
        _check_weights_dict(weights)
        self._edit_object(lambda holder, source, target: holder[source].update(weights),
                          object_name)

    def save(self, filepath) -> None:
        """Write the (edited) weights to a `.weights.h5` file in Keras's layout.

        Args:
            filepath: a name ending in `.weights.h5`.

        Raises:
            ValueError: for another name.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3, name="d")])
            >>> folder = tempfile.mkdtemp()
            >>> path = model.save_weights(os.path.join(folder, "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.save(os.path.join(folder, "edited.weights.h5"))
            >>> twin = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3)])
            >>> twin.load_weights(os.path.join(folder, "edited.weights.h5"))
            >>> bool((twin.layers[0].kernel.numpy() == model.layers[0].kernel.numpy()).all())
            True
        """
        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(f"KerasFileEditor.save: expected a .weights.h5 file, got "
                             f"filepath={filepath!r}")
        with h5py.File(filepath, "w") as h5file:
            _write(self.weights_dict, h5file, "")

    def resave_weights(self, filepath) -> None:
        """Keras's other name for `save`.

        Args:
            filepath: a name ending in `.weights.h5`.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(3)])
            >>> folder = tempfile.mkdtemp()
            >>> path = model.save_weights(os.path.join(folder, "m.weights.h5"))
            >>> editor = ks.saving.KerasFileEditor(path)  # doctest: +ELLIPSIS
            Keras model file '...'
            >>> editor.resave_weights(os.path.join(folder, "again.weights.h5"))
            >>> os.path.exists(os.path.join(folder, "again.weights.h5"))
            True
        """
        self.save(filepath)


def _check_weights_dict(weights) -> None:
    if not isinstance(weights, dict):
        raise ValueError("KerasFileEditor: weights must be a dict of weight names (usually "
                         f"'0', '1', ...) to NumPy arrays, got {type(weights).__name__}")


def _holders_of(tree: dict, name: str):
    """Every dict of `tree` (nested) that has the key `name`."""
    for value in tree.values():
        if isinstance(value, dict):
            yield from _holders_of(value, name)
    if name in tree:
        yield tree


def _extract(group, metadata: dict, inner_path: str) -> tuple:
    """(nested dict of arrays, {path: group attributes}) of an h5py group, as Keras's
    editor reads it: a child group with a `vars` group stands for that `vars` group's
    arrays; empty groups are left out; links, external and virtual datasets are refused."""
    attributes = dict(group.attrs.items())
    if attributes:
        metadata[inner_path] = attributes
    result = collections.OrderedDict()
    for key in group.keys():
        path = f"{inner_path}/{key}"
        link = group.get(key, default=None, getclass=True, getlink=True)
        if link in (h5py.ExternalLink, h5py.SoftLink):
            raise ValueError(f"KerasFileEditor: refusing an h5 file with a {link.__name__} "
                             f"(at {path})")
        value = group[key]
        if isinstance(value, h5py.Group):
            if len(value) == 0:
                continue
            if "vars" in value.keys():
                value = value["vars"]
                if len(value) == 0:
                    continue
            result[key], metadata = _extract(value, metadata, path)
            continue
        if not isinstance(value, h5py.Dataset):
            continue
        if value.external or value.is_virtual:
            raise ValueError(f"KerasFileEditor: refusing an h5 file with an external or virtual "
                             f"dataset (at {path})")
        if int(np.prod(value.shape, dtype=object)) * value.dtype.itemsize > _MAX_BYTES:
            raise ValueError(f"KerasFileEditor: the array at {path} claims more than 4 GiB")
        result[key] = value[()]
    return result, metadata


def _write(tree: dict, h5file, inner_path: str) -> None:
    """Write a nested dict as Keras's layout: the arrays of the dict at `path` go into the
    group `path/vars` (names kept), sub-dicts into their own groups."""
    leaves = {}
    for name, value in tree.items():
        if isinstance(value, dict):
            if value:
                _write(value, h5file, f"{inner_path}/{name}" if inner_path else name)
        else:
            leaves[name] = value
    if leaves:
        group = h5file.require_group(f"{inner_path}/vars" if inner_path else "vars")
        for name, value in leaves.items():
            group.create_dataset(name, data=np.asarray(value))


def _weights_of(model) -> dict:
    """`model`'s weights (shapes and dtypes are what matter) in the nested form the editor
    reads, from the layout `save_weights` writes (in memory)."""
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as h5file:
        weights_layout.write_weights(h5file, model)
    with h5py.File(buffer, "r") as h5file:
        return _extract(h5file, {}, "")[0]


def _compare(target: dict, reference: dict, inner_path: str, target_name: str,
             reference_name: str, checked: set) -> tuple:
    """(errors, matches) of `reference`'s entries looked up in `target`, printing each
    difference once (`checked` holds the paths already reported)."""
    errors = matches = 0
    for key, value in reference.items():
        path = f"{inner_path}/{key}"
        if path in checked:
            continue
        if key not in target:
            errors += 1
            checked.add(path)
            kind = "Object" if isinstance(value, dict) else "Weight"
            print(f"...{kind} {path} present in {reference_name}, missing from {target_name}")
            if isinstance(value, dict):
                print(f"    In {reference_name}, {path} contains the following keys: "
                      f"{list(value)}")
        elif isinstance(value, dict):
            if not isinstance(target[key], dict):
                errors += 1
                checked.add(path)
                print(f"...{path} is an object in {reference_name} but a weight in {target_name}")
                continue
            more_errors, more_matches = _compare(target[key], value, path, target_name,
                                                 reference_name, checked)
            errors, matches = errors + more_errors, matches + more_matches
        elif np.shape(target[key]) != np.shape(value):
            errors += 1
            checked.add(path)
            print(f"...Weight shape mismatch for {path}\n    In {reference_name}: "
                  f"shape={np.shape(value)}\n    In {target_name}: shape={np.shape(target[key])}")
        else:
            matches += 1
    return errors, matches


def _structure_lines(tree: dict, prefix: str, metadata: dict, inner_path: str,
                     first: list | None = None):
    """The lines of `summary`'s tree (Keras's drawing: "> " marks the very first line)."""
    first = [True] if first is None else first
    items = list(tree.items())
    for index, (key, value) in enumerate(items):
        path = os.path.join(inner_path, key)
        last = index == len(items) - 1
        connector = "> " if first[0] else ("└─ " if last else "├─ ")
        first[0] = False
        if isinstance(value, dict):
            label = f"{prefix}{connector}{key}"
            name = metadata.get("/" + path, {}).get("name")
            if name is not None:
                label += f" ('{name}')"
            yield label
            yield from _structure_lines(value, prefix + ("    " if last else "│   "), metadata,
                                        path, first)
        else:
            yield f"{prefix}{connector}{key}: shape={np.shape(value)}, dtype={value.dtype}"


__all__ = ["KerasFileEditor"]
