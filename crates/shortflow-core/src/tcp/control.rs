//! The control block: the congestion state a connection sends under, kept apart from
//! its sequence state (`sender::TcpConn`) so that one block can serve several
//! connections (the thesis's TCP session, RFC 9040 ensemble sharing).
//!
//! A block holds the window (`Tcb`), the RTT estimator, the congestion-control rule,
//! the start-up policy and its plan (pacer, low-priority range), and the pacing timer.
//! Blocks are addressed by index in [`TcpSenders::cbs`]; each connection names its
//! block. A block serving one connection behaves exactly as ns-2's agent does.
//!
//! A block serving several connections ("shared") limits the packets they have in
//! flight *together* to one window: a connection sends only while the others' flight
//! plus its own stays within the window, and after every event on one member the
//! block's scheduler (`TcpSenders::serve`, round robin, one segment per turn) lets
//! the other members use what the window has left.
//!
//! What stays per connection, by design of ns-2's mechanism: the duplicate-ack and
//! recovery state and the retransmission timer, which act on one sequence space.
//!
//! A block with a TCP session (`tcp::session`, [`TcpSenders::push_session`]) goes
//! further: the session's segment list, timer and integrated loss recovery replace
//! the members' own, and its scheduler (round robin or weighted) replaces the round
//! robin above.

use crate::engine::Timer;
use crate::tcp::cc::{AnyCc, CwndAction, Tcb};
use crate::tcp::pacing::Pacer;
use crate::tcp::rtt::{RttEstimator, RttParams};
use crate::tcp::rtt_linux::LinuxRtt;
use crate::tcp::sender::{TcpConn, TcpParams};
use crate::tcp::startup::{AnyStartup, SeqRange, StartPlan};
use crate::world::Ctx;

pub struct ControlBlock {
    pub tcb: Tcb,
    pub rtt: RttEstimator,
    pub cc: AnyCc,
    pub startup: AnyStartup,
    pub(crate) pace_timer: Timer,
    /// The pace timer holds new data between two bursts (a rule that paces bursts,
    /// `AnyCc::burst_gap`).
    pub(crate) burst_wait: bool,
    /// The plan's burst limit (Fast Start's burst pacing; the pacing timer releases
    /// the next burst). Non-zero: 4 bytes, not an `Option<u32>`'s 8, so the block's
    /// small fields fill one 16-byte tail (8 bytes less per block).
    pub(crate) burst: Option<std::num::NonZeroU32>,
    /// The plan outlives `Cut` verdicts (see `StartPlan::through_losses`).
    pub(crate) plan_through_losses: bool,
    /// A start-up plan is running: `on_send`/`on_ack` of the policy are called.
    pub(crate) plan_active: bool,
    /// The start-up policy sees every ack (`StartupPolicy::wants_every_ack`).
    pub(crate) every_ack: bool,
    /// The connection whose sequence numbers the plan's pacer and range refer to
    /// (its agent id).
    pub(crate) plan_conn: u32,
    /// A policy of this block reads per-segment detail: the members keep their
    /// sent-segment logs (`wants_detail` of the CC and the start-up policy).
    pub(crate) detail: bool,
    /// Which per-packet hooks of the block's policies can be live ([`hook`] bits), so
    /// that a block of ns-2's own rules pays one test per send, per ack and per
    /// `send_much` for all of them. A bit may be set while its hooks happen to be idle
    /// (the hooked path then checks each one, as before); it is never clear while one
    /// is live: `refresh_hooks` runs wherever the plan, the burst hold or the members
    /// change.
    pub(crate) hooks: u8,
    /// The bits of `hooks` fixed at construction (the rules and the parameters).
    static_hooks: u8,
    /// Shared blocks: packets in flight of all members but the one being served (0 for
    /// a block of one connection); inline, as the window test of every send reads it.
    pub(crate) others_flight: i64,
    /// What few blocks have (Linux's RTO, a pacer, a low-priority range, members, a
    /// session), behind one pointer: None for every block of a large run (8 bytes
    /// instead of five pointers' 40).
    pub(crate) rare: Option<Box<Rare>>,
}

