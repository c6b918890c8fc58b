"""The /24 heuristic check of paper §5.2.1 (spec §4.2 step 5).

"For each client IP address, we use reverse DNS lookup to resolve its host
name, and take the last two segments of the host name as its domain name. We
then report how often client IP addresses sharing the most significant 24 bits
get resolved to different domain names."  The paper found 6,715 of 106,669
resolved /24s (6.3%) with more than one domain.

No live reverse DNS here: the check takes a precomputed ``ip → hostname`` map
(spec A30: lookups made today would not reproduce 1999 anyway).  The map file
is streamed and only entries for IPs that occur in the analysed log are kept,
so its size does not matter.  Accepted line formats (one entry per line,
``#`` comments, gzip allowed):

* ``1.2.3.4 host.example.com`` / ``1.2.3.4,host.example.com`` / tab separated,
  and ``1.2.3.4 [host.example.com]`` (dnsx ``-ptr -resp``);
* massdns simple/full text output: ``4.3.2.1.in-addr.arpa. PTR host.example.com.``
  or ``4.3.2.1.in-addr.arpa. 3600 IN PTR host.example.com.``;
* ``host``/``nslookup`` style: ``4.3.2.1.in-addr.arpa domain name pointer host.example.com.``.

Unresolved markers (``-``, ``NXDOMAIN``, ``SERVFAIL``, ``?``, empty, the IP
itself) mean "did not resolve".  If an IP has several entries, the first
resolved one wins (a real PTR lookup also returns one name in practice).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .clf import classify_host, format_ipv4, iter_lines

__all__ = ["PrefixCheck", "domain_of", "parse_hostname_line", "prefix_check"]

_UNRESOLVED = {"", "-", "nxdomain", "servfail", "refused", "timeout", "none", "n/a", "?", "unknown", "(null)", "*"}


def domain_of(hostname: str) -> str | None:
    """The paper's domain rule: last two dot-separated labels, lowercased,
    trailing dot removed (``www.cs.UTexas.edu.`` → ``utexas.edu``; ``a.b.co.uk``
    → ``co.uk``, deliberately).  ``None`` for an empty name."""
    labels = [x for x in hostname.strip().rstrip(".").lower().split(".") if x]
    if not labels:
        return None
    return ".".join(labels[-2:])


def _arpa_to_ip(name: str) -> int | None:
    n = name.rstrip(".").lower()
    if not n.endswith(".in-addr.arpa"):
        return None
    octets = n[: -len(".in-addr.arpa")].split(".")
    if len(octets) != 4:
        return None
    ip = classify_host(".".join(reversed(octets)).encode())
    return ip if ip >= 0 else None


def parse_hostname_line(line: str) -> tuple[int, str | None] | None:
    """Parse one map line → ``(ip, hostname or None if unresolved)``; ``None`` if unusable."""
    s = line.strip()
    if not s or s.startswith("#") or s.startswith(";"):
        return None
    low = s.lower()
    if "domain name pointer" in low:  # `host` output
        first = s.split()[0]
        ip = _arpa_to_ip(first)
        if ip is None:
            return None
        return ip, s.split()[-1].strip("[]\"'")
    toks = [t.strip("[]\"'") for t in s.replace(",", " ").replace(";", " ").split()]
    toks = [t for t in toks if t]
    if not toks:
        return None
    ip = classify_host(toks[0].encode("utf-8", "replace"))
    if ip < 0:
        ip = _arpa_to_ip(toks[0])  # type: ignore[assignment]
        if ip is None:
            return None
    upper = [t.upper() for t in toks]
    if "PTR" in upper:  # massdns: NAME [TTL IN] PTR TARGET
        i = upper.index("PTR")
        host = toks[i + 1] if i + 1 < len(toks) else ""
    elif len(toks) >= 2:
        host = toks[1]
    else:
        host = ""
    if host.lower() in _UNRESOLVED or classify_host(host.rstrip(".").encode("utf-8", "replace")) >= 0:
        return ip, None
    return ip, host


@dataclass
class PrefixCheck:
    """Result of the prefix-consistency check."""

    prefix: int
    ips: int  #: distinct IPv4 clients in the analysed requests
    resolved: int  #: of those, how many the map resolves
    prefixes: int  #: distinct /prefix networks among resolved IPs
    mixed: int  #: of those, how many map to >= 2 domains
    map_lines: int = 0
    map_entries: int = 0  #: lines that parsed as an entry (resolved or not)
    map_unparsed: int = 0
    map_not_in_log: int = 0  #: resolved entries for IPs that are not in the log
    #: mixed networks, sorted: ("a.b.c.0/24", #resolved IPs, sorted domains); capped
    mixed_examples: list[tuple[str, int, list[str]]] = field(default_factory=list)

    @property
    def resolved_pct(self) -> float:
        return 100.0 * self.resolved / self.ips if self.ips else 0.0

    @property
    def mixed_pct(self) -> float:
        return 100.0 * self.mixed / self.prefixes if self.prefixes else 0.0

    def as_dict(self) -> dict:
        return {
            "prefix": self.prefix,
            "ips": self.ips,
            "resolved": self.resolved,
            "resolved_pct": round(self.resolved_pct, 4),
            "prefixes": self.prefixes,
            "mixed_prefixes": self.mixed,
            "mixed_pct": round(self.mixed_pct, 4),
            "map_lines": self.map_lines,
            "map_entries": self.map_entries,
            "map_unparsed": self.map_unparsed,
            "map_not_in_log": self.map_not_in_log,
        }


def prefix_check(
    ip_bitmaps: dict[int, bytearray],
    hostnames: str | os.PathLike | object,
    prefix: int = 24,
    max_mixed_rows: int = 100_000,
) -> PrefixCheck:
    """Run the check.

    ``ip_bitmaps`` is the analyzer's set of client IPs: ``/24 → 32-byte bitmap``
    of the last octet (O(#/24) memory, not O(#IPs)).  ``hostnames`` is a path,
    ``-``, a binary stream or an iterable of lines in one of the module's formats.
    """
    shift = 32 - prefix
    n_ips = sum(int.from_bytes(b, "little").bit_count() for b in ip_bitmaps.values())
    seen: dict[int, bytearray] = {}  # resolved IPs already counted, same bitmap layout
    groups: dict[int, list] = {}  # network -> [n_resolved_ips, domain str | set of domains]
    res = PrefixCheck(prefix=prefix, ips=n_ips, resolved=0, prefixes=0, mixed=0)
    for raw in iter_lines(hostnames):  # type: ignore[arg-type]
        res.map_lines += 1
        ent = parse_hostname_line(raw.decode("utf-8", "replace"))
        if ent is None:
            if raw.strip() and not raw.lstrip().startswith((b"#", b";")):
                res.map_unparsed += 1
            continue
        res.map_entries += 1
        ip, host = ent
        if host is None:
            continue
        dom = domain_of(host)
        if dom is None:
            continue
        bm = ip_bitmaps.get(ip >> 8)
        o = ip & 255
        if bm is None or not (bm[o >> 3] >> (o & 7)) & 1:
            res.map_not_in_log += 1
            continue
        sb = seen.get(ip >> 8)
        if sb is None:
            sb = seen[ip >> 8] = bytearray(32)
        elif (sb[o >> 3] >> (o & 7)) & 1:
            continue  # duplicate entry for an IP: first one wins
        sb[o >> 3] |= 1 << (o & 7)
        res.resolved += 1
        net = ip >> shift
        g = groups.get(net)
        if g is None:
            groups[net] = [1, dom]
            continue
        g[0] += 1
        d = g[1]
        if isinstance(d, str):
            if d != dom:
                g[1] = {d, dom}
        else:
            d.add(dom)
    res.prefixes = len(groups)
    mixed = [(net, g) for net, g in groups.items() if not isinstance(g[1], str)]
    res.mixed = len(mixed)
    mixed.sort()
    res.mixed_examples = [
        (f"{format_ipv4((net << shift) & 0xFFFFFFFF)}/{prefix}", g[0], sorted(g[1]))
        for net, g in mixed[:max_mixed_rows]
    ]
    return res
