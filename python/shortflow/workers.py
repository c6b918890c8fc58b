"""Where a sweep's tasks run: a pool of ``jobs`` parallel simulations that starts once and
is reused by every sweep run inside it, plus the statistics a sweep reports at its end.

Local pool (:class:`LocalPool`), ``jobs = N``: a thread in the driver and ``N - 1`` worker
processes (spawned, so they do not inherit polars' threads). The driver thread starts on
the first task at once, while the processes start (about a second: Python, polars, the
core); they get tasks only once they answered, so a sweep shorter than their start-up is
finished by the driver alone and ``--jobs N`` is never slower than ``--jobs 1`` by more
than the start-up's CPU. A sweep that starts its own processes (no pool block) starts
them only once the work left is worth it (:data:`DEFER_START_S`), so a short sweep does
not pay that CPU either. Short tasks go to the processes in batches of about
:data:`BATCH_TARGET_S` (at most a share of what is left, so the end stays balanced).

A pool opened with :func:`worker_pool` (``with worker_pool(jobs): ...``) is used by every
:func:`shortflow.sweeper.run_sweep` inside the block: a whole reproduction starts its
workers once. Outside such a block each sweep starts (and stops) its own.

The simulation core releases the GIL while it runs, so the driver thread simulates in
parallel with the processes; the driver's main thread only hands out tasks and writes
results. On an interrupt the driver thread's run is cancelled within about 0.1 s (the
core's progress callback raises) and the processes are terminated.

Ray (:class:`RayCluster`): reuses a running cluster (``address``, ``$RAY_ADDRESS`` or the
one ``ray.init(address="auto")`` finds), else starts a local one for the pool's life;
its start-up (connecting or starting, and one warmed-up worker process per slot) is
reported apart from the sweep's work.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import os
import queue
import signal
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from .errors import ScenarioError

__all__ = [
    "DELAY_ENV",
    "BATCH_TARGET_S",
    "TaskFn",
    "OnDone",
    "SweepStats",
    "LocalPool",
    "RayCluster",
    "worker_pool",
    "active_pool",
    "compute_task",
    "transfers_bytes",
    "transfers_from_bytes",
    "pack_pair",
    "unpack_pair",
]

#: Environment hook for tests of interruption: sleep this long in every task.
DELAY_ENV = "SHORTFLOW_TASK_DELAY_S"

#: Wall time a batch of short tasks sent to a worker process aims at (s): enough that
#: the hand-over (pickling, a pipe round trip, well under a millisecond) is < 1 %.
BATCH_TARGET_S = 0.1

#: Results of the driver thread's tasks that may wait for the main thread (its
#: ``on_done``) before the driver thread runs another task (:meth:`LocalPool.run`).
DRIVER_AHEAD = 2

#: A sweep that starts its own worker processes (no :func:`worker_pool` block) starts
#: them only once its work left is at least this long (s; about their start-up: Python,
#: polars, the core): estimated from the tasks done so far, or the sweep has run this
#: long. A shorter sweep is finished by the driver thread alone, which the processes'
#: start-up would only have slowed down (it competes for the cores).
DEFER_START_S = 1.0

#: A task: its input (a resolved configuration's JSON text, or what the caller packs
#: with it, e.g. the sweep's cache-entry job) to its result bytes. Module-level (or a
#: ``functools.partial`` of one): it is pickled to worker processes and Ray.
TaskFn = Callable[[Any], bytes]
#: ``on_done(key, data, wall_s, cpu_s)``: a finished task's result and its cost.
OnDone = Callable[[str, bytes, float, float], None]


# --- the task ---------------------------------------------------------------------

_TLS = threading.local()


class _Cancelled(Exception):
    """Raised inside a driver-thread run when the sweep stops (never escapes the pool)."""


def _cancel_event() -> Optional[threading.Event]:
    return getattr(_TLS, "cancel", None)


def compute_task(config_json: str) -> bytes:
    """Run one task: the core's transfers table as bytes (:func:`transfers_bytes`). Runs in worker
    processes, the driver thread or on Ray; must stay a module-level function."""
    cancel = _cancel_event()
    delay = os.environ.get(DELAY_ENV)
    if delay:
        if cancel is not None:
            if cancel.wait(float(delay)):
                raise _Cancelled
        else:
            time.sleep(float(delay))
    from .native import run_table

    progress = None
    if cancel is not None:
        def progress(_events: int, _t: float, _d: float) -> None:
            if cancel.is_set():
                raise _Cancelled
    return transfers_bytes(run_table(config_json, "transfers", progress))


def transfers_bytes(transfers: Any) -> bytes:
    """A run's transfers table (``RunResults.transfers``) as `compute_task` returns it:
    an Arrow IPC stream, uncompressed (read back with :func:`transfers_from_bytes`; for a
    small task about 0.06 ms both ways, where Parquet with zstd took 1 ms)."""
    import io

    buf = io.BytesIO()
    transfers.write_ipc_stream(buf, compression="uncompressed")
    return buf.getvalue()


def transfers_from_bytes(data: bytes) -> Any:
    """The frame :func:`transfers_bytes` encoded."""
    import io

    import polars as pl

    return pl.read_ipc_stream(io.BytesIO(data))


def pack_pair(first: bytes, rest: bytes) -> bytes:
    """Two results of one task in one ``bytes`` (what a task returns): ``first``'s length
    (8 bytes, little-endian), ``first``, then ``rest``; :func:`unpack_pair` splits them."""
    return len(first).to_bytes(8, "little") + first + rest


def unpack_pair(packed: bytes) -> tuple[bytes, bytes]:
    """``(first, rest)`` of :func:`pack_pair`."""
    n = int.from_bytes(packed[:8], "little")
    return packed[8:8 + n], packed[8 + n:]


def _timed(task_fn: TaskFn, config_json: Any) -> tuple[bytes, float, float]:
    """The task's result, its wall time and the CPU time of the thread that ran it."""
    t0, c0 = time.perf_counter(), time.thread_time()
    data = task_fn(config_json)
    return data, time.perf_counter() - t0, time.thread_time() - c0


