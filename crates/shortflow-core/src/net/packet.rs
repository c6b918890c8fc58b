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
///
/// Build packets with [`Packet::data`], [`Packet::ack`] or [`Packet::udp`] and set the
/// marking fields afterwards (`p.low_prio = true`, `p.ect = true`, ...). Variable-size
/// TCP options (SACK blocks, ...) are not stored here but in the pool's side table
/// ([`PacketPool::set_options`]); `has_opts` says whether a packet has an entry there.
/// The struct must stay within one cache line (checked at compile time below).
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
    /// Bytes on the wire (options included, see [`PacketPool::set_options`]).
    pub size: u32,
    /// Data: sequence number (packets, as ns-2's one-way TCP). Ack: cumulative ack number.
    pub seqno: i64,
    /// Time the packet was sent by its agent (ns-2 `hdr_tcp::ts_`).
    pub ts: SimTime,
    /// Ack: the timestamp the sink echoes (ns-2 `hdr_tcp::ts_echo_`, see
    /// `tcp::sink`); zero on data and UDP packets.
    pub ts_echo: SimTime,
    /// Drop-priority marking (TCP Fast Start): dropped first by queues whose victim
    /// rule is `low_priority_first`.
    pub low_prio: bool,
    /// ECN (RFC 3168; ns-2 `hdr_flags`): ECN-capable transport (`ect_`), congestion
    /// experienced (`ce_`), ECN-echo on acks (`ecnecho_`) and congestion window
    /// reduced on data (`cong_action_`).
    pub ect: bool,
    pub ce: bool,
    pub ecn_echo: bool,
    pub cwr: bool,
    /// The packet has an entry in the pool's options table. Set only by the pool.
    has_opts: bool,
}

const _: () = assert!(std::mem::size_of::<Packet>() <= 64, "Packet must fit in one cache line");

impl Packet {
    /// A packet of `kind` with every flag clear; `uid` is assigned by [`PacketPool::alloc`].
    #[inline]
    fn new(kind: PktKind, flow: u32, dst: u32, dst_agent: u32, size: u32, seqno: i64, ts: SimTime) -> Packet {
        Packet {
            uid: 0,
            flow,
            kind,
            dst,
            dst_agent,
            size,
            seqno,
            ts,
            ts_echo: SimTime::ZERO,
            low_prio: false,
            ect: false,
            ce: false,
            ecn_echo: false,
            cwr: false,
            has_opts: false,
        }
    }

    /// A TCP data segment `seqno` of `size` bytes on the wire, sent at `now` to agent
    /// `dst_agent` at node `dst`.
    #[inline]
    pub fn data(flow: u32, dst: u32, dst_agent: u32, size: u32, seqno: i64, now: SimTime) -> Packet {
        Packet::new(PktKind::Data, flow, dst, dst_agent, size, seqno, now)
    }

    /// A TCP acknowledgement with cumulative ack number `ackno`, sent at `now`; set
    /// `ts_echo` and the ECN bits afterwards.
    #[inline]
    pub fn ack(flow: u32, dst: u32, dst_agent: u32, size: u32, ackno: i64, now: SimTime) -> Packet {
        Packet::new(PktKind::Ack, flow, dst, dst_agent, size, ackno, now)
    }

    /// A UDP datagram number `seqno` of a traffic source, sent at `now`.
    #[inline]
    pub fn udp(flow: u32, dst: u32, dst_agent: u32, size: u32, seqno: i64, now: SimTime) -> Packet {
        Packet::new(PktKind::Udp, flow, dst, dst_agent, size, seqno, now)
    }

    /// Whether the packet carries options (an entry in the pool's options table).
    #[inline]
    pub fn has_opts(&self) -> bool {
        self.has_opts
    }
}

