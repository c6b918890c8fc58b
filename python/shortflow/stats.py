"""Summary statistics over transfers: per-seed means, then mean and 95% confidence
interval across seeds (Student t)."""

from __future__ import annotations

import math
from typing import Sequence

import polars as pl

__all__ = ["t95", "summarize", "point_columns", "RESERVED_COLUMNS"]

#: Columns of a results frame that are not sweep axes.
RESERVED_COLUMNS = {
    "scenario", "seed", "group", "connection", "round", "bytes", "start_s", "end_s", "completion_s",
    "retransmits", "timeouts", "initial_cwnd", "config_key",
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
    per_seed = (
        df.group_by(by + ["seed"], maintain_order=True)
        .agg(
            pl.col(metric).drop_nulls().mean().alias("seed_mean"),
            pl.col(metric).drop_nulls().median().alias("seed_median"),
            pl.len().alias("n"),
            pl.col(metric).is_null().sum().alias("unfinished"),
            pl.col("retransmits").sum().alias("retransmits"),
            pl.col("timeouts").sum().alias("timeouts"),
        )
    )
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
    ci = [
        (t95(int(n) - 1) * s / math.sqrt(n)) if (n and n > 1 and s is not None and not math.isnan(s)) else None
        for n, s in zip(agg["seeds"].to_list(), agg["std"].to_list())
    ]
    p95 = (
        df.group_by(by, maintain_order=True)
        .agg(pl.col(metric).drop_nulls().quantile(0.95).alias("p95"))
    )
    out = agg.with_columns(pl.Series("ci95", ci, dtype=pl.Float64))
    out = out.join(p95, on=by, how="left", maintain_order="left", nulls_equal=True)
    return out.select(by + ["mean", "ci95", "median", "p95", "seeds", "transfers", "unfinished", "retransmits", "timeouts"])
