"""Where a sweep's tasks run (shortflow.workers): the driver thread plus processes give
the same results as one job, a pool started once serves several sweeps, an interrupted
pooled sweep keeps what finished and resumes, and every sweep reports its statistics."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from rich.console import Console

import _stubs
from shortflow import Scenario
from shortflow.sweeper import DELAY_ENV, SweepInterrupted, run_sweep, worker_pool
from shortflow.workers import LocalPool, SweepStats

from test_sweep_cache import TOML, expected_rows


@pytest.fixture()
def sc() -> Scenario:
    return Scenario.from_toml(TOML, source="stubbed.toml")


def sweep(sc: Scenario, out: Path, **kw):
    kw.setdefault("task_fn", _stubs.task)
    kw.setdefault("resolve_fn", _stubs.resolve)
    kw.setdefault("version", "test")
    return run_sweep(sc, out=out, **kw)


def _tree(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((d / "cache").iterdir())}


def test_results_identical_for_jobs_1_2_3_with_processes_busy(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    """Tasks long enough (0.15 s) that the processes, once ready, take part: the
    results and every cache entry are byte-identical whatever ``jobs``."""
    monkeypatch.setenv(DELAY_ENV, "0.15")
    one = sweep(sc, tmp_path / "j1", jobs=1)
    assert one.stats.by_worker == {"driver": 18}
    for jobs in (2, 3):
        with worker_pool(jobs) as pool:
            assert pool.wait_ready(120), "worker processes did not start"
            r = sweep(sc, tmp_path / f"j{jobs}", jobs=jobs)
        assert r.stats.by_worker.get("processes", 0) > 0 and r.stats.by_worker.get("driver", 0) > 0, r.stats
        assert sum(r.stats.by_worker.values()) == r.computed == 18
        assert r.results.equals(one.results)
        assert (tmp_path / f"j{jobs}" / "results.parquet").read_bytes() == (tmp_path / "j1" / "results.parquet").read_bytes()
        assert _tree(tmp_path / f"j{jobs}") == _tree(tmp_path / "j1")


def test_short_sweep_is_not_held_up_by_starting_workers(sc: Scenario, tmp_path: Path) -> None:
    """Without a pool, ``jobs = 2`` starts a process for the sweep; the driver thread
    computes meanwhile, and tasks are handed to the process only once it answered. Stub
    tasks take milliseconds, so the driver typically finishes alone; either way every
    task ran once and the sweep did not wait for tasks queued on a starting process."""
    r = sweep(sc, tmp_path / "o", jobs=2)
    assert r.computed == 18 and sum(r.stats.by_worker.values()) == 18
    assert r.stats.by_worker.get("driver", 0) > 0
    if "processes" not in r.stats.by_worker:
        assert r.stats.startup_s is None or r.stats.startup_s >= 0


def test_short_sweep_starts_no_worker_process(sc: Scenario, tmp_path: Path) -> None:
    """Without a pool the processes start only once the work left is worth their
    start-up (DEFER_START_S): 18 stub tasks of milliseconds finished sooner than that
    are all computed by the driver thread, no process is started, and the stats say so."""
    from shortflow.workers import DEFER_START_S

    r = sweep(sc, tmp_path / "o", jobs=2)
    if r.stats.elapsed_s < DEFER_START_S:
        assert r.stats.not_started and r.stats.by_worker == {"driver": 18}, r.stats
        assert "no worker process started" in r.stats.line()
        assert r.stats.to_dict()["not_started"] is True
    else:  # a very loaded machine: the sweep ran long enough to start them
        assert not r.stats.not_started or "processes" not in r.stats.by_worker


def test_deferred_pool_starts_processes_for_enough_work(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    """18 tasks of 0.15 s (2.7 s of work) are worth the start-up: a deferred pool starts
    its processes during the sweep."""
    monkeypatch.setenv(DELAY_ENV, "0.15")
    with worker_pool(2, defer=True) as pool:
        assert pool._ex is None, "a deferred pool starts nothing before a sweep"
        r = sweep(sc, tmp_path / "o", jobs=2)
        assert pool._ex is not None, "the processes were started"
    assert not r.stats.not_started, r.stats
    assert r.computed == 18 and sum(r.stats.by_worker.values()) == 18


def test_pool_started_once_serves_every_sweep(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DELAY_ENV, "0.1")
    with worker_pool(2) as pool:
        assert isinstance(pool, LocalPool) and pool.wait_ready(120)
        pids = sorted(pool._ex._processes)  # type: ignore[union-attr]
        a = sweep(sc, tmp_path / "a", jobs=2)
        b = sweep(sc, tmp_path / "b", jobs=2, fresh=True)
        assert sorted(pool._ex._processes) == pids, "the sweeps started their own workers"  # type: ignore[union-attr]
        assert not a.stats.reused and b.stats.reused  # a: the first run of the pool
        assert a.stats.startup_s is not None and a.stats.startup_s == b.stats.startup_s
        # a sweep with another jobs value does not use (or stop) the block's pool
        c = sweep(sc, tmp_path / "c", jobs=1)
        assert c.stats.slots == 1 and c.stats.startup_s is None
        assert sorted(pool._ex._processes) == pids  # type: ignore[union-attr]
    assert pool._ex is None, "the pool is stopped at the end of its block"
    assert a.results.equals(b.results) and a.results.equals(c.results)


def test_interrupted_pooled_sweep_keeps_results_and_resumes(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C (here: KeyboardInterrupt raised by the task on its 8th call in the driver
    thread) stops a jobs=2 sweep; whatever finished is cached, the rest is computed by
    the next run, and the result equals an uninterrupted sweep's."""
    monkeypatch.setenv(DELAY_ENV, "0.05")
    out = tmp_path / "out"
    with worker_pool(2) as pool:
        assert pool.wait_ready(120)
        with pytest.raises(SweepInterrupted) as ei:
            sweep(sc, out, jobs=2, task_fn=_stubs.Interrupting(7))
        assert pool._ex is None, "an interrupt stops the worker processes"
        done = ei.value.done
        assert 7 <= done < 18 and ei.value.total == 18
        cached = sorted(p.name for p in (out / "cache").glob("*.parquet"))
        assert len(cached) == done and not list((out / "cache").glob(".*.tmp"))
        journal = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
        assert sorted(j["key"] + ".parquet" for j in journal) == cached
        assert not (out / "results.parquet").exists()
        r = sweep(sc, out, jobs=2)  # the pool starts new processes
    assert r.cached == done and r.computed == 18 - done
    assert r.results.height == expected_rows(sc)
    assert r.results.equals(sweep(sc, tmp_path / "ref", jobs=1).results)


