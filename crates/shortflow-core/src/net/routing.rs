//! Static shortest-path routing by hop count (ns-2 `rtproto Static` with unit costs).
//!
//! The rule (`shortest_paths`, the reference): for every destination, a breadth-first
//! search backwards over incoming links, each node's incoming links scanned in the order
//! the links were added; a node's route is the link over which the search first reached
//! it. Ties are therefore broken deterministically (first-reached, then first-added).
//!
//! [`Routes`] gives the same answers without an n x n table. Most nodes of a large
//! topology are *leaves*: hosts with one outgoing link `u -> r` whose incoming links
//! (if any) all come from `r`. In the backward search a leaf is reached only from `r`,
//! over its single link, and when it is dequeued it reaches nothing new (its only
//! in-neighbour `r` is already visited). So
//!
//! * a leaf's route to `d` is its one link whenever `r` is visited by the search from
//!   `d` (i.e. `d == r` or `r` has a route to `d`), and none otherwise;
//! * leaving leaves out of the search (except a leaf destination, the search's root)
//!   changes neither which non-leaf nodes are reached nor in which order, so the routes
//!   of non-leaf ("core") nodes are unchanged.
//!
//! `Routes` therefore searches only the core, keeps one row per core node, and answers
//! leaves from their neighbour's row: memory core x n instead of n x n, and time
//! n x (core nodes + core links) instead of n x (nodes + links). A dumbbell with 10^4
//! hosts has a core of two routers.

use std::collections::VecDeque;

/// `links` are (src, dst) pairs. Returns `next[node][dst]` = index of the first link
/// on a shortest path from `node` to `dst`, or `u32::MAX` when unreachable.
///
/// The reference implementation (n x n memory); the simulator uses [`Routes`].
pub fn shortest_paths(n_nodes: usize, links: &[(u32, u32)]) -> Vec<Vec<u32>> {
    // Reverse BFS from every destination over incoming links.
    let mut incoming: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n_nodes];
    for (i, &(s, d)) in links.iter().enumerate() {
        incoming[d as usize].push((s, i as u32));
    }
    let mut next = vec![vec![u32::MAX; n_nodes]; n_nodes];
    let mut dist = vec![u32::MAX; n_nodes];
    let mut q = VecDeque::new();
    for dst in 0..n_nodes {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst] = 0;
        q.clear();
        q.push_back(dst as u32);
        while let Some(v) = q.pop_front() {
            for &(u, li) in &incoming[v as usize] {
                if dist[u as usize] == u32::MAX {
                    dist[u as usize] = dist[v as usize] + 1;
                    next[u as usize][dst] = li;
                    q.push_back(u);
                }
            }
        }
    }
    next
}

const NONE: u32 = u32::MAX;

/// How a node finds its next link.
#[derive(Clone, Copy, Debug)]
struct NodeRoute {
    /// Core node: its row in `Routes::core`. Leaf: `NONE`.
    row: u32,
    /// Leaf: its one outgoing link, and that link's far end.
    link: u32,
    nbr: u32,
}

/// Compact static routing table; same answers as [`shortest_paths`] (see the module
/// docs for why).
#[derive(Clone, Debug, Default)]
pub struct Routes {
    n: usize,
    nodes: Vec<NodeRoute>,
    /// Row-major `core rows x n`: the next link from a core node to every destination.
    core: Vec<u32>,
}