def _timed_batch(task_fn: TaskFn, items: list[tuple[str, Any]]
                 ) -> tuple[list[tuple[str, bytes, float, float]], Optional[BaseException]]:
    """A batch's results in order, and the exception that stopped it (the tasks
    finished before it are still returned, so nothing finished is lost)."""
    done = []
    for key, cfg in items:
        try:
            done.append((key, *_timed(task_fn, cfg)))
        except BaseException as e:  # noqa: BLE001 - re-raised by the driver
            return done, e
    return done, None


# --- worker processes -------------------------------------------------------------


def _worker_init(driver_pid: int) -> None:
    # Ctrl-C goes to the whole process group: only the driver reacts (it stops the
    # workers). Workers are started with SIGINT ignored already (see _spawning_workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_driver(driver_pid)
    # What every task needs, loaded before the worker says it is ready (pyarrow reads
    # the core's result columns).
    import pyarrow  # noqa: F401

    from . import native, results  # noqa: F401

    with contextlib.suppress(Exception):
        native.core()


def _probe() -> tuple[int, float]:
    """A worker's answer once started: its pid and when (CLOCK_MONOTONIC is system-wide)."""
    return os.getpid(), time.monotonic()


@contextlib.contextmanager
def _spawning_workers() -> Iterator[None]:
    """Ignore SIGINT while worker processes may be started: they inherit it (Python
    keeps an inherited SIG_IGN), so a Ctrl-C while a worker imports does not print a
    traceback from it. A Ctrl-C within these few milliseconds is lost for the driver.
    (Blocking SIGINT with pthread_sigmask instead left the driver deaf to later Ctrl-Cs
    in its wait for results: tried, the sweep hung.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _die_with_driver(driver_pid: int) -> None:
    """Have the kernel kill this process when the driver dies, however it dies (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:  # pragma: no cover
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != driver_pid:  # the driver died before the line above
        os._exit(1)


def _stop_workers(procs: list[Any], grace_s: float = 2.0) -> None:
    """Terminate worker processes and wait (briefly) until they are gone."""
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    deadline = time.monotonic() + grace_s
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)


# --- statistics -------------------------------------------------------------------


