"""Expansion of a validated scenario into the core's ``SimConfig`` JSON (``config.rs``).

Naming (stable, readable, used in traces and results):

* routers of the built-in topologies: ``r1``, ``r2`` (dumbbell) or ``r1 .. rK`` (chain);
* connection ``i`` (1-based) of flow group ``conn``: flow ``conn.i``, hosts ``conn.s<i>``
  (source) and ``conn.d<i>`` (sink), each on its own access link; with
  ``conns_per_host = k``, connections ``(h-1)k+1 .. hk`` share hosts ``conn.s<h>`` and
  ``conn.d<h>`` (with ``session``, one TCP session per host pair);
* cross-traffic group ``web`` placed per hop (``at``): hop ``h`` is group ``web.h<h>``
  (flows ``web.h2.1``, hosts ``web.h2.s1`` ...).

Only values the scenario sets are emitted; the core fills every other default, and
``_core.resolve`` shows the result.
"""

from __future__ import annotations

import ipaddress
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .errors import MISSING, Problem, ScenarioError, suggest
from .schema import (
    Chain,
    CbrCross,
    Dumbbell,
    Explicit,
    FlowGroup,
    ParetoLifetime,
    FtpApp,
    LinkSpec,
    OnOffCross,
    PairsFtpWorkload,
    PoissonFtpWorkload,
    RoundsApp,
    MuxApp,
    SurgeApp,
    TransitStub,
    FairShareStartup,
    LinuxStartup,
    FastStartStartup,
    ScenarioModel,
    SpandStartup,
    TelnetApp,
    WebApp,
    check_seed,
)
from .har import HarError, pages_from_har
from .replicas import expand_replicas, flow_names
from .replicas import round15 as _clean

__all__ = ["build_sim_config", "DEFAULT_GATEWAY", "TCP_DEFAULTS", "estimate_memory", "available_memory",
           "BYTES_PER_CONNECTION", "BYTES_PER_TRANSFER", "REPLICA_MIN_COUNT", "replicable", "expand_replicas",
           "flow_names"]

#: Name of the gateway created when SPAND start-up names none and none is declared.
DEFAULT_GATEWAY = "gw"


#: Core defaults (``config.rs``) that cross-field checks need before the core sees the
#: configuration; ``tests/python/test_core_agreement.py`` asserts they equal the core's.
TCP_DEFAULTS = {"minrto_s": 0.2, "maxrto_s": 60.0}

# --- memory guard -------------------------------------------------------------------
#: Estimated peak memory per connection (TCP or UDP) of one run, bytes. Measured on a
#: dumbbell (each connection with its own host pair and two access links): about 1 KB in
#: Python (expansion) and 5.7 KB in the core run (configuration JSON, parsed config,
#: ~0.8 KB idle sender/sink state, ~2.8 KB host-pair links, results); rounded up to 8 KB.
BYTES_PER_CONNECTION = 8 * 1024
#: Estimated memory per transfer record (rounds x connections), bytes.
BYTES_PER_TRANSFER = 256
#: Fixed part of a run (interpreter, libraries, core), bytes.
BYTES_BASE = 200 * 2**20


def available_memory() -> Optional[int]:
    """Bytes of memory available for new work (``MemAvailable`` of /proc/meminfo; the
    environment variable ``SHORTFLOW_MEMORY_LIMIT`` (bytes) overrides it), or None when
    unknown (no guard then)."""
    env = os.environ.get("SHORTFLOW_MEMORY_LIMIT")
    if env:
        try:
            return int(float(env))
        except ValueError:
            return None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _connections(m: ScenarioModel) -> list[tuple[str, int, int]]:
    """(path of the count, connections, transfers) per flow and cross group."""
    out = []
    nhops = 1
    if isinstance(m.topology, Chain):
        nhops = m.topology.routers - 1
    for g in m.flows:
        transfers = g.count * (g.app.rounds if isinstance(g.app, RoundsApp) else 1)
        conns = g.count
        if isinstance(g.app, WebApp):
            # HTTP/1.0 opens a connection per object: bound the pairs' connections with
            # the known page sizes (a HAR file is read only at expansion).
            per_page = 1 + _max_images(g.app)
            conns = g.count * (g.app.pages * per_page if g.app.mode in ("seq", "conc") else g.app.pages)
            transfers = conns
        elif isinstance(g.app, SurgeApp):
            # A Web user has a request connection beside its response connection.
            conns = g.count * 2
        out.append((f"flows.{g.name}.count", conns, transfers))
    for c in m.cross:
        copies = 1
        if c.at == "each":
            copies = nhops
        elif isinstance(c.at, list):
            copies = len(c.at)
        out.append((f"cross.{c.name}.count", c.count * copies, 0))
    end = m.duration if m.duration is not None else m.max_duration
    for w in m.workloads:
        # Expected connections: Poisson arrivals over the run (twice the mean, for the
        # spread), or one per pair (renewed pairs: the run over the shortest lifetime).
        if isinstance(w, PoissonFtpWorkload):
            n = int(2 * max(end - w.start, 0.0) / w.interarrival) + 1
            out.append((f"workloads.{w.name}.interarrival", n, n))
        else:
            pairs = len(w.pairs) if isinstance(w.pairs, list) else w.pairs.random
            per = 1
            if w.renew and w.lifetime is not None:
                per = int(2 * end / (w.lifetime.mean * (w.lifetime.shape - 1) / w.lifetime.shape)) + 1
            out.append((f"workloads.{w.name}.pairs", pairs * per, pairs * per))
    return out


def estimate_memory(m: ScenarioModel) -> int:
    """Conservative estimate of one run's peak memory (bytes): see
    :data:`BYTES_PER_CONNECTION`, :data:`BYTES_PER_TRANSFER`, :data:`BYTES_BASE`."""
    conns = _connections(m)
    return BYTES_BASE + sum(n * BYTES_PER_CONNECTION + t * BYTES_PER_TRANSFER for _, n, t in conns)


