//! A simplex link: a queue in front of a transmitter (rate) and a propagation delay,
//! as ns-2's `SimpleLink` (Queue -> DelayLink).
//!
//! Timing equals ns-2's two-event model (a packet that starts transmission at t reaches
//! the far node at t + size/rate + delay; the next packet starts at t + size/rate), but
//! an idle link needs no "transmission done" event: the link remembers `busy_until`,
//! and a `TxDone` event is scheduled only while packets wait in the queue. An
//! uncongested hop therefore costs one event per packet instead of two.
//!
//! What every link of one rate and delay shares -- the rate, the delay and the memo of
//! serialisation times -- is one [`LinkClass`] (`Network::link_classes`), so a link
//! holds only its per-direction state: with 10^6 connections and four access-link
//! directions each, every byte of `Link` is 4 MB (issue 21 item 3).
//!
//! Exactness at equal times: ns-2 schedules the queue's resume when a transmission
//! starts. We reserve that event's sequence number at the same moment
//! (`resume_seq`) and use it if the event turns out to be needed, so ties with other
//! events resolve exactly as in ns-2.

use crate::engine::Scheduler;
use crate::net::queue::AnyQueue;
use crate::rng::Rng;
use crate::time::{tx_time, SimTime};

/// One direction of a link: what the per-packet path reads and writes, in one cache
/// line (64 bytes, aligned to 64). With 10^6 connections a hop touches a random link
/// of four million, so a link that straddled two lines (80 bytes did, always) cost two
/// misses per hop. What an arrival rarely needs -- the node the link leaves, the element
/// at its far node, random loss, the counters' high words -- is kept beside it in
/// [`Links`].
#[repr(align(64))]
pub struct Link {
    /// The node the link leads to.
    pub dst: u32,
    /// Rate, delay and transmit-time memo: `Network::link_classes[class]`.
    pub class: u32,
    pub queue: AnyQueue,
    /// Time the transmitter finishes the packet currently on the wire.
    pub busy_until: SimTime,
    /// Sequence number reserved for the resume event of the current transmission.
    pub resume_seq: u64,
    /// Packets that arrived ([`Links::arrivals`]), packets dropped ([`Links::drops`]:
    /// by the queue -- filtered acks are counted in `Network::filtered` instead -- and
    /// by random loss after crossing the link) and bytes that started transmission
    /// ([`Links::bytes_departed`]): the low 32 bits of each; a wrap carries into the
    /// link's extra (`LinkExtra::hi`), so no count is ever cut short.
    arrivals_lo: u32,
    drops_lo: u32,
    bytes_lo: u32,
    /// `TXDONE_PENDING`, `PASSTHROUGH`, `TRACED`, `ARRIVE_HOOKS`, `FEEDS_FOLD`, `VQUEUE`,
    /// `LOOKAHEAD`.
    flags: u8,
}

/// `Link::flags` bits. `TXDONE_PENDING`: a `TxDone` event is in the scheduler.
/// `PASSTHROUGH`: the queue is a DropTail that accepts an arrival when empty, so an
/// arrival at an idle link with an empty queue is accepted and dequeued at once:
/// `link_recv` may hand it straight to the transmitter (see [`Link::new`]). `TRACED`:
/// record per-packet events of this link ([`Links::set_traced`]). `ARRIVE_HOOKS`:
/// traced, an element at the far node or random loss -- an arrival has more to do than
/// deliver or forward (one test on the arrival path instead of three). `FEEDS_FOLD`: the
/// hop after this link may be folded (`Network::plan_folds`: this link is the only one
/// feeding some link). `VQUEUE`: the link's queue is computed at enqueue (`Network::vq_enqueue`:
/// a packet's transmission, and the fold of the hop after it, are decided as it joins
/// the queue, and the scheduler's start passes give them their numbers; no `TxDone`).
/// `LOOKAHEAD`: the link feeds a computed queue at its far node that may take its
/// packets ahead of their arrival (`Network::try_lookahead`): its far-end arrivals are
/// decided as it starts sending them, as a fold's feeder's (`FEEDS_FOLD`).
const TXDONE_PENDING: u8 = 1;
const PASSTHROUGH: u8 = 2;
const TRACED: u8 = 4;
const ARRIVE_HOOKS: u8 = 8;
const FEEDS_FOLD: u8 = 16;
const VQUEUE: u8 = 32;
const LOOKAHEAD: u8 = 64;

