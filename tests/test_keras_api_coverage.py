"""The Keras API coverage script's counting, on a made-up Keras listing."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import keras_api_coverage as coverage  # noqa: E402


def test_names_and_parameters_are_counted_as_the_docstring_says():
    listing = {"version": "3.x", "namespaces": {
        "layers": {
            "Dense": ["units", "activation", "name"],  # name: through **kwargs to Layer
            "Dropout": ["rate", "not_a_parameter_we_take"],
            "NoSuchLayer": ["x"],
        },
        "nowhere": {"thing": None},
    }}
    rows, missing = coverage.compare(listing)
    assert rows == [("layers", 3, 2, 1), ("nowhere", 1, 0, 0)]
    assert missing == ["keras.layers.Dropout: lacks parameters not_a_parameter_we_take",
                       "keras.layers.NoSuchLayer: missing", "keras.nowhere.thing: missing"]


def test_a_class_accepts_what_its_bases_take_through_kwargs():
    import kerasish as ks

    accepted = coverage.accepted(ks.layers.Dense)
    assert {"units", "activation", "name", "dtype", "trainable"} <= accepted
