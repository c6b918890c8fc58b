//! The simulation configuration: the one contract between front ends (the Python
//! package, tests, benches) and the core.
//!
//! Every default lives here, and every default follows ns-2.35 (`tcl/lib/ns-default.tcl`)
//! unless its doc comment says otherwise. `docs/defaults.md` is the human-readable table
//! of the same values; `tests` in this module check the two agree on the TCP knobs.
//!
//! Units are SI and explicit in field names (`_s` seconds, `_bps` bits/s, `_bytes`,
//! `_pkts`). Unit strings such as `"1.6Mb"` are parsed by the front end, not here.
//! Unknown fields are rejected (`deny_unknown_fields`), so a typo is an error, not a
//! silently ignored knob.

use serde::{Deserialize, Serialize};

/// A whole simulation: topology, flows, applications, tracing.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Base seed. Each random source derives its own stream from (seed, source name).
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Simulated time at which the run stops (seconds).
    pub duration_s: f64,
    /// Stop early once every finite application has finished (rounds, finite FTP).
    #[serde(default)]
    pub stop_when_done: bool,
    pub nodes: Vec<String>,
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    #[serde(default)]
    pub apps: Vec<AppConfig>,
    /// Performance gateways (TCP/SPAND shared state), referenced by start-up policies.
    #[serde(default)]
    pub gateways: Vec<GatewayConfig>,
    /// Node elements (`net::element`): at most one per node.
    #[serde(default)]
    pub elements: Vec<ElementConfig>,
    #[serde(default)]
    pub trace: TraceConfig,
    /// IPv4 address of nodes ("10.2.0.5"); nodes not listed get 10.a.b.c from their
    /// index. Gateways group destinations by address prefix.
    #[serde(default)]
    pub addresses: std::collections::BTreeMap<String, String>,
    /// The path registry: state that outlives connections (`crate::path`).
    #[serde(default)]
    pub paths: PathsConfig,
    /// Replicated connections: `count` copies of one connection, each with its own host
    /// pair and access links, described once and expanded by the core after the
    /// explicit `nodes`, `links`, `flows` and `apps` (see [`ReplicaConfig`]). Not an
    /// ns-2 knob: a compact form of what a built-in topology's flow group expands to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaConfig>,
}
fn d_seed() -> u64 {
    1
}

/// The path registry (`crate::path`): what hosts remember about paths to
/// destination networks across connections (Fast Start's cache, fair-share groups).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathsConfig {
    /// Destinations are grouped by their top `prefix_len` address bits (0..=32).
    /// 32 (default): one entry per (sending host, destination host), as a TCB cache
    /// keeps it (not an ns-2 knob: ns-2 has no such registry).
    #[serde(default = "d_path_prefix")]
    pub prefix_len: u8,
}
fn d_path_prefix() -> u8 {
    32
}
impl Default for PathsConfig {
    fn default() -> Self {
        PathsConfig { prefix_len: d_path_prefix() }
    }
}

/// An element at a node (`net::element`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ElementConfig {
    /// Let the selected packets leave `node` at most one per `interval_s`, in order.
    Pacer {
        node: String,
        interval_s: f64,
        #[serde(default)]
        packets: PacketSelect,
    },
    /// Ack reconstruction (thesis ch. 9 AR; ns-2.35 ack-recons.cc) at the far end of a
    /// constrained ack link: when a real ack jumps more than `delta_ack_thresh`
    /// segments past the last ack forwarded, the gap is filled with acks every
    /// `delack` segments, evenly spaced, and the real ack is regenerated last.
    AckReconstruction(AckReconsConfig),
}

/// Ack reconstruction parameters (ns-2.35 `Agent/AckReconsClass`, `tcl/ex/asym/asym.tcl`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckReconsConfig {
    pub node: String,
    /// `deltaAckThresh_`: a real ack advancing at most this many segments past the
    /// last forwarded ack passes unchanged. asym.tcl: 2.
    #[serde(default = "d_two")]
    pub delta_ack_thresh: u32,
    /// `delack_`: one regenerated ack per this many segments. asym.tcl: 2.
    #[serde(default = "d_two")]
    pub delack: u32,
    /// `ackSpacing_` (s): spacing of regenerated acks when `adaptive` is false, and
    /// the initial ack inter-arrival estimate when it is true. asym.tcl: 0.010.
    #[serde(default = "d_ack_spacing")]
    pub ack_spacing_s: f64,
    /// `adaptive_`: spread the regenerated acks of one real ack evenly over the
    /// measured inter-arrival time of real acks (EWMA with gain `alpha`). asym.tcl: 1.
    #[serde(default = "d_true")]
    pub adaptive: bool,
    /// `alpha_`: EWMA gain of the inter-arrival estimate. asym.tcl: 0.25.
    #[serde(default = "d_ar_alpha")]
    pub alpha: f64,
}
fn d_two() -> u32 {
    2
}
fn d_ack_spacing() -> f64 {
    0.010
}
fn d_ar_alpha() -> f64 {
    0.25
}

impl ElementConfig {
    /// Name of the node the element sits at.
    pub fn node(&self) -> &str {
        match self {
            ElementConfig::Pacer { node, .. } => node,
            ElementConfig::AckReconstruction(c) => &c.node,
        }
    }
}

/// Which packets an element acts on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketSelect {
    #[default]
    All,
    Acks,
    Data,
}

/// A link between two nodes. `duplex` creates the reverse link with the same settings,
/// as ns-2's `duplex-link`, unless `reverse_rate_bps` / `reverse_delay_s` /
/// `reverse_queue` give the reverse direction its own (an asymmetric access link).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub src: String,
    pub dst: String,
    pub rate_bps: f64,
    pub delay_s: f64,
    #[serde(default = "d_true")]
    pub duplex: bool,
    #[serde(default)]
    pub queue: QueueConfig,
    /// Queue of the reverse direction when `duplex`; defaults to a copy of `queue`.
    #[serde(default)]
    pub reverse_queue: Option<QueueConfig>,
    /// Rate of the reverse direction when `duplex`; defaults to `rate_bps`.
    #[serde(default)]
    pub reverse_rate_bps: Option<f64>,
    /// Propagation delay of the reverse direction when `duplex`; defaults to `delay_s`.
    #[serde(default)]
    pub reverse_delay_s: Option<f64>,
    /// Uniform random loss: each packet that crosses the link (src -> dst) is lost
    /// with this probability, independently (ns-2 `ErrorModel` with `unit_ pkt` on the
    /// link; P4 Fig. 3). 0: none.
    #[serde(default)]
    pub loss: f64,
    /// Loss probability of the reverse direction when `duplex`; defaults to `loss`.
    #[serde(default)]
    pub reverse_loss: Option<f64>,
}

/// A duplex link template without its ends: the access link of every copy of a
/// [`ReplicaConfig`]. The fields and defaults are [`LinkConfig`]'s (always duplex: a
/// connection's acks come back over it).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessLinkConfig {
    pub rate_bps: f64,
    pub delay_s: f64,
    #[serde(default)]
    pub queue: QueueConfig,
    #[serde(default)]
    pub reverse_queue: Option<QueueConfig>,
    #[serde(default)]
    pub reverse_rate_bps: Option<f64>,
    #[serde(default)]
    pub reverse_delay_s: Option<f64>,
    #[serde(default)]
    pub loss: f64,
    #[serde(default)]
    pub reverse_loss: Option<f64>,
}

impl AccessLinkConfig {
    /// The link with these settings (its ends are given by node index when it is built,
    /// so `src` and `dst` are left empty).
    pub fn to_link(&self) -> LinkConfig {
        LinkConfig {
            src: String::new(),
            dst: String::new(),
            rate_bps: self.rate_bps,
            delay_s: self.delay_s,
            duplex: true,
            queue: self.queue.clone(),
            reverse_queue: self.reverse_queue.clone(),
            reverse_rate_bps: self.reverse_rate_bps,
            reverse_delay_s: self.reverse_delay_s,
            loss: self.loss,
            reverse_loss: self.reverse_loss,
        }
    }
}

/// `count` copies of one TCP connection, each between its own pair of hosts (what a
/// built-in topology's flow group is), described once. Copy `i` (1-based) of replica
/// `name` adds, after the explicit parts and the earlier replicas, in this order:
/// nodes `name.s<i>` and `name.d<i>`; links `name.s<i>` -> `src` (`access`) and
/// `dst` -> `name.d<i>` (`dst_access`, default `access`); flow `name.<i>` from
/// `name.s<i>` to `name.d<i>` with `tcp`, `sink`, `startup`; and, with `app`, its
/// application. The run is the one of the same configuration written out copy by copy.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "RawReplicaConfig")]
pub struct ReplicaConfig {
    pub name: String,
    pub count: u32,
    /// The node every source host attaches to.
    pub src: String,
    /// The node every destination host attaches to.
    pub dst: String,
    pub access: AccessLinkConfig,
    pub dst_access: Option<AccessLinkConfig>,
    pub tcp: TcpConfig,
    pub sink: SinkConfig,
    pub startup: StartupConfig,
    pub app: Option<ReplicaAppConfig>,
}