// A link direction per access link of a connection, four per connection in a large run.
const _: () = assert!(std::mem::size_of::<Link>() == 64);

/// Which of a link's counters (`LinkExtra::hi`).
const ARRIVALS: usize = 0;
const DROPS: usize = 1;
const BYTES: usize = 2;

/// What few links need (`Links::extras`): the element at the far node, random loss, and
/// the high words of the counters once one has passed 2^32.
#[derive(Debug)]
struct LinkExtra {
    /// The element at the far node (`net::element`), or `NO_ELEM` (set with
    /// [`Links::set_dst_elem`]).
    dst_elem: u32,
    /// Uniform random loss on this link, if any (`LinkConfig::loss`; set with
    /// [`Links::set_loss`]).
    loss: Option<RandomLoss>,
    /// Bits 32..64 of the arrivals, drops and bytes (`Link::arrivals_lo`, ...).
    hi: [u32; 3],
}

impl Default for LinkExtra {
    fn default() -> Self {
        LinkExtra { dst_elem: crate::net::element::NO_ELEM, loss: None, hi: [0; 3] }
    }
}

impl LinkExtra {
    /// Does an arrival have something to do here (an element or random loss)?
    fn acts(&self) -> bool {
        self.dst_elem != crate::net::element::NO_ELEM || self.loss.is_some()
    }
}

/// No extra (`Extras::of`).
const NO_EXTRA: u32 = u32::MAX;

/// The extras of the links that have one (`Links::extras`).
#[derive(Default)]
struct Extras {
    /// Per link, its entry in `items` or `NO_EXTRA`, up to the last link with one
    /// (empty while no link has one, as on every link of the large runs).
    of: Vec<u32>,
    items: Vec<LinkExtra>,
}

impl Extras {
    fn get(&self, l: usize) -> Option<&LinkExtra> {
        let &i = self.of.get(l)?;
        self.items.get(i as usize)
    }
    fn get_mut(&mut self, l: usize) -> Option<&mut LinkExtra> {
        let &i = self.of.get(l)?;
        self.items.get_mut(i as usize)
    }
    /// Link `l`'s extra, made if it has none.
    fn get_or_new(&mut self, l: usize) -> &mut LinkExtra {
        if self.of.len() <= l {
            self.of.resize(l + 1, NO_EXTRA);
        }
        if self.of[l] == NO_EXTRA {
            self.of[l] = self.items.len() as u32;
            self.items.push(LinkExtra::default());
        }
        &mut self.items[self.of[l] as usize]
    }
    /// The counters of link `l` in `wrapped` (bits `1 << ARRIVALS`, ...) wrapped: their
    /// high words go up by one.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, l: u32, wrapped: u8) {
        let x = self.get_or_new(l as usize);
        for k in [ARRIVALS, DROPS, BYTES] {
            if wrapped & 1 << k != 0 {
                x.hi[k] = x.hi[k].checked_add(1).expect("a link counter passed 2^64");
            }
        }
    }
}

/// The links of a network (`Network::links`), indexed by link number: the hot part of
/// each ([`Link`], one cache line; `Links` derefs to the slice of them), the node each
/// leaves, and the extras of the few links that have an element, random loss or a
/// counter past 2^32.
#[derive(Default)]
pub struct Links {
    v: Vec<Link>,
    src: Vec<u32>,
    extras: Extras,
}

