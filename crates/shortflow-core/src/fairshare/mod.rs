//! Heads up! Read spec `fairshare-and-sizebased.md` part A before changing this file.
//!
//! Fair-share slow start (Yu & Newman; seed 003, "P3"): a server groups its live
//! connections by destination prefix and starts a new connection of a group from what
//! the group's established connections show:
//!
//! - **LISS**: ssthresh from Eq. 2 with the cwnd of the oldest steady connection; cwnd 1.
//! - **ISS**: the same with that connection's averaged window `awnd`.
//! - **MISS**: LISS's ssthresh, and an initial cwnd from the timing of the group's and
//!   the oldest connection's loss events (Eqs. 3–5), paced over one RTT.
//! - **JS**: cwnd = ssthresh = LISS's estimate, paced (no exponential phase).
//! - **Cached** and **Averaged**: P3 §5.4's comparison methods (a modified Fast Start
//!   and a modified Zhang et al. scheme), kept here because they use the same state.
//!
//! This module is the state and the arithmetic, with no simulator in it: [`Group`] (what
//! a server keeps per destination group: its live connections in start order and the
//! group's loss-interval EWMA) and [`decide`] (the new connection's ssthresh, cwnd and
//! pacing). The start-up policy `tcp/startup/fair_share.rs` feeds it.

use crate::time::SimTime;

/// Which scheme decides a new connection's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Liss,
    Iss,
    Miss,
    Js,
}

/// P3's defaults for a connection with no steady connection in its group: TCP Reno
/// with ssthresh 10, cwnd 1 (§5).
pub const DEFAULT_SSTHRESH: i32 = 10;
/// EWMA gain of λ (group loss intervals, Eq. 3) and θ (the oldest connection's, Eq. 4).
pub const LOSS_EWMA_GAIN: f64 = 0.125;
/// ns-2's `windowThresh_`: the gain of the averaged window `awnd` (ISS).
pub const AWND_GAIN: f64 = 0.002;

/// EWMA of the intervals between successive events (Eqs. 3–4), seeded with the first
/// interval and updated from the second on (spec A.15 item 8).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IntervalEwma {
    /// Time of the latest event.
    pub last: Option<SimTime>,
    /// The average interval (s), once two events were seen.
    pub mean_s: Option<f64>,
    /// Events seen.
    pub events: u64,
}

impl IntervalEwma {
    pub fn on_event(&mut self, now: SimTime, gain: f64) {
        if let Some(last) = self.last {
            let d = now.saturating_sub(last).as_secs_f64();
            self.mean_s = Some(match self.mean_s {
                None => d,
                Some(m) => (1.0 - gain) * m + gain * d,
            });
        }
        self.last = Some(now);
        self.events += 1;
    }
}

/// What the group knows of one live connection (updated by the connection itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    /// Connection id (the flow index).
    pub id: u32,
    pub start: SimTime,
    pub cwnd: f64,
    pub ssthresh: i32,
    /// EWMA of cwnd over new acks (ISS's w_o), starting at IW/2 (ns-2 `awnd_`).
    pub awnd: f64,
    /// Smoothed RTT (s), 0 before the first sample.
    pub srtt_s: f64,
    /// In fast recovery: its cwnd is inflated, so ssthresh stands for its window
    /// (spec A.15 item 10).
    pub in_recovery: bool,
    /// The connection's own loss intervals (γ, Eq. 4).
    pub losses: IntervalEwma,
}

impl Member {
    pub fn new(id: u32, start: SimTime, cwnd: f64, ssthresh: i32) -> Member {
        Member {
            id,
            start,
            cwnd,
            ssthresh,
            awnd: cwnd / 2.0,
            srtt_s: 0.0,
            in_recovery: false,
            losses: IntervalEwma::default(),
        }
    }

    /// The window the group counts for this connection.
    pub fn window(&self) -> f64 {
        if self.in_recovery {
            self.ssthresh as f64
        } else {
            self.cwnd
        }
    }

