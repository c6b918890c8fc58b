//! The UDP sinks' receive counters, kept by the network so that a datagram's last hop
//! can credit its sink when the hop starts: the arrival at the sink is then not an event
//! ("elided"). See docs/architecture.md, "Elided UDP deliveries", for why the run is
//! exactly the same.
//!
//! A UDP sink only counts packets and bytes. When a datagram starts its transmission on
//! the last link of its path, its arrival time is known, and if that arrival has nothing
//! to do but deliver to the sink (no trace line, no random loss, no element at the far
//! node: `Link::arrive_hooks` clear), the delivery is credited at once and the packet
//! freed. The arrival's sequence number is still taken (`Scheduler::reserve_seq`, where
//! `Scheduler::at` would have taken it), so every other event keeps its key. Results can
//! be read before such an arrival is due (a run stopped, or paused, mid-flight): each
//! sink keeps its elided deliveries not yet passed, in key order, and
//! [`UdpRx::received`] leaves out those the event loop has not reached.

use std::collections::VecDeque;

use crate::time::SimTime;

/// "Not a UDP sink" in [`UdpRx`]'s table of flows.
const NO_SINK: u32 = u32::MAX;

/// One UDP sink.
#[derive(Clone, Debug, Default)]
struct SinkRx {
    /// The sink's agent (packets for it carry it as `dst_agent`).
    agent: u32,
    /// Packets and bytes delivered, elided deliveries included from their hop's start.
    pkts: u64,
    bytes: u64,
    /// Elided deliveries whose arrival key `(time ns, seq)` the event loop may not have
    /// passed yet, with their size. They come off one link (a flow's route is static) in
    /// transmission order, so their keys increase and the passed ones are a prefix,
    /// dropped at the next credit; [`UdpRx::received`] tests every entry all the same.
    ahead: VecDeque<(u64, u64, u32)>,
}

/// Where the event loop stands, to tell which elided arrivals have happened.
#[derive(Clone, Copy, Debug)]
pub struct LoopPosition {
    /// Key of the last event fired (`Scheduler::now`, `Scheduler::current_seq`).
    pub now: SimTime,
    pub seq: u64,
    /// Every event at or before this time has fired (a `run_until` that ran dry).
    pub drained_to: Option<SimTime>,
}

impl LoopPosition {
    /// Has the loop passed an event with key `(t, s)`?
    #[inline]
    fn passed(&self, t: u64, s: u64) -> bool {
        self.drained_to.is_some_and(|d| t <= d.0) || (t, s) <= (self.now.0, self.seq)
    }
}

/// The UDP sinks of a simulation, and the flows whose packets go to them.
#[derive(Clone, Debug)]
pub struct UdpRx {
    sinks: Vec<SinkRx>,
    /// Flow index -> its sink (`NO_SINK` for TCP flows); covers the explicit flows
    /// (`SimConfig::flows`), the only ones that can be UDP.
    of_flow: Vec<u32>,
    /// Elide deliveries (on; tests turn it off to compare).
    pub elide: bool,
    /// Deliveries elided so far.
    pub elided: u64,
}

impl Default for UdpRx {
    fn default() -> Self {
        UdpRx { sinks: Vec::new(), of_flow: Vec::new(), elide: true, elided: 0 }
    }
}

impl UdpRx {
    /// Add the sink of UDP flow `flow` (agent `agent`); returns its index.
    pub fn add_sink(&mut self, flow: u32, agent: u32) -> u32 {
        let k = self.sinks.len() as u32;
        if self.of_flow.len() <= flow as usize {
            self.of_flow.resize(flow as usize + 1, NO_SINK);
        }
        self.of_flow[flow as usize] = k;
        self.sinks.push(SinkRx { agent, ..Default::default() });
        k
    }

    /// A packet delivered to sink `k` by an arrival event.
    #[inline]
    pub fn recv(&mut self, k: u32, size: u32) {
        let s = &mut self.sinks[k as usize];
        s.pkts += 1;
        s.bytes += size as u64;
    }

    /// The sink a packet of `flow` for agent `agent` is delivered to, if its delivery
    /// may be elided.
    #[inline]
    pub fn elidable(&self, flow: u32, agent: u32) -> Option<u32> {
        let k = *self.of_flow.get(flow as usize)?;
        (self.elide && k != NO_SINK && self.sinks[k as usize].agent == agent).then_some(k)
    }

    /// Credit sink `k` with a packet of `size` bytes arriving at key `(at, seq)`, from an
    /// event firing at `pos` (whose earlier keys are all passed).
    #[inline]
    pub fn credit_ahead(&mut self, k: u32, pos: (SimTime, u64), at: SimTime, seq: u64, size: u32) {
        let s = &mut self.sinks[k as usize];
        s.pkts += 1;
        s.bytes += size as u64;
        while let Some(&(t, q, _)) = s.ahead.front() {
            if (t, q) >= (pos.0 .0, pos.1) {
                break;
            }
            s.ahead.pop_front();
        }
        s.ahead.push_back((at.0, seq, size));
        self.elided += 1;
    }

    /// Packets and bytes sink `k` has received by loop position `pos`.
    pub fn received(&self, k: u32, pos: &LoopPosition) -> (u64, u64) {
        let s = &self.sinks[k as usize];
        let (mut pkts, mut bytes) = (s.pkts, s.bytes);
        for &(t, q, size) in &s.ahead {
            if !pos.passed(t, q) {
                pkts -= 1;
                bytes -= size as u64;
            }
        }
        (pkts, bytes)
    }

    /// Elided deliveries the loop has not passed at `pos` (still in the air).
    pub fn elided_ahead(&self, pos: &LoopPosition) -> u64 {
        self.sinks.iter().flat_map(|s| &s.ahead).filter(|&&(t, q, _)| !pos.passed(t, q)).count() as u64
    }

    /// Bytes held (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.sinks.capacity() * size_of::<SinkRx>()
            + self.sinks.iter().map(|s| s.ahead.capacity() * size_of::<(u64, u64, u32)>()).sum::<usize>()
            + self.of_flow.capacity() * 4
    }
}
