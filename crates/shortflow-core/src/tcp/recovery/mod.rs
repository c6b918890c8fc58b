//! Loss recovery: how a sender finds lost segments and what it resends.
//!
//! `tcp.recovery.kind` chooses:
//! - `ns2` (default): ns-2.35's duplicate-ack logic of `tcp.variant` (Tahoe, Reno,
//!   NewReno), kept inside the mechanism (`tcp/sender.rs`) where the ns-2 goldens pin
//!   it bit for bit. A connection with it carries no recovery state (`TcpConn::rec`
//!   is `None`: one test per ack, no per-packet call).
//! - `rfc6675` ([`rfc6675`]): conservative SACK loss recovery.
//! - `rack_tlp` ([`rack`] + [`tlp`]): RFC 8985 time-based loss detection and the
//!   tail loss probe, with Linux's defaults.
//!
//! The SACK kinds share [`SackRecovery`]: the scoreboard (`tcp::scoreboard`), the
//! recovery state (open, fast recovery, after an RTO), PRR ([`prr`], RFC 6937) when
//! `tcp.recovery.prr`, and the probe episode. Their difference -- which segments are
//! lost -- is one [`LossDetection`] policy, dispatched by enum ([`AnyDetector`]) as
//! `AnyCc` is. The mechanism's side (reading SACK blocks, sending under pipe,
//! timers) is `tcp/sender/sack.rs`.
//!
//! [`LossCounters`] are every kind's per-connection counters, with Linux's names.

pub mod prr;
pub mod rack;
pub mod rfc6675;
pub mod tlp;

use crate::config::{RecoveryConfig, RecoveryKind};
use crate::engine::Timer;
use crate::error::ConfigError;
use crate::tcp::scoreboard::{Scoreboard, SegState};
use crate::time::SimTime;

/// Loss-recovery counters of one connection (Linux MIB names, `nstat`), counted for
/// every recovery kind. Each is a `u32` (issue 21 item 3: 40 bytes less in every
/// sender and transfer record), added to with `count!`, which stops the run with the
/// counter's name rather than wrap: every count is at most the connection's
/// transmissions or acks, so passing 2^32 - 1 would take over 4 * 10^9 retransmissions
/// (or DSACKs) of one connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossCounters {
    /// Segments retransmitted, for any reason (`TCPRetransSegs` / ns-2 `nrexmitpack_`).
    pub retrans_segs: u32,
    /// Retransmission timeouts with data outstanding (`TCPTimeouts` / ns-2 `nrexmit_`).
    pub timeouts: u32,
    /// Tail loss probes sent (`TCPLossProbes`).
    pub loss_probes: u32,
    /// Losses repaired by a probe (`TCPLossProbeRecovery`).
    pub loss_probe_recoveries: u32,
    /// Segments retransmitted in fast recovery, not after an RTO nor as a probe
    /// (`TCPFastRetrans`). ns-2 recovery: the fast retransmit and NewReno's partial-ack
    /// retransmissions.
    pub fast_retrans: u32,
    /// Fast recoveries entered with SACK (`TCPSackRecovery`).
    pub sack_recoveries: u32,
    /// RTOs found spurious. With `recovery.frto` as Linux counts `TCPSpuriousRTOs`:
    /// F-RTO's verdicts only (`tcp_try_undo_loss(sk, true)`). Otherwise (ns-2 recovery,
    /// SACK recovery without F-RTO): the first new ack after the RTO echoes a
    /// timestamp older than the RTO's retransmission, so the original was delivered
    /// (Eifel detection, RFC 3522; nothing is undone).
    pub spurious_rtos: u32,
    /// RTO window cuts undone (`TCPLossUndo`, `recovery.frto` only): by F-RTO or by a
    /// timestamp echo older than the first retransmission.
    pub loss_undos: u32,
    /// DSACK blocks below the cumulative ack received (`TCPDSACKRecv`).
    pub dsack_recv: u32,
    /// DSACK blocks above the cumulative ack (inside the second SACK block) received
    /// (`TCPDSACKOfoRecv`).
    pub dsack_ofo_recv: u32,
}

/// Add one to the loss counter `$c` (a field of [`LossCounters`]); past `u32::MAX` the
/// run stops with a message naming it (see [`LossCounters`]).
macro_rules! count {
    ($c:expr) => {
        $c = $c.checked_add(1).unwrap_or_else(|| $crate::tcp::recovery::counter_full(stringify!($c)))
    };
}
pub(crate) use count;

