"""Dotted paths into a raw scenario document, and scheme patches.

A path walks tables by key and arrays of named tables by ``name``:
``flows.conn.count`` is the ``count`` of the flow group named ``conn``;
``topology.bottleneck.rate`` the bottleneck rate; ``topology.hops.0.rate`` the first
entry of an array by (0-based) index. Missing intermediate tables are created
(``tcp.window`` works without a ``[tcp]`` table); unknown names in arrays are errors
with a suggestion.

* an **axis value** (or ``--set``) *replaces* the value at its path;
* a **scheme** is a table mirroring the scenario and is *merged*: tables merge key by
  key, except that a table whose ``kind`` differs from the existing one replaces it
  (``startup = { kind = "idle_restart" }`` replaces a SPAND start-up and its options).
"""

from __future__ import annotations

import copy
from typing import Any

from .errors import Problem, ScenarioError, suggest, type_name

__all__ = ["set_path", "merge_patch", "get_path", "PathError"]


class PathError(ScenarioError):
    pass


def _names(items: list[Any]) -> list[str]:
    return [it["name"] for it in items if isinstance(it, dict) and isinstance(it.get("name"), str)]


def _child(cur: Any, seg: str, walked: str, *, create: bool) -> Any:
    if isinstance(cur, dict):
        if seg in cur:
            return cur[seg]
        if create:
            cur[seg] = {}
            return cur[seg]
        return None
    if isinstance(cur, list):
        idx = _index(cur, seg, walked)
        return cur[idx]
    raise PathError(None, [Problem(walked, f"is {type(cur).__name__} {cur!r}, a path cannot go into it (next: {seg!r})")])


def _index(items: list[Any], seg: str, walked: str) -> int:
    if seg.isdigit():
        i = int(seg)
        if i >= len(items):
            raise PathError(None, [Problem(f"{walked}.{seg}", f"index out of range: {walked} has {len(items)} entries")])
        return i
    for i, it in enumerate(items):
        if isinstance(it, dict) and it.get("name") == seg:
            return i
    names = _names(items)
    raise PathError(
        None,
        [Problem(f"{walked}.{seg}", f"no entry named {seg!r} in {walked} (names: {', '.join(names) or 'none'})",
                 suggestion=suggest(seg, names))],
    )


def _split(path: str) -> list[str]:
    segs = path.split(".")
    if not path or any(not s for s in segs):
        raise PathError(None, [Problem(path, "not a valid dotted path (e.g. 'flows.conn.count')")])
    return segs


def get_path(doc: dict[str, Any], path: str) -> Any:
    """The value at ``path`` or None when absent."""
    cur: Any = doc
    walked = ""
    for seg in _split(path):
        cur = _child(cur, seg, walked, create=False) if isinstance(cur, (dict, list)) else None
        walked = f"{walked}.{seg}" if walked else seg
        if cur is None:
            return None
    return cur


def _put_entry(items: list[Any], seg: str, walked: str, new: Any) -> None:
    """Replace the entry ``seg`` (a name or an index) of ``items`` with ``new``. A named
    entry (a flow, a cross source) stays named: a table without a ``name`` gets ``seg``,
    and anything but a table is refused here, naming ``walked.seg`` (replaced, it would
    lose its name and a later error would call it by its index)."""
    i = _index(items, seg, walked)
    if not seg.isdigit():
        if not isinstance(new, dict):
            raise PathError(None, [Problem(f"{walked}.{seg}", f"expected a table, not {type_name(new)}", new)])
        new.setdefault("name", seg)
    items[i] = new


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Replace the value at ``path`` (in place), creating missing tables."""
    segs = _split(path)
    cur: Any = doc
    walked = ""
    for seg in segs[:-1]:
        cur = _child(cur, seg, walked, create=True)
        walked = f"{walked}.{seg}" if walked else seg
    last = segs[-1]
    if isinstance(cur, dict):
        cur[last] = copy.deepcopy(value)
    elif isinstance(cur, list):
        _put_entry(cur, last, walked, copy.deepcopy(value))
    else:
        raise PathError(None, [Problem(walked, f"is {cur!r}; cannot set {last!r} inside it")])


def merge_patch(doc: dict[str, Any], patch: dict[str, Any], walked: str = "") -> None:
    """Merge ``patch`` into ``doc`` in place (see the module docstring)."""
    for key, val in patch.items():
        segs = _split(key)
        cur: Any = doc
        where = walked
        for seg in segs[:-1]:
            cur = _child(cur, seg, where, create=True)
            where = f"{where}.{seg}" if where else seg
        last = segs[-1]
        if isinstance(cur, list):
            idx = _index(cur, last, where)
            existing = cur[idx]
        elif isinstance(cur, dict):
            existing = cur.get(last)
        else:
            raise PathError(None, [Problem(where, f"is {cur!r}; cannot patch {last!r} inside it")])
        here = f"{where}.{last}" if where else last
        if isinstance(val, dict) and isinstance(existing, (dict, list)):
            if isinstance(existing, dict) and "kind" in val and existing.get("kind") != val.get("kind"):
                new: Any = copy.deepcopy(val)
            else:
                merge_patch(existing, val, here)
                continue
        else:
            new = copy.deepcopy(val)
        if isinstance(cur, list):
            _put_entry(cur, last, where, new)
        else:
            cur[last] = new
