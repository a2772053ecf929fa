"""What `Model.compile` attaches: the loss over the model's outputs and the compiled metrics.

A model has one output or several (a list, tuple or dict of tensors). Each output
has a name: the key of a dict output (outputs in the dict's order, as Keras keeps
them), else the model's `output_names` (functional models), else `output_1`,
`output_2`, ... by position. `loss`, `loss_weights`,
`metrics` and `weighted_metrics` may be given once (for every output), as a list
(by position) or as a dict (by output name); targets `y` and sample weights
likewise. Logs follow Keras 3: `loss` is the weighted total, and with several
losses each output's unweighted loss is logged as `<output>_loss`; a metric of
one output of several is logged as `<output>_<metric>`.

Both objects are built at the first batch, when the shapes are known (so
'accuracy' can be resolved to the binary, categorical or sparse one).
"""

from __future__ import annotations

from kerasish import losses as losses_module
from kerasish import metrics as metrics_module
from kerasish.core import nest
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import math_ops


def output_names_of(y_pred, declared=None) -> list:
    """The name of each output of `y_pred`: a dict's keys in its order, else by position.

    Args:
        y_pred: what the model returned (a tensor, or a list/tuple/dict of them).
        declared: the model's `output_names`, if it has them (functional models).
    """
    if isinstance(y_pred, dict):
        return list(y_pred)
    count = len(nest.flatten(y_pred))
    if declared is not None and len(declared) == count:
        return list(declared)
    if count == 1:
        return [None]
    return [f"output_{i + 1}" for i in range(count)]


def per_output(spec, names: list, argument: str, many=False) -> list:
    """`spec` (one value, a list by position or a dict by name) as one entry per output.

    Args:
        spec: what was given to `compile` for `argument`.
        names: the output names (`output_names_of`).
        argument: the argument's name, for error messages ('loss', 'metrics', ...).
        many: entries are lists themselves (metrics): a flat list is the list of the
            only output of a single-output model.
    """
    count = len(names)
    if isinstance(spec, dict):
        unknown = [key for key in spec if key not in names]
        if unknown:
            if count == 1 and len(spec) == 1:
                return list(spec.values())
            raise InvalidArgumentError(
                f"compile({argument}=...): key(s) {unknown} name no output of the model; "
                f"its outputs are {_describe(names)}"
            )
        return [spec.get(name) for name in names]
    if isinstance(spec, (list, tuple)):
        if count == 1 and (many or len(spec) == 1):
            return [spec if many else spec[0]]
        if len(spec) != count:
            raise InvalidArgumentError(
                f"compile({argument}=...): got a list of {len(spec)} entries for a model "
                f"with {count} outputs {names}; give one entry per output, or a dict keyed "
                "by output name"
            )
        return list(spec)
    return [spec] * count


def align(values, names: list, what: str) -> list:
    """Targets (or sample weights) `values` as one entry per output (None where absent)."""
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        unknown = [key for key in values if key not in names]
        if unknown:
            raise InvalidArgumentError(
                f"{what}: key(s) {unknown} name no output of the model; its outputs are "
                f"{_describe(names)}"
            )
        return [values.get(name) for name in names]
    flat = nest.flatten(values)
    if len(flat) != len(names):
        raise InvalidArgumentError(
            f"{what}: got {len(flat)} arrays for a model with {len(names)} outputs {names}"
        )
    return flat


def _describe(names: list) -> str:
    return "one output without a name" if names == [None] else str(names)


def _batch_size(tensor) -> int:
    return tensor.shape[0] if tensor.ndim else 1


