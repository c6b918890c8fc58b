"""``shortflow repro linux``: the "linux" TCP profile against real Linux 6.18 (issue 19).

Every configuration of ``scenarios/linux/data/mtu1500.jsonl`` (reno and cubic, IW 1/2/4/10,
slow start after idle on/off, 6 concurrent clients, 5-100 KB and a 600 KB bulk transfer over
an emulated 1.6 Mb/s, 50 ms, drop-tail path) is simulated from ``scenarios/linux/<tag>.toml``
and compared with the measurement: Linux's mean completion (and for six clients the mean
last-to-finish), ours, the relative error, and the counters side by side (Linux's nstat per
repetition against ours per run). A row passes when every timing is within 5 % and we see
no retransmission timeout where Linux had none.

Timing as measured (the measurements' README): ``total`` = connect() -> last byte read. The
simulated server sends the SYN (the handshake's two legs) and the client's first leg, the
SYN, is added as one one-way trip of a 60-byte SYN; ``delivered_s`` is when the client has
the last byte. ``second`` = send() of the 1-byte request -> last byte: the request's one-way
trip (a 53-byte packet) plus the second round's start -> last byte.

    from shortflow.repro import linux
    rep = linux.run("out/repro-linux", mode="quick")
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ..jsonsafe import clean_json
from ..paths import find_scenario_dir
from .scenarios import DELAY_S, RATE_BPS, load_rows

__all__ = ["run", "Row", "Report", "QUICK_TAGS", "TOLERANCE"]

#: The rows of ``--quick`` (about a minute on one core): loss-free and lossy reno rows.
QUICK_TAGS = ["main_reno_iw1_ssai1", "main_reno_iw10_ssai0", "conc6_reno_iw4", "size_reno_iw10_60k"]
#: The issue's criterion: within 5 % of Linux's mean.
TOLERANCE = 0.05


def one_way(size_bytes: int) -> float:
    return DELAY_S + size_bytes * 8 / RATE_BPS


#: The counters side by side: ours (a ``flows`` column) and Linux's nstat name.
COUNTERS = {
    "retrans": ("retrans_segs", "TcpRetransSegs"),
    "timeouts": ("timeouts", "TcpExtTCPTimeouts"),
    "fast_retrans": ("fast_retrans", "TcpExtTCPFastRetrans"),
    "loss_probes": ("loss_probes", "TcpExtTCPLossProbes"),
    "sack_recoveries": ("sack_recoveries", "TcpExtTCPSackRecovery"),
    "spurious_rtos": ("spurious_rtos", "TcpExtTCPSpuriousRTOs"),
    "dsack_recv": ("dsack_recv", "TcpExtTCPDSACKRecv"),
}
#: Their headings in table.md.
COUNTER_HEADS = {"retrans": "retrans", "timeouts": "RTO", "fast_retrans": "fast rtx", "loss_probes": "TLP",
                 "sack_recoveries": "SACK rec", "spurious_rtos": "spur. RTO", "dsack_recv": "DSACK"}

SYN_LEG = one_way(60)  # the client's SYN (20 IP + 40 TCP with MSS, SACK-permitted, TS, WS)
REQUEST_LEG = one_way(53)  # the 1-byte request with timestamps


@dataclass
class Row:
    tag: str
    cc: str
    iw: int
    size: int
    ssai: int
    conc: int
    metric: str  # "total", "second", "last" (conc > 1: mean of the last to finish)
    linux_s: float
    ours_s: float
    rel_err: float
    linux_retrans: float
    ours_retrans: float
    linux_timeouts: float
    ours_timeouts: float
    linux_fast_retrans: float
    ours_fast_retrans: float
    linux_loss_probes: float
    ours_loss_probes: float
    linux_sack_recoveries: float
    ours_sack_recoveries: float
    linux_spurious_rtos: float
    ours_spurious_rtos: float
    linux_dsack_recv: float
    ours_dsack_recv: float
    passed: bool
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Report:
    mode: str
    out: Path
    rows: list[Row]
    wall_s: float

    @property
    def passed(self) -> list[Row]:
        return [r for r in self.rows if r.passed]


def _linux_times(row: dict[str, Any]) -> dict[str, float]:
    """Linux's mean times (s); with several clients a rep is ``{rep, clients: [...]}``."""
    reps = [x["clients"] if "clients" in x else [x] for x in row["client"]]
    flat = [c for rep in reps for c in rep]
    out = {"total": sum(x["total"] for x in flat) / len(flat)}
    if row["second"]:
        out["second"] = sum(x["second"] for x in flat) / len(flat)
    if row["conc"] > 1:
        out["last"] = sum(max(c["total"] for c in rep) for rep in reps) / len(reps)
    return out


