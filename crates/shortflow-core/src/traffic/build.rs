//! Building the applications of a [`SimConfig`]: each `apps[i]` table is validated
//! here (field paths in errors are `apps[i].…`) and turned into an [`App`], with its
//! first event scheduled.

use std::collections::HashMap;

use super::{dist, App, Apps, Page, Rounds, Telnet, UdpGen, UdpSource, Waiter};
use crate::config::*;
use crate::engine::{Event, Scheduler};
use crate::error::{err, positive_time_s, suggest, time_s, ConfigError};
use crate::rng::Rng;
use crate::time::SimTime;

/// A time in seconds within the clock's range (see [`time_s`]), as seconds.
fn secs(field: impl std::fmt::Display, v: f64) -> Result<f64, ConfigError> {
    time_s(field, v).map(|_| v)
}

/// What the applications need to know of each flow (`SimConfig::flows` order).
#[derive(Clone, Copy, Debug)]
pub struct FlowInfo {
    /// Index of the flow's TCP connection in the sender table, if TCP.
    pub sender: Option<u32>,
    /// Agent id of the flow's UDP sink, if UDP.
    pub udp_agent: Option<u32>,
    /// Source and destination nodes.
    pub src: u32,
    pub dst: u32,
    /// TCP payload bytes per packet.
    pub packet_size: u32,
    /// Index of the flow's TCP sink, if TCP.
    pub sink: Option<u32>,
    /// TCP header bytes, and whether the SYN exchange is modelled (`tcp.syn`).
    pub header_size: u32,
    pub syn: bool,
}

