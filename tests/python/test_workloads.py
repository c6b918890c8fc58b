"""Scenario workloads (``[[workloads]]``: Poisson FTP connections to random clients,
staggered FTP pairs, Pareto lifetimes; ``shortflow.workloads``) and the ``transit_stub``
topology kind (``shortflow.topogen`` behind a scenario)."""

from __future__ import annotations

import ipaddress
import statistics
from typing import Any

import pytest

from shortflow import Scenario
from shortflow.workloads import pair_connections, pareto_xm, poisson_connections, random_pairs


def _explicit(**workloads: Any) -> dict[str, Any]:
    return {
        "name": "w",
        "duration": "2000s",
        "topology": {"kind": "explicit", "nodes": ["s", "r", "c1", "c2", "c3", "x", "y"],
                     "links": [{"src": a, "dst": b, "rate": "10Mb", "delay": "1ms"}
                               for a, b in (("s", "r"), ("r", "c1"), ("r", "c2"), ("r", "c3"), ("x", "r"), ("r", "y"))]},
        "workloads": list(workloads.values()),
    }


SRV = {"name": "srv", "kind": "poisson_ftp", "src": "s", "clients": ["c1", "c2", "c3"], "interarrival": "5s",
       "lifetime": {"dist": "pareto", "mean": "100s", "shape": 1.35}}


