//! Heads up! Read spec `fairshare-and-sizebased.md` part B before changing these files.
//!
//! Size-based congestion control, "TCP Vienna" (Ziegler et al.; seed 004): a sender
//! adapts its additive increase α, decrease factor β and slow-start step γ to the size
//! of the transfer, so a short flow's throughput approaches -- but never exceeds --
//! what a long delayed-ack Reno flow would get on the same path.
//!
//! - [`model`]: the throughput model `B(α, β, γ, d, p, RTT)` and P4's parameter
//!   selection (Fig. 2), with the spec's reference values as tests.

pub mod model;

pub use model::{
    expected_window, latency, long_flow_throughput, select, throughput, Latency, Params, PathModel, Selection,
    WindowModel,
};
