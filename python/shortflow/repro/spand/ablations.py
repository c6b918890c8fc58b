"""Ablations of TCP/SPAND on Figs. 10 and 12 (``shortflow repro spand --ablations``).

None of these is the paper's behaviour: they are the readings the spec added on top of
the paper (floored samples, A10's end sample, a whole-tick RTT), the paper's mechanisms
switched off one at a time (shift, pacing, ...), one rule of ours (no decrease) and two
changes of the environment (delayed acks with b = 2, 1000 B cross-traffic packets). The
defaults and their sources are in ``scenarios/spand/common.md`` and ``docs/defaults.md``.

A *start-up* ablation changes only the ``spand`` scheme and is compared with the baselines
of the main figure run (same seeds, same cache). An *environment* ablation changes every
scheme's world, so its baselines are run again under the same change.
"""

from __future__ import annotations

import bisect
import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import polars as pl

from ...patch import set_path
from ...scenario import Scenario
from .aggregate import scheme_summary
from .claims import NSSR, SSR, reduction_bound
from .figures import FIGURES, FigureRun, Settings, figure_scenario

__all__ = ["Ablation", "ABLATIONS", "AblationResult", "run_ablations", "ablated_scenario", "ablation_frame", "plot_ablations",
           "gateway_trace", "plot_gateway_trace", "ABLATION_FIGURES"]

#: the figures the ablations are run on (the paper's two headline single-bottleneck figures)
ABLATION_FIGURES = (10, 12)


@dataclass(frozen=True)
class Ablation:
    id: str
    label: str
    #: members set in the ``spand`` scheme's ``startup`` table
    startup: dict[str, Any] = field(default_factory=dict)
    #: scenario paths set for every scheme (an environment change: baselines re-run)
    env: dict[str, Any] = field(default_factory=dict)
    #: figures it applies to (None: all ablation figures)
    figures: Optional[tuple[int, ...]] = None
    #: where the setting comes from
    source: str = ""

    def applies(self, fig: int) -> bool:
        return self.figures is None or fig in self.figures


ABLATIONS: list[Ablation] = [
    Ablation("paper", "paper defaults", source="paper §5.1-5.2 (scenarios/spand/common.md)"),
    Ablation("spec-readings", "spec readings: floored samples + A10 end sample + whole-tick RTT",
             {"floor_samples": True, "end_sample": "no_ca_sample", "rtt_report": "ticks"},
             source="spec §2.3, A10 as first implemented (the previous defaults)"),
    Ablation("rtt-ticks", "RTT in whole ticks", {"rtt_report": "ticks"}, source="spec §2.3 read as (t_srtt_ >> 3) x tick"),
    Ablation("rtt-exact", "RTT exact (unquantised EWMA)", {"rtt_report": "exact"}, source="ours"),
    Ablation("floor-samples", "floored samples", {"floor_samples": True}, source="spec §2.3"),
    Ablation("a10-end-sample", "A10 end sample after any non-CA loss", {"end_sample": "no_ca_sample"},
             source="spec A10"),
    Ablation("no-shift", "no Eq. (4) shift", {"shift": False}, source="paper §4.2 (unshifted Eq. 3)"),
    Ablation("no-pacing", "no pacing", {"pacing": False}, source="paper §5.2.5 switched off"),
    Ablation("reuse-cwnd", "reuse previous cwnd (paced)", {"reuse_previous_cwnd": True}, source="ours"),
    Ablation("bucket-empty", "token bucket starts empty", {"bucket_starts_full": False}, source="spec A7 reversed"),
    Ablation("no-decrease", "no decrease: loss-free transfers report ≥ the estimate", {"no_decrease": True},
             source="ours"),
    Ablation("delack-b2", "delayed acks, b = 2 (all schemes)", {"b": 2.0}, {"sink.delack": True},
             source="spec A4 ablation"),
    Ablation("udp-1000B", "cross-traffic UDP packets of 1000 B (all schemes)", env={"cross.udp.packet_size": "1000B"},
             figures=(12,), source="spec A19 ablation"),
]


