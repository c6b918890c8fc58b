"""``shortflow bench``: packets per second of the core on the benchmark workloads, and
the speed-up over ns-2 when ``ns`` is on the PATH.

Workload ``w`` (a, b, c) is the configuration ``tests/golden/ns2/bench_<w>.config.json``
of the repository; ns-2 runs the same workload as ``ns tools/ns2/bench.tcl <w>``, which
prints ``delivered_pkts N``. Both are timed wall-clock in this process.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Optional, Sequence

__all__ = ["WORKLOADS", "find_root", "run_benchmarks"]

WORKLOADS = ("a", "b", "c")
_DELIVERED = re.compile(r"delivered_pkts\s+(\d+)")


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
    script = root / "tools" / "ns2" / "bench.tcl"
    if not script.exists():
        return {"ns2_error": f"{script} not found"}
    t0 = time.perf_counter()
    try:
        p = subprocess.run([ns, str(script.relative_to(root)), w], cwd=root, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ns2_error": f"timed out after {timeout:g}s"}
    wall = time.perf_counter() - t0
    m = _DELIVERED.search(p.stdout)
    if p.returncode != 0 or not m:
        return {"ns2_error": f"ns exited {p.returncode}; no 'delivered_pkts N' line: {p.stderr.strip()[-300:]}"}
    n = int(m.group(1))
    return {"ns2_wall_s": wall, "ns2_delivered_pkts": n, "ns2_pkts_per_s": n / wall if wall > 0 else None}


def run_benchmarks(
    workloads: Sequence[str] = WORKLOADS,
    root: Optional[Path] = None,
    ns2: bool = True,
    repeat: int = 1,
    ns2_timeout: float = 3600.0,
) -> dict[str, Any]:
    """Run each workload through the core (best of ``repeat`` wall-clock runs) and,
    when ``ns`` is on the PATH and ``ns2`` is true, through ns-2. Returns
    ``{"workloads": {w: {pkts_per_s, ns2_pkts_per_s, ratio, ...}}, ...}``."""
    from . import __version__
    from .native import core

    root = root or find_root()
    ns = shutil.which("ns") if ns2 else None
    out: dict[str, Any] = {"version": __version__, "core_version": core().version(), "ns2": ns, "workloads": {}}
    for w in workloads:
        cfg = root / "tests" / "golden" / "ns2" / f"bench_{w}.config.json"
        entry: dict[str, Any] = {"config": str(cfg.relative_to(root)) if cfg.is_relative_to(root) else str(cfg)}
        if not cfg.exists():
            entry.update(error=f"{cfg} not found", pkts_per_s=None, ns2_pkts_per_s=None, ratio=None)
            out["workloads"][w] = entry
            continue
        text = cfg.read_text()
        best = None
        delivered = 0
        events = 0
        for _ in range(max(1, repeat)):
            t0 = time.perf_counter()
            res = json.loads(core().run(text))
            wall = time.perf_counter() - t0
            stats = res.get("stats", {})
            delivered = int(stats.get("data_pkts_delivered", 0))
            events = int(stats.get("events", 0))
            best = wall if best is None else min(best, wall)
        assert best is not None
        entry.update(wall_s=best, delivered_pkts=delivered, events=events,
                     pkts_per_s=delivered / best if best > 0 else None)
        entry["ns2_pkts_per_s"] = None
        if ns:
            entry.update(_run_ns2(root, w, ns, ns2_timeout))
        pps, npps = entry.get("pkts_per_s"), entry.get("ns2_pkts_per_s")
        entry["ratio"] = (pps / npps) if (pps and npps) else None
        out["workloads"][w] = entry
    return out
