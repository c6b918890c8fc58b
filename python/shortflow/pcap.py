"""Classic libpcap files from a run's packet trace, with synthesized Ethernet, IPv4 and
TCP/UDP headers, so Wireshark, tshark, tcpdump and tcptrace can open a simulated capture.

What a capture shows (see also docs/scenarios.md, "Packet captures"):

* one link, both directions, at one trace event of the core: ``-`` (default) when the
  packet starts transmission, i.e. *after* the link's queue (dropped packets never
  appear), ``+`` when it arrives at the queue (before any drop), ``r`` when it is
  received at the far end, ``d`` when the queue drops it;
* addresses: a node listed in the configuration's ``addresses`` keeps that address; the
  others get ``10.0.0.1``, ``10.0.0.2``, ... in node order (node ``i`` gets ``10.0.0.0 +
  i + 1`` unless that address is taken by a listed node, then the next free one), so no
  host is given the network address 10.0.0.0. These are labels for the capture only;
  the core's own synthetic addresses (used to group destinations at a TCP/SPAND
  gateway) are unchanged. A node's MAC is ``02:00`` followed by its address;
* flow ``k`` uses source port ``10000 + k % 55536`` and destination port
  ``20000 + k // 55536`` (one port pair per flow, for any number of flows);
* TCP sequence space as in a real stream, both initial sequence numbers 0: with the
  ns-2 ``syn`` option the header-only packet 0 is a SYN (seq 0, it consumes one sequence
  number), the receiver's ack of it is exported as the SYN/ACK (seq 0, ack 1), and data
  packet ``n`` (n >= 1) carries bytes ``1 + (n - 1) * P`` onward (``P`` = the flow's
  ``packet_size``); without ``syn`` there is no handshake and packet ``n`` (n >= 0)
  carries bytes ``1 + n * P`` onward. Every segment but the SYN has the ACK flag; an
  ack with ns-2 ``ackno`` ``a`` acknowledges every byte of packets up to ``a``;
* every data segment carries its true payload of ``P`` bytes behind 40 synthesized
  IPv4+TCP header bytes, whatever ``header_size`` the scenario sets. That includes
  ns-2's header-less first packet (without ``syn``, packet 0 goes on the wire as ``P``
  bytes with no header: its timing in the capture is the simulator's, its length is
  ``P + 40``);
* no FIN: the simulated agents never close a connection, so none is invented;
* IPv4 and TCP/UDP checksums are correct for the synthesized (all-zero) payload; by
  default only the headers are captured (``snaplen``), like ``tcpdump -s 54``.
"""

from __future__ import annotations

import ipaddress
import struct
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Optional, Sequence

import polars as pl

__all__ = ["PcapWriter", "PcapngWriter", "node_ips", "write_pcap", "ip_checksum", "ip_tcp", "ports", "EVENTS"]

LINKTYPE_ETHERNET = 1
_ETH = 14
_IP = 20
_TCP = 20
_UDP = 8

_SYN, _PSH, _ACK = 0x02, 0x08, 0x10

#: The core's packet trace events a capture can be taken at, and where that is.
EVENTS = {
    "-": "transmission start, after the link's queue (default; dropped packets do not appear)",
    "+": "arrival at the link's queue, before any drop",
    "r": "reception at the far end of the link",
    "d": "drop by the link's queue (only the dropped packets)",
}

_FIRST_HOST = int(ipaddress.IPv4Address("10.0.0.1"))


def node_ips(nodes: Sequence[str], addresses: Optional[dict[str, str]] = None) -> list[bytes]:
    """The capture address of every node: ``addresses[name]`` when the configuration
    sets one, else ``10.0.0.1 + i`` (node index ``i``), skipping addresses already given
    to listed nodes."""
    addresses = addresses or {}
    taken = {int(ipaddress.IPv4Address(a)) for a in addresses.values()}
    out: list[bytes] = []
    nxt = _FIRST_HOST
    for i, name in enumerate(nodes):
        if name in addresses:
            out.append(ipaddress.IPv4Address(addresses[name]).packed)
            continue
        nxt = max(nxt, _FIRST_HOST + i)
        while nxt in taken:
            nxt += 1
        taken.add(nxt)
        out.append(nxt.to_bytes(4, "big"))
    return out


def ports(k: int) -> tuple[int, int]:
    """(source, destination) port of flow ``k``; distinct pairs for every flow."""
    return 10000 + k % 55536, 20000 + k // 55536


def _mac(ip: bytes) -> bytes:
    return b"\x02\x00" + ip


