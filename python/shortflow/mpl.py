"""Headless matplotlib for the package's plots (sweep plots, the reproductions'
figures). matplotlib is imported on first use only: it is slow to import and most
commands never draw. (``shortflow.logs`` keeps its own two-line copy: it is importable
on its own, without the package and its compiled core.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["pyplot", "save"]


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
