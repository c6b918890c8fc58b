"""Summary statistics over transfers: per-seed means, then mean and 95% confidence
interval across seeds (Student t)."""

from __future__ import annotations

import math
from typing import Sequence

import polars as pl

from .results import TRANSFER_COUNTERS

__all__ = ["t95", "ci95", "seed_means", "summarize", "source_goodput", "point_columns", "RESERVED_COLUMNS"]

#: Columns of a results frame that are not sweep axes.
RESERVED_COLUMNS = {
    "scenario", "seed", "group", "connection", "round", "bytes", "start_s", "end_s", "completion_s",
    "retransmits", "timeouts", "initial_cwnd", "config_key", *TRANSFER_COUNTERS,
}

_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
        20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048,
        29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def t95(dof: int) -> float:
    """Two-sided 95% Student-t quantile for ``dof`` degrees of freedom (table, then 1.96)."""
    if dof <= 0:
        return math.nan
    if dof in _T95:
        return _T95[dof]
    lower = [k for k in _T95 if k <= dof]
    return _T95[max(lower)] if dof <= 120 else 1.960


def ci95(std: float | None, n: int | None) -> float | None:
    """Half-width of the 95% CI of a mean of ``n`` values with sample std ``std``
    (None with fewer than two values)."""
    if not n or n < 2 or std is None or math.isnan(std):
        return None
    return t95(int(n) - 1) * std / math.sqrt(n)


def seed_means(df: pl.DataFrame, by: Sequence[str], metric: str = "completion_s") -> pl.DataFrame:
    """One row per combination of ``by`` and seed: ``seed_mean`` (mean of ``metric`` over
    finished transfers), ``seed_median``, and the per-seed counts. The unit of every
    across-seed statistic."""
    return df.group_by(list(by) + ["seed"], maintain_order=True).agg(
        pl.col(metric).drop_nulls().mean().alias("seed_mean"),
        pl.col(metric).drop_nulls().median().alias("seed_median"),
        pl.len().alias("n"),
        pl.col(metric).is_null().sum().alias("unfinished"),
        pl.col("retransmits").sum().alias("retransmits"),
        pl.col("timeouts").sum().alias("timeouts"),
    )


def point_columns(df: pl.DataFrame, axes: Sequence[str] | None = None) -> list[str]:
    """The sweep-axis columns of a results frame."""
    if axes:
        return [a for a in axes if a in df.columns]
    return [c for c in df.columns if c not in RESERVED_COLUMNS]


def summarize(df: pl.DataFrame, by: Sequence[str], metric: str = "completion_s") -> pl.DataFrame:
    """One row per combination of ``by``: mean of the per-seed means of ``metric`` over
    finished transfers, its 95% CI half-width across seeds, and counts."""
    by = list(by)
    if not by:
        df = df.with_columns(pl.lit("all").alias("_all"))
        return summarize(df, ["_all"], metric).drop("_all")
    per_seed = seed_means(df, by, metric)
    agg = per_seed.group_by(by, maintain_order=True).agg(
        pl.col("seed_mean").mean().alias("mean"),
        pl.col("seed_mean").std().alias("std"),
        pl.col("seed_mean").count().alias("seeds"),
        pl.col("seed_median").mean().alias("median"),
        pl.col("n").sum().alias("transfers"),
        pl.col("unfinished").sum().alias("unfinished"),
        pl.col("retransmits").sum().alias("retransmits"),
        pl.col("timeouts").sum().alias("timeouts"),
    )
    ci = [ci95(s, n) for n, s in zip(agg["seeds"].to_list(), agg["std"].to_list())]
    p95 = (
        df.group_by(by, maintain_order=True)
        .agg(pl.col(metric).drop_nulls().quantile(0.95).alias("p95"))
    )
    out = agg.with_columns(pl.Series("ci95", ci, dtype=pl.Float64))
    out = out.join(p95, on=by, how="left", maintain_order="left", nulls_equal=True)
    return out.select(by + ["mean", "ci95", "median", "p95", "seeds", "transfers", "unfinished", "retransmits", "timeouts"])


def source_goodput(flows: pl.DataFrame, config: dict, sim_end_s: float, with_transfers: Sequence[str] = ()) -> pl.DataFrame:
    """Goodput of the TCP flows that have no transfers to time (infinite FTP, Telnet):
    payload bytes acknowledged x 8 / (end of the run - the flow's application start).
    ``flows`` is a run's flow table, ``config`` its core configuration, ``with_transfers``
    the flows that do have transfer rows (left out)."""
    start = {a["flow"]: float(a.get("start_s") or 0.0) for a in config.get("apps", []) if "flow" in a}
    skip = set(with_transfers)
    rows = [r for r in flows.iter_rows(named=True) if r["transport"] == "tcp" and r["flow"] not in skip]
    out = []
    for r in rows:
        t0 = start.get(r["flow"], 0.0)
        span = sim_end_s - t0
        out.append({"flow": r["flow"], "start_s": t0, "bytes_acked": int(r["bytes_acked"]),
                    "goodput_bps": r["bytes_acked"] * 8 / span if span > 0 else None,
                    "retransmits": int(r["retransmits"]), "timeouts": int(r["timeouts"])})
    schema = {"flow": pl.String, "start_s": pl.Float64, "bytes_acked": pl.Int64, "goodput_bps": pl.Float64,
              "retransmits": pl.Int64, "timeouts": pl.Int64}
    return pl.DataFrame(out, schema=schema)
