"""Object-based checkpoints in HDF5, written atomically.

Values are named by their path in the object graph reachable from the
`Checkpoint`'s keyword arguments (`model/dense1/kernel`, `optimizer/iterations`),
never by creation order or global names; a variable reachable along several
paths is stored once, under the shortest. Optimizer slots are stored under
`<optimizer path>/.slots/<variable path>/<slot name>`, so they follow their
variable, not its Python identity.

File layout (readable with plain h5py; see README.md, "Checkpoint file format")::

    /                     attrs: kerasish_format = "kerasish-checkpoint", format_version = 1,
                                 written_at (Unix time)
    /values/<path>        one dataset per value, e.g. /values/model/dense1/kernel

Every file is written to a temporary name in the same directory
(`.<name>.<host>-<pid>.<random>.tmp`), flushed, fsynced and renamed into
place; the directory index (`checkpoint`, JSON, paths relative to the
directory) is updated last. A crash at any moment leaves the previous
checkpoint and the index readable, and the index never names a partial file;
the temporaries of dead processes are removed by the next write to the directory
(a checkpoint, an index, `model.save`, `save_weights`) or CheckpointManager.

A restore first checks every value against its variable (shape, dtype) and
raises one CheckpointError listing all mismatches before reading anything,
then reads every value (verifying checksums) before assigning any: a
mismatch or damaged data leaves every variable as it was. Values for
variables that do not exist yet stay in the (open) file until the variables
are created and their shapes checked (`kerasish.core.tracking.notify_created`,
called when a layer is built and when an optimizer creates a slot).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import reprlib
import shutil
import socket
import tempfile
import time
import warnings
import zlib

import h5py
import numpy as np

from kerasish.core import backend, limits, tracking
from kerasish.core.errors import KerasishError
from kerasish.core.tensor import Variable
from kerasish.core.tracking import Trackable, named_trackables, named_variables

FORMAT = "kerasish-checkpoint"
FORMAT_VERSION = 1
INDEX_NAME = "checkpoint"
SLOTS = ".slots"


class CheckpointError(KerasishError, ValueError):
    """A checkpoint file is missing, unreadable, foreign, or does not fit the program."""


# ---------------------------------------------------------------- atomic files


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# Temporary files are named `.<target>.<host>-<pid>.<random>.tmp`, so that the
# leftovers of a killed process can be recognised and removed later.
_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname()) or "host"
_TEMPORARY = re.compile(r"^\.(?P<target>.+)\.(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)\.[^.]+\.tmp$")


def remove_stale_temporaries(directory) -> list:
    """Delete temporary files left in `directory` by killed kerasish writers on this host.

    Only files named like our temporaries whose writing process no longer
    exists are removed; returns their names.
    """
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        match = _TEMPORARY.match(name)
        if not match or match["host"] != _HOST or _process_alive(int(match["pid"])):
            continue
        try:
            os.remove(os.path.join(directory, name))
            removed.append(name)
        except OSError:
            pass
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def atomic_write(path: str, write) -> None:
    """Call `write(temporary_path)`, fsync the result, then rename it to `path`; then remove
    the temporaries that killed writers left in the directory (`remove_stale_temporaries`)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.{_HOST}-{os.getpid()}.", suffix=".tmp", dir=directory
    )
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 would hide checkpoints from others
        write(temporary)
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
    _fsync_directory(directory)
    remove_stale_temporaries(directory)  # those of writers killed before, never live ones


_COMPACT_BYTES = 8192  # values up to this size live inside their (checksummed) object header
_CHECKSUM = "crc32"  # attribute of larger values: the CRC-32 of their bytes in C order
_FILE_OVERHEAD = 64 << 10  # superblock and root metadata, generously
_VALUE_OVERHEAD = 4 << 10  # a value's object header, name and attributes, generously


def _checksummed_dataset(group, key: str, array) -> None:
    """Store `array` so that any damage to it fails the read instead of restoring wrong values.

    HDF5 1.8 object headers carry a checksum: small values are stored inside
    theirs (compact layout); larger ones contiguously, with the CRC-32 of their
    bytes as an attribute of that header (checked by `_read_all`). Not chunked:
    HDF5 crashes the process when a chunked write meets a full disk, while a
    contiguous one raises ENOSPC. (Files written before kept Fletcher-32-checked
    chunks, which HDF5 still verifies while reading.)
    """
    array = np.asarray(array)
    if array.nbytes <= _COMPACT_BYTES:
        layout = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        layout.set_layout(h5py.h5d.COMPACT)
        group.create_dataset(key, data=array, dcpl=layout)
    else:
        dataset = group.create_dataset(key, data=array)
        dataset.attrs[_CHECKSUM] = np.uint32(zlib.crc32(np.ascontiguousarray(array)))


