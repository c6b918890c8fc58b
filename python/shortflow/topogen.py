"""Topology generators that expand into explicit node and link lists.

``transit_stub``: a GT-ITM-style transit-stub graph (Zegura, Calvert and Bhattacharjee's
"ts" model, as used with ns-2's hierarchical addressing; spec
``fairshare-and-sizebased.md`` A.13.2). Transit domains are placed in a plane; each has
``transit_nodes`` routers joined by Waxman edges; every transit router has
``stubs_per_transit`` stub domains of ``stub_nodes`` nodes, each joined to its transit
router by one edge; stub domains are Waxman graphs with a raised edge probability (P3
made stub domains better connected so that their nodes share bottlenecks). Every
domain is made connected, transit domains are joined into one connected core.

Addresses follow ns-2's hierarchical ``domain.cluster.node``: ``10.D.0.N`` for transit
router N of domain D, ``10.D.C.N`` (C ≥ 1) for node N of stub domain C of domain D, so a
``/24`` prefix is one stub domain -- the fair-share schemes' group (spec A.3).

Link delay is the Euclidean length of the edge in the plane times ``ms_per_unit``
(ns-2's converter uses the edge length), or uniform in ``[lo, hi]`` ms. The graph is a
deterministic function of its parameters and ``seed`` (Python's ``random.Random``,
one stream for the generator only).

P3's two networks (spec A.13.2 defaults): 200 nodes = 4 transit domains × 2 transit
routers × (1 + 3 stubs × 8 nodes); 600 nodes = 4 × 6 × (1 + 3 × 8).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class TransitStubParams:
    transit_domains: int = 4
    transit_nodes: int = 2
    stubs_per_transit: int = 3
    stub_nodes: int = 8
    #: Side of the square each level is placed in (plane units): transit domains in the
    #: top plane, a domain's routers around its centre, a stub's nodes around its own.
    top_scale: float = 100.0
    transit_scale: float = 30.0
    stub_scale: float = 10.0
    #: Waxman edge probability ``alpha * exp(-d / (beta * L))`` inside transit and stub
    #: domains (L: the largest distance in the domain).
    transit_alpha: float = 0.6
    transit_beta: float = 0.4
    stub_alpha: float = 0.8
    stub_beta: float = 0.5
    #: Extra edges between transit domains beyond a spanning tree, as a probability per
    #: pair of domains.
    extra_domain_edge_prob: float = 0.5
    #: ``"euclidean"`` (ms_per_unit × edge length) or ``"uniform"`` (``uniform_ms``).
    delay: str = "euclidean"
    ms_per_unit: float = 2.0
    uniform_ms: tuple[float, float] = (5.0, 50.0)
    #: Smallest delay of any link (ms): co-located points still take some time.
    min_delay_ms: float = 1.0
    seed: int = 1

    def check(self) -> None:
        for name in ("transit_domains", "transit_nodes", "stub_nodes"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if not isinstance(self.stubs_per_transit, int) or self.stubs_per_transit < 0:
            raise ValueError(f"stubs_per_transit must be an integer >= 0, got {self.stubs_per_transit!r}")
        if self.transit_domains > 250 or self.stubs_per_transit > 250 or self.stub_nodes > 250 or self.transit_nodes > 250:
            raise ValueError("each level has at most 250 members (one address byte each)")
        for name in ("top_scale", "transit_scale", "stub_scale", "transit_beta", "stub_beta", "ms_per_unit"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a positive number, got {v!r}")
        for name in ("transit_alpha", "stub_alpha", "extra_domain_edge_prob"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and 0 <= v <= 1):
                raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}")
        if self.delay not in ("euclidean", "uniform"):
            raise ValueError(f"delay must be 'euclidean' or 'uniform', got {self.delay!r}")
        lo, hi = self.uniform_ms
        if not (0 < lo <= hi):
            raise ValueError(f"uniform_ms must be [lo, hi] with 0 < lo <= hi, got {list(self.uniform_ms)!r}")
        if not (self.min_delay_ms > 0):
            raise ValueError(f"min_delay_ms must be positive, got {self.min_delay_ms!r}")


@dataclass
class Graph:
    """Nodes (names, in creation order), their addresses, roles and stub domain, and
    undirected links with their delays (ms)."""

    nodes: list[str] = field(default_factory=list)
    addresses: dict[str, str] = field(default_factory=dict)
    #: "transit" or "stub".
    role: dict[str, str] = field(default_factory=dict)
    #: (domain, cluster) of every node; cluster 0 = the transit routers.
    domain: dict[str, tuple[int, int]] = field(default_factory=dict)
    links: list[tuple[str, str, float]] = field(default_factory=list)

    def transit_routers(self) -> list[str]:
        return [n for n in self.nodes if self.role[n] == "transit"]

    def stub_hosts(self) -> list[str]:
        return [n for n in self.nodes if self.role[n] == "stub"]

    def stub_domains(self) -> dict[tuple[int, int], list[str]]:
        out: dict[tuple[int, int], list[str]] = {}
        for n in self.stub_hosts():
            out.setdefault(self.domain[n], []).append(n)
        return out

    def neighbours(self) -> dict[str, set[str]]:
        adj: dict[str, set[str]] = {n: set() for n in self.nodes}
        for a, b, _ in self.links:
            adj[a].add(b)
            adj[b].add(a)
        return adj

    def is_connected(self) -> bool:
        if not self.nodes:
            return True
        adj = self.neighbours()
        seen = {self.nodes[0]}
        stack = [self.nodes[0]]
        while stack:
            for m in adj[stack.pop()]:
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        return len(seen) == len(self.nodes)


def _place(rng: random.Random, centre: tuple[float, float], scale: float, n: int) -> list[tuple[float, float]]:
    cx, cy = centre
    return [(cx + (rng.random() - 0.5) * scale, cy + (rng.random() - 0.5) * scale) for _ in range(n)]


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _waxman(rng: random.Random, pts: list[tuple[float, float]], alpha: float, beta: float) -> set[tuple[int, int]]:
    """Waxman edges among ``pts``, then the shortest edges needed to connect the
    components (nearest pair between a component and the rest), so every domain is
    connected as GT-ITM requires."""
    n = len(pts)
    edges: set[tuple[int, int]] = set()
    span = max((_dist(pts[i], pts[j]) for i in range(n) for j in range(i + 1, n)), default=0.0) or 1.0
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < alpha * math.exp(-_dist(pts[i], pts[j]) / (beta * span)):
                edges.add((i, j))
    # Connect components greedily: join the component of node 0 to its nearest outsider.
    while True:
        comp = {0}
        stack = [0]
        adj: dict[int, list[int]] = {i: [] for i in range(n)}
        for a, b in edges:
            adj[a].append(b)
            adj[b].append(a)
        while stack:
            for m in adj[stack.pop()]:
                if m not in comp:
                    comp.add(m)
                    stack.append(m)
        if len(comp) == n:
            return edges
        a, b = min(((i, j) for i in comp for j in range(n) if j not in comp), key=lambda e: _dist(pts[e[0]], pts[e[1]]))
        edges.add((min(a, b), max(a, b)))


def transit_stub(p: TransitStubParams) -> Graph:
    """Generate a transit-stub graph; see the module docstring."""
    p.check()
    rng = random.Random(p.seed)
    g = Graph()
    pos: dict[str, tuple[float, float]] = {}

    def add(name: str, addr: str, role: str, dom: tuple[int, int], at: tuple[float, float]) -> None:
        g.nodes.append(name)
        g.addresses[name] = addr
        g.role[name] = role
        g.domain[name] = dom
        pos[name] = at

    def delay(a: str, b: str) -> float:
        if p.delay == "uniform":
            lo, hi = p.uniform_ms
            d = rng.uniform(lo, hi)
        else:
            d = _dist(pos[a], pos[b]) * p.ms_per_unit
        return round(max(d, p.min_delay_ms), 3)

    def link(a: str, b: str) -> None:
        g.links.append((a, b, delay(a, b)))

    centres = _place(rng, (p.top_scale / 2, p.top_scale / 2), p.top_scale, p.transit_domains)
    transit: list[list[str]] = []
    for d, centre in enumerate(centres):
        pts = _place(rng, centre, p.transit_scale, p.transit_nodes)
        names = [f"t{d}.{i}" for i in range(p.transit_nodes)]
        for i, (name, at) in enumerate(zip(names, pts)):
            add(name, f"10.{d}.0.{i + 1}", "transit", (d, 0), at)
        for a, b in sorted(_waxman(rng, pts, p.transit_alpha, p.transit_beta)):
            link(names[a], names[b])
        transit.append(names)
    # The core: a random spanning tree over the transit domains (each new domain joins
    # one already connected), then extra inter-domain edges; endpoints at random.
    order = list(range(p.transit_domains))
    rng.shuffle(order)
    joined: set[tuple[int, int]] = set()
    for k in range(1, len(order)):
        a, b = order[k], order[rng.randrange(k)]
        joined.add((min(a, b), max(a, b)))
        link(rng.choice(transit[a]), rng.choice(transit[b]))
    for a in range(p.transit_domains):
        for b in range(a + 1, p.transit_domains):
            if (a, b) not in joined and rng.random() < p.extra_domain_edge_prob:
                link(rng.choice(transit[a]), rng.choice(transit[b]))
    # Stub domains hang off every transit router.
    for d, names in enumerate(transit):
        for i, router in enumerate(names):
            for s in range(p.stubs_per_transit):
                cluster = i * p.stubs_per_transit + s + 1
                if cluster > 255:
                    raise ValueError("too many stub domains per transit domain for one address byte (at most 255)")
                centre = _place(rng, pos[router], p.transit_scale, 1)[0]
                pts = _place(rng, centre, p.stub_scale, p.stub_nodes)
                stub = [f"s{d}.{cluster}.{k}" for k in range(p.stub_nodes)]
                for k, (name, at) in enumerate(zip(stub, pts)):
                    add(name, f"10.{d}.{cluster}.{k + 1}", "stub", (d, cluster), at)
                for a, b in sorted(_waxman(rng, pts, p.stub_alpha, p.stub_beta)):
                    link(stub[a], stub[b])
                link(router, rng.choice(stub))
    return g


def delay_summary(g: Graph) -> dict[str, float]:
    """Link-delay statistics (ms): min, median, max, mean."""
    ds = sorted(d for _, _, d in g.links)
    if not ds:
        return {"links": 0}
    n = len(ds)
    median = ds[n // 2] if n % 2 else 0.5 * (ds[n // 2 - 1] + ds[n // 2])
    return {"links": n, "min_ms": ds[0], "median_ms": median, "max_ms": ds[-1], "mean_ms": sum(ds) / n}


def path_delays(g: Graph, src: str, dsts: Optional[list[str]] = None) -> dict[str, float]:
    """One-way delays (ms) from ``src`` along shortest-hop-count paths, for summaries.
    Among equal-hop paths this takes the one with the least delay; the simulator's
    routing (``net/routing.rs``: first reached, first added) may pick another one."""
    import heapq

    adj: dict[str, list[tuple[str, float]]] = {n: [] for n in g.nodes}
    for a, b, d in g.links:
        adj[a].append((b, d))
        adj[b].append((a, d))
    best: dict[str, tuple[int, float]] = {src: (0, 0.0)}
    heap = [(0, 0.0, src)]
    while heap:
        hops, dl, n = heapq.heappop(heap)
        if best.get(n, (math.inf, math.inf)) < (hops, dl):
            continue
        for m, d in adj[n]:
            cand = (hops + 1, dl + d)
            if cand < best.get(m, (math.inf, math.inf)):
                best[m] = cand
                heapq.heappush(heap, (cand[0], cand[1], m))
    out = {n: v[1] for n, v in best.items()}
    return out if dsts is None else {n: out[n] for n in dsts}