impl std::ops::Deref for Links {
    type Target = [Link];
    #[inline(always)]
    fn deref(&self) -> &[Link] {
        &self.v
    }
}

impl std::ops::DerefMut for Links {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Link] {
        &mut self.v
    }
}

impl<const N: usize> From<[(u32, Link); N]> for Links {
    /// Links given as (source node, link) pairs, numbered in order.
    fn from(links: [(u32, Link); N]) -> Links {
        let mut t = Links::default();
        for (src, l) in links {
            t.push(src, l);
        }
        t
    }
}

impl Links {
    /// Room for `n` links; the table of links is backed by huge pages where the
    /// kernel allows (`sim::advise_huge_pages`).
    pub fn with_capacity(n: usize) -> Links {
        let v = Vec::with_capacity(n);
        crate::sim::advise_huge_pages(&v);
        Links { v, src: Vec::with_capacity(n), extras: Extras::default() }
    }

    /// Append `link`, leaving node `src`; returns its number.
    pub fn push(&mut self, src: u32, link: Link) -> u32 {
        self.v.push(link);
        self.src.push(src);
        (self.v.len() - 1) as u32
    }

    /// The node link `l` leaves.
    pub fn src(&self, l: usize) -> u32 {
        self.src[l]
    }

    /// Bytes held by the table (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.v.capacity() * size_of::<Link>()
            + self.src.capacity() * 4
            + self.extras.of.capacity() * 4
            + self.extras.items.capacity() * size_of::<LinkExtra>()
    }

    fn hi(&self, l: usize, k: usize) -> u64 {
        self.extras.get(l).map_or(0, |x| x.hi[k] as u64)
    }

    /// Packets that arrived at link `l` (queued, dropped, filtered or transmitted).
    pub fn arrivals(&self, l: usize) -> u64 {
        self.hi(l, ARRIVALS) << 32 | self.v[l].arrivals_lo as u64
    }
    /// Packets dropped at link `l`: by the queue (buffer management; filtered acks are
    /// counted in `Network::filtered` instead) and by random loss after crossing it.
    pub fn drops(&self, l: usize) -> u64 {
        self.hi(l, DROPS) << 32 | self.v[l].drops_lo as u64
    }
    /// Bytes that started transmission on link `l`.
    pub fn bytes_departed(&self, l: usize) -> u64 {
        self.hi(l, BYTES) << 32 | self.v[l].bytes_lo as u64
    }
    /// Packets that started transmission on link `l`: every arrival is queued, dropped
    /// by the queue (`drops` less the random losses, which happen after crossing),
    /// filtered (`filtered`, this link's entry of `Network::filtered`) or transmitted,
    /// so the count is derived rather than kept.
    pub fn departures(&self, l: usize, filtered: u64) -> u64 {
        let lost = self.loss(l).map_or(0, |x| x.lost);
        self.arrivals(l) - (self.drops(l) - lost) - filtered - self.v[l].queue.len() as u64
    }

    /// Count `arrivals` packets arriving at link `l` (0 or 1), `drops` of them
    /// dropped and `bytes` bytes starting transmission on it; returns the link (indexed
    /// once: the carry of a wrapped counter uses only the extras).
    #[inline(always)]
    fn count(&mut self, l: u32, arrivals: u32, drops: u32, bytes: u32) -> &mut Link {
        let k = &mut self.v[l as usize];
        let (a, wa) = k.arrivals_lo.overflowing_add(arrivals);
        let (d, wd) = k.drops_lo.overflowing_add(drops);
        let (b, wb) = k.bytes_lo.overflowing_add(bytes);
        (k.arrivals_lo, k.drops_lo, k.bytes_lo) = (a, d, b);
        let wrapped = (wa as u8) << ARRIVALS | (wd as u8) << DROPS | (wb as u8) << BYTES;
        if wrapped != 0 {
            self.extras.carry(l, wrapped);
        }
        k
    }
    /// Count an arrival at link `l`; returns the link.
    #[inline(always)]
    pub(crate) fn arrive(&mut self, l: u32) -> &mut Link {
        self.count(l, 1, 0, 0)
    }
    /// Count a drop at link `l`.
    #[inline(always)]
    pub(crate) fn count_drop(&mut self, l: u32) {
        self.count(l, 0, 1, 0);
    }
    /// Count `size` bytes starting transmission on link `l`; returns the link.
    #[inline(always)]
    pub(crate) fn depart(&mut self, l: u32, size: u32) -> &mut Link {
        self.count(l, 0, 0, size)
    }
    /// Count a packet of `size` bytes arriving at link `l` and starting transmission
    /// at once (a folded hop); returns the link.
    #[inline(always)]
    pub(crate) fn arrive_and_depart(&mut self, l: u32, size: u32) -> &mut Link {
        self.count(l, 1, 0, size)
    }
    /// Set the counters of link `l` (tests: counts near a wrap).
    #[cfg(test)]
    pub(crate) fn set_counts(&mut self, l: u32, arrivals: u64, drops: u64, bytes: u64) {
        let k = &mut self.v[l as usize];
        (k.arrivals_lo, k.drops_lo, k.bytes_lo) = (arrivals as u32, drops as u32, bytes as u32);
        if (arrivals | drops | bytes) >> 32 != 0 {
            self.extras.get_or_new(l as usize).hi =
                [(arrivals >> 32) as u32, (drops >> 32) as u32, (bytes >> 32) as u32];
        }
    }

    /// Record link `l`'s per-packet events or not.
    pub fn set_traced(&mut self, l: usize, on: bool) {
        self.v[l].set_flag(TRACED, on);
        self.set_arrive_hooks(l);
    }
    fn set_arrive_hooks(&mut self, l: usize) {
        let on = self.v[l].traced() || self.extras.get(l).is_some_and(LinkExtra::acts);
        self.v[l].set_flag(ARRIVE_HOOKS, on);
    }
    /// Link `l`'s extra, made if it has none.
    fn extra_or_new(&mut self, l: usize) -> &mut LinkExtra {
        self.extras.get_or_new(l)
    }
    /// Lose packets crossing link `l` at random (`None`: no loss).
    pub fn set_loss(&mut self, l: usize, loss: Option<RandomLoss>) {
        if loss.is_some() || self.extras.get(l).is_some() {
            self.extra_or_new(l).loss = loss;
        }
        self.set_arrive_hooks(l);
    }
    /// Link `l`'s random loss, if any.
    pub fn loss(&self, l: usize) -> Option<&RandomLoss> {
        self.extras.get(l).and_then(|x| x.loss.as_ref())
    }
    #[inline]
    pub(crate) fn loss_mut(&mut self, l: usize) -> Option<&mut RandomLoss> {
        self.extras.get_mut(l).and_then(|x| x.loss.as_mut())
    }
    /// Hand arrivals over link `l` at its far node to element `elem` first.
    pub(crate) fn set_dst_elem(&mut self, l: usize, elem: u32) {
        if elem != crate::net::element::NO_ELEM || self.extras.get(l).is_some() {
            self.extra_or_new(l).dst_elem = elem;
        }
        self.set_arrive_hooks(l);
    }
    /// The element at the far node of link `l`, or `NO_ELEM`.
    #[inline]
    pub(crate) fn dst_elem(&self, l: usize) -> u32 {
        self.extras.get(l).map_or(crate::net::element::NO_ELEM, |x| x.dst_elem)
    }
}

