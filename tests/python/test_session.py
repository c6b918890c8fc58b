"""TCP session from the scenario side: ``conns_per_host`` puts consecutive connections on
one host pair, ``session`` becomes each connection's core ``session`` table, and the
session scenarios of ``scenarios/web/session`` run."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from shortflow import Scenario, load

ROOT = Path(__file__).resolve().parents[2]

DOC = """
name = "s"
duration = "5s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "1.5Mb", delay = "50ms", queue = 20 }
access = { rate = "100Mb", delay = "1ms" }
[[flows]]
name = "page"
count = 8
conns_per_host = 4
session = { scheduler = "weighted", weights = [4, 1, 1, 1], subsessions = ["a", "a", "b", "b"] }
app = { kind = "rounds", rounds = 1, size = "10KB", jitter = "10ms", idle = "0s", first_center = "10ms" }
"""


def test_conns_per_host_share_hosts_and_carry_the_session() -> None:
    cfg = Scenario.from_toml(DOC).to_sim_config(None, 1)
    flows = cfg["flows"]
    assert [(f["src"], f["dst"]) for f in flows] == [("page.s1", "page.d1")] * 4 + [("page.s2", "page.d2")] * 4
    assert [f["session"]["weight"] for f in flows] == [4, 1, 1, 1] * 2
    assert [f["session"]["subsession"] for f in flows] == ["a", "a", "b", "b"] * 2
    assert all(f["session"]["scheduler"] == "weighted" for f in flows)
    # Two host pairs: two access links each side, not eight.
    assert sum(1 for link in cfg["links"] if link["src"].startswith("page.s")) == 2


def test_the_session_scenarios_run() -> None:
    sc = load(ROOT / "scenarios/web/session/fig7_2.toml")
    t = sc.simulate(1, {"scheme": "session"}).transfers
    done = dict(zip(t["flow"], t["completion_s"]))
    assert done["short.1"] < done["long.1"], done
    sc = load(ROOT / "scenarios/web/session/fig6_8.toml")
    for scheme in ("httpconc", "session", "session-noilr"):
        t = sc.simulate(1, {"scheme": scheme, "flows.page.count": 8}).transfers
        assert t.height == 8 and t["end_s"].is_not_null().all(), scheme
        assert (t.filter(pl.col("flow").is_in([f"page.{i}" for i in range(1, 5)]))["bytes"] == 10000).all()


WEB = """
name = "w"
[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mb", delay = "50ms", queue = 100 }
access = { rate = "100Mb", delay = "1ms" }
[tcp]
window_init = 1
[[flows]]
name = "web"
count = 2
session = { linger = "0.5s" }
app = { kind = "web", mode = "conc", html = "1KiB", images = 4, image = "10KiB" }
"""


def test_a_web_group_with_session_puts_each_pairs_connections_in_one_session() -> None:
    sc = Scenario.from_toml(WEB)
    flows = sc.to_sim_config(None, 1)["flows"]
    # Two pairs x (HTML + 4 images): every connection carries the session table, and a
    # pair's connections share its two hosts (one session per pair in the core).
    assert len(flows) == 10
    assert all(f["session"] == {"linger_s": 0.5} for f in flows)
    assert {(f["src"], f["dst"]) for f in flows[:5]} == {("web.s1", "web.d1")}
    assert {(f["src"], f["dst"]) for f in flows[5:]} == {("web.s2", "web.d2")}
    # On this empty, fast path the session is one round slower than independent connections:
    # 44 image segments from the HTML's window of 2 take 5 rounds (2, 4, 8, 16, 14), four
    # connections of 11 segments from 1 each take 4 (1, 2, 4, 4).
    with_session = sc.simulate(seed=1).pages["download_s"].to_list()
    plain = Scenario.from_toml(WEB.replace('session = { linger = "0.5s" }\n', "")).simulate(seed=1)
    for a, b in zip(with_session, plain.pages["download_s"].to_list()):
        assert abs((a - b) - 0.104) < 0.005, (a, b)  # one RTT: 2 x (50 + 2 x 1) ms


SETWT = """
name = "w"
duration = "40s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "1.5Mb", delay = "50ms", queue = 20 }
access = { rate = "100Mb", delay = "1ms" }
[tcp]
packet_size = "1024B"
window = 32
[[flows]]
name = "c"
count = 2
conns_per_host = 2
session = { scheduler = "hrr", weights = [1, 1], setwt = [{ at = "20s", weights = [1, 9] }] }
app = { kind = "ftp", start = "0s" }
"""


def test_a_timed_setwt_changes_the_hrr_shares_from_then_on() -> None:
    sc = Scenario.from_toml(SETWT)
    cfg = sc.to_sim_config(None, 1)
    assert [f["session"]["setwt"] for f in cfg["flows"]] == [[{"at_s": 20.0, "weight": 1}], [{"at_s": 20.0, "weight": 9}]]
    assert all(f["session"]["scheduler"] == "hrr" for f in cfg["flows"])
    from shortflow.api import run_config

    cfg["trace"] = {"acks": True, "packets": False, "links": []}
    acks = run_config(cfg).acks

    def acked(flow: int, t0: float, t1: float) -> int:
        q = acks.filter(pl.col("flow") == flow)
        at = lambda t: q.filter(pl.col("time_ns") <= t * 1e9)["ackno"].max()  # noqa: E731
        return at(t1) - at(t0)

    before = [acked(k, 5, 19) for k in (0, 1)]
    after = [acked(k, 22, 39) for k in (0, 1)]
    assert abs(before[0] - before[1]) <= 2, before
    assert 8 <= after[1] / after[0] <= 10, after
