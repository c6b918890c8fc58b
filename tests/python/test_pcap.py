"""pcap export: sequence space, handshake, payload sizes and addresses, checked by reading
the file back and, when they are installed, with tshark and tcptrace (`make test` installs
both where apt-get is available)."""

from __future__ import annotations

import ipaddress
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import shortflow
from shortflow.api import run_config
from shortflow.pcap import EVENTS, node_ips, ports, write_pcap

P = 1000  # packet_size of the scenarios below
# access 1 ms + bottleneck 48 ms + access 1 ms, each way
PATH_RTT_S = 2 * (0.001 + 0.048 + 0.001)

DUMBBELL = """
name = "pcap-{name}"
seeds = [1]
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mb", delay = "48ms", queue = {{ kind = "droptail", limit = {limit} }} }}
access = {{ rate = "100Mb", delay = "1ms" }}
[tcp]
window = 100
syn = {syn}
[[flows]]
name = "conn"
count = {count}
app = {{ kind = "rounds", size = "90KB", rounds = {rounds}, jitter = "0s", idle = "1s", first_center = "0.1s" }}
"""


def _scenario(tmp_path: Path, *, syn: bool, count: int = 1, limit: int = 100, rounds: int = 1) -> Path:
    name = f"{'syn' if syn else 'nosyn'}-{count}-{limit}-{rounds}"
    p = tmp_path / f"{name}.toml"
    p.write_text(DUMBBELL.format(name=name, syn=str(syn).lower(), count=count, limit=limit, rounds=rounds))
    return p


def _capture(scenario: Path, out: Path, link: str = "r1->r2", event: str = "-") -> tuple[Any, int]:
    """Run with packet tracing and write the pcap of ``link`` (both directions)."""
    cfg = shortflow.load(scenario).to_sim_config(None, 1)
    a, b = link.split("->")
    cfg["trace"] = {"packets": True, "links": [link, f"{b}->{a}"]}
    res = run_config(cfg)
    names = res.links["link"].to_list()
    idx = [i for i, n in enumerate(names) if n in (link, f"{b}->{a}")]
    n = write_pcap(out, res.packets, res.config, idx, event=event)
    return res, n


def _read(path: Path) -> list[dict[str, Any]]:
    """The frames of a pcap written by write_pcap, decoded (Ethernet/IPv4/TCP)."""
    data = path.read_bytes()
    off, rows = 24, []
    while off < len(data):
        sec, usec, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ip, tcp = frame[14:34], frame[34:54]
        total = struct.unpack("!H", ip[2:4])[0]
        sport, dport, seq, ack, _, flags = struct.unpack("!HHIIBB", tcp[:14])
        rows.append({"t": sec + usec / 1e6, "src": ip[12:16], "dst": ip[16:20], "sport": sport, "dport": dport,
                     "seq": seq, "ack": ack, "flags": flags, "len": total - 40, "orig": orig})
    return rows


@pytest.mark.parametrize("syn", [True, False])
def test_sequence_space_and_payloads(core, tmp_path: Path, syn: bool) -> None:
    res, n = _capture(_scenario(tmp_path, syn=syn), tmp_path / "x.pcap")
    rows = _read(tmp_path / "x.pcap")
    assert len(rows) == n > 0
    sport, dport = ports(0)
    fwd = [r for r in rows if r["sport"] == sport]
    rev = [r for r in rows if r["sport"] == dport]
    if syn:
        s, sa = fwd[0], rev[0]
        assert (s["flags"], s["seq"], s["len"]) == (0x02, 0, 0), "SYN: seq 0, no ACK flag, no payload"
        assert (sa["flags"], sa["seq"], sa["ack"]) == (0x12, 0, 1), "SYN/ACK acknowledges the SYN's one number"
        assert sa["t"] > s["t"]
        data = fwd[1:]
        assert all(r["flags"] == 0x10 for r in rev[1:]), "only the first ack is the SYN/ACK"
    else:
        assert not any(r["flags"] & 0x02 for r in rows), "no handshake without syn"
        data = fwd
    # first data byte is ISN + 1; every segment, the header-less ns-2 packet 0 included,
    # carries the flow's packet_size; the stream has no gap and no overlap
    assert data[0]["seq"] == 1
    assert all(r["len"] == P and r["orig"] == 14 + 40 + P and r["flags"] == 0x18 and r["ack"] == 1 for r in data)
    assert [r["seq"] for r in data] == [1 + i * P for i in range(len(data))]
    sent = int(res.flows["bytes_acked"].sum())
    assert sent == 90_000 and len(data) * P == sent
    # every ack acknowledges bytes that were sent, and the last one all of them
    assert max(r["ack"] for r in rev) == 1 + sent
    assert all(r["ack"] - 1 <= sent for r in rev)


