//! The event queue: integer-nanosecond times, and events at equal times fire in the
//! order they were scheduled (FIFO), as ns-2's calendar scheduler guarantees.
//!
//! # Ordering contract
//!
//! Every queued event has a key `(time, seq)`; `seq` comes from one global counter
//! (bumped by [`Scheduler::at`] and [`Scheduler::reserve_seq`]), so keys are unique and
//! the order is total: events fire in increasing `(time, seq)`. An event inserted with
//! a reserved sequence number ([`Scheduler::at_seq`]) fires exactly where an event
//! scheduled at the moment of the reservation would have fired. Runs are deterministic.
//!
//! # Structure (why it is fast, and why it is exact)
//!
//! A plain binary heap of every pending event was the bottleneck (10^4 entries, most of
//! them packets in flight and stale timer entries). Three observations shrink the heap
//! to a handful of entries without changing the order of anything:
//!
//! 1. **Arrival lanes.** Arrivals scheduled the same distance `delta = time - now` ahead
//!    of the clock are scheduled in increasing key order: `now` never decreases and
//!    `seq` always increases, so `(now + delta, seq)` increases. Every link sends a
//!    packet of a given size exactly `tx_time + delay` ahead, so a dumbbell's arrivals
//!    fall into about four such offsets (data and acks, access links and bottleneck),
//!    whatever the number of hosts. Each offset gets a FIFO *lane* (the lanes form a
//!    small direct-mapped hash table keyed by offset); only the lane's head sits in
//!    the heap. An arrival
//!    joins a lane only if its key is greater than the lane's last key -- checked every
//!    time, so nothing relies on the argument above for correctness -- and otherwise
//!    (a hash collision with another offset's busy lane, an out-of-order `at_seq`)
//!    becomes an ordinary heap entry. Every lane is sorted and its head is in the heap
//!    with the head's own key, so the heap's minimum is the minimum over all pending
//!    events: the pop order is exactly `(time, seq)`.
//!
//! 2. **One heap entry per timer.** An RTO timer is re-armed on every ack. Instead of
//!    pushing an entry each time (and skipping the stale ones later), a [`Timer`] owns
//!    a slot in the scheduler holding its current due key `(due, seq)` -- `seq` is
//!    reserved when the timer is armed, exactly the number `at()` would have used. The
//!    slot keeps at most one live heap entry, whose key is never later than the due
//!    key. When that entry pops early (the timer was pushed back), it is silently
//!    re-inserted at the due key; when it pops at the due key, the timer event is
//!    delivered -- at the same `(time, seq)` as the old one-entry-per-arm scheme would
//!    have delivered its live entry. (Re-arming *earlier* than the queued entry pushes
//!    a new entry; the old one is recognised as stale by its key and dropped.)
//!    Stale entries of the old scheme were delivered and then ignored by
//!    [`Timer::fire`]; they are no longer delivered at all, which changes the count of
//!    fired events but nothing that any handler observes.
//!
//! 3. **Timer entries in a heap of their own.** Timer slots are due far ahead (an RTO
//!    is >= 200 ms) and almost never pop, but in a shared heap every removal would sift
//!    them around. The main heap (lane heads, `TxDone`, `App`, ...) and the timer heap
//!    are kept apart and `pop` takes the smaller of the two minima.
//!
//! 4. **Parked timers** (idle connections' retransmission timers). ns-2 re-arms the
//!    retransmission timer of an idle connection every RTO until the run ends, and
//!    once the idle restart has been done each of those firings changes nothing but
//!    re-arms the timer (`TcpConn::rtx_timeout_is_noop`). The owner then *parks* the
//!    timer ([`Timer::park`]) instead of re-arming it: the scheduler re-arms it itself,
//!    every `period`, with no event delivered. Each such re-arm is done when the pop
//!    loop passes the firing's key and takes its sequence number there, exactly as the
//!    handler would have (one `reserve_seq`), so the key of every later firing, and the
//!    sequence numbers of every other event, are the ones the delivered firings gave.
//!    Re-arms of one period happen in pop order at `clock + period` with increasing
//!    sequence numbers, so they are sorted: parked timers of one period form a FIFO
//!    (a *park lane*), only its head in a small heap of the lanes' heads (`pheap`, apart
//!    from the timer heap, so that the timer heap's minimum is the next timer to
//!    fire: the prefetcher follows it, and a re-arm sifts among the lanes' heads only),
//!    and a re-arm costs a lane step instead of an event. A lane is a linked list of
//!    nodes (`ParkNode`) that hold the parked timers' keys: a re-arm updates the head
//!    node in place and links it behind the tail, touching neither the timer slot nor
//!    anything but the lane's nodes (allocated in park order, so a lane is walked
//!    mostly in memory order). The slot marks its node when the entry goes stale
//!    (re-armed, parked again) or is to be delivered (unparked: the slot takes the
//!    node's key then). Before the owner changes any state the timer's firing depends
//!    on, it calls [`Timer::unpark`]: the next firing, at the key the chain of re-arms
//!    has reached, is delivered again as an ordinary timer event.
//!
//! 5. **The UDP multiplexer's entry** (`traffic::mux`: one entry for all UDP sources,
//!    [`Scheduler::mux_arm`]). When it pops it is left at the main heap's root while
//!    its handler runs -- every event inserted meanwhile has a larger key, so it stays
//!    the root -- and the handler's re-arm replaces it there: one sift-down per source
//!    event instead of a removal and a push.
//!
//! 6. **Folded hops** (`Network::try_fold`; docs/architecture.md, "Folded hops"). A
//!    node forwarding a packet onto an idle link fed by one link only is an arrival
//!    event X whose handler starts the next transmission and schedules the far-end
//!    arrival F: `at` takes F's number, `reserve_seq` the link's resume number. When X
//!    is provable at the moment its packet leaves the feeder, the network does the
//!    transmission then and [`Scheduler::at_fold`] queues a *pass* at X's key (its
//!    number reserved as `at` would have taken it) instead of X. When the pop loop
//!    reaches that key it takes the two numbers X's handler would have taken, at the
//!    same point, queues F with the first, keeps the second as the link's resume
//!    number ([`Scheduler::resume_of`]) and delivers nothing. So every sequence number,
//!    and every key, is the unfolded run's. A feeder's passes are a FIFO (its arrivals
//!    reach its far node in transmission order); the FIFOs' heads are in a small heap
//!    of their own, and `pop` compares the smallest of them (`next_pass`) with each
//!    event's key before handling it: a pass costs no operation on the main heap.
//!    (`pop` keeps `next_aux`, the smaller of `next_pass` and the timer heap's minimum,
//!    and compares the main heap's minimum with that one key.) A *credited* pass (a
//!    datagram's last hop, whose arrival F would only count it at its UDP sink:
//!    `Network::try_fold`) queues nothing: it credits the sink's counters ([`credits`],
//!    `udp_sinks`) with F's key, the number the pass takes for F.
//!
//!    *Start passes* (computed queues; [`Scheduler::at_start`], `Network::vq_enqueue`):
//!    on a feeder whose queue is a tail-drop DropTail with no stage, a packet that
//!    finds the link busy has its transmission known when it joins the queue (it
//!    starts when the link's last packet ends), so the network computes it then, and
//!    the fold of the hop after it. What ns-2's transmission-done event T before it
//!    does to the event order -- the arrival X of the packet it starts takes the next
//!    number, its resume the one after -- a *start pass* does at T's key (the
//!    previous transmission's end and resume number, both known once that one has
//!    started): X becomes a fold's pass on the feeder (or an arrival event), and the
//!    queue's next packet gets its start pass at this one's end. The waiting packets
//!    are a FIFO per feeder (`start_fifos`), its head's key in the pass heap beside the
//!    feeder's fold FIFO; the queue's length is the FIFO's (`vq_len`), so a drop is
//!    decided on the same state. No transmission-done event is queued or delivered.
//!    With lookahead (opt-in, `Network::try_lookahead`) a packet may join the queue as
//!    the link before it starts sending it, ahead of its arrival: its start entry keeps
//!    that arrival's key, and if the queue is idle then, its start pass is at that key
//!    (the arrival's handler would start the transmission there).
//!
//! 7. **Far timers** (large runs; [`Scheduler::enable_far_timers`]). With 10^5
//!    connections the timer heap holds ~10^5 entries, most of them retransmission
//!    timers due seconds ahead, and every entry that pops early (its timer pushed back
//!    by acks since: point 2) sifts down through ~17 levels of cold memory to its due
//!    key, among the latest; so does every park lane's next head. Instead, a timer
//!    slot's entry due at or after a *horizon* waits unsorted in a bucket of
//!    `2^width_bits` ns (`far`), and the timer heap holds the others and the park lanes'
//!    heads (a few hundred). When the heap's minimum is not before the horizon (or the
//!    heap is empty), the horizon's bucket is opened: the horizon moves one bucket on
//!    and the bucket's entries go into the heap. Every bucketed entry is due at or
//!    after the horizon, so a heap minimum before it is the minimum of all timer
//!    entries, and the pop order stays exactly `(time, seq)`. Opening a bucket also
//!    does at once what the pop loop would do when such an entry reached the heap's
//!    top: a stale entry is dropped, a pushed-back one moved to its due key (into the
//!    heap or a later bucket) -- neither is delivered nor takes a number there, so doing
//!    it earlier changes nothing -- with the slots hinted a chunk at a time, so that
//!    their misses overlap. A far entry is only its slot's index (the slot holds the
//!    live entry's key and an `in_far` mark; `far`'s module docs): 4 bytes in the ring
//!    instead of a 24-byte entry. Small runs keep the one heap (`horizon == u64::MAX`).
//!
//! The heaps are hand-written binary min-heaps of 24-byte entries keyed by
//! `(time, seq << 12 | tag)`: the event kind rides in the low bits of the tie-breaker,
//! which cannot change the order because sequence numbers are unique. In the 45 Mb/s,
//! 20-flow dumbbell the main heap holds ~4.5 entries on average and the timer heap 20.

