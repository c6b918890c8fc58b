//! The UDP sinks' tables, kept by the network so that a datagram's last hop can credit
//! its sink when the hop starts: the arrival at the sink is then not an event
//! ("elided"). See docs/architecture.md, "Elided UDP deliveries", for why the run is
//! exactly the same.
//!
//! A UDP sink only counts packets and bytes. When a datagram starts its transmission on
//! the last link of its path, its arrival time is known, and if that arrival has nothing
//! to do but deliver to the sink (no trace line, no random loss, no element at the far
//! node: `Link::arrive_hooks` clear), the delivery is credited at once and the packet
//! freed. The arrival's sequence number is still taken (`Scheduler::reserve_seq`, where
//! `Scheduler::at` would have taken it), so every other event keeps its key. When that
//! last hop is folded into its feeder's transmission (`Network::try_fold`), the
//! scheduler credits the sink when the loop passes the folded hop, with the number the
//! hop's handler would have taken. The counters live in the scheduler
//! (`engine::credits`), which also leaves out, when results are read mid-run, the
//! credited deliveries the loop has not reached.

pub use crate::engine::credits::LoopPosition;

/// "Not a UDP sink" in [`UdpRx`]'s table of flows.
pub const NO_SINK: u32 = u32::MAX;

/// The UDP sinks of a simulation, and the flows whose packets go to them.
#[derive(Clone, Debug)]
pub struct UdpRx {
    /// Each sink's agent (packets for it carry it as `dst_agent`); the sink's counters
    /// are `Scheduler::udp_sinks`, under the same index.
    agents: Vec<u32>,
    /// Flow index -> its sink (`NO_SINK` for TCP flows); covers the explicit flows
    /// (`SimConfig::flows`), the only ones that can be UDP.
    of_flow: Vec<u32>,
    /// Per link: its far node has a UDP sink (set by [`UdpRx::finish`]; empty without
    /// UDP sinks). Only these links' datagrams are looked at further.
    last_hop: Vec<bool>,
    /// Elide deliveries (on; tests turn it off to compare).
    pub elide: bool,
}

impl Default for UdpRx {
    fn default() -> Self {
        UdpRx { agents: Vec::new(), of_flow: Vec::new(), last_hop: Vec::new(), elide: true }
    }
}

impl UdpRx {
    /// Add the sink of UDP flow `flow` (agent `agent`) whose counters are sink `k` of
    /// `Scheduler::udp_sinks` (`Credits::add_sink`, called in the same order).
    pub fn add_sink(&mut self, flow: u32, agent: u32, k: u32) {
        assert_eq!(k as usize, self.agents.len(), "sinks are added in the counters' order");
        if self.of_flow.len() <= flow as usize {
            self.of_flow.resize(flow as usize + 1, NO_SINK);
        }
        self.of_flow[flow as usize] = k;
        self.agents.push(agent);
    }

    /// After the last sink: mark the links into the sinks' nodes (`link_dst` gives each
    /// link's far node; `has_sink[node]`: the node has a UDP sink).
    pub fn finish(&mut self, link_dst: impl Iterator<Item = u32>, has_sink: &[bool]) {
        if self.agents.is_empty() {
            return;
        }
        self.last_hop = link_dst.map(|d| has_sink.get(d as usize).copied().unwrap_or(false)).collect();
    }

    /// May a datagram starting on link `l` reach a UDP sink at its far node?
    #[inline(always)]
    pub fn last_hop(&self, l: u32) -> bool {
        self.last_hop.get(l as usize).copied().unwrap_or(false)
    }

    /// The sink a packet of `flow` for agent `agent` is delivered to, if its delivery
    /// may be elided.
    #[inline(always)]
    pub fn elidable(&self, flow: u32, agent: u32) -> Option<u32> {
        let k = *self.of_flow.get(flow as usize)?;
        (self.elide && k != NO_SINK && self.agents[k as usize] == agent).then_some(k)
    }

    /// Bytes held (`Simulation::memory`; the counters are the scheduler's).
    pub fn memory_bytes(&self) -> usize {
        (self.agents.capacity() + self.of_flow.capacity()) * 4 + self.last_hop.capacity()
    }
}
