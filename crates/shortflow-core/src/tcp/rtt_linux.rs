//! Linux's RTT estimator and retransmission timeout (RFC 6298 as net/ipv4/tcp_input.c
//! `tcp_rtt_estimator`, `tcp_set_rto`, `tcp_ack_update_rtt` and tcp_timer.c
//! `tcp_retransmit_timer` compute it), in microseconds rather than ns-2's ticks.
//!
//! - **Samples**: every ack that newly acknowledges data gives one, from the *oldest*
//!   newly acknowledged segment (`seq_rtt_us` from `first_ackt` in
//!   `tcp_clean_rtx_queue`), unless any newly acknowledged segment was retransmitted
//!   (Karn; `FLAG_RETRANS_DATA_ACKED`). With TCP timestamps, such an ack still gives a
//!   sample from the echoed timestamp (`tcp_ack_update_rtt`'s TSecr fallback). The
//!   handshake's sample is the ack of the SYN (sequence 0 with `tcp.syn`).
//! - **Estimator** (`srtt_us` kept ×8, `mdev_us` ×4): the first sample sets srtt = m,
//!   mdev = 2m (so the RTO is 3m), rttvar = max(mdev, rto_min); later ones
//!   `srtt += (m - srtt)/8`; mdev moves a quarter of the way to |m - srtt| (an eighth
//!   when the RTT falls below srtt, Linux's Eifel-like damping); `mdev_max` is the
//!   largest mdev of the current window of data and rttvar follows it up at once and
//!   down by a quarter per window, never below `rto_min` (`TCP_RTO_MIN`, 200 ms: the
//!   floor is on the variance term, not on the RTO).
//! - **RTO** = srtt + rttvar, at most `rto_max` (120 s, `TCP_RTO_MAX`); before the first
//!   sample `rto_init` (1 s, `TCP_TIMEOUT_INIT`). Each expiry doubles it (up to
//!   `rto_max`); a valid sample recomputes it and clears the back-off.
//!
//! Not modelled: jiffies (Linux rounds the RTO up to whole jiffies, ≤ 1 ms with
//! HZ = 1000), `rto_min` per route, F-RTO (the RTO recovery belongs to the recovery
//! policies).

use crate::error::{positive_time_s, time_s, ConfigError};
use crate::tcp::sentlog::SentLog;
use crate::time::SimTime;

/// Static parameters (`tcp.rto` with `kind = "linux"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinuxRtoParams {
    pub rto_min_us: u64,
    pub rto_max_us: u64,
    pub rto_init_us: u64,
    /// TCP timestamps: an ack of retransmitted data gives a sample from its echo.
    pub timestamps: bool,
}

