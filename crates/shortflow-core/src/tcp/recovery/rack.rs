//! RACK (RFC 8985 §6) with Linux's defaults (`tcp_recovery.c`): a segment is lost
//! when a segment sent after it has been delivered (cumulatively or SACKed) and it is
//! still missing one RACK.rtt plus a reordering window after it was sent.
//!
//! - `RACK.xmit_ts`/`end_seq`: the send time and sequence of the most recently sent
//!   segment delivered so far; `RACK.rtt` the RTT of that delivery (a retransmitted
//!   segment's sample counts only if it is at least min_rtt, RFC 8985 §6.2 step 2).
//! - Reordering window (Linux `tcp_rack_reo_wnd`): 0 until reordering was seen when in
//!   recovery or when `DupThresh` segments are SACKed; otherwise min_rtt / 4 times
//!   `reo_wnd_steps`, at most SRTT.
//! - `reo_wnd_steps` (`recovery.dsack_reo_wnd`, Linux `tcp_rack_update_reo_wnd`): 1,
//!   one more (at most 255) on the first ack after a DSACK that the sender's
//!   retransmissions explain, once reordering was seen and unless it reports the
//!   tail loss probe (`tcp_dsack_seen`); at most once per round trip (a DSACK acked
//!   by a segment sent before the last step is disregarded -- Linux compares
//!   delivery counts, `rs->prior_delivered` against `rack.last_delivered`, we the
//!   segment's send time against the step's). Each step keeps the window for 16
//!   recoveries (`TCP_RACK_RECOVERY_THRESH`); a recovery that ends with its cut kept
//!   counts one down, and at 0 the steps return to 1. Without it the steps stay 1.
//! - The reorder timer fires when the oldest candidate's window runs out (Linux adds
//!   `TCP_TIMEOUT_MIN`, 2 ms).

use super::{DetectCtx, Detected, LossDetection};
use crate::tcp::scoreboard::{Scoreboard, SegState};
use crate::time::SimTime;

/// Linux `TCP_TIMEOUT_MIN_US`: slack added to the reorder timer.
pub const REO_TIMER_SLACK: SimTime = SimTime::from_micros(2000);
/// RFC 8985 DupThresh / Linux `tp->reordering` default (`sysctl_tcp_reordering` 3).
pub const DUP_THRESH: u32 = 3;
/// Linux `TCP_RACK_RECOVERY_THRESH`: recoveries a grown reordering window persists.
pub const RECOVERY_THRESH: u8 = 16;

#[derive(Clone, Debug)]
pub struct Rack {
    /// Send time and sequence number of the most recently sent delivered segment.
    xmit_ts: Option<SimTime>,
    end_seq: i64,
    rtt: SimTime,
    /// Smallest RTT sample seen (Linux's min_rtt filter over 300 s, longer than runs).
    min_rtt: Option<SimTime>,
    /// Reordering was observed (Linux `reord_seen`).
    pub reord: bool,
    /// `recovery.dsack_reo_wnd`: DSACKs grow the reordering window.
    adapt: bool,
    /// Linux `rack.reo_wnd_steps` (1 when not adapting), `reo_wnd_persist`,
    /// `dsack_seen`, and when the window last grew (for `rack.last_delivered`).
    pub steps: u32,
    pub persist: u8,
    dsack_seen: bool,
    last_step: Option<SimTime>,
}

impl Default for Rack {
    fn default() -> Rack {
        Rack::new(false)
    }
}

impl Rack {
    /// `adapt`: DSACKs grow the reordering window (`recovery.dsack_reo_wnd`).
    pub fn new(adapt: bool) -> Rack {
        Rack {
            xmit_ts: None,
            end_seq: 0,
            rtt: SimTime::ZERO,
            min_rtt: None,
            reord: false,
            adapt,
            steps: 1,
            persist: 0,
            dsack_seen: false,
            last_step: None,
        }
    }

