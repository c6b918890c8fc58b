//! Seedable pseudo-random numbers: one independent stream per named random source.
//!
//! Heads up! ns-2.35 draws everything from MRG32k3a (tools/rng.cc) and derives its
//! distributions in tools/rng.h (`RNG::exponential`, `RNG::pareto`, ...). We do **not**
//! reproduce MRG32k3a's number sequence (a run of ours can never replay an ns-2 run
//! draw for draw); we reproduce the *distributions* and the way ns-2 maps a uniform
//! draw onto them. ns-2.35 tools/rng.h is the reference for those mappings.
//!
//! Generator: xoshiro256++ (Blackman & Vigna, 2019; public-domain algorithm), 256 bits
//! of state, seeded through splitmix64 so that any `u64` seed (including 0) gives a
//! well-mixed, non-zero state. Fast, no external crates, identical output on every
//! platform for the integer/uniform draws (the transcendental maps such as `ln` and
//! `powf` use the platform's libm and may differ in the last bit between platforms).
//!
//! Streams: [`Rng::for_source`] derives a stream from `(seed, name)`, so every random
//! source (a queue's drop decisions, a telnet source, an ON/OFF source, ...) has its
//! own numbers, and adding or removing a source never changes another source's draws.

/// splitmix64 (Steele, Lea & Flood 2014; Vigna's public-domain version): the state
/// advances by the golden-ratio increment and the output is a strong 64-bit mix.
#[derive(Clone, Debug)]
struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// FNV-1a, 64 bit, over the UTF-8 bytes of a source name.
#[cfg(test)]
fn fnv1a64(s: &str) -> u64 {
    fnv1a64_parts(&[s])
}

