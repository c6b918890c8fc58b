"""Diagnoses of the web reproduction's misses (docs/web-full/README.md): one point, one
seed, with a packet trace of the bottleneck and the session's window trace, reduced to the
numbers the README quotes (and docs/session.md for Figs. 7.4-7.5). Not part of
``repro web``; run one diagnosis with

    .venv/bin/python -m shortflow.repro.web.diag f68 [seed]

(``list`` names them; most take a few seconds, the 10-seed ones up to a minute; the
seed argument matters only to the one-seed ones). Every function prints what it measured; nothing here changes a
scenario: an override (a larger start jitter, say) is a reading that tests a cause, run
beside the scenario's own point, never in its place.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any, Callable, Optional

import polars as pl

from .common import load_web

#: The bottleneck's two directions (servers are on r1's side).
DOWN, UP = "r1->r2", "r2->r1"


def run_point(name: str, point: dict[str, Any], seed: int = 1, cwnd: bool = False,
              overrides: Optional[Callable[[dict[str, Any]], None]] = None):
    """One point of scenario ``scenarios/web/<name>`` with the bottleneck's packet trace
    (both directions) and, with ``cwnd``, the window trace. ``point`` gives the sweep axes
    that differ from the file's first value; ``overrides`` edits the core config."""
    from ...api import run_config

    sc = load_web(name)
    pts = [p for p in sc.points() if all(p.get(k) == v for k, v in point.items())]
    if not pts:
        raise SystemExit(f"no point {point} in {name}")
    cfg = sc.to_sim_config(pts[0], seed)
    cfg["trace"] = {"packets": True, "acks": False, "cwnd": cwnd, "links": [DOWN, UP]}
    if overrides:
        overrides(cfg)
    r = run_config(cfg)
    return r, [f["name"] for f in cfg["flows"]], cfg


def events(r, names: list[str]) -> pl.DataFrame:
    """The bottleneck's packet events with link and flow names and the pair of each flow
    (``web.3.img2`` -> ``web.3``)."""
    links = r.links["link"].to_list()
    p = r.packets.with_columns(
        pl.col("link").map_elements(lambda i: links[i], return_dtype=pl.String).alias("lname"),
        pl.col("flow").map_elements(lambda i: names[i], return_dtype=pl.String).alias("fname"),
        (pl.col("time_ns").cast(pl.Float64) * 1e-9).alias("t"))
    return p.with_columns(pl.col("fname").str.extract(r"^([^.]+\.\d+)").alias("pair"))


def drop_split(ev: pl.DataFrame) -> dict[str, int]:
    """Bottleneck drops by kind: data segments, the servers' SYN segments (data, seqno 0,
    downstream), and everything upstream (client SYNs, requests, acks) by packet kind."""
    d = ev.filter(pl.col("event") == ord("d"))
    down = d.filter(pl.col("lname") == DOWN)
    up = d.filter(pl.col("lname") == UP)
    return {"down_data": down.filter((pl.col("kind") == 0) & (pl.col("seqno") > 0)).height,
            "down_syn": down.filter((pl.col("kind") == 0) & (pl.col("seqno") == 0)).height,
            "down_other": down.filter(pl.col("kind") != 0).height,
            "up_data": up.filter(pl.col("kind") == 0).height, "up_ack": up.filter(pl.col("kind") == 1).height}


def retx(ev: pl.DataFrame) -> pl.DataFrame:
    """Downstream data segments sent again (a '+' of a (flow, seqno) seen before)."""
    s = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0)).sort("t")
    return s.with_columns(pl.int_range(pl.len()).over(["flow", "seqno"]).alias("copy")).filter(pl.col("copy") > 0)


def timeouts(r, names: list[str], prefix: str = "web") -> dict[str, int]:
    f = r.flows.filter(pl.col("flow").str.starts_with(prefix))
    return {"timeouts": int(f["timeouts"].sum()), "retransmits": int(f["retransmits"].sum()),
            "fast_retransmits": int(f["fast_retransmits"].sum())}


def page_times(r) -> list[float]:
    return [round(x, 2) for x in r.pages["download_s"].fill_null(float("nan")).to_list()]


def syn_timeouts(ev: pl.DataFrame) -> int:
    s = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0)
                  & (pl.col("seqno") == 0))
    return int(s.group_by("flow").len()["len"].sum() - s["flow"].n_unique()) if s.height else 0


def tail_drops(ev: pl.DataFrame) -> int:
    """Downstream drops of a connection's last data segment (its highest seqno): a
    connection's tail, which no later segment of its own can report by duplicate acks."""
    sent = ev.filter((pl.col("lname") == DOWN) & (pl.col("kind") == 0))
    last = sent.group_by("flow").agg(pl.col("seqno").max().alias("last"))
    d = ev.filter((pl.col("event") == ord("d")) & (pl.col("lname") == DOWN) & (pl.col("kind") == 0)
                  & (pl.col("seqno") > 0)).join(last, on="flow")
    return d.filter(pl.col("seqno") == pl.col("last")).height


def brief(label: str, r, names: list[str], syn: bool = True) -> dict[str, Any]:
    """One run's page times, drops, timeouts and (``syn``: the SYN exchange is modelled)
    SYN and data timeouts; printed and returned."""
    ev = events(r, names)
    to = timeouts(r, names)
    st = syn_timeouts(ev) if syn else 0
    pt = page_times(r)
    row = {"run": label, "mean_page_s": round(sum(pt) / len(pt), 3), **drop_split(ev), "tail_drops": tail_drops(ev),
           **to, "syn_timeouts": st, "data_timeouts": to["timeouts"] - st}
    print(row)
    return row


