//! ns-2.35 `Queue/RED`: random early detection with ns-2's exact arithmetic.
//!
//! Heads up! ns-2.35 queue/red.cc is the reference. Every branch below mirrors a
//! branch of `REDQueue::enque` / `drop_early` / `modify_p` / `calculate_p_new` /
//! `estimator` / `deque` / `initialize_params` / `reset`, in the same order and with
//! the same floating-point operations, so the average queue estimate matches ns-2 to
//! the last bit for the same arrival sequence. Places where ns-2 does something
//! surprising are marked `// ns-2.35: red.cc <function>`.
//!
//! What is modelled (all with the ns-2.35 defaults of `tcl/lib/ns-default.tcl`):
//! - packet or byte accounting of the queue (`queue_in_bytes_`): the EWMA tracks
//!   bytes and the thresholds and the buffer limit are scaled by `mean_pktsize_`;
//! - byte-mode drop probability (`bytes_`): `p * size / mean_pktsize`;
//! - `gentle_`, `wait_` (uniform inter-drop gaps via `count`), `linterm_`;
//! - automatic `thresh_`, `maxthresh_` (0) and `q_weight_` (0, -1, -2) from the
//!   link's rate and delay, as `REDQueue::command("link")` + `initialize_params`;
//! - the idle-period decay of the average: an arrival after the queue went idle
//!   counts `m = int(ptc * idle_time)` phantom empty-queue samples, where `ptc` is
//!   the link's packet rate in `mean_pktsize_` packets (or `idle_pktsize_` packets
//!   when `cautious_` is 3, the only case ns-2.35 uses `idle_pktsize_`);
//! - forced drops on buffer overflow and (unless `use_mark_p_`, the ns-2.35 default)
//!   above `maxthresh` / `2 * maxthresh` (gentle); victim chosen by the buffer's
//!   victim rule (`drop_front_` = front, `drop_rand_` = random, else tail, or any rule
//!   given as `victim`, e.g. low priority first); the buffer's stages (ack filter,
//!   acks-first) apply as for DropTail, the filter before RED sees the arrival;
//! - ECN: with `setbit_`, an early "drop" of an ECN-capable packet sets `ce` instead
//!   (only while `prob1 < mark_p_` when `use_mark_p_`).
//!
//! Not modelled: adaptive RED (`adaptive_`, `feng_adaptive_`; ns-2.35 default off),
//! `summarystats_`, early-drop trace targets, `doubleq_` (unused by ns-2.35).
//!
//! Idle tracking with a lazy transmitter: ns-2 marks the queue idle when
//! `Queue::resume` (end of a transmission) finds it empty. Our link schedules no
//! "transmission done" event when nothing waits, so when `dequeue` hands out the
//! last waiting packet we remember when its transmission ends; an arrival that finds
//! the queue empty and the link not busy (`QueueCtx::link_busy`) then knows the queue
//! went idle at that instant. A link that does call `dequeue` on an empty queue at
//! the end of each transmission gives the same result.

use super::buffer::Buffer;
use super::stages::Stages;
use super::victim::Victim;
use super::{Dropped, QueueCtx};
use crate::config::RedConfig;
use crate::engine::PktId;
use crate::error::ConfigError;
use crate::net::packet::PacketPool;
use crate::time::{tx_time, SimTime};

/// Counters for tests and results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Random ("unforced") drops of arrivals.
    pub early_drops: u64,
    /// Forced drops: buffer overflow, or average above the forced-drop threshold.
    pub forced_drops: u64,
    /// ECN marks set instead of an early drop.
    pub marks: u64,
}

#[derive(Clone)]
pub struct Red {
    /// The packets, victim rule and stages.
    buf: Buffer,
    /// Bytes waiting (ns-2 `q_->byteLength()`).
    q_bytes: i64,

    // ---- static parameters (ns-2 `edp`) ----
    /// `queue_in_bytes_` (ns-2 `qib_`).
    qib: bool,
    /// `bytes_`.
    bytes: bool,
    wait: bool,
    gentle: bool,
    setbit: bool,
    use_mark_p: bool,
    mark_p: f64,
    mean_pktsize: i32,
    cautious: u32,
    ns1_compat: bool,
    th_min_pkts: f64,
    th_max_pkts: f64,
    /// Thresholds in queue units (bytes when `qib`).
    th_min: f64,
    th_max: f64,
    q_w: f64,
    /// `cur_max_p` = 1 / linterm.
    max_p: f64,
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    /// Packet time constant: `mean_pktsize` packets per second the link can send.
    ptc: f64,
    /// Rate used for the idle decay (`ptc`, or scaled to `idle_pktsize` when cautious 3).
    ptc_idle: f64,
    /// Buffer limit in queue units (`qlim_`, times `mean_pktsize` when `qib`).
    qlim: i64,
    /// Link rate, for the end of the current transmission (lazy-link idle tracking).
    rate_bps: u64,

    // ---- dynamic state (ns-2 `edv`) ----
    ave: f64,
    prob1: f64,
    prob: f64,
    count: i32,
    count_bytes: i32,
    old: bool,
    idle: bool,
    idletime: SimTime,
    /// End of the transmission of the packet that emptied the queue, if no resume
    /// has been observed since (see the module doc).
    tx_end: Option<SimTime>,
    stats: RedStats,
}

fn bad<T: std::fmt::Display>(name: &str, v: T, why: &str) -> String {
    format!("Queue/RED: {name} = {v} is invalid: {why}")
}

impl Red {
    /// From `{kind = "red", ...}` at `field`: [`Red::new`] plus the victim rule and
    /// stages.
    pub fn from_config(field: &str, cfg: &RedConfig, rate_bps: f64, delay_s: f64) -> Result<Red, ConfigError> {
        let mut r = Red::new(cfg, rate_bps, delay_s).map_err(|m| ConfigError::new(field, "red", m))?;
        r.buf.victim = Victim::from_red_config(field, cfg)?;
        r.buf.stages = Stages::from_config(&format!("{field}.stages"), &cfg.stages)?;
        Ok(r)
    }

