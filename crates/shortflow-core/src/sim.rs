//! Building a simulation from a [`SimConfig`] (validating every field), running the
//! event loop, and collecting [`RunResults`].

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use crate::config::*;
use crate::engine::{Event, PktId, Scheduler};
use crate::error::{err, positive_time_s, suggest, time_s, ConfigError};
use crate::net::build::{build_network, find_node, Topology};
use crate::net::udp_rx::LoopPosition;
use crate::net::{Arrival, Network};
use crate::path::PathRegistry;
use crate::results::*;
use crate::rng::Rng;
use crate::tcp::control::{ControlBlock, TcpSenders};
use crate::tcp::sender::{TcpConn, TcpParams};
use crate::tcp::sink::{SinkParams, TcpSink};
use crate::tcp::startup::AnyStartup;
use crate::time::SimTime;
use crate::traffic::build::{build_apps, FlowInfo};
use crate::traffic::Apps;
use crate::world::{Ctx, Notice, Shared};

#[cfg(test)]
#[path = "sim_lookahead_tests.rs"]
mod lookahead_tests;
#[path = "sim_memory.rs"]
mod memory;
#[cfg(test)]
#[path = "sim_prefetch_tests.rs"]
mod prefetch_tests;
#[path = "sim_results.rs"]
mod results;
#[cfg(test)]
#[path = "sim_udp_tests.rs"]
mod udp_tests;
#[cfg(test)]
#[path = "sim_vqueue_tests.rs"]
mod vqueue_tests;
pub(crate) use memory::advise_huge_pages;

/// Which table an agent index points into.
#[derive(Clone, Copy, Debug)]
enum AgentRef {
    Sender(u32),
    Sink(u32),
    UdpSink(u32),
    /// The server endpoint of a Web workload (the application's index): control
    /// packets (SYNs, requests) are delivered to it.
    WebServer(u32),
}

/// Per-flow handles: a TCP flow's sender and sink, or a UDP flow's sink (12 bytes per
/// flow, not the 24 of three `Option<u32>`s: a flow is one or the other).
#[derive(Clone, Copy, Debug)]
enum FlowAgents {
    Tcp { sender: u32, sink: u32 },
    Udp { sink: u32 },
}
const _: () = assert!(std::mem::size_of::<FlowAgents>() == 12);

/// A packet delivered to UDP sink `k` (its counters are the network's, `net::udp_rx`:
/// most deliveries are credited there when their last hop starts, without this event).
#[inline]
fn udp_sink_recv(cx: &mut Ctx, k: u32, pkt: PktId) {
    let size = cx.net.pool.get(pkt).size;
    cx.net.pool.free(pkt);
    cx.sched.udp_sinks.recv(k, size);
}

/// A built, runnable simulation.
pub struct Simulation {
    cfg: SimConfig,
    sched: Scheduler,
    net: Network,
    shared: Shared,
    senders: TcpSenders,
    sinks: Vec<TcpSink>,
    agents: Vec<AgentRef>,
    apps: Apps,
    flows: Vec<FlowAgents>,
    stop: SimTime,
    /// Every event at or before this time has fired (the last `run_until` that ran
    /// dry): with `now` and the current sequence number, tells which elided UDP
    /// arrivals have happened when results are read (`net::udp_rx`).
    drained_to: Option<SimTime>,
    /// Prefetch what the next events will touch (`prefetch_ahead`): on for runs whose
    /// per-connection state is larger than the caches (`PREFETCH_MIN_CONNS`).
    prefetch: bool,
    /// Where the timer pipeline of `prefetch_timers` stands.
    timer_pf: TimerAhead,
}

/// The pipeline of `Simulation::prefetch_timers`: the timer slot it follows (the next
/// timer likely to fire) and how far the lines its firing reads have been hinted.
#[derive(Clone, Copy, Debug)]
struct TimerAhead {
    slot: u32,
    /// 1: the slot hinted; 2: its agent's entry; 3: the connection or sink; 4: the
    /// connection's control block, timer slot and first link.
    stage: u8,
    agent: u32,
    /// The far-bucket opening whose timers are being followed
    /// (`Scheduler::opened_timers`), and the next of them to hint.
    opened_gen: u32,
    opened_pos: u32,
}

impl Default for TimerAhead {
    fn default() -> Self {
        TimerAhead { slot: u32::MAX, stage: 0, agent: 0, opened_gen: 0, opened_pos: 0 }
    }
}

/// TCP connections from which a run prefetches (`Simulation::prefetch_ahead`): with
/// their hosts and access links about 2 KB each, 2 048 of them (4 MB) are twice the
/// 2 MB level-2 cache of the development machine. Below, the state mostly stays cached
/// and a hint would cost instructions for nothing. (A hint never changes a result.)
pub(crate) const PREFETCH_MIN_CONNS: usize = 2048;

/// Far timers (`Scheduler::enable_far_timers`), in the runs that prefetch: buckets of
/// 2^20 ns (1.05 ms), 4 096 of them (4.4 s) in the ring.
const FAR_TIMER_WIDTH_BITS: u32 = 20;
const FAR_TIMER_BUCKETS: usize = 4096;

/// Prefetch distances, in arrivals of one lane (`Simulation::prefetch_lane`): the link
/// and the packet; then (reading them) the agent's state or the route entry; then
/// (reading those) the connection's control block and timer slot, or the next link's
/// fold state and its far end's route entry.
const PF_LANE: [usize; 3] = [10, 5, 1];
/// The same for a link's queue at its transmission-done, in packets behind the head
/// (`Simulation::prefetch_queue`; the head leaves at this event).
const PF_QUEUE: [usize; 3] = [6, 3, 1];