def _write_values(path: str, values: dict, attrs: dict) -> None:
    """Write a checkpoint file; a full disk is a CheckpointError saying the space needed,
    found before writing when the disk already lacks it."""
    needed = _FILE_OVERHEAD + sum(_VALUE_OVERHEAD + np.asarray(v).nbytes
                                  for v in values.values())
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise CheckpointError(
            f"not enough disk space to write checkpoint {path!r}: it needs about {needed:,} "
            f"bytes and {free:,} are free in {directory!r}"
        )

    def write(temporary):
        # libver v108: metadata (superblock, object headers, chunk indexes) with checksums
        with h5py.File(temporary, "w", libver="v108") as handle:
            handle.attrs["kerasish_format"] = FORMAT
            handle.attrs["format_version"] = FORMAT_VERSION
            for key, value in attrs.items():
                handle.attrs[key] = value
            group = handle.create_group("values")
            for key, array in values.items():
                _checksummed_dataset(group, key, array)
            handle.flush()

    try:
        atomic_write(path, write)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        raise CheckpointError(
            f"the disk filled up while writing checkpoint {path!r} (it needs about {needed:,} "
            f"bytes; {shutil.disk_usage(directory).free:,} are free in {directory!r} now); "
            "the previous checkpoints are intact"
        ) from None


# what h5py raises for damaged files: its own OSError/RuntimeError, and the
# KeyError/ValueError/TypeError of objects whose metadata no longer makes sense
_DAMAGE = (OSError, RuntimeError, KeyError, ValueError, TypeError)


def _datasets_under(path: str, group) -> dict:
    """{relative path: h5py.Dataset} below `group`, following hard links only.

    Soft and external links, external or virtual storage (data kept in
    another file) and objects met twice (a cycle of hard links) are refused:
    a value restored from somewhere else, or silently skipped, would leave a
    program with values nobody saved.
    """
    datasets, seen, pending = {}, {group.id}, [("", group)]
    while pending:
        prefix, current = pending.pop()
        for name in current:
            where = f"values/{prefix}{name}"
            link = current.get(name, getlink=True)
            if not isinstance(link, h5py.HardLink):
                kind = {h5py.SoftLink: "a soft link", h5py.ExternalLink: "an external link (to "
                        "another file)"}.get(type(link), f"a {type(link).__name__}")
                raise CheckpointError(
                    f"checkpoint {path!r}: {where!r} is {kind}; checkpoints hold their values "
                    "directly, and links are not followed"
                )
            item = current[name]
            if item.id in seen:
                raise CheckpointError(f"checkpoint {path!r}: {where!r} links back to an object "
                                      "already seen (a cycle or a shared object)")
            seen.add(item.id)
            if isinstance(item, h5py.Group):
                pending.append((f"{prefix}{name}/", item))
            elif isinstance(item, h5py.Dataset):
                if item.external or item.is_virtual:
                    raise CheckpointError(
                        f"checkpoint {path!r}: {where!r} keeps its data in another file "
                        "(external or virtual storage); it is not read"
                    )
                datasets[f"{prefix}{name}"] = item
            else:
                raise CheckpointError(f"checkpoint {path!r}: {where!r} is a "
                                      f"{type(item).__name__}, not a value")
    return datasets


