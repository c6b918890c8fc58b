//! Far timer entries (module docs, point 7): in large runs, a timer slot's entry due at
//! or after a *horizon* waits here, unsorted, in a bucket of `2^width_bits` ns, and the
//! horizon's bucket is opened (its entries moved into the timer heap, the horizon one
//! bucket on) when the heap's minimum is not before the horizon. Every entry here is due
//! at or after the horizon, so a heap minimum before it is the minimum of all timer
//! entries: the pop order stays exactly `(time, seq)`.
//!
//! The buckets are a ring of `buckets` (a power of two) covering `[horizon, horizon +
//! buckets << width_bits)`; entries beyond it wait in `overflow` until the ring reaches
//! them. A bucket's entries are kept in chunks of [`CHUNK`] entries from one slab with
//! a free list, so the memory is the live entries' (plus at most one part-filled chunk
//! per bucket), and after the first round nothing is allocated.
//!
//! An entry here is only its timer slot's index (4 bytes; 16 with its due time in the
//! overflow), not a heap entry (24 bytes): a slot's live entry is its latest one, and
//! the slot holds that entry's key (`TimerSlot::queued_time`, `queued_sk`) and whether
//! it waits here (`in_far`). So when a bucket is opened, a slot index stands for the
//! slot's live entry if the slot's entry waits here and is due in that bucket, and is
//! stale otherwise (`Scheduler::open_far`); a slot with two entries in one bucket (it
//! was re-armed earlier within the bucket) has its live entry taken once, at the first
//! of them, and the second is then stale.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Entries (slot indices) per chunk: one 64-byte line.
pub(super) const CHUNK: usize = 16;
/// No chunk (an empty bucket; the end of a chunk list or of the free list).
const NONE: u32 = u32::MAX;

pub(super) struct FarTimers {
    /// log2 of a bucket's width in ns.
    pub(super) width_bits: u32,
    /// The horizon's bucket number (`horizon = h << width_bits`).
    pub(super) h: u64,
    /// Per ring bucket: its newest chunk (`NONE`: empty; the others are full and
    /// linked through `next`) and that chunk's fill.
    first: Box<[u32]>,
    fill: Box<[u32]>,
    /// Chunk `c` is `slab[c * CHUNK..(c + 1) * CHUNK]`; `next[c]` links a bucket's
    /// chunks and the free list (`free`).
    slab: Vec<u32>,
    next: Vec<u32>,
    free: u32,
    /// Entries (due time, slot) whose bucket is beyond the ring (a heap: each moves into
    /// the ring once, in time order, when the ring reaches it), and the smallest such
    /// bucket number.
    overflow: BinaryHeap<Reverse<(u64, u32)>>,
    overflow_min: u64,
    /// Entries in the ring and in `overflow`.
    pub(super) len: usize,
    ring_len: usize,
}

impl FarTimers {
    /// Buckets of `2^width_bits` ns, `buckets` of them (a power of two) in the ring,
    /// the horizon at bucket `h`.
    pub(super) fn new(width_bits: u32, buckets: usize, h: u64) -> Self {
        assert!(buckets.is_power_of_two() && width_bits < 64);
        FarTimers {
            width_bits,
            h,
            first: vec![NONE; buckets].into_boxed_slice(),
            fill: vec![0; buckets].into_boxed_slice(),
            slab: Vec::new(),
            next: Vec::new(),
            free: NONE,
            overflow: BinaryHeap::new(),
            overflow_min: u64::MAX,
            len: 0,
            ring_len: 0,
        }
    }

    /// The horizon: entries due at or after it are here.
    #[inline(always)]
    pub(super) fn horizon(&self) -> u64 {
        self.h.checked_shl(self.width_bits).filter(|t| t >> self.width_bits == self.h).unwrap_or(u64::MAX)
    }

    /// Queue the entry of timer slot `slot` due at `time` (at or after the horizon).
    #[inline]
    pub(super) fn push(&mut self, time: u64, slot: u32) {
        let k = time >> self.width_bits;
        debug_assert!(k >= self.h, "a far entry is due at or after the horizon");
        self.len += 1;
        if k - self.h < self.first.len() as u64 {
            self.ring_push(k, slot);
        } else {
            self.overflow_push(time, slot);
            self.overflow_min = self.overflow_min.min(k);
        }
    }

    /// Into the overflow, which grows by an eighth when full rather than doubling.
    #[cold]
    #[inline(never)]
    fn overflow_push(&mut self, time: u64, slot: u32) {
        let n = self.overflow.len();
        if n == self.overflow.capacity() {
            self.overflow.reserve_exact((n / 8).max(64));
        }
        self.overflow.push(Reverse((time, slot)));
    }

