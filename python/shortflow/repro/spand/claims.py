"""The paper's claims (spec §4.1, §4.3, §6.6) as checks on the per-figure tables.

Every check reports a **strict** verdict (the statement read literally, with the
operationalisation given in ``criterion``) and a **tolerant** one (``pass``), and says
where its criterion's number comes from (``source``): ``paper`` when the paper states it
(Fig. 10 > 50 % / > 20 %, Fig. 12 35–65 % / 25–50 %, Fig. 14 30–65 % / 25–55 %, §6.6's
ranges and 4 KB), ``ours`` when we chose a threshold for a prose claim ("virtually the
same", "much higher", "clearly", "similar", "flat", orderings). Tolerant verdicts widen
**only paper numbers**, by the ±10 percentage points that spec §6 item 9 allows; an
``ours`` criterion is never widened, and its tolerant verdict equals the strict one except
that an ordering of two means ("A < B") also holds when their 95% confidence intervals
across seeds overlap (the difference is not significant; no number is moved). "Most
cases" means more than half of the x values. Nothing here changes a simulation: a claim
that fails is reported as failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import median
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

import polars as pl

from .aggregate import reduction

__all__ = ["Claim", "TOL_PP", "SOURCES", "evaluate_all", "fig5_claims"]

#: spec §6 item 9: numeric ranges hold "within a tolerance of about ±10 percentage points"
TOL_PP = 10.0
SSR = ["reno-ssr", "newreno-ssr"]
NSSR = ["reno-nssr", "newreno-nssr"]
BASELINES = SSR + NSSR
MOST = "more than half of the x values ('most cases')"
#: the criterion sources a claim may have
SOURCES = ("paper", "ours")
SAME = "Tolerant: the same as strict (our threshold for a prose claim; only paper numbers are widened)."


@dataclass
class Claim:
    id: str
    figure: str
    paper: str
    criterion: str
    measured: dict[str, Any]
    strict_pass: Optional[bool]
    passed: Optional[bool]
    summary: str = ""
    notes: list[str] = field(default_factory=list)
    #: where the criterion's number comes from: "paper" (widened by TOL_PP in the tolerant
    #: verdict) or "ours" (never widened)
    source: str = "ours"

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"claim {self.id}: source = {self.source!r}; use one of {', '.join(SOURCES)}")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "figure": self.figure, "paper": self.paper, "measured": self.measured,
                "summary": self.summary, "criterion": self.criterion, "criterion_source": self.source,
                "pass": self.passed, "strict_pass": self.strict_pass, "notes": self.notes}


# --- small helpers ---------------------------------------------------------------------


def _r(v: Optional[float], nd: int = 1) -> Optional[float]:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else round(float(v), nd)


def _xs(s: pl.DataFrame) -> list[float]:
    return sorted(set(s["x"].to_list()))


def _xk(x: float) -> str:
    return f"{x:g}"


def _cell(s: pl.DataFrame, x: float, scheme: str) -> tuple[Optional[float], float]:
    """(mean, ci95 or 0) of one point of a scheme table."""
    part = s.filter((pl.col("x") == x) & (pl.col("scheme") == scheme))
    if not part.height:
        return None, 0.0
    ci = part["ci95"][0]
    return part["mean"][0], (ci if ci is not None and not math.isnan(ci) else 0.0)


def _reds(s: pl.DataFrame, base: str) -> dict[float, Optional[float]]:
    return {x: reduction(_cell(s, x, base)[0], _cell(s, x, "spand")[0]) for x in _xs(s)}


def _lt(a: tuple[Optional[float], float], b: tuple[Optional[float], float], tolerant: bool) -> bool:
    """a < b on means; tolerant: also when the 95% CIs overlap."""
    if a[0] is None or b[0] is None:
        return False
    return a[0] - a[1] <= b[0] + b[1] if tolerant else a[0] < b[0]


def _quant(frac: float, quantifier: str) -> bool:
    return frac > 0.5 if quantifier == "most" else frac >= 1.0 - 1e-12


def _frac(vals: Iterable[bool]) -> float:
    v = list(vals)
    return sum(v) / len(v) if v else 0.0


def _spearman(xs: Sequence[float], ys: Sequence[Optional[float]]) -> Optional[float]:
    pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
    if len(pts) < 3:
        return None
    df = pl.DataFrame({"x": [p[0] for p in pts], "y": [p[1] for p in pts]})
    v = df.select(pl.corr("x", "y", method="spearman")).item()
    return None if v is None or math.isnan(v) else float(v)


def _redmap(d: Mapping[float, Optional[float]]) -> dict[str, Optional[float]]:
    return {_xk(x): _r(v) for x, v in d.items()}


# --- claim builders on one scheme table (Figs. 10-17) -------------------------------------


def reduction_bound(cid: str, fig: str, paper: str, s: pl.DataFrame, baselines: Sequence[str], lo: float,
                    hi: Optional[float] = None, quantifier: str = "most") -> Claim:
    """SPAND's reduction versus each baseline is > lo (or within [lo, hi]) at most/all x."""
    per: dict[str, Any] = {}
    strict_ok, tol_ok, parts = True, True, []
    for b in baselines:
        reds = _reds(s, b)
        def inside(v: Optional[float], widen: float) -> bool:
            return v is not None and v > lo - widen if hi is None else (v is not None and lo - widen <= v <= hi + widen)
        fs = _frac(inside(v, 0) for v in reds.values())
        ft = _frac(inside(v, TOL_PP) for v in reds.values())
        strict_ok &= _quant(fs, quantifier)
        tol_ok &= _quant(ft, quantifier)
        vals = [v for v in reds.values() if v is not None]
        per[b] = {"reduction_pct": _redmap(reds), "fraction_strict": _r(fs, 3), "fraction_tolerant": _r(ft, 3)}
        parts.append(f"{b}: {sum(inside(v, 0) for v in reds.values())}/{len(reds)} x in bound"
                     + (f" ({min(vals):.0f}…{max(vals):.0f}%)" if vals else ""))
    bound = f"> {lo:g}%" if hi is None else f"in [{lo:g}%, {hi:g}%]"
    tbound = f"> {lo - TOL_PP:g}%" if hi is None else f"in [{lo - TOL_PP:g}%, {hi + TOL_PP:g}%]"
    where = MOST if quantifier == "most" else "every x value"
    crit = (f"For each of {', '.join(baselines)}: reduction (T_base − T_spand)/T_base of the mean completion times "
            f"{bound} at {where}. Tolerant: bound widened by {TOL_PP:g} pp to {tbound}.")
    return Claim(cid, fig, paper, crit, {"per_baseline": per}, strict_ok, tol_ok, "; ".join(parts), source="paper")


