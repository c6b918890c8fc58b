"""Nothing silent, nothing lost (issue 14): damaged and swapped cache entries, atomic
result files on a full disk, damaged inputs to plot/report, Ctrl-C in long runs and
sweeps, and sweep workers that never outlive their driver."""

from __future__ import annotations

import errno
import io
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import _stubs
from shortflow import Scenario, ScenarioError
from shortflow import files
from shortflow.cli import app
from shortflow.sweeper import DELAY_ENV, META_KEY, META_ROWS, entry_bytes

from test_sweep_cache import TOML, sweep

runner = CliRunner()

#: An infinite FTP run of ~30 M events per simulated 100 s: far longer than any test.
LONG_TOML = """
name = "long"
seeds = [1]
duration = "100000s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mb", delay = "10ms", queue = 50 }
access = { rate = "1Gb", delay = "1ms" }
[[flows]]
name = "bulk"
count = 4
app = { kind = "ftp" }
"""


@pytest.fixture()
def sc() -> Scenario:
    return Scenario.from_toml(TOML, source="stubbed.toml")


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


# --- cache entries carry their key ------------------------------------------------


def test_entry_footer_names_key_rows_and_task(sc: Scenario, tmp_path: Path) -> None:
    r = sweep(sc, tmp_path / "out")
    key = r.computed_keys[0]
    meta = pl.read_parquet_metadata(tmp_path / "out" / "cache" / f"{key}.parquet")
    assert meta[META_KEY] == key
    assert int(meta[META_ROWS]) == pl.read_parquet(tmp_path / "out" / "cache" / f"{key}.parquet").height > 0
    task = json.loads(meta["shortflow.task"])
    assert task["scenario"] == "stubbed" and set(task["point"]) == {"flows.conn.count", "scheme"}


