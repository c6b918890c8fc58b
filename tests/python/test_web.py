"""The Web workload from scenario files: the simulator agrees with the thesis's analytical
model (``shortflow model web``, ch. 4 §4.2.1 and the spec's A.2.2 extension) in the
model's regime -- no loss, transmission delay negligible against the RTT, one ack per
segment, initial window 1 -- for every mode the model covers; HAR pages; the result
tables."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from shortflow import Scenario
from shortflow.har import HarError, pages_from_har
from shortflow.webmodel import Page, download_rtts

DATA = Path(__file__).parent / "data"

RTT = 0.1  # 2 x 50 ms; at 1 Gb/s a 1500-byte segment takes 12 us


def _model_path(name: str, app: str, mss: int) -> Scenario:
    """One web pair on the model's regime path (1 Gb/s, RTT 100 ms, IW 1); ``app`` is the
    body of the web app's table after ``kind``."""
    return Scenario.from_toml(f"""
name = "{name}"
[topology]
kind = "explicit"
nodes = ["server", "client"]
links = [{{ src = "server", dst = "client", rate = "1Gb", delay = "50ms", queue = {{ kind = "droptail", limit = 100000 }} }}]
[tcp]
window = 100000
window_init = 1
packet_size = {mss}
[[flows]]
name = "web"
src = "server"
dst = "client"
app = {{ kind = "web", {app} }}
""")


def _scenario(mode: str, mss: int, html: int, nimages: int, image: int, extra: str = "") -> Scenario:
    return _model_path("web-model-regime",
                       f'mode = "{mode}", html = "{html}B", images = {nimages}, image = "{image}B"{extra}', mss)


# (MSS, HTML, images, image size): the spec's A.2.1/A.2.2 examples (HTML 5 KB, 4 images)
# and the thesis's ns set-up (1 KB segments, a 1 KB HTML, 10 KB images).
PAGES = [
    (1500, 5120, 4, 10240),
    (576, 5120, 4, 40960),
    (1500, 5120, 4, 250),
    (1024, 1024, 4, 10240),
    (1024, 1024, 10, 10240),
]


@pytest.mark.parametrize("mode", ["seq", "conc", "persistent", "getlist", "getall"])
@pytest.mark.parametrize("mss,html,nimages,image", PAGES)
def test_simulator_agrees_with_the_model(core, mode: str, mss: int, html: int, nimages: int, image: int) -> None:
    res = _scenario(mode, mss, html, nimages, image).simulate(seed=1)
    assert res.pages.height == 1
    sim = res.pages["download_s"][0] / RTT
    model = download_rtts(Page.uniform(html, nimages, image), mss, mode)
    # The model counts round trips only; the simulator adds serialisation (at most a
    # few segments' worth per round here, under 1 % of a round trip) and nothing else.
    assert sim == pytest.approx(model, rel=0.02), f"{mode}: simulated {sim:.4f} RTT, model {model} RTT"
    assert sim >= model, "the model is a lower bound in its regime"


def test_conc_with_k_connections_agrees_with_the_model(core) -> None:
    for k in (1, 2, 4):
        res = _scenario("conc", 1500, 5120, 4, 10240, f", parallel = {k}").simulate(seed=1)
        sim = res.pages["download_s"][0] / RTT
        model = download_rtts(Page.uniform(5120, 4, 10240), 1500, "conc", k)
        assert sim == pytest.approx(model, rel=0.02), (k, sim, model)


def test_tables_and_pages_across_think_times(core) -> None:
    res = _scenario("persistent", 1460, 2000, 2, 3000, ', pages = 3, think = "1s"').simulate(seed=1)
    p, o = res.pages, res.objects
    assert p["page"].to_list() == [0, 1, 2]
    assert p["conns_opened"].to_list() == [1, 0, 0]
    assert p["bytes"].to_list() == [8000] * 3 and p["objects"].to_list() == [3] * 3
    assert o.height == 9 and set(o["conn"].to_list()) == {"web.1-1"}
    # 1 s of think time between a page's end and the next page's start.
    gaps = (p["start_s"][1:] - p["end_s"][:-1]).to_list()
    assert gaps == pytest.approx([1.0, 1.0])
    # Every object's time ends at or before its page's end.
    assert (o["end_s"] <= o["end_s"].max()).all()
    assert o["time_s"].min() > 0


