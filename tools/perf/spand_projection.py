#!/usr/bin/env python3
"""Project the CPU time of the full TCP/SPAND reproduction (`shortflow repro spand`, Figs.
10-19, 4 360 simulations) from a stratified sample, as README "Speed and memory" reports it.

The sample: every x value of each figure once (N or F for Figs. 10-17; each (N_total,
F) sub-scenario for Figs. 18/19), the schemes rotating over the x values, seed 1 -- 104
tasks. Each task runs as the sweep runs it (`workers.compute_task`: the core's `run_json`
on the resolved configuration, the transfers table read and written as Parquet) in this
process, timed by its thread's CPU time (the machine is shared: CPU, not wall). A figure's
projection is its sample's mean CPU per task times the figure's task count; the run's is
the sum. Also recorded per task: the core's event count (`stats.events`), which does not
depend on the machine's load, and the packets the UDP sources sent.

    .venv/bin/python tools/perf/spand_projection.py [--figures 14 17] [--json OUT.json]

With PYTHONPATH pointing at another copy of the `shortflow` package (e.g. one holding a
base build's `_core` module), the same sample measures that build.

`--against DIR` measures two builds task by task: each sampled task runs in this process
and in a worker process whose PYTHONPATH is DIR (a copy of the package holding the other
build's `_core`), in alternating order, `--rounds` times; both projections are printed
with the median per-task ratio (this build / DIR's), and the events must agree. On a
shared machine this pairs every measurement with one taken seconds apart.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def sample(figures: list[int]) -> list[dict[str, Any]]:
    """The stratified sample: per figure, one task per x value, schemes rotating, seed 1.
    Each item: figure, its task count, the x label, the scheme and the resolved config."""
    from shortflow.repro.spand.figures import (FIGURES, MODES, _friendliness_subscenarios, figure_scenario,
                                               find_scenario_dir)
    from shortflow.sweeper import plan

    sdir = find_scenario_dir(ROOT)
    st = MODES["full"]
    out: list[dict[str, Any]] = []
    for no in figures:
        spec = FIGURES[no]
        sc, _ = figure_scenario(spec, st, sdir)
        if spec.kind == "schemes":
            tasks = plan(sc)
            n_tasks = len(tasks)
            schemes = list(sc.axes["scheme"])
            xs: list[Any] = []
            for t in tasks:
                if t.point[spec.x_axis] not in xs:
                    xs.append(t.point[spec.x_axis])
            for i, x in enumerate(xs):
                scheme = schemes[i % len(schemes)]
                t = next(t for t in tasks if t.seed == 1 and t.point[spec.x_axis] == x and t.point["scheme"] == scheme)
                out.append({"figure": no, "x": str(x), "scheme": scheme, "config": t.config_json})
        else:
            subs = list(_friendliness_subscenarios(sc, st.n_total_grid))
            per_sub = [plan(sub) for _, sub, _ in subs]
            n_tasks = sum(len(p) for p in per_sub)
            for i, ((label, sub, _), tasks) in enumerate(zip(subs, per_sub)):
                schemes = list(sub.axes["scheme"])
                scheme = schemes[i % len(schemes)]
                t = next(t for t in tasks if t.seed == 1 and t.point["scheme"] == scheme)
                out.append({"figure": no, "x": label, "scheme": scheme, "config": t.config_json})
        for item in out:
            item.setdefault("tasks", n_tasks)
    return out


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


def against(items: list[dict[str, Any]], other: Path, rounds: int) -> None:
    """Run every item here and in a worker on `other`'s package, alternating; print both
    projections and the median ratio."""
    import os
    import statistics
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(other))
    w = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                         text=True)
    assert w.stdin is not None and w.stdout is not None

    def there(cfg: str) -> tuple[float, int, int]:
        w.stdin.write(json.dumps(cfg) + "\n")
        w.stdin.flush()
        return tuple(json.loads(w.stdout.readline()))  # type: ignore[return-value]

    cpu = {"here": [[] for _ in items], "there": [[] for _ in items]}
    for r in range(rounds):
        for i, it in enumerate(items):
            order = ("here", "there") if (r + i) % 2 == 0 else ("there", "here")
            for who in order:
                c, ev, _ = run_task(it["config"]) if who == "here" else there(it["config"])
                cpu[who][i].append(c)
                if it.setdefault("events", ev) != ev:
                    sys.exit(f"fig{it['figure']} x={it['x']}: events differ between the builds ({it['events']} vs {ev})")
        print(f"round {r + 1} of {rounds} done", file=sys.stderr)
    w.stdin.close()
    w.wait()
    med = {k: [statistics.median(v) for v in cpu[k]] for k in cpu}
    print("| figure | tasks | CPU per task, other -> this build | projected CPU | events per task |")
    print("|---|---|---|---|---|")
    tot = {"here": 0.0, "there": 0.0}
    ev_all = 0.0
    for no in dict.fromkeys(it["figure"] for it in items):
        idx = [i for i, it in enumerate(items) if it["figure"] == no]
        n = items[idx[0]]["tasks"]
        m = {k: sum(med[k][i] for i in idx) / len(idx) for k in med}
        ev = sum(items[i]["events"] for i in idx) / len(idx)
        ev_all += ev * n
        for k in tot:
            tot[k] += m[k] * n
        print(f"| {no} | {n} | {m['there']:.3f} -> {m['here']:.3f} s | {m['there'] * n:.0f} -> {m['here'] * n:.0f} s | "
              f"{ev / 1e6:.2f} M |")
    ratios = [h / t for hs, ts in zip(cpu["here"], cpu["there"]) for h, t in zip(hs, ts)]
    print(f"| all | | | {tot['there']:.0f} -> {tot['here']:.0f} s = {tot['there'] / 120:.1f} -> {tot['here'] / 120:.1f} min "
          f"on 2 cores | {ev_all / 1e9:.2f} G |")
    print(f"per-task CPU ratio this/other: median {statistics.median(ratios):.3f} "
          f"(quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}..{statistics.quantiles(ratios, n=4)[2]:.3f}), "
          f"{len(ratios)} pairs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--figures", type=int, nargs="*", default=list(range(10, 20)))
    ap.add_argument("--json", type=Path, help="write every task's measurement here")
    ap.add_argument("--against", type=Path, help="a copy of the package with another build's _core: measure both, paired")
    ap.add_argument("--rounds", type=int, default=3, help="with --against: runs of each task per build")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return _worker()
    import shortflow

    items = sample(a.figures)
    print(f"shortflow from {Path(shortflow.__file__).parent}; {len(items)} sampled tasks", file=sys.stderr)
    if a.against:
        return against(items, a.against, a.rounds)
    rows = []
    for it in items:
        cpu, events, udp = run_task(it["config"])
        rows.append({k: v for k, v in it.items() if k != "config"} | {"cpu_s": cpu, "events": events, "udp_pkts": udp})
        print(f"fig{it['figure']} x={it['x']} {it['scheme']}: {cpu:.3f} s CPU, {events} events", file=sys.stderr)
    total_cpu = 0.0
    total_ev = 0.0
    print("| figure | tasks | sampled | CPU per task | projected CPU | events per task | projected events |")
    print("|---|---|---|---|---|---|---|")
    for no in a.figures:
        r = [x for x in rows if x["figure"] == no]
        n = r[0]["tasks"]
        cpu = sum(x["cpu_s"] for x in r) / len(r)
        ev = sum(x["events"] for x in r) / len(r)
        total_cpu += cpu * n
        total_ev += ev * n
        print(f"| {no} | {n} | {len(r)} | {cpu:.3f} s | {cpu * n:.0f} s | {ev / 1e6:.2f} M | {ev * n / 1e9:.2f} G |")
    print(f"| all | {sum(rows_n for rows_n in {x['figure']: x['tasks'] for x in rows}.values())} | {len(rows)} | | "
          f"{total_cpu:.0f} s = {total_cpu / 120:.1f} min on 2 cores | | {total_ev / 1e9:.2f} G |")
    if a.json:
        a.json.write_text(json.dumps({"tasks": rows, "projected_cpu_s": total_cpu, "projected_events": total_ev},
                                     indent=1) + "\n")


if __name__ == "__main__":
    main()