def _check_memory(m: ScenarioModel, source: Optional[str]) -> None:
    """Refuse a scenario whose estimated footprint exceeds the available memory (before
    anything proportional to the number of connections is built)."""
    need = estimate_memory(m)
    avail = available_memory()
    if avail is None or need <= avail:
        return
    conns = _connections(m)
    total = sum(n for _, n, _ in conns)
    path, n, _ = max(conns, key=lambda c: c[1])
    raise ScenarioError(source, [Problem(
        path,
        f"{total} connections need about {_gib(need)} of memory (estimate: {BYTES_PER_CONNECTION // 1024} KiB per "
        f"connection, {BYTES_PER_TRANSFER} B per transfer, {BYTES_BASE // 2**20} MiB base), more than the "
        f"{_gib(avail)} available; reduce the count", n)])


def _gib(n: int) -> str:
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n / 2**20:.3g} MiB"


def _queue(q: Any) -> dict[str, Any]:
    d = q.model_dump(exclude_none=True)
    kind = d.pop("kind")
    kind = {"droptail": "drop_tail", "droppriority": "drop_priority"}.get(kind, kind)
    out: dict[str, Any] = {"kind": kind}
    if "limit" in d:
        out["limit_pkts"] = d.pop("limit")
    if "targetdelay" in d:
        out["targetdelay_s"] = d.pop("targetdelay")
    out.update(d)
    return out


def _link(src: str, dst: str, spec: LinkSpec, duplex: bool = True) -> dict[str, Any]:
    link: dict[str, Any] = {"src": src, "dst": dst, "rate_bps": spec.rate, "delay_s": spec.delay}
    if not duplex:
        link["duplex"] = False
    if spec.queue is not None:
        link["queue"] = _queue(spec.queue)
    if spec.reverse_queue is not None:
        link["reverse_queue"] = _queue(spec.reverse_queue)
    if spec.reverse_rate is not None:
        link["reverse_rate_bps"] = spec.reverse_rate
    if spec.reverse_delay is not None:
        link["reverse_delay_s"] = spec.reverse_delay
    if spec.loss is not None:
        link["loss"] = spec.loss
    if spec.reverse_loss is not None:
        link["reverse_loss"] = spec.reverse_loss
    return link


def _flow(name: str, src: str, dst: str, tcp: dict[str, Any], sink: dict[str, Any],
          startup: Optional[dict[str, Any]]) -> dict[str, Any]:
    """One TCP flow of the ``SimConfig`` (its own copies of the group's tables)."""
    f: dict[str, Any] = {"name": name, "src": src, "dst": dst}
    if tcp:
        f["tcp"] = dict(tcp)
    if sink:
        f["sink"] = dict(sink)
    if startup is not None:
        f["startup"] = dict(startup)
    return f


def _max_images(a: WebApp) -> int:
    """Most inline images a page of ``a`` can have (1 for a HAR file, read later)."""
    if a.html is not None:
        return a.images or 0
    if a.page_list is not None:
        return max(len(p.images) for p in a.page_list)
    if a.random is not None:
        return a.random.images if isinstance(a.random.images, int) else a.random.images[1]
    return 1


def _size_dist(d: Any) -> dict[str, Any]:
    """A size distribution in the core's form (``config::SizeDist``)."""
    if d.kind == "fixed":
        return {"kind": "fixed", "bytes": d.size}
    if d.kind == "exponential":
        return {"kind": "exponential", "mean_bytes": float(d.mean)}
    if d.kind == "pareto":
        return {"kind": "pareto", "mean_bytes": float(d.mean), "shape": d.shape}
    if d.kind == "uniform":
        return {"kind": "uniform", "min_bytes": d.min, "max_bytes": d.max}
    return {"kind": "lognormal", "median_bytes": float(d.median), "sigma": d.sigma}


#: A flow group of at least this many connections is written as one core replica
#: (``SimConfig.replicas``: the connection once, expanded by the core) when
#: :func:`replicable` accepts it; smaller groups are written out connection by
#: connection, as before. Both forms run identically.
REPLICA_MIN_COUNT = 1000


def replicable(g: FlowGroup, min_count: Optional[int] = None) -> bool:
    """Whether group ``g`` of a built-in topology can be a core replica: at least
    ``min_count`` (default :data:`REPLICA_MIN_COUNT`) connections, each with its own host pair and no host addresses from a
    network, no TCP session, and no application or an FTP one that waits for no group."""
    a = g.app
    return (g.count >= (REPLICA_MIN_COUNT if min_count is None else min_count) and (g.conns_per_host or 1) == 1 and g.session is None
            and g.src_network is None and g.dst_network is None
            and (a is None or (isinstance(a, FtpApp) and not a.start_after)))


def _access_link(spec: LinkSpec) -> dict[str, Any]:
    """An access link template (``config::AccessLinkConfig``): a link without its ends."""
    link = _link("", "", spec)
    del link["src"], link["dst"]
    return link


