//! The SACK scoreboard (RFC 6675 §3, Linux's `TCPCB_SACKED_ACKED` / `TCPCB_LOST` /
//! `TCPCB_SACKED_RETRANS` marks): for each segment sent and not yet cumulatively
//! acked, whether it was selectively acked, is deemed lost, or has a retransmission
//! in flight, and when it was last sent (RACK compares send times). Kept by senders
//! whose recovery uses SACK (`tcp::recovery`), beside the sent log.
//!
//! Counts are kept as the marks change, so `pipe` (RFC 6675 SetPipe; Linux
//! `tcp_packets_in_flight`: outstanding - sacked - lost + retransmitted) is O(1).
//!
//! A ring indexed by sequence number, grown by doubling when a window outgrows it
//! (as `SentLog`): no allocation per packet.

use crate::time::SimTime;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// A retransmission of the segment is in flight (Linux `TCPCB_SACKED_RETRANS`).
const RETRANS: u8 = 4;
/// The segment was retransmitted at least once (Linux `TCPCB_EVER_RETRANS`).
const EVER_RETRANS: u8 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    sent_at: SimTime,
    flags: u8,
}

/// What the scoreboard knows about one outstanding segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegState {
    pub sent_at: SimTime,
    pub sacked: bool,
    pub lost: bool,
    /// A retransmission is in flight.
    pub retrans: bool,
    pub ever_retrans: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    ring: Vec<Entry>,
    /// Lowest outstanding sequence number (everything below is cumulatively acked).
    base: i64,
    /// One past the highest sequence number sent.
    end: i64,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// One past the highest sequence number SACKed (RFC 6675's HighSACK + 1; Linux's
    /// "fack"), or `base` when nothing above the cumulative ack is SACKed.
    high_sacked: i64,
}

impl Scoreboard {
    #[inline]
    fn idx(&self, seq: i64) -> usize {
        (seq & (self.ring.len() as i64 - 1)) as usize
    }

    fn reserve(&mut self, seq: i64) {
        let need = (seq - self.base + 1) as usize;
        if need <= self.ring.len() {
            return;
        }
        let cap = need.next_power_of_two().max(64);
        let mut ring = vec![Entry::default(); cap];
        if !self.ring.is_empty() {
            for s in self.base..self.end {
                ring[(s & (cap as i64 - 1)) as usize] = self.ring[self.idx(s)];
            }
        }
        self.ring = ring;
    }

    /// `seq` leaves at `now`; `retransmit`: it was sent before.
    pub fn on_send(&mut self, seq: i64, now: SimTime, retransmit: bool) {
        if seq < self.base {
            return;
        }
        if self.end <= self.base {
            self.base = seq;
            self.end = seq;
            self.high_sacked = seq;
        }
        self.reserve(seq);
        let i = self.idx(seq);
        if seq >= self.end {
            for s in self.end..seq {
                // A gap (never happens for a sender that sends in order) stays unmarked.
                let j = self.idx(s);
                self.ring[j] = Entry::default();
            }
            self.ring[i] = Entry { sent_at: now, flags: 0 };
            self.end = seq + 1;
            return;
        }
        let e = &mut self.ring[i];
        e.sent_at = now;
        if retransmit {
            if e.flags & RETRANS == 0 {
                self.retrans_out += 1;
            }
            e.flags |= RETRANS | EVER_RETRANS;
        }
    }

    pub fn get(&self, seq: i64) -> Option<SegState> {
        if seq < self.base || seq >= self.end {
            return None;
        }
        let e = self.ring[self.idx(seq)];
        Some(SegState {
            sent_at: e.sent_at,
            sacked: e.flags & SACKED != 0,
            lost: e.flags & LOST != 0,
            retrans: e.flags & RETRANS != 0,
            ever_retrans: e.flags & EVER_RETRANS != 0,
        })
    }

