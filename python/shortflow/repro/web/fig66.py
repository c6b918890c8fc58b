"""Thesis Fig. 6.6 (§6.5.1, spec C.8.1) for ``repro web``: competition vs sharing between
four concurrent connections of one host pair (1.5 Mb/s, RTT 100 ms, 4-packet buffer,
launched 1.5 s apart), (a) as independent TCP connections, (b) in one TCP session.

The thesis shows one sequence plot per case and states in words what it sees: with
independent connections "a subset of the connections makes progress while the rest
stagnate" (connection #3 waits until #4 starts; #1 has long timeout gaps); with the
session "the performance is much more consistent": every active connection gets an equal
share, and a new connection slows the others "a little" to make room. We measure that
from the acks at the server, per connection: the longest time without ack progress
(from its start, through timeouts, to the end of the run), Jain's index of the four
connections' acked segments per 1 s bin once all four run, and, at each join, the
rate of the connections already running in the second after the newcomer's start
against the second before it. Scenario: ``scenarios/web/ch6/fig6_6.toml``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..claims import Claim
from .common import load_web

SCENARIO = "ch6/fig6_6.toml"
#: Bin for the per-connection rates (s): 1 s = about 180 segments of the 1.5 Mb/s link.
BIN_S = 1.0
#: The window after a join in which the running connections' rate is taken starts this
#: long after the newcomer's start (its SYN round trip plus one more), and lasts BIN_S.
JOIN_LAG_S = 0.25
#: F.19: a number the thesis implies is matched within +-30 %.
TOL = 0.30
NAMES = {f"img.{k}": f"#{k}" for k in range(1, 5)}
#: The bottleneck's rate in segments per second (1.5 Mb/s, 1064 B on the wire).
LINK_SEGS_PER_S = 1.5e6 / (1064 * 8)


def _ack_progress(r, cfg: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """Per connection: the times at which its cumulative ack advanced, and the ack."""
    names = [f["name"] for f in cfg["flows"]]
    a = r.acks.with_columns((pl.col("time_ns") / 1e9).alias("time_s"))
    out = {}
    for i, n in enumerate(names):
        q = a.filter(pl.col("flow") == i).sort("time_ns")
        q = q.with_columns(pl.col("ackno").cum_max().alias("hi"))
        q = q.filter(pl.col("hi") > pl.col("hi").shift(1, fill_value=-(10**9)))
        out[n] = q.select("time_s", pl.col("hi").alias("ackno"))
    return out


def _longest_stall(t: list[float], start: float, end: float) -> float:
    """Longest time without ack progress from `start` (the connection's start) to `end`."""
    marks = [start] + [x for x in t if start <= x <= end] + [end]
    return max(b - a for a, b in zip(marks, marks[1:]))


def _acked_between(q: pl.DataFrame, lo: float, hi: float) -> int:
    before = q.filter(pl.col("time_s") < lo)["ackno"].max()
    upto = q.filter(pl.col("time_s") < hi)["ackno"].max()
    return int((upto or 0) - (before or 0)) if upto is not None else 0


def measure(r, cfg: dict[str, Any], end: float) -> dict[str, Any]:
    """The Fig. 6.6 numbers of one run (see the module docstring)."""
    from .ch6 import jain

    prog = _ack_progress(r, cfg)
    fl = r.flows
    start = {n: float(fl.filter(pl.col("flow") == n)["start_s"][0]) for n in NAMES}
    stalls = {n: _longest_stall(prog[n]["time_s"].to_list(), start[n], end) for n in NAMES}
    all_on = max(start.values()) + JOIN_LAG_S
    bins, t = [], all_on
    while t + BIN_S <= end + 1e-9:
        bins.append(jain([float(_acked_between(prog[n], t, t + BIN_S)) for n in NAMES]))
        t += BIN_S
    order = sorted(NAMES, key=lambda n: start[n])
    joins, shares, busy = [], [], []
    for j in range(1, len(order)):
        s = start[order[j]]
        running = order[:j]
        before = sum(_acked_between(prog[n], s - BIN_S, s) for n in running)
        after = sum(_acked_between(prog[n], s + JOIN_LAG_S, s + JOIN_LAG_S + BIN_S) for n in running)
        after_all = sum(_acked_between(prog[n], s + JOIN_LAG_S, s + JOIN_LAG_S + BIN_S) for n in NAMES)
        joins.append(after / before if before else float("nan"))
        # Diagnosis of f66b-join (not its rule): the running connections' share of
        # everything acked after the join, and how busy the link was in the second before
        # (acked segments against the link's rate).
        shares.append(after / after_all if after_all else float("nan"))
        busy.append(before / (BIN_S * LINK_SEGS_PER_S))
    row: dict[str, Any] = {f"stall_{NAMES[n][1:]}_s": stalls[n] for n in NAMES}
    row.update({"max_stall_s": max(stalls.values()), "jain_all_on": sum(bins) / len(bins) if bins else float("nan"),
                "min_jain_all_on": min(bins) if bins else float("nan")})
    row.update({f"join{j + 1}_ratio": v for j, v in enumerate(joins, start=1)})
    row.update({f"join{j + 1}_share_after": v for j, v in enumerate(shares, start=1)})
    row.update({f"join{j + 1}_busy_before": v for j, v in enumerate(busy, start=1)})
    row["timeouts"] = int(fl.filter(pl.col("flow").is_in(list(NAMES)))["timeouts"].sum())
    row["acked_segs"] = {n: int(prog[n]["ackno"].max() or 0) for n in NAMES}
    return row


def run_fig(quick: bool, log: Callable[[str], None]) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """Every run: one row per (scheme, seed); the first seed's send traces for the plot."""
    from .ch7 import _run, _sends

    sc = load_web(SCENARIO)
    end = float(sc.to_sim_config(sc.points()[0], sc.seeds[0])["duration_s"])
    seeds = sc.seeds[:2] if quick else sc.seeds
    rows, traces = [], {}
    t0 = time.perf_counter()
    for p in sc.points():
        for seed in seeds:
            cfg, r = _run(sc, p, seed, links=["server->r1"], acks=True)
            m = measure(r, cfg, end)
            acked = m.pop("acked_segs")
            rows.append({"scheme": p["scheme"], "seed": seed, **m,
                         **{f"acked_{NAMES[n][1:]}": v for n, v in acked.items()}})
            if seed == seeds[0]:
                traces[p["scheme"]] = _sends(r, cfg)
    log(f"Fig. 6.6: {len(rows)} runs in {time.perf_counter() - t0:.1f} s")
    return pl.DataFrame(rows), traces


def claims(t: pl.DataFrame) -> list[Claim]:
    def mean(scheme: str, col: str) -> float:
        return float(t.filter(pl.col("scheme") == scheme)[col].mean())

    def worst(scheme: str, col: str) -> float:
        return float(t.filter(pl.col("scheme") == scheme)[col].max())

    n = t.filter(pl.col("scheme") == "session").height
    ind_stall, ses_stall = mean("independent", "max_stall_s"), mean("session", "max_stall_s")
    ind_j, ses_j = mean("independent", "jain_all_on"), mean("session", "jain_all_on")
    joins = {k: mean("session", f"join{k}_ratio") for k in (2, 3, 4)}
    expect = {k: (k - 1) / k for k in joins}
    join_ok = all(abs(joins[k] / expect[k] - 1) <= TOL for k in joins)
    ind_joins = ", ".join(f"{mean('independent', f'join{k}_ratio'):.2f}" for k in joins)
    ses_shares = ", ".join(f"{mean('session', f'join{k}_share_after'):.2f}" for k in joins)
    ses_busy = ", ".join(f"{mean('session', f'join{k}_busy_before'):.2f}" for k in joins)
    return [
        Claim("f66a-stagnate", "Fig. 6.6a", "with independent connections a subset of the connections makes progress "
              "while the rest stagnate (#3 waits until #4 starts; #1 has long timeout gaps)",
              f"longest time without ack progress of any connection: {ind_stall:.2f} s (mean of {n} seeds; worst "
              f"{worst('independent', 'max_stall_s'):.2f} s)", "at least 1 s (10 RTTs) on average", ind_stall >= 1.0,
              "ours"),
        Claim("f66b-equal", "Fig. 6.6b", "with TCP session every active connection's slope is about equal (round "
              "robin gives each an equal share)", f"Jain index of the 4 connections' acked segments per {BIN_S:.0f} s "
              f"bin once all run: session {ses_j:.3f} (lowest bin {float(t.filter(pl.col('scheme') == 'session')['min_jain_all_on'].min()):.3f}), "
              f"independent {ind_j:.3f}", "session at least 0.95", ses_j >= 0.95, "ours"),
        Claim("f66-consistent", "Fig. 6.6", "the performance with TCP session is much more consistent than with "
              "independent connections", f"longest stall: session {ses_stall:.2f} s vs independent {ind_stall:.2f} s; "
              f"Jain {ses_j:.3f} vs {ind_j:.3f}", "session's stall shorter and its Jain index higher",
              ses_stall < ind_stall and ses_j > ind_j, "thesis"),
        Claim("f66b-join", "Fig. 6.6b", "when a new connection starts, the connections already active are slowed down "
              "a little to accommodate it", "rate of the running connections in the second after a join / the second "
              "before: " + ", ".join(f"{k - 1}->{k}: {joins[k]:.2f}" for k in joins)
              + f" (independent: {ind_joins}); diagnosis, not the rule: the link was {ses_busy} busy in the "
              f"second before each join, and the running connections hold {ses_shares} of all acked segments after it",
              "each within ±30 % of an equal share with the newcomer, (k-1)/k",
              join_ok, "ours"),
    ]


def plot(traces: dict[str, pl.DataFrame], path: Path) -> Path:
    from .ch7 import _plot_seq

    return _plot_seq(traces, path, "Thesis Fig. 6.6 simulated: 4 connections 1.5 s apart, 1.5 Mb/s, RTT 100 ms, "
                     "4-packet buffer", NAMES)


def run(out: Path, quick: bool, log: Callable[[str], None]) -> tuple[list[Claim], list[str]]:
    """Run Fig. 6.6 into ``out``; the claims and the file names written (relative to ``out``)."""
    t, traces = run_fig(quick, log)
    t.write_csv(out / "fig6_6.csv")
    return claims(t), ["fig6_6.csv", plot(traces, out / "fig6_6.png").name]
