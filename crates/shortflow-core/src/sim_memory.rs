//! Where a simulation's memory is, by structure (issue 21 item 3): each table's inline
//! size times its capacity, plus the heap parts the structures report. Allocator
//! overhead and the boxed policies' contents are not counted; compare the total with a
//! counting allocator (`run_config CONFIG --memory`) to see what is left out.

use std::mem::size_of;

use super::{AgentRef, FlowAgents, Simulation, UdpSinkStat};
use crate::net::link::{Link, LinkClass};
use crate::tcp::control::ControlBlock;
use crate::tcp::sender::TcpConn;
use crate::tcp::sink::TcpSink;
use crate::traffic::App;
use crate::world::TransferRec;

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
            ("tcp sinks", self.sinks.capacity() * size_of::<TcpSink>() + self.sinks.iter().map(TcpSink::heap_bytes).sum::<usize>()),
            ("udp sinks", self.udp_sinks.capacity() * size_of::<UdpSinkStat>()),
            ("agents and flows", self.agents.capacity() * size_of::<AgentRef>() + self.flows.capacity() * size_of::<FlowAgents>()),
            ("links", net.links.capacity() * size_of::<Link>() + net.link_classes.capacity() * size_of::<LinkClass>()),
            ("queue buffers", links_heap),
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
                sh.recv_pending.capacity() * size_of::<std::collections::VecDeque<(i64, u32)>>()
                    + sh.recv_pending.iter().map(|q| q.capacity() * 16).sum::<usize>(),
            ),
        ]
    }

    /// TCP connections (senders) of the simulation.
    pub fn tcp_connections(&self) -> usize {
        self.senders.conns.len()
    }
}
