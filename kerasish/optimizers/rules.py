"""Update rules written once, run as in-place array passes or as one CUDA kernel.

An optimizer's rule is a few elementwise statements over its arrays (the
gradient, the variable, its slots) and Python-number hyperparameters:

    s = grad * lr
    param = param - s

Each statement is `target = a OP b` (OP one of + - * /) or `target =
f(a[, b])` (f: sqrt, abs, sign, maximum); a name that is neither an array nor a
hyperparameter is a temporary. The rule runs in one of two forms, which give
the same bits:

- passes: one ufunc call per statement, writing with `out=` (into the variable
  and slots in place, temporaries into scratch arrays like the variable). This
  is the form on NumPy, and on CuPy for dtypes other than float32/float64.
- one CuPy `ElementwiseKernel` (CuPy float32/float64 arrays): one launch
  instead of one per statement, as a GPU step is bound by its launches. Each
  statement rounds to the arrays' dtype as its ufunc does, and the kernel is
  compiled with `--fmad=false` so that no multiply and add are contracted
  into one fused multiply-add (which rounds once).

Hyperparameters are Python numbers, cast to the arrays' dtype before use (as
NumPy and CuPy do with a Python number in a ufunc).
"""

from __future__ import annotations

import re

import numpy as np

from kerasish.core import backend

_OPERATORS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}
_SYMBOLS = {function: symbol for symbol, function in _OPERATORS.items()}
# (see backend.KERNEL_HELPERS)
_CUDA_FUNCTIONS = {"sqrt": "sqrt", "abs": "fabs", "sign": "ks_sign", "maximum": "ks_maximum"}
_BINARY = re.compile(r"^(\w+) = (\w+) ([-+*/]) (\w+)$")
_CALL = re.compile(r"^(\w+) = (\w+)\((\w+)(?:, (\w+))?\)$")
KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
SMALL_SIZE = 16  # variables up to this many elements: temporaries without scratch arrays