# --- the diagnoses ------------------------------------------------------------------------

def f68(seed: int = 1) -> None:
    """Fig. 6.8 at 5 downloads: why the session is slower than httpconc."""
    f = "ch6/fig6_8.toml"
    for scheme in ("httpconc", "session", "phttp", "httpseq"):
        r, names, _ = run_point(f, {"flows.web.count": 5, "scheme": scheme}, seed)
        brief(f"{scheme} n=5", r, names)
        print("   pages:", page_times(r))
    # The session at 5 downloads, per pair: its drops, when, and the window trace.
    r, names, cfg = run_point(f, {"flows.web.count": 5, "scheme": "session"}, seed, cwnd=True)
    ev = events(r, names)
    d = ev.filter((pl.col("event") == ord("d")) & (pl.col("lname") == DOWN))
    print("session n=5 downstream drops per pair and time span:")
    print(d.group_by("pair").agg(pl.len().alias("drops"), pl.col("t").min().alias("first"),
                                 pl.col("t").max().alias("last")).sort("pair"))
    sent = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0))
    print("per pair: data segments sent by the time of its first drop, and in the 0.2 s before it")
    for pair in sorted(d["pair"].unique().to_list()):
        t0 = d.filter(pl.col("pair") == pair)["t"].min()
        sp = sent.filter(pl.col("pair") == pair)
        print(f"  {pair}: first drop {t0:.3f}s, sent before {sp.filter(pl.col('t') < t0).height}, "
              f"in [t-0.2, t] {sp.filter((pl.col('t') >= t0 - 0.2) & (pl.col('t') < t0)).height}")
    rx = retx(ev)
    print("session n=5 resends per pair (time of each):")
    for pair in sorted(rx["pair"].unique().to_list()):
        q = rx.filter(pl.col("pair") == pair)
        rows = zip(q["t"].to_list(), q["fname"].to_list(), q["seqno"].to_list())
        print(f"  {pair}: {q.height}: " + ", ".join(f"{t:.2f}/{fn.split('.')[-1]}:{s}" for t, fn, s in rows))
    c = r.cwnd.with_columns((pl.col("time_ns").cast(pl.Float64) * 1e-9).alias("t"))
    c = c.with_columns(pl.col("flow").map_elements(lambda i: names[i], return_dtype=pl.String).alias("fname"))
    c = c.with_columns(pl.col("fname").str.extract(r"^([^.]+\.\d+)").alias("pair"))
    print("session n=5: each pair's largest window and its ssthresh after the cut")
    for pair in sorted(c["pair"].unique().to_list()):
        q = c.filter(pl.col("pair") == pair).sort("t")
        print(f"  {pair}: max cwnd {q['cwnd'].max():.1f}, min ssthresh {q['ssthresh'].min():.0f}")


def f68n(seed: int = 1) -> None:
    """Fig. 6.8, every load: tail drops against data timeouts, session and httpconc."""
    for n in (1, 5, 10, 15, 20, 25, 30):
        for scheme in ("httpconc", "session", "session-noilr", "httpseq", "phttp"):
            r, names, _ = run_point("ch6/fig6_8.toml", {"flows.web.count": n, "scheme": scheme}, seed)
            brief(f"{scheme} n={n}", r, names)


def f68jitter(seed: int = 1) -> None:
    """Fig. 6.8 at 5 downloads with the pairs' starts spread over 1 s instead of 100 ms
    (a reading that tests the lockstep cause; not the scenario)."""
    def spread(cfg: dict[str, Any]) -> None:
        for a in cfg["apps"]:
            if a.get("kind") == "web":
                a["start_jitter_s"] = 1.0
    for scheme in ("httpconc", "session", "phttp", "httpseq"):
        for label, ov in (("100ms", None), ("1s", spread)):
            r, names, _ = run_point("ch6/fig6_8.toml", {"flows.web.count": 5, "scheme": scheme}, seed, overrides=ov)
            brief(f"{scheme} n=5 jitter {label}", r, names)


def recovery_split(ev: pl.DataFrame) -> dict[str, int]:
    """Every dropped downstream data segment by what repaired it: its next copy left
    less than 0.9 s after the drop (acks: duplicate or later acks, a partial ack), or
    later (the timer, whose minimum is 1 s); timer repairs split by whether any later
    segment of the same connection left between the dropped copy and the resend (none:
    a lone segment, which no duplicate ack can report)."""
    s = ev.filter((pl.col("lname") == DOWN) & (pl.col("kind") == 0) & (pl.col("seqno") > 0))
    sends: dict[tuple[int, int], list[float]] = {}
    for f, q, t in s.filter(pl.col("event") == ord("+")).sort("t").select("flow", "seqno", "t").iter_rows():
        sends.setdefault((f, q), []).append(t)
    by_flow: dict[int, list[tuple[int, float]]] = {}
    for (f, q), ts in sends.items():
        by_flow.setdefault(f, []).extend((q, t) for t in ts)
    out = dict.fromkeys(("acks", "timer_lone", "timer_not_lone", "never_resent"), 0)
    for f, q, t in s.filter(pl.col("event") == ord("d")).select("flow", "seqno", "t").iter_rows():
        ts = sends[(f, q)]
        k = max(i for i, x in enumerate(ts) if x <= t)
        if k + 1 >= len(ts):
            out["never_resent"] += 1
        elif ts[k + 1] - t < 0.9:
            out["acks"] += 1
        else:
            later = any(qq > q and ts[k] < tt < ts[k + 1] for qq, tt in by_flow[f])
            out["timer_not_lone" if later else "timer_lone"] += 1
    return out


