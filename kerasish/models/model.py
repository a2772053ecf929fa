"""Model: a Layer that owns layers, with summary(), compile(), fit(), evaluate(), predict()."""

from __future__ import annotations

import functools
import inspect
import re
import warnings
import weakref

import numpy as np

from kerasish import callbacks as callbacks_module
from kerasish import metrics as metrics_module
from kerasish import optimizers as optimizers_module
from kerasish import summary
from kerasish.checkpoint import Checkpoint
from kerasish.core import arguments, nest, recording, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.function import function
from kerasish.core.keras_tensor import any_symbolic
from kerasish.core.ops import creation_ops, math_ops
from kerasish.core.serialization import deserialize_keras_object, serialize_keras_object
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import Tensor, Variable, convert_to_tensor, name_scope
from kerasish.layers import build_probe
from kerasish.layers.base import Layer, losses_of
from kerasish.models import data_adapter, training_hooks
from kerasish.models.compile_utils import CompiledLoss, CompiledMetrics, OutputMetric
from kerasish.models.data_adapter import pack_x_y_sample_weight, unpack_x_y_sample_weight
from kerasish.saving import keras_file, legacy_h5

# compile() arguments of Keras that only tune how Keras runs a step; kerasish runs eagerly.
_KERAS_RUN_SETTINGS = ("steps_per_execution", "jit_compile", "auto_scale_loss")


