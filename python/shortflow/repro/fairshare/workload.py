"""P3's homogeneous network (Yu & Newman, Fig. 2; spec fairshare-and-sizebased A.12,
A.13.1) as a core ``SimConfig``, from the scenario file ``scenarios/fairshare/homogeneous.toml``
patched for one point: server ``s`` -> r1 -> r2 -> r3 -> clients c1..c5, cross
traffic xs_j -> r1 -> r2 -> xc_j; the core links r1-r2 and r2-r3 carry "Bandwidth" and
"Delay", access links are 100 Mb/s, 1 ms (A.15 item 1); drop-tail 50 packets.

The workload is the scenario's ``[[workloads]]`` (``shortflow.workloads``), drawn at
expansion per seed, one ``random.Random`` per stream (arrivals, lifetimes, clients,
cross starts), so every scheme of a seed sees the same connections (common random
numbers):

- server connections arrive as a Poisson process (exponential inter-arrival times of
  mean ``iat_s``), each to a client drawn uniformly, an infinite FTP source whose
  lifetime is Pareto with mean ``life_mean_s`` and shape ``shape``
  (x_m = mean (a - 1) / a, A.12); at its end the core tears the connection down
  (``apps[].duration_s``: it stops sending and leaves its fair-share group);
- 5 cross FTP pairs start at exponentially staggered times (mean 1 s) and use plain
  Reno; the server cannot see them. ``cross`` picks the reading of their lifetime
  (A.15 item 3): ``"once"`` (the scenario file's, the reading taken: one connection
  per pair with a lifetime drawn like the server connections' -- the point's mean and
  shape -- then the pair is silent), ``"persistent"`` (the spec's literal default:
  they run to the end) or ``"renew"`` (such lifetimes back to back: the pair opens its
  next connection when one ends); ``None`` keeps the file's (:func:`file_cross`).

``bandwidth_on`` picks which links carry "Bandwidth" (A.15 item 2): ``"core"`` (the
spec's default: r1-r2 and r2-r3), ``"r1r2"`` or ``"r2r3"`` (only that core link; the
other runs at the access rate, 100 Mb/s) or ``"all"`` (every link, access links too, as
P3's large topologies have one bandwidth for all links).

TCP (A.12): Reno, advertised window 100, ssthresh 10, initial cwnd 1, 1000-byte packets,
no delayed acks, ns-2's one-way TCP without the SYN exchange (ns-2's default ``syn_``
false; A.12's 1-RTT SYN is the spec's default we did not take: it shifts every start by
one RTT for all schemes alike). Clients share the prefix 10.1.0.0/24, and
``paths.prefix_len = 24`` makes them one group (A.3).
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from ...workloads import pareto_xm, poisson_connections

__all__ = ["SCHEMES", "CROSS_READINGS", "BANDWIDTH_READINGS", "pareto_xm", "server_connections", "homogeneous",
           "base_scenario", "file_cross", "server_throughput", "transit_stub"]

SCHEMES = ["reno", "liss", "iss", "miss", "js"]
CROSS_READINGS = ("once", "persistent", "renew")
BANDWIDTH_READINGS = ("core", "r1r2", "r2r3", "all")


def base_scenario(file: str = "homogeneous.toml") -> Any:
    """The scenario ``scenarios/fairshare/<file>`` (``$SHORTFLOW_FAIRSHARE_SCENARIOS``
    overrides the directory)."""
    from ...scenario import load
    from ..paths import find_scenario_dir

    return load(find_scenario_dir("fairshare", file, "SHORTFLOW_FAIRSHARE_SCENARIOS") / file)


def server_connections(seed: int, duration_s: float, iat_s: float, life_mean_s: float, shape: float,
                       clients: int = 5) -> list[tuple[float, float, int]]:
    """(start, lifetime, client index) of every server connection starting before the
    end: the draws the scenario's ``srv`` workload makes for ``seed``."""
    out = poisson_connections(seed, "srv", duration_s, iat_s, clients, (life_mean_s, shape))
    return [(t, d, c) for t, d, c in out if d is not None]


def file_cross(file: str = "homogeneous.toml") -> str:
    """The reading of the cross traffic's lifetime (spec A.15 item 3) that the scenario
    file's ``cross`` workload encodes: ``persistent`` without a ``lifetime``, ``renew``
    with ``renew = true``, ``once`` otherwise."""
    w = next((w for w in base_scenario(file).raw.get("workloads", []) if w.get("name") == "cross"), None)
    if w is None:
        raise ValueError(f"scenarios/fairshare/{file} has no workload named 'cross'")
    return "persistent" if "lifetime" not in w else "renew" if w.get("renew") else "once"


