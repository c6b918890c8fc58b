//! Software prefetching for large runs (issue 21 item 3, time linear in N).
//!
//! With 10^5-10^6 connections every event touches state that was last used one round
//! trip ago (tens of MB of other connections' state later), so nearly every access to a
//! connection, its links, its packets or its route entries misses the caches. Which
//! state the next few events touch is often known well before they run (the arrival
//! lanes are FIFOs: `Simulation::prefetch_lane`), so its cache lines can be requested
//! early and the misses overlap instead of stalling one after the other.
//!
//! A prefetch is a hint: it loads nothing into the program and changes no memory, so it
//! cannot change a result. The helpers take references (or slices and an index they
//! check), so every address they hint is inside a live object.

/// Hint that the cache lines of `x` (its first `LINES` lines, from its address) will be
/// read soon.
#[inline(always)]
pub fn lines<T, const LINES: usize>(x: &T) {
    let p = x as *const T as *const u8;
    let n = std::mem::size_of::<T>();
    let mut off = 0;
    let mut k = 0;
    while k < LINES && off < n {
        hint(p.wrapping_add(off));
        off += 64;
        k += 1;
    }
}

/// Hint that the whole of `x` (every cache line it spans) will be read soon.
#[inline(always)]
pub fn all<T>(x: &T) {
    let p = x as *const T as *const u8;
    let n = std::mem::size_of::<T>();
    // The line of its first byte and of every 64-byte step, and the line of its last byte
    // (an object need not start on a line boundary).
    let mut off = 0;
    while off < n {
        hint(p.wrapping_add(off));
        off += 64;
    }
    if n > 0 {
        hint(p.wrapping_add(n - 1));
    }
}

/// Hint element `i` of `v` (whole), if it exists.
#[inline(always)]
pub fn elem<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        all(x);
    }
}

#[inline(always)]
fn hint(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `prefetcht0` never faults, reads nothing into a register and writes no
        // memory, whatever the address; the addresses passed here lie inside (or, for
        // the last-byte hint, at the end of) an object the caller holds a reference to.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = p;
    }
}
