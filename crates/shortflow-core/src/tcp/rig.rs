//! A test rig for senders, in the style of smoltcp's socket tests: build one or more
//! connections on a two-node network, hand them transfers, feed acks at given times,
//! and read back exactly which segments left and when (the link's `+` trace, taken
//! at the moment the sender hands a segment to the network).
//!
//! Connection `k` has agent `2k` at node 0 and sends to node 1; the rig plays the
//! receiver: acks are injected with [`Rig::ack`]. Data segments that reach node 1 are
//! discarded. Time only moves with [`Rig::run_to`] (firing the senders' timers).

use std::sync::Arc;

use crate::config::TcpConfig;
use crate::engine::{Event, Scheduler};
use crate::net::link::{Link, LinkClass, Links};
use crate::net::packet::Packet;
use crate::net::queue::{AnyQueue, DropTail};
use crate::net::routing::Routes;
use crate::net::Network;
use crate::results::PacketTrace;
use crate::rng::Rng;
use crate::tcp::control::{ControlBlock, TcpSenders};
use crate::tcp::sender::{TcpConn, TcpParams};
use crate::tcp::startup::AnyStartup;
use crate::time::SimTime;
use crate::world::{Ctx, Shared};

/// A segment seen leaving a sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// Send time in µs.
    pub t_us: u64,
    pub conn: u32,
    pub seq: i64,
    pub low_prio: bool,
}

pub fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

pub struct Rig {
    pub sched: Scheduler,
    pub net: Network,
    pub shared: Shared,
    pub senders: TcpSenders,
    seen: usize,
    /// Every packet that reached node 1 (the rig's receiver), in arrival order.
    pub arrived: Vec<Packet>,
}

/// `TcpConfig` from JSON (only the fields a test changes).
pub fn tcp(json: &str) -> TcpConfig {
    serde_json::from_str(json).expect("TcpConfig JSON")
}

impl Rig {
    /// `n` connections with parameters `tcp`; with `share`, all send under the first
    /// one's control block. Every connection gets a clone of `startup`.
    pub fn new(tcp: &TcpConfig, startup: AnyStartup, n: u32, share: bool) -> Rig {
        let p = Arc::new(TcpParams::from_config("tcp", tcp).expect("valid TcpConfig"));
        // 1 Tb/s, no delay, a queue that never fills: the trace shows send times.
        let link = Link::new(1, 0, AnyQueue::DropTail(DropTail::new(1_000_000)));
        let mut net = Network::new(
            Links::from([(0, link)]),
            vec![LinkClass::new(1_000_000_000_000, SimTime::ZERO)],
            ["s", "d"].into_iter().collect(),
            Routes::new(2, &[(0, 1)]),
            Rng::for_source(1, "queues"),
            Some(PacketTrace::default()),
        );
        net.links.set_traced(0, true);
        let shared = Shared { flow_names: (0..n).map(|k| format!("c{k}")).collect(), ..Default::default() };
        let mut senders = TcpSenders::default();
        for k in 0..n {
            let mut c = TcpConn::new(2 * k, k, 0, 1, 2 * k + 1, 0x0A00_0001, p.clone());
            c.first_link = 0;
            if share && k > 0 {
                senders.push_sharing(c, 0);
            } else {
                senders.push(c, ControlBlock::new(&p, startup.clone(), 0.0));
            }
        }
        Rig { sched: Scheduler::new(), net, shared, senders, seen: 0, arrived: Vec::new() }
    }

    /// `n` connections in one TCP session (`tcp::session`) with `sched`, later acks
    /// on or off, and the given weights (1 where missing).
    pub fn session(
        tcp: &TcpConfig,
        n: u32,
        sched: crate::config::SessionScheduler,
        later_acks: bool,
        weights: &[u32],
    ) -> Rig {
        let mut r = Rig::new(tcp, AnyStartup::default(), 0, false);
        let p = Arc::new(TcpParams::from_config("tcp", tcp).expect("valid TcpConfig"));
        r.shared.flow_names = (0..n).map(|k| format!("c{k}")).collect();
        for k in 0..n {
            let mut c = TcpConn::new(2 * k, k, 0, 1, 2 * k + 1, 0x0A00_0001, p.clone());
            c.first_link = 0;
            let w = weights.get(k as usize).copied().unwrap_or(1);
            if k == 0 {
                r.senders.push_session(c, ControlBlock::new(&p, AnyStartup::default(), 0.0), sched, later_acks, w);
            } else {
                r.senders.join_session(c, 0, w);
            }
        }
        r
    }

