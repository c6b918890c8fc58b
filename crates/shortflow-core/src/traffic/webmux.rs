//! Several object streams on one persistent TCP connection, multiplexed WebMUX-style
//! (thesis §7.1.2.2; Gettys and Nielsen's WebMUX draft, the thesis's ref. \[36\]).
//!
//! The server's multiplexer owns the connection's byte stream. Each object (*stream*)
//! becomes sendable at its `start_s` (its request reached the server). The multiplexer
//! writes the streams' data into the sender's socket buffer (`tcp.sndbuf`, see
//! `TcpConn::sndbuf_room`) in chunks, only as far as the buffer has room, and writes
//! more when an ack frees room (`Notice::Writable`). What it has written is in TCP's
//! ordered byte stream: a stream requested later waits behind everything already in
//! the buffer and in flight, whatever its priority -- the coupling the thesis
//! describes. Without a socket buffer every stream is written whole when requested.
//!
//! **Which stream gets freed room** (`MuxConfig::policy`; neither the thesis nor spec
//! D.2 gives the interleave, this is our reading):
//! - `priority` (default): the requested streams with unwritten data of the highest
//!   priority; equal priorities take turns chunk by chunk (round robin). The thesis's
//!   15.90 s fits strict priority for the urgent object: 32 KB of the long object
//!   drain in 9.1-9.5 s at 28.8 Kb/s, then the 20 KB alone take 5.7-5.9 s (docs/session.md).
//! - `round_robin`: every requested stream with data takes turns, priorities ignored.
//!
//! A turn writes one chunk (`chunk_bytes`, whole segments, default one segment); a
//! chunk cut short by the buffer's room is finished first when room frees (a frame is
//! written whole), so a stream requested meanwhile, however urgent, starts after it.
//! Data is counted in segments as the sender counts it: each stream starts a new
//! segment (no coalescing of two streams' bytes into one segment), and WebMUX's frame
//! headers are not modelled.
//!
//! An object's completion is the arrival at the client of the segment holding its last
//! byte (the sink's `notify_seq` -> `Notice::Delivered`), as for the web workload.
//! Rows of the `objects` table: pair = conn = the flow, page 0, one object per stream
//! in configuration order, `request_s` = its `start_s`.

use std::collections::VecDeque;

use crate::config::MuxConfig;
use crate::engine::Event;
use crate::error::{err, suggest, time_s, ConfigError};
use crate::tcp::control::TcpSenders;
use crate::tcp::sink::TcpSink;
use crate::time::SimTime;
use crate::traffic::build::FlowInfo;
use crate::world::Ctx;

/// How freed room is shared among the streams (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MuxPolicy {
    Priority,
    RoundRobin,
}

impl MuxPolicy {
    pub const NAMES: [&'static str; 2] = ["priority", "round_robin"];

    pub fn parse(s: &str) -> Option<MuxPolicy> {
        match s {
            "priority" => Some(MuxPolicy::Priority),
            "round_robin" => Some(MuxPolicy::RoundRobin),
            _ => None,
        }
    }
}

/// One object.
#[derive(Clone, Copy, Debug)]
struct Stream {
    bytes: u64,
    pkts: i64,
    priority: u32,
    start: SimTime,
    requested: bool,
    /// Segments written into the connection so far.
    written: i64,
    done: Option<SimTime>,
}

/// A multiplexer on one connection.
pub struct Mux {
    pub flow: u32,
    sender: u32,
    sink: u32,
    /// Sequence number of the first data segment (1 with a modelled SYN).
    first_seq: i64,
    chunk: i64,
    policy: MuxPolicy,
    streams: Vec<Stream>,
    /// Data segments written (all streams).
    queued: i64,
    /// The stream whose chunk is being written and the segments of it still to write.
    cur: Option<(usize, i64)>,
    /// Where the next round-robin search starts.
    rr: usize,
    /// Fully written streams not yet delivered, in sequence order: (stream, last seq).
    ends: VecDeque<(usize, i64)>,
    left: usize,
    /// The byte stream's layout: runs of consecutive segments of one stream
    /// (stream, first seq, last seq), in order.
    runs: Vec<(u32, i64, i64)>,
}

impl Mux {
    /// Object `tok` (a stream index) has been requested: write what the buffer takes.
    pub fn event(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink], tok: u32) {
        if let Some(s) = self.streams.get_mut(tok as usize) {
            s.requested = true;
        }
        self.write(cx, senders, sinks);
    }

    /// The next stream to write a segment of, if any has data.
    fn pick(&mut self) -> Option<usize> {
        if let Some((k, n)) = self.cur {
            if n > 0 && self.streams[k].written < self.streams[k].pkts {
                return Some(k);
            }
            self.cur = None;
        }
        let has_data = |s: &Stream| s.requested && s.written < s.pkts;
        let top = match self.policy {
            MuxPolicy::Priority => self.streams.iter().filter(|s| has_data(s)).map(|s| s.priority).max()?,
            MuxPolicy::RoundRobin => 0,
        };
        let n = self.streams.len();
        let k = (0..n).map(|i| (self.rr + i) % n).find(|&k| {
            let s = &self.streams[k];
            has_data(s) && (self.policy == MuxPolicy::RoundRobin || s.priority == top)
        })?;
        self.cur = Some((k, self.chunk));
        self.rr = (k + 1) % n;
        Some(k)
    }

