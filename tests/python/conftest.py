"""Shared fixtures. The tests import the package from this repository's ``python/``
directory. Tests that need the compiled core use the ``core`` fixture: when
``shortflow._core`` is missing it is built once (``pip install -e .``); if that fails the
tests FAIL with instructions -- they are never skipped silently."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYDIR = ROOT / "python"
EXAMPLES = ROOT / "scenarios" / "examples"
if str(PYDIR) not in sys.path:
    sys.path.insert(0, str(PYDIR))

_core_error: str | None = None
_core_mod = None


def _import_core():
    import shortflow._core as c  # noqa: F401

    return c


def _get_core():
    global _core_error, _core_mod
    if _core_mod is not None:
        return _core_mod
    if _core_error is not None:
        pytest.fail(_core_error, pytrace=False)
    try:
        _core_mod = _import_core()
        return _core_mod
    except ImportError as first:
        err = first
    if os.environ.get("SHORTFLOW_NO_BUILD") != "1":
        sys.stderr.write("\nshortflow._core is not built: running `pip install -e .` once (set SHORTFLOW_NO_BUILD=1 to skip)\n")
        p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "-e", str(ROOT)],
                           capture_output=True, text=True)
        importlib.invalidate_caches()
        try:
            _core_mod = _import_core()
            return _core_mod
        except ImportError as second:
            err = second
            tail = (p.stdout + p.stderr)[-2000:]
            _core_error = (f"shortflow._core cannot be imported ({err}); building it with `pip install -e .` failed "
                           f"(exit {p.returncode}):\n{tail}")
    else:
        _core_error = (f"shortflow._core cannot be imported ({err}). Build the extension first: "
                       "`pip install -e .` (or `maturin develop --release`) from the repository root.")
    pytest.fail(_core_error, pytrace=False)


@pytest.fixture(scope="session")
def core():
    """The compiled core module; fails (never skips) the test when it cannot be built."""
    return _get_core()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def examples() -> Path:
    return EXAMPLES


@pytest.fixture()
def subprocess_env() -> dict[str, str]:
    """Environment for `python -m shortflow` subprocesses that use this repository's sources."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PYDIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("COLUMNS", "160")
    return env
