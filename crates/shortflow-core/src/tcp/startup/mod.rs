//! Start-up policies: what a sender does when the application hands it new data on a
//! fresh or idle connection, how it leaves that phase, how it treats a loss during it,
//! and what it learns for next time. One file per policy; "where does scheme X decide
//! the window" is `startup/<x>.rs`, `on_transfer_start`.
//!
//! A policy implements [`StartupPolicy`]; every hook has a no-op default. The sender
//! calls the hooks at fixed points of ns-2's control flow:
//! - `on_transfer_start`: in `advanceby`, before `send_much` (ns-2 has no hook there;
//!   TCP/SPAND spec §2.6 and §3.2 put the restart logic exactly there). It returns a
//!   [`StartPlan`]: an optional [`Pacer`] for the first window, an optional range of
//!   sequence numbers sent at low drop priority, and whether to watch acks.
//! - `on_send` (per segment) and `on_ack` (per ack) while the plan is active (`on_ack`
//!   on every ack for a policy that [`wants_every_ack`](StartupPolicy::wants_every_ack));
//!   `on_ack` answers [`Phase::Exit`] to end the plan (pacing, bursts, low-priority
//!   marking and the timer override stop).
//! - `on_loss`: at every loss event *before* the window is cut or the timer backed
//!   off; the [`LossVerdict`] says whether congestion control cuts as usual, the sender
//!   restores a saved window (a failed fast start), or restarts without penalty. The
//!   two penalty-free verdicts also spare the RTO its back-off and send go-back-N from
//!   the first unacked segment. A loss ends the plan, unless the plan says
//!   `through_losses` (then only an RTO or a penalty-free verdict ends it). Partial acks
//!   of NewReno's recovery are loss events for the policy only while a plan is active.
//! - `rtx_timeout`: while the plan is active, the retransmission timer may use the
//!   policy's timeout instead of the RTO (Fast Start's fine-grained reset timer).
//! - `burst_gap`: with a plan's `burst` limit, the delay before the next burst.
//! - `on_transfer_done`: when the last packet of an application transfer is acked.
//! - `on_close`: when the application tears the connection down (an FTP source whose
//!   lifetime ended); the policy leaves whatever shared state it joined.
//!
//! An infinite source (FTP) calls `on_transfer_start` once, when it starts, with
//! `transfer_pkts` the (huge) rest of ns-2's sequence space.
//!
//! What a policy may read and change is in [`StartCtx`]: the window, the RTT
//! estimator, its connection's [path entry](crate::path::PathEntry) and the gateways,
//! and the start-up trace. Its configuration is validated in its own file
//! (`from_config`), called by the simulation builder.
//!
//! Adding a policy: a file here with a type implementing [`StartupPolicy`] and a
//! `from_config`, a variant in [`AnyStartup`] and its arm in each match below, and a
//! variant in `config::StartupConfig` (plus `build` below).

pub mod fair_share;
pub mod fast_start;
pub mod hystart;
pub mod hystart_pp;
pub mod idle_restart;
pub mod linux;
pub mod ns2;
#[cfg(test)]
pub mod scripted;
pub mod spand;

use crate::config::StartupConfig;
use crate::error::ConfigError;
use crate::path::PathCtx;
use crate::results::StartupTrace;
use crate::tcp::cc::Tcb;
use crate::tcp::events::{AckSample, LossEvent, LossVerdict, Phase, SendMarks, SendMeta};
use crate::tcp::pacing::Pacer;
use crate::tcp::rtt::{RttEstimator, RttParams};
use crate::time::SimTime;

pub use fair_share::FairShare;
pub use fast_start::FastStart;
pub use idle_restart::IdleRestart;
pub use linux::LinuxStart;
pub use ns2::{NoRestart, Ns2};
pub use spand::Spand;

/// What a policy may read and change at a hook.
pub struct StartCtx<'a> {
    pub now: SimTime,
    pub flow: u32,
    /// The flow's name (for traces).
    pub flow_name: &'a str,
    pub tcb: &'a mut Tcb,
    pub rtt: &'a mut RttEstimator,
    pub rttp: &'a RttParams,
    /// The connection's current RTO (s), back-off included, from whichever estimator
    /// it runs (ns-2's or Linux's).
    pub rto_s: f64,
    /// Next new sequence number to send (`t_seqno_`) and the highest sent (`maxseq_`).
    pub t_seqno: i64,
    pub maxseq: i64,
    pub highest_ack: i64,
    /// Packets of the transfer being started (0 at other hooks).
    pub transfer_pkts: i64,
    /// Time the last data packet was sent, if any.
    pub last_send: Option<SimTime>,
    /// Address of the destination host (gateway key).
    pub dst_addr: u32,
    /// This connection's path entry and the shared gateways.
    pub path: PathCtx<'a>,
    /// The start-up trace (one row per transfer start of a policy that records).
    pub trace: &'a mut StartupTrace,
}

