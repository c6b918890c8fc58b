//! Ack reconstruction (thesis ch. 9 AR; spec thesis-faststart-asymmetry B.3.5; ns-2.35
//! tcp/ack-recons.cc and the `spacing`/`ackbw` procs of tcl/lib/ns-lib.tcl): at the far
//! end of a constrained ack link (the ISP side), acks that arrive sparse -- thinned by
//! ack filtering, ack congestion control or loss -- are filled in again, so an
//! unmodified sender sees a smooth ack clock. The mirror image of the ack filter.
//!
//! Per flow: `last_ack` (the last ack forwarded, real or generated), `last_time` (when),
//! `last_real_ack`, `dupacks`, and the number of generated acks pending. On a real ack
//! `a`:
//! - if no generated ack is pending and `a - last_ack <= delta_ack_thresh`, or
//!   duplicate acks are being seen, it passes unchanged;
//! - otherwise it is consumed and regenerated: acks `last_ack + delack`,
//!   `last_ack + 2 delack`, ... `<= a` (and `a` itself if it is not on that grid) are
//!   scheduled at `t0, t0 + s, t0 + 2s, ...` with `t0 = max(now, last_time)`.
//! A scheduled ack is forwarded when it fires if it is still newer than `last_ack`
//! (a later real ack may have overtaken it), else discarded.
//!
//! Spacing `s`: with `adaptive`, the generated acks of one real ack are spread evenly
//! over the measured inter-arrival time of real acks (EWMA with gain `alpha`, started at
//! `ack_spacing_s`): `s = interarrival x delack / (a - last_ack)`. This is the formula
//! ns-2.35 carries commented out in `spacing`; its active rule (`s = interarrival`)
//! emits generated acks no faster than real ones arrive, which restores the ack count
//! but not the clock rate. Without `adaptive`, `s = ack_spacing_s`.
//!
//! A generated ack is a copy of the real ack it stands for (flags, timestamps) with
//! its number changed. ns-2 marks generated acks "no timestamp" so they yield no RTT
//! sample; our senders time segments by their own send times, so nothing needs
//! marking.

use std::collections::HashMap;

use super::{ElemCtx, Verdict};
use crate::config::{AckReconsConfig, ElementConfig};
use crate::engine::{Event, PktId};
use crate::error::{err, positive, ConfigError};
use crate::net::packet::{Packet, PktKind};
use crate::time::SimTime;

#[derive(Clone, Debug)]
struct FlowState {
    last_ack: i64,
    last_time: SimTime,
    last_real_ack: i64,
    last_real_time: Option<SimTime>,
    dupacks: u32,
    pending: u32,
    /// EWMA of the inter-arrival time of real acks (s).
    interarrival: f64,
}

/// A generated ack waiting for its time.
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    flow_ix: usize,
    ack: Packet,
}

pub struct AckRecons {
    pub node: u32,
    pub delta_ack_thresh: i64,
    pub delack: i64,
    pub spacing: SimTime,
    pub adaptive: bool,
    pub alpha: f64,
    flows: Vec<FlowState>,
    flow_ix: HashMap<u32, usize>,
    /// Generated acks by timer token (slot); `free` lists empty slots.
    slots: Vec<Option<Scheduled>>,
    free: Vec<u32>,
    /// Acks generated and forwarded, real acks regenerated, generated acks superseded.
    pub generated: u64,
    pub regenerated: u64,
    pub superseded: u64,
}

impl AckRecons {
    pub fn new(
        node: u32,
        delta_ack_thresh: u32,
        delack: u32,
        spacing: SimTime,
        adaptive: bool,
        alpha: f64,
    ) -> AckRecons {
        AckRecons {
            node,
            delta_ack_thresh: delta_ack_thresh as i64,
            delack: delack as i64,
            spacing,
            adaptive,
            alpha,
            flows: Vec::new(),
            flow_ix: HashMap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            generated: 0,
            regenerated: 0,
            superseded: 0,
        }
    }