class Model(Layer):
    """Subclass it, assign layers (or lists/dicts of layers) as attributes, define `call`.

    Layers, variables and nested models held by attributes are tracked
    automatically; a layer used twice shares its weights.

    Args:
        *args: ``(inputs, outputs)`` make a functional model (as ``ks.Model(inputs,
            outputs)`` does in Keras 3); otherwise an optional name.
        **kwargs: ``inputs``/``outputs``, or the `Layer` arguments (``name``,
            ``trainable``, ``dtype``).

    Example:
        >>> import kerasish as ks
        >>> class MNISTModel(ks.Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.dense1 = ks.layers.Dense(units=10)
        ...         self.dense2 = ks.layers.Dense(units=10)
        ...     def call(self, inputs):
        ...         return self.dense2(self.dense2(self.dense1(inputs)))
        >>> MNISTModel()(ks.zeros([1, 1, 784])).shape
        (1, 1, 10)
    """

    # What compile() attaches is training state, not the model's own: a checkpoint of the
    # model (and save_weights) holds its layers and variables; pass the optimizer to
    # ks.Checkpoint(model=..., optimizer=...) to save it too.
    _untracked_attributes = Layer._untracked_attributes | {
        "compiled_metrics", "history", "optimizer", "compiled_loss", "_loss_tracker",
        "_compile_config", "_structure_cache",  # a cache of variables would rename them
        "_step_functions",
    }
    # The functional model class (models/functional.py), which builds on this one and so names
    # itself here, with `class Functional(Model, functional=True)`, rather than be imported.
    _functional: type | None = None

    def __init_subclass__(cls, functional: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        if functional:
            Model._functional = cls

    def __new__(cls, *args, **kwargs):
        # ks.Model(inputs, outputs) builds a functional model, as in Keras 3, and so does a
        # subclass given inputs and outputs (one that overrides train_step, say)
        if _functional_arguments(args, kwargs):
            return super().__new__(Model._functional.class_for(cls))
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        functional = Model._functional
        if _functional_arguments(args, kwargs) and not isinstance(self, functional):
            # a subclass whose __init__ calls super().__init__(inputs, outputs), as Keras allows
            self.__class__ = functional.class_for(type(self))
            functional.__init__(self, *args, **kwargs)
            return
        name = args[0] if args else kwargs.pop("name", None)
        super().__init__(name=name, **kwargs)
        self.optimizer = None
        self.compiled = False
        self.compiled_loss = None
        self.compiled_metrics = None
        self._loss_tracker = None
        self._compile_config = None
        self.run_eagerly = False
        self._step_functions = {}  # step name -> its ks.function, made when first used
        self.stop_training = False
        self._structure_cache = None

    # -- structure ----------------------------------------------------------
    @property
    def layers(self) -> list:
        """The layers held directly by this model, in attribute order."""
        seen, result = set(), []
        for _, child in self._tracked_children():
            if isinstance(child, Layer) and id(child) not in seen:
                seen.add(id(child))
                result.append(child)
        return result

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """One of `layers`, by name or by position (give exactly one).

        Args:
            name: the layer's name.
            index: its position in `layers` (negative counts from the end).

        Returns:
            The layer.

        Raises:
            InvalidArgumentError: naming the model, for both or neither argument, an index
                out of range, or an unknown name (listing the layers' names).

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(2, name="hidden"), ks.layers.Dense(1)])
            >>> model.get_layer("hidden") is model.get_layer(index=0)
            True
        """
        layers = self.layers
        if (name is None) == (index is None):
            raise InvalidArgumentError(
                f"model '{self.name}': get_layer needs a name or an index (exactly one), "
                f"got name={name!r}, index={index!r}"
            )
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise InvalidArgumentError(
                    f"model '{self.name}': get_layer(index={index}) is out of range; the model "
                    f"has {len(layers)} layers"
                )
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise InvalidArgumentError(
            f"model '{self.name}' has no layer named {name!r}; its layers are "
            f"{[layer.name for layer in layers]}"
        )

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """A model from `get_config()`; a functional model's config rebuilds its graph.

        Args:
            config: the dict `get_config` returned (or Keras 3's).
            custom_objects: {name: class or function} for your own layers and functions.

        Returns:
            A new model, with fresh weights.

        Example:
            >>> import kerasish as ks
            >>> inputs = ks.Input((3,))
            >>> model = ks.Model(inputs, ks.layers.Dense(2)(inputs))
            >>> ks.Model.from_config(model.get_config()).output_shape
            (None, 2)
        """
        if "layers" in config and "input_layers" in config:
            return Model._functional.rebuild(cls, config, custom_objects)
        return super().from_config(config)

    def build(self, input_shape) -> None:
        """Build by calling the model on a zero batch of `input_shape` (a None batch size is 1).

        Args:
            input_shape: the inputs' shape, batch axis included (it may be None).

        Raises:
            InvalidArgumentError: if `input_shape` is None.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(4)])
            >>> model.build((None, 3))
            >>> [w.shape for w in model.weights]
            [(3, 4), (4,)]
        """
        if self.built:
            return
        if input_shape is None:
            raise InvalidArgumentError(f"model '{self.name}': build() needs an input_shape")
        shape = tuple(1 if d is None else int(d) for d in input_shape)
        self._build_input_shape = tuple(input_shape)
        self.built = True  # so that __call__ does not come back here
        # a model whose inputs are strings (a Sequential starting with TextVectorization) is
        # probed with empty strings
        strings = np.dtype(getattr(self, "input_dtype", None) or self.dtype).kind == "U"
        probe = np.zeros(shape, str) if strings else creation_ops.zeros(shape, self.dtype)
        try:
            with build_probe.running(), name_scope(self.name, caller=self):
                self(probe, training=False)
        except Exception:
            self.built = False
            raise

    def _build_from(self, inputs) -> None:
        self._build_input_shape = nest.pack_sequence_as(
            inputs, [x.shape for x in nest.flatten(inputs)]
        )
        self.built = True  # a model is built by running call(); its layers build themselves

    # Keras's default widths and column edges (fractions of the width): a model whose
    # layers run in a chain has three columns, a functional graph a fourth, "Connected to"
    _SUMMARY_LAYOUT = {3: (88, (0.45, 0.80, 1.0)), 4: (108, (0.3, 0.56, 0.74, 1.0))}

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None) -> None:
        """Print each layer's name and type, output shape and parameter count, then the totals.

        Keras's columns: "Layer (type)", "Output Shape", "Param #", and for a functional
        model "Connected to" (the inputs each layer reads); "Trainable" with
        `show_trainable`. A column widens to fit its longest entry, so long names never
        run together.

        Args:
            line_length: the table's least width in characters (None: Keras's, 88 or 108).
            positions: where the columns end: fractions of `line_length` (the last 1.0) or
                absolute character positions, one per column.
            print_fn: called with each line (None: `print`).
            expand_nested: also list the layers inside nested models, indented.
            show_trainable: add a "Trainable" column: Y, N, or - for a layer without
                weights.
            layer_range: (first, last): only the layers from the first whose name matches
                the regular expression `first` to the last matching `last`.

        Raises:
            InvalidArgumentError: if the model (or one of its layers) is not built yet.
            ValueError: for a `layer_range` that is not two strings or matches no layer,
                or `positions` of the wrong length.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((3,)), ks.layers.Dense(2, name="d")])
            >>> lines = []
            >>> model.summary(print_fn=lines.append, show_trainable=True)
            >>> [line for line in lines if "params" in line]
            ['Total params: 8', 'Trainable params: 8', 'Non-trainable params: 0']
            >>> next(line for line in lines if line.startswith("d ")).split()
            ['d', '(Dense)', '(None,', '2)', '8', 'Y']
        """
        if not self.built or any(not layer.built for layer in self.layers):
            raise InvalidArgumentError(
                f"model '{self.name}' has not been built yet, so its weights and output shapes "
                "are unknown. Call it on a batch first (model(x)), call "
                "model.build(input_shape), or give the first layer of a Sequential an "
                "input_shape=..."
            )
        header, entries = self._summary_entries()
        columns = len(header)
        entries = _in_layer_range(entries, layer_range)
        rows = []
        for layer, cells in entries:
            rows += _summary_rows(layer, cells, columns, expand_nested, show_trainable, 0)
        default_length, default_positions = self._SUMMARY_LAYOUT[columns]
        header = list(header)
        if show_trainable:
            default_length += 12
            default_positions = tuple(p * 0.9 for p in default_positions) + (1.0,)
            header.append("Trainable")
        line_length = int(line_length or default_length)
        positions = tuple(positions or default_positions)
        if len(positions) != len(header):
            raise ValueError(f"summary: positions needs one end per column ({len(header)}: "
                             f"{', '.join(header)}), got {list(positions)}")
        ends = [int(p * line_length) if positions[-1] <= 1 else int(p) for p in positions]
        cells = [header] + rows
        widths, start = [], 0
        for index, end in enumerate(ends[:-1]):
            longest = max(len(row[index]) for row in cells)
            widths.append(max(end - start, longest + 2))  # never run together
            start = end
        last = max(len(row[-1]) for row in cells)
        line_length = max(line_length, sum(widths) + last)

        def line(row) -> str:
            return "".join(f"{c:<{w}}" for c, w in zip(row, widths)) + row[-1]

        self._print_summary(print_fn or print, line(header), [line(r) for r in rows],
                            line_length)

    def _print_summary(self, print_fn, header: str, rows: list, line_length: int) -> None:
        """Print the summary's frame: title, `header`, the formatted `rows`, parameter totals."""
        rule = "_" * line_length
        print_fn(f'Model: "{self.name}"')
        print_fn(rule)
        print_fn(header)
        print_fn("=" * line_length)
        for row in rows:
            print_fn(row)
        print_fn("=" * line_length)
        trainable = sum(v.size for v in self.trainable_variables)
        non_trainable = sum(v.size for v in self.non_trainable_variables)
        print_fn(f"Total params: {trainable + non_trainable:,}")
        print_fn(f"Trainable params: {trainable:,}")
        print_fn(f"Non-trainable params: {non_trainable:,}")
        print_fn(rule)

    def _summary_entries(self) -> tuple:
        """(header, [(layer, cells)]): the summary's columns and each layer's row in order."""
        header = ("Layer (type)", "Output Shape", "Param #")
        return header, [
            (layer, [f"{layer.name} ({type(layer).__name__})",
                     "?" if layer.output_shape_seen is None else str(layer.output_shape_seen),
                     f"{layer.count_params():,}"])
            for layer in self.layers
        ]

    # -- whole-model files ------------------------------------------------------
    def save(self, filepath, overwrite: bool = True, include_optimizer: bool = True) -> str:
        """Save architecture, weights and (when compiled) compile settings and optimizer state
        to a Keras 3 `.keras` file, atomically; returns the path. See `ks.models.load_model`.

        Args:
            filepath: the file's path, ending in `.keras`.
            overwrite: replace an existing file.
            include_optimizer: also save the optimizer's state (when compiled).

        Returns:
            The path written.

        Raises:
            ValueError: for a path not ending in `.keras`.
            FileExistsError: if the file exists and `overwrite` is False.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
            >>> path = model.save(os.path.join(tempfile.mkdtemp(), "tiny.keras"))
            >>> os.path.basename(path), ks.models.load_model(path).count_params()
            ('tiny.keras', 3)
        """
        return keras_file.save_model(self, filepath, overwrite, include_optimizer)

    def get_compile_config(self) -> dict | None:
        """The arguments of `compile`, serialized, as `save` writes them: Keras 3's
        `compile_config`, the optimizer as it is now (None if not compiled). Override it
        with `compile_from_config` when `compile` is your own."""
        if not self.compiled or self._compile_config is None:
            return None
        return serialize_keras_object({**self._compile_config, "optimizer": self.optimizer})

    def compile_from_config(self, config: dict) -> None:
        """Compile from `get_compile_config()`'s dict (what `load_model` calls).

        Args:
            config: the dict `get_compile_config` returned (or Keras 3's).

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("adam", "mse")
            >>> copy = ks.Sequential([ks.layers.Dense(1)])
            >>> copy.compile_from_config(model.get_compile_config())
            >>> type(copy.optimizer).__name__
            'Adam'
        """
        if type(self).compile is not Model.compile:
            warnings.warn(
                f"{type(self).__name__} overrides compile() but not compile_from_config(), so "
                "load_model did not compile it and its optimizer state was not restored; call "
                "compile() yourself after loading, or override get_compile_config() and "
                "compile_from_config(config)",
                stacklevel=4,
            )
            return
        arguments = {key: value for key, value in config.items()
                     if key not in _KERAS_RUN_SETTINGS}
        self.compile(**deserialize_keras_object(arguments))

    def to_json(self, **kwargs) -> str:
        """The architecture (Keras 3 config, no weights) as JSON (`ks.models.model_from_json`).

        Args:
            **kwargs: passed to `json.dumps` (e.g. ``indent=2``).

        Returns:
            The JSON text.

        Example:
            >>> import json
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
            >>> json.loads(model.to_json())["class_name"]
            'Sequential'
        """
        return keras_file.model_to_json(self, **kwargs)

    # -- weights files --------------------------------------------------------
    def save_weights(self, filepath, overwrite: bool = True) -> str:
        """Write this model's variables to `filepath`, atomically; returns the path.

        A name ending in `.weights.h5` gets Keras 3's weights layout (with the optimizer's
        state when compiled), readable by Keras; any other name a kerasish HDF5 checkpoint
        of the model's variables (not the optimizer's).

        Args:
            filepath: where to write.
            overwrite: replace an existing `.weights.h5` file.

        Returns:
            The path written.

        Example:
            >>> import os, tempfile
            >>> import numpy as np
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "m.weights.h5"))
            >>> twin = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
            >>> twin.load_weights(path)
            >>> bool(np.array_equal(twin.layers[0].kernel.numpy(), model.layers[0].kernel.numpy()))
            True
        """
        if str(filepath).endswith(".weights.h5"):
                return keras_file.save_weights(self, filepath, overwrite)
        return Checkpoint(model=self).write(filepath)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Restore variables written by `save_weights` (or Keras 3's `*.weights.h5`).

        From a kerasish checkpoint, returns the load status, and values for layers not
        built yet are applied when they are built; a `.weights.h5` file needs the model
        built, and also restores the optimizer's state when compiled.

        Args:
            filepath: a file written by `save_weights` (or Keras 3's `*.weights.h5`, or a
                Keras 2 `.h5` weights file such as Keras's ImageNet weights).
            skip_mismatch: for a `.weights.h5` or Keras 2 `.h5` file (Keras's argument),
                leave a layer whose variables do not fit the file's (count or shapes) as it
                is, with a warning, instead of raising.
            **kwargs: Keras's other loading arguments, passed on to
                `ks.saving.load_weights` (or, for a Keras 2 `.h5` file, `by_name`).

        Returns:
            The checkpoint's load status for a kerasish checkpoint, else None.

        Example:
            >>> import os, tempfile
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="ones")])
            >>> model.build((None, 2))
            >>> path = model.save_weights(os.path.join(tempfile.mkdtemp(), "ckpt"))
            >>> twin = ks.Sequential([ks.layers.Dense(1)])
            >>> _ = twin.load_weights(path)
            >>> twin(ks.ones([1, 2])).numpy()  # restored when built by this first call
            array([[2.]], dtype=float32)
        """
        if str(filepath).endswith(".weights.h5"):
            return keras_file.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)
        if str(filepath).endswith((".h5", ".hdf5")) and legacy_h5.is_legacy_weights_file(filepath):
            # Keras 2's layout (Keras's ImageNet files for ks.applications), by position
            return legacy_h5.load_legacy_weights(self, filepath, skip_mismatch=skip_mismatch,
                                                 **kwargs)  # by_name, as Keras
        if skip_mismatch or kwargs:
            raise ValueError(
                f"load_weights: skip_mismatch and {sorted(kwargs) or 'other arguments'} apply to "
                f"Keras's .weights.h5 files; {str(filepath)!r} is a kerasish checkpoint, which "
                "restores by object path (layers not built yet take their values when built)")
        return Checkpoint(model=self).read(filepath).expect_partial()

    # -- compile ------------------------------------------------------------
    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        loss_weights=None,
        metrics=None,
        weighted_metrics=None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile="auto",
        auto_scale_loss: bool = True,
    ) -> None:
        """Choose the optimizer, the loss and the metrics that `fit` and `evaluate` use.

        The arguments are Keras 3's, in its order: `loss_weights` comes third (tf.keras had
        `metrics` there; a list of metrics given third is refused with a message saying so).

        Args:
            optimizer: an optimizer or its name ('adam', 'sgd', 'rmsprop', ...).
            loss: a loss (a name, a function `fn(y_true, y_pred)` or a `ks.losses.Loss`).
                For several outputs: one for all, a list by output position, or a dict
                by output name. None is allowed when the loss comes from `add_loss` or
                from an own `train_step`.
            metrics: metrics ('accuracy', 'mae', functions, `ks.metrics.Metric` objects),
                as a list, or per output as a dict by name; updated without sample weights.
            loss_weights: each output's factor in the total loss (a float, list or dict).
            weighted_metrics: likewise, but updated with the sample weights.
            run_eagerly: False (the default, as in Keras) compiles `train_step`,
                `test_step` and `predict_step` with `ks.function` (traced once per
                batch signature, then replayed); True runs them eagerly, for
                debugging (breakpoints and prints in every step).
            steps_per_execution: 1 (one step per call; other values are refused).
            jit_compile: Keras's XLA switch; accepted, as the steps are compiled with
                `ks.function` either way (unless `run_eagerly`), with the same results.
            auto_scale_loss: under the "mixed_float16" policy (the model's), wrap the
                optimizer in a `LossScaleOptimizer`, as Keras does, so small float16
                gradients do not underflow; False leaves the optimizer as given.

        Raises:
            TypeError: a list of metrics passed third (tf.keras's place for them).
            ValueError: steps_per_execution other than 1.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
            >>> type(model.optimizer).__name__, model.compiled
            ('SGD', True)
        """
        if _look_like_metrics(loss_weights):
            raise TypeError(
                f"compile: the third argument is loss_weights in Keras 3 (tf.keras had metrics "
                f"there), got {loss_weights!r}; pass metrics={loss_weights!r}")
        if steps_per_execution != 1:
            raise ValueError(f"compile: steps_per_execution must be 1 in kerasish, got "
                             f"{steps_per_execution!r}")
        self.optimizer = optimizers_module.get(optimizer)
        if (auto_scale_loss and self.dtype_policy.name == "mixed_float16"
                and not isinstance(self.optimizer, optimizers_module.LossScaleOptimizer)):
            self.optimizer = optimizers_module.LossScaleOptimizer(
                self.optimizer, name="loss_scale_optimizer")
        output_names = getattr(self, "output_names", None)
        self.compiled_loss = (
            None if loss is None else CompiledLoss(loss, loss_weights, output_names)
        )
        self.compiled_metrics = (
            None if metrics is None and weighted_metrics is None
            else CompiledMetrics(metrics, weighted_metrics, output_names, self.compiled_loss)
        )
        self._loss_tracker = metrics_module.Mean("loss")
        self.run_eagerly = bool(run_eagerly)
        self._step_functions = {}
        self._compile_config = {
            "optimizer": optimizer, "loss": loss, "loss_weights": loss_weights,
            "metrics": metrics, "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
        }
        self.compiled = True

    def _require_compiled(self, what: str) -> None:
        if not self.compiled:
            raise RuntimeError(
                f"model '{self.name}': call compile(optimizer, loss, metrics) before {what}()"
            )

    @property
    def metrics(self) -> list:
        """What `fit` resets at every epoch and logs, in this order.

        The loss tracker ('loss'); with several outputs, each one's loss
        ('<output>_loss'); the compiled metrics (before the first batch, one
        'compile_metrics' object that makes them when first updated); then every
        metric held as an attribute of the model or of its layers (a custom
        `train_step`'s trackers). Override it to choose them yourself.
        """
        result = []
        if self.compiled:
            result.append(self._loss_tracker)
            if self.compiled_loss is not None:
                result.extend(self.compiled_loss.metrics)
            compiled = self.compiled_metrics
            if compiled is not None:
                result.extend(compiled.metrics if compiled.built else [compiled])
        known = {id(m) for m in result}
        result.extend(m for m in self._structure()[2] if id(m) not in known)
        return result

    @property
    def metrics_names(self) -> list:
        """The names of `metrics` (before the first batch: the names given to `compile`)."""
        names = []
        for metric in self.metrics:
            if metric is self.compiled_metrics:  # not built yet
                names.extend(metric.names_before_build())
            else:
                names.append(metric.name)
        return names

    def reset_metrics(self) -> None:
        """Reset every metric in `metrics` (`fit` does it at the start of every epoch)."""
        for metric in self.metrics:
            metric.reset_state()

    # -- one step -----------------------------------------------------------
    def _structure(self) -> tuple:
        """(every layer, trainable variables, metrics held as attributes), walked again only
        when variables were created or a layer's `trainable` changed since the last step."""
        key = (Variable.created_count, Layer.trainable_changes)
        if self._structure_cache is None or self._structure_cache[0] != key:
            layers = [self] + self.submodules
            held = [child for layer in layers for _, child in layer._tracked_children()
                    if isinstance(child, metrics_module.Metric)]
            unique = list({id(m): m for m in held}.values())
            self._structure_cache = (key, layers, self.trainable_variables, unique)
        return self._structure_cache[1:]

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The loss of a batch: the compiled loss of `y_pred` against `y`, plus `self.losses`.

        `self.losses` holds the regularization losses and the `add_loss` terms of the
        last call. Override it to compute the loss from `x` too; `train_step` and
        `test_step` call it, with `training` True and False (Keras's flag, for overrides
        whose loss depends on the mode).

        Args:
            x: the batch's inputs.
            y: its targets.
            y_pred: the model's outputs on `x`.
            sample_weight: per-example weights, or None.
            training: whether this is a training step.

        Returns:
            The scalar loss.

        Raises:
            InvalidArgumentError: when there is no loss at all (none compiled, none added).

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> float(model.compute_loss(y=ks.zeros([2, 1]), y_pred=ks.ones([2, 1])))
            1.0
        """
        terms = []
        if self.compiled_loss is not None:
            compiled = self.compiled_loss(y, y_pred, sample_weight)
            if compiled is not None:
                terms.append(compiled)
        terms.extend(losses_of(self._structure()[0]))
        if not terms:
            raise InvalidArgumentError(
                f"model '{self.name}': there is no loss to minimize: compile() was given no "
                "loss and the model added none with add_loss(). Pass loss=... to compile(), "
                "call self.add_loss(...) in call(), or write a train_step that computes it"
            )
        return terms[0] if len(terms) == 1 else math_ops.add_n(terms)

    def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
        """Update the compiled metrics with a batch; returns `get_metrics_result()`.

        Args:
            x: the batch's inputs (unused by the default; for overrides).
            y: its targets.
            y_pred: the model's outputs.
            sample_weight: per-example weights, or None.

        Returns:
            Every metric's current value, by name, as Python floats.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse", metrics=["mae"])
            >>> model.compute_metrics(None, ks.zeros([2, 1]), ks.constant([[1.], [3.]]))["mae"]
            2.0
        """
        if self.compiled_metrics is not None:
            self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict:
        """Every metric's current value as a Python float, by name (the logs of a step)."""
        logs = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                logs.update(result)
            else:
                logs[metric.name] = result
        return _pythonify_logs(logs)

    def train_step(self, data) -> dict:
        """One training step on a batch; override it to change what `fit` does.

        `data` is what the data yields: `(x, y)` for `fit(x, y)`, `(x, y, sample_weight)`
        with weights, `x` alone for `fit(x)`; split it with
        `ks.utils.unpack_x_y_sample_weight(data)`. Returns the logs (a dict of values).

        Args:
            data: one batch, as the data yields it.

        Returns:
            The logs: the loss and the metrics so far, by name.

        Example:
            >>> import numpy as np, kerasish as ks
            >>> class Doubled(ks.Model):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.dense = ks.layers.Dense(1)
            ...     def call(self, x):
            ...         return self.dense(x)
            ...     def train_step(self, data):
            ...         logs = super().train_step(data)
            ...         return {**logs, "double_loss": 2 * logs["loss"]}
            >>> model = Doubled()
            >>> model.compile("sgd", "mse")
            >>> sorted(model.fit(np.ones((8, 2)), np.ones((8, 1)), verbose=0).history)
            ['double_loss', 'loss']
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            scaled = loss if self.optimizer is None else self.optimizer.scale_loss(loss)
            # (scale_loss: in an MPI job, this rank's share of the global batch's loss)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        variables = self._structure()[1]  # now: the first call may have built the model
        if variables:
            grads = tape.gradient(scaled, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        else:
            warnings.warn(f"model '{self.name}' has no trainable variables to train",
                          stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data) -> dict:
        """Loss and metrics on a batch, in inference mode (`evaluate` and validation).

        Args:
            data: one batch, as in `train_step`.

        Returns:
            The logs: the loss and the metrics so far, by name.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="zeros")])
            >>> model.compile("sgd", "mse")
            >>> model.test_step((ks.ones([2, 3]), ks.ones([2, 1])))
            {'loss': 1.0}
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        inference = {"training": False} if _compute_loss_takes_training(type(self)) else {}
        loss = self.compute_loss(
            x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, **inference
        )
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's outputs for a batch (`predict`); `data` as in `train_step`.

        Args:
            data: one batch; only its inputs are used.

        Returns:
            The outputs, as tensors.

        Example:
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(2)])
            >>> model.predict_step(ks.ones([3, 4])).shape
            (3, 2)
        """
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _run_step(self, name: str, x, y, sample_weight):
        """Call `train_step`/`test_step` as the class wrote it: Keras 3's `(data)` form, or
        the older `(x, y, sample_weight)` form, with a deprecation warning."""
        if _takes_x_y(type(self), name):
            if (type(self), name) not in _warned_old_steps:
                _warned_old_steps.add((type(self), name))
                warnings.warn(
                    f"{type(self).__name__}.{name}(self, x, y, sample_weight=None) is the old "
                    f"form of the step; write {name}(self, data) and start it with "
                    "x, y, sample_weight = ks.utils.unpack_x_y_sample_weight(data), as in "
                    "Keras 3",
                    DeprecationWarning,
                    stacklevel=3,  # the line that called fit/evaluate
                )
            return self._step_function(name)(x, y, sample_weight)
        return self._step_function(name)(pack_x_y_sample_weight(x, y, sample_weight))

    def _step_function(self, name: str):
        """The step method `name`, compiled with ks.function unless `run_eagerly`.

        A compiled step's logs stay tensors: the loops turn them into Python values only
        where they are read (a callback that wants each batch's logs, the epoch's end), so
        on a GPU a step does not wait for the previous one to finish.
        """
        if self.run_eagerly:
            return getattr(self, name)
        compiled = self._step_functions.get(name)
        if compiled is None or compiled.owner() is not self:  # (a copy of the model: its own)
            compiled = function(getattr(self, name))
            compiled.function = compiled
            compiled.owner = weakref.ref(self)
            self._step_functions[name] = compiled
        return compiled

    def _epoch_logs(self, step_logs) -> dict:
        """Keras's rule: the metrics' results, unless the last step returned other names
        (a custom step's own logs), which are then taken as they are."""
        training_hooks.current().sync_metrics(self.metrics)  # in an MPI job: of all ranks
        metric_logs = self.get_metrics_result()
        if step_logs is None or (isinstance(step_logs, dict)
                                 and set(step_logs) == set(metric_logs)):
            return metric_logs
        return _pythonify_logs(step_logs)

    # -- loops --------------------------------------------------------------
    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs: int = 1,
        verbose: int = 1,
        callbacks=None,
        validation_split: float = 0.0,
        validation_data=None,
        shuffle: bool = True,
        class_weight=None,
        sample_weight=None,
        initial_epoch: int = 0,
        steps_per_epoch=None,
        validation_steps=None,
        validation_batch_size=None,
        validation_freq=1,
    ):
        """Train for `epochs` epochs, one `train_step` per batch; returns a `History`.

        The arguments are Keras 3's, in its order.

        Args:
            x: the inputs: an array, tensor, list/dict of them, or a dataset or
                iterable yielding `(x, y)` or `(x, y, sample_weight)` batches (a
                `ks.data.Dataset`, a generator, a `PyDataset`, or, when those libraries
                are installed, a `tf.data.Dataset` or a PyTorch `DataLoader`, whose
                batches are converted to arrays, as Keras 3 does).
            y: the targets when `x` holds arrays (None for a dataset).
            batch_size: examples per batch for arrays (default 32); ignored, as in
                Keras, for a dataset, which already batches.
            epochs: the epoch to stop before (counting from 0, so with
                `initial_epoch` it is an end, not a count).
            verbose: "auto" (1), 0 silent, 1 a progress bar in a terminal (a line per
                epoch otherwise), 2 a line per epoch.
            callbacks: `ks.callbacks.Callback` objects called during training.
            validation_split: the LAST fraction of the arrays (taken before
                shuffling, as Keras does) held out for validation.
            validation_data: `(x, y)`, `(x, y, sample_weight)` or a dataset (of the
                kinds `x` may be), evaluated after every `validation_freq` epochs.
            shuffle: reshuffle the arrays every epoch (from `ks.random`'s stream).
            class_weight: class index -> weight, for sparse or one-hot labels.
            sample_weight: per-example weights for arrays.
            initial_epoch: the epoch to start at (to continue an earlier run).
            steps_per_epoch: end each epoch after this many batches, continuing
                from the same iterator (needed for an infinite `.repeat()` dataset).
            validation_steps: validate on this many batches of `validation_data`
                (None: all of it, from a new pass each time).
            validation_batch_size: batch size for array validation data.
            validation_freq: validate every this many epochs (an int), or after the
                epochs listed (a list of 1-based epoch numbers), as in Keras.

        Returns:
            A `History` whose `history` dict maps each log name ("loss", the
            metrics, "val_..." values) to its value per epoch.

        Raises:
            RuntimeError: if the model was not compiled.
            InvalidArgumentError: for inputs that cannot be batched (different
                lengths, `y` or `sample_weight` with a dataset, a bad validation split),
                or a `validation_freq` or `validation_steps` that is not one.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile(ks.optimizers.SGD(0.1), "mse")
            >>> x = np.linspace(-1, 1, 32, dtype="float32")[:, None]
            >>> history = model.fit(x, 3 * x + 1, batch_size=8, epochs=20, verbose=0)
            >>> history.history["loss"][-1] < 0.01
            True
        """
        self._require_compiled("fit")
        epochs = arguments.integer(epochs, "epochs", "fit")
        initial_epoch = arguments.integer(initial_epoch, "initial_epoch", "fit", minimum=0)
        steps_per_epoch = arguments.integer(steps_per_epoch, "steps_per_epoch", "fit", none=True)
        validation_split = arguments.number(validation_split, "validation_split", "fit", 0, 1,
                                            high_open=True)
        validation_batch_size = arguments.integer(validation_batch_size,
                                                  "validation_batch_size", "fit", none=True)
        validation_freq = _validation_freq(validation_freq)
        validation_steps = arguments.integer(validation_steps, "validation_steps", "fit",
                                             none=True)
        verbose = _verbose(verbose, "fit", auto=1)
        data = data_adapter.batches(x, y, sample_weight, batch_size, shuffle)
        validation = None
        if validation_split:
            if not isinstance(data, data_adapter.ArrayBatches):
                raise InvalidArgumentError(
                    "validation_split only works with arrays; pass validation_data for datasets"
                )
            data, validation = data.split(validation_split)
        if validation_data is not None:
            validation = self._validation_batches(
                validation_data, validation_batch_size or batch_size
            )
        if validation is not None and validation_steps is not None:
            validation = data_adapter.FirstBatches(validation, validation_steps)

        # in an MPI job: this rank's share of each batch, the chief's callbacks on the chief
        data, validation, callbacks, verbose = training_hooks.current().prepare_fit(
            self, data, validation, callbacks, verbose
        )
        history = callbacks_module.History()
        items = [callbacks_module.ProgbarLogger(verbose)] if verbose else []
        items += list(callbacks or []) + [history]
        if settings.max_epochs() is not None:  # ks.config.set_max_epochs
            epochs = min(epochs, settings.max_epochs())
        if settings.max_steps_per_epoch() is not None:  # ks.config.set_max_steps_per_epoch
            known = steps_per_epoch or data_adapter.num_steps(data)
            steps_per_epoch = min(known or settings.max_steps_per_epoch(),
                                  settings.max_steps_per_epoch())
        steps = steps_per_epoch or data_adapter.num_steps(data)
        callback_list = callbacks_module.CallbackList(
            items, model=self, epochs=epochs, steps=steps, verbose=verbose
        )
        batches = data_adapter.EpochBatches(data, steps_per_epoch)
        self.history = history
        self.stop_training = False
        # set by BackupAndRestore: (epoch, batch, stream position) to continue from
        self._resume_at = None
        self._fit_batches = batches  # where the stream stands, for BackupAndRestore
        try:
            callback_list.on_train_begin()
            initial_step = 0
            if self._resume_at is not None:
                initial_epoch, initial_step, position = self._resume_at
                batches.seek(*position)
            logs = self._fit_epochs(batches, callback_list, range(initial_epoch, epochs),
                                    initial_step, class_weight, validation, validation_freq)
        finally:
            batches.close()
            self._fit_batches = None
        if self.optimizer is not None:  # use_ema: the averages become the weights, as Keras
            self.optimizer.finalize_variable_values(self.trainable_variables)
        callback_list.on_train_end(logs)
        return history

    def _fit_epochs(self, batches, callback_list, epochs, initial_step, class_weight,
                    validation, validation_freq) -> dict:
        logs = {}
        for epoch in epochs:
            first_step = initial_step if epoch == epochs.start else 0
            self.reset_metrics()
            callback_list.on_epoch_begin(epoch)
            batch_logs = callback_list.wants_batch_logs()
            step_logs = None
            for step, (xb, yb, wb) in enumerate(batches.epoch(first_step), start=first_step):
                if self._resume_at is not None:
                    self._build_before_resuming(xb)
                callback_list.on_train_batch_begin(step)
                wb = data_adapter.apply_class_weight(class_weight, yb, wb)
                step_logs = self._run_step("train_step", xb, yb, wb)
                callback_list.on_train_batch_end(
                    step, _pythonify_logs(step_logs) if batch_logs else {}
                )
                if self.stop_training:
                    break
            self.stop_training = self.stop_training or batches.ran_out
            logs = self._epoch_logs(step_logs)
            if validation is not None and (
                    (epoch + 1) in validation_freq if isinstance(validation_freq, frozenset)
                    else (epoch + 1) % validation_freq == 0):
                callback_list.on_test_begin()  # as Keras's fit (SwapEMAWeights swaps here)
                results = self._run_evaluation(validation)
                callback_list.on_test_end(results)
                logs.update({f"val_{k}": v for k, v in results.items()})
            callback_list.on_epoch_end(epoch, logs)
            writer = summary.get_default_writer()
            if writer is not None:
                writer.flush()  # a crash later keeps this epoch's summaries
            if self.stop_training:
                break
        return logs

    def _build_before_resuming(self, x) -> None:
        """Build the model of a resumed `fit` without moving the host's random stream.

        The interrupted run drew its initial values long ago; drawing them again here
        (they are replaced by the backup's values) would shift every later draw (dropout,
        shuffling) away from the uninterrupted run's.
        """
        if not self.built:
            state = data_adapter.host_random_state()
            saved = state.numpy().copy()
            self(x, training=False)
            state.assign(saved)
        self._resume_at = None

    def _validation_batches(self, validation_data, batch_size):
        if isinstance(validation_data, tuple) and len(validation_data) in (2, 3):
            x, y, *rest = validation_data
            return data_adapter.ArrayBatches(x, y, rest[0] if rest else None, batch_size or 32)
        return data_adapter.batches(validation_data, where="fit (validation_data)")

    def _run_evaluation(self, data, callback_list=None) -> dict:
        self.reset_metrics()
        step_logs = None
        for step, (xb, yb, wb) in enumerate(data):
            if callback_list is not None:
                callback_list.on_test_batch_begin(step)
            step_logs = self._run_step("test_step", xb, yb, wb)
            if callback_list is not None:
                callback_list.on_test_batch_end(step, _pythonify_logs(step_logs))
        return self._epoch_logs(step_logs)

    def evaluate(
        self, x=None, y=None, batch_size=None, verbose=0, sample_weight=None, steps=None,
        callbacks=None, return_dict: bool = False, **kwargs,
    ):
        """Loss and metrics over the data, in inference mode.

        Args:
            x, y, sample_weight: as for `fit` (arrays, or a dataset yielding batches).
            batch_size: examples per batch for arrays (default 32); ignored for a dataset.
            verbose: 1 (or "auto") prints the results.
            steps: evaluate on this many batches only (None: all of them).
            **kwargs: Keras's internal `_use_cached_eval_dataset` (accepted, unused).
            callbacks: callbacks whose `on_test_*` hooks are called.
            return_dict: return {name: value} instead of a float or list.

        Returns:
            The loss alone (a float) when no metric is compiled, else a list
            [loss, metric, ...] in `metrics_names` order, or a dict.

        Raises:
            RuntimeError: if the model was not compiled.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="ones")])
            >>> model.compile("sgd", "mse", metrics=["mae"])
            >>> model.evaluate(np.ones((4, 2)), np.full((4, 1), 3.0), return_dict=True)
            {'loss': 1.0, 'mae': 1.0}
        """
        self._require_compiled("evaluate")
        unknown = set(kwargs) - {"_use_cached_eval_dataset"}
        if unknown:
            raise TypeError(f"evaluate: unexpected keyword arguments {sorted(unknown)}")
        verbose = _verbose(verbose, "evaluate", auto=1)
        steps = arguments.integer(steps, "steps", "evaluate", none=True)
        data = data_adapter.batches(x, y, sample_weight, batch_size, shuffle=False,
                                    where="evaluate")
        if steps is not None:
            data = data_adapter.FirstBatches(data, steps)
        data = training_hooks.current().prepare_evaluation(data)  # in an MPI job: its share
        callback_list = callbacks_module.CallbackList(callbacks or [], model=self, verbose=verbose)
        callback_list.on_test_begin()
        logs = self._run_evaluation(data, callback_list)
        callback_list.on_test_end(logs)
        if verbose:
            print(" - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
        return logs if return_dict else self._logs_as_list(logs)

    def _logs_as_list(self, logs):
        """`evaluate`'s answer without `return_dict`: one float, or a list in Keras's order."""
        values = self._logs_in_order(logs)
        return values[0] if len(values) == 1 else values

    def _logs_in_order(self, logs) -> list:
        """Keras's order of `evaluate`'s list: the logs named by `metrics` in that order
        (a multi-output model's compiled metrics excepted, as Keras names those without
        their output), then the others sorted by name."""
        named = [m.name for m in self.metrics if not isinstance(m, OutputMetric)]
        first = [logs[name] for name in named if name in logs]
        return first + [logs[key] for key in sorted(logs) if key not in named]

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None):
        """Outputs for every example, computed in batches by `predict_step`.

        NumPy arrays in the structure the model returns: one array, or a list, tuple
        or dict of them for several outputs.

        Args:
            x: inputs (arrays, or a dataset yielding batches).
            batch_size: examples per batch for arrays (default 32); ignored for a dataset.
            verbose: accepted for Keras compatibility (0, 1, 2 or "auto").
            steps: predict on this many batches only (None: all of them).
            callbacks: callbacks whose `on_predict_*` hooks are called.

        Returns:
            The outputs, concatenated over the batches.

        Raises:
            InvalidArgumentError: if `x` holds no examples.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(3)])
            >>> model.predict(np.ones((10, 4)), batch_size=4).shape
            (10, 3)
        """
        _verbose(verbose, "predict", auto=1)
        steps = arguments.integer(steps, "steps", "predict", none=True)
        data = data_adapter.batches(x, None, None, batch_size, shuffle=False, where="predict")
        if steps is not None:
            data = data_adapter.FirstBatches(data, steps)
        callback_list = callbacks_module.CallbackList(callbacks or [], model=self, verbose=verbose)
        callback_list.on_predict_begin()
        outputs, structure = [], None
        for step, (xb, yb, wb) in enumerate(data):
            callback_list.on_predict_batch_begin(step)
            out = self._step_function("predict_step")(pack_x_y_sample_weight(xb, yb, wb))
            structure = out
            outputs.append([_to_numpy(o) for o in nest.flatten(out)])
            callback_list.on_predict_batch_end(step, {"outputs": out})
        callback_list.on_predict_end()
        if not outputs:
            raise InvalidArgumentError("predict: the input holds no examples")
        return nest.pack_sequence_as(structure, [np.concatenate(parts) for parts in zip(*outputs)])

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict: bool = False):
        """One `train_step` on one batch, as in Keras: no callbacks, and the metrics keep
        accumulating over calls until `reset_metrics()`. Returns what `evaluate` returns.

        Args:
            x: the batch's inputs.
            y: its targets.
            sample_weight: per-example weights.
            class_weight: {class index: weight}, turned into per-example weights.
            return_dict: return the logs as a dict instead of a list.

        Returns:
            The loss and metrics: a list (a float for the loss alone), or a dict.

        Raises:
            InvalidArgumentError: if the model is not compiled.

        Example:
            >>> import numpy as np, kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse", metrics=["mae"])
            >>> sorted(model.train_on_batch(np.ones((4, 2)), np.ones((4, 1)), return_dict=True))
            ['loss', 'mae']
        """
        self._require_compiled("train_on_batch")
        x, y, sample_weight = _as_tensors(x), _as_tensors(y), _as_tensors(sample_weight)
        sample_weight = data_adapter.apply_class_weight(class_weight, y, sample_weight)
        logs = self._epoch_logs(self._run_step("train_step", x, y, sample_weight))
        return logs if return_dict else self._logs_as_list(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict: bool = False):
        """One `test_step` on one batch (metrics accumulate as in `train_on_batch`).

        Args:
            x: the batch's inputs.
            y: its targets.
            sample_weight: per-example weights.
            return_dict: return the logs as a dict instead of a list.

        Returns:
            The loss and metrics: a list (a float for the loss alone), or a dict.

        Raises:
            InvalidArgumentError: if the model is not compiled.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="zeros")])
            >>> model.compile("sgd", "mse")
            >>> model.test_on_batch(np.ones((4, 2)), np.ones((4, 1)))
            1.0
        """
        self._require_compiled("test_on_batch")
        x, y, sample_weight = _as_tensors(x), _as_tensors(y), _as_tensors(sample_weight)
        logs = self._epoch_logs(self._run_step("test_step", x, y, sample_weight))
        return logs if return_dict else self._logs_as_list(logs)

    def predict_on_batch(self, x):
        """`predict_step` on one batch: NumPy arrays in the model's output structure.

        Args:
            x: the batch's inputs.

        Returns:
            The outputs as NumPy arrays.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="ones")])
            >>> model.predict_on_batch(np.ones((2, 3)))
            array([[3.],
                   [3.]], dtype=float32)
        """
        out = self._step_function("predict_step")(pack_x_y_sample_weight(_as_tensors(x)))
        return nest.pack_sequence_as(out, [_to_numpy(o) for o in nest.flatten(out)])


