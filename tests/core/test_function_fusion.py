"""ks.function's elementwise fusion (GPU programs): which chains of ops are fused, and that
each fused kernel computes the separate ops' values.

Without a GPU the kernels run as C++ on the CPU (tests/cuda_harness.py), on the values the
unfused program computed: each chain's kernel gives the bits of its ops run as separate
kernels, and NumPy's bits where no exp, log or tanh takes part (the host's math library
and NumPy's differ by a few ulp there; on the GPU CuPy's ufuncs call the same CUDA math
functions as the fused kernel).
The chains are found as they would be on a GPU, by calling `fusion.groups` with every slot
counted as a GPU array; these tests are marked `cpu`, as a program traced on a GPU is already
fused (the `gpu`-marked test checks that one).
"""

import warnings

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import backend
from kerasish.core.function import fusion
from kerasish.core.function.program import Return
from tests import cuda_harness
from tests.core.test_gradients import SAMPLES

_TRANSCENDENTAL = {"exp", "log", "tanh"}


def _program(fn, *args):
    """The concrete function for `args` and its program-ending segments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        concrete = ks.function(fn).get_concrete_function(*args)
    return concrete, [s for s in concrete.segments() if isinstance(s.end, Return)]


def _chains(concrete, segment) -> list:
    """The chains fused on a GPU, as lists of instructions."""
    found = fusion.groups(segment.code, segment.end.slots(), concrete.slot_info,
                          set(concrete.slot_info))
    return [[segment.code[i] for i in chain] for chain in found]


def _names(chains) -> list:
    return [[instr.op.name for instr in chain] for chain in chains]


def _values(concrete, segment, args) -> list:
    """Every slot's value after the unfused segment ran on `args`."""
    env = concrete._template[:]
    env[: concrete.n_inputs] = [ks.convert_to_tensor(a)._value for a in args]
    for slot, variable in concrete._variable_pairs:
        env[slot] = variable._value
    segment.run(env)
    return env


@pytest.mark.cpu
def test_a_chain_runs_up_to_the_value_that_leaves_it():
    x, b = ks.constant(np.ones((4, 3), np.float32)), ks.constant(np.ones(3, np.float32))
    concrete, (segment,) = _program(lambda x, b: ks.nn.relu(x + b) * 2.0, x, b)
    assert _names(_chains(concrete, segment)) == [["add", "relu", "multiply"]]


@pytest.mark.cpu
def test_a_value_read_outside_the_chain_ends_it_there():
    def f(x):
        y = ks.exp(x)  # read by two ops: computed once, an input of the chain
        z = y + 1.0
        w = y * 3.0
        return z + w, x * 2.0 + 1.0, (x - 1.0)  # the last one: returned alone

    x = ks.constant(np.ones(3))
    concrete, (segment,) = _program(f, x)
    assert _names(_chains(concrete, segment)) == [["add", "multiply", "add"],
                                                  ["multiply", "add"]]


@pytest.mark.cpu
def test_a_returned_value_is_never_inside_a_chain():
    x = ks.constant(np.ones(3))
    concrete, (segment,) = _program(lambda x: (x * 2.0, x * 2.0 + 1.0), x)
    assert _chains(concrete, segment) == []


@pytest.mark.cpu
def test_a_chain_never_spans_a_change_of_state():
    v = ks.Variable(np.ones(3))

    def f(x):
        before = v * 2.0  # read before the assignment: must not be computed after it
        v.assign_add(x)
        return before + 1.0

    x = ks.constant(np.ones(3))
    concrete, (segment,) = _program(f, x)
    assert _chains(concrete, segment) == []
    np.testing.assert_array_equal(ks.function(f)(x).numpy(), [5.0, 5.0, 5.0])  # v was 2, then 3


@pytest.mark.cpu
def test_operands_are_cast_to_the_type_the_loop_computes_in():
    def f(x, y, z):
        return ks.where(x > y, z, 0.0) * 2.0

    x = ks.constant(np.ones(3, np.float32))
    y = ks.constant(np.ones(3, np.float64))
    z = ks.constant(np.ones(3, np.float32))
    concrete, (segment,) = _program(f, x, y, z)
    (chain,) = _chains(concrete, segment)
    inputs, in_params, out_params, body = fusion.kernel_source(chain, concrete.slot_info)
    assert in_params.split(", ")[:2] == ["float32 in0", "float64 in1"]
    assert out_params == "float32 out0"
    lines = body.splitlines()
    assert lines[0].endswith(" = (double)in0 > in1;")  # compared in float64, as NumPy does
    assert " ? in2 : " in lines[1]
    assert lines[-1].startswith("out0 = t")


