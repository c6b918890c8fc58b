"""``shortflow repro ...``: reproductions of published results (the package CLI mounts
``app`` as ``repro``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..console import err_console, friendly, integer, out_console

app = typer.Typer(
    name="repro",
    help="Reproduce published results and check the papers' claims.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _repro() -> None:
    """Reproduce published results and check the papers' claims."""


@app.command("spand")
def spand_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: 8 rounds, seeds 1-3, N in {1,6,20}, F in {10,30,100} KB."),
    demo: bool = typer.Option(False, "--demo", help="Fig. 5 and Fig. 10 only, with the quick settings (about a minute)."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default: out/repro-spand[-quick|-demo])."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show the sweeps' progress bars."),
) -> None:
    """TCP/SPAND (Zhang, Qiu, Keshav, NOSSDAV 2000): Fig. 5 and Figs. 10-19 with a claims table.

    Writes figNN.csv/png, claims.json and report.html into --out; the sweeps are cached
    under --out/runs/figNN, so an interrupted run resumes where it stopped.
    """
    friendly(_spand)(quick, demo, jobs, out, progress)


def _spand(quick: bool, demo: bool, jobs: int, out: Optional[Path], progress: bool) -> None:
    from .spand import run

    err, con = err_console, out_console

    if quick and demo:
        raise typer.BadParameter("use either --quick or --demo", param_hint="--quick/--demo")
    mode = "demo" if demo else "quick" if quick else "full"
    out = out or Path("out") / ("repro-spand" + ("" if mode == "full" else f"-{mode}"))
    t0 = time.perf_counter()
    rep = run(out, mode=mode, jobs=jobs, progress=progress, log=lambda m: err.print(f"[dim]{escape(m)}[/]"))
    t = Table(title=f"TCP/SPAND claims ({mode} mode, {time.perf_counter() - t0:.0f} s)", title_justify="left",
              caption="pass: tolerant verdict (±10 pp on numeric ranges, CI overlap on orderings); strict: literal",
              caption_justify="left")
    for c in ("id", "figure", "strict", "pass", "measured"):
        t.add_column(c, overflow="fold")
    mark = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "–"}
    for c in rep.claims:
        t.add_row(c.id, c.figure, mark[c.strict_pass], mark[c.passed], escape(c.summary))
    con.print(t)
    if rep.skipped:
        con.print(f"skipped (figures not in this mode): {', '.join(s['id'] for s in rep.skipped)}", highlight=False)
    con.print(f"{len(rep.passed)}/{sum(c.passed is not None for c in rep.claims)} claims pass; "
              f"report: {rep.out / 'report.html'}, claims: {rep.out / 'claims.json'}", highlight=False)


@app.command("faststart")
def faststart_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: seeds 1-3, bulk flows in {1,4,10}, Web pairs in {1,5,20}."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default: out/repro-faststart[-quick])."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show the sweeps' progress bars."),
) -> None:
    """TCP Fast Start (Padmanabhan thesis ch. 8): Figs. 8.4-8.9, the L4 text result and Table 8.1 with a claims table.

    Writes <experiment>.csv/png, claims.json and claims.md into --out; the sweeps are cached
    under --out/runs/<experiment>, so an interrupted run resumes where it stopped.
    """
    friendly(_faststart)(quick, jobs, out, progress)


def _faststart(quick: bool, jobs: int, out: Optional[Path], progress: bool) -> None:
    from .faststart import run

    err, con = err_console, out_console
    mode = "quick" if quick else "full"
    out = out or Path("out") / ("repro-faststart" + ("-quick" if quick else ""))
    t0 = time.perf_counter()
    rep = run(out, mode=mode, jobs=jobs, progress=progress, log=lambda m: err.print(f"[dim]{escape(m)}[/]"))
    t = Table(title=f"TCP Fast Start claims ({mode} mode, {time.perf_counter() - t0:.0f} s)", title_justify="left",
              caption="pass: within the rule's stated tolerance (claims.md has the thesis's statement and the rule)",
              caption_justify="left")
    for c in ("id", "figure", "pass", "measured"):
        t.add_column(c, overflow="fold")
    mark = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "–"}
    for c in rep.claims:
        t.add_row(c.id, c.figure, mark[c.passed], escape(c.measured))
    con.print(t)
    con.print(f"{len(rep.passed)}/{sum(c.passed is not None for c in rep.claims)} claims pass; "
              f"claims: {rep.out / 'claims.md'}, {rep.out / 'claims.json'}", highlight=False)
