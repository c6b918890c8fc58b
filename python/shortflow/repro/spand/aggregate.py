"""Per-figure tables (spec §3.6, §4.4): for every x value and scheme (or class), the mean
completion time over seeds of the per-run mean over all transfers, its std and 95% CI
across seeds, and the % reduction of TCP/SPAND versus each baseline."""

from __future__ import annotations

import math
from typing import Optional, Sequence

import polars as pl

from ...stats import ci95, seed_means, summarize, t95

__all__ = ["scheme_summary", "friendliness_summary", "reduction", "with_std"]

SCHEME_ORDER = ["reno-ssr", "newreno-ssr", "reno-nssr", "newreno-nssr", "spand"]


def reduction(t_base: Optional[float], t_spand: Optional[float]) -> Optional[float]:
    """Spec §3.6: ``(T_base - T_spand) / T_base`` in percent (None when undefined)."""
    if t_base is None or t_spand is None or not t_base or math.isnan(t_base) or math.isnan(t_spand):
        return None
    return 100.0 * (t_base - t_spand) / t_base


def with_std(s: pl.DataFrame) -> pl.DataFrame:
    """Add the std across seeds of the per-seed means, recovered exactly from
    :func:`shortflow.stats.summarize`'s 95% CI (``ci95 = t95(n-1) * std / sqrt(n)``)."""
    std = [c * math.sqrt(n) / t95(int(n) - 1) if c is not None and n and n > 1 else None
           for c, n in zip(s["ci95"].to_list(), s["seeds"].to_list())]
    return s.with_columns(pl.Series("std", std, dtype=pl.Float64))


def _extras(rows: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    return rows.group_by(list(by), maintain_order=True).agg(
        (pl.col("timeouts") > 0).cast(pl.Float64).mean().alias("timeout_frac"),
        pl.col("initial_cwnd").mean().alias("mean_initial_cwnd"),
        (pl.col("initial_cwnd") <= 1).cast(pl.Float64).mean().alias("iw1_frac"),
    )


_COLS = ["mean", "std", "ci95", "seeds", "transfers", "unfinished", "timeouts", "timeout_frac", "mean_initial_cwnd",
         "iw1_frac"]


def scheme_summary(rows: pl.DataFrame) -> pl.DataFrame:
    """Figs. 10-17: one row per (x, scheme) with ``mean``/``std``/``ci95`` (s),
    ``spand_reduction_pct`` (SPAND's reduction versus that row's scheme) and
    ``spand_reduction_ci95`` (its 95% CI half-width across seeds, in percentage points)."""
    by = ["x", "scheme"]
    s = with_std(summarize(rows, by)).join(_extras(rows, by), on=by, how="left")
    s = _with_reduction(s, "mean", "spand_reduction_pct")
    s = s.join(_reduction_ci(rows, by), on=by, how="left")
    # diagnostic only: the same from the third round on (no fresh connections, spec §4.5)
    late = rows.filter(pl.col("round") >= 2)
    lcols = ["mean_rounds_3plus", "spand_reduction_rounds_3plus_pct"]
    if late.height:
        ls = _with_reduction(summarize(late, by).select(by + [pl.col("mean").alias(lcols[0])]), lcols[0], lcols[1])
        s = s.join(ls, on=by, how="left")
    else:
        s = s.with_columns([pl.lit(None, dtype=pl.Float64).alias(c) for c in lcols])
    order = {k: i for i, k in enumerate(SCHEME_ORDER)}
    s = s.with_columns(pl.col("scheme").replace_strict(order, default=len(order), return_dtype=pl.Int64).alias("_o"))
    return s.sort(["x", "_o"]).select(by + _COLS + ["spand_reduction_pct", "spand_reduction_ci95"] + lcols)


def _with_reduction(s: pl.DataFrame, mean: str, name: str) -> pl.DataFrame:
    """Add ``name``: SPAND's reduction versus the row's scheme at the same x (spec §3.6)."""
    sp = s.filter(pl.col("scheme") == "spand").select("x", pl.col(mean).alias("_spand"))
    s = s.join(sp, on="x", how="left")
    red = [reduction(b, t) if sch != "spand" else None
           for b, t, sch in zip(s[mean].to_list(), s["_spand"].to_list(), s["scheme"].to_list())]
    return s.with_columns(pl.Series(name, red, dtype=pl.Float64)).drop("_spand")


def _reduction_ci(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``spand_reduction_ci95`` per (x, scheme): 95% CI half-width of SPAND's reduction
    across seeds, from the per-seed reductions (each seed's baseline run against the same
    seed's SPAND run, so the shared randomness cancels)."""
    m = seed_means(rows, by)
    sp = m.filter(pl.col("scheme") == "spand").select("x", "seed", pl.col("seed_mean").alias("_spand"))
    per = m.filter(pl.col("scheme") != "spand").join(sp, on=["x", "seed"], how="inner")
    red = [reduction(b, t) for b, t in zip(per["seed_mean"].to_list(), per["_spand"].to_list())]
    per = per.with_columns(pl.Series("_red", red, dtype=pl.Float64))
    agg = per.group_by(by, maintain_order=True).agg(pl.col("_red").std().alias("_std"),
                                                     pl.col("_red").drop_nulls().count().alias("_n"))
    ci = [ci95(sd, n) for sd, n in zip(agg["_std"].to_list(), agg["_n"].to_list())]
    return agg.select(by).with_columns(pl.Series("spand_reduction_ci95", ci, dtype=pl.Float64))


def friendliness_summary(rows: pl.DataFrame) -> pl.DataFrame:
    """Figs. 18-19: one row per (size, N_total, scheme, class) with class ``a``, ``b``
    (the flow group of the ``connection`` column) or ``all`` (both pooled); ``protocol``
    says what the class runs; ``rel_to_all_reno_ssr_pct`` compares a ``mixed`` row with
    the same class in the all-reno-ssr run ((T - T_all) / T_all, %; > 0: slower)."""
    rows = rows.with_columns(pl.col("connection").str.replace(r"\.[^.]*$", "").alias("class"))
    by = ["size_kb", "x", "scheme"]
    per = with_std(summarize(rows, by + ["class"])).join(_extras(rows, by + ["class"]), on=by + ["class"], how="left")
    pooled = with_std(summarize(rows, by)).join(_extras(rows, by), on=by, how="left").with_columns(
        pl.lit("all").alias("class"))
    s = pl.concat([per.select(by + ["class"] + _COLS), pooled.select(by + ["class"] + _COLS)])
    s = s.with_columns(
        pl.when((pl.col("scheme") == "mixed") & (pl.col("class") == "a")).then(pl.lit("spand"))
        .when((pl.col("scheme") == "mixed") & (pl.col("class") == "all")).then(pl.lit("spand+reno-ssr"))
        .otherwise(pl.lit("reno-ssr")).alias("protocol"))
    base = s.filter(pl.col("scheme") == "all-reno-ssr").select("size_kb", "x", "class", pl.col("mean").alias("_base"))
    s = s.join(base, on=["size_kb", "x", "class"], how="left")
    rel = [(-reduction(b, m) if sch == "mixed" and reduction(b, m) is not None else None)  # type: ignore[operator]
           for b, m, sch in zip(s["_base"].to_list(), s["mean"].to_list(), s["scheme"].to_list())]
    s = s.with_columns(pl.Series("rel_to_all_reno_ssr_pct", rel, dtype=pl.Float64))
    return s.sort(["size_kb", "x", "scheme", "class"]).select(
        ["size_kb", "x", "scheme", "class", "protocol"] + _COLS + ["rel_to_all_reno_ssr_pct"])
