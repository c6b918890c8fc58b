//! Building a simulation from a [`SimConfig`] (validating every field), running the
//! event loop, and collecting [`RunResults`].

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use crate::config::*;
use crate::engine::{Event, Scheduler};
use crate::error::ConfigError;
use crate::net::link::Link;
use crate::net::packet::PacketPool;
use crate::net::queue::{AnyQueue, DropPriority, DropTail, Red};
use crate::net::routing::Routes;
use crate::net::{Arrival, Network};
use crate::results::*;
use crate::rng::Rng;
use crate::spand::gateway::Gateway;
use crate::tcp::rtt::RttParams;
use crate::tcp::sender::{TcpParams, TcpSender};
use crate::tcp::sink::TcpSink;
use crate::tcp::startup::{AnyStartup, IdleRestart, Spand};
use crate::time::SimTime;
use crate::traffic::dist;
use crate::traffic::{App, Rounds, Telnet, UdpGen, UdpSource};
use crate::world::{Ctx, Notice, Shared};

/// Which table an agent index points into.
#[derive(Clone, Copy, Debug)]
enum AgentRef {
    Sender(u32),
    Sink(u32),
    UdpSink(u32),
}

/// Per-flow handles.
#[derive(Clone, Copy, Debug)]
struct FlowAgents {
    sender: Option<u32>,
    sink: Option<u32>,
    udp_sink: Option<u32>,
    udp_src_app: Option<u32>,
}

#[derive(Default, Clone, Copy)]
struct UdpSinkStat {
    pkts: u64,
    bytes: u64,
}

/// A built, runnable simulation.
pub struct Simulation {
    cfg: SimConfig,
    sched: Scheduler,
    net: Network,
    shared: Shared,
    senders: Vec<TcpSender>,
    sinks: Vec<TcpSink>,
    udp_sinks: Vec<UdpSinkStat>,
    agents: Vec<AgentRef>,
    apps: Vec<App>,
    /// Application that handles completions of each flow.
    flow_app: Vec<Option<u32>>,
    flows: Vec<FlowAgents>,
    stop: SimTime,
    finite_apps_left: usize,
}

/// Build and run in one call.
pub fn run(cfg: &SimConfig) -> Result<RunResults, ConfigError> {
    let t0 = std::time::Instant::now();
    let mut sim = Simulation::new(cfg.clone())?;
    sim.run_to_end();
    let mut r = sim.results();
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

fn err(field: impl Into<String>, value: impl std::fmt::Display, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(field, value, msg)
}

fn positive(field: &str, v: f64) -> Result<f64, ConfigError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(err(field, v, "must be a finite number greater than 0"));
    }
    Ok(v)
}

fn non_negative(field: &str, v: f64) -> Result<f64, ConfigError> {
    if !v.is_finite() || v < 0.0 {
        return Err(err(field, v, "must be a finite number >= 0"));
    }
    Ok(v)
}

/// Suggest the closest known name (edit distance) for an unknown one.
fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> String {
    fn dist(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    let best = known.map(|k| (dist(name, k), k)).min_by_key(|(d, _)| *d);
    match best {
        Some((d, k)) if d <= 3.max(name.len() / 3) => format!("; did you mean \"{k}\"?"),
        _ => String::new(),
    }
}

fn parse_addr(field: &str, s: &str) -> Result<u32, ConfigError> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return Err(err(field, s, "must be a dotted IPv4 address such as 10.2.0.1"));
    }
    let mut a = 0u32;
    for p in parts {
        let b: u8 = p.parse().map_err(|_| err(field, s, "must be a dotted IPv4 address such as 10.2.0.1"))?;
        a = (a << 8) | b as u32;
    }
    Ok(a)
}

