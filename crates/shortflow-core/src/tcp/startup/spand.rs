//! TCP/SPAND start-up (Zhang, Qiu, Keshav, NOSSDAV 2000; spec `tcp-spand.md` §2.6).
//!
//! Heads up! Read the spec §2.3–2.6 and §5 (A7, A8, A10, A11) before changing this
//! file. At every transfer start the sender asks the performance gateway for the
//! destination network's W_c and RTT; with history it starts in congestion avoidance
//! at `cwnd_opt(F, W_c, b)` (ssthresh = cwnd_opt, A8), sets srtt to the gateway RTT
//! (A7) and paces the first `min(cwnd_opt, F)` segments with a token bucket of depth 4
//! at `cwnd_opt / rtt` (A6, A7); without history it slow-starts from windowInit.
//!
//! W_c samples, as the paper reads (§5.1, quoted in `scenarios/spand/common.md`):
//! `cwnd − 1` at each fast retransmit entered in congestion avoidance, and `cwnd` at
//! the end of a transfer that had no loss at all, both real-valued (ns-2's `cwnd_` is a
//! double); the one floor is the gateway mean's (A5, in `on_transfer_start`). The RTT
//! sent with each sample is ns-2's srtt with its fractional bits, `t_srtt_ / 8 × tick`,
//! and the gateway RTT is injected at that resolution. The spec's readings (floored
//! samples, A10's end sample after slow-start-only or timeout-only losses, whole-tick
//! RTT) and a few more are ablation knobs (`SpandConfig`, docs/defaults.md).

use super::{StartCtx, StartPlan, StartupPolicy};
use crate::config::{EndSample, InfeasiblePolicy, RttReport, SpandConfig};
use crate::error::{positive, ConfigError};
use crate::tcp::events::{LossEvent, LossKind, LossVerdict};
use crate::tcp::pacing::Pacer;

#[derive(Clone, Debug)]
pub struct Spand {
    pub gateway: usize,
    pub b: f64,
    pub shift: bool,
    pub pacing: bool,
    pub bucket_depth: u32,
    pub reuse_previous_cwnd: bool,
    pub infeasible: InfeasiblePolicy,
    pub report: bool,
    /// Cap on the chosen window (packets).
    pub max_window: u32,
    pub rtt_report: RttReport,
    pub floor_samples: bool,
    pub end_sample: EndSample,
    pub bucket_starts_full: bool,
    pub no_decrease: bool,
    /// A CA-loss sample was reported during the current transfer.
    ca_sample_this_transfer: bool,
    /// A loss event (fast retransmit or timeout) happened during the current transfer.
    loss_this_transfer: bool,
    /// The gateway's mean W_c this transfer started from (None: slow start).
    start_estimate: Option<f64>,
    /// cwnd at the end of the previous transfer (for the reuse ablation).
    prev_cwnd: Option<f64>,
}

impl Spand {
    /// Validate a flow's `startup = { kind = "spand", ... }` table (`field` is its path,
    /// for errors) and build the policy; `resolve_gateway(field, name)` gives the index
    /// of a gateway in `SimConfig::gateways`.
    pub fn from_config(
        field: &str,
        cfg: &SpandConfig,
        tcp_window: u32,
        resolve_gateway: &dyn Fn(&str, &str) -> Result<usize, ConfigError>,
    ) -> Result<Spand, ConfigError> {
        let gateway = resolve_gateway(&format!("{field}.gateway"), &cfg.gateway)?;
        positive(&format!("{field}.b"), cfg.b)?;
        if cfg.bucket_depth < 1 {
            return Err(ConfigError::new(format!("{field}.bucket_depth"), cfg.bucket_depth, "must be at least 1"));
        }
        Ok(Spand::new(cfg, gateway, tcp_window))
    }

    pub fn new(cfg: &SpandConfig, gateway: usize, tcp_window: u32) -> Spand {
        Spand {
            gateway,
            b: cfg.b,
            shift: cfg.shift,
            pacing: cfg.pacing,
            bucket_depth: cfg.bucket_depth,
            reuse_previous_cwnd: cfg.reuse_previous_cwnd,
            infeasible: cfg.infeasible_policy,
            report: cfg.report,
            max_window: if cfg.max_window == 0 { tcp_window } else { cfg.max_window },
            rtt_report: cfg.rtt_report,
            floor_samples: cfg.floor_samples,
            end_sample: cfg.end_sample,
            bucket_starts_full: cfg.bucket_starts_full,
            no_decrease: cfg.no_decrease,
            ca_sample_this_transfer: false,
            loss_this_transfer: false,
            start_estimate: None,
            prev_cwnd: None,
        }
    }

    /// A W_c sample from a window: real-valued (paper), or floored (ablation).
    fn sample(&self, cwnd: f64) -> f64 {
        if self.floor_samples {
            cwnd.floor()
        } else {
            cwnd
        }
    }