pub mod credits;
mod far;

use crate::fifo::Fifo;

use crate::time::SimTime;

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
    /// A timer of a node element (`net::element`; `elem` indexes `Network::elements`)
    /// with an element-defined token.
    Element { elem: u32, token: u32 },
}

// Entry kinds (low 4 bits of `Entry::sk`).
const K_ARRIVE: u64 = 0; // a = link, b = pkt (an arrival that did not fit its lane)
const K_TXDONE: u64 = 1; // a = link
const K_TIMER: u64 = 2; // a = timer slot
const K_APP: u64 = 3; // a = app, b = token
const K_LANE: u64 = 4; // a = link, b = pkt of the lane's head, lane in bits 4..12 of `sk`
const K_RAWTIMER: u64 = 5; // a = agent, b = gen, timer id in bits 4..12 of `sk`
const K_ELEM: u64 = 6; // a = element, b = token
const K_PARKED: u64 = 7; // park heads heap only: a = park lane, keyed by the lane's oldest entry
const K_MUX: u64 = 8; // the UDP multiplexer's armed source event (`Scheduler::mux_arm`): a = app

/// `Link::resume_seq` of a transmission a folded hop started: its resume number is
/// taken when the pop loop passes the fold's point and kept by the scheduler
/// ([`Scheduler::resume_of`]).
pub const VIRT_RESUME: u64 = u64::MAX;
/// Low bits of `sk` below the sequence number: kind (4 bits), then a raw timer's id
/// (8 bits). Sequence numbers must stay below 2^52 (~4.5e15 events).
const KIND_BITS: u32 = 12;
const KIND_MASK: u64 = 0xF;

/// A heap entry. `sk = seq << 12 | extra << 4 | kind`; ordering is by `(time, sk)`.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    time: u64,
    sk: u64,
    a: u32,
    b: u32,
}

impl Entry {
    /// `(time, sk)` as one integer: a single wide comparison, no branches.
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.sk as u128
    }
    #[inline(always)]
    fn seq(&self) -> u64 {
        self.sk >> KIND_BITS
    }
}

/// A FIFO of arrivals that were all scheduled `delta` ns ahead of the clock (an idle
/// lane may be taken over by another offset).
///
/// A [`Fifo`] of arrivals (power-of-two ring, 64 entries to start with) rather than a
/// `VecDeque`, with the key of the newest arrival kept next to the header, so the
/// "does it keep the lane sorted" test of `insert_arrival` reads no buffer memory.
/// The arrivals are stored as the heap entries that represent the lane when they
/// reach its head (`lane_entry`), so the lane's next head goes into the heap as it
/// is.
struct Lane {
    q: Fifo<Entry, 64>,
    delta: u64,
    /// Key of the newest arrival (meaningful while `q` is not empty): its time and `sk`
    /// (all entries of a lane share the low bits of `sk`, so `sk` orders them as
    /// their sequence numbers do).
    back_time: u64,
    back_sk: u64,
}

impl Lane {
    /// An unused lane: no buffer until its first arrival.
    fn new() -> Self {
        Lane { q: Fifo::new(), delta: 0, back_time: 0, back_sk: 0 }
    }

    #[inline(always)]
    fn push_back(&mut self, e: Entry) {
        self.q.push_back(e);
        self.back_time = e.time;
        self.back_sk = e.sk;
    }

    /// Remove the oldest arrival (the lane must be non-empty; its heap entry carries
    /// the arrival, see `lane_entry`, so it is not read here); returns the heap entry
    /// of the new oldest one, if any. (The lane held an arrival: `pop` calls this only
    /// for the lane whose entry is the main heap's top, and a lane has an entry in the
    /// heap exactly while it holds arrivals: `insert_arrival` pushes it with the first,
    /// `pop` removes it with the last.)
    #[inline(always)]
    fn pop_front(&mut self) -> Option<Entry> {
        self.q.advance();
        self.q.front().copied()
    }
}

/// Number of lanes: the size of the direct-mapped table from `delta` to lane (a power
/// of two).
const LANE_TAB: usize = 256;

/// Slot of offset `delta` in the lane table (multiplicative hashing).
#[inline(always)]
fn lane_slot(delta: u64) -> usize {
    (delta.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - LANE_TAB.trailing_zeros())) as usize
}

/// The heap entry representing lane `h` whose oldest arrival is `(time, seq, link,
/// pkt)`: keyed by it, and carrying its link and packet so that popping it needs no
/// lane buffer read to produce the event. The lane index rides in bits 4..12 of `sk`
/// (`LANE_TAB` is 2^8); below the sequence number, so the order is unchanged.
#[inline(always)]
fn lane_entry(h: usize, time: u64, seq: u64, link: u32, pkt: PktId) -> Entry {
    Entry { time, sk: seq << KIND_BITS | (h as u64) << 4 | K_LANE, a: link, b: pkt }
}
const _: () = assert!(LANE_TAB <= 1 << (KIND_BITS - 4), "lane index must fit in sk bits 4..12");

/// One parked timer's next firing, a node of its park lane (`Scheduler::park_nodes`).
///
/// The node, not the timer slot, holds the key while the timer is parked: a re-arm
/// updates the node in place and moves it from the lane's head to its tail by links,
/// so it touches neither the slot (a cache miss per re-arm in a large run) nor any
/// other memory than the lane's nodes, which stay where they were allocated (in the
/// order the timers were parked: a lane is walked mostly sequentially). The slot
/// points at its node (`TimerSlot::node`) and marks it when the entry goes stale
/// (`DEAD`: re-armed or parked again) or its firing is to be delivered (`WOKEN`:
/// unparked).
#[derive(Clone, Copy, Debug)]
struct ParkNode {
    time: u64,
    seq: u64,
    /// The timer slot, with `NODE_DEAD` / `NODE_WOKEN`.
    slot: u32,
    /// The next node of the lane (the lane's tail: anything), or of the free list.
    next: u32,
}

/// `ParkNode::slot` flags (slot indices are below 2^30, `SLOT_MASK`).
const NODE_DEAD: u32 = 1 << 31;
const NODE_WOKEN: u32 = 1 << 30;
/// No node (an empty free list).
const NO_NODE: u32 = u32::MAX;

/// The parked timers re-armed with one period, in the order of their next firings
/// (see the module docs, 4.): a linked list of [`ParkNode`]s from `head` to `tail`.
/// Stale entries (a timer re-armed or parked again, or unparked and fired since) stay
/// until they reach the head and are dropped there.
struct ParkLane {
    period: u64,
    head: u32,
    tail: u32,
    len: u32,
}

/// Make room for one more element of `v`: when it is full, an eighth more (at least
/// `min`) instead of doubling, so that a table that grows with the connections ends at
/// most 12.5 % above its largest length (cold: the tables this is for grow once per
/// timer or entry).
#[inline(always)]
fn grow_by_eighth<T>(v: &mut Vec<T>, min: usize) {
    if v.len() == v.capacity() {
        grow_cold(v, min);
    }
}

#[cold]
#[inline(never)]
fn grow_cold<T>(v: &mut Vec<T>, min: usize) {
    v.reserve_exact((v.len() / 8).max(min));
}

/// A folded hop waiting for the pop loop to pass its point (module docs, 6.): the
/// skipped arrival X's key `(time, sk)` (`sk` without kind bits), the far-end arrival
/// F's time `far`, F's link `l2` and packet. With `CREDIT` set in `l2`, F is credited
/// to a UDP sink instead of being scheduled, and `pkt` holds the sink and the datagram's
/// size ([`credit_word`]). (32 bytes: the passes of every folded hop are copied in and
/// out of their FIFO.)
#[derive(Clone, Copy, Debug, Default)]
struct Pass {
    time: u64,
    sk: u64,
    far: u64,
    l2: u32,
    pkt: PktId,
}

/// In `Pass::l2`: F is credited to a UDP sink ([`Scheduler::at_fold`]). Links are
/// fewer than 2^31 where hops fold (`Network::plan_folds`).
const CREDIT: u32 = 1 << 31;

/// A folded hop's `(l2, pkt)` as a pass or a start entry keeps them (`CREDIT` in `l2`),
/// read back as `(l2, pkt, size)`: `size` given for a credited hop, whose `pkt` is then a
/// [`credit_word`] (its datagram is freed).
#[inline(always)]
fn fold_target(l2: u32, pkt: PktId) -> (u32, PktId, Option<u32>) {
    (l2 & !CREDIT, pkt, (l2 & CREDIT != 0).then_some(pkt & 0xFFFF))
}

/// The `pkt` of a credited pass: sink `k` (index in `Scheduler::udp_sinks`) in the high
/// 16 bits, the datagram's `size` in the low 16; `None` when either does not fit (the
/// hop is then not folded).
#[inline(always)]
pub fn credit_word(k: u32, size: u32) -> Option<u32> {
    (k < 1 << 16 && size < 1 << 16).then_some(k << 16 | size)
}

/// The pending passes of the folds made on one feeder link, in key order (a link's
/// arrivals reach its far node in transmission order): a [`Fifo`] of 16 entries to
/// start with.
type PassFifo = Fifo<Pass, 16>;

/// A packet waiting in a computed queue (`Network::vq_enqueue`, [`Scheduler::at_start`]):
/// its transmission ends at `t_end` and it reaches the link's far node at `t_x`; the
/// hop there was folded onto `l2` (its far-end arrival at `far`) or is an arrival
/// event (`l2 == NO_FOLD`). Its *start pass* is at the key of the transmission-done
/// ns-2 would fire before it (the previous packet's end, with that transmission's
/// resume number).
///
/// `arr`: the key of the packet's arrival at the link, if the network entered it ahead
/// of that arrival (`Network::try_lookahead`), else `(0, 0)` (it had arrived).
#[derive(Clone, Copy, Debug, Default)]
struct Start {
    t_end: u64,
    t_x: u64,
    far: u64,
    arr: (u64, u64),
    l2: u32,
    pkt: PktId,
}

