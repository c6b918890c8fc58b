//! ns-2.35 `Queue/DropTail` (queue/drop-tail.cc), packet mode, over the shared
//! [`Buffer`]: the victim rule says which packet an overflow drops (`tail` = ns-2's
//! default, `front` = ns-2's `drop_front_`, `random`, `low_priority_first` = the
//! drop-priority queue of thesis §8.4, config kind `drop_priority`).
//!
//! ns-2 quirk kept on purpose: an arrival overflows when `waiting + 1 >= limit`, i.e.
//! at most `limit - 1` packets wait while one is being transmitted; `limit` = 1 drops
//! everything. (ns-2.35: drop-tail.cc `DropTail::enque`.)

use super::buffer::Buffer;
use super::stages::Stages;
use super::victim::Victim;
use super::QueueCtx;
use crate::config::{StageConfig, VictimRule};
use crate::engine::PktId;
use crate::error::ConfigError;
use crate::net::packet::PacketPool;

#[derive(Clone)]
pub struct DropTail {
    /// The buffer, which also holds the limit (`Buffer::limit`, see [`DropTail::limit`]).
    buf: Buffer,
}

impl DropTail {
    /// See [`Buffer::peek`].
    #[inline(always)]
    pub fn peek(&self, i: usize) -> Option<PktId> {
        self.buf.peek(i)
    }
    /// The buffer (tests look at what waits).
    #[cfg(test)]
    pub(super) fn buffer(&self) -> &Buffer {
        &self.buf
    }

    /// Tail drop, no stages.
    pub fn new(limit: u32) -> Self {
        DropTail::with(limit, Victim::Tail, Stages::default())
    }

    pub fn with(limit: u32, victim: Victim, stages: Stages) -> Self {
        let mut buf = Buffer::new(victim, stages);
        buf.limit = limit;
        DropTail { buf }
    }

    /// From `{kind = "drop_tail", limit_pkts, victim, stages}` (or the alias
    /// `drop_priority`, victim `low_priority_first`) at `field`.
    pub fn from_config(
        field: &str,
        limit_pkts: u32,
        victim: VictimRule,
        stages: &[StageConfig],
    ) -> Result<DropTail, ConfigError> {
        if limit_pkts < 1 {
            return Err(ConfigError::new(format!("{field}.limit_pkts"), limit_pkts, "must be at least 1"));
        }
        let stages = Stages::from_config(&format!("{field}.stages"), stages)?;
        Ok(DropTail::with(limit_pkts, Victim::from_rule(victim), stages))
    }

    /// ns-2.35: drop-tail.cc `DropTail::enque`.
    #[inline]
    pub fn enqueue(&mut self, p: PktId, cx: &mut QueueCtx) {
        let (_, at) = self.buf.on_arrival(p, cx);
        if self.buf.len() as u64 + 1 >= self.limit() as u64 {
            // ns-2 `drop_front_`: enqueue, then drop the head.
            self.buf.overflow(p, at, 0, cx);
        } else {
            self.buf.append(p, at);
        }
    }

    /// `enqueue` for an arrival that passes no stage (no ack filter) and finds room:
    /// append at the tail. Returns false, having done nothing, otherwise.
    #[inline(always)]
    pub fn try_enqueue_plain(&mut self, p: PktId) -> bool {
        if self.buf.stages.ack_filter.is_none() && (self.buf.len() as u64 + 1) < self.limit() as u64 {
            self.buf.q.push_back(p);
            true
        } else {
            false
        }
    }

    #[inline]
    pub fn dequeue(&mut self, pool: &PacketPool) -> Option<PktId> {
        self.buf.next(pool)
    }

    /// An arrival at the empty queue is accepted (and, dequeued at once, is the packet
    /// transmitted): what `Link::passthrough` relies on. Stages cannot change that: the
    /// ack filter finds nothing to remove in an empty queue, acks-first has one packet
    /// to choose from.
    pub fn accepts_into_empty(&self) -> bool {
        self.limit() > 1
    }

    /// Tail drop with no stage: an arrival is appended if fewer than `limit - 1` wait,
    /// else it is the one dropped, and packets leave in arrival order (what
    /// `Network::vq_enqueue` computes without the ring).
    pub fn plain_tail(&self) -> bool {
        self.buf.victim == Victim::Tail && self.buf.stages.ack_filter.is_none() && self.buf.stages.acks_first.is_none()
    }

    /// The packet limit (`limit_pkts`).
    #[inline(always)]
    pub fn limit(&self) -> u32 {
        self.buf.limit
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    /// The buffer's ring, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.buf.heap_bytes()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Enqueued;
    use super::*;
    use crate::net::packet::Packet;
    use crate::rng::Rng;
    use crate::time::SimTime;

    /// Offer packet `seq` to `q`; the outcome.
    fn offer(q: &mut DropTail, pool: &mut PacketPool, seq: i64) -> (PktId, Enqueued) {
        let id = pool.alloc(Packet::data(0, 1, 0, 1000, seq, SimTime::ZERO));
        let (mut rng, mut drops) = (Rng::new(1), Vec::new());
        q.enqueue(id, &mut QueueCtx { now: SimTime::ZERO, pool, rng: &mut rng, link_busy: true, drops: &mut drops });
        (id, Enqueued::of(&drops))
    }

    #[test]
    fn holds_limit_minus_one() {
        let (mut q, mut pool) = (DropTail::new(3), PacketPool::new());
        let (a, r) = offer(&mut q, &mut pool, 1);
        assert_eq!(r, Enqueued::Accepted);
        assert_eq!(offer(&mut q, &mut pool, 2).1, Enqueued::Accepted);
        let (c, r) = offer(&mut q, &mut pool, 3);
        assert_eq!(r, Enqueued::Dropped(c));
        assert_eq!(q.dequeue(&pool), Some(a));
        assert_eq!(offer(&mut q, &mut pool, 4).1, Enqueued::Accepted);
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn limit_one_drops_everything() {
        let (mut q, mut pool) = (DropTail::new(1), PacketPool::new());
        assert!(!q.accepts_into_empty());
        let (a, r) = offer(&mut q, &mut pool, 1);
        assert_eq!(r, Enqueued::Dropped(a));
        assert!(DropTail::new(2).accepts_into_empty());
    }
}