    /// Build a RED queue for a link of `rate_bps` and one-way propagation delay `delay_s`
    /// (ns-2: `$redq link $linkdelay` followed by the `reset` at `$ns run`).
    pub fn new(cfg: &RedConfig, rate_bps: f64, delay_s: f64) -> Result<Red, String> {
        if !(rate_bps.is_finite() && rate_bps > 0.0) {
            return Err(bad("link rate_bps", rate_bps, "must be a positive number"));
        }
        if !(delay_s.is_finite() && delay_s >= 0.0) {
            return Err(bad("link delay_s", delay_s, "must be a non-negative number"));
        }
        if cfg.mean_pktsize == 0 || cfg.mean_pktsize > i32::MAX as u32 {
            return Err(bad("mean_pktsize", cfg.mean_pktsize, "must be a positive packet size in bytes"));
        }
        if cfg.cautious > 3 {
            return Err(bad("cautious", cfg.cautious, "ns-2.35 knows 0, 1, 2 and 3"));
        }
        if cfg.cautious == 3 && (cfg.idle_pktsize == 0 || cfg.idle_pktsize > i32::MAX as u32) {
            return Err(bad("idle_pktsize", cfg.idle_pktsize, "must be positive when cautious = 3"));
        }
        if !(cfg.thresh.is_finite() && cfg.thresh >= 0.0) {
            return Err(bad("thresh", cfg.thresh, "must be >= 0 (0 = automatic)"));
        }
        if !(cfg.maxthresh.is_finite() && cfg.maxthresh >= 0.0) {
            return Err(bad("maxthresh", cfg.maxthresh, "must be >= 0 (0 = automatic)"));
        }
        let qw = cfg.q_weight;
        if !(qw == 0.0 || qw == -1.0 || qw == -2.0 || (qw > 0.0 && qw <= 1.0)) {
            return Err(bad("q_weight", qw, "must be in (0, 1], or 0 / -1 / -2 for automatic"));
        }
        if !(cfg.linterm.is_finite() && cfg.linterm > 0.0) {
            return Err(bad("linterm", cfg.linterm, "must be positive (max_p = 1/linterm)"));
        }
        if !cfg.mark_p.is_finite() {
            return Err(bad("mark_p", cfg.mark_p, "must be a finite number"));
        }
        if !(cfg.targetdelay_s.is_finite() && cfg.targetdelay_s >= 0.0) {
            return Err(bad("targetdelay_s", cfg.targetdelay_s, "must be >= 0"));
        }

        let mean = cfg.mean_pktsize as i32;
        // REDQueue::command("link"): ptc = bandwidth / (8 * mean_pktsize).
        let ptc = rate_bps / (8.0 * mean as f64);

        // REDQueue::initialize_params.
        let mut q_w = cfg.q_weight;
        if q_w == 0.0 {
            q_w = 1.0 - (-1.0 / ptc).exp();
        } else if q_w == -1.0 {
            let mut rtt = 3.0 * (delay_s + 1.0 / ptc);
            if rtt < 0.1 {
                rtt = 0.1;
            }
            q_w = 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp();
        } else if q_w == -2.0 {
            q_w = 1.0 - (-10.0 / ptc).exp();
        }
        let mut th_min_pkts = cfg.thresh;
        if th_min_pkts == 0.0 {
            th_min_pkts = 5.0;
            let targetqueue = cfg.targetdelay_s * ptc;
            if th_min_pkts < targetqueue / 2.0 {
                th_min_pkts = targetqueue / 2.0;
            }
        }
        let mut th_max_pkts = cfg.maxthresh;
        if th_max_pkts == 0.0 {
            th_max_pkts = 3.0 * th_min_pkts;
        }
        if th_max_pkts < th_min_pkts {
            return Err(format!("Queue/RED: maxthresh = {th_max_pkts} is below thresh = {th_min_pkts} (packets)"));
        }

        // REDQueue::reset.
        let (th_min, th_max) = if cfg.queue_in_bytes {
            (th_min_pkts * mean as f64, th_max_pkts * mean as f64)
        } else {
            (th_min_pkts, th_max_pkts)
        };
        let mut th_diff = th_max - th_min;
        if th_diff == 0.0 {
            // ns-2.35: red.cc reset — equal thresholds use a slope of 1 instead of 1/0.
            th_diff = 1.0;
        }
        let v_a = 1.0 / th_diff;
        let max_p = 1.0 / cfg.linterm;
        let v_b = -th_min / th_diff;
        let (v_c, v_d) = if cfg.gentle { ((1.0 - max_p) / th_max, 2.0 * max_p - 1.0) } else { (0.0, 0.0) };

        // ns-2.35: red.cc enque — with cautious_ 3 the idle decay counts idle_pktsize_
        // packets; otherwise idle_pktsize_ is unused.
        let ptc_idle = if cfg.cautious == 3 { ptc * mean as f64 / cfg.idle_pktsize as f64 } else { ptc };
        // ns-2.35: red.cc enque — in byte mode the buffer limit is limit_ * mean_pktsize_
        // bytes, whatever the real packet sizes are.
        let qlim = if cfg.queue_in_bytes { cfg.limit_pkts as i64 * mean as i64 } else { cfg.limit_pkts as i64 };

        // ns-2's flags as the victim rule; `from_config` also honours `victim`.
        let victim = if cfg.drop_front {
            Victim::Front
        } else if cfg.drop_rand {
            Victim::Random
        } else {
            Victim::Tail
        };
        Ok(Red {
            buf: Buffer::new(victim, Stages::default()),
            q_bytes: 0,
            qib: cfg.queue_in_bytes,
            bytes: cfg.bytes,
            wait: cfg.wait,
            gentle: cfg.gentle,
            setbit: cfg.setbit,
            use_mark_p: cfg.use_mark_p,
            mark_p: cfg.mark_p,
            mean_pktsize: mean,
            cautious: cfg.cautious,
            ns1_compat: cfg.ns1_compat,
            th_min_pkts,
            th_max_pkts,
            th_min,
            th_max,
            q_w,
            max_p,
            v_a,
            v_b,
            v_c,
            v_d,
            ptc,
            ptc_idle,
            qlim,
            rate_bps: rate_bps.round() as u64,
            ave: 0.0,
            prob1: 0.0,
            prob: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            // ns-2.35: red.cc reset — the queue starts idle since time 0 (`$ns run`).
            idle: true,
            idletime: SimTime::ZERO,
            tx_end: None,
            stats: RedStats::default(),
        })
    }

    /// Current queue length in RED's units (bytes when `queue_in_bytes`).
    #[inline]
    fn qlen_units(&self) -> i64 {
        if self.qib {
            self.q_bytes
        } else {
            self.buf.len() as i64
        }
    }

    /// `REDQueue::estimator` (adaptive RED off): `m` samples, `m - 1` of them empty.
    #[inline]
    fn estimator(nqueued: i64, m: i64, ave: f64, q_w: f64) -> f64 {
        let mut new_ave = ave;
        let f = 1.0 - q_w;
        // ns-2.35: red.cc estimator — the idle decay is a loop of multiplications
        // (not a pow), so we loop too; a fixed point (0 or a stuck denormal) ends it
        // early without changing the result.
        let mut k = m - 1;
        while k >= 1 {
            let next = new_ave * f;
            if next == new_ave {
                break;
            }
            new_ave = next;
            k -= 1;
        }
        new_ave *= f;
        new_ave += q_w * nqueued as f64;
        new_ave
    }

    /// `REDQueue::calculate_p_new`.
    #[inline]
    fn calculate_p(&self, v_ave: f64) -> f64 {
        let mut p;
        if self.gentle && v_ave >= self.th_max {
            // From max_p at th_max to 1 at 2 * th_max.
            p = self.v_c * v_ave + self.v_d;
        } else if !self.gentle && v_ave >= self.th_max {
            p = 1.0;
        } else {
            p = self.v_a * v_ave + self.v_b;
            p *= self.max_p;
        }
        if p > 1.0 {
            p = 1.0;
        }
        p
    }

    /// `REDQueue::modify_p`: uniform instead of geometric inter-drop gaps.
    #[inline]
    fn modify_p(&self, mut p: f64, size: u32) -> f64 {
        let mut count1 = self.count as f64;
        if self.bytes {
            // ns-2.35: red.cc modify_p — integer division: fewer than mean_pktsize
            // bytes since the last drop count as 0 packets.
            count1 = (self.count_bytes / self.mean_pktsize) as f64;
        }
        if self.wait {
            if count1 * p < 1.0 {
                p = 0.0;
            } else if count1 * p < 2.0 {
                p /= 2.0 - count1 * p;
            } else {
                p = 1.0;
            }
        } else if count1 * p < 1.0 {
            p /= 1.0 - count1 * p;
        } else {
            p = 1.0;
        }
        if self.bytes && p < 1.0 {
            p = (p * size as f64) / self.mean_pktsize as f64;
        }
        if p > 1.0 {
            p = 1.0;
        }
        p
    }

