"""Update rules: one statement list, two forms (array passes, one CUDA kernel), same bits.

The kernel form needs a GPU to run. Without one, its body is checked twice:
compiled as C++ by the host compiler and run on the CPU (each statement in the
arrays' dtype, no contraction into fused multiply-adds, as `--fmad=false`
asks of NVRTC), it must give the pass form's bits; and compiled by NVRTC (when
CuPy is installed) it must compile, with no fused multiply-add in the PTX.
"""

import numpy as np
import pytest

from kerasish.core import backend
from kerasish.optimizers import adadelta, adagrad, adam, adamax, lion, nadam, rmsprop, sgd
from kerasish.optimizers.rules import UpdateRule
from tests import cuda_harness

RULES = [adam._ADAM_RULE, adam._AMSGRAD_RULE, sgd._PLAIN_RULE, sgd._MOMENTUM_RULE,
         sgd._NESTEROV_RULE, adagrad._ADAGRAD_RULE, *rmsprop._RULES.values(), nadam._NADAM_RULE,
         adamax._ADAMAX_RULE, adadelta._ADADELTA_RULE, lion._LION_RULE]
SCALARS = {"lr": 0.01, "momentum": 0.9, "beta_1": 0.9, "one_minus_beta_1": 1.0 - 0.9,
           "beta_2": 0.999, "one_minus_beta_2": 1.0 - 0.999, "epsilon": 1e-7,
           "alpha": 0.0031622776601683794, "rho": 0.9, "one_minus_rho": 1.0 - 0.9,
           "c_momentum": 0.6278, "c_grad": 1.0, "bias_1": 0.1, "bias_2": 0.001}
C_TYPES = {np.float32: "float", np.float64: "double"}


def _arrays(rule, dtype, n=1000):
    """Gradients over many magnitudes (with zeros), variables, non-negative second moments."""
    rng = np.random.default_rng(7)
    grad = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 4, n)
    grad[::17] = 0.0
    arrays = [grad.astype(dtype)]
    for name in rule.arrays[1:]:
        values = rng.standard_normal(n)
        if name in ("v", "vhat", "rms", "accumulator", "velocity", "norm", "accumulated_grad",
                    "accumulated_delta_var"):
            values = values**2 * 10.0 ** rng.integers(-12, 2, n)
        elif name == "mg":  # mostly below sqrt(rms); where not, both forms give NaN
            values *= 1e-7
        arrays.append(values.astype(dtype))
    return arrays


def _kernel(rule) -> tuple:
    in_params, out_params, body, _ = rule.cuda_kernel()
    return in_params, out_params, body, backend.KERNEL_HELPERS


def test_pass_form_is_the_statements_in_order():
    rule = UpdateRule("demo", "grad param m", "c", """
        m = m * c
        s = grad / m
        param = maximum(param, s)
        param = sqrt(param)""")
    grad, param, m = (np.array([4.0, 9.0, 1.0]), np.array([0.0, 100.0, np.nan]),
                      np.array([4.0, 2.0, 1.0]))
    rule.apply(grad, param, m, c=0.5)
    np.testing.assert_array_equal(m, [2.0, 1.0, 0.5])
    np.testing.assert_array_equal(param, [np.sqrt(2.0), 10.0, np.nan])
    assert rule.temporaries == ["s"]


@pytest.mark.parametrize("statement, message", [
    ("s = grad ** 2", "cannot read the statement 's = grad ** 2'"),
    ("s = exp(grad)", "cannot read the statement 's = exp(grad)'"),
    ("param = t * grad", "'t' is read before it is set"),
    ("grad = grad * grad", "'grad' is read only"),
])
def test_statements_outside_the_grammar_are_refused_by_name(statement, message):
    with pytest.raises(ValueError, match=f"update rule bad: {message}".replace("*", r"\*")
                       .replace("(", r"\(").replace(")", r"\)")):
        UpdateRule("bad", "grad param", "", statement)


