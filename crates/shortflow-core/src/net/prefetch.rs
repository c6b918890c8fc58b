//! Prefetch hints for the network's per-packet state (`crate::prefetch`): what an
//! arrival or a transmission a few events ahead will read. Hints only: nothing here
//! changes the network, and a stale or wrong guess costs a wasted prefetch, never a
//! different result.

use super::{Network, NO_LINK};
use crate::engine::PktId;
use crate::prefetch;

/// Where a packet arriving over a link goes next, as far as the network can tell
/// without changing anything ([`Network::peek_hop`]).
#[derive(Clone, Copy, Debug)]
pub enum Hop {
    /// Delivered at the link's far node to this agent.
    Deliver(u32),
    /// Forwarded by `node` towards `dst`.
    Forward { node: u32, dst: u32 },
}

impl Network {
    /// Hint the lines an arrival of `pkt` over link `l` reads first: the link and the
    /// packet.
    #[inline(always)]
    pub fn prefetch_arrival(&self, l: u32, pkt: PktId) {
        self.prefetch_link(l);
        self.pool.prefetch(pkt);
    }

    /// Where `pkt`, arriving over link `l`, goes (reads the link and the packet: call it
    /// after [`Network::prefetch_arrival`] of them). None for an index out of range.
    #[inline(always)]
    pub fn peek_hop(&self, l: u32, pkt: PktId) -> Option<Hop> {
        let node = self.links.get(l as usize)?.dst;
        let p = self.pool.try_get(pkt)?;
        Some(if p.dst == node { Hop::Deliver(p.dst_agent) } else { Hop::Forward { node, dst: p.dst } })
    }

    /// Hint link `l` (e.g. an agent's first link, which its next send arrives on), if
    /// it exists (`NO_LINK` does not).
    #[inline(always)]
    pub fn prefetch_link(&self, l: u32) {
        prefetch::elem(&self.links, l as usize);
    }

    /// Hint the route entry `node` reads to forward towards `dst`.
    #[inline(always)]
    pub fn prefetch_route(&self, node: u32, dst: u32) {
        self.routes.prefetch(node, dst);
    }

    /// Hint what forwarding from `node` towards `dst` touches once the route entry is in
    /// cache: the next link's fold state. Returns the next link's far node.
    #[inline(always)]
    pub fn prefetch_forward(&self, node: u32, dst: u32) -> Option<u32> {
        let l2 = self.routes.next(node, dst);
        let link = self.links.get(l2 as usize)?;
        prefetch::elem(&self.fold, l2 as usize);
        Some(link.dst)
    }

    /// Hint the state a folded hop from `node` towards `dst` reads (`try_fold`: the
    /// link after `node`, its fold state); reads `node`'s route entry.
    #[inline(always)]
    pub fn prefetch_fold(&self, node: u32, dst: u32) {
        if node == dst {
            return;
        }
        let l3 = self.routes.next(node, dst);
        if l3 != NO_LINK {
            self.prefetch_link(l3);
            prefetch::elem(&self.fold, l3 as usize);
        }
    }

    /// Hint the packet waiting `i` places behind the head of link `l`'s queue, and
    /// return it (None if fewer wait).
    #[inline(always)]
    pub fn prefetch_queued(&self, l: u32, i: usize) -> Option<PktId> {
        let p = self.links.get(l as usize)?.queue.peek(i)?;
        self.pool.prefetch(p);
        Some(p)
    }

    /// The destination of packet `pkt` waiting at link `l` and the link's far node (reads
    /// both: call it after [`Network::prefetch_queued`]).
    #[inline(always)]
    pub fn queued_hop(&self, l: u32, pkt: PktId) -> Option<(u32, u32)> {
        let node = self.links.get(l as usize)?.dst;
        Some((node, self.pool.try_get(pkt)?.dst))
    }
}
