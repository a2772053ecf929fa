"""`ks.strings`: `tf.strings` for arrays of strings, for text preprocessing in eager code.

The functions take a Python string, a list, a NumPy array or a string tensor, work element
by element as TensorFlow's do (ASCII-only case changes by default, RE2-style `\\1`
back-references, byte positions for `length`/`substr` unless `unit="UTF8_CHAR"`), and
return string (or number) tensors. So a `standardize` function written for
TextVectorization with `tf.strings.lower` and `tf.strings.regex_replace` works with
`ks.strings` in their place.

TensorFlow's ragged results (`split`, `unicode_split` of a batch) come back as a
`RaggedStrings`: a list of 1-D string tensors, one per row, with `to_list()` and
`to_tensor()` as on `tf.RaggedTensor`. Strings are not differentiable: nothing here has
a gradient (as in TensorFlow).
"""

from __future__ import annotations

import re

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_WHITESPACE = " \t\n\r\f\v"
_UNITS = ("BYTE", "UTF8_CHAR")
# RE2's POSIX classes (inside brackets), which Python's re lacks, as the characters they name
_POSIX_CLASSES = {
    "[:punct:]": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9", "[:alnum:]": "a-zA-Z0-9", "[:space:]": " \\t\\n\\r\\f\\v",
    "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:blank:]": " \\t", "[:xdigit:]": "0-9A-Fa-f",
    "[:word:]": "0-9A-Za-z_",
}


def _texts(values, what: str) -> np.ndarray:
    """`values` as a NumPy array of `str` (bytes decoded as UTF-8)."""
    if isinstance(values, Tensor):
        values = values.numpy()
    array = np.asarray(values, dtype=object if isinstance(values, (list, tuple)) else None)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    elif array.dtype.kind == "O":
        flat = [v.decode("utf-8") if isinstance(v, bytes) else v for v in array.ravel().tolist()]
        if not all(isinstance(v, str) for v in flat):
            raise InvalidArgumentError(f"strings.{what}: takes strings, got {values!r}")
        array = np.array(flat, dtype=str).reshape(array.shape)
    if array.dtype.kind != "U":
        raise InvalidArgumentError(
            f"strings.{what}: takes strings, got values of dtype {array.dtype}")
    return array


def _strings_tensor(flat: list, shape: tuple) -> Tensor:
    return convert_to_tensor(np.array(flat, dtype=str).reshape(shape))


def _each(values, what: str, function) -> Tensor:
    texts = _texts(values, what)
    return _strings_tensor([function(t) for t in texts.ravel().tolist()], texts.shape)


class RaggedStrings(list):
    """Rows of strings of different lengths: what `tf.strings.split` gives as a RaggedTensor.

    A list of 1-D string tensors, one per row of the input.

    Args:
        rows: the rows, each a sequence of strings.

    Example:
        >>> import kerasish as ks
        >>> rows = ks.strings.split(["a b", "c"])
        >>> rows.to_list()
        [['a', 'b'], ['c']]
        >>> rows.to_tensor().numpy().tolist()
        [['a', 'b'], ['c', '']]
    """

    def __init__(self, rows=()):
        super().__init__(convert_to_tensor(np.array(list(row), dtype=str).reshape(-1))
                         for row in rows)

    def to_list(self) -> list:
        """The rows as lists of Python strings."""
        return [row.numpy().tolist() for row in self]

    def to_tensor(self, default_value="", name=None, shape=None) -> Tensor:
        """A dense tensor (rows, longest row), the short rows padded with `default_value`.

        Args:
            default_value: the padding.
            name: unused (TensorFlow's).
            shape: None, or a (rows, columns) shape to pad or cut to.

        Example:
            >>> import kerasish as ks
            >>> ks.strings.split(["a b c", "d"]).to_tensor("-", shape=[2, 2]).numpy().tolist()
            [['a', 'b'], ['d', '-']]
        """
        rows = self.to_list()
        width = max((len(row) for row in rows), default=0)
        count = len(rows)
        if shape is not None:
            count = count if shape[0] in (None, -1) else int(shape[0])
            width = width if shape[1] in (None, -1) else int(shape[1])
        table = np.full((count, width), default_value, dtype=object)
        for index, row in enumerate(rows[:count]):
            row = row[:width]
            table[index, :len(row)] = row
        return convert_to_tensor(table.astype(str) if table.size else
                                 np.zeros((count, width), dtype=str))


