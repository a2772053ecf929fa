"""Tensor, Variable, conversion and dtypes, operators, indexing, Python protocols, random."""

import numpy as np
import pytest

import kerasish as ks

# ---------------------------------------------------------------- conversion and dtypes


def test_python_float_becomes_float32():
    assert ks.constant(3.0).dtype == np.float32
    assert ks.constant([1.5, 2.0]).dtype == np.float32
    assert ks.convert_to_tensor([[2.0]]).dtype == np.float32


def test_python_int_becomes_int32_and_int64_only_when_needed():
    assert ks.constant(3).dtype == np.int32
    assert ks.constant([[1, 2], [3, 4]]).dtype == np.int32
    assert ks.constant(2**40).dtype == np.int64


def test_mixed_python_list_is_float32_and_bool_is_bool():
    assert ks.constant([1, 2.5]).dtype == np.float32
    assert ks.constant(True).dtype == np.bool_


def test_numpy_arrays_keep_their_dtype():
    assert ks.constant(np.array([1.0, 2.0])).dtype == np.float64
    assert ks.constant(np.array([1, 2], dtype=np.int64)).dtype == np.int64
    assert ks.constant(np.float64(1.0)).dtype == np.float64


def test_convert_to_tensor_shares_memory_but_constant_copies():
    array = np.array([1.0, 2.0])
    with ks.device("/cpu:0"):
        assert np.shares_memory(ks.convert_to_tensor(array).numpy(), array)
        assert not np.shares_memory(ks.constant(array).numpy(), array)


def test_convert_to_tensor_passes_tensors_through():
    t = ks.constant([1.0])
    assert ks.convert_to_tensor(t) is t


def test_convert_to_tensor_refuses_a_silent_cast():
    with pytest.raises(ks.InvalidArgumentError, match="cast explicitly with ks.cast"):
        ks.convert_to_tensor(ks.constant([1.0]), dtype="int32")


def test_constant_with_dtype_and_shape():
    assert ks.constant(3, dtype=ks.float32).dtype == np.float32
    assert ks.constant(3.0, dtype="float64").dtype == np.float64
    np.testing.assert_array_equal(ks.constant(0, shape=[2, 3]).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(ks.constant([1, 2, 3, 4], shape=[2, 2]).numpy(), [[1, 2], [3, 4]])
    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"constant: a value with 3 elements \(shape \(3,\)\) cannot fill shape \(2, 2\)",
    ):
        ks.constant([1, 2, 3], shape=[2, 2])


def test_strings_are_rejected_clearly():
    with pytest.raises(TypeError, match="cannot convert str value 'abc' to a tensor"):
        ks.constant("abc")


def test_python_scalar_never_introduces_float64():
    x = ks.constant([1.0, 2.0])
    assert (x + 1.5).dtype == np.float32
    assert (2.0 * x).dtype == np.float32
    assert (x * np.float64(2.0)).dtype == np.float32
    assert (ks.constant([1], dtype="float16") * 2.0).dtype == np.float16
    # a float meeting an int tensor gives float32, not float64
    assert (ks.constant(1) + 2.5).dtype == np.float32
    assert float(ks.constant(1) + 2.5) == 3.5


def test_integer_true_division_is_float32():
    assert (ks.constant(7) / 2).dtype == np.float32
    assert float(ks.constant(7) / 2) == 3.5


def test_tensor_tensor_promotion_follows_numpy():
    a = ks.constant([1.0], dtype="float32")
    assert (a + ks.constant([1], dtype="int8")).dtype == np.float32
    assert (a + ks.constant([1.0], dtype="float64")).dtype == np.float64


# ---------------------------------------------------------------- inspection


def test_shape_dtype_device_ndim_size_numpy():
    with ks.device("/cpu:0"):
        t = ks.constant([[1, 2], [3, 4]])
    assert t.shape == (2, 2)
    assert isinstance(t.shape, tuple)
    assert t.dtype == np.int32
    assert t.ndim == 2
    assert t.size == 4
    assert t.device == "/cpu:0"
    assert type(t.numpy()) is np.ndarray
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])


