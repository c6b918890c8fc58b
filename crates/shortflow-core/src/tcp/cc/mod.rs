//! Congestion-window rules. `Tcb` is the window state every rule and start-up policy
//! sees; the rules themselves are free functions (like Linux's `tcp_slow_start`,
//! `tcp_cong_avoid_ai`), and `AnyCc` picks the growth rule per connection.
//!
//! - [`ns2`]: ns-2.35's `opencwnd()` (windowOption_ 1) and `slowdown(how)`, the rules
//!   of Tahoe/Reno/NewReno.
//!
//! Later families (TCP Vienna's size-based α/β, fair-share slow start) add variants to
//! `AnyCc`; the sender calls only `AnyCc::open` and `AnyCc::slowdown`.

pub mod ns2;

use crate::config::TcpVariant;

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
    /// `wnd_init_` and `wnd_init_option_`.
    pub wnd_init: i32,
    pub wnd_init_option: i32,
    /// `wnd_restart_` (cwnd after a timeout): 1.
    pub wnd_restart: f64,
    pub maxcwnd: i32,
    pub increase_num: f64,
    pub decrease_num: f64,
    pub last_cwnd_action: CwndAction,
    pub first_decrease: bool,
    pub packet_size: u32,
}

impl Tcb {
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

/// The congestion-avoidance rule of a connection.
#[derive(Clone, Debug, Default)]
pub enum AnyCc {
    /// ns-2.35 standard: slow start +1 per ack, CA +increase_num/cwnd per ack.
    #[default]
    Ns2Standard,
}

impl AnyCc {
    /// A new cumulative ack arrived (ns-2 `opencwnd()`).
    #[inline]
    pub fn open(&mut self, t: &mut Tcb) {
        match self {
            AnyCc::Ns2Standard => ns2::opencwnd(t),
        }
    }
    /// Reduce the window (ns-2 `slowdown(how)`); `how` is a set of [`ns2::how`] flags.
    #[inline]
    pub fn slowdown(&mut self, t: &mut Tcb, how: u32) {
        match self {
            AnyCc::Ns2Standard => ns2::slowdown(t, how),
        }
    }
}