/// The parts of a [`ControlBlock`] that most blocks never have (`ControlBlock::rare`);
/// each boxed on its own as before, so that taking one out moves a pointer.
#[derive(Default)]
pub(crate) struct Rare {
    /// Linux's RTT estimator and RTO, when the connections run it (`tcp.rto.kind =
    /// "linux"`); then it, not `rtt`, times retransmissions. ns-2's estimator keeps
    /// running beside it for the policies that read it.
    pub(crate) linux_rtt: Option<Box<LinuxRtt>>,
    /// Only a pacing start-up (TCP/SPAND) has one, for its first window.
    pub(crate) pacer: Option<Box<Pacer>>,
    /// Segments of the plan's connection sent at low drop priority (only Fast Start's
    /// priority marking and tests set it).
    pub(crate) low_prio: Option<Box<SeqRange>>,
    /// A shared block's members, flight and turn (None: the block serves one
    /// connection).
    sharing: Option<Box<Sharing>>,
    /// The TCP session control block, for a session's block (`tcp::session`).
    pub(crate) session: Option<Box<crate::tcp::session::Session>>,
}

// One block per connection at scale (issue 21 item 3; `layout_tests` keeps the history).
// A test build carries the test-only `Scripted` start-up policy inline, and is larger.
#[cfg(not(test))]
const _: () = assert!(std::mem::size_of::<ControlBlock>() == 176);

/// What only a shared block has (`ControlBlock::sharing`).
#[derive(Debug, Default)]
struct Sharing {
    /// The connections sharing the block.
    members: Vec<u32>,
    /// Packets in flight of all members.
    flight_total: i64,
    /// The member whose turn is next (`TcpSenders::serve`).
    next_turn: usize,
}

impl ControlBlock {
    /// Packets in flight of all members of a shared block (0 for a block of one).
    #[inline]
    fn flight_total(&self) -> i64 {
        self.sharing().map_or(0, |s| s.flight_total)
    }

