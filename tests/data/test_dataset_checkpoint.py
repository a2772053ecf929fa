"""A Dataset is checkpointable: its shuffles' pass counters are saved and restored, so a
custom loop that checkpoints its dataset resumes the order of the next pass exactly."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.tracking import named_variables
from kerasish.data import Dataset


def _pass(dataset):
    return [int(v) for v in dataset]


def test_each_shuffle_counter_is_found_by_its_path_through_the_inputs():
    left = Dataset.range(6).shuffle(6, seed=1)
    right = Dataset.range(6).map(lambda t: t + 1).shuffle(3, seed=2).batch(2).unbatch()
    zipped = Dataset.zip(left, right).concatenate(Dataset.zip(left, right))
    paths = [path for path, _ in named_variables(zipped, "data")]
    assert paths == ["data/input/0/input/0/passes", "data/input/0/input/1/input/input/passes"]
    assert named_variables(Dataset.range(3).batch(2)) == []


def test_a_restored_dataset_makes_the_pass_the_saved_program_would_make(tmp_path):
    dataset = Dataset.range(20).shuffle(20, seed=13)
    checkpoint = ks.Checkpoint(data=dataset)
    for _ in range(2):
        _pass(dataset)
    path = checkpoint.write(str(tmp_path / "data"))
    third, fourth = _pass(dataset), _pass(dataset)

    rebuilt = Dataset.range(20).shuffle(20, seed=13)  # a new process builds it again
    assert _pass(Dataset.range(20).shuffle(20, seed=13)) != third
    ks.Checkpoint(data=rebuilt).read(path).assert_consumed()
    assert [_pass(rebuilt), _pass(rebuilt)] == [third, fourth]


def test_looking_at_the_element_spec_does_not_count_as_a_pass():
    dataset = Dataset.range(8).map(lambda t: t * 2).shuffle(8, seed=3)
    first = _pass(Dataset.range(8).map(lambda t: t * 2).shuffle(8, seed=3))
    assert dataset.element_spec.dtype == np.int64
    assert _pass(dataset) == first


def test_a_negative_restored_counter_is_refused_by_name():
    dataset = Dataset.range(4).shuffle(4, seed=1)
    [(_, passes)] = named_variables(dataset)
    passes.assign(-3)  # as a damaged or foreign checkpoint could restore it
    with pytest.raises(ValueError, match="pass counter 'passes' is -3"):
        _pass(dataset)
