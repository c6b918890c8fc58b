"""Thesis ch. 5's congestion-control traces (§5.5.3, Figs. 5.8 and 5.9; spec B.8) for
``repro web``, on the simulated DirecPC path of ``scenarios/web/ch5_satellite.toml``:
sequence number and cwnd against time for a page of 10 x 40 KB images on one persistent
connection, unpipelined and pipelined (Fig. 5.8), and two such pages 5 s apart (longer
than the RTO: slow-start restart, Fig. 5.9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import polars as pl

from ..claims import Claim
from .common import load_web

__all__ = ["run"]

POINT = {"flows.page.app.image": "40KiB", "flows.page.app.images": 10, "flows.page.app.pages": 2,
         "flows.page.app.think": "5s"}
#: Sends closer than this (s) belong to one back-to-back burst (a 1500-byte packet takes
#: 1.2 ms on the server's 10 Mb/s access link).
BURST_GAP_S = 0.005
#: The path's round-trip propagation delay (s): 298 + 33 + 4 x 1 ms.
RTT_S = 0.335


def _trace(mode: str) -> dict[str, Any]:
    from ...api import run_config
    sc = load_web("ch5_satellite.toml")
    cfg = sc.to_sim_config({**POINT, "flows.page.app.mode": mode}, sc.seeds[0])
    cfg["trace"] = {"packets": True, "cwnd": True, "links": ["page.s1->r1", "r1->r2"]}
    r = run_config(cfg)
    names = r.links["link"].to_list()
    p = r.packets.with_columns((pl.col("time_ns") / 1e9).alias("time_s"))
    sends = p.filter((pl.col("link") == names.index("page.s1->r1")) & (pl.col("event") == ord("+"))
                     & (pl.col("kind") == 0)).select("time_s", "seqno")
    drops = p.filter((pl.col("link") == names.index("r1->r2")) & (pl.col("event") == ord("d"))).height
    cw = r.cwnd.with_columns((pl.col("time_ns") / 1e9).alias("time_s")).select("time_s", "cwnd")
    # Bursts: runs of sends less than BURST_GAP_S apart.
    bursts: list[list[float]] = []  # [first send, segments, last send]
    for x in sends["time_s"].to_list():
        if bursts and x - bursts[-1][2] < BURST_GAP_S:
            bursts[-1][1] += 1
            bursts[-1][2] = x
        else:
            bursts.append([x, 1, x])
    return {"sends": sends, "cwnd": cw, "objects": r.objects, "pages": r.pages, "drops": drops,
            "bursts": [(b[0], int(b[1])) for b in bursts], "window": cfg["flows"][0]["tcp"]["window"]}


def _first_burst_after(tr: dict[str, Any], t0: float) -> tuple[float, int]:
    return next(b for b in tr["bursts"] if b[0] >= t0)


def _cwnd_before(tr: dict[str, Any], t0: float) -> float:
    c = tr["cwnd"].filter(pl.col("time_s") < t0)
    return float(c["cwnd"][-1]) if c.height else float("nan")


def claims(per: dict[str, dict[str, Any]]) -> tuple[list[Claim], pl.DataFrame]:
    pers, pipe = per["persistent"], per["getlist"]
    rows = []
    obj = pers["objects"].filter(pl.col("page") == 0).sort("object")
    for o in obj.filter(pl.col("object") >= 2).iter_rows(named=True):
        # The request reaches the server about one client->server delay after request_s.
        start, size = _first_burst_after(pers, o["request_s"])
        wnd = min(int(_cwnd_before(pers, start)), pers["window"])
        rows.append({"object": o["object"], "burst_at_s": start, "burst_segments": size, "window_before": wnd})
    t = pl.DataFrame(rows)
    full = t.filter(pl.col("window_before") >= 4)
    ok = full.height > 0 and bool((full["burst_segments"] >= full["window_before"]).all())
    out = [Claim(
        "c5t-f58-burst", "Fig. 5.8", "persistent, not pipelined (DirecPC, 40 KB images): after each request gap "
        "the server sends a full-cwnd back-to-back burst (cwnd is not reset: the gap is below the restart "
        "threshold)", "first burst / usable window before it, images 2-10: " + ", ".join(
            f"{r['burst_segments']}/{r['window_before']}" for r in t.iter_rows(named=True)),
        "burst = the usable window (min(cwnd, rwnd)) for every image whose window is >= 4", ok, "spec B.8")]
    out.append(Claim(
        "c5t-f58-loss", "Fig. 5.8", "the bursts cause heavy loss and often a timeout",
        f"bottleneck drops, whole run: {pers['drops']}", "drops > 0", pers["drops"] > 0, "thesis",
        "the spec's DirecPC emulation (F.18) has a 50-packet buffer and a 22-segment receiver window, so a "
        "burst never overflows it; the real DirecPC queue is not known"))
    # Pipelining removes the request gaps: pauses longer than half an RTT in the server's
    # sends while page 1's images go out (slow start's own pauses count in both modes).
    def pauses(tr: dict[str, Any]) -> int:
        o = tr["objects"].filter(pl.col("page") == 0).sort("object")
        a, b = float(o["request_s"][1]), float(o["end_s"][-1])
        s = tr["sends"].filter((pl.col("time_s") >= a) & (pl.col("time_s") <= b))["time_s"]
        return int((s.diff() > 0.5 * RTT_S).sum())
    gp, gl = pauses(pers), pauses(pipe)
    n_img = obj.height - 1
    out.append(Claim(
        "c5t-f58-pipelining", "§5.5.3", "pipelining removes the idle gap between images", f"pauses > RTT/2 in the "
        f"server's sends during the {n_img} images: persistent {gp}, pipelined {gl}",
        f"persistent >= {n_img - 1} (one per request gap), pipelined fewer", gp >= n_img - 1 and gl < gp, "thesis",
        "the pipelined connection's remaining pauses are slow start's, before its window exceeds the path"))
    # Fig. 5.9: the second page, after 5 s of think time (> RTO), starts from the initial window.
    pg = pers["pages"].sort("page")
    o1 = pers["objects"].filter((pl.col("page") == 1) & (pl.col("object") == 1))
    last0 = t["burst_segments"][-1]
    b1 = _first_burst_after(pers, float(o1["request_s"][0]))[1]
    out.append(Claim(
        "c5t-f59-restart", "Fig. 5.9", "after a think time longer than the RTO cwnd is reset, so the second page "
        "pays for slow start again", f"first image's first burst: page 2 {b1} segment(s) vs {last0} for page 1's "
        f"last image; page times {pg['download_s'][0]:.2f} / {pg['download_s'][1]:.2f} s",
        "page 2's first burst <= 2 segments", b1 <= 2, "thesis"))
    return out, t


def _plot(per: dict[str, dict[str, Any]], path: Path) -> Path:
    from ...mpl import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(16, 4), dpi=100)
    spans = [("persistent", 0, "Fig. 5.8: persistent, page 1"), ("getlist", 0, "pipelined (GETLIST), page 1"),
             ("persistent", None, "Fig. 5.9: persistent, two pages 5 s apart")]
    for ax, (mode, page, title) in zip(axes, spans):
        tr = per[mode]
        pg = tr["pages"].sort("page")
        lo, hi = (float(pg["start_s"][page]), float(pg["end_s"][page])) if page is not None else (0.0, float(pg["end_s"].max()))
        s = tr["sends"].filter((pl.col("time_s") >= lo) & (pl.col("time_s") <= hi))
        c = tr["cwnd"].filter((pl.col("time_s") >= lo) & (pl.col("time_s") <= hi))
        ax.plot(s["time_s"].to_list(), s["seqno"].to_list(), ".", ms=2, label="segment sent")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number (segments)")
        ax2 = ax.twinx()
        ax2.step(c["time_s"].to_list(), c["cwnd"].to_list(), where="post", color="C1", lw=1, label="cwnd")
        ax2.set_ylabel("cwnd (segments)")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    fig.suptitle("Thesis Figs. 5.8-5.9 simulated: DirecPC path (RTT 335 ms, 400 Kb/s), 10 x 40 KB images", fontsize=10)
    return save(fig, path)


def run(out: Path, log: Callable[[str], None]) -> tuple[list[Claim], list[str]]:
    """The traces into ``out`` (a directory); the claims and the files written (relative
    to ``out``'s parent)."""
    out.mkdir(parents=True, exist_ok=True)
    per = {m: _trace(m) for m in ("persistent", "getlist")}
    cl, t = claims(per)
    t.write_csv(out / "fig5_8_bursts.csv")
    png = _plot(per, out / "fig5_8_5_9.png")
    log("ch5 traces: 2 runs")
    return cl, [f"{out.name}/fig5_8_bursts.csv", f"{out.name}/{png.name}"]
