//! The two policies that add nothing to ns-2's TCP knobs.
//!
//! - [`Ns2`]: exactly ns-2.35: the window at a transfer start is whatever the
//!   connection has; after an idle period ns-2's own timer-driven slow-start restart
//!   (`slow_start_restart_`, a timeout with nothing outstanding) applies.
//! - [`NoRestart`]: cwnd and ssthresh carry over idle periods (TCP/SPAND's "nssr"
//!   baselines): ns-2's timer-driven restart is switched off.

use super::StartupPolicy;

#[derive(Clone, Copy, Debug, Default)]
pub struct Ns2;

impl StartupPolicy for Ns2 {
    fn replaces_idle_restart(&self) -> bool {
        false
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct NoRestart;

impl StartupPolicy for NoRestart {}
