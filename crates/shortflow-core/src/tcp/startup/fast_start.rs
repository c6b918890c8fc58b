//! TCP Fast Start (Padmanabhan, PhD thesis 1998, ch. 8; spec
//! `thesis-faststart-asymmetry.md` Part A, A.2-A.7).
//!
//! Heads up! Read the spec A.3-A.7 and A.12 before changing this file. When the
//! application hands over data after an idle period longer than one RTO (and shorter
//! than `max_idle`), the sender reuses its cached window instead of slow-starting:
//! `floor(cwnd / 2)` if it was in slow start, `cwnd - 1` in congestion avoidance (the
//! largest window known to have been delivered whole, A.4). That window
//! (`fs_startseq ..= fs_last`: the new segments it covers, less the first one, which
//! slow start would have sent anyway) leaves at low drop priority (A.5), in bursts of
//! at most `maxburst` spaced `maxburst * srtt_exact / cwnd` apart (A.6). While in
//! fast start (`fs_mode`, until the window is acked) the retransmission timer is the
//! fine-grained reset timer `srtt_exact + max(tick, 4 rttvar_exact)` (A.7.1); its expiry, or a
//! partial ack during NewReno's recovery (A.7.3), resets the connection to the
//! pre-fast-start state without a penalty: cwnd = the initial window, ssthresh the
//! value saved at the start, no RTO back-off, go-back-N at once (A.7.2). If even the
//! first (unmarked) segment is unacked, the timer expiry is an ordinary RTO.
//!
//! Where the state comes from: the connection's own (cwnd, ssthresh and both RTT
//! estimators carry over the idle period, as on a persistent connection). A
//! connection without history of its own (a new one) starts from its path entry's
//! cache (`PathEntry::cache`, written at the end of every transfer), i.e. what the
//! last connection to the same host (or network, with a shorter `paths.prefix_len`)
//! left, if it is at most `max_idle` old (spec A.12: "copy the cache from the previous
//! connection to the same host").
//!
//! The fine-grained estimator takes, as ns-2.35 and the thesis (A.6: "from the TCP
//! timestamp option"), the ack's timestamp echo on every new ack (`AckSample::echo_rtt`),
//! with the intended gains 1/8 and 1/4 (ns-2.35's evaluate to 0 in integer arithmetic).
//! Not the sent log's sample (`AckSample::rtt`, the newest newly acked segment sent
//! once): after a loss, the ack of a retransmission that fills a hole covers segments
//! that waited for it, and their "RTT" -- up to several round trips -- inflated
//! srtt_exact (11.2 s for a 3.7 s path at L1, docs/faststart-full), which paced the
//! next fast start at a third of the link rate.

use super::{SeqRange, StartCtx, StartPlan, StartupPolicy};
use crate::config::FastStartConfig;
use crate::error::{positive_time_s, ConfigError};
use crate::path::PathCache;
use crate::tcp::cc::{CwndAction, Tcb};
use crate::tcp::events::{AckSample, LossEvent, LossKind, LossVerdict, Phase, SavedWindow};
use crate::tcp::pacing::burst_gap;
use crate::tcp::rtt::{ExactRtt, RttEstimator, RttParams};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct FastStart {
    pub priority_marking: bool,
    pub fast_loss_recov: bool,
    pub fine_reset_timer: bool,
    pub maxburst: u32,
    pub max_idle: SimTime,
    pub use_path_cache: bool,
    pub count_acked: bool,
    /// Fine-grained RTT estimator (the thesis's srtt_exact, rttvar_exact).
    pub exact: ExactRtt,
    /// Arrival of the last ack (the thesis's `last_activity`).
    pub last_activity: Option<SimTime>,
    /// In the fast-start phase.
    pub fs_mode: bool,
    /// The low-priority segments of the current fast start: `fs_start ..= fs_last`.
    pub fs_start: i64,
    pub fs_last: i64,
    /// ssthresh when the fast start began, restored by a reset.
    pub saved_ssthresh: i32,
    /// The ack being processed reset a failed fast start (a partial ack): it does not
    /// open the window.
    just_reset: bool,
    /// Fast starts begun, failed ones reset, restarts for a stale cache.
    pub starts: u32,
    pub resets: u32,
    pub stale_restarts: u32,
}

