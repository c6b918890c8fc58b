//! A simplex link: a queue in front of a transmitter (rate) and a propagation delay,
//! as ns-2's `SimpleLink` (Queue -> DelayLink).
//!
//! Timing equals ns-2's two-event model (a packet that starts transmission at t reaches
//! the far node at t + size/rate + delay; the next packet starts at t + size/rate), but
//! an idle link needs no "transmission done" event: the link remembers `busy_until`,
//! and a `TxDone` event is scheduled only while packets wait in the queue. An
//! uncongested hop therefore costs one event per packet instead of two.
//!
//! Exactness at equal times: ns-2 schedules the queue's resume when a transmission
//! starts. We reserve that event's sequence number at the same moment
//! (`resume_seq`) and use it if the event turns out to be needed, so ties with other
//! events resolve exactly as in ns-2.

use crate::net::queue::AnyQueue;
use crate::time::{tx_time, SimTime};

pub struct Link {
    pub src: u32,
    pub dst: u32,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: AnyQueue,
    /// Time the transmitter finishes the packet currently on the wire.
    pub busy_until: SimTime,
    /// A `TxDone` event is in the scheduler.
    pub txdone_pending: bool,
    /// Sequence number reserved for the resume event of the current transmission.
    pub resume_seq: u64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub bytes_departed: u64,
    /// Record per-packet events of this link.
    pub traced: bool,
}

impl Link {
    pub fn new(src: u32, dst: u32, rate_bps: u64, delay: SimTime, queue: AnyQueue) -> Self {
        Link {
            src,
            dst,
            rate_bps,
            delay,
            queue,
            busy_until: SimTime::ZERO,
            txdone_pending: false,
            resume_seq: 0,
            arrivals: 0,
            departures: 0,
            drops: 0,
            bytes_departed: 0,
            traced: false,
        }
    }

    #[inline]
    pub fn tx_time(&self, bytes: u32) -> SimTime {
        tx_time(bytes, self.rate_bps)
    }

    /// Is the transmitter busy for an event firing at (`now`, `seq`)? At exactly
    /// `busy_until` it is still busy if ns-2's resume event would fire after this one.
    #[inline]
    pub fn busy(&self, now: SimTime, seq: u64) -> bool {
        now < self.busy_until || (now == self.busy_until && seq < self.resume_seq)
    }
}
