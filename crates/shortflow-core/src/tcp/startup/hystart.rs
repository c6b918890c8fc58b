//! HyStart as Linux runs it in net/ipv4/tcp_cubic.c (`hystart_update`,
//! `bictcp_hystart_reset`, the part of `cubictcp_acked` that feeds it): in slow start,
//! once cwnd >= `low_window` (16), leave slow start (`ssthresh = cwnd`) when
//! - **ack train**: acks keep arriving within `ack_delta` (2 ms) of each other and the
//!   train since the round began spans more than half the minimum RTT (plus
//!   `hystart_ack_delay`, at most 1 ms, taken as 0 here: it needs Linux's pacing rate); or
//! - **delay**: the smallest RTT of the round's first 8 samples exceeds the minimum RTT by
//!   `clamp(min_rtt / 8, 4 ms, 16 ms)`.
//! A round starts when the cumulative ack passes what was sent when the previous one
//! began (`AckSample::round_done`). Detection happens once (`found`) until an RTO
//! (`bictcp_reset` in the Loss state) clears it. As in Linux, it applies to Reno too when
//! chosen (Linux only runs it inside CUBIC; here it is a start-up policy).

use crate::tcp::cc::Tcb;
use crate::tcp::events::{AckSample, LossEvent, LossKind};
use crate::time::SimTime;

pub const LOW_WINDOW: f64 = 16.0;
pub const ACK_DELTA: SimTime = SimTime::from_micros(2000);
pub const MIN_SAMPLES: u32 = 8;
pub const DELAY_MIN: SimTime = SimTime::from_micros(4000);
pub const DELAY_MAX: SimTime = SimTime::from_micros(16000);

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    pub found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    curr_rtt: Option<SimTime>,
    sample_cnt: u32,
    delay_min: Option<SimTime>,
    started: bool,
    /// Why it left slow start: "ack_train" or "delay".
    pub exit_reason: Option<&'static str>,
}

impl HyStart {
    fn reset(&mut self, now: SimTime) {
        self.round_start = now;
        self.last_ack = now;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// One ack (after the congestion control grew the window).
    pub fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample) {
        if !self.started || ack.round_done {
            self.started = true;
            self.reset(ack.now);
        }
        let Some(delay) = ack.rtt else { return };
        let delay = delay.max(SimTime::from_micros(1));
        if self.delay_min.is_none_or(|m| delay < m) {
            self.delay_min = Some(delay);
        }
        if self.found || !t.in_slow_start() || t.cwnd < LOW_WINDOW {
            return;
        }
        let dmin = self.delay_min.unwrap_or(delay);
        if ack.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = ack.now;
            let threshold = SimTime::from_nanos(dmin.as_nanos() / 2);
            if ack.now.saturating_sub(self.round_start) > threshold {
                return self.exit(t, "ack_train");
            }
        }
        if self.curr_rtt.is_none_or(|c| c > delay) {
            self.curr_rtt = Some(delay);
        }
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = SimTime::from_nanos(dmin.as_nanos() / 8).clamp(DELAY_MIN, DELAY_MAX);
            if self.curr_rtt.is_some_and(|c| c > dmin + thresh) {
                self.exit(t, "delay");
            }
        }
    }

    fn exit(&mut self, t: &mut Tcb, why: &'static str) {
        self.found = true;
        self.exit_reason = Some(why);
        t.ssthresh = t.cwnd as i32;
    }

    pub fn on_loss(&mut self, loss: &LossEvent) {
        if loss.kind == LossKind::Rto {
            let dmin = self.delay_min;
            *self = HyStart { delay_min: dmin, ..HyStart::default() };
            self.delay_min = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures::{ack, tcb};

    fn a(t_ms: f64, rtt_ms: f64, round_done: bool) -> AckSample {
        let mut x = ack(1, 1);
        x.now = SimTime::from_secs_f64(t_ms / 1000.0);
        x.rtt = Some(SimTime::from_secs_f64(rtt_ms / 1000.0));
        x.round_done = round_done;
        x
    }

    #[test]
    fn delay_increase_ends_slow_start_at_cwnd() {
        let mut h = HyStart::default();
        let mut t = tcb(20.0, i32::MAX);
        // Round 1: RTT 100 ms, acks 7.5 ms apart (no ack train).
        for k in 0..10 {
            h.on_ack(&mut t, &a(100.0 + 7.5 * k as f64, 100.0, k == 0));
        }
        assert!(!h.found);
        // Round 2: every sample 113 ms > 100 + 12.5: after 8 samples, exit.
        for k in 0..9 {
            h.on_ack(&mut t, &a(300.0 + 7.5 * k as f64, 113.0, k == 0));
        }
        assert!(h.found);
        assert_eq!(h.exit_reason, Some("delay"));
        assert_eq!(t.ssthresh, 20);
        // 110 ms would not have done it (threshold 12.5 ms).
        let mut h = HyStart::default();
        let mut t = tcb(20.0, i32::MAX);
        for k in 0..10 {
            h.on_ack(&mut t, &a(100.0 + 7.5 * k as f64, 100.0, k == 0));
        }
        for k in 0..20 {
            h.on_ack(&mut t, &a(300.0 + 7.5 * k as f64, 110.0, k == 0));
        }
        assert!(!h.found);
    }

    #[test]
    fn ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        let mut h = HyStart::default();
        let mut t = tcb(32.0, i32::MAX);
        h.on_ack(&mut t, &a(0.0, 40.0, true));
        // Acks 1 ms apart: after 20 ms (half of 40 ms) the train says the pipe is full.
        let mut k = 1;
        while !h.found {
            h.on_ack(&mut t, &a(k as f64, 40.0, false));
            k += 1;
            assert!(k < 30);
        }
        assert_eq!(h.exit_reason, Some("ack_train"));
        assert_eq!(k, 22, "the ack at 21 ms is the first past 20 ms");
    }

    #[test]
    fn nothing_below_the_low_window() {
        let mut h = HyStart::default();
        let mut t = tcb(10.0, i32::MAX);
        h.on_ack(&mut t, &a(0.0, 40.0, true));
        for k in 1..60 {
            h.on_ack(&mut t, &a(k as f64, 40.0 + k as f64, false));
        }
        assert!(!h.found);
    }
}
