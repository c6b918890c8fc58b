//! Building the network of a [`SimConfig`]: nodes, addresses, links with their
//! queues (each queue validated by `net::queue::build`), node elements and traced
//! links. Errors name the field (`links[2].rate_bps`) and the value.

use std::collections::HashMap;

use super::link::{Link, RandomLoss};
use super::routing::Routes;
use super::Network;
use crate::config::SimConfig;
use crate::error::{err, positive, suggest, time_s, ConfigError};
use crate::results::PacketTrace;
use crate::rng::Rng;

/// The network a configuration describes, with its node names resolved.
pub struct Topology<'a> {
    pub net: Network,
    /// Node index by name.
    pub node_ix: HashMap<&'a str, u32>,
    /// IPv4 address of every node.
    pub node_addr: Vec<u32>,
}

/// The index of node `name`, or an error naming `field` (with the nearest name).
pub fn lookup_node(cfg: &SimConfig, node_ix: &HashMap<&str, u32>, field: String, name: &str) -> Result<u32, ConfigError> {
    node_ix
        .get(name)
        .copied()
        .ok_or_else(|| err(field, name, format!("unknown node{}", suggest(name, cfg.nodes.iter()))))
}

/// Validate the topology part of `cfg` and build the network.
pub fn build_network(cfg: &SimConfig) -> Result<Topology<'_>, ConfigError> {
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
    let node = |field: String, name: &str| -> Result<u32, ConfigError> { lookup_node(cfg, &node_ix, field, name) };
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
        let delay_t = time_s(&format!("{f}.delay_s"), l.delay_s)?;
        let delay = l.delay_s;
        let loss = probability(&format!("{f}.loss"), l.loss)?;
        let mut dirs = vec![(s, d, &l.queue, rate, delay, delay_t, loss)];
        if l.duplex {
            let (rrate, rdelay, rdelay_t) = reverse_direction(&f, l, rate, delay, delay_t)?;
            let rloss = match l.reverse_loss {
                None => loss,
                Some(p) => probability(&format!("{f}.reverse_loss"), p)?,
            };
            dirs.push((d, s, l.reverse_queue.as_ref().unwrap_or(&l.queue), rrate, rdelay, rdelay_t, rloss));
        } else {
            for (name, given) in [("reverse_rate_bps", l.reverse_rate_bps.is_some()), ("reverse_delay_s", l.reverse_delay_s.is_some()), ("reverse_queue", l.reverse_queue.is_some()), ("reverse_loss", l.reverse_loss.is_some())] {
                if given {
                    return Err(err(format!("{f}.{name}"), "set", "only a duplex link has a reverse direction (duplex = false)"));
                }
            }
        }
        for (k, (a, b, q, rate, delay, delay_t, loss)) in dirs.into_iter().enumerate() {
            if let Some(prev) = seen_pairs.insert((a, b), i) {
                return Err(err(
                    format!("{f}"),
                    format!("{}->{}", cfg.nodes[a as usize], cfg.nodes[b as usize]),
                    format!("duplicate link (also defined by links[{prev}])"),
                ));
            }
            let qf = if k == 0 { format!("{f}.queue") } else { format!("{f}.reverse_queue") };
            let queue = crate::net::queue::build(&qf, q, rate, delay)?;
            let mut link = Link::new(a, b, rate.round() as u64, delay_t, queue);
            if loss > 0.0 {
                let name = format!("loss:{}->{}", cfg.nodes[a as usize], cfg.nodes[b as usize]);
                link.set_loss(Some(Box::new(RandomLoss { p: loss, rng: Rng::for_source(cfg.seed, &name), lost: 0 })));
            }
            links.push(link);
            link_pairs.push((a, b));
        }
    }
    let routes = Routes::new(cfg.nodes.len(), &link_pairs);
    let traced_links: Vec<String> = cfg.trace.links.clone();
    let net_trace = if cfg.trace.packets { Some(PacketTrace::default()) } else { None };
    let mut net = Network::new(links, cfg.nodes.clone(), routes, Rng::for_source(cfg.seed, "queues"), net_trace);
    // ---- node elements
    for (i, e) in cfg.elements.iter().enumerate() {
        let f = format!("elements[{i}]");
        let n = node(format!("{f}.node"), e.node())?;
        let el = crate::net::element::build(&f, e, n)?;
        net.add_element(&f, el)?;
    }
    if cfg.trace.packets {
        let names: Vec<String> = (0..net.links.len()).map(|l| net.link_name(l)).collect();
        for t in &traced_links {
            if !names.contains(t) {
                return Err(err("trace.links", t, format!("no such link{}", suggest(t, names.iter()))));
            }
        }
        for (l, n) in names.iter().enumerate() {
            net.links[l].set_traced(traced_links.is_empty() || traced_links.contains(n));
        }
    }
    Ok(Topology { net, node_ix, node_addr })
}

/// Rate and delay of a duplex link's reverse direction: its own (`reverse_rate_bps`,
/// `reverse_delay_s`, validated like the forward ones) or the forward values.
fn reverse_direction(f: &str, l: &crate::config::LinkConfig, rate: f64, delay: f64, delay_t: crate::time::SimTime) -> Result<(f64, f64, crate::time::SimTime), ConfigError> {
    let rate = match l.reverse_rate_bps {
        None => rate,
        Some(r) => {
            let r = positive(&format!("{f}.reverse_rate_bps"), r)?;
            if r < 1.0 {
                return Err(err(format!("{f}.reverse_rate_bps"), r, "must be at least 1 bit/s"));
            }
            r
        }
    };
    let (delay, delay_t) = match l.reverse_delay_s {
        None => (delay, delay_t),
        Some(d) => (d, time_s(&format!("{f}.reverse_delay_s"), d)?),
    };
    Ok((rate, delay, delay_t))
}

/// A loss probability: a number in [0, 1).
fn probability(field: &str, p: f64) -> Result<f64, ConfigError> {
    if !(p.is_finite() && (0.0..1.0).contains(&p)) {
        return Err(err(field, p, "must be a probability in [0, 1) (0: no loss)"));
    }
    Ok(p)
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