/// The key a computed queue's packet starts at when the queue is empty as it joins
/// ([`Scheduler::at_start`]): `(time, seq)`, the start pass's key, and `resume`, the
/// resume number of the transmission on the wire until then ([`Scheduler::resume_of`]).
/// Joining a busy link it starts at the end of the transmission on the wire, with that
/// transmission's resume number: `seq == resume`. Entered ahead of its arrival at an
/// idle link (`Network::try_lookahead`) it starts at that arrival's key.
#[derive(Clone, Copy, Debug)]
pub struct StartKey {
    pub time: SimTime,
    pub seq: u64,
    pub resume: u64,
}

/// A packet waiting in a computed queue ([`Scheduler::pending_starts`]): its `link`,
/// `pkt`, `l2` (the folded hop entered for it, or `NO_FOLD`), `size` (given for a
/// credited fold, whose datagram is freed, as in [`Scheduler::pending_folds`]) and `arr`
/// (the key of its arrival at the link if it was entered ahead of it, else `(0, 0)`).
#[derive(Clone, Copy, Debug)]
pub struct PendingStart {
    pub link: u32,
    pub pkt: PktId,
    pub l2: u32,
    pub size: Option<u32>,
    pub arr: (u64, u64),
}

/// In `Start::l2`: the hop after the link is not folded (its arrival is an event).
pub const NO_FOLD: u32 = u32::MAX;

/// The packets waiting in one computed queue, in their order of transmission.
type StartFifo = Fifo<Start, 16>;

/// `Entry::b` of a pass heap entry: the FIFO is a feeder's fold passes (0) or a
/// computed queue's start passes (1).
const PASS_FOLD: u32 = 0;
const PASS_START: u32 = 1;

/// State of one [`Timer`]'s scheduler slot.
#[derive(Clone, Copy, Debug)]
struct TimerSlot {
    /// Key the timer is due at (meaningful once armed).
    due: u64,
    due_seq: u64,
    /// Generation of the latest arm, delivered with the event.
    gen: u32,
    agent: u32,
    timer: u8,
    /// The slot's live heap entry, if any, and its key (`queued_sk` includes the kind).
    queued: bool,
    queued_time: u64,
    queued_sk: u64,
    /// Parked: its firings re-arm it in the scheduler, with its park lane's period,
    /// instead of being delivered. (A flag, not the period: the lane holds that, and a
    /// slot is 48 bytes instead of 56.)
    parked: bool,
    /// The slot's queued entry (`queued`) waits in the far buckets, which hold only the
    /// slot's index (module docs, 7.; `far`).
    in_far: bool,
    /// The park-lane node of the slot's live entry, `NO_NODE` for none: the entry is in
    /// a park lane (the node holds its key while the timer is parked) rather than in the
    /// timer heap (`queued`); it stays there after `unpark` until that entry pops.
    node: u32,
}

// A timer slot per armed timer (a few per TCP connection).
const _: () = assert!(std::mem::size_of::<TimerSlot>() == 48);

/// What a timer slot's queued entry stands for when it reaches the front (the timer
/// heap's top, or a far bucket being opened): [`TimerSlot::take`].
enum Queued {
    /// Superseded by an earlier re-arm (or parked) since it was queued: drop it.
    Stale,
    /// The timer was pushed back since: this is its entry at the due key (the key the
    /// event would have had if pushed at re-arm time), to queue instead.
    Moved(Entry),
    /// Due now.
    Due,
}

impl TimerSlot {
    /// Classify `e`, an entry of this slot (module docs, 2.); with `Moved`, the slot
    /// now records the new entry as its queued one.
    #[inline(always)]
    fn take(&mut self, e: &Entry) -> Queued {
        if !self.queued || self.queued_time != e.time || self.queued_sk != e.sk {
            return Queued::Stale;
        }
        if self.due != e.time || self.due_seq != e.seq() {
            debug_assert!((self.due, self.due_seq) > (e.time, e.seq()));
            let n = Entry { time: self.due, sk: self.due_seq << KIND_BITS | K_TIMER, a: e.a, b: 0 };
            self.queued_time = n.time;
            self.queued_sk = n.sk;
            return Queued::Moved(n);
        }
        Queued::Due
    }
}

/// The scheduler: a priority queue of events plus the simulation clock.
pub struct Scheduler {
    /// Events other than `Timer`-slot entries: lane heads, TxDone, App, ...
    heap: Heap,
    /// Entries of `Timer` slots, kept apart (see the module docs); with `far`, only
    /// those due before `horizon`.
    theap: Heap,
    /// The park lanes' heads (`K_PARKED`; module docs, 4.): the timers' side of `pop`
    /// takes the smaller of its minimum and the timer heap's.
    pheap: Heap,
    /// Large runs: timer entries due at or after `horizon` wait in buckets (module
    /// docs, 7.); `horizon` is `u64::MAX` without (every entry in `theap`).
    far: Option<Box<far::FarTimers>>,
    horizon: u64,
    /// The timer slots the latest opening of far buckets moved into the timer heap, in
    /// the order moved, and the number of that opening: the timers due within about a
    /// bucket's width, for prefetching ([`Scheduler::opened_timers`]).
    opened: Vec<u32>,
    opened_gen: u32,
    /// FIFOs of arrivals (see the module docs).
    /// Direct-mapped: an arrival `delta` ahead goes to lane `lane_slot(delta)` (if that
    /// lane is idle or holds the same offset). Indexing the lanes by the hash directly
    /// saves a table lookup on every arrival; an unused lane holds no buffer.
    lanes: Box<[Lane; LANE_TAB]>,
    timers: Vec<TimerSlot>,
    /// Park lanes (module docs, 4.), and the lane of each period.
    park_lanes: Vec<ParkLane>,
    park_lane_of: std::collections::HashMap<u64, u32>,
    /// The park lanes' nodes, and the head of their free list.
    park_nodes: Vec<ParkNode>,
    park_free: u32,
    now: SimTime,
    seq: u64,
    /// Sequence number of the event being processed.
    cur_seq: u64,
    /// Events delivered so far (for benchmarks).
    pub fired: u64,
    /// Firings of parked timers done inside the scheduler (not delivered, not in
    /// `fired`).
    pub parked_rearms: u64,
    /// May owners park timers ([`Timer::park`])? On by default; off, every firing is
    /// delivered (tests compare both).
    pub park_timers: bool,
    /// `sk` of the UDP multiplexer's entry that fired and still sits at the main heap's
    /// root until the multiplexer re-arms ([`Scheduler::mux_arm`], [`Scheduler::mux_idle`]);
    /// 0: none.
    mux_root: u64,
    /// Folded hops (module docs, 6.): the pending passes of each feeder link, and per
    /// link the resume number its latest folded transmission got at its pass (empty
    /// until [`Scheduler::enable_folds`]).
    pass_fifos: Vec<PassFifo>,
    fold_resume: Vec<u64>,
    /// Computed queues (module docs, 6., start passes): per feeder (the index of its pass FIFO), the
    /// packets waiting, and the link (`start_link`).
    start_fifos: Vec<StartFifo>,
    start_link: Vec<u32>,
    /// The non-empty pass FIFOs, each keyed by its oldest pass (`a`: the FIFO), and the
    /// smallest of those keys (`u128::MAX`: none), which `pop` compares with each event.
    pass_heap: Heap,
    next_pass: u128,
    /// The timer heap's minimum key (`u128::MAX`: empty), kept by `sync_aux`.
    next_timer: u128,
    /// The smaller of `next_pass` and `next_timer`, kept by `sync_aux` (the timer heap
    /// changed) and `sync_pass` (`next_pass` changed): `pop` compares the main heap's
    /// minimum with this one key, and looks at which of the two it is only when it is
    /// smaller.
    next_aux: u128,
    /// Folded hops passed (each an arrival event not delivered; not in `fired`).
    pub folded: u64,
    /// Start passes done (each a transmission-done event not delivered; not in `fired`).
    pub vq_starts: u64,
    /// Arrivals at a computed queue entered ahead, as the link before it started
    /// sending the packet (`Network::try_lookahead`), at a link busy then: each an
    /// arrival event not delivered (not in `fired`).
    pub lookaheads: u64,
    /// The same at a link idle then: the arrival's key is the packet's start pass's
    /// (counted in `vq_starts`).
    pub lookahead_starts: u64,
    /// Of the folded hops, those whose far-end arrival was credited to a UDP sink instead of
    /// being scheduled (no event at either end).
    pub folded_credits: u64,
    /// The UDP sinks' receive counters (`credits`), credited ahead by the network's
    /// elided deliveries and by passes.
    pub udp_sinks: credits::Credits,
}

impl Default for Scheduler {
    fn default() -> Self {
        Self::new()
    }
}

