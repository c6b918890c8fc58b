"""Trace of one run per reading of P3's homogeneous network (spec A.15 items 2 and 3):
what Eq. 2 gives a new connection and how much of the shared bottleneck (r1 -> r2) the
server's connections get.

``shortflow repro fairshare`` writes this table as ``readings.csv``/``readings.md``; it
is a diagnosis, not a claim: it shows *why* a reading changes the schemes' ranking.
"""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

from .workload import homogeneous, server_connections, server_throughput

#: (label, cross reading, bandwidth reading): the reading taken first, then the spec's
#: literal default and one alternative to it at a time.
READINGS = [
    ("taken (cross lifetimes like the server's, one per pair; Bandwidth on both core links)", "once", "core"),
    ("spec's literal default (persistent cross, Bandwidth on both core links)", "persistent", "core"),
    ("cross lifetimes like the server's, renewed per pair", "renew", "core"),
    ("Bandwidth on r1-r2 only (persistent cross)", "persistent", "r1r2"),
    ("Bandwidth on r2-r3 only (persistent cross)", "persistent", "r2r3"),
    ("Bandwidth on every link (persistent cross)", "persistent", "all"),
]


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return math.nan
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def trace(args: tuple[str, str, str, int, float, float]) -> dict[str, Any]:
    """One LISS run (and the Reno run of the same seed) under a reading: the Eq. 2
    estimates new server connections got (``s_n``; a connection with no steady
    connection in its group gets the default and no estimate), the server's share of the
    packets that crossed r1 -> r2 and the initial 5-s throughput of both schemes."""
    from ...native import resolve_json, run_json

    label, cross, bw_on, seed, bw, duration = args
    out: dict[str, Any] = {"reading": label, "cross": cross, "bandwidth_on": bw_on, "seed": seed,
                           "bandwidth_mbps": bw / 1e6, "duration_s": duration}
    for scheme in ("reno", "liss"):
        cfg = homogeneous(scheme, seed, bandwidth_bps=bw, duration_s=duration, cross=cross, bandwidth_on=bw_on)
        res = json.loads(run_json(resolve_json(cfg)))
        m = server_throughput(res)
        f = res["flows"]
        srv = sum(f["bytes_acked"][k] for k, n in enumerate(f["flow"]) if n.startswith("srv."))
        allb = sum(f["bytes_acked"])
        links = res["links"]
        k12 = links["link"].index("r1->r2")
        k23 = links["link"].index("r2->r3")
        out[f"{scheme}_server_share"] = srv / allb if allb else math.nan
        out[f"{scheme}_util_r1r2"] = links["bytes_departed"][k12] * 8 / (links_rate(cfg, "r1", "r2") * duration)
        out[f"{scheme}_util_r2r3"] = links["bytes_departed"][k23] * 8 / (links_rate(cfg, "r2", "r3") * duration)
        out[f"{scheme}_drops_r1r2"] = links["drops"][k12]
        out[f"{scheme}_drops_r2r3"] = links["drops"][k23]
        out[f"{scheme}_initial5"] = m["initial"][4]
        out[f"{scheme}_total"] = m["total"]
        if scheme == "liss":
            st = res["startup"]
            est = [v for n, v in zip(st["flow"], st["wc_estimate"]) if n.startswith("srv.") and v is not None
                   and not (isinstance(v, float) and math.isnan(v))]
            starts = sum(1 for n in st["flow"] if n.startswith("srv."))
            out["starts"] = starts
            out["with_estimate"] = len(est)
            out["s_n_q25"] = _quantile(est, 0.25)
            out["s_n_median"] = statistics.median(est) if est else math.nan
            out["s_n_q75"] = _quantile(est, 0.75)
            out["s_n_above_10"] = sum(1 for v in est if math.floor(v) > 10) / len(est) if est else math.nan
    out["liss_over_reno_initial5"] = out["liss_initial5"] / out["reno_initial5"] if out["reno_initial5"] else math.nan
    # What Eq. 2 should find if it works: the window a server connection actually holds,
    # its throughput times the propagation RTT (4 Delay + 4 ms at the defaults), the
    # throughput being the LISS run's server packets per second over the mean number of
    # live server connections (their lifetimes cut at the end of the run).
    conns = server_connections(seed, duration, 5.0, 100.0, 1.35)
    out["live_mean"] = sum(min(d, duration - t) for t, d, _ in conns) / duration
    out["window_per_conn"] = out["liss_total"] / duration / out["live_mean"] * 0.204 if out["live_mean"] else math.nan
    return out


def links_rate(cfg: dict[str, Any], a: str, b: str) -> float:
    for ln in cfg["links"]:
        if ln["src"] == a and ln["dst"] == b:
            return float(ln["rate_bps"])
    raise KeyError(f"{a}->{b}")


COLUMNS = ["reading", "seed", "bandwidth_mbps", "duration_s", "starts", "with_estimate", "s_n_q25", "s_n_median",
           "s_n_q75", "s_n_above_10", "reno_server_share", "liss_server_share", "reno_util_r1r2", "reno_util_r2r3",
           "reno_drops_r1r2", "reno_drops_r2r3", "reno_initial5", "liss_initial5", "liss_over_reno_initial5",
           "reno_total", "liss_total", "live_mean", "window_per_conn"]


def table_md(rows: list[dict[str, Any]]) -> str:
    head = ["reading", "starts (with Eq. 2)", "s_n quartiles", "share s_n > 10", "server share of r1->r2 (Reno/LISS)",
            "window held per connection", "util r1->r2 / r2->r3 (Reno)", "drops r1->r2 / r2->r3 (Reno)",
            "LISS/Reno initial 5-s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append(
            f"| {r['reading']} | {r['starts']} ({r['with_estimate']}) | {r['s_n_q25']:.1f} / {r['s_n_median']:.1f} / "
            f"{r['s_n_q75']:.1f} | {r['s_n_above_10']:.2f} | {r['reno_server_share']:.2f} / {r['liss_server_share']:.2f} | "
            f"{r['window_per_conn']:.1f} | "
            f"{r['reno_util_r1r2']:.2f} / {r['reno_util_r2r3']:.2f} | {r['reno_drops_r1r2']} / {r['reno_drops_r2r3']} | "
            f"{r['liss_over_reno_initial5']:.2f} |")
    return "\n".join(lines) + "\n"
