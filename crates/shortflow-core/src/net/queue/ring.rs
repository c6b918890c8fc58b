//! The ring of packet ids behind [`super::buffer::Buffer`]: `VecDeque<PktId>`'s
//! operations that the queues use, in 16 bytes instead of 32 (a thin pointer to the
//! slots, whose number is kept in their allocation, and two `u32`s: a queue holds
//! fewer than 2^32 packets; 24 bytes with a boxed slice, whose length takes 8 more).
//! Every link holds one inline, and a connection of the scale workload four links
//! (issue 21 item 3).
//!
//! Like `VecDeque`, it allocates nothing while empty and then grows by doubling (from
//! 4 slots, as `VecDeque` does for small items) to the largest backlog it has held;
//! the order of the packets is all that matters to the queues, and it is the same.

use std::fmt;
use std::ptr::NonNull;

use crate::engine::PktId;

/// The slots of a ring: one allocation of `n + 1` words whose first holds `n`, behind a
/// thin pointer (8 bytes, where `Box<[PktId]>` takes 16). Indexes like a slice of `n`
/// slots. With no slots it points at [`NO_SLOTS`] and owns nothing.
struct Slots(NonNull<PktId>);

/// The header of every ring without slots (never written: a ring writes a slot only
/// after growing to hold it).
static NO_SLOTS: PktId = 0;

// SAFETY: `Slots` owns its allocation exclusively, as a `Box<[PktId]>` would (the
// shared `NO_SLOTS` is only read).
unsafe impl Send for Slots {}
unsafe impl Sync for Slots {}

impl Slots {
    /// No slots (no allocation).
    fn none() -> Slots {
        Slots(NonNull::from(&NO_SLOTS))
    }

    /// `n` slots holding 0.
    fn zeroed(n: usize) -> Slots {
        let mut words = vec![0 as PktId; n + 1].into_boxed_slice();
        words[0] = PktId::try_from(n).expect("ring slots fit in a u32");
        Slots(NonNull::new(Box::into_raw(words) as *mut PktId).expect("a box is not null"))
    }

    /// The number of slots.
    #[inline(always)]
    fn len(&self) -> usize {
        // SAFETY: the pointer is to `NO_SLOTS` or to an allocation this owns, whose
        // first word is the number of slots.
        unsafe { *self.0.as_ptr() as usize }
    }

    #[inline(always)]
    fn as_slice(&self) -> &[PktId] {
        // SAFETY: the `len()` words after the header are the slots (none for
        // `NO_SLOTS`: an empty slice one past its end).
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().add(1), self.len()) }
    }

    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [PktId] {
        let n = self.len();
        // SAFETY: as `as_slice`; a non-empty slice lies in this `Slots`' own allocation,
        // borrowed mutably with it, and an empty one writes nothing.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_ptr().add(1), n) }
    }
}

impl Slots {
    /// Slot `i`, for `i < len()` (not checked: the ring masks its indexes).
    #[inline(always)]
    unsafe fn read(&self, i: usize) -> PktId {
        debug_assert!(i < self.len());
        // SAFETY: the caller's `i < len()`: a slot of this allocation.
        unsafe { *self.0.as_ptr().add(1 + i) }
    }
    /// Set slot `i`, for `i < len()` (not checked: the ring masks its indexes).
    #[inline(always)]
    unsafe fn write(&mut self, i: usize, x: PktId) {
        debug_assert!(i < self.len());
        // SAFETY: the caller's `i < len()`: a slot of this allocation, which `self`
        // owns and borrows mutably (never `NO_SLOTS`, which has none).
        unsafe { *self.0.as_ptr().add(1 + i) = x }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        let n = self.len();
        if n > 0 {
            // SAFETY: made by `zeroed(n)` from a boxed slice of `n + 1` words.
            unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.0.as_ptr(), n + 1))) }
        }
    }
}

impl std::ops::Index<usize> for Slots {
    type Output = PktId;
    #[inline(always)]
    fn index(&self, i: usize) -> &PktId {
        &self.as_slice()[i]
    }
}

impl std::ops::IndexMut<usize> for Slots {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut PktId {
        &mut self.as_mut_slice()[i]
    }
}

pub struct Ring {
    /// The slots; their number (the capacity) is 0 or a power of two.
    buf: Slots,
    /// Slot of the first packet.
    head: u32,
    len: u32,
}

/// The same packets in the same order (in a ring of its own, grown as needed).
impl Clone for Ring {
    fn clone(&self) -> Ring {
        let mut r = Ring::new();
        for x in self.iter() {
            r.push_back(x);
        }
        r
    }
}

impl Default for Ring {
    fn default() -> Self {
        Ring::new()
    }
}

