//! Heads up! Read tcp-spand spec §1 / paper §4 (theory) and spec §2.2–2.4 / paper §5.2
//! (gateway) before changing these files.
//!
//! TCP/SPAND (Zhang, Qiu, Keshav, NOSSDAV 2000; spec `tcp-spand.md`):
//! - [`theory`]: the optimal initial window `cwnd_opt` (Eqs. 1–4, boundary rules §1.4)
//!   and the per-RTT model schedules used to check it.
//! - [`gateway`]: the performance gateway, a per-destination-network sliding-window mean
//!   of `W_c` and RTT samples.

pub mod gateway;
pub mod theory;

pub use gateway::{Estimate, Gateway};
pub use theory::{ca_schedule, cwnd_opt, cwnd_opt_detail, f_e, slow_start_schedule, CwndOptDetail};