def f68tail(seed: int = 1) -> None:
    """Fig. 6.8, session at 5 and 20 downloads over the 10 seeds: pages that lost the
    last segment of one of their connections against the others, and what repaired
    every drop (seeds 1-3)."""
    for n in (5, 20):
        w, wo = [], []
        rec: dict[str, int] = {}
        for sd in range(1, 11):
            r, names, _ = run_point("ch6/fig6_8.toml", {"flows.web.count": n, "scheme": "session"}, sd)
            ev = events(r, names)
            sent = ev.filter((pl.col("lname") == DOWN) & (pl.col("kind") == 0))
            last = sent.group_by("flow").agg(pl.col("seqno").max().alias("last"))
            d = ev.filter((pl.col("event") == ord("d")) & (pl.col("lname") == DOWN) & (pl.col("kind") == 0)
                          & (pl.col("seqno") > 0)).join(last, on="flow")
            tail_pairs = set(d.filter(pl.col("seqno") == pl.col("last"))["pair"].to_list())
            for p, t in zip(r.pages["pair"].to_list(), r.pages["download_s"].to_list()):
                (w if p in tail_pairs else wo).append(t)
            if sd <= 3:
                for k, v in recovery_split(ev).items():
                    rec[k] = rec.get(k, 0) + v
        print(f"session, {n} downloads, 10 seeds: {len(w)} pages lost a connection's last segment, mean "
              f"{sum(w) / len(w):.2f} s; {len(wo)} did not, mean {sum(wo) / max(len(wo), 1):.2f} s")
        print(f"   drops repaired (seeds 1-3): {rec}")
        # Pages by their data timeouts (the pair's timeouts less its SYN resends), seeds 1-5.
        by: dict[int, list[float]] = {}
        for sd in range(1, 6):
            r, names, _ = run_point("ch6/fig6_8.toml", {"flows.web.count": n, "scheme": "session"}, sd)
            ev = events(r, names)
            syn = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0)
                            & (pl.col("seqno") == 0)).group_by("pair").agg((pl.len() - pl.col("flow").n_unique())
                                                                            .alias("syn"))
            to = r.flows.with_columns(pl.col("flow").str.extract(r"^([^.]+\.\d+)").alias("pair")).group_by("pair") \
                .agg(pl.col("timeouts").sum())
            pg = r.pages.select("pair", "download_s").join(to, on="pair", how="left").join(syn, on="pair", how="left") \
                .fill_null(0)
            for t, k in zip(pg["download_s"].to_list(), (pg["timeouts"] - pg["syn"]).to_list()):
                by.setdefault(int(k), []).append(t)
        print("   pages by data timeouts (seeds 1-5): " + "; ".join(
            f"{k}: {len(v)} pages, mean {sum(v) / len(v):.2f} s" for k, v in sorted(by.items())))


def f69(seed: int = 1) -> None:
    """Figs. 6.8/6.9, session vs session-noilr at 10, 20 and 30 downloads, seeds 1-3:
    downstream data drops per download split into first copies and dropped resends,
    false retransmissions, timeouts, and what repaired the drops."""
    for n in (10, 20, 30):
        for scheme in ("session", "session-noilr"):
            a = dict.fromkeys(("drops", "first_copy", "resent_copy", "false_retx", "timeouts"), 0)
            rec: dict[str, int] = {}
            for sd in range(1, 4):
                r, names, _ = run_point("ch6/fig6_8.toml", {"flows.web.count": n, "scheme": scheme}, sd)
                ev = events(r, names)
                s = ev.filter((pl.col("lname") == DOWN) & (pl.col("kind") == 0) & (pl.col("seqno") > 0)
                              & pl.col("event").is_in([ord("+"), ord("d")])).sort("t")
                s = s.with_columns(pl.when(pl.col("event") == ord("+")).then(1).otherwise(0).cum_sum()
                                   .over(["flow", "seqno"]).alias("copy"))
                d = s.filter(pl.col("event") == ord("d"))
                a["drops"] += d.height
                a["first_copy"] += d.filter(pl.col("copy") == 1).height
                a["resent_copy"] += d.filter(pl.col("copy") > 1).height
                f = r.flows.filter(pl.col("flow").str.starts_with("web"))
                a["false_retx"] += int(f["false_retx"].sum())
                a["timeouts"] += int(f["timeouts"].sum())
                for k, v in recovery_split(ev).items():
                    rec[k] = rec.get(k, 0) + v
            print(f"{scheme} {n} downloads, per download: " + ", ".join(f"{k} {v / 3 / n:.2f}" for k, v in a.items())
                  + f"; drops repaired (3 seeds): {rec}")