impl Ring {
    /// An empty ring (no allocation).
    pub fn new() -> Ring {
        Ring { buf: Slots::none(), head: 0, len: 0 }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Slots allocated.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Slot of the packet at index `i` (0 is the head), for `i <= len`.
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head as usize + i) & (self.buf.len().wrapping_sub(1))
    }

    /// Double the slots (4 at first), keeping the packets in order from slot 0.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        assert!(cap <= 1 << 31, "a queue of more than 2^31 packets");
        let mut nb = Slots::zeroed(cap);
        for (k, x) in self.iter().enumerate() {
            nb[k] = x;
        }
        self.buf = nb;
        self.head = 0;
    }

    // `push_back` and `pop_front`, every queued packet's, read the number of slots once
    // (it lives in the slots' allocation, which a store to a slot may alias) and index
    // by mask without a bounds check: a masked index is below the (power-of-two)
    // number of slots, and `head` always is one.
    #[inline(always)]
    pub fn push_back(&mut self, x: PktId) {
        let mut cap = self.buf.len();
        if self.len() == cap {
            self.grow();
            cap = self.buf.len();
        }
        let s = (self.head as usize + self.len()) & (cap - 1);
        // SAFETY: `s < cap`, `cap` a power of two (at least 4 after `grow`).
        unsafe { self.buf.write(s, x) };
        self.len += 1;
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<PktId> {
        if self.len == 0 {
            return None;
        }
        // A packet waits, so there are slots (a power of two of them), and `head` is
        // one of them.
        let (cap, h) = (self.buf.len(), self.head as usize);
        // SAFETY: `h < cap` (see above).
        let x = unsafe { self.buf.read(h) };
        self.head = ((h + 1) & (cap - 1)) as u32;
        self.len -= 1;
        Some(x)
    }

    pub fn pop_back(&mut self) -> Option<PktId> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.buf[self.slot(self.len())])
    }

    /// The packet at index `i` (0 is the head).
    #[inline]
    pub fn get(&self, i: usize) -> Option<PktId> {
        (i < self.len()).then(|| self.buf[self.slot(i)])
    }

    /// Insert `x` at index `i` (`i <= len`), moving the packets from `i` on back by one.
    pub fn insert(&mut self, i: usize, x: PktId) {
        assert!(i <= self.len(), "insert at {i} in a ring of {}", self.len);
        if self.len() == self.buf.len() {
            self.grow();
        }
        let mut k = self.len();
        while k > i {
            let (to, from) = (self.slot(k), self.slot(k - 1));
            self.buf[to] = self.buf[from];
            k -= 1;
        }
        let s = self.slot(i);
        self.buf[s] = x;
        self.len += 1;
    }

    /// Remove and return the packet at index `i`, moving the packets after it forward
    /// by one; None if `i` is out of range.
    pub fn remove(&mut self, i: usize) -> Option<PktId> {
        let x = self.get(i)?;
        for k in i..self.len() - 1 {
            let (to, from) = (self.slot(k), self.slot(k + 1));
            self.buf[to] = self.buf[from];
        }
        self.len -= 1;
        Some(x)
    }

    /// The packets from head to tail.
    #[inline]
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = PktId> + ExactSizeIterator + '_ {
        (0..self.len()).map(move |i| self.buf[self.slot(i)])
    }
}

impl std::ops::Index<usize> for Ring {
    type Output = PktId;
    #[inline]
    fn index(&self, i: usize) -> &PktId {
        assert!(i < self.len(), "index {i} in a ring of {}", self.len);
        &self.buf[self.slot(i)]
    }
}

impl FromIterator<PktId> for Ring {
    fn from_iter<I: IntoIterator<Item = PktId>>(it: I) -> Ring {
        let mut r = Ring::new();
        for x in it {
            r.push_back(x);
        }
        r
    }
}

impl PartialEq for Ring {
    fn eq(&self, o: &Ring) -> bool {
        self.len == o.len && self.iter().eq(o.iter())
    }
}

impl fmt::Debug for Ring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// The same operations on a `Ring` and a `VecDeque` leave the same packets in the
    /// same order, through wrap-around and growth.
    #[test]
    fn matches_vecdeque() {
        let mut r = Ring::new();
        let mut v: VecDeque<PktId> = VecDeque::new();
        assert_eq!(r.capacity(), 0);
        let mut x: u64 = 7;
        for step in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let op = (x >> 33) % 7;
            let len = v.len();
            match op {
                0 | 1 => {
                    r.push_back(step);
                    v.push_back(step);
                }
                2 => assert_eq!(r.pop_front(), v.pop_front()),
                3 => assert_eq!(r.pop_back(), v.pop_back()),
                4 => {
                    let i = ((x >> 13) as usize) % (len + 1);
                    r.insert(i, step);
                    v.insert(i, step);
                }
                5 => {
                    let i = ((x >> 13) as usize) % (len + 2);
                    assert_eq!(r.remove(i), v.remove(i));
                }
                _ => {
                    let i = ((x >> 13) as usize) % (len + 1);
                    assert_eq!(r.get(i), v.get(i).copied());
                }
            }
            assert_eq!(r.len(), v.len());
            assert!(r.iter().eq(v.iter().copied()), "step {step}");
            assert!(r.iter().rev().eq(v.iter().rev().copied()), "step {step}");
            assert!(r.capacity().is_power_of_two() || r.capacity() == 0);
        }
        assert!(r.capacity() >= 4);
        let back: Ring = v.iter().copied().collect();
        assert_eq!(back, r);
        assert_eq!(format!("{r:?}"), format!("{:?}", v));
    }
}
