//! Inter-arrival and ON/OFF logic of ns-2.35's traffic generators, as pure state
//! machines (no simulator dependency: each call returns a delay in seconds and what to
//! send now; the caller owns the clock and the timer).
//!
//! Heads up! ns-2.35 files are the reference, function by function:
//! - tcp/tcplib-telnet.cc `tcplib_telnet_interarrival()` (used by apps/telnet.cc
//!   `TelnetApp::next()` when `interval_` is 0) -> [`tcplib_telnet_interarrival`];
//! - tools/trafgen.cc `TrafficGenerator::start()` / `timeout()` (the timer protocol),
//!   tools/pareto.cc `POO_Traffic` (`Application/Traffic/Pareto`) and tools/expoo.cc
//!   `EXPOO_Traffic` (`Application/Traffic/Exponential`) -> [`OnOff`];
//! - tools/cbr_traffic.cc `CBR_Traffic` (`Application/Traffic/CBR`, `random_ 0`) -> [`Cbr`].
//!
//! What is and is not reproduced: the distributions, the rounding, the order of the
//! random draws and the event sequencing are ns-2's; the uniform numbers themselves come
//! from our own generator ([`crate::rng::Rng`]), not from ns-2's MRG32k3a, so runs agree
//! with ns-2 in law, not draw for draw.
//!
//! # The tcplib telnet table
//! ns-2.35 does *not* interpolate a CDF: tcp/tcplib-telnet.cc holds 10 000 sorted
//! inter-arrival values (in seconds, used as-is: no unit conversion), i.e. the empirical
//! quantiles at 0/10000, 1/10000, ..., and returns `tcplib_telnet[int(uniform() * 10000)]`.
//! So the law is the discrete uniform distribution over the 10 000 table entries; its
//! mean is the arithmetic mean of the table, 1.0918743674 s (sd 5.171 s, min 0.606 ms,
//! max 209.9 s). The table below is transcribed verbatim from that file (originally from
//! tcplib, Danzig & Jamin's empirical TCP application models, 1991).
//!
//! # The TrafficGenerator timer protocol (tools/trafgen.cc)
//! ```text
//! start():   init(); running_ = 1; nextPkttime_ = next_interval(size_); resched(nextPkttime_)
//!            -- nothing is sent at start (the "timeout()" right after start is commented out)
//! timeout(): send(size_); nextPkttime_ = next_interval(size_);
//!            if nextPkttime_ > 0 resched(nextPkttime_) else running_ = 0
//! ```
//! [`OnOff::next`] folds both into one call: the first call is `start()` (returns the
//! delay and size 0 = send nothing), every later call is `timeout()` (returns the delay
//! to the next call and the size of the packet to send now). CBR overrides `start()`
//! to call `timeout()` at once, so every [`Cbr::next`] call sends.
//!
//! # ON/OFF timeline (both kinds; tools/pareto.cc and tools/expoo.cc `next_interval()`)
//! `interval = packetSize_*8 / rate_`. When no packets remain in the current burst,
//! `next_interval` draws the next burst's length B (packets, `int(x + .5)`, at least 1)
//! and then an idle time `off`, and returns `interval + off`; otherwise it returns
//! `interval`. So after `start()` at t0 the packets of burst k go out back to back at
//! `interval` spacing and burst k+1 starts `interval + off` after the last packet of
//! burst k; the first packet goes out at `t0 + interval + off_1`. In steady state a cycle
//! lasts `B*interval + off` and carries B packets, so the long-run rate is
//! `8*size*E[B] / (E[B]*interval + E[off])` which is `rate*on/(on+off)` up to the
//! rounding of B (E\[B\] differs slightly from `on/interval`).

use crate::rng::Rng;

// ---------------------------------------------------------------------------------------
// tcplib telnet inter-arrivals
// ---------------------------------------------------------------------------------------

/// Number of entries of ns-2's tcplib telnet table.
pub const TCPLIB_TELNET_LEN: usize = 10_000;

/// The 10 000 tcplib telnet inter-arrival values (seconds, sorted), as in ns-2.35.
pub fn tcplib_telnet_table() -> &'static [f64; TCPLIB_TELNET_LEN] {
    tcplib_telnet()
}

/// Index into the table for a uniform draw `u` in [0, 1).
// ns-2.35: tcp/tcplib-telnet.cc tcplib_telnet_interarrival():
//   pos = int(Random::uniform() * 10000.0); abort() if pos is outside [0, 10000).
// Our uniform is in [0, 1) so pos is always in range; we clamp instead of aborting
// (NaN or out-of-range input maps to an end of the table, never a panic).
#[inline]
fn tcplib_telnet_index(u: f64) -> usize {
    let pos = (u * TCPLIB_TELNET_LEN as f64) as usize; // saturating; NaN -> 0
    pos.min(TCPLIB_TELNET_LEN - 1)
}

/// One telnet inter-arrival time in seconds, drawn exactly as ns-2.35 does for
/// `Application/Telnet` with `interval_ 0`: a uniformly chosen entry of the tcplib table
/// (no interpolation, values already in seconds). Mean 1.0918743674 s.
// ns-2.35: tcp/tcplib-telnet.cc tcplib_telnet_interarrival() (one uniform draw).
pub fn tcplib_telnet_interarrival(rng: &mut Rng) -> f64 {
    tcplib_telnet()[tcplib_telnet_index(rng.uniform())]
}

// ---------------------------------------------------------------------------------------
// ON/OFF sources: Application/Traffic/Pareto and Application/Traffic/Exponential
// ---------------------------------------------------------------------------------------

/// Distribution of the ON (burst length) and OFF (idle time) periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnOffKind {
    /// `Application/Traffic/Pareto`: both periods Pareto with this `shape_` (> 1).
    Pareto { shape: f64 },
    /// `Application/Traffic/Exponential`: both periods exponential.
    Exponential,
}

/// Parameters of an ON/OFF source (ns-2 names in brackets; ns-2.35 defaults are
/// 64 kb/s, 210 bytes, 0.5 s, 0.5 s, shape 1.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnOffParams {
    pub kind: OnOffKind,
    /// Sending rate while ON, bit/s (`rate_`).
    pub rate_bps: f64,
    /// Packet size, bytes (`packetSize_`).
    pub packet_size: u32,
    /// Mean ON time, s (`burst_time_`).
    pub on_s: f64,
    /// Mean OFF time, s (`idle_time_`).
    pub off_s: f64,
}

