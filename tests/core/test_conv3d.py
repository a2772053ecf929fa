"""The 3-D convolution family: conv3d against a direct loop, conv3d_transpose as its adjoint,
3-D pooling against a direct loop, their gradients against finite differences (float64), and
the errors that name the shapes."""

import itertools

import numpy as np
import pytest

import kerasish as ks
from kerasish.core.errors import InvalidArgumentError
from kerasish.testing import check_gradients

RNG = np.random.default_rng(3)


def _pads(size, k, s, d, padding):
    span = (k - 1) * d + 1
    if padding == "VALID":
        return (size - span) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + span - size, 0) // 2


def _windows(x, ksize, strides, padding, dilations, fill=0.0):
    """Yield (output index, window array (kd, kh, kw, C)) for each window of an NDHWC x."""
    plans = [_pads(x.shape[1 + a], ksize[a], strides[a], dilations[a], padding) for a in range(3)]
    for n in range(x.shape[0]):
        for out in itertools.product(*[range(p[0]) for p in plans]):
            window = np.full(tuple(ksize) + (x.shape[4],), fill)
            for tap in itertools.product(*[range(k) for k in ksize]):
                cell = [out[a] * strides[a] + tap[a] * dilations[a] - plans[a][1] for a in range(3)]
                if all(0 <= cell[a] < x.shape[1 + a] for a in range(3)):
                    window[tap] = x[(n, *cell)]
            yield (n, *out), window


def _conv3d_reference(x, w, strides, padding, dilations, groups=1):
    outs = {}
    cin = w.shape[3]
    for index, window in _windows(x, w.shape[:3], strides, padding, dilations):
        per = w.shape[4] // groups
        values = [
            np.tensordot(window[..., g * cin:(g + 1) * cin], w[..., g * per:(g + 1) * per], 4)
            for g in range(groups)
        ]
        outs[index] = np.concatenate(values)
    shape = tuple(max(i[a] for i in outs) + 1 for a in range(4)) + (w.shape[4],)
    out = np.zeros(shape)
    for index, value in outs.items():
        out[index] = value
    return out


@pytest.mark.parametrize(
    "image, kernel, strides, padding, dilations, groups",
    [
        ((2, 4, 5, 6, 3), (2, 3, 2), (1, 1, 1), "VALID", (1, 1, 1), 1),
        ((1, 5, 4, 6, 2), (3, 3, 3), (2, 1, 2), "SAME", (1, 1, 1), 1),
        ((1, 6, 5, 5, 2), (2, 2, 2), (1, 1, 1), "SAME", (2, 1, 2), 1),
        ((1, 4, 4, 4, 4), (3, 1, 2), (1, 2, 1), "VALID", (1, 1, 1), 2),
    ],
)
def test_conv3d_matches_a_direct_loop(image, kernel, strides, padding, dilations, groups):
    x = RNG.standard_normal(image)
    w = RNG.standard_normal(kernel + (image[4] // groups, 4))
    got = ks.nn.conv3d(x, w, strides, padding, dilations).numpy()
    np.testing.assert_allclose(got, _conv3d_reference(x, w, strides, padding, dilations, groups),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "image, kernel, strides, padding, dilations",
    [
        ((2, 6, 6, 4, 3), (3, 3, 3), 2, "SAME", 1),
        ((1, 7, 5, 6, 2), (2, 2, 3), (3, 1, 2), "VALID", 1),  # a stride phase no tap reaches
        ((1, 6, 5, 5, 1), (2, 3, 2), 1, "VALID", (2, 1, 2)),
    ],
)
def test_conv3d_transpose_is_the_adjoint_of_conv3d(image, kernel, strides, padding, dilations):
    w = RNG.standard_normal(kernel + (image[4], 5))  # DHWIO forward == (d, h, w, out, in)
    x = RNG.standard_normal(image)
    convolved = ks.nn.conv3d(x, w, strides, padding, dilations).numpy()
    y = RNG.standard_normal(convolved.shape)
    transposed = ks.nn.conv3d_transpose(y, w, image, strides, padding, dilations).numpy()
    assert transposed.shape == image
    np.testing.assert_allclose(np.vdot(convolved, y), np.vdot(x, transposed), rtol=1e-10)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("ksize, strides", [((2, 2, 2), (2, 2, 2)), ((3, 2, 2), (1, 2, 1))])
def test_pool3d_matches_a_direct_loop(padding, ksize, strides):
    x = RNG.standard_normal((2, 5, 4, 5, 3))
    got_max = ks.nn.max_pool3d(x, ksize, strides, padding).numpy()
    got_avg = ks.nn.avg_pool3d(x, ksize, strides, padding).numpy()
    ones = np.ones(x.shape[:4] + (1,))
    counts = dict(_windows(ones, ksize, strides, padding, (1, 1, 1)))
    for index, window in _windows(x, ksize, strides, padding, (1, 1, 1), fill=np.nan):
        np.testing.assert_allclose(got_max[index], np.nanmax(window, axis=(0, 1, 2)))
        np.testing.assert_allclose(got_avg[index], np.nanmean(window, axis=(0, 1, 2)),
                                   rtol=1e-12)
        assert counts[index].sum() == np.isfinite(window[..., 0]).sum()


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x, w: ks.nn.conv3d(x, w, (1, 2, 1), "SAME"), [(1, 3, 4, 3, 2), (2, 2, 2, 2, 3)]),
        (lambda x, w: ks.nn.conv3d(x * x, w, 1, "VALID", (2, 1, 1)),
         [(1, 4, 3, 3, 2), (2, 2, 2, 1, 2)]),  # two groups
        (lambda y, w: ks.nn.conv3d_transpose(y, w, (1, 4, 3, 4, 2), 2, "SAME"),
         [(1, 2, 2, 2, 3), (2, 2, 3, 2, 3)]),
        (lambda y, w: ks.nn.conv3d_transpose(y * y, w, (1, 4, 4, 3, 1), (2, 1, 1), "VALID"),
         [(1, 2, 3, 2, 2), (2, 2, 2, 1, 2)]),
        (lambda x: ks.nn.avg_pool3d(x * x, 2, 1, "SAME"), [(1, 3, 3, 2, 2)]),
    ],
)
def test_conv3d_family_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, [RNG.standard_normal(s) for s in shapes], order=2)