impl Scheduler {
    /// Bytes the scheduler holds: its heaps, the arrival lanes, the park lanes, the fold
    /// passes, the far timers and the timer slots, by capacity (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        self.memory_parts().iter().map(|&(_, b)| b).sum()
    }

    /// Free the queued events and the timers' state, keeping what reading the results
    /// needs (the counters, the pass FIFOs and computed queues behind
    /// `pending_folds` / `pending_starts`, the UDP sinks' credits). For
    /// `Simulation::into_results` only: the scheduler cannot run afterwards.
    pub(crate) fn free_for_results(&mut self) {
        self.heap = Heap::default();
        self.theap = Heap::default();
        self.pheap = Heap::default();
        self.far = None;
        self.opened = Vec::new();
        self.timers = Vec::new();
        self.park_lanes = Vec::new();
        self.park_nodes = Vec::new();
        self.fold_resume = Vec::new();
    }

    /// [`Scheduler::memory_bytes`] by part, in a fixed order of (name, bytes)
    /// (`run_config CONFIG --memory`).
    pub fn memory_parts(&self) -> Vec<(&'static str, usize)> {
        use std::mem::size_of;
        vec![
            ("main heap", self.heap.0.capacity() * size_of::<Entry>()),
            ("timer heap", self.theap.0.capacity() * size_of::<Entry>()),
            ("far timers: last opened", self.opened.capacity() * size_of::<u32>()),
            ("park heads heap", self.pheap.0.capacity() * size_of::<Entry>()),
            ("pass heap", self.pass_heap.0.capacity() * size_of::<Entry>()),
            (
                "park lanes",
                self.park_lanes.capacity() * size_of::<ParkLane>() + self.park_nodes.capacity() * size_of::<ParkNode>(),
            ),
            (
                "arrival lanes",
                size_of::<[Lane; LANE_TAB]>()
                    + self.lanes.iter().map(|l| l.q.capacity() * size_of::<Entry>()).sum::<usize>(),
            ),
            ("timer slots", self.timers.capacity() * size_of::<TimerSlot>()),
            ("pass FIFOs", self.pass_fifos.iter().map(|f| f.capacity() * size_of::<Pass>()).sum::<usize>()),
            (
                "computed queues",
                self.start_fifos.iter().map(|f| f.capacity() * size_of::<Start>()).sum::<usize>()
                    + self.start_link.capacity() * size_of::<u32>(),
            ),
            ("fold resume", self.fold_resume.capacity() * size_of::<u64>()),
            ("far timers: ring and chunks", self.far.as_ref().map_or(0, |f| f.memory_bytes() - f.overflow_bytes())),
            ("far timers: overflow heap", self.far.as_ref().map_or(0, |f| f.overflow_bytes())),
        ]
    }

    pub fn new() -> Self {
        Scheduler {
            heap: Heap(Vec::with_capacity(256)),
            theap: Heap(Vec::with_capacity(64)),
            pheap: Heap::default(),
            far: None,
            opened: Vec::new(),
            opened_gen: 0,
            horizon: u64::MAX,
            lanes: (0..LANE_TAB)
                .map(|_| Lane::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("LANE_TAB lanes")),
            timers: Vec::new(),
            park_lanes: Vec::new(),
            park_lane_of: std::collections::HashMap::new(),
            park_nodes: Vec::new(),
            park_free: NO_NODE,
            now: SimTime::ZERO,
            seq: 0,
            cur_seq: 0,
            fired: 0,
            parked_rearms: 0,
            park_timers: true,
            mux_root: 0,
            pass_fifos: Vec::new(),
            fold_resume: Vec::new(),
            start_fifos: Vec::new(),
            start_link: Vec::new(),
            pass_heap: Heap(Vec::new()),
            next_pass: u128::MAX,
            next_timer: u128::MAX,
            next_aux: u128::MAX,
            folded: 0,
            vq_starts: 0,
            lookaheads: 0,
            lookahead_starts: 0,
            folded_credits: 0,
            udp_sinks: credits::Credits::default(),
        }
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
        self.insert(at.0, self.seq, ev);
    }

    /// Schedule `ev` at `at` (as [`Scheduler::at`]), then reserve the next sequence
    /// number (as [`Scheduler::reserve_seq`]) and return it: a link starting a
    /// transmission schedules the far-end arrival and reserves its resume at once.
    /// `at` is `now + a duration` (`SimTime`'s saturating add: never before the clock),
    /// so `at`'s clamp to the clock is left out (debug-asserted).
    #[inline(always)]
    pub fn at_then_reserve(&mut self, at: SimTime, ev: Event) -> u64 {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        self.insert(at.0, self.seq, ev);
        self.reserve_seq()
    }

    /// Take the next sequence number without scheduling anything yet: an event that
    /// "would have been scheduled now" can later be inserted with [`Scheduler::at_seq`]
    /// and still fire in the order it would have had (used by lazily scheduled
    /// link events, see `net::link`, and by [`Timer`]).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedule `ev` at `at` with a sequence number taken earlier by `reserve_seq`.
    #[inline]
    pub fn at_seq(&mut self, at: SimTime, seq: u64, ev: Event) {
        debug_assert!(at >= self.now);
        self.insert(at.0, seq, ev);
    }

    /// Insert the UDP multiplexer's armed source event (`traffic::mux`): `Event::App {
    /// app, token: 0 }` at `(at, seq)`, `seq` reserved earlier (as [`Scheduler::at_seq`]).
    ///
    /// When such an entry pops it is left at the main heap's root while its handler
    /// runs: every event inserted meanwhile has a larger key than the one being handled
    /// (the ordering contract: nothing is scheduled before the current event), so the
    /// entry stays the root, and the handler's re-arm replaces it there (one sift-down)
    /// instead of a removal and a push. The handler of a multiplexer event must end
    /// with this call or [`Scheduler::mux_idle`].
    #[inline]
    pub fn mux_arm(&mut self, at: SimTime, seq: u64, app: u32) {
        debug_assert!(at >= self.now);
        assert!(seq < 1 << (64 - KIND_BITS), "sequence number overflow");
        let e = Entry { time: at.0, sk: seq << KIND_BITS | K_MUX, a: app, b: 0 };
        if self.take_mux_root() {
            self.heap.replace_top(e);
        } else {
            self.heap.push(e);
        }
    }

    /// The UDP multiplexer has no event left to arm: the fired entry (if any) leaves the
    /// heap.
    #[inline]
    pub fn mux_idle(&mut self) {
        if self.take_mux_root() {
            self.heap.remove_top();
        }
    }

    /// Is the multiplexer's fired entry still at the main heap's root (checked)? Forgets
    /// it: the caller replaces or removes the root.
    #[inline(always)]
    fn take_mux_root(&mut self) -> bool {
        if self.mux_root == 0 {
            return false;
        }
        assert!(self.heap.0[0].sk == self.mux_root, "the fired multiplexer entry is the heap's root");
        self.mux_root = 0;
        true
    }

    /// Allow folded hops ([`Scheduler::at_fold`]) onto links below `n_links`, fed by
    /// the links `feeders` (pass FIFOs `0..feeders.len()`), and computed queues
    /// ([`Scheduler::at_start`]) on those feeders.
    pub fn enable_folds(&mut self, n_links: usize, feeders: Vec<u32>) {
        self.fold_resume = vec![0; n_links];
        crate::sim::advise_huge_pages(&self.fold_resume);
        self.pass_fifos = (0..feeders.len()).map(|_| PassFifo::default()).collect();
        self.start_fifos = (0..feeders.len()).map(|_| StartFifo::default()).collect();
        self.start_link = feeders;
    }

    /// Packets waiting in the computed queue of feeder `fifo` (not yet transmitting).
    #[inline(always)]
    pub fn vq_len(&self, fifo: u32) -> usize {
        self.start_fifos[fifo as usize].len()
    }

    /// A packet `pkt` joins the computed queue of feeder `fifo` (module docs, 6., start passes): its
    /// transmission ends at `t_end`, it reaches the far node at `t_x`, and the hop there
    /// was folded onto `l2` with its far-end arrival at `far` (`Network::try_fold`'s
    /// state already entered), or `l2 == NO_FOLD`. `head`: the queue was empty, so this
    /// packet starts at that key ([`StartKey`]: the end of the transmission on the wire,
    /// or its own arrival at the idle link). The start pass at that key does what ns-2's
    /// transmission-done (or the arrival's handler) does to the event order: the arrival
    /// X takes the next number and the new
    /// transmission's resume the one after (read through [`Scheduler::resume_of`], as a
    /// folded hop's); X is then a fold's pass or an arrival event. With `credit` (a
    /// folded hop only), `pkt` is a [`credit_word`], as for [`Scheduler::at_fold`].
    /// `arr`: the key of the packet's arrival at the link when it is entered ahead of it
    /// (`Network::try_lookahead`), else `(0, 0)`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn at_start(
        &mut self,
        fifo: u32,
        head: Option<StartKey>,
        t_end: SimTime,
        t_x: SimTime,
        far: SimTime,
        l2: u32,
        pkt: PktId,
        credit: bool,
        arr: (u64, u64),
    ) {
        debug_assert!(!credit || l2 != NO_FOLD);
        let l2 = if credit { l2 | CREDIT } else { l2 };
        let f = &mut self.start_fifos[fifo as usize];
        f.push_back(Start { t_end: t_end.0, t_x: t_x.0, far: far.0, arr, l2, pkt });
        if let Some(k) = head {
            debug_assert_eq!(f.len(), 1, "a head key only for an empty queue");
            debug_assert!(k.time >= self.now && t_end >= k.time);
            let b = self.start_link[fifo as usize];
            self.fold_resume[b as usize] = k.resume;
            self.pass_heap.push(Entry { time: k.time.0, sk: k.seq << KIND_BITS, a: fifo, b: PASS_START });
            self.next_pass = self.pass_heap.0[0].key();
            self.sync_pass();
        }
    }

    /// Fold the hop whose arrival X would be at `(t_x, s_x)` (`s_x` reserved by the
    /// caller, as `at` would have taken it) on feeder `fifo`: when the pop loop passes
    /// that key it does what X's handler does to the event order -- the far-end arrival
    /// F of `pkt` on `l2` is scheduled at `far` with the next sequence number, and the
    /// number after it is `l2`'s resume ([`Scheduler::resume_of`]) -- and delivers
    /// nothing. The caller has done the rest of X's handler (`l2`'s transmission).
    /// With `credit`, `pkt` is not a packet but a [`credit_word`]: F is an elided delivery
    /// of that size to that UDP sink (counters in `udp_sinks`), which the pass credits at
    /// F's key, as X's handler would have (`Network::elide_udp_arrival`), scheduling
    /// nothing.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn at_fold(&mut self, fifo: u32, t_x: SimTime, s_x: u64, far: SimTime, l2: u32, pkt: PktId, credit: bool) {
        debug_assert!(t_x >= self.now && far > t_x);
        assert!(s_x < 1 << (64 - KIND_BITS), "sequence number overflow");
        let l2 = if credit { l2 | CREDIT } else { l2 };
        let p = Pass { time: t_x.0, sk: s_x << KIND_BITS, far: far.0, l2, pkt };
        let f = &mut self.pass_fifos[fifo as usize];
        // A feeder's arrivals reach its far node in transmission order: a transmission
        // starts no earlier than the previous one's end, so `t_x` never decreases, and
        // `s_x` increases.
        debug_assert!(f.back().is_none_or(|b| (b.time, b.sk) < (p.time, p.sk)), "a feeder's passes in key order");
        f.push_back(p);
        if f.len() == 1 {
            self.pass_heap.push(Entry { time: p.time, sk: p.sk, a: fifo, b: PASS_FOLD });
            self.next_pass = self.pass_heap.0[0].key();
            self.sync_pass();
        }
    }

    /// The pop loop passes the oldest pending pass (`next_pass`, before every queued
    /// event): F gets the next sequence number, `l2`'s resume the one after (module
    /// docs, 6.). F is queued, or credited to its UDP sink from X's key (the loop
    /// position X's handler would have credited it at).
    #[inline(always)]
    fn run_pass(&mut self) {
        if self.pass_heap.0[0].b == PASS_START {
            return self.run_start();
        }
        let fi = self.pass_heap.0[0].a;
        let f = &mut self.pass_fifos[fi as usize];
        let p = f.pop_front();
        match f.front() {
            Some(n) => self.pass_heap.replace_top(Entry { time: n.time, sk: n.sk, a: fi, b: PASS_FOLD }),
            None => self.pass_heap.remove_top(),
        }
        self.next_pass = self.pass_heap.top().map_or(u128::MAX, Entry::key);
        self.sync_pass();
        // X's handler runs at X's time: F's lane offset is taken from it.
        self.now = SimTime(p.time);
        let s_f = self.seq + 1;
        assert!(s_f + 1 < 1 << (64 - KIND_BITS), "sequence number overflow");
        let l2 = p.l2 & !CREDIT;
        if p.l2 & CREDIT == 0 {
            self.insert_arrival(p.far, s_f, l2, p.pkt);
        } else {
            self.credit_pass(&p, s_f);
        }
        self.seq = s_f + 1;
        self.fold_resume[l2 as usize] = s_f + 1;
        self.folded += 1;
    }

    /// A start pass (`run_pass`; module docs, 6., start passes): the computed queue's head begins its
    /// transmission at the key of the transmission-done before it. Its arrival X takes
    /// the next number, its resume the one after; X becomes the fold's pass on this
    /// feeder or an arrival event, and the queue's next packet (if any) starts at this
    /// one's end with this resume number.
    #[inline(never)]
    fn run_start(&mut self) {
        let top = self.pass_heap.0[0];
        let fi = top.a as usize;
        let f = &mut self.start_fifos[fi];
        let e = f.pop_front();
        let s_x = self.seq + 1;
        let r = s_x + 1;
        assert!(r < 1 << (64 - KIND_BITS), "sequence number overflow");
        self.seq = r;
        match f.front() {
            // The next starts at this one's end, with this resume number; one entered
            // ahead of its arrival at the then idle link (`Network::try_lookahead`) at
            // that arrival's key.
            Some(n) => {
                let (t, s) = if n.arr.0 > e.t_end { n.arr } else { (e.t_end, r) };
                self.pass_heap.replace_top(Entry { time: t, sk: s << KIND_BITS, a: top.a, b: PASS_START })
            }
            None => self.pass_heap.remove_top(),
        }
        // The transmission-done's handler runs at its time: X's lane offset is taken from it.
        self.now = SimTime(top.time);
        let b = self.start_link[fi];
        self.fold_resume[b as usize] = r;
        self.next_pass = self.pass_heap.top().map_or(u128::MAX, Entry::key);
        self.sync_pass();
        if e.l2 == NO_FOLD {
            self.insert_arrival(e.t_x, s_x, b, e.pkt);
        } else {
            let (l2, pkt, credit) = fold_target(e.l2, e.pkt);
            self.at_fold(top.a, SimTime(e.t_x), s_x, SimTime(e.far), l2, pkt, credit.is_some());
        }
        self.vq_starts += 1;
    }

    /// The packets waiting in computed queues ([`PendingStart`]): they have not started
    /// transmitting.
    pub fn pending_starts(&self) -> impl Iterator<Item = PendingStart> + '_ {
        self.start_fifos.iter().zip(&self.start_link).flat_map(|(f, &b)| {
            f.iter().map(move |e| {
                let (l2, pkt, size) = match e.l2 {
                    NO_FOLD => (NO_FOLD, e.pkt, None),
                    l2 => fold_target(l2, e.pkt),
                };
                PendingStart { link: b, pkt, l2, size, arr: e.arr }
            })
        })
    }

    /// A credited pass (`run_pass`): F, numbered `s_f`, is credited to `l2`'s UDP sink
    /// at the loop position X's handler would have credited it at. Out of line: inlined,
    /// the TCP folds' passes cost more (callgrind, bench b: 2 004.5 -> 2 011.4 M
    /// instructions; a Fig. 17 task gains 8 M).
    #[inline(never)]
    fn credit_pass(&mut self, p: &Pass, s_f: u64) {
        self.udp_sinks.credit_ahead(p.pkt >> 16, (p.time, p.sk >> KIND_BITS), p.far, s_f, p.pkt & 0xFFFF);
        self.folded_credits += 1;
    }

    /// The resume number of a link whose `resume_seq` is `resume`: itself, or for a
    /// transmission a folded hop started ([`VIRT_RESUME`]) the one its pass took (the
    /// pass is always done before anything reads the link again).
    #[inline(always)]
    pub fn resume_of(&self, l: u32, resume: u64) -> u64 {
        if resume != VIRT_RESUME {
            resume
        } else {
            self.fold_resume[l as usize]
        }
    }

    /// Does the current event fire before the resume `resume` of link `l`
    /// ([`Scheduler::resume_of`])? `Link::busy` at exactly `busy_until`.
    #[inline(always)]
    pub fn before_resume(&self, l: u32, resume: u64) -> bool {
        self.cur_seq < self.resume_of(l, resume)
    }

    /// Schedule link `l`'s `TxDone` at `at` with its resume number `resume`
    /// ([`Scheduler::resume_of`]).
    #[inline(always)]
    pub fn at_resume(&mut self, at: SimTime, resume: u64, l: u32) {
        let r = self.resume_of(l, resume);
        self.at_seq(at, r, Event::TxDone { link: l });
    }

    /// The folds whose pass the loop has not done yet, as `(l2, pkt, size)`: `size` is
    /// given for a credited pass (its packet is freed), else `pkt` is F's packet. Their
    /// arrival on `l2` has not happened.
    pub fn pending_folds(&self) -> impl Iterator<Item = (u32, PktId, Option<u32>)> + '_ {
        self.pass_fifos.iter().flat_map(|f| f.iter().map(|p| fold_target(p.l2, p.pkt)))
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
        self.pop_tracking::<false>(until, &mut 0)
    }

    /// [`Scheduler::pop`]; with `TRACK_LANE`, an arrival popped from a lane also
    /// writes its lane to `lane`, for [`Scheduler::lane_ahead`] (a separate instance, so
    /// that runs that do not prefetch pay nothing for it).
    #[inline(always)]
    pub fn pop_tracking<const TRACK_LANE: bool>(&mut self, until: SimTime, lane: &mut u32) -> Option<Event> {
        debug_assert_eq!(self.mux_root, 0, "a multiplexer event's handler ends with mux_arm or mux_idle");
        loop {
            // The next event is the main heap's minimum unless the smaller of the next
            // pass and the timer heap's minimum (`next_aux`) comes first.
            let main = self.heap.top().map_or(u128::MAX, Entry::key);
            if main < self.next_aux {
                let top = self.heap.0[0];
                if top.time > until.0 {
                    return None;
                }
                if top.sk & KIND_MASK == K_LANE {
                    // Most events are lane heads: tested first, with a plain (well
                    // predicted) branch rather than through the jump table below.
                    // The entry carries the head arrival itself (see `lane_entry`), so the
                    // event does not wait for a load from the lane's buffer.
                    let h = (top.sk >> 4) as usize & (LANE_TAB - 1);
                    debug_assert!({
                        let l = &self.lanes[h];
                        let e = *l.q.front().expect("a lane in the heap holds an arrival");
                        e.time == top.time && e.sk == top.sk && e.a == top.a && e.b == top.b
                    });
                    if TRACK_LANE {
                        *lane = h as u32;
                    }
                    match self.lanes[h].pop_front() {
                        // The lane's next arrival becomes its representative.
                        Some(n) => self.heap.replace_top(n),
                        None => self.heap.remove_top(),
                    }
                    self.fire(top);
                    return Some(Event::Arrive { link: top.a, pkt: top.b });
                }
                let ev = if top.sk & KIND_MASK == K_MUX {
                    // Left at the root until the multiplexer re-arms (`mux_arm`).
                    self.mux_root = top.sk;
                    Event::App { app: top.a, token: 0 }
                } else {
                    self.heap.remove_top();
                    match top.sk & KIND_MASK {
                        K_ARRIVE => Event::Arrive { link: top.a, pkt: top.b },
                        K_TXDONE => Event::TxDone { link: top.a },
                        K_RAWTIMER => Event::Timer { agent: top.a, timer: (top.sk >> 4) as u8, gen: top.b },
                        K_ELEM => Event::Element { elem: top.a, token: top.b },
                        _ => {
                            debug_assert_eq!(top.sk & KIND_MASK, K_APP);
                            Event::App { app: top.a, token: top.b }
                        }
                    }
                };
                self.fire(top);
                return Some(ev);
            }
            if self.next_aux == self.next_pass {
                // A folded hop's pass comes before every queued event (module docs, 6.),
                // or nothing is pending (both `u128::MAX`).
                if (self.next_pass >> 64) as u64 > until.0 || self.next_pass == u128::MAX {
                    return None;
                }
                self.run_pass();
                continue;
            }
            // The timers' minimum (`next_timer`) is a park lane's head or a slot's entry.
            let parked = self.pheap.top().is_some_and(|p| p.key() == self.next_timer);
            let top = if parked { self.pheap.0[0] } else { self.theap.0[0] };
            if top.time > until.0 {
                return None;
            }
            let ev = if parked {
                let ev = self.pop_parked::<TRACK_LANE>(top);
                self.sync_aux();
                match ev {
                    Some(ev) => ev,
                    None => continue,
                }
            } else {
                debug_assert_eq!(top.sk & KIND_MASK, K_TIMER);
                let slot = &mut self.timers[top.a as usize];
                match slot.take(&top) {
                    Queued::Stale => {
                        self.theap.remove_top();
                        self.sync_aux();
                        continue;
                    }
                    Queued::Moved(e) => {
                        self.timer_replace_top(e);
                        self.sync_aux();
                        continue;
                    }
                    Queued::Due => {}
                }
                slot.queued = false;
                let ev = Event::Timer { agent: slot.agent, timer: slot.timer, gen: slot.gen };
                self.theap.remove_top();
                self.sync_aux();
                ev
            };
            self.fire(top);
            return Some(ev);
        }
    }

    /// The arrival `d` places behind the head of lane `lane` (as reported by
    /// [`Scheduler::pop_tracking`]; `d = 0`: the lane's next arrival), as `(link,
    /// packet)`, if the lane holds that many: what the next events of that lane will
    /// touch, for prefetching (`Simulation::prefetch_lane`). Reads nothing but the lane.
    #[inline(always)]
    pub fn lane_ahead(&self, lane: u32, d: usize) -> Option<(u32, PktId)> {
        let l = &self.lanes[lane as usize & (LANE_TAB - 1)];
        l.q.get(d).map(|e| (e.a, e.b))
    }

    /// The slot of the timer heap's minimum (the next timer slot due, unless it is
    /// re-armed first), for prefetching (`Simulation::prefetch_timers`). Reads nothing but
    /// the heap's root.
    #[inline(always)]
    pub fn timer_ahead(&self) -> Option<u32> {
        self.theap.top().map(|e| e.a)
    }

    /// The timer slots the latest opening of far buckets moved into the timer heap (due
    /// within about a bucket's width from then), in the order moved, with a number that
    /// changes at each opening: for prefetching (`Simulation::prefetch_opened`). Their
    /// slots were read when they were moved.
    #[inline(always)]
    pub fn opened_timers(&self) -> (u32, &[u32]) {
        (self.opened_gen, &self.opened)
    }

    /// Hint timer slot `slot`'s line, if it exists.
    #[inline(always)]
    pub fn prefetch_slot(&self, slot: u32) {
        crate::prefetch::elem(&self.timers, slot as usize);
    }

    /// The agent owning timer slot `slot` (reads the slot: call it after
    /// [`Scheduler::prefetch_slot`]), if the slot exists.
    #[inline(always)]
    pub fn slot_agent(&self, slot: u32) -> Option<u32> {
        self.timers.get(slot as usize).map(|s| s.agent)
    }

    /// Hint timer `t`'s slot (`crate::prefetch`), if it has one.
    #[inline(always)]
    pub fn prefetch_timer(&self, t: &Timer) {
        crate::prefetch::elem(&self.timers, t.index() as usize);
    }

    /// The clock and the current sequence number of the event `pop` hands out for entry
    /// `top`.
    #[inline(always)]
    fn fire(&mut self, top: Entry) {
        self.now = SimTime(top.time);
        self.cur_seq = top.seq();
        self.fired += 1;
    }

    /// `next_timer` and `next_aux` after the timer heap changed.
    #[inline(always)]
    fn sync_aux(&mut self) {
        let parked = self.pheap.top().map_or(u128::MAX, Entry::key);
        let next = self.theap.top().map_or(u128::MAX, Entry::key).min(parked);
        self.next_timer = if (next >> 64) as u64 >= self.horizon && self.horizon != u64::MAX {
            self.open_far();
            self.theap.top().map_or(u128::MAX, Entry::key).min(parked)
        } else {
            next
        };
        self.sync_pass();
    }

    /// `next_aux` after `next_pass` changed.
    #[inline(always)]
    fn sync_pass(&mut self) {
        self.next_aux = self.next_pass.min(self.next_timer);
    }

    /// Set the clock (used once at the end of a run to report the stop time).
    pub fn advance_to(&mut self, t: SimTime) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Queued entries (arrivals in lanes, other events, timer entries, park-lane
    /// entries).
    pub fn pending(&self) -> usize {
        let lanes: usize = self.lanes.iter().map(|l| l.q.len()).sum();
        let heads = self.lanes.iter().filter(|l| !l.q.is_empty()).count();
        let parked: usize = self.park_lanes.iter().map(|l| l.len as usize).sum();
        let park_heads = self.park_lanes.iter().filter(|l| l.len > 0).count();
        let passes: usize = self.pass_fifos.iter().map(|f| f.len()).sum::<usize>()
            + self.start_fifos.iter().map(|f| f.len()).sum::<usize>();
        let far = self.far.as_ref().map_or(0, |f| f.len);
        self.heap.0.len() + self.theap.0.len() + self.pheap.0.len() + far - heads - park_heads + lanes + parked + passes
    }

    // ------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------

    #[inline(always)]
    fn insert(&mut self, time: u64, seq: u64, ev: Event) {
        assert!(seq < 1 << (64 - KIND_BITS), "sequence number overflow");
        let sk = seq << KIND_BITS;
        match ev {
            Event::Arrive { link, pkt } => self.insert_arrival(time, seq, link, pkt),
            Event::TxDone { link } => self.heap.push(Entry { time, sk: sk | K_TXDONE, a: link, b: 0 }),
            Event::App { app, token } => self.heap.push(Entry { time, sk: sk | K_APP, a: app, b: token }),
            Event::Element { elem, token } => self.heap.push(Entry { time, sk: sk | K_ELEM, a: elem, b: token }),
            // A timer event scheduled directly (not through `Timer`): a plain entry.
            Event::Timer { agent, timer, gen } => {
                self.heap.push(Entry { time, sk: sk | (timer as u64) << 4 | K_RAWTIMER, a: agent, b: gen })
            }
        }
    }

    /// Queue an arrival: appended to the lane of its offset `time - now` when that
    /// keeps the lane sorted (always, for arrivals scheduled with `at`), else an
    /// ordinary heap entry. See the module docs.
    #[inline(always)]
    fn insert_arrival(&mut self, time: u64, seq: u64, link: u32, pkt: PktId) {
        let delta = time.wrapping_sub(self.now.0);
        let h = lane_slot(delta);
        let lane = &mut self.lanes[h];
        let e = lane_entry(h, time, seq, link, pkt);
        if lane.q.is_empty() {
            // An idle lane (never used, or drained) is taken over for this offset.
            lane.delta = delta;
            lane.push_back(e);
            self.heap.push(e);
        } else if lane.delta == delta && (lane.back_time, lane.back_sk) < (time, e.sk) {
            lane.push_back(e);
        } else {
            // Another offset's busy lane, or out of lane order: an ordinary heap entry
            // (still exact, just slower).
            self.heap.push(Entry { time, sk: seq << KIND_BITS | K_ARRIVE, a: link, b: pkt });
        }
    }

    fn new_timer_slot(&mut self, agent: u32, timer: u8) -> u32 {
        assert!(self.timers.len() < NO_SLOT as usize, "too many timers (at most 2^30 - 1)");
        let cap = self.timers.capacity();
        grow_by_eighth(&mut self.timers, 64);
        if self.timers.capacity() != cap && self.far.is_some() {
            // A large run: back the new room with huge pages.
            crate::sim::advise_huge_pages(&self.timers);
        }
        self.timers.push(TimerSlot {
            due: 0,
            due_seq: 0,
            gen: 0,
            agent,
            timer,
            queued: false,
            queued_time: 0,
            queued_sk: 0,
            parked: false,
            in_far: false,
            node: NO_NODE,
        });
        (self.timers.len() - 1) as u32
    }

    /// Arm timer slot `slot` to fire at `at` (see [`Timer::resched`]).
    #[inline(always)]
    fn arm_timer(&mut self, slot: u32, at: SimTime, gen: u32, agent: u32, timer: u8) {
        let seq = self.reserve_seq();
        assert!(seq < 1 << (64 - KIND_BITS), "sequence number overflow");
        let sk = seq << KIND_BITS | K_TIMER;
        let s = &mut self.timers[slot as usize];
        s.due = at.0;
        s.due_seq = seq;
        s.gen = gen;
        s.agent = agent;
        s.timer = timer;
        // A parked timer re-armed: its park-lane entry goes stale (`queued` is false
        // while parked, so an entry is queued below).
        if s.node != NO_NODE {
            self.park_nodes[s.node as usize].slot |= NODE_DEAD;
            s.node = NO_NODE;
        }
        s.parked = false;
        // Keep the queued entry if it pops no later than the new due key: it will be
        // moved to the due key when it pops. Otherwise queue a new, earlier entry.
        if !s.queued || (s.queued_time, s.queued_sk) > (at.0, sk) {
            s.queued = true;
            s.queued_time = at.0;
            s.queued_sk = sk;
            // Set again by `far_push` if the entry goes there.
            s.in_far = false;
            self.timer_push(Entry { time: at.0, sk, a: slot, b: 0 });
            self.sync_aux();
        }
    }

    /// Arm timer slot `slot` to fire at `at` and park it with `period` (see
    /// [`Timer::park`]): the sequence number is taken now, as `arm_timer` takes it.
    fn park_timer(&mut self, slot: u32, at: SimTime, gen: u32, agent: u32, timer: u8, period: u64) {
        assert!(period > 0, "a parked timer needs a positive period");
        let seq = self.reserve_seq();
        assert!(seq < 1 << (64 - KIND_BITS), "sequence number overflow");
        let s = &mut self.timers[slot as usize];
        s.due = at.0;
        s.due_seq = seq;
        s.gen = gen;
        s.agent = agent;
        s.timer = timer;
        // A queued timer-heap entry of the slot is now stale (dropped when it pops), and
        // so is its entry in a park lane if it has one (parked again).
        s.queued = false;
        let old = s.node;
        s.parked = true;
        if old != NO_NODE {
            self.park_nodes[old as usize].slot |= NODE_DEAD;
        }
        let lane = match self.park_lane_of.get(&period) {
            Some(&l) => l,
            None => {
                self.park_lanes.push(ParkLane { period, head: NO_NODE, tail: NO_NODE, len: 0 });
                let l = (self.park_lanes.len() - 1) as u32;
                self.park_lane_of.insert(period, l);
                l
            }
        };
        let node = self.park_push(lane, ParkNode { time: at.0, seq, slot, next: NO_NODE });
        self.timers[slot as usize].node = node;
    }

    /// Append node `e` to park lane `lane` and return its index; the lane's first entry
    /// puts the lane in the park heads heap. Entries are appended at `clock + period` with a
    /// fresh sequence number, so a lane stays sorted (checked).
    #[inline]
    fn park_push(&mut self, lane: u32, e: ParkNode) -> u32 {
        let n = if self.park_free != NO_NODE {
            let n = self.park_free;
            self.park_free = self.park_nodes[n as usize].next;
            self.park_nodes[n as usize] = e;
            n
        } else {
            assert!(self.park_nodes.len() < NO_NODE as usize, "too many parked timers");
            // With 10^5 idle connections the park lanes hold one node each: an eighth
            // more when full, not doubling.
            grow_by_eighth(&mut self.park_nodes, 64);
            self.park_nodes.push(e);
            (self.park_nodes.len() - 1) as u32
        };
        let l = &mut self.park_lanes[lane as usize];
        if l.len == 0 {
            l.head = n;
        } else {
            let b = &mut self.park_nodes[l.tail as usize];
            assert!((b.time, b.seq) < (e.time, e.seq), "park lane out of order");
            b.next = n;
        }
        l.tail = n;
        l.len += 1;
        if l.len == 1 {
            self.pheap.push(Entry { time: e.time, sk: e.seq << KIND_BITS | K_PARKED, a: lane, b: 0 });
            self.sync_aux();
        }
        n
    }

    /// The head of a park lane is the next timer (`top`, the park heads heap's top): drop
    /// it if stale, re-arm it if its timer is still parked (a firing that changes
    /// nothing, not delivered), or deliver it if the timer was unparked.
    #[inline(never)]
    fn pop_parked<const PREFETCH: bool>(&mut self, top: Entry) -> Option<Event> {
        let lane = top.a;
        let Scheduler { park_lanes, park_nodes, .. } = self;
        let l = &mut park_lanes[lane as usize];
        let period = l.period;
        let h = l.head;
        let e = park_nodes[h as usize];
        debug_assert!(l.len > 0 && e.time == top.time && e.seq == top.seq());
        let mut ev = None;
        if e.slot & (NODE_DEAD | NODE_WOKEN) == 0 {
            // Still parked: the firing the handler would have re-armed from, with the
            // same sequence number it would have taken and the same due time. The node
            // is updated in place and moved to the lane's tail.
            self.seq += 1;
            assert!(self.seq < 1 << (64 - KIND_BITS), "sequence number overflow");
            let n = ParkNode { time: e.time + period, seq: self.seq, slot: e.slot, next: NO_NODE };
            self.parked_rearms += 1;
            if l.len > 1 {
                let b = &mut park_nodes[l.tail as usize];
                assert!((b.time, b.seq) < (n.time, n.seq), "park lane out of order");
                b.next = h;
                l.head = e.next;
                l.tail = h;
            }
            park_nodes[h as usize] = n;
        } else {
            if e.slot & NODE_DEAD == 0 {
                // Unparked: this firing is delivered.
                let s = &mut self.timers[(e.slot & SLOT_MASK) as usize];
                debug_assert!(s.node == h && s.due == e.time && s.due_seq == e.seq);
                s.node = NO_NODE;
                ev = Some(Event::Timer { agent: s.agent, timer: s.timer, gen: s.gen });
            }
            l.head = e.next;
            l.len -= 1;
            park_nodes[h as usize].next = self.park_free;
            self.park_free = h;
        }
        let l = &self.park_lanes[lane as usize];
        if l.len > 0 {
            let n = self.park_nodes[l.head as usize];
            // The lane's node after the new head, re-armed about one re-arm of every
            // other lane from now (large runs).
            if PREFETCH {
                crate::prefetch::elem(&self.park_nodes, n.next as usize);
            }
            self.pheap.replace_top(Entry { time: n.time, sk: n.seq << KIND_BITS | K_PARKED, a: lane, b: 0 });
        } else {
            self.pheap.remove_top();
        }
        ev
    }

    /// Queue a timer slot's entry `e`: in the timer heap if due before the horizon, else
    /// in the far buckets (module docs, 7.). (A park lane's head always goes into the
    /// heap: there are a few hundred at most.)
    #[inline(always)]
    fn timer_push(&mut self, e: Entry) {
        if e.time < self.horizon {
            self.theap.push(e);
        } else {
            self.far_push(e);
        }
    }

    /// Replace the timer heap's minimum by `e` (as `timer_push`).
    #[inline(always)]
    fn timer_replace_top(&mut self, e: Entry) {
        if e.time < self.horizon {
            self.theap.replace_top(e);
        } else {
            self.theap.remove_top();
            self.far_push(e);
        }
    }

    /// `e`, the queued entry of timer slot `e.a`, is due at or after the horizon: into
    /// the far buckets, as its slot's index (without them, the horizon is `u64::MAX`
    /// and `e` is due then: into the heap).
    #[inline(never)]
    fn far_push(&mut self, e: Entry) {
        match &mut self.far {
            Some(f) => {
                debug_assert_eq!(e.sk & KIND_MASK, K_TIMER);
                let s = &mut self.timers[e.a as usize];
                debug_assert!(s.queued && s.queued_time == e.time && s.queued_sk == e.sk);
                s.in_far = true;
                f.push(e.time, e.a);
            }
            None => self.theap.push(e),
        }
    }

    /// Keep the timer slots' entries due after a horizon out of the timer heap, in
    /// buckets of `2^width_bits` ns, `buckets` (a power of two) of them in a ring (module
    /// docs, 7.; large runs, `Simulation::new`).
    pub fn enable_far_timers(&mut self, width_bits: u32, buckets: usize) {
        assert!(self.far.is_none(), "far timers enabled twice");
        let f = far::FarTimers::new(width_bits, buckets, (self.now.0 >> width_bits) + 1);
        self.horizon = f.horizon();
        self.far = Some(Box::new(f));
        if self.horizon == u64::MAX {
            self.far = None;
        }
    }

    /// Back to the one timer heap (tests compare runs with and without far timers).
    #[cfg(test)]
    pub(crate) fn disable_far_timers(&mut self) {
        if let Some(mut f) = self.far.take() {
            drain_far(&mut f, &mut self.timers, &mut self.theap);
            self.horizon = u64::MAX;
            self.sync_aux();
        }
    }

    /// The timers' minimum (the timer heap's and the park lanes' heads') is not before
    /// the horizon (or there is none), with far entries waiting (`sync_aux`): open the
    /// horizon's buckets until it is (or none is left). An opened
    /// bucket's entries go into the heap, except those the pop loop would only drop or
    /// move when they reach the heap's top: a stale entry (its slot re-armed earlier,
    /// or parked, since) is dropped, and the entry of a timer pushed back since it was
    /// queued is moved to the due key at once (into the heap or a later bucket), which
    /// is what the pop loop would do (module docs, 2.) without delivering or numbering
    /// anything. Their slots are hinted a chunk at a time, so that their misses overlap.
    #[cold]
    #[inline(never)]
    fn open_far(&mut self) {
        // A large run's main heap held every application's start at once when it was
        // built; the timer heap may have held a burst. Give back what they no longer
        // use (here: about once per far bucket, never on the hot path).
        self.heap.trim();
        self.theap.trim();
        // A park lane's head before the horizon stops the opening as a timer entry does
        // (the next timer is then before the horizon).
        let parked = self.pheap.top().map_or(u64::MAX, |e| e.time);
        let Scheduler { far, theap, timers, horizon, opened, opened_gen, .. } = self;
        let mut first = true;
        while theap.top().is_none_or(|e| e.time >= *horizon) && parked >= *horizon {
            let Some(f) = far.as_mut() else { return };
            if f.len == 0 {
                return;
            }
            if first {
                // This opening's timers replace the last one's (`opened_timers`).
                first = false;
                opened.clear();
                *opened_gen = opened_gen.wrapping_add(1);
            }
            f.open(|f, k, chunk| {
                for &slot in chunk {
                    crate::prefetch::elem(timers, slot as usize);
                }
                let h = f.horizon();
                for &slot in chunk {
                    let s = &mut timers[slot as usize];
                    let Some(e) = far_live(s, slot, Some((k, f.width_bits))) else { continue };
                    match s.take(&e) {
                        Queued::Stale => unreachable!("a far slot's live entry is not stale"),
                        Queued::Moved(n) => {
                            if n.time < h || h == u64::MAX {
                                theap.push(n);
                                opened.push(slot);
                            } else {
                                s.in_far = true;
                                f.push(n.time, slot);
                            }
                        }
                        Queued::Due => {
                            theap.push(e);
                            opened.push(slot);
                        }
                    }
                }
            });
            *horizon = f.horizon();
            if *horizon == u64::MAX {
                // The next bucket would end past the end of time: the heap takes all.
                drain_far(f, timers, theap);
                *far = None;
            }
        }
    }

    /// Timer slot `slot` is no longer parked: its next firing is delivered.
    fn unpark_timer(&mut self, slot: u32) {
        let s = &mut self.timers[slot as usize];
        s.parked = false;
        if s.node != NO_NODE {
            // The node has the key the re-arms reached: the slot takes it, and the node
            // is delivered when it pops.
            let n = &mut self.park_nodes[s.node as usize];
            debug_assert!(n.slot & (NODE_DEAD | NODE_WOKEN) == 0);
            n.slot |= NODE_WOKEN;
            s.due = n.time;
            s.due_seq = n.seq;
        }
    }
}