    /// One connection with its own block.
    pub fn one(tcp: &TcpConfig, startup: AnyStartup) -> Rig {
        Rig::new(tcp, startup, 1, false)
    }

    fn cx(&mut self) -> (Ctx<'_>, &mut TcpSenders) {
        (Ctx { sched: &mut self.sched, net: &mut self.net, shared: &mut self.shared }, &mut self.senders)
    }

    /// Fire every event up to and including `t`, then set the clock to `t`.
    pub fn run_to(&mut self, t: SimTime) {
        while let Some(ev) = self.sched.pop(t) {
            let (mut cx, senders) = self.cx();
            match ev {
                Event::Arrive { pkt, .. } => {
                    // The rig is the receiver.
                    let p = *cx.net.pool.get(pkt);
                    cx.net.pool.free(pkt);
                    drop(cx);
                    self.arrived.push(p);
                }
                Event::TxDone { link } => cx.net.tx_done(cx.sched, link),
                Event::Timer { agent, timer, gen } => senders.timer(&mut cx, agent / 2, timer, gen),
                Event::App { .. } | Event::Element { .. } => {}
            }
        }
        self.sched.advance_to(t);
        self.check_hooks();
    }

    /// Every block's hook bits cover its state (`ControlBlock::hooks_cover_state`):
    /// checked after every step, so each rig test also tests the fast paths' gate.
    fn check_hooks(&self) {
        for (b, cb) in self.senders.cbs.iter().enumerate() {
            assert!(cb.hooks_cover_state(), "control block {b}: hooks {:#x} miss a live hook", cb.hooks);
        }
    }

    /// At time `t`, connection `k`'s application hands over `n` packets.
    pub fn transfer(&mut self, t: SimTime, k: u32, n: i64) {
        self.run_to(t);
        let (mut cx, senders) = self.cx();
        senders.start_transfer(&mut cx, k, n, 0, n as u64 * 1000);
        self.check_hooks();
    }

    /// At time `t`, connection `k`'s application writes `n` packets without a recorded
    /// transfer (ns-2 `sendmsg`).
    pub fn write(&mut self, t: SimTime, k: u32, n: i64) {
        self.run_to(t);
        let (mut cx, senders) = self.cx();
        senders.sendmsg_pkts(&mut cx, k, n);
        self.check_hooks();
    }

    /// At time `t`, the applications of several session members hand over their
    /// transfers `(k, n)` together (requests arriving in one burst): the session's
    /// scheduler runs once, after all of them.
    pub fn transfers_together(&mut self, t: SimTime, ks: &[(u32, i64)]) {
        self.run_to(t);
        let (mut cx, senders) = self.cx();
        for &(k, n) in ks {
            let c = &mut senders.conns[k as usize];
            let cb = &mut senders.cbs[c.cb as usize];
            c.start_transfer(cb, &mut cx, n, 0, n as u64 * 1000);
        }
        let b = senders.conns[ks[0].0 as usize].cb;
        crate::tcp::session::serve(senders, &mut cx, b);
    }

    /// At time `t`, connection `k`'s infinite (FTP) source starts.
    pub fn infinite(&mut self, t: SimTime, k: u32) {
        self.run_to(t);
        let (mut cx, senders) = self.cx();
        senders.start_infinite(&mut cx, k);
        self.check_hooks();
    }

    /// At time `t`, connection `k` is torn down by its application.
    pub fn close(&mut self, t: SimTime, k: u32) {
        self.run_to(t);
        let (mut cx, senders) = self.cx();
        senders.close(&mut cx, k);
        self.check_hooks();
    }

