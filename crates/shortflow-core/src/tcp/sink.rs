//! ns-2.35 `Agent/TCPSink` and `Agent/TCPSink/DelAck` (tcp-sink.cc): cumulative acks
//! in packets; the ack number is the highest in-order sequence number received.
//!
//! DelAck: an in-order segment starts the delayed-ack timer (`interval_`, 100 ms)
//! unless one is pending; the next segment (or the timer) sends the ack. Out-of-order
//! segments below the highest seen are acked at once (`RFC2581_immediate_ack_`), and
//! so is the SYN (segment 0, `SYN_immediate_ack_`).

use crate::engine::{PktId, Timer};
use crate::net::packet::{Packet, PktKind};
use crate::time::SimTime;
use crate::world::Ctx;

pub const TIMER_DELACK: u8 = 2;

/// ns-2's `Acker`: which segments have arrived, as a growable ring of byte counts.
#[derive(Clone, Debug)]
pub struct Acker {
    seen: Vec<u32>,
    mask: i64,
    /// Next in-order segment expected.
    next: i64,
    maxseen: i64,
}

impl Default for Acker {
    fn default() -> Self {
        // `seen` is allocated on the first out-of-order segment (see `update`).
        Acker { seen: Vec::new(), mask: 63, next: 0, maxseen: 0 }
    }
}

impl Acker {
    /// Cumulative ack number (ns-2 `Seqno()` = next_ - 1).
    pub fn seqno(&self) -> i64 {
        self.next - 1
    }
    pub fn maxseen(&self) -> i64 {
        self.maxseen
    }

    fn resize(&mut self, sz: usize) {
        let mut n = vec![0u32; sz];
        let nmask = sz as i64 - 1;
        for i in self.next..=self.maxseen + 1 {
            n[(i & nmask) as usize] = self.seen[(i & self.mask) as usize];
        }
        self.seen = n;
        self.mask = nmask;
    }

    /// ns-2.35: tcp-sink.cc `Acker::update`; returns bytes deliverable in order.
    pub fn update(&mut self, seq: i64, bytes: u32) -> u64 {
        // In order with nothing outstanding (maxseen = next - 1): ns-2 would mark and
        // at once deliver `seq`, leaving next = maxseen + 1 = seq + 1. Slots of `seen`
        // outside [next, maxseen + 1] are never read before being written (the
        // out-of-order path below clears maxseen+1..seq first), so skipping the writes
        // changes nothing, and a sink that never sees a hole needs no `seen` at all.
        // (The initial state next = maxseen = 0 behaves the same for seq 0.)
        let no_holes = self.maxseen == self.next - 1 || (self.next == 0 && self.maxseen == 0);
        if seq == self.next && no_holes && bytes != 0 {
            self.maxseen = seq;
            self.next = seq + 1;
            return bytes as u64;
        }
        if self.seen.is_empty() {
            self.seen = vec![0; (self.mask + 1) as usize];
        }
        let mut just_marked = false;
        while seq + 1 - self.next >= self.mask {
            let sz = self.seen.len() * 2;
            self.resize(sz);
        }
        if seq > self.maxseen {
            for i in self.maxseen + 1..seq {
                self.seen[(i & self.mask) as usize] = 0;
            }
            self.maxseen = seq;
            self.seen[(seq & self.mask) as usize] = bytes;
            self.seen[((seq + 1) & self.mask) as usize] = 0;
            just_marked = true;
        }
        let mut deliver = 0u64;
        let mut next = self.next;
        if seq >= next && seq <= self.maxseen {
            let _dup = self.seen[(seq & self.mask) as usize] != 0 && !just_marked;
            self.seen[(seq & self.mask) as usize] = bytes;
            while self.seen[(next & self.mask) as usize] != 0 {
                deliver += self.seen[(next & self.mask) as usize] as u64;
                next += 1;
            }
            self.next = next;
        }
        deliver
    }
}

pub struct TcpSink {
    pub agent: u32,
    pub flow: u32,
    pub node: u32,
    /// Where acks go.
    pub peer_node: u32,
    pub peer_agent: u32,
    pub ack_size: u32,
    pub delack: Option<SimTime>,
    pub rfc2581_immediate_ack: bool,
    /// The first link towards `peer_node`, or `NO_LINK` if the builder did not set it
    /// (see `TcpSender::first_link`).
    pub first_link: u32,
    acker: Acker,
    timer: Timer,
    /// A segment whose ack is being delayed (DelAck `save_`).
    saved: bool,
    /// ns-2 `bytes_`: in-order bytes received (on-the-wire sizes, as ns-2 counts).
    pub bytes: u64,
    pub pkts_received: u64,
}

impl TcpSink {
    pub fn new(agent: u32, flow: u32, node: u32, peer_node: u32, peer_agent: u32, ack_size: u32, delack: Option<SimTime>, rfc2581_immediate_ack: bool) -> Self {
        TcpSink {
            agent,
            flow,
            node,
            peer_node,
            peer_agent,
            ack_size,
            delack,
            rfc2581_immediate_ack,
            first_link: crate::net::NO_LINK,
            acker: Acker::default(),
            timer: Timer::default(),
            saved: false,
            bytes: 0,
            pkts_received: 0,
        }
    }

