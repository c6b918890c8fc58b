"""Result tables of one run (``results.rs``) as polars frames."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import polars as pl

__all__ = ["RunResults", "SCHEMAS", "frame", "columns_frame", "transfers_frame", "KIND_NAMES", "LOSS_COUNTERS",
           "TRANSFER_COUNTERS", "loss_counters", "transfer_loss_counters"]

#: Loss-recovery counters of the ``flows`` table (``tcp::recovery::LossCounters``, Linux MIB
#: names: TCPRetransSegs, TCPTimeouts, TCPLossProbes, TCPLossProbeRecovery, TCPFastRetrans,
#: TCPSackRecovery, TCPSpuriousRTOs, TCPLossUndo, TCPDSACKRecv, TCPDSACKOfoRecv). The
#: ``transfers`` table has them per transfer (``retrans_segs`` named ``retransmits``).
LOSS_COUNTERS = ("retrans_segs", "timeouts", "loss_probes", "loss_probe_recoveries", "fast_retrans",
                 "sack_recoveries", "spurious_rtos", "loss_undos", "dsack_recv", "dsack_ofo_recv")

#: The loss-recovery counters of the ``transfers`` table beyond ``retransmits`` and
#: ``timeouts``: the connection's counts between the transfer's start and its end.
TRANSFER_COUNTERS = ("loss_probes", "loss_probe_recoveries", "fast_retrans", "sack_recoveries",
                     "spurious_rtos", "loss_undos", "dsack_recv", "dsack_ofo_recv")

#: Column dtypes of every table of ``RunResults`` (kept even when a table is empty).
SCHEMAS: dict[str, dict[str, Any]] = {
    "transfers": {
        "flow": pl.String,
        "round": pl.UInt32,
        "bytes": pl.UInt64,
        "start_s": pl.Float64,
        "end_s": pl.Float64,
        "completion_s": pl.Float64,
        "retransmits": pl.UInt64,
        "timeouts": pl.UInt64,
        **{c: pl.UInt64 for c in TRANSFER_COUNTERS},
        "initial_cwnd": pl.Float64,
        "delivered_s": pl.Float64,
    },
    "flows": {
        "flow": pl.String,
        "transport": pl.String,
        "data_pkts_sent": pl.UInt64,
        "bytes_acked": pl.UInt64,
        "retransmits": pl.UInt64,
        "timeouts": pl.UInt64,
        "fast_retransmits": pl.UInt64,
        "retrans_segs": pl.UInt64,
        **{c: pl.UInt64 for c in TRANSFER_COUNTERS},
        "final_cwnd": pl.Float64,
        "final_ssthresh": pl.Float64,
        "pkts_received": pl.UInt64,
        "false_retx": pl.UInt64,
        "start_s": pl.Float64,
        "acked_by_s": pl.List(pl.UInt64),
    },
    "links": {
        "link": pl.String,
        "arrivals": pl.UInt64,
        "departures": pl.UInt64,
        "drops": pl.UInt64,
        "bytes_departed": pl.UInt64,
    },
    "acks": {"flow": pl.UInt32, "time_ns": pl.UInt64, "ackno": pl.Int64},
    "packets": {
        "time_ns": pl.UInt64,
        "event": pl.UInt8,
        "link": pl.UInt32,
        "flow": pl.UInt32,
        "kind": pl.UInt8,
        "seqno": pl.Int64,
        "size": pl.UInt32,
        "uid": pl.UInt64,
        "low_prio": pl.Boolean,
    },
    "cwnd": {"flow": pl.UInt32, "time_ns": pl.UInt64, "cwnd": pl.Float64, "ssthresh": pl.Float64, "srtt_s": pl.Float64},
    "startup": {
        "flow": pl.String,
        "time_s": pl.Float64,
        "wc_estimate": pl.Float64,
        "rtt_estimate_s": pl.Float64,
        "n_samples": pl.UInt32,
        "cwnd": pl.Float64,
        "fallback_slow_start": pl.Boolean,
    },
    "cc": {"flow": pl.String, "time_s": pl.Float64, "decision": pl.UInt32, "metric": pl.String, "value": pl.Float64},
    "pages": {
        "pair": pl.String,
        "page": pl.UInt32,
        "start_s": pl.Float64,
        "end_s": pl.Float64,
        "download_s": pl.Float64,
        "objects": pl.UInt32,
        "bytes": pl.UInt64,
        "conns_opened": pl.UInt32,
    },
    "objects": {
        "pair": pl.String,
        "page": pl.UInt32,
        "object": pl.UInt32,
        "bytes": pl.UInt64,
        "conn": pl.String,
        "request_s": pl.Float64,
        "end_s": pl.Float64,
        "time_s": pl.Float64,
    },
}

#: ``PacketTrace.event`` letters (ns-2 trace: enqueue, dequeue, drop, receive).
_EVENTS = {ord(c): c for c in "+-dr"}

#: ``PacketTrace.kind`` codes (``net/packet.rs``).
KIND_NAMES = {0: "data", 1: "ack", 2: "udp"}


def frame(table: str, columns: Mapping[str, list[Any]] | None) -> pl.DataFrame:
    """A frame for one results table, with the documented dtypes. Columns the core
    emits beyond the schema are kept (inferred dtypes); missing ones are empty."""
    schema = SCHEMAS[table]
    columns = columns or {}
    n = max((len(v) for v in columns.values()), default=0)
    data: dict[str, pl.Series] = {}
    for name, dtype in schema.items():
        values = columns.get(name)
        if values is None:
            values = [None] * n
        data[name] = pl.Series(name, values, dtype=dtype, strict=False)
    for name, values in columns.items():
        if name not in schema:
            data[name] = pl.Series(name, values, strict=False)
    return pl.DataFrame(data)


def columns_frame(table: str, columns: Sequence[tuple[Any, ...]]) -> pl.DataFrame:
    """The frame :func:`frame` makes of the same table's JSON, from the core's typed
    columns (``_core.run_columns``; ``shortflow_core::columns``): each column a tuple
    ``(name, kind, rows, data, offsets, validity)`` of little-endian buffers laid out
    as Arrow's, read as Arrow arrays without copying and handed to polars. A non-finite
    float comes as null, as the JSON writes it. A table with no rows and only the
    schema's columns (most runs' traces, pages, objects ...) is the schema's empty
    frame, made once."""
    schema = SCHEMAS[table]
    if all(c[2] == 0 and c[0] in schema for c in columns):
        return _empty_frame(table)
    got = {c[0]: _column_series(*c, schema.get(c[0])) for c in columns}
    n = max((len(v) for v in got.values()), default=0)
    data = [got.pop(name) if name in got else pl.Series(name, [None] * n, dtype=dtype, strict=False)
            for name, dtype in schema.items()]
    return pl.DataFrame(data + list(got.values()))


#: Each table's frame with no rows (:func:`_empty_frame`).
_EMPTY: dict[str, pl.DataFrame] = {}


def _empty_frame(table: str) -> pl.DataFrame:
    """``frame(table, None)``, built once per table and handed out as a clone (a polars
    clone shares the columns, and a frame's columns are never changed in place)."""
    df = _EMPTY.get(table)
    if df is None:
        df = _EMPTY[table] = frame(table, None)
    return df.clone()


def _column_series(name: str, kind: str, rows: int, data: bytes, offsets: Optional[bytes],
                   validity: Optional[bytes], dtype: Any) -> pl.Series:
    """One of the core's columns (see :func:`columns_frame`) as a series of ``dtype``
    (the schema's; None: the column's own)."""
    import pyarrow as pa

    if kind == "empty":
        return pl.Series(name, [], dtype=dtype, strict=False)
    valid = pa.py_buffer(validity) if validity is not None else None
    if kind == "str":
        arr = pa.Array.from_buffers(pa.large_string(), rows, [valid, pa.py_buffer(offsets), pa.py_buffer(data)])
    elif kind == "list_u64":
        values = pa.Array.from_buffers(pa.uint64(), len(data) // 8, [None, pa.py_buffer(data)])
        arr = pa.Array.from_buffers(pa.large_list(pa.uint64()), rows, [valid, pa.py_buffer(offsets)], children=[values])
    else:
        arr = pa.Array.from_buffers(getattr(pa, _ARROW_TYPES[kind])(), rows, [valid, pa.py_buffer(data)])
    s = pl.Series(name, arr)
    return s if dtype is None or s.dtype == dtype else s.cast(dtype)


#: Arrow types (pyarrow's names) of the core's fixed-width column kinds (``columns::Kind::name``).
_ARROW_TYPES = {"u8": "uint8", "u32": "uint32", "u64": "uint64", "i64": "int64", "f64": "float64", "bool": "bool_"}


#: The transfers' times that are null while a transfer is unfinished.
TRANSFER_TIMES = ("end_s", "completion_s", "delivered_s")

#: Per table, its times that are null while unfinished (a NaN from a dict or JSON
#: becomes null; the core's typed columns already carry them as nulls).
NULL_TIMES: dict[str, tuple[str, ...]] = {
    "transfers": TRANSFER_TIMES,
    "pages": ("end_s", "download_s"),
    "objects": ("request_s", "end_s", "time_s"),
}


def transfers_frame(columns: Mapping[str, list[Any]] | None) -> pl.DataFrame:
    """The transfers table; ``end_s``/``completion_s`` are null for unfinished transfers
    (the core's NaN travels as JSON null)."""
    return _dict_frame("transfers", columns)


def _dict_frame(table: str, columns: Mapping[str, list[Any]] | None) -> pl.DataFrame:
    """:func:`frame` of a table given as lists (JSON, a dict), its unfinished times
    (:data:`NULL_TIMES`) null where they came as NaN."""
    df = frame(table, columns)
    return _nan_to_null(df, NULL_TIMES[table]) if table in NULL_TIMES else df


def _nan_to_null(df: pl.DataFrame, cols: tuple[str, ...]) -> pl.DataFrame:
    """Unfinished times (the core's NaN, or JSON null) as nulls."""
    return df.with_columns(*(pl.col(c).fill_nan(None) for c in cols))


@dataclass
class RunResults:
    """Everything one run produced: every table as a polars frame.

    ``transfers`` has one row per application transfer (``end_s``/``completion_s`` null
    if it had not finished when the run stopped); ``flows`` per-connection counters;
    ``links`` per simplex link; ``acks``/``packets``/``cwnd`` traces (empty unless
    enabled in ``trace``); ``startup`` TCP/SPAND decisions; ``cc`` decisions of
    congestion-control rules that make them (TCP Vienna's evaluations, long format:
    ``decision``, ``metric``, ``value``; ``cc_decisions()`` pivots it); ``pages`` and
    ``objects`` of Web workloads (one row per page of a client-server pair: ``download_s``
    from the client's first action to the last byte; one row per object: ``request_s``,
    ``end_s``, ``time_s``, the connection; null times: not finished); ``stats`` engine counters;
    ``config`` the configuration that was run.
    """

    transfers: pl.DataFrame
    flows: pl.DataFrame
    links: pl.DataFrame
    acks: pl.DataFrame
    packets: pl.DataFrame
    cwnd: pl.DataFrame
    startup: pl.DataFrame
    cc: pl.DataFrame = field(default_factory=lambda: frame("cc", None))
    pages: pl.DataFrame = field(default_factory=lambda: frame("pages", None))
    objects: pl.DataFrame = field(default_factory=lambda: frame("objects", None))
    stats: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, text: str, config: dict[str, Any] | None = None) -> "RunResults":
        raw = json.loads(text)
        return cls.from_dict(raw, config)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], config: dict[str, Any] | None = None) -> "RunResults":
        return cls._from_frames({t: _dict_frame(t, raw.get(t)) for t in SCHEMAS}, raw.get("stats"), config)

    @classmethod
    def from_columns(cls, tables: dict[str, Sequence[tuple[Any, ...]]], stats_json: str,
                     config: dict[str, Any] | None = None) -> "RunResults":
        """The results of ``_core.run_columns`` (the same frames :meth:`from_json` makes of
        ``_core.run``'s JSON). Each table's buffers are dropped from ``tables`` (a dict)
        once its frame is made."""
        frames = {t: columns_frame(t, tables.pop(t, None) or ()) for t in SCHEMAS}
        return cls._from_frames(frames, json.loads(stats_json), config)

    @classmethod
    def _from_frames(cls, f: Mapping[str, pl.DataFrame], stats: Optional[Mapping[str, Any]],
                     config: dict[str, Any] | None) -> "RunResults":
        """Every table's frame, its unfinished times already null (:data:`NULL_TIMES`)."""
        return cls(**{t: f[t] for t in SCHEMAS}, stats=dict(stats or {}), config=dict(config or {}))

    def tables(self) -> dict[str, pl.DataFrame]:
        return {
            "transfers": self.transfers,
            "flows": self.flows,
            "links": self.links,
            "acks": self.acks,
            "packets": self.packets,
            "cwnd": self.cwnd,
            "startup": self.startup,
            "cc": self.cc,
            "pages": self.pages,
            "objects": self.objects,
        }

    def cc_decisions(self) -> pl.DataFrame:
        """``cc`` with one row per decision (``flow``, ``time_s``, ``decision``) and one
        column per metric (TCP Vienna: ``sent``, ``size``, ``loss_estimate``, ``srtt_s``,
        ``alpha``, ``beta``, ``gamma``, ``model_b``, ``model_b_max``)."""
        if self.cc.is_empty():
            return pl.DataFrame({"flow": [], "time_s": [], "decision": []},
                                schema={"flow": pl.String, "time_s": pl.Float64, "decision": pl.UInt32})
        return self.cc.pivot(on="metric", index=["flow", "time_s", "decision"], values="value").sort(["flow", "decision"])

    def flow_names(self) -> list[str]:
        """Flow names in configuration order (trace tables refer to flows by index):
        the explicit flows, then each replica's copies."""
        from .replicas import flow_names

        return flow_names(self.config)

    def packet_events(self) -> pl.DataFrame:
        """``packets`` with names: ``time_s``, ``event`` (``+ - d r``), ``link`` and
        ``flow`` names, ``kind`` (``data``/``ack``/``udp``)."""
        p = self.packets
        links = self.links["link"].to_list()
        flows = self.flow_names()
        link_map = pl.DataFrame({"link": pl.Series(range(len(links)), dtype=pl.UInt32), "link_name": links})
        flow_map = pl.DataFrame({"flow": pl.Series(range(len(flows)), dtype=pl.UInt32), "flow_name": flows})
        kinds = pl.DataFrame({"kind": pl.Series(list(KIND_NAMES), dtype=pl.UInt8), "kind_name": list(KIND_NAMES.values())})
        out = (
            p.join(link_map, on="link", how="left", maintain_order="left")
            .join(flow_map, on="flow", how="left", maintain_order="left")
            .join(kinds, on="kind", how="left", maintain_order="left")
        )
        return out.select(
            (pl.col("time_ns").cast(pl.Float64) * 1e-9).alias("time_s"),
            pl.col("time_ns"),
            pl.col("event").replace_strict(_EVENTS, default=None, return_dtype=pl.String).alias("event"),
            pl.col("link").alias("link_index"),
            pl.col("link_name").alias("link"),
            pl.col("flow").alias("flow_index"),
            pl.col("flow_name").alias("flow"),
            pl.col("kind_name").alias("kind"),
            "seqno",
            "size",
            "uid",
            "low_prio",
        )


