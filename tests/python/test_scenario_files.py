"""Every scenario file in `scenarios/` stays valid (every scheme and sweep point expands and
the core accepts it), its mutations fail cleanly, and the start-up comparison example
answers its question."""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path
from typing import Any, Iterator

import polars as pl
import pytest

import shortflow
from shortflow.errors import ScenarioError, SimulationError
from shortflow.native import resolve
from shortflow.scenario import Scenario, load

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "scenarios").rglob("*.toml"))


def test_there_are_scenario_files() -> None:
    assert len(FILES) >= 100, len(FILES)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT / "scenarios")) for p in FILES])
def test_scenario_file_is_valid(core, path: Path) -> None:
    """What `shortflow check` does, plus the core's own validation of every point."""
    sc = load(path)
    points = sc.points()
    assert points
    for p in points:
        cfg = resolve(sc.to_sim_config(p, sc.seeds[0]))
        assert cfg["flows"] or cfg.get("apps"), (path, p)


def test_startup_compare_example(core, examples: Path, tmp_path: Path) -> None:
    """`scenarios/examples/startup_compare.toml`: every start-up scheme on the same rounds of
    30 KB. What the mechanisms guarantee for one connection alone on the path (identical for
    every seed: nothing competes): plain slow start loses nothing; the window kept over idle
    periods ("no-restart") bursts a whole window into the 20-packet queue and loses; every
    scheme that starts with more than IW 2 finishes sooner than slow start."""
    df = shortflow.sweep(examples / "startup_compare.toml", jobs=1, out=tmp_path / "out")
    schemes = ["slow-start", "no-restart", "iw10", "spand", "fast-start", "fair-share-js", "vienna", "linux-hystartpp"]
    assert sorted(df["scheme"].unique()) == sorted(schemes)
    assert df["completion_s"].null_count() == 0  # every transfer of every point finished
    counts = df.group_by("flows.conn.count", "scheme").len()
    assert counts.filter(pl.col("flows.conn.count") == 1)["len"].to_list() == [30] * 8  # 10 rounds x 3 seeds
    assert counts.filter(pl.col("flows.conn.count") == 4)["len"].to_list() == [120] * 8
    alone = df.filter(pl.col("flows.conn.count") == 1).group_by("scheme").agg(
        pl.col("completion_s").mean(), pl.col("retransmits").sum())
    by = {r["scheme"]: r for r in alone.iter_rows(named=True)}
    assert by["slow-start"]["retransmits"] == 0
    assert by["no-restart"]["retransmits"] > 0
    for s in ("iw10", "spand", "fast-start", "fair-share-js", "linux-hystartpp"):
        assert by[s]["completion_s"] < 0.75 * by["slow-start"]["completion_s"], (s, by[s], by["slow-start"])


# --- mutations of the real files: every one ends in a clean error or is accepted ---------

def _leaves(d: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(d, dict):
        for k, v in d.items():
            yield path + (k,), v
            yield from _leaves(v, path + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield path + (i,), v
            yield from _leaves(v, path + (i,))


def _mutations(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v, 2, "yes"]
    if isinstance(v, int):
        return [-v - 1, 0, 10**12, 2**63, "x", 1.5, [], {}]
    if isinstance(v, float):
        return [-v - 1.0, 0.0, float("nan"), float("inf"), 1e300, "x"]
    if isinstance(v, str):
        return ["", v + "x", v[:-1], "-" + v, v.upper(), "1e999" + v, 5, True, "-5ms", "0ms", "nan"]
    if isinstance(v, list):
        return [[], v + v[:1], v[:1], "x", [{}]]
    if isinstance(v, dict):
        return [{}, [], "x"]
    return []


#: Mutations tried per file (seeded: the same ones every run).
MUTATIONS_PER_FILE = 12


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT / "scenarios")) for p in FILES])
def test_mutated_scenario_file_fails_cleanly(core, path: Path) -> None:
    """Each leaf set to a wrong value (negative, zero, huge, NaN, another type, a typo) or a
    key deleted or misspelt: validation, expansion and the core's check end in a
    `ScenarioError` or `SimulationError` that names the file -- never another exception."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    cands: list[tuple[str, tuple, Any]] = []
    for p, v in _leaves(raw):
        cands += [("set", p, m) for m in _mutations(v)]
        if isinstance(p[-1], str):
            cands += [("del", p, None), ("ren", p, p[-1] + "s")]
    random.Random(path.name).shuffle(cands)
    for kind, p, m in cands[:MUTATIONS_PER_FILE]:
        doc = copy.deepcopy(raw)
        parent = doc
        for k in p[:-1]:
            parent = parent[k]
        if kind == "set":
            parent[p[-1]] = m
        elif kind == "del":
            del parent[p[-1]]
        else:
            parent[m] = parent.pop(p[-1])
        try:
            sc = Scenario(doc, source=str(path), path=path)
            points = sc.points()
            for pt in points[:20]:
                sc.to_sim_config(pt, sc.seeds[0])
            resolve(sc.to_sim_config(points[0], sc.seeds[0]))
        except (ScenarioError, SimulationError) as e:
            assert str(e).startswith(f"{path}: "), (kind, p, m, str(e))
