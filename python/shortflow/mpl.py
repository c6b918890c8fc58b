"""Headless matplotlib for the package's plots (sweep plots, the reproductions'
figures). matplotlib is imported on first use only: it is slow to import and most
commands never draw. (``shortflow.logs`` keeps its own two-line copy: it is importable
on its own, without the package and its compiled core.)"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional, Sequence

__all__ = ["pyplot", "save", "errorbar", "dodge_offsets", "integer_ticks", "DODGE_NOTE"]

#: The footnote of a plot whose series are dodged.
DODGE_NOTE = "points of different series shifted sideways so that their error bars do not overlap"


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig: Any, path: str | Path) -> Path:
    """Lay out, write and close ``fig``; returns the path."""
    fig.tight_layout()
    fig.savefig(path)
    pyplot().close(fig)
    return Path(path)


def dodge_offsets(xs: Sequence[float], n: int) -> list[float]:
    """x offsets of ``n`` series drawn at the same x values (linear axis), so that their
    error bars sit side by side: together they span 8% of the x range (about 8 px
    between neighbours on a 5-inch axis), at most 40% of the smallest gap between two x
    values, centred on the true x."""
    if n <= 1:
        return [0.0] * n
    u = sorted(set(float(x) for x in xs))
    if len(u) < 2:
        width = abs(u[0]) * 0.08 if u and u[0] else 0.4
    else:
        width = min(0.08 * (u[-1] - u[0]), 0.4 * min(b - a for a, b in zip(u, u[1:])))
    step = width / (n - 1)
    return [(i - (n - 1) / 2) * step for i in range(n)]


def errorbar(ax: Any, xs: Sequence[float], means: Sequence[Optional[float]], ci: Sequence[Optional[float]], *,
             offset: float = 0.0, floor: Optional[float] = None, **style: Any) -> Any:
    """``means`` with 95% CI bars (a missing CI draws no bar) at ``xs`` + ``offset``. With
    ``floor`` (0 for a completion time) the lower bar stops there: a CI below what the
    quantity can be is drawn as an asymmetric bar, not as an impossible value."""
    lo, hi = [], []
    for m, c in zip(means, ci):
        c = 0.0 if c is None or (isinstance(c, float) and math.isnan(c)) else float(c)
        hi.append(c)
        lo.append(min(c, max(0.0, m - floor)) if floor is not None and m is not None else c)
    ys = [math.nan if m is None else m for m in means]  # a point without a value is not drawn
    return ax.errorbar([float(x) + offset for x in xs], ys, yerr=[lo, hi], **style)


def integer_ticks(ax: Any, xs: Sequence[Any]) -> None:
    """Integer x ticks when every x value is a whole number (N, counts)."""
    vals = [float(x) for x in xs if x is not None]
    if vals and all(v.is_integer() for v in vals):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
