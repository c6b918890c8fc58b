//! Building the network of a [`SimConfig`]: nodes, addresses, links with their
//! queues (each queue validated by `net::queue::build`), node elements and traced
//! links. Errors name the field (`links[2].rate_bps`) and the value.

use std::collections::HashMap;

use super::link::{Link, LinkClass, Links, RandomLoss};
use super::routing::Routes;
use super::Network;
use crate::config::{LinkConfig, SimConfig};
use crate::error::{err, positive, suggest, time_s, ConfigError};
use crate::names::Names;
use crate::results::PacketTrace;
use crate::rng::Rng;
use crate::time::SimTime;

/// The network a configuration describes, with its node names resolved.
pub struct Topology<'a> {
    pub net: Network,
    /// Node index by name (the explicit `nodes`; a replica's hosts are found by
    /// [`Topology::node`] from their name).
    pub node_ix: HashMap<&'a str, u32>,
    /// IPv4 address of every node.
    pub node_addr: Vec<u32>,
    /// Per replica (`SimConfig::replicas`): the index of its first host and of its
    /// source and destination nodes.
    pub replicas: Vec<ReplicaNodes>,
}

/// Where a replica's nodes are: copy `i` (0-based) has source host `first + 2 i` and
/// destination host `first + 2 i + 1`, attached to `src` and `dst`.
#[derive(Clone, Copy, Debug)]
pub struct ReplicaNodes {
    pub first: u32,
    pub src: u32,
    pub dst: u32,
}

impl ReplicaNodes {
    /// The source and destination host of copy `i` (0-based).
    pub fn hosts(&self, i: u32) -> (u32, u32) {
        (self.first + 2 * i, self.first + 2 * i + 1)
    }
}

/// If `name` is `X.<kind><i>` or `X.<i>` (kind `None`) for a replica `X` with `1 <= i <=
/// count`: that replica's index and `i - 1`.
pub fn replica_member(cfg: &SimConfig, name: &str, kind: Option<char>) -> Option<(usize, u32)> {
    let (base, tail) = name.rsplit_once('.')?;
    let digits = match kind {
        Some(k) => tail.strip_prefix(k)?,
        None => tail,
    };
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let i: u32 = digits.parse().ok()?;
    let r = cfg.replicas.iter().position(|r| r.name == base)?;
    (i <= cfg.replicas[r].count).then_some((r, i - 1))
}

/// The index of node `name`, or an error naming `field` (with the nearest name).
pub fn lookup_node(
    cfg: &SimConfig,
    node_ix: &HashMap<&str, u32>,
    field: String,
    name: &str,
) -> Result<u32, ConfigError> {
    node_ix
        .get(name)
        .copied()
        .ok_or_else(|| err(field, name, format!("unknown node{}", suggest(name, cfg.nodes.iter()))))
}

impl Topology<'_> {
    /// The index of node `name` (an explicit node or a replica's host), or an error
    /// naming `field`.
    pub fn node(&self, cfg: &SimConfig, field: String, name: &str) -> Result<u32, ConfigError> {
        find_node(cfg, &self.node_ix, &self.replicas, field, name)
    }
}

/// The index of node `name`: an explicit node, or a host of a replica placed at `reps`.
pub fn find_node(
    cfg: &SimConfig,
    node_ix: &HashMap<&str, u32>,
    reps: &[ReplicaNodes],
    field: String,
    name: &str,
) -> Result<u32, ConfigError> {
    if let Some(&i) = node_ix.get(name) {
        return Ok(i);
    }
    for (kind, off) in [('s', 0), ('d', 1)] {
        if let Some((r, i)) = replica_member(cfg, name, Some(kind)) {
            return Ok(reps[r].first + 2 * i + off);
        }
    }
    lookup_node(cfg, node_ix, field, name)
}