/// An ns-2 ON/OFF traffic generator (Pareto or Exponential) as a state machine.
#[derive(Clone, Debug)]
pub struct OnOff {
    p: OnOffParams,
    /// `interval_`: packet spacing while ON, s.
    interval: f64,
    /// Burst-length law parameter: Pareto scale `p1_`, or the exponential mean `burstlen_`.
    burst_param: f64,
    /// Idle-time law parameter: Pareto scale `p2_`, or the exponential mean.
    off_param: f64,
    /// `rem_`: packets left in the current burst.
    rem: u32,
    /// Whether the first call (`start()`) has happened.
    started: bool,
    /// Whether the last call drew a new burst (its delay includes an idle period).
    drew_burst: bool,
}

fn check_positive(name: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!("{name} must be a finite number > 0 (got {v})"))
    }
}

/// ns-2's `int(x + .5)` for a burst length, then "make sure we got at least 1".
// ns-2.35: tools/pareto.cc / tools/expoo.cc next_interval():
//   rem_ = int(draw + .5); if (rem_ == 0) rem_ = 1;
// C++ int() truncates toward zero (draws are >= 0, so this is round-half-up). Converting
// a double >= 2^31 to int is undefined in C++; we saturate at i32::MAX (2^31 - 1
// packets), and a NaN draw (impossible with valid parameters) becomes 1.
#[inline]
fn burst_packets(draw: f64) -> u32 {
    let n = (draw + 0.5) as i32; // Rust `as` saturates; NaN -> 0
    if n <= 0 {
        1
    } else {
        n as u32
    }
}

impl OnOff {
    /// `interval_`: the packet spacing while ON, s (the delay between packets of a burst).
    pub fn interval_s(&self) -> f64 {
        self.interval
    }

    /// Validate and derive ns-2's internal parameters (`init()`).
    pub fn new(p: OnOffParams) -> Result<OnOff, String> {
        check_positive("rate_bps", p.rate_bps)?;
        if p.packet_size == 0 {
            return Err("packet_size must be > 0 (got 0)".to_string());
        }
        check_positive("on_s", p.on_s)?;
        check_positive("off_s", p.off_s)?;
        if let OnOffKind::Pareto { shape } = p.kind {
            if !(shape.is_finite() && shape > 1.0) {
                return Err(format!(
                    "shape must be a finite number > 1 for a Pareto ON/OFF source (got {shape}); \
                     with shape <= 1 the Pareto mean is infinite"
                ));
            }
        }
        // ns-2.35: tools/pareto.cc POO_Traffic::init(), tools/expoo.cc EXPOO_Traffic::init():
        //   interval_ = (double)(size_ << 3)/(double)rate_;  burstlen_ = ontime_/interval_;
        let interval = (p.packet_size as f64 * 8.0) / p.rate_bps;
        let burstlen = p.on_s / interval;
        let (burst_param, off_param) = match p.kind {
            // ns-2.35: tools/pareto.cc init(): p1_ = burstlen_*(shape_-1)/shape_,
            //   p2_ = offtime_*(shape_-1)/shape_ (Pareto scales giving those means).
            OnOffKind::Pareto { shape } => (burstlen * (shape - 1.0) / shape, p.off_s * (shape - 1.0) / shape),
            // ns-2.35: tools/expoo.cc init(): burstlen_.setavg(ontime_/interval_);
            //   Offtime_ has avg_ = idle_time_.
            OnOffKind::Exponential => (burstlen, p.off_s),
        };
        Ok(OnOff { p, interval, burst_param, off_param, rem: 0, started: false, drew_burst: false })
    }

    /// The parameters this source was built from.
    pub fn params(&self) -> &OnOffParams {
        &self.p
    }

    /// Packet spacing while ON (`interval_` = size*8/rate), seconds.
    pub fn interval(&self) -> f64 {
        self.interval
    }

    /// Mean burst length in packets before rounding (`burstlen_` = on/interval).
    pub fn mean_burst_packets(&self) -> f64 {
        self.p.on_s / self.interval
    }

    /// Packets still to be sent in the current burst after the packet that the next call
    /// will send (ns-2 `rem_`).
    pub fn packets_left_in_burst(&self) -> u32 {
        self.rem
    }

    /// True when the last [`OnOff::next`] call drew a new burst: the delay it returned
    /// includes an idle period, so the packet sent at the *next* call opens a burst (the
    /// packet ns-2's Exponential source tags "NEW_BURST").
    pub fn drew_burst(&self) -> bool {
        self.drew_burst
    }

    /// Forget the current burst, as a `stop` then `start` does in ns-2 (`init()` resets
    /// `rem_`); the next call behaves like the first one (sends nothing).
    pub fn restart(&mut self) {
        self.rem = 0;
        self.started = false;
        self.drew_burst = false;
    }

    /// Called once at start and then every time the source's timer fires. Returns
    /// `(delay_s, size)`: schedule the next call `delay_s` seconds from now (always > 0
    /// and finite) and send a packet of `size` bytes now; `size` is 0 (send nothing) on
    /// the first call only, mirroring `TrafficGenerator::start()` which only computes the
    /// first interval.
    pub fn next(&mut self, rng: &mut Rng) -> (f64, u32) {
        if !self.started {
            // ns-2.35: tools/trafgen.cc TrafficGenerator::start(): init(); running_ = 1;
            //   nextPkttime_ = next_interval(size_); timer_.resched(nextPkttime_);
            //   (no packet is sent at start).
            self.started = true;
            self.rem = 0;
            let d = self.next_interval(rng);
            return (d, 0);
        }
        // ns-2.35: tools/trafgen.cc TrafficGenerator::timeout() (and EXPOO_Traffic::timeout()):
        //   send(size_); nextPkttime_ = next_interval(size_); resched(nextPkttime_).
        let d = self.next_interval(rng);
        (d, self.p.packet_size)
    }

