"""Streaming analysis of a CLF access log: Figs. 6 and 7 of the TCP/SPAND paper.

Heads up! Read specs/tcp-spand.md §4.2 (`spand-loganalyze`) and paper §5.2
first.  What is computed, per the spec:

* **Fig. 6** - for every /24 (``ip >> (32 - prefix)``) within a segment, the
  gaps between its consecutive requests, pooled over all networks and
  segments, one gap per request (not deduplicated, 0 s gaps kept).
* **Fig. 7** - for every request at time ``t`` in a segment, the number of
  distinct /24 keys among requests with time in ``[t, t + window)``; requests
  with ``t + window > segment end`` (end = time of the segment's last
  request) are left out.

How it stays in bounded memory on a 10 M-line log (no line is kept):

1. *Parse* line by line (bytes, gzip by magic).  Timestamps and host → key
   lookups go through small bounded caches.
2. *Reorder buffer* (``reorder_s``, default 60 s).  Apache writes a line when
   a request *finishes* but stamps it with the time it *started*, so logs are
   only nearly sorted.  Lines are bucketed by second and a second is released
   (in time order) once a line more than ``reorder_s`` seconds newer has been
   read, so out-of-order lines within the tolerance are placed exactly.  A line
   whose second has already been released ("late") is counted and clamped
   forward to the second after the last released one (the smallest move that
   keeps the stream sorted; it joins that second's calendar day).  Every line
   older than the newest second read is counted as out of order, and the largest
   lateness is reported.  A line more than ``reorder_s`` ahead of the newest
   second does not move the tolerance window at once: only a second such line in
   a row confirms the jump (the log resumed after a pause).  Otherwise it was a
   lone future-dated line ("ahead"): it waits in the buffer for its second and
   later lines keep flowing, instead of all of them becoming "older than the
   newest line" and staying buffered behind it.  The buffer also holds at most
   ``reorder_lines`` lines; beyond that its oldest seconds are released early
   (counted).  Memory: the lines of ``reorder_s`` seconds, at most ``reorder_lines``.
3. *Segments* on the sorted stream: a gap over ``segment_gap_s`` (1 h) between
   consecutive requests, or a change of the local calendar date as written in
   the log, starts a new segment.  All per-segment state is dropped at the
   boundary, so gaps and windows never cross it.
4. *Fig. 6*: ``last[key] = previous request time`` (O(#keys)) and an exact
   histogram of integer gaps (a list indexed by seconds + a dict for the rare
   huge ones), never a list of gaps.
5. *Fig. 7*: a sliding window over the sorted stream, kept as a difference
   array instead of a deque of requests.  Let D(s) be the number of distinct
   keys with a request in ``[s, s + W)``.  Key k counts in D(s) iff it has a
   request at some t_i with ``t_i - W < s <= t_i``; the union of these
   intervals over k's requests is the disjoint union of ``(t_i - min(g_i, W),
   t_i]``, where g_i is the gap to k's previous request (the Fig. 6 gap, or
   infinity for k's first request in the segment).  So each request adds +1
   to D on one interval: +1 at its start, -1 at ``t_i + 1``, in a ring of
   ``W + 2`` per-second cells.  D(s) is final once the stream reaches
   ``s + W`` (later requests only touch seconds after ``s``), and is then
   booked once per request at ``s``, i.e. the answer is delayed by one window.
   Seconds still open at the segment end are exactly those with
   ``s + W > end`` and are left out, as the spec says.  Same result as a
   two-pointer window with per-key counts, but O(W) memory on top of the
   Fig. 6 state, and two list updates per request.  The result is an exact
   histogram ``distinct networks -> #requests``.
6. Distinct client IPs (for the summary and the /24 check) are kept as one
   32-byte bitmap per /24 (O(#/24), not O(#IPs)).
"""

from __future__ import annotations

import datetime as _dt
import heapq
import math
import os
import time as _time
from dataclasses import asdict, dataclass, field
from typing import BinaryIO, Callable, Iterable

