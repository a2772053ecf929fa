"""`ks.strings` against `tf.strings` (when TensorFlow is installed), its errors, and a
TextVectorization standardize function written with it."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError

TEXTS = ["Hello, World!", "  ÉTÉ  à la plage\t", "a<br />b<br />", "", "x1 y22  z333"]


def _py(value):
    """A tensor's (or TF tensor's) values as Python strings/numbers, bytes decoded."""
    array = np.asarray(value.numpy())
    if array.dtype.kind in "SO":
        return np.vectorize(lambda b: b.decode("utf-8") if isinstance(b, bytes) else b,
                            otypes=[object])(array).tolist()
    return array.tolist()


CASES = [
    ("lower", (TEXTS,), {}),
    ("lower", (TEXTS,), {"encoding": "utf-8"}),
    ("upper", (TEXTS,), {}),
    ("upper", (TEXTS,), {"encoding": "utf-8"}),
    ("regex_replace", (TEXTS, "<br />", " "), {}),
    ("regex_replace", (TEXTS, r"(\w)(\w)", r"\2\1"), {"replace_global": False}),
    ("regex_replace", (TEXTS, r"[^a-z ]", ""), {}),
    ("regex_replace", (TEXTS, r"(l+)", r"<\0>"), {}),
    ("regex_replace", (TEXTS, "[[:punct:]]", ""), {}),
    ("regex_replace", (TEXTS, "[^[:alnum:][:space:]]+", "_"), {}),
    ("regex_full_match", (TEXTS, r"[a-z0-9 ]*"), {}),
    ("strip", (TEXTS,), {}),
    ("length", (TEXTS,), {}),
    ("length", (TEXTS,), {"unit": "UTF8_CHAR"}),
    ("substr", (["hello", "wörld"], 1, 3), {}),
    ("substr", (["hello", "wörld"], 1, 3), {"unit": "UTF8_CHAR"}),
    ("substr", (["hello", "world"], -3, 10), {}),
    ("substr", (["hello", "world"], [0, 2], [2, 1]), {}),
    ("join", ([["a", "b"], ["x", "y"]],), {"separator": "--"}),
    ("join", ([["a", "b"], "z"],), {}),
    ("reduce_join", ([["a", "b", "c"], ["d", "e", "f"]],), {}),
    ("reduce_join", ([["a", "b", "c"], ["d", "e", "f"]],), {"axis": 0, "separator": "+"}),
    ("reduce_join", ([["a", "b", "c"], ["d", "e", "f"]],), {"axis": -1, "keepdims": True}),
    ("to_number", (["1.5", "-2", "1e3", "inf"],), {}),
    ("to_number", (["7", "-12"],), {"out_type": "int64"}),
    ("to_number", (["7", "-12"],), {"out_type": "int32"}),
    ("as_string", ([1.5, -2.25, 1e-7],), {}),
    ("as_string", ([1.5, -2.25, 1e-7],), {"precision": 2}),
    ("as_string", ([1.5, -2.25, 1e-7],), {"scientific": True}),
    ("as_string", ([1.5, -2.25, 1e-7],), {"shortest": True}),
    ("as_string", ([3, 42, -5],), {"width": 4, "fill": "0"}),
    ("as_string", ([3, 42],), {"width": 4}),
    ("as_string", ([True, False],), {}),
    ("split", ("a  b c",), {}),
    ("split", ("a,,b",), {"sep": ","}),
    ("unicode_split", ("été!", "UTF-8"), {}),
]


def _tf_arguments(name, args, kwargs, tf):
    if name == "to_number" and "out_type" in kwargs:
        kwargs = dict(kwargs, out_type=getattr(tf, kwargs["out_type"]))
    if name in ("as_string",):
        args = (np.asarray(args[0]),) + args[1:]
    return args, kwargs


@pytest.mark.parametrize("name,args,kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_tf_strings(name, args, kwargs):
    tf = pytest.importorskip("tensorflow")
    ours = getattr(ks.strings, name)(*args, **kwargs)
    tf_args, tf_kwargs = _tf_arguments(name, args, kwargs, tf)
    theirs = getattr(tf.strings, name)(*tf_args, **tf_kwargs)
    assert _py(ours) == _py(theirs)
    if name in ("length", "to_number", "regex_full_match"):
        assert np.dtype(ours.dtype) == np.dtype(theirs.dtype.as_numpy_dtype)


def test_ragged_results_match_tf():
    tf = pytest.importorskip("tensorflow")
    for ours, theirs in ((ks.strings.split(TEXTS), tf.strings.split(TEXTS)),
                         (ks.strings.split(TEXTS, sep=" ", maxsplit=1),
                          tf.strings.split(TEXTS, sep=" ", maxsplit=1)),
                         (ks.strings.unicode_split(TEXTS, "UTF-8"),
                          tf.strings.unicode_split(TEXTS, "UTF-8"))):
        assert ours.to_list() == [[b.decode() for b in row] for row in theirs.to_list()]
        assert _py(ours.to_tensor()) == _py(theirs.to_tensor())


def test_invalid_utf8_bytes_are_replaced_as_tf_does():
    raw = np.array([b"a\xffb"], dtype=object)
    assert ks.strings.unicode_split(raw, "UTF-8").to_list() == [["a", "\ufffd", "b"]]
    assert ks.strings.unicode_split(raw, "UTF-8", errors="ignore").to_list() == [["a", "b"]]
    with pytest.raises(InvalidArgumentError, match="invalid UTF-8"):
        ks.strings.unicode_split(raw, "UTF-8", errors="strict")


def test_inputs_of_every_kind_and_results_are_tensors():
    assert ks.strings.lower("AB").numpy().item() == "ab"
    assert ks.strings.lower(b"AB").numpy().item() == "ab"
    tensor = ks.convert_to_tensor(np.array(["Ab", "C"]))
    result = ks.strings.lower(tensor)
    assert isinstance(result, ks.Tensor) and result.numpy().tolist() == ["ab", "c"]
    assert ks.strings.length(np.array([[b"ab"], [b"c"]])).numpy().tolist() == [[2], [1]]


def test_errors_name_what_is_wrong():
    with pytest.raises(InvalidArgumentError, match="strings.lower: takes strings, got values "
                                                   "of dtype float"):
        ks.strings.lower(np.zeros(2))
    with pytest.raises(InvalidArgumentError, match='encoding must be "" or "utf-8"'):
        ks.strings.lower("a", encoding="latin-1")
    with pytest.raises(InvalidArgumentError, match="invalid regular expression"):
        ks.strings.regex_replace("a", "(", "")
    with pytest.raises(InvalidArgumentError, match="sep must not be empty"):
        ks.strings.split("a", sep="")
    with pytest.raises(InvalidArgumentError, match="takes a string or strings of rank 1"):
        ks.strings.split([["a"]])
    with pytest.raises(InvalidArgumentError, match="got one string"):
        ks.strings.join("ab")
    with pytest.raises(InvalidArgumentError, match="unit must be 'BYTE' or 'UTF8_CHAR'"):
        ks.strings.length("a", unit="CHAR")
    with pytest.raises(InvalidArgumentError, match="pos 9 is out of range"):
        ks.strings.substr("abc", 9, 1)
    with pytest.raises(InvalidArgumentError, match="len must not be negative"):
        ks.strings.substr("abc", 0, -1)
    with pytest.raises(InvalidArgumentError, match="axis 2 is out of range"):
        ks.strings.reduce_join([["a"]], axis=2)
    with pytest.raises(InvalidArgumentError, match="could not correctly convert string: 'x'"):
        ks.strings.to_number(["1", "x"])
    with pytest.raises(InvalidArgumentError, match="could not correctly convert string: '1.5'"):
        ks.strings.to_number(["1.5"], out_type="int32")
    with pytest.raises(InvalidArgumentError, match="does not fit in int32"):
        ks.strings.to_number(["9999999999"], out_type="int32")
    with pytest.raises(InvalidArgumentError, match="scientific or shortest, not both"):
        ks.strings.as_string([1.0], scientific=True, shortest=True)
    with pytest.raises(InvalidArgumentError, match="fill must be"):
        ks.strings.as_string([1.0], fill="x")
    with pytest.raises(InvalidArgumentError, match="apply to floats only"):
        ks.strings.as_string([1], precision=2)
    with pytest.raises(InvalidArgumentError, match="takes numbers or bools"):
        ks.strings.as_string(np.array([None], dtype=object))
    with pytest.raises(InvalidArgumentError, match="input_encoding='UTF-16' is not supported"):
        ks.strings.unicode_split("a", "UTF-16")
    with pytest.raises(InvalidArgumentError, match="errors must be"):
        ks.strings.unicode_split("a", "UTF-8", errors="skip")


def custom_standardization(input_data):
    lowercase = ks.strings.lower(input_data)
    stripped_html = ks.strings.regex_replace(lowercase, "<br />", " ")
    return ks.strings.regex_replace(stripped_html, r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]",
                                    "")


def test_a_custom_standardization_for_text_vectorization():
    layer = ks.layers.TextVectorization(standardize=custom_standardization,
                                        output_sequence_length=4)
    layer.adapt(np.array(["The CAT<br />sat.", "the dog!"]))
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "sat", "dog", "cat"]
    ids = layer(np.array(["A cat, the DOG<br />"])).numpy().tolist()
    assert ids == [[1, 5, 2, 4]]
    dataset = ks.data.Dataset.from_tensor_slices(np.array(["X<br />Y!"])).map(
        custom_standardization)
    assert next(iter(dataset)).numpy().item() == "x y"