/// What the links of one rate and propagation delay share (`Network::link_classes`;
/// `net::build` gives equal (rate, delay) pairs one class).
#[derive(Clone, Debug)]
pub struct LinkClass {
    rate_bps: u64,
    pub delay: SimTime,
    /// Memo of `tx_time` for the last two packet sizes seen (see [`LinkClass::tx_time`]).
    txt_memo: [(u32, SimTime); 2],
}

impl LinkClass {
    pub fn new(rate_bps: u64, delay: SimTime) -> LinkClass {
        // A memo holding only valid pairs (for a size that practically never occurs).
        LinkClass { rate_bps, delay, txt_memo: [(u32::MAX, tx_time(u32::MAX, rate_bps)); 2] }
    }

    #[inline]
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Serialisation time of `bytes` on a link of this class: `time::tx_time`, memoised.
    ///
    /// A link sees one or two packet sizes almost always (data and acks), so the last
    /// two (size, time) pairs are kept; this avoids a 128-bit division per packet. The
    /// value is the same function of (size, rate) whichever link of the class asked
    /// last, so the result is exact.
    #[inline]
    pub fn tx_time(&mut self, bytes: u32) -> SimTime {
        if self.txt_memo[0].0 == bytes {
            return self.txt_memo[0].1;
        }
        if self.txt_memo[1].0 == bytes {
            return self.txt_memo[1].1;
        }
        let t = tx_time(bytes, self.rate_bps);
        // Most recent first; the older entry is evicted.
        self.txt_memo[1] = self.txt_memo[0];
        self.txt_memo[0] = (bytes, t);
        t
    }
}

