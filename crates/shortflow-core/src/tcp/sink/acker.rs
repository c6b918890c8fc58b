//! ns-2.35 `Acker` (tcp-sink.cc): which segments have arrived, the cumulative ack
//! number, and the timestamp to echo (`update_ts`).

use crate::time::SimTime;

/// ns-2's `Acker`: which segments have arrived, as a growable ring of byte counts.
#[derive(Clone, Debug)]
pub struct Acker {
    /// The ring; empty until the first out-of-order segment, then a power of two long
    /// (its length less one is the index mask, [`Acker::mask`]: no mask field and no
    /// capacity word, 16 bytes less per sink).
    seen: Box<[u32]>,
    /// Next in-order segment expected.
    next: i64,
    maxseen: i64,
    /// ns-2 `ts_to_echo_`: the sender timestamp the next ack echoes (with
    /// `ts_echo_bugfix_`, see [`Acker::update_ts`]; without, the latest segment's,
    /// [`Acker::echo_latest`]).
    ts_to_echo: SimTime,
    /// ns-2 `last_ack_sent_`: the ack number of the last ack sent (0 before any).
    last_ack_sent: i64,
}

/// `mask` of a new ring: 16 slots (ns-2 starts with 64). The ring doubles whenever a
/// segment lands beyond it (`update`), keeping every mark, so its size changes no
/// answer; a small start keeps a sink that saw one hole small.
const INITIAL_MASK: i64 = 15;

impl Default for Acker {
    fn default() -> Self {
        // `seen` is allocated on the first out-of-order segment and kept from then on: a
        // sink that never sees a hole holds no ring (most short transfers at scale), one
        // that does keeps it, so a loss costs no allocation (freeing it when each hole
        // closed cost an allocation per loss episode: 14 563 on bench a, 1.5 % of its
        // instructions).
        Acker { seen: Box::default(), next: 0, maxseen: 0, ts_to_echo: SimTime::ZERO, last_ack_sent: 0 }
    }
}