/// The live entry of timer slot `slot` (`s`) that a far bucket's index of the slot
/// stands for, if any (module docs, 7.; `far`): the slot's queued entry if it waits in
/// the far buckets and (with `bucket = Some((k, width_bits))`, a bucket being opened) is
/// due in bucket `k`; `None` for a stale index. Taking it clears `in_far`, so a second
/// index of the slot met later is stale.
#[inline(always)]
fn far_live(s: &mut TimerSlot, slot: u32, bucket: Option<(u64, u32)>) -> Option<Entry> {
    if !s.queued || !s.in_far || bucket.is_some_and(|(k, w)| s.queued_time >> w != k) {
        return None;
    }
    s.in_far = false;
    Some(Entry { time: s.queued_time, sk: s.queued_sk, a: slot, b: 0 })
}

/// Empty the far timers into the timer heap: every slot's live entry waiting there
/// (`far_live`; the stale indices are dropped). When the far timers are switched off.
fn drain_far(f: &mut far::FarTimers, timers: &mut [TimerSlot], theap: &mut Heap) {
    f.drain_all(|slot| {
        if let Some(e) = far_live(&mut timers[slot as usize], slot, None) {
            theap.push(e);
        }
    });
}

/// A binary min-heap of entries on `Entry::key()`.
///
/// The sifts index with `at` / `set`, unchecked: every index they use is below the
/// length, by the loop conditions written next to them.
#[derive(Default)]
struct Heap(Vec<Entry>);

