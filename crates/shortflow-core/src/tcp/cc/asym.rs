//! Sender adaptation (thesis ch. 9 SA; spec thesis-faststart-asymmetry B.3.4;
//! ns-2.35 tcp-asym.cc, `Agent/TCP/Newreno/Asym`): for paths whose acks are sparse
//! (ack filtering, ack congestion control, ack loss on a slow upstream link).
//!
//! - **Window growth by data acknowledged**: an ack covering s new segments opens the
//!   window s times with ns-2's `opencwnd()` (+1 per segment in slow start, +1/cwnd in
//!   congestion avoidance), so growth follows the downstream capacity, not the ack
//!   count. Reductions are ns-2's (`slowdown`), as in ns-2.35.
//! - **Burst limit with pacing**: the sender sends at most `tcp.maxburst` segments
//!   back to back; if the window allows more, the next burst leaves
//!   `maxburst x srtt_exact / window` later ([`SenderAdaptation::burst_gap`]), so a
//!   window is spread over one round trip (ns-2.35 `send_helper`). The sender's
//!   `send_much` asks for the gap; nothing new leaves while it runs.
//! - `srtt_exact`: the fine-grained estimator Fast Start uses too
//!   ([`ExactRtt`], srtt gain `g`, first sample as is). ns-2.35 takes tau from the ack's timestamp echo; we
//!   take the sender's per-ack sample (`AckSample::rtt`: the newest newly acked
//!   segment sent once), which is the same time when that segment triggered the ack.
//!   Before the first sample there is no pacing (bursts are only limited).

use super::ns2::{opencwnd, Ns2Standard};
use super::{CongestionControl, Tcb};
use crate::error::ConfigError;
use crate::tcp::events::{AckSample, LossEvent};
use crate::tcp::pacing::burst_gap;
use crate::tcp::rtt::ExactRtt;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderAdaptation {
    /// ns-2 `g_`.
    pub gain: f64,
    /// Fine-grained RTT (ns-2 `t_exact_srtt_`; no sample: no pacing).
    pub exact: ExactRtt,
}

impl SenderAdaptation {
    /// From `tcp.cc = {kind = "sender_adaptation", gain}` at `field` (`flows[i].tcp`);
    /// `maxburst` is the flow's `tcp.maxburst`, which SA needs.
    pub fn from_config(field: &str, gain: f64, maxburst: u32) -> Result<SenderAdaptation, ConfigError> {
        if !(gain > 0.0 && gain <= 1.0) {
            return Err(ConfigError::new(format!("{field}.cc.gain"), gain, "must be in (0, 1]"));
        }
        if maxburst == 0 {
            return Err(ConfigError::new(
                format!("{field}.maxburst"),
                maxburst,
                "sender adaptation paces bursts of tcp.maxburst segments: set it to at least 1 (thesis: 4)",
            ));
        }
        Ok(SenderAdaptation { gain, exact: ExactRtt::with_gain(gain) })
    }

    /// The wait before the next burst after a burst of `maxburst` segments cut short
    /// by the limit ([`burst_gap`]: `maxburst x srtt_exact / window`).
    pub fn burst_gap(&self, t: &Tcb, maxburst: i32) -> Option<SimTime> {
        burst_gap(maxburst.max(0) as u32, self.exact.srtt(), t.window())
    }
}

impl CongestionControl for SenderAdaptation {
    fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample) {
        if let Some(tau) = ack.rtt {
            self.exact.sample(tau.as_secs_f64());
        }
        for _ in 0..ack.newly_acked.max(1) {
            opencwnd(t);
        }
    }

    fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent) {
        Ns2Standard.on_loss(t, loss);
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("srtt_exact_s", self.exact.srtt));
    }

    fn wants_detail(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::rig::{ms, tcp, Rig};
    use crate::tcp::startup::{AnyStartup, Ns2};

    /// NewReno without SYN, IW 2, 100-packet window, burst limit 4; `cc` is the rule.
    fn cfg(cc: &str) -> crate::config::TcpConfig {
        tcp(&format!(
            r#"{{"syn": false, "delay_growth": false, "singledup": 0, "window_init": 2, "window": 100, "maxburst": 4, "cc": {cc}}}"#
        ))
    }
    const SA: &str = r#"{"kind": "sender_adaptation"}"#;

    fn sent_at_us(r: &mut Rig) -> Vec<(u64, i64)> {
        r.sent().iter().map(|s| (s.t_us, s.seq)).collect()
    }

    #[test]
    fn window_grows_by_segments_acknowledged_not_by_acks() {
        // Spec C.12: one ack covering 6 segments in slow start grows cwnd by 6.
        for (cc, grown) in [(SA, 6.0), (r#"{"kind": "ns2"}"#, 1.0)] {
            let mut r = Rig::one(&cfg(cc), AnyStartup::Ns2(Ns2));
            r.transfer(ms(0), 0, 100);
            r.ack(ms(10), 0, 1); // cwnd 2 -> 4 (SA) or 3
            r.sent();
            let before = r.cwnd(0);
            r.ack(ms(20), 0, 7);
            assert_eq!(r.cwnd(0) - before, grown, "{cc}");
        }
    }

    #[test]
    fn bursts_never_exceed_the_limit_and_are_paced_over_the_rtt() {
        let mut r = Rig::one(&cfg(SA), AnyStartup::Ns2(Ns2));
        r.transfer(ms(0), 0, 40);
        assert_eq!(sent_at_us(&mut r), vec![(0, 0), (0, 1)]);
        // Ack 1 at 100 ms: srtt_exact = 100 ms, cwnd 4: 2..5, one burst of 4.
        r.ack(ms(100), 0, 1);
        assert_eq!(r.sent_seqs(), vec![2, 3, 4, 5]);
        // Ack 5 at 200 ms: cwnd 8 allows 6..13; 4 leave, the other 4 after
        // maxburst x srtt / window = 4 x 100 ms / 8 = 50 ms.
        r.ack(ms(200), 0, 5);
        assert_eq!(sent_at_us(&mut r), vec![(200_000, 6), (200_000, 7), (200_000, 8), (200_000, 9)]);
        // An ack during the gap opens the window (cwnd 9) but sends nothing.
        r.ack(ms(220), 0, 6);
        assert_eq!(r.sent_seqs(), Vec::<i64>::new());
        // 250 ms: 10..13 (window now to 15), then the rest 4 x srtt / 9 later, srtt =
        // 7/8 x 100 + 1/8 x 20 = 90 ms after ack 6's sample (segment 6 sent at 200 ms).
        r.run_to(ms(251));
        assert_eq!(sent_at_us(&mut r), vec![(250_000, 10), (250_000, 11), (250_000, 12), (250_000, 13)]);
        r.run_to(ms(400));
        let gap_us = 40_000;
        assert_eq!(sent_at_us(&mut r), vec![(250_000 + gap_us, 14), (250_000 + gap_us, 15)]);
    }

    #[test]
    fn sender_adaptation_needs_a_burst_limit_and_a_sane_gain() {
        let e = crate::tcp::sender::TcpParams::from_config(
            "flows[0].tcp",
            &tcp(r#"{"cc": {"kind": "sender_adaptation"}}"#),
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("flows[0].tcp.maxburst", "0"));
        let e = crate::tcp::sender::TcpParams::from_config(
            "flows[0].tcp",
            &tcp(r#"{"maxburst": 4, "cc": {"kind": "sender_adaptation", "gain": 1.5}}"#),
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("flows[0].tcp.cc.gain", "1.5"));
    }
}