def f612syn(seed: int = 1) -> None:
    """Fig. 6.12 at 6 bulk transfers, seeds 1-3: how often the servers' SYN segments are
    dropped (first copy and resends, HTML and image connections), and how full the
    20-packet queue is when a SYN or a data segment of the web flows arrives (rebuilt
    from the trace: + adds one, - and d remove one)."""
    for scheme in ("session", "httpconc"):
        agg: dict[tuple[str, str], list[int]] = {}
        found: dict[str, list[int]] = {"SYN": [], "data": []}
        for sd in range(1, 4):
            r, names, _ = run_point("ch6/fig6_12.toml", {"flows.bulk.count": 6, "scheme": scheme}, sd)
            ev = events(r, names).filter(pl.col("lname") == DOWN).sort("t")
            tries: dict[str, int] = {}
            pending: dict[int, tuple[str, str]] = {}
            q = 0
            for e, k, sq, fn, uid in ev.select("event", "kind", "seqno", "fname", "uid").iter_rows():
                web = fn.startswith("web") and k == 0
                if e == ord("+"):
                    if web:
                        found["SYN" if sq == 0 else "data"].append(q)
                    if web and sq == 0:
                        key = ("html" if fn.endswith("-1") else "image", "first" if fn not in tries else "resend")
                        tries[fn] = tries.get(fn, 0) + 1
                        agg.setdefault(key, [0, 0])[0] += 1
                        pending[uid] = key
                    q += 1
                elif e in (ord("-"), ord("d")):
                    q -= 1
                    if e == ord("d") and uid in pending:
                        agg[pending[uid]][1] += 1
        print(f"{scheme}: SYN segments sent / dropped share: "
              + ", ".join(f"{a} {b} {v[0]} / {v[1] / v[0]:.2f}" for (a, b), v in sorted(agg.items())))
        print("   queue found on arrival: " + "; ".join(
            f"{k} mean {sum(v) / len(v):.1f}, >= 19 in {sum(1 for x in v if x >= 19) / len(v):.2f}"
            for k, v in found.items()))


def xliss(seed: int = 1) -> None:
    """Cross-comparison, LISS: its decisions (the startup table), 5 seeds per path."""
    for path in ("terrestrial", "satellite"):
        sc = load_web(f"xcmp/{path}.toml")
        p = [p for p in sc.points() if p["scheme"] == "liss"][0]
        n = fb = 0
        est: list[float] = []
        for sd in sc.seeds:
            r = sc.simulate(seed=sd, point=p)
            n += r.startup.height
            fb += int(r.startup["fallback_slow_start"].sum())
            est += r.startup.filter(~pl.col("fallback_slow_start"))["wc_estimate"].to_list()
        print(f"{path}: {n} LISS decisions, {fb} without a steady connection in the group (P3's default: "
              f"ssthresh 10, cwnd 1); Eq. 2 estimates of the others: "
              + (f"{min(est):.1f}..{max(est):.1f}" if est else "none"))


def no_syn(cfg: dict[str, Any]) -> None:
    """Reading: no SYN exchange (ns-2's one-way TCP, which the thesis's runs used)."""
    for f in cfg["flows"]:
        f["tcp"]["syn"] = False


def syn_wait(r, names: list[str]) -> float:
    """Mean over pages of the time the page's connections spent waiting for a resent SYN:
    per connection, from its first SYN segment on the bottleneck to its last (the copy
    that got through), summed over the page's connections."""
    ev = events(r, names)
    s = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0)
                  & (pl.col("seqno") == 0))
    w = s.group_by(["pair", "flow"]).agg((pl.col("t").max() - pl.col("t").min()).alias("w"))
    per = w.group_by("pair").agg(pl.col("w").sum())
    return float(per["w"].sum()) / max(r.pages.height, 1)


def compare(name: str, point: dict[str, Any], schemes: tuple[str, ...], seed: int, readings: bool = True,
            prefix: str = "web") -> dict[tuple[str, str], dict[str, Any]]:
    """Each scheme at one point, in the scenario and (``readings``) without the SYN
    exchange. In the no-SYN reading a connection's first data segment has seqno 0, so
    the SYN columns count its resends there."""
    from .ch6 import jain

    out = {}
    for label, ov in (("scenario", None), ("no SYN", no_syn))[: 2 if readings else 1]:
        for scheme in schemes:
            r, names, _ = run_point(name, {**point, "scheme": scheme}, seed, overrides=ov)
            row = brief(f"{scheme} {point} {label}", r, names, syn=ov is None)
            pt = [x for x in page_times(r) if x == x]
            n = r.pages.height
            row.update(n=n, fairness=round(jain(pt), 3), min=min(pt), max=max(pt))
            drops = sum(v for k, v in row.items() if k.startswith(("down_", "up_")))
            split = (f"SYN timeouts {row['syn_timeouts'] / n:.2f}, data timeouts {row['data_timeouts'] / n:.2f}"
                     if ov is None else f"timeouts {row['timeouts'] / n:.2f}")
            print(f"   per download: drops {drops / n:.2f}, {split}; fairness {row['fairness']:.2f}; "
                  f"pages min / median / max {min(pt):.2f} / {sorted(pt)[len(pt) // 2]:.2f} / {max(pt):.2f} s")
            out[(scheme, label)] = row
    return out


def mean_over_seeds(name: str, point: dict[str, Any], schemes: tuple[str, ...], seeds: range = range(1, 11),
                    cls: str = "web", readings: tuple[str, ...] = ("scenario", "no SYN")) -> None:
    """Mean page time over the scenario's 10 seeds (of the pages of group ``cls``), in
    the scenario and in the no-SYN reading, and the ratio of the first scheme to each other."""
    for label, ov in ((k, v) for k, v in (("scenario", None), ("no SYN", no_syn)) if k in readings):
        m = {}
        for scheme in schemes:
            t = []
            for seed in seeds:
                r, _, _ = run_point(name, {**point, "scheme": scheme}, seed, overrides=ov)
                pg = r.pages.filter(pl.col("pair").str.starts_with(cls + "."))
                t += [x for x in pg["download_s"].fill_null(float("nan")).to_list() if x == x]
            m[scheme] = sum(t) / len(t)
        first = schemes[0]
        print(f"{point} {label}, {len(seeds)} seeds: " + ", ".join(f"{k} {v:.2f} s" for k, v in m.items())
              + "; " + ", ".join(f"{first}/{k} {m[first] / v:.2f}" for k, v in m.items() if k != first))


