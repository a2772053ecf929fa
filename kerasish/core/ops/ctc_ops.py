"""Connectionist temporal classification (Graves et al., 2006): `ctc_loss` and `ctc_decode`.

`ctc_loss` is the negative log-likelihood of a label sequence under all alignments of
per-frame class scores, by the forward (alpha) recursion in log space, as Keras 3 and
optax write it: the alphas of the blank states ("phi", one more than the labels) and of the
label states ("emit") advance one frame at a time, impossible transitions weighted
exp(-1e5) rather than excluded, frames past a sequence's length carrying the alphas
unchanged. It is composed of kerasish ops (each log-add-exp a `reduce_logsumexp` over a
pair, whose gradient is the pair's softmax), so its gradient is the recursion's own: one
set of ops per frame, for frame counts of speech and handwriting (hundreds).

`ctc_decode` (no gradient) reads the best label sequences: greedy (the best class per
frame, repeats merged, blanks dropped) or a prefix beam search over the frame-wise log
probabilities, which sums the probabilities of all alignments of a prefix.
"""

from __future__ import annotations

import math

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import einsum_ops, math_ops, nn_ops, reduction_ops, shape_ops
from kerasish.core.tensor import Tensor, convert_to_tensor

_LOG_EPSILON = -1e5  # the log weight of an impossible transition (Keras's, optax's)


def _logaddexp(a: Tensor, b: Tensor) -> Tensor:
    return nn_ops.reduce_logsumexp(shape_ops.stack([a, b]), 0)


def _like(array: np.ndarray, x: Tensor) -> Tensor:
    """A NumPy constant on `x`'s device."""
    return Tensor(backend.to_device(array, backend.device_of(x._value)))


def _int_array(value, name: str, what: str) -> np.ndarray:
    array = np.asarray(convert_to_tensor(value).numpy())
    if array.dtype.kind not in "iu":
        raise InvalidArgumentError(f"{name}: {what} must hold integers, got {array.dtype}")
    return array.astype(np.int64)


def ctc_loss(target, output, target_length, output_length, mask_index: int = 0) -> Tensor:
    """The CTC loss per sequence: -log p(target | output), summed over the alignments of
    the first `target_length` labels to the first `output_length` frames.

    Args:
        target: (batch, max_label_length) integer labels (entries past a sequence's length
            are ignored).
        output: (batch, max_frames, num_classes) logits (log-softmaxed here).
        target_length: (batch,) label counts.
        output_length: (batch,) frame counts.
        mask_index: the blank class.

    Returns:
        (batch,) losses, of `output`'s floating dtype (float32 for integers).

    Raises:
        InvalidArgumentError: shapes that do not fit, or non-integer labels or lengths.

    Example:
        >>> import numpy as np
        >>> from kerasish.core.ops.ctc_ops import ctc_loss
        >>> logits = np.zeros((1, 2, 2), np.float32)  # 2 frames, blank 0 and label 1
        >>> round(float(ctc_loss([[1]], logits, [1], [2])[0]), 4)  # 3 of 4 paths give "1"
        0.2877
    """
    name = "ctc_loss"
    output = convert_to_tensor(output)
    if output.dtype.kind != "f":
        output = math_ops.cast(output, np.float32)
    labels = _int_array(target, name, "target")
    label_lengths = _int_array(target_length, name, "target_length").reshape(-1)
    frame_lengths = _int_array(output_length, name, "output_length").reshape(-1)
    if output.ndim != 3 or labels.ndim != 2 or labels.shape[0] != output.shape[0] or not (
            label_lengths.shape == frame_lengths.shape == (output.shape[0],)):
        raise InvalidArgumentError(
            f"{name}: needs target (batch, labels), output (batch, frames, classes) and "
            f"lengths (batch,); got target {labels.shape}, output {output.shape}, "
            f"target_length {label_lengths.shape}, output_length {frame_lengths.shape}")
    if not 0 <= mask_index < output.shape[2]:
        raise InvalidArgumentError(
            f"{name}: mask_index {mask_index} is out of range for {output.shape[2]} classes")
    batch, frames, classes = output.shape
    count = labels.shape[1]
    dtype = output.dtype
    logprobs = nn_ops.log_softmax(output, -1)
    hot = np.eye(classes, dtype=dtype)[np.clip(labels, 0, classes - 1)]  # (B, N, K)
    emit_probs = einsum_ops.einsum("btk,bnk->tbn", logprobs, _like(hot, output))
    blank_probs = shape_ops.transpose(logprobs[:, :, mask_index:mask_index + 1], (1, 0, 2))
    repeat = np.zeros((batch, count), dtype)
    repeat[:, :-1] = labels[:, :-1] == labels[:, 1:]
    no_repeat_penalty = _like(_LOG_EPSILON * (1.0 - repeat), output)
    repeat_penalty = _like(_LOG_EPSILON * repeat, output)
    padded = (np.arange(frames)[:, None] >= frame_lengths[None, :]).astype(dtype)[:, :, None]

    def add_to_tail(phi, score):  # phi[:, 1:] log-added with score
        return shape_ops.concat([phi[:, :1], _logaddexp(phi[:, 1:], score)], 1)

    start = np.full((batch, count + 1), _LOG_EPSILON, dtype)
    start[:, 0] = 0.0
    phi = _like(start, output)
    emit = _like(np.full((batch, count), _LOG_EPSILON, dtype), output)
    for t in range(frames):
        # emit-to-blank moves, except into a repeated label
        moved = add_to_tail(phi, emit + repeat_penalty)
        next_emit = _logaddexp(moved[:, :-1] + emit_probs[t], emit + emit_probs[t])
        next_phi = add_to_tail(moved + blank_probs[t],
                               emit + blank_probs[t] + no_repeat_penalty)
        if padded[t].any():
            pad = _like(padded[t], output)
            next_emit = pad * emit + (1.0 - pad) * next_emit
            next_phi = pad * phi + (1.0 - pad) * next_phi
        phi, emit = next_phi, next_emit
    final = add_to_tail(phi, emit)
    picked = np.eye(count + 1, dtype=dtype)[np.clip(label_lengths, 0, count)]
    return math_ops.negative(reduction_ops.reduce_sum(final * _like(picked, output), 1))


