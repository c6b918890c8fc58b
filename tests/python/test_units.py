"""Unit strings: rates (bits/s), sizes (bytes, decimal), times (s)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortflow.units import (
    UnitError,
    format_rate,
    format_size,
    format_time,
    parse_quantity,
    parse_rate,
    parse_size,
    parse_time,
)


@pytest.mark.parametrize(
    "text,bps",
    [
        ("1.6Mb", 1.6e6),
        ("10Mbps", 10e6),
        ("45Mb/s", 45e6),
        ("12Kb", 12e3),
        ("12kb", 12e3),
        ("64kbps", 64e3),
        ("1Gb", 1e9),
        ("100b", 100.0),
        ("100bps", 100.0),
        ("2Mbit", 2e6),
        ("1MB/s", 8e6),
        ("1.5 Mb", 1.5e6),
        ("1e3Kb", 1e6),
    ],
)
def test_rates(text: str, bps: float) -> None:
    assert parse_rate(text) == pytest.approx(bps, rel=1e-12)


@pytest.mark.parametrize(
    "text,nbytes",
    [("30KB", 30000), ("1000B", 1000), ("1.5MB", 1_500_000), ("1KiB", 1024), ("2MiB", 2 * 1024**2), ("1GB", 10**9),
     ("30kB", 30000)],
)
def test_sizes(text: str, nbytes: int) -> None:
    v = parse_size(text)
    assert v == nbytes and isinstance(v, int)


@pytest.mark.parametrize(
    "text,secs",
    [("50ms", 0.05), ("1s", 1.0), ("200us", 2e-4), ("200µs", 2e-4), ("2min", 120.0), ("1h", 3600.0), ("10ns", 1e-8),
     ("0.5s", 0.5), (0, 0.0), ("0s", 0.0), ("6000s", 6000.0)],
)
def test_times(text: object, secs: float) -> None:
    assert parse_time(text) == pytest.approx(secs, rel=1e-12, abs=0)


@pytest.mark.parametrize(
    "fn,value,needle",
    [
        (parse_rate, "10", "needs a unit"),
        (parse_rate, "-1Mb", "greater than zero"),
        (parse_rate, "0Mb", "greater than zero"),
        (parse_rate, "10Mx", "unknown rate unit"),
        (parse_rate, "30KB", "is a size"),
        (parse_rate, "fast", "not a rate"),
        (parse_rate, True, "boolean"),
        (parse_rate, "nanMb", "not a rate"),
        (parse_size, "30", "needs a unit"),
        (parse_size, "30Kb", "counts bits"),
        (parse_size, "-5KB", "negative"),
        (parse_size, "0B", "greater than zero"),
        (parse_size, "1.0005KB", "whole number of bytes"),
        (parse_size, "30XB", "unknown size unit"),
        (parse_time, "50", "needs a unit"),
        (parse_time, "-1s", "negative"),
        (parse_time, "5 parsecs", "unknown time unit"),
        (parse_time, [1], "expected a time"),
    ],
)
def test_errors_name_field_and_value(fn, value, needle) -> None:
    with pytest.raises(UnitError) as ei:
        fn(value, "topology.bottleneck.x")
    msg = str(ei.value)
    assert needle in msg
    assert msg.startswith("topology.bottleneck.x = ")
    assert repr(value) in msg


def test_unknown_unit_suggests_nearest() -> None:
    with pytest.raises(UnitError, match=r"did you mean 'ms'"):
        parse_time("50mss")
    with pytest.raises(UnitError, match=r"did you mean 'KiB'"):
        parse_size("1Kib")


def test_zero_time_can_be_rejected() -> None:
    with pytest.raises(UnitError, match="greater than zero"):
        parse_time("0s", allow_zero=False)


def test_quantity_detection() -> None:
    assert parse_quantity("1.6Mb") == (1.6e6, "rate")
    assert parse_quantity("30KB") == (30000.0, "size")
    assert parse_quantity("50ms") == (0.05, "time")
    assert parse_quantity("spand") is None
    assert parse_quantity(4) is None


def test_formatting_round_trips() -> None:
    assert format_rate(1.6e6) == "1.6Mb/s"
    assert format_size(30000) == "30KB"
    assert format_time(0.05) == "50ms"
    assert parse_rate(format_rate(45e6).replace("b/s", "b")) == 45e6


@given(st.integers(min_value=1, max_value=10**7), st.sampled_from(["B", "KB", "MB", "KiB"]))
def test_sizes_are_exact_integers(n: int, unit: str) -> None:
    mult = {"B": 1, "KB": 1000, "MB": 10**6, "KiB": 1024}[unit]
    assert parse_size(f"{n}{unit}") == n * mult


@given(st.floats(min_value=1e-6, max_value=1e6, allow_nan=False), st.sampled_from(["s", "ms", "us"]))
def test_times_scale(x: float, unit: str) -> None:
    mult = {"s": 1.0, "ms": 1e-3, "us": 1e-6}[unit]
    if x * mult < 0.999e-9:  # below the clock's 1 ns resolution: rejected
        with pytest.raises(UnitError, match="resolution of 1 ns"):
            parse_time(f"{x!r}{unit}")
        return
    if x * mult < 1.001e-9:  # at the resolution itself: float noise decides, tested in test_bad_input
        return
    got = parse_time(f"{x!r}{unit}")
    assert math.isclose(got, x * mult, rel_tol=1e-12)
