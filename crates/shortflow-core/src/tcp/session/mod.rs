//! TCP session (thesis ch. 6-7, App. B; spec thesis-http-session parts C and D): the
//! connections from one sender host to one receiver host share one congestion state
//! and one loss recovery, a layer above per-connection TCP.
//!
//! Per connection (`tcp::sender::TcpConn`) stay the byte stream's sequence state, the
//! receiver's window, the application's transfers and the counters. Per session: the
//! shared control block (`tcp::control::ControlBlock`: one window, one RTT estimator,
//! one congestion control) plus the session control block [`block::Session`]: the
//! segment list in send order, the outstanding count, the one timer, the connection
//! scheduler ([`scheduler`]) and the integrated loss recovery ([`recovery`]).
//!
//! The session replaces ns-2's per-connection duplicate-ack, recovery and timer logic
//! for its members: `TcpSenders` hands their acks to [`recv`], the session timer to
//! [`timeout`], and runs [`serve`] after every event on a member.
//!
//! - Congestion control (C.3): every new ack of any member is one ack to the block's
//!   congestion-control rule (slow start +1, congestion avoidance +1/cwnd); a
//!   data-driven loss opening a new loss window is one cut of the whole window; a
//!   timeout is one RTO reduction. The proxy variant (D.3) grows by one segment per RTT
//!   per sub-session and cuts only the lossy sub-session's share.
//! - Sending (C.4): control segments (the SYN) leave at once, outside the window; new
//!   data leaves while the segments charged to the window are fewer than the window,
//!   one segment per scheduler pick, on a member with data whose SYN is acked and
//!   whose receiver window has room. Retransmissions leave at once (F.10).
//! - Loss recovery (C.6): later acks and the three rules; a member that retransmitted
//!   recovers NewReno style (a partial ack retransmits its next hole at once); one
//!   window cut per loss window; the one session timer (go-back-N on every member).
//! - RTT (F.6): one timed segment per session, Karn's rule, samples from every member.
//! - Idle (F.4): with `slow_start_restart`, a session that had nothing outstanding for
//!   longer than an RTO restarts from the initial window (ns-2's idle restart rule,
//!   applied to the whole session).
//! - Lifetime (F.4): a member counts from the moment its application gives it data
//!   until it closes; the SCB outlives its last open member by the linger
//!   (`session.linger_s`, 1 s). A member opening later than that finds a fresh SCB
//!   (`ControlBlock::renew`: initial window and ssthresh, new RTT estimator; the
//!   session's records, loss windows and timer emptied), so a window carries across
//!   the HTML -> image gap of an HTTP/1.0 page but not across a user's think time.

pub mod block;
pub mod recovery;
pub mod scheduler;

#[cfg(test)]
mod tests;

use crate::tcp::control::{ControlBlock, TcpSenders};
use crate::tcp::events::{LossEvent, LossKind};
use crate::tcp::recovery::count;
use crate::tcp::sender::TcpConn;
use crate::time::SimTime;
use crate::world::Ctx;

pub use block::{Session, SessionStats};

/// The session's retransmission timer (fires for the first member's agent).
pub const TIMER_SESSION: u8 = 2;

fn loss_event(
    kind: LossKind,
    now: SimTime,
    c: &TcpConn,
    s: &Session,
    lost_seq: i64,
    sent_at: Option<SimTime>,
    new_epoch: bool,
) -> LossEvent {
    LossEvent {
        kind,
        now,
        flow: c.flow,
        flight_size: s.ownd(),
        lost_seq,
        lost_sent_at: sent_at,
        lost_low_prio: false,
        new_epoch,
    }
}

/// Run `f` with block `b`'s session taken out of it (so that the block and the
/// connections can be borrowed beside it).
fn with_session<R>(
    senders: &mut TcpSenders,
    b: u32,
    f: impl FnOnce(&mut Session, &mut Vec<TcpConn>, &mut ControlBlock) -> R,
) -> R {
    let TcpSenders { conns, cbs } = senders;
    let cb = &mut cbs[b as usize];
    let mut s = cb.rare.as_deref_mut().and_then(|r| r.session.take()).expect("a session block");
    let r = f(&mut s, conns, cb);
    cb.rare.as_deref_mut().expect("a session block's rare parts").session = Some(s);
    r
}

