//! The one-way TCP sender of ns-2.35: `Agent/TCP` (Tahoe), `Agent/TCP/Reno`,
//! `Agent/TCP/Newreno` (tcp.cc, tcp-reno.cc, tcp-newreno.cc).
//!
//! Heads up! This file is a behavioural port of ns-2.35 for the default knobs the
//! papers use (no ECN, no timestamps, no SACK, no Quick-Start, no F-RTO,
//! `overhead_` 0, `bugFix_` true, `aggressive_maxburst_` 1, `timerfix_` true,
//! `rfc2988_` true, `precision_reduce_` true, NewReno `newreno_changes_` 0,
//! `newreno_changes1_` 1, `partial_window_deflation_` 1, `exit_recovery_fix_` 0,
//! `exitFastRetrans_` true). Golden tests compare every ack with ns-2.35; a change
//! here must keep `cargo test --release --test golden_ns2` green. Functions carry the
//! name of their ns-2 original.
//!
//! Sequence numbers count packets, as in ns-2. `curseq` is how far the application
//! allows sending; `t_seqno` the next packet to send; `maxseq` the highest sent;
//! `highest_ack`/`last_ack` the cumulative ack.
//!
//! This file is the per-connection *mechanism*: sequence state, the log of sent
//! segments, ns-2's duplicate-ack and recovery logic, the retransmission timer and the
//! application's transfers. The window it sends under, the RTT estimator and the
//! policies live in the connection's [`ControlBlock`] (`tcp::control`), passed to
//! every method. The mechanism never changes the window itself: it reports typed
//! events (`tcp::events`) to the start-up policy (first, for a verdict) and to the
//! congestion control.

use std::sync::Arc;

use crate::config::{CcConfig, RecoveryConfig, RtoConfig, TcpConfig, TcpVariant};
use crate::engine::{PktId, Timer};
use crate::error::{non_negative, positive, ConfigError};
use crate::net::packet::{AsymHeader, Packet, PktOptions};
use crate::path::PathCtx;
use crate::tcp::cc::{CwndAction, RttView};
use crate::tcp::control::{hook, ControlBlock};
use crate::tcp::events::{AckSample, LossEvent, LossKind, LossVerdict, Phase, SendMeta};
use crate::tcp::recovery::{count, LossCounters, SackRecovery};
use crate::tcp::rtt::RttParams;
use crate::tcp::rtt_linux::LinuxRtoParams;
use crate::tcp::sentlog::SentLog;
use crate::tcp::startup::StartCtx;
use crate::time::{OptTime, SimTime};
use crate::world::{Ctx, Notice, PendingQueue, TransferRec};

/// ns-2 `TCP_MAXSEQ`: an "infinite" application.
pub const TCP_MAXSEQ: i64 = 1_073_741_824;

pub const TIMER_RTX: u8 = 0;
pub const TIMER_PACE: u8 = 1;
/// RACK's reorder timer (`tcp.recovery.kind = "rack_tlp"`); 2 is the sink's delayed ack.
pub const TIMER_RACK: u8 = 3;
/// The tail-loss-probe timer.
pub const TIMER_TLP: u8 = 4;

mod sack;

/// Static per-connection parameters (resolved from `TcpConfig`), shared by `Arc`.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    pub variant: TcpVariant,
    pub wnd: f64,
    pub wnd_init: i32,
    pub maxcwnd: i32,
    pub size: u32,
    pub hdr: u32,
    pub initial_ssthresh: i32,
    pub rtt: RttParams,
    pub maxburst: i32,
    pub numdupacks: i32,
    pub slow_start_restart: bool,
    pub restart_bugfix: bool,
    pub syn: bool,
    pub delay_growth: bool,
    pub singledup: bool,
    pub increase_num: f64,
    pub decrease_num: f64,
    pub ecn: bool,
    /// The congestion-control rule (validated).
    pub cc: CcConfig,
    /// Data carries ns-2.35's tcp-asym header and echoes CE-marked acks (ECE on
    /// data) and the latest ack's timestamp: senders with sender adaptation.
    pub asym_header: bool,
    /// SACK blocks on acks (`tcp.sack`) and how many at most (`tcp.sack_max_blocks`).
    pub sack: bool,
    pub sack_max_blocks: u8,
    /// The loss-recovery policy (validated against `sack`).
    pub recovery: RecoveryConfig,
    /// Linux's RTT estimator and RTO (`tcp.rto.kind = "linux"`) instead of ns-2's.
    pub linux_rto: Option<LinuxRtoParams>,
    /// TCP timestamps (`tcp.timestamps`).
    pub timestamps: bool,
    /// The socket buffer in segments (`tcp.sndbuf / packet_size`); None: no buffer.
    pub sndbuf_pkts: Option<i64>,
}

impl TcpParams {
    /// Validate a flow's `tcp` table (`field` is its path, for errors) and resolve
    /// the parameters its connections share.
    pub fn from_config(field: &str, t: &TcpConfig) -> Result<TcpParams, ConfigError> {
        if t.window < 1 {
            return Err(ConfigError::new(format!("{field}.window"), t.window, "must be at least 1 packet"));
        }
        if t.window_init < 1 {
            return Err(ConfigError::new(format!("{field}.window_init"), t.window_init, "must be at least 1 packet"));
        }
        if t.packet_size < 1 {
            return Err(ConfigError::new(format!("{field}.packet_size"), t.packet_size, "must be at least 1 byte"));
        }
        let tick = positive(&format!("{field}.tcp_tick_s"), t.tcp_tick_s)?;
        non_negative(&format!("{field}.minrto_s"), t.minrto_s)?;
        positive(&format!("{field}.maxrto_s"), t.maxrto_s)?;
        positive(&format!("{field}.rtxcur_init_s"), t.rtxcur_init_s)?;
        if t.numdupacks < 1 {
            return Err(ConfigError::new(format!("{field}.numdupacks"), t.numdupacks, "must be at least 1"));
        }
        if t.t_rttvar_bits < 1 || t.t_srtt_bits < t.t_rttvar_bits || t.t_srtt_bits > 8 {
            return Err(ConfigError::new(
                format!("{field}.t_srtt_bits"),
                format!("{}/{}", t.t_srtt_bits, t.t_rttvar_bits),
                "need 1 <= t_rttvar_bits <= t_srtt_bits <= 8",
            ));
        }
        if t.rttvar_exp > 8 {
            return Err(ConfigError::new(format!("{field}.rttvar_exp"), t.rttvar_exp, "must be at most 8"));
        }
        if t.overhead_s != 0.0 {
            return Err(ConfigError::new(
                format!("{field}.overhead_s"),
                t.overhead_s,
                "only 0 (no random send delay) is supported",
            ));
        }
        if t.window_option != 1 {
            return Err(ConfigError::new(
                format!("{field}.window_option"),
                t.window_option,
                "only windowOption_ 1 (standard) is supported",
            ));
        }
        positive(&format!("{field}.increase_num"), t.increase_num)?;
        let dn = positive(&format!("{field}.decrease_num"), t.decrease_num)?;
        if dn >= 1.0 {
            return Err(ConfigError::new(format!("{field}.decrease_num"), dn, "must be below 1"));
        }
        if let Some(b) = t.boot_time_s {
            if !(0.0..tick).contains(&b) {
                return Err(ConfigError::new(
                    format!("{field}.boot_time_s"),
                    b,
                    format!("must be in [0, tcp_tick_s = {tick})"),
                ));
            }
        }
        crate::tcp::cc::AnyCc::from_config(field, &t.cc, t.maxburst)?;
        if !(1..=crate::net::packet::MAX_SACK_BLOCKS as u32).contains(&t.sack_max_blocks) {
            return Err(ConfigError::new(
                format!("{field}.sack_max_blocks"),
                t.sack_max_blocks,
                format!(
                    "must be 1 to {} (RFC 2018: 4 blocks fit in the option space, 3 with timestamps)",
                    crate::net::packet::MAX_SACK_BLOCKS
                ),
            ));
        }
        SackRecovery::from_config(field, &t.recovery, t.sack)?;
        if let Some(mtu) = t.mtu {
            if t.packet_size as u64 + t.header_size as u64 > mtu as u64 {
                return Err(ConfigError::new(
                    format!("{field}.packet_size"),
                    t.packet_size,
                    format!("with header_size = {} it exceeds mtu = {mtu}", t.header_size),
                ));
            }
        }
        let sndbuf_pkts = match t.sndbuf {
            None => None,
            Some(b) if b < t.packet_size as u64 => {
                return Err(ConfigError::new(
                    format!("{field}.sndbuf"),
                    b,
                    format!("must hold at least one segment (packet_size = {} bytes)", t.packet_size),
                ));
            }
            Some(b) => Some((b / t.packet_size as u64).min(TCP_MAXSEQ as u64) as i64),
        };
        let linux_rto = match &t.rto {
            RtoConfig::Ns2 => None,
            RtoConfig::Linux { min_s, max_s, init_s } => {
                Some(LinuxRtoParams::from_config(&format!("{field}.rto"), *min_s, *max_s, *init_s, t.timestamps)?)
            }
        };
        Ok(TcpParams {
            variant: t.variant,
            wnd: t.window as f64,
            wnd_init: t.window_init as i32,
            maxcwnd: t.maxcwnd as i32,
            size: t.packet_size,
            hdr: t.header_size,
            initial_ssthresh: t.ssthresh as i32,
            rtt: RttParams {
                tick,
                srtt_bits: t.t_srtt_bits,
                rttvar_bits: t.t_rttvar_bits,
                rttvar_exp: t.rttvar_exp,
                minrto: t.minrto_s,
                maxrto: t.maxrto_s,
                rtxcur_init: t.rtxcur_init_s,
                srtt_init: t.srtt_init,
                rttvar_init: t.rttvar_init,
            },
            maxburst: t.maxburst as i32,
            numdupacks: t.numdupacks as i32,
            slow_start_restart: t.slow_start_restart,
            restart_bugfix: t.restart_bugfix,
            syn: t.syn,
            delay_growth: t.delay_growth,
            singledup: t.singledup != 0,
            increase_num: t.increase_num,
            decrease_num: t.decrease_num,
            ecn: t.ecn,
            cc: t.cc.clone(),
            asym_header: matches!(t.cc, CcConfig::SenderAdaptation { .. }),
            sack: t.sack,
            sack_max_blocks: t.sack_max_blocks as u8,
            recovery: t.recovery,
            linux_rto,
            timestamps: t.timestamps,
            sndbuf_pkts,
        })
    }
}

