"""TCP analysis of a capture: per connection (bytes, retransmissions and their kinds,
handshake RTT, requests, windows, capture loss) and per client host (throughput against
the number of concurrent connections, loss epochs and the effective backoff), after the
Olympics-trace study of the thesis' ch. 4 (spec ``thesis-http-session.md`` A.5).

Definitions (also in ``docs/pcap.md``):

* **connection**: a 4-tuple (addresses, ports; IPv4 or IPv6). A SYN on a 4-tuple whose
  connection was closed (FIN/RST) or had another initial sequence number starts a new
  connection. The **server** is the side with a port given by ``server_ports``; else the
  receiver of the SYN (the sender of the SYN/ACK); else, without a handshake, the side
  with the lower port. Its peer is the **client**.
* **capture duplicates**: a frame that repeats the previous frame of its connection and
  direction exactly -- same IPv4 identification (IPv6 has none), sequence and
  acknowledgment numbers, flags, window, payload length and TCP checksum -- with no frame
  of the other direction in between and at most ``dup_window_s`` (10 ms) after it, is the
  same frame captured twice: it is counted (``dup_frames``) and otherwise ignored.
* **bytes**: ``data_bytes`` counts every payload byte, retransmissions included
  (tcptrace's "actual data bytes"); ``unique_bytes`` counts each sequence number once:
  the size of the union of the payload ranges seen (tcptrace's "unique bytes sent", which
  is data bytes minus the bytes tcptrace counts as retransmitted).
* **retransmissions** (``rexmt_pkts``) follow **tshark's** ``tcp.analysis.retransmission``
  (Wireshark 4.0): a segment with payload, SYN or FIN whose sequence number is below the
  highest sequence number sent so far in its direction (a keep-alive excluded), and that
  is not *out of order* (within max(initial RTT, 3 ms) of the highest segment, not ending
  at it). That includes fast and spurious retransmissions. tcptrace counts differently
  (``tt_rexmt_pkts``: segments carrying any byte seen before): a segment lost *before*
  the capture point and resent is a retransmission for tshark and us, not for tcptrace.
* **loss-recovery kind** of each resent data segment (tshark's or tcptrace's
  retransmissions; a resent SYN is a timeout) -- the thesis' Table 4.1: *fast* when it
  follows the 3rd duplicate ACK for its sequence number within half the handshake RTT
  (20 ms without one: the capture is assumed near the sender, like the thesis' server
  trace), or it repairs the next
  hole after a partial ACK in fast recovery; *timeout* when it resends the first
  unacknowledged byte without that (a repeat with no ACK progress in between is another
  timeout: the RTO backed off, ``max_backoff`` counts the run); *slow-start* for any other
  resend before the data outstanding at the timeout is acknowledged. A *loss event* is a
  fast retransmission that starts a recovery, or a first timeout.
* **Reno emulation** (as the thesis' TCP emulation engine): cwnd starts at the first
  flight, grows by one MSS per new ACK below ssthresh and by MSS*MSS/cwnd above it; a loss
  event sets ssthresh to half the outstanding data (at least 2 MSS) and cwnd to ssthresh
  (fast) or one MSS (timeout). Each first transmission counts as sent in slow start or in
  congestion avoidance by that state.
* **outstanding data** (the effective window): highest sequence number sent minus the
  highest cumulative ACK, after each data segment; ``rwnd`` is the receiver's advertised
  window, scaled by the window-scale options when both SYNs were captured with one (else
  unscaled: ``wscale_known`` false). A sender is **receiver-window limited** from a data
  segment after which less than one MSS of the advertised window is free until an ACK
  opens a full MSS again (``rwnd_limited_events``, ``rwnd_limited_s``).
* **capture loss**: bytes below the receiver's highest cumulative ACK that no captured
  segment carried: the receiver had them, the capture missed them and they were never
  seen retransmitted (``capture_lost_segments`` counts the holes).
* **requests**: client segments whose payload starts with an HTTP/1.x method and a space
  (first transmissions only; needs the first payload bytes in the snap length).
* **per client** (server->client data): periods between connection opens (first packet)
  and closes (first FIN or RST, or the end of the capture) with a constant number n of
  open connections; throughput = bytes newly acknowledged by the client during the period
  / its length, periods with at least 5 KB; the Pearson correlation of (throughput, n)
  for hosts with at least 10 such periods (Fig. 4.5). A **loss epoch** starts at a loss
  event of any of the host's open connections: each open connection's outstanding data
  is its window; the epoch ends when all of it is acknowledged (or its connection
  closed); m of the n connections had a loss event in it (Figs. 4.6, 4.7).
"""

from __future__ import annotations

import bisect
from array import array
import ipaddress
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

import numpy as np
import polars as pl

from . import DUP_WINDOW_S
from .reader import ReadStats, _Addresses, read_segments

__all__ = ["Analysis", "analyze_capture", "DIR_COLUMNS", "DUP_WINDOW_S", "MIN_PERIOD_BYTES", "MIN_PERIODS",
           "DUPACK_THRESHOLD"]

FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10
#: Fig. 4.5: a period counts when it moved at least this many bytes [thesis].
MIN_PERIOD_BYTES = 5 * 1024
#: Fig. 4.5: a host counts with at least this many (throughput, n) periods [thesis].
MIN_PERIODS = 10
#: Duplicate ACKs that make a resend a fast retransmission (Reno).
DUPACK_THRESHOLD = 3
#: A fast retransmission follows the threshold's duplicate ACK within half the handshake
#: RTT, or within this long when that is unknown (a capture near the sender).
FAST_REACTION_NS = 20_000_000
_TSHARK_FAST_DUPACKS = 2  # Wireshark: >= 2 duplicate ACKs (some may be missing) ...
_TSHARK_FAST_WINDOW_NS = 20_000_000  # ... and the last within 20 ms
_TSHARK_OOO_DEFAULT_NS = 3_000_000  # out-of-order threshold without an initial RTT
_M32 = 0xFFFFFFFF


def _unwrap(x: int, ref: int) -> int:
    """The 64-bit sequence number nearest ``ref`` whose low 32 bits are ``x``."""
    d = (x - ref) & _M32
    if d >= 0x80000000:
        d -= 0x100000000
    return ref + d


class _Dir:
    """One direction of a connection: the data its side sends, and what the other side's
    ACKs and windows say about it."""

    __slots__ = (
        "started", "start", "snd_max", "snd_max_t", "ivs_s", "ivs_e", "una", "una_known", "dupacks", "lastack_t",
        "rwnd", "rwnd_first", "rwnd_max", "win_raw", "ws_opt", "ws_shift", "mss_opt", "mss_seen", "sack_ok",
        "sack_high", "last_sig", "last_t", "other_between",
        "pkts", "data_pkts", "data_bytes", "rexmt_pkts", "rexmt_bytes", "ts_fast", "ts_spurious", "ooo",
        "tt_rexmt_pkts", "tt_rexmt_bytes", "rec_fast", "rec_timeout", "rec_ss", "syn_rexmt", "loss_events",
        "backoff", "max_backoff", "sack_avoidable", "dupack_total", "mode", "recover", "mode_una",
        "cwnd", "ssthresh", "ss_pkts", "ca_pkts", "first_flight", "out_max", "out_sum", "out_n",
        "lim_since", "lim_events", "lim_ns", "cwnd_over_rwnd", "requests", "new_pkts", "resent", "fast_entries", "fin_at", "dup3_t", "rto_una",
    )

    def __init__(self) -> None:
        self.started = False
        self.start = 0  # first payload sequence number (64-bit, unwrapped)
        self.snd_max = 0
        self.snd_max_t = 0
        self.ivs_s: list[int] = []  # payload ranges seen, merged and sorted
        self.ivs_e: list[int] = []
        self.una = 0
        self.una_known = False
        self.dupacks = 0
        self.lastack_t = 0
        self.rwnd = -1
        self.rwnd_first = -1
        self.rwnd_max = -1
        self.win_raw = -1  # last window field this side sent (for duplicate-ACK detection)
        self.ws_opt = -1
        self.ws_shift = 0
        self.mss_opt = -1
        self.mss_seen = 0
        self.sack_ok = False
        self.sack_high = -1
        self.last_sig: Optional[tuple[int, ...]] = None
        self.last_t = 0
        self.other_between = True
        self.pkts = self.data_pkts = self.data_bytes = 0
        self.rexmt_pkts = self.rexmt_bytes = self.ts_fast = self.ts_spurious = self.ooo = 0
        self.tt_rexmt_pkts = self.tt_rexmt_bytes = 0
        self.rec_fast = self.rec_timeout = self.rec_ss = self.syn_rexmt = self.loss_events = 0
        self.backoff = self.max_backoff = self.sack_avoidable = self.dupack_total = 0
        self.mode = 0  # 0 open, 1 fast recovery, 2 after a timeout
        self.recover = 0
        self.mode_una = 0  # una at the last recovery retransmission
        self.cwnd = 0.0
        self.ssthresh = math.inf
        self.ss_pkts = self.ca_pkts = 0
        self.first_flight = True
        self.out_max = 0
        self.out_sum = 0
        self.out_n = 0
        self.lim_since = -1
        self.lim_events = 0
        self.lim_ns = 0
        self.cwnd_over_rwnd = False
        self.requests = 0
        self.new_pkts = 0
        self.resent = 0
        self.fast_entries = 0
        self.fin_at = -1  # sequence number of the FIN (not payload)
        self.rto_una = -1  # una at the last timeout retransmission
        self.dup3_t = -1  # when the duplicate ACK that reached the threshold was seen

    def mss(self) -> int:
        return self.mss_opt if self.mss_opt > 0 else (self.mss_seen or 536)

    def add_range(self, s: int, e: int) -> int:
        """Record payload [s, e); returns how many of its bytes were not seen before."""
        ss, ee = self.ivs_s, self.ivs_e
        if not ss or s >= ee[-1]:
            if ss and s == ee[-1]:
                ee[-1] = e
            else:
                ss.append(s)
                ee.append(e)
            return e - s
        i = bisect.bisect_left(ee, s)  # first range ending at or after s
        j = bisect.bisect_right(ss, e)  # ranges [i, j) start at or before e: they touch [s, e)
        if i >= j:
            ss.insert(i, s)
            ee.insert(i, e)
            return e - s
        covered = sum(max(0, min(e, ee[k]) - max(s, ss[k])) for k in range(i, j))
        ns, ne = min(s, ss[i]), max(e, ee[j - 1])
        del ss[i:j]
        del ee[i:j]
        ss.insert(i, ns)
        ee.insert(i, ne)
        return (e - s) - covered

    def holes_below(self, limit: int) -> tuple[int, int]:
        """(ranges, bytes) of payload below ``limit`` never seen, from the first byte seen."""
        n = b = 0
        ss, ee = self.ivs_s, self.ivs_e
        for k in range(1, len(ss)):
            if ss[k] >= limit:
                break
            n += 1
            b += min(ss[k], limit) - ee[k - 1]
        if ss and ee[-1] < limit:
            n += 1
            b += limit - ee[-1]
        return n, b


