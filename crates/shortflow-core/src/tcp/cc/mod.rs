//! Congestion control: how the window grows on acks and shrinks on losses.
//!
//! `Tcb` is the window state every rule and start-up policy sees. A rule implements
//! [`CongestionControl`] (like Linux's `tcp_congestion_ops` or quinn's `Controller`):
//! it gets typed events ([`AckSample`], [`LossEvent`], [`SendMeta`]) and changes the
//! `Tcb`; it never sees the sender's sequence state. [`AnyCc`] dispatches by enum on
//! the hot path (no trait objects).
//!
//! - [`ns2`]: ns-2.35's `opencwnd()` (windowOption_ 1) and `slowdown(how)`, the rules
//!   of Tahoe/Reno/NewReno. The `how` flags are private to that rule.
//! - [`vienna`]: TCP Vienna, α/β/γ adapted to the transfer's size (P4).
//! - [`asym`]: the thesis's sender adaptation (ch. 9): growth per segment acked and
//!   paced bursts ([`AnyCc::burst_gap`]).
//! - [`linux_reno`]: Linux's Reno (slow start by segments acked, one segment per window
//!   in congestion avoidance, growth only while the window limits the sender).
//! - [`cubic`]: CUBIC as Linux's tcp_cubic.c (β 717/1024, C 0.4, fast convergence,
//!   Reno-friendly region). Its multiplicative decrease is `cubic::Cubic::beta()`; like
//!   every rule, `on_loss` leaves the new ssthresh in `Tcb::ssthresh` for a recovery
//!   policy (PRR) to aim at.
//!
//! Adding a rule (TCP Vienna's size-based α/β, CUBIC, ...): one file here with a type
//! implementing [`CongestionControl`], one variant in [`AnyCc`] and one line in each
//! match below; its configuration is validated in its own file (`from_config`).

pub mod asym;
pub mod cubic;
pub mod linux_reno;
pub mod ns2;
pub mod vienna;

use crate::config::{CcConfig, TcpVariant};
use crate::error::ConfigError;
use crate::results::CcTrace;
use crate::tcp::events::{AckSample, LossEvent, SendMeta};
use crate::tcp::rtt::{RttEstimator, RttParams};
use crate::time::SimTime;

/// Why cwnd was last changed (ns-2 `last_cwnd_action_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndAction {
    None,
    Dupack,
    Timeout,
    Ecn,
    Exited,
}

/// Window state of one connection, in packets (ns-2 one-way TCP counts packets).
#[derive(Clone, Debug)]
pub struct Tcb {
    pub variant: TcpVariant,
    /// `cwnd_` (real-valued).
    pub cwnd: f64,
    /// `ssthresh_` (an int in ns-2).
    pub ssthresh: i32,
    /// `wnd_`: receiver window cap (`window_`).
    pub wnd: f64,
    /// Reno/NewReno fast-recovery inflation (`dupwnd_`).
    pub dupwnd: i32,
    /// `wnd_init_` and `wnd_init_option_` (1 or 2 in ns-2; a byte, which with
    /// `WND_RESTART` a constant keeps the block 16 bytes smaller, issue 21 item 3).
    pub wnd_init: i32,
    pub wnd_init_option: u8,
    pub maxcwnd: i32,
    pub increase_num: f64,
    pub decrease_num: f64,
    pub last_cwnd_action: CwndAction,
    pub first_decrease: bool,
    pub packet_size: u32,
}

const _: () = assert!(std::mem::size_of::<Tcb>() == 56);

impl Tcb {
    /// ns-2 `wnd_restart_` (cwnd after a timeout): 1, as ns-2 sets it; nothing here
    /// configures it, so it is a constant rather than 8 bytes per block.
    pub const WND_RESTART: f64 = 1.0;

    /// ns-2 `window()`: usable window in whole packets.
    #[inline]
    pub fn window(&self) -> i64 {
        match self.variant {
            TcpVariant::Tahoe => {
                if self.cwnd < self.wnd {
                    self.cwnd as i64
                } else {
                    self.wnd as i64
                }
            }
            TcpVariant::Reno | TcpVariant::Newreno => {
                let w = self.cwnd as i64 + self.dupwnd as i64;
                w.min(self.wnd as i64)
            }
        }
    }

