"""Datasets from files on disk and dataset splitting (`ks.utils.text_dataset_from_directory`,
`image_dataset_from_directory`, `split_dataset`), with Keras 3's arguments.

A directory of class subdirectories is indexed as Keras indexes it: classes are the
subdirectory names in alphanumeric order (or `class_names`), files are taken in sorted
order within each, and the whole list is shuffled once with `seed` before a validation
split takes its last `validation_split` fraction, so the training and validation subsets
of one seed never share a file.
"""

from __future__ import annotations

import os

import numpy as np

from kerasish.core import nest
from kerasish.core import random as ks_random
from kerasish.core.ops import image_ops
from kerasish.data.dataset import Dataset

_LABEL_MODES = ("int", "categorical", "binary", None)
_SUBSETS = ("training", "validation", "both", None)


def _index_directory(directory, labels, class_names, extensions, follow_links, what):
    """(file paths, integer labels or None, class names) of a directory, in Keras's order."""
    if not os.path.isdir(directory):
        raise ValueError(f"{what}: directory {directory!r} does not exist or is not a folder")
    if labels == "inferred":
        found = sorted(e for e in os.listdir(directory)
                       if os.path.isdir(os.path.join(directory, e)))
        if class_names is not None:
            if sorted(class_names) != sorted(found):
                raise ValueError(f"{what}: class_names {list(class_names)} do not match the "
                                 f"subdirectories of {directory!r}: {found}")
            found = list(class_names)
        folders = [(os.path.join(directory, name), index) for index, name in enumerate(found)]
    else:
        found, folders = [], [(directory, None)]
    paths, indices = [], []
    for folder, index in folders:
        files = []
        for root, _, names in os.walk(folder, followlinks=follow_links):
            files += [os.path.join(root, n) for n in names if n.lower().endswith(extensions)]
        files.sort()
        paths += files
        indices += [index] * len(files)
    if labels in ("inferred", None):
        return paths, (np.asarray(indices, np.int64) if labels else None), found
    labels = np.asarray(labels)
    if len(labels) != len(paths):
        raise ValueError(f"{what}: labels has {len(labels)} entries but {directory!r} holds "
                         f"{len(paths)} files ({', '.join(extensions)})")
    return paths, labels, found


def _encode_labels(labels, label_mode, num_classes: int, what: str):
    if label_mode == "int":
        return labels.astype(np.int32)
    if label_mode == "binary":
        if num_classes != 2:
            raise ValueError(f"{what}: label_mode='binary' needs exactly 2 classes, found "
                             f"{num_classes}")
        return labels.astype(np.float32).reshape(-1, 1)
    return np.eye(num_classes, dtype=np.float32)[labels]  # categorical


def _subsets(count: int, validation_split, subset, what: str) -> dict:
    """{subset: slice} of the shuffled files: training first, validation the last part."""
    if subset not in _SUBSETS:
        raise ValueError(f"{what}: subset must be one of {_SUBSETS}, got {subset!r}")
    if validation_split is None:
        if subset is not None:
            raise ValueError(f"{what}: subset={subset!r} needs a validation_split")
        return {None: slice(0, count)}
    if not 0 < validation_split < 1:
        raise ValueError(f"{what}: validation_split must be in (0, 1), got {validation_split!r}")
    if subset is None:
        raise ValueError(f"{what}: with validation_split, subset must be 'training', "
                         "'validation' or 'both'")
    cut = count - int(validation_split * count)
    parts = {"training": slice(0, cut), "validation": slice(cut, count)}
    return parts if subset == "both" else {subset: parts[subset]}


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None,
                                shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):  # noqa: A002
    """A dataset of the `.txt` files under `directory`: (texts, labels) batches, labels from
    the class subdirectories (Keras 3's arguments and defaults).

    Args:
        directory: a folder with one subdirectory of `.txt` files per class (or just files
            when `labels` is None or a list).
        labels: 'inferred' (from the subdirectories), None, or one label per file in
            sorted path order.
        label_mode: 'int', 'categorical' (one-hot float32), 'binary' (float32 0/1, two
            classes) or None (no labels).
        class_names: the classes' order (must name the subdirectories).
        batch_size: the batch size (None: single examples).
        max_length: texts longer than this many characters are cut.
        shuffle: shuffle the files once (with `seed`) and each epoch's order.
        seed: the shuffles' seed.
        validation_split: the fraction kept for validation (the last files after the
            shuffle).
        subset: 'training', 'validation' or 'both' (then a (training, validation) pair).
        follow_links: follow symbolic links to subdirectories.
        format: 'tf' (Keras's default; here a `ks.data.Dataset`).
        verbose: print how many files and classes were found and used.

    Returns:
        A `ks.data.Dataset` (or two, for subset='both') of (text, label) elements (text
        only when `label_mode` is None), texts as Python strings in a NumPy array.

    Raises:
        ValueError: for arguments Keras refuses (a missing directory, a split without a
            subset, 'binary' with other than two classes, ...).

    Example:
        >>> import os, tempfile
        >>> import kerasish as ks
        >>> root = tempfile.mkdtemp()
        >>> for label in ("neg", "pos"):
        ...     os.mkdir(os.path.join(root, label))
        ...     with open(os.path.join(root, label, "a.txt"), "w") as f:
        ...         _ = f.write(f"a {label} review")
        >>> ds = ks.utils.text_dataset_from_directory(root, batch_size=2, shuffle=False)
        Found 2 files belonging to 2 classes.
        >>> texts, labels = next(iter(ds))
        >>> texts.numpy().tolist(), labels.numpy().tolist()
        (['a neg review', 'a pos review'], [0, 1])
    """
    what = "text_dataset_from_directory"
    if format != "tf":
        raise ValueError(f"{what}: format must be 'tf' (a ks.data.Dataset), got {format!r}")
    if label_mode not in _LABEL_MODES:
        raise ValueError(f"{what}: label_mode must be one of {_LABEL_MODES}, got {label_mode!r}")
    if labels is None:
        label_mode = None
    paths, indices, classes = _index_directory(directory, labels, class_names, (".txt",),
                                               follow_links, what)
    paths, indices, seed = _shuffled(paths, indices, shuffle, seed)
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(classes)} classes.")
    datasets = []
    for name, part in _subsets(len(paths), validation_split, subset, what).items():
        texts = []
        for path in paths[part]:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            texts.append(text if max_length is None else text[:max_length])
        elements = _labelled(np.asarray(texts, dtype=str), indices, part, label_mode, labels,
                             classes, what)
        if verbose and name is not None:
            print(f"Using {len(texts)} files for {name}.")
        dataset = Dataset.from_tensor_slices(elements)
        if shuffle and batch_size is not None:
            dataset = dataset.shuffle(batch_size * 8, seed=seed)
        datasets.append(dataset.batch(batch_size) if batch_size is not None else dataset)
        datasets[-1].class_names = classes
    return tuple(datasets) if subset == "both" else datasets[0]


_IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_COLOR_MODES = {"rgb": "RGB", "grayscale": "L", "rgba": "RGBA"}


def _shuffled(paths, indices, shuffle: bool, seed):
    """Keras's one shuffle of the file list (and labels) before a split; and the seed."""
    if not shuffle:
        return paths, indices, seed
    if seed is None:  # (reproducible after ks.random.set_seed)
        seed = int(ks_random.get_global_generator()._current().integers(10 ** 6))
    order = np.random.RandomState(seed).permutation(len(paths))
    return [paths[i] for i in order], None if indices is None else indices[order], seed


def _labelled(elements, indices, part, label_mode, labels, classes, what):
    """`elements` with their encoded labels (or alone, without labels)."""
    if label_mode is None:
        return elements
    count = len(classes) if labels == "inferred" else int(indices.max()) + 1
    return elements, _encode_labels(indices[part], label_mode, count, what)


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf",  # noqa: A002
                                 verbose=True):
    """A dataset of the images under `directory` (.bmp, .gif, .jpeg, .jpg, .png): float32
    batches of `image_size`, labels from the class subdirectories (Keras 3's arguments).

    Files are indexed, shuffled and split as `text_dataset_from_directory` does; each image
    is decoded (Pillow) and resized when its batch is made.

    Args:
        directory: a folder with one subdirectory of images per class.
        labels: 'inferred', None, or one label per file in sorted path order.
        label_mode: 'int', 'categorical', 'binary' or None.
        class_names: the classes' order.
        color_mode: 'rgb' (3 channels), 'grayscale' (1) or 'rgba' (4).
        batch_size: the batch size (None: single images).
        image_size: the (height, width) every image is resized to.
        shuffle: shuffle the files once (with `seed`) and each epoch's order.
        seed: the shuffles' seed.
        validation_split: the fraction kept for validation.
        subset: 'training', 'validation' or 'both'.
        interpolation: 'bilinear' or 'nearest'.
        follow_links: follow symbolic links to subdirectories.
        crop_to_aspect_ratio: crop the largest centred window of the target's aspect first.
        pad_to_aspect_ratio: pad to the target's aspect first.
        data_format: 'channels_last' (default) or 'channels_first'.
        format: 'tf' (a `ks.data.Dataset`).
        verbose: print how many files and classes were found and used.

    Returns:
        A `ks.data.Dataset` (or two, for subset='both') of (images, labels).

    Raises:
        ImportError: without Pillow (`pip install pillow`).
        ValueError: for arguments Keras refuses.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> from PIL import Image
        >>> root = tempfile.mkdtemp()
        >>> for label in ("cats", "dogs"):
        ...     os.mkdir(os.path.join(root, label))
        ...     pixels = np.full((6, 8, 3), 40 if label == "cats" else 200, np.uint8)
        ...     Image.fromarray(pixels).save(os.path.join(root, label, "a.png"))
        >>> ds = ks.utils.image_dataset_from_directory(root, image_size=(3, 4), shuffle=False)
        Found 2 files belonging to 2 classes.
        >>> images, labels = next(iter(ds))
        >>> images.shape, labels.numpy().tolist(), float(images.numpy()[1].mean())
        ((2, 3, 4, 3), [0, 1], 200.0)
    """
    from PIL import Image  # (an optional dependency: only this function needs it)

    what = "image_dataset_from_directory"
    if format != "tf":
        raise ValueError(f"{what}: format must be 'tf' (a ks.data.Dataset), got {format!r}")
    if label_mode not in _LABEL_MODES:
        raise ValueError(f"{what}: label_mode must be one of {_LABEL_MODES}, got {label_mode!r}")
    if color_mode not in _COLOR_MODES:
        raise ValueError(f"{what}: color_mode must be one of {tuple(_COLOR_MODES)}, got "
                         f"{color_mode!r}")
    if len(tuple(image_size)) != 2:
        raise ValueError(f"{what}: image_size must be (height, width), got {image_size!r}")
    if labels is None:
        label_mode = None
    paths, indices, classes = _index_directory(directory, labels, class_names,
                                               _IMAGE_EXTENSIONS, follow_links, what)
    paths, indices, seed = _shuffled(paths, indices, shuffle, seed)
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(classes)} classes.")

    def load(path):
        with Image.open(str(path.numpy())) as image:
            pixels = np.asarray(image.convert(_COLOR_MODES[color_mode]), np.float32)
        if pixels.ndim == 2:
            pixels = pixels[:, :, None]
        if data_format == "channels_first":
            pixels = np.moveaxis(pixels, -1, 0)
        return image_ops.resize(pixels, tuple(image_size), interpolation=interpolation,
                                crop_to_aspect_ratio=crop_to_aspect_ratio,
                                pad_to_aspect_ratio=pad_to_aspect_ratio,
                                data_format=data_format)

    datasets = []
    for name, part in _subsets(len(paths), validation_split, subset, what).items():
        files = np.asarray(paths[part], dtype=str)
        if verbose and name is not None:
            print(f"Using {len(files)} files for {name}.")
        dataset = Dataset.from_tensor_slices(
            _labelled(files, indices, part, label_mode, labels, classes, what))
        if shuffle and batch_size is not None:
            dataset = dataset.shuffle(batch_size * 8, seed=seed)
        dataset = dataset.map(lambda path, *label: (load(path), *label) if label
                              else load(path))
        datasets.append(dataset.batch(batch_size) if batch_size is not None else dataset)
        datasets[-1].class_names = classes
    return tuple(datasets) if subset == "both" else datasets[0]


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None,
                  preferred_backend=None):
    """Split arrays (or a tuple/dict of them) or an unbatched dataset in two datasets.

    Args:
        dataset: arrays with a first axis of examples, or an unbatched `ks.data.Dataset`.
        left_size, right_size: each a fraction in (0, 1) or a number of examples; when one
            is None it takes the rest, and when both are, `left_size` is 0.5.
        shuffle: shuffle the examples (with `seed`) before splitting.
        seed: the shuffle's seed.
        preferred_backend: Keras's choice of dataset library; here always a
            `ks.data.Dataset`.

    Returns:
        (left, right) `ks.data.Dataset`s.

    Raises:
        ValueError: sizes that do not fit the number of examples.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> left, right = ks.utils.split_dataset(np.arange(10), left_size=0.8)
        >>> len(left), len(right)
        (8, 2)
    """
    del preferred_backend
    if isinstance(dataset, Dataset):
        items = list(dataset)
        structure = items[0] if items else ()
        columns = [np.stack([np.asarray(nest.flatten(item)[k]) for item in items])
                   for k in range(len(nest.flatten(structure)))]
        arrays = nest.pack_sequence_as(structure, columns)
    else:
        arrays = nest.pack_sequence_as(dataset, [np.asarray(leaf)
                                                 for leaf in nest.flatten(dataset)])
    count = len(nest.flatten(arrays)[0]) if nest.flatten(arrays) else 0
    left, right = _split_sizes(count, left_size, right_size)
    order = (np.random.RandomState(seed).permutation(count) if shuffle
             else np.arange(count))

    def part(rows):
        return Dataset.from_tensor_slices(nest.pack_sequence_as(
            arrays, [leaf[rows] for leaf in nest.flatten(arrays)]))

    return part(order[:left]), part(order[left:left + right])


def _split_sizes(count: int, left_size, right_size) -> tuple:
    def size(value, name):
        if value is None:
            return None
        if isinstance(value, float):
            if not 0 < value < 1:
                raise ValueError(f"split_dataset: {name} as a fraction must be in (0, 1), got "
                                 f"{value}")
            return int(round(value * count))
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
            raise ValueError(f"split_dataset: {name} must be a fraction or a positive number of "
                             f"examples, got {value!r}")
        return int(value)

    left, right = size(left_size, "left_size"), size(right_size, "right_size")
    if left is None and right is None:
        left = count // 2
    if left is None:
        left = count - right
    if right is None:
        right = count - left
    if left < 0 or right < 0 or left + right > count:
        raise ValueError(f"split_dataset: left_size={left_size!r} and right_size={right_size!r}"
                         f" ask for {left} + {right} examples of {count}")
    return left, right