/// Maximum SACK blocks in one ack (RFC 2018 allows 4 without timestamps, 3 with;
/// ns-2's `NSA` is 3 and `maxSackBlocks_` defaults to 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// SACK blocks of an ack, in packets as ns-2 counts: each block `[left, right)`
/// (ns-2 `sa_left`, `sa_right`). A fixed array: no allocation per ack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    n: u8,
    blocks: [(i64, i64); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// Append a block; returns false (and changes nothing) when all slots are used.
    pub fn push(&mut self, left: i64, right: i64) -> bool {
        if self.n as usize == MAX_SACK_BLOCKS {
            return false;
        }
        self.blocks[self.n as usize] = (left, right);
        self.n += 1;
        true
    }
    pub fn as_slice(&self) -> &[(i64, i64)] {
        &self.blocks[..self.n as usize]
    }
    pub fn len(&self) -> usize {
        self.n as usize
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// Options of one packet, kept off the hot [`Packet`] in [`PacketPool`]'s side table.
/// A new option type is one field here plus its bytes in [`PktOptions::wire_bytes`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PktOptions {
    /// SACK blocks (RFC 2018).
    pub sack: SackBlocks,
    /// ns-2.35's tcp-asym header on data of a sender-adaptation sender (thesis ch. 9):
    /// what the sender may still send, read by an ACC sink. Adds no wire bytes (ns-2
    /// does not count it either).
    pub asym: Option<AsymHeader>,
    /// The receiver's advertised window on an ack of a sink with a slow reader
    /// (`tcp::sink::Reader`). The window is a header field: no wire bytes.
    pub rwnd: Option<Rwnd>,
}

/// An advertised window (`PktOptions::rwnd`): the receiver takes segments up to the
/// ack's number + `segs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rwnd {
    pub segs: u32,
    /// Sent because the window opened (the application read), not for new data: a
    /// window update, never a duplicate ack.
    pub update: bool,
}

/// ns-2.35 `hdr_tcpasym` as a data segment carries it (tcp-asym.cc `output_helper`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsymHeader {
    /// `win`: min(highest_ack + window, curseq) - t_seqno when the segment left.
    pub win: i64,
    /// `highest_ack` of the sender then.
    pub highest_ack: i64,
    /// `max_left_to_send`: curseq - highest_ack.
    pub max_left_to_send: i64,
}

impl AsymHeader {
    /// ns-2.35 tcp-asym-sink.cc: how many more segments the sender can send if the
    /// receiver acks up to `rcv_seqno` now and no further acks follow.
    pub fn sender_can_send(&self, rcv_seqno: i64) -> i64 {
        (self.win + rcv_seqno - self.highest_ack).min(self.max_left_to_send)
    }
}

impl PktOptions {
    /// Bytes the options add on the wire. SACK (RFC 2018 §3): 8 per block plus the
    /// option's kind and length bytes (2) once per ack with blocks. (ns-2.35 counts
    /// only the 8 per block, tcp-sink.cc `Sacker::append_ack`; no ns-2 scenario here
    /// sends SACK blocks.)
    pub fn wire_bytes(&self) -> u32 {
        let n = self.sack.len() as u32;
        if n == 0 {
            0
        } else {
            2 + 8 * n
        }
    }
}

/// The packet arena, with the options side table.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    next_uid: u64,
    /// Options table: `opt_slot[id]` indexes `opts` while packet `id` has options.
    opt_slot: Vec<u32>,
    opts: Vec<PktOptions>,
    opts_free: Vec<u32>,
}