    /// The rare parts, allocated on first use.
    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Default::default)
    }
    fn sharing(&self) -> Option<&Sharing> {
        self.rare.as_deref().and_then(|r| r.sharing.as_deref())
    }
    fn sharing_mut(&mut self) -> Option<&mut Sharing> {
        self.rare.as_deref_mut().and_then(|r| r.sharing.as_deref_mut())
    }
    /// Linux's RTT estimator and RTO, if the block runs it.
    #[inline]
    pub fn linux_rtt(&self) -> Option<&LinuxRtt> {
        self.rare.as_deref().and_then(|r| r.linux_rtt.as_deref())
    }
    pub(crate) fn linux_rtt_mut(&mut self) -> Option<&mut LinuxRtt> {
        self.rare.as_deref_mut().and_then(|r| r.linux_rtt.as_deref_mut())
    }
    /// The plan's pacer, if it paces.
    pub(crate) fn pacer_mut(&mut self) -> Option<&mut Pacer> {
        self.rare.as_deref_mut().and_then(|r| r.pacer.as_deref_mut())
    }
    /// The plan's low-priority range, if any.
    pub(crate) fn low_prio(&self) -> Option<&SeqRange> {
        self.rare.as_deref().and_then(|r| r.low_prio.as_deref())
    }
    /// Does the plan pace?
    #[inline]
    pub(crate) fn has_pacer(&self) -> bool {
        self.rare.as_deref().is_some_and(|r| r.pacer.is_some())
    }
    /// Drop the plan's pacer (no allocation when there is none).
    #[inline]
    pub(crate) fn drop_pacer(&mut self) {
        if let Some(r) = self.rare.as_deref_mut() {
            r.pacer = None;
        }
    }
    /// The session's block, if this block runs a session.
    pub(crate) fn session_mut(&mut self) -> Option<&mut crate::tcp::session::Session> {
        self.rare.as_deref_mut().and_then(|r| r.session.as_deref_mut())
    }
    /// Does this block run a TCP session?
    #[inline]
    pub(crate) fn has_session(&self) -> bool {
        self.session().is_some()
    }

    #[inline]
    fn set_flight_total(&mut self, f: i64) {
        if let Some(s) = self.sharing_mut() {
            s.flight_total = f;
        }
    }

    /// A block in ns-2's `reset()` state for connections with parameters `p`.
    pub fn new(p: &TcpParams, startup: AnyStartup, boot_time: f64) -> ControlBlock {
        let mut tcb = Tcb {
            variant: p.variant,
            cwnd: 0.0,
            ssthresh: 0,
            wnd: p.wnd,
            dupwnd: 0,
            wnd_init: p.wnd_init,
            wnd_init_option: 1,
            maxcwnd: p.maxcwnd,
            increase_num: p.increase_num,
            decrease_num: p.decrease_num,
            last_cwnd_action: CwndAction::None,
            first_decrease: true,
            packet_size: p.size,
        };
        // ns-2.35 tcp.cc reset(): set_initial_window() (with syn_ and delay_growth_
        // the window starts at 1) and ssthresh_ = initial ssthresh or window_.
        tcb.cwnd = if p.syn && p.delay_growth { 1.0 } else { tcb.initial_window() };
        tcb.ssthresh = if p.initial_ssthresh > 0 { p.initial_ssthresh } else { p.wnd as i32 };
        let mut rtt = RttEstimator::new(&p.rtt, boot_time);
        rtt.init(&p.rtt);
        let cc = AnyCc::from_config("tcp", &p.cc, p.maxburst.max(0) as u32)
            .expect("TcpParams::from_config validated the rule");
        let detail = cc.wants_detail() || startup.wants_detail() || p.linux_rto.is_some();
        let every_ack = startup.wants_every_ack();
        // Any rule but ns-2's may act on a send or pace bursts; ECN and the tcp-asym
        // header mark every data packet and read every ack; the sent-segment log is
        // written on every send and read on every ack.
        let plain_cc = matches!(cc, AnyCc::Ns2(_));
        let mut static_hooks = 0;
        if !plain_cc || p.ecn || p.asym_header || detail {
            static_hooks |= hook::SEND;
        }
        // A socket buffer (`tcp.sndbuf`): each new ack frees room for the application.
        if p.ecn || p.asym_header || detail || every_ack || p.sndbuf_pkts.is_some() {
            static_hooks |= hook::ACK;
        }
        if !plain_cc {
            static_hooks |= hook::SEND_MUCH;
        }
        if !matches!(startup, AnyStartup::Ns2(_) | AnyStartup::NoRestart(_)) {
            static_hooks |= hook::LOSS;
        }
        ControlBlock {
            detail,
            rare: p
                .linux_rto
                .map(|lp| Box::new(Rare { linux_rtt: Some(Box::new(LinuxRtt::new(lp))), ..Rare::default() })),
            every_ack,
            hooks: static_hooks,
            static_hooks,
            burst: None,
            plan_through_losses: false,
            tcb,
            rtt,
            cc,
            startup,
            pace_timer: Timer::default(),
            burst_wait: false,
            plan_active: false,
            plan_conn: 0,
            others_flight: 0,
        }
    }

    /// Back to a new connection's state (`TcpConn::renew`): the window and ssthresh
    /// as `new` sets them, a fresh RTT estimator (same boot time) and a fresh
    /// congestion-control rule (its decision log, the `cc` table, restarts with it); no
    /// plan. The start-up policy is kept (its caches outlive connections).
    pub(crate) fn renew(&mut self, p: &TcpParams) {
        let t = &mut self.tcb;
        t.cwnd = if p.syn && p.delay_growth { 1.0 } else { t.initial_window() };
        t.ssthresh = if p.initial_ssthresh > 0 { p.initial_ssthresh } else { p.wnd as i32 };
        t.dupwnd = 0;
        t.last_cwnd_action = CwndAction::None;
        t.first_decrease = true;
        self.rtt = RttEstimator::new(&p.rtt, self.rtt.boot_time);
        self.cc = AnyCc::from_config("tcp", &p.cc, p.maxburst.max(0) as u32)
            .expect("TcpParams::from_config validated the rule");
        self.end_plan();
        self.burst_wait = false;
        let linux = p.linux_rto.map(|lp| Box::new(LinuxRtt::new(lp)));
        if linux.is_some() || self.rare.is_some() {
            self.rare_mut().linux_rtt = linux;
        }
    }

    /// The retransmission timeout (s), back-off included, of whichever estimator the
    /// block runs.
    #[inline]
    pub fn rto_s(&self, p: &RttParams) -> f64 {
        match self.linux_rtt() {
            Some(l) => l.rto_s(),
            None => self.rtt.timeout(p),
        }
    }

    /// The smoothed RTT (s) of whichever estimator the block runs (0 before the first
    /// sample): Linux's `srtt_us` in µs with the Linux RTO, else ns-2's in whole ticks.
    /// The SACK recovery's probe timeout and RACK's reordering window read it (Linux
    /// `tcp_schedule_loss_probe`, `tcp_rack_reo_wnd`).
    #[inline]
    pub fn srtt_s(&self, p: &RttParams) -> f64 {
        match self.linux_rtt() {
            Some(l) => l.srtt_s(),
            None => self.rtt.srtt_s(p),
        }
    }

    /// Back the RTO off after an expiry.
    pub fn backoff_rto(&mut self, p: &RttParams) {
        match self.linux_rtt_mut() {
            Some(l) => l.on_backoff(),
            None => self.rtt.backoff(p),
        }
    }

    /// Does this block serve more than one connection?
    #[inline]
    pub fn is_shared(&self) -> bool {
        self.sharing().is_some()
    }

    pub fn members(&self) -> &[u32] {
        self.sharing().map_or(&[], |s| &s.members)
    }

    /// Add connection `i` to the members (the first makes the block shared).
    fn add_member(&mut self, i: u32) {
        self.rare_mut().sharing.get_or_insert_with(Default::default).members.push(i);
    }

    /// The TCP session this block runs, if any.
    pub fn session(&self) -> Option<&crate::tcp::session::Session> {
        self.rare.as_deref().and_then(|r| r.session.as_deref())
    }

    /// Start the plan a start-up policy returned for connection `conn`.
    pub(crate) fn start_plan(&mut self, conn: u32, plan: StartPlan) {
        self.plan_active = plan.is_active();
        self.plan_conn = conn;
        let (low_prio, pacer) = (plan.low_prio.map(Box::new), plan.pacer.map(Box::new));
        if low_prio.is_some() || pacer.is_some() || self.rare.is_some() {
            let r = self.rare_mut();
            r.low_prio = low_prio;
            r.pacer = pacer;
        }
        self.burst = plan.burst;
        self.plan_through_losses = plan.through_losses;
        if !self.has_pacer() {
            self.pace_timer.cancel();
        }
        self.refresh_hooks();
    }

    /// End the start-up plan (a loss, or the policy left its phase).
    #[inline]
    pub(crate) fn end_plan(&mut self) {
        self.plan_active = false;
        if let Some(r) = self.rare.as_deref_mut() {
            r.low_prio = None;
            r.pacer = None;
        }
        self.burst = None;
        self.plan_through_losses = false;
        self.pace_timer.cancel();
        self.refresh_hooks();
    }

    /// Hold new data until the pace timer releases the next burst (`hold`), or not.
    #[inline]
    pub(crate) fn set_burst_wait(&mut self, hold: bool) {
        self.burst_wait = hold;
        self.refresh_hooks();
    }

    /// Recompute [`ControlBlock::hooks`] from the block's state.
    #[inline]
    pub(crate) fn refresh_hooks(&mut self) {
        self.hooks = self.needed_hooks();
    }

    /// The hook bits the block's state needs now.
    fn needed_hooks(&self) -> u8 {
        let mut h = self.static_hooks;
        if self.plan_active {
            // The policy's `on_send` marks and `on_ack`.
            h |= hook::SEND | hook::ACK;
        }
        if self.is_shared() || self.burst_wait || self.burst.is_some() || self.has_pacer() {
            h |= hook::SEND_MUCH;
        }
        h
    }

    /// Does `hooks` have every bit the state needs (its invariant)? The sender test
    /// rig checks this after every step.
    pub fn hooks_cover_state(&self) -> bool {
        let needed = self.needed_hooks();
        self.hooks & needed == needed
    }
}

