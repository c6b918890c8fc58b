"""The ``shortflow`` command line (typer + rich).

User mistakes (scenario errors, bad units, configurations the core rejects) print one
clear message and exit with status 2; an interrupted sweep exits 130 and resumes when
run again. Set ``SHORTFLOW_DEBUG=1`` to see Python tracebacks.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import typer
from rich.markup import escape
from rich.table import Table

from .console import EXIT_INTERRUPTED, err_console, friendly, integer, out_console, path_option, seed_option
from .console import fail as _fail
from .errors import ScenarioError
from .units import U32_MAX

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _flags_show_no_type() -> None:
    """Recent typer prints a type column for every option, so each flag (``--fresh``,
    ``--progress/--no-progress``, even ``--help``) read ``<bool>`` as if it took a value.
    A flag takes none: show no type for it (every command, mounted sub-apps included)."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_flags_show_no_type", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> Optional[str]:
        if self.is_flag and not self.count:
            return None
        return shown(self, ctx)

    display_type_rich._flags_show_no_type = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_show_no_type()

app = typer.Typer(
    name="shortflow",
    help="Packet-level simulation of TCP start-up and short-transfer latency.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)

# Consoles, exit statuses and `friendly` live in shortflow.console (shared with the
# mounted sub-applications, which must not import this module: no import circle).


def parse_sets(items: Optional[list[str]]) -> dict[str, Any]:
    """``--set path=value`` items: the value is read as a TOML value when it is one
    (``4``, ``true``, ``"x"``, ``{kind = "spand"}``, ``[1, 2]``), else as a string
    (``2Mb``, ``spand``)."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ScenarioError(None, f"--set {item!r}: expected PATH=VALUE, e.g. --set flows.conn.count=4")
        path, _, text = item.partition("=")
        path, text = path.strip(), text.strip()
        if not path:
            raise ScenarioError(None, f"--set {item!r}: empty path")
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text
        out[path] = value
    return out


def _load(file: Path) -> "Any":
    from .scenario import load

    return load(file)


# --- run ---------------------------------------------------------------------------


def _summary_table(df: Any, by: list[str], title: str) -> Table:
    from .stats import summarize

    t = Table(title=title + " (s)", title_justify="left",
              caption="n: transfers, done: finished, ±ci95: 95% CI across seeds, rtx/rto: retransmits/timeouts",
              caption_justify="left")
    for c in by:
        t.add_column(c, no_wrap=True)
    for c in ("n", "done", "mean", "±ci95", "median", "p95", "rtx", "rto"):
        t.add_column(c, justify="right", no_wrap=True)
    s = summarize(df, by)
    for r in s.iter_rows(named=True):
        fin = r["transfers"] - r["unfinished"]
        t.add_row(*[str(r[c]) for c in by], str(r["transfers"]), str(fin), _num(r["mean"]), _num(r["ci95"]),
                  _num(r["median"]), _num(r["p95"]), str(r["retransmits"]), str(r["timeouts"]))
    return t


def _num(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float) and abs(v) < 1e-9:
        return "0"
    return f"{v:.4g}"


@app.command()
@friendly
def run(
    file: Path = typer.Argument(..., help="Scenario TOML file."),
    seed: Optional[int] = typer.Option(None, "--seed", parser=seed_option, metavar="INTEGER", help="Seed (default: the scenario's first seed)."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Write results.parquet, flows/links tables and config.json here."),
    set_: Optional[list[str]] = typer.Option(None, "--set", "-s", help="PATH=VALUE override, e.g. flows.conn.count=4 or scheme=spand (repeatable)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bar (simulated time) on a terminal."),
) -> None:
    """Run one point of a scenario (its base, or the point given with --set) for one seed."""
    import time

    from .progress import run_config_progress, sim_time_bar
    from .scenario import annotate_transfers
    from .sweeper import check_out_dir

    sc = _load(file)
    point = parse_sets(set_)
    s = seed if seed is not None else sc.seeds[0]
    cfg = sc.to_sim_config(point, s)
    if out is not None:
        check_out_dir(out, sc, fresh=False, what="run")
    if sc.axes and not set(sc.axes) <= set(point):
        n = len(sc.points())
        fixed = ", ".join(f"{a}={v}" for a, v in point.items() if a in sc.axes)
        err_console.print(
            f"[yellow]note:[/] {file} has a \\[sweep] of {n} points ({', '.join(sc.axes)}); `run` runs one point only: "
            + (f"the base scenario with {fixed}" if fixed else "the base scenario (no axis applied)")
            + f". Run them all with: shortflow sweep {file}  (or pick one here with --set AXIS=VALUE)",
            highlight=False)

    t0 = time.perf_counter()
    bar, update = sim_time_bar(err_console, f"{sc.name} seed {s}", enabled=progress and err_console.is_terminal)
    with bar:
        res = run_config_progress(cfg, update)
    wall = time.perf_counter() - t0
    df = annotate_transfers(res.transfers, sc.name, point, s, sc.axis_dtypes(point))
    label = ", ".join(f"{k}={v}" for k, v in point.items())
    out_console.print(f"[bold]{sc.name}[/] seed {s}{' (' + label + ')' if label else ''}: "
                      f"{df.height} transfers, simulated {res.stats.get('sim_end_s', float('nan')):.6g}s "
                      f"in {wall:.3g}s wall ({res.stats.get('events', 0)} events)", highlight=False)
    if df.height:
        out_console.print(_summary_table(df, ["group"], "completion time"))
    _print_goodput(res, set(df["connection"].to_list()) if df.height else set())
    if res.pages.height:
        done = res.pages["download_s"].drop_nulls()
        mean = f"{done.mean():.4g} s" if done.len() else "-"
        out_console.print(f"web pages: {res.pages.height} ({res.pages.height - done.len()} unfinished), "
                          f"mean download time {mean}", highlight=False)
    drops = res.links.filter(res.links["drops"] > 0)
    if drops.height:
        t = Table(title="links with drops", title_justify="left")
        for c in ("link", "arrivals", "drops"):
            t.add_column(c, justify="left" if c == "link" else "right")
        for r in drops.iter_rows(named=True):
            t.add_row(r["link"], str(r["arrivals"]), str(r["drops"]))
        out_console.print(t)
    _print_loss_counters(res)
    if out is not None:
        _write_run(out, sc, point, s, df, res)
        web = ", pages.parquet, objects.parquet" if res.pages.height else ""
        out_console.print(f"wrote {out}/results.parquet, flows.parquet, links.parquet{web}, config.json")


def _print_loss_counters(res: Any) -> None:
    """Loss-recovery counters per flow group (Linux's names), when any is nonzero; and
    per transfer round when a group's connections carry several transfers."""
    from .results import LOSS_COUNTERS, TRANSFER_COUNTERS, loss_counters, transfer_loss_counters

    c = loss_counters(res.flows)
    if not c.height:
        return
    t = Table(title="loss recovery (per flow group; Linux counter names)", title_justify="left")
    t.add_column("group", no_wrap=True)
    for k in LOSS_COUNTERS:
        t.add_column(k, justify="right", no_wrap=True)
    for r in c.iter_rows(named=True):
        t.add_row(r["group"], *[str(r[k]) for k in LOSS_COUNTERS])
    out_console.print(t)
    tr = res.transfers
    if not tr.height or tr["round"].max() == 0:
        return
    per = transfer_loss_counters(tr)
    if not per.height:
        return
    cols = ["retransmits", "timeouts", *TRANSFER_COUNTERS]
    t = Table(title="loss recovery per transfer round (counted from each transfer's start to its end)",
              title_justify="left", caption="retransmits = retrans_segs, timeouts as above", caption_justify="left")
    t.add_column("group", no_wrap=True)
    t.add_column("round", justify="right", no_wrap=True)
    for k in cols:
        t.add_column(k, justify="right", no_wrap=True)
    for r in per.iter_rows(named=True):
        t.add_row(r["group"], str(r["round"]), *[str(r[k]) for k in cols])
    out_console.print(t)


def _print_goodput(res: Any, with_transfers: set[str], limit: int = 20) -> None:
    """Goodput of the TCP flows without transfers to time (infinite FTP, Telnet)."""
    from .stats import source_goodput
    from .units import format_rate, format_size

    g = source_goodput(res.flows, res.config, float(res.stats.get("sim_end_s") or 0.0), sorted(with_transfers))
    if not g.height:
        return
    t = Table(title="flows without transfers to time (infinite ftp, telnet): goodput up to the end of the run",
              title_justify="left", caption="goodput: payload bytes acknowledged x 8 / (end of run - application start)",
              caption_justify="left")
    for c in ("flow", "start (s)", "acked", "goodput", "rtx", "rto"):
        t.add_column(c, justify="left" if c == "flow" else "right", no_wrap=True)
    for r in g.head(limit).iter_rows(named=True):
        t.add_row(r["flow"], f"{r['start_s']:g}", format_size(r["bytes_acked"]),
                  format_rate(r["goodput_bps"]) if r["goodput_bps"] is not None else "–",
                  str(r["retransmits"]), str(r["timeouts"]))
    if g.height > limit:
        total = g["goodput_bps"].sum()
        t.add_row(f"... {g.height - limit} more", "", "", f"all {g.height}: {format_rate(total)}", "", "")
    out_console.print(t)


def _write_run(out: Path, sc: Any, point: dict[str, Any], seed: int, df: Any, res: Any) -> None:
    from . import files
    from .scenario import point_label

    files.ensure_dir(out)
    files.write_parquet(out / "results.parquet", df)
    files.write_parquet(out / "flows.parquet", res.flows)
    files.write_parquet(out / "links.parquet", res.links)
    if res.pages.height:
        # Web workloads: one row per page and per object.
        files.write_parquet(out / "pages.parquet", res.pages)
        files.write_parquet(out / "objects.parquet", res.objects)
    files.write_json(out / "config.json", res.config)
    if sc.text is not None:
        files.write_text(out / "scenario.toml", sc.text)
    meta = {"scenario": sc.name, "description": sc.description, "source": sc.source,
            "axes": {k: [point_label(v)] for k, v in point.items()}, "seeds": [seed], "tasks": 1}
    files.write_json(out / "sweep.json", meta)


# --- sweep -------------------------------------------------------------------------


@app.command()
@friendly
def sweep(
    file: Path = typer.Argument(..., help="Scenario TOML file with a \\[sweep] table (or none: seeds only)."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster address (default: start a local cluster)."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/<scenario name>)."),
    set_: Optional[list[str]] = typer.Option(None, "--set", "-s", help="PATH=VALUE override applied to the base scenario (repeatable)."),
    fresh: bool = typer.Option(False, "--fresh", help="Recompute every task, ignoring the cache."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
) -> None:
    """Run every sweep point x seed; finished tasks are cached, so an interrupted sweep resumes."""
    from .stats import point_columns
    from .sweeper import run_sweep

    if backend not in ("local", "ray"):
        raise _fail(f"--backend {backend!r}: use 'local' or 'ray'")
    sc = _load(file)
    sets = parse_sets(set_)
    if sets:
        sc = sc.with_overrides(sets)
    r = run_sweep(sc, jobs=jobs, backend=backend, out=out, ray_address=ray_address, progress=progress, fresh=fresh,
                  report_stats=False)
    out_console.print(
        f"[bold]{sc.name}[/]: {r.tasks} tasks ({r.unique} distinct configurations): "
        f"{r.computed} computed, {r.cached} from cache, {r.wall_s:.3g}s; {r.results.height} transfers -> "
        f"{r.out / 'results.parquet'}",
        highlight=False,
    )
    if r.stats is not None:
        out_console.print(f"[dim]compute: {escape(r.stats.line())}[/]", highlight=False)
    if r.results.height:
        by = ["group"] + point_columns(r.results, list(sc.axes))
        out_console.print(_summary_table(r.results, by, "completion time (mean over seeds)"))


# --- plot / report -----------------------------------------------------------------


@app.command()
@friendly
def plot(
    dir: Path = typer.Argument(..., help="Sweep output directory (with results.parquet)."),
    x: Optional[str] = typer.Option(None, "--x", help="Axis for the x axis (default: the first numeric axis)."),
    metric: str = typer.Option("completion_s", "--metric", help="Column to average."),
) -> None:
    """Mean completion time with 95% CI across seeds vs the swept axis -> DIR/plots/*.png."""
    from .errors import Problem, suggest
    from .plot import make_plots
    from .sweeper import load_results

    df, meta = load_results(dir)
    not_metrics = {"seed", "round", *meta.get("axes", {})}
    metrics = [c for c, t in df.schema.items() if t.is_numeric() and c not in not_metrics]
    if metric not in metrics:
        raise ScenarioError(str(dir), [Problem("--metric", f"not a numeric result column; metrics: {', '.join(metrics)}",
                                               metric, suggest(metric, metrics))])
    for p in make_plots(dir, metric=metric, x=x):
        out_console.print(f"wrote {p}", highlight=False)


@app.command()
@friendly
def report(
    dir: Path = typer.Argument(..., help="Sweep output directory (with results.parquet)."),
    embed: bool = typer.Option(True, "--embed/--link", help="Embed the PNGs (base64) or link to plots/."),
) -> None:
    """A static report.html: plots, summary tables and the scenario text."""
    from .report import make_report

    p = make_report(dir, embed=embed)
    out_console.print(f"wrote {p}", highlight=False)


# --- trace -------------------------------------------------------------------------


@app.command()
@friendly
def trace(
    file: Path = typer.Argument(..., help="Scenario TOML file."),
    pcap: Optional[Path] = typer.Option(None, "--pcap", parser=path_option, metavar="PATH", help="Write a pcap of one link (both directions)."),
    events: Optional[Path] = typer.Option(None, "--events", parser=path_option, metavar="PATH", help="Write every packet event (+ - d r) as Parquet."),
    link: Optional[str] = typer.Option(None, "--link", help="Link 'a->b' (node names) for the pcap; both directions are captured. Default: the first link of the configuration, which need not be the bottleneck; the links are listed after the run and when the name is wrong."),
    event: str = typer.Option("-", "--event", help="Where on the link the pcap captures: '-' transmission start, after the queue (default); '+' arrival at the queue, before drops; 'r' reception at the far end; 'd' drops only."),
    full: bool = typer.Option(False, "--full", help="Capture whole (zero-filled) payloads, not only headers."),
    seed: Optional[int] = typer.Option(None, "--seed", parser=seed_option, metavar="INTEGER"),
    set_: Optional[list[str]] = typer.Option(None, "--set", "-s", help="PATH=VALUE override (repeatable)."),
) -> None:
    """Run with packet tracing and export a pcap (Wireshark, tcptrace) and/or the events."""
    from .api import run_config
    from .pcap import write_pcap

    if pcap is None and events is None:
        raise _fail("nothing to write: give --pcap FILE and/or --events FILE")
    from .pcap import EVENTS

    if event not in EVENTS:
        raise _fail(f"--event {event!r}: one of {', '.join(repr(e) for e in EVENTS)}")
    sc = _load(file)
    point = parse_sets(set_)
    s = seed if seed is not None else sc.seeds[0]
    cfg = sc.to_sim_config(point, s)
    names = []
    from .replicas import expand_replicas

    for ln in expand_replicas(cfg)["links"]:
        names.append(f"{ln['src']}->{ln['dst']}")
        if ln.get("duplex", True):
            names.append(f"{ln['dst']}->{ln['src']}")
    chosen = link or names[0]
    if chosen not in names:
        from .errors import suggest

        hint = suggest(chosen, names)
        raise _fail(f"--link {chosen!r}: no such link{f' (did you mean {hint!r}?)' if hint else ''}; links: {_link_list(names)}")
    a, b = chosen.split("->", 1)
    tr = dict(cfg.get("trace") or {})
    tr["packets"] = True
    if events is None:
        tr["links"] = [chosen, f"{b}->{a}"]
    cfg["trace"] = tr
    res = run_config(cfg)
    if events is not None:
        ev = res.packet_events()
        ev.write_parquet(events)
        out_console.print(f"wrote {events}: {ev.height} packet events", highlight=False)
    if pcap is not None:
        link_names = res.links["link"].to_list()
        idx = [i for i, n in enumerate(link_names) if n in (chosen, f"{b}->{a}")]
        n = write_pcap(pcap, res.packets, res.config, idx, event=event, snaplen=65535 if full else None)
        out_console.print(f"wrote {pcap}: {n} packets on {chosen} and {b}->{a}, captured at '{event}' ({EVENTS[event]})",
                          highlight=False)
        if link is None:
            out_console.print(f"(the configuration's first link; choose another with --link: {_link_list(names)})",
                              highlight=False)


@app.command()
@friendly
def seqplot(
    file: Path = typer.Argument(..., help="Scenario TOML file."),
    flow: str = typer.Option(..., "--flow", help="Connection name, e.g. conn.1 (group name + index)."),
    out: Path = typer.Option(..., "--out", parser=path_option, metavar="PATH", help="PNG to write."),
    t_from: Optional[float] = typer.Option(None, "--from", help="Plot from this time (s)."),
    t_to: Optional[float] = typer.Option(None, "--to", help="Plot up to this time (s)."),
    seed: Optional[int] = typer.Option(None, "--seed", parser=seed_option, metavar="INTEGER"),
    set_: Optional[list[str]] = typer.Option(None, "--set", "-s", help="PATH=VALUE override (repeatable)."),
) -> None:
    """Sequence-number trace of one connection: segments sent and acks arriving at the
    sender over time (thesis Figs. 9.2, 9.5, 9.6 style), for any scenario point and seed."""
    from .api import run_config
    from .plot import trace_plot

    sc = _load(file)
    point = parse_sets(set_)
    s = seed if seed is not None else sc.seeds[0]
    cfg = sc.to_sim_config(point, s)
    cfg["trace"] = {**(cfg.get("trace") or {}), "acks": True, "packets": True, "links": []}
    res = run_config(cfg)
    lo = t_from if t_from is not None else 0.0
    hi = t_to if t_to is not None else float("inf")
    label = ", ".join(f"{k}={v}" for k, v in point.items())
    png = trace_plot(res, flow, out, t_range=(lo, hi), title=f"{sc.name} {flow}, seed {s}" + (f" ({label})" if label else ""))
    out_console.print(f"wrote {png}", highlight=False)


def _link_list(names: list[str]) -> str:
    return ", ".join(names[:12]) + (f" ... ({len(names)} in all)" if len(names) > 12 else "")


# --- iw ----------------------------------------------------------------------------


@app.command()
@friendly
def iw(
    size: str = typer.Option(..., "--size", help="Transfer size F: packets (30) or bytes with a unit (30KB)."),
    wc: int = typer.Option(20, "--wc", parser=integer(1, U32_MAX), metavar="INTEGER", help="W_c: packets the path holds (window estimate)."),
    delack: float = typer.Option(1.0, "--delack", help="b: packets covered by one ack (1, or 2 with delayed acks; 1 <= b <= W_c)."),
    no_shift: bool = typer.Option(False, "--no-shift", help="Report the window without the Eq. (4) shift."),
    mss: str = typer.Option("1KB", "--mss", help="Segment payload size, to convert a size in bytes to packets."),
    iw_ss: int = typer.Option(2, "--iw", parser=integer(1, U32_MAX), metavar="INTEGER", help="Initial window of the slow-start comparison (ns-2 windowInit_)."),
    policy: str = typer.Option("eq2", "--policy", help="Infeasible policy: eq2 (default) or one."),
    max_window: int = typer.Option(0, "--max-window", parser=integer(0, U32_MAX), metavar="INTEGER", help="Cap on the window (0: none)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """TCP/SPAND's optimal initial window for a transfer, and the RTTs it saves over slow start."""
    from .native import core
    from .units import parse_size

    c = core()
    f = _packets(size, mss, parse_size)
    if policy not in ("eq2", "one"):
        raise _fail(f"--policy {policy!r}: use eq2 or one")
    if not (math.isfinite(delack) and 1 <= delack <= wc):
        raise _fail(f"--delack = {delack:g}: b (packets covered by one ack) must be a number from 1 to W_c = {wc} "
                    "(1: an ack per packet, 2: delayed acks)")
    d = c.cwnd_opt_detail(f, wc, delack, policy, max_window)
    chosen = d["cwnd_no_shift"] if no_shift else d["cwnd"]
    ca = c.ca_schedule(f, chosen, wc, delack)
    ss = c.slow_start_schedule(f, iw_ss, wc, delack)
    result = {
        "F": f,
        "wc": wc,
        "b": delack,
        "shift": not no_shift,
        "policy": policy,
        "cwnd_opt": d["cwnd"],
        "cwnd_opt_no_shift": d["cwnd_no_shift"],
        "window": chosen,
        "F_E": d["f_e"],
        "m0": d["m0"],
        "delta": d["delta"],
        "r": d["r"],
        "feasible": d["feasible"],
        "slow_start_iw": iw_ss,
        "rtts_slow_start": len(ss),
        "rtts_spand": len(ca),
        "rtts_saved": len(ss) - len(ca),
        "schedule_slow_start": ss,
        "schedule_spand": ca,
    }
    if as_json:
        typer.echo(json.dumps(result))
        return
    out_console.print(
        f"transfer F = {f} packets; the path holds W_c = {wc} packets; b = {delack:g} packet(s) per ack\n"
        f"optimal initial window cwnd_opt = [bold]{d['cwnd']}[/] packets "
        f"({d['cwnd_no_shift']} without the Eq. (4) shift{'' if d['feasible'] else '; Eq. (3) has no solution: Eq. (2) fallback'})\n"
        f"  F_E = {d['f_e']:g}: packets one congestion-avoidance epoch sends (Eq. 1)\n"
        f"  r = {d['r']:g}: packets left after the whole epochs (F mod F_E), which the first window must cover\n"
        f"  m0 = {d['m0'] if d['m0'] is not None else 'none'}: largest window whose climb to W_c sends r (Eq. 3)\n"
        f"  Δ = {d['delta']}: Eq. (4) shift: the climb from m0 sends more than r, so it starts Δ packets lower "
        "in as many round trips",
        highlight=False,
    )
    out_console.print(
        f"round trips to send F: slow start from a window of {iw_ss}: {len(ss)}; TCP/SPAND from {chosen}: {len(ca)} "
        f"-> saves [bold]{len(ss) - len(ca)}[/]",
        highlight=False,
    )
    t = Table(title="packets per RTT", title_justify="left")
    t.add_column("RTT", justify="right")
    t.add_column("slow start", justify="right")
    t.add_column("TCP/SPAND", justify="right")
    for i in range(max(len(ss), len(ca))):
        t.add_row(str(i + 1), f"{ss[i]:g}" if i < len(ss) else "", f"{ca[i]:g}" if i < len(ca) else "")
    out_console.print(t)


def _packets(size: str, mss: str, parse_size: Callable[..., int]) -> int:
    s = size.strip()
    for suffix in ("pkts", "pkt", "packets", "p"):
        if s.endswith(suffix) and s[: -len(suffix)].strip().isdigit():
            s = s[: -len(suffix)].strip()
            break
    if s.isdigit():
        f = int(s)
    else:
        nbytes = parse_size(s, "--size")
        seg = parse_size(mss, "--mss")
        f = -(-nbytes // seg)
    if f < 1:
        raise ScenarioError(None, f"--size {size!r}: the transfer must be at least one packet")
    if f > IW_MAX_PACKETS:
        # The schedules list every RTT (about F / W_c of them): bounded so that the answer is quick.
        raise ScenarioError(None, f"--size = {size!r}: {f} packets; at most {IW_MAX_PACKETS} packets "
                                  f"({IW_MAX_PACKETS // 1000} MB of 1 KB segments) are accepted")
    return f


#: Largest transfer `iw` accepts (packets): its schedules list every RTT.
IW_MAX_PACKETS = 10**6


model_app = typer.Typer(help="Analytical models: Web page download times (thesis ch. 4), TCP Vienna's throughput model (P4).",
                         no_args_is_help=True)
app.add_typer(model_app, name="model")


@model_app.command("web")
@friendly
def model_web(
    html: str = typer.Option("5KB", "--html", help="Size of the HTML file (bytes with a unit; KB = 1024 B as in the thesis's figures)."),
    images: int = typer.Option(4, "--images", parser=integer(0, 10_000), metavar="INTEGER", help="Number of inline images."),
    image: str = typer.Option("10KB", "--image", help="Size of each image."),
    mss: str = typer.Option("1460B", "--mss", help="Maximum segment size."),
    rtt: Optional[str] = typer.Option(None, "--rtt", help="Round-trip time: times in seconds instead of round trips."),
    k: Optional[int] = typer.Option(None, "--k", parser=integer(1, 10_000), metavar="INTEGER", help="Parallel connections of 'conc' (default: one per image)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Web page download time by the thesis's model (ch. 4, no loss, slow start everywhere): HTTP/1.0 sequential and concurrent, persistent, GETLIST, GETALL."""
    from .units import parse_size, parse_time
    from .webmodel import MODES, Page, download_rtts, lower_bounds

    def size(v: str, flag: str) -> int:
        # Checked as written (errors quote the user's text); KB and MB then count 1024
        # and 1024^2 bytes, the thesis's convention for its figures (spec A.2.1).
        n = parse_size(v, flag)
        t = v.strip()
        if t.endswith(("KB", "kB")):
            return round(n / 1000 * 1024)
        if t.endswith("MB"):
            return round(n / 10**6 * 1024**2)
        return n

    page = Page.uniform(size(html, "--html"), images, size(image, "--image"))
    seg = parse_size(mss, "--mss")
    if seg < 1:
        raise _fail(f"--mss = {mss!r}: must be at least 1 byte")
    if k is not None and images and k > images:
        raise _fail(f"--k = {k}: parallel connections must be from 1 to --images ({images})")
    rtt_s = parse_time(rtt, "--rtt", allow_zero=False) if rtt is not None else None
    try:
        rtts = {m: download_rtts(page, seg, m, k if m == "conc" else None) for m in MODES}
    except ValueError as e:
        raise _fail(str(e)) from None
    rtts.update(lower_bounds(images))
    result = {"html_bytes": page.html_bytes, "images": images, "image_bytes": page.image_bytes[0] if images else 0,
              "mss": seg, "k": k if k is not None else images, "rtts": rtts,
              "seconds": {m: v * rtt_s for m, v in rtts.items()} if rtt_s is not None else None}
    if as_json:
        typer.echo(json.dumps(result))
        return
    names = {"seq": "HTTP/1.0 sequential", "conc": f"HTTP/1.0 concurrent (k = {result['k']})",
             "persistent": "persistent connection", "getlist": "pipelined GETLIST", "getall": "GETALL",
             "seq_min": "lower bound, sequential", "conc_min": "lower bound, concurrent"}
    t = Table(title=f"HTML {page.html_bytes} B + {images} x {result['image_bytes']} B, MSS {seg} B", title_justify="left")
    t.add_column("retrieval")
    t.add_column("RTTs", justify="right")
    if rtt_s is not None:
        t.add_column("seconds", justify="right")
    for m, v in rtts.items():
        t.add_row(names[m], str(v), *([f"{v * rtt_s:.3f}"] if rtt_s is not None else []))
    out_console.print(t)


@model_app.command("vienna")
@friendly
def vienna(
    size: str = typer.Option(..., "--size", help="Transfer size d: segments (40) or bytes with a unit (20KB)."),
    loss: float = typer.Option(..., "--loss", "-p", help="Loss probability p, 0 < p < 1."),
    rtt: str = typer.Option(..., "--rtt", help="Round-trip time (200ms)."),
    rto: Optional[str] = typer.Option(None, "--rto", help="Retransmission timeout T0 (default: 2 x RTT)."),
    mss: str = typer.Option("500B", "--mss", help="Segment size, to convert a size in bytes (P4 uses 500 B)."),
    iw_: float = typer.Option(4.0, "--iw", help="Initial window w1 (segments; RFC 3390 at 500 B = 4)."),
    no_delack: bool = typer.Option(False, "--no-delack", help="The receiver acks every segment (b = 1; default b = 2)."),
    wmax: float = typer.Option(float("inf"), "--wmax", help="Receiver window (segments; default none)."),
    model: str = typer.Option("F", "--model", help="E[W] generalisation: F (default) or P2 (P4's Eq. 3 corrected)."),
    full_grid: bool = typer.Option(False, "--full-grid", help="Cross every alpha with every beta (5x5x2) instead of P4's pairs."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """TCP Vienna: the model throughput of every candidate (alpha, beta, gamma) for a transfer, and the one P4's selection picks."""
    from .native import core
    from .units import parse_size, parse_time

    c = core()
    d = _packets(size, mss, parse_size)
    if not (math.isfinite(loss) and 0 < loss < 1):
        raise _fail(f"--loss = {loss:g}: the loss probability must be in (0, 1)")
    rtt_s = parse_time(rtt, "--rtt", allow_zero=False)
    t0 = parse_time(rto, "--rto", allow_zero=False) if rto is not None else 2 * rtt_s
    if model not in ("F", "P2"):
        raise _fail(f"--model {model!r}: use F or P2")
    if not (math.isfinite(iw_) and iw_ >= 1):
        raise _fail(f"--iw = {iw_:g}: the initial window must be at least 1 segment")
    if not (wmax >= 1):
        raise _fail(f"--wmax = {wmax:g}: the receiver window must be at least 1 segment")
    b = 1.0 if no_delack else 2.0
    sel = c.vienna_select(d, loss, rtt_s, t0, iw_, b, wmax, model, full_grid)
    alphas, betas = [1.0, 2.0, 4.0, 6.0, 8.0], [0.5, 0.6, 0.7, 0.8, 0.9]
    pairs = [(a, bt) for a in alphas for bt in betas] if full_grid else list(zip(alphas, betas))
    rows = []
    for g in (1.0, 2.0):
        for a, bt in pairs:
            r = c.vienna_throughput(a, bt, g, d, loss, rtt_s, t0, iw_, b, wmax, model)
            rows.append({"alpha": a, "beta": bt, "gamma": g, "b": r["b"], "below_b_max": r["b"] < sel["b_max"]})
    result = {"d": d, "p": loss, "rtt_s": rtt_s, "t0_s": t0, "w1": iw_, "b_per_ack": b, "model": model,
              "b_max": sel["b_max"], "selected": {k: sel[k] for k in ("alpha", "beta", "gamma")},
              "b_selected": sel["b"], "fallback": sel["fallback"], "candidates": rows}
    if as_json:
        typer.echo(json.dumps(result))
        return
    out_console.print(
        f"transfer d = {d} segments, p = {loss:g}, RTT = {rtt_s:g} s, T0 = {t0:g} s, w1 = {iw_:g}, "
        f"{'no delayed acks' if no_delack else 'delayed acks'}; E[W] variant {model}\n"
        f"B_max (delayed-ack Reno, 10000 segments) = [bold]{sel['b_max']:.3f}[/] segments/s",
        highlight=False,
    )
    t = Table(title="candidates (model throughput, segments/s)", title_justify="left")
    for col in ("alpha", "beta", "gamma", "B", "below B_max"):
        t.add_column(col, justify="right")
    for r in rows:
        mark = (r["alpha"], r["beta"], r["gamma"]) == (sel["alpha"], sel["beta"], sel["gamma"]) and not sel["fallback"]
        t.add_row(f"{r['alpha']:g}", f"{r['beta']:g}", f"{r['gamma']:g}",
                  f"[bold]{r['b']:.3f}[/]" if mark else f"{r['b']:.3f}", "yes" if r["below_b_max"] else "no")
    out_console.print(t)
    how = "no candidate stays below B_max: fallback" if sel["fallback"] else "closest to B_max from below"
    out_console.print(f"selected (alpha, beta, gamma) = [bold]({sel['alpha']:g}, {sel['beta']:g}, {sel['gamma']:g})[/] ({how})",
                      highlight=False)


# --- bench -------------------------------------------------------------------------


@app.command()
@friendly
def bench(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    workload: Optional[list[str]] = typer.Option(None, "--workload", "-w", help="Workloads to run (a, b, c, scale, sweep; default all)."),
    scale_max: int = typer.Option(100_000, "--scale-max", parser=integer(10_000), metavar="INTEGER",
                                  help="Largest connection count of the scale workload: 10^4, 10^5, ... up to this "
                                       "(1000000 adds 10^6, about 4 GB of memory)."),
    repeat: int = typer.Option(1, "--repeat", parser=integer(1), metavar="INTEGER", help="Runs per workload, of the core and of ns-2 (the best wall time of each counts)."),
    no_ns2: bool = typer.Option(False, "--no-ns2", help="Do not run ns-2 even if it is on the PATH."),
    root: Optional[Path] = typer.Option(None, "--root", parser=path_option, metavar="PATH", help="Repository root (default: found from the working directory)."),
    lookahead: bool = typer.Option(False, "--lookahead",
                                   help="Run the core with lookahead: the same results with fewer events per packet, "
                                        "measured slower (docs/architecture.md, \"Lookahead\")."),
) -> None:
    """Delivered data packets per second on the benchmark workloads (and vs ns-2 if `ns` is on the PATH)."""
    from .bench import WORKLOADS, run_benchmarks

    ws = workload or list(WORKLOADS)
    bad = [w for w in ws if w not in WORKLOADS]
    if bad:
        raise _fail(f"--workload {bad[0]!r}: one of {', '.join(WORKLOADS)}")
    sizes = [10**k for k in range(4, 8) if 10**k <= scale_max]
    r = run_benchmarks(ws, root=root, ns2=not no_ns2, repeat=repeat, scale_sizes=sizes, lookahead=lookahead)
    if as_json:
        typer.echo(json.dumps(r))
        return
    ahead = "; core with lookahead" if r.get("lookahead") else ""
    t = Table(title=f"shortflow {r['version']} (core {r['core_version']}); ns-2: {r['ns2'] or 'not on PATH'}{ahead}",
              title_justify="left")
    for c in ("workload", "delivered pkts", "events/pkt", "wall (s)", "pkts/s", "ns-2 pkts/s", "speed-up",
              "CPU-time speed-up"):
        t.add_column(c, justify="right")
    for w, e in r["workloads"].items():
        if w in ("scale", "sweep"):
            continue
        if e.get("error"):
            t.add_row(w, e["error"], "", "", "", "", "", "")
            continue
        epp = e.get("events_per_pkt")
        t.add_row(w, str(e.get("delivered_pkts")), f"{epp:.2f}" if epp else "–", _num(e.get("wall_s")),
                  _num(e.get("pkts_per_s")),
                  _num(e.get("ns2_pkts_per_s")) if e.get("ns2_pkts_per_s") else (e.get("ns2_error") or "–"),
                  f"{e['ratio']:.3g}x" if e.get("ratio") else "–",
                  f"{e['ratio_cpu']:.3g}x" if e.get("ratio_cpu") else "–")
    if t.row_count:
        out_console.print(t)
    if any(e.get("ratio") for e in r["workloads"].values()):
        out_console.print(f"best of {repeat} alternating runs each; speed-up = our pkts/s over ns-2's, by wall clock "
                          "(and by CPU time, less sensitive to a busy machine)", highlight=False)
    c = r["workloads"].get("c", {})
    if c.get("idle_bytes_per_conn") is not None:
        ns2_mem = c.get("ns2_max_rss_bytes")
        out_console.print(
            f"c: {c['idle_bytes_per_conn']:.0f} B of memory per idle connection "
            f"({c['idle_bytes_per_conn_with_hosts']:.0f} B with its own host pair and access links, as configured) "
            f"over {c['tcp_connections']} connections"
            + (f"; ns-2 peak resident set {ns2_mem / 2**20:.0f} MiB" if ns2_mem else ""),
            highlight=False)
    sc = r["workloads"].get("scale")
    if sc:
        t = Table(title="scale: N concurrent 30 KB transfers, each with its own host pair (one fresh process per N)",
                  title_justify="left")
        for c in ("N", "peak RSS (MiB)", "bytes/conn", "sim bytes/conn", "delivered pkts", "events/pkt", "CPU (s)",
                  "ns/pkt core", "ns/pkt run", "ns/pkt all"):
            t.add_column(c, justify="right")
        for n, e in sc["sizes"].items():
            if e.get("error"):
                t.add_row(n, e["error"], "", "", "", "", "", "", "", "")
                continue
            t.add_row(n, f"{e['peak_rss_bytes'] / 2**20:.0f}", _num(e.get("bytes_per_conn")),
                      _num(e.get("sim_bytes_per_conn")), str(e["delivered_pkts"]),
                      f"{e['events_per_pkt']:.2f}", f"{e['cpu_s']:.2f}", f"{e['core_ns_per_pkt']:.0f}",
                      f"{e['run_ns_per_pkt']:.0f}", f"{e['ns_per_pkt']:.0f}")
        out_console.print(t)
        out_console.print("bytes/conn: peak resident set less that after the imports and a 2-connection warm-up "
                          "(results and their way to polars included); sim bytes/conn: the simulation's structures at the end of the run; CPU ns per "
                          "delivered packet: core = the core's call (build, run, results, JSON), run = that plus "
                          "reading the results into polars, all = the whole process (Python start-up included)",
                          highlight=False)
        if sc.get("linearity"):
            out_console.print(f"CPU time per packet, largest N over smallest: core {sc['linearity']:.2f}, run "
                              f"{sc['linearity_run']:.2f}, whole process {sc['linearity_all']:.2f} (1 = linear in N)",
                              highlight=False)
    sw = r["workloads"].get("sweep")
    if sw:
        t = Table(title=f"sweep: {sw.get('tasks', '?')} small tasks (dumbbell_quick, ~0.2 ms of core each), "
                        "`shortflow sweep` in a fresh process", title_justify="left")
        for c in ("--jobs", "tasks/s", "utilisation", "tasks where", "sweep (s)", "process wall (s)", "process CPU (s)"):
            t.add_column(c, justify="right")
        if sw.get("error"):
            t.add_row("–", sw["error"], "", "", "", "", "")
        for j, e in sw.get("jobs", {}).items():
            st = e.get("stats") or {}
            if e.get("error") or not st:
                t.add_row(j, e.get("error") or "no statistics", "", "", "", "", "")
                continue
            where = ", ".join(f"{n} {k}" for k, n in st.get("by_worker", {}).items())
            t.add_row(j, f"{st['tasks_per_s']:.0f}", f"{100 * st['utilisation']:.0f} %", where,
                      f"{st['elapsed_s']:.2f}", f"{e['wall_s']:.2f}", f"{e['cpu_s']:.2f}")
        out_console.print(t)
        if sw.get("jobs2_over_jobs1"):
            out_console.print(f"--jobs 2 over --jobs 1, tasks/s: {sw['jobs2_over_jobs1']:.2f}", highlight=False)


# --- check / config / version ------------------------------------------------------


@app.command()
@friendly
def check(
    file: Path = typer.Argument(..., help="Scenario TOML file."),
    set_: Optional[list[str]] = typer.Option(None, "--set", "-s", help="PATH=VALUE override (repeatable)."),
) -> None:
    """Validate a scenario (every scheme and sweep point) without running it."""
    sc = _load(file)
    sets = parse_sets(set_)
    if sets:
        sc = sc.with_overrides(sets)
    pts = sc.points()
    for p in pts:
        sc.to_sim_config(p, sc.seeds[0])
    cfg = sc.to_sim_config(pts[0], sc.seeds[0])
    out_console.print(
        f"[green]ok[/] {sc.name}: {len(pts)} point(s) x {len(sc.seeds)} seed(s) = {len(pts) * len(sc.seeds)} task(s); "
        f"{len(cfg['nodes'])} nodes, {len(cfg['links'])} links, {len(cfg['flows'])} flows, {len(cfg['apps'])} apps",
        highlight=False,
    )


@app.command()
@friendly
def config(
    file: Path = typer.Argument(..., help="Scenario TOML file."),
    seed: Optional[int] = typer.Option(None, "--seed", parser=seed_option, metavar="INTEGER"),
    set_: Optional[list[str]] = typer.Option(None, "--set", "-s", help="PATH=VALUE (a sweep point: scheme=..., axis=value)."),
    resolved: bool = typer.Option(True, "--resolved/--raw", help="Fill every core default (needs the compiled core)."),
) -> None:
    """Print the core configuration (SimConfig JSON) of one point and seed."""
    sc = _load(file)
    point = parse_sets(set_)
    s = seed if seed is not None else sc.seeds[0]
    cfg = sc.to_sim_config(point, s)
    if resolved:
        from .native import resolve

        cfg = resolve(cfg)
    typer.echo(json.dumps(cfg, indent=2))


def _version_callback(value: bool) -> None:
    if value:
        from .version import __version__

        try:
            from .native import core

            cv = core().version()
        except ImportError:
            cv = "not built"
        typer.echo(f"shortflow {__version__} (core {cv})")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Show versions and exit."),
) -> None:
    """Packet-level simulation of TCP start-up and short-transfer latency."""


def mount_logs(target: typer.Typer) -> bool:
    """Mount the access-log analyzer (``shortflow.logs.cli:app``) as ``logs``; when it
    cannot be imported, mount a stub that explains why. Returns True when mounted."""
    try:
        from .logs.cli import app as logs_app  # type: ignore[import-not-found]
    except Exception as e:  # the analyzer is optional: keep the rest of the CLI working
        reason = f"{type(e).__name__}: {e}"

        @target.command("logs", context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
                        help="Access-log analyzer (not available in this installation).")
        def logs_missing(ctx: typer.Context) -> None:
            raise _fail(f"the access-log analyzer (shortflow.logs) is not available: {reason}", 1)

        return False
    own_help = getattr(getattr(logs_app, "info", None), "help", None)
    # typer shows no description when add_typer is given help=None: pass the text itself
    target.add_typer(logs_app, name="logs",
                     help=own_help if isinstance(own_help, str) and own_help else "Analyze web access logs for scenarios.")
    return True


mount_logs(app)


def mount_repro(target: typer.Typer) -> None:
    """Mount the paper reproductions (``shortflow.repro.cli:app``) as ``repro``."""
    from .repro.cli import app as repro_app

    target.add_typer(repro_app, name="repro")


mount_repro(app)


def mount_pcap(target: typer.Typer) -> None:
    """Mount the capture analyzer (``shortflow.capture.cli:app``) as ``pcap``."""
    from .capture.cli import app as pcap_app

    target.add_typer(pcap_app, name="pcap")


mount_pcap(app)


def _exit_interrupted() -> None:
    """Leave at once after a Ctrl-C, without the interpreter's module teardown.

    With polars, pydantic's schema and the core loaded, that teardown takes 0.4-0.6 s on a
    quiet machine (and over 1 s on a loaded one) after "interrupted" is printed, and
    there is nothing left for it to do: every file the command wrote is closed, a sweep
    has stopped its workers. The atexit handlers still run (multiprocessing's, Ray's,
    logging's), and stdout/stderr are flushed."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed pipe: nothing more can be said
            pass
    os._exit(EXIT_INTERRUPTED)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        err_console.print("[yellow]interrupted[/]")
        _exit_interrupted()
    except SystemExit as e:  # pragma: no cover - typer ends every command this way
        if e.code == EXIT_INTERRUPTED:
            _exit_interrupted()
        raise
    except Exception as e:  # pragma: no cover - last resort: never a bare traceback
        if os.environ.get("SHORTFLOW_DEBUG"):
            raise
        err_console.print(f"[bold red]internal error:[/] {type(e).__name__}: {e}\n"
                          "(set SHORTFLOW_DEBUG=1 for the traceback; please report it)", highlight=False)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
