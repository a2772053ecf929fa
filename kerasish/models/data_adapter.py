"""Turn what `fit`/`evaluate`/`predict` receive into batches of tensors.

Arrays (NumPy, tensors, lists) are sliced into batches, shuffled each epoch
when asked; any other iterable (a `ks.data.Dataset`, a generator function's
output, a list of tuples) is taken as already batched, and `batch_size` is then
ignored, as Keras ignores it. A `tf.data.Dataset` or a PyTorch `DataLoader` is taken
too, when those libraries are installed: its batches are converted to NumPy arrays,
as Keras 3 does on every backend. Neither library is imported here: they are
recognised by the type of the object given, and used through that object's methods.
"""

from __future__ import annotations

import reprlib
import warnings

import numpy as np

from kerasish.core import arguments, backend, nest
from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.tensor import Tensor, Variable, convert_to_tensor
from kerasish.core.tracking import variables_depth_first
from kerasish.data import Dataset
from kerasish.data._pydataset import PyDataset, PyDatasetEpochs


def _is_array_like(value) -> bool:
    """Arrays, tensors and lists of numbers (a list of tuples is a list of batches)."""
    if isinstance(value, list):
        return not value or not isinstance(value[0], (tuple, dict))
    return isinstance(value, (np.ndarray, Tensor)) or hasattr(value, "__array__")


def _length(structure, what: str) -> int:
    lengths = {len(leaf) for leaf in nest.flatten(structure)}
    if len(lengths) != 1:
        raise InvalidArgumentError(f"{what}: arrays have different lengths {sorted(lengths)}")
    return lengths.pop()


def _take(structure, rows: slice, orders: dict):
    """Rows `rows` of the epoch from each leaf: in order a slice (a view, not a copy), else
    the shuffled order's entries. A leaf on a GPU is permuted once per epoch (one gather,
    a second copy within `DEVICE_DATA_SHARE`'s room) and then sliced: in an H200 profile of
    a `fit` epoch replayed as CUDA graphs, the per-batch gathers were the largest host cost
    after the replay itself. On the host, a copy per batch keeps one copy of the data."""
    if structure is None:
        return None
    order = orders["cpu", 0]
    leaves = []
    for leaf in nest.flatten(structure):
        if order is None:
            leaf = leaf[rows]
        elif backend.is_gpu_array(leaf):
            permuted = orders.get(("permuted", id(leaf)))
            if permuted is None:
                device = backend.device_of(leaf)
                if device not in orders:
                    orders[device] = backend.to_device(order, device)
                permuted = orders["permuted", id(leaf)] = leaf[orders[device]]
            leaf = permuted[rows]
        else:
            leaf = leaf[order[rows]]
        leaves.append(convert_to_tensor(leaf))
    return nest.pack_sequence_as(structure, leaves)


def _array(leaf):
    """A leaf as an array: one on a GPU stays there, anything else becomes a NumPy array."""
    if isinstance(leaf, Tensor):
        leaf = leaf._value
    return leaf if backend.is_gpu_array(leaf) else np.asarray(leaf)


def _mapped(structure, function):
    """`structure` (or None) with `function` applied to each leaf."""
    return None if structure is None else nest.pack_sequence_as(
        structure, [function(leaf) for leaf in nest.flatten(structure)])


# the share of a GPU's free memory that arrays given to fit may take there
DEVICE_DATA_SHARE = 0.25


