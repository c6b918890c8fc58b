//! Start-up policies: what a sender does when the application hands it new data on a
//! fresh or idle connection, and what it learns for next time. One file per policy;
//! "where does scheme X decide the window" is `startup/<x>.rs`, `on_transfer_start`.
//!
//! The sender calls the hooks at fixed points of ns-2's control flow:
//! - `on_transfer_start`: in `advanceby`, before `send_much` (ns-2 has no hook there;
//!   TCP/SPAND spec §2.6 and §3.2 put the restart logic exactly there).
//! - `on_fast_retransmit`: when a fast retransmit is entered, before the window is cut.
//! - `on_timeout`: when the retransmission timer fires with data outstanding.
//! - `on_transfer_done`: when the last packet of an application transfer is acked.
//!
//! A policy may return a [`Pacer`] that spaces out the first window; the sender stops
//! pacing at the first loss event or when the paced range has been sent.

pub mod idle_restart;
pub mod spand;

use crate::tcp::cc::Tcb;
use crate::tcp::pacing::Pacer;
use crate::tcp::rtt::{RttEstimator, RttParams};
use crate::time::SimTime;
use crate::world::Shared;

pub use idle_restart::IdleRestart;
pub use spand::Spand;

/// What a policy may read and change at a hook.
pub struct StartCtx<'a> {
    pub now: SimTime,
    pub flow: u32,
    pub tcb: &'a mut Tcb,
    pub rtt: &'a mut RttEstimator,
    pub rttp: &'a RttParams,
    /// Next new sequence number to send (`t_seqno_`) and the highest sent (`maxseq_`).
    pub t_seqno: i64,
    pub maxseq: i64,
    pub highest_ack: i64,
    /// Packets of the transfer being started (0 at other hooks).
    pub transfer_pkts: i64,
    /// Time the last data packet was sent, if any.
    pub last_send: Option<SimTime>,
    /// Address of the destination host (gateway key).
    pub dst_addr: u32,
    pub shared: &'a mut Shared,
}

impl StartCtx<'_> {
    /// Nothing outstanding: every sent packet is acked.
    pub fn idle(&self) -> bool {
        self.highest_ack == self.maxseq
    }
}

/// The start-up policy of one connection (enum dispatch on the hot path).
#[derive(Clone, Debug, Default)]
pub enum AnyStartup {
    /// ns-2 behaviour: nothing beyond the TCP knobs (built-in slow-start restart).
    #[default]
    Ns2,
    /// Explicit slow-start restart after an idle period of at least one RTO.
    IdleRestart(IdleRestart),
    /// cwnd and ssthresh carry over idle periods.
    NoRestart,
    /// TCP/SPAND.
    Spand(Spand),
}

impl AnyStartup {
    /// Returns a pacer for the first window, if the policy paces.
    pub fn on_transfer_start(&mut self, cx: &mut StartCtx) -> Option<Pacer> {
        match self {
            AnyStartup::Ns2 | AnyStartup::NoRestart => None,
            AnyStartup::IdleRestart(p) => p.on_transfer_start(cx),
            AnyStartup::Spand(p) => p.on_transfer_start(cx),
        }
    }
    pub fn on_fast_retransmit(&mut self, cx: &mut StartCtx) {
        if let AnyStartup::Spand(p) = self {
            p.on_fast_retransmit(cx)
        }
    }
    pub fn on_timeout(&mut self, _cx: &mut StartCtx) {}
    pub fn on_transfer_done(&mut self, cx: &mut StartCtx) {
        if let AnyStartup::Spand(p) = self {
            p.on_transfer_done(cx)
        }
    }
    /// Does this policy replace ns-2's timer-driven slow-start restart?
    pub fn overrides_restart(&self) -> bool {
        !matches!(self, AnyStartup::Ns2)
    }
}
