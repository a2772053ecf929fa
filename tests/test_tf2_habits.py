"""TF2 spellings that should just work: ks.math, ks.linalg, ks.config, ks.TensorShape,
ks.print, ks.debugging, ks.Module, ks.train."""

from __future__ import annotations

import io
import pickle
import sys

import numpy as np
import pytest

import kerasish as ks
from kerasish.testing import check_gradients

# ---------------------------------------------------------------- ks.math, ks.linalg, ks.train


@pytest.mark.parametrize("name", ["reduce_mean", "reduce_sum", "log1p", "exp", "sigmoid",
                                  "softplus", "abs", "maximum", "squared_difference", "add_n"])
def test_math_names_are_the_flat_ops_themselves(name):
    assert getattr(ks.math, name) is (getattr(ks.nn, name, None) or getattr(ks, name))


def test_math_has_the_scan_and_segment_ops():
    from kerasish.core.ops import array_ops, cumulative_ops, nn_ops

    assert ks.math.cumsum is cumulative_ops.cumsum
    assert ks.math.reduce_prod is cumulative_ops.reduce_prod
    assert ks.math.unsorted_segment_sum is array_ops.unsorted_segment_sum
    assert ks.math.log_softmax is nn_ops.log_softmax
    np.testing.assert_array_equal(ks.math.cumsum([1, 2, 3]).numpy(), [1, 3, 6])


def test_math_reduce_mean_matches_numpy():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(ks.math.reduce_mean(x, axis=1).numpy(), x.mean(axis=1))


def test_linalg_matrix_transpose_diag_part_and_trace():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(ks.linalg.matrix_transpose(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(ks.linalg.diag_part(x).numpy(),
                                  np.diagonal(x, axis1=-2, axis2=-1))
    tall = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(ks.linalg.diag_part(tall).numpy(), np.diagonal(tall))
    np.testing.assert_array_equal(ks.linalg.trace(x).numpy(), np.trace(x, axis1=1, axis2=2))
    assert ks.linalg.matmul is ks.matmul and ks.linalg.norm is ks.norm


def test_linalg_compositions_have_second_order_gradients():
    rng = np.random.default_rng(3)
    check_gradients(lambda x: ks.linalg.trace(x * x), [rng.standard_normal((2, 3, 3))], order=2)
    weights = rng.standard_normal((2, 4, 3))
    check_gradients(lambda x: ks.square(ks.linalg.matrix_transpose(x)) * weights,
                    [rng.standard_normal((2, 3, 4))], order=2)


def test_linalg_rejects_vectors_naming_the_shape():
    with pytest.raises(ks.InvalidArgumentError, match=r"linalg.diag_part: .*got shape \(3,\)"):
        ks.linalg.diag_part(ks.zeros([3]))


def test_train_aliases():
    assert ks.train.Checkpoint is ks.Checkpoint
    assert ks.train.CheckpointManager is ks.CheckpointManager
    assert ks.train.latest_checkpoint is ks.latest_checkpoint


# ---------------------------------------------------------------- ks.config


def test_list_physical_devices_reports_the_cpu_and_counts_gpus():
    cpus = ks.config.list_physical_devices("CPU")
    assert cpus == [ks.config.PhysicalDevice("/physical_device:CPU:0", "CPU")]
    gpus = ks.config.list_physical_devices("gpu")
    assert len(gpus) == ks.num_gpus()
    assert all(d.device_type == "GPU" for d in gpus)
    assert ks.config.list_physical_devices() == cpus + gpus


def test_list_physical_devices_rejects_unknown_types():
    with pytest.raises(ValueError, match=r"device_type must be 'CPU', 'GPU' or None, got 'TPU'"):
        ks.config.list_physical_devices("TPU")


# ---------------------------------------------------------------- TensorShape


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


# ---------------------------------------------------------------- ks.print


def test_print_writes_values_not_reprs():
    out = io.StringIO()
    ks.print("x:", ks.constant([[1, 2], [3, 4]]), {"lr": ks.constant(0.5)}, [1, ks.constant(2)],
             output_stream=out)
    assert out.getvalue() == "x: [[1 2]\n [3 4]] {'lr': 0.5} [1, 2]\n"


def test_print_summarizes_long_axes_and_defaults_to_stderr(capsys):
    ks.print(ks.range(100))
    assert capsys.readouterr().err == "[ 0  1  2 ... 97 98 99]\n"  # NumPy aligns the columns
    ks.print(ks.range(8), summarize=-1, sep="", end="!", output_stream=sys.stdout)
    assert capsys.readouterr().out == "[0 1 2 3 4 5 6 7]!"


def test_print_to_a_file_url(tmp_path):
    path = tmp_path / "log.txt"
    ks.print("a", output_stream=f"file://{path}")
    ks.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a\nb\n"
    with pytest.raises(ValueError, match=r"output_stream must be .* got 'stdout'"):
        ks.print("a", output_stream="stdout")


# ---------------------------------------------------------------- ks.debugging


def test_assertions_pass_silently():
    ks.debugging.assert_equal(ks.constant([1, 2]), [1, 2])
    ks.debugging.assert_less(ks.constant([1.0, 2.0]), 3.0)
    ks.debugging.assert_greater_equal(ks.constant([3, 2]), 2)
    ks.debugging.assert_near(ks.constant([1.0]), [1.0 + 1e-6])


def test_assert_equal_names_the_first_difference_and_the_count():
    x = ks.constant([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"^labels: assert_equal: x == y fails at 2 of 6 elements; "
                             r"first at index \(0, 1\): x = 2, y = 0$"):
        ks.debugging.assert_equal(x, [[1, 0, 3], [4, 5, 0]], message="labels")


def test_assert_less_and_near_messages():
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"assert_less: x < y fails at 1 of 3 elements; "
                             r"first at index \(2,\): x = 3.0, y = 3.0"):
        ks.debugging.assert_less(ks.constant([1.0, 2.0, 3.0]), 3.0)
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"assert_near: \|x - y\| <= atol \+ rtol \* \|y\| fails at 1 of 2 "
                             r"elements; first at index \(1,\): x = 2.0, y = 2.5 "
                             r"\(atol=0.1, rtol=0\)"):
        ks.debugging.assert_near([1.0, 2.0], [1.0, 2.5], atol=0.1, rtol=0.0)


def test_assert_near_default_tolerance_follows_the_dtype():
    ks.debugging.assert_near(np.float64(1.0), np.float64(1.0 + 1e-15))
    with pytest.raises(ks.InvalidArgumentError, match="assert_near"):
        ks.debugging.assert_near(np.float64(1.0), np.float64(1.0 + 1e-9))


def test_assertions_report_shapes_that_do_not_broadcast():
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"assert_equal: x has shape \(2,\) and y has shape \(3,\)"):
        ks.debugging.assert_equal([1, 2], [1, 2, 3])


