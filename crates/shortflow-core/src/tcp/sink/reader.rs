//! A receiving application that reads slowly, and the receive buffer it drains
//! (`sink.reader`; thesis §7.1.2.1, Fig. 7.3(a): "having the receiver read in data
//! slowly (thereby invoking the TCP flow control mechanism)"). ns-2 has no receive
//! buffer or advertised window: this is an extension, off unless configured.
//!
//! - **Buffer**: in-order data enters the buffer when it arrives (each data segment
//!   counts the sender's `packet_size` of payload; a SYN counts nothing); out-of-order
//!   data is not counted (it is held by the acker, outside the application's buffer).
//! - **Reading**: from `start_s` on, the application reads at `rate_bps` whenever unread
//!   data is there (a fluid rate, so the unread bytes at any instant follow exactly from
//!   the last update: they fall at the rate until empty); before `start_s` it reads
//!   everything on arrival (the client throttles the connection from then on).
//! - **Advertised window**: every ack carries `floor((buffer - unread) / segment)`
//!   segments (`PktOptions::rwnd`). The right edge (ack + window) never moves back: an
//!   in-order arrival takes one segment of room and advances the ack by one.
//! - **Window update** (Linux `tcp_cleanup_rbuf`): once reading has opened the window to
//!   at least twice what is left of the last advertisement (and at least one segment),
//!   the sink sends an ack with the window at once, marked as an update so the sender
//!   does not count it as a duplicate ack. Its time is computed from the rate (a timer).
//!   No zero-window probe is modelled: a lost update leaves the sender waiting until the
//!   next one (the update timer runs again after every ack).

use crate::config::ReaderConfig;
use crate::engine::Timer;
use crate::error::{positive, ConfigError};
use crate::time::SimTime;

/// The sink's timer id of the window update (2 is the delayed ack).
pub const TIMER_RWND: u8 = 5;

/// Validated `sink.reader`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReaderParams {
    pub buffer_bytes: u64,
    /// Bytes per second.
    pub rate: f64,
    /// Reading is throttled from this time on; before it, data is read at once.
    pub from: SimTime,
}

impl ReaderParams {
    pub fn from_config(field: &str, c: &ReaderConfig) -> Result<ReaderParams, ConfigError> {
        let bps = positive(&format!("{field}.rate_bps"), c.rate_bps)?;
        if c.buffer_bytes < 1 {
            return Err(ConfigError::new(format!("{field}.buffer_bytes"), c.buffer_bytes, "must be at least 1 byte"));
        }
        let from = crate::error::time_s(&format!("{field}.start_s"), c.start_s)?;
        Ok(ReaderParams { buffer_bytes: c.buffer_bytes, rate: bps / 8.0, from })
    }

    /// The buffer must hold one segment of `seg_bytes` (the flow's `tcp.packet_size`).
    pub fn check_segment(&self, field: &str, seg_bytes: u32) -> Result<(), ConfigError> {
        if self.buffer_bytes < seg_bytes as u64 {
            return Err(ConfigError::new(
                format!("{field}.buffer_bytes"),
                self.buffer_bytes,
                format!("must hold at least one segment (tcp.packet_size = {seg_bytes} B): the window would stay 0"),
            ));
        }
        Ok(())
    }
}

/// The reading application's state (boxed in the sink: most sinks have none).
#[derive(Debug)]
pub struct Reader {
    buffer: f64,
    rate: f64,
    seg: f64,
    from: SimTime,
    /// The first sequence number that carries data (1 with a SYN exchange).
    first_data: i64,
    /// Bytes in the buffer not yet read, as of `last`.
    unread: f64,
    last: SimTime,
    /// Right edge of the last advertisement (ack + window), -1 before the first.
    adv_edge: i64,
    pub(super) timer: Timer,
    /// The next ack is a window update.
    pub(super) update_next: bool,
    /// Bytes the application has read (for tests and results).
    pub read_bytes: f64,
}

impl Reader {
    pub fn new(p: ReaderParams, seg_bytes: u32, syn: bool) -> Reader {
        Reader {
            buffer: p.buffer_bytes as f64,
            rate: p.rate,
            seg: seg_bytes as f64,
            from: p.from,
            first_data: syn as i64,
            unread: 0.0,
            last: SimTime::ZERO,
            adv_edge: -1,
            timer: Timer::default(),
            update_next: false,
            read_bytes: 0.0,
        }
    }

    /// The application reads until `now` (everything at once before `from`).
    pub fn drain(&mut self, now: SimTime) {
        if self.last < self.from {
            // Unthrottled until `from`: what arrived before it was read on arrival.
            self.read_bytes += self.unread;
            self.unread = 0.0;
            if now <= self.from {
                self.last = now;
                return;
            }
            self.last = self.from;
        }
        let dt = now.as_secs_f64() - self.last.as_secs_f64();
        let r = (self.rate * dt).min(self.unread);
        self.unread -= r;
        self.read_bytes += r;
        self.last = now;
    }

    /// The in-order data advanced from `before` to `after` (sequence numbers) at `now`.
    pub fn on_in_order(&mut self, now: SimTime, before: i64, after: i64) {
        self.drain(now);
        let newly = after - before.max(self.first_data - 1);
        if newly > 0 {
            self.unread += newly as f64 * self.seg;
        }
    }

    /// The window (segments) an ack sent now advertises.
    pub fn window(&self) -> u32 {
        ((self.buffer - self.unread).max(0.0) / self.seg + 1e-9).floor() as u32
    }

    /// Unread bytes as of the last update.
    pub fn unread(&self) -> f64 {
        self.unread
    }

    /// An ack with number `ackno` advertises `window` segments.
    pub fn advertised(&mut self, ackno: i64, window: u32) {
        self.adv_edge = self.adv_edge.max(ackno + window as i64);
    }

    /// When (from `now`, after `drain(now)`) the window reaches the update threshold
    /// for an ack number `ackno`; None: it cannot (the buffer is as open as it gets).
    pub fn update_due(&self, ackno: i64) -> Option<SimTime> {
        let left = (self.adv_edge - ackno).max(0) as f64;
        let cap = (self.buffer / self.seg + 1e-9).floor();
        let target = (2.0 * left).max(1.0).min(cap);
        if target <= left {
            return None;
        }
        let need_unread = self.buffer - target * self.seg;
        if self.last < self.from {
            // Everything unread now is read at once on the next update.
            return Some(SimTime::ZERO);
        }
        let wait = ((self.unread - need_unread) / self.rate).max(0.0);
        // Rounded up to the next nanosecond so that the window has opened when it fires.
        Some(SimTime::from_nanos((wait * 1e9).ceil() as u64))
    }
}
