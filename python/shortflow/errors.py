"""User-facing errors: each names the file, the field path and the offending value,
and suggests the nearest valid name when a name was mistyped."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

__all__ = ["MISSING", "Problem", "ScenarioError", "SimulationError", "suggest", "type_name", "from_validation_error"]

_MISSING = object()
#: Marks a Problem without a value (a missing field).
MISSING = _MISSING


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to ``name`` (difflib), or None."""
    cands = [c for c in candidates if isinstance(c, str)]
    close = difflib.get_close_matches(name, cands, n=1, cutoff=0.6)
    if close:
        return close[0]
    lower = {c.lower(): c for c in cands}
    return lower.get(name.lower())


@dataclass
class Problem:
    """One thing wrong with a scenario."""

    path: str
    message: str
    value: Any = _MISSING
    suggestion: str | None = None

    def render(self) -> str:
        val = "" if self.value is _MISSING else f" = {_short(self.value)}"
        hint = f" (did you mean '{self.suggestion}'?)" if self.suggestion else ""
        if not self.path and not val:  # about the whole file (not UTF-8, not TOML, ...)
            return f"{self.message}{hint}"
        loc = self.path or "(top level)"
        return f"{loc}{val}: {self.message}{hint}"


def _short(v: Any, limit: int = 80) -> str:
    s = "true" if v is True else "false" if v is False else repr(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


class ScenarioError(ValueError):
    """A scenario that cannot be loaded or expanded. ``problems`` lists every issue;
    ``str(e)`` is one line per problem, prefixed with the file name."""

    def __init__(self, source: str | None, problems: Sequence[Problem] | str) -> None:
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        self.source = source
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        prefix = f"{self.source}: " if self.source else ""
        if len(self.problems) == 1:
            return prefix + self.problems[0].render()
        lines = [f"{prefix}{len(self.problems)} problems:"]
        lines += [f"  - {p.render()}" for p in self.problems]
        return "\n".join(lines)

    def with_source(self, source: str | None) -> "ScenarioError":
        return ScenarioError(source or self.source, self.problems)

    def with_prefix(self, prefix: str) -> "ScenarioError":
        """The same problems, each introduced by ``prefix`` (e.g. the sweep point)."""
        return ScenarioError(
            self.source,
            [Problem(p.path, f"{p.message} [{prefix}]", p.value, p.suggestion) for p in self.problems],
        )


class SimulationError(RuntimeError):
    """The core rejected a configuration (``ValueError`` from ``_core``) or failed."""


# --- pydantic ValidationError -> Problems -------------------------------------------

#: What a strict type error expected, by pydantic error type.
_TYPE_NAMES = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "an array",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
}


#: Bound errors: pydantic type -> (wording, ctx key).
_BOUNDS = {
    "greater_than_equal": ("at least", "ge"),
    "greater_than": ("greater than", "gt"),
    "less_than_equal": ("at most", "le"),
    "less_than": ("less than", "lt"),
}


def type_name(v: Any) -> str:
    """The TOML name of a value's type, for 'expected X, not Y'."""
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number with a fraction" if v != int(v) else "a float"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (list, tuple)):
        return "an array"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__

_QUOTED = re.compile(r"'([^']*)'")


def _walk_path(loc: Sequence[Any], data: Any) -> tuple[str, Any]:
    """Render a pydantic ``loc`` as a dotted path over the *raw* data, naming list items
    by their ``name`` when they have one (``flows.conn.app``) and dropping the tags
    pydantic inserts for discriminated unions (``topology.dumbbell.bottleneck`` ->
    ``topology.bottleneck``)."""
    parts: list[str] = []
    cur: Any = data
    tag_skipped: Any = None  # the table whose union tag was last skipped (skip it once only)
    for item in loc:
        if isinstance(item, int) and isinstance(cur, list):
            nxt = cur[item] if 0 <= item < len(cur) else None
            if isinstance(nxt, dict) and isinstance(nxt.get("name"), str):
                parts.append(nxt["name"])
            else:
                if parts:
                    parts[-1] = f"{parts[-1]}[{item}]"
                else:
                    parts.append(f"[{item}]")
            cur = nxt
            continue
        if isinstance(cur, dict):
            # pydantic names the chosen member of a tagged union by its tag: the data's own
            # `kind` (checked first: an app of kind "rounds" also has a field "rounds").
            if isinstance(item, str) and item == cur.get("kind") and tag_skipped is not cur:
                tag_skipped = cur
                continue
            if item in cur:
                parts.append(str(item))
                cur = cur[item]
                continue
            # A union tag or a function-validator marker: skip it (the data did not move).
            if isinstance(item, str) and ("[" in item or item.startswith("function-")):
                continue
            # Tags of unions whose tag field was defaulted (kind omitted).
            if isinstance(item, str) and item in _KNOWN_TAGS:
                continue
            parts.append(str(item))
            cur = None
            continue
        if isinstance(item, str) and (item in _KNOWN_TAGS or "[" in item or item.startswith("function-")):
            continue
        parts.append(str(item))
        cur = None
    return ".".join(parts), cur