class CompiledLoss:
    """The compiled loss: each output's loss times its weight, summed.

    Args:
        loss: a loss (name, function or `ks.losses.Loss`) for every output, a list of
            them by output position, or a dict by output name (outputs missing from it,
            or given None, have no loss).
        loss_weights: a float, a list or a dict of floats, matching `loss`.
        output_names: the model's declared output names, if any.
    """

    def __init__(self, loss, loss_weights=None, output_names=None):
        if isinstance(loss, dict):  # resolved now, so a wrong name fails in compile()
            loss = {key: losses_module.get(spec) for key, spec in loss.items()}
        elif isinstance(loss, (list, tuple)):
            loss = [losses_module.get(spec) for spec in loss]
        else:
            loss = losses_module.get(loss)
        self._loss, self._loss_weights, self._declared = loss, loss_weights, output_names
        self.names = None  # the output names, set by build
        self._losses = None  # per output: a Loss or None
        self._weights = None  # per output: a float or None
        self.metrics = []  # with several losses: each one's running mean, '<output>_loss'

    def build(self, y_pred) -> None:
        self.names = output_names_of(y_pred, self._declared)
        self._losses = per_output(self._loss, self.names, "loss")
        weights = self._loss_weights
        self._weights = ([None] * len(self.names) if weights is None
                         else per_output(weights, self.names, "loss_weights"))
        with_loss = [name for name, loss in zip(self.names, self._losses) if loss is not None]
        if len(with_loss) > 1:
            self.metrics = [metrics_module.Mean(f"{name}_loss") for name in with_loss]

    def loss_for(self, name):
        """The loss of output `name` (for resolving 'accuracy'); None if it has none."""
        return self._losses[self.names.index(name)]

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The weighted total over the outputs (None when no output has a loss)."""
        if self._losses is None:
            self.build(y_pred)
        predictions = align(y_pred, self.names, "the predictions")
        targets = align(y_true, self.names, "the targets y")
        weights = (align(sample_weight, self.names, "sample_weight")
                   if isinstance(sample_weight, dict) else [sample_weight] * len(self.names))
        trackers = iter(self.metrics)
        total = []
        for name, loss, weight, yt, yp, sw in zip(
            self.names, self._losses, self._weights, targets, predictions, weights
        ):
            if loss is None:
                continue
            if yt is None:
                where = "" if name is None else f" for output '{name}'"
                raise InvalidArgumentError(
                    f"the compiled loss needs targets y{where}, but the data holds none; pass "
                    "y to fit/evaluate (or yield (x, y) from the dataset), or compile without "
                    "that loss"
                )
            value = loss(yt, yp, sample_weight=sw)
            if self.metrics:
                next(trackers).update_state(value, sample_weight=_batch_size(yp))
            total.append(value if weight is None else value * weight)
        if not total:
            return None
        return total[0] if len(total) == 1 else math_ops.add_n(total)


class OutputMetric(metrics_module.Metric):
    """A compiled metric of one output of a multi-output model, logged as '<output>_<name>'.

    It takes the whole targets and predictions (as the model's other metrics do) and
    passes its output's part to the wrapped metric.
    """

    def __init__(self, metric, output_name: str, names: list, name=None):
        super().__init__(name=name or f"{output_name}_{metric.name}")
        self.metric = metric
        self.output_name = output_name
        self._names = names

    def _pick(self, values, what):
        return align(values, self._names, what)[self._names.index(self.output_name)]

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        if isinstance(sample_weight, dict):
            sample_weight = self._pick(sample_weight, "sample_weight")
        self.metric.update_state(
            self._pick(y_true, "the targets y"), self._pick(y_pred, "the predictions"),
            sample_weight=sample_weight,
        )

    def result(self):
        return self.metric.result()

    def reset_state(self) -> None:
        self.metric.reset_state()

    @property
    def variables(self) -> list:
        return self.metric.variables


class CompiledMetrics(metrics_module.Metric):
    """The metrics given to `compile`, made into metric objects at the first batch.

    `metrics` are updated without sample weights and `weighted_metrics` with them, as in
    Keras. A metric whose name is already taken is renamed: 'weighted_<name>' for a
    weighted one, then '<name>_1', '<name>_2', ...

    Until the first batch it stands for them in `model.metrics` as one metric (Keras's
    'compile_metrics'), so a custom step that updates every metric builds them; after
    that the model lists the metric objects themselves.

    Args:
        metrics, weighted_metrics: as given to `compile`.
        output_names: the model's declared output names, if any.
        compiled_loss: the `CompiledLoss` (its losses decide what 'accuracy' means).
    """

    def __init__(self, metrics, weighted_metrics=None, output_names=None, compiled_loss=None):
        super().__init__(name="compile_metrics")
        for argument, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value is not None and not isinstance(value, (list, tuple, dict)):
                raise InvalidArgumentError(
                    f"compile({argument}=...) takes a list or a dict of metrics, got "
                    f"{type(value).__name__} {value!r}; write {argument}=[{value!r}]"
                )
        self._specs = (metrics, weighted_metrics)
        self._declared = output_names
        self._compiled_loss = compiled_loss
        self.metrics = None  # the metric objects, once built
        self._weighted = set()  # ids of the weighted ones

    @property
    def built(self) -> bool:
        return self.metrics is not None

    def names_before_build(self) -> list:
        """Best-effort log names before the first batch (single-output models)."""
        result = []
        for spec in self._specs:
            for item in nest.flatten(spec) if spec is not None else []:
                result.append(item if isinstance(item, str) else getattr(item, "name", None))
        return [name for name in result if name]

    def build(self, y_true, y_pred) -> None:
        compiled_loss = self._compiled_loss
        names = output_names_of(y_pred, self._declared)
        predictions = align(y_pred, names, "the predictions")
        targets = align(y_true, names, "the targets y")
        built, taken = [], set()
        for weighted, spec in zip((False, True), self._specs):
            if spec is None:
                continue
            for name, entry, yt, yp in zip(
                names, per_output(spec, names, "metrics", many=True), targets, predictions
            ):
                entries = entry if isinstance(entry, (list, tuple)) else [entry]
                for item in entries:
                    if item is None:
                        continue
                    metric = self._resolve(item, name, yt, yp, compiled_loss)
                    label = metric.name if name is None or len(names) == 1 else (
                        f"{name}_{metric.name}")
                    label = _unique(label, taken, weighted)
                    if len(names) > 1:
                        metric = OutputMetric(metric, name, names, name=label)
                    elif label != metric.name:
                        metric._name = label
                    if weighted:
                        self._weighted.add(id(metric))
                    built.append(metric)
        self.metrics = built

    @staticmethod
    def _resolve(spec, output_name, y_true, y_pred, compiled_loss):
        if isinstance(spec, str) and spec.lower() in metrics_module.ACCURACY_NAMES:
            loss = compiled_loss.loss_for(output_name) if compiled_loss is not None else None
            return metrics_module.resolve_accuracy(
                loss, None if y_true is None else y_true.shape, y_pred.shape, name=spec
            )
        return metrics_module.get(spec)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Update every metric with this batch (building them at the first one)."""
        if self.metrics is None:
            self.build(y_true, y_pred)
        for metric in self.metrics:
            if id(metric) in self._weighted:
                metric.update_state(y_true, y_pred, sample_weight=sample_weight)
            else:
                metric.update_state(y_true, y_pred)

    def result(self) -> dict:
        """Each metric's result by name (empty before the first batch)."""
        return {metric.name: metric.result() for metric in self.metrics or []}

    def reset_state(self) -> None:
        for metric in self.metrics or []:
            metric.reset_state()

    @property
    def variables(self) -> list:
        return [v for metric in self.metrics or [] for v in metric.variables]


def _unique(label: str, taken: set, weighted: bool) -> str:
    if label in taken and weighted:
        label = f"weighted_{label}"
    base, n = label, 1
    while label in taken:
        label, n = f"{base}_{n}", n + 1
    taken.add(label)
    return label
