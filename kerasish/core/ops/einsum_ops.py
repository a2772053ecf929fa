"""Einstein summation composed of transposes, reshapes, sums and batched matmuls, so its
gradient comes from theirs (to any order)."""

from __future__ import annotations

import numpy as np

from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops, reduction_ops, shape_ops
from kerasish.core.symbolic import symbolic_fallback
from kerasish.core.tensor import Tensor, convert_to_tensor


@symbolic_fallback
def einsum(subscripts: str, *operands) -> Tensor:
    """Einstein summation, as `np.einsum` (explicit `->` or NumPy's implicit output).

    Composed of transposes, reshapes, sums and one batched `matmul` per pair of
    operands (left to right), so it is differentiable to any order. Each letter
    names one axis per operand: ellipses and repeated letters within one operand
    (diagonals) are not taken.

    Args:
        subscripts: one group of letters per operand, comma-separated, and optionally
            `->` and the output's letters (else the letters used once, sorted).
        *operands: the tensors, one per group.

    Returns:
        The contracted tensor.

    Raises:
        InvalidArgumentError: the subscripts have an ellipsis or a repeated letter in one
            term, do not match the operands in number or rank, give one letter two sizes,
            or name an output letter no input has.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> q, k = np.ones((2, 3, 4, 5)), np.ones((2, 6, 4, 5))
        >>> ks.ops.einsum("bqhd,bkhd->bhqk", q, k).shape
        (2, 4, 3, 6)
    """
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    terms = inputs.split(",")
    letters_only = all(term.isalpha() for term in terms)
    if "." in subscripts or len(terms) != len(operands) or not letters_only:
        raise InvalidArgumentError(
            f"einsum: {subscripts!r} for {len(operands)} operand(s): give one group of "
            "letters per operand (ellipses are not taken), e.g. 'ij,jk->ik'"
        )
    if not arrow:
        once = [c for c in sorted(set(inputs)) if c.isalpha() and inputs.count(c) == 1]
        output = "".join(once)
    tensors = [convert_to_tensor(t) for t in operands]
    for term, tensor in zip(terms, tensors):
        if len(set(term)) != len(term) or len(term) != tensor.ndim:
            raise InvalidArgumentError(
                f"einsum: term {term!r} does not fit an operand of shape {tensor.shape} (one "
                "distinct letter per axis)"
            )
    term, result = terms[0], tensors[0]
    for index in range(1, len(terms)):
        later = output + "".join(terms[index + 1:])
        term, result = _contract(term, result, terms[index], tensors[index], later)
    return _reduce_to(term, result, output)


def _reduce_to(term: str, x: Tensor, output: str) -> Tensor:
    """Sum the axes of `x` (lettered by `term`) not in `output`, then order them as `output`."""
    summed = [i for i, c in enumerate(term) if c not in output]
    if summed:
        x = reduction_ops.reduce_sum(x, axis=summed)
        term = "".join(c for c in term if c in output)
    missing = set(output) - set(term)
    if missing:
        raise InvalidArgumentError(f"einsum: output letter(s) {sorted(missing)} are in no input")
    return x if term == output else shape_ops.transpose(x, [term.index(c) for c in output])


def _contract(a_term, a, b_term, b, later):
    """a and b combined into one tensor keeping the letters in `later` (batch, a's, b's)."""
    a_term_kept = "".join(c for c in a_term if c in b_term or c in later)
    b_term_kept = "".join(c for c in b_term if c in a_term or c in later)
    a, b = _reduce_to(a_term, a, a_term_kept), _reduce_to(b_term, b, b_term_kept)
    batch = [c for c in a_term_kept if c in b_term_kept and c in later]
    summed = [c for c in a_term_kept if c in b_term_kept and c not in later]
    left = [c for c in a_term_kept if c not in b_term_kept]
    right = [c for c in b_term_kept if c not in a_term_kept]
    sizes = {**dict(zip(b_term_kept, b.shape)), **dict(zip(a_term_kept, a.shape))}
    for c in batch + summed:
        if a.shape[a_term_kept.index(c)] != b.shape[b_term_kept.index(c)]:
            raise InvalidArgumentError(
                f"einsum: axis {c!r} has size {a.shape[a_term_kept.index(c)]} in one operand and "
                f"{b.shape[b_term_kept.index(c)]} in the other (shapes {a.shape} and {b.shape})"
            )

    def volume(letters):
        return int(np.prod([sizes[c] for c in letters], dtype=np.int64))

    a = shape_ops.reshape(_reduce_to(a_term_kept, a, "".join(batch + left + summed)),
                (volume(batch), volume(left), volume(summed)))
    b = shape_ops.reshape(_reduce_to(b_term_kept, b, "".join(batch + summed + right)),
                (volume(batch), volume(summed), volume(right)))
    term = "".join(batch + left + right)
    return term, shape_ops.reshape(math_ops.matmul(a, b), [sizes[c] for c in term])