/// An arriving ack as `recv` saw it before processing it.
#[derive(Clone, Copy, Debug)]
struct AckIn {
    ackno: i64,
    /// The cumulative ack before this one.
    prev: i64,
    ece: bool,
    /// The sender timestamp the ack echoes (`SimTime::ZERO`: none).
    ts_echo: SimTime,
}

/// What a connection keeps for blocks that want per-segment detail.
#[derive(Clone, Debug, Default)]
struct Detail {
    /// Sent and not yet cumulatively acked segments.
    log: SentLog,
    /// Round-trip counting: the round ends when `round_end` is acked.
    round_end: i64,
    round: u64,
    /// What the latest new ack yielded.
    last: AckDetail,
}

/// Per-segment detail of the latest new ack (see `TcpConn::take_detail`).
#[derive(Clone, Copy, Debug, Default)]
struct AckDetail {
    rtt: Option<SimTime>,
    rate: Option<crate::tcp::events::RateSample>,
    round_done: bool,
}

/// The sender's socket buffer (`tcp.sndbuf`): the application's data enters the
/// sender (`curseq`) only while unacknowledged plus unsent data fit in `cap` segments;
/// the rest of a write waits (`blocked`) until acks free room. Boxed: a connection
/// without one carries a null pointer.
#[derive(Clone, Copy, Debug, Default)]
struct SndBuf {
    cap: i64,
    /// Data segments the application has put into the buffer so far (not the SYN).
    written: i64,
    /// Segments of blocked writes, not yet in the buffer.
    blocked: i64,
    /// The application wants to hear when room frees (`Notice::Writable`).
    watch: bool,
}

/// One connection's sending mechanism (ns-2's one-way agent less its window).
pub struct TcpConn {
    pub agent: u32,
    pub flow: u32,
    pub node: u32,
    pub dst_node: u32,
    pub dst_agent: u32,
    pub dst_addr: u32,
    /// The control block this connection sends under (index in `TcpSenders::cbs`).
    pub cb: u32,
    /// This connection's entry in the path registry (`crate::path`), `NO_PATH`
    /// until a policy first uses it.
    pub path: std::cell::Cell<u32>,
    /// The first link towards `dst_node` (`Network::first_link`), or `NO_LINK`
    /// if the builder did not set it: lets `output` skip the route lookup
    /// (`Network::send_via`).
    pub first_link: u32,
    p: Arc<TcpParams>,
    // ns-2 sequence state
    pub t_seqno: i64,
    pub curseq: i64,
    pub maxseq: i64,
    pub last_ack: i64,
    pub highest_ack: i64,
    recover: i64,
    pub dupacks: i32,
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: SimTime,
    closed: bool,
    firstpartial: bool,
    rtx_timer: Timer,
    /// Memo of the last `SimTime::from_secs_f64(rto)` in `set_rtx_timer`, keyed by the
    /// rto's bit pattern. The RTO is re-armed on nearly every ack with the same value,
    /// and the conversion (a multiply and a libm `round` call) is then skipped; the
    /// result is the same pure function of the same bits, so it is exact.
    rto_memo: (u64, SimTime),
    pub last_send: OptTime,
    /// Sent and not yet cumulatively acked segments (for ack samples and loss events).
    /// Boxed, and only for blocks that want detail (`ControlBlock::detail`): an idle
    /// connection of ns-2's rules carries one pointer for it.
    detail: Option<Box<Detail>>,
    transfers: PendingQueue,
    // counters (ns-2 names)
    pub ndatapack: u64,
    /// Fast-retransmit episodes (ns-2 `nfastrexmit_`; ns-2 recovery only). Retransmitted
    /// segments and timeouts are in `ctr`. This and the next two are `u32`s, added to
    /// with `count!` as the loss counters are (16 bytes less per sender): each episode,
    /// ECN reduction or restart follows a loss or an ECN echo, so 2^32 - 1 of them
    /// would take over 4 * 10^9 retransmissions or acks of one connection.
    pub nfastrexmit: u32,
    pub nackpack: u64,
    /// Window reductions for ECN echoes (ns-2 `necnresponses_`).
    pub necnresponses: u32,
    /// Penalty-free restarts after a failed start-up (`LossVerdict::penalty_free`):
    /// Fast Start's resets, by its reset timer or a partial ack.
    pub nstartup_resets: u32,
    /// ECN: a window reduction is to be signalled with CWR on the next packet
    /// (ns-2 `cong_action_`); `ecn_backoff_`; the peer echoed the ECN negotiation
    /// of packet 0, so ECN echoes now hold the window (ns-2 `ect_`).
    cong_action: bool,
    ecn_backoff: bool,
    ect: bool,
    /// tcp-asym (`asym_header`): a CE-marked ack arrived, to be echoed on the next
    /// data segment (ns-2 `ecn_to_echo_`); the newest ack timestamp, echoed on data.
    ecn_to_echo: bool,
    ts_peer: SimTime,
    /// When the application first handed the connection data (its start, for the
    /// initial n-second throughput of P3 §5), and the packets cumulatively acked
    /// within 1..=ACK_MARKS seconds of it, filled lazily by the new acks
    /// (`marks_done` of them are final).
    pub conn_start: OptTime,
    /// (u32: a connection acking 2^32 packets within 10 s would need 430 M packets/s;
    /// a mark saturates there.)
    acked_marks: [u32; ACK_MARKS],
    marks_done: u8,
    /// Torn down by its application (`close`): acks are ignored, nothing is sent.
    pub torn_down: bool,
    /// The last ack's window update (`PktOptions::rwnd` with `update`) opened the
    /// receiver's window: the caller of `read_ack` sends what it allows.
    pub(crate) window_opened: bool,
    /// The receiver's right edge: the highest sequence number its advertised window
    /// takes (ack + window, never moved back); `i64::MAX` while no ack has carried a
    /// window (ns-2's sinks never do: only the sender's `window` limits).
    pub rwnd_edge: i64,
    /// Loss-recovery counters (Linux names), for every recovery kind.
    pub ctr: LossCounters,
    /// SACK-based recovery state (`tcp.recovery.kind` other than `ns2`); None for
    /// ns-2's recovery, which lives in this file.
    rec: Option<Box<SackRecovery>>,
    /// When the last RTO fired, until the first new ack after it (Eifel detection of
    /// a spurious RTO, `LossCounters::spurious_rtos`).
    rto_at: OptTime,
    /// A member of a TCP session (`tcp::session`): the session's timer, loss recovery
    /// and RTT sampling replace this connection's own; `output` does not arm its
    /// retransmission timer.
    pub(crate) in_session: bool,
    /// The socket buffer (`tcp.sndbuf`); None: the application's data is all the
    /// sender's at once (ns-2).
    sndbuf: Option<Box<SndBuf>>,
}

// One sender per connection at scale (issue 21 item 3; `layout_tests` keeps the history).
const _: () = assert!(std::mem::size_of::<TcpConn>() == 352);

/// Seconds after its start for which a connection's acked packets are recorded
/// (`FlowTable::acked_by_s`; P3's n = 1..10).
pub const ACK_MARKS: usize = 10;

impl TcpConn {
    /// The retransmission timer (for prefetch hints: `TcpSenders::prefetch_block`).
    #[inline(always)]
    pub(crate) fn rtx_timer(&self) -> &Timer {
        &self.rtx_timer
    }

