#!/usr/bin/env python3
"""Peak memory and CPU time of a run's results phase, by the way the results reach
polars: `json` (`_core.run`'s JSON text, `RunResults.from_json`) or `columns`
(`_core.run_columns`'s typed columns, `RunResults.from_columns`), on the scale
workload (`shortflow.bench.scale_scenario`), each run in a fresh process, the ways
alternating per size.

The results phase starts at the core's last progress call (the run is over, its tables
collected and the simulation freed) and ends when the frames are built. At that call
the child reads its resident set and resets its peak (`/proc/self/clear_refs` 5), so
`phase_peak` is the peak of the phase alone and `phase_extra` that less the resident set
at its start; `peak` is the whole process's. CPU: the thread's (the core runs on it).

    .venv/bin/python tools/perf/results_path.py [--sizes 10000 100000] [--ways json columns] [--rounds 1]
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
from shortflow.bench import scale_scenario
from shortflow.scenario import Scenario
from shortflow.native import core, resolve_json
from shortflow.results import RunResults

def status(key):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1]) * 1024

core()
import pyarrow
n, way = int(sys.argv[1]), sys.argv[2]
resolved = resolve_json(Scenario.from_dict(scale_scenario(n)).to_sim_config(seed=1))
config = json.loads(resolved)
mark = {}
def progress(events, t, d):
    mark['hwm'] = max(mark.get('hwm', 0), status('VmHWM'))
    with open('/proc/self/clear_refs', 'w') as f:
        f.write('5')
    mark['rss'] = status('VmRSS')
    mark['cpu'] = time.thread_time()
c0 = time.thread_time()
if way == 'json':
    res = RunResults.from_json(core().run(resolved, progress), config)
else:
    tables, stats = core().run_columns(resolved, progress)
    res = RunResults.from_columns(tables, stats, config)
    del tables
c1 = time.thread_time()
hwm = status('VmHWM')
print(json.dumps({'n': n, 'way': way, 'peak': max(hwm, mark['hwm']), 'phase_start_rss': mark['rss'],
                  'phase_peak': hwm, 'phase_extra': hwm - mark['rss'], 'phase_cpu_s': c1 - mark['cpu'],
                  'cpu_s': c1 - c0, 'rows': {k: v.height for k, v in res.tables().items() if v.height},
                  'frames_bytes': sum(v.estimated_size() for v in res.tables().values()),
                  'delivered': res.stats['data_pkts_delivered']}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--ways", nargs="+", default=["json", "columns"])
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    for n in a.sizes:
        for r in range(a.rounds):
            ways = a.ways if r % 2 == 0 else a.ways[::-1]
            for way in ways:
                out = subprocess.run([sys.executable, "-c", CHILD, str(n), way], capture_output=True, text=True)
                if out.returncode:
                    sys.exit(f"{n} {way}: {out.stderr[-2000:]}")
                e = json.loads(out.stdout.strip().splitlines()[-1])
                mib = 1 << 20
                print(f"n={n:>8} {way:>8}: peak {e['peak'] / mib:7.0f} MiB; results phase: start {e['phase_start_rss'] / mib:7.0f}"
                      f" MiB, peak {e['phase_peak'] / mib:7.0f} MiB (+{e['phase_extra'] / mib:5.0f}), CPU {e['phase_cpu_s']:6.3f} s"
                      f" (whole call {e['cpu_s']:7.2f} s); frames {e['frames_bytes'] / mib:.0f} MiB", flush=True)
                print(json.dumps(e), file=sys.stderr, flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
