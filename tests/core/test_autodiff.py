"""Function-style gradients, implicit gradients, custom gradients, higher order."""

import numpy as np
import pytest

import kerasish as ks

# ---------------------------------------------------------------- gradients_function family


def test_gradients_function_returns_one_gradient_per_argument():
    grad = ks.gradients_function(lambda a, b: a * b * b)
    ga, gb = grad(2.0, 3.0)
    assert (float(ga), float(gb)) == (9.0, 12.0)
    assert ga.dtype == np.float32


def test_gradients_function_on_tensors_and_arrays():
    grad = ks.gradients_function(lambda x: ks.reduce_sum(x * x))
    (g,) = grad(ks.constant([1.0, 2.0]))
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    (g,) = grad(np.array([3.0], np.float32))
    np.testing.assert_array_equal(g.numpy(), [6.0])


def test_gradients_function_params_by_index_and_name():
    def f(a, b):
        return a * b * b

    assert [float(g) for g in ks.gradients_function(f, params=[1])(2.0, 3.0)] == [12.0]
    assert [float(g) for g in ks.gradients_function(f, params=["a"])(2.0, 3.0)] == [9.0]
    assert [float(g) for g in ks.gradients_function(f, params=["b", 0])(2.0, 3.0)] == [12.0, 9.0]
    with pytest.raises(ks.InvalidArgumentError, match="gradients_function: f has no argument 'c'"):
        ks.gradients_function(f, params=["c"])(2.0, 3.0)


def test_gradients_function_keeps_the_function_name():
    def square(x):
        return x * x

    assert ks.gradients_function(square).__name__ == "square"


def test_value_and_gradients_function():
    f = lambda a, b: a * b * b  # noqa: E731
    value, grads = ks.value_and_gradients_function(f)(2.0, 3.0)
    assert float(value) == 18.0
    assert [float(g) for g in grads] == [9.0, 12.0]
    value, grads = ks.value_and_gradients_function(f, params=[1])(2.0, 3.0)
    assert float(value) == 18.0 and [float(g) for g in grads] == [12.0]


def test_gradients_function_does_not_differentiate_variables():
    w = ks.Variable(10.0)
    (g,) = ks.gradients_function(lambda x: x * w)(3.0)
    assert float(g) == 10.0


def test_gradients_function_unconnected_argument_is_none():
    grads = ks.gradients_function(lambda a, b: a * 2.0)(1.0, 5.0)
    assert float(grads[0]) == 2.0 and grads[1] is None


# ---------------------------------------------------------------- implicit gradients


@pytest.mark.cpu
def test_implicit_gradients_lecture_example():
    x = ks.Variable(2.0)

    def loss(y):
        return (y - x**2) ** 2

    grad = ks.implicit_gradients(loss)
    assert str(loss(7.0)) == "ks.Tensor(9.0, shape=(), dtype=float32)"
    result = grad(7.0)
    assert isinstance(result, list) and len(result) == 1
    g, v = result[0]
    assert v is x
    assert float(g) == -24.0
    assert repr(result) == (
        "[(<ks.Tensor: shape=(), dtype=float32, numpy=-24.0>, "
        "<ks.Variable 'Variable' shape=() dtype=float32, numpy=2.0>)]"
    )


def test_implicit_gradients_pairs_in_order_of_use():
    a = ks.Variable(1.0, name="a")
    b = ks.Variable(2.0, name="b")
    frozen = ks.Variable(3.0, name="frozen", trainable=False)

    def f(x):
        return b * x + a * a * frozen

    pairs = ks.implicit_gradients(f)(10.0)
    assert [v.name for _, v in pairs] == ["b", "a"]
    assert [float(g) for g, _ in pairs] == [10.0, 6.0]


def test_implicit_value_and_gradients():
    v = ks.Variable(3.0, name="v")
    value, pairs = ks.implicit_value_and_gradients(lambda k: v * v * k)(2.0)
    assert float(value) == 18.0
    assert [(float(g), var.name) for g, var in pairs] == [(12.0, "v")]


def test_implicit_gradients_without_variables_is_an_error():
    with pytest.raises(
        ks.InvalidArgumentError, match="implicit_gradients: <lambda> read no trainable variable"
    ):
        ks.implicit_gradients(lambda y: y * 2.0)(3.0)


def test_implicit_gradients_usable_for_an_sgd_step():
    w = ks.Variable(5.0)
    grad = ks.implicit_gradients(lambda t: (w - t) ** 2)
    for _ in range(100):
        for g, v in grad(3.0):
            v.assign_sub(g * 0.1)
    assert float(w) == pytest.approx(3.0, abs=1e-4)


# ---------------------------------------------------------------- higher order (the seeds)


