//! The network: packet arena, nodes (routing tables), links and their queues.
//!
//! Nodes forward instantly (no processing delay), as in ns-2. Routing is static
//! shortest path by hop count, computed once when the topology is built.

pub mod build;
pub mod element;
pub mod link;
pub mod packet;
pub mod prefetch;
pub mod queue;
pub mod routing;
pub mod udp_rx;

use crate::engine::credits::LoopPosition;
use crate::engine::{credit_word, Event, PktId, Scheduler, StartKey, NO_FOLD, VIRT_RESUME};
use crate::error::ConfigError;
use crate::names::Names;
use crate::net::element::{AnyElement, ElemCtx, Verdict, NO_ELEM};
use crate::net::link::{Link, LinkClass, Links};
use crate::net::packet::{PacketPool, PktKind};
use crate::net::queue::{Dropped, QueueCtx};
use crate::net::routing::Routes;
use crate::net::udp_rx::UdpRx;
use crate::results::PacketTrace;
use crate::rng::Rng;
use crate::time::SimTime;

/// "No link" / "not known": a first link an agent has not been told (see
/// [`Network::send_via`]).
pub const NO_LINK: u32 = u32::MAX;

/// In a route walk (`Network::walk_route`): "no link before this one", the packet
/// starts at this link's node.
const ORIGIN: u32 = u32::MAX - 2;

/// Where a packet ends up after arriving at a node.
pub enum Arrival {
    /// The packet reached its destination node: hand it to this agent.
    Deliver { agent: u32, pkt: PktId },
    /// Forwarded onto the next link (or dropped there).
    Forwarded,
    /// Taken by the node's element (`net::element`).
    Consumed,
}

pub struct Network {
    pub pool: PacketPool,
    pub links: Links,
    /// What links of one rate and delay share (`Link::class`).
    pub link_classes: Vec<LinkClass>,
    pub node_names: Names,
    /// Static routes: `routes.route(node, dst)` is the outgoing link towards `dst`.
    pub routes: Routes,
    /// Random stream for queues that draw (RED).
    pub queue_rng: Rng,
    pub trace: Option<PacketTrace>,
    /// Data packets delivered to their destination (for benchmarks).
    pub delivered_data: u64,
    /// Packets the queue removed during the current arrival (reused, see `link_recv`).
    drops: Vec<Dropped>,
    /// Node elements (`net::element`), at most one per node.
    pub elements: Vec<AnyElement>,
    /// Packets an element released on its last timer (reused).
    released: Vec<PktId>,
    /// The UDP sinks' counters; deliveries to them may be elided (`udp_rx`).
    pub udp: UdpRx,
    /// Acks removed by each link's ack filter (not drops: they were redundant); empty
    /// until a filter removes one, then one counter per link. Kept here, not in
    /// `Link`: few links filter acks, and every byte of `Link` counts four times per
    /// connection of a large run.
    pub(crate) filtered: Vec<u64>,
    /// Per link, what folding its incoming hops needs (`plan_folds`); empty when no
    /// hop is folded.
    fold: Vec<FoldLink>,
    /// Per feeder (indexed like its FIFO, `FoldLink::fifo`), whether its computed queue
    /// may take packets ahead of their arrival (`try_lookahead`), and how far ahead.
    lookahead: Vec<Lookahead>,
    /// No packet is smaller (`plan_folds`): the bound of `Lookahead`'s windows.
    min_bytes: u32,
}

/// Per computed queue (`Link::vqueue`): what `Network::try_lookahead` needs to enter a
/// packet into it as the link before it starts sending the packet, ahead of its
/// arrival.
#[derive(Clone, Copy, Debug)]
struct Lookahead {
    /// Every link feeding it (`plan_folds`) qualifies: none is folded onto, has a
    /// computed queue or arrival hooks, no packet enters it at its own node, and that
    /// node has no element (`Network::enable_lookahead` marks them `Link::lookahead`).
    on: bool,
    /// Over the links feeding it, the smallest `delay + txt(min_bytes)` (`min1`, on link
    /// `arg1`) and the smallest over the others (`min2`): a packet that one of them starts
    /// sending at or after `now` reaches the node no earlier than `now` plus its value.
    min1: SimTime,
    arg1: u32,
    min2: SimTime,
    /// Arrival time at the node of the latest packet towards it whose arrival was left an
    /// event (the largest such).
    unfolded: SimTime,
}

/// Per link: the state `Network::try_fold` keeps for folding hops onto it.
#[derive(Clone, Copy, Debug)]
struct FoldLink {
    /// The one link every packet entering this link arrives on, or `NO_LINK`.
    feeder: u32,
    /// The feeder's pass FIFO in the scheduler (`Scheduler::at_fold`).
    fifo: u32,
    /// Arrival time of the latest packet sent towards it that was not folded.
    unfolded_tx: SimTime,
}

impl Network {
    /// A network over `links` (of classes `link_classes`) between nodes named
    /// `node_names`, with static `routes`.
    pub fn new(
        links: Links,
        link_classes: Vec<LinkClass>,
        node_names: Names,
        routes: Routes,
        queue_rng: Rng,
        trace: Option<PacketTrace>,
    ) -> Network {
        debug_assert!(links.iter().all(|l| (l.class as usize) < link_classes.len()));
        Network {
            pool: PacketPool::new(),
            links,
            link_classes,
            node_names,
            routes,
            queue_rng,
            trace,
            delivered_data: 0,
            drops: Vec::with_capacity(16),
            elements: Vec::new(),
            released: Vec::new(),
            udp: UdpRx::default(),
            filtered: Vec::new(),
            fold: Vec::new(),
            lookahead: Vec::new(),
            min_bytes: 0,
        }
    }