/// Build and run in one call.
pub fn run(cfg: &SimConfig) -> Result<RunResults, ConfigError> {
    let t0 = std::time::Instant::now();
    let mut sim = Simulation::new(cfg.clone())?;
    sim.run_to_end();
    let mut r = sim.into_results();
    r.stats.wall_s = t0.elapsed().as_secs_f64();
    Ok(r)
}

/// Memory a simulation holds once built, before its first event: every TCP connection
/// exists and is idle. Measured as the growth of the process's resident set (Linux
/// `/proc/self/status` `VmRSS`) across `Simulation::new`, so it counts everything the
/// connections bring along (agents, applications, their nodes, links and queues,
/// routes). `None` where the resident set cannot be read. Call it in a fresh process:
/// memory freed by earlier work would be reused and hide part of the growth.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Footprint {
    pub rss_before_bytes: u64,
    pub rss_after_bytes: u64,
    pub tcp_connections: u64,
}

impl Footprint {
    /// Resident-set growth per TCP connection (bytes).
    pub fn bytes_per_connection(&self) -> f64 {
        self.rss_after_bytes.saturating_sub(self.rss_before_bytes) as f64 / self.tcp_connections.max(1) as f64
    }
}

/// See [`Footprint`].
pub fn idle_footprint(cfg: &SimConfig) -> Result<Option<Footprint>, ConfigError> {
    let cfg = cfg.clone();
    let Some(before) = resident_bytes() else { return Ok(None) };
    let sim = Simulation::new(cfg)?;
    let Some(after) = resident_bytes() else { return Ok(None) };
    let fp = Footprint { rss_before_bytes: before, rss_after_bytes: after, tcp_connections: sim.senders.len() as u64 };
    drop(sim);
    Ok(Some(fp))
}

/// The process's resident set in bytes (Linux), or `None`.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.trim_start_matches("VmRSS:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

