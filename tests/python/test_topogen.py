"""The transit-stub generator (spec fairshare-and-sizebased A.13.2)."""

import ipaddress
from collections import Counter

import pytest

from shortflow.topogen import TransitStubParams, delay_summary, path_delays, transit_stub


@pytest.mark.parametrize("transit_nodes,total", [(2, 200), (6, 600)])
def test_p3_networks_have_the_papers_sizes(transit_nodes: int, total: int) -> None:
    g = transit_stub(TransitStubParams(transit_nodes=transit_nodes, seed=3))
    assert len(g.nodes) == total
    assert len(set(g.nodes)) == total
    assert len(g.transit_routers()) == 4 * transit_nodes
    stubs = g.stub_domains()
    assert len(stubs) == 4 * transit_nodes * 3
    assert all(len(v) == 8 for v in stubs.values())
    assert g.is_connected()


def test_addresses_are_hierarchical_and_a_slash24_is_one_stub_domain() -> None:
    g = transit_stub(TransitStubParams(seed=5))
    addrs = [ipaddress.IPv4Address(a) for a in g.addresses.values()]
    assert len(set(addrs)) == len(addrs)
    by_prefix: dict[str, set[tuple[int, int]]] = {}
    for n in g.nodes:
        net = str(ipaddress.IPv4Network(g.addresses[n] + "/24", strict=False))
        by_prefix.setdefault(net, set()).add(g.domain[n])
    assert all(len(doms) == 1 for doms in by_prefix.values())
    # Transit routers are cluster 0 of their domain.
    for r in g.transit_routers():
        assert g.addresses[r].split(".")[2] == "0"


def test_every_stub_domain_hangs_off_its_transit_router_by_one_link() -> None:
    g = transit_stub(TransitStubParams(seed=7))
    for dom, members in g.stub_domains().items():
        inside = set(members)
        out = [(a, b) for a, b, _ in g.links if (a in inside) != (b in inside)]
        assert len(out) == 1, dom
        (a, b) = out[0]
        other = b if a in inside else a
        assert g.role[other] == "transit" and g.domain[other][0] == dom[0]
        # ... and is connected on its own.
        adj = {m: set() for m in members}
        for x, y, _ in g.links:
            if x in inside and y in inside:
                adj[x].add(y)
                adj[y].add(x)
        seen, stack = {members[0]}, [members[0]]
        while stack:
            for m in adj[stack.pop()]:
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        assert seen == inside


def test_deterministic_per_seed_and_different_across_seeds() -> None:
    a = transit_stub(TransitStubParams(seed=11))
    b = transit_stub(TransitStubParams(seed=11))
    c = transit_stub(TransitStubParams(seed=12))
    assert a.links == b.links and a.addresses == b.addresses
    assert a.links != c.links


def test_stub_domains_are_denser_than_a_tree() -> None:
    # P3 raised stub connectivity so a stub's nodes share bottlenecks: on average more
    # edges than the 7 of a spanning tree of 8 nodes.
    g = transit_stub(TransitStubParams(seed=2))
    dom_of = g.domain
    per = Counter(dom_of[a] for a, b, _ in g.links if g.role[a] == "stub" and g.role[b] == "stub" and dom_of[a] == dom_of[b])
    assert sum(per.values()) / len(per) > 8


def test_delays_euclidean_scale_and_uniform_option() -> None:
    g = transit_stub(TransitStubParams(seed=4))
    s = delay_summary(g)
    assert s["min_ms"] >= 1.0
    # Two units of plane per... the defaults put stub links at a few to ~30 ms and
    # core links at tens to ~200 ms: the large-delay regime the spec expects.
    assert 1.0 <= s["median_ms"] <= 60.0
    assert s["max_ms"] >= 60.0
    u = transit_stub(TransitStubParams(seed=4, delay="uniform", uniform_ms=(5.0, 50.0)))
    ds = [d for _, _, d in u.links]
    assert min(ds) >= 5.0 and max(ds) <= 50.0
    # End-to-end: a host in one domain to a host in another crosses the core.
    src = g.stub_hosts()[0]
    far = [n for n in g.stub_hosts() if g.domain[n][0] != g.domain[src][0]]
    d = path_delays(g, src, far)
    assert min(d.values()) > s["median_ms"]


@pytest.mark.parametrize(
    "kw,field",
    [
        ({"transit_domains": 0}, "transit_domains"),
        ({"stub_nodes": -1}, "stub_nodes"),
        ({"stub_alpha": 1.5}, "stub_alpha"),
        ({"delay": "random"}, "delay"),
        ({"ms_per_unit": 0.0}, "ms_per_unit"),
        ({"uniform_ms": (50.0, 5.0)}, "uniform_ms"),
        ({"stubs_per_transit": 300}, "at most 250"),
    ],
)
def test_bad_parameters_name_the_field(kw: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        transit_stub(TransitStubParams(**kw))