    /// Attach element `e` to its node; `field` names it in errors. Returns its index.
    pub fn add_element(&mut self, field: &str, e: AnyElement) -> Result<u32, ConfigError> {
        let node = e.node();
        if let Some(prev) = self.elements.iter().position(|x| x.node() == node) {
            return Err(ConfigError::new(
                format!("{field}.node"),
                &self.node_names[node as usize],
                format!("this node already has an element (elements[{prev}])"),
            ));
        }
        let ix = self.elements.len() as u32;
        for l in 0..self.links.len() {
            if self.links[l].dst == node {
                self.links.set_dst_elem(l, ix);
            }
        }
        self.elements.push(e);
        Ok(ix)
    }

    /// The trace line and the element of an arrival on link `l` (`Link::arrive_hooks`);
    /// true if the element took the packet.
    #[cold]
    #[inline(never)]
    fn arrive_hooks(&mut self, sched: &mut Scheduler, l: u32, pkt: PktId) -> bool {
        // Random loss (`LinkConfig::loss`): the packet crossed the link (it used its
        // capacity) and is lost before the far node sees it; a drop of the link.
        if self.links.loss_mut(l as usize).is_some_and(|loss| loss.lose()) {
            self.links.count_drop(l);
            if self.links[l as usize].traced() {
                self.trace_pkt(sched.now(), b'd', l, pkt);
            }
            self.pool.free(pkt);
            return true;
        }
        let elem = self.links.dst_elem(l as usize);
        if self.links[l as usize].traced() {
            self.trace_pkt(sched.now(), b'r', l, pkt);
        }
        elem != NO_ELEM && self.element_recv(sched, elem, pkt) == Verdict::Consumed
    }

    /// Hand `pkt`, arriving at the node of element `elem`, to the element. Out of line
    /// (kept off the inlined arrival path: inlined, it made the dispatch loop call the
    /// agents' `recv` out of line, +3.5% instructions on bench a).
    #[cold]
    #[inline(never)]
    fn element_recv(&mut self, sched: &mut Scheduler, elem: u32, pkt: PktId) -> Verdict {
        let cx = &mut ElemCtx { sched, pool: &mut self.pool, elem };
        self.elements[elem as usize].recv(pkt, cx)
    }

    /// Element `elem`'s timer fired: returns its node and the packets it releases, to
    /// be handed to [`Network::release`] one by one. Give the vector back with
    /// [`Network::recycle_released`].
    pub fn element_timer(&mut self, sched: &mut Scheduler, elem: u32, token: u32) -> (u32, Vec<PktId>) {
        let mut out = std::mem::take(&mut self.released);
        let e = &mut self.elements[elem as usize];
        e.timer(token, &mut ElemCtx { sched, pool: &mut self.pool, elem }, &mut out);
        (e.node(), out)
    }

    /// Return the vector of [`Network::element_timer`], emptied, for reuse.
    pub fn recycle_released(&mut self, mut v: Vec<PktId>) {
        v.clear();
        self.released = v;
    }

    /// A packet an element at `node` releases: the node delivers or forwards it (it
    /// does not pass through the element again).
    pub fn release(&mut self, sched: &mut Scheduler, node: u32, pkt: PktId) -> Arrival {
        let p = self.pool.get(pkt);
        if p.dst == node {
            return Arrival::Deliver { agent: p.dst_agent, pkt };
        }
        self.send_from(sched, node, pkt);
        Arrival::Forwarded
    }

    /// Inject a packet at node `at` (an agent sending, or a node forwarding).
    ///
    /// Out of line, with the arrival at the link inlined (`link_recv_inline`): a hop
    /// forwarded by a node costs one call, not two (measured on bench a/b, see
    /// docs/architecture.md "Engine").
    #[inline]
    pub fn send_from(&mut self, sched: &mut Scheduler, at: u32, pkt: PktId) {
        let dst = self.pool.get(pkt).dst;
        self.forward(sched, at, dst, pkt);
    }

    /// `send_from` for a packet whose destination `dst` the caller has just read (a
    /// node forwarding an arrival): the packet is not read again before its link.
    #[inline(never)]
    fn forward(&mut self, sched: &mut Scheduler, at: u32, dst: u32, pkt: PktId) {
        debug_assert_eq!(dst, self.pool.get(pkt).dst);
        let l = self.routes.next(at, dst);
        debug_assert!(l != u32::MAX, "no route (checked at build time)");
        self.link_recv_inline(sched, l, pkt);
    }

    /// The first link from node `from` towards `to`, for an agent to keep and send
    /// through ([`Network::send_via`]); `NO_LINK` when there is no route.
    pub fn first_link(&self, from: u32, to: u32) -> u32 {
        self.routes.route(from, to).unwrap_or(NO_LINK)
    }

    /// Inject packet `pkt` at node `at` whose first link `first_link` the caller has
    /// looked up in advance ([`Network::first_link`]`(at, pkt.dst)`, constant since routes
    /// are static), or `NO_LINK` if it has not: the same as `send_from`, minus the lookup.
    /// Agents cache their first link at set-up and send every packet through here.
    #[inline]
    pub fn send_via(&mut self, sched: &mut Scheduler, at: u32, first_link: u32, pkt: PktId) {
        if first_link == NO_LINK {
            return self.send_from(sched, at, pkt);
        }
        debug_assert_eq!(first_link, self.routes.next(at, self.pool.get(pkt).dst));
        self.link_recv(sched, first_link, pkt);
    }

    /// [`Network::send_via`] with the link's arrival inlined: for the sender's `output`
    /// (a function of its own, so the copy is made once), which sends every data
    /// segment; the call into `link_recv` cost ~20 instructions per segment.
    #[inline(always)]
    pub fn send_via_inline(&mut self, sched: &mut Scheduler, at: u32, first_link: u32, pkt: PktId) {
        if first_link == NO_LINK {
            return self.send_from(sched, at, pkt);
        }
        debug_assert_eq!(first_link, self.routes.next(at, self.pool.get(pkt).dst));
        self.link_recv_inline(sched, first_link, pkt);
    }