impl Simulation {
    /// Validate `cfg` and build the topology, agents and applications.
    pub fn new(cfg: SimConfig) -> Result<Simulation, ConfigError> {
        let stop = positive_time_s("duration_s", cfg.duration_s)?;
        let Topology { mut net, node_ix, node_addr, replicas } = build_network(&cfg)?;
        let node = |field: String, name: &str| -> Result<u32, ConfigError> {
            find_node(&cfg, &node_ix, &replicas, field, name)
        };
        let (paths, gw_ix) = PathRegistry::from_config(&cfg.paths, &cfg.gateways)?;
        // ---- flows and agents: the explicit flows, then every replica's copies
        let n_replica: usize = cfg.replicas.iter().map(|r| r.count as usize).sum();
        let n_flows = cfg.flows.len() + n_replica;
        let name_bytes = cfg.flows.iter().map(|f| f.name.len()).sum::<usize>()
            + cfg
                .replicas
                .iter()
                .map(|r| r.count as usize * (r.name.len() + 1 + crate::net::build::digits(r.count)))
                .sum::<usize>();
        let mut flow_names = crate::names::Names::with_capacity(n_flows, name_bytes);
        for f in &cfg.flows {
            flow_names.push(&f.name);
        }
        for r in &cfg.replicas {
            let prefix = format!("{}.", r.name);
            for i in 1..=r.count {
                flow_names.push_indexed(&prefix, i.into());
            }
        }
        let n_ftp_apps = cfg.apps.iter().filter(|a| matches!(a, AppConfig::Ftp { .. })).count()
            + cfg.replicas.iter().filter(|r| r.app.is_some()).map(|r| r.count as usize).sum::<usize>();
        let shared = Shared {
            paths,
            node_addr: node_addr.clone(),
            flow_names,
            ack_trace: if cfg.trace.acks { Some(Box::default()) } else { None },
            cwnd_trace: if cfg.trace.cwnd { Some(Box::default()) } else { None },
            // Sized up front (an FTP app starts one transfer; a flow has at most one
            // pending list): grown by doubling, at 10^5 connections the two held 1.31x
            // the room they use (60 B per connection) and, while growing, a copy of
            // both. Counted alike for a replica and its copies written out, whose
            // runs are the same to the byte (tests/replicas.rs).
            transfers: Vec::with_capacity(n_ftp_apps),
            recv_pending: Vec::with_capacity(n_flows),
            ..Default::default()
        };
        advise_huge_pages(&shared.transfers);
        advise_huge_pages(&shared.recv_pending);
        let mut flow_ix: HashMap<&str, u32> = HashMap::with_capacity(cfg.flows.len());
        // Sized up front: with 10 000 connections, doubling growth would leave freed
        // copies of these arrays resident (see `idle_footprint`).
        let n_tcp = cfg.flows.iter().filter(|f| matches!(f.transport, Transport::Tcp)).count() + n_replica;
        let mut b = AgentBuild {
            senders: TcpSenders::with_capacity(n_tcp),
            sinks: Vec::with_capacity(n_tcp),
            agents: Vec::with_capacity(n_tcp * 2 + (n_flows - n_tcp)),
            flows: Vec::with_capacity(n_flows),
            infos: Vec::with_capacity(n_flows),
            params_seen: HashMap::new(),
            params_last: None,
            sessions: SessionTable::default(),
        };
        advise_huge_pages(&b.senders.conns);
        advise_huge_pages(&b.senders.cbs);
        advise_huge_pages(&b.sinks);
        advise_huge_pages(&b.agents);
        advise_huge_pages(&b.flows);
        let resolve_gateway = |field: &str, name: &str| -> Result<usize, ConfigError> {
            gw_ix.get(name).copied().ok_or_else(|| {
                err(field, name, format!("unknown gateway{}", suggest(name, cfg.gateways.iter().map(|g| &g.name))))
            })
        };
        // Created here: it holds the UDP sinks' counters (`Scheduler::udp_sinks`).
        let mut sched = Scheduler::new();
        let mut has_udp_sink = vec![false; net.node_names.len()];
        for (i, fl) in cfg.flows.iter().enumerate() {
            let f = format!("flows[{i}]");
            if fl.name.is_empty() {
                return Err(err(format!("{f}.name"), "\"\"", "flow names must not be empty"));
            }
            if flow_ix.insert(fl.name.as_str(), i as u32).is_some() {
                return Err(err(format!("{f}.name"), &fl.name, "duplicate flow name"));
            }
            if let Some((r, _)) = crate::net::build::replica_member(&cfg, &fl.name, None) {
                return Err(err(
                    format!("{f}.name"),
                    &fl.name,
                    format!("also the name of a flow of replicas[{r}] ({})", cfg.replicas[r].name),
                ));
            }
            let s = node(format!("{f}.src"), &fl.src)?;
            let d = node(format!("{f}.dst"), &fl.dst)?;
            match fl.transport {
                Transport::Tcp => {
                    let p = b.share_params(TcpParams::from_config(&format!("{f}.tcp"), &fl.tcp)?);
                    let sink_params = SinkParams::from_config(&format!("{f}.sink"), &fl.sink)?;
                    b.tcp_flow(&cfg, &net, &node_addr, &f, &fl.name, (s, d), fl, p, sink_params, &resolve_gateway)?;
                }
                Transport::Udp => {
                    check_route(&net, &f, fl, s, d, false)?;
                    let agent = b.agents.len() as u32;
                    let ui = sched.udp_sinks.add_sink();
                    net.udp.add_sink(i as u32, agent, ui);
                    has_udp_sink[d as usize] = true;
                    b.agents.push(AgentRef::UdpSink(ui));
                    b.flows.push(FlowAgents::Udp { sink: ui });
                    b.infos.push(FlowInfo {
                        sender: None,
                        udp_agent: Some(agent),
                        src: s,
                        dst: d,
                        packet_size: fl.tcp.packet_size,
                        sink: None,
                        header_size: fl.tcp.header_size,
                        syn: fl.tcp.syn,
                    });
                }
            }
        }
        net.udp.finish(net.links.iter().map(|l| l.dst), &has_udp_sink);
        for (k, r) in cfg.replicas.iter().enumerate() {
            let f = format!("replicas[{k}]");
            // The connection's settings are validated once; each copy gets its own
            // start-up policy, random stream and agents.
            let p = b.share_params(TcpParams::from_config(&format!("{f}.tcp"), &r.tcp)?);
            let sink_params = SinkParams::from_config(&format!("{f}.sink"), &r.sink)?;
            let template = r.flow_template();
            let rn = replicas[k];
            let mut name = String::with_capacity(r.name.len() + 11);
            for i in 0..r.count {
                name.clear();
                name.push_str(&r.name);
                name.push('.');
                crate::names::push_decimal(&mut name, u64::from(i) + 1);
                b.tcp_flow(
                    &cfg,
                    &net,
                    &node_addr,
                    &f,
                    &name,
                    rn.hosts(i),
                    &template,
                    p.clone(),
                    sink_params.clone(),
                    &resolve_gateway,
                )?;
            }
        }
        let AgentBuild { mut senders, sinks, mut agents, flows, infos, sessions, .. } = b;
        sessions.finish(&mut senders)?;
        // ---- applications
        let mut apps = build_apps(&cfg, &infos, &mut sched)?;
        // Hop folding (`Network::plan_folds`) needs every pair of nodes packets travel
        // between: a flow's, both ways for TCP (data and acks). Web workloads send
        // their own control packets: no folding with them.
        if !apps.list.iter().any(|a| matches!(a, crate::traffic::App::Web(_))) {
            let pairs = infos.iter().flat_map(|f| {
                let back = f.sender.is_some() || f.sink.is_some();
                std::iter::once((f.src, f.dst)).chain(back.then_some((f.dst, f.src)))
            });
            // No packet is smaller (the bound of lookahead, `Network::plan_lookahead`): a
            // TCP flow's header-only segments (the SYN), its packet 0 without `tcp.syn`
            // (ns-2 sends it without header bytes: `TcpConn::output`) and its acks; a
            // datagram has at least a byte.
            let min_bytes = infos
                .iter()
                .map(|f| match (f.sender, f.sink) {
                    (Some(_), Some(k)) => f.header_size.min(f.packet_size).min(sinks[k as usize].ack_size),
                    _ => 1,
                })
                .min()
                .unwrap_or(0);
            net.plan_folds(&mut sched, pairs, min_bytes);
        }
        // Web workloads: one server endpoint agent per client–server pair. UDP sources
        // look their first link up once (static routes).
        for (ai, app) in apps.list.iter_mut().enumerate() {
            match app {
                crate::traffic::App::Web(w) => {
                    for pair in &mut w.pairs {
                        pair.server_agent = agents.len() as u32;
                        agents.push(AgentRef::WebServer(ai as u32));
                    }
                }
                crate::traffic::App::Udp(u) => {
                    u.first_link = net.first_link(u.node, u.dst_node);
                }
                _ => {}
            }
        }
        Ok(Simulation {
            cfg,
            sched,
            net,
            shared,
            senders,
            sinks,
            agents,
            apps,
            flows,
            stop,
            drained_to: None,
            prefetch: false,
            timer_pf: TimerAhead::default(),
        }
        .with_prefetch())
    }

