//! RACK (RFC 8985 §6) with Linux's defaults (`tcp_recovery.c`): a segment is lost
//! when a segment sent after it has been delivered (cumulatively or SACKed) and it is
//! still missing one RACK.rtt plus a reordering window after it was sent.
//!
//! - `RACK.xmit_ts`/`end_seq`: the send time and sequence of the most recently sent
//!   segment delivered so far; `RACK.rtt` the RTT of that delivery (a retransmitted
//!   segment's sample counts only if it is at least min_rtt, RFC 8985 §6.2 step 2).
//! - Reordering window (Linux `tcp_rack_reo_wnd`): 0 until reordering was seen when in
//!   recovery or when `DupThresh` segments are SACKed; otherwise min_rtt / 4 (times
//!   `reo_wnd_steps`, 1 here: DSACK-driven growth is not modelled), at most SRTT.
//! - The reorder timer fires when the oldest candidate's window runs out (Linux adds
//!   `TCP_TIMEOUT_MIN`, 2 ms).

use super::{DetectCtx, Detected, LossDetection};
use crate::tcp::scoreboard::{SegState, Scoreboard};
use crate::time::SimTime;

/// Linux `TCP_TIMEOUT_MIN_US`: slack added to the reorder timer.
pub const REO_TIMER_SLACK: SimTime = SimTime::from_micros(2000);
/// RFC 8985 DupThresh / Linux `tp->reordering` default (`sysctl_tcp_reordering` 3).
pub const DUP_THRESH: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// Send time and sequence number of the most recently sent delivered segment.
    xmit_ts: Option<SimTime>,
    end_seq: i64,
    rtt: SimTime,
    /// Smallest RTT sample seen (Linux's min_rtt filter over 300 s, longer than runs).
    min_rtt: Option<SimTime>,
    /// Reordering was observed (Linux `reord_seen`).
    pub reord: bool,
}

impl Rack {
    /// Linux `tcp_rack_reo_wnd`.
    fn reo_wnd(&self, cx: &DetectCtx, sb: &Scoreboard) -> SimTime {
        if !self.reord && (cx.in_recovery || sb.sacked_out() >= DUP_THRESH) {
            return SimTime::ZERO;
        }
        let w = self.min_rtt.map_or(SimTime::ZERO, |m| SimTime::from_nanos(m.as_nanos() / 4));
        match cx.srtt {
            Some(s) if s < w => s,
            _ => w,
        }
    }
}

impl LossDetection for Rack {
    /// RFC 8985 §6.2 steps 1-2 (Linux `tcp_rack_advance`), and reordering (a
    /// never-retransmitted segment delivered below the highest SACKed one).
    fn on_delivered(&mut self, seq: i64, st: SegState, now: SimTime, high_sacked: i64) {
        let rtt = now.saturating_sub(st.sent_at);
        if st.ever_retrans && self.min_rtt.is_some_and(|m| rtt < m) {
            return; // ambiguous: likely the original was delivered
        }
        if !st.ever_retrans && seq + 1 < high_sacked {
            self.reord = true;
        }
        if !st.ever_retrans {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        self.rtt = rtt;
        let after = match self.xmit_ts {
            None => true,
            Some(t) => st.sent_at > t || (st.sent_at == t && seq > self.end_seq),
        };
        if after {
            self.xmit_ts = Some(st.sent_at);
            self.end_seq = seq;
        }
    }

    /// RFC 8985 §6.2 step 5 (Linux `tcp_rack_detect_loss`).
    fn detect(&mut self, sb: &mut Scoreboard, cx: &DetectCtx) -> Detected {
        let mut out = Detected::default();
        let Some(xmit_ts) = self.xmit_ts else { return out };
        let reo_wnd = self.reo_wnd(cx, sb);
        let mut wait = SimTime::ZERO;
        for s in sb.base()..sb.end() {
            let Some(st) = sb.get(s) else { continue };
            if st.sacked || (st.lost && !st.retrans) {
                continue;
            }
            // Only segments sent before the reference one.
            if st.sent_at > xmit_ts || (st.sent_at == xmit_ts && s >= self.end_seq) {
                continue;
            }
            let due = st.sent_at + self.rtt + reo_wnd;
            if cx.now >= due {
                if sb.mark_lost(s) {
                    out.newly_lost += 1;
                }
            } else {
                wait = wait.max(due - cx.now);
            }
        }
        if wait > SimTime::ZERO {
            out.timer = Some(wait + REO_TIMER_SLACK);
        }
        out
    }

    /// Linux (`tcp_time_to_recover` with RACK): recovery starts only when RACK has
    /// marked something lost.
    fn dupthresh_starts_recovery(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn cx(now: SimTime) -> DetectCtx {
        DetectCtx { now, in_recovery: false, srtt: Some(ms(100)) }
    }

    /// One segment missing, one later SACKed: lost exactly RACK.rtt + min_rtt/4 after
    /// it was sent (the reorder timer says when), not before.
    #[test]
    fn lost_one_reordering_window_after_a_later_delivery() {
        let mut sb = Scoreboard::default();
        let mut r = Rack::default();
        for s in 0..4 {
            sb.on_send(s, ms(s as u64), false);
        }
        // 0 is delivered at 100 ms (RTT 100), 2 is SACKed at 102 ms (RTT 100); 1 is missing.
        sb.cum_ack(0, |s, st| r.on_delivered(s, st, ms(100), 1));
        let hs = sb.high_sacked();
        sb.sack(2, 3, |s, st| r.on_delivered(s, st, ms(102), hs));
        let d = r.detect(&mut sb, &cx(ms(102)));
        assert_eq!(d.newly_lost, 0, "within the reordering window");
        // Due at sent (1) + rtt (100) + min_rtt/4 (25) = 126 ms; the timer adds 2 ms.
        assert_eq!(d.timer, Some(ms(24) + REO_TIMER_SLACK));
        assert_eq!(r.detect(&mut sb, &cx(ms(125))).newly_lost, 0);
        assert_eq!(r.detect(&mut sb, &cx(ms(126))).newly_lost, 1);
        assert_eq!(sb.get(1).map(|x| x.lost), Some(true));
        assert_eq!(sb.get(3).map(|x| x.lost), Some(false), "sent after the delivered one");
    }

    #[test]
    fn three_sacks_without_reordering_mark_at_once() {
        let mut sb = Scoreboard::default();
        let mut r = Rack::default();
        for s in 0..6 {
            sb.on_send(s, ms(0), false);
        }
        let hs = sb.high_sacked();
        sb.sack(1, 4, |s, st| r.on_delivered(s, st, ms(100), hs));
        assert_eq!(r.detect(&mut sb, &cx(ms(100))).newly_lost, 1, "reo_wnd 0 with DupThresh SACKed");
    }

    #[test]
    fn a_late_original_counts_as_reordering() {
        let mut sb = Scoreboard::default();
        let mut r = Rack::default();
        for s in 0..4 {
            sb.on_send(s, ms(s as u64), false);
        }
        let hs = sb.high_sacked();
        sb.sack(2, 3, |s, st| r.on_delivered(s, st, ms(100), hs));
        assert!(!r.reord);
        let hs = sb.high_sacked();
        sb.cum_ack(1, |s, st| r.on_delivered(s, st, ms(103), hs));
        assert!(r.reord, "segment 1 arrived after 2 without a retransmission");
    }
}