    /// Decide which hops may be folded (see `try_fold` and docs/architecture.md,
    /// "Folded hops"), given every `(origin node, destination node)` pair a packet can
    /// travel between: a link whose packets all enter it from one link `L` (none
    /// originates at its source node) is fed by `L` alone, in `L`'s FIFO order. Routes
    /// are static, so a packet from `o` to `d` takes the links of `routes.route` hop by
    /// hop. A fed link that itself feeds a fed link keeps its own fold only (no chains:
    /// a fold enters `l2`'s transmission without `start_tx`, so its far-end arrival
    /// would not be marked in the next fold's `unfolded_tx`). Then which computed queues
    /// may take packets ahead of their arrival (`plan_lookahead`), no packet being
    /// smaller than `min_bytes`. Call once, before the first event,
    /// with the complete list; a pair left out could make a fold wrong.
    pub fn plan_folds(
        &mut self,
        sched: &mut Scheduler,
        pairs: impl IntoIterator<Item = (u32, u32)> + Clone,
        min_bytes: u32,
    ) {
        const UNSEEN: u32 = u32::MAX - 1;
        let n = self.links.len();
        if n >= (1 << 31) - 2 {
            return;
        }
        let mut feeder = vec![UNSEEN; n];
        for (o, d) in pairs.clone() {
            self.walk_route(o, d, |prev, l| {
                let f = &mut feeder[l as usize];
                if *f == UNSEEN {
                    *f = prev;
                } else if *f != prev {
                    *f = NO_LINK;
                }
            });
        }
        let fed = |l: u32| (l as usize) < n && (feeder[l as usize] as usize) < n;
        let mut fold = Vec::with_capacity(n);
        crate::sim::advise_huge_pages(&fold);
        fold.resize(n, FoldLink { feeder: NO_LINK, fifo: 0, unfolded_tx: SimTime::ZERO });
        let mut fifo = vec![u32::MAX; n];
        let mut feeders = Vec::new();
        for l in 0..n as u32 {
            let f = feeder[l as usize];
            if fed(l) && !fed(f) && !self.links[f as usize].arrive_hooks() {
                if fifo[f as usize] == u32::MAX {
                    fifo[f as usize] = feeders.len() as u32;
                    feeders.push(f);
                }
                fold[l as usize].feeder = f;
                fold[l as usize].fifo = fifo[f as usize];
                self.links[f as usize].set_feeds_fold(true);
            }
        }
        if feeders.is_empty() {
            return;
        }
        // A feeder is not fed (`!fed(f)` above), so no fold enters it: its entry names its
        // own FIFO, for its computed queue (`vq_enqueue`): a pass-through tail-drop
        // DropTail with no stage, untraced, whose far node is no UDP sink's last hop (an
        // elided delivery takes its number as the transmission starts).
        for (i, &b) in feeders.iter().enumerate() {
            fold[b as usize].fifo = i as u32;
            let link = &self.links[b as usize];
            if link.passthrough() && !link.traced() && link.queue.plain_tail() && !self.udp.last_hop(b) {
                self.links[b as usize].set_vqueue(true);
            }
        }
        self.fold = fold;
        self.plan_lookahead(pairs, min_bytes, &feeders);
        sched.enable_folds(n, feeders);
    }

    /// Call `hop(prev, l)` for each link `l` of the route from node `o` to node `d`, in
    /// order, with `prev` the link before it (`ORIGIN` for the first).
    fn walk_route(&self, o: u32, d: u32, mut hop: impl FnMut(u32, u32)) {
        let (mut node, mut prev) = (o, ORIGIN);
        // A route visits each node once: at most `nodes` hops.
        for _ in 0..self.node_names.len() {
            if node == d {
                break;
            }
            let Some(l) = self.routes.route(node, d) else { break };
            hop(prev, l);
            prev = l;
            node = self.links[l as usize].dst;
        }
    }

    /// Decide which computed queues (the `feeders` marked `Link::vqueue`) may take
    /// packets ahead of their arrival (`try_lookahead`, docs/architecture.md
    /// "Lookahead"): those whose every feeding link (from `pairs`, as in `plan_folds`)
    /// starts each of its transmissions in `start_tx` and has nothing happen at the node
    /// but the forwarding: it is not folded onto (`fold`), has no computed queue and no
    /// arrival hooks; no packet starts at the queue's node, which has no element (one
    /// holds and releases packets). Each feeding link gets its window (`Lookahead`),
    /// no packet being smaller than `min_bytes`; `enable_lookahead` marks them.
    fn plan_lookahead(&mut self, pairs: impl IntoIterator<Item = (u32, u32)> + Clone, min_bytes: u32, feeders: &[u32]) {
        let mut la: Vec<Lookahead> = feeders
            .iter()
            .map(|&b| {
                let node = self.links.src(b as usize);
                let on = self.links[b as usize].vqueue() && !self.elements.iter().any(|e| e.node() == node);
                Lookahead { on, min1: SimTime::MAX, arg1: NO_LINK, min2: SimTime::MAX, unfolded: SimTime::ZERO }
            })
            .collect();
        if !la.iter().any(|x| x.on) {
            return;
        }
        for (o, d) in pairs.clone() {
            self.walk_route(o, d, |prev, l| {
                if !self.links[l as usize].vqueue() {
                    return;
                }
                let x = &mut la[self.fold[l as usize].fifo as usize];
                if !x.on || prev == x.arg1 {
                    return;
                }
                let f = if prev == ORIGIN { None } else { Some(&self.links[prev as usize]) };
                let Some(f) =
                    f.filter(|f| self.fold[prev as usize].feeder == NO_LINK && !f.vqueue() && !f.arrive_hooks())
                else {
                    x.on = false;
                    return;
                };
                let class = &self.link_classes[f.class as usize];
                let v = class.delay + crate::time::tx_time(min_bytes, class.rate_bps());
                if v < x.min1 {
                    (x.min2, x.min1, x.arg1) = (x.min1, v, prev);
                } else if v < x.min2 {
                    x.min2 = v;
                }
            });
        }
        if la.iter().any(|x| x.on) {
            self.lookahead = la;
            self.min_bytes = min_bytes;
        }
    }

