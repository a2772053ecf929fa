"""Callbacks for `Model.fit`/`evaluate`/`predict`: progress, history, early stopping, ...

A callback overrides any of the `on_*` hooks; `logs` is a dict of plain
floats (loss and metrics). `model.stop_training = True` ends `fit` after the
current epoch.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import sys
import time
import urllib.parse
import urllib.request
import warnings

import numpy as np
from tqdm.auto import tqdm

from kerasish import summary
from kerasish.checkpoint import Checkpoint, CheckpointError
from kerasish.core import random, settings
from kerasish.core.backend import device
from kerasish.core.tensor import Variable


class Callback:
    """Base class: every hook does nothing."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model) -> None:
        """Attach the model being trained, evaluated or run (`fit` does this).

        Args:
            model: the model; hooks reach it as ``self.model``.

        Example:
            >>> import kerasish as ks
            >>> callback, model = ks.callbacks.Callback(), ks.Sequential()
            >>> callback.set_model(model)
            >>> callback.model is model
            True
        """
        self.model = model

    def set_params(self, params: dict) -> None:
        """Attach the run's parameters (`fit` passes ``epochs``, ``steps`` and ``verbose``).

        Args:
            params: a dict; hooks reach it as ``self.params``.

        Example:
            >>> import kerasish as ks
            >>> callback = ks.callbacks.Callback()
            >>> callback.set_params({"epochs": 3, "steps": 10, "verbose": 0})
            >>> callback.params["epochs"]
            3
        """
        self.params = params

    def on_train_begin(self, logs=None):
        """Called once when `fit` starts, before the first epoch.

        Args:
            logs: unused by `fit` (None); kept for Keras's signature.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_train_begin(self, logs=None):
            ...         print("on_train_begin")
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...               callbacks=[Show()])
            on_train_begin
        """

    def on_train_end(self, logs=None):
        """Called once when `fit` ends (also after early stopping).

        Args:
            logs: the last epoch's logs.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_train_end(self, logs=None):
            ...         print(sorted(logs))
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...               callbacks=[Show()])
            ['loss']
        """

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of every epoch of `fit`.

        Args:
            epoch: the epoch's index, from 0.
            logs: unused by `fit` (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_epoch_begin(self, epoch, logs=None):
            ...         print("epoch", epoch)
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...               callbacks=[Show()])
            epoch 0
        """

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of every epoch of `fit`, after validation.

        Args:
            epoch: the epoch's index, from 0.
            logs: the epoch's loss and metrics (``val_``-prefixed ones after validation).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_epoch_end(self, epoch, logs=None):
            ...         print(epoch, sorted(logs))
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...               callbacks=[Show()])
            0 ['loss']
        """

    def on_train_batch_begin(self, batch, logs=None):
        """Called before every training step of `fit`.

        Args:
            batch: the batch's index, from 0.
            logs: unused by `fit` (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_train_batch_begin(self, batch, logs=None):
            ...         print("batch", batch)
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...               callbacks=[Show()])
            batch 0
            batch 1
        """

    def on_train_batch_end(self, batch, logs=None):
        """Called after every training step of `fit`.

        Args:
            batch: the batch's index, from 0.
            logs: the running loss and metrics of the epoch so far (given only when some
                callback overrides this hook, since they cost a device sync).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_train_batch_end(self, batch, logs=None):
            ...         print(batch, sorted(logs))
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...               callbacks=[Show()])
            0 ['loss']
            1 ['loss']
        """

    def on_test_begin(self, logs=None):
        """Called once when `evaluate` (or `fit`'s validation) starts.

        Args:
            logs: unused (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_test_begin(self, logs=None):
            ...         print("on_test_begin")
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.evaluate(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...                    callbacks=[Show()])
            on_test_begin
        """

    def on_test_end(self, logs=None):
        """Called once when `evaluate` (or `fit`'s validation) ends.

        Args:
            logs: the evaluation's loss and metrics.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_test_end(self, logs=None):
            ...         print(sorted(logs))
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.evaluate(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...                    callbacks=[Show()])
            ['loss']
        """

    def on_test_batch_begin(self, batch, logs=None):
        """Called before every step of `evaluate`.

        Args:
            batch: the batch's index, from 0.
            logs: unused (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_test_batch_begin(self, batch, logs=None):
            ...         print("batch", batch)
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.evaluate(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...                    callbacks=[Show()])
            batch 0
            batch 1
        """

    def on_test_batch_end(self, batch, logs=None):
        """Called after every step of `evaluate`.

        Args:
            batch: the batch's index, from 0.
            logs: the running loss and metrics so far.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_test_batch_end(self, batch, logs=None):
            ...         print(batch, sorted(logs))
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.evaluate(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0,
            ...                    callbacks=[Show()])
            0 ['loss']
            1 ['loss']
        """

    def on_predict_begin(self, logs=None):
        """Called once when `predict` starts.

        Args:
            logs: unused (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_predict_begin(self, logs=None):
            ...         print("on_predict_begin")
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.predict(np.ones((4, 2)), batch_size=2, verbose=0, callbacks=[Show()])
            on_predict_begin
        """

    def on_predict_end(self, logs=None):
        """Called once when `predict` ends.

        Args:
            logs: unused (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_predict_end(self, logs=None):
            ...         print("on_predict_end")
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.predict(np.ones((4, 2)), batch_size=2, verbose=0, callbacks=[Show()])
            on_predict_end
        """

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before every step of `predict`.

        Args:
            batch: the batch's index, from 0.
            logs: unused (None).

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_predict_batch_begin(self, batch, logs=None):
            ...         print("batch", batch)
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.predict(np.ones((4, 2)), batch_size=2, verbose=0, callbacks=[Show()])
            batch 0
            batch 1
        """

    def on_predict_batch_end(self, batch, logs=None):
        """Called after every step of `predict`.

        Args:
            batch: the batch's index, from 0.
            logs: ``{'outputs': ...}``, the batch's predictions.

        Example:
            >>> import numpy as np
            >>> import kerasish as ks
            >>> class Show(ks.callbacks.Callback):
            ...     def on_predict_batch_end(self, batch, logs=None):
            ...         print(batch, logs['outputs'].shape)
            >>> model = ks.Sequential([ks.layers.Dense(1)])
            >>> model.compile("sgd", "mse")
            >>> _ = model.predict(np.ones((4, 2)), batch_size=2, verbose=0, callbacks=[Show()])
            0 (2, 1)
            1 (2, 1)
        """



class CallbackList:
    """Calls a hook on every callback in order.

    Args:
        callbacks: the callbacks, called in this order.
        add_history: add a `History` callback if there is none (Keras's argument).
        add_progbar: add a `ProgbarLogger` if there is none.
        model: the model given to each callback's `set_model`.
        **params: the dict given to each callback's `set_params` (a dict passed
            as `params=` is taken as it is).

    Example:
        >>> import kerasish as ks
        >>> history = ks.callbacks.History()
        >>> callbacks = ks.callbacks.CallbackList([history], model=ks.Sequential(), epochs=1)
        >>> callbacks.on_train_begin()
        >>> callbacks.on_epoch_end(0, {"loss": 0.5})
        >>> history.history
        {'loss': [0.5]}
    """

    def __init__(self, callbacks=None, add_history: bool = False, add_progbar: bool = False,
                 model=None, **params):
        params = params.pop("params") if set(params) == {"params"} else params
        self.callbacks = list(callbacks or [])
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.insert(0, ProgbarLogger())
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        self.model, self.params = model, params
        for callback in self.callbacks:
            if model is not None:
                callback.set_model(model)
            callback.set_params(params)

    def append(self, callback) -> None:
        """Add `callback` at the end (given the list's model and params).

        Args:
            callback: the callback to add.

        Example:
            >>> import kerasish as ks
            >>> callbacks = ks.callbacks.CallbackList(epochs=1)
            >>> callbacks.append(ks.callbacks.History())
            >>> len(callbacks.callbacks)
            1
        """
        if self.model is not None:
            callback.set_model(self.model)
        callback.set_params(self.params)
        self.callbacks.append(callback)

    def wants_batch_logs(self) -> bool:
        """Whether any callback looks at per-batch logs (computing them costs a device sync)."""
        return any(
            type(c).on_train_batch_end is not Callback.on_train_batch_end
            and getattr(c, "wants_batch_logs", True)
            for c in self.callbacks
        )

    def __getattr__(self, hook: str):
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def call(*args, **kwargs):
            for callback in self.callbacks:
                getattr(callback, hook)(*args, **kwargs)

        return call


def _format_logs(logs: dict) -> str:
    return " - ".join(f"{key}: {value:.4f}" for key, value in logs.items())


class ProgbarLogger(Callback):
    """Progress output: a tqdm bar per epoch in a terminal, one line per epoch otherwise.

    Args:
        verbose: 1 for a bar when the stream is a terminal and interactive logging is on
            (`ks.config.disable_interactive_logging`), else one line per epoch; 2 for one
            line per epoch always.
        stream: where the output goes (default: ``sys.stdout``).

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1, kernel_initializer="zeros")])
        >>> model.compile("sgd", "mse")
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0,
        ...               callbacks=[ks.callbacks.ProgbarLogger(verbose=2)])
        Epoch 1/1 - loss: 1.0000
    """

    def __init__(self, verbose: int = 1, stream=None):
        super().__init__()
        self.stream = stream or sys.stdout
        interactive = (getattr(self.stream, "isatty", lambda: False)()
                       and settings.is_interactive_logging_enabled())
        self.use_bar = verbose == 1 and interactive
        self.wants_batch_logs = self.use_bar  # the bar's postfix shows them
        self.bar = None

    def on_epoch_begin(self, epoch, logs=None):
        epochs = self.params.get("epochs")
        self.description = f"Epoch {epoch + 1}/{epochs}"
        if self.use_bar:
            self.bar = tqdm(
                total=self.params.get("steps"), desc=self.description, unit="batch",
                file=self.stream, leave=True, dynamic_ncols=True,
            )

    def on_train_batch_end(self, batch, logs=None):
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in (logs or {}).items()}, refresh=False)

    def on_epoch_end(self, epoch, logs=None):
        if self.bar is not None:
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in (logs or {}).items()})
            self.bar.close()
            self.bar = None
        else:
            print(f"{self.description} - {_format_logs(logs or {})}", file=self.stream, flush=True)


class History(Callback):
    """Records `logs` of every epoch: `history.history['loss'][epoch]`."""

    def __init__(self):
        super().__init__()
        self.epoch = []
        self.history = {}

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)


def _improvement(mode: str, monitor: str):
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode == "auto":
        mode = "max" if any(k in monitor for k in ("acc", "auc", "precision", "recall")) else "min"
    return np.greater if mode == "max" else np.less


class EarlyStopping(Callback):
    """Stop when `monitor` stops improving for `patience` epochs.

    With restore_best_weights=True the best epoch's weights are restored at the
    end of training, whether or not this callback stopped it.

    Args:
        monitor: the log value to watch ("val_loss", "loss", "val_accuracy", ...).
        min_delta: the least change that counts as an improvement.
        patience: epochs without improvement before training stops.
        mode: "min", "max", or "auto" (max for accuracy, AUC, precision and
            recall, else min).
        baseline: a value the monitored quantity must beat (None: the first epoch's).
        restore_best_weights: set the best epoch's weights back at the end.
        start_from_epoch: epochs to wait before watching (a warm-up).
        verbose: 1 prints when it stops and restores.

    Raises:
        ValueError: for a `mode` other than "auto", "min" or "max".

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile(ks.optimizers.SGD(0.0), "mse")  # a rate of 0: no improvement
        >>> stop = ks.callbacks.EarlyStopping(monitor="loss", patience=2)
        >>> history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=10, verbose=0,
        ...                     callbacks=[stop])
        >>> len(history.history["loss"]), stop.stopped_epoch
        (3, 2)
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0.0,
        patience: int = 0,
        mode: str = "auto",
        baseline=None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
        verbose: int = 0,
    ):
        super().__init__()
        self.monitor, self.patience, self.baseline = monitor, patience, baseline
        self.min_delta = abs(min_delta)
        self.better = _improvement(mode, monitor)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch, self.verbose = start_from_epoch, verbose

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = None
        self.best = math.inf if self.better is np.less else -math.inf
        if self.baseline is not None:
            self.best = self.baseline
        self.best_weights = None
        self.best_epoch = None

    def on_epoch_end(self, epoch, logs=None):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(
                f"EarlyStopping: monitor {self.monitor!r} is not in the logs "
                f"(available: {', '.join(logs or {})})",
                stacklevel=2,
            )
            return
        if epoch < self.start_from_epoch:
            return
        delta = -self.min_delta if self.better is np.less else self.min_delta
        if self.better(value - delta, self.best):
            self.best, self.best_epoch, self.wait = value, epoch, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.verbose:
                print(f"Epoch {epoch + 1}: early stopping ({self.monitor} did not improve)")

    def on_train_end(self, logs=None):
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                print(f"Restoring weights from epoch {self.best_epoch + 1}")
            self.model.set_weights(self.best_weights)


