"""Preprocessing layers: numbers (Rescaling, Normalization), images (Resizing, CenterCrop,
RandomFlip, RandomCrop and Keras 3's augmentation layers: RandomRotation, RandomZoom,
RandomContrast, MixUp, ...) and text (TextVectorization, StringLookup, IntegerLookup).

Layers with `adapt(data)` learn their state (a mean and variance, a vocabulary) from
data before training. The string layers run on the host and take Python lists or
NumPy arrays of strings; see `kerasish.layers.preprocessing.lookup`.
"""

from kerasish.layers.preprocessing.augmentation import (
    BaseImagePreprocessingLayer,
    RandomElasticTransform,
    RandomRotation,
    RandomShear,
    RandomTranslation,
    RandomZoom,
)
from kerasish.layers.preprocessing.categorical import (
    CategoryEncoding,
    Discretization,
    HashedCrossing,
    Hashing,
)
from kerasish.layers.preprocessing.clahe import ContrastLimitedAdaptiveHistogramEqualization
from kerasish.layers.preprocessing.color import (
    AutoContrast,
    Equalization,
    RandomBrightness,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomContrast,
    RandomGrayscale,
    RandomHue,
    RandomInvert,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
    Solarization,
)
from kerasish.layers.preprocessing.image import CenterCrop, RandomCrop, RandomFlip, Resizing
from kerasish.layers.preprocessing.lookup import IntegerLookup, StringLookup
from kerasish.layers.preprocessing.mixing import (
    CutMix,
    MaxNumBoundingBoxes,
    MixUp,
    Pipeline,
    RandomErasing,
    RandomGaussianBlur,
    RandomPerspective,
)
from kerasish.layers.preprocessing.numerical import Normalization, Rescaling
from kerasish.layers.preprocessing.policies import AugMix, RandAugment
from kerasish.layers.preprocessing.text_vectorization import TextVectorization

__all__ = [
    "AugMix",
    "RandAugment",
    "AutoContrast",
    "BaseImagePreprocessingLayer",
    "CategoryEncoding",
    "CenterCrop",
    "ContrastLimitedAdaptiveHistogramEqualization",
    "CutMix",
    "Discretization",
    "Equalization",
    "HashedCrossing",
    "Hashing",
    "IntegerLookup",
    "MaxNumBoundingBoxes",
    "MixUp",
    "Normalization",
    "Pipeline",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomElasticTransform",
    "RandomCrop",
    "RandomErasing",
    "RandomFlip",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPerspective",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomShear",
    "RandomTranslation",
    "RandomZoom",
    "Rescaling",
    "Resizing",
    "Solarization",
    "StringLookup",
    "TextVectorization",
]
