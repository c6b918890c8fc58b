//! State that outlives a connection, in one registry: what a host has learnt about a
//! path to a destination network, and the devices that pool such knowledge across
//! hosts. Start-up policies get their connection's entry (and the devices they name),
//! never the whole world.
//!
//! - A [`PathEntry`] is keyed by (sending host, destination prefix). The prefix length
//!   is `SimConfig::paths.prefix_len` (default 32: one entry per destination host, as
//!   a TCB cache keeps it; shorter prefixes share state per network, as the thesis's
//!   Fast Start optionally does). It holds the cache of past connections' state
//!   ([`PathCache`]: Fast Start, RFC 9040 TCB sharing) and the fair-share group of
//!   the server's connections to that prefix (`crate::fairshare::Group`).
//! - A [`Gateway`] (TCP/SPAND's performance gateway) is shared by every host that names
//!   it; it keys its own history by destination prefix.
//!
//! A connection's entry is created the first time a policy asks for it, and its index
//! is then kept by the connection, so connections whose policies never use path state
//! cost the registry nothing.

use std::cell::Cell;
use std::collections::HashMap;

use crate::config::{GatewayConfig, PathsConfig};
use crate::error::{positive_time_s, ConfigError};
use crate::spand::gateway::Gateway;
use crate::time::SimTime;

/// Connection state cached for a path when a connection ends or goes idle (Fast
/// Start's cached window and RTT; RFC 9040's temporal sharing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathCache {
    /// When the state was cached (for expiry).
    pub at: SimTime,
    pub cwnd: f64,
    pub ssthresh: i32,
    /// Smoothed RTT and its variation (s), as the connection's estimator had them.
    pub srtt_s: f64,
    pub rttvar_s: f64,
}

/// What one host knows about the path to one destination prefix.
#[derive(Clone, Debug, Default)]
pub struct PathEntry {
    /// Sending host (node index).
    pub host: u32,
    /// Destination prefix (address masked to the registry's prefix length).
    pub prefix: u32,
    /// The latest cached connection state, if any.
    pub cache: Option<PathCache>,
    /// The fair-share group of this (server, prefix) (fair-share slow start): its
    /// live connections and loss history; created by the first fair-share connection.
    pub fair_share: Option<Box<crate::fairshare::Group>>,
}

impl PathEntry {
    /// The cached state if it is at most `max_age` old at `now`.
    pub fn fresh_cache(&self, now: SimTime, max_age: SimTime) -> Option<PathCache> {
        self.cache.filter(|c| now.saturating_sub(c.at) <= max_age)
    }
}

/// The registry: path entries by (host, destination prefix), and the shared devices.
#[derive(Clone, Debug)]
pub struct PathRegistry {
    prefix_len: u8,
    mask: u32,
    entries: Vec<PathEntry>,
    index: HashMap<(u32, u32), u32>,
    /// TCP/SPAND performance gateways, by their index in `SimConfig::gateways`.
    pub gateways: Vec<Gateway>,
}

impl Default for PathRegistry {
    fn default() -> Self {
        PathRegistry::new(32).expect("32 is a valid prefix length")
    }
}

impl PathRegistry {
    /// A registry grouping destinations by their top `prefix_len` bits (0..=32).
    pub fn new(prefix_len: u8) -> Result<PathRegistry, String> {
        if prefix_len > 32 {
            return Err(format!("an IPv4 prefix length must be 0..=32, not {prefix_len}"));
        }
        let mask = if prefix_len == 0 { 0 } else { u32::MAX << (32 - prefix_len) };
        Ok(PathRegistry { prefix_len, mask, entries: Vec::new(), index: HashMap::new(), gateways: Vec::new() })
    }

