"""``shortflow pcap ...``: the typer sub-app (mounted by :mod:`shortflow.cli`)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich.table import Table

from ..console import friendly, out_console, path_option
from ..console import fail as _fail
from . import DUP_WINDOW_S

if TYPE_CHECKING:
    from .analyze import Analysis

app = typer.Typer(
    name="pcap",
    help="Analyze real packet captures (thesis ch. 4 trace study: Table 4.1, Figs. 4.4-4.7).",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _pcap() -> None:
    """Analyze real packet captures (thesis ch. 4 trace study: Table 4.1, Figs. 4.4-4.7)."""


def parse_ports(items: Optional[list[str]]) -> list[int]:
    """``--server-port`` values: ports, comma lists and ranges (80, 80,8080, 10000-10099)."""
    out: list[int] = []
    for item in items or []:
        for part in str(item).split(","):
            part = part.strip()
            lo, sep, hi = part.partition("-")
            try:
                a = int(lo, 10)
                b = int(hi, 10) if sep else a
            except ValueError:
                raise typer.BadParameter(f"{item!r}: give port numbers, lists (80,8080) or ranges (10000-10099)",
                                         param_hint="--server-port") from None
            if not (0 < a <= b < 65536):
                raise typer.BadParameter(f"{item!r}: ports are 1-65535 (a range low-high)",
                                         param_hint="--server-port")
            out.extend(range(a, b + 1))
    return out


def _num(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.3g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _print_summary(a: Analysis, file: Path) -> None:
    from .plots import table_4_1

    s = a.summary
    rd = a.read
    t = Table(title=f"{file}: TCP analysis (server -> client data), cf. thesis Table 4.1", title_justify="left")
    for col in ("statistic", "value", "%", "thesis", "thesis %"):
        t.add_column(col, justify="left" if col == "statistic" else "right")
    for r in table_4_1(s).iter_rows(named=True):
        t.add_row(r["statistic"], _num(r["value"]), _num(r["pct"]), _num(r["thesis_value"]), _num(r["thesis_pct"]))
    out_console.print(t)
    other = ", ".join(f"{k} {v:,}" for k, v in sorted(rd.non_tcp.items())) or "none"
    lines = [
        f"frames {rd.frames:,} ({rd.format}); TCP segments {rd.tcp:,} ({rd.ipv6:,} over IPv6); non-IP {rd.non_ip:,}; "
        f"other IP protocols: {other}; fragments {rd.fragments:,}",
        f"cut by the snap length: {rd.truncated_header:,} inside a header (skipped), {rd.truncated_payload:,} in the "
        f"payload (lengths from the IP header); bad headers {rd.bad_header:,}; duplicate frames "
        f"{s['duplicate_frames']:,}" + (f"; link types not decoded: {rd.unsupported_link}" if rd.unsupported_link
                                        else "") + (f"; {rd.untimed:,} untimed simple packet blocks" if rd.untimed
                                                    else ""),
        f"connections without a captured handshake {s['connections_without_handshake']:,}; HTTP requests "
        f"{s['requests']:,}; capture loss {s['capture_lost_segments']:,} holes / {s['capture_lost_bytes']:,} bytes "
        "(acknowledged, never captured)",
        f"retransmissions by tcptrace's definition {s['rexmt_tcptrace']:,}; connection size mean "
        f"{_num(s['mean_connection_bytes'])} B, median {_num(s['median_connection_bytes'])} B (thesis: 5.5 KB, 3.1 KB)",
        f"advertised window < 8 KB: {_num(s['rwnd_below_8KB_pct'])}% of connections (thesis > 60%); emulated cwnd "
        f"past it: {_num(s['cwnd_over_rwnd_pct'])}% (thesis 14%)",
        f"hosts with >= 10 periods: {s['hosts_with_correlation']:,}; correlation > 0: "
        f"{_num(s['hosts_positive_correlation_pct'])}% (thesis ~90%), > 0.5: "
        f"{_num(s['hosts_correlation_above_half_pct'])}% (thesis ~45%)",
        f"loss epochs {s['loss_epochs']:,}; mean backoff factor: concurrent fast recovery "
        f"{_num(s['mean_factor_concurrent_fast'])}, concurrent timeouts {_num(s['mean_factor_concurrent_timeout'])} "
        "(thesis 0.6-0.75 with several connections)",
    ]
    for ln in lines:
        out_console.print(ln, highlight=False)


def write_outputs(a: Analysis, out: Path, file: Path, plots: bool = True) -> list[Path]:
    """connections.parquet/.csv, periods.csv, hosts.csv, epochs.csv, table_4_1.csv,
    summary.json and (``plots``) the figures, written atomically into ``out``."""
    from ..files import ensure_dir, write_bytes, write_json, write_parquet
    from .plots import make_figures, table_4_1

    ensure_dir(out)
    files = []

    def csv(name: str, df: Any) -> None:
        buf = io.BytesIO()
        df.write_csv(buf)
        write_bytes(out / name, buf.getvalue())
        files.append(out / name)

    write_parquet(out / "connections.parquet", a.connections)
    files.append(out / "connections.parquet")
    csv("connections.csv", a.connections)
    csv("periods.csv", a.periods)
    csv("hosts.csv", a.hosts)
    csv("epochs.csv", a.epochs)
    csv("table_4_1.csv", table_4_1(a.summary))
    write_json(out / "summary.json", dict(a.summary, file=str(file)))
    files.append(out / "summary.json")
    if plots:
        files += make_figures(a, out / "plots", title=file.name)
    return files


@app.command("analyze")
@friendly
def analyze_cmd(
    file: Path = typer.Argument(..., help="Capture file: pcap or pcapng (not compressed)."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Write connections.parquet/.csv, periods/hosts/epochs "
                                       "CSV, table_4_1.csv, summary.json and plots/ here."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
    server_port: Optional[list[str]] = typer.Option(None, "--server-port", "-p", help="The server's port(s): 80, "
                                                    "80,8080 or 10000-10099 (repeatable). Default: the side that "
                                                    "received the SYN, else the lower port."),
    dup_window: float = typer.Option(DUP_WINDOW_S, "--dup-window", help="Seconds within which an exact repeat of a "
                                     "frame is a capture duplicate (0: none dropped)."),
    plots: bool = typer.Option(True, "--plots/--no-plots", help="With --out: draw the figures."),
) -> None:
    """Per-connection TCP analysis of a capture (bytes, retransmissions and their kinds, handshake RTT,
    requests, windows, capture loss) and per-client concurrency, loss epochs and backoff."""
    if not (math.isfinite(dup_window) and dup_window >= 0):
        raise _fail(f"--dup-window = {dup_window:g}: give a non-negative number of seconds")
    ports = parse_ports(server_port)
    from .analyze import analyze_capture
    from .reader import CaptureError

    try:
        a = analyze_capture(file, server_ports=ports, dup_window_s=dup_window)
    except CaptureError as e:
        raise _fail(str(e)) from None
    if out is not None:
        files = write_outputs(a, out, file, plots=plots)
    if as_json:
        typer.echo(json.dumps(a.summary, default=str))
    else:
        _print_summary(a, file)
        if out is not None:
            out_console.print(f"wrote {len(files)} files to {out}", highlight=False)
