"""What the MobileNet, EfficientNet, ConvNeXt and NASNet builders share.

Keras repeats these steps in every application function: check the `weights`
argument, make (or take) the input tensor, pool the features, assemble the
functional model from the input tensor's source inputs, and load the weights.
"""

from __future__ import annotations

from kerasish.applications import imagenet_utils
from kerasish.core import settings
from kerasish.core.keras_tensor import KerasTensor
from kerasish.models import Model


def channel_axis() -> int:
    """The channels axis of a 4D image batch under the configured data format."""
    return 1 if settings.image_data_format() == "channels_first" else -1


def spatial_size(input_shape) -> tuple:
    """`(rows, cols)` of an image shape without its batch axis."""
    if settings.image_data_format() == "channels_first":
        return input_shape[1], input_shape[2]
    return input_shape[0], input_shape[1]


check_weights_argument = imagenet_utils.check_weights_argument
image_input = imagenet_utils.image_input


def check_input_tensor_shape(input_tensor, input_shape) -> None:
    """MobileNetV2/V3's check that `input_tensor` is symbolic and agrees with `input_shape`.

    Raises:
        ValueError: for a non-symbolic tensor, or widths that differ.
    """
    if input_tensor is None or input_shape is None:
        return
    if not isinstance(input_tensor, KerasTensor):
        raise ValueError(
            f"input_tensor is not a Keras tensor; Received `input_tensor={input_tensor}`")
    shape = tuple(input_tensor.shape)
    if settings.image_data_format() == "channels_first":
        if shape[1] != input_shape[1]:
            raise ValueError(
                "input_shape[1] must equal shape(input_tensor)[1] when `image_data_format` is "
                f"`channels_first`; Received `input_tensor.shape={shape}`, "
                f"`input_shape={input_shape}`"
            )
    elif shape[2] != input_shape[1]:
        raise ValueError(
            "input_tensor.shape[2] must equal input_shape[1]; Received "
            f"`input_tensor.shape={shape}`, `input_shape={input_shape}`"
        )


def make_model(input_tensor, img_input, outputs, name: str) -> Model:
    """The functional model from the image input (or `input_tensor`'s sources) to `outputs`."""
    return Model(imagenet_utils.model_inputs(input_tensor, img_input), outputs, name=name)


pool_features = imagenet_utils.pool_features


def make_divisible(v, divisor=8, min_value=None) -> int:
    """`v` rounded to a multiple of `divisor`, never below 90% of `v` (the MobileNet rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def load_family_weights(model, weights, file_name: str, url: str, file_hash=None) -> None:
    """Loads `weights` into `model`: Keras's ImageNet file `file_name` from Keras's cache
    folder for `"imagenet"`, the file at the path otherwise, nothing for `None`."""
    imagenet_utils.load_model_weights(model, weights, file_name, url, file_hash=file_hash)