_warned_old_steps: set = set()


@functools.lru_cache(maxsize=None)
def _takes_x_y(cls, name: str) -> bool:
    """Whether `cls.<name>` is written in the old `(self, x, y, sample_weight=None)` form: two
    required arguments after self, where Keras 3's `(self, data)` has one."""
    required = [
        p for p in inspect.signature(getattr(cls, name)).parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        and p.default is inspect.Parameter.empty
    ]
    return len(required) >= 3  # self, x, y


@functools.lru_cache(maxsize=None)
def _compute_loss_takes_training(cls) -> bool:
    """Whether `cls.compute_loss` takes `training` (an override written for Keras 3.0 may not)."""
    parameters = inspect.signature(cls.compute_loss).parameters
    return "training" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def _as_tensors(structure):
    """A structure of arrays as the same structure of tensors (None stays None)."""
    if structure is None:
        return None
    return nest.pack_sequence_as(
        structure, [convert_to_tensor(leaf) for leaf in nest.flatten(structure)]
    )


def _to_numpy(value) -> np.ndarray:
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


def _in_layer_range(entries: list, layer_range) -> list:
    """The summary rows from the first layer matching `layer_range[0]` to the last matching
    `layer_range[1]` (regular expressions, as Keras reads them)."""
    if layer_range is None:
        return entries
    if len(layer_range) != 2 or not all(isinstance(p, str) for p in layer_range):
        raise ValueError(f"summary: layer_range must be two strings (the first and last "
                         f"layers' names or patterns), got {layer_range!r}")
    first = [i for i, (layer, _) in enumerate(entries) if re.match(layer_range[0], layer.name)]
    last = [i for i, (layer, _) in enumerate(entries) if re.match(layer_range[1], layer.name)]
    if not first or not last:
        raise ValueError(f"summary: layer_range {list(layer_range)} matches no layer names of "
                         f"the model: {[layer.name for layer, _ in entries]}")
    low, high = min(first), max(last)
    if low > high:
        low, high = min(last), max(first)
    return entries[low:high + 1]