/// Bits of [`ControlBlock::hooks`].
pub(crate) mod hook {
    /// Per-segment work in `output` besides ns-2's: the rule's `on_send`, the
    /// start-up plan's marks, ECN marks, the tcp-asym header, the sent-segment log.
    pub const SEND: u8 = 1;
    /// Per-ack work in `recv` besides ns-2's: the tcp-asym echo, ECN echoes, the
    /// sent-segment detail, the start-up policy's `on_ack`, the socket buffer's room.
    pub const ACK: u8 = 2;
    /// `send_much` may be held or limited besides ns-2's window and maxburst: a shared
    /// block's scheduler, a plan's pacer or burst limit, a pending burst gap, a rule
    /// that paces bursts.
    pub const SEND_MUCH: u8 = 4;
    /// The start-up policy gives a verdict on loss events (any policy but ns-2's and
    /// no-restart, whose verdict is always `Cut`).
    pub const LOSS: u8 = 8;
}

/// Every TCP sender of a simulation: connections and the control blocks they send
/// under. Events for connection `i` go through here, so that a shared block's other
/// members are served after each.
#[derive(Default)]
pub struct TcpSenders {
    pub conns: Vec<TcpConn>,
    pub cbs: Vec<ControlBlock>,
}

impl TcpSenders {
    pub fn with_capacity(n: usize) -> Self {
        TcpSenders { conns: Vec::with_capacity(n), cbs: Vec::with_capacity(n) }
    }

