"""The results' two ways out of the core give the same frames: `_core.run`'s JSON read by
`RunResults.from_json`, and `_core.run_columns`' typed columns read by
`RunResults.from_columns` (what `Scenario.simulate`, `run_config` and the sweep workers
use). Every table is compared: column order, dtypes, values, nulls and NaNs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from shortflow import Scenario
from shortflow.bench import scale_scenario
from shortflow.native import core as native_core
from shortflow.native import resolve_json, run_results
from shortflow.results import SCHEMAS, RunResults, columns_frame
from shortflow.scenario import load
from shortflow.workers import compute_task, transfers_bytes, transfers_from_bytes

ROOT = Path(__file__).resolve().parents[2]

DUMBBELL_TRACED = """
name = "traced"
duration = "20s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "1.6Mb", delay = "50ms", queue = { kind = "droptail", limit = 10 } }
access = { rate = "10Mb", delay = "1ms" }
[trace]
acks = true
cwnd = true
packets = true
[[flows]]
name = "bulk"
count = 3
variant = "newreno"
app = { kind = "ftp" }
[[flows]]
name = "short"
count = 2
app = { kind = "ftp", size = "30KB", stagger = "1s" }
[[cross]]
name = "udp"
kind = "cbr"
rate = "100kb"
"""

WEB = """
name = "web"
duration = "3s"
[topology]
kind = "explicit"
nodes = ["server", "client"]
links = [{ src = "server", dst = "client", rate = "2Mb", delay = "50ms", queue = { kind = "droptail", limit = 8 } }]
[tcp]
window = 100
[[flows]]
name = "web"
src = "server"
dst = "client"
app = { kind = "web", mode = "conc", html = "5KB", images = 6, image = "20KB", pages = 4 }
"""


def _configs() -> dict[str, dict[str, Any]]:
    spand = load(ROOT / "scenarios" / "examples" / "dumbbell_quick.toml").to_sim_config(
        point={"flows.conn.count": 2, "scheme": "spand"}, seed=2)
    vienna = load(ROOT / "scenarios" / "vienna" / "fig3.toml").to_sim_config(seed=1)
    vienna["duration_s"] = 60.0
    return {
        "dumbbell_traced": Scenario.from_toml(DUMBBELL_TRACED).to_sim_config(seed=1),
        "web": Scenario.from_toml(WEB).to_sim_config(seed=1),
        "spand": spand,
        "vienna": vienna,
        "scale_1e4": Scenario.from_dict(scale_scenario(10_000)).to_sim_config(seed=1),
    }


CONFIGS = _configs()


def _both(cfg: dict[str, Any]) -> tuple[RunResults, RunResults]:
    resolved = resolve_json(cfg)
    config = json.loads(resolved)
    return RunResults.from_json(native_core().run(resolved), config), run_results(resolved, config=config)


def _same(a: RunResults, b: RunResults) -> None:
    ta, tb = a.tables(), b.tables()
    assert list(ta) == list(tb)
    for name in ta:
        x, y = ta[name], tb[name]
        assert x.schema == y.schema, name  # names, order and dtypes
        assert_frame_equal(x, y, check_exact=True, check_column_order=True, check_dtypes=True)
        for c in x.columns:
            assert x[c].null_count() == y[c].null_count(), f"{name}.{c}"
            assert x[c].is_null().equals(y[c].is_null()), f"{name}.{c}"
            if x[c].dtype == pl.Float64:
                assert x[c].is_nan().equals(y[c].is_nan()), f"{name}.{c}"
    drop = {"wall_s"}
    assert {k: v for k, v in a.stats.items() if k not in drop} == {k: v for k, v in b.stats.items() if k not in drop}
    assert list(a.stats) == list(b.stats)
    assert a.config == b.config


@pytest.mark.parametrize("name", list(CONFIGS))
def test_columns_give_the_json_paths_frames(name):
    a, b = _both(CONFIGS[name])
    _same(a, b)
    t = a.tables()
    # Each scenario has the tables it is here for.
    need = {"dumbbell_traced": ("acks", "packets", "cwnd", "flows", "transfers"), "web": ("pages", "objects"),
            "spand": ("startup", "transfers"), "vienna": ("cc",), "scale_1e4": ("transfers", "flows", "links")}[name]
    for table in need:
        assert t[table].height > 0, f"{name}: {table} is empty"
    if name == "scale_1e4":
        assert t["transfers"].height == 10_000


def test_nulls_where_the_json_has_them():
    """Unfinished transfers and pages: null times in both (the core's NaN); UDP flows'
    NaN start and empty ``acked_by_s`` lists."""
    cfg = json.loads(json.dumps(CONFIGS["web"]))
    cfg["duration_s"] = 0.9
    a, b = _both(cfg)
    _same(a, b)
    assert b.pages["end_s"].null_count() > 0 and b.objects["end_s"].null_count() > 0
    assert b.transfers["end_s"].null_count() > 0 and b.transfers["completion_s"].null_count() > 0
    a, b = _both(CONFIGS["dumbbell_traced"])
    f = b.flows.filter(pl.col("transport") == "udp")
    assert f.height == 1 and f["start_s"].is_null().all() and f["acked_by_s"].list.len().to_list() == [0]


def test_the_core_emits_exactly_the_schemas_columns():
    """Every table's columns, in order, are the schema's: no column is filled in or left
    over (so `columns_frame` and `frame` agree by construction)."""
    tables, stats = native_core().run_columns(resolve_json(CONFIGS["dumbbell_traced"]))
    assert list(tables) == list(SCHEMAS)
    for t, cols in tables.items():
        assert [c[0] for c in cols] == list(SCHEMAS[t]), t
    assert set(json.loads(stats)) >= {"events", "data_pkts_delivered", "sim_end_s", "wall_s"}


def test_columns_frame_fills_missing_and_keeps_extra_columns():
    """As `frame` does with JSON: a schema column the core did not send is null, one
    beyond the schema is kept with its own dtype."""
    data = (1).to_bytes(4, "little") + (2).to_bytes(4, "little")
    df = columns_frame("acks", [("flow", "u32", 2, data, None, None), ("extra", "u32", 2, data, None, None)])
    assert df.columns == ["flow", "time_ns", "ackno", "extra"]
    assert df.schema["time_ns"] == pl.UInt64 and df["time_ns"].null_count() == 2
    assert df["extra"].dtype == pl.UInt32 and df["extra"].to_list() == [1, 2]


def test_empty_tables_are_the_schema_frame_and_independent():
    """A table with no rows (the core sends its schema's columns, empty) is
    `frame(table, None)`; each call hands out its own frame, so a change to one (polars
    has in-place methods) is not seen by the next run's."""
    from shortflow.results import frame

    for t in SCHEMAS:
        cols = [(name, "empty", 0, b"", None, None) for name in SCHEMAS[t]]
        a = columns_frame(t, cols)
        assert_frame_equal(a, frame(t, None), check_exact=True)
        a.insert_column(0, pl.Series("mine", [], dtype=pl.UInt8))
        assert columns_frame(t, cols).columns == list(SCHEMAS[t])
    # An extra column, even with no rows, is kept (not the cached frame).
    df = columns_frame("acks", [("flow", "u32", 0, b"", None, None), ("extra", "u32", 0, b"", None, None)])
    assert df.columns == ["flow", "time_ns", "ackno", "extra"]


@pytest.mark.parametrize("name", ["spand", "web", "dumbbell_traced"])
def test_run_table_is_the_run_results_table(name):
    """A sweep task's one table (`native.run_table`) is the frame `run_results` gives."""
    from shortflow.native import run_table

    resolved = resolve_json(CONFIGS[name])
    full = run_results(resolved)
    for t in ("transfers", "pages", "objects", "acks"):
        assert_frame_equal(run_table(resolved, t), getattr(full, t), check_exact=True)


def test_simulate_and_sweep_tasks_use_the_columns(monkeypatch):
    """`Scenario.simulate` and a sweep task never go through the JSON text; a task's
    bytes equal the JSON path's."""
    cfg = CONFIGS["spand"]
    resolved = resolve_json(cfg)
    old = RunResults.from_json(native_core().run(resolved), json.loads(resolved))
    want = transfers_bytes(old.transfers)
    assert_frame_equal(transfers_from_bytes(want), old.transfers, check_exact=True)

    mod = native_core()

    class NoJson:
        def __getattr__(self, name: str) -> Any:
            if name == "run":
                raise AssertionError("the JSON path was used")
            return getattr(mod, name)

    monkeypatch.setattr("shortflow.native._core", NoJson())
    assert compute_task(resolved) == want
    sc = load(ROOT / "scenarios" / "examples" / "dumbbell_quick.toml")
    res = sc.simulate(seed=2, point={"flows.conn.count": 2, "scheme": "spand"})
    _same(old, res)
