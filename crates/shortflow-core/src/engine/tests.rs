//! Scheduler tests, including a randomised comparison against a reference
//! implementation: the original one-entry-per-event `BinaryHeap` of `(time, seq)` with
//! generation-checked timers.

use super::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
fn pushed_back_timer_fires_once_at_its_key() {
    let mut s = Scheduler::new();
    let mut t = Timer::default();
    t.resched(&mut s, SimTime(50), 3, 1);
    s.at(SimTime(60), Event::App { app: 1, token: 0 });
    t.resched(&mut s, SimTime(60), 3, 1); // later seq than the app event
    let seq_t = s.seq;
    s.at(SimTime(60), Event::App { app: 2, token: 0 });
    assert_eq!(s.pop(SimTime::MAX), Some(Event::App { app: 1, token: 0 }));
    let e = s.pop(SimTime::MAX);
    assert!(matches!(e, Some(Event::Timer { agent: 3, timer: 1, .. })));
    assert_eq!(s.current_seq(), seq_t);
    assert_eq!(s.pop(SimTime::MAX), Some(Event::App { app: 2, token: 0 }));
    assert_eq!(s.pop(SimTime::MAX), None);
    assert_eq!(s.fired, 3);
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

#[test]
fn out_of_order_arrivals_on_one_link() {
    let mut s = Scheduler::new();
    s.at(SimTime(30), Event::Arrive { link: 2, pkt: 0 });
    s.at(SimTime(10), Event::Arrive { link: 2, pkt: 1 });
    s.at(SimTime(30), Event::Arrive { link: 2, pkt: 2 });
    s.at(SimTime(20), Event::Arrive { link: 2, pkt: 3 });
    let mut got = vec![];
    while let Some(Event::Arrive { pkt, .. }) = s.pop(SimTime::MAX) {
        got.push(pkt);
    }
    assert_eq!(got, vec![1, 3, 0, 2]);
    assert_eq!(s.pending(), 0);
}

#[test]
fn colliding_lane_offsets_keep_order() {
    // Two offsets that share a lane-table slot, interleaved: the second one's arrivals
    // cannot use the busy lane and go to the heap; order must still be (time, seq).
    let d1 = 1_000u64;
    let d2 = (d1 + 1..).find(|&d| lane_slot(d) == lane_slot(d1)).unwrap();
    let mut s = Scheduler::new();
    let mut rf = RefSched::new();
    let mut expect = vec![];
    for k in 0..200u32 {
        let d = if k % 3 == 0 { d2 } else { d1 };
        s.after(SimTime(d), Event::Arrive { link: k % 5, pkt: k });
        rf.at(rf.now + d, RefEv::Arrive(k % 5, k));
        if k % 4 == 3 {
            let a = s.pop(SimTime::MAX).map(RefEv::of);
            let b = rf.pop(u64::MAX);
            assert_eq!(a, b);
            assert_eq!((s.now().0, s.current_seq()), (rf.now, rf.cur_seq));
            expect.push(a);
        }
    }
    loop {
        let a = s.pop(SimTime::MAX).map(RefEv::of);
        let b = rf.pop(u64::MAX);
        assert_eq!(a, b);
        if a.is_none() {
            break;
        }
        assert_eq!((s.now().0, s.current_seq()), (rf.now, rf.cur_seq));
    }
    assert_eq!(s.pending(), 0);
}

// ---------------------------------------------------------------------------------
// Reference model: the original scheduler.

struct RefSched {
    heap: BinaryHeap<Reverse<(u64, u64, RefEv)>>,
    now: u64,
    seq: u64,
    cur_seq: u64,
    /// Firings of parked timers (re-armed by `next_effective_ref`, not effective).
    parked_fired: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RefEv {
    Arrive(u32, u32),
    TxDone(u32),
    Timer(u32, u8, u32),
    App(u32, u32),
    Element(u32, u32),
}

impl RefEv {
    fn of(e: Event) -> RefEv {
        match e {
            Event::Arrive { link, pkt } => RefEv::Arrive(link, pkt),
            Event::TxDone { link } => RefEv::TxDone(link),
            Event::Timer { agent, timer, gen } => RefEv::Timer(agent, timer, gen),
            Event::App { app, token } => RefEv::App(app, token),
            Event::Element { elem, token } => RefEv::Element(elem, token),
        }
    }
}

impl RefSched {
    fn new() -> Self {
        RefSched { heap: BinaryHeap::new(), now: 0, seq: 0, cur_seq: 0, parked_fired: 0 }
    }
    fn at(&mut self, t: u64, e: RefEv) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, e)));
    }
    fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
    fn at_seq(&mut self, t: u64, seq: u64, e: RefEv) {
        self.heap.push(Reverse((t, seq, e)));
    }
    fn pop(&mut self, until: u64) -> Option<RefEv> {
        let Reverse((t, _, _)) = self.heap.peek()?;
        if *t > until {
            return None;
        }
        let Reverse((t, s, e)) = self.heap.pop().unwrap();
        self.now = t;
        self.cur_seq = s;
        Some(e)
    }
}