    /// Add a connection with its own control block; returns the connection's index.
    pub fn push(&mut self, mut conn: TcpConn, cb: ControlBlock) -> u32 {
        conn.cb = self.cbs.len() as u32;
        if cb.detail {
            conn.keep_detail();
        }
        self.cbs.push(cb);
        self.conns.push(conn);
        (self.conns.len() - 1) as u32
    }

    /// Add a connection that sends under connection `with`'s control block (which
    /// becomes shared). The connection's own parameters must match the block's.
    pub fn push_sharing(&mut self, mut conn: TcpConn, with: u32) -> u32 {
        let b = self.conns[with as usize].cb;
        let i = self.conns.len() as u32;
        conn.cb = b;
        if self.cbs[b as usize].detail {
            conn.keep_detail();
        }
        let cb = &mut self.cbs[b as usize];
        if !cb.is_shared() {
            cb.add_member(with);
        }
        cb.add_member(i);
        cb.refresh_hooks();
        self.conns.push(conn);
        i
    }

    /// Add a connection that opens a TCP session (`tcp::session`): its own block
    /// becomes the session's, with the given scheduler and recovery. Returns the
    /// connection's index; further members join with [`TcpSenders::join_session`].
    pub fn push_session(
        &mut self,
        mut conn: TcpConn,
        cb: ControlBlock,
        sched: crate::config::SessionScheduler,
        later_acks: bool,
        weight: u32,
    ) -> u32 {
        use crate::tcp::session::{scheduler::Scheduler, Session};
        conn.in_session = true;
        let agent = conn.agent;
        let thresh = conn.params().numdupacks.max(1) as u32;
        let i = self.push(conn, cb);
        let b = self.conns[i as usize].cb as usize;
        let mut s = Session::new(i, agent, Scheduler::new(sched), thresh, later_acks);
        s.slots[0] = crate::tcp::session::scheduler::Slot::new(weight);
        self.cbs[b].rare_mut().session = Some(Box::new(s));
        self.cbs[b].add_member(i);
        // A block with members is shared: its `send_much` hook must be live.
        self.cbs[b].refresh_hooks();
        i
    }

    /// Add a connection to the TCP session of connection `with` (see `push_session`).
    pub fn join_session(&mut self, mut conn: TcpConn, with: u32, weight: u32) -> u32 {
        conn.in_session = true;
        let i = self.push_sharing(conn, with);
        let b = self.conns[i as usize].cb as usize;
        self.cbs[b].session_mut().expect("`with` is a session member").add_member(i, weight);
        i
    }