class _Conn:
    __slots__ = ("id", "cli", "cport", "srv", "sport", "v6", "first_t", "last_t", "c2s", "s2c", "syn_t", "synack_t",
                 "syn_isn", "syn_dir", "hs_rtt", "hs_srv", "closed", "close_t", "dup_frames", "wscale_known", "host",
                 "ooo_thres", "lo_is_client", "fast_ns")

    def __init__(self, cid: int, cli: int, cport: int, srv: int, sport: int, v6: bool, t: int) -> None:
        self.id = cid
        self.cli, self.cport, self.srv, self.sport, self.v6 = cli, cport, srv, sport, v6
        self.first_t = self.last_t = t
        self.c2s = _Dir()
        self.s2c = _Dir()
        self.syn_t = -1
        self.synack_t = -1
        self.syn_isn = -1
        self.syn_dir: Optional[_Dir] = None
        self.hs_rtt = -1
        self.hs_srv = -1
        self.closed = ""
        self.close_t = -1
        self.dup_frames = 0
        self.wscale_known = False
        self.host: Optional[_Host] = None
        self.ooo_thres = _TSHARK_OOO_DEFAULT_NS
        self.fast_ns = FAST_REACTION_NS
        self.lo_is_client = True


@dataclass
class _Epoch:
    t0: int
    win: dict[int, tuple[int, int, int]]  # conn id -> (outstanding bytes, target seq, mss)
    losers: dict[int, str]  # conn id -> kind of its first loss event
    pending: set[int]


@dataclass
class _Host:
    cli: int
    open: dict[int, _Conn] = field(default_factory=dict)
    acked_t: array = field(default_factory=lambda: array("q"))  # server data newly acked: when ...
    acked_b: array = field(default_factory=lambda: array("q"))  # ... and how many bytes
    epoch: Optional[_Epoch] = None


@dataclass
class Analysis:
    """The result of :func:`analyze_capture`."""

    connections: pl.DataFrame
    periods: pl.DataFrame  # per client host: n, throughput (Fig. 4.5)
    hosts: pl.DataFrame  # per client host: periods kept, correlation
    epochs: pl.DataFrame  # loss epochs (Figs. 4.6, 4.7)
    summary: dict[str, Any]
    read: ReadStats