def test_cpu_copy_is_differentiable():
    x = ks.constant([1.0, 2.0])
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = ks.reduce_sum(x.cpu() * 3.0)
    assert x.cpu().device == "/cpu:0"
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])


def test_executing_eagerly():
    assert ks.executing_eagerly() is True


# ---------------------------------------------------------------- operators


@pytest.fixture
def m():
    return ks.constant([[1.0, 2.0], [3.0, 4.0]])


def test_arithmetic_operators(m):
    a = m.numpy()
    cases = {
        "add": (m + 1, a + 1),
        "radd": (1 + m, 1 + a),
        "sub": (m - 1, a - 1),
        "rsub": (2 - m, 2 - a),
        "mul": (m * m, a * a),
        "rmul": (3 * m, 3 * a),
        "div": (m / 2, a / 2),
        "rdiv": (2 / m, 2 / a),
        "floordiv": (m // 2, a // 2),
        "mod": (m % 3, a % 3),
        "pow": (m**2, a**2),
        "rpow": (2**m, 2**a),
        "matmul": (m @ m, a @ a),
        "rmatmul": (a @ m, a @ a),
        "neg": (-m, -a),
        "pos": (+m, a),
        "abs": (abs(-m), a),
        "T": (m.T, a.T),
    }
    for name, (got, want) in cases.items():
        assert isinstance(got, ks.Tensor), name
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, err_msg=name)


def test_comparison_operators_are_elementwise(m):
    a = m.numpy()
    for got, want in [
        (m == 2.0, a == 2),
        (m != 2.0, a != 2),
        (m < 2.0, a < 2),
        (m <= 2.0, a <= 2),
        (m > 2.0, a > 2),
        (m >= 2.0, a >= 2),
    ]:
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got.numpy(), want)


def test_logical_operators():
    p = ks.constant([True, False, True])
    q = ks.constant([True, True, False])
    np.testing.assert_array_equal((p & q).numpy(), [True, False, False])
    np.testing.assert_array_equal((p | q).numpy(), [True, True, True])
    np.testing.assert_array_equal((p ^ q).numpy(), [False, True, True])
    np.testing.assert_array_equal((~p).numpy(), [False, True, False])


def test_broadcasting():
    a = ks.constant([[1.0], [2.0]])
    b = ks.constant([10.0, 20.0, 30.0])
    assert (a + b).shape == (2, 3)
    np.testing.assert_array_equal((a * b).numpy(), [[10, 20, 30], [20, 40, 60]])


