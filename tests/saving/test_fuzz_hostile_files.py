"""Property-based fuzzing of the files kerasish loads (issue 21): a `.keras` file, a
`.weights.h5` file and a checkpoint, each mutated (truncated, bits flipped, bytes
overwritten, a zip member rewritten, a dataset's declared shape changed), either restore
exactly the saved values or raise the library's own error (a `KerasishError`), under a
capped address space and a time limit, and write nothing but the mutated copy.

It runs in one subprocess (`run_capped`), so a reader allocating what a file declares
fails with MemoryError there instead of swapping; `derandomize` keeps CI runs the same.
A config declaring a huge layer (`"units": 1000000000`), which this test found, is tested
on its own in `test_bounded_reading.py`.
"""

import os

import pytest

hypothesis = pytest.importorskip("hypothesis")

FUZZ = """
import io, os, sys, zipfile
sys.path.append({hypothesis_home!r})  # where this pytest found hypothesis
import h5py
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import kerasish as ks
from kerasish.core.errors import KerasishError

os.chdir({work!r})

def build():
    return ks.Sequential([ks.Input((3,)), ks.layers.Dense(4), ks.layers.Dense(2)])

ks.random.set_seed(0)
model = build()
model.save("model.keras")
model.save_weights("model.weights.h5")
ks.Checkpoint(model=model).write("ckpt.h5")
EXPECTED = [v.numpy() for v in model.variables]
ORIGINALS = {{kind: open(name, "rb").read() for kind, name in
             (("keras", "model.keras"), ("weights", "model.weights.h5"), ("ckpt", "ckpt.h5"))}}

def load(kind, path):
    if kind == "keras":
        return ks.models.load_model(path, compile=False)
    fresh = build()
    if kind == "weights":
        fresh.load_weights(path)
    else:
        ks.Checkpoint(model=fresh).read(path).assert_consumed()
    return fresh

def rewrite_member(data, index, how):
    source = zipfile.ZipFile(io.BytesIO(data))
    names = source.namelist()
    target = names[index % len(names)]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            text = source.read(name)
            if name == target:
                if how == "nest":
                    text = b"[" * 5000 + text + b"]" * 5000
                elif how == "empty":
                    text = b""
                else:
                    text = text[: len(text) // 2]
            archive.writestr(name, text)
    return out.getvalue()

def declare_shape(path, index, shape):
    with h5py.File(path, "r+") as handle:
        datasets = []
        handle.visititems(lambda n, o: datasets.append(n) if isinstance(o, h5py.Dataset) else None)
        name = datasets[index % len(datasets)]
        dtype = handle[name].dtype
        del handle[name]
        handle.create_dataset(name, shape=shape, dtype=dtype)  # declared, never written

MUTATIONS = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.lists(st.tuples(st.floats(0, 1), st.integers(0, 7)),
                                        min_size=1, max_size=8)),
    st.tuples(st.just("overwrite"), st.floats(0, 1), st.binary(min_size=1, max_size=64)),
    st.tuples(st.just("member"), st.integers(0, 20),
              st.sampled_from(["nest", "empty", "half"])),
    st.tuples(st.just("shape"), st.integers(0, 20),
              st.sampled_from([(1_000_000_000,), (4, 3), (3, 4, 1), ()])),
)

@settings(max_examples={examples}, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(ORIGINALS)), MUTATIONS)
def fuzz(kind, mutation):
    data = bytearray(ORIGINALS[kind])
    path = "mutated" + {{"keras": ".keras", "weights": ".weights.h5", "ckpt": ".h5"}}[kind]
    what = mutation[0]
    if what == "truncate":
        data = data[: int(mutation[1] * len(data))]
    elif what == "flip":
        for where, bit in mutation[1]:
            data[int(where * (len(data) - 1))] ^= 1 << bit
    elif what == "overwrite":
        start = int(mutation[1] * len(data))
        data[start : start + len(mutation[2])] = mutation[2]
    elif what == "member" and kind == "keras":
        data = rewrite_member(bytes(data), mutation[1], mutation[2])
    with open(path, "wb") as f:
        f.write(bytes(data))
    if what == "shape" and kind != "keras":
        declare_shape(path, mutation[1], mutation[2])
    try:
        restored = load(kind, path)
    except KerasishError:
        return
    got = [v.numpy() for v in restored.variables]
    assert len(got) == len(EXPECTED) and all(
        a.shape == b.shape and np.array_equal(a, b) for a, b in zip(got, EXPECTED)
    ), f"{{kind}} {{mutation}}: restored other values"

fuzz()
assert set(os.listdir(".")) <= {{"model.keras", "model.weights.h5", "ckpt.h5", "mutated.keras",
                                "mutated.weights.h5", "mutated.h5"}}, os.listdir(".")
print("fuzzed")
"""


def test_mutated_files_restore_exactly_or_raise_our_error(tmp_path, run_capped):
    work = tmp_path / "work"
    work.mkdir()
    home = os.path.dirname(os.path.dirname(hypothesis.__file__))
    status, output = run_capped(FUZZ.format(work=str(work), examples=40, hypothesis_home=home),
                                cap_mb=1024, timeout=240)
    assert status == 0 and output.rstrip().endswith("fuzzed"), output[-4000:]
    assert os.listdir(tmp_path) == ["work"]  # nothing written beside its directory
