"""JSON-safe copies of what the reproductions write (``claims.json``): one helper for all."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

__all__ = ["clean_json"]


def clean_json(v: Any) -> Any:
    """JSON-safe copy: NaN/inf become null, tuples/paths plain values."""
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, dict):
        return {str(k): clean_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean_json(x) for x in v]
    if isinstance(v, Path):
        return str(v)
    return v
