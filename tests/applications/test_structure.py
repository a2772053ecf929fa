"""The larger variants of each family have Keras's structure: the same layers with weights,
in the same order, with the same weight names and shapes (a fingerprint taken from Keras 3.15
with `weights=None, classes=10` at the sizes below), so Keras's weight files fill them.

To take the fingerprints again, run `fingerprint(keras, name)` in Keras's environment
(`KERAS_BACKEND=numpy`)."""

import hashlib
import json

import numpy as np
import pytest

import kerasish as ks

SIZES = {"VGG19": 32, "ResNet101": 32, "ResNet152": 32, "ResNet101V2": 32, "ResNet152V2": 32,
         "DenseNet169": 32, "DenseNet201": 32}
# name: (layers with weights, parameters, sha256 of [[layer, [[weight, shape], ...]], ...])
KERAS = {
    "VGG19": (19, 38947914, "abcaec13283f6b7c"),
    "ResNet101": (209, 42678666, "0bc7d05c34f6c95f"),
    "ResNet152": (311, 58391434, "6e332f338541b54a"),
    "ResNet101V2": (205, 42647050, "e824dd48d58562e1"),
    "ResNet152V2": (307, 58352138, "c73531bea5ec1e05"),
    "DenseNet169": (338, 12659530, "d168aae8b983a206"),
    "DenseNet201": (402, 18341194, "63c54e74450f1047"),
}


def fingerprint(module, name):
    """(layers with weights, parameters, digest) of `module.applications.<name>`, its
    weights listed as Keras's legacy files list them (trainable first)."""
    size = SIZES[name]
    model = getattr(module.applications, name)(weights=None, input_shape=(size, size, 3),
                                               classes=10)
    rows = [[layer.name, [[w.path.split("/")[-1], list(w.shape)]
                          for w in layer.trainable_weights + layer.non_trainable_weights]]
            for layer in model.layers if layer.weights]
    parameters = sum(int(np.prod(shape)) for _, weights in rows for _, shape in weights)
    return len(rows), parameters, hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(KERAS))
def test_structure_is_keras(name):
    assert fingerprint(ks, name) == KERAS[name]
