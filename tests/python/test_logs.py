"""Tests for ``shortflow.logs`` (spec tcp-spand §4.2, `spand-loganalyze`).

The package is loaded straight from ``python/shortflow/logs`` under a private
name, so these tests never import ``shortflow/__init__.py`` (which loads the
compiled Rust core) and run without the extension being built.
"""

from __future__ import annotations

import calendar
import gzip
import importlib.util
import io
import json
import os
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "python" / "shortflow" / "logs"
MODNAME = "_shortflow_logs_under_test"


def _load():
    if MODNAME in sys.modules:
        return sys.modules[MODNAME]
    spec = importlib.util.spec_from_file_location(MODNAME, PKG / "__init__.py", submodule_search_locations=[str(PKG)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[MODNAME] = mod
    spec.loader.exec_module(mod)
    return mod


L = _load()
clf = sys.modules[MODNAME + ".clf"]

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
T0 = calendar.timegm((1999, 8, 3, 9, 0, 0))  # Tue 3 Aug 1999 09:00:00 UTC (the paper's first trace day)


def clf_time(t: int, tz_min: int = 0) -> str:
    g = time.gmtime(t + tz_min * 60)
    sign = "+" if tz_min >= 0 else "-"
    a = abs(tz_min)
    return f"{g.tm_mday:02d}/{MON[g.tm_mon - 1]}/{g.tm_year}:{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d} {sign}{a // 60:02d}{a % 60:02d}"


def line(host: str, t: int, path: str = "/index.html", method: str = "GET", tz_min: int = 0, combined: bool = True) -> str:
    s = f'{host} - - [{clf_time(t, tz_min)}] "{method} {path} HTTP/1.0" 200 1234'
    if combined:
        s += ' "http://www.msnbc.com/" "Mozilla/4.0 (compatible; MSIE 5.0; Windows 98)"'
    return s


def hist(values, counts) -> dict[int, int]:
    return dict(zip(values, counts))


# ----------------------------------------------------------------------------- parsing


def test_parse_clf_and_combined():
    p = L.parse_line('127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326')
    assert isinstance(p, L.ParsedLine)
    assert (p.host, p.user, p.method, p.path, p.proto, p.status, p.size) == (
        "127.0.0.1", "frank", "GET", "/apache_pb.gif", "HTTP/1.0", 200, 2326,
    )
    assert p.time == 971211336  # 2000-10-10 20:55:36 UTC
    assert p.day == calendar.timegm((2000, 10, 10, 0, 0, 0)) // 86400  # local date as written
    assert p.ip == (127 << 24) + 1 and p.host_kind == "ipv4"
    c = L.parse_line(
        '127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a.html HTTP/1.1" 304 - "http://ref/" "Mozilla/4.08 [en] (Win98; I ;Nav)"\r\n'
    )
    assert c.path == "/a.html" and c.status == 304 and c.size is None


@pytest.mark.parametrize(
    "raw, path",
    [
        (r'1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a\"b HTTP/1.1" 200 5', r"/a\"b"),  # Apache escape
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a\\x22b HTTP/1.1" 200 5', "/a\\x22b"),  # nginx escape
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a"b HTTP/1.1" 200 5 "-" "UA \\"x\\""', '/a"b'),  # raw quote
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a b.html HTTP/1.1" 200 5', "/a b.html"),  # raw space
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /old" 200 -', "/old"),  # HTTP/0.9
        ('1.2.3.4 - a user [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.0" - -', "/x"),  # authuser with space, status -
        ('1.2.3.4 - - [10/Oct/2000:13:55:36.123 +0000] "GET /x HTTP/1.0" 200 1', "/x"),  # msec extension
    ],
)
def test_parse_tricky_but_valid(raw, path):
    p = L.parse_line(raw)
    assert isinstance(p, L.ParsedLine), p
    assert p.path == path
    assert p.time == calendar.timegm((2000, 10, 10, 13, 55, 36))
    # the analyzer's fast path agrees with the reference parser
    r = L.analyze([raw], keep_images=True)
    assert (r.requests, r.lines_malformed) == (1, 0)


@pytest.mark.parametrize(
    "host, kind",
    [
        ("10.0.0.1", "ipv4"),
        ("::1", "ipv6"),
        ("2001:db8::1", "ipv6"),
        ("::ffff:10.0.0.1", "ipv6"),  # IPv4-mapped: IPv6 as written
        ("crawl-66-249-66-1.googlebot.com", "hostname"),
        ("localhost", "hostname"),
        ("256.1.1.1", "other"),
        ("1.2.3", "other"),
        ("1.2.3.4.5", "other"),
        ("1.2.3.0004", "other"),
        ("-", "other"),
    ],
)
def test_host_kinds(host, kind):
    p = L.parse_line(f'{host} - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 200 1')
    assert p.host_kind == kind
    r = L.analyze([f'{host} - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 200 1'])
    got = {"ipv4": r.requests, "ipv6": r.host_ipv6, "hostname": r.host_hostname, "other": r.host_other}
    assert got[kind] == 1 and sum(got.values()) == 1


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("", "blank"),
        ("garbage", "syntax"),
        ('1.2.3.4 - - 10/Oct/2000:13:55:36 +0000 "GET / HTTP/1.0" 200 1', "syntax"),  # no brackets
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 200', "syntax"),  # no size
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" OK 1', "syntax"),  # bad status
        ('1.2.3.4 - - [30/Feb/2000:13:55:36 +0000] "GET / HTTP/1.0" 200 1', "date"),
        ('1.2.3.4 - - [29/Feb/1999:13:55:36 +0000] "GET / HTTP/1.0" 200 1', "date"),  # not a leap year
        ('1.2.3.4 - - [10/Foo/2000:13:55:36 +0000] "GET / HTTP/1.0" 200 1', "date"),
        ('1.2.3.4 - - [10/Oct/2000:25:55:36 +0000] "GET / HTTP/1.0" 200 1', "date"),
        ('1.2.3.4 - - [10/Oct/2000:13:55:36] "GET / HTTP/1.0" 200 1', "date"),  # no zone
        ('1.2.3.4 - - [yesterday] "GET / HTTP/1.0" 200 1', "date"),
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "-" 400 0', "request"),  # nginx: no request
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "\\x16\\x03\\x01\\x02" 400 0', "request"),  # TLS to :80
        ('1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET" 400 0', "request"),
        pytest.param("1.2.3.4 - - " + "[" * 30000 + '"' * 30000, "syntax", id="hostile-linear-time"),
    ],
)
def test_malformed_lines(raw, reason):
    p = L.parse_line(raw)
    assert isinstance(p, L.MalformedLine) and p.reason == reason
    r = L.analyze([raw])
    if reason == "blank":
        assert (r.lines_blank, r.lines_malformed) == (1, 0)
    else:
        assert r.lines_malformed == 1 and r.malformed_reasons == {reason: 1}
        assert r.malformed_examples[0]["line"] == 1 and r.malformed_examples[0]["reason"] == reason
    assert r.requests == 0


