"""Pages of a HAR file (HTTP Archive 1.2, what browsers' developer tools export) for the
Web workload (``app = { kind = "web", har = "page.har" }``).

Each page of ``log.pages`` becomes one page; its entries (``log.entries`` whose
``pageref`` names it; every entry when the file has no pages) in the order they started
(``startedDateTime``) are its objects: the first is the HTML, the others its inline
objects. An object's size is the response body as transferred (``response.bodySize``),
or the decoded content (``response.content.size``) when the body size is unknown (-1).
Entries with no body (redirects, 304 revalidations) carry no object and are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class HarError(ValueError):
    """A HAR file that cannot be read as pages; the message names what is wrong."""


def _size(entry: Any, where: str) -> int:
    resp = entry.get("response") if isinstance(entry, dict) else None
    if not isinstance(resp, dict):
        raise HarError(f"{where}: no 'response' object")
    body = resp.get("bodySize", -1)
    if not isinstance(body, (int, float)) or isinstance(body, bool):
        raise HarError(f"{where}.response.bodySize: not a number ({body!r})")
    if body < 0:
        content = resp.get("content")
        size = content.get("size", -1) if isinstance(content, dict) else -1
        if not isinstance(size, (int, float)) or isinstance(size, bool):
            raise HarError(f"{where}.response.content.size: not a number ({size!r})")
        body = size
    return int(body)


def pages_from_har(path: Path) -> list[tuple[int, list[int]]]:
    """(HTML bytes, [inline object bytes]) per page of the HAR file at ``path``."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise HarError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise HarError(f"{path} is not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    log = doc.get("log") if isinstance(doc, dict) else None
    if not isinstance(log, dict):
        raise HarError(f"{path}: no top-level 'log' object (not a HAR file)")
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise HarError(f"{path}: 'log.entries' must be a list")
    pages = log.get("pages") or []
    if not isinstance(pages, list):
        raise HarError(f"{path}: 'log.pages' must be a list")
    ids: list[str] = []
    for k, p in enumerate(pages):
        if not isinstance(p, dict) or not isinstance(p.get("id"), str):
            raise HarError(f"{path}: log.pages[{k}] has no string 'id'")
        ids.append(p["id"])
    groups: dict[str, list[tuple[str, int, int]]] = {i: [] for i in ids} if ids else {"": []}
    for k, e in enumerate(entries):
        where = f"log.entries[{k}]"
        if not isinstance(e, dict):
            raise HarError(f"{path}: {where} is not an object")
        ref = e.get("pageref", "") if ids else ""
        if ids and ref not in groups:
            raise HarError(f"{path}: {where}.pageref = {ref!r} names no page of log.pages ({', '.join(ids)})")
        started = e.get("startedDateTime", "")
        if not isinstance(started, str):
            raise HarError(f"{path}: {where}.startedDateTime must be a string")
        size = _size(e, f"{path}: {where}")
        if size > 0:
            groups[ref].append((started, k, size))
    out: list[tuple[int, list[int]]] = []
    for ref, objs in groups.items():
        if not objs:
            raise HarError(f"{path}: page {ref!r} has no entry with a body" if ref else f"{path}: no entry with a body")
        objs.sort()
        sizes = [s for _, _, s in objs]
        out.append((sizes[0], sizes[1:]))
    return out
