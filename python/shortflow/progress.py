"""A single long run with a progress bar (simulated time) that Ctrl-C stops at once.

The core runs in slices of about 20 ms of wall time; between slices it checks for
signals (Ctrl-C raises ``KeyboardInterrupt`` within a slice) and calls a progress
callback at most ten times a second (``crates/shortflow-py/src/lib.rs``, ``run``; from
Python ``native.run_config(config, progress)``).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["ProgressFn", "run_config_progress", "sim_time_bar"]

#: One run with a progress callback: ``native.run_config(config, progress)``.
from .native import run_config as run_config_progress  # noqa: E402

#: ``progress(events, sim_time_s, duration_s)``
ProgressFn = Callable[[int, float, float], None]


def sim_time_bar(console: Any, label: str, enabled: bool = True) -> tuple[Any, ProgressFn]:
    """A rich progress bar over simulated time (transient) and the callback feeding it.
    Use the bar as a context manager around the run."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[sim]} simulated"),
        TextColumn("{task.fields[events]} events"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not enabled,
    )
    task = bar.add_task(label, total=None, sim="0s", events="0")

    def update(events: int, sim_time_s: float, duration_s: float) -> None:
        bar.update(task, total=duration_s, completed=min(sim_time_s, duration_s),
                   sim=f"{sim_time_s:.6g}s / {duration_s:.6g}s", events=f"{events:,}")

    return bar, update