/// The application of every copy of a replica.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReplicaAppConfig {
    /// An FTP application per copy ([`AppConfig::Ftp`]): copy `i` (1-based) starts at
    /// `start_s + (i - 1) * stagger_s` (plus its own draw in [0, `start_jitter_s`)).
    Ftp {
        #[serde(default)]
        start_s: f64,
        #[serde(default)]
        stagger_s: f64,
        #[serde(default)]
        bytes: Option<u64>,
        #[serde(default)]
        start_jitter_s: f64,
        #[serde(default)]
        stop_s: Option<f64>,
        #[serde(default)]
        duration_s: Option<f64>,
    },
}

/// A replica as written, before its connection's profile is resolved (as a flow's).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReplicaConfig {
    name: String,
    count: u32,
    src: String,
    dst: String,
    access: AccessLinkConfig,
    #[serde(default)]
    dst_access: Option<AccessLinkConfig>,
    #[serde(default)]
    tcp: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    sink: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    startup: Option<serde_json::Value>,
    #[serde(default)]
    app: Option<ReplicaAppConfig>,
}

impl TryFrom<RawReplicaConfig> for ReplicaConfig {
    type Error = String;
    fn try_from(r: RawReplicaConfig) -> Result<ReplicaConfig, String> {
        let raw = RawFlowConfig {
            name: r.name,
            src: r.src,
            dst: r.dst,
            transport: Transport::Tcp,
            tcp: r.tcp,
            sink: r.sink,
            startup: r.startup,
            session: None,
            udp: UdpConfig {},
        };
        let f = FlowConfig::try_from(raw).map_err(|e| format!("replica{}", e.trim_start_matches("flow")))?;
        Ok(ReplicaConfig {
            name: f.name,
            count: r.count,
            src: f.src,
            dst: f.dst,
            access: r.access,
            dst_access: r.dst_access,
            tcp: f.tcp,
            sink: f.sink,
            startup: f.startup,
            app: r.app,
        })
    }
}

impl ReplicaConfig {
    /// The connection of every copy as a flow (name and ends left empty: they are given
    /// per copy).
    pub fn flow_template(&self) -> FlowConfig {
        FlowConfig {
            name: String::new(),
            src: String::new(),
            dst: String::new(),
            transport: Transport::Tcp,
            tcp: self.tcp.clone(),
            sink: self.sink.clone(),
            startup: self.startup.clone(),
            udp: UdpConfig {},
            session: None,
        }
    }
}

/// Queue discipline at the head of a link.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// ns-2 `Queue/DropTail`: an arrival that would make the queue (waiting packets plus
    /// the arrival) reach `limit_pkts` is dropped, so at most `limit_pkts - 1` wait
    /// while one is on the wire (ns-2.35 drop-tail.cc).
    DropTail {
        #[serde(default = "d_qlim")]
        limit_pkts: u32,
        /// Which packet an overflow drops (ns-2: the arrival; `front` = `drop_front_`).
        #[serde(default)]
        victim: VictimRule,
        /// Optional stages: ack filter, acks-first scheduling.
        #[serde(default)]
        stages: Vec<StageConfig>,
    },
    /// ns-2 `Queue/RED` with the ns-2.35 defaults (byte mode, gentle, wait, automatic
    /// thresholds and q_weight when left at 0 / -1).
    Red(RedConfig),
    /// Alias of `drop_tail` with `victim = "low_priority_first"`: when full, drop the
    /// low-priority packet nearest the tail (possibly the arrival) before any normal
    /// packet (thesis §8, ns-2 PacketQueue/Semantic `priority_drop_`). For TCP Fast Start.
    DropPriority {
        #[serde(default = "d_qlim")]
        limit_pkts: u32,
        #[serde(default)]
        stages: Vec<StageConfig>,
    },
}

/// Which packet a full queue drops (`net::queue::victim`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimRule {
    /// The arrival.
    #[default]
    Tail,
    /// The head (DropTail, ns-2 `drop_front_`) / the second waiting packet (RED, ns-2.35).
    Front,
    /// A uniformly random packet, arrival included (one draw of the queue stream).
    Random,
    /// The low-priority packet nearest the tail, else the arrival (thesis §8.4).
    LowPriorityFirst,
}

impl VictimRule {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            VictimRule::Tail => "tail",
            VictimRule::Front => "front",
            VictimRule::Random => "random",
            VictimRule::LowPriorityFirst => "low_priority_first",
        }
    }
}

/// An optional queue stage (`net::queue::stages`); each kind at most once per queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StageConfig {
    /// Ack filtering (thesis ch. 9 AF): an arriving ack removes the queued acks of its
    /// connection with a smaller ack number.
    AckFilter {
        /// ns-2 `replace_head_`: equal ack numbers go too, and the new ack takes the
        /// place of the oldest one removed.
        #[serde(default)]
        replace_head: bool,
    },
    /// Acks-first scheduling: the oldest queued ack is sent before any data packet.
    AcksFirst,
}

impl StageConfig {
    /// The JSON `kind`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            StageConfig::AckFilter { .. } => "ack_filter",
            StageConfig::AcksFirst => "acks_first",
        }
    }
}
impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::DropTail { limit_pkts: d_qlim(), victim: VictimRule::Tail, stages: Vec::new() }
    }
}
/// ns-2 `Queue set limit_ 50`.
fn d_qlim() -> u32 {
    50
}
fn d_true() -> bool {
    true
}

/// RED parameters with ns-2.35 names and defaults (`Queue/RED` in
/// `tcl/lib/ns-default.tcl`; semantics in `net::queue::red`, after ns-2.35 queue/red.cc).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// `limit_` (packets). ns-2.35 RED drops an arrival when the waiting queue already
    /// holds `limit_` (so up to `limit_` wait, one more than DropTail); with
    /// `queue_in_bytes` the limit is `limit_ * mean_pktsize` bytes.
    #[serde(default = "d_qlim")]
    pub limit_pkts: u32,
    /// `thresh_` (packets); 0 = automatic: max(5, targetdelay x ptc / 2), ptc being the
    /// link's rate in `mean_pktsize` packets per second (ns-2.35 `initialize_params`).
    #[serde(default)]
    pub thresh: f64,
    /// `maxthresh_` (packets); 0 = automatic (3 x thresh).
    #[serde(default)]
    pub maxthresh: f64,
    /// `q_weight_`; -1 = automatic 1 - exp(-1/(10 x rtt x ptc)) with
    /// rtt = max(0.1 s, 3 x (link delay + 1/ptc)); 0 = 1 - exp(-1/ptc);
    /// -2 = 1 - exp(-10/ptc) (ns-2.35 `initialize_params`).
    #[serde(default = "d_qweight")]
    pub q_weight: f64,
    /// `linterm_`: max_p = 1/linterm.
    #[serde(default = "d_linterm")]
    pub linterm: f64,
    #[serde(default = "d_true")]
    pub gentle: bool,
    #[serde(default = "d_true")]
    pub wait: bool,
    /// `bytes_`: packet sizes scale the drop probability (ns-2.35 default true).
    #[serde(default = "d_true")]
    pub bytes: bool,
    /// `queue_in_bytes_` (ns-2.35 default true): thresholds are counted in
    /// `mean_pktsize` bytes and the average tracks bytes.
    #[serde(default = "d_true")]
    pub queue_in_bytes: bool,
    #[serde(default = "d_mean_pktsize")]
    pub mean_pktsize: u32,
    /// `setbit_`: mark ECN-capable packets instead of dropping them early.
    #[serde(default)]
    pub setbit: bool,
    /// `drop_tail_` (true). Kept for completeness: in ns-2.35 forced drops take the
    /// arrival (the tail) unless `drop_front` or `drop_rand` is set, whatever this says.
    #[serde(default = "d_true")]
    pub drop_tail: bool,
    /// `drop_front_` (ns-2.35 default false): forced drops take the second waiting
    /// packet (ns-2.35 `pickPacketToDrop` uses index min(1, len-1)).
    #[serde(default)]
    pub drop_front: bool,
    /// `drop_rand_` (ns-2.35 default false): forced drops take a uniformly random
    /// packet of the queue (arrival included).
    #[serde(default)]
    pub drop_rand: bool,
    /// `use_mark_p_` (ns-2.35 default true): the average queue never forces a drop
    /// (the drop probability just saturates at 1), and ECN marking happens only while
    /// the unmodified probability `prob1` is below `mark_p`.
    #[serde(default = "d_true")]
    pub use_mark_p: bool,
    /// `mark_p_` (ns-2.35 default 0.1), see `use_mark_p`.
    #[serde(default = "d_mark_p")]
    pub mark_p: f64,
    /// `targetdelay_` (s; ns-2.35 default 0.005): target queueing delay used by the
    /// automatic `thresh`.
    #[serde(default = "d_targetdelay")]
    pub targetdelay_s: f64,
    /// `idle_pktsize_` (bytes; ns-2.35 default 100): packet size for the idle-time
    /// decay of the average, used by ns-2.35 only when `cautious` is 3.
    #[serde(default = "d_idle_pktsize")]
    pub idle_pktsize: u32,
    /// `cautious_` (ns-2.35 default 0): 1 = no early drop while the queue is far below
    /// the average; 2 = lower the probability then; 3 = idle decay in `idle_pktsize`
    /// packets. Experimental in ns-2.
    #[serde(default)]
    pub cautious: u32,
    /// `ns1_compat_` (ns-2.35 default false): do not reset the drop count after a
    /// forced drop.
    #[serde(default)]
    pub ns1_compat: bool,
    /// Victim rule of forced drops, instead of `drop_front` / `drop_rand` (giving both
    /// is an error); unset = from those flags, else the tail. Early drops always take
    /// the arrival.
    #[serde(default)]
    pub victim: Option<VictimRule>,
    /// Optional stages, as for `drop_tail`.
    #[serde(default)]
    pub stages: Vec<StageConfig>,
}
fn d_qweight() -> f64 {
    -1.0
}
fn d_linterm() -> f64 {
    10.0
}
fn d_mean_pktsize() -> u32 {
    500
}
fn d_mark_p() -> f64 {
    0.1
}
fn d_targetdelay() -> f64 {
    0.005
}
fn d_idle_pktsize() -> u32 {
    100
}
impl Default for RedConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("RedConfig defaults")
    }
}