    /// Switch prefetching on for a run large enough to need it (`PREFETCH_MIN_CONNS`).
    fn with_prefetch(mut self) -> Self {
        self.prefetch = self.prefetch_default();
        if self.prefetch {
            self.sched.enable_far_timers(FAR_TIMER_WIDTH_BITS, FAR_TIMER_BUCKETS);
            self.sinks.iter_mut().for_each(TcpSink::free_rings);
        }
        self
    }

    /// Let computed queues take packets ahead of their arrival (`Network::enable_lookahead`,
    /// docs/architecture.md "Lookahead"): the same results and event keys with fewer
    /// events, but measured slower, so off unless asked for. Before the first event.
    pub fn enable_lookahead(&mut self) {
        assert_eq!(self.sched.fired, 0, "lookahead is enabled before the first event");
        self.net.enable_lookahead();
    }

    /// Is this run large enough to prefetch (`PREFETCH_MIN_CONNS`)?
    fn prefetch_default(&self) -> bool {
        self.senders.conns.len() >= PREFETCH_MIN_CONNS
    }

    /// Switch prefetching on or off (tests: a hint never changes a result).
    #[cfg(test)]
    pub(crate) fn set_prefetch(&mut self, on: bool) {
        self.prefetch = on;
    }

    /// The scheduler (tests switch timer parking off to compare).
    #[cfg(test)]
    pub(crate) fn sched_mut(&mut self) -> &mut Scheduler {
        &mut self.sched
    }

    /// Run until `duration_s` (or until every finite application is done, with
    /// `stop_when_done`).
    pub fn run_to_end(&mut self) {
        let stop = self.stop;
        self.run_until(stop);
    }

    /// Run events up to and including time `until`. Returns false once finished.
    pub fn run_until(&mut self, until: SimTime) -> bool {
        self.run_until_events(until, u64::MAX)
    }

    /// `run_until`, pausing (returning true) once `max_fired` events have fired in all.
    /// A pause falls between two events and moves no clock, so a run in slices fires
    /// exactly the events, in the same order, of one `run_until` call.
    pub fn run_until_events(&mut self, until: SimTime, max_fired: u64) -> bool {
        let until = until.min(self.stop);
        if self.cfg.stop_when_done && self.apps.finite_left == 0 {
            // Finite applications finish only in `handle_notices`; with none to begin
            // with, `stop_when_done` stops after the first event (if one fires).
            let before = self.sched.fired;
            let more = self.run_events(until, before + 1);
            return more && self.sched.fired == before;
        }
        self.run_events(until, max_fired)
    }

    /// The event loop of `run_until_events`: events up to `until`, pausing once
    /// `max_fired` have fired; a large run takes its own instance of the loop, with a
    /// prefetch before each event (`prefetch_ahead`: the same events in the same order,
    /// a hint changes nothing), so that the others pay nothing for it.
    fn run_events(&mut self, until: SimTime, max_fired: u64) -> bool {
        if self.prefetch {
            self.run_events_with::<true>(until, max_fired)
        } else {
            self.run_events_with::<false>(until, max_fired)
        }
    }

    /// See `run_events`. One copy of the inlined dispatch, with one test per event
    /// besides the notices.
    #[inline(never)]
    fn run_events_with<const PREFETCH: bool>(&mut self, until: SimTime, max_fired: u64) -> bool {
        // Read once: the config does not change during a run.
        let stop_when_done = self.cfg.stop_when_done;
        // The lane of the latest arrival popped from a lane (`prefetch_lane`).
        let mut lane = 0;
        while let Some(ev) = self.sched.pop_tracking::<PREFETCH>(until, &mut lane) {
            if PREFETCH {
                self.prefetch_ahead(ev, lane);
            }
            self.dispatch(ev);
            if !self.shared.notices.is_empty() {
                self.handle_notices();
                if stop_when_done && self.apps.finite_left == 0 {
                    return false;
                }
            }
            if self.sched.fired >= max_fired {
                return true;
            }
        }
        self.drained_to = Some(until);
        self.sched.advance_to(until);
        until < self.stop
    }

    /// Hint the cache lines the next events will touch, given the event about to run
    /// (`crate::prefetch`): after an arrival popped from a lane, the arrivals behind it
    /// in that lane (`prefetch_lane`); at a transmission-done, the packets behind the
    /// head of that link's queue (`prefetch_queue`). Out of line: it runs only in large
    /// runs, and keeps the loop's code as it is for the others. Reads, and writes nothing
    /// but its own pipeline's state (`timer_pf`).
    #[inline(never)]
    fn prefetch_ahead(&mut self, ev: Event, lane: u32) {
        match ev {
            Event::Arrive { .. } => self.prefetch_lane(lane),
            Event::TxDone { link } => self.prefetch_queue(link),
            _ => {}
        }
        self.prefetch_timers();
    }

