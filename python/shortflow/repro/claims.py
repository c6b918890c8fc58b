"""What the reproductions share about claims: the claim record of the thesis/paper
statement against our number (``Claim``), and the counts every ``claims.json`` carries
(``claim_counts``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

__all__ = ["Claim", "Report", "claim_counts", "write_claims_markdown"]


@dataclass
class Claim:
    """One claim: the source's statement (``paper``), our number (``measured``), the rule
    that decides, the verdict (``passed``; None = not evaluated or not yet run) and where
    the criterion comes from (``source``: the paper, its spec, or ours)."""

    id: str
    figure: str
    paper: str
    measured: str
    rule: str
    passed: Optional[bool]
    source: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def claim_counts(claims: Iterable[Any]) -> dict[str, int]:
    """``claims``, ``evaluated`` (a verdict), ``pass`` and ``fail`` of any claim records
    with a ``passed`` attribute (True / False / None)."""
    verdicts = [c.passed for c in claims]
    return {"claims": len(verdicts), "evaluated": sum(v is not None for v in verdicts),
            "pass": sum(v is True for v in verdicts), "fail": sum(v is False for v in verdicts)}


@dataclass
class Report:
    """A reproduction's outcome: its claims, the files it wrote (names in ``out``), how
    long it took and with which settings; ``to_dict`` is ``claims.json``."""

    mode: str
    out: Path
    claims: list[Claim]
    files: list[str]
    wall_s: float
    generated: str
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> list[Claim]:
        return [c for c in self.claims if c.passed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "settings": self.settings, "wall_s": round(self.wall_s, 2), "generated": self.generated,
            "counts": {**claim_counts(self.claims), "not_run": sum(c.passed is None for c in self.claims)},
            "claims": [c.to_dict() for c in self.claims],
            "files": self.files,
        }


def write_claims_markdown(rep: Report, path: Path, *, title: str, name: str, source: str, no_verdict: str = "–") -> Path:
    """``claims.md``: a summary line and one table row per claim. ``name``: the
    reproduction (`shortflow repro <name>`, `scenarios/<name>/common.md`); ``source``:
    the column header of the source's statement ("P4", "thesis")."""
    mark = {True: "pass", False: "**FAIL**", None: no_verdict}
    ev = sum(c.passed is not None for c in rep.claims)
    rest = len(rep.claims) - ev
    lines = [f"# {title} ({rep.mode} mode)", "",
             f"{len(rep.passed)}/{ev} evaluated claims pass"
             + (f"; {rest} without a verdict" if rest else "") + ". Generated "
             f"{rep.generated} by `shortflow repro {name}{' --quick' if rep.mode == 'quick' else ''}` in "
             f"{rep.wall_s:.0f} s. Choices: `scenarios/{name}/common.md`.", "",
             f"| id | figure | {source} | ours | rule | criterion | verdict | note |", "|---|---|---|---|---|---|---|---|"]
    for c in rep.claims:
        cells = [c.id, c.figure, c.paper, c.measured, c.rule, c.source, mark[c.passed], c.note]
        lines.append("| " + " | ".join(x.replace("|", "/") for x in cells) + " |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
