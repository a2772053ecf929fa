"""A full disk while writing a checkpoint is a CheckpointError saying the space needed, and
the process lives on (HDF5 crashed it when a chunked write met ENOSPC); `model.save` and
`save_weights` keep their plain errno 28. The real cases run on a 1 MiB tmpfs (skipped where
it cannot be mounted), in a subprocess, since the crash killed the process."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.checkpoint import CheckpointError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEEDED = (64 << 10) + (4 << 10) * 2 + 1_000_000 * 4 + 8  # overheads, the values (w, counter)


@pytest.fixture
def full_disk(tmp_path):
    """A 1 MiB tmpfs, mounted for the test (root only; skipped elsewhere)."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    yield str(mount)
    subprocess.run(["umount", str(mount)], check=True)


def _run(code: str) -> tuple:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    return done.returncode, done.stdout + done.stderr


def test_a_full_disk_is_a_checkpoint_error_and_the_process_lives_on(full_disk):
    status, output = _run(f"""
        import os, numpy as np, kerasish as ks
        from kerasish.checkpoint import CheckpointError
        ckpt = ks.Checkpoint(w=ks.Variable(np.ones((1000, 1000), "float32")))
        manager = ks.CheckpointManager(ckpt, {full_disk!r})
        for write in (lambda: ckpt.write(os.path.join({full_disk!r}, "w.h5")), manager.save):
            try:
                write()
            except CheckpointError as error:
                print(error)
        print(sorted(os.listdir({full_disk!r})), "alive")
    """)
    assert status == 0, output
    free = shutil.disk_usage(full_disk).free
    lines = output.splitlines()
    assert lines[0] == (f"not enough disk space to write checkpoint "
                        f"'{full_disk}/w.h5': it needs about {NEEDED:,} bytes and {free:,} are "
                        f"free in '{full_disk}'")
    assert lines[1].startswith(f"not enough disk space to write checkpoint '{full_disk}/ckpt-1.h5'")
    assert lines[2] == "[] alive"


def test_a_disk_filling_up_during_the_write_is_a_checkpoint_error(full_disk):
    # the space was there when checked, and another writer took it: ENOSPC from HDF5
    status, output = _run(f"""
        import os, shutil, numpy as np, kerasish as ks
        from kerasish.checkpoint import CheckpointError
        real = shutil.disk_usage
        calls = []
        def usage(path):  # plenty free at the check, the truth afterwards
            calls.append(path)
            return real(path) if len(calls) > 1 else real(path)._replace(free=1 << 40)
        shutil.disk_usage = usage
        ckpt = ks.Checkpoint(w=ks.Variable(np.ones((1000, 1000), "float32")))
        try:
            ckpt.write(os.path.join({full_disk!r}, "w.h5"))
        except CheckpointError as error:
            print(error)
        print(sorted(os.listdir({full_disk!r})), "alive")
    """)
    assert status == 0, output
    first, last = output.splitlines()
    assert re.fullmatch(
        rf"the disk filled up while writing checkpoint '{full_disk}/w.h5' \(it needs about "
        rf"{NEEDED:,} bytes; [\d,]+ are free in '{full_disk}' now\); the previous checkpoints "
        r"are intact", first), first
    assert last == "[] alive"


def test_the_free_space_check_refuses_before_writing(tmp_path, monkeypatch):
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real(p)._replace(free=1000))
    ckpt = ks.Checkpoint(w=ks.Variable(np.ones(10, "float32")))
    needed = (64 << 10) + (4 << 10) * 2 + 40 + 8
    with pytest.raises(CheckpointError, match=re.escape(
            f"not enough disk space to write checkpoint '{tmp_path}/w.h5': it needs about "
            f"{needed:,} bytes and 1,000 are free in '{tmp_path}'")):
        ckpt.write(tmp_path / "w.h5")
    assert os.listdir(tmp_path) == []


def test_model_save_and_save_weights_keep_errno_28(full_disk):
    status, output = _run(f"""
        import os, numpy as np, kerasish as ks
        model = ks.Sequential([ks.Input((1000,)), ks.layers.Dense(1000)])
        for save in (lambda: model.save(os.path.join({full_disk!r}, "m.keras")),
                     lambda: model.save_weights(os.path.join({full_disk!r}, "m.weights.h5"))):
            try:
                save()
            except OSError as error:
                print(type(error).__name__, error.errno)
        print(sorted(os.listdir({full_disk!r})), "alive")
    """)
    assert status == 0, output
    assert output.splitlines() == ["OSError 28", "OSError 28", "[] alive"]


def test_large_values_carry_a_crc32_that_the_restore_checks(tmp_path):
    w = ks.Variable(np.arange(4096, dtype="float32"))
    path = ks.Checkpoint(w=w).write(tmp_path / "w.h5")

    with h5py.File(path, "r+") as handle:
        dataset = handle["values/w"]
        assert dataset.chunks is None and "crc32" in dataset.attrs
        dataset[5] = 1.0  # a change no HDF5 checksum sees
    with pytest.raises(CheckpointError, match=re.escape(
            f"checkpoint {path!r} is damaged: the data of 'w' does not match its CRC-32")):
        ks.Checkpoint(w=w).read(path)