def pages_by_syn(r, names: list[str]) -> dict[bool, list[float]]:
    """Page times split by whether any of the page's connections had its SYN resent."""
    ev = events(r, names)
    syn = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("+")) & (pl.col("kind") == 0)
                    & (pl.col("seqno") == 0)).group_by("pair").agg((pl.len() - pl.col("flow").n_unique()).alias("n"))
    resent = set(syn.filter(pl.col("n") > 0)["pair"].to_list())
    out: dict[bool, list[float]] = {True: [], False: []}
    for p, t in r.pages.select("pair", "download_s").iter_rows():
        if t is not None:
            out[p in resent].append(t)
    return out


def f611(seed: int = 1) -> None:
    """Fig. 6.11 at 1 KB and 100 KB images: httpconc vs session; at 1 KB the page times
    split by whether a SYN of the page was resent."""
    for size in ("1KiB", "100KiB"):
        compare("ch6/fig6_11.toml", {"flows.web.app.image": size}, ("httpconc", "session"), seed)
    for scheme in ("httpconc", "session"):
        r, names, _ = run_point("ch6/fig6_11.toml", {"flows.web.app.image": "1KiB", "scheme": scheme}, seed)
        by = pages_by_syn(r, names)
        print(f"{scheme} 1 KB: " + "; ".join(
            f"{'a SYN resent' if k else 'no SYN resent'}: {len(v)} pages, mean {sum(v) / max(len(v), 1):.2f} s"
            for k, v in by.items()))


def f612(seed: int = 1) -> None:
    """Fig. 6.12 at 2 and 6 bulk transfers: httpconc, httpseq, session."""
    for k in (2, 6):
        compare("ch6/fig6_12.toml", {"flows.bulk.count": k}, ("httpconc", "httpseq", "session"), seed)


def busy(name: str, point: dict[str, Any], schemes: tuple[str, ...], rate_bps: float, seed: int,
         readings: bool = True) -> None:
    """Each scheme at one point: mean and last page time, the data segments that left the
    bottleneck until the last page ended (distinct and sent again), how busy that kept the
    link (their bytes over the link's rate), and how long the distinct segments alone need."""
    for label, ov in (("scenario", None), ("no SYN", no_syn))[: 2 if readings else 1]:
        for scheme in schemes:
            r, names, _ = run_point(name, {**point, "scheme": scheme}, seed, overrides=ov)
            ev = events(r, names)
            pt = [x for x in page_times(r) if x == x]
            t_end = float(r.pages["end_s"].max())
            # Data segments only (with the SYN modelled, seqno 0 is the SYN).
            dep = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("-")) & (pl.col("kind") == 0)
                            & (pl.col("seqno") > (0 if ov is None else -1)) & (pl.col("t") <= t_end))
            first = dep.unique(["flow", "seqno"], keep="first")
            need = float(first["size"].sum()) * 8 / rate_bps
            print(f"{scheme} {point} {label}: mean page {sum(pt) / len(pt):.1f} s, last page ends at {t_end:.1f} s; "
                  f"data segments out of the bottleneck {dep.height} ({first.height} distinct, "
                  f"{dep.height - first.height} sent again) = {float(dep['size'].sum()) * 8 / (rate_bps * t_end):.2f} "
                  f"of the link until then; the distinct segments alone need {need:.0f} s")


def f614(seed: int = 1) -> None:
    """Fig. 6.14a (28.8 Kb/s) at 25 downloads: how busy each configuration keeps the link."""
    busy("ch6/fig6_14.toml", {"topology.bottleneck.rate": "28.8Kb", "flows.web.count": 25},
         ("httpconc", "session", "httpseq"), 28.8e3, seed)


def f611busy(seed: int = 1) -> None:
    """Fig. 6.11 at 100 KB images: how busy httpconc and the session keep the link."""
    busy("ch6/fig6_11.toml", {"flows.web.app.image": "100KiB"}, ("httpconc", "session"), 1.5e6, seed, readings=False)


def f610(seed: int = 1) -> None:
    """Fig. 6.10 at 10 images (30 downloads): httpconc vs session, with and without the
    SYN exchange, and the time a page's connections wait for resent SYNs."""
    compare("ch6/fig6_10.toml", {"flows.web.app.images": 10}, ("httpconc", "session"), seed)
    for scheme in ("httpconc", "session"):
        r, names, _ = run_point("ch6/fig6_10.toml", {"flows.web.app.images": 10, "scheme": scheme}, seed)
        print(f"{scheme}: SYN wait summed over a page's 11 connections {syn_wait(r, names):.1f} s")
    for label, ov, first in (("scenario", None, 1), ("no SYN", no_syn, 0)):
        r, names, _ = run_point("ch6/fig6_10.toml", {"flows.web.app.images": 10, "scheme": "httpconc"}, seed,
                                overrides=ov)
        s = events(r, names).filter((pl.col("lname") == DOWN) & (pl.col("kind") == 0) & (pl.col("event") == ord("+")))
        gaps = s.sort("t").group_by(["flow", "seqno"]).agg(pl.col("t").diff().drop_nulls().alias("g"))
        fg = [x for row in gaps.filter(pl.col("seqno") == first)["g"].to_list() for x in row]
        og = [x for row in gaps.filter(pl.col("seqno") > first)["g"].to_list() for x in row]
        hist = sorted(Counter(int(x) for x in fg).items())
        print(f"httpconc {label}: first data segment (seq {first}) resent {len(fg)} times, gaps (whole s: count) "
              f"{hist}; other segments resent {len(og)} times, mean gap {sum(og) / max(len(og), 1):.1f} s")
        if ov is None:
            # Connections whose first data segment was resent: the first gap, by whether
            # the connection's SYN had to be resent (no RTT sample then: Karn's rule).
            syns = s.filter(pl.col("seqno") == 0).group_by("flow").len()
            tries = dict(syns.iter_rows())
            split = Counter()
            for f, g in gaps.filter(pl.col("seqno") == 1).select("flow", "g").iter_rows():
                if g:
                    split[("SYN resent" if tries.get(f, 1) > 1 else "SYN once", int(g[0]))] += 1
            print(f"   first resend gap (whole s) of the first data segment by SYN history: {sorted(split.items())}")