/// One transport connection (one-way TCP sender to sink) or a UDP flow. Read through
/// [`RawFlowConfig`]: a `tcp.profile` and `tcp.mtu` are resolved first
/// (`crate::profile`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "RawFlowConfig")]
pub struct FlowConfig {
    pub name: String,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub transport: Transport,
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub sink: SinkConfig,
    #[serde(default)]
    pub startup: StartupConfig,
    /// UDP payload packet size in bytes (ns-2 `Agent/UDP set packetSize_ 1000`; the
    /// traffic generator's own packetSize_ decides the sizes actually sent).
    #[serde(default)]
    pub udp: UdpConfig,
    /// Membership of a TCP session (thesis ch. 6-7, `tcp::session`): TCP flows with
    /// a `session` table, the same `src` and `dst` and the same `session.group` send
    /// under one session control block (one window, one RTT estimator, one timer,
    /// integrated loss recovery). Absent: an independent connection.
    #[serde(default)]
    pub session: Option<SessionConfig>,
}

/// A flow's part in a TCP session (spec thesis-http-session part C, D). Settings that
/// belong to the whole session (`scheduler`, `later_acks`) must agree among its
/// members.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionConfig {
    /// Flows of one host pair with different groups form different sessions ("" by
    /// default: one session per host pair, as the thesis has it).
    #[serde(default)]
    pub group: String,
    /// How the session shares its window among members with data (spec C.4, D.1).
    #[serde(default)]
    pub scheduler: SessionScheduler,
    /// This connection's scheduling weight (`setwt`): a positive integer, default 1
    /// (spec F.20). Plain round robin ignores it.
    #[serde(default = "d_weight")]
    pub weight: u32,
    /// Integrated loss recovery with later acks (rules 2 and 3, spec C.6.2). false =
    /// the thesis's session-noilr: only rule 1 (three duplicate acks) fires.
    #[serde(default = "d_true")]
    pub later_acks: bool,
    /// The proxy variant (spec D.3): the end client this connection serves. When the
    /// members of a session name sub-sessions, the window grows by one segment per RTT
    /// per sub-session and a loss cuts only its sub-session's share. Either every
    /// member names one or none does.
    #[serde(default)]
    pub subsession: Option<String>,
    /// How long the session control block outlives its last open member (spec F.4,
    /// `scb_linger`), seconds: a member that opens later than this after the last one
    /// closed finds a fresh SCB (initial window and ssthresh, new RTT estimator);
    /// sooner, it inherits the window. 0 = the SCB dies with its last member. A
    /// session-wide setting: its members must agree.
    #[serde(default = "d_linger")]
    pub linger_s: f64,
    /// Timed `setwt(conn, n)` calls (thesis §7.1): at `at_s` this connection's weight
    /// becomes `weight`, from the next scheduling decision on (spec F.20).
    #[serde(default)]
    pub setwt: Vec<SetWtConfig>,
}

/// One timed weight change of a session member.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetWtConfig {
    pub at_s: f64,
    pub weight: u32,
}
fn d_weight() -> u32 {
    1
}
fn d_linger() -> f64 {
    1.0
}

/// A session's connection scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionScheduler {
    /// Round robin, one segment per turn (thesis default, spec C.4).
    #[default]
    Rr,
    /// Weighted: slots in proportion to `weight`, spread evenly (smooth weighted round
    /// robin, the stand-in spec D.1 accepts for the thesis's hierarchical round robin).
    Weighted,
    /// Hierarchical round robin (thesis §7.1.1, Kalmanek-Kanakia-Keshav): levels from
    /// the prime factors of the weights' sum, slots spread evenly within each level.
    Hrr,
}

/// A flow as written, before its profile is resolved.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFlowConfig {
    name: String,
    src: String,
    dst: String,
    #[serde(default)]
    transport: Transport,
    #[serde(default)]
    tcp: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    sink: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    startup: Option<serde_json::Value>,
    #[serde(default)]
    session: Option<SessionConfig>,
    #[serde(default)]
    udp: UdpConfig,
}