def test_operators_accept_lists_and_numpy():
    t = ks.constant([1.0, 2.0])
    np.testing.assert_array_equal((t + [1.0, 1.0]).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal((t * np.array([2.0, 3.0], np.float32)).numpy(), [2.0, 6.0])


def test_numpy_on_the_left_of_an_operator_gives_a_tensor():
    t = ks.constant([1.0, 2.0])
    a = np.array([3.0, 4.0], np.float32)
    for got, want in [
        (a + t, [4.0, 6.0]),
        (a - t, [2.0, 2.0]),
        (a * t, [3.0, 8.0]),
        (a / t, [3.0, 2.0]),
        (np.float32(2.0) * t, [2.0, 4.0]),
        (a[None] @ ks.constant([[1.0], [1.0]]), [[7.0]]),
        (a > t, [True, True]),
    ]:
        assert isinstance(got, ks.Tensor)
        np.testing.assert_array_equal(got.numpy(), want)
    x = ks.constant(3.0)
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = np.float32(2.0) * x + np.array(1.0, np.float32) * x
    assert float(tape.gradient(y, x)) == 3.0


def test_tensors_are_unhashable_because_eq_is_elementwise():
    with pytest.raises(TypeError):
        hash(ks.constant(1.0))


# ---------------------------------------------------------------- indexing and iteration


def test_indexing_and_slicing(m):
    a = m.numpy()
    np.testing.assert_array_equal(m[0].numpy(), a[0])
    np.testing.assert_array_equal(m[:, 1].numpy(), a[:, 1])
    np.testing.assert_array_equal(m[::-1].numpy(), a[::-1])
    assert float(m[-1, -1]) == 4.0
    assert m[..., None].shape == (2, 2, 1)
    np.testing.assert_array_equal(m[[1, 0]].numpy(), a[[1, 0]])
    np.testing.assert_array_equal(m[ks.constant([1, 0])].numpy(), a[[1, 0]])
    np.testing.assert_array_equal(m[m > 2.0].numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(m[ks.constant(1)].numpy(), a[1])


def test_indexing_is_differentiable():
    x = ks.constant([1.0, 2.0, 3.0, 4.0])
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = ks.reduce_sum(x[1:3] * 10.0) + x[0] * x[0] + ks.reduce_sum(x[[3, 3]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 10.0, 10.0, 2.0])


def test_out_of_range_index_names_the_shape():
    with pytest.raises(
        ks.InvalidArgumentError, match=r"getitem: index 5 is out of range for shape \(2,\)"
    ):
        ks.constant([1.0, 2.0])[5]


def test_float_index_is_an_error():
    t = ks.constant([1.0, 2.0])
    with pytest.raises(ks.InvalidArgumentError, match="index: 1.0 is a float"):
        t[1.0]
    with pytest.raises(
        ks.InvalidArgumentError, match="indices must be integer or boolean, got float32"
    ):
        t[ks.constant([0.0])]
    with pytest.raises(
        TypeError, match="only integer tensors can be used as an index, got float32"
    ):
        [1, 2][ks.constant(1.0)]


def test_iteration_and_len():
    x = ks.constant([1.0, 2.0, 3.0])
    items = list(x)
    assert len(x) == 3
    assert all(isinstance(i, ks.Tensor) and i.shape == () for i in items)
    assert [float(i) for i in items] == [1.0, 2.0, 3.0]
    rows = list(ks.constant([[1, 2], [3, 4]]))
    assert [r.shape for r in rows] == [(2,), (2,)]


def test_iteration_is_differentiable():
    x = ks.constant([1.0, 2.0, 3.0])
    with ks.GradientTape() as tape:
        tape.watch(x)
        total = ks.constant(0.0)
        for i, e in enumerate(x):
            total = total + e * float(i + 1)
    np.testing.assert_array_equal(tape.gradient(total, x).numpy(), [1.0, 2.0, 3.0])


def test_scalars_have_no_len_or_iteration():
    s = ks.constant(1.0)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(s)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(s).__next__()


# ---------------------------------------------------------------- Python protocols


def test_float_int_bool_index_on_scalars():
    assert float(ks.constant(2.5)) == 2.5
    assert int(ks.constant(7)) == 7
    assert int(ks.constant(3.7)) == 3
    assert bool(ks.constant(True)) is True
    assert bool(ks.constant(0.0)) is False
    assert [10, 20, 30][ks.constant(1)] == 20
    assert range(ks.constant(3)) == range(3)
    assert "%d" % ks.constant(5) == "5"
    # a one-element tensor of any rank also works
    assert float(ks.constant([[4.0]])) == 4.0


def test_python_control_flow_on_tensor_values():
    x = ks.constant(3.0)
    assert (x if x > 0.0 else -x) is x
    n = ks.constant(0)
    while n < 3:
        n = n + 1
    assert int(n) == 3


def test_scalar_protocols_refuse_many_elements():
    t = ks.constant([1.0, 2.0])
    for convert, name in [(float, "float"), (int, "int"), (bool, "bool")]:
        with pytest.raises(
            TypeError,
            match=rf"{name}\(\) needs a tensor with exactly one element, got shape \(2,\)",
        ):
            convert(t)


def test_index_protocol_refuses_floats():
    with pytest.raises(TypeError, match="only integer tensors can be used as an index"):
        range(ks.constant(3.0))


def test_array_protocol_numpy_functions_accept_tensors():
    x = ks.constant([1.0, 2.0, 3.0])
    squared = np.square(x)
    assert type(squared) is np.ndarray
    np.testing.assert_array_equal(squared, [1.0, 4.0, 9.0])
    assert np.asarray(x).dtype == np.float32
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    np.testing.assert_array_equal(
        np.multiply(ks.constant([[1, 2]]), ks.constant([[3, 4]])), [[3, 8]]
    )
    assert np.array(x, copy=True) is not np.asarray(x)


@pytest.mark.cpu
def test_repr_str_and_format():
    t = ks.constant([[1, 2], [3, 4]])
    assert str(t) == "ks.Tensor([[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert repr(t) == "<ks.Tensor: shape=(2, 2), dtype=int32, numpy=[[1, 2],\n [3, 4]]>"
    assert str(ks.constant(9.0)) == "ks.Tensor(9.0, shape=(), dtype=float32)"
    assert repr(ks.constant(-24.0)) == "<ks.Tensor: shape=(), dtype=float32, numpy=-24.0>"
    assert "{:.3f}".format(ks.constant(3.14159)) == "3.142"
    assert "{}".format(t) == str(t)
    assert f"{ks.constant(7)}" == "7"
    with pytest.raises(
        TypeError, match="format spec '.2f' needs a scalar tensor, got shape \\(2, 2\\)"
    ):
        "{:.2f}".format(t)


# ---------------------------------------------------------------- Variable


def test_variable_basics():
    v = ks.Variable([1.0, 2.0], name="w")
    assert v.name == "w"
    assert v.trainable is True
    assert v.shape == (2,)
    assert v.dtype == np.float32
    assert isinstance(v, ks.Tensor)
    assert ks.Variable(1.0).name == "Variable"
    assert repr(ks.Variable(2.0)) == "<ks.Variable 'Variable' shape=() dtype=float32, numpy=2.0>"
    assert str(ks.Variable(2.0, name="x")) == "<ks.Variable 'x' shape=() dtype=float32, numpy=2.0>"


def test_variable_initial_value_forms():
    assert ks.Variable(lambda: ks.ones([2]), name="ones").shape == (2,)
    v = ks.Variable([1, 2], dtype="float32")
    assert v.dtype == np.float32 and v.trainable
    w = ks.Variable(ks.ones([2, 2]))
    assert w.shape == (2, 2)
    array = np.zeros(3, np.float32)
    owned = ks.Variable(array)
    owned.assign_add([1.0, 1.0, 1.0])
    np.testing.assert_array_equal(array, [0.0, 0.0, 0.0])  # the variable owns its memory


def test_integer_variables_are_not_trainable_by_default():
    counter = ks.Variable(0)
    assert counter.dtype == np.int32
    assert counter.trainable is False
    counter.assign_add(1)
    assert int(counter) == 1
    assert ks.Variable(1.0, trainable=False).trainable is False


def test_trainable_integer_variable_is_an_error():
    with pytest.raises(
        ks.InvalidArgumentError,
        match="Variable 'step': a trainable variable must be floating point, got int32",
    ):
        ks.Variable(1, name="step", trainable=True)
    with pytest.raises(
        ks.InvalidArgumentError, match="trainable variable must be floating point, got bool"
    ):
        ks.Variable(True, trainable=True)


def test_variable_is_readable_in_every_op():
    v = ks.Variable([[2.0]])
    np.testing.assert_array_equal(ks.matmul(v, v).numpy(), [[4.0]])
    np.testing.assert_array_equal((v * 3).numpy(), [[6.0]])
    np.testing.assert_array_equal(np.add(v, 1), [[3.0]])
    assert float(v) == 2.0
    np.testing.assert_array_equal(ks.reshape(v, [1]).numpy(), [2.0])


def test_assign_family_in_place_and_returns_self():
    v = ks.Variable([1.0, 2.0])
    buffer = v._value
    assert v.assign([5.0, 6.0]) is v
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])
    assert v.assign_add([1.0, 1.0]) is v
    np.testing.assert_array_equal(v.numpy(), [6.0, 7.0])
    assert v.assign_sub(ks.constant([0.5, 0.5])) is v
    np.testing.assert_array_equal(v.numpy(), [5.5, 6.5])
    assert v._value is buffer  # same memory: updated in place


