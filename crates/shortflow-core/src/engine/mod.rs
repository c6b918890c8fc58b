//! The event queue: integer-nanosecond times, and events at equal times fire in the
//! order they were scheduled (FIFO), as ns-2's calendar scheduler guarantees.
//!
//! Events are small `Copy` values keyed by `(time, seq)`; `seq` is a global counter,
//! so ordering is total and runs are deterministic. Cancellation is lazy: a timer
//! carries a generation number, and an event whose generation is stale is skipped
//! when it is popped (see [`Timer`]). No allocation happens per event once the heap
//! has grown to its working size.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Index of a packet in the packet arena.
pub type PktId = u32;

/// What happens when an event fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A packet finished propagating along `link` and reaches the link's far node.
    Arrive { link: u32, pkt: PktId },
    /// `link` finished serialising a packet and may start the next queued one.
    TxDone { link: u32 },
    /// A protocol timer of an agent (`agent` indexes the world's agent table).
    Timer { agent: u32, timer: u8, gen: u32 },
    /// An application or traffic-source callback with a source-defined token.
    App { app: u32, token: u32 },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // BinaryHeap is a max-heap: invert so the earliest (time, seq) is on top.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// The scheduler: a priority queue of events plus the simulation clock.
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    now: SimTime,
    seq: u64,
    /// Sequence number of the event being processed.
    cur_seq: u64,
    /// Events popped so far (for benchmarks).
    pub fired: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), now: SimTime::ZERO, seq: 0, cur_seq: 0, fired: 0 }
    }

    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `ev` at absolute time `at` (never in the past).
    #[inline]
    pub fn at(&mut self, at: SimTime, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = if at < self.now { self.now } else { at };
        self.seq += 1;
        self.heap.push(Entry { time: at, seq: self.seq, ev });
    }

    /// Take the next sequence number without scheduling anything yet: an event that
    /// "would have been scheduled now" can later be inserted with [`Scheduler::at_seq`]
    /// and still fire in the order it would have had (used by lazily scheduled
    /// link events, see `net::link`).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedule `ev` at `at` with a sequence number taken earlier by `reserve_seq`.
    #[inline]
    pub fn at_seq(&mut self, at: SimTime, seq: u64, ev: Event) {
        debug_assert!(at >= self.now);
        self.heap.push(Entry { time: at, seq, ev });
    }

    /// Sequence number of the event being processed: with equal times, an event with a
    /// smaller sequence number fires first.
    #[inline]
    pub fn current_seq(&self) -> u64 {
        self.cur_seq
    }

    /// Schedule `ev` after `delay`.
    #[inline]
    pub fn after(&mut self, delay: SimTime, ev: Event) {
        self.at(self.now + delay, ev);
    }

    /// Pop the next event at or before `until`, advancing the clock.
    #[inline]
    pub fn pop(&mut self, until: SimTime) -> Option<Event> {
        let top = self.heap.peek()?;
        if top.time > until {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        self.now = e.time;
        self.cur_seq = e.seq;
        self.fired += 1;
        Some(e.ev)
    }

    /// Set the clock (used once at the end of a run to report the stop time).
    pub fn advance_to(&mut self, t: SimTime) {
        if t > self.now {
            self.now = t;
        }
    }

    pub fn pending(&self) -> usize {
        self.heap.len()
    }
}

/// A cancellable one-shot timer owned by an agent. `resched` and `cancel` bump the
/// generation, so any event already in the queue for the old generation is ignored.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    gen: u32,
    due: Option<SimTime>,
}

impl Timer {
    /// (Re)arm the timer to fire after `delay`; returns the event to schedule.
    #[inline]
    pub fn resched(&mut self, sched: &mut Scheduler, delay: SimTime, agent: u32, timer: u8) {
        self.gen = self.gen.wrapping_add(1);
        let at = sched.now() + delay;
        self.due = Some(at);
        sched.at(at, Event::Timer { agent, timer, gen: self.gen });
    }
    #[inline]
    pub fn cancel(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.due = None;
    }
    #[inline]
    pub fn pending(&self) -> bool {
        self.due.is_some()
    }
    pub fn due(&self) -> Option<SimTime> {
        self.due
    }
    /// Called when a timer event pops: true if it is the live one (and disarms it).
    #[inline]
    pub fn fire(&mut self, gen: u32) -> bool {
        if self.due.is_some() && gen == self.gen {
            self.due = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_fire_in_scheduling_order() {
        let mut s = Scheduler::new();
        for i in 0..5u32 {
            s.at(SimTime(10), Event::App { app: i, token: 0 });
        }
        s.at(SimTime(5), Event::App { app: 99, token: 0 });
        let mut order = vec![];
        while let Some(Event::App { app, .. }) = s.pop(SimTime::MAX) {
            order.push(app);
        }
        assert_eq!(order, vec![99, 0, 1, 2, 3, 4]);
        assert_eq!(s.now(), SimTime(10));
    }

    #[test]
    fn stale_timer_events_are_ignored() {
        let mut s = Scheduler::new();
        let mut t = Timer::default();
        t.resched(&mut s, SimTime(100), 7, 0);
        t.resched(&mut s, SimTime(50), 7, 0); // replaces the first
        let mut live = 0;
        while let Some(Event::Timer { gen, .. }) = s.pop(SimTime::MAX) {
            if t.fire(gen) {
                live += 1;
                assert_eq!(s.now(), SimTime(50));
            }
        }
        assert_eq!(live, 1);
        assert!(!t.pending());
    }

    #[test]
    fn reserved_sequence_keeps_its_place() {
        let mut s = Scheduler::new();
        let early = s.reserve_seq();
        s.at(SimTime(10), Event::App { app: 1, token: 0 });
        s.at_seq(SimTime(10), early, Event::App { app: 0, token: 0 });
        let a = s.pop(SimTime::MAX);
        assert_eq!(a, Some(Event::App { app: 0, token: 0 }));
        assert_eq!(s.current_seq(), early);
    }

    #[test]
    fn pop_respects_until() {
        let mut s = Scheduler::new();
        s.at(SimTime(10), Event::TxDone { link: 0 });
        assert!(s.pop(SimTime(9)).is_none());
        assert!(s.pop(SimTime(10)).is_some());
    }
}
