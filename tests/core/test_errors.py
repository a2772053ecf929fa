"""Every promised error message: immediate, naming the op and the offending values."""

import re

import numpy as np
import pytest

import kerasish as ks


def _raises(exc, text):
    """pytest.raises with an exact-substring match."""
    return pytest.raises(exc, match=re.escape(text))


# ---------------------------------------------------------------- gather / embedding_lookup


def test_embedding_lookup_out_of_range_exact_text():
    embeddings = ks.Variable(ks.zeros([128, 16]))
    with pytest.raises(ks.InvalidArgumentError) as info:
        ks.nn.embedding_lookup(embeddings, [3081, 2])
    assert str(info.value) == "embedding_lookup: indices[0] = 3081 is not in [0, 128)"
    assert isinstance(info.value, ValueError)


def test_embedding_lookup_error_is_raised_at_the_call_under_a_tape():
    embeddings = ks.Variable(ks.zeros([128, 16]))
    reached = []
    with ks.GradientTape():
        with _raises(
            ks.InvalidArgumentError, "embedding_lookup: indices[0] = 3081 is not in [0, 128)"
        ):
            ks.nn.embedding_lookup(embeddings, ks.constant([3081]))
            reached.append(True)
    assert reached == []


def test_embedding_lookup_reports_the_first_bad_position():
    table = ks.zeros([128, 4])
    with _raises(ks.InvalidArgumentError, "embedding_lookup: indices[2] = 128 is not in [0, 128)"):
        ks.nn.embedding_lookup(table, [0, 127, 128, 500])
    with _raises(
        ks.InvalidArgumentError, "embedding_lookup: indices[1, 0] = 3081 is not in [0, 128)"
    ):
        ks.nn.embedding_lookup(table, [[2, 5], [3081, 1]])
    with _raises(ks.InvalidArgumentError, "embedding_lookup: indices[] = 200 is not in [0, 128)"):
        ks.nn.embedding_lookup(table, 200)


def test_gather_negative_indices():
    with _raises(ks.InvalidArgumentError, "gather: indices[1] = -1 is not in [0, 128)"):
        ks.gather(ks.zeros([128, 2]), [0, -1])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_gather_checks_both_bounds_for_every_integer_dtype(dtype):
    table = ks.zeros([100, 2])
    ids = np.array([3, 99, 0], dtype=dtype)
    assert ks.gather(table, ids[::2]).shape == (2, 2)  # strided ids too
    with _raises(ks.InvalidArgumentError, "gather: indices[2] = 100 is not in [0, 100)"):
        ks.gather(table, np.array([3, 99, 100], dtype=dtype))
    if np.dtype(dtype).kind == "i":
        smallest = int(np.iinfo(dtype).min)
        with _raises(ks.InvalidArgumentError, f"gather: indices[1] = {smallest} is not in"):
            ks.gather(table, np.array([3, smallest, 5], dtype=dtype))


def test_gather_float_indices():
    with _raises(
        ks.InvalidArgumentError,
        "gather: indices must be integers, got float32; cast with ks.cast(indices, 'int32')",
    ):
        ks.gather(ks.zeros([4, 2]), [1.0])


def test_gather_scalar_params():
    with _raises(ks.InvalidArgumentError, "gather: params must have rank >= 1, got a scalar"):
        ks.gather(ks.constant(1.0), [0])


# ---------------------------------------------------------------- shapes


def test_matmul_shape_mismatch_prints_both_shapes():
    with _raises(
        ks.InvalidArgumentError,
        "matmul: inner dimensions do not match: a has shape (2, 3) and b has shape (4, 5) (3 != 4)",
    ):
        ks.matmul(ks.ones([2, 3]), ks.ones([4, 5]))


def test_matmul_transposed_mismatch_says_transposed():
    with _raises(
        ks.InvalidArgumentError,
        "matmul: inner dimensions do not match: a has shape (2, 3) (transposed) and b has shape "
        "(3, 5) (2 != 3)",
    ):
        ks.matmul(ks.ones([2, 3]), ks.ones([3, 5]), transpose_a=True)


def test_matmul_rank_and_batch_errors():
    with _raises(
        ks.InvalidArgumentError, "matmul: both operands need rank >= 2, got shapes (3,) and (3, 5)"
    ):
        ks.matmul(ks.ones([3]), ks.ones([3, 5]))
    with _raises(
        ks.InvalidArgumentError,
        "matmul: batch dimensions of (2, 3, 4) and (5, 4, 1) cannot be broadcast together",
    ):
        ks.matmul(ks.ones([2, 3, 4]), ks.ones([5, 4, 1]))