    /// Validate `paths` and the gateways, and build the registry; also returns each
    /// gateway's index by name (start-up policies name gateways).
    pub fn from_config<'a>(
        paths: &PathsConfig,
        gateways: &'a [GatewayConfig],
    ) -> Result<(PathRegistry, HashMap<&'a str, usize>), ConfigError> {
        let mut gw_ix: HashMap<&str, usize> = HashMap::new();
        let mut reg = PathRegistry::new(paths.prefix_len)
            .map_err(|m| ConfigError::new("paths.prefix_len", paths.prefix_len, m))?;
        for (i, g) in gateways.iter().enumerate() {
            let f = format!("gateways[{i}]");
            if gw_ix.insert(g.name.as_str(), i).is_some() {
                return Err(ConfigError::new(format!("{f}.name"), &g.name, "duplicate gateway name"));
            }
            let w = positive_time_s(&format!("{f}.window_s"), g.window_s)?;
            let gw =
                Gateway::new(w, g.min_samples, g.prefix_len).map_err(|m| ConfigError::new(f.clone(), &g.name, m))?;
            reg.gateways.push(gw);
        }
        Ok((reg, gw_ix))
    }

    pub fn prefix_len(&self) -> u8 {
        self.prefix_len
    }

    /// The entry index for (`host`, destination address `dst_addr`), created if new.
    pub fn entry_for(&mut self, host: u32, dst_addr: u32) -> u32 {
        let prefix = dst_addr & self.mask;
        let entries = &mut self.entries;
        *self.index.entry((host, prefix)).or_insert_with(|| {
            entries.push(PathEntry { host, prefix, ..Default::default() });
            (entries.len() - 1) as u32
        })
    }

    #[inline]
    pub fn entry(&mut self, id: u32) -> &mut PathEntry {
        &mut self.entries[id as usize]
    }

    pub fn entries(&self) -> &[PathEntry] {
        &self.entries
    }
}

/// "No entry yet" in a connection's entry slot.
pub const NO_PATH: u32 = u32::MAX;

/// What a policy may touch of the registry: its connection's entry and the gateways.
pub struct PathCtx<'a> {
    registry: &'a mut PathRegistry,
    host: u32,
    dst_addr: u32,
    /// The connection's entry index, `NO_PATH` until first used.
    slot: &'a Cell<u32>,
}

impl<'a> PathCtx<'a> {
    pub fn new(registry: &'a mut PathRegistry, host: u32, dst_addr: u32, slot: &'a Cell<u32>) -> Self {
        PathCtx { registry, host, dst_addr, slot }
    }
    /// This connection's path entry (created at the first call).
    #[inline]
    pub fn entry(&mut self) -> &mut PathEntry {
        if self.slot.get() == NO_PATH {
            self.slot.set(self.registry.entry_for(self.host, self.dst_addr));
        }
        self.registry.entry(self.slot.get())
    }
    /// A gateway named by the policy's configuration (an index resolved at build time).
    #[inline]
    pub fn gateway(&mut self, id: usize) -> &mut Gateway {
        &mut self.registry.gateways[id]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_per_host_and_prefix() {
        let mut r = PathRegistry::new(24).unwrap();
        let a = r.entry_for(1, 0x0A02_0005);
        let b = r.entry_for(1, 0x0A02_0077); // same /24
        let c = r.entry_for(2, 0x0A02_0005); // other host
        let d = r.entry_for(1, 0x0A03_0005); // other network
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
        assert_eq!(r.entries().len(), 3);
        assert_eq!(r.entry(a).prefix, 0x0A02_0000);
    }

    #[test]
    fn host_prefix_by_default_and_cache_expiry() {
        let mut r = PathRegistry::default();
        let a = r.entry_for(0, 0x0A00_0001);
        assert_ne!(a, r.entry_for(0, 0x0A00_0002));
        let cache = PathCache { at: SimTime::from_secs(10), cwnd: 12.0, ssthresh: 8, srtt_s: 0.1, rttvar_s: 0.02 };
        r.entry(a).cache = Some(cache);
        let e = r.entry(a).clone();
        assert_eq!(e.fresh_cache(SimTime::from_secs(20), SimTime::from_secs(10)), Some(cache));
        assert_eq!(e.fresh_cache(SimTime::from_secs(21), SimTime::from_secs(10)), None);
    }

    #[test]
    fn a_connection_gets_its_entry_at_first_use() {
        let mut r = PathRegistry::default();
        let slot = Cell::new(NO_PATH);
        assert!(r.entries().is_empty());
        PathCtx::new(&mut r, 3, 0x0A00_0009, &slot).entry().cache =
            Some(PathCache { at: SimTime::from_secs(1), cwnd: 7.0, ssthresh: 7, srtt_s: 0.1, rttvar_s: 0.0 });
        assert_eq!(slot.get(), 0);
        assert_eq!(PathCtx::new(&mut r, 3, 0x0A00_0009, &slot).entry().cache.map(|c| c.ssthresh), Some(7));
        assert_eq!(r.entries().len(), 1);
    }

    #[test]
    fn bad_prefix_length_is_refused() {
        assert!(PathRegistry::new(33).unwrap_err().contains("33"));
    }
}
