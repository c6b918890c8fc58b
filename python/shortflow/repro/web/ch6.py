"""Thesis ch. 6 (TCP session, §6.5.2, Figs. 6.8-6.15) with the Web page application, and
the issue's cross-comparison (item 6): one page workload under every retrieval mode and
start-up policy. Scenarios: ``scenarios/web/ch6/`` and ``scenarios/web/xcmp/``; choices
behind every number: ``scenarios/web/ch6/common.md``.

Each figure's runs give one row per (point, seed): mean page time over the clients,
unfinished pages, bottleneck drops and TCP timeouts per download (per class where the
figure has classes), and Jain's fairness index over the clients' page times (spec 0.2).
The figure tables average the seeds (95 % Student-t interval on the page time).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Callable, Optional

import polars as pl

from ..claims import Claim
from .common import load_web

#: F.19: a number the thesis states is matched within +-30 %.
TOL = 0.30

#: Figure -> (scenario file, sweep axis shown on x (None: the scheme is the x), x label).
FIGS: dict[str, tuple[str, Optional[str], str]] = {
    "6.8": ("ch6/fig6_8.toml", "flows.web.count", "simultaneous downloads"),
    "6.10": ("ch6/fig6_10.toml", "flows.web.app.images", "inline images"),
    "6.11": ("ch6/fig6_11.toml", "flows.web.app.image", "image size"),
    "6.12": ("ch6/fig6_12.toml", "flows.bulk.count", "bulk transfers"),
    "6.13": ("ch6/fig6_13.toml", None, "downloads using session"),
    "6.14": ("ch6/fig6_14.toml", "flows.web.count", "simultaneous downloads"),
    "6.15": ("ch6/fig6_15.toml", "flows.web.count", "simultaneous downloads"),
}

#: Quick mode: one small point per figure (x values kept), two seeds.
QUICK: dict[str, dict[str, list[Any]]] = {
    "6.8": {"flows.web.count": [10]},
    "6.10": {"flows.web.app.images": [10]},
    "6.11": {"flows.web.app.image": ["1KiB"]},
    "6.12": {"flows.bulk.count": [4]},
    "6.13": {"scheme": ["k5"]},
    "6.14": {"flows.web.count": [5]},
    "6.15": {"flows.web.count": [1]},
}
QUICK_SEEDS = [1, 2]




def jain(xs: list[float]) -> float:
    """Jain's fairness index (spec 0.2): (sum x)^2 / (n sum x^2)."""
    xs = [x for x in xs if x == x]
    if not xs:
        return float("nan")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def _x_value(v: Any) -> float:
    from ...units import parse_size

    if isinstance(v, str):
        if v.endswith("b") or v.endswith("B"):
            return float(parse_size(v))
        return float(v)
    return float(v)


#: The bottleneck link whose packet trace gives the SYN resends (servers are on r1's side).
SYN_LINK = "r1->r2"


def syn_resends(r, names: list[str], link: str = SYN_LINK) -> dict[str, int]:
    """Per connection name: how many times the server resent its SYN segment (sequence 0,
    the SYN-ACK of ``traffic/web.rs``), from the packet trace of ``link`` (:data:`SYN_LINK`:
    every copy the server sends crosses it, a copy dropped there included). The plain sender and
    the session resend a SYN only when its own SYN timer fires (the session's shared timer
    never covers a SYN, spec F.2), so these are the connections' SYN timeouts."""
    at = r.links["link"].to_list().index(link)
    syn = r.packets.filter((pl.col("link") == at) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0)
                           & (pl.col("seqno") == 0))
    counts = syn.group_by("flow").len()
    return {names[f]: n - 1 for f, n in counts.iter_rows()}