    /// `REDQueue::drop_early`: true = drop the arrival. May mark it (ECN) instead.
    fn drop_early(&mut self, p: PktId, cx: &mut QueueCtx) -> bool {
        let size = cx.pool.get(p).size;
        self.prob1 = self.calculate_p(self.ave);
        self.prob = self.modify_p(self.prob1, size);

        if self.cautious == 1 {
            // Experimental: no drop while the queue is well below the average.
            let qsize = self.qlen_units() as f64;
            let pkts = self.ptc * 0.05;
            let fraction = (1.0 - self.q_w).powf(pkts);
            if qsize < fraction * self.ave {
                return false;
            }
        }
        // ns-2.35: red.cc drop_early — a uniform number is drawn for every call, even
        // when prob is 0 (wait_ right after a drop), which keeps the stream aligned.
        let mut u = cx.rng.uniform();
        if self.cautious == 2 {
            let qsize = self.qlen_units() as f64;
            let pkts = self.ptc * 0.05;
            let fraction = (1.0 - self.q_w).powf(pkts);
            let ratio = qsize / (fraction * self.ave);
            if ratio < 1.0 {
                u *= 1.0 / ratio;
            }
        }
        if u <= self.prob {
            self.count = 0;
            self.count_bytes = 0;
            let pk = cx.pool.get_mut(p);
            if self.setbit && pk.ect && (!self.use_mark_p || self.prob1 < self.mark_p) {
                pk.ce = true;
                self.stats.marks += 1;
                return false;
            }
            return true;
        }
        false
    }

    /// A packet arrives (ns-2 `REDQueue::enque`). Dropped packets go to `cx.drops`.
    pub fn enqueue(&mut self, p: PktId, cx: &mut QueueCtx) {
        let now = cx.now;
        // Enqueue stages (ack filter) first; what they remove no longer counts.
        let (removed, at) = self.buf.on_arrival(p, cx);
        self.q_bytes -= removed as i64;
        // Lazy link: the transmission that emptied the queue is over, so ns-2's resume
        // has found the queue empty at its end.
        if !self.idle && self.buf.is_empty() && !cx.link_busy {
            if let Some(t) = self.tx_end.take() {
                self.idle = true;
                self.idletime = t;
            }
        }

        let mut m: i64 = 0;
        if self.idle {
            self.idle = false;
            // ns-2.35: red.cc enque — int() truncation of ptc * idle seconds, computed
            // on the double clock values.
            m = (self.ptc_idle * (now.as_secs_f64() - self.idletime.as_secs_f64())) as i64;
        }
        self.ave = Self::estimator(self.qlen_units(), m + 1, self.ave, self.q_w);

        let size = cx.pool.get(p).size;
        self.count = self.count.wrapping_add(1);
        self.count_bytes = self.count_bytes.wrapping_add(size as i32);

        let qavg = self.ave;
        let qlen = self.qlen_units();
        let mut forced = false;
        let mut unforced = false;

        // ns-2.35: red.cc enque — early drops need more than one unit queued
        // (`qlen > 1`: a byte in byte mode), and with use_mark_p_ (the default) the
        // average never forces a drop: p just saturates at 1.
        if qavg >= self.th_min && qlen > 1 {
            if !self.use_mark_p && ((!self.gentle && qavg >= self.th_max) || (self.gentle && qavg >= 2.0 * self.th_max))
            {
                forced = true;
            } else if !self.old {
                // The average just crossed thresh (or the queue was near-empty).
                self.count = 1;
                self.count_bytes = size as i32;
                self.old = true;
            } else if self.drop_early(p, cx) {
                unforced = true;
            }
        } else {
            self.prob = 0.0;
            self.old = false;
        }
        // ns-2.35: red.cc enque — the buffer is full when the waiting queue (without
        // the arrival) already holds qlim; RED keeps qlim waiting packets, one more
        // than DropTail.
        if qlen >= self.qlim {
            forced = true;
            unforced = false;
        }

        if unforced {
            self.stats.early_drops += 1;
            cx.drops.push(Dropped { pkt: p, filtered: false });
            return;
        }
        self.buf.append(p, at);
        self.q_bytes += size as i64;
        if !forced {
            return;
        }
        // REDQueue::pickPacketToDrop. ns-2.35: red.cc pickPacketToDrop -- "front" is
        // index 1 (the second waiting packet), not the head; the tail is the default
        // whatever drop_tail_ says.
        let v = self.buf.remove_victim(cx.pool, cx.rng, 1);
        self.q_bytes -= cx.pool.get(v).size as i64;
        if !self.ns1_compat {
            self.count = 0;
            self.count_bytes = 0;
        }
        self.stats.forced_drops += 1;
        cx.drops.push(Dropped { pkt: v, filtered: false });
    }

    /// The transmitter takes the next packet (ns-2 `REDQueue::deque`).
    pub fn dequeue(&mut self, now: SimTime, pool: &PacketPool) -> Option<PktId> {
        match self.buf.next(pool) {
            Some(p) => {
                let size = pool.get(p).size;
                self.q_bytes -= size as i64;
                self.idle = false;
                self.tx_end = if self.buf.is_empty() { Some(now + tx_time(size, self.rate_bps)) } else { None };
                Some(p)
            }
            None => {
                self.idle = true;
                self.idletime = now;
                self.tx_end = None;
                None
            }
        }
    }

