//! Where a simulation's memory is, by structure (issue 21 item 3): each table's inline
//! size times its capacity, plus the heap parts the structures report. Allocator
//! overhead and the boxed policies' contents are not counted; compare the total with a
//! counting allocator (`run_config CONFIG --memory`) to see what is left out.

use std::mem::size_of;

use super::{AgentRef, FlowAgents, Simulation};
use crate::net::link::LinkClass;
use crate::tcp::control::ControlBlock;
use crate::tcp::sender::TcpConn;
use crate::tcp::sink::TcpSink;
use crate::traffic::App;
use crate::world::{PendingQueue, TransferRec};

impl Simulation {
    /// Bytes held by each part of the simulation, in a fixed order of (name, bytes).
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        let s = &self.senders;
        let net = &self.net;
        let sh = &self.shared;
        let links_heap: usize = net.links.iter().map(|l| l.queue.heap_bytes()).sum();
        vec![
            ("tcp senders (TcpConn)", s.conns.capacity() * size_of::<TcpConn>()),
            ("tcp senders: transfers, sent logs, SACK", s.conns.iter().map(TcpConn::heap_bytes).sum()),
            ("control blocks", s.cbs.capacity() * size_of::<ControlBlock>()),
            (
                "tcp sinks",
                self.sinks.capacity() * size_of::<TcpSink>()
                    + self.sinks.iter().map(TcpSink::heap_bytes).sum::<usize>(),
            ),
            ("udp sinks", net.udp.memory_bytes() + self.sched.udp_sinks.memory_bytes()),
            (
                "agents and flows",
                self.agents.capacity() * size_of::<AgentRef>() + self.flows.capacity() * size_of::<FlowAgents>(),
            ),
            (
                "links",
                net.links.memory_bytes()
                    + net.link_classes.capacity() * size_of::<LinkClass>()
                    + net.filtered.capacity() * 8,
            ),
            ("queue buffers", links_heap),
            ("fold plan", net.fold_memory_bytes()),
            ("node names", net.node_names.memory_bytes()),
            ("node addresses", sh.node_addr.capacity() * 4),
            ("routing", net.routes.memory_bytes()),
            ("packet arena", net.pool.memory_bytes()),
            ("event queue and timer slots", self.sched.memory_bytes()),
            ("applications", self.apps.memory_bytes(size_of::<App>())),
            ("flow names", sh.flow_names.memory_bytes()),
            ("transfer records", sh.transfers.capacity() * size_of::<TransferRec>()),
            (
                "receiver pending transfers",
                sh.recv_pending.capacity() * size_of::<PendingQueue>()
                    + sh.recv_pending.iter().map(PendingQueue::heap_bytes).sum::<usize>(),
            ),
        ]
    }

    /// The event queue's bytes (the row "event queue and timer slots" of
    /// [`Simulation::memory`]) by part.
    pub fn scheduler_memory(&self) -> Vec<(&'static str, usize)> {
        self.sched.memory_parts()
    }

    /// TCP connections (senders) of the simulation.
    pub fn tcp_connections(&self) -> usize {
        self.senders.conns.len()
    }
}

/// Ask the kernel to back the room of `v` (from its first whole page to its last) with
/// transparent huge pages (`madvise(MADV_HUGEPAGE)`, Linux), before anything is
/// written to it. For the per-connection arrays of a large run, sized up front: with
/// 10^5-10^6 connections they span hundreds of MB to GB, and an event touches a
/// random connection's entries, so with 4 KB pages nearly every touch misses the TLB
/// (issue 21 item 3, time linear in N). Only a hint: where the kernel's setting is
/// `never`, or the room is under 2 MB, nothing changes; the results never depend on it.
pub(crate) fn advise_huge_pages<T>(v: &Vec<T>) {
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        const MADV_HUGEPAGE: std::os::raw::c_int = 14;
        extern "C" {
            fn madvise(addr: *mut std::os::raw::c_void, len: usize, advice: std::os::raw::c_int)
                -> std::os::raw::c_int;
        }
        let start = (v.as_ptr() as usize).next_multiple_of(PAGE);
        let end = (v.as_ptr() as usize + bytes) & !(PAGE - 1);
        if end > start {
            // SAFETY: the range lies inside the vector's own allocation, and the advice
            // changes no contents, only how the kernel backs the pages; its failure
            // (e.g. THP compiled out) is harmless and ignored.
            unsafe {
                madvise(start as *mut std::os::raw::c_void, end - start, MADV_HUGEPAGE);
            }
        }
    }
}
