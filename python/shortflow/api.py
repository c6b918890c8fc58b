"""Programmatic entry points (re-exported by :mod:`shortflow`).

Layering (no import circles; ``tests/python/test_imports.py`` checks it): ``errors`` and
``units`` at the bottom; ``schema`` -> ``expand`` -> ``scenario`` (validation and
expansion); ``native`` (the core, :func:`run_config`); ``sweeper``; this module on top of
them; the command line (``cli``) on top of everything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import polars as pl

from .native import run_config
from .scenario import Scenario, load, path_argument
from .sweeper import run_sweep

__all__ = ["run_config", "sweep"]


def sweep(
    scenario: "Scenario | str | Path",
    jobs: int = 2,
    backend: str = "local",
    out: Optional[str | Path] = None,
    *,
    ray_address: Optional[str] = None,
    progress: bool = False,
    fresh: bool = False,
) -> pl.DataFrame:
    """Run every sweep point x seed of ``scenario`` and return all transfers.

    Results are cached per task in ``out/cache/<key>.parquet`` (key: sha256 of the
    resolved configuration and the package version), so an interrupted sweep resumes
    and a repeated one is instant; ``out/results.parquet`` holds the assembled rows.
    ``backend`` is ``"local"`` (a process pool of ``jobs`` workers) or ``"ray"``
    (``ray_address`` or a local Ray cluster). ``fresh=True`` ignores the cache.
    Arguments of the wrong type raise :class:`TypeError` naming the argument.
    """
    sc = scenario if isinstance(scenario, Scenario) else load(_arg_path(scenario, "scenario"))
    _arg(jobs, "jobs", int)
    _arg(backend, "backend", str)
    _arg(progress, "progress", bool)
    _arg(fresh, "fresh", bool)
    if ray_address is not None:
        _arg(ray_address, "ray_address", str)
    out_path = None if out is None else path_argument(out, "out")
    return run_sweep(sc, jobs=jobs, backend=backend, out=out_path, ray_address=ray_address, progress=progress,
                     fresh=fresh).results


def _arg_path(value: Any, name: str) -> Path:
    try:
        return path_argument(value, name)
    except TypeError:
        raise TypeError(f"{name!r} must be a Scenario or the path of a scenario file (str or os.PathLike), "
                        f"not {type(value).__name__} {value!r:.60}") from None


def _arg(value: Any, name: str, typ: type) -> None:
    """``value`` must be a ``typ`` (a bool is not an int)."""
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise TypeError(f"{name!r} must be {typ.__name__}, not {type(value).__name__} {value!r:.60}")
