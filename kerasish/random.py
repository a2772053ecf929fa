"""`ks.random`: seeded random draws and checkpointable generators (TF's and Keras 3's names).

The generator, its streams and the draws live in `kerasish.core.random`; this namespace adds
Keras's `dropout`.
"""

from kerasish.core.ops import nn_ops
from kerasish.core.random import (  # noqa: F401
    Generator,
    SeedGenerator,
    beta,
    binomial,
    categorical,
    gamma,
    get_global_generator,
    get_seed,
    log_uniform_candidate_sampler,
    normal,
    permutation,
    randint,
    restart_streams,
    set_global_generator,
    set_seed,
    shuffle,
    truncated_normal,
    uniform,
)


def dropout(inputs, rate: float, noise_shape=None, seed=None):
    """Keras 3's `keras.random.dropout`: `ks.nn.dropout` under Keras's argument names (zero with
    probability `rate`, scale the rest by 1 / (1 - rate)).

    Args:
        inputs: a tensor.
        rate: the probability of zeroing each element, in [0, 1).
        noise_shape: the shape of the mask, broadcast over `inputs` (None: the inputs').
        seed: None (the global stream), an integer (a stream of its own for this
            (global seed, seed) pair) or a `Generator`/`SeedGenerator` (its next
            values, drawn on the host).

    Returns:
        A tensor like `inputs`.

    Example:
        >>> import kerasish as ks
        >>> out = ks.random.dropout(ks.ones([8]), 0.5, seed=ks.random.SeedGenerator(2))
        >>> sorted(set(out.numpy().tolist())) in ([0.0, 2.0], [0.0], [2.0])
        True
    """
    return nn_ops.dropout(inputs, rate, noise_shape=noise_shape, seed=seed)
