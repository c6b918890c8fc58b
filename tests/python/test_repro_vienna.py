"""shortflow repro vienna: P4 Figs. 1, 3, 5 and 6 end to end (quick mode, about half a minute)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from shortflow.repro import vienna


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> vienna.Report:
    return vienna.run(tmp_path_factory.mktemp("vienna"), mode="quick")


def test_every_figure_and_claim_is_produced(report: vienna.Report) -> None:
    out = Path(report.out)
    for f in ("fig1.csv", "fig1.png", "fig3.csv", "fig3.png", "web_runs.csv", "fig5.csv", "fig5.png",
              "fig6_quantiles.csv", "fig6.png", "claims.json", "claims.md"):
        assert (out / f).stat().st_size > 0, f
    c = json.loads((out / "claims.json").read_text())
    ids = [x["id"] for x in c["claims"]]
    assert {"fig1-monotone-1-0.5", "fig1-monotone-8-0.9", "fig3-converge-literal", "fig3-converge-doubling",
            "fig3-early-doubling", "fig3-shorter-delay-later", "fig5-v2-like-v1-n1", "fig5-gain-n1",
            "fig5-v2-like-v1-n9", "fig5-gain-n9", "fig6-drop-vienna-vs-r2", "fig6-drop-r1-lowest",
            "fig6-quantiles-below-95", "fig6-quantiles-above-95", "fig6-quantiles-v2-like-v1"} <= set(ids)
    assert all(x["source"] in ("paper", "ours") for x in c["claims"])
    assert c["counts"]["evaluated"] >= 14


def test_web_runs_measure_the_evaluated_aggregate(report: vienna.Report) -> None:
    out = Path(report.out)
    runs = pl.read_csv(out / "web_runs.csv")
    modes = vienna.web.WEB_MODES["quick"]["hops"]
    assert runs.height == sum(len(u) * len(s) for u, _, _, s in modes.values()) * len(vienna.web.VARIANTS)
    assert (runs["objects"] > 20).all()
    assert runs["drop_prob"].is_between(0, 1).all()
    # More users, more load on the hop (every variant, n = 1).
    one = runs.filter(pl.col("hops") == 1)
    for v in vienna.web.VARIANTS:
        u = one.filter(pl.col("variant") == v).sort("users")["util_first_hop"].to_list()
        assert u == sorted(u) and 0 < u[0] < 1, (v, u)
    t5 = pl.read_csv(out / "fig5.csv")
    # Normalised by TCP-V1: V1's own entries are exactly 1.
    assert set(t5.filter(pl.col("variant") == "v1")["normalised_slowdown"].to_list()) == {1.0}
    q = pl.read_csv(out / "fig6_quantiles.csv")
    for v in vienna.web.VARIANTS:
        r = q.filter(pl.col("variant") == v).sort("q")["response_s"].to_list()
        assert r == sorted(r) and r[0] > 0, v


def test_fig1_is_the_model_and_saturates(report: vienna.Report) -> None:
    t = pl.read_csv(Path(report.out) / "fig1.csv")
    reno = t.filter((pl.col("alpha") == 1.0) & (pl.col("beta") == 0.5)).sort("d")
    assert reno["b"].is_sorted()
    # The long-flow end of the Reno curve is B_max itself.
    last = reno.row(-1, named=True)
    assert last["b"] == pytest.approx(last["b_max"], rel=0.01)
    assert all(c.passed for c in report.claims if c.id.startswith("fig1"))


def test_fig3_decisions_start_at_the_bounds_and_end_at_reno(report: vienna.Report) -> None:
    t = pl.read_csv(Path(report.out) / "fig3.csv")
    assert set(t["variant"].to_list()) == {v for v, _, _ in vienna.FIG3_VARIANTS}
    for (variant, seed), g in t.group_by(["variant", "seed"]):
        g = g.sort("decision")
        first, last = g.row(0, named=True), g.row(-1, named=True)
        assert (first["alpha"], first["beta"], first["gamma"]) == (8.0, 0.9, 2.0)
        assert first["sent"] == 0
        assert (last["alpha"], last["beta"]) == (1.0, 0.5), (variant, seed)
    # The literal schedule evaluates after 1, 3, 11 and every 600 segments: with no loss
    # in the first 11 segments nothing is evaluated before 611.
    lit = t.filter((pl.col("variant") == "literal, 100 ms") & (pl.col("sent") > 0))
    assert set(((lit["sent"] - 11) % 600).to_list()) <= {0} or lit["sent"].min() <= 11
