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
use crate::error::ConfigError;
use crate::tcp::scoreboard::{SegState, Scoreboard};
use crate::time::SimTime;

/// Loss-recovery counters of one connection (Linux MIB names, `nstat`), counted for
/// every recovery kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossCounters {
    /// Segments retransmitted, for any reason (`TCPRetransSegs` / ns-2 `nrexmitpack_`).
    pub retrans_segs: u64,
    /// Retransmission timeouts with data outstanding (`TCPTimeouts` / ns-2 `nrexmit_`).
    pub timeouts: u64,
    /// Tail loss probes sent (`TCPLossProbes`).
    pub loss_probes: u64,
    /// Losses repaired by a probe (`TCPLossProbeRecovery`).
    pub loss_probe_recoveries: u64,
    /// Segments retransmitted in fast recovery, not after an RTO nor as a probe
    /// (`TCPFastRetrans`). ns-2 recovery: the fast retransmit and NewReno's partial-ack
    /// retransmissions.
    pub fast_retrans: u64,
    /// Fast recoveries entered with SACK (`TCPSackRecovery`).
    pub sack_recoveries: u64,
    /// RTOs found spurious: the first new ack after the RTO echoes a timestamp older
    /// than the RTO's retransmission, so the original was delivered (Eifel detection,
    /// RFC 3522; Linux counts F-RTO's verdicts as `TCPSpuriousRTOs`).
    pub spurious_rtos: u64,
    /// DSACK blocks received (`TCPDSACKRecv`).
    pub dsack_recv: u64,
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
#[derive(Clone, Debug)]
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
    /// The SACK blocks of the ack being processed (set from its options, taken by
    /// the ack's processing; empty for an ack without blocks).
    pub sack_in: crate::net::packet::SackBlocks,
}

impl SackRecovery {
    /// The recovery state for `cfg` (None for `ns2`), validated against `sack`.
    pub fn from_config(field: &str, cfg: &RecoveryConfig, sack: bool) -> Result<Option<SackRecovery>, ConfigError> {
        let det = match cfg.kind {
            RecoveryKind::Ns2 => {
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
            RecoveryKind::RackTlp => AnyDetector::Rack(rack::Rack::default()),
        };
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
            det,
            state: RecState::Open,
            recover: -1,
            dupacks: 0,
            high_rxt: -1,
            use_prr: cfg.prr,
            prr: None,
            probe: None,
            sack_in: Default::default(),
        }))
    }

    pub fn in_recovery(&self) -> bool {
        self.state != RecState::Open
    }
}

#[cfg(test)]
mod tests;