class LearningRateScheduler(Callback):
    """Set the optimizer's learning rate each epoch to `schedule(epoch, current_lr)`.

    Args:
        schedule: a function (epoch counted from 0, current rate) -> new rate.
        verbose: 1 prints the rate set at each epoch.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile(ks.optimizers.SGD(0.1), "mse")
        >>> halve = ks.callbacks.LearningRateScheduler(lambda epoch, rate: rate / 2)
        >>> history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=3, verbose=0,
        ...                     callbacks=[halve])
        >>> [round(rate, 6) for rate in history.history["learning_rate"]]  # float32 rates
        [0.05, 0.025, 0.0125]
    """

    def __init__(self, schedule, verbose: int = 0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        rate = float(self.schedule(epoch, float(optimizer.learning_rate)))
        optimizer.learning_rate = rate
        if self.verbose:
            print(f"Epoch {epoch + 1}: learning rate set to {rate:.6g}")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)


class CSVLogger(Callback):
    """Write one CSV row per epoch (flushed at once, so a crash keeps finished epochs).

    Args:
        filename: the CSV file; its header is `epoch` and the log names.
        separator: the field separator.
        append: add to an existing file (continuing an interrupted run) instead
            of starting it anew.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0,
        ...               callbacks=[ks.callbacks.CSVLogger(path)])
        >>> open(path).read().splitlines()[0]
        'epoch,loss'
    """

    def __init__(self, filename, separator: str = ",", append: bool = False):
        super().__init__()
        self.filename, self.separator, self.append = os.fspath(filename), separator, append
        self.file = None
        self.writer = None

    def on_train_begin(self, logs=None):
        exists = self.append and os.path.exists(self.filename) and os.path.getsize(self.filename)
        self.file = open(self.filename, "a" if self.append else "w", newline="")
        self.header_written = bool(exists)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.writer is None:
            self.keys = list(logs)
            self.writer = csv.DictWriter(
                self.file, fieldnames=["epoch"] + self.keys, delimiter=self.separator
            )
            if not self.header_written:
                self.writer.writeheader()
        self.writer.writerow({"epoch": epoch, **{k: logs.get(k, "") for k in self.keys}})
        self.file.flush()
        os.fsync(self.file.fileno())

    def on_train_end(self, logs=None):
        if self.file is not None:
            self.file.close()
            self.file = None
            self.writer = None


