"""The analysis' table and figures in the style of the thesis' ch. 4: Table 4.1 (summary),
Fig. 4.4 (CDF of the receiver's advertised window), Fig. 4.5 (CDF of the per-host
correlation between throughput and concurrent connections, and the throughput against n),
Fig. 4.6 (losers m against n per loss epoch) and Fig. 4.7 (effective backoff against n)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import polars as pl

from ..mpl import integer_ticks, pyplot, save
from .analyze import Analysis

__all__ = ["table_4_1", "make_figures", "THESIS_TABLE_4_1"]

#: Table 4.1 of the thesis (IBM 1996 Olympics server, 3 busy hours): value and % of its category.
THESIS_TABLE_4_1 = {
    "connections": (1_650_103, None),
    "packets_s2c_data_first": (7_821_638, None),
    "packets_slow_start": (6_662_050, 85),
    "packets_cong_avoid": (1_159_588, 15),
    "retransmissions": (857_142, None),
    "rexmt_fast": (375_306, 44),
    "rexmt_slow_start": (59_811, 7),
    "rexmt_timeout": (422_025, 49),
    "timeouts_sack_avoidable": (18_713, 4),
    "connections_with_dupack": (104_287, 25),
}

_LABELS = {
    "connections": "Total connections",
    "packets_s2c_data_first": "Total packets (server data, first transmissions)",
    "packets_slow_start": "  sent during slow start (emulated Reno)",
    "packets_cong_avoid": "  sent during congestion avoidance",
    "retransmissions": "Total retransmissions (data segments resent)",
    "rexmt_fast": "  fast retransmissions",
    "rexmt_slow_start": "  slow-start retransmissions",
    "rexmt_timeout": "  coarse-timeout retransmissions",
    "timeouts_sack_avoidable": "  timeouts avoidable with SACK",
    "connections_with_dupack": "Connections with >= 1 duplicate ACK",
}


def table_4_1(summary: dict[str, Any]) -> pl.DataFrame:
    """Table 4.1's rows: our value and percentage next to the thesis'."""
    rows = []
    for key, label in _LABELS.items():
        tv, tp = THESIS_TABLE_4_1[key]
        pct = summary.get(f"{key}_pct")
        rows.append({"statistic": label.strip(), "key": key, "value": summary.get(key), "pct": pct,
                     "thesis_value": tv, "thesis_pct": tp})
    return pl.DataFrame(rows, schema={"statistic": pl.Utf8, "key": pl.Utf8, "value": pl.Int64, "pct": pl.Float64,
                                      "thesis_value": pl.Int64, "thesis_pct": pl.Float64})


def _cdf(ax: Any, values: list[float], **style: Any) -> None:
    v = sorted(values)
    n = len(v)
    ax.step(v, [(i + 1) / n for i in range(n)], where="post", **style)


def _empty(ax: Any, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in this capture", ha="center", va="center", transform=ax.transAxes, alpha=0.7)


def make_figures(a: Analysis, out: str | Path, title: Optional[str] = None) -> list[Path]:
    """Write the figures into ``out`` (created); returns their paths."""
    plt = pyplot()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    title = title or "capture"
    paths = []
    c = a.connections
    # Fig. 4.4: the receiver's advertised window
    fig, ax = plt.subplots(figsize=(6.5, 4.2), dpi=110)
    rw = c["s2c_rwnd_max"].drop_nulls().to_list() if c.height else []
    if rw:
        _cdf(ax, [x / 1024 for x in rw], label="largest advertised window per connection")
        for k in (4, 8, 16, 32, 64):
            ax.axvline(k, color="grey", lw=0.5, alpha=0.5)
        ax.set_xscale("log", base=2)
        ax.legend(fontsize="small")
    else:
        _empty(ax, "advertised windows")
    ax.set_xlabel("receiver-advertised window (KB)")
    ax.set_ylabel("fraction of connections")
    ax.set_title(f"{title}: receiver window (cf. thesis Fig. 4.4)")
    ax.grid(True, alpha=0.3)
    paths.append(save(fig, out / "fig4_4_rwnd_cdf.png"))
    # Fig. 4.5: correlation CDF, and the throughput against n
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    corr = a.hosts["correlation"].drop_nulls().to_list() if a.hosts.height else []
    if corr:
        _cdf(ax, corr, label=f"{len(corr)} hosts")
        ax.axvline(0, color="grey", lw=0.8)
        ax.legend(fontsize="small")
    else:
        _empty(ax, "host with >= 10 periods of >= 5 KB")
    ax.set_xlim(-1, 1)
    ax.set_xlabel("correlation of throughput with n (per host)")
    ax.set_ylabel("fraction of hosts")
    ax.set_title("cf. thesis Fig. 4.5")
    ax.grid(True, alpha=0.3)
    p = a.periods
    if p.height:
        ax2.scatter(p["n"].to_list(), [x * 8 / 1e3 for x in p["throughput_Bps"].to_list()], s=8, alpha=0.5)
        g = p.group_by("n").agg(pl.col("throughput_Bps").mean()).sort("n")
        ax2.plot(g["n"].to_list(), [x * 8 / 1e3 for x in g["throughput_Bps"].to_list()], "o-", color="tab:red",
                 label="mean")
        integer_ticks(ax2, p["n"].to_list())
        ax2.legend(fontsize="small")
    else:
        _empty(ax2, "period of >= 5 KB")
    ax2.set_xlabel("concurrent connections n")
    ax2.set_ylabel("throughput of the period (kbit/s)")
    ax2.set_title(f"{title}: throughput vs concurrent connections")
    ax2.grid(True, alpha=0.3)
    paths.append(save(fig, out / "fig4_5_concurrency.png"))
    # Figs. 4.6 and 4.7: loss epochs
    e = a.epochs
    fig, ax = plt.subplots(figsize=(6.5, 4.2), dpi=110)
    if e.height:
        g = e.group_by("n").agg(pl.col("m").mean(), pl.len().alias("epochs")).sort("n")
        ax.plot(g["n"].to_list(), g["m"].to_list(), "o-", label="mean m (connections with a loss)")
        ax.plot(g["n"].to_list(), [x / 2 for x in g["n"].to_list()], "--", color="grey", label="n/2")
        integer_ticks(ax, g["n"].to_list())
        ax.legend(fontsize="small")
    else:
        _empty(ax, "loss epoch")
    ax.set_xlabel("connections with data outstanding n")
    ax.set_ylabel("connections with a loss in the epoch")
    ax.set_title(f"{title}: losers per loss epoch (cf. thesis Fig. 4.6)")
    ax.grid(True, alpha=0.3)
    paths.append(save(fig, out / "fig4_6_losers.png"))
    fig, ax = plt.subplots(figsize=(6.5, 4.2), dpi=110)
    if e.height:
        cols = {"factor_concurrent_fast": "Concurrent Fast Recovery", "factor_concurrent_timeout":
                "Concurrent Coarse Timeouts", "factor_actual": "as recovered (fast: 1/2, timeout: 1 MSS)",
                "factor_tcp_fast": "TCP Fast Recovery", "factor_tcp_timeout": "TCP Coarse Timeouts"}
        g = e.group_by("n").agg([pl.col(k).mean() for k in cols]).sort("n")
        for k, label in cols.items():
            ax.plot(g["n"].to_list(), g[k].to_list(), "o-" if "concurrent" in k or k == "factor_actual" else "--",
                    label=label)
        integer_ticks(ax, g["n"].to_list())
        ax.set_ylim(0, 1.05)
        ax.legend(fontsize="small")
    else:
        _empty(ax, "loss epoch")
    ax.set_xlabel("connections with data outstanding n")
    ax.set_ylabel("aggregate window after / before")
    ax.set_title(f"{title}: effective backoff (cf. thesis Fig. 4.7)")
    ax.grid(True, alpha=0.3)
    paths.append(save(fig, out / "fig4_7_backoff.png"))
    return paths