def measure(r, classes: list[str], syn: Optional[dict[str, int]] = None) -> list[dict[str, Any]]:
    """Per web group (class) of one run: mean page time, unfinished pages, timeouts and
    drops per download, fairness. Drops are the bottleneck's, both directions, shared by
    every class (per download of all classes). With ``syn`` (:func:`syn_resends`) the
    timeouts are also split into SYN timeouts and data timeouts (the rest)."""
    pages = r.pages
    links = r.links.filter(pl.col("link").is_in(["r1->r2", "r2->r1"]))
    drops = int(links["drops"].sum())
    n_all = pages.height
    out = []
    for g in classes:
        pg = pages.filter(pl.col("pair").str.starts_with(g + "."))
        if pg.height == 0:
            continue
        times = pg["download_s"].fill_null(float("nan")).to_list()
        done = [t for t in times if t == t]
        fl = r.flows.filter(pl.col("flow").str.starts_with(g + "."))
        row = {
            "class": g, "downloads": pg.height, "unfinished": pg.height - len(done),
            "time_s": sum(done) / len(done) if done else float("nan"),
            "timeouts_per_dl": float(fl["timeouts"].sum()) / pg.height,
            "drops_per_dl": drops / max(n_all, 1),
            "fairness": jain(done),
        }
        if syn is not None:
            st = sum(v for k, v in syn.items() if k.startswith(g + "."))
            row["syn_timeouts_per_dl"] = st / pg.height
            row["data_timeouts_per_dl"] = row["timeouts_per_dl"] - st / pg.height
        out.append(row)
    return out


def run_fig(fig: str, quick: bool, log: Callable[[str], None]) -> pl.DataFrame:
    """Every run of one figure: one row per (scheme, x, seed, class)."""
    from ...api import run_config

    name, axis, _ = FIGS[fig]
    sc = load_web(name)
    pts = sc.points()
    if quick:
        keep = QUICK[fig]
        pts = [p for p in pts if all(p.get(k) in v for k, v in keep.items())]
    seeds = QUICK_SEEDS if quick else sc.seeds
    classes = ["sess", "conc"] if fig == "6.13" else ["web"]
    rows = []
    t0 = time.perf_counter()
    for p in pts:
        for s in seeds:
            cfg = sc.to_sim_config(p, s)
            cfg["trace"] = {"packets": True, "acks": False, "links": [SYN_LINK]}
            r = run_config(cfg)
            syn = syn_resends(r, [f["name"] for f in cfg["flows"]])
            scheme = p.get("scheme", "")
            if fig == "6.13":
                x = float(scheme[1:])
            elif fig == "6.14":
                x = _x_value(p[axis])
            else:
                x = _x_value(p[axis]) if axis else 0.0
            extra = {"rate": p["topology.bottleneck.rate"]} if fig == "6.14" else {}
            for m in measure(r, classes, syn):
                rows.append({"fig": fig, "scheme": scheme, "x": x, "seed": s, **extra, **m})
    log(f"Fig. {fig}: {len(pts)} points x {len(seeds)} seeds in {time.perf_counter() - t0:.1f} s")
    return pl.DataFrame(rows)


def summarise(runs: pl.DataFrame) -> pl.DataFrame:
    """Mean over seeds per (scheme, x, class [, rate]) with a 95 % interval on the time."""
    from ...stats import ci95

    keys = [k for k in ("fig", "rate", "scheme", "class", "x") if k in runs.columns]
    g = runs.group_by(keys).agg(
        pl.col("time_s").mean().alias("time_s"), pl.col("time_s").std().alias("sd"), pl.len().alias("runs"),
        pl.col("unfinished").sum().alias("unfinished"), pl.col("timeouts_per_dl").mean(),
        pl.col("drops_per_dl").mean(), pl.col("syn_timeouts_per_dl").mean(), pl.col("data_timeouts_per_dl").mean(),
        pl.col("fairness").mean())
    g = g.with_columns(pl.struct(["sd", "runs"]).map_elements(lambda r: ci95(r["sd"], r["runs"]) or 0.0,
                                                              return_dtype=pl.Float64).alias("ci95"))
    return g.drop("sd").sort(keys)


# --- claims -------------------------------------------------------------------------------

def _series(t: pl.DataFrame, scheme: Optional[str], col: str = "time_s", cls: str = "web", rate: Optional[str] = None
            ) -> dict[float, float]:
    """x -> column of one series (``scheme`` None: every scheme, Fig. 6.13's x is in it)."""
    q = t.filter(pl.col("class") == cls)
    if scheme is not None:
        q = q.filter(pl.col("scheme") == scheme)
    if rate is not None:
        q = q.filter(pl.col("rate") == rate)
    return dict(zip(q["x"].to_list(), q[col].to_list()))


def _within(v: float, want: float, tol: float = TOL) -> bool:
    return v == v and abs(v / want - 1) <= tol


