"""Reproduction of TCP Fast Start (Padmanabhan, PhD thesis 1998, ch. 8; spec
``thesis-faststart-asymmetry.md`` Part A): the simulations of §8.4 (Figs. 8.4, 8.5, 8.7,
8.8, 8.9, the L4 text result and Table 8.1) from ``scenarios/faststart``, a claims table
(the thesis's statement, our number, pass/fail under a stated tolerance, and what it was
checked against: the thesis text, or ns-2.35 for the rows it can check), and a TCP/SPAND vs
Fast Start cross-check (``crosscheck.md``).

    from shortflow.repro import faststart
    report = faststart.run("out/repro-faststart", mode="quick", jobs=2)

Fig. 8.6 comes from traced runs of ``fig8_6.toml`` (``fig86.py``).

``mode``: ``full`` (the scenario files as they are: 10 seeds, every N) or ``quick``
(seeds 1-3, bulk flows in {1, 4, 10}, Web pairs in {1, 5, 20}). Sweeps are cached under
``out/runs/<experiment>/``: an interrupted run resumes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional

import polars as pl

from ..claims import claim_counts
from ..jsonsafe import clean_json
from .claims import Claim, evaluate_all
from .experiments import EXPERIMENTS, LINKS, MODES, ExperimentRun, Settings, find_scenario_dir, run_experiment

__all__ = ["run", "Report", "MODES", "EXPERIMENTS", "Settings"]

_STYLE = {
    "tcp": dict(color="tab:red", marker="s", ls="-"),
    "fs": dict(color="tab:green", marker="^", ls="--"),
    "fs-pdrop": dict(color="tab:blue", marker="o", ls="-", lw=2),
    "fs-pdrop-noflr": dict(color="tab:purple", marker="D", ls=":"),
    "fs-pdrop-coarse": dict(color="tab:gray", marker="v", ls="-."),
}


@dataclass
class Report:
    mode: str
    out: Path
    settings: dict[str, Any]
    claims: list[Claim]
    runs: dict[str, ExperimentRun]
    files: dict[str, list[str]]
    wall_s: float
    generated: str

    @property
    def passed(self) -> list[Claim]:
        return [c for c in self.claims if c.passed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "settings": self.settings, "wall_s": round(self.wall_s, 2), "generated": self.generated,
            "counts": claim_counts(self.claims),
            "claims": [c.to_dict() for c in self.claims],
            "outputs": self.files,
            "experiments": {k: {"caption": r.exp.caption, "files": [f for _, f in r.exp.files], "overrides": r.changes,
                                "runs": r.tasks, "computed": r.computed, "sweep_wall_s": round(r.wall_s, 2),
                                } for k, r in self.runs.items()},
        }


def _plot(r: ExperimentRun, path: Path, note: str) -> Path:
    from ...mpl import dodge_offsets, errorbar, integer_ticks, pyplot, save

    plt = pyplot()
    t = r.table
    panels = sorted(set(t["panel"].to_list()))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), dpi=100, squeeze=False)
    for ax, p in zip(axes[0], panels):
        part = t.filter(pl.col("panel") == p)
        schemes = [s for s in _STYLE if s in set(part["scheme"].to_list())]
        offs = dict(zip(schemes, dodge_offsets(part["x"].to_list(), len(schemes))))
        for sch in schemes:
            q = part.filter(pl.col("scheme") == sch).sort("x")
            errorbar(ax, q["x"].to_list(), q["mean"].to_list(), q["ci95"].to_list(), offset=offs[sch], floor=0.0,
                     capsize=3, ms=5, label=sch, **_STYLE[sch])
        ax.set_title(LINKS.get(p, p), fontsize=10)
        ax.set_xlabel(r.exp.x_label)
        ax.set_ylabel("second download completion time (s)")
        ax.set_ylim(bottom=0)
        integer_ticks(ax, part["x"].to_list())
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(r.exp.caption + (f" [{note}]" if note else ""), fontsize=10)
    return save(fig, path)


def _table_png(r: ExperimentRun, path: Path, note: str) -> Path:
    """Table 8.1 as a bar chart: per configuration, the users with and without fast start."""
    from ...mpl import pyplot, save

    plt = pyplot()
    t = r.table.sort(["scheme", "group"])
    fig, ax = plt.subplots(figsize=(6.5, 4), dpi=100)
    labels = [f"{s}\n{'fast-start users' if g == 'fsweb' and s != 'tcp' else 'others' if s != 'tcp' else g}"
              for s, g in zip(t["scheme"], t["group"])]
    ax.bar(range(t.height), t["mean"].to_list(), yerr=[0 if c is None else c for c in t["ci95"].to_list()], capsize=4,
           color=[_STYLE.get(s, {}).get("color", "0.5") for s in t["scheme"]])
    ax.set_xticks(range(t.height), labels, fontsize=7)
    ax.set_ylabel("second download completion time (s)")
    ax.set_title(r.exp.caption + (f" [{note}]" if note else ""), fontsize=9)
    return save(fig, path)


def write_claims_markdown(rep: Report, path: Path) -> Path:
    mark = {True: "pass", False: "**FAIL**", None: "–"}
    lines = [f"# TCP Fast Start claims ({rep.mode} mode)", "",
             f"{len(rep.passed)}/{sum(c.passed is not None for c in rep.claims)} claims pass. Generated {rep.generated} "
             f"by `shortflow repro faststart{' --quick' if rep.mode == 'quick' else ''}` in {rep.wall_s:.0f} s.", "",
             "| id | figure | thesis | ours | rule | verdict | checked against |", "|---|---|---|---|---|---|---|"]
    for c in rep.claims:
        cells = [c.id, c.figure, c.thesis, c.measured, c.rule, mark[c.passed], c.against]
        lines.append("| " + " | ".join(x.replace("|", "/") for x in cells) + " |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(out: str | Path, mode: str = "full", jobs: int = 2, *, settings: Optional[Settings] = None,
        scenario_dir: Optional[str | Path] = None, progress: bool = False, oracle: bool = True,
        crosscheck: bool = True, fig86: bool = True, log: Optional[Callable[[str], None]] = None) -> Report:
    """Run the reproduction into ``out`` and return its claims report; with ``oracle`` (and
    ``ns`` installed) add the ns-2.35 checks of ``oracle.py``; with ``crosscheck`` run the
    TCP/SPAND vs Fast Start comparison of ``crosscheck.py``; with ``fig86`` the traced runs of
    Fig. 8.6 (``fig86.py``)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: use one of {', '.join(MODES)}")
    t0 = time.perf_counter()
    say = log or (lambda _m: None)
    st = settings or MODES[mode]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sdir = Path(scenario_dir) if scenario_dir is not None else find_scenario_dir()
    note = "" if mode == "full" else f"{mode} mode"
    runs: dict[str, ExperimentRun] = {}
    files: dict[str, list[str]] = {}
    for key in st.experiments:
        exp = EXPERIMENTS[key]
        say(f"{key}: {exp.caption}")
        r = run_experiment(exp, st, sdir, out / "runs" / key, jobs=jobs, progress=progress)
        runs[key] = r
        csv = out / f"{key}.csv"
        r.table.write_csv(csv)
        png = _table_png(r, out / f"{key}.png", note) if exp.x_axis is None else _plot(r, out / f"{key}.png", note)
        files[key] = [csv.name, png.name]
        say(f"{key}: {r.tasks} runs ({r.computed} computed) in {r.wall_s:.1f} s")
    claims = evaluate_all({k: r.table for k, r in runs.items()})
    if fig86:
        from .fig86 import run_fig86

        say("Fig. 8.6: a bulk flow while 10 Web pairs fast-start (packet traces)")
        _, c86 = run_fig86(out, sdir, [1, 2, 3] if mode == "quick" else [1, 2, 3, 4, 5], note)
        claims.append(c86)
        files["fig8_6"] = ["fig8_6.csv", "fig8_6.png"]
    if oracle:
        from .oracle import oracle_claims

        say("ns-2.35 oracle (tcp rows, fast start with maxburst 0)")
        claims += oracle_claims(sdir)
    if crosscheck:
        from .crosscheck import run_crosscheck

        say("cross-check: TCP/SPAND and Fast Start on the SPAND Fig. 10 and the E8.2 scenarios")
        run_crosscheck(out, sdir, quick=mode == "quick", jobs=jobs, progress=progress)
        files["crosscheck"] = ["crosscheck.csv", "crosscheck.md"]
    rep = Report(mode, out, st.to_dict(), claims, runs, files, 0.0,
                 datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    rep.wall_s = time.perf_counter() - t0
    (out / "claims.json").write_text(json.dumps(clean_json(rep.to_dict()), indent=2) + "\n", encoding="utf-8")
    write_claims_markdown(rep, out / "claims.md")
    return rep