    // ns-2.35: tools/pareto.cc POO_Traffic::next_interval() and
    //          tools/expoo.cc EXPOO_Traffic::next_interval(): same structure.
    fn next_interval(&mut self, rng: &mut Rng) -> f64 {
        let mut t = self.interval;
        self.drew_burst = false;
        if self.rem == 0 {
            // Draw order matters for stream compatibility: burst length first, then the
            // idle time, both from the source's one stream (ns-2: the default RNG for
            // both, unless "use-rng" is given).
            let (b, off) = match self.p.kind {
                // ns-2.35: tools/pareto.cc: rem_ = int(Random::pareto(p1_, shape_) + .5);
                //   ... t += Random::pareto(p2_, shape_);
                OnOffKind::Pareto { shape } => {
                    let b = burst_packets(rng.pareto(self.burst_param, shape));
                    (b, rng.pareto(self.off_param, shape))
                }
                // ns-2.35: tools/expoo.cc: rem_ = int(burstlen_.value() + .5);
                //   ... t += Offtime_.value();  (ExponentialRandomVariable: avg * -log(u))
                OnOffKind::Exponential => {
                    let b = burst_packets(rng.exponential(self.burst_param));
                    (b, rng.exponential(self.off_param))
                }
            };
            self.rem = b;
            t += off;
            self.drew_burst = true;
        }
        self.rem -= 1;
        t
    }
}

// ---------------------------------------------------------------------------------------
// CBR: Application/Traffic/CBR with random_ 0
// ---------------------------------------------------------------------------------------

/// ns-2.35 default `maxpkts_` of `Application/Traffic/CBR` (tcl/lib/ns-default.tcl).
pub const CBR_DEFAULT_MAX_PACKETS: u64 = 268_435_456; // 0x10000000

/// An ns-2 CBR source with `random_ 0`: one packet every `size*8/rate` seconds, the first
/// one at start.
#[derive(Clone, Debug)]
pub struct Cbr {
    interval: f64,
    size: u32,
    max_packets: u64,
    /// `seqno_`: packets sent so far.
    seqno: u64,
    stopped: bool,
}

impl Cbr {
    /// The packet spacing, s.
    pub fn interval_s(&self) -> f64 {
        self.interval
    }

    /// Validate (`rate_bps` finite and > 0, `packet_size` > 0) and build.
    pub fn new(rate_bps: f64, packet_size: u32) -> Result<Cbr, String> {
        check_positive("rate_bps", rate_bps)?;
        if packet_size == 0 {
            return Err("packet_size must be > 0 (got 0)".to_string());
        }
        Ok(Cbr {
            // ns-2.35: tools/cbr_traffic.cc init(): interval_ = (double)(size_ << 3)/(double)rate_;
            interval: (packet_size as f64 * 8.0) / rate_bps,
            size: packet_size,
            max_packets: CBR_DEFAULT_MAX_PACKETS,
            seqno: 0,
            stopped: false,
        })
    }

    /// Set `maxpkts_` (the source stops after this many packets; ns-2 sends at least one
    /// packet even with `maxpkts_ 0`).
    pub fn with_max_packets(mut self, max_packets: u64) -> Cbr {
        self.max_packets = max_packets;
        self
    }

    /// Packet spacing, seconds.
    pub fn interval(&self) -> f64 {
        self.interval
    }

    /// Packets sent so far (ns-2 `seqno_`).
    pub fn packets_sent(&self) -> u64 {
        self.seqno
    }

    /// Called at start and every time the timer fires: send a packet of `size` bytes now
    /// and call again after `delay_s`. A `delay_s` <= 0 (it is -1.0, as in ns-2) means
    /// this was the last packet (`maxpkts_` reached); later calls return `(-1.0, 0)`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> (f64, u32) {
        if self.stopped {
            // ns-2.35: tools/trafgen.cc timeout(): `if (!running_) return;`
            return (-1.0, 0);
        }
        // ns-2.35: tools/cbr_traffic.cc CBR_Traffic::start(): init(); running_ = 1;
        //   timeout();  -> the first packet goes out at start.
        // tools/trafgen.cc timeout(): send(size_); nextPkttime_ = next_interval(size_);
        // tools/cbr_traffic.cc next_interval(): t = interval_ (random_ 0: no jitter);
        //   if (++seqno_ < maxpkts_) return t; else return -1;  (-1 -> running_ = 0)
        self.seqno += 1;
        if self.seqno < self.max_packets {
            (self.interval, self.size)
        } else {
            self.stopped = true;
            (-1.0, self.size)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------

/// tcplib telnet originator inter-arrival times, seconds: the 10 000-entry array
/// `tcplib_telnet[]` of ns-2.35 tcp/tcplib-telnet.cc (rev 1.6, 2001/12/20), transcribed
/// verbatim in the same order into `data/tcplib-telnet.csv` (a header line, then one
/// value per line, written exactly as in that file). Empirical data from tcplib
/// (P. Danzig, S. Jamin, "tcplib: A Library of TCP/IP Traffic Characteristics", USC TR
/// CS-SYS-91-01, 1991).
///
/// Parsed once, on first use. Rust's float parsing is correctly rounded, so each value
/// is the same `f64` the C compiler (and the former Rust array literal) made of the text.
const TCPLIB_TELNET_CSV: &str = include_str!("../../data/tcplib-telnet.csv");

fn tcplib_telnet() -> &'static [f64; TCPLIB_TELNET_LEN] {
    static TABLE: std::sync::OnceLock<Box<[f64; TCPLIB_TELNET_LEN]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| parse_tcplib_telnet(TCPLIB_TELNET_CSV))
}

