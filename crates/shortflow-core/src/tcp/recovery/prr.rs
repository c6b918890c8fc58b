//! Proportional Rate Reduction (RFC 6937, PRR-SSRB) as Linux computes it
//! (`tcp_cwnd_reduction`): during fast recovery the window is set on every ack so that
//! the data sent tracks the data delivered, scaled by ssthresh / RecoverFS, and grows
//! back towards ssthresh by slow start (one extra segment per ack that advances the
//! cumulative ack) once pipe has fallen below ssthresh.
//!
//! RecoverFS is Linux's `prior_cwnd` (the window when recovery began); RFC 6937 says
//! FlightSize (snd.nxt - snd.una). They are equal for a window-limited sender, as in
//! the RFC's examples.

/// PRR state of one recovery episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    /// RecoverFS (Linux `prior_cwnd`), packets.
    recover_fs: i64,
    /// `prr_delivered`: packets delivered (acked or SACKed) since recovery began.
    delivered: i64,
    /// `prr_out`: packets sent since recovery began.
    out: i64,
}

impl Prr {
    /// Recovery begins with a window of `prior_cwnd` packets.
    pub fn start(prior_cwnd: i64) -> Prr {
        Prr { recover_fs: prior_cwnd.max(1), delivered: 0, out: 0 }
    }

    /// A segment left during recovery.
    pub fn on_sent(&mut self) {
        self.out += 1;
    }

    /// An ack during recovery delivered `delivered` packets (cumulatively or by
    /// SACK). Returns the new window (packets in flight + what may be sent now), or
    /// None when the ack delivered nothing (the window is left alone).
    /// `una_advanced`: it moved the cumulative ack; `newly_lost`: it marked segments
    /// lost (Linux: then no slow-start extra).
    pub fn on_ack(
        &mut self,
        ssthresh: i64,
        pipe: i64,
        delivered: u32,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<i64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered as i64;
        let delta = ssthresh - pipe;
        let mut sndcnt = if delta < 0 {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            (ssthresh * self.delivered + self.recover_fs - 1) / self.recover_fs - self.out
        } else {
            // Slow-start reduction bound: MAX(prr_delivered - prr_out, DeliveredData)
            // (+1 when the cumulative ack advanced), at most up to ssthresh.
            let s = (self.delivered - self.out).max(delivered as i64) + (una_advanced && !newly_lost) as i64;
            s.min(delta)
        };
        // Force the fast retransmit on entering recovery.
        sndcnt = sndcnt.max(if self.out == 0 { 1 } else { 0 });
        Some(pipe + sndcnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 §6, the first example: one loss in a window of 20 segments, Reno
    /// (ssthresh 10). From the third duplicate ack on, PRR sends one segment for
    /// every two delivered ("R, -, N, -, N ...") until pipe has come down to
    /// ssthresh; then it sends no more than keeps pipe at ssthresh.
    #[test]
    fn rfc6937_example_one_segment_per_two_acks() {
        let ssthresh = 10;
        let mut prr = Prr::start(20);
        // At the third dup ack: 22 sent (2 by limited transmit on the first two dup
        // acks), 1 lost, 3 SACKed: pipe 18.
        let mut pipe = 18;
        let mut sent = Vec::new();
        for _ack in 3..=19 {
            let cwnd = prr.on_ack(ssthresh, pipe, 1, false, false).unwrap();
            let n = (cwnd - pipe).max(0);
            for _ in 0..n {
                prr.on_sent();
            }
            pipe += n;
            sent.push(n);
            pipe -= 1; // the next dup ack reports one more segment delivered
        }
        let mut want = [1, 0].repeat(8);
        want.push(0); // ack 19 finds pipe = ssthresh: delta 0, nothing more
        assert_eq!(sent, want);
        // 16 delivered while pipe > ssthresh, 8 sent: ceil(16 * 10 / 20) = 8.
        assert_eq!(sent.iter().sum::<i64>(), 8);
        assert_eq!(pipe, ssthresh - 1);
    }

    /// RFC 6937 §6, the second example's regime: when pipe has fallen below
    /// ssthresh (heavy losses), PRR-SSRB sends at most one more than was delivered on
    /// acks that advance the cumulative ack, and never above ssthresh.
    #[test]
    fn slow_start_reduction_bound_below_ssthresh() {
        let mut prr = Prr::start(20);
        // Entering recovery with pipe 4 (many losses), ssthresh 10: the first ack
        // delivering 1 (a partial ack advancing snd.una) may send 2.
        assert_eq!(prr.on_ack(10, 4, 1, true, false), Some(6));
        prr.on_sent();
        prr.on_sent();
        // A duplicate ack delivering 1: prr_delivered - prr_out = 0, so 1 (= delivered).
        assert_eq!(prr.on_ack(10, 5, 1, false, false), Some(6));
        prr.on_sent();
        // Never above ssthresh.
        assert_eq!(prr.on_ack(10, 9, 5, true, false), Some(10));
        // An ack that delivered nothing leaves the window alone.
        assert_eq!(prr.on_ack(10, 9, 0, true, false), None);
    }
}
