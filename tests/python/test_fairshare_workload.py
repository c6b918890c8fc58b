"""P3's homogeneous workload generator (repro/fairshare/workload.py; spec
fairshare-and-sizebased A.12, A.13.1) and its metrics on a short run."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from shortflow.native import core
from shortflow.repro.fairshare.workload import (file_cross, homogeneous, pareto_xm, server_connections,
                                               server_throughput)


@pytest.mark.parametrize("mean,shape,xm", [(100, 1.35, 25.93), (5, 1.35, 1.296), (100, 1.05, 4.76), (100, 1.95, 48.72)])
def test_pareto_scale_matches_the_spec(mean: float, shape: float, xm: float) -> None:
    assert pareto_xm(mean, shape) == pytest.approx(xm, abs=0.01)


def test_pareto_needs_a_finite_mean() -> None:
    with pytest.raises(ValueError, match="shape"):
        pareto_xm(100, 1.0)


def test_connections_are_poisson_per_seed_and_streams_are_independent() -> None:
    a = server_connections(1, 20_000, 5.0, 100.0, 1.35)
    assert a == server_connections(1, 20_000, 5.0, 100.0, 1.35)
    assert a != server_connections(2, 20_000, 5.0, 100.0, 1.35)
    gaps = [b[0] - a_[0] for a_, b in zip(a, a[1:])]
    assert statistics.mean(gaps) == pytest.approx(5.0, rel=0.1)
    assert all(0 <= c < 5 for _, _, c in a)
    assert min(life for _, life, _ in a) >= pareto_xm(100.0, 1.35)
    # Another mean lifetime changes the lifetimes, not the arrivals or the clients.
    b = server_connections(1, 20_000, 5.0, 50.0, 1.35)
    assert [(t, c) for t, _, c in a] == [(t, c) for t, _, c in b]


def test_homogeneous_config_shape() -> None:
    cfg = homogeneous("liss", 3, duration_s=200.0)
    srv = [f for f in cfg["flows"] if f["name"].startswith("srv.")]
    cross = [f for f in cfg["flows"] if f["name"].startswith("cross.")]
    assert len(cross) == 5 and all("startup" not in f for f in cross)
    assert srv and all(f["startup"] == {"kind": "fair_share", "scheme": "liss"} for f in srv)
    assert cfg["paths"] == {"prefix_len": 24}
    assert {cfg["addresses"][f"c{k}"].rsplit(".", 1)[0] for k in range(1, 6)} == {"10.1.0"}
    assert all("startup" not in f for f in homogeneous("reno", 3, duration_s=200.0)["flows"])
    core_links = [l for l in cfg["links"] if l["src"] in ("r1", "r2") and l["dst"] in ("r2", "r3")]
    assert len(core_links) == 2 and all(l["rate_bps"] == 20e6 and l["delay_s"] == 0.05 for l in core_links)


def test_short_run_metrics_are_consistent() -> None:
    cfg = homogeneous("miss", 1, bandwidth_bps=10e6, duration_s=60.0)
    r = json.loads(core().run(json.dumps(cfg)))
    m = server_throughput(r)
    assert m["connections"] == sum(1 for f in cfg["flows"] if f["name"].startswith("srv."))
    init = m["initial"]
    assert init == sorted(init), "acked within n s cannot fall with n"
    assert 0 < init[-1] <= m["total"]


def test_cross_readings() -> None:
    """Spec A.15 item 3: one Pareto lifetime per pair (the scenario file's reading, taken),
    persistent cross flows (the spec's literal default), or renewed lifetimes."""
    def cross_apps(reading: str) -> list[dict]:
        cfg = homogeneous("reno", 1, duration_s=3000.0, cross=reading)
        return [a for a in cfg["apps"] if a["flow"].startswith("cross.")]

    p, once, renew = cross_apps("persistent"), cross_apps("once"), cross_apps("renew")
    assert file_cross() == "once" and cross_apps(None) == once
    assert len(p) == len(once) == 5 and all("duration_s" not in a for a in p)
    assert [a["start_s"] for a in p] == [a["start_s"] for a in once]
    assert all(a["duration_s"] >= pareto_xm(100.0, 1.35) for a in once)
    assert len(renew) > 5 and {a["flow"].split(".")[1] for a in renew} == {"1", "2", "3", "4", "5"}
    with pytest.raises(ValueError, match="cross"):
        homogeneous("reno", 1, cross="sometimes")
    # "Like the server's": the cross lifetimes follow the point's mean (Fig. 17: 5 s).
    short = [a for a in homogeneous("reno", 1, duration_s=3000.0, life_mean_s=5.0)["apps"]
             if a["flow"].startswith("cross.")]
    assert all(pareto_xm(5.0, 1.35) <= a["duration_s"] < once[k]["duration_s"] for k, a in enumerate(short))


@pytest.mark.parametrize("reading,r12,r23,access", [("core", 16e6, 16e6, 100e6), ("r1r2", 16e6, 100e6, 100e6),
                                                    ("r2r3", 100e6, 16e6, 100e6), ("all", 16e6, 16e6, 16e6)])
def test_bandwidth_readings(reading: str, r12: float, r23: float, access: float) -> None:
    """Spec A.15 item 2: which links carry "Bandwidth"."""
    cfg = homogeneous("reno", 1, bandwidth_bps=16e6, duration_s=100.0, bandwidth_on=reading)
    rate = {(ln["src"], ln["dst"]): ln["rate_bps"] for ln in cfg["links"]}
    assert rate[("r1", "r2")] == r12 and rate[("r2", "r3")] == r23
    assert rate[("s", "r1")] == access and rate[("xs1", "r1")] == access and rate[("r3", "c5")] == access
    assert {ln["delay_s"] for ln in cfg["links"] if {ln["src"], ln["dst"]} in ({"r1", "r2"}, {"r2", "r3"})} == {0.05}


def test_claims_from_synthetic_rows() -> None:
    """The claims table reads ratios over seeds: a run where LISS doubles Reno's initial
    5-s throughput passes the ordering claim, one where it halves it fails."""
    from shortflow.repro.fairshare import claims

    def row(scheme: str, i5: int, total: int) -> dict:
        return {"fig": "fig3", "scheme": scheme, "seed": 1, "x": 16.0, "initial": [i5] * 10, "total": total,
                "connections": 1, "drops": 0}

    rows = [row("reno", 100, 1000), row("liss", 200, 1000), row("iss", 50, 1000), row("miss", 300, 900),
            row("js", 150, 990)]
    got = {c["id"]: (c["ours"], c["pass"]) for c in claims(rows)}
    assert got["fig3a-liss"] == (2.0, True) and got["fig3a-iss"] == (0.5, False)
    assert got["fig3a-miss"] == (3.0, True) and got["fig3a-js"] == (1.5, False)
    assert got["fig3b-liss"] == (1.0, True)
    assert "fig20-averaged" not in got and "fig11b-miss" not in got


def test_fig8_claims_compare_the_gain_at_the_two_shapes() -> None:
    from shortflow.repro.fairshare import claims

    def row(scheme: str, x: float, i5: int) -> dict:
        return {"fig": "fig8", "scheme": scheme, "seed": 1, "x": x, "initial": [i5] * 10, "total": 1000,
                "connections": 1, "drops": 0}

    rows = [row(s, 1.05, 300 if s != "reno" else 100) for s in ("reno", "liss", "iss", "miss", "js")]
    rows += [row(s, 1.95, 150 if s != "liss" else 500) for s in ("reno", "liss", "iss", "miss", "js")]
    got = {c["id"]: (c["ours"], c["pass"]) for c in claims(rows)}
    assert got["fig8a-iss"] == (3.0, True)  # 3x Reno at 1.05, 1x at 1.95
    assert got["fig8a-liss"] == (0.9, False)  # 3x Reno at 1.05, 3.33x at 1.95: the gain did not grow


def test_confidence_interval_of_per_seed_ratios() -> None:
    """Three seeds with LISS/Reno ratios 1, 2, 3: mean 2, sd 1, t(2) = 4.303, so the 95%
    interval is 2 ± 4.303/sqrt(3); the claim's own number stays the ratio of sums (9/3)."""
    from shortflow.repro.fairshare import claims

    def row(scheme: str, seed: int, i5: int) -> dict:
        return {"fig": "fig3", "scheme": scheme, "seed": seed, "x": 16.0, "initial": [i5] * 10, "total": 1000,
                "connections": 1, "drops": 0}

    rows = []
    for seed, k in ((1, 1), (2, 2), (3, 3)):
        rows += [row("reno", seed, 100)] + [row(s, seed, 100 * k) for s in ("liss", "iss", "miss", "js")]
    got = {c["id"]: c for c in claims(rows)}
    h = 4.303 / math.sqrt(3)
    assert got["fig3a-liss"]["ours"] == 2.0
    assert got["fig3a-liss"]["ci95"] == [round(2 - h, 3), round(2 + h, 3)]
    assert got["fig3b-liss"]["ci95"] == [1.0, 1.0]
    # Two seeds: no interval.
    assert all(c["ci95"] is None for c in claims([r for r in rows if r["seed"] < 3]))


def test_large_network_sweep_claims() -> None:
    """Fig. 13: the gain at 0.5 s over the gain at 5 s; Fig. 15: MISS/JS best on 5-s;
    Fig. 16: the LISS gain at 10 s but not at 1 s."""
    from shortflow.repro.fairshare import claims

    def row(fig: str, scheme: str, x: float, initial: list[int], total: int) -> dict:
        return {"fig": fig, "scheme": scheme, "seed": 1, "x": x, "initial": initial, "total": total,
                "connections": 1, "drops": 0}

    rows = []
    for s, g in (("reno", 1.0), ("liss", 1.5), ("iss", 0.8), ("miss", 2.0), ("js", 2.0)):
        rows.append(row("fig13", s, 5.0, [100] * 10, 1000))
        rows.append(row("fig13", s, 0.5, [int(100 * g)] * 10, 900 if s in ("miss", "js") else 1000))
        for x in (1.0, 0.1):
            rows.append(row("fig15", s, x, [int(100 * g)] * 10, 1000))
        rows.append(row("fig14", s, 10.0, [100] + [int(100 * g)] * 9, 1000))
    got = {c["id"]: (c["ours"], c["pass"]) for c in claims(rows)}
    assert got["fig13a-liss"] == (1.5, True) and got["fig13a-iss"] == (0.8, False)
    assert got["fig13b-miss"] == (0.9, True) and got["fig13b-js"] == (0.9, True)
    assert got["fig15a-miss-js"] == (round(2.0 / 1.5, 3), True)
    assert got["fig15-liss"] == (1.0, False)  # totals equal to Reno's: not above
    assert got["fig16-liss"] == (1.5, True) and got["fig16-iss"] == (0.8, False)


def test_run_skip_names_a_figure_of_the_plan(tmp_path) -> None:
    from shortflow.repro.fairshare import run

    with pytest.raises(ValueError, match="skip: 'fig99' is not a figure of the quick plan"):
        run(tmp_path, mode="quick", skip=("fig99",))