class ArrayBatches:
    """Batches over in-memory arrays x, y and optional sample weights."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False,
                 where: str = "fit"):
        self.x, self.y = _mapped(x, _array), _mapped(y, _array)
        scalars = [leaf for leaf in nest.flatten(self.x) if leaf.ndim == 0]
        if scalars:
            raise InvalidArgumentError(
                f"{where}: x holds single values such as {reprlib.repr(scalars[0].item())} where "
                "arrays of examples belong (a list passed as x stands for several inputs, one "
                "array each); for one input of several examples pass np.array(x)"
            )
        self.sample_weight = _mapped(sample_weight, _array)  # one array, or one per output
        self.count = _length(self.x, "x")
        if self.count == 0:
            raise InvalidArgumentError(f"{where}: x holds no examples (arrays of length 0)")
        if self.y is not None and _length(self.y, "y") != self.count:
            raise InvalidArgumentError(
                f"x and y have different numbers of examples: x has {self.count}, "
                f"y has {_length(self.y, 'y')}"
            )
        if self.sample_weight is not None:
            weights = _length(self.sample_weight, "sample_weight")
            if weights != self.count:
                raise InvalidArgumentError(
                    f"sample_weight has {weights} entries for {self.count} examples"
                )
        self.batch_size = batch_size
        self.shuffle = shuffle
        self._place_on_device()

    def _place_on_device(self) -> None:
        """With a GPU as the current device, numeric arrays that fit in `DEVICE_DATA_SHARE`
        of its free memory are copied there once: batches are then sliced (and shuffled) on
        the GPU, and an epoch copies nothing across per batch."""
        device = backend.current_device()
        leaves = [leaf for part in (self.x, self.y, self.sample_weight) if part is not None
                  for leaf in nest.flatten(part)]
        if device[0] != "gpu" or any(leaf.dtype.kind not in "biuf" for leaf in leaves):
            return
        host = sum(leaf.nbytes for leaf in leaves if not backend.is_gpu_array(leaf))
        if not host or host > DEVICE_DATA_SHARE * backend.free_device_memory(device):
            return

        def placed(leaf):
            return backend.to_device(leaf, device)

        self.x, self.y = _mapped(self.x, placed), _mapped(self.y, placed)
        self.sample_weight = _mapped(self.sample_weight, placed)

    def __len__(self) -> int:
        return -(-self.count // self.batch_size)

    def __iter__(self):
        orders = {}  # the epoch's order on each device (None: in order), GPU leaves permuted
        orders["cpu", 0] = ks_random.permutation(self.count) if self.shuffle else None
        for start in range(0, self.count, self.batch_size):
            rows = slice(start, start + self.batch_size)
            yield (_take(self.x, rows, orders), _take(self.y, rows, orders),
                   _take(self.sample_weight, rows, orders))

    def split(self, fraction: float):
        """(first part, last `fraction` part): Keras's validation_split takes the last examples."""
        cut = int(self.count * (1 - fraction))
        if cut == 0 or cut == self.count:
            raise InvalidArgumentError(
                f"validation_split={fraction} leaves no examples on one side of {self.count}"
            )

        def part(structure, index):
            if structure is None:
                return None
            return nest.pack_sequence_as(structure, [l[index] for l in nest.flatten(structure)])

        head, tail = slice(0, cut), slice(cut, None)
        return (
            ArrayBatches(part(self.x, head), part(self.y, head), part(self.sample_weight, head),
                         self.batch_size, self.shuffle),
            ArrayBatches(part(self.x, tail), part(self.y, tail), part(self.sample_weight, tail),
                         self.batch_size, False),
        )


class IterableBatches:
    """Batches from an iterable yielding x, (x, y) or (x, y, sample_weight).

    Each `iter()` starts a new pass over the source (a `ks.data.Dataset` is
    iterated afresh every epoch). `steps` is its length, or None when the
    source has no known length (a generator, an infinite or filtered Dataset).
    """

    def __init__(self, source):
        self.source = source

    @property
    def steps(self):
        try:
            return len(self.source)
        except TypeError:
            return None

    def __iter__(self):
        for item in self.source:
            if isinstance(item, (tuple, list)) and 1 <= len(item) <= 3:
                x, y, w = (list(item) + [None, None])[:3]
            else:
                x, y, w = item, None, None
            yield (
                nest.pack_sequence_as(x, [convert_to_tensor(l) for l in nest.flatten(x)]),
                None if y is None else nest.pack_sequence_as(
                    y, [convert_to_tensor(l) for l in nest.flatten(y)]
                ),
                None if w is None else nest.pack_sequence_as(
                    w, [convert_to_tensor(l) for l in nest.flatten(w)]
                ),
            )


class FirstBatches(IterableBatches):
    """The first `count` batches of each pass over another batch source (Keras's `steps` of
    evaluate and predict, and `validation_steps`)."""

    def __init__(self, source, count: int):
        super().__init__(source)
        self.count = count

    @property
    def steps(self):
        known = num_steps(self.source)
        return self.count if known is None else min(known, self.count)

    def __iter__(self):
        if self.count <= 0:
            return
        for index, batch in enumerate(self.source, start=1):
            yield batch
            if index >= self.count:  # stop before drawing another batch from the source
                break


def pass_counters(data) -> list:
    """The variables that decide the order of `data`'s next pass besides the host's random
    stream: the pass counters of a `ks.data.Dataset`'s shuffles (none for arrays, which
    shuffle from `ks.random`, or for other iterables)."""
    source = getattr(data, "source", None)
    if isinstance(source, Dataset):
        return variables_depth_first(source)
    if isinstance(source, IterableBatches):  # batches wrapping batches (an MPI rank's share)
        return pass_counters(source)
    return []


def num_steps(data):
    """Batches per epoch, or None when unknown (for progress bars)."""
    return data.steps if isinstance(data, IterableBatches) else len(data)


def _library_of(value) -> str | None:
    """"tensorflow" for a `tf.data.Dataset`, "torch" for a PyTorch `DataLoader`, else None
    (told from the object's type, so neither library is imported to ask)."""
    for cls in type(value).__mro__:
        module = cls.__module__ or ""
        if module.startswith("tensorflow.") and cls.__name__ == "DatasetV2":
            return "tensorflow"
        if module.startswith("torch.utils.data") and cls.__name__ == "DataLoader":
            return "torch"
    return None