/// FNV-1a of the concatenation of `parts` (no string is built for it).
fn fnv1a64_parts(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for s in parts {
        for &b in s.as_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    h
}

/// 2^-53: spacing of the 53-bit uniform grid.
const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Map 64 random bits onto [0, 1): the top 53 bits times 2^-53 (exact, never 1.0).
#[inline]
fn bits_to_unit(x: u64) -> f64 {
    (x >> 11) as f64 * TWO_POW_M53
}

/// A xoshiro256++ stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A stream from a plain seed (state = four successive splitmix64 outputs).
    pub fn new(seed: u64) -> Rng {
        let mut sm = SplitMix64::new(seed);
        Rng::from_state([sm.next(), sm.next(), sm.next(), sm.next()])
    }

    /// Independent stream for one named random source, so adding a source never
    /// changes another's numbers. The state words are splitmix64 outputs of the seed
    /// XOR splitmix64 outputs of the FNV-1a hash of the name (each word then depends on
    /// both); the same `(seed, source)` always gives the same stream.
    pub fn for_source(seed: u64, source: &str) -> Rng {
        Rng::for_source_parts(seed, &[source])
    }

    /// [`Rng::for_source`] of the concatenation of `parts` (`["tcp:", name]` is the
    /// stream of `"tcp:{name}"`), without building the string: replicas seed 10^5-10^6
    /// connections this way.
    pub fn for_source_parts(seed: u64, parts: &[&str]) -> Rng {
        let mut a = SplitMix64::new(seed);
        // A second, differently offset splitmix sequence for the name, so that the
        // two inputs do not play symmetric roles.
        let mut b = SplitMix64::new(fnv1a64_parts(parts) ^ 0x5851_F42D_4C95_7F2D);
        let mut s = [0u64; 4];
        for w in s.iter_mut() {
            *w = a.next() ^ b.next().rotate_left(29);
        }
        Rng::from_state(s)
    }

    /// Build from a raw state; the all-zero state (a fixed point of xoshiro) is
    /// replaced by a fixed non-zero one.
    fn from_state(s: [u64; 4]) -> Rng {
        if s == [0; 4] {
            let mut sm = SplitMix64::new(0);
            return Rng { s: [sm.next(), sm.next(), sm.next(), sm.next()] };
        }
        Rng { s }
    }

    /// Next 64 random bits (xoshiro256++).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on [0, 1) with 53 random bits (multiples of 2^-53).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        bits_to_unit(self.next_u64())
    }

    /// Uniform on [a, b) (for a < b).
    // ns-2.35: tools/rng.h RNG::uniform(a, b) = a + (b - a) * uniform().
    #[inline]
    pub fn uniform_range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.uniform()
    }

    /// Exponential with the given mean; always finite and >= 0.
    // ns-2.35: tools/rng.h RNG::exponential(r) = r * -log(uniform()), with ns-2's
    // uniform in (0,1). Ours is in [0,1), so we use 1 - u in (0,1], which has the same
    // distribution and never takes log(0).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        let u = self.uniform();
        // -ln(1 - u), accurate for small u.
        mean * -(-u).ln_1p()
    }

    /// ns-2 `Random::pareto(scale, shape)`: `scale * (1/v)^(1/shape)` with v uniform on
    /// (0, 1]. Support [scale, inf), P(X > x) = (scale/x)^shape, mean
    /// scale*shape/(shape-1) for shape > 1 (infinite variance for shape <= 2).
    // ns-2.35: tools/rng.h RNG::pareto(scale, shape)
    //   = scale * (1.0 / pow(uniform(), 1.0/shape)), ns-2's uniform in (0,1).
    // We use v = 1 - u in (0,1] (same law, never divides by zero).
    #[inline]
    pub fn pareto(&mut self, scale: f64, shape: f64) -> f64 {
        let v = 1.0 - self.uniform();
        scale * (1.0 / v.powf(1.0 / shape))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answer: splitmix64 from seed 0 (Vigna's reference splitmix64.c).
    #[test]
    fn splitmix64_known_answer() {
        let mut sm = SplitMix64::new(0);
        assert_eq!(sm.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(sm.next(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(sm.next(), 0x06C4_5D18_8009_454F);
    }

    /// Known answer: xoshiro256++ from state (0, 0, 0, 1), the first ten outputs of the
    /// reference algorithm (as tabulated e.g. by the independent xoshiro-fortran tests).
    #[test]
    fn xoshiro256pp_known_answer() {
        let mut r = Rng { s: [0, 0, 0, 1] };
        let expected: [u64; 10] = [
            0x0000000000800000,
            0x0000000000800011,
            0x0002200000800011,
            0x0002200044000020,
            0x00022000448008A1,
            0x01102100802208A0,
            0x0114002284200880,
            0x0402896644A64095,
            0x8A14A0A244ACC891,
            0x8C88BA4680B20495,
        ];
        for e in expected {
            assert_eq!(r.next_u64(), e);
        }
    }

    #[test]
    fn fnv1a64_known_answers() {
        // Standard FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(""), 0xCBF2_9CE4_8422_2325);
        assert_eq!(fnv1a64("a"), 0xAF63_DC4C_8601_EC8C);
        assert_eq!(fnv1a64("foobar"), 0x8594_4171_F739_67E8);
    }

    #[test]
    fn a_source_in_parts_is_the_source_of_their_concatenation() {
        for (seed, parts) in [(1u64, &["tcp:", "c.17"][..]), (7, &["", "x", ""]), (0, &[]), (9, &["ftp:web.1"])] {
            let mut a = Rng::for_source_parts(seed, parts);
            let mut b = Rng::for_source(seed, &parts.concat());
            assert!((0..8).all(|_| a.next_u64() == b.next_u64()), "{parts:?}");
        }
    }

    #[test]
    fn deterministic_for_same_seed() {
        for seed in [0u64, 1, 42, u64::MAX] {
            let mut a = Rng::new(seed);
            let mut b = Rng::new(seed);
            for _ in 0..1000 {
                assert_eq!(a.next_u64(), b.next_u64());
            }
        }
        let mut a = Rng::new(1);
        let mut b = Rng::new(2);
        let same = (0..1000).filter(|_| a.next_u64() == b.next_u64()).count();
        assert_eq!(same, 0);
    }

    #[test]
    fn zero_seed_is_not_degenerate() {
        let mut r = Rng::new(0);
        let v: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert!(v.iter().all(|&x| x != 0));
        assert_ne!(v[0], v[1]);
    }

    #[test]
    fn source_streams_same_name_and_seed_identical() {
        let mut a = Rng::for_source(7, "queue/r1-r2");
        let mut b = Rng::for_source(7, "queue/r1-r2");
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn source_streams_differ_by_name_and_by_seed() {
        let names = ["", "a", "b", "ab", "ba", "telnet0", "telnet1", "onoff/0", "queue/r1-r2"];
        let mut firsts = Vec::new();
        for seed in [0u64, 1, 2] {
            for n in names {
                let mut r = Rng::for_source(seed, n);
                firsts.push((r.next_u64(), r.next_u64()));
            }
            // A named stream is not the plain stream of the same seed.
            let mut plain = Rng::new(seed);
            firsts.push((plain.next_u64(), plain.next_u64()));
        }
        let mut sorted = firsts.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), firsts.len(), "two (seed, name) pairs collided");
    }

    /// Streams of neighbouring names are uncorrelated: the sample correlation of n
    /// paired uniforms has sd 1/sqrt(n) under independence; require |r| < 5/sqrt(n).
    #[test]
    fn source_streams_uncorrelated() {
        let n = 200_000;
        let mut a = Rng::for_source(1, "telnet0");
        let mut b = Rng::for_source(1, "telnet1");
        let (mut sab, mut sa, mut sb, mut saa, mut sbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for _ in 0..n {
            let x = a.uniform();
            let y = b.uniform();
            sab += x * y;
            sa += x;
            sb += y;
            saa += x * x;
            sbb += y * y;
        }
        let nf = n as f64;
        let cov = sab / nf - (sa / nf) * (sb / nf);
        let va = saa / nf - (sa / nf).powi(2);
        let vb = sbb / nf - (sb / nf).powi(2);
        let r = cov / (va * vb).sqrt();
        assert!(r.abs() < 5.0 / nf.sqrt(), "correlation {r}");
    }

    #[test]
    fn unit_mapping_bounds() {
        assert_eq!(bits_to_unit(0), 0.0);
        let top = bits_to_unit(u64::MAX);
        assert!(top < 1.0);
        assert_eq!(top, 1.0 - TWO_POW_M53);
    }

    /// Mean and variance of U[0,1): mean 1/2 (sd of the estimator sqrt(1/12/n)),
    /// variance 1/12 (sd of the estimator ~ sqrt((1/80 - 1/144)/n) = sqrt(1/(180 n))).
    /// Tolerance: 5 sd.
    #[test]
    fn uniform_mean_variance_and_range() {
        let n = 1_000_000;
        let mut r = Rng::new(12345);
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            s += u;
            s2 += (u - 0.5) * (u - 0.5);
        }
        let nf = n as f64;
        let mean = s / nf;
        let var = s2 / nf;
        assert!((mean - 0.5).abs() < 5.0 * (1.0 / 12.0 / nf).sqrt(), "mean {mean}");
        assert!((var - 1.0 / 12.0).abs() < 5.0 * (1.0 / 180.0 / nf).sqrt(), "var {var}");
    }

    /// Chi-square over 100 equal bins: 99 degrees of freedom (mean 99, sd sqrt(198) = 14.1);
    /// the bound 99 + 6 sd = 183.4 has a false-alarm probability below 1e-6.
    #[test]
    fn uniform_chi_square() {
        let n = 1_000_000;
        let bins = 100;
        let mut h = vec![0u64; bins];
        let mut r = Rng::for_source(3, "chi2");
        for _ in 0..n {
            h[(r.uniform() * bins as f64) as usize] += 1;
        }
        let e = n as f64 / bins as f64;
        let chi2: f64 = h.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 99.0 + 6.0 * 198f64.sqrt(), "chi2 {chi2}");
    }

    #[test]
    fn uniform_range_bounds_and_mean() {
        let n = 200_000;
        let mut r = Rng::new(9);
        let (a, b) = (-0.5, 0.5);
        let mut s = 0.0;
        for _ in 0..n {
            let x = r.uniform_range(a, b);
            assert!(x >= a && x < b);
            s += x;
        }
        let sd = ((b - a) * (b - a) / 12.0 / n as f64).sqrt();
        assert!((s / n as f64).abs() < 5.0 * sd);
        // Degenerate interval: exactly a.
        assert_eq!(r.uniform_range(3.0, 3.0), 3.0);
    }

    /// Exponential(mean m): sample mean has sd m/sqrt(n); tolerance 5 sd. Also the
    /// tail P(X > m) = e^-1 checked as a binomial proportion (5 sd).
    #[test]
    fn exponential_mean_and_tail() {
        let n = 1_000_000;
        let m = 0.37;
        let mut r = Rng::for_source(5, "exp");
        let mut s = 0.0;
        let mut above = 0u64;
        for _ in 0..n {
            let x = r.exponential(m);
            assert!(x.is_finite() && x >= 0.0);
            s += x;
            if x > m {
                above += 1;
            }
        }
        let nf = n as f64;
        assert!((s / nf - m).abs() < 5.0 * m / nf.sqrt(), "mean {}", s / nf);
        let p = (-1.0f64).exp();
        let sdp = (p * (1.0 - p) / nf).sqrt();
        assert!((above as f64 / nf - p).abs() < 5.0 * sdp);
    }

    /// Pareto draws never fall below the scale and are finite.
    #[test]
    fn pareto_range() {
        let mut r = Rng::new(11);
        for shape in [1.05, 1.2, 1.5, 2.5] {
            for _ in 0..100_000 {
                let x = r.pareto(2.0, shape);
                assert!(x.is_finite() && x >= 2.0, "{x}");
            }
        }
    }

    /// Pareto law checked where the estimators have finite variance.
    ///
    /// For 1 < shape <= 2 the variance is infinite, so the plain sample mean converges
    /// only like n^(1/shape - 1) with a skewed stable limit (see `pareto_full_mean`).
    /// The tight checks are therefore:
    /// 1. tail probabilities P(X > t) = (scale/t)^shape at several t, each a binomial
    ///    proportion with sd sqrt(p(1-p)/n); tolerance 5 sd;
    /// 2. the truncated mean E[min(X, c)] (bounded, so finite variance), compared with
    ///    its closed form; tolerance 5 sd using the closed-form second moment.
    #[test]
    fn pareto_tail_and_truncated_mean() {
        let n = 2_000_000usize;
        let nf = n as f64;
        for (shape, scale) in [(1.5, 1.0), (1.2, 0.3)] {
            let mut r = Rng::for_source(21, &format!("pareto{shape}"));
            let ts = [1.5, 2.0, 5.0, 10.0, 100.0, 1000.0].map(|k| k * scale);
            let mut above = [0u64; 6];
            let c = 100.0 * scale;
            let mut st = 0.0;
            for _ in 0..n {
                let x = r.pareto(scale, shape);
                for (i, &t) in ts.iter().enumerate() {
                    if x > t {
                        above[i] += 1;
                    }
                }
                let m = x.min(c);
                st += m;
            }
            for (i, &t) in ts.iter().enumerate() {
                let p: f64 = (scale / t).powf(shape);
                let sd = (p * (1.0 - p) / nf).sqrt();
                let got = above[i] as f64 / nf;
                assert!((got - p).abs() < 5.0 * sd, "shape {shape} t {t}: {got} vs {p}");
            }
            // E[min(X,c)] = s + s (1 - (c/s)^(1-a)) / (a - 1)
            // E[min(X,c)^2] = s^2 + 2 s^2 ((c/s)^(2-a) - 1) / (2 - a)
            let a = shape;
            let k = c / scale;
            let m1 = scale + scale * (1.0 - k.powf(1.0 - a)) / (a - 1.0);
            let m2 = scale * scale * (1.0 + 2.0 * (k.powf(2.0 - a) - 1.0) / (2.0 - a));
            let sd = ((m2 - m1 * m1) / nf).sqrt();
            let got = st / nf;
            assert!((got - m1).abs() < 5.0 * sd, "shape {shape}: truncated mean {got} vs {m1} (sd {sd})");
        }
    }

    /// The plain sample mean of Pareto(scale s, shape a), 1 < a < 2, against
    /// mu = s a / (a - 1), with a band derived from the law (no variance exists):
    ///
    /// * Lower side (rigorous): mean_n >= mean of min(X_i, c) for any c, and for
    ///   independent non-negative Z_i, P(sum Z < E[sum Z] - t) <= exp(-t^2 / (2 sum E[Z^2]))
    ///   (one-sided Bernstein for non-negative variables). So, with probability at
    ///   least 1 - delta, mean_n >= mu - g with
    ///   g = (mu - E[min(X,c)]) + sqrt(2 E[min(X,c)^2] ln(1/delta) / n); we take the c
    ///   (on a log grid) that makes g smallest.
    /// * Upper side (one-big-jump asymptotics of subexponential sums, valid for
    ///   x >> n^(1/a)): P(S_n - n mu > x) ~ n P(X > x) = n (s/x)^a, so with probability
    ///   ~1 - delta, mean_n - mu < s (n/delta)^(1/a) / n.
    ///
    /// delta = 1e-3 each side, n = 4e6: the band is about [-2%, +21%] of mu for a = 1.5
    /// and [-17%, +>100%] for a = 1.2. The upper side cannot be tight: a single huge draw
    /// moves the mean that much. The tight checks are `pareto_tail_and_truncated_mean`.
    #[test]
    fn pareto_full_mean() {
        let n = 4_000_000usize;
        let nf = n as f64;
        let delta: f64 = 1e-3;
        for (shape, scale) in [(1.5, 1.0), (1.2, 1.0)] {
            let a: f64 = shape;
            let s: f64 = scale;
            let mu = s * a / (a - 1.0);
            let mut r = Rng::for_source(99, &format!("pareto-mean{shape}"));
            let mut sum = 0.0;
            for _ in 0..n {
                sum += r.pareto(s, a);
            }
            let mean = sum / nf;
            let mut lower_gap = f64::INFINITY;
            let mut c = 2.0 * s;
            while c < 1e15 * s {
                let k = c / s;
                let mu_c = s + s * (1.0 - k.powf(1.0 - a)) / (a - 1.0);
                let m2 = s * s * (1.0 + 2.0 * (k.powf(2.0 - a) - 1.0) / (2.0 - a));
                let gap = (mu - mu_c) + (2.0 * m2 * (1.0 / delta).ln() / nf).sqrt();
                lower_gap = lower_gap.min(gap);
                c *= 1.25;
            }
            let upper_gap = s * (nf / delta).powf(1.0 / a) / nf;
            eprintln!("pareto shape {a}: mean {mean:.4}, mu {mu:.4}, band [-{lower_gap:.4}, +{upper_gap:.4}]");
            assert!(
                mean > mu - lower_gap && mean < mu + upper_gap,
                "shape {a}: mean {mean}, mu {mu}, band [-{lower_gap}, +{upper_gap}]"
            );
        }
    }
}
