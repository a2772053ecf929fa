"""The one table of kerasish's public op names: which core op each of `ks` (the package
root), `ks.math`, `ks.nn`, `ks.linalg` and `ks.ops` shows, under which name.

Adding an op to a public namespace is one line here. Each row names a module of
`kerasish.core.ops`, the op, and the namespaces that show it: `math` shows it under its own
name, `ops:absolute` under another. The adapters of `ks.ops` (Keras's signatures and dtypes)
live in this package's other modules.
"""

from __future__ import annotations

from kerasish.core.ops import (
    activation_ops,
    clip_ops,
    conv_ops,
    creation_ops,
    cumulative_ops,
    einsum_ops,
    fft_ops,
    indexing_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    numpy_ops,
    product_ops,
    reduction_ops,
    sampled_loss_ops,
    shape_ops,
    sorting_ops,
)

_MODULES = {module.__name__.rpartition(".")[2]: module for module in (
    activation_ops, clip_ops, conv_ops, creation_ops, cumulative_ops, einsum_ops, indexing_ops,
    linalg_ops, math_ops, nn_ops, product_ops, reduction_ops, sampled_loss_ops, shape_ops,
    sorting_ops, fft_ops)}
_MODULES["numpy_ops"] = numpy_ops
NAMESPACES = ("ks", "math", "nn", "linalg", "ops")