fn tcp_params(field: &str, t: &TcpConfig) -> Result<TcpParams, ConfigError> {
    if t.window < 1 {
        return Err(err(format!("{field}.window"), t.window, "must be at least 1 packet"));
    }
    if t.window_init < 1 {
        return Err(err(format!("{field}.window_init"), t.window_init, "must be at least 1 packet"));
    }
    if t.packet_size < 1 {
        return Err(err(format!("{field}.packet_size"), t.packet_size, "must be at least 1 byte"));
    }
    let tick = positive(&format!("{field}.tcp_tick_s"), t.tcp_tick_s)?;
    non_negative(&format!("{field}.minrto_s"), t.minrto_s)?;
    positive(&format!("{field}.maxrto_s"), t.maxrto_s)?;
    positive(&format!("{field}.rtxcur_init_s"), t.rtxcur_init_s)?;
    if t.numdupacks < 1 {
        return Err(err(format!("{field}.numdupacks"), t.numdupacks, "must be at least 1"));
    }
    if t.t_rttvar_bits < 1 || t.t_srtt_bits < t.t_rttvar_bits || t.t_srtt_bits > 8 {
        return Err(err(
            format!("{field}.t_srtt_bits"),
            format!("{}/{}", t.t_srtt_bits, t.t_rttvar_bits),
            "need 1 <= t_rttvar_bits <= t_srtt_bits <= 8",
        ));
    }
    if t.rttvar_exp > 8 {
        return Err(err(format!("{field}.rttvar_exp"), t.rttvar_exp, "must be at most 8"));
    }
    if t.overhead_s != 0.0 {
        return Err(err(format!("{field}.overhead_s"), t.overhead_s, "only 0 (no random send delay) is supported"));
    }
    if t.window_option != 1 {
        return Err(err(format!("{field}.window_option"), t.window_option, "only windowOption_ 1 (standard) is supported"));
    }
    positive(&format!("{field}.increase_num"), t.increase_num)?;
    let dn = positive(&format!("{field}.decrease_num"), t.decrease_num)?;
    if dn >= 1.0 {
        return Err(err(format!("{field}.decrease_num"), dn, "must be below 1"));
    }
    if let Some(b) = t.boot_time_s {
        if !(0.0..tick).contains(&b) {
            return Err(err(format!("{field}.boot_time_s"), b, format!("must be in [0, tcp_tick_s = {tick})")));
        }
    }
    Ok(TcpParams {
        variant: t.variant,
        wnd: t.window as f64,
        wnd_init: t.window_init as i32,
        maxcwnd: t.maxcwnd as i32,
        size: t.packet_size,
        hdr: t.header_size,
        initial_ssthresh: t.ssthresh as i32,
        rtt: RttParams {
            tick,
            srtt_bits: t.t_srtt_bits,
            rttvar_bits: t.t_rttvar_bits,
            rttvar_exp: t.rttvar_exp,
            minrto: t.minrto_s,
            maxrto: t.maxrto_s,
            rtxcur_init: t.rtxcur_init_s,
            srtt_init: t.srtt_init,
            rttvar_init: t.rttvar_init,
        },
        maxburst: t.maxburst as i32,
        numdupacks: t.numdupacks as i32,
        slow_start_restart: t.slow_start_restart,
        restart_bugfix: t.restart_bugfix,
        syn: t.syn,
        delay_growth: t.delay_growth,
        singledup: t.singledup != 0,
        increase_num: t.increase_num,
        decrease_num: t.decrease_num,
    })
}

