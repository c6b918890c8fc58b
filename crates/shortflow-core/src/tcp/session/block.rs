//! The session control block (SCB, spec thesis-http-session C.2): the members, the
//! list of sent and unacknowledged segments in send order, the outstanding count and
//! fast-recovery credit, the loss windows, the one retransmission timer and the RTT
//! timing. The window itself, the RTT estimator and the congestion control are the
//! shared `ControlBlock`'s (`tcp::control`).
//!
//! Units: segments (packets), as everywhere in the core; a short final segment counts
//! as one (spec F.9).

use std::collections::VecDeque;

use crate::engine::Timer;
use crate::time::SimTime;

use super::scheduler::{Scheduler, Slot};

/// One sent, unacknowledged segment (spec C.2 `segment`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegRec {
    /// The member (index in `Session::members`).
    pub slot: u16,
    pub seq: i64,
    /// Transmission serial: the position in send order.
    pub serial: u64,
    pub sent_at: SimTime,
    pub dupacks: u32,
    /// Later acks: acks of segments of *other* members sent after this one.
    pub laters: u32,
    /// Sent before (a retransmission): Karn, and no second fast retransmission.
    pub retrans: bool,
    /// A control segment (the SYN): neither charged to the window nor a candidate for
    /// fast retransmission; only the timer recovers it.
    pub ctl: bool,
}

/// A member connection.
#[derive(Clone, Copy, Debug)]
pub struct Member {
    /// Index in `TcpSenders::conns`.
    pub conn: u32,
    /// Sub-session (proxy variant), 0 without.
    pub sub: u16,
    /// Fast-recovery credit: duplicate acks seen for this member's retransmitted
    /// segment (spec C.6.1, F.8), taken off the session's outstanding count.
    pub infl: u32,
    /// NewReno recovery point while the member recovers (its `maxseq` when it
    /// retransmitted); partial acks below it retransmit the next hole at once.
    pub recover: Option<i64>,
    /// SYN retransmissions so far (its own timer backs off per try).
    pub syn_tries: u32,
    /// Open: the application has given it data and it has not closed (spec F.4: a
    /// member counts until it is fully closed).
    pub open: bool,
}

/// Counts of what the session did (for tests and results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Retransmissions by rule 1, 2, 3 (spec C.6.2).
    pub rule: [u64; 3],
    /// Partial-ack retransmissions.
    pub partial: u64,
    /// Window cuts for data-driven losses (at most one per loss window).
    pub cuts: u64,
    /// Session timeouts.
    pub timeouts: u64,
    /// Lives of the SCB: 1 when the first member opens, +1 each time a member opens
    /// after the SCB outlived its last member by more than the linger (spec F.4).
    pub lives: u64,
}

pub struct Session {
    pub members: Vec<Member>,
    pub slots: Vec<Slot>,
    pub sched: Scheduler,
    /// Sent and unacknowledged segments, in send order.
    pub seglst: VecDeque<SegRec>,
    next_serial: u64,
    /// Non-control records in `seglst`.
    outstanding: u32,
    /// Sum of the members' `infl`.
    infl_total: u32,
    /// Per sub-session: the serial of the last segment sent when the window was last
    /// cut; a loss of a segment sent no later belongs to the same loss window.
    pub losswin: Vec<Option<u64>>,
    /// Sub-sessions are in use (the proxy variant).
    pub proxy: bool,
    /// Duplicate-ack threshold (`numdupacks`), also the later-ack threshold.
    pub thresh: u32,
    /// Rules 2 and 3 use later acks (false: session-noilr).
    pub later_acks: bool,
    pub timer: Timer,
    /// The agent id the timer fires for (the first member's).
    pub timer_agent: u32,
    /// The segment timed for an RTT sample: (member, seq, send time); one per session.
    pub timed: Option<(u16, i64, SimTime)>,
    /// The session's window was set to the initial window at its first SYN ack.
    pub started: bool,
    /// Last send or ack of any member (slow-start restart after idle).
    pub last_activity: Option<SimTime>,
    /// Candidates found while processing one ack (spec C.2 `retranslist`), reused.
    pub retranslist: Vec<(u16, i64, u8)>,
    pub stats: SessionStats,
    /// Members open now.
    pub open: u32,
    /// When the last open member closed (while none is open).
    pub empty_since: Option<SimTime>,
    /// `scb_linger` (spec F.4): how long the SCB outlives its last member.
    pub linger: SimTime,
}

