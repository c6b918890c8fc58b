//! Token-bucket pacing of a range of new segments (TCP/SPAND's paced initial window;
//! spec tcp-spand §2.6). Kept apart from congestion control, like quinn's pacer.
//!
//! The bucket starts full (`depth` tokens) and refills at `rate_pps`; a segment in
//! `[first_seq, last_seq]` may leave only with a token. The retry time is exact
//! (simulator time, no tick quantisation; spec A6).

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Pacer {
    pub first_seq: i64,
    pub last_seq: i64,
    /// Refill interval per token.
    pub interval: SimTime,
    pub depth: u32,
    tokens: u32,
    /// Time the next token is due (valid while tokens < depth).
    next_token_at: SimTime,
}

impl Pacer {
    /// `rate_pps` > 0, `depth` >= 1.
    pub fn new(now: SimTime, first_seq: i64, count: i64, rate_pps: f64, depth: u32) -> Pacer {
        let interval = SimTime::from_secs_f64(1.0 / rate_pps.max(1e-9));
        let depth = depth.max(1);
        Pacer { first_seq, last_seq: first_seq + count - 1, interval, depth, tokens: depth, next_token_at: now }
    }

    /// The same pacer with an empty bucket: the first token is due one interval after
    /// `now` (TCP/SPAND's `bucket_starts_full = false` ablation).
    pub fn starting_empty(mut self, now: SimTime) -> Pacer {
        self.tokens = 0;
        self.next_token_at = now + self.interval;
        self
    }

    fn refill(&mut self, now: SimTime) {
        while self.tokens < self.depth && now >= self.next_token_at {
            self.tokens += 1;
            self.next_token_at = self.next_token_at + self.interval;
        }
        if self.tokens == self.depth {
            // A full bucket does not accumulate: the clock restarts at the next spend.
            self.next_token_at = now;
        }
    }

    /// May segment `seq` leave now? `Err(t)` says when to try again.
    pub fn check(&mut self, now: SimTime, seq: i64) -> Result<(), SimTime> {
        if seq < self.first_seq || seq > self.last_seq {
            return Ok(());
        }
        self.refill(now);
        if self.tokens > 0 {
            Ok(())
        } else {
            Err(self.next_token_at)
        }
    }

    /// Account for segment `seq` having been sent now.
    pub fn on_sent(&mut self, now: SimTime, seq: i64) {
        if seq < self.first_seq || seq > self.last_seq {
            return;
        }
        self.refill(now);
        if self.tokens == self.depth {
            self.next_token_at = now + self.interval;
        }
        self.tokens = self.tokens.saturating_sub(1);
    }

    /// Pacing is over once the last paced segment has been sent.
    pub fn done(&self, next_seq: i64) -> bool {
        next_seq > self.last_seq
    }
}

/// Burst pacing (thesis §8.3 and §9.3.4: TCP Fast Start and sender adaptation, the
/// same mechanism; ns-2.35 `send_helper`): after a burst of `maxburst` segments cut
/// short by the limit, the next one leaves `maxburst × srtt_exact / window` later, so a
/// window is spread over one round trip. `None` without an RTT sample or a window.
pub fn burst_gap(maxburst: u32, srtt_exact: Option<f64>, window: i64) -> Option<SimTime> {
    let srtt = srtt_exact.filter(|s| *s > 0.0)?;
    (window > 0 && maxburst > 0).then(|| SimTime::from_secs_f64(maxburst as f64 * srtt / window as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Send segments 0..n as early as the pacer allows; their send times in ms.
    fn drain(p: &mut Pacer, n: i64) -> Vec<u64> {
        let mut now = SimTime::ZERO;
        let mut sent = vec![];
        let mut seq = 0;
        while seq < n {
            match p.check(now, seq) {
                Ok(()) => {
                    p.on_sent(now, seq);
                    sent.push(now.as_nanos() / 1_000_000);
                    seq += 1;
                }
                Err(t) => now = t,
            }
        }
        sent
    }

    #[test]
    fn full_bucket_then_one_per_interval() {
        // 10 segments at 100 pkt/s, depth 4: 4 at t=0, then one every 10 ms.
        let mut p = Pacer::new(SimTime::ZERO, 0, 10, 100.0, 4);
        assert_eq!(drain(&mut p, 10), vec![0, 0, 0, 0, 10, 20, 30, 40, 50, 60]);
        assert!(p.done(10));
    }

    #[test]
    fn empty_bucket_waits_one_interval_per_segment() {
        let mut p = Pacer::new(SimTime::ZERO, 0, 5, 100.0, 4).starting_empty(SimTime::ZERO);
        assert_eq!(drain(&mut p, 5), vec![10, 20, 30, 40, 50]);
    }

    #[test]
    fn outside_range_is_not_paced() {
        let mut p = Pacer::new(SimTime::ZERO, 5, 2, 1.0, 1);
        assert!(p.check(SimTime::ZERO, 4).is_ok());
        assert!(p.check(SimTime::ZERO, 7).is_ok());
        p.on_sent(SimTime::ZERO, 5);
        assert_eq!(p.check(SimTime::ZERO, 6), Err(SimTime::from_secs(1)));
    }
}