    /// Let the computed queues that may (`plan_lookahead`) take packets ahead of their
    /// arrival (`try_lookahead`): every link into such a queue's node is marked
    /// `Link::lookahead` (one that carries nothing onto the queue only looks its route
    /// up in vain). Off unless asked for: exact, with fewer events, but each packet
    /// entered ahead at an idle link trades its arrival event for a start pass, and
    /// every packet on a marked link pays the attempt; measured slower (docs/architecture.md,
    /// "Lookahead"). Before the first event only.
    pub fn enable_lookahead(&mut self) {
        let mut node = vec![false; self.node_names.len()];
        for b in 0..self.links.len() {
            if self.links[b].vqueue() && self.lookahead.get(self.fold[b].fifo as usize).is_some_and(|x| x.on) {
                node[self.links.src(b) as usize] = true;
            }
        }
        for l in 0..self.links.len() {
            if node[self.links[l].dst as usize] {
                self.links[l].set_lookahead(true);
            }
        }
    }

    /// Compute no queue at enqueue (`vq_enqueue`): every link queues its packets in its
    /// ring and fires transmission-done events, as without folds. Before the first
    /// event only (tests compare both).
    #[cfg(test)]
    pub(crate) fn drop_virtual_queues(&mut self) {
        for l in 0..self.links.len() {
            self.links[l].set_vqueue(false);
            self.links[l].set_lookahead(false);
        }
    }

    /// Fold the next hop of `p`, which link `l` has just started sending and which
    /// reaches `l`'s far node at `t_x` with the number `s_x`, if that is exact (see
    /// docs/architecture.md, "Folded hops"): the node forwards `p` onto a link `l2` fed
    /// by `l` alone (`plan_folds`), and `l2`'s state now is its state at `t_x` with its
    /// transmitter idle and its pass-through queue empty then (below). Its
    /// transmission is entered now (busy until `t_x + txt`, counters, resume number
    /// `VIRT_RESUME`) and `Scheduler::at_fold` queues the pass that gives the far-end
    /// arrival and the resume their numbers. Returns false, scheduling nothing,
    /// otherwise (and marks an unfolded packet towards `l2` in the air).
    ///
    /// A datagram onto a last hop into a UDP sink's node is folded only if its delivery
    /// there would be elided (`elide_udp_arrival`: `l2` leads to its destination, has no
    /// arrival hooks, and the flow's sink is the packet's agent; sink index and size below
    /// 2^16, `engine::credit_word`): X's handler would start
    /// `l2`'s transmission and credit the sink at F's key; the fold starts it and frees
    /// the packet, and the pass takes F's number and credits the sink with it
    /// (`Scheduler::at_fold` with the sink), so neither X nor F is an event.
    #[inline(always)]
    fn try_fold(&mut self, sched: &mut Scheduler, l: u32, p: PktId, t_x: SimTime, s_x: u64) -> bool {
        let pk = self.pool.get(p);
        let pkt = (pk.size, pk.dst, pk.kind == PktKind::Udp);
        let node = self.links[l as usize].dst;
        let (l2, far, credit) = self.decide_fold(sched.now(), l, node, p, pkt, t_x);
        if l2 == NO_FOLD {
            return false;
        }
        let fifo = self.fold[l2 as usize].fifo;
        match credit {
            // Credited at the pass (sink and size in `w`; the datagram is freed).
            Some(w) => sched.at_fold(fifo, t_x, s_x, far, l2, w, true),
            None => sched.at_fold(fifo, t_x, s_x, far, l2, p, false),
        }
        true
    }

    /// The state part of a fold onto `l2` of a packet of `size` bytes reaching `l2`'s
    /// near node at `t_x`, decided `now`: if `l2`'s state allows it (below), enter the
    /// transmission (counters, busy until `t_x + txt`, resume number `VIRT_RESUME`) and
    /// return the far-end arrival's time; else mark an unfolded packet towards `l2` in
    /// the air and return None.
    #[inline(always)]
    fn fold_state(&mut self, now: SimTime, size: u32, t_x: SimTime, l2: u32) -> Option<SimTime> {
        let Network { links, link_classes: classes, fold, .. } = self;
        let f = &mut fold[l2 as usize];
        let next = &links[l2 as usize];
        // Idle with an empty queue at `t_x`: nothing reaches `l2` but `l`'s packets, the
        // folded ones in the air have entered their transmissions already, and no
        // unfolded one is in the air (`unfolded_tx`), so `l2`'s state now is its state
        // at `t_x`. A tie with `busy_until` depends on numbers: not folded. (`l2` is
        // fed, so it is no feeder and its queue is not computed: `queue` holds it.)
        if next.busy_until >= t_x
            || f.unfolded_tx >= now
            || next.txdone_pending()
            || !next.passthrough()
            || next.traced()
            || !next.queue.is_empty()
        {
            f.unfolded_tx = t_x;
            return None;
        }
        let class = &mut classes[next.class as usize];
        let txt = class.tx_time(size);
        if txt == SimTime::ZERO {
            f.unfolded_tx = t_x;
            return None;
        }
        let far = t_x + txt + class.delay;
        let next = links.arrive_and_depart(l2, size);
        next.busy_until = t_x + txt;
        next.resume_seq = VIRT_RESUME;
        Some(far)
    }