    /// The RTT reported with a sample (s), at the resolution `rtt_report` asks for.
    fn reported_rtt(&self, cx: &StartCtx) -> f64 {
        match self.rtt_report {
            RttReport::Fractional => cx.rtt.srtt_frac_s(cx.rttp),
            RttReport::Ticks => cx.rtt.srtt_s(cx.rttp),
            RttReport::Exact => cx.rtt.exact_srtt_s(),
        }
    }
}

impl StartupPolicy for Spand {
    fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        self.ca_sample_this_transfer = false;
        self.loss_this_transfer = false;
        let est = cx.path.gateway(self.gateway).query(cx.dst_addr, cx.now);
        self.start_estimate = est.map(|e| e.wc);
        let tr = &mut *cx.trace;
        tr.flow.push(cx.flow_name.to_string());
        tr.time_s.push(cx.now.as_secs_f64());
        let Some(est) = est else {
            // No history (spec §2.4, A11): standard slow start from windowInit.
            cx.tcb.cwnd = cx.tcb.initial_window();
            tr.wc_estimate.push(f64::NAN);
            tr.rtt_estimate_s.push(f64::NAN);
            tr.n_samples.push(0);
            tr.cwnd.push(cx.tcb.cwnd);
            tr.fallback_slow_start.push(true);
            return StartPlan::default();
        };
        // A5: floor of the mean, at least 1 (the only floor: samples are real-valued).
        let wc = (est.wc.floor() as i64).max(1) as u32;
        let f = cx.transfer_pkts.max(1) as u64;
        let c = if self.reuse_previous_cwnd {
            self.prev_cwnd.map(|w| w.floor().max(1.0) as u32).unwrap_or(wc)
        } else {
            crate::spand::theory::cwnd_opt(f, wc, self.b, self.shift, self.infeasible, self.max_window)
        };
        let c = c.max(1);
        cx.tcb.cwnd = c as f64;
        cx.tcb.ssthresh = c as i32; // A8: ssthresh = cwnd_opt, CA from the first packet
        if est.rtt_s > 0.0 {
            // A7, at the resolution the RTT is reported with.
            cx.rtt.set_srtt(cx.rttp, est.rtt_s, self.rtt_report != RttReport::Ticks);
        }
        tr.wc_estimate.push(est.wc);
        tr.rtt_estimate_s.push(est.rtt_s);
        tr.n_samples.push(est.n_samples);
        tr.cwnd.push(c as f64);
        tr.fallback_slow_start.push(false);
        if !self.pacing || est.rtt_s <= 0.0 {
            return StartPlan::default();
        }
        let count = (c as i64).min(cx.transfer_pkts.max(1));
        let mut pacer = Pacer::new(cx.now, cx.t_seqno, count, c as f64 / est.rtt_s, self.bucket_depth);
        if !self.bucket_starts_full {
            pacer = pacer.starting_empty(cx.now);
        }
        StartPlan { pacer: Some(pacer), ..StartPlan::default() }
    }

    /// §2.6 reporting hook: a fast retransmit entered while in CA reports `cwnd − 1`
    /// (before the cut; paper §5.1); the window is then cut as usual. Every loss event
    /// marks the transfer as not loss-free.
    fn on_loss(&mut self, cx: &mut StartCtx, loss: &LossEvent) -> LossVerdict {
        self.loss_this_transfer = true;
        if loss.kind != LossKind::DupAckThreshold || !self.report || cx.tcb.in_slow_start() {
            return LossVerdict::Cut;
        }
        let wc = self.sample(cx.tcb.cwnd) - 1.0;
        let rtt = self.reported_rtt(cx);
        cx.path.gateway(self.gateway).report(cx.dst_addr, cx.now, wc, rtt);
        self.ca_sample_this_transfer = true;
        LossVerdict::Cut
    }

    /// Paper §5.1: a transfer that completes without any loss reports cwnd at its end
    /// (`end_sample = "no_ca_sample"`: every transfer without a CA-loss sample, A10).
    fn on_transfer_done(&mut self, cx: &mut StartCtx) {
        self.prev_cwnd = Some(cx.tcb.cwnd);
        let eligible = match self.end_sample {
            EndSample::LossFree => !self.loss_this_transfer,
            EndSample::NoCaSample => !self.ca_sample_this_transfer,
        };
        if !self.report || !eligible {
            return;
        }
        let mut wc = self.sample(cx.tcb.cwnd);
        if self.no_decrease && !self.loss_this_transfer {
            if let Some(e) = self.start_estimate {
                wc = wc.max(e);
            }
        }
        let rtt = self.reported_rtt(cx);
        cx.path.gateway(self.gateway).report(cx.dst_addr, cx.now, wc, rtt);
    }
}