    /// A connection in ns-2's `reset()` state. `cb` is set when the connection is
    /// added to a `TcpSenders` table.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        agent: u32,
        flow: u32,
        node: u32,
        dst_node: u32,
        dst_agent: u32,
        dst_addr: u32,
        p: Arc<TcpParams>,
    ) -> TcpConn {
        TcpConn {
            agent,
            flow,
            node,
            dst_node,
            dst_agent,
            dst_addr,
            cb: 0,
            path: std::cell::Cell::new(crate::path::NO_PATH),
            first_link: crate::net::NO_LINK,
            t_seqno: 0,
            curseq: 0,
            maxseq: -1,
            last_ack: -1,
            highest_ack: -1,
            recover: 0,
            dupacks: 0,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            closed: false,
            firstpartial: false,
            rtx_timer: Timer::default(),
            // Initial key NaN: timeout() is never NaN, and from_secs_f64(NaN) is ZERO anyway.
            rto_memo: (f64::NAN.to_bits(), SimTime::ZERO),
            last_send: OptTime::NONE,
            detail: None,
            transfers: PendingQueue::default(),
            ndatapack: 0,
            nfastrexmit: 0,
            nackpack: 0,
            necnresponses: 0,
            nstartup_resets: 0,
            cong_action: false,
            ecn_backoff: false,
            ect: false,
            ecn_to_echo: false,
            ts_peer: SimTime::ZERO,
            conn_start: OptTime::NONE,
            acked_marks: [0; ACK_MARKS],
            marks_done: ACK_MARKS as u8,
            torn_down: false,
            window_opened: false,
            rwnd_edge: i64::MAX,
            ctr: LossCounters::default(),
            rec: SackRecovery::from_config("tcp", &p.recovery, p.sack)
                .expect("TcpParams::from_config validated the recovery")
                .map(Box::new),
            rto_at: OptTime::NONE,
            in_session: false,
            sndbuf: p.sndbuf_pkts.map(|cap| Box::new(SndBuf { cap, ..SndBuf::default() })),
            p,
        }
    }

    pub fn params(&self) -> &TcpParams {
        &self.p
    }

    /// Keep per-segment detail (the block's policies want it; see `ControlBlock::detail`).
    pub(crate) fn keep_detail(&mut self) {
        if self.detail.is_none() {
            self.detail = Some(Box::default());
        }
    }

    /// Packets sent and not cumulatively acked, as the window counts them.
    #[inline]
    pub fn flight(&self) -> i64 {
        self.t_seqno - self.highest_ack - 1
    }

    /// The sent-segment log.
    pub fn sent_log(&self) -> Option<&SentLog> {
        self.detail.as_deref().map(|d| &d.log)
    }

    /// What a start-up policy sees (`transfer_pkts` is 0 outside `on_transfer_start`).
    fn start_ctx<'a>(
        &'a self,
        cb: &'a mut ControlBlock,
        cx: &'a mut Ctx,
        transfer_pkts: i64,
    ) -> (&'a mut crate::tcp::startup::AnyStartup, StartCtx<'a>) {
        let shared = &mut *cx.shared;
        let rto_s = cb.rto_s(&self.p.rtt);
        let sc = StartCtx {
            now: cx.sched.now(),
            flow: self.flow,
            flow_name: &shared.flow_names[self.flow as usize],
            tcb: &mut cb.tcb,
            rtt: &mut cb.rtt,
            rttp: &self.p.rtt,
            rto_s,
            t_seqno: self.t_seqno,
            maxseq: self.maxseq,
            highest_ack: self.highest_ack,
            transfer_pkts,
            last_send: self.last_send.get(),
            dst_addr: self.dst_addr,
            path: PathCtx::new(&mut shared.paths, self.node, self.dst_addr, &self.path),
            trace: &mut shared.startup_trace,
        };
        (&mut cb.startup, sc)
    }

    // ------------------------------------------------------------------
    // Application interface
    // ------------------------------------------------------------------

    /// Payload packets cumulatively acked (the SYN, seq 0 when modelled, excluded).
    pub fn acked_pkts(&self) -> u64 {
        (self.highest_ack + 1 - self.p.syn as i64).max(0) as u64
    }

    /// The connection's first data from its application: start the acked-packet marks.
    fn note_start(&mut self, now: SimTime) {
        if self.conn_start.is_none() {
            self.conn_start = OptTime::some(now);
            self.marks_done = 0;
        }
    }

    /// Bytes this connection holds outside its struct: pending transfers, the sent log
    /// and SACK state, by capacity (`Simulation::memory`; the boxes' contents counted at
    /// their inline size).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.transfers.heap_bytes()
            + self.detail.as_ref().map_or(0, |d| size_of::<Detail>() + d.log.memory_bytes())
            + self.rec.as_ref().map_or(0, |_| size_of::<SackRecovery>())
    }

    /// Packets acked within n s of the start, n = 1..=ACK_MARKS; the marks not yet
    /// passed (the run ended, or the connection closed, before them) hold what was
    /// acked by then.
    pub fn acked_by_s(&self) -> [u64; ACK_MARKS] {
        let mut m = self.acked_marks.map(u64::from);
        let done = if self.conn_start.is_some() { self.marks_done as usize } else { 0 };
        for v in &mut m[done..] {
            *v = self.acked_pkts();
        }
        m
    }

    /// A new ack at `now`, before it moves `highest_ack`: close the marks it is past.
    #[inline(never)]
    fn pass_marks(&mut self, now: SimTime) {
        let Some(s) = self.conn_start.get() else { return };
        let before = self.acked_pkts();
        while (self.marks_done as usize) < ACK_MARKS && now > s + SimTime::from_secs(self.marks_done as u64 + 1) {
            self.acked_marks[self.marks_done as usize] = u32::try_from(before).unwrap_or(u32::MAX);
            self.marks_done += 1;
        }
    }

    /// Replace this idle connection by a fresh one between the same hosts (an HTTP/1.0
    /// client opening a new connection per object; ns-2's webtraf recycles its agents
    /// with `reset`): the window, ssthresh, RTT estimator, back-off and congestion
    /// control return to a new connection's state, and the duplicate-ack, recovery and
    /// RTT-timing state is cleared. The sequence space continues, so packets of the old
    /// connection still in the network are old duplicates to both ends (a new
    /// connection's distinct port pair); no SYN is sent (packet 0 stays the only one).
    /// Cumulative counters and the start-up policy's state carry over. Returns false
    /// (and changes nothing) while data is unacked or a transfer is pending.
    pub fn renew(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) -> bool {
        self.wake(cx);
        if self.torn_down
            || !self.transfers.is_empty()
            || self.highest_ack < self.t_seqno - 1
            || self.t_seqno < self.curseq
            || self.blocked() > 0
        {
            return false;
        }
        self.rtx_timer.cancel();
        self.dupacks = 0;
        self.recover = self.maxseq;
        self.last_ack = self.highest_ack;
        self.rtt_active = false;
        self.rtt_seq = -1;
        self.firstpartial = false;
        self.cong_action = false;
        self.ecn_backoff = false;
        self.ecn_to_echo = false;
        self.last_send = OptTime::NONE;
        cb.renew(&self.p);
        true
    }

    /// Tear the connection down (an application's lifetime ended): nothing more is
    /// sent, its timers are cancelled, later acks are ignored, and the start-up policy
    /// hears `on_close` (it leaves shared state such as a fair-share group).
    pub fn close(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        self.wake(cx);
        if self.torn_down {
            return;
        }
        self.torn_down = true;
        self.curseq = self.t_seqno;
        if let Some(b) = self.sndbuf.as_deref_mut() {
            b.blocked = 0;
            b.watch = false;
        }
        self.closed = true;
        self.rtx_timer.cancel();
        if let Some(r) = self.rec.as_deref_mut() {
            r.rack_timer.cancel();
            r.tlp_timer.cancel();
        }
        cb.end_plan();
        cb.set_burst_wait(false);
        let (startup, mut sc) = self.start_ctx(cb, cx, 0);
        startup.on_close(&mut sc);
    }

    /// The application hands over `n` more packets (ns-2 `advanceby`), as one transfer
    /// recorded in the results (`round` and `bytes` describe it).
    pub fn start_transfer(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, n: i64, round: u32, bytes: u64) {
        self.wake(cx);
        if self.torn_down {
            return;
        }
        self.note_start(cx.now());
        let plan = {
            let (startup, mut sc) = self.start_ctx(cb, cx, n);
            startup.on_transfer_start(&mut sc)
        };
        cb.cc.on_transfer_start(&mut cb.tcb, n);
        let rec = cx.shared.transfers.len() as u32;
        cx.shared.transfers.push(TransferRec {
            flow: self.flow,
            round,
            bytes,
            start: cx.now(),
            end: OptTime::NONE,
            // The counters at the start, until the transfer ends (kept in the record,
            // not in `PendingTransfer`: 80 bytes less per connection).
            ctr: self.ctr,
            initial_cwnd: cb.tcb.cwnd,
            delivered: OptTime::NONE,
        });
        cb.start_plan(self.agent, plan);
        self.advanceby(cb, cx, n);
        // The SYN takes sequence number 0 and `output` counts it in `curseq` when it
        // leaves: inside `advanceby` for a connection of its own, later (from the
        // session's scheduler) for a TCP session's member, whose data then ends one
        // sequence number further.
        let end_seq = self.curseq + self.blocked() - 1 + i64::from(self.in_session && self.p.syn && self.maxseq == -1);
        let f = self.flow as usize;
        if cx.shared.recv_pending.len() <= f {
            cx.shared.recv_pending.resize_with(f + 1, Default::default);
        }
        cx.shared.recv_pending[f].push_back(end_seq, rec);
        self.transfers.push_back(end_seq, rec);
    }

    /// An infinite source (ns-2 `ftp start` / `sendmsg(-1)`).
    pub fn start_infinite(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        self.wake(cx);
        if self.torn_down {
            return;
        }
        self.note_start(cx.now());
        // The start-up policy decides the connection's start as for a transfer (a
        // fair-share server's FTP connections); ns-2's own policy leaves it alone.
        let plan = {
            let (startup, mut sc) = self.start_ctx(cb, cx, (TCP_MAXSEQ - self.curseq).max(0));
            startup.on_transfer_start(&mut sc)
        };
        if plan.is_active() {
            cb.start_plan(self.agent, plan);
        }
        if self.sndbuf.is_some() {
            let more = TCP_MAXSEQ - self.curseq - self.blocked();
            if more > 0 {
                self.app_write(more);
            }
        } else if self.curseq <= TCP_MAXSEQ {
            self.curseq = TCP_MAXSEQ;
        }
        self.send_much(cb, cx, self.p.maxburst);
    }

    /// ns-2 `sendmsg(n * size)`: more data without a recorded transfer (Telnet).
    pub fn sendmsg_pkts(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, n: i64) {
        self.wake(cx);
        self.app_write(n);
        self.send_much(cb, cx, self.p.maxburst);
    }

    /// ns-2.35: tcp.cc `advanceby(delta)`.
    fn advanceby(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, delta: i64) {
        self.app_write(delta);
        if delta > 0 {
            self.closed = false;
        }
        self.send_much(cb, cx, self.p.maxburst);
    }

    /// The application writes `n` segments: all of them go to the sender (`curseq`)
    /// without a socket buffer; with one, what fits, and the rest waits for room.
    #[inline]
    fn app_write(&mut self, n: i64) {
        match self.sndbuf.as_deref_mut() {
            None => self.curseq += n,
            Some(b) => {
                b.blocked += n;
                self.sndbuf_fill();
            }
        }
    }

    /// Segments of blocked writes waiting for room in the socket buffer (0 without one).
    #[inline]
    pub fn blocked(&self) -> i64 {
        self.sndbuf.as_deref().map_or(0, |b| b.blocked)
    }

    /// Free room in the socket buffer (segments): its capacity less the data written
    /// into it and not yet acknowledged. None: no socket buffer (unlimited).
    pub fn sndbuf_room(&self) -> Option<i64> {
        Some((self.sndbuf.as_deref()?.cap - self.sndbuf_used()?).max(0))
    }

    /// Unacknowledged plus unsent data segments in the socket buffer (None: no buffer).
    pub fn sndbuf_used(&self) -> Option<i64> {
        let b = self.sndbuf.as_deref()?;
        Some(b.written - self.acked_pkts() as i64)
    }

    /// The application wants (`true`) or no longer wants a `Notice::Writable` when an
    /// ack frees room in the socket buffer. No effect without one.
    pub fn watch_sndbuf(&mut self, on: bool) {
        if let Some(b) = self.sndbuf.as_deref_mut() {
            b.watch = on;
        }
    }

    /// Move blocked writes into the socket buffer as far as its room allows. Returns
    /// the segments moved.
    fn sndbuf_fill(&mut self) -> i64 {
        let Some(room) = self.sndbuf_room() else { return 0 };
        let b = self.sndbuf.as_deref_mut().expect("a socket buffer");
        let k = room.min(b.blocked);
        if k <= 0 {
            return 0;
        }
        b.blocked -= k;
        b.written += k;
        self.curseq += k;
        k
    }

    /// A new ack freed room in the socket buffer: blocked writes move in, and an
    /// application that watches the buffer hears of the room left. Returns whether the
    /// sender got more data. Out of line: only a connection with a socket buffer (whose
    /// block sets `hook::ACK`) calls it.
    #[inline(never)]
    fn sndbuf_acked(&mut self, cx: &mut Ctx) -> bool {
        let moved = self.sndbuf_fill();
        let b = self.sndbuf.as_deref().expect("a socket buffer");
        if b.watch && b.blocked == 0 && self.sndbuf_room().unwrap_or(0) > 0 {
            cx.shared.notices.push(Notice::Writable { flow: self.flow });
        }
        moved > 0
    }

    // ------------------------------------------------------------------
    // Sending
    // ------------------------------------------------------------------

    /// ns-2.35: tcp.cc `send_much(force, reason, maxburst)`, plus the start-up pacer.
    /// Under a shared control block new data leaves only through the block's
    /// scheduler (`TcpSenders::serve`, after the event), which shares the window.
    /// A block with none of the holds and limits below (`hook::SEND_MUCH` clear) runs
    /// ns-2's loop alone.
    #[inline(always)]
    fn send_much(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, maxburst: i32) {
        if cb.hooks & hook::SEND_MUCH == 0 {
            self.send_loop::<false>(cb, cx, maxburst);
        } else {
            self.send_much_hooked(cb, cx, maxburst);
        }
    }

    #[inline(never)]
    fn send_much_hooked(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, maxburst: i32) {
        self.send_loop::<true>(cb, cx, maxburst);
    }

    /// The loop of `send_much`; `HOOKED` adds the shared block's, the pacer's and the
    /// burst limits' tests.
    #[inline(always)]
    fn send_loop<const HOOKED: bool>(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, maxburst: i32) {
        if HOOKED && (cb.is_shared() || (cb.burst_wait && cb.pace_timer.pending())) {
            return;
        }
        if self.rec.is_some() {
            return self.send_sack(cb, cx, maxburst);
        }
        // A plan's burst limit (Fast Start) tightens ns-2's maxburst.
        let burst = match cb.burst {
            Some(b) if HOOKED && cb.plan_conn == self.agent => b.get() as i32,
            _ => 0,
        };
        let maxburst = if burst > 0 && (maxburst == 0 || burst < maxburst) { burst } else { maxburst };
        let mut win = cb.tcb.window();
        let mut npackets = 0;
        while self.next_fits(win) {
            if HOOKED && !self.pacer_allows(cb, cx) {
                break;
            }
            let seq = self.t_seqno;
            self.output(cb, cx, seq);
            if HOOKED {
                self.pacer_sent(cb, cx, seq);
            }
            npackets += 1;
            self.t_seqno += 1;
            // `output` changes no window (ns-2 re-reads `window()` here): without the
            // hooks (a pacer, a plan's burst) nothing else runs between two segments,
            // so the window is read once per burst.
            if HOOKED {
                win = cb.tcb.window();
            }
            debug_assert_eq!(win, cb.tcb.window());
            if maxburst > 0 && npackets == maxburst {
                if HOOKED && self.next_fits(win) {
                    self.burst_cut(cb, cx, maxburst, burst > 0);
                }
                break;
            }
        }
    }

    /// A burst was cut by the burst limit with more allowed by the window: burst pacing
    /// (thesis §8.3, §9.3.4; `tcp::pacing::burst_gap`). The rule that set the limit -- a
    /// start-up plan's `burst` (Fast Start) or the congestion control (sender
    /// adaptation) -- gives the gap; nothing new leaves until the pacing timer releases
    /// the next burst (ns-2.35 tcp.cc `send_much` returns while `burstsnd_timer_` is
    /// pending).
    #[inline(never)]
    fn burst_cut(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, maxburst: i32, plan_burst: bool) {
        if cb.pace_timer.pending() {
            return;
        }
        let gap = if plan_burst { cb.startup.burst_gap(&cb.tcb) } else { cb.cc.burst_gap(&cb.tcb, maxburst) };
        if let Some(gap) = gap {
            cb.set_burst_wait(true);
            cb.pace_timer.resched(cx.sched, gap, self.agent, TIMER_PACE);
        }
    }

    /// May the next new segment (`t_seqno`) leave as far as the windows go: within `win`
    /// segments of the cumulative ack, within the application's data, and within the
    /// receiver's advertised edge (`rwnd_edge`).
    #[inline(always)]
    fn next_fits(&self, win: i64) -> bool {
        self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq && self.t_seqno <= self.rwnd_edge
    }

    /// One turn of a shared block's scheduler: send one new segment if the window and
    /// the pacer allow. Returns whether a segment left.
    pub(crate) fn send_turn(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) -> bool {
        let win = cb.tcb.window() - cb.others_flight;
        if !self.next_fits(win) || !self.pacer_allows(cb, cx) {
            return false;
        }
        let seq = self.t_seqno;
        self.output(cb, cx, seq);
        self.pacer_sent(cb, cx, seq);
        self.t_seqno += 1;
        true
    }

    /// May the next new segment leave now under the plan's pacer? If not, the pacing
    /// timer is armed for when it may.
    #[inline]
    fn pacer_allows(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) -> bool {
        if cb.plan_conn != self.agent || self.t_seqno <= self.maxseq {
            return true;
        }
        let Some(pacer) = cb.pacer_mut() else { return true };
        match pacer.check(cx.now(), self.t_seqno) {
            Ok(()) => true,
            Err(at) => {
                if !cb.pace_timer.pending() {
                    let delay = at.saturating_sub(cx.now());
                    cb.pace_timer.resched(cx.sched, delay, self.agent, TIMER_PACE);
                }
                false
            }
        }
    }

    #[inline]
    fn pacer_sent(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, seq: i64) {
        let plan_conn = cb.plan_conn;
        if let Some(pacer) = cb.pacer_mut().filter(|_| plan_conn == self.agent) {
            pacer.on_sent(cx.now(), seq);
            if pacer.done(seq + 1) {
                cb.drop_pacer();
                cb.pace_timer.cancel();
                cb.refresh_hooks();
            }
        }
    }

    /// ns-2.35: tcp.cc `output(seqno, reason)`.
    pub(crate) fn output(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, seqno: i64) {
        let now = cx.now();
        let mut size = self.p.size;
        if seqno == 0 {
            if self.p.syn {
                // The SYN: header only, and it takes sequence number 0.
                if self.maxseq == -1 {
                    self.curseq += 1;
                }
                size = self.p.hdr;
            }
            // ns-2.35 quirk: without syn_, packet 0 carries no header bytes.
        } else {
            size += self.p.hdr;
        }
        let retransmit = seqno <= self.maxseq;
        let force_set_rtx_timer = self.highest_ack == self.maxseq;
        let id = cx.net.pool.alloc(Packet::data(self.flow, self.dst_node, self.dst_agent, size, seqno, now));
        if cb.hooks & hook::SEND != 0 {
            self.send_hooks(cb, cx, id, retransmit);
        }
        self.ndatapack += 1;
        self.last_send = OptTime::some(now);
        // ns-2 updates this state after handing the packet on; the network never reads
        // it, so it is updated first and fewer values live across the call.
        if !retransmit {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = now;
                }
            }
        } else {
            count!(self.ctr.retrans_segs);
        }
        if self.rec.is_some() {
            self.sack_sent(seqno, now, retransmit);
        }
        let arm_rtx = (!self.rtx_timer.pending() || force_set_rtx_timer) && !self.in_session;
        cx.net.send_via_inline(cx.sched, self.node, self.first_link, id);
        if arm_rtx {
            self.set_rtx_timer(cb, cx);
        }
    }

    /// The policies' part of `output` for the data packet `id` (`hook::SEND`): the
    /// rule's `on_send`, the marks, the tcp-asym header, the sent-segment log. Out of
    /// line: a sender of ns-2's rules has none. Marks are set on the stored packet:
    /// built on the stack and copied in, the packet cost ~14 instructions more per
    /// segment.
    #[inline(never)]
    fn send_hooks(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, id: PktId, retransmit: bool) {
        let (now, seqno, size) = {
            let p = cx.net.pool.get(id);
            (p.ts, p.seqno, p.size)
        };
        cb.cc.on_send(
            &cb.tcb,
            RttView { est: &cb.rtt, params: &self.p.rtt },
            &self.send_meta(now, seqno, retransmit, size),
        );
        let low_prio = (cb.plan_active || self.p.ecn) && self.mark(cb, cx.net.pool.get_mut(id), retransmit);
        if self.p.asym_header {
            self.asym_output(cb, cx, id, seqno);
        }
        if let Some(d) = self.detail.as_deref_mut() {
            d.log.on_send(seqno, now, retransmit, low_prio, seqno + 1 >= self.curseq);
        }
    }

    /// ns-2.35: tcp-asym.cc `output_helper`: the tcp-asym header (what the sender may
    /// still send), the echo of a CE-marked ack, and the latest ack's timestamp
    /// (ns-2 `ts_peer_`), which an ACC sink reads as its round-trip clock.
    #[inline(never)]
    fn asym_output(&mut self, cb: &ControlBlock, cx: &mut Ctx, id: PktId, seqno: i64) {
        // ns-2 calls output(t_seqno_++): t_seqno is already past a new segment.
        let t_seqno = self.t_seqno.max(seqno + 1);
        let hdr = AsymHeader {
            win: (self.highest_ack + cb.tcb.window()).min(self.curseq) - t_seqno,
            highest_ack: self.highest_ack,
            max_left_to_send: self.curseq - self.highest_ack,
        };
        let p = cx.net.pool.get_mut(id);
        p.ecn_echo = std::mem::take(&mut self.ecn_to_echo);
        p.ts_echo = self.ts_peer;
        cx.net.pool.set_options(id, PktOptions { asym: Some(hdr), ..PktOptions::default() });
    }

    /// What `output` tells the policies about the segment it sends.
    #[inline(always)]
    fn send_meta(&self, now: SimTime, seq: i64, retransmit: bool, size: u32) -> SendMeta {
        SendMeta { now, flow: self.flow, seq, retransmit, size, in_flight: self.flight().max(0) as u32 }
    }

    /// The marks of data packet `pkt` as `output` sends it: low drop priority from the
    /// start-up plan, ECT and CWR with ECN. Returns the priority mark. Out of line: a
    /// plain ns-2 sender sets none.
    #[cold]
    #[inline(never)]
    fn mark(&mut self, cb: &mut ControlBlock, pkt: &mut Packet, retransmit: bool) -> bool {
        pkt.low_prio = cb.plan_active && cb.plan_conn == self.agent && {
            let meta = self.send_meta(pkt.ts, pkt.seqno, retransmit, pkt.size);
            cb.low_prio().is_some_and(|r| !retransmit && r.contains(meta.seq)) | cb.startup.on_send(&meta).low_prio
        };
        if self.p.ecn {
            // ns-2.35 output(): ECT on every data packet; CWR once after a reduction
            // (SetCWRonRetransmit_ true: retransmissions carry it too). Packet 0 (the
            // SYN, or the first data packet without syn_) negotiates ECN instead: ECE
            // set, not ECT (tcp-asym's output_helper then overwrites ECE).
            pkt.ect = pkt.seqno != 0;
            pkt.ecn_echo = pkt.seqno == 0;
            pkt.cwr = std::mem::take(&mut self.cong_action);
        }
        pkt.low_prio
    }

    /// ns-2.35: tcp.cc `send_one()` (limited transmit on the first dup acks).
    fn send_one(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        let others = cb.others_flight as f64;
        if (self.t_seqno as f64) <= self.highest_ack as f64 + cb.tcb.wnd - others
            && self.t_seqno < self.curseq
            && self.t_seqno <= self.rwnd_edge
            && (self.t_seqno as f64) <= self.highest_ack as f64 + cb.tcb.cwnd + self.dupacks as f64 - others
        {
            let seq = self.t_seqno;
            self.output(cb, cx, seq);
            self.t_seqno += 1;
        }
    }

    // ------------------------------------------------------------------
    // Timers
    // ------------------------------------------------------------------

    fn set_rtx_timer(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        // While a plan runs, the start-up policy may replace the RTO (Fast Start's
        // reset timer).
        let rto = if cb.plan_active { self.plan_rto(cb) } else { cb.rto_s(&self.p.rtt) };
        let bits = rto.to_bits();
        if self.rto_memo.0 != bits {
            self.rto_memo = (bits, SimTime::from_secs_f64(rto));
        }
        self.rtx_timer.resched(cx.sched, self.rto_memo.1, self.agent, TIMER_RTX);
    }

    /// The retransmission timeout while a start-up plan runs: the policy's, if it
    /// replaces the RTO, else the RTO. Out of line: plans are rare and short.
    #[cold]
    #[inline(never)]
    fn plan_rto(&self, cb: &ControlBlock) -> f64 {
        cb.startup.rtx_timeout(&cb.tcb, &cb.rtt, &self.p.rtt).unwrap_or_else(|| cb.rto_s(&self.p.rtt))
    }

    /// ns-2.35: tcp.cc `reset_rtx_timer(mild, backoff)`.
    fn reset_rtx_timer(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, mild: bool, backoff: bool) {
        if backoff {
            cb.backoff_rto(&self.p.rtt);
        }
        self.set_rtx_timer(cb, cx);
        if !mild && self.rec.is_none() {
            // Go-back-N (ns-2). A SACK sender resends from its scoreboard instead.
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    /// Would `timeout()` now change nothing but re-arm the retransmission timer, one
    /// RTO later and without back-off? The case of ns-2's timer on an idle connection
    /// (`newtimer` leaves it armed after the last ack) once its slow-start restart is
    /// done: it fires every RTO until the run ends (workload c: 1.4 M such firings).
    /// Every line of `timeout()` on that path is checked to be a no-op here: nothing
    /// outstanding or left to send, the restart already applied (window, `recover`,
    /// duplicate-ack state, CWR pending, `last_cwnd_action`), no back-off
    /// (`restart_bugfix`), no plan, no shared block or hooked `send_much`, ns-2
    /// recovery. The state it reads changes only through this connection's own entry
    /// points, which wake the timer (`wake`).
    fn rtx_timeout_is_noop(&self, cb: &ControlBlock) -> bool {
        let t = &cb.tcb;
        let restart = self.p.slow_start_restart && !cb.startup.replaces_idle_restart();
        self.highest_ack == self.maxseq
            && self.highest_ack >= 0
            && self.t_seqno == self.highest_ack + 1
            && self.t_seqno >= self.curseq
            && self.p.restart_bugfix
            && !self.rtt_active
            && self.rec.is_none()
            && !self.in_session
            && !cb.plan_active
            && !cb.is_shared()
            && cb.hooks & hook::SEND_MUCH == 0
            && t.cwnd >= 1.0
            && t.last_cwnd_action == CwndAction::Timeout
            && (self.p.variant == TcpVariant::Tahoe
                || (t.dupwnd == 0 && self.dupacks == 0 && self.recover == self.maxseq))
            && (!restart
                || (self.recover == self.maxseq && (!self.p.ecn || self.cong_action) && cb.cc.idle_restart_is_noop(t)))
    }

    /// Instead of a no-op `timeout()` (`rtx_timeout_is_noop`): re-arm the timer as it
    /// would (`set_rtx_timer`, same RTO) and park it, so the scheduler repeats this
    /// every RTO without delivering the firings (`engine::Timer::park`). Exact: the
    /// firings keep their keys and sequence numbers; the first touch of the connection
    /// wakes the timer before changing anything.
    #[inline(never)]
    fn park_rtx_timer(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        let rto = cb.rto_s(&self.p.rtt);
        let bits = rto.to_bits();
        if self.rto_memo.0 != bits {
            self.rto_memo = (bits, SimTime::from_secs_f64(rto));
        }
        if self.rto_memo.1 > SimTime::ZERO {
            self.rtx_timer.park(cx.sched, self.rto_memo.1, self.agent, TIMER_RTX);
        } else {
            self.rtx_timer.resched(cx.sched, self.rto_memo.1, self.agent, TIMER_RTX);
        }
    }

    /// Every entry point of the connection calls this first: a parked retransmission
    /// timer (`park_rtx_timer`) goes back to delivering its firings, from the next one
    /// on, since what follows may change the state they depend on.
    #[inline(always)]
    fn wake(&mut self, cx: &mut Ctx) {
        if self.rtx_timer.is_parked() {
            self.wake_cold(cx);
        }
    }

    #[cold]
    #[inline(never)]
    fn wake_cold(&mut self, cx: &mut Ctx) {
        self.rtx_timer.unpark(cx.sched);
    }

    /// ns-2.35: tcp.cc `newtimer(pkt)`. Inlined: it runs on every new ack.
    #[inline]
    fn newtimer(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ackno: i64) {
        if self.t_seqno > ackno || ackno < self.maxseq || cb.tcb.cwnd < 1.0 {
            self.set_rtx_timer(cb, cx);
        } else {
            self.rtx_timer.cancel();
        }
    }

    pub fn timer(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, which: u8, gen: u32) {
        // (A parked retransmission timer delivers no event; another timer wakes it.)
        self.wake(cx);
        match which {
            TIMER_RTX => {
                if self.rtx_timer.fire(gen) {
                    if cx.sched.park_timers && self.rtx_timeout_is_noop(cb) {
                        self.park_rtx_timer(cb, cx);
                    } else {
                        self.timeout(cb, cx);
                    }
                }
            }
            TIMER_PACE => {
                if cb.pace_timer.fire(gen) {
                    cb.set_burst_wait(false);
                    self.send_much(cb, cx, self.p.maxburst);
                }
            }
            TIMER_RACK => {
                if self.rec.as_deref_mut().is_some_and(|r| r.rack_timer.fire(gen)) {
                    self.rack_timeout(cb, cx);
                }
            }
            TIMER_TLP => {
                if self.rec.as_deref_mut().is_some_and(|r| r.tlp_timer.fire(gen)) {
                    self.send_probe(cb, cx);
                }
            }
            _ => {}
        }
    }

    /// A loss event for the segment after the cumulative ack, before any reaction.
    fn loss_event(&self, kind: LossKind, now: SimTime, new_epoch: bool) -> LossEvent {
        let lost_seq = self.highest_ack + 1;
        let seg = self.detail.as_deref().and_then(|d| d.log.get(lost_seq));
        LossEvent {
            kind,
            now,
            flow: self.flow,
            flight_size: self.flight().max(0) as u32,
            lost_seq,
            lost_sent_at: seg.map(|s| s.sent_at),
            lost_low_prio: seg.is_some_and(|s| s.low_prio),
            new_epoch,
        }
    }

    /// A loss event that reduces the window: the start-up policy's verdict first (a
    /// loss ends its plan, unless the plan runs `through_losses` and the verdict is
    /// `Cut` on anything but an RTO), then the cut it asks for.
    fn react_to_loss(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, loss: &LossEvent) -> LossVerdict {
        let keep = cb.plan_through_losses && loss.kind != LossKind::Rto;
        if !keep {
            cb.end_plan();
        }
        // A policy without a say on losses (`hook::LOSS` clear) cuts as usual.
        let verdict = if cb.hooks & hook::LOSS != 0 { self.startup_verdict(cb, cx, loss) } else { LossVerdict::Cut };
        if keep {
            if verdict.penalty_free() {
                cb.end_plan();
            } else {
                cb.drop_pacer();
                cb.refresh_hooks();
            }
        }
        self.apply_verdict(cb, loss, verdict);
        verdict
    }

    fn startup_verdict(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, loss: &LossEvent) -> LossVerdict {
        let (startup, mut sc) = self.start_ctx(cb, cx, 0);
        startup.on_loss(&mut sc, loss)
    }

    fn apply_verdict(&mut self, cb: &mut ControlBlock, loss: &LossEvent, verdict: LossVerdict) {
        match verdict {
            LossVerdict::Cut => cb.cc.on_loss(&mut cb.tcb, loss),
            LossVerdict::Undo(w) => {
                cb.tcb.cwnd = w.cwnd;
                cb.tcb.ssthresh = w.ssthresh;
                return;
            }
            LossVerdict::RestartNoPenalty => cb.tcb.cwnd = cb.tcb.initial_window(),
        }
        // ns-2.35: tcp.cc slowdown() — every window cut (not a partial ack's, which
        // calls no slowdown) sets cong_action_: the next packet carries CWR.
        self.cong_action |= self.p.ecn && loss.kind != LossKind::PartialAck;
    }

    /// After a penalty-free verdict (the window is already set): leave recovery, resend
    /// go-back-N from the first unacked segment, re-arm the timer without back-off
    /// (ns-2.35 tcp-fs.cc `timeout_nonrtx(TCP_TIMER_RESET)`: `recover_` = the
    /// cumulative ack, `CLOSE_CWND_INIT`, `reset_rtx_timer(0, 0)`, `send_much`).
    fn restart_after_failed_start(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        cb.tcb.dupwnd = 0;
        self.dupacks = 0;
        self.firstpartial = false;
        self.recover = self.highest_ack;
        cb.tcb.last_cwnd_action = CwndAction::Timeout;
        count!(self.nstartup_resets);
        self.reset_rtx_timer(cb, cx, false, false);
        self.send_much(cb, cx, self.p.maxburst);
    }

    /// ns-2.35: tcp-reno.cc `RenoTcpAgent::timeout` + tcp.cc `TcpAgent::timeout`.
    fn timeout(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        // Still inside a window reduced for an ECN echo (its data not yet all acked:
        // Linux's CWR state), read before `recover` moves.
        let in_ecn_window = self.p.ecn && cb.tcb.last_cwnd_action == CwndAction::Ecn && self.highest_ack < self.recover;
        // Linux's recovery (`rto_cuts_once`) treats every RTO as an RTO and cuts
        // ssthresh at most once per window; ns-2's recoveries keep its own rules.
        let linux_once = self.rec.as_ref().is_some_and(|r| r.rto_cuts_once);
        if self.p.variant != TcpVariant::Tahoe {
            cb.tcb.dupwnd = 0;
            self.dupacks = 0;
            self.recover = self.maxseq; // bug_fix_
        }
        if cb.tcb.cwnd < 1.0 {
            cb.tcb.cwnd = 1.0;
        }
        let nothing_outstanding = self.highest_ack == self.maxseq;
        let restart = self.p.slow_start_restart && !cb.startup.replaces_idle_restart();
        if nothing_outstanding && !restart {
            // No outstanding data and no slow-start restart: leave the window alone.
        } else {
            self.recover = self.maxseq;
            if self.highest_ack == -1 && cb.tcb.wnd_init_option == 2 {
                cb.tcb.wnd_init_option = 1;
            } else if self.highest_ack == -1 && cb.tcb.wnd_init_option == 1 && cb.tcb.wnd_init > 1 {
                // bugfix_ss_: the first packet was lost, do not use a larger IW again.
                cb.tcb.wnd_init = 1;
            }
            if nothing_outstanding && self.p.restart_bugfix {
                // Idle: slow-start restart without cutting ssthresh.
                let ev = self.loss_event(LossKind::IdleRestart, cx.now(), false);
                cb.cc.on_loss(&mut cb.tcb, &ev);
                self.cong_action |= self.p.ecn;
            } else if self.p.ecn
                && !linux_once
                && !cb.plan_active
                && self.highest_ack < self.recover
                && cb.tcb.last_cwnd_action == CwndAction::Ecn
            {
                // ns-2.35: tcp.cc timeout — still recovering from an ECN reduction:
                // window to one, ssthresh not cut again, not counted in nrexmit_.
                // (While a start-up plan runs, its own timer rule applies.)
                let ev = self.loss_event(LossKind::AfterEcn, cx.now(), true);
                if self.react_to_loss(cb, cx, &ev).penalty_free() {
                    return self.restart_after_failed_start(cb, cx);
                }
            } else {
                let prior = (cb.tcb.cwnd, cb.tcb.ssthresh);
                cb.tcb.last_cwnd_action = CwndAction::Timeout;
                // A loss event ends start-up pacing (spec tcp-spand A7). Linux's recovery
                // cuts ssthresh once per window (`SackRecovery::rto_cuts`): an RTO during
                // fast recovery or inside an ECN-reduced window, or a backed-off one, is
                // not a new epoch.
                let new_epoch = self
                    .rec
                    .as_ref()
                    .is_none_or(|r| !r.rto_cuts_once || (r.rto_cuts(self.highest_ack) && !in_ecn_window));
                let ev = self.loss_event(LossKind::Rto, cx.now(), new_epoch);
                if self.react_to_loss(cb, cx, &ev).penalty_free() {
                    // A failed start-up, not congestion: no back-off, no timeout counted.
                    return self.restart_after_failed_start(cb, cx);
                }
                count!(self.ctr.timeouts);
                if self.rto_at.is_none() {
                    self.rto_at = OptTime::some(cx.now());
                }
                if self.rec.is_some() {
                    self.sack_on_rto(cb, prior);
                }
            }
        }
        if nothing_outstanding && self.p.restart_bugfix {
            self.reset_rtx_timer(cb, cx, false, false);
        } else {
            self.reset_rtx_timer(cb, cx, false, true);
        }
        cb.tcb.last_cwnd_action = CwndAction::Timeout;
        self.send_much(cb, cx, self.p.maxburst);
    }

    // ------------------------------------------------------------------
    // Acks
    // ------------------------------------------------------------------

    /// An ack arrives (ns-2 `recv` of the agent's class). A block without per-ack
    /// hooks (`hook::ACK` clear: ns-2's rules, no plan running) runs ns-2's part alone.
    #[inline(always)]
    pub fn recv(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, pkt: PktId) {
        self.wake(cx);
        if cb.hooks & hook::ACK == 0 {
            self.recv_impl::<false>(cb, cx, pkt);
        } else {
            self.recv_hooked(cb, cx, pkt);
        }
    }

    #[inline(never)]
    fn recv_hooked(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, pkt: PktId) {
        self.recv_impl::<true>(cb, cx, pkt);
    }

    /// Read an arriving ack and free its packet: its number, ECN echo and timestamp
    /// echo, or `None` if the connection is torn down. Records it in the ack trace and
    /// the ack count (shared by `recv` and a session's ack processing, `tcp::session`).
    /// `HOOKED` adds the tcp-asym header's echo.
    #[inline(always)]
    pub(crate) fn read_ack<const HOOKED: bool>(&mut self, cx: &mut Ctx, pkt: PktId) -> Option<(i64, bool, SimTime)> {
        let (ackno, ece, opts, ts_echo) = {
            let a = cx.net.pool.get(pkt);
            if HOOKED && self.p.asym_header {
                // ns-2.35 tcp-asym.cc recv_helper; ns-2 ts_peer_.
                self.ecn_to_echo |= a.ce;
                self.ts_peer = self.ts_peer.max(a.ts);
            }
            (a.seqno, a.ecn_echo, a.has_opts(), a.ts_echo)
        };
        if opts | self.rto_at.is_some() {
            // SACK blocks and advertised windows (never on ns-2's acks) and the check
            // of a past RTO.
            self.ack_extras(cx, pkt, ackno);
            if self.window_opened {
                // A window update is not an ack of data (never a duplicate ack).
                cx.net.pool.free(pkt);
                return None;
            }
        }
        cx.net.pool.free(pkt);
        if self.torn_down {
            return None;
        }
        let now_ns = cx.now().as_nanos();
        if let Some(t) = cx.shared.ack_trace.as_mut() {
            t.flow.push(self.flow);
            t.time_ns.push(now_ns);
            t.ackno.push(ackno);
        }
        self.nackpack += 1;
        Some((ackno, ece, ts_echo))
    }

    /// `recv`; `HOOKED` adds the tests of the per-ack hooks.
    #[inline(always)]
    fn recv_impl<const HOOKED: bool>(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, pkt: PktId) {
        let Some((ackno, ece, ts_echo)) = self.read_ack::<HOOKED>(cx, pkt) else {
            if self.window_opened {
                self.window_update(cb, cx);
            }
            return;
        };
        let now = cx.now();
        let now_ns = now.as_nanos();
        if HOOKED && ece && self.p.ecn {
            self.ecn(cb, cx, ackno);
        }
        let ack = AckIn { ackno, prev: self.highest_ack, ece, ts_echo };
        if HOOKED && cb.detail && ackno > ack.prev {
            if let Some(l) = cb.linux_rtt_mut() {
                self.linux_rtt_sample(l, ack.prev, ackno, now, ts_echo);
            }
            self.take_detail(ackno, now);
        }
        let burst = if self.rec.is_some() {
            self.recv_sack(cb, cx, ack)
        } else {
            match self.p.variant {
                TcpVariant::Tahoe => self.recv_tahoe(cb, cx, ack),
                TcpVariant::Reno => self.recv_reno(cb, cx, ack),
                TcpVariant::Newreno => self.recv_newreno(cb, cx, ack),
            }
        };
        // The start-up policy sees the ack before the window it opened is used, so
        // that leaving its phase applies to what this ack releases.
        if HOOKED && (cb.plan_active || cb.every_ack) {
            let sample = self.ack_sample(now, ack, cb.detail);
            let phase = {
                let (startup, mut sc) = self.start_ctx(cb, cx, 0);
                startup.on_ack(&mut sc, &sample)
            };
            if phase == Phase::Exit {
                cb.end_plan();
            }
        }
        // A socket buffer (`hook::ACK`): the acked data frees room for the application's
        // writes, sent with what this ack releases.
        let burst = if HOOKED && ackno > ack.prev && self.sndbuf.is_some() && self.sndbuf_acked(cx) {
            Some(burst.unwrap_or(self.p.maxburst))
        } else {
            burst
        };
        if let Some(maxburst) = burst {
            self.send_much(cb, cx, maxburst);
        }
        self.check_transfers(cb, cx);
        if let Some(t) = cx.shared.cwnd_trace.as_mut() {
            t.flow.push(self.flow);
            t.time_ns.push(now_ns);
            t.cwnd.push(cb.tcb.cwnd);
            t.ssthresh.push(cb.tcb.ssthresh as f64);
            t.srtt_s.push(cb.rtt.srtt_s(&self.p.rtt));
        }
    }

    /// A window update opened the receiver's window: send what it allows, as ns-2's
    /// `recv` ends (`send_much(0, 0, maxburst_)`).
    #[cold]
    #[inline(never)]
    fn window_update(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        self.window_opened = false;
        self.send_much(cb, cx, self.p.maxburst);
    }

    /// ns-2.35: tcp.cc `TcpAgent::ecn(seqno)`: an ECN echo reduces the window at most
    /// once per window of data (or after a timeout), like a loss without the
    /// retransmission; the reduction is then signalled with CWR.
    fn ecn(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ackno: i64) {
        if !(ackno > self.recover || cb.tcb.last_cwnd_action == CwndAction::Timeout) {
            return;
        }
        self.recover = self.maxseq;
        cb.tcb.last_cwnd_action = CwndAction::Ecn;
        if cb.tcb.cwnd <= 1.0 {
            if self.ecn_backoff {
                cb.backoff_rto(&self.p.rtt);
            } else {
                self.ecn_backoff = true;
            }
        } else {
            self.ecn_backoff = false;
        }
        let ev = self.loss_event(LossKind::Ecn, cx.now(), true);
        self.react_to_loss(cb, cx, &ev);
        count!(self.necnresponses);
        self.cong_action = true;
    }

    /// Linux's RTT sample of a new ack (`tcp_clean_rtx_queue` -> `tcp_ack_update_rtt`):
    /// from the oldest newly acked segment if none of them was retransmitted, else,
    /// with timestamps, from the echoed timestamp. Out of line: ns-2's estimator is
    /// the common case.
    #[inline(never)]
    fn linux_rtt_sample(
        &self,
        l: &mut crate::tcp::rtt_linux::LinuxRtt,
        prev: i64,
        ackno: i64,
        now: SimTime,
        ts_echo: SimTime,
    ) {
        let Some(d) = self.detail.as_deref() else { return };
        let from = (prev + 1).max(0);
        let sample = crate::tcp::rtt_linux::seq_rtt(&d.log, from, ackno.min(self.maxseq), now)
            .or_else(|| (self.p.timestamps && ts_echo > SimTime::ZERO).then(|| now.saturating_sub(ts_echo)));
        if let Some(m) = sample {
            l.sample(m, ackno + 1, self.t_seqno.max(self.maxseq + 1));
        }
    }

    /// Per-segment detail of an ack (blocks that want it): the sent log's RTT and
    /// delivery-rate sample of the newest newly acked segment, and round counting.
    fn take_detail(&mut self, ackno: i64, now: SimTime) {
        let t_seqno = self.t_seqno;
        let Some(d) = self.detail.as_deref_mut() else { return };
        let (rtt, rate) = d.log.on_cumulative_ack(ackno, now);
        let round_done = ackno >= d.round_end;
        if round_done {
            d.round += 1;
            d.round_end = t_seqno;
        }
        d.last = AckDetail { rtt, rate, round_done };
    }

    /// What an ack tells the policies, from the state after ns-2's processing of it
    /// (`ack.prev` is the cumulative ack before it). `rtt`, `rate` and `round_done`
    /// come from the sent log, kept only for blocks that want `detail`. Built where a
    /// policy is called, so that a policy that ignores it costs nothing.
    #[inline(always)]
    fn ack_sample(&self, now: SimTime, ack: AckIn, detail: bool) -> AckSample {
        let newly = (ack.ackno - ack.prev).max(0);
        let (d, round) = match self.detail.as_deref() {
            Some(x) if detail => (if newly > 0 { x.last } else { AckDetail::default() }, x.round),
            _ => (AckDetail::default(), 0),
        };
        // Payload bytes: the SYN (segment 0 with `syn`) carries none.
        let syn_acked = self.p.syn && ack.prev < 0 && ack.ackno >= 0;
        AckSample {
            now,
            flow: self.flow,
            ackno: ack.ackno,
            newly_acked: newly as u32,
            newly_acked_bytes: (newly as u64).saturating_sub(syn_acked as u64) * self.p.size as u64,
            newly_sacked: 0,
            rtt: d.rtt,
            echo_rtt: (newly > 0 && ack.ts_echo > SimTime::ZERO).then(|| now.saturating_sub(ack.ts_echo)),
            in_flight: self.flight().max(0) as u32,
            dupacks: self.dupacks.max(0) as u32,
            ece: ack.ece,
            round_done: d.round_done,
            round,
            rate: d.rate,
        }
    }

    /// ns-2.35: tcp.cc `TcpAgent::recv`. Returns the `maxburst` of the `send_much`
    /// that ends ns-2's `recv`, if it calls one (the caller makes the call).
    #[inline(always)]
    fn recv_tahoe(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) -> Option<i32> {
        let ackno = ack.ackno;
        if ackno > self.last_ack {
            self.recv_newack_helper(cb, cx, ack);
            if self.last_ack == 0 && self.p.delay_growth {
                cb.tcb.cwnd = cb.tcb.initial_window();
            }
        } else if ackno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks {
                self.dupack_action_tahoe(cb, cx);
            } else if self.dupacks < self.p.numdupacks && self.p.singledup {
                self.send_one(cb, cx);
            }
        }
        // aggressive_maxburst_ 1: always try to send.
        Some(self.p.maxburst)
    }

    /// ns-2.35: tcp-reno.cc `RenoTcpAgent::recv` (returns as `recv_tahoe`).
    #[inline(always)]
    fn recv_reno(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) -> Option<i32> {
        let ackno = ack.ackno;
        if ackno > self.last_ack {
            if cb.tcb.last_cwnd_action == CwndAction::Dupack {
                cb.tcb.last_cwnd_action = CwndAction::Exited;
            }
            cb.tcb.dupwnd = 0;
            self.recv_newack_helper(cb, cx, ack);
            if self.last_ack == 0 && self.p.delay_growth {
                cb.tcb.cwnd = cb.tcb.initial_window();
            }
        } else if ackno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks {
                self.dupack_action_reno(cb, cx, false);
            } else if self.dupacks > self.p.numdupacks && cb.tcb.last_cwnd_action == CwndAction::Dupack {
                cb.tcb.dupwnd += 1; // fast recovery
            } else if self.dupacks < self.p.numdupacks && self.p.singledup {
                self.send_one(cb, cx);
            }
        }
        if self.dupacks == 0 || self.dupacks > self.p.numdupacks - 1 {
            Some(self.p.maxburst)
        } else {
            None
        }
    }

    /// ns-2.35: tcp-newreno.cc `NewRenoTcpAgent::recv` (returns as `recv_tahoe`).
    #[inline(always)]
    fn recv_newreno(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) -> Option<i32> {
        let ackno = ack.ackno;
        if ackno > self.last_ack {
            if ackno >= self.recover || cb.tcb.last_cwnd_action != CwndAction::Dupack {
                if cb.tcb.dupwnd > 0 {
                    cb.tcb.dupwnd = 0;
                    if cb.tcb.last_cwnd_action == CwndAction::Dupack {
                        cb.tcb.last_cwnd_action = CwndAction::Exited;
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(cb, cx, ack);
                if self.last_ack == 0 && self.p.delay_growth {
                    cb.tcb.cwnd = cb.tcb.initial_window();
                }
            } else {
                // Partial ack: stay in fast recovery (partial_window_deflation_ 1).
                self.partialnewack_helper(cb, cx, ackno);
            }
        } else if ackno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks {
                self.dupack_action_reno(cb, cx, true);
            } else if self.dupacks > self.p.numdupacks && cb.tcb.last_cwnd_action == CwndAction::Dupack {
                cb.tcb.dupwnd += 1; // fast recovery
            } else if self.dupacks < self.p.numdupacks && self.p.singledup {
                self.send_one(cb, cx);
            }
        }
        if self.dupacks == 0 {
            Some(self.p.maxburst)
        } else if self.dupacks > self.p.numdupacks - 1 {
            // newreno_changes_ 0: at most 2 packets per ack while recovering.
            Some(2)
        } else {
            None
        }
    }

    /// ns-2.35: tcp-newreno.cc `partialnewack_helper` + `partialnewack`.
    fn partialnewack_helper(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ackno: i64) {
        // The start-up policy (while a plan runs) and the congestion control hear of
        // it (ns-2's own rule does nothing).
        let ev = self.loss_event(LossKind::PartialAck, cx.now(), false);
        let verdict = if cb.plan_active { self.startup_verdict(cb, cx, &ev) } else { LossVerdict::Cut };
        if !verdict.penalty_free() {
            cb.cc.on_loss(&mut cb.tcb, &ev);
        }
        if !self.firstpartial {
            // newreno_changes1_: reset the timer only for the first partial ack.
            self.firstpartial = true;
            self.newtimer(cb, cx, ackno);
        }
        // partial_window_deflation_
        let deflate = if ackno > self.last_ack { ackno - self.last_ack } else { 0 };
        let dupwnd = cb.tcb.dupwnd as i64;
        if dupwnd > deflate {
            cb.tcb.dupwnd = (dupwnd - (deflate - 1)) as i32;
        } else {
            cb.tcb.cwnd -= (deflate - dupwnd) as f64;
            cb.tcb.dupwnd = 1;
        }
        if cb.tcb.cwnd < 1.0 {
            cb.tcb.cwnd = 1.0;
        }
        self.last_ack = ackno;
        self.highest_ack = ackno;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.rtt_active && ackno >= self.rtt_seq {
            self.rtt_active = false;
            cb.rtt.t_backoff = 1;
        }
        if verdict.penalty_free() {
            // Fast Start (A.7.3): several losses in a fast-start window; slow start
            // at once instead of one repair per RTT (ns-2.35 tcp-fs.cc
            // `NewRenoTcpFsAgent::partialnewack_helper`).
            cb.end_plan();
            self.apply_verdict(cb, &ev, verdict);
            return self.restart_after_failed_start(cb, cx);
        }
        let seq = self.last_ack + 1;
        count!(self.ctr.fast_retrans);
        self.output(cb, cx, seq);
    }

    /// ns-2.35: tcp.cc `dupack_action()` (Tahoe).
    fn dupack_action_tahoe(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        let recovered = self.highest_ack > self.recover;
        if !(recovered || self.highest_ack == 0) && self.p.ecn && cb.tcb.last_cwnd_action == CwndAction::Ecn {
            // ns-2.35: tcp.cc dupack_action — a loss in the window already cut for an
            // ECN echo: back to one packet, ssthresh kept.
            cb.tcb.last_cwnd_action = CwndAction::Dupack;
            let ev = self.loss_event(LossKind::AfterEcn, cx.now(), true);
            self.react_to_loss(cb, cx, &ev);
            self.reset_rtx_timer(cb, cx, false, false);
            return;
        }
        if recovered || self.highest_ack == 0 {
            self.recover = self.maxseq;
            cb.tcb.last_cwnd_action = CwndAction::Dupack;
            count!(self.nfastrexmit);
            count!(self.ctr.fast_retrans);
            let ev = self.loss_event(LossKind::DupAckThreshold, cx.now(), true);
            self.react_to_loss(cb, cx, &ev);
            self.reset_rtx_timer(cb, cx, false, false);
        }
        // bug_fix_: no second fast retransmit in the same window.
    }

    /// ns-2.35: tcp-reno.cc / tcp-newreno.cc `dupack_action()`.
    fn dupack_action_reno(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, newreno: bool) {
        let recovered = self.highest_ack > self.recover;
        // Reno's allow_fast_retransmit(): true while the last action was a dupack one.
        let allow = !newreno && cb.tcb.last_cwnd_action == CwndAction::Dupack;
        if !(recovered || allow || self.highest_ack == 0) {
            if self.p.ecn && cb.tcb.last_cwnd_action == CwndAction::Ecn {
                // ns-2.35: tcp-reno.cc / tcp-newreno.cc dupack_action — a loss in the
                // window already halved for an ECN echo: retransmit and enter fast
                // recovery without halving again.
                cb.tcb.last_cwnd_action = CwndAction::Dupack;
                count!(self.nfastrexmit);
                self.reset_rtx_timer(cb, cx, true, false);
                let seq = self.last_ack + 1;
                self.output(cb, cx, seq);
                cb.tcb.dupwnd = self.p.numdupacks;
            }
            return; // bug_fix_
        }
        self.recover = self.maxseq;
        if newreno {
            self.reset_rtx_timer(cb, cx, true, false);
        }
        cb.tcb.last_cwnd_action = CwndAction::Dupack;
        count!(self.nfastrexmit);
        count!(self.ctr.fast_retrans);
        let ev = self.loss_event(LossKind::DupAckThreshold, cx.now(), true);
        self.react_to_loss(cb, cx, &ev);
        if !newreno {
            self.reset_rtx_timer(cb, cx, true, false);
        }
        let seq = self.last_ack + 1;
        self.output(cb, cx, seq);
        cb.tcb.dupwnd = self.p.numdupacks;
    }

    /// ns-2.35: tcp.cc `recv_newack_helper` (+ `newack`), without Quick-Start.
    fn recv_newack_helper(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) {
        self.newack(cb, cx, ack);
        // ECN (old_ecn_ 0): once ECN is negotiated (ect_), an ack with an ECN echo
        // does not open the window. tcp-asym's recv_newack_helper has neither test.
        let hold = self.ect && ack.ece && !self.p.asym_header;
        if !hold {
            let (now, detail) = (cx.now(), cb.detail);
            cb.cc.on_ack_lazy(&mut cb.tcb, || self.ack_sample(now, ack, detail));
        }
        if self.p.ecn && !self.p.asym_header {
            self.newack_ecn(ack.ece);
        }
        if self.highest_ack >= self.curseq - 1 && !self.closed {
            self.closed = true;
        }
    }

    /// The ECN state kept by ns-2.35 tcp.cc `recv_newack_helper`: an ack without an
    /// echo ends `ecn_backoff_`; the first echo (packet 0's negotiation) sets `ect_`.
    /// (`ecn_burst_` only matters with `old_ecn_`, not modelled.)
    #[cold]
    fn newack_ecn(&mut self, ece: bool) {
        if self.ect && !ece {
            self.ecn_backoff = false;
        }
        // Acks carry no CWR (ns-2 checks `!cong_action()` of the ack too).
        self.ect |= ece;
    }

    /// The sequence state of a new cumulative ack `ackno` at `now` (the start of ns-2's
    /// `newack`): the acked-packet marks, the duplicate-ack count, the cumulative ack,
    /// and `t_seqno` at least past it.
    #[inline(always)]
    fn advance_to(&mut self, now: SimTime, ackno: i64) {
        if (self.marks_done as usize) < ACK_MARKS {
            self.pass_marks(now);
        }
        self.dupacks = 0;
        self.last_ack = ackno;
        self.highest_ack = ackno;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
    }

    /// ns-2.35: tcp.cc `newack(pkt)` with `timerfix_` true. Always inlined: with a
    /// second caller (SACK recovery) the compiler would otherwise move it and the RTT
    /// update out of ns-2's hot path (~2 % more instructions per run).
    #[inline(always)]
    fn newack(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) {
        let ackno = ack.ackno;
        let now = cx.now();
        self.advance_to(now, ackno);
        if self.rtt_active && ackno >= self.rtt_seq {
            // ECN: a connection with a window of one, still answering echoes, keeps
            // its timer backed off (ns-2 `ect_`, `ecn_backoff_`).
            if !(self.ect && self.ecn_backoff && ack.ece) {
                cb.rtt.t_backoff = 1;
                self.ecn_backoff = false;
            }
            self.rtt_active = false;
            let tao = now.as_secs_f64() - self.rtt_ts.as_secs_f64();
            cb.rtt.update(&self.p.rtt, now.as_secs_f64(), tao);
        }
        self.newtimer(cb, cx, ackno);
    }

    /// Record transfers whose last packet is now acked, and tell the applications.
    /// The test is inlined (it runs on every ack); the work, rare, is not.
    #[inline(always)]
    pub(crate) fn check_transfers(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        if self.transfers.front().is_some_and(|t| self.highest_ack >= t.end_seq) {
            self.finish_transfers(cb, cx);
        }
    }

    #[inline(never)]
    fn finish_transfers(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        while let Some(t) = self.transfers.front() {
            if self.highest_ack < t.end_seq {
                break;
            }
            let t = self.transfers.pop_front().expect("front exists");
            let now = cx.now();
            {
                let rec = &mut cx.shared.transfers[t.rec as usize];
                rec.end = OptTime::some(now);
                rec.ctr = self.ctr.since(&rec.ctr);
            }
            {
                let (startup, mut sc) = self.start_ctx(cb, cx, 0);
                startup.on_transfer_done(&mut sc);
            }
            cx.shared.notices.push(Notice::TransferDone { flow: self.flow, transfer: t.rec });
        }
    }
}

