//! Applications and traffic sources. Each drives one or more transport agents through
//! `Event::App` callbacks; the random draws of each source come from its own stream.
//!
//! - `Ftp`: bulk transfer, finite (one recorded transfer) or infinite.
//! - `Rounds`: rounds of short transfers over long-lived connections (TCP/SPAND §6.2).
//! - `Telnet`: ns-2 `Application/Telnet` (tcplib inter-arrivals when `interval` is 0).
//! - `Web`: Web page downloads between client–server pairs (HTTP/1.0 sequential or
//!   concurrent, persistent, GETLIST pipelining, GETALL; [`web`]).
//! - `OnOff` / `Cbr`: UDP sources with ns-2's `Application/Traffic/*` semantics
//!   (the distributions live in [`dist`]).
//! - `Surge`: SURGE-like Web users, an object per fresh connection ([`surge`]).
//!
//! [`build`] validates the `apps` tables and builds [`Apps`]; the simulation hands
//! `Event::App` events and completed transfers to [`Apps`].

pub mod build;
pub mod dist;
pub mod mux;
pub mod surge;
pub mod web;
pub mod webmux;

use crate::config::RoundTiming;
use crate::engine::{Event, Scheduler};
use crate::rng::Rng;
use crate::tcp::control::TcpSenders;
use crate::tcp::sink::TcpSink;
use crate::time::SimTime;
use crate::world::Ctx;
use crate::world::Notice;

/// A rounds workload: every connection sends one file per round; the next round is
/// scheduled once every transfer of the current one has completed.
pub struct Rounds {
    /// Sender indices (into the world's sender table), in configuration order.
    pub senders: Vec<u32>,
    /// Flow indices of the connections, in the same order.
    pub flows: Vec<u32>,
    /// Packets and bytes of each connection's file.
    pub pkts: Vec<i64>,
    pub bytes: Vec<u64>,
    /// Per-round file sizes (packets, bytes), replacing `pkts`/`bytes` when given.
    pub round_sizes: Option<Vec<(i64, u64)>>,
    pub rounds: u32,
    pub jitter: SimTime,
    /// Per-round start-window widths, replacing `jitter` when given.
    pub round_jitter: Option<Vec<SimTime>>,
    /// Web page model: the HTML object (packets, bytes) and the request gap.
    pub page: Option<Page>,
    /// Per connection: the HTML of the current page is delivered (images next).
    pub html_done: Vec<bool>,
    pub idle: SimTime,
    pub first_center: SimTime,
    pub timing: RoundTiming,
    pub rng: Rng,
    pub round: u32,
    pub outstanding: u32,
    pub done: bool,
}

/// A Web page's HTML object and the delay of the follow-up request (see
/// `config::PageConfig`).
#[derive(Clone, Copy, Debug)]
pub struct Page {
    pub html_pkts: i64,
    pub html_bytes: u64,
    pub request_gap: SimTime,
}

impl Rounds {
    /// Width of round `r`'s start window.
    pub fn jitter_of(&self, r: u32) -> SimTime {
        self.round_jitter.as_ref().map_or(self.jitter, |v| v[r as usize])
    }

    /// Packets and bytes of connection `i`'s file in round `r`.
    pub fn file(&self, i: usize, r: u32) -> (i64, u64) {
        match &self.round_sizes {
            Some(v) => v[r as usize],
            None => (self.pkts[i], self.bytes[i]),
        }
    }

    /// Centre of round `r` given the previous round's last completion.
    pub fn center(&self, r: u32, last_completion: SimTime) -> SimTime {
        if r == 0 {
            return self.first_center;
        }
        match self.timing {
            RoundTiming::AfterLast => last_completion + self.idle + SimTime(self.jitter_of(r).0 / 2),
            RoundTiming::FixedPeriod { period_s } => self.first_center + SimTime::from_secs_f64(period_s * r as f64),
        }
    }

    /// Schedule the starts of round `self.round` (token = index of the connection).
    pub fn schedule_round(
        &mut self,
        app: u32,
        now: SimTime,
        last_completion: SimTime,
        sched: &mut crate::engine::Scheduler,
    ) {
        let c = self.center(self.round, last_completion);
        let jitter = self.jitter_of(self.round).as_secs_f64();
        self.outstanding = self.senders.len() as u32;
        for i in 0..self.senders.len() {
            // U(c - J/2, c + J/2), drawn per connection in order.
            let off = self.rng.uniform() * jitter;
            let start = SimTime::from_secs_f64((c.as_secs_f64() - jitter / 2.0 + off).max(0.0));
            let start = if start < now { now } else { start };
            sched.at(start, Event::App { app, token: i as u32 });
        }
    }
}