def test_assign_scalars_and_safe_casts():
    v = ks.Variable(3.0)
    v.assign(4.0)
    assert float(v) == 4.0
    v.assign_sub(1)  # an int scalar into a float variable is a safe cast
    assert float(v) == 3.0
    v.assign(np.float64(2.5))
    assert v.dtype == np.float32 and float(v) == 2.5


def test_assign_does_not_broadcast():
    v = ks.Variable([1.0, 2.0], name="b")
    with pytest.raises(
        ks.InvalidArgumentError, match=r"value has shape \(\) but the variable has shape \(2,\)"
    ):
        v.assign(0.0)


def test_snapshots_do_not_change_with_the_variable():
    v = ks.Variable([1.0, 2.0])
    numpy_copy = v.numpy()
    read = v.read_value()
    ident = ks.identity(v)
    row = v[0]
    reshaped = ks.reshape(v, [2, 1])
    v.assign([10.0, 20.0])
    np.testing.assert_array_equal(numpy_copy, [1.0, 2.0])
    np.testing.assert_array_equal(read.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(ident.numpy(), [1.0, 2.0])
    assert float(row) == 1.0
    np.testing.assert_array_equal(reshaped.numpy(), [[1.0], [2.0]])


def test_assign_shape_mismatch_names_variable_and_both_shapes():
    v = ks.Variable(ks.ones([2, 3]), name="kernel")
    for method in ("assign", "assign_add", "assign_sub"):
        with pytest.raises(
            ks.InvalidArgumentError,
            match=rf"Variable 'kernel'\.{method}: value has shape \(3, 2\) but the variable has "
            r"shape \(2, 3\)",
        ):
            getattr(v, method)(ks.ones([3, 2]))
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))  # unchanged after the errors