impl StartCtx<'_> {
    /// Nothing outstanding: every sent packet is acked.
    pub fn idle(&self) -> bool {
        self.highest_ack == self.maxseq
    }
}

/// An inclusive range of sequence numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqRange {
    pub first: i64,
    pub last: i64,
}

impl SeqRange {
    #[inline]
    pub fn contains(&self, seq: i64) -> bool {
        self.first <= seq && seq <= self.last
    }
}

/// What a policy wants for the transfer being started.
#[derive(Clone, Debug, Default)]
pub struct StartPlan {
    /// Space out a range of new segments (TCP/SPAND's paced first window).
    pub pacer: Option<Pacer>,
    /// Send these segments at low drop priority (TCP Fast Start). Only their first
    /// transmission: a retransmission goes at normal priority.
    pub low_prio: Option<SeqRange>,
    /// Send new segments of the connection in bursts of at most this many; when a
    /// burst leaves more allowed by the window, the next one follows after
    /// [`StartupPolicy::burst_gap`] (TCP Fast Start's burst pacing, spec A.6). Never
    /// 0 (no limit is `None`), which keeps `ControlBlock::burst` in 4 bytes.
    pub burst: Option<std::num::NonZeroU32>,
    /// The plan outlives loss events the policy answers with [`LossVerdict::Cut`]
    /// (Fast Start's fs_mode lasts through a fast retransmit); its pacer stops. An RTO
    /// or a penalty-free verdict still ends it.
    pub through_losses: bool,
    /// Call `on_send`/`on_ack` even without pacing or marking.
    pub watch: bool,
}

impl StartPlan {
    /// The plan needs the per-send and per-ack hooks.
    pub fn is_active(&self) -> bool {
        self.pacer.is_some() || self.low_prio.is_some() || self.burst.is_some() || self.watch
    }
}

/// A start-up policy. Every hook has a default that leaves ns-2's behaviour alone.
pub trait StartupPolicy {
    /// The application hands over a transfer; set the window and return a plan.
    fn on_transfer_start(&mut self, _cx: &mut StartCtx) -> StartPlan {
        StartPlan::default()
    }
    /// A segment is about to leave while the plan is active.
    fn on_send(&mut self, _meta: &SendMeta) -> SendMarks {
        SendMarks::default()
    }
    /// An ack arrived while the plan is active, or any ack if the policy
    /// `wants_every_ack` (after the mechanism processed it).
    fn on_ack(&mut self, _cx: &mut StartCtx, _ack: &AckSample) -> Phase {
        Phase::Stay
    }
    /// A loss event, before the window is cut (see [`LossVerdict`]).
    fn on_loss(&mut self, _cx: &mut StartCtx, _loss: &LossEvent) -> LossVerdict {
        LossVerdict::Cut
    }
    /// The last packet of an application transfer was acked.
    fn on_transfer_done(&mut self, _cx: &mut StartCtx) {}
    /// The application tore the connection down (`TcpConn::close`).
    fn on_close(&mut self, _cx: &mut StartCtx) {}
    /// Does this policy replace ns-2's timer-driven slow-start restart (a timeout with
    /// nothing outstanding closing cwnd to 1)? Every policy but `Ns2` does.
    fn replaces_idle_restart(&self) -> bool {
        true
    }
    /// While the plan is active: the retransmission timer's timeout (s) to use instead
    /// of the RTO, if any (Fast Start's fine-grained reset timer, spec A.7.1). Asked
    /// at each (re)arming of the timer.
    fn rtx_timeout(&self, _tcb: &Tcb, _rtt: &RttEstimator, _rttp: &RttParams) -> Option<f64> {
        None
    }
    /// The delay before the next burst of a plan with a `burst` limit, given the
    /// window now; `None` sends the next burst only when an ack allows it.
    fn burst_gap(&self, _tcb: &Tcb) -> Option<SimTime> {
        None
    }
    /// Call `on_ack` on every ack, plan or not (a policy keeping its own estimator).
    fn wants_every_ack(&self) -> bool {
        false
    }
    /// Does the policy read per-segment detail (`AckSample::rtt`/`rate`,
    /// `LossEvent::lost_sent_at`/`lost_low_prio`)? See `CongestionControl::wants_detail`.
    fn wants_detail(&self) -> bool {
        false
    }
}