class ModelCheckpoint(Callback):
    """Save the model's weights (or a whole checkpoint) during `fit`.

    Args:
        filepath: a path template with `{epoch}` (1-based) and any log value,
            e.g. "ckpt/weights-{epoch:02d}-{val_loss:.2f}.h5".
        monitor, mode: what "best" means for save_best_only.
        save_best_only: write only when `monitor` improves.
        save_weights_only: True writes model.save_weights (the model only); False
            also saves the optimizer, so training can resume exactly. A filepath
            ending in `.keras` always gets the whole model (`model.save`: architecture,
            weights, compile settings and optimizer state), as in Keras 3.
        save_freq: "epoch", or an integer number of batches.
        initial_value_threshold: with save_best_only, the value `monitor` must beat
            for the first save (Keras's argument; None: the first value is saved).

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> folder = tempfile.mkdtemp()
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> save = ks.callbacks.ModelCheckpoint(os.path.join(folder, "weights-{epoch:02d}.h5"),
        ...                                     monitor="loss")
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[save])
        >>> sorted(os.listdir(folder))
        ['weights-01.h5', 'weights-02.h5']
    """

    def __init__(self, filepath, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = True,
                 mode: str = "auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor, self.verbose = monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.better = _improvement(mode, monitor)
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(f"save_freq must be 'epoch' or a positive integer, got {save_freq!r}")
        self.save_freq = save_freq
        self.initial_value_threshold = initial_value_threshold
        self.best = initial_value_threshold
        self._batches = 0
        self._epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._batches += 1
        if self.save_freq != "epoch" and self._batches % self.save_freq == 0:
            self._save(self._epoch, logs or {})

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, logs or {})

    def _save(self, epoch: int, logs: dict) -> None:
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(
                    f"ModelCheckpoint: monitor {self.monitor!r} is not in the logs "
                    f"(available: {', '.join(logs)}); not saving",
                    stacklevel=2,
                )
                return
            if self.best is not None and not self.better(current, self.best):
                return
            self.best = current
        try:
            path = self.filepath.format(epoch=epoch + 1, **logs)
        except KeyError as exc:
            raise KeyError(
                f"ModelCheckpoint: filepath {self.filepath!r} uses {exc}, which is not in the "
                f"logs (available: epoch, {', '.join(logs)})"
            ) from None
        if path.endswith(".keras"):
            self.model.save(path)
        elif self.save_weights_only:
            self.model.save_weights(path)
        else:
            Checkpoint(model=self.model, optimizer=self.model.optimizer).write(path)
        if self.verbose:
            print(f"Epoch {epoch + 1}: saved {path}")


