//! The one packet buffer behind every discipline: a FIFO of packet ids, the victim
//! rule for drops, and the optional stages (ack filter on the way in, acks-first on
//! the way out). DropTail and RED decide *whether* to drop; the buffer decides
//! *which* packet goes and in what order the rest leave.

use super::ring::Ring;
use super::stages::Stages;
use super::victim::Victim;
use super::{Dropped, QueueCtx};
use crate::engine::PktId;
use crate::net::packet::PacketPool;
use crate::rng::Rng;

#[derive(Clone)]
pub struct Buffer {
    pub(super) q: Ring,
    /// DropTail's packet limit (`DropTail::limit`), kept here in the buffer's padding,
    /// which makes `DropTail` and so every `Link` 8 bytes smaller (issue 21 item 3).
    /// RED decides by its own limit in queue units and leaves it 0.
    pub(super) limit: u32,
    pub victim: Victim,
    pub stages: Stages,
}

/// Where an accepted arrival goes: the tail, or (ack filter with `replace_head`) the
/// place of the oldest ack it superseded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place(Option<usize>);

impl Place {
    pub const TAIL: Place = Place(None);
}

impl Buffer {
    /// An empty buffer. It allocates nothing until a packet waits: its ring then grows
    /// (doubling) to the largest backlog the queue has held and keeps that capacity, so
    /// a busy queue stops allocating after its first few backlogs, and the many access
    /// links of a large topology, which rarely hold more than a few packets, do not each
    /// hold `limit` slots (with 10^5 connections, 4 queues of 50 slots each were 800
    /// bytes per connection).
    pub fn new(victim: Victim, stages: Stages) -> Buffer {
        Buffer { q: Ring::new(), limit: 0, victim, stages }
    }

    /// Enqueue stages, before the discipline decides about arrival `p`: the ack filter
    /// removes superseded acks (reported in `cx.drops` as filtered). Returns the bytes
    /// removed and where `p` goes if it is accepted.
    #[inline(always)]
    pub fn on_arrival(&mut self, p: PktId, cx: &mut QueueCtx) -> (u64, Place) {
        match &self.stages.ack_filter {
            None => (0, Place::TAIL),
            Some(_) => self.filter_acks(p, cx),
        }
    }

    #[inline(never)]
    fn filter_acks(&mut self, p: PktId, cx: &mut QueueCtx) -> (u64, Place) {
        let f = self.stages.ack_filter.expect("ack filter stage");
        let (bytes, at) = f.filter_acks(&mut self.q, p, cx.pool, cx.drops);
        (bytes, Place(at))
    }

    /// Put accepted packet `p` in the buffer.
    #[inline(always)]
    pub fn append(&mut self, p: PktId, at: Place) {
        match at.0 {
            None => self.q.push_back(p),
            Some(i) => self.insert(i, p),
        }
    }

    #[inline(never)]
    fn insert(&mut self, i: usize, p: PktId) {
        self.q.insert(i, p);
    }

    /// The buffer overflows with arrival `p` not yet in it: let the victim rule choose
    /// among the waiting packets and `p`, remove the victim and report it in
    /// `cx.drops`; `p` stays if it is not the victim. Returns the victim. `front` is the
    /// discipline's front index (see [`Victim::Front`]). Out of line: the common
    /// path of an enqueue drops nothing.
    #[inline]
    pub fn overflow(&mut self, p: PktId, at: Place, front: usize, cx: &mut QueueCtx) -> PktId {
        let v = if self.victim == Victim::Tail && at == Place::TAIL {
            p
        } else {
            self.append(p, at);
            let i = self.victim.pick(&self.q, cx.pool, cx.rng, front);
            self.q.remove(i).expect("victim index in range")
        };
        cx.drops.push(Dropped { pkt: v, filtered: false });
        v
    }

    /// Remove and return the victim of a full buffer that already holds the arrival
    /// (RED's forced drop: ns-2 enqueues first, then `pickPacketToDrop`).
    #[inline(never)]
    pub fn remove_victim(&mut self, pool: &PacketPool, rng: &mut Rng, front: usize) -> PktId {
        let i = self.victim.pick(&self.q, pool, rng, front);
        self.q.remove(i).expect("victim index in range")
    }

    /// The next packet to transmit: the head, or with acks-first the oldest ack.
    /// Inlined into the link's transmit path: without stages it is a `pop_front`.
    #[inline(always)]
    pub fn next(&mut self, pool: &PacketPool) -> Option<PktId> {
        if self.stages.acks_first.is_some() {
            return self.next_acks_first(pool);
        }
        self.q.pop_front()
    }

    #[inline(never)]
    fn next_acks_first(&mut self, pool: &PacketPool) -> Option<PktId> {
        match super::acks_first::AcksFirst::pick(&self.q, pool) {
            Some(i) => self.q.remove(i),
            None => self.q.pop_front(),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    /// The packet `i` places behind the head, if that many wait (a prefetch hint: with
    /// acks-first it need not be the `i`-th to leave).
    #[inline(always)]
    pub fn peek(&self, i: usize) -> Option<PktId> {
        self.q.get(i)
    }
    /// The ring, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.q.capacity() * std::mem::size_of::<PktId>()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
