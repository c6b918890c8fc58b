//! Slow-start restart checked in the send path (RFC 2581 §4.1 with an RTO idle
//! threshold; TCP/SPAND spec §3.2 "reno-ssr"): when the application hands over new
//! data, nothing is outstanding, and the last data packet left at least one RTO ago,
//! cwnd goes back to the initial window; ssthresh is kept.

use super::{StartCtx, StartPlan, StartupPolicy};

#[derive(Clone, Copy, Debug, Default)]
pub struct IdleRestart;

impl StartupPolicy for IdleRestart {
    fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        if !cx.idle() {
            return StartPlan::default();
        }
        if let Some(last) = cx.last_send {
            let rto = cx.rtt.timeout(cx.rttp);
            if cx.now.saturating_sub(last).as_secs_f64() >= rto {
                cx.tcb.cwnd = cx.tcb.initial_window();
            }
        }
        StartPlan::default()
    }
}