@dataclass
class AblationResult:
    figure: int
    ablation: Ablation
    #: scheme table (x, scheme, mean, ci95, spand_reduction_pct, ...) with the ablated spand
    table: pl.DataFrame
    runs: int
    computed: int
    #: the paper's numeric claims of this figure evaluated on the ablated table
    claims: dict[str, dict[str, Optional[bool]]]


def ablated_scenario(base: Scenario, ab: Ablation, spand_only: bool) -> Scenario:
    raw = copy.deepcopy(base.raw)
    st = raw["schemes"]["spand"]["flows"]["conn"]["startup"]
    st.update(ab.startup)
    for path, value in ab.env.items():
        set_path(raw, path, value)
    if spand_only:
        raw["sweep"]["scheme"] = ["spand"]
    return Scenario(raw, source=base.source, path=base.path)


def _claims(fig: int, table: pl.DataFrame) -> dict[str, dict[str, Optional[bool]]]:
    if fig == 10:
        cs = [reduction_bound("fig10-ssr", "", "", table, SSR, 50.0),
              reduction_bound("fig10-nssr", "", "", table, NSSR, 20.0)]
    else:
        cs = [reduction_bound("fig12-ssr", "", "", table, SSR, 35.0, 65.0, "all"),
              reduction_bound("fig12-nssr", "", "", table, NSSR, 25.0, 50.0, "all")]
    return {c.id: {"strict": c.strict_pass, "tolerant": c.passed, "summary": c.summary} for c in cs}  # type: ignore[dict-item]


def run_ablations(runs: dict[int, FigureRun], settings: Settings, scenario_dir: Path, out: Path, jobs: int = 2,
                  progress: bool = False, ablations: Optional[list[Ablation]] = None) -> list[AblationResult]:
    """Every ablation on each of Figs. 10 and 12 present in ``runs`` (the main figure
    runs, whose baselines the start-up ablations reuse); sweeps cached under
    ``out/runs/ablations/figNN-<id>``."""
    from ...sweeper import run_sweep

    results = []
    for fig in ABLATION_FIGURES:
        if fig not in runs:
            continue
        spec = FIGURES[fig]
        base_rows = runs[fig].rows
        base_sc, _ = figure_scenario(spec, settings, scenario_dir)
        for ab in ablations or ABLATIONS:
            if not ab.applies(fig):
                continue
            if ab.id == "paper":
                rows, n, computed = base_rows, 0, 0
            else:
                env = bool(ab.env)
                sc = ablated_scenario(base_sc, ab, spand_only=not env)
                res = run_sweep(sc, jobs=jobs, out=Path(out) / "runs" / "ablations" / f"{spec.key}-{ab.id}",
                                progress=progress)
                new = res.results.with_columns(pl.col(spec.x_axis).cast(pl.Float64).alias("x"))
                rows = new if env else pl.concat([base_rows.filter(pl.col("scheme") != "spand"), new],
                                                 how="diagonal_relaxed")
                n, computed = res.tasks, res.computed
            table = scheme_summary(rows)
            results.append(AblationResult(fig, ab, table, n, computed, _claims(fig, table)))
    return results


def ablation_frame(results: list[AblationResult]) -> pl.DataFrame:
    """One row per (figure, ablation, x): SPAND's mean completion time (s) with its CI and
    its reduction (%) versus each baseline of the same world."""
    rows = []
    for r in results:
        t = r.table
        for x in sorted(set(t["x"].to_list())):
            sp = t.filter((pl.col("x") == x) & (pl.col("scheme") == "spand"))
            row: dict[str, Any] = {"figure": r.figure, "ablation": r.ablation.id, "label": r.ablation.label,
                                   "x": x, "spand_mean": sp["mean"][0] if sp.height else None,
                                   "spand_ci95": sp["ci95"][0] if sp.height else None}
            for b in SSR + NSSR:
                part = t.filter((pl.col("x") == x) & (pl.col("scheme") == b))
                row[f"reduction_vs_{b}_pct"] = part["spand_reduction_pct"][0] if part.height else None
            rows.append(row)
    return pl.DataFrame(rows, strict=False)