def _ratio_str(d: dict[float, float], fmt: str = "{:.2f}", xs: Optional[list[float]] = None) -> str:
    return ", ".join(f"{x:g}: " + fmt.format(v) for x, v in sorted(d.items()) if xs is None or x in xs)


def _div(a: dict[float, float], b: dict[float, float]) -> dict[float, float]:
    return {x: a[x] / b[x] if b.get(x) else float("nan") for x in a if x in b}


def _slope(d: dict[float, float]) -> float:
    xs, ys = list(d), [d[x] for x in d]
    if len(xs) < 2:
        return float("nan")
    xm, ym = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - xm) ** 2 for x in xs)
    return sum((x - xm) * (y - ym) for x, y in zip(xs, ys)) / den if den else float("nan")


def _c(id_: str, fig: str, paper: str, measured: str, rule: str, ok: Optional[bool], note: str = "",
       source: str = "thesis") -> Claim:
    """A claim; ``ok`` None = it needs more than the one point quick mode runs."""
    if ok is None:
        measured, note = QUICK_ONE_POINT, (note + "; " if note else "") + "needs the full sweep"
    return Claim(id_, fig, paper, measured, rule, None if ok is None else bool(ok), source, note)


#: What a claim that compares points says when quick mode ran one point.
QUICK_ONE_POINT = "not evaluated: one point in quick mode"