impl Acker {
    /// Bytes held outside the struct (the out-of-order ring), by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.seen.len() * 4
    }

    /// Cumulative ack number (ns-2 `Seqno()` = next_ - 1).
    pub fn seqno(&self) -> i64 {
        self.next - 1
    }
    pub fn maxseen(&self) -> i64 {
        self.maxseen
    }

    /// ns-2.35: tcp-sink.cc `Acker::update_ts` with `ts_echo_rfc1323_` false (the
    /// ns-2.35 default): remember the timestamp of a segment at or left of the first
    /// one not yet acked, so an ack echoes the oldest unacknowledged segment's
    /// timestamp (RFC 1323 / TCP/IP Illustrated vol. 2 p. 870) rather than the newest.
    #[inline]
    pub fn update_ts(&mut self, seqno: i64, ts: SimTime) {
        if ts >= self.ts_to_echo && seqno <= self.last_ack_sent + 1 {
            self.ts_to_echo = ts;
        }
    }
    /// Without `ts_echo_bugfix_`: the next ack echoes the latest segment's timestamp.
    #[inline]
    pub fn echo_latest(&mut self, ts: SimTime) {
        self.ts_to_echo = ts;
    }
    #[inline]
    pub fn ts_to_echo(&self) -> SimTime {
        self.ts_to_echo
    }
    /// Record an ack sent (ns-2: `acker_->last_ack_sent_ = ntcp->seqno()` in `ack()`).
    #[inline]
    pub fn ack_sent(&mut self, ackno: i64) {
        self.last_ack_sent = ackno;
    }

    /// Has segment `seq` arrived already (cumulatively or out of order)?
    pub fn has(&self, seq: i64) -> bool {
        seq < self.next
            || (seq <= self.maxseen && !self.seen.is_empty() && self.seen[(seq & self.mask()) as usize] != 0)
    }

    /// The ring's index mask: its length less one, `INITIAL_MASK` before it exists.
    #[inline]
    fn mask(&self) -> i64 {
        if self.seen.is_empty() {
            INITIAL_MASK
        } else {
            self.seen.len() as i64 - 1
        }
    }

    fn resize(&mut self, sz: usize) {
        let mut n = vec![0u32; sz].into_boxed_slice();
        let (mask, nmask) = (self.mask(), sz as i64 - 1);
        for i in self.next..=self.maxseen + 1 {
            n[(i & nmask) as usize] = self.seen[(i & mask) as usize];
        }
        self.seen = n;
    }

    /// ns-2.35: tcp-sink.cc `Acker::update`; returns bytes deliverable in order.
    #[inline(always)]
    pub fn update(&mut self, seq: i64, bytes: u32) -> u64 {
        self.update_freeing(seq, bytes, false)
    }

    /// [`Acker::update`]; with `free_ring`, the out-of-order ring is freed when its last
    /// hole fills (large runs: `TcpSink::free_rings`). Nothing reads the ring while no
    /// segment is held out of order (`has` answers from `next`, the in-order path skips
    /// it, and the out-of-order path clears what it reads: see the comment below), and
    /// its size changes no answer, so freeing it changes nothing but the memory held
    /// and an allocation at the next hole.
    #[inline(always)]
    pub fn update_freeing(&mut self, seq: i64, bytes: u32, free_ring: bool) -> u64 {
        // In order with nothing outstanding (maxseen = next - 1): ns-2 would mark and
        // at once deliver `seq`, leaving next = maxseen + 1 = seq + 1. Slots of `seen`
        // outside [next, maxseen + 1] are never read before being written (the
        // out-of-order path below clears maxseen+1..seq first), so skipping the writes
        // changes nothing, and a sink that never sees a hole needs no `seen` at all.
        // (The initial state next = maxseen = 0 behaves the same for seq 0.)
        let no_holes = self.maxseen == self.next - 1 || (self.next == 0 && self.maxseen == 0);
        if seq == self.next && no_holes && bytes != 0 {
            self.maxseen = seq;
            self.next = seq + 1;
            return bytes as u64;
        }
        if seq < self.next {
            // Already delivered (a duplicate): nothing below changes any state (no
            // growth, no mark, nothing delivered), so it needs no ring.
            return 0;
        }
        if self.seen.is_empty() {
            self.seen = vec![0; (INITIAL_MASK + 1) as usize].into_boxed_slice();
        }
        let mut just_marked = false;
        while seq + 1 - self.next >= self.mask() {
            let sz = self.seen.len() * 2;
            self.resize(sz);
        }
        let mask = self.mask();
        if seq > self.maxseen {
            for i in self.maxseen + 1..seq {
                self.seen[(i & mask) as usize] = 0;
            }
            self.maxseen = seq;
            self.seen[(seq & mask) as usize] = bytes;
            self.seen[((seq + 1) & mask) as usize] = 0;
            just_marked = true;
        }
        let mut deliver = 0u64;
        let mut next = self.next;
        if seq >= next && seq <= self.maxseen {
            let _dup = self.seen[(seq & mask) as usize] != 0 && !just_marked;
            self.seen[(seq & mask) as usize] = bytes;
            while self.seen[(next & mask) as usize] != 0 {
                deliver += self.seen[(next & mask) as usize] as u64;
                next += 1;
            }
            self.next = next;
        }
        if free_ring && self.next > self.maxseen {
            self.free_ring();
        }
        deliver
    }

    /// Every segment up to `maxseen` has arrived: the ring holds nothing (see
    /// `update_freeing`).
    #[cold]
    #[inline(never)]
    fn free_ring(&mut self) {
        debug_assert_eq!(self.next, self.maxseen + 1);
        self.seen = Box::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_and_hole() {
        let mut a = Acker::default();
        assert_eq!(a.update(0, 1040), 1040);
        assert_eq!(a.seqno(), 0);
        assert_eq!(a.update(2, 1040), 0); // hole at 1
        assert_eq!(a.seqno(), 0);
        assert_eq!(a.update(1, 1040), 2080);
        assert_eq!(a.seqno(), 2);
        assert_eq!(a.update(1, 1040), 0); // duplicate
        assert_eq!(a.seqno(), 2);
    }

    /// Freeing the ring when its last hole fills (`update_freeing`) gives the same
    /// answers as keeping it, over random arrivals (holes, duplicates, jumps that grow
    /// the ring).
    #[test]
    fn freeing_the_ring_changes_no_answer() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..200 {
            let (mut keep, mut free) = (Acker::default(), Acker::default());
            let mut top = 0i64;
            for _ in 0..400 {
                let seq = (top - 40 + (rng.uniform() * 80.0) as i64).max(0);
                top = top.max(seq);
                let bytes = 1 + (rng.uniform() * 1500.0) as u32;
                assert_eq!(keep.has(seq), free.has(seq));
                assert_eq!(keep.update(seq, bytes), free.update_freeing(seq, bytes, true));
                assert_eq!((keep.seqno(), keep.maxseen()), (free.seqno(), free.maxseen()));
                if free.seqno() == free.maxseen() {
                    assert_eq!(free.heap_bytes(), 0);
                }
            }
        }
    }

    #[test]
    fn echoes_the_oldest_unacked_timestamp() {
        let t = SimTime::from_millis;
        let mut a = Acker::default();
        // Segment 1 arrives (last ack sent 0): its timestamp is taken.
        a.update_ts(1, t(10));
        assert_eq!(a.ts_to_echo(), t(10));
        // Segment 2 while 1 is unacked (delayed ack): beyond last_ack_sent + 1, kept.
        a.update_ts(2, t(11));
        assert_eq!(a.ts_to_echo(), t(10));
        a.ack_sent(2);
        // Segment 3 is next after the ack: taken; an older timestamp never is.
        a.update_ts(3, t(12));
        assert_eq!(a.ts_to_echo(), t(12));
        a.update_ts(1, t(9));
        assert_eq!(a.ts_to_echo(), t(12));
    }

    #[test]
    fn allocates_its_ring_at_the_first_hole_and_keeps_it() {
        let mut a = Acker::default();
        a.update(0, 1);
        a.update(1, 1);
        a.update(1, 1); // a duplicate, no hole
        assert_eq!((a.seqno(), a.heap_bytes()), (1, 0));
        a.update(4, 1);
        assert_eq!(a.heap_bytes(), 16 * 4);
        assert!(a.has(4) && !a.has(3));
        a.update(2, 1);
        a.update(3, 1);
        assert_eq!(a.seqno(), 4);
        assert!(a.has(4) && !a.has(5));
        // The ring stays (the next hole allocates nothing) and its stale marks are
        // never read: a new hole clears the slots it spans.
        assert_eq!(a.heap_bytes(), 16 * 4);
        assert_eq!(a.update(7, 1), 0);
        assert!(a.has(7) && !a.has(5) && !a.has(6));
        assert_eq!(a.update(5, 1) + a.update(6, 1), 3);
        assert_eq!((a.seqno(), a.heap_bytes()), (7, 16 * 4));
        // A hole past the ring's 16 slots grows it.
        a.update(40, 1);
        assert_eq!(a.heap_bytes(), 64 * 4);
    }

    #[test]
    fn grows_for_large_windows() {
        let mut a = Acker::default();
        assert_eq!(a.update(500, 1), 0);
        for s in 0..500 {
            a.update(s, 1);
        }
        assert_eq!(a.seqno(), 500);
    }

    /// ns-2.35 `Acker::update` transcribed without the in-order shortcut or the lazy
    /// `seen`, as the reference for `update`.
    struct RefAcker {
        seen: Vec<u32>,
        mask: i64,
        next: i64,
        maxseen: i64,
    }

    impl RefAcker {
        fn update(&mut self, seq: i64, bytes: u32) -> u64 {
            while seq + 1 - self.next >= self.mask {
                let sz = self.seen.len() * 2;
                let mut n = vec![0u32; sz];
                for i in self.next..=self.maxseen + 1 {
                    n[(i & (sz as i64 - 1)) as usize] = self.seen[(i & self.mask) as usize];
                }
                self.seen = n;
                self.mask = sz as i64 - 1;
            }
            if seq > self.maxseen {
                for i in self.maxseen + 1..seq {
                    self.seen[(i & self.mask) as usize] = 0;
                }
                self.maxseen = seq;
                self.seen[(seq & self.mask) as usize] = bytes;
                self.seen[((seq + 1) & self.mask) as usize] = 0;
            }
            let mut deliver = 0;
            let mut next = self.next;
            if seq >= next && seq <= self.maxseen {
                self.seen[(seq & self.mask) as usize] = bytes;
                while self.seen[(next & self.mask) as usize] != 0 {
                    deliver += self.seen[(next & self.mask) as usize] as u64;
                    next += 1;
                }
                self.next = next;
            }
            deliver
        }
    }

    #[test]
    fn matches_ns2_acker_on_random_arrivals() {
        // Segments of a window sent in order, some lost and retransmitted later,
        // some duplicated: the shortcut must give ns-2's answers and ack numbers.
        let mut rng = crate::rng::Rng::for_source(7, "acker-test");
        for _case in 0..200 {
            let mut a = Acker::default();
            let mut r = RefAcker { seen: vec![0; 64], mask: 63, next: 0, maxseen: 0 };
            let mut pending: Vec<i64> = Vec::new();
            let mut seq = 0i64;
            for _ in 0..400 {
                let u = rng.uniform();
                let s = if u < 0.1 && !pending.is_empty() {
                    pending.remove((rng.uniform() * pending.len() as f64) as usize)
                } else if u < 0.15 && seq > 0 {
                    seq - 1 - (rng.uniform() * 3.0) as i64 // duplicate of an older segment
                } else {
                    seq += 1 + (rng.uniform() < 0.02) as i64 * 100; // rarely, a jump past the buffer
                    if rng.uniform() < 0.1 {
                        pending.push(seq - 1); // lost for now
                        continue;
                    }
                    seq - 1
                };
                if s < 0 {
                    continue;
                }
                assert_eq!(a.update(s, 1000), r.update(s, 1000), "segment {s}");
                assert_eq!((a.next, a.maxseen), (r.next, r.maxseen), "segment {s}");
            }
        }
    }

    #[test]
    fn in_order_sink_allocates_nothing() {
        let mut a = Acker::default();
        for s in 0..1000 {
            assert_eq!(a.update(s, 1000), 1000);
        }
        assert!(a.seen.is_empty());
        assert_eq!(a.seqno(), 999);
    }
}
