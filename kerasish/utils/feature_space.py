"""`ks.utils.FeatureSpace`: Keras's one-stop preprocessing of structured data (a dict of
columns), on kerasish's preprocessing layers.

Each feature is named by a type ("float", "float_rescaled", "float_normalized",
"float_discretized", "integer_categorical", "string_categorical", "integer_hashed",
"string_hashed") or made by one of the class methods (`FeatureSpace.string_categorical(
max_tokens=...)`, `FeatureSpace.feature(dtype, preprocessor, output_mode)`); `crosses`
hash pairs of features together. `adapt` learns vocabularies, means and bins from the
data; calling the space on a dict of columns gives one concatenated float32 matrix
(`output_mode="concat"`) or a dict of encoded features ("dict"), and
`get_inputs()`/`get_encoded_features()` give the symbolic inputs and outputs for a
functional model, as in Keras.

The hashed, discretized and crossed features use the `Hashing`, `Discretization`,
`HashedCrossing` and `CategoryEncoding` layers; where kerasish does not have one of them
yet, making such a feature raises an error that says so.
"""

from __future__ import annotations

import numpy as np

from kerasish import layers as layers_module
from kerasish.backend import standardize_dtype
from kerasish.core.keras_tensor import KerasTensor
from kerasish.core.naming import unique_name
from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.core.tensor import Tensor, convert_to_tensor
from kerasish.data import Dataset

_MODULE = "keras.src.layers.preprocessing.feature_space"  # Keras's, in configs


def _layer(class_name: str, what: str, **kwargs):
    """A new `ks.layers.<class_name>`, or an error naming the feature type that needs it."""
    cls = getattr(layers_module, class_name, None)
    if cls is None:
        raise NotImplementedError(f"FeatureSpace: {what} needs ks.layers.{class_name}, which "
                                  "this kerasish does not have")
    return cls(**kwargs)


