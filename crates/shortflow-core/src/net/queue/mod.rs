//! Queue disciplines at the head of a link. Each is one file; `AnyQueue` dispatches
//! with an enum on the hot path (no trait objects).
//!
//! Contract (ns-2's `Queue::recv`/`deque`): `enqueue` is called for every arriving
//! packet, even when the link is idle, and decides drops; `dequeue` hands the next
//! packet to the transmitter. `enqueue` may remove any number of packets -- the
//! arrival, queued victims, acks superseded by the ack filter -- and reports each in
//! `QueueCtx::drops` (a buffer the link owns and reuses: no allocation per packet);
//! the link frees, counts and traces them.
//!
//! Layout: every discipline keeps its packets in one [`buffer::Buffer`], which owns
//! the victim rule ([`victim::Victim`]: tail, front, random, low-priority first) and
//! the optional stages ([`stages::Stages`]: ack filter, acks-first). Disciplines
//! decide *whether* to drop (DropTail: buffer full; RED: buffer full, average queue).

pub mod ack_filter;
pub mod acks_first;
pub mod buffer;
pub mod droptail;
pub mod red;
pub mod ring;
pub mod stages;
pub mod victim;

use crate::config::{QueueConfig, VictimRule};
use crate::engine::PktId;
use crate::error::ConfigError;
use crate::net::packet::PacketPool;
use crate::rng::Rng;
use crate::time::SimTime;

pub use droptail::DropTail;
pub use red::Red;

/// A packet a queue removed while handling an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub pkt: PktId,
    /// Removed by the ack filter (redundant, not a loss: counted apart, not traced)
    /// rather than dropped by buffer management.
    pub filtered: bool,
}

/// What a queue needs to know about its environment when a packet arrives.
pub struct QueueCtx<'a> {
    pub now: SimTime,
    pub pool: &'a mut PacketPool,
    pub rng: &'a mut Rng,
    /// Whether the transmitter is busy (RED's idle-time logic).
    pub link_busy: bool,
    /// Where the queue reports every packet it removes (see the module docs).
    pub drops: &'a mut Vec<Dropped>,
}

/// RED is boxed: its state is ~25 words, and unboxed it would make every `Link` (which
/// holds its queue inline) several cache lines long, though DropTail needs only a few
/// words. Keeping `Link` small keeps the per-hop fields of the hot path together.
#[derive(Clone)]
pub enum AnyQueue {
    DropTail(DropTail),
    Red(Box<Red>),
}

/// Build the queue `cfg` found at `field` (e.g. `links[0].queue`) for a link of
/// `rate_bps` and propagation delay `delay_s` (RED sizes its parameters from both).
pub fn build(field: &str, cfg: &QueueConfig, rate_bps: f64, delay_s: f64) -> Result<AnyQueue, ConfigError> {
    Ok(match cfg {
        QueueConfig::DropTail { limit_pkts, victim, stages } => {
            AnyQueue::DropTail(DropTail::from_config(field, *limit_pkts, *victim, stages)?)
        }
        // Kept as an alias: DropTail whose overflow victim is the tail-most low-priority packet.
        QueueConfig::DropPriority { limit_pkts, stages } => {
            AnyQueue::DropTail(DropTail::from_config(field, *limit_pkts, VictimRule::LowPriorityFirst, stages)?)
        }
        QueueConfig::Red(rc) => AnyQueue::Red(Box::new(Red::from_config(field, rc, rate_bps, delay_s)?)),
    })
}

impl AnyQueue {
    #[inline]
    pub fn enqueue(&mut self, p: PktId, cx: &mut QueueCtx) {
        match self {
            AnyQueue::DropTail(q) => q.enqueue(p, cx),
            AnyQueue::Red(q) => q.enqueue(p, cx),
        }
    }
    /// The common arrival, decided inline in `Network::link_recv`: a DropTail with no
    /// stage and room for the packet appends it at the tail and drops nothing, exactly
    /// as its `enqueue` would. Returns false, having done nothing, in every other case
    /// (then `enqueue` is called).
    #[inline(always)]
    pub fn try_enqueue_plain(&mut self, p: PktId) -> bool {
        match self {
            AnyQueue::DropTail(q) => q.try_enqueue_plain(p),
            AnyQueue::Red(_) => false,
        }
    }
    #[inline]
    pub fn dequeue(&mut self, now: SimTime, pool: &PacketPool) -> Option<PktId> {
        match self {
            AnyQueue::DropTail(q) => q.dequeue(pool),
            AnyQueue::Red(q) => q.dequeue(now, pool),
        }
    }
    /// A DropTail with tail drop and no stage ([`DropTail::plain_tail`])?
    pub fn plain_tail(&self) -> bool {
        matches!(self, AnyQueue::DropTail(q) if q.plain_tail())
    }
    /// A DropTail's packet limit (0 for RED).
    #[inline(always)]
    pub fn droptail_limit(&self) -> u32 {
        match self {
            AnyQueue::DropTail(q) => q.limit(),
            AnyQueue::Red(_) => 0,
        }
    }
    /// The packet `i` places behind the head of a DropTail, if that many wait (a
    /// prefetch hint, `Simulation::prefetch_queue`); None for RED.
    #[inline(always)]
    pub fn peek(&self, i: usize) -> Option<PktId> {
        match self {
            AnyQueue::DropTail(q) => q.peek(i),
            AnyQueue::Red(_) => None,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            AnyQueue::DropTail(q) => q.len(),
            AnyQueue::Red(q) => q.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes held outside the link (the buffer's ring; a RED queue's state), by
    /// capacity (`Simulation::memory`).
    pub fn heap_bytes(&self) -> usize {
        match self {
            AnyQueue::DropTail(q) => q.heap_bytes(),
            AnyQueue::Red(q) => std::mem::size_of::<Red>() + q.heap_bytes(),
        }
    }
}

/// Test helper: the outcome of one arrival, when at most one packet goes.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    Accepted,
    Dropped(PktId),
}

#[cfg(test)]
impl Enqueued {
    pub fn of(drops: &[Dropped]) -> Enqueued {
        assert!(drops.len() <= 1, "more than one packet removed: {drops:?}");
        drops.first().map_or(Enqueued::Accepted, |d| Enqueued::Dropped(d.pkt))
    }
}

#[cfg(test)]
mod tests;
