//! Linux's Reno (net/ipv4/tcp_cong.c `tcp_reno_cong_avoid`, `tcp_slow_start`,
//! `tcp_cong_avoid_ai`, `tcp_reno_ssthresh`), with Linux's test of whether the window
//! is used at all (tcp.h `tcp_is_cwnd_limited`, tcp_output.c `tcp_cwnd_validate`).
//!
//! - **Slow start** grows by the segments an ack newly acknowledges or SACKs (appropriate
//!   byte counting without a limit L, as `tcp_slow_start`): `cwnd = min(cwnd + acked,
//!   ssthresh)`, the rest of `acked` goes to congestion avoidance.
//! - **Congestion avoidance**: one segment per window, counted in `snd_cwnd_cnt`
//!   (`tcp_cong_avoid_ai` with `w = cwnd`).
//! - The window grows only while it limits the sender ([`CwndUse`]).
//! - **Loss**: `ssthresh = max(cwnd / 2, 2)`; a fast retransmit (or RACK, ECN) sets
//!   `cwnd = ssthresh` (the window recovery then works with -- ns-2's inflation, or
//!   PRR, which reads `Tcb::ssthresh`); an RTO sets `cwnd = 1` and cuts ssthresh only
//!   for the first RTO of a loss episode (`tcp_enter_loss` does not cut again while in
//!   the Loss state).
//!
//! cwnd stays a whole number of segments, as in Linux.

use super::{CongestionControl, Tcb};
use crate::tcp::cc::RttView;
use crate::tcp::events::{AckSample, LossEvent, LossKind, SendMeta};

/// Linux's record of how much of the window the sender uses (`is_cwnd_limited`,
/// `max_packets_out`, `cwnd_usage_seq`), updated at every new segment sent as
/// `tcp_cwnd_validate` does, and read by `tcp_is_cwnd_limited`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwndUse {
    is_cwnd_limited: bool,
    max_packets_out: u32,
    /// The first sequence number after the window being tracked.
    usage_seq: i64,
    /// The cumulative ack seen last (`snd_una - 1`).
    ackno: i64,
}

impl CwndUse {
    /// A new segment leaves with `meta.in_flight` already in flight.
    pub fn on_send(&mut self, t: &Tcb, meta: &SendMeta) {
        if meta.retransmit {
            return;
        }
        let out = meta.in_flight + 1;
        let limited = out as f64 >= t.cwnd.floor();
        if self.ackno + 1 >= self.usage_seq || limited || (!self.is_cwnd_limited && out > self.max_packets_out) {
            self.is_cwnd_limited = limited;
            self.max_packets_out = out;
            self.usage_seq = meta.seq + 1;
        }
    }

    pub fn on_ack(&mut self, ack: &AckSample) {
        self.ackno = self.ackno.max(ack.ackno);
    }

    /// `tcp_is_cwnd_limited`: the window limited the sender in the current window, or
    /// (slow start) cwnd is below twice the most sent.
    pub fn limited(&self, t: &Tcb) -> bool {
        self.is_cwnd_limited || (t.in_slow_start() && t.cwnd < 2.0 * self.max_packets_out as f64)
    }
}

/// `tcp_slow_start`: grow by `acked` up to ssthresh; returns what is left for
/// congestion avoidance.
pub fn slow_start(t: &mut Tcb, acked: u32) -> u32 {
    let cwnd = (t.cwnd + acked as f64).min(t.ssthresh as f64);
    let used = (cwnd - t.cwnd).max(0.0) as u32;
    t.cwnd = cwnd;
    acked - used.min(acked)
}

/// `tcp_cong_avoid_ai(tp, w, acked)`: one segment per `w` acked, with the credit kept in
/// `cnt` (`snd_cwnd_cnt`).
pub fn cong_avoid_ai(t: &mut Tcb, cnt: &mut u32, w: u32, acked: u32) {
    let w = w.max(1);
    if *cnt >= w {
        *cnt = 0;
        t.cwnd += 1.0;
    }
    *cnt += acked;
    if *cnt >= w {
        let delta = *cnt / w;
        *cnt -= delta * w;
        t.cwnd += delta as f64;
    }
}

/// The cwnd cap (`snd_cwnd_clamp`, our `tcp.maxcwnd`; 0 = none).
pub fn clamp(t: &mut Tcb) {
    if t.maxcwnd > 0 && t.cwnd > t.maxcwnd as f64 {
        t.cwnd = t.maxcwnd as f64;
    }
}

