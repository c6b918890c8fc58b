//! ns-2.35's coarse-grained RTT estimator and retransmission timeout
//! (tcp.cc `rtt_init`, `rtt_update`, `rtt_timeout`, `rtt_backoff`).
//!
//! Heads up! Integer, tick-based arithmetic on purpose: srtt is kept as
//! `ticks << T_SRTT_BITS`, rttvar as `ticks << T_RTTVAR_BITS`, and the RTT sample is
//! rounded with a per-agent `boot_time` offset ("where between ticks the system came
//! up"). Changing any of it changes every timeout.

/// Static parameters (ns-2 knobs).
#[derive(Clone, Debug, PartialEq)]
pub struct RttParams {
    pub tick: f64,
    pub srtt_bits: u32,
    pub rttvar_bits: u32,
    pub rttvar_exp: u32,
    pub minrto: f64,
    pub maxrto: f64,
    pub rtxcur_init: f64,
    pub srtt_init: i32,
    pub rttvar_init: i32,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub t_rtt: i32,
    pub t_srtt: i32,
    pub t_rttvar: i32,
    /// Current RTO before backoff (s).
    pub t_rtxcur: f64,
    pub t_backoff: i32,
    /// Offset in [0, tick) added to send times before rounding (ns-2 `boot_time_`).
    pub boot_time: f64,
    /// Not in ns-2: the same EWMA (gain 2^-srtt_bits) over the exact, unquantised RTT
    /// samples (s; 0 before the first). Read only by TCP/SPAND's `rtt_report = "exact"`
    /// ablation; no rule of the estimator uses it.
    pub exact_srtt: f64,
}

/// C `fmod(x, y)`, bit for bit the same as Rust's `x % y`, but several times faster
/// for the operands `update` sees (positive normal numbers of similar magnitude).
///
/// Why it is exact: for positive finite `x = mx * 2^ex` and `y = my * 2^ey` (integer
/// significands), `fmod` returns the exact real remainder `x - trunc(x/y) * y`, which
/// is always representable. With `e = min(ex, ey)` both are integers times `2^e`, and
/// that remainder is `((mx << (ex - e)) mod (my << (ey - e))) * 2^e` -- an integer
/// remainder below `my << (ey - e)`. In the branches below that integer is below 2^53
/// or 2^64 (see each) and is scaled by an exact power of two, so converting it back
/// to `f64` is exact. Everything else (zero, subnormals, signs, infinities, NaN, huge
/// exponent gaps) falls back to `%`. Tested against `%` on random operands below.
#[inline]
fn fmod(x: f64, y: f64) -> f64 {
    const MANT: u64 = (1 << 52) - 1;
    let (bx, by) = (x.to_bits(), y.to_bits());
    // Biased exponents; values >= 2048 mean a negative sign, 2047 is inf/NaN, 0 is
    // zero/subnormal. Exponents below 60 are excluded so `2^e` below stays normal.
    let (ex, ey) = ((bx >> 52) as i32, (by >> 52) as i32);
    if !(60..=2046).contains(&ex) || !(60..=2046).contains(&ey) {
        return x % y;
    }
    let mx = (bx & MANT) | 1 << 52;
    let my = (by & MANT) | 1 << 52;
    let (r, e) = if ex >= ey {
        // `mx << (ex - ey)` < 2^127; the remainder is below `my` < 2^53.
        if ex - ey > 74 {
            return x % y;
        }
        ((((mx as u128) << (ex - ey)) % my as u128) as u64, ey)
    } else {
        // `my << (ey - ex)` < 2^64; the remainder is `mx` reduced once at most, < 2^53.
        if ey - ex > 11 {
            return x % y;
        }
        (mx % (my << (ey - ex)), ex)
    };
    // r * 2^(e - 1075): a product by a normal power of two (e - 52 >= 8), exact.
    r as f64 * f64::from_bits(((e - 52) as u64) << 52)
}

impl RttEstimator {
    pub fn new(p: &RttParams, boot_time: f64) -> Self {
        let mut r =
            RttEstimator { t_rtt: 0, t_srtt: 0, t_rttvar: 0, t_rtxcur: 0.0, t_backoff: 1, boot_time, exact_srtt: 0.0 };
        r.init(p);
        r
    }