def _time(x: float) -> str:
    return f"{x:.12g}s"


def homogeneous(scheme: str, seed: int, bandwidth_bps: float = 20e6, delay_s: float = 0.05, iat_s: float = 5.0,
                life_mean_s: float = 100.0, shape: float = 1.35, duration_s: float = 3000.0,
                cross: Optional[str] = None, bandwidth_on: str = "core") -> dict[str, Any]:
    """The core configuration of one run; ``scheme`` is ``reno`` or a fair-share scheme
    (a scheme of the scenario file); ``cross`` None: the file's reading (``once``)."""
    if cross is None:
        cross = file_cross()
    if cross not in CROSS_READINGS:
        raise ValueError(f"cross must be one of {', '.join(CROSS_READINGS)}, not {cross!r}")
    if bandwidth_on not in BANDWIDTH_READINGS:
        raise ValueError(f"bandwidth_on must be one of {', '.join(BANDWIDTH_READINGS)}, not {bandwidth_on!r}")
    from ...scenario import Scenario

    base = base_scenario()
    raw = copy.deepcopy(base.raw)
    raw["duration"] = _time(duration_s)
    rate = f"{bandwidth_bps:.12g}b"
    for ln in raw["topology"]["links"]:
        core = {ln["src"], ln["dst"]} in ({"r1", "r2"}, {"r2", "r3"})
        on = {"core": core, "all": True, "r1r2": {ln["src"], ln["dst"]} == {"r1", "r2"},
              "r2r3": {ln["src"], ln["dst"]} == {"r2", "r3"}}[bandwidth_on]
        if core:
            ln["delay"] = _time(delay_s)
        ln["rate"] = rate if on else "100Mb"
    for w in raw["workloads"]:
        if w["name"] == "srv":
            w["interarrival"] = _time(iat_s)
            w["lifetime"] = {"dist": "pareto", "mean": _time(life_mean_s), "shape": shape}
        elif w["name"] == "cross":
            w.pop("renew", None)
            if cross == "persistent":
                w.pop("lifetime", None)
            else:
                w["lifetime"] = {"dist": "pareto", "mean": _time(life_mean_s), "shape": shape}
                w["renew"] = cross == "renew"
    raw.pop("sweep", None)
    return Scenario.from_dict(raw, source=base.source).to_sim_config(point={"scheme": scheme}, seed=seed)


def server_throughput(results: dict[str, Any]) -> dict[str, Any]:
    """P3's metrics (A.11) over the server connections of one run's results JSON: the
    initial n-second throughput for n = 1..10 (packets acked within n s of each
    connection's own start, summed) and the total throughput (packets acked)."""
    f = results["flows"]
    init = [0] * 10
    total = 0
    conns = 0
    for k, name in enumerate(f["flow"]):
        if not name.startswith("srv."):
            continue
        conns += 1
        total += f["bytes_acked"][k] // 1000
        for n, v in enumerate(f["acked_by_s"][k]):
            init[n] += v
    drops = sum(results["links"]["drops"])
    return {"initial": init, "total": total, "connections": conns, "drops": drops}


def transit_stub(file: str, scheme: str, seed: int, bandwidth_bps: float = 10e6, iat_s: Optional[float] = None,
                 life_mean_s: float = 100.0, shape: float = 1.35, duration_s: float = 3000.0,
                 server_rate_bps: Optional[float] = None) -> dict[str, Any]:
    """The core configuration of one run on ``scenarios/fairshare/<file>`` (``ts200.toml``
    or ``ts600.toml``): every link at ``bandwidth_bps``, the server connections' mean
    inter-arrival ``iat_s`` (None: the file's), Pareto lifetimes of mean ``life_mean_s``;
    ``server_rate_bps`` sets the server's own link (None: ``bandwidth_bps`` like every
    link, P3's "single value for all links")."""
    from ...scenario import Scenario

    base = base_scenario(file)
    raw = copy.deepcopy(base.raw)
    raw["duration"] = _time(duration_s)
    raw["topology"]["rate"] = f"{bandwidth_bps:.12g}b"
    if server_rate_bps is not None:
        raw["topology"]["server_rate"] = f"{server_rate_bps:.12g}b"
    for w in raw["workloads"]:
        if w["name"] == "srv":
            if iat_s is not None:
                w["interarrival"] = _time(iat_s)
            w["lifetime"] = {"dist": "pareto", "mean": _time(life_mean_s), "shape": shape}
    raw.pop("sweep", None)
    return Scenario.from_dict(raw, source=base.source).to_sim_config(point={"scheme": scheme}, seed=seed)
