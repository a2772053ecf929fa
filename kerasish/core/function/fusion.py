"""Elementwise fusion for `ks.function` programs on the GPU: a chain of ops, one kernel.

On the GPU a replayed step is bound by kernel launches: each CuPy op is one
launch and some microseconds of host work. Where a program computes a value
through elementwise ops whose intermediate results nothing else reads (a bias
add and its ReLU, a mask and its select, a metric's scalar arithmetic), `fuse`
replaces them with one instruction that runs one CuPy `ElementwiseKernel`.

Each op becomes one C statement: its operands cast to the type NumPy's loop
computes in (the result's dtype; for comparisons, the inputs' common dtype),
the result stored in the result's dtype. The kernel is compiled with
`--fmad=false` (no multiply and add contracted into one rounding), so + - * /,
sqrt, comparisons, selections and casts give the bits of the separate ops;
exp, log and tanh call the CUDA math functions CuPy's ufuncs call, to within
a few ulp of them.

Only segments that end the program are fused (a segment ending in a guard may
be followed by segments traced later, which may read any of its values), and
a chain never spans a change of state (an effect or a random draw): a value
computed from a variable before an assignment must not be computed after it.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend
from kerasish.core.function.program import Instr
from kerasish.core.primitive import Primitive

_C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
            np.dtype(np.bool_): "bool"}
# name -> (C expression of the operands, kind): "arithmetic" computes in the result's dtype,
# "comparison" in the inputs' common dtype, "logical" on bools, "select" picks (where)
_OPS = {
    "add": ("{0} + {1}", "arithmetic"),
    "subtract": ("{0} - {1}", "arithmetic"),
    "multiply": ("{0} * {1}", "arithmetic"),
    "divide": ("{0} / {1}", "arithmetic"),
    "negative": ("-{0}", "arithmetic"),
    "square": ("{0} * {0}", "arithmetic"),
    "abs": ("fabs({0})", "arithmetic"),
    "sqrt": ("sqrt({0})", "arithmetic"),
    "exp": ("exp({0})", "arithmetic"),
    "log": ("log({0})", "arithmetic"),
    "tanh": ("tanh({0})", "arithmetic"),
    "maximum": ("ks_maximum({0}, {1})", "arithmetic"),  # (see backend.KERNEL_HELPERS)
    "minimum": ("ks_minimum({0}, {1})", "arithmetic"),
    "relu": ("ks_maximum({0}, ({T})0)", "arithmetic"),
    "cast": ("{0}", "arithmetic"),
    "greater": ("{0} > {1}", "comparison"),
    "greater_equal": ("{0} >= {1}", "comparison"),
    "less": ("{0} < {1}", "comparison"),
    "less_equal": ("{0} <= {1}", "comparison"),
    "equal": ("{0} == {1}", "comparison"),
    "not_equal": ("{0} != {1}", "comparison"),
    "logical_and": ("{0} && {1}", "logical"),
    "logical_or": ("{0} || {1}", "logical"),
    "logical_not": ("!{0}", "logical"),
    "where": ("{0} ? {1} : {2}", "select"),
}


def _fusable(instr, info: dict, on_gpu: set) -> bool:
    if (instr.kind != "prim" or len(instr.outs) != 1 or instr.copy or instr.attr_slots
            or instr.op.name not in _OPS or set(instr.attrs) - {"dtype"}
            or (instr.attrs and instr.op.name != "cast")):
        return False
    slots = instr.ins + instr.outs
    return all(s in on_gpu and info[s][1] in _C_TYPES for s in slots)


def groups(code: list, returned: set, info: dict, on_gpu: set) -> list:
    """The chains to fuse: lists of instruction indices, each ending at the one whose value
    leaves the chain; every other member's value is read only by later members.

    Args:
        code: a program-ending segment's instructions.
        returned: the slots its `Return` reads.
        info: slot -> (shape, dtype, origin), as recorded.
        on_gpu: the slots whose arrays were CuPy arrays when traced.

    Returns:
        The chains of two instructions or more, in program order.
    """
    reads: dict[int, int] = {}
    for instr in code:
        for slot in instr.reads():
            reads[slot] = reads.get(slot, 0) + 1
    chain_of: dict[int, list] = {}  # slot -> the chain that computes it (since the last effect)
    chains = []
    for i, instr in enumerate(code):
        if instr.kind != "prim":
            chain_of.clear()  # state may change: nothing before joins anything after
            continue
        if not _fusable(instr, info, on_gpu):
            continue
        members = []
        for slot in dict.fromkeys(instr.ins):
            inner = chain_of.get(slot)
            if (inner is not None and slot not in returned
                    and reads[slot] == instr.ins.count(slot)):
                members.extend(inner)
                del chain_of[slot]
        chain = sorted(members) + [i]
        chain_of[instr.outs[0]] = chain
        chains.append(chain)
    absorbed = {i for chain in chains for i in chain[:-1]}
    return [chain for chain in chains if len(chain) > 1 and chain[-1] not in absorbed]


def kernel_source(chain: list, info: dict) -> tuple:
    """(input slots, in_params, out_params, body) of one kernel computing `chain`'s value."""
    inside = {instr.outs[0] for instr in chain[:-1]}
    inputs = list(dict.fromkeys(s for instr in chain for s in instr.ins if s not in inside))
    names = {slot: f"in{k}" for k, slot in enumerate(inputs)}
    body = []
    for instr in chain:
        template, kind = _OPS[instr.op.name]
        out_dtype = info[instr.outs[0]][1]
        if kind == "comparison":
            compute = np.result_type(*[info[s][1] for s in instr.ins])
            operand_types = [compute] * len(instr.ins)
        elif kind == "select":
            operand_types = [np.dtype(np.bool_), out_dtype, out_dtype]
        elif kind == "logical":
            operand_types = [np.dtype(np.bool_)] * len(instr.ins)
        else:
            operand_types = [out_dtype] * len(instr.ins)
        operands = []
        for slot, dtype in zip(instr.ins, operand_types):
            name = names.get(slot, f"t{slot}")
            operands.append(name if info[slot][1] == dtype else f"({_C_TYPES[dtype]}){name}")
        names[instr.outs[0]] = f"t{instr.outs[0]}"
        expression = template.format(*operands, T=_C_TYPES[out_dtype])
        body.append(f"{_C_TYPES[out_dtype]} t{instr.outs[0]} = {expression};")
    root = chain[-1].outs[0]
    body.append(f"out0 = t{root};")
    in_params = ", ".join(f"{info[s][1].name} in{k}" for k, s in enumerate(inputs))
    out_params = f"{info[root][1].name} out0"
    return inputs, in_params, out_params, "\n".join(body)


def fuse(code: list, returned: set, info: dict, on_gpu: set) -> list:
    """`code` with each chain of `groups` replaced by one instruction running one kernel."""
    chains = groups(code, returned, info, on_gpu)
    if not chains:
        return code
    fused, dropped = {}, set()
    for chain in chains:
        instrs = [code[i] for i in chain]
        inputs, in_params, out_params, body = kernel_source(instrs, info)
        names = ", ".join(instr.op.name for instr in instrs)
        kernel = backend.elementwise_kernel(in_params, out_params, body, "ks_fused")
        root = instrs[-1]
        fused[chain[-1]] = Instr("prim", Primitive(f"fused({names})", kernel, register=False),
                                 inputs, root.outs, where=root.where, fresh=True)
        dropped.update(chain[:-1])
    return [fused.get(i, instr) for i, instr in enumerate(code) if i not in dropped]