def claims_68(t: pl.DataFrame) -> list[Claim]:
    seq, conc, sess = _series(t, "httpseq"), _series(t, "httpconc"), _series(t, "session")
    ph, noilr = _series(t, "phttp"), _series(t, "session-noilr")
    right = max(conc)
    out = []
    sl = {k: _slope(v) for k, v in (("httpconc", conc), ("httpseq", seq), ("session", sess))}
    out.append(_c("f68-slopes", "Fig. 6.8a", "download time grows with load, steepest for httpconc, shallowest for "
                  "session", "slope (s per download): " + ", ".join(f"{k} {v:.3f}" for k, v in sl.items()),
                  "httpconc > httpseq > session > 0", sl["httpconc"] > sl["httpseq"] > sl["session"] > 0
                  if len(conc) > 1 else None))
    r = _div(conc, sess)
    best = max(r.values())
    out.append(_c("f68-vs-conc", "Fig. 6.8a", "session is up to 60 % (2.5x) faster than httpconc",
                  "httpconc / session by downloads: " + _ratio_str(r), f"the largest within ±{TOL:.0%} of 2.5",
                  _within(best, 2.5)))
    g = {x: 1 - sess[x] / seq[x] for x in sess if x in seq}
    best = max(g.values())
    out.append(_c("f68-vs-seq", "Fig. 6.8a", "session is up to 30 % faster than httpseq",
                  "1 - session / httpseq by downloads: " + _ratio_str(g, "{:+.0%}"),
                  f"the largest within ±{TOL:.0%} of 30 %", _within(best, 0.30)))
    if ph:
        r = _div(ph, sess)
        out.append(_c("f68-phttp", "Fig. 6.8a", "phttp performs about the same as session (omitted from the plot)",
                      "phttp / session by downloads: " + _ratio_str(r), f"within ±{TOL:.0%} of 1 everywhere",
                      all(_within(v, 1.0) for v in r.values())))
    L = {k: _series(t, k, "drops_per_dl")[right] for k in ("httpseq", "httpconc", "session")}
    T = {k: _series(t, k, "timeouts_per_dl")[right] for k in ("httpseq", "httpconc", "session")}
    lr = L["httpconc"] / L["session"] if L["session"] else float("inf")
    out.append(_c("f68b-losses", "Fig. 6.8b", "at the right edge losses are > 2.3x higher for httpconc than session",
                  f"{right:g} downloads: drops per download httpconc {L['httpconc']:.2f}, session {L['session']:.2f} "
                  f"({lr:.2f}x)", f"> 2.3 x (1 - {TOL:.0%})", lr > 2.3 * (1 - TOL)))
    tr = T["httpconc"] / T["session"] if T["session"] else float("inf")
    out.append(_c("f68b-timeouts", "Fig. 6.8b", "timeouts are often > 7x higher for httpconc",
                  f"{right:g} downloads: timeouts per download httpconc {T['httpconc']:.2f}, session "
                  f"{T['session']:.2f} ({tr:.1f}x)", f"> 7 x (1 - {TOL:.0%})", tr > 7 * (1 - TOL)))
    S = {k: _series(t, k, "syn_timeouts_per_dl")[right] for k in ("httpseq", "httpconc", "session")}
    D = {k: T[k] - S[k] for k in T}
    split = ("timeouts per download split at " f"{right:g}: " + "; ".join(
        f"{k} {S[k]:.2f} SYN + {D[k]:.2f} data" for k in ("httpseq", "httpconc", "session")))
    fc = T["httpconc"] / L["httpconc"] if L["httpconc"] else float("nan")
    fs = T["session"] / L["session"] if L["session"] else float("nan")
    out.append(_c("f68b-timeout-share", "Fig. 6.8b", "> 75 % of httpconc losses end in a timeout, < 25 % for session",
                  f"timeouts / drops at {right:g}: httpconc {fc:.0%}, session {fs:.0%}", "> 75 % and < 25 %",
                  fc > 0.75 and fs < 0.25, "timeouts include SYN timeouts; drops include dropped SYNs and requests; "
                  f"{split}; data timeouts / drops: httpconc {D['httpconc'] / L['httpconc']:.0%}, session "
                  f"{D['session'] / L['session']:.0%}" if L["httpconc"] and L["session"] else split))
    ls, ts = L["session"] / L["httpseq"], T["session"] / T["httpseq"] if T["httpseq"] else float("nan")
    out.append(_c("f68b-vs-seq", "Fig. 6.8b", "session has about 30 % more losses than httpseq but about half its "
                  "timeouts", f"at {right:g}: session / httpseq losses {ls:.2f}, timeouts {ts:.2f}",
                  f"losses within ±{TOL:.0%} of 1.3, timeouts within ±{TOL:.0%} of 0.5",
                  _within(ls, 1.3) and _within(ts, 0.5),
                  f"{split}; data timeouts only: session / httpseq "
                  f"{D['session'] / D['httpseq']:.2f}" if D["httpseq"] else split))
    if noilr:
        r = _div(noilr, sess)
        loaded = {x: v for x, v in r.items() if x >= 10}
        best = max(loaded.values()) if loaded else float("nan")
        out.append(_c("f69a", "Fig. 6.9a", "without integrated loss recovery the download time is 35-100 % worse",
                      "session-noilr / session by downloads: " + _ratio_str(r),
                      "the largest at >= 10 downloads in [1.35, 2.0] ± 30 %", 1.35 * (1 - TOL) <= best <= 2.0 * (1 + TOL)))
        Ln, Tn = _series(t, "session-noilr", "drops_per_dl"), _series(t, "session-noilr", "timeouts_per_dl")
        Ls, Ts = _series(t, "session", "drops_per_dl"), _series(t, "session", "timeouts_per_dl")
        lr = {x: Ln[x] / Ls[x] for x in Ln if Ls.get(x) and x >= 10}
        out.append(_c("f69b-losses", "Fig. 6.9b", "losses are about equal with and without ILR (same congestion "
                      "control)", "noilr / session drops at >= 10 downloads: " + _ratio_str(lr),
                      f"within ±{TOL:.0%} of 1 at every loaded point", bool(lr) and all(_within(v, 1) for v in lr.values())))
        tr = Ts[right] / Tn[right] if Tn.get(right) else float("nan")
        out.append(_c("f69b-timeouts", "Fig. 6.9b", "session has about half the timeouts of session-noilr",
                      f"at {right:g}: session {Ts[right]:.2f}, noilr {Tn[right]:.2f} per download ({tr:.2f})",
                      f"within ±{TOL:.0%} of 0.5", _within(tr, 0.5)))
    return out


