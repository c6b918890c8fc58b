"""The Ray backend on a local cluster gives the same rows as the local backend."""

from __future__ import annotations

from pathlib import Path

import pytest

import shortflow
from shortflow.sweeper import run_sweep

pytestmark = pytest.mark.slow


def _ray():
    try:
        import ray
    except ImportError:
        # Try once to install it (the optional extra); skip only when that is impossible.
        import subprocess
        import sys

        p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "ray>=2.9"], capture_output=True, text=True,
                           timeout=900)
        try:
            import ray
        except ImportError:
            pytest.skip(f"ray cannot be installed here (pip exit {p.returncode}: {p.stderr.strip()[-300:]})")
    return ray


def test_ray_matches_local(core, examples: Path, tmp_path: Path) -> None:
    _ray()
    sc = shortflow.load(examples / "dumbbell_quick.toml")
    local = run_sweep(sc, jobs=2, backend="local", out=tmp_path / "local")
    remote = run_sweep(sc, jobs=2, backend="ray", out=tmp_path / "ray")
    assert remote.computed == remote.unique == local.computed
    assert remote.results.equals(local.results)
    assert (tmp_path / "ray" / "results.parquet").read_bytes() == (tmp_path / "local" / "results.parquet").read_bytes()
    # the Ray sweep resumes from its cache like the local one
    again = run_sweep(sc, jobs=2, backend="ray", out=tmp_path / "ray")
    assert again.computed == 0 and again.results.equals(local.results)


def test_ray_cluster_started_once_per_pool_and_startup_reported(core, examples: Path, tmp_path: Path) -> None:
    """In a worker_pool block Ray is initialised once: the first sweep reports the
    start-up (apart from its compute time), the second reuses the cluster. Afterwards
    a sweep connects to a cluster that is already running instead of starting one."""
    ray = _ray()
    from shortflow.sweeper import worker_pool

    sc = shortflow.load(examples / "dumbbell_quick.toml")
    with worker_pool(2, backend="ray") as cluster:
        a = run_sweep(sc, jobs=2, backend="ray", out=tmp_path / "a")
        b = run_sweep(sc, jobs=2, backend="ray", out=tmp_path / "b")
        # "connected" when a cluster already runs on this machine (`ray start`)
        how = cluster.how
        assert how in ("started", "connected") and ray.is_initialized()
    assert not ray.is_initialized(), "the pool's cluster is shut down at the end of its block"
    assert a.stats.startup_s is not None and a.stats.startup_s > 0
    assert a.stats.reused == (how == "connected")
    assert b.stats.reused and b.stats.startup_s == a.stats.startup_s
    assert a.stats.by_worker == {"ray": a.computed} and "Ray start-up" in a.stats.line()
    assert b.results.equals(a.results)
    # a cluster initialised by the caller is used as it is (and left running)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        c = run_sweep(sc, jobs=2, backend="ray", out=tmp_path / "c")
        assert c.stats.reused and c.stats.startup_s == 0.0 and ray.is_initialized()
        assert c.results.equals(a.results)
    finally:
        ray.shutdown()