class TensorBoard(Callback):
    """Write loss, metrics and learning rate to TensorBoard during `fit`.

    Training values go to `<log_dir>/train`, validation values (the `val_`
    logs, without the prefix) to `<log_dir>/validation`, so TensorBoard draws
    them as two runs on the same charts. `update_freq="epoch"` writes once per
    epoch (tags `epoch_loss`, `epoch_accuracy`, ..., `epoch_learning_rate`; step =
    epoch); an integer N also writes the running training values every N batches
    (`batch_loss`, ...; step = the optimizer's `iterations`, so a resumed run
    continues the curve). `histogram_freq=K` writes weight histograms every K
    epochs. `purge_step=S` (e.g. the epoch a resumed run starts from) hides the
    events an interrupted run wrote at steps >= S.

    Args:
        log_dir: the directory for the `train` and `validation` runs.
        histogram_freq: write weight histograms every this many epochs (0: never).
        update_freq: "epoch", or a number of batches between training values.
        write_graph: write the model's config as text (tag `keras`), once, at the start
            (there is no computation graph to draw on eager NumPy/CuPy).
        write_images: with histograms, also write each kernel as an image.
        write_steps_per_second: log `steps_per_second` each epoch (and batch, with update_freq).
        profile_batch: must be 0: there is no profiler for NumPy/CuPy training to attach
            (a ValueError says so otherwise).
        embeddings_freq: write the weights of every `Embedding` layer for the projector
            every this many epochs (0: never).
        embeddings_metadata: a metadata file per Embedding layer name (a dict), or one
            file for all (a str), shown by the projector.
        purge_step: the step from which an earlier run's events are hidden.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> log_dir = tempfile.mkdtemp()
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0,
        ...               validation_data=(np.ones((2, 2)), np.ones((2, 1))),
        ...               callbacks=[ks.callbacks.TensorBoard(log_dir)])
        >>> sorted(os.listdir(log_dir))
        ['train', 'validation']
    """

    def __init__(self, log_dir="logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False,
                 update_freq="epoch", profile_batch=0, embeddings_freq: int = 0,
                 embeddings_metadata=None, purge_step=None):
        super().__init__()
        if profile_batch not in (0, None, (0, 0), [0, 0]):
            raise ValueError(
                f"TensorBoard: profile_batch={profile_batch!r} asks for the TensorFlow "
                "profiler, which cannot trace NumPy/CuPy training; pass profile_batch=0 (time "
                "steps with write_steps_per_second=True, or profile with cProfile / Nsight)")
        self.log_dir = os.fspath(log_dir)
        self.write_graph, self.write_images = bool(write_graph), bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.profile_batch = profile_batch
        self.embeddings_freq, self.embeddings_metadata = int(embeddings_freq), embeddings_metadata
        self._clock = None
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and not (isinstance(update_freq, int) and update_freq > 0):
            raise ValueError(
                f"TensorBoard: update_freq must be 'epoch', 'batch' or a positive number of "
                f"batches, got {update_freq!r}"
            )
        self.histogram_freq, self.update_freq = histogram_freq, update_freq
        self.purge_step = purge_step
        self._writers = {}
        self._batches = 0

    def _writer(self, run: str):
        if run not in self._writers:
            self._writers[run] = summary.create_file_writer(
                os.path.join(self.log_dir, run), purge_step=self.purge_step
            )
        return self._writers[run]

    def _write(self, run: str, values: dict, step: int, prefix: str = "") -> None:
        with self._writer(run).as_default(), summary.record_if(True):
            for key, value in values.items():
                summary.scalar(prefix + key, value, step=step)

    def on_train_begin(self, logs=None):
        self._batches = 0
        if self.write_graph:
            config = getattr(self.model, "to_json", None)
            if config is not None:
                with self._writer("train").as_default(), summary.record_if(True):
                    summary.text("keras", config(), step=0)

    def on_epoch_begin(self, epoch, logs=None):
        self._clock = (time.perf_counter(), self._batches)

    def on_train_batch_begin(self, batch, logs=None):
        if self._clock is None:
            self._clock = (time.perf_counter(), self._batches)

    def on_train_batch_end(self, batch, logs=None):
        self._batches += 1
        if self.update_freq != "epoch" and self._batches % int(self.update_freq) == 0:
            optimizer = getattr(self.model, "optimizer", None)
            step = int(optimizer.iterations) if optimizer is not None else self._batches
            values = dict(logs or {})
            if self.write_steps_per_second:
                values["steps_per_second"] = self._steps_per_second()
            self._write("train", values, step, prefix="batch_")

    def _steps_per_second(self) -> float:
        start, batches = self._clock or (time.perf_counter(), self._batches)
        elapsed = time.perf_counter() - start
        return (self._batches - batches) / elapsed if elapsed > 0 else 0.0

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {})
        train = {f"epoch_{k}": v for k, v in logs.items() if not k.startswith("val_")}
        validation = {f"epoch_{k[4:]}": v for k, v in logs.items() if k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and "epoch_learning_rate" not in train:
            train["epoch_learning_rate"] = float(optimizer.learning_rate)
        if self.write_steps_per_second:
            train["epoch_steps_per_second"] = self._steps_per_second()
        self._write("train", train, epoch)
        if validation:
            self._write("validation", validation, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            with self._writer("train").as_default(), summary.record_if(True):
                for variable in self.model.variables:
                    summary.histogram(variable.name, variable, step=epoch)
                    if self.write_images and len(variable.shape) in (2, 4):
                        summary.image(variable.name, _weight_image(variable.numpy()),
                                      step=epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._write_embeddings(epoch)
        for writer in self._writers.values():
            writer.flush()

    def _write_embeddings(self, epoch: int) -> None:
        """Each Embedding layer's weights for the projector (with its metadata file)."""
        layers = [layer for layer in [self.model, *self.model.submodules]
                  if type(layer).__name__ == "Embedding"]
        with self._writer("train").as_default(), summary.record_if(True):
            for layer in layers:
                metadata = self.embeddings_metadata
                if isinstance(metadata, dict):
                    metadata = metadata.get(layer.name)
                labels = None
                if metadata is not None:
                    with open(metadata, encoding="utf-8") as handle:
                        labels = [line.rstrip("\n") for line in handle]
                summary.embedding(layer.embeddings.numpy(), metadata=labels, tag=layer.name,
                                  step=epoch)

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}


def _weight_image(array):
    """A kernel as a one-image NHWC batch for `summary.image`, scaled to [0, 1]."""
    matrix = array.reshape(-1, array.shape[-1]) if array.ndim == 4 else array
    low, high = float(matrix.min()), float(matrix.max())
    scaled = (matrix - low) / (high - low) if high > low else np.zeros_like(matrix)
    return scaled[None, :, :, None].astype(np.float32)


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by `factor` when `monitor` stops improving.

    After `patience` epochs without an improvement of more than `min_delta`,
    the optimizer's learning rate becomes `max(lr * factor, min_lr)`; then
    `cooldown` epochs pass before waiting starts again. The current rate is
    added to the epoch's logs as `learning_rate`. Keras 3's arguments and
    defaults.

    Args:
        monitor: the log value to watch, e.g. "val_loss" or "loss".
        factor: the multiplier, in [0, 1).
        patience: epochs without improvement before the rate is reduced.
        verbose: 1 prints a line at each reduction.
        mode: "min", "max", or "auto" ("max" for accuracies, AUC, precision
            and recall, as `EarlyStopping` decides; "min" otherwise).
        min_delta: the smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate never goes below this.

    Raises:
        ValueError: if `factor` is not in [0, 1) or `mode` is unknown.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile(ks.optimizers.SGD(0.1), "mse")
        >>> x = np.ones((8, 2), np.float32)
        >>> reduce = ks.callbacks.ReduceLROnPlateau("loss", factor=0.5, patience=0, min_delta=1e9)
        >>> history = model.fit(x, x[:, :1], epochs=3, verbose=0, callbacks=[reduce])
        >>> [round(lr, 4) for lr in history.history["learning_rate"]]  # the rate each epoch ran at
        [0.1, 0.1, 0.05]
    """

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0):
        super().__init__()
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in [0, 1), got {factor!r}")
        self.maximize = _improvement(mode, monitor) is np.greater
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.mode, self.min_delta = mode, abs(min_delta)
        self.cooldown, self.min_lr = cooldown, min_lr
        self._reset()

    def _reset(self) -> None:
        self.best = -math.inf if self.maximize else math.inf
        self.wait = 0
        self.cooldown_counter = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def _improved(self, value: float) -> bool:
        if self.maximize:
            return value > self.best + self.min_delta
        return value < self.best - self.min_delta

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        rate = float(optimizer.learning_rate)
        logs["learning_rate"] = rate
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"ReduceLROnPlateau: monitor {self.monitor!r} is not in the logs "
                f"(available: {', '.join(logs)}); the learning rate is left as it is",
                stacklevel=2,
            )
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(value):
            self.best, self.wait = value, 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait < self.patience or rate <= np.float32(self.min_lr):
            return
        new_rate = max(rate * self.factor, self.min_lr)
        optimizer.learning_rate = new_rate
        self.cooldown_counter, self.wait = self.cooldown, 0
        if self.verbose:
            print(f"Epoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_rate:.6g}")


class TerminateOnNaN(Callback):
    """Stop training as soon as a batch's loss is NaN or infinite.

    Args:
        raise_error: raise a RuntimeError instead of stopping quietly (Keras's argument),
            so a script or a test fails at the batch.

    Raises:
        RuntimeError: with `raise_error`, naming the batch and the loss.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile(ks.optimizers.SGD(1e30), "mse")
        >>> x = np.full((64, 2), 1e10, np.float32)
        >>> with np.errstate(over="ignore", invalid="ignore"):  # the weights blow up
        ...     history = model.fit(x, x[:, :1], batch_size=8, epochs=5, verbose=0,
        ...                         callbacks=[ks.callbacks.TerminateOnNaN()])
        Batch 1: the loss is inf; terminating training
        >>> len(history.epoch)
        1
    """

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = bool(raise_error)

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            if self.raise_error:
                raise RuntimeError(f"TerminateOnNaN: batch {batch} has the loss {loss}; "
                                   "training stopped (raise_error=True)")
            print(f"Batch {batch}: the loss is {loss}; terminating training")
            self.model.stop_training = True


class SwapEMAWeights(Callback):
    """Evaluate and predict with the optimizer's moving averages of the weights (`use_ema`).

    Before `evaluate`/`predict` (and the validation in `fit`) the averages are swapped
    into the model's variables, and swapped back after. With `swap_on_epoch`, they are
    in the model at the end of each epoch too (for a `ModelCheckpoint` placed after this
    callback), as Keras does.

    Args:
        swap_on_epoch: also swap at the end of each epoch (and back at the next start).

    Raises:
        ValueError: when the model's optimizer does not keep averages (use_ema=False).

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
        >>> model.compile(ks.optimizers.SGD(0.1, use_ema=True), "mse")
        >>> x = np.ones((4, 2), np.float32)
        >>> _ = model.fit(x, x[:, :1], validation_data=(x, x[:, :1]), verbose=0,
        ...               callbacks=[ks.callbacks.SwapEMAWeights()])
    """

    def __init__(self, swap_on_epoch: bool = False):
        super().__init__()
        self.swap_on_epoch = bool(swap_on_epoch)
        self._ema_weights_in_model = False

    def _optimizer(self):
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if not getattr(optimizer, "use_ema", False):
            raise ValueError(
                "SwapEMAWeights must be used with an optimizer that keeps the moving averages "
                f"of the weights: set use_ema=True on it (received use_ema="
                f"{getattr(optimizer, 'use_ema', None)})")
        return optimizer

    def _pairs(self):
        optimizer = self._optimizer()
        return [(optimizer._slot_owners[key], aux["average"])
                for key, aux in optimizer._aux.items() if "average" in aux]

    def _swap(self) -> None:
        for var, average in self._pairs():
            held = var.numpy().copy()
            var.assign(average)
            average.assign(held)

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = True
            if epoch == self.params.get("epochs", 0) - 1:  # fit ends by writing the averages
                for var, average in self._pairs():
                    average.assign(var)

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = False

    on_predict_begin = on_test_begin
    on_predict_end = on_test_end


class RemoteMonitor(Callback):
    """POST each epoch's logs to a server (Keras's RemoteMonitor), with the standard library.

    A failed post is a warning (as in Keras), never the end of training.

    Args:
        root: the server's address.
        path: the path the logs are posted to.
        field: the form field holding the logs as JSON (unless `send_as_json`).
        headers: extra HTTP headers.
        send_as_json: post the logs as a JSON body instead of a form field.

    Example:
        >>> import kerasish as ks
        >>> monitor = ks.callbacks.RemoteMonitor(root="http://localhost:9000")
        >>> monitor.root, monitor.path
        ('http://localhost:9000', '/publish/epoch/end/')
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data",
                 headers=None, send_as_json=False):
        super().__init__()
        self.root, self.path, self.field = root, path, field
        self.headers, self.send_as_json = headers, bool(send_as_json)

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if hasattr(value, "item") else value
        if self.send_as_json:
            body = json.dumps(send).encode("utf-8")
            headers = {"Content-Type": "application/json", **(self.headers or {})}
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode("utf-8")
            headers = dict(self.headers or {})
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10):
                pass
        except (OSError, ValueError) as exc:
            warnings.warn(f"RemoteMonitor: could not reach the server at {self.root}: {exc}",
                          stacklevel=2)


