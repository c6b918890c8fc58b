//! Simulated time: integer nanoseconds (`SimTime`), with named unit constructors.
//!
//! No floats ever enter the event queue, so runs are bit-reproducible. Conversions
//! from seconds round to the nearest nanosecond, in one place (`SimTime::from_secs_f64`).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time or a duration, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Seconds (as a float, e.g. from a scenario file) to the nearest nanosecond.
    /// Negative and non-finite inputs are the caller's bug; they saturate to 0 / MAX.
    pub fn from_secs_f64(s: f64) -> Self {
        if !s.is_finite() {
            return if s > 0.0 { SimTime::MAX } else { SimTime::ZERO };
        }
        if s <= 0.0 {
            return SimTime::ZERO;
        }
        let ns = (s * 1e9).round();
        if ns >= u64::MAX as f64 {
            SimTime::MAX
        } else {
            SimTime(ns as u64)
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
}

/// An optional point in simulated time in 8 bytes, where `Option<SimTime>` takes 16
/// (issue 21 item 3: a connection keeps several): `u64::MAX` stands for none. Only for
/// times the simulation has reached, which are never `SimTime::MAX` (584 years);
/// [`OptTime::some`] checks it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OptTime(u64);

impl OptTime {
    pub const NONE: OptTime = OptTime(u64::MAX);

    /// `t`, which must not be `SimTime::MAX` (the encoding of none).
    #[inline]
    pub fn some(t: SimTime) -> OptTime {
        assert!(t != SimTime::MAX, "OptTime::some: SimTime::MAX is not a time the simulation reaches");
        OptTime(t.0)
    }

    #[inline]
    pub fn get(self) -> Option<SimTime> {
        (self.0 != u64::MAX).then_some(SimTime(self.0))
    }

    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != u64::MAX
    }

    #[inline]
    pub fn is_none(self) -> bool {
        self.0 == u64::MAX
    }

    /// The time, leaving none behind.
    #[inline]
    pub fn take(&mut self) -> Option<SimTime> {
        std::mem::replace(self, OptTime::NONE).get()
    }
}

impl Default for OptTime {
    fn default() -> Self {
        OptTime::NONE
    }
}

impl fmt::Debug for OptTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// Serialisation time of `bytes` on a link of `rate_bps`, rounded to the nearest ns.
/// Exact for the rates the papers use (1.6 Mb/s, 10 Mb/s: whole nanoseconds).
///
/// Computed in 64-bit arithmetic when `bytes * 8e9 + rate / 2` fits (any packet below
/// ~2.3 GB), else in 128-bit: the same integer formula either way, so the same result.
#[inline]
pub fn tx_time(bytes: u32, rate_bps: u64) -> SimTime {
    let half = rate_bps / 2;
    if let Some(n) = (bytes as u64).checked_mul(8_000_000_000).and_then(|b| b.checked_add(half)) {
        return SimTime(n / rate_bps);
    }
    tx_time_wide(bytes, rate_bps)
}

#[cold]
fn tx_time_wide(bytes: u32, rate_bps: u64) -> SimTime {
    let bits = bytes as u128 * 8 * 1_000_000_000u128;
    let r = rate_bps as u128;
    SimTime(((bits + r / 2) / r) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tx_time_exact_for_paper_rates() {
        assert_eq!(tx_time(1040, 1_600_000), SimTime::from_micros(5200));
        assert_eq!(tx_time(1040, 10_000_000), SimTime::from_micros(832));
        assert_eq!(tx_time(40, 1_600_000), SimTime::from_micros(200));
    }
    #[test]
    fn tx_time_narrow_path_equals_wide_formula() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = match i % 4 {
                0 => (x % 65_536) as u32,
                1 => x as u32,
                2 => u32::MAX - (x % 3) as u32,
                _ => (x % 2_000) as u32,
            };
            let rate = match i % 3 {
                0 => 1 + (x >> 20) % 100_000_000_000,
                1 => 1 + (x >> 7),
                _ => 1 + (x >> 40),
            };
            assert_eq!(tx_time(bytes, rate), tx_time_wide(bytes, rate), "{bytes} B at {rate} b/s");
        }
        assert_eq!(tx_time(u32::MAX, u64::MAX), tx_time_wide(u32::MAX, u64::MAX));
        assert_eq!(tx_time(0, 1), SimTime::ZERO);
    }
    #[test]
    fn secs_round_trip() {
        assert_eq!(SimTime::from_secs_f64(0.05), SimTime::from_millis(50));
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(1e-9 * 1.4), SimTime(1));
    }

    #[test]
    fn opt_time_is_eight_bytes_and_round_trips() {
        assert_eq!(std::mem::size_of::<OptTime>(), 8);
        assert_eq!(OptTime::default().get(), None);
        let mut t = OptTime::some(SimTime::from_millis(7));
        assert!(t.is_some() && !t.is_none());
        assert_eq!(t.get(), Some(SimTime::from_millis(7)));
        assert_eq!(OptTime::some(SimTime::ZERO).get(), Some(SimTime::ZERO));
        assert_eq!(t.take(), Some(SimTime::from_millis(7)));
        assert!(t.is_none());
        assert_eq!(format!("{:?}", OptTime::some(SimTime(5))), "Some(SimTime(5))");
    }
    #[test]
    #[should_panic(expected = "OptTime::some")]
    fn opt_time_refuses_max() {
        OptTime::some(SimTime::MAX);
    }
}
