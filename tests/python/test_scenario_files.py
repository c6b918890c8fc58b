"""Every scenario file in `scenarios/` stays valid (every scheme and sweep point expands and
the core accepts it), and the start-up comparison example answers its question."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import shortflow
from shortflow.native import resolve
from shortflow.scenario import load

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