impl FastStart {
    /// Validate a flow's `startup = { kind = "fast_start", ... }` table (`field` is its
    /// path, for errors) and build the policy.
    pub fn from_config(field: &str, cfg: &FastStartConfig) -> Result<FastStart, ConfigError> {
        let max_idle = positive_time_s(&format!("{field}.max_idle_s"), cfg.max_idle_s)?;
        Ok(FastStart {
            priority_marking: cfg.priority_marking,
            fast_loss_recov: cfg.fast_loss_recov,
            fine_reset_timer: cfg.fine_reset_timer,
            maxburst: cfg.maxburst,
            max_idle,
            use_path_cache: cfg.use_path_cache,
            count_acked: cfg.count_acked,
            exact: ExactRtt::default(),
            last_activity: None,
            fs_mode: false,
            fs_start: 0,
            fs_last: -1,
            saved_ssthresh: 0,
            just_reset: false,
            starts: 0,
            resets: 0,
            stale_restarts: 0,
        })
    }

    /// One fine-grained RTT sample (spec A.6).
    pub fn rtt_sample(&mut self, tau: f64) {
        self.exact.sample(tau);
    }

    /// The reset that ends a failed fast start: the initial window, the saved ssthresh.
    fn reset(&mut self, tcb: &Tcb) -> LossVerdict {
        self.fs_mode = false;
        self.resets += 1;
        LossVerdict::Undo(SavedWindow { cwnd: tcb.initial_window(), ssthresh: self.saved_ssthresh })
    }

    /// The plan of the fast start under way.
    fn plan(&self) -> StartPlan {
        StartPlan {
            pacer: None,
            low_prio: (self.priority_marking && self.fs_last >= self.fs_start)
                .then_some(SeqRange { first: self.fs_start, last: self.fs_last }),
            // Without a fine-grained RTT there is no pacing rate: send as TCP would (A.12).
            burst: std::num::NonZeroU32::new(self.maxburst).filter(|_| self.exact.srtt().is_some()),
            through_losses: true,
            watch: true,
        }
    }

    fn trace(cx: &mut StartCtx, cached: f64, srtt: f64, slow_start: bool) {
        let tr = &mut *cx.trace;
        tr.flow.push(cx.flow_name.to_string());
        tr.time_s.push(cx.now.as_secs_f64());
        tr.wc_estimate.push(cached);
        tr.rtt_estimate_s.push(srtt);
        tr.n_samples.push(1);
        tr.cwnd.push(cx.tcb.cwnd);
        tr.fallback_slow_start.push(slow_start);
    }
}

