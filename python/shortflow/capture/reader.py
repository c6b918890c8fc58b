"""Streaming reader of packet captures: the TCP segments of a pcap or pcapng file, decoded
in chunks into numpy columns (no Python object per packet is kept).

What it reads:

* classic pcap, microsecond (``a1b2c3d4``) and nanosecond (``a1b23c4d``) magic, either
  byte order; pcapng with any number of sections (each with its own byte order) and
  interfaces (each with its own link type, ``if_tsresol`` and ``if_tsoffset``): Enhanced,
  Simple and obsolete Packet Blocks; other blocks are skipped. A Simple Packet Block has
  no timestamp: it is given the time of the packet before it (counted in
  ``ReadStats.untimed``);
* link types: Ethernet (1; up to two 802.1Q/802.1ad tags), raw IP (101, 12, 14, 228,
  229), Linux cooked capture SLL (113) and SLL2 (276), BSD loopback (0, 108); frames of
  other link types are counted and skipped;
* IPv4 (options skipped; fragments counted and skipped) and IPv6 (hop-by-hop, routing and
  destination-option headers skipped; fragments counted and skipped);
* the payload length is the IP header's (total length minus headers), never the frame's:
  Ethernet padding and trailers do not count, and a frame cut short by the snap length
  still has its true length (``ReadStats.truncated_payload`` counts those; a frame cut
  inside its IP or TCP header is counted in ``truncated_header`` and skipped);
* TCP options: MSS, window scale, SACK-permitted and the SACK blocks (the highest right
  edge); the first bytes of the payload, to recognize an HTTP/1.x request line.

A damaged file (wrong magic, a record or block that runs past the end of the file or
claims an impossible length) raises :class:`CaptureError` naming the file and the byte
offset.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

import numpy as np

__all__ = ["CaptureError", "ReadStats", "Batch", "read_segments", "LINKTYPES", "HTTP_METHODS"]

#: Link types the reader decodes, and their names.
LINKTYPES = {0: "BSD loopback", 1: "Ethernet", 12: "raw IP", 14: "raw IP", 101: "raw IP", 108: "OpenBSD loopback",
             113: "Linux SLL", 228: "raw IPv4", 229: "raw IPv6", 276: "Linux SLL2"}

#: Request methods of an HTTP/1.x request line (the payload starts with one and a space).
HTTP_METHODS = (b"GET ", b"POST ", b"HEAD ", b"PUT ", b"DELETE ", b"OPTIONS ", b"TRACE ", b"CONNECT ", b"PATCH ")

_CHUNK = 1 << 24  # bytes read at a time
_MAX_RECORD = 1 << 24  # a record or block longer than this is a damaged file
_PAD = 64  # zero bytes after a chunk so that vectorized reads past a record stay in bounds


class CaptureError(ValueError):
    """A capture file that cannot be read; ``str(e)`` names the file and the byte offset."""

    def __init__(self, path: str | Path, offset: Optional[int], message: str) -> None:
        self.path = str(path)
        self.offset = offset
        where = f" at byte offset {offset}" if offset is not None else ""
        super().__init__(f"{path}{where}: {message}")


@dataclass
class ReadStats:
    """What the reader saw besides TCP segments."""

    format: str = ""
    frames: int = 0  #: every packet record/block
    tcp: int = 0  #: TCP segments returned
    non_ip: int = 0  #: frames carrying neither IPv4 nor IPv6 (ARP, LLDP, ...)
    non_tcp: dict[str, int] = field(default_factory=dict)  #: IP packets of other protocols, by name
    fragments: int = 0  #: IP fragments (not reassembled)
    truncated_header: int = 0  #: frames cut by the snap length inside the IP or TCP header
    truncated_payload: int = 0  #: TCP segments whose payload was not captured whole
    bad_header: int = 0  #: IP or TCP headers with impossible lengths
    unsupported_link: dict[int, int] = field(default_factory=dict)  #: frames of link types not decoded
    untimed: int = 0  #: Simple Packet Blocks (no timestamp)
    ipv6: int = 0  #: TCP segments over IPv6
    sections: int = 0  #: pcapng sections
    interfaces: int = 0  #: pcapng interfaces (1 for classic pcap)
    first_ns: Optional[int] = None
    last_ns: Optional[int] = None

    def as_dict(self) -> dict[str, object]:
        return {k: (dict(v) if isinstance(v, dict) else v) for k, v in self.__dict__.items()}


@dataclass
class Batch:
    """The TCP segments of one chunk, in file order (numpy columns of equal length)."""

    t_ns: np.ndarray  # int64
    src: np.ndarray  # int64 address id (see ``addresses``)
    dst: np.ndarray
    sport: np.ndarray  # int64
    dport: np.ndarray
    seq: np.ndarray  # int64, raw 32-bit
    ack: np.ndarray
    flags: np.ndarray  # int64 (FIN 1, SYN 2, RST 4, PSH 8, ACK 16, ...)
    win: np.ndarray  # int64, unscaled
    plen: np.ndarray  # int64, payload bytes (from the IP length)
    ipid: np.ndarray  # int64, IPv4 identification, -1 for IPv6
    csum: np.ndarray  # int64, TCP checksum field
    mss: np.ndarray  # int64, MSS option or -1
    wscale: np.ndarray  # int64, window scale option or -1
    sack_ok: np.ndarray  # bool
    sack_right: np.ndarray  # int64, highest SACK right edge (raw 32-bit) or -1
    request: np.ndarray  # bool, payload starts with an HTTP/1.x request method
    v6: np.ndarray  # bool

    def __len__(self) -> int:
        return int(self.t_ns.shape[0])


class _Addresses:
    """Address bytes (16, IPv4 mapped into ::ffff:0:0/96) -> small integer ids."""

    def __init__(self) -> None:
        self.ids: dict[bytes, int] = {}
        self.table: list[bytes] = []

    def map(self, raw: np.ndarray) -> np.ndarray:
        """ids of the rows of an (n, 16) uint8 array."""
        if raw.shape[0] == 0:
            return np.zeros(0, np.int64)
        v = np.ascontiguousarray(raw).view(np.dtype((np.void, 16))).ravel()
        uniq, inv = np.unique(v, return_inverse=True)
        lut = np.empty(len(uniq), np.int64)
        for i, u in enumerate(uniq):
            b = u.tobytes()
            j = self.ids.get(b)
            if j is None:
                j = self.ids[b] = len(self.table)
                self.table.append(b)
            lut[i] = j
        return lut[inv.ravel()]


# --- the file formats: record walks --------------------------------------------------------


class _Source:
    """A file read in chunks, with the absolute offset of the buffer's first byte."""

    def __init__(self, f: BinaryIO, path: str) -> None:
        self.f = f
        self.path = path
        self.buf = b""
        self.base = 0  # file offset of buf[0]
        self.eof = False

    def fill(self, need: int) -> bool:
        """Make at least ``need`` bytes available from buf[0]; False at the end of the file."""
        while len(self.buf) < need and not self.eof:
            more = self.f.read(max(_CHUNK, need - len(self.buf)))
            if not more:
                self.eof = True
                break
            self.buf += more
        return len(self.buf) >= need

    def consume(self, n: int) -> None:
        self.buf = self.buf[n:]
        self.base += n


