"""What every part of ``repro web`` shares: loading the thesis's Web scenario files."""

from __future__ import annotations

from typing import Any


def load_web(name: str) -> Any:
    """The scenario ``scenarios/web/<name>`` (or under ``$SHORTFLOW_WEB_SCENARIOS``)."""
    from ...scenario import load
    from ..paths import find_scenario_dir

    return load(find_scenario_dir("web", "common.md", "SHORTFLOW_WEB_SCENARIOS") / name)
