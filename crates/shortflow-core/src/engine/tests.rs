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
    compare_random_far(seed, steps, n_links, n_timers, n_pops_per_step, None)
}

/// `compare_random`, with far timers (`Scheduler::enable_far_timers`: bucket width bits
/// and ring length) when `far` is given.
fn compare_random_far(
    seed: u64,
    steps: usize,
    n_links: u32,
    n_timers: usize,
    n_pops_per_step: u64,
    far: Option<(u32, usize)>,
) {
    let mut r = Rand(seed);
    let mut s = Scheduler::new();
    if let Some((w, b)) = far {
        s.enable_far_timers(w, b);
    }
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
        assert_eq!(
            timers.iter().map(|t| t.pending()).collect::<Vec<_>>(),
            rtimers.iter().map(|t| t.due.is_some()).collect::<Vec<_>>()
        );
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

/// Far timers (module docs, 7.) with buckets of 1 to 64 ns and rings of 2 to 64 buckets
/// (the random delays reach 3 000 ns: entries in the ring, in the overflow, horizons
/// that jump over an empty ring, pushed-back and stale entries met when a bucket opens).
#[test]
fn far_timers_match_reference_heap() {
    for seed in 0..60 {
        let far = Some(((seed % 7) as u32, 2 << (seed % 6)));
        compare_random_far(seed, 20_000, 1 + (seed % 7) as u32, 1 + (seed % 13) as usize, 4, far);
    }
    compare_random_far(4242, 300_000, 8, 40, 3, Some((3, 16)));
}

/// A far timer due at the end of time: the horizon cannot pass it, so the heap takes
/// every entry (and the order is still `(time, seq)`).
#[test]
fn far_timers_at_the_end_of_time() {
    let mut s = Scheduler::new();
    s.enable_far_timers(4, 4);
    let mut t: Vec<Timer> = (0..4).map(|_| Timer::default()).collect();
    t[0].resched(&mut s, SimTime(u64::MAX), 0, 0);
    t[1].resched(&mut s, SimTime(u64::MAX - 3), 1, 0);
    t[2].resched(&mut s, SimTime(100), 2, 0);
    t[3].resched(&mut s, SimTime(u64::MAX), 3, 0);
    let mut order = vec![];
    while let Some(Event::Timer { agent, gen, .. }) = s.pop(SimTime::MAX) {
        if t[agent as usize].fire(gen) {
            order.push((agent, s.now().0));
        }
    }
    assert_eq!(order, vec![(2, 100), (1, u64::MAX - 3), (0, u64::MAX), (3, u64::MAX)]);
    assert_eq!(s.pending(), 0);
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

/// Hop folding (`Scheduler::at_fold`) against the unfolded run. Scheduler `a` gets an
/// ordinary arrival X (on link `X_LINK + next`) whose handler, run by the driver,
/// schedules the far-end arrival F with `at` and reserves the link's resume number, as
/// `Network::start_tx` does; scheduler `b` gets the folded hop (a pass on the feeder's
/// FIFO). Both get the same other events: applications, re-armed timers (a sink's
/// delayed-ack timer, a sender's RTO) and `TxDone`s at a folded transmission's end
/// (`at_resume`), each scheduling more when it fires. Every delivered event, its time
/// and its sequence number must be identical, and so must every link's resume number
/// once its fold is passed (module docs, 6.).
struct FoldPair {
    a: Scheduler,
    b: Scheduler,
    ta: Vec<Timer>,
    tb: Vec<Timer>,
    /// Per packet: link, end of its transmission, far-end time.
    hop: Vec<(u32, u64, u64)>,
    /// Per feeder: the latest fold's X time (a feeder's arrivals come in order).
    feeder_last: Vec<u64>,
    /// Per link: the resume number `a`'s handler reserved, and for which packet; the
    /// latest packet folded onto it in `b`.
    resume_a: Vec<(u64, u32)>,
    latest_b: Vec<u32>,
    txdone_done: Vec<bool>,
    compared: u64,
}

const X_LINK: u32 = 1000;

impl FoldPair {
    fn new(n_links: usize, n_feeders: usize, n_timers: usize) -> Self {
        let mut b = Scheduler::new();
        b.enable_folds(n_links, (0..n_feeders as u32).collect());
        FoldPair {
            a: Scheduler::new(),
            b,
            ta: (0..n_timers).map(|_| Timer::default()).collect(),
            tb: (0..n_timers).map(|_| Timer::default()).collect(),
            hop: Vec::new(),
            feeder_last: vec![0; n_feeders],
            resume_a: vec![(0, u32::MAX); n_links],
            latest_b: vec![u32::MAX - 1; n_links],
            txdone_done: Vec::new(),
            compared: 0,
        }
    }
    fn app(&mut self, t: u64, app: u32, token: u32) {
        self.a.at(SimTime(t), Event::App { app, token });
        self.b.at(SimTime(t), Event::App { app, token });
    }
    fn timer(&mut self, k: usize, delay: u64) {
        self.ta[k].resched(&mut self.a, SimTime(delay), 50 + k as u32, 0);
        self.tb[k].resched(&mut self.b, SimTime(delay), 50 + k as u32, 0);
    }
    /// A hop from feeder `feeder` reaching its node at `t_x` (not before the clock nor
    /// the feeder's previous one), then `tx` ns (> 0) on link `next`, `delay` ns more.
    fn fold(&mut self, feeder: usize, t_x: u64, next: u32, tx: u64, delay: u64) {
        let pkt = self.hop.len() as u32;
        let t_x = t_x.max(self.feeder_last[feeder]);
        self.feeder_last[feeder] = t_x;
        self.hop.push((next, t_x + tx, t_x + tx + delay));
        self.txdone_done.push(false);
        self.a.at(SimTime(t_x), Event::Arrive { link: X_LINK + next, pkt });
        let s_x = self.b.reserve_seq();
        assert_eq!(s_x, self.a.seq, "X's number is the one `at` took");
        self.b.at_fold(feeder as u32, SimTime(t_x), s_x, SimTime(t_x + tx + delay), next, pkt, false);
        self.latest_b[next as usize] = pkt;
    }
    /// The resume of link `next`'s latest folded transmission, once `a` passed it: a
    /// `TxDone` at its end (if not in the past), in both.
    fn txdone(&mut self, next: u32) {
        let (r, pkt) = self.resume_a[next as usize];
        if pkt != self.latest_b[next as usize] || self.txdone_done[pkt as usize] {
            return;
        }
        let busy = self.hop[pkt as usize].1;
        if busy < self.a.now().0 {
            return;
        }
        self.txdone_done[pkt as usize] = true;
        self.a.at_seq(SimTime(busy), r, Event::TxDone { link: next });
        self.b.at_resume(SimTime(busy), VIRT_RESUME, next);
    }
    /// Pop the next delivered event at or before `until` of `a` (running X's handler)
    /// and of `b`; check they agree. `react` schedules what a handler would (on both
    /// schedulers alike).
    fn step(&mut self, until: u64, react: &mut dyn FnMut(&mut FoldPair, Event)) -> Option<Event> {
        let ea = loop {
            match self.a.pop(SimTime(until)) {
                Some(Event::Arrive { link, pkt }) if link >= X_LINK => {
                    let next = link - X_LINK;
                    self.a.at(SimTime(self.hop[pkt as usize].2), Event::Arrive { link: next, pkt });
                    self.resume_a[next as usize] = (self.a.reserve_seq(), pkt);
                }
                e => break e,
            }
        };
        let eb = self.b.pop(SimTime(until));
        assert_eq!(ea, eb, "same event");
        assert_eq!(self.a.now(), self.b.now(), "same clock after {ea:?}");
        assert_eq!(self.a.seq, self.b.seq, "same counter after {ea:?}");
        // Every link's resume number, once its latest fold is passed.
        for (l, &(r, pkt)) in self.resume_a.iter().enumerate() {
            if pkt == self.latest_b[l] {
                assert_eq!(self.b.resume_of(l as u32, VIRT_RESUME), r, "link {l}'s resume after {ea:?}");
                self.compared += 1;
            }
        }
        let e = ea?;
        assert_eq!(self.a.current_seq(), self.b.current_seq(), "same key for {e:?}");
        let live = |t: &mut Vec<Timer>, e: Event| match e {
            Event::Timer { agent, gen, .. } => t[(agent - 50) as usize].fire(gen),
            _ => true,
        };
        let (la, lb) = (live(&mut self.ta, e), live(&mut self.tb, e));
        assert_eq!(la, lb);
        if la {
            react(self, e);
        }
        Some(e)
    }
}

#[test]
fn folded_hop_keeps_equal_time_order() {
    // X reaches its node at 10; the far-end arrival F is due at 20 (10 + 4 + 6).
    // Events due at 20 scheduled before X's position in the pop order (at time 5, or
    // at time 10 before the fold) fire before F; those scheduled after it (at 10 after
    // the fold, at 12) fire after F -- although the fold itself happens at time 0.
    let mut p = FoldPair::new(4, 1, 3);
    p.app(10, 1, 20); // at 10, scheduled before the fold: its event at 20 precedes F
    p.fold(0, 10, 2, 4, 6);
    p.timer(0, 20); // a delayed-ack timer armed after the fold, before X: precedes F
    p.app(10, 2, 20); // at 10, after the fold: its event at 20 follows F
    p.app(5, 3, 20);
    p.app(12, 4, 20);
    p.timer(1, 30); // an RTO re-armed at 12 (below) to 20: follows F
    let mut order = Vec::new();
    let mut react = |p: &mut FoldPair, e: Event| {
        if let Event::App { app, token } = e {
            if token == 20 {
                p.app(20, app + 100, 0);
            }
            if app == 4 {
                p.timer(1, 8);
                p.timer(2, 8);
                p.txdone(2); // the transmission's end at 14: its TxDone
            }
        }
        order.push((p.a.now().0, e));
    };
    while p.step(u64::MAX, &mut react).is_some() {}
    let at20: Vec<String> = order
        .iter()
        .filter(|(t, _)| *t == 20)
        .map(|(_, e)| match e {
            Event::App { app, .. } => format!("app{app}"),
            Event::Timer { agent, .. } => format!("timer{}", agent - 50),
            Event::Arrive { link, .. } => format!("arrive{link}"),
            e => format!("{e:?}"),
        })
        .collect();
    assert_eq!(at20, ["timer0", "app103", "app101", "arrive2", "app102", "app104", "timer1", "timer2"]);
    assert!(order.iter().any(|(t, e)| *t == 14 && *e == Event::TxDone { link: 2 }));
    assert_eq!(p.b.folded, 1);
    assert_eq!(p.a.fired, p.b.fired + 1, "the folded hop is not delivered");
}

#[test]
fn folded_hops_match_unfolded_random() {
    // Random applications, timers, folded hops on three feeders and TxDones, all within
    // a few ns of each other so that equal times (and several passes in one gap between
    // two events) are frequent; runs paused at random `until`s, as `run_until` does.
    let (mut compared, mut txdones, mut pauses) = (0, 0, 0);
    for seed in 1..=300u64 {
        let mut rng = Rand(seed);
        let mut p = FoldPair::new(8, 3, 6);
        for _ in 0..20 {
            p.app(rng.below(5), rng.below(1000) as u32, 1);
        }
        let mut steps = 0;
        let mut react = |p: &mut FoldPair, e: Event| {
            if matches!(e, Event::TxDone { .. }) {
                txdones += 1;
            }
            let now = p.a.now().0;
            for _ in 0..1 + rng.below(3) {
                match rng.below(6) {
                    0 => p.app(now + rng.below(6), rng.below(1000) as u32, 1),
                    1 => p.timer(rng.below(6) as usize, rng.below(8)),
                    2 => p.txdone(rng.below(8) as u32),
                    _ => {
                        let t_x = now + rng.below(4);
                        let next = rng.below(8) as u32;
                        p.fold(rng.below(3) as usize, t_x, next, 1 + rng.below(3), rng.below(3));
                    }
                }
            }
        };
        let mut until = 0;
        while steps < 3_000 {
            if p.step(until, &mut react).is_none() {
                if p.a.pending() == 0 {
                    break;
                }
                pauses += 1;
                until += 1 + until % 3;
            }
            steps += 1;
        }
        // Drain what is queued, scheduling nothing more.
        while p.step(u64::MAX, &mut |_, _| {}).is_some() {}
        assert_eq!(p.b.pending(), 0);
        assert!(p.b.folded > 100, "seed {seed}: folds exercised ({})", p.b.folded);
        assert_eq!(p.a.fired, p.b.fired + p.b.folded, "seed {seed}: every fold saves its event");
        compared += p.compared;
    }
    assert!(compared > 10_000, "resume comparisons exercised ({compared})");
    assert!(txdones > 500, "TxDones at folded transmissions' ends ({txdones})");
    assert!(pauses > 1000, "pauses ({pauses})");
}

/// The scheduler's heap (`Heap`) against a sorted list: random pushes, replacements of
/// the minimum and removals, with heaps of every size from empty through several levels
/// (so that a last node with one child and full nodes meet both sifts), and equal times
/// told apart by `sk`.
#[test]
fn heap_pops_in_key_order() {
    let mut rng = crate::rng::Rng::new(7);
    for round in 0..200u64 {
        let mut h = Heap::default();
        let mut model: Vec<u128> = Vec::new();
        let mut seq = 0u64;
        let mut entry = |rng: &mut crate::rng::Rng| {
            seq += 1;
            // Few distinct times, so that many entries share one.
            Entry { time: rng.next_u64() % (1 + round % 16), sk: seq << KIND_BITS, a: 0, b: 0 }
        };
        for _ in 0..(round as usize * 3 + 5) {
            match rng.next_u64() % 3 {
                0 | 1 => {
                    let e = entry(&mut rng);
                    model.push(e.key());
                    h.push(e);
                }
                _ if !model.is_empty() => {
                    model.sort_unstable();
                    assert_eq!(h.top().map(Entry::key), Some(model[0]));
                    if rng.next_u64() % 2 == 0 {
                        let e = entry(&mut rng);
                        model[0] = e.key();
                        h.replace_top(e);
                    } else {
                        model.remove(0);
                        h.remove_top();
                    }
                }
                _ => assert!(h.top().is_none()),
            }
        }
        model.sort_unstable();
        for k in model {
            assert_eq!(h.top().map(Entry::key), Some(k));
            h.remove_top();
        }
        assert!(h.top().is_none());
    }
}