/// ns-2 `Application/Telnet` over a TCP sender.
pub struct Telnet {
    pub sender: u32,
    /// 0 = tcplib distribution, otherwise exponential with this mean.
    pub interval_s: f64,
    pub rng: Rng,
}

impl Telnet {
    /// ns-2.35: apps/telnet.cc `TelnetApp::next()`.
    pub fn next(&mut self) -> SimTime {
        let s = if self.interval_s == 0.0 {
            dist::tcplib_telnet_interarrival(&mut self.rng)
        } else {
            self.rng.exponential(self.interval_s)
        };
        SimTime::from_secs_f64(s)
    }
}

/// A UDP source (ON/OFF or CBR) feeding a UDP agent.
pub struct UdpSource {
    pub flow: u32,
    pub node: u32,
    pub dst_node: u32,
    pub dst_agent: u32,
    pub gen: UdpGen,
    pub rng: Rng,
    pub stop: Option<SimTime>,
    pub pkts_sent: u64,
    /// The packet spacing while sending, s (`interval_s` of the generator), and the
    /// same as a [`SimTime`]: most delays are this spacing, whose conversion is done once.
    step_s: f64,
    step: SimTime,
    /// The first link towards `dst_node` (set once the network is built, routes are
    /// static; `net::NO_LINK` until then: looked up per packet).
    pub first_link: u32,
}

pub enum UdpGen {
    OnOff(dist::OnOff),
    Cbr(dist::Cbr),
}

/// What an FTP application does when it starts (`apps[].bytes`; `stop_s` /
/// `duration_s`, which only an infinite source may have). One field for both keeps
/// `App` at 32 bytes (each replica connection has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FtpWork {
    /// Send this many bytes, as one recorded transfer.
    Bytes(u64),
    /// An infinite source that runs to the end.
    Forever,
    /// An infinite source whose connection is torn down at this time, or at its start
    /// if that is later (token 1 of its application event).
    StopAt(SimTime),
    /// An infinite source whose connection is torn down this long after its start.
    StopAfter(SimTime),
}

/// One application. The large variants are boxed so that the per-connection `Ftp` stays
/// small: a 10 000-connection run holds 10 000 apps.
pub enum App {
    Ftp {
        sender: u32,
        start: SimTime,
        work: FtpWork,
    },
    Rounds(Box<Rounds>),
    /// Boxed: Telnet's 48 bytes (its generator) would make every application 56 B
    /// (48 with it boxed, the size of `Ftp`, which each replica connection has).
    Telnet(Box<Telnet>),
    Udp(Box<UdpSource>),
    Surge(Box<surge::Surge>),
    Web(Box<web::Web>),
    /// Object streams multiplexed on one connection (WebMUX style).
    Mux(Box<webmux::Mux>),
    /// A timed `setwt` on a TCP-session member (`flows[].session.setwt`).
    SetWt {
        sender: u32,
        weight: u32,
    },
}

// One application per replica connection (issue 21 item 3; see `layout_tests`).
const _: () = assert!(std::mem::size_of::<App>() == 32);

/// `Apps::flow_app` of a flow no application drives.
const NO_APP: u32 = u32::MAX;

/// Every application of a simulation, and which one drives each flow.
pub struct Apps {
    pub list: Vec<App>,
    /// The application that handles completions of each flow, `NO_APP` for none (a
    /// `u32`, not an `Option<u32>`: 4 bytes less per flow). Read with [`Apps::flow_app`].
    flow_app: Vec<u32>,
    /// The UDP source application of each flow, if any; empty when no flow has one
    /// (8 bytes less per flow of a TCP-only run; only `Apps::udp_sent` reads it).
    pub udp_src_app: Vec<Option<u32>>,
    /// Finite applications (rounds, finite FTP) not yet finished.
    pub finite_left: usize,
    /// Applications waiting for flows' first downloads (`start_after`).
    pub waiters: Vec<Waiter>,
    /// Per flow: has it completed its first download?
    pub first_done: Vec<bool>,
    /// The UDP sources' pending events; only the earliest is in the scheduler.
    pub udp_mux: mux::UdpMux,
}

/// An application that starts `delay` after every flow of `flows` has completed its
/// first download.
pub struct Waiter {
    pub app: u32,
    pub flows: Vec<u32>,
    pub delay: SimTime,
    pub fired: bool,
}

impl Apps {
    /// Bytes of the application table and its per-flow columns, by capacity, with
    /// `app_size` bytes per application (`size_of::<App>()`; boxed applications'
    /// contents are not counted).
    pub fn memory_bytes(&self, app_size: usize) -> usize {
        self.list.capacity() * app_size
            + self.flow_app.capacity() * std::mem::size_of::<u32>()
            + self.udp_src_app.capacity() * std::mem::size_of::<Option<u32>>()
            + self.first_done.capacity()
    }

