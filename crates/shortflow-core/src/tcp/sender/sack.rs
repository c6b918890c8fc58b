//! The mechanism's side of SACK-based loss recovery (`tcp.recovery.kind` `rfc6675`
//! or `rack_tlp`; the policies are in `tcp::recovery`): reading SACK and DSACK blocks,
//! the scoreboard, entering and leaving fast recovery, sending under pipe (RFC 6675
//! NextSeg: lost segments first, then new data, then rule 3), PRR, RACK's reorder
//! timer, the tail loss probe and the RTO's "everything unSACKed is lost".
//!
//! ns-2's recovery (`kind = "ns2"`) never enters this file: every entry point is
//! behind `TcpConn::rec.is_some()`, tested once per ack or send call.

use super::{AckIn, TcpConn, TIMER_RACK, TIMER_TLP};
use crate::net::packet::SackBlocks;
use crate::tcp::cc::CwndAction;
use crate::tcp::control::ControlBlock;
use crate::tcp::events::LossKind;
use crate::tcp::recovery::prr::Prr;
use crate::tcp::recovery::tlp::{self, Episode, Outcome};
use crate::tcp::recovery::{DetectCtx, RecState, SackRecovery};
use crate::time::SimTime;
use crate::world::Ctx;

/// Is the first block a DSACK (RFC 2883 §4: below the cumulative ack, or inside the
/// second block)?
fn first_is_dsack(ackno: i64, blocks: &[(i64, i64)]) -> bool {
    match blocks {
        [] => false,
        [(l, r), rest @ ..] => *r <= ackno + 1 || rest.first().is_some_and(|(l2, r2)| l2 <= l && r <= r2),
    }
}

impl TcpConn {
    fn rec(&self) -> &SackRecovery {
        self.rec.as_deref().expect("SACK recovery")
    }
    fn rec_mut(&mut self) -> &mut SackRecovery {
        self.rec.as_deref_mut().expect("SACK recovery")
    }

    /// The smoothed RTT of the block's estimator (Linux's with the Linux RTO), if
    /// there is a sample.
    fn srtt(&self, cb: &ControlBlock) -> Option<SimTime> {
        let s = cb.srtt_s(&self.p.rtt);
        (s > 0.0).then(|| SimTime::from_secs_f64(s))
    }

    /// What an ack carries besides its number, read before the packet is freed (out of
    /// ns-2's hot path): SACK blocks are kept for SACK recovery (`recv_sack` takes
    /// them), with ns-2's recovery only a DSACK is counted; and the first new ack after
    /// an RTO is checked for a spurious RTO (Eifel, RFC 3522: it echoes a timestamp
    /// older than the RTO's retransmission, so the original was delivered).
    #[cold]
    #[inline(never)]
    pub(super) fn ack_extras(&mut self, cx: &Ctx, pkt: crate::engine::PktId, ackno: i64) {
        if self.torn_down {
            return;
        }
        if ackno > self.highest_ack {
            if let Some(t) = self.rto_at.take() {
                if cx.net.pool.get(pkt).ts_echo < t {
                    self.ctr.spurious_rtos += 1;
                }
            }
        }
        let Some(o) = cx.net.pool.options(pkt) else { return };
        match self.rec.as_deref_mut() {
            Some(rec) => rec.sack_in = o.sack,
            None => {
                if first_is_dsack(ackno, o.sack.as_slice()) {
                    self.ctr.dsack_recv += 1;
                }
            }
        }
    }

    /// `output` sent `seq` (SACK recovery): the scoreboard, Karn, PRR's count.
    #[inline(never)]
    pub(super) fn sack_sent(&mut self, seq: i64, now: SimTime, retransmit: bool) {
        if retransmit {
            // Karn: ns-2's estimator times one segment; a retransmission voids it.
            self.rtt_active = false;
        }
        let rec = self.rec.as_deref_mut().expect("SACK recovery");
        rec.sb.on_send(seq, now, retransmit);
        if rec.state == RecState::Recovery {
            if retransmit {
                self.ctr.fast_retrans += 1;
                rec.high_rxt = rec.high_rxt.max(seq);
            }
            if let Some(p) = rec.prr.as_mut() {
                p.on_sent();
            }
        }
    }