impl Simulation {
    /// Validate `cfg` and build the topology, agents and applications.
    pub fn new(cfg: SimConfig) -> Result<Simulation, ConfigError> {
        let duration = positive("duration_s", cfg.duration_s)?;
        // ---- nodes
        if cfg.nodes.is_empty() {
            return Err(err("nodes", "[]", "a simulation needs at least one node"));
        }
        let mut node_ix: HashMap<&str, u32> = HashMap::with_capacity(cfg.nodes.len());
        for (i, n) in cfg.nodes.iter().enumerate() {
            if n.is_empty() {
                return Err(err(format!("nodes[{i}]"), "\"\"", "node names must not be empty"));
            }
            if node_ix.insert(n.as_str(), i as u32).is_some() {
                return Err(err(format!("nodes[{i}]"), n, "duplicate node name"));
            }
        }
        let node = |field: String, name: &str| -> Result<u32, ConfigError> {
            node_ix
                .get(name)
                .copied()
                .ok_or_else(|| err(field, name, format!("unknown node{}", suggest(name, cfg.nodes.iter()))))
        };
        // ---- addresses
        let mut node_addr: Vec<u32> = (0..cfg.nodes.len() as u32).map(|i| (10u32 << 24) | (i & 0x00FF_FFFF)).collect();
        for (name, a) in &cfg.addresses {
            let i = node(format!("addresses.{name}"), name)?;
            node_addr[i as usize] = parse_addr(&format!("addresses.{name}"), a)?;
        }
        // ---- links
        let mut links: Vec<Link> = Vec::new();
        let mut link_pairs: Vec<(u32, u32)> = Vec::new();
        let mut seen_pairs: HashMap<(u32, u32), usize> = HashMap::new();
        for (i, l) in cfg.links.iter().enumerate() {
            let f = format!("links[{i}]");
            let s = node(format!("{f}.src"), &l.src)?;
            let d = node(format!("{f}.dst"), &l.dst)?;
            if s == d {
                return Err(err(format!("{f}.dst"), &l.dst, "a link must join two different nodes"));
            }
            let rate = positive(&format!("{f}.rate_bps"), l.rate_bps)?;
            if rate < 1.0 {
                return Err(err(format!("{f}.rate_bps"), rate, "must be at least 1 bit/s"));
            }
            let delay = non_negative(&format!("{f}.delay_s"), l.delay_s)?;
            let mut dirs = vec![(s, d, &l.queue)];
            if l.duplex {
                dirs.push((d, s, l.reverse_queue.as_ref().unwrap_or(&l.queue)));
            }
            for (k, (a, b, q)) in dirs.into_iter().enumerate() {
                if let Some(prev) = seen_pairs.insert((a, b), i) {
                    return Err(err(
                        format!("{f}"),
                        format!("{}->{}", cfg.nodes[a as usize], cfg.nodes[b as usize]),
                        format!("duplicate link (also defined by links[{prev}])"),
                    ));
                }
                let qf = if k == 0 { format!("{f}.queue") } else { format!("{f}.reverse_queue") };
                let queue = match q {
                    QueueConfig::DropTail { limit_pkts } => {
                        if *limit_pkts < 1 {
                            return Err(err(format!("{qf}.limit_pkts"), limit_pkts, "must be at least 1"));
                        }
                        AnyQueue::DropTail(DropTail::new(*limit_pkts))
                    }
                    QueueConfig::DropPriority { limit_pkts } => {
                        if *limit_pkts < 1 {
                            return Err(err(format!("{qf}.limit_pkts"), limit_pkts, "must be at least 1"));
                        }
                        AnyQueue::DropPriority(DropPriority::new(*limit_pkts))
                    }
                    QueueConfig::Red(rc) => {
                        AnyQueue::Red(Box::new(Red::new(rc, rate, delay).map_err(|m| err(qf.clone(), "red", m))?))
                    }
                };
                links.push(Link::new(a, b, rate.round() as u64, SimTime::from_secs_f64(delay), queue));
                link_pairs.push((a, b));
            }
        }
        let routes = Routes::new(cfg.nodes.len(), &link_pairs);
        let traced_links: Vec<String> = cfg.trace.links.clone();
        let net_trace = if cfg.trace.packets { Some(PacketTrace::default()) } else { None };
        let mut net = Network {
            pool: PacketPool::new(),
            links,
            node_names: cfg.nodes.clone(),
            routes,
            queue_rng: Rng::for_source(cfg.seed, "queues"),
            trace: net_trace,
            delivered_data: 0,
        };
        if cfg.trace.packets {
            let names: Vec<String> = (0..net.links.len()).map(|l| net.link_name(l)).collect();
            for t in &traced_links {
                if !names.contains(t) {
                    return Err(err("trace.links", t, format!("no such link{}", suggest(t, names.iter()))));
                }
            }
            for (l, n) in names.iter().enumerate() {
                net.links[l].traced = traced_links.is_empty() || traced_links.contains(n);
            }
        }
        // ---- gateways
        let mut gw_ix: HashMap<&str, usize> = HashMap::new();
        let mut gateways = Vec::new();
        for (i, g) in cfg.gateways.iter().enumerate() {
            let f = format!("gateways[{i}]");
            if gw_ix.insert(g.name.as_str(), i).is_some() {
                return Err(err(format!("{f}.name"), &g.name, "duplicate gateway name"));
            }
            let w = positive(&format!("{f}.window_s"), g.window_s)?;
            let gw = Gateway::new(SimTime::from_secs_f64(w), g.min_samples, g.prefix_len).map_err(|m| err(f.clone(), &g.name, m))?;
            gateways.push(gw);
        }
        // ---- flows and agents
        let shared = Shared {
            gateways,
            node_addr: node_addr.clone(),
            flow_names: cfg.flows.iter().map(|f| f.name.clone()).collect(),
            ack_trace: if cfg.trace.acks { Some(AckTrace::default()) } else { None },
            cwnd_trace: if cfg.trace.cwnd { Some(CwndTrace::default()) } else { None },
            ..Default::default()
        };
        let mut flow_ix: HashMap<&str, u32> = HashMap::with_capacity(cfg.flows.len());
        // Sized up front: with 10 000 connections, doubling growth would leave freed
        // copies of these arrays resident (see `idle_footprint`).
        let n_tcp = cfg.flows.iter().filter(|f| matches!(f.transport, Transport::Tcp)).count();
        let mut senders = Vec::with_capacity(n_tcp);
        let mut sinks = Vec::with_capacity(n_tcp);
        let mut udp_sinks = Vec::with_capacity(cfg.flows.len() - n_tcp);
        let mut agents = Vec::with_capacity(n_tcp * 2 + (cfg.flows.len() - n_tcp));
        let mut flows = Vec::with_capacity(cfg.flows.len());
        // Connections with identical parameters share one `TcpParams` (keyed by its
        // Debug text, which prints every field exactly).
        let mut params_seen: HashMap<String, Arc<TcpParams>> = HashMap::new();
        for (i, fl) in cfg.flows.iter().enumerate() {
            let f = format!("flows[{i}]");
            if fl.name.is_empty() {
                return Err(err(format!("{f}.name"), "\"\"", "flow names must not be empty"));
            }
            if flow_ix.insert(fl.name.as_str(), i as u32).is_some() {
                return Err(err(format!("{f}.name"), &fl.name, "duplicate flow name"));
            }
            let s = node(format!("{f}.src"), &fl.src)?;
            let d = node(format!("{f}.dst"), &fl.dst)?;
            if s == d {
                return Err(err(format!("{f}.dst"), &fl.dst, "source and destination must differ"));
            }
            if net.routes.route(s, d).is_none() {
                return Err(err(format!("{f}.dst"), &fl.dst, format!("no route from {} to {}", fl.src, fl.dst)));
            }
            match fl.transport {
                Transport::Tcp => {
                    if net.routes.route(d, s).is_none() {
                        return Err(err(format!("{f}.src"), &fl.src, format!("no route back from {} to {} for acks", fl.dst, fl.src)));
                    }
                    let p = tcp_params(&format!("{f}.tcp"), &fl.tcp)?;
                    let p = params_seen.entry(format!("{p:?}")).or_insert_with(|| Arc::new(p)).clone();
                    let mut rng = Rng::for_source(cfg.seed, &format!("tcp:{}", fl.name));
                    let boot = fl.tcp.boot_time_s.unwrap_or_else(|| rng.uniform() * p.rtt.tick);
                    let startup = match &fl.startup {
                        StartupConfig::Ns2 => AnyStartup::Ns2,
                        StartupConfig::IdleRestart => AnyStartup::IdleRestart(IdleRestart),
                        StartupConfig::NoRestart => AnyStartup::NoRestart,
                        StartupConfig::Spand(sc) => {
                            let g = *gw_ix.get(sc.gateway.as_str()).ok_or_else(|| {
                                err(
                                    format!("{f}.startup.gateway"),
                                    &sc.gateway,
                                    format!("unknown gateway{}", suggest(&sc.gateway, cfg.gateways.iter().map(|g| &g.name))),
                                )
                            })?;
                            positive(&format!("{f}.startup.b"), sc.b)?;
                            if sc.bucket_depth < 1 {
                                return Err(err(format!("{f}.startup.bucket_depth"), sc.bucket_depth, "must be at least 1"));
                            }
                            AnyStartup::Spand(Spand::new(sc, g, fl.tcp.window))
                        }
                    };
                    if fl.sink.ack_size < 1 {
                        return Err(err(format!("{f}.sink.ack_size"), fl.sink.ack_size, "must be at least 1 byte"));
                    }
                    let delack = if fl.sink.delack {
                        Some(SimTime::from_secs_f64(positive(&format!("{f}.sink.delack_interval_s"), fl.sink.delack_interval_s)?))
                    } else {
                        None
                    };
                    let sender_agent = agents.len() as u32;
                    let sink_agent = sender_agent + 1;
                    let si = senders.len() as u32;
                    let mut sender = TcpSender::new(sender_agent, i as u32, s, d, sink_agent, node_addr[d as usize], p.clone(), startup, boot);
                    // Both directions were checked to be routable above; static routes.
                    sender.first_link = net.routes.route(s, d).unwrap_or(crate::net::NO_LINK);
                    senders.push(sender);
                    agents.push(AgentRef::Sender(si));
                    let ki = sinks.len() as u32;
                    let mut sink = TcpSink::new(sink_agent, i as u32, d, s, sender_agent, fl.sink.ack_size, delack, fl.sink.rfc2581_immediate_ack);
                    sink.first_link = net.routes.route(d, s).unwrap_or(crate::net::NO_LINK);
                    sinks.push(sink);
                    agents.push(AgentRef::Sink(ki));
                    flows.push(FlowAgents { sender: Some(si), sink: Some(ki), udp_sink: None, udp_src_app: None });
                }
                Transport::Udp => {
                    let ui = udp_sinks.len() as u32;
                    udp_sinks.push(UdpSinkStat::default());
                    agents.push(AgentRef::UdpSink(ui));
                    flows.push(FlowAgents { sender: None, sink: None, udp_sink: Some(ui), udp_src_app: None });
                }
            }
        }
        // ---- applications
        let mut apps: Vec<App> = Vec::with_capacity(cfg.apps.len());
        let mut flow_app: Vec<Option<u32>> = vec![None; cfg.flows.len()];
        let mut sched = Scheduler::new();
        let mut finite_apps_left = 0;
        let flow_of = |field: String, name: &str| -> Result<u32, ConfigError> {
            flow_ix
                .get(name)
                .copied()
                .ok_or_else(|| err(field, name, format!("unknown flow{}", suggest(name, cfg.flows.iter().map(|f| &f.name)))))
        };
        for (i, a) in cfg.apps.iter().enumerate() {
            let f = format!("apps[{i}]");
            let ai = apps.len() as u32;
            let claim = |fi: u32, field: String, flow_app: &mut Vec<Option<u32>>| -> Result<(), ConfigError> {
                if let Some(prev) = flow_app[fi as usize] {
                    return Err(err(field, &cfg.flows[fi as usize].name, format!("flow already driven by apps[{prev}]")));
                }
                flow_app[fi as usize] = Some(ai);
                Ok(())
            };
            let tcp_sender = |fi: u32, field: String| -> Result<u32, ConfigError> {
                flows[fi as usize].sender.ok_or_else(|| err(field, &cfg.flows[fi as usize].name, "this application needs a TCP flow"))
            };
            match a {
                AppConfig::Ftp { flow, start_s, bytes } => {
                    let fi = flow_of(format!("{f}.flow"), flow)?;
                    let sender = tcp_sender(fi, format!("{f}.flow"))?;
                    claim(fi, format!("{f}.flow"), &mut flow_app)?;
                    let start = SimTime::from_secs_f64(non_negative(&format!("{f}.start_s"), *start_s)?);
                    if let Some(b) = bytes {
                        if *b == 0 {
                            return Err(err(format!("{f}.bytes"), b, "must be at least 1 byte"));
                        }
                        finite_apps_left += 1;
                    }
                    sched.at(start, Event::App { app: ai, token: 0 });
                    apps.push(App::Ftp { sender, start, bytes: *bytes });
                }
                AppConfig::Rounds(rc) => {
                    if rc.flows.is_empty() {
                        return Err(err(format!("{f}.flows"), "[]", "a rounds workload needs at least one flow"));
                    }
                    if rc.rounds < 1 {
                        return Err(err(format!("{f}.rounds"), rc.rounds, "must be at least 1"));
                    }
                    let jitter = non_negative(&format!("{f}.jitter_s"), rc.jitter_s)?;
                    let idle = non_negative(&format!("{f}.idle_s"), rc.idle_s)?;
                    let fc = non_negative(&format!("{f}.first_center_s"), rc.first_center_s)?;
                    if fc < jitter / 2.0 {
                        return Err(err(format!("{f}.first_center_s"), fc, format!("must be at least jitter_s/2 = {}", jitter / 2.0)));
                    }
                    if let RoundTiming::FixedPeriod { period_s } = rc.timing {
                        positive(&format!("{f}.timing.period_s"), period_s)?;
                    }
                    if let Some(sz) = &rc.sizes_bytes {
                        if sz.len() != rc.flows.len() {
                            return Err(err(format!("{f}.sizes_bytes"), sz.len(), format!("needs one size per flow ({})", rc.flows.len())));
                        }
                    }
                    let mut ss = Vec::new();
                    let mut pkts = Vec::new();
                    let mut bytes = Vec::new();
                    for (k, name) in rc.flows.iter().enumerate() {
                        let fi = flow_of(format!("{f}.flows[{k}]"), name)?;
                        let sender = tcp_sender(fi, format!("{f}.flows[{k}]"))?;
                        claim(fi, format!("{f}.flows[{k}]"), &mut flow_app)?;
                        let b = rc.sizes_bytes.as_ref().map(|v| v[k]).unwrap_or(rc.size_bytes);
                        if b == 0 {
                            return Err(err(format!("{f}.size_bytes"), b, "must be at least 1 byte"));
                        }
                        let ps = cfg.flows[fi as usize].tcp.packet_size as u64;
                        ss.push(sender);
                        pkts.push(b.div_ceil(ps) as i64);
                        bytes.push(b);
                    }
                    let mut r = Rounds {
                        senders: ss,
                        pkts,
                        bytes,
                        rounds: rc.rounds,
                        jitter: SimTime::from_secs_f64(jitter),
                        idle: SimTime::from_secs_f64(idle),
                        first_center: SimTime::from_secs_f64(fc),
                        timing: rc.timing,
                        rng: Rng::for_source(cfg.seed, &format!("rounds:{}", rc.flows[0])),
                        round: 0,
                        outstanding: 0,
                        done: false,
                    };
                    r.schedule_round(ai, SimTime::ZERO, SimTime::ZERO, &mut sched);
                    finite_apps_left += 1;
                    apps.push(App::Rounds(Box::new(r)));
                }
                AppConfig::Telnet { flow, start_s, start_jitter_s, interval_s } => {
                    let fi = flow_of(format!("{f}.flow"), flow)?;
                    let sender = tcp_sender(fi, format!("{f}.flow"))?;
                    claim(fi, format!("{f}.flow"), &mut flow_app)?;
                    let s0 = non_negative(&format!("{f}.start_s"), *start_s)?;
                    let j = non_negative(&format!("{f}.start_jitter_s"), *start_jitter_s)?;
                    let iv = non_negative(&format!("{f}.interval_s"), *interval_s)?;
                    let mut rng = Rng::for_source(cfg.seed, &format!("telnet:{flow}"));
                    let start = s0 + rng.uniform() * j;
                    let mut t = Telnet { sender, interval_s: iv, rng };
                    // ns-2.35 apps/telnet.cc start(): the first packet after next().
                    let first = SimTime::from_secs_f64(start) + t.next();
                    sched.at(first, Event::App { app: ai, token: 0 });
                    apps.push(App::Telnet(t));
                }
                AppConfig::OnOff(oc) => {
                    let fi = flow_of(format!("{f}.flow"), &oc.flow)?;
                    let fa = flows[fi as usize];
                    let Some(_) = fa.udp_sink else {
                        return Err(err(format!("{f}.flow"), &oc.flow, "an on_off source needs a UDP flow (transport = \"udp\")"));
                    };
                    claim(fi, format!("{f}.flow"), &mut flow_app)?;
                    let kind = match oc.dist {
                        OnOffDist::Pareto => dist::OnOffKind::Pareto { shape: oc.shape },
                        OnOffDist::Exponential => dist::OnOffKind::Exponential,
                    };
                    let gen = dist::OnOff::new(dist::OnOffParams {
                        kind,
                        rate_bps: oc.rate_bps,
                        packet_size: oc.packet_size,
                        on_s: oc.on_s,
                        off_s: oc.off_s,
                    })
                    .map_err(|m| err(f.clone(), &oc.flow, m))?;
                    let s0 = non_negative(&format!("{f}.start_s"), oc.start_s)?;
                    let j = non_negative(&format!("{f}.start_jitter_s"), oc.start_jitter_s)?;
                    let stop = match oc.stop_s {
                        Some(s) => Some(SimTime::from_secs_f64(non_negative(&format!("{f}.stop_s"), s)?)),
                        None => None,
                    };
                    let mut rng = Rng::for_source(cfg.seed, &format!("onoff:{}", oc.flow));
                    let start = s0 + rng.uniform() * j;
                    let fl = &cfg.flows[fi as usize];
                    let src = node_ix[fl.src.as_str()];
                    let dst = node_ix[fl.dst.as_str()];
                    let dst_agent = (0..agents.len()).find(|&k| matches!(agents[k], AgentRef::UdpSink(u) if Some(u) == fa.udp_sink)).expect("udp sink agent") as u32;
                    flows[fi as usize].udp_src_app = Some(ai);
                    sched.at(SimTime::from_secs_f64(start), Event::App { app: ai, token: 0 });
                    apps.push(App::Udp(Box::new(UdpSource { flow: fi, node: src, dst_node: dst, dst_agent, gen: UdpGen::OnOff(gen), rng, stop, pkts_sent: 0 })));
                }
                AppConfig::Cbr { flow, start_s, stop_s, rate_bps, packet_size } => {
                    let fi = flow_of(format!("{f}.flow"), flow)?;
                    let fa = flows[fi as usize];
                    let Some(_) = fa.udp_sink else {
                        return Err(err(format!("{f}.flow"), flow, "a cbr source needs a UDP flow (transport = \"udp\")"));
                    };
                    claim(fi, format!("{f}.flow"), &mut flow_app)?;
                    let gen = dist::Cbr::new(*rate_bps, *packet_size).map_err(|m| err(f.clone(), flow, m))?;
                    let s0 = non_negative(&format!("{f}.start_s"), *start_s)?;
                    let stop = match stop_s {
                        Some(s) => Some(SimTime::from_secs_f64(non_negative(&format!("{f}.stop_s"), *s)?)),
                        None => None,
                    };
                    let fl = &cfg.flows[fi as usize];
                    let src = node_ix[fl.src.as_str()];
                    let dst = node_ix[fl.dst.as_str()];
                    let dst_agent = (0..agents.len()).find(|&k| matches!(agents[k], AgentRef::UdpSink(u) if Some(u) == fa.udp_sink)).expect("udp sink agent") as u32;
                    flows[fi as usize].udp_src_app = Some(ai);
                    sched.at(SimTime::from_secs_f64(s0), Event::App { app: ai, token: 0 });
                    let rng = Rng::for_source(cfg.seed, &format!("cbr:{flow}"));
                    apps.push(App::Udp(Box::new(UdpSource { flow: fi, node: src, dst_node: dst, dst_agent, gen: UdpGen::Cbr(gen), rng, stop, pkts_sent: 0 })));
                }
            }
        }
        let stop = SimTime::from_secs_f64(duration);
        Ok(Simulation {
            cfg,
            sched,
            net,
            shared,
            senders,
            sinks,
            udp_sinks,
            agents,
            apps,
            flow_app,
            flows,
            stop,
            finite_apps_left,
        })
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
        // Read once: the config does not change during a run.
        let stop_when_done = self.cfg.stop_when_done;
        while let Some(ev) = self.sched.pop(until) {
            self.dispatch(ev);
            if !self.shared.notices.is_empty() {
                self.handle_notices();
            }
            if stop_when_done && self.finite_apps_left == 0 {
                return false;
            }
            if self.sched.fired >= max_fired {
                return true;
            }
        }
        self.sched.advance_to(until);
        until < self.stop
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let Simulation { sched, net, shared, senders, sinks, udp_sinks, agents, apps, .. } = self;
        let mut cx = Ctx { sched, net, shared };
        match ev {
            Event::Arrive { link, pkt } => {
                if let Arrival::Deliver { agent, pkt } = cx.net.arrive(cx.sched, link, pkt) {
                    match agents[agent as usize] {
                        AgentRef::Sender(i) => senders[i as usize].recv(&mut cx, pkt),
                        AgentRef::Sink(i) => sinks[i as usize].recv(&mut cx, pkt),
                        AgentRef::UdpSink(i) => {
                            let size = cx.net.pool.get(pkt).size;
                            cx.net.pool.free(pkt);
                            let u = &mut udp_sinks[i as usize];
                            u.pkts += 1;
                            u.bytes += size as u64;
                        }
                    }
                }
            }
            Event::TxDone { link } => cx.net.tx_done(cx.sched, link),
            Event::Timer { agent, timer, gen } => match agents[agent as usize] {
                AgentRef::Sender(i) => senders[i as usize].timer(&mut cx, timer, gen),
                AgentRef::Sink(i) => sinks[i as usize].timer(&mut cx, timer, gen),
                AgentRef::UdpSink(_) => {}
            },
            Event::App { app, token } => Self::app_event(&mut cx, senders, apps, app, token),
        }
    }

