"""Configs of the losses, metrics, layers and constraints that need arguments carry over
between Keras 3 and kerasish both ways (the default-constructible ones are covered by
tests/saving/test_keras_interop.py). Skips without keras."""

import json

import pytest

import kerasish as ks

keras = pytest.importorskip("keras")

CASES = [
    ("losses", "CosineSimilarity", {"axis": 0}),
    ("losses", "BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.4,
                                           "gamma": 3.0, "from_logits": True}),
    ("losses", "CategoricalFocalCrossentropy", {"alpha": 0.5, "label_smoothing": 0.1}),
    ("losses", "SparseCategoricalCrossentropy", {"ignore_class": -1, "from_logits": True}),
    ("losses", "MeanSquaredError", {"reduction": "mean_with_sample_weight"}),
    ("metrics", "TruePositives", {"thresholds": [0.2, 0.5]}),
    ("metrics", "FalseNegatives", {"thresholds": 0.3}),
    ("metrics", "PrecisionAtRecall", {"recall": 0.7, "num_thresholds": 50}),
    ("metrics", "RecallAtPrecision", {"precision": 0.6, "class_id": 1}),
    ("metrics", "SensitivityAtSpecificity", {"specificity": 0.4}),
    ("metrics", "SpecificityAtSensitivity", {"sensitivity": 0.8}),
    ("metrics", "F1Score", {"average": "macro", "threshold": 0.5}),
    ("metrics", "FBetaScore", {"average": "weighted", "beta": 2.0}),
    ("metrics", "R2Score", {"class_aggregation": None, "num_regressors": 2}),
    ("metrics", "BinaryIoU", {"target_class_ids": [1], "threshold": 0.3}),
    ("metrics", "MeanIoU", {"num_classes": 3, "ignore_class": 0, "sparse_y_pred": False}),
    ("metrics", "CosineSimilarity", {"axis": 1}),
    ("layers", "Dot", {"axes": [1, 2], "normalize": True}),
    ("layers", "Concatenate", {"axis": 1}),
    ("layers", "ReLU", {"max_value": 6.0, "negative_slope": 0.1, "threshold": 0.5}),
    ("layers", "PReLU", {"alpha_regularizer": "l2", "alpha_constraint": "non_neg",
                         "shared_axes": [1, 2]}),
    ("layers", "Softmax", {"axis": [1, 2]}),
    ("layers", "SpatialDropout1D", {"rate": 0.2, "seed": 3}),
    ("layers", "SpatialDropout2D", {"rate": 0.2, "data_format": "channels_first"}),
    ("layers", "GaussianNoise", {"stddev": 0.1, "seed": 1}),
    ("layers", "GaussianDropout", {"rate": 0.3}),
    ("layers", "ActivityRegularization", {"l1": 0.1, "l2": 0.2}),
    ("layers", "Dense", {"units": 3, "kernel_constraint": "max_norm",
                         "bias_constraint": "non_neg", "activity_regularizer": "l1"}),
    ("layers", "Embedding", {"input_dim": 10, "output_dim": 4,
                             "embeddings_constraint": "unit_norm"}),
    ("constraints", "MaxNorm", {"max_value": 3.0, "axis": [0, 1]}),
    ("constraints", "MinMaxNorm", {"min_value": 0.5, "max_value": 2.0, "rate": 0.5}),
    ("constraints", "UnitNorm", {"axis": 1}),
    ("constraints", "NonNeg", {}),
]


def _comparable(config: dict) -> dict:
    """The constructor arguments of a serialized object, nested objects by class name."""
    out = {}
    for key, value in config["config"].items():
        if key in ("name", "dtype", "trainable"):
            continue
        if isinstance(value, dict) and "class_name" in value:
            value = value["class_name"]
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


@pytest.mark.parametrize("family, name, kwargs", CASES, ids=[c[1] for c in CASES])
def test_configs_carry_over_both_ways(family, name, kwargs):
    theirs = getattr(getattr(keras, family), name)(**kwargs)
    ours = getattr(getattr(ks, family), name)(**kwargs)
    from_keras = ks.saving.deserialize_keras_object(keras.saving.serialize_keras_object(theirs))
    assert type(from_keras) is type(ours)
    ours_config = json.loads(json.dumps(ks.saving.serialize_keras_object(ours)))
    from_kerasish = keras.saving.deserialize_keras_object(ours_config)
    assert type(from_kerasish).__name__ == name
    mine = _comparable(json.loads(json.dumps(ks.saving.serialize_keras_object(from_keras))))
    expected = _comparable(json.loads(json.dumps(keras.saving.serialize_keras_object(theirs))))
    shared = set(mine) & set(expected)
    assert {k: mine[k] for k in shared} == {k: expected[k] for k in shared}