def claims_610(t: pl.DataFrame) -> list[Claim]:
    conc, sess = _series(t, "httpconc"), _series(t, "session")
    fc, fs = _series(t, "httpconc", "fairness"), _series(t, "session", "fairness")
    lo, hi = min(conc), max(conc)
    r = _div(conc, sess)
    out = []
    if lo == 1:
        out.append(_c("f610-equal-1", "Fig. 6.10a", "httpconc and session are equal at 1 image",
                      f"httpconc / session at 1 image: {r[1]:.2f}", f"within ±{TOL:.0%} of 1", _within(r[1], 1)))
    out.append(_c("f610-gap", "Fig. 6.10a", "the gap widens to > 6x at 10 images",
                  "httpconc / session by images: " + _ratio_str(r), f"> 6 x (1 - {TOL:.0%}) at {hi:g} images",
                  r[hi] > 6 * (1 - TOL)))
    if lo == 1:
        out.append(_c("f610-fair-1", "Fig. 6.10b", "fairness about 0.9 for both at 1 image",
                      f"httpconc {fc[1]:.2f}, session {fs[1]:.2f}", f"both within ±{TOL:.0%} of 0.9",
                      _within(fc[1], 0.9) and _within(fs[1], 0.9)))
    out.append(_c("f610-fair-10", "Fig. 6.10b", "httpconc's fairness falls to about 0.4 at 10 images; session's "
                  "stays high", f"at {hi:g} images: httpconc {fc[hi]:.2f}, session {fs[hi]:.2f}",
                  f"httpconc within ±{TOL:.0%} of 0.4, session >= 0.8", _within(fc[hi], 0.4) and fs[hi] >= 0.8,
                  "'high' read as >= 0.8 (ours)"))
    return out


def claims_611(t: pl.DataFrame) -> list[Claim]:
    conc, sess = _series(t, "httpconc"), _series(t, "session")
    fc, fs = _series(t, "httpconc", "fairness"), _series(t, "session", "fairness")
    g = {x: 1 - sess[x] / conc[x] for x in conc if x in sess}
    lo, hi = min(g), max(g)
    out = [_c("f611-gain", "Fig. 6.11a", "session's gain over httpconc falls from > 50 % at 1 KB to < 10 % at 100 KB",
              "1 - session / httpconc by image size (B): " + _ratio_str(g, "{:+.0%}"),
              f"> 50 % (1 - {TOL:.0%}) at the smallest, < 10 % (+{TOL:.0%}) at the largest",
              g[lo] > 0.5 * (1 - TOL) and (g[hi] < 0.1 * (1 + TOL) if hi > lo else True))]
    if hi > lo:
        dc, ds = fc[hi] - fc[lo], fs[hi] - fs[lo]
        out.append(_c("f611-fair", "Fig. 6.11b", "fairness improves with size, more so for httpconc",
                      f"fairness {lo:g} B -> {hi:g} B: httpconc {fc[lo]:.2f} -> {fc[hi]:.2f}, session {fs[lo]:.2f} -> "
                      f"{fs[hi]:.2f}", "both rise, httpconc by more", dc > 0 and ds >= 0 and dc > ds))
    return out


def claims_612(t: pl.DataFrame) -> list[Claim]:
    seq, conc, sess = _series(t, "httpseq"), _series(t, "httpconc"), _series(t, "session")
    r, s = _div(conc, sess), _div(seq, sess)
    return [
        _c("f612-conc", "Fig. 6.12", "with bulk cross traffic httpconc grows to about 10x session",
           "httpconc / session by bulk transfers: " + _ratio_str(r), f"the largest within ±{TOL:.0%} of 10",
           _within(max(r.values()), 10)),
        _c("f612-seq", "Fig. 6.12", "session beats httpseq by up to 2x", "httpseq / session by bulk transfers: " +
           _ratio_str(s), f"the largest within ±{TOL:.0%} of 2", _within(max(s.values()), 2)),
    ]


def claims_613(t: pl.DataFrame) -> list[Claim]:
    ts, tc = _series(t, None, cls="sess"), _series(t, None, cls="conc")
    os_, oc = _series(t, None, "timeouts_per_dl", cls="sess"), _series(t, None, "timeouts_per_dl", cls="conc")
    out = []
    ss, sc_ = _slope(ts), _slope(tc)
    out.append(_c("f613a", "Fig. 6.13a", "both classes get faster as the share of session grows, httpconc more so",
                  f"slope of the class mean time over k: session {ss:.3f}, httpconc {sc_:.3f} s per download; "
                  "session " + _ratio_str(ts, "{:.2f} s") + "; httpconc " + _ratio_str(tc, "{:.2f} s"),
                  "both slopes < 0, httpconc's steeper", (ss < 0 and sc_ < ss) if len(ts) > 1 else None))
    r = {k: oc[k] / os_[k] if os_.get(k) else float("inf") for k in oc if k in os_}
    lo, hi = min(r), max(r)
    out.append(_c("f613b-low", "Fig. 6.13b", "httpconc has about 4.5x session's timeouts when httpconc dominates",
                  "httpconc / session timeouts per download by k: " + _ratio_str(r),
                  f"within ±{TOL:.0%} of 4.5 at k = {lo:g}", _within(r[lo], 4.5)))
    if hi > lo:
        out.append(_c("f613b-high", "Fig. 6.13b", "... and about 3x when session dominates", f"k = {hi:g}: {r[hi]:.2f}",
                      f"within ±{TOL:.0%} of 3 at k = {hi:g}", _within(r[hi], 3)))
    return out