def test_kernel_form_declares_the_gradient_and_scalars_as_inputs_the_state_as_outputs():
    in_params, out_params, body, name = adam._ADAM_RULE.cuda_kernel()
    assert in_params == ("T grad, T one_minus_beta_1, T beta_1, T one_minus_beta_2, T beta_2, "
                         "T epsilon, T alpha")
    assert out_params == "T param, T m, T v"
    assert body.splitlines()[:3] == ["T s;", "s = grad * one_minus_beta_1;", "m = m * beta_1;"]
    assert body.splitlines()[-1] == "param = param - s;"
    assert name == "ks_adam"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_kernel_body_run_on_the_cpu_gives_the_pass_forms_bits(rule, dtype, tmp_path):
    kernel_arrays = _arrays(rule, dtype)
    pass_arrays = [a.copy() for a in kernel_arrays]
    scalars = {s: SCALARS[s] for s in rule.scalars}
    library = cuda_harness.build_on_cpu({"rule": _kernel(rule)}, tmp_path, C_TYPES[dtype])
    cuda_harness.run(library, "rule", kernel_arrays[:1] + [np.array([v], dtype) for v in
                                                           scalars.values()], kernel_arrays[1:])
    with np.errstate(invalid="ignore"):
        rule.apply(*pass_arrays, **scalars)
    for name, got, expected in zip(rule.arrays, kernel_arrays, pass_arrays):
        assert got.tobytes() == expected.tobytes(), f"{rule.name}: '{name}' differs"
    assert not np.array_equal(pass_arrays[1], _arrays(rule, dtype)[1])  # the rule did update


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_abs_and_sign_are_numpys_in_both_forms_on_zeros_nans_and_infinities(dtype, tmp_path):
    rule = UpdateRule("edges", "grad param m", "c", """
        s = grad * c
        m = sign(s)
        param = abs(s)""")
    grad = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 2.5, -3.0], dtype)
    expected_m, expected_param = np.sign(grad), np.abs(grad)
    assert not np.signbit(expected_m[0]) and not np.signbit(expected_param[0])  # -0 gives +0
    passes = [grad, np.ones_like(grad), np.ones_like(grad)]
    with np.errstate(invalid="ignore"):
        rule.apply(*passes, c=1.0)
    kernel = [grad, np.ones_like(grad), np.ones_like(grad)]
    library = cuda_harness.build_on_cpu({"rule": _kernel(rule)}, tmp_path, C_TYPES[dtype])
    cuda_harness.run(library, "rule", [grad, np.array([1.0], dtype)], kernel[1:])
    for arrays in (passes, kernel):
        assert arrays[1].tobytes() == expected_param.tobytes()
        assert arrays[2].tobytes() == expected_m.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_kernel_body_compiles_with_nvrtc_without_fused_multiply_adds(rule, dtype):
    ptx = cuda_harness.ptx({"rule": _kernel(rule)}, element_type=C_TYPES[dtype])
    assert "fma." not in ptx
    assert ("div.rn." in ptx) == ("/" in rule.cuda_kernel()[2])  # IEEE division, not approximate


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_kernel_on_the_gpu_gives_the_cpu_passes_bits(rule, dtype):
    import cupy

    host = _arrays(rule, dtype)
    device = [cupy.asarray(a) for a in host]
    scalars = {s: SCALARS[s] for s in rule.scalars}
    rule.apply(*host, **scalars)
    rule.apply(*device, **scalars)
    assert rule._kernel is not None  # the kernel form ran
    for name, got, expected in zip(rule.arrays, device, host):
        assert cupy.asnumpy(got).tobytes() == expected.tobytes(), f"{rule.name}: '{name}'"


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16],
                         ids=["float32", "float64", "float16"])
@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_small_variables_take_the_same_bits_without_scratch_arrays(rule, dtype):
    """Up to SMALL_SIZE elements the temporaries are the ufuncs' own results (0-d: NumPy
    scalars); the values equal those of the scratch-array form elementwise."""
    from kerasish.optimizers import rules as rules_module

    scalars = {s: SCALARS[s] for s in rule.scalars}
    large = _arrays(rule, dtype, n=rules_module.SMALL_SIZE + 1)
    for size in (0, 1, rules_module.SMALL_SIZE):  # 0: a 0-d variable (its first element)
        small = [np.array(a[0]) if size == 0 else a[:size].copy() for a in large]
        with np.errstate(all="ignore"):
            rule.apply(*small, **scalars)
        expected = [a.copy() for a in large]
        with np.errstate(all="ignore"):
            rule.apply(*expected, **scalars)
        for name, got, want in zip(rule.arrays, small, expected):
            want = want[0] if size == 0 else want[:size]
            assert got.tobytes() == np.ascontiguousarray(want).tobytes(), (rule.name, name, size)