def spand_lowest(cid: str, fig: str, paper: str, s: pl.DataFrame, baselines: Sequence[str] = BASELINES,
                 quantifier: str = "all") -> Claim:
    pairs_s, pairs_t, losses = [], [], []
    for x in _xs(s):
        sp = _cell(s, x, "spand")
        for b in baselines:
            bc = _cell(s, x, b)
            pairs_s.append(_lt(sp, bc, False))
            pairs_t.append(_lt(sp, bc, True))
            if not pairs_s[-1]:
                losses.append({"x": _xk(x), "baseline": b, "spand": _r(sp[0], 4), "baseline_mean": _r(bc[0], 4),
                               "within_ci": pairs_t[-1]})
    fs, ft = _frac(pairs_s), _frac(pairs_t)
    where = "every" if quantifier == "all" else "more than half of the"
    crit = (f"T_spand < T_base for {where} (x, baseline) pair over {len(_xs(s))} x values and {len(baselines)} "
            "baselines (means over seeds). Tolerant: a pair also counts when the two 95% CIs overlap.")
    summ = f"SPAND lowest in {sum(pairs_s)}/{len(pairs_s)} pairs ({sum(pairs_t)}/{len(pairs_t)} within CI)"
    return Claim(cid, fig, paper, crit, {"fraction_strict": _r(fs, 3), "fraction_tolerant": _r(ft, 3),
                                         "pairs": len(pairs_s), "not_lower": losses},
                 _quant(fs, quantifier), _quant(ft, quantifier), summ)


def ordering(cid: str, fig: str, paper: str, s: pl.DataFrame) -> Claim:
    """SPAND < nssr < ssr for both Reno and NewReno, at most x."""
    res: dict[str, Any] = {}
    oks, okt = [], []
    for x in _xs(s):
        sp = _cell(s, x, "spand")
        chain_s = chain_t = True
        for v in ("reno", "newreno"):
            n, ss = _cell(s, x, f"{v}-nssr"), _cell(s, x, f"{v}-ssr")
            chain_s &= _lt(sp, n, False) and _lt(n, ss, False)
            chain_t &= _lt(sp, n, True) and _lt(n, ss, True)
        oks.append(chain_s)
        okt.append(chain_t)
        res[_xk(x)] = {"holds": chain_s, "holds_within_ci": chain_t,
                       **{k: _r(_cell(s, x, k)[0], 4) for k in ["spand", *NSSR, *SSR]}}
    fs, ft = _frac(oks), _frac(okt)
    crit = ("At each x: T_spand < T_reno-nssr < T_reno-ssr and T_spand < T_newreno-nssr < T_newreno-ssr (means). "
            f"Holds at {MOST}. Tolerant: an inequality also holds when the two 95% CIs overlap.")
    return Claim(cid, fig, paper, crit, {"per_x": res, "fraction_strict": _r(fs, 3), "fraction_tolerant": _r(ft, 3)},
                 _quant(fs, "most"), _quant(ft, "most"), f"ordering holds at {sum(oks)}/{len(oks)} x "
                 f"({sum(okt)}/{len(okt)} within CI)")