    /// ns-2 `windowd()`.
    #[inline]
    pub fn windowd(&self) -> f64 {
        match self.variant {
            TcpVariant::Tahoe => self.cwnd.min(self.wnd),
            TcpVariant::Reno | TcpVariant::Newreno => (self.cwnd + self.dupwnd as f64).min(self.wnd),
        }
    }

    /// ns-2 `initial_window()` (without Quick-Start).
    pub fn initial_window(&self) -> f64 {
        if self.wnd_init_option == 2 {
            if self.packet_size <= 1095 {
                4.0
            } else if self.packet_size < 2190 {
                3.0
            } else {
                2.0
            }
        } else {
            self.wnd_init as f64
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh as f64
    }
}

/// Read access to a connection's RTT estimator (ns-2's coarse one) for a rule.
#[derive(Clone, Copy)]
pub struct RttView<'a> {
    pub est: &'a RttEstimator,
    pub params: &'a RttParams,
}

impl RttView<'_> {
    /// Smoothed RTT (s) with ns-2's fractional bits; 0 before the first sample.
    pub fn srtt_s(&self) -> f64 {
        self.est.srtt_frac_s(self.params)
    }
    /// The current retransmission timeout (s), back-off included.
    pub fn rto_s(&self) -> f64 {
        self.est.timeout(self.params)
    }
}

/// A congestion-control rule. Every method but `on_ack`/`on_loss` has a no-op default.
pub trait CongestionControl {
    /// The application hands over a transfer of `transfer_pkts` packets (TCP Vienna
    /// adapts its parameters to the size).
    fn on_transfer_start(&mut self, _t: &mut Tcb, _transfer_pkts: i64) {}
    /// A new cumulative ack outside recovery: grow the window (ns-2 `opencwnd`).
    fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample);
    /// A loss event the start-up policy left to congestion control
    /// ([`LossVerdict::Cut`](crate::tcp::events::LossVerdict::Cut)): reduce the window.
    fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent);
    /// A segment is about to leave; `rtt` reads the connection's RTT estimator (TCP
    /// Vienna evaluates its throughput model with the smoothed RTT and the RTO).
    fn on_send(&mut self, _t: &Tcb, _rtt: RttView<'_>, _meta: &SendMeta) {}
    /// A pacing rate (packets/s) the rule wants for every segment, if any. Pacing
    /// itself is the sender's business (`tcp::pacing`), kept apart as in quinn.
    fn pacing_rate(&self, _t: &Tcb) -> Option<f64> {
        None
    }
    /// Rule-specific state for traces: (name, value) pairs.
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// At the end of a run: the rule's decisions, if it logs any (TCP Vienna's
    /// evaluations), into the run's `cc` table.
    fn report(&self, _flow: &str, _out: &mut CcTrace) {}
    /// Does the rule read per-segment detail (`AckSample::rtt`, `AckSample::rate`,
    /// `LossEvent::lost_sent_at`)? Only then does the sender keep its sent-segment
    /// log, so ns-2's rules pay nothing for it.
    fn wants_detail(&self) -> bool {
        false
    }
}

/// The congestion-control rule of a connection (enum dispatch on the hot path). Every
/// rule with state is boxed, so a block pays 16 bytes for its rule, not the 40 of the
/// largest inline one (ns-2's rule, that of every block of a large run, has none).
#[derive(Clone, Debug)]
pub enum AnyCc {
    /// ns-2.35 standard: slow start +1 per ack, CA +increase_num/cwnd per ack.
    Ns2(ns2::Ns2Standard),
    /// Thesis ch. 9 sender adaptation.
    Asym(Box<asym::SenderAdaptation>),
    /// TCP Vienna (size-based congestion control).
    Vienna(Box<vienna::Vienna>),
    /// Linux's Reno (`tcp_reno_cong_avoid`).
    LinuxReno(Box<linux_reno::LinuxReno>),
    /// CUBIC as Linux's tcp_cubic.c.
    Cubic(Box<cubic::Cubic>),
}