    /// ns-2.35: tcp.cc `rtt_init()`. Note `int(srtt_init_ / tcp_tick_)`.
    pub fn init(&mut self, p: &RttParams) {
        self.t_rtt = 0;
        self.t_srtt = ((p.srtt_init as f64 / p.tick) as i32) << p.srtt_bits;
        self.t_rttvar = ((p.rttvar_init as f64 / p.tick) as i32) << p.rttvar_bits;
        self.t_rtxcur = p.rtxcur_init;
        self.t_backoff = 1;
        self.exact_srtt = 0.0;
    }

    /// ns-2.35: tcp.cc `rtt_update(tao)` without timestamps; `now` and `tao` in s.
    /// Always inlined (into `newack`): out of line it costs ns-2's hot path a call per
    /// new ack.
    #[inline(always)]
    pub fn update(&mut self, p: &RttParams, now: f64, tao: f64) {
        let mut sendtime = now - tao;
        sendtime += self.boot_time;
        let tickoff = fmod(sendtime, p.tick);
        self.t_rtt = ((tao + tickoff) / p.tick) as i32;
        if self.t_rtt < 1 {
            self.t_rtt = 1;
        }
        if self.t_srtt != 0 {
            self.exact_srtt += (tao - self.exact_srtt) / (1u32 << p.srtt_bits) as f64;
            // ns-2 uses a `short` here.
            let mut delta: i16 = (self.t_rtt - (self.t_srtt >> p.srtt_bits)) as i16;
            self.t_srtt += delta as i32;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = delta.wrapping_neg();
            }
            delta = delta.wrapping_sub((self.t_rttvar >> p.rttvar_bits) as i16);
            self.t_rttvar += delta as i32;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.exact_srtt = tao;
            self.t_srtt = self.t_rtt << p.srtt_bits;
            self.t_rttvar = self.t_rtt << (p.rttvar_bits - 1);
        }
        self.t_rtxcur = (((self.t_rttvar << (p.rttvar_exp + (p.srtt_bits - p.rttvar_bits))) + self.t_srtt)
            >> p.srtt_bits) as f64
            * p.tick;
    }

    /// ns-2.35: tcp.cc `rtt_timeout()` with `rfc2988_` true and no timestamps (s).
    pub fn timeout(&self, p: &RttParams) -> f64 {
        let mut timeout = if self.t_rtxcur < p.minrto {
            p.minrto * self.t_backoff as f64
        } else {
            self.t_rtxcur * self.t_backoff as f64
        };
        if timeout > p.maxrto {
            timeout = p.maxrto;
        }
        if timeout < 2.0 * p.tick {
            timeout = 2.0 * p.tick;
        }
        timeout
    }

    /// ns-2.35: tcp.cc `rtt_backoff()`.
    pub fn backoff(&mut self, p: &RttParams) {
        if self.t_backoff < 64 || self.timeout(p) < p.maxrto {
            self.t_backoff <<= 1;
        }
        if self.t_backoff > 8 {
            self.t_rttvar += self.t_srtt >> p.srtt_bits;
            self.t_srtt = 0;
            self.exact_srtt = 0.0;
        }
    }

    /// Smoothed RTT in seconds, whole ticks: `(t_srtt_ >> T_SRTT_BITS) × tick`, what
    /// ns-2's tcp.cc prints and uses for the RTO (0 before the first sample).
    pub fn srtt_s(&self, p: &RttParams) -> f64 {
        (self.t_srtt >> p.srtt_bits) as f64 * p.tick
    }

    /// Smoothed RTT in seconds with the fractional bits ns-2 keeps:
    /// `t_srtt_ / 2^T_SRTT_BITS × tick` (resolution tick/8 with the default 3 bits).
    pub fn srtt_frac_s(&self, p: &RttParams) -> f64 {
        self.t_srtt as f64 / (1u32 << p.srtt_bits) as f64 * p.tick
    }

    /// The EWMA of the exact RTT samples (s); see [`RttEstimator::exact_srtt`].
    pub fn exact_srtt_s(&self) -> f64 {
        self.exact_srtt
    }

    /// Overwrite srtt with an external estimate (TCP/SPAND spec A7; rttvar keeps the
    /// agent's value). `fractional`: `t_srtt_ = round(rtt/tick × 2^T_SRTT_BITS)`, the
    /// resolution [`RttEstimator::srtt_frac_s`] reports; otherwise whole ticks,
    /// `round(rtt/tick) << T_SRTT_BITS` (the resolution of [`RttEstimator::srtt_s`]).
    /// The exact EWMA is set to `rtt_s`.
    ///
    /// Two additions the spec leaves open: (1) on a connection that has no RTT sample
    /// yet (t_srtt == 0), the agent's rttvar is only ns-2's placeholder `rttvar_init_`
    /// (12 s) that the first sample would replace; keeping it would make the RTO about
    /// 48 s at a 50 ms tick, so the estimate is taken as the first sample
    /// (rttvar = rtt/2, as `update` does, at the same resolution). (2) The RTO is
    /// recomputed from the injected values at once, as `update` would.
    pub fn set_srtt(&mut self, p: &RttParams, rtt_s: f64, fractional: bool) {
        let ticks = rtt_s / p.tick;
        if fractional {
            let units = |bits: u32| ((ticks * (1u32 << bits) as f64).round() as i32).max(1);
            if self.t_srtt == 0 {
                self.t_rttvar = units(p.rttvar_bits - 1);
            }
            self.t_srtt = units(p.srtt_bits);
        } else {
            let ticks = ticks.round().max(1.0) as i32;
            if self.t_srtt == 0 {
                self.t_rttvar = ticks << (p.rttvar_bits - 1);
            }
            self.t_srtt = ticks << p.srtt_bits;
        }
        self.exact_srtt = rtt_s;
        self.t_rtxcur = (((self.t_rttvar << (p.rttvar_exp + (p.srtt_bits - p.rttvar_bits))) + self.t_srtt)
            >> p.srtt_bits) as f64
            * p.tick;
    }
}