    /// An RTO with data outstanding (RFC 6675 §5.1, Linux `tcp_enter_loss`): every
    /// unSACKed segment is lost and is resent from the scoreboard (never the SACKed
    /// ones); fast recovery, PRR and a probe episode end.
    #[cold]
    #[inline(never)]
    pub(super) fn sack_on_rto(&mut self, _cb: &mut ControlBlock) {
        let (maxseq, una) = (self.maxseq, self.highest_ack);
        let rec = self.rec_mut();
        rec.sb.mark_all_lost();
        rec.state = RecState::Loss;
        rec.recover = maxseq;
        rec.high_rxt = una;
        rec.dupacks = 0;
        rec.prr = None;
        rec.probe = None;
        self.tlp_timer.cancel();
        self.rack_timer.cancel();
    }

    /// An ack, with SACK recovery. Returns the `maxburst` of the send that follows
    /// (as ns-2's `recv_*`).
    #[inline(never)]
    pub(super) fn recv_sack(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) -> Option<i32> {
        let now = cx.now();
        let ackno = ack.ackno;
        let sack_in: SackBlocks = std::mem::take(&mut self.rec_mut().sack_in);
        let blocks = sack_in.as_slice();
        let dsack = first_is_dsack(ackno, blocks);
        let mut probe_dsacked = false;
        if dsack {
            self.ctr.dsack_recv += 1;
            let (l, r) = blocks[0];
            probe_dsacked = self.rec().probe.and_then(|p| p.retrans).is_some_and(|s| l <= s && s < r);
        }
        let regular = if dsack { &blocks[1..] } else { blocks };
        let una_advanced = ackno > ack.prev;
        // The scoreboard takes the SACK blocks, then the cumulative ack; the detector
        // sees every segment delivered.
        let (newly_sacked, newly_acked) = {
            let SackRecovery { sb, det, .. } = self.rec.as_deref_mut().expect("SACK recovery");
            let hs = sb.high_sacked();
            let mut sacked = 0;
            for &(l, r) in regular {
                sacked += sb.sack(l, r, |s, st| det.on_delivered(s, st, now, hs));
            }
            let acked = if una_advanced { sb.cum_ack(ackno, |s, st| det.on_delivered(s, st, now, hs)) } else { 0 };
            (sacked, acked)
        };
        if una_advanced {
            self.newack(cb, cx, ack);
            self.rec_mut().dupacks = 0;
        } else if ackno == self.last_ack && newly_sacked > 0 {
            // RFC 6675: a duplicate ack is one that brings new SACK information.
            self.rec_mut().dupacks += 1;
        }
        self.dupacks = self.rec().dupacks as i32;
        let pure_dupack = !una_advanced && newly_sacked == 0;

        // Leave recovery once its point is acked.
        let state_before = self.rec().state;
        if state_before != RecState::Open && self.highest_ack >= self.rec().recover {
            if state_before == RecState::Recovery {
                if self.rec().prr.is_some() {
                    // Linux tcp_end_cwnd_reduction.
                    cb.tcb.cwnd = cb.tcb.ssthresh as f64;
                }
                cb.tcb.last_cwnd_action = CwndAction::Exited;
            }
            let rec = self.rec_mut();
            rec.state = RecState::Open;
            rec.prr = None;
        }

        // Loss detection.
        let newly_lost = self.detect(cb, cx);
        let enter = {
            let rec = self.rec();
            rec.state == RecState::Open
                && (rec.sb.lost_out() > 0
                    || (rec.det.dupthresh_starts_recovery() && rec.dupacks >= crate::tcp::recovery::rfc6675::DUP_THRESH))
        };
        if enter {
            let first = self.highest_ack + 1;
            let rec = self.rec_mut();
            if rec.sb.lost_out() == 0 {
                rec.sb.mark_lost(first); // RFC 6675 §5 step 4.2: resend the first hole
            }
            let kind = if rec.det.dupthresh_starts_recovery() { LossKind::DupAckThreshold } else { LossKind::LaterAcks };
            self.enter_recovery(cb, cx, kind);
        }

        // The probe episode.
        if let Some(mut ep) = self.rec().probe {
            let outcome = ep.on_ack(ackno, probe_dsacked, pure_dupack);
            self.rec_mut().probe = if outcome == Outcome::Pending { Some(ep) } else { None };
            if outcome == Outcome::Repaired {
                // Linux tcp_process_tlp_ack: the probe repaired a loss; reduce the
                // window once, as fast recovery would end (cwnd = ssthresh).
                self.ctr.loss_probe_recoveries += 1;
                let ev = self.loss_event(LossKind::LaterAcks, now, true);
                self.react_to_loss(cb, cx, &ev);
                cb.tcb.cwnd = cb.tcb.ssthresh.max(1) as f64;
            }
        }

        // The window: PRR in fast recovery, the CC's growth outside it.
        let delivered = newly_acked + newly_sacked;
        let state = self.rec().state;
        if state == RecState::Recovery {
            let pipe = self.rec().sb.pipe();
            let ssthresh = cb.tcb.ssthresh as i64;
            if let Some(cwnd) = self.rec_mut().prr.as_mut().and_then(|p| p.on_ack(ssthresh, pipe, delivered, una_advanced, newly_lost > 0)) {
                cb.tcb.cwnd = cwnd as f64;
            }
        } else if una_advanced && (state_before != RecState::Recovery || self.rec().grow_on_exit_ack) {
            // Linux tcp_ack: tcp_fastretrans_alert ends recovery before
            // tcp_cong_control runs, so the ack that ends it grows the window too
            // (rack_tlp; `grow_on_exit_ack`). The CC counts segments delivered by this
            // ack (tcp_newly_delivered): those SACKed earlier were counted then.
            let mut sample = self.ack_sample(now, ack, cb.detail);
            sample.newly_acked = newly_acked;
            sample.newly_sacked = newly_sacked;
            cb.cc.on_ack(&mut cb.tcb, &sample);
            if self.last_ack == 0 && self.p.delay_growth {
                cb.tcb.cwnd = cb.tcb.initial_window();
            }
        }
        if self.highest_ack >= self.curseq - 1 && !self.closed {
            self.closed = true;
        }
        self.arm_tlp(cb, cx, una_advanced);
        Some(self.p.maxburst)
    }

