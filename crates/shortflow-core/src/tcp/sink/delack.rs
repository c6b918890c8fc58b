//! ns-2.35 `Agent/TCPSink/DelAck` (tcp-sink.cc `DelAckSink::recv`): an in-order
//! segment starts the delayed-ack timer (`interval_`, 100 ms) unless it is running;
//! the next segment (or the timer) sends the ack. Segments that fill a hole are acked
//! at once (`RFC2581_immediate_ack_`), and so is the SYN (segment 0,
//! `SYN_immediate_ack_`, always on as in ns-2.35).

use super::policy::{Segment, Verdict};
use crate::config::{AckPolicyConfig, SinkConfig};
use crate::error::ConfigError;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelAck {
    /// ns-2 `interval_`.
    pub interval: SimTime,
    /// ns-2 `RFC2581_immediate_ack_`.
    pub rfc2581_immediate_ack: bool,
}

impl DelAck {
    /// From `ack_policy = {kind = "delayed", interval_s}`, or from the older
    /// `delack = true` with `delack_interval_s`.
    pub fn from_config(field: &str, cfg: &SinkConfig) -> Result<DelAck, ConfigError> {
        let (path, s) = match &cfg.ack_policy {
            Some(AckPolicyConfig::Delayed { interval_s }) => (format!("{field}.ack_policy.interval_s"), *interval_s),
            _ => (format!("{field}.delack_interval_s"), cfg.delack_interval_s),
        };
        Ok(DelAck { interval: interval(&path, s)?, rfc2581_immediate_ack: cfg.rfc2581_immediate_ack })
    }

    /// ns-2.35: tcp-sink.cc `DelAckSink::recv`.
    #[inline]
    pub fn on_segment(&self, seg: &Segment, timer_pending: bool) -> Verdict {
        if !timer_pending && seg.in_order {
            let immediate = (self.rfc2581_immediate_ack && seg.fills_hole) || seg.seqno == 0;
            if !immediate {
                return Verdict::HoldArm(self.interval);
            }
        }
        Verdict::AckNow
    }
}

/// A delayed-ack timer interval in seconds at `path`: finite and positive.
pub(super) fn interval(path: &str, s: f64) -> Result<SimTime, ConfigError> {
    if !s.is_finite() || s <= 0.0 {
        return Err(ConfigError::new(path, s, "must be a finite number of seconds greater than 0"));
    }
    Ok(SimTime::from_secs_f64(s))
}
