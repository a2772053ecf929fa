"""Categorical preprocessing layers: CategoryEncoding, Hashing, HashedCrossing, Discretization.

They turn ids, strings or numbers into bin indices or into one_hot / multi_hot / count
vectors, with Keras 3's arguments, config keys and buckets: `Hashing` and
`HashedCrossing` hash as Keras does through TensorFlow (FarmHash `Fingerprint64`,
SipHash-2-4 with a salt, `FingerprintCat64` for crosses), so a value lands in the same
bin. Only dense outputs: `sparse=True` needs TensorFlow's sparse tensors.
"""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError, KerasishError
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.ops import indexing_ops, math_ops, reduction_ops, shape_ops, sorting_ops
from kerasish.core.ops.indexing_ops import integer_ids
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.data import Dataset
from kerasish.layers.base import Layer
from kerasish.layers.preprocessing.fingerprint import (
    CROSS_HASH_KEY,
    fingerprint64,
    fingerprint_cat64,
    siphash,
)
from kerasish.layers.preprocessing.lookup import host_values

_ENCODINGS = ("one_hot", "multi_hot", "count")


def _no_sparse(layer: str, sparse) -> None:
    if sparse:
        raise InvalidArgumentError(
            f"{layer}: sparse=True returns TensorFlow sparse tensors, which the NumPy/CuPy "
            "backend does not have; use sparse=False (dense outputs)"
        )


def _check_mode(layer: str, output_mode, allowed) -> None:
    if output_mode not in allowed:
        raise InvalidArgumentError(
            f"{layer}: output_mode must be one of {allowed}, got {output_mode!r}"
        )


def encode_categorical(ids, output_mode: str, depth: int, dtype, count_weights=None) -> Tensor:
    """Integer `ids` as Keras's one_hot / multi_hot / count vectors of length `depth`.

    A scalar is one sample; in "one_hot" a last axis of 1 is replaced by the vector, in
    "multi_hot" and "count" the last axis (the sample's ids) is; ids outside [0, depth)
    count nowhere, as in Keras on its NumPy backend.

    Args:
        ids: integer ids (floats holding whole numbers are taken, as Keras takes them).
        output_mode: "int" (the ids cast to `dtype`), "one_hot", "multi_hot" or "count".
        depth: the length of each vector.
        dtype: the output's element type.
        count_weights: in "count", a weight per id (its shape), summed instead of 1.

    Returns:
        The encoded tensor.

    Example:
        >>> from kerasish.layers.preprocessing.categorical import encode_categorical
        >>> encode_categorical([[0, 2, 2]], "count", 4, "float32").numpy()
        array([[1., 0., 2., 0.]], dtype=float32)
    """
    ids = integer_ids(ids, "CategoryEncoding", "inputs")
    if output_mode == "int":
        return math_ops.cast(ids, dtype)
    if ids.ndim == 0:
        ids = shape_ops.expand_dims(ids, -1)
    if output_mode == "one_hot":
        if ids.ndim > 1 and ids.shape[-1] == 1:
            ids = shape_ops.squeeze(ids, -1)
        return indexing_ops.one_hot(ids, depth, dtype=dtype)
    if output_mode == "multi_hot":
        return reduction_ops.reduce_max(indexing_ops.one_hot(ids, depth, dtype=dtype), axis=-2)
    if count_weights is not None:
        count_weights = convert_to_tensor(count_weights)
        hot = indexing_ops.one_hot(ids, depth, dtype=count_weights.dtype)
        hot = hot * shape_ops.expand_dims(count_weights, -1)
    else:
        hot = indexing_ops.one_hot(ids, depth, dtype=dtype)
    return reduction_ops.reduce_sum(hot, axis=1 if ids.ndim > 1 else 0)


