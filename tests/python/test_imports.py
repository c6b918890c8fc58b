"""The package's import graph has no circles (issue 13, item 8).

The graph is read from the sources with :mod:`ast` (nothing is imported): an edge
``a -> b`` for every ``import``/``from ... import`` in module ``a`` that names module ``b``
of the package (``from . import x`` names ``pkg.x`` when that is a module, else the
package ``pkg`` itself, i.e. its ``__init__``). Imports under ``if TYPE_CHECKING:`` are
not executed and not counted.

* :func:`test_module_level_imports_are_acyclic`: the imports executed when a module is
  imported (top level, including top-level ``if``/``try``) form no cycle.
* :func:`test_all_imports_are_acyclic`: the same including imports inside functions,
  so a circle cannot be hidden by a lazy import; the few tolerated edges are listed in
  ``TOLERATED`` with the reason, and each must still exist (the list cannot rot).
"""

from __future__ import annotations

import ast
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2] / "python"
PKG = "shortflow"

#: Lazy imports that close a circle, each with its justification. Keep this short.
TOLERATED: dict[tuple[str, str], str] = {}


def _modules() -> dict[str, Path]:
    out = {}
    # Compiled extensions (``_core.abi3.so``) are modules too; their stub names them.
    for p in sorted((ROOT / PKG).rglob("*.pyi")):
        rel = p.relative_to(ROOT).with_suffix("")
        out[".".join(rel.parts)] = p
    for p in sorted((ROOT / PKG).rglob("*.py")):
        rel = p.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(mod: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], set[str]]:
    """(module-level targets, function-level targets) of one module."""
    if path.suffix == ".pyi":
        return set(), set()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    here = mod.split(".") if is_pkg else mod.split(".")[:-1]
    top: set[str] = set()
    lazy: set[str] = set()

    def targets(node: ast.AST) -> set[str]:
        found: set[str] = set()
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == PKG or a.name.startswith(PKG + "."):
                    found.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name != PKG and not name.startswith(PKG + "."):
                return found
            for a in node.names:
                sub = f"{name}.{a.name}"
                found.add(sub if sub in modules else name)
        return {t for t in found if t in modules}

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                (lazy if in_function else top).update(targets(child))
                continue
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    top.discard(mod)
    lazy.discard(mod)
    return top, lazy - top


def _graph(include_lazy: bool) -> dict[str, set[str]]:
    modules = _modules()
    g: dict[str, set[str]] = {}
    for mod, path in modules.items():
        top, lazy = _imports(mod, path, modules)
        g[mod] = top | (lazy if include_lazy else set())
    return g


def _cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            strong(v)
    return comps


def test_graph_is_read() -> None:
    """The checker sees the known structure (guards against a checker that sees nothing)."""
    g = _graph(include_lazy=False)
    assert "shortflow.schema" in g["shortflow.expand"]
    assert "shortflow.expand" in g["shortflow.scenario"]
    assert "shortflow.scenario" in g["shortflow.api"]
    assert "shortflow.version" in g["shortflow"]  # the package's other names load lazily
    assert "shortflow.capture" in g["shortflow.capture.analyze"]  # `from . import DUP_WINDOW_S`
    # ... and finds a cycle when there is one.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_module_level_imports_are_acyclic() -> None:
    cycles = _cycles(_graph(include_lazy=False))
    assert not cycles, f"module-level import circles: {cycles}"


def test_all_imports_are_acyclic() -> None:
    g = _graph(include_lazy=True)
    for (a, b), why in TOLERATED.items():
        if b in g.get(a, set()):
            g[a].discard(b)
    cycles = _cycles(g)
    assert not cycles, f"import circles (counting imports inside functions): {cycles}"


def test_tolerated_edges_still_exist() -> None:
    """A tolerated edge that is gone must leave the list (today the list is empty)."""
    g = _graph(include_lazy=True)
    gone = [(a, b) for (a, b) in sorted(TOLERATED) if b not in g.get(a, set())]
    assert not gone, f"no longer exist, remove them from TOLERATED: {gone}"


def test_command_line_starts_without_the_heavy_modules():
    """``shortflow --help`` (and every command's start) imports the CLI and its mounted
    sub-applications only: polars, numpy, pydantic's schema and the compiled core load
    when a command needs them (they cost most of a second of start-up)."""
    import subprocess
    import sys

    code = ("import sys, shortflow.cli\n"
            "heavy = ['polars', 'numpy', 'pydantic', 'shortflow.schema', 'shortflow._core', 'matplotlib']\n"
            "print(','.join(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported at CLI start-up: {out.stdout.strip()}"


def test_lazy_public_names_resolve():
    """Every public name of the lazily loading packages resolves (and an unknown one is a
    plain AttributeError naming it)."""
    import pytest

    import shortflow
    import shortflow.capture

    for pkg in (shortflow, shortflow.capture):
        for name in pkg.__all__:
            assert getattr(pkg, name) is not None, f"{pkg.__name__}.{name}"
        assert set(pkg.__all__) <= set(dir(pkg))
        with pytest.raises(AttributeError, match="no_such_name"):
            getattr(pkg, "no_such_name")