def _ours(scdir: Path, row: dict[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    from ...scenario import load

    sc = load(scdir / f"{row['tag']}.toml")
    res = sc.simulate(1)
    t = res.transfers
    firsts = t.filter(t["round"] == 0)
    tot = [d - s + SYN_LEG for s, d in zip(firsts["start_s"], firsts["delivered_s"])]
    times = {"total": sum(tot) / len(tot)}
    if row["second"]:
        sec = t.filter(t["round"] == 1)
        times["second"] = sum(d - s + REQUEST_LEG for s, d in zip(sec["start_s"], sec["delivered_s"])) / len(sec)
    if row["conc"] > 1:
        times["last"] = max(tot)
    f = res.flows
    counters = {ours: float(sum(f[col])) for ours, (col, _) in COUNTERS.items()}
    return times, counters


def run(out: str | Path, mode: str = "full", log: Callable[[str], None] = lambda m: None,
        scenario_dir: Optional[Path] = None) -> Report:
    if mode not in ("full", "quick"):
        raise ValueError(f"mode = {mode!r}: expected 'full' or 'quick'")
    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    scdir = scenario_dir or find_scenario_dir("linux", "common.md", "SHORTFLOW_LINUX_SCENARIOS")
    data = load_rows(scdir / "data" / "mtu1500.jsonl")
    if mode == "quick":
        data = [r for r in data if r["tag"] in QUICK_TAGS]
    rows: list[Row] = []
    for r in data:
        log(f"{r['tag']}: simulating")
        lin = _linux_times(r)
        try:
            ours, cnt = _ours(scdir, r)
        except Exception as e:  # a configuration we cannot build (CUBIC before it exists)
            ours, cnt, note = {k: math.nan for k in lin}, {k: math.nan for k in COUNTERS}, f"not run: {e}"
        else:
            note = ""
        reps = r["reps"]
        ns = r["nstat"]
        lin_to = ns.get("TcpExtTCPTimeouts", 0) / reps
        for metric, lv in lin.items():
            ov = ours[metric]
            err = (ov - lv) / lv if not math.isnan(ov) else math.nan
            ok = (not math.isnan(err)) and abs(err) <= TOLERANCE and not (lin_to == 0 and cnt["timeouts"] > 0)
            side = {}
            for k, (_, nstat) in COUNTERS.items():
                side[f"linux_{k}"] = lin_to if k == "timeouts" else ns.get(nstat, 0) / reps
                side[f"ours_{k}"] = cnt[k]
            rows.append(Row(
                tag=r["tag"], cc=r["cc"], iw=r["iw"], size=r["size"], ssai=r["ssai"], conc=r["conc"], metric=metric,
                linux_s=lv, ours_s=ov, rel_err=err, passed=ok, note=note, **side))
    rep = Report(mode, out, rows, time.perf_counter() - t0)
    _write(rep)
    return rep


def _fmt(x: float, scale: float = 1.0, nd: int = 1) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * scale:.{nd}f}"


def _write(rep: Report) -> None:
    out = rep.out
    (out / "rows.json").write_text(json.dumps(clean_json([r.to_dict() for r in rep.rows]), indent=1))
    cols = ["tag", "metric", "linux ms", "ours ms", "error %"] + [f"{h} L/ours" for h in COUNTER_HEADS.values()] + ["verdict"]
    lines = [f"# shortflow repro linux ({rep.mode}): {len(rep.passed)}/{len(rep.rows)} rows within "
             f"{TOLERANCE:.0%} with no extra timeouts", "",
             "Counters are per repetition (Linux nstat / reps) against ours per run (every transfer of the "
             "configuration): retrans = TcpRetransSegs, RTO = TCPTimeouts, fast rtx = TCPFastRetrans, "
             "TLP = TCPLossProbes, SACK rec = TCPSackRecovery, spur. RTO = TCPSpuriousRTOs, "
             "DSACK = TCPDSACKRecv.", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rep.rows:
        lines.append("| " + " | ".join([
            r.tag, r.metric, _fmt(r.linux_s, 1e3), _fmt(r.ours_s, 1e3), _fmt(r.rel_err, 100),
            *[f"{_fmt(getattr(r, 'linux_' + k))}/{_fmt(getattr(r, 'ours_' + k), nd=0)}" for k in COUNTER_HEADS],
            ("pass" if r.passed else "FAIL") + (f" ({r.note})" if r.note else "")]) + " |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    with open(out / "table.csv", "w") as f:
        keys = list(rep.rows[0].to_dict()) if rep.rows else []
        f.write(",".join(keys) + "\n")
        for r in rep.rows:
            f.write(",".join(str(v) for v in r.to_dict().values()) + "\n")
