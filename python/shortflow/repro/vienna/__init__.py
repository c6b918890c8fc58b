"""Reproduction of size-based congestion control, "TCP Vienna" (Ziegler et al.; seed 004,
spec ``fairshare-and-sizebased.md`` part B): Fig. 1 (the throughput model against flow
length) and Fig. 3 (one Vienna flow's model throughput, B_max and parameters against the
segments sent, from ``scenarios/vienna/fig3.toml``), with a claims table: P4's statement,
our number, pass/fail and where the criterion comes from.

    from shortflow.repro import vienna
    report = vienna.run("out/repro-vienna", mode="quick")

Figs. 4-6 (SURGE Web users over a parking lot with 1 and 9 congested hops; mean slowdown,
drop probability, response-time quantiles) are in :mod:`.web`, from
``scenarios/vienna/fig5_n*.toml``. The choices behind every number are in
``scenarios/vienna/common.md``.
"""

from __future__ import annotations

import json
import math
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional

import polars as pl

from ..claims import Claim, Report, write_claims_markdown
from ..jsonsafe import clean_json
from . import web

__all__ = ["run", "Report", "Claim", "MODES"]

#: mode -> (seeds, simulated seconds of Fig. 3)
MODES = {"full": ((1, 2, 3, 4, 5), 400.0), "quick": ((1, 2), 150.0)}

#: Fig. 3 variants: (label, schedule, one-way delay in seconds).
FIG3_VARIANTS = [("literal, 100 ms", "literal", 0.1), ("doubling, 100 ms", "doubling", 0.1),
                 ("doubling, 20 ms", "doubling", 0.02)]


# --- Fig. 1: the model --------------------------------------------------------------

FIG1_SIZES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000]
FIG1_SETTINGS = [(1.0, 0.5), (8.0, 0.9)]


def fig1_table() -> pl.DataFrame:
    """B(alpha, beta, gamma=1, d) at p = 0.1, RTT = 0.2 s, T0 = 0.4 s, IW = 1 (spec B.7.1)."""
    from ...native import core

    c = core()
    rows = []
    for a, b in FIG1_SETTINGS:
        for d in FIG1_SIZES:
            r = c.vienna_throughput(a, b, 1.0, float(d), 0.1, 0.2, 0.4, w1=1.0)
            rows.append({"alpha": a, "beta": b, "d": d, "b": r["b"], "b_max": r["b_max"]})
    return pl.DataFrame(rows)


def fig1_claims(t: pl.DataFrame) -> list[Claim]:
    out = []
    for a, b in FIG1_SETTINGS:
        q = t.filter((pl.col("alpha") == a) & (pl.col("beta") == b)).sort("d")
        bs = q["b"].to_list()
        rising = all(x < y for x, y in zip(bs, bs[1:]))
        last_decade = (bs[-1] - bs[-2]) / bs[-1]
        out.append(Claim(
            id=f"fig1-monotone-{a:g}-{b:g}", figure="Fig. 1",
            paper="throughput rises monotonically with flow length and saturates",
            measured=(f"(α, β) = ({a:g}, {b:g}): B from {bs[0]:.2f} to {bs[-1]:.2f} seg/s over d = 1..50,000; "
                      f"{'rising everywhere' if rising else 'not monotone'}; last step (20,000 -> 50,000) adds "
                      f"{100 * last_decade:.1f} %"),
            rule="strictly increasing on the grid, and the last step adds < 2 %", passed=rising and last_decade < 0.02,
            source="ours"))
    return out


# --- Fig. 3: one Vienna flow ----------------------------------------------------------

def _scenario(schedule: str, delay_s: float, duration_s: float):
    import copy

    from ...scenario import Scenario, load
    from ..paths import find_scenario_dir

    base = load(find_scenario_dir("vienna", "fig3.toml", "SHORTFLOW_VIENNA_SCENARIOS") / "fig3.toml")
    raw = copy.deepcopy(base.raw)
    raw["duration"] = f"{duration_s:g}s"
    raw["topology"]["links"][0]["delay"] = f"{delay_s * 1000:g}ms"
    raw["flows"][0]["tcp"]["cc"]["schedule"] = schedule
    return Scenario.from_dict(raw, source=base.source)


