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
        """`fit`'s (data, validation, callbacks, verbose) for this process.

        Args:
            model: the model being fitted.
            data: its training batches.
            validation: its validation batches, or None.
            callbacks: the callbacks the user passed (a list, or None).
            verbose: the verbosity the user asked for.

        Returns:
            The four, as this process should use them (here: unchanged).

        Example:
            >>> from kerasish.models import training_hooks
            >>> training_hooks.TrainingHooks().prepare_fit(None, [1], None, [], 1)
            ([1], None, [], 1)
        """
        return data, validation, callbacks, verbose

    def prepare_evaluation(self, data):
        """`evaluate`'s batches for this process.

        Args:
            data: the batches the user's arguments give.

        Returns:
            The batches this process evaluates (here: unchanged).

        Example:
            >>> from kerasish.models import training_hooks
            >>> training_hooks.TrainingHooks().prepare_evaluation([1, 2])
            [1, 2]
        """
        return data

    def sync_metrics(self, metrics) -> None:
        """Make the metrics' states the figures of the whole job, before their results are
        read at the end of an epoch or evaluation (here: nothing to do).

        Args:
            metrics: the model's metrics.

        Example:
            >>> from kerasish.models import training_hooks
            >>> training_hooks.TrainingHooks().sync_metrics([])
        """


_hooks = TrainingHooks()


def install(hooks: TrainingHooks) -> None:
    """Make `hooks` the ones `fit` and `evaluate` consult from now on.

    Args:
        hooks: a `TrainingHooks` (a subclass overriding what it changes).

    Example:
        >>> from kerasish.models import training_hooks
        >>> installed = training_hooks.current()
        >>> training_hooks.install(installed)  # what ks.distribute does with its own
        >>> training_hooks.current() is installed
        True
    """
    global _hooks
    _hooks = hooks


def current() -> TrainingHooks:
    """The hooks installed now."""
    return _hooks
