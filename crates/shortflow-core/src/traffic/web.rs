//! Web client/server workload (thesis ch. 4–5, spec `thesis-http-session.md` part E).
//!
//! A *pair* is one client host and one server host. Its connections are TCP flows from
//! the server (the data sender, an ns-2 one-way agent) to the client (the sink). What
//! travels client → server besides the sink's acks is carried by **control packets**:
//! one packet per SYN or request, sent by the client application through the network
//! (so it is serialised, queued and can be dropped like any packet) and delivered to
//! the pair's server endpoint. ns-2's one-way agents carry no data backwards, so this
//! is how a request reaches the server:
//!
//! - **A fresh connection** (HTTP/1.0's one per object, or a persistent connection's
//!   first): the client sends a SYN (header only). When it arrives, the server hands
//!   the response to the connection's agent, whose `syn` segment (sequence 0, header
//!   only) plays the SYN-ACK; the sink's ack of it plays the client's handshake ack
//!   *with the request riding on it*, and the data follows. The first data segment
//!   reaches the client 2 RTT after the client's SYN, as in the thesis's model (1 RTT
//!   set-up + the request's round); the request's own bytes are not serialised on this
//!   path (the ack is a bare header).
//! - **A request on an open connection** (persistent, GETLIST): one control packet of
//!   header + `request_bytes`; the server starts the response when it arrives
//!   (plus `server_think_s`). GETLIST sends the image requests back to back.
//! - **GETALL**: one request; the server answers with the HTML and every image.
//!
//! A lost control packet is sent again `ctl_rto_s` later, doubling per attempt (the
//! request segment's retransmission by the client's TCP, initial RTO 3 s).
//!
//! Responses on one connection form one byte stream: a response written while the
//! previous one still has unsent data fills that one's last segment first (TCP's
//! coalescing); otherwise it starts a new segment. Each object's completion time is the
//! arrival at the client of the segment holding its last byte (the sink tells the
//! application through `Notice::Delivered`).
//!
//! HTTP/1.0 connections are closed once their response is acknowledged (the server's
//! close; it adds no latency, and the start-up policy hears `on_close`). Persistent
//! connections stay open across pages; with `idle_close_s` the server closes one idle
//! that long, and the client's next page opens a fresh one (what the client's retry
//! costs when it finds the connection closed).
//!
//! Connections of a pair all run between the same two hosts, so a per-host-pair
//! session (thesis ch. 6–7) can group them.

use std::collections::VecDeque;

use crate::config::{RandomPageConfig, SizeDist, WebConfig};
use crate::engine::Event;
use crate::error::{err, positive_time_s, suggest, time_s, ConfigError};
use crate::net::packet::Packet;
use crate::rng::Rng;
use crate::tcp::control::TcpSenders;
use crate::tcp::sink::TcpSink;
use crate::time::SimTime;
use crate::traffic::build::FlowInfo;
use crate::world::Ctx;

/// Retrieval modes (see `config::WebConfig::mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebMode {
    Seq,
    Conc,
    Persistent,
    Getlist,
    Getall,
}

