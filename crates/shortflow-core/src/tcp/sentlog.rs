//! The log of sent segments: for each segment sent and not yet cumulatively acked,
//! when it left, whether it was retransmitted or sent at low priority, and the
//! delivery state at that moment (for delivery-rate samples). Read by the sender to
//! build [`AckSample`](crate::tcp::events::AckSample)s and
//! [`LossEvent`](crate::tcp::events::LossEvent)s; later by SACK/RACK.
//!
//! A ring indexed by sequence number, allocated at the first send (an idle connection
//! holds none) and doubled when a window outgrows it, so no allocation per packet.

use crate::tcp::events::RateSample;
use crate::time::SimTime;

const RETRANSMITTED: u8 = 1;
const LOW_PRIO: u8 = 2;
const APP_LIMITED: u8 = 4;

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    sent_at: SimTime,
    /// `delivered` / `delivered_at` / `first_sent_at` of the connection at send time.
    delivered: u64,
    delivered_at: SimTime,
    first_sent_at: SimTime,
    flags: u8,
}

/// What the log knows about one sent segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    pub sent_at: SimTime,
    pub retransmitted: bool,
    pub low_prio: bool,
}

#[derive(Clone, Debug, Default)]
pub struct SentLog {
    ring: Vec<Entry>,
    /// Lowest sequence number the ring holds (everything below is acked).
    base: i64,
    /// One past the highest sequence number recorded.
    end: i64,
    /// Packets cumulatively delivered, when the last of them was, and the send time
    /// of the newest segment whose delivery was counted (draft-cheng-iccrg-delivery-rate).
    delivered: u64,
    delivered_at: SimTime,
    first_sent_at: SimTime,
}

impl SentLog {
    /// Bytes the ring holds, by capacity.
    pub fn memory_bytes(&self) -> usize {
        self.ring.capacity() * std::mem::size_of::<Entry>()
    }

    /// Record that `seq` leaves at `now`. `app_limited`: nothing more to send after it.
    #[inline]
    pub fn on_send(&mut self, seq: i64, now: SimTime, retransmit: bool, low_prio: bool, app_limited: bool) {
        if seq < self.base {
            return; // already cumulatively acked (a stale retransmission)
        }
        if self.end <= self.base {
            // Nothing in flight (fresh, or everything acked): the rate clock and the
            // ring restart here.
            self.first_sent_at = now;
            self.delivered_at = now;
            self.base = seq;
            self.end = seq;
        }
        self.reserve(seq);
        let mask = self.ring.len() as i64 - 1;
        let flags =
            ((retransmit as u8) * RETRANSMITTED) | ((low_prio as u8) * LOW_PRIO) | ((app_limited as u8) * APP_LIMITED);
        let e = &mut self.ring[(seq & mask) as usize];
        let was_retransmitted = seq < self.end && e.flags & RETRANSMITTED != 0;
        *e = Entry {
            sent_at: now,
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_sent_at: self.first_sent_at,
            flags: flags | if was_retransmitted { RETRANSMITTED } else { 0 },
        };
        if seq >= self.end {
            self.end = seq + 1;
        }
    }

    /// Make room for `seq` (grow the ring to a power of two holding `base..=seq`).
    fn reserve(&mut self, seq: i64) {
        let need = (seq - self.base + 1) as usize;
        if need <= self.ring.len() {
            return;
        }
        let cap = need.next_power_of_two().max(16);
        let mut ring = vec![Entry::default(); cap];
        if !self.ring.is_empty() {
            let old = self.ring.len() as i64 - 1;
            let new = cap as i64 - 1;
            for s in self.base..self.end {
                ring[(s & new) as usize] = self.ring[(s & old) as usize];
            }
        }
        self.ring = ring;
    }

