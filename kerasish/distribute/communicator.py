"""The process group: who am I, how many are we, and collectives that never hang.

`init()` joins the MPI job when the process was started by an MPI launcher
(`mpiexec`, `srun` with PMI, ...), and otherwise answers rank 0 of 1 without
importing MPI, so the same script runs alone. Every collective has a deadline
(`timeout`, 300 s unless `init(timeout=...)` or `KERASISH_DISTRIBUTE_TIMEOUT`
says otherwise): a watchdog thread aborts the job (`MPI_Abort`) with a
`CollectiveTimeoutError` message naming the rank and the collective when one
waits longer, so a rank that died or stopped calling collectives cannot leave
the others waiting forever. (The collectives themselves are MPI's blocking
ones: measured on 2 ranks, a non-blocking `Iallreduce` polled from Python took
1.9x the time of `Allreduce` for the MLP's 1 MB of gradients; several arrays are
started together and waited for in one blocking `Waitall`.) GPU collectives
(NCCL) are polled against the same deadline and raise `CollectiveTimeoutError`.
An exception that nothing catches, on any rank, prints the rank and the error
and aborts the whole job, so the other ranks do not wait for the missing one.
A rank whose script ends (it returns, calls `sys.exit`, raises `SystemExit`)
tells the others, then waits for them to end too, as `MPI_Finalize` does; a
rank that is waiting in a collective then, or starts one, aborts the job
within about a second with a message naming the rank that left and the status
it gave `sys.exit`: that collective can never complete.
"""

from __future__ import annotations

import atexit
import os
import pickle
import sys
import threading
import time

import numpy as np

from kerasish.core import backend
from kerasish.core.errors import KerasishError

DEFAULT_TIMEOUT = 300.0
TIMEOUT_VARIABLE = "KERASISH_DISTRIBUTE_TIMEOUT"
# environment variables set by MPI launchers for the processes they start
_LAUNCHER_VARIABLES = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                       "MV2_COMM_WORLD_SIZE")
_SLEEP_SECONDS = 0.001  # between polls of a GPU collective's completion
_DEPARTURE_TAG = 7  # the "my script has ended" notices, on a communicator of their own
# a collective still waiting this long after a rank has left cannot complete: what the rank
# sent before leaving arrives within microseconds (or milliseconds on a loaded machine)
_LEFT_GRACE_SECONDS = 1.0


class CollectiveTimeoutError(KerasishError, TimeoutError):
    """A collective did not complete in time: another rank has died or stopped participating."""


class _State:
    def __init__(self):
        self.initialized = False
        self.comm = None  # mpi4py's COMM_WORLD, None when running alone
        self.mpi = None
        self.rank, self.size, self.local_rank = 0, 1, 0
        self.timeout = DEFAULT_TIMEOUT
        self.nccl = None  # the NCCL communicator, made on the first GPU collective
        self.pending = None  # (what, start time) of the collective in progress, for the watchdog
        self.departures = None  # a duplicate of COMM_WORLD for the notices of ranks that ended
        self.departed = {}  # rank -> (how it ended, when this rank heard of it)
        self.leaving = False  # this rank's script has ended: the notices are its to receive
        self.exit_call = None  # the script's last sys.exit call, as text for the notice
        self.lock = threading.Lock()


_state = _State()


def launched_by_mpi() -> bool:
    """Whether an MPI launcher started this process (its environment variables are set)."""
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


def _timeout_from(value) -> float:
    if value is None:
        value = os.environ.get(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT)
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(
            f"ks.distribute: the collective timeout must be a number of seconds, got {value!r} "
            f"(from init(timeout=...) or {TIMEOUT_VARIABLE})"
        ) from None
    if not seconds > 0:
        raise ValueError(f"ks.distribute: the collective timeout must be > 0 s, got {seconds}")
    return seconds


def init(timeout: float | None = None) -> None:
    """Join the MPI job (if launched by one); safe to call more than once.

    Args:
        timeout: seconds a collective may wait for the other ranks before
            raising `CollectiveTimeoutError` (default: `KERASISH_DISTRIBUTE_TIMEOUT`
            or 300). A later call may change it.

    Raises:
        ImportError: when started by an MPI launcher but mpi4py is not installed.

    Example:
        >>> import kerasish as ks
        >>> ks.distribute.init()
        >>> ks.distribute.rank(), ks.distribute.size(), ks.distribute.is_chief()
        (0, 1, True)
    """
    _state.timeout = _timeout_from(timeout)
    if _state.initialized:
        return
    if launched_by_mpi():
        try:
            from mpi4py import MPI
        except ImportError as error:
            raise ImportError(
                "ks.distribute: this process was started by an MPI launcher but mpi4py is not "
                'installed; install the extra with pip install "kerasish[mpi]"'
            ) from error
        comm = MPI.COMM_WORLD
        _state.mpi, _state.comm = MPI, comm
        _state.rank, _state.size = comm.Get_rank(), comm.Get_size()
        node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=_state.rank)
        _state.local_rank = node.Get_rank()
        node.Free()
        if _state.size > 1:
            _install_abort_hook()
            if MPI.Query_thread() == MPI.THREAD_MULTIPLE:  # the watchdog thread calls MPI too
                _state.departures = comm.Dup()
                _install_departure_notice()
            threading.Thread(target=_watchdog, name="ks.distribute-watchdog", daemon=True).start()
    _state.initialized = True


