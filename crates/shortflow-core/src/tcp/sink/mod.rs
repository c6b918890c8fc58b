//! ns-2.35 TCP sinks (tcp-sink.cc): cumulative acks in packets; the ack number is the
//! highest in-order sequence number received.
//!
//! The ack rule is an [`AckPolicy`] (one file per rule: `every_packet`, `delack`,
//! `every_d`, `acc`; see `policy`). The rest is common to every rule and follows ns-2.35
//! `TcpSink::ack`:
//! - **timestamps**: an ack carries `ts` = now and echoes a data timestamp in
//!   `ts_echo`: with `ts_echo_bugfix` (ns-2.35 default) the acker's `ts_to_echo`
//!   (the oldest unacked segment's, `Acker::update_ts`), otherwise the timestamp of
//!   the segment that triggered the ack (the held one when the timer fires);
//! - **ECN** (RFC 3168): a CE mark on an ECN-capable segment sets `ecn_unacked`, a
//!   segment with `cwr` clears it; acks of ECN-capable segments carry `ecn_echo =
//!   ecn_unacked`. As in ns-2, the marks are applied when an ack leaves, over every
//!   segment it covers (ns-2 looks at the held `save_` and the current one): first
//!   CWR clears, then CE sets. Acks are ECN-capable themselves only with `ect_acks`
//!   (ns-2 has no such knob; ACC needs it so RED marks acks instead of dropping them).
//!   ns-2's SYN-time ECN negotiation (`ecn_syn_`) is not modelled.

mod acc;
mod acker;
mod delack;
mod every_d;
mod every_packet;
mod linux;
mod policy;
mod reader;
mod sack;
#[cfg(test)]
mod tests;

pub use acc::Acc;
pub use acker::Acker;
pub use delack::DelAck;
pub use every_d::EveryD;
pub use every_packet::EveryPacket;
pub use linux::LinuxAcks;
pub use policy::{AckPolicy, Segment, Verdict};
pub use reader::{Reader, ReaderParams, TIMER_RWND};
pub use sack::SackGen;

use crate::config::SinkConfig;
use crate::engine::{PktId, Timer};
use crate::error::ConfigError;
use crate::net::packet::{Packet, PktKind, PktOptions, Rwnd};
use crate::world::Ctx;

pub const TIMER_DELACK: u8 = 2;

/// A sink's validated parameters.
#[derive(Clone, Debug)]
pub struct SinkParams {
    /// `packetSize_` of the sink: bytes of an ack on the wire.
    pub ack_size: u32,
    pub policy: AckPolicy,
    /// Send acks ECN-capable (`ect`).
    pub ect_acks: bool,
    /// ns-2 `ts_echo_bugfix_`.
    pub ts_echo_bugfix: bool,
    /// SACK blocks on acks, at most this many (the flow's `tcp.sack`,
    /// `tcp.sack_max_blocks`); None: plain cumulative acks.
    pub sack: Option<u8>,
    /// A slowly reading application (`sink.reader`); None: it reads at once (ns-2).
    pub reader: Option<ReaderParams>,
    /// The sender's segment payload (`tcp.packet_size`) and SYN exchange (`tcp.syn`):
    /// what one data segment puts into the reader's buffer. Set with the flow's TCP.
    pub seg_bytes: u32,
    pub syn: bool,
}

impl SinkParams {
    /// Validate the sink section `cfg` found at `field` (e.g. `flows[2].sink`).
    pub fn from_config(field: &str, cfg: &SinkConfig) -> Result<SinkParams, ConfigError> {
        if cfg.ack_size < 1 {
            return Err(ConfigError::new(format!("{field}.ack_size"), cfg.ack_size, "must be at least 1 byte"));
        }
        Ok(SinkParams {
            ack_size: cfg.ack_size,
            policy: AckPolicy::from_config(field, cfg)?,
            ect_acks: cfg.ect_acks,
            ts_echo_bugfix: cfg.ts_echo_bugfix,
            sack: None,
            reader: cfg
                .reader
                .as_ref()
                .map(|r| ReaderParams::from_config(&format!("{field}.reader"), r))
                .transpose()?,
            seg_bytes: 1000,
            syn: false,
        })
    }