/// Validate `cfg.apps`, build them and schedule their first events.
pub fn build_apps(cfg: &SimConfig, flows: &[FlowInfo], sched: &mut Scheduler) -> Result<Apps, ConfigError> {
    // Every flow: the explicit ones, then the replicas' copies.
    let n_flows = flows.len();
    let mut udp_src_app: Vec<Option<u32>> = vec![None; n_flows];
    let mut apps: Vec<App> = Vec::with_capacity(cfg.apps.len());
    let mut flow_app: Vec<Option<u32>> = vec![None; n_flows];
    let mut finite_apps_left = 0;
    let mut waiters: Vec<Waiter> = Vec::new();
    let mut udp_mux = super::mux::UdpMux::default();
    let flow_ix: HashMap<&str, u32> = cfg.flows.iter().enumerate().map(|(i, f)| (f.name.as_str(), i as u32)).collect();
    // A replica's copies follow the explicit flows.
    let mut replica_first = Vec::with_capacity(cfg.replicas.len());
    let mut next = cfg.flows.len() as u32;
    for r in &cfg.replicas {
        replica_first.push(next);
        next += r.count;
    }
    let flow_of = |field: String, name: &str| -> Result<u32, ConfigError> {
        if let Some(&i) = flow_ix.get(name) {
            return Ok(i);
        }
        if let Some((r, i)) = crate::net::build::replica_member(cfg, name, None) {
            return Ok(replica_first[r] + i);
        }
        Err(err(field, name, format!("unknown flow{}", suggest(name, cfg.flows.iter().map(|f| &f.name)))))
    };
    let flow_name = |fi: u32| -> String {
        match cfg.flows.get(fi as usize) {
            Some(f) => f.name.clone(),
            None => {
                let r = replica_first.iter().rposition(|&first| first <= fi).expect("a replica's flow");
                format!("{}.{}", cfg.replicas[r].name, fi - replica_first[r] + 1)
            }
        }
    };
    for (i, a) in cfg.apps.iter().enumerate() {
        let f = format!("apps[{i}]");
        let ai = apps.len() as u32;
        let claim = |fi: u32, field: String, flow_app: &mut Vec<Option<u32>>| -> Result<(), ConfigError> {
            if let Some(prev) = flow_app[fi as usize] {
                return Err(err(field, flow_name(fi), format!("flow already driven by apps[{prev}]")));
            }
            flow_app[fi as usize] = Some(ai);
            Ok(())
        };
        let tcp_sender = |fi: u32, field: String| -> Result<u32, ConfigError> {
            flows[fi as usize].sender.ok_or_else(|| err(field, flow_name(fi), "this application needs a TCP flow"))
        };
        match a {
            AppConfig::Ftp { flow, start_s, bytes, start_jitter_s, start_after, stop_s, duration_s } => {
                let fi = flow_of(format!("{f}.flow"), flow)?;
                let sender = tcp_sender(fi, format!("{f}.flow"))?;
                claim(fi, format!("{f}.flow"), &mut flow_app)?;
                let mut after = Vec::with_capacity(start_after.len());
                for (k, name) in start_after.iter().enumerate() {
                    let w = flow_of(format!("{f}.start_after[{k}]"), name)?;
                    if w == fi {
                        return Err(err(
                            format!("{f}.start_after[{k}]"),
                            name,
                            "an application cannot wait for its own flow",
                        ));
                    }
                    after.push(w);
                }
                let spec = FtpSpec {
                    start_s: *start_s,
                    bytes: *bytes,
                    start_jitter_s: *start_jitter_s,
                    stop_s: *stop_s,
                    duration_s: *duration_s,
                };
                let app =
                    ftp_app(&f, flow, sender, ai, &spec, after, cfg.seed, sched, &mut waiters, &mut finite_apps_left)?;
                apps.push(app);
            }
            AppConfig::Rounds(rc) => {
                if rc.flows.is_empty() {
                    return Err(err(format!("{f}.flows"), "[]", "a rounds workload needs at least one flow"));
                }
                if rc.rounds < 1 {
                    return Err(err(format!("{f}.rounds"), rc.rounds, "must be at least 1"));
                }
                let jitter = secs(&format!("{f}.jitter_s"), rc.jitter_s)?;
                let idle = secs(&format!("{f}.idle_s"), rc.idle_s)?;
                let fc = secs(&format!("{f}.first_center_s"), rc.first_center_s)?;
                if fc < jitter / 2.0 {
                    return Err(err(
                        format!("{f}.first_center_s"),
                        fc,
                        format!("must be at least jitter_s/2 = {}", jitter / 2.0),
                    ));
                }
                if let RoundTiming::FixedPeriod { period_s } = rc.timing {
                    positive_time_s(&format!("{f}.timing.period_s"), period_s)?;
                }
                if let Some(sz) = &rc.sizes_bytes {
                    if sz.len() != rc.flows.len() {
                        return Err(err(
                            format!("{f}.sizes_bytes"),
                            sz.len(),
                            format!("needs one size per flow ({})", rc.flows.len()),
                        ));
                    }
                    if rc.round_sizes_bytes.is_some() {
                        return Err(err(
                            format!("{f}.round_sizes_bytes"),
                            "[..]",
                            "give per-flow sizes_bytes or per-round round_sizes_bytes, not both",
                        ));
                    }
                }
                if let Some(v) = &rc.round_sizes_bytes {
                    if v.len() != rc.rounds as usize {
                        return Err(err(
                            format!("{f}.round_sizes_bytes"),
                            v.len(),
                            format!("needs one size per round ({})", rc.rounds),
                        ));
                    }
                    if let Some(k) = v.iter().position(|&b| b == 0) {
                        return Err(err(format!("{f}.round_sizes_bytes[{k}]"), 0, "must be at least 1 byte"));
                    }
                }
                let mut round_jitter = None;
                if let Some(v) = &rc.round_jitter_s {
                    if v.len() != rc.rounds as usize {
                        return Err(err(
                            format!("{f}.round_jitter_s"),
                            v.len(),
                            format!("needs one width per round ({})", rc.rounds),
                        ));
                    }
                    let mut out = Vec::with_capacity(v.len());
                    for (k, &x) in v.iter().enumerate() {
                        out.push(SimTime::from_secs_f64(secs(&format!("{f}.round_jitter_s[{k}]"), x)?));
                    }
                    if fc < v[0] / 2.0 {
                        return Err(err(
                            format!("{f}.first_center_s"),
                            fc,
                            format!("must be at least round_jitter_s[0]/2 = {}", v[0] / 2.0),
                        ));
                    }
                    round_jitter = Some(out);
                }
                let page = match &rc.page {
                    None => None,
                    Some(p) => {
                        if p.html_bytes == 0 {
                            return Err(err(format!("{f}.page.html_bytes"), 0, "must be at least 1 byte"));
                        }
                        let gap = secs(&format!("{f}.page.request_gap_s"), p.request_gap_s)?;
                        Some((p.html_bytes, SimTime::from_secs_f64(gap)))
                    }
                };
                let mut ss = Vec::new();
                let mut fl = Vec::new();
                let mut pkts = Vec::new();
                let mut bytes = Vec::new();
                let mut psize = 0;
                for (k, name) in rc.flows.iter().enumerate() {
                    let fi = flow_of(format!("{f}.flows[{k}]"), name)?;
                    let sender = tcp_sender(fi, format!("{f}.flows[{k}]"))?;
                    claim(fi, format!("{f}.flows[{k}]"), &mut flow_app)?;
                    let b = rc.sizes_bytes.as_ref().map(|v| v[k]).unwrap_or(rc.size_bytes);
                    if b == 0 {
                        return Err(err(format!("{f}.size_bytes"), b, "must be at least 1 byte"));
                    }
                    let ps = flows[fi as usize].packet_size as u64;
                    if k > 0 && ps != psize && (rc.round_sizes_bytes.is_some() || page.is_some()) {
                        return Err(err(
                            format!("{f}.flows[{k}]"),
                            name,
                            "per-round sizes and pages need one packet size for every flow",
                        ));
                    }
                    psize = ps;
                    ss.push(sender);
                    fl.push(fi);
                    pkts.push(b.div_ceil(ps) as i64);
                    bytes.push(b);
                }
                let n = ss.len();
                let mut r = Rounds {
                    senders: ss,
                    flows: fl,
                    pkts,
                    bytes,
                    round_sizes: rc
                        .round_sizes_bytes
                        .as_ref()
                        .map(|v| v.iter().map(|&b| (b.div_ceil(psize) as i64, b)).collect()),
                    rounds: rc.rounds,
                    jitter: SimTime::from_secs_f64(jitter),
                    round_jitter,
                    page: page.map(|(b, gap)| Page {
                        html_pkts: b.div_ceil(psize) as i64,
                        html_bytes: b,
                        request_gap: gap,
                    }),
                    html_done: vec![false; n],
                    idle: SimTime::from_secs_f64(idle),
                    first_center: SimTime::from_secs_f64(fc),
                    timing: rc.timing,
                    rng: Rng::for_source(cfg.seed, &format!("rounds:{}", rc.flows[0])),
                    round: 0,
                    outstanding: 0,
                    done: false,
                };
                r.schedule_round(ai, SimTime::ZERO, SimTime::ZERO, sched);
                finite_apps_left += 1;
                apps.push(App::Rounds(Box::new(r)));
            }
            AppConfig::Telnet { flow, start_s, start_jitter_s, interval_s } => {
                let fi = flow_of(format!("{f}.flow"), flow)?;
                let sender = tcp_sender(fi, format!("{f}.flow"))?;
                claim(fi, format!("{f}.flow"), &mut flow_app)?;
                let s0 = secs(&format!("{f}.start_s"), *start_s)?;
                let j = secs(&format!("{f}.start_jitter_s"), *start_jitter_s)?;
                let iv = secs(&format!("{f}.interval_s"), *interval_s)?;
                let mut rng = Rng::for_source(cfg.seed, &format!("telnet:{flow}"));
                let start = s0 + rng.uniform() * j;
                let mut t = Telnet { sender, interval_s: iv, rng };
                // ns-2.35 apps/telnet.cc start(): the first packet after next().
                let first = SimTime::from_secs_f64(start) + t.next();
                sched.at(first, Event::App { app: ai, token: 0 });
                apps.push(App::Telnet(Box::new(t)));
            }
            AppConfig::OnOff(oc) => {
                let fi = flow_of(format!("{f}.flow"), &oc.flow)?;
                let fa = flows[fi as usize];
                let Some(dst_agent) = fa.udp_agent else {
                    return Err(err(
                        format!("{f}.flow"),
                        &oc.flow,
                        "an on_off source needs a UDP flow (transport = \"udp\")",
                    ));
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
                let s0 = secs(&format!("{f}.start_s"), oc.start_s)?;
                let j = secs(&format!("{f}.start_jitter_s"), oc.start_jitter_s)?;
                let stop = match oc.stop_s {
                    Some(s) => Some(time_s(&format!("{f}.stop_s"), s)?),
                    None => None,
                };
                let mut rng = Rng::for_source(cfg.seed, &format!("onoff:{}", oc.flow));
                let start = s0 + rng.uniform() * j;
                let (src, dst) = (fa.src, fa.dst);
                udp_src_app[fi as usize] = Some(ai);
                let u = UdpSource::new(fi, src, dst, dst_agent, UdpGen::OnOff(gen), rng, stop);
                udp_mux.add_source(Some(u.interval()));
                udp_mux.schedule_first(sched, SimTime::from_secs_f64(start), ai);
                apps.push(App::Udp(Box::new(u)));
            }
            AppConfig::Surge(sc) => {
                if sc.flows.is_empty() {
                    return Err(err(
                        format!("{f}.flows"),
                        "[]",
                        "a surge workload needs at least one user (a response flow)",
                    ));
                }
                if sc.request_flows.len() != sc.flows.len() {
                    return Err(err(
                        format!("{f}.request_flows"),
                        sc.request_flows.len(),
                        format!("needs one request flow per response flow ({})", sc.flows.len()),
                    ));
                }
                let dists = super::surge::SurgeDists::from_config(&f, sc)?;
                let s0 = secs(&format!("{f}.start_s"), sc.start_s)?;
                let j = secs(&format!("{f}.start_jitter_s"), sc.start_jitter_s)?;
                let stop = match sc.stop_s {
                    Some(t) => Some(time_s(&format!("{f}.stop_s"), t)?),
                    None => None,
                };
                let mut users = Vec::with_capacity(sc.flows.len());
                let mut by_flow = HashMap::with_capacity(2 * sc.flows.len());
                let mut resp_flows = Vec::with_capacity(sc.flows.len());
                let mut psize = 0u64;
                let mut req_psize = 0u64;
                for (k, (name, req)) in sc.flows.iter().zip(&sc.request_flows).enumerate() {
                    let fi = flow_of(format!("{f}.flows[{k}]"), name)?;
                    let resp_sender = tcp_sender(fi, format!("{f}.flows[{k}]"))?;
                    claim(fi, format!("{f}.flows[{k}]"), &mut flow_app)?;
                    let ri = flow_of(format!("{f}.request_flows[{k}]"), req)?;
                    let req_sender = tcp_sender(ri, format!("{f}.request_flows[{k}]"))?;
                    claim(ri, format!("{f}.request_flows[{k}]"), &mut flow_app)?;
                    let (fa, ra) = (flows[fi as usize], flows[ri as usize]);
                    if ra.src != fa.dst || ra.dst != fa.src {
                        return Err(err(
                            format!("{f}.request_flows[{k}]"),
                            req,
                            format!("must run from {name}'s destination to its source (the client asks the server)"),
                        ));
                    }
                    let ps = fa.packet_size as u64;
                    if k > 0 && (ps != psize || ra.packet_size as u64 != req_psize) {
                        return Err(err(
                            format!("{f}.flows[{k}]"),
                            name,
                            "every user's connections need the same packet sizes",
                        ));
                    }
                    psize = ps;
                    req_psize = ra.packet_size as u64;
                    let mut rng = Rng::for_source(cfg.seed, &format!("surge:{name}"));
                    let start = s0 + rng.uniform() * j;
                    let at = time_s(&format!("{f}.start_s"), start)?;
                    if stop.is_some_and(|t| t <= at) {
                        return Err(err(
                            format!("{f}.stop_s"),
                            sc.stop_s.unwrap_or_default(),
                            format!("must be after the user's start ({start} s)"),
                        ));
                    }
                    by_flow.insert(fi, (k as u32, false));
                    by_flow.insert(ri, (k as u32, true));
                    resp_flows.push(fi);
                    sched.at(at, Event::App { app: ai, token: super::surge::token(k as u32, 0) });
                    users.push(super::surge::User {
                        resp_sender,
                        req_sender,
                        rng,
                        pages: 0,
                        left: 0,
                        object: 0,
                        current: None,
                    });
                }
                let request_bytes = sc.request_bytes.unwrap_or(req_psize);
                if request_bytes == 0 {
                    return Err(err(format!("{f}.request_bytes"), 0, "must be at least 1 byte"));
                }
                apps.push(App::Surge(Box::new(super::surge::Surge {
                    users,
                    dists,
                    request_pkts: request_bytes.div_ceil(req_psize) as i64,
                    request_bytes,
                    packet_size: psize,
                    stop,
                    by_flow,
                    resp_flows,
                    objects: Vec::new(),
                })));
            }
            AppConfig::Web(wc) => {
                let mut conn_flows: Vec<Vec<u32>> = Vec::with_capacity(wc.pairs.len());
                for (k, pc) in wc.pairs.iter().enumerate() {
                    let mut v = Vec::with_capacity(pc.conns.len());
                    for (j, name) in pc.conns.iter().enumerate() {
                        let field = format!("{f}.pairs[{k}].conns[{j}]");
                        let fi = flow_of(field.clone(), name)?;
                        tcp_sender(fi, field.clone())?;
                        claim(fi, field, &mut flow_app)?;
                        v.push(fi);
                    }
                    conn_flows.push(v);
                }
                let (w, starts) = super::web::build(&f, wc, cfg.seed, flows, &conn_flows, n_flows)?;
                w.schedule_starts(ai, &starts, sched);
                finite_apps_left += 1;
                apps.push(App::Web(Box::new(w)));
            }
            AppConfig::Mux(mc) => {
                let fi = flow_of(format!("{f}.flow"), &mc.flow)?;
                tcp_sender(fi, format!("{f}.flow"))?;
                claim(fi, format!("{f}.flow"), &mut flow_app)?;
                let m = super::webmux::build(&f, mc, fi, &flows[fi as usize])?;
                m.schedule(ai, sched);
                finite_apps_left += 1;
                apps.push(App::Mux(Box::new(m)));
            }
            AppConfig::Cbr { flow, start_s, stop_s, rate_bps, packet_size } => {
                let fi = flow_of(format!("{f}.flow"), flow)?;
                let fa = flows[fi as usize];
                let Some(dst_agent) = fa.udp_agent else {
                    return Err(err(format!("{f}.flow"), flow, "a cbr source needs a UDP flow (transport = \"udp\")"));
                };
                claim(fi, format!("{f}.flow"), &mut flow_app)?;
                let gen = dist::Cbr::new(*rate_bps, *packet_size).map_err(|m| err(f.clone(), flow, m))?;
                let s0 = secs(&format!("{f}.start_s"), *start_s)?;
                let stop = match stop_s {
                    Some(s) => Some(time_s(&format!("{f}.stop_s"), *s)?),
                    None => None,
                };
                let (src, dst) = (fa.src, fa.dst);
                udp_src_app[fi as usize] = Some(ai);
                let rng = Rng::for_source(cfg.seed, &format!("cbr:{flow}"));
                let u = UdpSource::new(fi, src, dst, dst_agent, UdpGen::Cbr(gen), rng, stop);
                udp_mux.add_source(Some(u.interval()));
                udp_mux.schedule_first(sched, SimTime::from_secs_f64(s0), ai);
                apps.push(App::Udp(Box::new(u)));
            }
        }
    }
    // Replicas: one FTP application per copy, after the explicit applications.
    let mut fi = cfg.flows.len() as u32;
    let mut name = String::new();
    for (k, r) in cfg.replicas.iter().enumerate() {
        let Some(ReplicaAppConfig::Ftp { start_s, stagger_s, bytes, start_jitter_s, stop_s, duration_s }) = &r.app
        else {
            fi += r.count;
            continue;
        };
        let f = format!("replicas[{k}].app");
        secs(&format!("{f}.stagger_s"), *stagger_s)?;
        apps.reserve(r.count as usize);
        for i in 0..r.count {
            let ai = apps.len() as u32;
            if let Some(prev) = flow_app[fi as usize] {
                return Err(err(f.clone(), flow_name(fi), format!("flow already driven by apps[{prev}]")));
            }
            flow_app[fi as usize] = Some(ai);
            let sender = flows[fi as usize].sender.expect("a replica's flows are TCP");
            name.clear();
            name.push_str(&r.name);
            name.push('.');
            crate::names::push_decimal(&mut name, u64::from(i) + 1);
            // As the Python expansion writes a copy's start: 15 significant digits.
            let start_s = round15(start_s + i as f64 * stagger_s);
            let spec = FtpSpec {
                start_s,
                bytes: *bytes,
                start_jitter_s: *start_jitter_s,
                stop_s: *stop_s,
                duration_s: *duration_s,
            };
            apps.push(ftp_app(
                &f,
                &name,
                sender,
                ai,
                &spec,
                Vec::new(),
                cfg.seed,
                sched,
                &mut waiters,
                &mut finite_apps_left,
            )?);
            fi += 1;
        }
    }
    // Timed weight changes of TCP-session members.
    for (i, fl) in cfg.flows.iter().enumerate() {
        let (Some(sc), Some(sender)) = (&fl.session, flows[i].sender) else { continue };
        for (k, w) in sc.setwt.iter().enumerate() {
            let f = format!("flows[{i}].session.setwt[{k}]");
            if !(1..=crate::tcp::session::scheduler::MAX_WEIGHT).contains(&w.weight) {
                return Err(err(format!("{f}.weight"), w.weight, "must be an integer from 1 to 1000"));
            }
            let at = time_s(&format!("{f}.at_s"), w.at_s)?;
            sched.at(at, Event::App { app: apps.len() as u32, token: 0 });
            apps.push(App::SetWt { sender, weight: w.weight });
        }
    }
    if udp_src_app.iter().all(Option::is_none) {
        udp_src_app = Vec::new(); // see `Apps::udp_src_app`
    }
    let first_done = vec![false; n_flows];
    udp_mux.reserve();
    udp_mux.arm(sched);
    // `Apps::flow_app`: `NO_APP` for none, which no application's index may be.
    let flow_app = flow_app
        .iter()
        .map(|&a| match a {
            Some(a) => {
                assert_ne!(a, super::NO_APP, "more than 2^32 - 2 applications");
                a
            }
            None => super::NO_APP,
        })
        .collect();
    Ok(Apps { list: apps, flow_app, udp_src_app, finite_left: finite_apps_left, waiters, first_done, udp_mux })
}

/// An FTP application's settings (`AppConfig::Ftp`, or a replica's copy).
struct FtpSpec {
    start_s: f64,
    bytes: Option<u64>,
    start_jitter_s: f64,
    stop_s: Option<f64>,
    duration_s: Option<f64>,
}

/// Validate an FTP application (field path `f`) of flow `flow` (its TCP `sender`) and
/// build it as application `ai`: its start is scheduled, or it waits for the flows
/// `after` (with its start counted from then).
#[allow(clippy::too_many_arguments)]
fn ftp_app(
    f: &str,
    flow: &str,
    sender: u32,
    ai: u32,
    spec: &FtpSpec,
    after: Vec<u32>,
    seed: u64,
    sched: &mut Scheduler,
    waiters: &mut Vec<Waiter>,
    finite_apps_left: &mut usize,
) -> Result<App, ConfigError> {
    let FtpSpec { start_s, bytes, start_jitter_s, stop_s, duration_s } = *spec;
    let s0 = secs(format_args!("{f}.start_s"), start_s)?;
    let j = secs(format_args!("{f}.start_jitter_s"), start_jitter_s)?;
    if let Some(b) = bytes {
        if b == 0 {
            return Err(err(format!("{f}.bytes"), b, "must be at least 1 byte"));
        }
        *finite_apps_left += 1;
    }
    let s = if j > 0.0 { s0 + Rng::for_source(seed, &format!("ftp:{flow}")).uniform() * j } else { s0 };
    let start = time_s(format_args!("{f}.start_s"), s)?;
    let waits = !after.is_empty();
    if waits {
        waiters.push(Waiter { app: ai, flows: after, delay: start, fired: false });
    } else {
        sched.at(start, Event::App { app: ai, token: 0 });
    }
    let work = match (stop_s, duration_s) {
        (None, None) => bytes.map_or(super::FtpWork::Forever, super::FtpWork::Bytes),
        (Some(_), Some(_)) => {
            return Err(err(
                format!("{f}.duration_s"),
                duration_s.unwrap_or_default(),
                "give stop_s or duration_s, not both",
            ));
        }
        _ if bytes.is_some() => {
            let which = if stop_s.is_some() { "stop_s" } else { "duration_s" };
            return Err(err(
                format!("{f}.{which}"),
                stop_s.or(duration_s).unwrap_or_default(),
                "a lifetime needs an infinite source (no bytes)",
            ));
        }
        (Some(t), None) => {
            let tt = time_s(&format!("{f}.stop_s"), t)?;
            if !waits && tt <= start {
                return Err(err(
                    format!("{f}.stop_s"),
                    t,
                    format!("must be after the start ({} s)", start.as_secs_f64()),
                ));
            }
            super::FtpWork::StopAt(tt)
        }
        (None, Some(d)) => super::FtpWork::StopAfter(positive_time_s(&format!("{f}.duration_s"), d)?),
    };
    Ok(App::Ftp { sender, start, work })
}

/// `x` rounded to 15 significant digits, as Python's `float(f"{x:.15g}")`.
fn round15(x: f64) -> f64 {
    // Written on the stack (once per replica copy: no allocation); 32 bytes hold any
    // f64 in this form ("-1.23456789012345e-308" is 22).
    struct Buf([u8; 32], usize);
    impl std::fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let end = self.1 + s.len();
            self.0.get_mut(self.1..end).ok_or(std::fmt::Error)?.copy_from_slice(s.as_bytes());
            self.1 = end;
            Ok(())
        }
    }
    let mut b = Buf([0; 32], 0);
    use std::fmt::Write;
    write!(b, "{x:.14e}").expect("an f64 in {:.14e} fits 32 bytes");
    std::str::from_utf8(&b.0[..b.1]).expect("ASCII").parse().unwrap_or(x)
}
