"""Reproduction of the TCP/SPAND paper (Zhang, Qiu, Keshav, NOSSDAV 2000): Fig. 5 from
the theory, Figs. 10-19 from the scenario files in ``scenarios/spand``, and a check of
every claim of spec §4.3/§6.6.

    from shortflow.repro import spand
    report = spand.run("out/repro-spand", mode="quick", jobs=2)
    print(report.table())

``mode``: ``full`` (the scenario files as they are), ``quick`` (8 rounds, seeds 1-3, N in
{1, 6, 20}, F in {10, 30, 100} KB, N_total in {2, 6, 20}) or ``demo`` (Fig. 10 only, quick
settings). Sweeps are cached under ``out/runs/figNN/``: an interrupted run resumes.
``ablations=True`` also runs the labelled ablations of Figs. 10 and 12 (``ablations.py``;
not paper behaviour) into ``ablations.csv``/``ablations.png`` and the report.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional

import polars as pl

from .ablations import (AblationResult, ablation_frame, gateway_trace, plot_ablations, plot_gateway_trace,
                        run_ablations)
from .aggregate import friendliness_summary, scheme_summary
from .claims import Claim, evaluate_all, fig5_claims
from .figures import FIGURES, MODES, FigSpec, Settings, diagnose, diagnose_first, find_scenario_dir, run_figure

__all__ = ["run", "ClaimsReport", "FigureResult", "Settings", "MODES", "FIGURES"]


@dataclass
class FigureResult:
    spec: FigSpec
    table: pl.DataFrame
    csv: Path
    png: Path
    run_dir: Path
    scenario_path: Path
    changes: dict[str, Any]
    tasks: int
    computed: int
    wall_s: float
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    #: compute time of the figure's runs: each run's wall-clock time in its worker (about
    #: its CPU time), summed from the sweeps' journals (whichever invocation computed them)
    compute_s: float = 0.0


def _journal_seconds(dirs: list[Path]) -> float:
    total = 0.0
    for d in dirs:
        j = d / "journal.jsonl"
        if j.exists():
            for line in j.read_text(encoding="utf-8").splitlines():
                try:
                    total += float(json.loads(line).get("wall_s", 0.0))
                except ValueError:
                    continue
    return total


@dataclass
class ClaimsReport:
    mode: str
    out: Path
    settings: dict[str, Any]
    jobs: int
    claims: list[Claim]
    skipped: list[dict[str, Any]]
    figures: dict[int, FigureResult]
    fig5: Optional[pl.DataFrame]
    wall_s: float
    version: str
    generated: str
    ablations: list[AblationResult] = field(default_factory=list)

    @property
    def passed(self) -> list[Claim]:
        return [c for c in self.claims if c.passed]

    @property
    def failed(self) -> list[Claim]:
        return [c for c in self.claims if c.passed is False]

    def claim(self, cid: str) -> Claim:
        return next(c for c in self.claims if c.id == cid)

    def table(self) -> pl.DataFrame:
        """id, figure, strict and tolerant verdicts, and the one-line measurement."""
        return pl.DataFrame({"id": [c.id for c in self.claims], "figure": [c.figure for c in self.claims],
                             "strict_pass": [c.strict_pass for c in self.claims],
                             "pass": [c.passed for c in self.claims], "measured": [c.summary for c in self.claims]},
                            schema={"id": pl.String, "figure": pl.String, "strict_pass": pl.Boolean, "pass": pl.Boolean,
                                    "measured": pl.String})

    def to_dict(self) -> dict[str, Any]:
        out = {
            "mode": self.mode,
            "settings": self.settings,
            "jobs": self.jobs,
            "wall_s": round(self.wall_s, 2),
            "compute_s": round(sum(fr.compute_s for fr in self.figures.values()), 2),
            "runs": sum(fr.tasks for fr in self.figures.values()),
            "computed_now": sum(fr.computed for fr in self.figures.values()),
            "version": self.version,
            "generated": self.generated,
            "counts": {"claims": len(self.claims), "evaluated": sum(c.passed is not None for c in self.claims),
                       "pass": len(self.passed), "strict_pass": sum(bool(c.strict_pass) for c in self.claims),
                       "fail": len(self.failed), "skipped": len(self.skipped)},
            "claims": [c.to_dict() for c in self.claims],
            "skipped": self.skipped,
            "figures": {f"fig{n:02d}": {"caption": fr.spec.caption, "scenario": str(fr.scenario_path),
                                        "overrides": fr.changes, "csv": fr.csv.name, "png": fr.png.name,
                                        "runs": fr.tasks, "computed": fr.computed, "sweep_wall_s": round(fr.wall_s, 2),
                                        "compute_s": round(fr.compute_s, 2),
                                        "diagnostics": fr.diagnostics}
                        for n, fr in sorted(self.figures.items())},
        }
        if self.ablations:
            out["ablations"] = [{"figure": a.figure, "id": a.ablation.id, "label": a.ablation.label,
                                 "source": a.ablation.source, "startup": a.ablation.startup, "env": a.ablation.env,
                                 "paper_behaviour": a.ablation.id == "paper", "runs": a.runs,
                                 "computed": a.computed, "claims": a.claims}
                                for a in self.ablations]
        return out


def run(out: str | Path, mode: str = "full", jobs: int = 2, *, settings: Optional[Settings] = None,
        scenario_dir: Optional[str | Path] = None, progress: bool = False, diagnostics: bool = True,
        ablations: bool = False, log: Optional[Callable[[str], None]] = None) -> ClaimsReport:
    """Run the reproduction into ``out`` and return its claims. ``settings`` replaces the
    mode's preset (e.g. ``MODES["demo"].with_(rounds=2, seeds=[1], n_grid=[1, 2])``)."""
    from ...sweeper import worker_pool

    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: use one of {', '.join(MODES)}")
    t0 = time.perf_counter()
    say = log or (lambda _m: None)
    st = settings or MODES[mode]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sdir = Path(scenario_dir) if scenario_dir is not None else find_scenario_dir()

    # One pool of workers for every sweep and diagnostic run of the reproduction,
    # started now: the processes start while Fig. 5 is drawn and the first sweep planned.
    with worker_pool(jobs) if jobs > 1 else contextlib.nullcontext():
        return _run(out, mode, jobs, st, sdir, progress, diagnostics, ablations, say, t0)


