//! Heads up! Read tcp-spand spec §1 / paper §4 before changing this file, and spec
//! §2.2–2.4 / paper §5.2, which this file implements.
//!
//! The TCP/SPAND performance gateway: one shared object per organisation (a global
//! object senders call directly in simulation, spec §2.1). Senders report `W_c` and
//! RTT samples for a destination; a query returns the arithmetic means of the samples
//! of the destination's network received in the last `window` (paper: 300 s), with
//! `W_c` and RTT averaged separately, or `None` ("not enough information", the sender
//! slow-starts) when fewer than `min_samples` remain (spec §2.4, A11).
//!
//! Time is assumed non-decreasing across calls (simulation time). A report older than
//! the newest stored sample of its key is still inserted in time order.

use std::collections::{HashMap, VecDeque};

use crate::time::SimTime;

/// Paper §5.2.3: S = 5 minutes.
pub const DEFAULT_WINDOW: SimTime = SimTime::from_secs(300);
/// Spec §2.4 / A11: one sample is enough.
pub const DEFAULT_MIN_SAMPLES: u32 = 1;
/// Paper §5.2.1: the top 24 bits of the IPv4 address name the network.
pub const DEFAULT_PREFIX_LEN: u8 = 24;

/// A gateway answer: means over the samples in the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Mean `W_c` (packets; real-valued, the caller floors it, spec §1.4(6)).
    pub wc: f64,
    /// Mean RTT (seconds).
    pub rtt_s: f64,
    /// Samples the means are over.
    pub n_samples: u32,
}

/// A running sum with Neumaier compensation: adding and later subtracting a huge value
/// leaves no visible residue in the sum of the small ones.
#[derive(Clone, Copy, Debug, Default)]
struct RunningSum {
    s: f64,
    c: f64,
}

impl RunningSum {
    fn add(&mut self, x: f64) {
        let t = self.s + x;
        self.c += if self.s.abs() >= x.abs() { (self.s - t) + x } else { (x - t) + self.s };
        self.s = t;
    }
    fn get(self) -> f64 {
        self.s + self.c
    }
    fn of(xs: impl Iterator<Item = f64>) -> Self {
        let mut r = RunningSum::default();
        xs.for_each(|x| r.add(x));
        r
    }
}

/// One destination network's samples, time-ordered, with running sums.
#[derive(Clone, Debug, Default)]
struct History {
    samples: VecDeque<(SimTime, f64, f64)>,
    sum_wc: RunningSum,
    sum_rtt: RunningSum,
    /// Removals since the sums were last recomputed from scratch.
    pops: usize,
}

impl History {
    fn push(&mut self, t: SimTime, wc: f64, rtt_s: f64) {
        // Keep time order even for an out-of-order report (O(n) then, O(1) normally).
        let at = self.samples.partition_point(|&(u, _, _)| u <= t);
        self.samples.insert(at, (t, wc, rtt_s));
        self.sum_wc.add(wc);
        self.sum_rtt.add(rtt_s);
    }

    /// Spec §2.4: drop samples strictly older than `now − window` (t < now − window).
    fn expire(&mut self, now: SimTime, window: SimTime) {
        let cutoff = now.saturating_sub(window);
        while let Some(&(t, wc, rtt)) = self.samples.front() {
            if t >= cutoff {
                break;
            }
            self.samples.pop_front();
            self.sum_wc.add(-wc);
            self.sum_rtt.add(-rtt);
            self.pops += 1;
        }
        // Float-drift guard (on top of the compensated sums): exact zero when empty;
        // otherwise recompute once the removals outnumber the stored samples, which
        // costs O(1) amortised per removal.
        if self.samples.is_empty() {
            *self = History::default();
        } else if self.pops > self.samples.len() {
            self.sum_wc = RunningSum::of(self.samples.iter().map(|s| s.1));
            self.sum_rtt = RunningSum::of(self.samples.iter().map(|s| s.2));
            self.pops = 0;
        }
    }
}

/// The performance gateway (spec §2.4): per-network sliding-window means.
#[derive(Clone, Debug)]
pub struct Gateway {
    window: SimTime,
    min_samples: u32,
    prefix_len: u8,
    mask: u32,
    nets: HashMap<u32, History>,
    rejected: u64,
}

