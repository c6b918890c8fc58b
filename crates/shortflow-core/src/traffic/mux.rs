//! One scheduler entry for all UDP sources (ON/OFF and CBR).
//!
//! A source's next packet is an `Event::App { app, token: 0 }` at `(time, seq)`. With many
//! sources (the TCP/SPAND chain figures have 160 Pareto sources) those events were most
//! of the scheduler's main heap, and every event of the run -- each link arrival too --
//! paid for them in sift depth. The multiplexer keeps the sources' pending events here
//! and only the earliest of them in the scheduler.
//!
//! **Exactness.** Each source event keeps the key it had: its sequence number is taken
//! with [`Scheduler::reserve_seq`] exactly where `Scheduler::at`/`after` took it (the
//! same counter increment at the same moment), and the armed entry is inserted with
//! [`Scheduler::at_seq`], which fires at that key. The scheduler pops the minimum
//! `(time, seq)` of everything pending; a source event is pending in the scheduler
//! exactly when it is the minimum of the sources' events, so it is popped exactly when
//! it would have been popped with every source event in the scheduler. The run sees the
//! same events in the same order (the event count too); only the heap is smaller.
//!
//! **Structure.** While ON, a source's next packet is one packet interval ahead; events
//! scheduled the same distance ahead of a non-decreasing clock with increasing sequence
//! numbers are in key order, so they go to a FIFO *lane* per distance (O(1)). The
//! others (a burst's end with its idle time, a start) go to a small binary heap. Lanes
//! exist for the sources' packet intervals, taken at build; a push that would break a
//! lane's order goes to the heap (checked every time, so order never rests on the
//! argument above). Capacities are reserved at build: no allocation per packet. A lane
//! is a `Fifo` (the engine's power-of-two ring) that never grows, keys are compared
//! as one `u128`.
//!
//! **In the scheduler.** The armed event is a `K_MUX` entry of the scheduler's main
//! heap ([`Scheduler::mux_arm`]). When it pops it stays at the heap's root while its
//! handler runs (every event scheduled meanwhile has a larger key, so it stays the
//! root), and the next armed event replaces it there (one sift-down instead of a
//! removal and a push).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::engine::Scheduler;
use crate::fifo::Fifo;
use crate::time::SimTime;

/// A pending source event: key `(time, seq)` as one integer (`time << 64 | seq`: a
/// single comparison), and the source's application index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    key: u128,
    app: u32,
}

impl Pending {
    #[inline(always)]
    fn new(time: u64, seq: u64, app: u32) -> Self {
        Pending { key: (time as u128) << 64 | seq as u128, app }
    }
    #[inline(always)]
    fn time(&self) -> u64 {
        (self.key >> 64) as u64
    }
    #[inline(always)]
    fn seq(&self) -> u64 {
        self.key as u64
    }
}

/// At most this many lanes (distinct packet intervals); other distances use the heap.
const MAX_LANES: usize = 8;

/// A FIFO of the events scheduled `dist` ns ahead, in key order: a ring of a
/// power-of-two capacity of at least the number of sources, sized at
/// [`UdpMux::reserve`] (every source has at most one pending event, so it never
/// fills; a push into a full ring goes to the heap instead).
struct Lane {
    dist: u64,
    /// Sized once (`UdpMux::reserve`); never grows.
    q: Fifo<Pending, 1>,
    /// Key of the newest event (meaningful while `q` is not empty).
    back: u128,
}

/// The sources' pending events, and which one is in the scheduler.
#[derive(Default)]
pub struct UdpMux {
    lanes: Vec<Lane>,
    heap: BinaryHeap<Reverse<Pending>>,
    /// The event inserted into the scheduler (the minimum), if any.
    armed: Option<Pending>,
    /// Sources registered (the capacity each lane and the heap may need).
    sources: usize,
}

impl UdpMux {
    /// Register a source whose packets are `interval` apart while it sends (a lane for
    /// that distance). Call for every source before [`UdpMux::reserve`].
    pub fn add_source(&mut self, interval: Option<SimTime>) {
        self.sources += 1;
        if let Some(d) = interval {
            if d.0 > 0 && self.lanes.len() < MAX_LANES && !self.lanes.iter().any(|l| l.dist == d.0) {
                self.lanes.push(Lane { dist: d.0, q: Fifo::new(), back: 0 });
            }
        }
    }

    /// Reserve the capacities (every source has at most one pending event): call after
    /// the last [`UdpMux::add_source`], before the first [`UdpMux::schedule_after`].
    pub fn reserve(&mut self) {
        let n = self.sources.max(1).next_power_of_two();
        for l in &mut self.lanes {
            debug_assert!(l.q.is_empty(), "lanes are empty until the run starts");
            l.q.reserve_total(n);
        }
        self.heap.reserve(self.sources);
    }