    pub fn recv(&mut self, cx: &mut Ctx, pkt: PktId) {
        let p = *cx.net.pool.get(pkt);
        cx.net.pool.free(pkt);
        self.pkts_received += 1;
        if p.kind == PktKind::Data {
            cx.net.delivered_data += 1;
        }
        self.bytes += self.acker.update(p.seqno, p.size);
        match self.delack {
            None => self.ack(cx),
            Some(interval) => {
                if !self.timer.pending() && p.seqno == self.acker.seqno() {
                    let immediate = (self.rfc2581_immediate_ack && p.seqno < self.acker.maxseen()) || p.seqno == 0;
                    if !immediate {
                        self.saved = true;
                        self.timer.resched(cx.sched, interval, self.agent, TIMER_DELACK);
                        return;
                    }
                }
                self.timer.cancel();
                self.ack(cx);
                self.saved = false;
            }
        }
    }

    pub fn timer(&mut self, cx: &mut Ctx, which: u8, gen: u32) {
        if which == TIMER_DELACK && self.timer.fire(gen) && self.saved {
            self.saved = false;
            self.ack(cx);
        }
    }

    /// ns-2.35: tcp-sink.cc `TcpSink::ack`.
    fn ack(&mut self, cx: &mut Ctx) {
        let pkt = Packet::ack(self.flow, self.peer_node, self.peer_agent, self.ack_size, self.acker.seqno(), cx.now());
        let id = cx.net.pool.alloc(pkt);
        cx.net.send_via(cx.sched, self.node, self.first_link, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_and_hole() {
        let mut a = Acker::default();
        assert_eq!(a.update(0, 1040), 1040);
        assert_eq!(a.seqno(), 0);
        assert_eq!(a.update(2, 1040), 0); // hole at 1
        assert_eq!(a.seqno(), 0);
        assert_eq!(a.update(1, 1040), 2080);
        assert_eq!(a.seqno(), 2);
        assert_eq!(a.update(1, 1040), 0); // duplicate
        assert_eq!(a.seqno(), 2);
    }

    #[test]
    fn grows_for_large_windows() {
        let mut a = Acker::default();
        assert_eq!(a.update(500, 1), 0);
        for s in 0..500 {
            a.update(s, 1);
        }
        assert_eq!(a.seqno(), 500);
    }

    /// ns-2.35 `Acker::update` transcribed without the in-order shortcut or the lazy
    /// `seen`, as the reference for `update`.
    struct RefAcker {
        seen: Vec<u32>,
        mask: i64,
        next: i64,
        maxseen: i64,
    }

    impl RefAcker {
        fn update(&mut self, seq: i64, bytes: u32) -> u64 {
            while seq + 1 - self.next >= self.mask {
                let sz = self.seen.len() * 2;
                let mut n = vec![0u32; sz];
                for i in self.next..=self.maxseen + 1 {
                    n[(i & (sz as i64 - 1)) as usize] = self.seen[(i & self.mask) as usize];
                }
                self.seen = n;
                self.mask = sz as i64 - 1;
            }
            if seq > self.maxseen {
                for i in self.maxseen + 1..seq {
                    self.seen[(i & self.mask) as usize] = 0;
                }
                self.maxseen = seq;
                self.seen[(seq & self.mask) as usize] = bytes;
                self.seen[((seq + 1) & self.mask) as usize] = 0;
            }
            let mut deliver = 0;
            let mut next = self.next;
            if seq >= next && seq <= self.maxseen {
                self.seen[(seq & self.mask) as usize] = bytes;
                while self.seen[(next & self.mask) as usize] != 0 {
                    deliver += self.seen[(next & self.mask) as usize] as u64;
                    next += 1;
                }
                self.next = next;
            }
            deliver
        }
    }

    #[test]
    fn matches_ns2_acker_on_random_arrivals() {
        // Segments of a window sent in order, some lost and retransmitted later,
        // some duplicated: the shortcut must give ns-2's answers and ack numbers.
        let mut rng = crate::rng::Rng::for_source(7, "acker-test");
        for _case in 0..200 {
            let mut a = Acker::default();
            let mut r = RefAcker { seen: vec![0; 64], mask: 63, next: 0, maxseen: 0 };
            let mut pending: Vec<i64> = Vec::new();
            let mut seq = 0i64;
            for _ in 0..400 {
                let u = rng.uniform();
                let s = if u < 0.1 && !pending.is_empty() {
                    pending.remove((rng.uniform() * pending.len() as f64) as usize)
                } else if u < 0.15 && seq > 0 {
                    seq - 1 - (rng.uniform() * 3.0) as i64 // duplicate of an older segment
                } else {
                    seq += 1 + (rng.uniform() < 0.02) as i64 * 100; // rarely, a jump past the buffer
                    if rng.uniform() < 0.1 {
                        pending.push(seq - 1); // lost for now
                        continue;
                    }
                    seq - 1
                };
                if s < 0 {
                    continue;
                }
                assert_eq!(a.update(s, 1000), r.update(s, 1000), "segment {s}");
                assert_eq!((a.next, a.maxseen), (r.next, r.maxseen), "segment {s}");
            }
        }
    }

    #[test]
    fn in_order_sink_allocates_nothing() {
        let mut a = Acker::default();
        for s in 0..1000 {
            assert_eq!(a.update(s, 1000), 1000);
        }
        assert!(a.seen.is_empty());
        assert_eq!(a.seqno(), 999);
    }
}