/// Re-arm the session timer after an ack (ns-2 `newtimer`): while data is
/// outstanding it restarts, otherwise it stops.
fn restart_timer(s: &mut Session, cb: &ControlBlock, c0: &TcpConn, cx: &mut Ctx) {
    if s.data_outstanding() == 0 {
        s.timer.cancel();
    } else {
        let rto = cb.rtt.timeout(&c0.params().rtt);
        s.timer.resched(cx.sched, SimTime::from_secs_f64(rto), s.timer_agent, TIMER_SESSION);
    }
}

/// The scheduler: send what the session window allows (spec C.4).
pub fn serve(senders: &mut TcpSenders, cx: &mut Ctx, b: u32) {
    with_session(senders, b, |s, conns, cb| {
        let now = cx.now();
        // Members the application has just given their first data open (spec F.4);
        // control segments first, outside the window.
        for slot in 0..s.members.len() {
            let c = &mut conns[s.members[slot].conn as usize];
            if !s.members[slot].open && !c.torn_down && c.curseq > 0 && s.open_member(slot as u16, now) {
                // The SCB outlived its last member by more than the linger: it was
                // destroyed, and this member creates a fresh one.
                cb.renew(c.params());
                s.new_life();
            }
            if c.needs_syn() {
                send_syn(s, c, cb, cx, slot as u16);
            }
        }
        let p = conns[s.members[0].conn as usize].params();
        let (wnd, rttp) = (p.wnd, p.rtt.clone());
        let ssr = p.slow_start_restart && !cb.startup.replaces_idle_restart();
        loop {
            if s.ownd() as i64 >= cb.tcb.window() {
                break;
            }
            let members = &s.members;
            let Some(slot) = s.sched.pick(&mut s.slots, |j| conns[members[j].conn as usize].can_send_data(wnd)) else {
                break;
            };
            let c = &mut conns[s.members[slot].conn as usize];
            if ssr && s.outstanding_is_empty() && s.started {
                // Slow-start restart after an idle period longer than the RTO.
                let idle = s.last_activity.is_some_and(|t| now.as_secs_f64() - t.as_secs_f64() > cb.rtt.timeout(&rttp));
                if idle {
                    let ev = loss_event(LossKind::IdleRestart, now, c, s, c.t_seqno, None, false);
                    cb.cc.on_loss(&mut cb.tcb, &ev);
                    s.last_activity = Some(now);
                    continue;
                }
            }
            let seq = c.t_seqno;
            let retrans = seq <= c.maxseq;
            c.output(cb, cx, seq);
            c.t_seqno += 1;
            s.record(slot as u16, seq, now, retrans, false);
            s.last_activity = Some(now);
            if !retrans && s.timed.is_none() {
                s.timed = Some((slot as u16, seq, now));
            }
        }
        if s.data_outstanding() > 0 && !s.timer.pending() {
            let rto = cb.rtt.timeout(&rttp);
            s.timer.resched(cx.sched, SimTime::from_secs_f64(rto), s.timer_agent, TIMER_SESSION);
        }
    })
}

impl Session {
    fn outstanding_is_empty(&self) -> bool {
        self.data_outstanding() == 0
    }
}

/// Send (or resend) member `slot`'s SYN, outside the window, and arm its own SYN timer:
/// the initial RTO (`tcp.rtxcur_init_s`) doubled per try, at most `tcp.maxrto_s`
/// (connection set-up is per connection; spec F.2).
fn send_syn(s: &mut Session, c: &mut TcpConn, cb: &mut ControlBlock, cx: &mut Ctx, slot: u16) {
    let now = cx.now();
    c.output(cb, cx, 0);
    c.t_seqno = 1;
    s.record(slot, 0, now, s.members[slot as usize].syn_tries > 0, true);
    s.last_activity = Some(now);
    let p = &c.params().rtt;
    let tries = s.members[slot as usize].syn_tries.min(16);
    let rto = (p.rtxcur_init * (1u64 << tries) as f64).min(p.maxrto);
    c.arm_syn_timer(cx, SimTime::from_secs_f64(rto));
}

/// Member connection `i`'s own timer fires: its SYN is still unacked, resend it.
pub fn syn_timeout(senders: &mut TcpSenders, cx: &mut Ctx, i: u32, gen: u32) {
    let b = senders.conns[i as usize].cb;
    with_session(senders, b, |s, conns, cb| {
        let c = &mut conns[i as usize];
        if !c.syn_timer_fired(gen) || c.highest_ack >= 0 || c.torn_down {
            return;
        }
        let slot = s.slot_of(i);
        if let Some(idx) = s.find(slot, 0) {
            s.take(idx);
        }
        s.members[slot as usize].syn_tries += 1;
        count!(c.ctr.timeouts);
        send_syn(s, c, cb, cx, slot);
    });
}