@dataclass
class SweepStats:
    """What one sweep's computing cost: printed at its end and kept in ``sweep.json``."""

    backend: str
    #: parallel simulations (``jobs``)
    slots: int
    #: tasks computed by this sweep
    tasks: int = 0
    #: from the first task handed out to the last result (s)
    elapsed_s: float = 0.0
    #: sum of the tasks' wall times where they ran (s)
    busy_s: float = 0.0
    #: sum of the tasks' CPU times (the thread that ran each; s)
    cpu_s: float = 0.0
    #: worker start-up: local, from starting the processes until all answered; Ray,
    #: ``ray.init`` (connect or start). ``None``: nothing was started (jobs = 1)
    startup_s: Optional[float] = None
    #: the workers (or the Ray cluster) were running before this sweep
    reused: bool = False
    #: tasks per place they ran: ``driver`` (the thread in the driver), ``processes``, ``ray``
    by_worker: dict[str, int] = field(default_factory=dict)
    #: hand-overs to worker processes (batches of short tasks count once)
    batches: int = 0
    #: the sweep was too short to start its worker processes (see ``DEFER_START_S``)
    not_started: bool = False

    @property
    def tasks_per_s(self) -> float:
        return self.tasks / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def utilisation(self) -> float:
        """Busy time over the time the slots were available (0..1)."""
        return self.busy_s / (self.slots * self.elapsed_s) if self.elapsed_s > 0 else 0.0

    def count(self, where: str, wall: float, cpu: float) -> None:
        self.tasks += 1
        self.busy_s += wall
        self.cpu_s += cpu
        self.by_worker[where] = self.by_worker.get(where, 0) + 1

    def line(self) -> str:
        """One line: tasks/s, utilisation, CPU, where the tasks ran, worker start-up."""
        if not self.tasks:
            return "nothing computed (all tasks cached)"
        where = ", ".join(f"{n} {w}" for w, n in sorted(self.by_worker.items()))
        start = ""
        if self.not_started:
            start = "; no worker process started (a sweep shorter than their start-up)"
        elif self.startup_s is None and self.backend == "local" and self.slots > 1:
            start = "; the worker processes were still starting"
        elif self.startup_s is not None:
            start = (f"; worker start-up {self.startup_s:.2f} s (overlapped)" if self.backend == "local" and not self.reused
                     else f"; workers reused (started in {self.startup_s:.2f} s)" if self.backend == "local"
                     else f"; Ray start-up {self.startup_s:.2f} s" + (" (reused)" if self.reused else ""))
        return (f"{self.tasks} tasks in {self.elapsed_s:.2f} s: {self.tasks_per_s:.3g} tasks/s, "
                f"utilisation {100 * self.utilisation:.0f} % of {self.slots} slot{'s' * (self.slots > 1)} "
                f"(busy {self.busy_s:.1f} s, CPU {self.cpu_s:.1f} s; {where}){start}")

    def to_dict(self) -> dict[str, Any]:
        return {"backend": self.backend, "slots": self.slots, "tasks": self.tasks,
                "elapsed_s": round(self.elapsed_s, 4), "tasks_per_s": round(self.tasks_per_s, 4),
                "utilisation": round(self.utilisation, 4), "busy_s": round(self.busy_s, 4),
                "cpu_s": round(self.cpu_s, 4),
                "startup_s": None if self.startup_s is None else round(self.startup_s, 4),
                "reused": self.reused, "by_worker": dict(sorted(self.by_worker.items())), "batches": self.batches,
                "not_started": self.not_started}


# --- the local pool ---------------------------------------------------------------