def test_square_gradgrad_and_third_order():
    def square(x):
        return ks.multiply(x, x)

    grad = ks.gradients_function(square)
    assert float(square(3.0)) == 9.0
    assert [float(g) for g in grad(3.0)] == [6.0]
    gradgrad = ks.gradients_function(lambda x: grad(x)[0])
    assert [float(g) for g in gradgrad(3.0)] == [2.0]
    gradgradgrad = ks.gradients_function(lambda x: gradgrad(x)[0])
    assert gradgradgrad(3.0) == [None]


def test_abs_with_python_if():
    def abs(x):  # noqa: A001 - the seeds' name
        return x if x > 0.0 else -x

    grad = ks.gradients_function(abs)
    assert [float(g) for g in grad(2.0)] == [1.0]
    assert [float(g) for g in grad(-2.0)] == [-1.0]
    assert [float(g) for g in grad(3.0)] == [1.0]
    assert [float(g) for g in grad(-3.0)] == [-1.0]


def test_hessian_vector_product_nested_tapes():
    x = ks.constant([1.0, 2.0])
    v = ks.constant([1.0, -1.0])
    with ks.GradientTape() as outer:
        outer.watch(x)
        with ks.GradientTape() as inner:
            inner.watch(x)
            f = ks.reduce_sum(x * x * x) + x[0] * x[1]
        g = inner.gradient(f, x)
        gv = ks.reduce_sum(g * v)
    hv = outer.gradient(gv, x)
    hessian = np.array([[6.0, 1.0], [1.0, 12.0]])
    np.testing.assert_allclose(hv.numpy(), hessian @ v.numpy())


# ---------------------------------------------------------------- custom gradients


def _plain_log1pexp(x):
    return ks.log(1 + ks.exp(x))


@ks.custom_gradient
def _custom_log1pexp(x):
    e = ks.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))

    return ks.log(1 + e), grad


def test_log1pexp_seeds():
    grad_plain = ks.gradients_function(_plain_log1pexp)
    assert [float(g) for g in grad_plain(0.0)] == [0.5]
    with np.errstate(over="ignore", invalid="ignore"):
        plain_at_100 = float(grad_plain(100.0)[0])
    assert np.isnan(plain_at_100) or np.isfinite(plain_at_100)  # TF gives nan

    grad_custom = ks.gradients_function(_custom_log1pexp)
    assert [float(g) for g in grad_custom(0.0)] == [0.5]
    with np.errstate(over="ignore"):
        assert [float(g) for g in grad_custom(100.0)] == [1.0]


def test_log1pexp_with_tape_as_in_the_recitation():
    def grad_log1pexp(x):
        with ks.GradientTape() as tape:
            tape.watch(x)
            value = _custom_log1pexp(x)
        return tape.gradient(value, x)

    with np.errstate(over="ignore"):
        assert grad_log1pexp(ks.constant(100.0)).numpy() == 1.0


def test_custom_rule_is_what_produces_the_gradient():
    """A rule that returns a distinguishable value proves the custom path is taken."""
    calls = []

    @ks.custom_gradient
    def marked_log1pexp(x):
        e = ks.exp(x)

        def grad(dy):
            calls.append(float(dy))
            return dy * (1 - 1 / (1 + e)) + 1000.0

        return ks.log(1 + e), grad

    with np.errstate(over="ignore"):
        assert [float(g) for g in ks.gradients_function(marked_log1pexp)(100.0)] == [1001.0]
        assert [float(g) for g in ks.gradients_function(marked_log1pexp)(0.0)] == [1000.5]
    assert calls == [1.0, 1.0]


def test_custom_gradient_forward_value_and_no_tape():
    assert float(_custom_log1pexp(0.0)) == pytest.approx(np.log(2.0))
    out = _custom_log1pexp(ks.constant([0.0, 1.0]))
    assert isinstance(out, ks.Tensor) and out.shape == (2,)


def test_clip_gradient_by_norm_example():
    @ks.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = ks.identity(x)

        def grad_fn(dresult):
            return [ks.clip_by_norm(dresult, norm), None]

        return y, grad_fn

    x = ks.constant([3.0, 4.0])
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient_by_norm(x, 1.0)
        loss = ks.reduce_sum(y * ks.constant([30.0, 40.0]))
    g = tape.gradient(loss, x).numpy()
    np.testing.assert_allclose(g, [0.6, 0.8], rtol=1e-6)  # (30, 40) clipped to norm 1
    np.testing.assert_array_equal(clip_gradient_by_norm(x, 1.0).numpy(), x.numpy())


def test_custom_gradient_closing_over_a_variable():
    v = ks.Variable(2.0, name="v")

    @ks.custom_gradient
    def scale(x):
        out = x * v

        def grad_fn(dy, variables=None):
            assert [id(u) for u in variables] == [id(v)]
            return dy * v, [dy * x * 100.0]  # a distinguishable variable gradient

        return out, grad_fn

    x = ks.constant(3.0)
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    gx, gv = tape.gradient(y, [x, v])
    assert (float(gx), float(gv)) == (2.0, 300.0)
    assert tape.watched_variables() == [v]
    pairs = ks.implicit_gradients(lambda: scale(ks.constant(1.0)))()
    assert [(float(g), var.name) for g, var in pairs] == [(100.0, "v")]


