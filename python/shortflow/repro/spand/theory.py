"""Fig. 5 of the TCP/SPAND paper: the optimal initial window versus W_c for F = 30 packets
(spec §1.7, §4.1). Pure theory: the values come from the core's ``cwnd_opt_detail``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import polars as pl

from ...mpl import pyplot, save

__all__ = ["fig5_frame", "plot_fig5"]


def fig5_frame(f_pkts: int = 30, wcs: Sequence[int] = range(1, 41), bs: Sequence[float] = (1.0, 2.0)) -> pl.DataFrame:
    """One row per (b, W_c): the window with and without the Eq. (4) shift, and whether
    Eq. (3) was feasible (infeasible points use the Eq. (2) fallback, spec §1.4(4))."""
    from ...native import core

    c = core()
    rows: list[dict[str, Any]] = []
    for b in bs:
        for wc in wcs:
            d = c.cwnd_opt_detail(int(f_pkts), int(wc), float(b))
            rows.append({"F": int(f_pkts), "b": float(b), "W_c": int(wc), "cwnd_shift": int(d["cwnd"]),
                         "cwnd_no_shift": int(d["cwnd_no_shift"]), "feasible": bool(d["feasible"]),
                         "F_E": float(d["f_e"])})
    return pl.DataFrame(rows)


def plot_fig5(df: pl.DataFrame, path: Path) -> Path:
    """Paper-style Fig. 5: initial cwnd vs W_c, with/without shift, plus y = x (b = 1 solid,
    b = 2 as an extra dashed curve)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.6), dpi=110)
    wmax = int(df["W_c"].max())
    ax.plot([0, wmax], [0, wmax], color="0.5", lw=1, ls=":", label="y = x (reuse $W_c$)")
    styles = {1.0: ("-", "tab:red", "tab:blue"), 2.0: ("--", "tab:pink", "tab:cyan")}
    for b in sorted(set(df["b"].to_list())):
        part = df.filter(pl.col("b") == b).sort("W_c")
        ls, c_no, c_sh = styles.get(b, ("-.", "tab:gray", "tab:green"))
        ax.step(part["W_c"], part["cwnd_no_shift"], where="mid", ls=ls, color=c_no, marker="x", ms=3,
                label=f"without shift (b = {b:g})")
        ax.step(part["W_c"], part["cwnd_shift"], where="mid", ls=ls, color=c_sh, marker="o", ms=3,
                label=f"with shift (b = {b:g})")
    f = int(df["F"][0])
    ax.set_xlabel("$W_c$ (packets)")
    ax.set_ylabel("initial cwnd (packets)")
    ax.set_title(f"Fig. 5: optimal initial window, F = {f} packets")
    ax.set_xlim(0, wmax + 1)
    ax.set_ylim(0, wmax + 1)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    return save(fig, path)
