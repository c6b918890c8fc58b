#!/usr/bin/env python3
"""Project the CPU time of the full TCP/SPAND reproduction (`shortflow repro spand`, Figs.
10-19, 4 360 simulations) from a stratified sample, as docs/speed.md reports it.

The sample: every x value of each figure once (N or F for Figs. 10-17; each (N_total,
F) sub-scenario for Figs. 18/19), the schemes rotating over the x values, seed 1 -- 104
tasks. Each task runs as the sweep runs it (`workers.compute_task`: the core's `run_json`
on the resolved configuration, the transfers table read and written as Parquet), timed by
its thread's CPU time (the machine is shared: CPU, not wall). A figure's projection is its
sample's mean CPU per task times the number of tasks the figure computes -- a task an
earlier figure computed (same key) is taken from that figure's cache (`run_sweep(reuse=)`:
Figs. 11, 13, 15 and 17 each share one x value, 50 tasks, with the figure before; a sampled
task there counts for none) and `--no-reuse` counts them as runs before that did; the
run's projection is the sum. Also
recorded per task: the core's event count (`stats.events`), which does not depend on the
machine's load, and the packets the UDP sources sent.

**Two at a time, as the sweep runs them.** `repro spand --jobs 2` keeps both cores busy
with a task each (the driver's thread and a worker process), and a task's CPU time is
higher then than with the other core idle (shared L3 cache and memory bandwidth): checked
against the whole run of 2026-11-25 (`--compare`, docs/speed.md). So the
sample runs in `--jobs` worker processes at once (default 2), figure by figure as the
reproduction does; `--jobs 1` measures each task alone (what this tool did before, and
~8 % under the whole run's task CPU).

**Beyond the tasks.** The whole run also does, per figure, one diagnostic run of the
`spand` scheme (Figs. 18/19: the mixed one) at the first seed of every x value
(`figures.diagnose`, not in the sweeps' journals) and, between sweeps, the driver's
serial work (planning every task, aggregating, plotting: one core idle). The projection
adds the diagnostic runs (their count times the figure's sampled CPU per task) to the
CPU, and for the wall time on two cores the planning it measures (`sweeper.plan` of the
figure, timed here) plus a fixed allowance per figure for aggregating and plotting
(`DRIVER_S`, measured from the whole run's journal gaps, see `--compare`).

    .venv/bin/python tools/perf/spand_projection.py [--figures 14 17] [--jobs 2] [--json OUT.json]
    .venv/bin/python tools/perf/spand_projection.py --compare OUT_DIR_OF_A_WHOLE_RUN
    .venv/bin/python tools/perf/spand_projection.py --config-of 17 200KB newreno-nssr --cut-rounds 4 > fig17_r4.json

`--compare DIR` also reads a whole run's journals (`DIR/runs/*/journal.jsonl`, each task's
thread CPU): per figure the whole run's task CPU against the projection, and the sampled
tasks' CPU in the whole run against this measurement (matched by task key). Run it with
the build that made the whole run (PYTHONPATH at a copy of that package) to check the
method; with another build it compares builds.

With PYTHONPATH pointing at another copy of the `shortflow` package (e.g. one holding a
base build's `_core` module), the same sample measures that build.

`--against DIR` measures two builds task by task: each figure's sampled tasks run on this
build's workers and on workers whose PYTHONPATH is DIR (a copy of the package holding the
other build's `_core`), the order of the builds alternating from figure to figure and
round to round, `--rounds` times; both projections are printed with the median per-task
ratio (this build / DIR's), and the events must agree. On a shared machine this pairs
every measurement with one taken seconds apart.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[2]

#: The driver's serial work per figure besides planning and the diagnostic runs
#: (assembling and writing the results table, the figure's CSV and plot), seconds of wall
#: time. From the whole run of 2026-11-25 (`--compare` prints its serial gaps): 1 094 s
#: wall = 1 036 s of sweeps (2 022 s task CPU x TASK_WALL_PER_CPU / 2) + 21.7 s of
#: diagnostic runs (5 rounds of a task per figure but 7 for Figs. 18/19, at its task
#: CPU) + 16.6 s of planning (measured here) + 10 x 2.0 s.
DRIVER_S = 2.0

#: A sweep task's wall time over its thread's CPU time in the whole run of 2026-11-25
#: (2 073 s / 2 022 s: the driver thread's task shares its process with the driver).
TASK_WALL_PER_CPU = 1.025


def sample(figures: list[int], reuse: bool = True, diag_first: bool = True) -> list[dict[str, Any]]:
    """The stratified sample: per figure, one task per x value, schemes rotating, seed 1.
    Each item: figure, its task count (the tasks it computes: those an earlier figure of
    `figures` computed are reused from that one's cache), the tasks it plans, its
    diagnostic runs, the CPU seconds `plan` took for the whole figure, the x label, the
    scheme, the task key and the resolved config. `diag_first`: a five-scheme figure's
    diagnostic runs compute their sweep tasks (`figures.diagnose_first`, since
    2026-12-04), which the sweep then does not (`tasks_diag_apart`: the count before)."""
    from shortflow.repro.spand.figures import (FIGURES, MODES, _friendliness_subscenarios, figure_scenario,
                                               find_scenario_dir)
    from shortflow.sweeper import plan

    sdir = find_scenario_dir(ROOT)
    st = MODES["full"]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for no in figures:
        spec = FIGURES[no]
        sc, _ = figure_scenario(spec, st, sdir)
        fig: list[dict[str, Any]] = []
        t0 = time.thread_time()
        if spec.kind == "schemes":
            tasks = plan(sc)
            plan_s = time.thread_time() - t0
            keys = {t.key for t in tasks}
            schemes = list(sc.axes["scheme"])
            xs: list[Any] = []
            for t in tasks:
                if t.point[spec.x_axis] not in xs:
                    xs.append(t.point[spec.x_axis])
            # diagnostic runs: the spand scheme at the first seed of every x (`figures.diagnose`)
            diag_keys = {t.key for t in tasks if t.point["scheme"] == "spand" and t.seed == sc.seeds[0]}
            for i, x in enumerate(xs):
                scheme = schemes[i % len(schemes)]
                t = next(t for t in tasks if t.seed == 1 and t.point[spec.x_axis] == x and t.point["scheme"] == scheme)
                fig.append({"figure": no, "x": str(x), "scheme": scheme, "key": t.key, "config": t.config_json})
        else:
            subs = list(_friendliness_subscenarios(sc, st.n_total_grid))
            per_sub = [plan(sub) for _, sub, _ in subs]
            plan_s = time.thread_time() - t0
            keys = {t.key for p in per_sub for t in p}
            diag_keys = {f"{no}/{label}" for label, _, _ in subs}  # the mixed scheme: no sweep task's key
            for i, ((label, sub, _), tasks) in enumerate(zip(subs, per_sub)):
                schemes = list(sub.axes["scheme"])
                scheme = schemes[i % len(schemes)]
                t = next(t for t in tasks if t.seed == 1 and t.point["scheme"] == scheme)
                fig.append({"figure": no, "x": label, "scheme": scheme, "key": t.key, "config": t.config_json})
        # Tasks an earlier figure computed are taken from its cache (`run_sweep(reuse=...)`).
        n_tasks = len(keys - seen) if reuse else len(keys)
        n_diag = len(diag_keys - seen) if reuse else len(diag_keys)
        # The five-scheme figures' diagnostic runs are sweep tasks, run first
        # (`figures.diagnose_first`): the sweep takes them from there.
        n_sweep = n_tasks - n_diag if spec.kind == "schemes" and diag_first else n_tasks
        for item in fig:
            item.update(tasks=n_sweep, tasks_diag_apart=n_tasks, planned=len(keys), diag=n_diag,
                        diag_planned=len(diag_keys), plan_s=plan_s, reused=reuse and item["key"] in seen)
        seen |= keys
        out += fig
    return out


def task_config(figure: int, x: str, scheme: str, seed: int = 1, rounds: Optional[int] = None) -> str:
    """The resolved configuration of one task of the full run (figure, x value as the
    scenario writes it, e.g. ``200KB`` or ``6``, scheme, seed), as the sweep runs it; with
    ``rounds``, its rounds application cut to that many rounds (the per-packet callgrind
    runs of docs/speed.md: Fig. 17, 200KB, newreno-nssr, seed 1, 4 rounds)."""
    from shortflow.repro.spand.figures import FIGURES, MODES, figure_scenario, find_scenario_dir
    from shortflow.sweeper import plan

    spec = FIGURES[figure]
    sc, _ = figure_scenario(spec, MODES["full"], find_scenario_dir(ROOT))
    t = next((t for t in plan(sc) if t.seed == seed and str(t.point.get(spec.x_axis)) == x
              and t.point.get("scheme") == scheme), None)
    if t is None:
        sys.exit(f"fig{figure}: no task with x = {x}, scheme {scheme}, seed {seed}")
    if rounds is None:
        return t.config_json
    cfg = json.loads(t.config_json)
    for app in cfg["apps"]:
        if app.get("kind") == "rounds":
            app["rounds"] = rounds
    return json.dumps(cfg)


def run_task(config_json: str) -> tuple[float, int, int]:
    """One task as `workers.compute_task` runs it: thread CPU seconds, events, UDP packets sent."""
    from shortflow.native import run_json
    from shortflow.results import transfers_frame

    c0 = time.thread_time()
    out = json.loads(run_json(config_json, None))
    df = transfers_frame(out.get("transfers"))
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd", statistics=False)
    cpu = time.thread_time() - c0
    flows = out.get("flows") or {}
    udp = sum(n for n, tr in zip(flows.get("data_pkts_sent", []), flows.get("transport", [])) if tr == "udp")
    return cpu, int(out["stats"]["events"]), int(udp)


def _worker() -> None:
    """`--worker`: read one config per line (JSON-encoded string) on stdin, answer one JSON
    line per task: [cpu_s, events, udp_pkts] (run_task in this process)."""
    import shortflow

    print(f"worker: shortflow from {Path(shortflow.__file__).parent}", file=sys.stderr)
    for line in sys.stdin:
        print(json.dumps(run_task(json.loads(line))), flush=True)


class Workers:
    """`jobs` worker processes of one build (PYTHONPATH `path`, or this process's), kept
    for the whole measurement; `run` hands them tasks as they finish, so all of them are
    busy until the last task, as the sweep's slots are."""

    def __init__(self, jobs: int, path: Optional[Path] = None):
        env = dict(os.environ, PYTHONPATH=str(path)) if path is not None else None
        self.procs = [subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, env=env, text=True) for _ in range(jobs)]

    def run(self, configs: list[str]) -> list[tuple[float, int, int]]:
        todo: queue.Queue[int] = queue.Queue()
        for i in range(len(configs)):
            todo.put(i)
        out: list[Any] = [None] * len(configs)

        def drive(w: subprocess.Popen) -> None:
            assert w.stdin is not None and w.stdout is not None
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                w.stdin.write(json.dumps(configs[i]) + "\n")
                w.stdin.flush()
                line = w.stdout.readline()
                if not line:
                    raise RuntimeError("a worker process ended early")
                out[i] = tuple(json.loads(line))

        threads = [threading.Thread(target=drive, args=(w,)) for w in self.procs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if any(o is None for o in out):
            sys.exit("a worker failed (see its error above)")
        return out

    def close(self) -> None:
        for w in self.procs:
            assert w.stdin is not None
            w.stdin.close()
        for w in self.procs:
            w.wait()


def measure(items: list[dict[str, Any]], workers: Workers) -> list[tuple[float, int, int]]:
    """Every item on `workers`, figure by figure (the reproduction runs one figure's
    sweep at a time, so a task shares the machine with tasks of its own figure)."""
    res: list[Any] = [None] * len(items)
    for no in dict.fromkeys(it["figure"] for it in items):
        idx = [i for i, it in enumerate(items) if it["figure"] == no]
        for i, r in zip(idx, workers.run([items[i]["config"] for i in idx])):
            res[i] = r
    return res


def project(items: list[dict[str, Any]], cpu: list[float]) -> dict[int, dict[str, float]]:
    """Per figure: tasks, mean CPU per task, projected task CPU, diagnostic runs' CPU,
    planning seconds, mean events per task."""
    out: dict[int, dict[str, float]] = {}
    for no in dict.fromkeys(it["figure"] for it in items):
        # A sampled task an earlier figure computed stands for none of this figure's.
        idx = [i for i, it in enumerate(items) if it["figure"] == no and not it["reused"]]
        it0 = items[idx[0]]
        m = sum(cpu[i] for i in idx) / len(idx)
        out[no] = {"tasks": it0["tasks"], "diag": it0["diag"], "sampled": len(idx), "cpu_per_task": m, "task_cpu": m * it0["tasks"],
                   "diag_cpu": m * it0["diag"], "plan_s": it0["plan_s"],
                   "events": sum(items[i]["events"] for i in idx) / len(idx)}
    return out


def wall_s(p: dict[int, dict[str, float]], jobs: int) -> float:
    """Wall time of the run on `jobs` cores: the tasks' CPU spread over them (times
    `TASK_WALL_PER_CPU`), then per figure its diagnostic runs (`ceil(runs / jobs)` tasks
    long), its planning and `DRIVER_S`, one after the other."""
    return sum(f["task_cpu"] * TASK_WALL_PER_CPU / jobs + -(-f["diag"] // jobs) * f["cpu_per_task"] + f["plan_s"]
               + DRIVER_S for f in p.values())


def print_projection(p: dict[int, dict[str, float]], jobs: int) -> float:
    print("| figure | tasks computed | sampled | CPU per task | projected task CPU | + diagnostic runs | events per task |")
    print("|---|---|---|---|---|---|---|")
    for no, f in p.items():
        print(f"| {no} | {f['tasks']} | {f['sampled']} | {f['cpu_per_task']:.3f} s | {f['task_cpu']:.0f} s | "
              f"{f['diag_cpu']:.0f} s | {f['events'] / 1e6:.2f} M |")
    task = sum(f["task_cpu"] for f in p.values())
    diag = sum(f["diag_cpu"] for f in p.values())
    ev = sum(f["events"] * f["tasks"] for f in p.values())
    w = wall_s(p, 2)
    print(f"| all | {sum(f['tasks'] for f in p.values())} | {sum(f['sampled'] for f in p.values())} | | {task:.0f} s | "
          f"{diag:.0f} s | {ev / 1e9:.2f} G in all |")
    print(f"projected: {task:.0f} s of task CPU, {task + diag:.0f} s with the diagnostic runs; wall on 2 cores "
          f"{w:.0f} s = {w / 60:.1f} min (planning {sum(f['plan_s'] for f in p.values()):.0f} s and "
          f"{DRIVER_S:.0f} s per figure serial); measured with --jobs {jobs}")
    return task


def compare(items: list[dict[str, Any]], cpu: list[float], p: dict[int, dict[str, float]], run_dir: Path) -> None:
    """The projection against a whole run's journals (`run_dir/runs/*/journal.jsonl`)."""
    journal: dict[str, float] = {}
    per_fig: dict[int, list[float]] = {}
    spans: list[tuple[float, float, int]] = []
    for j in sorted(run_dir.glob("runs/fig*/**/journal.jsonl")):
        no = int(j.relative_to(run_dir / "runs").parts[0][3:])
        rows = [json.loads(line) for line in j.read_text().splitlines() if line.strip()]
        for r in rows:
            journal[r["key"]] = r["cpu_s"]
            per_fig.setdefault(no, []).append(r["cpu_s"])
        if rows:
            spans.append((min(r["time"] - r["wall_s"] for r in rows), max(r["time"] for r in rows), no))
    if not journal:
        sys.exit(f"--compare {run_dir}: no runs/fig*/journal.jsonl there")
    print(f"\nAgainst the whole run in {run_dir} (task CPU from its journals):")
    print("| figure | whole run: tasks, task CPU | projected | ratio | sampled tasks: whole run / here (median) |")
    print("|---|---|---|---|---|")
    tot_w = tot_p = 0.0
    for no, f in p.items():
        w = sum(per_fig.get(no, []))
        ratios = [journal[it["key"]] / cpu[i] for i, it in enumerate(items) if it["figure"] == no and it["key"] in journal]
        tot_w += w
        tot_p += f["task_cpu"]
        r = f"{statistics.median(ratios):.3f} ({len(ratios)} matched)" if ratios else "no key matched"
        print(f"| {no} | {len(per_fig.get(no, []))}, {w:.0f} s | {f['task_cpu']:.0f} s | {f['task_cpu'] / w:.3f} | {r} |"
              if w else f"| {no} | not in the run | {f['task_cpu']:.0f} s | | |")
    print(f"| all | {tot_w:.0f} s | {tot_p:.0f} s | {tot_p / tot_w:.3f} | |")
    spans.sort()
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:]) if b[2] != a[2]]
    if spans:
        print(f"whole run: tasks from first start to last end {spans[-1][1] - spans[0][0]:.0f} s; serial gaps between "
              f"figures' sweeps {sum(gaps):.0f} s ({', '.join(f'{g:.1f}' for g in gaps)}): planning, aggregation, "
              f"plots and diagnostic runs")