impl Heap {
    /// Give back room when the heap holds under a quarter of its capacity (and the
    /// capacity is above `TRIM_MIN` entries): down to twice its length, so that a heap
    /// that grows again pays one doubling, amortised.
    fn trim(&mut self) {
        const TRIM_MIN: usize = 4096;
        let (len, cap) = (self.0.len(), self.0.capacity());
        if cap > TRIM_MIN && len < cap / 4 {
            self.0.shrink_to((2 * len).max(TRIM_MIN));
        }
    }

    #[inline(always)]
    fn top(&self) -> Option<&Entry> {
        self.0.first()
    }

    /// Entry `i < len` (unchecked; debug-asserted).
    #[inline(always)]
    fn at(h: &[Entry], i: usize) -> Entry {
        debug_assert!(i < h.len());
        // SAFETY: every caller passes `i < h.len()` (see the sifts).
        unsafe { *h.get_unchecked(i) }
    }

    /// Set entry `i < len` (unchecked; debug-asserted).
    #[inline(always)]
    fn set(h: &mut [Entry], i: usize, e: Entry) {
        debug_assert!(i < h.len());
        // SAFETY: every caller passes `i < h.len()` (see the sifts).
        unsafe { *h.get_unchecked_mut(i) = e }
    }

    #[inline(always)]
    fn push(&mut self, e: Entry) {
        let key = e.key();
        let mut i = self.0.len();
        self.0.push(e);
        let h = &mut self.0[..];
        // Sift up with a hole. `i < h.len()` (the new last index), and a parent is
        // below its child.
        while i > 0 {
            let p = (i - 1) / 2;
            let pe = Self::at(h, p);
            if pe.key() <= key {
                break;
            }
            Self::set(h, i, pe);
            i = p;
        }
        Self::set(h, i, e);
    }

