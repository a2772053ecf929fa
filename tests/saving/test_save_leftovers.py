"""A `model.save` killed mid-write leaves a temporary beside the model; the next save by any
process removes it (recognised by its name, host and dead pid), never a live writer's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import kerasish as ks
from kerasish.checkpoint import _HOST

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SAVE_FOREVER = """
import sys, kerasish as ks
model = ks.Sequential([ks.Input((1000,)), ks.layers.Dense(2000)])
print("ready", flush=True)
while True:
    model.save(sys.argv[1])
"""


def _killed_mid_save(path: str) -> None:
    """Start a process saving `path` in a loop and SIGKILL it while a temporary exists."""
    directory = os.path.dirname(path)
    writer = subprocess.Popen([sys.executable, "-c", SAVE_FOREVER, path], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": ROOT}, stdout=subprocess.PIPE)
    assert writer.stdout.readline().strip() == b"ready"
    deadline = time.monotonic() + 60
    while not any(name.endswith(".tmp") for name in os.listdir(directory)):
        assert time.monotonic() < deadline, "the writer never left a temporary"
    writer.send_signal(signal.SIGKILL)
    writer.wait()


def test_the_next_save_removes_what_killed_saves_left_and_keeps_live_ones(tmp_path):
    path = str(tmp_path / "model.keras")
    for _ in range(3):
        _killed_mid_save(path)
    left = [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
    assert left  # what the kills left behind
    live = tmp_path / f".model.keras.{_HOST}-{os.getppid()}.live.tmp"  # a running process's
    live.write_bytes(b"being written")
    model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
    model.save(path)
    assert sorted(os.listdir(tmp_path)) == sorted([live.name, "model.keras"])
    model.save_weights(str(tmp_path / "model.weights.h5"))
    assert live.exists()