    /// Give the sink its flow's TCP segment payload and SYN exchange (`field` is the
    /// sink's path, for errors): the reader's buffer must hold one segment.
    pub fn with_tcp(
        mut self,
        field: impl std::fmt::Display,
        seg_bytes: u32,
        syn: bool,
    ) -> Result<SinkParams, ConfigError> {
        if let Some(r) = &self.reader {
            r.check_segment(&format!("{field}.reader"), seg_bytes)?;
        }
        self.seg_bytes = seg_bytes;
        self.syn = syn;
        Ok(self)
    }
}

/// ECN marks of the segments an ack will cover (bits), see the module doc.
const HELD_CWR: u8 = 1;
const HELD_CE: u8 = 2;
const HELD_ECT: u8 = 4;
/// A covered segment asks for ECN (ECE without ECT: an ECN sender's packet 0).
const HELD_NEGOTIATE: u8 = 8;

/// `TcpSink::rules` bits, fixed by the sink's parameters: acks are ECN-capable
/// (`ect_acks`); ns-2's `ts_echo_bugfix_`; acks get marks beyond their number whatever
/// arrives (`ect_acks`, SACK or a reader's window).
const ECT_ACKS: u8 = 1;
const TS_ECHO_BUGFIX: u8 = 2;
const MARKS_ACKS: u8 = 4;
/// Free the out-of-order ring when its last hole fills (`TcpSink::free_rings`).
const FREE_RING: u8 = 8;

pub struct TcpSink {
    pub agent: u32,
    pub flow: u32,
    pub node: u32,
    /// Where acks go.
    pub peer_node: u32,
    pub peer_agent: u32,
    pub ack_size: u32,
    pub policy: AckPolicy,
    /// The first link towards `peer_node`, or `NO_LINK` if the builder did not set it
    /// (see `TcpConn::first_link`).
    pub first_link: u32,
    acker: Acker,
    timer: Timer,
    /// An ack is being held (ns-2 DelAck `save_ != NULL`).
    saved: bool,
    /// `ECT_ACKS`, `TS_ECHO_BUGFIX` and `MARKS_ACKS`: one byte, not three bools, which
    /// keeps the sink at 168 B (176 with the bools; issue 21 item 3).
    rules: u8,
    /// ns-2 `ecn_unacked_`: a CE mark not yet answered by a CWR.
    ecn_unacked: bool,
    /// `HELD_*` bits of the segments the next ack covers.
    held_ecn: u8,
    /// SACK blocks (with `tcp.sack`). Boxed: most sinks have none.
    sack: Option<Box<SackGen>>,
    /// A slowly reading application (`sink.reader`). Boxed: most sinks have none.
    reader: Option<Box<Reader>>,
    /// ns-2 `bytes_`: in-order bytes received (on-the-wire sizes, as ns-2 counts).
    pub bytes: u64,
    pub pkts_received: u64,
    /// Segments that arrived when the receiver already held them (below the cumulative
    /// ack or buffered out of order): retransmissions whose earlier copy had arrived,
    /// the thesis's false retransmissions (§7.3, spec D.4).
    pub dup_segs: u64,
    /// Tell the application (`Notice::Delivered`) once every segment up to this one has
    /// arrived in order; `i64::MAX`: nobody asked (one compare per segment).
    pub notify_seq: i64,
    /// `note_delivered` has work only once the in-order data reaches this sequence
    /// number (one compare per segment, as `notify_seq`): the end of the oldest
    /// transfer of this flow not yet delivered, or, with none pending when last looked,
    /// the next advance (`seqno + 1`: a transfer started later is seen then, as before).
    deliver_gate: i64,
}

// One sink per connection at scale (issue 21 item 3; `layout_tests` keeps the history).
const _: () = assert!(std::mem::size_of::<TcpSink>() == 168);

