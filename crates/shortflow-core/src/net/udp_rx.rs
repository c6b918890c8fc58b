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
//! sink keeps its elided deliveries that may not have arrived, and
//! [`UdpRx::received`] leaves out those the event loop has not reached.

use crate::time::SimTime;

/// "Not a UDP sink" in [`UdpRx`]'s table of flows.
const NO_SINK: u32 = u32::MAX;

/// An elided delivery: arrival key `(time ns, seq)` and size.
type Ahead = (u64, u64, u32);

/// One UDP sink.
#[derive(Clone, Debug)]
struct SinkRx {
    /// The sink's agent (packets for it carry it as `dst_agent`).
    agent: u32,
    /// Packets and bytes delivered, elided deliveries included from their hop's start.
    pkts: u64,
    bytes: u64,
    /// The last elided deliveries, a ring of a power-of-two length: push `n` goes to
    /// slot `n & (len - 1)`. A slot is overwritten only once the loop has passed its
    /// arrival (else the ring doubles), so every delivery still in the air is here.
    /// They come off one link (a flow's route is static) in transmission order, so a
    /// few slots suffice: the datagrams one link holds in flight.
    ring: Vec<Ahead>,
    /// Elided deliveries pushed so far.
    n: u64,
}

impl SinkRx {
    /// Slots of a new ring.
    const RING: usize = 8;

    /// Slots holding deliveries (the oldest first).
    fn held(&self) -> impl Iterator<Item = &Ahead> {
        let len = self.ring.len() as u64;
        (self.n.saturating_sub(len)..self.n).map(move |j| &self.ring[(j & (len - 1)) as usize])
    }

    /// Double the ring, keeping every held delivery in its slot for the new length.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let len = self.ring.len() as u64;
        let mut ring = vec![(0, 0, 0); 2 * len as usize];
        for j in self.n.saturating_sub(len)..self.n {
            ring[(j & (2 * len - 1)) as usize] = self.ring[(j & (len - 1)) as usize];
        }
        self.ring = ring;
    }
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
    /// Per link: its far node has a UDP sink (set by [`UdpRx::finish`]; empty without
    /// UDP sinks). Only these links' datagrams are looked at further.
    last_hop: Vec<bool>,
    /// Elide deliveries (on; tests turn it off to compare).
    pub elide: bool,
    /// Deliveries elided so far.
    pub elided: u64,
    /// Times a sink's ring doubled (tests).
    pub grown: u32,
}

impl Default for UdpRx {
    fn default() -> Self {
        UdpRx { sinks: Vec::new(), of_flow: Vec::new(), last_hop: Vec::new(), elide: true, elided: 0, grown: 0 }
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
        self.sinks.push(SinkRx { agent, pkts: 0, bytes: 0, ring: vec![(0, 0, 0); SinkRx::RING], n: 0 });
        k
    }

    /// After the last sink: mark the links into the sinks' nodes (`link_dst` gives each
    /// link's far node; `has_sink[node]`: the node has a UDP sink).
    pub fn finish(&mut self, link_dst: impl Iterator<Item = u32>, has_sink: &[bool]) {
        if self.sinks.is_empty() {
            return;
        }
        self.last_hop = link_dst.map(|d| has_sink.get(d as usize).copied().unwrap_or(false)).collect();
    }

    /// May a datagram starting on link `l` reach a UDP sink at its far node?
    #[inline(always)]
    pub fn last_hop(&self, l: u32) -> bool {
        self.last_hop.get(l as usize).copied().unwrap_or(false)
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
    /// event firing at `pos` (every earlier key is passed).
    #[inline]
    pub fn credit_ahead(&mut self, k: u32, pos: (SimTime, u64), at: SimTime, seq: u64, size: u32) {
        let s = &mut self.sinks[k as usize];
        s.pkts += 1;
        s.bytes += size as u64;
        let mask = s.ring.len() as u64 - 1;
        if s.n > mask {
            // The slot holds push n - len: overwrite it only if its arrival is passed.
            let (t, q, _) = s.ring[(s.n & mask) as usize];
            if (t, q) >= (pos.0 .0, pos.1) {
                s.grow();
                self.grown += 1;
            }
        }
        let mask = s.ring.len() as u64 - 1;
        s.ring[(s.n & mask) as usize] = (at.0, seq, size);
        s.n += 1;
        self.elided += 1;
    }

    /// Packets and bytes sink `k` has received by loop position `pos`.
    pub fn received(&self, k: u32, pos: &LoopPosition) -> (u64, u64) {
        let s = &self.sinks[k as usize];
        let (mut pkts, mut bytes) = (s.pkts, s.bytes);
        for &(t, q, size) in s.held() {
            if !pos.passed(t, q) {
                pkts -= 1;
                bytes -= size as u64;
            }
        }
        (pkts, bytes)
    }

    /// Elided deliveries the loop has not passed at `pos` (still in the air).
    pub fn elided_ahead(&self, pos: &LoopPosition) -> u64 {
        self.sinks.iter().flat_map(|s| s.held()).filter(|&&(t, q, _)| !pos.passed(t, q)).count() as u64
    }

    /// Bytes held (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.sinks.capacity() * size_of::<SinkRx>()
            + self.sinks.iter().map(|s| s.ring.capacity() * size_of::<Ahead>()).sum::<usize>()
            + self.of_flow.capacity() * 4
            + self.last_hop.capacity()
    }
}