@dataclass
class _Records:
    """Packet records of one chunk: where their data is in ``buf``, their lengths and times."""

    buf: bytes
    off: array  # data offset in buf
    caplen: array
    origlen: array
    t_ns: array
    link: array


_PCAP_MAGIC = {
    b"\xd4\xc3\xb2\xa1": ("<", 1000, "pcap (microseconds, little-endian)"),
    b"\xa1\xb2\xc3\xd4": (">", 1000, "pcap (microseconds, big-endian)"),
    b"\x4d\x3c\xb2\xa1": ("<", 1, "pcap (nanoseconds, little-endian)"),
    b"\xa1\xb2\x3c\x4d": (">", 1, "pcap (nanoseconds, big-endian)"),
}
_PCAPNG_SHB = b"\x0a\x0d\x0d\x0a"


def _walk_pcap(src: _Source, stats: ReadStats) -> Iterator[_Records]:
    hdr = src.buf[:24]
    endian, mult, name = _PCAP_MAGIC[hdr[:4]]
    stats.format = name
    stats.interfaces = 1
    _maj, _min, _tz, _sig, snaplen, linktype = struct.unpack(endian + "HHiIII", hdr[4:24])
    linktype &= 0xFFFF  # the upper bits carry the FCS length, not the type
    limit = min(max(snaplen, 262144), _MAX_RECORD)
    src.consume(24)
    rec = struct.Struct(endian + "IIII")
    while src.fill(16):
        buf, base = src.buf, src.base
        n = len(buf)
        offs, caps, origs, ts = array("q"), array("q"), array("q"), array("q")
        pos = 0
        unpack = rec.unpack_from
        while pos + 16 <= n:
            sec, frac, incl, orig = unpack(buf, pos)
            if incl > limit:
                raise CaptureError(src.path, base + pos, f"packet record claims {incl} captured bytes (the file's "
                                   f"snap length is {snaplen}): the file is damaged or not a capture")
            if pos + 16 + incl > n:
                break
            offs.append(pos + 16)
            caps.append(incl)
            origs.append(orig)
            ts.append(sec * 1_000_000_000 + frac * mult)
            pos += 16 + incl
        if pos == 0:  # one record does not fit in what is left: read more or fail
            if src.eof or not src.fill(n + 1):
                sec, frac, incl, orig = unpack(buf, 0) if n >= 16 else (0, 0, 0, 0)
                what = (f"the file ends inside a packet record ({incl} captured bytes announced, {n - 16} present)"
                        if n >= 16 else f"the file ends inside a packet record header ({n} of 16 bytes)")
                raise CaptureError(src.path, base, what + ": the capture is truncated")
            continue
        yield _Records(buf, offs, caps, origs, ts, array("q", [linktype]) * len(offs))
        stats.frames += len(offs)
        src.consume(pos)
    if src.buf:
        raise CaptureError(src.path, src.base, f"the file ends inside a packet record header ({len(src.buf)} of 16 "
                           "bytes): the capture is truncated")


