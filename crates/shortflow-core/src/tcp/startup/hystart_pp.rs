//! HyStart++ (RFC 9406) as a slow-start exit detector of the Linux start-up policy,
//! usable with Linux Reno and CUBIC. Per round (`AckSample::round_done`):
//! - **slow start**: the smallest RTT of the round's first `N_RTT_SAMPLE` (8) samples
//!   against the previous round's; a rise of at least `clamp(last / 8, 4 ms, 16 ms)`
//!   enters **conservative slow start** (CSS) with that minimum as the baseline;
//! - **CSS**: the window grows by a quarter of what slow start would give
//!   (`CSS_GROWTH_DIVISOR` 4: the rule's growth this ack is taken back by 3/4); a round
//!   whose minimum RTT falls below the baseline was a spurious exit: back to slow start;
//!   after `CSS_ROUNDS` (5) rounds in CSS, congestion avoidance (`ssthresh = cwnd`);
//! - a loss in slow start or CSS ends both (the congestion control's cut sets ssthresh).
//!
//! `L` (the per-ack growth cap) is infinite: the sender does not pace (RFC 9406 §4.3).

use crate::tcp::cc::Tcb;
use crate::tcp::events::{AckSample, LossEvent, LossKind};
use crate::time::SimTime;

pub const MIN_RTT_THRESH: SimTime = SimTime::from_micros(4000);
pub const MAX_RTT_THRESH: SimTime = SimTime::from_micros(16000);
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
pub const CSS_ROUNDS: u32 = 5;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    #[default]
    SlowStart,
    Css,
    Done,
}

#[derive(Clone, Debug, Default)]
pub struct HyStartPP {
    pub phase: Phase,
    last_round_min: Option<SimTime>,
    current_round_min: Option<SimTime>,
    samples: u32,
    css_baseline: Option<SimTime>,
    css_rounds: u32,
    /// Times CSS was left for slow start again (spurious exits).
    pub spurious_exits: u32,
}

impl HyStartPP {
    fn new_round(&mut self) {
        self.last_round_min = self.current_round_min;
        self.current_round_min = None;
        self.samples = 0;
    }

    /// One ack, after the congestion control grew the window.
    pub fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample) {
        if self.phase == Phase::Done {
            return;
        }
        if !t.in_slow_start() {
            // Slow start ended otherwise (ssthresh reached, a loss).
            self.phase = Phase::Done;
            return;
        }
        if ack.round_done {
            self.new_round();
            if self.phase == Phase::Css {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    t.ssthresh = t.cwnd as i32;
                    self.phase = Phase::Done;
                    return;
                }
            }
        }
        if self.phase == Phase::Css {
            // Take back 3/4 of this ack's slow-start growth.
            let grown = (ack.newly_acked + ack.newly_sacked) as f64;
            t.cwnd -= grown * (1.0 - 1.0 / CSS_GROWTH_DIVISOR);
        }
        let Some(rtt) = ack.rtt else { return };
        self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        let cur = self.current_round_min.expect("a sample was taken");
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min {
                    let thresh =
                        SimTime::from_nanos(last.as_nanos() / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        self.css_baseline = Some(cur);
                        self.css_rounds = 0;
                        self.phase = Phase::Css;
                    }
                }
            }
            Phase::Css => {
                if self.css_baseline.is_some_and(|b| cur < b) {
                    self.css_baseline = None;
                    self.phase = Phase::SlowStart;
                    self.spurious_exits += 1;
                }
            }
            Phase::Done => {}
        }
    }

    pub fn on_loss(&mut self, loss: &LossEvent) {
        if matches!(loss.kind, LossKind::DupAckThreshold | LossKind::LaterAcks | LossKind::Rto | LossKind::Ecn) {
            self.phase = Phase::Done;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures::{ack, tcb};

    fn a(rtt_ms: u64, round_done: bool) -> AckSample {
        let mut x = ack(1, 1);
        x.rtt = Some(SimTime::from_millis(rtt_ms));
        x.round_done = round_done;
        x
    }

    /// A round of `n` acks at `rtt_ms`, each growing cwnd by one as slow start does.
    fn round(h: &mut HyStartPP, t: &mut Tcb, rtt_ms: u64, n: u32) {
        for k in 0..n {
            t.cwnd += 1.0;
            h.on_ack(t, &a(rtt_ms, k == 0));
        }
    }

    #[test]
    fn rtt_rise_enters_css_and_a_lower_rtt_returns_to_slow_start() {
        let mut h = HyStartPP::default();
        let mut t = tcb(10.0, i32::MAX);
        round(&mut h, &mut t, 100, 10);
        round(&mut h, &mut t, 100, 10);
        assert_eq!(h.phase, Phase::SlowStart);
        // +12.5 ms is the threshold for a 100 ms minimum: 113 ms enters CSS at the 8th sample.
        round(&mut h, &mut t, 113, 10);
        assert_eq!(h.phase, Phase::Css);
        // In CSS an ack grows cwnd by a quarter of a segment.
        let before = t.cwnd;
        round(&mut h, &mut t, 113, 4);
        assert_eq!(t.cwnd, before + 4.0 * 0.25);
        // The next round's minimum (105 ms) is below the CSS baseline (113): spurious exit.
        round(&mut h, &mut t, 105, 10);
        assert_eq!(h.phase, Phase::SlowStart);
        assert_eq!(h.spurious_exits, 1);
        let before = t.cwnd;
        round(&mut h, &mut t, 105, 3);
        assert_eq!(t.cwnd, before + 3.0, "slow start again: a segment per segment acked");
    }

    #[test]
    fn five_css_rounds_end_slow_start() {
        let mut h = HyStartPP::default();
        let mut t = tcb(10.0, i32::MAX);
        round(&mut h, &mut t, 100, 10);
        round(&mut h, &mut t, 120, 10);
        assert_eq!(h.phase, Phase::Css);
        for _ in 0..4 {
            round(&mut h, &mut t, 120, 10);
        }
        assert_eq!(h.phase, Phase::Css);
        // The fifth CSS round begins: congestion avoidance from here.
        t.cwnd += 1.0;
        h.on_ack(&mut t, &a(120, true));
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(t.ssthresh, t.cwnd as i32);
    }

    #[test]
    fn a_small_rise_stays_in_slow_start() {
        let mut h = HyStartPP::default();
        let mut t = tcb(10.0, i32::MAX);
        round(&mut h, &mut t, 100, 10);
        round(&mut h, &mut t, 110, 10);
        round(&mut h, &mut t, 112, 10);
        assert_eq!(h.phase, Phase::SlowStart, "rises below 12.5 ms round to round");
    }
}
