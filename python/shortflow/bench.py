"""``shortflow bench``: packets per second of the core on the benchmark workloads, and
the speed-up over ns-2 when ``ns`` is on the PATH.

Workload ``w`` (a, b, c) is the configuration ``tests/golden/ns2/bench_<w>.config.json``
of the repository; ns-2 runs the same workload as ``ns tools/ns2/bench.tcl <w>``, which
prints ``delivered_pkts N``. Both are timed wall-clock in this process.

Workload ``scale`` (:func:`scale_scenario`) is ``N`` concurrent 30 KB transfers, each with
its own host pair and access links, for N = 10^4 and 10^5 (and 10^6 with
``--scale-max 1000000``): the scenario goes the way a user's does (validated, expanded,
run through the core, results read into polars), each N in a fresh process, and the
report gives that process's peak resident set, the bytes per connection (peak less the
same process's resident set after its imports and a 2-connection warm-up run of the same
path, over N; this includes the result tables on their way to polars), the simulation's own bytes per connection at the
end of the run (``stats.sim_bytes``, see ``Simulation::memory``), and the CPU time per
delivered data packet. The bottleneck's rate and buffer grow with N, so every N delivers about 30
packets per connection.

Workload ``sweep`` is a sweep of many small tasks (``scenarios/examples/dumbbell_quick.toml``
with enough seeds for ``SWEEP_TASKS`` tasks, about 0.2 ms of core each), run as a user runs
it (``shortflow sweep``, a fresh process and output directory) with ``--jobs 1`` and
``--jobs 2``: the sweep's own statistics (``sweep.json``: tasks/s, utilisation, where the
tasks ran), the process's wall and CPU time, and ``jobs2_over_jobs1`` (tasks/s; issue 21
item 4: never below 1 by more than the noise). What a small task costs beside its
simulation (framing, handing over, the cache files) shows here.

Workload c (10 000 concurrent short transfers) also reports memory: the resident-set
growth of building the simulation, per TCP connection, measured in a fresh process
before the first event (every connection exists and is idle). ``idle_bytes_per_conn``
is for the connections alone (the same 10 000 connections between one sender and one
receiver host); ``idle_bytes_per_conn_with_hosts`` is for the workload as configured,
where each connection also brings its own host pair and access links. With ns-2, its
peak resident set on the workload is reported too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional, Sequence

__all__ = ["WORKLOADS", "SCALE_SIZES", "SWEEP_TASKS", "find_root", "run_benchmarks", "scale_scenario", "run_scale",
           "run_sweep_bench"]

WORKLOADS = ("a", "b", "c", "scale", "sweep")
#: Tasks of the sweep workload (four sweep points, so a multiple of 4).
SWEEP_TASKS = 2000
#: Connection counts of the scale workload by default; ``--scale-max 1000000`` adds 10^6
#: (about 4 GB of memory, extrapolated from 4 KB per connection at 10^5; not measured).
SCALE_SIZES = (10_000, 100_000)
_DELIVERED = re.compile(r"delivered_pkts\s+(\d+)")
_PEAK_RSS = re.compile(r"peak_rss_kb\s+(\d+)")


def find_root(start: Optional[Path] = None) -> Path:
    """The repository root: ``$SHORTFLOW_ROOT``, else the nearest parent (of ``start``,
    the working directory, then this package) holding ``tests/golden/ns2``."""
    env = os.environ.get("SHORTFLOW_ROOT")
    if env:
        return Path(env)
    candidates = [start or Path.cwd(), Path(__file__).resolve().parent]
    for c in candidates:
        for p in [c, *c.parents]:
            if (p / "tests" / "golden" / "ns2").is_dir():
                return p
    raise FileNotFoundError(
        "cannot find the repository (a directory with tests/golden/ns2): run from the repository "
        "or set SHORTFLOW_ROOT"
    )


def _run_ns2(root: Path, w: str, ns: str, timeout: float) -> dict[str, Any]:
    """One ns-2 run of workload ``w``: wall time, CPU time from the child's own resource
    usage (``os.wait4``), and the peak resident set the script reports for itself."""
    script = root / "tools" / "ns2" / "bench.tcl"
    if not script.exists():
        return {"ns2_error": f"{script} not found"}
    code, usage, wall, stdout, stderr = _run_child([ns, str(script.relative_to(root)), w], timeout, cwd=root)
    if wall >= timeout:
        return {"ns2_error": f"timed out after {timeout:g}s"}
    m = _DELIVERED.search(stdout)
    if code != 0 or not m:
        return {"ns2_error": f"ns exited {code}; no 'delivered_pkts N' line: {stderr.strip()[-300:]}"}
    n = int(m.group(1))
    peak = _PEAK_RSS.search(stdout)
    rss = int(peak.group(1)) * 1024 if peak else None
    return {"ns2_wall_s": wall, "ns2_cpu_s": usage.ru_utime + usage.ru_stime, "ns2_delivered_pkts": n,
            "ns2_pkts_per_s": n / wall if wall > 0 else None, "ns2_max_rss_bytes": rss}


_FOOTPRINT = (
    "import sys\n"
    "from shortflow.native import core\n"
    "print(core().idle_footprint(sys.stdin.read()))\n"
)


def idle_footprint(config_text: str) -> Optional[dict[str, Any]]:
    """``shortflow._core.idle_footprint`` of a configuration, run in a fresh interpreter
    (memory freed by earlier runs in this process would hide part of the growth)."""
    p = subprocess.run([sys.executable, "-c", _FOOTPRINT], input=config_text, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"footprint measurement failed: {p.stderr.strip()[-500:]}")
    return json.loads(p.stdout)


def shared_hosts(cfg: dict[str, Any]) -> dict[str, Any]:
    """Workload c with all TCP connections between one sender and one receiver host
    (the first flow's hosts and access links), to measure the connections alone."""
    f0 = cfg["flows"][0]
    src, dst = f0["src"], f0["dst"]
    used = {src, dst}
    keep = [n for n in cfg["nodes"] if n in used or not re.fullmatch(r"[sd]\d+", n)]
    links = [l for l in cfg["links"] if {l["src"], l["dst"]} <= set(keep)]
    return {**cfg, "nodes": keep, "links": links, "flows": [{**f, "src": src, "dst": dst} for f in cfg["flows"]]}


def scale_scenario(n: int) -> dict[str, Any]:
    """The scale workload's scenario for ``n`` connections: a dumbbell whose bottleneck
    (4.5 kb/s and 1/20 packet of buffer per connection: 45 Mb/s and 500 packets at 10^4,
    50 ms) grows with ``n``; each connection has its own host pair on 450 Mb/s, 1 ms
    access links and sends 30 KB with NewReno (1000-byte packets, window 1000), the
    connections starting 1/n s apart over the first second. The run ends when every
    transfer is done (at most 100 s)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"scale workload: n = {n!r}: a positive number of connections")
    return {
        "name": f"scale-{n}",
        "duration": "100s",
        "stop_when_done": True,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": f"{4.5 * n:g}kb", "delay": "50ms", "queue": {"kind": "droptail", "limit": max(n // 20, 10)}},
            "access": {"rate": "450Mb", "delay": "1ms"},
        },
        "flows": [{
            "name": "c", "count": n, "variant": "newreno", "tcp": {"packet_size": 1000, "window": 1000},
            "app": {"kind": "ftp", "size": "30KB", "stagger": f"{1e9 / n:.6g}ns"},
        }],
    }


#: One scale run in a fresh interpreter: the resident set after the imports and after a
#: 2-connection warm-up run of the same path (polars' and the allocators' one-time set-up,
#: about 25 MB, is not per connection: without it 10^4 connections measured 4.1 KB each
#: where the simulation held 1.5 KB), the CPU time
#: of validating + expanding, of the core's own call (building, running, collecting the
#: results and copying them out as typed columns, ``run_columns``; thread CPU time, the
#: GIL is released but the call runs on this thread) and of the run as a user's
#: ``simulate`` does it (the core's call plus building the polars frames), and the run's
#: statistics.
_SCALE = (
    "import gc, json, sys, time\n"
    "import polars, pyarrow\n"
    "from shortflow.bench import scale_scenario, _vm_hwm\n"
    "from shortflow.scenario import Scenario\n"
    "from shortflow.native import core, resolve_json\n"
    "from shortflow.results import RunResults\n"
    "core()\n"
    "imports = _vm_hwm()\n"
    "n = int(sys.argv[1])\n"
    "lookahead = sys.argv[2:] == ['lookahead']\n"
    "def go(n):\n"
    "    c0 = time.process_time()\n"
    "    cfg = Scenario.from_dict(scale_scenario(n)).to_sim_config(seed=1)\n"
    "    c1 = time.process_time()\n"
    "    resolved = resolve_json(cfg)\n"
    "    t0 = time.thread_time()\n"
    "    tables, stats = core().run_columns(resolved, None, None, lookahead)\n"
    "    t1 = time.thread_time()\n"
    "    res = RunResults.from_columns(tables, stats, json.loads(resolved))\n"
    "    return cfg, res, (c0, c1, t0, t1, time.process_time())\n"
    "go(2)\n"
    "gc.collect()\n"
    "base = _vm_hwm()\n"
    "cfg, res, (c0, c1, t0, t1, c2) = go(n)\n"
    "st = res.stats\n"
    "done = int(res.transfers['end_s'].is_not_nan().sum())\n"
    "print(json.dumps({'imports_rss_bytes': imports, 'base_rss_bytes': base, 'expand_cpu_s': c1 - c0, 'core_cpu_s': t1 - t0, 'run_cpu_s': c2 - c1,\n"
    "    'core_wall_s': st['wall_s'], 'events': st['events'], 'delivered_pkts': st['data_pkts_delivered'],\n"
    "    'sim_end_s': st['sim_end_s'], 'transfers_done': done, 'config_bytes': len(json.dumps(cfg)),\n"
    "    'sim_bytes': st.get('sim_bytes')}))\n"
)


def _vm_hwm() -> Optional[int]:
    """This process's peak resident set so far (Linux ``VmHWM``), bytes; None elsewhere."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _run_child(args: list[str], timeout: float, cwd: Optional[Path] = None) -> tuple[int, Any, float, str, str]:
    """Run ``args`` in a child process (in ``cwd``), killed after ``timeout`` s: its exit
    code, its resource usage (``os.wait4``: CPU time, peak resident set), wall time,
    stdout and stderr. Output goes to files, not pipes, so that waiting for the child
    cannot block on a full pipe."""
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        t0 = time.perf_counter()
        p = subprocess.Popen(args, cwd=cwd, stdout=so, stderr=se, text=True)
        killer = threading.Timer(timeout, p.kill)
        killer.start()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        killer.cancel()
        so.seek(0)
        se.seek(0)
        return os.waitstatus_to_exitcode(status), usage, wall, so.read(), se.read()


def run_scale(sizes: Sequence[int] = SCALE_SIZES, timeout: float = 3600.0, lookahead: bool = False) -> dict[str, Any]:
    """The scale workload at each size, each in a fresh process: ``{"sizes": {n: {...}},
    "linearity": ...}`` with, per size, the peak resident set (``peak_rss_bytes``, from the
    child's resource usage), ``bytes_per_conn`` (peak less the resident set after the
    imports and a 2-connection warm-up run, over n; ``bytes_per_conn_cold`` without the
    warm-up, so with polars' one-time set-up), ``sim_bytes_per_conn`` (the simulation's own structures at the end of
    the run, ``stats.sim_bytes`` over n: the per-connection state without the result
    tables, Python and the allocator's overhead), CPU times (``cpu_s`` the whole process's;
    ``expand_cpu_s`` validating and expanding; ``core_cpu_s`` the core's own call: building,
    running, collecting the results and copying them out as typed columns; ``run_cpu_s``
    that call plus building the polars frames, as ``Scenario.simulate``), the delivered data packets,
    events, and per delivered data packet ``core_ns_per_pkt``, ``run_ns_per_pkt`` and
    ``ns_per_pkt`` (whole process: Python's start-up and imports, about 0.35 s, and the warm-up included).

    ``lookahead``: run the core with lookahead (``shortflow bench --lookahead``).

    ``linearity`` is the largest size's ``core_ns_per_pkt`` over the smallest's: the
    simulation's own time per packet (1 = time linear in N). ``linearity_run`` uses
    ``run_ns_per_pkt`` and ``linearity_all`` ``ns_per_pkt``, kept for reference: the
    whole process's fixed start-up hides growth at the smallest size."""
    out: dict[str, Any] = {"sizes": {}}
    for n in sizes:
        args = [sys.executable, "-c", _SCALE, str(n)] + (["lookahead"] if lookahead else [])
        code, usage, wall, stdout, stderr = _run_child(args, timeout)
        if code != 0 or not stdout.strip():
            out["sizes"][str(n)] = {"error": f"exit {code}: {stderr.strip()[-500:]}"}
            continue
        e = json.loads(stdout.strip().splitlines()[-1])
        peak = usage.ru_maxrss * 1024
        cpu = usage.ru_utime + usage.ru_stime
        e.update(n=n, peak_rss_bytes=peak, cpu_s=cpu, wall_s=wall,
                 bytes_per_conn=(peak - e["base_rss_bytes"]) / n if e.get("base_rss_bytes") else None,
                 bytes_per_conn_cold=(peak - e["imports_rss_bytes"]) / n if e.get("imports_rss_bytes") else None,
                 sim_bytes_per_conn=e["sim_bytes"] / n if e.get("sim_bytes") else None,
                 ns_per_pkt=1e9 * cpu / e["delivered_pkts"] if e["delivered_pkts"] else None,
                 core_ns_per_pkt=1e9 * e["core_cpu_s"] / e["delivered_pkts"] if e["delivered_pkts"] else None,
                 run_ns_per_pkt=1e9 * e["run_cpu_s"] / e["delivered_pkts"] if e["delivered_pkts"] else None,
                 events_per_pkt=e["events"] / e["delivered_pkts"] if e["delivered_pkts"] else None)
        out["sizes"][str(n)] = e
    ok = [v for v in out["sizes"].values() if v.get("ns_per_pkt")]
    for key, col in (("linearity", "core_ns_per_pkt"), ("linearity_run", "run_ns_per_pkt"), ("linearity_all", "ns_per_pkt")):
        out[key] = ok[-1][col] / ok[0][col] if len(ok) > 1 else None
    return out


def run_sweep_bench(root: Path, tasks: Optional[int] = None, jobs: Sequence[int] = (1, 2),
                    timeout: float = 3600.0) -> dict[str, Any]:
    """The sweep workload (module docs): ``{"tasks": n, "jobs": {j: {...}}, "jobs2_over_jobs1": r}``
    with, per ``--jobs`` value, the sweep's statistics from its ``sweep.json`` (``stats``:
    ``tasks_per_s``, ``utilisation``, ``elapsed_s``, ``by_worker`` ...) and the process's
    ``wall_s`` and ``cpu_s`` (its resource usage, worker processes included)."""
    src = root / "scenarios" / "examples" / "dumbbell_quick.toml"
    out: dict[str, Any] = {"scenario": str(src), "jobs": {}}
    if not src.exists():
        out["error"] = f"{src} not found"
        return out
    seeds = max(1, (SWEEP_TASKS if tasks is None else tasks) // 4)
    text = src.read_text()
    if "seeds = [1, 2]" not in text:
        out["error"] = f"{src}: no 'seeds = [1, 2]' line to widen"
        return out
    out["tasks"] = 4 * seeds
    with tempfile.TemporaryDirectory() as d:
        scen = Path(d) / "sweep_bench.toml"
        scen.write_text(text.replace("seeds = [1, 2]", f"seeds = {list(range(1, seeds + 1))}"))
        for j in jobs:
            res = Path(d) / f"out{j}"
            code, usage, wall, _, err = _run_child([sys.executable, "-m", "shortflow", "sweep", str(scen),
                                                    "--jobs", str(j), "--out", str(res), "--no-progress"], timeout)
            meta = res / "sweep.json"
            if code != 0 or not meta.exists():
                out["jobs"][str(j)] = {"error": f"exit {code}: {err.strip()[-500:]}"}
                continue
            cpu = usage.ru_utime + usage.ru_stime
            out["jobs"][str(j)] = {"stats": json.loads(meta.read_text()).get("stats"), "wall_s": wall, "cpu_s": cpu}
    rate = {j: (e.get("stats") or {}).get("tasks_per_s") for j, e in out["jobs"].items()}
    out["jobs2_over_jobs1"] = rate["2"] / rate["1"] if rate.get("1") and rate.get("2") else None
    return out


def run_benchmarks(
    workloads: Sequence[str] = WORKLOADS,
    root: Optional[Path] = None,
    ns2: bool = True,
    repeat: int = 1,
    ns2_timeout: float = 3600.0,
    scale_sizes: Sequence[int] = SCALE_SIZES,
    lookahead: bool = False,
) -> dict[str, Any]:
    """Run each workload through the core and, when ``ns`` is on the PATH and ``ns2`` is
    true, through ns-2, each ``repeat`` times; the best wall-clock time of each counts
    (``scale``: once per size in ``scale_sizes``, see :func:`run_scale`). With
    ``lookahead`` the core runs with lookahead (docs/architecture.md, "Lookahead": the
    same results with fewer events per packet, measured slower). Returns
    ``{"workloads": {w: {pkts_per_s, ns2_pkts_per_s, ratio, events_per_pkt, ...}}, ...}``."""
    from .version import __version__
    from .native import core

    root = root or find_root()
    ns = shutil.which("ns") if ns2 else None
    out: dict[str, Any] = {"version": __version__, "core_version": core().version(), "ns2": ns,
                           "lookahead": lookahead, "workloads": {}}
    for w in workloads:
        if w == "scale":
            out["workloads"][w] = run_scale(scale_sizes, lookahead=lookahead)
            continue
        if w == "sweep":
            out["workloads"][w] = run_sweep_bench(root)
            continue
        cfg = root / "tests" / "golden" / "ns2" / f"bench_{w}.config.json"
        entry: dict[str, Any] = {"config": str(cfg.relative_to(root)) if cfg.is_relative_to(root) else str(cfg)}
        if not cfg.exists():
            entry.update(error=f"{cfg} not found", pkts_per_s=None, ns2_pkts_per_s=None, ratio=None)
            out["workloads"][w] = entry
            continue
        text = cfg.read_text()
        # Core and ns-2 runs alternate, so that a slow spell of a shared machine hits both;
        # the best wall (and CPU) time of each counts.
        core_walls: list[float] = []
        core_cpus: list[float] = []
        ns2_tries: list[dict[str, Any]] = []
        delivered = events = 0
        for _ in range(max(1, repeat)):
            c0, t0 = time.process_time(), time.perf_counter()
            res = json.loads(core().run(text, None, None, lookahead))
            core_walls.append(time.perf_counter() - t0)
            core_cpus.append(time.process_time() - c0)
            stats = res.get("stats", {})
            delivered = int(stats.get("data_pkts_delivered", 0))
            events = int(stats.get("events", 0))
            if ns:
                ns2_tries.append(_run_ns2(root, w, ns, ns2_timeout))
        best, best_cpu = min(core_walls), min(core_cpus)
        entry.update(wall_s=best, cpu_s=best_cpu, delivered_pkts=delivered, events=events,
                     events_per_pkt=events / delivered if delivered else None,
                     pkts_per_s=delivered / best if best > 0 else None)
        if w == "c":
            both = idle_footprint(json.dumps(shared_hosts(json.loads(text)))), idle_footprint(text)
            if both[0] and both[1]:
                entry.update(idle_bytes_per_conn=both[0]["bytes_per_connection"],
                             idle_bytes_per_conn_with_hosts=both[1]["bytes_per_connection"],
                             tcp_connections=both[1]["tcp_connections"])
        entry["ns2_pkts_per_s"] = None
        entry["ratio_cpu"] = None
        ok = [t for t in ns2_tries if "ns2_error" not in t]
        if ok:
            best_ns2 = min(ok, key=lambda t: t["ns2_wall_s"])
            best_ns2["ns2_cpu_s"] = min(t["ns2_cpu_s"] for t in ok)
            best_ns2["ns2_max_rss_bytes"] = max((t.get("ns2_max_rss_bytes") or 0) for t in ok) or None
            entry.update(best_ns2)
            if best_cpu > 0 and best_ns2["ns2_cpu_s"] > 0:
                entry["ratio_cpu"] = (delivered / best_cpu) / (best_ns2["ns2_delivered_pkts"] / best_ns2["ns2_cpu_s"])
        elif ns2_tries:
            entry.update(ns2_tries[0])
        pps, npps = entry.get("pkts_per_s"), entry.get("ns2_pkts_per_s")
        entry["ratio"] = (pps / npps) if (pps and npps) else None
        out["workloads"][w] = entry
    return out
