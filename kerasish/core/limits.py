"""What reading a file may cost: every reader of files from elsewhere goes through here.

A file states sizes before it holds data: a zip member its inflated size, a JSON text
its nesting, an array header its shape and dtype. Each helper compares what is
declared with a budget *before* anything of that size is allocated. The caller passes its own error
class, so a `.keras` file fails with a `KerasFileError` and a dataset with a
`CorruptFileError`, each naming the file and the member.

The budgets are module attributes (tests and users with unusual files may change them):

- `INFLATE_FLOOR` and `INFLATE_RATIO`: a zip member may inflate to at most the larger of
  64 MiB and 100 times its compressed size (well-formed weights and datasets compress
  by less than 10x; a zip bomb by about 1000x).
- `JSON_BYTES` and `JSON_DEPTH`: configs and indexes are at most 32 MiB of text, nested
  at most 200 levels (Keras models nested ten deep use about 40).
- `ARRAY_BYTES`: an array rebuilt from a config (`__numpy__`) holds at most 64 MiB.
- `WEIGHT_SLACK`: while a model is built from a `.keras` file, its layers may create at most
  the values its weights file holds plus this many (a config declaring `units: 10**9`
  is refused before that layer's weights are allocated).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import threading
import zipfile

import numpy as np

INFLATE_FLOOR = 64 << 20
INFLATE_RATIO = 100
JSON_BYTES = 32 << 20
JSON_DEPTH = 200
ARRAY_BYTES = 64 << 20
WEIGHT_SLACK = 1 << 20


def _mib(n: int) -> str:
    return f"{n:,} bytes ({n / (1 << 20):.1f} MiB)"


def inflate_budget(compressed_bytes: int) -> int:
    """The most a compressed file of `compressed_bytes` may inflate to: the larger of
    `INFLATE_FLOOR` and `INFLATE_RATIO` times its size.

    Example:
        >>> inflate_budget(10 << 20) == 1000 << 20
        True
    """
    return max(INFLATE_FLOOR, INFLATE_RATIO * int(compressed_bytes))


def check_declared(declared: int, limit: int, source: str, error, what: str) -> None:
    """Refuse (as `error`, naming `source`) `declared` bytes beyond `limit`, before reading.

    Example:
        >>> check_declared(10, 100, "f", ValueError, "the header")
        >>> check_declared(1000, 100, "f", ValueError, "the header")
        Traceback (most recent call last):
        ValueError: f: the header declares 1,000 bytes (0.0 MiB), more than the 100 bytes \
