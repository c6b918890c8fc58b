//! One-way TCP as in ns-2.35.
//!
//! - [`sender`]: the per-connection mechanism (sequence state, ns-2's recovery, the
//!   retransmission timer); [`sentlog`] its log of sent segments.
//! - [`control`]: the control block a connection sends under (window, RTT estimator,
//!   policies, pacer), shareable by several connections, and the sender table.
//! - [`events`]: the typed events between mechanism and policies.
//! - [`cc`]: congestion-control rules; [`startup`]: start-up policies (one file each).
//! - [`pacing`]: the token-bucket pacer; [`rtt`]: ns-2's RTT estimator.
//! - [`sink`]: the receivers.

pub mod cc;
pub mod control;
pub mod events;
pub mod pacing;
pub mod recovery;
pub mod rtt;
pub mod rtt_linux;
pub mod scoreboard;
pub mod sender;
pub mod sentlog;
pub mod session;
pub mod sink;
pub mod startup;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod idle_tests;
#[cfg(test)]
pub(crate) mod rig;
#[cfg(test)]
mod sender_tests;
#[cfg(test)]
mod sndbuf_tests;