def f612m(seed: int = 1) -> None:
    """Fig. 6.12 over 10 seeds, scenario and no-SYN reading."""
    for k in (2, 6):
        mean_over_seeds("ch6/fig6_12.toml", {"flows.bulk.count": k}, ("httpconc", "session", "httpseq"))


def f612nosyn(seed: int = 1) -> None:
    """Fig. 6.12's other bulk counts over 10 seeds in the no-SYN reading (httpconc, session)."""
    for k in (0, 1, 4, 8, 10):
        mean_over_seeds("ch6/fig6_12.toml", {"flows.bulk.count": k}, ("httpconc", "session"), readings=("no SYN",))


def f611m(seed: int = 1) -> None:
    """Fig. 6.11 over 10 seeds, scenario and no-SYN reading."""
    for size in ("1KiB", "100KiB"):
        mean_over_seeds("ch6/fig6_11.toml", {"flows.web.app.image": size}, ("httpconc", "session"))


def f610m(seed: int = 1) -> None:
    """Fig. 6.10 at 10 images over 10 seeds, scenario and no-SYN reading."""
    mean_over_seeds("ch6/fig6_10.toml", {"flows.web.app.images": 10}, ("httpconc", "session"))


def f613(seed: int = 1) -> None:
    """Fig. 6.13 (k sessions among 30 - k httpconc) over 10 seeds: per class page time,
    SYN and data timeouts per download, scenario and no-SYN reading."""
    from .ch6 import measure, syn_resends

    for label, ov in (("scenario", None), ("no SYN", no_syn)):
        for k in ("k1", "k5", "k15", "k29"):
            acc: dict[str, list[dict[str, Any]]] = {"sess": [], "conc": []}
            for sd in range(1, 11):
                r, names, _ = run_point("ch6/fig6_13.toml", {"scheme": k}, sd, overrides=ov)
                # Without the SYN exchange seqno 0 is data: no SYN/data split then.
                for m in measure(r, ["sess", "conc"], syn_resends(r, names) if ov is None else None):
                    acc[m["class"]].append(m)
            parts = []
            for cls, ms in acc.items():
                if not ms:
                    continue
                avg = {c: sum(m[c] for m in ms) / len(ms) for c in ms[0] if c != "class"}
                split = (f"{avg['syn_timeouts_per_dl']:.2f} SYN + {avg['data_timeouts_per_dl']:.2f} data timeouts/dl"
                         if ov is None else f"{avg['timeouts_per_dl']:.2f} timeouts/dl")
                parts.append(f"{cls} {avg['time_s']:.2f} s ({split})")
            print(f"{k} {label}: " + "; ".join(parts))


def f613share(seed: int = 1) -> None:
    """Fig. 6.13, seeds 1-5: until the session class's mean page end, how busy the link is
    (data segments leaving the bottleneck over its segment rate) and a session's share
    of those departures against a fair 1/30."""
    for k in ("k1", "k5", "k15", "k29"):
        u, sh = [], []
        for sd in range(1, 6):
            r, names, _ = run_point("ch6/fig6_13.toml", {"scheme": k}, sd)
            ev = events(r, names)
            t_end = float(r.pages.filter(pl.col("pair").str.starts_with("sess."))["download_s"].mean())
            dep = ev.filter((pl.col("lname") == DOWN) & (pl.col("event") == ord("-")) & (pl.col("kind") == 0)
                            & (pl.col("seqno") > 0) & (pl.col("t") <= t_end))
            u.append(float(dep["size"].sum()) * 8 / (1.5e6 * t_end))
            sess = dep.filter(pl.col("fname").str.starts_with("sess")).height
            sh.append(sess / int(k[1:]) / (dep.height / 30))
        print(f"{k}: link busy {sum(u) / len(u):.2f}; a session's share / fair share {sum(sh) / len(sh):.2f}")


