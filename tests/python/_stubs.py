"""Stub task functions for sweep tests that must not depend on the compiled core.
Module-level so that spawned worker processes can import them."""

from __future__ import annotations

import json
import os
import time

import polars as pl

from shortflow.results import transfers_frame
from shortflow.workers import transfers_bytes

COUNTER_ENV = "SHORTFLOW_STUB_COUNTER"


def resolve(config_json: str) -> str:
    """Stand-in for _core.resolve: canonical JSON."""
    return json.dumps(json.loads(config_json), sort_keys=True)


def transfers_for(cfg: dict) -> pl.DataFrame:
    """A fake transfers table derived deterministically from the configuration."""
    rows: dict[str, list] = {k: [] for k in ("flow", "round", "bytes", "start_s", "end_s", "completion_s",
                                              "retransmits", "timeouts", "initial_cwnd")}
    for app in cfg.get("apps", []):
        if app.get("kind") != "rounds":
            continue
        for r in range(app["rounds"]):
            for i, f in enumerate(app["flows"]):
                start = app["first_center_s"] + r * 10 + i * 0.01
                dur = 0.1 + 0.001 * cfg["seed"] + 0.01 * len(app["flows"])
                rows["flow"].append(f)
                rows["round"].append(r)
                rows["bytes"].append(app["size_bytes"])
                rows["start_s"].append(start)
                rows["end_s"].append(start + dur)
                rows["completion_s"].append(dur)
                rows["retransmits"].append(0)
                rows["timeouts"].append(0)
                rows["initial_cwnd"].append(2.0)
    return transfers_frame(rows)


def task(config_json: str) -> bytes:
    """Stand-in for shortflow.sweep.compute_task; counts its calls in a file and, like
    it, sleeps ``$SHORTFLOW_TASK_DELAY_S`` first."""
    delay = os.environ.get("SHORTFLOW_TASK_DELAY_S")
    if delay:
        time.sleep(float(delay))
    path = os.environ.get(COUNTER_ENV)
    cfg = json.loads(config_json)
    if path:
        with open(path, "a") as f:
            f.write(f"{cfg['seed']}\n")
    return transfers_bytes(transfers_for(cfg))


class Interrupting:
    """A task function that raises KeyboardInterrupt on its (n+1)-th call (inline runs)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls = 0

    def __call__(self, config_json: str) -> bytes:
        if self.calls >= self.n:
            raise KeyboardInterrupt
        self.calls += 1
        return task(config_json)