    fn app_event(cx: &mut Ctx, senders: &mut [TcpSender], apps: &mut [App], app: u32, token: u32) {
        match &mut apps[app as usize] {
            App::Ftp { sender, bytes, .. } => {
                let s = &mut senders[*sender as usize];
                match bytes {
                    None => s.start_infinite(cx),
                    Some(b) => {
                        let n = b.div_ceil(s.params().size as u64) as i64;
                        s.start_transfer(cx, n, 0, *b);
                    }
                }
            }
            App::Rounds(r) => {
                let i = token as usize;
                let (sender, n, b, round) = (r.senders[i], r.pkts[i], r.bytes[i], r.round);
                senders[sender as usize].start_transfer(cx, n, round, b);
            }
            App::Telnet(t) => {
                // ns-2.35 apps/telnet.cc timeout(): send one packet, then wait next().
                senders[t.sender as usize].sendmsg_pkts(cx, 1);
                let d = t.next();
                cx.sched.after(d, Event::App { app, token: 0 });
            }
            App::Udp(u) => {
                let now = cx.now();
                if u.stop.is_some_and(|s| now >= s) {
                    return;
                }
                let (delay, size) = match &mut u.gen {
                    UdpGen::OnOff(g) => g.next(&mut u.rng),
                    UdpGen::Cbr(g) => g.next(),
                };
                if size > 0 {
                    let pkt = crate::net::packet::Packet {
                        uid: 0,
                        flow: u.flow,
                        kind: crate::net::packet::PktKind::Udp,
                        dst: u.dst_node,
                        dst_agent: u.dst_agent,
                        size,
                        seqno: u.pkts_sent as i64,
                        ts: now,
                        low_prio: false,
                        ect: false,
                        ce: false,
                        ecn_echo: false,
                    };
                    let id = cx.net.pool.alloc(pkt);
                    cx.net.send_from(cx.sched, u.node, id);
                    u.pkts_sent += 1;
                }
                if delay > 0.0 && delay.is_finite() {
                    cx.sched.after(SimTime::from_secs_f64(delay), Event::App { app, token: 0 });
                }
            }
        }
    }