    /// Mark `[left, right)` SACKed; calls `f(seq, state before)` for every segment newly
    /// SACKed and returns how many there were.
    pub fn sack(&mut self, left: i64, right: i64, mut f: impl FnMut(i64, SegState)) -> u32 {
        let (lo, hi) = (left.max(self.base), right.min(self.end));
        let mut n = 0;
        for s in lo..hi {
            let Some(st) = self.get(s) else { continue };
            if st.sacked {
                continue;
            }
            f(s, st);
            let i = self.idx(s);
            let e = &mut self.ring[i];
            if e.flags & LOST != 0 {
                self.lost_out -= 1;
            }
            if e.flags & RETRANS != 0 {
                self.retrans_out -= 1;
            }
            e.flags = (e.flags & EVER_RETRANS) | SACKED;
            self.sacked_out += 1;
            n += 1;
        }
        if hi > self.high_sacked && n > 0 {
            self.high_sacked = self.high_sacked.max(hi);
        }
        n
    }

    /// Everything up to `ackno` is cumulatively acked: calls `f(seq, state)` for every
    /// segment that leaves the board and was not SACKed before; returns their count.
    pub fn cum_ack(&mut self, ackno: i64, mut f: impl FnMut(i64, SegState)) -> u32 {
        let top = (ackno + 1).min(self.end);
        let mut n = 0;
        for s in self.base..top {
            let st = self.get(s).expect("outstanding");
            if st.sacked {
                self.sacked_out -= 1;
            } else {
                f(s, st);
                n += 1;
                if st.lost {
                    self.lost_out -= 1;
                }
            }
            if st.retrans {
                self.retrans_out -= 1;
            }
        }
        self.base = self.base.max(ackno + 1);
        if self.end < self.base {
            self.end = self.base;
        }
        self.high_sacked = self.high_sacked.max(self.base);
        n
    }

    /// Mark `seq` lost (Linux `tcp_mark_skb_lost`): a SACKed segment never is; a
    /// segment already lost whose retransmission was in flight is lost again (to be
    /// resent); a segment first marked keeps a retransmission in flight.
    /// Returns whether the mark changed anything.
    pub fn mark_lost(&mut self, seq: i64) -> bool {
        if seq < self.base || seq >= self.end {
            return false;
        }
        let i = self.idx(seq);
        let e = &mut self.ring[i];
        if e.flags & SACKED != 0 {
            return false;
        }
        if e.flags & LOST != 0 {
            if e.flags & RETRANS != 0 {
                e.flags &= !RETRANS;
                self.retrans_out -= 1;
                return true;
            }
            return false;
        }
        // Not lost before: a retransmission in flight (RFC 6675 rule 3, a probe)
        // stays in flight.
        e.flags |= LOST;
        self.lost_out += 1;
        true
    }

    /// After a retransmission timeout (RFC 6675 §5.1, Linux `tcp_enter_loss`, which
    /// also clears every retransmission mark): every outstanding segment not SACKed is
    /// lost and none is in flight.
    pub fn mark_all_lost(&mut self) {
        for s in self.base..self.end {
            let i = self.idx(s);
            let e = &mut self.ring[i];
            if e.flags & SACKED != 0 {
                continue;
            }
            if e.flags & LOST == 0 {
                e.flags |= LOST;
                self.lost_out += 1;
            }
            if e.flags & RETRANS != 0 {
                e.flags &= !RETRANS;
                self.retrans_out -= 1;
            }
        }
    }

    /// Undo of a loss recovery (Linux `tcp_undo_cwnd_reduction(sk, true)`): no
    /// segment is deemed lost any more; retransmissions in flight stay in flight.
    pub fn unmark_lost_all(&mut self) {
        if self.lost_out == 0 {
            return;
        }
        for s in self.base..self.end {
            let i = self.idx(s);
            self.ring[i].flags &= !LOST;
        }
        self.lost_out = 0;
    }

    /// The lowest segment deemed lost and not SACKed with no retransmission in flight
    /// (the first thing to resend), at or above `from`.
    pub fn next_lost(&self, from: i64) -> Option<i64> {
        if self.lost_out == 0 {
            return None;
        }
        (from.max(self.base)..self.end).find(|&s| self.ring[self.idx(s)].flags & (LOST | RETRANS | SACKED) == LOST)
    }