def _open(path: str):
    """(open h5py.File, {path: h5py.Dataset}) of a checkpoint, with clear errors for bad files."""
    if not os.path.exists(path):
        raise CheckpointError(
            f"checkpoint not found: {path!r}; ks.latest_checkpoint(directory) returns the newest "
            "complete checkpoint of a directory"
        )
    if os.path.isdir(path):
        raise CheckpointError(
            f"{path!r} is a directory, not a checkpoint file; ks.latest_checkpoint({path!r}) "
            "returns the newest checkpoint in it"
        )
    if os.path.getsize(path) == 0:
        raise CheckpointError(f"checkpoint {path!r} is empty (0 bytes): it is not a checkpoint")
    try:
        handle = h5py.File(path, "r")
    except _DAMAGE as exc:
        raise CheckpointError(
            f"checkpoint {path!r} is not a readable HDF5 file (truncated, corrupted, or another "
            f"format): {exc}"
        ) from None
    try:
        if handle.attrs.get("kerasish_format") != FORMAT or "values" not in handle:
            raise CheckpointError(
                f"{path!r} is an HDF5 file but not a kerasish checkpoint (no "
                f"'kerasish_format' attribute or 'values' group)"
            )
        root = handle.get("values", getlink=True)
        if not isinstance(root, h5py.HardLink) or not isinstance(handle["values"], h5py.Group):
            raise CheckpointError(f"checkpoint {path!r}: 'values' is not a group (a link?); "
                                  "links are not followed")
        return handle, _datasets_under(path, handle["values"])
    except BaseException as exc:
        handle.close()
        if isinstance(exc, _DAMAGE) and not isinstance(exc, CheckpointError):
            raise CheckpointError(f"checkpoint {path!r} is damaged: {exc}") from None
        raise


@contextlib.contextmanager
def open_checkpoint(path):
    """Open a checkpoint file and yield {path: h5py.Dataset}, with clear errors for bad files.

    Reading a dataset inside the block may still find damage; such errors
    (and bad files) are raised as CheckpointError naming the file.
    """
    handle, datasets = _open(os.fspath(path))
    with handle:
        try:
            yield datasets
        except (OSError, RuntimeError) as exc:  # h5py found damage while reading the data
            raise CheckpointError(f"checkpoint {path!r} is damaged: {exc}") from None


def read_values(path) -> dict:
    """{path: array} of every value in a checkpoint file, with clear errors for bad files."""
    path = os.fspath(path)
    with open_checkpoint(path) as datasets:
        return _read_all(path, datasets.items())


def _read_all(path: str, named_datasets) -> dict:
    """{key: array} read from (key, h5py.Dataset) pairs; damage is a CheckpointError."""
    arrays = {}
    try:
        for key, dataset in named_datasets:
            arrays[key] = np.asarray(dataset[()])
            expected = dataset.attrs.get(_CHECKSUM)
            if expected is not None and zlib.crc32(np.ascontiguousarray(arrays[key])) != expected:
                raise CheckpointError(f"checkpoint {path!r} is damaged: the data of {key!r} does "
                                      "not match its CRC-32")
    except _DAMAGE as exc:
        if isinstance(exc, CheckpointError):
            raise
        raise CheckpointError(f"checkpoint {path!r} is damaged: {exc}") from None
    return arrays


# ---------------------------------------------------------------- the object graph


def _optimizer_like(obj) -> bool:
    return callable(getattr(obj, "slot_variables", None))


def _graph_values(root) -> dict:
    """{path: variable} for every variable and optimizer slot reachable from `root`."""
    named = dict(named_variables(root))
    paths = {id(v): p for p, v in named.items()}
    for opt_path, obj in named_trackables(root):
        if not _optimizer_like(obj):
            continue
        for var, slot_name, slot in obj.slot_variables():
            if id(var) in paths:
                named[f"{opt_path}/{SLOTS}/{paths[id(var)]}/{slot_name}"] = slot
    return named


def _mismatch(path: str, variable: Variable, array) -> str | None:
    """Why `array` (an array or h5py dataset) cannot be restored into `variable`, or None.

    Only the declared shape and dtype are looked at, so a value declaring a
    huge shape is refused before anything of it is read.
    """
    if tuple(array.shape) != variable.shape:
        return (f"shape mismatch for {path!r}: the checkpoint has shape {tuple(array.shape)} "
                f"but the program's variable has shape {variable.shape}")
    if array.dtype.kind not in "biufc":
        return (f"dtype mismatch for {path!r}: the checkpoint has {array.dtype}, not numbers, "
                f"but the program's variable is {variable.dtype}")
    if array.dtype != variable.dtype and not np.can_cast(array.dtype, variable.dtype, "same_kind"):
        return (f"dtype mismatch for {path!r}: the checkpoint has {array.dtype} but the "
                f"program's variable is {variable.dtype}")
    return None


