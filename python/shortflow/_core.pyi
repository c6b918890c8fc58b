"""Type stubs of the compiled core (crates/shortflow-py/src/lib.rs)."""

from typing import Callable, Literal, Optional, TypedDict

__version__: str

class CwndOptDetail(TypedDict):
    cwnd: int
    cwnd_no_shift: int
    m0: Optional[int]
    delta: int
    f_e: float
    r: float
    feasible: bool

def run(
    config_json: str,
    progress: Optional[Callable[[int, float, float], None]] = None,
    slice_events: Optional[int] = None,
    lookahead: bool = False,
) -> str:
    """Run one simulation: SimConfig JSON in, RunResults JSON out. Runs in slices of
    about 20 ms with the GIL released; between slices Ctrl-C raises KeyboardInterrupt
    and ``progress(events, sim_time_s, duration_s)`` is called (at most every 100 ms,
    and once at the end). ``slice_events`` fixes the slice length (tests). Results do
    not depend on the slicing. ``lookahead`` runs the core with lookahead
    (docs/architecture.md, "Lookahead": the same results with fewer events, measured
    slower; ``shortflow bench --lookahead``). Raises ValueError("field = value:
    message") for a bad configuration."""

def run_columns(
    config_json: str,
    progress: Optional[Callable[[int, float, float], None]] = None,
    slice_events: Optional[int] = None,
    lookahead: bool = False,
) -> tuple[dict[str, list[tuple[str, str, int, bytes, Optional[bytes], Optional[bytes]]]], str]:
    """``run`` with the result tables as typed columns instead of JSON: ``(tables,
    stats_json)``, ``tables`` from each table's name (``RunResults``' order, ``stats``
    apart) to its columns ``(name, kind, rows, data, offsets, validity)``: ``kind`` one
    of ``empty u8 u32 u64 i64 f64 bool str list_u64``, the buffers little-endian and
    laid out as Arrow's (``offsets``: rows + 1 i64; ``validity``: a bitmap of the
    finite rows of an ``f64`` column holding a non-finite value, which JSON writes as
    null). ``RunResults.from_columns`` reads them."""

def resolve(config_json: str) -> str:
    """The configuration with every default filled in, as JSON."""

def resolve_tcp_profile(tcp_json: str) -> str:
    """A flow's ``tcp`` table with its profile's values filled in for every field it
    leaves out (the core's rule), as JSON. Raises ValueError for an unknown profile."""

def cwnd_opt(
    f_pkts: int, wc: int, b: float = 1.0, shift: bool = True, policy: Literal["eq2", "one"] = "eq2", max_wnd: int = 0
) -> int:
    """TCP/SPAND optimal initial window (packets); max_wnd 0 = no cap."""

def cwnd_opt_detail(
    f_pkts: int, wc: int, b: float = 1.0, policy: Literal["eq2", "one"] = "eq2", max_wnd: int = 0
) -> CwndOptDetail:
    """Every intermediate quantity of cwnd_opt."""

def f_e(wc: int, b: float = 1.0) -> float:
    """Eq. (1): packets sent in one congestion-avoidance epoch."""

def ca_schedule(f: int, start: int, wc: int, b: float = 1.0) -> list[float]:
    """Packets per RTT for a transfer starting in congestion avoidance at `start`."""

def slow_start_schedule(f: int, iw: int, wc: int, b: float = 1.0) -> list[float]:
    """Packets per RTT for a transfer starting in slow start at `iw`."""

class ViennaThroughput(TypedDict):
    b: float
    b_max: float
    latency: float
    setup: float
    slow_start: float
    first_loss: float
    cong_avoid: float
    delack: float
    expected_window: float

class ViennaSelection(TypedDict):
    alpha: float
    beta: float
    gamma: float
    b: float
    b_max: float
    fallback: bool

def vienna_throughput(
    alpha: float, beta: float, gamma: float, d: float, p: float, rtt: float, t0: float,
    w1: float = 4.0, b: float = 2.0, wmax: float = ..., window_model: Literal["F", "P2"] = "F",
) -> ViennaThroughput:
    """TCP Vienna's model throughput B (segments/s), its latency terms and B_max."""

def vienna_select(
    d: float, p: float, rtt: float, t0: float, w1: float = 4.0, b: float = 2.0, wmax: float = ...,
    window_model: Literal["F", "P2"] = "F", full_grid: bool = False,
) -> ViennaSelection:
    """P4's parameter selection for a transfer of d segments."""

def version() -> str:
    """Version of the compiled core."""