def shrinking(cid: str, fig: str, paper: str, s: pl.DataFrame) -> Claim:
    xs = _xs(s)
    per, strict_ok = {}, True
    avg: list[Optional[float]] = []
    reds = {b: _reds(s, b) for b in BASELINES}
    for x in xs:
        vals = [reds[b][x] for b in BASELINES if reds[b][x] is not None]
        avg.append(sum(vals) / len(vals) if vals else None)
    for b in BASELINES:
        ys = [reds[b][x] for x in xs]
        rho = _spearman(xs, ys)
        down = ys[0] is not None and ys[-1] is not None and ys[-1] < ys[0]
        strict_ok &= rho is not None and rho < 0 and down
        per[b] = {"spearman_rho": _r(rho, 3), "reduction_pct": _redmap(reds[b]), "last_below_first": down}
    rho_avg = _spearman(xs, avg)
    avg_ok = rho_avg is not None and rho_avg < 0 and avg[0] is not None and avg[-1] is not None and avg[-1] < avg[0]
    crit = ("The reduction decreases with F: Spearman ρ(F, reduction) < 0 and reduction at the largest F < at the "
            "smallest F, for each of the four baselines. " + SAME)
    summ = (f"avg reduction {_r(avg[0])}% at F={_xk(xs[0])} KB → {_r(avg[-1])}% at F={_xk(xs[-1])} KB, ρ={_r(rho_avg, 2)}"
            if xs else "no data")
    return Claim(cid, fig, paper, crit, {"per_baseline": per, "avg_reduction_pct": dict(zip(map(_xk, xs), map(_r, avg))),
                                         "spearman_rho_avg": _r(rho_avg, 3), "holds_for_average": avg_ok},
                 strict_ok, strict_ok, summ)


# --- claims across two figures -------------------------------------------------------------


def _mean_red(s: pl.DataFrame, x: float) -> Optional[float]:
    vals = [v for v in (reduction(_cell(s, x, b)[0], _cell(s, x, "spand")[0]) for b in BASELINES) if v is not None]
    return sum(vals) / len(vals) if vals else None


def much_higher(cid: str, fig: str, paper: str, hi: pl.DataFrame, lo: pl.DataFrame, hi_name: str, lo_name: str,
                min_increase_pct: float = 50.0) -> Claim:
    common = sorted(set(_xs(hi)) & set(_xs(lo)))
    ratios, hs, ht = [], [], []
    for x in common:
        for sch in [*BASELINES, "spand"]:
            a, b = _cell(hi, x, sch), _cell(lo, x, sch)
            if a[0] is None or b[0] is None:
                continue
            ratios.append(a[0] / b[0])
            hs.append(_lt(b, a, False))
            ht.append(_lt(b, a, True))
    inc = (median(ratios) - 1) * 100 if ratios else None
    strict_ok = bool(ratios) and all(hs) and inc is not None and inc >= min_increase_pct
    tol_ok = bool(ratios) and all(ht) and inc is not None and inc >= min_increase_pct
    crit = (f"At every common (x, scheme) point, T({hi_name}) > T({lo_name}), and the median increase is ≥ "
            f"{min_increase_pct:g}% ('much higher', our threshold). Tolerant: a point also counts when the CIs overlap; "
            f"the {min_increase_pct:g}% is ours and is not widened.")
    return Claim(cid, fig, paper, crit, {"points": len(ratios), "higher_strict": sum(hs), "higher_within_ci": sum(ht),
                                         "median_increase_pct": _r(inc), "min_ratio": _r(min(ratios), 3) if ratios else None,
                                         "max_ratio": _r(max(ratios), 3) if ratios else None},
                 strict_ok, tol_ok, f"higher at {sum(hs)}/{len(ratios)} points, median +{_r(inc)}%")