def claims_614(t: pl.DataFrame, t68: Optional[pl.DataFrame]) -> list[Claim]:
    out = []
    rates = t["rate"].unique().to_list()
    if "28.8Kb" in rates:
        seq, conc, sess = (_series(t, k, rate="28.8Kb") for k in ("httpseq", "httpconc", "session"))
        gap = {x: conc[x] - sess[x] for x in conc if x in sess}
        out.append(_c("f614a-abs", "Fig. 6.14a", "28.8 Kb/s: the absolute gap (httpconc - session) is often > 100 s",
                      "httpconc - session (s) by downloads: " + _ratio_str(gap, "{:+.1f}"),
                      f"> 100 s (1 - {TOL:.0%}) somewhere", max(gap.values()) > 100 * (1 - TOL)))
        if t68 is not None:
            r14 = max(_div(conc, sess).values())
            r68 = max(_div(_series(t68, "httpconc"), _series(t68, "session")).values())
            out.append(_c("f614a-rel", "Fig. 6.14a", "the relative gap is smaller than at 1.5 Mb/s",
                          f"largest httpconc / session: 28.8 Kb/s {r14:.2f}, 1.5 Mb/s {r68:.2f}", "smaller",
                          r14 < r68))
    if "45Mb" in rates:
        seq, conc, sess = (_series(t, k, rate="45Mb") for k in ("httpseq", "httpconc", "session"))
        lo = min(conc)
        slower = sess[lo] / conc[lo] - 1
        out.append(_c("f614b-slower", "Fig. 6.14b", "45 Mb/s: session about 13 % slower than httpconc",
                      f"at {lo:g} download(s): session / httpconc - 1 = {slower:+.0%}",
                      f"within ±{TOL:.0%} of +13 %", _within(slower, 0.13),
                      "spec C.9: 8 vs 7 RTT with the window carried from the HTML (w0 = 2)"))
        a, b = seq[lo] / conc[lo], seq[lo] / sess[lo]
        out.append(_c("f614b-seq", "Fig. 6.14b", "both about 3x faster than httpseq",
                      f"at {lo:g}: httpseq / httpconc {a:.2f}, httpseq / session {b:.2f}",
                      f"both within ±{TOL:.0%} of 3", _within(a, 3) and _within(b, 3)))
    return out


def claims_615(t: pl.DataFrame) -> list[Claim]:
    seq, conc, sess = _series(t, "httpseq"), _series(t, "httpconc"), _series(t, "session")
    lo, hi = min(conc), max(conc)
    out = []
    f = 1 - conc[lo] / sess[lo]
    out.append(_c("f615-low", "Fig. 6.15", "at low load httpconc is up to 35 % faster than session",
                  f"at {lo:g}: 1 - httpconc / session = {f:+.0%} (httpconc {conc[lo]:.2f} s, session {sess[lo]:.2f} s)",
                  f"within ±{TOL:.0%} of 35 %", _within(f, 0.35)))
    if hi > lo:
        out.append(_c("f615-high", "Fig. 6.15", "as load rises httpconc degrades and ends worse than session",
                      f"at {hi:g}: httpconc {conc[hi]:.2f} s, session {sess[hi]:.2f} s", "httpconc > session",
                      conc[hi] > sess[hi]))
    if lo in seq:
        out.append(_c("f615-seq", "Fig. 6.15", "httpseq is about 21 s at low load, > 7x httpconc and a little under 5x "
                      "session", f"at {lo:g}: httpseq {seq[lo]:.2f} s, / httpconc {seq[lo] / conc[lo]:.2f}, / session "
                      f"{seq[lo] / sess[lo]:.2f}", f"21 s ± {TOL:.0%}; > 7 x (1 - {TOL:.0%}); in [3.5, 5]",
                      _within(seq[lo], 21) and seq[lo] / conc[lo] > 7 * (1 - TOL) and 3.5 <= seq[lo] / sess[lo] <= 5))
    l0 = _series(t, "session-linger0")
    if lo in l0:
        out.append(_c("f615-c9", "Fig. 6.15 / spec C.9", "(spec) with one download the session's page takes 4.0 s "
                      "if the SCB carries the HTML's window (w0 = 2), 4.4 s if it dies with the HTML connection",
                      f"session {sess[lo]:.2f} s, linger 0 {l0[lo]:.2f} s",
                      "each within 1 RTT (0.4 s) plus serialisation above the model",
                      0 <= sess[lo] - 4.0 < 0.45 and 0 <= l0[lo] - 4.4 < 0.45, "", "spec"))
    return out


