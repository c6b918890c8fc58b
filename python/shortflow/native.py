"""Access to the compiled core (``shortflow._core``) with a helpful error when it is
missing, the JSON plumbing around it, and :func:`run_config` (one configuration in,
every result table out).

The core's configuration errors are made precise here: serde's "invalid value: integer
`-1`, expected u64 at line 1 column 11" names a position in the JSON text, which
:func:`describe_core_error` maps back to the field path and value
(``seed = -1: invalid value: integer `-1`, expected u64``); the core's own
``links[0].rate_bps = ...`` messages get the link's or flow's name.
"""

from __future__ import annotations

import json
import math
import re
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

from .errors import SimulationError
from .results import RunResults, columns_frame

if TYPE_CHECKING:
    import polars as pl

__all__ = ["core", "run_json", "run_results", "run_table", "run_config", "resolve", "resolve_json", "canonical_json", "CoreMissing",
           "describe_core_error"]


class CoreMissing(ImportError):
    pass


_core: ModuleType | None = None


def core() -> ModuleType:
    """The ``shortflow._core`` extension module (imported on first use)."""
    global _core
    if _core is None:
        try:
            from . import _core as mod  # type: ignore[attr-defined]
        except ImportError as e:  # pragma: no cover - exercised only without a build
            raise CoreMissing(
                "shortflow's compiled core (shortflow._core) is not available: "
                f"{e}. Build it from the repository with `pip install -e .` "
                "(or `maturin develop --release`)."
            ) from e
        _core = mod
    return _core


def canonical_json(obj: Any) -> str:
    """Deterministic JSON text (sorted keys, no spaces): what cache keys hash."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _config_text(config: Mapping[str, Any] | str) -> str:
    if isinstance(config, str):
        return config
    if not isinstance(config, Mapping):
        raise TypeError(f"'config' must be a SimConfig dict or its JSON text, not {type(config).__name__}")
    try:
        return json.dumps(config, allow_nan=False)
    except ValueError:  # NaN or an infinity somewhere: name it
        where, value = _non_finite(config) or ("(the configuration)", float("nan"))
        raise SimulationError(f"{where} = {value}: not a finite number (the core's JSON cannot carry NaN or "
                              "infinities)") from None
    except TypeError as e:
        raise SimulationError(f"the configuration cannot be written as JSON: {e}") from None


def _non_finite(o: Any, path: str = "") -> Optional[tuple[str, float]]:
    """The path and value of the first NaN or infinity in a configuration."""
    if isinstance(o, float) and not math.isfinite(o):
        return path or "(the configuration)", o
    items = o.items() if isinstance(o, Mapping) else enumerate(o) if isinstance(o, (list, tuple)) else ()
    for k, v in items:
        hit = _non_finite(v, f"{path}[{k}]" if isinstance(k, int) else (f"{path}.{k}" if path else str(k)))
        if hit:
            return hit
    return None


def resolve_json(config: Mapping[str, Any] | str) -> str:
    """The effective configuration (every default filled in by the core) as JSON text."""
    text = _config_text(config)
    try:
        return core().resolve(text)
    except ValueError as e:
        raise SimulationError(f"the core rejected the configuration: {describe_core_error(str(e), text)}") from None


def resolve(config: dict[str, Any] | str) -> dict[str, Any]:
    """The effective configuration as a dict."""
    return json.loads(resolve_json(config))


def resolve_tcp_profile(tcp: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """A flow's ``tcp`` table with its ``profile`` resolved by the core (every field the
    profile fills), or None when the core rejects the profile (its own error names it
    when the flow is built)."""
    try:
        return json.loads(core().resolve_tcp_profile(json.dumps(dict(tcp))))
    except ValueError:
        return None


def run_json(config_json: str, progress: Optional[Callable[[int, float, float], None]] = None) -> str:
    """Run one simulation (GIL released) and return the results JSON. ``progress(events,
    sim_time_s, duration_s)`` is called now and then during the run when given."""
    return _run(core().run, config_json, progress)


def run_results(config_json: str, progress: Optional[Callable[[int, float, float], None]] = None,
                config: Optional[dict[str, Any]] = None) -> RunResults:
    """Run one simulation (as :func:`run_json`) and return every result table as polars
    frames: the frames ``RunResults.from_json(run_json(...))`` gives, built from the
    core's typed columns (``_core.run_columns``) instead of JSON text, so a large run's
    tables are never held as text and Python objects. ``config`` is kept as the results'
    ``config``."""
    tables, stats = _run(core().run_columns, config_json, progress)
    return RunResults.from_columns(tables, stats, config)


def run_table(config_json: str, table: str,
              progress: Optional[Callable[[int, float, float], None]] = None) -> pl.DataFrame:
    """Run one simulation (as :func:`run_results`) and return one result table (a name
    in ``SCHEMAS``), the frame ``run_results(...)`` has for it; the other tables'
    columns are dropped unread (a sweep task keeps only its transfers)."""
    tables, _stats = _run(core().run_columns, config_json, progress)
    return columns_frame(table, tables.get(table) or ())


def _run(fn: Callable[..., Any], config_json: str, progress: Optional[Callable[[int, float, float], None]]) -> Any:
    """``fn(config_json[, progress])`` with the core's configuration errors named."""
    try:
        return fn(config_json) if progress is None else fn(config_json, progress)
    except ValueError as e:
        raise SimulationError(f"the core rejected the configuration: {describe_core_error(str(e), config_json)}") from None


def run_config(config: Mapping[str, Any] | str,
               progress: Optional[Callable[[int, float, float], None]] = None) -> RunResults:
    """Run one core ``SimConfig`` (a dict or its JSON text) and return every result
    table as polars frames. Configuration errors raise :class:`SimulationError`
    naming the field and value. ``progress``: see :func:`run_json`."""
    resolved = resolve_json(config)
    return run_results(resolved, progress, json.loads(resolved))