def ip_checksum(data: bytes) -> int:
    """Internet checksum (RFC 1071) of ``data``."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


class PcapWriter:
    """Writes a classic pcap stream: microsecond timestamps (or ``nanosecond``), little-
    endian (or ``big_endian``), Ethernet framing (or another ``linktype``)."""

    def __init__(self, f: BinaryIO, snaplen: int = 65535, linktype: int = LINKTYPE_ETHERNET,
                 nanosecond: bool = False, big_endian: bool = False) -> None:
        self.f = f
        self.snaplen = snaplen
        self.e = ">" if big_endian else "<"
        self.ns = nanosecond
        f.write(struct.pack(self.e + "IHHiIII", 0xA1B23C4D if nanosecond else 0xA1B2C3D4, 2, 4, 0, 0, snaplen,
                            linktype))

    def packet(self, time_ns: int, frame: bytes, orig_len: int) -> None:
        sec, rem = divmod(int(time_ns), 1_000_000_000)
        frac = rem if self.ns else rem // 1000
        data = frame[: self.snaplen]
        self.f.write(struct.pack(self.e + "IIII", sec, frac, len(data), orig_len))
        self.f.write(data)


class PcapngWriter:
    """Writes a pcapng stream: a section header, one interface description per
    ``(linktype, tsresol)`` of ``interfaces`` (``tsresol`` = the if_tsresol byte: 6 for
    microseconds, 9 for nanoseconds, 0x80 | k for 2**-k s) and Enhanced Packet Blocks.
    :meth:`section` starts a new section (interface numbers restart at 0)."""

    def __init__(self, f: BinaryIO, interfaces: Sequence[tuple[int, int]] = ((LINKTYPE_ETHERNET, 9),),
                 snaplen: int = 65535, big_endian: bool = False) -> None:
        self.f = f
        self.snaplen = snaplen
        self.section(interfaces, big_endian)

    def _block(self, btype: int, body: bytes) -> None:
        body += bytes(-len(body) % 4)
        n = len(body) + 12
        self.f.write(struct.pack(self.e + "II", btype, n) + body + struct.pack(self.e + "I", n))

    def section(self, interfaces: Sequence[tuple[int, int]], big_endian: bool = False) -> None:
        self.e = ">" if big_endian else "<"
        self.res: list[int] = []
        self._block(0x0A0D0D0A, struct.pack(self.e + "IHHq", 0x1A2B3C4D, 1, 0, -1))
        for link, tsresol in interfaces:
            opts = struct.pack(self.e + "HH", 9, 1) + bytes([tsresol, 0, 0, 0]) + struct.pack(self.e + "HH", 0, 0)
            self._block(1, struct.pack(self.e + "HHI", link, 0, self.snaplen) + opts)
            self.res.append(tsresol)

    def packet(self, time_ns: int, frame: bytes, orig_len: int, iface: int = 0) -> None:
        r = self.res[iface]
        t = int(time_ns)
        ticks = (t << (r & 0x7F)) // 1_000_000_000 if r & 0x80 else t * 10 ** r // 1_000_000_000
        data = frame[: self.snaplen]
        self._block(6, struct.pack(self.e + "IIIII", iface, ticks >> 32, ticks & 0xFFFFFFFF, len(data), orig_len)
                    + data)


def _ipv4(src: bytes, dst: bytes, proto: int, total_len: int, ident: int) -> bytes:
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total_len, ident & 0xFFFF, 0x4000, 64, proto, 0, src, dst)
    return hdr[:10] + struct.pack("!H", ip_checksum(hdr)) + hdr[12:]


def _l4_checksum(src: bytes, dst: bytes, proto: int, segment: bytes, seg_len: int) -> int:
    # The payload is all zeros, so it adds nothing to the sum beyond its length in the
    # pseudo-header: the checksum over the headers alone is exact.
    pseudo = src + dst + struct.pack("!BBH", 0, proto, seg_len)
    return ip_checksum(pseudo + segment)


def _tcp(src: bytes, dst: bytes, sport: int, dport: int, seq: int, ack: int, flags: int, payload_len: int,
         window: int = 65535, options: bytes = b"", payload: bytes = b"") -> bytes:
    """A TCP header (with ``options``, padded to 4 bytes) whose checksum covers
    ``payload`` followed by zeros up to ``payload_len`` bytes."""
    options += bytes(-len(options) % 4)
    hl = _TCP + len(options)
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, (hl // 4) << 4, flags,
                      window, 0, 0) + options
    c = _l4_checksum(src, dst, 6, hdr + payload, hl + payload_len)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:]


def ip_tcp(src: bytes, dst: bytes, sport: int, dport: int, seq: int, ack: int, flags: int, payload: bytes = b"",
           window: int = 65535, options: bytes = b"", ident: int = 0) -> bytes:
    """An IPv4 (4-byte addresses) or IPv6 (16-byte addresses) packet carrying one TCP
    segment, checksums correct."""
    tcp = _tcp(src, dst, sport, dport, seq, ack, flags, len(payload), window, options, payload) + payload
    if len(src) == 16:
        return struct.pack("!IHBB16s16s", 6 << 28, len(tcp), 6, 64, src, dst) + tcp
    return _ipv4(src, dst, 6, _IP + len(tcp), ident) + tcp


def _udp(src: bytes, dst: bytes, sport: int, dport: int, payload_len: int) -> bytes:
    hdr = struct.pack("!HHHH", sport, dport, _UDP + payload_len, 0)
    c = _l4_checksum(src, dst, 17, hdr, _UDP + payload_len) or 0xFFFF
    return hdr[:6] + struct.pack("!H", c)


class _TcpStream:
    """Sequence-space mapping of one simulated TCP connection (ns-2 packet numbers ->
    byte sequence numbers; both initial sequence numbers are 0)."""

    def __init__(self, packet_size: int, syn: bool) -> None:
        self.p = packet_size
        self.syn = syn
        self.data_seen = False  # a data packet past the SYN appeared in the capture

    def data(self, seqno: int) -> tuple[int, int, int, int]:
        """(seq, ack, flags, payload bytes) of data packet ``seqno``."""
        if self.syn and seqno == 0:
            return 0, 0, _SYN, 0
        self.data_seen = True
        first = seqno - 1 if self.syn else seqno  # index of the packet's payload
        return 1 + first * self.p, 1, _ACK | _PSH, self.p

    def ack(self, ackno: int) -> tuple[int, int, int]:
        """(seq, ack, flags) of the receiver's ack ``ackno``: the ack of the SYN, before
        any data was seen, is the SYN/ACK."""
        if self.syn:
            if ackno <= 0 and not self.data_seen:
                return 0, 1, _SYN | _ACK
            return 1, 1 + max(ackno, 0) * self.p, _ACK
        return 1, 1 + (ackno + 1) * self.p, _ACK


def write_pcap(
    path: str | Path,
    packets: pl.DataFrame,
    config: dict[str, Any],
    links: Iterable[int],
    event: str = "-",
    snaplen: Optional[int] = None,
) -> int:
    """Write the ``packets`` trace rows (core columns: time_ns, event, link, flow, kind,
    seqno, size, uid) of the given link indices and event letter (see :data:`EVENTS`)
    to a pcap file. ``config`` is the resolved core configuration of the run.
    ``snaplen`` None captures headers only. Returns the number of packets written."""
    if event not in EVENTS:
        raise ValueError(f"event {event!r}: one of {', '.join(repr(e) for e in EVENTS)}")
    from .replicas import expand_replicas

    config = expand_replicas(config)
    nodes = {n: i for i, n in enumerate(config["nodes"])}
    ips = node_ips(config["nodes"], config.get("addresses") or {})
    fl_info = []
    streams: list[Optional[_TcpStream]] = []
    for f in config["flows"]:
        tcp = f.get("tcp") or {}
        fl_info.append((nodes[f["src"]], nodes[f["dst"]]))
        streams.append(_TcpStream(int(tcp.get("packet_size", 1000)), bool(tcp.get("syn", True)))
                       if f.get("transport", "tcp") == "tcp" else None)
    link_set = set(int(x) for x in links)
    sel = packets.filter(pl.col("link").is_in(list(link_set)) & (pl.col("event") == ord(event))).sort(["time_ns", "uid"], maintain_order=True)
    headers_only = snaplen is None
    count = 0
    with open(path, "wb") as f:
        w = PcapWriter(f, snaplen=(_ETH + _IP + _TCP) if headers_only else snaplen)  # type: ignore[arg-type]
        for t, fl, kind, seqno, size, uid in sel.select("time_ns", "flow", "kind", "seqno", "size", "uid").iter_rows():
            s_node, d_node = fl_info[fl]
            sport, dport = ports(fl)
            if kind == 1:  # ack: receiver -> sender
                s_node, d_node = d_node, s_node
                sport, dport = dport, sport
            src, dst = ips[s_node], ips[d_node]
            st = streams[fl]
            if kind == 2 or st is None:
                total = max(int(size), _IP + _UDP)
                pay = total - _IP - _UDP
                l4 = _udp(src, dst, sport, dport, pay)
                ip = _ipv4(src, dst, 17, total, uid)
            else:
                if kind == 1:
                    seq, ack, flags = st.ack(int(seqno))
                    pay = 0
                else:
                    seq, ack, flags, pay = st.data(int(seqno))
                total = _IP + _TCP + pay
                l4 = _tcp(src, dst, sport, dport, seq, ack, flags, pay)
                ip = _ipv4(src, dst, 6, total, uid)
            frame = _mac(dst) + _mac(src) + b"\x08\x00" + ip + l4
            frame += bytes(max(0, min(pay, (snaplen or 0) - len(frame)))) if not headers_only else b""
            w.packet(t, frame, _ETH + total)
            count += 1
    return count
