"""The README's Python code runs as written and prints the right answer."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_python_code() -> None:
    assert _python_blocks(), "README.md has no ```python block"


def test_readme_python_prints_per_connection_means(core, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the snippet uses paths relative to the repository
    printed: list[Any] = []
    ns: dict[str, Any] = {"__name__": "__readme__", "print": lambda *a, **k: printed.extend(a)}
    for block in _python_blocks():
        exec(compile(block, "README.md", "exec"), ns)  # noqa: S102 - the README's own code
    assert len(printed) == 1 and isinstance(printed[0], pl.DataFrame), printed
    out = printed[0]
    # the same means, computed by hand from the rows the snippet ran
    df = ns["df"]
    times: dict[str, list[float]] = defaultdict(list)
    for conn, t in df.select("connection", "completion_s").iter_rows():
        times[conn].append(t)
    want = {c: sum(v) / len(v) for c, v in times.items()}
    got = dict(out.select("connection", "completion_s").iter_rows())
    assert got.keys() == want.keys() and len(got) >= 2
    for c in want:
        assert got[c] == pytest.approx(want[c], rel=1e-12)
    # each connection has its own mean (the old snippet printed the overall mean for all)
    assert len(set(got.values())) == len(got)
    overall = df["completion_s"].mean()
    assert any(v != pytest.approx(overall, rel=1e-9) for v in got.values())
