"""The simulation figures of the TCP/SPAND paper (Figs. 10-19): which scenario file, which
axis, the reduced settings of the quick/demo modes, the sweeps (with the package's
resumable cache) and a few cheap diagnostic runs (spec §4.5)."""

from __future__ import annotations

import copy
import itertools
import json
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import polars as pl

from ...patch import set_path
from ...scenario import Scenario, load
from ...units import parse_rate, parse_size, parse_time

__all__ = [
    "FigSpec",
    "FIGURES",
    "Settings",
    "MODES",
    "FigureRun",
    "find_scenario_dir",
    "figure_scenario",
    "run_figure",
    "diagnose",
    "diagnose_first",
    "path_capacity",
]

SCHEMES = ["reno-ssr", "newreno-ssr", "reno-nssr", "newreno-nssr", "spand"]
BASELINES = SCHEMES[:-1]


@dataclass(frozen=True)
class FigSpec:
    number: int
    caption: str
    #: the swept x axis of the file, or ``N_total`` for the friendliness figures
    x_axis: str
    x_label: str
    #: ``schemes`` (five schemes vs x) or ``friendliness`` (Figs. 18-19: classes a/b)
    kind: str

    @property
    def file(self) -> str:
        return f"fig{self.number}.toml"

    @property
    def key(self) -> str:
        return f"fig{self.number:02d}"

    @property
    def x_is_size(self) -> bool:
        return self.x_axis.endswith(".size")


_N = ("flows.conn.count", "number of connections N")
_F = ("flows.conn.app.size", "transfer size F (KB)")
FIGURES: dict[int, FigSpec] = {
    10: FigSpec(10, "single bottleneck (Sc. 1), 5 telnet, F = 30 KB, vary N", *_N, "schemes"),
    11: FigSpec(11, "single bottleneck (Sc. 1), 5 telnet, N = 6, vary F", *_F, "schemes"),
    12: FigSpec(12, "single bottleneck (Sc. 1), 40 Pareto UDP @ 12 Kb/s, F = 30 KB, vary N", *_N, "schemes"),
    13: FigSpec(13, "single bottleneck (Sc. 1), 40 Pareto UDP @ 12 Kb/s, N = 6, vary F", *_F, "schemes"),
    14: FigSpec(14, "4-hop chain (Sc. 4), 40 UDP @ 12 Kb/s per hop, F = 30 KB, vary N", *_N, "schemes"),
    15: FigSpec(15, "4-hop chain (Sc. 4), 40 UDP @ 12 Kb/s per hop, N = 6, vary F", *_F, "schemes"),
    16: FigSpec(16, "4-hop chain (Sc. 4), 40 UDP @ 48 Kb/s per hop, F = 30 KB, vary N", *_N, "schemes"),
    17: FigSpec(17, "4-hop chain (Sc. 4), 40 UDP @ 48 Kb/s per hop, N = 6, vary F", *_F, "schemes"),
    18: FigSpec(18, "TCP-friendliness, single bottleneck, J = 0.1 s, 50 ms tick for both",
                "N_total", "total number of connections N", "friendliness"),
    19: FigSpec(19, "TCP-friendliness, single bottleneck, J = 0.1 s, reno-ssr tick 200 ms, SPAND 50 ms",
                "N_total", "total number of connections N", "friendliness"),
}


@dataclass(frozen=True)
class Settings:
    """What a mode changes in the scenario files (``None``: as in the file)."""

    figures: tuple[int, ...] = tuple(FIGURES)
    rounds: Optional[int] = None
    seeds: Optional[tuple[int, ...]] = None
    n_grid: Optional[tuple[int, ...]] = None
    f_grid: Optional[tuple[str, ...]] = None
    #: Figs. 18/19: total connections, split N/2 + N/2 (spec §3.7)
    n_total_grid: tuple[int, ...] = (2, 4, 6, 10, 16, 20, 30)

    def with_(self, **kw: Any) -> "Settings":
        return replace(self, **{k: (tuple(v) if isinstance(v, list) else v) for k, v in kw.items()})

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


_QUICK = Settings(rounds=8, seeds=(1, 2, 3), n_grid=(1, 6, 20), f_grid=("10KB", "30KB", "100KB"), n_total_grid=(2, 6, 20))
MODES: dict[str, Settings] = {
    "full": Settings(),
    "quick": _QUICK,
    "demo": _QUICK.with_(figures=(10,)),
}