impl Session {
    pub fn new(first_conn: u32, timer_agent: u32, sched: Scheduler, thresh: u32, later_acks: bool) -> Session {
        Session {
            members: vec![Member { conn: first_conn, sub: 0, infl: 0, recover: None, syn_tries: 0, open: false }],
            slots: vec![Slot::new(1)],
            sched,
            seglst: VecDeque::with_capacity(64),
            next_serial: 0,
            outstanding: 0,
            infl_total: 0,
            losswin: vec![None],
            proxy: false,
            thresh,
            later_acks,
            timer: Timer::default(),
            timer_agent,
            timed: None,
            started: false,
            last_activity: None,
            retranslist: Vec::with_capacity(8),
            stats: SessionStats::default(),
            open: 0,
            empty_since: None,
            linger: SimTime::from_secs_f64(1.0),
        }
    }

    /// Member `slot` opens at `now` (spec F.4). Returns true when the SCB must start a
    /// new life first: no member has been open for longer than the linger. The caller
    /// then resets the shared control block and calls [`Session::new_life`].
    pub fn open_member(&mut self, slot: u16, now: SimTime) -> bool {
        let m = &mut self.members[slot as usize];
        if m.open {
            return false;
        }
        m.open = true;
        self.open += 1;
        if self.open > 1 {
            return false;
        }
        let since = self.empty_since.take();
        if self.stats.lives == 0 {
            self.stats.lives = 1;
            return false;
        }
        since.is_some_and(|t| now.0.saturating_sub(t.0) > self.linger.0)
    }

    /// Member `slot` closed at `now`: it no longer counts (its records are dropped by
    /// [`Session::drop_member_records`]).
    pub fn close_member(&mut self, slot: u16, now: SimTime) {
        let m = &mut self.members[slot as usize];
        if !m.open {
            return;
        }
        m.open = false;
        self.open -= 1;
        if self.open == 0 {
            self.empty_since = Some(now);
        }
    }

    /// The SCB starts a new life (spec F.4: the old one was destroyed): no records,
    /// credit, loss window or RTT timing, the window not yet started. The caller has
    /// reset the window, ssthresh and RTT estimator (`ControlBlock::renew`).
    pub fn new_life(&mut self) {
        self.clear();
        self.seglst.clear();
        self.started = false;
        self.last_activity = None;
        self.timer.cancel();
        self.stats.lives += 1;
    }

    /// Add a member; returns its slot.
    pub fn add_member(&mut self, conn: u32, weight: u32) -> u16 {
        self.members.push(Member { conn, sub: 0, infl: 0, recover: None, syn_tries: 0, open: false });
        self.slots.push(Slot::new(weight));
        self.sched.weights_changed(&mut self.slots);
        (self.members.len() - 1) as u16
    }

    /// The member slot of connection `conn`.
    #[inline]
    pub fn slot_of(&self, conn: u32) -> u16 {
        self.members.iter().position(|m| m.conn == conn).expect("a member of this session") as u16
    }

    /// Segments charged to the window: outstanding less the fast-recovery credit
    /// (spec F.8), at least 0.
    #[inline]
    pub fn ownd(&self) -> u32 {
        self.outstanding.saturating_sub(self.infl_total)
    }

    /// As `ownd`, for the members of sub-session `sub`.
    pub fn sub_ownd(&self, sub: u16) -> u32 {
        let out = self.seglst.iter().filter(|r| !r.ctl && self.members[r.slot as usize].sub == sub).count() as u32;
        let infl: u32 = self.members.iter().filter(|m| m.sub == sub).map(|m| m.infl).sum();
        out.saturating_sub(infl)
    }

    /// Number of sub-sessions.
    pub fn n_subs(&self) -> usize {
        self.losswin.len()
    }

    /// Append the record of a segment just sent; returns its serial.
    pub fn record(&mut self, slot: u16, seq: i64, now: SimTime, retrans: bool, ctl: bool) -> u64 {
        let serial = self.next_serial;
        self.next_serial += 1;
        self.seglst.push_back(SegRec { slot, seq, serial, sent_at: now, dupacks: 0, laters: 0, retrans, ctl });
        if !ctl {
            self.outstanding += 1;
        }
        serial
    }

    /// Remove the record at `idx` (a retransmission replaces it).
    pub fn take(&mut self, idx: usize) -> SegRec {
        let r = self.seglst.remove(idx).expect("index in range");
        if !r.ctl {
            self.outstanding -= 1;
        }
        r
    }

    pub fn find(&self, slot: u16, seq: i64) -> Option<usize> {
        self.seglst.iter().position(|r| r.slot == slot && r.seq == seq)
    }