def plot_ablations(frame: pl.DataFrame, path: Path, note: str = "") -> Path:
    """Per figure (rows): SPAND's completion time, and its reduction versus reno-ssr and
    versus newreno-nssr, one line per ablation (the paper defaults bold)."""
    from ...mpl import integer_ticks, pyplot, save

    plt = pyplot()
    figs = sorted(set(frame["figure"].to_list()))
    ids = frame["ablation"].unique(maintain_order=True).to_list()
    cmap = plt.get_cmap("tab20")
    fig, axes = plt.subplots(len(figs), 3, figsize=(16, 4.4 * len(figs)), dpi=110, squeeze=False)
    bands = {10: ((50, None), (20, None)), 12: ((35, 65), (25, 50))}
    for i, f in enumerate(figs):
        sub = frame.filter(pl.col("figure") == f)
        for j, aid in enumerate(ids):
            part = sub.filter(pl.col("ablation") == aid).sort("x")
            if not part.height:
                continue
            st = dict(color="k", lw=2.4, marker="o", ms=5) if aid == "paper" else dict(color=cmap(j % 20), lw=1.2,
                                                                                       marker=".", ms=5)
            if aid in ("delack-b2", "udp-1000B"):
                st["ls"] = "--"
            lab = part["label"][0]
            axes[i][0].plot(part["x"], part["spand_mean"], label=lab, **st)
            axes[i][1].plot(part["x"], part["reduction_vs_reno-ssr_pct"], **st)
            axes[i][2].plot(part["x"], part["reduction_vs_newreno-nssr_pct"], **st)
        for k, (lo, hi) in zip((1, 2), bands.get(f, ())):
            ax = axes[i][k]
            if hi is None:
                ax.axhline(lo, color="0.5", ls=":", lw=1.2)
            else:
                ax.axhspan(lo, hi, color="0.8", alpha=0.4)
        axes[i][0].set_title(f"Fig. {f}: TCP/SPAND average completion time (s)", fontsize="medium")
        axes[i][1].set_title(f"Fig. {f}: reduction vs reno-ssr (%) [claim band grey]", fontsize="medium")
        axes[i][2].set_title(f"Fig. {f}: reduction vs newreno-nssr (%) [claim band grey]", fontsize="medium")
        axes[i][0].set_ylim(bottom=0)
        for ax in axes[i]:
            ax.set_xlabel("number of connections N")
            ax.grid(True, alpha=0.3)
            integer_ticks(ax, sub["x"].to_list())
        axes[i][1].axhline(0, color="k", lw=0.6)
        axes[i][2].axhline(0, color="k", lw=0.6)
    axes[0][0].legend(fontsize="x-small", loc="upper left")
    fig.suptitle("TCP/SPAND ablations (not paper behaviour; bold: paper defaults; dashed: environment changed for "
                 "every scheme)" + (f"  [{note}]" if note else ""), fontsize="medium")
    return save(fig, path)


# --- the gateway's estimate over time (the downward ratchet) ------------------------------------

#: (N, ablation id) pairs of the trace: paper defaults and the no-decrease rule, N = 1 and 6
TRACE_POINTS = ((1, "paper"), (6, "paper"), (1, "no-decrease"), (6, "no-decrease"))