    /// Packets waiting (not counting the one on the wire).
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    /// The buffer's ring, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.buf.heap_bytes()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    /// Bytes waiting.
    pub fn byte_len(&self) -> u64 {
        self.q_bytes as u64
    }
    /// Average queue estimate (ns-2 `ave_`): bytes when `queue_in_bytes`, else packets.
    #[inline]
    pub fn avg(&self) -> f64 {
        self.ave
    }
    /// Drop probability before the count correction at the last early-drop test
    /// (ns-2 `prob1_`).
    pub fn prob1(&self) -> f64 {
        self.prob1
    }
    /// Effective `thresh_` in packets (after automatic configuration).
    pub fn thresh_pkts(&self) -> f64 {
        self.th_min_pkts
    }
    /// Effective `maxthresh_` in packets (after automatic configuration).
    pub fn maxthresh_pkts(&self) -> f64 {
        self.th_max_pkts
    }
    /// Effective `q_weight_` (after automatic configuration).
    pub fn q_weight(&self) -> f64 {
        self.q_w
    }
    /// Packet time constant `ptc` (mean_pktsize packets per second).
    pub fn ptc(&self) -> f64 {
        self.ptc
    }
    pub fn stats(&self) -> RedStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    //! Reference numbers come from ns-2.35 itself (`ns` on Tcl scripts building a RED
    //! link and printing `[$q set thresh_]`, `ave_`, `curq_`, and the queue trace).
    //!
    //! The `NS2_*` tables were produced by this script (`ns scen.tcl default|pktmode|limit`;
    //! the scenario knobs are the ones in `pktmode_cfg` / `limit_cfg`):
    //!
    //! ```tcl
    //! set ns [new Simulator]; set n1 [$ns node]; set n2 [$ns node]
    //! # (scenario knobs: Queue/RED set ... here)
    //! $ns simplex-link $n1 $n2 1.6Mb 50ms RED
    //! set q [[$ns link $n1 $n2] queue]; $ns trace-queue $n1 $n2 [open out.tr w]
    //! set udp [new Agent/UDP]; $ns attach-agent $n1 $udp
    //! set null [new Agent/Null]; $ns attach-agent $n2 $null; $ns connect $udp $null
    //! set cbr [new Application/Traffic/CBR]; $cbr attach-agent $udp
    //! $cbr set packetSize_ 1000; $cbr set interval_ 0.0008
    //! proc probe {} { global ns q; puts "[$ns now] [$q set ave_] [$q set curq_]" }
    //! foreach b {{0.1 0.1236} {0.5013 0.5125} {3.0017 3.0097}} {
    //!   lassign $b s e; $ns at $s "$cbr start"; $ns at $e "$cbr stop"
    //!   for {set t [expr $s + 1e-5]} {$t < $e + 8e-4} {set t [expr $t + 8e-4]} {$ns at $t probe}
    //! }
    //! $ns at 4.0 "exit 0"; $ns run
    //! ```
    //!
    //! Drops are the `d` lines of the queue trace (field 11 = arrival index).
    use super::*;
    use crate::net::packet::Packet;
    use crate::net::queue::Enqueued;
    use crate::rng::Rng;

    fn pkt(size: u32, ect: bool) -> Packet {
        let mut p = Packet::udp(0, 1, 0, size, 0, SimTime::ZERO);
        p.ect = ect;
        p
    }

    fn cfg(json: &str) -> RedConfig {
        serde_json::from_str(json).expect("RedConfig json")
    }

    /// A RED queue in front of a transmitter, driven like `net::Network` does it
    /// (lazy: no resume event when nothing waits), or eagerly (ns-2: a resume at every
    /// end of transmission, calling `dequeue` even on an empty queue).
    struct Bench {
        red: Red,
        pool: PacketPool,
        rng: Rng,
        rate: u64,
        busy_until: SimTime,
        txdone_pending: bool,
        eager: bool,
        /// Per arrival: (avg after the arrival, queue length in RED units before it).
        seen: Vec<(f64, i64)>,
        dropped: Vec<usize>,
        arrivals: usize,
    }

    impl Bench {
        fn new(c: &RedConfig, rate_bps: f64, delay_s: f64) -> Bench {
            Bench {
                red: Red::new(c, rate_bps, delay_s).unwrap(),
                pool: PacketPool::new(),
                rng: Rng::new(7),
                rate: rate_bps as u64,
                busy_until: SimTime::ZERO,
                txdone_pending: false,
                eager: false,
                seen: Vec::new(),
                dropped: Vec::new(),
                arrivals: 0,
            }
        }
        fn start_tx(&mut self, now: SimTime, p: PktId) {
            let size = self.pool.get(p).size;
            self.pool.free(p);
            self.busy_until = now + tx_time(size, self.rate);
            self.txdone_pending = self.eager || !self.red.is_empty();
        }
        /// Fire transmission ends strictly before `t`.
        fn advance(&mut self, t: SimTime) {
            while self.txdone_pending && self.busy_until < t {
                let now = self.busy_until;
                self.txdone_pending = false;
                if let Some(p) = self.red.dequeue(now, &self.pool) {
                    self.start_tx(now, p);
                }
            }
        }
        fn arrive(&mut self, t: SimTime, size: u32, ect: bool) -> (PktId, Enqueued) {
            self.advance(t);
            let busy = t < self.busy_until;
            let id = self.pool.alloc(pkt(size, ect));
            let before = self.red.qlen_units();
            let mut drops = Vec::new();
            {
                let mut cx =
                    QueueCtx { now: t, pool: &mut self.pool, rng: &mut self.rng, link_busy: busy, drops: &mut drops };
                self.red.enqueue(id, &mut cx);
            }
            let res = Enqueued::of(&drops);
            self.seen.push((self.red.avg(), before));
            if let Enqueued::Dropped(v) = res {
                if v == id {
                    self.dropped.push(self.arrivals);
                }
            }
            self.arrivals += 1;
            if !busy && !self.txdone_pending {
                if let Some(p) = self.red.dequeue(t, &self.pool) {
                    self.start_tx(t, p);
                }
            } else if !self.txdone_pending && !self.red.is_empty() {
                self.txdone_pending = true;
            }
            (id, res)
        }
    }

    /// The ns-2 scenario: a CBR source (1000-byte packets every 0.8 ms) on the RED
    /// link's node, bursts at 0.1 s (30 packets), 0.5013 s (14) and 3.0017 s (11).
    fn run_cbr_bursts(c: &RedConfig, eager: bool) -> Bench {
        let mut b = Bench::new(c, 1.6e6, 0.05);
        b.eager = eager;
        for (start_ns, n) in [(100_000_000u64, 30u64), (501_300_000, 14), (3_001_700_000, 11)] {
            for k in 0..n {
                b.arrive(SimTime(start_ns + k * 800_000), 1000, false);
            }
        }
        b
    }

    fn assert_matches_ns2(b: &Bench, ave: &[(f64, i64)], drops: &[usize]) {
        assert_eq!(b.seen.len(), ave.len());
        for (i, (&(got, qlen), &(want, want_q))) in b.seen.iter().zip(ave).enumerate() {
            assert_eq!(qlen, want_q, "arrival {i}: queue length seen by the arrival");
            let tol = 1e-5 * want.abs();
            assert!((got - want).abs() <= tol, "arrival {i}: ave {got:e}, ns-2.35 {want:e}");
        }
        assert_eq!(b.dropped, drops);
    }

