"""The scenario fields for ECN, sink ack rules, queue victims and stages, node elements
and the path registry: each reaches the core's configuration under its core name (with
the core's defaults where omitted), and a scenario using them all runs -- with visible
effects (marks instead of drops, fewer acks, paced acks). Bad values: test_bad_input.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import shortflow
from shortflow import Scenario
from shortflow.cli import app

runner = CliRunner()

SMALL = """
name = "ecn-acks-pacer"
duration = "{duration}"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "1.5Mb", delay = "20ms", queue = {queue}, reverse_queue = {{ kind = "red", setbit = true, stages = ["ack_filter", "acks_first"] }} }}
access = {{ rate = "10Mb", delay = "1ms" }}
[tcp]
window = 100
ecn = {ecn}
[sink]
ect_acks = true
ack_policy = {ack_policy}
[[flows]]
name = "bulk"
count = 4
app = {{ kind = "ftp" }}
{extra}
"""

#: RED that marks (ECN) instead of dropping early; the limit is large so that overflow
#: drops are rare and the early decisions dominate.
RED_SETBIT = '{ kind = "red", limit = 1000, setbit = true, use_mark_p = false, stages = [{ kind = "ack_filter" }] }'
PACER = '[[elements]]\nkind = "pacer"\nnode = "r2"\ninterval = "1ms"\npackets = "acks"\n[paths]\nprefix_len = 24\n'


def small(*, ecn: bool = True, queue: str = RED_SETBIT, ack_policy: str = '{ kind = "every_d", d = 2 }',
          extra: str = PACER, duration: str = "20s") -> str:
    return SMALL.format(ecn="true" if ecn else "false", queue=queue, ack_policy=ack_policy, extra=extra,
                        duration=duration)


def resolved(text: str) -> dict[str, Any]:
    from shortflow.native import resolve

    return resolve(Scenario.from_toml(text).to_sim_config(None, 1))


# --- round trips into the core's configuration ---------------------------------------


def test_every_new_field_reaches_the_core(core) -> None:
    cfg = resolved(small())
    flow = cfg["flows"][0]
    assert flow["tcp"]["ecn"] is True
    assert flow["sink"]["ect_acks"] is True and flow["sink"]["ts_echo_bugfix"] is True
    assert flow["sink"]["ack_policy"] == {"kind": "every_d", "d": 2, "interval_s": 0.1}  # core default interval
    assert flow["sink"]["delack"] is False
    bn = cfg["links"][0]
    assert bn["queue"]["kind"] == "red" and bn["queue"]["setbit"] is True and bn["queue"]["victim"] is None
    assert bn["queue"]["stages"] == [{"kind": "ack_filter", "replace_head": False}]
    assert bn["reverse_queue"]["stages"] == [{"kind": "ack_filter", "replace_head": False}, {"kind": "acks_first"}]
    assert cfg["elements"] == [{"kind": "pacer", "node": "r2", "interval_s": 0.001, "packets": "acks"}]
    assert cfg["paths"] == {"prefix_len": 24}


@pytest.mark.parametrize("toml, core_value", [
    ('"every_packet"', {"kind": "every_packet"}),
    ('{ kind = "every_packet" }', {"kind": "every_packet"}),
    ('"delayed"', {"kind": "delayed", "interval_s": 0.1}),
    ('{ kind = "delayed", interval = "40ms" }', {"kind": "delayed", "interval_s": 0.04}),
    ('{ kind = "every_d", d = 3, interval = "200ms" }', {"kind": "every_d", "d": 3, "interval_s": 0.2}),
])
def test_ack_policy_forms(core, toml: str, core_value: dict[str, Any]) -> None:
    assert resolved(small(ack_policy=toml))["flows"][0]["sink"]["ack_policy"] == core_value


def test_group_ack_policy_over_scenario_delack(core) -> None:
    """[sink] delack = true for every group; one group switches to an ack_policy by
    setting delack = false beside it (ack_policy with delack = true is an error)."""
    text = small(extra='[[flows]]\nname = "other"\nsink = { delack = false, ack_policy = "every_packet" }\n'
                       'app = { kind = "ftp" }\n').replace("ack_policy = {", "delack = true\n# ack_policy = {")
    cfg = resolved(text)
    sinks = {f["name"]: f["sink"] for f in cfg["flows"]}
    assert sinks["bulk.1"]["delack"] is True and sinks["bulk.1"]["ack_policy"] is None
    assert sinks["other.1"]["delack"] is False and sinks["other.1"]["ack_policy"] == {"kind": "every_packet"}


@pytest.mark.parametrize("queue, expected", [
    ("10", {"kind": "drop_tail", "limit_pkts": 10, "victim": "tail", "stages": []}),
    ('{ kind = "droptail", victim = "front" }', {"kind": "drop_tail", "limit_pkts": 50, "victim": "front", "stages": []}),
    ('{ kind = "drop_tail", limit = 5, victim = "low_priority_first", stages = ["acks_first"] }',
     {"kind": "drop_tail", "limit_pkts": 5, "victim": "low_priority_first", "stages": [{"kind": "acks_first"}]}),
    ('{ kind = "droptail", victim = "random", stages = [{ kind = "ack_filter", replace_head = true }] }',
     {"kind": "drop_tail", "limit_pkts": 50, "victim": "random", "stages": [{"kind": "ack_filter", "replace_head": True}]}),
    ('{ kind = "drop_priority", stages = ["ack_filter"] }',
     {"kind": "drop_priority", "limit_pkts": 50, "stages": [{"kind": "ack_filter", "replace_head": False}]}),
])
def test_drop_tail_and_drop_priority_queues(core, queue: str, expected: dict[str, Any]) -> None:
    assert resolved(small(queue=queue))["links"][0]["queue"] == expected


@pytest.mark.parametrize("red, victim", [
    ("{}", None), ('{ victim = "front" }', "front"), ('{ victim = "random", drop_front = false }', "random"),
    ('{ drop_rand = true }', None),
])
def test_red_victim(core, red: str, victim: Any) -> None:
    q = red.replace("{", '{ kind = "red", ' if red != "{}" else '{ kind = "red" ', 1)
    assert resolved(small(queue=q))["links"][0]["queue"]["victim"] == victim


def test_queue_options_in_every_topology_builder(core) -> None:
    """Chain hops, access links and explicit links take the same queue tables."""
    chain = """