    /// The lines the next timer firings read: the timers the latest opening of far
    /// buckets released (`prefetch_opened`), and the timer heap's minimum
    /// (`Scheduler::timer_ahead`), one stage per event (each stage reads what the one
    /// before hinted): its slot, then its agent's entry, then the agent's state
    /// (`prefetch_agent`), then its block and first link (`prefetch_agent_links`: what a
    /// retransmission timeout, a parking or a delayed ack reads and writes). A firing
    /// whose lines were evicted since costs what it did without hints; a timer re-armed
    /// before it fires costs a wasted hint.
    #[inline(always)]
    fn prefetch_timers(&mut self) {
        self.prefetch_opened();
        let Some(slot) = self.sched.timer_ahead() else { return };
        let mut t = self.timer_pf;
        if slot != t.slot {
            t.slot = slot;
            t.stage = 1;
            self.sched.prefetch_slot(slot);
        } else {
            match t.stage {
                1 => {
                    if let Some(a) = self.sched.slot_agent(slot) {
                        t.agent = a;
                        crate::prefetch::elem(&self.agents, a as usize);
                    }
                }
                2 => self.prefetch_agent(t.agent),
                3 => self.prefetch_agent_links(t.agent),
                _ => return,
            }
            t.stage += 1;
        }
        self.timer_pf = t;
    }

    /// The timers the latest opening of far buckets moved into the timer heap
    /// (`Scheduler::opened_timers`: due within about a millisecond, a few hundred events
    /// at 10^5 connections), one more per event, in three stages a timer apart: the
    /// agent entry of the timer at the cursor (its slot was read when it was moved), the
    /// agent's state for the one before (`prefetch_agent`), its block and first link for
    /// the one before that (`prefetch_agent_links`). A burst of firings due together is
    /// hinted ahead of it, which the heap's minimum alone cannot do.
    #[inline(always)]
    fn prefetch_opened(&mut self) {
        let (gen, opened) = self.sched.opened_timers();
        let t = &mut self.timer_pf;
        if gen != t.opened_gen {
            t.opened_gen = gen;
            t.opened_pos = 0;
        }
        let p = t.opened_pos as usize;
        if p >= opened.len() + 2 {
            return;
        }
        t.opened_pos += 1;
        let agent = |k: usize| opened.get(k).and_then(|&slot| self.sched.slot_agent(slot));
        if let Some(a) = agent(p) {
            crate::prefetch::elem(&self.agents, a as usize);
        }
        if let Some(a) = p.checked_sub(1).and_then(agent) {
            self.prefetch_agent(a);
        }
        if let Some(a) = p.checked_sub(2).and_then(agent) {
            self.prefetch_agent_links(a);
        }
    }

    /// Hint agent `a`'s state: a sender's connection, or a sink (reads the agent's
    /// entry).
    #[inline(always)]
    fn prefetch_agent(&self, a: u32) {
        match self.agents.get(a as usize) {
            Some(&AgentRef::Sender(i)) => self.senders.prefetch_conn(i),
            Some(&AgentRef::Sink(i)) => crate::prefetch::elem(&self.sinks, i as usize),
            _ => {}
        }
    }

    /// Hint what agent `a` touches besides its state: a sender's control block, timer
    /// slot and first link, a sink's first link, which its ack is sent on (reads the
    /// state `prefetch_agent` hinted).
    #[inline(always)]
    fn prefetch_agent_links(&self, a: u32) {
        match self.agents.get(a as usize) {
            Some(&AgentRef::Sender(i)) => self.senders.prefetch_block(i, &self.sched, &self.net),
            Some(&AgentRef::Sink(i)) => {
                if let Some(k) = self.sinks.get(i as usize) {
                    self.net.prefetch_link(k.first_link);
                }
            }
            _ => {}
        }
    }

    /// The arrivals behind the one popped last in its lane (`Scheduler::lane_ahead`):
    /// a pipeline over the distances `PF_LANE`, each stage reading what the stage before
    /// hinted a few arrivals earlier. An arrival reads its link and packet, then either
    /// the agent it is delivered to (a sender's connection, then its control block, timer
    /// slot and first link; a sink, then its first link, which its ack is sent on) or the
    /// route entry of the node forwarding it, then the next link's fold state and the
    /// route entry of that link's far end (which a folded hop after it reads,
    /// `try_fold`).
    #[inline(always)]
    fn prefetch_lane(&self, lane: u32) {
        use crate::net::prefetch::Hop;
        let (s, net) = (&self.sched, &self.net);
        if let Some((l, p)) = s.lane_ahead(lane, PF_LANE[0]) {
            net.prefetch_arrival(l, p);
        }
        if let Some(h) = s.lane_ahead(lane, PF_LANE[1]).and_then(|(l, p)| net.peek_hop(l, p)) {
            match h {
                Hop::Deliver(a) => self.prefetch_agent(a),
                Hop::Forward { node, dst } => net.prefetch_route(node, dst),
            }
        }
        if let Some(h) = s.lane_ahead(lane, PF_LANE[2]).and_then(|(l, p)| net.peek_hop(l, p)) {
            match h {
                Hop::Deliver(a) => self.prefetch_agent_links(a),
                Hop::Forward { node, dst } => {
                    if let Some(n2) = net.prefetch_forward(node, dst) {
                        if n2 != dst {
                            net.prefetch_route(n2, dst);
                        }
                    }
                }
            }
        }
    }

    /// The packets behind the head of link `l`'s queue at its transmission-done (the
    /// head leaves now): their slots, then the route entry of the link's far node
    /// towards them, then a folded next hop's link and fold state (`try_fold`).
    #[inline(always)]
    fn prefetch_queue(&self, l: u32) {
        let net = &self.net;
        net.prefetch_queued(l, PF_QUEUE[0]);
        if let Some((node, dst)) =
            net.links.get(l as usize).and_then(|k| k.queue.peek(PF_QUEUE[1])).and_then(|p| net.queued_hop(l, p))
        {
            if node != dst {
                net.prefetch_route(node, dst);
            }
        }
        if let Some((node, dst)) =
            net.links.get(l as usize).and_then(|k| k.queue.peek(PF_QUEUE[2])).and_then(|p| net.queued_hop(l, p))
        {
            net.prefetch_fold(node, dst);
        }
    }