def lower(input, encoding="", name=None):  # noqa: A002 - TensorFlow's argument name
    """Lower-case each string: ASCII letters only, or all letters with encoding="utf-8".

    Args:
        input: strings (a string, list, array or string tensor).
        encoding: "" (ASCII letters only, TensorFlow's default) or "utf-8".
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the same shape.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.lower(["Hello World", "ÉTÉ"]).numpy().tolist()
        ['hello world', 'ÉtÉ']
        >>> ks.strings.lower("ÉTÉ", encoding="utf-8").numpy().item()
        'été'
    """
    return _each(input, "lower", str.lower if _encoding(encoding, "lower") else
                 (lambda t: t.translate(_ASCII_LOWER)))


def upper(input, encoding="", name=None):  # noqa: A002 - TensorFlow's argument name
    """Upper-case each string: ASCII letters only, or all letters with encoding="utf-8".

    Args:
        input: strings.
        encoding: "" (ASCII letters only) or "utf-8".
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the same shape.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.upper(["abc", "été"]).numpy().tolist()
        ['ABC', 'éTé']
    """
    return _each(input, "upper", str.upper if _encoding(encoding, "upper") else
                 (lambda t: t.translate(_ASCII_UPPER)))


def _encoding(encoding, what: str) -> bool:
    """Whether `encoding` asks for Unicode case rules ("" is ASCII only)."""
    if encoding in ("", None):
        return False
    if str(encoding).lower().replace("-", "") in ("utf8",):
        return True
    raise InvalidArgumentError(f'strings.{what}: encoding must be "" or "utf-8", got '
                               f"{encoding!r}")


