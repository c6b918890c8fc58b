"""`shortflow pcap analyze`: the capture reader and the TCP analysis on captures with known
ground truth -- hand-built scripts (every capture oddity of issue 18 item 4) and simulated
runs with drops -- cross-checked with tshark and tcptrace when they are installed."""

from __future__ import annotations

import collections
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import shortflow
from _capture import ACK, FIN, MS, PSH, SYN, Script, icmp_packet, opt_sack, udp_packet
from shortflow.capture import analyze_capture, read_segments
from shortflow.capture.analyze import _Dir
from shortflow.capture.reader import ReadStats
from shortflow.cli import app
from shortflow.pcap import PcapngWriter, ip_tcp

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (make test installs it)")
needs_tcptrace = pytest.mark.skipif(shutil.which("tcptrace") is None,
                                    reason="tcptrace not installed (make test installs it)")

REQ = b"GET /index.html HTTP/1.0\r\n\r\n"
RTT = 50 * MS


def download(s: Script, t0: int = 0, segs: int = 10, v6: bool = False, cport: int = 40000, **kw: Any) -> None:
    """HTTP/1.0: handshake, one request, ``segs`` 1000-byte segments each acked one RTT
    later, FINs."""
    c = s.conn(client="2001:db8::2" if v6 else "10.1.0.2", server="2001:db8::80" if v6 else "10.9.0.1",
               cport=cport, **kw)
    t = c.handshake(t0, RTT)
    c.data(t, "c", 1, len(REQ), payload=REQ)
    rq = 1 + len(REQ)
    for i in range(segs):
        c.data(t + RTT // 2 + i * MS, "s", 1 + 1000 * i, 1000, ack=rq)
        c.ack(t + RTT // 2 + i * MS + RTT, "c", 1 + 1000 * (i + 1), seq=rq)
    tf = t + RTT // 2 + segs * MS + RTT + MS
    c.ack(tf, "s", rq, seq=1 + 1000 * segs, flags=ACK | FIN)
    c.ack(tf + RTT, "c", 2 + 1000 * segs, seq=rq, flags=ACK | FIN)
    c.ack(tf + 2 * RTT, "s", rq + 1, seq=2 + 1000 * segs)


KEY = ["client_port", "server_port", "syn_seen", "closed", "s2c_data_bytes", "s2c_unique_bytes", "s2c_rexmt_pkts",
       "s2c_resent_pkts", "s2c_data_pkts", "c2s_data_bytes", "s2c_capture_lost_bytes", "s2c_max_outstanding",
       "dup_frames"]


def _an(path: Path, **kw: Any) -> Any:
    return analyze_capture(path, **kw)


def _row(a: Any) -> dict[str, Any]:
    assert a.connections.height == 1, a.connections
    return a.connections.row(0, named=True)


def test_download_ground_truth(tmp_path: Path) -> None:
    s = Script()
    download(s)
    s.write(tmp_path / "x.pcap")
    a = _an(tmp_path / "x.pcap")
    r = _row(a)
    assert (r["client"], r["server"], r["server_port"], r["ip_version"]) == ("10.1.0.2", "10.9.0.1", 80, 4)
    assert r["syn_seen"] and r["synack_seen"] and r["closed"] == "fin"
    assert r["handshake_rtt_s"] == pytest.approx(0.05, abs=1e-6)  # SYN -> the ACK of the SYN/ACK
    assert r["handshake_server_s"] == pytest.approx(0.025, abs=1e-6)
    assert (r["s2c_data_bytes"], r["s2c_unique_bytes"], r["s2c_data_pkts"]) == (10_000, 10_000, 10)
    assert (r["s2c_rexmt_pkts"], r["s2c_resent_pkts"], r["s2c_tt_rexmt_pkts"]) == (0, 0, 0)
    assert r["requests"] == 1 and r["c2s_data_bytes"] == len(REQ)
    assert r["s2c_capture_lost_segments"] == 0 and r["s2c_mss"] == 1000
    # every segment is sent before the first ack: the flight grows to all 10 segments
    assert r["s2c_max_outstanding"] == 10_000
    assert r["s2c_rwnd_first"] == 65535 and r["wscale_known"]  # both SYNs seen, neither scales
    assert a.summary["connections_with_handshake"] == 1 and a.read.tcp == 10 + 10 + 3 + 1 + 3


@pytest.mark.parametrize("variant", [
    dict(fmt="pcapng"), dict(fmt="pcap-ns-be"), dict(link="raw"), dict(link="sll"), dict(link="sll2"),
    dict(vlan=2), dict(pad=True, trailer=b"\xde\xad\xbe\xef"), dict(snaplen=54), dict(fmt="pcapng", link="sll2"),
], ids=["pcapng-ns", "pcap-ns-big-endian", "raw-ip", "linux-sll", "linux-sll2", "two-vlan-tags",
        "ethernet-padding-and-trailer", "snaplen-54", "pcapng-sll2"])
def test_formats_and_framing_give_the_same_analysis(tmp_path: Path, variant: dict[str, Any]) -> None:
    s = Script()
    download(s)
    s.write(tmp_path / "base.pcap")
    s.write(tmp_path / "v.cap", **variant)
    base, v = _an(tmp_path / "base.pcap"), _an(tmp_path / "v.cap")
    assert v.connections.select(KEY).rows() == base.connections.select(KEY).rows()
    assert _row(v)["handshake_rtt_s"] == pytest.approx(0.05, abs=1e-9)
    if variant.get("snaplen") == 54:  # headers only: lengths from the IP header, the request line unseen
        assert v.read.truncated_payload == 11 and _row(v)["requests"] == 0
    else:
        assert v.read.truncated_payload == 0 and _row(v)["requests"] == 1


def test_ipv6(tmp_path: Path) -> None:
    s = Script()
    download(s, v6=True)
    download(s, t0=5 * MS, cport=40001)  # and an IPv4 connection beside it
    s.write(tmp_path / "x.pcapng", fmt="pcapng")
    a = _an(tmp_path / "x.pcapng")
    c = a.connections.sort("ip_version")
    assert c["ip_version"].to_list() == [4, 6]
    assert c["client"].to_list() == ["10.1.0.2", "2001:db8::2"]
    assert c["s2c_unique_bytes"].to_list() == [10_000, 10_000] and c["requests"].to_list() == [1, 1]
    assert a.read.ipv6 == 27


def test_non_tcp_traffic_is_counted_and_skipped(tmp_path: Path) -> None:
    s = Script()
    download(s)
    s.other(10 * MS, udp_packet("10.1.0.2", "224.0.0.251"))
    s.other(11 * MS, icmp_packet("10.1.0.2", "10.9.0.1"))
    s.write(tmp_path / "base.pcap")
    s.write(tmp_path / "x.pcap", non_ip=(3,))
    a = _an(tmp_path / "x.pcap")
    assert a.read.non_tcp == {"UDP": 1, "ICMP": 1} and a.read.non_ip == 1
    assert a.connections.select(KEY).rows() == _an(tmp_path / "base.pcap").connections.select(KEY).rows()


def test_connection_without_handshake(tmp_path: Path) -> None:
    s = Script()
    download(s)
    s.write(tmp_path / "x.pcap", drop=(0, 1, 2))  # SYN, SYN/ACK, ACK not captured
    a = _an(tmp_path / "x.pcap")
    r = _row(a)
    assert not r["syn_seen"] and r["handshake_rtt_s"] is None
    assert r["server_port"] == 80 and r["client_port"] == 40000  # the lower port serves
    assert (r["s2c_unique_bytes"], r["s2c_rexmt_pkts"], r["requests"]) == (10_000, 0, 1)
    assert a.summary["connections_without_handshake"] == 1


def test_segment_missing_from_the_capture_never_retransmitted(tmp_path: Path) -> None:
    s = Script()
    download(s)
    # frames in time order: 3 handshake, the request, then segment 0, segment 1 ... interleaved with
    # acks from the client one RTT later; segment 3 is frame index 3 + 1 + 2*3 (data, ack pairs)
    lost = 4 + 2 * 3
    assert s.frames[lost].l3[40:] == bytes(1000)
    s.write(tmp_path / "x.pcap", drop=(lost,))
    a = _an(tmp_path / "x.pcap")
    r = _row(a)
    assert (r["s2c_capture_lost_segments"], r["s2c_capture_lost_bytes"]) == (1, 1000)
    assert (r["s2c_unique_bytes"], r["s2c_rexmt_pkts"], r["s2c_resent_pkts"]) == (9000, 0, 0)
    if shutil.which("tshark"):
        assert _tshark_count(tmp_path / "x.pcap", "tcp.analysis.lost_segment") == {"80": 1}
    if shutil.which("tcptrace"):
        assert _tcptrace(tmp_path / "x.pcap")[40000]["unique"] == 9000


def test_duplicate_frames(tmp_path: Path) -> None:
    s = Script()
    download(s)
    s.write(tmp_path / "base.pcap")
    n = s.write(tmp_path / "x.pcap", dup_ns=3000)  # every frame twice, 3 us apart
    base, a = _an(tmp_path / "base.pcap"), _an(tmp_path / "x.pcap")
    assert _row(a)["dup_frames"] == n // 2 == a.summary["duplicate_frames"]
    keep = [k for k in KEY if k != "dup_frames"]
    assert a.connections.select(keep).rows() == base.connections.select(keep).rows()
    # without the rule, the copies would read as retransmissions
    raw = _an(tmp_path / "x.pcap", dup_window_s=0)
    assert _row(raw)["dup_frames"] == 0 and _row(raw)["s2c_rexmt_pkts"] > 0


def _recovery_script() -> Script:
    """One connection with a fast retransmission, a timeout followed by two slow-start
    retransmissions, and a timeout that backs off once (capture at the server)."""
    s = Script()
    c = s.conn()
    t = c.handshake(0, RTT)
    c.data(t, "c", 1, len(REQ), payload=REQ)
    rq = 1 + len(REQ)
    seg = lambda i: 1 + 1000 * i  # noqa: E731
    t1 = 100 * MS
    for i in range(8):  # segment 1 is lost downstream
        c.data(t1 + i * MS, "s", seg(i), 1000, ack=rq)
    c.ack(t1 + RTT, "c", seg(1), seq=rq)
    for k in range(6):  # segments 2..7 arrive: duplicate ACKs
        c.ack(t1 + RTT + (k + 1) * MS, "c", seg(1), seq=rq)
    c.data(t1 + RTT + 3 * MS + MS // 10, "s", seg(1), 1000, ack=rq)  # fast retransmit after the 3rd
    c.ack(t1 + 2 * RTT + 4 * MS, "c", seg(8), seq=rq)
    # timeout: segments 8, 9 lost, 10, 11 arrive (2 duplicate ACKs, too few)
    t2 = 300 * MS
    for i in range(8, 12):
        c.data(t2 + (i - 8) * MS, "s", seg(i), 1000, ack=rq)
    c.ack(t2 + RTT + 2 * MS, "c", seg(8), seq=rq)
    c.ack(t2 + RTT + 3 * MS, "c", seg(8), seq=rq)
    t3 = 1300 * MS
    c.data(t3, "s", seg(8), 1000, ack=rq)  # the timeout
    c.ack(t3 + RTT, "c", seg(9), seq=rq)
    c.data(t3 + RTT + MS // 10, "s", seg(9), 1000, ack=rq)  # slow start: resends 9 ...
    c.data(t3 + RTT + 2 * MS // 10, "s", seg(10), 1000, ack=rq)  # ... and 10 (it had arrived)
    c.ack(t3 + 2 * RTT, "c", seg(12), seq=rq)
    # a timeout whose retransmission is lost too: backs off once
    t4 = 1500 * MS
    c.data(t4, "s", seg(12), 1000, ack=rq)
    c.data(t4 + 1000 * MS, "s", seg(12), 1000, ack=rq)
    c.data(t4 + 3000 * MS, "s", seg(12), 1000, ack=rq)
    c.ack(t4 + 3000 * MS + RTT, "c", seg(13), seq=rq)
    return s


def test_loss_recovery_kinds(tmp_path: Path) -> None:
    _recovery_script().write(tmp_path / "x.pcap")
    r = _row(_an(tmp_path / "x.pcap"))
    assert r["s2c_rexmt_fast"] == 1 and r["s2c_fast_recoveries"] == 1
    assert r["s2c_rexmt_timeout"] == 3  # 1300 ms, 2500 ms and its backed-off repeat at 4500 ms
    assert r["s2c_rexmt_slow_start"] == 2
    assert r["s2c_loss_events"] == 3 and r["s2c_max_backoff"] == 2
    assert r["s2c_resent_pkts"] == r["s2c_rexmt_pkts"] == r["s2c_tt_rexmt_pkts"] == 6
    assert r["s2c_fast_rexmt_tshark"] == 1 and r["s2c_dupacks"] == 6 + 2
    assert (r["s2c_unique_bytes"], r["s2c_data_bytes"]) == (13_000, 19_000)
    assert r["s2c_timeouts_sack_avoidable"] == 0  # no SACK blocks, fewer than 3 duplicate ACKs


@needs_tshark
def test_loss_recovery_agrees_with_tshark(tmp_path: Path) -> None:
    _recovery_script().write(tmp_path / "x.pcap")
    assert _tshark_count(tmp_path / "x.pcap", "tcp.analysis.retransmission") == {"80": 6}
    assert _tshark_count(tmp_path / "x.pcap", "tcp.analysis.fast_retransmission") == {"80": 1}


def test_sack_shows_a_timeout_was_avoidable(tmp_path: Path) -> None:
    s = Script()
    c = s.conn()
    t = c.handshake(0, RTT, sack=True)
    c.data(t, "c", 1, len(REQ), payload=REQ)
    rq = 1 + len(REQ)
    for i in range(5):  # segment 0 lost; 1..4 arrive, but the receiver sends only 2 duplicate ACKs
        c.data(t + 10 * MS + i * MS, "s", 1 + 1000 * i, 1000, ack=rq)
    c.ack(t + 60 * MS, "c", 1, seq=rq, options=opt_sack((c.s_isn + 1001, c.s_isn + 3001)))
    c.ack(t + 62 * MS, "c", 1, seq=rq, options=opt_sack((c.s_isn + 1001, c.s_isn + 5001)))
    c.data(t + 1000 * MS, "s", 1, 1000, ack=rq)  # timeout
    c.ack(t + 1050 * MS, "c", 5001, seq=rq)
    s.write(tmp_path / "x.pcap")
    r = _row(_an(tmp_path / "x.pcap"))
    assert r["s2c_rexmt_timeout"] == 1 and r["s2c_timeouts_sack_avoidable"] == 1


def test_window_scaling_and_receiver_window_limit(tmp_path: Path) -> None:
    s = Script()
    c = s.conn()
    t = c.handshake(0, RTT, wscale=(2, 7), window=1000)  # the client's windows count in units of 4 bytes
    c.data(t, "c", 1, len(REQ), payload=REQ, window=1000)
    rq = 1 + len(REQ)
    for rnd in range(2):  # two rounds of a full 4000-byte window
        t0 = t + 10 * MS + rnd * 100 * MS
        for i in range(4):
            c.data(t0 + i * MS, "s", 1 + 4000 * rnd + 1000 * i, 1000, ack=rq)
        c.ack(t0 + 3 * MS + RTT, "c", 1 + 4000 * (rnd + 1), seq=rq, window=1000)
    s.write(tmp_path / "x.pcap")
    r = _row(_an(tmp_path / "x.pcap"))
    assert r["wscale_known"] and r["s2c_rwnd_max"] == 4000 and r["s2c_rwnd_first"] == 4000
    assert r["s2c_rwnd_limited_events"] == 2
    assert r["s2c_rwnd_limited_s"] == pytest.approx(2 * 0.05, abs=1e-9)  # each from the 4th segment to the ACK
    assert r["s2c_max_outstanding"] == 4000
    # without the SYNs the scale is unknown: the window is the raw field
    s.write(tmp_path / "y.pcap", drop=(0, 1, 2))
    r = _row(_an(tmp_path / "y.pcap"))
    assert not r["wscale_known"] and r["s2c_rwnd_max"] == 1000


def test_requests_per_connection(tmp_path: Path) -> None:
    s = Script()
    c = s.conn()
    t = c.handshake(0, RTT)
    seq = 1
    reqs = [b"GET /a HTTP/1.1\r\n\r\n", b"HEAD /b HTTP/1.1\r\n\r\n", b"POST /c HTTP/1.1\r\n\r\n"]
    for k, q in enumerate(reqs):
        c.data(t + k * 200 * MS, "c", seq, len(q), payload=q)
        if k == 2:  # the last request is retransmitted: still one request
            c.data(t + k * 200 * MS + 300 * MS, "c", seq, len(q), payload=q)
        seq += len(q)
    c.data(t + 700 * MS, "c", seq, 9, payload=b"key=value")  # the POST's body is no request
    s.write(tmp_path / "x.pcap")
    r = _row(_an(tmp_path / "x.pcap"))
    assert r["requests"] == 3 and r["c2s_rexmt_pkts"] == 1


def test_throughput_vs_concurrent_connections(tmp_path: Path) -> None:
    """12 one-second periods alternating n = 1 and n = 2, each connection moving 6 KB a
    period: throughput doubles with n, correlation 1."""
    s = Script()
    a_conn = s.conn(cport=41000)
    seq_a = 1
    a_conn.ack(0, "c", 1)  # connection A opens at t = 0 ...
    for j in range(12):
        t0 = j * 1000 * MS
        for i in range(6):
            a_conn.data(t0 + 100 * MS + i * MS, "s", seq_a, 1000)
            a_conn.ack(t0 + 200 * MS + i * MS, "c", seq_a + 1000)
            seq_a += 1000
        if j % 2:
            b = s.conn(cport=42000 + j)
            b.ack(t0, "c", 1)  # opens with the period ...
            for i in range(6):
                b.data(t0 + 100 * MS + i * MS, "s", 1 + 1000 * i, 1000)
                b.ack(t0 + 300 * MS + i * MS, "c", 1 + 1000 * (i + 1))
            b.ack(t0 + 999 * MS, "c", 6001)  # ... and closes (its last packet) 1 ms before its end
    a_conn.ack(12000 * MS, "c", seq_a)  # ... and closes at 12 s
    s.write(tmp_path / "x.pcap")
    a = _an(tmp_path / "x.pcap")
    p = a.periods
    assert p.height == 12 and sorted(set(p["n"].to_list())) == [1, 2]
    assert p.filter(pl.col("n") == 1)["bytes"].to_list() == [6000] * 6
    assert p.filter(pl.col("n") == 2)["bytes"].to_list() == [12000] * 6
    h = a.hosts.row(0, named=True)
    assert h["periods"] == 12 and h["correlation"] == pytest.approx(1.0)
    assert a.summary["hosts_positive_correlation_pct"] == 100.0


def test_loss_epoch_worked_example(tmp_path: Path) -> None:
    """Spec A.5.5's example: n = 4 connections with 4 segments outstanding each, m = 2 lose
    one: concurrent fast recovery 0.75, concurrent timeouts 0.625."""
    s = Script()
    conns = [s.conn(cport=43000 + k) for k in range(4)]
    for k, c in enumerate(conns):
        c.data(k * MS // 10, "c", 1, len(REQ), payload=REQ)
        for i in range(4):
            c.data(10 * MS + i * MS + k * MS // 10, "s", 1 + 1000 * i, 1000, ack=1 + len(REQ))
    rq = 1 + len(REQ)
    for k in (0, 1):  # segment 0 lost: three duplicate ACKs, a fast retransmission
        c = conns[k]
        for d in range(3):
            c.ack(60 * MS + d * MS + k * MS // 10, "c", 1, seq=rq)
        c.data(63 * MS + k * MS // 10, "s", 1, 1000, ack=rq)
        c.ack(113 * MS + k * MS // 10, "c", 4001, seq=rq)
    for k in (2, 3):
        conns[k].ack(65 * MS + k * MS // 10, "c", 4001, seq=rq)
    s.write(tmp_path / "x.pcap")
    e = _an(tmp_path / "x.pcap").epochs
    assert e.height == 1
    r = e.row(0, named=True)
    assert (r["n"], r["m"], r["losers_fast"], r["window_segments"]) == (4, 2, 2, 16.0)
    assert r["factor_concurrent_fast"] == pytest.approx(0.75)
    assert r["factor_concurrent_timeout"] == pytest.approx(0.625)
    assert r["factor_actual"] == pytest.approx(0.75) and r["factor_tcp_timeout"] == pytest.approx(1 / 16)
    assert r["start_s"] == pytest.approx(0.063) and r["end_s"] == pytest.approx(0.1131)


def test_pcapng_sections_interfaces_and_resolutions(tmp_path: Path) -> None:
    """Two sections (little- then big-endian), three interfaces with ns, us and 2**-20 s
    ticks: every packet's time decodes to its true value within the resolution."""
    src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    pkt = ip_tcp(src, dst, 1234, 80, 1, 1, ACK, b"x" * 10)
    eth = b"\x02" * 12 + b"\x08\x00" + pkt
    p = tmp_path / "x.pcapng"
    times = [1_700_000_000_123_456_789, 1_700_000_001_000_001_000, 1_700_000_002_500_000_000]
    with open(p, "wb") as f:
        w = PcapngWriter(f, interfaces=[(1, 9)])
        w.packet(times[0], eth, len(eth))
        w.section([(101, 6), (101, 0x80 | 20)], big_endian=True)
        w.packet(times[1], pkt, len(pkt), iface=0)
        w.packet(times[2], pkt, len(pkt), iface=1)
    st = ReadStats()
    got = [t for b in read_segments(p, st) for t in b.t_ns.tolist()]
    assert (st.sections, st.interfaces, st.tcp) == (2, 3, 3)
    assert got[0] == times[0] and got[1] == times[1] and abs(got[2] - times[2]) < 1000


def test_interval_union_is_exact() -> None:
    import random

    rng = random.Random(7)
    for _ in range(200):
        d, seen = _Dir(), set()
        for _ in range(25):
            a = rng.randrange(0, 200)
            b = a + rng.randrange(1, 30)
            assert d.add_range(a, b) == len(set(range(a, b)) - seen)
            seen |= set(range(a, b))
            assert all(d.ivs_e[k] < d.ivs_s[k + 1] for k in range(len(d.ivs_s) - 1))
            assert sum(e - s for s, e in zip(d.ivs_s, d.ivs_e)) == len(seen)


# --- simulated runs with drops: exact ground truth -------------------------------------------

LOSSY = """
name = "pcap-analyze"
seeds = [1]
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mb", delay = "48ms", queue = {{ kind = "droptail", limit = {limit} }} }}
access = {{ rate = "100Mb", delay = "1ms" }}
[tcp]
window = 100
syn = true
[[flows]]
name = "conn"
count = {count}
app = {{ kind = "rounds", size = "90KB", rounds = 2, jitter = "0s", idle = "1s", first_center = "0.1s" }}
"""


def _simulated(tmp_path: Path, limit: int, count: int) -> tuple[Any, Path]:
    """A run captured at the senders' access links (both directions, at transmission
    start): every data packet the senders send is in the capture, drops happen later."""
    from shortflow.api import run_config
    from shortflow.pcap import write_pcap

    sc = tmp_path / "lossy.toml"
    sc.write_text(LOSSY.format(limit=limit, count=count))
    cfg = shortflow.load(sc).to_sim_config(None, 1)
    cfg["trace"] = {"packets": True}
    res = run_config(cfg)
    names = res.links["link"].to_list()
    idx = [i for i, n in enumerate(names) if re.fullmatch(r"conn\.s\d+->r1|r1->conn\.s\d+", n)]
    assert len(idx) == 2 * count
    pcap = tmp_path / "sim.pcap"
    write_pcap(pcap, res.packets, res.config, idx, event="-")
    return res, pcap


@pytest.mark.parametrize("limit,count", [(5, 3), (3, 4)])
def test_simulated_drops_ground_truth(core, tmp_path: Path, limit: int, count: int) -> None:
    res, pcap = _simulated(tmp_path, limit, count)
    # the simulated senders open the connections and send the data: they are the servers
    a = _an(pcap, server_ports=range(10000, 10000 + count))
    c = a.connections.sort("server_port")
    f = res.flows
    assert int(f["retransmits"].sum()) > 0 and int(f["timeouts"].sum()) > 0, "the run must lose packets"
    assert c["s2c_resent_pkts"].to_list() == f["retransmits"].to_list()
    assert c["s2c_rexmt_timeout"].to_list() == f["timeouts"].to_list()
    assert c["s2c_fast_recoveries"].to_list() == f["fast_retransmits"].to_list()
    assert c["s2c_unique_bytes"].to_list() == f["bytes_acked"].to_list()
    assert (c["s2c_data_pkts"] + 1 + c["s2c_syn_rexmt"]).to_list() == f["data_pkts_sent"].to_list()  # + the SYNs
    assert c["s2c_capture_lost_bytes"].sum() == 0
    assert a.summary["retransmissions"] == int(f["retransmits"].sum())
    if shutil.which("tshark"):
        ts = _tshark_count(pcap, "tcp.analysis.retransmission")
        assert {str(p): n for p, n in zip(c["server_port"], c["s2c_rexmt_pkts"]) if n} == ts
    if shutil.which("tcptrace"):
        tt = _tcptrace(pcap)
        for r in c.iter_rows(named=True):
            assert tt[r["server_port"]] == {"unique": r["s2c_unique_bytes"], "actual": r["s2c_data_bytes"],
                                            "rexmt": r["s2c_tt_rexmt_pkts"]}


@needs_tshark
@needs_tcptrace
def test_mid_path_capture_matches_tshark_and_tcptrace(core, tmp_path: Path) -> None:
    """At the bottleneck (after its queue) drops leave holes that the retransmissions fill
    later: tshark's and tcptrace's counts differ there, and each of our columns matches its tool."""
    from shortflow.api import run_config
    from shortflow.pcap import write_pcap

    sc = tmp_path / "lossy.toml"
    sc.write_text(LOSSY.format(limit=5, count=3))
    cfg = shortflow.load(sc).to_sim_config(None, 1)
    cfg["trace"] = {"packets": True, "links": ["r1->r2", "r2->r1"]}
    res = run_config(cfg)
    names = res.links["link"].to_list()
    pcap = tmp_path / "mid.pcap"
    write_pcap(pcap, res.packets, res.config, [names.index("r1->r2"), names.index("r2->r1")], event="-")
    c = _an(pcap, server_ports=range(10000, 10003)).connections
    ts = _tshark_count(pcap, "tcp.analysis.retransmission")
    ooo = _tshark_count(pcap, "tcp.analysis.out_of_order")
    tt = _tcptrace(pcap)
    for r in c.iter_rows(named=True):
        p = r["server_port"]
        assert r["s2c_rexmt_pkts"] == ts.get(str(p), 0) and r["s2c_out_of_order"] == ooo.get(str(p), 0)
        assert (r["s2c_unique_bytes"], r["s2c_tt_rexmt_pkts"]) == (tt[p]["unique"], tt[p]["rexmt"])
    assert sum(ts.values()) != int(c["s2c_tt_rexmt_pkts"].sum()), "the two definitions differ on this capture"


# --- the command line ----------------------------------------------------------------------


def test_cli_writes_tables_and_figures(tmp_path: Path) -> None:
    s = Script()
    download(s)
    s.write(tmp_path / "x.pcap")
    r = CliRunner().invoke(app, ["pcap", "analyze", str(tmp_path / "x.pcap"), "--out", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    assert "Table 4.1" in r.output and "Total connections" in r.output
    names = {p.name for p in (tmp_path / "out").rglob("*")}
    assert {"connections.parquet", "connections.csv", "periods.csv", "hosts.csv", "epochs.csv", "table_4_1.csv",
            "summary.json", "fig4_4_rwnd_cdf.png", "fig4_5_concurrency.png", "fig4_6_losers.png",
            "fig4_7_backoff.png"} <= names
    df = pl.read_parquet(tmp_path / "out" / "connections.parquet")
    assert df["s2c_unique_bytes"].to_list() == [10_000]
    r = CliRunner().invoke(app, ["pcap", "analyze", str(tmp_path / "x.pcap"), "--json", "-p", "80"])
    assert r.exit_code == 0 and json.loads(r.output)["connections"] == 1


# --- tools --------------------------------------------------------------------------------


def _tshark_count(pcap: Path, flt: str) -> dict[str, int]:
    p = subprocess.run(["tshark", "-n", "-r", str(pcap), "-Y", flt, "-T", "fields", "-e", "tcp.srcport"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return dict(collections.Counter(p.stdout.split()))


def _tcptrace(pcap: Path) -> dict[int, dict[str, int]]:
    """tcptrace -l: per connection, keyed by the port of its host a (the first sender):
    unique bytes, actual data bytes and rexmt data pkts of a->b (the larger of a->b, b->a)."""
    p = subprocess.run(["tcptrace", "-l", "-n", str(pcap)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out: dict[int, dict[str, int]] = {}
    for block in re.split(r"\nTCP connection \d+:", p.stdout)[1:]:
        ports = [int(x) for x in re.findall(r"host \w+:\s+\S+:(\d+)", block)[:2]]
        vals = {k: [int(x) for x in re.findall(rf"{pat}:\s+(\d+)\s", block)]
                for k, pat in (("unique", "unique bytes sent"), ("actual", "actual data bytes"),
                               ("rexmt", "rexmt data pkts"))}
        big = 0 if vals["actual"][0] >= vals["actual"][1] else 1  # the data direction
        out[ports[big]] = {k: v[big] for k, v in vals.items()}
        out[ports[1 - big]] = {k: v[big] for k, v in vals.items()}
    return out
