"""Random connection workloads drawn at expansion time (``[[workloads]]`` in a scenario;
spec fairshare-and-sizebased part C: "Poisson-arriving FTP flows with Pareto durations,
persistent FTP cross traffic").

Every draw comes from its own stream, ``random.Random("workload:<seed>:<name>:<stream>")``
(CPython's Mersenne Twister seeded from a string is the same on every platform and
version since 3.2), so a workload's arrivals do not change when its lifetimes or client
choices do, and adding one workload does not move another's draws. Every scheme run with
the same seed sees the same connections (common random numbers).

Two kinds:

* :func:`poisson_connections`: connections from one server arrive as a Poisson process
  (exponential gaps of mean ``interarrival``) from ``start`` to the end of the run, each
  to a client drawn uniformly from a list (a client may get several at once), each with a
  lifetime (Pareto with a given mean and shape) or running to the end;
* :func:`pair_connections`: one connection per (source, sink) pair, the pairs starting at
  exponentially staggered times (gaps of mean ``stagger``); with a lifetime, the pair is
  silent after it ends, or with ``renew`` opens its next connection at once.
"""

from __future__ import annotations

import random
from typing import Optional, Sequence

__all__ = ["pareto_xm", "stream", "poisson_connections", "pair_connections", "random_pairs"]


def pareto_xm(mean: float, shape: float) -> float:
    """Pareto scale for a given mean: x_m = mean (a - 1) / a (needs a > 1)."""
    if shape <= 1:
        raise ValueError(f"shape must exceed 1 for a finite mean, not {shape}")
    return mean * (shape - 1) / shape


def stream(seed: int, name: str, what: str) -> random.Random:
    """The random stream ``what`` of workload ``name`` under ``seed``."""
    return random.Random(f"workload:{seed}:{name}:{what}")


def _lifetime(rng: random.Random, life: Optional[tuple[float, float]]) -> Optional[float]:
    if life is None:
        return None
    mean, shape = life
    return max(pareto_xm(mean, shape) * rng.paretovariate(shape), 1e-6)


def poisson_connections(seed: int, name: str, end_s: float, interarrival_s: float, clients: int,
                        life: Optional[tuple[float, float]], start_s: float = 0.0
                        ) -> list[tuple[float, Optional[float], int]]:
    """(start, lifetime or None, client index) of every connection that starts before ``end_s``."""
    arr, lives, pick = stream(seed, name, "arrivals"), stream(seed, name, "lifetimes"), stream(seed, name, "clients")
    out: list[tuple[float, Optional[float], int]] = []
    t = start_s
    while True:
        t += arr.expovariate(1.0 / interarrival_s)
        if t >= end_s:
            return out
        out.append((t, _lifetime(lives, life), pick.randrange(clients)))


def pair_connections(seed: int, name: str, end_s: float, pairs: int, stagger_s: float,
                     life: Optional[tuple[float, float]], renew: bool, start_s: float = 0.0
                     ) -> list[tuple[int, float, Optional[float]]]:
    """(pair index, start, lifetime or None) of every connection that starts before ``end_s``."""
    gaps, lives = stream(seed, name, "stagger"), stream(seed, name, "lifetimes")
    out: list[tuple[int, float, Optional[float]]] = []
    t = start_s
    for j in range(pairs):
        t += gaps.expovariate(1.0 / stagger_s)
        at = t
        while at < end_s:
            d = _lifetime(lives, life)
            out.append((j, at, d))
            if d is None or not renew:
                break
            at += d
    return out


def random_pairs(seed: int, name: str, count: int, domains: Sequence[object]) -> list[tuple[int, int]]:
    """``count`` (source, sink) node indices drawn uniformly among ``len(domains)`` nodes,
    the two ends in different domains (``domains[i]``: node i's domain)."""
    rng = stream(seed, name, "pairs")
    n = len(domains)
    if len({*domains}) < 2:
        raise ValueError("random pairs in different domains need nodes in at least two domains")
    out = []
    for _ in range(count):
        while True:
            a, b = rng.randrange(n), rng.randrange(n)
            if domains[a] != domains[b]:
                out.append((a, b))
                break
    return out
