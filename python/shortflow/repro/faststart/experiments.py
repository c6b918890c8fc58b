"""The simulations of the thesis's §8.4 (TCP Fast Start): which scenario files in
``scenarios/faststart``, which panel and x axis, the reduced settings of ``--quick``, the
sweeps (with the package's resumable cache) and the metric: the completion time of the
**second** download of every measured Web pair.

Metric (spec A.10.2, A.12; ``scenarios/faststart/common.md``): a page is two recorded
transfers of the same round on the pair's persistent connection, the HTML and the
images. The client sees the page from sending its first request to receiving the last
byte; the server sees it from the request's arrival (the HTML's start) to the last ack's
arrival (the images' end). The two differ by the request's one-way time less the ack's:
both cross the same links, so the difference is the request's extra serialisation, the
scenario's ``page.request_gap``. Completion = images end - HTML start + request_gap.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

import polars as pl

from ...scenario import Scenario, load
from ...stats import summarize
from ...units import parse_time
from ..paths import find_scenario_dir as find

__all__ = ["Experiment", "EXPERIMENTS", "Settings", "MODES", "find_scenario_dir", "run_experiment",
           "second_downloads", "LINK_OF_DELAY"]

#: The thesis's shared-link settings (spec A.10.2).
LINKS = {"l1": "L1 28.8 Kb/s, 50 ms", "l2": "L2 1.5 Mb/s, 50 ms", "l3": "L3 1.5 Mb/s, 200 ms", "l4": "L4 45 Mb/s, 200 ms"}
#: E8.1/E8.2 sweep the delay of the 1.5 Mb/s link: 50 ms is L2, 200 ms is L3.
LINK_OF_DELAY = {"50ms": "l2", "200ms": "l3"}


@dataclass(frozen=True)
class Experiment:
    key: str
    caption: str
    #: scenario file per panel (panel name -> file); one file with ``panel_axis`` gives
    #: the panels by that axis's values (``LINK_OF_DELAY``)
    files: tuple[tuple[str, str], ...]
    x_axis: Optional[str]
    x_label: str
    panel_axis: Optional[str] = None


EXPERIMENTS: dict[str, Experiment] = {e.key: e for e in [
    Experiment("fig8_4", "E8.1 / Fig. 8.4: constant load (bulk flows throughout), one Web pair",
               (("", "e8_1.toml"),), "flows.bulk.count", "bulk cross-traffic connections", "topology.bottleneck.delay"),
    Experiment("l4_text", "E8.1 text: constant load at L4 (45 Mb/s, 200 ms)", (("l4", "e8_1_l4.toml"),),
               "flows.bulk.count", "bulk cross-traffic connections"),
    Experiment("fig8_5", "E8.2 / Fig. 8.5: changed load (bulk flows start after the first download)",
               (("", "e8_2.toml"),), "flows.bulk.count", "bulk cross-traffic connections", "topology.bottleneck.delay"),
    Experiment("fig8_7", "E8.3 / Fig. 8.7: changed load with RED/ECN, L2", (("l2", "e8_3.toml"),),
               "flows.bulk.count", "bulk cross-traffic connections"),
    Experiment("fig8_8", "E8.4 / Fig. 8.8: competing Web downloads, constant load",
               tuple((k, f"e8_4_{k}.toml") for k in LINKS), "flows.web.count", "client-server pairs"),
    Experiment("fig8_9", "E8.5 / Fig. 8.9: competing Web downloads, flash crowd (2nd within 0.1 s)",
               tuple((k, f"e8_5_{k}.toml") for k in LINKS), "flows.web.count", "client-server pairs"),
    Experiment("table8_1", "E8.6 / Table 8.1: 20 pairs, 10 fast-start, second phase within 1 s, L2",
               (("l2", "table8_1.toml"),), None, ""),
]}


@dataclass(frozen=True)
class Settings:
    """What a mode changes in the scenario files (``None``: as in the file)."""

    experiments: tuple[str, ...] = tuple(EXPERIMENTS)
    seeds: Optional[tuple[int, ...]] = None
    #: x grid per x axis
    grids: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def with_(self, **kw: Any) -> "Settings":
        return replace(self, **{k: (tuple(v) if isinstance(v, list) else v) for k, v in kw.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"experiments": list(self.experiments), "seeds": list(self.seeds) if self.seeds else None,
                "grids": {k: list(v) for k, v in self.grids}}


MODES: dict[str, Settings] = {
    "full": Settings(),
    "quick": Settings(seeds=(1, 2, 3), grids=(("flows.bulk.count", (1, 4, 10)), ("flows.web.count", (1, 5, 20)))),
}


def find_scenario_dir(start: Optional[Path] = None) -> Path:
    """``scenarios/faststart`` of the repository: ``$SHORTFLOW_FASTSTART_SCENARIOS``, else the
    first parent of the working directory or of this package that has it."""
    return find("faststart", "e8_1.toml", "SHORTFLOW_FASTSTART_SCENARIOS", start)


def _reduced(path: Path, settings: Settings) -> tuple[Scenario, dict[str, Any]]:
    base = load(path)
    raw = copy.deepcopy(base.raw)
    changes: dict[str, Any] = {}
    if settings.seeds is not None:
        raw["seeds"] = list(settings.seeds)
        changes["seeds"] = list(settings.seeds)
    for axis, grid in settings.grids:
        if axis in raw.get("sweep", {}):
            raw["sweep"][axis] = list(grid)
            changes[f"sweep[{axis!r}]"] = list(grid)
    if not changes:
        return base, {}
    return Scenario(raw, source=str(path), path=path), changes


def _web_groups(sc: Scenario) -> dict[str, float]:
    """Measured groups (rounds apps with a page) and their request gap (s)."""
    out = {}
    for f in sc.raw.get("flows", []):
        app = f.get("app") or {}
        if app.get("kind") == "rounds" and "page" in app:
            out[f["name"]] = parse_time(app["page"].get("request_gap", 0), "request_gap")
    return out


def second_downloads(results: pl.DataFrame, gaps: dict[str, float]) -> pl.DataFrame:
    """One row per (point, seed, pair): the second page's completion time (see the module
    docstring), its retransmissions and timeouts, and the window it started with."""
    web = results.filter(pl.col("group").is_in(list(gaps)) & (pl.col("round") == 1))
    keys = [c for c in web.columns if c not in {"round", "bytes", "start_s", "end_s", "completion_s", "retransmits",
                                                 "timeouts", "initial_cwnd", "config_key", "scenario"}]
    gap = pl.col("group").replace_strict(gaps, return_dtype=pl.Float64)
    per = web.group_by(keys, maintain_order=True).agg(
        pl.col("start_s").min().alias("start"),
        pl.col("end_s").max().alias("end"),
        pl.col("end_s").is_null().any().alias("unfinished"),
        pl.col("retransmits").sum().alias("retransmits"),
        pl.col("timeouts").sum().alias("timeouts"),
        pl.col("initial_cwnd").first().alias("initial_cwnd"),
    )
    return per.with_columns(
        pl.when(pl.col("unfinished")).then(None).otherwise(pl.col("end") - pl.col("start") + gap).alias("completion_s")
    ).drop("unfinished")


@dataclass
class ExperimentRun:
    exp: Experiment
    #: one row per (panel, x, scheme, group): mean, ci95, seeds, ...
    table: pl.DataFrame
    #: one row per second download
    rows: pl.DataFrame
    changes: dict[str, Any]
    tasks: int
    computed: int
    wall_s: float
    run_dirs: list[Path]


def run_experiment(exp: Experiment, settings: Settings, scenario_dir: Path, out: Path, jobs: int = 2,
                   progress: bool = False) -> ExperimentRun:
    """Run (or resume from ``out``) every file, point and seed of one experiment."""
    from ...sweeper import run_sweep

    parts, tasks, computed, wall, dirs, changes = [], 0, 0, 0.0, [], {}
    for panel, fname in exp.files:
        sc, ch = _reduced(Path(scenario_dir) / fname, settings)
        changes.update(ch)
        d = Path(out) / (panel or "all")
        res = run_sweep(sc, jobs=jobs, out=d, progress=progress)
        rows = second_downloads(res.results, _web_groups(sc))
        if exp.panel_axis:
            rows = rows.with_columns(pl.col(exp.panel_axis).replace_strict(LINK_OF_DELAY).alias("panel"))
        else:
            rows = rows.with_columns(pl.lit(panel).alias("panel"))
        x = pl.col(exp.x_axis).cast(pl.Float64) if exp.x_axis else pl.lit(0.0)
        parts.append(rows.with_columns(x.alias("x")))
        tasks, computed, wall = tasks + res.tasks, computed + res.computed, wall + res.wall_s
        dirs.append(d)
    rows = pl.concat(parts, how="diagonal_relaxed")
    table = summarize(rows, ["panel", "x", "scheme", "group"]).sort(["panel", "group", "scheme", "x"])
    cw = rows.group_by(["panel", "x", "scheme", "group"]).agg(pl.col("initial_cwnd").mean().alias("mean_initial_cwnd"))
    table = table.join(cw, on=["panel", "x", "scheme", "group"], how="left")
    return ExperimentRun(exp, table, rows, changes, tasks, computed, wall, dirs)