def fig3_table(seeds: tuple[int, ...], duration_s: float, log: Callable[[str], None]) -> pl.DataFrame:
    """Every decision of the Vienna flow, per variant and seed."""
    frames = []
    for label, schedule, delay in FIG3_VARIANTS:
        sc = _scenario(schedule, delay, duration_s)
        for seed in seeds:
            r = sc.simulate(seed=seed)
            d = r.cc_decisions()
            frames.append(d.with_columns(pl.lit(label).alias("variant"), pl.lit(schedule).alias("schedule"),
                                         pl.lit(delay).alias("delay_s"), pl.lit(seed).alias("seed")))
        log(f"fig3 {label}: {len(seeds)} runs")
    return pl.concat(frames, how="diagonal_relaxed")


def _is(params: tuple[float, float, float], row: dict[str, Any]) -> bool:
    return (row["alpha"], row["beta"], row["gamma"]) == params


def fig3_claims(t: pl.DataFrame) -> list[Claim]:
    out: list[Claim] = []
    bounds, reno = (8.0, 0.9, 2.0), (1.0, 0.5, 1.0)
    for label, schedule, delay in FIG3_VARIANTS:
        q = t.filter(pl.col("variant") == label)
        seeds = sorted(set(q["seed"].to_list()))
        early = [r for r in q.iter_rows(named=True) if r["sent"] < 50 and r["sent"] > 0]
        at_bounds = [r for r in early if _is(bounds, r)]
        below = [r for r in at_bounds if r["model_b"] < r["model_b_max"]]
        if delay == 0.1:
            out.append(Claim(
                id=f"fig3-early-{schedule}", figure="Fig. 3",
                paper="at the start the parameters sit at their bounds (8, 0.9, 2), yet B < B_max for N < 50",
                measured=(f"{label}: {len(early)} evaluations with 0 < N < 50 over {len(seeds)} seeds; "
                          f"{len(at_bounds)} at the bounds, {len(below)} of those with B < B_max"
                          + ("" if early else " (no loss before N = 11: p = 0, nothing evaluated until N = 611)")),
                rule="at least one evaluation with 0 < N < 50, all at the bounds with B < B_max",
                passed=(bool(early) and len(below) == len(early)) if early else None,
                source="paper",
                note="" if early else "not evaluable with the literal schedule (spec B.11 item 3)"))
        finals, conv = [], []
        for s in seeds:
            rows = q.filter(pl.col("seed") == s).sort("decision").to_dicts()
            last = rows[-1]
            finals.append(_is(reno, last))
            if last["model_b_max"] and math.isfinite(last["model_b_max"]):
                conv.append(abs(last["model_b"] - last["model_b_max"]) / last["model_b_max"])
        if delay == 0.1:
            out.append(Claim(
                id=f"fig3-converge-{schedule}", figure="Fig. 3",
                paper="B then converges to B_max and the parameters fall to (1, 0.5, 1)",
                measured=(f"{label}: last decision at (1, 0.5, 1) in {sum(finals)}/{len(finals)} seeds; "
                          f"|B - B_max| / B_max at the last decision: max {100 * max(conv, default=float('nan')):.1f} %"),
                rule="every seed ends at (1, 0.5, 1) with B within 5 % of B_max",
                passed=all(finals) and bool(conv) and max(conv) < 0.05, source="ours"))
    # Shorter propagation delay: parameters fall later (N at the first decision with
    # α and β at their minimum; γ may still alternate between 1 and 2 there).
    def first_reno(label: str) -> list[float]:
        q = t.filter(pl.col("variant") == label)
        out_n = []
        for s in sorted(set(q["seed"].to_list())):
            rows = [r for r in q.filter(pl.col("seed") == s).sort("decision").iter_rows(named=True)
                    if (r["alpha"], r["beta"]) == (1.0, 0.5)]
            out_n.append(rows[0]["sent"] if rows else float("inf"))
        return out_n
    long_n, short_n = first_reno("doubling, 100 ms"), first_reno("doubling, 20 ms")
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    out.append(Claim(
        id="fig3-shorter-delay-later", figure="Fig. 3",
        paper="with shorter propagation delay the parameters fall less steeply and later",
        measured=(f"doubling schedule: N at the first α = 1, β = 0.5 per seed: 100 ms {long_n}, 20 ms {short_n} "
                  f"(medians {med(long_n):g} vs {med(short_n):g})"),
        rule="median N at the first α = 1, β = 0.5 larger at 20 ms than at 100 ms",
        passed=med(short_n) > med(long_n), source="ours"))
    return out


