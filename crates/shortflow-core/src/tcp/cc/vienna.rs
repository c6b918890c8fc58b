//! Heads up! Read spec `fairshare-and-sizebased.md` B.2, B.3, B.5 and B.11 before
//! changing this file.
//!
//! TCP Vienna (Ziegler et al., size-based congestion control; seed 004): NewReno whose
//! additive increase α, decrease factor β and slow-start step γ follow the transfer's
//! size. It starts at the upper bounds (8, 0.9, 2) and, every `m = min(600, 2^N)`
//! segments sent (P4 Eq. 4), picks with the throughput model the setting whose
//! throughput for the flow's size is closest to -- but below -- a long delayed-ack Reno
//! flow's on the same path ([`crate::vienna::select`]).
//!
//! - **V1** knows the transfer's size (`on_transfer_start`); **V2** uses the data sent so
//!   far (highest new segment, retransmissions not counted).
//! - Loss estimate (spec B.5, the paper's formula was an image): `p = (0.75·L + 0.25·R)/N`
//!   with L = fast retransmits + partial acks, R = retransmitted segments, N = segments
//!   sent (retransmissions included).
//! - No evaluation while p = 0 or before the first RTT sample (B.11 item 4).
//! - β applies at a fast retransmit (`cwnd ← β·W`, `ssthresh ← max(⌊β·W⌋, 2)` with W
//!   ns-2's `windowd()`, as ns-2's own halving uses); timeouts, idle restarts and ECN
//!   are ns-2's standard reductions (B.11 item 7).

use super::ns2::Ns2Standard;
use super::{CongestionControl, RttView, Tcb};
use crate::config::{ViennaCcConfig, ViennaSchedule, ViennaSize, ViennaWindowModel};
use crate::error::{err, ConfigError};
use crate::results::CcTrace;
use crate::tcp::events::{AckSample, LossEvent, LossKind, SendMeta};
use crate::time::SimTime;
use crate::vienna::{self, Params, PathModel, WindowModel};

/// Which size the model is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeKnowledge {
    /// TCP-V1: the transfer's size in segments.
    Known,
    /// TCP-V2: the data sent so far.
    SentSoFar,
}

/// When the parameters are re-evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// P4 Eq. 4 read literally: next = N + min(M, 2^N) (after packets 1, 3, 11, then
    /// every M).
    Literal,
    /// next = N + min(M, 2^k), k = evaluations so far, this one included (after 1, 3,
    /// 7, 15, ...).
    Doubling,
}

/// Settings of a Vienna sender (validated in `config`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViennaConfig {
    pub size: SizeKnowledge,
    pub schedule: Schedule,
    /// M of Eq. 4 (600).
    pub max_interval: u64,
    pub window_model: WindowModel,
    /// Cross every α with every β instead of P4's pairs (B.11 item 6).
    pub full_grid: bool,
    /// Weight of L in the loss estimate (0.75).
    pub loss_weight: f64,
    /// Segments per ack the model assumes (2: delayed acks at the receiver).
    pub acks_b: f64,
    /// ns-2's `decrease_num_` behaviour: the first decrease (and any in slow start)
    /// halves whatever β is (B.11 item 7 compatibility flag).
    pub ns2_first_decrease_halves: bool,
}

impl Default for ViennaConfig {
    fn default() -> Self {
        ViennaConfig {
            size: SizeKnowledge::SentSoFar,
            schedule: Schedule::Literal,
            max_interval: 600,
            window_model: WindowModel::F,
            full_grid: false,
            loss_weight: 0.75,
            acks_b: 2.0,
            ns2_first_decrease_halves: false,
        }
    }
}