    /// Per link, the packets and bytes counted ahead for what the loop has not passed
    /// yet (a run read before then), as `(arrivals, departures, bytes)` to be taken off
    /// `arrivals`, `departures` and `bytes_departed` when reporting: hops `try_fold`
    /// entered whose arrival has not happened, and packets waiting in a computed queue
    /// (`vq_enqueue` counted their bytes, and `departures` does not see them in the
    /// ring; the hop folded for one has not happened either; one entered ahead by
    /// `try_lookahead` may not have arrived at `pos`, the loop's position). Only links
    /// with something pending are listed, in link order (a run has at most a few
    /// packets in flight per link; a table over every link cost 24 bytes per link at the
    /// results' peak).
    pub fn pending_fold_counts(&self, sched: &Scheduler, pos: &LoopPosition) -> Vec<(u32, (u64, u64, u64))> {
        let mut v: Vec<(u32, (u64, u64, u64))> = Vec::new();
        let mut add = |l: u32, arrivals: u64, bytes: u64| v.push((l, (arrivals, 1, bytes)));
        for (l, p, credited) in sched.pending_folds() {
            add(l, 1, credited.unwrap_or_else(|| self.pool.get(p).size) as u64);
        }
        for s in sched.pending_starts() {
            let size = s.size.unwrap_or_else(|| self.pool.get(s.pkt).size) as u64;
            // Entered ahead of its arrival (`try_lookahead`): that arrival too, until passed.
            let ahead = s.arr.1 != 0 && !pos.passed(s.arr.0, s.arr.1);
            add(s.link, ahead as u64, size);
            if s.l2 != NO_FOLD {
                add(s.l2, 1, size);
            }
        }
        v.sort_unstable_by_key(|&(l, _)| l);
        v.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                let (c, d) = (&mut a.1, b.1);
                (c.0, c.1, c.2) = (c.0 + d.0, c.1 + d.1, c.2 + d.2);
            }
            same
        });
        v
    }

    /// A packet arrives at the head of link `l` (ns-2 `Queue::recv`).
    #[inline(never)]
    pub fn link_recv(&mut self, sched: &mut Scheduler, l: u32, pkt: PktId) {
        self.link_recv_inline(sched, l, pkt);
    }

    /// The body of [`Network::link_recv`], inlined into it and into `send_from`.
    #[inline(always)]
    fn link_recv_inline(&mut self, sched: &mut Scheduler, l: u32, pkt: PktId) {
        let now = sched.now();
        let link = self.links.arrive(l);
        let busy = link.busy(sched, l);
        let traced = link.traced();
        if link.passthrough() && !busy && !link.txdone_pending() && link.queue.is_empty() {
            // Idle link, empty DropTail: enqueue + dequeue would hand this very packet
            // to the transmitter (see `Link::passthrough`); skip the queue's ring buffer.
            // The queue stays empty: no resume event to schedule.
            self.start_tx::<true>(sched, l, pkt);
            if traced {
                self.trace_pkt(now, b'+', l, pkt);
                self.trace_pkt(now, b'-', l, pkt);
            }
            return;
        }
        if link.vqueue() {
            // Busy (a computed queue's link is pass-through, never has a `TxDone`
            // pending and keeps its ring empty).
            debug_assert!(busy);
            self.vq_enqueue(sched, l, pkt);
            return;
        }
        if !link.queue.try_enqueue_plain(pkt) {
            self.enqueue(now, l, pkt, busy);
        } else if traced {
            self.trace_pkt(now, b'+', l, pkt);
        }
        let Network { links, pool, .. } = self;
        let link = &mut links[l as usize];
        if !busy && !link.txdone_pending() {
            // Idle transmitter: start at once (ns-2: !blocked_ -> deque -> DelayLink).
            if let Some(p) = link.queue.dequeue(now, pool) {
                self.start_tx::<false>(sched, l, p);
                if traced {
                    self.trace_pkt(now, b'-', l, p);
                }
            }
        } else if !link.txdone_pending() && !link.queue.is_empty() {
            link.set_txdone_pending(true);
            sched.at_resume(link.busy_until, link.resume_seq, l);
        }
    }

    /// `pkt` arrives at the busy link `l`, whose queue is computed (`Link::vqueue`; see
    /// docs/architecture.md, "Computed queues"): ns-2's tail-drop DropTail drops it if
    /// `limit - 1` packets wait, else it leaves after them, so its transmission starts
    /// when the link's last one ends (`busy_until`) and its arrival at the far node is
    /// known now. The fold of the hop there is decided now too (`decide_fold`, as
    /// `try_fold` would at the start: `l2` is fed by `l` alone, so its state then is
    /// its state now plus `l`'s packets ahead of this one, all decided), and the
    /// scheduler's start pass gives the arrival and the resume their numbers at the
    /// key of the transmission-done ns-2 would fire (`Scheduler::at_start`).
    #[inline(never)]
    fn vq_enqueue(&mut self, sched: &mut Scheduler, l: u32, pkt: PktId) {
        let fi = self.fold[l as usize].fifo;
        let n = sched.vq_len(fi);
        let Network { links, pool, .. } = self;
        let link = &links[l as usize];
        if n as u64 + 1 >= link.queue.droptail_limit() as u64 {
            // `DropTail::enqueue`: the arrival is the victim (untraced link).
            links.count_drop(l);
            pool.free(pkt);
            return;
        }
        let pk = pool.get(pkt);
        let p = (pk.size, pk.dst, pk.kind == PktKind::Udp);
        let start = link.busy_until;
        let head = (n == 0).then(|| {
            let r = sched.resume_of(l, link.resume_seq);
            StartKey { time: start, seq: r, resume: r }
        });
        self.vq_enter(sched, l, fi, pkt, p, start, head, (0, 0));
    }

    /// `pkt` (`(size, dst, is_udp)`: `p`) joins the computed queue of link `l` (its
    /// start FIFO `fi`), its transmission starting at `start`: count its departure and
    /// bytes, make the link busy until its end (its resume number the start pass's), decide
    /// the fold of the hop after it and queue its start pass (`Scheduler::at_start` with
    /// `head` and `arr`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn vq_enter(
        &mut self,
        sched: &mut Scheduler,
        l: u32,
        fi: u32,
        pkt: PktId,
        p: (u32, u32, bool),
        start: SimTime,
        head: Option<StartKey>,
        arr: (u64, u64),
    ) {
        let Network { links, link_classes: classes, .. } = self;
        let link = links.depart(l, p.0);
        let class = &mut classes[link.class as usize];
        let txt = class.tx_time(p.0);
        let t_end = start + txt;
        let t_x = t_end + class.delay;
        link.busy_until = t_end;
        link.resume_seq = VIRT_RESUME;
        let node = link.dst;
        let (l2, far, credit) = self.decide_fold(sched.now(), l, node, pkt, p, t_x);
        match credit {
            None => sched.at_start(fi, head, t_end, t_x, far, l2, pkt, false, arr),
            Some(w) => sched.at_start(fi, head, t_end, t_x, far, l2, w, true, arr),
        }
    }

    /// Decide the fold of the hop after link `l` for `p`, which reaches `l`'s far node
    /// `node` at `t_x`, `now` (`try_fold` as `l` starts sending it, `vq_enqueue` as it
    /// joins `l`'s computed queue): the node must forward it onto a link `l2` fed by `l`
    /// alone, and `fold_state` enter its transmission there. Returns `(l2, far-end
    /// arrival, None)`, or `(NO_FOLD, _, None)` with the arrival left an event. A
    /// datagram onto a UDP sink's last hop folds only as a credited pass (its delivery
    /// would be elided, `elide_udp_arrival`): then the datagram is freed and its
    /// [`credit_word`] returned. `(size, dst, is_udp)`: `p`'s size, destination and
    /// whether it is a datagram.
    #[inline(always)]
    fn decide_fold(
        &mut self,
        now: SimTime,
        l: u32,
        node: u32,
        p: PktId,
        (size, dst, is_udp): (u32, u32, bool),
        t_x: SimTime,
    ) -> (u32, SimTime, Option<u32>) {
        const NONE: (u32, SimTime, Option<u32>) = (NO_FOLD, SimTime::ZERO, None);
        if dst == node {
            return NONE;
        }
        let l2 = self.routes.next(node, dst);
        match self.fold.get(l2 as usize) {
            Some(f) if f.feeder == l => {}
            _ => return NONE,
        }
        let mut credit = None;
        if is_udp && self.udp.last_hop(l2) {
            let next = &self.links[l2 as usize];
            let pk = self.pool.get(p);
            credit = match self.udp.elidable(pk.flow, pk.dst_agent) {
                Some(k) if next.dst == pk.dst && !next.arrive_hooks() => credit_word(k, pk.size),
                _ => None,
            };
            if credit.is_none() {
                // Its arrival at `l2`'s far node stays an event (or is elided there).
                self.fold[l2 as usize].unfolded_tx = t_x;
                return NONE;
            }
        }
        match self.fold_state(now, size, t_x, l2) {
            Some(far) => {
                if credit.is_some() {
                    // Credited at the pass: the datagram itself is done with.
                    self.pool.free(p);
                }
                (l2, far, credit)
            }
            None => NONE,
        }
    }

    /// Offer `pkt` to the queue of link `l` (ns-2 `Queue::recv` up to `enque`), and
    /// handle what the queue removed. Out of line, keeping the idle-link path of
    /// `link_recv` small (measured: fewer instructions per packet on bench a); the
    /// common case of a DropTail with room and no stage does not come here
    /// (`AnyQueue::try_enqueue_plain`).
    #[inline(never)]
    fn enqueue(&mut self, now: SimTime, l: u32, pkt: PktId, busy: bool) {
        let link = &mut self.links[l as usize];
        let mut cx =
            QueueCtx { now, pool: &mut self.pool, rng: &mut self.queue_rng, link_busy: busy, drops: &mut self.drops };
        link.queue.enqueue(pkt, &mut cx);
        if link.traced() {
            self.trace_pkt(now, b'+', l, pkt);
        }
        if !self.drops.is_empty() {
            self.queue_drops(now, l);
        }
    }

    /// Free, count and trace the packets the queue of link `l` removed (`self.drops`),
    /// in the order it reported them. Out of line: most arrivals drop nothing.
    #[inline(never)]
    fn queue_drops(&mut self, now: SimTime, l: u32) {
        let mut drops = std::mem::take(&mut self.drops);
        let traced = self.links[l as usize].traced();
        for d in &drops {
            if d.filtered {
                // ns-2 frees filtered acks silently (no trace line, no drop).
                if self.filtered.is_empty() {
                    self.filtered = vec![0; self.links.len()];
                }
                self.filtered[l as usize] += 1;
            } else {
                self.links.count_drop(l);
                if traced {
                    self.trace_pkt(now, b'd', l, d.pkt);
                }
            }
            self.pool.free(d.pkt);
        }
        drops.clear();
        self.drops = drops;
    }

    /// Put packet `p` on the wire of link `l` (`link`) now. The caller traces the
    /// departure (`-`) if the link is traced. `QUEUE_EMPTY`: the caller knows the
    /// queue is empty (the pass-through of `link_recv`), so no resume is due.
    ///
    /// Always inlined (into `link_recv` and `tx_done`): it runs for every packet on
    /// every hop, and as a separate function its call, spills and reloads of the link
    /// cost more than its body (measured: with `tx_done`'s, ~+8% on bench a together
    /// with fat LTO). Takes the network apart so the link is indexed once.
    ///
    /// On a link that feeds a folded hop (`Link::feeds_fold`) the arrival at the far
    /// node takes its sequence number here (the resume's is the next) and
    /// [`Network::fold_or_arrive`] folds the hop or schedules the arrival with it.
    #[inline(always)]
    fn start_tx<const QUEUE_EMPTY: bool>(&mut self, sched: &mut Scheduler, l: u32, p: PktId) {
        let now = sched.now();
        let Network { links, link_classes: classes, pool, udp, .. } = self;
        let pk = pool.get(p);
        let (size, is_udp) = (pk.size, pk.kind == PktKind::Udp);
        let link = links.depart(l, size);
        let class = &mut classes[link.class as usize];
        let txt = class.tx_time(size);
        let at = now + txt + class.delay;
        link.busy_until = now + txt;
        // ns-2 order: the arrival downstream is scheduled before the queue's resume. An
        // elided UDP delivery takes the arrival's number without scheduling it; a hop
        // that may be folded takes it now and is decided by the caller.
        let (mut fx, mut ahead) = (0, false);
        link.resume_seq = if is_udp && udp.last_hop(l) && Self::elide_udp_arrival(link, pool, udp, sched, p, at) {
            sched.reserve_seq()
        } else if link.decides_arrivals() {
            fx = sched.reserve_seq();
            ahead = link.lookahead();
            sched.reserve_seq()
        } else {
            sched.at_then_reserve(at, Event::Arrive { link: l, pkt: p })
        };
        if !QUEUE_EMPTY && !link.queue.is_empty() {
            link.set_txdone_pending(true);
            sched.at_seq(link.busy_until, link.resume_seq, Event::TxDone { link: l });
        }
        if fx != 0 {
            match ahead {
                false => self.fold_or_arrive(sched, l, p, fx, at),
                true => self.look_or_arrive(sched, l, p, fx, at),
            }
        }
    }

    /// The arrival of `p`, which link `l` has just started sending, at `l`'s far node,
    /// with the sequence number `s_x` taken for it (`start_tx`): folded if `try_fold`
    /// can, else scheduled as an event. Out of line (called only on links feeding a
    /// folded hop).
    #[inline(never)]
    fn fold_or_arrive(&mut self, sched: &mut Scheduler, l: u32, p: PktId, s_x: u64, t_x: SimTime) {
        if !self.try_fold(sched, l, p, t_x, s_x) {
            sched.at_seq(t_x, s_x, Event::Arrive { link: l, pkt: p });
        }
    }

    /// `fold_or_arrive` on a link marked `Link::lookahead`: a packet not folded is
    /// entered into the computed queue after the far node if `try_lookahead` can. Out of
    /// line (and apart from `fold_or_arrive`, which runs without lookahead).
    #[inline(never)]
    fn look_or_arrive(&mut self, sched: &mut Scheduler, l: u32, p: PktId, s_x: u64, t_x: SimTime) {
        // (A link only marked `lookahead` finds no fold: no `l2` is fed by it alone.)
        if self.try_fold(sched, l, p, t_x, s_x) || self.try_lookahead(sched, l, p, t_x, s_x) {
            return;
        }
        sched.at_seq(t_x, s_x, Event::Arrive { link: l, pkt: p });
    }

    /// Enter `p`, which link `u` has just started sending and which reaches `u`'s far
    /// node at `t_x` (its arrival numbered `s_x`), into the computed queue of the link
    /// `b` the node forwards it onto, now rather than at `t_x`, if that is exact (see
    /// docs/architecture.md, "Lookahead"); else mark it in the air towards `b` and
    /// return false. Exact when nothing reaches `b` between now and X's key but what is
    /// decided already (the packets waiting in its computed queue, all decided, leave as
    /// computed), so that `b`'s state then is its state now:
    /// - no packet towards `b` whose arrival is an event is in the air (`unfolded`);
    /// - a packet another link feeding `b` starts sending from now on arrives no
    ///   earlier than now plus its window (`Lookahead`), and X's arrival is no later (a
    ///   tie is ordered by number: that packet's is taken after X's); `u`'s own come
    ///   after X;
    /// - the queue would not drop X: fewer than `limit - 1` packets wait now, so no
    ///   more do at `t_x` (a drop is left an event).
    ///
    /// Then X's arrival is `b`'s arrival now: counted, its transmission computed (it
    /// starts when `b`'s last one ends, or at `t_x` if `b` is idle then) and the fold of
    /// the hop after it decided (`vq_enter`). At a busy `b` the arrival's handler would
    /// take no number (the packet waits: `vq_enqueue`), so X is no event at all; at an
    /// idle one it would start the transmission, so X's key is its start pass's
    /// (`Scheduler::at_start`, `run_start`: a packet starts at its arrival when that
    /// is after the end of the one before it).
    #[inline(never)]
    fn try_lookahead(&mut self, sched: &mut Scheduler, u: u32, p: PktId, t_x: SimTime, s_x: u64) -> bool {
        let now = sched.now();
        let pk = self.pool.get(p);
        let pkt = (pk.size, pk.dst, pk.kind == PktKind::Udp);
        let node = self.links[u as usize].dst;
        if pkt.1 == node {
            return false;
        }
        let b = self.routes.next(node, pkt.1);
        let link = &self.links[b as usize];
        if !link.vqueue() {
            return false;
        }
        let fi = self.fold[b as usize].fifo;
        let la = &mut self.lookahead[fi as usize];
        if !la.on {
            return false;
        }
        assert!(pkt.0 >= self.min_bytes, "a packet of {} bytes under the lookahead bound {}", pkt.0, self.min_bytes);
        let window = if la.arg1 == u { la.min2 } else { la.min1 };
        // The end of `b`'s last transmission, of the packets waiting included.
        let end = link.busy_until;
        let n = sched.vq_len(fi);
        if la.unfolded >= now || t_x > now + window || n as u64 + 1 >= link.queue.droptail_limit() as u64 {
            la.unfolded = la.unfolded.max(t_x);
            return false;
        }
        // Busy at `t_x`: X starts when `b`'s last packet ends; idle: at its arrival. At
        // exactly that end, busy if X's number comes before the resume number of the
        // last transmission (`Link::busy`): that of the one on the wire (no packet
        // waits) was taken before X's, that of the last waiting one will be taken at its
        // start pass, after X's.
        let busy = end > t_x || (end == t_x && n != 0);
        let start = end.max(t_x);
        let head = (n == 0).then(|| {
            let resume = sched.resume_of(b, link.resume_seq);
            match busy {
                true => StartKey { time: end, seq: resume, resume },
                false => StartKey { time: t_x, seq: s_x, resume },
            }
        });
        self.links.arrive(b);
        self.vq_enter(sched, b, fi, p, pkt, start, head, (t_x.0, s_x));
        match busy {
            true => sched.lookaheads += 1,
            false => sched.lookahead_starts += 1,
        }
        true
    }

    /// A UDP datagram `p` starts on link `l` and reaches the far node at `at`: if that
    /// node is its destination, its agent a UDP sink and the arrival has nothing else to
    /// do (`Link::arrive_hooks` clear: no trace line, loss or element), credit the sink
    /// now, free the packet and take the arrival's sequence number without scheduling
    /// it (true); `link` is the one `p` starts on. See `udp_rx` and docs/architecture.md, "Elided UDP deliveries". Out of
    /// line: only datagrams on a link into a node with a UDP sink come here.
    #[inline(never)]
    fn elide_udp_arrival(
        link: &Link,
        pool: &mut PacketPool,
        udp: &mut UdpRx,
        sched: &mut Scheduler,
        p: PktId,
        at: SimTime,
    ) -> bool {
        let pk = pool.get(p);
        if link.arrive_hooks() || pk.dst != link.dst {
            return false;
        }
        let Some(k) = udp.elidable(pk.flow, pk.dst_agent) else { return false };
        let size = pk.size;
        let pos = (sched.now().0, sched.current_seq());
        let seq = sched.reserve_seq();
        sched.udp_sinks.credit_ahead(k, pos, at.0, seq, size);
        pool.free(p);
        true
    }

    /// The transmitter of link `l` became free (ns-2 `Queue::resume`). Always inlined
    /// into the dispatch loop (see `start_tx`).
    #[inline(always)]
    pub fn tx_done(&mut self, sched: &mut Scheduler, l: u32) {
        let now = sched.now();
        let Network { links, pool, .. } = self;
        let link = &mut links[l as usize];
        link.set_txdone_pending(false);
        // Read before the transmission starts (nothing there changes it): the link is
        // not indexed again.
        let traced = link.traced();
        if let Some(p) = link.queue.dequeue(now, pool) {
            self.start_tx::<false>(sched, l, p);
            if traced {
                self.trace_pkt(now, b'-', l, p);
            }
        }
    }

    /// A packet finished propagating on link `l` and reaches the link's far node.
    #[inline]
    pub fn arrive(&mut self, sched: &mut Scheduler, l: u32, pkt: PktId) -> Arrival {
        // The link's fields are read once; loss, tracing and elements are one (rare) test.
        let link = &self.links[l as usize];
        let node = link.dst;
        if link.arrive_hooks() && self.arrive_hooks(sched, l, pkt) {
            return Arrival::Consumed;
        }
        let p = self.pool.get(pkt);
        if p.dst == node {
            return Arrival::Deliver { agent: p.dst_agent, pkt };
        }
        let dst = p.dst;
        self.forward(sched, node, dst, pkt);
        Arrival::Forwarded
    }

    #[cold]
    fn trace_pkt(&mut self, now: SimTime, ev: u8, l: u32, pkt: PktId) {
        let p = *self.pool.get(pkt);
        if let Some(t) = self.trace.as_mut() {
            t.time_ns.push(now.as_nanos());
            t.event.push(ev);
            t.link.push(l);
            t.flow.push(p.flow);
            t.kind.push(p.kind.code());
            t.seqno.push(p.seqno);
            t.size.push(p.size);
            t.uid.push(p.uid);
            t.low_prio.push(p.low_prio);
        }
    }

    /// Free what reading the results does not need (the routes, the fold plan and
    /// lookahead state, the dropped and released packets' lists), keeping the links,
    /// their names and counters, the packet pool and the trace. For
    /// `Simulation::into_results` only: the network cannot forward afterwards.
    pub(crate) fn free_for_results(&mut self) {
        self.routes = Routes::default();
        self.fold = Vec::new();
        self.lookahead = Vec::new();
        self.drops = Vec::new();
        self.released = Vec::new();
    }

    /// Acks removed by the ack filter of link `l`.
    pub fn filtered(&self, l: usize) -> u64 {
        self.filtered.get(l).copied().unwrap_or(0)
    }

    /// Bytes of the fold plan (`plan_folds`: one `FoldLink` per link once any hop is
    /// folded), for `Simulation::memory`.
    pub fn fold_memory_bytes(&self) -> usize {
        self.fold.capacity() * std::mem::size_of::<FoldLink>()
    }

    pub fn link_name(&self, l: usize) -> String {
        self.link_label(l).to_string()
    }

    /// Bytes of `link_label(l)`.
    pub fn link_label_len(&self, l: usize) -> usize {
        self.node_names[self.links.src(l) as usize].len() + 2 + self.node_names[self.links[l].dst as usize].len()
    }

    /// The name of link `l`, `src->dst`, as a `Display` (the results write it into
    /// their name table without a `String` per link).
    pub fn link_label(&self, l: usize) -> impl std::fmt::Display + '_ {
        struct Label<'a>(&'a str, &'a str);
        impl std::fmt::Display for Label<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}->{}", self.0, self.1)
            }
        }
        Label(&self.node_names[self.links.src(l) as usize], &self.node_names[self.links[l].dst as usize])
    }
}