def _run(out: Path, mode: str, jobs: int, st: Settings, sdir: Path, progress: bool, diagnostics: bool, ablations: bool,
         say: Callable[[str], None], t0: float) -> ClaimsReport:
    from ...version import __version__
    from .output import (plot_friendliness, plot_schemes, write_claims_json, write_claims_markdown, write_csv,
                         write_report)
    from .theory import fig5_frame, plot_fig5

    f5 = fig5_frame()
    f5.write_csv(out / "fig05.csv")
    plot_fig5(f5.filter(pl.col("W_c") <= 40), out / "fig05.png")
    claims = fig5_claims(f5)

    tables: dict[int, pl.DataFrame] = {}
    diags: dict[int, list[dict[str, Any]]] = {}
    figures: dict[int, FigureResult] = {}
    runs: dict[int, Any] = {}
    note = "" if mode == "full" else f"{mode} mode"
    for no in st.figures:
        spec = FIGURES[no]
        say(f"Fig. {no}: {spec.caption}")
        run_dir = out / "runs" / spec.key
        reuse = [d for r in runs.values() for d in r.sweep_dirs]
        first = 0
        if diagnostics and spec.kind == "schemes":
            # The diagnostic runs are sweep tasks: run first, each gives its task's entry.
            d, first = diagnose_first(spec, st, sdir, run_dir, jobs=jobs,
                                      reuse=[out / "runs" / FIGURES[k].key for k in runs])
            reuse.append(d)
        fr = run_figure(spec, st, sdir, run_dir, jobs=jobs, progress=progress, reuse=reuse)
        fr.computed += first
        runs[no] = fr
        if spec.kind == "schemes":
            table = scheme_summary(fr.rows)
            png = plot_schemes(no, spec.caption, spec.x_label, table, out / f"{spec.key}.png", note)
        else:
            table = friendliness_summary(fr.rows)
            png = plot_friendliness(no, spec.caption, table, out / f"{spec.key}.png", note)
        csv = write_csv(no, spec.x_label, table, out / f"{spec.key}.csv")
        diag = (diagnose(fr, run_dir, jobs=jobs, reuse=[out / "runs" / FIGURES[k].key for k in runs if k != no])
                if diagnostics else [])
        tables[no], diags[no] = table, diag
        figures[no] = FigureResult(spec, table, csv, png, run_dir, sdir / spec.file, fr.changes, fr.tasks,
                                   fr.computed, fr.wall_s, diag, _journal_seconds(fr.sweep_dirs + [run_dir / "diag"]))
        say(f"Fig. {no}: {fr.tasks} runs ({fr.computed} computed) in {fr.wall_s:.1f} s")

    more, skipped = evaluate_all(tables, diags if diagnostics else None)
    claims += more
    abl: list[AblationResult] = []
    if ablations:
        say("Ablations (not paper behaviour) of Figs. 10 and 12")
        abl = run_ablations(runs, st, sdir, out, jobs=jobs, progress=progress)
        if abl:
            frame = ablation_frame(abl)
            frame.write_csv(out / "ablations.csv")
            plot_ablations(frame, out / "ablations.png", note)
        if 10 in st.figures:
            trace = gateway_trace(st, sdir)
            trace.write_csv(out / "gateway_trace.csv")
            plot_gateway_trace(trace, out / "gateway_trace.png", note)
        say(f"Ablations: {sum(a.runs for a in abl)} runs ({sum(a.computed for a in abl)} computed)")
    report = ClaimsReport(mode, out, st.to_dict(), jobs, claims, skipped, figures, f5, 0.0, __version__,
                          datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), abl)
    report.wall_s = time.perf_counter() - t0
    write_claims_json(report, out / "claims.json")
    write_claims_markdown(report, out / "claims.md")
    write_report(report, out / "report.html")
    return report