impl WebMode {
    pub const NAMES: [&'static str; 5] = ["seq", "conc", "persistent", "getlist", "getall"];

    pub fn parse(s: &str) -> Option<WebMode> {
        Some(match s {
            "seq" => WebMode::Seq,
            "conc" => WebMode::Conc,
            "persistent" => WebMode::Persistent,
            "getlist" => WebMode::Getlist,
            "getall" => WebMode::Getall,
            _ => return None,
        })
    }

    /// One connection kept open for the pair's pages (P-HTTP).
    pub fn persistent(self) -> bool {
        matches!(self, WebMode::Persistent | WebMode::Getlist | WebMode::Getall)
    }
}

/// The object index of a GETALL request (every object of the page).
const GETALL: u32 = u32::MAX;

/// Event kinds (the low two bits of an `Event::App` token; the rest is an index).
const EV_PAGE: u32 = 0;
const EV_SERVE: u32 = 1;
const EV_RETRY: u32 = 2;

fn token(kind: u32, idx: usize) -> u32 {
    kind | ((idx as u32) << 2)
}

/// A request sent on a connection and not yet answered.
#[derive(Clone, Copy, Debug)]
struct Req {
    /// Object index in the page (0 = HTML), or `GETALL`.
    obj: u32,
    /// The connection's SYN carries it (a fresh connection).
    syn: bool,
    /// When the server may answer it (arrival + server think time).
    ready: Option<SimTime>,
    sent_at: SimTime,
    attempt: u32,
}

/// One TCP connection (flow) of a pair.
pub struct WebConn {
    pub flow: u32,
    pub sender: u32,
    pub sink: u32,
    pub pair: u32,
    /// Sequence number of the first data segment (1 with a modelled SYN).
    first_seq: i64,
    mss: u64,
    /// Data segments handed to the sender, and the bytes still free in the last one.
    queued: i64,
    tail_room: u64,
    closed: bool,
    /// Objects on their way, in stream order: (object, sequence number of its last segment).
    inflight: VecDeque<(u32, i64)>,
    requests: VecDeque<Req>,
    last_active: SimTime,
}

/// An object of the current page.
#[derive(Clone, Copy, Debug)]
struct Obj {
    bytes: u64,
    /// Connection (index in `Web::conns`) it travels on.
    conn: u32,
    req: Option<SimTime>,
    done: Option<SimTime>,
}

pub struct Pair {
    pub name: String,
    pub client: u32,
    pub server: u32,
    /// Agent id of the server endpoint (control packets are delivered to it).
    pub server_agent: u32,
    /// The pair's connections (indices in `Web::conns`), in order of use.
    conns: Vec<u32>,
    next_fresh: usize,
    persistent: Option<u32>,
    page: u32,
    page_start: SimTime,
    objs: Vec<Obj>,
    /// Next image (object index) to request.
    next_obj: usize,
    left: usize,
    conns_opened: u32,
    done: bool,
}

/// Rows of the `pages` and `objects` tables.
#[derive(Clone, Default)]
pub struct WebRows {
    pub pages: crate::results::PageTable,
    pub objects: crate::results::ObjectTable,
}

pub struct Web {
    pub mode: WebMode,
    pub parallel: Option<u32>,
    pub pages: Vec<(u64, Vec<u64>)>,
    pub random: Option<RandomPageConfig>,
    pub n_pages: u32,
    pub think: SimTime,
    pub server_think: SimTime,
    pub request_bytes: u32,
    /// Header bytes of a control packet (the connections' TCP header).
    pub hdr: u32,
    pub idle_close: Option<SimTime>,
    pub ctl_rto_s: f64,
    pub pairs: Vec<Pair>,
    pub conns: Vec<WebConn>,
    /// Per flow of the simulation: its connection here (`u32::MAX`: not ours).
    pub conn_of_flow: Vec<u32>,
    pub rng: Rng,
    pub pairs_left: usize,
    /// Every page is done; the workload finishes once the servers hold the last acks
    /// (so every transfer record is complete when a `stop_when_done` run ends).
    pub draining: bool,
    pub rows: WebRows,
}

/// A size drawn from `d` (bytes, at least 1).
pub fn draw_size(d: &SizeDist, rng: &mut Rng) -> u64 {
    let x = match *d {
        SizeDist::Fixed { bytes } => return bytes.max(1),
        SizeDist::Exponential { mean_bytes } => rng.exponential(mean_bytes),
        SizeDist::Pareto { mean_bytes, shape } => rng.pareto(mean_bytes * (shape - 1.0) / shape, shape),
        SizeDist::Uniform { min_bytes, max_bytes } => {
            let span = max_bytes - min_bytes + 1;
            return min_bytes + ((rng.uniform() * span as f64) as u64).min(span - 1);
        }
        SizeDist::Lognormal { median_bytes, sigma } => {
            // Box–Muller: u1 in (0, 1], u2 in [0, 1).
            let u1 = 1.0 - rng.uniform();
            let u2 = rng.uniform();
            let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            median_bytes * (sigma * z).exp()
        }
    };
    if x.is_finite() {
        (x.ceil() as u64).max(1)
    } else {
        u64::MAX / 2
    }
}

/// Checks of a size distribution's parameters; the message names the bad one.
pub fn check_size_dist(d: &SizeDist) -> Result<(), (&'static str, f64, &'static str)> {
    let pos = |name, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err((name, v, "must be a finite number greater than 0"))
        }
    };
    match *d {
        SizeDist::Fixed { bytes: 0 } => Err(("bytes", 0.0, "must be at least 1 byte")),
        SizeDist::Fixed { .. } => Ok(()),
        SizeDist::Exponential { mean_bytes } => pos("mean_bytes", mean_bytes),
        SizeDist::Pareto { mean_bytes, shape } => {
            pos("mean_bytes", mean_bytes)?;
            if !(shape.is_finite() && shape > 1.0) {
                return Err(("shape", shape, "must be greater than 1 (the mean is infinite otherwise)"));
            }
            Ok(())
        }
        SizeDist::Uniform { min_bytes, max_bytes } => {
            if min_bytes == 0 {
                return Err(("min_bytes", 0.0, "must be at least 1 byte"));
            }
            if max_bytes < min_bytes {
                return Err(("max_bytes", max_bytes as f64, "must be at least min_bytes"));
            }
            Ok(())
        }
        SizeDist::Lognormal { median_bytes, sigma } => {
            pos("median_bytes", median_bytes)?;
            if !(sigma.is_finite() && sigma >= 0.0) {
                return Err(("sigma", sigma, "must be a finite number >= 0"));
            }
            Ok(())
        }
    }
}

