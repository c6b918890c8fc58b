"""P4 Fig. 4's parking lot (``scenarios/vienna/fig5_n5.toml``): which aggregate's data and
acks cross which core hop, and the SURGE users' request connections (spec B.7.3)."""

from __future__ import annotations

import copy
import re

import polars as pl

from shortflow import Scenario
from shortflow.repro.paths import find_scenario_dir
from shortflow.scenario import load


def _hops_crossed(n: int) -> dict[str, set[str]]:
    """Core links each flow group's data packets cross, from a packet trace (1 user per
    aggregate, 40 s)."""
    base = load(find_scenario_dir("vienna", f"fig5_n{n}.toml", "SHORTFLOW_VIENNA_SCENARIOS") / f"fig5_n{n}.toml")
    raw = copy.deepcopy(base.raw)
    raw["duration"] = "40s"
    for g in raw["flows"]:
        g["count"] = 1
    raw["trace"] = {"packets": True}
    r = Scenario.from_dict(raw).simulate(seed=1)
    ev = r.packet_events().filter((pl.col("event") == "-") & pl.col("link").str.contains(r"^r\d+->r\d+$"))
    out: dict[str, set[str]] = {}
    for flow, kind, link in ev.select("flow", "kind", "link").unique().iter_rows():
        group = re.sub(r"\.\d+$", "", flow)
        out.setdefault(f"{group}:{kind}", set()).add(link)
    return out


def test_parking_lot_routes_each_aggregate_over_its_hops() -> None:
    n = 5
    seen = _hops_crossed(n)
    down = {f"r{i + 1}->r{i}" for i in range(1, n + 1)}  # the evaluated data's direction
    # The evaluated aggregate: servers at r6, clients at r1 -- data over every hop.
    assert seen["web:data"] == down
    assert seen["web:ack"] == {f"r{i}->r{i + 1}" for i in range(1, n + 1)}
    # Its requests go the other way (client -> server), acked back along the data path.
    assert seen["web.req:data"] == {f"r{i}->r{i + 1}" for i in range(1, n + 1)}
    # Forward cross aggregates fwd<i>, 2 <= i <= n: hop i only, in the data direction.
    for i in range(2, n + 1):
        assert seen[f"fwd{i}:data"] == {f"r{i + 1}->r{i}"}, i
    # Reverse cross aggregates rev<j>, 1 <= j <= n-1: hop j only, against the data.
    for j in range(1, n):
        assert seen[f"rev{j}:data"] == {f"r{j}->r{j + 1}"}, j
    assert "fwd1:data" not in seen and f"rev{n}:data" not in seen
    # Every middle hop carries the evaluated data and one forward aggregate's data; the
    # end hops one cross aggregate each (hop 1: rev1's acks; hop n: fwdn's data).
    for i in range(1, n + 1):
        link = f"r{i + 1}->r{i}"
        groups = {k.split(":")[0] for k, links in seen.items() if k.endswith(":data") and link in links}
        want = {"web"} | ({f"fwd{i}"} if i >= 2 else set()) | ({f"rev{i}.req"} if i <= n - 1 else set())
        assert groups == want, (link, groups)


def test_one_hop_parking_lot_has_no_cross_traffic() -> None:
    seen = _hops_crossed(1)
    assert {k.split(":")[0] for k in seen} == {"web", "web.req"}
    assert seen["web:data"] == {"r2->r1"}