class OrbaxCheckpoint(Callback):
    """Keras's OrbaxCheckpoint: not available here (it is tied to JAX and Orbax).

    Orbax saves JAX arrays (sharded, asynchronously); kerasish trains on NumPy/CuPy. Use
    `ModelCheckpoint` (`.keras` or `.weights.h5` files) or `BackupAndRestore` instead.

    Args:
        directory: Keras's checkpoint directory.
        monitor: Keras's arguments, accepted so a Keras program reaches the error
            that says what to use instead; none of them is used.
        verbose: as `monitor`.
        save_best_only: as `monitor`.
        mode: as `monitor`.
        save_freq: as `monitor`.
        initial_value_threshold: as `monitor`.
        max_to_keep: as `monitor`.
        save_on_background: as `monitor`.
        save_weights_only: as `monitor`.

    Raises:
        NotImplementedError: always, saying what to use instead.

    Example:
        >>> import kerasish as ks
        >>> try:
        ...     ks.callbacks.OrbaxCheckpoint("ckpt")
        ... except NotImplementedError as error:
        ...     print(str(error)[:40])
        OrbaxCheckpoint saves JAX arrays with Or
    """

    def __init__(self, directory=None, monitor="val_loss", verbose=0, save_best_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None, max_to_keep=1,
                 save_on_background=True, save_weights_only=False):
        raise NotImplementedError(
            "OrbaxCheckpoint saves JAX arrays with Orbax, which needs the JAX backend; "
            "kerasish trains on NumPy/CuPy: use ModelCheckpoint (a .keras or .weights.h5 "
            "file) or BackupAndRestore instead")


