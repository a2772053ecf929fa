"""What every recipe shares: common flags, device/seed set-up, TensorBoard logs,
checkpoints that resume where they stopped, and a checkpoint saved on Ctrl-C.

Under `mpiexec -n N` (ks.distribute), only the chief (rank 0) writes TensorBoard logs and
checkpoints; every rank restores the latest checkpoint when resuming.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import signal
import sys
import time
import warnings

from tqdm.auto import tqdm

import kerasish as ks
from kerasish.core import backend


class _HelpFormatter(argparse.HelpFormatter):
    """Shows each option's default once: appended unless the help text already speaks of it."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (not action.option_strings or "default" in text.lower()
                or action.default is None or action.default is False
                or action.default == argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)"


def program_name(recipe: str) -> str:
    """How the user started the recipe: `kerasish <recipe>` or `python -m recipes.<recipe>`."""
    launcher = sys.argv[0] if sys.argv else ""
    if os.path.basename(launcher) in ("kerasish", "kerasish.exe") or launcher.endswith(
            os.path.join("kerasish", "__main__.py")):
        return f"kerasish {recipe}"
    return f"python -m recipes.{recipe}"


def parser_for(recipe: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the flags every recipe has."""
    parser = argparse.ArgumentParser(
        prog=program_name(recipe), description=description, formatter_class=_HelpFormatter,
    )
    parser.add_argument("--logdir", default=None,
                        help=f"TensorBoard log directory (default: runs/{recipe}/<timestamp>)")
    parser.add_argument("--checkpoint-dir", default=None,
                        help="save checkpoints here and resume from the latest one found")
    parser.add_argument("--device", default="cpu", help="'cpu' or 'gpu' (or '/gpu:N')")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed (results are reproducible)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bars or per-step progress lines (results are "
                        "still printed)")
    parser.add_argument("--eager", action="store_true",
                        help="run the training step op by op (for debugging) instead of "
                        "compiled with ks.function; both give the same numbers")
    return parser


def compiled_step(step, eager: bool):
    """`step` compiled with `ks.function`, or `step` itself with --eager.

    A compiled step is traced on its first call and replayed afterwards; its
    results equal the eager step's. Python statements in it (a print, a
    counter) run while tracing only, so the recipes keep those outside. In an
    MPI job of several ranks the step stays eager: the optimizer's gradient
    exchange is host code that a trace does not record.
    """
    return step if eager or ks.distribute.size() > 1 else ks.function(step)


def check_device(recipe: str, spec: str) -> None:
    """Stop with one line (before any data is loaded) if `--device` cannot be used here."""
    try:
        kind, index = backend.parse_device(spec)
        if kind == "gpu":
            backend.check_gpu(index)
    except (ValueError, ks.DeviceError) as exc:
        raise SystemExit(f"{recipe}: --device {spec}: {exc}") from None


def progress_bar(total: int | None, desc: str, quiet: bool, initial: int = 0,
                 unit: str = "batch", **options):
    """A tqdm bar on stderr, redrawn in place on a terminal and cleared when closed.

    When stderr is not a terminal (a log file, a pipe) or with --quiet there is
    no bar at all: the recipes print one line per epoch instead, so logs hold
    no carriage-return redraws. Use it as a context manager, so that an
    exception (Ctrl-C) clears it before anything else is printed. `options` go to tqdm.
    """
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, leave=False,
                dynamic_ncols=True, disable=not bars_shown(quiet), **options)


def bars_shown(quiet: bool) -> bool:
    """Whether progress bars are drawn: on a terminal (stderr), without --quiet."""
    return not quiet and sys.stderr.isatty()


def tensorboard_hint(logdir: str) -> str:
    """The command that shows a run's logs."""
    return f"tensorboard --logdir {shlex.quote(logdir)}"


def blas_threads(limit: int | None):
    """A context that limits BLAS to `limit` threads (threadpoolctl when installed, else a
    no-op: then OPENBLAS_NUM_THREADS / OMP_NUM_THREADS, set before starting, decide).

    On a busy machine with few cores, OpenBLAS threads that wait for a descheduled
    partner make even small products slow: on a shared 2-core machine the MNIST MLP
    took about 10 s per epoch with OpenBLAS's 2 threads and 1.1 s with 1.
    """
    if not limit:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        warnings.warn(
            f"--blas-threads {limit} has no effect without threadpoolctl: "
            "pip install -e '.[recipes]' (or set OPENBLAS_NUM_THREADS before starting)",
            stacklevel=2,
        )
        return contextlib.nullcontext()
    return threadpool_limits(limits=limit, user_api="blas")


def default_logdir(recipe: str, logdir: str | None) -> str:
    return logdir or os.path.join("runs", recipe, time.strftime("%Y%m%d-%H%M%S"))


