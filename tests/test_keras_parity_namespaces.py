"""ks.ops, ks.utils, default layer names and multi-output log names against Keras 3.

Skipped without Keras; run with a Python that has Keras 3 and tensorflow-cpu installed:
`python -m pytest tests/test_keras_parity_namespaces.py`.
"""

import numpy as np
import pytest

import kerasish as ks

keras = pytest.importorskip("keras")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((4, 2)).astype(np.float32)
POSITIVE = np.abs(A) + 0.1

CASES = [
    ("sum", (A,), {"axis": 1}), ("mean", (A,), {"axis": 0, "keepdims": True}),
    ("max", (A,), {}), ("min", (A,), {"axis": -1}), ("prod", (A,), {"axis": 1}),
    ("var", (A,), {"axis": 1}), ("std", (A,), {}), ("logsumexp", (A,), {"axis": 1}),
    ("argmax", (A,), {}), ("argmin", (A,), {"axis": 1}), ("cumsum", (A,), {"axis": 1}),
    ("cumprod", (A,), {}), ("norm", (A,), {"axis": 1}), ("matmul", (A, B), {}),
    ("dot", (A, B), {}), ("dot", (A[0], A[1]), {}), ("exp", (A,), {}), ("log", (POSITIVE,), {}),
    ("sqrt", (POSITIVE,), {}), ("square", (A,), {}), ("abs", (A,), {}), ("sign", (A,), {}),
    ("clip", (A, -0.5, 0.5), {}), ("maximum", (A, 0.1), {}), ("power", (POSITIVE, 1.5), {}),
    ("transpose", (A,), {}), ("reshape", (A, (2, 6)), {}), ("expand_dims", (A, 1), {}),
    ("squeeze", (A[None],), {"axis": 0}), ("tile", (A, (1, 2)), {}),
    ("concatenate", ([A, A],), {"axis": 1}), ("stack", ([A, A],), {"axis": 2}),
    ("take", (A, [2, 0]), {"axis": 1}), ("take", (A, [7, 1]), {}),
    ("where", (A > 0, A, -A), {}), ("one_hot", (np.array([0, 2, 1]), 3), {}),
    ("pad", (A, ((1, 1), (0, 2))), {}), ("relu", (A,), {}), ("relu6", (6 * A,), {}),
    ("sigmoid", (A,), {}), ("softmax", (A,), {}), ("log_softmax", (A,), {"axis": 0}),
    ("softplus", (A,), {}), ("softsign", (A,), {}), ("silu", (A,), {}), ("selu", (A,), {}),
    ("elu", (A,), {"alpha": 0.5}), ("leaky_relu", (A,), {"negative_slope": 0.1}),
    ("gelu", (A,), {"approximate": False}), ("gelu", (A,), {"approximate": True}),
    ("hard_sigmoid", (A,), {}), ("log_sigmoid", (A,), {}), ("normalize", (A,), {}),
    ("arange", (1, 9, 2), {}), ("linspace", (0.0, 1.0, 5), {}), ("full", ((2, 3), 1.5), {}),
    ("zeros", ((2, 3),), {}), ("eye", (3, 4), {}),
    ("repeat", (A, 2), {"axis": 1}), ("repeat", (A, 2), {}), ("flip", (A,), {"axis": 0}),
    ("tril", (A,), {"k": -1}), ("triu", (A,), {"k": 1}),
    ("isnan", (np.array([0.0, np.nan, np.inf], np.float32),), {}),
    ("isinf", (np.array([0.0, np.nan, -np.inf], np.float32),), {}),
    ("isfinite", (np.array([0.0, np.nan, np.inf], np.float32),), {}),
    ("einsum", ("ij,jk->ik", A, B), {}), ("einsum", ("ij->j", A), {}),
    ("einsum", ("bqhd,bkhd->bhqk", np.ones((2, 3, 4, 5), np.float32),
                np.ones((2, 6, 4, 5), np.float32)), {}),
]