    /// Remove the minimum.
    #[inline(always)]
    fn remove_top(&mut self) {
        let last = self.0.pop().expect("non-empty heap");
        if !self.0.is_empty() {
            self.replace_top(last);
        }
    }

    /// Replace the minimum by `e` and restore the heap order (sift down with a hole).
    ///
    /// The smaller child is chosen without a branch (`l + (right < left)`); nodes with
    /// two children are handled in the loop, a last node with a single child after it,
    /// so the loop needs no "does the right child exist" test. The bounds are written
    /// against the last index: `l < last` (both children exist) or `l == last`, and
    /// `i` is always 0 or a child taken that way, so every index is `<= last`.
    #[inline(always)]
    fn replace_top(&mut self, e: Entry) {
        let key = e.key();
        let h = &mut self.0[..];
        let last = h.len().checked_sub(1).expect("non-empty heap");
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= last {
                if l == last && Self::at(h, l).key() < key {
                    Self::set(h, i, Self::at(h, l));
                    i = l;
                }
                break;
            }
            let (le, re) = (Self::at(h, l), Self::at(h, l + 1));
            let c = l + (re.key() < le.key()) as usize;
            let ce = Self::at(h, c);
            if key <= ce.key() {
                break;
            }
            Self::set(h, i, ce);
            i = c;
        }
        Self::set(h, i, e);
    }
}