    /// The application that handles completions of `flow`, if any.
    #[inline]
    fn flow_app(&self, flow: u32) -> Option<u32> {
        Some(self.flow_app[flow as usize]).filter(|&a| a != NO_APP)
    }

    /// An `Event::App` fired for application `app` with `token`.
    pub fn event(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink], app: u32, token: u32) {
        match &mut self.list[app as usize] {
            App::Web(w) => {
                if w.event(cx, senders, sinks, app, token) {
                    self.finite_left = self.finite_left.saturating_sub(1);
                }
            }
            App::Ftp { sender, .. } if token == 1 => senders.close(cx, *sender),
            App::Ftp { sender, work, .. } => match *work {
                FtpWork::Bytes(b) => {
                    let n = b.div_ceil(senders.conns[*sender as usize].params().size as u64) as i64;
                    senders.start_transfer(cx, *sender, n, 0, b);
                }
                stop => {
                    let now = cx.now();
                    let at = match stop {
                        FtpWork::StopAt(t) => Some(t.max(now)),
                        FtpWork::StopAfter(d) => Some(now + d),
                        _ => None,
                    };
                    if let Some(at) = at {
                        cx.sched.at(at, Event::App { app, token: 1 });
                    }
                    senders.start_infinite(cx, *sender)
                }
            },
            App::Rounds(r) => {
                // Tokens 0..n start connection i's download; n..2n its images (page model).
                let k = r.senders.len();
                let i = token as usize % k;
                let (sender, round) = (r.senders[i], r.round);
                let (n, b) = match r.page {
                    Some(p) if (token as usize) < k => {
                        r.html_done[i] = false;
                        (p.html_pkts, p.html_bytes)
                    }
                    _ => r.file(i, round),
                };
                senders.start_transfer(cx, sender, n, round, b);
            }
            App::Telnet(t) => {
                // ns-2.35 apps/telnet.cc timeout(): send one packet, then wait next().
                senders.sendmsg_pkts(cx, t.sender, 1);
                let d = t.next();
                cx.sched.after(d, Event::App { app, token: 0 });
            }
            App::Udp(u) => {
                let next = u.fire(cx);
                if self.udp_mux.fired(app) {
                    if let Some(d) = next {
                        self.udp_mux.schedule_after(cx.sched, d, app);
                    }
                    self.udp_mux.arm(cx.sched);
                } else if let Some(d) = next {
                    cx.sched.after(d, Event::App { app, token: 0 });
                }
            }
            App::Surge(s) => s.event(cx, senders, token),
            App::Mux(m) => m.event(cx, senders, sinks, token),
            App::SetWt { sender, weight } => {
                senders.set_weight(*sender, *weight);
                let b = senders.conns[*sender as usize].cb;
                crate::tcp::session::serve(senders, cx, b);
            }
        }
    }

    /// A transfer of `flow` completed at `now`: rounds start their next round (or a
    /// page its images); waiting applications start after first downloads.
    pub fn transfer_done(&mut self, flow: u32, now: SimTime, sched: &mut Scheduler) {
        let Some(ai) = self.flow_app(flow) else { return };
        match &mut self.list[ai as usize] {
            App::Ftp { .. } => {
                self.finite_left = self.finite_left.saturating_sub(1);
                self.download_done(flow, now, sched);
            }
            App::Rounds(r) => {
                if let Some(p) = r.page {
                    let i = r.flows.iter().position(|&f| f == flow).expect("a flow of this rounds app");
                    if !r.html_done[i] {
                        // The HTML is delivered: the pipelined request for the images.
                        r.html_done[i] = true;
                        let token = (r.senders.len() + i) as u32;
                        sched.at(now + p.request_gap, Event::App { app: ai, token });
                        return;
                    }
                }
                if r.round == 0 {
                    // (r's borrow ends here; re-taken below.)
                    self.download_done(flow, now, sched);
                }
                let App::Rounds(r) = &mut self.list[ai as usize] else { unreachable!() };
                r.outstanding = r.outstanding.saturating_sub(1);
                if r.outstanding == 0 && !r.done {
                    r.round += 1;
                    if r.round >= r.rounds {
                        r.done = true;
                        self.finite_left = self.finite_left.saturating_sub(1);
                    } else {
                        r.schedule_round(ai, now, now, sched);
                    }
                }
            }
            App::Surge(s) => s.transfer_done(ai, flow, now, sched),
            _ => {}
        }
    }

    /// `flow` completed its first download: start the waiters it was the last one for.
    fn download_done(&mut self, flow: u32, now: SimTime, sched: &mut Scheduler) {
        if self.waiters.is_empty() || std::mem::replace(&mut self.first_done[flow as usize], true) {
            return;
        }
        for w in &mut self.waiters {
            if !w.fired && w.flows.iter().all(|&f| self.first_done[f as usize]) {
                w.fired = true;
                sched.at(now + w.delay, Event::App { app: w.app, token: 0 });
            }
        }
    }

    /// A notice for a flow driven by a Web workload or a multiplexer (true), handled
    /// here with the whole context; false: neither (the caller handles it).
    pub fn web_notice(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink], n: Notice) -> bool {
        let flow = match n {
            Notice::TransferDone { flow, .. } | Notice::Delivered { flow, .. } | Notice::Writable { flow } => flow,
        };
        let Some(ai) = self.flow_app(flow) else { return false };
        let w = match &mut self.list[ai as usize] {
            App::Web(w) => w,
            App::Mux(m) => {
                match n {
                    Notice::Delivered { seq, .. } => {
                        if m.delivered(cx, sinks, seq) {
                            self.finite_left = self.finite_left.saturating_sub(1);
                        }
                    }
                    Notice::Writable { .. } => m.write(cx, senders, sinks),
                    Notice::TransferDone { .. } => {}
                }
                return true;
            }
            _ => return false,
        };
        match n {
            Notice::TransferDone { flow, .. } => {
                if w.transfer_done(cx, senders, flow) {
                    self.finite_left = self.finite_left.saturating_sub(1);
                }
            }
            Notice::Delivered { flow, seq } => {
                if w.delivered(cx, senders, sinks, ai, flow, seq) {
                    self.finite_left = self.finite_left.saturating_sub(1);
                }
            }
            Notice::Writable { .. } => {}
        }
        true
    }

    /// A control packet of Web workload `app` reached its server endpoint.
    pub fn web_recv(
        &mut self,
        cx: &mut Ctx,
        senders: &mut TcpSenders,
        sinks: &mut [TcpSink],
        app: u32,
        pkt: crate::engine::PktId,
    ) {
        match &mut self.list[app as usize] {
            App::Web(w) => w.server_recv(cx, senders, sinks, app, pkt),
            _ => cx.net.pool.free(pkt),
        }
    }

    /// Packets sent by the UDP source of `flow` (0 if it has none).
    pub fn udp_sent(&self, flow: usize) -> u64 {
        match self.udp_src_app.get(flow).copied().flatten().map(|a| &self.list[a as usize]) {
            Some(App::Udp(src)) => src.pkts_sent,
            _ => 0,
        }
    }
}

