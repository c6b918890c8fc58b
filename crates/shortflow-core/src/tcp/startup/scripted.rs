//! A test-only start-up policy that does what a test tells it and records what it was
//! told: it checks the sender's side of the [`StartupPolicy`] contract (hooks called
//! at the right points, verdicts and marks obeyed) without a real scheme.

use super::{SeqRange, StartCtx, StartPlan, StartupPolicy};
use crate::tcp::events::{AckSample, LossEvent, LossKind, LossVerdict, Phase, SendMarks, SendMeta};

#[derive(Clone, Debug, Default)]
pub struct Scripted {
    /// cwnd and ssthresh to set at every transfer start (if any).
    pub start_window: Option<(f64, i32)>,
    /// Low-priority range of the plan, relative to the first new segment.
    pub low_prio: Option<(i64, i64)>,
    /// Watch acks even without a range.
    pub watch: bool,
    /// Leave the start-up phase after this many acks.
    pub exit_after_acks: Option<u32>,
    /// The answer to every loss.
    pub verdict: Option<LossVerdict>,
    /// Recorded: (kind, cwnd, ssthresh as seen by `on_loss`, lost_low_prio).
    pub losses: Vec<(LossKind, f64, i32, bool)>,
    pub acks: Vec<AckSample>,
    pub sends: Vec<SendMeta>,
    pub transfers_done: u32,
}

impl StartupPolicy for Scripted {
    fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        if let Some((c, s)) = self.start_window {
            cx.tcb.cwnd = c;
            cx.tcb.ssthresh = s;
        }
        StartPlan {
            pacer: None,
            low_prio: self.low_prio.map(|(a, b)| SeqRange { first: cx.t_seqno + a, last: cx.t_seqno + b }),
            watch: self.watch,
            ..StartPlan::default()
        }
    }
    fn on_send(&mut self, meta: &SendMeta) -> SendMarks {
        self.sends.push(*meta);
        SendMarks::default()
    }
    fn on_ack(&mut self, _cx: &mut StartCtx, ack: &AckSample) -> Phase {
        self.acks.push(*ack);
        match self.exit_after_acks {
            Some(n) if self.acks.len() as u32 >= n => Phase::Exit,
            _ => Phase::Stay,
        }
    }
    fn on_loss(&mut self, cx: &mut StartCtx, loss: &LossEvent) -> LossVerdict {
        self.losses.push((loss.kind, cx.tcb.cwnd, cx.tcb.ssthresh, loss.lost_low_prio));
        self.verdict.unwrap_or(LossVerdict::Cut)
    }
    fn on_transfer_done(&mut self, _cx: &mut StartCtx) {
        self.transfers_done += 1;
    }
    fn wants_detail(&self) -> bool {
        true
    }
}