def _assign_all(pairs: list, path: str) -> None:
    """Assign each (key, variable, h5py dataset) of the file `path`, all or nothing.

    Every declared shape and dtype is checked first; then every value is read
    (checksums are verified while reading); only then is anything assigned, so
    a mismatch or damage anywhere leaves every variable as it was.
    """
    problems = [p for p in (_mismatch(*pair) for pair in pairs) if p]
    if problems:
        raise CheckpointError(
            f"restore from {path!r}: {len(problems)} value(s) do not fit the program, so none "
            f"of the {len(pairs)} value(s) due now was restored:\n  " + "\n  ".join(problems)
        )
    arrays = _read_all(path, [(key, dataset) for key, _, dataset in pairs])
    for key, variable, _ in pairs:
        variable.assign(arrays[key].astype(variable.dtype, copy=False))


class LoadStatus:
    """What a restore matched; values for objects not created yet are applied when they are."""

    def __init__(self, root, path: str, handle, datasets: dict):
        self._root = root
        self.path = path
        self._keys = sorted(datasets)
        self.matched: list[str] = []
        self._values: dict = {}  # h5py datasets not read yet, kept for objects created later
        self._file = None  # the open file while values wait for their variables
        self._expect_partial = True  # no note about unused values if this constructor fails
        graph = _graph_values(root)
        pairs = [(key, graph[key], datasets[key]) for key in self._keys if key in graph]
        _assign_all(pairs, path)
        self.matched = [key for key, _, _ in pairs]
        # Read only once their variable exists and its shape is checked: a value declaring
        # a huge shape is never allocated. The open file keeps them readable even if the
        # file is replaced or removed meanwhile (a CheckpointManager pruning it).
        self._values = {key: datasets[key] for key in self._keys if key not in graph}
        self._file = handle if self._values else None
        self._expect_partial = False
        if self.pending:
            # Kept alive by the restored objects themselves (not by a global list), so a
            # restore left pending never outlives the model it waits for.
            for obj in self._holders():
                obj.__dict__.setdefault("_pending_restores", []).append(self)
            tracking.observe_creation(self)

    def _holders(self) -> list:
        return [obj for _, obj in self._root._tracked_children() if isinstance(obj, Trackable)]

    def objects_created(self) -> None:
        """Assign the values due to variables created since the last look (deferred restore)."""
        if self._values:
            pairs = [(key, variable, self._values[key])
                     for key, variable in _graph_values(self._root).items()
                     if key in self._values]
            try:
                _assign_all(pairs, self.path)
            except CheckpointError:
                # refused once: the values are dropped, so that creating other variables
                # later does not raise the same error again
                for key, _, _ in pairs:
                    del self._values[key]
                self._stop_if_done()
                raise
            for key, _, _ in pairs:
                self.matched.append(key)
                del self._values[key]
        self._stop_if_done()

    def _stop_if_done(self) -> None:
        if not self.pending:
            self._close()
            tracking.stop_observing_creation(self)
            for obj in self._holders():
                waiting = obj.__dict__.get("_pending_restores", [])
                if self in waiting:
                    waiting.remove(self)

    @property
    def pending(self) -> list:
        """Values in the file not yet assigned to anything (objects not created, or absent)."""
        return sorted(self._values)

    unmatched = pending  # the word for values in the file that nothing took

    @property
    def missing(self) -> list:
        """Variables in the program that the file has no value for."""
        return sorted(set(_graph_values(self._root)) - set(self._keys))

    def report(self) -> str:
        """A readable account of matched, pending/unmatched and missing values."""
        lines = [f"checkpoint {self.path!r}: {len(self.matched)} matched, "
                 f"{len(self.pending)} in the file but not (yet) in the program, "
                 f"{len(self.missing)} in the program but not in the file"]
        lines += [f"  unmatched (file only): {k}" for k in self.pending]
        lines += [f"  missing (program only): {k}" for k in self.missing]
        return "\n".join(lines)

    def assert_consumed(self) -> "LoadStatus":
        """Raise unless every value in the file was used and every program variable restored."""
        if self.pending or self.missing:
            raise CheckpointError(
                "assert_consumed failed (a checkpoint written for another model, or a partly "
                "built one?)\n" + self.report()
            )
        return self

    def assert_existing_objects_matched(self) -> "LoadStatus":
        """Raise unless every variable that exists now got a value from the file."""
        if self.missing:
            raise CheckpointError("assert_existing_objects_matched failed\n" + self.report())
        return self

    def assert_nontrivial_match(self) -> "LoadStatus":
        if not self.matched:
            raise CheckpointError("nothing in the program matched the checkpoint\n" + self.report())
        return self

    def expect_partial(self) -> "LoadStatus":
        """Silence the note about unused values (e.g. optimizer slots, loading for inference)."""
        self._expect_partial = True
        return self

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):
        try:
            self._close()
            if not self._expect_partial and self.pending:
                warnings.warn(
                    f"checkpoint {self.path!r}: {len(self.pending)} value(s) were never used "
                    f"(e.g. {self.pending[0]}); call status.expect_partial() if that is intended",
                    stacklevel=2,
                )
        except Exception:
            pass