def smaller_improvement(cid: str, fig: str, paper: str, a: pl.DataFrame, b: pl.DataFrame, a_name: str,
                        b_name: str) -> Claim:
    """SPAND's reduction (averaged over the four baselines) is smaller in ``a`` than in ``b``."""
    common = sorted(set(_xs(a)) & set(_xs(b)))
    ra = {x: _mean_red(a, x) for x in common}
    rb = {x: _mean_red(b, x) for x in common}
    ok = [x for x in common if ra[x] is not None and rb[x] is not None]
    ma = sum(ra[x] for x in ok) / len(ok) if ok else None  # type: ignore[misc]
    mb = sum(rb[x] for x in ok) / len(ok) if ok else None  # type: ignore[misc]

    def verdict(widen: float) -> bool:
        if not ok or ma is None or mb is None:
            return False
        return ma < mb + widen and _frac(ra[x] < rb[x] + widen for x in ok) > 0.5  # type: ignore[operator]

    crit = (f"Reduction averaged over the four baselines: its mean over the common x values is lower in {a_name} than in "
            f"{b_name}, and it is lower at {MOST}. " + SAME)
    return Claim(cid, fig, paper, crit, {f"avg_reduction_pct_{a_name}": {_xk(x): _r(ra[x]) for x in common},
                                         f"avg_reduction_pct_{b_name}": {_xk(x): _r(rb[x]) for x in common},
                                         f"mean_{a_name}": _r(ma), f"mean_{b_name}": _r(mb)},
                 verdict(0.0), verdict(0.0), f"mean reduction {_r(ma)}% ({a_name}) vs {_r(mb)}% ({b_name})")


def similar_improvement(cid: str, fig: str, paper: str, a: pl.DataFrame, b: pl.DataFrame, a_name: str,
                        b_name: str, within_pp: float = 10.0) -> Claim:
    common = sorted(set(_xs(a)) & set(_xs(b)))
    per, diffs = {}, []
    for base in BASELINES:
        va = [v for v in (_reds(a, base)[x] for x in common) if v is not None]
        vb = [v for v in (_reds(b, base)[x] for x in common) if v is not None]
        ma = sum(va) / len(va) if va else None
        mb = sum(vb) / len(vb) if vb else None
        d = (ma - mb) if ma is not None and mb is not None else None
        diffs.append(d)
        per[base] = {f"mean_reduction_{a_name}": _r(ma), f"mean_reduction_{b_name}": _r(mb), "diff_pp": _r(d)}
    strict_ok = all(d is not None and abs(d) <= within_pp for d in diffs)
    tol_ok = strict_ok
    crit = (f"For each baseline, SPAND's reduction averaged over the common x values differs between {a_name} and "
            f"{b_name} by at most {within_pp:g} pp ('similar'). " + SAME)
    worst = max((abs(d) for d in diffs if d is not None), default=None)
    return Claim(cid, fig, paper, crit, {"per_baseline": per}, strict_ok, tol_ok, f"largest difference {_r(worst)} pp")


# --- Figs. 18-19 -------------------------------------------------------------------------------


def _friend_rows(f: pl.DataFrame, cls: str) -> list[dict[str, Any]]:
    mixed = f.filter((pl.col("scheme") == "mixed") & (pl.col("class") == cls))
    return [r for r in mixed.iter_rows(named=True)]


def friendliness_bound(cid: str, fig: str, paper: str, f: pl.DataFrame, cls: str, bound_pct: float,
                       mode: str) -> Claim:
    """``mode``: ``abs`` |rel| ≤ bound (about the same), ``up`` rel ≤ bound (no degradation),
    ``down`` rel ≤ −bound (clearly faster); rel = (T_mixed − T_all)/T_all in % for one class."""
    rows = _friend_rows(f, cls)
    def ok(rel: Optional[float], widen: float) -> bool:
        if rel is None:
            return False
        if mode == "abs":
            return abs(rel) <= bound_pct + widen
        if mode == "up":
            return rel <= bound_pct + widen
        return rel <= -bound_pct + widen
    rels = {f"F={r['size_kb']:g}KB,N={r['x']:g}": _r(r["rel_to_all_reno_ssr_pct"]) for r in rows}
    vs = [r["rel_to_all_reno_ssr_pct"] for r in rows]
    strict_ok = bool(vs) and all(ok(v, 0) for v in vs)
    what = {"abs": f"|rel| ≤ {bound_pct:g}%", "up": f"rel ≤ +{bound_pct:g}%", "down": f"rel ≤ −{bound_pct:g}%"}[mode]
    proto = "TCP/SPAND (class a)" if cls == "a" else "reno-ssr (class b)"
    crit = (f"rel = (T_mixed − T_all-reno-ssr)/T_all-reno-ssr of the mean completion time of {proto}, compared with the "
            f"same class when all connections are reno-ssr; {what} at every (F, N) point. " + SAME)
    vals = [v for v in vs if v is not None]
    summ = f"rel {min(vals):+.0f}…{max(vals):+.0f}% over {len(vals)} points" if vals else "no data"
    return Claim(cid, fig, paper, crit, {"rel_pct": rels, "within_bound_plus_10pp": bool(vs) and all(ok(v, TOL_PP) for v in vs)},
                 strict_ok, strict_ok, summ)


