//! The one-way TCP sender of ns-2.35: `Agent/TCP` (Tahoe), `Agent/TCP/Reno`,
//! `Agent/TCP/Newreno` (tcp.cc, tcp-reno.cc, tcp-newreno.cc).
//!
//! Heads up! This file is a behavioural port of ns-2.35 for the default knobs the
//! papers use (no ECN, no timestamps, no SACK, no Quick-Start, no F-RTO,
//! `overhead_` 0, `bugFix_` true, `aggressive_maxburst_` 1, `timerfix_` true,
//! `rfc2988_` true, `precision_reduce_` true, NewReno `newreno_changes_` 0,
//! `newreno_changes1_` 1, `partial_window_deflation_` 1, `exit_recovery_fix_` 0,
//! `exitFastRetrans_` true). Golden tests compare every ack with ns-2.35; a change
//! here must keep `cargo test --release --test golden_ns2` green. Functions carry the
//! name of their ns-2 original.
//!
//! Sequence numbers count packets, as in ns-2. `curseq` is how far the application
//! allows sending; `t_seqno` the next packet to send; `maxseq` the highest sent;
//! `highest_ack`/`last_ack` the cumulative ack.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::config::TcpVariant;
use crate::engine::{PktId, Timer};
use crate::net::packet::Packet;
use crate::tcp::cc::ns2::how;
use crate::tcp::cc::{AnyCc, CwndAction, Tcb};
use crate::tcp::pacing::Pacer;
use crate::tcp::rtt::{RttEstimator, RttParams};
use crate::tcp::startup::{AnyStartup, StartCtx};
use crate::time::SimTime;
use crate::world::{Ctx, Notice, TransferRec};

/// ns-2 `TCP_MAXSEQ`: an "infinite" application.
pub const TCP_MAXSEQ: i64 = 1_073_741_824;

pub const TIMER_RTX: u8 = 0;
pub const TIMER_PACE: u8 = 1;

/// Static per-connection parameters (resolved from `TcpConfig`), shared by `Arc`.
#[derive(Clone, Debug)]
pub struct TcpParams {
    pub variant: TcpVariant,
    pub wnd: f64,
    pub wnd_init: i32,
    pub maxcwnd: i32,
    pub size: u32,
    pub hdr: u32,
    pub initial_ssthresh: i32,
    pub rtt: RttParams,
    pub maxburst: i32,
    pub numdupacks: i32,
    pub slow_start_restart: bool,
    pub restart_bugfix: bool,
    pub syn: bool,
    pub delay_growth: bool,
    pub singledup: bool,
    pub increase_num: f64,
    pub decrease_num: f64,
}

struct PendingTransfer {
    rec: u32,
    end_seq: i64,
    nrexmitpack_at_start: u64,
    timeouts_at_start: u64,
}

pub struct TcpSender {
    pub agent: u32,
    pub flow: u32,
    pub node: u32,
    pub dst_node: u32,
    pub dst_agent: u32,
    pub dst_addr: u32,
    /// The first link towards `dst_node` (`routes.route(node, dst_node)`), or `NO_LINK`
    /// if the builder did not set it: lets `output` skip the route lookup
    /// (`Network::send_via`).
    pub first_link: u32,
    p: Arc<TcpParams>,
    pub tcb: Tcb,
    pub cc: AnyCc,
    pub rtt: RttEstimator,
    pub startup: AnyStartup,
    /// Boxed: only a pacing start-up (TCP/SPAND) has one, for its first window.
    pacer: Option<Box<Pacer>>,
    // ns-2 sequence state
    pub t_seqno: i64,
    pub curseq: i64,
    pub maxseq: i64,
    pub last_ack: i64,
    pub highest_ack: i64,
    recover: i64,
    pub dupacks: i32,
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: SimTime,
    closed: bool,
    firstpartial: bool,
    rtx_timer: Timer,
    /// Memo of the last `SimTime::from_secs_f64(rto)` in `set_rtx_timer`, keyed by the
    /// rto's bit pattern. The RTO is re-armed on nearly every ack with the same value,
    /// and the conversion (a multiply and a libm `round` call) is then skipped; the
    /// result is the same pure function of the same bits, so it is exact.
    rto_memo: (u64, SimTime),
    pace_timer: Timer,
    last_send: Option<SimTime>,
    transfers: VecDeque<PendingTransfer>,
    // counters (ns-2 names)
    pub ndatapack: u64,
    pub nrexmitpack: u64,
    /// Timeouts that cut the window (ns-2 `nrexmit_`).
    pub nrexmit: u64,
    pub nfastrexmit: u64,
    pub nackpack: u64,
}

