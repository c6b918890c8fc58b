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

from .errors import ScenarioError, SimulationError
from .units import UnitError, parse_rate, parse_size, parse_time


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

from .api import run_config, sweep  # noqa: E402
from .results import RunResults  # noqa: E402
from .scenario import Scenario, load  # noqa: E402

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
