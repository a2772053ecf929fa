"""`ks.Module`: tracked variables and submodules, gradients, checkpoints, name scopes."""

from __future__ import annotations

import numpy as np
import pytest

import kerasish as ks


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
