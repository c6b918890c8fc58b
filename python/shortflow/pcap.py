"""Classic libpcap files from a run's packet trace, with synthesized Ethernet, IPv4 and
TCP/UDP headers, so Wireshark, tcpdump and tcptrace can open a simulated capture.

* node ``i`` (index in the configuration's ``nodes``) has the address the core gives it:
  the configuration's ``addresses`` entry, else ``10.x.y.z`` with ``x.y.z`` = ``i`` (so
  ``10.0.x.y`` for the first 65536 nodes); its MAC is ``02:00:00:x:y:z``;
* flow ``k`` uses source port ``10000 + k`` and destination port ``20000 + k``;
* TCP ``seq`` = seqno x packet size (bytes), acks carry ``ack`` = (ackno + 1) x packet size;
  a data packet without payload and seqno 0 is marked SYN (ns-2's ``syn_``);
* IPv4 and TCP/UDP checksums are correct for the synthesized (all-zero) payload; by
  default only the headers are captured (``snaplen``), like ``tcpdump -s 54``.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Optional

import polars as pl

__all__ = ["PcapWriter", "node_ip", "write_pcap", "ip_checksum"]

LINKTYPE_ETHERNET = 1
_ETH = 14
_IP = 20
_TCP = 20
_UDP = 8


def node_ip(i: int, addresses: Optional[dict[str, str]] = None, name: Optional[str] = None) -> bytes:
    """The IPv4 address the core gives node ``i``: ``addresses[name]`` when the
    configuration sets one, else 10.x.y.z with x.y.z = ``i`` (so 10.0.x.y below 65536)."""
    if addresses and name in addresses:
        return bytes(int(p) for p in addresses[name].split("."))
    a = (10 << 24) | (i & 0xFFFFFF)
    return a.to_bytes(4, "big")


def _mac(i: int) -> bytes:
    return bytes([0x02, 0, 0, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF])


def ip_checksum(data: bytes) -> int:
    """Internet checksum (RFC 1071) of ``data``."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


class PcapWriter:
    """Writes a classic (microsecond) pcap stream with Ethernet framing."""

    def __init__(self, f: BinaryIO, snaplen: int = 65535) -> None:
        self.f = f
        self.snaplen = snaplen
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET))

    def packet(self, time_ns: int, frame: bytes, orig_len: int) -> None:
        sec, rem = divmod(int(time_ns), 1_000_000_000)
        usec = rem // 1000
        data = frame[: self.snaplen]
        self.f.write(struct.pack("<IIII", sec, usec, len(data), orig_len))
        self.f.write(data)


def _ipv4(src: bytes, dst: bytes, proto: int, total_len: int, ident: int) -> bytes:
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total_len, ident & 0xFFFF, 0x4000, 64, proto, 0, src, dst)
    return hdr[:10] + struct.pack("!H", ip_checksum(hdr)) + hdr[12:]


def _l4_checksum(src: bytes, dst: bytes, proto: int, segment: bytes, seg_len: int) -> int:
    # The payload is all zeros, so it adds nothing to the sum beyond its length in the
    # pseudo-header: the checksum over the headers alone is exact.
    pseudo = src + dst + struct.pack("!BBH", 0, proto, seg_len)
    return ip_checksum(pseudo + segment)


def _tcp(src: bytes, dst: bytes, sport: int, dport: int, seq: int, ack: int, flags: int, payload_len: int) -> bytes:
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags, 65535, 0, 0)
    c = _l4_checksum(src, dst, 6, hdr, _TCP + payload_len)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:]


def _udp(src: bytes, dst: bytes, sport: int, dport: int, payload_len: int) -> bytes:
    hdr = struct.pack("!HHHH", sport, dport, _UDP + payload_len, 0)
    c = _l4_checksum(src, dst, 17, hdr, _UDP + payload_len) or 0xFFFF
    return hdr[:6] + struct.pack("!H", c)


def write_pcap(
    path: str | Path,
    packets: pl.DataFrame,
    config: dict[str, Any],
    links: Iterable[int],
    event: str = "-",
    snaplen: Optional[int] = None,
) -> int:
    """Write the ``packets`` trace rows (core columns: time_ns, event, link, flow, kind,
    seqno, size, uid) of the given link indices and event letter to a pcap file.
    ``snaplen`` None captures headers only. Returns the number of packets written."""
    nodes = {n: i for i, n in enumerate(config["nodes"])}
    addresses = config.get("addresses") or {}
    ips = [node_ip(i, addresses, n) for i, n in enumerate(config["nodes"])]
    flows = config["flows"]
    fl_info = []
    for k, f in enumerate(flows):
        tcp = f.get("tcp") or {}
        fl_info.append((nodes[f["src"]], nodes[f["dst"]], int(tcp.get("packet_size", 1000)), int(tcp.get("header_size", 40))))
    link_set = set(int(x) for x in links)
    sel = packets.filter(pl.col("link").is_in(list(link_set)) & (pl.col("event") == ord(event))).sort(["time_ns", "uid"], maintain_order=True)
    headers_only = snaplen is None
    count = 0
    with open(path, "wb") as f:
        w = PcapWriter(f, snaplen=(_ETH + _IP + _TCP) if headers_only else snaplen)  # type: ignore[arg-type]
        for t, fl, kind, seqno, size, uid in sel.select("time_ns", "flow", "kind", "seqno", "size", "uid").iter_rows():
            s_node, d_node, psize, hsize = fl_info[fl]
            sport, dport = 10000 + fl, 20000 + fl
            if kind == 1:  # ack: receiver -> sender
                src, dst = ips[d_node], ips[s_node]
                smac, dmac = _mac(d_node), _mac(s_node)
                sport, dport = dport, sport
            else:
                src, dst = ips[s_node], ips[d_node]
                smac, dmac = _mac(s_node), _mac(d_node)
            if kind == 2:
                total = max(int(size), _IP + _UDP)
                pay = total - _IP - _UDP
                l4 = _udp(src, dst, sport, dport, pay)
                ip = _ipv4(src, dst, 17, total, uid)
            else:
                total = max(int(size), _IP + _TCP)
                pay = total - _IP - _TCP
                if kind == 1:
                    l4 = _tcp(src, dst, sport, dport, 0, (int(seqno) + 1) * psize, 0x10, pay)
                else:
                    flags = 0x02 if (pay == 0 and seqno == 0) else 0x18
                    l4 = _tcp(src, dst, sport, dport, int(seqno) * psize, 0 if flags == 0x02 else 1, flags, pay)
                ip = _ipv4(src, dst, 6, total, uid)
            frame = dmac + smac + b"\x08\x00" + ip + l4
            frame += bytes(max(0, min(pay, (snaplen or 0) - len(frame)))) if not headers_only else b""
            w.packet(t, frame, _ETH + total)
            count += 1
    return count
