"""`ks.preprocessing`: Keras 3's `keras.preprocessing` dataset builders (the same functions
as in `ks.utils`)."""

from kerasish.data._directory import image_dataset_from_directory, text_dataset_from_directory
from kerasish.data._timeseries import timeseries_dataset_from_array

__all__ = ["image_dataset_from_directory", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
