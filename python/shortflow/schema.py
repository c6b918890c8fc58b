"""The scenario-file schema: pydantic v2 models of what a researcher writes in TOML.

The models only *validate and normalise* (unit strings become SI numbers, shorthands
become tables); :mod:`shortflow.expand` turns a validated scenario into the core's
``SimConfig`` JSON. Every model forbids unknown fields and names the nearest valid one.
See ``docs/scenarios.md`` for the reference.

Types are **strict**: an integer field takes an integer only (``count = true`` or
``count = 2.0`` is an error, not 1 or 2), a boolean field takes ``true``/``false`` only
(``stop_when_done = "yes"`` is an error), a list takes a TOML array. Integers are bounded
by the core's types (most knobs are 32-bit unsigned: at most 4294967295), seeds by
:data:`MAX_SEED`. Units and their ranges are in :mod:`shortflow.units`. No value is
coerced silently.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (
    BaseModel,
    TypeAdapter,
    ValidationError,
    StrictInt,
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from . import errors
from .units import I32_MAX, MAX_SEED, U32_MAX, UnitError, parse_rate, parse_size, parse_time  # limits re-exported

# --- value types ------------------------------------------------------------------


def _unit(fn, **kw):
    def v(x: Any) -> Any:
        try:
            return fn(x, **kw)
        except UnitError as e:
            raise ValueError(e.message) from None

    return v


#: A duration (seconds) written with a unit: "50ms"; bare 0 allowed.
Time = Annotated[float, BeforeValidator(_unit(parse_time))]
#: A strictly positive duration.
PosTime = Annotated[float, BeforeValidator(_unit(parse_time, allow_zero=False))]
#: A rate (bits/s) written with a unit: "1.6Mb", "10Mbps".
Rate = Annotated[float, BeforeValidator(_unit(parse_rate))]
#: A size (bytes) written with a unit: "30KB".
Size = Annotated[int, BeforeValidator(_unit(parse_size))]


def _bytes(x: Any) -> Any:
    """Header/packet sizes: a plain integer is bytes (as in ns-2), or a size string."""
    if isinstance(x, bool):
        raise ValueError("expected a number of bytes or a size such as '1000B'")
    if isinstance(x, int):
        if x <= 0:
            raise ValueError("must be greater than zero")
        return x
    try:
        return parse_size(x)
    except UnitError as e:
        raise ValueError(e.message) from None


#: A byte count given as a plain integer (ns-2 style) or a size string (at most u32).
Bytes = Annotated[int, BeforeValidator(_bytes), Field(le=U32_MAX)]
#: Integers: strict (no bool, no float, no string) and within the core's u32.
PosInt = Annotated[StrictInt, Field(ge=1, le=U32_MAX)]
NonNegInt = Annotated[StrictInt, Field(ge=0, le=U32_MAX)]
I32 = Annotated[StrictInt, Field(ge=-I32_MAX - 1, le=I32_MAX)]
#: A seed: 0 <= seed <= 2^63 - 1 (strict integer).
Seed = Annotated[StrictInt, Field(ge=0, le=MAX_SEED)]
_SEED: TypeAdapter[int] = TypeAdapter(Seed)
#: Names of flow groups, cross groups, gateways: they become node and flow names.
Name = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$", max_length=64)]
Variant = Literal["tahoe", "reno", "newreno"]


def _network(x: Any) -> Any:
    if not isinstance(x, str):
        raise ValueError("expected an IPv4 network such as '10.2.0.0/24'")
    try:
        return str(ipaddress.IPv4Network(x, strict=True))
    except ValueError as e:
        raise ValueError(f"not an IPv4 network such as '10.2.0.0/24' ({e})") from None


def _address(x: Any) -> Any:
    if not isinstance(x, str):
        raise ValueError("expected an IPv4 address such as '10.2.0.5'")
    try:
        return str(ipaddress.IPv4Address(x))
    except ValueError:
        raise ValueError("not an IPv4 address such as '10.2.0.5'") from None


#: An IPv4 network in CIDR notation.
Network = Annotated[str, BeforeValidator(_network)]
#: A dotted IPv4 address.
Address = Annotated[str, BeforeValidator(_address)]


def check_seed(value: Any, where: str = "seed") -> int:
    """A seed given outside a scenario file (``--seed``, ``Scenario.run(seed=...)``),
    checked by the same :data:`Seed` type as ``seeds = [...]``. Raises
    :class:`~shortflow.errors.ScenarioError` naming ``where`` and the value."""
    try:
        return _SEED.validate_python(value)
    except ValidationError as e:
        problems = errors.from_validation_error(e, value, base_path=where)
        for p in problems:
            if p.message.startswith("must be"):
                p.message = f"out of range: a seed is an integer from 0 to {MAX_SEED} (2^63 - 1)"
        raise errors.ScenarioError(None, problems) from None


class Model(BaseModel):
    """Base: unknown fields are errors that name the closest valid field."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False, strict=True)

    #: Non-table shorthands a model accepts, converted by `_shorthand`.
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        return data

    @model_validator(mode="before")
    @classmethod
    def _check_fields(cls, data: Any) -> Any:
        data = cls._shorthand(data)
        if isinstance(data, dict):
            valid = list(cls.model_fields)
            unknown = [key for key in data if key not in cls.model_fields]
            if unknown:
                # One is reported: a misspelt field before the ones it explains (with
                # `kinds = "red"`, a defaulted DropTail finds RED's `thresh` unknown too).
                key = next((k for k in unknown if isinstance(k, str) and errors.suggest(k, valid)), unknown[0])
                raise PydanticCustomError(
                    "unknown_field",
                    "unknown field {field!r}",
                    {"field": key, "value": data[key], "valid": valid},
                )
        return data


def _tagged(default: str | None = None, aliases: dict[str, str] | None = None):
    """A discriminator reading ``kind`` (with a default and alias spellings); strings
    are accepted as shorthand for ``{kind = "..."}``."""
    aliases = aliases or {}

    def tag(v: Any) -> str | None:
        if isinstance(v, dict):
            k = v.get("kind", default)
        elif isinstance(v, str):
            k = v
        elif isinstance(v, BaseModel):
            k = getattr(v, "kind", None)
        elif isinstance(v, int) and not isinstance(v, bool) and default is not None:
            k = default
        else:
            return None
        if not isinstance(k, str):
            return None
        return aliases.get(k, k)

    return Discriminator(tag)


class KindModel(Model):
    """A model chosen by its ``kind``: a bare string is shorthand for ``{kind = "..."}``."""

    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"kind": data}
        return data


# --- queues -----------------------------------------------------------------------


#: Which packet a full queue drops (``victim``; core ``VictimRule``).
Victim = Literal["tail", "front", "random", "low_priority_first"]


class AckFilterStage(KindModel):
    """Ack filtering: an arriving ack removes the queued acks of its connection with a
    smaller ack number."""

    kind: Literal["ack_filter"]
    #: ns-2 ``replace_head_``: equal ack numbers go too, and the new ack takes the place
    #: of the oldest one removed (default false).
    replace_head: Optional[bool] = None


class AcksFirstStage(KindModel):
    """Acks-first scheduling: the oldest queued ack is sent before any data packet."""

    kind: Literal["acks_first"]


Stage = Annotated[
    Union[Annotated[AckFilterStage, Tag("ack_filter")], Annotated[AcksFirstStage, Tag("acks_first")]],
    _tagged(None),
]


def _one_stage_per_kind(stages: list[Any]) -> list[Any]:
    """A queue's stages: each kind at most once (as the core requires)."""
    first: dict[str, int] = {}
    for i, st in enumerate(stages):
        if st.kind in first:
            raise PydanticCustomError(
                "conflict",
                f"stage '{st.kind}' is listed twice (stages[{first[st.kind]}] and stages[{i}]); each kind at most "
                "once per queue", {"value": st.kind})
        first[st.kind] = i
    return stages


#: Optional queue stages (``stages = ["acks_first", { kind = "ack_filter" }]``).
Stages = Annotated[list[Stage], AfterValidator(_one_stage_per_kind)]


class DropTailQueue(KindModel):
    """ns-2 ``Queue/DropTail``. ``queue = 10`` is shorthand for ``{kind = "droptail", limit = 10}``."""

    kind: Literal["droptail", "drop_tail"] = "droptail"
    #: ``limit_`` in packets (ns-2 default 50).
    limit: Optional[PosInt] = None
    #: Which packet an overflow drops (default "tail": the arrival; "front" = ns-2 ``drop_front_``).
    victim: Optional[Victim] = None
    stages: Optional[Stages] = None

    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, int) and not isinstance(data, bool):
            return {"kind": "droptail", "limit": data}
        return super()._shorthand(data)