def _foreign_leaf(leaf):
    """A leaf of a TensorFlow or PyTorch batch as a NumPy array (bytes decoded to str)."""
    if hasattr(leaf, "detach"):  # a torch tensor
        leaf = leaf.detach().cpu().numpy()
    elif hasattr(leaf, "numpy") and not isinstance(leaf, np.ndarray):  # a tf tensor
        leaf = leaf.numpy()
    array = np.asarray(leaf)
    if array.dtype.kind == "S" or (array.dtype.kind == "O" and array.size
                                   and isinstance(array.flat[0], bytes)):
        array = np.array([v.decode("utf-8") for v in array.ravel().tolist()],
                         dtype=str).reshape(array.shape)
    return array


def _foreign_batch(batch):
    """A batch from TensorFlow or PyTorch with NumPy leaves (tuples, lists and dicts kept)."""
    if isinstance(batch, dict):
        return {key: _foreign_batch(value) for key, value in batch.items()}
    if isinstance(batch, (tuple, list)):
        return type(batch)(_foreign_batch(value) for value in batch) if isinstance(
            batch, tuple) else [_foreign_batch(value) for value in batch]
    return _foreign_leaf(batch)


class ForeignBatches:
    """The batches of a `tf.data.Dataset` or a PyTorch `DataLoader`, as NumPy arrays.

    Each `iter()` is a new pass over the source (as Keras iterates them every epoch).
    """

    def __init__(self, source, library: str):
        self.source, self.library = source, library

    def __len__(self) -> int:
        if self.library == "tensorflow":
            count = int(self.source.cardinality())
            if count < 0:  # infinite (-1) or unknown (-2)
                raise TypeError("the dataset's length is not known")
            return count
        return len(self.source)

    def __iter__(self):
        batches = (self.source.as_numpy_iterator() if self.library == "tensorflow"
                   else iter(self.source))
        for batch in batches:
            yield _foreign_batch(batch)


def batches(x, y=None, sample_weight=None, batch_size=None, shuffle=False, where="fit"):
    """The right batch source for what the user passed to `where` (fit, evaluate, predict).

    For data that is already batched (a dataset, a generator, a `PyDataset`, a
    `tf.data.Dataset`, a PyTorch `DataLoader`), `batch_size` is ignored, as Keras ignores
    it; `y` and `sample_weight` belong in what it yields."""
    batch_size = arguments.integer(batch_size, "batch_size", where, none=True)
    if _is_array_like(x) or isinstance(x, (tuple, dict)) and all(
        _is_array_like(leaf) for leaf in nest.flatten(x)
    ):
        return ArrayBatches(x, y, sample_weight, batch_size or 32, shuffle, where)
    for given, what in ((y, "y (the targets)"), (sample_weight, "sample_weight")):
        if given is not None:
            raise InvalidArgumentError(
                f"{where}: {what} must not be given when x is a dataset or iterable "
                f"({type(x).__name__}): it should yield (x, y) or (x, y, sample_weight) batches"
            )
    library = _library_of(x)
    if library is not None:
        return IterableBatches(ForeignBatches(x, library))
    return IterableBatches(PyDatasetEpochs(x) if isinstance(x, PyDataset) else x)