    /// ns-2.35 `ave_` (printed with 6 digits) and `curq_` after each arrival, scenario `default`.
    #[rustfmt::skip]
    const NS2_DEFAULT_AVE: [(f64, i64); 55] = [
        (0.0, 0), (0.0, 0), (1.58604, 1000), (4.75561, 2000), (9.5062, 3000), (15.8353, 4000),
        (23.7404, 5000), (31.6329, 5000), (41.099, 6000), (52.1361, 7000), (64.7418, 8000),
        (78.9135, 9000), (94.6488, 10000), (110.359, 10000), (127.63, 11000), (146.461, 12000),
        (166.847, 13000), (188.787, 14000), (212.278, 15000), (235.732, 15000), (260.735, 16000),
        (287.284, 17000), (315.377, 18000), (345.012, 19000), (376.185, 20000), (408.896, 21000),
        (441.554, 21000), (475.747, 22000), (511.471, 23000), (548.725, 24000), (467.444, 0),
        (466.703, 0), (467.548, 1000), (469.979, 2000), (473.992, 3000), (479.584, 4000),
        (486.754, 5000), (493.912, 5000), (502.645, 6000), (512.95, 7000), (524.825, 8000),
        (538.267, 9000), (553.273, 10000), (568.256, 10000), (121.283, 0), (121.091, 0),
        (122.485, 1000), (125.463, 2000), (130.022, 3000), (136.16, 4000), (143.874, 5000),
        (151.576, 5000), (160.852, 6000), (171.699, 7000), (184.115, 8000),
    ];
    /// Packet mode, thresh 3, maxthresh 6, q_weight 0.5, not gentle, use_mark_p off, limit 12.
    #[rustfmt::skip]
    const NS2_PKTMODE_AVE: [(f64, i64); 55] = [
        (0.0, 0), (0.0, 0), (0.5, 1), (1.25, 2), (2.125, 3), (3.0625, 4), (4.03125, 5),
        (4.51562, 5), (5.25781, 6), (6.12891, 7), (6.56445, 7), (6.78223, 7), (6.89111, 7),
        (6.44556, 6), (6.22278, 6), (6.11139, 6), (6.05569, 6), (6.02785, 6), (6.01392, 6),
        (5.50696, 5), (5.75348, 6), (6.37674, 7), (6.68837, 7), (6.84419, 7), (6.92209, 7),
        (6.96105, 7), (6.48052, 6), (6.24026, 6), (6.12013, 6), (6.06007, 6), (8.69577e-42, 0),
        (4.34788e-42, 0), (0.5, 1), (1.25, 2), (2.125, 3), (3.0625, 4), (4.03125, 5),
        (4.51562, 5), (5.25781, 6), (6.12891, 7), (6.56445, 7), (6.78223, 7), (6.89111, 7),
        (6.44556, 6), (7.88451e-296, 0), (3.94225e-296, 0), (0.5, 1), (1.25, 2), (2.125, 3),
        (3.0625, 4), (4.03125, 5), (4.51562, 5), (5.25781, 6), (6.12891, 7), (6.56445, 7),
    ];
    /// Arrival indices ns-2.35 dropped in scenario `pktmode` (all forced: ave >= maxthresh).
    const NS2_PKTMODE_DROPS: [usize; 26] =
        [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 21, 22, 23, 24, 25, 26, 27, 28, 29, 39, 40, 41, 42, 43, 53, 54];
    /// Packet mode, thresh 100, maxthresh 300, limit 10 (only buffer overflows).
    #[rustfmt::skip]
    const NS2_LIMIT_AVE: [(f64, i64); 55] = [
        (0.0, 0), (0.0, 0), (0.00158604, 1), (0.00475561, 2), (0.0095062, 3), (0.0158353, 4),
        (0.0237404, 5), (0.0316329, 5), (0.041099, 6), (0.0521361, 7), (0.0647418, 8),
        (0.0789135, 9), (0.0946488, 10), (0.108773, 9), (0.124461, 10), (0.140124, 10),
        (0.155762, 10), (0.171376, 10), (0.186964, 10), (0.200942, 9), (0.216484, 10),
        (0.232001, 10), (0.247493, 10), (0.262961, 10), (0.278404, 10), (0.293823, 10),
        (0.307632, 9), (0.323004, 10), (0.338352, 10), (0.353676, 10), (0.287276, 0),
        (0.286821, 0), (0.287952, 1), (0.290667, 2), (0.294964, 3), (0.300841, 4),
        (0.308294, 5), (0.315735, 5), (0.324751, 6), (0.335338, 7), (0.347494, 8),
        (0.361218, 9), (0.376505, 10), (0.390182, 9), (0.0830128, 0), (0.0828812, 0),
        (0.0843357, 1), (0.0873741, 2), (0.0919936, 3), (0.0981919, 4), (0.105966, 5),
        (0.113729, 5), (0.123064, 6), (0.133971, 7), (0.146447, 8),
    ];
    /// Arrival indices ns-2.35 dropped in scenario `limit`: arrivals finding 10 waiting.
    const NS2_LIMIT_DROPS: [usize; 16] = [12, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 25, 27, 28, 29, 42];

