"""Module attributes that load their modules on first use (PEP 562): a package's public
names without importing what they live in until one is asked for (the command line's
start-up stays free of polars, numpy and pydantic's schema)."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable


def lazy_attributes(package: str, names: dict[str, str], namespace: dict[str, Any]) -> tuple[
        Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names`` maps each public name to the
    submodule defining it; a loaded name is cached in the package's ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
