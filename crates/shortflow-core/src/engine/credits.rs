//! Deliveries credited ahead of their arrival: the UDP sinks' receive counters
//! (`net::udp_rx`, docs/architecture.md "Elided UDP deliveries"). A sink only counts
//! packets and bytes, so a datagram's delivery is credited when its last hop starts (the
//! network, `Network::elide_udp_arrival`) or, when that hop is folded into its feeder's
//! transmission, when the event loop passes the folded hop ([`super::Scheduler`]'s pass,
//! module docs 6.): the arrival is then not an event. The counters live in the scheduler
//! so that a pass can credit them with the arrival's exact key, whose sequence number is
//! only taken at the pass. Results can be read before such an arrival is due (a run
//! stopped, or paused, mid-flight): each sink keeps its credited deliveries that may not
//! have arrived, and [`Credits::received`] leaves out those the event loop has not reached.

use crate::time::SimTime;

/// A delivery credited ahead: arrival key `(time ns, seq)` and size.
type Ahead = (u64, u64, u32);

/// One sink.
#[derive(Clone, Debug)]
struct Sink {
    /// Packets and bytes delivered, credited deliveries included from their credit.
    pkts: u64,
    bytes: u64,
    /// The last credited deliveries, a ring of a power-of-two length: push `n` goes to
    /// slot `n & (len - 1)`. A slot is overwritten only once the loop has passed its
    /// arrival (else the ring doubles), so every delivery still in the air is here.
    /// They come off one link (a flow's route is static) in transmission order, so a
    /// few slots suffice: the datagrams one link holds in flight.
    ring: Vec<Ahead>,
    /// Credited deliveries pushed so far.
    n: u64,
}

impl Sink {
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

/// Where the event loop stands, to tell which credited arrivals have happened.
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
    pub fn passed(&self, t: u64, s: u64) -> bool {
        self.drained_to.is_some_and(|d| t <= d.0) || (t, s) <= (self.now.0, self.seq)
    }
}

/// The receive counters of every UDP sink (index: the sink's number in `net::udp_rx`).
#[derive(Clone, Debug, Default)]
pub struct Credits {
    sinks: Vec<Sink>,
    /// Deliveries credited ahead so far.
    pub elided: u64,
    /// Times a sink's ring doubled (tests).
    pub grown: u32,
}

impl Credits {
    /// A new sink's counters; returns its index.
    pub fn add_sink(&mut self) -> u32 {
        self.sinks.push(Sink { pkts: 0, bytes: 0, ring: vec![(0, 0, 0); Sink::RING], n: 0 });
        (self.sinks.len() - 1) as u32
    }

    /// A packet delivered to sink `k` by an arrival event.
    #[inline]
    pub fn recv(&mut self, k: u32, size: u32) {
        let s = &mut self.sinks[k as usize];
        s.pkts += 1;
        s.bytes += size as u64;
    }

    /// Credit sink `k` with a packet of `size` bytes arriving at key `(at, seq)`, at loop
    /// position `pos` (every earlier key is passed).
    #[inline]
    pub fn credit_ahead(&mut self, k: u32, pos: (u64, u64), at: u64, seq: u64, size: u32) {
        let s = &mut self.sinks[k as usize];
        s.pkts += 1;
        s.bytes += size as u64;
        let mask = s.ring.len() as u64 - 1;
        if s.n > mask {
            // The slot holds push n - len: overwrite it only if its arrival is passed.
            let (t, q, _) = s.ring[(s.n & mask) as usize];
            if (t, q) >= pos {
                s.grow();
                self.grown += 1;
            }
        }
        let mask = s.ring.len() as u64 - 1;
        s.ring[(s.n & mask) as usize] = (at, seq, size);
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

    /// Credited deliveries the loop has not passed at `pos` (still in the air).
    pub fn elided_ahead(&self, pos: &LoopPosition) -> u64 {
        self.sinks.iter().flat_map(|s| s.held()).filter(|&&(t, q, _)| !pos.passed(t, q)).count() as u64
    }

    /// Bytes held (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.sinks.capacity() * size_of::<Sink>()
            + self.sinks.iter().map(|s| s.ring.capacity() * size_of::<Ahead>()).sum::<usize>()
    }
}
