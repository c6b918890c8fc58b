//! What agents and applications may touch while handling an event: the scheduler,
//! the network, and state shared across connections (the path registry, traces,
//! results).

use std::collections::VecDeque;

use crate::engine::Scheduler;
use crate::net::Network;
use crate::path::PathRegistry;
use crate::results::{AckTrace, CwndTrace, StartupTrace};
use crate::time::{OptTime, SimTime};

/// A finished or running application-level transfer.
#[derive(Clone, Debug)]
pub struct TransferRec {
    pub flow: u32,
    pub round: u32,
    pub bytes: u64,
    pub start: SimTime,
    pub end: OptTime,
    /// The connection's loss-recovery counters from the transfer's start to its end;
    /// while it is unfinished (`end` None), the connection's counters at its start
    /// (the results then show zeros: [`TransferRec::counters`]).
    pub ctr: crate::tcp::recovery::LossCounters,
    pub initial_cwnd: f64,
    /// When the receiver had the transfer's last segment in order (the application
    /// could read the last byte): the sink records it.
    pub delivered: OptTime,
}

impl TransferRec {
    /// The transfer's loss-recovery counters: from its start to its end, all zero while
    /// it is unfinished.
    pub fn counters(&self) -> crate::tcp::recovery::LossCounters {
        if self.end.is_some() {
            self.ctr
        } else {
            Default::default()
        }
    }
}

/// Something an agent tells the applications, handled after the current event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Transfer `transfer` (index into `Shared::transfers`) of `flow` completed.
    TransferDone { flow: u32, transfer: u32 },
    /// The sink of `flow` holds every segment up to `seq` in order (it asked to be told,
    /// `TcpSink::notify_seq`): the client side of a Web connection.
    Delivered { flow: u32, seq: i64 },
    /// An ack freed room in the socket buffer (`tcp.sndbuf`) of `flow`'s sender, whose
    /// application watches it (`TcpConn::watch_sndbuf`) and has no blocked write.
    Writable { flow: u32 },
}

#[derive(Default)]
pub struct Shared {
    /// State that outlives connections: path entries and gateways (`crate::path`).
    pub paths: PathRegistry,
    /// Synthetic IPv4 address of every node (gateway keys use it).
    pub node_addr: Vec<u32>,
    pub notices: Vec<Notice>,
    pub transfers: Vec<TransferRec>,
    /// Per flow: transfers whose last segment the sink has not yet received in order,
    /// as (last sequence number, index in `transfers`), oldest first.
    pub recv_pending: Vec<PendingQueue>,
    /// Boxed: `None` is then a null pointer, one compare on every ack (unboxed, the
    /// niche test of the tables' vectors took two more instructions).
    pub ack_trace: Option<Box<AckTrace>>,
    pub cwnd_trace: Option<Box<CwndTrace>>,
    pub startup_trace: StartupTrace,
    /// Every flow's name, by flow index (the explicit flows, then the replicas' copies).
    pub flow_names: crate::names::Names,
}

/// A transfer waiting for its last segment (`Shared::recv_pending`, a sender's
/// pending transfers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The transfer's last sequence number.
    pub end_seq: i64,
    /// Its index in `Shared::transfers`.
    pub rec: u32,
}

/// `Pending::rec` of the empty front of a [`PendingQueue`].
const NO_PENDING: u32 = u32::MAX;

/// A FIFO of pending transfers, which usually holds one at a time (a connection's
/// transfers follow each other): the oldest inline, the others in a boxed deque behind
/// it. One pending transfer takes 24 bytes and no allocation, where a `VecDeque` took
/// 32 and a 16-byte allocation (issue 21 item 3: each connection has two, its sender's
/// and its receiver's). The order is a `VecDeque`'s.
pub struct PendingQueue {
    /// The oldest, or `rec == NO_PENDING` when the queue is empty.
    front: Pending,
    /// The rest, oldest first (kept, with its room, once a second transfer waited).
    rest: Option<Box<VecDeque<Pending>>>,
}

impl Default for PendingQueue {
    fn default() -> Self {
        PendingQueue { front: Pending { end_seq: 0, rec: NO_PENDING }, rest: None }
    }
}

impl PendingQueue {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.front.rec == NO_PENDING
    }
    #[inline]
    pub fn front(&self) -> Option<Pending> {
        (!self.is_empty()).then_some(self.front)
    }
    /// Append transfer `rec`, which ends at `end_seq`, at the back.
    pub fn push_back(&mut self, end_seq: i64, rec: u32) {
        assert_ne!(rec, NO_PENDING, "transfer index {rec} is reserved");
        let p = Pending { end_seq, rec };
        if self.is_empty() {
            self.front = p;
        } else {
            self.rest.get_or_insert_with(Default::default).push_back(p);
        }
    }
    pub fn pop_front(&mut self) -> Option<Pending> {
        let out = self.front()?;
        match self.rest.as_mut().and_then(|r| r.pop_front()) {
            Some(next) => self.front = next,
            None => self.front.rec = NO_PENDING,
        }
        Some(out)
    }
    /// Bytes held outside the queue (the boxed deque), by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.rest
            .as_ref()
            .map_or(0, |r| std::mem::size_of::<VecDeque<Pending>>() + r.capacity() * std::mem::size_of::<Pending>())
    }
}

pub struct Ctx<'a> {
    pub sched: &'a mut Scheduler,
    pub net: &'a mut Network,
    pub shared: &'a mut Shared,
}

impl Ctx<'_> {
    #[inline]
    pub fn now(&self) -> SimTime {
        self.sched.now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `PendingQueue` hands out what a `VecDeque` would, in the same order, through
    /// pushes behind a waiting transfer and pops that empty it.
    #[test]
    fn pending_queue_is_a_fifo() {
        let mut q = PendingQueue::default();
        let mut v: VecDeque<Pending> = VecDeque::new();
        assert_eq!(q.pop_front(), None);
        let ops = [1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0];
        for (k, &push) in ops.iter().enumerate() {
            if push == 1 {
                q.push_back(100 * k as i64, k as u32);
                v.push_back(Pending { end_seq: 100 * k as i64, rec: k as u32 });
            } else {
                assert_eq!(q.pop_front(), v.pop_front(), "step {k}");
            }
            assert_eq!(q.front(), v.front().copied(), "step {k}");
            assert_eq!(q.is_empty(), v.is_empty());
        }
        assert_eq!(std::mem::size_of::<PendingQueue>(), 24);
    }
}
