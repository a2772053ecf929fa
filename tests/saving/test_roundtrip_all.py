"""Every public class of ks.layers, ks.losses, ks.metrics, ks.optimizers, the schedules,
ks.initializers, ks.regularizers and ks.constraints survives serialize -> JSON ->
deserialize -> serialize.

The classes are read from the namespaces, so a class added later is tested at once; one whose
constructor needs arguments takes them from EXAMPLE_ARGS (add an entry there for a new class).
"""

import inspect
import json

import pytest

import kerasish as ks
from kerasish.saving import deserialize_keras_object, serialize_keras_object

FAMILIES = {
    "layers": (ks.layers, ks.layers.Layer),
    "losses": (ks.losses, ks.losses.Loss),
    "metrics": (ks.metrics, ks.metrics.Metric),
    "optimizers": (ks.optimizers, ks.optimizers.Optimizer),
    "schedules": (ks.optimizers.schedules, ks.optimizers.schedules.LearningRateSchedule),
    "initializers": (ks.initializers, ks.initializers.Initializer),
    "regularizers": (ks.regularizers, ks.regularizers.Regularizer),
    "constraints": (ks.constraints, ks.constraints.Constraint),
}

# Constructor arguments for classes that need some: {class name: () -> kwargs}.
EXAMPLE_ARGS = {
    "Activation": lambda: {"activation": "tanh"},
    "AveragePooling1D": lambda: {"pool_size": 2},
    "Bidirectional": lambda: {"layer": ks.layers.LSTM(3, return_sequences=True)},
    "Conv1D": lambda: {"filters": 2, "kernel_size": 3},
    "Conv2D": lambda: {"filters": 2, "kernel_size": (3, 2), "strides": 2, "padding": "same"},
    "ConvLSTM1D": lambda: {"filters": 2, "kernel_size": 3, "padding": "same"},
    "ConvLSTM2D": lambda: {"filters": 2, "kernel_size": (3, 2), "return_sequences": True},
    "ConvLSTM3D": lambda: {"filters": 2, "kernel_size": 2, "data_format": "channels_first"},
    "Conv2DTranspose": lambda: {"filters": 2, "kernel_size": 3},
    "Dense": lambda: {"units": 3, "activation": "relu", "kernel_regularizer": "l2"},
    "CenterCrop": lambda: {"height": 2, "width": 3},
    "IntegerLookup": lambda: {"vocabulary": [7, 3, 5], "mask_token": 0},
    "Normalization": lambda: {"axis": (1, 2), "mean": [1.0, 2.0], "variance": [4.0, 9.0]},
    "RandomCrop": lambda: {"height": 2, "width": 3, "seed": 1},
    # the image augmentation layers (issue 20)
    "MaxNumBoundingBoxes": lambda: {"max_number": 3},
    "Pipeline": lambda: {"layers": [ks.layers.RandomFlip(), ks.layers.RandomContrast(0.2)]},
    "RandomBrightness": lambda: {"factor": (-0.1, 0.3), "value_range": (0, 1), "seed": 2},
    "RandomColorDegeneration": lambda: {"factor": 0.3},
    "RandomContrast": lambda: {"factor": 0.3, "seed": 4},
    "RandomHue": lambda: {"factor": 0.2},
    "RandomPosterization": lambda: {"factor": (2, 6)},
    "RandomRotation": lambda: {"factor": 0.1, "fill_mode": "constant", "fill_value": 1.0},
    "RandomSaturation": lambda: {"factor": 0.4},
    "RandomSharpness": lambda: {"factor": 0.2},
    "RandomTranslation": lambda: {"height_factor": 0.1, "width_factor": (-0.2, 0.1)},
    "RandomZoom": lambda: {"height_factor": (-0.2, 0.3), "interpolation": "nearest"},
    "Rescaling": lambda: {"scale": 1 / 255, "offset": -0.5},
    "Resizing": lambda: {"height": 2, "width": 3, "interpolation": "nearest"},
    "StringLookup": lambda: {"vocabulary": ["a", "b"], "output_mode": "tf_idf",
                             "idf_weights": [0.5, 0.25]},
    "TextVectorization": lambda: {"max_tokens": 10, "ngrams": 2, "output_sequence_length": 4,
                                  "vocabulary": ["the", "cat"]},
    "DepthwiseConv2D": lambda: {"kernel_size": 3},
    "Dot": lambda: {"axes": 1},
    "Dropout": lambda: {"rate": 0.25, "seed": 3},
    "Embedding": lambda: {"input_dim": 10, "output_dim": 4},
    "ReversibleEmbedding": lambda: {"input_dim": 10, "output_dim": 4, "tie_weights": False},
    "GroupQueryAttention": lambda: {"head_dim": 4, "num_query_heads": 4, "num_key_value_heads": 2},
    "CategoryEncoding": lambda: {"num_tokens": 5, "output_mode": "count"},
    "Hashing": lambda: {"num_bins": 5, "salt": 3},
    "HashedCrossing": lambda: {"num_bins": 5},
    "Discretization": lambda: {"bin_boundaries": [0.0, 1.0]},
    "GRU": lambda: {"units": 3},
    "GRUCell": lambda: {"units": 3},
    "GaussianDropout": lambda: {"rate": 0.1},
    "GaussianNoise": lambda: {"stddev": 0.1},
    "InputLayer": lambda: {"shape": (3, 4), "name": "features"},
    "Lambda": lambda: {"function": ks.activations.relu, "output_shape": (3,)},
    "LSTM": lambda: {"units": 3, "return_state": True},
    "LSTMCell": lambda: {"units": 3},
    "MultiHeadAttention": lambda: {"num_heads": 2, "key_dim": 4},
    "Permute": lambda: {"dims": (2, 1)},
    "RNN": lambda: {"cell": ks.layers.SimpleRNNCell(3)},
    "Reshape": lambda: {"target_shape": (2, 3)},
    "RepeatVector": lambda: {"n": 3},
    "SeparableConv2D": lambda: {"filters": 2, "kernel_size": 3},
    "SimpleRNN": lambda: {"units": 3},
    "SimpleRNNCell": lambda: {"units": 3},
    "SpatialDropout1D": lambda: {"rate": 0.1},
    "StackedRNNCells": lambda: {"cells": [ks.layers.LSTMCell(3), ks.layers.GRUCell(2)]},
    "SpatialDropout2D": lambda: {"rate": 0.1},
    "TimeDistributed": lambda: {"layer": ks.layers.Dense(2)},
    "AdaptiveAveragePooling1D": lambda: {"output_size": 3},
    "AdaptiveAveragePooling2D": lambda: {"output_size": (3, 2)},
    "AdaptiveAveragePooling3D": lambda: {"output_size": 2, "data_format": "channels_first"},
    "AdaptiveMaxPooling1D": lambda: {"output_size": 3},
    "AdaptiveMaxPooling2D": lambda: {"output_size": 2},
    "AdaptiveMaxPooling3D": lambda: {"output_size": (1, 2, 3)},
    "AlphaDropout": lambda: {"rate": 0.2, "noise_shape": (None, 1), "seed": 3},
    "AveragePooling3D": lambda: {"pool_size": 2, "padding": "same"},
    "Conv1DTranspose": lambda: {"filters": 2, "kernel_size": 3, "output_padding": 1,
                                "strides": 2},
    "Conv3D": lambda: {"filters": 2, "kernel_size": (3, 2, 1), "groups": 2},
    "Conv3DTranspose": lambda: {"filters": 2, "kernel_size": 3, "strides": 2},
    "DepthwiseConv1D": lambda: {"kernel_size": 3, "depth_multiplier": 2},
    "EinsumDense": lambda: {"equation": "abc,cd->abd", "output_shape": (None, 4),
                            "bias_axes": "d"},
    "SeparableConv1D": lambda: {"filters": 2, "kernel_size": 3, "depth_multiplier": 2},
    "SpatialDropout3D": lambda: {"rate": 0.3, "data_format": "channels_first"},
    "SpectralNormalization": lambda: {"layer": ks.layers.Dense(2), "power_iterations": 2},
    "Wrapper": lambda: {"layer": ks.layers.Dense(2)},
    "MeanIoU": lambda: {"num_classes": 3},
    "IoU": lambda: {"num_classes": 3, "target_class_ids": [0, 2]},
    "OneHotIoU": lambda: {"num_classes": 3, "target_class_ids": [1]},
    "OneHotMeanIoU": lambda: {"num_classes": 3},
    "PrecisionAtRecall": lambda: {"recall": 0.5},
    "RecallAtPrecision": lambda: {"precision": 0.5},
    "SensitivityAtSpecificity": lambda: {"specificity": 0.5},
    "SpecificityAtSensitivity": lambda: {"sensitivity": 0.5},
    "Adam": lambda: {"learning_rate": ks.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)},
    "SGD": lambda: {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True, "clipnorm": 1.0},
    "CosineDecay": lambda: {"initial_learning_rate": 0.1, "decay_steps": 100},
    "ExponentialDecay": lambda: {"initial_learning_rate": 0.1, "decay_steps": 10,
                                 "decay_rate": 0.5},
    "PiecewiseConstantDecay": lambda: {"boundaries": [10, 20], "values": [0.1, 0.01, 0.001]},
    "CosineDecayRestarts": lambda: {"initial_learning_rate": 0.1, "first_decay_steps": 10,
                                    "t_mul": 1.5, "m_mul": 0.8, "alpha": 0.1},
    "InverseTimeDecay": lambda: {"initial_learning_rate": 0.1, "decay_steps": 10,
                                 "decay_rate": 0.5, "staircase": True},
    "PolynomialDecay": lambda: {"initial_learning_rate": 0.1, "decay_steps": 10, "power": 2.0,
                                "cycle": True},
    "LossScaleOptimizer": lambda: {"inner_optimizer": ks.optimizers.Lion(0.01),
                                   "initial_scale": 64.0, "dynamic_growth_steps": 5},
    "L1L2": lambda: {"l1": 0.1, "l2": 0.2},
    "MultiOptimizer": lambda: {"optimizer_map": ks.optimizers.OptimizerMap(
        ks.optimizers.SGD(0.5), {"out/.*": ks.optimizers.Adam(0.01)}), "loss_scale_factor": 2.0},
    "OptimizerMap": lambda: {"default_optimizer": ks.optimizers.SGD(0.5),
                             "optimizer_map": {"out/.*": ks.optimizers.Muon(0.01)}},
}