@pytest.mark.parametrize(
    "op, name",
    [
        (ks.add, "add"),
        (ks.subtract, "subtract"),
        (ks.multiply, "multiply"),
        (ks.maximum, "maximum"),
    ],
)
def test_broadcast_failure_names_op_and_both_shapes(op, name):
    with pytest.raises(ks.InvalidArgumentError) as info:
        op(ks.ones([2, 3]), ks.ones([4]))
    message = str(info.value)
    assert message.startswith(f"{name}: ")
    assert "(2, 3)" in message and "(4,)" in message


def test_broadcast_failure_through_an_operator():
    with pytest.raises(ks.InvalidArgumentError, match=r"^multiply: .*\(2, 3\).*\(4,\)"):
        ks.ones([2, 3]) * ks.ones([4])


def test_reshape_size_mismatch():
    with _raises(
        ks.InvalidArgumentError,
        "reshape: cannot reshape a tensor of shape (2, 3) (6 elements) into shape (4, 2)",
    ):
        ks.reshape(ks.ones([2, 3]), [4, 2])


def test_concat_rank_mismatch():
    with _raises(
        ks.InvalidArgumentError, "concat: all tensors need the same rank, got shapes (2, 3), (3,)"
    ):
        ks.concat([ks.ones([2, 3]), ks.ones([3])], 0)


def test_concat_shape_mismatch():
    with _raises(
        ks.InvalidArgumentError, "concat: shapes (2, 3), (2, 4) must match except along axis 0"
    ):
        ks.concat([ks.ones([2, 3]), ks.ones([2, 4])], 0)


def test_concat_axis_out_of_range():
    with _raises(ks.InvalidArgumentError, "concat: axis 2 is out of range for a tensor of rank 2"):
        ks.concat([ks.ones([2, 3]), ks.ones([2, 3])], 2)


def test_stack_shape_mismatch():
    with _raises(
        ks.InvalidArgumentError,
        "stack: all tensors need the same shape; values[0] has (2,) but values[1] has (3,)",
    ):
        ks.stack([ks.ones([2]), ks.ones([3])])


def test_transpose_bad_perm():
    with _raises(
        ks.InvalidArgumentError,
        "transpose: perm (0, 0) is not a permutation of the 2 axes of shape (2, 3)",
    ):
        ks.transpose(ks.ones([2, 3]), [0, 0])


def test_reduction_axis_out_of_range():
    with _raises(
        ks.InvalidArgumentError, "reduce_sum: axis 3 is out of range for a tensor of rank 2"
    ):
        ks.reduce_sum(ks.ones([2, 3]), axis=3)


def test_split_uneven():
    with _raises(
        ks.InvalidArgumentError, "split: axis 0 of size 5 cannot be split into 2 equal parts"
    ):
        ks.split(ks.ones([5]), 2)


# ---------------------------------------------------------------- losses and encodings


def test_sparse_xent_label_out_of_range():
    with _raises(
        ks.InvalidArgumentError,
        "sparse_softmax_cross_entropy_with_logits: indices[1] = 5 is not in [0, 3)",
    ):
        ks.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 5], logits=ks.ones([2, 3]))


def test_sparse_xent_negative_label():
    with _raises(ks.InvalidArgumentError, "indices[0] = -1 is not in [0, 3)"):
        ks.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 0], logits=ks.ones([2, 3]))


def test_sparse_xent_float_labels():
    with _raises(
        ks.InvalidArgumentError,
        "sparse_softmax_cross_entropy_with_logits: indices must be integers, got float32; "
        "cast with ks.cast(indices, 'int32')",
    ):
        ks.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=ks.ones([2, 3]))


def test_sparse_xent_shape_mismatch():
    with _raises(
        ks.InvalidArgumentError,
        "sparse_softmax_cross_entropy_with_logits: labels shape (3,) must equal logits shape "
        "(2, 3) without its last (class) axis",
    ):
        ks.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=ks.ones([2, 3]))


def test_softmax_xent_shape_mismatch():
    with _raises(
        ks.InvalidArgumentError,
        "softmax_cross_entropy_with_logits: labels shape (2, 3) must equal logits shape (2, 4)",
    ):
        ks.nn.softmax_cross_entropy_with_logits(labels=ks.ones([2, 3]), logits=ks.ones([2, 4]))


def test_one_hot_non_integral_float_indices():
    with _raises(
        ks.InvalidArgumentError,
        "one_hot: indices must hold integers, but it is float32 with the non-integral value "
        "indices[1] = 2.5",
    ):
        ks.one_hot([1.0, 2.5], 3)


def test_where_with_non_bool_condition():
    with _raises(
        ks.InvalidArgumentError,
        "where: condition must be boolean, got int32; compare first (e.g. ks.greater(x, 0))",
    ):
        ks.where(ks.constant([1, 0]), ks.ones([2]), ks.zeros([2]))


def test_where_with_only_one_branch():
    with _raises(ks.InvalidArgumentError, "where: give both x and y, or neither"):
        ks.where(ks.constant([True]), ks.ones([1]))