def _encoded_shape(input_shape, output_mode: str, depth) -> tuple:
    input_shape = tuple(input_shape)
    if output_mode == "int":
        return input_shape
    if not input_shape:
        return (depth,)
    if output_mode == "one_hot":
        if len(input_shape) > 1 and input_shape[-1] == 1:
            return input_shape[:-1] + (depth,)
        return input_shape + (depth,)
    return input_shape[:-1] + (depth,)


class CategoryEncoding(Layer):
    """Encode integer ids as one_hot, multi_hot or count vectors of length `num_tokens`.

    Ids are integers (floats holding whole numbers are taken, as Keras takes them; a
    non-integral value is an error naming it). Dense outputs only.

    Args:
        num_tokens: the number of ids; ids lie in [0, num_tokens).
        output_mode: "multi_hot" (default; "binary" is its old name), "one_hot" or "count".
        sparse: must be False (sparse tensors are TensorFlow's).

    Raises:
        InvalidArgumentError: no or a non-positive `num_tokens`, an unknown mode,
            `sparse=True`, or `count_weights` outside "count".

    Example:
        >>> import kerasish as ks
        >>> ks.layers.CategoryEncoding(4, output_mode="one_hot")([3, 0]).numpy()
        array([[0., 0., 0., 1.],
               [1., 0., 0., 0.]], dtype=float32)
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        _check_mode("CategoryEncoding", output_mode, _ENCODINGS)
        if num_tokens is None:
            raise InvalidArgumentError(
                "CategoryEncoding: num_tokens must be set (if the number of tokens is not "
                "known beforehand, use IntegerLookup)"
            )
        if num_tokens < 1:
            raise InvalidArgumentError(
                f"CategoryEncoding: num_tokens must be >= 1, got {num_tokens}"
            )
        _no_sparse("CategoryEncoding", sparse)
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self.sparse = False
        self.autocast = False

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != "count":
            raise InvalidArgumentError(
                "count_weights is only used when output_mode is 'count', got "
                f"output_mode={self.output_mode!r}"
            )
        if count_weights is not None:
            count_weights = math_ops.cast(convert_to_tensor(count_weights), self.compute_dtype)
        return encode_categorical(inputs, self.output_mode, self.num_tokens,
                                  self.compute_dtype, count_weights)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.CategoryEncoding(5).compute_output_shape((None, 3))
            (None, 5)
        """
        return _encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def compute_output_spec(self, inputs, count_weights=None):
        """The symbolic output (Keras 3's name): float vectors of `num_tokens`.

        Args:
            inputs: a symbolic tensor of ids.
            count_weights: unused here (its shape is the inputs').

        Returns:
            A symbolic tensor of the output's shape and dtype.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.CategoryEncoding(5).compute_output_spec(ks.Input((3,), dtype="int32"))
            <KerasTensor shape=(None, 5), dtype=float32, name=None>
        """
        return KerasTensor(self.compute_output_shape(inputs.shape), np.dtype(self.compute_dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": False}


class _HostLayer(Layer):
    """A layer whose inputs (strings or integers) are read on the host, called on them as
    they are (no conversion to a numeric tensor first) or on a `ks.Input` to make a node."""

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, KerasTensor) or (
            isinstance(inputs, (list, tuple)) and any(isinstance(x, KerasTensor) for x in inputs)
        ):
            return super().__call__(inputs, *args, **kwargs)
        self.built = True
        try:
            return self.call(inputs)
        except KerasishError as exc:
            raise type(exc)(f"layer '{self.name}' ({type(self).__name__}): {exc}") from exc


def _as_hash_text(values: np.ndarray) -> list:
    """Values as the bytes TensorFlow hashes: strings as UTF-8, numbers as decimal text
    (floats truncated to int64 first, as Keras casts them)."""
    if values.dtype.kind in "US":
        return [str(v).encode("utf-8") for v in values.ravel().tolist()]
    if values.dtype.kind == "f":
        values = values.astype(np.int64)
    if values.dtype.kind not in "iub":
        raise InvalidArgumentError(f"takes strings or numbers, got dtype {values.dtype}")
    return [str(int(v)).encode("ascii") for v in values.ravel().tolist()]


class Hashing(_HostLayer):
    """Hash strings or integers into `num_bins` bins, in the bins Keras gives them.

    Without a salt, FarmHash's Fingerprint64 (TensorFlow's `to_hash_bucket_fast`, which
    Keras uses on every backend); with a salt, SipHash-2-4 keyed by it
    (`to_hash_bucket_strong`). Integers hash as their decimal text, floats are truncated
    to integers first. With `mask_value`, that value takes bin 0 and the others the
    `num_bins - 1` bins after it. Hashing runs on the host, one value at a time.

    Args:
        num_bins: the number of bins (positive).
        mask_value: a value that always maps to bin 0 (optional).
        salt: an int or a pair of ints; switches to the keyed (strong) hash.
        output_mode: "int" (default), "one_hot", "multi_hot" or "count".
        sparse: must be False (sparse tensors are TensorFlow's).

    Raises:
        InvalidArgumentError: a non-positive `num_bins`, a bad salt or mode, `sparse=True`.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.Hashing(num_bins=3)([["A"], ["B"], ["C"]]).numpy().ravel().tolist()
        [1, 0, 1]
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise InvalidArgumentError(
                f"Hashing: num_bins must be a positive integer, got {num_bins}"
            )
        _check_mode("Hashing", output_mode, ("int",) + _ENCODINGS)
        if output_mode == "int" and np.dtype(self.dtype).kind not in "iu":
            raise InvalidArgumentError(
                f"Hashing: output_mode='int' needs an integer dtype ('int32' or 'int64'), "
                f"got {self.dtype}"
            )
        _no_sparse("Hashing", sparse)
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = [int(s) for s in salt]
            elif isinstance(salt, (int, np.integer)) and not isinstance(salt, bool):
                salt = [int(salt), int(salt)]
            else:
                raise InvalidArgumentError(
                    f"Hashing: salt must be an int or a pair of ints, got {salt!r}"
                )
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = salt
        self.strong_hash = salt is not None
        self.output_mode = output_mode
        self.sparse = False
        self.autocast = False

    def _bins(self, values: np.ndarray) -> np.ndarray:
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = values == np.asarray(self.mask_value, values.dtype)
        if self.strong_hash:
            key = tuple(self.salt)
            hashes = [siphash(key, t) % bins for t in _as_hash_text(values)]
        else:
            hashes = [fingerprint64(t) % bins for t in _as_hash_text(values)]
        out = np.array(hashes, np.int64).reshape(values.shape)
        if mask is not None:
            out = np.where(mask, 0, out + 1)
        return out

    def call(self, inputs):
        values = host_values(inputs)
        if self.output_mode == "one_hot" and values.ndim and values.shape[-1] == 1:
            values = values[..., 0]
        ids = self._bins(values)
        if self.output_mode == "int":
            return convert_to_tensor(ids.astype(self.dtype))
        return encode_categorical(ids, self.output_mode, self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Hashing(4, output_mode="multi_hot").compute_output_shape((None, 3))
            (None, 4)
        """
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        if not input_shape:
            return (self.num_bins,)
        return input_shape[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        """The symbolic output (Keras 3's name): the bins, or their vectors.

        Args:
            inputs: a symbolic tensor of strings or integers.

        Returns:
            A symbolic tensor of the output's shape and the layer's dtype.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Hashing(4).compute_output_spec(ks.Input((3,), dtype="string"))
            <KerasTensor shape=(None, 3), dtype=int64, name=None>
        """
        return KerasTensor(self.compute_output_shape(inputs.shape), np.dtype(self.dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt,
                "mask_value": self.mask_value, "output_mode": self.output_mode,
                "sparse": False}


def _cross_feature_hash(value) -> int:
    """A feature's 64-bit hash in TensorFlow's `sparse.cross_hashed`: strings by their
    fingerprint, integers by their two's-complement bits."""
    if isinstance(value, str):
        return fingerprint64(value.encode("utf-8"))
    return int(value) & ((1 << 64) - 1)


class HashedCrossing(_HostLayer):
    """Cross two or more categorical features into `num_bins` bins (the bins Keras gives).

    Each sample's features (strings or integers) are combined as TensorFlow's
    `sparse.cross_hashed` does: FingerprintCat64 over the features' hashes, from the
    default key, modulo `num_bins`.

    Args:
        num_bins: the number of bins.
        output_mode: "int" (default) or "one_hot".
        sparse: must be False (sparse tensors are TensorFlow's).

    Raises:
        InvalidArgumentError: fewer than two inputs, inputs of different shapes or of rank
            above 2 (or rank 2 with a last axis other than 1), non-integer non-string
            inputs, a bad mode, `sparse=True`.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.HashedCrossing(5)((["A", "B"], [1, 2])).numpy().tolist()
        [0, 1]
    """

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None,
                 **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype, **kwargs)
        _check_mode("HashedCrossing", output_mode, ("int", "one_hot"))
        _no_sparse("HashedCrossing", sparse)
        self.num_bins = int(num_bins)
        self.output_mode = output_mode
        self.sparse = False
        self.autocast = False

    def _host_inputs(self, inputs) -> list:
        if not isinstance(inputs, (list, tuple)):
            raise InvalidArgumentError(
                f"HashedCrossing takes a list or tuple of inputs, got {type(inputs).__name__}"
            )
        if len(inputs) < 2:
            raise InvalidArgumentError(
                f"HashedCrossing takes at least two inputs, got {len(inputs)}"
            )
        values = [host_values(x) for x in inputs]
        shape = values[0].shape
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise InvalidArgumentError(
                "HashedCrossing inputs must have shape (), (batch_size,) or (batch_size, 1), "
                f"got {shape}"
            )
        if any(v.shape != shape for v in values[1:]):
            raise InvalidArgumentError(
                f"HashedCrossing inputs must have equal shapes, got {[v.shape for v in values]}"
            )
        for v in values:
            if v.dtype.kind not in "iuU":
                raise InvalidArgumentError(
                    f"HashedCrossing inputs must be integers or strings, got dtype {v.dtype}"
                )
        return values

    def call(self, inputs):
        values = self._host_inputs(inputs)
        shape = values[0].shape
        columns = [v.ravel().tolist() for v in values]
        out = []
        for row in zip(*columns):
            h = CROSS_HASH_KEY
            for value in row:
                h = fingerprint_cat64(h, _cross_feature_hash(value))
            out.append(h % self.num_bins)
        ids = np.array(out, np.int64).reshape(shape)
        if self.output_mode == "int":
            return convert_to_tensor(ids.astype(self.dtype))
        return encode_categorical(ids, "one_hot", self.num_bins, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        """The output's shape for a list of input shapes, found without running the layer.

        Args:
            input_shape: the inputs' shapes (all equal).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.HashedCrossing(4).compute_output_shape([(None, 1), (None, 1)])
            (None, 1)
        """
        first = tuple(input_shape[0])
        if self.output_mode == "int":
            return first
        if not first:
            return (self.num_bins,)
        if first[-1] != 1:
            return first + (self.num_bins,)
        return first[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        """The symbolic output (Keras 3's name): the crossed bins, or their one-hot vectors.

        Args:
            inputs: symbolic tensors of equal shapes.

        Returns:
            A symbolic tensor of the output's shape and dtype.

        Example:
            >>> import kerasish as ks
            >>> a, b = ks.Input((1,), dtype="int64"), ks.Input((1,), dtype="int64")
            >>> ks.layers.HashedCrossing(4).compute_output_spec([a, b])
            <KerasTensor shape=(None, 1), dtype=int64, name=None>
        """
        dtype = self.dtype if self.output_mode == "int" else self.compute_dtype
        return KerasTensor(self.compute_output_shape([x.shape for x in inputs]), np.dtype(dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins,
                "output_mode": self.output_mode, "sparse": False}


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    values = np.sort(values.reshape(-1))
    step = max(values.size / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1)::int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    cum_percents = cum / cum[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum = np.interp(percents, cum_percents, cum)
    new_weights = cum - np.concatenate((np.array([0]), cum[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


class Discretization(Layer):
    """Bucket numbers by boundaries: bin i holds bin_boundaries[i-1] <= x < bin_boundaries[i].

    The boundaries are given, or learnt by `adapt(data)` as approximate quantiles for
    `num_bins` bins (Keras's streaming summary, within `epsilon`, so the boundaries are
    the ones Keras learns from the same data).

    Args:
        bin_boundaries: the sorted boundaries (len(bin_boundaries) + 1 bins).
        num_bins: the number of bins to learn with `adapt` (instead of `bin_boundaries`).
        epsilon: the quantiles' error tolerance in `adapt`.
        output_mode: "int" (default; int32 bins), "one_hot", "multi_hot" or "count".
        sparse: must be False (sparse tensors are TensorFlow's).
        dtype: the dtype of the encoded outputs (float32 by default).
        name: the layer's name.

    Raises:
        InvalidArgumentError: both or neither of `bin_boundaries` and `num_bins`, a
            negative `num_bins`, a bad mode, `sparse=True`, `adapt` with given boundaries,
            a call before the boundaries exist.

    Example:
        >>> import kerasish as ks
        >>> layer = ks.layers.Discretization(bin_boundaries=[0.0, 1.0])
        >>> layer([[-1.0, 0.5, 2.0]]).numpy()
        array([[0, 1, 2]], dtype=int32)
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None):
        super().__init__(name=name, dtype=dtype)
        _no_sparse("Discretization", sparse)
        _check_mode("Discretization", output_mode, ("int",) + _ENCODINGS)
        if num_bins is not None and num_bins < 0:
            raise InvalidArgumentError(
                f"Discretization: num_bins must be >= 0, got {num_bins}"
            )
        if num_bins is not None and bin_boundaries is not None:
            raise InvalidArgumentError(
                "Discretization: set either num_bins or bin_boundaries, not both; got "
                f"num_bins={num_bins} and bin_boundaries={bin_boundaries}"
            )
        if num_bins is None and bin_boundaries is None:
            raise InvalidArgumentError("Discretization: set either num_bins or bin_boundaries")
        self.bin_boundaries = None if bin_boundaries is None else list(bin_boundaries)
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = False
        self.summary = None if self.bin_boundaries else np.array([[], []], "float32")

    @property
    def input_dtype(self):
        """What inputs are cast to: the float type."""
        return np.dtype("float32")

    def adapt(self, data, steps=None) -> None:
        """Learn `num_bins` bins' boundaries as approximate quantiles of `data`.

        Args:
            data: an array or tensor, a `ks.data.Dataset` of batches or any iterable of
                batches.
            steps: how many batches to read at most (None: all).

        Raises:
            InvalidArgumentError: the layer was given `bin_boundaries`.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> layer = ks.layers.Discretization(num_bins=4, epsilon=0.01)
            >>> layer.adapt(np.arange(8.0))
            >>> layer.bin_boundaries
            [1.0, 3.0, 5.0]
        """
        if self.num_bins is None:
            raise InvalidArgumentError(
                "Discretization: cannot adapt a layer made with bin_boundaries; make it with "
                "num_bins instead"
            )
        self.reset_state()
        if isinstance(data, (np.ndarray, Tensor)) or not hasattr(data, "__iter__"):
            self.update_state(data)
        else:
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                if isinstance(data, Dataset) and isinstance(batch, tuple):
                    batch = batch[0]
                self.update_state(batch)
        self.finalize_state()

    def update_state(self, data) -> None:
        """Fold a batch into the running quantile summary (used by `adapt`).

        Args:
            data: a batch of numbers.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Discretization(num_bins=2)
            >>> layer.update_state([1.0, 2.0, 3.0])
            >>> layer.finalize_state()
            >>> layer.bin_boundaries
            [1.5]
        """
        values = np.asarray(host_values(data), "float32")
        merged = np.concatenate((self.summary, _summarize(values, self.epsilon)), axis=1)
        merged = np.take(merged, np.argsort(merged[0]), axis=1)
        self.summary = _compress(merged, self.epsilon)

    def finalize_state(self) -> None:
        """Turn the summary into `bin_boundaries` (used by `adapt`).

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Discretization(num_bins=2)
            >>> layer.finalize_state()
            >>> layer.bin_boundaries
            []
        """
        if self.num_bins is None:
            return
        if self.summary.shape[1] == 0:
            self.bin_boundaries = []
            return
        self.bin_boundaries = _compress(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def reset_state(self) -> None:
        """Forget the summary of the data seen (used by `adapt`).

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Discretization(num_bins=2).reset_state()
        """
        if self.num_bins is not None:
            self.summary = np.array([[], []], "float32")

    def _depth(self):
        return (len(self.bin_boundaries) + 1 if self.bin_boundaries is not None
                else self.num_bins)

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise InvalidArgumentError(
                "Discretization: pass bin_boundaries when making the layer or call "
                "adapt(data) before using it"
            )
        bins = convert_to_tensor(np.asarray(self.bin_boundaries, np.float64))
        indices = sorting_ops.digitize(inputs, bins)
        if self.output_mode == "int":
            return indices
        return encode_categorical(indices, self.output_mode, self._depth(), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape`, found without running the layer.

        Args:
            input_shape: the inputs' shape, batch axis included (None where unknown).

        Returns:
            The output's shape.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Discretization([0.0], output_mode="one_hot")
            >>> layer.compute_output_shape((None, 1))
            (None, 2)
        """
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        depth = self._depth()
        if self.output_mode == "one_hot":
            if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        if len(input_shape) >= 2:
            return (input_shape[0],) + input_shape[2:] + (depth,)
        return (depth,)

    def compute_output_spec(self, inputs):
        """The symbolic output (Keras 3's name): int32 bins or float vectors.

        Args:
            inputs: a symbolic tensor of numbers.

        Returns:
            A symbolic tensor of the output's shape and dtype.

        Example:
            >>> import kerasish as ks
            >>> ks.layers.Discretization([0.0]).compute_output_spec(ks.Input((3,)))
            <KerasTensor shape=(None, 3), dtype=int32, name=None>
        """
        dtype = "int32" if self.output_mode == "int" else self.compute_dtype
        return KerasTensor(self.compute_output_shape(inputs.shape), np.dtype(dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": False}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Make the layer from `get_config`'s dict (learnt boundaries kept with num_bins).

        Args:
            config: the dict.
            custom_objects: unused.

        Returns:
            The layer.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Discretization([1.0])
            >>> ks.layers.Discretization.from_config(layer.get_config()).bin_boundaries
            [1.0]
        """
        config = dict(config)
        boundaries = config.pop("bin_boundaries", None)
        if boundaries is not None and config.get("num_bins") is not None:
            layer = cls(**{k: v for k, v in config.items() if k in _DISCRETIZATION_ARGS})
            layer.bin_boundaries = list(boundaries)
            return layer
        config["bin_boundaries"] = boundaries
        return cls(**{k: v for k, v in config.items() if k in _DISCRETIZATION_ARGS})


_DISCRETIZATION_ARGS = ("bin_boundaries", "num_bins", "epsilon", "output_mode", "sparse",
                        "dtype", "name")
