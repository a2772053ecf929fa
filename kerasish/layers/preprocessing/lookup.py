"""Vocabulary lookup layers: StringLookup and IntegerLookup (Keras 3 arguments and indices).

A vocabulary maps tokens to integer indices. With the defaults, index 0 is the
out-of-vocabulary (OOV) index and the tokens follow; a `mask_token` takes index 0
and moves the rest up by one. `adapt(data)` learns a vocabulary ordered by
frequency, ties broken by the token, highest first (as Keras sorts). Lookups run
on the host: strings are NumPy arrays of `str` (Tensors are numeric), so
`StringLookup` takes Python lists or NumPy arrays of strings (or tensors holding
them) and returns integer tensors; with `invert=True` it returns a tensor of
strings, which stays on the host.
"""

from __future__ import annotations

import collections
import os
import zlib

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError, KerasishError
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.ops.indexing_ops import integer_ids
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.layers import build_probe
from kerasish.layers.base import Layer

OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
_KERAS_MODE_ALIASES = {"binary": "multi_hot", "tf-idf": "tf_idf"}


def host_values(inputs, encoding: str = "utf-8") -> np.ndarray:
    """`inputs` (a string, list, NumPy array or tensor) as a NumPy array on the host;
    bytes are decoded with `encoding` so strings compare as `str`."""
    if isinstance(inputs, Tensor):
        inputs = backend.to_numpy(inputs._value)
    values = np.asarray(inputs)
    if values.dtype.kind == "S":
        values = np.char.decode(values, encoding)
    elif values.dtype.kind == "O":
        values = np.array([v.decode(encoding) if isinstance(v, bytes) else v
                           for v in values.ravel().tolist()]).reshape(values.shape)
    return values


def documents_of(values: np.ndarray) -> list:
    """A batch of tokens as documents (lists of tokens): one per row, as Keras counts them."""
    if values.ndim == 0:
        return [[values.item()]]
    if values.ndim == 1:
        return [values.tolist()]
    return values.reshape(values.shape[0], -1).tolist()


