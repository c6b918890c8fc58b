#!/usr/bin/env python3
"""Compare two builds of the core on `shortflow bench`'s workloads by CPU time, the
builds alternating run by run (a slow spell of a shared machine hits both).

Each build is a `run_config` example binary (`cargo build --release --examples -p
shortflow-core`; it runs a configuration through `shortflow_core::run`, the function
the Python binding's `core().run` calls). Workload w is
`tests/golden/ns2/bench_<w>.config.json`. Per run the child's user+system CPU time is
taken from its rusage (process start-up and JSON parsing included, the same for both).

    tools/perf/ab_bench.py BASE_BIN NEW_BIN [--workloads a b c] [--rounds 15]

Prints, per workload, the median CPU time of each build, the median and the spread
(min..max) of the per-round ratio NEW/BASE, and checks both deliver the same packets
over the same simulated time (event counts may differ).
"""
import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def measure(binary: str, cfg: Path) -> tuple[float, str]:
    """CPU seconds (user + system) of one run, and its statistics line less the wall time."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.dup2(w, 1)
        os.close(r)
        os.close(w)
        os.execv(binary, [binary, str(cfg), "1"])
    os.close(w)
    with os.fdopen(r) as f:
        out = f.read()
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"{binary} {cfg}: exit status {status}")
    # "N events, M data packets delivered, T s simulated, W s wall, ..." -> keep the
    # packets and simulated time (the event count may differ between builds: parked
    # timers and folded hops fire fewer events for the same packets).
    stats = ", ".join(out.strip().split(", ")[1:3])
    return ru.ru_utime + ru.ru_stime, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--workloads", nargs="+", default=["a", "b", "c"])
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    for w in a.workloads:
        cfg = ROOT / "tests" / "golden" / "ns2" / f"bench_{w}.config.json"
        base_t, new_t, ratios = [], [], []
        for i in range(a.rounds):
            # Alternate which build goes first, so neither always follows the other.
            order = [("base", a.base), ("new", a.new)] if i % 2 == 0 else [("new", a.new), ("base", a.base)]
            got = {}
            for name, b in order:
                got[name] = measure(b, cfg)
            if got["base"][1] != got["new"][1]:
                sys.exit(f"workload {w}: the builds differ: {got['base'][1]!r} vs {got['new'][1]!r}")
            base_t.append(got["base"][0])
            new_t.append(got["new"][0])
            ratios.append(got["new"][0] / got["base"][0])
        print(f"{w}: base median {statistics.median(base_t):.3f} s CPU, new median {statistics.median(new_t):.3f} s CPU; "
              f"new/base per round: median {statistics.median(ratios):.3f}, spread {min(ratios):.3f}..{max(ratios):.3f} "
              f"({a.rounds} alternating rounds; {got['new'][1]})", flush=True)


if __name__ == "__main__":
    main()