/// A TCP Vienna sender's congestion control.
#[derive(Clone, Debug)]
pub struct Vienna {
    pub cfg: ViennaConfig,
    /// The current parameters.
    pub params: Params,
    /// Segments sent, retransmissions included (N).
    pub sent: u64,
    /// Fast retransmits plus partial acks (L).
    pub loss_events: u64,
    /// Retransmitted segments (R).
    pub retransmitted: u64,
    /// Send count at which the next evaluation is due.
    next_eval: u64,
    evaluations: u32,
    /// V1: the transfer's size (segments).
    transfer: i64,
    /// V2: highest new segment sent.
    highest_sent: i64,
    /// The first sequence number this connection sent: a renewed connection (a fresh
    /// one on the same sequence space, `TcpConn::renew`) counts d from there.
    first_seq: Option<i64>,
    /// The last evaluation's model throughput and B_max (segments/s), for traces.
    pub last_b: f64,
    pub last_b_max: f64,
    /// Every decision (the start and each evaluation that ran), for the `cc` table.
    pub log: Vec<Evaluation>,
}

/// One decision of a Vienna sender, as the `cc` table reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    pub at: SimTime,
    pub sent: u64,
    pub size: f64,
    pub loss_estimate: f64,
    pub srtt_s: f64,
    pub params: Params,
    pub b: f64,
    pub b_max: f64,
}

impl Vienna {
    /// From `tcp.cc = { kind = "vienna", ... }` at `field` (`flows[i].tcp`).
    pub fn from_config(field: &str, c: &ViennaCcConfig) -> Result<Vienna, ConfigError> {
        if c.max_interval == 0 {
            return Err(err(
                format!("{field}.cc.max_interval"),
                c.max_interval,
                "must be at least 1 segment (P4: 600)",
            ));
        }
        if !(0.0..=1.0).contains(&c.loss_weight) {
            return Err(err(format!("{field}.cc.loss_weight"), c.loss_weight, "must be in [0, 1] (P4: 0.75)"));
        }
        if c.model_b != 1.0 && c.model_b != 2.0 {
            return Err(err(
                format!("{field}.cc.model_b"),
                c.model_b,
                "must be 1 (an ack per segment) or 2 (delayed acks)",
            ));
        }
        Ok(Vienna::new(ViennaConfig {
            size: match c.size {
                ViennaSize::Sent => SizeKnowledge::SentSoFar,
                ViennaSize::Known => SizeKnowledge::Known,
            },
            schedule: match c.schedule {
                ViennaSchedule::Literal => Schedule::Literal,
                ViennaSchedule::Doubling => Schedule::Doubling,
            },
            max_interval: c.max_interval as u64,
            window_model: match c.window_model {
                ViennaWindowModel::F => WindowModel::F,
                ViennaWindowModel::P2 => WindowModel::P2,
            },
            full_grid: c.full_grid,
            loss_weight: c.loss_weight,
            acks_b: c.model_b,
            ns2_first_decrease_halves: c.ns2_first_decrease_halves,
        }))
    }

    pub fn new(cfg: ViennaConfig) -> Vienna {
        Vienna {
            cfg,
            params: Params::MAX,
            sent: 0,
            loss_events: 0,
            retransmitted: 0,
            next_eval: 1,
            evaluations: 0,
            transfer: 0,
            highest_sent: -1,
            first_seq: None,
            last_b: f64::NAN,
            last_b_max: f64::NAN,
            log: Vec::new(),
        }
    }

    /// The loss estimate p (0 before anything was sent).
    pub fn loss_estimate(&self) -> f64 {
        if self.sent == 0 {
            return 0.0;
        }
        let a = self.cfg.loss_weight;
        (a * self.loss_events as f64 + (1.0 - a) * self.retransmitted as f64) / self.sent as f64
    }

    /// The flow size the model is asked about (segments, at least 1).
    pub fn model_size(&self) -> f64 {
        let d = match self.cfg.size {
            SizeKnowledge::Known => self.transfer,
            SizeKnowledge::SentSoFar => self.highest_sent + 1 - self.first_seq.unwrap_or(0),
        };
        d.max(1) as f64
    }

