"""``shortflow logs ...``: the typer sub-app (the package CLI mounts ``app`` as ``logs``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .analyze import DEFAULT_IMAGE_EXTS, LogReport, analyze, parse_duration
from .clf import LogInputError
from .output import OutputError, check_out_dir, write_outputs


def path_option(text: object) -> Path:
    """``shortflow.console.path_option`` (an empty path is refused, not taken as the working
    directory), here again because this subpackage runs without the rest of the package."""
    if isinstance(text, Path):  # a default
        return text
    if not str(text).strip():
        raise typer.BadParameter(f"{text!r}: an empty path (an unset variable?); give a file or directory")
    return Path(str(text))


#: C0/C1 control characters (but tab), DEL and the Unicode bidirectional overrides,
#: shown as escapes so that a log line cannot move the cursor, recolour or reorder the terminal
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0))}
_CONTROL.update({c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def safe(text: str) -> str:
    """``text`` from a log, fit for a rich console: control characters escaped and rich
    markup (``[bold]``, ``[/]``) printed literally."""
    return escape(text.translate(_CONTROL))


def _error(message: str) -> typer.Exit:
    Console(stderr=True).print(f"[bold red]error:[/] {safe(message)}", highlight=False)
    return typer.Exit(2)

app = typer.Typer(
    name="logs",
    help="Web access-log analysis for TCP/SPAND (paper §5.2: Figs. 6-7 and the /24 check).",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _logs() -> None:
    """Web access-log analysis for TCP/SPAND (paper §5.2: Figs. 6-7 and the /24 check)."""


def _dur(name: str, v: str) -> int:
    try:
        return parse_duration(v)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint=name) from None


@app.command("analyze")
def analyze_cmd(
    access_log: str = typer.Argument(
        ..., metavar="ACCESS_LOG", help="CLF/Combined log (Apache, nginx); gzip is auto-detected; '-' reads stdin."
    ),
    prefix: int = typer.Option(24, "--prefix", min=1, max=32, help="Network key = ip >> (32 - prefix)."),
    window: str = typer.Option("5m", "--window", help="Fig. 7 window and the Fig. 6 threshold (300, 300s, 5m)."),
    hostnames: Optional[Path] = typer.Option(
        None,
        "--hostnames",
        parser=path_option,
        metavar="PATH",
        help="Precomputed 'ip hostname' map for the /24 check (space/comma separated, or massdns/"
        "`host` PTR output). No live reverse DNS is done.",
    ),
    out: Path = typer.Option(Path("out/logs"), "--out", parser=path_option, metavar="PATH", help="Output directory."),
    segment_gap: str = typer.Option(
        "1h", "--segment-gap", help="A gap longer than this starts a new segment (0 = never)."
    ),
    split_days: bool = typer.Option(
        True, "--split-days/--no-split-days", help="A change of calendar date (log's local time) starts a new segment."
    ),
    reorder: str = typer.Option(
        "60s",
        "--reorder",
        help="Out-of-order tolerance: lines up to this much older than the newest are placed exactly.",
    ),
    reorder_lines: int = typer.Option(
        1_000_000, "--reorder-lines", min=1,
        help="Most lines held for reordering; beyond that the oldest are released early (counted).",
    ),
    keep_images: bool = typer.Option(False, "--keep-images", help="Do not drop inline-image requests."),
    image_ext: str = typer.Option(
        ",".join(DEFAULT_IMAGE_EXTS), "--image-ext", help="Comma-separated inline-image extensions to drop."
    ),
    only_get: bool = typer.Option(False, "--only-get", help="Keep only GET requests."),
    plots: bool = typer.Option(True, "--plots/--no-plots", help="Write fig6_gap_cdf.png and fig7_nets_cdf.png."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No terminal table."),
) -> None:
    """Gap CDF (Fig. 6), distinct networks per window (Fig. 7) and the /24 check, in one streaming pass.

    Writes gap_cdf.csv, nets5min_cdf.csv, summary.json, prefix_check.csv (with --hostnames) and two PNG plots.

    Malformed lines are counted and reported, never fatal.

    No live reverse DNS is done (lookups today would not match the log's era): give a precomputed map with --hostnames.
    """
    console = Console(stderr=True, quiet=quiet)
    for what, f in (("ACCESS_LOG", access_log), ("--hostnames", hostnames)):
        if f is not None and str(f) != "-" and not Path(f).is_file():
            why = "is a directory, not a file" if Path(f).is_dir() else "no such file"
            raise _error(f"{what} {f}: {why}")
    try:
        check_out_dir(out)
    except OutputError as e:
        raise _error(str(e)) from None
    w = _dur("--window", window)
    g = _dur("--segment-gap", segment_gap)
    r = _dur("--reorder", reorder)
    exts = [e for e in image_ext.split(",") if e.strip()]
    with console.status("reading log...") as status:

        def progress(n: int) -> None:
            status.update(f"reading log... {n:,} lines")

        try:
            rep = analyze(
                access_log,
                prefix=prefix,
                window_s=w,
                hostnames=hostnames,
                segment_gap_s=g,
                split_days=split_days,
                reorder_s=r,
                reorder_lines=reorder_lines,
                image_exts=exts,
                keep_images=keep_images,
                only_get=only_get,
                progress=progress,
            )
        except LogInputError as e:
            raise _error(str(e)) from None
        except ValueError as e:
            raise typer.BadParameter(str(e)) from None
        status.update("writing outputs...")
        try:
            files = write_outputs(rep, out, plots=plots)
        except OutputError as e:
            raise _error(str(e)) from None
    if not quiet:
        print_summary(rep, console)
        console.print(f"[dim]wrote {len(files)} files to {safe(str(out))}[/dim]")
    warn = Console(stderr=True)  # warnings are shown even with --quiet
    for msg in warnings(rep):
        warn.print(f"[yellow]warning: {safe(msg)}[/yellow]", highlight=False)


def warnings(rep: LogReport) -> list[str]:
    """What the user must know about the input: damaged files, lines out of order,
    lines moved or released early, nothing analysed."""
    out = list(rep.warnings)
    if rep.out_of_order or rep.ahead:
        msg = f"{rep.out_of_order:,} lines out of order (up to {rep.max_lateness_s} s older than a line before them)"
        if rep.late_clamped:
            msg += (f"; {rep.late_clamped:,} were older than the --reorder tolerance ({rep.reorder_s} s) allowed "
                    "and were moved forward to the oldest time still open")
        if rep.ahead:
            msg += (f"; {rep.ahead:,} lone lines were dated more than {rep.reorder_s} s ahead of the log and were "
                    "held back to their own time (future-dated lines?)")
        out.append(msg)
    if rep.reorder_forced:
        out.append(f"the reorder buffer was full ({rep.reorder_lines:,} lines, --reorder-lines): "
                   f"{rep.reorder_forced:,} lines were released before the --reorder tolerance ran out")
    if rep.requests == 0:
        out.append("no request survived parsing and filtering")
    return out


def print_summary(rep: LogReport, console: Console | None = None) -> None:
    """The terminal summary table."""
    console = console or Console()
    s = rep.summary()
    t = Table(title=f"Access log: {safe(rep.source)}", show_header=False, title_justify="left")
    t.add_column("", style="bold")
    t.add_column("", justify="right")
    t.add_column("", style="dim")

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:.2f}%" if b else ""

    L = rep.lines_total
    t.add_row("lines", f"{L:,}", f"{rep.elapsed_s:.1f} s, {s['lines_per_s'] or 0:,} lines/s")
    t.add_row("  malformed", f"{rep.lines_malformed:,}", _reasons(rep.malformed_reasons) or pct(rep.lines_malformed, L))
    if rep.lines_blank:
        t.add_row("  blank", f"{rep.lines_blank:,}", "")
    if rep.only_get:
        t.add_row("  non-GET dropped", f"{rep.filtered_method:,}", pct(rep.filtered_method, L))
    t.add_row("  inline images dropped", f"{rep.filtered_images:,}", pct(rep.filtered_images, L))
    t.add_row(
        "  non-IPv4 hosts dropped",
        f"{rep.host_hostname + rep.host_ipv6 + rep.host_other:,}",
        f"hostnames {rep.host_hostname:,}, IPv6 {rep.host_ipv6:,}, other {rep.host_other:,}",
    )
    t.add_row("requests analysed", f"{rep.requests:,}", pct(rep.requests, L))
    if rep.out_of_order:
        t.add_row(
            "  out of order",
            f"{rep.out_of_order:,}",
            f"max {rep.max_lateness_s} s late; {rep.late_clamped:,} beyond the {rep.reorder_s} s tolerance (clamped)",
        )
    if rep.ahead:
        t.add_row("  far ahead (held back)", f"{rep.ahead:,}", f"lone lines more than {rep.reorder_s} s in the future")
    t.add_row("distinct client IPs", f"{rep.distinct_ips:,}", "")
    t.add_row(f"distinct /{rep.prefix} networks", f"{rep.distinct_networks:,}", "")
    segs = rep.segments
    rules = ([f"gap > {rep.segment_gap_s} s"] if rep.segment_gap_s else []) + (["new day"] if rep.split_days else [])
    t.add_row("segments", f"{len(segs):,}", "split on " + (" or ".join(rules) if rules else "nothing"))
    t.add_section()
    g = s["fig6_gaps"]
    fr = g["frac_below_window"]
    t.add_row("Fig. 6 gaps", f"{g['count']:,}", "paper: ~90% below 5 min")
    med = f"median {g['p50_s']} s" if g["p50_s"] is not None else ""
    t.add_row(f"  gaps < {rep.window_s} s", f"{100 * fr:.2f}%" if fr is not None else "-", med)
    n7 = s["fig7_networks"]
    t.add_row(
        f"Fig. 7 requests (window {rep.window_s} s)",
        f"{n7['requests']:,}",
        f"{n7['excluded_tail']:,} left out (window past segment end)",
    )
    if n7["requests"]:
        pcts = f"{n7['p5']:,} / {n7['p50']:,} / {n7['p95']:,}"
        t.add_row("  networks p5 / p50 / p95", pcts, "paper: 15k-25k at peak")
        t.add_row("  networks max", f"{n7['max']:,}", f"mean {n7['mean']:,.1f}")
    pc = rep.prefix_check
    if pc is not None:
        t.add_section()
        t.add_row("/24 check: IPs", f"{pc.ips:,}", "paper: 656,559")
        t.add_row("  resolved", f"{pc.resolved:,}", f"{pc.resolved_pct:.2f}% (paper 72.48%)")
        t.add_row(f"  distinct /{pc.prefix} (resolved)", f"{pc.prefixes:,}", "paper: 106,669")
        t.add_row("  with >= 2 domains", f"{pc.mixed:,}", f"{pc.mixed_pct:.2f}% (paper 6.3%)")
        if pc.map_unparsed:
            t.add_row("  unparsed map lines", f"{pc.map_unparsed:,}", "")
    console.print(t)
    for ex in rep.malformed_examples[:3]:
        console.print(f"[dim]malformed line {ex['line']} ({ex['reason']}): {safe(ex['text'][:120])}[/dim]",
                      highlight=False)


def _reasons(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in sorted(d.items(), key=lambda kv: -kv[1]))


if __name__ == "__main__":  # pragma: no cover
    app()
