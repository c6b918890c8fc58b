"""Common / Combined Log Format parsing (Apache, nginx).

Heads up! This module implements step 1 and the host part of step 2 of the
`spand-loganalyze` spec (specs/tcp-spand.md §4.2):

    host ident authuser [dd/Mon/yyyy:HH:MM:SS +zzzz] "METHOD path proto" status bytes [...]

Everything works on ``bytes``: log files are read in binary mode so that odd
encodings in user agents or paths cost nothing and never raise.  The Combined
format (referer, user agent, and any further fields) is accepted because the
line pattern only anchors the first seven fields.

The request field is matched lazily up to the first ``" <status> <bytes>``
that follows it, so a request that contains quotes (escaped by Apache as
``\\"``, by nginx as ``\\x22``, or not escaped at all) still parses, as long as
the request itself does not contain a fake ``" 200 123`` tail.
"""

from __future__ import annotations

import gzip
import io
import ipaddress
import os
import re
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterable, Iterator

__all__ = [
    "LogInputError",
    "HOST_IPV6",
    "HOST_NAME",
    "HOST_OTHER",
    "FAST_LINE_RE",
    "LINE_RE",
    "MalformedLine",
    "ParsedLine",
    "classify_host",
    "days_from_civil",
    "format_ipv4",
    "image_matcher",
    "is_inline_image",
    "iter_lines",
    "open_binary",
    "parse_clf_time",
    "parse_line",
    "split_request",
]

#: host, ident, authuser, [time], "request", status, bytes; anything may follow.
#: Linear time even on hostile lines: the authuser runs to the first ``[`` (so it
#: cannot contain one), the time to the first ``]``, and the lazy request scan
#: tries each later ``"`` once.
LINE_RE = re.compile(
    rb"(\S+) +(\S+) +([^\[]*)\[([^\]]*)\] +\"(.*?)\" +(\d{3}|-) +(\d+|-)(?=\s|$)"
)

#: The same fields for the common well-formed line, without lazy scans (about half
#: the cost): a request ``METHOD rest`` with an alphabetic method and no ``"`` inside.  Groups 1-4 as in LINE_RE, 5 = method, 6 = the rest
#: of the request (path and protocol).  Whenever it matches, LINE_RE matches with
#: the same fields; when it does not, the analyzer falls back to LINE_RE.
FAST_LINE_RE = re.compile(
    rb"(\S+) +(\S+) +([^\[]*)\[([^\]]*)\] +\"([A-Za-z]+) ([^\"]+)\" +(\d{3}|-) +(\d+|-)(?=\s|$)"
)

_TIME_RE = re.compile(
    rb"(\d{1,2})/([A-Za-z]{3})/(\d{4}):(\d\d):(\d\d):(\d\d)(?:\.\d+)? *([+-])(\d\d):?(\d\d)"
)
_TOKEN_RE = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HOSTNAME_RE = re.compile(rb"[A-Za-z0-9_.-]*[A-Za-z][A-Za-z0-9_.-]*")

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        (b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov", b"dec")
    )
}
_MDAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

#: Codes returned by :func:`classify_host` for hosts that are not IPv4 dotted quads.
HOST_NAME = -1
HOST_IPV6 = -2
HOST_OTHER = -3


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_clf_time(s: bytes) -> tuple[int, int] | None:
    """Parse ``dd/Mon/yyyy:HH:MM:SS +zzzz``.

    Returns ``(utc_epoch_seconds, local_day)`` where ``local_day`` is the day
    number (days since 1970-01-01) of the *calendar date as written in the
    log*, i.e. in the server's local time; segments split on a change of that
    date.  Returns ``None`` for anything that is not a valid date and time
    (bad month name, 31 Feb, hour 24, missing zone, ...).  Sub-second fractions
    (a common custom-format extension) are accepted and truncated.
    """
    m = _TIME_RE.fullmatch(s.strip())
    if m is None:
        return None
    dd, mon, yyyy, hh, mi, ss, sign, zh, zm = m.groups()
    month = _MONTHS.get(mon.lower())
    if month is None:
        return None
    d, y, h, mn, sec = int(dd), int(yyyy), int(hh), int(mi), int(ss)
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if not (1 <= d <= _MDAYS[month - 1]) or (month == 2 and d == 29 and not leap):
        return None
    if h > 23 or mn > 59 or sec > 60:  # 60: leap second, folded into the next minute
        return None
    tzh, tzm = int(zh), int(zm)
    if tzh > 23 or tzm > 59:
        return None
    off = tzh * 3600 + tzm * 60
    if sign == b"-":
        off = -off
    day = days_from_civil(y, month, d)
    return day * 86400 + h * 3600 + mn * 60 + sec - off, day


