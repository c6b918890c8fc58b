"""Sweep planning, cache and resume logic with a stubbed task function (no core needed)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import _stubs
from shortflow import Scenario
from shortflow.sweeper import SweepInterrupted, plan, run_sweep, task_key

TOML = """
name = "stubbed"
seeds = [1, 2, 3]
[topology]
kind = "dumbbell"
bottleneck = { rate = "1.6Mb", delay = "50ms", queue = 10 }
access = { rate = "10Mb", delay = "1ms" }
[[flows]]
name = "conn"
count = 2
startup = "spand"
app = { kind = "rounds", size = "30KB", rounds = 2, jitter = "1s", idle = "2s", first_center = "1s" }
[schemes.ssr]
flows.conn.startup = "idle_restart"
[schemes.spand]
[sweep]
"flows.conn.count" = [1, 2, 3]
scheme = ["ssr", "spand"]
"""


@pytest.fixture()
def sc() -> Scenario:
    return Scenario.from_toml(TOML, source="stubbed.toml")


def sweep(sc: Scenario, out: Path, **kw):
    kw.setdefault("task_fn", _stubs.task)
    kw.setdefault("resolve_fn", _stubs.resolve)
    kw.setdefault("version", "test")
    kw.setdefault("jobs", 1)
    return run_sweep(sc, out=out, **kw)


def expected_rows(sc: Scenario) -> int:
    return sum(p["flows.conn.count"] * 2 for p in sc.points()) * len(sc.seeds)


def test_plan_keys(sc: Scenario) -> None:
    tasks = plan(sc, _stubs.resolve, "v1")
    assert len(tasks) == 6 * 3
    assert len({t.key for t in tasks}) == len(tasks)
    assert [(t.point, t.seed) for t in tasks[:3]] == [({"flows.conn.count": 1, "scheme": "ssr"}, s) for s in (1, 2, 3)]
    other = plan(sc, _stubs.resolve, "v2")
    assert not {t.key for t in tasks} & {t.key for t in other}, "the version is part of the key"
    # planning is deterministic
    assert [t.key for t in plan(sc, _stubs.resolve, "v1")] == [t.key for t in tasks]
    assert task_key(tasks[0].config_json, "v1") == tasks[0].key


def test_sweep_writes_cache_and_reruns_instantly(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    counter = tmp_path / "calls.txt"
    monkeypatch.setenv(_stubs.COUNTER_ENV, str(counter))
    r1 = sweep(sc, tmp_path / "out")
    assert r1.computed == 18 and r1.cached == 0
    assert len(counter.read_text().splitlines()) == 18
    cache = tmp_path / "out" / "cache"
    assert len(list(cache.glob("*.parquet"))) == 18 and len(list(cache.glob("*.config.json"))) == 18
    assert r1.results.height == expected_rows(sc)
    r2 = sweep(sc, tmp_path / "out")
    assert r2.computed == 0 and r2.cached == 18
    assert len(counter.read_text().splitlines()) == 18, "a re-run computes nothing"
    assert r2.results.equals(r1.results)
    saved = pl.read_parquet(tmp_path / "out" / "results.parquet")
    assert saved.equals(r1.results)
    # index maps every (point, seed) to its configuration
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert len(index) == 18
    assert all((tmp_path / "out" / e["config"]).exists() for e in index)
    assert set(saved["config_key"]) == {e["key"] for e in index}
    meta = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert meta["axes"] == {"flows.conn.count": [1, 2, 3], "scheme": ["ssr", "spand"]} and meta["tasks"] == 18


def test_results_columns_and_no_duplicates(sc: Scenario, tmp_path: Path) -> None:
    df = sweep(sc, tmp_path / "out").results
    assert df.columns[:4] == ["scenario", "flows.conn.count", "scheme", "seed"]
    assert df.schema["flows.conn.count"] == pl.Int64 and df.schema["scheme"] == pl.String
    key = ["flows.conn.count", "scheme", "seed", "connection", "round"]
    assert df.select(key).unique().height == df.height


def test_resume_after_losing_entries(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    first = sweep(sc, out)
    cache = out / "cache"
    victims = sorted(cache.glob("*.parquet"))[:5]
    keep = {p: p.stat().st_mtime_ns for p in cache.glob("*.parquet") if p not in victims}
    for p in victims:
        p.unlink()
    counter = tmp_path / "calls.txt"
    monkeypatch.setenv(_stubs.COUNTER_ENV, str(counter))
    r = sweep(sc, out)
    assert r.computed == 5 and r.cached == 13
    assert sorted(r.computed_keys) == sorted(p.name.removesuffix(".parquet") for p in victims)
    assert all(p.stat().st_mtime_ns == m for p, m in keep.items()), "finished tasks are not rewritten"
    assert r.results.equals(first.results)


def test_interrupted_sweep_resumes(sc: Scenario, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(SweepInterrupted) as ei:
        sweep(sc, out, task_fn=_stubs.Interrupting(7))
    assert ei.value.done == 7 and ei.value.total == 18
    cache = out / "cache"
    assert len(list(cache.glob("*.parquet"))) == 7
    assert not list(cache.glob(".*.tmp"))
    assert not (out / "results.parquet").exists()
    r = sweep(sc, out)
    assert r.computed == 11 and r.cached == 7
    assert r.results.height == expected_rows(sc)


def test_stale_temporary_files_are_removed(sc: Scenario, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "cache").mkdir(parents=True)
    junk = out / "cache" / ".abc.parquet.123.tmp"
    junk.write_bytes(b"partial")
    sweep(sc, out)
    assert not junk.exists()


def test_identical_configurations_run_once(tmp_path: Path) -> None:
    sc = Scenario.from_toml(TOML.replace('scheme = ["ssr", "spand"]', 'scheme = ["spand", "same"]') + "[schemes.same]\n")
    r = sweep(sc, tmp_path / "out")
    assert r.tasks == 18 and r.unique == 9 and r.computed == 9
    assert r.results.height == expected_rows(sc)


def test_process_pool_matches_inline(sc: Scenario, tmp_path: Path) -> None:
    a = sweep(sc, tmp_path / "a", jobs=1).results
    b = sweep(sc, tmp_path / "b", jobs=2).results
    assert a.equals(b)


def test_bad_backend_and_jobs(sc: Scenario, tmp_path: Path) -> None:
    from shortflow import ScenarioError

    with pytest.raises(ScenarioError, match="backend"):
        sweep(sc, tmp_path / "o", backend="slurm")
    with pytest.raises(ScenarioError, match="jobs"):
        sweep(sc, tmp_path / "o", jobs=0)


def test_reuse_takes_equal_tasks_from_another_sweep(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    """`reuse`: tasks whose key another sweep's cache holds are copied, not computed, and
    the results are those of computing them (`repro spand` reuses the earlier figures')."""
    counter = tmp_path / "calls.txt"
    monkeypatch.setenv(_stubs.COUNTER_ENV, str(counter))
    sweep(sc, tmp_path / "a")
    other = Scenario.from_toml(TOML.replace('name = "stubbed"', 'name = "other"')
                               .replace('"flows.conn.count" = [1, 2, 3]', '"flows.conn.count" = [2, 3, 4]'),
                               source="other.toml")
    counter.write_text("")
    r = sweep(other, tmp_path / "b", reuse=[tmp_path / "a", tmp_path / "missing"])
    assert r.computed == 6 and r.cached == 12, "count 2 and 3 (2 schemes x 3 seeds each) come from a"
    assert len(counter.read_text().splitlines()) == 6
    fresh = sweep(other, tmp_path / "c")
    assert fresh.computed == 18
    assert r.results.equals(fresh.results)
    # the copies are this sweep's own entries: a re-run without `reuse` computes nothing
    counter.write_text("")
    again = sweep(other, tmp_path / "b")
    assert again.computed == 0 and again.results.equals(fresh.results)
    assert counter.read_text() == ""
    # a damaged entry there is not taken: that task is computed here
    shared = sorted({f.name for f in (tmp_path / "a" / "cache").glob("*.parquet")}
                    & {f.name for f in (tmp_path / "c" / "cache").glob("*.parquet")})
    assert len(shared) == 12
    (tmp_path / "a" / "cache" / shared[0]).write_bytes(b"not parquet")
    r2 = sweep(other, tmp_path / "d", reuse=[tmp_path / "a"])
    assert r2.computed == 7 and r2.results.equals(fresh.results)


def test_cache_entries_are_synced_in_batches(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    """Cache files are renamed into place without a sync each and synced in batches: by
    the sweep's end every one of them has been synced exactly once."""
    from shortflow import files, sweeper

    synced: list[Path] = []
    real = files.sync_paths

    def record(paths):
        paths = list(paths)
        synced.extend(paths)
        real(paths)

    monkeypatch.setattr(files, "sync_paths", record)
    monkeypatch.setattr(sweeper, "SYNC_EVERY_S", 0.0)  # a batch after every file
    r = sweep(sc, tmp_path / "a")
    cache = tmp_path / "a" / "cache"
    written = sorted(cache.glob("*.parquet")) + sorted(cache.glob("*.config.json"))
    assert len(written) == 2 * len(r.computed_keys) > 0
    assert sorted(synced) == sorted(written)
    synced.clear()
    monkeypatch.setattr(sweeper, "SYNC_EVERY_S", 3600.0)  # one batch, at the end
    sweep(sc, tmp_path / "b")
    assert sorted(synced) == sorted((tmp_path / "b" / "cache").glob("*"))


def test_lost_config_file_beside_a_whole_entry_is_written_again(sc: Scenario, tmp_path: Path) -> None:
    """A power loss may leave a task's configuration file empty although its entry is
    whole (they are synced in batches): the resumed sweep writes it again, computing
    nothing."""
    out = tmp_path / "out"
    first = sweep(sc, out)
    cfgs = sorted((out / "cache").glob("*.config.json"))
    want = {p: p.read_bytes() for p in cfgs}
    cfgs[0].write_bytes(b"")
    cfgs[1].unlink()
    again = sweep(sc, out)
    assert again.computed_keys == []
    assert {p: p.read_bytes() for p in cfgs} == want
    assert again.results.equals(first.results)


def test_assemble_equals_annotating_task_by_task(sc: Scenario) -> None:
    """`assemble` builds every row's task columns at once; the rows equal those of
    `annotate_transfers` task by task, in grid order, with a task without transfers, and
    axes of every dtype (integer, float, bool, string of numbers and of tables)."""
    from polars.testing import assert_frame_equal

    from shortflow.scenario import annotate_transfers
    from shortflow.sweeper import Task, assemble

    def transfers(seed: int, n: int) -> pl.DataFrame:
        apps = [{"kind": "rounds", "rounds": n, "flows": ["g.1", "g.2"], "first_center_s": 1.0, "size_bytes": 10}]
        return _stubs.transfers_for({"seed": seed, "apps": apps})

    s = Scenario.from_toml(TOML.replace('scheme = ["ssr", "spand"]', 'scheme = ["ssr", "spand"]\n'
                                        '"tcp.window" = [20, 40]\n"tcp.decrease_num" = [1, 0.5]\n"tcp.ecn" = [true, false]\n'
                                        '"flows.conn.startup" = ["spand", { kind = "idle_restart" }]'), source="axes.toml")
    tasks, frames = [], {}
    for i, (point, seed) in enumerate(s.tasks()):
        key = f"k{i:04d}"
        tasks.append(Task(point, seed, key, "{}"))
        frames[key] = transfers(seed, i % 3)  # every third task has no transfers
    got = assemble(s, tasks, frames)
    dtypes = s.axis_dtypes()
    want = pl.concat([annotate_transfers(frames[t.key], s.name, t.point, t.seed, dtypes)
                      .with_columns(pl.lit(t.key, dtype=pl.String).alias("config_key")) for t in tasks])
    assert got.height == sum(f.height for f in frames.values()) > 0
    assert_frame_equal(got, want, check_exact=True)
