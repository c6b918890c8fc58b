//! Linux's receiver ack rule (net/ipv4/tcp_input.c `tcp_event_data_recv`,
//! `tcp_incr_quickack`, `tcp_enter_quickack_mode`, `__tcp_ack_snd_check`,
//! `tcp_data_queue`; tcp_output.c `tcp_send_delayed_ack`, `tcp_event_ack_sent` /
//! `tcp_dec_quickack_mode`; tcp_timer.c `tcp_delack_timer_handler`), as it acts on a
//! bulk download without SO_RCVLOWAT, pingpong mode or SACK compression.
//!
//! Our reading of the kernel, and what is kept:
//! - **Quick-ack budget.** The first data segment (`icsk_ack.ato == 0`) calls
//!   `tcp_incr_quickack(sk, TCP_MAX_QUICKACKS)`: `quick = max(rcv_wnd / (2 rcv_mss), 2)`
//!   capped at `TCP_MAX_QUICKACKS` (16), never lowered. `rcv_wnd` is the receive window
//!   last advertised (`init_rcv_wnd` segments at first). Since Linux 4.19 (commit
//!   a337531b942b, "tcp: up initial rmem to 128KB and SYN rwin to around 64KB")
//!   `tcp_select_initial_window` offers the whole `tcp_full_space` of the default
//!   `tcp_rmem[1]` (128 KB): 64 KB, rounded down to 44 segments of 1460 B -- the cap
//!   `TCP_DEFAULT_INIT_RCVWND` (10 segments, hence 5 quick acks) applies only before
//!   4.19 or with a route's `initrwnd`. A fresh connection therefore quick-acks **16**
//!   segments. Each in-sequence segment grows the window by two segments
//!   (`tcp_grow_window`'s `incr = 2 * advmss`, the case of full-sized segments), which
//!   matters for a later `tcp_incr_quickack` when `init_rcv_wnd` is small. Each ack
//!   sent spends one (`tcp_dec_quickack_mode`); spending the last resets ato to
//!   `TCP_ATO_MIN`.
//! - **After idle.** A data segment arriving more than the receiver's RTO after the
//!   previous one (`m > icsk_rto`) refills the budget with `tcp_incr_quickack`. The
//!   receiver's RTO is what its own handshake sample gives (it never sends data): we
//!   take the time from the ack of the SYN (sequence 0) to the first data segment as
//!   that sample, `rto = rtt + max(2 rtt, rto_min)` (`tcp_rtt_estimator`'s first
//!   sample), or `rto_init` (1 s, `TCP_TIMEOUT_INIT`) without a SYN.
//! - **ato adaptation** per in-sequence segment, `m` the time since the previous one:
//!   `m <= ato_min/2`: `ato = ato/2 + ato_min/2`; `m < ato`: `ato = min(ato/2 + m, rto)`.
//!   A delayed-ack timer that fires inflates it: `ato = min(2 ato, rto)`.
//! - **When to ack** (`__tcp_ack_snd_check`): at once while quick-acks remain, when more
//!   than one full segment is unacknowledged (every second segment), for out-of-order
//!   data (the out-of-order queue is not empty), when a segment fills a hole
//!   (`ICSK_ACK_NOW`), for a duplicate (`tcp_enter_quickack_mode`, which also resets
//!   ato); otherwise hold it on the delayed-ack timer of `tcp_send_delayed_ack`: ato,
//!   bounded (when above `TCP_DELACK_MIN`, 40 ms) by `min(delack_max, max(srtt, 40 ms))`
//!   with `delack_max` = HZ/2 (500 ms) and srtt the receiver's handshake sample.
//! - The SYN (sequence 0) is acked at once and is no data.
//!
//! Not modelled: SACK compression of the fourth and later duplicate acks
//! (`tcp_comp_sack_delay_ns`, at most 1 ms here), pingpong (interactive) mode,
//! `ICSK_ACK_PUSHED` (an ack when the application reads a short segment: it changes
//! when the sender hears of the last segment, not when it arrives), window updates.

use super::policy::{Segment, Verdict};
use crate::config::{AckPolicyConfig, SinkConfig};
use crate::error::{positive_time_s, time_s, ConfigError};
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxAcks {
    /// `TCP_ATO_MIN` (= `TCP_DELACK_MIN`): 40 ms.
    ato_min: SimTime,
    /// HZ/2: the bound of the delayed-ack timer without pingpong mode.
    delack_max: SimTime,
    /// `TCP_MAX_QUICKACKS`.
    quickacks_max: u32,
    /// The receiver's `tcp_rto_min` and `TCP_TIMEOUT_INIT`.
    rto_min: SimTime,
    rto_init: SimTime,
    // --- state ---
    /// Quick-acks left (`icsk_ack.quick`).
    quick: u32,
    /// `icsk_ack.ato`; ZERO before the first data segment.
    ato: SimTime,
    /// Arrival of the previous in-sequence data segment (`icsk_ack.lrcvtime`).
    lrcvtime: SimTime,
    /// The receive window last advertised, in segments (`rcv_wnd / rcv_mss`).
    rcv_wnd: u32,
    /// When the SYN was acked (the start of the receiver's handshake RTT sample).
    syn_at: Option<SimTime>,
    /// The receiver's smoothed RTT (its handshake sample), if any.
    srtt: Option<SimTime>,
    /// The receiver's RTO.
    rto: SimTime,
    /// In-sequence segments since the last ack (`rcv_nxt - rcv_wup` in segments).
    unacked: u32,
}

