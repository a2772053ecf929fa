"""Checkpoints and indexes from elsewhere: crafted entries, huge declared shapes, links,
restore(None), and a fuzz test of damaged files (CheckpointError or a correct restore)."""

from __future__ import annotations

import json
import os
import random
import re

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.checkpoint import CheckpointError


def _write_index(directory, **fields):
    index = {"latest": None, "checkpoints": [], "times": [], "preserved": []}
    index.update(fields)
    (directory / "checkpoint").write_text(json.dumps(index))


# ---------------------------------------------------------------- restore(None)


def test_restore_none_restores_nothing_and_its_asserts_say_why(tmp_path):
    w = ks.Variable([1.0, 2.0])
    ckpt = ks.Checkpoint(w=w)
    manager = ks.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    status = ckpt.restore(manager.latest_checkpoint)  # the TF idiom, on a first run
    assert manager.latest_checkpoint is None
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    assert status.expect_partial() is status
    assert status.matched == [] and status.pending == [] and status.missing == ["save_counter", "w"]
    for check in ("assert_consumed", "assert_existing_objects_matched",
                  "assert_nontrivial_match"):
        with pytest.raises(CheckpointError, match=rf"^{check} failed: restore\(None\): no "
                           r"checkpoint was given \(latest_checkpoint found none: a first run\?\), "
                           r"so nothing was restored; the program's 2 variable\(s\) keep their "
                           r"initial values$"):
            getattr(status, check)()
    # a later run of the same program resumes
    w.assign([5.0, 6.0])
    manager.save()
    w.assign([0.0, 0.0])
    ckpt.restore(manager.latest_checkpoint).assert_consumed()
    np.testing.assert_array_equal(w.numpy(), [5.0, 6.0])


# ---------------------------------------------------------------- index entries


@pytest.mark.parametrize("entry", ["../secret.h5", "/etc/passwd", "sub/ckpt-1.h5", "..", "",
                                   "a\\b.h5", 3])
def test_index_entries_must_name_files_inside_the_directory(tmp_path, entry):
    directory = tmp_path / "ckpts"
    directory.mkdir()
    (tmp_path / "secret.h5").write_bytes(b"not yours")
    _write_index(directory, latest=entry, checkpoints=[entry], times=[1.0])
    index_path = os.path.join(str(directory), "checkpoint")
    message = f"checkpoint index {index_path!r}: entry latest = {entry!r} is not a file name"
    with pytest.raises(CheckpointError, match="^" + re.escape(message)):
        ks.latest_checkpoint(str(directory))
    with pytest.raises(CheckpointError, match="entry latest"):
        ks.CheckpointManager(ks.Checkpoint(v=ks.Variable(0.0)), str(directory))


def test_a_bad_entry_in_the_list_is_named_with_its_position(tmp_path):
    _write_index(tmp_path, latest="ckpt-2.h5", checkpoints=["ckpt-1.h5", "../ckpt-2.h5"],
                 times=[1.0, 2.0])
    with pytest.raises(CheckpointError, match=r"entry checkpoints\[1\] = '\.\./ckpt-2\.h5' is "
                       r"not a file name inside the directory \(no path separators, '\.\.' or "
                       r"absolute paths\)"):
        ks.latest_checkpoint(str(tmp_path))


@pytest.mark.parametrize("fields, message", [
    ({"checkpoints": "ckpt-1.h5"}, r"'checkpoints' must be a list of file names"),
    ({"checkpoints": ["ckpt-1.h5"], "times": []}, r"'times' must list one save time per"),
    ({"checkpoints": ["ckpt-1.h5"], "times": ["x"]}, r"'times' must list one save time per"),
    ({"last_preserved_time": "soon"}, r"'last_preserved_time' must be a number"),
])
def test_malformed_index_fields_are_named(tmp_path, fields, message):
    _write_index(tmp_path, **fields)
    with pytest.raises(CheckpointError, match=message):
        ks.latest_checkpoint(str(tmp_path))