    /// Run the loss detector; (re)arm its timer. Returns the segments newly marked lost.
    fn detect(&mut self, cb: &ControlBlock, cx: &mut Ctx) -> u32 {
        let dcx = DetectCtx { now: cx.now(), in_recovery: self.rec().in_recovery(), srtt: self.srtt(cb) };
        let d = {
            let SackRecovery { sb, det, .. } = self.rec.as_deref_mut().expect("SACK recovery");
            det.detect(sb, &dcx)
        };
        match d.timer {
            Some(t) => self.rack_timer.resched(cx.sched, t, self.agent, TIMER_RACK),
            None => self.rack_timer.cancel(),
        }
        d.newly_lost
    }

    /// Enter fast recovery (RFC 6675 §5 step 4; Linux `tcp_enter_recovery`): the
    /// start-up policy's verdict and the CC's cut (its own ssthresh: reno ½, ...);
    /// with PRR the window then follows RFC 6937 from the window before the cut.
    fn enter_recovery(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, kind: LossKind) {
        let prior_cwnd = cb.tcb.window();
        let (maxseq, una) = (self.maxseq, self.highest_ack);
        {
            let rec = self.rec_mut();
            rec.state = RecState::Recovery;
            rec.recover = maxseq;
            rec.high_rxt = una;
            rec.probe = None;
        }
        self.ctr.sack_recoveries += 1;
        cb.tcb.last_cwnd_action = CwndAction::Dupack;
        self.tlp_timer.cancel();
        let ev = self.loss_event(kind, cx.now(), true);
        self.react_to_loss(cb, cx, &ev);
        if self.rec().use_prr {
            self.rec_mut().prr = Some(Prr::start(prior_cwnd));
        }
    }