#[derive(Default, Clone, Copy)]
struct RefTimer {
    gen: u32,
    due: Option<u64>,
    /// Parked with this period: the reference delivers its firings, and the test's
    /// "handler" re-arms it then (what a parked `Timer` does inside the scheduler).
    parked: Option<u64>,
}

struct Rand(u64);
impl Rand {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Drive both schedulers with the same random operations and require the same
/// sequence of effective events (an event that a handler would act on: every non-timer
/// event, and timer events whose generation is live), each at the same (time, seq).
fn compare_random(seed: u64, steps: usize, n_links: u32, n_timers: usize, n_pops_per_step: u64) {
    let mut r = Rand(seed);
    let mut s = Scheduler::new();
    let mut rf = RefSched::new();
    let mut timers: Vec<Timer> = (0..n_timers).map(|_| Timer::default()).collect();
    let mut rtimers: Vec<RefTimer> = vec![RefTimer::default(); n_timers];
    // Per link: last scheduled arrival time (to produce mostly lane-ordered arrivals).
    let mut last_arr = vec![0u64; n_links as usize];
    // Reserved-but-not-yet-inserted TxDone events: (time, seq, link).
    let mut reserved: Vec<(u64, u64, u32)> = Vec::new();
    let delays = [0u64, 0, 1, 1, 2, 3, 5, 8, 10, 10, 50, 100, 1000];
    let mut pkt = 0u32;
    let mut effective = 0u64;
    for _ in 0..steps {
        let now = s.now().0;
        assert_eq!(now, rf.now);
        match r.below(100) {
            // Link-like arrivals: non-decreasing per link (sometimes equal times).
            0..=34 => {
                let l = r.below(n_links as u64) as u32;
                let t = now.max(last_arr[l as usize]) + delays[r.below(delays.len() as u64) as usize] / 2;
                last_arr[l as usize] = t;
                pkt += 1;
                s.at(SimTime(t), Event::Arrive { link: l, pkt });
                rf.at(t, RefEv::Arrive(l, pkt));
            }
            // Arbitrary arrivals (often out of lane order).
            35..=39 => {
                let l = r.below(n_links as u64) as u32;
                let t = now + delays[r.below(delays.len() as u64) as usize];
                pkt += 1;
                s.at(SimTime(t), Event::Arrive { link: l, pkt });
                rf.at(t, RefEv::Arrive(l, pkt));
            }
            40..=44 => {
                let a = r.below(5) as u32;
                let tok = r.below(1000) as u32;
                let t = now + delays[r.below(delays.len() as u64) as usize];
                s.at(SimTime(t), Event::App { app: a, token: tok });
                rf.at(t, RefEv::App(a, tok));
            }
            45..=49 => {
                // Reserve a seq now, insert later (like a link's lazily scheduled TxDone).
                let l = r.below(n_links as u64) as u32 | (r.below(2) as u32) << 31;
                let t = now + delays[r.below(delays.len() as u64) as usize];
                let q1 = s.reserve_seq();
                let q2 = rf.reserve();
                assert_eq!(q1, q2);
                reserved.push((t, q1, l));
            }
            50..=54 => {
                if !reserved.is_empty() {
                    let i = r.below(reserved.len() as u64) as usize;
                    let (t, q, l) = reserved.swap_remove(i);
                    let t = t.max(now);
                    // High bit: a reserved-seq arrival (tests lane order with old seqs).
                    let (ev, rev) = if l >> 31 == 1 {
                        pkt += 1;
                        (Event::Arrive { link: l & 0xFFFF, pkt }, RefEv::Arrive(l & 0xFFFF, pkt))
                    } else {
                        (Event::TxDone { link: l }, RefEv::TxDone(l))
                    };
                    s.at_seq(SimTime(t), q, ev);
                    rf.at_seq(t, q, rev);
                }
            }
            55..=79 => {
                // Re-arm a timer (mostly pushed back, sometimes earlier).
                let k = r.below(n_timers as u64) as usize;
                let d = delays[r.below(delays.len() as u64) as usize] * (1 + r.below(3));
                timers[k].resched(&mut s, SimTime(d), k as u32, (k % 3) as u8);
                let rt = &mut rtimers[k];
                rt.gen = rt.gen.wrapping_add(1);
                rt.due = Some(now + d);
                rt.parked = None;
                rf.at(now + d, RefEv::Timer(k as u32, (k % 3) as u8, rt.gen));
            }
            80..=84 => {
                let k = r.below(n_timers as u64) as usize;
                timers[k].unpark(&mut s);
                timers[k].cancel();
                let rt = &mut rtimers[k];
                rt.gen = rt.gen.wrapping_add(1);
                rt.due = None;
                rt.parked = None;
            }
            87..=88 => {
                // Park a timer: from now on its firings re-arm it `d` later, unseen.
                let k = r.below(n_timers as u64) as usize;
                let d = [1u64, 2, 3, 5, 10, 10, 10, 50][r.below(8) as usize];
                timers[k].park(&mut s, SimTime(d), k as u32, (k % 3) as u8);
                let rt = &mut rtimers[k];
                rt.gen = rt.gen.wrapping_add(1);
                rt.due = Some(now + d);
                rt.parked = Some(d);
                rf.at(now + d, RefEv::Timer(k as u32, (k % 3) as u8, rt.gen));
            }
            89..=90 => {
                let k = r.below(n_timers as u64) as usize;
                timers[k].unpark(&mut s);
                rtimers[k].parked = None;
            }
            85..=86 => {
                // A raw timer event scheduled directly.
                let a = 1000 + r.below(3) as u32;
                let g = r.below(7) as u32;
                let t = now + delays[r.below(delays.len() as u64) as usize];
                s.at(SimTime(t), Event::Timer { agent: a, timer: 9, gen: g });
                rf.at(t, RefEv::Timer(a, 9, g));
            }
            _ => {
                // Pop some events, sometimes bounded by `until`.
                // With a parked timer pending the queue never runs dry: bound the pop.
                let any_parked = rtimers.iter().any(|t| t.parked.is_some());
                let until = if r.below(4) == 0 {
                    now + r.below(20)
                } else if any_parked {
                    now + 2000
                } else {
                    u64::MAX
                };
                for _ in 0..1 + r.below(n_pops_per_step) {
                    let a = next_effective(&mut s, &mut timers, until);
                    let b = next_effective_ref(&mut rf, &mut rtimers, until);
                    assert_eq!(a, b, "seed {seed}: diverged after {effective} effective events");
                    if a.is_none() {
                        s.advance_to(SimTime(until.min(now + 1_000_000)));
                        rf.now = rf.now.max(until.min(now + 1_000_000));
                        // Keep both clocks equal (the reference may have advanced on a
                        // stale timer entry).
                        let t = s.now().0.max(rf.now);
                        s.advance_to(SimTime(t));
                        rf.now = t;
                        break;
                    }
                    effective += 1;
                }
            }
        }
        assert_eq!(timers.iter().map(|t| t.pending()).collect::<Vec<_>>(), rtimers.iter().map(|t| t.due.is_some()).collect::<Vec<_>>());
    }
    // Drain (a parked timer would re-arm forever).
    for (t, rt) in timers.iter_mut().zip(rtimers.iter_mut()) {
        t.unpark(&mut s);
        rt.parked = None;
    }
    loop {
        let a = next_effective(&mut s, &mut timers, u64::MAX);
        let b = next_effective_ref(&mut rf, &mut rtimers, u64::MAX);
        assert_eq!(a, b, "seed {seed}: diverged while draining after {effective} effective events");
        if a.is_none() {
            break;
        }
        effective += 1;
    }
    assert!(effective > steps as u64 / 4);
    assert_eq!(s.pending(), 0);
    assert_eq!(s.parked_rearms, rf.parked_fired, "seed {seed}: re-arms of parked timers");
}

type Effective = Option<(u64, u64, RefEv)>;

fn next_effective(s: &mut Scheduler, timers: &mut [Timer], until: u64) -> Effective {
    loop {
        let e = s.pop(SimTime(until))?;
        if let Event::Timer { agent, gen, .. } = e {
            if agent < 1000 && !timers[agent as usize].fire(gen) {
                continue;
            }
        }
        return Some((s.now().0, s.current_seq(), RefEv::of(e)));
    }
}

fn next_effective_ref(s: &mut RefSched, timers: &mut [RefTimer], until: u64) -> Effective {
    loop {
        let e = s.pop(until)?;
        if let RefEv::Timer(agent, id, gen) = e {
            if agent < 1000 {
                let t = &mut timers[agent as usize];
                if t.due.is_some() && t.gen == gen {
                    if let Some(period) = t.parked {
                        // A parked timer's firing: its handler only re-arms it.
                        t.due = Some(s.now + period);
                        s.at(s.now + period, RefEv::Timer(agent, id, gen));
                        s.parked_fired += 1;
                        continue;
                    }
                    t.due = None;
                } else {
                    continue;
                }
            }
        }
        return Some((s.now, s.cur_seq, e));
    }
}

#[test]
fn random_workloads_match_reference_heap() {
    for seed in 0..40 {
        compare_random(seed, 20_000, 1 + (seed % 7) as u32, 1 + (seed % 5) as usize, 4);
    }
}

#[test]
fn long_random_workload_matches_reference_heap() {
    compare_random(12345, 1_000_000, 16, 24, 3);
    compare_random(777, 1_000_000, 3, 2, 8);
}

#[test]
fn element_events_keep_fifo_order_with_other_events() {
    let mut s = Scheduler::new();
    s.at(SimTime(10), Event::Element { elem: 3, token: 7 });
    s.at(SimTime(10), Event::App { app: 1, token: 0 });
    s.at(SimTime(10), Event::Element { elem: 4, token: 8 });
    s.at(SimTime(5), Event::Element { elem: 9, token: 1 });
    let mut got = Vec::new();
    while let Some(ev) = s.pop(SimTime::MAX) {
        got.push((s.now().0, ev));
    }
    assert_eq!(
        got,
        vec![
            (5, Event::Element { elem: 9, token: 1 }),
            (10, Event::Element { elem: 3, token: 7 }),
            (10, Event::App { app: 1, token: 0 }),
            (10, Event::Element { elem: 4, token: 8 }),
        ]
    );
}