def test_retention_never_deletes_outside_the_directory(tmp_path):
    directory = tmp_path / "ckpts"
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "ckpt-1.h5"
    victim.write_bytes(b"keep me")
    directory.mkdir()
    os.symlink(victim, directory / "ckpt-1.h5")  # a link in the directory: only it may go
    _write_index(directory, latest="ckpt-1.h5", checkpoints=["ckpt-1.h5"], times=[1.0])
    ckpt = ks.Checkpoint(v=ks.Variable(0.0))
    manager = ks.CheckpointManager(ckpt, str(directory), max_to_keep=1)
    manager.save()
    manager.save()
    assert victim.read_bytes() == b"keep me"
    assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-3.h5"]
    # an index naming a file outside stops the manager before anything is deleted
    _write_index(directory, latest="ckpt-3.h5", checkpoints=["../outside/ckpt-1.h5", "ckpt-3.h5"],
                 times=[1.0, 2.0])
    with pytest.raises(CheckpointError,
                       match=r"entry checkpoints\[0\] = '\.\./outside/ckpt-1\.h5'"):
        manager.save()
    assert victim.read_bytes() == b"keep me"


# ---------------------------------------------------------------- deferred values


def _checkpoint_with(tmp_path, build):
    """A valid checkpoint file whose values/ group is then changed by `build(values_group)`."""
    path = str(tmp_path / "crafted.h5")
    ks.Checkpoint(x=ks.Variable([1.0, 2.0])).write(path)
    with h5py.File(path, "a") as handle:
        build(handle["values"])
    return path


def test_a_huge_declared_shape_is_refused_before_it_is_read(tmp_path):
    path = _checkpoint_with(tmp_path, lambda values: values.create_dataset(
        "layer/kernel", shape=(10**6, 10**6), dtype="float32", chunks=(1, 1024)))
    assert os.path.getsize(path) < 1 << 20  # declared 3.6 TiB, nothing written
    layer = ks.layers.Dense(3)
    status = ks.Checkpoint(x=ks.Variable([0.0, 0.0]), layer=layer).restore(path)
    assert status.pending == ["layer/kernel"]  # kept, not read
    with pytest.raises(CheckpointError, match=r"shape mismatch for 'layer/kernel': the "
                       r"checkpoint has shape \(1000000, 1000000\) but the program's variable "
                       r"has shape \(4, 3\)"):
        layer(np.zeros((1, 4), np.float32))


def test_deferred_values_survive_the_file_being_pruned(tmp_path):
    layer = ks.layers.Dense(2, kernel_initializer="ones")
    layer(np.zeros((1, 3), np.float32))
    path = ks.Checkpoint(layer=layer).write(str(tmp_path / "ckpt.h5"))
    fresh = ks.layers.Dense(2)
    status = ks.Checkpoint(layer=fresh).restore(path)
    os.remove(path)  # as a CheckpointManager may, before the layer is built
    fresh(np.zeros((1, 3), np.float32))
    np.testing.assert_array_equal(fresh.kernel.numpy(), np.ones((3, 2), np.float32))
    status.assert_consumed()


@pytest.mark.parametrize("kind, message", [
    ("soft", r"'values/y' is a soft link; checkpoints hold their values directly, and links "
             r"are not followed"),
    ("external", r"'values/y' is an external link \(to another file\)"),
    ("external storage", r"'values/y' keeps its data in another file \(external or virtual "
                         r"storage\); it is not read"),
])
def test_links_and_data_in_other_files_are_refused(tmp_path, kind, message):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as handle:
        handle["secret"] = np.full(2, 7.0, np.float32)
    raw = tmp_path / "raw.bin"
    raw.write_bytes(np.full(2, 7.0, np.float32).tobytes())

    def build(values):
        if kind == "soft":
            values["y"] = h5py.SoftLink("/values/x")
        elif kind == "external":
            values["y"] = h5py.ExternalLink(str(other), "/secret")
        else:
            values.create_dataset("y", shape=(2,), dtype="float32", external=[(str(raw), 0, 8)])

    path = _checkpoint_with(tmp_path, build)
    x, y = ks.Variable([0.0, 0.0]), ks.Variable([0.0, 0.0])
    with pytest.raises(CheckpointError, match=message):
        ks.Checkpoint(x=x, y=y).restore(path)
    np.testing.assert_array_equal(x.numpy(), [0.0, 0.0])  # nothing restored
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0])


def test_values_as_a_link_is_refused(tmp_path):
    path = str(tmp_path / "linked.h5")
    with h5py.File(path, "w") as handle:
        handle.attrs["kerasish_format"] = "kerasish-checkpoint"
        handle.create_group("elsewhere").create_dataset("x", data=np.float32(3))
        handle["values"] = h5py.SoftLink("/elsewhere")
    with pytest.raises(CheckpointError, match=r"'values' is not a group \(a link\?\)"):
        ks.Checkpoint(x=ks.Variable(0.0)).restore(path)