    /// A source's first event at `at` (build time): takes its sequence number now, as
    /// `Scheduler::at` would have. Call [`UdpMux::arm`] after the last one.
    pub fn schedule_first(&mut self, sched: &mut Scheduler, at: SimTime, app: u32) {
        let at = at.max(sched.now());
        let seq = sched.reserve_seq();
        self.heap.push(Reverse(Pending::new(at.0, seq, app)));
    }

    /// Source `app`'s next event `delay` from now; the sequence number is taken now,
    /// as `Scheduler::after` would have.
    #[inline]
    pub fn schedule_after(&mut self, sched: &mut Scheduler, delay: SimTime, app: u32) {
        let now = sched.now();
        let at = now + delay;
        let at = if at < now { now } else { at };
        let seq = sched.reserve_seq();
        let e = Pending::new(at.0, seq, app);
        let d = at.0 - now.0;
        for l in &mut self.lanes {
            if l.dist == d {
                if (l.q.is_empty() || l.back < e.key) && l.q.len() < l.q.capacity() {
                    l.q.push_back(e);
                    l.back = e.key;
                    return;
                }
                break;
            }
        }
        self.heap.push(Reverse(e));
    }

    /// The armed event of `app` fired: forget it (the source then schedules its next
    /// event, if any, and the caller arms the new minimum). False when `app`'s event
    /// was not the armed one (an event not scheduled through the multiplexer).
    #[inline]
    pub fn fired(&mut self, app: u32) -> bool {
        match self.armed {
            Some(p) if p.app == app => {
                self.armed = None;
                true
            }
            _ => false,
        }
    }

    /// Insert the earliest pending source event into the scheduler (if none is armed).
    /// After a firing ([`UdpMux::fired`]) it takes the fired event's place in the
    /// scheduler ([`Scheduler::mux_arm`]), or releases that place when no source has
    /// an event left ([`Scheduler::mux_idle`]).
    #[inline]
    pub fn arm(&mut self, sched: &mut Scheduler) {
        if self.armed.is_some() {
            return;
        }
        // The minimum over the lane fronts and the heap's top.
        let mut best = self.heap.peek().map_or(u128::MAX, |r| r.0.key);
        let mut from = usize::MAX;
        for (i, l) in self.lanes.iter().enumerate() {
            if let Some(f) = l.q.front() {
                if f.key < best {
                    best = f.key;
                    from = i;
                }
            }
        }
        let e = if from != usize::MAX {
            self.lanes[from].q.pop_front()
        } else if let Some(Reverse(e)) = self.heap.pop() {
            e
        } else {
            sched.mux_idle();
            return;
        };
        self.armed = Some(e);
        sched.mux_arm(SimTime(e.time()), e.seq(), e.app);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Event;

    /// Events scheduled through the multiplexer pop in the same order, at the same
    /// times, as the same events scheduled directly.
    #[test]
    fn same_order_as_direct_scheduling() {
        // (source, delays): a lane distance (10) interleaved with heap distances.
        let plan: Vec<Vec<u64>> =
            vec![vec![10, 10, 37, 10, 10], vec![10, 5, 10, 10, 10, 10], vec![3, 10, 10, 10, 61, 10]];
        let run = |mux: bool| -> Vec<(u64, u32)> {
            let mut s = Scheduler::new();
            let mut m = UdpMux::default();
            let mut next = vec![0usize; plan.len()];
            for _ in &plan {
                m.add_source(Some(SimTime(10)));
            }
            m.reserve();
            for (app, _) in plan.iter().enumerate() {
                if mux {
                    m.schedule_first(&mut s, SimTime(app as u64 % 2), app as u32);
                } else {
                    s.at(SimTime(app as u64 % 2), Event::App { app: app as u32, token: 0 });
                }
                // an unrelated event between the sources' first events
                s.at(SimTime(4), Event::App { app: 100 + app as u32, token: 0 });
            }
            if mux {
                m.arm(&mut s);
            }
            let mut out = vec![];
            while let Some(ev) = s.pop(SimTime::MAX) {
                let Event::App { app, .. } = ev else { unreachable!() };
                out.push((s.now().0, app));
                if app >= 100 {
                    continue;
                }
                let a = app as usize;
                if mux {
                    assert!(m.fired(app));
                }
                // An unrelated event scheduled by the handler before the re-arm (the
                // fired entry is still the scheduler's root then).
                s.after(SimTime(3), Event::App { app: 200 + app, token: 0 });
                if let Some(&d) = plan[a].get(next[a]) {
                    next[a] += 1;
                    if mux {
                        m.schedule_after(&mut s, SimTime(d), app);
                    } else {
                        s.after(SimTime(d), Event::App { app, token: 0 });
                    }
                }
                if mux {
                    m.arm(&mut s);
                }
            }
            out
        };
        let direct = run(false);
        assert_eq!(direct.len(), 2 * plan.iter().map(|p| p.len() + 1).sum::<usize>() + plan.len());
        assert_eq!(run(true), direct);
    }
}