# --- Fig. 5 ------------------------------------------------------------------------------------


def fig5_claims(df: pl.DataFrame) -> list[Claim]:
    out = []
    viol = df.filter(pl.col("cwnd_shift") > pl.col("W_c"))
    out.append(Claim("fig5-i", "Fig. 5", "The shifted cwnd_opt never exceeds y = x (cwnd_opt ≤ W_c).",
                     "cwnd_opt (with shift) ≤ W_c for every W_c = 1..40, b = 1 and b = 2 (exact; no tolerance needed).",
                     {"violations": viol.height, "points": df.height}, viol.height == 0, viol.height == 0,
                     f"{viol.height} of {df.height} points above y = x", source="paper"))
    b1 = df.filter((pl.col("b") == 1.0) & (pl.col("W_c") >= 11)).sort("W_c")
    sh, ns = b1["cwnd_shift"].to_list(), b1["cwnd_no_shift"].to_list()
    longest = cur = 1
    for i in range(1, len(sh)):
        cur = cur + 1 if sh[i] == sh[i - 1] else 1
        longest = max(longest, cur)
    distinct_s, distinct_n = len(set(sh)), len(set(ns))
    ok2 = distinct_s <= 3 and longest >= 10
    out.append(Claim("fig5-ii", "Fig. 5", "The shifted curve is flat over wide ranges of W_c, especially for large W_c.",
                     "b = 1, W_c = 11..40: the shifted curve takes at most 3 distinct values and its longest plateau spans "
                     "≥ 10 consecutive W_c values (exact; our thresholds).",
                     {"distinct_shifted": distinct_s, "distinct_unshifted": distinct_n, "longest_plateau": longest,
                      "plateaus": sorted(set(sh))}, ok2, ok2,
                     f"{distinct_s} distinct values (unshifted: {distinct_n}), longest plateau {longest}"))
    b1 = df.filter((pl.col("b") == 1.0) & (pl.col("W_c") >= 10)).sort("W_c")
    wcs = b1["W_c"].to_list()
    dev = [abs(n - (w - 1)) for w, n in zip(wcs, b1["cwnd_no_shift"].to_list())]
    within = _frac(d <= 1 for d in dev)
    out.append(Claim("fig5-iii", "Fig. 5", "The unshifted curve follows y ≈ x − 1.",
                     "b = 1, W_c = 10..40: |cwnd_opt(no shift) − (W_c − 1)| ≤ 1 at every W_c (our reading of '≈'). "
                     + SAME,
                     {"max_abs_deviation": max(dev), "fraction_within_1": _r(within, 3), "points": len(dev),
                      "deviating_W_c": {str(w): d for w, d in zip(wcs, dev) if d > 1}},
                     within >= 1.0, within >= 1.0,
                     f"within ±1 of x − 1 at {sum(d <= 1 for d in dev)}/{len(dev)} W_c (max deviation {max(dev)})"))
    return out


# --- all claims --------------------------------------------------------------------------------