def _pattern(pattern, what: str):
    if isinstance(pattern, Tensor):
        pattern = pattern.numpy().item()
    if isinstance(pattern, bytes):
        pattern = pattern.decode("utf-8")
    for posix, characters in _POSIX_CLASSES.items():
        pattern = pattern.replace(posix, characters)
    try:
        return re.compile(pattern, re.ASCII)  # RE2's \w, \d, \s and \b are ASCII-only
    except re.error as exc:
        raise InvalidArgumentError(f"strings.{what}: invalid regular expression {pattern!r}: "
                                   f"{exc}") from exc


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replace the matches of a regular expression in each string.

    `rewrite` may name groups as RE2 does: `\\0` is the whole match, `\\1` the first group.

    Args:
        input: strings.
        pattern: the regular expression, in the syntax RE2 and Python's `re` share
            (classes, groups, `\\w`/`\\d`/`\\s` ASCII-only as in RE2, and RE2's POSIX
            classes such as `[[:punct:]]`).
        rewrite: the replacement.
        replace_global: replace every match (True) or only the first.
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the same shape.

    Raises:
        InvalidArgumentError: for an invalid pattern.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.regex_replace(["a<br />b", "c!"], "<br />|!", " ").numpy().tolist()
        ['a b', 'c ']
        >>> ks.strings.regex_replace("ab", "(a)(b)", r"\\2\\1\\0").numpy().item()
        'baab'
    """
    compiled = _pattern(pattern, "regex_replace")
    if isinstance(rewrite, bytes):
        rewrite = rewrite.decode("utf-8")
    template = re.sub(r"\\(\d)", r"\\g<\1>", str(rewrite))
    count = 0 if replace_global else 1
    return _each(input, "regex_replace", lambda t: compiled.sub(template, t, count=count))


def regex_full_match(input, pattern, name=None):  # noqa: A002 - TensorFlow's argument name
    """Whether each whole string matches a regular expression.

    Args:
        input: strings.
        pattern: the regular expression.
        name: unused (TensorFlow's).

    Returns:
        A bool tensor of the same shape.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.regex_full_match(["ab12", "ab"], "[a-z]+[0-9]+").numpy().tolist()
        [True, False]
    """
    compiled = _pattern(pattern, "regex_full_match")
    texts = _texts(input, "regex_full_match")
    flat = [compiled.fullmatch(t) is not None for t in texts.ravel().tolist()]
    return convert_to_tensor(np.array(flat, dtype=bool).reshape(texts.shape))


def _split_one(text: str, sep, maxsplit: int) -> list:
    if sep is None:  # runs of ASCII whitespace, no empty pieces
        pieces = text.split(None, maxsplit) if maxsplit >= 0 else text.split()
        return [piece for piece in pieces if piece]
    return text.split(sep, maxsplit)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TensorFlow's argument name
    """Split each string at `sep` (default: at runs of whitespace, dropping empty pieces).

    Args:
        input: a string (gives a 1-D tensor of its pieces) or strings of rank 1 (give a
            `RaggedStrings`, one row of pieces per string, like TensorFlow's RaggedTensor).
        sep: the separator (None: whitespace).
        maxsplit: at most this many splits per string (-1: no limit).
        name: unused (TensorFlow's).

    Returns:
        A 1-D string tensor, or a `RaggedStrings`.

    Raises:
        InvalidArgumentError: for an empty `sep` or an input of rank above 1.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.split("the  cat").numpy().tolist()
        ['the', 'cat']
        >>> ks.strings.split(["a,b", "c"], sep=",").to_list()
        [['a', 'b'], ['c']]
    """
    if sep is not None:
        sep = sep.decode("utf-8") if isinstance(sep, bytes) else str(sep)
        if not sep:
            raise InvalidArgumentError("strings.split: sep must not be empty (None splits at "
                                       "whitespace)")
    texts = _texts(input, "split")
    if texts.ndim == 0:
        return _strings_tensor(_split_one(texts.item(), sep, int(maxsplit)), (-1,))
    if texts.ndim > 1:
        raise InvalidArgumentError(f"strings.split: takes a string or strings of rank 1, got "
                                   f"shape {texts.shape}")
    return RaggedStrings(_split_one(t, sep, int(maxsplit)) for t in texts.tolist())


def join(inputs, separator="", name=None):
    """Join strings element by element: `inputs[0][i] + separator + inputs[1][i] + ...`.

    Args:
        inputs: a list of strings or string arrays of one (broadcastable) shape.
        separator: put between the pieces.
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the broadcast shape.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.join([["a", "b"], ["x", "y"]], separator="-").numpy().tolist()
        ['a-x', 'b-y']
    """
    if isinstance(inputs, (str, bytes)):
        raise InvalidArgumentError("strings.join: takes a list of strings or string arrays "
                                   "to join element by element, got one string")
    parts = np.broadcast_arrays(*[_texts(part, "join") for part in inputs])
    if not parts:
        return _strings_tensor([""], ())
    flat = [separator.join(pieces) for pieces in zip(*(p.ravel().tolist() for p in parts))]
    return _strings_tensor(flat, parts[0].shape)


def strip(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Remove leading and trailing whitespace from each string.

    Args:
        input: strings.
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the same shape.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.strip(["  a b\\n"]).numpy().tolist()
        ['a b']
    """
    return _each(input, "strip", lambda t: t.strip(_WHITESPACE))


def _unit(unit, what: str) -> str:
    if unit not in _UNITS:
        raise InvalidArgumentError(f"strings.{what}: unit must be 'BYTE' or 'UTF8_CHAR', got "
                                   f"{unit!r}")
    return unit


def length(input, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's argument name
    """The length of each string, in UTF-8 bytes (TensorFlow's default) or characters.

    Args:
        input: strings.
        unit: "BYTE" or "UTF8_CHAR".
        name: unused (TensorFlow's).

    Returns:
        An int32 tensor of the same shape.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.length(["abc", "été"]).numpy().tolist()
        [3, 5]
        >>> ks.strings.length("été", unit="UTF8_CHAR").numpy().item()
        3
    """
    bytes_ = _unit(unit, "length") == "BYTE"
    texts = _texts(input, "length")
    flat = [len(t.encode("utf-8")) if bytes_ else len(t) for t in texts.ravel().tolist()]
    return convert_to_tensor(np.array(flat, dtype=np.int32).reshape(texts.shape))


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's names
    """The piece of each string that starts at `pos` and has `len` units (bytes or characters).

    A negative `pos` counts from the end; a piece running past the end is cut short.

    Args:
        input: strings.
        pos: the start (an int, or ints broadcastable to `input`).
        len: the length (an int, or ints broadcastable to `input`).
        unit: "BYTE" (positions in UTF-8 bytes) or "UTF8_CHAR".
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the broadcast shape.

    Raises:
        InvalidArgumentError: for a `pos` outside a string or a negative `len`.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.substr(["hello", "world"], pos=1, len=3).numpy().tolist()
        ['ell', 'orl']
        >>> ks.strings.substr("hello", pos=-2, len=5).numpy().item()
        'lo'
    """
    as_bytes = _unit(unit, "substr") == "BYTE"
    texts = _texts(input, "substr")
    starts = np.asarray(pos.numpy() if isinstance(pos, Tensor) else pos)
    counts = np.asarray(len.numpy() if isinstance(len, Tensor) else len)
    texts, starts, counts = np.broadcast_arrays(texts, starts, counts)
    flat = []
    for text, start, count in zip(texts.ravel().tolist(), starts.ravel().tolist(),
                                  counts.ravel().tolist()):
        data = text.encode("utf-8") if as_bytes else text
        size = data.__len__()
        if not -size <= start <= size:
            raise InvalidArgumentError(f"strings.substr: pos {start} is out of range for "
                                       f"{text!r} ({size} {'bytes' if as_bytes else 'chars'})")
        if count < 0:
            raise InvalidArgumentError(f"strings.substr: len must not be negative, got {count}")
        start = start + size if start < 0 else start
        piece = data[start:start + count]
        flat.append(piece.decode("utf-8", errors="replace") if as_bytes else piece)
    return _strings_tensor(flat, texts.shape)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Join the strings along an axis (all of them with axis=None) with `separator`.

    Args:
        inputs: strings.
        axis: the axis (or axes) to join along; None joins everything into one string.
        keepdims: keep the joined axes with size 1.
        separator: put between the pieces.
        name: unused (TensorFlow's).

    Returns:
        A string tensor.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1).numpy().tolist()
        ['ab', 'cd']
        >>> ks.strings.reduce_join([["a", "b"], ["c", "d"]], separator=" ").numpy().item()
        'a b c d'
    """
    texts = _texts(inputs, "reduce_join")
    if axis is None:
        axes = list(range(texts.ndim))
    else:
        given = [axis] if np.ndim(axis) == 0 else list(axis)
        for a in given:
            if not -texts.ndim <= int(a) < texts.ndim:
                raise InvalidArgumentError(f"strings.reduce_join: axis {a} is out of range "
                                           f"for strings of rank {texts.ndim}")
        axes = sorted({int(a) % texts.ndim for a in given})
    kept = [a for a in range(texts.ndim) if a not in axes]
    moved = np.transpose(texts, kept + list(axes))
    rows = moved.reshape(moved.shape[:len(kept)] + (-1,))
    flat = [separator.join(row) for row in rows.reshape(-1, rows.shape[-1]).tolist()]
    shape = tuple(texts.shape[a] if a in kept else 1 for a in range(texts.ndim)) if keepdims \
        else tuple(texts.shape[a] for a in kept)
    return _strings_tensor(flat, shape)


def to_number(string_tensor, out_type="float32", name=None):
    """Parse each string as a number.

    Args:
        string_tensor: strings such as "3", "-1.5e3", "inf".
        out_type: the dtype: float32 (default), float64, int32 or int64.
        name: unused (TensorFlow's).

    Returns:
        A tensor of `out_type` with the input's shape.

    Raises:
        InvalidArgumentError: naming a string that is not a number of that type.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.to_number(["1.5", "-2"]).numpy().tolist()
        [1.5, -2.0]
        >>> ks.strings.to_number("42", out_type="int64").numpy().item()
        42
    """
    dtype = as_dtype(out_type)
    texts = _texts(string_tensor, "to_number")
    parse = int if dtype.kind in "iu" else float
    values = []
    for text in texts.ravel().tolist():
        try:
            values.append(parse(text.strip(_WHITESPACE)))
        except ValueError:
            raise InvalidArgumentError(
                f"strings.to_number: StringToNumberOp could not correctly convert string: "
                f"{text!r} (to {dtype})") from None
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        outside = [v for v in values if not info.min <= v <= info.max]
        if outside:
            raise InvalidArgumentError(f"strings.to_number: {outside[0]} does not fit in "
                                       f"{dtype}")
    array = np.array(values, dtype=dtype).reshape(texts.shape)
    return convert_to_tensor(array)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """Format each number as a string, as TensorFlow does (printf's %f, %e, %g and %d).

    Args:
        input: numbers or bools (a tensor, an array, a list or one value).
        precision: digits after the point for floats (-1: printf's default of 6).
        scientific: exponent notation (%e).
        shortest: the shorter of %f and %e (%g).
        width: pad to at least this many characters (-1: no padding).
        fill: the padding character: "" (spaces) or "0" (zeros). "-" pads on the right.
        name: unused (TensorFlow's).

    Returns:
        A string tensor of the same shape.

    Raises:
        InvalidArgumentError: for `scientific` and `shortest` together, or another `fill`.

    Example:
        >>> import kerasish as ks
        >>> ks.strings.as_string([1.5, 2.0]).numpy().tolist()
        ['1.500000', '2.000000']
        >>> ks.strings.as_string([3, 42], width=4, fill="0").numpy().tolist()
        ['0003', '0042']
    """
    if scientific and shortest:
        raise InvalidArgumentError("strings.as_string: give scientific or shortest, not both")
    if fill not in ("", " ", "0", "-"):
        raise InvalidArgumentError(f"strings.as_string: fill must be '', ' ', '0' or '-', got "
                                   f"{fill!r}")
    values = np.asarray(input.numpy() if isinstance(input, Tensor) else input)
    flags = "" if fill in ("", " ") else fill
    size = str(width) if width > -1 else ""
    if values.dtype.kind == "b":
        flat = [("true" if v else "false").rjust(max(width, 0)) for v in values.ravel().tolist()]
    elif values.dtype.kind in "iu":
        if precision > -1 or scientific or shortest:
            raise InvalidArgumentError("strings.as_string: precision, scientific and shortest "
                                       "apply to floats only")
        flat = [f"%{flags}{size}d" % v for v in values.ravel().tolist()]
    elif values.dtype.kind == "f":
        code = "e" if scientific else "g" if shortest else "f"
        digits = f".{precision}" if precision > -1 else ""
        flat = [f"%{flags}{size}{digits}{code}" % v for v in values.ravel().tolist()]
    elif values.dtype.kind in "US":
        flat = [str(v) for v in _texts(values, "as_string").ravel().tolist()]
    else:
        raise InvalidArgumentError(f"strings.as_string: takes numbers or bools, got dtype "
                                   f"{values.dtype}")
    return _strings_tensor(flat, values.shape)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,
                  name=None):  # noqa: A002 - TensorFlow's argument name
    """Split each string into its characters.

    Args:
        input: a string (gives a 1-D tensor of characters) or strings of rank 1 (give a
            `RaggedStrings`, one row per string).
        input_encoding: the strings' encoding: "UTF-8" (what kerasish's strings are).
        errors: for bytes that are not UTF-8: "replace" (by `replacement_char`), "ignore"
            or "strict" (raise).
        replacement_char: the code point put in place of invalid bytes.
        name: unused (TensorFlow's).

    Returns:
        A 1-D string tensor, or a `RaggedStrings`.

    Raises:
        InvalidArgumentError: for another encoding or `errors` value, or invalid UTF-8 with
            errors="strict".

    Example:
        >>> import kerasish as ks
        >>> ks.strings.unicode_split("été", "UTF-8").numpy().tolist()
        ['é', 't', 'é']
    """
    if str(input_encoding).upper().replace("-", "") != "UTF8":
        raise InvalidArgumentError(f"strings.unicode_split: kerasish's strings are UTF-8; "
                                   f"input_encoding={input_encoding!r} is not supported")
    if errors not in ("replace", "ignore", "strict"):
        raise InvalidArgumentError(f"strings.unicode_split: errors must be 'replace', 'ignore' "
                                   f"or 'strict', got {errors!r}")
    values = np.asarray(input.numpy() if isinstance(input, Tensor) else input)
    if values.dtype.kind in "SO":
        def decode(raw):
            if isinstance(raw, str):
                return raw
            try:
                return raw.decode("utf-8", errors="strict" if errors == "strict" else errors)
            except UnicodeDecodeError as exc:
                raise InvalidArgumentError(f"strings.unicode_split: invalid UTF-8 in {raw!r}: "
                                           f"{exc}") from exc
        flat = [decode(v) for v in values.ravel().tolist()]
        if errors == "replace":
            flat = [t.replace("\ufffd", chr(replacement_char)) for t in flat]
        texts = np.array(flat, dtype=str).reshape(values.shape)
    else:
        texts = _texts(values, "unicode_split")
    if texts.ndim == 0:
        return _strings_tensor(list(texts.item()), (-1,))
    if texts.ndim > 1:
        raise InvalidArgumentError(f"strings.unicode_split: takes a string or strings of rank "
                                   f"1, got shape {texts.shape}")
    return RaggedStrings(list(t) for t in texts.tolist())