name = "c"
duration = "1s"
[topology]
kind = "chain"
routers = 3
hops = [{ rate = "1Mb", delay = "1ms", queue = { kind = "droptail", stages = ["acks_first"] } },
        { rate = "1Mb", delay = "1ms", queue = { kind = "red", victim = "front" } }]
access = { rate = "10Mb", delay = "1ms", queue = { kind = "droptail", victim = "front" } }
[[flows]]
name = "f"
app = { kind = "ftp" }
[[elements]]
kind = "pacer"
node = "f.d1"
interval = "2ms"
"""
    cfg = resolved(chain)
    assert cfg["links"][0]["queue"]["stages"] == [{"kind": "acks_first"}]
    assert cfg["links"][1]["queue"]["victim"] == "front"
    assert all(ln["queue"]["victim"] == "front" for ln in cfg["links"][2:])
    assert cfg["elements"] == [{"kind": "pacer", "node": "f.d1", "interval_s": 0.002, "packets": "all"}]
    explicit = """
name = "e"
duration = "1s"
[topology]
kind = "explicit"
nodes = ["a", "b"]
[[topology.links]]
src = "a"
dst = "b"
rate = "1Mb"
delay = "1ms"
queue = { kind = "drop_priority", stages = ["ack_filter"] }
reverse_queue = { kind = "droptail", victim = "random" }
[[flows]]
name = "f"
src = "a"
dst = "b"
app = { kind = "ftp" }
[[elements]]
kind = "pacer"
node = "b"
interval = "1ms"
packets = "data"
"""
    cfg = resolved(explicit)
    assert cfg["links"][0]["queue"]["stages"] == [{"kind": "ack_filter", "replace_head": False}]
    assert cfg["links"][0]["reverse_queue"]["victim"] == "random"
    assert cfg["elements"][0]["packets"] == "data"


def test_new_fields_can_be_swept(core) -> None:
    """The new fields are ordinary scenario paths: --set and sweep axes reach them."""
    sc = Scenario.from_toml(small() + '\n[sweep]\n"tcp.ecn" = [true, false]\n"paths.prefix_len" = [16, 32]\n')
    cfgs = [sc.to_sim_config(p, 1) for p in sc.points()]
    assert sorted((c["flows"][0]["tcp"]["ecn"], c["paths"]["prefix_len"]) for c in cfgs) == [
        (False, 16), (False, 32), (True, 16), (True, 32)]


# --- runs --------------------------------------------------------------------------


def _run_cli(tmp_path: Path, text: str, name: str, *set_: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    scen = tmp_path / f"{name}.toml"
    scen.write_text(text)
    out = tmp_path / name
    args = ["run", str(scen), "--seed", "1", "--out", str(out)]
    for s in set_:
        args += ["--set", s]
    r = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    return pl.read_parquet(out / "flows.parquet"), pl.read_parquet(out / "links.parquet")


def _drops(links: pl.DataFrame, link: str) -> int:
    return int(links.filter(pl.col("link") == link)["drops"].sum())


def test_shortflow_run_marks_instead_of_dropping(core, tmp_path: Path) -> None:
    """`shortflow run` on a scenario with every new field (ECN senders, RED setbit with an
    ack filter, ECN-capable acks from an every-2nd-segment sink, paced acks at r2, a path
    registry prefix) completes; with ECN, RED marks what it would drop early, so the
    same scenario without ECN loses and retransmits far more."""
    text = small()
    flows_ecn, links_ecn = _run_cli(tmp_path, text, "ecn")
    flows_drop, links_drop = _run_cli(tmp_path, text, "noecn", "tcp.ecn=false")
    assert flows_ecn.height == 4 and (flows_ecn["bytes_acked"] > 0).all()
    assert (flows_drop["bytes_acked"] > 0).all()
    d_ecn, d_drop = _drops(links_ecn, "r1->r2"), _drops(links_drop, "r1->r2")
    assert d_drop > 100 and d_ecn * 2 < d_drop, (d_ecn, d_drop)
    rtx_ecn, rtx_drop = int(flows_ecn["retransmits"].sum()), int(flows_drop["retransmits"].sum())
    assert rtx_ecn * 2 < rtx_drop, (rtx_ecn, rtx_drop)
    # here RED marks every time it would drop early (and the queue never overflows): no
    # loss at all, yet every sender's window was cut (ssthresh far below the 100-packet
    # window it starts from) -- by ECN echoes, i.e. by marks
    assert d_ecn == 0 and (flows_ecn["retransmits"] == 0).all() and (flows_ecn["timeouts"] == 0).all()
    assert (flows_ecn["final_ssthresh"] < 20).all(), flows_ecn
    # marks need both ends: an ECN sender through a RED queue that does not set the bit
    # is dropped as much as a sender without ECN
    _, links_nobit = _run_cli(tmp_path, text, "nobit", "topology.bottleneck.queue.setbit=false")
    assert _drops(links_nobit, "r1->r2") * 2 > d_drop


def test_every_d_sink_sends_fewer_acks(core) -> None:
    """An every-4th-segment sink puts fewer acks on the reverse path than one ack per packet."""
    acks = {}
    for policy in ('"every_packet"', '{ kind = "every_d", d = 4 }'):
        res = shortflow.run_config(Scenario.from_toml(small(ack_policy=policy, extra="")).to_sim_config(None, 1))
        acks[policy] = int(res.links.filter(pl.col("link") == "r2->r1")["arrivals"].sum())
    assert acks['{ kind = "every_d", d = 4 }'] * 2 < acks['"every_packet"'], acks


def test_pacer_spaces_the_acks(core) -> None:
    """Acks paced at r2 to one per 50 ms: a 30-packet transfer acked every 2nd segment
    (15 acks, the first one unpaced) takes at least 14 x 50 ms, well beyond its unpaced time."""
    def completion(extra: str) -> float:
        text = small(ecn=False, queue="50", ack_policy='{ kind = "every_d", d = 2 }', extra=extra).replace(
            'app = { kind = "ftp" }', 'app = { kind = "ftp", size = "30KB" }').replace("count = 4", "count = 1")
        res = shortflow.run_config(Scenario.from_toml(text).to_sim_config(None, 1))
        return float(res.transfers["completion_s"][0])

    free = completion("")
    paced = completion('[[elements]]\nkind = "pacer"\nnode = "r2"\ninterval = "50ms"\npackets = "acks"\n')
    assert paced >= 14 * 0.05 and paced > free + 0.3, (free, paced)


def test_config_json_shows_new_fields(core, tmp_path: Path) -> None:
    """`shortflow config` prints the core configuration with the new fields resolved."""
    scen = tmp_path / "s.toml"
    scen.write_text(small())
    r = runner.invoke(app, ["config", str(scen)])
    assert r.exit_code == 0, r.output
    cfg = json.loads(r.output)
    assert cfg["paths"]["prefix_len"] == 24 and cfg["elements"][0]["kind"] == "pacer"