/// Segments an ack counts for window growth: newly acked plus newly SACKed.
#[inline]
pub fn acked(ack: &AckSample) -> u32 {
    ack.newly_acked + ack.newly_sacked
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxReno {
    /// `snd_cwnd_cnt`.
    cnt: u32,
    usage: CwndUse,
    /// An RTO's loss episode is open (no new data acked since): later RTOs keep ssthresh.
    in_loss: bool,
}

impl LinuxReno {
    /// `tcp_reno_ssthresh`: half the window, at least 2.
    pub fn ssthresh(t: &Tcb) -> i32 {
        ((t.cwnd as i64) / 2).max(2) as i32
    }
}

impl CongestionControl for LinuxReno {
    fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample) {
        self.usage.on_ack(ack);
        if ack.newly_acked > 0 {
            self.in_loss = false;
        }
        if !self.usage.limited(t) {
            return;
        }
        let mut acked = acked(ack);
        if t.in_slow_start() {
            acked = slow_start(t, acked);
            if acked == 0 {
                return clamp(t);
            }
        }
        let w = t.cwnd as u32;
        cong_avoid_ai(t, &mut self.cnt, w, acked);
        clamp(t);
    }

    fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent) {
        match loss.kind {
            LossKind::DupAckThreshold | LossKind::LaterAcks | LossKind::Ecn => {
                t.ssthresh = Self::ssthresh(t);
                t.cwnd = t.ssthresh as f64;
                self.cnt = 0;
            }
            // Linux `tcp_enter_loss` cuts ssthresh only if no cut was made inside this
            // window: not at a backed-off RTO of the same loss (`in_loss`), and not
            // during a recovery whose window is not yet acked (the sender says so with
            // `new_epoch`, see `SackRecovery::rto_cuts`; inside an ECN-reduced window
            // Linux's recovery sends an `Rto` without a new epoch). ns-2's own timeout
            // inside an ECN-reduced window (`AfterEcn`, ns-2 recoveries) is an RTO here.
            LossKind::Rto | LossKind::AfterEcn => {
                if !self.in_loss && loss.new_epoch {
                    t.ssthresh = Self::ssthresh(t);
                }
                self.in_loss = true;
                t.cwnd = 1.0;
                self.cnt = 0;
            }
            // ns-2's timer-driven restart: Linux's restart window, min(IW, cwnd).
            LossKind::IdleRestart => t.cwnd = t.cwnd.min(t.initial_window()),
            LossKind::PartialAck => {}
        }
    }

    fn on_send(&mut self, t: &Tcb, _rtt: RttView<'_>, meta: &SendMeta) {
        self.usage.on_send(t, meta);
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("snd_cwnd_cnt", self.cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures::{ack, send, tcb};
    use crate::time::SimTime;

    fn view_send(c: &mut LinuxReno, t: &Tcb, seq: i64, in_flight: u32) {
        c.usage.on_send(t, &send(seq, in_flight));
    }

    #[test]
    fn slow_start_grows_by_segments_acked_and_spills_into_ca() {
        let mut t = tcb(10.0, 14);
        let mut c = LinuxReno::default();
        for s in 0..10 {
            view_send(&mut c, &t, s + 1, s as u32);
        }
        // An ack of 2 segments (a delayed ack): +2.
        c.on_ack(&mut t, &ack(2, 2));
        assert_eq!(t.cwnd, 12.0);
        // An ack of 3 with ssthresh 14: +2 to 14, the third counts toward CA (cnt 1).
        c.on_ack(&mut t, &ack(5, 3));
        assert_eq!(t.cwnd, 14.0);
        assert_eq!(c.cnt, 1);
        // 13 more segments acked in CA: 14 credits -> +1.
        c.on_ack(&mut t, &ack(18, 13));
        assert_eq!((t.cwnd, c.cnt), (15.0, 0));
    }

    #[test]
    fn ca_adds_one_segment_per_window_whatever_the_ack_pattern() {
        for per_ack in [1u32, 2, 3, 7] {
            let mut t = tcb(20.0, 10);
            let mut c = LinuxReno::default();
            view_send(&mut c, &t, 20, 19); // the window is full: cwnd-limited
            let mut acked = 0;
            let mut ackno = 0;
            while acked < 20 * 5 {
                ackno += per_ack as i64;
                c.on_ack(&mut t, &ack(ackno, per_ack));
                acked += per_ack;
            }
            // 100 segments at cwnd 20..24: +1 after 20, 21, 22, 23 acked (86); the last
            // 14 are credit.
            assert_eq!(t.cwnd, 24.0, "{per_ack} segments per ack");
        }
    }

    #[test]
    fn no_growth_when_the_window_is_not_used() {
        let mut t = tcb(10.0, 1000);
        let mut c = LinuxReno::default();
        // Only 3 segments ever in flight: slow start grows only while cwnd < 2 x 3.
        view_send(&mut c, &t, 1, 0);
        view_send(&mut c, &t, 2, 1);
        view_send(&mut c, &t, 3, 2);
        c.on_ack(&mut t, &ack(1, 1));
        assert_eq!(t.cwnd, 10.0, "10 >= 2 x 3: not cwnd-limited");
        let mut t = tcb(4.0, 1000);
        c.on_ack(&mut t, &ack(2, 1));
        assert_eq!(t.cwnd, 5.0, "4 < 2 x 3: grows");
    }

    #[test]
    fn losses_halve_and_an_rto_cuts_ssthresh_once() {
        let mut t = tcb(31.0, i32::MAX);
        let mut c = LinuxReno::default();
        let loss = |kind| LossEvent {
            kind,
            now: SimTime::ZERO,
            flow: 0,
            flight_size: 31,
            lost_seq: 5,
            lost_sent_at: None,
            lost_low_prio: false,
            new_epoch: true,
        };
        c.on_loss(&mut t, &loss(LossKind::DupAckThreshold));
        assert_eq!((t.cwnd, t.ssthresh), (15.0, 15));
        c.on_loss(&mut t, &loss(LossKind::Rto));
        assert_eq!((t.cwnd, t.ssthresh), (1.0, 7));
        c.on_loss(&mut t, &loss(LossKind::Rto));
        assert_eq!((t.cwnd, t.ssthresh), (1.0, 7), "a backed-off RTO of the same episode keeps ssthresh");
        c.on_ack(&mut t, &ack(6, 1));
        t.cwnd = 3.0;
        c.on_loss(&mut t, &loss(LossKind::Rto));
        assert_eq!(t.ssthresh, 2, "a new episode: max(3 / 2, 2)");
        t.cwnd = 10.0;
        c.on_ack(&mut t, &ack(7, 1));
        let mut inside = loss(LossKind::Rto);
        inside.new_epoch = false;
        c.on_loss(&mut t, &inside);
        assert_eq!(
            (t.cwnd, t.ssthresh),
            (1.0, 2),
            "an RTO inside a recovery's window (new_epoch false) keeps ssthresh"
        );
    }
}
