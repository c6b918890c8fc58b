//! ns-2.35 `Queue/DropTail` (queue/drop-tail.cc), packet mode, tail drop.
//!
//! ns-2 quirk kept on purpose: an arrival is dropped when `waiting + 1 >= limit`, i.e.
//! at most `limit - 1` packets wait while one is being transmitted; `limit` = 1 drops
//! everything. (ns-2.35: drop-tail.cc `DropTail::enque`.)

use super::Enqueued;
use crate::engine::PktId;
use std::collections::VecDeque;

pub struct DropTail {
    q: VecDeque<PktId>,
    limit: u32,
}

impl DropTail {
    pub fn new(limit: u32) -> Self {
        DropTail { q: VecDeque::with_capacity(limit.min(4096) as usize), limit }
    }
    #[inline]
    pub fn enqueue(&mut self, p: PktId) -> Enqueued {
        if self.q.len() as u64 + 1 >= self.limit as u64 {
            Enqueued::Dropped(p)
        } else {
            self.q.push_back(p);
            Enqueued::Accepted
        }
    }
    #[inline]
    pub fn dequeue(&mut self) -> Option<PktId> {
        self.q.pop_front()
    }
    #[inline]
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
    #[test]
    fn holds_limit_minus_one() {
        let mut q = DropTail::new(3);
        assert_eq!(q.enqueue(1), Enqueued::Accepted);
        assert_eq!(q.enqueue(2), Enqueued::Accepted);
        assert_eq!(q.enqueue(3), Enqueued::Dropped(3));
        assert_eq!(q.dequeue(), Some(1));
        assert_eq!(q.enqueue(4), Enqueued::Accepted);
        assert_eq!(q.len(), 2);
    }
    #[test]
    fn limit_one_drops_everything() {
        let mut q = DropTail::new(1);
        assert_eq!(q.enqueue(1), Enqueued::Dropped(1));
    }
}
