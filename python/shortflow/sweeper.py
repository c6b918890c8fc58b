"""Sweeps: the grid of sweep points x seeds, run with a resumable on-disk cache.

Layout of an output directory ``DIR``::

    DIR/scenario.toml            the scenario text the sweep ran
    DIR/sweep.json               axes, seeds, task counts, versions
    DIR/cache/<key>.parquet      one finished task: the core's transfers table
    DIR/cache/<key>.config.json  its effective configuration (every default resolved)
    DIR/index.json               every (point, seed) -> key and config file
    DIR/results.parquet          all rows: scenario, axes..., seed, transfer columns, config_key
    DIR/journal.jsonl            one line per task computed (key, point, seed, wall time)

A task's key is the sha256 of its resolved configuration (the text ``_core.resolve``
returns, deterministic) and the package version. Only the driver process writes files, each atomically
(temporary file, then rename), so a killed sweep leaves only whole cache entries and a
re-run computes exactly the missing ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import polars as pl

from .errors import ScenarioError
from .scenario import Point, Scenario, annotate_transfers, point_label

__all__ = [
    "Task",
    "SweepResult",
    "SweepInterrupted",
    "plan",
    "task_key",
    "compute_task",
    "run_sweep",
    "assemble",
    "cache_version",
]

#: Environment hook for tests of interruption: sleep this long in every task.
DELAY_ENV = "SHORTFLOW_TASK_DELAY_S"


def cache_version() -> str:
    """The version string mixed into every cache key."""
    from . import __version__

    return __version__


def task_key(resolved_json: str, version: str) -> str:
    """Cache key of a task: sha256 over the resolved configuration text + version.
    ``_core.resolve`` serialises deterministically (struct field order, sorted maps), so
    equal configurations give equal text."""
    return hashlib.sha256(f"{resolved_json}\n{version}".encode()).hexdigest()[:32]


@dataclass
class Task:
    point: Point
    seed: int
    key: str
    #: Resolved configuration (JSON text): what runs and what is stored beside the rows.
    config_json: str


def plan(sc: Scenario, resolve_fn: Optional[Callable[[str], str]] = None, version: Optional[str] = None) -> list[Task]:
    """Every (point, seed) task of a scenario with its key, in grid order."""
    if resolve_fn is None:
        from .native import resolve_json

        resolve_fn = resolve_json
    version = version or cache_version()
    tasks = []
    for point, seed in sc.tasks():
        cfg = sc.to_sim_config(point, seed)
        resolved = resolve_fn(json.dumps(cfg))
        tasks.append(Task(point, seed, task_key(resolved, version), resolved))
    return tasks


def compute_task(config_json: str) -> bytes:
    """Run one task: the core's transfers table as Parquet bytes. Runs in worker
    processes (local pool or Ray); must stay a module-level function."""
    delay = os.environ.get(DELAY_ENV)
    if delay:
        time.sleep(float(delay))
    from .native import run_json
    from .results import transfers_frame

    out = json.loads(run_json(config_json))
    df = transfers_frame(out.get("transfers"))
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd", statistics=False)
    return buf.getvalue()


# --- files ------------------------------------------------------------------------


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _clean_tmp(cache: Path) -> None:
    for p in cache.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            p.unlink()


@contextlib.contextmanager
def _dir_lock(out: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    f = open(out / ".lock", "a+")
    try:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ScenarioError(None, f"another sweep is running in {out} (lock file {out / '.lock'})") from None
        yield
    finally:
        f.close()


class SweepInterrupted(KeyboardInterrupt):
    """Raised when a sweep is interrupted; finished tasks stay cached."""

    def __init__(self, done: int, total: int, out: Path) -> None:
        self.done, self.total, self.out = done, total, out
        super().__init__(f"sweep interrupted: {done} of {total} tasks are cached in {out}; run it again to resume")


@dataclass
class SweepResult:
    out: Path
    results: pl.DataFrame
    tasks: int
    unique: int
    computed: int
    cached: int
    wall_s: float
    computed_keys: list[str] = field(default_factory=list)


# --- backends ---------------------------------------------------------------------

TaskFn = Callable[[str], bytes]
OnDone = Callable[[str, bytes, float], None]


def _worker_init() -> None:
    # Ctrl-C goes to the whole process group: only the driver reacts (it shuts the pool down).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _timed(task_fn: TaskFn, config_json: str) -> tuple[bytes, float]:
    t0 = time.perf_counter()
    data = task_fn(config_json)
    return data, time.perf_counter() - t0


def _run_inline(todo: list[tuple[str, str]], task_fn: TaskFn, on_done: OnDone) -> None:
    for key, cfg in todo:
        data, wall = _timed(task_fn, cfg)
        on_done(key, data, wall)


def _run_local(todo: list[tuple[str, str]], task_fn: TaskFn, on_done: OnDone, jobs: int) -> None:
    import multiprocessing as mp

    # spawn, not fork: the driver has polars' thread pool running.
    ex = ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_worker_init)
    try:
        pending: dict[Future, str] = {}
        it = iter(todo)
        # Keep the queue short so an interrupt wastes little work.
        def fill() -> None:
            while len(pending) < 2 * jobs:
                try:
                    key, cfg = next(it)
                except StopIteration:
                    return
                pending[ex.submit(_timed, task_fn, cfg)] = key

        fill()
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for fut in done:
                key = pending.pop(fut)
                data, wall = fut.result()
                on_done(key, data, wall)
            fill()
    except BaseException:
        procs = list(getattr(ex, "_processes", {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            with contextlib.suppress(Exception):
                p.terminate()
        raise
    else:
        ex.shutdown(wait=True)


def _package_root() -> str:
    return str(Path(__file__).resolve().parent.parent)


def _run_ray(todo: list[tuple[str, str]], task_fn: TaskFn, on_done: OnDone, jobs: int, address: Optional[str]) -> None:
    try:
        import ray
    except ImportError:
        raise ScenarioError(None, "the ray backend needs Ray: pip install 'shortflow[ray]' (or pip install ray)") from None
    started = False
    if not ray.is_initialized():
        pypath = os.pathsep.join(p for p in [_package_root(), os.environ.get("PYTHONPATH", "")] if p)
        kwargs: dict[str, Any] = dict(
            ignore_reinit_error=True,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": pypath, **({DELAY_ENV: os.environ[DELAY_ENV]} if DELAY_ENV in os.environ else {})}},
        )
        if address or os.environ.get("RAY_ADDRESS"):
            kwargs["address"] = address or os.environ["RAY_ADDRESS"]
        else:
            kwargs["num_cpus"] = max(1, jobs)
        ray.init(**kwargs)
        started = True
    try:
        remote = ray.remote(max_retries=1)(_timed)
        fn_ref = ray.put(task_fn)
        refs = {remote.remote(fn_ref, cfg): key for key, cfg in todo}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                data, wall = ray.get(ref)
                on_done(refs[ref], data, wall)
    except BaseException:
        for ref in list(refs) if "refs" in locals() else []:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()


# --- the sweep --------------------------------------------------------------------


def assemble(sc: Scenario, tasks: list[Task], cache: Path) -> pl.DataFrame:
    """All rows of a sweep from the cache: one block per (point, seed) in grid order."""
    dtypes = sc.axis_dtypes()
    frames: dict[str, pl.DataFrame] = {}
    parts = []
    for t in tasks:
        if t.key not in frames:
            frames[t.key] = pl.read_parquet(cache / f"{t.key}.parquet")
        df = annotate_transfers(frames[t.key], sc.name, t.point, t.seed, dtypes)
        parts.append(df.with_columns(pl.lit(t.key, dtype=pl.String).alias("config_key")))
    return pl.concat(parts, how="vertical")


def _write_meta(sc: Scenario, out: Path, tasks: list[Task], backend: str) -> None:
    from . import __version__

    try:
        from .native import core

        core_version = core().version()
    except Exception:  # pragma: no cover - stub runs in tests
        core_version = None
    meta = {
        "scenario": sc.name,
        "description": sc.description,
        "source": sc.source,
        "axes": {a: [point_label(v) for v in vs] for a, vs in sc.axes.items()},
        "seeds": sc.seeds,
        "tasks": len(tasks),
        "unique_configs": len({t.key for t in tasks}),
        "version": __version__,
        "core_version": core_version,
        "backend": backend,
    }
    _atomic_write(out / "sweep.json", (json.dumps(meta, indent=2) + "\n").encode())
    if sc.text is not None:
        _atomic_write(out / "scenario.toml", sc.text.encode())


def run_sweep(
    sc: Scenario,
    *,
    jobs: int = 2,
    backend: str = "local",
    out: Optional[str | Path] = None,
    ray_address: Optional[str] = None,
    progress: bool = False,
    fresh: bool = False,
    task_fn: TaskFn = compute_task,
    resolve_fn: Optional[Callable[[str], str]] = None,
    version: Optional[str] = None,
    console: Any = None,
) -> SweepResult:
    """Run (or resume) a sweep; see the module docstring for the files it writes."""
    if backend not in ("local", "ray"):
        raise ScenarioError(None, f"unknown backend {backend!r}: use 'local' or 'ray'")
    if jobs < 1:
        raise ScenarioError(None, f"jobs = {jobs}: need at least 1")
    t0 = time.perf_counter()
    out = Path(out) if out is not None else Path("out") / sc.name
    cache = out / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    with _dir_lock(out):
        _clean_tmp(cache)
        _clean_tmp(out)
        tasks = plan(sc, resolve_fn, version)
        unique: dict[str, str] = {}
        owners: dict[str, Task] = {}
        for t in tasks:
            unique.setdefault(t.key, t.config_json)
            owners.setdefault(t.key, t)
        _write_meta(sc, out, tasks, backend)
        todo = [(k, c) for k, c in unique.items() if fresh or not (cache / f"{k}.parquet").exists()]
        cached = len(unique) - len(todo)
        computed_keys: list[str] = []
        journal = open(out / "journal.jsonl", "a", encoding="utf-8")

        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        con = console or Console(stderr=True)
        bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=con,
            disable=not progress,
            transient=False,
        )

        def on_done(key: str, data: bytes, wall: float) -> None:
            t = owners[key]
            cfg = json.loads(unique[key])
            _atomic_write(cache / f"{key}.config.json", (json.dumps(cfg, indent=2) + "\n").encode())
            _atomic_write(cache / f"{key}.parquet", data)
            computed_keys.append(key)
            journal.write(json.dumps({"key": key, "point": {k: point_label(v) for k, v in t.point.items()},
                                      "seed": t.seed, "wall_s": round(wall, 6), "time": time.time()}) + "\n")
            journal.flush()
            bar.advance(ptask)

        try:
            with bar:
                ptask = bar.add_task(f"{sc.name}", total=len(unique), completed=cached)
                if todo:
                    if backend == "ray":
                        _run_ray(todo, task_fn, on_done, jobs, ray_address)
                    elif jobs == 1:
                        _run_inline(todo, task_fn, on_done)
                    else:
                        _run_local(todo, task_fn, on_done, jobs)
        except KeyboardInterrupt:
            done = cached + len(computed_keys)
            raise SweepInterrupted(done, len(unique), out) from None
        finally:
            journal.close()

        results = assemble(sc, tasks, cache)
        buf = io.BytesIO()
        results.write_parquet(buf, compression="zstd", statistics=True)
        _atomic_write(out / "results.parquet", buf.getvalue())
        index = [
            {"point": {k: point_label(v) for k, v in t.point.items()}, "seed": t.seed, "key": t.key,
             "config": f"cache/{t.key}.config.json"}
            for t in tasks
        ]
        _atomic_write(out / "index.json", (json.dumps(index, indent=1) + "\n").encode())
    return SweepResult(out, results, len(tasks), len(unique), len(computed_keys), cached,
                       time.perf_counter() - t0, computed_keys)


def load_results(out: str | Path) -> tuple[pl.DataFrame, dict[str, Any]]:
    """``results.parquet`` and ``sweep.json`` of a sweep directory."""
    out = Path(out)
    res = out / "results.parquet"
    if not res.exists():
        raise ScenarioError(str(out), "no results.parquet here: run `shortflow sweep` (or `shortflow run --out`) first")
    meta_path = out / "sweep.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    return pl.read_parquet(res), meta


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use `shortflow sweep`")
