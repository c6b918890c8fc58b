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
use crate::tcp::recovery::count;
use crate::tcp::recovery::prr::Prr;
use crate::tcp::recovery::tlp::{self, Episode, Outcome};
use crate::tcp::recovery::{current_ssthresh, DetectCtx, RecState, SackRecovery, Undo};
use crate::time::SimTime;
use crate::world::Ctx;

/// Where an ack's first block is a DSACK (RFC 2883 §4), as Linux's
/// `tcp_check_dsack` tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dsack {
    /// It starts below the cumulative ack (`TCPDSACKRecv`).
    Below,
    /// It lies inside the second block (`TCPDSACKOfoRecv`).
    Ofo,
}

fn dsack_of(ackno: i64, blocks: &[(i64, i64)]) -> Option<Dsack> {
    match blocks {
        [] => None,
        [(l, _), ..] if *l <= ackno => Some(Dsack::Below),
        [(l, r), (l2, r2), ..] if l2 <= l && r <= r2 => Some(Dsack::Ofo),
        _ => None,
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
                // With F-RTO, Linux's TCPSpuriousRTOs counts F-RTO's verdicts alone.
                let eifel = !self.rec.as_deref().is_some_and(|r| r.frto_on);
                if eifel && cx.net.pool.get(pkt).ts_echo < t {
                    count!(self.ctr.spurious_rtos);
                }
            }
        }
        let Some(o) = cx.net.pool.options(pkt) else { return };
        if let Some(w) = o.rwnd {
            // The receiver's advertised window (a sink with a slow reader). A window
            // update that acks nothing new is not processed as an ack.
            self.rwnd_edge = if self.rwnd_edge == i64::MAX {
                ackno + w.segs as i64
            } else {
                self.rwnd_edge.max(ackno + w.segs as i64)
            };
            self.window_opened = w.update && ackno <= self.highest_ack;
        }
        match self.rec.as_deref_mut() {
            Some(rec) => rec.sack_in = o.sack,
            None => self.count_dsack(dsack_of(ackno, o.sack.as_slice())),
        }
    }

    fn count_dsack(&mut self, d: Option<Dsack>) {
        match d {
            Some(Dsack::Below) => count!(self.ctr.dsack_recv),
            Some(Dsack::Ofo) => count!(self.ctr.dsack_ofo_recv),
            None => {}
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
        if retransmit && rec.retrans_stamp.is_none() {
            rec.retrans_stamp = Some(now);
        }
        if rec.state == RecState::Recovery {
            if retransmit {
                count!(self.ctr.fast_retrans);
                rec.high_rxt = rec.high_rxt.max(seq);
            }
            if let Some(p) = rec.prr.as_mut() {
                p.on_sent();
            }
        }
    }

    /// An RTO with data outstanding (RFC 6675 §5.1, Linux `tcp_enter_loss`): every
    /// unSACKed segment is lost and is resent from the scoreboard (never the SACKed
    /// ones); fast recovery, PRR and a probe episode end. `prior`: the window and
    /// ssthresh before the timeout's cut. With `recovery.frto` (Linux `tcp_enter_loss`):
    /// what an undo restores is kept unless the RTO interrupts a recovery (or repeats
    /// one, whose values stay), and F-RTO runs if the RTO came from the open state
    /// or repeats one (`new_recovery || icsk_retransmits`).
    #[cold]
    #[inline(never)]
    pub(super) fn sack_on_rto(&mut self, _cb: &mut ControlBlock, prior: (f64, i32)) {
        let (maxseq, una) = (self.maxseq, self.highest_ack);
        let rec = self.rec_mut();
        if rec.frto_on {
            let open = rec.state == RecState::Open;
            if rec.rto_cuts(una) {
                let prior_ssthresh =
                    if rec.state == RecState::Recovery { prior.1 } else { current_ssthresh(prior.0, prior.1) };
                rec.undo = Some(Undo { prior_cwnd: prior.0, prior_ssthresh });
            }
            rec.frto = open || rec.rto_retransmits > 0;
        }
        rec.rto_retransmits += 1;
        rec.frto_new_only = false;
        rec.sb.mark_all_lost();
        rec.state = RecState::Loss;
        rec.recover = maxseq;
        rec.high_rxt = una;
        rec.dupacks = 0;
        rec.prr = None;
        rec.probe = None;
        rec.tlp_timer.cancel();
        rec.rack_timer.cancel();
    }

    /// An ack, with SACK recovery. Returns the `maxburst` of the send that follows
    /// (as ns-2's `recv_*`).
    #[inline(never)]
    pub(super) fn recv_sack(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, ack: AckIn) -> Option<i32> {
        let now = cx.now();
        let ackno = ack.ackno;
        let sack_in: SackBlocks = std::mem::take(&mut self.rec_mut().sack_in);
        let blocks = sack_in.as_slice();
        let dsack = dsack_of(ackno, blocks);
        let mut probe_dsacked = false;
        if dsack.is_some() {
            self.count_dsack(dsack);
            let (l, r) = blocks[0];
            probe_dsacked = self.rec().probe.and_then(|p| p.retrans).is_some_and(|s| l <= s && s < r);
            // Linux tcp_dsack_seen: a DSACK the retransmissions cannot explain is
            // dubious; the others reach the detector.
            let retrans = u64::from(self.ctr.retrans_segs);
            let rec = self.rec_mut();
            rec.dsack_dups += (r - l).max(1) as u64;
            if rec.dsack_dups <= retrans {
                rec.det.on_dsack(probe_dsacked);
            }
        }
        let regular = if dsack.is_some() { &blocks[1..] } else { blocks };
        let una_advanced = ackno > ack.prev;
        // The scoreboard takes the SACK blocks, then the cumulative ack; the detector
        // sees every segment delivered. F-RTO asks whether never-retransmitted data
        // sent before the recovery point was delivered (Linux FLAG_ORIG_SACK_ACKED);
        // RACK's window, when the newest delivered segment left.
        let (newly_sacked, newly_acked, orig_acked, newest_sent) = {
            let SackRecovery { sb, det, recover, .. } = self.rec.as_deref_mut().expect("SACK recovery");
            let hs = sb.high_sacked();
            let recover = *recover;
            let mut orig = false;
            let mut newest: Option<SimTime> = None;
            let mut seen = |s: i64, st: crate::tcp::scoreboard::SegState| {
                det.on_delivered(s, st, now, hs);
                orig |= !st.ever_retrans && s <= recover;
                newest = Some(newest.map_or(st.sent_at, |t| t.max(st.sent_at)));
            };
            let mut sacked = 0;
            for &(l, r) in regular {
                sacked += sb.sack(l, r, &mut seen);
            }
            let acked = if una_advanced { sb.cum_ack(ackno, &mut seen) } else { 0 };
            (sacked, acked, orig, newest)
        };
        self.rec_mut().det.after_ack(newest_sent, now);
        if una_advanced {
            self.newack(cb, cx, ack);
            let rec = self.rec_mut();
            rec.dupacks = 0;
            rec.rto_retransmits = 0;
        } else if ackno == self.last_ack && newly_sacked > 0 {
            // RFC 6675: a duplicate ack is one that brings new SACK information.
            self.rec_mut().dupacks += 1;
        }
        self.dupacks = self.rec().dupacks as i32;
        let pure_dupack = !una_advanced && newly_sacked == 0;

        // Leave recovery once its point is acked (after an RTO with F-RTO: Linux
        // `tcp_process_loss`).
        let state_before = self.rec().state;
        if state_before == RecState::Loss && self.rec().frto_on {
            self.process_loss(cb, una_advanced, orig_acked, newly_sacked > 0, ack.ts_echo);
        } else if state_before != RecState::Open && self.highest_ack >= self.rec().recover {
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
            rec.det.on_recovery_end();
        }

        // Loss detection.
        let newly_lost = self.detect(cb, cx);
        let enter = {
            let rec = self.rec();
            rec.state == RecState::Open
                && (rec.sb.lost_out() > 0
                    || (rec.det.dupthresh_starts_recovery()
                        && rec.dupacks >= crate::tcp::recovery::rfc6675::DUP_THRESH))
        };
        if enter {
            let first = self.highest_ack + 1;
            let rec = self.rec_mut();
            if rec.sb.lost_out() == 0 {
                rec.sb.mark_lost(first); // RFC 6675 §5 step 4.2: resend the first hole
            }
            let kind =
                if rec.det.dupthresh_starts_recovery() { LossKind::DupAckThreshold } else { LossKind::LaterAcks };
            self.enter_recovery(cb, cx, kind);
        }

        // The probe episode.
        if let Some(mut ep) = self.rec().probe {
            let outcome = ep.on_ack(ackno, probe_dsacked, pure_dupack);
            self.rec_mut().probe = if outcome == Outcome::Pending { Some(ep) } else { None };
            if outcome == Outcome::Repaired {
                // Linux tcp_process_tlp_ack: the probe repaired a loss; reduce the
                // window once, as fast recovery would end (cwnd = ssthresh).
                count!(self.ctr.loss_probe_recoveries);
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
            if let Some(cwnd) = self
                .rec_mut()
                .prr
                .as_mut()
                .and_then(|p| p.on_ack(ssthresh, pipe, delivered, una_advanced, newly_lost > 0))
            {
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
        {
            // Linux clears retrans_stamp once open with no retransmission out.
            let rec = self.rec_mut();
            if rec.state == RecState::Open && rec.sb.retrans_out() == 0 {
                rec.retrans_stamp = None;
            }
        }
        self.arm_tlp(cb, cx, una_advanced);
        Some(self.p.maxburst)
    }

    /// An ack after an RTO with `recovery.frto` (Linux `tcp_process_loss`, F-RTO as
    /// RFC 5682 §3.1 with SACK, `sysctl_tcp_frto` = 2):
    /// 1. an ack that advances the cumulative ack and echoes a timestamp older than
    ///    the first retransmission undoes the cut (`tcp_try_undo_loss(sk, false)`);
    /// 2. F-RTO: (S)ACKed never-retransmitted data sent before the recovery point
    ///    shows the RTO spurious: undo, counted in `spurious_rtos` (step 3b); after
    ///    new data went out, a SACK or a duplicate ack shows the loss real and F-RTO
    ///    ends (3a); the first ack advancing the cumulative ack (but not to the
    ///    recovery point) moves the point to the highest sent and releases new data
    ///    instead of retransmissions, if the application and the receiver window
    ///    have any (2b; otherwise F-RTO ends);
    /// 3. the recovery point acked: recovery ends (undone if 1. holds now).
    fn process_loss(
        &mut self,
        cb: &mut ControlBlock,
        una_advanced: bool,
        orig_acked: bool,
        sacked: bool,
        ts_echo: SimTime,
    ) {
        let recovered = self.highest_ack >= self.rec().recover;
        if una_advanced && self.may_undo(ts_echo) {
            return self.undo_loss(cb, false);
        }
        if self.rec().frto {
            if orig_acked {
                return self.undo_loss(cb, true);
            }
            if self.maxseq > self.rec().recover {
                if sacked || !una_advanced {
                    self.rec_mut().frto = false;
                }
            } else if una_advanced && !recovered {
                let maxseq = self.maxseq;
                let new_data = self.next_fits(cb.tcb.wnd as i64);
                let rec = self.rec_mut();
                rec.recover = maxseq;
                if new_data {
                    rec.frto_new_only = true;
                    return;
                }
                rec.frto = false;
            }
        }
        if recovered {
            // Linux tcp_try_undo_recovery.
            if self.may_undo(ts_echo) {
                return self.undo_loss(cb, false);
            }
            let rec = self.rec_mut();
            rec.state = RecState::Open;
            rec.frto = false;
            rec.det.on_recovery_end();
        }
    }

    /// Linux `tcp_may_undo` (less `undo_retrans`, DSACKs of every retransmission,
    /// which is not modelled): a cut to undo and an ack echoing a timestamp older than
    /// the episode's first retransmission (`tcp_packet_delayed`).
    fn may_undo(&self, ts_echo: SimTime) -> bool {
        let rec = self.rec();
        self.p.timestamps
            && ts_echo > SimTime::ZERO
            && rec.undo.is_some()
            && rec.retrans_stamp.is_some_and(|t| ts_echo < t)
    }

    /// Undo an RTO's cut (Linux `tcp_try_undo_loss` -> `tcp_undo_cwnd_reduction(sk,
    /// true)`): no segment is lost any more, cwnd = max(cwnd, prior cwnd) (Reno's and
    /// CUBIC's `undo_cwnd`), ssthresh back to the prior one if that is larger; the
    /// sender is open again. `frto`: F-RTO's verdict (`TCPSpuriousRTOs`).
    fn undo_loss(&mut self, cb: &mut ControlBlock, frto: bool) {
        count!(self.ctr.loss_undos);
        if frto {
            count!(self.ctr.spurious_rtos);
        }
        let rec = self.rec_mut();
        rec.sb.unmark_lost_all();
        if let Some(u) = rec.undo.take() {
            cb.tcb.cwnd = cb.tcb.cwnd.max(u.prior_cwnd);
            if u.prior_ssthresh > cb.tcb.ssthresh {
                cb.tcb.ssthresh = u.prior_ssthresh;
            }
        }
        rec.state = RecState::Open;
        rec.frto = false;
        rec.frto_new_only = false;
        rec.prr = None;
        rec.rto_retransmits = 0;
        cb.tcb.last_cwnd_action = CwndAction::Exited;
    }

    /// Run the loss detector; (re)arm its timer. Returns the segments newly marked lost.
    fn detect(&mut self, cb: &ControlBlock, cx: &mut Ctx) -> u32 {
        let dcx = DetectCtx { now: cx.now(), in_recovery: self.rec().in_recovery(), srtt: self.srtt(cb) };
        let d = {
            let SackRecovery { sb, det, .. } = self.rec.as_deref_mut().expect("SACK recovery");
            det.detect(sb, &dcx)
        };
        match d.timer {
            Some(t) => {
                let agent = self.agent;
                self.rec_mut().rack_timer.resched(cx.sched, t, agent, TIMER_RACK)
            }
            None => self.rec_mut().rack_timer.cancel(),
        }
        d.newly_lost
    }

    /// Enter fast recovery (RFC 6675 §5 step 4; Linux `tcp_enter_recovery`): the
    /// start-up policy's verdict and the CC's cut (its own ssthresh: reno ½, ...);
    /// with PRR the window then follows RFC 6937 from the window before the cut.
    fn enter_recovery(&mut self, cb: &mut ControlBlock, cx: &mut Ctx, kind: LossKind) {
        let prior_cwnd = cb.tcb.window();
        let (maxseq, una) = (self.maxseq, self.highest_ack);
        let undo = Undo { prior_cwnd: cb.tcb.cwnd, prior_ssthresh: current_ssthresh(cb.tcb.cwnd, cb.tcb.ssthresh) };
        {
            let rec = self.rec_mut();
            if rec.frto_on {
                // Linux tcp_enter_recovery: tcp_init_undo, prior_ssthresh; an RTO
                // during this recovery keeps them.
                rec.undo = Some(undo);
            }
            rec.state = RecState::Recovery;
            rec.recover = maxseq;
            rec.high_rxt = una;
            rec.probe = None;
        }
        count!(self.ctr.sack_recoveries);
        cb.tcb.last_cwnd_action = CwndAction::Dupack;
        self.rec_mut().tlp_timer.cancel();
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
        // F-RTO step 2b (Linux tcp_xmit_recovery with REXMIT_NEW): new data only.
        let new_only = self.rec().frto_new_only;
        loop {
            let rec = self.rec();
            if rec.sb.pipe() >= cb.tcb.window() {
                break;
            }
            let lost = if new_only { None } else { rec.sb.next_lost(self.highest_ack + 1) };
            let (seq, new) = if let Some(s) = lost {
                (s, false)
            } else if self.next_fits(wnd) {
                if !self.pacer_allows(cb, cx) {
                    break;
                }
                (self.t_seqno, true)
            } else if let Some(s) =
                (rec.state == RecState::Recovery).then(|| rec.det.rule3(&rec.sb, rec.high_rxt)).flatten()
            {
                (s, false)
            } else {
                break;
            };
            self.output(cb, cx, seq);
            if new {
                self.pacer_sent(cb, cx, seq);
                self.t_seqno += 1;
            } else if seq == self.highest_ack + 1 && self.rec().rearm_on_head_rtx && !self.rec().rack_timer.pending() {
                rearm = true;
            }
            n += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
        if new_only {
            let maxseq = self.maxseq;
            let rec = self.rec_mut();
            rec.frto_new_only = false;
            if maxseq <= rec.recover {
                // Nothing new went out: F-RTO ends, the lost segments are resent.
                rec.frto = false;
                if n > 0 {
                    self.arm_tlp(cb, cx, false);
                }
                return self.send_sack(cb, cx, maxburst);
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
    /// Linux `tcp_rack_reo_timeout`: on entering recovery from the timer it runs
    /// `tcp_cwnd_reduction(sk, 1, newly_lost, 0)` -- PRR credited with one delivered
    /// segment, no cumulative ack -- so PRR's "force a fast retransmit upon entering
    /// fast recovery" (`prr_out` 0: at least one) sends the first lost segment now,
    /// even when pipe is above the new ssthresh. Without it the retransmission would
    /// wait for the next ack that delivers something.
    pub(super) fn rack_timeout(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        if self.detect(cb, cx) > 0 && self.rec().state == RecState::Open {
            self.enter_recovery(cb, cx, LossKind::LaterAcks);
            let pipe = self.rec().sb.pipe();
            let ssthresh = cb.tcb.ssthresh as i64;
            if let Some(cwnd) = self.rec_mut().prr.as_mut().and_then(|p| p.on_ack(ssthresh, pipe, 1, false, true)) {
                cb.tcb.cwnd = cwnd as f64;
            }
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
            self.rec_mut().tlp_timer.cancel();
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
        let agent = self.agent;
        self.rec_mut().tlp_timer.resched(cx.sched, pto, agent, TIMER_TLP);
    }

    /// The probe timer fired (Linux `tcp_send_loss_probe`): one new segment if there
    /// is one (beyond cwnd, within the receiver window), else the highest one sent
    /// again; then the RTO runs.
    pub(super) fn send_probe(&mut self, cb: &mut ControlBlock, cx: &mut Ctx) {
        if self.rec().state != RecState::Open || self.rec().probe.is_some() || self.flight() <= 0 {
            return self.set_rtx_timer(cb, cx);
        }
        let ep = if self.next_fits(cb.tcb.wnd as i64) {
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
        count!(self.ctr.loss_probes);
        self.set_rtx_timer(cb, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::{dsack_of, Dsack};

    #[test]
    fn dsack_below_the_ack_or_inside_the_second_block() {
        assert_eq!(dsack_of(9, &[(5, 6), (12, 14)]), Some(Dsack::Below), "below the cumulative ack");
        assert_eq!(dsack_of(9, &[(9, 10)]), Some(Dsack::Below), "the last acked segment");
        assert_eq!(dsack_of(9, &[(12, 13), (11, 14)]), Some(Dsack::Ofo), "inside the second block");
        assert_eq!(dsack_of(9, &[(12, 13), (15, 16)]), None);
        assert_eq!(dsack_of(9, &[(10, 11)]), None, "a plain SACK block");
        assert_eq!(dsack_of(9, &[]), None);
    }
}