    /// The record of `seq`, if it is sent and not yet cumulatively acked.
    pub fn get(&self, seq: i64) -> Option<SentSegment> {
        if seq < self.base || seq >= self.end {
            return None;
        }
        let e = self.ring[(seq & (self.ring.len() as i64 - 1)) as usize];
        Some(SentSegment {
            sent_at: e.sent_at,
            retransmitted: e.flags & RETRANSMITTED != 0,
            low_prio: e.flags & LOW_PRIO != 0,
        })
    }

    /// Everything up to `ackno` is cumulatively acked at `now`: returns the RTT of
    /// `ackno` if it was sent once (Karn), and a delivery-rate sample.
    #[inline]
    pub fn on_cumulative_ack(&mut self, ackno: i64, now: SimTime) -> (Option<SimTime>, Option<RateSample>) {
        if ackno < self.base {
            return (None, None);
        }
        let newest = ackno.min(self.end - 1);
        let newly = (newest - self.base + 1).max(0) as u64;
        let (mut rtt, mut rate) = (None, None);
        if newly > 0 {
            let e = self.ring[(newest & (self.ring.len() as i64 - 1)) as usize];
            self.delivered += newly;
            self.delivered_at = now;
            self.first_sent_at = e.sent_at;
            if e.flags & RETRANSMITTED == 0 {
                rtt = Some(now.saturating_sub(e.sent_at));
            }
            let send_elapsed = e.sent_at.saturating_sub(e.first_sent_at);
            let ack_elapsed = now.saturating_sub(e.delivered_at);
            rate = Some(RateSample {
                delivered: self.delivered - e.delivered,
                interval: send_elapsed.max(ack_elapsed),
                app_limited: e.flags & APP_LIMITED != 0,
            });
        }
        self.base = ackno + 1;
        if self.end < self.base {
            self.end = self.base;
        }
        (rtt, rate)
    }

    /// Packets delivered (cumulatively acked) so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Bytes of memory the ring holds.
    pub fn capacity(&self) -> usize {
        self.ring.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn rtt_per_ack_and_karn() {
        let mut l = SentLog::default();
        for s in 0..4 {
            l.on_send(s, ms(s as u64), false, false, false);
        }
        assert_eq!(l.on_cumulative_ack(1, ms(100)).0, Some(ms(99)));
        l.on_send(2, ms(150), true, false, false); // retransmission of 2
        assert_eq!(l.on_cumulative_ack(2, ms(200)).0, None, "Karn: no sample from a retransmitted segment");
        assert_eq!(l.on_cumulative_ack(3, ms(203)).0, Some(ms(200)));
        assert_eq!(l.delivered(), 4);
    }

    #[test]
    fn delivery_rate_of_a_steady_flow() {
        // One segment per 10 ms, acked 100 ms later: 1 segment per 10 ms delivered.
        let mut l = SentLog::default();
        let mut last = None;
        for s in 0..50i64 {
            l.on_send(s, ms(10 * s as u64), false, false, false);
            if s >= 10 {
                last = l.on_cumulative_ack(s - 10, ms(10 * s as u64)).1;
            }
        }
        let r = last.expect("rate sample");
        assert!((r.pkts_per_s() - 100.0).abs() < 1.0, "{r:?}");
    }

    #[test]
    fn grows_past_its_first_capacity_and_keeps_flags() {
        let mut l = SentLog::default();
        for s in 0..100 {
            l.on_send(s, ms(s as u64), false, s % 2 == 0, false);
        }
        assert!(l.capacity() >= 100);
        assert_eq!(l.get(42), Some(SentSegment { sent_at: ms(42), retransmitted: false, low_prio: true }));
        assert_eq!(l.get(43).map(|x| x.low_prio), Some(false));
        l.on_cumulative_ack(49, ms(200));
        assert_eq!(l.get(49), None);
        assert!(l.get(50).is_some());
    }

    #[test]
    fn idle_connection_holds_no_ring() {
        assert_eq!(SentLog::default().capacity(), 0);
    }
}
