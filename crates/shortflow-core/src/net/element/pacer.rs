//! Pacer: lets the selected packets (acks, data, or all) leave the node at most one per
//! `interval`, in arrival order, holding the rest; other packets pass untouched. The
//! building block of ack reconstruction's evenly spaced acks (spec B.3.5,
//! `ack_spacing`) and of ack pacing at an access router. A packet that finds no
//! backlog and the interval elapsed passes at once.

use super::{ElemCtx, Verdict};
use crate::config::{ElementConfig, PacketSelect};
use crate::engine::{Event, PktId};
use crate::error::ConfigError;
use crate::net::packet::PktKind;
use crate::time::SimTime;
use std::collections::VecDeque;

pub struct Pacer {
    pub node: u32,
    pub interval: SimTime,
    pub select: PacketSelect,
    held: VecDeque<PktId>,
    /// Earliest time the next selected packet may leave.
    next_free: SimTime,
    /// An `Event::Element` is scheduled.
    armed: bool,
}

impl Pacer {
    pub fn new(node: u32, interval: SimTime, select: PacketSelect) -> Pacer {
        Pacer { node, interval, select, held: VecDeque::new(), next_free: SimTime::ZERO, armed: false }
    }

    /// From `{kind = "pacer", node, interval_s, packets}` at `field`.
    pub fn from_config(field: &str, cfg: &ElementConfig, node: u32) -> Result<Pacer, ConfigError> {
        let ElementConfig::Pacer { interval_s, packets, .. } = cfg else {
            unreachable!("element::build builds a Pacer only for kind = pacer")
        };
        if !interval_s.is_finite() || *interval_s <= 0.0 {
            return Err(ConfigError::new(
                format!("{field}.interval_s"),
                interval_s,
                "must be a finite number of seconds greater than 0",
            ));
        }
        Ok(Pacer::new(node, SimTime::from_secs_f64(*interval_s), *packets))
    }

    /// Packets held now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    pub fn recv(&mut self, pkt: PktId, cx: &mut ElemCtx) -> Verdict {
        let kind = cx.pool.get(pkt).kind;
        let selected = match self.select {
            PacketSelect::All => true,
            PacketSelect::Acks => kind == PktKind::Ack,
            PacketSelect::Data => kind == PktKind::Data,
        };
        if !selected {
            return Verdict::Pass;
        }
        let now = cx.sched.now();
        if self.held.is_empty() && now >= self.next_free {
            self.next_free = now + self.interval;
            return Verdict::Pass;
        }
        self.held.push_back(pkt);
        if !self.armed {
            self.armed = true;
            cx.sched.at(self.next_free, Event::Element { elem: cx.elem, token: 0 });
        }
        Verdict::Consumed
    }

    pub fn timer(&mut self, _token: u32, cx: &mut ElemCtx, out: &mut Vec<PktId>) {
        self.armed = false;
        if let Some(p) = self.held.pop_front() {
            out.push(p);
            self.next_free = cx.sched.now() + self.interval;
            if !self.held.is_empty() {
                self.armed = true;
                cx.sched.at(self.next_free, Event::Element { elem: cx.elem, token: 0 });
            }
        }
    }
}