    /// Count a segment leaving; evaluate when one is due. `srtt_s` is the smoothed RTT
    /// (0 before the first sample), `rto_s` the current RTO.
    pub fn count_send(&mut self, t: &Tcb, meta: &SendMeta, srtt_s: f64, rto_s: f64) {
        self.sent += 1;
        if self.sent == 1 {
            self.first_seq = Some(meta.seq);
        }
        if meta.retransmit {
            self.retransmitted += 1;
        } else if meta.seq > self.highest_sent {
            self.highest_sent = meta.seq;
        }
        if self.log.is_empty() {
            // The starting point (the upper bounds), for the trace.
            self.log.push(Evaluation {
                at: meta.now,
                sent: 0,
                size: self.model_size(),
                loss_estimate: 0.0,
                srtt_s,
                params: self.params,
                b: f64::NAN,
                b_max: f64::NAN,
            });
        }
        if self.sent >= self.next_eval {
            self.evaluate(t, meta.now, srtt_s, rto_s);
            self.evaluations += 1;
            let step = match self.cfg.schedule {
                Schedule::Literal => pow2_capped(self.sent, self.cfg.max_interval),
                Schedule::Doubling => pow2_capped(self.evaluations as u64, self.cfg.max_interval),
            };
            self.next_eval = self.sent + step;
        }
    }

    /// P4 Fig. 2 with the current estimates (no change while p = 0 or without an RTT).
    fn evaluate(&mut self, t: &Tcb, now: SimTime, srtt_s: f64, rto_s: f64) {
        let p = self.loss_estimate();
        if p <= 0.0 || srtt_s <= 0.0 {
            return;
        }
        // The estimate can exceed 1 early on (R counts every retransmission).
        let p = p.min(0.99);
        let mut path = PathModel::new(p, srtt_s, rto_s, t.initial_window().max(1.0));
        path.b = self.cfg.acks_b;
        path.wmax = t.wnd.max(1.0);
        path.window_model = self.cfg.window_model;
        let d = self.model_size();
        let s = vienna::select(d, &path, self.cfg.full_grid);
        self.params = s.params;
        self.last_b = s.b;
        self.last_b_max = s.b_max;
        self.log.push(Evaluation {
            at: now,
            sent: self.sent,
            size: d,
            loss_estimate: p,
            srtt_s,
            params: s.params,
            b: s.b,
            b_max: s.b_max,
        });
    }
}

/// `min(cap, 2^n)` without overflow.
fn pow2_capped(n: u64, cap: u64) -> u64 {
    if n >= 63 {
        cap
    } else {
        (1u64 << n).min(cap)
    }
}

impl CongestionControl for Vienna {
    fn on_send(&mut self, t: &Tcb, rtt: RttView<'_>, meta: &SendMeta) {
        self.count_send(t, meta, rtt.srtt_s(), rtt.rto_s());
    }

    fn on_transfer_start(&mut self, _t: &mut Tcb, transfer_pkts: i64) {
        self.transfer += transfer_pkts.max(0);
    }

    fn on_ack(&mut self, t: &mut Tcb, _ack: &AckSample) {
        if t.cwnd < t.ssthresh as f64 {
            t.cwnd += self.params.gamma;
        } else {
            t.cwnd += self.params.alpha / t.cwnd;
        }
        if t.maxcwnd > 0 && (t.cwnd as i64) > t.maxcwnd as i64 {
            t.cwnd = t.maxcwnd as f64;
        }
    }

    fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent) {
        match loss.kind {
            LossKind::DupAckThreshold | LossKind::LaterAcks => {
                self.loss_events += 1;
                let halves = self.cfg.ns2_first_decrease_halves && (t.first_decrease || t.in_slow_start());
                let beta = if halves { 0.5 } else { self.params.beta };
                let w = t.windowd();
                t.ssthresh = ((beta * w) as i32).max(2);
                t.cwnd = beta * w;
                t.first_decrease = false;
            }
            LossKind::PartialAck => self.loss_events += 1,
            LossKind::Rto | LossKind::IdleRestart | LossKind::Ecn | LossKind::AfterEcn => Ns2Standard.on_loss(t, loss),
        }
    }

    fn report(&self, flow: &str, out: &mut CcTrace) {
        for (i, e) in self.log.iter().enumerate() {
            out.push(
                flow,
                e.at.as_secs_f64(),
                i as u32,
                &[
                    ("sent", e.sent as f64),
                    ("size", e.size),
                    ("loss_estimate", e.loss_estimate),
                    ("srtt_s", e.srtt_s),
                    ("alpha", e.params.alpha),
                    ("beta", e.params.beta),
                    ("gamma", e.params.gamma),
                    ("model_b", e.b),
                    ("model_b_max", e.b_max),
                ],
            );
        }
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.params.alpha));
        out.push(("beta", self.params.beta));
        out.push(("gamma", self.params.gamma));
        out.push(("model_b", self.last_b));
        out.push(("model_b_max", self.last_b_max));
        out.push(("loss_estimate", self.loss_estimate()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures;

    /// The fixture window with IW 4 and 500-byte packets.
    fn tcb(cwnd: f64, ssthresh: i32) -> Tcb {
        Tcb { wnd_init: 4, packet_size: 500, ..fixtures::tcb(cwnd, ssthresh) }
    }

    fn send(seq: i64, retransmit: bool) -> SendMeta {
        SendMeta { size: 540, retransmit, ..fixtures::send(seq, 0) }
    }

    fn loss(kind: LossKind) -> LossEvent {
        LossEvent {
            kind,
            now: SimTime::ZERO,
            flow: 0,
            flight_size: 10,
            lost_seq: 0,
            lost_sent_at: None,
            lost_low_prio: false,
            new_epoch: true,
        }
    }

    /// One 500-byte segment acked.
    fn ack() -> AckSample {
        AckSample { newly_acked_bytes: 500, ..fixtures::ack(0, 1) }
    }

    #[test]
    fn starts_at_the_upper_bounds_and_grows_by_gamma_and_alpha() {
        let mut v = Vienna::new(ViennaConfig::default());
        assert_eq!(v.params, Params::MAX);
        let mut t = tcb(4.0, 20);
        v.on_ack(&mut t, &ack());
        assert_eq!(t.cwnd, 6.0); // slow start: + γ = 2
        let mut t = tcb(16.0, 8);
        v.on_ack(&mut t, &ack());
        assert_eq!(t.cwnd, 16.5); // congestion avoidance: + α / cwnd = 8 / 16
    }

    #[test]
    fn fast_retransmit_keeps_beta_and_timeouts_halve() {
        let mut v = Vienna::new(ViennaConfig::default());
        let mut t = tcb(20.0, 10);
        t.first_decrease = false;
        v.on_loss(&mut t, &loss(LossKind::DupAckThreshold));
        assert_eq!(t.cwnd, 18.0);
        assert_eq!(t.ssthresh, 18);
        assert_eq!(v.loss_events, 1);
        // An RTO is ns-2's: ssthresh = W/2, cwnd = 1 (not β).
        let mut t = tcb(20.0, 10);
        v.on_loss(&mut t, &loss(LossKind::Rto));
        assert_eq!(t.cwnd, 1.0);
        assert_eq!(t.ssthresh, 10);
        assert_eq!(v.loss_events, 1);
        v.on_loss(&mut t, &loss(LossKind::PartialAck));
        assert_eq!(v.loss_events, 2);
    }

    #[test]
    fn ns2_compatibility_flag_halves_the_first_decrease() {
        let mut v = Vienna::new(ViennaConfig { ns2_first_decrease_halves: true, ..ViennaConfig::default() });
        let mut t = tcb(20.0, 10);
        v.on_loss(&mut t, &loss(LossKind::DupAckThreshold));
        assert_eq!(t.cwnd, 10.0);
        t.cwnd = 20.0;
        v.on_loss(&mut t, &loss(LossKind::DupAckThreshold));
        assert_eq!(t.cwnd, 18.0);
    }

    #[test]
    fn literal_schedule_evaluates_after_packets_1_3_11_then_every_600() {
        let mut v = Vienna::new(ViennaConfig::default());
        let t = tcb(4.0, 20);
        let mut at = vec![];
        for seq in 0..2000 {
            let before = v.evaluations;
            v.count_send(&t, &send(seq, false), 0.2, 0.4);
            if v.evaluations > before {
                at.push(v.sent);
            }
        }
        assert_eq!(at, vec![1, 3, 11, 611, 1211, 1811]);
        let mut v = Vienna::new(ViennaConfig { schedule: Schedule::Doubling, ..ViennaConfig::default() });
        let mut at = vec![];
        for seq in 0..40 {
            let before = v.evaluations;
            v.count_send(&t, &send(seq, false), 0.2, 0.4);
            if v.evaluations > before {
                at.push(v.sent);
            }
        }
        assert_eq!(at, vec![1, 3, 7, 15, 31]);
    }

    #[test]
    fn no_change_without_loss_or_rtt() {
        let mut v = Vienna::new(ViennaConfig::default());
        let t = tcb(4.0, 20);
        for seq in 0..100 {
            v.count_send(&t, &send(seq, false), 0.2, 0.4);
        }
        assert_eq!(v.params, Params::MAX);
        v.loss_events = 3;
        let mut v2 = v.clone();
        v2.next_eval = v2.sent + 1;
        v2.count_send(&t, &send(100, false), 0.0, 1.0);
        assert_eq!(v2.params, Params::MAX);
    }

    #[test]
    fn loss_estimate_weights_events_over_retransmissions() {
        let mut v = Vienna::new(ViennaConfig::default());
        let t = tcb(4.0, 20);
        for seq in 0..36 {
            v.count_send(&t, &send(seq, false), 0.2, 0.4);
        }
        for seq in 0..4 {
            v.count_send(&t, &send(seq, true), 0.2, 0.4);
        }
        v.loss_events = 2;
        assert_eq!(v.sent, 40);
        assert_eq!(v.retransmitted, 4);
        assert!((v.loss_estimate() - (0.75 * 2.0 + 0.25 * 4.0) / 40.0).abs() < 1e-12);
        // V2 asks about the new data only: 36 segments.
        assert_eq!(v.model_size(), 36.0);
    }

    #[test]
    fn evaluation_follows_the_model_v1_and_v2() {
        // p = 0.025 exactly: L = 1, R = 1 over N = 40. The path of spec B.10 with an RTO
        // of 0.4 s, w1 = 4: at d = 40 the selection is (2, 0.6, 1).
        let t = tcb(4.0, 20);
        let mut v1 = Vienna::new(ViennaConfig { size: SizeKnowledge::Known, ..ViennaConfig::default() });
        let mut tt = t.clone();
        v1.on_transfer_start(&mut tt, 40);
        v1.loss_events = 1;
        v1.retransmitted = 1;
        v1.sent = 39;
        v1.next_eval = 40;
        v1.count_send(&t, &send(38, false), 0.2, 0.4);
        assert_eq!(v1.model_size(), 40.0);
        assert_eq!(v1.params, Params { alpha: 2.0, beta: 0.6, gamma: 1.0 });
        assert!(v1.last_b < v1.last_b_max);
        // V2 after only 10 new segments keeps the bounds (the model says short flows may).
        let mut v2 = Vienna::new(ViennaConfig::default());
        v2.loss_events = 1;
        v2.retransmitted = 1;
        v2.sent = 39;
        v2.next_eval = 40;
        v2.highest_sent = 8;
        v2.count_send(&t, &send(9, false), 0.2, 0.4);
        assert_eq!(v2.model_size(), 10.0);
        assert_eq!(v2.params, Params::MAX);
        // ... and at 80 new segments falls to Reno.
        v2.highest_sent = 78;
        v2.sent = 39;
        v2.next_eval = 40;
        v2.count_send(&t, &send(79, false), 0.2, 0.4);
        assert_eq!(v2.params, Params::RENO);
    }
}
