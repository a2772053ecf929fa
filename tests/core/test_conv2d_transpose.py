"""conv2d_transpose is the adjoint of conv2d: <conv2d(x, w), y> = <x, conv2d_transpose(y, w)>
for every stride, padding and dilation, including strides whose phases no filter tap reaches."""

import numpy as np
import pytest

import kerasish as ks


@pytest.mark.parametrize(
    "image, kernel, strides, padding, dilations",
    [
        ((2, 28, 28, 3), (3, 3), 2, "SAME", 1),  # the usual decoder step
        ((1, 7, 6, 2), (2, 2), (3, 1), "VALID", 1),  # stride 3 > kernel: an empty phase
        ((1, 9, 8, 2), (3, 2), (2, 3), "SAME", (2, 1)),
        ((2, 5, 6, 1), (2, 3), 1, "VALID", (2, 2)),
        ((1, 6, 6, 4), (4, 4), 2, "SAME", 1),  # stride divides the kernel
    ],
)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(image, kernel, strides, padding, dilations):
    rng = np.random.default_rng(0)
    filters = rng.standard_normal(kernel + (image[3], 5))  # HWIO of the forward conv
    x = rng.standard_normal(image)
    convolved = ks.nn.conv2d(x, filters, strides, padding, dilations).numpy()
    y = rng.standard_normal(convolved.shape)
    transposed = ks.nn.conv2d_transpose(y, filters, image, strides, padding, dilations).numpy()
    assert transposed.shape == image
    np.testing.assert_allclose(np.vdot(convolved, y), np.vdot(x, transposed), rtol=1e-10)
