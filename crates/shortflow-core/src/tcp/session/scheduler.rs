//! A session's connection scheduler (spec thesis-http-session C.4, D.1): which member
//! sends the next segment when the session window has room.
//!
//! - Round robin (the thesis's default): the next eligible member after the last one
//!   served, one segment per turn.
//! - Weighted: smooth weighted round robin. Each pick adds every eligible member's
//!   weight to its credit, serves the member with the largest credit (the earliest in
//!   member order on a tie) and takes the eligible members' total weight from it.
//!   Shares are proportional to the weights, spread as evenly as possible (weights
//!   3/2/1 give A B A C B A), and only eligible members take part, so a stalled
//!   member's share goes to the others at once (spec D.1 (i)-(iii)). The thesis uses
//!   hierarchical round robin (Kalmanek et al.); the spec accepts this scheduler in its
//!   place, since the thesis gives neither the level structure nor slot orders.
//! - Hierarchical round robin (`hrr`; thesis §7.1.1, Fig. 7.1; Kalmanek, Kanakia and
//!   Keshav 1990): the weights, divided by their greatest common divisor, sum to W; W's
//!   prime factors n_1 <= n_2 <= ... give the levels. A slot of level i is worth
//!   1 / (n_1 ... n_i) of the cycle, and a member holds d_i slots of level i, the
//!   mixed-radix digits of its share w / W; the slots a level does not hand out are
//!   "go down" slots that serve the next level's frame, one slot each (Fig. 7.1(b):
//!   weights 1/2, 1/3, 1/6 give level 1 = [A, down], level 2 = [B, B, C]). Within a
//!   level frame the slots are spread evenly (smooth weighted round robin over the
//!   members' digits and the down slots). The cycle of W slots is built once per weight
//!   change or new member (`weights_changed`), not per packet. Work conserving (spec D.1
//!   (iii)): a pick takes the next slot in the cycle whose member may send, so the slots
//!   of a member with nothing to send go to the others at once.

use crate::config::SessionScheduler;

/// What the scheduler keeps per member.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Scheduling weight (`setwt`), at least 1.
    pub weight: u32,
    /// Smooth-WRR credit.
    credit: i64,
}