    /// Always inlined: into both instances of the event loop (`run_events_with`); with
    /// two callers, a plain `#[inline]` left it out of line (+6 % instructions on bench a).
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        let Simulation { sched, net, shared, senders, sinks, agents, apps, .. } = self;
        // The context is built in the branches that hand it on, not for every event:
        // built up front, it was stored to the stack on every event (~6 instructions),
        // though most events (arrivals forwarded by a node, TxDone) never use it.
        match ev {
            Event::Arrive { link, pkt } => {
                if let Arrival::Deliver { agent, pkt } = net.arrive(sched, link, pkt) {
                    let mut cx = Ctx { sched, net, shared };
                    // Two tests, not a `match`: with four variants the match became a
                    // jump table, an indirect branch alternating between the sink (data)
                    // and the sender (acks) that the indirect predictor missed on about
                    // every other packet (cachegrind, bench a: 371 k of 380 k mispredicted;
                    // issue 13's CPU guard). Conditional branches follow the pattern.
                    match agents[agent as usize] {
                        AgentRef::Sink(i) => sinks[i as usize].recv(&mut cx, pkt),
                        r => {
                            if let AgentRef::Sender(i) = r {
                                senders.recv(&mut cx, i, pkt)
                            } else {
                                Self::deliver_other(&mut cx, senders, sinks, apps, r, pkt)
                            }
                        }
                    }
                }
            }
            Event::TxDone { link } => net.tx_done(sched, link),
            Event::Timer { agent, timer, gen } => {
                let mut cx = Ctx { sched, net, shared };
                match agents[agent as usize] {
                    AgentRef::Sender(i) => senders.timer(&mut cx, i, timer, gen),
                    AgentRef::Sink(i) => sinks[i as usize].timer(&mut cx, timer, gen),
                    AgentRef::UdpSink(_) | AgentRef::WebServer(_) => {}
                }
            }
            Event::App { app, token } => apps.event(&mut Ctx { sched, net, shared }, senders, sinks, app, token),
            Event::Element { elem, token } => {
                Self::element_event(&mut Ctx { sched, net, shared }, senders, sinks, agents, apps, elem, token)
            }
        }
    }

    /// A packet for a UDP sink or a Web server endpoint (out of line: it keeps the agent
    /// test of `dispatch` a two-way branch).
    #[inline(never)]
    fn deliver_other(
        cx: &mut Ctx,
        senders: &mut TcpSenders,
        sinks: &mut [TcpSink],
        apps: &mut Apps,
        r: AgentRef,
        pkt: PktId,
    ) {
        match r {
            AgentRef::Sender(i) => senders.recv(cx, i, pkt),
            AgentRef::Sink(i) => sinks[i as usize].recv(cx, pkt),
            AgentRef::UdpSink(i) => udp_sink_recv(cx, i, pkt),
            AgentRef::WebServer(a) => apps.web_recv(cx, senders, sinks, a, pkt),
        }
    }

    /// A node element's timer: the packets it releases reach their node, which
    /// delivers them (as the `Arrive` branch of `dispatch` does) or forwards them.
    /// Out of line: inlined, it made the dispatch loop call the agents' `recv` out of
    /// line (+3.5% instructions on bench a).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn element_event(
        cx: &mut Ctx,
        senders: &mut TcpSenders,
        sinks: &mut [TcpSink],
        agents: &[AgentRef],
        apps: &mut Apps,
        elem: u32,
        token: u32,
    ) {
        let (node, released) = cx.net.element_timer(cx.sched, elem, token);
        for &pkt in &released {
            if let Arrival::Deliver { agent, pkt } = cx.net.release(cx.sched, node, pkt) {
                match agents[agent as usize] {
                    AgentRef::Sender(i) => senders.recv(cx, i, pkt),
                    AgentRef::Sink(i) => sinks[i as usize].recv(cx, pkt),
                    AgentRef::UdpSink(i) => udp_sink_recv(cx, i, pkt),
                    AgentRef::WebServer(a) => apps.web_recv(cx, senders, sinks, a, pkt),
                }
            }
        }
        cx.net.recycle_released(released);
    }

    /// Hand the agents' notices to the applications; notices raised while doing so
    /// are handled too, at the same time.
    fn handle_notices(&mut self) {
        let now = self.sched.now();
        while !self.shared.notices.is_empty() {
            let notices = std::mem::take(&mut self.shared.notices);
            let Simulation { sched, net, shared, senders, sinks, apps, .. } = self;
            for &n in &notices {
                if apps.web_notice(&mut Ctx { sched, net, shared }, senders, sinks, n) {
                    continue;
                }
                if let Notice::TransferDone { flow, .. } = n {
                    apps.transfer_done(flow, now, sched);
                }
            }
            let mut v = notices;
            v.clear();
            if self.shared.notices.is_empty() {
                self.shared.notices = v;
                break;
            }
        }
    }

    /// Where the event loop stands (which elided UDP arrivals have happened).
    pub(crate) fn loop_position(&self) -> LoopPosition {
        LoopPosition { now: self.sched.now(), seq: self.sched.current_seq(), drained_to: self.drained_to }
    }

    /// The applications (tests read an application's state after a run).
    #[cfg(test)]
    pub(crate) fn apps(&self) -> &crate::traffic::Apps {
        &self.apps
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.sched.now()
    }
}

