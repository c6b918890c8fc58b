"""The package version, in a module of its own so that any module can read it without
importing the package root (whose ``__init__`` imports the API: a circle)."""

from __future__ import annotations

__all__ = ["__version__"]


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("shortflow")
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    try:
        from ._core import version as core_version  # type: ignore[attr-defined]

        return core_version()
    except ImportError:
        return "0+unknown"


__version__: str = _version()
