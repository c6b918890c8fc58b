"""shortflow repro web: thesis Figs. 4.2, 4.3, the ch. 5 comparisons and traces, the ch. 6
session figures, the cross-comparison and ch. 7 (Figs. 7.2-7.5) end to end (quick mode)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from shortflow.repro import web
from shortflow.webmodel import Page, download_rtts


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, core) -> web.Report:
    return web.run(tmp_path_factory.mktemp("web"), mode="quick")


def test_every_figure_and_claim_is_produced(report: web.Report) -> None:
    out = Path(report.out)
    for f in ("fig4_2.csv", "fig4_2.png", "fig4_3.csv", "fig4_3.png", "fig5_6.csv", "fig5_6.png", "fig5_7.csv",
              "fig5_7.png", "fig5_6_kept_open.csv", "claims.json", "claims.md"):
        assert (out / f).stat().st_size > 0, f
    c = json.loads((out / "claims.json").read_text())
    ids = {x["id"] for x in c["claims"]}
    assert {"f42-seq-vs-conc", "f42-sim-vs-model", "f43-100k-vs-4m", "c5-ratio-250", "c5-ratio-5120", "c5-ratio-40960",
            "c5-up-to-7", "c5-slopes-terrestrial", "c5-order-satellite"} <= ids
    # Ch. 6 and the cross-comparison are run (ch6.py).
    for f in ("fig6_8", "fig6_10", "fig6_11", "fig6_12", "fig6_13", "fig6_14", "fig6_15", "xcmp"):
        assert (out / f"{f}.csv").stat().st_size > 0 and (out / f"{f}.png").stat().st_size > 0, f
    assert {"f68-vs-conc", "f68b-timeouts", "f69a", "f610-gap", "f611-gain", "f612-conc", "f613b-low",
            "f614b-slower", "f615-low", "xcmp-terrestrial", "xcmp-satellite"} <= ids
    assert not ids & {"f68-not-run", "f615-not-run", "xcmp-not-run", "f75-not-run", "f66-not-run"}
    # Fig. 6.6 runs (repro/web/fig66.py): its plot, table and claims.
    assert (out / "fig6_6.csv").stat().st_size > 0 and (out / "fig6_6.png").stat().st_size > 0
    assert {"f66a-stagnate", "f66b-equal", "f66-consistent", "f66b-join"} <= ids
    # Ch. 7 runs (repro/web/ch7.py): its figures and claims, each with a verdict.
    for f in ("fig7_2", "fig7_3", "fig7_4", "fig7_5"):
        assert (out / "ch7" / f"{f}.csv").stat().st_size > 0 and (out / "ch7" / f"{f}.png").stat().st_size > 0
    assert (out / "ch5" / "fig5_8_5_9.png").stat().st_size > 0
    assert {"c5t-f58-burst", "c5t-f58-loss", "c5t-f58-pipelining", "c5t-f59-restart"} <= ids
    ch7 = {x["id"]: x for x in c["claims"] if x["id"].startswith("c7-")}
    assert {"c7-f72-session", "c7-f72-independent", "c7-f72-share", "c7-f73-takeover", "c7-f73-reclaim",
            "c7-f74-plain", "c7-f74-subsessions", "c7-f75-ilr", "c7-f75-httpconc", "c7-f75-phttp"} <= set(ch7)
    evaluated = [x for x in c["claims"] if not x["id"].endswith("not-run")]
    from shortflow.repro.web.ch6 import QUICK_ONE_POINT
    one_point = [x for x in evaluated if x["passed"] is None]
    assert {x["id"] for x in one_point} == {"f68-slopes", "f613a"}
    assert all(x["measured"] == QUICK_ONE_POINT for x in one_point)
    assert c["counts"]["not_run"] == len(c["claims"]) - len(evaluated) + len(one_point)


def test_the_cross_comparison_runs_every_configuration(report: web.Report) -> None:
    # Every retrieval mode and start-up policy ran under the web app (no error rows),
    # on both paths, and finished every page.
    t = pl.read_csv(Path(report.out) / "xcmp.csv")
    assert t.height == 2 * 9
    assert t["error"].fill_null("").to_list() == [""] * t.height
    assert (t["unfinished"] == 0).all() and (t["cold_s"] > 0).all() and (t["warm_s"] > 0).all()


def test_fig42_points_are_the_simulator_beside_the_model(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "fig4_2.csv")
    assert t.height == 28
    for r in t.iter_rows(named=True):
        assert r["model_rtt"] == download_rtts(Page.uniform(5 * 1024, 4, r["image_bytes"]), r["mss"], r["mode"])
        assert r["model_rtt"] <= r["sim_rtt"] < r["model_rtt"] * 1.02


def test_ch5_ratio_is_computed_from_the_runs(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "fig5_6.csv")
    q = t.filter((pl.col("images") == 10) & (pl.col("image_bytes") == 250))
    seq = q.filter(pl.col("mode") == "seq")["download_s"][0]
    gl = q.filter(pl.col("mode") == "getlist")["download_s"][0]
    claim = next(c for c in report.claims if c.id == "c5-ratio-250")
    assert f"{seq / gl:.2f}" in claim.measured


def test_ch7_numbers_come_from_the_runs(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "ch7" / "fig7_2.csv")
    q = t.filter(pl.col("syn") & (pl.col("buffer") == 20) & (pl.col("scheme") == "session"))
    claim = next(c for c in report.claims if c.id == "c7-f72-session")
    assert f"{q['delivered_s'][0]:.2f} s" in claim.measured
    f75 = pl.read_csv(Path(report.out) / "ch7" / "fig7_5.csv")
    s = f75.filter(pl.col("scheme") == "session")
    assert (s["false_retx"] <= s["retransmits"]).all()
    claim = next(c for c in report.claims if c.id == "c7-f75-ilr")
    assert f"({s['false_retx'].sum()} of {s['retransmits'].sum()})" in claim.measured


def test_fig66_numbers_come_from_the_runs(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "fig6_6.csv")
    assert sorted(t["scheme"].unique().to_list()) == ["independent", "session"]
    # The longest stall is the largest of the four connections' own.
    per = t.select([f"stall_{k}_s" for k in range(1, 5)]).max_horizontal()
    assert (per == t["max_stall_s"]).all()
    assert ((t["jain_all_on"] > 0.25) & (t["jain_all_on"] <= 1.0 + 1e-12)).all()
    claim = next(c for c in report.claims if c.id == "f66-consistent")
    s = t.filter(pl.col("scheme") == "session")["max_stall_s"].mean()
    assert f"session {s:.2f} s" in claim.measured


def test_ch6_timeouts_split_into_syn_and_data(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "fig6_8.csv")
    assert (t["syn_timeouts_per_dl"] >= 0).all() and (t["data_timeouts_per_dl"] >= -1e-9).all()
    total = t["syn_timeouts_per_dl"] + t["data_timeouts_per_dl"]
    assert ((total - t["timeouts_per_dl"]).abs() < 1e-9).all()


def test_fig73a_numbers_come_from_the_runs(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "ch7" / "fig7_3.csv")
    assert sorted(t["scheme"].to_list()) == ["independent", "session", "session-throttled", "throttled"]
    thr = t.filter(pl.col("scheme") == "throttled").row(0, named=True)
    claim = next(c for c in report.claims if c.id == "c7-f73a-idle")
    assert f"{thr['stall_link_share']:.2f} of the link" in claim.measured
    assert claim.passed == (thr["stall_link_share"] <= 0.2)
    # The receiver's throttle slows the long connection: fewer sends in the stall than
    # the session's long connection, which takes the whole window.
    ses = t.filter(pl.col("scheme") == "session").row(0, named=True)
    assert thr["long_sends_per_s_stall"] < ses["long_sends_per_s_stall"]
    assert {"c7-f73a-rebuild", "c7-f73-skip"} <= {c.id for c in report.claims}


def test_webmux_numbers_come_from_the_runs(report: web.Report) -> None:
    t = pl.read_csv(Path(report.out) / "ch7" / "webmux.csv")
    assert sorted(t["scheme"].unique().to_list()) == ["priority", "round_robin", "round_robin-8KB"]
    # The short object's time splits into the buffer's drain and its own part.
    assert ((t["drain_s"] + t["own_s"] - t["delivered_s"]).abs() < 1e-9).all()
    assert (t["drain_s"] > 0).all() and (t["buffered_at_request"] == 32).all()
    ids = {c.id: c for c in report.claims}
    assert "c7-webmux-not-run" not in ids
    q = t.filter(pl.col("syn") & (pl.col("buffer") == 20) & (pl.col("scheme") == "priority")).row(0, named=True)
    assert f"{q['delivered_s']:.2f} s" in ids["c7-webmux"].measured
    assert f"{q['drain_s']:.2f} s" in ids["c7-webmux-drain"].measured
    assert all(ids[k].passed is not None for k in ("c7-webmux", "c7-webmux-drain", "c7-webmux-vs-session",
                                                    "c7-webmux-vs-independent", "c7-webmux-reading"))
    # Where the connection loses nothing, strict priority is quicker than round robin:
    # round robin interleaves the long stream's segments with the urgent one's.
    clean = t.filter(pl.col("retransmits") == 0)
    assert clean.height > 0
    for (syn, buf), g in clean.group_by("syn", "buffer"):
        by = dict(zip(g["scheme"], g["delivered_s"]))
        assert by["priority"] < by["round_robin"], (syn, buf, by)


def test_only_reruns_parts_into_an_earlier_run(report: web.Report, tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from shortflow.cli import app

    out = tmp_path / "web"
    shutil.copytree(report.out, out)
    before = json.loads((out / "claims.json").read_text())
    # Mark a claim of another part: a partial re-run must leave it as it was.
    before["claims"][0]["measured"] = "kept"
    (out / "claims.json").write_text(json.dumps(before))
    rep = web.run(out, mode="quick", only=["fig6_6"])
    after = json.loads((out / "claims.json").read_text())
    assert [c["id"] for c in after["claims"]] == [c["id"] for c in before["claims"]]
    assert after["claims"][0]["measured"] == "kept"
    assert after["partial_rerun"]["parts"] == ["fig6_6"]
    f66 = {c.id: c.measured for c in rep.claims if c.id.startswith("f66")}
    assert f66 == {c["id"]: c["measured"] for c in after["claims"] if c["id"].startswith("f66")}
    # Bad parts and a directory without an earlier run are refused with a message.
    r = CliRunner().invoke(app, ["repro", "web", "--quick", "--out", str(out), "--only", "fig9"])
    assert r.exit_code == 2 and "--only" in r.output and "fig9" in r.output
    r = CliRunner().invoke(app, ["repro", "web", "--quick", "--out", str(tmp_path / "none"), "--only", "fig6_6"])
    assert r.exit_code == 2 and "earlier run" in r.output