/// A loss counter would pass `u32::MAX` (see [`count!`]).
#[cold]
#[inline(never)]
pub(crate) fn counter_full(name: &str) -> u32 {
    panic!("the loss counter `{name}` of one connection would pass {} (`LossCounters` hold u32s)", u32::MAX)
}

impl LossCounters {
    /// What was counted since `start` (a transfer's share of its connection's).
    pub fn since(&self, start: &LossCounters) -> LossCounters {
        LossCounters {
            retrans_segs: self.retrans_segs - start.retrans_segs,
            timeouts: self.timeouts - start.timeouts,
            loss_probes: self.loss_probes - start.loss_probes,
            loss_probe_recoveries: self.loss_probe_recoveries - start.loss_probe_recoveries,
            fast_retrans: self.fast_retrans - start.fast_retrans,
            sack_recoveries: self.sack_recoveries - start.sack_recoveries,
            spurious_rtos: self.spurious_rtos - start.spurious_rtos,
            loss_undos: self.loss_undos - start.loss_undos,
            dsack_recv: self.dsack_recv - start.dsack_recv,
            dsack_ofo_recv: self.dsack_ofo_recv - start.dsack_ofo_recv,
        }
    }
}

/// What a detector sees besides the scoreboard.
#[derive(Clone, Copy, Debug)]
pub struct DetectCtx {
    pub now: SimTime,
    /// In fast recovery or after an RTO.
    pub in_recovery: bool,
    /// Smoothed RTT, if there is a sample.
    pub srtt: Option<SimTime>,
}

/// What a detection pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Segments newly marked lost.
    pub newly_lost: u32,
    /// Run the detection again after this long (RACK's reorder timer).
    pub timer: Option<SimTime>,
}

/// Which segments are lost: the one thing the SACK recovery kinds differ in.
pub trait LossDetection {
    /// A segment was delivered by this ack (cumulatively, or SACKed) at `now`;
    /// `high_sacked` is one past the highest SACKed segment before this ack.
    fn on_delivered(&mut self, _seq: i64, _st: SegState, _now: SimTime, _high_sacked: i64) {}
    /// After the scoreboard took an ack (or the detector's timer fired): mark lost
    /// segments.
    fn detect(&mut self, sb: &mut Scoreboard, cx: &DetectCtx) -> Detected;
    /// Does the DupThresh-th duplicate ack start recovery by itself (RFC 6675)?
    fn dupthresh_starts_recovery(&self) -> bool;
    /// NextSeg rule (3) of RFC 6675, if the kind uses it.
    fn rule3(&self, _sb: &Scoreboard, _high_rxt: i64) -> Option<i64> {
        None
    }
    /// A DSACK that the sender's retransmissions can explain arrived (Linux
    /// `tcp_dsack_seen`); `tlp`: it reports the tail loss probe.
    fn on_dsack(&mut self, _tlp: bool) {}
    /// After an ack's SACK blocks and cumulative ack were taken, before detection:
    /// `newest_sent` is the send time of the most recently sent segment this ack
    /// delivered (None if it delivered nothing). Linux `tcp_rack_update_reo_wnd`.
    fn after_ack(&mut self, _newest_sent: Option<SimTime>, _now: SimTime) {}
    /// Fast recovery or loss recovery ended with its cut kept (Linux
    /// `tcp_try_undo_recovery` without an undo).
    fn on_recovery_end(&mut self) {}
}

/// The loss detector of a SACK recovery kind (enum dispatch).
#[derive(Clone, Debug)]
pub enum AnyDetector {
    Rfc6675(rfc6675::Rfc6675),
    Rack(rack::Rack),
}

macro_rules! dispatch {
    ($self:expr, $d:ident => $call:expr) => {
        match $self {
            AnyDetector::Rfc6675($d) => $call,
            AnyDetector::Rack($d) => $call,
        }
    };
}