def test_assign_dtype_error_says_what_to_cast():
    v = ks.Variable(ks.constant([1, 2]), name="counts")
    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"Variable 'counts'\.assign: cannot store float32 values in a int32 variable; "
        r"cast with ks\.cast\(value, 'int32'\)",
    ):
        v.assign([1.5, 2.0])


def test_assign_of_integers_that_do_not_fit_raises_instead_of_wrapping():
    # 2**40 stored in an int32 variable used to wrap silently to 0
    step = ks.Variable(0, name="step", trainable=False)
    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"Variable 'step'\.assign: value 1099511627776 does not fit in the variable's "
        r"int32 \(range \[-2147483648, 2147483647\]\); create the variable with a wider dtype",
    ):
        step.assign(2**40)
    small = ks.Variable(np.zeros(3, np.int8), name="small", trainable=False)
    with pytest.raises(ks.InvalidArgumentError, match=r"value -300 does not fit .* int8"):
        small.assign_add(np.array([1, -300, 2]))
    small.assign(np.array([1, -128, 127]))  # int64 values that fit are stored
    step.assign(2**31 - 1)
    assert small.numpy().tolist() == [1, -128, 127] and int(step) == 2**31 - 1


def test_python_int_scalars_convert_to_int32_unless_they_need_int64():
    assert ks.constant(5).dtype == np.int32
    assert ks.constant(-(2**31)).dtype == np.int32
    assert ks.constant(2**31).dtype == np.int64
    assert ks.constant(True).dtype == np.bool_


# ---------------------------------------------------------------- random


