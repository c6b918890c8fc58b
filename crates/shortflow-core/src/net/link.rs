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

pub struct Link {
    pub src: u32,
    pub dst: u32,
    /// Rate, delay and transmit-time memo: `Network::link_classes[class]`.
    pub class: u32,
    pub queue: AnyQueue,
    /// Time the transmitter finishes the packet currently on the wire.
    pub busy_until: SimTime,
    /// A `TxDone` event is in the scheduler.
    pub txdone_pending: bool,
    /// Sequence number reserved for the resume event of the current transmission.
    pub resume_seq: u64,
    /// Packets that arrived ([`Link::arrivals`]): the low 32 bits; a wrap carries into
    /// `hooks` (`ArriveHooks::hi`), so that a link is 80 bytes, not 88, and no count
    /// is ever cut short.
    arrivals_lo: u32,
    /// Packets dropped ([`Link::drops`]), as `arrivals_lo`: by the queue (buffer
    /// management; filtered acks are counted in `Network::filtered` instead) and by
    /// random loss after crossing the link.
    drops_lo: u32,
    pub bytes_departed: u64,
    /// The queue is a DropTail that accepts an arrival when empty, so an arrival at an
    /// idle link with an empty queue is accepted and dequeued at once: `link_recv` may
    /// hand it straight to the transmitter (see [`Link::new`]).
    pub(crate) passthrough: bool,
    /// Record per-packet events of this link (set with [`Link::set_traced`]). Inline:
    /// the transmit path tests it for every packet.
    traced: bool,
    /// `ARRIVE_HOOKS`: `traced`, an element at the far node or random loss -- an arrival
    /// has more to do than deliver or forward (one test on the arrival path instead of
    /// three); `FEEDS_FOLD`: the hop after this link may be folded
    /// (`Network::plan_folds`: this link is the only one feeding some link). One byte,
    /// so that `Link` stays 112 B.
    flags: u8,
    /// The far node's element and the random loss, boxed and None without either, as
    /// on every access link of a large run (8 bytes less per link direction).
    hooks: Option<Box<ArriveHooks>>,
}

/// `Link::flags` bits.
const ARRIVE_HOOKS: u8 = 1;
const FEEDS_FOLD: u8 = 2;

/// The far node's element and a link's random loss (`Link::hooks`), and the high words
/// of its counters once one has passed 2^32.
#[derive(Debug)]
struct ArriveHooks {
    /// The element at the far node (`net::element`), or `NO_ELEM` (set with
    /// [`Link::set_dst_elem`]).
    dst_elem: u32,
    /// Uniform random loss on this link, if any (`LinkConfig::loss`; set with
    /// [`Link::set_loss`]).
    loss: Option<Box<RandomLoss>>,
    /// Bits 32..64 of `arrivals` and `drops` (`Link::arrivals_lo`, `drops_lo`).
    hi: [u32; 2],
}

impl Default for ArriveHooks {
    fn default() -> Self {
        ArriveHooks { dst_elem: crate::net::element::NO_ELEM, loss: None, hi: [0; 2] }
    }
}

impl ArriveHooks {
    /// Does an arrival have something to do here (an element or random loss)?
    fn acts(&self) -> bool {
        self.dst_elem != crate::net::element::NO_ELEM || self.loss.is_some()
    }
}