impl AnyDetector {
    #[inline]
    pub fn on_delivered(&mut self, seq: i64, st: SegState, now: SimTime, high_sacked: i64) {
        dispatch!(self, d => d.on_delivered(seq, st, now, high_sacked))
    }
    pub fn detect(&mut self, sb: &mut Scoreboard, cx: &DetectCtx) -> Detected {
        dispatch!(self, d => d.detect(sb, cx))
    }
    pub fn dupthresh_starts_recovery(&self) -> bool {
        dispatch!(self, d => d.dupthresh_starts_recovery())
    }
    pub fn rule3(&self, sb: &Scoreboard, high_rxt: i64) -> Option<i64> {
        dispatch!(self, d => d.rule3(sb, high_rxt))
    }
    pub fn on_dsack(&mut self, tlp: bool) {
        dispatch!(self, d => d.on_dsack(tlp))
    }
    pub fn after_ack(&mut self, newest_sent: Option<SimTime>, now: SimTime) {
        dispatch!(self, d => d.after_ack(newest_sent, now))
    }
    pub fn on_recovery_end(&mut self) {
        dispatch!(self, d => d.on_recovery_end())
    }
}

/// What undoing a window cut restores (Linux `prior_cwnd`, `prior_ssthresh`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Undo {
    pub prior_cwnd: f64,
    pub prior_ssthresh: i32,
}

/// Linux `tcp_current_ssthresh` outside a window reduction: the larger of ssthresh
/// and 3/4 of the window (whole segments, as Linux's shifts).
pub fn current_ssthresh(cwnd: f64, ssthresh: i32) -> i32 {
    let c = cwnd.max(0.0) as i64;
    (ssthresh as i64).max((c >> 1) + (c >> 2)).min(i32::MAX as i64) as i32
}

/// Where a SACK sender is (Linux `icsk_ca_state`, less Disorder and CWR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecState {
    Open,
    /// Fast recovery until `recover` is cumulatively acked.
    Recovery,
    /// After an RTO until `recover` is cumulatively acked.
    Loss,
}

/// The recovery state of one connection with a SACK recovery kind.
#[derive(Debug)]
pub struct SackRecovery {
    pub sb: Scoreboard,
    pub det: AnyDetector,
    pub state: RecState,
    /// Highest sequence number sent when recovery began (RFC 6675 RecoveryPoint).
    pub recover: i64,
    /// RFC 6675 `DupAcks`: acks with new SACK information that did not advance the
    /// cumulative ack.
    pub dupacks: u32,
    /// RFC 6675 `HighRxt`: highest segment retransmitted in this recovery.
    pub high_rxt: i64,
    /// RFC 6937 PRR, if configured, during fast recovery.
    pub use_prr: bool,
    pub prr: Option<prr::Prr>,
    /// Tail loss probes (rack_tlp only).
    pub tlp: bool,
    pub probe: Option<tlp::Episode>,
    /// Resending the first unacknowledged segment restarts the RTO (Linux
    /// `tcp_xmit_retransmit_queue`; rack_tlp only -- RFC 6675 leaves the timer to
    /// RFC 6298, which restarts it only on new acks).
    pub rearm_on_head_rtx: bool,
    /// The ack that ends fast recovery also grows the window (Linux `tcp_ack`:
    /// `tcp_fastretrans_alert` sets the state Open, then `tcp_cong_control` runs
    /// `tcp_cong_avoid`; rack_tlp only -- RFC 6675 sets cwnd = ssthresh and leaves
    /// growth to the following acks).
    pub grow_on_exit_ack: bool,
    /// An RTO cuts ssthresh only if no cut was made inside this window yet
    /// ([`SackRecovery::rto_cuts`]; Linux `tcp_enter_loss`; rack_tlp only -- RFC 5681
    /// cuts at every RTO whose segment the timer has not resent yet, fast recovery or not).
    pub rto_cuts_once: bool,
    /// The SACK blocks of the ack being processed (set from its options, taken by
    /// the ack's processing; empty for an ack without blocks).
    pub sack_in: crate::net::packet::SackBlocks,
    /// `recovery.frto`: F-RTO after an RTO, and undoing a loss recovery's cut.
    pub frto_on: bool,
    /// F-RTO runs in this loss recovery (Linux `tp->frto`).
    pub frto: bool,
    /// The next send releases new data only (F-RTO step 2b, Linux `REXMIT_NEW`).
    pub frto_new_only: bool,
    /// What an undo restores, set when a cut starts (Linux `undo_marker` set).
    pub undo: Option<Undo>,
    /// When the first retransmission of the current episode left (Linux
    /// `retrans_stamp`).
    pub retrans_stamp: Option<SimTime>,
    /// RTOs since the cumulative ack last advanced (Linux `icsk_retransmits`).
    pub rto_retransmits: u32,
    /// Segments reported by DSACKs (Linux `dsack_dups`): a DSACK beyond the
    /// segments retransmitted is dubious (`tcp_dsack_seen`).
    pub dsack_dups: u64,
    /// RACK's reorder timer and the tail loss probe's timer (`TcpConn` arms them):
    /// here, not in `TcpConn`, because only a connection with SACK recovery has them
    /// (32 bytes less for every other connection).
    pub rack_timer: Timer,
    pub tlp_timer: Timer,
}