/// Independent random loss of packets crossing a link, with its own random stream
/// (one per link: adding a lossy link changes no other source's draws).
#[derive(Clone, Debug)]
pub struct RandomLoss {
    pub p: f64,
    pub rng: Rng,
    /// Packets lost so far (also counted in `Link::drops`).
    pub lost: u64,
}

impl RandomLoss {
    /// Draw for one packet: lost?
    #[inline]
    pub fn lose(&mut self) -> bool {
        let lost = self.rng.uniform() < self.p;
        self.lost += lost as u64;
        lost
    }
}

impl Link {
    /// A link to node `dst` of class `class` (`Network::link_classes`); [`Links::push`]
    /// gives it the node it leaves.
    pub fn new(dst: u32, class: u32, queue: AnyQueue) -> Self {
        // Pass-through is exact for DropTail: it has no state but its buffer, so
        // "enqueue into the empty queue, then dequeue" returns the arrival unchanged --
        // provided the enqueue accepts it (and stages change nothing then, see
        // `DropTail::accepts_into_empty`).
        let passthrough = match &queue {
            AnyQueue::DropTail(q) => q.is_empty() && q.accepts_into_empty(),
            _ => false,
        };
        Link {
            dst,
            class,
            queue,
            busy_until: SimTime::ZERO,
            resume_seq: 0,
            arrivals_lo: 0,
            drops_lo: 0,
            bytes_lo: 0,
            flags: if passthrough { PASSTHROUGH } else { 0 },
        }
    }

    fn set_flag(&mut self, bit: u8, on: bool) {
        self.flags = if on { self.flags | bit } else { self.flags & !bit };
    }
    /// A `TxDone` event is in the scheduler.
    #[inline(always)]
    pub fn txdone_pending(&self) -> bool {
        self.flags & TXDONE_PENDING != 0
    }
    #[inline(always)]
    pub(crate) fn set_txdone_pending(&mut self, on: bool) {
        self.set_flag(TXDONE_PENDING, on);
    }
    /// An arrival at the idle link with an empty queue may go straight to the
    /// transmitter (`PASSTHROUGH`).
    #[inline(always)]
    pub(crate) fn passthrough(&self) -> bool {
        self.flags & PASSTHROUGH != 0
    }
    #[inline]
    pub fn traced(&self) -> bool {
        self.flags & TRACED != 0
    }
    /// An arrival must be traced, lost at random or shown to an element (see
    /// `Network::arrive`).
    #[inline]
    pub(crate) fn arrive_hooks(&self) -> bool {
        self.flags & ARRIVE_HOOKS != 0
    }
    pub(crate) fn set_feeds_fold(&mut self, on: bool) {
        self.set_flag(FEEDS_FOLD, on);
    }
    /// The queue is computed at enqueue (`Network::plan_folds`, `Network::vq_enqueue`):
    /// what waits is in the scheduler's start FIFO, not in `queue`.
    #[inline(always)]
    pub(crate) fn vqueue(&self) -> bool {
        self.flags & VQUEUE != 0
    }
    pub(crate) fn set_vqueue(&mut self, on: bool) {
        self.set_flag(VQUEUE, on);
    }
    /// Its far-end arrivals may enter a computed queue ahead (`LOOKAHEAD`).
    #[inline(always)]
    pub(crate) fn lookahead(&self) -> bool {
        self.flags & LOOKAHEAD != 0
    }
    pub(crate) fn set_lookahead(&mut self, on: bool) {
        self.set_flag(LOOKAHEAD, on);
    }
    /// Its far-end arrivals are decided as it starts sending (`FEEDS_FOLD` or
    /// `LOOKAHEAD`): one test in `Network::start_tx`.
    #[inline(always)]
    pub(crate) fn decides_arrivals(&self) -> bool {
        self.flags & (FEEDS_FOLD | LOOKAHEAD) != 0
    }