    /// Linux `tcp_rack_reo_wnd`.
    fn reo_wnd(&self, cx: &DetectCtx, sb: &Scoreboard) -> SimTime {
        if !self.reord && (cx.in_recovery || sb.sacked_out() >= DUP_THRESH) {
            return SimTime::ZERO;
        }
        let w = self.min_rtt.map_or(SimTime::ZERO, |m| SimTime::from_nanos(m.as_nanos() / 4 * self.steps as u64));
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

    /// Linux `tcp_dsack_seen`: RACK takes a DSACK only after reordering was seen and
    /// not for the probe (timer-driven, not RACK's doing).
    fn on_dsack(&mut self, tlp: bool) {
        if self.adapt && self.reord && !tlp {
            self.dsack_seen = true;
        }
    }

    /// Linux `tcp_rack_update_reo_wnd` (see the module doc).
    fn after_ack(&mut self, newest_sent: Option<SimTime>, now: SimTime) {
        let Some(sent) = newest_sent else { return };
        if !self.adapt {
            return;
        }
        if self.last_step.is_some_and(|t| sent < t) {
            self.dsack_seen = false; // no round trip since the last step
        }
        if self.dsack_seen {
            self.steps = (self.steps + 1).min(0xFF);
            self.dsack_seen = false;
            self.last_step = Some(now);
            self.persist = RECOVERY_THRESH;
        } else if self.persist == 0 {
            self.steps = 1;
        }
    }

    /// Linux `tcp_try_undo_recovery` without an undo: `reo_wnd_persist--`.
    fn on_recovery_end(&mut self) {
        self.persist = self.persist.saturating_sub(1);
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

    /// Linux `tcp_rack_update_reo_wnd`: a DSACK (after reordering was seen, not the
    /// probe's) adds min_rtt/4 to the window on the next ack that delivers something,
    /// at most once per round trip and at most up to SRTT; 16 recoveries without one
    /// bring the window back to min_rtt/4.
    #[test]
    fn dsacks_grow_the_window_once_per_round_trip_for_16_recoveries() {
        let mut sb = Scoreboard::default();
        sb.on_send(0, ms(0), false);
        let mut r = Rack::new(true);
        r.on_delivered(0, sb.get(0).unwrap(), ms(100), 0); // min_rtt 100 ms
        let wnd =
            |r: &Rack, srtt: u64| r.reo_wnd(&DetectCtx { now: ms(0), in_recovery: true, srtt: Some(ms(srtt)) }, &sb);
        r.on_dsack(false);
        r.after_ack(Some(ms(50)), ms(200));
        assert_eq!((r.steps, wnd(&r, 200)), (1, SimTime::ZERO), "no reordering seen: ignored, 0 in recovery");
        r.reord = true;
        assert_eq!(wnd(&r, 200), ms(25));
        r.on_dsack(false);
        r.after_ack(None, ms(210));
        assert_eq!(r.steps, 1, "an ack that delivers nothing leaves it pending");
        r.after_ack(Some(ms(150)), ms(300));
        assert_eq!((r.steps, r.persist, wnd(&r, 200)), (2, RECOVERY_THRESH, ms(50)));
        r.on_dsack(false);
        r.after_ack(Some(ms(250)), ms(310));
        assert_eq!(r.steps, 2, "acked by a segment sent before the last step: less than a round trip");
        r.on_dsack(true);
        r.after_ack(Some(ms(400)), ms(500));
        assert_eq!(r.steps, 2, "the probe's DSACK is not RACK's business");
        r.on_dsack(false);
        r.after_ack(Some(ms(400)), ms(500));
        assert_eq!((r.steps, wnd(&r, 200), wnd(&r, 60)), (3, ms(75), ms(60)), "capped by SRTT");
        for _ in 0..15 {
            r.on_recovery_end();
        }
        r.after_ack(Some(ms(600)), ms(700));
        assert_eq!(r.steps, 3, "15 recoveries: kept");
        r.on_recovery_end();
        r.after_ack(Some(ms(700)), ms(800));
        assert_eq!((r.steps, wnd(&r, 200)), (1, ms(25)), "16: back to min_rtt/4");
        // Without `dsack_reo_wnd` the window stays min_rtt/4.
        let mut f = Rack::new(false);
        f.on_delivered(0, sb.get(0).unwrap(), ms(100), 0);
        f.reord = true;
        f.on_dsack(false);
        f.after_ack(Some(ms(150)), ms(300));
        assert_eq!(f.steps, 1);
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