/// Append pair `pair`'s current page to `rows` (ends NaN where not yet arrived).
fn push_page(rows: &mut WebRows, pair: &Pair, conns: &[WebConn], names: &crate::names::Names) {
    let start = pair.page_start.as_secs_f64();
    let end = if pair.left == 0 {
        pair.objs.iter().filter_map(|o| o.done).max().map_or(f64::NAN, |t| t.as_secs_f64())
    } else {
        f64::NAN
    };
    rows.pages.pair.push(pair.name.clone());
    rows.pages.page.push(pair.page);
    rows.pages.start_s.push(start);
    rows.pages.end_s.push(end);
    rows.pages.download_s.push(end - start);
    rows.pages.objects.push(pair.objs.len() as u32);
    rows.pages.bytes.push(pair.objs.iter().map(|o| o.bytes).sum());
    rows.pages.conns_opened.push(pair.conns_opened);
    for (k, o) in pair.objs.iter().enumerate() {
        rows.objects.pair.push(pair.name.clone());
        rows.objects.page.push(pair.page);
        rows.objects.object.push(k as u32);
        rows.objects.bytes.push(o.bytes);
        let flow =
            if o.conn == u32::MAX { String::new() } else { names[conns[o.conn as usize].flow as usize].to_string() };
        rows.objects.conn.push(flow);
        let req = o.req.map_or(f64::NAN, |t| t.as_secs_f64());
        let done = o.done.map_or(f64::NAN, |t| t.as_secs_f64());
        rows.objects.request_s.push(req);
        rows.objects.end_s.push(done);
        rows.objects.time_s.push(done - req);
    }
}

impl Web {
    /// The first page of every pair starts at `starts[k]`.
    pub fn schedule_starts(&self, app: u32, starts: &[SimTime], sched: &mut crate::engine::Scheduler) {
        for (k, &t) in starts.iter().enumerate() {
            sched.at(t, Event::App { app, token: token(EV_PAGE, k) });
        }
    }

    /// Does flow `flow` belong to this workload?
    #[inline]
    pub fn owns(&self, flow: u32) -> bool {
        self.conn_of_flow.get(flow as usize).is_some_and(|&c| c != u32::MAX)
    }