impl Gateway {
    /// A gateway averaging over `window`, answering only with at least `min_samples`
    /// samples, grouping destinations by their top `prefix_len` address bits.
    /// Errors (naming the parameter and value) for `prefix_len > 32`, `min_samples == 0`
    /// or a zero `window`.
    pub fn new(window: SimTime, min_samples: u32, prefix_len: u8) -> Result<Self, String> {
        if prefix_len > 32 {
            return Err(format!("prefix_len = {prefix_len}: an IPv4 prefix length must be 0..=32"));
        }
        if min_samples == 0 {
            return Err("min_samples = 0: at least 1 sample is needed for an estimate".to_string());
        }
        if window == SimTime::ZERO {
            return Err(format!("window = {window}: the averaging window must be positive"));
        }
        // Paper §5.2.1: network = the top `prefix_len` bits; /0 groups everything.
        let mask = if prefix_len == 0 { 0 } else { u32::MAX << (32 - prefix_len) };
        Ok(Gateway { window, min_samples, prefix_len, mask, nets: HashMap::new(), rejected: 0 })
    }

    /// The network key of a destination address: `addr & mask(prefix_len)` (paper
    /// §5.2.1; /24 → `addr & 0xFFFF_FF00`).
    pub fn key(&self, addr: u32) -> u32 {
        addr & self.mask
    }

    /// Records a sample for `addr`'s network (spec §2.3): `wc` in packets, `rtt_s` in
    /// seconds. A sample with a non-finite or negative value is dropped and counted in
    /// [`Gateway::n_rejected`] (it would poison the means). Also drops the key's
    /// expired samples, which bounds memory for keys that are never queried.
    pub fn report(&mut self, addr: u32, now: SimTime, wc: f64, rtt_s: f64) {
        if !(wc.is_finite() && wc >= 0.0 && rtt_s.is_finite() && rtt_s >= 0.0) {
            self.rejected += 1;
            return;
        }
        let h = self.nets.entry(addr & self.mask).or_default();
        h.expire(now, self.window);
        h.push(now, wc, rtt_s);
    }

    /// Spec §2.4 query: drops `addr`'s network's samples older than `now − window`
    /// (strictly: a sample exactly `window` old still counts), then returns the means
    /// of `W_c` and RTT, or `None` ("do slow start") with fewer than `min_samples`.
    /// A network left with no sample is forgotten.
    pub fn query(&mut self, addr: u32, now: SimTime) -> Option<Estimate> {
        let key = addr & self.mask;
        let h = self.nets.get_mut(&key)?;
        h.expire(now, self.window);
        let n = h.samples.len();
        if n == 0 {
            self.nets.remove(&key);
            return None;
        }
        if n < self.min_samples as usize {
            return None;
        }
        Some(Estimate {
            wc: h.sum_wc.get() / n as f64,
            rtt_s: h.sum_rtt.get() / n as f64,
            n_samples: u32::try_from(n).unwrap_or(u32::MAX),
        })
    }

    /// Networks holding state (at least one sample at their last report or query).
    pub fn n_keys(&self) -> usize {
        self.nets.len()
    }

    /// Samples dropped by [`Gateway::report`] for a non-finite or negative value.
    pub fn n_rejected(&self) -> u64 {
        self.rejected
    }

    pub fn window(&self) -> SimTime {
        self.window
    }

    pub fn min_samples(&self) -> u32 {
        self.min_samples
    }