def test_check_numerics_returns_its_input_and_keeps_the_gradient():
    x = ks.Variable([1.0, 2.0])
    with ks.GradientTape() as tape:
        y = ks.debugging.check_numerics(x * x, "square")
        loss = ks.reduce_sum(y)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [2.0, 4.0])
    ints = ks.constant([1, 2])
    assert ks.debugging.check_numerics(ints, "ints") is ints


def test_check_numerics_counts_nan_and_inf_and_names_the_first():
    x = ks.constant([[0.0, 1.0], [np.nan, -np.inf]])
    with pytest.raises(ks.InvalidArgumentError,
                       match=r"^logits: check_numerics found 1 NaN and 1 infinite of 4 values; "
                             r"first at index \(1, 0\) = nan$"):
        ks.debugging.check_numerics(x, "logits")


# ---------------------------------------------------------------- ks.Module


class Affine(ks.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.w = ks.Variable(np.ones((2, 2)), name="w")
        self.count = ks.Variable(0, name="count")

    def __call__(self, x):
        return ks.matmul(x, self.w)


class Stack(ks.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [Affine(), Affine()]
        self.head = {"dense": ks.layers.Dense(2)}
        self.shared = self.blocks[0]


def test_module_tracks_variables_submodules_and_layers():
    stack = Stack()
    stack.head["dense"].build((None, 2))
    assert stack.name == "stack" and Affine(name="first").name == "first"
    assert len(stack.variables) == 6  # the shared block counted once
    dense = stack.head["dense"]
    expected = [stack.blocks[0].w, stack.blocks[1].w, dense.kernel, dense.bias]
    assert list(map(id, stack.trainable_variables)) == list(map(id, expected))
    assert [v.name for v in stack.non_trainable_variables] == ["count", "count"]
    assert stack.submodules == [stack.blocks[0], stack.blocks[1], stack.head["dense"]]
    stack.head["dense"].trainable = False
    assert [v.name for v in stack.trainable_variables] == ["w", "w"]


def test_module_gradients_and_checkpoint_round_trip(tmp_path):
    module = Affine()
    with ks.GradientTape() as tape:
        loss = ks.reduce_sum(module(ks.ones([1, 2])))
    grads = tape.gradient(loss, module.trainable_variables)
    np.testing.assert_array_equal(grads[0].numpy(), np.ones((2, 2)))
    path = ks.train.Checkpoint(module=module).write(str(tmp_path / "m.h5"))
    module.w.assign(np.zeros((2, 2)))
    ks.train.Checkpoint(module=module).read(path).assert_consumed()
    np.testing.assert_array_equal(module.w.numpy(), np.ones((2, 2)))


def test_module_rejects_bad_names():
    with pytest.raises(ValueError, match=r"'has space' is not a valid module name"):
        ks.Module(name="has space")


def test_name_scopes_prefix_variable_names_and_nest():
    with ks.name_scope("outer") as outer:
        a = ks.Variable(1.0, name="a")
        with ks.name_scope("inner") as inner:
            b = ks.Variable(1.0)
            dense = ks.layers.Dense(2)
            dense.build((None, 3))
    c = ks.Variable(1.0, name="c")
    assert (outer, inner) == ("outer/", "outer/inner/")
    assert (a.name, b.name, c.name) == ("outer/a", "outer/inner/Variable", "c")
    assert dense.kernel.name.startswith("outer/inner/")
    with pytest.raises(ValueError, match=r"name_scope: 'a/b' is not a scope name"):
        with ks.name_scope("a/b"):
            pass


def test_module_name_scope_and_with_name_scope():
    class Linear(ks.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.w = None

        @ks.Module.with_name_scope
        def __call__(self, x):
            if self.w is None:
                self.w = ks.Variable(np.ones((2, 2)), name="w")
            return ks.matmul(x, self.w)

    layer = Linear(name="proj")
    layer(ks.ones([1, 2]))
    assert layer.w.name == "proj/w"
    assert Linear.__call__.__name__ == "__call__"
    with layer.name_scope as scope:
        assert scope == "proj/"
