"""The compiled core through the Python API: runs, resolve, errors, theory, determinism."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import polars as pl
import pytest

import shortflow
from shortflow import SimulationError
from shortflow.results import SCHEMAS
from shortflow.scenario import TRANSFER_COLUMNS


def test_version(core) -> None:
    assert core.version() == core.__version__
    assert shortflow.__version__


def test_resolve_fills_every_default(core, examples: Path) -> None:
    sc = shortflow.load(examples / "dumbbell_quick.toml")
    cfg = sc.to_sim_config(None, 1)
    full = json.loads(core.resolve(json.dumps(cfg)))
    tcp = full["flows"][0]["tcp"]
    assert tcp["window"] == 100 and tcp["tcp_tick_s"] == 0.01  # from the scenario
    assert tcp["window_init"] == 2 and tcp["minrto_s"] == 0.2 and tcp["packet_size"] == 1000  # ns-2.35 defaults
    assert full["flows"][0]["sink"]["delack"] is False
    sink = full["flows"][0]["sink"]
    assert sink["ack_policy"] is None and sink["ect_acks"] is False and sink["ts_echo_bugfix"] is True
    assert tcp["ecn"] is False
    assert full["links"][1]["queue"] == {"kind": "drop_tail", "limit_pkts": 50, "victim": "tail", "stages": []}
    assert full["elements"] == [] and full["paths"] == {"prefix_len": 32}
    assert full["gateways"][0]["window_s"] == 300.0
    # resolving is idempotent and its text deterministic (sweep cache keys hash it)
    assert json.loads(core.resolve(json.dumps(full))) == full
    text = core.resolve(json.dumps(cfg))
    assert core.resolve(json.dumps(cfg)) == text == core.resolve(json.dumps(json.loads(text), indent=2))


def test_resolve_rejects_unknown_field(core) -> None:
    with pytest.raises(ValueError, match="windw"):
        core.resolve(json.dumps({"duration_s": 1, "nodes": [], "links": [], "flows": [{"name": "a", "src": "x", "dst": "y", "tcp": {"windw": 3}}]}))


def test_run_error_is_value_error_naming_field(core) -> None:
    cfg = {"duration_s": 1.0, "nodes": ["a", "b"], "links": [{"src": "a", "dst": "c", "rate_bps": 1e6, "delay_s": 0.01}]}
    with pytest.raises(ValueError) as ei:
        core.run(json.dumps(cfg))
    assert " = " in str(ei.value) and ":" in str(ei.value)
    with pytest.raises(SimulationError):
        shortflow.run_config(cfg)


def test_run_config_tables(core, examples: Path) -> None:
    sc = shortflow.load(examples / "dumbbell_quick.toml")
    res = shortflow.run_config(sc.to_sim_config(None, 1))
    for name, df in res.tables().items():
        assert isinstance(df, pl.DataFrame)
        for col, dtype in SCHEMAS[name].items():
            assert df.schema[col] == dtype, (name, col)
    assert res.transfers.height == 2 * 3  # 2 connections x 3 rounds
    assert res.transfers["completion_s"].null_count() == 0
    assert (res.transfers["bytes"] == 30000).all()
    assert res.flows["flow"].to_list() == ["conn.1", "conn.2"]
    assert "r1->r2" in res.links["link"].to_list()
    assert res.stats["data_pkts_delivered"] > 0
    assert res.config["flows"][0]["tcp"]["window_init"] == 2  # resolved config attached


def test_scenario_run_frame(core, examples: Path) -> None:
    sc = shortflow.load(examples / "dumbbell_quick.toml")
    point = {"flows.conn.count": 1, "scheme": "newreno-ssr"}
    df = sc.run(seed=2, point=point)
    assert df.columns == ["scenario", "flows.conn.count", "scheme", "seed"] + TRANSFER_COLUMNS
    assert df.height == 3
    assert set(df["scenario"]) == {"dumbbell-quick"} and set(df["seed"]) == {2}
    assert set(df["connection"]) == {"conn.1"} and set(df["group"]) == {"conn"}
    assert df["round"].to_list() == [0, 1, 2] or sorted(df["round"].to_list()) == df["round"].to_list()
    assert (df["end_s"] - df["start_s"] - df["completion_s"]).abs().max() < 1e-9


def test_all_examples_run_quickly(core, examples: Path) -> None:
    import time

    for path in sorted(examples.glob("*.toml")):
        sc = shortflow.load(path)
        for point in sc.points():
            t0 = time.perf_counter()
            df = sc.run(seed=sc.seeds[0], point=point)
            assert time.perf_counter() - t0 < 1.0, path
            assert df.height > 0, path


def test_determinism_same_seed_same_bytes(core, examples: Path) -> None:
    sc = shortflow.load(examples / "dumbbell_quick.toml")
    a = sc.run(seed=1)
    b = sc.run(seed=1)
    assert a.equals(b)
    ba, bb = io.BytesIO(), io.BytesIO()
    a.write_parquet(ba)
    b.write_parquet(bb)
    assert ba.getvalue() == bb.getvalue()
    c = sc.run(seed=2)
    assert not a.drop("seed").equals(c.drop("seed")), "different seeds should give different jitter"


def test_run_releases_gil(core, examples: Path) -> None:
    """Two threads can run simulations; results equal sequential ones."""
    sc = shortflow.load(examples / "parking_lot.toml")
    cfg = json.dumps(sc.to_sim_config(None, 1))
    expected = json.loads(core.run(cfg))["transfers"]
    out: list = [None, None]

    def work(i: int) -> None:
        out[i] = json.loads(core.run(cfg))["transfers"]

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out[0] == expected and out[1] == expected


def test_theory_functions(core) -> None:
    d = core.cwnd_opt_detail(30, 20)
    assert set(d) == {"cwnd", "cwnd_no_shift", "m0", "delta", "f_e", "r", "feasible"}
    assert core.cwnd_opt(30, 20) == d["cwnd"]
    assert core.cwnd_opt(30, 20, shift=False) == d["cwnd_no_shift"]
    assert core.f_e(20) == d["f_e"] == 206.0
    assert sum(core.ca_schedule(30, d["cwnd"], 20)) == pytest.approx(30)
    assert sum(core.slow_start_schedule(30, 2, 20)) == pytest.approx(30)
    assert core.cwnd_opt(30, 20, 1.0, True, "one", 5) <= 5
    with pytest.raises(ValueError, match="policy"):
        core.cwnd_opt(30, 20, 1.0, True, "bogus", 0)
    with pytest.raises(ValueError, match="wc = 0"):
        core.f_e(0)
    with pytest.raises(ValueError, match="b = "):
        core.cwnd_opt_detail(30, 20, float("nan"))
    with pytest.raises(OverflowError):
        core.cwnd_opt(-1, 20)
