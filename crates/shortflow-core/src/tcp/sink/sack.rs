//! SACK blocks on a sink's acks (RFC 2018) and DSACK (RFC 2883), as Linux's receiver
//! keeps them (`tcp_sack_new_ofo_skb`, `tcp_dsack_set`): the blocks of out-of-order
//! data, the one holding the most recently received segment first, then the others
//! in order of their last change; at most `max` per ack (RFC 2018: 3 with
//! timestamps). A duplicate segment is reported once, in a DSACK block put first
//! (then the block containing it, if any, as RFC 2883 §4 asks).
//!
//! Blocks are `[left, right)` in packets. Fixed arrays: no allocation per segment.

use crate::net::packet::{SackBlocks, MAX_SACK_BLOCKS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SackGen {
    max: u8,
    n: u8,
    blocks: [(i64, i64); MAX_SACK_BLOCKS],
    dsack: Option<(i64, i64)>,
}

impl SackGen {
    /// At most `max` blocks per ack (1..=MAX_SACK_BLOCKS, validated by `TcpParams`).
    pub fn new(max: u8) -> SackGen {
        SackGen { max: max.clamp(1, MAX_SACK_BLOCKS as u8), n: 0, blocks: [(0, 0); MAX_SACK_BLOCKS], dsack: None }
    }

    fn remove(&mut self, i: usize) {
        self.blocks.copy_within(i + 1..self.n as usize, i);
        self.n -= 1;
    }

    fn push_front(&mut self, b: (i64, i64)) {
        let n = (self.n as usize).min(MAX_SACK_BLOCKS - 1);
        self.blocks.copy_within(0..n, 1);
        self.blocks[0] = b;
        self.n = n as u8 + 1;
    }

    /// Segment `seq` arrived; `dup`: it had arrived before; `next` is the next
    /// in-order segment expected after it was taken.
    pub fn on_segment(&mut self, seq: i64, dup: bool, next: i64) {
        let mut i = 0;
        while i < self.n as usize {
            if self.blocks[i].1 <= next {
                self.remove(i);
            } else {
                i += 1;
            }
        }
        if dup {
            self.dsack = Some((seq, seq + 1));
            if let Some(i) = (0..self.n as usize).find(|&i| self.blocks[i].0 <= seq && seq < self.blocks[i].1) {
                let b = self.blocks[i];
                self.remove(i);
                self.push_front(b);
            }
            return;
        }
        if seq < next {
            return; // in order
        }
        let mut b = (seq, seq + 1);
        let mut i = 0;
        while i < self.n as usize {
            let (l, r) = self.blocks[i];
            if l <= b.1 && b.0 <= r {
                b = (b.0.min(l), b.1.max(r));
                self.remove(i);
            } else {
                i += 1;
            }
        }
        self.push_front(b);
    }

    /// The blocks of the next ack (the DSACK block is reported once).
    pub fn take(&mut self) -> SackBlocks {
        let mut out = SackBlocks::default();
        if let Some(d) = self.dsack.take() {
            out.push(d.0, d.1);
        }
        for &(l, r) in &self.blocks[..self.n as usize] {
            if out.len() >= self.max as usize {
                break;
            }
            out.push(l, r);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_recent_block_first_at_most_max() {
        let mut g = SackGen::new(3);
        // 0 arrives, 1 lost; 2, 3 arrive; 5; 7; 9.
        g.on_segment(0, false, 1);
        g.on_segment(2, false, 1);
        g.on_segment(3, false, 1);
        assert_eq!(g.take().as_slice(), &[(2, 4)]);
        for s in [5, 7, 9] {
            g.on_segment(s, false, 1);
        }
        assert_eq!(g.take().as_slice(), &[(9, 10), (7, 8), (5, 6)], "three blocks, newest first");
        // 6 joins 5 and 7 into one block, which moves to the front.
        g.on_segment(6, false, 1);
        assert_eq!(g.take().as_slice(), &[(5, 8), (9, 10), (2, 4)]);
        // The hole at 1 is filled: everything below 4 is in order, its block goes.
        g.on_segment(1, false, 4);
        assert_eq!(g.take().as_slice(), &[(5, 8), (9, 10)]);
    }

    #[test]
    fn a_duplicate_is_reported_once_in_a_dsack_block_first() {
        let mut g = SackGen::new(3);
        g.on_segment(0, false, 1);
        g.on_segment(0, true, 1);
        assert_eq!(g.take().as_slice(), &[(0, 1)], "below the cumulative ack");
        assert!(g.take().is_empty(), "reported once");
        g.on_segment(3, false, 1);
        g.on_segment(4, false, 1);
        g.on_segment(8, false, 1);
        g.on_segment(3, true, 1);
        assert_eq!(g.take().as_slice(), &[(3, 4), (3, 5), (8, 9)], "then the block holding it");
    }
}