class Cross:
    """A crossing of features, hashed into `crossing_dim` bins (see `FeatureSpace.cross`).

    Args:
        feature_names: the names of the features to cross.
        crossing_dim: the number of hash bins.
        output_mode: "one_hot" or "int".

    Example:
        >>> import kerasish as ks
        >>> ks.utils.FeatureSpace.cross(("a", "b"), crossing_dim=16).name
        'a_X_b'
    """

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"FeatureSpace.cross: output_mode must be 'int' or 'one_hot', got "
                             f"{output_mode!r}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        """The feature names joined by "_X_", as Keras names a cross."""
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict:
        """The arguments, to remake it."""
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}


class Feature:
    """One feature: its input dtype, the layer that preprocesses it, and how it is encoded.

    Args:
        dtype: the input's dtype ("float32", "int32", "string", ...).
        preprocessor: a layer (or any callable) applied to the column.
        output_mode: "float" (used as it is), "int", or "one_hot" (integer ids made into
            one-hot vectors of the preprocessor's size).

    Example:
        >>> import kerasish as ks
        >>> feature = ks.utils.FeatureSpace.feature(
        ...     "float32", ks.layers.Rescaling(0.5), "float")
        >>> feature.output_mode
        'float'
    """

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in ("int", "one_hot", "float"):
            raise ValueError(f"FeatureSpace.feature: output_mode must be 'int', 'one_hot' or "
                             f"'float', got {output_mode!r}")
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = deserialize_keras_object(
                preprocessor, custom_objects={"TFDIdentity": TFDIdentity})
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict:
        """The arguments, the preprocessor serialized."""
        return {"dtype": self.dtype, "preprocessor": serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}


class TFDIdentity(layers_module.Layer):
    """The preprocessor of a plain "float" feature: the values as they are (Keras's name)."""

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


def _serialized(kind: str, obj) -> dict:
    return {"module": _MODULE, "class_name": kind, "config": obj.get_config(),
            "registered_name": None}


class FeatureSpace(layers_module.Layer):
    """Preprocess and encode a dict of feature columns into what a model takes.

    Args:
        features: {name: a feature type string or a `Feature`}.
        output_mode: "concat" (one float32 matrix) or "dict" (a dict of encoded features).
        crosses: features to cross: tuples of names, or `FeatureSpace.cross(...)` objects.
        crossing_dim: the hash bins of a cross given as a tuple of names.
        hashing_dim: the hash bins of the "integer_hashed"/"string_hashed" types.
        num_discretization_bins: the bins of the "float_discretized" type.
        name: the layer's name.

    Raises:
        ValueError: for no features, an unknown feature type or output mode, or a cross
            naming a feature that is not there.

    Example:
        >>> import numpy as np, kerasish as ks
        >>> space = ks.utils.FeatureSpace(
        ...     {"age": "float_normalized", "size": "float_rescaled"}, output_mode="concat")
        >>> space.adapt({"age": np.array([20.0, 40.0]), "size": np.array([1.0, 2.0])})
        >>> space({"age": np.array([30.0, 40.0]), "size": np.array([3.0, 4.0])}).numpy().tolist()
        [[0.0, 3.0], [1.0, 4.0]]
    """

    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        """A crossing of features for `crosses`.

        Args:
            feature_names: the names of the features to cross.
            crossing_dim: the number of hash bins.
            output_mode: "one_hot" or "int".

        Example:
            >>> import kerasish as ks
            >>> ks.utils.FeatureSpace.cross(["a", "b"], 8).crossing_dim
            8
        """
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        """A feature with your own preprocessing layer.

        Args:
            dtype: the input's dtype.
            preprocessor: the layer applied to the column.
            output_mode: "float", "int" or "one_hot".

        Example:
            >>> import kerasish as ks
            >>> ks.utils.FeatureSpace.feature("int32", ks.layers.IntegerLookup(), "int").dtype
            'int32'
        """
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        """A float feature used as it is.

        Args:
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> ks.utils.FeatureSpace.float().output_mode
            'float'
        """
        name = name or unique_name("float")
        return Feature("float32", TFDIdentity(name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        """A float feature scaled: `x * scale + offset`.

        Args:
            scale: the factor.
            offset: added after scaling.
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> ks.utils.FeatureSpace.float_rescaled(scale=0.1).preprocessor.scale
            0.1
        """
        name = name or unique_name("float_rescaled")
        return Feature("float32", layers_module.Rescaling(
            scale=scale, offset=offset, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name=None):
        """A float feature normalized to mean 0 and variance 1 (learned by `adapt`).

        Args:
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> type(ks.utils.FeatureSpace.float_normalized().preprocessor).__name__
            'Normalization'
        """
        name = name or unique_name("float_normalized")
        return Feature("float32", layers_module.Normalization(
            axis=-1, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot",
                          name=None):
        """A float feature cut into bins (learned by `adapt` unless `bin_boundaries`).

        Args:
            num_bins: the number of bins.
            bin_boundaries: the bins' edges (None: from the data's quantiles).
            output_mode: "one_hot" or "int".
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> feature = ks.utils.FeatureSpace.float_discretized(4)  # doctest: +SKIP
        """
        name = name or unique_name("float_discretized")
        preprocessor = _layer("Discretization", "float_discretized", num_bins=num_bins,
                              bin_boundaries=bin_boundaries, name=f"{name}_preprocessor")
        return Feature("float32", preprocessor, output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                            name=None):
        """An integer category (a vocabulary learned by `adapt`).

        Args:
            max_tokens: the most categories kept (None: all).
            num_oov_indices: indices for values outside the vocabulary.
            output_mode: "one_hot" or "int".
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> ks.utils.FeatureSpace.integer_categorical().dtype
            'int32'
        """
        name = name or unique_name("integer_categorical")
        return Feature("int32", layers_module.IntegerLookup(
            name=f"{name}_preprocessor", max_tokens=max_tokens,
            num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                           name=None):
        """A string category (a vocabulary learned by `adapt`).

        Args:
            max_tokens: the most categories kept (None: all).
            num_oov_indices: indices for values outside the vocabulary.
            output_mode: "one_hot" or "int".
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> ks.utils.FeatureSpace.string_categorical(max_tokens=10).dtype
            'string'
        """
        name = name or unique_name("string_categorical")
        return Feature("string", layers_module.StringLookup(
            name=f"{name}_preprocessor", max_tokens=max_tokens,
            num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        """A string category hashed into `num_bins` bins.

        Args:
            num_bins: the number of bins.
            output_mode: "one_hot" or "int".
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> feature = ks.utils.FeatureSpace.string_hashed(16)  # doctest: +SKIP
        """
        name = name or unique_name("string_hashed")
        return Feature("string", _layer("Hashing", "string_hashed", num_bins=num_bins,
                                        name=f"{name}_preprocessor"), output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        """An integer category hashed into `num_bins` bins.

        Args:
            num_bins: the number of bins.
            output_mode: "one_hot" or "int".
            name: the preprocessor's name prefix.

        Example:
            >>> import kerasish as ks
            >>> feature = ks.utils.FeatureSpace.integer_hashed(16)  # doctest: +SKIP
        """
        name = name or unique_name("integer_hashed")
        return Feature("int32", _layer("Hashing", "integer_hashed", num_bins=num_bins,
                                       name=f"{name}_preprocessor"), output_mode)

    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32,
                 hashing_dim=32, num_discretization_bins=32, name=None):
        super().__init__(name=name)
        if not features:
            raise ValueError("FeatureSpace: features must be a non-empty dict of "
                             "{name: feature type or Feature}")
        if output_mode not in ("dict", "concat"):
            raise ValueError(f"FeatureSpace: output_mode must be 'dict' or 'concat', got "
                             f"{output_mode!r}")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.output_mode = output_mode
        self.features = {key: self._standardize_feature(key, value)
                         for key, value in features.items()}
        self.crosses = []
        for cross in crosses or ():
            if isinstance(cross, dict):
                cross = Cross(**cross.get("config", cross))
            if not isinstance(cross, Cross):
                if not crossing_dim:
                    raise ValueError("FeatureSpace: crosses given as names need crossing_dim "
                                     "(the number of hash bins)")
                cross = Cross(cross, crossing_dim=crossing_dim)
            unknown = [key for key in cross.feature_names if key not in self.features]
            if unknown:
                raise ValueError(f"FeatureSpace: the cross {list(cross.feature_names)} names "
                                 f"features that are not in features: {unknown}")
            self.crosses.append(cross)
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        self.inputs = {key: layers_module.Input(shape=(1,), dtype=feature.dtype, name=key)
                       for key, feature in self.features.items()}
        self.preprocessors = {key: f.preprocessor for key, f in self.features.items()}
        self.crossers = {cross.name: _layer("HashedCrossing", "crosses",
                                            num_bins=cross.crossing_dim, name=cross.name)
                         for cross in self.crosses}
        self.one_hot_encoders = {}
        self.encoded_features = None
        self.concat = None
        self._is_adapted = False

    def _standardize_feature(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return Feature(**feature.get("config", feature))
        makers = {
            "float": lambda: self.float(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_discretized": lambda: self.float_discretized(
                num_bins=self.num_discretization_bins, name=name),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        if feature not in makers:
            raise ValueError(f"FeatureSpace: invalid feature type {feature!r} for {name!r}; "
                             f"one of {sorted(makers)} or a FeatureSpace.feature(...)")
        return makers[feature]()

    # -- adapting --------------------------------------------------------------------
    def _adaptable(self) -> list:
        names = []
        for key, preprocessor in self.preprocessors.items():
            if isinstance(preprocessor, layers_module.Normalization) and getattr(
                    preprocessor, "input_mean", None) is not None:
                continue
            if hasattr(preprocessor, "adapt"):
                names.append(key)
        return names

    def adapt(self, dataset):
        """Learn the preprocessors' state (vocabularies, means, bins) from the data.

        Args:
            dataset: a dict of columns (arrays or lists), or a dataset (a `ks.data.Dataset`,
                or a `tf.data.Dataset` when TensorFlow is installed) of dicts of features,
                batched or not.

        Raises:
            ValueError: for data of another kind, or one that lacks a feature.

        Example:
            >>> import numpy as np, kerasish as ks
            >>> ids = ks.utils.FeatureSpace.integer_categorical(output_mode="int")
            >>> space = ks.utils.FeatureSpace({"n": ids}, output_mode="dict")
            >>> space.adapt(ks.data.Dataset.from_tensor_slices({"n": np.array([3, 3, 5])}))
            >>> space({"n": np.array([5, 7, 3])})["n"].numpy().tolist()
            [[2], [0], [1]]
        """
        columns = _columns(dataset)
        for key in self._adaptable():
            if key not in columns:
                raise ValueError(f"FeatureSpace.adapt: the data has no feature {key!r} (it "
                                 f"has {sorted(columns)})")
            values = columns[key]
            self.preprocessors[key].adapt(values.reshape(-1, 1) if values.ndim <= 1
                                          else values)
        self._is_adapted = True
        self.get_encoded_features()
        self.built = True

    def _check_if_adapted(self) -> None:
        if not self._is_adapted:
            if self._adaptable():
                raise ValueError("FeatureSpace: call .adapt(dataset) before using it (its "
                                 f"features {self._adaptable()} learn from the data)")
            self._is_adapted = True

    # -- the graph -------------------------------------------------------------------
    def get_inputs(self) -> dict:
        """The symbolic inputs, {feature name: `ks.Input((1,))`}, for a functional model.

        Example:
            >>> import kerasish as ks
            >>> space = ks.utils.FeatureSpace({"x": "float"})
            >>> space.get_inputs()["x"].shape
            (None, 1)
        """
        self.get_encoded_features()
        return self.inputs

    def get_encoded_features(self):
        """The symbolic encoded features (what calling the space on `get_inputs()` gives).

        Raises:
            ValueError: if the space still needs `adapt`.

        Example:
            >>> import kerasish as ks
            >>> space = ks.utils.FeatureSpace({"x": "float", "y": "float_rescaled"})
            >>> space.get_encoded_features().shape
            (None, 2)
        """
        self._check_if_adapted()
        if self.encoded_features is None:
            self.encoded_features = self._encode(self.inputs)
        return self.encoded_features

    def _encode(self, data: dict):
        preprocessed = {key: self.preprocessors[key](data[key]) for key in self.features}
        crossed = {cross.name: self.crossers[cross.name](
            [preprocessed[key] for key in cross.feature_names]) for cross in self.crosses}
        names = sorted(preprocessed) + sorted(crossed)
        specs = {**self.features, **self.crosses_by_name}
        encoded = {}
        for key in names:
            value = preprocessed[key] if key in preprocessed else crossed[key]
            if specs[key].output_mode == "one_hot":
                value = self._one_hot_encoder(key, value)(value)
            if self.output_mode == "concat":
                dtype = standardize_dtype(value.dtype)
                if dtype.startswith(("int", "uint")) or dtype == "string" or np.dtype(
                        value.dtype).kind == "U":
                    raise ValueError(f"FeatureSpace: cannot concatenate feature {key!r}: it is "
                                     f"not encoded (dtype {dtype}); use output_mode='dict' or "
                                     "an encoding output_mode for it")
            encoded[key] = value
        if self.output_mode == "dict":
            return encoded
        if self.concat is None:
            self.concat = layers_module.Concatenate(axis=-1)
        parts = [encoded[key] for key in names]
        return parts[0] if len(parts) == 1 else self.concat(parts)

    def _one_hot_encoder(self, key, value):
        encoder = self.one_hot_encoders.get(key)
        if encoder is not None:
            return encoder
        dtype = standardize_dtype(value.dtype)
        if not dtype.startswith(("int", "uint")):
            raise ValueError(f"FeatureSpace: feature {key!r} has output_mode='one_hot', so its "
                             f"preprocessor must give integer ids; it gives {dtype}")
        preprocessor = self.preprocessors.get(key) or self.crossers.get(key)
        if hasattr(preprocessor, "vocabulary_size"):
            cardinality = preprocessor.vocabulary_size()
        elif hasattr(preprocessor, "num_tokens"):
            cardinality = preprocessor.num_tokens
        elif hasattr(preprocessor, "num_bins"):
            cardinality = preprocessor.num_bins
        else:
            raise ValueError(f"FeatureSpace: feature {key!r} has output_mode='one_hot', but the "
                             "size of its preprocessor's output space is not known; use "
                             "output_mode='int'")
        encoder = _layer("CategoryEncoding", "output_mode='one_hot'",
                         num_tokens=cardinality, output_mode="multi_hot")
        self.one_hot_encoders[key] = encoder
        return encoder

    def __call__(self, data):
        """Encode a dict of columns (or of single values), as Keras does.

        Args:
            data: {feature name: values}: arrays of shape (batch,) or (batch, 1), or single
                values (then the result has no batch axis).

        Returns:
            A float32 tensor (batch, encoded size) for "concat", else a dict of tensors.

        Raises:
            ValueError: if `data` is not a dict, or the space still needs `adapt`.

        Example:
            >>> import numpy as np, kerasish as ks
            >>> space = ks.utils.FeatureSpace({"x": "float_rescaled"})
            >>> space({"x": 2.0}).numpy().tolist()
            [2.0]
        """
        if not isinstance(data, dict):
            raise ValueError(f"FeatureSpace: call it with a dict of features, got "
                             f"{type(data).__name__}")
        self.get_encoded_features()
        if any(isinstance(value, KerasTensor) for value in data.values()):
            return self._encode(data)
        columns, single = {}, False
        for key, value in data.items():
            array = _column(value)
            if array.ndim == 0:
                array, single = array.reshape(1, 1), True
            elif array.ndim == 1:
                array = array[:, None]
            columns[key] = array
        encoded = self._encode(columns)
        if single:
            if self.output_mode == "concat":
                return convert_to_tensor(np.asarray(encoded.numpy())[0])
            return {key: convert_to_tensor(np.asarray(value.numpy())[0])
                    if value.ndim == 2 and value.shape[0] == 1 else value
                    for key, value in encoded.items()}
        return encoded

    def get_config(self) -> dict:
        """Keras's config: the features and crosses serialized, and the arguments.

        Example:
            >>> import kerasish as ks
            >>> config = ks.utils.FeatureSpace({"x": "float"}).get_config()
            >>> config["features"]["x"]["class_name"], config["output_mode"]
            ('Feature', 'concat')
        """
        return {"name": self.name,
                "features": {k: _serialized("Feature", f) for k, f in self.features.items()},
                "output_mode": self.output_mode,
                "crosses": [_serialized("Cross", c) for c in self.crosses],
                "crossing_dim": self.crossing_dim, "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config: dict):
        """A FeatureSpace from `get_config()`'s dict (to adapt again: vocabularies and
        statistics travel with the preprocessors' own saved state, not the config).

        Args:
            config: the dict.

        Example:
            >>> import kerasish as ks
            >>> space = ks.utils.FeatureSpace({"x": "float"}, output_mode="dict")
            >>> ks.utils.FeatureSpace.from_config(space.get_config()).output_mode
            'dict'
        """
        return cls(**config)


def _column(value) -> np.ndarray:
    """A feature column as a NumPy array (a tensor's values, bytes decoded to str)."""
    if isinstance(value, Tensor):
        value = value.numpy()
    elif hasattr(value, "numpy") and not isinstance(value, np.ndarray):  # a TensorFlow tensor
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype.kind == "S" or (array.dtype.kind == "O" and array.size
                                   and isinstance(array.flat[0], bytes)):
        array = np.char.decode(array.astype(bytes), "utf-8")
    return array


def _columns(dataset) -> dict:
    """{feature: all its values} of what `adapt` takes."""
    if isinstance(dataset, dict):
        return {key: _column(value) for key, value in dataset.items()}
    if isinstance(dataset, Dataset):
        elements = list(dataset)
    elif hasattr(dataset, "as_numpy_iterator"):  # a tf.data.Dataset
        elements = list(dataset.as_numpy_iterator())
    else:
        raise ValueError(f"FeatureSpace.adapt: takes a dataset of dicts or a dict of arrays, "
                         f"got {type(dataset).__name__}")
    if elements and isinstance(elements[0], tuple):  # (features, labels): the features
        elements = [element[0] for element in elements]
    if not elements or not isinstance(elements[0], dict):
        raise ValueError("FeatureSpace.adapt: the dataset must yield dicts of features")
    columns = {}
    for key in elements[0]:
        parts = [_column(element[key]) for element in elements]
        parts = [p.reshape(1) if p.ndim == 0 else p for p in parts]
        columns[key] = np.concatenate(parts)
    return columns