/// The start-up policy of one connection (enum dispatch on the hot path). Policies
/// larger than a few words are boxed, so that a connection with ns-2's start-up (every
/// connection of a large scale run) does not carry the largest policy's size inline.
#[derive(Clone, Debug)]
pub enum AnyStartup {
    /// ns-2 behaviour: nothing beyond the TCP knobs (built-in slow-start restart).
    Ns2(Ns2),
    /// Explicit slow-start restart after an idle period of at least one RTO.
    IdleRestart(IdleRestart),
    /// cwnd and ssthresh carry over idle periods.
    NoRestart(NoRestart),
    /// TCP/SPAND.
    Spand(Box<Spand>),
    /// TCP Fast Start (thesis ch. 8).
    FastStart(Box<FastStart>),
    /// Fair-share slow start (P3): LISS, ISS, MISS, JS, Cached, Averaged.
    FairShare(Box<FairShare>),
    /// Linux: restart after idle, HyStart / HyStart++.
    Linux(Box<LinuxStart>),
    /// Tests of the sender's side of the contract.
    #[cfg(test)]
    Scripted(scripted::Scripted),
}

impl Default for AnyStartup {
    fn default() -> Self {
        AnyStartup::Ns2(Ns2)
    }
}

/// Dispatch one call to the policy inside `AnyStartup`.
macro_rules! dispatch {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            AnyStartup::Ns2($p) => $call,
            AnyStartup::IdleRestart($p) => $call,
            AnyStartup::NoRestart($p) => $call,
            AnyStartup::Spand($p) => $call,
            AnyStartup::FastStart($p) => $call,
            AnyStartup::FairShare($p) => $call,
            AnyStartup::Linux($p) => $call,
            #[cfg(test)]
            AnyStartup::Scripted($p) => $call,
        }
    };
}

impl AnyStartup {
    /// Build the policy a flow's `startup` table asks for (`field` is its path in the
    /// configuration, for errors; `resolve_gateway` maps a gateway name to its index).
    /// `field` is written out only for the policies that have settings (a replica's
    /// copies build the plain ones once per copy).
    pub fn build(
        field: impl std::fmt::Display,
        cfg: &StartupConfig,
        tcp_window: u32,
        resolve_gateway: &dyn Fn(&str, &str) -> Result<usize, ConfigError>,
    ) -> Result<AnyStartup, ConfigError> {
        let field = || field.to_string();
        Ok(match cfg {
            StartupConfig::Ns2 => AnyStartup::Ns2(Ns2),
            StartupConfig::IdleRestart => AnyStartup::IdleRestart(IdleRestart),
            StartupConfig::NoRestart => AnyStartup::NoRestart(NoRestart),
            StartupConfig::Spand(sc) => {
                AnyStartup::Spand(Box::new(Spand::from_config(&field(), sc, tcp_window, resolve_gateway)?))
            }
            StartupConfig::FastStart(fc) => AnyStartup::FastStart(Box::new(FastStart::from_config(&field(), fc)?)),
            StartupConfig::FairShare(fc) => {
                AnyStartup::FairShare(Box::new(FairShare::from_config(&field(), fc, tcp_window)?))
            }
            StartupConfig::Linux(lc) => AnyStartup::Linux(Box::new(LinuxStart::from_config(&field(), lc)?)),
        })
    }

    #[inline]
    pub fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        dispatch!(self, p => p.on_transfer_start(cx))
    }
    #[inline]
    pub fn on_send(&mut self, meta: &SendMeta) -> SendMarks {
        dispatch!(self, p => p.on_send(meta))
    }
    #[inline]
    pub fn on_ack(&mut self, cx: &mut StartCtx, ack: &AckSample) -> Phase {
        dispatch!(self, p => p.on_ack(cx, ack))
    }
    #[inline]
    pub fn on_loss(&mut self, cx: &mut StartCtx, loss: &LossEvent) -> LossVerdict {
        dispatch!(self, p => p.on_loss(cx, loss))
    }
    #[inline]
    pub fn on_transfer_done(&mut self, cx: &mut StartCtx) {
        dispatch!(self, p => p.on_transfer_done(cx))
    }
    pub fn on_close(&mut self, cx: &mut StartCtx) {
        dispatch!(self, p => p.on_close(cx))
    }
    #[inline]
    pub fn replaces_idle_restart(&self) -> bool {
        dispatch!(self, p => p.replaces_idle_restart())
    }
    pub fn wants_detail(&self) -> bool {
        dispatch!(self, p => p.wants_detail())
    }
    pub fn wants_every_ack(&self) -> bool {
        dispatch!(self, p => p.wants_every_ack())
    }
    #[inline]
    pub fn rtx_timeout(&self, tcb: &Tcb, rtt: &RttEstimator, rttp: &RttParams) -> Option<f64> {
        dispatch!(self, p => p.rtx_timeout(tcb, rtt, rttp))
    }
    pub fn burst_gap(&self, tcb: &Tcb) -> Option<SimTime> {
        dispatch!(self, p => p.burst_gap(tcb))
    }
}