# ---------------------------------------------------------------- fuzz


def _program():
    """Variables of every storage kind: scalars and small values (compact), large (chunked)."""
    return {"step": ks.Variable(0, dtype=ks.int64), "small": ks.Variable(np.zeros((3, 4))),
            "big": ks.Variable(np.zeros((70, 50), np.float32)),
            "longer": ks.Variable(np.zeros(100_000, np.float32))}


def _outcome(path, saved):
    """Restore `path` into fresh variables: CheckpointError (nothing changed) or exact values."""
    program = _program()
    before = {k: v.numpy().copy() for k, v in program.items()}
    try:
        ks.Checkpoint(**program).restore(path).expect_partial()
    except CheckpointError:
        for key, variable in program.items():  # never a partial restore
            np.testing.assert_array_equal(variable.numpy(), before[key], err_msg=key)
        return "refused"
    for key, variable in program.items():
        np.testing.assert_array_equal(variable.numpy(), saved[key], err_msg=f"{path}: {key}")
    return "restored"


def test_damaged_checkpoints_and_indexes_are_refused_or_restored_exactly(tmp_path):
    rng = np.random.default_rng(2026)
    program = _program()
    for variable in program.values():
        variable.assign(rng.integers(1, 100, variable.shape).astype(variable.dtype))
    saved = {k: v.numpy().copy() for k, v in program.items()}
    directory = tmp_path / "good"
    manager = ks.CheckpointManager(ks.Checkpoint(**program), str(directory), max_to_keep=2)
    good = manager.save()
    original = open(good, "rb").read()
    index_bytes = (directory / "checkpoint").read_bytes()
    pick = random.Random(15)
    outcomes = {"refused": 0, "restored": 0}
    damaged = str(tmp_path / "damaged.h5")
    for trial in range(240):
        data = bytearray(original)
        if trial % 4 == 0:  # truncation
            data = data[: pick.randrange(len(data))]
        else:  # one to four flipped bytes, half of them in the first 4 KiB (the metadata)
            for _ in range(pick.randint(1, 4)):
                where = pick.randrange(4096) if pick.random() < 0.5 else pick.randrange(len(data))
                data[where] ^= pick.randrange(1, 256)
        with open(damaged, "wb") as handle:
            handle.write(bytes(data))
        outcomes[_outcome(damaged, saved)] += 1
    assert outcomes["refused"] > 100  # the damage is seen, not restored as wrong values
    # the index: damaged copies name a file inside the directory, nothing, or are refused
    for trial in range(200):
        data = bytearray(index_bytes)
        if trial % 4 == 0:
            data = data[: pick.randrange(len(data))]
        else:
            for _ in range(pick.randint(1, 3)):
                data[pick.randrange(len(data))] = pick.randrange(256)
        (directory / "checkpoint").write_bytes(bytes(data))
        try:
            latest = ks.latest_checkpoint(str(directory))
        except CheckpointError:
            continue
        assert latest is None or os.path.dirname(latest) == str(directory), latest
        if latest is not None:
            assert _outcome(latest, saved) == "restored"


# ---------------------------------------------------------------- index size and nesting


def test_a_deeply_nested_index_is_refused_before_it_is_parsed(tmp_path):
    index = tmp_path / "checkpoint"
    index.write_text('{"latest": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(CheckpointError, match=re.escape(
            f"checkpoint index {str(index)!r}: it nests 5001 levels deep, more than the 200 "
            "allowed; kerasish.core.limits.JSON_DEPTH sets the budget")):
        ks.latest_checkpoint(tmp_path)


def test_an_index_over_the_size_budget_is_refused(tmp_path, monkeypatch):
    from kerasish.core import limits

    _write_index(tmp_path, checkpoints=[f"ckpt-{i}.h5" for i in range(100)], times=[0] * 100)
    monkeypatch.setattr(limits, "JSON_BYTES", 1000)
    with pytest.raises(CheckpointError, match=re.escape(
            f"checkpoint index {str(tmp_path / 'checkpoint')!r}: it holds more than the "
            "1,000 bytes (0.0 MiB) allowed")):
        ks.CheckpointManager(ks.Checkpoint(w=ks.Variable(1.0)), tmp_path)