    /// How long the session of member `i` outlives its last open member (spec F.4).
    pub fn set_session_linger(&mut self, i: u32, linger: crate::time::SimTime) {
        let b = self.conns[i as usize].cb as usize;
        self.cbs[b].session_mut().expect("a session member").linger = linger;
    }

    /// Put connection `i` in sub-session `sub` of its session (the proxy variant,
    /// spec D.3); `n_subs` is the session's number of sub-sessions.
    pub fn set_subsession(&mut self, i: u32, sub: u16, n_subs: usize) {
        let b = self.conns[i as usize].cb as usize;
        let s = self.cbs[b].session_mut().expect("a session member");
        let slot = s.slot_of(i) as usize;
        s.members[slot].sub = sub;
        s.proxy = n_subs > 0;
        s.losswin.resize(n_subs.max(1), None);
    }

    /// `setwt(conn, n)` (thesis §7.1): the scheduling weight of session member `i`,
    /// from the next scheduling decision on.
    pub fn set_weight(&mut self, i: u32, weight: u32) {
        use crate::tcp::session::scheduler::MAX_WEIGHT;
        let b = self.conns[i as usize].cb as usize;
        let s = self.cbs[b].session_mut().expect("a session member");
        let slot = s.slot_of(i) as usize;
        s.slots[slot].weight = weight.clamp(1, MAX_WEIGHT);
        s.sched.weights_changed(&mut s.slots);
    }

    /// `resetwt(conn)` (thesis §7.1): every member of `i`'s session back to weight 1.
    pub fn reset_weights(&mut self, i: u32) {
        let b = self.conns[i as usize].cb as usize;
        let s = self.cbs[b].session_mut().expect("a session member");
        for x in &mut s.slots {
            x.weight = 1;
        }
        s.sched.weights_changed(&mut s.slots);
    }

