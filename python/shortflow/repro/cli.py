"""``shortflow repro ...``: reproductions of published results (the package CLI mounts
``app`` as ``repro``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..console import err_console, friendly, integer, out_console, path_option

app = typer.Typer(
    name="repro",
    help="Reproduce published results and check the papers' claims.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _repro() -> None:
    """Reproduce published results and check the papers' claims."""


@app.command("fairshare")
def fairshare_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run (about a minute): Figs. 3/7 at 16 Mb/s (600 s, "
                               "seeds 1-2), the readings trace, Fig. 20's methods on the 200-node network."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-fairshare[-quick])."),
    cross: Optional[str] = typer.Option(None, "--cross", help="Reading of the homogeneous network's cross traffic "
                                        "(spec A.15 item 3): once (default, the scenario file's: one Pareto lifetime "
                                        "per pair), persistent (the spec's literal default), renew."),
    bandwidth_on: str = typer.Option("core", "--bandwidth-on", help="Links that carry 'Bandwidth' in Fig. 2 (spec "
                                     "A.15 item 2): core (r1-r2 and r2-r3), r1r2, r2r3, all."),
) -> None:
    """Fair-share slow start (Yu & Newman, P3) from scenarios/fairshare/: Figs. 3-8, 11-20 and a
    readings comparison, with a claims table (claims.json/claims.md, runs.csv, readings.csv, figNN.png)."""
    friendly(_fairshare)(quick, jobs, out, cross, bandwidth_on)


def _fairshare(quick: bool, jobs: int, out: Optional[Path], cross: Optional[str], bandwidth_on: str) -> None:
    from .fairshare import run
    from .fairshare.workload import BANDWIDTH_READINGS, CROSS_READINGS

    for name, v, ok in (("--cross", cross, CROSS_READINGS), ("--bandwidth-on", bandwidth_on, BANDWIDTH_READINGS)):
        if v is not None and v not in ok:
            raise typer.BadParameter(f"{v!r} is not one of {', '.join(ok)}", param_hint=name)
    mode = "quick" if quick else "full"
    out = out or Path("out") / ("repro-fairshare" + ("-quick" if quick else ""))
    t0 = time.perf_counter()
    cl = run(out, mode=mode, jobs=jobs, log=lambda m: err_console.print(f"[dim]{escape(m)}[/]"), cross=cross,
             bandwidth_on=bandwidth_on)
    t = Table(title=f"Fair-share slow start claims ({mode} mode, {time.perf_counter() - t0:.0f} s)", title_justify="left")
    for col in ("claim", "paper", "ours", "verdict"):
        t.add_column(col)
    for c in cl:
        t.add_row(c["id"], escape(c["paper"]), str(c["ours"]), "pass" if c["pass"] else "FAIL")
    out_console.print(t)
    out_console.print(f"written to {out}")


@app.command("spand")
def spand_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: 8 rounds, seeds 1-3, N in {1,6,20}, F in {10,30,100} KB."),
    demo: bool = typer.Option(False, "--demo", help="Fig. 5 and Fig. 10 only, with the quick settings (about a minute)."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-spand[-quick|-demo])."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show the sweeps' progress bars."),
    ablations: bool = typer.Option(False, "--ablations", help="Also run the labelled ablations (not paper behaviour) "
                                   "of Figs. 10 and 12 into ablations.csv/png and the report."),
) -> None:
    """TCP/SPAND (Zhang, Qiu, Keshav, NOSSDAV 2000): Fig. 5 and Figs. 10-19 with a claims table.

    Writes figNN.csv/png, claims.json and report.html into --out; the sweeps are cached
    under --out/runs/figNN, so an interrupted run resumes where it stopped.
    """
    friendly(_spand)(quick, demo, jobs, out, progress, ablations)