class RedQueue(KindModel):
    """ns-2 ``Queue/RED`` with ns-2.35 names; omitted knobs keep the ns-2.35 defaults."""

    kind: Literal["red"]
    limit: Optional[PosInt] = None
    thresh: Optional[Annotated[float, Field(ge=0)]] = None
    maxthresh: Optional[Annotated[float, Field(ge=0)]] = None
    q_weight: Optional[float] = None
    linterm: Optional[Annotated[float, Field(gt=0)]] = None
    gentle: Optional[bool] = None
    wait: Optional[bool] = None
    bytes: Optional[bool] = None
    queue_in_bytes: Optional[bool] = None
    mean_pktsize: Optional[Bytes] = None
    setbit: Optional[bool] = None
    drop_tail: Optional[bool] = None
    drop_front: Optional[bool] = None
    drop_rand: Optional[bool] = None
    use_mark_p: Optional[bool] = None
    mark_p: Optional[Annotated[float, Field(ge=0, le=1)]] = None
    #: ``targetdelay_`` (a time, e.g. "5ms").
    targetdelay: Optional[PosTime] = None
    idle_pktsize: Optional[Bytes] = None
    cautious: Optional[Annotated[StrictInt, Field(ge=0, le=3)]] = None
    #: ns-2 ``ns1_compat_``: do not reset the drop count after a forced drop.
    ns1_compat: Optional[bool] = None
    #: Victim of forced drops; omitted: from ``drop_front`` / ``drop_rand``, else "tail".
    victim: Optional[Victim] = None
    stages: Optional[Stages] = None

    @model_validator(mode="after")
    def _victim_one_way(self) -> "RedQueue":
        flags = {k: True for k in ("drop_front", "drop_rand") if getattr(self, k)}
        if self.victim is not None and flags:
            raise PydanticCustomError(
                "conflict",
                "give the victim rule one way: 'victim' or ns-2's drop_front / drop_rand, not both",
                {"value": {"victim": self.victim, **flags}})
        return self


class DropPriorityQueue(KindModel):
    """Drop-tail FIFO dropping low-priority packets first (TCP Fast Start)."""

    kind: Literal["drop_priority", "droppriority"]
    limit: Optional[PosInt] = None
    stages: Optional[Stages] = None


Queue = Annotated[
    Union[
        Annotated[DropTailQueue, Tag("droptail")],
        Annotated[RedQueue, Tag("red")],
        Annotated[DropPriorityQueue, Tag("drop_priority")],
    ],
    _tagged("droptail", {"drop_tail": "droptail", "droppriority": "drop_priority"}),
]

# --- topology ---------------------------------------------------------------------


class LinkSpec(Model):
    """A duplex link's parameters (both directions alike unless ``reverse_rate``,
    ``reverse_delay`` or ``reverse_queue`` give the reverse direction its own: an
    asymmetric access link, thesis ch. 9)."""

    rate: Rate
    delay: Time
    queue: Optional[Queue] = None
    reverse_queue: Optional[Queue] = None
    #: Rate of the reverse direction (default: ``rate``).
    reverse_rate: Optional[Rate] = None
    #: Propagation delay of the reverse direction (default: ``delay``).
    reverse_delay: Optional[Time] = None
    #: Uniform random loss: probability that a packet crossing the link is lost (ns-2
    #: ``ErrorModel``; P4 Fig. 3). Default 0.
    loss: Optional[Annotated[float, Field(ge=0, lt=1)]] = None
    #: Loss probability of the reverse direction (default: ``loss``).
    reverse_loss: Optional[Annotated[float, Field(ge=0, lt=1)]] = None


class Dumbbell(Model):
    """Two routers ``r1`` and ``r2`` joined by the bottleneck; every connection gets its
    own pair of hosts (``<group>.s<i>`` on ``r1``, ``<group>.d<i>`` on ``r2``)."""

    kind: Literal["dumbbell"]
    bottleneck: LinkSpec
    access: LinkSpec
    #: Access links of the destination hosts, when they differ from ``access``.
    dst_access: Optional[LinkSpec] = None


class Chain(Model):
    """``routers`` routers ``r1 .. rK`` in a line, K-1 bottleneck hops (parking lot)."""

    kind: Literal["chain"]
    routers: Annotated[int, Field(ge=2, le=1000)]
    #: Parameters of every hop (unless ``hops`` lists them one by one).
    bottleneck: Optional[LinkSpec] = None
    #: Per-hop parameters, hop 1 = r1->r2; exactly ``routers - 1`` entries.
    hops: Optional[list[LinkSpec]] = None
    access: LinkSpec
    dst_access: Optional[LinkSpec] = None

    @model_validator(mode="after")
    def _hops(self) -> "Chain":
        if self.hops is None and self.bottleneck is None:
            raise ValueError("give 'bottleneck' (same for every hop) or 'hops' (one table per hop)")
        if self.hops is not None and len(self.hops) != self.routers - 1:
            raise ValueError(f"'hops' has {len(self.hops)} entries but {self.routers} routers make {self.routers - 1} hops")
        return self


class ExplicitLink(LinkSpec):
    src: str
    dst: str
    #: Create the reverse direction too (ns-2 ``duplex-link``).
    duplex: bool = True


class Explicit(Model):
    """Hand-written nodes and links; flows name their ``src`` and ``dst`` nodes."""

    kind: Literal["explicit"]
    nodes: Annotated[list[str], Field(min_length=2)]
    links: Annotated[list[ExplicitLink], Field(min_length=1)]


class TransitStub(Model):
    """A GT-ITM-style transit-stub graph (``shortflow.topogen``; P3 §5.2, spec A.13.2):
    transit routers ``t<D>.<i>``, stub nodes ``s<D>.<C>.<k>`` with hierarchical addresses
    ``10.D.C.k+1`` (a /24 is one stub domain), every link at ``rate`` with a delay from
    the generator, plus a ``server`` node on transit router ``server_at``."""

    kind: Literal["transit_stub"]
    #: P3's networks: 200 = 4 transit domains x 2 routers x (1 + 3 stubs x 8 nodes),
    #: 600 = 4 x 6 x (1 + 3 x 8). The four counts below override the preset's.
    size: Optional[Literal[200, 600]] = None
    transit_domains: Optional[Annotated[StrictInt, Field(ge=1, le=250)]] = None
    transit_nodes: Optional[Annotated[StrictInt, Field(ge=1, le=250)]] = None
    stubs_per_transit: Optional[Annotated[StrictInt, Field(ge=0, le=250)]] = None
    stub_nodes: Optional[Annotated[StrictInt, Field(ge=1, le=250)]] = None
    #: Bandwidth of every link (P3: "a single value for all links").
    rate: Rate
    queue: Optional[Queue] = None
    #: Link delays: "euclidean" (edge length x ``ms_per_unit``, as ns-2's GT-ITM converter)
    #: or "uniform" (drawn from ``uniform``).
    delay: Literal["euclidean", "uniform"] = "euclidean"
    ms_per_unit: Optional[Annotated[float, Field(gt=0, le=1e6)]] = None
    uniform: Optional[Annotated[list[PosTime], Field(min_length=2, max_length=2)]] = None
    #: Seed of the graph (not the run's seed: every run of a scenario uses one graph).
    graph_seed: Annotated[StrictInt, Field(ge=0, le=2**63 - 1)] = 1
    #: Transit router the server attaches to (P3: "near core routers").
    server_at: str = "t0.0"
    #: The server's link: this delay, and ``server_rate`` (default: ``rate``, P3's single
    #: bandwidth for all links).
    server_delay: PosTime = 0.001
    server_rate: Optional[Rate] = None

    @model_validator(mode="after")
    def _delays(self) -> "TransitStub":
        if self.uniform is not None:
            if self.delay != "uniform":
                raise ValueError("'uniform' applies to delay = \"uniform\" only")
            if self.uniform[0] > self.uniform[1]:
                raise ValueError(f"'uniform' must be [low, high] with low <= high, got {self.uniform}")
        if self.ms_per_unit is not None and self.delay != "euclidean":
            raise ValueError("'ms_per_unit' applies to delay = \"euclidean\" only")
        return self

    def params(self) -> Any:
        """The generator's parameters (``topogen.TransitStubParams``)."""
        from .topogen import TransitStubParams

        preset = {None: {}, 200: {"transit_nodes": 2}, 600: {"transit_nodes": 6}}[self.size]
        kw: dict[str, Any] = {"transit_domains": 4, "stubs_per_transit": 3, "stub_nodes": 8, **preset}
        for k in ("transit_domains", "transit_nodes", "stubs_per_transit", "stub_nodes"):
            v = getattr(self, k)
            if v is not None:
                kw[k] = v
        kw["delay"] = self.delay
        if self.ms_per_unit is not None:
            kw["ms_per_unit"] = self.ms_per_unit
        if self.uniform is not None:
            kw["uniform_ms"] = (self.uniform[0] * 1000, self.uniform[1] * 1000)
        return TransitStubParams(seed=self.graph_seed, **kw)


