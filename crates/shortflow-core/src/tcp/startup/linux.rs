//! Linux's start-up: the initial window (`tcp.window_init`, the route's `initcwnd`),
//! the restart after idle (`tcp_slow_start_after_idle`, tcp_output.c
//! `tcp_event_data_sent` -> `tcp_cwnd_restart`), and optionally a slow-start exit
//! detector ([`SsExit`]: HyStart as in tcp_cubic.c, or HyStart++ of RFC 9406).
//!
//! **Restart after idle** (`slow_start_after_idle = true`, Linux's default): when new
//! data is sent with nothing in flight and the last data left more than one RTO ago,
//! ssthresh becomes `max(ssthresh, 3/4 cwnd)` (`tcp_current_ssthresh`) and cwnd is
//! halved once per RTO of idle time (the first RTO excepted), never below the restart
//! window `min(IW, cwnd)`. With `false` cwnd and ssthresh carry over the idle period.

use super::hystart::HyStart;
use super::hystart_pp::HyStartPP;
use super::{StartCtx, StartPlan, StartupPolicy};
use crate::config::{LinuxStartupConfig, SsExitConfig};
use crate::error::ConfigError;
use crate::tcp::cc::Tcb;
use crate::tcp::events::{AckSample, LossEvent, LossVerdict, Phase};
use crate::time::SimTime;

/// A slow-start exit detector (the policy runs it on every ack).
#[derive(Clone, Debug)]
pub enum SsExit {
    None,
    /// Linux's HyStart (ack train + delay), `hystart.rs`.
    HyStart(HyStart),
    /// HyStart++ (RFC 9406), `hystart_pp.rs`.
    HyStartPP(HyStartPP),
}

#[derive(Clone, Debug)]
pub struct LinuxStart {
    pub slow_start_after_idle: bool,
    pub exit: SsExit,
}

impl LinuxStart {
    pub fn from_config(_field: &str, c: &LinuxStartupConfig) -> Result<LinuxStart, ConfigError> {
        let exit = match c.exit {
            SsExitConfig::None => SsExit::None,
            SsExitConfig::Hystart => SsExit::HyStart(HyStart::default()),
            SsExitConfig::HystartPp => SsExit::HyStartPP(HyStartPP::default()),
        };
        Ok(LinuxStart { slow_start_after_idle: c.slow_start_after_idle, exit })
    }
}

/// `tcp_cwnd_restart`: the window after `idle` with the RTO `rto`.
pub fn cwnd_restart(t: &mut Tcb, idle: SimTime, rto: SimTime) {
    let restart = t.initial_window().min(t.cwnd).floor();
    let three_quarters = (t.cwnd as i64 >> 1) + (t.cwnd as i64 >> 2);
    t.ssthresh = (t.ssthresh as i64).max(three_quarters).min(i32::MAX as i64) as i32;
    let mut cwnd = t.cwnd.floor() as i64;
    let mut delta = idle.as_nanos() as i128;
    let rto = rto.as_nanos().max(1) as i128;
    loop {
        delta -= rto;
        if delta <= 0 || (cwnd as f64) <= restart {
            break;
        }
        cwnd >>= 1;
    }
    t.cwnd = (cwnd as f64).max(restart);
}

impl StartupPolicy for LinuxStart {
    fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        if self.slow_start_after_idle && cx.idle() {
            if let Some(last) = cx.last_send {
                let idle = cx.now.saturating_sub(last);
                let rto = SimTime::from_secs_f64(cx.rto_s);
                if idle > rto {
                    cwnd_restart(cx.tcb, idle, rto);
                }
            }
        }
        StartPlan::default()
    }

    fn on_ack(&mut self, cx: &mut StartCtx, ack: &AckSample) -> Phase {
        match &mut self.exit {
            SsExit::HyStart(h) => h.on_ack(cx.tcb, ack),
            SsExit::HyStartPP(h) => h.on_ack(cx.tcb, ack),
            SsExit::None => {}
        }
        Phase::Stay
    }

    fn on_loss(&mut self, _cx: &mut StartCtx, loss: &LossEvent) -> LossVerdict {
        match &mut self.exit {
            SsExit::HyStart(h) => h.on_loss(loss),
            SsExit::HyStartPP(h) => h.on_loss(loss),
            SsExit::None => {}
        }
        LossVerdict::Cut
    }

    fn wants_every_ack(&self) -> bool {
        !matches!(self.exit, SsExit::None)
    }

    fn wants_detail(&self) -> bool {
        !matches!(self.exit, SsExit::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fixtures::tcb;

    #[test]
    fn restart_halves_per_rto_down_to_the_initial_window() {
        let rto = SimTime::from_millis(300);
        // cwnd 31 (IW 10 + 21 acked) idle 2.4 s = 8 RTOs: 7 halvings allowed, but the
        // floor min(IW, cwnd) = 10 stops at 31 -> 15 -> 7 -> max(7, 10) = 10.
        let mut t = tcb(31.0, i32::MAX);
        cwnd_restart(&mut t, SimTime::from_millis(2400), rto);
        assert_eq!(t.cwnd, 10.0);
        assert_eq!(t.ssthresh, i32::MAX, "an infinite ssthresh stays");
        // IW 1: 22 -> 11 -> 5 -> 2 -> 1 (4 halvings need 5 RTOs of idle).
        let mut t = tcb(22.0, 30);
        t.wnd_init = 1;
        cwnd_restart(&mut t, SimTime::from_millis(1600), rto);
        assert_eq!(t.cwnd, 1.0);
        assert_eq!(t.ssthresh, 30, "max(30, 3/4 x 22 = 16)");
        // Idle of 1.5 RTOs: one halving.
        let mut t = tcb(40.0, 20);
        cwnd_restart(&mut t, SimTime::from_millis(450), rto);
        assert_eq!(t.cwnd, 20.0);
        assert_eq!(t.ssthresh, 30, "3/4 x 40");
    }
}
