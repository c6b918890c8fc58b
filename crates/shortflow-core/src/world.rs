//! What agents and applications may touch while handling an event: the scheduler,
//! the network, and state shared across connections (the path registry, traces,
//! results).

use crate::engine::Scheduler;
use crate::net::Network;
use crate::results::{AckTrace, CwndTrace, StartupTrace};
use crate::path::PathRegistry;
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
    pub recv_pending: Vec<std::collections::VecDeque<(i64, u32)>>,
    /// Boxed: `None` is then a null pointer, one compare on every ack (unboxed, the
    /// niche test of the tables' vectors took two more instructions).
    pub ack_trace: Option<Box<AckTrace>>,
    pub cwnd_trace: Option<Box<CwndTrace>>,
    pub startup_trace: StartupTrace,
    /// Every flow's name, by flow index (the explicit flows, then the replicas' copies).
    pub flow_names: crate::names::Names,
}

/// Append `x` to a queue that usually holds one item at a time (a connection's pending
/// transfers): its first allocation is for one item, where `VecDeque` would allocate
/// four (with 10^6 connections, 100 bytes each of room never used).
#[inline]
pub fn push_mostly_one<T>(q: &mut std::collections::VecDeque<T>, x: T) {
    if q.capacity() == 0 {
        q.reserve_exact(1);
    }
    q.push_back(x);
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
