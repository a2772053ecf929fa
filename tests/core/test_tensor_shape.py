"""`ks.TensorShape`: a tuple with TF's methods, unknown dimensions, its checks."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import kerasish as ks


def test_tensor_shape_is_a_tuple_with_tf_methods():
    shape = ks.zeros([2, 3, 4]).shape
    assert isinstance(shape, tuple) and isinstance(shape, ks.TensorShape)
    assert shape == (2, 3, 4) and hash(shape) == hash((2, 3, 4))
    assert repr(shape) == "(2, 3, 4)"
    assert shape.as_list() == [2, 3, 4] and shape.rank == shape.ndims == 3
    assert shape.num_elements() == 24 and shape.is_fully_defined()
    assert shape[0] == 2 and shape[1:] == (3, 4)
    assert ks.TensorShape(shape[1:]).as_list() == [3, 4]
    assert shape.concatenate([5]) == (2, 3, 4, 5)
    assert ks.Variable(np.zeros((5, 1))).shape.as_list() == [5, 1]
    assert pickle.loads(pickle.dumps(shape)) == shape


def test_tensor_shape_with_unknown_dimensions():
    symbolic = ks.Input((3,)).shape
    assert isinstance(symbolic, ks.TensorShape) and symbolic.as_list() == [None, 3]
    shape = ks.TensorShape([None, 3])
    assert shape.as_list() == [None, 3]
    assert not shape.is_fully_defined() and shape.num_elements() is None


def test_tensor_shape_rejects_bad_dimensions():
    with pytest.raises(TypeError, match=r"dimension 1 must be an integer or None, got 2.5"):
        ks.TensorShape([1, 2.5])
    with pytest.raises(ValueError, match=r"dimension 0 is negative \(-1\)"):
        ks.TensorShape([-1])