# hook -> whether it takes an epoch or batch index before `logs`
_HOOKS = {name: name.endswith(("epoch_begin", "epoch_end")) or "batch" in name
          for name in vars(Callback) if name.startswith("on_")}


def _forward(hook: str):
    if _HOOKS[hook]:
        def forward(self, index, logs=None):
            function = self._functions.get(hook)
            if function is not None:
                function(index, logs if logs is not None else {})
    else:
        def forward(self, logs=None):
            function = self._functions.get(hook)
            if function is not None:
                function(logs if logs is not None else {})
    forward.__name__ = hook
    forward.__qualname__ = f"LambdaCallback.{hook}"
    forward.__doc__ = getattr(Callback, hook).__doc__  # the same contract as the base hook
    return forward


class LambdaCallback(Callback):
    """A callback made of plain functions, for one-off hooks.

    The epoch and batch functions receive `(index, logs)`, the others `(logs)`;
    `logs` is a dict (empty where `fit` has none).

    Args:
        on_epoch_begin, on_epoch_end: `f(epoch, logs)`.
        on_train_begin, on_train_end: `f(logs)`.
        on_train_batch_begin, on_train_batch_end: `f(batch, logs)`.
        on_batch_begin, on_batch_end: the Keras 2 names of the two above.
        **hooks: any other hook of `Callback` by name (`on_test_batch_end=...`).

    Raises:
        TypeError: for a keyword that is not a hook, or a hook given under both
            its names.

    Example:
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> seen = []
        >>> log = ks.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[log])
        >>> seen
        [0, 1]
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 on_batch_begin=None, on_batch_end=None, **hooks):
        super().__init__()
        unknown = sorted(set(hooks) - set(_HOOKS))
        if unknown:
            raise TypeError(
                f"LambdaCallback: {', '.join(unknown)} is not a callback hook; hooks are "
                f"{', '.join(sorted(_HOOKS))}"
            )
        functions = dict(hooks, on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                         on_train_begin=on_train_begin, on_train_end=on_train_end,
                         on_train_batch_begin=on_train_batch_begin,
                         on_train_batch_end=on_train_batch_end)
        for old, new in (("on_batch_begin", "on_train_batch_begin"),
                         ("on_batch_end", "on_train_batch_end")):
            function = on_batch_begin if old == "on_batch_begin" else on_batch_end
            if function is not None:
                if functions[new] is not None:
                    raise TypeError(f"LambdaCallback: give {new} or {old}, not both")
                functions[new] = function
        self._functions = {hook: f for hook, f in functions.items() if f is not None}
        self.wants_batch_logs = "on_train_batch_end" in self._functions


for _hook in _HOOKS:
    setattr(LambdaCallback, _hook, _forward(_hook))


class BackupAndRestore(Callback):
    """Back up training state during `fit`, so an interrupted `fit` resumes where it stopped.

    Every `save_freq` (the end of each epoch, or every N batches) the model's
    variables, the optimizer (slots, iterations, learning rate), the host's
    random stream (`ks.random.get_global_generator()`: array shuffling and
    dropout draw from it), the position (epoch and batch) and where the data
    stream stands are written to one checkpoint file, `<backup_dir>/backup.h5`,
    atomically: a crash while saving leaves the previous backup intact. Where the
    data stands is the random state and the pass counters of a `ks.data.Dataset`'s
    shuffles when the current pass started, and how many batches it gave. When
    `fit` starts with this callback and a backup exists, it is restored: the pass
    is started again from that state and its batches already trained are drawn
    again without training, so training continues at the saved epoch AND batch
    and the run ends with exactly the weights and optimizer state of an
    uninterrupted one, also for a dataset that reshuffles every epoch or repeats
    across epochs (`steps_per_epoch`). Running a second time after an
    interruption needs the same model structure, optimizer and data pipeline.

    A dataset shuffled without `seed` (and without `ks.random.set_seed` before it
    was built) has a new order in every process, and random draws made inside
    `map` functions come from the stream of training at the time: give those a
    seed (`shuffle(seed=...)`, `ks.random.SeedGenerator`) to resume them exactly.
    Random values drawn on a GPU (dropout there) come from CuPy's generators, whose
    state a backup cannot hold: on a GPU they differ after a resume.
    The running metrics of the resumed epoch cover only the batches trained
    after the resume.

    Args:
        backup_dir: the directory of the backup (created if needed); use one per
            training job.
        save_freq: "epoch", or a positive number of batches.
        double_checkpoint: also keep the previous backup (`backup.previous.h5`)
            and resume from it when the latest cannot be read (a damaged disk or
            copy; a crash while saving cannot damage it, as it is written atomically).
        delete_checkpoint: remove the backup when `fit` ends normally (it is
            kept when `fit` is interrupted, which is what it is for).

    Raises:
        ValueError: if `save_freq` is neither "epoch" nor a positive integer.

    Example:
        >>> import tempfile
        >>> import numpy as np
        >>> import kerasish as ks
        >>> model = ks.Sequential([ks.layers.Dense(1)])
        >>> model.compile("sgd", "mse")
        >>> backup = ks.callbacks.BackupAndRestore(tempfile.mkdtemp(), save_freq=2)
        >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=2, epochs=2, verbose=0,
        ...               callbacks=[backup])  # after a crash, the same call resumes
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint: bool = False,
                 delete_checkpoint: bool = True):
        super().__init__()
        if save_freq != "epoch" and not (
            isinstance(save_freq, int) and not isinstance(save_freq, bool) and save_freq > 0
        ):
            raise ValueError(
                f"BackupAndRestore: save_freq must be 'epoch' or a positive number of batches, "
                f"got {save_freq!r}"
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq, self.delete_checkpoint = save_freq, delete_checkpoint
        self.double_checkpoint = double_checkpoint
        self.path = os.path.join(self.backup_dir, "backup.h5")
        self.previous_path = os.path.join(self.backup_dir, "backup.previous.h5")
        self.wants_batch_logs = False
        with device("/cpu:0"):
            # where to continue: the next epoch and the next batch within it
            self._epoch = Variable(0, dtype=np.int64, trainable=False, name="epoch")
            self._step = Variable(0, dtype=np.int64, trainable=False, name="step")
            self._batches = Variable(0, dtype=np.int64, trainable=False, name="batches")
            # where the data stream stands: the random state and the dataset's pass counters
            # when its current pass started, and the batches that pass has given
            self._stream_rng = Variable(np.zeros(6, np.uint64), trainable=False,
                                        name="stream_rng")
            self._stream_drawn = Variable(0, dtype=np.int64, trainable=False,
                                          name="stream_drawn")
        self._stream_passes = None  # one per pass counter of the data, made by on_train_begin
        self._current_epoch = 0

    def _checkpoint(self):
        return Checkpoint(model=self.model, optimizer=self.model.optimizer,
                          rng=random.get_global_generator(), epoch=self._epoch, step=self._step,
                          batches=self._batches, stream_rng=self._stream_rng,
                          stream_drawn=self._stream_drawn, stream_passes=self._stream_passes)

    def _restore(self) -> bool:
        """Restore the latest readable backup; False if there is none."""
        candidates = [self.path] + ([self.previous_path] if self.double_checkpoint else [])
        for path in [p for p in candidates if os.path.exists(p)]:
            try:
                # model and optimizer values wait for variables not created yet (built at
                # the first batch); the position and the random stream are restored now
                self._checkpoint().read(path).expect_partial()
                return True
            except CheckpointError as error:
                if path == candidates[-1]:
                    raise
                warnings.warn(f"BackupAndRestore: {error}; using the previous backup instead",
                              stacklevel=3)
        return False

    def on_train_begin(self, logs=None):
        counters = len(self.model._fit_batches.counters)
        with device("/cpu:0"):
            self._stream_passes = Variable(np.zeros(counters, np.int64), trainable=False,
                                           name="stream_passes")
        if not self._restore():
            self._batches.assign(0)
            return
        position = (self._stream_rng.numpy(), self._stream_passes.numpy(),
                    int(self._stream_drawn))
        self.model._resume_at = (int(self._epoch), int(self._step), position)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._batches.assign_add(1)
        if self.save_freq != "epoch" and int(self._batches) % self.save_freq == 0:
            self._save(self._current_epoch, batch + 1)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0)

    def _save(self, epoch: int, step: int) -> None:
        self._epoch.assign(epoch)
        self._step.assign(step)
        random_state, passes, drawn = self.model._fit_batches.position()
        self._stream_rng.assign(random_state)
        self._stream_passes.assign(passes)
        self._stream_drawn.assign(drawn)
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self.path):
            os.replace(self.path, self.previous_path)
        self._checkpoint().write(self.path)

    def on_train_end(self, logs=None):
        if self.delete_checkpoint:
            for path in (self.path, self.previous_path):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)
            with contextlib.suppress(OSError):
                os.rmdir(self.backup_dir)  # only if nothing else is in it