impl StartupPolicy for FastStart {
    fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        if !cx.idle() {
            // Data outstanding: the ack clock runs, nothing to restart (A.3).
            return StartPlan::default();
        }
        let now = cx.now;
        if self.fs_mode
            && self.last_activity.is_some_and(|t| now.saturating_sub(t).as_secs_f64() <= cx.rtt.timeout(cx.rttp))
        {
            // A fast start is under way (a Web page's images right after its HTML):
            // its window, marks and pacing go on.
            return self.plan();
        }
        self.fs_mode = false;
        let last = match self.last_activity {
            Some(t) => t,
            None => {
                // A connection without history: the path's cache, if fresh.
                if !self.use_path_cache {
                    return StartPlan::default();
                }
                let Some(c) = cx.path.entry().fresh_cache(now, self.max_idle) else {
                    return StartPlan::default();
                };
                cx.tcb.cwnd = c.cwnd;
                cx.tcb.ssthresh = c.ssthresh;
                self.exact.srtt = c.srtt_s;
                self.exact.rttvar = c.rttvar_s;
                if c.srtt_s > 0.0 {
                    cx.rtt.set_srtt(cx.rttp, c.srtt_s, false);
                }
                c.at
            }
        };
        let idle = now.saturating_sub(last);
        if idle >= self.max_idle {
            // Stale (A.3): slow-start restart; the fine estimator starts afresh (A.12).
            let cached = cx.tcb.cwnd;
            cx.tcb.cwnd = cx.tcb.initial_window();
            self.exact.reset();
            self.stale_restarts += 1;
            Self::trace(cx, cached, f64::NAN, true);
            return StartPlan::default();
        }
        if idle.as_secs_f64() <= cx.rtt.timeout(cx.rttp) || cx.tcb.cwnd <= 1.0 {
            // Not idle for an RTO (or nothing to gain): ordinary TCP.
            return StartPlan::default();
        }
        // A.4: the last window delivered whole.
        let cached = cx.tcb.cwnd;
        let w = if cached < cx.tcb.ssthresh as f64 { (cached / 2.0).floor() } else { cached - 1.0 };
        cx.tcb.cwnd = w.max(1.0);
        self.saved_ssthresh = cx.tcb.ssthresh;
        let window = cx.tcb.window();
        // ns-2.35: fs_startseq_ = highest_ack_ + 2, fs_endseq_ = highest_ack_ + window() + 1
        // (exclusive). Not cut at the end of this transfer: a page's images follow its
        // HTML within the same fast start.
        self.fs_start = cx.t_seqno + 1;
        self.fs_last = cx.t_seqno + window - 1;
        self.fs_mode = true;
        self.starts += 1;
        Self::trace(cx, cached, self.exact.srtt, false);
        self.plan()
    }

    fn on_ack(&mut self, cx: &mut StartCtx, ack: &AckSample) -> Phase {
        self.last_activity = Some(ack.now);
        let just_reset = std::mem::take(&mut self.just_reset);
        if self.count_acked && ack.newly_acked > 1 && !just_reset && cx.tcb.last_cwnd_action != CwndAction::Dupack {
            // ns-2.35 tcp-fs.cc recv_newack_helper with count_bytes_acked_: opencwnd()
            // once per packet acked (the mechanism's rule already opened it once).
            for _ in 1..ack.newly_acked {
                crate::tcp::cc::ns2::opencwnd(cx.tcb);
            }
        }
        if let Some(tau) = ack.echo_rtt {
            self.rtt_sample(tau.as_secs_f64());
        }
        if self.fs_mode && ack.ackno >= self.fs_last {
            // The fast-start window is acked: ack clocking has taken over (A.5).
            self.fs_mode = false;
            return Phase::Exit;
        }
        Phase::Stay
    }

    fn on_loss(&mut self, cx: &mut StartCtx, loss: &LossEvent) -> LossVerdict {
        if !self.fs_mode {
            return LossVerdict::Cut;
        }
        match loss.kind {
            LossKind::Rto => {
                if !self.fast_loss_recov || loss.lost_seq < self.fs_start {
                    // Even the segment sent before the fast-start ones is unacked: an
                    // ordinary timeout (A.7.2); or augmented recovery is off.
                    self.fs_mode = false;
                    return LossVerdict::Cut;
                }
                self.reset(cx.tcb)
            }
            // A.7.3 without SACK: several losses in the fast-start window.
            LossKind::PartialAck if self.fast_loss_recov => {
                self.just_reset = true;
                self.reset(cx.tcb)
            }
            _ => LossVerdict::Cut,
        }
    }

    fn on_transfer_done(&mut self, cx: &mut StartCtx) {
        if !self.use_path_cache {
            return;
        }
        let (srtt_s, rttvar_s) =
            if self.exact.srtt > 0.0 { (self.exact.srtt, self.exact.rttvar) } else { (cx.rtt.srtt_s(cx.rttp), 0.0) };
        let cache = PathCache { at: cx.now, cwnd: cx.tcb.cwnd, ssthresh: cx.tcb.ssthresh, srtt_s, rttvar_s };
        cx.path.entry().cache = Some(cache);
    }

    /// The reset timer (A.7.1): `srtt_exact + 4 rttvar_exact`, with the variation term
    /// at least one clock tick (`tcp_tick_s`), as RFC 6298's `max(G, 4 RTTVAR)`: with
    /// the intended gains rttvar_exact decays towards 0 on a steady path and the timer
    /// would otherwise race the first ack after an idle period. (ns-2.35's zero gains
    /// freeze the timeout at 3 x the first sample; the BSD code fired it from a 200 ms
    /// tick.)
    fn rtx_timeout(&self, _tcb: &Tcb, _rtt: &RttEstimator, rttp: &RttParams) -> Option<f64> {
        (self.fs_mode && self.fast_loss_recov && self.fine_reset_timer && self.exact.srtt > 0.0)
            .then(|| self.exact.srtt + (4.0 * self.exact.rttvar).max(rttp.tick))
    }

    fn burst_gap(&self, tcb: &Tcb) -> Option<SimTime> {
        burst_gap(self.maxburst, self.exact.srtt(), tcb.window())
    }

    fn wants_every_ack(&self) -> bool {
        true
    }

    fn wants_detail(&self) -> bool {
        true
    }
}

#[cfg(test)]
#[path = "fast_start_tests.rs"]
mod tests;