impl Routes {
    /// Bytes the table holds, by capacity (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<NodeRoute>() + self.core.capacity() * 4
    }

    /// Routes over `n_nodes` nodes joined by `links` ((src, dst) pairs, in the order
    /// they were added).
    pub fn new(n_nodes: usize, links: &[(u32, u32)]) -> Routes {
        let n = n_nodes;
        // The links leaving and entering each node, in link order: one array each,
        // indexed by node (`start[u]..start[u + 1]`), not a vector per node (with a
        // replica's 2 hosts per connection, three allocations per node were most of
        // building the routes).
        let by = |end: fn(&(u32, u32)) -> u32| -> (Vec<u32>, Vec<u32>) {
            let mut start = vec![0u32; n + 1];
            for l in links {
                start[end(l) as usize + 1] += 1;
            }
            for u in 0..n {
                start[u + 1] += start[u];
            }
            let mut next = start.clone();
            let mut items = vec![0u32; links.len()];
            for (i, l) in links.iter().enumerate() {
                let k = &mut next[end(l) as usize];
                items[*k as usize] = i as u32;
                *k += 1;
            }
            (start, items)
        };
        let (out_start, out_links) = by(|l| l.0);
        let (in_start, in_links) = by(|l| l.1);
        let incoming = |u: usize| {
            in_links[in_start[u] as usize..in_start[u + 1] as usize].iter().map(|&i| (links[i as usize].0, i))
        };
        // Leaves: one outgoing link, every incoming link from that link's far end.
        let mut nodes = Vec::with_capacity(n);
        crate::sim::advise_huge_pages(&nodes);
        let mut rows = 0u32;
        for u in 0..n {
            let leaf = match &out_links[out_start[u] as usize..out_start[u + 1] as usize] {
                &[li] => {
                    let r = links[li as usize].1;
                    incoming(u).all(|(s, _)| s == r).then_some((li, r))
                }
                _ => None,
            };
            nodes.push(match leaf {
                Some((link, nbr)) => NodeRoute { row: NONE, link, nbr },
                None => {
                    rows += 1;
                    NodeRoute { row: rows - 1, link: NONE, nbr: NONE }
                }
            });
        }
        // Incoming links from core nodes only, in link order (indexed as above).
        let mut core_in_start = Vec::with_capacity(n + 1);
        let mut core_in: Vec<(u32, u32)> = Vec::new();
        core_in_start.push(0u32);
        for u in 0..n {
            core_in.extend(incoming(u).filter(|&(s, _)| nodes[s as usize].row != NONE));
            core_in_start.push(core_in.len() as u32);
        }
        let mut core = Vec::with_capacity(rows as usize * n);
        crate::sim::advise_huge_pages(&core);
        core.resize(rows as usize * n, NONE);
        // Visited marks stamped with the destination, so nothing is reset per search.
        let mut seen = vec![NONE; n];
        let mut q: VecDeque<u32> = VecDeque::new();
        for dst in 0..n {
            let stamp = dst as u32;
            seen[dst] = stamp;
            q.clear();
            q.push_back(dst as u32);
            // Only core in-neighbours are scanned, the root's included (a leaf root's
            // in-neighbour is its own neighbour; if that is a leaf, it has no row).
            while let Some(v) = q.pop_front() {
                for &(u, li) in &core_in[core_in_start[v as usize] as usize..core_in_start[v as usize + 1] as usize] {
                    if seen[u as usize] == stamp {
                        continue;
                    }
                    let row = nodes[u as usize].row;
                    seen[u as usize] = stamp;
                    core[row as usize * n + dst] = li;
                    q.push_back(u);
                }
            }
        }
        Routes { n, nodes, core }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The first link on a shortest path from `at` to `dst`, or `None` if `dst` is
    /// unreachable or `dst == at`. Exactly `shortest_paths(..)[at][dst]`.
    pub fn route(&self, at: u32, dst: u32) -> Option<u32> {
        if at == dst {
            return None;
        }
        let l = self.next(at, dst);
        (l != NONE).then_some(l)
    }

    /// Hint the entry [`Routes::next`]`(at, dst)` reads for a core node `at`
    /// (`crate::prefetch`; a leaf's entry is its node's, read anyway).
    #[inline(always)]
    pub fn prefetch(&self, at: u32, dst: u32) {
        if let Some(nr) = self.nodes.get(at as usize) {
            if nr.row != NONE {
                crate::prefetch::elem(&self.core, nr.row as usize * self.n + dst as usize);
            }
        }
    }

    /// Hot-path form of [`Routes::route`]: the link, or `u32::MAX` when unreachable.
    /// Meaningful only for `at != dst` (a node never forwards to itself).
    #[inline]
    pub fn next(&self, at: u32, dst: u32) -> u32 {
        let nr = self.nodes[at as usize];
        if nr.row != NONE {
            return self.core[nr.row as usize * self.n + dst as usize];
        }
        // A leaf: its link, if its neighbour is the destination or has a route to it.
        if dst == nr.nbr {
            return nr.link;
        }
        let r = self.nodes[nr.nbr as usize].row;
        // A leaf whose neighbour is a leaf too is half of an isolated pair.
        if r != NONE && self.core[r as usize * self.n + dst as usize] != NONE {
            nr.link
        } else {
            NONE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn chain_routes_hop_by_hop() {
        // 0 <-> 1 <-> 2
        let links = [(0, 1), (1, 0), (1, 2), (2, 1)];
        let nx = shortest_paths(3, &links);
        assert_eq!(nx[0][2], 0);
        assert_eq!(nx[1][2], 2);
        assert_eq!(nx[2][0], 3);
        assert_eq!(nx[0][0], u32::MAX);
        check_same(3, &links);
    }
    #[test]
    fn disconnected_is_unreachable() {
        let nx = shortest_paths(3, &[(0, 1)]);
        assert_eq!(nx[1][0], u32::MAX);
        assert_eq!(nx[0][2], u32::MAX);
        check_same(3, &[(0, 1)]);
    }

    fn check_same(n: usize, links: &[(u32, u32)]) {
        let want = shortest_paths(n, links);
        let r = Routes::new(n, links);
        for u in 0..n {
            for d in 0..n {
                let w = want[u][d];
                assert_eq!(r.route(u as u32, d as u32), (w != NONE).then_some(w), "{u} -> {d} in {links:?}");
                if u != d {
                    assert_eq!(r.next(u as u32, d as u32), w, "{u} -> {d} in {links:?}");
                }
            }
        }
    }

    #[test]
    fn dumbbell_core_is_two_routers() {
        // r1 = 0, r2 = 1, hosts 2.. alternately left and right; duplex links.
        let mut links = vec![(0, 1), (1, 0)];
        for h in 2..40u32 {
            let r = h % 2;
            links.push((h, r));
            links.push((r, h));
        }
        let r = Routes::new(40, &links);
        assert_eq!(r.core.len(), 2 * 40);
        check_same(40, &links);
    }

    #[test]
    fn random_topologies_match_reference() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..400 {
            let n = 1 + rnd(14) as usize;
            let mut links: Vec<(u32, u32)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let m = rnd(3 * n as u64 + 1);
            for _ in 0..m {
                let s = rnd(n as u64) as u32;
                let d = rnd(n as u64) as u32;
                if s == d || !seen.insert((s, d)) {
                    continue;
                }
                links.push((s, d));
                // Mostly duplex, as the simulator builds them; sometimes simplex.
                if case % 3 != 0 && seen.insert((d, s)) {
                    links.push((d, s));
                }
            }
            // Hang some leaf hosts (and an isolated pair) off the random core.
            let extra = rnd(6) as u32;
            let mut n2 = n as u32;
            for _ in 0..extra {
                let r = rnd(n as u64) as u32;
                links.push((n2, r));
                if rnd(4) != 0 {
                    links.push((r, n2));
                }
                n2 += 1;
            }
            if case % 5 == 0 {
                links.push((n2, n2 + 1));
                links.push((n2 + 1, n2));
                n2 += 2;
            }
            check_same(n2 as usize, &links);
        }
    }
}