    /// RFC 6675 SetPipe / Linux `tcp_packets_in_flight`.
    #[inline]
    pub fn pipe(&self) -> i64 {
        self.outstanding() - self.sacked_out as i64 - self.lost_out as i64 + self.retrans_out as i64
    }
    #[inline]
    pub fn outstanding(&self) -> i64 {
        self.end - self.base
    }
    pub fn sacked_out(&self) -> u32 {
        self.sacked_out
    }
    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }
    pub fn retrans_out(&self) -> u32 {
        self.retrans_out
    }
    /// One past the highest SACKed sequence number (`base` if none).
    pub fn high_sacked(&self) -> i64 {
        self.high_sacked
    }
    pub fn base(&self) -> i64 {
        self.base
    }
    pub fn end(&self) -> i64 {
        self.end
    }
    /// SACKed segments above `seq` (RFC 6675 IsLost counts them against DupThresh).
    pub fn sacked_above(&self, seq: i64) -> u32 {
        ((seq + 1).max(self.base)..self.high_sacked).filter(|&s| self.ring[self.idx(s)].flags & SACKED != 0).count()
            as u32
    }

    /// Check the counters against the marks (tests).
    #[cfg(test)]
    pub fn check(&self) {
        let (mut sk, mut lo, mut rt) = (0, 0, 0);
        for s in self.base..self.end {
            let f = self.ring[self.idx(s)].flags;
            sk += (f & SACKED != 0) as u32;
            lo += (f & LOST != 0) as u32;
            rt += (f & RETRANS != 0) as u32;
        }
        assert_eq!((sk, lo, rt), (self.sacked_out, self.lost_out, self.retrans_out), "scoreboard counters");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn pipe_follows_sacks_losses_and_retransmissions() {
        let mut b = Scoreboard::default();
        for s in 0..10 {
            b.on_send(s, ms(s as u64), false);
        }
        assert_eq!(b.pipe(), 10);
        assert_eq!(b.sack(3, 6, |_, _| {}), 3);
        assert_eq!(b.sack(4, 7, |_, _| {}), 1, "only 6 is new");
        assert_eq!((b.pipe(), b.high_sacked()), (6, 7));
        assert!(b.mark_lost(1) && b.mark_lost(2) && !b.mark_lost(4), "a SACKed segment is never lost");
        assert_eq!(b.pipe(), 4);
        assert_eq!(b.next_lost(0), Some(1));
        b.on_send(1, ms(20), true);
        assert_eq!((b.pipe(), b.next_lost(0)), (5, Some(2)));
        b.check();
        // Cumulative ack of 0..=2: 0 (never SACKed, not lost), 1 (lost, resent), 2 (lost).
        let mut left = vec![];
        assert_eq!(b.cum_ack(2, |s, _| left.push(s)), 3);
        assert_eq!(left, vec![0, 1, 2]);
        assert_eq!((b.pipe(), b.sacked_out(), b.lost_out(), b.retrans_out()), (3, 4, 0, 0));
        b.check();
        assert_eq!(b.sacked_above(2), 4);
        assert_eq!(b.sacked_above(5), 1);
    }

    #[test]
    fn a_lost_retransmission_is_lost_again_and_rto_marks_all_unsacked() {
        let mut b = Scoreboard::default();
        for s in 0..6 {
            b.on_send(s, ms(0), false);
        }
        b.sack(4, 5, |_, _| {});
        b.mark_lost(0);
        b.on_send(0, ms(10), true);
        assert_eq!(b.next_lost(0), None);
        assert!(b.mark_lost(0), "the retransmission was lost too");
        assert_eq!(b.next_lost(0), Some(0));
        b.mark_all_lost();
        assert_eq!((b.lost_out(), b.sacked_out(), b.pipe()), (5, 1, 0));
        b.check();
        assert_eq!(b.get(4).map(|x| x.lost), Some(false), "SACKed data is not resent after an RTO");
    }

    #[test]
    fn grows_past_its_first_capacity() {
        let mut b = Scoreboard::default();
        for s in 0..300 {
            b.on_send(s, ms(s as u64), false);
        }
        b.sack(100, 200, |_, _| {});
        assert_eq!(b.get(150).map(|x| (x.sacked, x.sent_at)), Some((true, ms(150))));
        b.check();
    }
}