def test_custom_gradient_takes_a_variable_argument_as_an_input():
    @ks.custom_gradient
    def triple_grad(x):
        return x * 2.0, lambda dy: dy * 3.0  # no `variables=`: x is an argument, not captured

    v = ks.Variable(1.0, name="v")
    with ks.GradientTape() as tape:
        y = triple_grad(v)
    assert float(y) == 2.0 and float(tape.gradient(y, v)) == 3.0
    assert tape.watched_variables() == [v]


def test_custom_gradient_over_variable_needs_variables_keyword():
    v = ks.Variable(2.0, name="v")

    @ks.custom_gradient
    def scale(x):
        return x * v, lambda dy: dy * v

    x = ks.constant(3.0)
    with ks.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"custom_gradient\(scale\): the function reads trainable variable\(s\) v, so its "
        r"gradient function must accept a `variables=` keyword",
    ):
        tape.gradient(y, [x, v])


def test_custom_gradient_wrong_count():
    @ks.custom_gradient
    def twice(x):
        return x * 2.0, lambda dy: (dy, dy)

    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"custom_gradient\(twice\): the gradient function returned 2 gradient\(s\) for 1 "
        r"input\(s\); return one gradient \(or None\) per input, in order",
    ):
        ks.gradients_function(twice)(1.0)


def test_custom_gradient_wrong_shape():
    @ks.custom_gradient
    def twice(x):
        return x * 2.0, lambda dy: ks.ones([3])

    with pytest.raises(
        ks.InvalidArgumentError,
        match=r"custom_gradient\(twice\): the gradient for input 0 has shape \(3,\) but the input "
        r"has shape \(\)",
    ):
        ks.gradients_function(twice)(1.0)


def test_custom_gradient_wrong_variable_gradients():
    v = ks.Variable(2.0, name="v")

    @ks.custom_gradient
    def bad_shape(x):
        return x * v, lambda dy, variables=None: (dy * v, [ks.ones([2])])

    @ks.custom_gradient
    def bad_count(x):
        return x * v, lambda dy, variables=None: (dy * v, [])

    @ks.custom_gradient
    def not_a_pair(x):
        return x * v, lambda dy, variables=None: dy * v

    x = ks.constant(3.0)
    cases = [
        (
            bad_shape,
            r"the gradient for variable 'v' has shape \(2,\) but the variable has shape \(\)",
        ),
        (bad_count, r"returned 0 variable gradient\(s\) for 1 variable\(s\) read: v"),
        (not_a_pair, r"must return a pair \(input_gradients, variable_gradients\)"),
    ]
    for fn, message in cases:
        with ks.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        with pytest.raises(ks.InvalidArgumentError, match=message):
            tape.gradient(y, [x, v])


def test_second_order_through_a_custom_gradient():
    @ks.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x

        return x * x * x, grad

    g1 = ks.gradients_function(cube)
    g2 = ks.gradients_function(lambda x: g1(x)[0])
    assert float(g1(2.0)[0]) == 12.0
    assert float(g2(2.0)[0]) == 12.0  # d/dx 3x^2 = 6x


def test_second_order_uses_the_custom_rule():
    @ks.custom_gradient
    def fake_square(x):
        def grad(dy):
            return dy * x * 10.0  # not the true derivative 2x, on purpose

        return x * x, grad

    g1 = ks.gradients_function(fake_square)
    g2 = ks.gradients_function(lambda x: g1(x)[0])
    assert float(g1(3.0)[0]) == 30.0
    assert float(g2(3.0)[0]) == 10.0


def test_custom_gradient_with_several_outputs():
    @ks.custom_gradient
    def split_pair(x):
        def grad(da, db):
            return da * 2.0 + db * 3.0

        return (x * 2.0, x * 3.0), grad

    x = ks.constant(1.0)
    with ks.GradientTape() as tape:
        tape.watch(x)
        a, b = split_pair(x)
        y = a * 10.0 + b
    assert float(tape.gradient(y, x)) == 23.0


def test_custom_gradient_none_for_an_input():
    @ks.custom_gradient
    def f(x, y):
        return x * y, lambda dy: (dy * y, None)

    gx, gy = ks.gradients_function(f)(2.0, 5.0)
    assert float(gx) == 5.0 and gy is None


# ---------------------------------------------------------------- jacobian / hessian helpers


def test_jacobian_and_hessian_helpers():
    jac = ks.jacobian(lambda x: x * x, ks.constant([1.0, 2.0]))
    np.testing.assert_array_equal(jac.numpy(), [[2.0, 0.0], [0.0, 4.0]])
    hess = ks.hessian(lambda x: ks.reduce_sum(x * x * x), ks.constant([1.0, 2.0]))
    np.testing.assert_array_equal(hess.numpy(), [[6.0, 0.0], [0.0, 12.0]])