# Bases that wrap a Python function or have nothing to configure, with the reason.
NOT_SERIALIZED = {
    "LossFunctionWrapper": "wraps a Python function; its named subclasses are serialized",
    "MeanMetricWrapper": "wraps a Python function; its named subclasses are serialized",
    "Optimizer": "abstract base (no update rule)",
    "LearningRateSchedule": "abstract base (no schedule)",
}


def _classes():
    cases = []
    for family, (module, base) in FAMILIES.items():
        seen = set()
        for name, cls in sorted(vars(module).items()):
            if name.startswith("_") or not inspect.isclass(cls) or not issubclass(cls, base):
                continue
            if cls in seen or cls.__name__ in NOT_SERIALIZED:
                continue
            seen.add(cls)
            cases.append(pytest.param(family, cls, id=f"{family}.{cls.__name__}"))
    return cases


def _instance(cls):
    if cls.__name__ in EXAMPLE_ARGS:
        return cls(**EXAMPLE_ARGS[cls.__name__]())
    try:
        return cls()
    except TypeError as exc:
        pytest.fail(
            f"{cls.__module__}.{cls.__name__} needs constructor arguments ({exc}); add an entry "
            f"'{cls.__name__}': lambda: {{...}} to EXAMPLE_ARGS in {__file__}"
        )


@pytest.mark.parametrize("family, cls", _classes())
def test_class_round_trips_through_its_serialized_config(family, cls):
    obj = _instance(cls)
    config = json.loads(json.dumps(serialize_keras_object(obj)))
    assert config["class_name"] == cls.__name__
    assert config["module"].startswith("keras"), config["module"]
    copy = deserialize_keras_object(config)
    assert type(copy) is cls
    assert json.loads(json.dumps(serialize_keras_object(copy))) == config


def test_every_family_was_found():
    found = {param.values[0] for param in _classes()}
    assert found == set(FAMILIES)


def test_a_class_without_example_args_fails_naming_it():
    class NeedsUnits(ks.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)

    with pytest.raises(pytest.fail.Exception, match="NeedsUnits needs constructor arguments.*"
                       "add an entry 'NeedsUnits'"):
        _instance(NeedsUnits)