def _summary_rows(layer, cells, columns: int, expand_nested: bool, show_trainable: bool,
                  depth: int) -> list:
    """The summary's row for a layer (cut or padded to `columns`) and, with expand_nested,
    those of the layers inside it, indented below it as Keras shows them."""
    row = (list(cells) + ["-"] * columns)[:columns]
    if depth:
        row[0] = "   " * depth + "└ " + row[0]
    if show_trainable:
        weights = getattr(layer, "weights", None)
        row.append(("Y" if layer.trainable else "N") if weights else "-")
    rows = [row]
    if expand_nested and isinstance(layer, Model):
        for inner, inner_cells in layer._summary_entries()[1]:
            rows += _summary_rows(inner, inner_cells, columns, expand_nested, show_trainable,
                                  depth + 1)
    return rows


def _verbose(verbose, where: str, auto: int) -> int:
    """Keras's verbosity: "auto", 0, 1 or 2."""
    if verbose == "auto":
        return auto
    try:
        return int(verbose)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f'{where}: verbose must be "auto", 0, 1 or 2, got '
                                   f"{verbose!r}") from None


def _validation_freq(validation_freq):
    """A positive int (every n epochs) or a frozenset of 1-based epochs, as Keras takes."""
    if isinstance(validation_freq, (list, tuple)):
        if not all(isinstance(e, (int, np.integer)) and not isinstance(e, bool) and e > 0
                   for e in validation_freq):
            raise InvalidArgumentError(
                f"fit: validation_freq as a list names the (1-based) epochs to validate after, "
                f"positive integers; got {validation_freq!r}")
        return frozenset(int(e) for e in validation_freq)
    if isinstance(validation_freq, (int, np.integer)) and not isinstance(validation_freq, bool):
        if validation_freq < 1:
            raise InvalidArgumentError(f"fit: validation_freq must be a positive integer or a "
                                       f"list of epochs, got {validation_freq!r}")
        return int(validation_freq)
    raise InvalidArgumentError(f"fit: validation_freq must be an int or a list of epochs "
                               f"(Keras's), got {type(validation_freq).__name__} "
                               f"{validation_freq!r}")


