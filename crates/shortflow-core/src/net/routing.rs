//! Static shortest-path routing by hop count (ns-2 `rtproto Static` with unit costs).
//! Ties are broken towards the link added first, deterministically.

use std::collections::VecDeque;

/// `links` are (src, dst) pairs. Returns `next[node][dst]` = index of the first link
/// on a shortest path from `node` to `dst`, or `u32::MAX` when unreachable.
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
    }
    #[test]
    fn disconnected_is_unreachable() {
        let nx = shortest_paths(3, &[(0, 1)]);
        assert_eq!(nx[1][0], u32::MAX);
        assert_eq!(nx[0][2], u32::MAX);
    }
}