impl TryFrom<RawFlowConfig> for FlowConfig {
    type Error = String;
    fn try_from(mut r: RawFlowConfig) -> Result<FlowConfig, String> {
        let name = r.name;
        let at = |what: &str, e: String| format!("flow {name:?}: {what}{e}");
        crate::profile::resolve(&mut r.tcp, &mut r.sink, &mut r.startup).map_err(|e| at("", e))?;
        // The error names the field inside the table (`tcp.recovery.kind: unknown variant ...`).
        fn table<T: serde::de::DeserializeOwned>(v: serde_json::Value, name: &str) -> Result<T, String> {
            serde_path_to_error::deserialize(v).map_err(|e| match e.path().to_string().as_str() {
                "." => format!("{name}: {}", e.inner()),
                p => format!("{name}.{p}: {}", e.inner()),
            })
        }
        let tcp = table(serde_json::Value::Object(r.tcp), "tcp").map_err(|e| at("", e))?;
        let sink = table(serde_json::Value::Object(r.sink), "sink").map_err(|e| at("", e))?;
        let startup = match r.startup {
            None => StartupConfig::default(),
            Some(v) => table(v, "startup").map_err(|e| at("", e))?,
        };
        Ok(FlowConfig {
            name,
            src: r.src,
            dst: r.dst,
            transport: r.transport,
            tcp,
            sink,
            startup,
            session: r.session,
            udp: r.udp,
        })
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    #[default]
    Tcp,
    Udp,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpConfig {}

/// Loss-recovery family of the one-way ns-2 sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    /// `Agent/TCP` (Tahoe).
    Tahoe,
    /// `Agent/TCP/Reno`.
    Reno,
    /// `Agent/TCP/Newreno`.
    #[default]
    Newreno,
}

/// ns-2 `Agent/TCP` knobs, ns-2 names without the trailing underscore.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    #[serde(default)]
    pub variant: TcpVariant,
    /// `window_` (receiver-advertised window, packets). ns-2.35: 20.
    #[serde(default = "d_window")]
    pub window: u32,
    /// `windowInit_` (initial cwnd, packets). ns-2.35: 2.
    #[serde(default = "d_window_init")]
    pub window_init: u32,
    /// `maxcwnd_` (0 = no cap).
    #[serde(default)]
    pub maxcwnd: u32,
    /// `packetSize_`: payload bytes per segment. ns-2.35: 1000.
    #[serde(default = "d_packet_size")]
    pub packet_size: u32,
    /// `tcpip_base_hdr_size_`: header bytes added on the wire. ns-2.35: 40.
    #[serde(default = "d_hdr")]
    pub header_size: u32,
    /// Initial `ssthresh_`: 0 means "= window" as ns-2's `reset()` does.
    #[serde(default)]
    pub ssthresh: u32,
    /// `tcpTick_` (s): RTT/RTO clock granularity. ns-2.35: 0.01.
    #[serde(default = "d_tick")]
    pub tcp_tick_s: f64,
    /// `minrto_` (s). ns-2.35: 0.2. 0 = only ns-2's built-in floor of 2 ticks.
    #[serde(default = "d_minrto")]
    pub minrto_s: f64,
    /// `maxrto_` (s). ns-2.35: 60.
    #[serde(default = "d_maxrto")]
    pub maxrto_s: f64,
    /// `rtxcur_init_` (s): RTO before the first RTT sample. ns-2.35: 3.0.
    #[serde(default = "d_rtxcur_init")]
    pub rtxcur_init_s: f64,
    /// `srtt_init_` (ticks << T_SRTT_BITS). ns-2.35: 0.
    #[serde(default)]
    pub srtt_init: i32,
    /// `rttvar_init_` (ticks << T_RTTVAR_BITS). ns-2.35: 12.
    #[serde(default = "d_rttvar_init")]
    pub rttvar_init: i32,
    /// `T_SRTT_BITS`. ns-2.35: 3.
    #[serde(default = "d_srtt_bits")]
    pub t_srtt_bits: u32,
    /// `T_RTTVAR_BITS`. ns-2.35: 2.
    #[serde(default = "d_rttvar_bits")]
    pub t_rttvar_bits: u32,
    /// `rttvar_exp_`. ns-2.35: 2.
    #[serde(default = "d_rttvar_exp")]
    pub rttvar_exp: u32,
    /// `maxburst_` (0 = unlimited).
    #[serde(default)]
    pub maxburst: u32,
    /// `numdupacks_`. ns-2.35: 3.
    #[serde(default = "d_numdupacks")]
    pub numdupacks: u32,
    /// `slow_start_restart_`. ns-2.35: true.
    #[serde(default = "d_true")]
    pub slow_start_restart: bool,
    /// `restart_bugfix_`. ns-2.35: true.
    #[serde(default = "d_true")]
    pub restart_bugfix: bool,
    /// `syn_`: model a SYN exchange before the first data. ns-2.35: true.
    #[serde(default = "d_true")]
    pub syn: bool,
    /// `delay_growth_`: with `syn`, do not grow cwnd for the SYN's ack. ns-2.35: true.
    #[serde(default = "d_true")]
    pub delay_growth: bool,
    /// `singledup_` (limited transmit: send one new packet on each of the first two
    /// dup acks). ns-2.35: 1.
    #[serde(default = "d_singledup")]
    pub singledup: u32,
    /// `windowOption_` (1 = standard cwnd += 1/cwnd in congestion avoidance).
    #[serde(default = "d_window_option")]
    pub window_option: u32,
    /// `increase_num_`. ns-2.35: 1.0.
    #[serde(default = "d_one")]
    pub increase_num: f64,
    /// `decrease_num_`. ns-2.35: 0.5.
    #[serde(default = "d_half")]
    pub decrease_num: f64,
    /// `overhead_` (s): random send delay; only 0 is supported.
    #[serde(default)]
    pub overhead_s: f64,
    /// `ecn_`: send data ECN-capable (ECT) and react to ECN echoes as ns-2.35's
    /// `TcpAgent::ecn()` does (halve cwnd and ssthresh at most once per window of
    /// data, then set CWR on the next packet). ns-2.35: false.
    #[serde(default)]
    pub ecn: bool,
    /// ns-2 `boot_time_`: where between clock ticks this host booted, in [0, tcp_tick).
    /// It shifts how RTT samples round to ticks. ns-2 draws it from its global RNG at
    /// `reset`; by default we draw it from this flow's own random stream. Golden tests
    /// set it to the value ns-2 drew.
    #[serde(default)]
    pub boot_time_s: Option<f64>,
    /// The congestion-control rule (`tcp::cc`): ns-2.35's standard rule, or the
    /// thesis's sender adaptation (ch. 9 SA).
    #[serde(default)]
    pub cc: CcConfig,
    /// SACK (RFC 2018): the sink puts SACK blocks (and DSACK, RFC 2883) on its acks;
    /// a sender whose `recovery` uses them keeps a scoreboard. ns-2's agents
    /// (`recovery.kind = "ns2"`) read only the DSACK count. Default false.
    #[serde(default)]
    pub sack: bool,
    /// At most this many SACK blocks per ack (RFC 2018: 3 with timestamps, as Linux
    /// sends them; 4 without). Default 3.
    #[serde(default = "d_sack_max_blocks")]
    pub sack_max_blocks: u32,
    /// The loss-recovery policy (`tcp::recovery`). Default ns-2's (`variant`).
    #[serde(default)]
    pub recovery: RecoveryConfig,
    /// The RTT estimator and retransmission timeout: ns-2.35's tick-based one (the
    /// `tcp_tick_s`, `minrto_s`, ... knobs above) or Linux's (`tcp::rtt_linux`).
    #[serde(default)]
    pub rto: RtoConfig,
    /// TCP timestamps (RFC 7323) on data and acks: 12 option bytes per packet when the
    /// sizes are derived from `mtu`, and Linux's RTO takes samples from the echo of
    /// retransmitted data. ns-2.35 default: false.
    #[serde(default)]
    pub timestamps: bool,
    /// The path MTU (bytes, IP packet). When set, `packet_size` (the MSS: MTU - 40,
    /// - 12 with timestamps), `header_size` (40, 52 with timestamps) and the sink's
    /// `ack_size` (the same header) are derived from it unless given explicitly. Unset
    /// (ns-2): those three are taken as given.
    #[serde(default)]
    pub mtu: Option<u32>,
    /// The sender's socket buffer (bytes): the application may hand the sender data
    /// only while unacknowledged plus unsent data stay within it (thesis §7.1.2.2, 32 KB
    /// there); its writes wait for acks to free room. Counted in whole segments
    /// (`sndbuf / packet_size`, at least one). Unset (ns-2's one-way TCP): no buffer,
    /// the application's data is all the sender's at once.
    #[serde(default)]
    pub sndbuf: Option<u64>,
    /// A named set of defaults for every field left out (`tcp`, `sink`, `startup`):
    /// `"linux"` (docs/defaults.md, "Linux profile"). Resolved when the configuration
    /// is read; the resolved configuration holds every value.
    #[serde(default)]
    pub profile: Option<String>,
}

fn d_sack_max_blocks() -> u32 {
    3
}

/// Loss recovery of a flow's senders (`tcp::recovery`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveryConfig {
    #[serde(default)]
    pub kind: RecoveryKind,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB, as Linux) sets the window
    /// during fast recovery (SACK recovery kinds only). Default false.
    #[serde(default)]
    pub prr: bool,
    /// F-RTO (RFC 5682, SACK-enhanced as Linux `sysctl_tcp_frto` = 2): after an RTO
    /// the next ack that advances the cumulative ack releases new data instead of
    /// retransmissions, and an ack then (S)ACKing never-retransmitted data shows the
    /// RTO spurious: the window cut is undone (`LossCounters::spurious_rtos`). With
    /// it, the sender also undoes an RTO whose first new ack echoes a timestamp older
    /// than the first retransmission (Linux `tcp_try_undo_loss`). SACK recovery kinds
    /// only. Default false.
    #[serde(default)]
    pub frto: bool,
    /// RACK's reordering window grows by min_rtt/4 per round trip with a DSACK (after
    /// reordering was seen) and returns to min_rtt/4 after 16 recoveries without one
    /// (Linux `tcp_rack_update_reo_wnd`, `reo_wnd_steps`). `rack_tlp` only. Default
    /// false (a fixed min_rtt/4).
    #[serde(default)]
    pub dsack_reo_wnd: bool,
}

/// Which loss-recovery algorithm a sender runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryKind {
    /// ns-2.35's duplicate-ack logic of `tcp.variant` (Tahoe/Reno/NewReno), bit-exact.
    #[default]
    Ns2,
    /// RFC 6675 conservative SACK-based loss recovery (IsLost with DupThresh, pipe,
    /// NextSeg). Needs `tcp.sack`.
    Rfc6675,
    /// RFC 8985 RACK-TLP with Linux's defaults. Needs `tcp.sack`.
    RackTlp,
}

/// The RTT estimator / RTO rule of a flow's senders.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RtoConfig {
    /// ns-2.35's coarse estimator (`tcp_tick_s`, `minrto_s`, `maxrto_s`, ...).
    #[default]
    Ns2,
    /// Linux's (RFC 6298 as `tcp_rtt_estimator`/`tcp_set_rto` compute it), in µs.
    Linux {
        /// `TCP_RTO_MIN`: floor of the variance term (s). Linux: 0.2.
        #[serde(default = "d_linux_rto_min")]
        min_s: f64,
        /// `TCP_RTO_MAX` (s). Linux: 120.
        #[serde(default = "d_linux_rto_max")]
        max_s: f64,
        /// `TCP_TIMEOUT_INIT`: RTO before the first sample (s). Linux: 1.
        #[serde(default = "d_linux_rto_init")]
        init_s: f64,
    },
}
fn d_linux_rto_max() -> f64 {
    120.0
}

/// The congestion-control rule of a flow's senders.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    /// ns-2.35 `opencwnd()` / `slowdown()`.
    #[default]
    Ns2,
    /// Sender adaptation (thesis ch. 9 SA; ns-2.35 `Agent/TCP/Newreno/Asym`): the
    /// window grows once per segment acknowledged (not per ack), bursts are limited
    /// to `tcp.maxburst` segments and the next burst leaves
    /// `maxburst x srtt_exact / window` later. Data carries ns-2's tcp-asym header
    /// (what the sender may still send, the echo of CE-marked acks) for an ACC sink.
    SenderAdaptation {
        /// `g_`: gain of the fine-grained smoothed RTT. ns-2.35 / thesis: 0.125.
        #[serde(default = "d_sa_gain")]
        gain: f64,
    },
    /// TCP Vienna (Ziegler et al., size-based congestion control; spec
    /// fairshare-and-sizebased part B): NewReno whose α, β, γ follow the transfer's size.
    Vienna(ViennaCcConfig),
    /// Linux's Reno (`tcp::cc::linux_reno`): slow start by segments acked (ABC),
    /// congestion avoidance one segment per window, ssthresh max(cwnd/2, 2).
    LinuxReno,
    /// CUBIC as Linux's tcp_cubic.c (`tcp::cc::cubic`; RFC 9438): β 0.7, C 0.4, fast
    /// convergence, Reno-friendly region. HyStart is a start-up policy.
    Cubic,
}
fn d_sa_gain() -> f64 {
    0.125
}