@dataclass
class _Builder:
    m: ScenarioModel
    seed: int
    source: Optional[str] = None
    nodes: list[str] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    flows: list[dict[str, Any]] = field(default_factory=list)
    apps: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: Flow groups written as core replicas (``SimConfig.replicas``), in order.
    replicas: list[dict[str, Any]] = field(default_factory=list)
    routers: list[str] = field(default_factory=list)
    builtin: bool = True
    gateways_used: set[str] = field(default_factory=set)
    gateway_refs: dict[str, str] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)
    #: The generated graph of a transit_stub topology (``topogen.Graph``).
    graph: Any = None

    def fail(self, path: str, message: str, value: Any = MISSING, candidates: Optional[list[str]] = None) -> None:
        sugg = suggest(str(value), candidates) if candidates and isinstance(value, str) else None
        self.problems.append(Problem(path, message, value, sugg))

    # -- topology --------------------------------------------------------------

    def topology(self) -> None:
        t = self.m.topology
        if isinstance(t, Dumbbell):
            self.routers = ["r1", "r2"]
            self.nodes += self.routers
            self.links.append(_link("r1", "r2", t.bottleneck))
        elif isinstance(t, Chain):
            self.routers = [f"r{i}" for i in range(1, t.routers + 1)]
            self.nodes += self.routers
            for h in range(t.routers - 1):
                spec = t.hops[h] if t.hops is not None else t.bottleneck
                assert spec is not None
                self.links.append(_link(self.routers[h], self.routers[h + 1], spec))
        elif isinstance(t, Explicit):
            self.builtin = False
            seen: set[str] = set()
            for i, n in enumerate(t.nodes):
                if n in seen:
                    self.fail(f"topology.nodes[{i}]", "node listed twice", n)
                seen.add(n)
            self.nodes += t.nodes
            for i, ln in enumerate(t.links):
                for end in ("src", "dst"):
                    v = getattr(ln, end)
                    if v not in seen:
                        self.fail(f"topology.links[{i}].{end}", "unknown node; declare it in topology.nodes", v, t.nodes)
                if ln.src == ln.dst:
                    self.fail(f"topology.links[{i}]", "a link needs two different nodes", f"{ln.src}->{ln.dst}")
                if not ln.duplex:
                    for name in ("reverse_rate", "reverse_delay", "reverse_queue", "reverse_loss"):
                        if getattr(ln, name) is not None:
                            self.fail(f"topology.links[{i}].{name}",
                                      "only a duplex link has a reverse direction (this link has duplex = false)",
                                      getattr(ln, name))
                self.links.append(_link(ln.src, ln.dst, ln, ln.duplex))
        elif isinstance(t, TransitStub):
            self.builtin = False
            from .topogen import transit_stub

            try:
                g = transit_stub(t.params())
            except ValueError as e:
                self.fail("topology", str(e))
                return
            self.graph = g
            spec = LinkSpec.model_construct(rate=t.rate, delay=0.0, queue=t.queue)
            self.nodes += g.nodes
            for a, b, ms in g.links:
                self.links.append(_link(a, b, spec.model_copy(update={"delay": ms / 1000.0})))
            routers = g.transit_routers()
            if t.server_at not in routers:
                self.fail("topology.server_at", "not a transit router of this graph", t.server_at, routers)
                return
            self.nodes.append("server")
            srv_rate = t.server_rate if t.server_rate is not None else t.rate
            self.links.append(_link("server", t.server_at,
                                    spec.model_copy(update={"delay": t.server_delay, "rate": srv_rate})))
            self.addresses.update(g.addresses)
            self.addresses["server"] = "10.255.0.1"

    def _access(self) -> tuple[LinkSpec, LinkSpec]:
        t = self.m.topology
        assert isinstance(t, (Dumbbell, Chain))
        return t.access, t.dst_access or t.access

    def _router(self, path: str, value: Optional[str], default: str) -> str:
        if value is None:
            return default
        if value not in self.routers:
            self.fail(path, f"not a router of this topology ({', '.join(self.routers)})", value, self.routers)
            return default
        return value

    def group_routers(self, where: str, src: Optional[str], dst: Optional[str], src_default: Optional[str] = None,
                      dst_default: Optional[str] = None) -> tuple[str, str]:
        """The routers a built-in topology's group attaches its source and destination hosts to."""
        s_r = self._router(f"{where}.src", src, src_default or self.routers[0])
        d_r = self._router(f"{where}.dst", dst, dst_default or self.routers[-1])
        if s_r == d_r:
            self.fail(f"{where}.dst", f"source and destination attach to the same router {s_r!r}", d_r)
        return s_r, d_r

    def _assign(self, where: str, network: Optional[str], hosts: list[str]) -> None:
        if network is None:
            return
        net = ipaddress.IPv4Network(network)
        usable = list(itertools.islice(net.hosts() if net.prefixlen < 31 else iter(net), len(hosts)))
        if len(usable) < len(hosts):
            self.fail(where, f"has room for {len(usable)} hosts, the group has {len(hosts)}", network)
            return
        for h, a in zip(hosts, usable):
            self.addresses[h] = str(a)

    def endpoints(self, where: str, name: str, count: int, src: Optional[str], dst: Optional[str],
                  src_default: Optional[str] = None, dst_default: Optional[str] = None,
                  src_network: Optional[str] = None, dst_network: Optional[str] = None,
                  per_host: int = 1) -> list[tuple[str, str]]:
        """Create hosts (built-in topologies) and return (src, dst) node names per connection;
        ``per_host`` consecutive connections share one host pair."""
        if not self.builtin and (src_network or dst_network):
            self.fail(f"{where}.{'dst_network' if dst_network else 'src_network'}",
                      "only for built-in topologies (use [addresses] with an explicit topology)", dst_network or src_network)
        if self.builtin:
            s_r, d_r = self.group_routers(where, src, dst, src_default, dst_default)
            acc, dacc = self._access()
            out = []
            for i in range(1, count // per_host + 1):
                s, d = f"{name}.s{i}", f"{name}.d{i}"
                self.nodes += [s, d]
                self.links.append(_link(s, s_r, acc))
                self.links.append(_link(d_r, d, dacc))
                out.append((s, d))
            self._assign(f"{where}.src_network", src_network, [s for s, _ in out])
            self._assign(f"{where}.dst_network", dst_network, [d for _, d in out])
            return [e for e in out for _ in range(per_host)]
        nodes = self.nodes
        ok = True
        for end, v in (("src", src), ("dst", dst)):
            if v is None:
                self.fail(f"{where}.{end}", "required with an explicit topology (a node name)")
                ok = False
            elif v not in nodes:
                self.fail(f"{where}.{end}", "unknown node", v, nodes)
                ok = False
        if ok and src == dst:
            self.fail(f"{where}.dst", "source and destination are the same node", dst)
        if not ok:
            return []
        return [(src, dst)] * count  # type: ignore[list-item]

    # -- TCP flows -------------------------------------------------------------

    def replica_groups(self) -> set[str]:
        """The flow groups written as core replicas (``SimConfig.replicas``): the trailing
        run of groups that :func:`replicable` accepts, when nothing else follows them in
        the configuration (no cross traffic, no workloads), so that the core's expansion
        (replicas after everything else) gives the same nodes, links, flows and apps in
        the same order as writing them out."""
        m = self.m
        if not self.builtin or m.cross or m.workloads:
            return set()
        out: set[str] = set()
        for g in reversed(m.flows):
            if not replicable(g):
                break
            out.add(g.name)
        return out

    def replica(self, where: str, g: FlowGroup, tcp: dict[str, Any], sink: dict[str, Any],
                startup: Optional[dict[str, Any]]) -> None:
        """Group ``g`` as one core replica: ``g.count`` copies of its connection, each
        with its own host pair (what :meth:`endpoints` and :meth:`app` write out)."""
        s_r, d_r = self.group_routers(where, g.src, g.dst)
        acc, dacc = self._access()
        rep: dict[str, Any] = {"name": g.name, "count": g.count, "src": s_r, "dst": d_r, "access": _access_link(acc)}
        if dacc is not acc:
            rep["dst_access"] = _access_link(dacc)
        if tcp:
            rep["tcp"] = dict(tcp)
        if sink:
            rep["sink"] = dict(sink)
        if startup is not None:
            rep["startup"] = dict(startup)
        a = g.app
        if isinstance(a, FtpApp):
            app: dict[str, Any] = {"kind": "ftp", "start_s": a.start, "stagger_s": a.stagger}
            if a.size is not None:
                app["bytes"] = a.size
            if a.start_jitter:
                app["start_jitter_s"] = a.start_jitter
            if a.stop is not None:
                app["stop_s"] = a.stop
            if a.duration is not None:
                app["duration_s"] = a.duration
            rep["app"] = app
        self.replicas.append(rep)

    def tcp_flows(self) -> None:
        m = self.m
        gateways_declared = list(m.gateways)
        compact = self.replica_groups()
        for g in m.flows:
            where = f"flows.{g.name}"
            if g.name in compact:
                tcp, sink, startup = self.connection_settings(where, g, gateways_declared)
                self.replica(where, g, tcp, sink, startup)
                continue
            per_host = g.conns_per_host or 1
            eps = self.endpoints(where, g.name, g.count, g.src, g.dst, src_network=g.src_network,
                                 dst_network=g.dst_network, per_host=per_host)
            tcp, sink, startup = self.connection_settings(where, g, gateways_declared)
            if isinstance(g.app, WebApp):
                self.web(where, g, eps, tcp, sink, startup)
                continue
            names = []
            for i, (s, d) in enumerate(eps, start=1):
                fname = f"{g.name}.{i}"
                names.append(fname)
                flow = _flow(fname, s, d, tcp, sink, startup)
                if g.session is not None:
                    flow["session"] = self.session(g, (i - 1) % per_host)
                self.flows.append(flow)
            if isinstance(g.app, SurgeApp) and names:
                # Each user's requests: a connection back from the client to the server,
                # its acks never delayed (the ack stands for the server's reply starting).
                req_sink = {k: v for k, v in sink.items() if k not in ("ack_policy", "reader")}
                req_sink["delack"] = False
                req_names = []
                for i, (s, d) in enumerate(eps, start=1):
                    rname = f"{g.name}.req.{i}"
                    req_names.append(rname)
                    self.flows.append(_flow(rname, d, s, tcp, req_sink, startup))
                self.apps.append(g.app.to_core(names, req_names))
            elif g.app is not None and names:
                self.app(where, g, names)

    def web_pages(self, where: str, a: WebApp) -> Optional[dict[str, Any]]:
        """The core's page fields (``pages`` or ``random_page``) of a Web app."""
        if a.html is not None:
            return {"pages": [{"html_bytes": a.html, "image_bytes": [a.image] * (a.images or 0)}]}
        if a.page_list is not None:
            return {"pages": [{"html_bytes": p.html, "image_bytes": list(p.images)} for p in a.page_list]}
        if a.har is not None:
            path = Path(a.har)
            if not path.is_absolute() and self.source and Path(self.source).is_file():
                path = Path(self.source).parent / path
            try:
                pages = pages_from_har(path)
            except HarError as e:
                self.fail(f"{where}.app.har", str(e), a.har)
                return None
            return {"pages": [{"html_bytes": h, "image_bytes": imgs} for h, imgs in pages]}
        r = a.random
        assert r is not None
        lo, hi = (r.images, r.images) if isinstance(r.images, int) else r.images
        return {"random_page": {"html": _size_dist(r.html), "image": _size_dist(r.image), "images_min": lo, "images_max": hi}}

    def web(self, where: str, g: FlowGroup, eps: list[tuple[str, str]], tcp: dict[str, Any], sink: dict[str, Any],
            startup: Optional[dict[str, Any]]) -> None:
        """A Web group: host pair i (server ``g.s<i>``, client ``g.d<i>``) gets the
        connections its pages need, flows ``g.<i>-<j>`` (server -> client), and the
        group is one ``web`` application."""
        a = g.app
        assert isinstance(a, WebApp)
        fields = self.web_pages(where, a)
        if fields is None or not eps:
            return
        if "pages" in fields:
            counts = [1 + len(p["image_bytes"]) for p in fields["pages"]]
            per_pair_objs = sum(counts[k % len(counts)] for k in range(a.pages))
        else:
            per_pair_objs = a.pages * (1 + fields["random_page"]["images_max"])
        if a.mode in ("seq", "conc"):
            m = per_pair_objs
        else:
            m = a.pages if a.idle_close is not None else 1
        pairs = []
        for i, (s, d) in enumerate(eps, start=1):
            conns = []
            for j in range(1, m + 1):
                fname = f"{g.name}.{i}-{j}"
                conns.append(fname)
                flow = _flow(fname, s, d, tcp, sink, startup)
                if g.session is not None:
                    # The pair's connections share its two hosts: one TCP session per
                    # pair (the server's stack groups them; thesis ch. 6).
                    flow["session"] = self.session(g, 0)
                self.flows.append(flow)
            pairs.append({"name": f"{g.name}.{i}", "conns": conns})
        app: dict[str, Any] = {
            "kind": "web",
            "pairs": pairs,
            "mode": a.mode,
            "n_pages": a.pages,
            "think_s": a.think,
            "server_think_s": a.server_think,
            "request_bytes": a.request,
            "start_s": a.start,
            "start_jitter_s": a.start_jitter,
            "ctl_rto_s": a.ctl_rto,
            **fields,
        }
        if a.parallel is not None:
            app["parallel"] = a.parallel
        if a.idle_close is not None:
            app["idle_close_s"] = a.idle_close
        self.apps.append(app)

    def connection_settings(self, where: str, g: Any, gateways_declared: list[str]
                            ) -> tuple[dict[str, Any], dict[str, Any], Optional[dict[str, Any]]]:
        """(tcp, sink, startup) of a flow group or workload: the scenario's [tcp] and
        [sink] overridden by the group's, checked (RTO bounds, ack rule)."""
        m = self.m
        tcp: dict[str, Any] = {}
        if m.tcp:
            tcp.update(m.tcp.to_core())
        if g.tcp:
            tcp.update(g.tcp.to_core())
        if g.variant:
            tcp["variant"] = g.variant
        self.rto_bounds(where, g, tcp)
        self.recovery_needs_sack(where, g, tcp)
        sink: dict[str, Any] = {}
        if m.sink:
            sink.update(m.sink.to_core())
        if g.sink:
            sink.update(g.sink.to_core())
        self.ack_rule(where, g, sink)
        return tcp, sink, self.startup(where, g, gateways_declared)

    # -- workloads (connections drawn per seed) ---------------------------------

    def node_set(self, where: str, value: Any) -> list[str]:
        if value == "stub_hosts":
            if self.graph is None:
                self.fail(where, "\"stub_hosts\" needs a transit_stub topology", value)
                return []
            return self.graph.stub_hosts()
        known = set(self.nodes)
        out = []
        for i, n in enumerate(value):
            if n not in known:
                self.fail(f"{where}[{i}]", "unknown node", n, self.nodes)
            else:
                out.append(n)
        return out

    def workloads(self, end_s: float) -> None:
        from . import workloads as wl

        declared = list(self.m.gateways)
        for w in self.m.workloads:
            where = f"workloads.{w.name}"
            tcp, sink, startup = self.connection_settings(where, w, declared)
            life = (w.lifetime.mean, w.lifetime.shape) if isinstance(w.lifetime, ParetoLifetime) else None
            if w.start >= end_s:
                self.fail(f"{where}.start", f"not before the end of the run ({end_s:g} s)", w.start)
                continue
            conns: list[tuple[str, str, str, float, Optional[float]]] = []
            if isinstance(w, PoissonFtpWorkload):
                clients = self.node_set(f"{where}.clients", w.clients)
                if w.src not in set(self.nodes):
                    self.fail(f"{where}.src", "unknown node", w.src, self.nodes)
                    continue
                if w.src in clients:
                    self.fail(f"{where}.clients", "contains the source node", w.src)
                    continue
                if not clients:
                    continue
                for i, (t, d, c) in enumerate(wl.poisson_connections(self.seed, w.name, end_s, w.interarrival,
                                                                     len(clients), life, w.start), start=1):
                    conns.append((f"{w.name}.{i}", w.src, clients[c], t, d))
            else:
                assert isinstance(w, PairsFtpWorkload)
                if isinstance(w.pairs, list):
                    pairs = []
                    for j, (a, b) in enumerate(w.pairs):
                        ok = True
                        for k, n in enumerate((a, b)):
                            if n not in set(self.nodes):
                                self.fail(f"{where}.pairs[{j}][{k}]", "unknown node", n, self.nodes)
                                ok = False
                        if ok and a == b:
                            self.fail(f"{where}.pairs[{j}]", "source and sink are the same node", a)
                            ok = False
                        if ok:
                            pairs.append((a, b))
                    if len(pairs) != len(w.pairs):
                        continue
                else:
                    hosts = self.node_set(f"{where}.pairs.among", w.pairs.among)
                    if not hosts:
                        continue
                    dom = [self.graph.domain[h] for h in hosts]
                    pairs = [(hosts[a], hosts[b]) for a, b in wl.random_pairs(self.seed, w.name, w.pairs.random, dom)]
                nth = [0] * len(pairs)
                for j, t, d in wl.pair_connections(self.seed, w.name, end_s, len(pairs), w.stagger, life, w.renew,
                                                   w.start):
                    nth[j] += 1
                    conns.append((f"{w.name}.{j + 1}.{nth[j]}", pairs[j][0], pairs[j][1], t, d))
            for fname, s, d, t, life_s in conns:
                self.flows.append(_flow(fname, s, d, tcp, sink, startup))
                app: dict[str, Any] = {"kind": "ftp", "flow": fname, "start_s": _clean(t)}
                if life_s is not None:
                    app["duration_s"] = _clean(life_s)
                self.apps.append(app)

    @staticmethod
    def session(g: FlowGroup, k: int) -> dict[str, Any]:
        """The core's ``session`` table of connection ``k`` (0-based) of a host pair."""
        o = g.session
        assert o is not None
        out: dict[str, Any] = {}
        if o.group is not None:
            out["group"] = o.group
        if o.scheduler is not None:
            out["scheduler"] = o.scheduler
        if o.weights is not None:
            out["weight"] = o.weights[k]
        if o.later_acks is not None:
            out["later_acks"] = o.later_acks
        if o.subsessions is not None:
            out["subsession"] = o.subsessions[k]
        if o.linger is not None:
            out["linger_s"] = o.linger
        if o.setwt:
            out["setwt"] = [{"at_s": _clean(c.at), "weight": c.weights[k]} for c in o.setwt]
        return out

    def rto_bounds(self, where: str, g: FlowGroup, tcp: dict[str, Any]) -> None:
        """minrto must not exceed maxrto (after merging [tcp], the group's tcp and the core's
        defaults): the core would clamp every RTO to contradictory bounds."""
        lo = tcp.get("minrto_s", TCP_DEFAULTS["minrto_s"])
        hi = tcp.get("maxrto_s", TCP_DEFAULTS["maxrto_s"])
        if lo > hi:
            def origin(key: str, name: str) -> str:
                if g.tcp is not None and getattr(g.tcp, name) is not None:
                    return f"{where}.tcp.{name}"
                if self.m.tcp is not None and getattr(self.m.tcp, name) is not None:
                    return f"tcp.{name}"
                return f"{name} (core default)"
            self.fail(origin("minrto_s", "minrto"),
                      f"minrto ({lo:g} s) is larger than maxrto ({hi:g} s, from {origin('maxrto_s', 'maxrto')}) "
                      f"for flow group {g.name!r}", lo)

    def recovery_needs_sack(self, where: str, g: FlowGroup, tcp: dict[str, Any]) -> None:
        """The SACK recovery kinds read SACK blocks, and PRR runs only in them (after
        merging [tcp] and the group's tcp): the core would reject the flow."""
        if tcp.get("profile") is not None:
            # What the profile fills for the fields left out comes from the core
            # (shortflow_core::profile), not from a copy of the profile here.
            from .native import resolve_tcp_profile

            resolved = resolve_tcp_profile(tcp)
            if resolved is None:
                return  # an unknown profile: the core's error names tcp.profile
            tcp = resolved
        rec = tcp.get("recovery") or {}
        kind = rec.get("kind", "ns2")

        def origin(name: str) -> str:
            if g.tcp is not None and getattr(g.tcp, name) is not None:
                return f"{where}.tcp.{name}"
            return f"tcp.{name}"
        if kind != "ns2" and not tcp.get("sack", False):
            self.fail(f"{origin('recovery')}.kind",
                      f"recovery {kind!r} needs SACK: set tcp.sack = true (flow group {g.name!r})", kind)
        if kind == "ns2" and rec.get("prr"):
            self.fail(f"{origin('recovery')}.prr",
                      "PRR needs a SACK recovery kind (recovery.kind = \"rfc6675\" or \"rack_tlp\")", True)
        if kind == "ns2" and rec.get("frto"):
            self.fail(f"{origin('recovery')}.frto",
                      "F-RTO needs a SACK recovery kind (recovery.kind = \"rfc6675\" or \"rack_tlp\")", True)
        if kind != "rack_tlp" and rec.get("dsack_reo_wnd"):
            self.fail(f"{origin('recovery')}.dsack_reo_wnd",
                      "the DSACK-driven reordering window is RACK's: set recovery.kind = \"rack_tlp\"", True)

    def ack_rule(self, where: str, g: FlowGroup, sink: dict[str, Any]) -> None:
        """``ack_policy`` and ``delack = true`` both choose the ack rule (after merging
        [sink] and the group's sink): giving both is a contradiction the core rejects."""
        if not (sink.get("delack") and "ack_policy" in sink):
            return

        def origin(name: str) -> str:
            if g.sink is not None and getattr(g.sink, name) is not None:
                return f"{where}.sink.{name}"
            return f"sink.{name}"
        self.fail(origin("delack"),
                  f"conflicts with ack_policy = {sink['ack_policy']['kind']!r} (from {origin('ack_policy')}) for flow "
                  f"group {g.name!r}: give the ack rule one way (delack = true means "
                  f"ack_policy = {{ kind = \"delayed\" }}); set delack = false or remove one of them", True)

    def startup(self, where: str, g: FlowGroup, declared: list[str]) -> Optional[dict[str, Any]]:
        st = g.startup
        if st is None:
            return None
        if isinstance(st, (FastStartStartup, FairShareStartup)):
            return st.to_core()
        if isinstance(st, LinuxStartup):
            return st.model_dump(exclude_none=True)
        if not isinstance(st, SpandStartup):
            return {"kind": st.kind}
        d = st.model_dump(exclude_none=True)
        gw = st.gateway
        if gw is None:
            if len(declared) > 1:
                self.fail(f"{where}.startup.gateway", f"several gateways are declared ({', '.join(declared)}): name one")
                gw = declared[0]
            else:
                gw = declared[0] if declared else DEFAULT_GATEWAY
        elif declared and gw not in declared:
            self.fail(f"{where}.startup.gateway", "unknown gateway; declare it as [gateways.NAME]", gw, declared)
        if not declared:
            # Implicit gateways are created by name: names differing only in case are a typo.
            for other, other_where in self.gateway_refs.items():
                if other != gw and other.lower() == gw.lower():
                    self.fail(f"{where}.startup.gateway",
                              f"differs from gateway {other!r} ({other_where}) only in case; gateway names are "
                              "case-sensitive and no [gateways] table declares them: use one spelling", gw)
        self.gateway_refs.setdefault(gw, f"{where}.startup.gateway")
        d["gateway"] = gw
        self.gateways_used.add(gw)
        return d

    def app(self, where: str, g: FlowGroup, names: list[str]) -> None:
        a = g.app
        if isinstance(a, RoundsApp):
            app: dict[str, Any] = {
                "kind": "rounds",
                "flows": names,
                "rounds": a.rounds,
                "size_bytes": a.size if a.size is not None else max(a.sizes or a.round_sizes or [0]),
                "jitter_s": a.jitter,
                "idle_s": a.idle,
                "first_center_s": a.first_center,
            }
            if a.period is not None:
                app["timing"] = {"kind": "fixed_period", "period_s": a.period}
            if a.sizes is not None:
                if len(a.sizes) != len(names):
                    self.fail(f"{where}.app.sizes", f"has {len(a.sizes)} entries but the group has {len(names)} connections", a.sizes)
                app["sizes_bytes"] = list(a.sizes)
            if a.round_sizes is not None:
                app["round_sizes_bytes"] = list(a.round_sizes)
            if a.round_jitters is not None:
                app["round_jitter_s"] = list(a.round_jitters)
            if a.page is not None:
                app["page"] = {"html_bytes": a.page.html, "request_gap_s": a.page.request_gap}
            self.apps.append(app)
        elif isinstance(a, FtpApp):
            after: list[str] = []
            groups = {f.name: f for f in self.m.flows}
            for k, gname in enumerate(a.start_after):
                other = groups.get(gname)
                if other is None:
                    self.fail(f"{where}.app.start_after[{k}]", "unknown flow group", gname, list(groups))
                elif other.name == g.name:
                    self.fail(f"{where}.app.start_after[{k}]", "a group cannot wait for its own first download", gname)
                elif not isinstance(other.app, (RoundsApp, FtpApp)) or (isinstance(other.app, FtpApp) and other.app.size is None):
                    self.fail(f"{where}.app.start_after[{k}]",
                              "that group has no download to wait for (give it a rounds app or an ftp app with a size)", gname)
                else:
                    after += [f"{other.name}.{i}" for i in range(1, other.count + 1)]
            for i, n in enumerate(names):
                app = {"kind": "ftp", "flow": n, "start_s": _clean(a.start + i * a.stagger)}
                if a.size is not None:
                    app["bytes"] = a.size
                if a.start_jitter:
                    app["start_jitter_s"] = a.start_jitter
                if after:
                    app["start_after"] = after
                if a.stop is not None:
                    app["stop_s"] = a.stop
                if a.duration is not None:
                    app["duration_s"] = a.duration
                self.apps.append(app)
        elif isinstance(a, MuxApp):
            for n in names:
                self.apps.append(a.to_core(n))
        elif isinstance(a, TelnetApp):
            for n in names:
                self.apps.append(
                    {"kind": "telnet", "flow": n, "start_s": a.start, "start_jitter_s": a.start_jitter, "interval_s": a.interval}
                )

    # -- cross traffic ---------------------------------------------------------

    def cross(self) -> None:
        for c in self.m.cross:
            where = f"cross.{c.name}"
            placements: list[tuple[str, Optional[str], Optional[str], Optional[str], Optional[str]]] = []
            if c.at is not None:
                if not self.builtin:
                    self.fail(f"{where}.at", "only for built-in topologies (use src/dst with an explicit topology)", c.at)
                    continue
                if c.src is not None or c.dst is not None:
                    self.fail(f"{where}.at", "give either 'at' (per hop) or src/dst, not both", c.at)
                    continue
                nhops = len(self.routers) - 1
                hops = list(range(1, nhops + 1)) if c.at == "each" else ([c.at] if isinstance(c.at, int) else list(c.at))
                for h in hops:
                    if not 1 <= h <= nhops:
                        self.fail(f"{where}.at", f"hop {h} does not exist: hops are 1..{nhops} (hop 1 = r1->r2)", c.at)
                        continue
                    placements.append((f"{c.name}.h{h}", None, None, self.routers[h - 1], self.routers[h]))
            else:
                placements.append((c.name, c.src, c.dst, None, None))
            for gname, src, dst, sd, dd in placements:
                eps = self.endpoints(where, gname, c.count, src, dst, sd, dd)
                for i, (s, d) in enumerate(eps, start=1):
                    fname = f"{gname}.{i}"
                    self.flows.append({"name": fname, "src": s, "dst": d, "transport": "udp"})
                    self.apps.append(self.cross_app(c, fname))

    @staticmethod
    def cross_app(c: Any, flow: str) -> dict[str, Any]:
        app: dict[str, Any]
        if isinstance(c, OnOffCross):
            app = {"kind": "on_off", "flow": flow, "dist": c.dist, "start_s": c.start, "start_jitter_s": c.start_jitter,
                   "rate_bps": c.rate}
            for src_name, dst_name in (("packet_size", "packet_size"), ("on", "on_s"), ("off", "off_s"), ("shape", "shape")):
                v = getattr(c, src_name)
                if v is not None:
                    app[dst_name] = v
        else:
            assert isinstance(c, CbrCross)
            app = {"kind": "cbr", "flow": flow, "start_s": c.start, "rate_bps": c.rate}
            if c.packet_size is not None:
                app["packet_size"] = c.packet_size
        if c.stop is not None:
            app["stop_s"] = c.stop
        return app

    # -- the rest --------------------------------------------------------------

    def gateways(self) -> list[dict[str, Any]]:
        out = []
        for name, gw in self.m.gateways.items():
            d: dict[str, Any] = {"name": name}
            if gw.window is not None:
                d["window_s"] = gw.window
            if gw.min_samples is not None:
                d["min_samples"] = gw.min_samples
            if gw.prefix_len is not None:
                d["prefix_len"] = gw.prefix_len
            out.append(d)
        for name in sorted(self.gateways_used - set(self.m.gateways)):
            out.append({"name": name})
        return out

    def elements(self) -> list[dict[str, Any]]:
        """Node elements: each on a node of the expanded topology, at most one per node."""
        out = []
        known = set(self.nodes)
        at: dict[str, int] = {}
        for i, e in enumerate(self.m.elements):
            where = f"elements[{i}].node"
            if e.node not in known:
                shown = ", ".join(self.nodes[:12]) + (", ..." if len(self.nodes) > 12 else "")
                self.fail(where, f"unknown node (nodes: {shown})", e.node, self.nodes)
            elif e.node in at:
                self.fail(where, f"this node already has an element (elements[{at[e.node]}]); at most one per node",
                          e.node)
            at.setdefault(e.node, i)
            d = e.model_dump(exclude_none=True)
            for short in ("interval", "ack_spacing"):
                if short in d:
                    d[f"{short}_s"] = d.pop(short)
            out.append(d)
        return out

    def trace(self) -> Optional[dict[str, Any]]:
        t = self.m.trace
        if t is None:
            return None
        names = []
        for ln in self.links:
            names.append(f"{ln['src']}->{ln['dst']}")
            if ln.get("duplex", True):
                names.append(f"{ln['dst']}->{ln['src']}")
        for i, ln in enumerate(t.links):
            if ln not in names:
                self.fail(f"trace.links[{i}]", "no such link (links are named 'src->dst')", ln, names)
        return t.model_dump()

    def final_addresses(self) -> dict[str, str]:
        out = dict(self.addresses)
        known = set(self.nodes)
        for name, addr in self.m.addresses.items():
            if name not in known:
                self.fail(f"addresses.{name}", "unknown node", name, self.nodes)
            out[name] = addr
        seen: dict[str, str] = {}
        for name, addr in out.items():
            if addr in seen:
                self.fail(f"addresses.{name}", f"address {addr} is also given to {seen[addr]!r}", addr)
            seen[addr] = name
        return dict(sorted(out.items()))

    def starts_before_end(self, end: float) -> None:
        """Nothing is silently left out of a run: an application that starts at or after
        the end of the run, or a path whose round trip is longer than the whole run (no
        transfer could finish), is an error."""
        what_end = "duration" if self.m.duration is not None else "max_duration"
        for path, t, what in _starts(self.m):
            if t >= end:
                self.fail(path, f"{what} at {t:g} s, not before the end of the run ({what_end} = {end:g} s)", t)
        if self.m.flows:
            rtt = _path_rtt(self.m)
            if rtt is not None and rtt[2] >= end:
                where, value, total = rtt
                self.fail(where, f"the path's round-trip propagation delay is {total:g} s, not shorter than the whole "
                                 f"run ({what_end} = {end:g} s): no transfer could finish", value)
        for c in self.m.cross:
            if c.stop is not None and c.stop <= c.start:
                self.fail(f"cross.{c.name}.stop", f"not after start ({c.start:g} s): the source would never send", c.stop)

    def duration(self) -> tuple[float, bool]:
        m = self.m
        finite = any(isinstance(g.app, (RoundsApp, WebApp, MuxApp)) or (isinstance(g.app, FtpApp) and g.app.size is not None)
                     for g in m.flows)
        stop = m.stop_when_done if m.stop_when_done is not None else m.duration is None
        if m.duration is None:
            if not finite and (self.flows or self.replicas or m.workloads):  # none at all: "no flows" says it
                self.fail("duration", "required: no application is finite (rounds, web, mux, or ftp with a size), so the run would never be done")
            return m.max_duration, True
        return m.duration, stop


def _starts(m: ScenarioModel) -> list[tuple[str, float, str]]:
    """(field path, time, what) of the first moment each application can send."""
    out = []
    for g in m.flows:
        a, where = g.app, f"flows.{g.name}.app"
        if isinstance(a, RoundsApp):
            out.append((f"{where}.first_center", a.first_center - a.jitter / 2, "its first round starts"))
        elif isinstance(a, FtpApp):
            out.append((f"{where}.start", a.start, "it starts"))
            if g.count > 1 and a.stagger > 0:
                out.append((f"{where}.stagger", a.start + (g.count - 1) * a.stagger, "its last connection starts"))
        elif isinstance(a, (TelnetApp, WebApp, SurgeApp)):
            out.append((f"{where}.start", a.start, "it starts"))
        elif isinstance(a, MuxApp):
            k = min(range(len(a.streams)), key=lambda i: a.streams[i].start)
            out.append((f"{where}.streams[{k}].start", a.streams[k].start, "its first object is requested"))
    for c in m.cross:
        out.append((f"cross.{c.name}.start", c.start, "it starts"))
    return out


def _path_rtt(m: ScenarioModel) -> Optional[tuple[str, float, float]]:
    """(field of the largest delay, its value, the round-trip propagation delay) of the
    built-in topologies' end-to-end path (access, every hop, destination access)."""
    t = m.topology
    if not isinstance(t, (Dumbbell, Chain)):
        return None
    delays = [("topology.access.delay", t.access.delay)]
    if t.dst_access is not None:
        delays.append(("topology.dst_access.delay", t.dst_access.delay))
    else:
        delays.append(("topology.access.delay", t.access.delay))
    if isinstance(t, Dumbbell):
        delays.append(("topology.bottleneck.delay", t.bottleneck.delay))
    elif t.hops is not None:
        delays += [(f"topology.hops[{i}].delay", h.delay) for i, h in enumerate(t.hops)]
    else:
        assert t.bottleneck is not None
        delays += [("topology.bottleneck.delay", t.bottleneck.delay)] * (t.routers - 1)
    where, value = max(delays, key=lambda d: d[1])
    return where, value, 2 * sum(d for _, d in delays)


def build_sim_config(m: ScenarioModel, seed: int, source: Optional[str] = None) -> dict[str, Any]:
    """The ``SimConfig`` dict for a validated scenario and a seed. Raises
    :class:`ScenarioError` listing every cross-reference problem (unknown node, router,
    gateway, link; an element on an unknown node or a second one on a node; mismatched
    list lengths; minrto > maxrto; ack_policy with delack = true; gateway names differing
    only in case), a seed outside 0 .. 2^63 - 1, or a scenario whose estimated memory exceeds
    the available memory (checked first, before anything is built)."""
    try:
        seed = check_seed(seed)
    except ScenarioError as e:
        raise e.with_source(source) from None
    _check_memory(m, source)
    b = _Builder(m, seed, source)
    b.topology()
    b.tcp_flows()
    b.cross()
    duration_s, stop = b.duration()
    b.workloads(duration_s)
    b.starts_before_end(duration_s)
    gws = b.gateways()
    elements = b.elements()
    trace = b.trace()
    addresses = b.final_addresses()
    if not b.flows and not b.replicas and not b.problems:
        zero = [g.name for g in m.flows if g.count == 0]
        if zero and len(zero) == len(m.flows) and not m.workloads:
            b.fail(f"flows.{zero[0]}.count", "the scenario has no flows: every flow group has count 0", 0)
        else:
            b.fail("flows", "the scenario has no flows")
    if b.problems:
        raise ScenarioError(source, b.problems)
    cfg: dict[str, Any] = {
        "seed": int(seed),
        "duration_s": duration_s,
        "stop_when_done": stop,
        "nodes": b.nodes,
        "links": b.links,
        "flows": b.flows,
        "apps": b.apps,
        "gateways": gws,
    }
    if b.replicas:
        cfg["replicas"] = b.replicas
    if elements:
        cfg["elements"] = elements
    if m.paths is not None:
        cfg["paths"] = m.paths.model_dump(exclude_none=True)
    if trace is not None:
        cfg["trace"] = trace
    if addresses:
        cfg["addresses"] = addresses
    return cfg