    pub fn prefix_len(&self) -> u8 {
        self.prefix_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(a: u8, b: u8, c: u8, d: u8) -> u32 {
        u32::from_be_bytes([a, b, c, d])
    }

    fn gw(prefix: u8) -> Gateway {
        Gateway::new(DEFAULT_WINDOW, DEFAULT_MIN_SAMPLES, prefix).expect("valid parameters")
    }

    #[test]
    fn rejects_bad_parameters_with_named_messages() {
        let e = Gateway::new(DEFAULT_WINDOW, 1, 33).err().unwrap_or_default();
        assert!(e.contains("prefix_len") && e.contains("33"), "{e}");
        let e = Gateway::new(DEFAULT_WINDOW, 0, 24).err().unwrap_or_default();
        assert!(e.contains("min_samples") && e.contains('0'), "{e}");
        let e = Gateway::new(SimTime::ZERO, 1, 24).err().unwrap_or_default();
        assert!(e.contains("window") && e.contains('0'), "{e}");
        for p in 0..=32u8 {
            assert!(Gateway::new(SimTime::from_nanos(1), 1, p).is_ok());
        }
        let g = gw(24);
        assert_eq!((g.window(), g.min_samples(), g.prefix_len()), (SimTime::from_secs(300), 1, 24));
    }

    #[test]
    fn empty_history_is_none() {
        let mut g = gw(24);
        assert_eq!(g.query(ip(10, 0, 0, 1), SimTime::ZERO), None);
        assert_eq!(g.query(ip(10, 0, 0, 1), SimTime::from_secs(1000)), None);
        assert_eq!(g.n_keys(), 0);
    }

    #[test]
    fn means_of_wc_and_rtt_are_separate() {
        let mut g = gw(24);
        let a = ip(192, 168, 1, 7);
        g.report(a, SimTime::from_secs(1), 10.0, 0.100);
        g.report(a, SimTime::from_secs(2), 20.0, 0.300);
        g.report(a, SimTime::from_secs(3), 33.0, 0.200);
        let e = g.query(a, SimTime::from_secs(4)).expect("three samples");
        assert_eq!(e.n_samples, 3);
        assert!((e.wc - 21.0).abs() < 1e-12);
        assert!((e.rtt_s - 0.2).abs() < 1e-12);
    }

    /// Spec §2.4: drop items with t < now − S. A sample exactly S old stays.
    #[test]
    fn window_expiry_boundary() {
        let mut g = gw(24);
        let a = ip(10, 1, 2, 3);
        let t0 = SimTime::from_secs(10);
        g.report(a, t0, 8.0, 0.1);
        let edge = t0 + DEFAULT_WINDOW;
        assert_eq!(g.query(a, edge).map(|e| e.n_samples), Some(1), "exactly at the boundary");
        assert_eq!(g.query(a, edge + SimTime::from_nanos(1)), None, "1 ns outside");
        assert_eq!(g.n_keys(), 0, "an emptied network is forgotten");
        // Early queries (now < window) keep everything.
        g.report(a, SimTime::ZERO, 4.0, 0.1);
        assert_eq!(g.query(a, SimTime::from_secs(1)).map(|e| e.wc), Some(4.0));
    }

    #[test]
    fn sliding_window_drops_only_old_samples() {
        let mut g = gw(24);
        let a = ip(10, 1, 2, 3);
        for s in 0..10u64 {
            g.report(a, SimTime::from_secs(s * 100), s as f64, 0.05 * (s + 1) as f64);
        }
        // At t = 1000 s the window is [700, 1000]: samples 7, 8, 9.
        let e = g.query(a, SimTime::from_secs(1000)).expect("three left");
        assert_eq!(e.n_samples, 3);
        assert!((e.wc - 8.0).abs() < 1e-12);
        assert!((e.rtt_s - 0.45).abs() < 1e-12);
    }

    #[test]
    fn min_samples_above_one() {
        let mut g = Gateway::new(DEFAULT_WINDOW, 3, 24).expect("valid");
        let a = ip(1, 2, 3, 4);
        g.report(a, SimTime::from_secs(1), 5.0, 0.1);
        g.report(a, SimTime::from_secs(2), 7.0, 0.1);
        assert_eq!(g.query(a, SimTime::from_secs(3)), None);
        assert_eq!(g.n_keys(), 1, "too few samples is not the same as none");
        g.report(a, SimTime::from_secs(3), 9.0, 0.1);
        assert_eq!(g.query(a, SimTime::from_secs(3)).map(|e| (e.wc, e.n_samples)), Some((7.0, 3)));
        // The first sample expires: back to "not enough".
        assert_eq!(g.query(a, SimTime::from_secs(302)), None);
    }

    #[test]
    fn prefix_grouping() {
        let (a, b, c) = (ip(10, 20, 30, 1), ip(10, 20, 30, 254), ip(10, 20, 31, 1));
        let d = ip(99, 1, 1, 1);
        let t = SimTime::from_secs(1);
        let q = SimTime::from_secs(2);

        // /24 (paper default): a and b share a network, c does not.
        let mut g = gw(DEFAULT_PREFIX_LEN);
        assert_eq!(g.key(a), ip(10, 20, 30, 0));
        assert_eq!(g.key(a), a & 0xFFFF_FF00);
        g.report(a, t, 10.0, 0.1);
        assert_eq!(g.query(b, q).map(|e| e.wc), Some(10.0));
        assert_eq!(g.query(c, q), None);

        // /16: all three share.
        let mut g = gw(16);
        assert_eq!(g.key(c), ip(10, 20, 0, 0));
        g.report(a, t, 10.0, 0.1);
        g.report(c, t, 20.0, 0.3);
        assert_eq!(g.query(b, q).map(|e| (e.wc, e.n_samples)), Some((15.0, 2)));
        assert_eq!(g.query(d, q), None);
        assert_eq!(g.n_keys(), 1);

        // /32: host locality, nothing shared.
        let mut g = gw(32);
        assert_eq!(g.key(b), b);
        g.report(a, t, 10.0, 0.1);
        assert_eq!(g.query(b, q), None);
        assert_eq!(g.query(a, q).map(|e| e.wc), Some(10.0));

        // /0: one network for everything (spec §2.2 / A12 simulation default).
        let mut g = gw(0);
        assert_eq!(g.key(d), 0);
        g.report(a, t, 10.0, 0.1);
        g.report(d, t, 30.0, 0.1);
        assert_eq!(g.query(ip(255, 255, 255, 255), q).map(|e| e.wc), Some(20.0));
        assert_eq!(g.n_keys(), 1);
    }

    #[test]
    fn many_keys_are_independent() {
        let mut g = gw(24);
        for net in 0..1000u32 {
            for k in 0..=(net % 4) {
                g.report(net << 8 | k, SimTime::from_secs(k as u64), net as f64 + k as f64, 0.01 * k as f64);
            }
        }
        assert_eq!(g.n_keys(), 1000);
        for net in 0..1000u32 {
            let n = net % 4 + 1;
            let e = g.query(net << 8 | 200, SimTime::from_secs(10)).expect("history");
            assert_eq!(e.n_samples, n);
            let mean_k = (n - 1) as f64 / 2.0;
            assert!((e.wc - (net as f64 + mean_k)).abs() < 1e-9, "net {net}");
            assert!((e.rtt_s - 0.01 * mean_k).abs() < 1e-12, "net {net}");
        }
        // All expire together.
        for net in 0..1000u32 {
            assert_eq!(g.query(net << 8, SimTime::from_secs(1000)), None);
        }
        assert_eq!(g.n_keys(), 0);
    }

    #[test]
    fn bad_samples_are_rejected_not_averaged() {
        let mut g = gw(24);
        let a = ip(1, 1, 1, 1);
        g.report(a, SimTime::from_secs(1), f64::NAN, 0.1);
        g.report(a, SimTime::from_secs(1), 5.0, f64::INFINITY);
        g.report(a, SimTime::from_secs(1), -1.0, 0.1);
        g.report(a, SimTime::from_secs(1), 5.0, -0.1);
        assert_eq!(g.n_rejected(), 4);
        assert_eq!(g.query(a, SimTime::from_secs(2)), None);
        g.report(a, SimTime::from_secs(1), 0.0, 0.0); // cwnd 1 − 1 = 0 is a valid sample
        assert_eq!(g.query(a, SimTime::from_secs(2)).map(|e| e.wc), Some(0.0));
    }

    #[test]
    fn out_of_order_report_keeps_time_order() {
        let mut g = gw(24);
        let a = ip(1, 1, 1, 1);
        g.report(a, SimTime::from_secs(500), 10.0, 0.1);
        g.report(a, SimTime::from_secs(300), 20.0, 0.1); // late report of an older sample
        assert_eq!(g.query(a, SimTime::from_secs(500)).map(|e| e.wc), Some(15.0));
        // Window [301, 601]: the 300 s sample expires first although it came last.
        assert_eq!(g.query(a, SimTime::from_secs(601)).map(|e| e.wc), Some(10.0));
    }

    /// Running sums with a long-lived key: values of very different magnitude pass
    /// through; the mean stays equal to a fresh recomputation.
    #[test]
    fn running_sums_do_not_drift() {
        let mut g = Gateway::new(SimTime::from_secs(10), 1, 24).expect("valid");
        let a = ip(1, 1, 1, 1);
        let mut live: VecDeque<(u64, f64, f64)> = VecDeque::new();
        for s in 0..20_000u64 {
            let wc = if s % 97 == 0 { 1e12 } else { (s % 13) as f64 + 0.1 };
            let rtt = if s % 89 == 0 { 1e6 } else { 0.001 * (s % 7) as f64 };
            g.report(a, SimTime::from_secs(s), wc, rtt);
            live.push_back((s, wc, rtt));
            while live.front().is_some_and(|&(t, _, _)| t + 10 < s) {
                live.pop_front();
            }
            let e = g.query(a, SimTime::from_secs(s)).expect("non-empty");
            let n = live.len() as f64;
            let (mw, mr) = (live.iter().map(|x| x.1).sum::<f64>() / n, live.iter().map(|x| x.2).sum::<f64>() / n);
            assert_eq!(e.n_samples as usize, live.len());
            assert!((e.wc - mw).abs() <= 1e-6 * mw.abs().max(1.0), "t={s}: {} vs {mw}", e.wc);
            assert!((e.rtt_s - mr).abs() <= 1e-6 * mr.abs().max(1.0), "t={s}: {} vs {mr}", e.rtt_s);
        }
    }
}