class IndexLookup(Layer):
    """The shared machinery of StringLookup and IntegerLookup (see those for the arguments).

    Subclasses convert inputs with `_tokens_of` and choose OOV indices with `_oov_buckets`.
    """

    _token_type = str  # what a line of a vocabulary file holds
    _token_dtype = np.dtype(str)  # the dtype of inverted outputs

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token=None, vocabulary=None, idf_weights=None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False, sparse: bool = False,
                 oov_method: str = "floormod", salt=None, **kwargs):
        kwargs.pop("vocabulary_size", None)  # Keras's record of an adapted size: the
        # vocabulary (in the config here) decides it
        super().__init__(**kwargs)
        kind = type(self).__name__
        output_mode = _KERAS_MODE_ALIASES.get(output_mode, output_mode)
        if output_mode not in OUTPUT_MODES:
            raise InvalidArgumentError(
                f"{kind}: output_mode must be one of {OUTPUT_MODES}, got {output_mode!r}"
            )
        if max_tokens is not None and max_tokens <= 1:
            raise InvalidArgumentError(f"{kind}: max_tokens must be greater than 1, got "
                                       f"{max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise InvalidArgumentError(f"{kind}: pad_to_max_tokens=True needs max_tokens")
        if num_oov_indices < 0:
            raise InvalidArgumentError(f"{kind}: num_oov_indices must be >= 0, got "
                                       f"{num_oov_indices}")
        if invert and output_mode != "int":
            raise InvalidArgumentError(f"{kind}: invert=True needs output_mode='int', got "
                                       f"{output_mode!r}")
        if oov_method != "floormod" or salt is not None:
            raise InvalidArgumentError(
                f"{kind}: oov_method and salt are accepted with their defaults only "
                f"('floormod', None); got {oov_method!r}, {salt!r}"
            )
        if sparse:
            raise InvalidArgumentError(f"{kind}: sparse outputs are not supported (TF-only in "
                                       "Keras); use sparse=False")
        if idf_weights is not None and output_mode != "tf_idf":
            raise InvalidArgumentError(f"{kind}: idf_weights are used only with "
                                       f"output_mode='tf_idf', got {output_mode!r}")
        self.max_tokens = max_tokens
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.invert = bool(invert)
        self.output_mode = output_mode
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self._tokens = None  # the vocabulary without special tokens; None before adapt
        self._index: dict = {}
        self._token_idf = None  # tf_idf weights of the tokens
        self._idf = None  # tf_idf weights of every output index
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif output_mode == "tf_idf" and idf_weights is not None:
            raise InvalidArgumentError(f"{kind}: idf_weights need a vocabulary")

    # -- indices of the special tokens ----------------------------------------
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def _tokens_of(self, inputs) -> np.ndarray:
        """Inputs as a host array of tokens of this layer's kind."""
        raise NotImplementedError

    def _special(self) -> list:
        return ([self.mask_token] * self._oov_start_index()
                + [self.oov_token] * self.num_oov_indices)

    # -- the vocabulary ---------------------------------------------------------
    def vocabulary_size(self) -> int:
        """The number of indices: special tokens plus the vocabulary."""
        return self._token_start_index() + len(self._tokens or ())

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens in index order (with the mask and OOV tokens first, by default).

        Args:
            include_special_tokens: include the mask and OOV tokens.

        Returns:
            The list of tokens.

        Example:
            >>> import kerasish as ks
            >>> lookup = ks.layers.StringLookup(vocabulary=["a", "b"])
            >>> lookup.get_vocabulary(), lookup.get_vocabulary(include_special_tokens=False)
            (['[UNK]', 'a', 'b'], ['a', 'b'])
        """
        tokens = list(self._tokens or ())
        return self._special() + tokens if include_special_tokens else tokens

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Use `vocabulary` (a list or 1-D array of tokens, optionally starting with the
        special tokens in index order) instead of one learned by `adapt`.

        Args:
            vocabulary: the tokens, in index order; no repeats.
            idf_weights: with output_mode='tf_idf', one weight per token.

        Raises:
            InvalidArgumentError: for a file path, an empty or repeated vocabulary, a mask
                or OOV token in the middle, more tokens than `max_tokens`, or idf_weights
                missing or of another length.

        Example:
            >>> import kerasish as ks
            >>> lookup = ks.layers.StringLookup()
            >>> lookup.set_vocabulary(["x", "y"])
            >>> lookup(["y", "z"]).numpy()  # 'z' is out of vocabulary: index 0
            array([2, 0])
        """
        kind = f"{type(self).__name__} '{self.name}'"
        if isinstance(vocabulary, str):
            raise InvalidArgumentError(
                f"{kind}: vocabulary files are not read (got the path {vocabulary!r}); pass "
                "the tokens, e.g. open(path).read().splitlines()"
            )
        tokens = self._tokens_of(vocabulary).ravel().tolist()
        if not tokens:
            raise InvalidArgumentError(f"{kind}: the vocabulary is empty")
        special = self._special()
        with_special = tokens[: len(special)] == special
        if with_special:
            tokens = tokens[len(special):]
        repeated = sorted(t for t, n in collections.Counter(tokens).items() if n > 1)
        if repeated:
            raise InvalidArgumentError(f"{kind}: the vocabulary repeats {repeated[:10]}")
        for what, token in (("mask", self.mask_token),
                            ("OOV", self.oov_token if self.invert else None)):
            if token is not None and token in tokens:
                raise InvalidArgumentError(
                    f"{kind}: the {what} token {token!r} is at index "
                    f"{tokens.index(token) + (len(special) if with_special else 0)} of the "
                    f"vocabulary; leave the special tokens out or put them first, in this "
                    f"order: {special}"
                )
        size = self._token_start_index() + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise InvalidArgumentError(
                f"{kind}: a vocabulary of {size} indices is larger than max_tokens="
                f"{self.max_tokens}"
            )
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise InvalidArgumentError(f"{kind}: output_mode='tf_idf' needs idf_weights "
                                           "with the vocabulary")
            weights = np.asarray(host_values(idf_weights), np.float64).ravel()
            expected = len(tokens) + (len(special) if with_special else 0)
            if weights.size != expected:
                raise InvalidArgumentError(
                    f"{kind}: {weights.size} idf_weights for a vocabulary of {expected} tokens"
                )
            if with_special:
                weights = weights[len(special):]
            self._set_tokens(tokens, weights)
        else:
            if idf_weights is not None:
                raise InvalidArgumentError(f"{kind}: idf_weights are used only with "
                                           "output_mode='tf_idf'")
            self._set_tokens(tokens, None)

    def _set_tokens(self, tokens: list, token_idf) -> None:
        self._tokens = list(tokens)
        start = self._token_start_index()
        self._index = {token: start + i for i, token in enumerate(self._tokens)}
        if token_idf is None:
            self._idf = None
            self._token_idf = None
            return
        self._token_idf = np.asarray(token_idf, np.float64)
        front = np.full(start, self._token_idf.mean() if self._token_idf.size else 0.0)
        idf = np.concatenate([front, self._token_idf])
        if self.pad_to_max_tokens:
            idf = np.pad(idf, (0, self.max_tokens - idf.size))
        self._idf = idf.astype(np.float32)

    def adapt(self, data, steps=None) -> None:
        """Learn the vocabulary from `data`: tokens by decreasing count, ties broken by the
        token (highest first), at most `max_tokens` indices in all.

        Args:
            data: a list or NumPy array of tokens (each element one document of one
                token for a 1-D array), a `ks.data.Dataset` of batches or any iterable of
                batches (a batch's rows are its documents, which tf_idf counts).
            steps: read at most this many batches of a dataset or iterable.

        Example:
            >>> import kerasish as ks
            >>> lookup = ks.layers.StringLookup()
            >>> lookup.adapt(["b", "a", "b", "c", "b", "a"])
            >>> lookup.get_vocabulary()
            ['[UNK]', 'b', 'a', 'c']
        """
        self._learn_vocabulary(self._documents(data, steps))

    def _learn_vocabulary(self, batches) -> None:
        """Set the vocabulary from `batches`, an iterable of lists of documents (each a
        list of tokens): `adapt` after the data has been split into documents."""
        counts: collections.Counter = collections.Counter()
        document_counts: collections.Counter = collections.Counter()
        documents_seen = 0
        for documents in batches:
            for document in documents:
                counts.update(document)
                if self.output_mode == "tf_idf":
                    document_counts.update(set(document))
            documents_seen += len(documents)
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        if self.max_tokens is not None:
            ranked = ranked[: max(self.max_tokens - self._token_start_index(), 0)]
        tokens = [token for token, _ in ranked]
        token_idf = None
        if self.output_mode == "tf_idf":
            df = np.array([document_counts[t] for t in tokens], np.float64)
            token_idf = np.log(1.0 + documents_seen / (1.0 + df))
        self._set_tokens(tokens, token_idf)

    def _documents(self, data, steps):
        """The documents (lists of tokens) of each batch of `data`."""
        if isinstance(data, (list, tuple, np.ndarray, Tensor)):
            values = self._tokens_of(data)
            if values.ndim == 1:  # as Keras: each element is its own document
                values = values.reshape(-1, 1)
            yield documents_of(values)
            return
        if not hasattr(data, "__iter__"):
            raise InvalidArgumentError(
                f"{type(self).__name__} '{self.name}': adapt takes a list, an array, a Dataset "
                f"or an iterable of batches, got {type(data).__name__}"
            )
        for i, batch in enumerate(data):
            if steps is not None and i >= steps:
                return
            yield documents_of(self._tokens_of(batch[0] if isinstance(batch, tuple) else batch))

    def load_assets(self, dir_path: str) -> None:
        """Read the vocabulary Keras 3 keeps in `vocabulary.txt` among a `.keras` file's
        assets (one token a line, the special tokens first), unless the config held one.

        `load_model` calls this hook; tf_idf weights are not read from Keras files.

        Args:
            dir_path: the folder holding `vocabulary.txt`.

        Raises:
            InvalidArgumentError: for a 'tf_idf' layer, whose weights Keras keeps elsewhere.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> folder = tempfile.mkdtemp()
            >>> with open(os.path.join(folder, "vocabulary.txt"), "w") as file:
            ...     _ = file.write("[UNK]\\nred\\nblue\\n")
            >>> lookup = ks.layers.StringLookup()
            >>> lookup.load_assets(folder)
            >>> lookup.get_vocabulary()
            ['[UNK]', 'red', 'blue']
        """
        if self._tokens is not None:
            return
        if self.output_mode == "tf_idf":
            raise InvalidArgumentError(
                "Keras keeps the idf weights of an adapted tf_idf layer among its weights, "
                "which kerasish does not read; adapt the layer again, or call "
                "set_vocabulary(vocabulary, idf_weights)"
            )
        with open(os.path.join(dir_path, "vocabulary.txt"), encoding="utf-8") as file:
            lines = file.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        self.set_vocabulary([self._token_type(line) for line in lines])

    # -- lookups ------------------------------------------------------------------
    def _check_ready(self) -> None:
        # a model's build probe runs before a vocabulary kept in a file's assets is read
        if self._tokens is None and not build_probe.active():
            raise InvalidArgumentError(
                "there is no vocabulary yet: call layer.adapt(data) first, or pass "
                "vocabulary= (or call set_vocabulary)"
            )

    def _oov_buckets(self, tokens: list) -> np.ndarray:
        """Which of the `num_oov_indices` OOV indices each token takes (0-based)."""
        raise NotImplementedError

    def _lookup(self, tokens: np.ndarray) -> np.ndarray:
        """int64 indices of `tokens`; -1 marks mask tokens that the output mode drops."""
        self._check_ready()
        flat = tokens.ravel().tolist()
        indices = np.array([self._index.get(t, -1) for t in flat], np.int64)
        masked = (np.array([t == self.mask_token for t in flat], bool)
                  if self.mask_token is not None else np.zeros(len(flat), bool))
        oov = (indices < 0) & ~masked
        if oov.any():
            if self.num_oov_indices == 0:
                unknown = [flat[i] for i in np.flatnonzero(oov)[:10]]
                raise InvalidArgumentError(
                    f"found tokens not in the vocabulary {unknown} with num_oov_indices=0; "
                    "set num_oov_indices=1 to map them to an OOV index"
                )
            oov_tokens = [flat[i] for i in np.flatnonzero(oov)]
            buckets = (self._oov_buckets(oov_tokens) if self.num_oov_indices > 1
                       else np.zeros(len(oov_tokens), np.int64))
            indices[oov] = self._oov_start_index() + buckets
        indices[masked] = 0 if self.output_mode == "int" else -1
        return indices.reshape(tokens.shape)

    def _depth(self) -> int:
        return self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()

    def _encode(self, indices: np.ndarray) -> np.ndarray:
        """float32 one_hot / multi_hot / count / tf_idf vectors of int64 `indices` (-1:
        nothing), as Keras encodes them: a 1-D input is one sample, a 2-D input a batch."""
        depth = self._depth()
        if self.output_mode == "one_hot":
            if indices.ndim > 1 and indices.shape[-1] == 1:
                indices = indices[..., 0]
            out = np.zeros(indices.shape + (depth,), np.float32)
            valid = indices >= 0
            out.reshape(-1, depth)[np.flatnonzero(valid), indices[valid]] = 1.0
            return out
        if indices.ndim == 0:
            indices = indices.reshape(1)
        if indices.ndim > 2:
            raise InvalidArgumentError(
                f"output_mode={self.output_mode!r} takes inputs of rank 1 (one sample) or 2 "
                f"(a batch), got shape {indices.shape}"
            )
        rows = indices.reshape(-1, indices.shape[-1]) if indices.size else indices.reshape(-1, 0)
        counts = np.zeros((rows.shape[0], depth), np.float32)
        row_ids, cols = np.nonzero(rows >= 0)
        np.add.at(counts, (row_ids, rows[row_ids, cols]), 1.0)
        if self.output_mode == "multi_hot":
            counts = np.minimum(counts, 1.0)
        elif self.output_mode == "tf_idf":
            counts = counts * self._idf
        return counts[0] if indices.ndim == 1 else counts

    def _invert(self, indices: np.ndarray) -> np.ndarray:
        """The tokens of int64 `indices` (the OOV token for indices without one)."""
        self._check_ready()
        vocabulary = self.get_vocabulary()
        flat = [vocabulary[i] if 0 <= i < len(vocabulary) else self.oov_token
                for i in indices.ravel().tolist()]
        return np.array(flat, dtype=self._token_dtype).reshape(indices.shape)

    def _integers(self, inputs, what: str) -> np.ndarray:
        """`inputs` as int64 on the host; floats holding whole numbers are cast, as Keras does."""
        ids = integer_ids(host_values(inputs), f"{type(self).__name__} '{self.name}'", what)
        return backend.to_numpy(ids._value).astype(np.int64)

    def call(self, inputs):
        if self.invert:
            return convert_to_tensor(self._invert(self._integers(inputs, "indices")))
        indices = self._lookup(self._tokens_of(inputs))
        if self.output_mode == "int":
            return convert_to_tensor(indices)
        return convert_to_tensor(self._encode(indices))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.StringLookup(vocabulary=["a", "b"], output_mode="one_hot")
            >>> layer.compute_output_shape((None, 1))
            (None, 3)
        """
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else (
            self.vocabulary_size() if self._tokens is not None else None)
        if self.output_mode == "one_hot":
            if len(input_shape) > 1 and input_shape[-1] == 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,)

    def get_config(self) -> dict:
        idf = self._token_idf if self.output_mode == "tf_idf" else None
        return {
            **super().get_config(),
            "invert": self.invert,
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": self.oov_token,
            "mask_token": self.mask_token,
            "output_mode": self.output_mode,
            "sparse": False,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary": None if self._tokens is None else list(self._tokens),
            "idf_weights": None if idf is None else idf.tolist(),
            "vocabulary_size": self.vocabulary_size() if self._tokens is not None else None,
            "oov_method": "floormod",
            "salt": None,
        }


class EagerStringLayer(Layer):
    """A layer whose inputs are strings on the host: called on them directly, without the
    conversion to (numeric) tensors, or on a `ks.Input(dtype="string")` to make a graph node."""

    @property
    def input_dtype(self) -> np.dtype:
        """What inputs are (Keras 3's name; a Sequential builds with it): strings, or int64
        indices for an inverting lookup."""
        return np.dtype(np.int64) if getattr(self, "invert", False) else np.dtype(str)

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, KerasTensor):  # ks.Input(shape, dtype="string"): a graph node
            text = self.input_dtype.kind == "U"
            if inputs.dtype.kind not in ("U" if text else "iu"):
                wanted = ("strings: give it a ks.Input with dtype='string'" if text
                          else "integer indices")
                raise InvalidArgumentError(
                    f"{type(self).__name__} '{self.name}' takes {wanted}, not {inputs.dtype}"
                )
            return super().__call__(inputs, *args, **kwargs)
        self.built = True
        try:
            return self.call(inputs)
        except KerasishError as exc:
            raise type(exc)(f"layer '{self.name}' ({type(self).__name__}): {exc}") from exc


    def compute_output_spec(self, inputs):
        """The symbolic output (Keras 3's name): int64 indices, float32 vectors in the counting
        modes, or strings when inverting.

        Args:
            inputs: a symbolic tensor of strings (or of indices when inverting).

        Returns:
            A symbolic tensor of the output's shape and dtype.

        Example:
            >>> import kerasish as ks
            >>> lookup = ks.layers.StringLookup(vocabulary=["a"])
            >>> lookup.compute_output_spec(ks.Input((3,), dtype="string"))
            <KerasTensor shape=(None, 3), dtype=int64, name=None>
        """
        if getattr(self, "invert", False):
            dtype = np.dtype(str)
        else:
            dtype = np.dtype(np.int64 if self.output_mode == "int" else np.float32)
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)


class StringLookup(EagerStringLayer, IndexLookup):
    """Map strings to integer indices from a vocabulary (or back, with `invert=True`).

    Inputs are Python strings, lists or NumPy arrays of strings (str or bytes), or a
    tensor holding such an array; outputs are int64 tensors (float32 for the
    one_hot / multi_hot / count / tf_idf modes, which Keras declares), or, when
    inverting, a tensor of strings (kept on the host). In a functional model, call it
    on `ks.Input(shape, dtype="string")` (on integer indices when inverting).

    Args:
        max_tokens: the most indices (special tokens included); None: no limit.
        num_oov_indices: indices for unknown tokens (several: spread by a CRC-32 hash
            of the UTF-8 bytes; TF uses FarmHash, so the buckets differ from Keras's).
        mask_token: a token that maps to 0 (and is dropped by the counting modes).
        oov_token: what inverting returns for an OOV index ('[UNK]').
        vocabulary: a list or array of tokens, instead of `adapt`.
        idf_weights: for output_mode='tf_idf' with a given vocabulary.
        invert: map indices to tokens.
        output_mode: 'int', 'one_hot', 'multi_hot', 'count' or 'tf_idf'.
        pad_to_max_tokens: count/hot outputs are `max_tokens` wide.
        sparse: only False (Keras's TF-only option).
        encoding: how bytes inputs are decoded ('utf-8').
        oov_method, salt: Keras's arguments, with their defaults only ('floormod', None).

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.StringLookup()
        >>> layer.adapt(["b", "a", "b", "c", "b", "a"])
        >>> layer.get_vocabulary()
        ['[UNK]', 'b', 'a', 'c']
        >>> layer([["a", "b", "zzz"]]).numpy()
        array([[2, 1, 0]])
    """

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token: str = "[UNK]", vocabulary=None, idf_weights=None,
                 invert: bool = False, output_mode: str = "int", pad_to_max_tokens: bool = False,
                 sparse: bool = False, encoding: str = "utf-8", oov_method: str = "floormod",
                 salt=None, **kwargs):
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         pad_to_max_tokens=pad_to_max_tokens, sparse=sparse,
                         oov_method=oov_method, salt=salt, **kwargs)

    def _tokens_of(self, inputs) -> np.ndarray:
        values = host_values(inputs, self.encoding)
        if values.size and values.dtype.kind != "U":
            raise InvalidArgumentError(
                f"StringLookup '{self.name}' takes strings, got values of dtype {values.dtype}"
            )
        return values

    def _oov_buckets(self, tokens: list) -> np.ndarray:
        return np.array([zlib.crc32(t.encode("utf-8")) % self.num_oov_indices for t in tokens],
                        np.int64)

    def get_config(self) -> dict:
        return {**super().get_config(), "encoding": self.encoding}


class IntegerLookup(IndexLookup):
    """Map integers to contiguous indices from a vocabulary (or back, with `invert=True`).

    Takes integer arrays or tensors, returns int64 tensors (float32 for the counting
    modes); as Keras, the OOV token is -1 and several OOV indices are chosen by
    `token mod num_oov_indices`.

    Args:
        max_tokens, num_oov_indices, mask_token: as in `StringLookup`.
        vocabulary, idf_weights, invert: as in `StringLookup`.
        output_mode, pad_to_max_tokens, sparse: as in `StringLookup`.
        oov_token: what inverting returns for an OOV index (-1).
        vocabulary_dtype: Keras's argument, with its default only ('int64').

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.IntegerLookup()
        >>> layer.adapt([12, 36, 12, 1138, 36, 12])
        >>> layer.get_vocabulary()
        [-1, 12, 36, 1138]
        >>> layer([12, 1138, 42]).numpy()
        array([1, 3, 0])
    """

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token: int = -1, vocabulary=None, vocabulary_dtype: str = "int64",
                 idf_weights=None, invert: bool = False, output_mode: str = "int",
                 sparse: bool = False, pad_to_max_tokens: bool = False,
                 oov_method: str = "floormod", salt=None, **kwargs):
        if vocabulary_dtype != "int64":
            raise InvalidArgumentError(
                "IntegerLookup: vocabulary_dtype is accepted with its default only ('int64'); "
                f"got {vocabulary_dtype!r}"
            )
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=None if mask_token is None else int(mask_token),
                         oov_token=None if oov_token is None else int(oov_token),
                         vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens,
                         sparse=sparse, oov_method=oov_method, salt=salt, **kwargs)

    _token_type = int
    _token_dtype = np.dtype(np.int64)

    def _tokens_of(self, inputs) -> np.ndarray:
        return self._integers(inputs, "inputs")

    def _oov_buckets(self, tokens: list) -> np.ndarray:
        return np.mod(np.array(tokens, np.int64), self.num_oov_indices)

    def get_config(self) -> dict:
        return {**super().get_config(), "vocabulary_dtype": "int64"}