def _ensure() -> _State:
    if not _state.initialized:
        init()
    return _state


def rank() -> int:
    """This process's index in the job, 0 to size() - 1 (0 when running alone)."""
    return _ensure().rank


def size() -> int:
    """The number of processes in the job (1 when running alone)."""
    return _ensure().size


def local_rank() -> int:
    """This process's index among the job's processes on the same machine (picks its GPU)."""
    return _ensure().local_rank


def is_chief() -> bool:
    """Whether this is rank 0, the process that prints, writes logs and saves checkpoints."""
    return _ensure().rank == 0


def timeout() -> float:
    """Seconds a collective waits for the other ranks before raising CollectiveTimeoutError."""
    return _ensure().timeout


_OUTPUT_GRACE_SECONDS = 0.5  # time for mpiexec to forward a failing rank's last lines


def _install_abort_hook() -> None:
    """An uncaught exception on any rank prints it with the rank, then aborts the whole job."""
    previous = sys.excepthook

    def abort_job(kind, error, traceback):
        previous(kind, error, traceback)
        _abort(kind.__name__, str(error))

    sys.excepthook = abort_job


def _abort(kind: str, message: str) -> None:
    sys.stderr.write(f"ks.distribute: rank {_state.rank} of {_state.size} failed with "
                     f"{kind}: {message}; aborting the job\n")
    sys.stderr.flush()
    sys.stdout.flush()
    # mpiexec forwards each rank's output through a pipe; MPI_Abort tears the job down at
    # once and can drop the lines still in that pipe (the traceback and the line above)
    time.sleep(_OUTPUT_GRACE_SECONDS)
    _state.comm.Abort(1)


def _timeout_message(what: str) -> str:
    return (f"{what} did not complete within {_state.timeout:g} s; another rank has probably "
            f"died or stopped taking part (the limit is init(timeout=...) or {TIMEOUT_VARIABLE})")


def _watchdog() -> None:
    """Abort the job when a collective has waited past the timeout, or past a short grace after
    another rank has left (runs in a daemon thread; mpi4py releases the GIL during MPI calls,
    and MPI may be called from any thread: init asks for MPI_THREAD_MULTIPLE)."""
    while True:
        time.sleep(min(0.25, _state.timeout / 4))
        _hear_departures()
        pending = _state.pending
        if pending is None:
            continue
        now = time.monotonic()
        if now - pending[1] > _state.timeout:
            _abort("CollectiveTimeoutError", _timeout_message(pending[0]))
        for peer, (how, heard) in list(_state.departed.items()):
            if now - max(pending[1], heard) > _LEFT_GRACE_SECONDS:
                _abort("CollectiveTimeoutError",
                       f"{pending[0]} cannot complete: rank {peer} of {_state.size} has left the "
                       f"job ({how}) while this rank waits in it; every rank must make the same "
                       f"collective calls")


def _install_departure_notice() -> None:
    """Record what `sys.exit` is given (a status cannot be read back at exit), and send the
    other ranks a notice when this rank's script ends."""
    exit_python = sys.exit

    def exit_noting_status(status=None):
        _state.exit_call = f"sys.exit({status!r})"
        exit_python(status)

    sys.exit = exit_noting_status
    atexit.register(_leave)  # runs before mpi4py's MPI_Finalize


def _leave() -> None:
    """At the end of the script: tell every other rank, then wait for all of their notices
    (MPI_Finalize waits for them too), so every notice sent is received."""
    if _state.mpi.Is_finalized():
        return
    with _state.lock:
        _state.leaving = True
    how = _state.exit_call or "its script ended"
    for peer in range(_state.size):
        if peer != _state.rank:
            _state.departures.send((_state.rank, how), dest=peer, tag=_DEPARTURE_TAG)
    while len(_state.departed) < _state.size - 1:
        _receive_departure()


def _hear_departures() -> None:
    """Receive the notices of the ranks whose scripts have ended (from the watchdog thread)."""
    with _state.lock:
        if _state.departures is None or _state.leaving:
            return
        while _state.departures.iprobe(source=_state.mpi.ANY_SOURCE, tag=_DEPARTURE_TAG):
            _receive_departure()


def _receive_departure() -> None:
    peer, how = _state.departures.recv(source=_state.mpi.ANY_SOURCE, tag=_DEPARTURE_TAG)
    _state.departed[peer] = (how, time.monotonic())


