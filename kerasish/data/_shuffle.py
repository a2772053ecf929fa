"""tf.data's shuffle buffer, for elements and (vectorized) for row indices.

The buffer holds `buffer_size` elements. Once it is full, each incoming
element evicts a uniformly chosen slot: the slot's element is produced and the
new one takes its place. When the input ends, what is left in the buffer comes
out in a random order. With buffer_size >= the number of elements this is a
uniform random permutation; with a small buffer, elements move only about
buffer_size places, exactly as in TF.

Two implementations give *the same order* for the same generators: an element
loop for any input, and a NumPy version over row indices (used when the input
is array slices) that handles a block of incoming indices at once. Slot draws
come from one generator, `slot_rng.random()` consumed in order (chunking does
not change the values); the final drain uses a second generator, `tail_rng`.
"""

from __future__ import annotations

import operator
import threading

import numpy as np

from kerasish.core import backend
from kerasish.core import random as ks_random
from kerasish.core.tensor import Variable

_STREAM = 0x6B7344617461  # "ksData": the ks.random stream that seeds shuffles
_EXPLICIT = 0x6B7353656564  # "ksSeed": keeps explicit seeds' streams apart from the others
_BLOCK = 1 << 16  # indices processed per vectorized step (bounds temporary memory)
_DRAWS = 1024  # slot draws fetched at a time by the element loop


class ShuffleSeed:
    """Per-iteration generators for one `shuffle` transformation.

    A given `seed` alone decides the base: neither the global seed nor the
    moment the dataset is built changes the stream, so a program that rebuilds
    its pipeline after restoring a checkpoint gets the order the interrupted
    run had. Without `seed`, the base comes from a dedicated ks.random stream
    after `ks.random.set_seed` (reproducible without shifting the values of
    other random ops), else from fresh OS entropy. Iteration k uses (base, k)
    when reshuffling, (base, 0) every time otherwise; k is `passes`, an int64
    variable (on the host) that the dataset's checkpoints hold, so a restored
    dataset's next pass is the one the saved program would have made.
    """

    def __init__(self, seed=None, reshuffle_each_iteration: bool = True):
        global_seed = ks_random.get_seed()
        if seed is not None:
            self.base = [_EXPLICIT, _seed_value(seed)]
        elif global_seed is None:
            self.base = [int(np.random.SeedSequence().entropy)]
        else:
            stream = ks_random.stream(_STREAM, device=("cpu", 0))
            self.base = [int(global_seed), int(stream.integers(2**63))]
        self.reshuffle = bool(reshuffle_each_iteration)
        with backend.device("/cpu:0"):
            self.passes = Variable(0, dtype=np.int64, trainable=False, name="passes")
        self._lock = threading.Lock()

    def generators(self, advance: bool = True):
        """(slot_rng, tail_rng) for a new iteration."""
        with self._lock:
            k = int(self.passes) if self.reshuffle else 0
            if k < 0:
                raise ValueError(
                    f"shuffle: the pass counter '{self.passes.name}' is {k}; it counts passes "
                    "and cannot be negative (was another value restored into it?)"
                )
            if advance and self.reshuffle:
                self.passes.assign(k + 1)
        slot_seq, tail_seq = np.random.SeedSequence(self.base + [k]).spawn(2)
        return np.random.Generator(np.random.PCG64(slot_seq)), np.random.Generator(
            np.random.PCG64(tail_seq)
        )


def _seed_value(seed) -> int:
    """`seed` as a non-negative int (Python and NumPy integers, integer scalar tensors)."""
    try:
        value = None if isinstance(seed, bool) else operator.index(seed)
    except TypeError:
        value = None
    if value is None or value < 0:
        raise ValueError(f"shuffle: seed must be a non-negative integer, got {seed!r}")
    return value


def shuffle_elements(source, buffer_size: int, slot_rng, tail_rng):
    """Yield the elements of the iterator `source` through a shuffle buffer."""
    buffer = []
    for element in source:
        buffer.append(element)
        if len(buffer) >= buffer_size:
            break
    draws, k = (), 0
    for element in source:
        if k == len(draws):
            draws, k = slot_rng.random(_DRAWS), 0
        slot = int(draws[k] * buffer_size)
        k += 1
        out = buffer[slot]
        buffer[slot] = element
        yield out
    for slot in tail_rng.permutation(len(buffer)):
        yield buffer[slot]


def _blocks(chunks):
    """Index chunks (ranges or int64 arrays) as int64 arrays of at most _BLOCK entries."""
    for chunk in chunks:
        for start in range(0, len(chunk), _BLOCK):
            part = chunk[start : start + _BLOCK]
            if isinstance(part, range):
                part = np.arange(part.start, part.stop, dtype=np.int64)
            yield part


def shuffle_indices(chunks, buffer_size: int, slot_rng, tail_rng):
    """Yield int64 arrays: the index stream `chunks` through a shuffle buffer.

    Same order as `shuffle_elements` on the same stream with the same generators.
    For a block of m incoming indices with slot draws s[0..m): step t produces
    the index last written into slot s[t] (before step t, else the buffer's),
    then writes incoming[t] there. Grouping steps by slot with a stable sort
    gives every step's "previous write" at once.
    """
    buffer = np.empty(0, dtype=np.int64)
    for block in _blocks(chunks):
        if len(buffer) < buffer_size:
            need = buffer_size - len(buffer)
            buffer = np.concatenate([buffer, block[:need]])
            block = block[need:]
        m = len(block)
        if m == 0:
            continue
        slots = (slot_rng.random(m) * buffer_size).astype(np.int64)
        order = np.argsort(slots, kind="stable")
        grouped = slots[order]
        new_group = np.ones(m, dtype=bool)
        new_group[1:] = grouped[1:] != grouped[:-1]
        previous_write = np.empty(m, dtype=np.int64)
        previous_write[0] = 0
        previous_write[1:] = block[order[:-1]]
        out = np.empty(m, dtype=np.int64)
        out[order] = np.where(new_group, buffer[grouped], previous_write)
        last_of_group = np.ones(m, dtype=bool)
        last_of_group[:-1] = new_group[1:]
        buffer = buffer.copy()
        buffer[grouped[last_of_group]] = block[order[last_of_group]]
        yield out
    if len(buffer):
        yield buffer[tail_rng.permutation(len(buffer))]