class InitializationOnlyStatus:
    """What `Checkpoint.restore(None)` returns: nothing was restored (a first run).

    The variables keep their initial values; `expect_partial` is harmless and
    the assertions raise a CheckpointError that says no checkpoint was given.
    """

    path = None
    matched: list = []
    pending: list = []
    unmatched = pending

    def __init__(self, root):
        self._root = root

    @property
    def missing(self) -> list:
        """Every variable of the program: none got a value."""
        return sorted(_graph_values(self._root))

    def report(self) -> str:
        return (f"restore(None): no checkpoint was given (latest_checkpoint found none: a first "
                f"run?), so nothing was restored; the program's {len(self.missing)} variable(s) "
                "keep their initial values")

    def _fail(self, check: str):
        raise CheckpointError(f"{check} failed: {self.report()}")

    def assert_consumed(self):
        """Raise: nothing was restored."""
        self._fail("assert_consumed")

    def assert_existing_objects_matched(self):
        """Raise: nothing was restored."""
        self._fail("assert_existing_objects_matched")

    def assert_nontrivial_match(self):
        """Raise: nothing was restored."""
        self._fail("assert_nontrivial_match")

    def expect_partial(self) -> "InitializationOnlyStatus":
        """Nothing to silence; returns the status."""
        return self


# ---------------------------------------------------------------- Checkpoint