_TABLE = """
activation_ops    elu                                       nn
activation_ops    gelu                                      nn
activation_ops    leaky_relu                                nn
activation_ops    log_sigmoid                               math nn
activation_ops    relu                                      nn ops
activation_ops    relu6                                     nn ops
activation_ops    selu                                      nn
activation_ops    sigmoid                                   ks math nn
activation_ops    silu                                      nn
activation_ops    softplus                                  math nn
activation_ops    softsign                                  math nn
activation_ops    swish                                     nn
clip_ops          clip_by_global_norm                       ks
clip_ops          clip_by_norm                              ks
clip_ops          clip_by_value                             ks
clip_ops          global_norm                               ks
conv_ops          adaptive_pool                             nn
conv_ops          avg_pool2d                                nn nn:avg_pool
conv_ops          avg_pool3d                                nn
conv_ops          conv1d                                    nn
conv_ops          conv2d                                    nn
conv_ops          conv2d_transpose                          nn
conv_ops          conv3d                                    nn
conv_ops          conv3d_transpose                          nn
conv_ops          depthwise_conv2d                          nn
conv_ops          extract_patches                           nn
conv_ops          extract_volume_patches                    nn
conv_ops          max_pool2d                                nn nn:max_pool
conv_ops          max_pool3d                                nn
conv_ops          patches_to_image                          nn
conv_ops          patches_to_volume                         nn
conv_ops          separable_conv2d                          nn
creation_ops      eye                                       ks linalg
creation_ops      fill                                      ks
creation_ops      identity                                  ks
creation_ops      linspace                                  ks
creation_ops      ones                                      ks
creation_ops      ones_like                                 ks ops
creation_ops      range                                     ks
creation_ops      rank                                      ks
creation_ops      shape                                     ks
creation_ops      size                                      ks
creation_ops      stop_gradient                             ks
creation_ops      zeros                                     ks
creation_ops      zeros_like                                ks ops
cumulative_ops    cumprod                                   ks math
cumulative_ops    cumsum                                    ks math
cumulative_ops    reduce_prod                               ks math
einsum_ops        einsum                                    ops
fft_ops           extract_sequences                         ops
fft_ops           fft                                       ops
fft_ops           fft2                                      ops
fft_ops           ifft2                                     ops
fft_ops           irfft                                     ops
fft_ops           istft                                     ops
fft_ops           rfft                                      ops
fft_ops           stft                                      ops
indexing_ops      bincount                                  ops
indexing_ops      boolean_mask                              ks
indexing_ops      flip                                      ops
indexing_ops      gather                                    ks
indexing_ops      gather_nd                                 ks
indexing_ops      nonzero                                   ops
indexing_ops      one_hot                                   ks
indexing_ops      repeat                                    ops
indexing_ops      roll                                      ops
indexing_ops      scatter                                   ops
indexing_ops      scatter_rows                              ks
indexing_ops      scatter_update                            ops
indexing_ops      slice                                     ops
indexing_ops      slice_update                              ops
indexing_ops      unsorted_segment_max                      math
indexing_ops      unsorted_segment_sum                      ks math
linalg_ops        cholesky                                  linalg
linalg_ops        det                                       linalg
linalg_ops        diag                                      ops
linalg_ops        diag_part                                 linalg
linalg_ops        diagonal                                  ops
linalg_ops        eigh                                      linalg
linalg_ops        inv                                       linalg
linalg_ops        logdet                                    linalg
linalg_ops        matrix_transpose                          linalg
linalg_ops        qr                                        ops
linalg_ops        slogdet                                   linalg ops
linalg_ops        solve                                     linalg
linalg_ops        svd                                       ops
linalg_ops        trace                                     linalg
linalg_ops        tril                                      ops
linalg_ops        triu                                      ops
math_ops          abs                                       ks math ops ops:absolute
math_ops          acos                                      math
math_ops          acosh                                     math
math_ops          add                                       ks math ops
math_ops          add_n                                     ks math
math_ops          asin                                      math
math_ops          asinh                                     math
math_ops          atan                                      math
math_ops          atan2                                     math
math_ops          atanh                                     math
math_ops          cast                                      ks
math_ops          ceil                                      ks math
math_ops          cos                                       ks math
math_ops          cosh                                      math
math_ops          divide                                    ks math ops ops:true_divide
math_ops          divide_no_nan                             math
math_ops          equal                                     ks math ops
math_ops          erf                                       math
math_ops          erfc                                      math
math_ops          erfinv                                    math
math_ops          exp                                       ks math
math_ops          expm1                                     ks math
math_ops          floor                                     ks math
math_ops          floordiv                                  ks math ops:floor_divide
math_ops          floormod                                  ks math
math_ops          greater                                   ks math ops
math_ops          greater_equal                             ks math ops
math_ops          isfinite                                  ops
math_ops          isinf                                     ops
math_ops          isnan                                     ops
math_ops          less                                      ks math ops
math_ops          less_equal                                ks math ops
math_ops          log                                       ks math
math_ops          log1p                                     ks math
math_ops          logical_and                               ks math ops
math_ops          logical_not                               ks math ops
math_ops          logical_or                                ks math ops
math_ops          logical_xor                               ks math ops
math_ops          matmul                                    ks linalg ops
math_ops          maximum                                   ks math ops
math_ops          minimum                                   ks math ops
math_ops          mod                                       ks math ops
math_ops          multiply                                  ks math ops
math_ops          nan_to_num                                ops
math_ops          negative                                  ks math ops
math_ops          not_equal                                 ks math ops
math_ops          pow                                       ks math ops:power
math_ops          reciprocal                                ks math
math_ops          round                                     ks math
math_ops          rsqrt                                     ks math
math_ops          sign                                      ks math ops
math_ops          sin                                       ks math
math_ops          sinh                                      math
math_ops          sqrt                                      ks math
math_ops          square                                    ks math ops
math_ops          squared_difference                        ks math
math_ops          subtract                                  ks math ops
math_ops          tan                                       math
math_ops          tanh                                      ks math nn
math_ops          truediv                                   ks math
math_ops          truncatediv                               ks math
math_ops          where                                     ks ops
nn_ops            bias_add                                  nn
nn_ops            dropout                                   nn
nn_ops            embedding_lookup                          nn
nn_ops            l2_loss                                   nn
nn_ops            l2_normalize                              math nn linalg
nn_ops            log_softmax                               math nn
nn_ops            moments                                   nn
nn_ops            reduce_logsumexp                          ks math
nn_ops            sigmoid_cross_entropy_with_logits         nn
nn_ops            softmax                                   nn
nn_ops            softmax_cross_entropy_with_logits         nn
nn_ops            sparse_softmax_cross_entropy_with_logits  nn
product_ops       cross                                     ops
product_ops       dot                                       ops
product_ops       inner                                     ops
product_ops       outer                                     ops
product_ops       tensordot                                 ops
product_ops       vdot                                      ops
reduction_ops     argmax                                    ks math
reduction_ops     argmin                                    ks math
reduction_ops     count_nonzero                             ops
reduction_ops     norm                                      ks linalg
reduction_ops     reduce_all                                ks math
reduction_ops     reduce_any                                ks math
reduction_ops     reduce_max                                ks math
reduction_ops     reduce_mean                               ks math
reduction_ops     reduce_min                                ks math
reduction_ops     reduce_std                                ks math
reduction_ops     reduce_sum                                ks math
reduction_ops     reduce_variance                           ks math
sampled_loss_ops  compute_accidental_hits                   nn
sampled_loss_ops  nce_loss                                  nn
sampled_loss_ops  sampled_softmax_loss                      nn
shape_ops         broadcast_to                              ks ops
shape_ops         concat                                    ks
shape_ops         expand_dims                               ks ops
shape_ops         meshgrid                                  ops
shape_ops         moveaxis                                  ops
shape_ops         pad                                       ks
shape_ops         reshape                                   ks ops
shape_ops         split                                     ks
shape_ops         squeeze                                   ks ops
shape_ops         stack                                     ks
shape_ops         swapaxes                                  ops
shape_ops         tile                                      ks
shape_ops         transpose                                 ks
shape_ops         unstack                                   ks
sorting_ops       digitize                                  ops
sorting_ops       in_top_k                                  math ops
sorting_ops       searchsorted                              ops
sorting_ops       take_along_axis                           ops
sorting_ops       top_k                                     math
sorting_ops       unique                                    ops
numpy_ops         allclose                                  ops
numpy_ops         append                                    ops
numpy_ops         argpartition                              ops
numpy_ops         array_split                               ops
numpy_ops         bartlett                                  ops
numpy_ops         bitwise_and                               ops
numpy_ops         bitwise_invert                            ops ops:bitwise_not
numpy_ops         bitwise_or                                ops
numpy_ops         bitwise_xor                               ops
numpy_ops         blackman                                  ops
numpy_ops         conj                                      ops ops:conjugate
numpy_ops         diagflat                                  ops
numpy_ops         diff                                      ops
numpy_ops         dsplit                                    ops
numpy_ops         dstack                                    ops
numpy_ops         fliplr                                    ops
numpy_ops         flipud                                    ops
numpy_ops         fmax                                      ops
numpy_ops         fmin                                      ops
numpy_ops         fmod                                      ops
numpy_ops         gcd                                       ops
numpy_ops         geomspace                                 ops
numpy_ops         get_item                                  ops
numpy_ops         hamming                                   ops
numpy_ops         hanning                                   ops
numpy_ops         histogram                                 ops
numpy_ops         hsplit                                    ops
numpy_ops         hstack                                    ops
numpy_ops         imag                                      ops
numpy_ops         isclose                                   ops
numpy_ops         isin                                      ops
numpy_ops         isneginf                                  ops
numpy_ops         isposinf                                  ops
numpy_ops         isreal                                    ops
numpy_ops         kaiser                                    ops
numpy_ops         kron                                      ops
numpy_ops         lcm                                       ops
numpy_ops         ldexp                                     ops
numpy_ops         left_shift                                ops ops:bitwise_left_shift
numpy_ops         linspace                                  ops
numpy_ops         logspace                                  ops
numpy_ops         nanargmax                                 ops
numpy_ops         nanargmin                                 ops
numpy_ops         nancumprod                                ops
numpy_ops         nancumsum                                 ops
numpy_ops         nanmax                                    ops
numpy_ops         nanmin                                    ops
numpy_ops         nanprod                                   ops
numpy_ops         nansum                                    ops
numpy_ops         ptp                                       ops
numpy_ops         ravel                                     ops
numpy_ops         real                                      ops
numpy_ops         right_shift                               ops ops:bitwise_right_shift
numpy_ops         rot90                                     ops
numpy_ops         select                                    ops
numpy_ops         signbit                                   ops
numpy_ops         tri                                       ops
numpy_ops         trunc                                     ops
numpy_ops         unravel_index                             ops
numpy_ops         vander                                    ops
numpy_ops         vectorize                                 ops
numpy_ops         view                                      ops
numpy_ops         vsplit                                    ops
numpy_ops         vstack                                    ops
numpy_ops         cdist                                     ops
numpy_ops         eye                                       ops
"""


def public_ops(namespace: str) -> dict:
    """The core ops that a public namespace shows, by their public names.

    Args:
        namespace: one of `NAMESPACES`: 'ks' (the package root), 'math', 'nn', 'linalg' or
            'ops'.

    Returns:
        A dict of public name to op function.

    Raises:
        ValueError: for another namespace.

    Example:
        >>> import kerasish as ks
        >>> from kerasish.ops.namespaces import public_ops
        >>> public_ops("math")["reduce_sum"] is ks.math.reduce_sum is ks.reduce_sum
        True
    """
    if namespace not in NAMESPACES:
        raise ValueError(f"public_ops: namespace must be one of {NAMESPACES}, got {namespace!r}")
    ops = {}
    for row in _TABLE.strip().splitlines():
        module_name, op_name, *shown = row.split()
        for entry in shown:
            where, _, public_name = entry.partition(":")
            if where == namespace:
                ops[public_name or op_name] = getattr(_MODULES[module_name], op_name)
    return ops