def classify_host(host: bytes) -> int:
    """Return the IPv4 address as an int, or a negative ``HOST_*`` code.

    Only dotted quads of decimal octets 0..255 count as IPv4 (``1.2.3.4``);
    ``::ffff:1.2.3.4`` is IPv6 as written.  Names containing a letter are
    hostnames (``HostnameLookups On``); ``-``, ``1.2.3``, ``300.1.1.1`` etc. are
    ``HOST_OTHER``.
    """
    parts = host.split(b".")
    if len(parts) == 4:
        a, b, c, d = parts
        # bytes.isdigit() is ASCII-only; int(b"1_0") would accept an underscore
        if a.isdigit() and b.isdigit() and c.isdigit() and d.isdigit():
            if len(a) <= 3 and len(b) <= 3 and len(c) <= 3 and len(d) <= 3:
                a, b, c, d = int(a), int(b), int(c), int(d)
                if a < 256 and b < 256 and c < 256 and d < 256:
                    return (a << 24) | (b << 16) | (c << 8) | d
            return HOST_OTHER
    if b":" in host:
        h = host[1:-1] if host.startswith(b"[") and host.endswith(b"]") else host
        try:
            ipaddress.IPv6Address(h.decode("ascii").split("%", 1)[0])
            return HOST_IPV6
        except ValueError:
            return HOST_OTHER
    if _HOSTNAME_RE.fullmatch(host):
        return HOST_NAME
    return HOST_OTHER


def image_matcher(exts: Iterable[str]) -> Callable[[bytes], object] | None:
    """A fast test "is this request for an inline image", applied to the part of
    the request after the method (``path [proto]``).

    Equivalent to :func:`is_inline_image` on the path that :func:`split_request`
    returns: the path, cut at the first ``?``, ends (case-insensitively) in one of
    ``exts``.  One compiled regex instead of a handful of byte operations.
    ``None`` if ``exts`` is empty.
    """
    alts = [re.escape(e.strip().lower().encode()) for e in exts if e.strip()]
    if not alts:
        return None
    pat = rb"[^?]*(?:" + b"|".join(alts) + rb")(?:\?.*)?(?: HTTP/\S*)?"
    return re.compile(pat, re.I | re.S).fullmatch


def is_inline_image(path: str | bytes, exts: Iterable[str]) -> bool:
    """Reference rule (spec §4.2 step 2): the path before any ``?`` ends in one of ``exts``."""
    p = path.encode("utf-8", "surrogateescape") if isinstance(path, str) else path
    p = p.split(b"?", 1)[0].lower()
    return any(p.endswith(e.strip().lower().encode()) for e in exts if e.strip())


def format_ipv4(ip: int) -> str:
    return f"{ip >> 24}.{(ip >> 16) & 255}.{(ip >> 8) & 255}.{ip & 255}"


def split_request(req: bytes) -> tuple[bytes, bytes, bytes] | None:
    """Split ``METHOD path [proto]`` → ``(method, path, proto)``; ``None`` if not a request.

    HTTP/0.9 requests (``GET /x``) have an empty proto.  Unescaped spaces in
    the path are kept (``GET /a b HTTP/1.1`` → path ``/a b``).  ``-`` (nginx's
    request for a connection that sent nothing) and binary junk (TLS
    handshakes sent to a plain-HTTP port) are not requests.
    """
    method, sp, rest = req.partition(b" ")
    if not sp or not rest or not (method.isalpha() or _TOKEN_RE.fullmatch(method)):
        return None
    path, sp, proto = rest.rpartition(b" ")
    if sp and proto.startswith(b"HTTP/"):
        return method, path, proto
    return method, rest, b""


@dataclass(frozen=True, slots=True)
class ParsedLine:
    host: str
    ident: str
    user: str
    time: int  #: UTC epoch seconds
    day: int  #: local calendar day (days since 1970-01-01) as written in the log
    method: str
    path: str
    proto: str
    status: int | None  #: None for ``-``
    size: int | None  #: None for ``-``
    ip: int | None  #: IPv4 as int, None if the host is not a dotted quad
    host_kind: str  #: "ipv4" | "hostname" | "ipv6" | "other"


@dataclass(frozen=True, slots=True)
class MalformedLine:
    reason: str  #: "syntax" | "date" | "request" | "blank"
    line: str


_KIND = {HOST_NAME: "hostname", HOST_IPV6: "ipv6", HOST_OTHER: "other"}


def parse_line(line: str | bytes) -> ParsedLine | MalformedLine:
    """Parse one CLF/Combined line (reference implementation; the analyzer's
    hot loop does the same steps with caches)."""
    raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    m = LINE_RE.match(raw)
    if m is None:
        return MalformedLine("blank" if not raw.strip() else "syntax", text)
    host, ident, user, ts, req, status, size = m.groups()
    tv = parse_clf_time(ts)
    if tv is None:
        return MalformedLine("date", text)
    parts = split_request(req)
    if parts is None:
        return MalformedLine("request", text)
    code = classify_host(host)

    def dec(b: bytes) -> str:
        return b.decode("utf-8", "replace")

    return ParsedLine(
        host=dec(host),
        ident=dec(ident),
        user=dec(user.rstrip()),
        time=tv[0],
        day=tv[1],
        method=dec(parts[0]),
        path=dec(parts[1]),
        proto=dec(parts[2]),
        status=None if status == b"-" else int(status),
        size=None if size == b"-" else int(size),
        ip=code if code >= 0 else None,
        host_kind="ipv4" if code >= 0 else _KIND[code],
    )