/// The agent tables of a simulation while its flows are built.
struct AgentBuild {
    senders: TcpSenders,
    sinks: Vec<TcpSink>,
    agents: Vec<AgentRef>,
    flows: Vec<FlowAgents>,
    infos: Vec<FlowInfo>,
    /// Connections with identical parameters share one `TcpParams` (keyed by its
    /// Debug text, which prints every field exactly).
    params_seen: HashMap<String, Arc<TcpParams>>,
    /// The parameters the last connection got: consecutive connections of a group are
    /// equal, and comparing them is much cheaper than printing them.
    params_last: Option<Arc<TcpParams>>,
    /// TCP sessions by (source node, destination node, group): the first member.
    sessions: SessionTable,
}

/// A route from `s` to `d` (and back, for TCP's acks), or an error naming flow `f`.
fn check_route(net: &Network, f: &str, fl: &FlowConfig, s: u32, d: u32, back: bool) -> Result<(), ConfigError> {
    let (src, dst) = (&net.node_names[s as usize], &net.node_names[d as usize]);
    if s == d {
        return Err(err(
            format!("{f}.dst"),
            if fl.dst.is_empty() { dst } else { &fl.dst },
            "source and destination must differ",
        ));
    }
    if net.routes.route(s, d).is_none() {
        return Err(err(
            format!("{f}.dst"),
            if fl.dst.is_empty() { dst } else { &fl.dst },
            format!("no route from {src} to {dst}"),
        ));
    }
    if back && net.routes.route(d, s).is_none() {
        return Err(err(
            format!("{f}.src"),
            if fl.src.is_empty() { src } else { &fl.src },
            format!("no route back from {dst} to {src} for acks"),
        ));
    }
    Ok(())
}

impl AgentBuild {
    /// `p`, shared with the earlier connections that have the same parameters.
    fn share_params(&mut self, p: TcpParams) -> Arc<TcpParams> {
        if let Some(last) = &self.params_last {
            if **last == p {
                return last.clone();
            }
        }
        let shared = self.params_seen.entry(format!("{p:?}")).or_insert_with(|| Arc::new(p)).clone();
        self.params_last = Some(shared.clone());
        shared
    }

    /// Add TCP flow `name` (field path `f`) from node `ends.0` to `ends.1` with the
    /// settings of `fl` (validated `p` and `sink_params`): its sender, control block,
    /// sink and agents.
    #[allow(clippy::too_many_arguments)]
    fn tcp_flow(
        &mut self,
        cfg: &SimConfig,
        net: &Network,
        node_addr: &[u32],
        f: &str,
        name: &str,
        (s, d): (u32, u32),
        fl: &FlowConfig,
        p: Arc<TcpParams>,
        mut sink_params: SinkParams,
        resolve_gateway: &dyn Fn(&str, &str) -> Result<usize, ConfigError>,
    ) -> Result<(), ConfigError> {
        check_route(net, f, fl, s, d, true)?;
        let i = self.flows.len() as u32;
        let mut rng = Rng::for_source_parts(cfg.seed, &["tcp:", name]);
        let boot = fl.tcp.boot_time_s.unwrap_or_else(|| rng.uniform() * p.rtt.tick);
        let startup = AnyStartup::build(format_args!("{f}.startup"), &fl.startup, fl.tcp.window, resolve_gateway)?;
        sink_params = sink_params.with_tcp(format_args!("{f}.sink"), p.size, p.syn)?;
        sink_params.sack = p.sack.then_some(p.sack_max_blocks);
        let sender_agent = self.agents.len() as u32;
        let sink_agent = sender_agent + 1;
        let mut conn = TcpConn::new(sender_agent, i, s, d, sink_agent, node_addr[d as usize], p.clone());
        // Both directions were checked to be routable above; static routes.
        conn.first_link = net.first_link(s, d);
        let si = match &fl.session {
            None => self.senders.push(conn, ControlBlock::new(&p, startup, boot)),
            Some(sc) => self
                .sessions
                .add(f, fl, sc, (s, d), &p, &mut self.senders, conn, || ControlBlock::new(&p, startup, boot))?,
        };
        self.agents.push(AgentRef::Sender(si));
        let ki = self.sinks.len() as u32;
        let mut sink = TcpSink::new(sink_agent, i, d, s, sender_agent, sink_params);
        sink.first_link = net.first_link(d, s);
        self.sinks.push(sink);
        self.agents.push(AgentRef::Sink(ki));
        self.flows.push(FlowAgents::Tcp { sender: si, sink: ki });
        self.infos.push(FlowInfo {
            sender: Some(si),
            udp_agent: None,
            src: s,
            dst: d,
            packet_size: fl.tcp.packet_size,
            sink: Some(ki),
            header_size: fl.tcp.header_size,
            syn: fl.tcp.syn,
        });
        Ok(())
    }
}

/// The TCP sessions of a simulation while it is built (`FlowConfig::session`).
#[derive(Default)]
struct SessionTable {
    /// (source node, destination node, group) -> index in `list`.
    ix: HashMap<(u32, u32, String), usize>,
    list: Vec<SessionBuild>,
}

struct SessionBuild {
    /// The first member's sender index, flow field path and settings.
    first: u32,
    field: String,
    sched: SessionScheduler,
    later_acks: bool,
    linger_s: f64,
    params: Arc<TcpParams>,
    startup: String,
    /// Members with their field path and sub-session name.
    members: Vec<(u32, String, Option<String>)>,
}