/// TCP Vienna's settings (spec fairshare-and-sizebased B.5, B.11). Defaults are the
/// spec's: TCP-V2, Eq. 4 read literally with M = 600, E\[W\] variant F, P4's paired
/// candidates, p = (0.75 L + 0.25 R) / N, the model's b = 2 (delayed acks), β at every
/// fast retransmit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViennaCcConfig {
    /// `sent` (TCP-V2: the data sent so far) or `known` (TCP-V1: the transfer's size).
    #[serde(default)]
    pub size: ViennaSize,
    /// `literal` (next = N + min(M, 2^N)) or `doubling` (next = N + min(M, 2^k)).
    #[serde(default)]
    pub schedule: ViennaSchedule,
    /// M of Eq. 4 (segments).
    #[serde(default = "d_vienna_m")]
    pub max_interval: u32,
    /// `f` (first-principles generalisation, default) or `p2` (P4's Eq. 3 corrected).
    #[serde(default)]
    pub window_model: ViennaWindowModel,
    /// Cross every α with every β (5 x 5 x 2) instead of P4's pairs.
    #[serde(default)]
    pub full_grid: bool,
    /// Weight of L (fast retransmits + partial acks) in the loss estimate.
    #[serde(default = "d_vienna_a")]
    pub loss_weight: f64,
    /// Segments per ack the model assumes (2: delayed acks at the receiver, P4).
    #[serde(default = "d_vienna_b")]
    pub model_b: f64,
    /// ns-2's `decrease_num_` compatibility: the first decrease (and any in slow
    /// start) halves whatever β is.
    #[serde(default)]
    pub ns2_first_decrease_halves: bool,
}
fn d_vienna_m() -> u32 {
    600
}
fn d_vienna_a() -> f64 {
    0.75
}
fn d_vienna_b() -> f64 {
    2.0
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViennaSize {
    /// TCP-V2.
    #[default]
    Sent,
    /// TCP-V1.
    Known,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViennaSchedule {
    #[default]
    Literal,
    Doubling,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViennaWindowModel {
    #[default]
    F,
    P2,
}
fn d_window() -> u32 {
    20
}
fn d_window_init() -> u32 {
    2
}
fn d_packet_size() -> u32 {
    1000
}
fn d_hdr() -> u32 {
    40
}
fn d_tick() -> f64 {
    0.01
}
fn d_minrto() -> f64 {
    0.2
}
fn d_maxrto() -> f64 {
    60.0
}
fn d_rtxcur_init() -> f64 {
    3.0
}
fn d_rttvar_init() -> i32 {
    12
}
fn d_srtt_bits() -> u32 {
    3
}
fn d_rttvar_bits() -> u32 {
    2
}
fn d_rttvar_exp() -> u32 {
    2
}
fn d_numdupacks() -> u32 {
    3
}
fn d_singledup() -> u32 {
    1
}
fn d_window_option() -> u32 {
    1
}
fn d_one() -> f64 {
    1.0
}
fn d_half() -> f64 {
    0.5
}
impl Default for TcpConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("TcpConfig defaults")
    }
}

/// ns-2 `Agent/TCPSink` (one ack per segment) or `Agent/TCPSink/DelAck`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkConfig {
    /// Delayed acks: ack every second in-order segment, or when the timer fires.
    #[serde(default)]
    pub delack: bool,
    /// `interval_` of `TCPSink/DelAck` (s). ns-2.35: 0.1.
    #[serde(default = "d_delack_interval")]
    pub delack_interval_s: f64,
    /// `packetSize_` of the sink: bytes of an ack on the wire. ns-2.35: 40.
    #[serde(default = "d_ack_size")]
    pub ack_size: u32,
    /// `RFC2581_immediate_ack_` (DelAck: ack at once while holes are open). ns-2.35: true.
    /// Applies to the `delayed` and `every_d` ack rules.
    #[serde(default = "d_true")]
    pub rfc2581_immediate_ack: bool,
    /// The ack rule. Unset: `delack` chooses between `every_packet` (false) and
    /// `delayed` with `delack_interval_s` (true); setting both is an error.
    #[serde(default)]
    pub ack_policy: Option<AckPolicyConfig>,
    /// Send acks ECN-capable (ECT), so an ECN-marking RED queue marks them instead of
    /// dropping them early (needed by ack congestion control). No ns-2 equivalent.
    #[serde(default)]
    pub ect_acks: bool,
    /// `ts_echo_bugfix_`: acks echo the timestamp of the oldest unacknowledged
    /// segment (RFC 1323) rather than of the segment that triggered the ack.
    /// ns-2.35: true.
    #[serde(default = "d_true")]
    pub ts_echo_bugfix: bool,
    /// A receiving application that reads slowly (`tcp::sink::Reader`): acks advertise
    /// the receive buffer's free room, the sender keeps within it. Unset: the
    /// application reads at once and only the sender's `window` limits (ns-2; ns-2 has
    /// no receive buffer or advertised window).
    #[serde(default)]
    pub reader: Option<ReaderConfig>,
}

/// The receiving application and its receive buffer (`sink.reader`; an extension, ns-2
/// has none): it reads in-order data at `rate_bps` (a fluid rate, whenever unread data
/// is there); acks advertise `floor((buffer_bytes - unread) / segment)` segments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReaderConfig {
    /// Receive buffer (bytes of payload); at least one segment.
    pub buffer_bytes: u64,
    /// The application's read rate (bits of payload per second).
    pub rate_bps: f64,
    /// Before this time (s) the application reads everything at once (no throttle):
    /// the receiver starts throttling the connection then. Default 0.
    #[serde(default)]
    pub start_s: f64,
}

/// The sink's ack rule (`tcp::sink::AckPolicy`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AckPolicyConfig {
    /// One ack per segment (ns-2 `Agent/TCPSink`).
    EveryPacket,
    /// ns-2 `Agent/TCPSink/DelAck`: hold an in-order segment's ack up to `interval_s`
    /// or until the next segment.
    Delayed {
        /// `interval_` (s). ns-2.35: 0.1.
        #[serde(default = "d_delack_interval")]
        interval_s: f64,
    },
    /// Ack every `d`-th in-order segment, or when `interval_s` has passed since the
    /// first unacked one.
    EveryD {
        d: u32,
        #[serde(default = "d_delack_interval")]
        interval_s: f64,
    },
    /// Ack congestion control (thesis ch. 9 ACC; ns-2.35 `Agent/TCPSink/Asym`): the
    /// delayed-ack factor d doubles (up to `d_max`) on a data segment carrying the
    /// sender's echo of a CE-marked ack, at most once per round trip, and drops by 1
    /// per round trip without one (down to 1); never more than half of what the
    /// sender may still send is held. Use with `ect_acks = true` and senders with
    /// `tcp.cc.kind = "sender_adaptation"`.
    Acc {
        /// Initial d. Thesis: 2 (ns-2.35 starts at 1).
        #[serde(default = "d_two")]
        d_init: u32,
        /// Upper bound on d (ns-2 `maxdelack_`). asym.tcl: 25 (ns-2.35 default 5).
        #[serde(default = "d_acc_dmax")]
        d_max: u32,
        /// Delayed-ack timer (s). ns-2.35: 0.1.
        #[serde(default = "d_delack_interval")]
        interval_s: f64,
    },
    /// Linux's receiver (`tcp::sink::LinuxAcks`): quick-acks for a fresh connection and
    /// after an idle period longer than the receiver's RTO, then an ack every second
    /// segment or on the adaptive delayed-ack timer (ato, from 40 ms); at once for
    /// out-of-order data, a filled hole or a duplicate.
    Linux {
        /// `TCP_ATO_MIN` / `TCP_DELACK_MIN` (s). Linux: 0.04 (HZ/25).
        #[serde(default = "d_ato_min")]
        ato_min_s: f64,
        /// Bound on the delayed-ack timer outside pingpong mode (s). Linux: 0.5 (HZ/2).
        #[serde(default = "d_delack_max")]
        delack_max_s: f64,
        /// `TCP_MAX_QUICKACKS`. Linux: 16.
        #[serde(default = "d_quickacks_max")]
        quickacks_max: u32,
        /// Initial receive window in segments. Linux (since 4.19): 44, the 64 KB that
        /// `tcp_select_initial_window` offers from `tcp_rmem[1]` = 128 KB (docs/defaults.md).
        #[serde(default = "d_init_rcv_wnd")]
        init_rcv_wnd: u32,
        /// The receiver's minimum RTO (s), for its idle test. Linux: 0.2 (`TCP_RTO_MIN`).
        #[serde(default = "d_linux_rto_min")]
        rto_min_s: f64,
        /// The receiver's RTO before an RTT sample (s). Linux: 1 (`TCP_TIMEOUT_INIT`).
        #[serde(default = "d_linux_rto_init")]
        rto_init_s: f64,
    },
}
fn d_ato_min() -> f64 {
    0.04
}
fn d_delack_max() -> f64 {
    0.5
}
fn d_quickacks_max() -> u32 {
    16
}
fn d_init_rcv_wnd() -> u32 {
    44
}
pub(crate) fn d_linux_rto_min() -> f64 {
    0.2
}
pub(crate) fn d_linux_rto_init() -> f64 {
    1.0
}
fn d_acc_dmax() -> u32 {
    25
}
fn d_delack_interval() -> f64 {
    0.1
}
fn d_ack_size() -> u32 {
    40
}
impl Default for SinkConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("SinkConfig defaults")
    }
}