// A link direction per access link of a connection, four per connection in a large run.
const _: () = assert!(std::mem::size_of::<Link>() == 80);

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
    /// A link from node `src` to `dst` of class `class` (`Network::link_classes`).
    pub fn new(src: u32, dst: u32, class: u32, queue: AnyQueue) -> Self {
        // Pass-through is exact for DropTail: it has no state but its buffer, so
        // "enqueue into the empty queue, then dequeue" returns the arrival unchanged --
        // provided the enqueue accepts it (and stages change nothing then, see
        // `DropTail::accepts_into_empty`).
        let passthrough = match &queue {
            AnyQueue::DropTail(q) => q.is_empty() && q.accepts_into_empty(),
            _ => false,
        };
        Link {
            src,
            dst,
            class,
            queue,
            busy_until: SimTime::ZERO,
            txdone_pending: false,
            resume_seq: 0,
            arrivals_lo: 0,
            drops_lo: 0,
            bytes_departed: 0,
            passthrough,
            traced: false,
            flags: 0,
            hooks: None,
        }
    }

    /// Packets that arrived at this link (queued, dropped, filtered or transmitted).
    #[inline]
    pub fn arrivals(&self) -> u64 {
        (self.hi(0) as u64) << 32 | self.arrivals_lo as u64
    }
    /// Packets dropped: by the queue (buffer management; filtered acks are counted in
    /// `Network::filtered` instead) and by random loss after crossing the link.
    #[inline]
    pub fn drops(&self) -> u64 {
        (self.hi(1) as u64) << 32 | self.drops_lo as u64
    }
    fn hi(&self, k: usize) -> u32 {
        self.hooks.as_deref().map_or(0, |h| h.hi[k])
    }
    /// Count an arrival.
    #[inline(always)]
    pub(crate) fn count_arrival(&mut self) {
        self.arrivals_lo = self.arrivals_lo.wrapping_add(1);
        if self.arrivals_lo == 0 {
            self.carry(0);
        }
    }
    /// Count a drop.
    #[inline(always)]
    pub(crate) fn count_drop(&mut self) {
        self.drops_lo = self.drops_lo.wrapping_add(1);
        if self.drops_lo == 0 {
            self.carry(1);
        }
    }
    /// Counter `k` (0: arrivals, 1: drops) wrapped: its high word goes up by one.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, k: usize) {
        let h = self.hooks.get_or_insert_with(Default::default);
        h.hi[k] = h.hi[k].checked_add(1).expect("a link counter passed 2^64");
    }
    /// Set the counters (tests: counts near a wrap).
    #[cfg(test)]
    pub(crate) fn set_counts(&mut self, arrivals: u64, drops: u64) {
        self.arrivals_lo = arrivals as u32;
        self.drops_lo = drops as u32;
        if (arrivals | drops) >> 32 != 0 {
            self.hooks.get_or_insert_with(Default::default).hi = [(arrivals >> 32) as u32, (drops >> 32) as u32];
        }
    }

    /// Record this link's per-packet events or not.
    pub fn set_traced(&mut self, on: bool) {
        self.traced = on;
        self.set_arrive_hooks();
    }
    fn set_arrive_hooks(&mut self) {
        self.set_flag(ARRIVE_HOOKS, self.traced || self.hooks.as_deref().is_some_and(ArriveHooks::acts));
    }
    /// Change the element and loss with `f`; neither left set (and no counter past
    /// 2^32) frees their box.
    fn hooks_mut(&mut self, f: impl FnOnce(&mut ArriveHooks)) {
        let h = self.hooks.get_or_insert_with(Default::default);
        f(h);
        if !h.acts() && h.hi == [0; 2] {
            self.hooks = None;
        }
        self.set_arrive_hooks();
    }
    /// Lose packets crossing this link at random (`None`: no loss).
    pub fn set_loss(&mut self, loss: Option<Box<RandomLoss>>) {
        self.hooks_mut(|h| h.loss = loss);
    }
    /// The link's random loss, if any.
    pub fn loss(&self) -> Option<&RandomLoss> {
        self.hooks.as_deref().and_then(|h| h.loss.as_deref())
    }
    #[inline]
    pub(crate) fn loss_mut(&mut self) -> Option<&mut RandomLoss> {
        self.hooks.as_deref_mut().and_then(|h| h.loss.as_deref_mut())
    }
    #[inline]
    pub fn traced(&self) -> bool {
        self.traced
    }

    /// Hand arrivals at the far node to element `elem` first.
    pub(crate) fn set_dst_elem(&mut self, elem: u32) {
        self.hooks_mut(|h| h.dst_elem = elem);
    }
    #[inline]
    pub(crate) fn dst_elem(&self) -> u32 {
        self.hooks.as_deref().map_or(crate::net::element::NO_ELEM, |h| h.dst_elem)
    }
    /// An arrival must be traced or shown to an element (see `Network::arrive`).
    #[inline]
    pub(crate) fn arrive_hooks(&self) -> bool {
        self.flags & ARRIVE_HOOKS != 0
    }
    /// The hop after this link may be folded (`Network::plan_folds`).
    #[inline(always)]
    pub(crate) fn feeds_fold(&self) -> bool {
        self.flags & FEEDS_FOLD != 0
    }
    pub(crate) fn set_feeds_fold(&mut self, on: bool) {
        self.set_flag(FEEDS_FOLD, on);
    }
    fn set_flag(&mut self, bit: u8, on: bool) {
        self.flags = if on { self.flags | bit } else { self.flags & !bit };
    }

    /// Packets that started transmission on this link: every arrival is queued, dropped
    /// by the queue (`drops` less the random losses, which happen after crossing),
    /// filtered (`filtered`, this link's entry of `Network::filtered`) or transmitted,
    /// so the count is derived rather than kept (8 bytes less per link direction).
    pub fn departures(&self, filtered: u64) -> u64 {
        let lost = self.loss().map_or(0, |l| l.lost);
        self.arrivals() - (self.drops() - lost) - filtered - self.queue.len() as u64
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

    /// The counters keep 32 bits inline and carry into the boxed hooks: exact past
    /// 2^32, and the carry sets no arrival hook (an arrival still has nothing to do).
    #[test]
    fn counters_carry_past_2_pow_32() {
        let mut l = Link::new(0, 1, 0, AnyQueue::DropTail(DropTail::new(10)));
        l.set_counts((1 << 32) - 2, (1 << 32) - 1);
        l.count_arrival();
        assert_eq!((l.arrivals(), l.drops()), ((1 << 32) - 1, (1 << 32) - 1));
        l.count_arrival();
        l.count_drop();
        assert_eq!((l.arrivals(), l.drops()), (1 << 32, 1 << 32));
        assert!(!l.arrive_hooks());
        l.count_arrival();
        // Setting and clearing an element keeps the high words.
        l.set_dst_elem(3);
        assert!(l.arrive_hooks());
        l.set_dst_elem(crate::net::element::NO_ELEM);
        assert!(!l.arrive_hooks());
        assert_eq!((l.arrivals(), l.drops()), ((1 << 32) + 1, 1 << 32));
        assert_eq!(l.departures(0), (1 << 32) + 1 - (1 << 32));
    }
}
