"""A real sweep (compiled core, CLI in a subprocess) killed mid-way resumes without
recomputing finished tasks, and ends with exactly grid x seeds x transfers rows."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from shortflow import load
from shortflow.sweeper import DELAY_ENV

pytestmark = pytest.mark.slow


def scenario_file(examples: Path, tmp_path: Path, seeds: int) -> Path:
    text = (examples / "dumbbell_quick.toml").read_text()
    text = text.replace("seeds = [1, 2]", f"seeds = {list(range(1, seeds + 1))}")
    p = tmp_path / "resume.toml"
    p.write_text(text)
    return p


def journal_keys(out: Path) -> list[str]:
    j = out / "journal.jsonl"
    return [json.loads(line)["key"] for line in j.read_text().splitlines()] if j.exists() else []


def test_killed_sweep_resumes(core, examples: Path, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    path = scenario_file(examples, tmp_path, seeds=8)
    sc = load(path)
    n_tasks = len(sc.points()) * len(sc.seeds)  # 4 points x 8 seeds
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "shortflow", "sweep", str(path), "--out", str(out), "--jobs", "2", "--no-progress"]
    env = dict(subprocess_env, **{DELAY_ENV: "0.25"})
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cache = out / "cache"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if cache.exists() and len(list(cache.glob("*.parquet"))) >= 4:
                break
            if proc.poll() is not None:
                pytest.fail(f"sweep ended before it could be interrupted: {proc.communicate()}")
            time.sleep(0.02)
        else:
            pytest.fail("no cache entries appeared in time")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the driver and its workers, like `kill -9`
        proc.wait(timeout=30)
    assert proc.returncode != 0
    finished = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in cache.glob("*.parquet")}
    assert 4 <= len(finished) < n_tasks, "the kill must land mid-way"
    assert not (out / "results.parquet").exists()
    before = journal_keys(out)
    # The driver writes a task's cache entry, then its journal line: a kill -9 between the
    # two leaves at most one entry without a line (the cache is the truth; the journal is
    # the timing log). Every line names an entry.
    cached_keys = {p.name.removesuffix(".parquet") for p in finished}
    assert len(before) == len(set(before)) and set(before) <= cached_keys
    assert len(cached_keys - set(before)) <= 1

    done = subprocess.run(cmd, env=subprocess_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{n_tasks - len(finished)} computed, {len(finished)} from cache" in done.stdout
    after = journal_keys(out)[len(before):]
    assert not set(after) & {p.name.removesuffix(".parquet") for p in finished}, "a finished task was recomputed"
    assert len(after) == n_tasks - len(finished)
    for p, stamp in finished.items():
        assert (p.stat().st_mtime_ns, p.stat().st_ino) == stamp, f"{p.name} was rewritten"
    assert not list(cache.glob(".*.tmp"))

    df = pl.read_parquet(out / "results.parquet")
    per_point = {1: 3, 2: 6}  # connections x 3 rounds
    expected = sum(per_point[p["flows.conn.count"]] for p in sc.points()) * len(sc.seeds)
    assert df.height == expected
    key = ["flows.conn.count", "scheme", "seed", "connection", "round"]
    assert df.select(key).unique().height == df.height, "duplicate rows"
    assert df.select(["flows.conn.count", "scheme", "seed"]).unique().height == n_tasks

    # an uninterrupted sweep gives the same rows
    fresh = subprocess.run([*cmd[:5], "--out", str(tmp_path / "fresh"), "--jobs", "2", "--no-progress"],
                           env=subprocess_env, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    assert pl.read_parquet(tmp_path / "fresh" / "results.parquet").equals(df)
    # and re-running is instant: nothing computed
    again = subprocess.run(cmd, env=subprocess_env, capture_output=True, text=True, timeout=300)
    assert f"0 computed, {n_tasks} from cache" in again.stdout


def test_same_seed_same_parquet_bytes(core, examples: Path, tmp_path: Path) -> None:
    import shortflow

    sc = shortflow.load(examples / "dumbbell_quick.toml")
    shortflow.sweep(sc, jobs=1, out=tmp_path / "a")
    shortflow.sweep(sc, jobs=2, out=tmp_path / "b")
    a = (tmp_path / "a" / "results.parquet").read_bytes()
    b = (tmp_path / "b" / "results.parquet").read_bytes()
    assert a == b
    ca = sorted(p.name for p in (tmp_path / "a" / "cache").iterdir())
    cb = sorted(p.name for p in (tmp_path / "b" / "cache").iterdir())
    assert ca == cb
    for name in ca:
        assert (tmp_path / "a" / "cache" / name).read_bytes() == (tmp_path / "b" / "cache" / name).read_bytes()


def test_ctrl_c_exits_130_with_resume_hint(core, examples: Path, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "shortflow", "sweep", str(examples / "dumbbell_quick.toml"), "--out", str(out),
           "--jobs", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, env=dict(subprocess_env, **{DELAY_ENV: "1.0"}), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not ((out / "cache").exists() and list((out / "cache").glob("*.parquet"))):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    # The driver starts its worker process once the work left is worth it (here: right
    # after the first task) and ignores SIGINT for the few milliseconds of that start
    # (workers.py, _spawning_workers: a Ctrl-C then is lost, documented). Press Ctrl-C
    # after the worker is up, as a user would in a running sweep.
    if sys.platform.startswith("linux"):
        while not _worker_loaded(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "run it again to resume" in err and "Traceback" not in err
    done = subprocess.run(cmd, env=subprocess_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "from cache" in done.stdout


def _worker_loaded(driver: int) -> bool:
    """Has a worker process of `driver` loaded the core (its initializer ran)?"""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) != driver:
                continue
            if "shortflow/_core" in (d / "maps").read_text():
                return True
        except OSError:
            continue
    return False