    /// An `Event::App` token of this application. Returns true when the workload has
    /// just finished (every pair's last page done).
    pub fn event(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink], app: u32, tok: u32) -> bool {
        let idx = (tok >> 2) as usize;
        match tok & 3 {
            EV_PAGE => self.start_page(cx, senders, app, idx),
            EV_SERVE => self.serve(cx, senders, sinks, idx),
            EV_RETRY => self.retry(cx, app, idx),
            _ => {}
        }
        false
    }

    /// A control packet reached the server endpoint of one of this workload's pairs.
    pub fn server_recv(
        &mut self,
        cx: &mut Ctx,
        senders: &mut TcpSenders,
        sinks: &mut [TcpSink],
        app: u32,
        pkt: crate::engine::PktId,
    ) {
        let p = *cx.net.pool.get(pkt);
        cx.net.pool.free(pkt);
        let Some(&c) = self.conn_of_flow.get(p.flow as usize) else { return };
        if c == u32::MAX {
            return;
        }
        let (obj, syn) = if p.seqno < 0 { ((-p.seqno - 1) as u32, true) } else { (p.seqno as u32, false) };
        let now = cx.now();
        let ready = now + self.server_think;
        let conn = &mut self.conns[c as usize];
        // The oldest unanswered copy of this request (a resent one may arrive twice).
        let Some(r) = conn.requests.iter_mut().find(|r| r.obj == obj && r.syn == syn && r.ready.is_none()) else {
            return;
        };
        r.ready = Some(ready);
        if self.server_think == SimTime::ZERO {
            self.serve(cx, senders, sinks, c as usize);
        } else {
            cx.sched.at(ready, Event::App { app, token: token(EV_SERVE, c as usize) });
        }
    }

    /// Answer connection `c`'s requests that are due, in the order they were sent
    /// (responses are never reordered or interleaved).
    fn serve(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink], c: usize) {
        let now = cx.now();
        while let Some(r) = self.conns[c].requests.front().copied() {
            match r.ready {
                Some(t) if t <= now => {}
                _ => break,
            }
            self.conns[c].requests.pop_front();
            let pair = self.conns[c].pair as usize;
            if r.obj == GETALL {
                for o in 0..self.pairs[pair].objs.len() {
                    self.respond(cx, senders, sinks, c, o);
                }
            } else {
                self.respond(cx, senders, sinks, c, r.obj as usize);
            }
        }
    }

    /// The server writes object `o` of its pair's page on connection `c`.
    fn respond(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink], c: usize, o: usize) {
        let page = self.pairs[self.conns[c].pair as usize].page;
        let bytes = self.pairs[self.conns[c].pair as usize].objs[o].bytes;
        let conn = &mut self.conns[c];
        let unsent = {
            let s = &senders.conns[conn.sender as usize];
            s.t_seqno < s.curseq
        };
        // Coalesce into the last queued segment while it is unsent.
        let room = if unsent { conn.tail_room } else { 0 };
        let rest = bytes.saturating_sub(room);
        let n = rest.div_ceil(conn.mss) as i64;
        conn.tail_room = if n > 0 { n as u64 * conn.mss - rest } else { room - bytes };
        conn.queued += n;
        let end = conn.first_seq + conn.queued - 1;
        let was_empty = conn.inflight.is_empty();
        conn.inflight.push_back((o as u32, end));
        conn.last_active = cx.now();
        if was_empty {
            sinks[conn.sink as usize].notify_seq = end;
        }
        let sender = conn.sender;
        if n > 0 {
            senders.start_transfer(cx, sender, n, page, bytes);
        }
    }

    /// The client holds every segment of connection `flow` up to `seq`.
    /// Returns true when the workload has just finished.
    pub fn delivered(
        &mut self,
        cx: &mut Ctx,
        senders: &mut TcpSenders,
        sinks: &mut [TcpSink],
        app: u32,
        flow: u32,
        seq: i64,
    ) -> bool {
        let c = self.conn_of_flow[flow as usize] as usize;
        let now = cx.now();
        let mut finished = false;
        loop {
            let conn = &mut self.conns[c];
            let Some(&(o, end)) = conn.inflight.front() else { break };
            if end > seq {
                sinks[conn.sink as usize].notify_seq = end;
                break;
            }
            conn.inflight.pop_front();
            conn.last_active = now;
            let pair = conn.pair as usize;
            finished |= self.object_done(cx, senders, app, pair, o as usize);
        }
        if finished {
            self.draining = true;
            return self.all_acked(senders);
        }
        false
    }

    /// Every connection's data is acknowledged at its server.
    fn all_acked(&self, senders: &TcpSenders) -> bool {
        self.conns.iter().all(|c| {
            let s = &senders.conns[c.sender as usize];
            s.t_seqno >= s.curseq && s.highest_ack + 1 >= s.curseq
        })
    }

    /// Connection `flow`'s transfer was acknowledged at the server: an HTTP/1.0
    /// connection with nothing more to do is closed. Returns true when the workload has
    /// just finished (its pages were done, and this was the last data in flight).
    pub fn transfer_done(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, flow: u32) -> bool {
        self.close_if_done(cx, senders, flow);
        if self.draining && self.all_acked(senders) {
            self.draining = false;
            return true;
        }
        false
    }

    fn close_if_done(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, flow: u32) {
        let c = self.conn_of_flow[flow as usize] as usize;
        let conn = &mut self.conns[c];
        if !self.mode.persistent() && !conn.closed && conn.inflight.is_empty() && conn.requests.is_empty() {
            let s = &senders.conns[conn.sender as usize];
            if s.t_seqno >= s.curseq && s.highest_ack + 1 >= s.curseq {
                conn.closed = true;
                senders.close(cx, conn.sender);
            }
        }
    }

    /// Object `o` of pair `p`'s page arrived: the client's next move.
    fn object_done(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, app: u32, p: usize, o: usize) -> bool {
        let now = cx.now();
        let pair = &mut self.pairs[p];
        if pair.objs[o].done.is_some() {
            return false;
        }
        pair.objs[o].done = Some(now);
        pair.left -= 1;
        let n_objs = pair.objs.len();
        match self.mode {
            WebMode::Seq => {
                if pair.next_obj < n_objs {
                    let next = pair.next_obj;
                    pair.next_obj += 1;
                    self.open_fresh(cx, app, p, next as u32);
                }
            }
            WebMode::Conc => {
                let batch = if o == 0 { self.parallel.map_or(n_objs - 1, |k| k as usize) } else { 1 };
                for _ in 0..batch {
                    let pair = &mut self.pairs[p];
                    if pair.next_obj >= n_objs {
                        break;
                    }
                    let next = pair.next_obj;
                    pair.next_obj += 1;
                    self.open_fresh(cx, app, p, next as u32);
                }
            }
            WebMode::Persistent => {
                if pair.next_obj < n_objs {
                    let next = pair.next_obj;
                    pair.next_obj += 1;
                    let c = pair.persistent.expect("a persistent pair has its connection");
                    self.request(cx, app, c as usize, next as u32, false);
                }
            }
            WebMode::Getlist => {
                if o == 0 {
                    let c = pair.persistent.expect("a persistent pair has its connection");
                    let (from, to) = (pair.next_obj, n_objs);
                    pair.next_obj = n_objs;
                    for next in from..to {
                        self.request(cx, app, c as usize, next as u32, false);
                    }
                }
            }
            WebMode::Getall => {}
        }
        if self.pairs[p].left == 0 {
            return self.page_done(cx, senders, app, p);
        }
        false
    }

    /// Pair `p`'s page is complete: record it and schedule the next one.
    fn page_done(&mut self, cx: &mut Ctx, _senders: &mut TcpSenders, app: u32, p: usize) -> bool {
        let now = cx.now();
        self.record_page(p, &cx.shared.flow_names);
        let pair = &mut self.pairs[p];
        pair.page += 1;
        if pair.page < self.n_pages {
            cx.sched.at(now + self.think, Event::App { app, token: token(EV_PAGE, p) });
            return false;
        }
        pair.done = true;
        self.pairs_left -= 1;
        self.pairs_left == 0
    }

    fn record_page(&mut self, p: usize, names: &crate::names::Names) {
        push_page(&mut self.rows, &self.pairs[p], &self.conns, names);
    }

    /// The tables, with every page still under way at the end of the run (end NaN).
    pub fn rows(&self, names: &crate::names::Names) -> WebRows {
        let mut out = self.rows.clone();
        for pair in &self.pairs {
            if !pair.done && !pair.objs.is_empty() {
                push_page(&mut out, pair, &self.conns, names);
            }
        }
        out
    }

    /// Pair `p` begins its next page.
    fn start_page(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, app: u32, p: usize) {
        let now = cx.now();
        let k = self.pairs[p].page as usize;
        let (html, images) = match &self.random {
            Some(r) => {
                let n = if r.images_max > r.images_min {
                    r.images_min
                        + ((self.rng.uniform() * (r.images_max - r.images_min + 1) as f64) as u32)
                            .min(r.images_max - r.images_min)
                } else {
                    r.images_min
                };
                let h = draw_size(&r.html, &mut self.rng);
                let imgs: Vec<u64> = (0..n).map(|_| draw_size(&r.image, &mut self.rng)).collect();
                (h, imgs)
            }
            None => self.pages[k % self.pages.len()].clone(),
        };
        let pair = &mut self.pairs[p];
        pair.objs.clear();
        pair.objs.push(Obj { bytes: html, conn: u32::MAX, req: None, done: None });
        pair.objs.extend(images.iter().map(|&b| Obj { bytes: b, conn: u32::MAX, req: None, done: None }));
        pair.page_start = now;
        pair.left = pair.objs.len();
        pair.next_obj = 1;
        pair.conns_opened = 0;
        let first = if self.mode == WebMode::Getall { GETALL } else { 0 };
        if !self.mode.persistent() {
            self.open_fresh(cx, app, p, 0);
            return;
        }
        if let (Some(c), Some(idle)) = (pair.persistent, self.idle_close) {
            let conn = &mut self.conns[c as usize];
            if now.0.saturating_sub(conn.last_active.0) >= idle.0
                && conn.inflight.is_empty()
                && conn.requests.is_empty()
            {
                // The server closed it while idle; the client opens a new one.
                conn.closed = true;
                let s = conn.sender;
                senders.close(cx, s);
                self.pairs[p].persistent = None;
            }
        }
        match self.pairs[p].persistent {
            Some(c) => self.request(cx, app, c as usize, first, false),
            None => {
                let c = self.open_fresh(cx, app, p, first);
                self.pairs[p].persistent = Some(c);
            }
        }
        if self.mode == WebMode::Getall {
            let pair = &mut self.pairs[p];
            pair.next_obj = pair.objs.len();
        }
    }

    /// Open pair `p`'s next fresh connection with a SYN carrying the request for `obj`.
    /// Returns the connection.
    fn open_fresh(&mut self, cx: &mut Ctx, app: u32, p: usize, obj: u32) -> u32 {
        let pair = &mut self.pairs[p];
        let c = pair.conns[pair.next_fresh];
        pair.next_fresh += 1;
        pair.conns_opened += 1;
        self.request(cx, app, c as usize, obj, true);
        c
    }

    /// The client sends a request (or a SYN carrying it) for `obj` on connection `c`.
    fn request(&mut self, cx: &mut Ctx, app: u32, c: usize, obj: u32, syn: bool) {
        let now = cx.now();
        let conn = &mut self.conns[c];
        conn.requests.push_back(Req { obj, syn, ready: None, sent_at: now, attempt: 0 });
        conn.last_active = now;
        let pair = &mut self.pairs[conn.pair as usize];
        let objs: &mut [Obj] =
            if obj == GETALL { &mut pair.objs[..] } else { &mut pair.objs[obj as usize..obj as usize + 1] };
        for o in objs {
            o.req = Some(now);
            o.conn = c as u32;
        }
        self.send_ctl(cx, c, obj, syn);
        cx.sched.at(now + self.rto(0), Event::App { app, token: token(EV_RETRY, c) });
    }

    fn rto(&self, attempt: u32) -> SimTime {
        SimTime::from_secs_f64(self.ctl_rto_s * f64::from(1u32 << attempt.min(16)))
    }

    fn send_ctl(&mut self, cx: &mut Ctx, c: usize, obj: u32, syn: bool) {
        let conn = &self.conns[c];
        let pair = &self.pairs[conn.pair as usize];
        let size = self.hdr + if syn { 0 } else { self.request_bytes };
        let code = if syn { -(obj as i64) - 1 } else { obj as i64 };
        let pkt = Packet::udp(conn.flow, pair.server, pair.server_agent, size, code, cx.now());
        let id = cx.net.pool.alloc(pkt);
        cx.net.send_from(cx.sched, pair.client, id);
    }

    /// Connection `c`'s retransmission check: resend every control packet that has not
    /// reached the server within its timeout.
    fn retry(&mut self, cx: &mut Ctx, app: u32, c: usize) {
        let now = cx.now();
        let mut resend: Vec<(u32, bool)> = Vec::new();
        let mut next: Option<SimTime> = None;
        for k in 0..self.conns[c].requests.len() {
            let r = self.conns[c].requests[k];
            if r.ready.is_some() {
                continue;
            }
            let due = r.sent_at + self.rto(r.attempt);
            if due <= now {
                let t = now + self.rto(r.attempt + 1);
                let r = &mut self.conns[c].requests[k];
                r.attempt += 1;
                r.sent_at = now;
                resend.push((r.obj, r.syn));
                next = Some(next.map_or(t, |x: SimTime| x.min(t)));
            } else {
                next = Some(next.map_or(due, |x: SimTime| x.min(due)));
            }
        }
        for (obj, syn) in resend {
            self.send_ctl(cx, c, obj, syn);
        }
        if let Some(t) = next {
            cx.sched.at(t, Event::App { app, token: token(EV_RETRY, c) });
        }
    }
}