def test_max_pool3d_gradient_matches_finite_differences():
    values = (np.arange(2 * 4 * 3 * 4 * 2) * 0.37 % 5.1).reshape(2, 4, 3, 4, 2)
    x = RNG.permutation(values.reshape(-1)).reshape(values.shape)  # distinct: no ties
    check_gradients(lambda v: ks.nn.max_pool3d(v, (2, 2, 3), (2, 1, 1), "SAME"), [x], order=2)


def test_errors_name_the_shapes():
    with pytest.raises(InvalidArgumentError, match=r"NDHWC \(rank 5"):
        ks.nn.conv3d(ks.ones([1, 4, 4, 2]), ks.ones([2, 2, 2, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="filters must be DHWIO"):
        ks.nn.conv3d(ks.ones([1, 4, 4, 4, 2]), ks.ones([2, 2, 2, 3]))
    with pytest.raises(InvalidArgumentError, match=r"has 3 channels but filters"):
        ks.nn.conv3d(ks.ones([1, 4, 4, 4, 3]), ks.ones([2, 2, 2, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="not the input's"):
        ks.nn.conv3d_transpose(ks.ones([1, 2, 2, 2, 3]), ks.ones([2, 2, 2, 1, 3]),
                               (1, 8, 8, 8, 1), 2)
    with pytest.raises(InvalidArgumentError, match="must have the 3 and 1 channels"):
        ks.nn.conv3d_transpose(ks.ones([1, 2, 2, 2, 4]), ks.ones([2, 2, 2, 1, 3]),
                               (1, 4, 4, 4, 1), 2)
    with pytest.raises(InvalidArgumentError, match="filters must be"):
        ks.nn.conv3d_transpose(ks.ones([1, 2, 2, 2, 4]), ks.ones([2, 2, 1, 3]), (1, 4, 4, 1), 2)
    with pytest.raises(InvalidArgumentError, match="expected 1, 3 or 5 values"):
        ks.nn.max_pool3d(ks.ones([1, 4, 4, 4, 1]), (2, 2), 2)
    with pytest.raises(InvalidArgumentError, match="batch and channel entries"):
        ks.nn.avg_pool3d(ks.ones([1, 4, 4, 4, 1]), (2, 2, 2, 2, 2), 2)
    with pytest.raises(InvalidArgumentError, match="padding must be"):
        ks.nn.max_pool3d(ks.ones([1, 4, 4, 4, 1]), 2, 2, "full")
    with pytest.raises(InvalidArgumentError, match="input must be NDHWC"):
        ks.nn.avg_pool3d(ks.ones([1, 4, 4, 1]), 2, 2)
    with pytest.raises(InvalidArgumentError, match="do not fit a volume"):
        ks.nn.patches_to_volume(ks.ones([1, 2, 2, 2, 2, 2, 2, 1]), (1, 4, 4, 4, 1), 2, 1)
    with pytest.raises(InvalidArgumentError, match="larger than the input"):
        ks.nn.extract_volume_patches(ks.ones([1, 1, 4, 4, 1]), 2, 1)
