//! Queue disciplines at the head of a link. Each is one file; `AnyQueue` dispatches
//! with an enum on the hot path (no trait objects).
//!
//! Contract (ns-2's `Queue::recv`/`deque`): `enqueue` is called for every arriving
//! packet, even when the link is idle, and decides drops; `dequeue` hands the next
//! packet to the transmitter. A queue may drop a packet other than the arrival
//! (drop-priority), so `enqueue` reports the victim.

pub mod droppri;
pub mod droptail;
pub mod red;

use crate::engine::PktId;
use crate::net::packet::PacketPool;
use crate::rng::Rng;
use crate::time::SimTime;

pub use droppri::DropPriority;
pub use droptail::DropTail;
pub use red::Red;

/// Result of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// The packet was accepted.
    Accepted,
    /// This packet was dropped (the arrival itself, or a queued victim).
    Dropped(PktId),
}

/// What a queue needs to know about its environment when a packet arrives.
pub struct QueueCtx<'a> {
    pub now: SimTime,
    pub pool: &'a mut PacketPool,
    pub rng: &'a mut Rng,
    /// Whether the transmitter is busy (RED's idle-time logic).
    pub link_busy: bool,
}

/// RED is boxed: its state is ~25 words, and unboxed it would make every `Link` (which
/// holds its queue inline) several cache lines long, though DropTail needs only a few
/// words. Keeping `Link` small keeps the per-hop fields of the hot path together.
pub enum AnyQueue {
    DropTail(DropTail),
    Red(Box<Red>),
    DropPriority(DropPriority),
}

impl AnyQueue {
    #[inline]
    pub fn enqueue(&mut self, p: PktId, cx: &mut QueueCtx) -> Enqueued {
        match self {
            AnyQueue::DropTail(q) => q.enqueue(p),
            AnyQueue::Red(q) => q.enqueue(p, cx),
            AnyQueue::DropPriority(q) => q.enqueue(p, cx.pool),
        }
    }
    #[inline]
    pub fn dequeue(&mut self, now: SimTime, pool: &PacketPool) -> Option<PktId> {
        match self {
            AnyQueue::DropTail(q) => q.dequeue(),
            AnyQueue::Red(q) => q.dequeue(now, pool),
            AnyQueue::DropPriority(q) => q.dequeue(),
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            AnyQueue::DropTail(q) => q.len(),
            AnyQueue::Red(q) => q.len(),
            AnyQueue::DropPriority(q) => q.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
