//! Integrated loss recovery (spec thesis-http-session C.5-C.6, thesis §6.3.4 and
//! App. B): which segments the session retransmits after an ack, and whether a
//! retransmission cuts the window (at most once per loss window).
//!
//! A segment `seg` of connection `c` is a candidate iff it is `c`'s first unacked
//! segment, was not retransmitted, and one of the thesis's rules holds (`thresh` = 3):
//! 1. `seg.dupacks >= thresh` (fast retransmit);
//! 2. `seg.dupacks + seg.laters >= thresh` and `seg.dupacks >= 1` (a duplicate ack
//!    rules out a receiver that merely delays its ack);
//! 3. `seg.dupacks + seg.laters >= thresh` and another unacked segment of `c` also
//!    reaches the threshold (a delayed-ack receiver acks at least every second
//!    segment, so two overdue segments mean the oldest was lost).
//!
//! Without later acks (session-noilr) `laters` counts as 0, so only rule 1 fires.

use super::block::{SegRec, Session};

/// Which rule made a segment a candidate (1, 2 or 3).
pub type Rule = u8;

fn score(r: &SegRec, later_acks: bool) -> u32 {
    r.dupacks + if later_acks { r.laters } else { 0 }
}

impl Session {
    /// The rule that makes record `i` a candidate, if any; `first_unacked(conn)` is
    /// the first unacknowledged sequence number of connection `conn`.
    pub fn rule_for(&self, i: usize, first_unacked: impl Fn(u32) -> i64) -> Option<Rule> {
        let r = &self.seglst[i];
        if r.retrans || r.ctl || r.seq != first_unacked(self.members[r.slot as usize].conn) {
            return None;
        }
        let th = self.thresh;
        if r.dupacks >= th {
            return Some(1);
        }
        if score(r, self.later_acks) < th || !self.later_acks {
            return None;
        }
        if r.dupacks >= 1 {
            return Some(2);
        }
        let other = self
            .seglst
            .iter()
            .enumerate()
            .any(|(j, r2)| j != i && r2.slot == r.slot && !r2.ctl && score(r2, true) >= th);
        other.then_some(3)
    }

    /// Fill `retranslist` with every candidate (member, seq, rule), in send order.
    /// Cumulative acks leave at most one live candidate per member.
    pub fn find_candidates(&mut self, first_unacked: impl Fn(u32) -> i64) {
        let mut list = std::mem::take(&mut self.retranslist);
        list.clear();
        for i in 0..self.seglst.len() {
            if let Some(rule) = self.rule_for(i, &first_unacked) {
                let r = &self.seglst[i];
                list.push((r.slot, r.seq, rule));
            }
        }
        self.retranslist = list;
    }

