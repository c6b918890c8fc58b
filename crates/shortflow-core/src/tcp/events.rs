//! Typed events between the TCP mechanism (`sender`) and its policies (`cc`,
//! `startup`). The mechanism builds one of these at each decision point and hands it to
//! the policies; a policy never reaches into the sender's sequence state.
//!
//! Units: sequence numbers and counts are in packets (ns-2's one-way TCP counts
//! packets); byte fields say so; times are simulator time.

use crate::time::SimTime;

/// Delivery-rate sample of one ack (BBR / RFC draft "delivery rate estimation"): data
/// delivered between the send of the newest segment this ack covers and now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Packets delivered (cumulatively acked) during `interval`.
    pub delivered: u64,
    /// Time from the moment that segment was sent, less the ack time of what was
    /// delivered when it was sent (the longer of the send and ack phases).
    pub interval: SimTime,
    /// The segment was sent while the sender had nothing more to send (an
    /// application-limited sample: a lower bound on the path's rate).
    pub app_limited: bool,
}

impl RateSample {
    /// Packets per second, or 0 for an empty interval.
    pub fn pkts_per_s(&self) -> f64 {
        let s = self.interval.as_secs_f64();
        if s > 0.0 {
            self.delivered as f64 / s
        } else {
            0.0
        }
    }
}

/// One arriving ack, as seen by the policies after the mechanism has processed it.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Arrival time of the ack.
    pub now: SimTime,
    /// Flow index of the connection (`SimConfig::flows`).
    pub flow: u32,
    /// Cumulative ack number (highest in-order packet received).
    pub ackno: i64,
    /// Packets newly acknowledged by this ack (0 for a duplicate ack).
    pub newly_acked: u32,
    /// Payload bytes newly acknowledged.
    pub newly_acked_bytes: u64,
    /// Packets newly selectively acknowledged (0 until SACK exists).
    pub newly_sacked: u32,
    /// RTT measured from the newest newly acked segment that was sent exactly once
    /// (Karn's rule), if there is one. Unlike ns-2's coarse estimator, which times one
    /// segment per RTT, this is a sample per ack, as Linux takes. Filled (as are
    /// `rate` and `LossEvent::lost_sent_at`/`lost_low_prio`) only for blocks whose CC
    /// or start-up policy `wants_detail()`: the sent-segment log costs a write per
    /// segment, which ns-2's own rules do not pay.
    pub rtt: Option<SimTime>,
    /// RTT from the ack's timestamp echo (`now - ts_echo`) if the ack is new (it
    /// newly acks data) and echoes one: the sample of ns-2.35's fine-grained
    /// estimator (tcp-fs.cc / tcp-asym.cc `recv_newack_helper`: `tao = now -
    /// ts_echo`). With the sink's RFC 1323 echo rule (`ts_echo_bugfix`), an ack that
    /// fills a hole echoes the segment that filled it, so after a loss the sample is
    /// the retransmission's round trip, not the time the covered segments waited for
    /// it (which `rtt` measures: the newest newly acked segment sent once). Always
    /// filled (every segment carries its send time), with or without `detail`.
    pub echo_rtt: Option<SimTime>,
    /// Packets in flight after this ack (sent and not cumulatively acked).
    pub in_flight: u32,
    /// Duplicate acks in a row, this one included (0 for a new ack).
    pub dupacks: u32,
    /// The ack carries an ECN echo (ECE).
    pub ece: bool,
    /// This ack ends a round trip: it covers the segment that was next to send when
    /// the current round began (the round counter of Linux's HyStart and BBR).
    /// Counted, like `rtt`, only for blocks that want detail.
    pub round_done: bool,
    /// Rounds completed so far on this connection (after this ack).
    pub round: u64,
    /// Delivery-rate sample, if this ack newly acked a segment of the sent log.
    pub rate: Option<RateSample>,
}

/// Why the mechanism believes data was lost (or must be treated as if it had been).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// The duplicate-ack threshold (`numdupacks`) was reached: fast retransmit.
    DupAckThreshold,
    /// A partial ack during recovery (NewReno): another hole of the same window.
    PartialAck,
    /// The retransmission timer expired with data outstanding.
    Rto,
    /// The retransmission timer expired with nothing outstanding (ns-2's idle
    /// slow-start restart with `restart_bugfix_`): not a loss, but the window rules
    /// treat it as one kind of reduction.
    IdleRestart,
    /// An ack carried an ECN echo.
    Ecn,
    /// Later segments were acknowledged (time- or SACK-based detection: RACK).
    LaterAcks,
    /// A loss found while the window is still reduced for an ECN echo of the same
    /// window (ns-2.35: a timeout, or Tahoe's duplicate-ack threshold, with
    /// `last_cwnd_action_` ECN): the window drops to one packet, ssthresh is not cut
    /// a second time.
    AfterEcn,
}

/// A loss event, built by the mechanism *before* it changes the window, so a
/// start-up policy can decide what the reduction should be (see [`LossVerdict`]).
#[derive(Clone, Copy, Debug)]
pub struct LossEvent {
    pub kind: LossKind,
    pub now: SimTime,
    pub flow: u32,
    /// Packets in flight when the loss was detected (sent and not cumulatively acked).
    pub flight_size: u32,
    /// The first segment believed lost (the one to be retransmitted).
    pub lost_seq: i64,
    /// When that segment was (last) sent, if the sent log knows.
    pub lost_sent_at: Option<SimTime>,
    /// That segment was sent at low drop priority.
    pub lost_low_prio: bool,
    /// This event opens a new recovery epoch (the first reduction of a window of
    /// data); false for further events of the same epoch (partial acks).
    pub new_epoch: bool,
}

/// What a start-up policy asks the mechanism to do with a loss, before the cut.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossVerdict {
    /// Let the congestion control cut the window as usual.
    Cut,
    /// The loss belongs to a failed start-up attempt: restore this window state
    /// instead of cutting (TCP Fast Start's reset to the pre-fast-start state).
    Undo(SavedWindow),
    /// Restart from the initial window without a penalty (ssthresh is kept).
    RestartNoPenalty,
}

impl LossVerdict {
    /// `Undo` and `RestartNoPenalty`: the loss says the start-up was too optimistic,
    /// not that the path is congested. On an RTO or a partial ack the mechanism then
    /// does not back off the RTO, does not count a timeout, leaves recovery and
    /// resends go-back-N from the first unacked segment at once (spec
    /// thesis-faststart A.7.2-3); on a fast retransmit or an ECN echo only the window
    /// differs (the lost segment is retransmitted as usual).
    #[inline]
    pub fn penalty_free(&self) -> bool {
        !matches!(self, LossVerdict::Cut)
    }
}

/// A window state saved by a start-up policy, to be restored by [`LossVerdict::Undo`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SavedWindow {
    pub cwnd: f64,
    pub ssthresh: i32,
}

/// A segment about to leave (`on_send`).
#[derive(Clone, Copy, Debug)]
pub struct SendMeta {
    pub now: SimTime,
    pub flow: u32,
    pub seq: i64,
    /// A retransmission (the segment was sent before).
    pub retransmit: bool,
    /// Bytes on the wire.
    pub size: u32,
    /// Packets in flight before this send.
    pub in_flight: u32,
}

/// Marks a start-up policy puts on a segment (`StartupPolicy::on_send`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendMarks {
    /// Send at low drop priority (routers with a priority victim rule drop it first).
    pub low_prio: bool,
}

/// A start-up policy's answer to an ack: stay in the start-up phase or leave it.
/// Leaving ends the plan's pacing and low-priority range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Stay,
    Exit,
}