def _kind_typo(table: dict[Any, Any]) -> str | None:
    """The key of ``table`` that looks like a misspelt ``kind`` (``kinds``, ``Kind``,
    ``kid``; close enough that no field of ours is taken for one), if one does."""
    keys = {k.strip().lower(): k for k in table if isinstance(k, str)}
    close = difflib.get_close_matches("kind", list(keys), n=1, cutoff=0.8)
    return keys[close[0]] if close else None


#: Tags that pydantic may insert into ``loc`` for unions; filled by the scenario module.
_KNOWN_TAGS: set[str] = set()


def register_tags(tags: Iterable[str]) -> None:
    _KNOWN_TAGS.update(tags)


def from_validation_error(exc: Any, data: Any, *, base_path: str = "") -> list[Problem]:
    """Convert a pydantic ``ValidationError`` raised while validating ``data``."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in exc.errors(include_url=False):
        loc = list(err.get("loc", ()))
        typ = err.get("type", "")
        ctx = err.get("ctx") or {}
        path, _ = _walk_path(loc, data)
        if base_path:
            path = f"{base_path}.{path}" if path else base_path
        value = err.get("input", _MISSING)
        msg = str(err.get("msg", ""))
        sugg: str | None = None
        if typ == "unknown_field":
            field = ctx.get("field", "?")
            path = f"{path}.{field}" if path else str(field)
            value = ctx.get("value", _MISSING)
            valid = ctx.get("valid", [])
            sugg = suggest(str(field), valid)
            msg = "unknown field; valid fields here: " + ", ".join(valid)
        elif typ == "extra_forbidden":
            msg = "unknown field"
        elif typ in _TYPE_NAMES:
            msg = f"expected {_TYPE_NAMES[typ]}, not {type_name(value)}"
        elif typ in _BOUNDS:
            word, key = _BOUNDS[typ]
            msg = f"must be {word} {ctx.get(key)}"
        elif typ == "conflict":
            value = ctx.get("value", value)
        elif typ == "missing":
            msg = "required field is missing"
            value = _MISSING
        elif typ in ("union_tag_invalid",):
            tags = _QUOTED.findall(str(ctx.get("expected_tags", "")))
            tag = ctx.get("tag", "")
            sugg = suggest(str(tag), tags)
            path = f"{path}.kind" if path else "kind"
            value = tag
            msg = "unknown kind; valid kinds: " + ", ".join(tags)
        elif typ == "union_tag_not_found" and value is not _MISSING and not isinstance(value, dict):
            msg = f"expected a table with a 'kind' (or a kind name as a string), not {type_name(value)}"
        elif typ == "union_tag_not_found" and isinstance(value, dict) and "kind" in value:
            # The tag is there but is no name (`kind = 5`): not "missing".
            path = f"{path}.kind" if path else "kind"
            value = value["kind"]
            msg = f"expected a kind name (a string), not {type_name(value)}"
        elif typ == "union_tag_not_found":
            # No `kind`: a misspelt one (`kinds`, `Kind`) is named, with the fix.
            typo = _kind_typo(value) if isinstance(value, dict) else None
            if typo is not None:
                path = f"{path}.{typo}" if path else typo
                value = value[typo]
                msg = "unknown field, and the table has no 'kind'"
                sugg = "kind"
            else:
                path = f"{path}.kind" if path else "kind"
                value = _MISSING
                msg = "missing 'kind'"
        elif typ in ("literal_error", "enum"):
            options = _QUOTED.findall(str(ctx.get("expected", "")))
            if isinstance(value, str):
                sugg = suggest(value, options)
            msg = "expected one of: " + ", ".join(options) if options else msg
        elif typ == "value_error":
            msg = re.sub(r"^Value error, ", "", msg)
            cause = ctx.get("error")
            if cause is not None and hasattr(cause, "message"):
                msg = cause.message
        elif typ == "assertion_error":
            msg = re.sub(r"^Assertion failed, ", "", msg)
        key = (path, msg)
        if key in seen:
            continue
        seen.add(key)
        problems.append(Problem(path, msg, value, sugg))
    return problems