    /// A retransmission of a segment with serial `serial` of member `slot`: does it
    /// open a new loss window (cut the window)? The loss window of its sub-session
    /// holds every segment sent up to the last cut; a loss in it was already paid for
    /// (App. B.1.2, Fig. B.1). A cut moves the loss window to `tail` (the newest
    /// segment sent); a retransmission that does not cut leaves it alone.
    pub fn loss_window_cut(&mut self, slot: u16, serial: u64, tail: u64) -> bool {
        let sub = self.members[slot as usize].sub as usize;
        let cut = self.losswin[sub].is_none_or(|lw| serial > lw);
        if cut {
            self.losswin[sub] = Some(tail);
        }
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SessionScheduler;
    use crate::tcp::session::scheduler::Scheduler;
    use crate::time::SimTime;

    /// A session of `n` members with `later_acks`; `sends` lists (member, seq) in send order.
    fn session(n: u32, later_acks: bool, sends: &[(u16, i64)]) -> Session {
        let mut s = Session::new(0, 0, Scheduler::new(SessionScheduler::Rr), 3, later_acks);
        for k in 1..n {
            s.add_member(k, 1);
        }
        for &(slot, seq) in sends {
            s.record(slot, seq, SimTime::ZERO, false, false);
        }
        s
    }

    fn cands(s: &mut Session, first: &[i64]) -> Vec<(u16, i64, u8)> {
        s.find_candidates(|slot| first[slot as usize]);
        s.retranslist.clone()
    }

    #[test]
    fn three_dupacks_fire_rule_1() {
        let mut s = session(2, true, &[(0, 1), (0, 2), (0, 3), (0, 4)]);
        for k in 0..3 {
            assert!(cands(&mut s, &[1, 1]).is_empty(), "not before the third ({k})");
            s.on_dup_ack(0, 1);
        }
        assert_eq!(cands(&mut s, &[1, 1]), vec![(0, 1, 1)]);
    }

    #[test]
    fn one_dupack_and_two_later_acks_fire_rule_2() {
        // White (member 0) sends 1, 2; grey (member 1) sends 1, 2 after them.
        let mut s = session(2, true, &[(0, 1), (0, 2), (1, 1), (1, 2)]);
        s.on_dup_ack(0, 1); // segment 2 of white arrived: a duplicate ack for 1
        assert!(cands(&mut s, &[1, 1]).is_empty());
        s.on_new_ack(1, 1); // grey 1 acked: later ack for white 1 (and white 2)
        assert!(cands(&mut s, &[1, 2]).is_empty(), "2 of 3");
        s.on_new_ack(1, 2);
        assert_eq!(cands(&mut s, &[1, 3]), vec![(0, 1, 2)]);
        // The same pattern without later acks (session-noilr): nothing.
        let mut s = session(2, false, &[(0, 1), (0, 2), (1, 1), (1, 2)]);
        s.on_dup_ack(0, 1);
        s.on_new_ack(1, 1);
        s.on_new_ack(1, 2);
        assert!(cands(&mut s, &[1, 3]).is_empty(), "noilr: rule 1 only");
    }

    #[test]
    fn three_later_acks_on_one_segment_alone_do_not_retransmit() {
        // White's only segment may just have its ack delayed.
        let mut s = session(2, true, &[(0, 1), (1, 1), (1, 2), (1, 3)]);
        for seq in 1..=3 {
            s.on_new_ack(1, seq);
        }
        assert_eq!(s.seglst[0].laters, 3);
        assert!(cands(&mut s, &[1, 4]).is_empty(), "a delayed ack, not evidence of loss");
    }

    #[test]
    fn three_later_acks_on_two_segments_fire_rule_3_on_the_older() {
        let mut s = session(2, true, &[(0, 1), (0, 2), (1, 1), (1, 2), (1, 3)]);
        for seq in 1..=3 {
            s.on_new_ack(1, seq);
        }
        assert_eq!((s.seglst[0].laters, s.seglst[1].laters), (3, 3));
        assert_eq!(cands(&mut s, &[1, 4]), vec![(0, 1, 3)], "the older one");
    }

    #[test]
    fn fig_6_3_one_dupack_and_three_later_acks_on_white_2() {
        // White 1 acked, white 2 lost, white 3 arrives (a dupack for 2); shaded
        // segments sent after white 2 are acked three times.
        let mut s = session(2, true, &[(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]);
        s.on_new_ack(0, 1);
        s.on_dup_ack(0, 2);
        for seq in 1..=3 {
            s.on_new_ack(1, seq);
        }
        let r = s.seglst[s.find(0, 2).unwrap()];
        assert_eq!((r.dupacks, r.laters), (1, 3));
        assert_eq!(cands(&mut s, &[2, 4]), vec![(0, 2, 2)]);
    }

    #[test]
    fn fig_6_4_later_acks_for_white_1_and_2_fire_rule_3() {
        // Send order: white 1, shaded 1, white 2, shaded 2, shaded 3, shaded 4.
        let mut s = session(2, true, &[(0, 1), (1, 1), (0, 2), (1, 2), (1, 3), (1, 4)]);
        for seq in 1..=4 {
            s.on_new_ack(1, seq);
        }
        let w1 = s.seglst[s.find(0, 1).unwrap()];
        let w2 = s.seglst[s.find(0, 2).unwrap()];
        assert_eq!((w1.laters, w2.laters), (4, 3), "shaded ack 1 is later only for white 1");
        assert_eq!(cands(&mut s, &[1, 5]), vec![(0, 1, 3)]);
    }

    #[test]
    fn a_dupack_credits_only_segments_sent_before_the_first_unacked() {
        // Grey 1 before white 1, grey 2 after: white's dupack is a later ack for grey 1 only.
        let mut s = session(2, true, &[(1, 1), (0, 1), (1, 2), (0, 2)]);
        s.on_dup_ack(0, 1);
        let g1 = s.seglst[s.find(1, 1).unwrap()];
        let g2 = s.seglst[s.find(1, 2).unwrap()];
        assert_eq!((g1.laters, g2.laters), (1, 0));
    }

    #[test]
    fn a_dupack_on_a_retransmitted_segment_credits_only_what_its_evidence_covers() {
        // Grey 0, white 1-3, grey 1-2 sent in that order; white 1 is lost and resent
        // (its record moves to the tail). White's further dupacks come from white 2 or 3
        // arriving, both sent after grey 0 but before grey 1-2: a later ack for grey 0
        // only. Crediting every record ahead of the resent white 1 (the literal reading)
        // would make grey 1 a candidate on no evidence -- a false retransmission.
        let mut s = session(2, true, &[(1, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2)]);
        let i = s.find(0, 1).unwrap();
        s.take(i);
        s.record(0, 1, SimTime::ZERO, true, false);
        for _ in 0..4 {
            s.on_dup_ack(0, 1);
        }
        let laters = |s: &Session, seq| s.seglst[s.find(1, seq).unwrap()].laters;
        assert_eq!((laters(&s, 0), laters(&s, 1), laters(&s, 2)), (4, 0, 0));
        assert_eq!(cands(&mut s, &[1, 0]), vec![], "grey 0 alone, no dupack: rule 2 and 3 do not fire");
        // The resent segment's dupacks are fast-recovery credit, not duplicate acks.
        assert_eq!(s.seglst[s.find(0, 1).unwrap()].dupacks, 0);
    }

    #[test]
    fn fig_b1_one_cut_per_loss_window() {
        // Three members, one loss each; losses #1 and #2 in the first window, #3 in a
        // segment sent after the first cut.
        let mut s = session(3, true, &[(0, 1), (1, 1), (2, 1)]);
        let tail = s.tail_serial().unwrap();
        assert!(s.loss_window_cut(0, 0, tail + 1), "#1 cuts");
        assert_eq!(s.losswin[0], Some(tail + 1));
        let lw = s.losswin[0];
        assert!(!s.loss_window_cut(1, 1, tail + 2), "#2 is in the same loss window");
        assert_eq!(s.losswin[0], lw, "and leaves the loss window untouched");
        assert!(s.loss_window_cut(2, tail + 2, tail + 3), "#3 was sent after the cut");
    }
}
