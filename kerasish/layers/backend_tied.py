"""Keras's layers that wrap another backend's objects: names that say why they cannot run.

`FlaxLayer` and `JaxLayer` wrap JAX functions and Flax modules, `TFSMLayer` a TensorFlow
SavedModel, `TorchModuleWrapper` a `torch.nn.Module`: each runs that library's own
computation (and its autodiff) on its own tensors, which kerasish's NumPy/CuPy eager core
cannot execute or differentiate. The names exist, with Keras's parameters, so a program
that imports them loads; making one raises an error saying why, never a silent no-op.
"""

from __future__ import annotations


def _refuse(name: str, what: str, instead: str):
    raise NotImplementedError(
        f"{name} wraps {what}, which runs on that library's own tensors and autodiff; "
        f"kerasish computes on NumPy/CuPy and cannot run or differentiate it. {instead}"
    )


class FlaxLayer:
    """Keras's wrapper of a Flax module: not available on the NumPy/CuPy backend.

    Args:
        module: the Flax module.
        method: the method to call.
        variables: the module's variables.
        **kwargs: the Layer arguments.

    Raises:
        NotImplementedError: always, saying why.

    Example:
        >>> import kerasish as ks
        >>> try:
        ...     ks.layers.FlaxLayer(None)
        ... except NotImplementedError as e:
        ...     print(str(e)[:25])
        FlaxLayer wraps a Flax mo
    """

    def __init__(self, module, method=None, variables=None, **kwargs):
        _refuse("FlaxLayer", "a Flax module (JAX)",
                "Rewrite the module as kerasish layers and load its weights into them.")


class JaxLayer:
    """Keras's wrapper of JAX functions: not available on the NumPy/CuPy backend.

    Args:
        call_fn: the JAX function to call.
        init_fn: the function making the parameters.
        params: the trainable parameters.
        state: the non-trainable state.
        seed: the seed for `init_fn`.
        native_serialization_platforms: JAX export platforms.
        **kwargs: the Layer arguments.

    Raises:
        NotImplementedError: always, saying why.

    Example:
        >>> import kerasish as ks
        >>> try:
        ...     ks.layers.JaxLayer(None)
        ... except NotImplementedError as e:
        ...     print(str(e)[:24])
        JaxLayer wraps JAX funct
    """

    def __init__(self, call_fn, init_fn=None, params=None, state=None, seed=None,
                 native_serialization_platforms=None, **kwargs):
        _refuse("JaxLayer", "JAX functions",
                "Write the computation with ks.ops in a Layer subclass instead.")


class TFSMLayer:
    """Keras's wrapper of a TensorFlow SavedModel: not available on the NumPy/CuPy backend.

    Args:
        filepath: the SavedModel's folder.
        call_endpoint: the endpoint called in inference.
        call_training_endpoint: the endpoint called in training.
        trainable: whether its variables train.
        name: the layer's name.
        dtype: the layer's dtype.

    Raises:
        NotImplementedError: always, saying why.

    Example:
        >>> import kerasish as ks
        >>> try:
        ...     ks.layers.TFSMLayer("model_dir")
        ... except NotImplementedError as e:
        ...     print(str(e)[:25])
        TFSMLayer wraps a TensorF
    """

    def __init__(self, filepath, call_endpoint="serve", call_training_endpoint=None,
                 trainable=True, name=None, dtype=None):
        _refuse("TFSMLayer", "a TensorFlow SavedModel (a TensorFlow graph)",
                "Save the model as a .keras file or .weights.h5 from Keras and load that.")


class TorchModuleWrapper:
    """Keras's wrapper of a `torch.nn.Module`: not available on the NumPy/CuPy backend.

    Args:
        module: the PyTorch module.
        name: the layer's name.
        output_shape: the module's output shape.
        **kwargs: the Layer arguments.

    Raises:
        NotImplementedError: always, saying why.

    Example:
        >>> import kerasish as ks
        >>> try:
        ...     ks.layers.TorchModuleWrapper(None)
        ... except NotImplementedError as e:
        ...     print(str(e)[:26])
        TorchModuleWrapper wraps a
    """

    def __init__(self, module, name=None, output_shape=None, **kwargs):
        _refuse("TorchModuleWrapper", "a PyTorch module",
                "Rewrite the module as kerasish layers and load its weights into them.")
