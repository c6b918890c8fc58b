"""Run fig6_8.toml (every point and seed, in process) and print the results table of
docs/session.md: mean page download time (max end - min start over a download's 4
connections) with a 95% CI over seeds, bottleneck drops and timeouts per download.
With ``--fig7-2``: the short object's completion time of fig7_2.toml per bottleneck buffer.

    .venv/bin/python scenarios/web/session/table.py [--seeds N] [--fig7-2]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import polars as pl

import shortflow

HERE = Path(__file__).parent
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, T95.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / len(xs) ** 0.5


def fig7_2() -> None:
    sc = shortflow.load(HERE / "fig7_2.toml")
    links = sc.document_at()["topology"]["links"]
    print("| buffer (packets) | independent | session, weight 10 |")
    print("|---|---|---|")
    for limit in (3, 5, 10, 20):
        bn = dict(links[1], queue={"kind": "droptail", "limit": limit})
        s2 = sc.with_overrides({"topology.links": [links[0], bn, links[2]]})
        done = {}
        for p in s2.points():
            t = s2.simulate(sc.seeds[0], p).transfers
            done[p["scheme"]] = t.filter(pl.col("flow") == "short.1")["completion_s"][0]
        print(f"| {limit} | {done['independent']:.2f} | {done['session']:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=None, help="use only the first N seeds")
    ap.add_argument("--fig7-2", action="store_true", help="the Fig. 7.2 buffer table instead")
    a = ap.parse_args()
    if a.fig7_2:
        return fig7_2()
    sc = shortflow.load(HERE / "fig6_8.toml")
    seeds = sc.seeds[: a.seeds] if a.seeds else sc.seeds
    rows = []
    for point in sc.points():
        n_conn = point["flows.page.count"]
        per_seed = []
        for seed in seeds:
            r = sc.simulate(seed, point)
            t = r.transfers.with_columns(
                ((pl.col("flow").str.split(".").list.get(1).cast(pl.Int64) - 1) // 4).alias("page"))
            pages = t.group_by("page").agg(
                (pl.col("end_s").max() - pl.col("start_s").min()).alias("time"), pl.col("end_s").is_null().any().alias("open"))
            assert not pages["open"].any(), f"unfinished page at {point} seed {seed}"
            drops = r.links.filter(pl.col("link").is_in(["r1->r2", "r2->r1"]))["drops"].sum()
            timeouts = r.flows["timeouts"].sum()
            per_seed.append((pages["time"].mean(), drops / (n_conn // 4), timeouts / (n_conn // 4)))
        m, h = ci([x[0] for x in per_seed])
        rows.append((point["scheme"], n_conn // 4, m, h, statistics.fmean(x[1] for x in per_seed),
                     statistics.fmean(x[2] for x in per_seed)))
    print("| downloads | scheme | page time (s), mean ± 95% CI | drops / download | timeouts / download |")
    print("|---|---|---|---|---|")
    for s, n, m, h, d, to in sorted(rows, key=lambda x: (x[1], x[0])):
        print(f"| {n} | {s} | {m:.2f} ± {h:.2f} | {d:.2f} | {to:.2f} |")


if __name__ == "__main__":
    main()