def test_swapped_entry_is_detected_and_recomputed(sc: Scenario, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    first = sweep(sc, out)
    cache = out / "cache"
    # tasks of 1 and 3 connections: different row counts, so a silent use would show
    a, b = first.computed_keys[0], first.computed_keys[-1]
    shutil.copyfile(cache / f"{a}.parquet", cache / f"{b}.parquet")
    capsys.readouterr()
    r = sweep(sc, out)
    err = capsys.readouterr().err
    victim = str(cache / f"{b}.parquet")
    assert r.computed == 1 and r.computed_keys == [b] and r.cached == 17
    assert list(r.damaged) == [victim] and "holds the result of another task" in r.damaged[victim]
    assert victim in err.replace("\n", "") and "computing it again" in err
    assert r.results.equals(first.results)
    assert pl.read_parquet_metadata(cache / f"{b}.parquet")[META_KEY] == b
    # repaired: the next run warns about nothing
    again = sweep(sc, out)
    assert again.computed == 0 and not again.damaged and "warning" not in capsys.readouterr().err


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


@pytest.mark.parametrize("damage", {
    "truncated": _truncate,
    "zero-length": lambda p: p.write_bytes(b""),
    "random bytes": lambda p: p.write_bytes(os.urandom(3000)),
    "not parquet": lambda p: p.write_text("flow,round\nconn[0],0\n"),
    "parquet without a key": lambda p: p.write_bytes(files.parquet_bytes(pl.read_parquet(p))),
}.items(), ids=lambda d: d[0] if isinstance(d, tuple) else d)
def test_damaged_entry_is_reported_and_recomputed(sc: Scenario, tmp_path: Path, capsys, damage) -> None:
    name, fn = damage
    out = tmp_path / "out"
    first = sweep(sc, out)
    victim = out / "cache" / f"{first.computed_keys[4]}.parquet"
    fn(victim)
    capsys.readouterr()
    r = sweep(sc, out)
    err = capsys.readouterr().err.replace("\n", "")
    assert r.computed_keys == [first.computed_keys[4]], name
    assert list(r.damaged) == [str(victim)] and str(victim) in err
    assert r.results.equals(first.results)


def test_row_count_mismatch_is_detected(sc: Scenario, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = sweep(sc, out)
    key = first.computed_keys[2]
    p = out / "cache" / f"{key}.parquet"
    df = pl.read_parquet(p)
    lying = files.parquet_bytes(df.head(1), {META_KEY: key, META_ROWS: str(df.height)})
    p.write_bytes(lying)
    r = sweep(sc, out)
    assert r.computed_keys == [key]
    assert f"has 1 rows where its footer records {df.height}" in r.damaged[str(p)]
    assert r.results.equals(first.results)


def test_entry_bytes_roundtrip() -> None:
    df = _stubs.transfers_for({"seed": 1, "apps": [{"kind": "rounds", "rounds": 2, "flows": ["a", "b"],
                                                   "first_center_s": 1.0, "size_bytes": 1000}]})
    data = entry_bytes(df, "k" * 32, {"seed": 1})
    assert pl.read_parquet(io.BytesIO(data)).equals(df)
    assert pl.read_parquet_metadata(io.BytesIO(data))[META_ROWS] == "4"


# --- atomic writes -------------------------------------------------------------------


class _FullDisk:
    """``open`` for ``files``: files opened for writing accept ``room`` bytes, then fail
    with ENOSPC, like a disk that fills up in the middle of a write."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.opened: list[str] = []

    def __call__(self, path, mode="r", *a, **kw):
        f = open(path, mode, *a, **kw)
        if "w" not in mode:
            return f
        self.opened.append(str(path))
        disk = self

        class Writer:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                f.close()

            def write(self, data: bytes) -> int:
                n = min(len(data), disk.room)
                f.write(data[:n])
                f.flush()
                disk.room -= n
                if n < len(data):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                return n

        return Writer()


def test_enospc_mid_write_names_path_and_keeps_old_file(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "results.parquet"
    target.write_bytes(b"old results")
    disk = _FullDisk(room=100)
    monkeypatch.setattr(files, "open", disk, raising=False)
    with pytest.raises(files.FileProblem) as ei:
        files.write_bytes(target, b"x" * 1000)
    assert str(target) in str(ei.value) and "no space left on device" in str(ei.value)
    assert ei.value.errno == errno.ENOSPC and isinstance(ei.value, OSError)
    assert disk.opened and Path(disk.opened[0]).parent == tmp_path, "the temporary file sits beside the target"
    assert target.read_bytes() == b"old results", "the old file is untouched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet"], "no partial file is left"


def test_permission_error_names_path(tmp_path: Path, monkeypatch) -> None:
    d = tmp_path / "ro"
    d.mkdir()
    if os.geteuid() == 0:  # root writes anywhere: deny as the file system would

        def denied(path, mode="r", *a, **kw):
            if "w" in mode:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return open(path, mode, *a, **kw)

        monkeypatch.setattr(files, "open", denied, raising=False)
    else:
        d.chmod(0o555)
    try:
        with pytest.raises(files.FileProblem, match="cannot write .*ro/x.json: permission denied"):
            files.write_json(d / "x.json", {})
        assert not list(d.iterdir())
    finally:
        d.chmod(0o755)


def test_sweep_on_a_full_disk_leaves_no_partial_results(sc: Scenario, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    sweep(sc, out)
    (out / "results.parquet").unlink()
    monkeypatch.setattr(files, "open", _FullDisk(room=200), raising=False)
    with pytest.raises(files.FileProblem, match=r"cannot write .*(sweep\.json|results\.parquet): no space left"):
        sweep(sc, out)
    assert not (out / "results.parquet").exists()
    assert not list(out.rglob(files.TMP_GLOB))
    monkeypatch.undo()
    r = sweep(sc, out)
    assert r.computed == 0 and (out / "results.parquet").exists()


def _tiny_tmpfs(path: Path, size: str = "256k") -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    path.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    return p.returncode == 0


def test_run_out_on_a_full_tmpfs(core, tmp_path: Path, examples: Path, subprocess_env: dict[str, str]) -> None:
    """A real full disk (a small tmpfs): `run --out` fails naming the file, exit 1, and
    leaves no partial or empty file (the issue saw a 0-byte links.parquet)."""
    mnt = tmp_path / "mnt"
    if not _tiny_tmpfs(mnt):
        pytest.skip("needs root and tmpfs to make a small file system")
    try:
        filler = mnt / "filler"
        with open(filler, "wb") as f:  # fill all but ~6 KB
            try:
                f.write(b"\0" * (256 * 1024 - 6 * 1024))
            except OSError:
                pass
        out = mnt / "run"
        p = subprocess.run([sys.executable, "-m", "shortflow", "run", str(examples / "dumbbell_quick.toml"), "--out",
                            str(out)], env=subprocess_env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 1, p.stderr
        assert "no space left on device" in p.stderr and str(out) in p.stderr.replace("\n", "")
        assert "Traceback" not in p.stderr and "internal error" not in p.stderr
        left = sorted(x.name for x in out.iterdir()) if out.exists() else []
        assert not [n for n in left if n.endswith(".tmp")], left
        assert all((out / n).stat().st_size > 0 for n in left), f"empty files: {left}"
        for n in left:  # whatever was written before the disk filled is whole
            if n.endswith(".parquet"):
                pl.read_parquet(out / n)
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_run_out_pointing_at_a_file(core, tmp_path: Path, examples: Path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    r = invoke("run", examples / "dumbbell_quick.toml", "--out", f)
    assert r.exit_code == 1 and f"{f}: it is a file" in r.output.replace("\n", "")
    assert f.read_text() == "x"


# --- damaged inputs to plot / report ----------------------------------------------


@pytest.fixture()
def sweep_dir(sc: Scenario, tmp_path: Path) -> Path:
    sweep(sc, tmp_path / "out")
    return tmp_path / "out"


@pytest.mark.parametrize("command", ["plot", "report"])
@pytest.mark.parametrize("damage", ["sweep.json garbage", "sweep.json list", "results truncated",
                                    "results random", "results foreign"])
def test_plot_and_report_name_a_damaged_file(sweep_dir: Path, command: str, damage: str) -> None:
    what, kind = damage.split()
    target = sweep_dir / ("sweep.json" if what == "sweep.json" else "results.parquet")
    if kind == "garbage":
        target.write_bytes(b'{"scenario": "stubbed", \xff')
    elif kind == "list":
        target.write_text("[1, 2]")
    elif kind == "truncated":
        _truncate(target)
    elif kind == "random":
        target.write_bytes(os.urandom(500))
    else:
        pl.DataFrame({"x": [1, 2]}).write_parquet(target)
    r = invoke(command, sweep_dir)
    text = r.output.replace("\n", "")
    assert r.exit_code == 1, r.output
    assert str(target) in text and ("damaged" in text or "not a shortflow results table" in text)
    assert "Traceback" not in r.output and "internal error" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_plot_on_a_missing_directory(tmp_path: Path) -> None:
    r = invoke("plot", tmp_path / "nope")
    assert r.exit_code == 2 and "does not exist" in r.output


# --- sweep directories belong to one scenario -------------------------------------


def test_other_scenario_into_a_sweep_directory_is_refused(sc: Scenario, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = sweep(sc, out)
    other = Scenario.from_toml(TOML.replace('name = "stubbed"', 'name = "other"'), source="other.toml")
    with pytest.raises(ScenarioError) as ei:
        sweep(other, out)
    msg = str(ei.value)
    assert "'stubbed' (from stubbed.toml)" in msg and "'other' (from other.toml)" in msg
    assert "--fresh" in msg and "--out" in msg
    assert pl.read_parquet(out / "results.parquet").equals(first.results), "the old results are intact"
    assert json.loads((out / "sweep.json").read_text())["scenario"] == "stubbed"
    # the same scenario (edited: another seed) resumes; --fresh replaces
    more = Scenario.from_toml(TOML.replace("seeds = [1, 2, 3]", "seeds = [1, 2, 3, 4]"), source="stubbed.toml")
    assert sweep(more, out).computed == 6
    assert sweep(other, out, fresh=True).results["scenario"].unique().to_list() == ["other"]


def test_run_out_into_a_sweep_directory_is_refused(core, examples: Path, tmp_path: Path) -> None:
    (tmp_path / "s" / "cache").mkdir(parents=True)
    r = invoke("run", examples / "dumbbell_quick.toml", "--out", tmp_path / "s")
    assert r.exit_code == 2 and "holds a sweep" in r.output
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "sweep.json").write_text(json.dumps({"scenario": "other", "source": "o.toml", "tasks": 1}))
    r = invoke("run", examples / "dumbbell_quick.toml", "--out", tmp_path / "r")
    text = r.output.replace("\n", "")
    assert r.exit_code == 2 and "'other' (from o.toml)" in text and "'dumbbell-quick'" in text and "--fresh" not in text


# --- long single runs: progress, Ctrl-C, results unchanged by slicing ---------------


def _config(text: str, **over) -> str:
    from shortflow.native import resolve_json

    cfg = Scenario.from_toml(text).to_sim_config({}, 1)
    cfg.update(over)
    return resolve_json(json.dumps(cfg))


def _without_wall(text: str) -> dict:
    d = json.loads(text)
    d["stats"].pop("wall_s")
    return d


@pytest.mark.parametrize("which", ["rounds, stop when done", "ftp, fixed duration"])
def test_slicing_does_not_change_results(core, examples: Path, which: str) -> None:
    if which.startswith("rounds"):
        cfg = _config((examples / "dumbbell_quick.toml").read_text(),
                      trace={"packets": True, "acks": True, "cwnd": True})
    else:
        cfg = _config(LONG_TOML, duration_s=2.0, trace={"acks": True, "cwnd": True})
    whole = _without_wall(core.run(cfg, slice_events=10**18))
    assert whole["stats"]["events"] > 1_000
    one_by_one = _without_wall(core.run(cfg, slice_events=1))
    assert one_by_one == whole
    calls: list[tuple] = []
    adaptive = _without_wall(core.run(cfg, lambda *a: calls.append(a)))
    assert adaptive == whole
    assert calls[-1] == (whole["stats"]["events"], whole["stats"]["sim_end_s"], json.loads(cfg)["duration_s"])
    with pytest.raises(ValueError, match="slice_events = 0"):
        core.run(cfg, slice_events=0)


def test_progress_is_rate_limited_and_monotone(core) -> None:
    """Progress reports come at most every 100 ms of wall time, with events and simulated
    time never going back. The run is far too long to finish (10^7 simulated seconds of
    bulk transfers) and the callback stops it after a fixed number of reports, so the
    test sees the same number of intermediate reports on a fast or a slow machine."""
    cfg = _config(LONG_TOML, duration_s=1e7)
    wanted = 5
    calls: list[tuple[float, int, float]] = []

    class Enough(Exception):
        pass

    def progress(ev: int, t: float, d: float) -> None:
        calls.append((time.perf_counter(), ev, t))
        assert d == 1e7
        if len(calls) == wanted:
            raise Enough

    t0 = time.perf_counter()
    with pytest.raises(Enough):  # an exception from the callback stops the run
        core.run(cfg, progress)
    wall = time.perf_counter() - t0
    assert len(calls) == wanted  # all intermediate reports: the run never reached its end
    assert calls[-1][2] < 1e7
    gaps = [b[0] - a[0] for a, b in zip(calls, calls[1:])]
    assert all(g >= 0.09 for g in gaps), gaps  # rate limit: at most one report per ~100 ms
    assert wall >= (wanted - 1) * 0.09, wall  # so the reports took at least this long
    assert len(calls) <= wall / 0.1 + 2  # and no more reports than the elapsed time allows
    assert [c[1] for c in calls] == sorted(c[1] for c in calls) and [c[2] for c in calls] == sorted(c[2] for c in calls)
    assert calls[0][1] > 0 and calls[-1][1] > calls[0][1] and calls[-1][2] > calls[0][2]  # it progressed


def test_ctrl_c_stops_a_long_run_in_the_core(core) -> None:
    cfg = _config(LONG_TOML)
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, interrupt)
    t0 = time.perf_counter()
    timer.start()
    try:
        core.run(cfg)
    except KeyboardInterrupt:
        pass
    else:  # seen once on a loaded machine (stop 40), not reproduced since: say what happened
        pytest.fail(f"the run ended normally after {time.perf_counter() - t0:.1f} s; SIGINT sent "
                    f"{'at %.2f s' % (sent[0] - t0) if sent else 'never'}; SIGINT handler now "
                    f"{signal.getsignal(signal.SIGINT)!r}")
    finally:
        timer.cancel()
    latency = time.perf_counter() - sent[0]
    assert latency < 0.5, f"Ctrl-C took {latency:.3f} s to stop the run"


def test_ctrl_c_in_shortflow_run_with_progress_bar(core, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """`shortflow run` on a terminal shows the progress bar (simulated time, events);
    Ctrl-C stops it within a second: exit 130, "interrupted", no traceback."""
    scen = tmp_path / "long.toml"
    scen.write_text(LONG_TOML)
    master, slave = pty.openpty()
    env = dict(subprocess_env, TERM="xterm", COLUMNS="160")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "shortflow", "run", str(scen)], stdin=slave, stdout=slave,
                            stderr=slave, env=env, close_fds=True)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 30
        while b"events" not in seen or b"s / 100000s simulated" not in seen:
            assert time.monotonic() < deadline, f"no progress bar: {seen[-500:]!r}"
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                seen += os.read(master, 65536)
        t = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
        latency = time.perf_counter() - t
        while True:
            r, _, _ = select.select([master], [], [], 0.2)
            if not r:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = seen.decode(errors="replace")
    assert proc.returncode == 130
    assert latency < 1.0, f"Ctrl-C took {latency:.3f} s"
    assert "interrupted" in text and "Traceback" not in text and "internal error" not in text


# --- sweeps: Ctrl-C, SIGTERM, SIGKILL ----------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited (it waits only to be reaped)


def _wait_gone(pids: list[int], within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], "processes outlived the sweep's driver"


def _start_long_sweep(tmp_path: Path, env: dict[str, str], delay_s: float):
    scen = tmp_path / "s.toml"
    scen.write_text(TOML)
    out = tmp_path / "out"
    # --jobs 3: the driver's thread and two worker processes (see shortflow.workers)
    cmd = [sys.executable, "-m", "shortflow", "sweep", str(scen), "--out", str(out), "--jobs", "3", "--no-progress"]
    proc = subprocess.Popen(cmd, env=dict(env, **{DELAY_ENV: str(delay_s)}), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:  # two worker processes busy with a task each
        workers = [c for c in _children(proc.pid) if "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]
        if len(workers) >= 2:
            break
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    # A sweep starts its processes once its work is worth their start-up (about 1 s in),
    # so they may still be importing: wait until each has run its initializer (it set
    # the parent-death signal, then loaded the core, whose library shows in its maps).
    while not all(_loaded_core(w) for w in workers):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    time.sleep(0.5)  # let them pick up their tasks
    return proc, out, workers


def _loaded_core(pid: int) -> bool:
    try:
        return "shortflow/_core" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkilled_sweep_leaves_no_orphan_workers(core, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    proc, _, workers = _start_long_sweep(tmp_path, subprocess_env, delay_s=60)
    everyone = _children(proc.pid)
    try:
        os.kill(proc.pid, signal.SIGKILL)  # the driver only, not its process group
        proc.wait(timeout=10)
        _wait_gone(everyone)
    finally:
        for p in everyone:
            if _alive(p):
                os.kill(p, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupted_sweep_stops_long_tasks_promptly(core, tmp_path: Path, subprocess_env: dict[str, str], sig) -> None:
    """Tasks of 60 s each: Ctrl-C (to the process group, as a terminal sends it) or SIGTERM
    (to the driver) ends the sweep within seconds, keeps what finished and kills the workers."""
    proc, out, workers = _start_long_sweep(tmp_path, subprocess_env, delay_s=60)
    everyone = _children(proc.pid)
    try:
        t = time.perf_counter()
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=20)
        latency = time.perf_counter() - t
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert latency < 3.0, f"the sweep took {latency:.2f} s to stop"
    assert "0 of 18 tasks are cached" in err and "run it again to resume" in err and "Traceback" not in err
    assert not [p for p in workers if _alive(p)], "worker processes outlived the sweep"
    _wait_gone(everyone)  # and multiprocessing's resource tracker follows the driver
    assert not (out / "results.parquet").exists() and not list(out.rglob(files.TMP_GLOB))


def test_worker_dies_with_its_driver(tmp_path: Path) -> None:
    """The worker initializer's parent-death signal, without a pool: a child process that
    called it is killed when its parent (here a short-lived intermediate) exits."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux-only")
    pidfile = tmp_path / "pid"
    code = f"""
import os, subprocess, sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parents[2] / 'python')!r})
child = subprocess.Popen([sys.executable, "-c", "import os, sys, time; sys.path.insert(0, {str(Path(__file__).resolve().parents[2] / 'python')!r}); from shortflow.sweeper import _die_with_driver; _die_with_driver(os.getppid()); open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(60)"])
while not os.path.exists({str(pidfile)!r}) or not open({str(pidfile)!r}).read():
    time.sleep(0.02)
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], timeout=30, check=True)
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_sync_paths_syncs_each_file_system_once_or_each_file(tmp_path: Path, monkeypatch) -> None:
    """`files.sync_paths` (a sweep's batches of cache files): one `syncfs` per directory
    where it works; else every file and every directory synced once."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    paths = [a / "1", a / "2", b / "3"]
    for p in paths:
        files.write_bytes(p, b"x", sync=False)
    if sys.platform.startswith("linux"):
        assert files._syncfs(a) is True
    seen: list[Path] = []
    monkeypatch.setattr(files, "_syncfs", lambda d: seen.append(d) or True)
    files.sync_paths(paths)
    assert sorted(seen) == [a, b]
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(files, "_syncfs", lambda d: False)
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    files.sync_paths(paths + [a / "gone"])  # a file removed since is skipped
    assert len(synced) == len(paths) + 2  # three files, two directories
    files.sync_paths([])
    assert len(synced) == len(paths) + 2
