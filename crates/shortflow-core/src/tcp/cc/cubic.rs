//! CUBIC (RFC 9438) as Linux's net/ipv4/tcp_cubic.c computes it: β = 717/1024 (0.7),
//! C = 0.4 (`bic_scale` 41, `cube_rtt_scale` 410 over `2^(10 + 3·BICTCP_HZ)`), time in
//! jiffies (HZ = 1000, so ms) scaled to 1/1024 s, fast convergence, the Reno-friendly
//! ("TCP friendliness") region with Linux's `beta_scale`, and the first epoch's `cnt` cap
//! of 20 while `last_max_cwnd` is 0. HyStart is not part of this rule here: it is a
//! start-up policy (`tcp::startup::hystart`), usable with Reno too.
//!
//! Window growth per ack: slow start as Linux Reno (`tcp_slow_start`, by segments
//! acked), then `bictcp_update` sets `cnt` (acks per +1) and `tcp_cong_avoid_ai(cnt)`
//! applies it -- only while the window limits the sender (`tcp_is_cwnd_limited`).
//! Loss: `ssthresh = max(cwnd · β, 2)` with `last_max_cwnd` from fast convergence and a
//! new epoch (`cubictcp_recalc_ssthresh`); an RTO also resets the state
//! (`cubictcp_state(TCP_CA_Loss)` -> `bictcp_reset`). `CA_EVENT_TX_START` (sending after
//! idle) shifts the epoch by the idle time.
//!
//! Not bit-exact in one place: Linux's `cubic_root` is a table lookup plus one Newton
//! step (≈0.2 % error); here K is the exact integer cube root.

use super::linux_reno::{clamp, cong_avoid_ai, slow_start, CwndUse};
use super::{CongestionControl, RttView, Tcb};
use crate::tcp::events::{AckSample, LossEvent, LossKind, SendMeta};
use crate::time::SimTime;

pub const BICTCP_BETA_SCALE: u64 = 1024;
pub const BETA: u64 = 717;
pub const BIC_SCALE: u64 = 41;
pub const BICTCP_HZ: u32 = 10;
/// Jiffies per second (HZ = 1000).
pub const HZ: u64 = 1000;

/// `cube_rtt_scale = bic_scale * 10`.
const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// `cube_factor = 2^(10 + 3 BICTCP_HZ) / cube_rtt_scale`.
const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;
/// `beta_scale = 8 (1024 + beta) / 3 / (1024 - beta)` (Reno-friendly region).
const BETA_SCALE: u64 = 8 * (BICTCP_BETA_SCALE + BETA) / 3 / (BICTCP_BETA_SCALE - BETA);

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64,
    origin_point: u32,
    /// K in 1/1024 s.
    k: u64,
    /// Minimum RTT (µs); 0 before a sample.
    delay_min_us: u64,
    /// Epoch start (jiffies + 1, so 0 means none).
    epoch_start: u64,
    ack_cnt: u32,
    tcp_cwnd: u32,
    usage: CwndUse,
    /// snd_cwnd_cnt.
    cwnd_cnt: u32,
    last_send: Option<SimTime>,
    in_loss: bool,
}

fn jiffies(t: SimTime) -> u64 {
    t.as_nanos() / (1_000_000_000 / HZ)
}