def test_malformed_are_counted_not_fatal_and_examples_capped():
    good = [line("10.0.0.1", T0 + i) for i in range(10)]
    bad = ["junk %d" % i for i in range(20)] + ['1.2.3.4 - - [99/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 200 1']
    r = L.analyze(good[:5] + bad + good[5:])
    assert r.lines_total == 31 and r.requests == 10 and r.lines_malformed == 21
    assert r.malformed_reasons == {"syntax": 20, "date": 1}
    assert len(r.malformed_examples) == 5 and r.malformed_examples[0]["line"] == 6
    s = r.summary()
    assert s["malformed"]["count"] == 21 and s["lines"]["requests"] == 10


def test_parse_clf_time_zones_and_days():
    assert L.parse_clf_time(b"03/Aug/1999:09:00:00 +0000") == (T0, T0 // 86400)
    # 23:30 at -0700 is 06:30 UTC next day; the *local* date decides the segment day
    t, day = L.parse_clf_time(b"03/Aug/1999:23:30:00 -0700")
    assert t == calendar.timegm((1999, 8, 4, 6, 30, 0)) and day == T0 // 86400
    assert L.parse_clf_time(b"03/aug/1999:09:00:00 +0530")[0] == T0 - 5 * 3600 - 30 * 60
    assert L.parse_clf_time(b"29/Feb/2000:00:00:00 +0000") is not None


# ----------------------------------------------------------------------------- filters


def test_image_filter_rules_and_config():
    paths = {
        "/a.gif": True,
        "/A.JPG": True,
        "/b.jpeg?w=10": True,
        "/c.png#frag": False,  # fragments are never sent; '#' is part of the path here
        "/favicon.ico": True,
        "/x.xbm": True,
        "/y.bmp": True,
        "/dir.gif/page.html": False,
        "/page.asp?img=a.gif": False,
        "/news.html": False,
        "/gif": False,
    }
    lines = [line("10.0.0.1", T0, path=p) for p in paths]
    r = L.analyze(lines)
    assert r.filtered_images == sum(paths.values()) and r.requests == len(paths) - sum(paths.values())
    for p, img in paths.items():
        assert clf.is_inline_image(p, L.DEFAULT_IMAGE_EXTS) == img, p
        assert bool(clf.image_matcher(L.DEFAULT_IMAGE_EXTS)(f"{p} HTTP/1.0".encode())) == img, p
    assert L.analyze(lines, keep_images=True).requests == len(paths)
    r = L.analyze(lines + [line("10.0.0.1", T0, path="/s.CSS")], image_exts=["css", ".ico"])
    assert r.filtered_images == 2  # /s.CSS and /favicon.ico


def test_only_get():
    lines = [line("10.0.0.1", T0, method=m) for m in ("GET", "POST", "HEAD", "GET")]
    assert L.analyze(lines).requests == 4
    r = L.analyze(lines, only_get=True)
    assert (r.requests, r.filtered_method) == (2, 2)


# ----------------------------------------------------------------------------- exact Figs. 6/7

A1, A2 = "10.0.1.1", "10.0.1.2"  # network N1
B1 = "10.0.2.7"  # N2
C1 = "10.0.3.9"  # N3


def known_log() -> list[str]:
    """Three segments with hand-computed results (window 300 s).

    Segment 1 (09:00:00 + s):  s=0 N1 N2 N1' | s=10 N1 | s=100 N3 | s=400 N2 N3 | s=1000 N1
      gaps: N1 0, 10, 990; N2 400; N3 300.
      Fig. 7 (end 1000, so s <= 700 counts): s=0 -> {N1,N2,N3}=3 (x3 requests),
      s=10 -> {N1,N3}=2, s=100 -> {N3}=1, s=400 -> {N2,N3}=2 (x2); s=1000 left out.
    Segment 2 starts after a 3601 s silence (> 1 h): s=4601 N1 | 4606 N1 | 4606 N2 | 5000 N2 | 5200 N1
      gaps: N1 5, 594; N2 394.  End 5200: s=4601 -> {N1,N2}=2, 4606 -> {N1,N2}=2 (x2);
      5000 and 5200 left out.
    Segment 3 (23:59:58 N3) starts after a long silence; segment 4 (00:00:01 N3,
    next day) starts on a new local date although the gap is only 3 s: no gap is
    recorded and both requests are left out of Fig. 7 (windows cross the end).
    """
    out = []
    seg1 = [(0, A1), (0, B1), (0, A2), (10, A1), (100, C1), (400, B1), (400, C1), (1000, A1)]
    seg2 = [(4601, A1), (4606, A2), (4606, B1), (5000, B1), (5200, A1)]
    for s, h in seg1 + seg2:
        out.append(line(h, T0 + s))
    midnight = calendar.timegm((1999, 8, 4, 0, 0, 0))
    out.append(line(C1, midnight - 2))
    out.append(line(C1, midnight + 1))
    return out


def test_known_structure_exact():
    r = L.analyze(known_log(), window_s="5m")
    assert r.requests == 15 and len(r.segments) == 4
    assert hist(r.gap_values, r.gap_counts) == {0: 1, 5: 1, 10: 1, 300: 1, 394: 1, 400: 1, 594: 1, 990: 1}
    assert r.n_gaps == 8
    assert r.frac_gaps_below(300) == 3 / 8  # 0, 5, 10 (300 itself is not < 300)
    assert hist(r.nets_values, r.nets_counts) == {1: 1, 2: 6, 3: 3}
    assert r.fig7_requests == 10 and r.fig7_excluded == 5
    assert [(s.requests, s.gaps, s.fig7_requests, s.fig7_excluded, s.networks) for s in r.segments] == [
        (8, 5, 7, 1, 3),
        (5, 3, 3, 2, 2),
        (1, 0, 0, 1, 1),
        (1, 0, 0, 1, 1),
    ]
    assert r.segments[1].start == T0 + 4601 and r.segments[1].end == T0 + 5200
    # nearest-rank percentiles over the 10 requests: 1, 2x6, 3x3
    assert (r.nets_percentile(5), r.nets_percentile(50), r.nets_percentile(95), r.nets_percentile(100)) == (1, 2, 3, 3)
    x, f = r.gap_cdf()
    assert x == [0, 5, 10, 300, 394, 400, 594, 990] and f[-1] == 1.0 and f[2] == 3 / 8
    assert r.distinct_ips == 4 and r.distinct_networks == 3
    s = r.summary()
    assert s["fig7_networks"]["p50"] == 2 and s["fig7_networks"]["max"] == 3
    assert s["fig6_gaps"]["frac_below_window"] == 0.375


def test_segment_rules_configurable():
    lines = known_log()
    r = L.analyze(lines, split_days=False)
    assert len(r.segments) == 3 and 3 in r.gap_values  # 23:59:58 -> 00:00:01 is now a 3 s gap
    r = L.analyze(lines, segment_gap_s=0, split_days=False)  # one segment
    assert len(r.segments) == 1
    assert 3601 in r.gap_values  # N1: 1000 -> 4601
    r = L.analyze(lines, segment_gap_s="2h")
    assert len(r.segments) == 3  # segments 1 and 2 merge (3601 s < 2 h)
    assert 3601 in r.gap_values


def test_day_split_uses_local_date():
    # 16:59:59 and 17:00:01 local at -0700 straddle midnight UTC but not the local date
    t = calendar.timegm((1999, 8, 4, 0, 0, 0))
    r = L.analyze([line(A1, t - 1, tz_min=-420), line(A1, t + 1, tz_min=-420)])
    assert len(r.segments) == 1 and r.gap_values == [2]
    r = L.analyze([line(A1, t - 1), line(A1, t + 1)])
    assert len(r.segments) == 2 and r.gap_values == []


def test_noise_does_not_change_results():
    noisy = []
    for i, ln in enumerate(known_log()):
        noisy.append(ln)
        t = T0 + 50
        noisy.append(line("::1", t))
        noisy.append(line("proxy.aol.com", t))
        noisy.append(line(A1, t, path=f"/img/{i}.gif"))
        noisy.append("## not a log line")
    a, b = L.analyze(known_log()), L.analyze(noisy)
    assert (a.gap_values, a.gap_counts, a.nets_values, a.nets_counts) == (b.gap_values, b.gap_counts, b.nets_values, b.nets_counts)
    assert (b.host_ipv6, b.host_hostname, b.filtered_images, b.lines_malformed) == (15, 15, 15, 15)


def test_out_of_order_lines():
    ordered = known_log()
    shuffled = ordered[:]
    shuffled.insert(4, shuffled.pop(2))  # (0 s, A2) now comes after (10 s, A1) and (100 s, C1)
    shuffled[0], shuffled[1] = shuffled[1], shuffled[0]  # same second: not out of order
    a = L.analyze(ordered)
    # within the tolerance: placed exactly
    b = L.analyze(shuffled, reorder_s=120)
    assert (b.out_of_order, b.late_clamped, b.max_lateness_s) == (1, 0, 100)
    assert (a.gap_values, a.gap_counts, a.nets_values, a.nets_counts) == (b.gap_values, b.gap_counts, b.nets_values, b.nets_counts)
    # 100 s is a lone jump beyond a 60 s tolerance followed by an older line: it is held
    # as "ahead" instead of releasing 0 s and 10 s, so the 0 s line (10 s older than the
    # newest second) is still placed exactly
    c = L.analyze(shuffled, reorder_s=60)
    assert (c.out_of_order, c.late_clamped, c.max_lateness_s, c.ahead) == (1, 0, 10, 1)
    assert (a.gap_values, a.gap_counts, a.nets_values, a.nets_counts) == (c.gap_values, c.gap_counts, c.nets_values, c.nets_counts)
    # a jump confirmed by a second line (400 s, 400 s) releases 0, 10 and 100 s; a 0 s
    # line after it is late and clamped to 101 s: N1 has gaps 10, 91, 899 instead of 0, 10, 990
    late = ordered[:]
    late.insert(6, late.pop(2))
    e = L.analyze(late, reorder_s=60)
    assert (e.out_of_order, e.late_clamped, e.max_lateness_s, e.ahead) == (1, 1, 400, 0)
    assert e.requests == a.requests
    g = hist(e.gap_values, e.gap_counts)
    assert (g[10], g[91], g[899]) == (1, 1, 1) and 0 not in g and 990 not in g
    # a line whose second is still open is placed exactly even if older than the tolerance
    d = L.analyze([line(A1, T0), line(A1, T0 + 100), line(B1, T0 + 50)], reorder_s=10)
    assert (d.out_of_order, d.late_clamped) == (1, 0) and d.gap_values == [100]


def _brute(reqs, W, gapmax, split_days):
    """O(n^2) reference: reqs = sorted [(t, day, key)]."""
    segs, cur = [], []
    for t, d, k in reqs:
        if cur and (t - cur[-1][0] > gapmax or (split_days and d != cur[-1][1])):
            segs.append(cur)
            cur = []
        cur.append((t, d, k))
    if cur:
        segs.append(cur)
    gaps, nets, excl = {}, {}, 0
    for seg in segs:
        last = {}
        for t, _, k in seg:
            if k in last:
                gaps[t - last[k]] = gaps.get(t - last[k], 0) + 1
            last[k] = t
        end = seg[-1][0]
        for t, _, k in seg:
            if t + W > end:
                excl += 1
                continue
            n = len({k2 for t2, _, k2 in seg if t <= t2 < t + W})
            nets[n] = nets.get(n, 0) + 1
    return gaps, nets, excl, len(segs)


@pytest.mark.parametrize("seed", range(40))
def test_random_logs_match_bruteforce(seed):
    import random

    rng = random.Random(seed)
    W = rng.choice([1, 3, 10, 60, 300])
    gapmax = rng.choice([30, 200, 3600])
    split = rng.random() < 0.5
    prefix = rng.choice([24, 16, 28])
    t = rng.choice([T0, calendar.timegm((1999, 8, 3, 23, 58, 0))])
    hosts = [f"10.{a}.{b}.{c}" for a in (0, 1) for b in (0, 1, 2) for c in (1, 17, 200)]
    reqs = []
    for _ in range(rng.randrange(1, 300)):
        t += rng.choice([0, 0, 0, 1, 1, 2, 5, 20, rng.randrange(400)])
        reqs.append((t, rng.choice(hosts)))
    lines = [line(h, tt) for tt, h in reqs]
    for i in range(len(lines) - 1):  # mild disorder, always within a 10 min tolerance
        if rng.random() < 0.1:
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    r = L.analyze(lines, prefix=prefix, window_s=W, segment_gap_s=gapmax, split_days=split, reorder_s=600)

    def key(h):
        a, b, c, d = map(int, h.split("."))
        return ((a << 24) | (b << 16) | (c << 8) | d) >> (32 - prefix)

    ref = _brute([(tt, tt // 86400, key(h)) for tt, h in sorted(reqs, key=lambda x: x[0])], W, gapmax, split)
    got = (hist(r.gap_values, r.gap_counts), hist(r.nets_values, r.nets_counts), r.fig7_excluded, len(r.segments))
    assert got == ref
    assert r.late_clamped == 0


# ----------------------------------------------------------------------------- inputs


def test_gzip_detected_by_magic_and_stdin(tmp_path):
    body = ("\n".join(known_log()) + "\n").encode()
    gz = tmp_path / "access.log"  # gzip content, no .gz name
    gz.write_bytes(gzip.compress(body))
    plain = tmp_path / "access.log.gz"  # plain content, misleading name
    plain.write_bytes(body)
    ref = L.analyze(known_log())
    for p in (gz, plain, str(gz)):
        r = L.analyze(p)
        assert (r.requests, r.gap_values, r.nets_counts) == (ref.requests, ref.gap_values, ref.nets_counts)
        assert r.source == str(p)
    r = L.analyze(io.BufferedReader(io.BytesIO(gzip.compress(body))))
    assert r.requests == ref.requests
    # stdin via a subprocess (only the package, by path)
    code = textwrap.dedent(
        f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("sl", {str(PKG / '__init__.py')!r}, submodule_search_locations=[{str(PKG)!r}])
        m = importlib.util.module_from_spec(spec); sys.modules["sl"] = m; spec.loader.exec_module(m)
        r = m.analyze("-"); print(r.requests, r.n_gaps)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], input=gzip.compress(body), capture_output=True, check=True)
    assert out.stdout.split() == [b"15", b"8"]


# ----------------------------------------------------------------------------- /24 check


HOSTMAP = """\
# ip hostname (several formats mixed on purpose)
1.2.3.1 a.example.com
1.2.3.2,b.EXAMPLE.com.
1.2.3.1 other.net
1.4.2.1.in-addr.arpa. PTR x.foo.org.
2.4.2.1.in-addr.arpa domain name pointer y.bar.org.
1.2.5.1 NXDOMAIN
1.2.7.1\thost.co.uk
1.2.7.2 [other.co.uk]
9.9.9.9 dns.quad9.net
this line is not an entry
"""


def test_prefix_check_exact(tmp_path):
    ips = ["1.2.3.1", "1.2.3.2", "1.2.4.1", "1.2.4.2", "1.2.5.1", "1.2.6.1", "1.2.7.1", "1.2.7.2", "1.2.3.1"]
    log = [line(ip, T0 + i) for i, ip in enumerate(ips)] + [line("1.2.8.1", T0, path="/x.gif")]
    hm = tmp_path / "ptr.txt"
    hm.write_text(HOSTMAP)
    r = L.analyze(log, hostnames=hm)
    pc = r.prefix_check
    # 8 distinct IPs in the analysed requests (1.2.8.1 only fetched an image);
    # resolved: 1.2.3.1 (first entry wins), 1.2.3.2, 1.2.4.1, 1.2.4.2, 1.2.7.1, 1.2.7.2 = 6;
    # resolved /24s: 1.2.3, 1.2.4, 1.2.7 = 3; mixed: 1.2.4 (foo.org, bar.org) = 1.
    # 1.2.7 maps to co.uk twice: the paper's last-two-labels rule (deliberately) merges them.
    assert (pc.ips, pc.resolved, pc.prefixes, pc.mixed) == (8, 6, 3, 1)
    assert pc.resolved_pct == pytest.approx(75.0) and pc.mixed_pct == pytest.approx(100 / 3)
    assert (pc.map_not_in_log, pc.map_unparsed) == (1, 1)
    assert pc.mixed_examples == [("1.2.4.0/24", 2, ["bar.org", "foo.org"])]
    assert r.distinct_ips == 8
    # /16: everything is one network, and it has several domains
    pc16 = L.analyze(log, prefix=16, hostnames=hm).prefix_check
    assert (pc16.prefixes, pc16.mixed) == (1, 1)
    assert pc16.mixed_examples[0][0] == "1.2.0.0/16"


def test_domain_rule_and_map_lines():
    assert L.domain_of("www.cs.UTexas.edu.") == "utexas.edu"
    assert L.domain_of("a.b.co.uk") == "co.uk"
    assert L.domain_of("localhost") == "localhost"
    assert L.domain_of(".") is None
    ip = (10 << 24) | 1
    assert L.parse_hostname_line("10.0.0.1 h.example.com") == (ip, "h.example.com")
    assert L.parse_hostname_line("10.0.0.1, h.example.com") == (ip, "h.example.com")
    assert L.parse_hostname_line("1.0.0.10.in-addr.arpa. 3600 IN PTR h.example.com.") == (ip, "h.example.com.")
    assert L.parse_hostname_line("10.0.0.1 -") == (ip, None)
    assert L.parse_hostname_line("10.0.0.1 10.0.0.1") == (ip, None)
    assert L.parse_hostname_line("10.0.0.1") == (ip, None)
    assert L.parse_hostname_line("# comment") is None
    assert L.parse_hostname_line("nonsense here") is None


# ----------------------------------------------------------------------------- outputs / CLI


def test_write_outputs_and_cli(tmp_path):
    from typer.testing import CliRunner

    cli = sys.modules.get(MODNAME + ".cli") or importlib.import_module(MODNAME + ".cli")
    log = tmp_path / "access.log.gz"
    log.write_bytes(gzip.compress(("\n".join(known_log()) + "\nbroken line\n").encode()))
    hm = tmp_path / "ptr.txt"
    hm.write_text("10.0.1.1 a.x.com\n10.0.1.2 b.y.com\n10.0.2.7 c.x.com\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli.app, ["analyze", str(log), "--out", str(out), "--hostnames", str(hm), "--window", "5m"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    for name in ("gap_cdf.csv", "nets5min_cdf.csv", "prefix_check.csv", "prefix_mixed.csv", "summary.json"):
        assert (out / name).is_file(), name
    for name in ("fig6_gap_cdf.png", "fig7_nets_cdf.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    s = json.loads((out / "summary.json").read_text())
    assert s["lines"]["total"] == 16 and s["malformed"]["count"] == 1
    assert s["fig7_networks"]["p50"] == 2 and s["fig7_networks"]["max"] == 3
    assert s["fig6_gaps"]["frac_below_window"] == 0.375
    assert s["segments"]["count"] == 4
    assert s["prefix_check"]["mixed_prefixes"] == 1 and s["prefix_check"]["resolved"] == 3
    rows = (out / "gap_cdf.csv").read_text().splitlines()
    assert rows[0] == "gap_s,count,cdf" and rows[1] == "0,1,0.125000000" and rows[-1].endswith(",1.000000000")
    rows = (out / "nets5min_cdf.csv").read_text().splitlines()
    assert rows[1:] == ["1,1,0.100000000", "2,6,0.700000000", "3,3,1.000000000"]
    assert "requests analysed" in res.output
    # API mirror, no plots
    files = L.write_outputs(L.analyze(known_log()), tmp_path / "api", plots=False)
    assert set(files) == {"gap_cdf", "nets5min_cdf", "summary"}
    # errors are clean
    res = CliRunner().invoke(cli.app, ["analyze", str(tmp_path / "missing.log")])
    assert res.exit_code != 0
    res = CliRunner().invoke(cli.app, ["analyze", str(log), "--window", "5 parsecs", "--out", str(out)])
    assert res.exit_code != 0


def test_empty_log(tmp_path):
    r = L.analyze([])
    assert r.requests == 0 and r.summary()["fig7_networks"]["p50"] is None and r.frac_gaps_below() is None
    files = L.write_outputs(r, tmp_path)
    assert files["fig6"].is_file() and files["fig7"].is_file()


def test_parse_duration():
    assert [L.parse_duration(x) for x in ("300", "300s", "5m", "1h", "1h30m", "1d", 42)] == [300, 300, 300, 3600, 5400, 86400, 42]
    with pytest.raises(ValueError):
        L.parse_duration("5 parsecs")


# ----------------------------------------------------------------------------- scale

BIG_LINES = int(os.environ.get("SHORTFLOW_LOGS_BIG_LINES", "2000000"))
TRACE_LINES = int(os.environ.get("SHORTFLOW_LOGS_TRACE_LINES", "200000"))
N_NETS = 20_000  # /24 networks in the generated log
N_IPS_PER_NET = 8


def generate_log(n: int, path: Path, rate: int = 185) -> None:
    """Write an n-line MSNBC-like Combined log (gzip) from a generator, never holding it.

    ~185 requests/s (10.7 M requests over 3 days x 3 h in the paper is ~330/s; this
    is busy enough for 5-min windows with ~55 k requests), N_NETS /24s x
    N_IPS_PER_NET clients, popularity skewed by a multiplicative walk, 1/6 of the
    requests for inline images, ~1% of the lines 1-4 s out of order.
    """
    ips = [f"{11 + (i >> 16) % 200}.{(i >> 8) & 255}.{i & 255}.{1 + 31 * h}" for i in range(N_NETS) for h in range(N_IPS_PER_NET)]
    n_ips = len(ips)
    pages = [f"/news/{i}.asp" for i in range(50)] + [f"/img/{i}.gif" for i in range(10)]
    tail = ' "-" "Mozilla/4.0 (compatible; MSIE 5.0; Windows 98)"\n'
    t = T0
    ts = {}
    x = 12345
    with gzip.open(path, "wb", compresslevel=1) as fh:
        buf = []
        for i in range(n):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF  # LCG: deterministic, cheap
            if i % rate == 0:
                t += 1
                ts = {d: clf_time(t - d, -420) for d in range(5)}
            j = (x >> 4) % n_ips
            if x & 3 == 0:
                j = j % 2000  # a hot set of 250 /24s
            late = 1 + (x >> 20) % 4 if x % 97 == 0 else 0
            buf.append(f'{ips[j]} - - [{ts[late]}] "GET {pages[(x >> 9) % 60]} HTTP/1.0" 200 {x & 0xFFFF}{tail}')
            if len(buf) >= 4096:
                fh.write("".join(buf).encode())
                buf.clear()
        fh.write("".join(buf).encode())


@pytest.fixture(scope="module")
def big_log(tmp_path_factory):
    p = tmp_path_factory.mktemp("logs") / "big.log.gz"
    generate_log(BIG_LINES, p)
    return p


@pytest.mark.slow
def test_big_log_streams_in_bounded_memory(big_log):
    """2 M lines through a fresh interpreter: RSS must stay far below the data size.

    The uncompressed log is ~2 M x 130 B = 260 MB; holding the lines as bytes
    objects would take > 330 MB.  The analyzer's state (see test_tracemalloc_peak)
    is < 20 MB, so RSS growth over the interpreter baseline must stay < 80 MB, and
    RSS must not keep growing with the number of lines once the caches are warm
    (the second half of the stream adds < 8 MB).
    """
    code = textwrap.dedent(
        f"""
        import importlib.util, sys, json, time, resource
        spec = importlib.util.spec_from_file_location("sl", {str(PKG / '__init__.py')!r}, submodule_search_locations=[{str(PKG)!r}])
        m = importlib.util.module_from_spec(spec); sys.modules["sl"] = m; spec.loader.exec_module(m)
        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * resource.getpagesize()
        def hwm():  # peak RSS of this process image (ru_maxrss would include the forking parent's)
            with open("/proc/self/status") as f:
                return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
        base = rss(); samples = []
        t0 = time.perf_counter(); c0 = time.process_time()
        r = m.analyze({str(big_log)!r}, progress=lambda n: samples.append((n, rss())))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(json.dumps(dict(base=base, samples=samples, maxrss=hwm(),
                              wall=wall, cpu=cpu, lines=r.lines_total, requests=r.requests, summary=r.summary())))
        """
    )
    if not Path("/proc/self/statm").exists():
        pytest.skip("needs /proc (Linux)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, text=True)
    d = json.loads(out.stdout)
    MB = 1 << 20
    assert d["lines"] == BIG_LINES
    assert d["summary"]["lines"]["malformed"] == 0
    assert d["requests"] + d["summary"]["lines"]["filtered_images"] == BIG_LINES
    assert d["summary"]["ordering"]["out_of_order"] > 0 and d["summary"]["ordering"]["late_clamped"] == 0
    assert d["maxrss"] - d["base"] < 80 * MB, (d["maxrss"] - d["base"]) / MB
    mid = [r for n, r in d["samples"] if n >= BIG_LINES // 2]
    assert max(mid) - mid[0] < 8 * MB, [(n, r // MB) for n, r in d["samples"]]
    print(
        f"\n{BIG_LINES:,} lines: {d['lines'] / d['wall']:,.0f} lines/s wall, {d['lines'] / d['cpu']:,.0f} lines/s CPU; "
        f"peak RSS {d['maxrss'] / MB:.0f} MB (+{(d['maxrss'] - d['base']) / MB:.0f} MB over the interpreter)"
    )


@pytest.mark.slow
def test_tracemalloc_peak_bounded(tmp_path):
    """Peak traced memory of one streaming run on a generated log (tracemalloc is ~8x slower,
    so TRACE_LINES defaults to 200 k; set SHORTFLOW_LOGS_TRACE_LINES=2000000 to trace the big run).

    Budget (worst case for this log): host cache <= 65,536 x ~130 B = 8.5 MB; per /24
    (20,000): `last` entry + key + 32-byte IP bitmap ~ 250 B = 5 MB; reorder buffer
    (61 s x 185 lines x ~40 B) < 1 MB; timestamp cache, Fig. 6/7 histograms and
    rings < 1 MB; read buffers (1 MB file, 64 kB compressed + at most 1 MB decompressed
    block and its line copy) 2-3 MB.  ~18 MB in
    all; the limit is 32 MiB, against > 50 MB for merely holding 200 k lines.
    """
    p = tmp_path / "trace.log.gz"
    generate_log(TRACE_LINES, p)
    tracemalloc.start()
    try:
        r = L.analyze(p)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.lines_total == TRACE_LINES
    assert peak < 32 * (1 << 20), peak / (1 << 20)
    print(f"\ntracemalloc peak {peak / (1 << 20):.1f} MiB for {TRACE_LINES:,} lines")


# ----------------------------------------------------------------------------- failures


def _cli():
    return sys.modules.get(MODNAME + ".cli") or importlib.import_module(MODNAME + ".cli")


def _run_cli(*args):
    from typer.testing import CliRunner

    return CliRunner().invoke(_cli().app, ["analyze", *map(str, args)], env={"COLUMNS": "300"})


def test_cli_malformed_lines_are_printed_literally(tmp_path):
    """Markup and terminal escapes in a malformed line are shown, never interpreted."""
    log = tmp_path / "evil.log"
    evil = 'bad [/] [bold]x[/bold] \x1b[31mred\x1b[0m \x1b]0;title\x07 \u202eabc \x9b2J'
    log.write_text("\n".join(known_log()[:4] + [evil]) + "\n")
    res = _run_cli(log, "--out", tmp_path / "out")
    assert res.exit_code == 0, res.output
    assert "malformed line 5 (syntax): bad [/] [bold]x[/bold] \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 \\u202eabc \\x9b2J" in res.output
    assert not any(c in res.output for c in "\x1b\x07\u202e\x9b")
    assert _cli().safe("[/]\x1b\t") == "\\[/]\\x1b\t"


def test_cli_truncated_gzip_keeps_lines_and_warns(tmp_path):
    body = ("\n".join(line(f"10.0.{i % 50}.1", T0 + i) for i in range(20000)) + "\n").encode()
    whole = gzip.compress(body)
    log = tmp_path / "cut.log.gz"
    log.write_bytes(whole[: len(whole) // 2])
    res = _run_cli(log, "--out", tmp_path / "out", "--no-plots")
    assert res.exit_code == 0, res.output
    assert f"warning: {log}: the gzip file is truncated" in res.output and "Aborted" not in res.output
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    kept = s["lines"]["total"]
    assert 0 < kept < 20000 and s["lines"]["malformed"] == 0  # complete lines only
    assert s["warnings"] and "truncated" in s["warnings"][0]
    assert gzip.decompress(whole).startswith(b"".join(l + b"\n" for l in body.split(b"\n")[:kept]))
    # the API without a warning callback: an error naming the file
    with pytest.raises(clf.LogInputError, match="truncated"):
        list(clf.iter_lines(log))


def test_cli_input_and_output_errors_are_clear(tmp_path):
    fake = tmp_path / "fake.gz"
    fake.write_bytes(b"\x1f\x8bnot gzip at all\n")
    res = _run_cli(fake, "--out", tmp_path / "out")
    assert res.exit_code == 2
    assert f"error: {fake}: starts with the gzip signature (1f 8b) but is not a valid gzip file" in res.output
    res = _run_cli(tmp_path, "--out", tmp_path / "out")
    assert res.exit_code == 2 and f"ACCESS_LOG {tmp_path}: is a directory" in res.output
    assert "no such file" not in res.output
    res = _run_cli(tmp_path / "missing.log")
    assert res.exit_code == 2 and "missing.log: no such file" in res.output
    ok = tmp_path / "ok.log"
    ok.write_text("\n".join(known_log()) + "\n")
    res = _run_cli(ok, "--out", ok)
    assert res.exit_code == 2 and f"--out {ok}: is an existing file, not a directory" in res.output
    res = _run_cli(ok, "--out", ok / "sub")
    assert res.exit_code == 2 and f"is inside {ok}, which is an existing file" in res.output
    assert "internal error" not in res.output and "Traceback" not in res.output
    with pytest.raises(clf.LogInputError, match="is a directory"):
        L.analyze(tmp_path)


def test_future_dated_line_does_not_hold_the_buffer():
    """One line dated a day ahead: later lines keep flowing through a reorder buffer of
    about the tolerance (one line a second here), the line is placed at its own time, and the
    rest of the analysis is that of the log without it."""
    base = [line(f"10.0.{i % 7}.1", T0 + i) for i in range(3000)]
    odd = line("10.0.99.1", T0 + 20 * 3600)
    with_odd = base[:100] + [odd] + base[100:]
    a, b = L.analyze(base), L.analyze(with_odd)
    assert (b.ahead, b.out_of_order, b.late_clamped, b.reorder_forced) == (1, 0, 0, 0)
    # 61 open seconds of one line, the line that closes the oldest, and the held one (the
    # old buffer held every line after it: 2,900)
    assert b.reorder_peak == 63, b.reorder_peak
    assert (b.gap_values, b.gap_counts, b.nets_values, b.nets_counts) == (a.gap_values, a.gap_counts, a.nets_values, a.nets_counts)
    assert len(b.segments) == len(a.segments) + 1 and b.segments[-1].start == T0 + 20 * 3600
    # the terminal warning says what happened
    assert any("1 lone lines were dated more than 60 s ahead" in w for w in _cli().warnings(b))
    # a log that resumes after a pause (two lines in a row beyond the tolerance) is a jump
    resumed = base[:100] + [line("10.0.1.1", T0 + 7200 + i) for i in range(50)]
    c = L.analyze(resumed)
    assert (c.ahead, c.out_of_order, len(c.segments)) == (0, 0, 2)


def test_reorder_buffer_bounded_by_lines():
    lines_ = [line(f"10.0.{i % 5}.1", T0 + i // 100) for i in range(5000)]  # 100 lines per second
    r = L.analyze(lines_, reorder_lines=250)
    assert r.reorder_peak <= 251 and r.reorder_forced > 0
    ref = L.analyze(lines_)
    assert ref.reorder_forced == 0 and ref.reorder_peak > 5000 // 2  # 61 s x 100 lines: all of it
    assert (r.gap_values, r.gap_counts, r.nets_values, r.nets_counts) == (ref.gap_values, ref.gap_counts, ref.nets_values, ref.nets_counts)
    assert any("reorder buffer was full (250 lines" in w for w in _cli().warnings(r))
    with pytest.raises(ValueError, match="reorder_lines must be at least 1, not 0"):
        L.analyze(lines_, reorder_lines=0)
