//! One-way TCP as in ns-2.35: the sender (`sender`), the sinks (`sink`), the RTT
//! estimator (`rtt`), congestion-window rules (`cc`), start-up policies (`startup`)
//! and the start-up pacer (`pacing`).

pub mod cc;
pub mod pacing;
pub mod rtt;
pub mod sender;
pub mod sink;
pub mod startup;