/// Integer cube root (floor).
fn cbrt(x: u64) -> u64 {
    let mut r = (x as f64).cbrt() as u64;
    while r * r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

impl Cubic {
    /// β as a fraction (for PRR or a report).
    pub fn beta() -> f64 {
        BETA as f64 / BICTCP_BETA_SCALE as f64
    }

    /// `bictcp_update`: the cubic target at `now` and the acks per +1 (`cnt`).
    fn update(&mut self, cwnd: u32, acked: u32, now: u64) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        if !(self.epoch_start != 0 && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            if self.epoch_start == 0 {
                self.epoch_start = now + 1;
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin_point = cwnd;
                } else {
                    self.k = cbrt(CUBE_FACTOR * (self.last_max_cwnd - cwnd) as u64);
                    self.origin_point = self.last_max_cwnd;
                }
            }
            let elapsed = now - (self.epoch_start - 1);
            // t in 1/1024 s, with the minimum RTT added (RFC 9438 W(t + RTT)).
            let t = ((elapsed + self.delay_min_us / (1_000_000 / HZ)) << BICTCP_HZ) / HZ;
            let offs = t.abs_diff(self.k);
            let delta = (CUBE_RTT_SCALE as u128 * (offs as u128).pow(3)) >> (10 + 3 * BICTCP_HZ);
            let delta = delta.min(u32::MAX as u128) as u64;
            let target = if t < self.k {
                (self.origin_point as u64).saturating_sub(delta)
            } else {
                self.origin_point as u64 + delta
            };
            self.cnt = if target > cwnd as u64 { (cwnd as u64 / (target - cwnd as u64)) as u32 } else { 100 * cwnd };
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        // Reno-friendly region.
        let delta = ((cwnd as u64 * BETA_SCALE) >> 3).max(1) as u32;
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            if self.cnt > max_cnt {
                self.cnt = max_cnt;
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// `cubictcp_recalc_ssthresh`.
    fn recalc_ssthresh(&mut self, cwnd: u32) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd {
            (cwnd as u64 * (BICTCP_BETA_SCALE + BETA) / (2 * BICTCP_BETA_SCALE)) as u32
        } else {
            cwnd
        };
        ((cwnd as u64 * BETA / BICTCP_BETA_SCALE) as u32).max(2)
    }

    /// The cubic window W(t) (segments) `t_s` seconds into an epoch that started at
    /// `cwnd` after a loss at `w_max`, with minimum RTT `rtt_s`, as the rule computes it.
    pub fn target_at(w_max: u32, cwnd: u32, t_s: f64, rtt_s: f64) -> u64 {
        let mut c = Cubic { last_max_cwnd: w_max, delay_min_us: (rtt_s * 1e6) as u64, ..Cubic::default() };
        c.update(cwnd, 1, 0);
        let now = (t_s * HZ as f64).round() as u64;
        let t = ((now + c.delay_min_us / (1_000_000 / HZ)) << BICTCP_HZ) / HZ;
        let offs = t.abs_diff(c.k);
        let delta = ((CUBE_RTT_SCALE as u128 * (offs as u128).pow(3)) >> (10 + 3 * BICTCP_HZ)) as u64;
        if t < c.k {
            (c.origin_point as u64).saturating_sub(delta)
        } else {
            c.origin_point as u64 + delta
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample) {
        self.usage.on_ack(ack);
        if ack.newly_acked > 0 {
            self.in_loss = false;
        }
        if let Some(rtt) = ack.rtt {
            let us = (rtt.as_nanos() / 1000).max(1);
            if self.delay_min_us == 0 || self.delay_min_us > us {
                self.delay_min_us = us;
            }
        }
        if !self.usage.limited(t) {
            return;
        }
        let mut acked = ack.newly_acked + ack.newly_sacked;
        if t.in_slow_start() {
            acked = slow_start(t, acked);
            if acked == 0 {
                return clamp(t);
            }
        }
        self.update(t.cwnd as u32, acked, jiffies(ack.now));
        let cnt = self.cnt;
        cong_avoid_ai(t, &mut self.cwnd_cnt, cnt, acked);
        clamp(t);
    }

    fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent) {
        match loss.kind {
            LossKind::DupAckThreshold | LossKind::LaterAcks | LossKind::Ecn => {
                t.ssthresh = self.recalc_ssthresh(t.cwnd as u32) as i32;
                t.cwnd = t.ssthresh as f64;
                self.cwnd_cnt = 0;
            }
            // Linux `tcp_enter_loss` cuts ssthresh only if no cut was made inside this
            // window: not at a backed-off RTO of the same loss (`in_loss`), and not
            // during a recovery whose window is not yet acked (the sender says so with
            // `new_epoch`, see `SackRecovery::rto_cuts`; inside an ECN-reduced window
            // Linux's recovery sends an `Rto` without a new epoch). ns-2's own timeout
            // inside an ECN-reduced window (`AfterEcn`, ns-2 recoveries) is an RTO here.
            LossKind::Rto | LossKind::AfterEcn => {
                if !self.in_loss && loss.new_epoch {
                    t.ssthresh = self.recalc_ssthresh(t.cwnd as u32) as i32;
                }
                self.in_loss = true;
                // cubictcp_state(TCP_CA_Loss): bictcp_reset.
                let (usage, last_send) = (self.usage, self.last_send);
                *self = Cubic { usage, last_send, in_loss: true, ..Cubic::default() };
                t.cwnd = 1.0;
            }
            LossKind::IdleRestart => t.cwnd = t.cwnd.min(t.initial_window()),
            LossKind::PartialAck => {}
        }
    }

    fn on_send(&mut self, t: &Tcb, _rtt: RttView<'_>, meta: &SendMeta) {
        if !meta.retransmit && meta.in_flight == 0 {
            // CA_EVENT_TX_START: shift the epoch by the idle time.
            if let (Some(last), true) = (self.last_send, self.epoch_start != 0) {
                let delta = jiffies(meta.now).saturating_sub(jiffies(last));
                self.epoch_start = (self.epoch_start + delta).min(jiffies(meta.now) + 1);
            }
        }
        if !meta.retransmit {
            self.last_send = Some(meta.now);
        }
        self.usage.on_send(t, meta);
    }

    fn wants_detail(&self) -> bool {
        true
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cubic_cnt", self.cnt as f64));
        out.push(("last_max_cwnd", self.last_max_cwnd as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures::{ack, tcb};

    #[test]
    fn constants_are_linux_s() {
        assert_eq!(BETA_SCALE, 15);
        assert_eq!(CUBE_FACTOR, (1u64 << 40) / 410);
        assert!((Cubic::beta() - 0.7).abs() < 0.001);
    }

    /// W(t) against RFC 9438 Eq. 1, W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - β) / C),
    /// C = 0.4, β = 0.7, evaluated at t + RTT as Linux does: within a segment (Linux's
    /// fixed point) over 10 s.
    #[test]
    fn cubic_window_follows_the_rfc_formula() {
        for w_max in [20u32, 100, 1000] {
            let cwnd = (w_max as f64 * 0.7) as u32;
            let rtt = 0.1;
            let beta_eff = cwnd as f64 / w_max as f64;
            let k = (w_max as f64 * (1.0 - beta_eff) / 0.4).cbrt();
            for i in 0..100 {
                let t = i as f64 * 0.1;
                let want = 0.4 * (t + rtt - k).powi(3) + w_max as f64;
                let got = Cubic::target_at(w_max, cwnd, t, rtt) as f64;
                assert!(
                    (got - want.max(0.0)).abs() <= 1.0 + want.abs() * 0.002,
                    "w_max {w_max} t {t}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn loss_is_beta_with_fast_convergence() {
        let mut c = Cubic::default();
        let mut t = tcb(100.0, 50);
        let ev = |kind| LossEvent {
            kind,
            now: SimTime::ZERO,
            flow: 0,
            flight_size: 100,
            lost_seq: 1,
            lost_sent_at: None,
            lost_low_prio: false,
            new_epoch: true,
        };
        c.on_loss(&mut t, &ev(LossKind::DupAckThreshold));
        assert_eq!((t.cwnd, t.ssthresh, c.last_max_cwnd), (70.0, 70, 100), "100 x 717 / 1024 = 70");
        // A second loss below the last maximum: fast convergence remembers less.
        c.on_loss(&mut t, &ev(LossKind::DupAckThreshold));
        assert_eq!(c.last_max_cwnd, 70 * 1741 / 2048);
        assert_eq!(t.ssthresh, 49);
    }

    #[test]
    fn first_epoch_grows_at_least_one_per_twenty_acks() {
        // No loss yet (last_max_cwnd 0), cwnd 40 above ssthresh: cnt is capped at 20.
        let mut c = Cubic::default();
        let mut t = tcb(40.0, 30);
        c.usage.on_send(&t, &crate::tcp::fixtures::send(40, 39));
        let mut a = ack(1, 1);
        a.rtt = Some(SimTime::from_millis(100));
        c.on_ack(&mut t, &a);
        assert!(c.cnt <= 20 && c.cnt >= 2, "cnt {}", c.cnt);
    }
}