Topology = Annotated[
    Union[Annotated[Dumbbell, Tag("dumbbell")], Annotated[Chain, Tag("chain")], Annotated[Explicit, Tag("explicit")],
          Annotated[TransitStub, Tag("transit_stub")]],
    _tagged(None, {"parking_lot": "chain", "parkinglot": "chain", "transitstub": "transit_stub"}),
]

# --- TCP --------------------------------------------------------------------------

#: Scenario name -> SimConfig name, where they differ (times carry `_s` in the core).
TCP_RENAMES = {
    "tcp_tick": "tcp_tick_s",
    "minrto": "minrto_s",
    "maxrto": "maxrto_s",
    "rtxcur_init": "rtxcur_init_s",
    "overhead": "overhead_s",
    "boot_time": "boot_time_s",
}


class Ns2Cc(KindModel):
    """ns-2.35's window rule (``opencwnd`` / ``slowdown``)."""

    kind: Literal["ns2"]


class SenderAdaptationCc(KindModel):
    """Thesis ch. 9 sender adaptation (ns-2.35 ``Agent/TCP/Newreno/Asym``): the window
    grows per segment acknowledged, bursts of ``tcp.maxburst`` segments are paced
    ``maxburst x srtt / window`` apart; data carries the tcp-asym header an ACC sink reads."""

    kind: Literal["sender_adaptation"]
    #: ``g_``: gain of the fine-grained smoothed RTT (default 0.125).
    gain: Optional[Annotated[float, Field(gt=0, le=1)]] = None


class ViennaCc(KindModel):
    """TCP Vienna (P4, size-based congestion control): NewReno whose additive increase,
    decrease factor and slow-start step follow the transfer's size through a
    throughput model (spec fairshare-and-sizebased part B; defaults there)."""

    kind: Literal["vienna"]
    #: ``sent`` (TCP-V2: data sent so far, default) or ``known`` (TCP-V1: the size).
    size: Optional[Literal["sent", "known"]] = None
    #: ``literal`` (Eq. 4 as printed, default) or ``doubling``.
    schedule: Optional[Literal["literal", "doubling"]] = None
    #: M of Eq. 4 (segments; default 600).
    max_interval: Optional[Annotated[int, Field(ge=1, le=U32_MAX)]] = None
    #: E[W] generalisation: ``f`` (default) or ``p2``.
    window_model: Optional[Literal["f", "p2"]] = None
    #: Cross every alpha with every beta instead of P4's pairs.
    full_grid: Optional[bool] = None
    #: Weight of L in p = (a L + (1 - a) R) / N (default 0.75).
    loss_weight: Optional[Annotated[float, Field(ge=0, le=1)]] = None
    #: Segments per ack the model assumes: 1 or 2 (default 2, delayed acks).
    model_b: Optional[Literal[1, 2]] = None
    #: ns-2 compatibility: the first decrease halves whatever beta is.
    ns2_first_decrease_halves: Optional[bool] = None


class LinuxRenoCc(KindModel):
    """Linux's Reno (``tcp_reno_cong_avoid``): slow start by segments acknowledged (ABC),
    congestion avoidance one segment per window, ssthresh max(cwnd/2, 2)."""

    kind: Literal["linux_reno"]


class CubicCc(KindModel):
    """CUBIC as Linux's tcp_cubic.c (RFC 9438): beta 0.7, C 0.4, fast convergence,
    Reno-friendly region (HyStart is a start-up policy)."""

    kind: Literal["cubic"]


#: The congestion-control rule (``tcp.cc``).
Cc = Annotated[
    Union[Annotated[Ns2Cc, Tag("ns2")], Annotated[SenderAdaptationCc, Tag("sender_adaptation")],
          Annotated[ViennaCc, Tag("vienna")], Annotated[LinuxRenoCc, Tag("linux_reno")],
          Annotated[CubicCc, Tag("cubic")]],
    _tagged(None, {"sa": "sender_adaptation"}),
]


class Recovery(Model):
    """Loss recovery (``tcp.recovery``): ``kind`` "ns2" (ns-2.35's logic of
    ``tcp.variant``, default), "rfc6675" (RFC 6675 SACK recovery) or "rack_tlp" (RFC 8985
    RACK-TLP, Linux defaults); the SACK kinds need ``tcp.sack = true``. ``prr`` (SACK
    kinds only): RFC 6937 proportional rate reduction during fast recovery. ``frto``
    (SACK kinds only): F-RTO after an RTO (RFC 5682 as Linux) and undoing a spurious
    RTO's cut. ``dsack_reo_wnd`` (``rack_tlp`` only): DSACKs grow RACK's reordering
    window (Linux ``reo_wnd_steps``)."""

    kind: Optional[Literal["ns2", "rfc6675", "rack_tlp"]] = None
    prr: Optional[bool] = None
    frto: Optional[bool] = None
    dsack_reo_wnd: Optional[bool] = None


class Ns2Rto(KindModel):
    """ns-2.35's tick-based RTT estimator and RTO (the ``tcp_tick``, ``minrto``, ... knobs)."""

    kind: Literal["ns2"]