def test_set_seed_makes_draws_reproducible():
    for draw in (
        lambda: ks.random.normal([5]),
        lambda: ks.random.uniform([5]),
        lambda: ks.random.truncated_normal([5]),
        lambda: ks.random.shuffle(ks.range(10)),
        lambda: ks.random_normal([3, 2]),
    ):
        ks.random.set_seed(7)
        first = [draw().numpy() for _ in range(2)]
        ks.random.set_seed(7)
        second = [draw().numpy() for _ in range(2)]
        np.testing.assert_array_equal(first[0], second[0])
        np.testing.assert_array_equal(first[1], second[1])
        assert not np.array_equal(first[0], first[1])  # the stream advances
        ks.random.set_seed(8)
        assert not np.array_equal(draw().numpy(), first[0])


def test_op_level_seed_is_reproducible():
    ks.random.set_seed(3)
    a = ks.random.normal([4], seed=11).numpy()
    ks.random.set_seed(3)
    b = ks.random.normal([4], seed=11).numpy()
    np.testing.assert_array_equal(a, b)
    assert ks.random.get_seed() == 3


def test_normal_statistics_and_dtype():
    x = ks.random.normal([20000], mean=2.0, stddev=3.0)
    assert x.dtype == np.float32
    assert abs(float(ks.reduce_mean(x)) - 2.0) < 0.1
    assert abs(float(ks.reduce_std(x)) - 3.0) < 0.1
    assert ks.random.normal([2], dtype="float64").dtype == np.float64


def test_uniform_range_and_integers():
    x = ks.random.uniform([1000], minval=-2.0, maxval=5.0).numpy()
    assert x.min() >= -2.0 and x.max() < 5.0
    assert x.dtype == np.float32
    ints = ks.random.uniform([1000], minval=0, maxval=4, dtype="int32").numpy()
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {0, 1, 2, 3}
    with pytest.raises(ks.InvalidArgumentError, match="integer dtypes need an explicit maxval"):
        ks.random.uniform([3], dtype="int32")


def test_truncated_normal_within_two_stddev():
    x = ks.random.truncated_normal([20000], mean=1.0, stddev=0.5).numpy()
    assert np.all(np.abs(x - 1.0) <= 2 * 0.5 + 1e-6)
    assert x.std() > 0.3  # still spread out, not collapsed


def test_shuffle_permutes_first_axis():
    x = ks.reshape(ks.range(20), [10, 2])
    shuffled = ks.random.shuffle(x).numpy()
    assert shuffled.shape == (10, 2)
    assert not np.array_equal(shuffled, x.numpy())
    np.testing.assert_array_equal(np.sort(shuffled[:, 0]), x.numpy()[:, 0])
    np.testing.assert_array_equal(shuffled[:, 1] - shuffled[:, 0], np.ones(10))  # rows intact
    with pytest.raises(
        ks.InvalidArgumentError, match="random.shuffle: needs a tensor of rank >= 1"
    ):
        ks.random.shuffle(ks.constant(1.0))


def test_random_float_dtype_is_checked():
    with pytest.raises(
        ks.InvalidArgumentError, match="random.normal: dtype must be floating point, got int32"
    ):
        ks.random.normal([2], dtype="int32")


def test_variable_value_is_a_property_as_in_keras_and_callable_as_in_tf():
    v = ks.Variable([1.0, 2.0])
    assert isinstance(v.value, ks.Tensor) and not isinstance(v.value, ks.Variable)
    np.testing.assert_array_equal((v.value * 2).numpy(), [2.0, 4.0])  # Keras 3: a property
    np.testing.assert_array_equal(v.value().numpy(), [1.0, 2.0])  # TF: a method
    snapshot = v.value
    v.assign([5.0, 6.0])
    np.testing.assert_array_equal(snapshot.numpy(), [1.0, 2.0])  # a read, not a view
    with ks.GradientTape() as tape:
        y = ks.reduce_sum(v.value * v.value())
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [10.0, 12.0])