def f615(seed: int = 1) -> None:
    """Fig. 6.15 at 1 download (45 Mb/s, RTT ~400 ms, 10 images): httpconc's one drop and
    what its recovery costs (reading: the bottleneck buffer 1000 packets, no drop)."""
    def big_buffer(cfg: dict[str, Any]) -> None:
        for ln in cfg["links"]:
            if f"{ln['src']}->{ln['dst']}" in (DOWN, UP):
                ln["queue"]["limit_pkts"] = 1000
    for label, ov in (("scenario", None), ("1000-packet buffer", big_buffer)):
        for scheme in ("httpconc", "session"):
            r, names, _ = run_point("ch6/fig6_15.toml", {"flows.web.count": 1, "scheme": scheme}, seed, overrides=ov)
            ev = events(r, names)
            d = ev.filter(pl.col("event") == ord("d"))
            rx = retx(ev)
            o = r.objects.sort("end_s")
            print(f"{scheme} {label}: page {page_times(r)} s; drops "
                  + ", ".join(f"{fn}:{q} at {t:.3f} s" for fn, q, t in zip(d["fname"].to_list(), d["seqno"].to_list(),
                                                                       d["t"].to_list()))
                  + "; resent " + ", ".join(f"{fn}:{q} at {t:.3f} s" for fn, q, t in
                                            zip(rx["fname"].to_list(), rx["seqno"].to_list(), rx["t"].to_list()))
                  + f"; {timeouts(r, names)}; last objects end at "
                  + ", ".join(f"{x:.3f}" for x in o["end_s"].to_list()[-3:]))


def f75(seed: int = 1) -> None:
    """Fig. 7.5 (10 client -> server bulk flows) at 5, 10, 20 and 30 downloads, session,
    session-noilr and httpconc, the scenario's seeds (1-3, as repro web): the download
    flows' data resends split by what sent them (>= 0.9 s after the previous copy: the
    timer, whose minimum is 1 s; else acks), and how many of each were false (sent
    although an earlier copy had reached the client; the receivers' `false_retx` counts
    only the copies that arrive)."""
    from ...api import run_config

    sc = load_web("ch7/fig7_5.toml")
    for n in (5, 10, 20, 30):
        for scheme in ("session", "session-noilr", "httpconc"):
            c = dict.fromkeys(("timer", "timer_false", "acks", "acks_false"), 0)
            for sd in sc.seeds:
                cfg = sc.to_sim_config({"scheme": scheme, "flows.page.count": 4 * n}, sd)
                hosts = range(1, n + 1)
                up = [f"page.s{h}->r1" for h in hosts]
                down = [f"r2->page.d{h}" for h in hosts]
                cfg["trace"] = {"packets": True, "acks": False, "links": up + down}
                r = run_config(cfg)
                ln = r.links["link"].to_list()
                p = r.packets.filter((pl.col("kind") == 0) & (pl.col("seqno") > 0)).with_columns(
                    (pl.col("time_ns").cast(pl.Float64) * 1e-9).alias("t"))
                sent = p.filter(pl.col("link").is_in([ln.index(x) for x in up]) & (pl.col("event") == ord("+")))
                got = p.filter(pl.col("link").is_in([ln.index(x) for x in down]) & (pl.col("event") == ord("r")))
                first_rx = dict(((f, q), t) for f, q, t in got.group_by(["flow", "seqno"]).agg(pl.col("t").min())
                                .iter_rows())
                for f, q, ts in sent.group_by(["flow", "seqno"]).agg(pl.col("t").sort()).iter_rows():
                    for k in range(1, len(ts)):
                        kind = "timer" if ts[k] - ts[k - 1] >= 0.9 else "acks"
                        c[kind] += 1
                        rx = first_rx.get((f, q))
                        if rx is not None and rx < ts[k]:
                            c[kind + "_false"] += 1
            tot = c["timer"] + c["acks"]
            fl = c["timer_false"] + c["acks_false"]
            print(f"{scheme} {n} downloads, {len(sc.seeds)} seeds: {tot} data resends, {fl} false "
                  f"({100 * fl / max(tot, 1):.1f} %); timer {c['timer']} ({c['timer_false']} false), "
                  f"acks {c['acks']} ({c['acks_false']} false)")


def f74(seed: int = 1) -> None:
    """Fig. 7.4 with proxy sub-sessions, 15-30 s: each session's congestion episodes (cuts
    of its window less than 0.5 s apart), the factor per episode, and how fast the window
    grows between episodes, right after the last cut (0.2 s, about one RTT) and later."""
    from ...api import run_config

    sc = load_web("ch7/fig7_4.toml")
    cfg = sc.to_sim_config({"scheme": "subsessions"}, seed)
    cfg["trace"] = {"packets": True, "acks": False, "cwnd": True, "links": ["r1->r2"]}
    r = run_config(cfg)
    names = [f["name"] for f in cfg["flows"]]
    c = r.cwnd.with_columns((pl.col("time_ns") / 1e9).alias("t"),
                            pl.col("flow").map_elements(lambda i: names[i], return_dtype=pl.String).alias("n"))
    for who, fl in (("A", ["A.1"]), ("proxy", ["B.1", "C.1"])):
        q = c.filter(pl.col("n").is_in(fl) & (pl.col("t") >= 15) & (pl.col("t") <= 30)).sort("t")
        t, w = q["t"].to_list(), q["cwnd"].to_list()
        eps: list[list[int]] = []
        for i in (i for i in range(1, len(w)) if w[i] < w[i - 1] * 0.95):
            if eps and t[i] - t[eps[-1][-1]] < 0.5:
                eps[-1].append(i)
            else:
                eps.append([i])
        facs = [w[e[-1]] / w[e[0] - 1] for e in eps]
        grow, early, late = [], [], []
        for e1, e2 in zip(eps[:-1], eps[1:]):
            a, b = e1[-1], e2[0] - 1
            if b <= a:
                continue
            m = max(j for j in range(a, b + 1) if t[j] <= t[a] + 0.2)
            grow.append((w[b] - w[a]) / (t[b] - t[a]))
            early.append((w[m] - w[a]) / 0.2)
            if t[b] > t[m]:
                late.append((w[b] - w[m]) / (t[b] - t[m]))
        mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
        print(f"{who}: mean window {mean(w):.1f}; {len(eps)} episodes at "
              + ", ".join(f"{t[e[0]]:.2f}" for e in eps)
              + f"; cuts per episode {[len(e) for e in eps]}; factor per episode mean {mean(facs):.2f} "
              f"({min(facs):.2f}-{max(facs):.2f}); growth between episodes {mean(grow):.2f}/s "
              f"(first 0.2 s after the cut {mean(early):.2f}/s, later {mean(late):.2f}/s)")