impl UdpSource {
    pub fn new(
        flow: u32,
        node: u32,
        dst_node: u32,
        dst_agent: u32,
        gen: UdpGen,
        rng: Rng,
        stop: Option<SimTime>,
    ) -> Self {
        let step_s = match &gen {
            UdpGen::OnOff(g) => g.interval_s(),
            UdpGen::Cbr(g) => g.interval_s(),
        };
        let step = SimTime::from_secs_f64(step_s);
        UdpSource {
            flow,
            node,
            dst_node,
            dst_agent,
            gen,
            rng,
            stop,
            pkts_sent: 0,
            step_s,
            step,
            first_link: crate::net::NO_LINK,
        }
    }

    /// The source's timer: send the next datagram (if any); returns the delay until
    /// the next one (`None`: the source is done). The caller schedules it (through
    /// [`mux::UdpMux`]) right away, before anything else takes a sequence number.
    fn fire(&mut self, cx: &mut Ctx) -> Option<SimTime> {
        let now = cx.now();
        if self.stop.is_some_and(|s| now >= s) {
            return None;
        }
        let (delay, size) = match &mut self.gen {
            UdpGen::OnOff(g) => g.next(&mut self.rng),
            UdpGen::Cbr(g) => g.next(),
        };
        if size > 0 {
            let pkt = crate::net::packet::Packet::udp(
                self.flow,
                self.dst_node,
                self.dst_agent,
                size,
                self.pkts_sent as i64,
                now,
            );
            let id = cx.net.pool.alloc(pkt);
            cx.net.send_via(cx.sched, self.node, self.first_link, id);
            self.pkts_sent += 1;
        }
        // The spacing's conversion is done once (`from_secs_f64` is a function of the
        // value: the same `SimTime`).
        (delay > 0.0 && delay.is_finite()).then(|| {
            if delay == self.step_s {
                self.step
            } else {
                SimTime::from_secs_f64(delay)
            }
        })
    }

    /// The spacing of this source's packets while it sends (its lane in the multiplexer).
    pub fn interval(&self) -> SimTime {
        self.step
    }
}