from .clf import (
    HOST_IPV6,
    HOST_NAME,
    FAST_LINE_RE,
    LINE_RE,
    classify_host,
    image_matcher,
    iter_lines,
    parse_clf_time,
    split_request,
)
from .prefix import PrefixCheck, prefix_check

__all__ = [
    "DEFAULT_IMAGE_EXTS",
    "LogReport",
    "SegmentStats",
    "analyze",
    "parse_duration",
]

#: Inline-image extensions dropped by default (spec §4.2 step 2, A29).
DEFAULT_IMAGE_EXTS: tuple[str, ...] = (".gif", ".jpg", ".jpeg", ".png", ".bmp", ".ico", ".xbm")

_TS_CACHE_MAX = 4096
_IP_CACHE_MAX = 1 << 16  # host string -> key; ~10 MB when full, then cleared
_GAP_LIST = 1 << 12  # gaps below this many seconds go to a list, larger ones to a dict
_MAX_EXAMPLES = 5
_BAD_TIME = (0, None)


def parse_duration(s: str | int | float) -> int:
    """``"300"``, ``"300s"``, ``"5m"``, ``"1h"``, ``"1d"``, ``"1h30m"`` → whole seconds."""
    if isinstance(s, (int, float)):
        return int(s)
    txt = s.strip().lower()
    if not txt:
        raise ValueError("empty duration")
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    total, num = 0.0, ""
    for ch in txt:
        if ch.isdigit() or ch == ".":
            num += ch
        elif ch in units and num:
            total += float(num) * units[ch]
            num = ""
        elif ch.isspace():
            continue
        else:
            raise ValueError(f"bad duration {s!r} (use e.g. 300, 300s, 5m, 1h)")
    if num:
        total += float(num)
    return int(round(total))


@dataclass
class SegmentStats:
    index: int
    start: int  #: UTC epoch s of the first request
    end: int  #: UTC epoch s of the last request
    requests: int = 0
    networks: int = 0  #: distinct keys in the segment
    gaps: int = 0
    fig7_requests: int = 0  #: requests with a complete window
    fig7_excluded: int = 0  #: requests with t + window > end

    @property
    def duration_s(self) -> int:
        return self.end - self.start