impl SessionTable {
    /// Add flow `fl` (field path `f`, between nodes `ends`) to its session, creating
    /// the session with its first member. Returns the connection's sender index.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        f: &str,
        fl: &FlowConfig,
        sc: &SessionConfig,
        ends: (u32, u32),
        p: &Arc<TcpParams>,
        senders: &mut TcpSenders,
        conn: TcpConn,
        block: impl FnOnce() -> ControlBlock,
    ) -> Result<u32, ConfigError> {
        if !(1..=crate::tcp::session::scheduler::MAX_WEIGHT).contains(&sc.weight) {
            return Err(err(format!("{f}.session.weight"), sc.weight, "must be an integer from 1 to 1000"));
        }
        let linger = time_s(&format!("{f}.session.linger_s"), sc.linger_s)?;
        if !matches!(fl.startup, StartupConfig::Ns2 | StartupConfig::NoRestart) {
            return Err(err(
                format!("{f}.startup"),
                serde_json::to_value(&fl.startup).map(|v| v["kind"].to_string()).unwrap_or_default(),
                "a TCP session runs ns-2's start-up only (\"ns2\" or \"no_restart\"); drop `session` or the start-up policy",
            ));
        }
        if fl.tcp.cc != CcConfig::Ns2 {
            return Err(err(
                format!("{f}.tcp.cc"),
                format!("{:?}", fl.tcp.cc),
                "a TCP session runs ns-2's congestion control only (\"ns2\")",
            ));
        }
        if fl.tcp.recovery.kind != crate::config::RecoveryKind::Ns2 {
            return Err(err(
                format!("{f}.tcp.recovery.kind"),
                format!("{:?}", fl.tcp.recovery.kind).to_lowercase(),
                "a TCP session runs its own integrated loss recovery; SACK recovery kinds are per connection (use \"ns2\")",
            ));
        }
        if fl.tcp.rto != crate::config::RtoConfig::Ns2 {
            return Err(err(
                format!("{f}.tcp.rto"),
                "linux",
                "a TCP session keeps one ns-2 RTT estimator and timer (use rto = \"ns2\")",
            ));
        }
        if let Some(b) = fl.tcp.sndbuf {
            return Err(err(format!("{f}.tcp.sndbuf"), b, "a socket buffer is not built for a TCP session's members (the session's scheduler hands out the window); drop `sndbuf` or `session`"));
        }
        let key = (ends.0, ends.1, sc.group.clone());
        if let Some(&k) = self.ix.get(&key) {
            let sb = &mut self.list[k];
            if sc.scheduler != sb.sched {
                return Err(err(
                    format!("{f}.session.scheduler"),
                    format!("{:?}", sc.scheduler).to_lowercase(),
                    format!("differs from {}.session.scheduler of the same session", sb.field),
                ));
            }
            if sc.later_acks != sb.later_acks {
                return Err(err(
                    format!("{f}.session.later_acks"),
                    sc.later_acks,
                    format!("differs from {}.session.later_acks of the same session", sb.field),
                ));
            }
            if sc.linger_s != sb.linger_s {
                return Err(err(
                    format!("{f}.session.linger_s"),
                    sc.linger_s,
                    format!("differs from {}.session.linger_s ({}) of the same session", sb.field, sb.linger_s),
                ));
            }
            if !Arc::ptr_eq(p, &sb.params) {
                return Err(err(
                    format!("{f}.tcp"),
                    "(differs)",
                    format!("members of one session need the same tcp settings as {}.tcp", sb.field),
                ));
            }
            if format!("{:?}", fl.startup) != sb.startup {
                return Err(err(
                    format!("{f}.startup"),
                    format!("{:?}", fl.startup),
                    format!("members of one session need the same start-up as {}.startup ({})", sb.field, sb.startup),
                ));
            }
            let i = senders.join_session(conn, sb.first, sc.weight);
            sb.members.push((i, f.to_string(), sc.subsession.clone()));
            return Ok(i);
        }
        let i = senders.push_session(conn, block(), sc.scheduler, sc.later_acks, sc.weight);
        senders.set_session_linger(i, linger);
        self.ix.insert(key, self.list.len());
        self.list.push(SessionBuild {
            first: i,
            field: f.to_string(),
            sched: sc.scheduler,
            later_acks: sc.later_acks,
            linger_s: sc.linger_s,
            params: p.clone(),
            startup: format!("{:?}", fl.startup),
            members: vec![(i, f.to_string(), sc.subsession.clone())],
        });
        Ok(i)
    }

    /// Assign sub-sessions (the proxy variant): every member names one, or none does.
    fn finish(&self, senders: &mut TcpSenders) -> Result<(), ConfigError> {
        for sb in &self.list {
            let named = sb.members.iter().filter(|m| m.2.is_some()).count();
            if named == 0 {
                continue;
            }
            if named < sb.members.len() {
                let (with, without) = (
                    sb.members.iter().find(|m| m.2.is_some()).expect("one named"),
                    sb.members.iter().find(|m| m.2.is_none()).expect("one unnamed"),
                );
                return Err(err(
                    format!("{}.session.subsession", without.1),
                    "(missing)",
                    format!("{}.session.subsession is set in the same session: give every member one, or none", with.1),
                ));
            }
            let mut names: Vec<&str> = Vec::new();
            for m in &sb.members {
                let n = m.2.as_deref().expect("all named");
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            for m in &sb.members {
                let sub = names.iter().position(|&n| Some(n) == m.2.as_deref()).expect("listed") as u16;
                senders.set_subsession(m.0, sub, names.len());
            }
        }
        Ok(())
    }
}