def _gradient_programs():
    """Forward and gradient of every gradient-check sample, with the chains found in them."""
    for name, cases in sorted(SAMPLES.items()):
        for i, case in enumerate(cases):
            def gradient(*xs, case=case):
                with ks.GradientTape() as tape:
                    tape.watch(list(xs))
                    y = case.fn(*xs, *case.ints)
                return y, tape.gradient(y, list(xs))

            args = [ks.constant(np.asarray(v)) for v in case.inputs]
            concrete, segments = _program(gradient, *args)
            for segment in segments:
                for chain in _chains(concrete, segment):
                    yield f"{name}-{i}", concrete, segment, args, chain


def _kernel(chain, info) -> tuple:
    inputs, in_params, out_params, body = fusion.kernel_source(chain, info)
    return inputs, (in_params, out_params, body, backend.KERNEL_HELPERS)


@pytest.mark.cpu
def test_fused_kernels_compute_the_separate_ops_values_for_every_gradient_sample(tmp_path):
    """Each chain's kernel against the same ops as separate kernels (the same math library:
    bit for bit), and against NumPy's values (bit for bit without exp, log or tanh)."""
    kernels, checks = {}, []
    for case_id, concrete, segment, args, chain in _gradient_programs():
        info = concrete.slot_info
        inputs, kernels[f"k{len(checks)}"] = _kernel(chain, info)
        for j, instr in enumerate(chain):
            _, kernels[f"k{len(checks)}_{j}"] = _kernel([instr], info)  # (inputs: the ins)
        checks.append((case_id, f"k{len(checks)}", concrete, segment, args, chain, inputs))
    assert len(checks) > 100  # most samples have a chain in their forward or gradient
    library = cuda_harness.build_on_cpu(kernels, tmp_path)
    for case_id, name, concrete, segment, args, chain, inputs in checks:
        label = f"{case_id}: {[instr.op.name for instr in chain]}"
        with np.errstate(all="ignore"):
            env = _values(concrete, segment, args)
        shape = np.broadcast_shapes(*[np.shape(env[s]) for s in inputs])
        values = {s: np.ascontiguousarray(np.broadcast_to(env[s], shape)).reshape(-1)
                  if np.size(env[s]) > 1 else np.ascontiguousarray(env[s]).reshape(1)
                  for s in inputs}
        size = max(1, int(np.prod(shape)))
        for j, instr in enumerate(chain):  # one op at a time
            out = np.empty(size, concrete.slot_info[instr.outs[0]][1])
            cuda_harness.run(library, f"{name}_{j}", [values[s] for s in dict.fromkeys(instr.ins)],
                             [out])
            values[instr.outs[0]] = out
        fused = np.empty(size, values[chain[-1].outs[0]].dtype)
        cuda_harness.run(library, name, [values[s] for s in inputs], [fused])
        assert fused.tobytes() == values[chain[-1].outs[0]].tobytes(), label
        if not _TRANSCENDENTAL & {instr.op.name for instr in chain}:
            expected = np.broadcast_to(env[chain[-1].outs[0]], shape).reshape(-1)
            assert fused.tobytes() == np.ascontiguousarray(expected).tobytes(), label


def test_fused_kernels_compile_with_nvrtc_without_fused_multiply_adds():
    """No contraction into fused multiply-adds where only arithmetic takes part (CUDA's exp,
    log and tanh are written with explicit fused multiply-adds, as in CuPy's own ufuncs)."""
    plain, transcendental = {}, {}
    for _, concrete, _, _, chain in _gradient_programs():
        _, kernel = _kernel(chain, concrete.slot_info)
        names = {instr.op.name for instr in chain}
        group = transcendental if names & _TRANSCENDENTAL else plain
        group[f"k{len(plain) + len(transcendental)}"] = kernel
    assert "fma." not in cuda_harness.ptx(plain)
    assert cuda_harness.ptx(transcendental).count(".entry") == len(transcendental)


@pytest.mark.gpu
def test_a_compiled_step_on_the_gpu_runs_fused_kernels_and_gives_eager_values():
    with ks.device("/gpu:0"):
        model = ks.Sequential([ks.layers.Dense(16, activation="relu"), ks.layers.Dense(3)])
        model.compile(optimizer="adam", loss=ks.losses.SparseCategoricalCrossentropy(
            from_logits=True), run_eagerly=False)
        x = np.random.default_rng(0).random((32, 8), np.float32)
        y = np.arange(32) % 3
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
        step = model._step_functions["train_step"].function
        listings = [str(concrete) for concrete in step._concrete.values()]
        assert any("fused(" in listing for listing in listings), listings

        def f(a, b):
            return ks.nn.relu(a * 2.0 + b) - ks.where(a > b, a, b)

        a, b = ks.constant(x), ks.constant(x[::-1].copy())
        compiled = ks.function(f)
        for _ in range(3):
            got = compiled(a, b)
        assert "fused(" in str(compiled.get_concrete_function(a, b))
        assert got.numpy().tobytes() == f(a, b).numpy().tobytes()