@pytest.mark.parametrize("name, args, kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_ops_match_keras(name, args, kwargs):
    want = keras.ops.convert_to_numpy(getattr(keras.ops, name)(*args, **kwargs))
    got = ks.ops.convert_to_numpy(getattr(ks.ops, name)(*args, **kwargs))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


INTS = np.array([[1, 2], [4, 9]], np.int32)
DTYPE_CASES = [("exp", (INTS,), {}), ("sqrt", (INTS,), {}), ("log1p", (INTS,), {}),
               ("tanh", (INTS,), {}), ("floor", (INTS,), {}), ("mean", (INTS,), {"axis": 0}),
               ("var", (INTS,), {}), ("std", (INTS,), {}), ("norm", (INTS,), {}),
               ("full", ((2,), 3), {}), ("round", (INTS,), {}), ("square", (INTS,), {}),
               ("round", (A,), {"decimals": 2}), ("sum", (INTS,), {}), ("argmax", (INTS,), {})]


@pytest.mark.parametrize("name, args, kwargs", DTYPE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(DTYPE_CASES)])
def test_result_dtypes_match_keras(name, args, kwargs):
    want = keras.ops.convert_to_numpy(getattr(keras.ops, name)(*args, **kwargs))
    got = ks.ops.convert_to_numpy(getattr(ks.ops, name)(*args, **kwargs))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_split_and_shape_match_keras():
    for sections in (2, [1, 3]):
        got = ks.ops.split(A, sections, axis=1)
        want = keras.ops.split(A, sections, axis=1)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), keras.ops.convert_to_numpy(w))
    assert ks.ops.shape(A) == tuple(keras.ops.shape(A))


def test_utils_match_keras():
    seqs = [[1, 2, 3], [4], [], [5, 6, 7, 8, 9]]
    for kwargs in ({}, {"maxlen": 3}, {"maxlen": 3, "padding": "post", "truncating": "post"},
                   {"maxlen": 2, "value": -1}, {"dtype": "float32", "value": 0.5}):
        want = keras.utils.pad_sequences(seqs, **kwargs)
        got = ks.utils.pad_sequences(seqs, **kwargs)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    labels = np.array([[2], [0], [1]])
    np.testing.assert_array_equal(ks.utils.to_categorical(labels, 4),
                                  keras.utils.to_categorical(labels, 4))
    np.testing.assert_allclose(ks.utils.normalize(A, order=1), keras.utils.normalize(A, order=1),
                               rtol=1e-6)
    for data in ((A,), (A, B), (A, B, A), A):
        got, want = ks.utils.unpack_x_y_sample_weight(data), \
            keras.utils.unpack_x_y_sample_weight(data)
        assert [id(v) for v in got] == [id(v) for v in want]


def test_default_layer_names_match_keras():
    names = ["Dense", "Conv1D", "Conv2D", "Conv2DTranspose", "MaxPooling2D", "AveragePooling2D",
             "GlobalAveragePooling2D", "BatchNormalization", "LayerNormalization", "LSTM", "GRU",
             "SimpleRNN", "MultiHeadAttention", "Embedding", "Flatten", "Dropout",
             "DepthwiseConv2D", "SeparableConv2D", "UpSampling2D", "ZeroPadding2D"]
    from kerasish.core.naming import snake_case

    for name in names:
        assert snake_case(name) == keras.src.utils.naming.to_snake_case(name), name


def test_multi_output_log_names_match_keras():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y = {"score": rng.standard_normal((32, 1)).astype(np.float32),
         "label": rng.integers(0, 3, 32)}

    def compile_and_fit(module, model):
        model.compile(
            optimizer="sgd",
            loss={"score": "mse",
                  "label": module.losses.SparseCategoricalCrossentropy(from_logits=True)},
            loss_weights={"score": 0.5, "label": 2.0},
            metrics={"score": ["mae"], "label": ["accuracy"]},
        )
        return set(model.fit(x, y, epochs=1, verbose=0).history)

    inputs = keras.Input((4,))
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    outputs = {"score": keras.layers.Dense(1)(hidden), "label": keras.layers.Dense(3)(hidden)}
    keras_names = compile_and_fit(keras, keras.Model(inputs, outputs))

    class TwoHeads(ks.Model):
        def __init__(self):
            super().__init__()
            self.hidden = ks.layers.Dense(8, activation="relu")
            self.score = ks.layers.Dense(1)
            self.label = ks.layers.Dense(3)

        def call(self, inputs):
            h = self.hidden(inputs)
            return {"score": self.score(h), "label": self.label(h)}

    assert compile_and_fit(ks, TwoHeads()) == keras_names