    /// In the AIMD ("steady") phase: cwnd ≥ ssthresh (spec A.3).
    pub fn steady(&self) -> bool {
        self.window() >= self.ssthresh as f64
    }

    /// The connection's retransmission timer fired with data outstanding: the
    /// window every congestion control of the simulator takes at once, cwnd =
    /// `floor(wnd_restart)` (ns-2 `CLOSE_CWND_RESTART`; Linux `tcp_enter_loss`: 1),
    /// out of fast recovery. `awnd` is left alone (ns-2 averages only on new acks).
    pub fn after_rto(&mut self, wnd_restart: f64) {
        self.cwnd = wnd_restart.floor().max(1.0);
        self.in_recovery = false;
    }

    /// Update `awnd` on a new ack (ns-2 `TcpAgent::newack`).
    pub fn on_new_ack(&mut self) {
        self.awnd = (1.0 - AWND_GAIN) * self.awnd + AWND_GAIN * self.cwnd;
    }
}

/// A destination group's shared state.
#[derive(Clone, Debug, Default)]
pub struct Group {
    /// Live connections in start order (the oldest first).
    pub live: Vec<Member>,
    /// The group's loss intervals (τ, Eq. 3), kept after connections close.
    pub losses: IntervalEwma,
    /// Cached method: the ssthresh each destination host's last connection closed
    /// with (address, ssthresh); no expiry (spec A.10, A.15 item 13).
    pub closed_ssthresh: Vec<(u32, i32)>,
    /// Averaged method: the periodic cwnd samples (created by its first connection).
    pub averaged: Option<Averaged>,
}

/// P3 §5.4's "Averaged" method (a modified Zhang et al. scheme): every `sample`
/// the cwnd of each live connection of the group is sampled; every `update` the
/// average over the samples of the last `window` becomes the ssthresh of new
/// connections.
///
/// Sampling is lazy and exact: the group's windows change only at its connections'
/// hooks (an ack, a loss, an open, a close), so before each change [`Averaged::flush`]
/// accounts every sampling instant since the last change with the windows as they
/// were (a sample at the instant of an event sees the state before it). Samples are
/// summed per update period (bucket `floor(t / update)`); the value a connection
/// gets at `now` is the one recomputed at the last update instant `m·update`: the
/// buckets of `[m·update − window, m·update)`. One difference from a timer: a loss's
/// window cut is seen at the connection's next ack, not at the cut itself.
#[derive(Clone, Debug)]
pub struct Averaged {
    pub sample: SimTime,
    pub window_buckets: u64,
    pub update: SimTime,
    /// The next sampling instant.
    next: SimTime,
    /// (bucket, sum of sampled windows, number of connection samples), oldest first.
    buckets: std::collections::VecDeque<(u64, f64, u64)>,
}

impl Averaged {
    /// `window` is rounded to whole update periods.
    pub fn new(sample: SimTime, window: SimTime, update: SimTime) -> Averaged {
        let window_buckets = (window.0 as f64 / update.0 as f64).round().max(1.0) as u64;
        Averaged { sample, window_buckets, update, next: sample, buckets: Default::default() }
    }

    /// Account the sampling instants up to and including `now` with the windows of
    /// `live` (before the change about to happen at `now`).
    pub fn flush(&mut self, now: SimTime, live: &[Member]) {
        if now < self.next {
            return;
        }
        let sum: f64 = live.iter().map(|m| m.window()).sum();
        let n = live.len() as u64;
        while self.next <= now {
            let b = self.next.0 / self.update.0;
            // Sampling instants of bucket b from `next` up to min(now, end of bucket).
            let end = SimTime((b + 1) * self.update.0 - 1).min(now);
            let k = (end.0 - self.next.0) / self.sample.0 + 1;
            if n > 0 {
                match self.buckets.back_mut() {
                    Some(last) if last.0 == b => {
                        last.1 += sum * k as f64;
                        last.2 += n * k;
                    }
                    _ => self.buckets.push_back((b, sum * k as f64, n * k)),
                }
            }
            self.next = SimTime(self.next.0 + k * self.sample.0);
        }
        let keep_from = (now.0 / self.update.0).saturating_sub(self.window_buckets);
        while self.buckets.front().is_some_and(|x| x.0 < keep_from) {
            self.buckets.pop_front();
        }
    }