# --------------------------------------------------------------------------- input


class LogInputError(ValueError):
    """An input that cannot be read as a log: the message names the file and why."""


def open_binary(path: str | os.PathLike) -> tuple[BinaryIO, bool]:
    """Open a log for binary reading; ``-`` is stdin.

    Gzip is detected by its magic bytes (``1f 8b``), not by the file name. Returns
    ``(raw stream, is_gzip)``: the stream is *not* decompressed (:func:`iter_lines`
    does that, keeping every line before a damaged or truncated end); the caller
    closes it. A missing file, a directory or an unreadable file raise
    :class:`LogInputError` naming it.
    """
    if str(path) == "-":
        raw: BinaryIO = sys.stdin.buffer
        if not hasattr(raw, "peek"):  # e.g. a BytesIO substituted by a test runner
            raw = io.BufferedReader(raw)  # type: ignore[arg-type]
    else:
        try:
            raw = open(path, "rb", buffering=1 << 20)
        except IsADirectoryError:
            raise LogInputError(f"{path}: is a directory, not a log file") from None
        except FileNotFoundError:
            raise LogInputError(f"{path}: no such file") from None
        except OSError as e:
            raise LogInputError(f"{path}: cannot be read ({e.strerror or e})") from None
    return raw, raw.peek(2)[:2] == _GZIP_MAGIC  # type: ignore[attr-defined]


_GZIP_MAGIC = b"\x1f\x8b"


def _gunzip(raw: BinaryIO) -> Iterator[bytes]:
    """The decompressed blocks (at most 1 MiB each) of a gzip stream: every member,
    zero padding after a member skipped as :mod:`gzip` does. Raises EOFError when the
    input ends inside a member and ``zlib.error`` when it is damaged."""
    d = zlib.decompressobj(31)
    inside = False
    buf = b""
    while True:
        if not buf:
            buf = raw.read(1 << 16)
            if not buf:
                break
        if not inside:
            buf = buf.lstrip(b"\0")
            if not buf:
                continue
            inside = True
        out = d.decompress(buf, 1 << 20)
        if out:
            yield out
        if d.eof:
            buf = d.unused_data
            d = zlib.decompressobj(31)
            inside = False
        else:
            buf = d.unconsumed_tail
    if inside:
        out = d.flush()  # output zlib still holds for input it has consumed
        if out:
            yield out
        if not d.eof:
            raise EOFError("the gzip stream ends inside a member")


def _gzip_lines(raw: BinaryIO) -> Iterator[bytes]:
    """The lines of a gzip stream; a partial last line before a damaged end is dropped."""
    rest = b""
    for block in _gunzip(raw):
        if rest:
            block = rest + block
        i = block.rfind(b"\n") + 1
        rest = block[i:]
        yield from io.BytesIO(block[:i])
    if rest:
        yield rest


def _lines(raw: BinaryIO, name: str, warn: Callable[[str], None] | None) -> Iterator[bytes]:
    """The lines of ``raw`` (gzip detected by magic). A damaged or truncated gzip input
    ends with a warning (``warn``; an error when it is None) that names the file and
    keeps the lines read so far. A file that starts like gzip but is not one is an error."""
    if not (hasattr(raw, "peek") and raw.peek(2)[:2] == _GZIP_MAGIC):  # type: ignore[attr-defined]
        yield from raw
        return
    n = 0
    try:
        for line in _gzip_lines(raw):
            n += 1
            yield line
        return
    except EOFError:
        problem = "the gzip file is truncated (it ends before its end-of-stream marker)"
    except zlib.error as e:
        if n == 0:
            raise LogInputError(f"{name}: starts with the gzip signature (1f 8b) but is not a valid gzip file ({e})") from None
        problem = f"the gzip data is damaged ({e})"
    msg = f"{name}: {problem}; kept the {n:,} complete lines before the damage"
    if warn is None:
        raise LogInputError(msg)
    warn(msg)


def iter_lines(source: str | os.PathLike | BinaryIO | Iterable[str | bytes],
               warn: Callable[[str], None] | None = None) -> Iterator[bytes]:
    """Yield raw lines (bytes) from a path, ``-``, a binary stream or an iterable of lines.

    Gzip input (paths and streams) is detected by its magic bytes. ``warn(message)`` is
    told about a truncated or damaged gzip input, whose complete lines up to the damage
    are kept; without ``warn`` that is a :class:`LogInputError`."""
    if isinstance(source, (str, os.PathLike)):
        stream, _ = open_binary(source)
        try:
            yield from _lines(stream, "<stdin>" if str(source) == "-" else str(source), warn)
        finally:
            if str(source) != "-":
                stream.close()
        return
    if hasattr(source, "read"):
        s = source  # gzip is detected when the stream can peek
        for line in _lines(s, str(getattr(source, "name", "<stream>")), warn):  # type: ignore[arg-type]
            yield line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape")
        return
    for line in source:  # type: ignore[union-attr]
        yield line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape")