CLAIMS = {"6.8": claims_68, "6.10": claims_610, "6.11": claims_611, "6.12": claims_612, "6.13": claims_613,
          "6.15": claims_615}


# --- cross-comparison (issue 18 item 6) ------------------------------------------------------

XCMP_NAMES = {
    "http10x4": "HTTP/1.0 x4", "phttp": "P-HTTP (persistent)", "getlist": "pipelining (GETLIST)",
    "getall": "pipelining (GETALL)", "session": "TCP session (HTTP/1.0 x4)", "spand": "TCP/SPAND (HTTP/1.0 x4)",
    "faststart": "Fast Start (HTTP/1.0 x4)", "faststart-getlist": "Fast Start (GETLIST)", "liss": "LISS (HTTP/1.0 x4)",
}


def xcmp(quick: bool, log: Callable[[str], None]) -> pl.DataFrame:
    """One row per (path, scheme): cold (page 1) and warm (pages 2-3) mean page time over
    clients and seeds, drops and timeouts per page, or the error that kept it from running."""
    rows = []
    for path in ("terrestrial", "satellite"):
        sc = load_web(f"xcmp/{path}.toml")
        seeds = sc.seeds[:1] if quick else sc.seeds
        t0 = time.perf_counter()
        for p in sc.points():
            cold, warm, drops, tos, pages, unfinished, err = [], [], 0, 0, 0, 0, ""
            for s in seeds:
                try:
                    r = sc.simulate(seed=s, point=p)
                except Exception as e:  # a policy that cannot run here: say why in the table
                    err = str(e).splitlines()[0][:160]
                    break
                pg = r.pages
                t = pg["download_s"].fill_null(float("nan"))
                for page, v in zip(pg["page"].to_list(), t.to_list()):
                    if v != v:
                        unfinished += 1
                    elif page == 0:
                        cold.append(v)
                    else:
                        warm.append(v)
                pages += pg.height
                drops += int(r.links.filter(pl.col("link").is_in(["r1->r2", "r2->r1"]))["drops"].sum())
                tos += int(r.flows.filter(pl.col("flow").str.starts_with("web."))["timeouts"].sum())
            mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
            rows.append({"path": path, "scheme": p["scheme"], "name": XCMP_NAMES.get(p["scheme"], p["scheme"]),
                         "cold_s": mean(cold), "warm_s": mean(warm), "drops_per_page": drops / pages if pages else math.nan,
                         "timeouts_per_page": tos / pages if pages else math.nan, "unfinished": unfinished,
                         "runs": len(seeds) if not err else 0, "error": err})
        log(f"cross-comparison {path}: {len(sc.points())} schemes in {time.perf_counter() - t0:.1f} s")
    return pl.DataFrame(rows)


def xcmp_claims(t: pl.DataFrame) -> list[Claim]:
    """No paper made this comparison: the rows are ours, checked only for what the chapters
    predict (pipelining and session beat HTTP/1.0 x4 on the first page)."""
    out = []
    for path in ("terrestrial", "satellite"):
        q = t.filter(pl.col("path") == path)
        cold = dict(zip(q["scheme"].to_list(), q["cold_s"].to_list()))
        failed = q.filter(pl.col("error") != "")["scheme"].to_list()
        meas = "page 1 (s): " + ", ".join(f"{XCMP_NAMES[k]} {v:.2f}" for k, v in cold.items() if v == v)
        if failed:
            meas += "; did not run: " + ", ".join(failed)
        out.append(_c(f"xcmp-{path}", "issue 18 item 6", f"(ours) {path}: GETLIST and the TCP session fetch a fresh "
                      "page faster than HTTP/1.0 x4", meas, "getlist < http10x4 and session < http10x4 (page 1)",
                      cold["getlist"] < cold["http10x4"] and cold["session"] < cold["http10x4"] and not failed,
                      "", "ours"))
    return out


