"""`ks.utils`: the helpers Keras 3 programs import from `keras.utils`.

Also: files from a URL in Keras's cache (`get_file`), image files (`load_img`, `save_img`;
Pillow), model diagrams (`plot_model`, `model_to_dot`; pydot and Graphviz), `FeatureSpace`,
`Config`, `get_source_inputs` and `audio_dataset_from_directory`.

Label and sequence preparation (`to_categorical`, `pad_sequences`,
`normalize`), sliding windows over a time series as a dataset
(`timeseries_dataset_from_array`), image conversion (`img_to_array`; `array_to_img` needs Pillow,
which kerasish does not depend on), `set_random_seed`, the packing of
what a dataset yields for `train_step(self, data)`
(`unpack_x_y_sample_weight`, `pack_x_y_sample_weight`), and, as in Keras, the
serialization helpers of `ks.saving` (`register_keras_serializable`, ...).
"""

from __future__ import annotations

import random as _python_random

import numpy as np
from tqdm.auto import tqdm

from kerasish.backend import clear_session, is_keras_tensor, standardize_dtype  # noqa: F401
from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops, nn_ops, reduction_ops
from kerasish.core.serialization import (  # noqa: F401 - Keras 3 exports them here too
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from kerasish.core.settings import (  # noqa: F401 - Keras 3 exports them here too
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from kerasish.core.tensor import Tensor, as_dtype, convert_to_tensor
from kerasish.data._audio import audio_dataset_from_directory  # noqa: F401
from kerasish.data._directory import (  # noqa: F401
    image_dataset_from_directory,
    split_dataset,
    text_dataset_from_directory,
)
from kerasish.data._pydataset import PyDataset, Sequence  # noqa: F401
from kerasish.data._timeseries import timeseries_dataset_from_array  # noqa: F401
from kerasish.models.data_adapter import (  # noqa: F401
    pack_x_y_sample_weight,
    unpack_x_y_sample_weight,
)
from kerasish.utils._files import get_file  # noqa: F401
from kerasish.utils._images import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from kerasish.utils._misc import Config, get_source_inputs  # noqa: F401
from kerasish.utils._visualization import model_to_dot, plot_model  # noqa: F401
from kerasish.utils.feature_space import FeatureSpace  # noqa: F401


def to_categorical(x, num_classes=None):
    """One-hot rows (float32) for integer class labels.

    A trailing axis of size 1 is dropped first, so labels of shape (n, 1) give (n,
    num_classes), as in Keras.

    Args:
        x: integer labels, any shape.
        num_classes: the number of classes (default: the largest label plus one).

    Example:
        >>> import kerasish as ks
        >>> ks.utils.to_categorical([0, 2, 1], num_classes=3)
        array([[1., 0., 0.],
               [0., 0., 1.],
               [0., 1., 0.]], dtype=float32)
    """
    labels = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if labels.dtype.kind not in "iub":
        fractional = labels.reshape(-1)[labels.reshape(-1) != np.round(labels.reshape(-1))]
        if fractional.size:
            raise InvalidArgumentError(
                f"to_categorical: labels must be whole numbers, got {labels.dtype} values "
                f"such as {fractional[0]}"
            )
    labels = labels.astype(np.int64)
    shape = labels.shape
    if len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    flat = labels.reshape(-1)
    if num_classes is None:
        num_classes = int(flat.max()) + 1 if flat.size else 0
    num_classes = int(num_classes)
    bad = np.flatnonzero((flat < 0) | (flat >= num_classes))
    if bad.size:
        raise InvalidArgumentError(
            f"to_categorical: label {int(flat[bad[0]])} at flat index {int(bad[0])} is not in "
            f"[0, num_classes={num_classes})"
        )
    result = np.zeros((flat.size, num_classes), np.float32)
    result[np.arange(flat.size), flat] = 1.0
    return result.reshape(shape + (num_classes,))


def normalize(x, axis: int = -1, order: int = 2):
    """Scale `x` to unit L-`order` norm along `axis` (zero vectors stay zero).

    A tensor gives a tensor (differentiable); anything else a NumPy array.

    Args:
        x: the values (floating point).
        axis: the axis of the norm.
        order: 2 (Euclidean) or 1.

    Returns:
        The scaled values, a tensor for a tensor, else a NumPy array.

    Raises:
        InvalidArgumentError: for another `order`.

    Example:
        >>> import kerasish as ks
        >>> ks.utils.normalize([[3.0, 4.0], [0.0, 0.0]])
        array([[0.6, 0.8],
               [0. , 0. ]], dtype=float32)
    """
    if order not in (1, 2):
        raise InvalidArgumentError(f"normalize: order must be 1 or 2, got {order!r}")
    tensor = convert_to_tensor(x)
    if tensor.dtype.kind != "f":
        tensor = math_ops.cast(tensor, np.float32)
    if order == 2:
        result = nn_ops.l2_normalize(tensor, axis=axis)
    else:
        norms = reduction_ops.norm(tensor, ord=1, axis=axis, keepdims=True)
        safe = math_ops.where(math_ops.equal(norms, 0), creation_ops.ones_like(norms), norms)
        result = math_ops.divide(tensor, safe)
    return result if isinstance(x, Tensor) else result.numpy()


def pad_sequences(sequences, maxlen=None, dtype="int32", padding: str = "pre",
                  truncating: str = "pre", value=0.0) -> np.ndarray:
    """Pad (or cut) a list of sequences to one length: an array (len(sequences), maxlen, ...).

    Args:
        sequences: a list of sequences (lists or arrays; items may themselves be arrays
            of one common shape).
        maxlen: the length (default: the longest sequence's).
        dtype: the result's dtype (int32 as in Keras: pass 'float32' for real values).
        padding: 'pre' or 'post': add `value` before or after each sequence.
        truncating: 'pre' or 'post': drop values at the start or at the end of
            sequences longer than `maxlen`.
        value: the padding value.

    Example:
        >>> import kerasish as ks
        >>> ks.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2)
        array([[2, 3],
               [0, 4]], dtype=int32)
    """
    for argument, given in (("padding", padding), ("truncating", truncating)):
        if given not in ("pre", "post"):
            raise InvalidArgumentError(
                f"pad_sequences: {argument} must be 'pre' or 'post', got {given!r}"
            )
    rows = []
    for index, sequence in enumerate(sequences):
        try:
            rows.append(np.asarray(sequence))
        except ValueError as exc:
            raise InvalidArgumentError(
                f"pad_sequences: sequence {index} is not an array of one shape: {exc}"
            ) from exc
        if rows[-1].ndim == 0:
            raise InvalidArgumentError(
                f"pad_sequences: sequence {index} is a scalar ({sequence!r}), not a sequence"
            )
    lengths = [len(row) for row in rows]
    if maxlen is None:
        maxlen = max(lengths, default=0)
    maxlen = int(maxlen)
    item_shape = next((row.shape[1:] for row in rows if len(row)), ())
    result = np.full((len(rows), maxlen) + item_shape, value, dtype=as_dtype(dtype))
    for index, row in enumerate(rows):
        if not len(row):
            continue
        if row.shape[1:] != item_shape:
            raise InvalidArgumentError(
                f"pad_sequences: the items of sequence {index} have shape {row.shape[1:]}, "
                f"but those of the first non-empty sequence have {item_shape}"
            )
        kept = row[-maxlen:] if truncating == "pre" else row[:maxlen]
        if maxlen == 0:
            kept = row[:0]
        if padding == "post":
            result[index, : len(kept)] = kept
        else:
            result[index, maxlen - len(kept):] = kept
    return result


def set_random_seed(seed: int) -> None:
    """Seed Python's `random`, NumPy's global generator and `ks.random` at once, as Keras does.

    Args:
        seed: an integer.

    Raises:
        InvalidArgumentError: if `seed` is not an integer.

    Example:
        >>> import kerasish as ks
        >>> ks.utils.set_random_seed(3); a = ks.random.normal([2]).numpy()
        >>> ks.utils.set_random_seed(3); bool((a == ks.random.normal([2]).numpy()).all())
        True
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise InvalidArgumentError(
            f"set_random_seed: the seed must be an integer, got {type(seed).__name__} {seed!r}"
        )
    _python_random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    ks_random.set_seed(int(seed))


class Progbar:
    """Keras's progress bar for your own loops: a tqdm bar with the running metrics.

    Values passed to `update`/`add` are averaged over the steps they cover, except those
    named in `stateful_metrics`, which are shown as given (a metric's running result).
    `stateless_metrics` is the other way round: only the names in it are averaged.
    With `verbose=2` nothing is drawn until the end, then one line; with 0, nothing.

    Args:
        target: the number of steps (None: unknown).
        width: Keras's bar width in characters (tqdm sizes the bar to the terminal).
        verbose: 0 (silent), 1 (a bar) or 2 (one line at the end).
        interval: the least seconds between redraws.
        stateful_metrics: names whose values are not averaged.
        stateless_metrics: the only names whose values are averaged (give one of the two).
        unit_name: what a step is called.

    Example:
        >>> import kerasish as ks
        >>> bar = ks.utils.Progbar(3, verbose=0)
        >>> for step in range(3):
        ...     bar.update(step + 1, [("loss", float(step))])
        >>> bar.averages()
        {'loss': 1.0}
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Progbar: give stateful_metrics (the names not averaged) or "
                             "stateless_metrics (the only names averaged), not both")
        self.target, self.width, self.verbose = target, width, verbose
        self.stateful_metrics = set(stateful_metrics or ())
        self.stateless_metrics = (None if stateless_metrics is None
                                  else set(stateless_metrics))
        self.unit_name = unit_name
        self._sums: dict = {}
        self._seen = 0
        self._bar = tqdm(total=target, unit=unit_name, mininterval=interval,
                         disable=verbose != 1 or not is_interactive_logging_enabled(),
                         dynamic_ncols=True)

    def averages(self) -> dict:
        """The values as shown: averages (stateful metrics as last given)."""
        return {name: total / max(count, 1) for name, (total, count) in self._sums.items()}

    def update(self, current, values=None, finalize=None):
        """Move to step `current`, folding in `values` (a list of (name, value) pairs).

        Args:
            current: the step reached.
            values: (name, value) pairs for the steps since the last update.
            finalize: close the bar (default: when `current` reaches the target).

        Example:
            >>> import kerasish as ks
            >>> bar = ks.utils.Progbar(2, verbose=0)
            >>> bar.update(2, [("loss", 0.5)])
            >>> bar.averages()
            {'loss': 0.5}
        """
        steps = max(current - self._seen, 1)
        for name, value in values or ():
            value = float(np.mean(np.asarray(value)))
            stateful = (name in self.stateful_metrics if self.stateless_metrics is None
                        else name not in self.stateless_metrics)
            if stateful:
                self._sums[name] = (value, 1)
            else:
                total, count = self._sums.get(name, (0.0, 0))
                self._sums[name] = (total + value * steps, count + steps)
        self._bar.update(current - self._seen)
        self._seen = current
        shown = {name: f"{value:.4f}" for name, value in self.averages().items()}
        self._bar.set_postfix(shown, refresh=False)
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        if finalize:
            self._bar.close()
            if self.verbose == 2:
                metrics = " - ".join(f"{k}: {v}" for k, v in shown.items())
                print(f"{current}/{self.target} {self.unit_name}s" + (
                    f" - {metrics}" if metrics else ""))

    def add(self, n, values=None):
        """`update(current + n, values)`.

        Args:
            n: how many steps were done.
            values: (name, value) pairs for those steps.

        Example:
            >>> import kerasish as ks
            >>> bar = ks.utils.Progbar(None, verbose=0)
            >>> bar.add(3, [("loss", 1.0)])
            >>> bar.averages()
            {'loss': 1.0}
        """
        self.update(self._seen + n, values)