def _spand(quick: bool, demo: bool, jobs: int, out: Optional[Path], progress: bool, ablations: bool = False) -> None:
    from .spand import run

    err, con = err_console, out_console

    if quick and demo:
        raise typer.BadParameter("use either --quick or --demo", param_hint="--quick/--demo")
    mode = "demo" if demo else "quick" if quick else "full"
    out = out or Path("out") / ("repro-spand" + ("" if mode == "full" else f"-{mode}"))
    t0 = time.perf_counter()
    rep = run(out, mode=mode, jobs=jobs, progress=progress, ablations=ablations,
              log=lambda m: err.print(f"[dim]{escape(m)}[/]"))
    t = Table(title=f"TCP/SPAND claims ({mode} mode, {time.perf_counter() - t0:.0f} s)", title_justify="left",
              caption="pass: tolerant verdict (±10 pp on the paper's numbers only, CI overlap on orderings); strict: literal",
              caption_justify="left")
    for c in ("id", "figure", "source", "strict", "pass", "measured"):
        t.add_column(c, overflow="fold")
    mark = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "–"}
    for c in rep.claims:
        t.add_row(c.id, c.figure, c.source, mark[c.strict_pass], mark[c.passed], escape(c.summary))
    con.print(t)
    if rep.skipped:
        con.print(f"skipped (figures not in this mode): {', '.join(s['id'] for s in rep.skipped)}", highlight=False)
    con.print(f"{len(rep.passed)}/{sum(c.passed is not None for c in rep.claims)} claims pass; "
              f"report: {rep.out / 'report.html'}, claims: {rep.out / 'claims.json'}", highlight=False)


@app.command("asym")
def asym_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: 3 page sizes, 5 seeds, a 20 s window in E9.2."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-asym[-quick])."),
) -> None:
    """Thesis ch. 9 (Padmanabhan 1998, asymmetric access): E9.1 (Fig. 9.4), E9.2 (Table 9.1,
    Figs. 9.5-9.6 traces) and E9.3 (Table 9.2) with a claims table.

    Writes e91/e92/e93.csv, e91.png, the trace plots, claims.json and claims.md into --out.
    """
    friendly(_asym)(quick, jobs, out)


def _asym(quick: bool, jobs: int, out: Optional[Path]) -> None:
    from .asym import run

    mode = "quick" if quick else "full"
    out = out or Path("out") / ("repro-asym" + ("-quick" if quick else ""))
    rep = run(out, mode=mode, jobs=jobs, log=lambda m: err_console.print(f"[dim]{escape(m)}[/]"))
    t = Table(title=f"Thesis ch. 9 claims ({mode} mode, {rep.wall_s:.0f} s)", title_justify="left",
              caption="ratios: ±25 % (spec C.13); orderings literal", caption_justify="left")
    for c in ("id", "source", "pass", "ours", "checked against"):
        t.add_column(c, overflow="fold")
    mark = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "–"}
    for c in rep.claims:
        t.add_row(c.id, c.source, mark[c.passed], escape(c.ours), escape(c.checked_against))
    out_console.print(t)
    out_console.print(f"{len(rep.passed)}/{len(rep.evaluated)} claims pass; claims: {rep.out / 'claims.md'}",
                      highlight=False)


@app.command("vienna")
def vienna_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: 2 seeds, 150 s of Fig. 3; Figs. 5-6 at 3 loads, "
                                                    "150-200 s, 1 seed."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-vienna[-quick])."),
) -> None:
    """TCP Vienna (Ziegler et al., size-based congestion control): Fig. 1 (model), Fig. 3 (one Vienna flow under
    random loss, literal and doubling evaluation schedules, 100 and 20 ms) and Figs. 5-6 (SURGE Web users over a
    parking lot with 1 and 9 congested hops: mean slowdown, drop probability, response-time quantiles of
    TCP-V1/V2 and NewReno R1/R2) with a claims table.

    Writes fig1/fig3/fig5/fig6 .csv/.png, web_runs.csv, claims.json and claims.md into --out.
    """
    friendly(_vienna)(quick, out)


def _vienna(quick: bool, out: Optional[Path]) -> None:
    from .vienna import run

    mode = "quick" if quick else "full"
    out = out or Path("out") / ("repro-vienna" + ("-quick" if quick else ""))
    rep = run(out, mode=mode, log=lambda m: err_console.print(f"[dim]{escape(m)}[/]"))
    _print_claims(rep, f"TCP Vienna claims ({mode} mode, {rep.wall_s:.0f} s)", "–")


@app.command("linux")
def linux_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: four reno configurations (about a minute)."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-linux[-quick])."),
) -> None:
    """The "linux" TCP profile against real Linux 6.18 on an emulated 1.6 Mb/s, 50 ms path
    (scenarios/linux): Linux's mean completion, ours, the relative error and the counters
    side by side (table.md, table.csv, rows.json)."""
    friendly(_linux)(quick, out)