/// A fine-grained RTT estimator over exact per-ack samples (s): the thesis's
/// `srtt_exact`/`rttvar_exact` (ns-2.35 tcp-fs.cc / tcp-asym.cc `rtt_update_exact`,
/// with the gains intended there: ns-2.35 writes `1/8` in integer arithmetic, which is
/// 0). The first sample sets srtt = tau, rttvar = tau / 2; later ones
/// `srtt += g (tau − srtt)`, `rttvar += (|tau − srtt| − rttvar) / 4`. Used by TCP Fast
/// Start (burst pacing, reset timer) and sender adaptation (burst pacing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactRtt {
    /// Smoothed RTT (s); 0 before the first sample.
    pub srtt: f64,
    /// Mean deviation (s).
    pub rttvar: f64,
    /// Gain of srtt (1/8).
    pub gain: f64,
}

impl Default for ExactRtt {
    fn default() -> Self {
        ExactRtt { srtt: 0.0, rttvar: 0.0, gain: 0.125 }
    }
}

impl ExactRtt {
    pub fn with_gain(gain: f64) -> ExactRtt {
        ExactRtt { gain, ..ExactRtt::default() }
    }

    /// One sample `tau` (s).
    pub fn sample(&mut self, tau: f64) {
        if self.srtt == 0.0 {
            self.srtt = tau;
            self.rttvar = tau / 2.0;
        } else {
            let delta = (tau - self.srtt).abs();
            self.srtt += self.gain * (tau - self.srtt);
            self.rttvar += (delta - self.rttvar) / 4.0;
        }
    }

    /// srtt, if there was a sample.
    pub fn srtt(&self) -> Option<f64> {
        (self.srtt > 0.0).then_some(self.srtt)
    }