impl SackRecovery {
    /// The recovery state for `cfg` (None for `ns2`), validated against `sack`.
    pub fn from_config(field: &str, cfg: &RecoveryConfig, sack: bool) -> Result<Option<SackRecovery>, ConfigError> {
        let det = match cfg.kind {
            RecoveryKind::Ns2 => {
                if cfg.frto {
                    return Err(ConfigError::new(
                        format!("{field}.recovery.frto"),
                        "true",
                        "F-RTO needs a SACK recovery kind (recovery.kind = \"rfc6675\" or \"rack_tlp\"); ns-2's recovery keeps its own timeout rules",
                    ));
                }
                if cfg.prr {
                    return Err(ConfigError::new(
                        format!("{field}.recovery.prr"),
                        "true",
                        "PRR needs a SACK recovery kind (recovery.kind = \"rfc6675\" or \"rack_tlp\"); ns-2's recovery sets its own window",
                    ));
                }
                return Ok(None);
            }
            RecoveryKind::Rfc6675 => AnyDetector::Rfc6675(rfc6675::Rfc6675),
            RecoveryKind::RackTlp => AnyDetector::Rack(rack::Rack::new(cfg.dsack_reo_wnd)),
        };
        if cfg.dsack_reo_wnd && cfg.kind != RecoveryKind::RackTlp {
            return Err(ConfigError::new(
                format!("{field}.recovery.dsack_reo_wnd"),
                "true",
                "the DSACK-driven reordering window is RACK's: set recovery.kind = \"rack_tlp\"",
            ));
        }

        if !sack {
            let kind = if cfg.kind == RecoveryKind::Rfc6675 { "rfc6675" } else { "rack_tlp" };
            return Err(ConfigError::new(
                format!("{field}.recovery.kind"),
                kind,
                "needs SACK: set tcp.sack = true (the sink then sends SACK blocks)",
            ));
        }
        Ok(Some(SackRecovery {
            sb: Scoreboard::default(),
            tlp: cfg.kind == RecoveryKind::RackTlp,
            rearm_on_head_rtx: cfg.kind == RecoveryKind::RackTlp,
            grow_on_exit_ack: cfg.kind == RecoveryKind::RackTlp,
            rto_cuts_once: cfg.kind == RecoveryKind::RackTlp,
            det,
            state: RecState::Open,
            recover: -1,
            dupacks: 0,
            high_rxt: -1,
            use_prr: cfg.prr,
            prr: None,
            probe: None,
            sack_in: Default::default(),
            frto_on: cfg.frto,
            frto: false,
            frto_new_only: false,
            undo: None,
            retrans_stamp: None,
            rto_retransmits: 0,
            dsack_dups: 0,
            rack_timer: Timer::default(),
            tlp_timer: Timer::default(),
        }))
    }

    pub fn in_recovery(&self) -> bool {
        self.state != RecState::Open
    }

    /// Whether an RTO now opens a new cut (Linux `tcp_enter_loss`: "Reduce ssthresh if it
    /// has not yet been made inside this window"): the connection is not recovering, or
    /// the recovery's window is all acked (`una` = highest cumulative ack), or it is in a
    /// loss recovery whose RTO the cumulative ack has since passed (`icsk_retransmits`
    /// 0). Not during fast recovery, and not at a backed-off RTO of the same loss.
    pub fn rto_cuts(&self, una: i64) -> bool {
        self.state == RecState::Open
            || una >= self.recover
            || (self.state == RecState::Loss && self.rto_retransmits == 0)
    }
}

#[cfg(test)]
mod tests;