    /// From `{kind = "ack_reconstruction", node, ...}` at `field`.
    pub fn from_config(field: &str, cfg: &ElementConfig, node: u32) -> Result<AckRecons, ConfigError> {
        let ElementConfig::AckReconstruction(AckReconsConfig {
            delta_ack_thresh,
            delack,
            ack_spacing_s,
            adaptive,
            alpha,
            ..
        }) = cfg
        else {
            unreachable!("element::build builds AckRecons only for kind = ack_reconstruction")
        };
        if *delack < 1 {
            return Err(err(format!("{field}.delack"), delack, "must be at least 1 segment per generated ack"));
        }
        if !ack_spacing_s.is_finite() || *ack_spacing_s <= 0.0 {
            return Err(err(
                format!("{field}.ack_spacing_s"),
                ack_spacing_s,
                "must be a finite number of seconds greater than 0",
            ));
        }
        let a = positive(&format!("{field}.alpha"), *alpha)?;
        if a > 1.0 {
            return Err(err(format!("{field}.alpha"), a, "must be in (0, 1]"));
        }
        Ok(AckRecons::new(node, *delta_ack_thresh, *delack, SimTime::from_secs_f64(*ack_spacing_s), *adaptive, a))
    }

    /// Generated acks waiting now.
    pub fn pending(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn recv(&mut self, pkt: PktId, cx: &mut ElemCtx) -> Verdict {
        let p = *cx.pool.get(pkt);
        if p.kind != PktKind::Ack {
            return Verdict::Pass;
        }
        let now = cx.sched.now();
        let fi = match self.flow_ix.get(&p.flow) {
            Some(&i) => i,
            None => {
                let init = self.spacing.as_secs_f64();
                self.flows.push(FlowState {
                    last_ack: -1,
                    last_time: SimTime::ZERO,
                    last_real_ack: -1,
                    last_real_time: None,
                    dupacks: 0,
                    pending: 0,
                    interarrival: init,
                });
                self.flow_ix.insert(p.flow, self.flows.len() - 1);
                self.flows.len() - 1
            }
        };
        let a = p.seqno;
        let (alpha, thresh, delack, adaptive, fixed) =
            (self.alpha, self.delta_ack_thresh, self.delack, self.adaptive, self.spacing);
        let f = &mut self.flows[fi];
        // ns-2 `ackbw`: EWMA of the real acks' inter-arrival time.
        if let Some(t) = f.last_real_time {
            f.interarrival = alpha * (now - t).as_secs_f64() + (1.0 - alpha) * f.interarrival;
        }
        let verdict = if (f.pending == 0 && a - f.last_ack <= thresh) || f.dupacks > 0 {
            if a == f.last_real_ack {
                f.dupacks += 1;
            } else if a > f.last_ack {
                f.dupacks = 0;
                f.last_ack = a;
                f.last_time = now;
            }
            Verdict::Pass
        } else {
            if a == f.last_real_ack {
                f.dupacks += 1;
            }
            let gap = (a - f.last_ack).max(1);
            let s = if adaptive { SimTime::from_secs_f64(f.interarrival * delack as f64 / gap as f64) } else { fixed };
            let t0 = now.max(f.last_time);
            // Acks last_ack + delack, + 2 delack, ... <= a, then a itself if off the grid.
            let on_grid = (a - f.last_ack) / delack;
            let n = on_grid + ((a - f.last_ack) % delack != 0) as i64;
            f.pending += n as u32;
            let base = f.last_ack;
            for i in 0..n {
                let mut ack = p;
                ack.seqno = if i < on_grid { base + (i + 1) * delack } else { a };
                let t = t0 + SimTime::from_nanos(s.as_nanos() * i as u64);
                let item = Some(Scheduled { flow_ix: fi, ack });
                let slot = match self.free.pop() {
                    Some(k) => {
                        self.slots[k as usize] = item;
                        k
                    }
                    None => {
                        self.slots.push(item);
                        (self.slots.len() - 1) as u32
                    }
                };
                cx.sched.at(t, Event::Element { elem: cx.elem, token: slot });
            }
            self.regenerated += 1;
            cx.pool.free(pkt);
            Verdict::Consumed
        };
        let f = &mut self.flows[fi];
        if a >= f.last_real_ack {
            f.last_real_ack = a;
            f.last_real_time = Some(now);
        }
        verdict
    }

    pub fn timer(&mut self, token: u32, cx: &mut ElemCtx, out: &mut Vec<PktId>) {
        let Some(Scheduled { flow_ix, ack }) = self.slots[token as usize].take() else { return };
        self.free.push(token);
        let f = &mut self.flows[flow_ix];
        f.pending -= 1;
        if ack.seqno > f.last_ack {
            let now = cx.sched.now();
            f.last_ack = ack.seqno;
            f.last_time = now;
            out.push(cx.pool.alloc(ack));
            self.generated += 1;
        } else {
            self.superseded += 1;
        }
    }
}