/// Retransmit member `slot`'s segment `seq` at once (spec C.6.3, F.10). `rule` 1-3
/// for a fast retransmission (which may cut the window, once per loss window), 0 for a
/// partial ack's (no cut).
fn retransmit(
    s: &mut Session,
    conns: &mut [TcpConn],
    cb: &mut ControlBlock,
    cx: &mut Ctx,
    slot: u16,
    seq: i64,
    rule: u8,
) {
    let Some(idx) = s.find(slot, seq) else { return };
    let now = cx.now();
    let old = s.take(idx);
    let c = &mut conns[s.members[slot as usize].conn as usize];
    c.output(cb, cx, seq);
    let tail = s.record(slot, seq, now, true, false);
    s.last_activity = Some(now);
    if s.timed.is_some_and(|(ts, tq, _)| ts == slot && tq == seq) {
        s.timed = None; // Karn
    }
    s.credit(slot, old.dupacks);
    s.members[slot as usize].recover = Some(c.maxseq);
    if rule == 0 {
        s.stats.partial += 1;
        return;
    }
    count!(c.nfastrexmit);
    s.stats.rule[rule as usize - 1] += 1;
    if s.loss_window_cut(slot, old.serial, tail) {
        s.stats.cuts += 1;
        let kind = if rule == 1 { LossKind::DupAckThreshold } else { LossKind::LaterAcks };
        if s.proxy {
            proxy_cut(s, cb, slot);
        } else {
            let ev = loss_event(kind, now, c, s, seq, Some(old.sent_at), true);
            cb.cc.on_loss(&mut cb.tcb, &ev);
        }
    }
    let rto = cb.rtt.timeout(&c.params().rtt);
    s.timer.resched(cx.sched, SimTime::from_secs_f64(rto), s.timer_agent, TIMER_SESSION);
}

/// The share of the session window of sub-session `sub` (spec D.3):
/// `subsession_ownd / session_ownd * session_cwnd`, or an equal split among the
/// sub-sessions when nothing is outstanding (F.21).
fn sub_cwnd(s: &Session, cwnd: f64, sub: u16) -> f64 {
    let ownd = s.ownd();
    if ownd == 0 {
        return cwnd / s.n_subs() as f64;
    }
    s.sub_ownd(sub) as f64 / ownd as f64 * cwnd
}

/// Proxy variant, a data-driven loss in `slot`'s sub-session: the session window loses
/// half that sub-session's share (spec D.3 rule 3), at least 1 segment left (F.21).
fn proxy_cut(s: &Session, cb: &mut ControlBlock, slot: u16) {
    let sub = s.members[slot as usize].sub;
    let share = sub_cwnd(s, cb.tcb.cwnd, sub);
    cb.tcb.cwnd = (cb.tcb.cwnd - share / 2.0).max(1.0);
    cb.tcb.ssthresh = (cb.tcb.cwnd as i32).max(2);
}

/// Proxy variant, a new ack of `slot`: slow start +1; congestion avoidance
/// `+1 / subsession_cwnd` (one segment per RTT per sub-session, spec D.3 rule 2).
fn proxy_grow(s: &Session, cb: &mut ControlBlock, slot: u16) {
    let t = &mut cb.tcb;
    if t.cwnd < t.ssthresh as f64 {
        t.cwnd += t.increase_num;
    } else {
        let share = sub_cwnd(s, t.cwnd, s.members[slot as usize].sub).max(1.0);
        t.cwnd += t.increase_num / share;
    }
    if t.maxcwnd > 0 && t.cwnd > t.maxcwnd as f64 {
        t.cwnd = t.maxcwnd as f64;
    }
}