@dataclass
class _Iface:
    link: int
    snaplen: int
    res_pow10: Optional[int]  # ticks per second = 10**res_pow10, or
    res_pow2: Optional[int]  # 2**res_pow2
    offset_s: int

    def ns(self, ticks: int) -> int:
        if self.res_pow10 is not None:
            k = self.res_pow10
            v = ticks * 10 ** (9 - k) if k <= 9 else ticks // 10 ** (k - 9)
        else:
            v = (ticks * 1_000_000_000) >> self.res_pow2  # type: ignore[operator]
        return v + self.offset_s * 1_000_000_000


def _idb_options(body: bytes, e: str, path: str, at: int) -> tuple[Optional[int], Optional[int], int]:
    """(pow10, pow2, offset_s) from an Interface Description Block's options."""
    p10: Optional[int] = 6
    p2: Optional[int] = None
    off = 0
    pos = 8
    while pos + 4 <= len(body):
        code, ln = struct.unpack_from(e + "HH", body, pos)
        if code == 0:
            break
        val = body[pos + 4:pos + 4 + ln]
        if len(val) < ln:
            raise CaptureError(path, at + pos, f"interface option {code} runs past its block")
        if code == 9 and ln >= 1:
            r = val[0]
            if r & 0x80:
                p10, p2 = None, r & 0x7F
            else:
                p10, p2 = r, None
            if (p10 is not None and p10 > 18) or (p2 is not None and p2 > 63):
                raise CaptureError(path, at + pos, f"if_tsresol = {r:#x}: not a usable time resolution")
        elif code == 14 and ln >= 8:
            off = struct.unpack_from(e + "q", val)[0]
        pos += 4 + ((ln + 3) & ~3)
    return p10, p2, off


