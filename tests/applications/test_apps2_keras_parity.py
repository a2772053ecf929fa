"""MobileNet/V2/V3, EfficientNet/V2, ConvNeXt and NASNet against Keras 3.

Each model is built in Keras (numpy backend) with `weights=None` at a small input, its
weights filled with random values (moving variances positive), saved as `.weights.h5`,
loaded into the same model built here, and both predict the same random images to
float32 tolerance. The larger variants of each family compare their weights' names and
shapes, in order, without a forward pass. Skipped without keras; run with the interop venv:
    KERAS_BACKEND=numpy python -m pytest tests/applications/test_apps2_keras_parity.py
"""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "numpy")
keras = pytest.importorskip("keras")

import kerasish as ks  # noqa: E402
from kerasish.applications import (  # noqa: E402
    convnext,
    efficientnet,
    efficientnet_v2,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
)

RTOL, ATOL = 1e-4, 1e-4


def _randomize(model, seed=0):
    rng = np.random.default_rng(seed)
    for w in model.weights:
        shape, name = tuple(w.shape), w.path if hasattr(w, "path") else w.name
        if "variance" in name:
            value = rng.uniform(0.5, 1.5, shape)
        elif "count" in name:
            continue
        else:
            value = rng.normal(0.0, 0.2, shape)
        w.assign(value.astype(w.dtype if isinstance(w.dtype, str) else "float32"))


def _weights_list(model):
    return [(tuple(int(d) for d in w.shape)) for w in model.weights]


# (name, keras constructor, our constructor, kwargs, input shape)
FULL = [
    ("MobileNet", keras.applications.MobileNet, mobilenet.MobileNet,
     dict(alpha=0.25, classes=7), (32, 32, 3)),
    ("MobileNetV2", keras.applications.MobileNetV2, mobilenet_v2.MobileNetV2,
     dict(alpha=0.35, classes=7), (32, 32, 3)),
    ("MobileNetV3Small", keras.applications.MobileNetV3Small, mobilenet_v3.MobileNetV3Small,
     dict(classes=7), (32, 32, 3)),
    ("MobileNetV3LargeMin", keras.applications.MobileNetV3Large, mobilenet_v3.MobileNetV3Large,
     dict(minimalistic=True, include_top=False, pooling="avg", alpha=0.75), (32, 32, 3)),
    ("EfficientNetB0", keras.applications.EfficientNetB0, efficientnet.EfficientNetB0,
     dict(classes=7), (32, 32, 3)),
    ("EfficientNetV2B0", keras.applications.EfficientNetV2B0, efficientnet_v2.EfficientNetV2B0,
     dict(classes=7), (32, 32, 3)),
    ("ConvNeXtTiny", keras.applications.ConvNeXtTiny, convnext.ConvNeXtTiny,
     dict(classes=7), (32, 32, 3)),
    ("NASNetMobile", keras.applications.NASNetMobile, nasnet.NASNetMobile,
     dict(include_top=False, pooling="avg"), (32, 32, 3)),
]


@pytest.mark.parametrize("name,k_fn,ks_fn,kwargs,shape", FULL, ids=[f[0] for f in FULL])
def test_keras_weights_load_and_predict_the_same(tmp_path, name, k_fn, ks_fn, kwargs, shape):
    keras.utils.clear_session()
    ks.backend.clear_session()
    k_model = k_fn(weights=None, input_shape=shape, **kwargs)
    _randomize(k_model)
    path = str(tmp_path / "m.weights.h5")
    k_model.save_weights(path)
    x = np.random.default_rng(1).uniform(0, 255, (2,) + shape).astype("float32")
    expected = np.asarray(k_model.predict(x, verbose=0))
    ours = ks_fn(weights=path, input_shape=shape, **kwargs)
    assert [layer.name for layer in ours.layers if layer.weights] == [
        layer.name for layer in k_model.layers if layer.weights]
    got = np.asarray(ours.predict(x, verbose=0))
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL * np.abs(expected).max())


STRUCTURE = [
    (k, n, kw) for k, n, kw in [
        ("MobileNetV3Large", "MobileNetV3Large", {}),
        *[(f"EfficientNetB{i}", f"EfficientNetB{i}", {}) for i in range(1, 8)],
        *[(f"EfficientNetV2{v}", f"EfficientNetV2{v}", {}) for v in ("B1", "B2", "B3", "S",
                                                                     "M", "L")],
        *[(f"ConvNeXt{v}", f"ConvNeXt{v}", {}) for v in ("Small", "Base", "Large", "XLarge")],
        ("NASNetLarge", "NASNetLarge", dict(include_top=False)),
    ]
]
_MODULES = [mobilenet_v3, efficientnet, efficientnet_v2, convnext, nasnet]


def _ours(name):
    for module in _MODULES:
        if hasattr(module, name):
            return getattr(module, name)
    raise AssertionError(name)


@pytest.mark.parametrize("k_name,our_name,kwargs", STRUCTURE, ids=[s[0] for s in STRUCTURE])
def test_weight_names_and_shapes_match_keras(k_name, our_name, kwargs):
    keras.utils.clear_session()
    ks.backend.clear_session()
    shape = (32, 32, 3)
    k_model = getattr(keras.applications, k_name)(weights=None, input_shape=shape, **kwargs)
    ours = _ours(our_name)(weights=None, input_shape=shape, **kwargs)
    assert [layer.name for layer in ours.layers] == [layer.name for layer in k_model.layers]
    assert _weights_list(ours) == _weights_list(k_model)
    assert ours.name == k_model.name