    /// Fill the socket buffer's free room with the streams' chunks and hand them to
    /// the sender; watch the buffer while a requested stream still has data.
    pub fn write(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, sinks: &mut [TcpSink]) {
        let s = &senders.conns[self.sender as usize];
        if s.torn_down {
            return;
        }
        let mut room = s.sndbuf_room().unwrap_or(i64::MAX);
        let mut total = 0i64;
        while room > 0 {
            let Some(k) = self.pick() else { break };
            let (_, chunk_left) = self.cur.expect("pick sets the chunk");
            let st = &mut self.streams[k];
            let n = chunk_left.min(st.pkts - st.written).min(room);
            st.written += n;
            room -= n;
            total += n;
            self.cur = Some((k, chunk_left - n));
            let from = self.first_seq + self.queued;
            self.queued += n;
            let to = from + n - 1;
            match self.runs.last_mut() {
                Some(r) if r.0 == k as u32 && r.2 + 1 == from => r.2 = to,
                _ => self.runs.push((k as u32, from, to)),
            }
            if st.written == st.pkts {
                if self.ends.is_empty() {
                    sinks[self.sink as usize].notify_seq = to;
                }
                self.ends.push_back((k, to));
                self.cur = None;
            }
        }
        let more = self.streams.iter().any(|s| s.requested && s.written < s.pkts);
        senders.conns[self.sender as usize].watch_sndbuf(more);
        if total > 0 {
            senders.sendmsg_pkts(cx, self.sender, total);
        }
    }

    /// The client holds every segment up to `seq`: the objects whose last segment that
    /// covers are complete. Returns true when the last object has just arrived.
    pub fn delivered(&mut self, cx: &mut Ctx, sinks: &mut [TcpSink], seq: i64) -> bool {
        let now = cx.now();
        let before = self.left;
        while let Some(&(k, end)) = self.ends.front() {
            if end > seq {
                sinks[self.sink as usize].notify_seq = end;
                break;
            }
            self.ends.pop_front();
            self.streams[k].done = Some(now);
            self.left -= 1;
        }
        before > 0 && self.left == 0
    }

    /// The byte stream's layout so far: runs of one stream's consecutive segments
    /// (stream index, first sequence number, last sequence number).
    pub fn runs(&self) -> &[(u32, i64, i64)] {
        &self.runs
    }

    /// Rows of the `objects` table.
    pub fn rows(&self, names: &crate::names::Names, out: &mut crate::results::ObjectTable) {
        let name = &names[self.flow as usize];
        for (k, s) in self.streams.iter().enumerate() {
            let req = s.start.as_secs_f64();
            let end = s.done.map_or(f64::NAN, |t| t.as_secs_f64());
            out.pair.push(name.to_string());
            out.page.push(0);
            out.object.push(k as u32);
            out.bytes.push(s.bytes);
            out.conn.push(name.to_string());
            out.request_s.push(req);
            out.end_s.push(end);
            out.time_s.push(end - req);
        }
    }

    /// Schedule every stream's request (token = stream index).
    pub fn schedule(&self, app: u32, sched: &mut crate::engine::Scheduler) {
        for (k, s) in self.streams.iter().enumerate() {
            sched.at(s.start, Event::App { app, token: k as u32 });
        }
    }
}