    /// Forget (a stale cache).
    pub fn reset(&mut self) {
        self.srtt = 0.0;
        self.rttvar = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(tick: f64, minrto: f64) -> RttParams {
        RttParams {
            tick,
            srtt_bits: 3,
            rttvar_bits: 2,
            rttvar_exp: 2,
            minrto,
            maxrto: 60.0,
            rtxcur_init: 3.0,
            srtt_init: 0,
            rttvar_init: 12,
        }
    }

    #[test]
    fn initial_rto_is_rtxcur_init() {
        let p = params(0.01, 0.2);
        let r = RttEstimator::new(&p, 0.0);
        assert_eq!(r.timeout(&p), 3.0);
        // rttvar_init 12 s / 10 ms ticks << 2
        assert_eq!(r.t_rttvar, 1200 << 2);
    }

    #[test]
    fn first_sample_sets_srtt_and_rttvar() {
        // A tick that is exact in binary, so fmod() below is exact too.
        let p = params(1.0 / 64.0, 0.2);
        let mut r = RttEstimator::new(&p, 0.0);
        // sent at 1.0 s (a whole number of ticks), rtt 10.5 ticks: truncated to 10.
        r.update(&p, 1.0 + 10.5 / 64.0, 10.5 / 64.0);
        assert_eq!(r.t_rtt, 10);
        assert_eq!(r.t_srtt, 80);
        assert_eq!(r.t_rttvar, 20);
        // rtxcur = ((20 << 3) + 80) >> 3 = 30 ticks
        assert_eq!(r.t_rtxcur, 30.0 / 64.0);
        assert_eq!(r.timeout(&p), 30.0 / 64.0);
    }

    #[test]
    fn fast_fmod_equals_rem_operator() {
        let mut st = 0x1234_5678_9abc_def1u64;
        let mut rnd = || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st
        };
        for i in 0..400_000u64 {
            let r = rnd();
            let x = match i % 5 {
                0 => (r >> 11) as f64 / (1u64 << 53) as f64 * 1000.0,
                1 => f64::from_bits(r >> 1),
                2 => (r % 100_000) as f64 * 0.01 + 0.003,
                3 => -((r >> 11) as f64) * 1e-9,
                _ => (r >> 11) as f64 * 1e-9,
            };
            let y = match i % 3 {
                0 => 0.01,
                1 => 0.1,
                _ => f64::from_bits(r.rotate_left(17) >> 1),
            };
            let (want, got) = (x % y, fmod(x, y));
            assert!(want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()), "fmod({x:e}, {y:e})");
        }
        for (x, y) in [(0.0, 0.01), (1.0, 0.01), (1e300, 1e-300), (5e-324, 0.01), (f64::INFINITY, 1.0), (1.0, 0.0)] {
            let (want, got) = (x % y, fmod(x, y));
            assert!(want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()), "fmod({x:e}, {y:e})");
        }
    }

    #[test]
    fn fmod_of_inexact_tick_is_kept() {
        // ns-2 computes fmod(1.0, 0.01) in doubles: 0.00999..., not 0, so a 10.5-tick
        // RTT rounds to 11 ticks. We keep that behaviour.
        let p = params(0.01, 0.2);
        let mut r = RttEstimator::new(&p, 0.0);
        r.update(&p, 1.105, 0.105);
        assert_eq!(r.t_rtt, 11);
    }

    #[test]
    fn boot_time_shifts_tick_rounding() {
        let p = params(0.0625, 0.0);
        let mut a = RttEstimator::new(&p, 0.0);
        let mut b = RttEstimator::new(&p, 0.04);
        // sent at 10.0 s, rtt 2.5 ticks: tickoff 0 -> 2 ticks; tickoff 0.04 -> 3 ticks
        a.update(&p, 10.15625, 0.15625);
        b.update(&p, 10.15625, 0.15625);
        assert_eq!(a.t_rtt, 2);
        assert_eq!(b.t_rtt, 3);
    }

    #[test]
    fn min_rto_floor_and_two_ticks() {
        let p = params(0.05, 0.0);
        let mut r = RttEstimator::new(&p, 0.0);
        r.update(&p, 1.02, 0.02);
        // 1 tick: rtxcur = ((rttvar 2 << 3) + 8) >> 3 = 3 ticks = 0.15 s
        assert!((r.timeout(&p) - 0.15).abs() < 1e-12);
        let p2 = params(0.05, 0.2);
        assert!((r.timeout(&p2) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn injected_srtt_on_a_fresh_connection_acts_as_first_sample() {
        let p = params(0.05, 0.0);
        let mut r = RttEstimator::new(&p, 0.0);
        r.set_srtt(&p, 0.1, false); // 2 ticks
        assert_eq!(r.t_srtt, 16);
        assert_eq!(r.t_rttvar, 4);
        // rtxcur = ((4 << 3) + 16) >> 3 = 6 ticks = 0.3 s, not ~48 s
        assert!((r.timeout(&p) - 0.3).abs() < 1e-12);
        // with a sample, rttvar is kept
        r.update(&p, 10.3, 0.3);
        let var = r.t_rttvar;
        r.set_srtt(&p, 0.1, false);
        assert_eq!(r.t_rttvar, var);
        assert_eq!(r.t_srtt, 16);
    }

    /// TCP/SPAND's RTT resolution: ns-2 keeps srtt in eighths of a tick; the whole-tick
    /// reading drops those bits, the fractional one keeps them, and injecting at the
    /// fractional resolution reads back the same value.
    #[test]
    fn srtt_readings_and_injection_resolution() {
        // A tick exact in binary, so the fmod() of the sample rounding is exact too.
        let p = params(0.0625, 0.0);
        let mut r = RttEstimator::new(&p, 0.0);
        // Samples of 2 and 3 ticks: t_srtt 16 (2 << 3), then 16 + (3 - 2) = 17 eighths.
        r.update(&p, 1.125, 0.125);
        r.update(&p, 2.1875, 0.1875);
        assert_eq!(r.t_srtt, 17);
        assert_eq!(r.srtt_s(&p), 0.125, "whole ticks: 17 >> 3 = 2 ticks");
        assert_eq!(r.srtt_frac_s(&p), 17.0 / 8.0 * 0.0625, "2.125 ticks");
        // Exact EWMA: 0.125, then 0.125 + (0.1875 - 0.125)/8.
        assert_eq!(r.exact_srtt_s(), 0.1328125);

        // Injection: 0.16 s = 2.56 ticks -> 20.48 eighths -> 20 (2.5 ticks); whole
        // ticks: round(2.56) = 3.
        let mut f = RttEstimator::new(&p, 0.0);
        f.set_srtt(&p, 0.16, true);
        assert_eq!(f.t_srtt, 20);
        assert_eq!(f.t_rttvar, 5, "rtt/2 in quarter ticks: round(2.56 * 2)");
        assert_eq!(f.srtt_frac_s(&p), 0.15625);
        assert_eq!(f.exact_srtt_s(), 0.16);
        // RTO from the injected values: ((5 << 3) + 20) >> 3 = 7 ticks.
        assert_eq!(f.timeout(&p), 7.0 * 0.0625);
        // A reading at the fractional resolution survives injection and re-reading.
        let mut g = RttEstimator::new(&p, 0.0);
        g.set_srtt(&p, r.srtt_frac_s(&p), true);
        assert_eq!(g.t_srtt, r.t_srtt);
        assert_eq!(g.srtt_frac_s(&p), r.srtt_frac_s(&p));
        let mut w = RttEstimator::new(&p, 0.0);
        w.set_srtt(&p, 0.16, false);
        assert_eq!(w.t_srtt, 24, "whole ticks: 3 << 3");
        assert_eq!(w.srtt_s(&p), 0.1875);
    }

    #[test]
    fn backoff_doubles_and_clobbers_srtt_past_eight() {
        let p = params(0.01, 0.2);
        let mut r = RttEstimator::new(&p, 0.0);
        r.update(&p, 1.1, 0.1);
        for _ in 0..3 {
            r.backoff(&p);
        }
        assert_eq!(r.t_backoff, 8);
        assert!(r.t_srtt != 0);
        r.backoff(&p);
        assert_eq!(r.t_backoff, 16);
        assert_eq!(r.t_srtt, 0);
    }
}