impl TcpSink {
    /// Bytes held outside the struct (`Simulation::memory`): the out-of-order ring and
    /// the SACK generator, by capacity.
    pub fn heap_bytes(&self) -> usize {
        self.acker.heap_bytes()
            + self.sack.as_ref().map_or(0, |_| std::mem::size_of::<SackGen>())
            + self.reader.as_ref().map_or(0, |_| std::mem::size_of::<Reader>())
    }

    /// Free the out-of-order ring when its last hole fills instead of keeping it for the
    /// next loss (`Acker::update_freeing`): for large runs (`Simulation::new`), where
    /// nearly every sink sees a hole once and would keep a ring to the end (56 B per
    /// connection at 10^5). Small runs keep it: freeing it cost bench a an allocation
    /// per loss episode (1.5 % of its instructions). Changes no result.
    pub fn free_rings(&mut self) {
        self.rules |= FREE_RING;
    }

    pub fn new(agent: u32, flow: u32, node: u32, peer_node: u32, peer_agent: u32, params: SinkParams) -> Self {
        TcpSink {
            agent,
            flow,
            node,
            peer_node,
            peer_agent,
            ack_size: params.ack_size,
            policy: params.policy,
            first_link: crate::net::NO_LINK,
            acker: Acker::default(),
            timer: Timer::default(),
            saved: false,
            rules: (params.ect_acks as u8 * ECT_ACKS)
                | (params.ts_echo_bugfix as u8 * TS_ECHO_BUGFIX)
                | ((params.ect_acks || params.sack.is_some() || params.reader.is_some()) as u8 * MARKS_ACKS),
            ecn_unacked: false,
            held_ecn: 0,
            sack: params.sack.map(|m| Box::new(SackGen::new(m))),
            reader: params.reader.map(|r| Box::new(Reader::new(r, params.seg_bytes, params.syn))),
            bytes: 0,
            pkts_received: 0,
            dup_segs: 0,
            notify_seq: i64::MAX,
            deliver_gate: 0,
        }
    }

    /// ns-2.35: tcp-sink.cc `TcpSink::recv` / `DelAckSink::recv`. Always inlined into
    /// the dispatch loop (it runs for every data packet).
    #[inline(always)]
    pub fn recv(&mut self, cx: &mut Ctx, pkt: PktId) {
        let p = *cx.net.pool.get(pkt);
        let asym = if p.has_opts() { cx.net.pool.options(pkt).and_then(|o| o.asym) } else { None };
        cx.net.pool.free(pkt);
        self.pkts_received += 1;
        if p.kind == PktKind::Data {
            cx.net.delivered_data += 1;
        }
        if self.rules & TS_ECHO_BUGFIX != 0 {
            self.acker.update_ts(p.seqno, p.ts);
        } else {
            // The latest segment's timestamp (the held one when the timer fires).
            self.acker.echo_latest(p.ts);
        }
        let cum_before = self.acker.seqno();
        self.dup_segs += self.acker.has(p.seqno) as u64;
        if self.sack.is_some() {
            self.sack_segment(p.seqno, p.size);
        } else {
            self.bytes += self.acker.update_freeing(p.seqno, p.size, self.rules & FREE_RING != 0);
        }
        if let Some(r) = self.reader.as_deref_mut() {
            r.on_in_order(cx.sched.now(), cum_before, self.acker.seqno());
        }
        if self.acker.seqno() >= self.deliver_gate {
            self.note_delivered(cx);
        }
        if self.acker.seqno() >= self.notify_seq {
            self.notify(cx);
        }
        if p.ect | p.cwr | p.ecn_echo {
            self.held_ecn |= (p.cwr as u8 * HELD_CWR)
                | ((p.ect && p.ce) as u8 * HELD_CE)
                | (HELD_ECT * p.ect as u8)
                | (HELD_NEGOTIATE * (!p.ect && p.ecn_echo) as u8);
        }
        if let AckPolicy::EveryPacket(_) = self.policy {
            // ns-2.35 TcpSink::recv: ack every segment (no timer, nothing held).
            return self.ack(cx);
        }
        let seg = Segment {
            now: cx.now(),
            seqno: p.seqno,
            in_order: p.seqno == self.acker.seqno(),
            fills_hole: p.seqno < self.acker.maxseen(),
            advanced: self.acker.seqno() > cum_before,
            duplicate: p.seqno <= cum_before,
            ce: p.ect && p.ce,
            ece: p.ecn_echo,
            ts: p.ts,
            ts_echo: p.ts_echo,
            sender_can_send: asym.map(|h| h.sender_can_send(self.acker.seqno())),
        };
        match self.policy.on_segment(&seg, self.timer.pending()) {
            Verdict::AckNow => {
                self.timer.cancel();
                self.ack(cx);
            }
            Verdict::Hold => self.saved = true,
            Verdict::HoldArm(after) => {
                self.saved = true;
                self.timer.resched(cx.sched, after, self.agent, TIMER_DELACK);
            }
        }
    }

