//! Ack filtering (thesis ch. 9 AF; spec thesis-faststart-asymmetry B.3.2; ns-2.35
//! queue/semantic-packetqueue.cc `SemanticPacketQueue::filterAcks`): when an ack of a
//! connection enters the queue, the queued acks of the same connection with a
//! *smaller* cumulative ack number are removed -- they are redundant given cumulative
//! acks. Acks with an equal number (duplicate acks) stay, so fast retransmit still
//! works; with `replace_head` (ns-2 `replace_head_`) equal ones go too and the new ack
//! takes the place of the oldest one removed instead of joining the tail. The ack being
//! transmitted is not in the queue and is never filtered.
//!
//! Differences from ns-2.35, on purpose:
//! - ns-2 filters only an ack the discipline accepted (it filters inside the
//!   underlying packet queue's `enque`). Following the spec ("remove, then apply
//!   normal buffer management to p"), the filter runs first, so a new ack arriving at a
//!   full queue frees the room of the acks it supersedes instead of being dropped.
//! - Removed acks are reported to the link as filtered (counted in `Link::filtered`,
//!   not as drops, and not traced, as ns-2 frees them silently).
//!
//! ECN: the arrival is not changed. A removed ack's ECN-echo is not lost as a signal:
//! the sink echoes CE on every ack until the sender's CWR, so the newer ack carries it
//! too unless the sender has already reacted.

use super::ring::Ring;
use super::Dropped;
use crate::config::StageConfig;
use crate::engine::PktId;
use crate::error::ConfigError;
use crate::net::packet::{PacketPool, PktKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckFilter {
    /// ns-2 `replace_head_` (default false).
    pub replace_head: bool,
}

impl AckFilter {
    /// From `{kind = "ack_filter", replace_head}` at `field`.
    pub fn from_config(field: &str, cfg: &StageConfig) -> Result<AckFilter, ConfigError> {
        match cfg {
            StageConfig::AckFilter { replace_head } => Ok(AckFilter { replace_head: *replace_head }),
            other => Err(ConfigError::new(format!("{field}.kind"), other.kind_name(), "not an ack_filter stage")),
        }
    }

    /// ns-2.35: semantic-packetqueue.cc `filterAcks`, for arrival `p` not yet in `q`.
    /// Removed acks are pushed to `drops` as filtered. Returns their bytes and, with
    /// `replace_head`, the index where `p` belongs if any ack was removed.
    pub fn filter_acks(
        &self,
        q: &mut Ring,
        p: PktId,
        pool: &PacketPool,
        drops: &mut Vec<Dropped>,
    ) -> (u64, Option<usize>) {
        let a = pool.get(p);
        if a.kind != PktKind::Ack || q.is_empty() {
            return (0, None);
        }
        let (flow, ack) = (a.flow, a.seqno);
        let mut bytes = 0u64;
        let mut first = None;
        let mut i = 0;
        while i < q.len() {
            let x = pool.get(q[i]);
            let older =
                x.kind == PktKind::Ack && x.flow == flow && (x.seqno < ack || (self.replace_head && x.seqno == ack));
            if older {
                bytes += x.size as u64;
                let id = q.remove(i).expect("index in range");
                drops.push(Dropped { pkt: id, filtered: true });
                first.get_or_insert(i);
            } else {
                i += 1;
            }
        }
        (bytes, if self.replace_head { first } else { None })
    }
}