(0.0 MiB) this file can hold (a damaged or hostile file); kerasish.core.limits sets the budget
    """
    if declared > limit:
        raise error(f"{source}: {what} declares {_mib(declared)}, more than the {_mib(limit)} "
                    "this file can hold (a damaged or hostile file); kerasish.core.limits sets "
                    "the budget")


def read_stream(stream, source: str, error, limit: int) -> bytes:
    """All of a (decompressing) `stream`, read in blocks and refused (as `error`) as soon
    as it goes past `limit` bytes: a gzip bomb stops at the budget.

    Example:
        >>> import gzip, io
        >>> bomb = io.BytesIO(gzip.compress(bytes(5000)))
        >>> try:
        ...     read_stream(gzip.open(bomb), "a.gz", ValueError, limit=1000)
        ... except ValueError as error:
        ...     print(str(error)[:39])
        a.gz: inflates to more than 1,000 bytes
    """
    blocks, total = [], 0
    while True:
        block = stream.read(min(1 << 22, limit - total + 1))
        if not block:
            return b"".join(blocks)
        total += len(block)
        if total > limit:
            raise error(f"{source}: inflates to more than {_mib(limit)}, the budget for its "
                        "compressed size (a gzip bomb, or a damaged file); kerasish.core.limits "
                        "sets the budget")
        blocks.append(block)


def read_member(archive: zipfile.ZipFile, name: str, source: str, error,
                limit: int | None = None) -> bytes:
    """The inflated bytes of zip member `name`, refused (as `error`) beyond a budget.

    The budget is `limit`, or the larger of `INFLATE_FLOOR` and `INFLATE_RATIO` times the
    member's compressed size. The declared size is compared with it before inflating,
    and zipfile inflates it in blocks up to that size only (a header declaring less than
    the data fails its CRC check), so a header that lies cannot get past the budget.

    Example:
        >>> import io, zipfile
        >>> buffer = io.BytesIO()
        >>> with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        ...     archive.writestr("big", bytes(10_000))
        >>> try:
        ...     read_member(zipfile.ZipFile(buffer), "big", "a.zip", ValueError, limit=1000)
        ... except ValueError as error:
        ...     print(str(error)[:60])
        a.zip: member 'big' declares 10,000 bytes (0.0 MiB) when inf
    """
    info = archive.getinfo(name)
    if limit is None:
        limit = inflate_budget(info.compress_size)
    if info.file_size > limit:
        raise error(
            f"{source}: member {name!r} declares {_mib(info.file_size)} when inflated, more "
            f"than the {_mib(limit)} allowed for a member of {_mib(info.compress_size)} "
            "compressed (a zip bomb, or a damaged archive); kerasish.core.limits sets the budget"
        )
    return archive.read(info)


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_OPENERS = np.frombuffer(b"[{", np.uint8)
_CLOSERS = np.frombuffer(b"]}", np.uint8)


def json_depth(text: bytes) -> int:
    """How deeply the arrays and objects of a JSON text nest (strings are skipped).

    Example:
        >>> json_depth(b'{"a": [[1], "]]]"]}')
        3
    """
    codes = np.frombuffer(_STRING.sub(b"", text), np.uint8)
    steps = np.isin(codes, _OPENERS).astype(np.int32) - np.isin(codes, _CLOSERS)
    return int(np.cumsum(steps).max(initial=0))


def load_json(text, source: str, error, what: str = "the JSON text"):
    """`json.loads(text)`, refused (as `error`) beyond `JSON_BYTES` or `JSON_DEPTH`.

    Example:
        >>> load_json(b'{"a": [1, 2]}', "config.json", ValueError)
        {'a': [1, 2]}
    """
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    if len(data) > JSON_BYTES:
        raise error(f"{source}: {what} holds more than the {_mib(JSON_BYTES)} allowed; "
                    "kerasish.core.limits.JSON_BYTES sets the budget")
    depth = json_depth(data)
    if depth > JSON_DEPTH:
        raise error(f"{source}: {what} nests {depth} levels deep, more than the {JSON_DEPTH} "
                    "allowed; kerasish.core.limits.JSON_DEPTH sets the budget")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{source}: {what} is not valid JSON ({exc})") from exc


def check_array(shape, dtype, source: str, error, limit: int | None = None) -> int:
    """The bytes an array of `shape` and `dtype` needs; refused (as `error`) beyond `limit`
    (default `ARRAY_BYTES`), before anything is allocated.

    Example:
        >>> check_array((1000, 1000), "float32", "x", ValueError)
        4000000
    """
    limit = ARRAY_BYTES if limit is None else limit
    nbytes = math.prod(int(d) for d in shape) * np.dtype(dtype).itemsize
    if nbytes > limit:
        raise error(f"{source}: declares an array of shape {tuple(shape)} and dtype "
                    f"{np.dtype(dtype)}, {_mib(nbytes)}, more than the {_mib(limit)} allowed")
    return nbytes


class _WeightBudget(threading.local):
    """The values layers may still create while a file's model is built (None: no limit)."""

    active = None


_weight_budget = _WeightBudget()


@contextlib.contextmanager
def weight_budget(values: int, source: str, error):
    """Within the block, layers may create at most `values` weight values in all; a weight
    that would go past is refused (as `error`, naming `source`) before it is allocated.

    Args:
        values: how many values the block's weights may hold in all.
        source: the file, for the message.
        error: the exception class to raise.

    Example:
        >>> from kerasish.core import limits
        >>> with limits.weight_budget(10, "m.keras", ValueError):
        ...     limits.charge_weight((2, 3), "layer 'dense'")
        ...     limits.charge_weight((5,), "layer 'dense_1'")
        Traceback (most recent call last):
        ValueError: m.keras: layer 'dense_1' declares a weight of shape (5,) (5 values), past \
the 10 values the file's weights and the slack allow
    """
    previous = _weight_budget.active
    _weight_budget.active = [int(values), int(values), source, error]
    try:
        yield
    finally:
        _weight_budget.active = previous


def charge_weight(shape, where: str) -> None:
    """Count a weight about to be created against the active `weight_budget`, if any.

    Args:
        shape: the weight's shape.
        where: who creates it, for the message (e.g. "layer 'dense'").

    Example:
        >>> from kerasish.core import limits
        >>> limits.charge_weight((10 ** 12,), "layer 'huge'")  # no budget active: allowed
    """
    active = _weight_budget.active
    if active is None:
        return
    values = math.prod(int(d) for d in shape)
    active[0] -= values
    if active[0] < 0:
        raise active[3](f"{active[2]}: {where} declares a weight of shape {tuple(shape)} "
                        f"({values:,} values), past the {active[1]:,} values the file's weights "
                        "and the slack allow")
