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

from typing import TYPE_CHECKING

from ._lazy import lazy_attributes
from .version import __version__

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from .api import run_config, sweep
    from .errors import ScenarioError, SimulationError
    from .results import RunResults
    from .scenario import Scenario, load
    from .units import UnitError, parse_rate, parse_size, parse_time

# The public names load their modules on first use (PEP 562): `import shortflow` and the
# command line's start-up stay free of polars and pydantic's schema until one is needed.
_LAZY = {
    "run_config": "api",
    "sweep": "api",
    "ScenarioError": "errors",
    "SimulationError": "errors",
    "RunResults": "results",
    "Scenario": "scenario",
    "load": "scenario",
    "UnitError": "units",
    "parse_rate": "units",
    "parse_size": "units",
    "parse_time": "units",
}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())

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