class Checkpoint(Trackable):
    """Save and restore the state of the objects passed as keyword arguments.

    Values are stored under object-graph paths (`model/dense/kernel`), so a checkpoint
    restores into a new program that builds the same objects under the same names.

    Args:
        **objects: name -> variable, layer, model, optimizer, metric, generator, or a
            list/tuple/dict of them.

    Raises:
        ValueError: a name is private or one of Checkpoint's own attributes.
        TypeError: a value is not trackable.

    Example:
        >>> import kerasish as ks, tempfile, os
        >>> x = ks.Variable(10.)
        >>> checkpoint = ks.Checkpoint(x=x)
        >>> _ = x.assign(2.)
        >>> path = checkpoint.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
        >>> _ = x.assign(11.)
        >>> _ = checkpoint.restore(path)
        >>> float(x)
        2.0
    """

    def __init__(self, **objects):
        for name, obj in objects.items():
            if name == "save_counter" or hasattr(type(self), name) or name.startswith("_"):
                raise ValueError(
                    f"Checkpoint: {name!r} cannot name an object (it is a Checkpoint attribute "
                    "or private); choose another keyword"
                )
            if not isinstance(obj, (Trackable, Variable, list, tuple, dict)):
                raise TypeError(
                    f"Checkpoint: {name}={type(obj).__name__} is not trackable; pass variables, "
                    "layers, models, optimizers, metrics or containers of them"
                )
            setattr(self, name, obj)
        self.save_counter = Variable(0, name="save_counter", dtype=np.int64, trainable=False)

    def _values(self) -> dict:
        # the variables' own host arrays (no copy on the CPU): h5py writes from them directly
        return {path: backend.to_numpy(var._value) for path, var in _graph_values(self).items()}

    def write(self, path) -> str:
        """Write a checkpoint to exactly `path` (no numbering, no index update).

        The file appears complete or not at all (written to a temporary file, then
        renamed).

        Args:
            path: the file to write (a string or path-like).

        Returns:
            `path`, as a string.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> path = ks.Checkpoint(w=ks.Variable(1.0)).write(
            ...     os.path.join(tempfile.mkdtemp(), "w.h5"))
            >>> os.path.basename(path)
            'w.h5'
        """
        path = os.fspath(path)
        _write_values(path, self._values(), {"written_at": time.time()})
        return path

    def save(self, file_prefix) -> str:
        """Write `<file_prefix>-<N>.h5` (N = save_counter) and make it the directory's latest.

        Args:
            file_prefix: the directory and name the number is appended to.

        Returns:
            The path written; `ks.latest_checkpoint(directory)` returns it from now on.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> checkpoint = ks.Checkpoint(w=ks.Variable(1.0))
            >>> prefix = os.path.join(tempfile.mkdtemp(), "ckpt")
            >>> [os.path.basename(checkpoint.save(prefix)) for _ in range(2)]
            ['ckpt-1.h5', 'ckpt-2.h5']
        """
        self.save_counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(self.save_counter)}.h5"
        try:
            self.write(path)
        except BaseException:
            self.save_counter.assign_sub(1)  # the numbering stays as if this save never happened
            raise
        update_index(os.path.dirname(os.path.abspath(path)), path)
        return path

    def read(self, path) -> LoadStatus:
        """Restore from exactly `path`; values for objects not yet created wait for them.

        Args:
            path: a checkpoint file (as returned by `write` or `save`).

        Returns:
            A `LoadStatus` (see `restore`).

        Raises:
            CheckpointError: for a missing, damaged or foreign file, or values
                that do not fit the program (nothing is assigned then).

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> w = ks.Variable([1.0, 2.0])
            >>> path = ks.Checkpoint(w=w).write(os.path.join(tempfile.mkdtemp(), "w.h5"))
            >>> _ = w.assign([0.0, 0.0])
            >>> status = ks.Checkpoint(w=w).read(path).assert_consumed()
            >>> w.numpy().tolist()
            [1.0, 2.0]
        """
        path = os.fspath(path)
        handle, datasets = _open(path)
        try:
            status = LoadStatus(self, path, handle, datasets)
        except BaseException:
            handle.close()
            raise
        if status._file is None:
            handle.close()
        return status

    def restore(self, save_path) -> LoadStatus | InitializationOnlyStatus:
        """Restore from `save_path` (as returned by `save` or `latest_checkpoint`).

        `None` (what `latest_checkpoint` returns on a first run) restores
        nothing and returns a status whose assertions fail with that reason,
        so `ckpt.restore(manager.latest_checkpoint)` starts a fresh run or
        resumes an old one, as in TF.

        Values are matched to variables by object path. Those whose variables
        do not exist yet (a model not built, optimizer slots not made) are kept
        and assigned when the variables are created.

        Args:
            save_path: a checkpoint file, or None.

        Returns:
            A status: `assert_consumed()` checks that every value in the file
            was used and every variable restored, `assert_existing_objects_matched()`
            that every variable existing now got a value, `expect_partial()`
            silences the note about values never used.

        Raises:
            CheckpointError: for a missing, damaged or foreign file, or values
                whose shape or dtype do not fit their variables (naming each path
                and both shapes; nothing is assigned then).

        Example:
            >>> import kerasish as ks
            >>> status = ks.Checkpoint(w=ks.Variable(1.0)).restore(None)
            >>> status.expect_partial() is status
            True
        """
        if save_path is None:
            return InitializationOnlyStatus(self)
        return self.read(save_path)


# ---------------------------------------------------------------- directory index


def _index_path(directory: str) -> str:
    return os.path.join(directory, INDEX_NAME)


def read_index(directory) -> dict:
    """The directory's index (JSON), with paths relative to the directory::

        {"latest": name or None, "checkpoints": [names, oldest first], "times": [save times],
         "preserved": [names kept for good by keep_checkpoint_every_n_hours],
         "last_preserved_time": time or absent}
    """
    path = _index_path(os.fspath(directory))
    if not os.path.exists(path):
        return {"latest": None, "checkpoints": [], "times": [], "preserved": []}
    try:
        with open(path, "rb") as handle:
            text = handle.read(limits.JSON_BYTES + 1)
    except OSError as exc:
        raise CheckpointError(f"checkpoint index {path!r} is unreadable: {exc}") from None
    index = limits.load_json(text, f"checkpoint index {path!r}", CheckpointError, what="it")
    if not isinstance(index, dict):
        raise CheckpointError(f"checkpoint index {path!r} is not a kerasish index (a JSON object)")
    index.setdefault("latest", None)
    index.setdefault("checkpoints", [])
    if isinstance(index["checkpoints"], list):
        index.setdefault("times", [time.time()] * len(index["checkpoints"]))
    index.setdefault("preserved", [])
    _check_index(path, index)
    return index