/// Start-up policy: what the sender does when data arrives on a fresh or idle
/// connection. `ns2` is plain ns-2 behaviour (windowInit_, slow-start restart as
/// configured by the TCP knobs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartupConfig {
    #[default]
    Ns2,
    /// Explicit slow-start restart check in the send path (TCP/SPAND spec §3.2):
    /// idle >= current RTO and nothing outstanding -> cwnd = windowInit.
    IdleRestart,
    /// No restart at all: cwnd and ssthresh carry over idle periods (SunOS "nssr").
    NoRestart,
    /// TCP/SPAND: query the performance gateway, start in CA at cwnd_opt, pace.
    Spand(SpandConfig),
    /// TCP Fast Start (thesis ch. 8): reuse the cached window after an idle period,
    /// paced, at low drop priority, with a penalty-free reset when it fails.
    FastStart(FastStartConfig),
    /// Fair-share slow start (Yu & Newman, P3): LISS, ISS, MISS, JS, and P3 §5.4's
    /// Cached and Averaged comparison methods, from the server's per-destination-group
    /// state (the path entry of (host, `paths.prefix_len` prefix)).
    FairShare(FairShareConfig),
    /// Linux (`tcp::startup::linux`): restart after idle as `tcp_cwnd_restart`
    /// (`slow_start_after_idle`), and a slow-start exit detector (`exit`).
    Linux(LinuxStartupConfig),
}

/// Linux's start-up policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinuxStartupConfig {
    /// `net.ipv4.tcp_slow_start_after_idle`. Linux: 1 (true).
    #[serde(default = "d_true")]
    pub slow_start_after_idle: bool,
    /// Slow-start exit detector: `none` or `hystart` (Linux's, tcp_cubic.c). The Linux
    /// profile picks `hystart` with CUBIC (`tcp_cubic.c hystart = 1`), `none` with Reno.
    #[serde(default)]
    pub exit: SsExitConfig,
}

/// A slow-start exit detector of the Linux start-up policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsExitConfig {
    #[default]
    None,
    Hystart,
    /// HyStart++ (RFC 9406).
    HystartPp,
}

/// Which fair-share scheme starts a connection (spec fairshare-and-sizebased A.4-A.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FairShareScheme {
    Liss,
    Iss,
    Miss,
    Js,
    Cached,
    Averaged,
}

/// Where the pacing interval R of MISS and JS comes from (spec A.15 item 6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaceRtt {
    /// The srtt of the group's oldest steady connection (the spec's default).
    #[default]
    Oldest,
    /// The connection's own srtt if it has a sample (its handshake), else the oldest's.
    Own,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairShareConfig {
    pub scheme: FairShareScheme,
    /// ssthresh of a connection without a steady connection in its group (P3 §5: 10).
    #[serde(default = "d_fs_ssthresh")]
    pub default_ssthresh: u32,
    /// Pace MISS's and JS's initial window over R (P3: on; JS unpaced was not simulated).
    #[serde(default = "d_true")]
    pub pacing: bool,
    #[serde(default)]
    pub pace_rtt: PaceRtt,
    /// The loose reading of LISS/ISS in P3's introduction: ssthresh = w_o itself, not
    /// Eq. 2's share (spec A.15 item 15).
    #[serde(default)]
    pub plain_w_o: bool,
    /// Averaged: sampling period, averaging window and recomputation period (P3 §5.4:
    /// 1 s, 5 min, 1 min).
    #[serde(default = "d_one")]
    pub avg_sample_s: f64,
    #[serde(default = "d_avg_window")]
    pub avg_window_s: f64,
    #[serde(default = "d_avg_update")]
    pub avg_update_s: f64,
}
fn d_fs_ssthresh() -> u32 {
    10
}
fn d_avg_window() -> f64 {
    300.0
}
fn d_avg_update() -> f64 {
    60.0
}

/// TCP Fast Start (spec thesis-faststart-asymmetry A.2-A.7). The thesis's
/// configurations: `fs` and `fs-pdrop` are the defaults (the router decides whether
/// the marks matter), `fs-pdrop-noflr` is `fast_loss_recov = false`, the "coarse reset
/// timer" variant `fine_reset_timer = false`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastStartConfig {
    /// Send the fast-start packets (the initial window after resumption less its first
    /// segment) at low drop priority (A.5).
    #[serde(default = "d_true")]
    pub priority_marking: bool,
    /// Augmented loss recovery (A.7): reset timer while in fast start, penalty-free
    /// slow start when a fast-start packet is lost, reset on a partial ack.
    #[serde(default = "d_true")]
    pub fast_loss_recov: bool,
    /// The reset timer's timeout: srtt_exact + 4 rttvar_exact (true) or the RTO
    /// (false: the thesis's "coarse reset timer").
    #[serde(default = "d_true")]
    pub fine_reset_timer: bool,
    /// Burst pacing of the fast-start window: at most `maxburst` segments back to
    /// back, the next burst `maxburst * srtt_exact / cwnd` later (A.6); 0 sends the
    /// window as fast as the window allows. Thesis: 4.
    #[serde(default = "d_bucket")]
    pub maxburst: u32,
    /// Cached state older than this is stale: slow-start restart (A.3). Thesis: 300 s.
    #[serde(default = "d_fs_max_idle")]
    pub max_idle_s: f64,
    /// A connection without history of its own starts from its path entry's cache
    /// (the state the last connection to the same host, or network with a shorter
    /// `paths.prefix_len`, left), if fresh.
    #[serde(default = "d_true")]
    pub use_path_cache: bool,
    /// Open the window once per packet a new ack covers, not once per ack (ns-2.35
    /// `count_bytes_acked_`, set true in the thesis author's simulation scripts): the
    /// slow start after a reset grows with what the cumulative acks of the failed
    /// window's surviving segments cover.
    #[serde(default = "d_true")]
    pub count_acked: bool,
}
fn d_fs_max_idle() -> f64 {
    300.0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpandConfig {
    /// Name of the gateway in `SimConfig::gateways`.
    pub gateway: String,
    /// Packets covered by one ack in the model (b). 1 for `TCPSink`.
    #[serde(default = "d_one")]
    pub b: f64,
    /// Apply the Eq. (4) shift.
    #[serde(default = "d_true")]
    pub shift: bool,
    /// Pace the initial window with a token bucket.
    #[serde(default = "d_true")]
    pub pacing: bool,
    /// Token bucket depth (segments).
    #[serde(default = "d_bucket")]
    pub bucket_depth: u32,
    /// Ablation: reuse the previous cwnd (paced) instead of cwnd_opt.
    #[serde(default)]
    pub reuse_previous_cwnd: bool,
    /// Fallback when Eq. (3) has no solution: "eq2" (spec default) or "one" (literal).
    #[serde(default)]
    pub infeasible_policy: InfeasiblePolicy,
    /// Report W_c samples to the gateway (only SPAND senders report by default).
    #[serde(default = "d_true")]
    pub report: bool,
    /// Cap on cwnd_opt (packets); 0 = the TCP `window`.
    #[serde(default)]
    pub max_window: u32,
    /// The RTT reported with each W_c sample, and the resolution the gateway's RTT is
    /// injected with: `fractional` (ns-2's `t_srtt_ / 8 × tick`), `ticks` (whole ticks,
    /// ablation), `exact` (EWMA of the unquantised samples, ablation).
    #[serde(default)]
    pub rtt_report: RttReport,
    /// Ablation: floor each W_c sample (`floor(cwnd) − 1`, `floor(cwnd)`) before the
    /// gateway's mean is floored again. Paper: samples are the real-valued cwnd.
    #[serde(default)]
    pub floor_samples: bool,
    /// Which transfers report cwnd at their end: `loss_free` (paper §5.1) or
    /// `no_ca_sample` (spec A10: also after slow-start-only or timeout-only losses).
    #[serde(default)]
    pub end_sample: EndSample,
    /// The token bucket starts full (spec A7) or, false, empty (ablation).
    #[serde(default = "d_true")]
    pub bucket_starts_full: bool,
    /// Ablation (ours, not the paper's): a loss-free transfer reports at least the W_c
    /// estimate it started from, so loss-free transfers cannot lower the estimate.
    #[serde(default)]
    pub no_decrease: bool,
}
fn d_bucket() -> u32 {
    4
}

/// TCP/SPAND: which smoothed RTT a sender reports (and the injection resolution).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttReport {
    /// `t_srtt_ / 2^T_SRTT_BITS × tick`: the fractional bits ns-2 keeps.
    #[default]
    Fractional,
    /// `(t_srtt_ >> T_SRTT_BITS) × tick`: whole ticks.
    Ticks,
    /// The same EWMA over exact RTT samples (no tick quantisation).
    Exact,
}