def against(items: list[dict[str, Any]], other: Path, rounds: int, jobs: int, other_no_reuse: bool = False,
            other_events: bool = False, other_diag_apart: bool = False) -> None:
    """Every item on this build's workers and on `other`'s, the builds' order alternating
    from figure to figure and round to round; print both projections and the median ratio.
    `other_no_reuse`: the other build's driver computes every planned task (no reuse).
    `other_events`: the builds may fire different events for a task (one folds hops the
    other delivers); each build's own count must still be the same in every round.
    `other_diag_apart`: the other build's driver runs the diagnostic runs besides the
    sweep's tasks (before `figures.diagnose_first`)."""
    here, there = Workers(jobs), Workers(jobs, other)
    cpu: dict[str, list[list[float]]] = {"here": [[] for _ in items], "there": [[] for _ in items]}
    figs = list(dict.fromkeys(it["figure"] for it in items))
    for r in range(rounds):
        for k, no in enumerate(figs):
            idx = [i for i, it in enumerate(items) if it["figure"] == no]
            order = ("here", "there") if (r + k) % 2 == 0 else ("there", "here")
            for who in order:
                res = (here if who == "here" else there).run([items[i]["config"] for i in idx])
                for i, (c, ev, _) in zip(idx, res):
                    cpu[who][i].append(c)
                    if items[i].setdefault("events_" + who, ev) != ev:
                        sys.exit(f"fig{no} x={items[i]['x']}: events differ between rounds ({items[i]['events_' + who]} vs {ev})")
                    if items[i].setdefault("events", ev) != ev and not other_events:
                        sys.exit(f"fig{no} x={items[i]['x']}: events differ between the builds ({items[i]['events']} vs {ev})")
        print(f"round {r + 1} of {rounds} done", file=sys.stderr)
    here.close()
    there.close()
    med = {k: [statistics.median(v) for v in cpu[k]] for k in cpu}
    pr = {k: project(items, med[k]) for k in med}
    there = [dict(it, events=it["events_there"]) if other_events else it for it in items]
    if other_diag_apart:
        there = [dict(it, tasks=it["tasks_diag_apart"]) for it in there]
    if other_no_reuse:
        there = [dict(it, tasks=it["planned"], diag=it["diag_planned"], reused=False) for it in there]
    pr["there"] = project(there, med["there"])
    if other_events:
        pr["here"] = project([dict(it, events=it["events_here"]) for it in items], med["here"])
    print("| figure | tasks computed | CPU per task, other -> this build | projected task CPU | events per task |")
    print("|---|---|---|---|---|")
    for no in figs:
        a, b = pr["there"][no], pr["here"][no]
        ev = (f"{a['events'] / 1e6:.2f} -> {b['events'] / 1e6:.2f} M" if a["events"] != b["events"]
              else f"{b['events'] / 1e6:.2f} M")
        print(f"| {no} | {a['tasks']} -> {b['tasks']} | {a['cpu_per_task']:.3f} -> {b['cpu_per_task']:.3f} s | "
              f"{a['task_cpu']:.0f} -> {b['task_cpu']:.0f} s | {ev} |")
    t = {k: sum(f["task_cpu"] for f in pr[k].values()) for k in pr}
    d = {k: sum(f["diag_cpu"] for f in pr[k].values()) for k in pr}
    w = {k: wall_s(pr[k], 2) for k in pr}
    ev = {k: sum(f["events"] * f["tasks"] for f in pr[k].values()) for k in pr}
    print(f"| all | | | {t['there']:.0f} -> {t['here']:.0f} s | {ev['there'] / 1e9:.2f} -> {ev['here'] / 1e9:.2f} G in all |")
    print(f"with the diagnostic runs {t['there'] + d['there']:.0f} -> {t['here'] + d['here']:.0f} s of CPU; wall on 2 "
          f"cores {w['there']:.0f} -> {w['here']:.0f} s = {w['there'] / 60:.1f} -> {w['here'] / 60:.1f} min; "
          f"measured with --jobs {jobs}")
    ratios = [h / o for hs, os_ in zip(cpu["here"], cpu["there"]) for h, o in zip(hs, os_)]
    q = statistics.quantiles(ratios, n=4)
    print(f"per-task CPU ratio this/other: median {statistics.median(ratios):.3f} (quartiles {q[0]:.3f}..{q[2]:.3f}), "
          f"{len(ratios)} pairs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--figures", type=int, nargs="*", default=list(range(10, 20)))
    ap.add_argument("--jobs", type=int, default=2, help="tasks measured at once, as `repro spand --jobs N` runs them")
    ap.add_argument("--json", type=Path, help="write every task's measurement here")
    ap.add_argument("--compare", type=Path, help="the output directory of a whole `repro spand` run: compare with its journals")
    ap.add_argument("--against", type=Path, help="a copy of the package with another build's _core: measure both, paired")
    ap.add_argument("--rounds", type=int, help="runs of each task (its median counts; per build with --against): "
                                               "default 1, 3 with --against")
    ap.add_argument("--no-reuse", action="store_true",
                    help="count every planned task, as runs before figures reused each other's tasks did")
    ap.add_argument("--other-no-reuse", action="store_true",
                    help="with --against: the other build's driver reuses no tasks (before 2026-11-25)")
    ap.add_argument("--other-events", action="store_true",
                    help="with --against: the builds may fire different events per task (e.g. one folds more hops)")
    ap.add_argument("--diag-apart", action="store_true",
                    help="the diagnostic runs besides the sweep's tasks, as before figures.diagnose_first")
    ap.add_argument("--other-diag-apart", action="store_true",
                    help="with --against: the other build's driver runs the diagnostic runs besides the sweep's tasks")
    ap.add_argument("--config-of", nargs=3, metavar=("FIGURE", "X", "SCHEME"),
                    help="print one task's configuration (seed 1, or --seed) and exit, e.g. 17 200KB newreno-nssr")
    ap.add_argument("--seed", type=int, default=1, help="with --config-of")
    ap.add_argument("--cut-rounds", type=int, help="with --config-of: cut the rounds application to this many rounds")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return _worker()
    if a.config_of:
        print(task_config(int(a.config_of[0]), a.config_of[1], a.config_of[2], a.seed, a.cut_rounds))
        return
    if a.jobs < 1:
        sys.exit(f"--jobs {a.jobs}: give at least 1")
    import shortflow

    items = sample(a.figures, reuse=not a.no_reuse, diag_first=not a.diag_apart)
    print(f"shortflow from {Path(shortflow.__file__).parent}; {len(items)} sampled tasks, {a.jobs} at a time",
          file=sys.stderr)
    if a.against:
        return against(items, a.against, a.rounds or 3, a.jobs, a.other_no_reuse, a.other_events, a.other_diag_apart)
    workers = Workers(a.jobs)
    runs = [measure(items, workers) for _ in range(a.rounds or 1)]
    workers.close()
    # per task: the run of median CPU (events are the same in every run)
    res = [sorted((r[i] for r in runs), key=lambda x: x[0])[len(runs) // 2] for i in range(len(items))]
    rows = []
    for it, (cpu, events, udp) in zip(items, res):
        it["events"] = events
        rows.append({k: v for k, v in it.items() if k != "config"} | {"cpu_s": cpu, "events": events, "udp_pkts": udp})
        print(f"fig{it['figure']} x={it['x']} {it['scheme']}: {cpu:.3f} s CPU, {events} events", file=sys.stderr)
    cpu = [r[0] for r in res]
    p = project(items, cpu)
    total = print_projection(p, a.jobs)
    if a.compare:
        compare(items, cpu, p, a.compare)
    if a.json:
        a.json.write_text(json.dumps({"tasks": rows, "jobs": a.jobs, "projected_cpu_s": total,
                                      "projected_wall_s": wall_s(p, 2), "figures": p}, indent=1) + "\n")


if __name__ == "__main__":
    main()