def _walk_pcapng(src: _Source, stats: ReadStats) -> Iterator[_Records]:
    stats.format = "pcapng"
    e = "<"
    ifaces: list[_Iface] = []  # this section's interfaces
    all_links: list[int] = []  # global interface index -> link type
    first_global = 0  # global index of this section's interface 0
    last_t = 0
    while src.fill(12):
        buf, base = src.buf, src.base
        n = len(buf)
        offs, caps, origs, ts, links = array("q"), array("q"), array("q"), array("q"), array("q")
        pos = 0
        while pos + 12 <= n:
            btype_raw = buf[pos:pos + 4]
            if btype_raw == _PCAPNG_SHB:
                bom = buf[pos + 8:pos + 12]
                if bom == b"\x4d\x3c\x2b\x1a":
                    e = "<"
                elif bom == b"\x1a\x2b\x3c\x4d":
                    e = ">"
                else:
                    raise CaptureError(src.path, base + pos + 8, f"section header byte-order magic {bom.hex()} is "
                                       "not 1a2b3c4d in either byte order: not a pcapng file, or damaged")
            btype, blen = struct.unpack_from(e + "II", buf, pos)
            if blen < 12 or blen % 4 or blen > _MAX_RECORD:
                raise CaptureError(src.path, base + pos, f"pcapng block of type {btype:#x} claims a length of {blen} "
                                   "bytes (a multiple of 4, at least 12): the file is damaged")
            if pos + blen > n:
                break
            body = buf[pos + 8:pos + blen - 4]
            if struct.unpack_from(e + "I", buf, pos + blen - 4)[0] != blen:
                raise CaptureError(src.path, base + pos, f"pcapng block of type {btype:#x}: its trailing length "
                                   "differs from its leading length: the file is damaged")
            if btype == 0x0A0D0D0A:
                stats.sections += 1
                first_global = len(all_links)
                ifaces = []
            elif btype == 1:  # interface description
                if len(body) < 8:
                    raise CaptureError(src.path, base + pos, "interface description block shorter than 20 bytes")
                link, _res, snap = struct.unpack_from(e + "HHI", body, 0)
                p10, p2, toff = _idb_options(body, e, src.path, base + pos + 8)
                ifaces.append(_Iface(link, snap, p10, p2, toff))
                all_links.append(link)
                stats.interfaces += 1
            elif btype in (6, 2):  # enhanced / obsolete packet block
                if btype == 6:
                    if len(body) < 20:
                        raise CaptureError(src.path, base + pos, "enhanced packet block shorter than 32 bytes")
                    iface, hi, lo, cap, orig = struct.unpack_from(e + "IIIII", body, 0)
                    data_at = 20
                else:
                    if len(body) < 20:
                        raise CaptureError(src.path, base + pos, "packet block shorter than 32 bytes")
                    iface, _drops, hi, lo, cap, orig = struct.unpack_from(e + "HHIIII", body, 0)
                    data_at = 20
                if iface >= len(ifaces):
                    raise CaptureError(src.path, base + pos, f"packet block names interface {iface}, but the section "
                                       f"describes {len(ifaces)} interface(s)")
                if data_at + cap > len(body):
                    raise CaptureError(src.path, base + pos, f"packet block claims {cap} captured bytes but holds "
                                       f"{len(body) - data_at}: the file is damaged")
                last_t = ifaces[iface].ns((hi << 32) | lo)
                offs.append(pos + 8 + data_at)
                caps.append(cap)
                origs.append(orig)
                ts.append(last_t)
                links.append(all_links[first_global + iface])
            elif btype == 3:  # simple packet block: interface 0, no timestamp
                if not ifaces:
                    raise CaptureError(src.path, base + pos, "simple packet block before any interface description")
                (orig,) = struct.unpack_from(e + "I", body, 0)
                cap = min(orig, len(body) - 4, ifaces[0].snaplen or orig)
                offs.append(pos + 12)
                caps.append(cap)
                origs.append(orig)
                ts.append(last_t)
                links.append(all_links[first_global])
                stats.untimed += 1
            pos += blen
        if pos == 0:
            if src.eof or not src.fill(n + 1):
                if n >= 8:
                    blen = struct.unpack_from(e + "I", buf, 4)[0]
                    what = f"the file ends inside a pcapng block ({blen} bytes announced, {n} present)"
                else:
                    what = f"the file ends inside a pcapng block header ({n} of 12 bytes)"
                raise CaptureError(src.path, base, what + ": the capture is truncated")
            continue
        if offs:
            stats.frames += len(offs)
            yield _Records(buf, offs, caps, origs, ts, links)
        src.consume(pos)
    if src.buf:
        raise CaptureError(src.path, src.base, f"the file ends inside a pcapng block header ({len(src.buf)} of 12 "
                           "bytes): the capture is truncated")


# --- vectorized decoding ---------------------------------------------------------------------