    /// At time `t`, an ack `ackno` (with `ece`) reaches connection `k`.
    pub fn ack_ecn(&mut self, t: SimTime, k: u32, ackno: i64, ece: bool) {
        self.run_to(t);
        let mut pkt = Packet::ack(k, 0, 2 * k, 40, ackno, t);
        pkt.ecn_echo = ece;
        let (mut cx, senders) = self.cx();
        let id = cx.net.pool.alloc(pkt);
        senders.recv(&mut cx, k, id);
        self.check_hooks();
    }

    /// At time `t`, an ack `ackno` carrying SACK blocks `[left, right)` (first block
    /// first) reaches connection `k`; `ts_echo` is the timestamp it echoes.
    pub fn ack_sack_ts(&mut self, t: SimTime, k: u32, ackno: i64, blocks: &[(i64, i64)], ts_echo: SimTime) {
        self.run_to(t);
        let mut pkt = Packet::ack(k, 0, 2 * k, 40, ackno, t);
        pkt.ts_echo = ts_echo;
        let (mut cx, senders) = self.cx();
        let id = cx.net.pool.alloc(pkt);
        if !blocks.is_empty() {
            let mut o = crate::net::packet::PktOptions::default();
            for &(l, r) in blocks {
                assert!(o.sack.push(l, r), "at most MAX_SACK_BLOCKS blocks");
            }
            cx.net.pool.set_options(id, o);
        }
        senders.recv(&mut cx, k, id);
    }

    /// At time `t`, an ack `ackno` with SACK blocks reaches connection `k`.
    pub fn ack_sack(&mut self, t: SimTime, k: u32, ackno: i64, blocks: &[(i64, i64)]) {
        self.ack_sack_ts(t, k, ackno, blocks, SimTime::ZERO);
    }

    /// At time `t`, an ack `ackno` advertising a receive window of `segs` segments (a
    /// sink with a slow reader, `PktOptions::rwnd`; not a window update) reaches
    /// connection `k`.
    pub fn ack_rwnd(&mut self, t: SimTime, k: u32, ackno: i64, segs: u32) {
        self.run_to(t);
        let pkt = Packet::ack(k, 0, 2 * k, 40, ackno, t);
        let (mut cx, senders) = self.cx();
        let id = cx.net.pool.alloc(pkt);
        let o = crate::net::packet::PktOptions {
            rwnd: Some(crate::net::packet::Rwnd { segs, update: false }),
            ..Default::default()
        };
        cx.net.pool.set_options(id, o);
        senders.recv(&mut cx, k, id);
        self.check_hooks();
    }

    pub fn ack(&mut self, t: SimTime, k: u32, ackno: i64) {
        self.ack_ecn(t, k, ackno, false);
    }

    /// Segments sent since the last call.
    pub fn sent(&mut self) -> Vec<Sent> {
        let tr = self.net.trace.as_ref().expect("rig traces");
        let mut out = Vec::new();
        for i in self.seen..tr.time_ns.len() {
            if tr.event[i] == b'+' {
                out.push(Sent {
                    t_us: tr.time_ns[i] / 1000,
                    conn: tr.flow[i],
                    seq: tr.seqno[i],
                    low_prio: tr.low_prio[i],
                });
            }
        }
        self.seen = tr.time_ns.len();
        out
    }

    /// Sequence numbers sent since the last call, at time `t` (in ms) each.
    pub fn sent_seqs(&mut self) -> Vec<i64> {
        self.sent().iter().map(|s| s.seq).collect()
    }

    pub fn cwnd(&self, k: u32) -> f64 {
        self.senders.get(k).1.tcb.cwnd
    }
    pub fn ssthresh(&self, k: u32) -> i32 {
        self.senders.get(k).1.tcb.ssthresh
    }
    pub fn conn(&self, k: u32) -> &TcpConn {
        self.senders.get(k).0
    }
    pub fn block(&self, k: u32) -> &ControlBlock {
        self.senders.get(k).1
    }
}
