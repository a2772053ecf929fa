"""`ks.nn`: activations, losses on logits, sampled losses, convolution, pooling, dropout,
embeddings."""

from kerasish.core.ops.math_ops import (  # noqa: F401
    elu,
    gelu,
    leaky_relu,
    log_sigmoid,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    softplus,
    softsign,
    swish,
    tanh,
)
from kerasish.core.ops.nn_ops import (  # noqa: F401
    avg_pool2d,
    bias_add,
    conv1d,
    conv2d,
    conv2d_transpose,
    depthwise_conv2d,
    dropout,
    embedding_lookup,
    extract_patches,
    l2_loss,
    l2_normalize,
    log_softmax,
    max_pool2d,
    moments,
    patches_to_image,
    separable_conv2d,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from kerasish.core.ops.sampled_loss_ops import (  # noqa: F401
    compute_accidental_hits,
    nce_loss,
    sampled_softmax_loss,
)

max_pool = max_pool2d
avg_pool = avg_pool2d
