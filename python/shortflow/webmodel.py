"""The thesis's analytical Web download-time model (Padmanabhan, ch. 4 §4.2.1; spec
``thesis-http-session.md`` A.2 and our persistent-connection extension A.2.2).

Assumptions (thesis): transmission and queueing delay negligible against propagation,
no losses (every connection stays in slow start), no processing time, one ack per
segment, the receiver window never binds. Times are in round trips; multiply by the
RTT for seconds.

- A fresh connection delivers 2^x − 1 segments in x round trips (initial window 1), so a
  response of ``n`` segments takes ``ceil(log2(n + 1))`` rounds, the request riding in
  the first; the SYN exchange adds one.
- With window ``w`` at the start of a burst (no loss, slow start): ``r(n, w) =
  ceil(log2(n / w + 1))`` rounds, after which cwnd = w + n (A.2.2).

Retrieval modes:

``seq``
    HTTP/1.0, one connection per object, one at a time: ``t(h) + nimages·t(i)``.
``conc``
    HTTP/1.0, the HTML first, then the images over ``k`` parallel connections
    (``k = nimages`` by default, the thesis's ``httpconc``): ``t(h) + ceil(nimages/k)·t(i)``
    (for ``1 < k < nimages`` this batching is our generalisation).
``persistent``
    One P-HTTP connection, no pipelining: ``1 + r(h,1) + Σ r(s_i, w_i)``, ``w_1 = 1 + h``,
    ``w_{i+1} = w_i + s_i`` (the gap between objects is about one RTT, below the RTO, so
    cwnd is not reset).
``getlist``
    Pipelined GETLIST: ``1 + r(h,1) + r(S, 1 + h)``, S = segments of all images sent
    back to back (their bytes concatenated).
``getall``
    GETALL: ``1 + r(H+S, 1)``, the HTML and the images as one byte stream.

Lower bounds (one RTT per request/response, no set-up, no slow start):
``seq_min = 1 + nimages``, ``conc_min = 2``.

The spec's worked examples (A.2.1, A.2.2) are the tests; they show that its GETALL and
GETLIST numbers count the concatenated bytes, not the per-object segments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

MODES = ("seq", "conc", "persistent", "getlist", "getall")


def segments(nbytes: int, mss: int) -> int:
    """Segments of a response of ``nbytes`` (at least one)."""
    return max(1, -(-nbytes // mss))


def rounds(n: int, w: int = 1) -> int:
    """Round trips to send ``n`` segments in slow start from window ``w`` (ack every
    segment, no loss): ``ceil(log2(n / w + 1))``, computed exactly in integers."""
    if n <= 0:
        return 0
    # smallest x with w·(2^x − 1) >= n
    x = 0
    while w * ((1 << x) - 1) < n:
        x += 1
    return x


def object_time(nbytes: int, mss: int) -> int:
    """``t(nbytes)``: SYN round trip + the response on a fresh connection (RTTs)."""
    return 1 + rounds(segments(nbytes, mss), 1)


@dataclass(frozen=True)
class Page:
    html_bytes: int
    image_bytes: tuple[int, ...]

    @classmethod
    def uniform(cls, html_bytes: int, nimages: int, image_bytes: int) -> "Page":
        return cls(html_bytes, (image_bytes,) * nimages)

    def check(self) -> None:
        if self.html_bytes < 1:
            raise ValueError(f"html_bytes = {self.html_bytes}: the HTML must be at least 1 byte")
        for i, b in enumerate(self.image_bytes):
            if b < 1:
                raise ValueError(f"image_bytes[{i}] = {b}: an image must be at least 1 byte")


def download_rtts(page: Page, mss: int, mode: str, k: Optional[int] = None) -> int:
    """Download time of ``page`` in round trips under ``mode`` (see the module text)."""
    page.check()
    if mss < 1:
        raise ValueError(f"mss = {mss}: must be at least 1 byte")
    if mode not in MODES:
        raise ValueError(f"mode = {mode!r}: one of {', '.join(MODES)}")
    n = len(page.image_bytes)
    h = segments(page.html_bytes, mss)
    if mode == "seq":
        return object_time(page.html_bytes, mss) + sum(object_time(b, mss) for b in page.image_bytes)
    if mode == "conc":
        k = n if k is None else k
        if n and not (1 <= k <= n):
            raise ValueError(f"k = {k}: parallel connections must be from 1 to the number of images ({n})")
        if n == 0:
            return object_time(page.html_bytes, mss)
        # Batches of k images in parallel; each batch costs its slowest image.
        imgs = list(page.image_bytes)
        batches = [imgs[i:i + k] for i in range(0, n, k)]
        return object_time(page.html_bytes, mss) + sum(max(object_time(b, mss) for b in batch) for batch in batches)
    if mode == "persistent":
        total = 1 + rounds(h, 1)
        w = 1 + h
        for b in page.image_bytes:
            s = segments(b, mss)
            total += rounds(s, w)
            w += s
        return total
    if mode == "getlist":
        if n == 0:
            return 1 + rounds(h, 1)
        s = segments(sum(page.image_bytes), mss)
        return 1 + rounds(h, 1) + rounds(s, 1 + h)
    # getall
    return 1 + rounds(segments(page.html_bytes + sum(page.image_bytes), mss), 1)


def lower_bounds(nimages: int) -> dict[str, int]:
    """One RTT per request/response, HTML before images (RTTs)."""
    return {"seq_min": 1 + nimages, "conc_min": 2}


def table(page: Page, mss: int, rtt_s: Optional[float] = None) -> dict[str, float]:
    """Every mode's download time (RTTs, or seconds when ``rtt_s`` is given) and the
    lower bounds."""
    out: dict[str, float] = {m: float(download_rtts(page, mss, m)) for m in MODES}
    out.update({k: float(v) for k, v in lower_bounds(len(page.image_bytes)).items()})
    if rtt_s is not None:
        if not (math.isfinite(rtt_s) and rtt_s > 0):
            raise ValueError(f"rtt = {rtt_s}: must be a positive number of seconds")
        out = {k: v * rtt_s for k, v in out.items()}
    return out