    /// The average window recomputed at the last update instant before or at `now`
    /// (call `flush(now, ..)` first); `None` before the first update with samples.
    pub fn value(&self, now: SimTime) -> Option<f64> {
        let m = now.0 / self.update.0;
        let from = m.saturating_sub(self.window_buckets);
        let (sum, n) =
            self.buckets.iter().filter(|x| x.0 >= from && x.0 < m).fold((0.0, 0u64), |a, x| (a.0 + x.1, a.1 + x.2));
        (n > 0).then(|| sum / n as f64)
    }
}

impl Group {
    pub fn open(&mut self, m: Member) {
        // Start order; connections open in time order, so this is a push.
        let at = self.live.iter().position(|x| x.start > m.start).unwrap_or(self.live.len());
        self.live.insert(at, m);
    }

    pub fn close(&mut self, id: u32) {
        self.live.retain(|m| m.id != id);
    }

    pub fn member_mut(&mut self, id: u32) -> Option<&mut Member> {
        self.live.iter_mut().find(|m| m.id == id)
    }

    /// A loss event of connection `id` (a window cut: fast retransmit entry or RTO).
    pub fn on_loss_event(&mut self, id: u32, now: SimTime) {
        self.losses.on_event(now, LOSS_EWMA_GAIN);
        if let Some(m) = self.member_mut(id) {
            m.losses.on_event(now, LOSS_EWMA_GAIN);
        }
    }
}

/// The quantities of Eq. 2 for a newcomer (`exclude`: the newcomer itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eq2 {
    /// Live connections in AIMD phase.
    pub l: u32,
    /// Sum of the windows of those in slow start.
    pub s: f64,
    /// The oldest steady connection's window (cwnd, or awnd for ISS).
    pub w_o: f64,
    /// Index of that connection in `Group::live`.
    pub oldest: usize,
    /// `(S + L·w_o) / (L + S/w_o + 1)`.
    pub s_n: f64,
}

/// Eq. 2 over the group's live connections other than `exclude`; `None` without a
/// steady connection (L = 0).
pub fn eq2(g: &Group, exclude: Option<u32>, use_awnd: bool) -> Option<Eq2> {
    let others = g.live.iter().enumerate().filter(|(_, m)| Some(m.id) != exclude);
    let mut l = 0u32;
    let mut s = 0.0;
    let mut oldest = None;
    for (i, m) in others {
        if m.steady() {
            l += 1;
            if oldest.is_none() {
                oldest = Some(i);
            }
        } else {
            s += m.window();
        }
    }
    let oldest = oldest?;
    let o = &g.live[oldest];
    let w_o = if use_awnd { o.awnd } else { o.window() };
    if !(w_o > 0.0) {
        return None;
    }
    let s_n = (s + l as f64 * w_o) / (l as f64 + s / w_o + 1.0);
    Some(Eq2 { l, s, w_o, oldest, s_n })
}

/// Eq. 5: packets the group would add before its next expected loss,
/// `γ·(τ − (t_c − t_l)) / (τ·R)`.
pub fn eq5(gamma_s: f64, tau_s: f64, since_last_loss_s: f64, rtt_s: f64) -> f64 {
    gamma_s * (tau_s - since_last_loss_s) / (tau_s * rtt_s)
}

/// How a new connection starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub ssthresh: i32,
    pub cwnd: f64,
    /// Pace the first `cwnd` packets over this interval (s): one every `rtt / cwnd`.
    pub pace_over_s: Option<f64>,
    /// The Eq. 2 quantities used, if any (for traces).
    pub eq2: Option<Eq2>,
}

impl Decision {
    fn defaults(rwnd: i32) -> Decision {
        Decision { ssthresh: DEFAULT_SSTHRESH.min(rwnd.max(2)), cwnd: 1.0, pace_over_s: None, eq2: None }
    }
}

