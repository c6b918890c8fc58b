"""Writing a :class:`LogReport`: CSVs, ``summary.json`` and the Fig. 6/7 plots."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Iterable

from .analyze import LogReport

__all__ = ["OutputError", "check_out_dir", "plot_fig6", "plot_fig7", "write_outputs"]


class OutputError(OSError):
    """An output directory or file that cannot be written; the message names it."""


def check_out_dir(out_dir: str | os.PathLike) -> Path:
    """``out_dir`` as a Path, if it is a directory or can be made one (checked before a
    long analysis, so that a bad ``--out`` fails at once)."""
    out = Path(out_dir)
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                what = "is" if p == out else f"is inside {p}, which is"
                raise OutputError(f"--out {out}: {what} an existing file, not a directory")
            if not os.access(p, os.W_OK | os.X_OK):
                raise OutputError(f"--out {out}: {p} is not writable")
            break
    return out


def _write_cdf(p: Path, x_name: str, cdf: tuple[Iterable[float], Iterable[float]], counts: Iterable[int]) -> Path:
    """One empirical CDF as CSV: value, count, cumulative fraction."""
    x, f = cdf
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([x_name, "count", "cdf"])
        for v, c, y in zip(x, counts, f):
            w.writerow([v, c, f"{y:.9f}"])
    return p


def write_outputs(report: LogReport, out_dir: str | os.PathLike = "out/logs", plots: bool = True) -> dict[str, Path]:
    """Write ``gap_cdf.csv``, ``nets5min_cdf.csv``, ``summary.json``, the
    ``prefix_check.csv`` / ``prefix_mixed.csv`` pair (if a hostname map was
    given) and ``fig6_gap_cdf.png`` / ``fig7_nets_cdf.png``.  Returns name → path."""
    out = check_out_dir(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        return _write_all(report, out, plots)
    except OutputError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write {e.filename or out}: {e.strerror or e}") from None


def _write_all(report: LogReport, out: Path, plots: bool) -> dict[str, Path]:
    written: dict[str, Path] = {}

    written["gap_cdf"] = _write_cdf(out / "gap_cdf.csv", "gap_s", report.gap_cdf(), report.gap_counts)
    written["nets5min_cdf"] = _write_cdf(out / "nets5min_cdf.csv", "networks", report.nets_cdf(),
                                         report.nets_counts)

    pc = report.prefix_check
    if pc is not None:
        p = out / "prefix_check.csv"
        with p.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["metric", "value", "percent"])
            w.writerow(["ips", pc.ips, ""])
            w.writerow(["resolved_ips", pc.resolved, f"{pc.resolved_pct:.4f}"])
            w.writerow([f"resolved_prefixes_/{pc.prefix}", pc.prefixes, ""])
            w.writerow([f"mixed_prefixes_/{pc.prefix}", pc.mixed, f"{pc.mixed_pct:.4f}"])
        written["prefix_check"] = p
        p = out / "prefix_mixed.csv"
        with p.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["network", "resolved_ips", "domains", "domain_list"])
            for net, n, doms in pc.mixed_examples:
                w.writerow([net, n, len(doms), ";".join(doms)])
        written["prefix_mixed"] = p

    p = out / "summary.json"
    p.write_text(json.dumps(report.summary(), indent=2) + "\n")
    written["summary"] = p

    if plots:
        written["fig6"] = plot_fig6(report, out / "fig6_gap_cdf.png")
        written["fig7"] = plot_fig7(report, out / "fig7_nets_cdf.png")
    return written


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _style(ax) -> None:
    ax.set_ylim(0.0, 1.0)
    ax.grid(True, which="major", linestyle=":", linewidth=0.6, color="0.6")
    for s in ("top", "right"):
        ax.spines[s].set_visible(True)
    ax.tick_params(direction="in", which="both", top=True, right=True)


def plot_fig6(report: LogReport, path: str | os.PathLike) -> Path:
    """Fig. 6: CDF of the time between consecutive requests from the same network (log x)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.0, 3.6), dpi=150)
    x, f = report.gap_cdf()
    if x:
        # 0 s gaps cannot sit on a log axis: the curve starts at 1 s, where
        # F(1) already includes them (their share is stated in the legend).
        xs = [max(v, 1) for v in x]
        ax.step(xs, f, where="post", color="black", linewidth=1.2, label=f"/{report.prefix} networks")
        ax.set_xscale("log")
        ax.set_xlim(1, max(xs[-1], report.window_s * 10))
        fr = report.frac_gaps_below()
        ax.axvline(report.window_s, color="0.4", linestyle="--", linewidth=0.8)
        if fr is not None:
            ax.annotate(
                f"{100 * fr:.1f}% < {report.window_s} s",
                xy=(report.window_s, fr),
                xytext=(6, -14),
                textcoords="offset points",
                fontsize=8,
            )
        fz = report.frac_gaps_below(1) or 0.0
        ax.plot([], [], " ", label=f"0 s gaps: {100 * fz:.1f}%")
        ax.legend(loc="lower right", fontsize=8, frameon=False)
    else:
        ax.text(0.5, 0.5, "no gaps", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("Time between consecutive requests (s)")
    ax.set_ylabel("Cumulative distribution")
    _style(ax)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)


def plot_fig7(report: LogReport, path: str | os.PathLike) -> Path:
    """Fig. 7: CDF over requests of the number of distinct networks in the next window."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.0, 3.6), dpi=150)
    x, f = report.nets_cdf()
    if x:
        ax.step([x[0]] + x, [0.0] + f, where="post", color="black", linewidth=1.2)
        lo, hi = x[0], x[-1]
        pad = max(1, (hi - lo) * 0.05)
        ax.set_xlim(max(0, lo - pad), hi + pad)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # a count of networks
        p50, p95 = report.nets_percentile(50), report.nets_percentile(95)
        ax.set_title(
            f"median {p50:,}, 95th pct {p95:,}, max {hi:,}  ({report.fig7_requests:,} requests)", fontsize=8
        )
    else:
        ax.text(0.5, 0.5, "no complete windows", ha="center", va="center", transform=ax.transAxes)
    mins = report.window_s / 60
    wtxt = f"{mins:g} minutes" if report.window_s % 60 == 0 else f"{report.window_s} s"
    ax.set_xlabel(f"Number of different /{report.prefix} client networks in the next {wtxt}")
    ax.set_ylabel("Cumulative distribution")
    _style(ax)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)