/// Validate `apps[i]` = `mc` (field paths start with `f`) on the TCP flow `info` (its
/// index `fi`).
pub fn build(f: &str, mc: &MuxConfig, fi: u32, info: &FlowInfo) -> Result<Mux, ConfigError> {
    let policy = MuxPolicy::parse(&mc.policy).ok_or_else(|| {
        let names: Vec<String> = MuxPolicy::NAMES.iter().map(|s| s.to_string()).collect();
        err(
            format!("{f}.policy"),
            &mc.policy,
            format!(
                "unknown multiplexing policy (one of {}){}",
                MuxPolicy::NAMES.join(", "),
                suggest(&mc.policy, names.iter())
            ),
        )
    })?;
    if mc.streams.is_empty() {
        return Err(err(format!("{f}.streams"), "[]", "a multiplexer needs at least one stream (object)"));
    }
    let mss = info.packet_size as u64;
    let chunk = match mc.chunk_bytes {
        None => 1,
        Some(0) => return Err(err(format!("{f}.chunk_bytes"), 0, "must be at least 1 byte")),
        Some(b) => b.div_ceil(mss).min(i64::MAX as u64) as i64,
    };
    let mut streams = Vec::with_capacity(mc.streams.len());
    for (k, s) in mc.streams.iter().enumerate() {
        if s.bytes == 0 {
            return Err(err(format!("{f}.streams[{k}].bytes"), 0, "must be at least 1 byte"));
        }
        let start = time_s(&format!("{f}.streams[{k}].start_s"), s.start_s)?;
        streams.push(Stream {
            bytes: s.bytes,
            pkts: s.bytes.div_ceil(mss) as i64,
            priority: s.priority,
            start,
            requested: false,
            written: 0,
            done: None,
        });
    }
    let n = streams.len();
    Ok(Mux {
        flow: fi,
        sender: info.sender.expect("checked TCP"),
        sink: info.sink.expect("checked TCP"),
        first_seq: info.syn as i64,
        chunk,
        policy,
        streams,
        queued: 0,
        cur: None,
        rr: 0,
        ends: VecDeque::with_capacity(n),
        left: n,
        runs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use crate::config::SimConfig;
    use crate::sim::Simulation;
    use crate::traffic::App;

    /// Stream 0 (30 segments) from 0 s, stream 1 (5 segments, priority 1) from 0.1 s,
    /// on one connection with a 4-segment socket buffer over 1 Mb/s; returns the byte
    /// stream's runs and the objects' times.
    fn run(policy: &str, chunk: Option<u64>, sndbuf: Option<u64>) -> (Vec<(u32, i64, i64)>, Vec<f64>) {
        let chunk = chunk.map(|c| format!(r#", "chunk_bytes": {c}"#)).unwrap_or_default();
        let sndbuf = sndbuf.map(|b| format!(r#", "sndbuf": {b}"#)).unwrap_or_default();
        let text = format!(
            r#"{{"seed": 1, "duration_s": 60.0, "stop_when_done": true, "nodes": ["s", "r", "d"],
                "links": [{{"src": "s", "dst": "r", "rate_bps": 1e8, "delay_s": 0.001}},
                          {{"src": "r", "dst": "d", "rate_bps": 1e6, "delay_s": 0.01, "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}}],
                "flows": [{{"name": "m", "src": "s", "dst": "d", "tcp": {{"syn": false, "window": 20{sndbuf}}}}}],
                "apps": [{{"kind": "mux", "flow": "m", "policy": "{policy}"{chunk},
                           "streams": [{{"start_s": 0.0, "bytes": 30000}}, {{"start_s": 0.1, "bytes": 5000, "priority": 1}}]}}]}}"#
        );
        let cfg: SimConfig = serde_json::from_str(&text).unwrap();
        let mut sim = Simulation::new(cfg).unwrap();
        sim.run_to_end();
        let App::Mux(m) = &sim.apps().list[0] else { panic!("a mux app") };
        let runs = m.runs().to_vec();
        let res = sim.results();
        (runs, res.objects.time_s.clone())
    }

    /// Every segment 0..35 once, in order, and each stream's total.
    fn check_layout(runs: &[(u32, i64, i64)]) {
        let mut next = 0;
        let mut per = [0i64; 2];
        for &(k, a, b) in runs {
            assert_eq!(a, next, "{runs:?}");
            assert!(b >= a);
            per[k as usize] += b - a + 1;
            next = b + 1;
        }
        assert_eq!(per, [30, 5], "{runs:?}");
    }

    #[test]
    fn priority_writes_the_urgent_stream_whole_behind_the_buffer() {
        let (runs, times) = run("priority", None, Some(4000));
        check_layout(&runs);
        // The long stream's data already in the buffer goes first; then the urgent one
        // entire, then the rest of the long one.
        assert_eq!(runs.len(), 3, "{runs:?}");
        let (k0, _, x) = runs[0];
        assert_eq!((k0, runs[1], runs[2].0), (0, (1, x + 1, x + 5), 0), "{runs:?}");
        assert!(x >= 3, "at least the buffer's 4 segments were written before the request: {runs:?}");
        assert!(times.iter().all(|t| t.is_finite()), "{times:?}");
    }

    #[test]
    fn round_robin_alternates_segment_by_segment() {
        let (runs, times) = run("round_robin", None, Some(4000));
        check_layout(&runs);
        // After the long stream's first run: B, A, B, A, ... one segment each until B
        // is written, then A's rest.
        let tail = &runs[1..];
        assert_eq!(tail.len(), 10, "{runs:?}");
        for (i, &(k, a, b)) in tail.iter().enumerate() {
            assert_eq!(k, if i % 2 == 0 { 1 } else { 0 }, "{runs:?}");
            if i < 9 {
                assert_eq!(a, b, "one segment per turn: {runs:?}");
            }
        }
        let (_, prio) = run("priority", None, Some(4000));
        assert!(times[1] > prio[1], "round robin delays the urgent object: {} vs {}", times[1], prio[1]);
    }

    #[test]
    fn round_robin_turns_write_whole_chunks() {
        let (runs, _) = run("round_robin", Some(2000), Some(4000));
        check_layout(&runs);
        let b: Vec<i64> = runs.iter().filter(|r| r.0 == 1).map(|r| r.2 - r.1 + 1).collect();
        assert_eq!(b, vec![2, 2, 1], "{runs:?}");
        for w in runs[1..].windows(2) {
            assert_ne!(w[0].0, w[1].0, "turns alternate: {runs:?}");
        }
    }

    #[test]
    fn without_a_socket_buffer_the_urgent_stream_waits_behind_everything() {
        let (runs, _) = run("priority", None, None);
        assert_eq!(runs, vec![(0, 0, 29), (1, 30, 34)]);
    }
}