impl LinuxRtoParams {
    pub fn from_config(
        field: &str,
        rto_min_s: f64,
        rto_max_s: f64,
        rto_init_s: f64,
        timestamps: bool,
    ) -> Result<Self, ConfigError> {
        let min = time_s(&format!("{field}.min_s"), rto_min_s)?;
        let max = positive_time_s(&format!("{field}.max_s"), rto_max_s)?;
        let init = positive_time_s(&format!("{field}.init_s"), rto_init_s)?;
        if max < min {
            return Err(ConfigError::new(
                format!("{field}.max_s"),
                rto_max_s,
                format!("must be at least min_s = {rto_min_s}"),
            ));
        }
        if init > max {
            return Err(ConfigError::new(
                format!("{field}.init_s"),
                rto_init_s,
                format!("must be at most max_s = {rto_max_s}"),
            ));
        }
        let us = |t: SimTime| t.as_nanos() / 1000;
        Ok(LinuxRtoParams { rto_min_us: us(min), rto_max_us: us(max), rto_init_us: us(init), timestamps })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinuxRtt {
    p: LinuxRtoParams,
    /// Smoothed RTT ×8 (µs); 0 before the first sample.
    srtt_us: u64,
    /// Mean deviation ×4 (µs).
    mdev_us: u64,
    mdev_max_us: u64,
    rttvar_us: u64,
    /// The window of data the current `mdev_max` covers ends at this sequence number.
    rtt_seq: i64,
    /// The RTO before back-off (µs).
    rto_us: u64,
    /// Expiries since the last valid sample (`icsk_backoff`).
    pub backoff: u32,
    /// The newest sample (µs), for traces.
    pub last_sample_us: u64,
    pub samples: u64,
}

impl LinuxRtt {
    pub fn new(p: LinuxRtoParams) -> LinuxRtt {
        LinuxRtt {
            p,
            srtt_us: 0,
            mdev_us: 0,
            mdev_max_us: 0,
            rttvar_us: 0,
            rtt_seq: 0,
            rto_us: p.rto_init_us,
            backoff: 0,
            last_sample_us: 0,
            samples: 0,
        }
    }

    pub fn params(&self) -> &LinuxRtoParams {
        &self.p
    }

    /// `tcp_rtt_estimator(sk, m)` and `tcp_set_rto`, then the back-off is cleared.
    /// `snd_una` is the first unacknowledged sequence number after this ack, `snd_nxt`
    /// the next one to send.
    pub fn sample(&mut self, m: SimTime, snd_una: i64, snd_nxt: i64) {
        let m_us = (m.as_nanos() / 1000).max(1);
        self.last_sample_us = m_us;
        self.samples += 1;
        let mut m = m_us as i64;
        let mut srtt = self.srtt_us as i64;
        if srtt != 0 {
            m -= srtt >> 3;
            srtt += m;
            if m < 0 {
                m = -m;
                m -= (self.mdev_us >> 2) as i64;
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= (self.mdev_us >> 2) as i64;
            }
            self.mdev_us = (self.mdev_us as i64 + m).max(0) as u64;
            if self.mdev_us > self.mdev_max_us {
                self.mdev_max_us = self.mdev_us;
                if self.mdev_max_us > self.rttvar_us {
                    self.rttvar_us = self.mdev_max_us;
                }
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max_us < self.rttvar_us {
                    self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max_us = self.p.rto_min_us;
            }
        } else {
            srtt = m << 3;
            self.mdev_us = (m as u64) << 1;
            self.rttvar_us = self.mdev_us.max(self.p.rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
        }
        self.srtt_us = srtt.max(1) as u64;
        self.rto_us = ((self.srtt_us >> 3) + self.rttvar_us).min(self.p.rto_max_us);
        self.backoff = 0;
    }

    /// The retransmission timer expired: double the RTO (`icsk_backoff++`).
    pub fn on_backoff(&mut self) {
        if self.rto_us << self.backoff.min(20) < self.p.rto_max_us {
            self.backoff += 1;
        }
    }

    /// The RTO with the back-off (µs).
    pub fn rto_us(&self) -> u64 {
        (self.rto_us << self.backoff.min(20)).min(self.p.rto_max_us)
    }

    /// The RTO with the back-off (s).
    pub fn rto_s(&self) -> f64 {
        self.rto_us() as f64 * 1e-6
    }

    /// Smoothed RTT (s); 0 before the first sample.
    pub fn srtt_s(&self) -> f64 {
        self.srtt_us as f64 / 8.0 * 1e-6
    }

    /// rttvar as Linux keeps it (µs): the variance term of the RTO, at least rto_min.
    pub fn rttvar_us(&self) -> u64 {
        self.rttvar_us
    }
}

/// Linux's `seq_rtt_us` for an ack covering `from..=to` at `now`: the time since the
/// oldest of them was sent, if none of them was retransmitted (Karn).
pub fn seq_rtt(log: &SentLog, from: i64, to: i64, now: SimTime) -> Option<SimTime> {
    let mut first = None;
    for s in from..=to {
        let seg = log.get(s)?;
        if seg.retransmitted {
            return None;
        }
        if first.is_none() {
            first = Some(seg.sent_at);
        }
    }
    first.map(|t| now.saturating_sub(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> LinuxRtoParams {
        LinuxRtoParams::from_config("tcp.rto", 0.2, 120.0, 1.0, true).unwrap()
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn first_sample_gives_three_rtts_or_rtt_plus_rto_min() {
        let mut r = LinuxRtt::new(p());
        assert_eq!(r.rto_us(), 1_000_000, "initial RTO 1 s");
        r.sample(ms(100), 1, 1);
        // srtt 100 ms, mdev 200 ms, rttvar max(200, 200): RTO 300 ms.
        assert_eq!(r.rto_us(), 300_000);
        let mut r = LinuxRtt::new(p());
        r.sample(ms(20), 1, 1);
        // mdev 40 ms < rto_min: rttvar 200 ms, RTO 220 ms (the floor is on the variance term).
        assert_eq!(r.rto_us(), 220_000);
        let mut r = LinuxRtt::new(p());
        r.sample(ms(400), 1, 1);
        assert_eq!(r.rto_us(), 1_200_000, "3 x 400 ms");
    }

    #[test]
    fn steady_samples_decay_rttvar_to_rto_min_one_window_at_a_time() {
        let mut r = LinuxRtt::new(p());
        r.sample(ms(100), 1, 11);
        // Equal samples: mdev shrinks by a quarter per sample; rttvar (200 ms) can only
        // fall to mdev_max = rto_min, so it stays 200: RTO 300 ms.
        for k in 0..30 {
            r.sample(ms(100), 2 + k, 12 + k);
        }
        assert_eq!(r.srtt_us, 8 * 100_000);
        assert_eq!(r.rto_us(), 300_000);
        // A jump to 300 ms: error 200 ms -> mdev += (200 - mdev/4)/4 ... rttvar follows up at once.
        let before = r.rttvar_us();
        r.sample(ms(300), 40, 50);
        assert!(r.rttvar_us() > before, "rttvar follows mdev_max up at once");
        assert_eq!(r.srtt_us, 8 * 125_000, "srtt += (300 - 100) / 8");
    }

    #[test]
    fn falling_rtt_moves_mdev_by_an_eighth_of_a_quarter() {
        let mut r = LinuxRtt::new(p());
        r.sample(ms(100), 1, 1); // mdev 200 ms (×4 units: 200_000)
        r.sample(ms(20), 2, 2); // error -80 ms: m = 80 - 50 = 30 ms > 0 -> 30/8 = 3.75 ms
        assert_eq!(r.mdev_us, 203_750);
        assert_eq!(r.srtt_us, 8 * 90_000);
    }

    #[test]
    fn backoff_doubles_to_the_cap_and_a_sample_clears_it() {
        let mut r = LinuxRtt::new(p());
        r.sample(ms(100), 1, 1);
        for want in [600_000, 1_200_000, 2_400_000] {
            r.on_backoff();
            assert_eq!(r.rto_us(), want);
        }
        for _ in 0..30 {
            r.on_backoff();
        }
        assert_eq!(r.rto_us(), 120_000_000, "capped at 120 s");
        r.sample(ms(100), 2, 2);
        assert_eq!(r.backoff, 0);
        assert_eq!(r.rto_us(), 300_000);
    }

    #[test]
    fn seq_rtt_is_from_the_oldest_and_karn_drops_retransmitted() {
        let mut log = SentLog::default();
        log.on_send(1, ms(0), false, false, false);
        log.on_send(2, ms(5), false, false, false);
        log.on_send(3, ms(10), false, false, false);
        assert_eq!(seq_rtt(&log, 1, 2, ms(110)), Some(ms(110)));
        assert_eq!(seq_rtt(&log, 2, 3, ms(110)), Some(ms(105)));
        log.on_send(2, ms(50), true, false, false);
        assert_eq!(seq_rtt(&log, 1, 3, ms(150)), None);
    }

    #[test]
    fn bad_bounds_name_the_field() {
        let e = LinuxRtoParams::from_config("flows[0].tcp.rto", 0.5, 0.2, 1.0, true).unwrap_err();
        assert_eq!(e.field, "flows[0].tcp.rto.max_s");
        let e = LinuxRtoParams::from_config("flows[0].tcp.rto", 0.2, 120.0, 0.0, true).unwrap_err();
        assert_eq!(e.field, "flows[0].tcp.rto.init_s");
        let e = LinuxRtoParams::from_config("flows[0].tcp.rto", -1.0, 120.0, 1.0, true).unwrap_err();
        assert_eq!(e.field, "flows[0].tcp.rto.min_s");
    }
}