def _linux(quick: bool, out: Optional[Path]) -> None:
    from .linux import TOLERANCE, run

    mode = "quick" if quick else "full"
    out = out or Path("out") / ("repro-linux" + ("-quick" if quick else ""))
    rep = run(out, mode=mode, log=lambda m: err_console.print(f"[dim]{escape(m)}[/]"))
    t = Table(title=f"Linux profile vs Linux 6.18 ({mode} mode, {rep.wall_s:.0f} s)", title_justify="left")
    for c in ("configuration", "metric", "Linux ms", "ours ms", "error", "timeouts L/ours", "verdict"):
        t.add_column(c)
    for r in rep.rows:
        ours = "–" if r.ours_s != r.ours_s else f"{r.ours_s * 1e3:.1f}"
        err = "–" if r.rel_err != r.rel_err else f"{r.rel_err:+.1%}"
        t.add_row(r.tag, r.metric, f"{r.linux_s * 1e3:.1f}", ours, err, f"{r.linux_timeouts:g}/{r.ours_timeouts:g}",
                  "[green]pass[/]" if r.passed else "[red]FAIL[/]")
    out_console.print(t)
    out_console.print(f"{len(rep.passed)}/{len(rep.rows)} rows within {TOLERANCE:.0%} with no extra timeouts; "
                      f"table: {rep.out / 'table.md'}", highlight=False)


@app.command("faststart")
def faststart_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: seeds 1-3, bulk flows in {1,4,10}, Web pairs in {1,5,20}."),
    jobs: int = typer.Option(2, "--jobs", "-j", parser=integer(1), metavar="INTEGER", help="Parallel simulations."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-faststart[-quick])."),
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


@app.command("web")
def web_cmd(
    quick: bool = typer.Option(False, "--quick", help="Reduced run: 1, 5 and 10 images; no concurrent HTTP/1.0 series."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_option, metavar="PATH", help="Output directory (default: out/repro-web[-quick])."),
    only: Optional[str] = typer.Option(None, "--only", help="Re-run only these parts (comma-separated: fig4_2, "
                                       "fig4_3, ch5trace, fig6_6, ch6, ch7) into an earlier run's --out; their claims "
                                       "replace the old ones in claims.json/claims.md."),
) -> None:
    """Web transfers (Padmanabhan's thesis ch. 4-5): Figs. 4.2 (model and simulator), 4.3, and the ch. 5 testbed
    comparisons simulated (Figs. 5.6, 5.7: HTTP/1.0 vs persistent vs pipelined P-HTTP) with a claims table.

    Writes fig4_2/fig4_3/fig5_6/fig5_7 .csv/.png, claims.json and claims.md into --out. The TCP-session results
    (ch. 6-7) and the trace study are listed as not yet run.
    """
    friendly(_web)(quick, out, only)


def _web(quick: bool, out: Optional[Path], only: Optional[str] = None) -> None:
    from .web import run

    mode = "quick" if quick else "full"
    out = out or Path("out") / ("repro-web" + ("-quick" if quick else ""))
    parts = [p.strip() for p in only.split(",") if p.strip()] if only is not None else None
    if parts is not None:
        from .web import check_parts

        try:
            check_parts(out, parts, mode)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--only") from None
    rep = run(out, mode=mode, log=lambda m: err_console.print(f"[dim]{escape(m)}[/]"), only=parts)
    _print_claims(rep, f"Web transfer claims ({mode} mode, {rep.wall_s:.0f} s)", "not yet run")


def _print_claims(rep: Any, title: str, no_verdict: str) -> None:
    """The claims of a ``repro.claims.Report``: id, criterion source, verdict, our number."""
    t = Table(title=title, title_justify="left")
    for c in ("id", "criterion", "verdict", "ours"):
        t.add_column(c, overflow="fold")
    mark = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: no_verdict}
    for c in rep.claims:
        t.add_row(c.id, c.source, mark[c.passed], escape(c.measured))
    out_console.print(t)
    out_console.print(f"{len(rep.passed)}/{sum(c.passed is not None for c in rep.claims)} evaluated claims pass; "
                      f"claims: {rep.out / 'claims.md'}", highlight=False)
