"""Access to the compiled core (``shortflow._core``) with a helpful error when it is
missing, and the JSON plumbing around it."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from .errors import SimulationError

__all__ = ["core", "run_json", "resolve", "resolve_json", "canonical_json", "CoreMissing"]


class CoreMissing(ImportError):
    pass


_core: ModuleType | None = None


def core() -> ModuleType:
    """The ``shortflow._core`` extension module (imported on first use)."""
    global _core
    if _core is None:
        try:
            from . import _core as mod  # type: ignore[attr-defined]
        except ImportError as e:  # pragma: no cover - exercised only without a build
            raise CoreMissing(
                "shortflow's compiled core (shortflow._core) is not available: "
                f"{e}. Build it from the repository with `pip install -e .` "
                "(or `maturin develop --release`)."
            ) from e
        _core = mod
    return _core


def canonical_json(obj: Any) -> str:
    """Deterministic JSON text (sorted keys, no spaces): what cache keys hash."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def resolve_json(config: dict[str, Any] | str) -> str:
    """The effective configuration (every default filled in by the core) as JSON text."""
    text = config if isinstance(config, str) else json.dumps(config)
    try:
        return core().resolve(text)
    except ValueError as e:
        raise SimulationError(f"the core rejected the configuration: {e}") from None


def resolve(config: dict[str, Any] | str) -> dict[str, Any]:
    """The effective configuration as a dict."""
    return json.loads(resolve_json(config))


def run_json(config_json: str) -> str:
    """Run one simulation (GIL released) and return the results JSON."""
    try:
        return core().run(config_json)
    except ValueError as e:
        raise SimulationError(f"the core rejected the configuration: {e}") from None
