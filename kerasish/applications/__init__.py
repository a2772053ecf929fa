"""`ks.applications`: Keras's ImageNet models (`keras.applications`), with Keras's
arguments, layer names and weight order, so Keras's weight files, `.keras` and
`.weights.h5` files of them load and predict the same.

`weights="imagenet"` loads the file Keras would download, under Keras's name, from Keras's
cache folder (`$KERAS_HOME/models` or `~/.keras/models`); kerasish downloads nothing, and
says which file to put where when it is absent.

Example:
    >>> import kerasish as ks
    >>> model = ks.applications.VGG16(weights=None, include_top=False,
    ...                               input_shape=(32, 32, 3), pooling="avg")
    >>> model.output.shape
    (None, 512)
"""

# ruff: noqa: I001 - one import a line, so the two halves of this package merge cleanly

# the shared part, and VGG, ResNet, DenseNet, Xception, Inception (one line each)
from kerasish.applications import densenet  # noqa: F401
from kerasish.applications import imagenet_utils  # noqa: F401
from kerasish.applications import inception_resnet_v2  # noqa: F401
from kerasish.applications import inception_v3  # noqa: F401
from kerasish.applications import resnet  # noqa: F401
from kerasish.applications import resnet50  # noqa: F401
from kerasish.applications import resnet_v2  # noqa: F401
from kerasish.applications import vgg16  # noqa: F401
from kerasish.applications import vgg19  # noqa: F401
from kerasish.applications import xception  # noqa: F401
from kerasish.applications.densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401
from kerasish.applications.inception_resnet_v2 import InceptionResNetV2  # noqa: F401
from kerasish.applications.inception_v3 import InceptionV3  # noqa: F401
from kerasish.applications.resnet import ResNet50, ResNet101, ResNet152  # noqa: F401
from kerasish.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2  # noqa: F401
from kerasish.applications.vgg16 import VGG16  # noqa: F401
from kerasish.applications.vgg19 import VGG19  # noqa: F401
from kerasish.applications.xception import Xception  # noqa: F401

# MobileNet, EfficientNet, ConvNeXt, NASNet (one line each)
from kerasish.applications import convnext  # noqa: F401
from kerasish.applications import efficientnet  # noqa: F401
from kerasish.applications import efficientnet_v2  # noqa: F401
from kerasish.applications import mobilenet  # noqa: F401
from kerasish.applications import mobilenet_v2  # noqa: F401
from kerasish.applications import mobilenet_v3  # noqa: F401
from kerasish.applications import nasnet  # noqa: F401
from kerasish.applications.convnext import ConvNeXtBase  # noqa: F401
from kerasish.applications.convnext import ConvNeXtLarge  # noqa: F401
from kerasish.applications.convnext import ConvNeXtSmall  # noqa: F401
from kerasish.applications.convnext import ConvNeXtTiny  # noqa: F401
from kerasish.applications.convnext import ConvNeXtXLarge  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB0  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB1  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB2  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB3  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB4  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB5  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB6  # noqa: F401
from kerasish.applications.efficientnet import EfficientNetB7  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2B0  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2B1  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2B2  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2B3  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2L  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2M  # noqa: F401
from kerasish.applications.efficientnet_v2 import EfficientNetV2S  # noqa: F401
from kerasish.applications.mobilenet import MobileNet  # noqa: F401
from kerasish.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from kerasish.applications.mobilenet_v3 import MobileNetV3Large  # noqa: F401
from kerasish.applications.mobilenet_v3 import MobileNetV3Small  # noqa: F401
from kerasish.applications.nasnet import NASNetLarge  # noqa: F401
from kerasish.applications.nasnet import NASNetMobile  # noqa: F401