    /// Send under SACK recovery: while pipe is below the window, lost segments first
    /// (lowest first), then new data (receiver window, start-up pacer), then RFC
    /// 6675's rule 3 during fast recovery.
    #[inline(never)]
    pub(super) fn send_sack(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, maxburst: i32) {
        let mut n = 0;
        let wnd = cb.tcb.wnd as i64;
        let mut rearm = false;
        loop {
            let rec = self.rec();
            if rec.sb.pipe() >= cb.tcb.window() {
                break;
            }
            let (seq, new) = if let Some(s) = rec.sb.next_lost(self.highest_ack + 1) {
                (s, false)
            } else if self.t_seqno < self.curseq && self.t_seqno - self.highest_ack - 1 < wnd {
                if !self.pacer_allows(cb, cx) {
                    break;
                }
                (self.t_seqno, true)
            } else if let Some(s) = (rec.state == RecState::Recovery).then(|| rec.det.rule3(&rec.sb, rec.high_rxt)).flatten() {
                (s, false)
            } else {
                break;
            };
            self.output(cb, cx, seq);
            if new {
                self.pacer_sent(cb, cx, seq);
                self.t_seqno += 1;
            } else if seq == self.highest_ack + 1 && self.rec().rearm_on_head_rtx && !self.rack_timer.pending() {
                rearm = true;
            }
            n += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
        if rearm {
            // Linux tcp_xmit_retransmit_queue: resending the first unacknowledged
            // segment restarts the RTO from now (unless the reorder timer holds the
            // connection's timer), so the repair gets a whole RTO to be acked.
            self.set_rtx_timer(cb, cx);
        }
        if n > 0 {
            self.arm_tlp(cb, cx, false);
        }
    }

    /// RACK's reorder timer: detect again; recovery starts if something is lost.
    pub(super) fn rack_timeout(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        if self.detect(cb, cx) > 0 && self.rec().state == RecState::Open {
            self.enter_recovery(cb, cx, LossKind::LaterAcks);
        }
        self.send_much(cb, cx, self.p.maxburst);
    }

    /// Arm the probe timer in place of the RTO when a probe may be sent (rack_tlp,
    /// not recovering, data outstanding, no probe episode running); otherwise make
    /// sure the RTO runs. `advancing`: this ack moved the cumulative ack (Linux then
    /// caps the PTO by a full RTO, else by what is left of it for the oldest segment).
    fn arm_tlp(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, advancing: bool) {
        let rec = self.rec();
        if !rec.tlp {
            return;
        }
        let flight = self.flight();
        if rec.state != RecState::Open || rec.probe.is_some() || flight <= 0 {
            self.tlp_timer.cancel();
            if flight > 0 && !self.rtx_timer.pending() {
                self.set_rtx_timer(cb, cx);
            }
            return;
        }
        let now = cx.now();
        let rto = SimTime::from_secs_f64(cb.rto_s(&self.p.rtt));
        let rto_left = if advancing {
            Some(rto)
        } else {
            rec.sb.get(self.highest_ack + 1).map(|h| (h.sent_at + rto).saturating_sub(now))
        };
        let pto = tlp::pto(self.srtt(cb), flight, rto_left);
        self.rtx_timer.cancel();
        self.tlp_timer.resched(cx.sched, pto, self.agent, TIMER_TLP);
    }

    /// The probe timer fired (Linux `tcp_send_loss_probe`): one new segment if there
    /// is one (beyond cwnd, within the receiver window), else the highest one sent
    /// again; then the RTO runs.
    pub(super) fn send_probe(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        if self.rec().state != RecState::Open || self.rec().probe.is_some() || self.flight() <= 0 {
            return self.set_rtx_timer(cb, cx);
        }
        let ep = if self.t_seqno < self.curseq && self.t_seqno - self.highest_ack - 1 < cb.tcb.wnd as i64 {
            let seq = self.t_seqno;
            self.output(cb, cx, seq);
            self.t_seqno += 1;
            Episode { end_seq: self.t_seqno, retrans: None, dsacked: false }
        } else {
            let seq = self.maxseq;
            self.output(cb, cx, seq);
            Episode { end_seq: self.t_seqno, retrans: Some(seq), dsacked: false }
        };
        self.rec_mut().probe = Some(ep);
        self.ctr.loss_probes += 1;
        self.set_rtx_timer(cb, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::first_is_dsack;

    #[test]
    fn dsack_below_the_ack_or_inside_the_second_block() {
        assert!(first_is_dsack(9, &[(5, 6), (12, 14)]), "below the cumulative ack");
        assert!(first_is_dsack(9, &[(12, 13), (11, 14)]), "inside the second block");
        assert!(!first_is_dsack(9, &[(12, 13), (15, 16)]));
        assert!(!first_is_dsack(9, &[]));
    }
}