# --- plots --------------------------------------------------------------------------------

def plot_fig(fig: str, t: pl.DataFrame, path: Path, note: str = "") -> Path:
    from ...mpl import pyplot, save

    plt = pyplot()
    _, axis, xlabel = FIGS[fig]
    panels = [("time_s", "page download time (s)"), ("drops_per_dl", "drops per download"),
              ("timeouts_per_dl", "timeouts per download"), ("fairness", "fairness index")]
    groups = [("", t)] if "rate" not in t.columns else [(r, t.filter(pl.col("rate") == r)) for r in
                                                         sorted(t["rate"].unique().to_list())]
    fig_, axes = plt.subplots(len(groups), 4, figsize=(16, 3.6 * len(groups)), dpi=90, squeeze=False)
    for row, (label, q) in zip(axes, groups):
        series = sorted({(s, c) for s, c in zip(q["scheme"].to_list(), q["class"].to_list())})
        for ax, (col, ylabel) in zip(row, panels):
            for s, c in series:
                d = q.filter((pl.col("scheme") == s) & (pl.col("class") == c)).sort("x")
                name = s if fig != "6.13" else ("session" if c == "sess" else "httpconc")
                if col == "time_s":
                    ax.errorbar(d["x"].to_list(), d[col].to_list(), yerr=d["ci95"].to_list(), marker="o", ms=3,
                                capsize=2, label=name)
                else:
                    ax.plot(d["x"].to_list(), d[col].to_list(), "o-", ms=3, label=name)
            if fig == "6.11":
                ax.set_xscale("log")
            ax.set_xlabel(xlabel + (" (bytes)" if fig == "6.11" else ""))
            ax.set_ylabel(ylabel)
            ax.set_title(f"{label}".strip(), fontsize=8)
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=7)
    fig_.suptitle(f"Thesis Fig. {fig} (simulated with the Web application){note}", fontsize=10)
    return save(fig_, path)


def plot_xcmp(t: pl.DataFrame, path: Path, note: str = "") -> Path:
    from ...mpl import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2), dpi=90)
    for ax, p in zip(axes, ("terrestrial", "satellite")):
        q = t.filter(pl.col("path") == p)
        names = q["name"].to_list()
        x = list(range(len(names)))
        ax.bar([i - 0.2 for i in x], q["cold_s"].fill_nan(0).to_list(), width=0.4, label="page 1 (cold)")
        ax.bar([i + 0.2 for i in x], q["warm_s"].fill_nan(0).to_list(), width=0.4, label="pages 2-3 (warm)")
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=35, ha="right", fontsize=7)
        ax.set_ylabel("page download time (s)")
        ax.set_title("1.6 Mb/s, 50 ms" if p == "terrestrial" else "satellite (400 Kb/s down, RTT 335 ms)", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    fig.suptitle("Cross-comparison: HTML 1 KB + 10 x 10 KB, 4 clients, 3 pages 10 s apart" + note, fontsize=10)
    fig.tight_layout()
    return save(fig, path)


def run(out: Path, quick: bool, log: Callable[[str], None]) -> tuple[list[Claim], list[str]]:
    """Every ch. 6 figure and the cross-comparison: CSVs, plots, claims."""
    note = " [quick mode]" if quick else ""
    files: list[str] = []
    claims: list[Claim] = []
    tables: dict[str, pl.DataFrame] = {}
    for fig in FIGS:
        runs = run_fig(fig, quick, log)
        t = summarise(runs)
        tables[fig] = t
        stem = "fig" + fig.replace(".", "_")
        t.write_csv(out / f"{stem}.csv")
        files += [f"{stem}.csv", plot_fig(fig, t, out / f"{stem}.png", note).name]
        if fig == "6.14":
            claims += claims_614(t, tables.get("6.8"))
        else:
            claims += CLAIMS[fig](t)
    x = xcmp(quick, log)
    x.write_csv(out / "xcmp.csv")
    files += ["xcmp.csv", plot_xcmp(x, out / "xcmp.png", note).name]
    claims += xcmp_claims(x)
    return claims, files
