"""The Python scenario schema and the core's configuration and results agree (issue 13,
item 8): every field of the core's fully-defaulted ``SimConfig`` can be produced by
``expand``, the Python side's copies of core defaults and integer bounds equal the core's,
and every result column the Python side reads exists in the core's results."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from shortflow import Scenario, load
from shortflow.errors import SimulationError
from shortflow.expand import TCP_DEFAULTS
from shortflow.results import SCHEMAS
from shortflow.scenario import TRANSFER_COLUMNS
from shortflow.schema import MAX_SEED, U32_MAX

DATA = Path(__file__).parent / "data"

#: Core fields the scenario schema deliberately does not expose, with the reason.
NOT_IN_SCHEMA = {
    # The UDP agent's packetSize_: cross traffic sets its generator's packet_size, which
    # decides the sizes actually sent (ns-2 behaves the same).
    "flows[].udp",
    "flows[].udp.packet_size",
}

#: A second scenario for what the first cannot hold at once: an explicit topology with a
#: simplex link (``duplex = false``).
EXPLICIT = """
name = "explicit-simplex"
duration = "1s"
[topology]
kind = "explicit"
nodes = ["a", "b", "c"]
links = [{ src = "a", dst = "b", rate = "1Mb", delay = "1ms", loss = 0.01, reverse_loss = 0.0 },
         { src = "b", dst = "c", rate = "1Mb", delay = "1ms", duplex = false }]