    /// A new cumulative ack `ackno` for member `slot` (spec C.6.1, App. B cases 1-2):
    /// remove its records up to `ackno` and credit one later ack to every record of
    /// another member sent before the newest of them. Returns the number of data
    /// records removed.
    pub fn on_new_ack(&mut self, slot: u16, ackno: i64) -> u32 {
        let mut newest: Option<u64> = None;
        let mut removed = 0u32;
        self.seglst.retain(|r| {
            if r.slot == slot && r.seq <= ackno {
                newest = Some(newest.map_or(r.serial, |n: u64| n.max(r.serial)));
                removed += !r.ctl as u32;
                false
            } else {
                true
            }
        });
        self.outstanding -= removed;
        let Some(newest) = newest else { return 0 };
        for r in self.seglst.iter_mut() {
            if r.serial >= newest {
                break;
            }
            if r.slot != slot {
                r.laters += 1;
            }
        }
        removed
    }

    /// A duplicate ack for member `slot` whose first unacknowledged segment is `seq`
    /// (spec C.6.1 case 3): a later ack for other members' records sent before that
    /// segment (F.11: not after it), and a duplicate ack for the segment itself, or,
    /// once it was retransmitted, one segment of fast-recovery credit.
    ///
    /// Once that segment was retransmitted its record sits near the tail, and crediting
    /// every record ahead of it (T's App. B text read literally) would count records
    /// sent between its first transmission and its retransmission, about which the
    /// dupack says nothing: the segment of `slot` that arrived was sent no earlier than
    /// the member's oldest other outstanding record. So the credit stops at whichever
    /// comes first, that record or the segment itself -- the segment itself whenever it
    /// was not retransmitted, as T has it (F.11's reasoning, applied to retransmissions;
    /// docs/defaults.md "TCP session").
    pub fn on_dup_ack(&mut self, slot: u16, seq: i64) {
        let Some(i0) = self.find(slot, seq) else { return };
        let bound = self.seglst.iter().take(i0).position(|r| r.slot == slot && !r.ctl).unwrap_or(i0);
        for r in self.seglst.iter_mut().take(bound) {
            if r.slot != slot {
                r.laters += 1;
            }
        }
        let r0 = &mut self.seglst[i0];
        if !r0.retrans {
            r0.dupacks += 1;
        } else {
            self.members[slot as usize].infl += 1;
            self.infl_total += 1;
        }
    }

    /// Give member `slot` `n` segments of fast-recovery credit (a retransmission
    /// deflates for the duplicate acks its segment had, spec C.6.3).
    pub fn credit(&mut self, slot: u16, n: u32) {
        self.members[slot as usize].infl += n;
        self.infl_total += n;
    }

    /// A partial ack of member `slot` covered `n` segments: they leave the outstanding
    /// count, and the credit the duplicate acks gave for those of them that had arrived
    /// goes with them; the retransmission it triggers keeps one (ns-2 NewReno's
    /// `partial_window_deflation_`: deflate by the amount acked, less one).
    pub fn deflate(&mut self, slot: u16, n: u32) {
        let m = &mut self.members[slot as usize];
        let d = n.saturating_sub(1).min(m.infl);
        m.infl -= d;
        self.infl_total -= d;
    }

    /// Member `slot` leaves recovery (its ack passed `recover`) or closes: its credit ends.
    pub fn end_recovery(&mut self, slot: u16) {
        let m = &mut self.members[slot as usize];
        self.infl_total -= m.infl;
        m.infl = 0;
        m.recover = None;
    }

    /// Drop member `slot`'s records (the connection closed).
    pub fn drop_member_records(&mut self, slot: u16) {
        let mut removed = 0;
        self.seglst.retain(|r| {
            let keep = r.slot != slot;
            removed += (!keep && !r.ctl) as u32;
            keep
        });
        self.outstanding -= removed;
        self.end_recovery(slot);
        if self.timed.is_some_and(|t| t.0 == slot) {
            self.timed = None;
        }
    }

    /// Data segments outstanding (records that are not control segments).
    #[inline]
    pub fn data_outstanding(&self) -> u32 {
        self.outstanding
    }

    /// The session timer expired (spec C.6.4): delete every data record, every credit,
    /// the loss windows and the RTT timing (SYNs are recovered per connection).
    pub fn clear(&mut self) {
        self.seglst.retain(|r| r.ctl);
        self.outstanding = 0;
        self.infl_total = 0;
        for m in &mut self.members {
            m.infl = 0;
            m.recover = None;
        }
        for w in &mut self.losswin {
            *w = None;
        }
        self.timed = None;
    }

    /// Serial of the newest record (the tail), if any.
    pub fn tail_serial(&self) -> Option<u64> {
        self.seglst.back().map(|r| r.serial)
    }
}