def _greedy(scores: np.ndarray, lengths: np.ndarray, merge_repeated: bool, blank: int):
    batch, frames, _ = scores.shape
    best = scores.argmax(-1)
    beyond = np.arange(frames)[None, :] >= lengths[:, None]
    best = np.where(beyond, blank, best)
    total = -np.where(beyond, 0.0, scores.max(-1)).sum(1, keepdims=True)
    if merge_repeated:
        repeated = np.zeros_like(beyond)
        repeated[:, 1:] = best[:, 1:] == best[:, :-1]
        best = np.where(repeated, blank, best)
    paths = np.full((batch, frames), -1, np.int32)
    for b in range(batch):
        kept = best[b][best[b] != blank]
        paths[b, :len(kept)] = kept
    return paths[None], total.astype(scores.dtype)


def _log_add(a: float, b: float) -> float:
    if a < b:
        a, b = b, a
    return a if b == -math.inf else a + math.log1p(math.exp(b - a))


def _beam_search(logprobs: np.ndarray, length: int, beam_width: int, top_paths: int,
                 blank: int) -> tuple:
    """The `top_paths` best label sequences of one example and their log probabilities
    (each the log-sum over its alignments among the beams kept).

    Each frame scores every extension of every beam by a class at once (an array of beams
    by classes); only the `beam_width` best extensions, and those that land on a beam kept
    already (whose probabilities add up), can survive, so only they enter the table."""
    beams = {(): (0.0, -math.inf)}  # prefix: (log p ending in blank, log p ending in a label)
    classes = logprobs.shape[1]
    for t in range(length):
        row = logprobs[t]
        grown: dict = {}

        def add(prefix, blank_part, label_part, grown=grown):
            old_blank, old_label = grown.get(prefix, (-math.inf, -math.inf))
            grown[prefix] = (_log_add(old_blank, blank_part), _log_add(old_label, label_part))

        prefixes = list(beams)
        position = {prefix: i for i, prefix in enumerate(prefixes)}
        parts = np.array([beams[p] for p in prefixes])  # (beams, 2)
        totals = np.logaddexp(parts[:, 0], parts[:, 1])
        extended = totals[:, None] + row[None, :]  # a new label after any ending
        for i, prefix in enumerate(prefixes):
            add(prefix, float(totals[i] + row[blank]), -math.inf)
            if prefix:  # the repeated label: only after a blank; else it merges into prefix
                last = prefix[-1]
                extended[i, last] = parts[i, 0] + row[last]
                add(prefix, -math.inf, float(parts[i, 1] + row[last]))
        extended[:, blank] = -np.inf
        flat = extended.reshape(-1)
        keep = min(beam_width, flat.size)
        chosen = set(np.argpartition(-flat, keep - 1)[:keep].tolist())
        for prefix in prefixes:  # extensions that are beams already
            if prefix and prefix[:-1] in beams:
                chosen.add(position[prefix[:-1]] * classes + prefix[-1])
        for index in chosen:
            i, c = divmod(index, classes)
            if c != blank and flat[index] > -np.inf:
                add(prefixes[i] + (c,), -math.inf, float(flat[index]))
        ranked = sorted(grown.items(), key=lambda item: -_log_add(*item[1]))
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda item: -_log_add(*item[1]))[:top_paths]
    return [p for p, _ in ranked], [_log_add(*s) for _, s in ranked]