def test_addresses_are_hosts(core, tmp_path: Path) -> None:
    ips = node_ips(["r1", "r2", "a", "b"])
    assert [str(ipaddress.IPv4Address(x)) for x in ips] == ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]
    # a listed node keeps its address; the others skip it
    ips = node_ips(["a", "b", "c"], {"b": "10.0.0.1"})
    assert [str(ipaddress.IPv4Address(x)) for x in ips] == ["10.0.0.2", "10.0.0.1", "10.0.0.3"]
    sc = tmp_path / "explicit.toml"
    sc.write_text("""
name = "explicit-addr"
seeds = [1]
[topology]
kind = "explicit"
nodes = ["client", "router", "server"]
links = [
  { src = "server", dst = "router", rate = "10Mb", delay = "5ms" },
  { src = "router", dst = "client", rate = "1Mb", delay = "20ms" },
]
[addresses]
client = "192.168.7.9"
[[flows]]
name = "web"
src = "server"
dst = "client"
app = { kind = "ftp", size = "5KB" }
""")
    _capture(sc, tmp_path / "e.pcap", link="router->client")
    rows = _read(tmp_path / "e.pcap")
    addrs = {str(ipaddress.IPv4Address(r["src"])) for r in rows} | {str(ipaddress.IPv4Address(r["dst"])) for r in rows}
    assert addrs == {"192.168.7.9", "10.0.0.3"}  # the client as given; the server is node 2


def test_unknown_event_is_an_error(core, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"event 'x': one of '-', '\+', 'r', 'd'"):
        write_pcap(tmp_path / "x.pcap", pl.DataFrame(), {"nodes": [], "flows": []}, [], event="x")
    assert set(EVENTS) == {"-", "+", "r", "d"}


# --- with tshark / tcptrace --------------------------------------------------------

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (make test installs it)")
needs_tcptrace = pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace not installed (make test installs it)")


def _tshark(pcap: Path, *args: str) -> str:
    p = subprocess.run(["tshark", "-n", "-r", str(pcap), *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _holes(pcap: Path) -> list[str]:
    """Frames tshark flags as following an uncaptured segment or acking an unseen one."""
    out = _tshark(pcap, "-Y", "tcp.analysis.lost_segment || tcp.analysis.ack_lost_segment",
                  "-T", "fields", "-e", "frame.number", "-e", "_ws.expert.message")
    return [ln for ln in out.splitlines() if ln.strip()]


def _unique_bytes(pcap: Path) -> dict[int, int]:
    """tcptrace -l: unique bytes sent a->b per connection, keyed by the client port."""
    p = subprocess.run(["tcptrace", "-l", "-n", str(pcap)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out: dict[int, int] = {}
    for block in re.split(r"\nTCP connection \d+:", p.stdout)[1:]:
        port = int(re.search(r"host \w+:\s+[\d.]+:(\d+)", block).group(1))  # type: ignore[union-attr]
        out[port] = int(re.search(r"unique bytes sent:\s+(\d+)", block).group(1))  # type: ignore[union-attr]
    return out


def _sent(res: Any) -> dict[int, int]:
    return {ports(k)[0]: int(b) for k, b in enumerate(res.flows["bytes_acked"].to_list())}


@needs_tshark
@pytest.mark.parametrize("syn", [True, False])
def test_tshark_sees_no_holes_and_the_path_rtt(core, tmp_path: Path, syn: bool) -> None:
    pcap = tmp_path / "x.pcap"
    _capture(_scenario(tmp_path, syn=syn, rounds=2), pcap)
    assert _holes(pcap) == []
    irtt = [float(x) for x in _tshark(pcap, "-T", "fields", "-e", "tcp.analysis.initial_rtt").split() if x]
    if syn:
        # SYN -> SYN/ACK -> first data segment, seen at the bottleneck's entry: one path
        # RTT plus the transmission times of a few header-only packets and a segment
        assert irtt and PATH_RTT_S <= irtt[0] <= PATH_RTT_S * 1.01, irtt[:1]
    else:
        assert irtt == [], "no handshake, so no initial RTT"


@needs_tshark
def test_tshark_lossy_holes_only_after_the_queue(core, tmp_path: Path) -> None:
    sc = _scenario(tmp_path, syn=True, count=2, limit=5)
    res, _ = _capture(sc, tmp_path / "before.pcap", event="+")
    drops = int(res.links.filter(pl.col("link") == "r1->r2")["drops"][0])
    assert drops > 0, "the scenario must lose packets at the bottleneck"
    assert _holes(tmp_path / "before.pcap") == [], "before the queue every packet is seen"
    _capture(sc, tmp_path / "after.pcap", event="-")
    holes = _holes(tmp_path / "after.pcap")
    assert 0 < len(holes) <= drops, "after the queue only the queue's drops leave holes"


@needs_tcptrace
@pytest.mark.parametrize("syn", [True, False])
@pytest.mark.parametrize("lossy", [False, True])
def test_tcptrace_unique_bytes_equal_simulated(core, tmp_path: Path, syn: bool, lossy: bool) -> None:
    sc = _scenario(tmp_path, syn=syn, count=2 if lossy else 1, limit=5 if lossy else 100, rounds=2)
    for event in ("-", "+"):
        pcap = tmp_path / f"x{event}.pcap"
        res, _ = _capture(sc, pcap, event=event)
        sent = _sent(res)
        assert sum(sent.values()) == 2 * 90_000 * (2 if lossy else 1)
        assert _unique_bytes(pcap) == sent
