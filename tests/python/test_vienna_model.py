"""TCP Vienna's throughput model and parameter selection through the Python API and
``shortflow vienna`` (spec fairshare-and-sizebased B.4, B.5; reference values B.10)."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from shortflow.cli import app
from shortflow.native import core

runner = CliRunner()


def test_b_max_reference_values() -> None:
    c = core()
    for p, rtt, t0, want in [(0.01, 0.1, 0.3, 79.577), (0.025, 0.2, 0.4, 24.050), (0.1, 0.2, 0.4, 9.717)]:
        r = c.vienna_throughput(1, 0.5, 1, 10_000, p, rtt, t0)
        assert r["b"] == pytest.approx(want, abs=5e-4)
        assert r["b_max"] == pytest.approx(want, abs=5e-4)
        terms = r["setup"] + r["slow_start"] + r["first_loss"] + r["cong_avoid"] + r["delack"]
        assert terms == pytest.approx(r["latency"], rel=1e-12)


@pytest.mark.parametrize(
    "d,chosen,fallback",
    [(10, (8, 0.9, 2), False), (20, (8, 0.9, 2), False), (40, (2, 0.6, 1), False), (80, (1, 0.5, 1), False),
     (160, (1, 0.5, 1), True)],
)
def test_selection_reference_table(d: int, chosen: tuple, fallback: bool) -> None:
    s = core().vienna_select(d, 0.025, 0.2, 0.4)
    assert (s["alpha"], s["beta"], s["gamma"]) == chosen
    assert s["fallback"] is fallback
    if not fallback:
        assert s["b"] < s["b_max"]


def test_window_variants_agree_at_reno_and_differ_elsewhere() -> None:
    c = core()
    f = c.vienna_throughput(1, 0.5, 1, 1000, 0.025, 0.2, 0.4, window_model="F")
    p2 = c.vienna_throughput(1, 0.5, 1, 1000, 0.025, 0.2, 0.4, window_model="P2")
    assert f["expected_window"] == pytest.approx(7.9085, abs=5e-5)
    assert p2["expected_window"] == pytest.approx(f["expected_window"], rel=1e-12)
    f8 = c.vienna_throughput(8, 0.9, 1, 1000, 0.025, 0.2, 0.4, window_model="F")
    p28 = c.vienna_throughput(8, 0.9, 1, 1000, 0.025, 0.2, 0.4, window_model="P2")
    assert f8["expected_window"] == pytest.approx(55.078, abs=5e-4)
    assert p28["expected_window"] != pytest.approx(f8["expected_window"], rel=0.01)


@pytest.mark.parametrize(
    "kw,msg",
    [({"p": 0.0}, "p = 0"), ({"p": 1.0}, "p = 1"), ({"rtt": -0.1}, "rtt = -0.1"), ({"t0": 0.0}, "t0 = 0"),
     ({"w1": 0.5}, "w1 = 0.5"), ({"b": 3.0}, "b = 3"), ({"wmax": 0.0}, "wmax = 0"), ({"window_model": "X"}, "window_model"),
     ({"d": 0.0}, "d = 0"), ({"beta": 1.0}, "beta = 1"), ({"alpha": -1.0}, "alpha = -1"), ({"gamma": math.nan}, "gamma = NaN")],
)
def test_bad_model_arguments_name_the_argument(kw: dict, msg: str) -> None:
    args = {"alpha": 1.0, "beta": 0.5, "gamma": 1.0, "d": 10.0, "p": 0.02, "rtt": 0.2, "t0": 0.4}
    args.update(kw)
    with pytest.raises(ValueError, match=msg.replace("(", r"\(")):
        core().vienna_throughput(**args)


def test_cli_json_and_table() -> None:
    r = runner.invoke(app, ["model", "vienna", "--size", "20KB", "-p", "0.025", "--rtt", "200ms", "--rto", "400ms", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["d"] == 40  # 20 KB in 500-byte segments
    assert out["selected"] == {"alpha": 2.0, "beta": 0.6, "gamma": 1.0}
    assert len(out["candidates"]) == 10
    assert out["b_max"] == pytest.approx(24.050, abs=5e-4)
    r = runner.invoke(app, ["model", "vienna", "--size", "40", "-p", "0.025", "--rtt", "200ms", "--full-grid"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "selected (alpha, beta, gamma)" in r.output


@pytest.mark.parametrize(
    "args,msg",
    [(["--loss", "1.5"], "--loss = 1.5"), (["--loss", "0"], "--loss = 0"), (["--rtt", "-2ms"], "--rtt"),
     (["--model", "Q"], "--model 'Q'"), (["--iw", "0"], "--iw = 0"), (["--size", "0"], "--size")],
)
def test_cli_bad_input(args: list[str], msg: str) -> None:
    base = {"--size": "40", "--loss": "0.02", "--rtt": "200ms"}
    for k, v in zip(args[::2], args[1::2]):
        base[k] = v
    flat = [x for kv in base.items() for x in kv]
    r = runner.invoke(app, ["model", "vienna", *flat])
    assert r.exit_code == 2, r.output
    assert msg in r.output
    assert "Traceback" not in r.output