def test_stats_line_and_metadata(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DELAY_ENV, "0.02")
    buf = io.StringIO()
    con = Console(file=buf, width=300, force_terminal=False)
    r = sweep(sc, tmp_path / "o", jobs=2, progress=True, console=con)
    text = buf.getvalue()
    line = next(ln for ln in text.splitlines() if "tasks/s" in ln)
    assert line.startswith("stubbed: 18 tasks in ") and "utilisation" in line and "of 2 slots" in line
    meta = json.loads((tmp_path / "o" / "sweep.json").read_text())
    st = meta["stats"]
    assert st["tasks"] == 18 and st["slots"] == 2 and st["backend"] == "local"
    assert st["busy_s"] >= 18 * 0.02 * 0.9 and st["elapsed_s"] > 0
    assert st["tasks_per_s"] == pytest.approx(18 / st["elapsed_s"], rel=1e-3)
    assert 0 < st["utilisation"] <= 1.0 + 1e-9
    assert sum(st["by_worker"].values()) == 18
    journal = [json.loads(line) for line in (tmp_path / "o" / "journal.jsonl").read_text().splitlines()]
    assert all(j["cpu_s"] >= 0 and j["wall_s"] >= 0.02 * 0.9 for j in journal)
    # a cached re-run says so, and records it
    buf.truncate(0)
    again = sweep(sc, tmp_path / "o", jobs=2, progress=True, console=con)
    assert again.computed == 0 and "nothing computed (all tasks cached)" in buf.getvalue()
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["stats"]["tasks"] == 0


def test_stats_arithmetic() -> None:
    st = SweepStats("local", 2)
    assert st.line() == "nothing computed (all tasks cached)" and st.tasks_per_s == 0 and st.utilisation == 0
    st.count("driver", 1.0, 0.9)
    st.count("processes", 3.0, 2.5)
    st.elapsed_s, st.startup_s = 2.5, 1.25
    assert st.tasks_per_s == pytest.approx(0.8) and st.utilisation == pytest.approx(4.0 / 5.0)
    d = st.to_dict()
    assert d["by_worker"] == {"driver": 1, "processes": 1} and d["cpu_s"] == pytest.approx(3.4)
    assert "2 tasks in 2.50 s: 0.8 tasks/s, utilisation 80 % of 2 slots" in st.line()
    assert "worker start-up 1.25 s" in st.line()


def test_bad_jobs_for_a_pool() -> None:
    from shortflow import ScenarioError

    with pytest.raises(ScenarioError, match="jobs = 0"):
        LocalPool(0)
    with pytest.raises(ScenarioError, match="backend 'slurm'"):
        with worker_pool(2, backend="slurm"):
            pass


def test_never_much_slower_than_one_job(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    """A sweep with jobs=2 and no pool running yet (it starts one) takes about as long
    as with jobs=1 or less: 18 tasks of 0.1 s (sleeps, so the machine's load barely
    matters); generous bound: the start-up's CPU competes with the driver."""
    monkeypatch.setenv(DELAY_ENV, "0.1")
    t = time.perf_counter()
    sweep(sc, tmp_path / "a", jobs=1)
    one = time.perf_counter() - t
    t = time.perf_counter()
    r = sweep(sc, tmp_path / "b", jobs=2)
    two = time.perf_counter() - t
    assert two <= one + 0.5, (one, two, r.stats.line())


def test_pack_pair_roundtrip() -> None:
    """Two results of one task in one bytes object, either of them possibly empty."""
    from shortflow.workers import pack_pair, unpack_pair

    for first, rest in ((b"abc", b"defg"), (b"", b"x"), (b"x", b""), (b"", b""), (bytes(range(256)) * 9, b"\0" * 9)):
        assert unpack_pair(pack_pair(first, rest)) == (first, rest)
