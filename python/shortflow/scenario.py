"""Scenario files: loading, schemes, sweep points, expansion to ``SimConfig`` and runs."""

from __future__ import annotations

import copy
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional

import polars as pl
from pydantic import ValidationError

from .errors import Problem, ScenarioError, from_validation_error, suggest
from .expand import build_sim_config
from .native import resolve, run_config
from .patch import PathError, merge_patch, set_path
from .results import TRANSFER_COUNTERS, RunResults
from .schema import ScenarioModel

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Scenario", "load", "path_argument", "Point", "point_label", "axis_dtype", "annotate_transfers", "TRANSFER_COLUMNS"]

#: A sweep point: axis -> value (``{"scheme": "spand", "flows.conn.count": 4}``).
Point = dict[str, Any]

#: Reserved axis name: the value is the name of a ``[schemes.NAME]`` table.
SCHEME_AXIS = "scheme"

#: Columns of a transfers frame after the scenario, point and seed columns.
TRANSFER_COLUMNS = [
    "group",
    "connection",
    "round",
    "bytes",
    "start_s",
    "end_s",
    "completion_s",
    "retransmits",
    "timeouts",
    "initial_cwnd",
    *TRANSFER_COUNTERS,
]


def point_label(value: Any) -> Any:
    """The value stored in a results column for an axis value: scalars as they are,
    tables/arrays as canonical JSON text."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return value


def axis_dtype(values: Iterable[Any]) -> Any:
    """One polars dtype for every value of an axis."""
    vals = [point_label(v) for v in values]
    if vals and all(isinstance(v, bool) for v in vals):
        return pl.Boolean
    if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return pl.Int64
    if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return pl.Float64
    return pl.String


def _cast_value(v: Any, dtype: Any) -> Any:
    v = point_label(v)
    if dtype == pl.String and not isinstance(v, str):
        return json.dumps(v) if not isinstance(v, (int, float, bool)) else str(v)
    if dtype == pl.Float64:
        return float(v)
    return v


def annotate_transfers(
    transfers: pl.DataFrame,
    scenario: str,
    point: Mapping[str, Any],
    seed: int,
    dtypes: Optional[Mapping[str, Any]] = None,
) -> pl.DataFrame:
    """Turn a core transfers table into the public shape: scenario, one column per
    point axis, seed, group, connection (flow), round, bytes, start_s, end_s,
    completion_s, retransmits, timeouts, initial_cwnd, then the other loss-recovery
    counters of the transfer (:data:`results.TRANSFER_COUNTERS`)."""
    dtypes = dict(dtypes or {})
    cols: list[pl.Expr] = [pl.lit(scenario, dtype=pl.String).alias("scenario")]
    for axis, value in point.items():
        dt = dtypes.get(axis) or axis_dtype([value])
        cols.append(pl.lit(_cast_value(value, dt), dtype=dt).alias(axis))
    cols.append(pl.lit(int(seed), dtype=pl.Int64).alias("seed"))
    return transfer_columns(transfers).select(cols + [pl.col(c) for c in TRANSFER_COLUMNS])


def transfer_columns(transfers: pl.DataFrame) -> pl.DataFrame:
    """A core transfers table's public columns, :data:`TRANSFER_COLUMNS` in order: group
    (the flow's name without its connection number), connection (the flow's name), then
    the table's own (:func:`annotate_transfers` puts the task's columns before them)."""
    return transfers.with_columns(
        pl.col("flow").str.replace(r"\.[^.]*$", "").alias("group"),
        pl.col("flow").alias("connection"),
    ).select(TRANSFER_COLUMNS)


def _format_point(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={point_label(v)}" for k, v in point.items())


class Scenario:
    """A loaded scenario file.

    ``scenario.points()`` lists the sweep grid, ``scenario.to_sim_config(point, seed)``
    expands one point to the core's configuration, ``scenario.run(seed, point)`` runs it.
    """

    def __init__(self, raw: Mapping[str, Any], source: Optional[str] = None, text: Optional[str] = None,
                 path: Optional[Path] = None) -> None:
        self.source = source
        self.text = text
        self.path = path
        self.raw: dict[str, Any] = copy.deepcopy(dict(raw))
        self.model = self._validate(self.raw, context=None)
        self.name: str = self.model.name
        self.description: str = self.model.description
        self.seeds: list[int] = list(self.model.seeds)
        self.schemes: dict[str, dict[str, Any]] = dict(self.model.schemes)
        self.axes: dict[str, list[Any]] = {k: list(v) for k, v in self.model.sweep.items()}
        self.base: dict[str, Any] = {k: v for k, v in self.raw.items() if k not in ("schemes", "sweep")}
        self._cache: dict[str, ScenarioModel] = {}
        self._check()

    # -- construction ---------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | Path) -> "Scenario":
        p = path_argument(path, "path")
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise ScenarioError(str(p), "no such file") from None
        except IsADirectoryError:
            raise ScenarioError(str(p), "is a directory, not a scenario file") from None
        except OSError as e:
            raise ScenarioError(str(p), f"cannot read: {e.strerror or e}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            raise ScenarioError(str(p), f"not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} "
                                        f"(line {line}, column {col}); TOML files must be UTF-8") from None
        return cls.from_toml(text, source=str(p), path=p)

    @classmethod
    def from_toml(cls, text: str, source: Optional[str] = "<string>", path: Optional[Path] = None) -> "Scenario":
        if not isinstance(text, str):
            raise TypeError(f"Scenario.from_toml: 'text' must be a str (TOML text), not {type(text).__name__}")
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(source, f"not valid TOML: {e}") from None
        return cls(raw, source=source, text=text, path=path)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], source: Optional[str] = None) -> "Scenario":
        if not isinstance(raw, Mapping):
            raise TypeError(f"Scenario.from_dict: 'raw' must be a mapping (the scenario's tables), not {type(raw).__name__}")
        return cls(raw, source=source)

    def with_overrides(self, sets: Mapping[str, Any]) -> "Scenario":
        """A copy with values replaced at dotted paths (``{"tcp.window": 50}``); the key
        ``scheme`` applies a scheme to the base. Sweep axes still apply on top."""
        if not isinstance(sets, Mapping) or not all(isinstance(k, str) for k in sets):
            raise TypeError("Scenario.with_overrides: 'sets' must map dotted paths (str) to values, "
                            f"not {type(sets).__name__}")
        raw = copy.deepcopy(self.raw)
        try:
            for path, value in sets.items():
                if path == SCHEME_AXIS:
                    merge_patch(raw, self._scheme_patch(value))
                else:
                    set_path(raw, path, value)
        except PathError as e:
            raise e.with_source(self.source) from None
        new = Scenario(raw, source=self.source, text=self.text, path=self.path)
        return new

    # -- validation -----------------------------------------------------------

    def _validate(self, doc: Mapping[str, Any], context: Optional[str]) -> ScenarioModel:
        try:
            model = ScenarioModel.model_validate(doc)
        except ValidationError as e:
            err = ScenarioError(self.source, from_validation_error(e, doc))
            raise (err.with_prefix(context) if context else err) from None
        return model

    def _scheme_patch(self, name: Any) -> dict[str, Any]:
        if not isinstance(name, str) or name not in self.schemes:
            names = list(self.schemes)
            msg = (f"unknown scheme; defined schemes: {', '.join(names)}" if names
                   else "no [schemes.NAME] tables are defined")
            raise ScenarioError(self.source, [Problem(SCHEME_AXIS, msg, name, suggest(str(name), names))])
        return self.schemes[name]

    def _check(self) -> None:
        """Validate the base scenario and every scheme and axis value on its own, so that
        mistakes surface at load time with the file, path and value."""
        build_sim_config(self.model, self.seeds[0], self.source)
        for name in self.schemes:
            self.model_at({SCHEME_AXIS: name}, context=f"scheme {name!r}")
        problems: list[Problem] = []
        for axis, values in self.axes.items():
            if axis in ("seed", "seeds"):
                problems.append(Problem(f"sweep.{axis}", "seeds are not an axis: list them in 'seeds = [...]'"))
                continue
            if axis in ("schemes", "sweep", "name"):
                problems.append(Problem(f"sweep.{axis}", "cannot be swept"))
                continue
            if len({json.dumps(point_label(v), sort_keys=True) for v in values}) != len(values):
                problems.append(Problem(f"sweep.{axis}", "values must be distinct", values))
                continue
            if axis == SCHEME_AXIS and not self.schemes:
                problems.append(Problem("sweep.scheme", "sweeps over schemes but no [schemes.NAME] tables are defined"))
                continue
        if problems:
            raise ScenarioError(self.source, problems)
        for axis, values in self.axes.items():
            for v in values:
                self.model_at({axis: v}, context=f"sweep axis {axis!r} = {point_label(v)!r}")

    # -- points ---------------------------------------------------------------

    def points(self) -> list[Point]:
        """The sweep grid: the cartesian product of the axes, in file order ([{}]
        without a sweep)."""
        if not self.axes:
            return [{}]
        names = list(self.axes)
        return [dict(zip(names, combo)) for combo in itertools.product(*(self.axes[n] for n in names))]

    def tasks(self) -> Iterator[tuple[Point, int]]:
        """Every (point, seed) of the sweep, seeds innermost."""
        for p in self.points():
            for s in self.seeds:
                yield p, s

    def axis_dtypes(self, point: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        out = {a: axis_dtype(v) for a, v in self.axes.items()}
        for k, v in (point or {}).items():
            out.setdefault(k, axis_dtype([v]))
        return out

    def document_at(self, point: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """The raw scenario document of one point: the base, then the point's scheme,
        then its other axis values."""
        doc = copy.deepcopy(self.base)
        point = dict(point or {})
        try:
            if SCHEME_AXIS in point:
                merge_patch(doc, self._scheme_patch(point[SCHEME_AXIS]))
            for path, value in point.items():
                if path != SCHEME_AXIS:
                    set_path(doc, path, value)
        except ScenarioError as e:
            raise e.with_source(self.source) from None
        return doc

    def model_at(self, point: Optional[Mapping[str, Any]] = None, context: Optional[str] = None) -> ScenarioModel:
        """The validated scenario of one sweep point."""
        if point is not None and not isinstance(point, Mapping):
            raise TypeError(f"'point' must be a mapping of axis -> value (or None), not {type(point).__name__}")
        point = dict(point or {})
        key = json.dumps({k: point_label(v) for k, v in point.items()}, sort_keys=True)
        if key in self._cache:
            return self._cache[key]
        ctx = context or (f"at sweep point {_format_point(point)}" if point else None)
        try:
            doc = self.document_at(point)
        except ScenarioError as e:
            raise (e.with_prefix(ctx) if ctx else e) from None
        model = self.model if not point else self._validate(doc, ctx)
        try:
            build_sim_config(model, self.seeds[0], self.source)
        except ScenarioError as e:
            raise (e.with_prefix(ctx) if ctx else e) from None
        self._cache[key] = model
        return model

    # -- expansion and runs ---------------------------------------------------

    def to_sim_config(self, point: Optional[Mapping[str, Any]] = None, seed: int = 1) -> dict[str, Any]:
        """The core's ``SimConfig`` (as a dict) for one sweep point and seed."""
        return build_sim_config(self.model_at(point), seed, self.source)

    def resolved_config(self, point: Optional[Mapping[str, Any]] = None, seed: int = 1) -> dict[str, Any]:
        """The effective configuration with every core default filled in."""
        return resolve(self.to_sim_config(point, seed))

    def simulate(self, seed: int = 1, point: Optional[Mapping[str, Any]] = None) -> RunResults:
        """Run one point and seed; every table of the run."""
        return run_config(self.to_sim_config(point, seed))

    def run(self, seed: int = 1, point: Optional[Mapping[str, Any]] = None) -> pl.DataFrame:
        """Run one point and seed; one row per transfer (see :data:`TRANSFER_COLUMNS`),
        preceded by the scenario name, the point's axis columns and the seed."""
        res = self.simulate(seed, point)
        return annotate_transfers(res.transfers, self.name, dict(point or {}), seed, self.axis_dtypes(point))

    def __repr__(self) -> str:
        n = len(self.points())
        return f"Scenario({self.name!r}, points={n}, seeds={self.seeds})"


def load(path: str | Path) -> Scenario:
    """Load and validate a scenario TOML file (raises :class:`ScenarioError`; a ``path``
    that is not a str or path-like raises :class:`TypeError` naming it)."""
    return Scenario.from_file(path_argument(path, "path"))


def path_argument(value: Any, name: str) -> Path:
    """A path argument of the Python API as a :class:`Path`; anything but a str or an
    ``os.PathLike`` raises a :class:`TypeError` naming the argument (instead of
    pathlib's anonymous one)."""
    if isinstance(value, Path):
        return value
    if isinstance(value, str) or (isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)):
        if isinstance(value, str) and not value:
            raise ValueError(f"{name!r} must be a path, not an empty string")
        return Path(value)
    raise TypeError(f"{name!r} must be a path (str or os.PathLike), not {type(value).__name__} {value!r:.60}")