# -- collectives with a deadline ------------------------------------------------------


def _run(what: str, collective, *args, **kwargs):
    """Call a blocking MPI collective under the watchdog's deadline."""
    _state.pending = (what, time.monotonic())
    try:
        return collective(*args, **kwargs)
    finally:
        _state.pending = None


def allreduce(buffer, what: str, op: str = "sum"):
    """Reduce a host array in place across ranks (sum, or max)."""
    mpi_op = {"sum": _state.mpi.SUM, "max": _state.mpi.MAX}[op]
    _run(what, _state.comm.Allreduce, _state.mpi.IN_PLACE, buffer, op=mpi_op)
    return buffer


def broadcast(buffer, root: int, what: str):
    """Overwrite a host array with rank `root`'s."""
    _run(what, _state.comm.Bcast, buffer, root=root)
    return buffer


def allgather(values, what: str):
    """Every rank's 1-D host array of equal length, stacked: shape (size, len)."""
    received = np.empty((_state.size,) + values.shape, values.dtype)
    _run(what, _state.comm.Allgather, values, received)
    return received


def allgather_rows(array, counts, what: str):
    """Concatenate every rank's rows (rank order); `counts` holds each rank's number of rows."""
    from mpi4py.util import dtlib

    row = int(np.prod(array.shape[1:], dtype=np.int64))
    counts = np.asarray(counts, dtype=np.int64) * row
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    received = np.empty((int(counts.sum()) // max(row, 1),) + array.shape[1:], array.dtype)
    kind = dtlib.from_numpy_dtype(array.dtype)
    _run(what, _state.comm.Allgatherv, np.ascontiguousarray(array).reshape(-1),
         [received.reshape(-1), counts, offsets, kind])
    return received


def broadcast_object(value, root: int, what: str):
    """Rank `root`'s picklable `value`, on every rank."""
    data = pickle.dumps(value) if _state.rank == root else b""
    length = broadcast(np.array([len(data)], np.int64), root, what)
    buffer = np.frombuffer(data, np.uint8).copy() if _state.rank == root else np.empty(
        int(length[0]), np.uint8)
    return pickle.loads(broadcast(buffer, root, what).tobytes())


# -- NCCL, for arrays on GPUs ----------------------------------------------------------


def nccl() -> object:
    """This job's NCCL communicator (one GPU per rank: its local rank), made on first use.

    Rank 0 makes the unique id and broadcasts it over MPI.
    """
    if _state.nccl is None:
        unique_id = backend.nccl_unique_id() if _state.rank == 0 else None
        unique_id = broadcast_object(unique_id, 0, "sharing the NCCL unique id")
        _state.nccl = backend.nccl_communicator(_state.size, unique_id, _state.rank)
    return _state.nccl


def wait_gpu(event, what: str) -> None:
    """Poll a CUDA event recorded after a NCCL call, with the same deadline as MPI's."""
    start = time.monotonic()
    while not event.done:
        if time.monotonic() - start > _state.timeout:
            _state.nccl.abort()
            raise CollectiveTimeoutError(
                f"ks.distribute: rank {_state.rank} of {_state.size}: {_timeout_message(what)}")
        time.sleep(_SLEEP_SECONDS)


# -- on either engine: the backend picks MPI for host arrays, NCCL for GPU arrays -------------


def sum_arrays(buffers: list, what: str) -> None:
    """Sum each array in place across ranks (the host ones under one deadline)."""
    host = [buffer for buffer in buffers if backend.collective_engine(buffer) == "mpi"]
    if host:
        _run(what, _allreduce_each, host)
    for buffer in buffers:
        if backend.collective_engine(buffer) == "nccl":
            wait_gpu(backend.nccl_collective(nccl(), buffer), what)


def _allreduce_each(buffers: list) -> None:
    """Several arrays: all started (`Iallreduce`), then one blocking `Waitall`; MPI then
    progresses them together, and two arrays cost what one of their total size does (2
    ranks, the MLP's 1 MB as 784 KiB + 268 KiB: 1.00x one `Allreduce`; one after the
    other, 1.10x)."""
    comm, in_place, total = _state.comm, _state.mpi.IN_PLACE, _state.mpi.SUM
    if len(buffers) == 1:
        comm.Allreduce(in_place, buffers[0], op=total)
    else:
        _state.mpi.Request.Waitall([comm.Iallreduce(in_place, b, op=total) for b in buffers])


def broadcast_array(buffer, root: int, what: str) -> None:
    """Overwrite `buffer` (host or GPU) with rank `root`'s, in place."""
    if backend.collective_engine(buffer) == "nccl":
        wait_gpu(backend.nccl_collective(nccl(), buffer, root=root), what)
    else:
        broadcast(buffer, root, what)
