"""KerasFileEditor against Keras 3's: the same tree from a file Keras writes, the same edits,
the same `compare` counts, a file Keras loads after our `save`, and the errors.

The Keras comparisons skip without keras; run with the interop venv:
    KERAS_BACKEND=numpy python -m pytest tests/saving/test_keras_parity_file_editor.py
"""

import os

import numpy as np
import pytest

import kerasish as ks

os.environ.setdefault("KERAS_BACKEND", "numpy")


def _model(lib, units=3, extra=False):
    layers = [lib.Input((4,)), lib.layers.Dense(units, name="hidden"),
              lib.layers.Dense(2, name="head")]
    if extra:
        layers.append(lib.layers.Dense(1, name="extra"))
    return lib.Sequential(layers)


def _assert_same_tree(ours, theirs):
    assert list(ours) == list(theirs)
    for key, value in theirs.items():
        if isinstance(value, dict):
            _assert_same_tree(ours[key], value)
        else:
            np.testing.assert_array_equal(ours[key], value)


@pytest.mark.parametrize("suffix", [".keras", ".weights.h5"])
def test_reads_the_tree_keras_reads_and_edits_the_same(tmp_path, suffix, capsys):
    keras = pytest.importorskip("keras")
    keras.utils.set_random_seed(1)
    model = _model(keras, extra=True)
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.apply([np.ones(v.shape, "float32") for v in model.trainable_variables],
                          model.trainable_variables)
    path = str(tmp_path / f"m{suffix}")
    (model.save if suffix == ".keras" else model.save_weights)(path)
    theirs = keras.saving.KerasFileEditor(path)
    ours = ks.saving.KerasFileEditor(path)
    _assert_same_tree(ours.weights_dict, theirs.weights_dict)
    if suffix == ".keras":
        assert ours.config == theirs.config and ours.metadata == theirs.metadata
    # (whole paths: Keras's count of a bare name's occurrences doubles it when groups
    # follow, so a bare name Keras refuses as repeated is accepted here; see the last test)
    for editor in (theirs, ours):
        editor.delete_object("layers/dense_2")
        editor.rename_object("layers/dense_1", "dense_9")
        editor.delete_weight("layers/dense", "1")
        editor.add_weights("layers/dense", {"1": np.full(3, 0.5, "float32")})
        editor.add_object("layers/dense_1", {"0": np.ones((3, 2), "float32"),
                                             "1": np.zeros(2, "float32")})
        editor.delete_object("layers/dense_9")
    _assert_same_tree(ours.weights_dict, theirs.weights_dict)
    reference = _model(keras)
    mine, keras_result = ours.compare(_model(ks)), theirs.compare(reference)
    assert (mine["status"], mine["error_count"]) == (keras_result["status"],
                                                     keras_result["error_count"])
    # four weights match; Keras's count adds its running total into each nested count
    assert mine["match_count"] == 4
    ours.save(tmp_path / "edited.weights.h5")
    reference.load_weights(tmp_path / "edited.weights.h5")  # Keras loads what we wrote
    np.testing.assert_array_equal(reference.layers[0].bias.numpy(), np.full(3, 0.5))
    np.testing.assert_array_equal(reference.layers[1].kernel.numpy(), np.ones((3, 2)))
    capsys.readouterr()


def test_compare_reports_the_differences(tmp_path, capsys):
    path = _model(ks).save_weights(str(tmp_path / "m.weights.h5"))
    editor = ks.saving.KerasFileEditor(path)
    assert editor.compare(_model(ks)) == {"status": "success", "error_count": 0,
                                          "match_count": 4}
    result = editor.compare(_model(ks, units=5, extra=True))
    # the hidden kernel and bias, the head's kernel, and the extra layer
    assert result["status"] == "error" and result["error_count"] == 4
    out = capsys.readouterr().out
    assert "Weight shape mismatch for /layers/dense/0" in out
    assert "Object /layers/dense_2 present in reference model, missing from saved file" in out


def test_errors_name_what_is_wrong(tmp_path, capsys):
    with pytest.raises(ValueError, match="expected a .keras or .weights.h5 file"):
        ks.saving.KerasFileEditor(str(tmp_path / "m.h5"))
    model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(2), ks.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    path = model.save_weights(str(tmp_path / "m.weights.h5"))
    editor = ks.saving.KerasFileEditor(path)
    with pytest.raises(ValueError, match="'nothing' does not appear in the file"):
        editor.delete_object("nothing")
    with pytest.raises(ValueError, match="path 'layers/nothing' is not in the file"):
        editor.rename_object("layers/nothing", "x")
    with pytest.raises(ValueError, match="must be a leaf name"):
        editor.rename_object("dense", "layers/x")
    with pytest.raises(ValueError, match="weight '7' is not in object 'dense'"):
        editor.delete_weight("dense", "7")
    with pytest.raises(ValueError, match="weights must be a dict"):
        editor.add_weights("dense", [np.ones(2)])
    with pytest.raises(ValueError, match="path 'nowhere' is not in the file"):
        editor.add_object("nowhere/dense_5", {"0": np.ones(2)})
    with pytest.raises(ValueError, match="expected a .weights.h5 file"):
        editor.save(str(tmp_path / "x.keras"))
    editor.add_object("vars", {"0": np.ones(2)})
    editor.add_object("layers/dense_1b", {"0": np.ones(2)})
    editor.add_weights("layers/dense_1b", {"1": np.ones(2)})
    editor.weights_dict["extra"] = {"dense": {"0": np.ones(1)}}
    with pytest.raises(ValueError, match="'dense' occurs more than once"):
        editor.delete_object("dense")
    editor.delete_object("dense_1b")  # once in the file, though groups follow it
    assert "dense_1b" not in editor.weights_dict["layers"]
    capsys.readouterr()