class _View:
    """Big-endian reads at arrays of offsets into a zero-padded chunk."""

    def __init__(self, buf: bytes) -> None:
        self.b = np.frombuffer(buf + bytes(_PAD), np.uint8)
        self.last = len(self.b) - 9

    def u8(self, i: np.ndarray) -> np.ndarray:
        return self.b[np.clip(i, 0, self.last)].astype(np.int64)

    def u16(self, i: np.ndarray) -> np.ndarray:
        i = np.clip(i, 0, self.last)
        return (self.b[i].astype(np.int64) << 8) | self.b[i + 1]

    def u32(self, i: np.ndarray) -> np.ndarray:
        i = np.clip(i, 0, self.last)
        b = self.b
        return ((b[i].astype(np.int64) << 24) | (b[i + 1].astype(np.int64) << 16)
                | (b[i + 2].astype(np.int64) << 8) | b[i + 3])

    def bytes_at(self, i: np.ndarray, n: int) -> np.ndarray:
        """(len(i), n) uint8 array of the n bytes at each offset."""
        i = np.clip(i, 0, len(self.b) - n)
        return self.b[i[:, None] + np.arange(n)]


_ETH_VLAN = (0x8100, 0x88A8, 0x9100)
_PROTO_NAMES = {1: "ICMP", 2: "IGMP", 17: "UDP", 47: "GRE", 50: "ESP", 58: "ICMPv6", 132: "SCTP"}
_V4_PREFIX = np.array([0] * 10 + [0xFF, 0xFF], np.uint8)