/// `Timer::slot` holds the scheduler slot's index in its low 30 bits and two flags
/// above them, so that a `Timer` is 16 bytes (five per TCP connection with its sink;
/// issue 21 item 3). Slot indices stay below `NO_SLOT`.
const SLOT_MASK: u32 = (1 << 30) - 1;
/// The index of a timer that has no slot yet (before its first arming).
const NO_SLOT: u32 = SLOT_MASK;
/// The timer is armed (`due` is meaningful).
const PENDING_BIT: u32 = 1 << 30;
/// The timer is parked.
const PARKED_BIT: u32 = 1 << 31;

/// A cancellable one-shot timer owned by an agent.
///
/// `resched` and `cancel` bump the generation; only an event carrying the current
/// generation makes [`Timer::fire`] return true. The timer owns a slot in the
/// [`Scheduler`] (allocated on first use) that keeps at most one heap entry however
/// often it is re-armed (see the module docs). A `Timer` must be used with one
/// scheduler only, and is deliberately neither `Clone` nor `Copy`: two copies would
/// share a slot.
///
/// A timer whose firings would change nothing but re-arm it may be *parked*
/// ([`Timer::park`]): the scheduler then re-arms it every period itself, with no event
/// (module docs, 4.). It stays pending. Its owner must call [`Timer::unpark`] before
/// changing anything the firing depends on (and before `cancel`); the next firing is
/// then delivered as usual, at the key the re-arms reached. While parked, `due` is the
/// first firing's time, not the next one's.
#[derive(Debug)]
pub struct Timer {
    gen: u32,
    /// The scheduler slot's index (`NO_SLOT` before first use), with `PENDING_BIT`
    /// and `PARKED_BIT`.
    slot: u32,
    /// When the timer is due, while `PENDING_BIT` is set.
    due: SimTime,
}

impl Default for Timer {
    fn default() -> Self {
        Timer { gen: 0, slot: NO_SLOT, due: SimTime::ZERO }
    }
}

impl Timer {
    /// The slot's index, without the flags.
    #[inline(always)]
    fn index(&self) -> u32 {
        self.slot & SLOT_MASK
    }

    /// (Re)arm the timer to fire after `delay`. The event fires at the key
    /// `(now + delay, seq)` with `seq` taken now, exactly as `sched.after(delay, ..)`
    /// would have. Always inlined: a sender re-arms its retransmission timer on every
    /// ack, and as a call it cost ~20 instructions of spills and moves (callgrind).
    #[inline(always)]
    pub fn resched(&mut self, sched: &mut Scheduler, delay: SimTime, agent: u32, timer: u8) {
        // Re-arming a parked timer unparks it (`arm_timer` clears the slot's period).
        let at = self.next_arming(sched, delay, agent, timer);
        sched.arm_timer(self.index(), at, self.gen, agent, timer);
    }

    /// What every arming does first: a new generation, the due time `now + delay`, a
    /// slot (taken on first use) with its parked mark cleared. Returns the due time.
    #[inline(always)]
    fn next_arming(&mut self, sched: &mut Scheduler, delay: SimTime, agent: u32, timer: u8) -> SimTime {
        self.gen = self.gen.wrapping_add(1);
        let at = sched.now() + delay;
        self.due = at;
        if self.index() == NO_SLOT {
            self.slot = sched.new_timer_slot(agent, timer);
        }
        self.slot = (self.slot & !PARKED_BIT) | PENDING_BIT;
        at
    }

    /// Arm the timer to fire after `delay` (as [`Timer::resched`]) and park it: each
    /// firing re-arms it `delay` later inside the scheduler, as a handler calling
    /// `resched(delay)` at once would, and nothing is delivered until
    /// [`Timer::unpark`]. For a timer whose firings change nothing while its owner is
    /// untouched (an idle connection's retransmission timer). `delay` must be positive.
    pub fn park(&mut self, sched: &mut Scheduler, delay: SimTime, agent: u32, timer: u8) {
        let at = self.next_arming(sched, delay, agent, timer);
        sched.park_timer(self.index(), at, self.gen, agent, timer, delay.0);
        self.slot |= PARKED_BIT;
    }

    /// Is the timer parked?
    #[inline(always)]
    pub fn is_parked(&self) -> bool {
        self.slot & PARKED_BIT != 0
    }

    /// Stop re-arming a parked timer inside the scheduler: its next firing (at the key
    /// the re-arms reached) is delivered. A timer that is not parked is left alone.
    #[inline]
    pub fn unpark(&mut self, sched: &mut Scheduler) {
        if self.is_parked() {
            self.slot &= !PARKED_BIT;
            sched.unpark_timer(self.index());
        }
    }

    #[inline]
    pub fn cancel(&mut self) {
        debug_assert!(!self.is_parked(), "unpark a parked timer before cancelling it");
        self.gen = self.gen.wrapping_add(1);
        self.slot &= !PENDING_BIT;
    }
    #[inline]
    pub fn pending(&self) -> bool {
        self.slot & PENDING_BIT != 0
    }
    pub fn due(&self) -> Option<SimTime> {
        self.pending().then_some(self.due)
    }
    /// Called when a timer event pops: true if it is the live one (and disarms it).
    #[inline]
    pub fn fire(&mut self, gen: u32) -> bool {
        debug_assert!(!self.is_parked(), "a parked timer's firings are not delivered");
        if self.pending() && gen == self.gen {
            self.slot &= !PENDING_BIT;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests;