class Session:
    """Checkpointing and logging for one recipe run.

    `step` (a variable, saved in the checkpoint) counts training steps; after
    `restore()` it says where the interrupted run stopped, and the TensorBoard
    writer hides anything that run logged after that step. In an MPI job the
    ranks other than the chief read checkpoints but write nothing.
    """

    def __init__(self, recipe: str, args, **trackables):
        self.recipe = recipe
        self.chief = ks.distribute.is_chief()
        self.step = ks.Variable(0, name="step", dtype=ks.int64, trainable=False)
        self.checkpoint = ks.Checkpoint(step=self.step, **trackables)
        self.manager = None
        self.resumed_from = None
        self._restored = None  # the restore's status (values for slots made by training)
        self.interrupted = False  # set by a Ctrl-C or SIGTERM inside saving_on_interrupt()
        if args.checkpoint_dir:
            self.manager = ks.CheckpointManager(self.checkpoint, args.checkpoint_dir, max_to_keep=3)
            latest = self.manager.latest_checkpoint
            if latest:
                self._restored = self.checkpoint.restore(latest)
                self._restored_at = int(self.step)
                self.resumed_from = latest
        self.logdir = self._logdir(recipe, args)
        self.writer = ks.summary.create_file_writer(
            self.logdir, purge_step=int(self.step) if self.resumed_from else None
        ) if self.chief else _SilentWriter()

    def _logdir(self, recipe: str, args) -> str:
        """--logdir, else the log directory of the run being resumed, else a new one."""
        if args.logdir:
            return args.logdir
        if not args.checkpoint_dir:
            return default_logdir(recipe, None)
        remembered = os.path.join(args.checkpoint_dir, "logdir.txt")
        if os.path.exists(remembered):
            with open(remembered) as handle:
                return handle.read().strip()
        logdir = default_logdir(recipe, None)
        if self.chief:
            os.makedirs(args.checkpoint_dir, exist_ok=True)
            with open(remembered, "w") as handle:
                handle.write(logdir + "\n")
        return logdir

    def save(self) -> str | None:
        """Save a checkpoint (the chief only); its path, or None."""
        return self.manager.save() if self.manager is not None and self.chief else None

    @contextlib.contextmanager
    def saving_on_interrupt(self, save: bool = True):
        """On Ctrl-C (or SIGTERM), save a checkpoint (if `save`), then exit with status 130.

        The signal only sets a flag; the training loop calls `check_interrupt()`
        at the end of each step, where the variables, the optimizer and
        `step` agree, so the checkpoint resumes exactly. A second Ctrl-C stops
        at once. (A KeyboardInterrupt raised at an arbitrary point could also
        land in a finalizer, a generator or a progress bar being collected,
        where Python prints "Exception ignored" and goes on training.) A flag
        still set when the block ends stops the run there.

        Pass save=False where the loop cannot resume mid-way (model.fit): the last
        checkpoint, from the end of an epoch, is the one to resume from.
        """
        self.interrupted = False

        def handler(signum, frame):
            if self.interrupted:
                raise KeyboardInterrupt
            self.interrupted = True

        previous = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, handler)
        except ValueError:  # not the main thread: Python delivers no signals here
            pass
        try:
            with self.writer.as_default():
                yield
                self.check_interrupt()
            if self._restored is not None and int(self.step) == self._restored_at:
                # a finished run started again trains nothing, so the values of what training
                # creates (optimizer slots) are not used: expected, not worth a warning
                self._restored.expect_partial()
        except KeyboardInterrupt:
            path = self.save() if save else None
            where = f"; checkpoint saved to {path}" if path else " (not saved: resume starts " \
                "from the last checkpoint)"
            print(f"\n{self.recipe}: interrupted at step {int(self.step)}{where}")
            raise SystemExit(130) from None
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)
            self.writer.close()

    def check_finite(self, loss: float, hint: str) -> None:
        """Stop with a clear message (exit status 1) when the loss is NaN or infinite.

        A diverged run would otherwise go on to its end and report `nan` as if it
        were a result. Nothing is saved: the last checkpoint holds the state from
        before. `hint` names the settings to lower.
        """
        if not math.isfinite(loss):
            saved = self.manager.latest_checkpoint if self.manager is not None else None
            where = f"; the last checkpoint, {saved}, is from before" if saved else ""
            raise SystemExit(
                f"{self.recipe}: the loss became {loss} at step {int(self.step)}: training "
                f"diverged; {hint}{where}"
            )

    def check_interrupt(self) -> None:
        """Raise KeyboardInterrupt if a Ctrl-C or SIGTERM arrived: call it between steps."""
        if self.interrupted:
            raise KeyboardInterrupt


class _SilentWriter:
    """The TensorBoard writer of the ranks other than the chief: their summaries go nowhere."""

    logdir = None

    @contextlib.contextmanager
    def as_default(self):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="ks.summary: no default writer")
            yield self

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass
