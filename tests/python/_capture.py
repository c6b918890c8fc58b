"""Hand-built TCP captures with known ground truth, for the capture analyzer's tests:
a script of segments (times, sequence numbers, flags, windows, options) written as pcap
or pcapng with the package's own writers (shortflow.pcap), with the oddities real
captures have (link types, VLAN tags, Ethernet padding and trailers, IPv6, other
protocols, duplicate frames, a short snap length)."""

from __future__ import annotations

import io
import ipaddress
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from shortflow.pcap import PcapngWriter, PcapWriter, ip_tcp

SYN, ACK, FIN, PSH, RST = 0x02, 0x10, 0x01, 0x08, 0x04
MS = 1_000_000  # ns


def addr(text: str) -> bytes:
    return ipaddress.ip_address(text).packed


def opt_mss(v: int) -> bytes:
    return struct.pack("!BBH", 2, 4, v)


def opt_ws(v: int) -> bytes:
    return bytes([1, 3, 3, v])


def opt_sack(*blocks: tuple[int, int]) -> bytes:
    return bytes([1, 1, 5, 2 + 8 * len(blocks)]) + b"".join(struct.pack("!II", a & 0xFFFFFFFF, b & 0xFFFFFFFF)
                                                           for a, b in blocks)


@dataclass
class Frame:
    t: int
    l3: bytes  # the IP packet
    extra: str = "tcp"  # tcp | other (not TCP: written as is)


@dataclass
class Conn:
    """One TCP connection of a script; sequence numbers are relative to each side's ISN
    (the SYN is 0, the first data byte 1)."""

    script: "Script"
    client: bytes
    cport: int
    server: bytes
    sport: int
    c_isn: int = 1000
    s_isn: int = 5_000_000
    mss: int = 1000
    ident: dict[str, int] = field(default_factory=lambda: {"c": 1, "s": 1})

    def _emit(self, t: int, side: str, seq: int, ack: int, flags: int, payload: bytes, window: int,
              options: bytes) -> None:
        if side == "c":
            src, dst, sp, dp, isn, peer = self.client, self.server, self.cport, self.sport, self.c_isn, self.s_isn
        else:
            src, dst, sp, dp, isn, peer = self.server, self.client, self.sport, self.cport, self.s_isn, self.c_isn
        self.ident[side] += 1
        pkt = ip_tcp(src, dst, sp, dp, isn + seq, peer + ack if flags & ACK else 0, flags, payload, window, options,
                     self.ident[side])
        self.script.frames.append(Frame(t, pkt))

    def handshake(self, t: int, rtt: int, wscale: Optional[tuple[int, int]] = None, window: int = 65535,
                  sack: bool = False) -> int:
        """SYN at t, SYN/ACK at t + rtt/2, ACK at t + rtt (capture at the middle of the path
        sees each half); returns the time of the ACK."""
        ws_c = opt_ws(wscale[0]) if wscale else b""
        ws_s = opt_ws(wscale[1]) if wscale else b""
        so = bytes([4, 2]) if sack else b""
        self._emit(t, "c", 0, 0, SYN, b"", window, opt_mss(self.mss) + ws_c + so)
        self._emit(t + rtt // 2, "s", 0, 1, SYN | ACK, b"", window, opt_mss(self.mss) + ws_s + so)
        self._emit(t + rtt, "c", 1, 1, ACK, b"", window, b"")
        return t + rtt

    def data(self, t: int, side: str, seq: int, size: int, ack: int = 1, window: int = 65535,
             payload: Optional[bytes] = None, flags: int = ACK | PSH) -> None:
        body = payload if payload is not None else bytes(size)
        assert len(body) == size
        self._emit(t, side, seq, ack, flags, body, window, b"")

    def ack(self, t: int, side: str, ack: int, seq: int = 1, window: int = 65535, options: bytes = b"",
            flags: int = ACK) -> None:
        self._emit(t, side, seq, ack, flags, b"", window, options)


@dataclass
class Script:
    frames: list[Frame] = field(default_factory=list)

    def conn(self, client: str = "10.1.0.2", cport: int = 40000, server: str = "10.9.0.1", sport: int = 80,
             **kw: int) -> Conn:
        return Conn(self, addr(client), cport, addr(server), sport, **kw)

    def other(self, t: int, l3: bytes) -> None:
        self.frames.append(Frame(t, l3, "other"))

    def write(self, path: Path, fmt: str = "pcap", link: str = "eth", vlan: int = 0, pad: bool = False,
              trailer: bytes = b"", dup_ns: Optional[int] = None, snaplen: int = 65535, drop: tuple[int, ...] = (),
              non_ip: tuple[int, ...] = ()) -> int:
        """Write the frames (sorted by time; ``drop`` lists frame indices left out) and
        return how many were written. ``link``: eth, raw, sll, sll2; ``vlan``: that many
        802.1Q tags; ``pad``: Ethernet frames padded to 60 bytes; ``trailer``: bytes after
        every Ethernet frame; ``dup_ns``: every frame written twice, that far apart;
        ``non_ip``: indices after which an ARP frame is written (Ethernet only)."""
        buf = io.BytesIO()
        linktype = {"eth": 1, "raw": 101, "sll": 113, "sll2": 276}[link]
        if fmt == "pcap":
            w = PcapWriter(buf, snaplen=snaplen, linktype=linktype)
        elif fmt == "pcap-ns-be":
            w = PcapWriter(buf, snaplen=snaplen, linktype=linktype, nanosecond=True, big_endian=True)
        elif fmt == "pcapng":
            w = PcapngWriter(buf, interfaces=[(linktype, 9)], snaplen=snaplen)
        else:
            raise ValueError(fmt)
        order = sorted(range(len(self.frames)), key=lambda i: self.frames[i].t)
        n = 0
        for k, i in enumerate(order):
            if i in drop:
                continue
            fr = self.frames[i]
            frame = self._link(fr.l3, link, vlan, pad, trailer)
            times = [fr.t] if dup_ns is None else [fr.t, fr.t + dup_ns]
            for t in times:
                w.packet(t, frame, len(frame))
                n += 1
            if i in non_ip and link == "eth":
                arp = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x06" + bytes(28) + bytes(18)
                w.packet(fr.t, arp, len(arp))
                n += 1
        path.write_bytes(buf.getvalue())
        return n

    @staticmethod
    def _link(l3: bytes, link: str, vlan: int, pad: bool, trailer: bytes) -> bytes:
        et = b"\x86\xdd" if l3[0] >> 4 == 6 else b"\x08\x00"
        if link == "raw":
            return l3
        if link == "sll":
            return struct.pack("!HHH8s", 0, 1, 6, b"\x02\x00\x00\x00\x00\x01\x00\x00") + et + l3
        if link == "sll2":
            return et + b"\x00\x00" + struct.pack("!IHBB8s", 2, 1, 0, 6, b"\x02\x00\x00\x00\x00\x01\x00\x00") + l3
        head = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01"
        for v in range(vlan):
            head += b"\x81\x00" + struct.pack("!H", 100 + v)
        frame = head + et + l3
        if pad and len(frame) < 60:
            frame += bytes(60 - len(frame))
        return frame + trailer


def udp_packet(src: str, dst: str) -> bytes:
    s, d = addr(src), addr(dst)
    udp = struct.pack("!HHHH", 5353, 5353, 12, 0) + b"abcd"
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 7, 0, 64, 17, 0, s, d) + udp


def icmp_packet(src: str, dst: str) -> bytes:
    s, d = addr(src), addr(dst)
    icmp = b"\x08\x00\x00\x00\x00\x01\x00\x01"
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 8, 0, 64, 1, 0, s, d) + icmp