def ctc_decode(inputs, sequence_lengths, strategy: str = "greedy", beam_width: int = 100,
               top_paths: int = 1, merge_repeated: bool = True, mask_index: int = 0) -> tuple:
    """The most likely label sequences of per-frame class scores (no gradient).

    Greedy takes the best class of each frame, merges repeats (with `merge_repeated`) and
    drops blanks; its score is minus the sum of the chosen raw scores. Beam search runs a
    prefix beam search over the log-softmax of `inputs`, keeping `beam_width` prefixes per
    frame; a score is the log probability of a sequence (summed over its alignments).

    Args:
        inputs: (batch, frames, num_classes) scores (logits or probabilities for greedy).
        sequence_lengths: (batch,) frame counts.
        strategy: 'greedy' or 'beam_search'.
        beam_width: the prefixes kept per frame (beam search).
        top_paths: the sequences returned per example (beam search; greedy gives 1).
        merge_repeated: merge repeated classes (greedy; beam search always merges those
            not separated by a blank, as CTC does).
        mask_index: the blank class (None: the last class).

    Returns:
        (paths, scores): paths (top_paths, batch, frames) int32, each row the labels then
        -1 padding; scores (batch, top_paths).

    Raises:
        InvalidArgumentError: another strategy, or shapes that do not fit.

    Example:
        >>> import numpy as np
        >>> from kerasish.core.ops.ctc_ops import ctc_decode
        >>> scores = np.log(np.array([[[.1, .9], [.1, .9], [.9, .1], [.1, .9]]], np.float32))
        >>> paths, _ = ctc_decode(scores, [4])
        >>> paths.numpy()[0].tolist()
        [[1, 1, -1, -1]]
    """
    name = "ctc_decode"
    scores = np.asarray(convert_to_tensor(inputs).numpy())
    if scores.dtype.kind != "f":
        scores = scores.astype(np.float32)
    lengths = _int_array(sequence_lengths, name, "sequence_lengths").reshape(-1)
    if scores.ndim != 3 or lengths.shape != (scores.shape[0],):
        raise InvalidArgumentError(
            f"{name}: needs inputs (batch, frames, classes) and sequence_lengths (batch,); "
            f"got {scores.shape} and {lengths.shape}")
    blank = scores.shape[2] - 1 if mask_index is None else int(mask_index)
    if strategy == "greedy":
        paths, total = _greedy(scores, np.minimum(lengths, scores.shape[1]), merge_repeated,
                               blank)
        return Tensor(paths), Tensor(total)
    if strategy != "beam_search":
        raise InvalidArgumentError(
            f"{name}: strategy must be 'greedy' or 'beam_search', got {strategy!r}")
    shifted = scores - scores.max(-1, keepdims=True)
    logprobs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    batch, frames, _ = scores.shape
    paths = np.full((top_paths, batch, frames), -1, np.int32)
    totals = np.full((batch, top_paths), -np.inf, scores.dtype)
    for b in range(batch):
        found, found_scores = _beam_search(logprobs[b], min(int(lengths[b]), frames),
                                           int(beam_width), int(top_paths), blank)
        for k, (path, score) in enumerate(zip(found, found_scores)):
            paths[k, b, :len(path)] = path
            totals[b, k] = score
    return Tensor(paths), Tensor(totals)
