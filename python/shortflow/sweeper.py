"""Sweeps: the grid of sweep points x seeds, run with a resumable on-disk cache.

Layout of an output directory ``DIR``::

    DIR/scenario.toml            the scenario text the sweep ran
    DIR/sweep.json               axes, seeds, task counts, versions; after a finished sweep
                                 also "stats": tasks/s, worker utilisation, start-up (SweepStats)
    DIR/cache/<key>.parquet      one finished task: the core's transfers table; its footer
                                 metadata holds the key, the row count and the task
    DIR/cache/<key>.config.json  its effective configuration (every default resolved; the
                                 resolved text the key is computed from, one line)
    DIR/index.json               every (point, seed) -> key and config file
    DIR/results.parquet          all rows: scenario, axes..., seed, transfer columns, config_key
    DIR/journal.jsonl            one line per task computed (key, point, seed, wall and CPU time)
                                 (written after its cache entry: a sweep killed between the
                                 two has an entry without a line; the cache is the truth)

A task's key is the sha256 of its resolved configuration (the text ``_core.resolve``
returns, deterministic) and the package version. Only the driver process writes files, each atomically
(temporary file, then rename; see ``files.py``), so a killed sweep leaves only whole cache
entries and a re-run computes exactly the missing ones. A cache entry is used only if its
footer names its own key and its row count matches; an unreadable or mismatched entry is
reported by name and computed again. Cache entries are synced to disk in batches, at
most ``SYNC_EVERY_S`` apart and when the sweep ends or stops (one ``fsync`` per file
each time cost about as much as a small task): a power loss can cost the last batch,
whose entries are then found damaged or missing and computed again, and a lost
configuration file beside a whole entry is written again.

A sweep directory belongs to one scenario (by name): sweeping another scenario into it
is refused unless ``fresh``. Ctrl-C (or SIGTERM) keeps the finished tasks, terminates
the running ones and raises :class:`SweepInterrupted`; worker processes die with the
driver even when it is killed (``PR_SET_PDEATHSIG`` on Linux).

Where tasks run (a thread in the driver plus ``jobs - 1`` processes, started once per
:func:`worker_pool` block, or Ray) is :mod:`shortflow.workers`; results do not depend on it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

import polars as pl

from . import files
from .errors import ScenarioError
from .scenario import Point, Scenario, _cast_value, annotate_transfers, axis_dtype, point_label, transfer_columns
from .version import __version__
from .workers import (DELAY_ENV, LocalPool, OnDone, RayCluster, SweepStats, TaskFn, _die_with_driver,  # noqa: F401
                      active_pool, compute_task, pack_pair, run_inline, transfers_from_bytes, unpack_pair,
                      worker_pool)

__all__ = [
    "Task",
    "SweepResult",
    "SweepStats",
    "worker_pool",
    "SweepInterrupted",
    "plan",
    "task_key",
    "compute_task",
    "run_sweep",
    "assemble",
    "cache_version",
    "check_out_dir",
    "load_results",
]

def cache_version() -> str:
    """The version string mixed into every cache key."""
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


# --- files ------------------------------------------------------------------------


#: Kept for callers that import it from here (``repro``): see ``files.write_bytes``.
_atomic_write = files.write_bytes

#: Footer metadata of a cache entry: its key, its row count and the task (JSON).
META_KEY, META_ROWS, META_TASK = "shortflow.cache_key", "shortflow.rows", "shortflow.task"


def _task_label(t: Task) -> dict[str, Any]:
    return {"point": {k: point_label(v) for k, v in t.point.items()}, "seed": t.seed}


def entry_bytes(df: pl.DataFrame, key: str, task: dict[str, Any]) -> bytes:
    """A cache entry: the transfers table with its key, row count and task in the footer."""
    meta = {META_KEY: key, META_ROWS: str(df.height), META_TASK: json.dumps(task, sort_keys=True)}
    return files.parquet_bytes(df, meta, statistics=False)


def _entry_task(task_fn: TaskFn, job: tuple[str, str, dict[str, Any]]) -> bytes:
    """Run a sweep task where it is computed (worker process, Ray, driver thread) and
    make its cache entry there too, so that the driver only writes it: ``job`` is the
    task's configuration, key and footer task. Returns the entry (:func:`entry_bytes`)
    and the transfers as ``task_fn`` gave them (``workers.pack_pair``)."""
    cfg, key, task = job
    data = task_fn(cfg)
    return pack_pair(entry_bytes(transfers_from_bytes(data), key, task), data)


def read_entry(path: Path, key: str) -> tuple[Optional[pl.DataFrame], Optional[str]]:
    """A cache entry's rows if it is whole and was written for ``key``; else ``None``
    and why (``None, None`` when there is no entry)."""
    if not path.exists():
        return None, None
    try:
        meta = files.read_parquet_metadata(path)
        if META_KEY not in meta:
            return None, f"{path} records no cache key (written by an older shortflow?)"
        if meta[META_KEY] != key:
            return None, (f"{path} holds the result of another task (key {meta[META_KEY]}, "
                          f"{meta.get(META_TASK, 'task unknown')}), not of key {key}")
        df = files.read_parquet(path)
    except files.FileProblem as e:
        return None, str(e)
    if str(df.height) != meta.get(META_ROWS):
        return None, f"{path} has {df.height} rows where its footer records {meta.get(META_ROWS)}"
    return df, None


#: Longest time between two syncs of a sweep's new cache entries (:class:`_BatchSync`).
SYNC_EVERY_S = 1.0


class _BatchSync:
    """Writes a sweep's cache files atomically without syncing each (``files.write_bytes``
    with ``sync=False``) and syncs those written since the last sync once
    ``SYNC_EVERY_S`` has passed, and at :meth:`flush` (the sweep's end or stop)."""

    def __init__(self) -> None:
        self.pending: list[Path] = []
        self.last = time.monotonic()

    def write(self, path: Path, data: bytes) -> None:
        files.write_bytes(path, data, sync=False)
        self.pending.append(path)
        if time.monotonic() - self.last >= SYNC_EVERY_S:
            self.flush()

    def flush(self) -> None:
        files.sync_paths(self.pending)
        self.pending = []
        self.last = time.monotonic()


def _restore_config(path: Path, text: str) -> None:
    """Write a cached task's configuration file again if it is missing or not the size
    of ``text`` (a power loss after its entry was renamed may have left it empty or cut
    short; its size is checked, not its text, so that resuming a sweep of large
    configurations does not read them all)."""
    want = text.encode("utf-8")
    try:
        if path.stat().st_size == len(want):
            return
    except OSError:
        pass
    files.write_bytes(path, want)


def check_out_dir(out: Path, sc: Scenario, fresh: bool, what: str = "sweep") -> None:
    """Refuse to put ``sc``'s results into a directory that holds another scenario's
    (by name) unless ``fresh``, or a single run (``what="run"``) into a sweep's; a
    damaged ``sweep.json`` there is reported and replaced."""
    if what == "run" and (out / "cache").is_dir():
        raise ScenarioError(None, f"{out} holds a sweep (it has a cache/ directory): `run --out` would replace its "
                                  "results; choose another output directory")
    meta_path = out / "sweep.json"
    if fresh or not meta_path.exists():
        return
    try:
        meta = files.read_json(meta_path)
    except files.FileProblem as e:
        _warn(None, f"{e}; it will be replaced")
        return
    old = meta.get("scenario") if isinstance(meta, dict) else None
    if old is not None and old != sc.name:
        old_src = f" (from {meta['source']})" if meta.get("source") else ""
        new_src = f" (from {sc.source})" if sc.source else ""
        fix = "choose another output directory (--out)" + (", or replace them with --fresh" if what == "sweep" else "")
        raise ScenarioError(None, (
            f"{out} holds the results of scenario {old!r}{old_src}; refusing to replace them with "
            f"the {what} of scenario {sc.name!r}{new_src}: {fix}"))


def _warn(console: Any, message: str) -> None:
    from rich.console import Console
    from rich.markup import escape

    (console or Console(stderr=True)).print(f"[yellow]warning:[/] {escape(message)}", highlight=False)


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
    #: Cache entries found unreadable or mismatched (and computed again): why, per path.
    damaged: dict[str, str] = field(default_factory=dict)
    #: What computing cost: tasks/s, worker utilisation, start-up (also in ``sweep.json``).
    stats: Optional[SweepStats] = None


# --- the sweep --------------------------------------------------------------------


def assemble(sc: Scenario, tasks: list[Task], frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """All rows of a sweep from every task's transfers (``frames`` by key): one block
    per (point, seed) in grid order, each row with its task's columns (scenario, axes,
    seed, ``config_key``; those of ``annotate_transfers``). Built at once: the blocks
    are concatenated and each row takes its task's columns by index (one frame
    operation per sweep, where one per task cost ~1 ms each)."""
    if not tasks:
        return pl.concat([])
    dtypes = sc.axis_dtypes()
    axes = list(tasks[0].point)
    if any(list(t.point) != axes for t in tasks):
        # Points with different axes (not a grid): task by task.
        return pl.concat([annotate_transfers(frames[t.key], sc.name, t.point, t.seed, dtypes)
                          .with_columns(pl.lit(t.key, dtype=pl.String).alias("config_key")) for t in tasks],
                         how="vertical")
    blocks = [frames[t.key] for t in tasks]
    rows = pl.concat(blocks, how="vertical")
    # Row r belongs to the first task whose blocks end after r.
    ends = pl.Series([b.height for b in blocks], dtype=pl.UInt64).cum_sum()
    task_of_row = ends.search_sorted(pl.int_range(rows.height, dtype=pl.UInt64, eager=True), side="right")
    per_task = pl.DataFrame([
        pl.Series("scenario", [sc.name] * len(tasks), dtype=pl.String),
        *(pl.Series(a, [_cast_value(t.point[a], dtypes.get(a) or axis_dtype([t.point[a]])) for t in tasks],
                    dtype=dtypes.get(a) or axis_dtype([tasks[0].point[a]])) for a in axes),
        pl.Series("seed", [int(t.seed) for t in tasks], dtype=pl.Int64),
        pl.Series("config_key", [t.key for t in tasks], dtype=pl.String),
    ])[task_of_row]
    return pl.concat([per_task.drop("config_key"), transfer_columns(rows), per_task.select("config_key")],
                     how="horizontal")


def _write_meta(sc: Scenario, out: Path, tasks: list[Task], backend: str,
                stats: Optional[SweepStats] = None) -> None:
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
    if stats is not None:
        meta["stats"] = stats.to_dict()
    files.write_json(out / "sweep.json", meta)
    if sc.text is not None:
        files.write_text(out / "scenario.toml", sc.text)


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
    report_stats: Optional[bool] = None,
    reuse: Sequence[str | Path] = (),
) -> SweepResult:
    """Run (or resume) a sweep; see the module docstring for the files it writes.

    ``reuse``: other sweeps' directories whose cache entries may stand for tasks of this
    one. A task's key is the hash of its resolved configuration and the version, so an
    entry there with the same key is the result of this very task (runs are
    deterministic); it is copied into this sweep's cache (with this sweep's task in its
    footer) instead of computed. ``repro spand`` passes the figures run before, which
    share one x value with their pair (e.g. Fig. 16's N = 6 is Fig. 17's F = 30 KB).

    The tasks run on the workers of the enclosing :func:`worker_pool` block when it has
    this ``jobs`` and ``backend``, else on workers started for this sweep (the local
    ones while the driver's first tasks run, once the work left is worth their start-up:
    ``workers.DEFER_START_S``). At the end the sweep's
    :class:`SweepStats` (tasks/s, utilisation, start-up) go into ``sweep.json`` and,
    with ``report_stats`` (default: ``progress``), one line to the console."""
    if backend not in ("local", "ray"):
        raise ScenarioError(None, f"unknown backend {backend!r}: use 'local' or 'ray'")
    if jobs < 1:
        raise ScenarioError(None, f"jobs = {jobs}: need at least 1")
    t0 = time.perf_counter()
    out = Path(out) if out is not None else Path("out") / sc.name
    cache = files.ensure_dir(out / "cache")
    shared = active_pool()
    with contextlib.ExitStack() as stack:
        if shared is not None and shared.backend == backend and shared.jobs == jobs:
            pool = shared
        elif backend == "ray":
            pool = stack.enter_context(worker_pool(jobs, "ray", ray_address))
        elif jobs > 1:
            # started once the work left is worth the processes' start-up
            pool = stack.enter_context(worker_pool(jobs, defer=True))
        else:
            pool = None
        return _run_sweep(sc, pool, jobs, backend, out, cache, progress, fresh, task_fn, resolve_fn, version,
                          console, t0, progress if report_stats is None else report_stats, [Path(d) for d in reuse])


def _reuse_entries(sc: Scenario, owners: dict[str, Task], unique: dict[str, str], frames: dict[str, pl.DataFrame],
                   cache: Path, reuse: list[Path]) -> int:
    """Fill ``frames`` with the entries of tasks still missing that the caches of the
    ``reuse`` sweeps hold (same key), copying each into ``cache``; returns how many."""
    n = 0
    for d in reuse:
        other = d / "cache"
        if other.resolve() == cache.resolve() or not other.is_dir():
            continue
        have = {f.name[:-len(".parquet")] for f in other.iterdir() if f.name.endswith(".parquet")}
        for k in [k for k in unique if k not in frames and k in have]:
            df, _why = read_entry(other / f"{k}.parquet", k)
            if df is None:
                continue  # damaged there: computed here
            files.write_text(cache / f"{k}.config.json", unique[k] + "\n")
            files.write_bytes(cache / f"{k}.parquet", entry_bytes(df, k, {"scenario": sc.name, **_task_label(owners[k])}))
            frames[k] = df
            n += 1
    return n


def _run_sweep(sc: Scenario, pool: Any, jobs: int, backend: str, out: Path, cache: Path, progress: bool, fresh: bool,
               task_fn: TaskFn, resolve_fn: Optional[Callable[[str], str]], version: Optional[str], console: Any,
               t0: float, report_stats: bool, reuse: list[Path]) -> SweepResult:
    stats = SweepStats(backend, jobs)
    with _dir_lock(out), _sigterm_interrupts():
        files.remove_stale_tmp(cache)
        files.remove_stale_tmp(out)
        check_out_dir(out, sc, fresh)
        tasks = plan(sc, resolve_fn, version)
        unique: dict[str, str] = {}
        owners: dict[str, Task] = {}
        for t in tasks:
            unique.setdefault(t.key, t.config_json)
            owners.setdefault(t.key, t)
        frames: dict[str, pl.DataFrame] = {}
        damaged: dict[str, str] = {}
        if not fresh:
            for k in unique:
                df, why = read_entry(cache / f"{k}.parquet", k)
                if df is not None:
                    frames[k] = df
                    _restore_config(cache / f"{k}.config.json", unique[k] + "\n")
                elif why is not None:
                    damaged[str(cache / f"{k}.parquet")] = why
                    _warn(console, f"cache entry {why}; computing it again")
            _reuse_entries(sc, owners, unique, frames, cache, reuse)
        _write_meta(sc, out, tasks, backend)
        todo = [(k, (c, k, {"scenario": sc.name, **_task_label(owners[k])})) for k, c in unique.items()
                if k not in frames]
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

        syncer = _BatchSync()

        def on_done(key: str, packed: bytes, wall: float, cpu: float) -> None:
            t = owners[key]
            entry, data = unpack_pair(packed)
            # The resolved text as the core gave it (the text the key hashes): parsing
            # and re-printing it indented cost 37 ms of the driver's CPU per TCP/SPAND
            # chain task (a 270 KB configuration), against 2 ms for the text.
            syncer.write(cache / f"{key}.config.json", (unique[key] + "\n").encode("utf-8"))
            syncer.write(cache / f"{key}.parquet", entry)
            frames[key] = transfers_from_bytes(data)
            computed_keys.append(key)
            journal.write(json.dumps({"key": key, **_task_label(t), "wall_s": round(wall, 6), "cpu_s": round(cpu, 6),
                                      "time": time.time()}) + "\n")
            journal.flush()
            bar.advance(ptask)

        try:
            with bar:
                ptask = bar.add_task(f"{sc.name}", total=len(unique), completed=cached)
                if todo:
                    entry_fn = functools.partial(_entry_task, task_fn)
                    if pool is None:
                        run_inline(todo, entry_fn, on_done, stats)
                    else:
                        pool.run(todo, entry_fn, on_done, stats)
        except KeyboardInterrupt:
            done = cached + len(computed_keys)
            raise SweepInterrupted(done, len(unique), out) from None
        finally:
            journal.close()
            syncer.flush()

        results = assemble(sc, tasks, frames)
        files.write_parquet(out / "results.parquet", results, statistics=True)
        index = [
            {**_task_label(t), "key": t.key, "config": f"cache/{t.key}.config.json"}
            for t in tasks
        ]
        files.write_json(out / "index.json", index, indent=1)
        _write_meta(sc, out, tasks, backend, stats)
    if report_stats:
        from rich.markup import escape

        con.print(f"[dim]{escape(sc.name)}: {escape(stats.line())}[/]", highlight=False)
    return SweepResult(out, results, len(tasks), len(unique), len(computed_keys), cached,
                       time.perf_counter() - t0, computed_keys, damaged, stats)


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While a sweep runs, SIGTERM acts like Ctrl-C (finished tasks kept, workers
    terminated) instead of killing the driver and orphaning its workers."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def load_results(out: str | Path) -> tuple[pl.DataFrame, dict[str, Any]]:
    """``results.parquet`` and ``sweep.json`` of a sweep directory; a damaged file
    raises :class:`files.FileProblem` naming it."""
    out = Path(out)
    if not out.is_dir():
        what = "is not a directory" if out.exists() else "does not exist"
        raise ScenarioError(str(out), f"{what}: give a sweep output directory (with results.parquet)")
    res = out / "results.parquet"
    if not res.exists():
        raise ScenarioError(str(out), "no results.parquet here: run `shortflow sweep` (or `shortflow run --out`) first")
    meta_path = out / "sweep.json"
    meta = files.read_json(meta_path) if meta_path.exists() else {}
    if not isinstance(meta, dict):
        raise files.FileProblem(meta_path, f"{meta_path} is damaged: expected a JSON object (the sweep's description), "
                                           f"found {type(meta).__name__}")
    df = files.read_parquet(res)
    missing = [c for c in ("scenario", "seed") if c not in df.columns]
    if missing:
        raise files.FileProblem(res, f"{res} is not a shortflow results table: no column {missing[0]!r} "
                                     f"(columns: {', '.join(df.columns[:12])})")
    return df, meta


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use `shortflow sweep`")