/// Links as they are built: the links (with the nodes they leave), and which explicit
/// link defined each pair (duplicates are errors).
struct LinkSet<'c> {
    cfg: &'c SimConfig,
    names: &'c Names,
    links: Links,
    /// The links' classes, one per (rate, delay) pair (`Link::class`), and their index.
    classes: Vec<LinkClass>,
    class_of: HashMap<(u64, SimTime), u32>,
    /// The last class looked up (a replica's links all have one or two: most lookups
    /// end here, without hashing).
    last_class: Option<((u64, SimTime), u32)>,
    seen: HashMap<(u32, u32), usize>,
}

impl LinkSet<'_> {
    /// Validate link `l` (field path `f`) from node `s` to node `d` and add it (both
    /// directions when duplex). `dedup`: remember the pairs to reject a second link
    /// between the same nodes (a replica's access links cannot repeat: each joins a
    /// host of its own).
    fn add(&mut self, f: &str, s: u32, d: u32, l: &LinkConfig, dedup: Option<usize>) -> Result<(), ConfigError> {
        let rate = positive(&format!("{f}.rate_bps"), l.rate_bps)?;
        if rate < 1.0 {
            return Err(err(format!("{f}.rate_bps"), rate, "must be at least 1 bit/s"));
        }
        let delay_t = time_s(&format!("{f}.delay_s"), l.delay_s)?;
        let delay = l.delay_s;
        let loss = probability(&format!("{f}.loss"), l.loss)?;
        let mut dirs = [Some((s, d, &l.queue, rate, delay, delay_t, loss)), None];
        if l.duplex {
            let (rrate, rdelay, rdelay_t) = reverse_direction(f, l, rate, delay, delay_t)?;
            let rloss = match l.reverse_loss {
                None => loss,
                Some(p) => probability(&format!("{f}.reverse_loss"), p)?,
            };
            dirs[1] = Some((d, s, l.reverse_queue.as_ref().unwrap_or(&l.queue), rrate, rdelay, rdelay_t, rloss));
        } else {
            for (name, given) in [
                ("reverse_rate_bps", l.reverse_rate_bps.is_some()),
                ("reverse_delay_s", l.reverse_delay_s.is_some()),
                ("reverse_queue", l.reverse_queue.is_some()),
                ("reverse_loss", l.reverse_loss.is_some()),
            ] {
                if given {
                    return Err(err(
                        format!("{f}.{name}"),
                        "set",
                        "only a duplex link has a reverse direction (duplex = false)",
                    ));
                }
            }
        }
        for (k, (a, b, q, rate, delay, delay_t, loss)) in dirs.into_iter().flatten().enumerate() {
            if let Some(i) = dedup {
                if let Some(prev) = self.seen.insert((a, b), i) {
                    return Err(err(
                        f.to_string(),
                        format!("{}->{}", &self.names[a as usize], &self.names[b as usize]),
                        format!("duplicate link (also defined by links[{prev}])"),
                    ));
                }
            }
            let qf = if k == 0 { format!("{f}.queue") } else { format!("{f}.reverse_queue") };
            let queue = crate::net::queue::build(&qf, q, rate, delay)?;
            let class = self.class(rate.round() as u64, delay_t);
            self.push(a, Link::new(b, class, queue), loss);
        }
        Ok(())
    }

    /// Add a link from `a` to `b` made as link `proto` was by [`LinkSet::add`] (a
    /// replica's access link: copy 0's was validated and added, the others copy it):
    /// the same class, a queue built from the same settings (`proto`'s, still empty
    /// while building: its clone), the same loss probability with the new link's own
    /// random stream. The same link `add` would build for `a -> b`, without validating
    /// and formatting field paths once per copy.
    fn add_like(&mut self, proto: usize, a: u32, b: u32) {
        let p = &self.links[proto];
        debug_assert!(p.queue.is_empty() && self.links.arrivals(proto) == 0, "a prototype link is fresh");
        let link = Link::new(b, p.class, p.queue.clone());
        let loss = self.links.loss(proto).map_or(0.0, |l| l.p);
        self.push(a, link, loss);
    }

    /// Append `link` from node `a` with random loss `loss` (0: none), its stream named
    /// by its ends.
    fn push(&mut self, a: u32, link: Link, loss: f64) {
        let b = link.dst;
        let l = self.links.push(a, link) as usize;
        if loss > 0.0 {
            let name = format!("loss:{}->{}", &self.names[a as usize], &self.names[b as usize]);
            self.links.set_loss(l, Some(RandomLoss { p: loss, rng: Rng::for_source(self.cfg.seed, &name), lost: 0 }));
        }
    }

    /// The class of links of `rate_bps` and `delay`, added if new.
    fn class(&mut self, rate_bps: u64, delay: SimTime) -> u32 {
        let key = (rate_bps, delay);
        if let Some((k, c)) = self.last_class {
            if k == key {
                return c;
            }
        }
        let classes = &mut self.classes;
        let c = *self.class_of.entry(key).or_insert_with(|| {
            classes.push(LinkClass::new(rate_bps, delay));
            classes.len() as u32 - 1
        });
        self.last_class = Some((key, c));
        c
    }
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
    // ---- replicas: their hosts follow the explicit nodes
    let mut replicas = Vec::with_capacity(cfg.replicas.len());
    let mut n_nodes = cfg.nodes.len() as u64;
    for (k, r) in cfg.replicas.iter().enumerate() {
        let f = format!("replicas[{k}]");
        check_replica_name(cfg, &f, k)?;
        if r.count == 0 {
            return Err(err(format!("{f}.count"), 0, "must be at least 1 (leave the replica out instead)"));
        }
        let src = node(format!("{f}.src"), &r.src)?;
        let dst = node(format!("{f}.dst"), &r.dst)?;
        replicas.push(ReplicaNodes { first: n_nodes as u32, src, dst });
        n_nodes += 2 * r.count as u64;
        if n_nodes > u32::MAX as u64 / 2 {
            return Err(err(format!("{f}.count"), r.count, "too many nodes in all (at most 2^31 - 1)"));
        }
    }
    for (i, n) in cfg.nodes.iter().enumerate() {
        if let Some((r, _)) = replica_member(cfg, n, Some('s')).or_else(|| replica_member(cfg, n, Some('d'))) {
            return Err(err(
                format!("nodes[{i}]"),
                n,
                format!("also the name of a host of replicas[{r}] ({})", cfg.replicas[r].name),
            ));
        }
    }
    // One buffer for every name (`Names`): replica hosts are most of the nodes.
    let name_bytes = cfg.nodes.iter().map(|n| n.len()).sum::<usize>()
        + cfg.replicas.iter().map(|r| 2 * r.count as usize * (r.name.len() + 2 + digits(r.count))).sum::<usize>();
    let mut names = Names::with_capacity(n_nodes as usize, name_bytes);
    for n in &cfg.nodes {
        names.push(n);
    }
    for r in &cfg.replicas {
        let (s, d) = (format!("{}.s", r.name), format!("{}.d", r.name));
        for i in 1..=r.count {
            names.push_indexed(&s, i.into());
            names.push_indexed(&d, i.into());
        }
    }
    // ---- addresses
    let mut node_addr: Vec<u32> = (0..n_nodes as u32).map(|i| (10u32 << 24) | (i & 0x00FF_FFFF)).collect();
    let mut topo_replicas = replicas;
    let find = |field: String, name: &str, reps: &[ReplicaNodes]| find_node(cfg, &node_ix, reps, field, name);
    for (name, a) in &cfg.addresses {
        let i = find(format!("addresses.{name}"), name, &topo_replicas)?;
        node_addr[i as usize] = parse_addr(&format!("addresses.{name}"), a)?;
    }
    // ---- links
    let n_links = cfg.links.len() * 2 + cfg.replicas.iter().map(|r| r.count as usize * 4).sum::<usize>();
    let links = Links::with_capacity(n_links);
    let mut set = LinkSet {
        cfg,
        names: &names,
        links,
        classes: Vec::new(),
        class_of: HashMap::new(),
        last_class: None,
        seen: HashMap::new(),
    };
    for (i, l) in cfg.links.iter().enumerate() {
        let f = format!("links[{i}]");
        let s = node(format!("{f}.src"), &l.src)?;
        let d = node(format!("{f}.dst"), &l.dst)?;
        if s == d {
            return Err(err(format!("{f}.dst"), &l.dst, "a link must join two different nodes"));
        }
        set.add(&f, s, d, l, Some(i))?;
    }
    for (k, r) in cfg.replicas.iter().enumerate() {
        let rn = topo_replicas[k];
        let (fa, fd) = (format!("replicas[{k}].access"), format!("replicas[{k}].dst_access"));
        let access = r.access.to_link();
        let dst_access = r.dst_access.as_ref().map(|a| a.to_link());
        let (dl, dfield) = match &dst_access {
            Some(l) => (l, &fd),
            None => (&access, &fa),
        };
        // Copy 0's links are validated and added as an explicit link's; the other
        // copies' are made like them (`LinkSet::add_like`).
        let first = set.links.len();
        for i in 0..r.count {
            let (hs, hd) = rn.hosts(i);
            if i == 0 {
                set.add(&fa, hs, rn.src, &access, None)?;
                set.add(dfield, rn.dst, hd, dl, None)?;
                debug_assert_eq!(set.links.len(), first + 4, "access links are duplex");
            } else {
                for k in 0..4 {
                    let (a, b) = [(hs, rn.src), (rn.src, hs), (rn.dst, hd), (hd, rn.dst)][k];
                    set.add_like(first + k, a, b);
                }
            }
        }
    }
    let LinkSet { links, classes, .. } = set;
    let link_pairs: Vec<(u32, u32)> = (0..links.len()).map(|l| (links.src(l), links[l].dst)).collect();
    let routes = Routes::new(names.len(), &link_pairs);
    drop(link_pairs);
    let traced_links: Vec<String> = cfg.trace.links.clone();
    let net_trace = if cfg.trace.packets { Some(PacketTrace::default()) } else { None };
    let mut net = Network::new(links, classes, names, routes, Rng::for_source(cfg.seed, "queues"), net_trace);
    // ---- node elements
    for (i, e) in cfg.elements.iter().enumerate() {
        let f = format!("elements[{i}]");
        let n = find(format!("{f}.node"), e.node(), &topo_replicas)?;
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
            net.links.set_traced(l, traced_links.is_empty() || traced_links.contains(n));
        }
    }
    topo_replicas.shrink_to_fit();
    Ok(Topology { net, node_ix, node_addr, replicas: topo_replicas })
}

/// Decimal digits of `n` (the longest index a replica's names carry).
pub fn digits(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// A replica's name: not empty and not another replica's.
fn check_replica_name(cfg: &SimConfig, f: &str, k: usize) -> Result<(), ConfigError> {
    let name = &cfg.replicas[k].name;
    if name.is_empty() {
        return Err(err(format!("{f}.name"), "\"\"", "replica names must not be empty"));
    }
    if let Some(prev) = cfg.replicas[..k].iter().position(|r| &r.name == name) {
        return Err(err(format!("{f}.name"), name, format!("duplicate replica name (also replicas[{prev}])")));
    }
    Ok(())
}

/// Rate and delay of a duplex link's reverse direction: its own (`reverse_rate_bps`,
/// `reverse_delay_s`, validated like the forward ones) or the forward values.
fn reverse_direction(
    f: &str,
    l: &crate::config::LinkConfig,
    rate: f64,
    delay: f64,
    delay_t: crate::time::SimTime,
) -> Result<(f64, f64, crate::time::SimTime), ConfigError> {
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
