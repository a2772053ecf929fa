"""What every ImageNet model of `ks.applications` shares: input preprocessing, decoding of
predictions, Keras's input-shape checks, and finding Keras's pretrained weight files.

Nothing is downloaded: the files Keras would fetch (the ImageNet weights, the class index
`imagenet_class_index.json`) are looked up, under the names Keras gives them, in Keras's
cache folder: `$KERAS_HOME/models` when `KERAS_HOME` is set, else `~/.keras/models`. A
machine that has used Keras's applications already has them there; elsewhere, download
them from the URL the error names and place them in that folder.

Example:
    >>> import numpy as np
    >>> from kerasish.applications import imagenet_utils
    >>> imagenet_utils.preprocess_input(np.array([[[0.0, 127.5, 255.0]]]), mode="tf")
    array([[[-1.,  0.,  1.]]])
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings

import numpy as np

from kerasish import activations, layers
from kerasish.core import keras_tensor, settings
from kerasish.core.tensor import Tensor, convert_to_tensor

CLASS_INDEX = None
CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"

_MODES = ("caffe", "tf", "torch")
_CAFFE_MEAN = (103.939, 116.779, 123.68)  # BGR
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)

# the docstring of an application's constructor: {title} (the function's name), {module},
# {preprocessing} (what its preprocess_input does), {default_size}, {min_size}, {features}
# (the width of the pooled features)
APPLICATION_DOC = """The {title} model (Keras's `keras.applications.{title}`), default input
    {default_size}x{default_size}.

    Call `ks.applications.{module}.preprocess_input` on the images first ({preprocessing}).
    `weights="imagenet"` loads Keras's file from Keras's cache folder (`$KERAS_HOME/models`
    or `~/.keras/models`); kerasish downloads nothing, and the error names the file, its URL
    and the folder.

    Args:
        include_top: include the fully-connected layer at the top.
        weights: None (random initialization), `"imagenet"`, or the path of a weights file.
        input_tensor: a symbolic tensor (from `ks.Input`) to use as the image input.
        input_shape: the input shape, only without the top (else
            `({default_size}, {default_size}, 3)`); at least {min_size}x{min_size}, 3
            channels with ImageNet weights.
        pooling: without the top, None (the 4D output of the last block), `"avg"` or
            `"max"` (global pooling, a 2D output).
        classes: the number of classes, with the top and no pretrained weights.
        classifier_activation: the top layer's activation (None for the logits); only
            None or `"softmax"` with pretrained weights.
        name: the model's name.

    Returns:
        A functional `Model`.

    Raises:
        ValueError: for an invalid `weights`, `classes` or `input_shape`.
        FileNotFoundError: for `"imagenet"` when Keras's file is not in its cache folder.

    Example:
        >>> import kerasish as ks
        >>> model = ks.applications.{title}(weights=None, include_top=False,
        ...     input_shape=({min_size}, {min_size}, 3), pooling="avg")
        >>> model.output.shape
        (None, {features})
    """


# ---------------------------------------------------------------- Keras's cache folder

def cache_dir(cache_subdir: str = "models") -> str:
    """The folder where Keras keeps its downloads of `cache_subdir`: `$KERAS_HOME/<subdir>`
    when `KERAS_HOME` is set, else `~/.keras/<subdir>` (as `keras.utils.get_file`).

    Args:
        cache_subdir: the subfolder (`"models"` for weights and the class index).

    Returns:
        The folder's path (which may not exist).

    Example:
        >>> import os
        >>> os.path.basename(cache_dir())
        'models'
    """
    base = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(base, cache_subdir)


def _file_hash(path: str, algorithm: str) -> str:
    digest = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()  # noqa: S324
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cached_file(fname: str, origin: str, file_hash: str | None = None,
                cache_subdir: str = "models") -> str:
    """The path of a file Keras would download with `get_file(fname, origin,
    cache_subdir=...)`, found in Keras's cache folder (nothing is downloaded).

    Args:
        fname: the file's name, as Keras names it.
        origin: the URL Keras downloads it from (named in the error).
        file_hash: its MD5 (32 hex digits) or SHA-256 (64), checked when given.
        cache_subdir: the subfolder of Keras's cache folder.

    Returns:
        The file's path.

    Raises:
        FileNotFoundError: when the file is absent, naming the file, its URL and the
            folder to put it in.
        ValueError: when the file's hash is not the one given (a partial download).

    Example:
        >>> try:
        ...     cached_file("no_such_weights.h5", "https://example.com/no_such_weights.h5")
        ... except FileNotFoundError as error:
        ...     "no_such_weights.h5" in str(error)
        True
    """
    folder = cache_dir(cache_subdir)
    path = os.path.join(folder, fname)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{fname} is not in Keras's cache folder {folder}: kerasish downloads nothing. "
            f"Download it from {origin} and place it in {folder} (or set KERAS_HOME to the "
            "folder above a 'models' folder that has it)")
    if file_hash:
        algorithm = "sha256" if len(file_hash) == 64 else "md5"
        found = _file_hash(path, algorithm)
        if found != file_hash:
            raise ValueError(
                f"{path}: its {algorithm} is {found}, Keras's file has {file_hash} (a partial "
                f"or different download?); download it again from {origin}")
    return path


def load_model_weights(model, weights, fname: str | None = None, origin: str | None = None,
                       file_hash: str | None = None):
    """Load `weights` into a freshly built application `model`, as Keras's constructors do.

    Args:
        model: the model just built.
        weights: None (keep the random initialization), `"imagenet"` (Keras's file
            `fname`, looked up in Keras's cache folder), or the path of a weights file
            (`.weights.h5`, a Keras 2 `.h5`, or a kerasish checkpoint).
        fname: the name of Keras's ImageNet file for this model and `include_top`.
        origin: its URL.
        file_hash: its hash, as Keras checks it.

    Returns:
        `model`.

    Raises:
        FileNotFoundError: for `"imagenet"` when the file is not in Keras's cache folder.

    Example:
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
        >>> load_model_weights(model, None) is model
        True
    """
    if weights is None:
        return model
    if weights == "imagenet":
        path = cached_file(fname, origin, file_hash=file_hash)
    else:
        path = os.fspath(weights)
    model.load_weights(path)
    return model


def check_weights_argument(weights, include_top: bool, classes: int,
                           what: str = "ImageNet") -> None:
    """Keras's checks of the `weights` and `classes` arguments of an application.

    Args:
        weights: None, `"imagenet"` or the path of an existing file.
        include_top: whether the classifier is included.
        classes: the number of classes asked for.
        what: the pretraining data set, for the error messages.

    Raises:
        ValueError: for another value of `weights`, or ImageNet weights with a classifier of
            other than 1000 classes.

    Example:
        >>> check_weights_argument(None, True, 10)
        >>> try:
        ...     check_weights_argument("imagenet", True, 10)
        ... except ValueError as error:
        ...     "classes` should be 1000" in str(error)
        True
    """
    if not (weights in ("imagenet", None) or (
            isinstance(weights, (str, os.PathLike)) and os.path.exists(weights))):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), "
            f"'imagenet' (pre-training on {what}), or the path to the weights file to be "
            f"loaded (an existing file). Received: weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            "If using `weights='imagenet'` with `include_top=True`, `classes` should be "
            f"1000.  Received classes={classes}")


# ---------------------------------------------------------------- preprocessing

def _channel_shape(ndim: int, data_format: str) -> tuple:
    """The shape that broadcasts a per-channel vector of 3 over an image batch."""
    if data_format == "channels_first":
        return (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    return (1,) * (ndim - 1) + (3,)


def _preprocess_numpy(x: np.ndarray, data_format: str, mode: str) -> np.ndarray:
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(settings.floatx())
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        channel_axis = (0 if x.ndim == 3 else 1) if data_format == "channels_first" else -1
        x = np.flip(x, axis=channel_axis)  # RGB -> BGR (a view: written over below, as Keras)
        mean, std = _CAFFE_MEAN, None
    shape = _channel_shape(x.ndim, data_format)
    x -= np.asarray(mean, dtype=x.dtype).reshape(shape)
    if std is not None:
        x /= np.asarray(std, dtype=x.dtype).reshape(shape)
    return x


def _preprocess_tensor(x, data_format: str, mode: str):
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        if data_format == "channels_first":
            x = x[::-1] if x.ndim == 3 else x[:, ::-1]
        else:
            x = x[..., ::-1]
        mean, std = _CAFFE_MEAN, None
    dtype = x.dtype
    shape = _channel_shape(x.ndim, data_format)
    x = x - convert_to_tensor(np.asarray(mean).reshape(shape), dtype=dtype)
    if std is not None:
        x = x / convert_to_tensor(np.asarray(std).reshape(shape), dtype=dtype)
    return x


def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocess a batch of images (values 0 to 255) as an ImageNet model expects.

    A NumPy array of floats is written over (as Keras does; pass `np.copy(x)` to keep
    it); integers are cast to `floatx()` first. A tensor (or a symbolic one, inside a
    functional model) gives a new tensor.

    Args:
        x: images, 3D or 4D, with 3 colour channels, values in [0, 255].
        data_format: `"channels_last"` or `"channels_first"`; None means
            `ks.backend.image_data_format()`.
        mode: `"caffe"` (RGB to BGR, then each channel zero-centred on ImageNet's mean,
            no scaling), `"tf"` (scaled to [-1, 1]) or `"torch"` (scaled to [0, 1],
            then each channel normalized by ImageNet's mean and standard deviation).

    Returns:
        The preprocessed images.

    Raises:
        ValueError: for an unknown `mode` or `data_format`.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[255.0, 0.0, 0.0]]])
        >>> preprocess_input(x)  # BGR, minus the mean pixel
        array([[[-103.939, -116.779,  131.32 ]]])
    """
    if mode not in _MODES:
        raise ValueError(
            f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    if data_format is None:
        data_format = settings.image_data_format()
    elif data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "Expected data_format to be one of `channels_first` or `channels_last`. "
            f"Received: data_format={data_format}")
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _class_index() -> dict:
    global CLASS_INDEX
    if CLASS_INDEX is None:
        path = cached_file("imagenet_class_index.json", CLASS_INDEX_PATH,
                           file_hash=CLASS_INDEX_HASH)
        with open(path, encoding="utf-8") as handle:
            CLASS_INDEX = json.load(handle)
    return CLASS_INDEX


def decode_predictions(preds, top=5):
    """The `top` ImageNet classes of each prediction, as `(class_name, description, score)`.

    The class names come from Keras's `imagenet_class_index.json`, looked up in Keras's
    cache folder (`$KERAS_HOME/models` or `~/.keras/models`); nothing is downloaded.

    Args:
        preds: predictions of shape `(samples, 1000)` (array or tensor).
        top: how many classes per sample, best first.

    Returns:
        One list per sample of `(class_name, class_description, score)` tuples.

    Raises:
        ValueError: when `preds` is not of shape `(samples, 1000)`.
        FileNotFoundError: when `imagenet_class_index.json` is not in Keras's cache folder
            (the error names the folder and the URL to download it from).

    Example:
        >>> import numpy as np
        >>> try:
        ...     decode_predictions(np.zeros((1, 10)))
        ... except ValueError as error:
        ...     "(samples, 1000)" in str(error)
        True
    """
    shape = tuple(preds.shape)
    if len(shape) != 2 or shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            f"(samples, 1000)). Received array with shape: {shape}")
    index = _class_index()
    preds = np.asarray(preds.numpy() if isinstance(preds, Tensor) else preds)
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        result = [tuple(index[str(i)]) + (pred[i],) for i in best]
        result.sort(key=lambda item: item[2], reverse=True)
        results.append(result)
    return results


# ---------------------------------------------------------------- shape checks

def obtain_input_shape(input_shape, default_size: int, min_size: int, data_format: str,
                       require_flatten: bool, weights=None) -> tuple:
    """The input shape of an application model, checked as Keras checks it.

    Args:
        input_shape: the shape asked for (without the batch), or None for the default.
        default_size: the model's default height and width.
        min_size: the smallest height and width it accepts.
        data_format: `"channels_last"` or `"channels_first"`.
        require_flatten: whether the model ends in a classifier (`include_top`), which
            needs a static shape.
        weights: None, `"imagenet"` (which needs 3 channels, and the default size with
            the classifier) or a path.

    Returns:
        The shape, a tuple of three (with None for free height and width).

    Raises:
        ValueError: for a shape of other than three entries, fewer than 3 channels with
            ImageNet weights, a size under `min_size`, or a free size with the classifier.

    Example:
        >>> obtain_input_shape(None, 224, 32, "channels_last", require_flatten=False)
        (None, None, 3)
        >>> obtain_input_shape((64, 64, 3), 224, 32, "channels_last", require_flatten=True)
        (64, 64, 3)
    """
    if input_shape is not None:
        input_shape = tuple(input_shape)
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn(
                "This model usually expects 1 or 3 input channels. However, it was passed an "
                f"input_shape with {channels} input channels.", stacklevel=3)
        default_shape = ((input_shape[0], default_size, default_size) if channels_first
                         else (default_size, default_size, input_shape[-1]))
    else:
        default_shape = ((3, default_size, default_size) if channels_first
                         else (default_size, default_size, 3))
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and input_shape != default_shape:
            raise ValueError(
                "When setting `include_top=True` and loading `imagenet` weights, "
                f"`input_shape` should be {default_shape}.  Received: input_shape={input_shape}")
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError(
                f"The input must have 3 channels; Received `input_shape={input_shape}`")
        size = input_shape[1:] if channels_first else input_shape[:2]
        if any(side is not None and side < min_size for side in size):
            raise ValueError(
                f"Input size must be at least {min_size}x{min_size}; Received: "
                f"input_shape={input_shape}")
    else:
        if require_flatten:
            input_shape = default_shape
        else:
            input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(
            "If `include_top` is True, you should specify a static `input_shape`. "
            f"Received: input_shape={input_shape}")
    return input_shape


def correct_pad(inputs, kernel_size) -> tuple:
    """The zero padding `((top, bottom), (left, right))` that a strided "valid" convolution
    of `kernel_size` needs to downsample `inputs` as Keras's MobileNets do.

    Args:
        inputs: a (symbolic) image batch.
        kernel_size: an int or a pair.

    Returns:
        A pair of pairs, for `ZeroPadding2D(padding=...)`.

    Example:
        >>> import kerasish as ks
        >>> correct_pad(ks.Input((32, 32, 3)), 3)
        ((0, 1), (0, 1))
    """
    axis = 2 if settings.image_data_format() == "channels_first" else 1
    size = tuple(inputs.shape)[axis:axis + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(classifier_activation, weights) -> None:
    """Keras's rule: with pretrained weights, the classifier's activation is softmax or
    None (the logits).

    Args:
        classifier_activation: a name or callable.
        weights: the `weights` argument of the application.

    Raises:
        ValueError: for another activation with weights other than None.

    Example:
        >>> validate_activation("relu", None)
        >>> try:
        ...     validate_activation("relu", "imagenet")
        ... except ValueError as error:
        ...     "softmax" in str(error)
        True
    """
    if weights is None:
        return
    activation = activations.get(classifier_activation)
    if activation not in (activations.get("softmax"), activations.get(None)):
        raise ValueError(
            "Only `None` and `softmax` activations are allowed for the "
            "`classifier_activation` argument when using pretrained weights, with "
            f"`include_top=True`; Received: classifier_activation={classifier_activation}")


# ---------------------------------------------------------------- the model's input and head

def average_pool_head(x, include_top, pooling, classes, classifier_activation, weights):
    """The head of the applications whose classifier is Keras's `avg_pool` global average
    and `predictions` Dense layer (Inception V3, Inception-ResNet V2, Xception); without
    the classifier, `pool_features`.

    Args:
        x: the last feature map.
        include_top: whether to end with the classifier.
        pooling: without the classifier: None, `"avg"` or `"max"`.
        classes: the classifier's number of classes.
        classifier_activation: its activation (softmax or None with pretrained weights).
        weights: the application's `weights` argument.

    Returns:
        The class scores, or the (pooled) features.

    Example:
        >>> import kerasish as ks
        >>> average_pool_head(ks.Input((4, 4, 8)), True, None, 3, "softmax", None).shape
        (None, 3)
    """
    if not include_top:
        return pool_features(x, pooling)
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)


def pool_features(x, pooling):
    """The feature extractor's head: global average (`"avg"`), max (`"max"`) or no pooling
    (None), as Keras's applications without their classifier.

    Args:
        x: the last feature map.
        pooling: None, `"avg"` or `"max"`.

    Returns:
        The pooled features (or `x`).

    Example:
        >>> import kerasish as ks
        >>> pool_features(ks.Input((4, 4, 8)), "avg").shape
        (None, 8)
    """
    if pooling == "avg":
        return layers.GlobalAveragePooling2D()(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D()(x)
    return x


def source_inputs(tensor) -> list:
    """The `ks.Input` tensors a symbolic tensor is computed from (Keras's
    `get_source_inputs`), so an application built on `input_tensor` takes those inputs.

    Args:
        tensor: a symbolic tensor.

    Returns:
        The input tensors, in the order first met.

    Example:
        >>> import kerasish as ks
        >>> x = ks.Input((4,))
        >>> source_inputs(ks.layers.Dense(2)(x))[0] is x
        True
    """
    found, seen, stack = [], set(), [tensor]
    while stack:
        current = stack.pop()
        node = keras_tensor.producing_node(current)
        if node is None or not node.input_tensors:
            if id(current) not in seen:
                seen.add(id(current))
                found.append(current)
            continue
        stack.extend(reversed(list(node.input_tensors)))
    return found


def image_input(input_tensor, input_shape: tuple):
    """The image input of an application: a new `Input(shape=input_shape)`, or
    `input_tensor` (a symbolic tensor as it is; another tensor wrapped in an Input).

    Args:
        input_tensor: the user's `input_tensor` argument, or None.
        input_shape: the checked input shape.

    Returns:
        The symbolic tensor the model starts from.

    Example:
        >>> import kerasish as ks
        >>> image_input(None, (32, 32, 3)).shape
        (None, 32, 32, 3)
    """
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if isinstance(input_tensor, keras_tensor.KerasTensor):
        return input_tensor
    return layers.Input(tensor=input_tensor, shape=input_shape)


def model_inputs(input_tensor, img_input):
    """The inputs of the application's model: those `input_tensor` comes from, else the
    new image input.

    Args:
        input_tensor: the user's `input_tensor` argument, or None.
        img_input: the input made by `image_input`.

    Returns:
        A tensor, or a list of them.

    Example:
        >>> import kerasish as ks
        >>> x = ks.Input((8, 8, 3))
        >>> model_inputs(None, x) is x
        True
    """
    if input_tensor is None:
        return img_input
    found = source_inputs(input_tensor)
    return found[0] if len(found) == 1 else found