    fn pktmode_cfg() -> RedConfig {
        cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 3, "maxthresh": 6,
                "q_weight": 0.5, "gentle": false, "use_mark_p": false, "limit_pkts": 12}"#)
    }
    fn limit_cfg() -> RedConfig {
        cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 100, "maxthresh": 300,
                "limit_pkts": 10}"#)
    }

    #[test]
    fn defaults_are_ns235() {
        let c = RedConfig::default();
        assert_eq!(c.limit_pkts, 50);
        assert_eq!((c.thresh, c.maxthresh, c.q_weight, c.linterm), (0.0, 0.0, -1.0, 10.0));
        assert!(c.gentle && c.wait && c.bytes && c.queue_in_bytes && c.drop_tail && c.use_mark_p);
        assert!(!c.setbit && !c.drop_front && !c.drop_rand && !c.ns1_compat);
        assert_eq!((c.mean_pktsize, c.idle_pktsize, c.cautious), (500, 100, 0));
        assert_eq!((c.mark_p, c.targetdelay_s), (0.1, 0.005));
    }

    #[test]
    fn automatic_parameters_match_ns235() {
        // ns-2.35 prints, for `duplex-link ... RED` with the defaults:
        // 1.6Mb 50ms: thresh_ 5 maxthresh_ 15 q_weight_ 0.0015860424904140524
        //             thresh_queue_ 2500 maxthresh_queue_ 7500 cur_max_p_ 0.1
        // 10Mb 10ms:  thresh_ 6.25 maxthresh_ 18.75 q_weight_ 0.00039992001066557759
        // 10Mb 50ms:  thresh_ 6.25 maxthresh_ 18.75 q_weight_ 0.00026451527421467169
        let c = RedConfig::default();
        let cases = [
            (1.6e6, 0.05, 5.0, 15.0, 0.0015860424904140524, 400.0),
            (10e6, 0.01, 6.25, 18.75, 0.0003999200106655776, 2500.0),
            (10e6, 0.05, 6.25, 18.75, 0.0002645152742146717, 2500.0),
        ];
        for (rate, delay, th, mth, qw, ptc) in cases {
            let r = Red::new(&c, rate, delay).unwrap();
            assert_eq!(r.thresh_pkts(), th, "{rate} {delay}");
            assert_eq!(r.maxthresh_pkts(), mth, "{rate} {delay}");
            assert_eq!(r.q_weight(), qw, "{rate} {delay}"); // bit-identical to ns-2.35
            assert_eq!(r.ptc(), ptc);
            // Byte mode: thresholds in mean_pktsize bytes (ns-2 thresh_queue_).
            assert_eq!((r.th_min, r.th_max), (th * 500.0, mth * 500.0));
            assert_eq!(r.max_p, 0.1);
            assert_eq!(r.qlim, 50 * 500);
        }
        // Packet mode: thresholds in packets; explicit values are kept; q_weight 0 / -2.
        let r = Red::new(&cfg(r#"{"queue_in_bytes": false, "thresh": 7, "q_weight": 0}"#), 1.6e6, 0.05).unwrap();
        assert_eq!((r.th_min, r.th_max, r.qlim), (7.0, 21.0, 50));
        assert_eq!(r.q_weight(), 1.0 - (-1.0f64 / 400.0).exp());
        let r = Red::new(&cfg(r#"{"q_weight": -2}"#), 1.6e6, 0.05).unwrap();
        assert_eq!(r.q_weight(), 1.0 - (-10.0f64 / 400.0).exp());
        // Short, fast links: rtt floor of 100 ms.
        let r = Red::new(&c, 100e6, 0.001).unwrap();
        assert_eq!(r.q_weight(), 1.0 - (-1.0f64 / (10.0 * 0.1 * 25_000.0)).exp());
        assert_eq!(r.thresh_pkts(), 62.5); // targetdelay 5 ms x 25000 pkt/s / 2
    }

    #[test]
    fn average_tracks_ns235_byte_mode_bursts_and_idle_decay() {
        let b = run_cbr_bursts(&RedConfig::default(), false);
        assert_matches_ns2(&b, &NS2_DEFAULT_AVE, &[]);
    }

    #[test]
    fn forced_drops_match_ns235_packet_mode() {
        let b = run_cbr_bursts(&pktmode_cfg(), false);
        assert_matches_ns2(&b, &NS2_PKTMODE_AVE, &NS2_PKTMODE_DROPS);
        assert_eq!(b.red.stats().early_drops, 0);
        assert_eq!(b.red.stats().forced_drops, 26);
    }

    #[test]
    fn buffer_limit_matches_ns235() {
        // RED keeps `limit_` packets waiting (DropTail keeps limit_ - 1).
        let b = run_cbr_bursts(&limit_cfg(), false);
        assert_matches_ns2(&b, &NS2_LIMIT_AVE, &NS2_LIMIT_DROPS);
        let maxq = b.seen.iter().map(|s| s.1).max().unwrap();
        assert_eq!(maxq, 10);
    }

    #[test]
    fn eager_and_lazy_links_give_the_same_idle_decay() {
        for c in [RedConfig::default(), pktmode_cfg(), limit_cfg()] {
            let lazy = run_cbr_bursts(&c, false);
            let eager = run_cbr_bursts(&c, true);
            assert_eq!(lazy.seen, eager.seen);
            assert_eq!(lazy.dropped, eager.dropped);
        }
    }

    #[test]
    fn idle_decay_counts_ptc_packets_per_second() {
        // Packet mode, q_weight 0.25 on 1.6 Mb/s (ptc = 400 / s with mean_pktsize 500).
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "q_weight": 0.25, "thresh": 100}"#);
        let mut b = Bench::new(&c, 1.6e6, 0.05);
        // Four back-to-back 500-byte packets at t = 0 (2.5 ms each on the wire).
        for _ in 0..4 {
            b.arrive(SimTime::ZERO, 500, false);
        }
        let a0 = b.red.avg();
        assert!(a0 > 0.0);
        // The queue drains at 10 ms; an arrival at 10 ms + 1 s saw 1 s of idle time:
        // m = int(400 * 1.0) = 400 empty samples plus the arrival's own (queue 0).
        b.arrive(SimTime::from_millis(1010), 500, false);
        let want = a0 * 0.75f64.powi(401);
        assert!((b.red.avg() - want).abs() <= 1e-12 * want, "{} vs {want}", b.red.avg());
        // While the link is busy there is no idle decay: one sample only.
        let a1 = b.red.avg();
        b.arrive(SimTime::from_millis(1011), 500, false); // queue empty, link busy
        assert_eq!(b.red.avg(), a1 * 0.75);
        // Idle starts at the end of the last transmission, not at the last dequeue:
        // the 1011 ms packet is sent from 1012.5 ms to 1015 ms (its dequeue empties the
        // queue at 1012.5 ms). 13 ms of idle time: m = int(400 x 0.013) = 5.
        let a2 = b.red.avg();
        b.arrive(SimTime::from_micros(1_015_000 + 13_000), 500, false);
        let want = a2 * 0.75f64.powi(6);
        assert!((b.red.avg() - want).abs() <= 1e-12 * want);
    }

    #[test]
    fn idle_decay_with_cautious_3_uses_idle_pktsize() {
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "q_weight": 0.25,
                        "thresh": 100, "cautious": 3}"#);
        let mut b = Bench::new(&c, 1.6e6, 0.05);
        b.arrive(SimTime::ZERO, 500, false);
        b.arrive(SimTime::ZERO, 500, false);
        let a0 = b.red.avg();
        // Drained at 5 ms; 10 ms of idle at 2000 pkt/s (100-byte packets) = 20 samples.
        b.arrive(SimTime::from_millis(15), 500, false);
        assert_eq!(b.red.ptc_idle, 2000.0);
        let want = a0 * 0.75f64.powi(21);
        assert!((b.red.avg() - want).abs() <= 1e-12 * want);
    }

    /// A queue with `n` packets waiting behind a busy transmitter, `ave` forced to `ave`.
    fn primed(c: &RedConfig, n: usize, size: u32, ave: f64) -> Bench {
        let mut b = Bench::new(c, 1e6, 0.01);
        b.arrive(SimTime::ZERO, size, false); // goes on the wire
        for _ in 0..n {
            b.arrive(SimTime::ZERO, size, false);
        }
        b.red.ave = ave;
        b.red.old = true;
        b
    }

    #[test]
    fn no_early_drops_below_thresh() {
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 15,
                        "q_weight": 0.002, "wait": false, "limit_pkts": 1000}"#);
        let mut b = Bench::new(&c, 1e6, 0.01);
        // 60 back-to-back arrivals: the queue reaches 60 but the average stays below 5.
        for _ in 0..60 {
            let (_, r) = b.arrive(SimTime::ZERO, 1000, false);
            assert_eq!(r, Enqueued::Accepted);
        }
        assert!(b.red.avg() < 5.0 && b.red.avg() > 1.0, "{}", b.red.avg());
        assert_eq!(b.red.stats(), RedStats::default());
        assert_eq!(b.red.prob1(), 0.0);
        // No random number was drawn.
        assert_eq!(b.rng.uniform(), Rng::new(7).uniform());
    }

    #[test]
    fn early_drop_needs_more_than_one_queued() {
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 1, "maxthresh": 2,
                        "q_weight": 1e-9, "gentle": false, "use_mark_p": false}"#);
        let mut b = primed(&c, 1, 1000, 50.0); // one waiting: qlen = 1, not > 1
        let (_, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Accepted);
        let (id, r) = b.arrive(SimTime::ZERO, 1000, false); // qlen = 2: forced (ave >= max)
        assert_eq!(r, Enqueued::Dropped(id));
        assert_eq!(b.red.stats().forced_drops, 1);
    }

    #[test]
    fn forced_drop_above_maxthresh_or_twice_when_gentle() {
        let base = r#""queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 10,
                      "q_weight": 1e-12, "use_mark_p": false, "limit_pkts": 100"#;
        // Not gentle: forced at ave >= maxthresh.
        // (q_weight is tiny but not 0: the arrival's sample pulls ave a hair towards 3.)
        let c = cfg(&format!("{{{base}, \"gentle\": false}}"));
        let mut b = primed(&c, 3, 1000, 10.0 + 1e-9);
        let (id, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Dropped(id));
        assert_eq!(b.red.stats().forced_drops, 1);
        assert_eq!(b.red.count, 0);
        let mut b = primed(&c, 3, 1000, 9.99);
        b.red.count = 0; // prob1 < 0.1 and count small: wait makes p = 0
        assert_eq!(b.arrive(SimTime::ZERO, 1000, false).1, Enqueued::Accepted);
        // Gentle: the region [maxthresh, 2 maxthresh) is probabilistic, forced above.
        let c = cfg(&format!("{{{base}, \"gentle\": true}}"));
        let mut b = primed(&c, 3, 1000, 19.99);
        b.red.count = 0;
        b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(b.red.stats().forced_drops, 0);
        assert!((b.red.prob1() - (0.9 / 10.0 * 19.99 - 0.8)).abs() < 1e-9);
        let mut b = primed(&c, 3, 1000, 20.0 + 1e-9);
        let (id, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Dropped(id));
        assert_eq!(b.red.stats().forced_drops, 1);
    }

    #[test]
    fn use_mark_p_default_never_forces_on_the_average() {
        // ns-2.35 default use_mark_p_ = true: far above 2 maxthresh the drop is "early"
        // with probability 1 (after the wait_ rule), not forced.
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 10,
                        "q_weight": 1e-12, "limit_pkts": 100}"#);
        let mut b = primed(&c, 3, 1000, 50.0);
        b.red.count = 5;
        let (id, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Dropped(id));
        assert_eq!(b.red.stats(), RedStats { early_drops: 1, forced_drops: 0, marks: 0 });
        assert_eq!(b.red.prob1(), 1.0);
        // Right after that drop count = 1: count * p = 1 -> p = 1 / (2 - 1) = 1: dropped.
        assert!(matches!(b.arrive(SimTime::ZERO, 1000, false).1, Enqueued::Dropped(_)));
    }

    #[test]
    fn byte_mode_counts_whole_mean_packets_since_the_last_drop() {
        // ns-2.35 quirk: count_bytes / mean_pktsize is an integer division, so with p = 1
        // a 40-byte packet right after a drop sees count 0 and passes (p = 0).
        let c = cfg(r#"{"thresh": 5, "maxthresh": 10, "q_weight": 1e-12, "limit_pkts": 100}"#);
        let mut b = primed(&c, 3, 1000, 50_000.0); // byte mode: 100 x maxthresh bytes
        b.red.count_bytes = 5000;
        assert!(matches!(b.arrive(SimTime::ZERO, 1000, false).1, Enqueued::Dropped(_)));
        assert_eq!(b.arrive(SimTime::ZERO, 40, false).1, Enqueued::Accepted);
        assert_eq!(b.red.count_bytes, 40);
    }

    #[test]
    fn buffer_overflow_forces_drops_in_both_modes() {
        // Packet mode: limit 3 -> three wait, the fourth arrival is dropped.
        let c = cfg(r#"{"queue_in_bytes": false, "limit_pkts": 3}"#);
        let mut b = Bench::new(&c, 1e6, 0.01);
        b.arrive(SimTime::ZERO, 1000, false); // on the wire
        for _ in 0..3 {
            assert_eq!(b.arrive(SimTime::ZERO, 1000, false).1, Enqueued::Accepted);
        }
        let (id, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Dropped(id));
        assert_eq!(b.red.len(), 3);
        // Byte mode: limit 2 x 500 bytes; one waiting 1040-byte packet fills it.
        let c = cfg(r#"{"limit_pkts": 2}"#);
        let mut b = Bench::new(&c, 1e6, 0.01);
        b.arrive(SimTime::ZERO, 1040, false);
        assert_eq!(b.arrive(SimTime::ZERO, 1040, false).1, Enqueued::Accepted);
        assert!(matches!(b.arrive(SimTime::ZERO, 40, false).1, Enqueued::Dropped(_)));
        assert_eq!((b.red.len(), b.red.byte_len()), (1, 1040));
        // ECN-capable packets are dropped too (no marking on overflow).
        let c = cfg(r#"{"queue_in_bytes": false, "limit_pkts": 1, "setbit": true}"#);
        let mut b = Bench::new(&c, 1e6, 0.01);
        b.arrive(SimTime::ZERO, 1000, true);
        b.arrive(SimTime::ZERO, 1000, true);
        let (id, r) = b.arrive(SimTime::ZERO, 1000, true);
        assert_eq!(r, Enqueued::Dropped(id));
        assert!(!b.pool.get(id).ce);
    }

    #[test]
    fn drop_front_takes_the_second_waiting_packet() {
        let c = cfg(r#"{"queue_in_bytes": false, "limit_pkts": 3, "drop_front": true}"#);
        let mut b = Bench::new(&c, 1e6, 0.01);
        b.arrive(SimTime::ZERO, 1000, false);
        let ids: Vec<PktId> = (0..3).map(|_| b.arrive(SimTime::ZERO, 1000, false).0).collect();
        let (new, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Dropped(ids[1]));
        assert_eq!(b.red.buf.q.iter().collect::<Vec<_>>(), vec![ids[0], ids[2], new]);
    }

    #[test]
    fn drop_probability_linear_and_gentle_regions() {
        let c = cfg(r#"{"queue_in_bytes": false, "thresh": 5, "maxthresh": 15}"#);
        let r = Red::new(&c, 1e6, 0.01).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(r.calculate_p(5.0), 0.0));
        assert!(close(r.calculate_p(10.0), 0.05));
        assert!(close(r.calculate_p(15.0), 0.1)); // gentle: max_p at maxthresh
        assert!(close(r.calculate_p(22.5), 0.55)); // halfway to 2 maxthresh
        assert!(close(r.calculate_p(30.0), 1.0));
        assert_eq!(r.calculate_p(100.0), 1.0);
        let c = cfg(r#"{"queue_in_bytes": false, "thresh": 5, "maxthresh": 15, "gentle": false}"#);
        let r = Red::new(&c, 1e6, 0.01).unwrap();
        assert!(close(r.calculate_p(14.99), 0.0999));
        assert_eq!(r.calculate_p(15.0), 1.0);
        // Byte mode: the same in mean_pktsize bytes.
        let r = Red::new(&cfg(r#"{"thresh": 5, "maxthresh": 15}"#), 1e6, 0.01).unwrap();
        assert!(close(r.calculate_p(5000.0), 0.05));
        assert!(close(r.calculate_p(11250.0), 0.55));
    }

    #[test]
    fn modify_p_wait_count_and_byte_scaling() {
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 15}"#);
        let mut r = Red::new(&c, 1e6, 0.01).unwrap();
        r.count = 5;
        assert_eq!(r.modify_p(0.1, 1000), 0.0); // wait: count * p < 1
        r.count = 15;
        assert!((r.modify_p(0.1, 1000) - 0.1 / 0.5).abs() < 1e-12);
        r.count = 20;
        assert_eq!(r.modify_p(0.1, 1000), 1.0);
        r.wait = false;
        r.count = 5;
        assert!((r.modify_p(0.1, 1000) - 0.2).abs() < 1e-12);
        r.count = 10;
        assert_eq!(r.modify_p(0.1, 1000), 1.0);
        // bytes_: count in whole mean_pktsize units, probability scaled by size / mean.
        r.bytes = true;
        r.count_bytes = 2999; // 5 mean packets
        assert!((r.modify_p(0.1, 1000) - 0.4).abs() < 1e-12);
        assert!((r.modify_p(0.1, 40) - 0.2 * 40.0 / 500.0).abs() < 1e-12);
        r.count_bytes = 400; // 0 mean packets
        assert!((r.modify_p(0.1, 250) - 0.05).abs() < 1e-12);
    }

    /// Fixed average in the linear region (p_b = 0.11): measured mean gap between drops.
    fn mean_gap(wait: bool, bytes: bool, size: u32) -> f64 {
        let c = cfg(&format!(
            r#"{{"queue_in_bytes": false, "bytes": {bytes}, "thresh": 5, "maxthresh": 15,
                "q_weight": 1e-15, "linterm": 2, "wait": {wait}, "limit_pkts": 1000}}"#
        ));
        // ave = 7.2: p_b = (7.2 - 5) / 10 * 0.5 = 0.11 (no count * p lands near 1 or 2).
        let mut b = primed(&c, 3, size, 7.2);
        let mut drops = 0u64;
        let n = 200_000;
        for _ in 0..n {
            match b.arrive(SimTime::ZERO, size, false).1 {
                Enqueued::Accepted => {
                    let p = b.red.buf.q.pop_back().unwrap();
                    b.red.q_bytes -= size as i64;
                    b.pool.free(p);
                }
                Enqueued::Dropped(p) => {
                    drops += 1;
                    b.pool.free(p);
                }
            }
            b.red.ave = 7.2;
        }
        assert_eq!(b.red.stats().forced_drops, 0);
        n as f64 / drops as f64
    }

    /// Expected mean gap (packets) for the per-arrival probability `pc(c)`, c = 1, 2, ...
    fn expected_gap(pc: impl Fn(u32) -> f64) -> f64 {
        let (mut surv, mut mean) = (1.0, 0.0);
        for c in 1..1000 {
            mean += surv; // P(gap >= c)
            surv *= 1.0 - pc(c).min(1.0);
        }
        mean
    }

    #[test]
    fn count_makes_inter_drop_gaps_uniform() {
        let pb = 0.11;
        // wait: no drop before count * p_b reaches 1, then p_b / (2 - count p_b):
        // gaps spread over {10, ..., 18}, mean 13.6.
        let want = expected_gap(|c| {
            let x = c as f64 * pb;
            if x < 1.0 {
                0.0
            } else if x < 2.0 {
                pb / (2.0 - x)
            } else {
                1.0
            }
        });
        assert!((want - 13.6).abs() < 0.01, "{want}");
        let g = mean_gap(true, false, 1000);
        assert!((g - want).abs() < 0.15, "wait gap {g}, expected {want}");
        // no wait: p_b / (1 - count p_b): P(gap > c) = (1 - (c + 1) p_b) / (1 - p_b),
        // gaps uniform on {1, ..., 9}, mean 4.55.
        let want = expected_gap(|c| {
            let x = c as f64 * pb;
            if x < 1.0 {
                pb / (1.0 - x)
            } else {
                1.0
            }
        });
        assert!((want - 4.55).abs() < 0.01, "{want}");
        let g = mean_gap(false, false, 1000);
        assert!((g - want).abs() < 0.1, "no-wait gap {g}, expected {want}");
    }

    #[test]
    fn byte_mode_drops_small_packets_less_often() {
        // bytes_ with mean_pktsize 500: a 500-byte stream behaves as packet mode; a
        // 250-byte one counts half a mean packet per arrival (integer division) and
        // sees p scaled by 250 / 500.
        let pb = 0.11;
        let big = mean_gap(false, true, 500);
        assert!((big - 4.55).abs() < 0.1, "{big}");
        let want = expected_gap(|c| {
            let x = (c / 2) as f64 * pb;
            if x < 1.0 {
                pb / (1.0 - x) * 250.0 / 500.0
            } else {
                1.0
            }
        });
        let small = mean_gap(false, true, 250);
        assert!((small - want).abs() < 0.02 * want, "small {small}, expected {want}");
        assert!(small > 1.5 * big);
    }

    #[test]
    fn ecn_capable_packets_are_marked_instead_of_early_dropped() {
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 15,
                        "q_weight": 1e-12, "setbit": true, "wait": false, "limit_pkts": 100}"#);
        // prob1 = 0.05 < mark_p; count * p >= 1 -> p = 1.
        let mut b = primed(&c, 3, 1000, 10.0);
        b.red.count = 100;
        let (id, r) = b.arrive(SimTime::ZERO, 1000, true);
        assert_eq!(r, Enqueued::Accepted);
        assert!(b.pool.get(id).ce);
        assert_eq!(b.red.stats(), RedStats { early_drops: 0, forced_drops: 0, marks: 1 });
        assert_eq!(b.red.count, 0);
        // A non-ECT packet in the same situation is dropped.
        b.red.count = 100;
        let (id, r) = b.arrive(SimTime::ZERO, 1000, false);
        assert_eq!(r, Enqueued::Dropped(id));
        assert!(!b.pool.get(id).ce);
        // use_mark_p (default): once prob1 >= mark_p (gentle region), ECT packets are dropped.
        let mut b = primed(&c, 3, 1000, 20.0);
        b.red.count = 100;
        let (id, r) = b.arrive(SimTime::ZERO, 1000, true);
        assert_eq!(r, Enqueued::Dropped(id));
        // ...unless use_mark_p is off, then they are marked there too.
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 15,
                        "q_weight": 1e-12, "setbit": true, "wait": false, "limit_pkts": 100,
                        "use_mark_p": false}"#);
        let mut b = primed(&c, 3, 1000, 20.0);
        b.red.count = 100;
        let (id, r) = b.arrive(SimTime::ZERO, 1000, true);
        assert_eq!(r, Enqueued::Accepted);
        assert!(b.pool.get(id).ce);
        // Without setbit nothing is marked.
        let c = cfg(r#"{"queue_in_bytes": false, "bytes": false, "thresh": 5, "maxthresh": 15,
                        "q_weight": 1e-12, "wait": false, "limit_pkts": 100}"#);
        let mut b = primed(&c, 3, 1000, 10.0);
        b.red.count = 100;
        assert!(matches!(b.arrive(SimTime::ZERO, 1000, true).1, Enqueued::Dropped(_)));
    }

    #[test]
    fn invalid_parameters_are_named() {
        let cases = [
            (r#"{"q_weight": -0.5}"#, "q_weight = -0.5"),
            (r#"{"q_weight": 1.5}"#, "q_weight = 1.5"),
            (r#"{"thresh": -1}"#, "thresh = -1"),
            (r#"{"maxthresh": -3}"#, "maxthresh = -3"),
            (r#"{"thresh": 10, "maxthresh": 5}"#, "maxthresh = 5"),
            (r#"{"linterm": 0}"#, "linterm = 0"),
            (r#"{"mean_pktsize": 0}"#, "mean_pktsize = 0"),
            (r#"{"cautious": 4}"#, "cautious = 4"),
            (r#"{"cautious": 3, "idle_pktsize": 0}"#, "idle_pktsize = 0"),
            (r#"{"targetdelay_s": -1}"#, "targetdelay_s = -1"),
        ];
        for (json, want) in cases {
            let e = Red::new(&cfg(json), 1e6, 0.01).err().unwrap_or_else(|| panic!("{json} accepted"));
            assert!(e.contains(want), "{json}: {e}");
        }
        let e = Red::new(&RedConfig::default(), 0.0, 0.01).err().unwrap();
        assert!(e.contains("rate_bps = 0"), "{e}");
        let e = Red::new(&RedConfig::default(), 1e6, -1.0).err().unwrap();
        assert!(e.contains("delay_s = -1"), "{e}");
        assert!(serde_json::from_str::<RedConfig>(r#"{"treshold": 3}"#).is_err());
    }
}
