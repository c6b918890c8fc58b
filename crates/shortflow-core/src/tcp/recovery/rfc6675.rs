//! RFC 6675 conservative SACK-based loss recovery: `IsLost(seq)` is true when
//! DupThresh (3) segments above `seq` are SACKed (in packets, the byte rule
//! "(DupThresh - 1) * SMSS bytes SACKed above" is the same count); recovery starts on
//! the DupThresh-th duplicate ack or when `IsLost(HighACK + 1)`; `NextSeg` rule (1)
//! resends lost segments, rule (2) sends new data, rule (3) resends an unSACKed
//! segment below the highest SACKed one that is not yet deemed lost. The rescue
//! retransmission of rule (4) (a MAY) is not done.

use super::{DetectCtx, Detected, LossDetection};
use crate::tcp::scoreboard::Scoreboard;

/// RFC 6675 `DupThresh`.
pub const DUP_THRESH: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct Rfc6675;

impl LossDetection for Rfc6675 {
    /// Mark every segment `IsLost` says is lost: walking down from the highest SACKed
    /// segment, every unSACKed one with DupThresh SACKed segments above it.
    fn detect(&mut self, sb: &mut Scoreboard, _cx: &DetectCtx) -> Detected {
        let mut out = Detected::default();
        let mut above = 0u32;
        let mut s = sb.high_sacked() - 1;
        while s >= sb.base() {
            let st = sb.get(s).expect("outstanding");
            if st.sacked {
                above += 1;
            } else if above >= DUP_THRESH && !st.lost && sb.mark_lost(s) {
                out.newly_lost += 1;
            }
            s -= 1;
        }
        out
    }

    fn dupthresh_starts_recovery(&self) -> bool {
        true
    }

    /// NextSeg rule (3): the lowest unSACKed segment above `high_rxt` and below the
    /// highest SACKed one, not lost and with no retransmission in flight.
    fn rule3(&self, sb: &Scoreboard, high_rxt: i64) -> Option<i64> {
        ((high_rxt + 1).max(sb.base())..sb.high_sacked())
            .find(|&s| sb.get(s).is_some_and(|x| !x.sacked && !x.lost && !x.retrans))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        let mut sb = Scoreboard::default();
        for s in 0..10 {
            sb.on_send(s, SimTime::ZERO, false);
        }
        let cx = DetectCtx { now: SimTime::ZERO, in_recovery: false, srtt: None };
        sb.sack(2, 4, |_, _| {});
        assert_eq!(Rfc6675.detect(&mut sb, &cx).newly_lost, 0, "two SACKed above 0 and 1");
        sb.sack(5, 6, |_, _| {});
        assert_eq!(Rfc6675.detect(&mut sb, &cx).newly_lost, 2, "0 and 1 have three above; 4 has one");
        assert_eq!((sb.get(1).unwrap().lost, sb.get(4).unwrap().lost), (true, false));
        assert_eq!(Rfc6675.rule3(&sb, -1), Some(4));
        sb.check();
    }
}