def loss_counters(flows: pl.DataFrame) -> pl.DataFrame:
    """The TCP flows' loss-recovery counters summed per flow group (a flow ``g.3`` belongs
    to group ``g``), one row per group that has any nonzero counter."""
    tcp = flows.filter(pl.col("transport") == "tcp")
    if not tcp.height:
        return pl.DataFrame(schema={"group": pl.String, **{c: pl.UInt64 for c in LOSS_COUNTERS}})
    g = (tcp.with_columns(pl.col("flow").str.replace(r"\.\d+$", "").alias("group"))
         .group_by("group", maintain_order=True).agg([pl.col(c).sum() for c in LOSS_COUNTERS]))
    return g.filter(pl.sum_horizontal([pl.col(c) for c in LOSS_COUNTERS]) > 0)


def transfer_loss_counters(transfers: pl.DataFrame) -> pl.DataFrame:
    """The transfers' loss-recovery counters summed per flow group and round (the first
    transfer of a connection, the second after idle, ...), one row per (group, round)
    with any nonzero counter; ``retransmits`` and ``timeouts`` are TCPRetransSegs and
    TCPTimeouts."""
    cols = ["retransmits", "timeouts", *TRANSFER_COUNTERS]
    if not transfers.height:
        return pl.DataFrame(schema={"group": pl.String, "round": pl.UInt32, **{c: pl.UInt64 for c in cols}})
    g = (transfers.with_columns(pl.col("flow").str.replace(r"\.\d+$", "").alias("group"))
         .group_by("group", "round", maintain_order=True).agg([pl.col(c).sum() for c in cols]))
    return g.filter(pl.sum_horizontal([pl.col(c) for c in cols]) > 0)
