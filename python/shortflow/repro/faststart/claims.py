"""The thesis's claims about Fast Start (§8.4, spec A.11), each checked on the summary
tables of the experiments: the thesis's statement, our number, a verdict under a stated
tolerance, and what it was checked against (the thesis text; the ``tcp`` rows could be
checked against ns-2.35 as well, see ``Claim.against``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional

import polars as pl

__all__ = ["Claim", "evaluate_all", "CLAIMS"]

THESIS = "thesis text (ch. 8)"
TCP_ORACLE = ("thesis text (ch. 8); the tcp rows are plain ns-2 NewReno with slow-start restart, the part ns-2.35 "
              "can check (see the report's oracle section)")


@dataclass
class Claim:
    id: str
    figure: str
    thesis: str
    rule: str
    against: str
    passed: Optional[bool] = None
    measured: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "figure": self.figure, "thesis": self.thesis, "rule": self.rule,
                "against": self.against, "pass": self.passed, "measured": self.measured, "values": self.values}


Tables = Mapping[str, pl.DataFrame]


def _mean(t: pl.DataFrame, panel: str, scheme: str, x: Optional[float] = None, group: Optional[str] = None) -> Optional[float]:
    """Mean second-download time of ``scheme`` in ``panel`` at ``x`` (None: averaged over x)."""
    f = t.filter((pl.col("panel") == panel) & (pl.col("scheme") == scheme))
    if group is not None:
        f = f.filter(pl.col("group") == group)
    if x is not None:
        f = f.filter(pl.col("x") == x)
    v = f["mean"].drop_nulls()
    return float(v.mean()) if v.len() else None  # type: ignore[arg-type]


def _xs(t: pl.DataFrame, panel: str) -> list[float]:
    return sorted(set(t.filter(pl.col("panel") == panel)["x"].to_list()))


def _red(base: Optional[float], new: Optional[float]) -> Optional[float]:
    """% reduction of ``new`` against ``base``."""
    if base is None or new is None or base <= 0:
        return None
    return 100.0 * (base - new) / base


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None or b <= 0 else a / b


def _f(v: Optional[float], nd: int = 1, unit: str = "") -> str:
    return "n/a" if v is None else f"{v:.{nd}f}{unit}"


def _reds(t: pl.DataFrame, panel: str, base: str = "tcp", new: str = "fs-pdrop") -> dict[float, Optional[float]]:
    return {x: _red(_mean(t, panel, base, x), _mean(t, panel, new, x)) for x in _xs(t, panel)}


def _avg(vals: Iterable[Optional[float]]) -> Optional[float]:
    """Mean of the values that exist (None if none does)."""
    v = [x for x in vals if x is not None]
    return sum(v) / len(v) if v else None


def _within(v: Optional[float], lo: float, hi: float) -> Optional[bool]:
    return None if v is None else lo <= v <= hi


def _claim(cid: str, fig: str, thesis: str, rule: str, against: str, ok: Optional[bool], measured: str,
           **values: Any) -> Claim:
    return Claim(cid, fig, thesis, rule, against, ok, measured, {k: v for k, v in values.items()})


# --- the claims ---------------------------------------------------------------------------------


def fig8_4(t: Tables) -> list[Claim]:
    s = t.get("fig8_4")
    if s is None:
        return []
    out = []
    r2 = [v for v in _reds(s, "l2").values() if v is not None]
    avg2 = _avg(r2)
    out.append(_claim("8.4a-similar", "Fig. 8.4(a)", "L2 (50 ms), constant load: tcp and fs-pdrop take about the same time",
                      "mean reduction of fs-pdrop vs tcp over N within ±15%", THESIS, _within(avg2, -15, 15),
                      f"fs-pdrop vs tcp: {_f(avg2)}% (per N: {', '.join(_f(v) for v in r2)})", reduction_pct=avg2))
    avgf = _avg(_reds(s, "l2", "fs-pdrop", "fs").values())
    out.append(_claim("8.4a-fs", "Fig. 8.4(a)", "L2: fs only about 15% better than fs-pdrop",
                      "mean reduction of fs vs fs-pdrop in [5, 25]%", THESIS, _within(avgf, 5, 25),
                      f"fs vs fs-pdrop: {_f(avgf)}%", reduction_pct=avgf))
    r3 = _reds(s, "l3")
    vals = [v for v in r3.values() if v is not None]
    inside = [v for v in vals if 20 <= v <= 60]
    out.append(_claim("8.4b-gain", "Fig. 8.4(b)", "L3 (200 ms), constant load: fs-pdrop 30-50% lower time than tcp (1.43-2X)",
                      "reduction in [30, 50]% ±10 pp at two thirds of the N values or more", THESIS,
                      (len(inside) >= 2 * len(vals) / 3) if vals else None,
                      "fs-pdrop vs tcp per N: " + ", ".join(f"N={int(x)}: {_f(v)}%" for x, v in r3.items()),
                      reductions={str(x): v for x, v in r3.items()}))
    avg3 = _avg(_reds(s, "l3", "fs-pdrop", "fs").values())
    out.append(_claim("8.4b-fs", "Fig. 8.4(b)", "L3: fs about 5% better than fs-pdrop",
                      "mean reduction of fs vs fs-pdrop in [-5, 15]%", THESIS, _within(avg3, -5, 15),
                      f"fs vs fs-pdrop: {_f(avg3)}%", reduction_pct=avg3))
    return out


def l4_text(t: Tables) -> list[Claim]:
    s = t.get("l4_text")
    if s is None:
        return []
    tcp, fsp, fs = _mean(s, "l4", "tcp"), _mean(s, "l4", "fs-pdrop"), _mean(s, "l4", "fs")
    ratio = _ratio(tcp, fsp)
    return [
        _claim("8.4-l4-tcp", "§8.4.2.1 text", "L4 (45 Mb/s, 200 ms), any load tried: tcp takes about 2.85 s",
               "tcp within ±25% of 2.85 s", TCP_ORACLE, _within(tcp, 2.85 * 0.75, 2.85 * 1.25), f"tcp {_f(tcp, 2)} s",
               tcp_s=tcp),
        _claim("8.4-l4-3x", "§8.4.2.1 text", "L4: fs and fs-pdrop about 0.96 s, about 3X faster than tcp",
               "tcp / fs-pdrop in [2.4, 3.6]", THESIS, _within(ratio, 2.4, 3.6),
               f"fs-pdrop {_f(fsp, 2)} s, fs {_f(fs, 2)} s, tcp/fs-pdrop {_f(ratio, 2)}X", ratio=ratio, fs_s=fs,
               fs_pdrop_s=fsp),
    ]


def fig8_5(t: Tables) -> list[Claim]:
    s = t.get("fig8_5")
    if s is None:
        return []
    out = []
    xs = _xs(s, "l2")
    ratios = {x: _ratio(_mean(s, "l2", "fs-pdrop", x), _mean(s, "l2", "tcp", x)) for x in xs}
    avg = _avg(ratios.values())
    out.append(_claim("8.5a-pdrop", "Fig. 8.5(a)", "L2, changed load: fs-pdrop about the same as tcp despite many fast-start drops",
                      "fs-pdrop / tcp averaged over N in [0.85, 1.15]", THESIS, _within(avg, 0.85, 1.15),
                      "fs-pdrop/tcp per N: " + ", ".join(f"N={int(x)}: {_f(v, 2)}" for x, v in ratios.items()),
                      ratio=avg))
    nf = {x: _ratio(_mean(s, "l2", "fs-pdrop-noflr", x), _mean(s, "l2", "tcp", x)) for x in xs}
    worst = max((v for v in nf.values() if v is not None), default=None)
    out.append(_claim("8.5a-noflr", "Fig. 8.5(a)", "L2: fs-pdrop-noflr up to 5X worse than tcp",
                      "largest noflr/tcp over N in [2, 6]", THESIS, _within(worst, 2.0, 6.0),
                      f"largest fs-pdrop-noflr/tcp {_f(worst, 2)}X", worst_ratio=worst))
    favg = _avg(_reds(s, "l2", "tcp", "fs").values())
    out.append(_claim("8.5a-fs", "Fig. 8.5(a)", "L2: fs 40-50% better than tcp and fs-pdrop (it pushes losses onto the bulk flows)",
                      "mean reduction of fs vs tcp in [30, 60]%", THESIS, _within(favg, 30, 60),
                      f"fs vs tcp {_f(favg)}%", reduction_pct=favg))
    co = {x: _ratio(_mean(s, "l2", "fs-pdrop-coarse", x), _mean(s, "l2", "tcp", x)) for x in xs}
    cworst = max((v for v in co.values() if v is not None), default=None)
    out.append(_claim("8.5a-coarse", "§8.4.2.2 text", "L2: fs-pdrop with a coarse reset timer at most 1.35X worse than tcp",
                      "largest coarse/tcp over N at most 1.45 (1.35 + 0.1)", THESIS,
                      None if cworst is None else cworst <= 1.45, f"largest coarse/tcp {_f(cworst, 2)}X",
                      worst_ratio=cworst))
    x3 = _xs(s, "l3")
    nf3 = max((v for v in (_ratio(_mean(s, "l3", "fs-pdrop-noflr", x), _mean(s, "l3", "tcp", x)) for x in x3)
               if v is not None), default=None)
    pd3avg = _avg(_ratio(_mean(s, "l3", "fs-pdrop", x), _mean(s, "l3", "tcp", x)) for x in x3)
    ok = None if nf3 is None or worst is None else nf3 <= worst
    out.append(_claim("8.5b-smaller", "Fig. 8.5(b)", "L3 (200 ms), changed load: same ordering, smaller effects",
                      "noflr's worst penalty at L3 no larger than at L2", THESIS, ok,
                      f"largest noflr/tcp L3 {_f(nf3, 2)}X vs L2 {_f(worst, 2)}X; fs-pdrop/tcp at L3 {_f(pd3avg, 2)}",
                      l3_worst_noflr=nf3, l3_pdrop_ratio=pd3avg))
    return out


def fig8_7(t: Tables) -> list[Claim]:
    red, dt = t.get("fig8_7"), t.get("fig8_5")
    if red is None or dt is None:
        return []
    rows, wins = [], 0
    schemes = sorted(set(red["scheme"].to_list()))
    for sch in schemes:
        a, b = _mean(red, "l2", sch), _mean(dt, "l2", sch)
        rows.append(f"{sch}: {_f(a, 2)} vs {_f(b, 2)} s")
        wins += int(a is not None and b is not None and a < b)
    return [_claim("8.7-red", "Fig. 8.7", "RED (ECN marking) gives lower download times across the board than drop-tail (Fig. 8.5(a))",
                   "RED mean below drop-tail mean for at least 4 of the 5 configurations", THESIS,
                   wins >= 4 if schemes else None, "RED vs drop-tail: " + "; ".join(rows), lower=wins)]


def fig8_8(t: Tables) -> list[Claim]:
    s = t.get("fig8_8")
    if s is None:
        return []
    out = []
    avg = {}
    for p in ("l1", "l2", "l3", "l4"):
        avg[p] = _avg(_reds(s, p).values())
    grows = None if None in avg.values() else (abs(avg["l1"]) < 10 and avg["l1"] < avg["l2"] < avg["l3"])
    out.append(_claim("8.8-bdp", "Fig. 8.8", "Competing downloads, constant load: the gain grows with the bandwidth-delay product; "
                      "about none at 28.8 Kb/s", "|reduction| at L1 below 10% and L1 < L2 < L3 (mean over N)", THESIS, grows,
                      "fs-pdrop vs tcp: " + ", ".join(f"{p.upper()} {_f(v)}%" for p, v in avg.items()),
                      **{f"{p}_pct": v for p, v in avg.items()}))
    for p, lo, hi, fig in (("l2", 50, 15, "L2 from 50% to 15% (2X to 1.18X)"), ("l3", 65, 35, "L3 from 65% to 35% (2.85X to 1.5X)")):
        r = _reds(s, p)
        xs = sorted(r)
        first, last = (r[xs[0]], r[xs[-1]]) if xs else (None, None)
        ok = None if first is None or last is None else (abs(first - lo) <= 10 and abs(last - hi) <= 10)
        out.append(_claim(f"8.8-{p}-decline", "Fig. 8.8", f"The relative gain falls with N: {fig} for N 1 to 30",
                          "first and last N within ±10 pp of the thesis's values", THESIS, ok,
                          f"N={_f(xs[0] if xs else None, 0)}: {_f(first)}%, N={_f(xs[-1] if xs else None, 0)}: {_f(last)}%",
                          first_pct=first, last_pct=last))
    r4 = _reds(s, "l4")
    x4 = sorted(r4)
    flat = None if not x4 or r4[x4[0]] is None or r4[x4[-1]] is None else r4[x4[-1]] >= r4[x4[0]] - 10
    out.append(_claim("8.8-l4-flat", "Fig. 8.8", "L4 shows no decline of the gain over N up to 30",
                      "reduction at the largest N at least the one at N = 1 less 10 pp", THESIS, flat,
                      "fs-pdrop vs tcp per N: " + ", ".join(f"N={int(x)}: {_f(v)}%" for x, v in r4.items())))
    return out


def fig8_9(t: Tables) -> list[Claim]:
    s = t.get("fig8_9")
    if s is None:
        return []
    avg, worst = {}, None
    for p in ("l1", "l2", "l3", "l4"):
        v = [r for r in _reds(s, p).values() if r is not None]
        avg[p] = _avg(v)
        if v:
            worst = min(v) if worst is None else min(worst, min(v))
    vanish = None if None in avg.values() else (all(abs(avg[p]) < 15 for p in ("l1", "l2", "l3")) and avg["l4"] > 20)
    return [
        _claim("8.9-vanish", "Fig. 8.9", "Flash crowd (stale cache): the gains vanish in most panels, except L4",
               "|reduction| below 15% at L1-L3 and above 20% at L4 (mean over N)", THESIS, vanish,
               "fs-pdrop vs tcp: " + ", ".join(f"{p.upper()} {_f(v)}%" for p, v in avg.items()),
               **{f"{p}_pct": v for p, v in avg.items()}),
        _claim("8.9-worst", "Fig. 8.9", "Where fast start fails, fs-pdrop is at most 10% worse than tcp",
               "smallest reduction over panels and N at least -15% (-10% less 5 pp)", THESIS,
               None if worst is None else worst >= -15, f"worst fs-pdrop vs tcp {_f(worst)}%", worst_pct=worst),
    ]


def table8_1(t: Tables) -> list[Claim]:
    s = t.get("table8_1")
    if s is None:
        return []
    tcp_all = _mean(s, "l2", "tcp")
    tcp_web = _mean(s, "l2", "tcp", group="web")
    fs_users = {sch: _mean(s, "l2", sch, group="fsweb") for sch in ("fs", "fs-pdrop")}
    others = {sch: _mean(s, "l2", sch, group="web") for sch in ("fs", "fs-pdrop")}
    gains = {sch: _red(tcp_all, v) for sch, v in fs_users.items()}
    harm = {sch: -_red(tcp_web, v) if _red(tcp_web, v) is not None else None for sch, v in others.items()}  # type: ignore[operator]
    return [
        _claim("t8.1-tcp", "Table 8.1", "tcp: 3.37 s (CI 0.20)", "within ±25% of 3.37 s", TCP_ORACLE,
               _within(tcp_all, 3.37 * 0.75, 3.37 * 1.25), f"tcp {_f(tcp_all, 2)} s", tcp_s=tcp_all),
        _claim("t8.1-gain", "Table 8.1", "Fast-start users gain less than 5% (stale cache): fs 3.32 s, fs-pdrop 3.20 s",
               "gain vs tcp below 10% for both (5% + 5 pp)", THESIS,
               None if None in gains.values() else all(g < 10 for g in gains.values()),  # type: ignore[operator]
               ", ".join(f"{k} users {_f(fs_users[k], 2)} s ({_f(gains[k])}%)" for k in gains), **gains),
        _claim("t8.1-fs-harm", "Table 8.1", "With fs the other users degrade by more than 20% (4.09 vs 3.37 s)",
               "slowdown of the non-fast-start users under fs above 10%", THESIS,
               None if harm["fs"] is None else harm["fs"] > 10, f"non-fs users under fs {_f(others['fs'], 2)} s "
               f"({_f(harm['fs'])}% slower than under tcp)", slowdown_pct=harm["fs"]),
        _claim("t8.1-pdrop", "Table 8.1", "With fs-pdrop the other users are essentially unharmed (3.38 vs 3.37 s)",
               "slowdown of the non-fast-start users under fs-pdrop below 10%", THESIS,
               None if harm["fs-pdrop"] is None else harm["fs-pdrop"] < 10,
               f"non-fs users under fs-pdrop {_f(others['fs-pdrop'], 2)} s ({_f(harm['fs-pdrop'])}% slower)",
               slowdown_pct=harm["fs-pdrop"]),
    ]


def summary(t: Tables) -> list[Claim]:
    best, where = None, ""
    for key in ("fig8_4", "l4_text", "fig8_8"):
        s = t.get(key)
        if s is None:
            continue
        for p in sorted(set(s["panel"].to_list())):
            for x in _xs(s, p):
                r = _ratio(_mean(s, p, "tcp", x), _mean(s, p, "fs-pdrop", x))
                if r is not None and (best is None or r > best):
                    best, where = r, f"{key} {p.upper()} x={int(x)}"
    return [_claim("8.4.3-3x", "§8.4.3", "Up to 3X latency reduction (largest when the BDP is large and the load low)",
                   "largest tcp/fs-pdrop at least 2.5", THESIS, None if best is None else best >= 2.5,
                   f"largest tcp/fs-pdrop {_f(best, 2)}X ({where})", best_ratio=best)]


CLAIMS: list[Callable[[Tables], list[Claim]]] = [fig8_4, l4_text, fig8_5, fig8_7, fig8_8, fig8_9, table8_1, summary]


def evaluate_all(tables: Tables) -> list[Claim]:
    out: list[Claim] = []
    for fn in CLAIMS:
        out += fn(tables)
    return out
