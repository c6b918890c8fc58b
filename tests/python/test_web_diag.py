"""The web reproduction's diagnosis helpers (``shortflow.repro.web.diag``): the counts the
README's diagnoses quote, on hand-built packet traces with known answers, and one real
diagnosis end to end."""

from __future__ import annotations

import polars as pl

from shortflow.repro.web import diag

PLUS, MINUS, DROP = ord("+"), ord("-"), ord("d")


def trace(rows: list[tuple[float, int, str, int, int]]) -> pl.DataFrame:
    """``events`` frames from (time, event, flow name, kind, seqno) on the downstream link."""
    return pl.DataFrame({
        "t": [r[0] for r in rows], "event": [r[1] for r in rows], "lname": [diag.DOWN] * len(rows),
        "fname": [r[2] for r in rows], "flow": [int(r[2].split("-")[1]) for r in rows],
        "kind": [r[3] for r in rows], "seqno": [r[4] for r in rows],
        "pair": [r[2].split("-")[0] for r in rows], "uid": list(range(len(rows))),
    })


# Connection 1: segments 1-3, segment 2 dropped and resent 0.3 s later (acks);
# connection 2: segments 1-2, its last segment dropped and resent 1.5 s later (the timer,
# nothing of its own after it: lone); connection 3: segments 1-2, segment 1 dropped,
# segment 2 sent, then segment 1 resent 1.2 s later (timer, not lone); its SYN (seqno 0)
# dropped once.
T = trace([
    (0.00, PLUS, "web.1-3", 0, 0), (0.00, DROP, "web.1-3", 0, 0), (3.00, PLUS, "web.1-3", 0, 0),
    (0.10, PLUS, "web.1-1", 0, 1), (0.11, PLUS, "web.1-1", 0, 2), (0.11, DROP, "web.1-1", 0, 2),
    (0.12, PLUS, "web.1-1", 0, 3), (0.41, PLUS, "web.1-1", 0, 2),
    (0.20, PLUS, "web.1-2", 0, 1), (0.21, PLUS, "web.1-2", 0, 2), (0.21, DROP, "web.1-2", 0, 2),
    (1.71, PLUS, "web.1-2", 0, 2),
    (3.10, PLUS, "web.1-3", 0, 1), (3.10, DROP, "web.1-3", 0, 1), (3.11, PLUS, "web.1-3", 0, 2),
    (4.30, PLUS, "web.1-3", 0, 1),
])


def test_drop_split_separates_syns_from_data() -> None:
    assert diag.drop_split(T) == {"down_data": 3, "down_syn": 1, "down_other": 0, "up_data": 0, "up_ack": 0}


def test_tail_drops_count_a_connections_last_segment_only() -> None:
    assert diag.tail_drops(T) == 1  # web.1-2's segment 2; web.1-1's 2 and web.1-3's 1 are not last


def test_recovery_split_by_resend_delay_and_later_segments() -> None:
    assert diag.recovery_split(T) == {"acks": 1, "timer_lone": 1, "timer_not_lone": 1, "never_resent": 0}


def test_syn_timeouts_are_the_resent_syns() -> None:
    assert diag.syn_timeouts(T) == 1
    assert len(diag.retx(T)) == 4  # the SYN and three data segments went out twice


def test_f615_diagnosis_runs_and_finds_httpconcs_one_drop(core, capsys) -> None:
    diag.f615(1)
    out = capsys.readouterr().out.splitlines()
    conc = [ln for ln in out if ln.startswith("httpconc scenario")]
    big = [ln for ln in out if ln.startswith("httpconc 1000-packet buffer")]
    assert conc and "drops web.1-" in conc[0] and "'fast_retransmits': 1" in conc[0]
    assert big and "drops ;" in big[0], "no drop with the large buffer"


def test_mux_layout_follows_the_multiplexers_interleave() -> None:
    from shortflow.repro.web.ch7 import mux_layout

    streams = [{"bytes": 10 * 1024}, {"bytes": 3 * 1024 + 1}]  # 10 and 4 segments
    # SYN modelled (data from seq 1); the buffer holds the long stream up to seq 3.
    pri = mux_layout({"policy": "priority", "streams": streams}, 1024, 1, 3)
    assert [pri[q] for q in range(1, 15)] == [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    rr = mux_layout({"policy": "round_robin", "streams": streams}, 1024, 1, 3)
    assert [rr[q] for q in range(1, 15)] == [0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    # 2-segment chunks: 3 long segments written, so the long chunk in progress has 1 left.
    rr2 = mux_layout({"policy": "round_robin", "chunk_bytes": 2048, "streams": streams}, 1024, 1, 3)
    assert [rr2[q] for q in range(1, 15)] == [0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0]
    assert sorted(rr2) == list(range(1, 15))


def test_webmux_trace_gets_its_streams_checked_on_the_run(core) -> None:
    from shortflow.repro.web import ch7

    _, traces = ch7.webmux({"f72_buffers": [20]}, lambda _: None)
    for scheme, tr in traces.items():
        # Every data segment labelled (only the SYN, seq 0, is not), 20 of the short one.
        assert tr.filter(pl.col("stream").is_null())["seqno"].unique().to_list() == [0], scheme
        assert tr.filter(pl.col("stream") == 1)["seqno"].n_unique() == 20, scheme


def test_main_names_a_bad_diagnosis_or_seed() -> None:
    import pytest

    with pytest.raises(SystemExit, match="unknown diagnosis 'f99'; one of: f68"):
        diag.main(["f99"])
    with pytest.raises(SystemExit, match="seed must be a positive integer, got 'x'"):
        diag.main(["f615", "x"])