#: id -> (figures needed, paper statement); the order is the report's order.
PAPER = {
    "fig10-ssr": "vs reno-ssr and newreno-ssr, TCP/SPAND cuts average completion time by > 50% in most cases.",
    "fig10-nssr": "vs reno-nssr and newreno-nssr, TCP/SPAND cuts average completion time by > 20% in most cases.",
    "fig10-order": "nssr variants are worse than SPAND but better than ssr: SPAND < nssr < ssr at most N [derived].",
    "fig11-lowest": "SPAND is lowest across the whole F range.",
    "fig11-shrink": "The relative improvement shrinks as F grows (slow start matters most for small transfers).",
    "fig12-ssr": "Reduction vs ssr: 35%–65%.",
    "fig12-nssr": "Reduction vs nssr: about 25%–50%.",
    "fig13-lowest": "SPAND lowest over the whole range of sizes.",
    "fig14-ssr": "Multi-bottleneck: reduction 30%–65% vs ssr.",
    "fig14-nssr": "Multi-bottleneck: reduction 25%–55% vs nssr.",
    "fig15-lowest": "An improvement similar to Fig. 13: SPAND lowest over the whole range of sizes.",
    "fig15-similar": "An improvement similar to Fig. 13.",
    "fig16-higher": "Completion times for all schemes are much higher than in Fig. 14 (heavily congested path).",
    "fig16-best": "SPAND is still the best everywhere.",
    "fig16-smaller": "The improvement is smaller than in Fig. 14 (the initial window matters less under heavy congestion).",
    "fig17-best": "Same qualitative result as Fig. 16: SPAND best everywhere.",
    "fig17-higher": "Same qualitative result as Fig. 16: much higher completion times than the 12 Kb/s case (Fig. 15).",
    "fig17-smaller": "Same qualitative result as Fig. 16: smaller improvement than the 12 Kb/s case (Fig. 15).",
    "fig18-renossr": "reno-ssr's completion time when mixed with SPAND is virtually the same as when all are reno-ssr.",
    "fig18-spand": "SPAND performs about the same as reno-ssr (J = 0.1 s: tiny W_c share, cwnd_opt ≈ 1).",
    "fig19-spand": "SPAND clearly beats reno-ssr (reno-ssr with a 200 ms tick).",
    "fig19-renossr": "reno-ssr shows almost no degradation when mixed with SPAND.",
    "g-beats-all": "§6.6: SPAND beats all four baselines in every scenario, incl. multiple heavily congested bottlenecks.",
    "g-gain": "§6.6: the gain is largest when each connection's W_c share is large: 35%–65% vs ssr, 20%–50% vs nssr.",
    "g-no-harm": "§6.6: no harm to unmodified TCP.",
    "g-conservative": "§6.6: when the W_c share is below 4 packets, SPAND's initial window is more conservative than "
                      "RFC 2414's (≈ 4 KB), because cwnd_opt ≤ W_c.",
    "g-attribution": "§6.6: the gains come from (1) accurate shared estimates, (2) the optimal, shift-conservative "
                     "cwnd and (3) pacing.",
}
NEEDS: dict[str, tuple[int, ...]] = {
    "fig10-ssr": (10,), "fig10-nssr": (10,), "fig10-order": (10,), "fig11-lowest": (11,), "fig11-shrink": (11,),
    "fig12-ssr": (12,), "fig12-nssr": (12,), "fig13-lowest": (13,), "fig14-ssr": (14,), "fig14-nssr": (14,),
    "fig15-lowest": (15,), "fig15-similar": (13, 15), "fig16-higher": (14, 16), "fig16-best": (16,),
    "fig16-smaller": (14, 16), "fig17-best": (17,), "fig17-higher": (15, 17), "fig17-smaller": (15, 17),
    "fig18-renossr": (18,), "fig18-spand": (18,), "fig19-spand": (19,), "fig19-renossr": (19,),
    "g-beats-all": (10, 11, 12, 13, 14, 15, 16, 17), "g-gain": (10, 12, 14), "g-no-harm": (18, 19),
    "g-conservative": (10, 11, 12, 13, 14, 15, 16, 17, 18, 19), "g-attribution": (10, 11, 12, 13, 14, 15, 16, 17),
}