/// TCP/SPAND: which transfers report their end-of-transfer cwnd as a W_c sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndSample {
    /// Only transfers without any loss event (paper §5.1).
    #[default]
    LossFree,
    /// Every transfer without a congestion-avoidance fast-retransmit sample (spec A10).
    NoCaSample,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InfeasiblePolicy {
    #[default]
    Eq2,
    One,
}

/// A TCP/SPAND performance gateway: per-destination-network sliding-window averages.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayConfig {
    pub name: String,
    /// Sliding window over which samples are averaged (s). Paper: 300.
    #[serde(default = "d_gw_window")]
    pub window_s: f64,
    /// Fewer samples than this in the window means "no history": slow start.
    #[serde(default = "d_min_samples")]
    pub min_samples: u32,
    /// Destination prefix length grouping hosts into networks.
    #[serde(default = "d_prefix")]
    pub prefix_len: u8,
}
fn d_gw_window() -> f64 {
    300.0
}
fn d_min_samples() -> u32 {
    1
}
fn d_prefix() -> u8 {
    24
}

/// Applications and traffic sources, attached to flows.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Bulk transfer: `bytes` = None is an infinite source (ns-2 `ftp start`).
    Ftp {
        flow: String,
        #[serde(default)]
        start_s: f64,
        #[serde(default)]
        bytes: Option<u64>,
        /// Start uniformly in [start, start + start_jitter_s) (the flow's own stream).
        #[serde(default)]
        start_jitter_s: f64,
        /// Start only once every one of these flows has completed its first download
        /// (its first round, for a rounds workload; its transfer, for a finite FTP);
        /// `start_s` then counts from that moment (Fast Start's "changed load").
        #[serde(default)]
        start_after: Vec<String>,
        /// Tear the connection down at this time (s): it stops sending, cancels its
        /// timers and leaves its start-up policy's shared state (P3's FTP lifetimes).
        /// Exclusive with `duration_s`.
        #[serde(default)]
        stop_s: Option<f64>,
        /// Tear the connection down this long after it started (s).
        #[serde(default)]
        duration_s: Option<f64>,
    },
    /// Rounds of short transfers over long-lived connections (TCP/SPAND §6.2).
    Rounds(RoundsConfig),
    /// ns-2 `Application/Telnet`: one packet per event; `interval_s` = 0 draws
    /// inter-arrivals from the tcplib telnet distribution, otherwise exponential.
    Telnet {
        flow: String,
        #[serde(default)]
        start_s: f64,
        /// Draw the start time uniformly in [start_s, start_s + start_jitter_s).
        #[serde(default)]
        start_jitter_s: f64,
        #[serde(default)]
        interval_s: f64,
    },
    /// ON/OFF source over UDP (ns-2 `Application/Traffic/Pareto` or `/Exponential`).
    OnOff(OnOffConfig),
    /// SURGE-like Web user equivalents (P4 Figs. 4-6; Barford & Crovella 1998): each
    /// user alternates pages and think times; a page's objects are fetched one after
    /// another, each over a fresh connection (HTTP/1.0), after a one-segment request.
    Surge(SurgeConfig),
    /// Web page downloads between client–server pairs (thesis ch. 4–5, spec part E):
    /// `traffic/web.rs`.
    Web(WebConfig),
    /// Several object streams multiplexed on one persistent TCP connection (WebMUX
    /// style, thesis §7.1.2.2): `traffic/webmux.rs`.
    Mux(MuxConfig),
    /// Constant bit rate over UDP (ns-2 `Application/Traffic/CBR`).
    Cbr {
        flow: String,
        #[serde(default)]
        start_s: f64,
        #[serde(default)]
        stop_s: Option<f64>,
        rate_bps: f64,
        #[serde(default = "d_udp_pkt")]
        packet_size: u32,
    },
}

/// A Web workload (thesis ch. 4–5, spec part E; behaviour in `traffic/web.rs`). Each
/// pair is one client and one server host; its connections are TCP flows from the
/// server (data sender) to the client, used in the order listed: HTTP/1.0 takes a fresh
/// one per object, the persistent modes keep one open (a fresh one after the server's
/// idle close). Pages repeat `n_pages` times per pair, `think_s` after the previous
/// page's last byte.
/// A WebMUX-style multiplexer (thesis §7.1.2.2, `traffic/webmux.rs`): one TCP flow
/// carries several object streams; each stream is requested at its `start_s` (at the
/// server) and the multiplexer writes its data in chunks into the sender's socket
/// buffer (`tcp.sndbuf`) as room frees, choosing the stream by `policy`. An object is
/// complete when its last byte reaches the client. Finite: the application is done
/// when every object has arrived.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MuxConfig {
    pub flow: String,
    /// The objects, in any order of `start_s`.
    pub streams: Vec<MuxStreamConfig>,
    /// Bytes written per turn of a stream (rounded up to whole segments); default
    /// (None) one segment.
    #[serde(default)]
    pub chunk_bytes: Option<u64>,
    /// `"priority"` (default): the requested stream of the highest `priority` with
    /// data gets all freed room, equal priorities take turns chunk by chunk;
    /// `"round_robin"`: every requested stream with data takes turns, priorities
    /// ignored.
    #[serde(default = "d_mux_policy")]
    pub policy: String,
}

fn d_mux_policy() -> String {
    "priority".into()
}