/// Dispatch one call to the rule inside `AnyCc`.
macro_rules! dispatch {
    ($self:expr, $c:ident => $call:expr) => {
        match $self {
            AnyCc::Ns2($c) => $call,
            AnyCc::Asym($c) => $call,
            AnyCc::Vienna($c) => $call,
            AnyCc::LinuxReno($c) => $call,
            AnyCc::Cubic($c) => $call,
        }
    };
}

const _: () = assert!(std::mem::size_of::<AnyCc>() == 16);

impl Default for AnyCc {
    fn default() -> Self {
        AnyCc::Ns2(ns2::Ns2Standard)
    }
}

impl AnyCc {
    /// The rule `cfg` names, validated (`field` is the flow's `tcp` path; `maxburst`
    /// its `tcp.maxburst`).
    pub fn from_config(field: &str, cfg: &CcConfig, maxburst: u32) -> Result<AnyCc, ConfigError> {
        Ok(match cfg {
            CcConfig::Ns2 => AnyCc::Ns2(ns2::Ns2Standard),
            CcConfig::SenderAdaptation { gain } => {
                AnyCc::Asym(Box::new(asym::SenderAdaptation::from_config(field, *gain, maxburst)?))
            }
            CcConfig::Vienna(vc) => AnyCc::Vienna(Box::new(vienna::Vienna::from_config(field, vc)?)),
            CcConfig::LinuxReno => AnyCc::LinuxReno(Box::default()),
            CcConfig::Cubic => AnyCc::Cubic(Box::default()),
        })
    }

    /// After a burst of `maxburst` segments was cut short by the limit: how long to
    /// wait before the next one, if the rule paces bursts (sender adaptation).
    #[inline]
    pub fn burst_gap(&self, t: &Tcb, maxburst: i32) -> Option<SimTime> {
        match self {
            AnyCc::Asym(c) => c.burst_gap(t, maxburst),
            _ => None,
        }
    }

    #[inline]
    pub fn on_transfer_start(&mut self, t: &mut Tcb, transfer_pkts: i64) {
        dispatch!(self, c => c.on_transfer_start(t, transfer_pkts))
    }
    #[inline(always)]
    pub fn on_ack(&mut self, t: &mut Tcb, ack: &AckSample) {
        dispatch!(self, c => c.on_ack(t, ack))
    }
    /// `on_ack` with the sample built by `sample` inside each rule's arm: a rule that
    /// ignores the sample (ns-2's) does not have it built at all.
    #[inline(always)]
    pub fn on_ack_lazy(&mut self, t: &mut Tcb, sample: impl FnOnce() -> AckSample) {
        dispatch!(self, c => c.on_ack(t, &sample()))
    }
    #[inline]
    pub fn on_loss(&mut self, t: &mut Tcb, loss: &LossEvent) {
        dispatch!(self, c => c.on_loss(t, loss))
    }
    /// Would `on_loss` with an idle restart (`LossKind::IdleRestart`) leave `t` as it
    /// is? True only where that is known from the rule: ns-2's (cwnd already 1,
    /// ssthresh at least 2, `first_decrease` clear; `slowdown(CLOSE_CWND_ONE)` sets
    /// just these). Lets the sender park an idle connection's timer
    /// (`TcpConn::rtx_timeout_is_noop`); false costs only the firings.
    pub fn idle_restart_is_noop(&self, t: &Tcb) -> bool {
        match self {
            AnyCc::Ns2(_) => t.cwnd == 1.0 && t.ssthresh >= 2 && !t.first_decrease,
            _ => false,
        }
    }
    #[inline]
    pub fn on_send(&mut self, t: &Tcb, rtt: RttView<'_>, meta: &SendMeta) {
        dispatch!(self, c => c.on_send(t, rtt, meta))
    }
    pub fn pacing_rate(&self, t: &Tcb) -> Option<f64> {
        dispatch!(self, c => c.pacing_rate(t))
    }
    pub fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        dispatch!(self, c => c.metrics(out))
    }
    pub fn report(&self, flow: &str, out: &mut CcTrace) {
        dispatch!(self, c => c.report(flow, out))
    }
    pub fn wants_detail(&self) -> bool {
        dispatch!(self, c => c.wants_detail())
    }
}
