"""Model: a Layer that owns layers, with summary(), compile(), fit(), evaluate(), predict()."""

from __future__ import annotations

import numpy as np

from kerasish import callbacks as callbacks_module
from kerasish import losses as losses_module
from kerasish import metrics as metrics_module
from kerasish import optimizers as optimizers_module
from kerasish import summary
from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import array_ops, math_ops
from kerasish.core.tape import GradientTape
from kerasish.core.tensor import Variable, convert_to_tensor
from kerasish.layers.base import Layer, _losses_of
from kerasish.models import data_adapter


class Model(Layer):
    """Subclass it, assign layers (or lists/dicts of layers) as attributes, define `call`.

    Layers, variables and nested models held by attributes are tracked
    automatically; a layer used twice shares its weights.

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
        "_compiled_metrics", "history", "optimizer", "compiled_loss", "_loss_tracker",
        "_metric_specs", "_structure_cache",  # a cache of variables would rename them
    }

    def __init__(self, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.optimizer = None
        self.compiled_loss = None
        self._metric_specs = []
        self._compiled_metrics = None
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

    def build(self, input_shape) -> None:
        """Build by calling the model on a zero batch of `input_shape` (a None batch size is 1)."""
        if self.built:
            return
        if input_shape is None:
            raise InvalidArgumentError(f"model '{self.name}': build() needs an input_shape")
        shape = tuple(1 if d is None else int(d) for d in input_shape)
        self.built = True  # so that __call__ does not come back here
        try:
            self(array_ops.zeros(shape, self.dtype), training=False)
        except Exception:
            self.built = False
            raise

    def _build_from(self, inputs) -> None:
        self.built = True  # a model is built by running call(); its layers build themselves

    def summary(self, print_fn=print, line_length: int = 72) -> None:
        """Print each layer's type, output shape and parameter count, then the totals."""
        if not self.built or any(not layer.built for layer in self.layers):
            raise InvalidArgumentError(
                f"model '{self.name}' has not been built yet, so its weights and output shapes "
                "are unknown. Call it on a batch first (model(x)), call "
                "model.build(input_shape), or give the first layer of a Sequential an "
                "input_shape=..."
            )
        widths = (line_length * 45 // 100, line_length * 33 // 100)
        rule = "_" * line_length

        def row(a, b, c):
            return f"{a:<{widths[0]}}{b:<{widths[1]}}{c}"

        print_fn(f'Model: "{self.name}"')
        print_fn(rule)
        print_fn(row("Layer (type)", "Output Shape", "Param #"))
        print_fn("=" * line_length)
        for layer in self.layers:
            shape = layer.output_shape_seen
            print_fn(
                row(f"{layer.name} ({type(layer).__name__})",
                    "?" if shape is None else str(shape), f"{layer.count_params():,}")
            )
        print_fn("=" * line_length)
        trainable = sum(v.size for v in self.trainable_variables)
        non_trainable = sum(v.size for v in self.non_trainable_variables)
        print_fn(f"Total params: {trainable + non_trainable:,}")
        print_fn(f"Trainable params: {trainable:,}")
        print_fn(f"Non-trainable params: {non_trainable:,}")
        print_fn(rule)

    # -- weights files --------------------------------------------------------
    def save_weights(self, filepath) -> str:
        """Write this model's variables (not the optimizer's) to an HDF5 checkpoint at
        `filepath`, atomically; returns the path."""
        from kerasish.checkpoint import Checkpoint

        return Checkpoint(model=self).write(filepath)

    def load_weights(self, filepath):
        """Restore variables written by `save_weights`; returns the load status.

        Values for layers not built yet are applied when they are built.
        """
        from kerasish.checkpoint import Checkpoint

        return Checkpoint(model=self).read(filepath).expect_partial()

    # -- compile ------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None) -> None:
        """Choose the optimizer, loss and metrics (objects or names like 'adam', 'accuracy')."""
        self.optimizer = optimizers_module.get(optimizer)
        if loss is None:
            raise InvalidArgumentError(f"model '{self.name}': compile() needs a loss")
        self.compiled_loss = losses_module.get(loss)
        self._metric_specs = list(metrics or [])
        self._compiled_metrics = None
        self._loss_tracker = metrics_module.Mean("loss")

    def _require_compiled(self, what: str) -> None:
        if self.optimizer is None or self.compiled_loss is None:
            raise RuntimeError(
                f"model '{self.name}': call compile(optimizer, loss, metrics) before {what}()"
            )

    @property
    def metrics(self) -> list:
        """The loss tracker and the compiled metrics (resolved at the first batch)."""
        if self.compiled_loss is None:
            return []
        return [self._loss_tracker] + list(self._compiled_metrics or [])

    @property
    def metrics_names(self) -> list:
        if self._compiled_metrics is None:
            return ["loss"] + [m if isinstance(m, str) else m.name for m in self._metric_specs]
        return [m.name for m in self.metrics]

    def _resolve_metrics(self, y, y_pred) -> None:
        if self._compiled_metrics is not None:
            return
        resolved = []
        for spec in self._metric_specs:
            if isinstance(spec, str) and spec.lower() in ("accuracy", "acc"):
                resolved.append(
                    metrics_module.resolve_accuracy(self.compiled_loss, y.shape, y_pred.shape)
                )
            else:
                resolved.append(metrics_module.get(spec))
        self._compiled_metrics = resolved

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    # -- one step -----------------------------------------------------------
    def _structure(self) -> tuple:
        """(every layer, trainable variables), walked again only when variables were created
        or a layer's `trainable` changed since the last step."""
        key = (Variable.created_count, Layer.trainable_changes)
        if self._structure_cache is None or self._structure_cache[0] != key:
            self._structure_cache = (key, [self] + self.submodules, self.trainable_variables)
        return self._structure_cache[1:]

    def compute_loss(self, y, y_pred, sample_weight=None):
        """The compiled loss plus every regularization loss of the model."""
        loss = self.compiled_loss(y, y_pred, sample_weight=sample_weight)
        extra = _losses_of(self._structure()[0])
        return loss + math_ops.add_n(extra) if extra else loss

    def _update_metrics(self, y, y_pred, sample_weight, loss) -> None:
        self._resolve_metrics(y, y_pred)
        first = nest.flatten(y_pred)[0]
        self._loss_tracker.update_state(loss, sample_weight=first.shape[0] if first.ndim else 1)
        for metric in self._compiled_metrics:
            metric.update_state(y, y_pred, sample_weight=sample_weight)

    def metric_logs(self) -> dict:
        """The running loss and metrics as floats (this is where results leave the device)."""
        return {m.name: float(m.result()) for m in self.metrics}

    def _train_batch(self, x, y, sample_weight=None) -> None:
        layers, _ = self._structure()
        for layer in layers:
            layer._added_losses.clear()
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y, y_pred, sample_weight)
        variables = self._structure()[1]  # again: the first call may have built the model
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        self._update_metrics(y, y_pred, sample_weight, loss)

    def _test_batch(self, x, y, sample_weight=None) -> None:
        for layer in self._structure()[0]:
            layer._added_losses.clear()
        y_pred = self(x, training=False)
        self._update_metrics(y, y_pred, sample_weight, self.compute_loss(y, y_pred, sample_weight))

    def train_step(self, x, y, sample_weight=None) -> dict:
        """One gradient step on a batch; returns the running loss and metrics."""
        self._train_batch(x, y, sample_weight)
        return self.metric_logs()

    def test_step(self, x, y, sample_weight=None) -> dict:
        """Loss and metrics on a batch, in inference mode."""
        self._test_batch(x, y, sample_weight)
        return self.metric_logs()

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
        validation_batch_size=None,
        validation_freq: int = 1,
        steps_per_epoch=None,
    ):
        """Train for `epochs` epochs; returns a `History`.

        `validation_split` holds out the LAST fraction of the arrays (before
        shuffling), as Keras does. `class_weight` maps class index -> weight,
        for sparse or one-hot labels. Metrics are reset at every epoch.
        `steps_per_epoch` ends each epoch after that many batches, continuing
        from the same iterator (needed for an infinite dataset, e.g. `.repeat()`).
        """
        self._require_compiled("fit")
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

        history = callbacks_module.History()
        items = [callbacks_module.ProgbarLogger(verbose)] if verbose else []
        items += list(callbacks or []) + [history]
        steps = steps_per_epoch or data_adapter.num_steps(data)
        callback_list = callbacks_module.CallbackList(
            items, self, {"epochs": epochs, "steps": steps, "verbose": verbose}
        )
        batches = _EpochBatches(data, steps_per_epoch)
        self.history = history
        self.stop_training = False
        logs = {}
        callback_list.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callback_list.on_epoch_begin(epoch)
            batch_logs = callback_list.wants_batch_logs()
            for step, (xb, yb, wb) in enumerate(batches.epoch()):
                callback_list.on_train_batch_begin(step)
                wb = _apply_class_weight(class_weight, yb, wb)
                self._train_batch(xb, yb, wb)
                callback_list.on_train_batch_end(step, self.metric_logs() if batch_logs else {})
                if self.stop_training:
                    break
            logs = self.metric_logs()
            if validation is not None and (epoch + 1) % validation_freq == 0:
                results = self._run_evaluation(validation)
                logs.update({f"val_{k}": v for k, v in results.items()})
            callback_list.on_epoch_end(epoch, logs)
            writer = summary.get_default_writer()
            if writer is not None:
                writer.flush()  # a crash later keeps this epoch's summaries
            if self.stop_training:
                break
        callback_list.on_train_end(logs)
        return history

    def _validation_batches(self, validation_data, batch_size):
        if isinstance(validation_data, tuple) and len(validation_data) in (2, 3):
            x, y, *rest = validation_data
            return data_adapter.ArrayBatches(x, y, rest[0] if rest else None, batch_size or 32)
        return data_adapter.IterableBatches(validation_data)

    def _run_evaluation(self, data, callback_list=None) -> dict:
        self.reset_metrics()
        for step, (xb, yb, wb) in enumerate(data):
            if callback_list is not None:
                callback_list.on_test_batch_begin(step)
            self._test_batch(xb, yb, wb)
            if callback_list is not None:
                callback_list.on_test_batch_end(step, self.metric_logs())
        return self.metric_logs()

    def evaluate(
        self, x=None, y=None, batch_size=None, verbose: int = 0, sample_weight=None,
        callbacks=None, return_dict: bool = False,
    ):
        """Loss and metrics over the data: a float, a list [loss, metric...], or a dict."""
        self._require_compiled("evaluate")
        data = data_adapter.batches(x, y, sample_weight, batch_size, shuffle=False)
        callback_list = callbacks_module.CallbackList(callbacks or [], self, {"verbose": verbose})
        callback_list.on_test_begin()
        logs = self._run_evaluation(data, callback_list)
        callback_list.on_test_end(logs)
        if verbose:
            print(" - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose: int = 0, callbacks=None):
        """Outputs for every example, computed in batches, as a NumPy array."""
        data = data_adapter.batches(x, None, None, batch_size, shuffle=False)
        callback_list = callbacks_module.CallbackList(callbacks or [], self, {"verbose": verbose})
        callback_list.on_predict_begin()
        outputs = []
        for step, (xb, _, _) in enumerate(data):
            callback_list.on_predict_batch_begin(step)
            out = self(xb, training=False)
            outputs.append([np.asarray(o.numpy()) for o in nest.flatten(out)])
            callback_list.on_predict_batch_end(step, {"outputs": out})
        callback_list.on_predict_end()
        if not outputs:
            raise InvalidArgumentError("predict: the input holds no examples")
        joined = [np.concatenate(parts) for parts in zip(*outputs)]
        return joined[0] if len(joined) == 1 else joined


class _EpochBatches:
    """One epoch of batches: a full pass, or `steps` batches from an iterator kept across
    epochs (started again when a finite source runs out)."""

    def __init__(self, data, steps=None):
        self.data, self.steps, self.iterator = data, steps, None

    def epoch(self):
        if not self.steps:
            yield from self.data
            return
        for _ in range(self.steps):
            if self.iterator is None:
                self.iterator = iter(self.data)
            try:
                yield next(self.iterator)
            except StopIteration:
                self.iterator = iter(self.data)
                yield next(self.iterator)


def _apply_class_weight(class_weight, y, sample_weight):
    """Per-example weights from `class_weight` (sparse or one-hot labels), times sample_weight."""
    if not class_weight:
        return sample_weight
    labels = np.asarray(y.numpy())
    if labels.ndim == 2 and labels.shape[1] > 1:
        labels = labels.argmax(axis=1)
    labels = labels.reshape(len(labels)).astype(np.int64)
    weights = np.array([class_weight.get(int(c), 1.0) for c in labels], dtype=np.float32)
    if sample_weight is not None:
        weights = weights * np.asarray(sample_weight.numpy(), dtype=np.float32)
    return convert_to_tensor(weights)
