"""The hooks `fit` and `evaluate` consult around their loops, so that a package above
`models` (`ks.distribute`, for an MPI job) can change how they run without `models`
importing it.

The default hooks change nothing. `ks.distribute` installs its own when it is imported
(the package root imports it), and they in turn change nothing when the process runs alone.
"""

from __future__ import annotations


class TrainingHooks:
    """What `fit` and `evaluate` ask before and after their loops; each default is a no-op."""

    def prepare_fit(self, model, data, validation, callbacks, verbose: int):
        """`fit`'s (data, validation, callbacks, verbose) for this process."""
        return data, validation, callbacks, verbose

    def prepare_evaluation(self, data):
        """`evaluate`'s batches for this process."""
        return data

    def sync_metrics(self, metrics) -> None:
        """Make the metrics' states the figures of the whole job, before their results are
        read at the end of an epoch or evaluation."""


_hooks = TrainingHooks()


def install(hooks: TrainingHooks) -> None:
    """Make `hooks` the ones `fit` and `evaluate` consult from now on."""
    global _hooks
    _hooks = hooks


def current() -> TrainingHooks:
    """The hooks installed now."""
    return _hooks
