"""Index plans: elements that are rows of in-memory arrays, in the order of an index stream.

`from_tensor_slices` and `range` provide a plan; `shuffle`, `repeat`, `take`,
`skip` and `shard` transform its index stream (chunks of row indices: ranges,
or int64 arrays) without touching the data; `batch` then gathers a whole batch
with one slice or one fancy index per array.
"""

from __future__ import annotations

import builtins

import numpy as np

from kerasish.data import structure as st


class Plan:
    """Elements that are rows of in-memory arrays, in the order of an index stream.

    `gather(index)` returns the flat list of arrays for an int (one element),
    a slice or an int64 array (a batch); `chunks()` starts a new pass and
    returns an iterator of index chunks (ranges or int64 arrays).
    """

    __slots__ = ("structure", "gather", "chunks", "_pack")

    def __init__(self, structure, gather, chunks):
        self.structure = structure
        self.gather = gather
        self.chunks = chunks
        self._pack = st.packer(structure)

    def with_chunks(self, chunks) -> Plan:
        return Plan(self.structure, self.gather, chunks)

    def element(self, index):
        return self._pack(st.arrays_to_tensors(self.gather(index)))


def as_index(chunk):
    if isinstance(chunk, builtins.range):
        return slice(chunk.start, chunk.stop, chunk.step)
    return chunk


def as_array(chunk):
    if isinstance(chunk, builtins.range):
        return np.arange(chunk.start, chunk.stop, chunk.step, dtype=np.int64)
    return chunk


def iterate(plan: Plan):
    for chunk in plan.chunks():
        indices = chunk if isinstance(chunk, builtins.range) else chunk.tolist()
        for i in indices:
            yield plan.element(i)


def take_chunks(chunks, count: int):
    if count < 0:
        yield from chunks
        return
    left = count
    if left == 0:
        return
    for chunk in chunks:
        if len(chunk) >= left:
            yield chunk[:left]
            return
        left -= len(chunk)
        yield chunk


def skip_chunks(chunks, count: int):
    left = count
    for chunk in chunks:
        if count < 0:
            continue
        if left >= len(chunk):
            left -= len(chunk)
            continue
        yield chunk[left:]
        left = 0


def join(parts):
    """One index for several consecutive chunks."""
    if len(parts) == 1:
        return as_index(parts[0])
    return np.concatenate([as_array(p) for p in parts])
