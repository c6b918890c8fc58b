//! Packets live in an arena (`PacketPool`) and are passed around by index, so the hot
//! path never allocates: freed slots are reused.

use crate::engine::PktId;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    /// TCP data segment (or the SYN, seqno 0 with `syn`).
    Data,
    /// TCP acknowledgement.
    Ack,
    /// UDP datagram from a traffic source.
    Udp,
}

impl PktKind {
    pub fn code(self) -> u8 {
        match self {
            PktKind::Data => 0,
            PktKind::Ack => 1,
            PktKind::Udp => 2,
        }
    }
}

/// One packet. Small and `Copy`: the fields the simulator models, nothing else.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Unique id (for traces), assigned at allocation.
    pub uid: u64,
    /// Index of the flow in `SimConfig::flows`.
    pub flow: u32,
    pub kind: PktKind,
    /// Destination node.
    pub dst: u32,
    /// Agent that receives the packet at `dst`.
    pub dst_agent: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// Data: sequence number (packets, as ns-2's one-way TCP). Ack: cumulative ack number.
    pub seqno: i64,
    /// Time the packet was sent by its agent.
    pub ts: SimTime,
    /// Drop-priority marking (TCP Fast Start): dropped first by `DropPriority` queues.
    pub low_prio: bool,
    /// ECN: ECN-capable transport / congestion experienced / echo.
    pub ect: bool,
    pub ce: bool,
    pub ecn_echo: bool,
}

/// The packet arena.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    next_uid: u64,
}

impl PacketPool {
    pub fn new() -> Self {
        PacketPool { slots: Vec::with_capacity(4096), free: Vec::with_capacity(4096), next_uid: 0 }
    }

    /// Store a packet, assigning its uid; returns its id.
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> PktId {
        p.uid = self.next_uid;
        self.next_uid += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktId
        }
    }

    #[inline]
    pub fn free(&mut self, id: PktId) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently alive (allocated and not freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
