//! Ack every d-th in-order segment (a fixed delayed-ack factor; thesis ch. 9 calls it
//! `d`; `d = 2` is the standard delayed ack and equals ns-2's `DelAck`, `d = 1` is
//! `TCPSink`). The first held segment arms the ack timer, which flushes a partial
//! count. As in ns-2's `DelAck`, out-of-order segments, segments that fill a hole
//! (with `rfc2581_immediate_ack`) and the SYN are acked at once.

use super::delack::interval;
use super::policy::{Segment, Verdict};
use crate::config::{AckPolicyConfig, SinkConfig};
use crate::error::ConfigError;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EveryD {
    /// Segments per ack (>= 1).
    pub d: u32,
    /// Ack timer interval.
    pub interval: SimTime,
    pub rfc2581_immediate_ack: bool,
    /// In-order segments received since the last ack.
    count: u32,
}

impl EveryD {
    pub fn new(d: u32, interval: SimTime, rfc2581_immediate_ack: bool) -> EveryD {
        EveryD { d, interval, rfc2581_immediate_ack, count: 0 }
    }

    /// From `ack_policy = {kind = "every_d", d, interval_s}`.
    pub fn from_config(field: &str, cfg: &SinkConfig) -> Result<EveryD, ConfigError> {
        let Some(AckPolicyConfig::EveryD { d, interval_s }) = &cfg.ack_policy else {
            unreachable!("AckPolicy::from_config builds EveryD only for ack_policy.kind = every_d")
        };
        if *d < 1 {
            return Err(ConfigError::new(format!("{field}.ack_policy.d"), d, "must be at least 1 segment per ack"));
        }
        let iv = interval(&format!("{field}.ack_policy.interval_s"), *interval_s)?;
        Ok(EveryD::new(*d, iv, cfg.rfc2581_immediate_ack))
    }

    #[inline]
    pub fn on_segment(&mut self, seg: &Segment, timer_pending: bool) -> Verdict {
        let immediate = !seg.in_order || (self.rfc2581_immediate_ack && seg.fills_hole) || seg.seqno == 0;
        if immediate {
            return Verdict::AckNow;
        }
        self.count += 1;
        if self.count >= self.d {
            Verdict::AckNow
        } else if timer_pending {
            Verdict::Hold
        } else {
            Verdict::HoldArm(self.interval)
        }
    }

    #[inline]
    pub fn on_ack_sent(&mut self) {
        self.count = 0;
    }
}
