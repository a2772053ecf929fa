"""`ks.nn`: activations, losses on logits, sampled losses, convolution, pooling, dropout,
embeddings (the names come from the table in `kerasish.ops.namespaces`)."""

from kerasish.ops import namespaces as _namespaces

globals().update(_namespaces.public_ops("nn"))