class LocalPool:
    """``jobs`` parallel simulations: a thread in the driver and ``jobs - 1`` processes,
    started once (:meth:`start`) and reused by every :meth:`run` until :meth:`close`.
    ``defer``: :meth:`run` starts the processes only when the work left is worth their
    start-up (:data:`DEFER_START_S`)."""

    backend = "local"

    def __init__(self, jobs: int, defer: bool = False) -> None:
        if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
            raise ScenarioError(None, f"jobs = {jobs!r}: need at least 1")
        self.jobs = jobs
        self.defer = defer
        self._ex: Optional[ProcessPoolExecutor] = None
        self._started_at = 0.0
        self._probes: list[Future] = []
        #: seconds from :meth:`start` until every process answered (None: not yet)
        self.startup_s: Optional[float] = None
        self.runs = 0

    @property
    def processes(self) -> int:
        return self.jobs - 1

    def start(self) -> None:
        """Start the worker processes; returns at once (they start in the background)."""
        if self.processes == 0 or self._ex is not None:
            return
        import multiprocessing as mp

        self.startup_s = None
        self._started_at = time.monotonic()
        # spawn, not fork: the driver has polars' thread pool running.
        with _spawning_workers():  # submit() starts the processes
            self._ex = ProcessPoolExecutor(max_workers=self.processes, mp_context=mp.get_context("spawn"),
                                           initializer=_worker_init, initargs=(os.getpid(),))
            self._probes = [self._ex.submit(_probe) for _ in range(self.processes)]

    def _ready(self) -> bool:
        if self._ex is None:
            return False
        if self.startup_s is None:
            if not all(f.done() for f in self._probes):
                return False
            for f in self._probes:
                f.result()  # a worker that failed to start raises here
            self.startup_s = max(t for _, t in (f.result() for f in self._probes)) - self._started_at
        return True

    def wait_ready(self, timeout_s: float = 60.0) -> bool:
        """Block until every worker process has started (true), or ``timeout_s`` passed."""
        self.start()
        deadline = time.monotonic() + timeout_s
        while not self._ready() and self.processes:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def close(self, kill: bool = False) -> None:
        """Stop the processes. Idle ones that have started are asked to exit; any that
        are still starting (a sweep shorter than their start-up) or, with ``kill``,
        running a task are terminated: nobody waits for a start-up that is not needed."""
        ex, self._ex = self._ex, None
        if ex is None:
            return
        if kill or self.startup_s is None:
            procs = list((getattr(ex, "_processes", None) or {}).values())
            ex.shutdown(wait=False, cancel_futures=True)
            _stop_workers(procs)
            # The executor's manager thread sees its workers gone and closes its wake-up
            # pipe. Wait for that: at interpreter exit, concurrent.futures wakes every
            # manager thread, and one still closing its pipe makes that wake-up write to
            # a closed descriptor (an "OSError: Bad file descriptor" traceback after a
            # Ctrl-C; CPython 3.11 checks the pipe's closed flag without a lock).
            manager = getattr(ex, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(5.0)
                from concurrent.futures import process as _cf_process

                with contextlib.suppress(Exception):
                    _cf_process._threads_wakeups.pop(manager, None)
        else:
            ex.shutdown(wait=True)

    def run(self, todo: list[tuple[str, Any]], task_fn: TaskFn, on_done: OnDone, stats: SweepStats) -> None:
        """Compute every ``(key, config)`` of ``todo`` and call ``on_done`` for each in
        the calling (main) thread. An exception (Ctrl-C included) cancels the driver
        thread's run, terminates the processes (the next run starts new ones), passes the
        results that had arrived to ``on_done`` and is raised again."""
        # reused: the processes served an earlier run (not just started for this one)
        reused = self._ex is not None and self.processes > 0 and self.runs > 0
        if not self.defer:
            self.start()
        self.runs += 1
        work = collections.deque(todo)
        lock = threading.Lock()
        results: "queue.Queue[tuple[str, Any]]" = queue.Queue()
        cancel = threading.Event()
        mean = _Mean()

        # The driver thread runs a task only while fewer than DRIVER_AHEAD of its results
        # wait for the main thread: otherwise, with tasks shorter than their `on_done`,
        # its results queue up without bound and the processes' batches wait behind them
        # (their next batch is handed out only once the last is delivered).
        ahead = threading.Semaphore(DRIVER_AHEAD)

        def driver() -> None:
            _TLS.cancel = cancel
            while not cancel.is_set():
                if not ahead.acquire(timeout=0.1):
                    continue
                with lock:
                    if not work:
                        break
                    key, cfg = work.popleft()
                try:
                    data, wall, cpu = _timed(task_fn, cfg)
                except _Cancelled:
                    break
                except BaseException as e:  # handed to the main thread, raised there
                    results.put(("error", e))
                    return
                results.put(("driver", [(key, data, wall, cpu)]))
            results.put(("driver-exit", None))

        pending: dict[Future, int] = {}

        def take() -> list[tuple[str, Any]]:
            """The next batch for a process: about BATCH_TARGET_S of work, at most a
            1/(2 jobs) share of what is left."""
            with lock:
                n = max(1, min(int(BATCH_TARGET_S / mean.value) if mean.value > 0 else 1,
                               len(work) // (2 * self.jobs)))
                return [work.popleft() for _ in range(min(n, len(work)))]

        def fill() -> None:
            assert self._ex is not None
            while len(pending) < 2 * self.processes:
                batch = take()
                if not batch:
                    return
                fut = self._ex.submit(_timed_batch, task_fn, batch)
                pending[fut] = len(batch)
                stats.batches += 1
                fut.add_done_callback(lambda f: results.put(("processes", f)))

        def deliver(where: str, items: list[tuple[str, bytes, float, float]]) -> None:
            for key, data, wall, cpu in items:
                mean.add(wall)
                stats.count(where, wall, cpu)
                on_done(key, data, wall, cpu)

        def worth_starting() -> bool:
            """Deferred start: is the work left at least DEFER_START_S?"""
            left = len(work)
            return left > 0 and (time.perf_counter() - t0 >= DEFER_START_S
                                 or (mean.n > 0 and mean.value * left >= DEFER_START_S))

        t0 = time.perf_counter()
        thread = threading.Thread(target=driver, daemon=True, name="shortflow-driver-task")
        thread.start()
        driver_running, feeding = True, False
        started = self._ex is not None
        try:
            while driver_running or pending:
                if self._ex is None and self.processes and worth_starting():
                    self.start()
                started = started or self._ex is not None
                if not feeding and self.processes and work and self._ready():
                    feeding = True
                if feeding:
                    fill()
                try:
                    # Poll while the processes start; afterwards results wake us up.
                    what, payload = results.get(timeout=0.05 if (self.processes and not feeding) else 1.0)
                except queue.Empty:
                    continue
                if what == "error":
                    raise payload
                if what == "driver-exit":
                    driver_running = False
                elif what == "driver":
                    deliver("driver", payload)
                    ahead.release()
                else:
                    pending.pop(payload)
                    items, exc = payload.result()
                    deliver("processes", items)
                    if exc is not None:
                        raise exc
        except BaseException:
            cancel.set()
            self.close(kill=True)
            self._drain(results, pending, deliver)
            raise
        finally:
            stats.elapsed_s = time.perf_counter() - t0
            stats.startup_s = self.startup_s if self.processes else None
            stats.reused = reused and self.startup_s is not None
            stats.not_started = bool(self.processes) and not started
        thread.join()

    @staticmethod
    def _drain(results: "queue.Queue[tuple[str, Any]]", pending: dict[Future, int],
               deliver: Callable[[str, list[tuple[str, bytes, float, float]]], None]) -> None:
        """Pass on the results that arrived before an interrupt (finished work is kept)."""
        with contextlib.suppress(BaseException):
            while True:
                what, payload = results.get_nowait()
                if what == "driver":
                    deliver("driver", payload)
                elif what == "processes" and payload.done() and not payload.cancelled() and payload.exception() is None:
                    deliver("processes", payload.result()[0])


class _Mean:
    """Running mean of task wall times (for batch sizes)."""

    def __init__(self) -> None:
        self.n, self.value = 0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.value += (x - self.value) / self.n


def run_inline(todo: list[tuple[str, Any]], task_fn: TaskFn, on_done: OnDone, stats: SweepStats) -> None:
    """``jobs = 1``: every task in the calling thread (Ctrl-C stops the core's run)."""
    t0 = time.perf_counter()
    try:
        for key, cfg in todo:
            data, wall, cpu = _timed(task_fn, cfg)
            stats.count("driver", wall, cpu)
            on_done(key, data, wall, cpu)
    finally:
        stats.elapsed_s = time.perf_counter() - t0


# --- Ray ------------------------------------------------------------------------------


def _package_root() -> str:
    return str(Path(__file__).resolve().parent.parent)


def _ray_warm() -> int:
    """Run on a Ray worker at start-up: load what every task needs; its pid."""
    from . import native, results  # noqa: F401

    with contextlib.suppress(Exception):
        native.core()
    return os.getpid()


class RayCluster:
    """The Ray backend: connects to a running cluster or starts a local one (once per
    pool); ``startup_s`` is how long that took."""

    backend = "ray"

    def __init__(self, jobs: int, address: Optional[str] = None) -> None:
        if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
            raise ScenarioError(None, f"jobs = {jobs!r}: need at least 1")
        self.jobs = jobs
        self.address = address
        self.startup_s: Optional[float] = None
        #: "connected" (a running cluster), "started" (ours), "existing" (ray was
        #: initialised by the caller)
        self.how: Optional[str] = None
        self._owned = False

    def start(self) -> None:
        try:
            import ray
        except ImportError:
            raise ScenarioError(None, "the ray backend needs Ray: pip install 'shortflow[ray]' (or pip install ray)") from None
        if ray.is_initialized():
            if self.how is None:
                self.how, self.startup_s = "existing", 0.0
            return
        t0 = time.perf_counter()
        pypath = os.pathsep.join(p for p in [_package_root(), os.environ.get("PYTHONPATH", "")] if p)
        env = {"PYTHONPATH": pypath, **({DELAY_ENV: os.environ[DELAY_ENV]} if DELAY_ENV in os.environ else {})}
        kwargs: dict[str, Any] = dict(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False,
                                      runtime_env={"env_vars": env})
        address = self.address or os.environ.get("RAY_ADDRESS") or None
        if address:
            ray.init(address=address, **kwargs)
            self.how = "connected"
        else:
            try:  # a cluster started with `ray start` (or another driver's) is reused
                ray.init(address="auto", **kwargs)
                self.how = "connected"
            except ConnectionError:
                ray.init(num_cpus=max(1, self.jobs), **kwargs)
                self.how = "started"
        self._owned = True
        # Ray starts its worker processes lazily, on the first tasks: about 10 s on the
        # loaded 2-core machine, which the first sweep's tasks/s then showed. Start one
        # per slot now (each loads what a task needs), so that it counts as start-up.
        warm = ray.remote(num_cpus=1)(_ray_warm)
        ray.get([warm.remote() for _ in range(self.jobs)])
        self.startup_s = time.perf_counter() - t0

    def close(self, kill: bool = False) -> None:
        if self._owned:
            import ray

            self._owned = False
            self.how = None
            ray.shutdown()

    def run(self, todo: list[tuple[str, Any]], task_fn: TaskFn, on_done: OnDone, stats: SweepStats) -> None:
        import ray

        before = self.how is not None
        self.start()
        # reused: initialised by an earlier sweep of the pool, or a cluster that was running
        stats.startup_s, stats.reused = self.startup_s, before or self.how in ("existing", "connected")
        t0 = time.perf_counter()
        refs: dict[Any, str] = {}
        try:
            remote = ray.remote(max_retries=1)(_timed)
            fn_ref = ray.put(task_fn)
            refs = {remote.remote(fn_ref, cfg): key for key, cfg in todo}
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    data, wall, cpu = ray.get(ref)
                    stats.count("ray", wall, cpu)
                    on_done(refs[ref], data, wall, cpu)
        except BaseException:
            for ref in refs:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
        finally:
            stats.elapsed_s = time.perf_counter() - t0


# --- the pool of a block ----------------------------------------------------------------

_ACTIVE: contextvars.ContextVar[Optional[Any]] = contextvars.ContextVar("shortflow_worker_pool", default=None)


def active_pool() -> Optional[Any]:
    """The pool of the enclosing :func:`worker_pool` block, if any."""
    return _ACTIVE.get()


@contextlib.contextmanager
def worker_pool(jobs: int, backend: str = "local", ray_address: Optional[str] = None,
                defer: bool = False) -> Iterator[Any]:
    """Start ``jobs`` workers once for every sweep inside the block (a reproduction):
    ``with worker_pool(2): run_sweep(a); run_sweep(b)``. The local processes start at
    once, in the background; Ray connects (or starts) at the first sweep. Sweeps with
    another ``jobs`` or backend start their own workers. ``defer``: the local processes
    start only when a sweep's work left is worth their start-up (what a single sweep
    outside a block uses)."""
    if backend not in ("local", "ray"):
        raise ScenarioError(None, f"unknown backend {backend!r}: use 'local' or 'ray'")
    pool: Any = LocalPool(jobs, defer) if backend == "local" else RayCluster(jobs, ray_address)
    if backend == "local" and not defer:
        pool.start()
    token = _ACTIVE.set(pool)
    try:
        yield pool
    finally:
        _ACTIVE.reset(token)
        pool.close()