/// An ack arrives for member connection `i` (spec C.6.1).
pub fn recv(senders: &mut TcpSenders, cx: &mut Ctx, i: u32, pkt: crate::engine::PktId) {
    let b = senders.conns[i as usize].cb;
    let Some((ackno, _ece, _ts)) = senders.conns[i as usize].read_ack::<true>(cx, pkt) else {
        let c = &mut senders.conns[i as usize];
        if std::mem::take(&mut c.window_opened) {
            // A window update (the receiver read): the member may be eligible again.
            serve(senders, cx, b);
        }
        return;
    };
    with_session(senders, b, |s, conns, cb| {
        let now = cx.now();
        let slot = s.slot_of(i);
        let c = &mut conns[i as usize];
        let prev = c.highest_ack;
        s.last_activity = Some(now);
        if ackno > prev {
            let newly = s.on_new_ack(slot, ackno);
            c.session_newack(now, ackno);
            if let Some((ts, tq, tt)) = s.timed {
                if ts == slot && tq <= ackno {
                    cb.rtt.t_backoff = 1;
                    cb.rtt.update(&c.params().rtt, now.as_secs_f64(), now.as_secs_f64() - tt.as_secs_f64());
                    s.timed = None;
                }
            }
            let syn_only = c.params().syn && prev < 0 && ackno == 0;
            if c.params().syn && prev < 0 {
                c.cancel_syn_timer();
            }
            if syn_only {
                // The SYN's ack: the session's first one sets the initial window
                // (ns-2 with `delay_growth`); a control segment grows nothing.
                if !s.started {
                    s.started = true;
                    if c.params().delay_growth {
                        cb.tcb.cwnd = cb.tcb.initial_window();
                    }
                }
            } else {
                s.started = true;
                if s.proxy {
                    proxy_grow(s, cb, slot);
                } else {
                    let sample = c.session_ack_sample(now, ackno, prev);
                    cb.cc.on_ack(&mut cb.tcb, &sample);
                }
            }
            match s.members[slot as usize].recover {
                Some(r) if ackno >= r => s.end_recovery(slot),
                Some(_) => {
                    // A partial ack: the next hole of this member, at once.
                    s.deflate(slot, newly);
                    retransmit(s, conns, cb, cx, slot, ackno + 1, 0);
                }
                None => {}
            }
            let c0 = &conns[s.members[0].conn as usize];
            restart_timer(s, cb, c0, cx);
        } else if ackno == prev && c.maxseq > ackno {
            c.dupacks += 1;
            s.on_dup_ack(slot, ackno + 1);
        }
        s.find_candidates(|conn| conns[conn as usize].highest_ack + 1);
        let list = std::mem::take(&mut s.retranslist);
        for &(slot, seq, rule) in &list {
            retransmit(s, conns, cb, cx, slot, seq, rule);
        }
        s.retranslist = list;
    });
    serve(senders, cx, b);
    let c = &mut senders.conns[i as usize];
    let cb = &mut senders.cbs[b as usize];
    c.check_transfers(cb, cx);
    trace_cwnd(c, cb, cx);
}

fn trace_cwnd(c: &TcpConn, cb: &ControlBlock, cx: &mut Ctx) {
    if let Some(t) = cx.shared.cwnd_trace.as_mut() {
        t.flow.push(c.flow);
        t.time_ns.push(cx.sched.now().as_nanos());
        t.cwnd.push(cb.tcb.cwnd);
        t.ssthresh.push(cb.tcb.ssthresh as f64);
        t.srtt_s.push(cb.rtt.srtt_s(&c.params().rtt));
    }
}

/// The session timer fires (spec C.6.4): one RTO reduction for the whole session,
/// every record deleted, every member resumes go-back-N from its cumulative ack; the
/// scheduler decides who sends first.
pub fn timeout(senders: &mut TcpSenders, cx: &mut Ctx, i: u32, gen: u32) {
    let b = senders.conns[i as usize].cb;
    let fired = with_session(senders, b, |s, conns, cb| {
        if !s.timer.fire(gen) || s.data_outstanding() == 0 {
            return false;
        }
        let now = cx.now();
        let head = *s.seglst.iter().find(|r| !r.ctl).expect("data outstanding");
        let c = &mut conns[s.members[head.slot as usize].conn as usize];
        count!(c.ctr.timeouts);
        let ev = loss_event(LossKind::Rto, now, c, s, head.seq, Some(head.sent_at), true);
        cb.cc.on_loss(&mut cb.tcb, &ev);
        cb.rtt.backoff(&c.params().rtt);
        s.stats.timeouts += 1;
        s.clear();
        for m in &s.members {
            let c = &mut conns[m.conn as usize];
            if c.highest_ack >= 0 || !c.params().syn {
                c.t_seqno = c.highest_ack + 1;
                c.dupacks = 0;
            }
        }
        true
    });
    if fired {
        serve(senders, cx, b);
    }
}

/// Member connection `i` closed at `now` (torn down by its application): its records
/// leave the session and it no longer counts as open; the window is not changed (spec
/// C.2). When it was the last open member, the SCB lingers (spec F.4).
pub fn member_closed(senders: &mut TcpSenders, i: u32, now: SimTime) {
    let b = senders.conns[i as usize].cb;
    with_session(senders, b, |s, _, _| {
        let slot = s.slot_of(i);
        s.drop_member_records(slot);
        s.close_member(slot, now);
    });
}
