"""`ks.utils.audio_dataset_from_directory`: WAV files in class folders as a dataset.

The files are read with the standard library's `wave` module (PCM WAV, 8/16/24/32-bit
integer samples), scaled to float32 in [-1, 1] as `tf.audio.decode_wav` does, and batched
with zero padding to the longest clip of each batch (or cut/padded to
`output_sequence_length`), as Keras makes them.
"""

from __future__ import annotations

import wave

import numpy as np

from kerasish.data._directory import (
    _LABEL_MODES,
    _index_directory,
    _labelled,
    _shuffled,
    _subsets,
)
from kerasish.data.dataset import Dataset


def read_wav(path: str):
    """(samples as float32 (frames, channels) in [-1, 1], frames per second) of a WAV file."""
    try:
        with wave.open(path, "rb") as handle:
            channels, width = handle.getnchannels(), handle.getsampwidth()
            rate, frames = handle.getframerate(), handle.readframes(handle.getnframes())
    except (wave.Error, EOFError) as exc:
        raise ValueError(f"audio_dataset_from_directory: {path} is not a PCM WAV file the "
                         f"standard library's wave module reads ({exc})") from exc
    raw = np.frombuffer(frames, np.uint8)
    if width == 1:  # 8-bit WAV is unsigned
        samples = (raw.astype(np.float32) - 128.0) / 128.0
    elif width == 3:
        triples = raw.reshape(-1, 3).astype(np.int32)
        values = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        values = np.where(values >= 1 << 23, values - (1 << 24), values)
        samples = values.astype(np.float32) / float(1 << 23)
    else:
        kind = {2: "<i2", 4: "<i4"}[width]
        samples = np.frombuffer(frames, kind).astype(np.float32) / float(1 << (8 * width - 1))
    return samples.reshape(-1, channels), rate


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """A dataset of the `.wav` files under `directory`: (audio, labels) batches, labels from
    the class subdirectories (Keras 3's arguments and defaults).

    Each clip is float32 of shape (frames, channels) in [-1, 1]; a batch is zero-padded to
    its longest clip, as Keras does.

    Args:
        directory: a folder with one subdirectory of `.wav` files per class (or just files
            when `labels` is None or a list).
        labels: 'inferred' (from the subdirectories), None, or one label per file in
            sorted path order.
        label_mode: 'int', 'categorical', 'binary' or None (no labels).
        class_names: the classes' order (must name the subdirectories).
        batch_size: the batch size (None: single clips).
        sampling_rate: the frames per second every file must have (None: not checked).
            Keras resamples through tensorflow-io; kerasish does not resample and raises
            for a file at another rate.
        output_sequence_length: cut or zero-pad every clip to this many frames.
        ragged: Keras's ragged batches need `tf.RaggedTensor`, which kerasish lacks: True
            raises (use output_sequence_length or the padded batches).
        shuffle: shuffle the files once (with `seed`) and each epoch's order.
        seed: the shuffles' seed.
        validation_split: the fraction kept for validation (the last files after the
            shuffle).
        subset: 'training', 'validation' or 'both' (then a (training, validation) pair).
        follow_links: follow symbolic links to subdirectories.
        verbose: print how many files and classes were found and used.

    Returns:
        A `ks.data.Dataset` (or two, for subset='both') of (audio, label) batches.

    Raises:
        ValueError: for arguments Keras refuses, `ragged=True`, or a file that is not PCM
            WAV or not at `sampling_rate`.

    Example:
        >>> import os, tempfile, wave
        >>> import kerasish as ks
        >>> root = tempfile.mkdtemp()
        >>> for label, frames in (("no", 3), ("yes", 5)):
        ...     os.mkdir(os.path.join(root, label))
        ...     with wave.open(os.path.join(root, label, "a.wav"), "wb") as f:
        ...         f.setnchannels(1); f.setsampwidth(2); f.setframerate(8000)
        ...         f.writeframes(b"\\x00\\x40" * frames)
        >>> ds = ks.utils.audio_dataset_from_directory(root, batch_size=2, shuffle=False)
        Found 2 files belonging to 2 classes.
        >>> audio, labels = next(iter(ds))
        >>> audio.shape, labels.numpy().tolist(), float(audio[0, 0, 0])
        ((2, 5, 1), [0, 1], 0.5)
    """
    what = "audio_dataset_from_directory"
    if ragged:
        raise ValueError(f"{what}: ragged=True makes tf.RaggedTensor batches, which kerasish "
                         "does not have; leave ragged=False (batches are zero-padded to their "
                         "longest clip) or give output_sequence_length")
    if label_mode not in _LABEL_MODES:
        raise ValueError(f"{what}: label_mode must be one of {_LABEL_MODES}, got {label_mode!r}")
    if output_sequence_length is not None and int(output_sequence_length) <= 0:
        raise ValueError(f"{what}: output_sequence_length must be positive, got "
                         f"{output_sequence_length!r}")
    if labels is None:
        label_mode = None
    paths, indices, classes = _index_directory(directory, labels, class_names, (".wav",),
                                               follow_links, what)
    paths, indices, seed = _shuffled(paths, indices, shuffle, seed)
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(classes)} classes.")
    datasets = []
    for name, part in _subsets(len(paths), validation_split, subset, what).items():
        clips = []
        for path in paths[part]:
            samples, rate = read_wav(path)
            if sampling_rate is not None and rate != sampling_rate:
                raise ValueError(f"{what}: {path} is sampled at {rate} Hz, not sampling_rate="
                                 f"{sampling_rate}; kerasish does not resample (Keras uses "
                                 "tensorflow-io for it)")
            if output_sequence_length is not None:
                samples = _fit(samples, int(output_sequence_length))
            clips.append(samples)
        if verbose and name is not None:
            print(f"Using {len(clips)} files for {name}.")
        positions = np.arange(len(clips), dtype=np.int64)
        elements = _labelled(positions, indices, part, label_mode, labels, classes, what)
        dataset = Dataset.from_tensor_slices(elements)
        if shuffle and batch_size is not None:
            dataset = dataset.shuffle(batch_size * 8, seed=seed)
        if batch_size is not None:
            dataset = dataset.batch(batch_size)
        dataset = dataset.map(_gatherer(clips, batch_size is not None, label_mode is None))
        dataset.class_names = classes
        datasets.append(dataset)
    return tuple(datasets) if subset == "both" else datasets[0]


def _fit(samples, length: int):
    if len(samples) >= length:
        return samples[:length]
    return np.concatenate([samples, np.zeros((length - len(samples),) + samples.shape[1:],
                                             samples.dtype)])


def _gatherer(clips, batched: bool, unlabelled: bool):
    """The map from positions (and labels) to zero-padded clips (and labels)."""
    def gather(positions, *label):
        chosen = np.asarray(positions.numpy())
        if not batched:
            audio = clips[int(chosen)]
        else:
            longest = max(len(clips[i]) for i in chosen)
            audio = np.stack([_fit(clips[i], longest) for i in chosen])
        return audio if unlabelled else (audio, label[0])
    return gather
