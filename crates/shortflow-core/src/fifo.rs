//! [`Fifo`]: the power-of-two ring buffer the event loop's FIFOs share -- the engine's
//! arrival lanes and fold passes (`engine`) and the UDP multiplexer's lanes
//! (`traffic::mux`). Indices wrap with a mask, the buffer only grows (doubling, from
//! `MIN` entries: the hot path never allocates once a run is warm), and the accessors
//! the pop loop uses read without bounds checks, under the invariant written at
//! [`Fifo::push_back`].
//!
//! (The queues' packet ring, `net::queue::ring`, is a thin-pointer ring of its own: its
//! header lives in its allocation so that a link stays small.)

/// A FIFO of `T` in a ring of a power-of-two length of at least `MIN` (a power of two)
/// once anything was pushed; no buffer before that.
pub(crate) struct Fifo<T: Copy + Default, const MIN: usize> {
    buf: Box<[T]>,
    /// `buf.len() - 1` (0 while the buffer is empty).
    mask: usize,
    /// Index of the oldest element, and number of elements queued.
    head: usize,
    len: usize,
}

impl<T: Copy + Default, const MIN: usize> Default for Fifo<T, MIN> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const MIN: usize> Fifo<T, MIN> {
    const MIN_IS_POW2: () = assert!(MIN.is_power_of_two());

    /// An empty FIFO without a buffer.
    pub(crate) fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::MIN_IS_POW2;
        Fifo { buf: Box::new([]), mask: 0, head: 0, len: 0 }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's length (what it holds before it must grow).
    #[inline(always)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Make room for `n` elements (rounded up to a power of two) at once, so that a
    /// FIFO sized for the most it can hold never grows during the run.
    pub(crate) fn reserve_total(&mut self, n: usize) {
        while self.buf.len() < n {
            self.grow();
        }
    }

    /// Append `x`, doubling the buffer first when it is full.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & self.mask;
        debug_assert!(i < self.buf.len());
        // SAFETY (the invariant every unchecked access below relies on): the buffer is
        // empty or its length is a power of two with `mask == buf.len() - 1` (`grow`,
        // the only place that sets either), and `head` is always masked; after the test
        // above the buffer is not empty, so a masked index is in bounds.
        unsafe { *self.buf.get_unchecked_mut(i) = x };
        self.len += 1;
    }

    /// The oldest element, if any.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        debug_assert!(self.len == 0 || self.head < self.buf.len());
        // SAFETY: with an element queued the buffer is not empty and `head` is masked
        // (see `push_back`).
        (self.len > 0).then(|| unsafe { self.buf.get_unchecked(self.head) })
    }

    /// The newest element, if any.
    #[inline(always)]
    pub(crate) fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[(self.head + self.len - 1) & self.mask])
    }

    /// The element `d` places behind the oldest (`d = 0`: the oldest), if there are
    /// that many.
    #[inline(always)]
    pub(crate) fn get(&self, d: usize) -> Option<&T> {
        (d < self.len).then(|| &self.buf[(self.head + d) & self.mask])
    }

    /// Drop the oldest element without reading it (the FIFO must not be empty).
    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        debug_assert!(self.len > 0, "advance on an empty FIFO");
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
    }

    /// Remove and return the oldest element (the FIFO must not be empty).
    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> T {
        assert!(self.len > 0, "pop_front on an empty FIFO");
        debug_assert!(self.head < self.buf.len());
        // SAFETY: an element is queued, so the buffer is not empty, and `head` is
        // masked (see `push_back`).
        let x = unsafe { *self.buf.get_unchecked(self.head) };
        self.advance();
        x
    }

    /// The elements, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |k| &self.buf[(self.head + k) & self.mask])
    }

    /// Double the buffer (`MIN` entries to start with), keeping the order (oldest
    /// first, at index 0).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let n = self.buf.len();
        let mut nb = vec![T::default(); (2 * n).max(MIN)].into_boxed_slice();
        for (k, slot) in nb.iter_mut().take(self.len).enumerate() {
            *slot = self.buf[(self.head + k) & self.mask];
        }
        self.buf = nb;
        self.mask = self.buf.len() - 1;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Fifo;
    use std::collections::VecDeque;

    /// Random pushes and pops, wrapping and growing, against `VecDeque`.
    #[test]
    fn matches_vecdeque() {
        let mut f: Fifo<u64, 4> = Fifo::new();
        let mut r: VecDeque<u64> = VecDeque::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..100_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 5 < 3 || r.is_empty() {
                f.push_back(i);
                r.push_back(i);
            } else if x % 2 == 0 {
                assert_eq!(f.pop_front(), r.pop_front().unwrap());
            } else {
                f.advance();
                r.pop_front();
            }
            assert_eq!(f.len(), r.len());
            assert_eq!(f.front(), r.front());
            assert_eq!(f.back(), r.back());
            assert_eq!(f.get(3), r.get(3));
            assert!(f.capacity().is_power_of_two() && f.capacity() >= 4 && f.capacity() >= f.len());
        }
        assert!(f.iter().eq(r.iter()));
    }

    #[test]
    fn reserve_total_rounds_up_and_keeps_the_order() {
        let mut f: Fifo<u32, 16> = Fifo::new();
        assert_eq!(f.capacity(), 0);
        assert!(f.front().is_none() && f.back().is_none() && f.get(0).is_none());
        for i in 0..10 {
            f.push_back(i);
        }
        f.advance();
        f.reserve_total(100);
        assert_eq!(f.capacity(), 128);
        assert!(f.iter().copied().eq(1..10));
    }
}
