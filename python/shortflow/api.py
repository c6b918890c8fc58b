"""Programmatic entry points (re-exported by :mod:`shortflow`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Optional

import polars as pl

from .results import RunResults

__all__ = ["run_config", "sweep"]


def run_config(config: Mapping[str, Any] | str) -> RunResults:
    """Run one core ``SimConfig`` (a dict or its JSON text) and return every result
    table as polars frames. Configuration errors raise :class:`SimulationError`
    naming the field and value."""
    from .native import resolve_json, run_json

    text = config if isinstance(config, str) else json.dumps(config)
    resolved = resolve_json(text)
    out = run_json(resolved)
    return RunResults.from_json(out, json.loads(resolved))


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
    """
    from .scenario import Scenario, load
    from .sweeper import run_sweep

    sc = scenario if isinstance(scenario, Scenario) else load(scenario)
    return run_sweep(sc, jobs=jobs, backend=backend, out=out, ray_address=ray_address, progress=progress,
                     fresh=fresh).results


from .scenario import Scenario  # noqa: E402