/// One object of a [`MuxConfig`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MuxStreamConfig {
    /// When the server has the object to send (its request's arrival), s.
    #[serde(default)]
    pub start_s: f64,
    pub bytes: u64,
    /// Higher is more urgent (policy `"priority"`). Default 0.
    #[serde(default)]
    pub priority: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    pub pairs: Vec<WebPairConfig>,
    /// `seq` (HTTP/1.0 sequential), `conc` (HTTP/1.0, the HTML then up to `parallel`
    /// image connections at once), `persistent` (one connection, one request at a
    /// time), `getlist` (one connection, the image requests pipelined back to back
    /// after the HTML), `getall` (one request returns the HTML and every image).
    pub mode: String,
    /// `conc`: image connections open at once (default: every image of the page).
    #[serde(default)]
    pub parallel: Option<u32>,
    /// Fixed pages, used in turn (page k is `pages[k % len]`).
    #[serde(default)]
    pub pages: Vec<WebPageConfig>,
    /// Pages drawn from distributions (the app's own random stream) instead.
    #[serde(default)]
    pub random_page: Option<RandomPageConfig>,
    /// Pages per pair, one after the other.
    #[serde(default = "d_pages")]
    pub n_pages: u32,
    /// Client think time between a page's last byte and the next page's first action (s).
    #[serde(default)]
    pub think_s: f64,
    /// Server processing time between a request's arrival and its response (s).
    #[serde(default)]
    pub server_think_s: f64,
    /// Request size (payload bytes; each request is one packet client → server).
    #[serde(default = "d_request_bytes")]
    pub request_bytes: u32,
    /// First page of every pair at `start_s` plus a uniform draw in [0, start_jitter_s).
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub start_jitter_s: f64,
    /// Persistent modes: the server closes a connection idle this long (s); the next
    /// page then opens a fresh one. None: never.
    #[serde(default)]
    pub idle_close_s: Option<f64>,
    /// A lost control packet (SYN or request) is sent again after this long, doubling
    /// per attempt (s). ns-2/BSD initial RTO: 3 s.
    #[serde(default = "d_ctl_rto")]
    pub ctl_rto_s: f64,
}
fn d_pages() -> u32 {
    1
}
fn d_request_bytes() -> u32 {
    300
}
fn d_ctl_rto() -> f64 {
    3.0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebPairConfig {
    /// Name of the pair in the results (`pages.pair`, `objects.pair`).
    pub name: String,
    /// The pair's connections: TCP flows from the server to the client.
    pub conns: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebPageConfig {
    pub html_bytes: u64,
    #[serde(default)]
    pub image_bytes: Vec<u64>,
}

/// A page drawn at random: the HTML's and each image's size from their distributions,
/// the number of images uniform in [images_min, images_max].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomPageConfig {
    pub html: SizeDist,
    pub image: SizeDist,
    pub images_min: u32,
    pub images_max: u32,
}

/// An object-size distribution (bytes; draws are rounded up to whole bytes, at least 1).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed {
        bytes: u64,
    },
    Exponential {
        mean_bytes: f64,
    },
    /// Pareto with this mean and shape (> 1): scale = mean (shape - 1) / shape.
    Pareto {
        mean_bytes: f64,
        shape: f64,
    },
    Uniform {
        min_bytes: u64,
        max_bytes: u64,
    },
    /// Lognormal with this median and sigma of the underlying normal.
    Lognormal {
        median_bytes: f64,
        sigma: f64,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    pub flow: String,
    /// "pareto" or "exponential".
    pub dist: OnOffDist,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub start_jitter_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Sending rate while ON.
    pub rate_bps: f64,
    /// `packetSize_` (bytes). ns-2.35: 210.
    #[serde(default = "d_udp_pkt")]
    pub packet_size: u32,
    /// `burst_time_` (mean ON, s). ns-2.35: 0.5.
    #[serde(default = "d_half")]
    pub on_s: f64,
    /// `idle_time_` (mean OFF, s). ns-2.35: 0.5.
    #[serde(default = "d_half")]
    pub off_s: f64,
    /// `shape_` (Pareto only). ns-2.35: 1.5.
    #[serde(default = "d_shape")]
    pub shape: f64,
}
fn d_udp_pkt() -> u32 {
    210
}
fn d_shape() -> f64 {
    1.5
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnOffDist {
    Pareto,
    Exponential,
}

/// SURGE-like Web users (`traffic/surge.rs`). Defaults: the SURGE distributions as
/// spec fairshare-and-sizebased B.7.3 gives them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurgeConfig {
    /// One response connection per user (server -> client), TCP.
    pub flows: Vec<String>,
    /// The matching request connections (client -> server), TCP, same length.
    pub request_flows: Vec<String>,
    /// Each user's first page starts uniformly in [start_s, start_s + start_jitter_s).
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub start_jitter_s: f64,
    /// No page starts at or after this time (objects of a page in progress finish).
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Request size (bytes); default one segment of the request connection.
    #[serde(default)]
    pub request_bytes: Option<u64>,
    /// Object size body: lognormal, parameters of ln(bytes).
    #[serde(default = "d_surge_mu")]
    pub size_mu: f64,
    #[serde(default = "d_surge_sigma")]
    pub size_sigma: f64,
    /// Object size tail: Pareto with scale `tail_k_bytes` and shape `tail_alpha`,
    /// replacing lognormal draws above `tail_k_bytes` (continuous CDF).
    #[serde(default = "d_surge_tail_k")]
    pub tail_k_bytes: f64,
    #[serde(default = "d_surge_tail_alpha")]
    pub tail_alpha: f64,
    /// Object sizes are capped here (bytes).
    #[serde(default = "d_surge_max_object")]
    pub max_object_bytes: u64,
    /// Objects per page: floor of a Pareto(`objects_k`, `objects_alpha`) draw.
    #[serde(default = "d_one")]
    pub objects_k: f64,
    #[serde(default = "d_surge_objects_alpha")]
    pub objects_alpha: f64,
    /// Active OFF time between a page's objects: Weibull (shape, scale in s).
    #[serde(default = "d_surge_active_shape")]
    pub active_off_shape: f64,
    #[serde(default = "d_surge_active_scale")]
    pub active_off_scale_s: f64,
    /// Inactive OFF (think) time between pages: Pareto (scale in s, shape).
    #[serde(default = "d_one")]
    pub think_k_s: f64,
    #[serde(default = "d_surge_think_alpha")]
    pub think_alpha: f64,
}

fn d_surge_mu() -> f64 {
    9.357
}
fn d_surge_sigma() -> f64 {
    1.318
}
fn d_surge_tail_k() -> f64 {
    133_000.0
}
fn d_surge_tail_alpha() -> f64 {
    1.1
}
fn d_surge_max_object() -> u64 {
    10_000_000
}
fn d_surge_objects_alpha() -> f64 {
    2.43
}
fn d_surge_active_shape() -> f64 {
    1.46
}
fn d_surge_active_scale() -> f64 {
    0.382
}
fn d_surge_think_alpha() -> f64 {
    1.5
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundsConfig {
    /// Connections taking part; each sends one file per round.
    pub flows: Vec<String>,
    pub rounds: u32,
    /// File size (bytes); sent as ceil(size / packet_size) segments.
    pub size_bytes: u64,
    /// Width of the uniform start window around each round's centre (s).
    pub jitter_s: f64,
    /// Idle time between rounds (s).
    pub idle_s: f64,
    /// Centre of the first round's start window (s).
    pub first_center_s: f64,
    /// How the next round's centre is chosen.
    #[serde(default)]
    pub timing: RoundTiming,
    /// Per-flow file sizes override `size_bytes` when given (mixed workloads).
    #[serde(default)]
    pub sizes_bytes: Option<Vec<u64>>,
    /// Per-round file sizes (one per round) override `size_bytes` (a priming download,
    /// then the measured one).
    #[serde(default)]
    pub round_sizes_bytes: Option<Vec<u64>>,
    /// Per-round start-window widths (one per round) override `jitter_s`.
    #[serde(default)]
    pub round_jitter_s: Option<Vec<f64>>,
    /// Each download is a Web page on the persistent connection: an HTML object, then,
    /// once it is delivered and the follow-up request has reached the server, the
    /// round's file (the inline images).
    #[serde(default)]
    pub page: Option<PageConfig>,
}

/// A Web page download on a persistent connection (thesis ch. 8 simulations): the
/// server sends `html_bytes`; the client's pipelined request for the images leaves
/// with the ack of the HTML's last segment and reaches the server `request_gap_s`
/// after that ack (the request's extra serialisation over the ack's); then the
/// server sends the images (the round's file). Both are recorded transfers of the
/// same round.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageConfig {
    pub html_bytes: u64,
    #[serde(default)]
    pub request_gap_s: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoundTiming {
    /// Next centre = last completion of this round + idle + jitter/2 (spec §3.6).
    #[default]
    AfterLast,
    /// Fixed period: centre_k = first_center + k * period_s (the shared ns-2 script).
    FixedPeriod { period_s: f64 },
}

/// What to record beside the always-on per-transfer and per-flow results.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Every ack received by a TCP sender: (flow, time, ackno). Used by golden tests.
    #[serde(default)]
    pub acks: bool,
    /// Per-packet events on links: enqueue, dequeue, drop, receive.
    #[serde(default)]
    pub packets: bool,
    /// cwnd / ssthresh / srtt sample at every ack of every TCP sender.
    #[serde(default)]
    pub cwnd: bool,
    /// Only trace these links ("a->b"); empty = all.
    #[serde(default)]
    pub links: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_defaults_are_ns235() {
        let t = TcpConfig::default();
        assert_eq!(t.window, 20);
        assert_eq!(t.window_init, 2);
        assert_eq!(t.packet_size, 1000);
        assert_eq!(t.tcp_tick_s, 0.01);
        assert_eq!(t.minrto_s, 0.2);
        assert_eq!(t.maxrto_s, 60.0);
        assert_eq!(t.rtxcur_init_s, 3.0);
        assert_eq!(t.rttvar_init, 12);
        assert!(t.syn);
        assert_eq!(t.singledup, 1);
        assert_eq!(t.variant, TcpVariant::Newreno);
    }

    /// docs/defaults.md must list every default with the value the code uses.
    #[test]
    fn docs_defaults_table_matches() {
        let doc = include_str!("../../../docs/defaults.md");
        let gw: GatewayConfig = serde_json::from_str(r#"{"name":"gw"}"#).unwrap();
        let sp: SpandConfig = serde_json::from_str(r#"{"gateway":"gw"}"#).unwrap();
        let fs: FastStartConfig = serde_json::from_str("{}").unwrap();
        let session: SessionConfig = serde_json::from_str("{}").unwrap();
        let sections = [
            ("tcp", serde_json::to_value(TcpConfig::default()).unwrap()),
            ("sink", serde_json::to_value(SinkConfig::default()).unwrap()),
            ("queue", serde_json::to_value(QueueConfig::default()).unwrap()),
            ("red", serde_json::to_value(RedConfig::default()).unwrap()),
            ("gateway", serde_json::to_value(gw).unwrap()),
            ("spand", serde_json::to_value(sp).unwrap()),
            ("fast_start", serde_json::to_value(fs).unwrap()),
            ("session", serde_json::to_value(session).unwrap()),
        ];
        for (sec, v) in sections {
            for (k, val) in v.as_object().unwrap() {
                if (sec, k.as_str()) == ("gateway", "name") || (sec, k.as_str()) == ("spand", "gateway") {
                    continue;
                }
                let row = format!("| `{sec}.{k}` | `{val}` |");
                assert!(doc.contains(&row), "docs/defaults.md lacks or disagrees with: {row}");
            }
        }
    }

    #[test]
    fn unknown_field_is_rejected() {
        let e = serde_json::from_str::<TcpConfig>(r#"{"windw": 3}"#).unwrap_err();
        assert!(e.to_string().contains("windw"), "{e}");
    }
}