/// Options of [`decide_with`] beyond the spec's defaults (spec A.15).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// ssthresh without a steady connection (P3: 10).
    pub default_ssthresh: i32,
    /// ssthresh = w_o itself instead of Eq. 2 (item 15's loose reading).
    pub plain_w_o: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { default_ssthresh: DEFAULT_SSTHRESH, plain_w_o: false }
    }
}

/// The start of a new connection `me` of group `g` at `now` under `scheme` (spec A.8);
/// `rwnd` is the advertised window (packets).
pub fn decide(scheme: Scheme, g: &Group, me: Option<u32>, now: SimTime, rwnd: i32) -> Decision {
    decide_with(scheme, g, me, now, rwnd, Options::default())
}

/// [`decide`] with non-default [`Options`].
pub fn decide_with(scheme: Scheme, g: &Group, me: Option<u32>, now: SimTime, rwnd: i32, opt: Options) -> Decision {
    let Some(e) = eq2(g, me, scheme == Scheme::Iss) else {
        let mut d = Decision::defaults(rwnd);
        d.ssthresh = opt.default_ssthresh.clamp(2, rwnd.max(2));
        return d;
    };
    let rwnd = rwnd.max(2);
    let est = if opt.plain_w_o { e.w_o } else { e.s_n };
    let ssthresh = (est.floor() as i64).clamp(2, rwnd as i64) as i32;
    let o = &g.live[e.oldest];
    let mut d = Decision { ssthresh, cwnd: 1.0, pace_over_s: None, eq2: Some(e) };
    match scheme {
        Scheme::Liss | Scheme::Iss => {}
        Scheme::Js => {
            d.cwnd = ssthresh as f64;
            if o.srtt_s > 0.0 && d.cwnd > 1.0 {
                d.pace_over_s = Some(o.srtt_s);
            }
        }
        Scheme::Miss => {
            // τ and γ need two loss events each; R is the oldest connection's srtt.
            if let (Some(tau), Some(gamma), Some(t_l)) = (g.losses.mean_s, o.losses.mean_s, g.losses.last) {
                if tau > 0.0 && o.srtt_s > 0.0 {
                    let w = eq5(gamma, tau, now.saturating_sub(t_l).as_secs_f64(), o.srtt_s);
                    if w > 1.0 {
                        let c = (w.floor() as i64).min(rwnd as i64) as i32;
                        d.cwnd = c as f64;
                        d.ssthresh = d.ssthresh.max(c);
                        d.pace_over_s = Some(o.srtt_s);
                    }
                }
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn member(id: u32, start: f64, cwnd: f64, ssthresh: i32) -> Member {
        Member::new(id, t(start), cwnd, ssthresh)
    }

    #[test]
    fn no_steady_connection_gives_p3_defaults() {
        let mut g = Group::default();
        assert_eq!(decide(Scheme::Liss, &g, None, t(1.0), 100), Decision::defaults(100));
        g.open(member(1, 0.0, 4.0, 10)); // slow start
        let d = decide(Scheme::Js, &g, None, t(1.0), 100);
        assert_eq!((d.ssthresh, d.cwnd, d.pace_over_s), (10, 1.0, None));
    }

    #[test]
    fn eq2_by_hand() {
        // Two steady connections (cwnd 20 and 30, the first is the oldest), one slow
        // starter with cwnd 8: L = 2, S = 8, w_o = 20:
        // s_n = (8 + 40) / (2 + 0.4 + 1) = 48 / 3.4 = 14.1176...
        let mut g = Group::default();
        g.open(member(1, 0.0, 20.0, 10));
        g.open(member(2, 1.0, 30.0, 12));
        g.open(member(3, 2.0, 8.0, 64));
        let e = eq2(&g, None, false).unwrap();
        assert_eq!((e.l, e.s, e.w_o, e.oldest), (2, 8.0, 20.0, 0));
        assert!((e.s_n - 48.0 / 3.4).abs() < 1e-12);
        let d = decide(Scheme::Liss, &g, None, t(5.0), 100);
        assert_eq!((d.ssthresh, d.cwnd), (14, 1.0));
        // Without slow starters Eq. 2 is the K/(K+1) share: w_o·L/(L+1).
        g.close(3);
        let e = eq2(&g, None, false).unwrap();
        assert!((e.s_n - 20.0 * 2.0 / 3.0).abs() < 1e-12);
        // The rwnd caps, 2 floors.
        assert_eq!(decide(Scheme::Liss, &g, None, t(5.0), 5).ssthresh, 5);
    }

    #[test]
    fn iss_uses_the_averaged_window_and_awnd_follows_ns2() {
        let mut m = member(1, 0.0, 20.0, 10);
        assert_eq!(m.awnd, 10.0); // IW/2 analogue: half the window it was created with
        m.on_new_ack();
        assert!((m.awnd - (0.998 * 10.0 + 0.002 * 20.0)).abs() < 1e-12);
        let mut g = Group::default();
        g.open(m);
        let e = eq2(&g, None, true).unwrap();
        assert_eq!(e.w_o, m.awnd);
        assert!((e.s_n - m.awnd / 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_newcomer_and_recovering_windows() {
        let mut g = Group::default();
        let mut a = member(1, 0.0, 40.0, 16);
        a.in_recovery = true; // inflated: counts as its ssthresh, 16 (steady)
        g.open(a);
        g.open(member(2, 3.0, 1.0, 10));
        let e = eq2(&g, Some(2), false).unwrap();
        assert_eq!((e.l, e.s, e.w_o), (1, 0.0, 16.0));
        assert_eq!(e.s_n, 8.0);
    }

    #[test]
    fn loss_interval_ewma_is_seeded_with_the_first_interval() {
        let mut e = IntervalEwma::default();
        e.on_event(t(1.0), 0.125);
        assert_eq!(e.mean_s, None);
        e.on_event(t(3.0), 0.125);
        assert_eq!(e.mean_s, Some(2.0));
        e.on_event(t(7.0), 0.125);
        assert!((e.mean_s.unwrap() - (0.875 * 2.0 + 0.125 * 4.0)).abs() < 1e-12);
        assert_eq!(e.events, 3);
    }

    #[test]
    fn miss_by_hand() {
        // Oldest connection: losses at 0, 8, 16 s (γ = 8); group: losses at 0, 4, 8,
        // 12, 16 s (τ = 4); srtt 0.2 s; now 17 s: Eq. 5 = 8·(4 − 1)/(4·0.2) = 30.
        let mut g = Group::default();
        let mut o = member(1, 0.0, 40.0, 20);
        o.srtt_s = 0.2;
        g.open(o);
        g.open(member(2, 0.5, 30.0, 15));
        for (id, at) in [(1, 0.0), (2, 4.0), (1, 8.0), (2, 12.0), (1, 16.0)] {
            g.on_loss_event(id, t(at));
        }
        assert_eq!(g.losses.mean_s, Some(4.0));
        assert_eq!(g.live[0].losses.mean_s, Some(8.0));
        let d = decide(Scheme::Miss, &g, None, t(17.0), 100);
        assert_eq!(d.cwnd, 30.0);
        // LISS's ssthresh: L = 2, w_o = 40 → 26; raised to cwnd.
        assert_eq!(d.ssthresh, 30);
        assert_eq!(d.pace_over_s, Some(0.2));
        // Past the expected loss time Eq. 5 is ≤ 1: LISS behaviour.
        let d = decide(Scheme::Miss, &g, None, t(20.5), 100);
        assert_eq!((d.cwnd, d.ssthresh, d.pace_over_s), (1.0, 26, None));
        // Capped by the advertised window.
        assert_eq!(decide(Scheme::Miss, &g, None, t(17.0), 12).cwnd, 12.0);
    }

    #[test]
    fn miss_without_history_degenerates_to_liss() {
        let mut g = Group::default();
        let mut o = member(1, 0.0, 40.0, 20);
        o.srtt_s = 0.2;
        g.open(o);
        g.on_loss_event(1, t(1.0));
        let d = decide(Scheme::Miss, &g, None, t(2.0), 100);
        assert_eq!((d.cwnd, d.ssthresh, d.pace_over_s), (1.0, 20, None));
    }

    #[test]
    fn options_default_ssthresh_and_plain_w_o() {
        let mut g = Group::default();
        let opt = Options { default_ssthresh: 64, plain_w_o: true };
        assert_eq!(decide_with(Scheme::Liss, &g, None, t(1.0), 100, opt).ssthresh, 64);
        assert_eq!(decide_with(Scheme::Liss, &g, None, t(1.0), 20, opt).ssthresh, 20);
        g.open(member(1, 0.0, 20.0, 10));
        g.open(member(2, 1.0, 30.0, 12));
        // Eq. 2 would give 20·2/3 = 13; the loose reading takes w_o = 20.
        assert_eq!(decide_with(Scheme::Liss, &g, None, t(2.0), 100, opt).ssthresh, 20);
        assert_eq!(decide_with(Scheme::Liss, &g, None, t(2.0), 100, Options::default()).ssthresh, 13);
    }

    #[test]
    fn averaged_samples_lazily_per_second_and_updates_per_minute() {
        // Sample every 1 s, window 2 min, update every 1 min.
        let mut a = Averaged::new(SimTime::from_secs(1), SimTime::from_secs(120), SimTime::from_secs(60));
        let mut live = vec![member(1, 0.0, 10.0, 5)];
        // Windows 10 over (0, 30.5]: samples at 1..=30 s.
        a.flush(t(30.5), &live);
        assert_eq!(a.value(t(59.0)), None); // before the first update
        live.push(member(2, 30.5, 4.0, 2));
        // Both (sum 14, 2 connections) at 31..=90 s; the sample at 60 s is bucket 1.
        a.flush(t(90.0), &live);
        // At 60..120 s the value is bucket 0: 30 samples of 10 and 29 pairs (31..=59):
        // (300 + 29·14) / (30 + 58).
        let v0 = (300.0 + 29.0 * 14.0) / 88.0;
        assert!((a.value(t(90.0)).unwrap() - v0).abs() < 1e-12);
        live.remove(0);
        a.flush(t(200.0), &live); // 91..=200 s: only connection 2 (window 4)
                                  // At 180 s (m = 3): buckets 1 and 2 (60..=179 s): 60..=90 pairs (31 × 14,
                                  // 62 samples), 91..=179 singles (89 × 4).
        let v3 = (31.0 * 14.0 + 89.0 * 4.0) / (62.0 + 89.0);
        assert!((a.value(t(200.0)).unwrap() - v3).abs() < 1e-12);
        // Equal to flushing every second with the same windows.
        let mut b = Averaged::new(SimTime::from_secs(1), SimTime::from_secs(120), SimTime::from_secs(60));
        let one = vec![member(1, 0.0, 10.0, 5)];
        let two = vec![member(1, 0.0, 10.0, 5), member(2, 30.5, 4.0, 2)];
        let last = vec![member(2, 30.5, 4.0, 2)];
        let mut k = 0.5;
        while k <= 200.0 {
            let w = if k <= 30.5 {
                &one
            } else if k <= 90.0 {
                &two
            } else {
                &last
            };
            b.flush(t(k), w);
            k += 0.5;
        }
        assert!((b.value(t(200.0)).unwrap() - v3).abs() < 1e-12);
    }

    #[test]
    fn js_starts_in_congestion_avoidance_paced() {
        let mut g = Group::default();
        let mut o = member(1, 0.0, 30.0, 15);
        o.srtt_s = 0.25;
        g.open(o);
        let d = decide(Scheme::Js, &g, None, t(3.0), 100);
        assert_eq!((d.cwnd, d.ssthresh, d.pace_over_s), (15.0, 15, Some(0.25)));
    }
}
