"""A static, self-contained HTML report of a sweep directory (plots embedded as
base64 PNG, the scenario text, summary tables)."""

from __future__ import annotations

import base64
import html
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from .stats import point_columns, summarize
from .sweeper import load_results

__all__ = ["make_report"]

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1rem; }
h1 { margin-bottom: 0.2rem; } .sub { color: #666; margin-top: 0; }
.tw { max-width: 100%; overflow-x: auto; margin: 0.5rem 0 1.5rem; }  /* a wide table scrolls, the page does not */
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; }
td.l { max-width: 32rem; overflow-wrap: anywhere; }  /* long names, JSON points, paths wrap */
th { background: #f4f4f4; } td.l, th.l { text-align: left; }
pre { background: #f7f7f7; border: 1px solid #e3e3e3; padding: 0.8rem; overflow-x: auto; font-size: 0.85rem; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5rem 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; } dt { font-weight: 600; }
"""


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _table(df: pl.DataFrame, left: set[str]) -> str:
    head = "".join(f'<th class="{"l" if c in left else ""}">{html.escape(c)}</th>' for c in df.columns)
    rows = []
    for r in df.iter_rows():
        cells = "".join(f'<td class="{"l" if c in left else ""}">{html.escape(_fmt(v))}</td>' for c, v in zip(df.columns, r))
        rows.append(f"<tr>{cells}</tr>")
    return scroll_box(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def scroll_box(table_html: str) -> str:
    """A table in a box that scrolls sideways when it is wider than the page."""
    return f"<div class='tw'>{table_html}</div>"


def make_report(out: str | Path, embed: bool = True) -> Path:
    """Write ``out/report.html`` (drawing the plots first when they are missing)."""
    from .plot import make_plots

    out = Path(out)
    df, meta = load_results(out)
    plots_dir = out / "plots"
    pngs = sorted(plots_dir.glob("*.png")) if plots_dir.exists() else []
    if not pngs:
        pngs = make_plots(out)
    axes = point_columns(df, list(meta.get("axes", {})) or None)
    name = meta.get("scenario") or (df["scenario"][0] if df.height else out.name)
    toml_path = out / "scenario.toml"
    toml_text = toml_path.read_text(encoding="utf-8") if toml_path.exists() else None

    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(str(name))} — shortflow report</title>",
             f"<style>{_CSS}</style></head><body>"]
    parts.append(f"<h1>{html.escape(str(name))}</h1>")
    if meta.get("description"):
        parts.append(f"<p class='sub'>{html.escape(meta['description'])}</p>")
    n_seeds = df["seed"].n_unique() if df.height else 0
    facts = {
        "transfers": df.height,
        "finished": int(df["completion_s"].is_not_null().sum()) if df.height else 0,
        "seeds": ", ".join(str(s) for s in meta.get("seeds", sorted(df["seed"].unique().to_list()))) or n_seeds,
        "tasks (points × seeds)": meta.get("tasks", "–"),
        "sweep axes": ", ".join(f"{a} ∈ {meta['axes'][a]}" for a in meta.get("axes", {})) or "none",
        "shortflow": meta.get("version", "–"),
        "core": meta.get("core_version", "–"),
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    parts.append("<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in facts.items()) + "</dl>")

    parts.append("<h2>Plots</h2>")
    for p in pngs:
        if embed:
            data = base64.b64encode(p.read_bytes()).decode()
            src = f"data:image/png;base64,{data}"
        else:
            src = f"plots/{p.name}"
        parts.append(f"<figure><img src='{src}' alt='{html.escape(p.stem)}'><figcaption>{html.escape(p.name)}</figcaption></figure>")

    parts.append("<h2>Completion time per point</h2>")
    parts.append("<p>Mean over seeds of the per-seed mean completion time of finished transfers (s); "
                 "ci95: half-width of the 95% confidence interval across seeds (Student t); p95 over all transfers.</p>")
    if df.height:
        by = ["group"] + axes
        parts.append(_table(summarize(df, by), left=set(by)))
    else:
        parts.append("<p>No transfers.</p>")

    if toml_text is not None:
        parts.append("<h2>Scenario</h2>")
        parts.append(f"<pre>{html.escape(toml_text)}</pre>")
    idx = out / "index.json"
    if idx.exists():
        parts.append("<h2>Effective configurations</h2><p>Every task's configuration with all defaults resolved is in "
                     "<code>cache/&lt;key&gt;.config.json</code>; <code>index.json</code> maps each point and seed to its key.</p>")
        try:
            entries = json.loads(idx.read_text())[:50]
            rows = pl.DataFrame({"point": [json.dumps(e["point"]) for e in entries], "seed": [e["seed"] for e in entries],
                                 "config": [e["config"] for e in entries]})
            parts.append(_table(rows, left={"point", "config"}))
        except (ValueError, KeyError):
            pass
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
