"""The thesis's analytical Web download-time model (spec thesis-http-session A.2)."""

from __future__ import annotations

import math

import pytest

from shortflow.webmodel import Page, download_rtts, lower_bounds, object_time, rounds, segments, table

KB = 1024  # the spec's convention (A.2.1)

# Spec A.2.1: image size -> (segs, t(img), T_seq, T_conc) for MSS 576 and MSS 1500;
# HTML 5 KB, 4 images.
A21 = {
    250: ((1, 2, 13, 7), (1, 2, 12, 6)),
    1 * KB: ((2, 3, 17, 8), (1, 2, 12, 6)),
    5 * KB: ((9, 5, 25, 10), (4, 4, 20, 8)),
    10 * KB: ((18, 6, 29, 11), (7, 4, 20, 8)),
    20 * KB: ((36, 7, 33, 12), (14, 5, 24, 9)),
    40 * KB: ((72, 8, 37, 13), (28, 6, 28, 10)),
    100 * KB: ((178, 9, 41, 14), (69, 8, 36, 12)),
}


@pytest.mark.parametrize("image", sorted(A21))
def test_fig_4_2_worked_examples(image: int) -> None:
    for mss, (segs, t_img, t_seq, t_conc) in zip((576, 1500), A21[image]):
        page = Page.uniform(5 * KB, 4, image)
        assert segments(image, mss) == segs
        assert object_time(image, mss) == t_img
        assert download_rtts(page, mss, "seq") == t_seq
        assert download_rtts(page, mss, "conc") == t_conc
    assert lower_bounds(4) == {"seq_min": 5, "conc_min": 2}


def test_html_times() -> None:
    assert object_time(5 * KB, 576) == 5
    assert object_time(5 * KB, 1500) == 4


@pytest.mark.parametrize(
    "mss,image,expected",
    [(1500, 10 * KB, (20, 8, 9, 7, 6)), (576, 40 * KB, (37, 13, 12, 10, 10)), (1500, 250, (12, 6, 8, 5, 4))],
)
def test_persistent_extension_examples(mss: int, image: int, expected: tuple) -> None:
    # Spec A.2.2: T_seq, T_conc, T_pc, T_gl, T_ga in RTTs.
    page = Page.uniform(5 * KB, 4, image)
    got = tuple(download_rtts(page, mss, m) for m in ("seq", "conc", "persistent", "getlist", "getall"))
    assert got == expected


def test_thesis_simulation_sanity_checks() -> None:
    # A.2.1: 1 KB HTML (1 segment), ten 10 KB images, MSS 1 KB, RTT 400 ms: httpseq
    # ~21 s, httpconc 2.8 s, "over 7X".
    page = Page.uniform(1 * KB, 10, 10 * KB)
    t = table(page, 1 * KB, rtt_s=0.4)
    assert t["seq"] == pytest.approx(20.8)
    assert t["conc"] == pytest.approx(2.8)
    assert t["seq"] / t["conc"] > 7
    page4 = Page.uniform(1 * KB, 4, 10 * KB)
    t = table(page4, 1 * KB, rtt_s=0.1)
    assert t["seq"] == pytest.approx(2.2) and t["conc"] == pytest.approx(0.7)


def test_rounds_is_the_ceiling_of_log2() -> None:
    for w in (1, 2, 3, 5, 10):
        for n in range(1, 500):
            assert rounds(n, w) == math.ceil(math.log2(n / w + 1) - 1e-12)
    assert rounds(0, 4) == 0


def test_k_parallel_connections() -> None:
    page = Page.uniform(5 * KB, 4, 10 * KB)
    assert download_rtts(page, 1500, "conc", k=1) == download_rtts(page, 1500, "seq")
    assert download_rtts(page, 1500, "conc", k=2) == 4 + 2 * 4
    assert download_rtts(page, 1500, "conc", k=4) == download_rtts(page, 1500, "conc")


def test_model_orderings_hold_everywhere() -> None:
    for mss in (536, 576, 1460, 1500):
        for image in (100, 1000, 5000, 20000, 100000):
            for n in (1, 4, 10):
                p = Page.uniform(5 * KB, n, image)
                t = {m: download_rtts(p, mss, m) for m in ("seq", "conc", "persistent", "getlist", "getall")}
                assert t["conc"] <= t["seq"]
                assert t["getlist"] <= t["persistent"] <= t["seq"]
                assert t["getall"] <= t["getlist"]
                assert t["conc"] >= 2 and t["seq"] >= 1 + n


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: download_rtts(Page(0, (1,)), 1500, "seq"), "html_bytes = 0"),
        (lambda: download_rtts(Page(10, (5, -1)), 1500, "seq"), r"image_bytes\[1\] = -1"),
        (lambda: download_rtts(Page(10, (5,)), 0, "seq"), "mss = 0"),
        (lambda: download_rtts(Page(10, (5,)), 1500, "pipelined"), "mode = 'pipelined'"),
        (lambda: download_rtts(Page(10, (5, 5)), 1500, "conc", k=3), "k = 3"),
        (lambda: table(Page(10, (5,)), 1500, rtt_s=-1.0), "rtt = -1"),
    ],
)
def test_bad_arguments_are_named(call, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        call()


def test_cli_model_web() -> None:
    import json

    from typer.testing import CliRunner

    from shortflow.cli import app

    r = CliRunner().invoke(app, ["model", "web", "--mss", "1500B", "--image", "10KB", "--rtt", "100ms", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["html_bytes"] == 5120 and out["image_bytes"] == 10240
    assert out["rtts"] == {"seq": 20, "conc": 8, "persistent": 9, "getlist": 7, "getall": 6, "seq_min": 5, "conc_min": 2}
    assert out["seconds"]["seq"] == pytest.approx(2.0)
    r = CliRunner().invoke(app, ["model", "web", "--images", "10", "--k", "2"], env={"COLUMNS": "200"})
    assert r.exit_code == 0 and "concurrent (k = 2)" in r.output
    for args, msg in ((["--image", "-3KB"], "--image = '-3KB'"), (["--k", "5"], "--k = 5"), (["--rtt", "0s"], "--rtt"),
                      (["--mss", "0B"], "--mss")):
        r = CliRunner().invoke(app, ["model", "web", *args])
        assert r.exit_code == 2, (args, r.output)
        assert msg in r.output and "Traceback" not in r.output