def gateway_trace(settings: Settings, scenario_dir: Path, seed: Optional[int] = None,
                  points: tuple[tuple[int, str], ...] = TRACE_POINTS) -> pl.DataFrame:
    """One Fig. 10 run (spand scheme, first seed) per (N, ablation): for every TCP/SPAND
    transfer, the gateway's W_c estimate at its start, the window it started with, whether
    it lost a packet, and its cwnd at the end (the paper's sample when it was loss-free),
    read from the per-ack cwnd trace."""
    import json

    from ...native import run_json
    from ...results import RunResults

    spec = FIGURES[10]
    base, _ = figure_scenario(spec, settings, scenario_dir)
    abl = {a.id: a for a in ABLATIONS}
    seed = seed if seed is not None else base.seeds[0]
    out = []
    for n, aid in points:
        sc = ablated_scenario(base, abl[aid], spand_only=True)
        cfg = sc.to_sim_config({spec.x_axis: n, "scheme": "spand"}, seed)
        cfg["trace"] = {"cwnd": True}
        res = RunResults.from_json(run_json(json.dumps(cfg)), cfg)
        names = [f["name"] for f in cfg["flows"]]
        st = res.startup.with_row_index("k")
        tr = res.transfers
        cw = res.cwnd
        for flow in st["flow"].unique(maintain_order=True).to_list():
            idx = names.index(flow)
            starts = st.filter(pl.col("flow") == flow).sort("time_s")
            xfers = tr.filter(pl.col("flow") == flow).sort("start_s")
            fc = cw.filter(pl.col("flow") == idx).sort("time_ns")
            times = fc["time_ns"].to_list()
            vals = fc["cwnd"].to_list()
            for i, (s, x) in enumerate(zip(starts.iter_rows(named=True), xfers.iter_rows(named=True))):
                end = x["end_s"]
                j = bisect.bisect_right(times, int(round(end * 1e9))) - 1 if end is not None else -1
                out.append({"N": n, "ablation": aid, "flow": flow, "transfer": i, "start_s": s["time_s"],
                            "wc_estimate": s["wc_estimate"], "n_samples": s["n_samples"],
                            "start_cwnd": s["cwnd"], "slow_start": s["fallback_slow_start"],
                            "lossy": bool(x["retransmits"] or x["timeouts"]),
                            "end_cwnd": vals[j] if j >= 0 else None, "completion_s": x["completion_s"]})
    return pl.DataFrame(out, strict=False)


def plot_gateway_trace(trace: pl.DataFrame, path: Path, note: str = "") -> Path:
    """Per (ablation, N): the estimate at each start, the start window and the end cwnd of
    loss-free transfers (the sample they report) for the first connection, over rounds;
    dotted: the W_c values where cwnd_opt(30, W_c) changes plateau (11, 16, 30)."""
    from ...mpl import pyplot, save

    plt = pyplot()
    keys = trace.select("ablation", "N").unique(maintain_order=True).rows()
    abls = list(dict.fromkeys(k[0] for k in keys))
    ns = sorted({k[1] for k in keys})
    fig, axes = plt.subplots(len(abls), len(ns), figsize=(6.5 * len(ns), 3.8 * len(abls)), dpi=110, squeeze=False)
    for i, a in enumerate(abls):
        for j, n in enumerate(ns):
            ax = axes[i][j]
            sub = trace.filter((pl.col("ablation") == a) & (pl.col("N") == n))
            flow = sub["flow"][0] if sub.height else None
            f = sub.filter(pl.col("flow") == flow).sort("transfer")
            r = f["transfer"].to_list()
            ax.plot(r, f["wc_estimate"], "o-", color="tab:blue", ms=3, label="gateway W_c estimate at start (mean)")
            ax.step(r, f["start_cwnd"], where="mid", color="tab:green", label="start window (cwnd_opt; 1 = slow start)")
            lf = f.filter(~pl.col("lossy"))
            ls = f.filter(pl.col("lossy"))
            ax.plot(lf["transfer"], lf["end_cwnd"], "^", color="tab:orange", ms=5,
                    label="end cwnd, loss-free (the sample it reports)")
            ax.plot(ls["transfer"], ls["end_cwnd"], "x", color="tab:red", ms=5, label="end cwnd, lossy (no end sample)")
            for w in (11, 16, 30):
                ax.axhline(w, color="0.6", ls=":", lw=1)
            ax.set_title(f"{a}, N = {n} (connection {flow})", fontsize="medium")
            ax.set_xlabel("transfer (round)")
            ax.set_ylabel("packets")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize="x-small", loc="upper right")
    fig.suptitle("Fig. 10 (seed 1): the gateway's W_c estimate per transfer; dotted: W_c = 11, 16, 30 where "
                 "cwnd_opt(30, W_c) steps to 9, 15, 30" + (f"  [{note}]" if note else ""), fontsize="medium")
    return save(fig, path)