    pub fn len(&self) -> usize {
        self.conns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    /// Hint connection `i`'s lines (`crate::prefetch`).
    #[inline(always)]
    pub fn prefetch_conn(&self, i: u32) {
        crate::prefetch::elem(&self.conns, i as usize);
    }

    /// Hint the control block, the retransmission timer's slot and the first link of
    /// connection `i` (the link its `output` sends the segments an ack releases on;
    /// reads the connection: call it after [`TcpSenders::prefetch_conn`]).
    #[inline(always)]
    pub fn prefetch_block(&self, i: u32, sched: &crate::engine::Scheduler, net: &crate::net::Network) {
        if let Some(c) = self.conns.get(i as usize) {
            crate::prefetch::elem(&self.cbs, c.cb as usize);
            sched.prefetch_timer(c.rtx_timer());
            net.prefetch_link(c.first_link);
        }
    }

    /// Connection `i` and its control block.
    #[inline]
    pub fn get(&self, i: u32) -> (&TcpConn, &ControlBlock) {
        let c = &self.conns[i as usize];
        (c, &self.cbs[c.cb as usize])
    }

    /// Run `f` on connection `i` and its block, then serve a shared block's others.
    #[inline(always)]
    fn with(&mut self, cx: &mut Ctx, i: u32, f: impl FnOnce(&mut TcpConn, &mut ControlBlock, &mut Ctx)) {
        let c = &mut self.conns[i as usize];
        let cb = &mut self.cbs[c.cb as usize];
        if !cb.is_shared() {
            return f(c, cb, cx);
        }
        let b = c.cb;
        if cb.has_session() {
            f(c, cb, cx);
            return crate::tcp::session::serve(self, cx, b);
        }
        cb.others_flight = cb.flight_total() - c.flight();
        f(c, cb, cx);
        cb.set_flight_total(cb.others_flight + c.flight());
        self.serve(cx, b);
    }

    /// An ack arrives for connection `i`.
    /// Always inlined into the dispatch loop, as ns-2's `recv` was before the split
    /// (measured: out of line it costs ~4% more instructions per packet on bench b).
    #[inline(always)]
    pub fn recv(&mut self, cx: &mut Ctx, i: u32, pkt: crate::engine::PktId) {
        let c = &mut self.conns[i as usize];
        let cb = &mut self.cbs[c.cb as usize];
        if !cb.is_shared() {
            return c.recv(cb, cx, pkt);
        }
        if cb.has_session() {
            return crate::tcp::session::recv(self, cx, i, pkt);
        }
        self.with(cx, i, |c, cb, cx| c.recv(cb, cx, pkt));
    }

    /// A timer of connection `i` fires.
    #[inline]
    pub fn timer(&mut self, cx: &mut Ctx, i: u32, which: u8, gen: u32) {
        if which == crate::tcp::session::TIMER_SESSION {
            return crate::tcp::session::timeout(self, cx, i, gen);
        }
        if which == crate::tcp::sender::TIMER_RTX && self.get(i).1.has_session() {
            crate::tcp::session::syn_timeout(self, cx, i, gen);
            let b = self.conns[i as usize].cb;
            return crate::tcp::session::serve(self, cx, b);
        }
        self.with(cx, i, |c, cb, cx| c.timer(cb, cx, which, gen));
    }

    /// The application hands connection `i` a transfer of `n` packets.
    pub fn start_transfer(&mut self, cx: &mut Ctx, i: u32, n: i64, round: u32, bytes: u64) {
        self.with(cx, i, |c, cb, cx| c.start_transfer(cb, cx, n, round, bytes));
    }

    /// An infinite source starts on connection `i`.
    pub fn start_infinite(&mut self, cx: &mut Ctx, i: u32) {
        self.with(cx, i, |c, cb, cx| c.start_infinite(cb, cx));
    }

    /// Connection `i` becomes a fresh connection (`TcpConn::renew`); false if it is
    /// busy or shares its block (a session's connections are not renewed alone).
    pub fn renew(&mut self, cx: &mut Ctx, i: u32) -> bool {
        let c = &mut self.conns[i as usize];
        let cb = &mut self.cbs[c.cb as usize];
        if cb.is_shared() {
            return false;
        }
        c.renew(cb, cx)
    }

    /// Connection `i` is torn down by its application (`TcpConn::close`).
    pub fn close(&mut self, cx: &mut Ctx, i: u32) {
        if self.get(i).1.has_session() && !self.conns[i as usize].torn_down {
            crate::tcp::session::member_closed(self, i, cx.now());
        }
        self.with(cx, i, |c, cb, cx| c.close(cb, cx));
    }

    /// Connection `i` gets `n` more packets without a recorded transfer (Telnet).
    pub fn sendmsg_pkts(&mut self, cx: &mut Ctx, i: u32, n: i64) {
        self.with(cx, i, |c, cb, cx| c.sendmsg_pkts(cb, cx, n));
    }

    /// The scheduler of a shared block: round robin over the members, one new
    /// segment per turn, while the window has room and someone has data.
    fn serve(&mut self, cx: &mut Ctx, b: u32) {
        let n = self.cbs[b as usize].members().len();
        let mut idle_turns = 0;
        while idle_turns < n {
            let cb = &mut self.cbs[b as usize];
            let k = {
                let s = cb.sharing_mut().expect("a shared block");
                let k = s.members[s.next_turn % n];
                s.next_turn = (s.next_turn + 1) % n;
                k
            };
            let c = &mut self.conns[k as usize];
            cb.others_flight = cb.flight_total() - c.flight();
            let sent = c.send_turn(cb, cx);
            cb.set_flight_total(cb.others_flight + c.flight());
            idle_turns = if sent { 0 } else { idle_turns + 1 };
        }
    }

    /// Packets in flight under block `b` (all its connections).
    pub fn block_flight(&self, b: u32) -> i64 {
        let cb = &self.cbs[b as usize];
        if cb.is_shared() {
            cb.members().iter().map(|&k| self.conns[k as usize].flight()).sum()
        } else {
            self.conns.iter().filter(|c| c.cb == b).map(|c| c.flight()).sum()
        }
    }
}