def _check_index(path: str, index: dict) -> None:
    """Refuse an index whose entries are not plain file names inside its directory.

    Indexes travel with downloaded checkpoints: an entry such as '../x.h5' or
    '/etc/passwd' would make `latest_checkpoint` name, and retention delete, a
    file outside the directory.
    """
    def bad(what: str):
        raise CheckpointError(f"checkpoint index {path!r}: {what}")

    names = [("latest", index["latest"])] if index["latest"] is not None else []
    for field in ("checkpoints", "preserved"):
        if not isinstance(index[field], list):
            bad(f"{field!r} must be a list of file names, got {reprlib.repr(index[field])}")
        names += [(f"{field}[{i}]", name) for i, name in enumerate(index[field])]
    for where, name in names:
        if not isinstance(name, str):
            bad(f"entry {where} = {reprlib.repr(name)} is not a file name")
        separators = {"/", os.sep, os.altsep or "/", "\\", "\0"}
        if name in ("", ".", "..") or any(sep in name for sep in separators):
            bad(f"entry {where} = {name!r} is not a file name inside the directory (no path "
                "separators, '..' or absolute paths)")
    times = index["times"]
    if (not isinstance(times, list) or len(times) != len(index["checkpoints"])
            or not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in times)):
        bad(f"'times' must list one save time per checkpoint, got {reprlib.repr(times)}")
    last = index.get("last_preserved_time", 0.0)
    if not isinstance(last, (int, float)) or isinstance(last, bool):
        bad(f"'last_preserved_time' must be a number, got {reprlib.repr(last)}")


def write_index(directory, index: dict) -> None:
    def write(temporary):
        with open(temporary, "w") as handle:
            json.dump(index, handle, indent=1)

    atomic_write(_index_path(os.fspath(directory)), write)


def update_index(directory: str, path: str) -> None:
    """Record `path` (stored relative to `directory`) as the latest checkpoint."""
    index = read_index(directory)
    name = os.path.relpath(os.path.abspath(path), directory)
    if name in index["checkpoints"]:
        position = index["checkpoints"].index(name)
        del index["checkpoints"][position], index["times"][position]
    index["checkpoints"].append(name)
    index["times"].append(time.time())
    index["latest"] = name
    write_index(directory, index)


def latest_checkpoint(checkpoint_dir) -> str | None:
    """The newest complete checkpoint recorded in `checkpoint_dir`'s index, or None.

    Args:
        checkpoint_dir: a directory `Checkpoint.save` or a `CheckpointManager` wrote to.

    Returns:
        The path, or None when nothing was saved there (or the file is gone).

    Raises:
        CheckpointError: the directory's index is damaged.

    Example:
        >>> import os, tempfile
        >>> import kerasish as ks
        >>> directory = tempfile.mkdtemp()
        >>> ks.latest_checkpoint(directory) is None
        True
        >>> _ = ks.Checkpoint(w=ks.Variable(1.0)).save(os.path.join(directory, "ckpt"))
        >>> os.path.basename(ks.latest_checkpoint(directory))
        'ckpt-1.h5'
    """
    directory = os.fspath(checkpoint_dir)
    latest = read_index(directory).get("latest")
    if not latest:
        return None
    path = os.path.join(directory, latest)
    return path if os.path.exists(path) else None