def _batch_size(x) -> int:
    first = nest.flatten(x)[0]
    return first.shape[0] if getattr(first, "ndim", 0) else 1


def _look_like_metrics(value) -> bool:
    """Whether `value` (given as loss_weights) is a list of metrics: names or Metric objects."""
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, (str, metrics_module.Metric)) or callable(v) for v in value)


def _pythonify_logs(logs) -> dict:
    """Logs as Python floats (scalars) or NumPy arrays, nested dicts flattened into one.

    While ks.function traces a step, tensors stay tensors (the compiled step returns them,
    and `Model._step_function` converts them after each call).
    """
    keep_tensors = recording.current_tracer() is not None
    result = {}
    for key, value in (logs or {}).items():
        if isinstance(value, dict):
            result.update(_pythonify_logs(value))
            continue
        if isinstance(value, Tensor) and not keep_tensors:
            value = value.numpy()
        if isinstance(value, (np.ndarray, np.generic)):
            value = float(value) if value.ndim == 0 else value
        result[key] = value
    return result


def _functional_arguments(args: tuple, kwargs: dict) -> bool:
    """Whether a Model constructor was given (inputs, outputs) of the functional API."""
    if not (len(args) >= 2 or "outputs" in kwargs):
        return False
    inputs = args[0] if args else kwargs.get("inputs")
    return inputs is not None and any_symbolic(inputs)