/// What a TCP session (`tcp::session`) uses of the mechanism: it replaces ns-2's
/// duplicate-ack, recovery and timer logic for its members, and keeps the rest
/// (sequence state, transfers, counters, `output`).
impl TcpConn {
    /// A new cumulative ack `ackno` under a session: the sequence state of ns-2's
    /// `newack` without its RTT sample and timer (the session keeps both).
    pub(crate) fn session_newack(&mut self, now: SimTime, ackno: i64) {
        self.advance_to(now, ackno);
        if self.highest_ack >= self.curseq - 1 {
            self.closed = true;
        }
    }

    /// The ack sample a session hands its congestion control for a new ack (`prev` is
    /// the cumulative ack before it). Without a timestamp echo (`echo_rtt` None):
    /// a session's congestion controls time one segment per RTT, as ns-2's.
    pub(crate) fn session_ack_sample(&self, now: SimTime, ackno: i64, prev: i64) -> AckSample {
        self.ack_sample(now, AckIn { ackno, prev, ece: false, ts_echo: SimTime::ZERO }, false)
    }

    /// The connection's own timer, which a session member uses only for its SYN
    /// (connection set-up is per connection; the member joins the session's recovery
    /// once established, thesis §6.4): arm it `delay` from now.
    pub(crate) fn arm_syn_timer(&mut self, cx: &mut Ctx, delay: SimTime) {
        self.rtx_timer.resched(cx.sched, delay, self.agent, TIMER_RTX);
    }