    /// The in-order data reached `notify_seq`: tell the application once.
    #[cold]
    #[inline(never)]
    fn notify(&mut self, cx: &mut Ctx) {
        self.notify_seq = i64::MAX;
        cx.shared.notices.push(crate::world::Notice::Delivered { flow: self.flow, seq: self.acker.seqno() });
    }

    /// The reading application, if the sink has one (`sink.reader`).
    pub fn reader(&self) -> Option<&Reader> {
        self.reader.as_deref()
    }

    /// In-order data received: the highest sequence number with every one before it.
    pub fn in_order_seq(&self) -> i64 {
        self.acker.seqno()
    }

    /// The cumulative ack reached `deliver_gate`: transfers of this flow now wholly
    /// received in order are delivered (`TransferRec::delivered`); sets the next gate.
    /// With a transfer pending it runs once per transfer; with none (an endless
    /// source), on every advance, as before the gate.
    #[inline]
    fn note_delivered(&mut self, cx: &mut Ctx) {
        let cum = self.acker.seqno();
        // Look again at the next advance unless a pending transfer sets a later gate.
        self.deliver_gate = cum + 1;
        let Some(q) = cx.shared.recv_pending.get_mut(self.flow as usize) else { return };
        while let Some(crate::world::Pending { end_seq: end, rec }) = q.front() {
            if end > cum {
                // The oldest pending transfer: nothing to do until it is complete (a
                // transfer pushed behind it ends later).
                self.deliver_gate = end;
                return;
            }
            q.pop_front();
            cx.shared.transfers[rec as usize].delivered = crate::time::OptTime::some(cx.sched.now());
        }
    }

    /// ns-2.35: tcp-sink.cc `DelAckSink::timeout`: send the held ack.
    pub fn timer(&mut self, cx: &mut Ctx, which: u8, gen: u32) {
        if which == TIMER_DELACK && self.timer.fire(gen) && self.saved {
            self.policy.on_timer();
            self.ack(cx);
        } else if which == TIMER_RWND {
            self.window_update(cx, gen);
        }
    }

    /// The reader's update timer fired: the application has read enough to open the
    /// window by the threshold (`Reader::update_due`): a window update (carrying any
    /// held ack, whose delayed-ack timer it cancels).
    #[cold]
    #[inline(never)]
    fn window_update(&mut self, cx: &mut Ctx, gen: u32) {
        let Some(r) = self.reader.as_deref_mut() else { return };
        if !r.timer.fire(gen) {
            return;
        }
        r.drain(cx.sched.now());
        // More data may have arrived since the timer was set: update only once the
        // window has opened by the threshold.
        match r.update_due(self.acker.seqno()) {
            None => return,
            Some(after) if after > crate::time::SimTime::ZERO => {
                r.timer.resched(cx.sched, after, self.agent, TIMER_RWND);
                return;
            }
            Some(_) => {}
        }
        r.update_next = true;
        self.timer.cancel();
        self.ack(cx);
    }