# --- core error messages -> field path and value ----------------------------------------

_AT = re.compile(r"\s*at line (\d+) column (\d+)\s*$")
_PREFIX = re.compile(r"^invalid simulation configuration:\s*")
_QUOTED_VALUE = re.compile(r"(?:integer|floating point) `([^`]*)`|string \"([^\"]*)\"")
_UNKNOWN = re.compile(r"unknown field `([^`]*)`")
_CORE_PATH = re.compile(r"^(?P<list>[a-z_]+)\[(?P<i>\d+)\]")


def _spans(text: str) -> list[tuple[int, int, list[Any]]]:
    """(start, end, path) of every value in a JSON text (end exclusive)."""
    out: list[tuple[int, int, list[Any]]] = []
    dec = json.JSONDecoder()
    n = len(text)

    def ws(i: int) -> int:
        while i < n and text[i] in " \t\r\n":
            i += 1
        return i

    def value(i: int, path: list[Any]) -> int:
        i = ws(i)
        start = i
        if i < n and text[i] == "{":
            i = ws(i + 1)
            if i < n and text[i] == "}":
                i += 1
            else:
                while i < n:
                    key, i = dec.raw_decode(text, ws(i))
                    i = ws(i)
                    i = value(i + 1, path + [key])  # skip ':'
                    i = ws(i)
                    if i < n and text[i] == ",":
                        i += 1
                        continue
                    i += 1  # '}'
                    break
        elif i < n and text[i] == "[":
            i = ws(i + 1)
            k = 0
            if i < n and text[i] == "]":
                i += 1
            else:
                while i < n:
                    i = ws(value(i, path + [k]))
                    k += 1
                    if i < n and text[i] == ",":
                        i += 1
                        continue
                    i += 1  # ']'
                    break
        else:
            _, i = dec.raw_decode(text, i)
        out.append((start, i, path))
        return i

    value(0, [])
    return out


def _render_path(path: list[Any], doc: Any) -> str:
    """``flows[3] (conn.4).tcp.window``: list items named by ``name`` or ``src->dst``."""
    parts: list[str] = []
    cur = doc
    for seg in path:
        if isinstance(seg, int):
            cur = cur[seg] if isinstance(cur, list) and seg < len(cur) else None
            label = ""
            if isinstance(cur, dict):
                if isinstance(cur.get("name"), str):
                    label = f" ({cur['name']})"
                elif isinstance(cur.get("src"), str) and isinstance(cur.get("dst"), str):
                    label = f" ({cur['src']}->{cur['dst']})"
                elif isinstance(cur.get("flow"), str):
                    label = f" (flow {cur['flow']})"
            parts[-1] = f"{parts[-1] if parts else ''}[{seg}]{label}"
        else:
            cur = cur.get(seg) if isinstance(cur, dict) else None
            parts.append(str(seg))
    return ".".join(parts)


def describe_core_error(message: str, config_text: str) -> str:
    """The core's error message with the configuration field path and value it is about
    (see the module docstring). Unrecognised messages are returned unchanged."""
    msg = _PREFIX.sub("", message.strip())
    try:
        doc = json.loads(config_text)
    except ValueError:
        return msg
    m = _AT.search(msg)
    if m:
        line, col = int(m.group(1)), int(m.group(2))
        lines = config_text.split("\n")
        offset = sum(len(ln) + 1 for ln in lines[: line - 1]) + max(col - 1, 0)
        try:
            spans = _spans(config_text)
        except ValueError:
            return msg
        # The innermost value whose text contains the position (serde points at the last
        # character of a bad value, or at the closing brace of a table missing a field).
        hits = [sp for sp in spans if sp[0] <= offset < sp[1]]
        if not hits:
            return msg
        start, end, path = max(hits, key=lambda sp: (len(sp[2]), sp[0]))
        if config_text[start] == "[":
            # Tagged tables (apps) are read whole: serde points just after the element.
            items = [sp for sp in spans if len(sp[2]) == len(path) + 1 and sp[2][:-1] == path and sp[1] <= offset]
            if items:
                start, end, path = max(items, key=lambda sp: sp[1])
        base = msg[: m.start()]
        value = config_text[start:end]
        if value.startswith(("{", "[")):
            # A tagged table (queue, app) is read whole, so serde points at its end: find
            # the one value inside it that the message quotes (`4294967296`, "x").
            quoted = _QUOTED_VALUE.search(base)
            if quoted:
                q = quoted.group(1) or json.dumps(quoted.group(2))
                inner = [sp for sp in spans if sp[0] >= start and sp[1] <= end and len(sp[2]) > len(path)
                         and config_text[sp[0]:sp[1]] == q]
                if len(inner) == 1:
                    start, end, path = inner[0]
                    value = config_text[start:end]
        unknown = _UNKNOWN.match(base)
        if unknown and value.startswith("{"):  # the position is in the key: name it
            path = path + [unknown.group(1)]
            return f"{_render_path(path, doc)}: {base}"
        where = _render_path(path, doc) or "(the configuration)"
        if value.startswith(("{", "[")) or len(value) > 80:
            return f"{where}: {base}"
        return f"{where} = {value}: {base}"
    pm = _CORE_PATH.match(msg)
    if pm:
        items = doc.get(pm.group("list")) if isinstance(doc, dict) else None
        i = int(pm.group("i"))
        if isinstance(items, list) and i < len(items):
            rendered = _render_path([pm.group("list"), i], doc)
            return rendered + msg[pm.end():]
    return msg