def _decode(rec: _Records, stats: ReadStats, addrs: _Addresses) -> Optional[Batch]:
    n = len(rec.off)
    if n == 0:
        return None
    v = _View(rec.buf)
    off = np.frombuffer(rec.off, np.int64)
    cap = np.frombuffer(rec.caplen, np.int64)
    orig = np.frombuffer(rec.origlen, np.int64)
    t_ns = np.frombuffer(rec.t_ns, np.int64)
    link = np.frombuffer(rec.link, np.int64)
    end = off + cap  # first byte past the captured data
    # layer 3: offset and the IP version it announces (4, 6, or 0 for neither)
    l3 = np.full(n, -1, np.int64)
    ver = np.zeros(n, np.int64)
    eth = link == 1
    if eth.any():
        et = v.u16(off + 12)
        at = off + 14
        for _ in range(2):
            tag = np.isin(et, _ETH_VLAN) & eth
            et = np.where(tag, v.u16(at + 2), et)
            at = at + 4 * tag
        l3 = np.where(eth, at, l3)
        ver = np.where(eth & (et == 0x0800), 4, np.where(eth & (et == 0x86DD), 6, ver))
    sll = link == 113
    if sll.any():
        p = v.u16(off + 14)
        l3 = np.where(sll, off + 16, l3)
        ver = np.where(sll & (p == 0x0800), 4, np.where(sll & (p == 0x86DD), 6, ver))
    sll2 = link == 276
    if sll2.any():
        p = v.u16(off)
        l3 = np.where(sll2, off + 20, l3)
        ver = np.where(sll2 & (p == 0x0800), 4, np.where(sll2 & (p == 0x86DD), 6, ver))
    raw = np.isin(link, (12, 14, 101, 228, 229))
    if raw.any():
        nib = v.u8(off) >> 4
        l3 = np.where(raw, off, l3)
        ver = np.where(raw & (nib == 4), 4, np.where(raw & (nib == 6), 6, ver))
    loop = np.isin(link, (0, 108))
    if loop.any():
        fam_le = v.u8(off) | (v.u8(off + 1) << 8) | (v.u8(off + 2) << 16) | (v.u8(off + 3) << 24)
        fam_be = v.u32(off)
        fam = np.where(fam_le < 256, fam_le, fam_be)
        l3 = np.where(loop, off + 4, l3)
        ver = np.where(loop & (fam == 2), 4, np.where(loop & np.isin(fam, (24, 28, 30)), 6, ver))
    known = eth | sll | sll2 | raw | loop
    if not known.all():
        for lt, c in zip(*np.unique(link[~known], return_counts=True)):
            stats.unsupported_link[int(lt)] = stats.unsupported_link.get(int(lt), 0) + int(c)
    # a frame too short for its link header is short of the IP header too
    stats.non_ip += int((known & (ver == 0)).sum())
    ip = ver > 0
    hdr_missing = ip & (l3 + np.where(ver == 4, 20, 40) > end)
    stats.truncated_header += int(hdr_missing.sum())
    ip &= ~hdr_missing
    is4 = ip & (ver == 4)
    is6 = ip & (ver == 6)
    # IPv4
    b0 = v.u8(l3)
    ihl = (b0 & 0xF) * 4
    tot4 = v.u16(l3 + 2)
    frag4 = v.u16(l3 + 6) & 0x3FFF
    proto = np.where(is4, v.u8(l3 + 9), 0)
    # IPv6 and its extension headers
    nxt6 = v.u8(l3 + 6)
    l4 = np.where(is4, l3 + ihl, l3 + 40)
    frag6 = np.zeros(n, bool)
    for _ in range(4):
        ext = is6 & np.isin(nxt6, (0, 43, 60))
        if not ext.any():
            break
        nl = (v.u8(l4 + 1) + 1) * 8
        nxt6 = np.where(ext, v.u8(l4), nxt6)
        l4 = np.where(ext, l4 + nl, l4)
    frag6 = is6 & (nxt6 == 44)
    proto = np.where(is6, nxt6, proto)
    pay6 = v.u16(l3 + 4)
    # IP payload length (from the IP header; 0 = a TSO/jumbo frame: the frame's own length)
    ip_end = np.where(is4, l3 + np.where(tot4 > 0, tot4, orig - (l3 - off)),
                      l3 + 40 + np.where(pay6 > 0, pay6, orig - (l3 - off) - 40))
    bad_ip = is4 & ((ihl < 20) | ((tot4 > 0) & (tot4 < ihl)))
    frag = (is4 & (frag4 != 0)) | frag6
    stats.fragments += int((frag & ~bad_ip).sum())
    ok = ip & ~bad_ip & ~frag
    tcp = ok & (proto == 6)
    other = ok & (proto != 6)
    if other.any():
        for p, c in zip(*np.unique(proto[other], return_counts=True)):
            name = _PROTO_NAMES.get(int(p), f"IP protocol {int(p)}")
            stats.non_tcp[name] = stats.non_tcp.get(name, 0) + int(c)
    # TCP header
    tcp_missing = tcp & (l4 + 20 > end)
    stats.truncated_header += int(tcp_missing.sum())
    tcp &= ~tcp_missing
    doff = (v.u8(l4 + 12) >> 4) * 4
    plen = ip_end - l4 - doff
    bad_tcp = tcp & ((doff < 20) | (plen < 0))
    stats.bad_header += int(bad_ip.sum()) + int(bad_tcp.sum())
    tcp &= ~bad_tcp
    idx = np.nonzero(tcp)[0]
    if len(idx) == 0:
        return None
    l3, l4, doff, plen, end, is6_t = l3[idx], l4[idx], doff[idx], plen[idx], end[idx], is6[idx]
    stats.truncated_payload += int(((plen > 0) & (l4 + doff + plen > end)).sum())
    stats.ipv6 += int(is6_t.sum())
    # addresses: 16 bytes each, IPv4 mapped
    a_src = np.empty((len(idx), 16), np.uint8)
    a_dst = np.empty((len(idx), 16), np.uint8)
    a_src[:] = _V4_PREFIX.tolist() + [0, 0, 0, 0]
    a_dst[:] = a_src
    i4 = ~is6_t
    if i4.any():
        a_src[i4, 12:] = v.bytes_at(l3[i4] + 12, 4)
        a_dst[i4, 12:] = v.bytes_at(l3[i4] + 16, 4)
    if is6_t.any():
        a_src[is6_t] = v.bytes_at(l3[is6_t] + 8, 16)
        a_dst[is6_t] = v.bytes_at(l3[is6_t] + 24, 16)
    src_id = addrs.map(a_src)
    dst_id = addrs.map(a_dst)
    ipid = np.where(is6_t, -1, v.u16(l3 + 4))
    # options (only where the whole option area was captured)
    m = len(idx)
    mss = np.full(m, -1, np.int64)
    wscale = np.full(m, -1, np.int64)
    sack_ok = np.zeros(m, bool)
    sack_right = np.full(m, -1, np.int64)
    has = (doff > 20) & (l4 + doff <= end)
    act = np.nonzero(has)[0]
    pos = l4[act] + 20
    oend = l4[act] + doff[act]
    for _ in range(40):
        if len(act) == 0:
            break
        kind = v.u8(pos)
        live = (pos < oend) & (kind != 0)
        act, pos, oend, kind = act[live], pos[live], oend[live], kind[live]
        nop = kind == 1
        ln = np.where(nop, 1, v.u8(pos + 1))
        good = ln >= (np.where(nop, 1, 2))
        act, pos, oend, kind, ln = act[good], pos[good], oend[good], kind[good], ln[good]
        sel = (kind == 2) & (ln == 4)
        mss[act[sel]] = v.u16(pos[sel] + 2)
        sel = (kind == 3) & (ln == 3)
        wscale[act[sel]] = v.u8(pos[sel] + 2)
        sack_ok[act[kind == 4]] = True
        sel = (kind == 5) & (ln >= 10)
        if sel.any():
            sa, sp, sl = act[sel], pos[sel], ln[sel]
            for b in range(4):
                inb = (2 + 8 * b + 8) <= sl
                if not inb.any():
                    break
                r = v.u32(sp[inb] + 2 + 8 * b + 4)
                cur = sack_right[sa[inb]]
                # keep the highest edge in sequence space (mod 2**32) relative to the first block's
                first = sack_right[sa[inb]] < 0
                ahead = ((r - cur) & 0xFFFFFFFF) < 0x80000000
                sack_right[sa[inb]] = np.where(first | ahead, r, cur)
        pos = pos + ln
    # HTTP/1.x request line: the first (up to) 8 payload bytes
    pstart = l4 + doff
    avail = np.minimum(end - pstart, plen)
    head = v.bytes_at(pstart, 8)
    request = np.zeros(m, bool)
    for meth in HTTP_METHODS:
        ln = len(meth)
        pat = np.frombuffer(meth, np.uint8)
        request |= (avail >= ln) & (head[:, :ln] == pat).all(axis=1)
    t = t_ns[idx]
    if stats.first_ns is None:
        stats.first_ns = int(t[0])
    stats.last_ns = int(t[-1])
    stats.tcp += m
    return Batch(
        t_ns=t, src=src_id, dst=dst_id, sport=v.u16(l4), dport=v.u16(l4 + 2), seq=v.u32(l4 + 4), ack=v.u32(l4 + 8),
        flags=v.u8(l4 + 13), win=v.u16(l4 + 14), plen=plen, ipid=ipid, csum=v.u16(l4 + 16), mss=mss,
        wscale=wscale, sack_ok=sack_ok, sack_right=sack_right, request=request, v6=is6_t,
    )