@dataclass
class LogReport:
    """Everything ``analyze`` found; ``summary()`` is what goes to ``summary.json``."""

    source: str
    prefix: int
    window_s: int
    segment_gap_s: int | None  #: None: gaps never split
    split_days: bool
    reorder_s: int
    image_exts: tuple[str, ...]  #: empty when images are kept
    only_get: bool
    reorder_lines: int = 1_000_000  #: the reorder buffer's bound in lines
    # line accounting (each line lands in exactly one bucket)
    lines_total: int = 0
    lines_blank: int = 0
    lines_malformed: int = 0
    malformed_reasons: dict[str, int] = field(default_factory=dict)
    malformed_examples: list[dict] = field(default_factory=list)
    filtered_method: int = 0
    filtered_images: int = 0
    host_hostname: int = 0
    host_ipv6: int = 0
    host_other: int = 0
    requests: int = 0  #: analysed IPv4 requests
    # ordering
    out_of_order: int = 0  #: lines older than an earlier line
    late_clamped: int = 0  #: ... and older than the reorder tolerance allowed
    max_lateness_s: int = 0
    ahead: int = 0  #: lone lines dated more than the tolerance ahead of the log
    reorder_forced: int = 0  #: lines released early because the buffer was full
    reorder_peak: int = 0  #: most lines the reorder buffer held at once
    warnings: list[str] = field(default_factory=list)  #: e.g. a truncated gzip input
    # results
    distinct_ips: int = 0
    distinct_networks: int = 0
    segments: list[SegmentStats] = field(default_factory=list)
    gap_values: list[int] = field(default_factory=list)  #: distinct gaps (s), ascending
    gap_counts: list[int] = field(default_factory=list)
    nets_values: list[int] = field(default_factory=list)  #: distinct network counts, ascending
    nets_counts: list[int] = field(default_factory=list)
    prefix_check: PrefixCheck | None = None
    elapsed_s: float = 0.0
    ip_bitmaps: dict[int, bytearray] = field(default_factory=dict, repr=False)

    # ---- derived -----------------------------------------------------------------
    @property
    def n_gaps(self) -> int:
        return sum(self.gap_counts)

    @property
    def fig7_requests(self) -> int:
        return sum(self.nets_counts)

    @property
    def fig7_excluded(self) -> int:
        return sum(s.fig7_excluded for s in self.segments)

    def frac_gaps_below(self, seconds: int | None = None) -> float | None:
        """Fraction of gaps strictly below ``seconds`` (default: the window)."""
        lim = self.window_s if seconds is None else seconds
        n = self.n_gaps
        if not n:
            return None
        return sum(c for v, c in zip(self.gap_values, self.gap_counts) if v < lim) / n

    def gap_cdf(self) -> tuple[list[int], list[float]]:
        """Empirical CDF of Fig. 6: ``F(x) = P(gap <= x)`` at each distinct gap."""
        return self.gap_values, _cdf(self.gap_counts)

    def nets_cdf(self) -> tuple[list[int], list[float]]:
        """Empirical CDF of Fig. 7 at each distinct network count."""
        return self.nets_values, _cdf(self.nets_counts)

    def nets_percentile(self, p: float) -> int | None:
        return _percentile(self.nets_values, self.nets_counts, p)

    def gap_percentile(self, p: float) -> int | None:
        return _percentile(self.gap_values, self.gap_counts, p)

    def summary(self) -> dict:
        n7 = self.fig7_requests
        mean7 = sum(v * c for v, c in zip(self.nets_values, self.nets_counts)) / n7 if n7 else None
        fz = self.frac_gaps_below(1)
        segs = self.segments
        out = {
            "source": self.source,
            "params": {
                "prefix": self.prefix,
                "window_s": self.window_s,
                "segment_gap_s": self.segment_gap_s,
                "split_days": self.split_days,
                "reorder_s": self.reorder_s,
                "reorder_lines": self.reorder_lines,
                "image_exts": list(self.image_exts),
                "only_get": self.only_get,
            },
            "lines": {
                "total": self.lines_total,
                "blank": self.lines_blank,
                "malformed": self.lines_malformed,
                "filtered_method": self.filtered_method,
                "filtered_images": self.filtered_images,
                "host_hostname": self.host_hostname,
                "host_ipv6": self.host_ipv6,
                "host_other": self.host_other,
                "requests": self.requests,
            },
            "malformed": {
                "count": self.lines_malformed,
                "by_reason": dict(sorted(self.malformed_reasons.items())),
                "examples": self.malformed_examples,
            },
            "ordering": {
                "out_of_order": self.out_of_order,
                "late_clamped": self.late_clamped,
                "max_lateness_s": self.max_lateness_s,
                "ahead": self.ahead,
                "reorder_forced": self.reorder_forced,
                "reorder_peak": self.reorder_peak,
            },
            "warnings": self.warnings,
            "distinct_ips": self.distinct_ips,
            "distinct_networks": self.distinct_networks,
            "fig6_gaps": {
                "count": self.n_gaps,
                "frac_below_window": _r(self.frac_gaps_below()),
                "frac_zero": _r(fz),
                "p50_s": self.gap_percentile(50),
                "p90_s": self.gap_percentile(90),
            },
            "fig7_networks": {
                "requests": n7,
                "excluded_tail": self.fig7_excluded,
                "p5": self.nets_percentile(5),
                "p50": self.nets_percentile(50),
                "p95": self.nets_percentile(95),
                "p100": self.nets_percentile(100),
                "max": self.nets_values[-1] if self.nets_values else None,
                "mean": _r(mean7),
                "percentile_method": "nearest-rank (smallest x with CDF(x) >= p/100)",
            },
            "segments": {
                "count": len(segs),
                "list": [
                    dict(asdict(s), duration_s=s.duration_s, start_utc=_iso(s.start), end_utc=_iso(s.end))
                    for s in segs[:1000]
                ],
                "truncated": len(segs) > 1000,
            },
            "prefix_check": self.prefix_check.as_dict() if self.prefix_check else None,
            "elapsed_s": round(self.elapsed_s, 3),
            "lines_per_s": round(self.lines_total / self.elapsed_s) if self.elapsed_s > 0 else None,
        }
        return out