impl PacketPool {
    /// Bytes the arena holds, by capacity (`Simulation::memory`).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.capacity() * size_of::<Packet>()
            + self.free.capacity() * size_of::<PktId>()
            + self.opt_slot.capacity() * 4
            + self.opts.capacity() * size_of::<PktOptions>()
            + self.opts_free.capacity() * 4
    }

    pub fn new() -> Self {
        PacketPool {
            slots: Vec::with_capacity(4096),
            free: Vec::with_capacity(4096),
            next_uid: 0,
            opt_slot: Vec::new(),
            opts: Vec::new(),
            opts_free: Vec::new(),
        }
    }

    /// Store a packet, assigning its uid; returns its id. Options are not copied with
    /// a packet value: the new packet has none (see [`PacketPool::alloc_copy`]).
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> PktId {
        p.uid = self.next_uid;
        p.has_opts = false;
        self.next_uid += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktId
        }
    }

    /// A new packet equal to `id`, options included, with its own uid.
    pub fn alloc_copy(&mut self, id: PktId) -> PktId {
        let p = self.slots[id as usize];
        let opts = self.options(id).copied();
        let n = self.alloc(p);
        if let Some(o) = opts {
            self.slots[n as usize].size -= o.wire_bytes();
            self.set_options(n, o);
        }
        n
    }

    /// Release packet `id` and its options entry, if any.
    #[inline]
    pub fn free(&mut self, id: PktId) {
        if self.slots[id as usize].has_opts {
            self.drop_options(id);
        }
        self.free.push(id);
    }

    #[cold]
    fn drop_options(&mut self, id: PktId) {
        self.slots[id as usize].has_opts = false;
        self.opts_free.push(self.opt_slot[id as usize]);
    }

    /// Hint packet `id`'s line (`crate::prefetch`), if it exists.
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        crate::prefetch::elem(&self.slots, id as usize);
    }

    /// Packet `id`, or None if there is no such slot (for prefetch hints, which may
    /// read a slot freed since: they only guess).
    #[inline(always)]
    pub fn try_get(&self, id: PktId) -> Option<&Packet> {
        self.slots.get(id as usize)
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Options of packet `id`, if it has any.
    pub fn options(&self, id: PktId) -> Option<&PktOptions> {
        if self.slots[id as usize].has_opts {
            Some(&self.opts[self.opt_slot[id as usize] as usize])
        } else {
            None
        }
    }

    /// Give packet `id` the options `o` (replacing any it had), and adjust its wire
    /// size by the bytes the options add or remove.
    pub fn set_options(&mut self, id: PktId, o: PktOptions) {
        let i = id as usize;
        let old = if self.slots[i].has_opts { self.opts[self.opt_slot[i] as usize].wire_bytes() } else { 0 };
        if !self.slots[i].has_opts {
            let k = match self.opts_free.pop() {
                Some(k) => k,
                None => {
                    self.opts.push(PktOptions::default());
                    (self.opts.len() - 1) as u32
                }
            };
            if self.opt_slot.len() <= i {
                self.opt_slot.resize(self.slots.len().max(i + 1), 0);
            }
            self.opt_slot[i] = k;
            self.slots[i].has_opts = true;
        }
        self.opts[self.opt_slot[i] as usize] = o;
        let p = &mut self.slots[i];
        p.size = p.size - old + o.wire_bytes();
    }

    /// Packets currently alive (allocated and not freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Options entries in use (for tests: entries are freed with their packets).
    pub fn live_options(&self) -> usize {
        self.opts.len() - self.opts_free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_fits_in_a_cache_line() {
        assert!(std::mem::size_of::<Packet>() <= 64, "{}", std::mem::size_of::<Packet>());
    }

    #[test]
    fn constructors_set_kind_and_clear_flags() {
        let t = SimTime::from_millis(5);
        let d = Packet::data(3, 7, 9, 1040, 12, t);
        assert_eq!((d.kind, d.flow, d.dst, d.dst_agent, d.size, d.seqno, d.ts), (PktKind::Data, 3, 7, 9, 1040, 12, t));
        assert!(!(d.low_prio || d.ect || d.ce || d.ecn_echo || d.cwr || d.has_opts()));
        assert_eq!(d.ts_echo, SimTime::ZERO);
        assert_eq!(Packet::ack(3, 1, 2, 40, 11, t).kind, PktKind::Ack);
        assert_eq!(Packet::udp(3, 1, 2, 210, 0, t).kind, PktKind::Udp);
    }

    #[test]
    fn options_add_wire_bytes_and_are_freed_with_the_packet() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet::ack(0, 1, 1, 40, 5, SimTime::ZERO));
        assert!(pool.options(a).is_none());
        let mut o = PktOptions::default();
        assert!(o.sack.push(7, 9));
        assert!(o.sack.push(11, 12));
        pool.set_options(a, o);
        assert!(pool.get(a).has_opts());
        assert_eq!(pool.get(a).size, 40 + 2 + 16, "2 option bytes + 8 per block");
        assert_eq!(pool.options(a).unwrap().sack.as_slice(), &[(7, 9), (11, 12)]);
        // Replacing the options re-counts their bytes.
        let mut o1 = PktOptions::default();
        o1.sack.push(7, 12);
        pool.set_options(a, o1);
        assert_eq!(pool.get(a).size, 50);
        // A copy carries its own entry; a plain re-alloc of the value carries none.
        let c = pool.alloc_copy(a);
        assert_eq!(pool.get(c).size, 50);
        assert_eq!(pool.options(c), Some(&o1));
        let v = pool.alloc(*pool.get(a));
        assert!(pool.options(v).is_none());
        assert_eq!(pool.live_options(), 2);
        pool.free(a);
        pool.free(c);
        pool.free(v);
        assert_eq!(pool.live_options(), 0);
        // A reused slot starts without options; the freed entry is reused.
        let b = pool.alloc(Packet::data(0, 1, 1, 1040, 1, SimTime::ZERO));
        assert!(pool.options(b).is_none());
        pool.set_options(b, o);
        assert_eq!(pool.live_options(), 1);
        assert_eq!(pool.opts.len(), 2);
    }

    #[test]
    fn sack_blocks_are_bounded() {
        let mut s = SackBlocks::default();
        for k in 0..MAX_SACK_BLOCKS as i64 {
            assert!(s.push(2 * k, 2 * k + 1));
        }
        assert!(!s.push(100, 101));
        assert_eq!(s.len(), MAX_SACK_BLOCKS);
    }
}
