"""Hostile `.keras` and weights files cost bounded memory: zip bombs, huge declared shapes and
dtypes, oversized or deeply nested configs, and HDF5 hard-link cycles are refused with the
library's own error, naming the file and the member, before anything big is allocated.

The memory cases run in a subprocess with a capped address space (`run_capped`), so that a
reader which allocates what the file declares fails with MemoryError instead of swapping."""

from __future__ import annotations

import json
import re
import zipfile

import h5py
import numpy as np
import pytest

import kerasish as ks
from kerasish.core import limits
from kerasish.core.serialization import SerializationError
from kerasish.saving.keras_file import KerasFileError
from kerasish.saving.weights_layout import WeightsFileError


def _report(*lines: str) -> str:
    """Code that runs `lines` and prints the error it raises (class and message)."""
    body = "".join(f"    {line}\n" for line in lines)
    return ("import kerasish as ks\ntry:\n" + body + '    print("loaded")\n'
            "except Exception as error:\n    print(type(error).__name__, error)\n")


def _model():
    model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])
    return model


def _members(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _with_bomb(path, members: dict, bomb: str, mib: int = 512) -> None:
    """A `.keras` archive holding `members` and `bomb`: `mib` MiB of spaces, deflated ~230x."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, data in members.items():
            if name != bomb:
                archive.writestr(name, data)
        with archive.open(bomb, "w", force_zip64=True) as member:
            block = b" " * (1 << 20)
            for _ in range(mib):
                member.write(block)


@pytest.mark.parametrize("bomb, limit", [("config.json", "33,554,432 bytes (32.0 MiB)"),
                                         ("model.weights.h5", None)])
def test_a_zip_bomb_member_is_refused_before_it_is_inflated(tmp_path, run_capped, bomb, limit):
    saved = tmp_path / "good.keras"
    _model().save(saved)
    path = tmp_path / "bomb.keras"
    _with_bomb(path, _members(saved), bomb)
    status, output = run_capped(_report(f"ks.models.load_model({str(path)!r})"))
    assert status == 0, output
    with zipfile.ZipFile(path) as archive:
        compressed = archive.getinfo(bomb).compress_size
    if limit is None:  # the larger of 64 MiB and 100 times the compressed size
        allowed = max(64 << 20, 100 * compressed)
        limit = f"{allowed:,} bytes ({allowed / (1 << 20):.1f} MiB)"
    assert output.strip() == (
        f"KerasFileError {path}: member {bomb!r} declares 536,870,912 bytes (512.0 MiB) when "
        f"inflated, more than the {limit} allowed for a member of {compressed:,} bytes "
        f"({compressed / (1 << 20):.1f} MiB) compressed (a zip bomb, or a damaged archive); "
        "kerasish.core.limits sets the budget"
    )


def test_a_config_over_the_size_budget_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "model.keras"
    _model().save(path)
    size = len(_members(path)["config.json"])
    monkeypatch.setattr(limits, "JSON_BYTES", 1000)
    with pytest.raises(KerasFileError, match=re.escape(
            f"{path}: member 'config.json' declares {size:,} bytes (0.0 MiB) when inflated, "
            "more than the 1,000 bytes (0.0 MiB) allowed")):
        ks.models.load_model(path)
    text = _model().to_json()
    with pytest.raises(SerializationError, match=re.escape(
            "model_from_json: the model's JSON text holds more than the 1,000 bytes (0.0 MiB) "
            "allowed; kerasish.core.limits.JSON_BYTES sets the budget")):
        ks.models.model_from_json(text)


def _nested(depth: int) -> str:
    return '{"class_name": "Sequential", "config": {"x": ' + "[" * depth + "]" * depth + "}}"


def test_a_deeply_nested_config_is_refused_before_it_is_parsed(tmp_path):
    saved = tmp_path / "good.keras"
    _model().save(saved)
    members = _members(saved)
    members["config.json"] = _nested(5000).encode()
    path = tmp_path / "deep.keras"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(KerasFileError, match=re.escape(
            f"{path}: config.json nests 5002 levels deep, more than the 200 allowed; "
            "kerasish.core.limits.JSON_DEPTH sets the budget")):
        ks.models.load_model(path)
    with pytest.raises(SerializationError, match=re.escape(
            "model_from_json: the model's JSON text nests 5002 levels deep")):
        ks.models.model_from_json(_nested(5000))


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"name": "[[[[" * 100, "escaped": '\\"[[[[' * 100, "x": [[1]]}).encode()
    assert limits.json_depth(text) == 3
    assert limits.load_json(text, "here", ValueError)["x"] == [[1]]


def test_a_numpy_value_declaring_a_huge_dtype_is_refused_before_it_is_made(run_capped):
    config = {"class_name": "__numpy__", "config": {"value": ["x"], "dtype": "S500000000"}}
    status, output = run_capped(_report(f"ks.saving.deserialize_keras_object({config!r})"))
    assert status == 0, output
    assert output.strip() == (
        "SerializationError a __numpy__ value: declares an array of shape (1,) and dtype "
        "|S500000000, 500,000,000 bytes (476.8 MiB), more than the 67,108,864 bytes (64.0 MiB) "
        "allowed"
    )


def test_a_numpy_value_within_the_budget_loads():
    config = {"class_name": "__numpy__", "config": {"value": [[1, 2]], "dtype": "int16"}}
    array = ks.saving.deserialize_keras_object(config)
    assert array.dtype == np.int16 and array.tolist() == [[1, 2]]


def test_a_weights_dataset_declaring_a_huge_shape_is_refused_before_it_is_read(
        tmp_path, run_capped):
    path = str(tmp_path / "model.weights.h5")
    _model().save_weights(path)
    with h5py.File(path, "r+") as h5file:
        del h5file["layers/dense/vars/0"]  # 2 GB declared, nothing written: a small file
        h5file.create_dataset("layers/dense/vars/0", shape=(500_000_000,), dtype="f4",
                              chunks=(1 << 20,))
    status, output = run_capped(_report(
        "model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2)])",
        f"model.load_weights({path!r})"))
    assert status == 0, output
    assert output.strip() == (
        f"WeightsFileError {path}: variable 0 of layer 'dense' (Dense, at 'layers/dense') "
        "('sequential/dense/kernel') has shape (3, 2) but 'layers/dense/vars/0' in the file has "
        "shape (500000000,)"
    )


def test_a_hard_link_cycle_in_a_weights_file_is_refused(tmp_path):
    path = str(tmp_path / "model.weights.h5")
    model = _model()
    model.save_weights(path)
    with h5py.File(path, "r+") as h5file:
        h5file["layers/dense/loop"] = h5file["layers"]  # a hard link back to an ancestor
    with pytest.raises(WeightsFileError, match=re.escape(
            f"{path}: refusing to read this weights file: 'layers/dense/loop' links back to an "
            "object already seen (a hard-link cycle or a shared object). Weights files only "
            "hold numeric arrays.")):
        model.load_weights(path)


def test_a_config_declaring_a_huge_layer_is_refused_before_its_weights_exist(tmp_path,
                                                                             run_capped):
    """A 1 KiB edit of config.json (units: 10**9) would make the Dense layer allocate 3e9
    values; what the weights file holds bounds what the layers may create."""
    saved = tmp_path / "good.keras"
    _model().save(saved)
    members = _members(saved)
    config = json.loads(members["config.json"])
    config["config"]["layers"][-1]["config"]["units"] = 10 ** 9
    members["config.json"] = json.dumps(config).encode()
    path = tmp_path / "huge.keras"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    status, output = run_capped(_report(f"ks.models.load_model({str(path)!r})"))
    assert status == 0, output
    assert re.match(rf"KerasFileError {re.escape(str(path))} \(config\.json\): layer "
                    r"'dense(_\d+)?' declares a weight of shape \(3, 1000000000\) "
                    r"\(3,000,000,000 values\), past the 1,048,584 values", output), output