/// Parse the table file: the header `interarrival_s`, then exactly
/// [`TCPLIB_TELNET_LEN`] numbers. The file is compiled in, so a malformed one is a
/// build defect: this panics with the offending line rather than returning an error.
fn parse_tcplib_telnet(text: &str) -> Box<[f64; TCPLIB_TELNET_LEN]> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("interarrival_s"), "data/tcplib-telnet.csv: bad header");
    let mut t = Box::new([0.0; TCPLIB_TELNET_LEN]);
    let mut n = 0;
    for (i, line) in lines.enumerate() {
        assert!(n < TCPLIB_TELNET_LEN, "data/tcplib-telnet.csv: more than {TCPLIB_TELNET_LEN} values");
        t[n] = line.trim().parse().unwrap_or_else(|e| panic!("data/tcplib-telnet.csv line {}: {line:?}: {e}", i + 2));
        n += 1;
    }
    assert_eq!(n, TCPLIB_TELNET_LEN, "data/tcplib-telnet.csv: wrong number of values");
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    // -----------------------------------------------------------------------------------
    // tcplib telnet
    // -----------------------------------------------------------------------------------

    /// Sequential f64 sum of the 10 000 values of the C array in ns-2.35
    /// tcp/tcplib-telnet.cc (computed from that file independently of this transcription).
    const NS_TABLE_SUM: f64 = 10918.743674012003;

    #[test]
    fn telnet_table_transcription() {
        let t = tcplib_telnet_table();
        assert_eq!(t.len(), 10_000);
        assert_eq!(t[0], 0.000606425);
        assert_eq!(t[1234], 0.080919357);
        assert_eq!(t[5000], 0.23640358);
        assert_eq!(t[9999], 209.92121875);
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "table must be sorted");
        let mut s = 0.0;
        for &x in t.iter() {
            s += x;
        }
        assert_eq!(s, NS_TABLE_SUM);
    }

    #[test]
    #[should_panic(expected = "wrong number of values")]
    fn telnet_table_file_must_hold_every_value() {
        parse_tcplib_telnet("interarrival_s\n0.5\n1.5\n");
    }

    #[test]
    fn telnet_index_mapping() {
        // ns-2.35: pos = int(u * 10000.0)
        assert_eq!(tcplib_telnet_index(0.0), 0);
        assert_eq!(tcplib_telnet_index(0.5), 5000);
        assert_eq!(tcplib_telnet_index(0.12345), 1234);
        assert_eq!(tcplib_telnet_index(0.99995), 9999);
        assert_eq!(tcplib_telnet_index(1.0 - f64::EPSILON / 2.0), 9999); // largest u < 1
                                                                         // Out-of-range input is clamped (ns-2 would abort()).
        assert_eq!(tcplib_telnet_index(1.0), 9999);
        assert_eq!(tcplib_telnet_index(7.0), 9999);
        assert_eq!(tcplib_telnet_index(-0.3), 0);
        assert_eq!(tcplib_telnet_index(f64::NAN), 0);
    }

    /// One uniform draw per inter-arrival, mapped through the table.
    #[test]
    fn telnet_uses_one_uniform_per_draw() {
        let mut a = Rng::for_source(4, "telnet:x");
        let mut b = a.clone();
        for _ in 0..10_000 {
            let x = tcplib_telnet_interarrival(&mut a);
            let u = b.uniform();
            assert_eq!(x, tcplib_telnet()[(u * 10000.0) as usize]);
        }
        assert_eq!(a, b);
    }

    /// Mean of 1e6 draws against the mean of the law, which (no interpolation in ns-2.35)
    /// is the arithmetic mean of the table: mu = 1.0918743674 s, sigma = 5.171 s.
    ///
    /// Tolerance (rigorous, Bernstein): draws lie in [0, M], M = max of the table, so
    /// |X - mu| <= M and P(|mean - mu| >= e) <= 2 exp(-n e^2 / (2 sigma^2 + 2 M e / 3));
    /// e = sqrt(2 sigma^2 L / n) + 2 M L / (3 n) with L = ln(2/delta) is sufficient.
    /// delta = 1e-6 gives e = 0.029 s (2.7% of mu); the plain CLT sd is 0.0052 s.
    #[test]
    fn telnet_empirical_mean_matches_table_mean() {
        let t = tcplib_telnet_table();
        let mu = t.iter().sum::<f64>() / 10_000.0;
        let var = t.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / 10_000.0;
        let m = t[9999];
        assert!((mu - 1.0918743674012004).abs() < 1e-12);

        let n = 1_000_000usize;
        let nf = n as f64;
        let mut rng = Rng::for_source(2024, "telnet:mean");
        let mut s = 0.0;
        for _ in 0..n {
            let x = tcplib_telnet_interarrival(&mut rng);
            assert!(x >= t[0] && x <= m);
            s += x;
        }
        let mean = s / nf;
        let l = (2.0f64 / 1e-6).ln();
        let e = (2.0 * var * l / nf).sqrt() + 2.0 * m * l / (3.0 * nf);
        eprintln!("tcplib telnet: empirical mean {mean:.6} s, table mean {mu:.6} s, tolerance {e:.4} s");
        assert!((mean - mu).abs() < e, "mean {mean} vs {mu} (tolerance {e})");
    }

    /// The empirical CDF at table points: P(X <= t[k]) = (k + 1)/10000 (the entries
    /// are distinct); binomial proportions, tolerance 5 sd, including the far tail.
    #[test]
    fn telnet_cdf_at_table_points() {
        let t = tcplib_telnet_table();
        assert!(t.windows(2).all(|w| w[0] < w[1]), "entries are distinct");
        let ks = [0usize, 99, 999, 4999, 8999, 9899, 9989];
        let n = 1_000_000usize;
        let nf = n as f64;
        let mut below = [0u64; 7];
        let mut rng = Rng::for_source(5, "telnet:cdf");
        for _ in 0..n {
            let x = tcplib_telnet_interarrival(&mut rng);
            for (i, &k) in ks.iter().enumerate() {
                if x <= t[k] {
                    below[i] += 1;
                }
            }
        }
        for (i, &k) in ks.iter().enumerate() {
            let p = (k + 1) as f64 / 10_000.0;
            let sd = (p * (1.0 - p) / nf).sqrt();
            let got = below[i] as f64 / nf;
            assert!((got - p).abs() < 5.0 * sd, "k {k}: {got} vs {p}");
        }
    }

    // -----------------------------------------------------------------------------------
    // ON/OFF: exact sequencing
    // -----------------------------------------------------------------------------------

    fn params(kind: OnOffKind, rate_bps: f64, packet_size: u32, on_s: f64, off_s: f64) -> OnOffParams {
        OnOffParams { kind, rate_bps, packet_size, on_s, off_s }
    }

    /// ns-2.35 defaults: rate_ 64Kb, packetSize_ 210, burst_time_/idle_time_ 0.5 s, shape 1.5.
    #[test]
    fn onoff_derived_parameters_like_ns_init() {
        let g = OnOff::new(params(OnOffKind::Pareto { shape: 1.5 }, 64_000.0, 210, 0.5, 0.5)).unwrap();
        assert_eq!(g.interval(), 1680.0 / 64_000.0); // 26.25 ms
        let burstlen = 0.5 / (1680.0 / 64_000.0);
        assert_eq!(g.mean_burst_packets(), burstlen);
        assert_eq!(g.burst_param, burstlen * 0.5 / 1.5); // p1_
        assert_eq!(g.off_param, 0.5 * 0.5 / 1.5); // p2_
        let e = OnOff::new(params(OnOffKind::Exponential, 64_000.0, 210, 0.5, 0.5)).unwrap();
        assert_eq!(e.burst_param, burstlen);
        assert_eq!(e.off_param, 0.5);
    }

    /// The generator against an independent transcription of ns-2's start()/timeout()/
    /// next_interval() driven by a replayed copy of the same stream: identical delays,
    /// sizes and draw consumption, bit for bit, for 50 000 events.
    #[test]
    fn onoff_sequence_matches_ns_protocol() {
        for kind in [OnOffKind::Pareto { shape: 1.5 }, OnOffKind::Pareto { shape: 1.2 }, OnOffKind::Exponential] {
            let (rate, size, on, off) = (64_000.0, 210u32, 0.5, 0.5);
            let mut g = OnOff::new(params(kind, rate, size, on, off)).unwrap();
            let mut rng = Rng::for_source(1, "onoff");
            let mut replay = rng.clone();

            let interval = (size << 3) as f64 / rate;
            let burstlen = on / interval;
            let mut rem: u32 = 0; // rem_ after init()
            let mut bursts = 0u64;
            for call in 0..50_000 {
                let (d, s) = g.next(&mut rng);
                // start() for call 0 (no send), timeout() afterwards (send size_).
                let want_size = if call == 0 { 0 } else { size };
                // next_interval():
                let mut t = interval;
                let new_burst = rem == 0;
                if rem == 0 {
                    let (x, o) = match kind {
                        OnOffKind::Pareto { shape } => {
                            let x = replay.pareto(burstlen * (shape - 1.0) / shape, shape);
                            (x, replay.pareto(off * (shape - 1.0) / shape, shape))
                        }
                        OnOffKind::Exponential => {
                            let x = replay.exponential(burstlen);
                            (x, replay.exponential(off))
                        }
                    };
                    rem = ((x + 0.5).floor() as u32).max(1);
                    t += o;
                    bursts += 1;
                }
                rem -= 1;
                assert_eq!((d, s), (t, want_size), "{kind:?} call {call}");
                assert_eq!(g.drew_burst(), new_burst);
                assert_eq!(g.packets_left_in_burst(), rem);
                assert!(d > 0.0 && d.is_finite());
            }
            assert_eq!(rng, replay, "{kind:?}: draw consumption differs");
            assert!(bursts > 100);
        }
    }

    /// The first call sends nothing and its delay holds an idle period; a burst of B
    /// packets is then sent at `interval` spacing.
    #[test]
    fn onoff_start_and_burst_timeline() {
        let mut g = OnOff::new(params(OnOffKind::Exponential, 1e6, 1000, 0.2, 0.3)).unwrap();
        let mut rng = Rng::new(8);
        let (d0, s0) = g.next(&mut rng);
        assert_eq!(s0, 0);
        assert!(g.drew_burst() && d0 > g.interval());
        let b = g.packets_left_in_burst() + 1;
        for _ in 1..b {
            let (d, s) = g.next(&mut rng);
            assert_eq!((d, s), (0.008, 1000));
            assert!(!g.drew_burst());
        }
        // The last packet of the burst: the delay after it includes the next idle time.
        let (d, s) = g.next(&mut rng);
        assert_eq!(s, 1000);
        assert!(g.drew_burst() && d > 0.008);
        // restart() behaves like a fresh start().
        g.restart();
        let (_, s) = g.next(&mut rng);
        assert_eq!(s, 0);
    }

    #[test]
    fn burst_rounding_like_ns() {
        assert_eq!(burst_packets(0.0), 1);
        assert_eq!(burst_packets(0.49), 1);
        assert_eq!(burst_packets(0.5), 1);
        assert_eq!(burst_packets(1.49), 1);
        assert_eq!(burst_packets(1.5), 2);
        assert_eq!(burst_packets(2.4999), 2);
        assert_eq!(burst_packets(7.5), 8);
        assert_eq!(burst_packets(1e300), i32::MAX as u32);
        assert_eq!(burst_packets(f64::INFINITY), i32::MAX as u32);
        assert_eq!(burst_packets(f64::NAN), 1);
    }

    /// With a mean burst far below half a packet every burst is exactly one packet
    /// ("make sure we got at least 1"), so every delay is interval + idle time.
    #[test]
    fn onoff_tiny_bursts_are_one_packet() {
        for kind in [OnOffKind::Exponential, OnOffKind::Pareto { shape: 1.5 }] {
            // interval 8 ms, on 80 us: mean burst 0.01 packets (Pareto scale 0.0033).
            let mut g = OnOff::new(params(kind, 1e6, 1000, 8e-5, 0.05)).unwrap();
            let mut rng = Rng::for_source(3, "tiny");
            for _ in 0..10_000 {
                let (d, _) = g.next(&mut rng);
                assert!(g.drew_burst() && d > 0.008);
                assert_eq!(g.packets_left_in_burst(), 0);
            }
        }
    }

    #[test]
    fn onoff_validation_messages() {
        let ok = params(OnOffKind::Pareto { shape: 1.5 }, 64_000.0, 210, 0.5, 0.5);
        assert!(OnOff::new(ok).is_ok());
        assert!(OnOff::new(OnOffParams { kind: OnOffKind::Exponential, ..ok }).is_ok());
        let cases: Vec<(OnOffParams, &str, &str)> = vec![
            (OnOffParams { rate_bps: 0.0, ..ok }, "rate_bps", "0"),
            (OnOffParams { rate_bps: -5.0, ..ok }, "rate_bps", "-5"),
            (OnOffParams { rate_bps: f64::NAN, ..ok }, "rate_bps", "NaN"),
            (OnOffParams { rate_bps: f64::INFINITY, ..ok }, "rate_bps", "inf"),
            (OnOffParams { packet_size: 0, ..ok }, "packet_size", "0"),
            (OnOffParams { on_s: 0.0, ..ok }, "on_s", "0"),
            (OnOffParams { on_s: -0.25, ..ok }, "on_s", "-0.25"),
            (OnOffParams { off_s: -1.0, ..ok }, "off_s", "-1"),
            (OnOffParams { off_s: f64::NAN, ..ok }, "off_s", "NaN"),
            (OnOffParams { kind: OnOffKind::Pareto { shape: 1.0 }, ..ok }, "shape", "1"),
            (OnOffParams { kind: OnOffKind::Pareto { shape: 0.5 }, ..ok }, "shape", "0.5"),
            (OnOffParams { kind: OnOffKind::Pareto { shape: f64::NAN }, ..ok }, "shape", "NaN"),
        ];
        for (p, name, val) in cases {
            let e = OnOff::new(p).unwrap_err();
            assert!(e.contains(name) && e.contains(&format!("(got {val})")), "{e}");
        }
    }

    // -----------------------------------------------------------------------------------
    // ON/OFF: long-run statistics
    // -----------------------------------------------------------------------------------

    /// Run until `n` complete ON/OFF cycles. Cycle i runs from the call that draws burst i
    /// (delay interval + off_i) up to, not including, the call that draws burst i + 1:
    /// it has B_i calls and lasts T_i = B_i*interval + off_i. Returns (B_i, T_i) and the
    /// packets sent by then (including the last packet of burst n, sent by the call that
    /// opens cycle n + 1), which must equal sum B_i.
    fn cycles(g: &mut OnOff, rng: &mut Rng, n: usize) -> (Vec<(u32, f64)>, u64) {
        let mut out: Vec<(u32, f64)> = Vec::with_capacity(n);
        let mut cur: Option<(u32, f64)> = None;
        let mut sent = 0u64;
        loop {
            let (d, s) = g.next(rng);
            if s > 0 {
                sent += 1;
            }
            if g.drew_burst() {
                if let Some(c) = cur.take() {
                    out.push(c);
                    if out.len() == n {
                        return (out, sent);
                    }
                }
                cur = Some((0, 0.0));
            }
            let c = cur.as_mut().expect("the first call draws a burst");
            c.0 += 1;
            c.1 += d;
        }
    }

    /// Exponential source, finite variances: everything is tested with CLT tolerances.
    ///
    /// B = max(1, N), N = int(X + 1/2), X ~ Exp(mean m = on/interval):
    /// P(N >= k) = P(X >= k - 1/2) = exp(-(k - 1/2)/m), so
    /// E[B] = exp(-1/(2m)) / (1 - exp(-1/m)) + (1 - exp(-1/(2m)))   [the last term: P(N = 0)].
    /// Long-run rate (renewal-reward) = 8*size*E[B] / (E[B]*interval + off).
    /// The rate estimator sum B / sum T has delta-method sd
    /// sqrt(sum (B_i - r T_i)^2) / sum T_i; tolerance 5 sd.
    #[test]
    fn onoff_exponential_rate_and_burst_length() {
        let (rate, size, on, off) = (1e6, 1000u32, 0.04, 0.06);
        let mut g = OnOff::new(params(OnOffKind::Exponential, rate, size, on, off)).unwrap();
        let interval = g.interval();
        assert_eq!(interval, 0.008);
        let m = on / interval;
        let eb = (-0.5 / m).exp() / (1.0 - (-1.0 / m).exp()) + (1.0 - (-0.5 / m).exp());
        let r_exact = 8.0 * size as f64 * eb / (eb * interval + off);
        let r_naive = rate * on / (on + off);
        // The textbook value is off only by the rounding of B (here ~1%).
        assert!((r_exact / r_naive - 1.0).abs() < 0.02, "{r_exact} vs {r_naive}");

        let n = 1_000_000;
        let mut rng = Rng::for_source(77, "onoff:exp");
        let (cy, sent) = cycles(&mut g, &mut rng, n);
        let nf = n as f64;
        let sb: f64 = cy.iter().map(|c| c.0 as f64).sum();
        let st: f64 = cy.iter().map(|c| c.1).sum();
        assert_eq!(sent as f64, sb);

        // Mean burst length (packets): 5 sd with the sample sd.
        let mb = sb / nf;
        let vb = cy.iter().map(|c| (c.0 as f64 - mb).powi(2)).sum::<f64>() / (nf - 1.0);
        assert!((mb - eb).abs() < 5.0 * (vb / nf).sqrt(), "mean burst {mb} vs {eb}");
        // Burst-length tail P(B >= k), binomial 5 sd.
        for k in [2u32, 3, 5, 10, 20, 40] {
            let p = (-(k as f64 - 0.5) / m).exp();
            let got = cy.iter().filter(|c| c.0 >= k).count() as f64 / nf;
            assert!((got - p).abs() < 5.0 * (p * (1.0 - p) / nf).sqrt(), "P(B >= {k}): {got} vs {p}");
        }
        // Idle times: mean off, 5 sd (sd of Exp = its mean).
        let so: f64 = cy.iter().map(|c| c.1 - c.0 as f64 * interval).sum();
        assert!((so / nf - off).abs() < 5.0 * off / nf.sqrt(), "mean off {}", so / nf);

        // Long-run rate.
        let rho = sb / st; // packets/s
        let sd = cy.iter().map(|c| (c.0 as f64 - rho * c.1).powi(2)).sum::<f64>().sqrt() / st;
        let r_emp = 8.0 * size as f64 * rho;
        let tol = 5.0 * 8.0 * size as f64 * sd;
        eprintln!("exponential on/off: rate {r_emp:.1} b/s, expected {r_exact:.1} (naive {r_naive:.1}), tol {tol:.1}");
        assert!((r_emp - r_exact).abs() < tol, "rate {r_emp} vs {r_exact} (tol {tol})");
    }

    /// Truncated moments (E[min(B, c)], E[min(B, c)^2]) of the Pareto source's burst
    /// length B = max(1, int(X + 1/2)), X ~ Pareto(scale p1, shape a), for integer c
    /// (c = inf for the first moment gives E[B]). P(B >= 1) = 1 and
    /// P(B >= k) = min(1, (p1/(k - 1/2))^a) for k >= 2; E[min(B,c)] = sum_{k<=c} P(B >= k),
    /// E[min(B,c)^2] = sum_{k<=c} (2k - 1) P(B >= k). Exact sums up to k = 4096, then the
    /// midpoint rule sum_{k>K} f(k - 1/2) = int_K f(x) dx (error ~ f'(K)/24, < 1e-9 here).
    fn burst_moments(p1: f64, a: f64, c: f64) -> (f64, f64) {
        let tail = |k: f64| if k <= 1.0 { 1.0 } else { (p1 / (k - 0.5)).powf(a).min(1.0) };
        let k0 = c.min(4096.0);
        let (mut m1, mut m2) = (0.0, 0.0);
        let mut k = 1.0;
        while k <= k0 {
            let p = tail(k);
            m1 += p;
            m2 += (2.0 * k - 1.0) * p;
            k += 1.0;
        }
        if c > k0 {
            let pa = p1.powf(a);
            let hi1 = if c.is_finite() { c.powf(1.0 - a) } else { 0.0 };
            m1 += pa * (k0.powf(1.0 - a) - hi1) / (a - 1.0);
            m2 += 2.0 * pa * (c.powf(2.0 - a) - k0.powf(2.0 - a)) / (2.0 - a);
        }
        (m1, m2)
    }

    /// Truncated moments of a continuous Pareto(s, a) at c >= s.
    fn pareto_moments(s: f64, a: f64, c: f64) -> (f64, f64) {
        let k = c / s;
        let m1 = s + s * (1.0 - k.powf(1.0 - a)) / (a - 1.0);
        let m2 = s * s * (1.0 + 2.0 * (k.powf(2.0 - a) - 1.0) / (2.0 - a));
        (m1, m2)
    }

    /// Lower deviation bound for the mean of n iid Y >= 0 with mean mu (rigorous):
    /// mean_n >= mean of min(Y_i, c), and for independent non-negative Z_i,
    /// P(sum Z < E[sum Z] - t) <= exp(-t^2 / (2 sum E[Z^2])). So, with probability at
    /// least 1 - delta, mean_n >= mu - g, g = (mu - m1(c)) + sqrt(2 m2(c) ln(1/delta) / n),
    /// minimised over a geometric grid of c.
    fn lower_gap(n: f64, mu: f64, moments: &dyn Fn(f64) -> (f64, f64), c0: f64, delta: f64) -> f64 {
        let mut best = f64::INFINITY;
        let mut c = c0;
        while c < 1e15 {
            let (m1, m2) = moments(c);
            best = best.min((mu - m1) + (2.0 * m2 * (1.0 / delta).ln() / n).sqrt());
            c *= 1.25;
        }
        best
    }

    /// Pareto ON/OFF at shape 1.5 and 1.2 (heavy tails).
    ///
    /// Burst lengths and idle times have infinite variance (shape < 2), so the long-run
    /// rate converges only like n^(1/shape - 1). The test therefore has two layers:
    ///
    /// * tight (finite-variance statistics, 5 sd): tail probabilities P(B >= k) and
    ///   P(off > t), truncated means E[min(B, 50)] and E[min(off, 50 p2)], all against
    ///   closed forms, and the long-run rate of the cycles with B and off clipped at
    ///   1000x their scale (finite variance, delta method). Together with
    ///   `onoff_sequence_matches_ns_protocol` (the cycle structure is exact) these pin
    ///   down the long-run rate.
    /// * the long-run rate itself and the mean burst length, against the exact values
    ///   E[B] (series above) and 8*size*E[B]/(E[B]*interval + off), inside a band derived
    ///   from the law: each of mean(B) and mean(off) is bounded below with `lower_gap`
    ///   (rigorous) and above by the one-big-jump asymptotics of subexponential sums,
    ///   P(S_n - n mu > x) ~ n P(Y > x) (valid for x >> n^(1/a), which holds here), at
    ///   delta = 2.5e-4 per side (1e-3 in all); the rate is monotone in both means. The
    ///   upper side is necessarily wide (one huge burst can carry a sizeable share of all
    ///   packets), very wide at shape 1.2.
    #[test]
    fn onoff_pareto_rate_and_burst_length() {
        let (rate, size, on, off) = (1e6, 1000u32, 0.04, 0.06);
        let n = 1_000_000usize;
        let nf = n as f64;
        let delta = 2.5e-4;
        for a in [1.5, 1.2] {
            let mut g = OnOff::new(params(OnOffKind::Pareto { shape: a }, rate, size, on, off)).unwrap();
            let interval = g.interval();
            let p1 = g.burst_param;
            let p2 = g.off_param;
            assert!(p1 >= 0.5); // so B = int(X + 1/2) >= 1 always (formulas above)
            let eb = burst_moments(p1, a, f64::INFINITY).0;
            let r_exact = 8.0 * size as f64 * eb / (eb * interval + off);
            let r_naive = rate * on / (on + off);
            assert!((r_exact / r_naive - 1.0).abs() < 0.02, "{r_exact} vs {r_naive}");

            let mut rng = Rng::for_source(78, &format!("onoff:pareto{a}"));
            let (cy, sent) = cycles(&mut g, &mut rng, n);
            let sb: f64 = cy.iter().map(|c| c.0 as f64).sum();
            let st: f64 = cy.iter().map(|c| c.1).sum();
            assert_eq!(sent as f64, sb);
            let offs: Vec<f64> = cy.iter().map(|c| c.1 - c.0 as f64 * interval).collect();

            // --- tight checks ---
            for k in [2u32, 3, 5, 10, 30, 100, 1000] {
                let p = if k <= 1 { 1.0 } else { (p1 / (k as f64 - 0.5)).powf(a).min(1.0) };
                let got = cy.iter().filter(|c| c.0 >= k).count() as f64 / nf;
                let tol = 5.0 * (p * (1.0 - p) / nf).sqrt() + 1e-12;
                assert!((got - p).abs() < tol, "a {a}: P(B >= {k}) {got} vs {p}");
            }
            let (t1, t2) = burst_moments(p1, a, 50.0);
            let got = cy.iter().map(|c| (c.0 as f64).min(50.0)).sum::<f64>() / nf;
            assert!((got - t1).abs() < 5.0 * ((t2 - t1 * t1) / nf).sqrt(), "a {a}: E[min(B,50)] {got} vs {t1}");
            for k in [1.5f64, 3.0, 10.0, 100.0, 1000.0] {
                let p = (1.0 / k).powf(a);
                let got = offs.iter().filter(|&&o| o > k * p2).count() as f64 / nf;
                assert!((got - p).abs() < 5.0 * (p * (1.0 - p) / nf).sqrt(), "a {a}: P(off > {k} p2) {got} vs {p}");
            }
            assert!(offs.iter().all(|&o| o >= p2 * (1.0 - 1e-9)));
            let (o1, o2) = pareto_moments(p2, a, 50.0 * p2);
            let got = offs.iter().map(|&o| o.min(50.0 * p2)).sum::<f64>() / nf;
            assert!((got - o1).abs() < 5.0 * ((o2 - o1 * o1) / nf).sqrt(), "a {a}: E[min(off,50 p2)] {got} vs {o1}");

            // Truncated long-run rate: the renewal-reward rate with B and off clipped at
            // c_b = 1000 packets and c_o = 1000 p2. Clipping makes every moment finite,
            // so the ratio estimator has the usual delta-method sd
            // sqrt(sum (Bc_i - rho Tc_i)^2) / sum Tc_i (Tc_i = Bc_i*interval + Oc_i), and its
            // limit E[Bc] / (E[Bc]*interval + E[Oc]) follows from the closed forms.
            // This checks the time accounting of whole cycles with a tight (5 sd) tolerance.
            let (cb, co) = (1000.0, 1000.0 * p2);
            let ebc = burst_moments(p1, a, cb).0;
            let eoc = pareto_moments(p2, a, co).0;
            let rho_c = ebc / (ebc * interval + eoc);
            let bc: Vec<f64> = cy.iter().map(|c| (c.0 as f64).min(cb)).collect();
            let tc: Vec<f64> = bc.iter().zip(&offs).map(|(b, o)| b * interval + o.min(co)).collect();
            let (sbc, stc) = (bc.iter().sum::<f64>(), tc.iter().sum::<f64>());
            let rho_hat = sbc / stc;
            let sd = bc.iter().zip(&tc).map(|(b, t)| (b - rho_hat * t).powi(2)).sum::<f64>().sqrt() / stc;
            eprintln!(
                "pareto {a} on/off, clipped cycles: rate {:.1} b/s, expected {:.1}, tol {:.1}",
                8.0 * size as f64 * rho_hat,
                8.0 * size as f64 * rho_c,
                5.0 * 8.0 * size as f64 * sd
            );
            assert!((rho_hat - rho_c).abs() < 5.0 * sd, "a {a}: clipped rate {rho_hat} vs {rho_c} (sd {sd})");

            // --- long-run values inside the heavy-tail band ---
            let b_lo = lower_gap(nf, eb, &|c| burst_moments(p1, a, c.round()), 2.0, delta);
            let b_hi = (0.5 + p1 * (nf / delta).powf(1.0 / a)) / nf;
            let o_lo = lower_gap(nf, off, &|c| pareto_moments(p2, a, c), 2.0 * p2, delta);
            let o_hi = p2 * (nf / delta).powf(1.0 / a) / nf;
            let mb = sb / nf;
            assert!(mb > eb - b_lo && mb < eb + b_hi, "a {a}: mean burst {mb}, E[B] {eb}, band [-{b_lo}, +{b_hi}]");
            let r = |b: f64, o: f64| 8.0 * size as f64 * b / (b * interval + o);
            let r_lo = r(eb - b_lo, off + o_hi);
            let r_hi = r(eb + b_hi, (off - o_lo).max(0.0));
            let r_emp = 8.0 * size as f64 * sb / st;
            eprintln!(
                "pareto {a} on/off: rate {r_emp:.1} b/s, expected {r_exact:.1} (naive {r_naive:.1}), band [{r_lo:.1}, {r_hi:.1}]; \
                 mean burst {mb:.4} pkts, E[B] {eb:.4}, band [-{b_lo:.4}, +{b_hi:.4}]"
            );
            assert!(r_emp > r_lo && r_emp < r_hi, "a {a}: rate {r_emp} outside [{r_lo}, {r_hi}] (expected {r_exact})");
        }
    }

    // -----------------------------------------------------------------------------------
    // CBR
    // -----------------------------------------------------------------------------------

    #[test]
    fn cbr_exact_spacing_first_packet_at_start() {
        // ns-2.35 defaults: rate_ 448Kb, packetSize_ 210 -> 3.75 ms.
        let mut c = Cbr::new(448_000.0, 210).unwrap();
        assert_eq!(c.interval(), 1680.0 / 448_000.0);
        assert!((c.interval() - 0.00375).abs() < 1e-18);
        for k in 0..100_000u64 {
            // Every call sends, starting with the call at start (CBR_Traffic::start()
            // calls timeout() at once), and the spacing is exactly size*8/rate.
            let (d, s) = c.next();
            assert_eq!((d, s), (c.interval(), 210), "packet {k}");
        }
        assert_eq!(c.packets_sent(), 100_000);
        let mut c = Cbr::new(1e6, 1000).unwrap();
        assert_eq!(c.next(), (0.008, 1000));
    }

    #[test]
    fn cbr_max_packets_like_ns() {
        // ++seqno_ < maxpkts_: exactly maxpkts_ packets, the last one with delay -1.
        let mut c = Cbr::new(1e6, 500).unwrap().with_max_packets(3);
        assert_eq!(c.next(), (0.004, 500));
        assert_eq!(c.next(), (0.004, 500));
        assert_eq!(c.next(), (-1.0, 500));
        assert_eq!(c.next(), (-1.0, 0));
        assert_eq!(c.packets_sent(), 3);
        // maxpkts_ 0 still sends one packet (the timeout() at start).
        let mut c = Cbr::new(1e6, 500).unwrap().with_max_packets(0);
        assert_eq!(c.next(), (-1.0, 500));
        assert_eq!(c.next(), (-1.0, 0));
        // Default maxpkts_ is ns-2's 0x10000000.
        assert_eq!(Cbr::new(1e6, 500).unwrap().max_packets, 268_435_456);
    }

    #[test]
    fn cbr_validation_messages() {
        for (r, s, name, val) in [
            (0.0, 210u32, "rate_bps", "0"),
            (-1.0, 210, "rate_bps", "-1"),
            (f64::NAN, 210, "rate_bps", "NaN"),
            (f64::INFINITY, 210, "rate_bps", "inf"),
            (1e6, 0, "packet_size", "0"),
        ] {
            let e = Cbr::new(r, s).unwrap_err();
            assert!(e.contains(name) && e.contains(&format!("(got {val})")), "{e}");
        }
    }
}