class LinuxRto(KindModel):
    """Linux's RTT estimator and RTO (RFC 6298 as ``tcp_rtt_estimator`` computes it, µs)."""

    kind: Literal["linux"]
    #: ``TCP_RTO_MIN``, the floor of the variance term (default "200ms").
    min: Optional[Time] = None
    #: ``TCP_RTO_MAX`` (default "120s").
    max: Optional[PosTime] = None
    #: ``TCP_TIMEOUT_INIT``, the RTO before the first sample (default "1s").
    init: Optional[PosTime] = None

    def to_core(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        for k in ("min", "max", "init"):
            if k in d:
                d[k + "_s"] = d.pop(k)
        return d


#: The RTT estimator / RTO rule (``tcp.rto``).
Rto = Annotated[Union[Annotated[Ns2Rto, Tag("ns2")], Annotated[LinuxRto, Tag("linux")]], _tagged(None)]


class TcpOptions(Model):
    """ns-2 ``Agent/TCP`` knobs (ns-2 names without the trailing underscore). Anything
    omitted keeps the ns-2.35 default documented in ``config.rs``."""

    variant: Optional[Variant] = None
    window: Optional[PosInt] = None
    window_init: Optional[PosInt] = None
    maxcwnd: Optional[NonNegInt] = None
    packet_size: Optional[Bytes] = None
    header_size: Optional[NonNegInt] = None
    ssthresh: Optional[NonNegInt] = None
    tcp_tick: Optional[PosTime] = None
    minrto: Optional[Time] = None
    maxrto: Optional[PosTime] = None
    rtxcur_init: Optional[PosTime] = None
    srtt_init: Optional[I32] = None
    rttvar_init: Optional[I32] = None
    t_srtt_bits: Optional[NonNegInt] = None
    t_rttvar_bits: Optional[NonNegInt] = None
    rttvar_exp: Optional[NonNegInt] = None
    maxburst: Optional[NonNegInt] = None
    numdupacks: Optional[PosInt] = None
    slow_start_restart: Optional[bool] = None
    restart_bugfix: Optional[bool] = None
    syn: Optional[bool] = None
    delay_growth: Optional[bool] = None
    singledup: Optional[NonNegInt] = None
    window_option: Optional[NonNegInt] = None
    increase_num: Optional[float] = None
    decrease_num: Optional[Annotated[float, Field(gt=0, le=1)]] = None
    overhead: Optional[Time] = None
    #: ns-2 ``boot_time_`` (where between clock ticks the host booted); omitted: drawn
    #: from the flow's own random stream.
    boot_time: Optional[Time] = None
    #: ns-2 ``ecn_``: data sent ECN-capable, the window halved (at most once per window)
    #: on an ECN echo.
    ecn: Optional[bool] = None
    #: Congestion-control rule: "ns2" (default) or { kind = "sender_adaptation" } (needs
    #: ``maxburst`` >= 1; thesis 4).
    cc: Optional[Cc] = None
    #: SACK blocks (and DSACK) on the sink's acks (RFC 2018/2883); default false.
    sack: Optional[bool] = None
    #: At most this many SACK blocks per ack, 1 to 4 (default 3: RFC 2018 with timestamps).
    sack_max_blocks: Optional[Annotated[StrictInt, Field(ge=1, le=4)]] = None
    #: Loss recovery: { kind = "ns2" | "rfc6675" | "rack_tlp", prr = bool }.
    recovery: Optional[Recovery] = None
    #: RTT estimator and RTO: "ns2" (default) or { kind = "linux" }.
    rto: Optional[Rto] = None
    #: TCP timestamps (12 option bytes when sizes derive from ``mtu``).
    timestamps: Optional[bool] = None
    #: Path MTU: derives packet_size, header_size and the sink's ack_size left unset.
    mtu: Optional[Annotated[int, Field(ge=1, le=U32_MAX)]] = None
    #: The sender's socket buffer (bytes, whole segments of it count): the application's
    #: writes wait while unacknowledged + unsent data fill it. Omitted: none (ns-2).
    sndbuf: Optional[Bytes] = None
    #: A named set of defaults for every tcp/sink/startup field left out: "linux".
    profile: Optional[Literal["linux"]] = None

    def to_core(self) -> dict[str, Any]:
        d = {TCP_RENAMES.get(k, k): v for k, v in self.model_dump(exclude_none=True).items()}
        if self.rto is not None:
            d["rto"] = self.rto.to_core() if isinstance(self.rto, LinuxRto) else {"kind": "ns2"}
        return d


class EveryPacketAcks(KindModel):
    """One ack per segment (ns-2 ``Agent/TCPSink``)."""

    kind: Literal["every_packet"]


class DelayedAcks(KindModel):
    """ns-2 ``Agent/TCPSink/DelAck``: hold an in-order segment's ack up to ``interval`` or
    until the next segment."""

    kind: Literal["delayed"]
    #: ``interval_`` (default "100ms").
    interval: Optional[PosTime] = None


class EveryDAcks(KindModel):
    """Ack every ``d``-th in-order segment, or when ``interval`` has passed since the
    first unacked one."""

    kind: Literal["every_d"]
    d: PosInt
    interval: Optional[PosTime] = None


class AccAcks(KindModel):
    """Ack congestion control (thesis ch. 9 ACC, ns-2.35 ``TCPSink/Asym``): the delayed-ack
    factor d doubles on an echoed ECN mark (at most once per RTT, up to ``d_max``) and
    falls by 1 per mark-free RTT (down to 1). Use with ``ect_acks = true`` and senders with
    ``tcp.cc = "sender_adaptation"``."""

    kind: Literal["acc"]
    #: Initial d (default 2, the thesis; ns-2.35 starts at 1).
    d_init: Optional[PosInt] = None
    #: Upper bound on d (default 25, the author's asym.tcl; ns-2.35's default is 5).
    d_max: Optional[PosInt] = None
    #: Delayed-ack timer (default "100ms").
    interval: Optional[PosTime] = None

    @model_validator(mode="after")
    def _bounds(self) -> "AccAcks":
        lo, hi = self.d_init or 2, self.d_max or 25
        if lo > hi:
            raise PydanticCustomError("conflict", f"d_init = {lo} is above d_max = {hi}",
                                      {"value": lo})
        return self


class LinuxAcks(KindModel):
    """Linux's receiver: quick-acks on a fresh connection (init_rcv_wnd / 2, at most
    ``quickacks_max``) and after an idle period longer than the receiver's RTO, then an ack
    every second segment or on the adaptive delayed-ack timer (from ``ato_min``); at once
    for out-of-order data, a filled hole or a duplicate."""

    kind: Literal["linux"]
    #: ``TCP_ATO_MIN`` (default "40ms").
    ato_min: Optional[PosTime] = None
    #: Bound on the delayed-ack timer (default "500ms").
    delack_max: Optional[PosTime] = None
    #: ``TCP_MAX_QUICKACKS`` (default 16).
    quickacks_max: Optional[PosInt] = None
    #: Initial receive window in segments (default 44: Linux's 64 KB since 4.19).
    init_rcv_wnd: Optional[PosInt] = None
    #: The receiver's minimum and initial RTO (defaults "200ms", "1s").
    rto_min: Optional[Time] = None
    rto_init: Optional[PosTime] = None


#: The sink's ack rule (``ack_policy``); a string is shorthand for ``{ kind = "..." }``.
AckPolicy = Annotated[
    Union[
        Annotated[EveryPacketAcks, Tag("every_packet")],
        Annotated[DelayedAcks, Tag("delayed")],
        Annotated[EveryDAcks, Tag("every_d")],
        Annotated[AccAcks, Tag("acc")],
        Annotated[LinuxAcks, Tag("linux")],
    ],
    _tagged(None),
]


class SinkReader(Model):
    """A receiving application that reads slowly (an extension; ns-2 has none): it reads
    in-order data at ``rate`` from a receive buffer of ``buffer``; acks advertise the
    buffer's free room in whole segments and the sender keeps within it (thesis
    §7.1.2.1, Fig. 7.3(a): a connection throttled by its receiver)."""

    #: Receive buffer (bytes of payload); at least one segment of the flow's packet_size.
    buffer: Annotated[int, BeforeValidator(_unit(parse_size)), Field(ge=1)]
    #: The application's read rate (bits of payload per second), e.g. "8Kb".
    rate: Annotated[float, BeforeValidator(_unit(parse_rate)), Field(gt=0, allow_inf_nan=False)]
    #: The application reads everything at once until this time, and at ``rate`` from
    #: then on (the client starts throttling the connection). Default 0.
    start: Optional[Time] = None

    def to_core(self) -> dict[str, Any]:
        d: dict[str, Any] = {"buffer_bytes": self.buffer, "rate_bps": self.rate}
        if self.start is not None:
            d["start_s"] = self.start
        return d


class SinkOptions(Model):
    """``Agent/TCPSink`` (or ``TCPSink/DelAck`` when ``delack = true``); ``ack_policy``
    chooses any ack rule instead of ``delack`` (giving it with ``delack = true`` is an
    error, checked after the scenario's and the group's ``sink`` are merged)."""

    delack: Optional[bool] = None
    delack_interval: Optional[PosTime] = None
    ack_size: Optional[Bytes] = None
    rfc2581_immediate_ack: Optional[bool] = None
    ack_policy: Optional[AckPolicy] = None
    #: Acks sent ECN-capable, so an ECN-marking RED queue marks them instead of dropping them.
    ect_acks: Optional[bool] = None
    #: ns-2 ``ts_echo_bugfix_``: acks echo the timestamp of the oldest unacknowledged segment.
    ts_echo_bugfix: Optional[bool] = None
    #: A slowly reading receiving application (``{ buffer = "8KB", rate = "8Kb" }``).
    reader: Optional[SinkReader] = None

    def to_core(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        if self.reader is not None:
            d["reader"] = self.reader.to_core()
        if "delack_interval" in d:
            d["delack_interval_s"] = d.pop("delack_interval")
        if "ack_policy" in d:
            for k in ("interval", "ato_min", "delack_max", "rto_min", "rto_init"):
                if k in d["ack_policy"]:
                    d["ack_policy"][k + "_s"] = d["ack_policy"].pop(k)
        return d


# --- start-up policies ------------------------------------------------------------


class Ns2Startup(KindModel):
    """Plain ns-2 behaviour (``windowInit_``, slow-start restart per the TCP knobs)."""

    kind: Literal["ns2"]


class IdleRestartStartup(KindModel):
    """Slow-start restart after an idle period >= RTO (the "ssr" schemes)."""

    kind: Literal["idle_restart"]


class NoRestartStartup(KindModel):
    """No restart: cwnd carries over idle periods (the "nssr" schemes)."""

    kind: Literal["no_restart"]


class SpandStartup(KindModel):
    """TCP/SPAND: ask the performance gateway, start in congestion avoidance at cwnd_opt."""

    kind: Literal["spand"]
    #: Gateway name (a ``[gateways.NAME]`` table; created with defaults when none is declared).
    gateway: Optional[Name] = None
    b: Optional[Annotated[float, Field(gt=0)]] = None
    shift: Optional[bool] = None
    pacing: Optional[bool] = None
    bucket_depth: Optional[PosInt] = None
    reuse_previous_cwnd: Optional[bool] = None
    infeasible_policy: Optional[Literal["eq2", "one"]] = None
    report: Optional[bool] = None
    max_window: Optional[NonNegInt] = None
    #: RTT sent with each W_c sample (and injection resolution): paper default
    #: ``fractional``; ``ticks`` and ``exact`` are ablations (scenarios/spand/common.md).
    rtt_report: Optional[Literal["fractional", "ticks", "exact"]] = None
    #: Ablation: floor each W_c sample (the paper's samples are real-valued).
    floor_samples: Optional[bool] = None
    #: ``loss_free`` (paper) or ``no_ca_sample`` (spec A10, ablation).
    end_sample: Optional[Literal["loss_free", "no_ca_sample"]] = None
    #: Ablation when false: the token bucket starts empty.
    bucket_starts_full: Optional[bool] = None
    #: Ablation (ours): a loss-free transfer reports at least the estimate it started from.
    no_decrease: Optional[bool] = None


class FastStartStartup(KindModel):
    """TCP Fast Start (thesis ch. 8): after an idle period reuse the cached window, paced in
    bursts, at low drop priority, with a penalty-free reset when the attempt fails."""

    kind: Literal["fast_start"]
    #: Mark the fast-start packets low drop priority (default true).
    priority_marking: Optional[bool] = None
    #: Augmented loss recovery (default true; false = the thesis's ``fs-pdrop-noflr``).
    fast_loss_recov: Optional[bool] = None
    #: Reset timer srtt_exact + 4 rttvar_exact (default true) or the RTO (false: "coarse").
    fine_reset_timer: Optional[bool] = None
    #: Burst pacing: at most this many back to back (default 4; 0 = no pacing).
    maxburst: Optional[NonNegInt] = None
    #: Cached state older than this is stale (default "300s").
    max_idle: Optional[PosTime] = None
    #: A new connection starts from its path entry's cache (default true).
    use_path_cache: Optional[bool] = None
    #: Open the window once per packet a new ack covers (ns-2 count_bytes_acked_, default true).
    count_acked: Optional[bool] = None

    def to_core(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        if "max_idle" in d:
            d["max_idle_s"] = d.pop("max_idle")
        return d


class FairShareStartup(KindModel):
    """Fair-share slow start (Yu & Newman, P3): the server starts a connection from what
    its live connections to the same destination group (``paths.prefix_len``) show: LISS,
    ISS, MISS, JS, or P3 §5.4's ``cached`` and ``averaged`` comparison methods."""

    kind: Literal["fair_share"]
    scheme: Literal["liss", "iss", "miss", "js", "cached", "averaged"]
    #: ssthresh without a steady connection in the group (packets, default 10: P3 §5).
    default_ssthresh: Optional[Annotated[int, Field(ge=2)]] = None
    #: Pace MISS's and JS's initial window over one RTT (default true).
    pacing: Optional[bool] = None
    #: R of the pacing: ``oldest`` (the group's oldest steady connection's srtt, default)
    #: or ``own`` (the connection's own srtt when it has a sample).
    pace_rtt: Optional[Literal["oldest", "own"]] = None
    #: The loose reading "ssthresh = w_o" instead of Eq. 2 (default false).
    plain_w_o: Optional[bool] = None
    #: Averaged method: sampling period (default 1 s), window (5 min), recomputation (1 min).
    avg_sample: Optional[PosTime] = None
    avg_window: Optional[PosTime] = None
    avg_update: Optional[PosTime] = None

    def to_core(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        for k in ("avg_sample", "avg_window", "avg_update"):
            if k in d:
                d[k + "_s"] = d.pop(k)
        return d


class LinuxStartup(KindModel):
    """Linux's start-up: restart after idle as ``tcp_cwnd_restart`` (cwnd halved per RTO
    idle, not below min(IW, cwnd)) when ``slow_start_after_idle`` (default true)."""

    kind: Literal["linux"]
    #: ``net.ipv4.tcp_slow_start_after_idle`` (default true).
    slow_start_after_idle: Optional[bool] = None
    #: Slow-start exit detector: "none" (default) or "hystart" (Linux's, tcp_cubic.c).
    exit: Optional[Literal["none", "hystart", "hystart_pp"]] = None


Startup = Annotated[
    Union[
        Annotated[Ns2Startup, Tag("ns2")],
        Annotated[IdleRestartStartup, Tag("idle_restart")],
        Annotated[NoRestartStartup, Tag("no_restart")],
        Annotated[SpandStartup, Tag("spand")],
        Annotated[FastStartStartup, Tag("fast_start")],
        Annotated[FairShareStartup, Tag("fair_share")],
        Annotated[LinuxStartup, Tag("linux")],
    ],
    _tagged(None, {"ssr": "idle_restart", "nssr": "no_restart"}),
]

# --- applications -----------------------------------------------------------------


class PageOptions(Model):
    """A Web page on a persistent connection (thesis ch. 8): the server sends ``html``; the
    client's pipelined request for the images leaves with the ack of the HTML's last segment
    and reaches the server ``request_gap`` after that ack; then the images (the round's file)."""

    html: Size
    #: Extra time of the request over the ack (its serialisation), default 0.
    request_gap: Time = 0.0

    @field_validator("html")
    @classmethod
    def _html(cls, v: int) -> int:
        if v < 1:
            raise ValueError("must be at least 1 byte")
        return v


class RoundsApp(Model):
    """Rounds of short transfers over long-lived connections (TCP/SPAND §6.2): in each
    round every connection of the group sends one file, starting uniformly within
    ``jitter`` around the round's centre."""

    kind: Literal["rounds"]
    #: File size per transfer (e.g. "30KB" = 30 000 bytes).
    size: Optional[Size] = None
    #: Per-connection sizes (mixed workloads): one entry per connection of the group.
    sizes: Optional[list[Size]] = None
    #: Number of rounds (at least 1).
    rounds: PosInt
    jitter: Time
    idle: Time
    first_center: Time
    #: Fixed round period (centre_k = first_center + k * period); omitted: the next round
    #: starts `idle` after the last transfer of this one finished.
    period: Optional[PosTime] = None
    #: Per-round sizes (one per round), e.g. a priming page then the measured one.
    round_sizes: Optional[list[Size]] = None
    #: Per-round start-window widths (one per round), replacing ``jitter``.
    round_jitters: Optional[list[Time]] = None
    #: Each download is a Web page: the HTML object, then the round's file (the images).
    page: Optional[PageOptions] = None

    @model_validator(mode="after")
    def _size(self) -> "RoundsApp":
        given = [k for k in ("size", "sizes", "round_sizes") if getattr(self, k) is not None]
        if len(given) > 1:
            raise PydanticCustomError(
                "conflict", "give one of 'size' (every transfer), 'sizes' (one per connection) or 'round_sizes' "
                "(one per round), not {given}", {"given": " and ".join(repr(g) for g in given),
                                                   "value": {g: getattr(self, g) for g in given}})
        if not given or (self.size is None and self.sizes == []):
            raise ValueError("give 'size' (every transfer), 'sizes' (one per connection) or 'round_sizes' (one per round)")
        for name in ("round_sizes", "round_jitters"):
            v = getattr(self, name)
            if v is not None and len(v) != self.rounds:
                raise PydanticCustomError(
                    "length", "{name} has {n} entries but there are {rounds} rounds: give one per round",
                    {"name": name, "n": len(v), "rounds": self.rounds, "value": v})
        return self


class FtpApp(Model):
    """Bulk transfer per connection; ``size`` omitted = infinite source."""

    kind: Literal["ftp"]
    start: Time = 0.0
    #: Connection i (0-based) starts at ``start + i * stagger``.
    stagger: Time = 0.0
    size: Optional[Size] = None
    #: Each connection starts uniformly in [start, start + start_jitter) (its own stream).
    start_jitter: Time = 0.0
    #: Flow groups whose every connection must complete its first download before these
    #: connections start; ``start`` then counts from that moment.
    start_after: list[Name] = Field(default_factory=list)
    #: Infinite sources only: tear each connection down at this time (it stops sending,
    #: cancels its timers and leaves its fair-share group) ...
    stop: Optional[Time] = None
    #: ... or this long after it started.
    duration: Optional[PosTime] = None

    @model_validator(mode="after")
    def _lifetime(self) -> "FtpApp":
        if self.stop is not None and self.duration is not None:
            raise PydanticCustomError("conflict", "give 'stop' or 'duration', not both",
                                      {"value": {"stop": self.stop, "duration": self.duration}})
        if (self.stop is not None or self.duration is not None) and self.size is not None:
            raise PydanticCustomError("conflict", "a lifetime ('stop'/'duration') needs an infinite source: drop 'size'",
                                      {"value": self.size})
        return self


class TelnetApp(Model):
    """ns-2 ``Application/Telnet`` per connection; ``interval = "0s"`` draws tcplib times."""

    kind: Literal["telnet"]
    interval: Time = 0.0
    start: Time = 0.0
    start_jitter: Time = 0.0


_PosFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class SurgeApp(Model):
    """SURGE-like Web users (P4 Figs. 4-6): each connection of the group is one user
    (server = the group's source, client = its destination); the user's requests travel
    on a request connection created beside it (``NAME.req.i``, client -> server, acks
    never delayed). Each object is a one-segment request, then the response, each on a
    fresh connection. Defaults: SURGE's distributions (spec fairshare-and-sizebased B.7.3)."""

    kind: Literal["surge"]
    #: Each user's first page starts uniformly in [start, start + start_jitter).
    start: Time = 0.0
    start_jitter: Time = 0.0
    #: No page starts at or after this time.
    stop: Optional[PosTime] = None
    #: Request size; default one segment.
    request: Optional[Size] = None
    #: Object sizes: lognormal body (parameters of ln bytes) ...
    size_mu: Annotated[float, Field(allow_inf_nan=False)] = 9.357
    size_sigma: _PosFloat = 1.318
    #: ... Pareto tail above ``tail_k`` (replacing lognormal draws there), capped at ``max_object``.
    tail_k: Size = 133_000
    tail_alpha: _PosFloat = 1.1
    max_object: Size = 10_000_000
    #: Objects per page: floor(Pareto(objects_k, objects_alpha)).
    objects_k: Annotated[float, Field(ge=1, allow_inf_nan=False)] = 1.0
    objects_alpha: _PosFloat = 2.43
    #: Active OFF time between a page's objects: Weibull(shape, scale).
    active_off_shape: _PosFloat = 1.46
    active_off_scale: PosTime = 0.382
    #: Think time between pages: Pareto(think_k, think_alpha).
    think_k: PosTime = 1.0
    think_alpha: _PosFloat = 1.5

    @field_validator("tail_k", "max_object", "request")
    @classmethod
    def _at_least_one(cls, v: Optional[int]) -> Optional[int]:
        if v is not None and v < 1:
            raise ValueError("must be at least 1 byte")
        return v

    @model_validator(mode="after")
    def _stop(self) -> "SurgeApp":
        if self.stop is not None and self.stop <= self.start + self.start_jitter:
            raise PydanticCustomError(
                "conflict", "stop ({stop} s) must be after every user's start (start + start_jitter = {last} s)",
                {"stop": self.stop, "last": self.start + self.start_jitter, "value": self.stop})
        return self

    def to_core(self, flows: list[str], request_flows: list[str]) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": "surge", "flows": flows, "request_flows": request_flows,
            "start_s": self.start, "start_jitter_s": self.start_jitter,
            "size_mu": self.size_mu, "size_sigma": self.size_sigma,
            "tail_k_bytes": float(self.tail_k), "tail_alpha": self.tail_alpha, "max_object_bytes": self.max_object,
            "objects_k": self.objects_k, "objects_alpha": self.objects_alpha,
            "active_off_shape": self.active_off_shape, "active_off_scale_s": self.active_off_scale,
            "think_k_s": self.think_k, "think_alpha": self.think_alpha,
        }
        if self.stop is not None:
            d["stop_s"] = self.stop
        if self.request is not None:
            d["request_bytes"] = self.request
        return d


def _at_least_one_byte(v: int) -> int:
    if v < 1:
        raise ValueError("must be at least 1 byte")
    return v


ObjSize = Annotated[int, BeforeValidator(_unit(parse_size)), AfterValidator(_at_least_one_byte)]


class FixedSize(KindModel):
    kind: Literal["fixed"]
    size: ObjSize


class ExponentialSize(KindModel):
    kind: Literal["exponential"]
    mean: ObjSize


class ParetoSize(KindModel):
    """Pareto with this mean and shape (> 1; scale = mean (shape - 1) / shape)."""

    kind: Literal["pareto"]
    mean: ObjSize
    shape: Annotated[float, Field(gt=1.0, allow_inf_nan=False)]


class UniformSize(KindModel):
    kind: Literal["uniform"]
    min: ObjSize
    max: ObjSize

    @model_validator(mode="after")
    def _order(self) -> "UniformSize":
        if self.max < self.min:
            raise PydanticCustomError("order", "max ({max}) must be at least min ({min})",
                                      {"max": self.max, "min": self.min, "value": self.max})
        return self


class LognormalSize(KindModel):
    """Lognormal with this median; ``sigma`` of the underlying normal."""

    kind: Literal["lognormal"]
    median: ObjSize
    sigma: Annotated[float, Field(ge=0.0, allow_inf_nan=False)]


SizeDistSpec = Annotated[
    Union[
        Annotated[FixedSize, Tag("fixed")],
        Annotated[ExponentialSize, Tag("exponential")],
        Annotated[ParetoSize, Tag("pareto")],
        Annotated[UniformSize, Tag("uniform")],
        Annotated[LognormalSize, Tag("lognormal")],
    ],
    _tagged(None),
]


class WebPageSpec(Model):
    """One page: the HTML and its inline images' sizes."""

    html: ObjSize
    images: list[ObjSize] = Field(default_factory=list)


class RandomPageSpec(Model):
    """Pages drawn from distributions (the application's own random stream): the HTML's
    size, each image's size, and the number of images (a count, or ``[min, max]``
    drawn uniformly)."""

    html: SizeDistSpec
    image: SizeDistSpec
    images: Union[NonNegInt, Annotated[list[NonNegInt], Field(min_length=2, max_length=2)]]

    @field_validator("images")
    @classmethod
    def _range(cls, v: Any) -> Any:
        if isinstance(v, list) and v[1] < v[0]:
            raise ValueError(f"[min, max] = [{v[0]}, {v[1]}]: max must be at least min")
        return v


#: Retrieval modes of a Web workload (thesis ch. 4-5): HTTP/1.0 sequential or concurrent,
#: persistent (one request at a time), GETLIST pipelining, GETALL.
WebMode = Literal["seq", "conc", "persistent", "getlist", "getall"]


class WebApp(Model):
    """Web page downloads (thesis ch. 4-5, spec part E): each connection of the group is a
    client-server host pair (server = the source host, client = the destination host);
    ``pages`` pages per pair, one after another, ``think`` apart."""

    kind: Literal["web"]
    mode: WebMode
    #: ``conc``: image connections open at once (default: every image of the page).
    parallel: Optional[PosInt] = None
    #: One fixed page: ``html`` with ``images`` inline images of size ``image`` ...
    html: Optional[ObjSize] = None
    images: Optional[NonNegInt] = None
    image: Optional[ObjSize] = None
    #: ... or fixed pages used in turn ...
    page_list: Optional[list[WebPageSpec]] = None
    #: ... or the pages of a HAR file (path relative to the scenario file) ...
    har: Optional[str] = None
    #: ... or pages drawn from distributions.
    random: Optional[RandomPageSpec] = None
    #: Pages per pair.
    pages: PosInt = 1
    #: Client think time between a page's last byte and the next page.
    think: Time = 0.0
    #: Server time between a request's arrival and its response.
    server_think: Time = 0.0
    #: Request size (payload; one packet client -> server).
    request: ObjSize = 300
    start: Time = 0.0
    #: Each pair's first page starts uniformly in [start, start + start_jitter).
    start_jitter: Time = 0.0
    #: Persistent modes: the server closes a connection idle this long; the next page
    #: opens a fresh one.
    idle_close: Optional[PosTime] = None
    #: A lost SYN or request is resent after this long, doubling per attempt.
    ctl_rto: PosTime = 3.0

    @model_validator(mode="after")
    def _pages(self) -> "WebApp":
        sources = [k for k in ("html", "page_list", "har", "random") if getattr(self, k) is not None]
        if len(sources) > 1:
            raise PydanticCustomError("conflict", "give one page source ('html' with 'images'/'image', 'page_list', "
                                      "'har' or 'random'), not {given}",
                                      {"given": " and ".join(repr(g) for g in sources), "value": sources})
        if not sources:
            raise ValueError("give the pages: 'html' (with 'images' and 'image'), 'page_list', 'har' or 'random'")
        if self.html is None and (self.images is not None or self.image is not None):
            raise PydanticCustomError("conflict", "'images'/'image' describe the page of 'html': give 'html' too",
                                      {"value": self.images if self.images is not None else self.image})
        if self.html is not None and (self.images or 0) > 0 and self.image is None:
            raise PydanticCustomError("needs", "'images = {n}' needs 'image' (the size of each)",
                                      {"n": self.images, "value": self.images})
        if self.page_list is not None and not self.page_list:
            raise PydanticCustomError("empty", "an empty page list: give at least one page", {"value": []})
        if self.parallel is not None and self.mode != "conc":
            raise PydanticCustomError("conflict", "'parallel' is for mode = \"conc\" (mode is {mode!r})",
                                      {"mode": self.mode, "value": self.parallel})
        if self.idle_close is not None and self.mode in ("seq", "conc"):
            raise PydanticCustomError("conflict", "'idle_close' is for the persistent modes (mode is {mode!r})",
                                      {"mode": self.mode, "value": self.idle_close})
        return self


class MuxStream(Model):
    """One object of a multiplexed connection: sendable from ``start`` (its request's
    arrival at the server), ``size`` bytes, ``priority`` (higher is more urgent)."""

    start: Time = 0.0
    size: ObjSize
    priority: Annotated[StrictInt, Field(ge=0, le=U32_MAX)] = 0


class MuxApp(Model):
    """Several object streams on one persistent connection, multiplexed WebMUX-style
    (thesis §7.1.2.2, ``traffic/webmux.rs``): the server writes the streams' data in
    chunks into the sender's socket buffer (``tcp.sndbuf``) as acks free room. An object
    is complete when its last byte reaches the client (the ``objects`` table)."""

    kind: Literal["mux"]
    streams: Annotated[list[MuxStream], Field(min_length=1)]
    #: Bytes written per turn of a stream, rounded up to whole segments; default one segment.
    chunk: Optional[ObjSize] = None
    #: "priority": the requested stream of the highest priority gets all freed room, equal
    #: priorities take turns; "round_robin": every requested stream takes turns.
    policy: Literal["priority", "round_robin"] = "priority"

    def to_core(self, flow: str) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": "mux", "flow": flow, "policy": self.policy,
                             "streams": [{"start_s": s.start, "bytes": s.size, "priority": s.priority} for s in self.streams]}
        if self.chunk is not None:
            d["chunk_bytes"] = self.chunk
        return d


App = Annotated[
    Union[
        Annotated[RoundsApp, Tag("rounds")],
        Annotated[FtpApp, Tag("ftp")],
        Annotated[TelnetApp, Tag("telnet")],
        Annotated[WebApp, Tag("web")],
        Annotated[SurgeApp, Tag("surge")],
        Annotated[MuxApp, Tag("mux")],
    ],
    _tagged(None),
]


Weight = Annotated[StrictInt, Field(ge=1, le=1000)]


class SetWt(Model):
    """A timed weight change of a TCP session's connections (thesis §7.1 ``setwt``)."""

    at: Time
    weights: list[Weight]


class SessionOptions(Model):
    """A TCP session (thesis ch. 6-7): the connections of a group that share a host pair
    (``conns_per_host``) send under one session: one window, one RTT estimator, one
    retransmission timer, integrated loss recovery with later acks, a connection scheduler."""

    #: "rr" (round robin, the thesis's default), "weighted" (smooth weighted round robin:
    #: slots in proportion to ``weights``, spread evenly) or "hrr" (the thesis's
    #: hierarchical round robin, Kalmanek-Kanakia-Keshav).
    scheduler: Optional[Literal["rr", "weighted", "hrr"]] = None
    #: Scheduling weight of each connection of a host pair (one per connection,
    #: ``conns_per_host`` entries), integers 1-1000; default 1 each.
    weights: Optional[list[Weight]] = None
    #: Timed ``setwt`` calls: at ``at`` the host pair's connections take ``weights``
    #: (one per connection), from the next scheduling decision on.
    setwt: Optional[list[SetWt]] = None
    #: Integrated loss recovery with later acks (rules 2 and 3); false = session-noilr.
    later_acks: Optional[bool] = None
    #: Proxy variant (thesis §7.2): the end client (sub-session) of each connection of a
    #: host pair (one name per connection).
    subsessions: Optional[list[Name]] = None
    #: Connections of one host pair with different groups form different sessions.
    group: Optional[str] = None
    #: How long the session control block outlives its last open connection (spec F.4
    #: ``scb_linger``, default 1 s): a connection opening later finds a fresh SCB
    #: (initial window, new RTT estimator); "0s" = the SCB dies with its last connection.
    linger: Optional[Time] = None


class FlowGroup(Model):
    """``count`` identical TCP connections."""

    name: Name
    count: NonNegInt = 1
    #: Shorthand for ``tcp.variant``.
    variant: Optional[Variant] = None
    #: Built-in topologies: router the sources attach to (default: the first);
    #: explicit topology: the source node.
    src: Optional[str] = None
    #: Built-in topologies: router the sinks attach to (default: the last);
    #: explicit topology: the destination node.
    dst: Optional[str] = None
    #: Built-in topologies: give the sinks consecutive addresses in this IPv4 network
    #: ("10.2.0.0/24"); TCP/SPAND gateways group destinations by address prefix.
    dst_network: Optional[Network] = None
    #: Likewise for the sources.
    src_network: Optional[Network] = None
    tcp: Optional[TcpOptions] = None
    sink: Optional[SinkOptions] = None
    startup: Optional[Startup] = None
    app: Optional[App] = None
    #: Built-in topologies: this many consecutive connections share one host pair
    #: (``<name>.s<h>`` to ``<name>.d<h>``), e.g. a Web page's connections between one client
    #: and one server; ``count`` must be a multiple. Default 1 (each connection its own hosts).
    conns_per_host: Optional[PosInt] = None
    #: The connections sharing a host pair form a TCP session (see ``SessionOptions``).
    session: Optional[SessionOptions] = None

    @model_validator(mode="after")
    def _hosts(self) -> "FlowGroup":
        k = self.conns_per_host or 1
        if self.count % k:
            raise PydanticCustomError(
                "conflict", "conns_per_host = {k} does not divide count = {count}",
                {"count": self.count, "k": k, "value": self.conns_per_host})
        if self.session is not None:
            lists = [("weights", self.session.weights), ("subsessions", self.session.subsessions)]
            lists += [(f"setwt[{i}].weights", c.weights) for i, c in enumerate(self.session.setwt or [])]
            if isinstance(self.app, WebApp):
                for name, v in lists:
                    if v is not None:
                        raise PydanticCustomError(
                            "conflict", "session.{name} is per connection of a host pair; a web group's pairs "
                            "open their connections per object, so it does not apply (drop it)",
                            {"name": name, "value": v})
                return self
            for name, v in lists:
                if v is not None and len(v) != k:
                    raise PydanticCustomError(
                        "length", "session.{name} = {v} has {n} entries but a host pair has {k} connections "
                        "(conns_per_host): give one per connection",
                        {"name": name, "v": repr(v), "n": len(v), "k": k, "value": v})
        return self


# --- cross traffic ----------------------------------------------------------------

At = Union[Literal["each"], PosInt, list[PosInt]]


class _CrossBase(Model):
    name: Name
    count: NonNegInt = 1
    src: Optional[str] = None
    dst: Optional[str] = None
    #: Chain only: "each" = one group per bottleneck hop, or hop number(s) (1 = r1->r2).
    at: Optional[At] = None
    start: Time = 0.0
    stop: Optional[Time] = None


class OnOffCross(_CrossBase):
    """UDP ON/OFF source (ns-2 ``Traffic/Pareto`` or ``Traffic/Exponential``)."""

    kind: Literal["onoff", "on_off"]
    dist: Literal["pareto", "exponential"]
    #: Sending rate while ON.
    rate: Rate
    packet_size: Optional[Bytes] = None
    #: Mean ON time (ns-2 ``burst_time_``).
    on: Optional[PosTime] = None
    #: Mean OFF time (ns-2 ``idle_time_``).
    off: Optional[Time] = None
    shape: Optional[Annotated[float, Field(gt=1)]] = None
    start_jitter: Time = 0.0


class CbrCross(_CrossBase):
    """UDP constant bit rate (ns-2 ``Traffic/CBR``)."""

    kind: Literal["cbr"]
    rate: Rate
    packet_size: Optional[Bytes] = None


Cross = Annotated[
    Union[Annotated[OnOffCross, Tag("onoff")], Annotated[CbrCross, Tag("cbr")]],
    _tagged(None, {"on_off": "onoff", "pareto": "onoff"}),
]


# --- workloads: connections drawn per seed (``shortflow.workloads``) ----------------


class ParetoLifetime(Model):
    """A connection's lifetime: Pareto with this mean and shape (scale = mean (a-1)/a)."""

    dist: Literal["pareto"]
    mean: PosTime
    shape: Annotated[float, Field(gt=1, le=100)]


#: A set of nodes: a list of node names, or "stub_hosts" (every stub node of a
#: transit_stub topology).
NodeSet = Union[Literal["stub_hosts"], Annotated[list[str], Field(min_length=1)]]


class RandomPairs(Model):
    """``count`` (source, sink) pairs drawn among ``among``, the ends in different stub
    domains (P3 §5.2's cross traffic)."""

    random: Annotated[StrictInt, Field(ge=1, le=100_000)]
    among: Literal["stub_hosts"] = "stub_hosts"


class _WorkloadBase(KindModel):
    name: Name
    variant: Optional[Variant] = None
    tcp: Optional[TcpOptions] = None
    sink: Optional[SinkOptions] = None
    startup: Optional[Startup] = None
    #: None: every connection runs to the end of the run.
    lifetime: Optional[ParetoLifetime] = None
    #: The workload's first arrival/stagger counts from here.
    start: Time = 0.0


class PoissonFtpWorkload(_WorkloadBase):
    """FTP connections from ``src`` arriving as a Poisson process, each to a client drawn
    uniformly from ``clients`` (P3: "FTP connections from the server to clients arrive
    with the exponential distribution")."""

    kind: Literal["poisson_ftp"]
    src: str
    clients: NodeSet
    #: Mean of the exponential inter-arrival times.
    interarrival: PosTime


class PairsFtpWorkload(_WorkloadBase):
    """One FTP connection per (source, sink) pair, pairs starting at exponentially
    staggered times (P3's cross traffic: "arrive with the exponential distribution
    average of 1 s"); with ``lifetime``, ``renew = true`` opens the pair's next
    connection when one ends (false: the pair is then silent)."""

    kind: Literal["ftp_pairs"]
    pairs: Annotated[
        Union[Annotated[Annotated[list[Annotated[list[str], Field(min_length=2, max_length=2)]], Field(min_length=1)],
                        Tag("pair_list")],
              Annotated[RandomPairs, Tag("random_pairs")]],
        Discriminator(lambda v: "random_pairs" if isinstance(v, (dict, RandomPairs)) else "pair_list"),
    ]
    #: Mean of the exponential gaps between the pairs' starts.
    stagger: PosTime
    renew: bool = False

    @model_validator(mode="after")
    def _renew(self) -> "PairsFtpWorkload":
        if self.renew and self.lifetime is None:
            raise ValueError("'renew' needs a 'lifetime' (without one a connection never ends)")
        return self


Workload = Annotated[
    Union[Annotated[PoissonFtpWorkload, Tag("poisson_ftp")], Annotated[PairsFtpWorkload, Tag("ftp_pairs")]],
    _tagged(None),
]


class GatewayOptions(Model):
    """A TCP/SPAND performance gateway."""

    #: Sliding window of the averages (paper: 300 s).
    window: Optional[PosTime] = None
    min_samples: Optional[NonNegInt] = None
    prefix_len: Optional[Annotated[int, Field(ge=0, le=32)]] = None


class PathsOptions(Model):
    """The path registry: what hosts remember about paths across connections."""

    #: Destinations are grouped by their top ``prefix_len`` address bits (default 32:
    #: one entry per destination host).
    prefix_len: Optional[Annotated[StrictInt, Field(ge=0, le=32)]] = None


class PacerElement(Model):
    """A pacer at a node: the selected packets leave it at most one per ``interval``, in order."""

    kind: Literal["pacer"]
    #: Node name (``r1``, ``conn.s1``, or a node of an explicit topology).
    node: str
    interval: PosTime
    #: Which packets are paced: "all" (default), "acks" or "data".
    packets: Optional[Literal["all", "acks", "data"]] = None


class AckReconsElement(Model):
    """Ack reconstruction (thesis ch. 9 AR, ns-2.35 ack-recons.cc) at the far end of a slow
    ack link: a real ack far ahead of the last one forwarded is regenerated as evenly
    spaced acks every ``delack`` segments."""

    kind: Literal["ack_reconstruction"]
    node: str
    #: A real ack at most this many segments ahead passes unchanged (default 2).
    delta_ack_thresh: Optional[NonNegInt] = None
    #: One regenerated ack per this many segments (default 2).
    delack: Optional[PosInt] = None
    #: Spacing without ``adaptive``; the initial inter-arrival estimate with it (default "10ms").
    ack_spacing: Optional[PosTime] = None
    #: Spread regenerated acks over the measured real-ack inter-arrival (default true).
    adaptive: Optional[bool] = None
    #: EWMA gain of that estimate (default 0.25).
    alpha: Optional[Annotated[float, Field(gt=0, le=1)]] = None


#: A node element (``[[elements]]``); at most one per node.
Element = Annotated[
    Union[Annotated[PacerElement, Tag("pacer")], Annotated[AckReconsElement, Tag("ack_reconstruction")]],
    _tagged(None),
]


class TraceOptions(Model):
    acks: bool = False
    packets: bool = False
    cwnd: bool = False
    #: Only trace these links ("a->b"); empty = all.
    links: list[str] = Field(default_factory=list)


def _scenario_name(x: Any) -> Any:
    if not isinstance(x, str):
        return x  # the strict str type reports it
    if not x:
        raise ValueError("must not be empty")
    if not _SAFE_NAME.fullmatch(x):
        raise ValueError("must be a plain name (letters, digits, '.', '_', '-', '+'; not starting with '.' or '-'): "
                         "it names the output directory out/<name>, so it cannot be a path")
    return x


_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}")

#: A scenario name (safe as a directory name).
ScenarioName = Annotated[str, BeforeValidator(_scenario_name)]


class ScenarioModel(Model):
    """A whole scenario file. ``schemes`` and ``sweep`` are kept raw here and applied by
    :class:`shortflow.Scenario` (each sweep point is validated as a full scenario)."""

    #: The scenario's name: also the default output directory ``out/<name>`` of a sweep, so
    #: it must be a plain file name (letters, digits, '.', '_', '-', '+'; not starting with
    #: '.' or '-'), never a path such as "../x" or "/abs".
    name: ScenarioName
    description: str = ""
    #: Simulated time; omitted = stop when every finite application is done.
    duration: Optional[PosTime] = None
    #: Stop early once every finite app finished (default: true iff duration is omitted).
    stop_when_done: Optional[bool] = None
    #: Cap on simulated time when ``duration`` is omitted.
    max_duration: PosTime = 100_000.0
    #: Seeds of the runs: distinct integers 0 .. 2^63 - 1 (no booleans, no floats).
    seeds: Annotated[list[Seed], Field(min_length=1)] = Field(default_factory=lambda: [1])
    topology: Topology
    tcp: Optional[TcpOptions] = None
    sink: Optional[SinkOptions] = None
    flows: list[FlowGroup] = Field(default_factory=list)
    cross: list[Cross] = Field(default_factory=list)
    #: Connections drawn per seed (Poisson arrivals, staggered pairs, Pareto lifetimes).
    workloads: list[Workload] = Field(default_factory=list)
    gateways: dict[Name, GatewayOptions] = Field(default_factory=dict)
    #: IPv4 address per node name (others get 10.x.y.z from their index).
    addresses: dict[str, Address] = Field(default_factory=dict)
    trace: Optional[TraceOptions] = None
    #: Node elements (pacers), at most one per node.
    elements: list[Element] = Field(default_factory=list)
    #: The path registry (``prefix_len``).
    paths: Optional[PathsOptions] = None
    schemes: dict[str, dict[str, Any]] = Field(default_factory=dict)
    sweep: dict[str, Annotated[list[Any], Field(min_length=1)]] = Field(default_factory=dict)

    @field_validator("seeds")
    @classmethod
    def _unique_seeds(cls, v: list[int]) -> list[int]:
        if len(set(v)) != len(v):
            raise ValueError("seeds must be distinct")
        return v

    @model_validator(mode="after")
    def _names(self) -> "ScenarioModel":
        seen: dict[str, str] = {}
        for where, group in ([("flows", g) for g in self.flows] + [("cross", c) for c in self.cross]
                             + [("workloads", w) for w in self.workloads]):
            if group.name in seen:
                raise ValueError(f"name {group.name!r} is used twice ({seen[group.name]} and {where}); names must be unique")
            seen[group.name] = where
        return self


errors.register_tags(
    ["droptail", "red", "drop_priority", "dumbbell", "chain", "explicit", "ns2", "idle_restart", "no_restart", "spand",
     "fast_start", "fair_share",
     "rounds", "ftp", "telnet", "onoff", "cbr", "list[int]", "literal['each']", "int", "ack_filter", "acks_first",
     "every_packet", "delayed", "every_d", "pacer", "acc", "ack_reconstruction", "sender_adaptation", "vienna",
     "transit_stub", "poisson_ftp", "ftp_pairs", "pair_list", "random_pairs"]
)