def _iso(t: int) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _r(x: float | None, nd: int = 6) -> float | None:
    return None if x is None else round(x, nd)


def _cdf(counts: list[int]) -> list[float]:
    n = sum(counts)
    acc, out = 0, []
    for c in counts:
        acc += c
        out.append(acc / n)
    return out


def _percentile(values: list[int], counts: list[int], p: float) -> int | None:
    """Nearest-rank percentile of a weighted histogram (exact, integer valued)."""
    n = sum(counts)
    if not n:
        return None
    rank = max(1, math.ceil(p / 100.0 * n - 1e-9))
    acc = 0
    for v, c in zip(values, counts):
        acc += c
        if acc >= rank:
            return v
    return values[-1]


class _Analyzer:
    """State of one streaming run; see the module docstring for the algorithm."""

    def __init__(self, rep: LogReport) -> None:
        self.rep = rep
        self.shift = 32 - rep.prefix
        self.window = rep.window_s
        self.ring = rep.window_s + 2  # > the W + 1 live ring positions [t - W + 1, t + 1]
        self.seg_gap = rep.segment_gap_s if rep.segment_gap_s is not None else 1 << 62
        self.split_days = rep.split_days
        # Fig. 6
        self.gap_list = [0] * _GAP_LIST
        self.gap_big: dict[int, int] = {}
        self.last: dict[int, int] = {}  # key -> previous request time (this segment)
        # Fig. 7 (per segment): difference array of D(s) and requests per second, both
        # rings indexed by second % ring; D is summed up to (excluding) second `ev`.
        self.nets: dict[int, int] = {}  # distinct count -> #requests
        self.delta = [0] * self.ring
        self.nreq = [0] * self.ring
        self.ev = 0
        self.cur = 0
        # segments
        self.seg: SegmentStats | None = None
        self.seg_day = None
        self.seg_last_t = 0
        self.all_keys: set[int] = set()

    # ---- sorted stream: one call per second ------------------------------------
    def second(self, t: int, day: int, keys: list[int]) -> None:
        seg = self.seg
        if seg is None or t - self.seg_last_t > self.seg_gap or (self.split_days and day != self.seg_day):
            self.close_segment()
            seg = self.seg = SegmentStats(index=len(self.rep.segments), start=t, end=t)
            self.seg_day = day
            self.ev = t
            self.cur = 0
        W, R = self.window, self.ring
        delta, nreq = self.delta, self.nreq

        # Fig. 7, step 1: every second s <= t - W now has its whole window [s, s + W)
        # behind us (and t's own intervals start after t - W): finish D(s) and book
        # D(s) once per request at s.
        lim = t - W
        ev = self.ev
        if ev <= lim:
            cur, nets = self.cur, self.nets
            # past t_prev + 1 there are no deltas left and cur is 0: skip idle seconds
            stop = min(lim, self.seg_last_t + 1)
            done = 0
            while ev <= stop:
                i = ev % R
                cur += delta[i]
                delta[i] = 0
                n = nreq[i]
                if n:
                    nets[cur] = nets.get(cur, 0) + n
                    nreq[i] = 0
                    done += n
                ev += 1
            if ev <= lim:
                ev = lim + 1
            self.cur = cur
            seg.fig7_requests += done
        self.ev = ev  # == max(seg.start, t - W + 1)
        seg.end = t
        self.seg_last_t = t
        nreq[t % R] += len(keys)
        seg.requests += len(keys)

        # Fig. 6 gaps, and Fig. 7 step 2: a request of key k at t with gap g to k's
        # previous request adds 1 to D(s) for s in (t - min(g, W), t]; stored as +1 at
        # the interval start (clamped to the segment start) and -1 at t + 1.
        last = self.last
        gl, gb = self.gap_list, self.gap_big
        glen = len(gl)
        ngaps = nz = 0
        for k in keys:
            p = last.get(k)
            last[k] = t
            if p is None:
                lo = ev
            else:
                g = t - p
                ngaps += 1
                if g < glen:
                    gl[g] += 1
                else:
                    gb[g] = gb.get(g, 0) + 1
                if g == 0:
                    continue  # same second: k is already counted in D(t)
                lo = p + 1
                if lo < ev:
                    lo = ev
            delta[lo % R] += 1
            nz += 1
        delta[(t + 1) % R] -= nz
        seg.gaps += ngaps

    def close_segment(self) -> None:
        seg = self.seg
        if seg is None:
            return
        # seconds not yet evaluated are exactly those with s + W > segment end
        seg.fig7_excluded = sum(self.nreq)
        seg.networks = len(self.last)
        self.all_keys.update(self.last)
        self.rep.segments.append(seg)
        self.last = {}
        self.delta = [0] * self.ring
        self.nreq = [0] * self.ring
        self.seg = None

    def finish(self) -> None:
        self.close_segment()
        rep = self.rep
        gaps = {g: c for g, c in enumerate(self.gap_list) if c}
        gaps.update(self.gap_big)
        rep.gap_values = sorted(gaps)
        rep.gap_counts = [gaps[g] for g in rep.gap_values]
        rep.nets_values = sorted(self.nets)
        rep.nets_counts = [self.nets[v] for v in rep.nets_values]
        rep.distinct_networks = len(self.all_keys)

    # ---- the per-line loop -------------------------------------------------------
    def run(self, lines: Iterable[bytes], progress: Callable[[int], None] | None) -> None:
        rep = self.rep
        fast, match = FAST_LINE_RE.match, LINE_RE.match
        ts_cache: dict[bytes, tuple[int, int | None]] = {}
        ip_cache: dict[bytes, int] = {}
        ip_bits = rep.ip_bitmaps
        shift = self.shift
        only_get = rep.only_get
        is_image = image_matcher(rep.image_exts)
        reorder = rep.reorder_s
        cap = rep.reorder_lines
        second = self.second
        # reorder buffer: second -> keys; heap of pending seconds
        pend: dict[int, list[int]] = {}
        pend_day: dict[int, int] = {}
        heap: list[int] = []
        push, pop = heapq.heappush, heapq.heappop
        start = max_t = -(1 << 62)  # max_t: the newest second (the tolerance window's front)
        cur: list[int] = []  # pend[max_t]
        released = max_t  # last second handed to the sorted stream
        released_day = 0
        buffered = peak = 0  # lines in pend; the most there were (it grows until a release)
        held = held_t = 0  # held = 1 while the last line was a lone jump (to held_t) beyond the tolerance
        n = 0
        n_blank = n_req = n_meth = n_img = n_ooo = n_late = n_ahead = n_forced = 0
        max_late = 0
        tick = (1 << 18) - 1

        for line in lines:
            n += 1
            if not n & tick and progress is not None:
                progress(n)
            m = fast(line)
            if m is not None:  # the common, well-formed line
                host, ts, method, rest = m.group(1, 4, 5, 6)
            else:
                m = match(line)
                if m is None:
                    if line.strip():
                        self.malformed(n, "syntax", line)
                    else:
                        n_blank += 1
                    continue
                host, ts, req = m.group(1, 4, 5)
                parts = split_request(req)
                if parts is None:
                    self.malformed(n, "request" if parse_clf_time(ts) else "date", line)
                    continue
                method = parts[0]
                rest = req[len(method) + 1 :]
            tv = ts_cache.get(ts)
            if tv is None:
                if len(ts_cache) >= _TS_CACHE_MAX:
                    ts_cache.clear()
                tv = ts_cache[ts] = parse_clf_time(ts) or _BAD_TIME
            t, day = tv
            if day is None:
                self.malformed(n, "date", line)
                continue
            if only_get and method != b"GET":
                n_meth += 1
                continue
            if is_image is not None and is_image(rest):
                n_img += 1
                continue
            key = ip_cache.get(host)
            if key is None:
                if len(ip_cache) >= _IP_CACHE_MAX:
                    ip_cache.clear()
                ip = classify_host(host)
                if ip >= 0:
                    b24 = ip >> 8
                    bm = ip_bits.get(b24)
                    if bm is None:
                        bm = ip_bits[b24] = bytearray(32)
                    o = ip & 255
                    bm[o >> 3] |= 1 << (o & 7)
                    key = ip >> shift
                else:
                    key = ip
                ip_cache[host] = key
            if key < 0:
                if key == HOST_NAME:
                    rep.host_hostname += 1
                elif key == HOST_IPV6:
                    rep.host_ipv6 += 1
                else:
                    rep.host_other += 1
                continue
            n_req += 1

            # ---- reorder buffer ----
            if t == max_t and t > released:
                if held:  # the lone line ahead was not followed: it is out of place
                    n_ahead += held
                    held = 0
                cur.append(key)
                buffered += 1
            else:
                if t < max_t:
                    n_ooo += 1
                    if max_t - t > max_late:
                        max_late = max_t - t
                if t <= released:  # its second is gone: clamp forward, minimally
                    n_late += 1
                    t = released + 1
                    day = released_day
                if t > max_t and (held or max_t == start or t - max_t <= reorder):
                    # the window moves: a step within the tolerance, the first line, or a
                    # jump beyond it confirmed by a second such line in a row
                    front = t
                    if held:
                        if t - max_t <= reorder:  # a step: the held line was out of place
                            n_ahead += held
                        elif held_t > t:  # the jump is confirmed by an older line
                            n_ooo += 1
                            if held_t - t > max_late:
                                max_late = held_t - t
                            front = held_t
                        held = 0
                    lst = pend.get(t)
                    if lst is None:
                        pend[t] = [key]
                        pend_day[t] = day
                        push(heap, t)
                    else:
                        lst.append(key)
                    buffered += 1
                    max_t = front
                    cur = pend[front]
                    if buffered > peak:
                        peak = buffered
                    horizon = front - reorder
                    while heap[0] < horizon:
                        released = s = pop(heap)
                        released_day = pend_day.pop(s)
                        keys = pend.pop(s)
                        buffered -= len(keys)
                        second(s, released_day, keys)
                else:
                    if t > max_t:  # a lone line beyond the tolerance: wait for the next one
                        held = 1
                        held_t = t
                    elif held:
                        n_ahead += held
                        held = 0
                    lst = pend.get(t)
                    if lst is None:
                        pend[t] = [key]
                        pend_day[t] = day
                        push(heap, t)
                    else:
                        lst.append(key)
                    buffered += 1
            if buffered > cap:  # bounded memory whatever the order: release the oldest early
                if buffered > peak:
                    peak = buffered
                while buffered > cap:
                    released = s = pop(heap)
                    released_day = pend_day.pop(s)
                    keys = pend.pop(s)
                    buffered -= len(keys)
                    n_forced += len(keys)
                    second(s, released_day, keys)

        if buffered > peak:
            peak = buffered
        while heap:
            s = pop(heap)
            second(s, pend_day.pop(s), pend.pop(s))
        if progress is not None:
            progress(n)
        rep.lines_total = n
        rep.lines_blank = n_blank
        rep.requests = n_req
        rep.filtered_method = n_meth
        rep.filtered_images = n_img
        rep.out_of_order = n_ooo
        rep.late_clamped = n_late
        rep.max_lateness_s = max_late
        rep.ahead = n_ahead
        rep.reorder_forced = n_forced
        rep.reorder_peak = peak

    def malformed(self, lineno: int, reason: str, line: bytes) -> None:
        rep = self.rep
        rep.lines_malformed += 1
        rep.malformed_reasons[reason] = rep.malformed_reasons.get(reason, 0) + 1
        if len(rep.malformed_examples) < _MAX_EXAMPLES:
            txt = line.decode("utf-8", "replace").rstrip("\r\n")
            rep.malformed_examples.append(
                {"line": lineno, "reason": reason, "text": txt[:300] + ("..." if len(txt) > 300 else "")}
            )