def test_conv2d_channel_mismatch():
    with _raises(
        ks.InvalidArgumentError,
        "conv2d: input shape (1, 5, 5, 3) (NHWC) has 3 channels but filters shape (3, 3, 2, 4) "
        "(HWIO) expects 2",
    ):
        ks.nn.conv2d(ks.ones([1, 5, 5, 3]), ks.ones([3, 3, 2, 4]))


def test_dropout_rate():
    with _raises(ks.InvalidArgumentError, "dropout: rate must be in [0, 1), got 1.5"):
        ks.nn.dropout(ks.ones([2]), 1.5)


# ---------------------------------------------------------------- dtypes say what to cast


def test_convert_to_tensor_dtype_mismatch_says_what_to_cast():
    with _raises(
        ks.InvalidArgumentError,
        "convert_to_tensor: requested dtype int32 for a tensor of dtype float32; "
        "cast explicitly with ks.cast(x, 'int32')",
    ):
        ks.convert_to_tensor(ks.constant([1.0]), dtype="int32")


def test_unknown_dtype():
    with _raises(TypeError, "unknown dtype 'floaty32'; use e.g. ks.float32 or 'int32'"):
        ks.cast(ks.ones([1]), "floaty32")


def test_variable_assign_wrong_dtype_says_what_to_cast():
    v = ks.Variable(ks.constant([1, 2]), name="counts")
    with _raises(
        ks.InvalidArgumentError,
        "Variable 'counts'.assign: cannot store float32 values in a int32 variable; "
        "cast with ks.cast(value, 'int32')",
    ):
        v.assign([1.5, 2.5])


# ---------------------------------------------------------------- tape and variables


def test_watch_int_tensor():
    with ks.GradientTape() as tape:
        with _raises(
            ks.InvalidArgumentError,
            "GradientTape.watch: cannot watch a int32 tensor (shape (3,)): only floating-point "
            "values have gradients; cast it first with ks.cast(x, ks.float32)",
        ):
            tape.watch(ks.constant([1, 2, 3]))


def test_trainable_int_variable():
    with _raises(
        ks.InvalidArgumentError,
        "Variable 'step': a trainable variable must be floating point, got int32; pass "
        "trainable=False for a counter, or a float dtype (e.g. dtype=ks.float32) for a parameter",
    ):
        ks.Variable(0, name="step", trainable=True)


def test_variable_assign_wrong_shape_names_variable_and_both_shapes():
    v = ks.Variable(ks.ones([2, 3]), name="kernel")
    with _raises(
        ks.InvalidArgumentError,
        "Variable 'kernel'.assign: value has shape (3, 2) but the variable has shape (2, 3); "
        "shapes must match exactly",
    ):
        v.assign(ks.ones([3, 2]))
    with _raises(ks.InvalidArgumentError, "Variable 'kernel'.assign_sub: value has shape (3,)"):
        v.assign_sub(np.ones(3, np.float32))


def test_second_gradient_on_non_persistent_tape():
    x = ks.constant(1.0)
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with _raises(
        RuntimeError,
        "GradientTape.gradient can only be called once on a non-persistent tape: the recording "
        "is released after the first call. Create the tape with ks.GradientTape(persistent=True) "
        "to compute several gradients from one recording.",
    ):
        tape.gradient(y, x)


def test_jacobian_on_used_non_persistent_tape_names_jacobian():
    x = ks.constant([1.0, 2.0])
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with _raises(RuntimeError, "GradientTape.jacobian can only be called once"):
        tape.jacobian(y, x)


# ---------------------------------------------------------------- indexing and scalars


def test_float_index():
    t = ks.constant([1.0, 2.0, 3.0])
    with _raises(ks.InvalidArgumentError, "index: 1.0 is a float; indices must be integers"):
        t[1.0]
    with _raises(ks.InvalidArgumentError, "index: 0.5 is a float"):
        ks.ones([2, 2])[0, 0.5]
    with _raises(
        ks.InvalidArgumentError,
        "index: tensors used as indices must be integer or boolean, got float32",
    ):
        t[ks.constant([0.0, 1.0])]
    with _raises(TypeError, "only integer tensors can be used as an index, got float32"):
        [1, 2, 3][ks.constant(1.0)]


def test_out_of_range_index():
    with _raises(ks.InvalidArgumentError, "getitem: index 3 is out of range for shape (3,)"):
        ks.constant([1.0, 2.0, 3.0])[3]


def test_bool_of_a_vector():
    with _raises(
        TypeError,
        "bool() needs a tensor with exactly one element, got shape (2,); reduce it first "
        "(e.g. ks.reduce_all, ks.reduce_sum) or index one element",
    ):
        if ks.constant([1.0, 2.0]) > 0.0:
            pass


def test_python_value_out_of_dtype_range():
    with _raises(ks.InvalidArgumentError, "the Python value 300 does not fit in int8"):
        ks.constant([1], dtype="int8") + 300
