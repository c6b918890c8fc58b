"""The cross-check neither paper made (issue 15, item 5): TCP/SPAND and TCP Fast Start side by
side, on the TCP/SPAND paper's Fig. 10 scenario (``scenarios/spand/fig10.toml``: 30 KB
transfers in rounds over a 1.6 Mb/s, 50 ms bottleneck with Telnet background, N
connections) and on the thesis's changed-load scenario (``scenarios/faststart/e8_2.toml``).

Each file gets the other scheme as one more ``[schemes.X]`` table, nothing else changes:
Fig. 10 gets ``fast_start`` (NewReno + Fast Start with its defaults; no router marks
matter, the bottleneck is drop-tail), E8.2 gets ``spand`` (NewReno + TCP/SPAND with the
default gateway ``gw``, 300 s window, fed by the measured connection's own reports).
Metrics as in each paper: the mean completion time of every transfer of the measured
group (Fig. 10), the second page's completion time (E8.2)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import polars as pl

from ...scenario import Scenario, load
from ...stats import summarize
from .experiments import LINK_OF_DELAY, _web_groups, second_downloads

__all__ = ["run_crosscheck"]


def _with(path: Path, schemes: dict[str, Any], sweep: dict[str, list[Any]], seeds: list[int],
          extra: dict[str, Any]) -> Scenario:
    raw = copy.deepcopy(load(path).raw)
    raw["schemes"].update(schemes)
    raw["sweep"] = sweep
    raw["seeds"] = seeds
    for k, v in extra.items():
        cur = raw
        parts = k.split(".")
        for p in parts[:-1]:
            cur = next(f for f in cur if f.get("name") == p) if isinstance(cur, list) else cur[p]
        cur[parts[-1]] = v
    return Scenario(raw, source=str(path), path=path)


def run_crosscheck(out: Path, scenario_dir: Path, quick: bool, jobs: int = 2, progress: bool = False) -> pl.DataFrame:
    """Both runs; returns one table (scenario, panel, x, scheme, mean, ci95, seeds) and
    writes ``crosscheck.csv`` and ``crosscheck.md`` into ``out``."""
    from ...sweeper import run_sweep

    seeds = [1, 2, 3] if quick else list(range(1, 11))
    spand_dir = scenario_dir.parent / "spand"
    fig10 = _with(spand_dir / "fig10.toml",
                  {"fast_start": {"flows": {"conn": {"variant": "newreno", "startup": {"kind": "fast_start"}}}}},
                  {"flows.conn.count": [1, 6, 20] if quick else [1, 2, 4, 6, 8, 10, 15, 20, 25, 30],
                   "scheme": ["newreno-ssr", "spand", "fast_start"]}, seeds,
                  {"flows.conn.app.rounds": 8} if quick else {})
    res = run_sweep(fig10, jobs=jobs, out=out / "runs" / "crosscheck" / "fig10", progress=progress)
    a = res.results.filter(pl.col("group") == "conn").with_columns(
        pl.col("flows.conn.count").cast(pl.Float64).alias("x"), pl.lit("spand-fig10").alias("panel"))
    ta = summarize(a, ["panel", "x", "scheme"])
    e82 = _with(scenario_dir / "e8_2.toml", {"spand": {"flows": {"web": {"startup": {"kind": "spand"}}}}},
                {"topology.bottleneck.delay": ["50ms", "200ms"], "flows.bulk.count": [1, 4, 10],
                 "scheme": ["tcp", "fs-pdrop", "spand"]}, seeds, {})
    res = run_sweep(e82, jobs=jobs, out=out / "runs" / "crosscheck" / "e8_2", progress=progress)
    b = second_downloads(res.results, _web_groups(e82)).with_columns(
        pl.col("flows.bulk.count").cast(pl.Float64).alias("x"),
        ("e8.2-" + pl.col("topology.bottleneck.delay").replace_strict(LINK_OF_DELAY)).alias("panel"))
    tb = summarize(b, ["panel", "x", "scheme"])
    table = pl.concat([ta, tb], how="diagonal_relaxed").select(["panel", "x", "scheme", "mean", "ci95", "seeds",
                                                                "retransmits", "timeouts"])
    table.write_csv(out / "crosscheck.csv")
    lines = ["# TCP/SPAND vs TCP Fast Start (cross-check)", "",
             "Mean completion time (s) and 95% CI across seeds. `spand-fig10`: every 30 KB transfer of the "
             "TCP/SPAND paper's Fig. 10 scenario, x = N connections; `e8.2-l2`/`e8.2-l3`: the second page of the "
             "thesis's changed-load scenario, x = bulk flows.", "",
             "| scenario | x | " + " | ".join(sorted(set(table["scheme"].to_list()))) + " |",
             "|---|---|" + "---|" * len(set(table["scheme"].to_list()))]
    schemes = sorted(set(table["scheme"].to_list()))
    for (panel, x), part in table.sort(["panel", "x"]).group_by(["panel", "x"], maintain_order=True):
        cells = []
        for s in schemes:
            r = part.filter(pl.col("scheme") == s)
            cells.append("" if r.height == 0 else f"{r['mean'][0]:.2f} ± {(r['ci95'][0] or 0):.2f}")
        lines.append(f"| {panel} | {int(x)} | " + " | ".join(cells) + " |")
    (out / "crosscheck.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return table
