"""Large flow groups are written as core replicas (``SimConfig.replicas``): the
configuration they stand for is exactly the one written out connection by connection,
the runs are identical, and groups that cannot be replicas stay written out."""

from __future__ import annotations

import copy
import json

import pytest

from shortflow import Scenario
from shortflow import expand
from shortflow.errors import SimulationError
from shortflow.expand import expand_replicas, flow_names
from shortflow.native import run_config

DOC = {
    "name": "replicas",
    "duration": "30s",
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "2Mb", "delay": "20ms", "queue": {"kind": "droptail", "limit": 15}},
        "access": {"rate": "10Mb", "delay": "2ms"},
        "dst_access": {"rate": "5Mb", "delay": "3ms", "reverse_rate": "1Mb"},
    },
    "flows": [
        {"name": "web", "count": 3, "app": {"kind": "rounds", "size": "10KB", "rounds": 2, "jitter": "1s",
                                            "idle": "1s", "first_center": "1s"}},
        {"name": "c", "count": 7, "variant": "reno", "sink": {"delack": True},
         "app": {"kind": "ftp", "size": "20KB", "start": "0.1s", "stagger": "17.3ms", "start_jitter": "50ms"}},
        {"name": "bulk", "count": 4, "app": {"kind": "ftp", "duration": "5s", "stagger": "1s"}},
    ],
}


def _configs(monkeypatch, doc=DOC) -> tuple[dict, dict]:
    """The configuration with replicas (groups of >= 2 connections) and the one written
    out as before (no replicas at all)."""
    monkeypatch.setattr(expand, "REPLICA_MIN_COUNT", 2)
    compact = Scenario.from_dict(copy.deepcopy(doc)).to_sim_config(seed=3)
    monkeypatch.setattr(expand, "REPLICA_MIN_COUNT", 10**9)
    full = Scenario.from_dict(copy.deepcopy(doc)).to_sim_config(seed=3)
    return compact, full


def test_trailing_groups_become_replicas_and_expand_to_the_old_config(monkeypatch) -> None:
    compact, full = _configs(monkeypatch)
    # The rounds group is not replicable; the two FTP groups after it are.
    assert [r["name"] for r in compact["replicas"]] == ["c", "bulk"]
    assert "replicas" not in full
    assert expand_replicas(compact) == full
    assert flow_names(compact) == [f["name"] for f in full["flows"]]
    assert len(json.dumps(compact)) < len(json.dumps(full)) / 2


def test_replicas_run_identically(core, monkeypatch) -> None:
    compact, full = _configs(monkeypatch)
    a, b = run_config(compact), run_config(full)
    assert a.transfers.height > 0
    for t in ("transfers", "flows", "links"):
        assert getattr(a, t).equals(getattr(b, t)), t
    assert a.stats["events"] == b.stats["events"]
    assert a.flow_names() == b.flow_names()


def test_groups_followed_by_others_stay_written_out(monkeypatch) -> None:
    monkeypatch.setattr(expand, "REPLICA_MIN_COUNT", 2)
    doc = copy.deepcopy(DOC)
    # A non-replicable group (a session) last: no group before it can be a replica.
    doc["flows"].append({"name": "s", "count": 2, "conns_per_host": 2, "session": {},
                         "app": {"kind": "ftp", "size": "5KB"}})
    assert "replicas" not in Scenario.from_dict(doc).to_sim_config(seed=1)
    # Cross traffic is written after the flow groups: no replicas either.
    doc = copy.deepcopy(DOC)
    doc["cross"] = [{"name": "u", "kind": "cbr", "rate": "100kb"}]
    assert "replicas" not in Scenario.from_dict(doc).to_sim_config(seed=1)
    # Hosts with addresses from a network, or an app waiting for another group: not replicable.
    for change in ({"src_network": "10.2.0.0/16"}, {"app": {"kind": "ftp", "start_after": ["web"]}}):
        doc = copy.deepcopy(DOC)
        doc["flows"] = [doc["flows"][0], {**doc["flows"][1], **change}]
        assert "replicas" not in Scenario.from_dict(doc).to_sim_config(seed=1), change


def test_default_threshold_leaves_small_groups_written_out() -> None:
    cfg = Scenario.from_dict(copy.deepcopy(DOC)).to_sim_config(seed=1)
    assert "replicas" not in cfg and len(cfg["flows"]) == 14
    big = copy.deepcopy(DOC)
    big["flows"][2]["count"] = expand.REPLICA_MIN_COUNT
    big["flows"][2]["app"]["stagger"] = "1ms"
    cfg = Scenario.from_dict(big).to_sim_config(seed=1)
    assert [r["name"] for r in cfg["replicas"]] == ["bulk"]
    assert len(cfg["flows"]) == 10 and not any(n.startswith("bulk.s") for n in cfg["nodes"])


@pytest.mark.parametrize("field, value, shown", [
    ("count", 0, "= 0: must be at least 1"),
    ("src", "r7", "= r7: unknown node"),
    ("name", "", '= "": replica names must not be empty'),
])
def test_core_names_bad_replica_fields(core, monkeypatch, field: str, value, shown: str) -> None:
    compact, _ = _configs(monkeypatch)
    compact["replicas"][0][field] = value
    with pytest.raises(SimulationError) as e:
        run_config(compact)
    # The entry (with its name, as for every core list) and the field, then the value.
    msg = str(e.value)
    assert "replicas[0] (" in msg and f").{field} {shown}" in msg, msg