def _plot_fig1(t: pl.DataFrame, path: Path, note: str) -> Path:
    from ...mpl import pyplot, save

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2), dpi=100)
    for a, b in FIG1_SETTINGS:
        q = t.filter((pl.col("alpha") == a) & (pl.col("beta") == b)).sort("d")
        ax.plot(q["d"].to_list(), q["b"].to_list(), marker="o", ms=3, label=f"(α, β) = ({a:g}, {b:g})")
    ax.set_xscale("log")
    ax.set_xlabel("flow length d (segments)")
    ax.set_ylabel("model throughput B (segments/s)")
    ax.set_title("P4 Fig. 1: B vs flow length (p = 0.1, RTT = 0.2 s, γ = 1, IW = 1)" + (f" [{note}]" if note else ""),
                 fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, path)


def _plot_fig3(t: pl.DataFrame, path: Path, note: str) -> Path:
    from ...mpl import pyplot, save

    plt = pyplot()
    variants = [v for v, _, _ in FIG3_VARIANTS]
    fig, axes = plt.subplots(2, len(variants), figsize=(5 * len(variants), 7), dpi=100, squeeze=False)
    for k, label in enumerate(variants):
        q = t.filter((pl.col("variant") == label) & (pl.col("seed") == t["seed"].min())).sort("decision")
        ev = q.filter(pl.col("sent") > 0)
        ax = axes[0][k]
        ax.step(ev["sent"].to_list(), ev["model_b"].to_list(), where="post", label="B (current parameters)")
        ax.step(ev["sent"].to_list(), ev["model_b_max"].to_list(), where="post", label="B_max", ls="--")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("segments sent N")
        ax.set_ylabel("packets/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax = axes[1][k]
        for m, style in (("alpha", "-"), ("beta", "--"), ("gamma", ":")):
            ax.step(q["sent"].to_list(), q[m].to_list(), where="post", ls=style, label=m)
        ax.set_xlabel("segments sent N")
        ax.set_ylabel("parameter")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("P4 Fig. 3: one TCP Vienna flow, 10 Mb/s, p = 0.025 (first seed)" + (f" [{note}]" if note else ""),
                 fontsize=10)
    return save(fig, path)


def run(out: str | Path, mode: str = "full", *, log: Optional[Callable[[str], None]] = None) -> Report:
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: use one of {', '.join(MODES)}")
    t0 = time.perf_counter()
    say = log or (lambda _m: None)
    seeds, duration = MODES[mode]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    note = "" if mode == "full" else f"{mode} mode"
    files = []
    t1 = fig1_table()
    t1.write_csv(out / "fig1.csv")
    files += ["fig1.csv", _plot_fig1(t1, out / "fig1.png", "").name]
    t3 = fig3_table(seeds, duration, say)
    t3.write_csv(out / "fig3.csv")
    files += ["fig3.csv", _plot_fig3(t3, out / "fig3.png", note).name]
    claims = fig1_claims(t1) + fig3_claims(t3)
    # Figs. 4-6: SURGE Web users over the parking lot.
    ws = web.WEB_MODES[mode]
    runs, times = web.web_tables(mode, say)
    t5 = web.fig5_table(runs, times)
    runs.write_csv(out / "web_runs.csv")
    t5.write_csv(out / "fig5.csv")
    n6, u6 = ws["fig6"]
    qt = web.quantile_table(times, n6, u6)
    qt.write_csv(out / "fig6_quantiles.csv")
    files += ["web_runs.csv", "fig5.csv", "fig6_quantiles.csv",
              web.plot_fig5(t5, out / "fig5.png", note).name,
              web.plot_fig6(t5, qt, n6, u6, out / "fig6.png", note).name]
    claims += web.fig5_claims(t5, Claim) + web.fig6_drop_claims(t5, Claim)
    claims += web.fig6_quantile_claims(qt, n6, u6, Claim)
    rep = Report(mode, out, claims, files, 0.0, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 {"seeds": list(seeds), "fig3_duration_s": duration,
                  "fig3_variants": [{"label": v, "schedule": s, "delay_s": d} for v, s, d in FIG3_VARIANTS],
                  "web": {"fig6": list(ws["fig6"]), "ablation": {"variants": list(web.ABLATION),
                                                                   "hops": list(ws["ablation_hops"])},
                          "hops": {str(n): {"users": list(u), "duration_s": d, "warmup_s": w, "seeds": list(sd)}
                                   for n, (u, d, w, sd) in ws["hops"].items()}}})
    rep.wall_s = time.perf_counter() - t0
    (out / "claims.json").write_text(json.dumps(clean_json(rep.to_dict()), indent=2) + "\n", encoding="utf-8")
    write_claims_markdown(rep, out / "claims.md",
                          title="TCP Vienna claims",
                          name="vienna", source="P4", no_verdict="–")
    return rep
