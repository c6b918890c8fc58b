"""Plots of a sweep directory: mean completion time with 95% CI across seeds versus
the swept numeric axis, one line per scheme / other axis values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

import polars as pl

from .errors import Problem, ScenarioError, suggest
from .mpl import DODGE_NOTE, dodge_offsets, errorbar, integer_ticks, pyplot, save
from .stats import point_columns, summarize
from .sweeper import load_results
from .units import parse_quantity

__all__ = ["make_plots", "numeric_axis"]

_UNIT_LABEL = {"time": "s", "rate": "bit/s", "size": "bytes"}


def _numeric_values(values: Sequence[Any]) -> Optional[tuple[list[float], str]]:
    """Values of an axis as numbers (numbers, or unit strings of one kind) + unit label."""
    if not values:
        return None
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values], ""
    parsed = [parse_quantity(v) for v in values]
    if all(p is not None for p in parsed):
        kinds = {p[1] for p in parsed}  # type: ignore[index]
        if len(kinds) == 1:
            return [p[0] for p in parsed], _UNIT_LABEL[kinds.pop()]  # type: ignore[index]
    return None


def numeric_axis(df: pl.DataFrame, axes: Sequence[str]) -> Optional[str]:
    """The first axis with at least two distinct numeric (or unit-string) values."""
    for a in axes:
        vals = df[a].unique(maintain_order=True).to_list()
        if len(vals) >= 2 and _numeric_values(vals) is not None:
            return a
    return None


def _label(keys: Sequence[str], values: Sequence[Any]) -> str:
    if not keys:
        return "all"
    if len(keys) == 1 and keys[0] == "scheme":
        return str(values[0])
    return ", ".join(f"{k}={v}" for k, v in zip(keys, values))


def make_plots(out: str | Path, metric: str = "completion_s", x: Optional[str] = None) -> list[Path]:
    """Draw the plots of a sweep directory into ``out/plots``; returns the PNG paths."""
    plt = pyplot()
    out = Path(out)
    df, meta = load_results(out)
    axes = point_columns(df, list(meta.get("axes", {})) or None)
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    title = meta.get("scenario") or (df["scenario"][0] if df.height else out.name)
    xa = x if x is not None else numeric_axis(df, axes)
    if x is not None and x not in axes:
        raise ScenarioError(str(out), [Problem("--x", f"not a swept axis (axes: {', '.join(axes) or 'none'})", x,
                                               suggest(x, axes))])
    line_axes = [a for a in axes if a != xa]
    groups = df["group"].unique(maintain_order=True).to_list() if df.height else []
    paths: list[Path] = []
    for group in groups or [None]:
        sub = df.filter(pl.col("group") == group) if group is not None else df
        suffix = f"_{group}" if group is not None and len(groups) > 1 else ""
        if xa is not None:
            paths.append(_line_plot(plt, sub, xa, line_axes, metric, title, group, plots / f"{metric}_vs_{_safe(xa)}{suffix}.png"))
        else:
            paths.append(_bar_plot(plt, sub, line_axes, metric, title, group, plots / f"{metric}{suffix}.png"))
            paths.append(_cdf_plot(plt, sub, line_axes, metric, title, group, plots / f"{metric}_cdf{suffix}.png"))
    (plots / "plots.json").write_text(json.dumps({"x": xa, "lines": line_axes, "files": [p.name for p in paths]}, indent=1))
    return paths


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in s)


def _ylabel(metric: str) -> str:
    return {"completion_s": "mean completion time (s)"}.get(metric, f"mean {metric}")


def _floor(df: pl.DataFrame, metric: str) -> Optional[float]:
    """0 for a metric that cannot be negative (times, counts): CI bars stop there."""
    lo = df[metric].drop_nulls().min() if metric in df.columns and df.height else None
    return 0.0 if lo is None or lo >= 0 else None


def _line_plot(plt: Any, df: pl.DataFrame, xa: str, line_axes: list[str], metric: str, title: str,
               group: Optional[str], path: Path) -> Path:
    s = summarize(df, line_axes + [xa], metric)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    lines = s.select(line_axes).unique(maintain_order=True).rows() if line_axes else [()]
    series = []
    for combo in lines:
        part = s
        for k, v in zip(line_axes, combo):
            part = part.filter(pl.col(k) == v) if v is not None else part.filter(pl.col(k).is_null())
        nv = _numeric_values(part[xa].to_list())
        if nv is not None:
            series.append((combo, part, nv))
    unit = series[0][2][1] if series else ""
    all_x = [x for _, _, (xs, _) in series for x in xs]
    offsets = dodge_offsets(all_x, len(series))
    floor = _floor(df, metric)
    for (combo, part, (xs, _)), off in zip(series, offsets):
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        ys, ci = part["mean"].to_list(), part["ci95"].to_list()
        errorbar(ax, [xs[i] for i in order], [ys[i] for i in order], [ci[i] for i in order], offset=off, floor=floor,
                 marker="o", capsize=3, label=_label(line_axes, combo))
    integer_ticks(ax, all_x)
    if floor is not None:
        ax.set_ylim(bottom=floor)
    ax.set_xlabel(f"{xa}" + (f" ({unit})" if unit else ""))
    ax.set_ylabel(_ylabel(metric))
    ax.set_title(title + (f" — {group}" if group else ""))
    ax.grid(True, alpha=0.3)
    if line_axes:
        ax.legend(fontsize="small")
    note = "error bars: 95% CI across seeds" + (f"; {DODGE_NOTE}" if len(series) > 1 else "")
    fig.text(0.99, 0.005, note, ha="right", va="bottom", fontsize="x-small", alpha=0.6)
    return save(fig, path)


def _bar_plot(plt: Any, df: pl.DataFrame, line_axes: list[str], metric: str, title: str, group: Optional[str],
              path: Path) -> Path:
    s = summarize(df, line_axes, metric)
    labels = [_label(line_axes, r) for r in (s.select(line_axes).rows() if line_axes else [()])]
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(labels) + 2), 4.5), dpi=110)
    ys = [v if v is not None else 0.0 for v in s["mean"].to_list()]
    ax.bar(range(len(ys)), ys, color="tab:blue", alpha=0.8)
    if any(c is not None for c in s["ci95"].to_list()):  # one seed: no CI to draw
        errorbar(ax, range(len(ys)), ys, s["ci95"].to_list(), floor=_floor(df, metric), fmt="none", ecolor="black",
                 capsize=4)
    ax.set_xticks(range(len(ys)), labels, rotation=20 if len(labels) > 3 else 0, ha="right" if len(labels) > 3 else "center")
    ax.set_ylabel(_ylabel(metric))
    ax.set_title(title + (f" — {group}" if group else ""))
    ax.grid(True, axis="y", alpha=0.3)
    return save(fig, path)


def _cdf_plot(plt: Any, df: pl.DataFrame, line_axes: list[str], metric: str, title: str, group: Optional[str],
              path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    combos = df.select(line_axes).unique(maintain_order=True).rows() if line_axes else [()]
    for combo in combos:
        part = df
        for k, v in zip(line_axes, combo):
            part = part.filter(pl.col(k) == v)
        vals = sorted(part[metric].drop_nulls().to_list())
        if not vals:
            continue
        n = len(vals)
        ax.step(vals, [(i + 1) / n for i in range(n)], where="post", label=_label(line_axes, combo))
    ax.set_xlabel(metric.replace("_s", " (s)"))
    ax.set_ylabel("fraction of transfers")
    ax.set_title(title + (f" — {group}" if group else "") + ": CDF")
    ax.grid(True, alpha=0.3)
    if line_axes:
        ax.legend(fontsize="small")
    return save(fig, path)



# --- trace views (thesis Figs. 9.2, 9.5, 9.6 style) -----------------------------------


def trace_frames(res: Any, flow: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """For flow ``flow`` of a run (``RunResults`` with ``trace.acks`` and/or
    ``trace.packets`` on): (segments sent: time_s, seqno -- from the packet trace's
    enqueue events of data packets on the flow's first traced link; acks arriving at the
    sender: time_s, ackno -- from the ack trace). Empty frames where a trace was off."""
    names = res.flow_names()
    if flow not in names:
        hint = suggest(flow, names)
        raise ScenarioError(None, [Problem("flow", f"no such connection{f' (did you mean {hint!r}?)' if hint else ''}; "
                                           f"connections: {', '.join(names)}", flow)])
    ix = names.index(flow)
    acks = res.acks.filter(pl.col("flow") == ix).select((pl.col("time_ns") / 1e9).alias("time_s"), "ackno")
    pk = res.packets.filter((pl.col("flow") == ix) & (pl.col("kind") == 0) & (pl.col("event") == ord("+")))
    if pk.height:
        first_link = pk["link"][0]
        pk = pk.filter(pl.col("link") == first_link)
    segs = pk.select((pl.col("time_ns") / 1e9).alias("time_s"), "seqno")
    return segs, acks


def trace_plot(res: Any, flow: str, out: str | Path, *, title: Optional[str] = None,
               t_range: Optional[tuple[float, float]] = None) -> Path:
    """Sequence number of the segments sent and of the acks arriving at the sender over
    time, for one flow of one run (as in thesis Figs. 9.2, 9.5 and 9.6)."""
    plt = pyplot()
    segs, acks = trace_frames(res, flow)
    if t_range is not None:
        lo, hi = t_range
        segs = segs.filter(pl.col("time_s").is_between(lo, hi))
        acks = acks.filter(pl.col("time_s").is_between(lo, hi))
    fig, ax = plt.subplots(figsize=(7, 4))
    if segs.height:
        ax.plot(segs["time_s"], segs["seqno"], ".", ms=2, label="segment sent")
    if acks.height:
        ax.plot(acks["time_s"], acks["ackno"], "x", ms=3, label="ack arrival at the sender")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence number (packets)")
    ax.set_title(title or f"flow {flow}")
    if segs.height or acks.height:
        ax.legend(loc="upper left")
    return save(fig, out)
