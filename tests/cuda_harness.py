"""Checking CuPy ElementwiseKernel definitions without a GPU.

`build_on_cpu` compiles kernels' bodies as C++ with the host compiler (each
statement in its declared types, no contraction into fused multiply-adds:
what `--fmad=false` asks of NVRTC) and `run` runs one over NumPy arrays,
binding each element to its parameter's name as CuPy does (inputs by value,
outputs by reference). `ptx` compiles the same bodies with NVRTC when CuPy is
installed.
"""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

_HOST_PRELUDE = "#include <cmath>\nusing std::sqrt; using std::exp; using std::log;\n" \
                "using std::tanh; using std::fabs; using std::cos;\n#define __device__\n" \
                "static inline unsigned int __umulhi(unsigned int a, unsigned int b) {\n" \
                "  return (unsigned int)(((unsigned long long)a * b) >> 32); }\n"


def _params(text: str) -> list:
    """(type, name, raw) per parameter; a `raw` one is the whole array, indexed by the body."""
    params = []
    for part in text.split(", ") if text else []:
        words = part.split()
        params.append((words[-2], words[-1], words[0] == "raw"))
    return params


def _function(kernel: tuple, name: str, cuda: bool) -> str:
    """One function over n elements; each parameter a pointer, read at i * stride[k] (0 for
    a broadcast scalar)."""
    in_params, out_params, body, _ = kernel
    ins, outs = _params(in_params), _params(out_params)
    signature = ([f"const {t}* {n}_" for t, n, _ in ins] + [f"{t}* {n}_" for t, n, _ in outs]
                 + ["const long* stride_", "long n"])
    binds = [f"const {t}* {n} = {n}_;" if raw else f"const {t} {n} = {n}_[i * stride_[{k}]];"
             for k, (t, n, raw) in enumerate(ins)]
    binds += [f"{t}* {n} = {n}_;" if raw else f"{t}& {n} = {n}_[i * stride_[{k + len(ins)}]];"
              for k, (t, n, raw) in enumerate(outs)]
    loop = ("for (long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
            "i += blockDim.x * gridDim.x)" if cuda else "for (long i = 0; i < n; ++i)")
    qualifier = "__global__ " if cuda else ""
    return (f'extern "C" {qualifier}void {name}({", ".join(signature)}) {{\n  {loop} {{\n'
            + "\n".join(binds) + "\n" + body + "\n  }\n}\n")


def source(kernels: dict, cuda: bool, element_type: str | None = None) -> str:
    """C++ (or CUDA) source of `kernels` (name -> (in_params, out_params, body, preamble))."""
    text = "" if cuda else _HOST_PRELUDE
    text += "typedef float float32; typedef double float64;\n"
    if not cuda:
        text += "typedef long long int64; typedef unsigned long long uint64;\n"
    if element_type:
        text += f"typedef {element_type} T;\n"
    text += "".join(dict.fromkeys(kernel[3] for kernel in kernels.values()))
    return text + "".join(_function(k, name, cuda) for name, k in kernels.items())


def build_on_cpu(kernels: dict, tmp_path, element_type: str | None = None):
    """`kernels` compiled by g++ into a loaded library (skips without g++)."""
    if shutil.which("g++") is None:
        pytest.skip("needs a C++ compiler (g++)")
    path = tmp_path / "kernels.cpp"
    path.write_text(source(kernels, cuda=False, element_type=element_type))
    library = tmp_path / "kernels.so"
    subprocess.run(["g++", "-O2", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC",
                    str(path), "-o", str(library)], check=True)
    return ctypes.CDLL(str(library))


def run(library, name: str, inputs: list, outputs: list) -> None:
    """Call kernel `name`: `inputs` and `outputs` are C-contiguous NumPy arrays of the
    outputs' size or of size 1 (broadcast), or of any size for `raw` parameters; `outputs`
    are written in place."""
    arrays = list(inputs) + list(outputs)
    n = max(a.size for a in outputs)
    assert all(a.flags.c_contiguous for a in arrays)
    strides = np.array([0 if a.size == 1 and n > 1 else 1 for a in arrays], np.int64)
    getattr(library, name)(*[a.ctypes.data_as(ctypes.c_void_p) for a in arrays],
                           strides.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(n))


def ptx(kernels: dict, element_type: str | None = None) -> str:
    """`kernels` compiled by NVRTC with `--fmad=false` (skips without CuPy)."""
    nvrtc = pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="needs CuPy (NVRTC)")
    program = nvrtc.createProgram(source(kernels, cuda=True, element_type=element_type),
                                  "kernels.cu", [], [])
    oldest = min(arch for arch in nvrtc.getSupportedArchs() if arch >= 70)  # CUDA 13: 75
    try:
        nvrtc.compileProgram(program, ["--fmad=false", f"-arch=compute_{oldest}"])
    except nvrtc.NVRTCError:
        pytest.fail(nvrtc.getProgramLog(program))
    text = nvrtc.getPTX(program)
    return text.decode() if isinstance(text, bytes) else text