def evaluate_all(tables: Mapping[int, pl.DataFrame], diagnostics: Optional[Mapping[int, list[dict[str, Any]]]] = None,
                 ) -> tuple[list[Claim], list[dict[str, Any]]]:
    """Every claim whose figures are in ``tables`` (fig -> scheme or friendliness table);
    the others are returned as skipped (id, paper, missing figures)."""
    t = tables
    diagnostics = diagnostics or {}
    builders: dict[str, Callable[[], Claim]] = {
        "fig10-ssr": lambda: reduction_bound("fig10-ssr", "Fig. 10", PAPER["fig10-ssr"], t[10], SSR, 50.0),
        "fig10-nssr": lambda: reduction_bound("fig10-nssr", "Fig. 10", PAPER["fig10-nssr"], t[10], NSSR, 20.0),
        "fig10-order": lambda: ordering("fig10-order", "Fig. 10", PAPER["fig10-order"], t[10]),
        "fig11-lowest": lambda: spand_lowest("fig11-lowest", "Fig. 11", PAPER["fig11-lowest"], t[11]),
        "fig11-shrink": lambda: shrinking("fig11-shrink", "Fig. 11", PAPER["fig11-shrink"], t[11]),
        "fig12-ssr": lambda: reduction_bound("fig12-ssr", "Fig. 12", PAPER["fig12-ssr"], t[12], SSR, 35.0, 65.0, "all"),
        "fig12-nssr": lambda: reduction_bound("fig12-nssr", "Fig. 12", PAPER["fig12-nssr"], t[12], NSSR, 25.0, 50.0, "all"),
        "fig13-lowest": lambda: spand_lowest("fig13-lowest", "Fig. 13", PAPER["fig13-lowest"], t[13]),
        "fig14-ssr": lambda: reduction_bound("fig14-ssr", "Fig. 14", PAPER["fig14-ssr"], t[14], SSR, 30.0, 65.0, "all"),
        "fig14-nssr": lambda: reduction_bound("fig14-nssr", "Fig. 14", PAPER["fig14-nssr"], t[14], NSSR, 25.0, 55.0, "all"),
        "fig15-lowest": lambda: spand_lowest("fig15-lowest", "Fig. 15", PAPER["fig15-lowest"], t[15]),
        "fig15-similar": lambda: similar_improvement("fig15-similar", "Fig. 15 vs 13", PAPER["fig15-similar"], t[15],
                                                     t[13], "fig15", "fig13"),
        "fig16-higher": lambda: much_higher("fig16-higher", "Fig. 16 vs 14", PAPER["fig16-higher"], t[16], t[14],
                                            "fig16", "fig14"),
        "fig16-best": lambda: spand_lowest("fig16-best", "Fig. 16", PAPER["fig16-best"], t[16]),
        "fig16-smaller": lambda: smaller_improvement("fig16-smaller", "Fig. 16 vs 14", PAPER["fig16-smaller"], t[16],
                                                     t[14], "fig16", "fig14"),
        "fig17-best": lambda: spand_lowest("fig17-best", "Fig. 17", PAPER["fig17-best"], t[17]),
        "fig17-higher": lambda: much_higher("fig17-higher", "Fig. 17 vs 15", PAPER["fig17-higher"], t[17], t[15],
                                            "fig17", "fig15"),
        "fig17-smaller": lambda: smaller_improvement("fig17-smaller", "Fig. 17 vs 15", PAPER["fig17-smaller"], t[17],
                                                     t[15], "fig17", "fig15"),
        "fig18-renossr": lambda: friendliness_bound("fig18-renossr", "Fig. 18", PAPER["fig18-renossr"], t[18], "b",
                                                    10.0, "abs"),
        "fig18-spand": lambda: friendliness_bound("fig18-spand", "Fig. 18", PAPER["fig18-spand"], t[18], "a", 10.0,
                                                  "abs"),
        "fig19-spand": lambda: friendliness_bound("fig19-spand", "Fig. 19", PAPER["fig19-spand"], t[19], "a", 10.0,
                                                  "down"),
        "fig19-renossr": lambda: friendliness_bound("fig19-renossr", "Fig. 19", PAPER["fig19-renossr"], t[19], "b",
                                                    10.0, "up"),
        "g-beats-all": lambda: _beats_all(t),
        "g-gain": lambda: _gain(t),
        "g-no-harm": lambda: _no_harm(t),
        "g-conservative": lambda: _conservative(diagnostics),
        "g-attribution": lambda: _attribution(diagnostics),
    }
    claims, skipped = [], []
    for cid, build in builders.items():
        missing = [f for f in NEEDS[cid] if f not in t]
        if cid == "g-conservative":
            missing = [] if diagnostics else list(NEEDS[cid])
        elif cid in ("g-beats-all", "g-attribution"):
            missing = [] if any(f in t for f in NEEDS[cid]) else list(NEEDS[cid])
        if missing:
            skipped.append({"id": cid, "paper": PAPER[cid], "missing_figures": missing})
            continue
        claims.append(build())
    return claims, skipped


def _scheme_figs(t: Mapping[int, pl.DataFrame]) -> list[int]:
    return [f for f in range(10, 18) if f in t]


def _beats_all(t: Mapping[int, pl.DataFrame]) -> Claim:
    figs = _scheme_figs(t)
    sub = [spand_lowest("x", f"Fig. {f}", "", t[f]) for f in figs]
    ns = sum(c.measured["pairs"] * c.measured["fraction_strict"] for c in sub)
    nt = sum(c.measured["pairs"] * c.measured["fraction_tolerant"] for c in sub)
    n = sum(c.measured["pairs"] for c in sub)
    per = {f"fig{f}": c.summary for f, c in zip(figs, sub)}
    crit = (f"Over Figs. {', '.join(map(str, figs))}: T_spand < T_base for every (figure, x, baseline). Tolerant: a pair "
            "also counts when the 95% CIs overlap.")
    return Claim("g-beats-all", "§6.6", PAPER["g-beats-all"], crit,
                 {"per_figure": per, "pairs": n, "lower_strict": round(ns), "lower_within_ci": round(nt),
                  "figures": figs}, all(c.strict_pass for c in sub), all(c.passed for c in sub),
                 f"SPAND lowest in {round(ns)}/{n} pairs ({round(nt)}/{n} within CI)")


