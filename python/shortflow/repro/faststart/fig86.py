"""Fig. 8.6: the sequence numbers of one bulk flow while ten Web pairs fast-start at once
(``scenarios/faststart/fig8_6.toml``). Each run traces the bottleneck ``r1->r2``; around
the first second-download start (t0 - 5 s .. t0 + 5 s) we count the bulk flow's dropped
packets and its longest pause between two packets entering the bottleneck (a stall), and
plot its sequence numbers for seed 1. Thesis: with ``fs`` the bulk flow loses several
packets and stalls for several seconds; with ``fs-pdrop`` it sees little impact, mainly
extra queueing delay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from ...scenario import load
from .claims import THESIS, Claim

__all__ = ["run_fig86"]

WINDOW_S = 5.0


def _one(sdir: Path, scheme: str, seed: int) -> dict[str, Any]:
    from ...native import run_json

    sc = load(sdir / "fig8_6.toml")
    cfg = sc.to_sim_config({"scheme": scheme}, seed)
    cfg["trace"] = {"packets": True, "links": ["r1->r2"]}
    out = json.loads(run_json(json.dumps(cfg)))
    names = [f["name"] for f in cfg["flows"]]
    bulk = names.index("bulk.1")
    t = out["transfers"]
    t0 = min(s for s, r, f in zip(t["start_s"], t["round"], t["flow"]) if r == 1 and f.startswith("web"))
    lo, hi = t0 - WINDOW_S, t0 + WINDOW_S
    pk = out["packets"]
    sends, drops = [], 0
    for tm, ev, fl, seq in zip(pk["time_ns"], pk["event"], pk["flow"], pk["seqno"]):
        ts = tm / 1e9
        if fl != bulk or not lo <= ts <= hi:
            continue
        if ev == ord("+"):
            sends.append((ts, seq))
        elif ev == ord("d"):
            drops += 1
    gaps = [b[0] - a[0] for a, b in zip(sends, sends[1:])]
    return {"scheme": scheme, "seed": seed, "t0": t0, "bulk_drops": drops, "longest_stall_s": max(gaps, default=None),
            "bulk_sent": len(sends), "series": sends}


def run_fig86(out: Path, sdir: Path, seeds: list[int], note: str = "") -> tuple[pl.DataFrame, Claim]:
    from ...mpl import pyplot, save

    runs = [_one(sdir, s, seed) for s in ("tcp", "fs", "fs-pdrop") for seed in seeds]
    table = pl.DataFrame([{k: v for k, v in r.items() if k != "series"} for r in runs])
    table.write_csv(out / "fig8_6.csv")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    colors = {"tcp": "tab:red", "fs": "tab:green", "fs-pdrop": "tab:blue"}
    for r in runs:
        if r["seed"] != seeds[0] or not r["series"]:
            continue
        xs = [ts - r["t0"] for ts, _ in r["series"]]
        ys = [q - r["series"][0][1] for _, q in r["series"]]
        ax.plot(xs, ys, ".", ms=2, color=colors[r["scheme"]], label=f"{r['scheme']} ({r['bulk_drops']} drops)")
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set_xlabel("time from the first fast start (s)")
    ax.set_ylabel("bulk flow: packets sent into the bottleneck")
    ax.set_title("Fig. 8.6: a bulk flow while 10 Web pairs fast-start (L2, seed %d)%s" % (seeds[0], f" [{note}]" if note else ""),
                 fontsize=9)
    ax.legend(fontsize=8)
    save(fig, out / "fig8_6.png")

    def mean(scheme: str, col: str) -> float:
        v = table.filter(pl.col("scheme") == scheme)[col].drop_nulls()
        return float(v.mean()) if v.len() else float("nan")  # type: ignore[arg-type]

    d_fs, d_pd, d_tcp = mean("fs", "bulk_drops"), mean("fs-pdrop", "bulk_drops"), mean("tcp", "bulk_drops")
    s_fs, s_pd, s_tcp = mean("fs", "longest_stall_s"), mean("fs-pdrop", "longest_stall_s"), mean("tcp", "longest_stall_s")
    ok = d_pd < d_fs and s_pd < s_fs and s_fs >= 1.0
    claim = Claim("8.6-bulk", "Fig. 8.6", "Ten simultaneous fast starts: with fs the bulk flow loses several packets and stalls "
                  "for several seconds; with fs-pdrop little impact (mainly extra queueing delay)",
                  "under fs-pdrop fewer bulk drops and a shorter longest stall than under fs, and fs's stall at least 1 s "
                  f"(mean of {len(seeds)} seeds, +-{WINDOW_S:g} s around the first fast start)", THESIS, ok,
                  f"bulk drops fs {d_fs:.1f}, fs-pdrop {d_pd:.1f} (tcp {d_tcp:.1f}); longest stall fs {s_fs:.2f} s, "
                  f"fs-pdrop {s_pd:.2f} s (tcp {s_tcp:.2f} s)",
                  {"drops": {"fs": d_fs, "fs-pdrop": d_pd, "tcp": d_tcp},
                   "stall_s": {"fs": s_fs, "fs-pdrop": s_pd, "tcp": s_tcp}})
    return table, claim