/// Validate `apps[i]` = `wc` (field paths start with `f`), given the flows of each
/// pair's connections (already checked to be TCP flows claimed by this app). Returns
/// the workload and each pair's first-page start.
pub fn build(
    f: &str,
    wc: &WebConfig,
    seed: u64,
    flows: &[FlowInfo],
    conn_flows: &[Vec<u32>],
    n_flows: usize,
) -> Result<(Web, Vec<SimTime>), ConfigError> {
    let mode = WebMode::parse(&wc.mode).ok_or_else(|| {
        let names: Vec<String> = WebMode::NAMES.iter().map(|s| s.to_string()).collect();
        err(
            format!("{f}.mode"),
            &wc.mode,
            format!("unknown retrieval mode (one of {}){}", WebMode::NAMES.join(", "), suggest(&wc.mode, names.iter())),
        )
    })?;
    if wc.pairs.is_empty() {
        return Err(err(format!("{f}.pairs"), "[]", "a web workload needs at least one client–server pair"));
    }
    if let Some(k) = wc.parallel {
        if mode != WebMode::Conc {
            return Err(err(format!("{f}.parallel"), k, "only for mode = \"conc\""));
        }
        if k == 0 {
            return Err(err(format!("{f}.parallel"), 0, "must be at least 1 connection"));
        }
    }
    if wc.n_pages == 0 {
        return Err(err(format!("{f}.n_pages"), 0, "must be at least 1"));
    }
    match (&wc.random_page, wc.pages.is_empty()) {
        (None, true) => return Err(err(format!("{f}.pages"), "[]", "give at least one page (or random_page)")),
        (Some(_), false) => return Err(err(format!("{f}.random_page"), "{..}", "give pages or random_page, not both")),
        _ => {}
    }
    for (k, p) in wc.pages.iter().enumerate() {
        if p.html_bytes == 0 {
            return Err(err(format!("{f}.pages[{k}].html_bytes"), 0, "must be at least 1 byte"));
        }
        if let Some(j) = p.image_bytes.iter().position(|&b| b == 0) {
            return Err(err(format!("{f}.pages[{k}].image_bytes[{j}]"), 0, "must be at least 1 byte"));
        }
    }
    if let Some(r) = &wc.random_page {
        for (name, d) in [("html", &r.html), ("image", &r.image)] {
            check_size_dist(d).map_err(|(k, v, m)| err(format!("{f}.random_page.{name}.{k}"), v, m))?;
        }
        if r.images_max < r.images_min {
            return Err(err(
                format!("{f}.random_page.images_max"),
                r.images_max,
                format!("must be at least images_min ({})", r.images_min),
            ));
        }
    }
    let think = time_s(&format!("{f}.think_s"), wc.think_s)?;
    let server_think = time_s(&format!("{f}.server_think_s"), wc.server_think_s)?;
    time_s(&format!("{f}.start_s"), wc.start_s)?;
    time_s(&format!("{f}.start_jitter_s"), wc.start_jitter_s)?;
    let idle_close = match wc.idle_close_s {
        None => None,
        Some(v) => {
            if !mode.persistent() {
                return Err(err(
                    format!("{f}.idle_close_s"),
                    v,
                    "only for the persistent modes (persistent, getlist, getall)",
                ));
            }
            Some(positive_time_s(&format!("{f}.idle_close_s"), v)?)
        }
    };
    positive_time_s(&format!("{f}.ctl_rto_s"), wc.ctl_rto_s)?;
    // Connections each pair needs at most.
    let objects_of_page = |k: usize| -> usize {
        match &wc.random_page {
            Some(r) => 1 + r.images_max as usize,
            None => 1 + wc.pages[k % wc.pages.len()].image_bytes.len(),
        }
    };
    let needed: usize = if mode.persistent() {
        if idle_close.is_some() {
            wc.n_pages as usize
        } else {
            1
        }
    } else {
        (0..wc.n_pages as usize).map(objects_of_page).sum()
    };
    let first = flows[conn_flows[0][0] as usize];
    let mut pairs = Vec::with_capacity(wc.pairs.len());
    let mut conns = Vec::new();
    let mut conn_of_flow = vec![u32::MAX; n_flows];
    for (k, (pc, fl)) in wc.pairs.iter().zip(conn_flows).enumerate() {
        if fl.len() < needed {
            let why = if mode.persistent() {
                "one per page with idle_close_s, else one".to_string()
            } else {
                format!("one per object of its {} page(s): HTTP/1.0 opens a fresh connection for each", wc.n_pages)
            };
            return Err(err(
                format!("{f}.pairs[{k}].conns"),
                fl.len(),
                format!("needs at least {needed} connections ({why})"),
            ));
        }
        let f0 = flows[fl[0] as usize];
        let mut ids = Vec::with_capacity(fl.len());
        for (j, &fi) in fl.iter().enumerate() {
            let info = flows[fi as usize];
            if (info.src, info.dst) != (f0.src, f0.dst) {
                return Err(err(
                    format!("{f}.pairs[{k}].conns[{j}]"),
                    &pc.conns[j],
                    "every connection of a pair must run between the same server (src) and client (dst)",
                ));
            }
            if (info.packet_size, info.header_size, info.syn) != (first.packet_size, first.header_size, first.syn) {
                return Err(err(
                    format!("{f}.pairs[{k}].conns[{j}]"),
                    &pc.conns[j],
                    "every connection of a web workload needs the same packet_size, header_size and syn",
                ));
            }
            let c = conns.len() as u32;
            conn_of_flow[fi as usize] = c;
            conns.push(WebConn {
                flow: fi,
                sender: info.sender.expect("checked TCP"),
                sink: info.sink.expect("checked TCP"),
                pair: k as u32,
                first_seq: info.syn as i64,
                mss: info.packet_size as u64,
                queued: 0,
                tail_room: 0,
                closed: false,
                inflight: VecDeque::new(),
                requests: VecDeque::new(),
                last_active: SimTime::ZERO,
            });
            ids.push(c);
        }
        pairs.push(Pair {
            name: pc.name.clone(),
            client: f0.dst,
            server: f0.src,
            server_agent: u32::MAX,
            conns: ids,
            next_fresh: 0,
            persistent: None,
            page: 0,
            page_start: SimTime::ZERO,
            objs: Vec::new(),
            next_obj: 1,
            left: 0,
            conns_opened: 0,
            done: false,
        });
    }
    let mut rng = Rng::for_source(seed, &format!("web:{}", wc.pairs[0].name));
    let mut starts = Vec::with_capacity(pairs.len());
    for k in 0..pairs.len() {
        let s = wc.start_s + rng.uniform() * wc.start_jitter_s;
        starts.push(time_s(&format!("{f}.start_s"), s)?);
        let _ = k;
    }
    let n_pairs = pairs.len();
    let w = Web {
        mode,
        parallel: wc.parallel,
        pages: wc.pages.iter().map(|p| (p.html_bytes, p.image_bytes.clone())).collect(),
        random: wc.random_page.clone(),
        n_pages: wc.n_pages,
        think,
        server_think,
        request_bytes: wc.request_bytes,
        hdr: first.header_size,
        idle_close,
        ctl_rto_s: wc.ctl_rto_s,
        pairs,
        conns,
        conn_of_flow,
        rng,
        pairs_left: n_pairs,
        draining: false,
        rows: WebRows::default(),
    };
    Ok((w, starts))
}