impl TcpSender {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        agent: u32,
        flow: u32,
        node: u32,
        dst_node: u32,
        dst_agent: u32,
        dst_addr: u32,
        p: Arc<TcpParams>,
        startup: AnyStartup,
        boot_time: f64,
    ) -> TcpSender {
        let tcb = Tcb {
            variant: p.variant,
            cwnd: 0.0,
            ssthresh: 0,
            wnd: p.wnd,
            dupwnd: 0,
            wnd_init: p.wnd_init,
            wnd_init_option: 1,
            wnd_restart: 1.0,
            maxcwnd: p.maxcwnd,
            increase_num: p.increase_num,
            decrease_num: p.decrease_num,
            last_cwnd_action: CwndAction::None,
            first_decrease: true,
            packet_size: p.size,
        };
        let rtt = RttEstimator::new(&p.rtt, boot_time);
        let mut s = TcpSender {
            agent,
            flow,
            node,
            dst_node,
            dst_agent,
            dst_addr,
            first_link: crate::net::NO_LINK,
            tcb,
            cc: AnyCc::default(),
            rtt,
            startup,
            pacer: None,
            t_seqno: 0,
            curseq: 0,
            maxseq: -1,
            last_ack: -1,
            highest_ack: -1,
            recover: 0,
            dupacks: 0,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            closed: false,
            firstpartial: false,
            rtx_timer: Timer::default(),
            // Initial key NaN: timeout() is never NaN, and from_secs_f64(NaN) is ZERO anyway.
            rto_memo: (f64::NAN.to_bits(), SimTime::ZERO),
            pace_timer: Timer::default(),
            last_send: None,
            transfers: VecDeque::new(),
            ndatapack: 0,
            nrexmitpack: 0,
            nrexmit: 0,
            nfastrexmit: 0,
            nackpack: 0,
            p,
        };
        s.reset();
        s
    }

    /// ns-2.35: tcp.cc `reset()` (the parts that matter for one-way agents).
    fn reset(&mut self) {
        self.rtt.init(&self.p.rtt);
        self.rtt_seq = -1;
        self.dupacks = 0;
        self.curseq = 0;
        // set_initial_window(): with syn_ and delay_growth_ start at 1.
        self.tcb.cwnd = if self.p.syn && self.p.delay_growth { 1.0 } else { self.tcb.initial_window() };
        self.t_seqno = 0;
        self.maxseq = -1;
        self.last_ack = -1;
        self.highest_ack = -1;
        self.tcb.ssthresh = if self.p.initial_ssthresh > 0 { self.p.initial_ssthresh } else { self.p.wnd as i32 };
        self.tcb.wnd_restart = 1.0;
        self.recover = 0;
        self.closed = false;
        self.tcb.last_cwnd_action = CwndAction::None;
        self.tcb.first_decrease = true;
    }

    pub fn params(&self) -> &TcpParams {
        &self.p
    }

    fn start_ctx<'a>(&'a mut self, cx: &'a mut Ctx, transfer_pkts: i64) -> (&'a mut AnyStartup, StartCtx<'a>) {
        let sc = StartCtx {
            now: cx.sched.now(),
            flow: self.flow,
            tcb: &mut self.tcb,
            rtt: &mut self.rtt,
            rttp: &self.p.rtt,
            t_seqno: self.t_seqno,
            maxseq: self.maxseq,
            highest_ack: self.highest_ack,
            transfer_pkts,
            last_send: self.last_send,
            dst_addr: self.dst_addr,
            shared: cx.shared,
        };
        (&mut self.startup, sc)
    }

    // ------------------------------------------------------------------
    // Application interface
    // ------------------------------------------------------------------

    /// The application hands over `n` more packets (ns-2 `advanceby`), as one transfer
    /// recorded in the results (`round` and `bytes` describe it).
    pub fn start_transfer(&mut self, cx: &mut Ctx, n: i64, round: u32, bytes: u64) {
        let (startup, mut sc) = self.start_ctx(cx, n);
        let pacer = startup.on_transfer_start(&mut sc);
        let rec = cx.shared.transfers.len() as u32;
        cx.shared.transfers.push(TransferRec {
            flow: self.flow,
            round,
            bytes,
            start: cx.now(),
            end: None,
            retransmits: 0,
            timeouts: 0,
            initial_cwnd: self.tcb.cwnd,
        });
        self.pacer = pacer.map(Box::new);
        if self.pacer.is_none() {
            self.pace_timer.cancel();
        }
        self.advanceby(cx, n);
        self.transfers.push_back(PendingTransfer {
            rec,
            end_seq: self.curseq - 1,
            nrexmitpack_at_start: self.nrexmitpack,
            timeouts_at_start: self.nrexmit,
        });
    }

    /// An infinite source (ns-2 `ftp start` / `sendmsg(-1)`).
    pub fn start_infinite(&mut self, cx: &mut Ctx) {
        if self.curseq <= TCP_MAXSEQ {
            self.curseq = TCP_MAXSEQ;
        }
        self.send_much(cx, false, self.p.maxburst);
    }

    /// ns-2 `sendmsg(n * size)`: more data without a recorded transfer (Telnet).
    pub fn sendmsg_pkts(&mut self, cx: &mut Ctx, n: i64) {
        self.curseq += n;
        self.send_much(cx, false, self.p.maxburst);
    }

    /// ns-2.35: tcp.cc `advanceby(delta)`.
    fn advanceby(&mut self, cx: &mut Ctx, delta: i64) {
        self.curseq += delta;
        if delta > 0 {
            self.closed = false;
        }
        self.send_much(cx, false, self.p.maxburst);
    }

    // ------------------------------------------------------------------
    // Sending
    // ------------------------------------------------------------------

    /// ns-2.35: tcp.cc `send_much(force, reason, maxburst)`, plus the start-up pacer.
    fn send_much(&mut self, cx: &mut Ctx, _force: bool, maxburst: i32) {
        let mut win = self.tcb.window();
        let mut npackets = 0;
        while self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
            if let Some(pacer) = self.pacer.as_mut() {
                if self.t_seqno > self.maxseq {
                    if let Err(at) = pacer.check(cx.now(), self.t_seqno) {
                        if !self.pace_timer.pending() {
                            let delay = at.saturating_sub(cx.now());
                            self.pace_timer.resched(cx.sched, delay, self.agent, TIMER_PACE);
                        }
                        break;
                    }
                }
            }
            let seq = self.t_seqno;
            self.output(cx, seq);
            if let Some(pacer) = self.pacer.as_mut() {
                pacer.on_sent(cx.now(), seq);
                if pacer.done(seq + 1) {
                    self.pacer = None;
                    self.pace_timer.cancel();
                }
            }
            npackets += 1;
            self.t_seqno += 1;
            win = self.tcb.window();
            if maxburst > 0 && npackets == maxburst {
                break;
            }
        }
    }

    /// ns-2.35: tcp.cc `output(seqno, reason)`.
    fn output(&mut self, cx: &mut Ctx, seqno: i64) {
        let now = cx.now();
        let mut size = self.p.size;
        if seqno == 0 {
            if self.p.syn {
                // The SYN: header only, and it takes sequence number 0.
                if self.maxseq == -1 {
                    self.curseq += 1;
                }
                size = self.p.hdr;
            }
            // ns-2.35 quirk: without syn_, packet 0 carries no header bytes.
        } else {
            size += self.p.hdr;
        }
        let force_set_rtx_timer = self.highest_ack == self.maxseq;
        let pkt = Packet::data(self.flow, self.dst_node, self.dst_agent, size, seqno, now);
        let id = cx.net.pool.alloc(pkt);
        self.ndatapack += 1;
        self.last_send = Some(now);
        cx.net.send_via(cx.sched, self.node, self.first_link, id);
        if seqno > self.maxseq {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = now;
                }
            }
        } else {
            self.nrexmitpack += 1;
        }
        if !self.rtx_timer.pending() || force_set_rtx_timer {
            self.set_rtx_timer(cx);
        }
    }

    /// ns-2.35: tcp.cc `send_one()` (limited transmit on the first dup acks).
    fn send_one(&mut self, cx: &mut Ctx) {
        if (self.t_seqno as f64) <= self.highest_ack as f64 + self.tcb.wnd
            && self.t_seqno < self.curseq
            && (self.t_seqno as f64) <= self.highest_ack as f64 + self.tcb.cwnd + self.dupacks as f64
        {
            let seq = self.t_seqno;
            self.output(cx, seq);
            self.t_seqno += 1;
        }
    }

    // ------------------------------------------------------------------
    // Timers
    // ------------------------------------------------------------------

    fn set_rtx_timer(&mut self, cx: &mut Ctx) {
        let rto = self.rtt.timeout(&self.p.rtt);
        let bits = rto.to_bits();
        if self.rto_memo.0 != bits {
            self.rto_memo = (bits, SimTime::from_secs_f64(rto));
        }
        self.rtx_timer.resched(cx.sched, self.rto_memo.1, self.agent, TIMER_RTX);
    }

    /// ns-2.35: tcp.cc `reset_rtx_timer(mild, backoff)`.
    fn reset_rtx_timer(&mut self, cx: &mut Ctx, mild: bool, backoff: bool) {
        if backoff {
            self.rtt.backoff(&self.p.rtt);
        }
        self.set_rtx_timer(cx);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    /// ns-2.35: tcp.cc `newtimer(pkt)`.
    fn newtimer(&mut self, cx: &mut Ctx, ackno: i64) {
        if self.t_seqno > ackno || ackno < self.maxseq || self.tcb.cwnd < 1.0 {
            self.set_rtx_timer(cx);
        } else {
            self.rtx_timer.cancel();
        }
    }

    pub fn timer(&mut self, cx: &mut Ctx, which: u8, gen: u32) {
        match which {
            TIMER_RTX => {
                if self.rtx_timer.fire(gen) {
                    self.timeout(cx);
                }
            }
            TIMER_PACE => {
                if self.pace_timer.fire(gen) {
                    self.send_much(cx, false, self.p.maxburst);
                }
            }
            _ => {}
        }
    }

    /// ns-2.35: tcp-reno.cc `RenoTcpAgent::timeout` + tcp.cc `TcpAgent::timeout`.
    fn timeout(&mut self, cx: &mut Ctx) {
        if self.p.variant != TcpVariant::Tahoe {
            self.tcb.dupwnd = 0;
            self.dupacks = 0;
            self.recover = self.maxseq; // bug_fix_
        }
        if self.tcb.cwnd < 1.0 {
            self.tcb.cwnd = 1.0;
        }
        let nothing_outstanding = self.highest_ack == self.maxseq;
        let restart = self.p.slow_start_restart && !self.startup.overrides_restart();
        if nothing_outstanding && !restart {
            // No outstanding data and no slow-start restart: leave the window alone.
        } else {
            self.recover = self.maxseq;
            if self.highest_ack == -1 && self.tcb.wnd_init_option == 2 {
                self.tcb.wnd_init_option = 1;
            } else if self.highest_ack == -1 && self.tcb.wnd_init_option == 1 && self.tcb.wnd_init > 1 {
                // bugfix_ss_: the first packet was lost, do not use a larger IW again.
                self.tcb.wnd_init = 1;
            }
            if nothing_outstanding && self.p.restart_bugfix {
                // Idle: slow-start restart without cutting ssthresh.
                self.cc.slowdown(&mut self.tcb, how::CLOSE_CWND_ONE | how::NO_OUTSTANDING_DATA);
            } else {
                self.nrexmit += 1;
                self.tcb.last_cwnd_action = CwndAction::Timeout;
                self.cc.slowdown(&mut self.tcb, how::CLOSE_SSTHRESH_HALF | how::CLOSE_CWND_RESTART);
                // A loss event ends start-up pacing (spec tcp-spand A7).
                self.pacer = None;
                self.pace_timer.cancel();
                let (startup, mut sc) = self.start_ctx(cx, 0);
                startup.on_timeout(&mut sc);
            }
        }
        if nothing_outstanding && self.p.restart_bugfix {
            self.reset_rtx_timer(cx, false, false);
        } else {
            self.reset_rtx_timer(cx, false, true);
        }
        self.tcb.last_cwnd_action = CwndAction::Timeout;
        self.send_much(cx, false, self.p.maxburst);
    }

    // ------------------------------------------------------------------
    // Acks
    // ------------------------------------------------------------------

    /// An ack arrives (ns-2 `recv` of the agent's class).
    pub fn recv(&mut self, cx: &mut Ctx, pkt: PktId) {
        let ackno = cx.net.pool.get(pkt).seqno;
        cx.net.pool.free(pkt);
        let now_ns = cx.now().as_nanos();
        if let Some(t) = cx.shared.ack_trace.as_mut() {
            t.flow.push(self.flow);
            t.time_ns.push(now_ns);
            t.ackno.push(ackno);
        }
        self.nackpack += 1;
        match self.p.variant {
            TcpVariant::Tahoe => self.recv_tahoe(cx, ackno),
            TcpVariant::Reno => self.recv_reno(cx, ackno),
            TcpVariant::Newreno => self.recv_newreno(cx, ackno),
        }
        self.check_transfers(cx);
        if let Some(t) = cx.shared.cwnd_trace.as_mut() {
            t.flow.push(self.flow);
            t.time_ns.push(now_ns);
            t.cwnd.push(self.tcb.cwnd);
            t.ssthresh.push(self.tcb.ssthresh as f64);
            t.srtt_s.push(self.rtt.srtt_s(&self.p.rtt));
        }
    }

    /// ns-2.35: tcp.cc `TcpAgent::recv`.
    fn recv_tahoe(&mut self, cx: &mut Ctx, ackno: i64) {
        if ackno > self.last_ack {
            self.recv_newack_helper(cx, ackno);
            if self.last_ack == 0 && self.p.delay_growth {
                self.tcb.cwnd = self.tcb.initial_window();
            }
        } else if ackno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks {
                self.dupack_action_tahoe(cx);
            } else if self.dupacks < self.p.numdupacks && self.p.singledup {
                self.send_one(cx);
            }
        }
        // aggressive_maxburst_ 1: always try to send.
        self.send_much(cx, false, self.p.maxburst);
    }

    /// ns-2.35: tcp-reno.cc `RenoTcpAgent::recv`.
    fn recv_reno(&mut self, cx: &mut Ctx, ackno: i64) {
        if ackno > self.last_ack {
            if self.tcb.last_cwnd_action == CwndAction::Dupack {
                self.tcb.last_cwnd_action = CwndAction::Exited;
            }
            self.tcb.dupwnd = 0;
            self.recv_newack_helper(cx, ackno);
            if self.last_ack == 0 && self.p.delay_growth {
                self.tcb.cwnd = self.tcb.initial_window();
            }
        } else if ackno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks {
                self.dupack_action_reno(cx, false);
            } else if self.dupacks > self.p.numdupacks && self.tcb.last_cwnd_action == CwndAction::Dupack {
                self.tcb.dupwnd += 1; // fast recovery
            } else if self.dupacks < self.p.numdupacks && self.p.singledup {
                self.send_one(cx);
            }
        }
        if self.dupacks == 0 || self.dupacks > self.p.numdupacks - 1 {
            self.send_much(cx, false, self.p.maxburst);
        }
    }

    /// ns-2.35: tcp-newreno.cc `NewRenoTcpAgent::recv`.
    fn recv_newreno(&mut self, cx: &mut Ctx, ackno: i64) {
        if ackno > self.last_ack {
            if ackno >= self.recover || self.tcb.last_cwnd_action != CwndAction::Dupack {
                if self.tcb.dupwnd > 0 {
                    self.tcb.dupwnd = 0;
                    if self.tcb.last_cwnd_action == CwndAction::Dupack {
                        self.tcb.last_cwnd_action = CwndAction::Exited;
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(cx, ackno);
                if self.last_ack == 0 && self.p.delay_growth {
                    self.tcb.cwnd = self.tcb.initial_window();
                }
            } else {
                // Partial ack: stay in fast recovery (partial_window_deflation_ 1).
                self.partialnewack_helper(cx, ackno);
            }
        } else if ackno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.numdupacks {
                self.dupack_action_reno(cx, true);
            } else if self.dupacks > self.p.numdupacks && self.tcb.last_cwnd_action == CwndAction::Dupack {
                self.tcb.dupwnd += 1; // fast recovery
            } else if self.dupacks < self.p.numdupacks && self.p.singledup {
                self.send_one(cx);
            }
        }
        if self.dupacks == 0 {
            self.send_much(cx, false, self.p.maxburst);
        } else if self.dupacks > self.p.numdupacks - 1 {
            // newreno_changes_ 0: at most 2 packets per ack while recovering.
            self.send_much(cx, false, 2);
        }
    }

    /// ns-2.35: tcp-newreno.cc `partialnewack_helper` + `partialnewack`.
    fn partialnewack_helper(&mut self, cx: &mut Ctx, ackno: i64) {
        if !self.firstpartial {
            // newreno_changes1_: reset the timer only for the first partial ack.
            self.firstpartial = true;
            self.newtimer(cx, ackno);
        }
        // partial_window_deflation_
        let deflate = if ackno > self.last_ack { ackno - self.last_ack } else { 0 };
        let dupwnd = self.tcb.dupwnd as i64;
        if dupwnd > deflate {
            self.tcb.dupwnd = (dupwnd - (deflate - 1)) as i32;
        } else {
            self.tcb.cwnd -= (deflate - dupwnd) as f64;
            self.tcb.dupwnd = 1;
        }
        if self.tcb.cwnd < 1.0 {
            self.tcb.cwnd = 1.0;
        }
        self.last_ack = ackno;
        self.highest_ack = ackno;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.rtt_active && ackno >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.t_backoff = 1;
        }
        let seq = self.last_ack + 1;
        self.output(cx, seq);
    }

    /// ns-2.35: tcp.cc `dupack_action()` (Tahoe).
    fn dupack_action_tahoe(&mut self, cx: &mut Ctx) {
        let recovered = self.highest_ack > self.recover;
        if recovered || self.highest_ack == 0 {
            self.recover = self.maxseq;
            self.tcb.last_cwnd_action = CwndAction::Dupack;
            self.fast_retransmit_hook(cx);
            self.cc.slowdown(&mut self.tcb, how::CLOSE_SSTHRESH_HALF | how::CLOSE_CWND_ONE);
            self.reset_rtx_timer(cx, false, false);
        }
        // bug_fix_: no second fast retransmit in the same window.
    }

    /// ns-2.35: tcp-reno.cc / tcp-newreno.cc `dupack_action()`.
    fn dupack_action_reno(&mut self, cx: &mut Ctx, newreno: bool) {
        let recovered = self.highest_ack > self.recover;
        // Reno's allow_fast_retransmit(): true while the last action was a dupack one.
        let allow = !newreno && self.tcb.last_cwnd_action == CwndAction::Dupack;
        if !(recovered || allow || self.highest_ack == 0) {
            return; // bug_fix_
        }
        self.recover = self.maxseq;
        if newreno {
            self.reset_rtx_timer(cx, true, false);
        }
        self.tcb.last_cwnd_action = CwndAction::Dupack;
        self.fast_retransmit_hook(cx);
        self.cc.slowdown(&mut self.tcb, how::CLOSE_SSTHRESH_HALF | how::CLOSE_CWND_HALF);
        if !newreno {
            self.reset_rtx_timer(cx, true, false);
        }
        let seq = self.last_ack + 1;
        self.output(cx, seq);
        self.tcb.dupwnd = self.p.numdupacks;
    }

    /// A fast retransmit is being entered (window not yet reduced).
    fn fast_retransmit_hook(&mut self, cx: &mut Ctx) {
        self.nfastrexmit += 1;
        self.pacer = None;
        self.pace_timer.cancel();
        let (startup, mut sc) = self.start_ctx(cx, 0);
        startup.on_fast_retransmit(&mut sc);
    }

    /// ns-2.35: tcp.cc `recv_newack_helper` (+ `newack`), without ECN/Quick-Start.
    fn recv_newack_helper(&mut self, cx: &mut Ctx, ackno: i64) {
        self.newack(cx, ackno);
        self.cc.open(&mut self.tcb);
        if self.highest_ack >= self.curseq - 1 && !self.closed {
            self.closed = true;
        }
    }

    /// ns-2.35: tcp.cc `newack(pkt)` with `timerfix_` true.
    fn newack(&mut self, cx: &mut Ctx, ackno: i64) {
        let now = cx.now();
        self.dupacks = 0;
        self.last_ack = ackno;
        self.highest_ack = ackno;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.rtt_active && ackno >= self.rtt_seq {
            self.rtt.t_backoff = 1;
            self.rtt_active = false;
            let tao = now.as_secs_f64() - self.rtt_ts.as_secs_f64();
            self.rtt.update(&self.p.rtt, now.as_secs_f64(), tao);
        }
        self.newtimer(cx, ackno);
    }

    /// Record transfers whose last packet is now acked, and tell the applications.
    fn check_transfers(&mut self, cx: &mut Ctx) {
        while let Some(t) = self.transfers.front() {
            if self.highest_ack < t.end_seq {
                break;
            }
            let t = self.transfers.pop_front().expect("front exists");
            let now = cx.now();
            {
                let rec = &mut cx.shared.transfers[t.rec as usize];
                rec.end = Some(now);
                rec.retransmits = self.nrexmitpack - t.nrexmitpack_at_start;
                rec.timeouts = self.nrexmit - t.timeouts_at_start;
            }
            let (startup, mut sc) = self.start_ctx(cx, 0);
            startup.on_transfer_done(&mut sc);
            cx.shared.notices.push(Notice::TransferDone { flow: self.flow, transfer: t.rec });
        }
    }
}