def find_scenario_dir(start: Optional[Path] = None) -> Path:
    """``scenarios/spand`` of the repository: ``$SHORTFLOW_SPAND_SCENARIOS``, else the first
    parent of the working directory or of this package that has it."""
    from ..paths import find_scenario_dir as find

    return find("spand", "fig10.toml", "SHORTFLOW_SPAND_SCENARIOS", start)


def figure_scenario(spec: FigSpec, settings: Settings, scenario_dir: Path) -> tuple[Scenario, dict[str, Any]]:
    """The figure's scenario with the mode's reductions applied, and those reductions as
    ``{path: value}`` (empty: the file as it is)."""
    path = Path(scenario_dir) / spec.file
    base = load(path)
    raw = copy.deepcopy(base.raw)
    changes: dict[str, Any] = {}
    if settings.seeds is not None:
        raw["seeds"] = list(settings.seeds)
        changes["seeds"] = list(settings.seeds)
    if settings.rounds is not None:
        for flow in raw.get("flows", []):
            if (flow.get("app") or {}).get("kind") == "rounds":
                p = f"flows.{flow['name']}.app.rounds"
                set_path(raw, p, int(settings.rounds))
                changes[p] = int(settings.rounds)
    if spec.kind == "schemes":
        grid = settings.f_grid if spec.x_is_size else settings.n_grid
        if grid is not None:
            raw["sweep"][spec.x_axis] = list(grid)
            changes[f"sweep[{spec.x_axis!r}]"] = list(grid)
    if not changes:
        return base, {}
    return Scenario(raw, source=str(path), path=path), changes


@dataclass
class FigureRun:
    spec: FigSpec
    scenario: Scenario
    changes: dict[str, Any]
    #: every transfer, with an ``x`` column (N, or F in KB) and, for Figs. 18/19, ``size_kb``
    rows: pl.DataFrame
    sweep_dirs: list[Path]
    tasks: int = 0
    computed: int = 0
    wall_s: float = 0.0
    diagnostics: list[dict[str, Any]] = field(default_factory=list)


def _size_kb(v: Any) -> float:
    return parse_size(v, "size") / 1000.0


