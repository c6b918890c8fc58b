"""shortflow: packet-level simulation of TCP start-up and short-transfer latency.

Quick start::

    import shortflow
    sc = shortflow.load("scenarios/examples/dumbbell_quick.toml")
    df = sc.run(seed=1)                      # one row per transfer (polars)
    all_rows = shortflow.sweep(sc, jobs=2, out="out/quick")
    res = shortflow.run_config(sc.to_sim_config(seed=1))   # every table of one run

The simulation itself runs in the compiled core (``shortflow._core``, Rust); this
package reads scenario files, expands them into the core's configuration, runs sweeps
with a resumable cache and draws the results.
"""

from __future__ import annotations

from .api import run_config, sweep
from .errors import ScenarioError, SimulationError
from .results import RunResults
from .scenario import Scenario, load
from .units import UnitError, parse_rate, parse_size, parse_time
from .version import __version__

__all__ = [
    "__version__",
    "load",
    "Scenario",
    "run_config",
    "sweep",
    "RunResults",
    "ScenarioError",
    "SimulationError",
    "UnitError",
    "parse_rate",
    "parse_size",
    "parse_time",
]