def test_run_out_writes_the_page_tables(core, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from shortflow.cli import app

    sc = tmp_path / "w.toml"
    sc.write_text(_scenario("getlist", 1460, 2000, 2, 3000).text or "")
    r = CliRunner().invoke(app, ["run", str(sc), "--out", str(tmp_path / "out"), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "web pages: 1 (0 unfinished)" in r.output

    pages = pl.read_parquet(tmp_path / "out" / "pages.parquet")
    objects = pl.read_parquet(tmp_path / "out" / "objects.parquet")
    assert pages.height == 1 and objects.height == 3


def test_har_pages() -> None:
    pages = pages_from_har(DATA / "page.har")
    # page_1: the HTML started first (3000 B), then a.png (4000), the 304 is skipped,
    # c.png's body size is unknown so its content size (2500) counts; page_2: one object.
    assert pages == [(3000, [4000, 2500]), (1500, [])]


def test_har_scenario_uses_the_file_next_to_it(core, tmp_path: Path) -> None:
    (tmp_path / "page.har").write_text((DATA / "page.har").read_text())
    sc = tmp_path / "h.toml"
    sc.write_text(_scenario("seq", 1460, 1, 0, 1).text.replace(  # type: ignore[union-attr]
        'html = "1B", images = 0, image = "1B"', 'har = "page.har", pages = 2'))
    from shortflow import load

    res = load(sc).simulate(seed=1)
    assert res.objects["bytes"].to_list() == [3000, 4000, 2500, 1500]
    assert res.pages["conns_opened"].to_list() == [3, 1]


@pytest.mark.parametrize("text,what", [
    ("not json", "is not JSON"),
    ('{"foo": 1}', "no top-level 'log'"),
    ('{"log": {"entries": 3}}', "'log.entries' must be a list"),
    ('{"log": {"pages": [{"id": "p"}], "entries": [{"pageref": "q", "response": {"bodySize": 5}}]}}', "names no page"),
    ('{"log": {"entries": [{"response": {"bodySize": "big"}}]}}', "bodySize: not a number"),
    ('{"log": {"entries": [{"request": {}}]}}', "no 'response'"),
    ('{"log": {"entries": [{"response": {"bodySize": 0}}]}}', "no entry with a body"),
])
def test_malformed_har_is_named(tmp_path: Path, text: str, what: str) -> None:
    p = tmp_path / "bad.har"
    p.write_text(text)
    with pytest.raises(HarError) as ei:
        pages_from_har(p)
    assert what in str(ei.value) and str(p) in str(ei.value)


def test_malformed_har_in_a_scenario_names_the_field(tmp_path: Path) -> None:
    from shortflow import ScenarioError, load

    (tmp_path / "bad.har").write_text(json.dumps({"log": {"entries": []}}))
    sc = tmp_path / "h.toml"
    sc.write_text(_scenario("seq", 1460, 1, 0, 1).text.replace(  # type: ignore[union-attr]
        'html = "1B", images = 0, image = "1B"', 'har = "bad.har"'))
    with pytest.raises(ScenarioError) as ei:
        load(sc).to_sim_config(None, 1)
    assert "flows.web.app.har" in str(ei.value) and "no entry with a body" in str(ei.value)


def _pages_scenario(mode: str, startup: str, extra: str = "") -> Scenario:
    """Pages repeating on a 10 Mb/s, 100 ms path with think time above the RTO."""
    return Scenario.from_toml(f"""
name = "web-startup"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mb", delay = "48ms", queue = {{ kind = "droptail", limit = 200 }} }}
access = {{ rate = "100Mb", delay = "1ms" }}
[tcp]
window = 100
window_init = 1
packet_size = 1460
[[flows]]
name = "web"
startup = {startup}
app = {{ kind = "web", mode = "{mode}", html = "2KB", images = 4, image = "40KB", pages = 4, think = "5s"{extra} }}
""")


@pytest.mark.parametrize("mode", ["seq", "getlist"])
def test_fast_start_reuses_the_path_cache_across_pages(core, mode: str) -> None:
    """Fast Start's cache (the path registry for new connections, its own state on an
    idle persistent one) makes the later pages faster than slow start does."""
    a = _pages_scenario(mode, '"idle_restart"').simulate(seed=1)
    b = _pages_scenario(mode, '{ kind = "fast_start" }').simulate(seed=1)
    plain, fs = a.pages, b.pages
    assert plain.height == fs.height == 4
    # The first object (the first page's HTML) has no history: the same under both.
    assert b.objects["time_s"][0] == pytest.approx(a.objects["time_s"][0], rel=1e-9)
    later_plain, later_fs = plain["download_s"][1:].mean(), fs["download_s"][1:].mean()
    assert later_fs < 0.9 * later_plain, (later_fs, later_plain)


def test_spand_and_fair_share_run_web_pages(core) -> None:
    for startup in ('{ kind = "spand" }', '{ kind = "fair_share", scheme = "liss" }'):
        p = _pages_scenario("conc", startup).simulate(seed=1).pages
        assert p.height == 4 and p["download_s"].null_count() == 0, startup


def test_lost_syns_and_requests_are_sent_again(core) -> None:
    """With a lossy client -> server direction, SYNs and requests are lost; the client
    resends them after ctl_rto (doubling) and every page completes."""
    sc = Scenario.from_toml("""
name = "web-lossy-requests"
[topology]
kind = "explicit"
nodes = ["server", "client"]
links = [{ src = "server", dst = "client", rate = "10Mb", delay = "20ms", loss = 0.0, reverse_loss = 0.3 }]
[tcp]
window_init = 1
[[flows]]
name = "web"
src = "server"
dst = "client"
app = { kind = "web", mode = "getlist", html = "1KB", images = 5, image = "2KB", pages = 20, think = "1s", ctl_rto = "1s" }
""")
    res = sc.simulate(seed=3)
    p = res.pages
    assert p.height == 20 and p["download_s"].null_count() == 0
    # Some page waited for a resent control packet (>= 1 s) ...
    assert p["download_s"].max() >= 1.0
    # ... and the fastest took a few round trips only.
    assert p["download_s"].min() < 0.5


def test_syn_resends_are_the_syn_timeouts(core) -> None:
    """``repro web``'s split of the timeouts (ch6.syn_resends): the server resends its SYN
    segment (sequence 0) only when the SYN timer fires. Lossless: none. With the client ->
    server direction lossy, acks of SYN-ACKs are lost, so some SYNs are resent, and every
    resend is one of the connection's timeouts."""
    from shortflow.api import run_config
    from shortflow.repro.web.ch6 import syn_resends

    def run(loss: float):
        sc = Scenario.from_toml(f"""
name = "web-syn-split"
[topology]
kind = "explicit"
nodes = ["server", "client"]
links = [{{ src = "server", dst = "client", rate = "10Mb", delay = "20ms", reverse_loss = {loss} }}]
[tcp]
window_init = 1
syn = true
[[flows]]
name = "web"
src = "server"
dst = "client"
app = {{ kind = "web", mode = "conc", html = "1KB", images = 4, image = "1KB", pages = 10, think = "1s", ctl_rto = "1s" }}
""")
        cfg = sc.to_sim_config(None, 3)
        cfg["trace"] = {"packets": True, "acks": False, "links": ["server->client"]}
        r = run_config(cfg)
        return r, syn_resends(r, [f["name"] for f in cfg["flows"]], "server->client")

    r, syn = run(0.0)
    assert r.flows.height > 0 and set(syn.values()) == {0} and r.flows["timeouts"].sum() == 0
    r, syn = run(0.3)
    tos = dict(zip(r.flows["flow"].to_list(), r.flows["timeouts"].to_list()))
    assert sum(syn.values()) > 0
    assert all(0 <= syn[f] <= tos[f] for f in syn), (syn, tos)


def _page_scenario(app: str) -> Scenario:
    """One pair on the model's regime path (1 Gb/s, RTT 100 ms, 1500 B segments, IW 1)."""
    return _model_path("web-page-model", app, 1500)


def test_a_page_list_is_used_in_turn_and_each_page_agrees_with_the_model(core) -> None:
    a = Page(1000, (500, 3000, 7000))
    b = Page(2000, (100,))
    lst = '[{ html = "1000B", images = ["500B", "3000B", "7000B"] }, { html = "2000B", images = ["100B"] }]'
    for mode in ("seq", "conc", "getlist", "getall"):
        # idle_close: a persistent connection is closed in the think time, so every page
        # starts on a fresh connection, as the model's formulas assume.
        p = _page_scenario(f'mode = "{mode}", page_list = {lst}, pages = 4, think = "5s"'
                           + (', idle_close = "1s"' if mode in ("getlist", "getall") else "")).simulate(seed=1).pages
        assert p["objects"].to_list() == [4, 2, 4, 2], mode
        assert p["bytes"].to_list() == [11500, 2100, 11500, 2100], mode
        for k, page in enumerate((a, b)):
            model = download_rtts(page, 1460, mode)  # 1500 B packets carry 1460 B of payload
            for t in p["download_s"].to_list()[k::2]:
                assert t / RTT == pytest.approx(model, rel=0.02) and t / RTT >= model, (mode, k, t, model)


def test_server_think_time_delays_every_response(core) -> None:
    base = _page_scenario('mode = "seq", html = "1000B", images = 2, image = "1000B"').simulate(seed=1).pages
    slow = _page_scenario('mode = "seq", html = "1000B", images = 2, image = "1000B", server_think = "30ms"')
    t = slow.simulate(seed=1).pages
    # Three requests in sequence (the HTML and two images), each answered 30 ms later.
    assert t["download_s"][0] - base["download_s"][0] == pytest.approx(3 * 0.030, abs=1e-6)


def test_idle_close_makes_the_next_page_open_a_fresh_connection(core) -> None:
    page = 'mode = "persistent", html = "1000B", images = 2, image = "1000B", pages = 2, think = "2s"'
    kept = _page_scenario(page).simulate(seed=1).pages
    closed = _page_scenario(page + ', idle_close = "1s"').simulate(seed=1).pages
    assert kept["conns_opened"].to_list() == [1, 0]
    assert closed["conns_opened"].to_list() == [1, 1]
    # The fresh connection pays its SYN round trip again.
    assert closed["download_s"][1] - kept["download_s"][1] == pytest.approx(RTT, rel=0.02)


def test_random_pages_follow_their_distributions_per_seed(core) -> None:
    app = ('mode = "seq", pages = 20, random = { html = { kind = "fixed", size = "2KB" }, '
           'image = { kind = "uniform", min = "1KB", max = "8KB" }, images = [1, 4] }')
    sc = _page_scenario(app)
    p1, p1b, p2 = (sc.simulate(seed=s) for s in (1, 1, 2))
    n = p1.pages["objects"] - 1
    assert n.min() >= 1 and n.max() <= 4 and n.n_unique() > 1
    img = p1.objects.filter(pl.col("object") > 0)["bytes"]
    assert img.min() >= 1000 and img.max() <= 8000 and img.n_unique() > 5  # KB = 1000 B
    assert (p1.objects.filter(pl.col("object") == 0)["bytes"] == 2000).all()
    assert p1.pages["bytes"].to_list() == p1b.pages["bytes"].to_list(), "same seed, same pages"
    assert p1.pages["bytes"].to_list() != p2.pages["bytes"].to_list()