    #[inline]
    fn ring_push(&mut self, k: u64, e: u32) {
        let b = k as usize & (self.first.len() - 1);
        let mut c = self.first[b];
        if c == NONE || self.fill[b] as usize == CHUNK {
            let n = self.take_chunk();
            self.next[n as usize] = c;
            self.first[b] = n;
            self.fill[b] = 0;
            c = n;
        }
        self.slab[c as usize * CHUNK + self.fill[b] as usize] = e;
        self.fill[b] += 1;
        self.ring_len += 1;
    }

    /// A chunk off the free list, or a new one at the slab's end (the slab grows
    /// only up to the most chunks ever in use).
    #[inline]
    fn take_chunk(&mut self) -> u32 {
        if self.free != NONE {
            let c = self.free;
            self.free = self.next[c as usize];
            return c;
        }
        self.grow()
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> u32 {
        let c = self.next.len();
        assert!(c < NONE as usize, "too many far timer chunks");
        // Grown by an eighth (at least 64 chunks) rather than doubled: the slab is the
        // far timers' largest part in a large run.
        if c == self.next.capacity() {
            let more = (c / 8).max(64);
            self.next.reserve_exact(more);
            self.slab.reserve_exact(more * CHUNK);
        }
        self.slab.resize((c + 1) * CHUNK, 0);
        self.next.push(NONE);
        c as u32
    }

    /// Open the horizon's bucket: move the horizon one bucket on and hand the opened
    /// bucket's number and its entries to `f`, a chunk at a time (in no particular
    /// order; `f` may push entries due at or after the new horizon). Entries of the
    /// overflow that the ring now reaches move into it first. With the ring empty, the
    /// horizon first jumps to the overflow's first bucket.
    pub(super) fn open(&mut self, mut f: impl FnMut(&mut Self, u64, &[u32])) {
        let n = self.first.len() as u64;
        if self.ring_len == 0 && self.overflow_min != u64::MAX {
            debug_assert!(self.overflow_min >= self.h);
            self.h = self.overflow_min;
        }
        if self.overflow_min < self.h + n {
            self.refill();
        }
        let k = self.h;
        let b = self.h as usize & (n as usize - 1);
        self.h += 1;
        let mut c = self.first[b];
        let mut fill = self.fill[b] as usize;
        self.first[b] = NONE;
        self.fill[b] = 0;
        let mut buf = [0u32; CHUNK];
        while c != NONE {
            let base = c as usize * CHUNK;
            buf[..fill].copy_from_slice(&self.slab[base..base + fill]);
            self.ring_len -= fill;
            self.len -= fill;
            let nx = self.next[c as usize];
            self.next[c as usize] = self.free;
            self.free = c;
            f(self, k, &buf[..fill]);
            c = nx;
            fill = CHUNK;
        }
    }

    /// Hand every entry to `f` and leave nothing (the horizon would pass the end of
    /// time: `Scheduler::open_far` gives the heap everything).
    pub(super) fn drain_all(&mut self, mut f: impl FnMut(u32)) {
        for b in 0..self.first.len() {
            let mut c = self.first[b];
            let mut fill = self.fill[b] as usize;
            while c != NONE {
                let base = c as usize * CHUNK;
                self.slab[base..base + fill].iter().for_each(|&e| f(e));
                c = self.next[c as usize];
                fill = CHUNK;
            }
            self.first[b] = NONE;
            self.fill[b] = 0;
        }
        self.overflow.drain().for_each(|Reverse((_, slot))| f(slot));
        self.overflow_min = u64::MAX;
        self.len = 0;
        self.ring_len = 0;
    }

    /// Move the overflow's entries that the ring reaches into it.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let n = self.first.len() as u64;
        while let Some(&Reverse((time, slot))) = self.overflow.peek() {
            let k = time >> self.width_bits;
            if k - self.h >= n {
                self.overflow_min = k;
                return;
            }
            self.overflow.pop();
            self.ring_push(k, slot);
        }
        self.overflow_min = u64::MAX;
    }

    /// Bytes of `overflow` (by capacity; part of `memory_bytes`).
    pub(super) fn overflow_bytes(&self) -> usize {
        self.overflow.capacity() * std::mem::size_of::<Reverse<(u64, u32)>>()
    }

    /// Bytes held (by capacity).
    pub(super) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.overflow_bytes() + (self.slab.capacity() + self.next.capacity() + 2 * self.first.len()) * size_of::<u32>()
    }
}
