"""Preprocessing layers: numbers (Rescaling, Normalization), images (Resizing, CenterCrop,
RandomFlip, RandomCrop) and text (TextVectorization, StringLookup, IntegerLookup).

Layers with `adapt(data)` learn their state (a mean and variance, a vocabulary) from
data before training. The string layers run on the host and take Python lists or
NumPy arrays of strings; see `kerasish.layers.preprocessing.lookup`.
"""

from kerasish.layers.preprocessing.image import CenterCrop, RandomCrop, RandomFlip, Resizing
from kerasish.layers.preprocessing.lookup import IntegerLookup, StringLookup
from kerasish.layers.preprocessing.numerical import Normalization, Rescaling
from kerasish.layers.preprocessing.text_vectorization import TextVectorization

__all__ = [
    "CenterCrop",
    "IntegerLookup",
    "Normalization",
    "RandomCrop",
    "RandomFlip",
    "Rescaling",
    "Resizing",
    "StringLookup",
    "TextVectorization",
]