def _apps(cfg: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [a for a in cfg["apps"] if a["flow"].startswith(prefix)]


def test_poisson_workload_expands_per_seed_with_uniform_clients() -> None:
    sc = Scenario.from_dict(_explicit(srv=SRV))
    cfg = sc.to_sim_config(seed=1)
    flows = [f for f in cfg["flows"] if f["name"].startswith("srv.")]
    apps = _apps(cfg, "srv.")
    assert len(flows) == len(apps) > 300  # ~400 arrivals in 2000 s at mean 5 s
    starts = [a["start_s"] for a in apps]
    assert starts == sorted(starts) and starts[-1] < 2000
    assert statistics.mean(b - a for a, b in zip(starts, starts[1:])) == pytest.approx(5.0, rel=0.15)
    assert all(f["src"] == "s" for f in flows)
    counts = [sum(f["dst"] == c for f in flows) for c in ("c1", "c2", "c3")]
    assert min(counts) > len(flows) / 3 * 0.7, counts
    assert min(a["duration_s"] for a in apps) >= pareto_xm(100, 1.35) - 1e-9
    # The same seed gives the same connections; another seed others.
    assert sc.to_sim_config(seed=1) == cfg
    assert _apps(sc.to_sim_config(seed=2), "srv.") != apps


def test_streams_are_independent() -> None:
    """Another lifetime changes the lifetimes only; adding a workload moves nothing."""
    a = poisson_connections(1, "srv", 5000, 5.0, 5, (100.0, 1.35))
    b = poisson_connections(1, "srv", 5000, 5.0, 5, (50.0, 1.35))
    assert [(t, c) for t, _, c in a] == [(t, c) for t, _, c in b]
    assert [d for _, d, _ in a] != [d for _, d, _ in b]
    one = Scenario.from_dict(_explicit(srv=SRV)).to_sim_config(seed=3)
    cross = {"name": "cross", "kind": "ftp_pairs", "pairs": [["x", "y"]], "stagger": "1s"}
    two = Scenario.from_dict(_explicit(srv=SRV, cross=cross)).to_sim_config(seed=3)
    assert _apps(one, "srv.") == _apps(two, "srv.")


def test_pairs_persistent_once_and_renewed() -> None:
    life = {"dist": "pareto", "mean": "100s", "shape": 1.35}
    base = {"name": "cross", "kind": "ftp_pairs", "pairs": [["x", "y"], ["s", "c1"]], "stagger": "1s"}
    persistent = _apps(Scenario.from_dict(_explicit(c=base)).to_sim_config(seed=1), "cross.")
    assert [a["flow"] for a in persistent] == ["cross.1.1", "cross.2.1"]
    assert all("duration_s" not in a for a in persistent)
    assert 0 < persistent[0]["start_s"] < persistent[1]["start_s"]
    once = _apps(Scenario.from_dict(_explicit(c=dict(base, lifetime=life))).to_sim_config(seed=1), "cross.")
    assert [a["start_s"] for a in once] == [a["start_s"] for a in persistent]
    assert all(a["duration_s"] > 0 for a in once)
    renew = _apps(Scenario.from_dict(_explicit(c=dict(base, lifetime=life, renew=True))).to_sim_config(seed=1),
                  "cross.")
    pair1 = [a for a in renew if a["flow"].startswith("cross.1.")]
    assert len(pair1) > 5 and pair1[0]["start_s"] == persistent[0]["start_s"]
    for prev, nxt in zip(pair1, pair1[1:]):  # back to back: the next opens when one ends
        assert nxt["start_s"] == pytest.approx(prev["start_s"] + prev["duration_s"], abs=1e-6)
    assert pair1[-1]["start_s"] < 2000


def test_pair_connections_stagger_is_exponential() -> None:
    out = pair_connections(7, "cross", 10_000, 4000, 1.0, None, False)
    starts = [t for _, t, _ in out]
    assert len(out) == 4000 and starts == sorted(starts)
    assert statistics.mean(b - a for a, b in zip([0.0] + starts, starts)) == pytest.approx(1.0, rel=0.05)


def test_random_pairs_cross_domains() -> None:
    doms = [0, 0, 1, 1, 2]
    pairs = random_pairs(1, "c", 200, doms)
    assert all(doms[a] != doms[b] for a, b in pairs)
    assert len({p for p in pairs}) > 5
    with pytest.raises(ValueError, match="two domains"):
        random_pairs(1, "c", 1, [0, 0])


def _ts(**kw: Any) -> dict[str, Any]:
    return {"name": "ts", "duration": "100s", "topology": {"kind": "transit_stub", "rate": "10Mb", "queue": 50, **kw},
            "paths": {"prefix_len": 24},
            "workloads": [{"name": "srv", "kind": "poisson_ftp", "src": "server", "clients": "stub_hosts",
                           "interarrival": "1s", "lifetime": {"dist": "pareto", "mean": "5s", "shape": 1.35}},
                          {"name": "cross", "kind": "ftp_pairs", "pairs": {"random": 25}, "stagger": "1s"}]}


@pytest.mark.parametrize("size,transit", [(200, 8), (600, 24)])
def test_transit_stub_sizes_and_hierarchical_prefixes(size: int, transit: int) -> None:
    cfg = Scenario.from_dict(_ts(size=size)).to_sim_config(seed=1)
    nodes = [n for n in cfg["nodes"] if n != "server"]
    assert len(nodes) == size and "server" in cfg["nodes"]
    assert sum(n.startswith("t") for n in nodes) == transit
    assert all(ln["rate_bps"] == 10e6 and ln["queue"] == {"kind": "drop_tail", "limit_pkts": 50} for ln in cfg["links"])
    assert [ln for ln in cfg["links"] if "server" in (ln["src"], ln["dst"])] == [
        {"src": "server", "dst": "t0.0", "rate_bps": 10e6, "delay_s": 0.001, "queue": {"kind": "drop_tail", "limit_pkts": 50}}]
    addr = cfg["addresses"]
    # s<D>.<C>.<k> lives in 10.D.C.0/24: one /24 per stub domain.
    for n in nodes:
        if n.startswith("s"):
            d, c, k = n[1:].split(".")
            assert ipaddress.IPv4Address(addr[n]) in ipaddress.IPv4Network(f"10.{d}.{c}.0/24")
    srv = [f for f in cfg["flows"] if f["name"].startswith("srv.")]
    assert srv and all(f["src"] == "server" and f["dst"].startswith("s") for f in srv)
    cross = [f for f in cfg["flows"] if f["name"].startswith("cross.")]
    assert len(cross) == 25
    assert all(f["src"].rsplit(".", 1)[0] != f["dst"].rsplit(".", 1)[0] for f in cross)


def test_transit_stub_graph_does_not_depend_on_the_run_seed() -> None:
    sc = Scenario.from_dict(_ts(size=200))
    a, b = sc.to_sim_config(seed=1), sc.to_sim_config(seed=2)
    assert a["links"] == b["links"] and a["flows"] != b["flows"]
    c = Scenario.from_dict(_ts(size=200, graph_seed=2)).to_sim_config(seed=1)
    assert c["links"] != a["links"]


def test_transit_stub_uniform_delays() -> None:
    cfg = Scenario.from_dict(_ts(transit_domains=2, transit_nodes=2, stubs_per_transit=1, stub_nodes=3,
                                 delay="uniform", uniform=["5ms", "50ms"])).to_sim_config(seed=1)
    delays = [ln["delay_s"] for ln in cfg["links"] if "server" not in (ln["src"], ln["dst"])]
    assert len(cfg["nodes"]) == 2 * 2 * (1 + 3) + 1
    assert all(0.005 <= d <= 0.05 for d in delays)


def test_transit_stub_runs() -> None:
    sc = Scenario.from_dict(_ts(transit_domains=2, transit_nodes=1, stubs_per_transit=2, stub_nodes=3))
    sc2 = Scenario.from_dict({**sc.raw, "workloads": [dict(sc.raw["workloads"][0]),
                                                      dict(sc.raw["workloads"][1], pairs={"random": 2})],
                              "duration": "30s"})
    r = sc2.simulate(seed=1)
    f = r.flows
    assert f.height > 10
    assert f["bytes_acked"].sum() > 0


def test_transit_stub_server_rate() -> None:
    cfg = Scenario.from_dict(_ts(size=200, server_rate="100Mb")).to_sim_config(seed=1)
    srv = [ln for ln in cfg["links"] if "server" in (ln["src"], ln["dst"])]
    assert [ln["rate_bps"] for ln in srv] == [100e6]
    assert {ln["rate_bps"] for ln in cfg["links"] if ln not in srv} == {10e6}
