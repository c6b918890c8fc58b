"""A new user's first ten minutes: help texts, notices, what `run` and `iw` print, and
what the plots and the report draw."""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from shortflow.cli import app
from shortflow.mpl import dodge_offsets, errorbar, integer_ticks, pyplot

runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


# --- help ------------------------------------------------------------------------------


@pytest.mark.parametrize("cmd", [[], ["sweep"], ["run"], ["trace"], ["report"], ["iw"], ["logs", "analyze"]])
def test_flags_show_no_value_type(cmd: list[str]) -> None:
    r = invoke(*cmd, "--help")
    assert r.exit_code == 0, r.output
    assert "<bool>" not in r.output
    assert re.search(r"--help\s+Show this message", r.output)


def test_logs_and_trace_help() -> None:
    r = invoke("--help")
    assert re.search(r"logs\s+Web access-log analysis", r.output), r.output
    r = invoke("trace", "--help")
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())  # help text without its box
    for e in ("'-' transmission start, after the queue", "'+' arrival at the queue, before drops",
              "'r' reception at the far end", "'d' drops only"):
        assert e in flat, e
    assert "bottleneck" not in flat.replace("need not be the bottleneck", "")


# --- run -------------------------------------------------------------------------------


def test_run_of_a_sweep_scenario_says_it_runs_one_point(core, examples: Path) -> None:
    r = invoke("run", examples / "dumbbell_quick.toml")
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert "has a [sweep] of 4 points (flows.conn.count, scheme)" in flat
    assert "the base scenario (no axis applied)" in flat
    assert f"shortflow sweep {examples / 'dumbbell_quick.toml'}" in flat
    # every axis given: no notice
    r = invoke("run", examples / "dumbbell_quick.toml", "-s", "scheme=spand", "-s", "flows.conn.count=2")
    assert r.exit_code == 0 and "[sweep]" not in r.output
    # no sweep: no notice
    r = invoke("run", examples / "explicit_small.toml")
    assert r.exit_code == 0 and "[sweep]" not in r.output


def test_run_prints_goodput_of_infinite_ftp(core, tmp_path: Path) -> None:
    sc = tmp_path / "ftp.toml"
    sc.write_text("""
name = "ftp-inf"
duration = "20s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "1.6Mb", delay = "50ms", queue = { kind = "droptail", limit = 10 } }
access = { rate = "10Mb", delay = "1ms" }
[[flows]]
name = "bulk"
count = 2
app = { kind = "ftp", stagger = "2s" }
""")
    import shortflow
    from shortflow.api import run_config
    from shortflow.units import format_rate

    res = run_config(shortflow.load(sc).to_sim_config(None, 1))
    acked = dict(res.flows.select("flow", "bytes_acked").iter_rows())
    r = invoke("run", sc)
    assert r.exit_code == 0, r.output
    assert "goodput" in r.output
    for flow, start in (("bulk.1", 0.0), ("bulk.2", 2.0)):
        rate = format_rate(acked[flow] * 8 / (20.0 - start))
        assert re.search(rf"{re.escape(flow)}\s+│\s+{start:g}\s+│.*│\s+{re.escape(rate)}\s+│", r.output), (flow, rate)
    # the two flows shared a 1.6 Mb/s bottleneck: together just under it
    total = sum(acked[f] * 8 / (20.0 - s) for f, s in (("bulk.1", 0.0), ("bulk.2", 2.0)))
    assert 1.2e6 < total < 1.6e6


def test_iw_labels_its_symbols(core) -> None:
    r = invoke("iw", "--size", "30KB", "--wc", "20")
    assert r.exit_code == 0, r.output
    for text in ("transfer F = 30 packets", "the path holds W_c = 20 packets", "optimal initial window cwnd_opt = 15",
                 "F_E = 206: packets one congestion-avoidance epoch sends", "r = 30: packets left after the whole epochs",
                 "m0 = 19: largest window", "Δ = 4: Eq. (4) shift", "round trips to send F"):
        assert text in r.output, text


# --- plots -----------------------------------------------------------------------------


def test_errorbar_stops_at_the_floor_and_dodges() -> None:
    plt = pyplot()
    fig, ax = plt.subplots()
    try:
        c = errorbar(ax, [1, 2, 3], [0.5, 1.0, None], [2.0, 0.25, 0.1], offset=0.1, floor=0.0, capsize=2)
        # lower arms: 0.5 (clipped from 2.0), 0.25; upper arms unclipped
        segs = c.lines[2][0].get_segments()
        assert [tuple(map(float, s[:, 1])) for s in segs[:2]] == [(0.0, 2.5), (0.75, 1.25)]
        assert [float(s[0, 0]) for s in segs[:2]] == [1.1, 2.1]
        integer_ticks(ax, [1.0, 2.0, 3.0])
        ax.set_xlim(0.6, 3.4)
        assert all(float(t).is_integer() for t in ax.get_xticks())
    finally:
        plt.close(fig)
    offs = dodge_offsets([1, 6, 20], 5)
    assert offs == pytest.approx([-0.76, -0.38, 0.0, 0.38, 0.76])  # 8% of the range 19 < 40% of the gap 5
    assert dodge_offsets([1, 2], 3) == pytest.approx([-0.04, 0.0, 0.04])  # 8% of the range 1
    assert dodge_offsets([5, 10], 1) == [0.0]


def test_reduction_has_a_ci_across_seeds() -> None:
    from shortflow.repro.spand.aggregate import scheme_summary

    rows = []
    for seed, t_spand in ((1, 0.4), (2, 0.5), (3, 0.6)):
        for scheme, t in (("reno-ssr", 1.0), ("spand", t_spand)):
            rows.append({"x": 1.0, "scheme": scheme, "seed": seed, "connection": "conn.1", "round": 2, "group": "conn",
                         "completion_s": t, "retransmits": 0, "timeouts": 0, "initial_cwnd": 1.0})
    s = scheme_summary(pl.DataFrame(rows))
    base = s.filter(pl.col("scheme") == "reno-ssr").row(0, named=True)
    # per-seed reductions 60, 50, 40 %: mean 50, std 10
    assert base["spand_reduction_pct"] == pytest.approx(50.0)
    assert base["spand_reduction_ci95"] == pytest.approx(4.303 * 10 / math.sqrt(3))
    assert s.filter(pl.col("scheme") == "spand")["spand_reduction_ci95"].to_list() == [None]


def test_sweep_plot_and_report(core, examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "sw"
    assert invoke("sweep", examples / "dumbbell_quick.toml", "--out", out, "--no-progress").exit_code == 0
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    html = (out / "report.html").read_text()
    assert ".tw { max-width: 100%; overflow-x: auto;" in html
    tables = html.count("<table>")
    assert tables >= 1 and html.count("<div class='tw'><table>") == tables
