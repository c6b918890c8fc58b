//! Drop-tail FIFO with drop priority (thesis §8.4; spec thesis-faststart A.8; ns-2.35
//! `PacketQueue/Semantic` with `priority_drop_`): when the buffer is full, the
//! low-priority packet nearest the tail (possibly the arrival) is dropped before any
//! normal packet. FIFO service order is unchanged. The limit counts like DropTail's.

use super::Enqueued;
use crate::engine::PktId;
use crate::net::packet::PacketPool;
use std::collections::VecDeque;

pub struct DropPriority {
    q: VecDeque<PktId>,
    limit: u32,
}

impl DropPriority {
    pub fn new(limit: u32) -> Self {
        DropPriority { q: VecDeque::with_capacity(limit.min(4096) as usize), limit }
    }
    pub fn enqueue(&mut self, p: PktId, pool: &PacketPool) -> Enqueued {
        if (self.q.len() as u64 + 1) < self.limit as u64 {
            self.q.push_back(p);
            return Enqueued::Accepted;
        }
        // Full: the arrival itself is the tail-most candidate when it is low priority.
        if pool.get(p).low_prio {
            return Enqueued::Dropped(p);
        }
        if let Some(pos) = self.q.iter().rposition(|&x| pool.get(x).low_prio) {
            let victim = self.q.remove(pos).expect("position in range");
            self.q.push_back(p);
            return Enqueued::Dropped(victim);
        }
        Enqueued::Dropped(p)
    }
    pub fn dequeue(&mut self) -> Option<PktId> {
        self.q.pop_front()
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::time::SimTime;

    fn pkt(pool: &mut PacketPool, low: bool) -> PktId {
        let mut p = Packet::data(0, 0, 0, 1040, 0, SimTime::ZERO);
        p.low_prio = low;
        pool.alloc(p)
    }

    #[test]
    fn high_priority_arrival_evicts_tailmost_low_priority() {
        let mut pool = PacketPool::new();
        let mut q = DropPriority::new(5); // holds 4
        let a = pkt(&mut pool, false);
        let b = pkt(&mut pool, true);
        let c = pkt(&mut pool, true);
        let d = pkt(&mut pool, false);
        for x in [a, b, c, d] {
            assert_eq!(q.enqueue(x, &pool), Enqueued::Accepted);
        }
        let e = pkt(&mut pool, false);
        assert_eq!(q.enqueue(e, &pool), Enqueued::Dropped(c));
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue()).collect();
        assert_eq!(order, vec![a, b, d, e]);
    }

    #[test]
    fn without_low_priority_it_is_drop_tail() {
        let mut pool = PacketPool::new();
        let mut q = DropPriority::new(2);
        let a = pkt(&mut pool, false);
        let b = pkt(&mut pool, false);
        assert_eq!(q.enqueue(a, &pool), Enqueued::Accepted);
        assert_eq!(q.enqueue(b, &pool), Enqueued::Dropped(b));
    }

    #[test]
    fn low_priority_arrival_to_full_queue_is_dropped() {
        let mut pool = PacketPool::new();
        let mut q = DropPriority::new(2);
        let a = pkt(&mut pool, true);
        let b = pkt(&mut pool, true);
        assert_eq!(q.enqueue(a, &pool), Enqueued::Accepted);
        assert_eq!(q.enqueue(b, &pool), Enqueued::Dropped(b));
    }
}