    /// Is the transmitter (of link `l`, this one) busy for the event firing now? At
    /// exactly `busy_until` it is still busy if ns-2's resume event would fire after
    /// this one (`Scheduler::before_resume`: the current event's sequence number
    /// against `resume_seq`, either of which may be a folded hop's position).
    #[inline]
    pub fn busy(&self, sched: &Scheduler, l: u32) -> bool {
        let now = sched.now();
        now < self.busy_until || (now == self.busy_until && sched.before_resume(l, self.resume_seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::DropTail;

    /// The counters keep 32 bits inline and carry into the link's extra: exact past
    /// 2^32, and the carry sets no arrival hook (an arrival still has nothing to do).
    #[test]
    fn counters_carry_past_2_pow_32() {
        let mut t = Links::from([(0, Link::new(1, 0, AnyQueue::DropTail(DropTail::new(10))))]);
        t.set_counts(0, (1 << 32) - 2, (1 << 32) - 1, (1 << 32) - 1000);
        t.arrive(0);
        assert_eq!((t.arrivals(0), t.drops(0)), ((1 << 32) - 1, (1 << 32) - 1));
        t.arrive(0);
        t.count_drop(0);
        t.depart(0, 1500);
        assert_eq!((t.arrivals(0), t.drops(0), t.bytes_departed(0)), (1 << 32, 1 << 32, (1 << 32) + 500));
        assert!(!t[0].arrive_hooks());
        t.arrive_and_depart(0, 100);
        // Setting and clearing an element keeps the high words.
        t.set_dst_elem(0, 3);
        assert!(t[0].arrive_hooks());
        t.set_dst_elem(0, crate::net::element::NO_ELEM);
        assert!(!t[0].arrive_hooks());
        assert_eq!((t.arrivals(0), t.drops(0)), ((1 << 32) + 1, 1 << 32));
        assert_eq!(t.departures(0, 0), (1 << 32) + 1 - (1 << 32));
        assert_eq!(t.bytes_departed(0), (1 << 32) + 600);
        // A second link added after the first one's extra has none of its own.
        let l = t.push(1, Link::new(0, 0, AnyQueue::DropTail(DropTail::new(10))));
        assert_eq!(
            (t.arrivals(l as usize), t.dst_elem(l as usize), t.src(l as usize)),
            (0, crate::net::element::NO_ELEM, 1)
        );
    }

    /// A link is one cache line, aligned to one, whatever the table's length.
    #[test]
    fn a_link_is_one_cache_line() {
        let mut t = Links::with_capacity(3);
        for k in 0..3 {
            t.push(k, Link::new(k + 1, 0, AnyQueue::DropTail(DropTail::new(10))));
        }
        for k in 0..3 {
            assert_eq!(&t[k] as *const Link as usize % 64, 0);
        }
    }
}
