//! Node elements: code at a node that sees every packet arriving there over a link,
//! before the node delivers or forwards it, and may hold, rewrite, drop or generate
//! packets, with timers of its own (`Event::Element`). Ack reconstruction (thesis ch. 9
//! AR, spec thesis-faststart-asymmetry B.3.5) is such an element ([`AckRecons`]); so is
//! [`Pacer`].
//!
//! Contract:
//! - [`AnyElement::recv`] gets each packet arriving at the element's node (from any
//!   link) and answers [`Verdict::Pass`] (the node handles it as usual) or
//!   [`Verdict::Consumed`] (the element keeps it -- or freed it -- and is responsible
//!   for it from now on).
//! - An element schedules its timers itself with `sched.at(t, Event::Element { elem,
//!   token })` (`ElemCtx::elem` is its index); on the event, [`AnyElement::timer`] pushes
//!   the packets it releases (held or newly allocated) to `out`, and the simulation
//!   hands each to the node as if it had just arrived (deliver to the local agent or
//!   forward), without passing it through the element again.
//! - One element per node (a node needing several would get a chaining element).
//!
//! Adding an element: a file with its struct, `from_config`, `recv` and `timer`; a
//! variant here and in `config::ElementConfig`, and a line in [`build`].

pub mod ack_recons;
pub mod pacer;
#[cfg(test)]
mod tests;

pub use ack_recons::AckRecons;
pub use pacer::Pacer;

use crate::config::ElementConfig;
use crate::engine::{PktId, Scheduler};
use crate::error::ConfigError;
use crate::net::packet::PacketPool;

/// "No element at this node".
pub const NO_ELEM: u32 = u32::MAX;

/// What an element did with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Consumed,
}

/// What an element may touch.
pub struct ElemCtx<'a> {
    pub sched: &'a mut Scheduler,
    pub pool: &'a mut PacketPool,
    /// This element's index (for its `Event::Element` timers).
    pub elem: u32,
}

pub enum AnyElement {
    Pacer(Pacer),
    AckRecons(AckRecons),
}

/// Build element `cfg` found at `field` (e.g. `elements[0]`), at node index `node`.
pub fn build(field: &str, cfg: &ElementConfig, node: u32) -> Result<AnyElement, ConfigError> {
    Ok(match cfg {
        ElementConfig::Pacer { .. } => AnyElement::Pacer(Pacer::from_config(field, cfg, node)?),
        ElementConfig::AckReconstruction(_) => AnyElement::AckRecons(AckRecons::from_config(field, cfg, node)?),
    })
}

impl AnyElement {
    /// The node the element sits at.
    pub fn node(&self) -> u32 {
        match self {
            AnyElement::Pacer(e) => e.node,
            AnyElement::AckRecons(e) => e.node,
        }
    }

    #[inline]
    pub fn recv(&mut self, pkt: PktId, cx: &mut ElemCtx) -> Verdict {
        match self {
            AnyElement::Pacer(e) => e.recv(pkt, cx),
            AnyElement::AckRecons(e) => e.recv(pkt, cx),
        }
    }

    pub fn timer(&mut self, token: u32, cx: &mut ElemCtx, out: &mut Vec<PktId>) {
        match self {
            AnyElement::Pacer(e) => e.timer(token, cx, out),
            AnyElement::AckRecons(e) => e.timer(token, cx, out),
        }
    }
}