class CheckpointManager:
    """Numbered saves in a directory, keeping the newest `max_to_keep`.

    It records its checkpoints in the directory's index (paths relative to
    the directory), deletes only files it named (`<checkpoint_name>-N.h5`),
    and after a restart picks up the index and continues the numbering.
    Once the directory has an index, a file named like its checkpoints that the
    index does not list is the leftover of an interrupted save (killed after the
    index stopped naming a pruned file, or before it named a new one; a full
    disk while writing the index): it is removed when a manager starts and at
    every save. Keep files of your own there under other names.
    With `keep_checkpoint_every_n_hours=H`, a checkpoint about to be pruned
    is kept for good instead if it was saved at least H hours after the last
    one kept that way (it leaves the `checkpoints` list and is never deleted).

    Args:
        checkpoint: the `ks.Checkpoint` to save.
        directory: where the numbered files and the index go (created if needed).
        max_to_keep: how many recent checkpoints to keep (None keeps all).
        keep_checkpoint_every_n_hours: see above.
        checkpoint_name: the files' prefix.

    Raises:
        CheckpointError: if the directory's index is damaged or names files
            outside the directory.

    Example:
        >>> import os, tempfile
        >>> import kerasish as ks
        >>> step = ks.Variable(0, trainable=False)
        >>> checkpoint = ks.Checkpoint(step=step)
        >>> manager = ks.CheckpointManager(checkpoint, tempfile.mkdtemp(), max_to_keep=2)
        >>> for _ in range(3):
        ...     _ = step.assign_add(1)
        ...     _ = manager.save()
        >>> [os.path.basename(path) for path in manager.checkpoints]
        ['ckpt-2.h5', 'ckpt-3.h5']
        >>> _ = checkpoint.restore(manager.latest_checkpoint)
    """

    def __init__(self, checkpoint: Checkpoint, directory, max_to_keep: int | None = 5,
                 keep_checkpoint_every_n_hours: float | None = None,
                 checkpoint_name: str = "ckpt"):
        self._checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self.max_to_keep = max_to_keep
        self.keep_every = keep_checkpoint_every_n_hours
        self.checkpoint_name = checkpoint_name
        self._pattern = re.compile(rf"^{re.escape(checkpoint_name)}-(\d+)\.h5$")
        os.makedirs(self.directory, exist_ok=True)
        remove_stale_temporaries(self.directory)
        index = read_index(self.directory)
        self._remove_orphans(index)
        self._last_kept_time = index.get("last_preserved_time", time.time())

    def _own(self, index) -> list:
        return [name for name in index["checkpoints"] if self._pattern.match(name)]

    def _remove_orphans(self, index: dict) -> None:
        """Delete this manager's files (by name) that `index` does not list.

        Nothing is removed from a directory without an index: there, nothing
        records which files a manager wrote.
        """
        if not os.path.exists(_index_path(self.directory)):
            return
        listed = {index["latest"], *index["checkpoints"], *index["preserved"]}
        for name in os.listdir(self.directory):
            if self._pattern.match(name) and name not in listed:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(self.directory, name))

    @property
    def checkpoints(self) -> list:
        """This manager's checkpoints, oldest first (paths)."""
        return [os.path.join(self.directory, n) for n in self._own(read_index(self.directory))]

    @property
    def latest_checkpoint(self) -> str | None:
        own = self.checkpoints
        return own[-1] if own else None

    def save(self, checkpoint_number: int | None = None) -> str:
        """Save `<directory>/<checkpoint_name>-<N>.h5` and prune old ones; returns the path.

        Args:
            checkpoint_number: N; None: one more than the highest number saved so far.

        Returns:
            The path written (also the checkpoint's `save_counter` is set to N).

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> checkpoint = ks.Checkpoint(w=ks.Variable(1.0))
            >>> manager = ks.CheckpointManager(checkpoint, tempfile.mkdtemp())
            >>> os.path.basename(manager.save(checkpoint_number=100))
            'ckpt-100.h5'
        """
        index = read_index(self.directory)
        self._remove_orphans(index)  # first: a full disk may be full of them
        if checkpoint_number is None:
            names = index["checkpoints"] + index["preserved"]
            numbers = [int(m.group(1)) for m in map(self._pattern.match, names) if m]
            checkpoint_number = max(numbers + [int(self._checkpoint.save_counter)]) + 1
        checkpoint_number = int(checkpoint_number)
        self._checkpoint.save_counter.assign(checkpoint_number)
        name = f"{self.checkpoint_name}-{checkpoint_number}.h5"
        path = os.path.join(self.directory, name)
        self._checkpoint.write(path)
        update_index(self.directory, path)
        self._prune()
        return path

    def _prune(self) -> None:
        index = read_index(self.directory)
        own = self._own(index)
        excess = 0 if self.max_to_keep is None else len(own) - max(1, self.max_to_keep)
        if self.keep_every and "last_preserved_time" not in index:
            index["last_preserved_time"] = self._last_kept_time  # survives a restart
        elif excess <= 0:
            return
        doomed = []
        for name in own[:max(excess, 0)]:
            position = index["checkpoints"].index(name)
            saved_at = index["times"][position]
            del index["checkpoints"][position], index["times"][position]
            if self.keep_every and saved_at - self._last_kept_time >= self.keep_every * 3600:
                self._last_kept_time = saved_at  # kept for good, no longer counted or pruned
                index["preserved"].append(name)
                index["last_preserved_time"] = saved_at
            else:
                doomed.append(name)
        write_index(self.directory, index)  # the index stops naming them before they go
        for name in doomed:
            try:
                os.remove(os.path.join(self.directory, name))
            except FileNotFoundError:
                pass