def _friendliness_subscenarios(sc: Scenario, n_totals: Sequence[int]) -> Iterable[tuple[str, Scenario, dict[str, Any]]]:
    """Figs. 18/19: one scenario per (N_total, value of the file's other axes). Both
    classes get N/2 connections; an axis on ``flows.a.*`` is applied to ``flows.b.*`` too,
    because in the paper every connection transfers the same F."""
    others = {a: v for a, v in sc.axes.items() if a != "scheme"}
    names = list(others)
    for n in n_totals:
        if n % 2 or n < 2:
            raise ValueError(f"N_total = {n}: Figs. 18/19 need an even total of at least 2")
        for combo in itertools.product(*(others[a] for a in names)) if names else [()]:
            raw = copy.deepcopy(sc.raw)
            set_path(raw, "flows.a.count", n // 2)
            set_path(raw, "flows.b.count", n // 2)
            cols: dict[str, Any] = {"N_total": n}
            label = [f"N{n}"]
            for axis, v in zip(names, combo):
                set_path(raw, axis, v)
                if axis.startswith("flows.a."):
                    set_path(raw, "flows.b." + axis[len("flows.a."):], v)
                cols[axis] = v
                label.append(re.sub(r"[^A-Za-z0-9]+", "", str(v)))
            raw["sweep"] = {"scheme": list(sc.axes.get("scheme", []))}
            yield "-".join(label), Scenario(raw, source=sc.source, path=sc.path), cols


def run_figure(spec: FigSpec, settings: Settings, scenario_dir: Path, out: Path, jobs: int = 2,
               progress: bool = False, reuse: Sequence[Path] = ()) -> FigureRun:
    """Run (or resume from ``out``) every point x seed of one figure. ``reuse``: sweep
    directories of figures run before, whose cache entries stand for the tasks with the
    same key (`sweeper.run_sweep`; e.g. Fig. 17's F = 30 KB column is Fig. 16's N = 6)."""
    from ...sweeper import run_sweep

    sc, changes = figure_scenario(spec, settings, scenario_dir)
    out = Path(out)
    if spec.kind == "schemes":
        res = run_sweep(sc, jobs=jobs, out=out, progress=progress, reuse=reuse)
        col = pl.col(spec.x_axis)
        if spec.x_is_size:
            sizes = {v: _size_kb(v) for v in res.results[spec.x_axis].unique().to_list()}
            x = col.replace_strict(sizes, return_dtype=pl.Float64)
        else:
            x = col.cast(pl.Float64)
        rows = res.results.with_columns(x.alias("x"))
        return FigureRun(spec, sc, changes, rows, [out], res.tasks, res.computed, res.wall_s)
    parts, dirs, tasks, computed, wall = [], [], 0, 0, 0.0
    for label, sub, cols in _friendliness_subscenarios(sc, settings.n_total_grid):
        d = out / label
        res = run_sweep(sub, jobs=jobs, out=d, progress=progress, reuse=reuse)
        extra = [pl.lit(v).alias(k) for k, v in cols.items()]
        df = res.results.with_columns(extra).with_columns(pl.col("N_total").cast(pl.Float64).alias("x"))
        size_axis = next((k for k in cols if k.endswith(".size")), None)
        size = _size_kb(cols[size_axis]) if size_axis else _size_kb(_flow_size(sub, "a"))
        parts.append(df.with_columns(pl.lit(size).alias("size_kb")))
        dirs.append(d)
        tasks, computed, wall = tasks + res.tasks, computed + res.computed, wall + res.wall_s
    changes = dict(changes, **{"flows.a.count = flows.b.count": "N_total/2 for N_total in "
                               + str(list(settings.n_total_grid))})
    if any(a.startswith("flows.a.") for a in sc.axes):
        changes["mirrored axes"] = [f"{a} also sets flows.b.{a[len('flows.a.'):]}" for a in sc.axes if a.startswith("flows.a.")]
    return FigureRun(spec, sc, changes, pl.concat(parts, how="diagonal_relaxed"), dirs, tasks, computed, wall)


def _flow_size(sc: Scenario, name: str) -> Any:
    for f in sc.raw.get("flows", []):
        if f.get("name") == name:
            return f["app"]["size"]
    raise KeyError(name)


# --- path capacity (spec §1.1, Table 1/2) ---------------------------------------------------


def path_capacity(sc: Scenario) -> dict[str, float]:
    """W_opt (round-trip propagation delay x bottleneck rate, packets), the buffers on
    the path and W_c = W_opt + B for the measured connections, plus the bottleneck rate
    in packets/s (what pacing must not exceed)."""
    topo = sc.raw["topology"]
    pkt = parse_size(sc.raw.get("tcp", {}).get("packet_size", "1000B"), "packet_size")
    bn = topo["bottleneck"]
    hops = int(topo.get("routers", 2)) - 1 if topo.get("kind") == "chain" else 1
    access = parse_time(topo.get("access", {}).get("delay", "0s"), "delay")
    rtt = 2 * (2 * access + hops * parse_time(bn["delay"], "delay"))
    rate = parse_rate(bn["rate"], "rate")
    w_opt = rate * rtt / (8 * pkt)
    buffers = hops * int((bn.get("queue") or {}).get("limit", 50))
    return {"rtt_prop_s": rtt, "w_opt": w_opt, "buffers": float(buffers), "w_c": w_opt + buffers,
            "bottleneck_pps": rate / (8 * pkt)}


# --- diagnostic runs (spec §4.5) -------------------------------------------------------------


def _diag_task(config_json: str) -> bytes:
    """One run with every table: a few numbers about TCP/SPAND's start-up decisions, the
    drops on router-to-router links and the concurrency of the measured transfers."""
    from ...native import run_results

    return _diag_summary(run_results(config_json, config=json.loads(config_json)))


def _diag_and_entry(config_json: str) -> bytes:
    """A diagnostic run that is also a sweep task (the same configuration: the same run):
    the diagnostic summary of `_diag_task` and the transfers table `workers.compute_task`
    returns, from one run: the summary and the table's bytes (`workers.transfers_bytes`) in one
    (`workers.pack_pair`)."""
    from ...native import run_results
    from ...workers import pack_pair, transfers_bytes

    res = run_results(config_json, config=json.loads(config_json))
    return pack_pair(_diag_summary(res), transfers_bytes(res.transfers))


def _diag_summary(res: Any) -> bytes:
    """`_diag_task`'s numbers from a run's results (`results.RunResults`)."""
    import numpy as np

    st = res.startup
    spand_flows = set(st["flow"].unique().to_list())
    paced = st.filter(~pl.col("fallback_slow_start"))
    out: dict[str, Any] = {"starts": st.height, "fallback_frac": _mean(st["fallback_slow_start"].cast(pl.Float64))}
    if paced.height:
        wc_floor = paced["wc_estimate"].floor().clip(lower_bound=1)
        rate = paced["cwnd"] / paced["rtt_estimate_s"]
        small = paced.filter(pl.col("wc_estimate") < 4)
        out.update({
            "mean_wc_estimate": _mean(paced["wc_estimate"]),
            "min_wc_estimate": float(paced["wc_estimate"].min()),
            "max_wc_estimate": float(paced["wc_estimate"].max()),
            "mean_rtt_estimate_s": _mean(paced["rtt_estimate_s"]),
            "mean_cwnd_opt": _mean(paced["cwnd"]),
            "cwnd_le_wc": bool((paced["cwnd"] <= wc_floor).all()),
            "small_wc_starts": small.height,
            "small_wc_max_cwnd": float(small["cwnd"].max()) if small.height else None,
            "mean_pacing_rate_pps": _mean(rate),
            "max_pacing_rate_pps": float(rate.max()),
        })
    links = res.links.filter(pl.col("link").str.contains(r"^r\d+->r\d+$"))
    fwd = [r for r in links.iter_rows(named=True)
           if int(r["link"].split("->")[0][1:]) < int(r["link"].split("->")[1][1:])]
    out["router_drops"] = int(sum(r["drops"] for r in fwd))
    tr = res.transfers.with_columns(pl.col("flow").str.replace(r"\.[^.]*$", "").alias("group"))
    s, e = tr["start_s"].to_numpy(), tr["end_s"].fill_null(float("inf")).to_numpy()
    # transfers in progress at each start (itself included)
    conc = ((s[None, :] <= s[:, None]) & (e[None, :] > s[:, None])).sum(axis=1) if len(s) else np.array([])
    mine = tr["flow"].is_in(list(spand_flows)).to_numpy() if spand_flows else np.ones(len(s), bool)
    out["mean_concurrency"] = float(conc[mine].mean()) if mine.any() else None
    sub = tr.filter(pl.Series(mine)) if len(mine) else tr
    out["spand_timeout_frac"] = _mean((sub["timeouts"] > 0).cast(pl.Float64)) if spand_flows else None
    return json.dumps(out).encode()


def _mean(s: pl.Series) -> Optional[float]:
    v = s.drop_nulls().mean() if s.len() else None
    return float(v) if v is not None else None  # type: ignore[arg-type]


def _run_pool(todo: list[tuple[str, str]], task_fn: Any, on_done: Any, jobs: int) -> None:
    """Run `todo` on the reproduction's pool of workers (or inline with one job)."""
    from ...sweeper import SweepStats, active_pool, run_inline, worker_pool

    stats = SweepStats("local", jobs)
    shared = active_pool()
    if jobs == 1:
        run_inline(todo, task_fn, on_done, stats)
    elif shared is not None and shared.backend == "local" and shared.jobs == jobs:
        shared.run(todo, task_fn, on_done, stats)
    else:
        with worker_pool(jobs) as pool:
            pool.run(todo, task_fn, on_done, stats)


def diagnose_first(spec: FigSpec, settings: Settings, scenario_dir: Path, out: Path, jobs: int = 2,
                   reuse: Sequence[Path] = ()) -> tuple[Path, int]:
    """The diagnostic runs of a five-scheme figure, before its sweep: each is the sweep's
    task of the ``spand`` scheme at the first seed (same resolved configuration, same key),
    so one run gives both its diagnostic file (``out/diag/<key>.json``, as `diagnose`
    writes it) and its cache entry (``out/diag/cache/<key>.parquet``, the transfers table
    `workers.compute_task` gives). Returns ``out/diag`` and the number of runs made:
    passed to the sweep's ``reuse``, its entries stand for those tasks, which then run once
    instead of twice (the figure's computed tasks include them). A diagnostic
    file already there, or in a ``reuse`` figure's ``diag/``, is not run again (that
    figure's sweep computed the task). `diagnose` afterwards finds every file. Each run
    is recorded in ``out/diag/journal.jsonl`` as a sweep's journal records its tasks."""
    from ...native import resolve_json
    from ...sweeper import _atomic_write, cache_version, entry_bytes, task_key
    from ...workers import transfers_from_bytes, unpack_pair

    sc, _ = figure_scenario(spec, settings, scenario_dir)
    d = Path(out) / "diag"
    (d / "cache").mkdir(parents=True, exist_ok=True)
    todo: dict[str, str] = {}
    if spec.kind != "schemes":
        return d, 0
    seed = sc.seeds[0]
    for p in sc.points():
        if p.get("scheme") != "spand":
            continue
        cfg = resolve_json(json.dumps(sc.to_sim_config(p, seed)))
        key = task_key(cfg, cache_version())
        if (d / f"{key}.json").exists():
            continue
        src = next((r / "diag" / f"{key}.json" for r in reuse if (r / "diag" / f"{key}.json").exists()), None)
        if src is not None:
            _atomic_write(d / f"{key}.json", src.read_bytes())
        else:
            todo[key] = cfg

    def on_done(key: str, data: bytes, wall: float, cpu: float) -> None:
        diag, table = unpack_pair(data)
        df = transfers_from_bytes(table)
        _atomic_write(d / "cache" / f"{key}.parquet", entry_bytes(df, key, {"scenario": f"{spec.key} diagnostics"}))
        _atomic_write(d / f"{key}.json", diag)
        journal.write(json.dumps({"key": key, "diagnostic": True, "wall_s": round(wall, 6), "cpu_s": round(cpu, 6),
                                  "time": time.time()}) + "\n")
        journal.flush()

    if todo:
        with open(d / "journal.jsonl", "a", encoding="utf-8") as journal:
            _run_pool(list(todo.items()), _diag_and_entry, on_done, jobs)
    return d, len(todo)


def diagnose(run: FigureRun, out: Path, jobs: int = 2, reuse: Sequence[Path] = ()) -> list[dict[str, Any]]:
    """Diagnostic runs of the TCP/SPAND scheme (``spand``, or ``mixed`` in Figs. 18/19) at
    the first seed of every x value, cached in ``out/diag/<key>.json``; one that the
    ``diag`` directory of a figure run before (``reuse``: their output directories) holds
    under the same key is copied from there (the same configuration: the same run)."""
    from ...native import resolve_json
    from ...sweeper import _atomic_write, cache_version, task_key

    spec, sc = run.spec, run.scenario
    cap = path_capacity(sc)
    subs: list[tuple[dict[str, Any], Scenario, dict[str, Any]]] = []
    if spec.kind == "schemes":
        for p in sc.points():
            if p.get("scheme") == "spand":
                subs.append(({"x": _x_value(spec, p[spec.x_axis])}, sc, p))
    else:
        for _label, sub, cols in _friendliness_subscenarios(sc, _n_totals(run)):
            size_axis = next((k for k in cols if k.endswith(".size")), None)
            size = _size_kb(cols[size_axis]) if size_axis else _size_kb(_flow_size(sub, "a"))
            subs.append(({"x": float(cols["N_total"]), "size_kb": size}, sub, {"scheme": "mixed"}))
    seed = sc.seeds[0]
    d = Path(out) / "diag"
    d.mkdir(parents=True, exist_ok=True)
    jobs_list, keys = [], []
    for info, sub, point in subs:
        cfg = resolve_json(json.dumps(sub.to_sim_config(point, seed)))
        key = task_key(cfg, cache_version())
        keys.append(key)
        if not (d / f"{key}.json").exists():
            src = next((r / "diag" / f"{key}.json" for r in reuse if (r / "diag" / f"{key}.json").exists()), None)
            if src is not None:
                _atomic_write(d / f"{key}.json", src.read_bytes())
            else:
                jobs_list.append((key, cfg))
    todo = list(dict(jobs_list).items())

    def on_done(key: str, data: bytes, wall: float, cpu: float) -> None:
        _atomic_write(d / f"{key}.json", data)

    if todo:
        _run_pool(todo, _diag_task, on_done, jobs)
    rows = []
    for (info, sub, point), key in zip(subs, keys):
        r = json.loads((d / f"{key}.json").read_text())
        n_meas = sum(int(f.get("count", 1)) for f in sub.raw.get("flows", []) if (f.get("app") or {}).get("kind") == "rounds")
        r.update(info)
        r.update({"seed": seed, "w_c_path": cap["w_c"], "fair_share_N": cap["w_c"] / max(1, n_meas),
                  "share_at_concurrency": (cap["w_c"] / r["mean_concurrency"]) if r.get("mean_concurrency") else None,
                  "bottleneck_pps": cap["bottleneck_pps"]})
        rows.append(r)
    return rows


def _x_value(spec: FigSpec, v: Any) -> float:
    return _size_kb(v) if spec.x_is_size else float(v)


def _n_totals(run: FigureRun) -> list[int]:
    return sorted({int(v) for v in run.rows["N_total"].unique().to_list()})