def unpack_x_y_sample_weight(data):
    """Split what a dataset yields into `(x, y, sample_weight)`, None where absent.

    `x`, `(x,)`, `(x, y)` and `(x, y, sample_weight)` are understood (a list like a
    tuple); anything that is not a tuple or list is `x` alone.

    Args:
        data: one element of a dataset, or a batch.

    Returns:
        The tuple `(x, y, sample_weight)`.

    Raises:
        InvalidArgumentError: for a tuple or list of more than three parts.

    Example:
        >>> import kerasish as ks
        >>> ks.utils.unpack_x_y_sample_weight((1, 2))
        (1, 2, None)
        >>> ks.utils.unpack_x_y_sample_weight({"image": 1})
        ({'image': 1}, None, None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if 1 <= len(data) <= 3:
        return tuple(data) + (None,) * (3 - len(data))
    raise InvalidArgumentError(
        f"unpack_x_y_sample_weight: expected x, (x,), (x, y) or (x, y, sample_weight), "
        f"got a {type(data).__name__} of {len(data)} items"
    )


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The inverse of `unpack_x_y_sample_weight`: the shortest form that keeps the parts.

    `x` alone is returned as is, unless it is a tuple or list (several inputs), which
    becomes `(x,)` so that it is not mistaken for `(x, y)`.

    Args:
        x: the inputs.
        y: the targets, or None.
        sample_weight: the weights, or None (kept only with `y`).

    Returns:
        `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`.

    Example:
        >>> import kerasish as ks
        >>> ks.utils.pack_x_y_sample_weight(1), ks.utils.pack_x_y_sample_weight(1, 2)
        (1, (1, 2))
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return x, y
    return x, y, sample_weight


class EpochBatches:
    """One epoch of batches: a full pass, or `steps` batches from an iterator kept across
    epochs (started again when a finite source runs out).

    It also knows where the stream stands, which is what `BackupAndRestore` saves: the
    host's random state and the data's pass counters when the open iterator started, and
    how many batches it has given. `seek` puts a new process's stream back there.
    """

    def __init__(self, data, steps=None):
        self.data, self.steps, self.iterator = data, steps, None
        self.counters = pass_counters(data)
        self.started = None  # (random state, pass counters) when the open iterator started
        self.drawn = 0  # batches the open iterator has given
        self.positioned = False  # the open iterator was placed by seek: the next epoch goes on
        self.ran_out = False  # a source started again gave no batch (Keras: training stops)

    def position(self) -> tuple:
        """(random state, pass counters, batches drawn) to `seek` to: the open iterator's
        start and progress, or now when none is open (the next epoch starts one)."""
        if self.iterator is None:
            return host_random_state().numpy().copy(), self._counter_values(), 0
        return (*self.started, self.drawn)

    def seek(self, random_state, counters, drawn: int) -> None:
        """Start an iterator from a saved `position()` and draw its `drawn` batches again
        (untrained), leaving the host's random stream as it was before the call."""
        state = host_random_state()
        now = state.numpy().copy()
        state.assign(random_state)
        for variable, value in zip(self.counters, counters, strict=True):
            variable.assign(value)
        self._open()
        for _ in range(drawn):
            if next(self.iterator, None) is None:
                raise InvalidArgumentError(
                    f"fit: resuming after batch {drawn} of a pass over the data, but the data "
                    f"gives only {self.drawn} batches; resume with the data of the "
                    "interrupted run (or remove its backup to start again)")
            self.drawn += 1
        self.positioned = True
        state.assign(now)

    def _counter_values(self):
        return np.array([int(v) for v in self.counters], dtype=np.int64)

    def _open(self) -> None:
        self.close()
        self.started = (host_random_state().numpy().copy(), self._counter_values())
        self.iterator, self.drawn = iter(self.data), 0

    def close(self) -> None:
        """Stop the open iterator (a prefetching dataset's thread)."""
        iterator, self.iterator = self.iterator, None
        close = getattr(iterator, "close", None)
        if close is not None:
            close()

    def epoch(self, first_step: int = 0):
        """The batches of an epoch, from batch `first_step` on (a resumed epoch)."""
        if not self.steps and not self.positioned:
            self.close()  # an epoch left early (stop_training) does not continue its pass
        self.positioned = False
        count = self.steps - first_step if self.steps else None
        while count is None or count > 0:
            if self.iterator is None:
                self._open()
            try:
                batch = next(self.iterator)
            except StopIteration:
                empty, self.iterator = self.drawn == 0, None
                if not self.steps:
                    return
                if empty:  # started again and gave nothing: a used-up generator, or no data
                    self.ran_out = True
                    warnings.warn(
                        f"fit: the data ran out before the epoch's {self.steps} steps "
                        "(steps_per_epoch); training stops. Give data that can be iterated "
                        "again for every epoch (a ks.data.Dataset, dataset.repeat()) or "
                        "lower steps_per_epoch", stacklevel=4)
                    return
                continue
            self.drawn += 1
            if count is not None:
                count -= 1
            yield batch


def host_random_state() -> Variable:
    """The host's random stream state: what shuffles arrays in `fit`, saved by
    `BackupAndRestore` to resume a pass over the data."""
    return ks_random.get_global_generator().state


def apply_class_weight(class_weight, y, sample_weight):
    """Per-example weights from `class_weight` (sparse or one-hot labels), times sample_weight."""
    if not class_weight:
        return sample_weight
    if not isinstance(y, Tensor):
        raise InvalidArgumentError(
            "class_weight needs one target array; for several outputs, pass per-example "
            "weights with sample_weight (a dict by output name) instead"
        )
    labels = np.asarray(y.numpy())
    if labels.ndim == 2 and labels.shape[1] > 1:
        labels = labels.argmax(axis=1)
    labels = labels.reshape(len(labels)).astype(np.int64)
    weights = np.array([class_weight.get(int(c), 1.0) for c in labels], dtype=np.float32)
    if sample_weight is not None:
        weights = weights * np.asarray(sample_weight.numpy(), dtype=np.float32)
    return convert_to_tensor(weights)
