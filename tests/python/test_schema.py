"""Scenario files: validation errors (file, path, value, suggestion) and the expansion
into the core's SimConfig (names checked against config.rs)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from shortflow import ScenarioError, Scenario, load
from shortflow.patch import PathError, merge_patch, set_path

BASE = textwrap.dedent(
    """
    name = "t"
    seeds = [1, 2]
    [topology]
    kind = "dumbbell"
    bottleneck = { rate = "1.6Mb", delay = "50ms", queue = { kind = "droptail", limit = 10 } }
    access = { rate = "10Mb", delay = "1ms" }
    [tcp]
    window = 100
    tcp_tick = "50ms"
    [[flows]]
    name = "conn"
    count = 3
    variant = "newreno"
    startup = { kind = "spand", gateway = "gw" }
    app = { kind = "rounds", size = "30KB", rounds = 4, jitter = "10s", idle = "120s", first_center = "10s" }
    [[flows]]
    name = "telnet"
    count = 2
    variant = "reno"
    app = { kind = "telnet", interval = "0s", start = "0s", start_jitter = "10s" }
    [schemes.reno-ssr]
    flows.conn = { variant = "reno", startup = { kind = "idle_restart" } }
    [schemes.spand]
    [sweep]
    "flows.conn.count" = [1, 2]
    scheme = ["reno-ssr", "spand"]
    """
)


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def error_of(tmp_path: Path, text: str) -> ScenarioError:
    p = write(tmp_path, text)
    with pytest.raises(ScenarioError) as ei:
        load(p)
    assert str(p) in str(ei.value), "the error must name the file"
    return ei.value


def edit(old: str, new: str, text: str = BASE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# --- error paths -------------------------------------------------------------------


def test_typo_in_field_suggests_nearest(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit("window = 100", "windw = 100"))
    assert "tcp.windw = 100" in str(e)
    assert "did you mean 'window'" in str(e)


def test_typo_in_nested_field_uses_flow_name(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('rounds = 4,', 'roudns = 4,'))
    assert "flows.conn.app.roudns" in str(e)
    assert "did you mean 'rounds'" in str(e)


def test_typo_in_kind_suggests(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('kind = "dumbbell"', 'kind = "dumbel"'))
    assert "topology.kind = 'dumbel'" in str(e)
    assert "did you mean 'dumbbell'" in str(e)


def test_typo_in_queue_kind(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('kind = "droptail"', 'kind = "droptial"'))
    assert "topology.bottleneck.queue.kind = 'droptial'" in str(e)
    assert "did you mean 'droptail'" in str(e)


def test_typo_in_variant_literal(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('variant = "newreno"', 'variant = "newrenno"'))
    assert "flows.conn.variant = 'newrenno'" in str(e)
    assert "did you mean 'newreno'" in str(e)


def test_bad_unit(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('delay = "50ms"', 'delay = "50 mss"'))
    assert "topology.bottleneck.delay = '50 mss'" in str(e)
    assert "unknown time unit" in str(e)


def test_missing_unit(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('size = "30KB"', "size = 30000"))
    assert "flows.conn.app.size = 30000" in str(e)
    assert "needs a unit" in str(e)


def test_negative_rate(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('rate = "1.6Mb"', 'rate = "-1.6Mb"'))
    assert "topology.bottleneck.rate = '-1.6Mb'" in str(e)
    assert "greater than zero" in str(e)


def test_wrong_type(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit("count = 3", 'count = "three"'))
    assert "flows.conn.count = 'three'" in str(e)
    assert "integer" in str(e)


def test_wrong_type_table_expected(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('access = { rate = "10Mb", delay = "1ms" }', 'access = "10Mb"'))
    assert "topology.access" in str(e)


def test_missing_required_field(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('access = { rate = "10Mb", delay = "1ms" }', 'access = { rate = "10Mb" }'))
    assert "topology.access.delay: required field is missing" in str(e)


def test_unknown_node_in_explicit_topology(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """
        name = "x"
        [topology]
        kind = "explicit"
        nodes = ["client", "router", "server"]
        links = [ { src = "server", dst = "routr", rate = "10Mb", delay = "5ms" },
                  { src = "router", dst = "client", rate = "1Mb", delay = "20ms" } ]
        [[flows]]
        name = "web"
        src = "servr"
        dst = "client"
        app = { kind = "ftp", size = "20KB" }
        """
    )
    e = error_of(tmp_path, text)
    s = str(e)
    assert "topology.links[0].dst = 'routr'" in s and "did you mean 'router'" in s
    assert "flows.web.src = 'servr'" in s and "did you mean 'server'" in s


def test_explicit_flow_needs_endpoints(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """
        name = "x"
        [topology]
        kind = "explicit"
        nodes = ["a", "b"]
        links = [ { src = "a", dst = "b", rate = "10Mb", delay = "5ms" } ]
        [[flows]]
        name = "web"
        app = { kind = "ftp", size = "20KB" }
        """
    )
    e = error_of(tmp_path, text)
    assert "flows.web.src: required with an explicit topology" in str(e)


def test_unknown_router(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('name = "conn"', 'name = "conn"\nsrc = "r3"'))
    assert "flows.conn.src = 'r3'" in str(e) and "not a router" in str(e)


def test_unknown_gateway_when_declared(tmp_path: Path) -> None:
    text = BASE + '\n[gateways.edge]\nwindow = "300s"\n'
    e = error_of(tmp_path, text)
    assert "flows.conn.startup.gateway = 'gw'" in str(e)


def test_unknown_scheme_in_sweep(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('scheme = ["reno-ssr", "spand"]', 'scheme = ["reno-sr", "spand"]'))
    assert "scheme = 'reno-sr'" in str(e) and "did you mean 'reno-ssr'" in str(e)


def test_bad_sweep_path(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('"flows.conn.count" = [1, 2]', '"flows.con.count" = [1, 2]'))
    assert "flows.con" in str(e) and "did you mean 'conn'" in str(e)


def test_bad_sweep_leaf_field(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('"flows.conn.count" = [1, 2]', '"flows.conn.cont" = [1, 2]'))
    assert "flows.conn.cont" in str(e) and "did you mean 'count'" in str(e)
    assert "sweep axis 'flows.conn.cont'" in str(e)


def test_bad_value_in_scheme(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('flows.conn = { variant = "reno"', 'flows.conn = { variant = "rneo"'))
    assert "flows.conn.variant = 'rneo'" in str(e) and "scheme 'reno-ssr'" in str(e)


def test_seed_is_not_an_axis(tmp_path: Path) -> None:
    e = error_of(tmp_path, BASE + 'seed = [1, 2]\n'.replace("seed", '"seed"') if False else edit("[sweep]", '[sweep]\nseed = [1, 2]'))
    assert "sweep.seed" in str(e)


def test_duplicate_names(tmp_path: Path) -> None:
    e = error_of(tmp_path, edit('name = "telnet"', 'name = "conn"'))
    assert "used twice" in str(e)


def test_duration_needed_without_finite_apps(tmp_path: Path) -> None:
    text = edit('app = { kind = "rounds", size = "30KB", rounds = 4, jitter = "10s", idle = "120s", first_center = "10s" }',
                'app = { kind = "ftp" }')
    e = error_of(tmp_path, text)
    assert "duration: required" in str(e)


def test_invalid_toml(tmp_path: Path) -> None:
    e = error_of(tmp_path, "name = \n")
    assert "not valid TOML" in str(e) and "line 1" in str(e)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        load(tmp_path / "nope.toml")


def test_several_problems_are_listed(tmp_path: Path) -> None:
    text = edit('rate = "1.6Mb"', 'rate = "fast"', edit('delay = "1ms"', 'delay = "1"'))
    e = error_of(tmp_path, text)
    assert "2 problems" in str(e)
    assert len(e.problems) == 2


# --- expansion ---------------------------------------------------------------------


def test_points_and_names() -> None:
    sc = Scenario.from_toml(BASE)
    assert sc.points() == [
        {"flows.conn.count": 1, "scheme": "reno-ssr"},
        {"flows.conn.count": 1, "scheme": "spand"},
        {"flows.conn.count": 2, "scheme": "reno-ssr"},
        {"flows.conn.count": 2, "scheme": "spand"},
    ]
    cfg = sc.to_sim_config(None, seed=7)
    assert cfg["seed"] == 7
    assert cfg["nodes"][:2] == ["r1", "r2"]
    assert "conn.s3" in cfg["nodes"] and "conn.d3" in cfg["nodes"] and "telnet.s2" in cfg["nodes"]
    names = [f["name"] for f in cfg["flows"]]
    assert names == ["conn.1", "conn.2", "conn.3", "telnet.1", "telnet.2"]
    rounds = [a for a in cfg["apps"] if a["kind"] == "rounds"]
    assert len(rounds) == 1 and rounds[0]["flows"] == ["conn.1", "conn.2", "conn.3"]
    assert rounds[0]["size_bytes"] == 30000 and rounds[0]["idle_s"] == 120.0
    assert [a["flow"] for a in cfg["apps"] if a["kind"] == "telnet"] == ["telnet.1", "telnet.2"]
    assert cfg["stop_when_done"] is True
    assert cfg["links"][0] == {"src": "r1", "dst": "r2", "rate_bps": 1.6e6, "delay_s": 0.05,
                               "queue": {"kind": "drop_tail", "limit_pkts": 10}}
    conn1 = cfg["flows"][0]
    assert conn1["src"] == "conn.s1" and conn1["dst"] == "conn.d1"
    assert conn1["tcp"] == {"window": 100, "tcp_tick_s": 0.05, "variant": "newreno"}
    assert conn1["startup"] == {"kind": "spand", "gateway": "gw"}
    assert cfg["gateways"] == [{"name": "gw"}]
    # each connection has its own access links
    assert {"src": "conn.s2", "dst": "r1", "rate_bps": 1e7, "delay_s": 0.001} in cfg["links"]
    assert {"src": "r2", "dst": "conn.d2", "rate_bps": 1e7, "delay_s": 0.001} in cfg["links"]


def test_scheme_and_axis_applied() -> None:
    sc = Scenario.from_toml(BASE)
    cfg = sc.to_sim_config({"flows.conn.count": 2, "scheme": "reno-ssr"}, 1)
    conns = [f for f in cfg["flows"] if f["name"].startswith("conn.")]
    assert len(conns) == 2
    assert conns[0]["tcp"]["variant"] == "reno" and conns[0]["startup"] == {"kind": "idle_restart"}
    assert cfg["gateways"] == []


def test_with_overrides_and_count_zero() -> None:
    sc = Scenario.from_toml(BASE).with_overrides({"flows.telnet.count": 0, "topology.bottleneck.rate": "2Mb"})
    cfg = sc.to_sim_config(None, 1)
    assert not any(f["name"].startswith("telnet") for f in cfg["flows"])
    assert cfg["links"][0]["rate_bps"] == 2e6


def test_chain_with_cross_each_hop(examples: Path) -> None:
    sc = load(examples / "parking_lot.toml")
    cfg = sc.to_sim_config(None, 1)
    assert cfg["nodes"][:3] == ["r1", "r2", "r3"]
    udp = [f for f in cfg["flows"] if f.get("transport") == "udp"]
    assert [f["name"] for f in udp] == ["onoff.h1.1", "onoff.h2.1"]
    # hop 2's cross traffic enters at r2 and leaves at r3
    assert {"src": "onoff.h2.s1", "dst": "r2", "rate_bps": 1e7, "delay_s": 0.001} in cfg["links"]
    assert {"src": "r3", "dst": "onoff.h2.d1", "rate_bps": 1e7, "delay_s": 0.001} in cfg["links"]
    onoff = [a for a in cfg["apps"] if a["kind"] == "on_off"]
    assert onoff[0]["dist"] == "pareto" and onoff[0]["rate_bps"] == 5e5 and onoff[0]["stop_s"] == 15.0
    ftp = [a for a in cfg["apps"] if a["kind"] == "ftp"]
    assert [a["start_s"] for a in ftp] == [1.0, 1.5]


def test_patch_semantics() -> None:
    doc: dict[str, Any] = {"flows": [{"name": "a", "startup": {"kind": "spand", "b": 2}, "count": 1}], "tcp": {"window": 3}}
    merge_patch(doc, {"flows": {"a": {"startup": {"kind": "idle_restart"}}}, "tcp": {"syn": False}})
    assert doc["flows"][0]["startup"] == {"kind": "idle_restart"}
    assert doc["tcp"] == {"window": 3, "syn": False}
    merge_patch(doc, {"flows.a.startup": {"kind": "idle_restart", "x": 1}})
    assert doc["flows"][0]["startup"] == {"kind": "idle_restart", "x": 1}
    set_path(doc, "sink.delack", True)
    assert doc["sink"] == {"delack": True}
    # a named entry replaced whole keeps its name; replaced by a non-table, the error names it
    set_path(doc, "flows.a", {"count": 2})
    assert doc["flows"] == [{"count": 2, "name": "a"}]
    merge_patch(doc, {"flows": {"a": {"count": 3}}})
    assert doc["flows"] == [{"count": 3, "name": "a"}]
    for put in (lambda: set_path(doc, "flows.a", 5), lambda: merge_patch(doc, {"flows": {"a": [1]}})):
        with pytest.raises(PathError) as ei:
            put()
        assert ei.value.problems[0].path == "flows.a", ei.value.problems
    set_path(doc, "flows.0", 7)  # by index: the caller's choice, validated later
    assert doc["flows"] == [7]


# --- the expansion only emits names that config.rs declares ------------------------


def _config_rs_names(root: Path) -> set[str]:
    src = (root / "crates" / "shortflow-core" / "src" / "config.rs").read_text()
    names = set(re.findall(r"^\s*(?:pub\s+)?([a-z_][a-z0-9_]*)\s*:\s*[A-Za-z(<]", src, flags=re.M))
    # externally tagged enums use `kind`; their variant names (snake_case) are values
    names.add("kind")
    return names


def _keys(obj: Any, out: set[str]) -> set[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


def _kinds(obj: Any, out: set[str]) -> set[str]:
    if isinstance(obj, dict):
        if isinstance(obj.get("kind"), str):
            out.add(obj["kind"])
        for v in obj.values():
            _kinds(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _kinds(v, out)
    return out


def _variant_names(root: Path) -> set[str]:
    src = (root / "crates" / "shortflow-core" / "src" / "config.rs").read_text()
    variants = re.findall(r"^\s{4}([A-Z][A-Za-z0-9]*)\s*[({,]", src, flags=re.M)
    return {re.sub(r"(?<!^)([A-Z])", r"_\1", v).lower() for v in variants}


def test_expansion_uses_config_rs_names(root: Path, examples: Path) -> None:
    known = _config_rs_names(root)
    variants = _variant_names(root)
    for path in sorted(examples.glob("*.toml")) + [None]:
        sc = load(path) if path else Scenario.from_toml(BASE)
        for point in sc.points():
            cfg = sc.to_sim_config(point, 1)
            unknown = _keys(cfg, set()) - known
            assert not unknown, f"{path}: keys not in config.rs: {unknown}"
            bad_kinds = _kinds(cfg, set()) - variants
            assert not bad_kinds, f"{path}: kinds not in config.rs: {bad_kinds}"


def test_networks_and_addresses(tmp_path: Path) -> None:
    text = edit('name = "conn"\ncount = 3', 'name = "conn"\ncount = 3\ndst_network = "10.2.0.0/24"') + \
        '\n[addresses]\n"telnet.d1" = "10.3.0.9"\n'
    cfg = load(write(tmp_path, text)).to_sim_config(None, 1)
    assert cfg["addresses"] == {"conn.d1": "10.2.0.1", "conn.d2": "10.2.0.2", "conn.d3": "10.2.0.3",
                                "telnet.d1": "10.3.0.9"}


def test_address_errors(tmp_path: Path) -> None:
    e = error_of(tmp_path, BASE + '\n[addresses]\n"conn.d9" = "10.3.0.9"\n')
    assert "addresses.conn.d9" in str(e) and "unknown node" in str(e)
    e = error_of(tmp_path, BASE + '\n[addresses]\n"conn.d1" = "10.3.0.300"\n')
    assert "not an IPv4 address" in str(e)
    e = error_of(tmp_path, edit('name = "conn"\ncount = 3', 'name = "conn"\ncount = 3\ndst_network = "10.2.0.0/31"'))
    assert "flows.conn.dst_network" in str(e) and "room for 2 hosts" in str(e)
    e = error_of(tmp_path, edit('name = "conn"\ncount = 3', 'name = "conn"\ncount = 3\ndst_network = "10.2.0.1/24"'))
    assert "flows.conn.dst_network = '10.2.0.1/24'" in str(e)


def test_red_queue_options(tmp_path: Path) -> None:
    text = edit('queue = { kind = "droptail", limit = 10 }',
                'queue = { kind = "red", limit = 30, targetdelay = "5ms", mark_p = 0.1, drop_front = true }')
    cfg = load(write(tmp_path, text)).to_sim_config(None, 1)
    assert cfg["links"][0]["queue"] == {"kind": "red", "limit_pkts": 30, "targetdelay_s": 0.005, "mark_p": 0.1,
                                        "drop_front": True}


def test_tcp_boot_time(tmp_path: Path) -> None:
    cfg = load(write(tmp_path, edit("window = 100", 'window = 100\nboot_time = "3ms"'))).to_sim_config(None, 1)
    assert cfg["flows"][0]["tcp"]["boot_time_s"] == 0.003
