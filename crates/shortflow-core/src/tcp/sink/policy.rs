//! The sink's ack rule: one enum, one file per rule.
//!
//! For every arriving segment the sink updates its [`super::Acker`] and then asks the
//! rule what to do with the ack this segment calls for: send it now, hold it, or hold
//! it and arm the ack timer. The rule sees the segment as a [`Segment`] (its place in
//! the sequence, its ECN marks and timestamps), so rules that adapt to congestion
//! signals fit the same shape. When the timer fires the sink sends the held ack; when
//! any ack leaves, the rule is told ([`AckPolicy::on_ack_sent`]) to reset its counts.
//!
//! Adding a rule: a file with a struct, its `from_config(field, &SinkConfig)` and
//! `on_segment`, one variant here, one arm in each `match` below, one variant in
//! `config::AckPolicyConfig`.
//!
//! Linux's rule (quick-acks at start and after idle, every second segment, a 40 ms
//! adaptive delayed-ack timer) is [`LinuxAcks`] (`linux.rs`); it is told when its
//! timer fires ([`AckPolicy::on_timer`]) as Linux inflates ato then.

use super::acc::Acc;
use super::delack::DelAck;
use super::every_d::EveryD;
use super::every_packet::EveryPacket;
use super::linux::LinuxAcks;
use crate::config::{AckPolicyConfig, SinkConfig};
use crate::error::ConfigError;
use crate::time::SimTime;

/// An arriving data segment as an ack rule sees it (after the acker's update).
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub now: SimTime,
    pub seqno: i64,
    /// The segment is the highest in-order one: the cumulative ack now ends at it
    /// (ns-2 `th->seqno() == acker_->Seqno()`).
    pub in_order: bool,
    /// A later segment had already arrived: this one fills a hole
    /// (ns-2 `th->seqno() < acker_->Maxseen()`).
    pub fills_hole: bool,
    /// The cumulative ack advanced with this segment (it arrived in sequence, or
    /// filled the first hole).
    pub advanced: bool,
    /// Every byte of the segment had already been received (a duplicate).
    pub duplicate: bool,
    /// ECN: congestion experienced on an ECN-capable segment.
    pub ce: bool,
    /// ECN-echo set by the sender on a data segment (used by ACC, thesis §9.3.1).
    pub ece: bool,
    /// The sender's timestamp and the timestamp it echoes.
    pub ts: SimTime,
    pub ts_echo: SimTime,
    /// How many more segments the sender can send if this segment is acked and no
    /// further ack follows, from the tcp-asym header of a sender-adaptation sender
    /// (`net::packet::AsymHeader::sender_can_send`); `None` without the header.
    pub sender_can_send: Option<i64>,
}

/// What to do with the ack an arriving segment calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Send a cumulative ack now (cancelling the ack timer).
    AckNow,
    /// Hold the ack; the ack timer is already running.
    Hold,
    /// Hold the ack and arm the ack timer to fire after this delay.
    HoldArm(SimTime),
}

/// The sink's ack rule.
#[derive(Clone, Debug)]
pub enum AckPolicy {
    /// ns-2 `Agent/TCPSink`: one ack per segment.
    EveryPacket(EveryPacket),
    /// ns-2 `Agent/TCPSink/DelAck`.
    Delayed(DelAck),
    /// Ack every d-th in-order segment; the timer flushes a partial count. Boxed: its
    /// 24 bytes inline would make every sink's rule 24 B (16 with it boxed).
    EveryD(Box<EveryD>),
    /// Ack congestion control: d adapted to ECN echoes (thesis ch. 9).
    Acc(Box<Acc>),
    /// Linux: quick-acks, every second segment, adaptive delayed-ack timer.
    Linux(Box<LinuxAcks>),
}

impl AckPolicy {
    /// The rule `cfg` asks for (`ack_policy`, or the older `delack` /
    /// `delack_interval_s` fields), validated; `field` is the sink's path, e.g.
    /// `flows[3].sink`.
    pub fn from_config(field: &str, cfg: &SinkConfig) -> Result<AckPolicy, ConfigError> {
        if cfg.delack && cfg.ack_policy.is_some() {
            return Err(ConfigError::new(
                format!("{field}.delack"),
                cfg.delack,
                "conflicts with ack_policy: give the ack rule in ack_policy only",
            ));
        }
        Ok(match (&cfg.ack_policy, cfg.delack) {
            (None, false) | (Some(AckPolicyConfig::EveryPacket), _) => {
                AckPolicy::EveryPacket(EveryPacket::from_config(field, cfg)?)
            }
            (None, true) | (Some(AckPolicyConfig::Delayed { .. }), _) => {
                AckPolicy::Delayed(DelAck::from_config(field, cfg)?)
            }
            (Some(AckPolicyConfig::EveryD { .. }), _) => AckPolicy::EveryD(Box::new(EveryD::from_config(field, cfg)?)),
            (Some(AckPolicyConfig::Acc { .. }), _) => AckPolicy::Acc(Box::new(Acc::from_config(field, cfg)?)),
            (Some(AckPolicyConfig::Linux { .. }), _) => AckPolicy::Linux(Box::new(LinuxAcks::from_config(field, cfg)?)),
        })
    }

    /// Decide about the ack for segment `seg`; `timer_pending`: the ack timer runs
    /// (an ack is being held).
    #[inline]
    pub fn on_segment(&mut self, seg: &Segment, timer_pending: bool) -> Verdict {
        match self {
            AckPolicy::EveryPacket(_) => Verdict::AckNow,
            AckPolicy::Delayed(r) => r.on_segment(seg, timer_pending),
            AckPolicy::EveryD(r) => r.on_segment(seg, timer_pending),
            AckPolicy::Acc(r) => r.on_segment(seg, timer_pending),
            AckPolicy::Linux(r) => r.on_segment(seg, timer_pending),
        }
    }

    /// An ack left (sent now or by the timer).
    #[inline]
    pub fn on_ack_sent(&mut self) {
        match self {
            AckPolicy::EveryD(r) => r.on_ack_sent(),
            AckPolicy::Acc(r) => r.on_ack_sent(),
            AckPolicy::Linux(r) => r.on_ack_sent(),
            _ => {}
        }
    }

    /// The ack timer fired with an ack held (before that ack leaves).
    pub fn on_timer(&mut self) {
        if let AckPolicy::Linux(r) = self {
            r.on_timer();
        }
    }
}
