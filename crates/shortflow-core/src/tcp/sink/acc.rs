//! Ack congestion control (thesis ch. 9 ACC; spec thesis-faststart-asymmetry B.3.1;
//! ns-2.35 tcp-asym-sink.cc `TcpAsymSink::recv`): the receiver adapts its delayed-ack
//! factor `d` to congestion on the ack path. An ECN-marking RED queue on the upstream
//! link marks acks (the sink's acks must be ECN-capable: `sink.ect_acks`); the sender
//! echoes a CE-marked ack on its next data segment (`Segment::ece`, sent by a
//! sender-adaptation sender).
//!
//! Per arriving segment:
//! - `highest_ts_echo = max(highest_ts_echo, ts_echo)`: the newest of our own ack
//!   timestamps the sender has echoed. "One RTT has passed since time T" is
//!   `highest_ts_echo >= T`.
//! - ECE and one RTT since the last increase: `d = min(2d, d_max)`;
//!   else, one RTT since the last increase and since the last decrease:
//!   `d = max(d - 1, 1)`.
//! - The next in-order segment may be held while fewer than
//!   `lim = min(d, d_max, sender_can_send / 2)` are unacked (ns-2's safety factor 2
//!   keeps the sender from stalling); any other segment (out of order, filling a
//!   hole) is acked at once (`lim = 0`), and so is the SYN.
//!
//! Choices where thesis and ns-2.35 differ (spec B.7): `d` starts at `d_init` (thesis:
//! 2; ns-2.35: 1). To let that start value count for one round trip, the round-trip
//! clocks (`t_last_ecn`, `t_last_decrease`) start at the first segment's arrival,
//! and the first segment does not adapt d; ns-2.35 starts them at 0, so its first
//! segment already decreases d. Without the
//! tcp-asym header (a standard sender) `lim = min(d, d_max)`.

use super::delack::interval;
use super::policy::{Segment, Verdict};
use crate::config::{AckPolicyConfig, SinkConfig};
use crate::error::ConfigError;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acc {
    /// The delayed-ack factor (ns-2 `delackfactor_`).
    pub d: u32,
    /// Its upper bound (ns-2 `maxdelack_`).
    pub d_max: u32,
    /// Ack timer interval (ns-2 `interval_`).
    pub interval: SimTime,
    /// In-order segments received since the last ack (ns-2 `delackcount_`).
    count: u32,
    /// Time of the last increase of d (ns-2 `ts_ecn_`) and of the last decrease
    /// (`ts_decrease_`); `None` until the first segment.
    t_last_ecn: Option<SimTime>,
    t_last_decrease: SimTime,
    /// ns-2 `highest_ts_echo_`.
    highest_ts_echo: SimTime,
    /// Increases and decreases of d so far (for tests and traces).
    pub increases: u32,
    pub decreases: u32,
}

impl Acc {
    pub fn new(d_init: u32, d_max: u32, interval: SimTime) -> Acc {
        Acc {
            d: d_init,
            d_max,
            interval,
            count: 0,
            t_last_ecn: None,
            t_last_decrease: SimTime::ZERO,
            highest_ts_echo: SimTime::ZERO,
            increases: 0,
            decreases: 0,
        }
    }

    /// From `ack_policy = {kind = "acc", d_init, d_max, interval_s}`.
    pub fn from_config(field: &str, cfg: &SinkConfig) -> Result<Acc, ConfigError> {
        let Some(AckPolicyConfig::Acc { d_init, d_max, interval_s }) = &cfg.ack_policy else {
            unreachable!("AckPolicy::from_config builds Acc only for ack_policy.kind = acc")
        };
        if *d_max < 1 {
            return Err(ConfigError::new(
                format!("{field}.ack_policy.d_max"),
                d_max,
                "must be at least 1 segment per ack",
            ));
        }
        if *d_init < 1 || d_init > d_max {
            return Err(ConfigError::new(
                format!("{field}.ack_policy.d_init"),
                d_init,
                format!("must be between 1 and d_max = {d_max}"),
            ));
        }
        let iv = interval(&format!("{field}.ack_policy.interval_s"), *interval_s)?;
        Ok(Acc::new(*d_init, *d_max, iv))
    }

    /// ns-2.35: tcp-asym-sink.cc `TcpAsymSink::recv`.
    pub fn on_segment(&mut self, seg: &Segment, timer_pending: bool) -> Verdict {
        self.highest_ts_echo = self.highest_ts_echo.max(seg.ts_echo);
        let Some(t_ecn) = self.t_last_ecn else {
            // The first segment starts the round-trip clocks (see the module doc).
            self.t_last_ecn = Some(seg.now);
            self.t_last_decrease = seg.now;
            return self.decide(seg, timer_pending);
        };
        let rtt_since_ecn = self.highest_ts_echo >= t_ecn;
        if seg.ece && rtt_since_ecn {
            self.d = (2 * self.d).min(self.d_max);
            self.t_last_ecn = Some(seg.now);
            self.increases += 1;
        } else if rtt_since_ecn && self.highest_ts_echo >= self.t_last_decrease {
            if self.d > 1 {
                self.decreases += 1;
            }
            self.d = self.d.saturating_sub(1).max(1);
            self.t_last_decrease = seg.now;
        }
        self.decide(seg, timer_pending)
    }

    /// Hold or ack, with the current d (ns-2 `delacklim_` and `delackcount_`).
    fn decide(&mut self, seg: &Segment, timer_pending: bool) -> Verdict {
        let lim = if seg.in_order && seg.seqno != 0 {
            let by_window = seg.sender_can_send.map_or(i64::MAX, |n| n / 2);
            (self.d.min(self.d_max) as i64).min(by_window)
        } else {
            0
        };
        self.count += 1;
        if (self.count as i64) < lim {
            if timer_pending {
                Verdict::Hold
            } else {
                Verdict::HoldArm(self.interval)
            }
        } else {
            Verdict::AckNow
        }
    }

    #[inline]
    pub fn on_ack_sent(&mut self) {
        self.count = 0;
    }
}