def xsession(seed: int = 1) -> None:
    """Cross-comparison, the session against HTTP/1.0 x4, 5 seeds per path: per page
    (cold = page 1), drops, connections' last segments lost, SYN and data timeouts, and
    the cold pages' times by whether the page lost a connection's last segment."""
    from ...api import run_config

    for path in ("terrestrial", "satellite"):
        sc = load_web(f"xcmp/{path}.toml")
        for scheme in ("http10x4", "session"):
            p = [p for p in sc.points() if p["scheme"] == scheme][0]
            acc = dict.fromkeys(("pages", "drops", "tail", "syn_to", "data_to"), 0)
            cold: dict[bool, list[float]] = {True: [], False: []}
            for sd in sc.seeds:
                cfg = sc.to_sim_config(p, sd)
                cfg["trace"] = {"packets": True, "acks": False, "links": [DOWN, UP]}
                r = run_config(cfg)
                names = [f["name"] for f in cfg["flows"]]
                ev = events(r, names)
                page_of = dict(zip(r.objects["conn"].to_list(), zip(r.objects["pair"].to_list(),
                                                                     r.objects["page"].to_list())))
                sent = ev.filter((pl.col("lname") == DOWN) & (pl.col("kind") == 0))
                last = sent.group_by("fname").agg(pl.col("seqno").max().alias("last"))
                d = ev.filter((pl.col("event") == ord("d")) & (pl.col("lname") == DOWN) & (pl.col("kind") == 0)
                              & (pl.col("seqno") > 0)).join(last, on="fname")
                tails = {page_of[f] for f in d.filter(pl.col("seqno") == pl.col("last"))["fname"].to_list()}
                st = syn_timeouts(ev)
                to = timeouts(r, names)["timeouts"]
                acc["pages"] += r.pages.height
                acc["drops"] += ev.filter(pl.col("event") == ord("d")).height
                acc["tail"] += d.filter(pl.col("seqno") == pl.col("last")).height
                acc["syn_to"] += st
                acc["data_to"] += to - st
                for pair, page, t in r.pages.select("pair", "page", "download_s").iter_rows():
                    if page == 0 and t is not None:
                        cold[(pair, page) in tails].append(t)
            n = acc["pages"]
            mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
            print(f"{path} {scheme}, {len(sc.seeds)} seeds, per page: drops {acc['drops'] / n:.2f}, connections' last "
                  f"segments lost {acc['tail'] / n:.2f}, SYN timeouts {acc['syn_to'] / n:.2f}, data timeouts "
                  f"{acc['data_to'] / n:.2f}; cold pages that lost a last segment: {len(cold[True])}, mean "
                  f"{mean(cold[True]):.2f} s; the others: {len(cold[False])}, mean {mean(cold[False]):.2f} s")


def f610fair(seed: int = 1) -> None:
    """Fig. 6.10 at 1 and 10 images, 10 seeds: Jain's index over the page times (spec
    0.2, the claim's), and as readings over the pages' rates (1 / time) and with the SYN
    exchange left out; plus the spread of the page times."""
    from .ch6 import jain

    for images in (1, 10):
        for scheme in ("httpconc", "session"):
            for label, ov in (("scenario", None), ("no SYN", no_syn)):
                jt, jr, lo, hi = [], [], [], []
                for sd in range(1, 11):
                    r, _, _ = run_point("ch6/fig6_10.toml", {"flows.web.app.images": images, "scheme": scheme}, sd,
                                        overrides=ov)
                    t = [x for x in page_times(r) if x == x]
                    jt.append(jain(t))
                    jr.append(jain([1 / x for x in t]))
                    lo.append(min(t))
                    hi.append(max(t))
                print(f"{images} images {scheme} {label}: Jain over times {sum(jt) / 10:.2f}, over rates "
                      f"{sum(jr) / 10:.2f}; pages {min(lo):.1f}..{max(hi):.1f} s")


DIAGS: dict[str, Callable[..., None]] = {
    "f68": f68, "f68n": f68n, "f68tail": f68tail, "f68jitter": f68jitter, "f69": f69,
    "f610": f610, "f610m": f610m, "f610fair": f610fair, "f611": f611, "f611m": f611m, "f611busy": f611busy,
    "f612": f612, "f612m": f612m, "f612nosyn": f612nosyn, "f612syn": f612syn, "f613": f613, "f613share": f613share,
    "f614": f614, "f615": f615, "xsession": xsession, "xliss": xliss, "f74": f74, "f75": f75,
}


def main(argv: list[str]) -> None:
    if not argv or argv[0] == "list":
        for k, f in DIAGS.items():
            print(f"{k}: {(f.__doc__ or '').strip().splitlines()[0]}")
        return
    if argv[0] not in DIAGS:
        raise SystemExit(f"unknown diagnosis {argv[0]!r}; one of: {', '.join(DIAGS)}")
    if len(argv) > 1 and not argv[1].isdigit():
        raise SystemExit(f"seed must be a positive integer, got {argv[1]!r}")
    DIAGS[argv[0]](int(argv[1]) if len(argv) > 1 else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
