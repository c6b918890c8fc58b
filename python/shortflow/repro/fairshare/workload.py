"""P3's homogeneous network (Yu & Newman, Fig. 2; spec fairshare-and-sizebased A.12,
A.13.1) as a core ``SimConfig``: server ``s`` -> r1 -> r2 -> r3 -> clients c1..c5, cross
traffic xs_j -> r1 -> r2 -> xc_j; the core links r1-r2 and r2-r3 carry "Bandwidth" and
"Delay", access links are 100 Mb/s, 1 ms (A.15 item 1); drop-tail 50 packets.

The workload is generated here, at the scenario level, seeded per source (one
``random.Random`` per stream: arrivals, lifetimes, clients, cross starts), so every
scheme of a seed sees the same connections (common random numbers):

- server connections arrive as a Poisson process (exponential inter-arrival times of
  mean ``iat_s``), each to a client drawn uniformly, an infinite FTP source whose
  lifetime is Pareto with mean ``life_mean_s`` and shape ``shape``
  (x_m = mean (a - 1) / a, A.12); at its end the core tears the connection down
  (``apps[].duration_s``: it stops sending and leaves its fair-share group);
- 5 persistent cross FTP pairs start at exponentially staggered times (mean 1 s, A.15
  item 3) and run to the end; they use plain Reno and the server cannot see them.

TCP (A.12): Reno, advertised window 100, ssthresh 10, initial cwnd 1, 1000-byte packets,
no delayed acks, ns-2's one-way TCP without the SYN exchange (ns-2's default ``syn_``
false; A.12's 1-RTT SYN is the spec's default we did not take: it shifts every start by
one RTT for all schemes alike). Clients share the prefix 10.1.0.0/24, and
``paths.prefix_len = 24`` makes them one group (A.3).
"""

from __future__ import annotations

import random
from typing import Any, Optional

SCHEMES = ["reno", "liss", "iss", "miss", "js"]
TCP = {"variant": "reno", "window": 100, "ssthresh": 10, "window_init": 1, "packet_size": 1000, "syn": False}


def pareto_xm(mean: float, shape: float) -> float:
    """Pareto scale for a given mean: x_m = mean (a - 1) / a (needs a > 1)."""
    if shape <= 1:
        raise ValueError(f"shape must exceed 1 for a finite mean, not {shape}")
    return mean * (shape - 1) / shape


def _rng(seed: int, stream: str) -> random.Random:
    return random.Random(f"fairshare:{seed}:{stream}")


def server_connections(seed: int, duration_s: float, iat_s: float, life_mean_s: float, shape: float,
                       clients: int = 5) -> list[tuple[float, float, int]]:
    """(start, lifetime, client index) of every server connection starting before the end."""
    arr, life, pick = _rng(seed, "arrivals"), _rng(seed, "lifetimes"), _rng(seed, "clients")
    xm = pareto_xm(life_mean_s, shape)
    out, t = [], 0.0
    while True:
        t += arr.expovariate(1.0 / iat_s)
        if t >= duration_s:
            return out
        out.append((t, xm * life.paretovariate(shape), pick.randrange(clients)))


def homogeneous(scheme: str, seed: int, bandwidth_bps: float = 20e6, delay_s: float = 0.05, iat_s: float = 5.0,
                life_mean_s: float = 100.0, shape: float = 1.35, duration_s: float = 3000.0, cross_pairs: int = 5,
                startup: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The core configuration of one run; ``scheme`` is ``reno`` or a fair-share scheme."""
    nodes = ["s", "r1", "r2", "r3"] + [f"c{k}" for k in range(1, 6)]
    core = {"rate_bps": bandwidth_bps, "delay_s": delay_s, "queue": {"kind": "drop_tail", "limit_pkts": 50}}
    acc = {"rate_bps": 100e6, "delay_s": 0.001, "queue": {"kind": "drop_tail", "limit_pkts": 50}}
    links = [{"src": "r1", "dst": "r2", **core}, {"src": "r2", "dst": "r3", **core}, {"src": "s", "dst": "r1", **acc}]
    links += [{"src": "r3", "dst": f"c{k}", **acc} for k in range(1, 6)]
    addresses = {"s": "10.0.0.1", **{f"c{k}": f"10.1.0.{k}" for k in range(1, 6)}}
    flows: list[dict[str, Any]] = []
    apps: list[dict[str, Any]] = []
    st = startup if startup is not None else (None if scheme == "reno" else {"kind": "fair_share", "scheme": scheme})
    for i, (t, life, c) in enumerate(server_connections(seed, duration_s, iat_s, life_mean_s, shape), start=1):
        f: dict[str, Any] = {"name": f"srv.{i}", "src": "s", "dst": f"c{c + 1}", "tcp": dict(TCP)}
        if st is not None:
            f["startup"] = dict(st)
        flows.append(f)
        apps.append({"kind": "ftp", "flow": f["name"], "start_s": round(t, 9), "duration_s": round(max(life, 1e-6), 9)})
    stagger = _rng(seed, "cross")
    t = 0.0
    for j in range(1, cross_pairs + 1):
        nodes += [f"xs{j}", f"xc{j}"]
        links += [{"src": f"xs{j}", "dst": "r1", **acc}, {"src": "r2", "dst": f"xc{j}", **acc}]
        t += stagger.expovariate(1.0)
        flows.append({"name": f"cross.{j}", "src": f"xs{j}", "dst": f"xc{j}", "tcp": dict(TCP)})
        apps.append({"kind": "ftp", "flow": f"cross.{j}", "start_s": round(t, 9)})
    return {"seed": seed, "duration_s": duration_s, "stop_when_done": False, "nodes": nodes, "links": links,
            "flows": flows, "apps": apps, "gateways": [], "addresses": addresses, "paths": {"prefix_len": 24}}


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
    return {"initial": init, "total": total, "connections": conns}
