//! Test fixtures shared by the policies' unit tests (congestion control, start-up):
//! one window (`Tcb`), one ack and one send record, each with the Linux profile's
//! packet size. A test that needs another value overrides the field with struct
//! update syntax (`Tcb { variant: TcpVariant::Reno, ..tcb(1.0, 3) }`).

use crate::config::TcpVariant;
use crate::tcp::cc::{CwndAction, Tcb};
use crate::tcp::events::{AckSample, SendMeta};
use crate::time::SimTime;

/// Payload bytes per segment of the fixtures (Linux with timestamps, MTU 1500).
pub const SEG_BYTES: u32 = 1448;

/// A window of `cwnd` packets with `ssthresh`, IW 10, a receiver window of 1000.
pub fn tcb(cwnd: f64, ssthresh: i32) -> Tcb {
    Tcb {
        variant: TcpVariant::Newreno,
        cwnd,
        ssthresh,
        wnd: 1000.0,
        dupwnd: 0,
        wnd_init: 10,
        wnd_init_option: 1,
        maxcwnd: 0,
        increase_num: 1.0,
        decrease_num: 0.5,
        last_cwnd_action: CwndAction::None,
        first_decrease: true,
        packet_size: SEG_BYTES,
    }
}

/// An ack at time zero with cumulative ack `ackno` newly acking `newly` full segments.
pub fn ack(ackno: i64, newly: u32) -> AckSample {
    AckSample {
        now: SimTime::ZERO,
        flow: 0,
        ackno,
        newly_acked: newly,
        newly_acked_bytes: newly as u64 * SEG_BYTES as u64,
        newly_sacked: 0,
        rtt: None,
        echo_rtt: None,
        in_flight: 0,
        dupacks: 0,
        ece: false,
        round_done: false,
        round: 0,
        rate: None,
    }
}

/// `seq` sent at time zero (1500 bytes on the wire) with `in_flight` packets before it.
pub fn send(seq: i64, in_flight: u32) -> SendMeta {
    SendMeta { now: SimTime::ZERO, flow: 0, seq, retransmit: false, size: 1500, in_flight }
}
