//! ns-2.35's window rules (tcp.cc `opencwnd()` with `windowOption_ 1`, and `slowdown()`
//! with `precision_reduce_` true).
//!
//! Heads up! These are the baselines of every paper we reproduce; keep them exactly
//! as ns-2.35 computes them, quirks included (cwnd may become 7.5 after halving;
//! ssthresh is truncated to an int and floored at 2).

use super::{CongestionControl, CwndAction, Tcb};
use crate::config::TcpVariant;
use crate::tcp::events::{AckSample, LossEvent, LossKind};

/// ns-2.35's standard window rule as a [`CongestionControl`]: `on_ack` is
/// `opencwnd()`, `on_loss` is `slowdown(how)` with the flags ns-2's agents pass for
/// each kind of loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ns2Standard;

impl CongestionControl for Ns2Standard {
    #[inline]
    fn on_ack(&mut self, t: &mut Tcb, _ack: &AckSample) {
        opencwnd(t);
    }

    fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent) {
        use how::*;
        let flags = match loss.kind {
            // tcp.cc dupack_action (Tahoe): back to one packet.
            LossKind::DupAckThreshold if t.variant == TcpVariant::Tahoe => CLOSE_SSTHRESH_HALF | CLOSE_CWND_ONE,
            // tcp-reno.cc / tcp-newreno.cc dupack_action: halve.
            LossKind::DupAckThreshold | LossKind::LaterAcks => CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF,
            // tcp.cc timeout with data outstanding.
            LossKind::Rto => CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART,
            // tcp.cc timeout with nothing outstanding and restart_bugfix_.
            LossKind::IdleRestart => CLOSE_CWND_ONE | NO_OUTSTANDING_DATA,
            // tcp.cc ecn(): halve once per window (the sender decides "once").
            LossKind::Ecn => CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF,
            // tcp.cc timeout / dupack_action (Tahoe) within an ECN-reduced window.
            LossKind::AfterEcn => CLOSE_CWND_ONE,
            // NewReno partial acks deflate the window in the recovery code; ns-2's
            // rule itself does nothing.
            LossKind::PartialAck => return,
        };
        slowdown(t, flags);
    }
}

/// `slowdown` flags (ns-2.35 tcp.h), private to this rule: other code reports loss
/// events, not flags.
#[allow(dead_code)] // the full ns-2 set, for reference
mod how {
    pub const CLOSE_SSTHRESH_HALF: u32 = 0x1;
    pub const CLOSE_CWND_HALF: u32 = 0x2;
    pub const CLOSE_CWND_RESTART: u32 = 0x4;
    pub const CLOSE_CWND_INIT: u32 = 0x8;
    pub const CLOSE_CWND_ONE: u32 = 0x10;
    pub const TCP_IDLE: u32 = 0x400;
    pub const NO_OUTSTANDING_DATA: u32 = 0x800;
}

/// ns-2.35: tcp.cc `opencwnd()`, windowOption_ 1, no max_ssthresh.
#[inline]
pub(crate) fn opencwnd(t: &mut Tcb) {
    if t.cwnd < t.ssthresh as f64 {
        // slow start
        t.cwnd += 1.0;
    } else {
        // congestion avoidance: the standard algorithm
        t.cwnd += t.increase_num / t.cwnd;
    }
    if t.maxcwnd > 0 && (t.cwnd as i64) > t.maxcwnd as i64 {
        t.cwnd = t.maxcwnd as f64;
    }
}

/// ns-2.35: tcp.cc `slowdown(how)`, `precision_reduce_` true, windowOption_ 1.
fn slowdown(t: &mut Tcb, how_: u32) {
    use how::*;
    let slowstart = t.cwnd < t.ssthresh as f64;
    let halfwin = t.windowd() / 2.0;
    let decreasewin = t.decrease_num * t.windowd();
    if how_ & CLOSE_SSTHRESH_HALF != 0 {
        if t.first_decrease || slowstart || t.last_cwnd_action == CwndAction::Timeout {
            t.ssthresh = halfwin as i32;
        } else {
            t.ssthresh = decreasewin as i32;
        }
    }
    if how_ & CLOSE_CWND_HALF != 0 {
        if t.first_decrease || slowstart || t.decrease_num == 0.5 {
            t.cwnd = halfwin;
        } else {
            t.cwnd = decreasewin;
        }
    } else if how_ & CLOSE_CWND_RESTART != 0 {
        t.cwnd = (Tcb::WND_RESTART as i64) as f64;
    } else if how_ & CLOSE_CWND_INIT != 0 {
        t.cwnd = t.wnd_init as f64;
    } else if how_ & CLOSE_CWND_ONE != 0 {
        t.cwnd = 1.0;
    }
    if t.ssthresh < 2 {
        t.ssthresh = 2;
    }
    t.first_decrease = false;
}

#[cfg(test)]
mod tests {
    use super::how::*;
    use super::*;
    use crate::config::TcpVariant;

    /// The fixture window as ns-2's tests had it: Reno, IW 1, 1000-byte packets,
    /// receiver window 100.
    fn tcb(cwnd: f64, ssthresh: i32) -> Tcb {
        Tcb {
            variant: TcpVariant::Reno,
            wnd: 100.0,
            wnd_init: 1,
            packet_size: 1000,
            ..crate::tcp::fixtures::tcb(cwnd, ssthresh)
        }
    }

    #[test]
    fn slow_start_then_linear() {
        let mut t = tcb(1.0, 3);
        opencwnd(&mut t);
        opencwnd(&mut t);
        assert_eq!(t.cwnd, 3.0);
        opencwnd(&mut t);
        assert!((t.cwnd - (3.0 + 1.0 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn reno_halving_keeps_fraction_and_floors_ssthresh() {
        let mut t = tcb(15.0, 100);
        slowdown(&mut t, CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF);
        assert_eq!(t.cwnd, 7.5);
        assert_eq!(t.ssthresh, 7);
        let mut t = tcb(3.0, 100);
        slowdown(&mut t, CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART);
        assert_eq!(t.ssthresh, 2);
        assert_eq!(t.cwnd, 1.0);
    }

    #[test]
    fn reno_window_counts_dupwnd() {
        let mut t = tcb(7.5, 7);
        t.dupwnd = 3;
        assert_eq!(t.window(), 10);
        assert_eq!(t.windowd(), 10.5);
        t.variant = TcpVariant::Tahoe;
        assert_eq!(t.window(), 7);
    }

    #[test]
    fn maxcwnd_caps() {
        let mut t = tcb(4.0, 100);
        t.maxcwnd = 4;
        opencwnd(&mut t);
        assert_eq!(t.cwnd, 4.0);
    }
}
