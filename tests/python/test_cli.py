"""The command line, through typer's CliRunner (and a subprocess for the entry point)."""

from __future__ import annotations

import json
import os
import stat
import struct
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

import shortflow
from shortflow.cli import app, mount_logs, parse_sets
from shortflow.pcap import ip_checksum

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def test_help_lists_commands() -> None:
    r = invoke("--help")
    assert r.exit_code == 0
    for cmd in ("run", "sweep", "plot", "report", "trace", "iw", "bench", "logs", "check", "config", "model"):
        assert cmd in r.output


def test_parse_sets() -> None:
    assert parse_sets(["a.b=4", "x=2Mb", "s=spand", "t=true", 'q={kind="red"}', "l=[1, 2]", "f=1.5"]) == {
        "a.b": 4, "x": "2Mb", "s": "spand", "t": True, "q": {"kind": "red"}, "l": [1, 2], "f": 1.5}


def test_check_ok(examples: Path) -> None:
    r = invoke("check", examples / "dumbbell_quick.toml")
    assert r.exit_code == 0, r.output
    assert "4 point(s) x 2 seed(s) = 8 task(s)" in r.output


def test_schema_error_is_one_clean_message(tmp_path: Path, examples: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((examples / "dumbbell_quick.toml").read_text().replace("window = 100", "windw = 100"))
    for cmd in ("check", "run", "sweep", "config", "trace"):
        extra = ["--pcap", str(tmp_path / "x.pcap")] if cmd == "trace" else []
        r = invoke(cmd, bad, *extra)
        assert r.exit_code == 2, (cmd, r.output)
        assert "Traceback" not in r.output
        assert str(bad) in r.output and "tcp.windw" in r.output and "did you mean 'window'" in r.output


def test_bad_set_and_unknown_scheme(examples: Path) -> None:
    r = invoke("run", examples / "dumbbell_quick.toml", "--set", "nonsense")
    assert r.exit_code == 2 and "PATH=VALUE" in r.output
    r = invoke("run", examples / "dumbbell_quick.toml", "--set", "scheme=spnad")
    assert r.exit_code == 2 and "did you mean 'spand'" in r.output
    r = invoke("run", examples / "dumbbell_quick.toml", "--set", "topology.bottleneck.rate=fast")
    assert r.exit_code == 2 and "topology.bottleneck.rate = 'fast'" in r.output


def test_missing_file() -> None:
    r = invoke("run", "does/not/exist.toml")
    assert r.exit_code == 2 and "no such file" in r.output


def test_run_with_out(core, examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = invoke("run", examples / "dumbbell_quick.toml", "--seed", "2", "--set", "flows.conn.count=1",
               "--set", "scheme=newreno-ssr", "--out", out)
    assert r.exit_code == 0, r.output
    assert "dumbbell-quick seed 2" in r.output and "3 transfers" in r.output
    df = pl.read_parquet(out / "results.parquet")
    assert df.height == 3 and df["scheme"].to_list() == ["newreno-ssr"] * 3 and df["seed"].to_list() == [2] * 3
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["seed"] == 2 and cfg["flows"][0]["startup"] == {"kind": "idle_restart"}
    assert (out / "links.parquet").exists() and (out / "flows.parquet").exists()


def test_config_prints_resolved(core, examples: Path) -> None:
    r = invoke("config", examples / "explicit_small.toml")
    assert r.exit_code == 0, r.output
    cfg = json.loads(r.output)
    assert cfg["flows"][0]["sink"]["delack"] is True and cfg["flows"][0]["tcp"]["window"] == 20


def test_iw_json(core) -> None:
    r = invoke("iw", "--size", "30", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    for k in ("cwnd_opt", "cwnd_opt_no_shift", "F_E", "rtts_saved", "schedule_spand", "schedule_slow_start"):
        assert k in d
    assert d["F"] == 30 and d["wc"] == 20 and d["F_E"] == core.f_e(20)
    assert d["cwnd_opt"] == core.cwnd_opt(30, 20)
    assert d["rtts_saved"] == d["rtts_slow_start"] - d["rtts_spand"]
    same = json.loads(invoke("iw", "--size", "30KB", "--mss", "1KB", "--json").output)
    assert same["cwnd_opt"] == d["cwnd_opt"] and same["F"] == 30
    ceil = json.loads(invoke("iw", "--size", "30001B", "--json").output)
    assert ceil["F"] == 31
    ns = json.loads(invoke("iw", "--size", "30", "--no-shift", "--delack", "2", "--wc", "40", "--json").output)
    assert ns["window"] == ns["cwnd_opt_no_shift"] == core.cwnd_opt(30, 40, 2.0, False)
    human = invoke("iw", "--size", "30")
    assert human.exit_code == 0 and "cwnd_opt" in human.output and "packets per RTT" in human.output


def test_iw_errors(core) -> None:
    r = invoke("iw", "--size", "30XB")
    assert r.exit_code == 2 and "--size" in r.output and "unknown size unit" in r.output
    r = invoke("iw", "--size", "30", "--wc", "0")
    assert r.exit_code == 2


def test_sweep_plot_report(core, examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "sw"
    r = invoke("sweep", examples / "dumbbell_quick.toml", "--out", out, "--jobs", "1", "--no-progress")
    assert r.exit_code == 0, r.output
    assert "8 tasks" in r.output and "8 computed" in r.output
    r = invoke("sweep", examples / "dumbbell_quick.toml", "--out", out, "--jobs", "2", "--no-progress")
    assert "0 computed, 8 from cache" in r.output
    r = invoke("plot", out)
    assert r.exit_code == 0, r.output
    pngs = list((out / "plots").glob("*.png"))
    assert pngs and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "dumbbell-quick" in html
    assert "[schemes.newreno-ssr]" in html  # the scenario text
    assert "newreno-ssr" in html and "<table>" in html


def test_plot_without_results(tmp_path: Path) -> None:
    r = invoke("plot", tmp_path)
    assert r.exit_code == 2 and "results.parquet" in r.output


def test_plot_categorical_only(core, examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "single"
    assert invoke("run", examples / "explicit_small.toml", "--out", out).exit_code == 0
    r = invoke("plot", out)
    assert r.exit_code == 0, r.output
    assert len(list((out / "plots").glob("*.png"))) == 2  # bars + CDF
    assert invoke("report", out, "--link").exit_code == 0
    assert "src='plots/" in (out / "report.html").read_text()


def _read_pcap(path: Path) -> list[tuple[int, int, bytes]]:
    data = path.read_bytes()
    magic, vmaj, vmin, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert magic == 0xA1B2C3D4 and (vmaj, vmin) == (2, 4) and linktype == 1
    pkts, off = [], 24
    while off < len(data):
        sec, usec, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        pkts.append((sec * 1_000_000 + usec, orig, data[off + 16: off + 16 + incl]))
        off += 16 + incl
    return pkts


def test_trace_pcap_and_events(core, examples: Path, tmp_path: Path) -> None:
    pcap, ev = tmp_path / "t.pcap", tmp_path / "e.parquet"
    r = invoke("trace", examples / "dumbbell_quick.toml", "--pcap", pcap, "--events", ev)
    assert r.exit_code == 0, r.output
    events = pl.read_parquet(ev)
    assert {"time_s", "event", "link", "flow", "kind", "seqno", "size"} <= set(events.columns)
    assert set(events["event"].unique()) <= {"+", "-", "d", "r"}
    assert set(events["kind"].unique()) <= {"data", "ack", "udp"}
    assert "r1->r2" in set(events["link"])
    pkts = _read_pcap(pcap)
    sent = events.filter((pl.col("event") == "-") & pl.col("link").is_in(["r1->r2", "r2->r1"]))
    assert len(pkts) == sent.height > 0
    times = [t for t, _, _ in pkts]
    assert times == sorted(times)
    kinds = {"data": 0, "ack": 0}
    for _, orig, frame in pkts:
        assert frame[12:14] == b"\x08\x00"
        ip = frame[14:34]
        assert ip_checksum(ip) == 0, "IPv4 header checksum"
        assert ip[12:14] == b"\x0a\x00" and ip[16:18] == b"\x0a\x00"  # 10.0.x.y
        total = struct.unpack("!H", ip[2:4])[0]
        assert orig == 14 + total
        assert ip[9] == 6
        tcp = frame[34:54]
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, total - 20)
        assert ip_checksum(pseudo + tcp) == 0, "TCP checksum (zero payload)"
        kinds["ack" if tcp[13] == 0x10 else "data"] += 1
    assert kinds["data"] > 0 and kinds["ack"] > 0


def test_trace_bad_link(core, examples: Path, tmp_path: Path) -> None:
    r = invoke("trace", examples / "dumbbell_quick.toml", "--pcap", tmp_path / "x.pcap", "--link", "r1->r3")
    assert r.exit_code == 2 and "did you mean 'r1->r2'" in r.output
    r = invoke("trace", examples / "dumbbell_quick.toml")
    assert r.exit_code == 2 and "nothing to write" in r.output


def _bench_root(tmp_path: Path, examples: Path) -> Path:
    import shortflow

    root = tmp_path / "repo"
    (root / "tests" / "golden" / "ns2").mkdir(parents=True)
    (root / "tools" / "ns2").mkdir(parents=True)
    (root / "tools" / "ns2" / "bench.tcl").write_text("# stand-in\n")
    cfg = shortflow.load(examples / "parking_lot.toml").to_sim_config(None, 1)
    for w in "abc":
        (root / "tests" / "golden" / "ns2" / f"bench_{w}.config.json").write_text(json.dumps(cfg))
    return root


def test_bench_json_without_ns(core, examples: Path, tmp_path: Path) -> None:
    root = _bench_root(tmp_path, examples)
    r = invoke("bench", "--json", "--root", root, "--no-ns2", "-w", "a", "-w", "b", "-w", "c")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert set(d["workloads"]) == {"a", "b", "c"}
    for w in d["workloads"].values():
        assert w["pkts_per_s"] > 0 and w["ns2_pkts_per_s"] is None and w["ratio"] is None
    c = d["workloads"]["c"]
    if sys.platform.startswith("linux"):  # the resident set is read from /proc
        assert c["tcp_connections"] >= 1
        assert c["idle_bytes_per_conn"] >= 0 and c["idle_bytes_per_conn_with_hosts"] >= 0


def test_bench_with_fake_ns(core, examples: Path, tmp_path: Path, monkeypatch) -> None:
    root = _bench_root(tmp_path, examples)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    ns = bindir / "ns"
    ns.write_text("#!/bin/sh\necho \"workload $2\"\necho 'delivered_pkts 1000'\n")
    ns.chmod(ns.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    r = invoke("bench", "--json", "--root", root, "-w", "a")
    assert r.exit_code == 0, r.output
    w = json.loads(r.output)["workloads"]["a"]
    assert w["ns2_delivered_pkts"] == 1000 and w["ns2_pkts_per_s"] > 0
    assert w["ratio"] == pytest.approx(w["pkts_per_s"] / w["ns2_pkts_per_s"])
    human = invoke("bench", "--root", root, "-w", "a")
    assert human.exit_code == 0 and "speed-up" in human.output


def test_bench_lookahead_same_packets_fewer_events(core, root: Path, tmp_path: Path) -> None:
    """`bench --lookahead` runs the core with lookahead: the dumbbell delivers the same
    packets with fewer events (its acks enter the ack link's computed queue ahead), and
    the report says which it ran."""
    repo = tmp_path / "repo"
    (repo / "tests" / "golden" / "ns2").mkdir(parents=True)
    cfg = json.loads((root / "tests" / "golden" / "ns2" / "bench_a.config.json").read_text())
    cfg["duration_s"] = 60.0
    (repo / "tests" / "golden" / "ns2" / "bench_a.config.json").write_text(json.dumps(cfg))
    runs = {}
    for flag in ([], ["--lookahead"]):
        r = invoke("bench", "--json", "--root", repo, "--no-ns2", "-w", "a", *flag)
        assert r.exit_code == 0, r.output
        runs[bool(flag)] = json.loads(r.output)
    plain, ahead = runs[False], runs[True]
    assert plain["lookahead"] is False and ahead["lookahead"] is True
    a, b = plain["workloads"]["a"], ahead["workloads"]["a"]
    assert a["delivered_pkts"] == b["delivered_pkts"] > 1000
    assert a["events_per_pkt"] == pytest.approx(a["events"] / a["delivered_pkts"])
    # One arrival event per ack less (one ack per data packet, no delayed acks).
    assert a["events_per_pkt"] - b["events_per_pkt"] > 0.9
    human = invoke("bench", "--root", repo, "--no-ns2", "-w", "a", "--lookahead")
    assert human.exit_code == 0 and "lookahead" in human.output and "events/pkt" in human.output


def test_core_run_lookahead_same_results(core, root: Path) -> None:
    """The core's `run` with `lookahead=True`: the same results but the event count."""
    cfg = json.loads((root / "tests" / "golden" / "ns2" / "dumbbell_newreno_4_plain.config.json").read_text())
    text = json.dumps(cfg)
    plain, ahead = json.loads(core.run(text)), json.loads(core.run(text, None, None, True))
    assert ahead["stats"]["events"] < plain["stats"]["events"]
    for r in (plain, ahead):
        for k in ("events", "wall_s", "sim_bytes"):
            r["stats"].pop(k, None)
    assert plain == ahead


def test_bench_missing_configs(core, tmp_path: Path) -> None:
    (tmp_path / "tests" / "golden" / "ns2").mkdir(parents=True)
    r = invoke("bench", "--json", "--root", tmp_path, "--no-ns2", "-w", "a", "-w", "b", "-w", "c")
    assert r.exit_code == 0
    assert all(w["error"] for w in json.loads(r.output)["workloads"].values())


def test_bench_scale_workload(core) -> None:
    from shortflow.bench import run_scale, scale_scenario

    # 1000 connections: the group reaches the core as one replica.
    cfg = shortflow.Scenario.from_dict(scale_scenario(1000)).to_sim_config(seed=1)
    assert cfg["replicas"][0]["count"] == 1000 and len(cfg["nodes"]) == 2
    r = run_scale([1000, 2000])
    assert set(r["sizes"]) == {"1000", "2000"}
    for n, e in r["sizes"].items():
        assert "error" not in e, e
        # About 30 packets per connection (30 KB in 1000-byte packets, less the unfinished).
        assert 20 * int(n) <= e["delivered_pkts"] <= 40 * int(n)
        assert e["peak_rss_bytes"] > e["base_rss_bytes"] >= e["imports_rss_bytes"] > 0 and e["bytes_per_conn"] > 0
        # The warm-up takes polars' and the allocators' one-time set-up out of the count.
        assert e["bytes_per_conn_cold"] >= e["bytes_per_conn"]
        assert e["ns_per_pkt"] == pytest.approx(1e9 * e["cpu_s"] / e["delivered_pkts"])
        assert e["config_bytes"] < 2000
        # The simulation's own structures: a few hundred bytes to a few KB per connection
        # (with its hosts and access links), below the whole process's growth.
        assert 300 < e["sim_bytes_per_conn"] < 4000 and e["sim_bytes"] == pytest.approx(e["sim_bytes_per_conn"] * int(n))
        assert 0 < e["core_cpu_s"] <= e["run_cpu_s"] <= e["cpu_s"]
        assert e["core_ns_per_pkt"] == pytest.approx(1e9 * e["core_cpu_s"] / e["delivered_pkts"])
    # Linearity: the simulation's own time per packet (whole process kept for reference).
    sz = r["sizes"]
    assert r["linearity"] == pytest.approx(sz["2000"]["core_ns_per_pkt"] / sz["1000"]["core_ns_per_pkt"])
    assert r["linearity_run"] == pytest.approx(sz["2000"]["run_ns_per_pkt"] / sz["1000"]["run_ns_per_pkt"])
    assert r["linearity_all"] == pytest.approx(sz["2000"]["ns_per_pkt"] / sz["1000"]["ns_per_pkt"])
    with pytest.raises(ValueError, match="n = 0"):
        scale_scenario(0)
    bad = invoke("bench", "-w", "scale", "--scale-max", "999")
    assert bad.exit_code != 0 and "--scale-max" in bad.output


def test_logs_mount_is_guarded(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "shortflow.logs.cli", None)  # import fails
    target = typer.Typer()

    @target.command()
    def other() -> None:
        pass

    assert mount_logs(target) is False
    r = runner.invoke(target, ["logs", "anything"])
    assert r.exit_code == 1 and "not available" in r.output


def test_entry_point_subprocess(subprocess_env: dict[str, str]) -> None:
    r = subprocess.run([sys.executable, "-m", "shortflow", "--version"], capture_output=True, text=True, env=subprocess_env)
    assert r.returncode == 0 and r.stdout.startswith("shortflow ")
    r = subprocess.run([sys.executable, "-m", "shortflow", "sweep", "nope.toml", "--backend", "mpi"],
                       capture_output=True, text=True, env=subprocess_env)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_bench_sweep_workload(core, root: Path, monkeypatch) -> None:
    """The sweep workload runs `shortflow sweep` of small tasks with --jobs 1 and 2 and
    reports each sweep's own statistics and the ratio of their tasks/s."""
    from shortflow import bench

    r = bench.run_sweep_bench(root, tasks=40)
    assert r["tasks"] == 40 and set(r["jobs"]) == {"1", "2"}
    for j, e in r["jobs"].items():
        st = e["stats"]
        assert "error" not in e and st["tasks"] == 40 and st["slots"] == int(j), e
        assert sum(st["by_worker"].values()) == 40 and st["tasks_per_s"] > 0 and e["wall_s"] > st["elapsed_s"] > 0
    assert r["jobs2_over_jobs1"] == pytest.approx(r["jobs"]["2"]["stats"]["tasks_per_s"]
                                                  / r["jobs"]["1"]["stats"]["tasks_per_s"])
    monkeypatch.setattr(bench, "SWEEP_TASKS", 8)
    human = invoke("bench", "--root", root, "--no-ns2", "-w", "sweep")
    assert human.exit_code == 0, human.output
    assert "8 small tasks" in human.output and "tasks/s" in human.output and "--jobs 2 over --jobs 1" in human.output
    assert "delivered pkts" not in human.output  # no empty table of the packet workloads
    missing = bench.run_sweep_bench(root / "nowhere", tasks=8)
    assert "not found" in missing["error"] and missing["jobs"] == {}