impl Slot {
    pub fn new(weight: u32) -> Slot {
        Slot { weight: weight.max(1), credit: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Scheduler {
    pub kind: SessionScheduler,
    /// Round robin: the member served last. HRR: the next position in `cycle`.
    cursor: usize,
    /// HRR: one cycle of slots (member indices), rebuilt when `stale`.
    cycle: Vec<u16>,
    stale: bool,
}

/// Largest weight a session member may have (keeps an HRR cycle, at most the sum of
/// the weights long, small).
pub const MAX_WEIGHT: u32 = 1000;

impl Scheduler {
    pub fn new(kind: SessionScheduler) -> Scheduler {
        Scheduler { kind, cursor: usize::MAX, cycle: Vec::new(), stale: true }
    }

    /// `setwt` / `resetwt` / a new member: the weights changed; the next pick uses the
    /// new ones (spec F.20). Smooth-WRR credits start afresh; the HRR cycle is rebuilt
    /// and starts from its beginning.
    pub fn weights_changed(&mut self, slots: &mut [Slot]) {
        Self::reset_credits(slots);
        self.stale = true;
    }

    /// Pick the member to send the next segment among those `eligible` says may
    /// send; `None` if none may.
    pub fn pick(&mut self, slots: &mut [Slot], mut eligible: impl FnMut(usize) -> bool) -> Option<usize> {
        let n = slots.len();
        match self.kind {
            SessionScheduler::Rr => {
                let start = if self.cursor == usize::MAX { 0 } else { self.cursor + 1 };
                for k in 0..n {
                    let j = (start + k) % n;
                    if eligible(j) {
                        self.cursor = j;
                        return Some(j);
                    }
                }
                None
            }
            SessionScheduler::Weighted => {
                let mut total = 0i64;
                let mut best: Option<usize> = None;
                for j in 0..n {
                    if !eligible(j) {
                        continue;
                    }
                    let w = slots[j].weight as i64;
                    slots[j].credit += w;
                    total += w;
                    if best.is_none_or(|b| slots[j].credit > slots[b].credit) {
                        best = Some(j);
                    }
                }
                let b = best?;
                slots[b].credit -= total;
                Some(b)
            }
            SessionScheduler::Hrr => {
                if self.stale || self.cycle.is_empty() {
                    let w: Vec<u32> = slots.iter().map(|s| s.weight).collect();
                    self.cycle = hrr_cycle(&w);
                    self.cursor = 0;
                    self.stale = false;
                }
                let len = self.cycle.len();
                for k in 0..len {
                    let p = (self.cursor + k) % len;
                    let j = self.cycle[p] as usize;
                    if eligible(j) {
                        self.cursor = (p + 1) % len;
                        return Some(j);
                    }
                }
                None
            }
        }
    }

    /// Smooth-WRR credits start afresh (see `weights_changed`).
    fn reset_credits(slots: &mut [Slot]) {
        for s in slots {
            s.credit = 0;
        }
    }
}

/// Prime factors of `n` in ascending order.
fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// One level frame of `len` slots: `counts[j]` slots for entry j, spread evenly
/// (smooth weighted round robin; the earliest entry on a tie).
fn spread(counts: &[u64], len: u64) -> Vec<usize> {
    let mut credit = vec![0i64; counts.len()];
    (0..len)
        .map(|_| {
            let mut best = usize::MAX;
            for (j, &c) in counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                credit[j] += c as i64;
                if best == usize::MAX || credit[j] > credit[best] {
                    best = j;
                }
            }
            credit[best] -= len as i64;
            best
        })
        .collect()
}

/// The hierarchical round-robin cycle of `weights` (member indices, one per slot; see
/// the module header): `sum(weights) / gcd` slots, member j holding `weights[j] / gcd`.
pub fn hrr_cycle(weights: &[u32]) -> Vec<u16> {
    const DOWN: usize = usize::MAX;
    let g = weights.iter().fold(0u64, |a, &w| gcd(a, w.max(1) as u64));
    let w: Vec<u64> = weights.iter().map(|&x| x.max(1) as u64 / g).collect();
    let total: u64 = w.iter().sum();
    if total == 1 {
        return vec![0];
    }
    // Levels: (frame of entries: a member index or DOWN).
    let mut levels: Vec<Vec<usize>> = Vec::new();
    let mut rem = w.clone();
    let (mut unit, mut feeds) = (total, 1u64); // slot value (in 1/total), down slots above
    for n in prime_factors(total) {
        unit /= n;
        let len = feeds * n;
        let digits: Vec<u64> = rem.iter().map(|&r| r / unit).collect();
        for (r, d) in rem.iter_mut().zip(&digits) {
            *r -= d * unit;
        }
        let downs = len - digits.iter().sum::<u64>();
        let mut counts = digits;
        counts.push(downs);
        let m = counts.len() - 1;
        levels.push(spread(&counts, len).into_iter().map(|e| if e == m { DOWN } else { e }).collect());
        feeds = downs;
        if downs == 0 {
            break;
        }
    }
    debug_assert!(rem.iter().all(|&r| r == 0));
    let mut pos = vec![0usize; levels.len()];
    let mut cycle = Vec::with_capacity(total as usize);
    for _ in 0..total {
        let mut l = 0;
        loop {
            let e = levels[l][pos[l]];
            pos[l] = (pos[l] + 1) % levels[l].len();
            if e == DOWN {
                l += 1;
            } else {
                cycle.push(e as u16);
                break;
            }
        }
    }
    cycle
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: SessionScheduler, w: &[u32], picks: usize, eligible: impl Fn(usize, usize) -> bool) -> Vec<usize> {
        let mut slots: Vec<Slot> = w.iter().map(|&x| Slot::new(x)).collect();
        let mut s = Scheduler::new(kind);
        (0..picks).filter_map(|t| s.pick(&mut slots, |j| eligible(t, j))).collect()
    }

    #[test]
    fn round_robin_cycles_and_skips_the_ineligible() {
        assert_eq!(run(SessionScheduler::Rr, &[1, 1, 1], 7, |_, _| true), vec![0, 1, 2, 0, 1, 2, 0]);
        // Member 1 has nothing to send: the others alternate.
        assert_eq!(run(SessionScheduler::Rr, &[1, 1, 1], 4, |_, j| j != 1), vec![0, 2, 0, 2]);
        // Weights do not matter to plain round robin.
        assert_eq!(run(SessionScheduler::Rr, &[5, 1], 4, |_, _| true), vec![0, 1, 0, 1]);
    }

    #[test]
    fn weighted_3_2_1_is_exact_per_6_slots_and_smooth() {
        let seq = run(SessionScheduler::Weighted, &[3, 2, 1], 600, |_, _| true);
        assert_eq!(&seq[..6], &[0, 1, 0, 2, 1, 0], "spec D.1: A B A C B A");
        for frame in seq.chunks(6) {
            let mut n = [0; 3];
            for &j in frame {
                n[j] += 1;
            }
            assert_eq!(n, [3, 2, 1], "exactly 3:2:1 in every 6 slots (spec E.2 6)");
        }
        // Smoothness (D.1 (ii)): over any k consecutive slots a member's count is
        // within 1 of k * share (plus at most one slot of phase).
        let share = [0.5, 1.0 / 3.0, 1.0 / 6.0];
        for k in 1..=24 {
            for win in seq.windows(k) {
                for j in 0..3 {
                    let c = win.iter().filter(|&&x| x == j).count() as f64;
                    assert!((c - k as f64 * share[j]).abs() < 2.0, "k={k} member {j}: {c}");
                }
            }
        }
    }

    #[test]
    fn weighted_gives_a_stalled_members_share_to_the_others_at_once() {
        // Member 0 (weight 10) stalls for picks 10..30; member 1 (weight 1) gets them all.
        let seq = run(SessionScheduler::Weighted, &[10, 1], 60, |t, j| j != 0 || !(10..30).contains(&t));
        assert!(seq[10..30].iter().all(|&j| j == 1), "{:?}", &seq[10..30]);
        // After the stall member 0 is back to its 10/11 share within one cycle.
        let back = seq[30..52].iter().filter(|&&j| j == 0).count();
        assert!((19..=21).contains(&back), "{back} of 22");
    }

    #[test]
    fn weighted_shares_follow_weights_over_many_rounds() {
        let w = [7, 3, 1, 1];
        let seq = run(SessionScheduler::Weighted, &w, 1200, |_, _| true);
        for (j, &wj) in w.iter().enumerate() {
            let c = seq.iter().filter(|&&x| x == j).count();
            assert_eq!(c, 1200 * wj as usize / 12, "member {j}");
        }
    }

    /// Over any k consecutive picks, member j's count stays within `bound` of k times
    /// its share (spec D.1 (ii)); returns the largest deviation seen.
    fn max_deviation(seq: &[usize], w: &[u32], kmax: usize) -> f64 {
        let total: u32 = w.iter().sum();
        let mut worst: f64 = 0.0;
        for k in 1..=kmax {
            for win in seq.windows(k) {
                for (j, &wj) in w.iter().enumerate() {
                    let c = win.iter().filter(|&&x| x == j).count() as f64;
                    worst = worst.max((c - k as f64 * wj as f64 / total as f64).abs());
                }
            }
        }
        worst
    }

    #[test]
    fn hrr_fig_7_1_levels_and_cycle() {
        // Weights 1/2, 1/3, 1/6 = 3:2:1. Level 1 = [A, down], level 2 = [B, C, B]
        // (the thesis draws [B, B, C]; the order within a level is ours, spec F.20).
        assert_eq!(hrr_cycle(&[3, 2, 1]), vec![0, 1, 0, 2, 0, 1]);
        // A holds every other slot: the level-1 slot.
        let seq = run(SessionScheduler::Hrr, &[3, 2, 1], 600, |_, _| true);
        assert!(seq.iter().step_by(2).all(|&j| j == 0));
        for frame in seq.chunks(6) {
            let mut n = [0; 3];
            for &j in frame {
                n[j] += 1;
            }
            assert_eq!(n, [3, 2, 1]);
        }
        // Smoothness with the level effect: two levels, so within 2 slots of k * share
        // (B A B of the cycle A B A C A B A B ... gives B 2 in 3 slots, k * share = 1).
        let dev = max_deviation(&seq, &[3, 2, 1], 24);
        assert!((1.0..2.0).contains(&dev), "{dev}");
    }

    #[test]
    fn hrr_equal_weights_is_round_robin() {
        for n in 1..=6u32 {
            let w = vec![1; n as usize];
            let seq = run(SessionScheduler::Hrr, &w, 60, |_, _| true);
            let rr = run(SessionScheduler::Rr, &w, 60, |_, _| true);
            assert_eq!(seq, rr, "{n} members");
        }
        // A common factor does not matter: 4:4:4 is 1:1:1.
        assert_eq!(hrr_cycle(&[4, 4, 4]), vec![0, 1, 2]);
    }

    #[test]
    fn hrr_shares_are_exact_per_cycle_and_smooth() {
        // Several weight sets, with one, two and four levels (sums 11, 12, 16, 30, 210).
        for w in [&[10u32, 1][..], &[7, 3, 1, 1], &[8, 4, 2, 1, 1], &[5, 5, 10, 7, 3], &[100, 50, 30, 20, 10]] {
            let total: u32 = w.iter().sum();
            let g = w.iter().fold(0, |a, &b| super::gcd(a, b as u64)) as u32;
            let cyc = hrr_cycle(w);
            assert_eq!(cyc.len() as u32, total / g, "{w:?}");
            let picks = 4 * cyc.len();
            let seq = run(SessionScheduler::Hrr, w, picks, |_, _| true);
            for (j, &wj) in w.iter().enumerate() {
                assert_eq!(seq.iter().filter(|&&x| x == j).count() as u32, 4 * wj / g, "{w:?} member {j}");
            }
            // The level effect: within one slot per level of k * share.
            let levels = super::prime_factors((total / g) as u64).len() as f64;
            let dev = max_deviation(&seq, w, 3 * cyc.len().min(40));
            assert!(dev < levels.max(1.0) + 1.0, "{w:?}: deviation {dev} with {levels} levels");
        }
        // One level (a prime sum): within one slot, as smooth WRR.
        let seq = run(SessionScheduler::Hrr, &[10, 1], 110, |_, _| true);
        assert!(max_deviation(&seq, &[10, 1], 40) < 1.0);
    }

    #[test]
    fn hrr_is_work_conserving_and_takes_a_new_weight_at_the_next_pick() {
        // Member 0 (weight 10) stalls for picks 10..30: member 1 gets them all, and
        // member 0 has its 10/11 again right after.
        let seq = run(SessionScheduler::Hrr, &[10, 1], 63, |t, j| j != 0 || !(10..30).contains(&t));
        assert!(seq[10..30].iter().all(|&j| j == 1), "{:?}", &seq[10..30]);
        let back = seq[30..63].iter().filter(|&&j| j == 0).count();
        assert_eq!(back, 30, "{:?}", &seq[30..63]);
        // Nobody eligible: no pick.
        let mut slots = vec![Slot::new(2), Slot::new(1)];
        let mut s = Scheduler::new(SessionScheduler::Hrr);
        assert_eq!(s.pick(&mut slots, |_| false), None);
        // setwt: 1:1, then member 1 to 3 -> 1:3 from the next pick on.
        assert_eq!((0..4).map(|_| s.pick(&mut slots, |_| true).unwrap()).collect::<Vec<_>>().len(), 4);
        slots[0].weight = 1;
        slots[1].weight = 3;
        s.weights_changed(&mut slots);
        let after: Vec<usize> = (0..8).map(|_| s.pick(&mut slots, |_| true).unwrap()).collect();
        assert_eq!(after.iter().filter(|&&j| j == 1).count(), 6, "{after:?}");
    }
}