def read_segments(path: str | Path, stats: Optional[ReadStats] = None,
                  addresses: Optional[_Addresses] = None) -> Iterator[Batch]:
    """The TCP segments of a pcap/pcapng file, in file order, one :class:`Batch` per chunk
    (about 16 MB of file). ``stats`` (filled in place) counts everything else;
    ``addresses.table[i]`` is the 16-byte address of id ``i``."""
    stats = stats if stats is not None else ReadStats()
    addresses = addresses if addresses is not None else _Addresses()
    p = Path(path)
    if p.is_dir():
        raise CaptureError(p, None, "is a directory, not a capture file")
    try:
        f = open(p, "rb")
    except FileNotFoundError:
        raise CaptureError(p, None, "no such file") from None
    except OSError as e:
        raise CaptureError(p, None, f"cannot be read: {e.strerror or e}") from None
    with f:
        src = _Source(f, str(p))
        src.fill(24)
        head = src.buf[:4]
        if not src.buf:
            raise CaptureError(p, None, "the file is empty: not a pcap or pcapng capture")
        if head in _PCAP_MAGIC:
            if len(src.buf) < 24:
                raise CaptureError(p, 0, f"the file ends inside the pcap file header ({len(src.buf)} of 24 bytes)")
            walk = _walk_pcap(src, stats)
        elif head == _PCAPNG_SHB:
            walk = _walk_pcapng(src, stats)
        else:
            raise CaptureError(p, 0, f"magic number {head.hex()} is neither pcap (a1b2c3d4, a1b23c4d, either byte "
                               "order) nor pcapng (0a0d0d0a)" + (" (a gzip file: gunzip it first)"
                                                                  if head[:2] == b"\x1f\x8b" else ""))
        for rec in walk:
            b = _decode(rec, stats, addresses)
            if b is not None:
                yield b