def _gain(t: Mapping[int, pl.DataFrame]) -> Claim:
    per, okS, okT = {}, True, True
    for f in (10, 12, 14):
        s = t[f]
        x0 = _xs(s)[0]
        for group, lo, hi in ((SSR, 35.0, 65.0), (NSSR, 20.0, 50.0)):
            for b in group:
                v = reduction(_cell(s, x0, b)[0], _cell(s, x0, "spand")[0])
                okS &= v is not None and lo <= v <= hi
                okT &= v is not None and lo - TOL_PP <= v <= hi + TOL_PP
                per[f"fig{f} N={x0:g} vs {b}"] = _r(v)
    crit = ("At the smallest N (largest W_c share) of Figs. 10, 12 and 14: reduction vs each ssr baseline in "
            "[35%, 65%] and vs each nssr baseline in [20%, 50%]. Tolerant: ranges widened by 10 pp.")
    vals = [v for v in per.values() if v is not None]
    return Claim("g-gain", "§6.6", PAPER["g-gain"], crit, {"reduction_pct": per}, okS, okT,
                 f"reductions at smallest N: {min(vals):.0f}…{max(vals):.0f}%" if vals else "no data", source="paper")


def _no_harm(t: Mapping[int, pl.DataFrame]) -> Claim:
    subs = [friendliness_bound("x", f"Fig. {f}", "", t[f], "b", 10.0, "up") for f in (18, 19)]
    crit = ("Figs. 18 and 19: reno-ssr's mean completion time when mixed with SPAND is at most 10% above the same class "
            "in the all-reno-ssr run, at every (F, N). " + SAME)
    return Claim("g-no-harm", "§6.6", PAPER["g-no-harm"], crit,
                 {"fig18": subs[0].measured["rel_pct"], "fig19": subs[1].measured["rel_pct"]},
                 all(c.strict_pass for c in subs), all(c.passed for c in subs),
                 "; ".join(f"fig{f}: {c.summary}" for f, c in zip((18, 19), subs)))


def _conservative(diag: Mapping[int, list[dict[str, Any]]]) -> Claim:
    small, max_cwnd, le_wc, n = 0, None, True, 0
    for rows in diag.values():
        for r in rows:
            if "cwnd_le_wc" in r:
                n += 1
                le_wc &= bool(r["cwnd_le_wc"])
            if r.get("small_wc_starts"):
                small += int(r["small_wc_starts"])
                m = r.get("small_wc_max_cwnd")
                max_cwnd = m if max_cwnd is None else max(max_cwnd, m)
    ok = le_wc and (max_cwnd is None or max_cwnd < 4)
    crit = ("In the diagnostic runs (first seed, every x of every figure run): every SPAND start has cwnd_opt ≤ "
            "max(1, floor(W_c estimate)), and starts with a W_c estimate < 4 packets use an initial window < 4 packets "
            "(RFC 2414: ≈ 4 KB). Exact check; same verdict strict and tolerant.")
    summ = ((f"{small} starts with W_c < 4, largest initial window {max_cwnd:g}" if small else "no start with W_c < 4")
            + f"; cwnd_opt ≤ W_c in {'all' if le_wc else 'not all'} {n} runs")
    return Claim("g-conservative", "§6.6", PAPER["g-conservative"], crit,
                 {"runs": n, "small_wc_starts": small, "small_wc_max_cwnd": max_cwnd, "cwnd_le_wc_everywhere": le_wc},
                 ok, ok, summ, source="paper")


def _attribution(diag: Mapping[int, list[dict[str, Any]]]) -> Claim:
    est = {}
    for f, rows in sorted(diag.items()):
        for r in rows:
            if r.get("mean_wc_estimate") is not None:
                key = f"fig{f} x={r['x']:g}" + (f" F={r['size_kb']:g}KB" if "size_kb" in r else "")
                est[key] = {"wc_estimate": _r(r["mean_wc_estimate"]), "share_at_concurrency": _r(r.get("share_at_concurrency")),
                            "cwnd_opt": _r(r.get("mean_cwnd_opt")), "pacing_pps": _r(r.get("mean_pacing_rate_pps")),
                            "bottleneck_pps": _r(r.get("bottleneck_pps"))}
    return Claim("g-attribution", "§6.6", PAPER["g-attribution"],
                 "Not testable from completion times alone (it is the paper's explanation); the diagnostics show the "
                 "gateway's W_c estimate next to the path's W_c divided by the measured concurrency, the chosen windows "
                 "and the pacing rate next to the bottleneck rate. No verdict.",
                 {"diagnostics": est}, None, None, "informational (no verdict)")