    pub(crate) fn cancel_syn_timer(&mut self) {
        self.rtx_timer.cancel();
    }

    /// Is this firing (`gen`) of the connection's own timer current?
    pub(crate) fn syn_timer_fired(&mut self, gen: u32) -> bool {
        self.rtx_timer.fire(gen)
    }

    /// The SYN (segment 0 with `syn`) is still to be sent: the connection has data and
    /// has sent nothing.
    pub(crate) fn needs_syn(&self) -> bool {
        self.p.syn && !self.torn_down && self.t_seqno == 0 && self.curseq > 0
    }

    /// May a new (or go-back-N) data segment leave on this connection, as far as the
    /// connection itself is concerned: it has data, its SYN (if modelled) is acked, and
    /// the receiver's window (`window_`, and the advertised window of a sink with a
    /// slow reader, `rwnd_edge`) has room. A session's scheduler skips a member that
    /// may not send, so its share goes to the others at once (spec D.1 (iii)).
    pub(crate) fn can_send_data(&self, wnd: f64) -> bool {
        !self.torn_down
            && self.t_seqno < self.curseq
            && (!self.p.syn || self.highest_ack >= 0)
            && (self.t_seqno as f64) <= self.highest_ack as f64 + wnd
            && self.t_seqno <= self.rwnd_edge
    }
}