def analyze(
    path: str | os.PathLike | BinaryIO | Iterable[str | bytes],
    prefix: int = 24,
    window_s: int | str = 300,
    hostnames: str | os.PathLike | BinaryIO | Iterable[str | bytes] | None = None,
    *,
    segment_gap_s: int | str = 3600,
    split_days: bool = True,
    reorder_s: int | str = 60,
    reorder_lines: int = 1_000_000,
    image_exts: Iterable[str] | None = DEFAULT_IMAGE_EXTS,
    keep_images: bool = False,
    only_get: bool = False,
    progress: Callable[[int], None] | None = None,
) -> LogReport:
    """Analyse a CLF/Combined access log in one streaming pass.

    ``path`` is a file (plain or gzip, detected by magic bytes), ``"-"`` for
    stdin, a binary stream, or any iterable of lines (``str`` or ``bytes``).
    ``window_s``, ``segment_gap_s`` and ``reorder_s`` accept seconds or
    strings like ``"5m"``; ``reorder_lines`` bounds the reorder buffer.  ``hostnames`` (optional) is an ``ip hostname`` map
    for the /24 check (see :mod:`shortflow.logs.prefix`); no live DNS is done.
    ``image_exts`` is the inline-image extension list (``keep_images=True`` or
    an empty list disables the filter).  ``progress(n_lines)`` is called every
    262,144 lines.
    """
    if not 1 <= int(prefix) <= 32:
        raise ValueError("prefix must be in 1..32")
    w = parse_duration(window_s)
    if w <= 0:
        raise ValueError("window must be positive")
    gap: int | None = parse_duration(segment_gap_s)
    if gap is not None and gap <= 0:
        gap = None  # 0 disables gap splitting
    ro = parse_duration(reorder_s)
    if ro < 0:
        raise ValueError("reorder tolerance must be >= 0")
    if int(reorder_lines) < 1:
        raise ValueError(f"reorder_lines must be at least 1, not {reorder_lines}")
    exts: tuple[str, ...] = ()
    if not keep_images and image_exts:
        norm = (e.strip().lower() for e in image_exts)
        exts = tuple(e if e.startswith(".") else "." + e for e in norm if e)
    src = str(path) if isinstance(path, (str, os.PathLike)) else getattr(path, "name", "<stream>")
    rep = LogReport(
        source=str(src),
        prefix=int(prefix),
        window_s=w,
        segment_gap_s=gap,
        split_days=split_days,
        reorder_s=ro,
        image_exts=exts,
        only_get=only_get,
        reorder_lines=int(reorder_lines),
    )
    t0 = _time.perf_counter()
    an = _Analyzer(rep)
    an.run(iter_lines(path, warn=rep.warnings.append), progress)
    an.finish()
    rep.distinct_ips = sum(int.from_bytes(b, "little").bit_count() for b in rep.ip_bitmaps.values())
    if hostnames is not None:
        rep.prefix_check = prefix_check(rep.ip_bitmaps, hostnames, prefix=int(prefix))
    rep.elapsed_s = _time.perf_counter() - t0
    return rep