class _Analyzer:
    def __init__(self, server_ports: Iterable[int], dup_window_s: float) -> None:
        self.server_ports = set(int(p) for p in server_ports)
        self.dup_ns = int(round(dup_window_s * 1e9))
        self.conns: dict[tuple[int, int], _Conn] = {}
        self.done: list[_Conn] = []
        self.hosts: dict[int, _Host] = {}
        self.epochs: list[dict[str, Any]] = []
        self.next_id = 0
        self.dup_frames = 0
        self.t_last = 0

    # --- connections and hosts -------------------------------------------------------------

    def _new(self, key: tuple[int, int], a: int, ap: int, b: int, bp: int, flags: int, v6: bool, t: int) -> _Conn:
        # the sender of this first frame is (a, ap)
        sp = self.server_ports
        if ap in sp and bp not in sp:
            a_is_client = False
        elif bp in sp and ap not in sp:
            a_is_client = True
        elif flags & SYN:
            a_is_client = not (flags & ACK)
        elif ap != bp:
            a_is_client = ap > bp
        else:
            a_is_client = True
        if a_is_client:
            c = _Conn(self.next_id, a, ap, b, bp, v6, t)
        else:
            c = _Conn(self.next_id, b, bp, a, ap, v6, t)
        c.lo_is_client = (c.cli << 16 | c.cport) < (c.srv << 16 | c.sport)
        self.next_id += 1
        self.conns[key] = c
        h = self.hosts.get(c.cli)
        if h is None:
            h = self.hosts[c.cli] = _Host(c.cli)
        c.host = h
        h.open[c.id] = c
        return c

    def _close(self, c: _Conn, t: int) -> None:
        h = c.host
        if h is not None and c.id in h.open:
            del h.open[c.id]
            ep = h.epoch
            if ep is not None and c.id in ep.pending:
                ep.pending.discard(c.id)
                if not ep.pending:
                    self._end_epoch(h, t)

    def _finish(self, c: _Conn) -> None:
        self._close(c, c.last_t)
        self.done.append(c)

    # --- loss epochs (server -> client data) ----------------------------------------------

    def _loss_event(self, c: _Conn, kind: str, t: int) -> None:
        h = c.host
        if h is None or c.id not in h.open:
            return
        ep = h.epoch
        if ep is None:
            win = {}
            pending = set()
            for oc in h.open.values():  # the connections with data outstanding
                d = oc.s2c
                out = d.snd_max - d.una if (d.una_known and d.started) else 0
                if out > 0:
                    win[oc.id] = (out, d.snd_max, d.mss())
                    pending.add(oc.id)
            ep = h.epoch = _Epoch(t, win, {}, pending)
        if c.id in ep.win and c.id not in ep.losers:
            ep.losers[c.id] = kind

    def _epoch_ack(self, c: _Conn, t: int) -> None:
        h = c.host
        ep = h.epoch if h is not None else None
        if ep is None or c.id not in ep.pending:
            return
        if c.s2c.una >= ep.win[c.id][1]:
            ep.pending.discard(c.id)
            if not ep.pending:
                self._end_epoch(h, t)  # type: ignore[arg-type]

    def _end_epoch(self, h: _Host, t: int) -> None:
        ep = h.epoch
        h.epoch = None
        if ep is None:
            return
        ws = {k: v[0] / v[2] for k, v in ep.win.items()}  # windows in segments
        total = sum(ws.values())
        n, m = len(ws), len(ep.losers)
        if total <= 0 or m == 0:
            return
        lost = [ws[k] for k in ep.losers]
        keep = total - sum(lost)
        fast = (keep + sum(w / 2 for w in lost)) / total
        rto = (keep + sum(min(1.0, w) for w in lost)) / total
        actual = (keep + sum(ws[k] / 2 if ep.losers[k] == "fast" else min(1.0, ws[k]) for k in ep.losers)) / total
        self.epochs.append({
            "client": h.cli, "start_s": ep.t0 / 1e9, "end_s": t / 1e9, "n": n, "m": m,
            "window_segments": total, "losers_fast": sum(1 for k in ep.losers.values() if k == "fast"),
            "losers_timeout": sum(1 for k in ep.losers.values() if k == "timeout"),
            "factor_concurrent_fast": fast, "factor_concurrent_timeout": rto, "factor_actual": actual,
            "factor_tcp_fast": 0.5, "factor_tcp_timeout": min(1.0, 1.0 / total),
        })

    # --- the per-segment work ----------------------------------------------------------------

    def feed(self, b: Any) -> None:
        cols = (b.t_ns.tolist(), b.src.tolist(), b.sport.tolist(), b.dst.tolist(), b.dport.tolist(), b.seq.tolist(),
                b.ack.tolist(), b.flags.tolist(), b.win.tolist(), b.plen.tolist(), b.ipid.tolist(), b.csum.tolist(),
                b.mss.tolist(), b.wscale.tolist(), b.sack_ok.tolist(), b.sack_right.tolist(), b.request.tolist(),
                b.v6.tolist())
        conns = self.conns
        for (t, a, ap, bb, bp, seq, ack, flags, win, plen, ipid, csum, mss, wsc, sok, sright, req, v6) in zip(*cols):
            ka, kb = a << 16 | ap, bb << 16 | bp
            key = (ka, kb) if ka < kb else (kb, ka)
            c = conns.get(key)
            if c is not None and flags & SYN and not flags & ACK:
                # a new connection on the same 4-tuple (a retransmitted SYN is not)
                d0 = c.c2s if (ka < kb) == c.lo_is_client else c.s2c
                if (c.closed or (c.syn_dir is not None and (d0 is not c.syn_dir or seq != c.syn_isn))
                        or (c.syn_dir is None and (c.c2s.started or c.s2c.started))):
                    self._finish(c)
                    del conns[key]
                    c = None
            if c is None:
                c = self._new(key, a, ap, bb, bp, flags, v6, t)
            fwd = (ka < kb) == c.lo_is_client  # sent by the client
            d, r = (c.c2s, c.s2c) if fwd else (c.s2c, c.c2s)
            # capture duplicates
            sig = (ipid, seq, ack, flags, win, plen, csum)
            if d.last_sig == sig and not d.other_between and t - d.last_t <= self.dup_ns:
                c.dup_frames += 1
                self.dup_frames += 1
                continue
            d.last_sig, d.last_t, d.other_between = sig, t, False
            r.other_between = True
            c.last_t = t
            self.t_last = t
            d.pkts += 1
            syn, fin, rst = flags & SYN, flags & FIN, flags & RST
            # handshake and options
            if syn:
                if mss > 0:
                    d.mss_opt = mss
                if wsc >= 0:
                    d.ws_opt = min(wsc, 14)
                if sok:
                    d.sack_ok = True
                if not flags & ACK:
                    if c.syn_t < 0:
                        c.syn_t = t
                        c.syn_isn = seq
                        c.syn_dir = d
                elif c.synack_t < 0:
                    c.synack_t = t
                    if c.syn_t >= 0:
                        c.hs_srv = t - c.syn_t
                    if c.c2s.ws_opt >= 0 and c.s2c.ws_opt >= 0:
                        c.c2s.ws_shift = c.c2s.ws_opt
                        c.s2c.ws_shift = c.s2c.ws_opt
                    if c.syn_t >= 0:
                        c.wscale_known = True
            elif (c.hs_rtt < 0 and d is c.syn_dir and c.synack_t >= 0 and flags & ACK and r.started
                  and _unwrap(ack, r.start) >= r.start):
                c.hs_rtt = t - c.syn_t
                c.ooo_thres = c.hs_rtt
                c.fast_ns = max(c.hs_rtt // 2, FAST_REACTION_NS)
            # --- the ACK: about r's data ---------------------------------------------------
            if flags & ACK:
                wnd = win if syn else win << d.ws_shift
                if not r.una_known:
                    r.una = _unwrap(ack, r.snd_max) if r.started else ack
                    r.una_known = True
                    r.lastack_t = t
                    a64 = r.una
                    adv = 0
                else:
                    a64 = _unwrap(ack, r.una)
                    adv = a64 - r.una
                if adv > 0:
                    r.una = a64
                    r.dupacks = 0
                    r.lastack_t = t
                    r.sack_high = -1
                    if r.mode and a64 >= r.recover:
                        r.mode = 0
                    m_ = r.mss()
                    if r.cwnd > 0:
                        r.cwnd += m_ if r.cwnd < r.ssthresh else m_ * m_ / r.cwnd
                    if fwd:  # the client acknowledged server data
                        h = c.host
                        if h is not None:
                            h.acked_t.append(t)
                            h.acked_b.append(adv)
                            if h.epoch is not None:
                                self._epoch_ack(c, t)
                elif (adv == 0 and plen == 0 and not (syn or fin or rst) and win == d.win_raw
                      and r.started and r.snd_max > r.una):
                    r.dupacks += 1
                    r.dupack_total += 1
                    if r.dupacks == DUPACK_THRESHOLD:
                        r.dup3_t = t
                    r.lastack_t = t
                    if sright >= 0 and r.started:
                        r.sack_high = max(r.sack_high, _unwrap(sright, r.una))
                d.win_raw = win
                r.rwnd = wnd
                if not syn:
                    if r.rwnd_first < 0:
                        r.rwnd_first = wnd
                    if wnd > r.rwnd_max:
                        r.rwnd_max = wnd
                if r.lim_since >= 0 and r.una + wnd - r.snd_max >= r.mss():
                    r.lim_ns += t - r.lim_since
                    r.lim_since = -1
            # --- the data: d's sequence space ------------------------------------------------
            seglen = plen + (1 if syn else 0) + (1 if fin else 0)
            if seglen > 0:
                if not d.started:
                    s = seq
                    if d.una_known:
                        s = _unwrap(seq, d.una)
                    d.started = True
                    d.start = s + (1 if syn else 0)
                    d.snd_max = s
                    d.snd_max_t = t
                    if not d.una_known:
                        d.una = s
                else:
                    s = _unwrap(seq, d.snd_max)
                e = s + seglen
                ps = s + (1 if syn else 0)
                if fin and d.fin_at < 0:
                    d.fin_at = ps + plen
                if plen > 0:
                    d.data_pkts += 1
                    d.data_bytes += plen
                    if plen > d.mss_seen:
                        d.mss_seen = plen
                    new = d.add_range(ps, ps + plen)
                    seen_before = new < plen
                    if seen_before:
                        d.tt_rexmt_pkts += 1
                        d.tt_rexmt_bytes += plen - new
                else:
                    seen_before = False
                    if syn and s < d.snd_max:  # tcptrace counts a resent SYN as a retransmission
                        d.tt_rexmt_pkts += 1
                keepalive = plen <= 1 and not (syn or fin or rst) and s == d.snd_max - 1
                retrans = False
                if s < d.snd_max and not keepalive and d.pkts > 1:
                    # tshark's classification, in its order
                    if (d.dupacks >= _TSHARK_FAST_DUPACKS and d.una == s
                            and t - d.lastack_t < _TSHARK_FAST_WINDOW_NS):
                        retrans = True
                        d.ts_fast += 1
                    elif t - d.snd_max_t < c.ooo_thres and d.snd_max != e:
                        d.ooo += 1
                    elif plen > 0 and d.una_known and e <= d.una:
                        retrans = True
                        d.ts_spurious += 1
                    else:
                        retrans = True
                if retrans:
                    d.rexmt_pkts += 1
                    d.rexmt_bytes += plen
                    if syn:  # a SYN is resent by its timer
                        d.syn_rexmt += 1
                        d.resent += 1
                        d.rec_timeout += 1
                if (retrans or seen_before) and plen > 0:
                    d.resent += 1
                    self._recovery(c, d, s, e, t, fwd)
                elif plen > 0 and e > d.snd_max:
                    d.new_pkts += 1
                    if req:
                        d.requests += 1
                    # Reno emulation: phase of this first transmission
                    m_ = d.mss()
                    if d.cwnd <= 0:
                        d.cwnd = float(max(m_, e - d.una))
                    elif d.first_flight and d.una == d.start:
                        d.cwnd = float(max(d.cwnd, e - d.una))
                    else:
                        d.first_flight = False
                    if d.cwnd < d.ssthresh:
                        d.ss_pkts += 1
                    else:
                        d.ca_pkts += 1
                if e > d.snd_max:
                    d.snd_max = e
                    d.snd_max_t = t
                if plen > 0 and d.una_known:
                    out = d.snd_max - d.una
                    if out > d.out_max:
                        d.out_max = out
                    d.out_sum += out
                    d.out_n += 1
                    if d.rwnd >= 0 and d.lim_since < 0 and d.una + d.rwnd - d.snd_max < d.mss():
                        d.lim_since = t
                        d.lim_events += 1
                    if d.rwnd >= 0 and d.cwnd > d.rwnd:
                        d.cwnd_over_rwnd = True
            if (fin or rst) and not c.closed:
                c.closed = "rst" if rst else "fin"
                c.close_t = t
                self._close(c, t)

    def _recovery(self, c: _Conn, d: _Dir, s: int, e: int, t: int, fwd: bool) -> None:
        """The thesis' loss-recovery kind of a data retransmission starting at ``s``."""
        m_ = d.mss()
        flight = d.snd_max - d.una
        if d.mode == 2:
            if s <= d.una and d.una == d.rto_una:  # no progress since the last timeout: backed off
                d.rec_timeout += 1
                d.backoff += 1
                d.max_backoff = max(d.max_backoff, d.backoff)
                d.cwnd = float(m_)
            else:
                d.rec_ss += 1
            return
        if d.mode == 1:
            if s <= d.una and d.una == d.mode_una:  # the fast retransmission itself failed
                kind = "timeout"
            else:  # a partial ACK's next hole
                d.rec_fast += 1
                d.mode_una = d.una
                return
        elif d.dupacks >= DUPACK_THRESHOLD and s <= d.una and t - d.dup3_t <= c.fast_ns:
            kind = "fast"
        else:
            kind = "timeout"
        d.loss_events += 1
        d.ssthresh = max(flight / 2, 2 * m_)
        d.recover = d.snd_max
        d.mode_una = d.una
        if kind == "fast":
            d.rec_fast += 1
            d.fast_entries += 1
            d.mode = 1
            d.cwnd = d.ssthresh
        else:
            d.rec_timeout += 1
            d.mode = 2
            d.rto_una = d.una
            d.backoff = 1
            d.max_backoff = max(d.max_backoff, 1)
            d.cwnd = float(m_)
            sack_reach = d.sack_high if d.sack_high >= 0 else -1
            if sack_reach >= d.una + 3 * m_ or d.dupacks >= DUPACK_THRESHOLD:
                d.sack_avoidable += 1
        if not fwd:
            self._loss_event(c, kind, t)

    def finish(self) -> None:
        for c in list(self.conns.values()):
            self._finish(c)
        self.conns.clear()


#: Per-direction columns (prefixed ``s2c_`` and ``c2s_``) and their meaning.
DIR_COLUMNS = {
    "pkts": "segments sent",
    "data_pkts": "segments with payload (retransmissions included)",
    "data_bytes": "payload bytes, retransmissions included (tcptrace: actual data bytes)",
    "unique_bytes": "distinct payload sequence numbers seen (tcptrace: unique bytes sent)",
    "rexmt_pkts": "retransmitted segments, tshark's tcp.analysis.retransmission",
    "rexmt_bytes": "payload bytes of those segments",
    "fast_rexmt_tshark": "of which tshark's fast retransmissions (>= 2 dup ACKs, within 20 ms)",
    "spurious_rexmt": "of which already acknowledged (tshark: spurious)",
    "out_of_order": "segments below the highest sequence number that tshark calls out of order",
    "tt_rexmt_pkts": "segments carrying bytes (or a SYN) seen before (tcptrace: rexmt data pkts)",
    "tt_rexmt_bytes": "bytes seen before (tcptrace: rexmt data bytes)",
    "resent_pkts": "data segments resent: tshark's or tcptrace's retransmissions (each gets a thesis kind)",
    "rexmt_fast": "retransmissions by fast retransmit/recovery (thesis kind)",
    "rexmt_timeout": "retransmissions by a timeout (thesis kind)",
    "rexmt_slow_start": "retransmissions in the slow start after a timeout (thesis kind)",
    "syn_rexmt": "retransmitted SYNs",
    "loss_events": "fast retransmissions starting a recovery, and first timeouts",
    "fast_recoveries": "fast retransmissions starting a recovery",
    "max_backoff": "longest run of timeouts of one hole without ACK progress",
    "timeouts_sack_avoidable": "first timeouts where SACK blocks (or >= 3 dup ACKs) showed data >= 3 MSS beyond the hole",
    "dupacks": "duplicate ACKs received for this direction's data",
    "pkts_slow_start": "first transmissions while the emulated Reno cwnd < ssthresh",
    "pkts_cong_avoid": "first transmissions in congestion avoidance (emulated)",
    "max_outstanding": "largest outstanding data after a data segment (bytes)",
    "mean_outstanding": "mean outstanding data after a data segment (bytes)",
    "rwnd_first": "first receiver window advertised after the SYNs (bytes, scaled when known)",
    "rwnd_max": "largest receiver window advertised (bytes)",
    "rwnd_limited_events": "times the advertised window left less than one MSS free",
    "rwnd_limited_s": "time spent so (s)",
    "cwnd_over_rwnd": "the emulated cwnd grew past the advertised window",
    "capture_lost_segments": "holes below the highest ACK never seen in the capture",
    "capture_lost_bytes": "their bytes",
    "mss": "MSS option of this side's SYN, else the largest payload seen",
}


def _dir_row(d: _Dir) -> dict[str, Any]:
    acked = min(d.una, d.fin_at) if d.fin_at >= 0 else d.una
    holes = d.holes_below(acked) if (d.started and d.una_known and d.ivs_s) else (0, 0)
    unique = sum(e - s for s, e in zip(d.ivs_s, d.ivs_e))
    return {
        "pkts": d.pkts, "data_pkts": d.data_pkts, "data_bytes": d.data_bytes, "unique_bytes": unique,
        "rexmt_pkts": d.rexmt_pkts, "rexmt_bytes": d.rexmt_bytes, "fast_rexmt_tshark": d.ts_fast,
        "spurious_rexmt": d.ts_spurious, "out_of_order": d.ooo, "tt_rexmt_pkts": d.tt_rexmt_pkts,
        "tt_rexmt_bytes": d.tt_rexmt_bytes, "resent_pkts": d.resent, "rexmt_fast": d.rec_fast, "rexmt_timeout": d.rec_timeout,
        "rexmt_slow_start": d.rec_ss, "syn_rexmt": d.syn_rexmt, "loss_events": d.loss_events, "fast_recoveries": d.fast_entries,
        "max_backoff": d.max_backoff, "timeouts_sack_avoidable": d.sack_avoidable, "dupacks": d.dupack_total,
        "pkts_slow_start": d.ss_pkts, "pkts_cong_avoid": d.ca_pkts, "max_outstanding": d.out_max,
        "mean_outstanding": d.out_sum / d.out_n if d.out_n else None,
        "rwnd_first": d.rwnd_first if d.rwnd_first >= 0 else None,
        "rwnd_max": d.rwnd_max if d.rwnd_max >= 0 else None,
        "rwnd_limited_events": d.lim_events, "rwnd_limited_s": d.lim_ns / 1e9, "cwnd_over_rwnd": d.cwnd_over_rwnd,
        "capture_lost_segments": holes[0], "capture_lost_bytes": holes[1],
        "mss": d.mss() if (d.mss_opt > 0 or d.mss_seen) else None,
    }


def _addr(table: list[bytes], i: int) -> str:
    raw = table[i]
    ip = ipaddress.IPv6Address(raw)
    return str(ip.ipv4_mapped) if ip.ipv4_mapped is not None else str(ip)


def _pearson(xs: list[float], ys: list[float]) -> Optional[float]:
    if len(xs) < 2:
        return None
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    sx, sy = x.std(), y.std()
    if sx == 0 or sy == 0:
        return None
    return float(((x - x.mean()) * (y - y.mean())).mean() / (sx * sy))


def analyze_capture(path: str | Path, server_ports: Iterable[int] = (), dup_window_s: float = DUP_WINDOW_S) -> Analysis:
    """Analyze the TCP connections of a pcap/pcapng file (see the module docstring for
    every definition). Raises :class:`~shortflow.capture.reader.CaptureError` for a file
    that is not a readable capture."""
    if isinstance(server_ports, (str, bytes, int)):
        raise TypeError(f"server_ports = {server_ports!r}: give a list of port numbers")
    ports = [int(p) for p in server_ports]
    for p in ports:
        if not 0 < p < 65536:
            raise ValueError(f"server_ports: {p} is not a TCP port (1-65535)")
    if not (isinstance(dup_window_s, (int, float)) and math.isfinite(dup_window_s) and dup_window_s >= 0):
        raise ValueError(f"dup_window_s = {dup_window_s!r}: give a non-negative number of seconds")
    stats = ReadStats()
    addrs = _Addresses()
    an = _Analyzer(ports, dup_window_s)
    for batch in read_segments(path, stats, addrs):
        an.feed(batch)
    an.finish()
    return _tables(an, stats, addrs)


def _tables(an: _Analyzer, stats: ReadStats, addrs: _Addresses) -> Analysis:
    rows = []
    by_host: dict[int, list[_Conn]] = {}
    for c in sorted(an.done, key=lambda c: c.id):
        by_host.setdefault(c.cli, []).append(c)
        row: dict[str, Any] = {
            "conn": c.id, "client": _addr(addrs.table, c.cli), "client_port": c.cport,
            "server": _addr(addrs.table, c.srv), "server_port": c.sport, "ip_version": 6 if c.v6 else 4,
            "first_s": c.first_t / 1e9, "last_s": c.last_t / 1e9, "duration_s": (c.last_t - c.first_t) / 1e9,
            "syn_seen": c.syn_t >= 0, "synack_seen": c.synack_t >= 0,
            "handshake_rtt_s": c.hs_rtt / 1e9 if c.hs_rtt >= 0 else None,
            "handshake_server_s": c.hs_srv / 1e9 if c.hs_srv >= 0 else None,
            "closed": c.closed or "open", "dup_frames": c.dup_frames, "requests": c.c2s.requests,
            "wscale_known": c.wscale_known,
        }
        for pre, d in (("s2c_", c.s2c), ("c2s_", c.c2s)):
            for k, v in _dir_row(d).items():
                row[pre + k] = v
        rows.append(row)
    conns = pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()
    # per host
    prow, hrow = [], []
    for cli, h in sorted(an.hosts.items()):
        name = _addr(addrs.table, cli)
        kept = _periods(by_host.get(cli, []), h)
        for n, thr, nb, dur in kept:
            prow.append({"client": name, "n": n, "throughput_Bps": thr, "bytes": nb, "duration_s": dur})
        if kept:
            r = _pearson([p[0] for p in kept], [p[1] for p in kept])
            hrow.append({"client": name, "periods": len(kept), "max_n": max(p[0] for p in kept),
                         "correlation": r if len(kept) >= MIN_PERIODS else None})
    periods = pl.DataFrame(prow, schema={"client": pl.Utf8, "n": pl.Int64, "throughput_Bps": pl.Float64,
                                         "bytes": pl.Int64, "duration_s": pl.Float64})
    hosts = pl.DataFrame(hrow, schema={"client": pl.Utf8, "periods": pl.Int64, "max_n": pl.Int64,
                                       "correlation": pl.Float64})
    for e in an.epochs:
        e["client"] = _addr(addrs.table, e["client"])
    epochs = pl.DataFrame(an.epochs, schema={
        "client": pl.Utf8, "start_s": pl.Float64, "end_s": pl.Float64, "n": pl.Int64, "m": pl.Int64,
        "window_segments": pl.Float64, "losers_fast": pl.Int64, "losers_timeout": pl.Int64,
        "factor_concurrent_fast": pl.Float64, "factor_concurrent_timeout": pl.Float64, "factor_actual": pl.Float64,
        "factor_tcp_fast": pl.Float64, "factor_tcp_timeout": pl.Float64})
    summary = _summary(conns, hosts, epochs, stats, an)
    return Analysis(conns, periods, hosts, epochs, summary, stats)


def _periods(conns: list[_Conn], h: _Host) -> list[tuple[int, float, int, float]]:
    """Fig. 4.5's periods of one host: (n, throughput B/s, bytes, seconds) of every span
    with a constant number n >= 1 of open connections (each open from its first to its
    last packet) that moved at least MIN_PERIOD_BYTES of server data (newly acknowledged)."""
    if not conns:
        return []
    # events: (time, order, delta n, bytes); at one instant the bytes come first, then
    # closes, then opens
    t = np.concatenate([np.frombuffer(h.acked_t, np.int64), [c.last_t for c in conns], [c.first_t for c in conns]])
    order = np.concatenate([np.zeros(len(h.acked_t), np.int64), np.ones(len(conns), np.int64),
                            np.full(len(conns), 2, np.int64)])
    dn = np.concatenate([np.zeros(len(h.acked_t), np.int64), -np.ones(len(conns), np.int64),
                         np.ones(len(conns), np.int64)])
    nb = np.concatenate([np.frombuffer(h.acked_b, np.int64), np.zeros(2 * len(conns), np.int64)])
    idx = np.lexsort((order, t))
    t, dn, nb = t[idx], dn[idx], nb[idx]
    # an open/close event ends the period before it: bytes between two such events belong to it
    edge = np.nonzero(dn != 0)[0]
    n_after = np.cumsum(dn)[edge]
    csum = np.concatenate([[0], np.cumsum(nb)])
    out = []
    for k in range(len(edge) - 1):
        n = int(n_after[k])
        a, b = edge[k], edge[k + 1]
        moved = int(csum[b] - csum[a + 1])
        dur = int(t[b] - t[a])
        if n > 0 and dur > 0 and moved >= MIN_PERIOD_BYTES:
            out.append((n, moved / (dur / 1e9), moved, dur / 1e9))
    return out


def _pct(a: float, b: float) -> Optional[float]:
    return 100.0 * a / b if b else None


def _summary(conns: pl.DataFrame, hosts: pl.DataFrame, epochs: pl.DataFrame, stats: ReadStats,
             an: _Analyzer) -> dict[str, Any]:
    """Table 4.1's statistics (server -> client data) and the capture's oddities."""
    def s(col: str) -> int:
        return int(conns[col].sum()) if conns.height and col in conns.columns else 0

    n = conns.height
    ss, ca = s("s2c_pkts_slow_start"), s("s2c_pkts_cong_avoid")
    fast, rto, ssr = s("s2c_rexmt_fast"), s("s2c_rexmt_timeout"), s("s2c_rexmt_slow_start")
    kinds = fast + rto + ssr
    corr = hosts["correlation"].drop_nulls() if hosts.height else pl.Series([], dtype=pl.Float64)
    rw = conns["s2c_rwnd_max"].drop_nulls() if n else pl.Series([], dtype=pl.Int64)
    sizes = conns["s2c_unique_bytes"] if n else pl.Series([], dtype=pl.Int64)
    return {
        "connections": n,
        "connections_with_handshake": int(conns["syn_seen"].sum()) if n else 0,
        "connections_without_handshake": int((~conns["syn_seen"]).sum()) if n else 0,
        "packets_s2c_data_first": ss + ca,
        "packets_slow_start": ss, "packets_slow_start_pct": _pct(ss, ss + ca),
        "packets_cong_avoid": ca, "packets_cong_avoid_pct": _pct(ca, ss + ca),
        "retransmissions": kinds,
        "retransmissions_tshark": s("s2c_rexmt_pkts"),
        "rexmt_fast": fast, "rexmt_fast_pct": _pct(fast, kinds),
        "rexmt_slow_start": ssr, "rexmt_slow_start_pct": _pct(ssr, kinds),
        "rexmt_timeout": rto, "rexmt_timeout_pct": _pct(rto, kinds),
        "timeouts_sack_avoidable": s("s2c_timeouts_sack_avoidable"),
        "timeouts_sack_avoidable_pct": _pct(s("s2c_timeouts_sack_avoidable"), rto),
        "connections_with_dupack": int((conns["s2c_dupacks"] > 0).sum()) if n else 0,
        "connections_with_dupack_pct": _pct(int((conns["s2c_dupacks"] > 0).sum()), n) if n else None,
        "rexmt_tcptrace": s("s2c_tt_rexmt_pkts"),
        "requests": s("requests"),
        "mean_connection_bytes": float(sizes.mean()) if n else None,  # type: ignore[arg-type]
        "median_connection_bytes": float(sizes.median()) if n else None,  # type: ignore[arg-type]
        "rwnd_below_8KB_pct": _pct(int((rw < 8192).sum()), rw.len()) if rw.len() else None,
        "cwnd_over_rwnd_pct": _pct(int(conns["s2c_cwnd_over_rwnd"].sum()), n) if n else None,
        "capture_lost_bytes": s("s2c_capture_lost_bytes") + s("c2s_capture_lost_bytes"),
        "capture_lost_segments": s("s2c_capture_lost_segments") + s("c2s_capture_lost_segments"),
        "duplicate_frames": an.dup_frames,
        "hosts_with_correlation": corr.len(),
        "hosts_positive_correlation_pct": _pct(int((corr > 0).sum()), corr.len()) if corr.len() else None,
        "hosts_correlation_above_half_pct": _pct(int((corr > 0.5).sum()), corr.len()) if corr.len() else None,
        "loss_epochs": epochs.height,
        "mean_factor_concurrent_fast": float(epochs["factor_concurrent_fast"].mean()) if epochs.height else None,  # type: ignore[arg-type]
        "mean_factor_concurrent_timeout": float(epochs["factor_concurrent_timeout"].mean()) if epochs.height else None,  # type: ignore[arg-type]
        "read": stats.as_dict(),
    }
