//! Tail loss probe (RFC 8985 §7) as Linux schedules it (`tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe`, `tcp_process_tlp_ack`):
//!
//! - armed while the sender is not in recovery and has data outstanding, in place of
//!   the RTO: PTO = 2·SRTT, plus `TCP_RTO_MIN` (200 ms, the peer's delayed-ack
//!   allowance) when one segment is outstanding, else plus `TCP_TIMEOUT_MIN` (2 ms);
//!   1 s (`TCP_TIMEOUT_INIT`) before the first RTT sample; never later than the RTO
//!   would fire;
//! - the probe sends one new segment if there is one (even beyond cwnd), else
//!   retransmits the highest outstanding segment; one probe per tail (a new probe
//!   only after the episode ended: its ack came, or an RTO);
//! - TLP loss detection: an ack at or beyond the probe's `end_seq` without a DSACK
//!   for a retransmitted probe means the probe repaired a loss, and the window is
//!   reduced as in fast recovery (Linux `TCPLossProbeRecovery`).

use crate::time::SimTime;

/// Linux `TCP_RTO_MIN`: added to the PTO when one segment is outstanding.
pub const PTO_ONE_SEGMENT_EXTRA: SimTime = SimTime::from_millis(200);
/// Linux `TCP_TIMEOUT_MIN_US`: added otherwise.
pub const PTO_EXTRA: SimTime = SimTime::from_micros(2000);
/// Linux `TCP_TIMEOUT_INIT`: the PTO before any RTT sample.
pub const PTO_NO_RTT: SimTime = SimTime::from_secs(1);

/// The probe timeout for `srtt` (None before a sample) and `outstanding` segments,
/// capped by `rto_left` (time until the RTO would fire, if known and positive).
pub fn pto(srtt: Option<SimTime>, outstanding: i64, rto_left: Option<SimTime>) -> SimTime {
    let t = match srtt {
        Some(s) => s + s + if outstanding == 1 { PTO_ONE_SEGMENT_EXTRA } else { PTO_EXTRA },
        None => PTO_NO_RTT,
    };
    match rto_left {
        Some(r) if r > SimTime::ZERO && r < t => r,
        _ => t,
    }
}

/// One probe episode (RFC 8985 `TLP.end_seq`, `TLP.is_retrans`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Episode {
    /// `snd.nxt` when the probe left: the episode ends with the ack of everything below.
    pub end_seq: i64,
    /// The probe retransmitted this segment (None: it was new data).
    pub retrans: Option<i64>,
    /// A DSACK for the retransmitted probe arrived: the original was not lost.
    pub dsacked: bool,
}

/// What an ack means for a probe episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The ack does not reach the probe's end: the episode goes on.
    Pending,
    /// Over: nothing was lost, or new data probed (SACK recovery repairs the rest).
    Done,
    /// Over: the retransmitted probe repaired a loss; reduce the window.
    Repaired,
}

impl Episode {
    /// An ack with cumulative ack `ackno` (highest in-order packet) arrives;
    /// `dsack_of_probe`: it carried a DSACK for the probe's segment; `pure_dupack`: it
    /// acked nothing new, cumulatively or by SACK. Linux `tcp_process_tlp_ack`: an ack
    /// *exactly* at the probe's end may be the original's, so only an ack beyond it
    /// (later data acked) proves the loss, and a pure duplicate ack then (the probe's
    /// own) proves there was none.
    pub fn on_ack(&mut self, ackno: i64, dsack_of_probe: bool, pure_dupack: bool) -> Outcome {
        self.dsacked |= dsack_of_probe;
        let ack = ackno + 1; // snd.una after this ack
        if ack < self.end_seq {
            return Outcome::Pending;
        }
        if self.retrans.is_none() || self.dsacked {
            return Outcome::Done;
        }
        if ack > self.end_seq {
            return Outcome::Repaired;
        }
        if pure_dupack {
            Outcome::Done
        } else {
            Outcome::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn pto_as_linux_schedules_it() {
        assert_eq!(pto(Some(ms(100)), 5, None), ms(202));
        assert_eq!(pto(Some(ms(100)), 1, None), ms(400), "one segment: + TCP_RTO_MIN");
        assert_eq!(pto(None, 5, None), ms(1000));
        assert_eq!(pto(Some(ms(100)), 5, Some(ms(150))), ms(150), "capped by the RTO");
        assert_eq!(pto(Some(ms(100)), 5, Some(SimTime::ZERO)), ms(202));
    }

    #[test]
    fn a_retransmitted_probe_acked_without_dsack_repaired_a_loss() {
        let mut e = Episode { end_seq: 10, retrans: Some(9), dsacked: false };
        assert_eq!(e.on_ack(8, false, false), Outcome::Pending);
        assert_eq!(e.on_ack(9, false, false), Outcome::Pending, "may be the original's ack");
        assert_eq!(e.on_ack(11, false, false), Outcome::Repaired, "later data acked, no DSACK");
        let mut e = Episode { end_seq: 10, retrans: Some(9), dsacked: false };
        assert_eq!(e.on_ack(9, false, false), Outcome::Pending);
        assert_eq!(e.on_ack(9, true, true), Outcome::Done, "DSACK: both copies arrived");
        let mut e = Episode { end_seq: 10, retrans: Some(9), dsacked: false };
        assert_eq!(e.on_ack(9, false, true), Outcome::Done, "the probe's own duplicate ack");
        let mut e = Episode { end_seq: 11, retrans: None, dsacked: false };
        assert_eq!(e.on_ack(10, false, false), Outcome::Done);
    }
}