    /// The ECN part of ns-2.35 `TcpSink::ack` over the segments the ack covers: CWR
    /// clears `ecn_unacked`, then CE sets it; the echo goes on acks of ECT segments.
    #[inline]
    fn ecn_echo(&mut self) -> bool {
        let held = std::mem::take(&mut self.held_ecn);
        if held & HELD_CWR != 0 {
            self.ecn_unacked = false;
        }
        if held & HELD_CE != 0 {
            self.ecn_unacked = true;
        }
        // ns-2.35 TcpSink::ack: the negotiation is answered with ECE whatever the state.
        (held & HELD_ECT != 0 && self.ecn_unacked) || held & HELD_NEGOTIATE != 0
    }

    /// ns-2.35: tcp-sink.cc `TcpSink::ack`. Always inlined, into `recv` in the dispatch
    /// loop (measured: out of line, its call cost ~17 instructions per ack; bench a
    /// 514.7 -> 511.1 M instructions, b 2082.7 -> 2067.1 M).
    #[inline(always)]
    fn ack(&mut self, cx: &mut Ctx) {
        let now = cx.now();
        let ackno = self.acker.seqno();
        let mut pkt = Packet::ack(self.flow, self.peer_node, self.peer_agent, self.ack_size, ackno, now);
        pkt.ts_echo = self.acker.ts_to_echo();
        self.saved = false;
        self.acker.ack_sent(ackno);
        self.policy.on_ack_sent();
        let id = cx.net.pool.alloc(pkt);
        if (self.rules & MARKS_ACKS != 0) | (self.held_ecn != 0) {
            self.mark_ack(cx, id);
        }
        cx.net.send_via(cx.sched, self.node, self.first_link, id);
    }

    /// A segment arrives at a SACK sink: the acker, then the SACK blocks.
    #[inline(never)]
    fn sack_segment(&mut self, seq: i64, size: u32) {
        let dup = self.acker.has(seq);
        self.bytes += self.acker.update_freeing(seq, size, self.rules & FREE_RING != 0);
        let next = self.acker.seqno() + 1;
        if let Some(g) = self.sack.as_deref_mut() {
            g.on_segment(seq, dup, next);
        }
    }

    /// What an ack carries beyond its number, out of line (most sinks add nothing): the
    /// ECN bits (`ect_acks`, the echo) and the SACK blocks as options (their bytes
    /// join its wire size).
    #[cold]
    #[inline(never)]
    fn mark_ack(&mut self, cx: &mut Ctx, id: PktId) {
        if (self.rules & ECT_ACKS != 0) | (self.held_ecn != 0) {
            self.mark_ecn(cx.net.pool.get_mut(id));
        }
        let sack = self.sack.as_deref_mut().map(|g| g.take()).unwrap_or_default();
        let mut rwnd = None;
        if let Some(r) = self.reader.as_deref_mut() {
            let now = cx.sched.now();
            let ackno = cx.net.pool.get(id).seqno;
            r.drain(now);
            let segs = r.window();
            r.advertised(ackno, segs);
            rwnd = Some(Rwnd { segs, update: std::mem::take(&mut r.update_next) });
            match r.update_due(ackno) {
                Some(after) => r.timer.resched(cx.sched, after, self.agent, TIMER_RWND),
                None => r.timer.cancel(),
            }
        }
        if !sack.is_empty() || rwnd.is_some() {
            cx.net.pool.set_options(id, PktOptions { sack, rwnd, ..PktOptions::default() });
        }
    }

    /// The ECN bits of an ack (`ect_acks`, the echo): set on the stored packet, out of
    /// line, as most sinks set neither.
    #[cold]
    #[inline(never)]
    fn mark_ecn(&mut self, pkt: &mut Packet) {
        pkt.ect = self.rules & ECT_ACKS != 0;
        if self.held_ecn != 0 {
            pkt.ecn_echo = self.ecn_echo();
        }
    }
}