impl LinuxAcks {
    /// From `ack_policy = {kind = "linux", ...}`.
    pub fn from_config(field: &str, cfg: &SinkConfig) -> Result<LinuxAcks, ConfigError> {
        let Some(AckPolicyConfig::Linux {
            ato_min_s,
            delack_max_s,
            quickacks_max,
            init_rcv_wnd,
            rto_min_s,
            rto_init_s,
        }) = &cfg.ack_policy
        else {
            unreachable!("AckPolicy::from_config builds LinuxAcks only for ack_policy.kind = linux")
        };
        let f = |k: &str| format!("{field}.ack_policy.{k}");
        let ato_min = positive_time_s(&f("ato_min_s"), *ato_min_s)?;
        let delack_max = positive_time_s(&f("delack_max_s"), *delack_max_s)?;
        if delack_max < ato_min {
            return Err(ConfigError::new(
                f("delack_max_s"),
                delack_max_s,
                format!("must be at least ato_min_s = {ato_min_s}"),
            ));
        }
        if *quickacks_max < 1 {
            return Err(ConfigError::new(f("quickacks_max"), quickacks_max, "must be at least 1"));
        }
        if *init_rcv_wnd < 1 {
            return Err(ConfigError::new(f("init_rcv_wnd"), init_rcv_wnd, "must be at least 1 segment"));
        }
        let rto_min = time_s(&f("rto_min_s"), *rto_min_s)?;
        let rto_init = positive_time_s(&f("rto_init_s"), *rto_init_s)?;
        Ok(LinuxAcks {
            ato_min,
            delack_max,
            quickacks_max: *quickacks_max,
            rto_min,
            rto_init,
            quick: 0,
            ato: SimTime::ZERO,
            lrcvtime: SimTime::ZERO,
            rcv_wnd: *init_rcv_wnd,
            syn_at: None,
            srtt: None,
            rto: rto_init,
            unacked: 0,
        })
    }

    /// Quick-acks left (for tests and traces).
    pub fn quick(&self) -> u32 {
        self.quick
    }

    /// The current ato (ZERO before the first data segment).
    pub fn ato(&self) -> SimTime {
        self.ato
    }

    /// `tcp_incr_quickack(sk, TCP_MAX_QUICKACKS)`.
    fn incr_quickack(&mut self) {
        let q = match self.rcv_wnd / 2 {
            0 => 2,
            q => q,
        }
        .min(self.quickacks_max);
        self.quick = self.quick.max(q);
    }

    /// `tcp_event_data_recv`: the ato engine and the quick-ack budget.
    fn data_recv(&mut self, now: SimTime) {
        if self.ato == SimTime::ZERO {
            // The first data segment: the receiver's handshake RTT sample, if the SYN
            // was seen, then the delayed-ack engine starts in quick-ack mode.
            if let Some(t) = self.syn_at {
                let rtt = now.saturating_sub(t);
                self.srtt = Some(rtt);
                self.rto = rtt + (rtt + rtt).max(self.rto_min);
            }
            self.incr_quickack();
            self.ato = self.ato_min;
        } else {
            let m = now.saturating_sub(self.lrcvtime);
            let half_min = SimTime::from_nanos(self.ato_min.as_nanos() / 2);
            let half_ato = SimTime::from_nanos(self.ato.as_nanos() / 2);
            if m <= half_min {
                self.ato = half_ato + half_min;
            } else if m < self.ato {
                self.ato = (half_ato + m).min(self.rto);
            } else if m > self.rto {
                // Too long a gap: the sender restarts its window; ack it quickly.
                self.incr_quickack();
            }
        }
        self.lrcvtime = now;
    }

    /// The delayed-ack timeout `tcp_send_delayed_ack` arms.
    fn delack_timeout(&self) -> SimTime {
        let mut ato = self.ato;
        if ato > self.ato_min {
            let mut max_ato = self.delack_max;
            if let Some(srtt) = self.srtt {
                max_ato = max_ato.min(srtt.max(self.ato_min));
            }
            ato = ato.min(max_ato);
        }
        ato
    }

    #[inline]
    pub fn on_segment(&mut self, seg: &Segment, timer_pending: bool) -> Verdict {
        if seg.seqno == 0 {
            self.syn_at = Some(seg.now);
            return Verdict::AckNow;
        }
        if seg.duplicate {
            // tcp_data_queue: a retransmission of data already received.
            self.incr_quickack();
            self.ato = self.ato_min;
            return Verdict::AckNow;
        }
        if !seg.advanced {
            // Out of order: the out-of-order queue is not empty.
            return Verdict::AckNow;
        }
        self.data_recv(seg.now);
        self.rcv_wnd = self.rcv_wnd.saturating_add(2);
        self.unacked += 1;
        if seg.fills_hole || !seg.in_order || self.quick > 0 || self.unacked >= 2 {
            return Verdict::AckNow;
        }
        if timer_pending {
            Verdict::Hold
        } else {
            Verdict::HoldArm(self.delack_timeout())
        }
    }

    /// An ack left: `tcp_event_ack_sent` -> `tcp_dec_quickack_mode`.
    #[inline]
    pub fn on_ack_sent(&mut self) {
        self.unacked = 0;
        if self.quick > 0 {
            if self.quick <= 1 {
                self.quick = 0;
                self.ato = self.ato_min;
            } else {
                self.quick -= 1;
            }
        }
    }

    /// The delayed-ack timer fired with an ack held: inflate ato (not in pingpong mode).
    pub fn on_timer(&mut self) {
        self.ato = (self.ato + self.ato).min(self.rto);
    }
}