class UpdateRule:
    """An elementwise update rule over `arrays` and `scalars`; see the module docstring.

    Args:
        name: the kernel's name (as profilers show it).
        arrays: space-separated names: the gradient (read only), then the
            variable and its slots (updated in place).
        scalars: space-separated names of the Python-number hyperparameters.
        statements: one statement per line.

    Raises:
        ValueError: a statement that is not of the forms above, or that reads a
            name before any value is given to it.

    Example:
        >>> import numpy as np
        >>> from kerasish.optimizers.rules import UpdateRule
        >>> sgd = UpdateRule("sgd", "grad param", "lr", '''
        ...     s = grad * lr
        ...     param = param - s''')
        >>> param = np.array([1.0, 2.0], np.float32)
        >>> sgd.apply(np.array([1.0, 1.0], np.float32), param, lr=0.5)
        >>> param
        array([0.5, 1.5], dtype=float32)
    """

    def __init__(self, name: str, arrays: str, scalars: str, statements: str):
        self.name = name
        self.arrays = arrays.split()
        self.scalars = scalars.split()
        self.statements = [_parse(line.strip(), name)
                           for line in statements.strip().splitlines() if line.strip()]
        known = set(self.arrays) | set(self.scalars)
        self.temporaries = []
        for target, _, operands in self.statements:
            for operand in operands:
                if operand not in known:
                    raise ValueError(f"update rule {name}: '{operand}' is read before it is set")
            if target == self.arrays[0] or target in self.scalars:
                raise ValueError(f"update rule {name}: '{target}' is read only")
            if target not in known:
                known.add(target)
                self.temporaries.append(target)
        self._kernel = None  # the CuPy kernel, made on the first GPU call
        self._graph_kernel = None  # its form reading the scalars from device memory
        self.apply = self._generate()

    def _launch(self, arrays: tuple, scalars: tuple) -> bool:
        """Run the kernel form if it applies to `arrays` (CuPy, one float dtype and shape).

        While a CUDA graph is captured or replayed (`backend.graph_state`), the
        scalars change from step to step (Adam's bias correction, a schedule's
        learning rate) but a captured launch keeps its arguments: the kernel then
        reads them from the graph's scalar array, which "host" mode fills before
        each replay (cast to the arrays' dtype first, so the bits are the same).
        """
        param = arrays[1]
        graph = backend.graph_state
        if graph.mode == "host":  # (its capture checked these arrays: only the numbers change)
            offset = graph.position
            graph.position += len(scalars)
            cast = param.dtype.type
            graph.host_scalars[offset:graph.position] = [cast(v) for v in scalars]
            return True
        if not (backend.is_gpu_array(param) and param.dtype in KERNEL_DTYPES
                and all(a.dtype == param.dtype and a.shape == param.shape for a in arrays)):
            if graph.mode is not None:  # the passes would keep this step's numbers
                raise backend.NotCapturable(
                    f"update rule {self.name} runs as array passes for {param.dtype}")
            return False
        cast = param.dtype.type
        if graph.mode == "capture":
            offset = graph.position
            graph.position += len(scalars)
            if self._graph_kernel is None:
                self._graph_kernel = backend.elementwise_kernel(*self.cuda_kernel(True))
            self._graph_kernel(arrays[0], graph.scalars, np.int64(offset), *arrays[1:])
            return True
        if self._kernel is None:
            self._kernel = backend.elementwise_kernel(*self.cuda_kernel())
        self._kernel(arrays[0], *[cast(value) for value in scalars], *arrays[1:])
        return True

    def _generate(self):
        """`apply(*arrays, **scalars)`: the kernel where it applies, else the passes, as one
        generated Python function (no interpretation of the statements per call).

        The passes write temporaries into scratch arrays (`out=`), except for variables of
        at most `SMALL_SIZE` elements (the scalars of a per-example step): there a
        temporary is the ufunc's own result, as allocating a scratch array and passing
        `out=` costs more than the arithmetic. Both call the same ufunc loops: same bits.
        """
        arrays, scalars = ", ".join(self.arrays), ", ".join(self.scalars)
        param = self.arrays[1]
        lines = [f"def apply({arrays}, *, {scalars}):",
                 f"    if type({param}) is ndarray:",
                 "        xp = numpy",
                 f"    elif launch(({arrays},), ({scalars},)):",
                 "        return",
                 "    else:",
                 f"        xp = array_module({param})",
                 f"    if {param}.size <= {SMALL_SIZE}:"]
        lines += ["        " + self._statement(*st, scratch=False) for st in self.statements]
        lines += ["        return"]
        lines += [f"    {t} = xp.empty_like({param})" for t in self.temporaries]
        lines += ["    " + self._statement(*st, scratch=True) for st in self.statements]
        namespace = {"ndarray": np.ndarray, "numpy": np, "launch": self._launch,
                     "array_module": backend.array_module}
        source = "\n".join(lines) + "\n"
        exec(compile(source, f"<update rule {self.name}>", "exec"), namespace)  # noqa: S102
        return namespace["apply"]

    def _statement(self, target: str, function: str, operands: tuple, scratch: bool) -> str:
        """One statement as Python: in place (`m *= b`) or with `out=` for the variable and
        slots (and for temporaries in scratch arrays), else the ufunc's result."""
        symbol = _SYMBOLS.get(function)
        if symbol and target == operands[0]:  # the same ufunc, called the cheaper way
            return f"{target} {symbol}= {operands[1]}"
        if target in self.temporaries and not scratch:  # (operators: NumPy scalars' fast path)
            expression = (f"{operands[0]} {symbol} {operands[1]}" if symbol
                          else f"xp.{function}({', '.join(operands)})")
            return f"{target} = {expression}"
        return f"xp.{function}({', '.join(operands)}, out={target})"

    def cuda_kernel(self, scalars_in_memory: bool = False) -> tuple:
        """(in_params, out_params, body, name) of the rule's CuPy ElementwiseKernel; with
        `scalars_in_memory`, the scalars are read from a float64 array at an offset."""
        if scalars_in_memory:
            in_params = f"T {self.arrays[0]}, raw float64 ks_scalars, int64 ks_offset"
            body = [f"const T {n} = (T)ks_scalars[ks_offset + {k}];"
                    for k, n in enumerate(self.scalars)]
        else:
            in_params = ", ".join(f"T {n}" for n in [self.arrays[0]] + self.scalars)
            body = []
        out_params = ", ".join(f"T {n}" for n in self.arrays[1:])
        body += [f"T {t};" for t in self.temporaries]
        for target, function, operands in self.statements:
            symbol = _SYMBOLS.get(function)
            expression = (f"{operands[0]} {symbol} {operands[1]}" if symbol
                          else f"{_CUDA_FUNCTIONS[function]}({', '.join(operands)})")
            body.append(f"{target} = {expression};")
        name = f"ks_{self.name}" + ("_graph" if scalars_in_memory else "")
        return in_params, out_params, "\n".join(body), name


def _parse(line: str, name: str) -> tuple:
    """(target, ufunc name, operands) of one statement."""
    binary = _BINARY.match(line)
    if binary:
        target, left, symbol, right = binary.groups()
        return target, _OPERATORS[symbol], (left, right)
    call = _CALL.match(line)
    if call and call.group(2) in _CUDA_FUNCTIONS:
        target, function, *operands = call.groups()
        return target, function, tuple(o for o in operands if o is not None)
    raise ValueError(f"update rule {name}: cannot read the statement {line!r} "
                     f"(expected 'a = b OP c' with OP in + - * /, or 'a = sqrt(b)', 'a = abs(b)', "
                     f"'a = sign(b)', 'a = maximum(b, c)')")
