//! Acks-first scheduling (thesis ch. 9; spec thesis-faststart-asymmetry B.3.3; ns-2.35
//! queue/semantic-packetqueue.cc `deque_acksfirst`): whenever the link becomes free,
//! the oldest queued pure ack leaves before any data packet; otherwise FIFO. Two-class
//! strict priority, non-preemptive, one shared buffer (drops are unchanged).

use super::ring::Ring;
use crate::config::StageConfig;
use crate::error::ConfigError;
use crate::net::packet::{PacketPool, PktKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcksFirst;

impl AcksFirst {
    /// From `{kind = "acks_first"}` at `field` (no parameters).
    pub fn from_config(field: &str, cfg: &StageConfig) -> Result<AcksFirst, ConfigError> {
        match cfg {
            StageConfig::AcksFirst => Ok(AcksFirst),
            other => Err(ConfigError::new(format!("{field}.kind"), other.kind_name(), "not an acks_first stage")),
        }
    }

    /// Index of the oldest ack in `q`, if any (ns-2.35 `deque_acksfirst`).
    #[inline]
    pub fn pick(q: &Ring, pool: &PacketPool) -> Option<usize> {
        q.iter().position(|x| pool.get(x).kind == PktKind::Ack)
    }
}