[sink]
ack_policy = { kind = "acc", d_init = 2, d_max = 25, interval = "100ms" }
[[flows]]
name = "f"
src = "a"
dst = "b"
app = { kind = "ftp" }
[flows.tcp.cc]
kind = "vienna"
size = "known"
schedule = "doubling"
max_interval = 100
window_model = "p2"
full_grid = true
loss_weight = 0.5
model_b = 1
ns2_first_decrease_halves = true
"""


#: The Linux profile's own tables (issue 19): its ack rule, start-up and CUBIC, every field set.
LINUX = """
name = "linux-every-field"
duration = "1s"
[topology]
kind = "explicit"
nodes = ["a", "b"]
links = [{ src = "a", dst = "b", rate = "1.6Mb", delay = "50ms", queue = 11 }]
[tcp]
profile = "linux"
cc = "cubic"
[sink]
ack_policy = { kind = "linux", ato_min = "40ms", delack_max = "500ms", quickacks_max = 16, init_rcv_wnd = 44, rto_min = "200ms", rto_init = "1s" }
[[flows]]
name = "f"
src = "a"
dst = "b"
startup = { kind = "linux", slow_start_after_idle = true, exit = "hystart" }
app = { kind = "ftp", size = "30KB" }
"""


#: Large flow groups become core replicas (``SimConfig.replicas``, see
#: ``expand.REPLICA_MIN_COUNT``): every replica field, with both ends of an FTP lifetime.
REPLICAS = """
name = "replicas-every-field"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "45Mb", delay = "10ms" }
access = { rate = "100Mb", delay = "1ms", queue = { kind = "droptail", limit = 20 }, reverse_queue = { kind = "droptail", limit = 30, victim = "front" }, reverse_rate = "50Mb", reverse_delay = "2ms", loss = 0.001, reverse_loss = 0.002 }
dst_access = { rate = "10Mb", delay = "2ms", queue = 40, reverse_queue = 30, reverse_rate = "1Mb", reverse_delay = "3ms", loss = 0.001, reverse_loss = 0.0 }
[[flows]]
name = "sized"
count = 1000
sink = { delack = true }
startup = "idle_restart"
app = { kind = "ftp", size = "30KB", start = "1ms", stagger = "1ms", start_jitter = "1ms" }
[[flows]]
name = "lived"
count = 1000
app = { kind = "ftp", duration = "1s" }
[[flows]]
name = "stopped"
count = 1000
app = { kind = "ftp", stop = "5s" }
"""


#: A replica's tables are the core's flow and link types, written by the same expansion
#: code (``connection_settings``, ``_link``): their fields are covered where flows and links
#: are, so their paths count as those.
REPLICA_ALIASES = [("replicas[].tcp", "flows[].tcp"), ("replicas[].sink", "flows[].sink"),
                   ("replicas[].startup", "flows[].startup"), ("replicas[].access", "links[]"),
                   ("replicas[].dst_access", "links[]")]


def _alias(paths: set[str]) -> set[str]:
    out = set()
    for p in paths:
        for a, b in REPLICA_ALIASES:
            if p == a or p.startswith(a + "."):
                p = b + p[len(a):]
                break
        out.add(p)
    return out


def _paths(o: Any, prefix: str = "") -> set[str]:
    """Every key path of a JSON document, list items as ``[]``."""
    out: set[str] = set()
    if isinstance(o, dict):
        for k, v in o.items():
            p = f"{prefix}.{k}" if prefix else k
            out.add(p)
            out |= _paths(v, p)
    elif isinstance(o, list):
        for v in o:
            out |= _paths(v, prefix + "[]")
    return out


#: A socket buffer and a multiplexed connection (thesis §7.1.2.2), every field set. Apart
#: from every_field.toml: that scenario's top-level ``tcp`` reaches its TCP session's
#: members, which take no socket buffer.
MUX = """
name = "mux-every-field"
duration = "10s"
[topology]
kind = "explicit"
nodes = ["a", "b"]
links = [{ src = "a", dst = "b", rate = "1Mb", delay = "10ms" }]
[tcp]
sndbuf = "8KiB"
[[flows]]
name = "m"
src = "a"
dst = "b"
app = { kind = "mux", policy = "round_robin", chunk = "2KiB", streams = [{ start = "0s", size = "20KB", priority = 0 }, { start = "1s", size = "5KB", priority = 1 }] }
"""


def _scenarios() -> list[Scenario]:
    return [load(DATA / "every_field.toml"), Scenario.from_toml(EXPLICIT), Scenario.from_toml(LINUX),
            Scenario.from_toml(REPLICAS), Scenario.from_toml(MUX)]


def test_expand_produces_every_core_field(core) -> None:
    from shortflow.native import resolve

    produced: set[str] = set()
    accepted: set[str] = set()
    for sc in _scenarios():
        cfg = sc.to_sim_config(None, 1)
        produced |= _alias(_paths(cfg))
        accepted |= _alias(_paths(resolve(cfg)))
    missing = accepted - produced - NOT_IN_SCHEMA
    assert not missing, f"core fields no scenario can set (add them to schema.py/expand.py): {sorted(missing)}"
    unknown = produced - accepted
    assert not unknown, f"expand emits fields the core does not know: {sorted(unknown)}"


def test_every_schema_field_is_in_the_maximal_scenario() -> None:
    """The maximal scenario really sets every field of the schema (else the test above
    could miss a core field that only an unset schema field produces)."""
    from shortflow import schema

    sc = load(DATA / "every_field.toml")
    raw = sc.raw
    tables = {
        schema.TcpOptions: raw["tcp"],
        schema.SinkOptions: raw["sink"],
        schema.RedQueue: raw["topology"]["bottleneck"]["queue"],
        schema.DropPriorityQueue: raw["topology"]["bottleneck"]["reverse_queue"],
        schema.DropTailQueue: raw["topology"]["access"]["queue"],
        schema.AckFilterStage: raw["topology"]["bottleneck"]["queue"]["stages"][0],
        schema.EveryDAcks: raw["sink"]["ack_policy"],
        schema.PacerElement: raw["elements"][0],
        schema.AckReconsElement: raw["elements"][1],
        schema.SenderAdaptationCc: raw["tcp"]["cc"],
        schema.Recovery: raw["tcp"]["recovery"],
        schema.AccAcks: Scenario.from_toml(EXPLICIT).raw["sink"]["ack_policy"],
        schema.PathsOptions: raw["paths"],
        schema.SpandStartup: raw["flows"][0]["startup"],
        schema.FastStartStartup: raw["flows"][2]["startup"],
        schema.FairShareStartup: raw["flows"][3]["startup"],
        schema.PageOptions: raw["flows"][2]["app"]["page"],
        schema.GatewayOptions: raw["gateways"]["gw"],
        schema.OnOffCross: raw["cross"][0],
        schema.CbrCross: raw["cross"][1],
        schema.TraceOptions: raw["trace"],
    }
    # The Web app's page sources exclude each other: the union of the www groups sets them all.
    webs = [f["app"] for f in raw["flows"] if f.get("app", {}).get("kind") == "web"]
    assert not set(schema.WebApp.model_fields) - set().union(*webs), "every_field.toml: set every WebApp field in a www group"
    mux = Scenario.from_toml(MUX).raw
    for model, table in tables.items():
        # `at` (per hop) and src/dst exclude each other: each is set in one of the two.
        unset = set(model.model_fields) - set(table) - ({"at"} if "src" in table else {"src", "dst"})
        if model is schema.TcpOptions:
            unset -= set(mux["tcp"])  # sndbuf: set in MUX (a session takes none)
        assert not unset, f"{model.__name__}: set these in data/every_field.toml: {sorted(unset)}"
    for model, table in ((schema.MuxApp, mux["flows"][0]["app"]), (schema.MuxStream, mux["flows"][0]["app"]["streams"][0])):
        unset = set(model.model_fields) - set(table)
        assert not unset, f"{model.__name__}: set these in MUX: {sorted(unset)}"


def test_python_copies_of_core_defaults(core) -> None:
    from shortflow.native import resolve

    cfg = Scenario.from_toml(EXPLICIT).to_sim_config(None, 1)
    tcp = resolve(cfg)["flows"][0]["tcp"]
    for key, value in TCP_DEFAULTS.items():
        assert tcp[key] == value, f"expand.TCP_DEFAULTS[{key!r}] = {value}, the core's default is {tcp[key]}"


@pytest.mark.parametrize("path", ["flows[0].tcp.window", "flows[0].tcp.maxburst", "flows[0].tcp.packet_size",
                                  "flows[0].sink.ack_size", "links[0].queue.limit_pkts"])
def test_schema_integer_bounds_match_the_core(core, path: str) -> None:
    """The schema's largest integer (u32) is accepted by the core, one more is not: the
    schema rejects exactly what the core cannot hold."""
    from shortflow.native import resolve

    base = Scenario.from_toml(EXPLICIT).to_sim_config(None, 1)

    def with_value(v: int) -> dict[str, Any]:
        cfg = copy.deepcopy(base)
        cfg["links"][0].setdefault("queue", {"kind": "drop_tail"})
        cur: Any = cfg
        parts = path.replace("[0]", ".0").split(".")
        for p in parts[:-1]:
            cur = cur[int(p)] if p.isdigit() else cur.setdefault(p, {})
        cur[parts[-1]] = v
        return cfg

    resolve(with_value(U32_MAX))
    with pytest.raises(SimulationError) as ei:
        resolve(with_value(U32_MAX + 1))
    assert str(U32_MAX + 1) in str(ei.value) and parts_named(path, str(ei.value))


def parts_named(path: str, message: str) -> bool:
    """The translated core message names the field (its last path segment)."""
    return path.rsplit(".", 1)[-1] in message


def test_seed_bound_matches_the_core_and_the_results(core) -> None:
    from shortflow.native import resolve

    sc = Scenario.from_toml(EXPLICIT)
    assert resolve(sc.to_sim_config(None, MAX_SEED))["seed"] == MAX_SEED
    df = sc.run(seed=MAX_SEED)  # the results' seed column (Int64) holds it
    assert df["seed"].to_list() == [MAX_SEED] * df.height


def test_result_columns_the_python_side_reads_exist(core) -> None:
    from shortflow.native import resolve_json, run_json

    sc = load(DATA / "every_field.toml")
    cfg = sc.to_sim_config(None, 1)
    cfg["trace"]["packets"] = True
    out = json.loads(run_json(resolve_json(cfg)))
    for table, schema in SCHEMAS.items():
        assert table in out, f"results.SCHEMAS has {table!r}; the core's results do not"
        cols = set(out[table])
        missing = set(schema) - cols
        assert not missing, f"{table}: columns read by results.py missing from the core: {sorted(missing)}"
        extra = cols - set(schema)
        assert not extra, f"{table}: core columns without a dtype in results.SCHEMAS: {sorted(extra)}"
    derived = {"group", "connection"}  # from the core's `flow` (scenario.annotate_transfers)
    assert set(TRANSFER_COLUMNS) - derived <= set(out["transfers"])
    assert "stats" in out and {"events", "sim_end_s"} <= set(out["stats"])
    df = sc.run(seed=1)
    assert df.height > 0 and set(TRANSFER_COLUMNS) <= set(df.columns)