    fn handle_notices(&mut self) {
        let notices = std::mem::take(&mut self.shared.notices);
        for n in &notices {
            let Notice::TransferDone { flow, .. } = *n;
            let Some(ai) = self.flow_app[flow as usize] else { continue };
            let now = self.sched.now();
            match &mut self.apps[ai as usize] {
                App::Ftp { .. } => self.finite_apps_left = self.finite_apps_left.saturating_sub(1),
                App::Rounds(r) => {
                    r.outstanding = r.outstanding.saturating_sub(1);
                    if r.outstanding == 0 && !r.done {
                        r.round += 1;
                        if r.round >= r.rounds {
                            r.done = true;
                            self.finite_apps_left = self.finite_apps_left.saturating_sub(1);
                        } else {
                            r.schedule_round(ai, now, now, &mut self.sched);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut v = notices;
        v.clear();
        if self.shared.notices.is_empty() {
            self.shared.notices = v;
        }
    }

    /// Collect the result tables.
    pub fn results(&self) -> RunResults {
        let mut r = RunResults::default();
        let names = &self.shared.flow_names;
        for t in &self.shared.transfers {
            let tt = &mut r.transfers;
            tt.flow.push(names[t.flow as usize].clone());
            tt.round.push(t.round);
            tt.bytes.push(t.bytes);
            let start = t.start.as_secs_f64();
            tt.start_s.push(start);
            match t.end {
                Some(e) => {
                    tt.end_s.push(e.as_secs_f64());
                    tt.completion_s.push(e.as_secs_f64() - start);
                }
                None => {
                    tt.end_s.push(f64::NAN);
                    tt.completion_s.push(f64::NAN);
                }
            }
            tt.retransmits.push(t.retransmits);
            tt.timeouts.push(t.timeouts);
            tt.initial_cwnd.push(t.initial_cwnd);
        }
        for (i, fa) in self.flows.iter().enumerate() {
            let ft = &mut r.flows;
            ft.flow.push(names[i].clone());
            if let (Some(s), Some(k)) = (fa.sender, fa.sink) {
                let s = &self.senders[s as usize];
                let k = &self.sinks[k as usize];
                ft.transport.push("tcp".into());
                ft.data_pkts_sent.push(s.ndatapack);
                // Payload acked: packets 0..=highest_ack, less the SYN (seq 0) when modelled.
                let acked_pkts = (s.highest_ack + 1 - s.params().syn as i64).max(0) as u64;
                ft.bytes_acked.push(acked_pkts * s.params().size as u64);
                ft.retransmits.push(s.nrexmitpack);
                ft.timeouts.push(s.nrexmit);
                ft.fast_retransmits.push(s.nfastrexmit);
                ft.final_cwnd.push(s.tcb.cwnd);
                ft.final_ssthresh.push(s.tcb.ssthresh as f64);
                ft.pkts_received.push(k.pkts_received);
            } else {
                let u = fa.udp_sink.map(|u| self.udp_sinks[u as usize]).unwrap_or_default();
                let sent = match fa.udp_src_app.map(|a| &self.apps[a as usize]) {
                    Some(App::Udp(src)) => src.pkts_sent,
                    _ => 0,
                };
                ft.transport.push("udp".into());
                ft.data_pkts_sent.push(sent);
                ft.bytes_acked.push(u.bytes);
                ft.retransmits.push(0);
                ft.timeouts.push(0);
                ft.fast_retransmits.push(0);
                ft.final_cwnd.push(f64::NAN);
                ft.final_ssthresh.push(f64::NAN);
                ft.pkts_received.push(u.pkts);
            }
        }
        for (l, link) in self.net.links.iter().enumerate() {
            r.links.link.push(self.net.link_name(l));
            r.links.arrivals.push(link.arrivals);
            r.links.departures.push(link.departures);
            r.links.drops.push(link.drops);
            r.links.bytes_departed.push(link.bytes_departed);
        }
        if let Some(a) = &self.shared.ack_trace {
            r.acks = a.clone();
        }
        if let Some(c) = &self.shared.cwnd_trace {
            r.cwnd = c.clone();
        }
        if let Some(p) = &self.net.trace {
            r.packets = p.clone();
        }
        r.startup = self.shared.startup_trace.clone();
        r.stats = RunStats {
            events: self.sched.fired,
            data_pkts_delivered: self.net.delivered_data,
            sim_end_s: self.sched.now().as_secs_f64(),
            wall_s: 0.0,
        };
        r
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.sched.now()
    }
}
