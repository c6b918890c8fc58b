"""Where a reproduction's scenario files are: ``scenarios/<name>`` of the repository."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

__all__ = ["find_scenario_dir"]


def find_scenario_dir(name: str, marker: str, env: str, start: Optional[Path] = None) -> Path:
    """``scenarios/<name>``: ``$<env>`` if set, else the first parent of ``start`` (default:
    the working directory) or of this package that has ``scenarios/<name>/<marker>``."""
    given = os.environ.get(env)
    if given:
        return Path(given)
    here = Path(__file__).resolve()
    for base in [Path(start or Path.cwd()).resolve(), *here.parents]:
        for cand in [base, *base.parents]:
            d = cand / "scenarios" / name
            if (d / marker).exists():
                return d
    raise FileNotFoundError(f"cannot find scenarios/{name}/{marker}: run from the shortflow repository or set {env}")
