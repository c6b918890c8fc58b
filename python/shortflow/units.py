"""Unit strings: the one place where ``"1.6Mb"``, ``"30KB"`` or ``"50ms"`` become numbers.

Everything is decimal SI, as the TCP papers write it:

* **rates** are bits per second: ``"1.6Mb"``, ``"10Mbps"``, ``"45Mb/s"``, ``"12Kb"``,
  ``"1Gb"``, ``"64kbit"``; bytes per second need an explicit ``B``: ``"1MB/s"``.
* **sizes** are bytes: ``"30KB"`` is 30 000 bytes, ``"1000B"``, ``"1.5MB"``; binary
  multiples are spelled out: ``"1KiB"`` is 1024 bytes.
* **times** are seconds: ``"50ms"``, ``"1s"``, ``"200us"`` (or ``"200µs"``), ``"2min"``,
  ``"1h"``, ``"10ns"``.

Case matters where it carries meaning: ``b`` is a bit and ``B`` a byte, so ``"1Mb"`` is a
rate of 10^6 bit/s while ``"1MB"`` is a size of 10^6 bytes. A bare number is rejected
(except ``0`` for times): ``"50"`` could be seconds or milliseconds, so the file must say.

Every error is a :class:`UnitError` (a ``ValueError``) naming the field and the value.

Ranges (the core's clock counts integer nanoseconds in 64 bits, about 584 years):

* a **time** is 0 or between 1 ns (the clock's resolution: "0.1ns" would silently become
  0) and :data:`MAX_TIME_S` = 10^9 s (about 31.7 years). Because every time is at most
  1/18 of the clock's range, sums of a handful of them (start + delays + RTOs) cannot
  wrap or saturate;
* a **rate** is between 1 bit/s and :data:`MAX_RATE_BPS` = 10^15 bit/s (1 Pb/s);
* a **size** is at most :data:`MAX_SIZE_BYTES` = 2^53 bytes (exact in a float, within
  the core's 64-bit byte counters).
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Literal, Union

__all__ = [
    "UnitError",
    "parse_rate",
    "parse_size",
    "parse_time",
    "parse_quantity",
    "format_rate",
    "format_size",
    "format_time",
    "RATE_UNITS",
    "SIZE_UNITS",
    "TIME_UNITS",
    "MAX_TIME_S",
    "MIN_TIME_S",
    "MAX_RATE_BPS",
    "MAX_SIZE_BYTES",
]

#: Largest accepted time (seconds): 10^9 s, about 31.7 years, 1/18 of the core's u64-ns clock.
MAX_TIME_S = 1e9
#: Smallest non-zero time: the clock's resolution, 1 ns.
MIN_TIME_S = 1e-9
#: Largest accepted rate (bits/s): 1 Pb/s.
MAX_RATE_BPS = 1e15
#: Largest accepted size (bytes): 2^53, exactly representable as a float.
MAX_SIZE_BYTES = 2**53

Number = Union[int, float]

_NUM_RE = re.compile(
    r"^\s*(?P<num>[+-]?(?:\d+(?:_\d+)*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>[^\s\d.+-][^\s]*)?\s*$"
)

#: The core's integer types (config.rs): most knobs are u32, seeds u64.
U32_MAX = 2**32 - 1
I32_MAX = 2**31 - 1
#: Largest seed: the results' ``seed`` column is a signed 64-bit integer.
MAX_SEED = 2**63 - 1

#: Time units -> seconds.
TIME_UNITS: dict[str, float] = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "min": 60.0,
    "h": 3600.0,
}

#: Size units -> bytes.
SIZE_UNITS: dict[str, int] = {
    "B": 1,
    "KB": 1000,
    "kB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
}

_BIT_UNITS: dict[str, float] = {
    "b": 1.0,
    "bit": 1.0,
    "Kb": 1e3,
    "kb": 1e3,
    "Kbit": 1e3,
    "kbit": 1e3,
    "Mb": 1e6,
    "Mbit": 1e6,
    "Gb": 1e9,
    "Gbit": 1e9,
}
_BYTE_RATE_UNITS: dict[str, float] = {"B": 8.0, "KB": 8e3, "kB": 8e3, "MB": 8e6, "GB": 8e9}

#: Rate units -> bits per second (each also accepted with a ``ps`` or ``/s`` suffix).
RATE_UNITS: dict[str, float] = {}
for _u, _f in _BIT_UNITS.items():
    RATE_UNITS[_u] = _f
    RATE_UNITS[_u + "ps"] = _f
    RATE_UNITS[_u + "/s"] = _f
for _u, _f in _BYTE_RATE_UNITS.items():
    RATE_UNITS[_u + "ps"] = _f
    RATE_UNITS[_u + "/s"] = _f
del _u, _f

Kind = Literal["rate", "size", "time"]

_EXAMPLES = {
    "rate": "'1.6Mb', '10Mbps', '45Mb/s', '64kb'",
    "size": "'30KB', '1000B', '1.5MB', '1KiB'",
    "time": "'50ms', '1s', '200us', '2min'",
}
_UNITS: dict[str, dict[str, float]] = {
    "rate": RATE_UNITS,
    "size": {k: float(v) for k, v in SIZE_UNITS.items()},
    "time": TIME_UNITS,
}


class UnitError(ValueError):
    """A value that is not a valid quantity. ``str(e)`` is ``field = value: message``."""

    def __init__(self, field: str, value: object, message: str) -> None:
        self.field = field
        self.value = value
        self.message = message
        super().__init__(f"{field} = {value!r}: {message}")


def _suggest(unit: str, kind: str) -> str:
    cands = list(_UNITS[kind])
    close = difflib.get_close_matches(unit, cands, n=1, cutoff=0.5)
    if not close:
        close = [c for c in cands if c.lower() == unit.lower()][:1]
    return f" (did you mean '{close[0]}'?)" if close else ""


def _split(value: object, field: str, kind: Kind) -> tuple[float, str | None]:
    if isinstance(value, bool):
        raise UnitError(field, value, f"expected a {kind} such as {_EXAMPLES[kind]}, not a boolean")
    if isinstance(value, (int, float)):
        return float(value), None
    if not isinstance(value, str):
        raise UnitError(field, value, f"expected a {kind} such as {_EXAMPLES[kind]}")
    m = _NUM_RE.match(value)
    if not m:
        raise UnitError(field, value, f"not a {kind}; write a number and a unit, e.g. {_EXAMPLES[kind]}")
    num = float(m.group("num").replace("_", ""))
    return num, m.group("unit")


def _check_finite(x: float, field: str, value: object) -> None:
    if not math.isfinite(x):
        raise UnitError(field, value, "must be a finite number")


def parse_time(value: object, field: str = "time", *, allow_zero: bool = True) -> float:
    """Parse a duration into seconds (float). ``0`` (bare) is accepted; other bare
    numbers are rejected because the unit would be a guess."""
    num, unit = _split(value, field, "time")
    _check_finite(num, field, value)
    if unit is None:
        if num != 0:
            raise UnitError(field, value, f"a time needs a unit, e.g. '{_fmt_num(num)}s' or '{_fmt_num(num)}ms'")
        secs = 0.0
    else:
        if unit not in TIME_UNITS:
            raise UnitError(field, value, f"unknown time unit '{unit}'{_suggest(unit, 'time')}; use ns, us, ms, s, min or h")
        secs = num * TIME_UNITS[unit]
    if secs < 0:
        raise UnitError(field, value, "a time cannot be negative")
    if secs == 0 and not allow_zero:
        raise UnitError(field, value, "must be greater than zero")
    if 0 < secs < MIN_TIME_S * (1 - 1e-9):
        raise UnitError(field, value, f"is {secs:g} s, below the clock's resolution of 1 ns (it would become 0)")
    if secs > MAX_TIME_S:
        raise UnitError(field, value, f"is {secs:g} s, beyond the largest time accepted, {MAX_TIME_S:g} s "
                                      "(about 31.7 years; the simulator's clock counts 64-bit nanoseconds)")
    # Round away binary noise such as 0.1 * 1e-3 = 1.0000000000000002e-4 at 1 ns resolution
    # only when it is noise (the core rounds to the nearest ns anyway).
    return float(f"{secs:.15g}")


def parse_rate(value: object, field: str = "rate") -> float:
    """Parse a link or source rate into bits per second (float, > 0)."""
    num, unit = _split(value, field, "rate")
    _check_finite(num, field, value)
    if unit is None:
        raise UnitError(field, value, f"a rate needs a unit, e.g. '{_fmt_num(num)}Mb' (Mbit/s) or '{_fmt_num(num)}Kb'")
    if unit not in RATE_UNITS:
        hint = _suggest(unit, "rate")
        if unit.lower() in ("mb", "mbps", "mb/s") and not hint:
            hint = " (did you mean 'Mb' (megabits/s)?)"
        if unit in SIZE_UNITS:
            raise UnitError(field, value, f"'{unit}' is a size; a rate in bytes per second is written '{unit}/s' or '{unit}ps', in bits 'b', 'Kb', 'Mb', 'Gb'")
        raise UnitError(field, value, f"unknown rate unit '{unit}'{hint}; use b, Kb, Mb, Gb (bits/s, optionally with 'ps' or '/s')")
    bps = num * RATE_UNITS[unit]
    if bps <= 0:
        raise UnitError(field, value, "a rate must be greater than zero")
    if bps < 1:
        raise UnitError(field, value, f"is {bps:g} bit/s; a rate must be at least 1 bit/s")
    if bps > MAX_RATE_BPS:
        raise UnitError(field, value, f"is {bps:g} bit/s, beyond the largest rate accepted, 1 Pb/s ({MAX_RATE_BPS:g} bit/s)")
    return float(f"{bps:.15g}")


def parse_size(value: object, field: str = "size", *, allow_zero: bool = False) -> int:
    """Parse a size into whole bytes (int). ``"30KB"`` is 30 000 bytes (decimal, as the
    papers); ``"1KiB"`` is 1024. Bare numbers are rejected (bytes or packets?)."""
    num, unit = _split(value, field, "size")
    _check_finite(num, field, value)
    if unit is None:
        raise UnitError(field, value, f"a size needs a unit, e.g. '{_fmt_num(num)}B' or '{_fmt_num(num)}KB'")
    if unit not in SIZE_UNITS:
        if unit in _BIT_UNITS:
            raise UnitError(field, value, f"'{unit}' counts bits; sizes are in bytes: B, KB, MB, GB, KiB, MiB, GiB")
        raise UnitError(field, value, f"unknown size unit '{unit}'{_suggest(unit, 'size')}; use B, KB, MB, GB, KiB, MiB or GiB")
    raw = num * SIZE_UNITS[unit]
    nbytes = round(raw)
    if abs(raw - nbytes) > 1e-6 * max(1.0, abs(raw)):
        raise UnitError(field, value, f"is {raw:g} bytes, not a whole number of bytes")
    if nbytes < 0:
        raise UnitError(field, value, "a size cannot be negative")
    if nbytes == 0 and not allow_zero:
        raise UnitError(field, value, "must be greater than zero")
    if nbytes > MAX_SIZE_BYTES:
        raise UnitError(field, value, f"is {raw:g} bytes, beyond the largest size accepted, 2^53 bytes")
    return int(nbytes)


def parse_quantity(value: object) -> tuple[float, Kind] | None:
    """Guess the kind of a unit string (for plotting swept axes): returns (SI value, kind)
    or None when ``value`` is not a quantity with a recognised unit."""
    if not isinstance(value, str):
        return None
    m = _NUM_RE.match(value)
    if not m or not m.group("unit"):
        return None
    unit = m.group("unit")
    num = float(m.group("num").replace("_", ""))
    if unit in TIME_UNITS:
        return num * TIME_UNITS[unit], "time"
    if unit in SIZE_UNITS:
        return float(num * SIZE_UNITS[unit]), "size"
    if unit in RATE_UNITS:
        return num * RATE_UNITS[unit], "rate"
    return None


def _fmt_num(x: float) -> str:
    return f"{x:g}"


def format_rate(bps: float) -> str:
    """Human form of a rate in bits/s: 1600000 -> '1.6Mb/s'."""
    for unit, f in (("Gb/s", 1e9), ("Mb/s", 1e6), ("Kb/s", 1e3)):
        if abs(bps) >= f:
            return f"{bps / f:g}{unit}"
    return f"{bps:g}b/s"


def format_size(nbytes: float) -> str:
    """Human form of a size in bytes (decimal): 30000 -> '30KB'."""
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(nbytes) >= f:
            return f"{nbytes / f:g}{unit}"
    return f"{nbytes:g}B"


def format_time(secs: float) -> str:
    """Human form of a duration: 0.05 -> '50ms'."""
    if secs == 0:
        return "0s"
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(secs) >= f:
            return f"{secs / f:g}{unit}"
    return f"{secs / 1e-9:g}ns"
