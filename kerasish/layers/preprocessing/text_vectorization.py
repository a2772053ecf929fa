"""TextVectorization: raw strings to token indices or count vectors (Keras 3 arguments).

The steps, as Keras runs them: standardize (lower-case ASCII letters and/or strip
ASCII punctuation, or your function), split (on ASCII whitespace, into characters,
or your function), form n-grams, then look the tokens up in a vocabulary whose
index 0 is padding ('') and index 1 out-of-vocabulary ('[UNK]'). Everything runs
on the host; the outputs are tensors.
"""

from __future__ import annotations

import re
import string

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.serialization import deserialize_keras_object
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.layers.preprocessing.lookup import (
    OUTPUT_MODES,
    EagerStringLayer,
    StringLookup,
    host_values,
)

STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
SPLIT = ("whitespace", "character")
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_WORD = re.compile(r"[^ \t\n\r\f\v]+")  # TF splits on ASCII whitespace


def ngrams_of(tokens: list, widths: tuple) -> list:
    """The n-grams of each width in turn, joined by spaces (tf.strings.ngrams's order)."""
    return [" ".join(tokens[i:i + n]) for n in widths for i in range(len(tokens) - n + 1)]


class TextVectorization(EagerStringLayer):
    """Turn strings into sequences of token indices ('int') or per-text vectors.

    Inputs are a string, a list or 1-D NumPy array of strings, or a (batch, 1) array;
    outputs are int64 tensors (batch, sequence) in 'int' mode, padded with 0 to
    `output_sequence_length` (or to the longest text), or float32 (batch, vocabulary)
    vectors in the 'multi_hot', 'count' and 'tf_idf' modes.

    Args:
        max_tokens: the most indices, padding and OOV included; None: no limit.
        standardize: 'lower_and_strip_punctuation' (default), 'lower',
            'strip_punctuation', None, or a function of a NumPy array of strings that
            returns one.
        split: 'whitespace' (default), 'character', None (each string is a token), or a
            function of a 1-D NumPy array of strings returning a list of token lists.
        ngrams: None, an integer n (1- to n-grams) or a tuple of widths.
        output_mode: 'int', 'multi_hot', 'count', 'one_hot' or 'tf_idf'.
        output_sequence_length: 'int' mode: pad or truncate every sequence to this length.
        pad_to_max_tokens: vector modes: vectors are `max_tokens` wide.
        vocabulary: a list of tokens instead of `adapt`.
        idf_weights: 'tf_idf' mode with a given vocabulary: one weight per token.
        sparse, ragged: only False (Keras's TF-only options).
        encoding: how bytes inputs are decoded ('utf-8').

    Raises:
        InvalidArgumentError: for unknown standardize/split/output_mode values,
            `output_sequence_length` outside 'int' mode, inputs of rank 2 whose last
            dimension is not 1, and a call before `adapt` or `vocabulary`.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["The cat sat.", "The dog!"])
        >>> layer.get_vocabulary()
        ['', '[UNK]', 'the', 'sat', 'dog', 'cat']
        >>> layer(["the cat ate", "dog"]).numpy()
        array([[2, 5, 1, 0],
               [4, 0, 0, 0]])
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode: str = "int",
                 output_sequence_length=None, pad_to_max_tokens: bool = False, vocabulary=None,
                 idf_weights=None, sparse: bool = False, ragged: bool = False,
                 encoding: str = "utf-8", **kwargs):
        kwargs.pop("vocabulary_size", None)  # Keras's record of the size; the vocabulary decides
        super().__init__(**kwargs)
        if not (standardize is None or callable(standardize) or standardize in STANDARDIZE):
            raise InvalidArgumentError(
                f"TextVectorization: standardize must be one of {STANDARDIZE}, None or a "
                f"function, got {standardize!r}"
            )
        if not (split is None or callable(split) or split in SPLIT):
            raise InvalidArgumentError(
                f"TextVectorization: split must be one of {SPLIT}, None or a function, got "
                f"{split!r}"
            )
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (ngrams is None or isinstance(ngrams, int)
                or (isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))):
            raise InvalidArgumentError(
                f"TextVectorization: ngrams must be None, an integer or a tuple of integers, "
                f"got {ngrams!r}"
            )
        if output_mode not in OUTPUT_MODES + ("binary", "tf-idf"):
            raise InvalidArgumentError(
                f"TextVectorization: output_mode must be one of {OUTPUT_MODES}, got "
                f"{output_mode!r}"
            )
        if output_sequence_length is not None and output_mode != "int":
            raise InvalidArgumentError(
                "TextVectorization: output_sequence_length is for output_mode='int' only, got "
                f"output_mode={output_mode!r}"
            )
        if ragged:
            raise InvalidArgumentError("TextVectorization: ragged outputs are not supported; "
                                       "use ragged=False (outputs are padded with 0)")
        self.standardize = standardize
        self.split = split
        self.ngrams = ngrams
        self._widths = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self.output_sequence_length = output_sequence_length
        self.encoding = encoding
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, mask_token="", output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens, vocabulary=vocabulary,
            idf_weights=idf_weights, sparse=sparse, encoding=encoding,
        )
        self.output_mode = self._lookup_layer.output_mode

    # -- the vocabulary ---------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learn the vocabulary of the tokens in `data` (by count, ties broken by the token,
        highest first, as Keras).

        Args:
            data: a string, a list or NumPy array of strings, a `ks.data.Dataset` of batches
                of strings (an (x, y) element uses x) or any iterable of such batches.
            batch_size: Keras's argument; unused, the data is read as given.
            steps: read at most this many batches of a dataset or iterable.

        Example:
            >>> import kerasish as ks
            >>> vectorize = ks.layers.TextVectorization()
            >>> vectorize.adapt(["the cat sat", "the dog"])
            >>> vectorize.get_vocabulary()
            ['', '[UNK]', 'the', 'sat', 'dog', 'cat']
        """
        del batch_size  # accepted for Keras's signature; batches are read as they come
        if isinstance(data, (str, bytes, list, tuple, np.ndarray, Tensor)):
            batches = [data]
        elif hasattr(data, "__iter__"):
            batches = data
        else:
            raise InvalidArgumentError(
                f"TextVectorization '{self.name}': adapt takes strings, a Dataset or an "
                f"iterable of batches of strings, got {type(data).__name__}"
            )

        def documents():
            for i, batch in enumerate(batches):
                if steps is not None and i >= steps:
                    return
                yield self._documents(batch[0] if isinstance(batch, tuple) else batch)[0]

        self._lookup_layer._learn_vocabulary(documents())

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens in index order ('' and '[UNK]' first, by default).

        Args:
            include_special_tokens: include the padding and OOV tokens.

        Returns:
            The list of tokens.

        Example:
            >>> import kerasish as ks
            >>> vectorize = ks.layers.TextVectorization(vocabulary=["hi", "there"])
            >>> vectorize.get_vocabulary(include_special_tokens=False)
            ['hi', 'there']
        """
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Use `vocabulary` (and, for 'tf_idf', `idf_weights`) instead of `adapt`.

        Args:
            vocabulary: the tokens, in index order (as for `StringLookup.set_vocabulary`).
            idf_weights: with output_mode='tf_idf', one weight per token.

        Raises:
            InvalidArgumentError: as `StringLookup.set_vocabulary` does.

        Example:
            >>> import kerasish as ks
            >>> vectorize = ks.layers.TextVectorization()
            >>> vectorize.set_vocabulary(["the", "dog"])
            >>> vectorize(["the dog barked"]).numpy()
            array([[2, 3, 1]])
        """
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def vocabulary_size(self) -> int:
        """The number of indices, padding and OOV included."""
        return self._lookup_layer.vocabulary_size()

    def load_assets(self, dir_path: str) -> None:
        """Read the vocabulary Keras 3 keeps among a `.keras` file's assets (see
        `StringLookup.load_assets`).

        Args:
            dir_path: the folder holding `vocabulary.txt` (the padding token first).

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> folder = tempfile.mkdtemp()
            >>> with open(os.path.join(folder, "vocabulary.txt"), "w") as file:
            ...     _ = file.write("\\n[UNK]\\nred\\nblue\\n")
            >>> vectorize = ks.layers.TextVectorization()
            >>> vectorize.load_assets(folder)
            >>> vectorize.get_vocabulary()
            ['', '[UNK]', 'red', 'blue']
        """
        self._lookup_layer.load_assets(dir_path)

    # -- the steps ------------------------------------------------------------------
    def _standardized(self, texts: np.ndarray) -> np.ndarray:
        if callable(self.standardize):
            return host_values(self.standardize(texts), self.encoding)
        if self.standardize is None:
            return texts
        table = {}
        if self.standardize != "strip_punctuation":
            table.update(_LOWER)
        if self.standardize != "lower":
            table.update(_NO_PUNCTUATION)
        flat = [text.translate(table) for text in texts.ravel().tolist()]
        return np.array(flat, dtype=str).reshape(texts.shape)

    def _documents(self, inputs) -> tuple:
        """(documents, shape): the token lists of the texts, and the shape of the texts
        (for split=None, the shape of the tokens themselves)."""
        texts = host_values(inputs, self.encoding)
        if texts.size and texts.dtype.kind != "U":
            raise InvalidArgumentError(f"takes strings, got values of dtype {texts.dtype}")
        texts = self._standardized(texts)
        if self.split is None:
            shape = texts.shape
            documents = [[t] for t in texts.ravel().tolist()]
        else:
            if texts.ndim > 1:
                if texts.shape[-1] != 1 or texts.ndim > 2:
                    raise InvalidArgumentError(
                        "splitting strings needs inputs of rank 1, or rank 2 with a last "
                        f"dimension of 1; got shape {texts.shape}"
                    )
                texts = texts[:, 0]
            shape = texts.shape
            if self.split == "whitespace":
                documents = [_WORD.findall(t) for t in texts.ravel().tolist()]
            elif self.split == "character":
                documents = [list(t) for t in texts.ravel().tolist()]
            else:
                documents = [list(doc) for doc in self.split(texts.reshape(-1))]
        if self._widths is not None:
            documents = [ngrams_of(doc, self._widths) for doc in documents]
        return documents, shape

    def call(self, inputs):
        documents, shape = self._documents(inputs)
        lookup = self._lookup_layer
        flat = np.array([t for doc in documents for t in doc], dtype=str)
        indices = lookup._lookup(flat)
        if self.split is None and self._widths is None:
            sequences = indices.reshape(shape)
            if self.output_mode != "int":
                return convert_to_tensor(lookup._encode(sequences))
            if self.output_sequence_length is not None:
                sequences = _fit_last_axis(sequences, self.output_sequence_length)
            return convert_to_tensor(sequences)
        lengths = [len(doc) for doc in documents]
        width = (self.output_sequence_length if self.output_sequence_length is not None
                 else max(lengths, default=0))
        fill = 0 if self.output_mode == "int" else -1  # -1: counted by no vector mode
        padded = np.full((len(documents), max(width, max(lengths, default=0))), fill, np.int64)
        starts = np.cumsum([0] + lengths)
        for row, (start, length) in enumerate(zip(starts, lengths)):
            padded[row, :length] = indices[start:start + length]
        if self.output_mode == "int":
            padded = padded[:, :width]
        else:
            padded = lookup._encode(padded)
        return convert_to_tensor(padded.reshape(shape + padded.shape[1:]))

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.TextVectorization(output_sequence_length=6).compute_output_shape((None,))
            (None, 6)
        """
        if self.output_mode == "int":
            return (input_shape[0], self.output_sequence_length)
        return (input_shape[0], self._lookup_layer.compute_output_shape((None, None))[-1])

    def get_config(self) -> dict:
        lookup = self._lookup_layer.get_config()
        return {
            **super().get_config(),
            "max_tokens": lookup["max_tokens"],
            "standardize": self.standardize,
            "split": self.split,
            "ngrams": self.ngrams,
            "output_mode": self.output_mode,
            "output_sequence_length": self.output_sequence_length,
            "pad_to_max_tokens": lookup["pad_to_max_tokens"],
            "sparse": False,
            "ragged": False,
            "vocabulary": lookup["vocabulary"],
            "idf_weights": lookup["idf_weights"],
            "encoding": self.encoding,
            "vocabulary_size": lookup["vocabulary_size"],
        }

    @classmethod
    def from_config(cls, config: dict):
        """A new layer from `get_config()`'s dict (standardize/split functions deserialized).

        Args:
            config: the dict `get_config` returned (or Keras 3's).

        Returns:
            A new, unadapted layer with those settings.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.TextVectorization(max_tokens=100, output_sequence_length=4)
            >>> again = ks.layers.TextVectorization.from_config(layer.get_config())
            >>> again.get_config()["output_sequence_length"]
            4
        """
        config = dict(config)
        for key in ("standardize", "split"):
            if isinstance(config.get(key), dict):
                config[key] = deserialize_keras_object(config[key])
        return cls(**config)


def _fit_last_axis(values: np.ndarray, length: int) -> np.ndarray:
    """`values` truncated or padded with 0 along the last axis to `length`."""
    values = values[..., :length]
    padding = [(0, 0)] * (values.ndim - 1) + [(0, length - values.shape[-1])]
    return np.pad(values, padding)
