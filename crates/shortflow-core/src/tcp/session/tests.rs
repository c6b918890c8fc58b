//! Session tests on the sender rig (`tcp::rig`): feed acks, assert what is sent
//! (spec thesis-http-session E.2), and whole simulations through a bottleneck.

use crate::config::{SessionScheduler, SimConfig};
use crate::tcp::rig::{ms, tcp, Rig, Sent};

/// NewReno, no SYN, IW 1 (the thesis's), window 32, no limited transmit; `extra`
/// (JSON members after a comma) overrides.
fn cfg(extra: &str) -> crate::config::TcpConfig {
    let mut v: serde_json::Value = serde_json::from_str(
        r#"{"variant": "newreno", "syn": false, "delay_growth": false, "singledup": 0, "window_init": 1, "window": 32}"#,
    )
    .unwrap();
    let over: serde_json::Value = serde_json::from_str(&format!("{{\"_\": 0{extra}}}")).unwrap();
    for (k, x) in over.as_object().unwrap() {
        if k != "_" {
            v[k] = x.clone();
        }
    }
    tcp(&v.to_string())
}

fn session(n: u32, extra: &str) -> Rig {
    Rig::session(&cfg(extra), n, SessionScheduler::Rr, true, &[])
}

fn stats(r: &Rig) -> super::SessionStats {
    r.block(0).session().unwrap().stats
}

/// Segments in flight per connection: sent and not acked (the rig's own count, not
/// the session's).
struct Net {
    inflight: Vec<Sent>,
    sent: Vec<u64>,
}

impl Net {
    fn new(n: usize) -> Net {
        Net { inflight: Vec::new(), sent: vec![0; n] }
    }
    fn take(&mut self, r: &mut Rig) -> Vec<Sent> {
        let out = r.sent();
        for s in &out {
            self.sent[s.conn as usize] += 1;
        }
        self.inflight.extend(out.iter().copied());
        out
    }
    /// Deliver everything in flight at `t` ms, in send order, each acked at once
    /// (no loss); checks after every ack that the segments in flight stay within the
    /// session's window. Returns how many were acked.
    fn round(&mut self, r: &mut Rig, t: u64) -> usize {
        let batch = std::mem::take(&mut self.inflight);
        let n = batch.len();
        for s in batch {
            r.ack(ms(t), s.conn, s.seq);
            self.take(r);
            let win = r.block(0).tcb.window();
            assert!(self.inflight.len() as i64 <= win, "at {t} ms: {} in flight > window {win}", self.inflight.len());
        }
        n
    }
}

// ---- integrated congestion control (spec C.3, E.2 2) ---------------------------

#[test]
fn n_connections_never_exceed_one_window() {
    let mut r = session(4, "");
    for k in 0..4 {
        r.transfer(ms(0), k, 40);
    }
    let mut net = Net::new(4);
    assert_eq!(net.take(&mut r).len(), 1, "4 connections opened at once: a first flight of 1 segment in total");
    let mut t = 100;
    let mut flights = vec![];
    while !net.inflight.is_empty() {
        flights.push(net.inflight.len());
        net.round(&mut r, t);
        t += 100;
    }
    assert_eq!(net.sent, vec![40, 40, 40, 40], "every transfer completed");
    // One slow start for the session: 1, 2, 4, 8, 16, then the 32-segment window.
    assert_eq!(&flights[..6], &[1, 2, 4, 8, 16, 32], "{flights:?}");
    assert!(flights.iter().all(|&f| f <= 32));
}

#[test]
fn round_robin_shares_the_window_equally() {
    let mut r = session(4, "");
    r.transfers_together(ms(0), &[(0, 1000), (1, 1000), (2, 1000), (3, 1000)]);
    let mut net = Net::new(4);
    net.take(&mut r);
    for round in 0..30 {
        net.round(&mut r, 100 * (round + 1));
        let (lo, hi) = (net.sent.iter().min().unwrap(), net.sent.iter().max().unwrap());
        assert!(hi - lo <= 1, "round {round}: sends per connection {:?}", net.sent);
    }
}

#[test]
fn weighted_scheduler_gives_3_2_1() {
    let mut r = Rig::session(&cfg(r#", "window": 60"#), 3, SessionScheduler::Weighted, true, &[3, 2, 1]);
    for k in 0..3 {
        r.transfer(ms(0), k, 100_000);
    }
    let mut net = Net::new(3);
    net.take(&mut r);
    for round in 0..40 {
        net.round(&mut r, 100 * (round + 1));
    }
    let total: u64 = net.sent.iter().sum();
    assert!(total > 1500, "{total}");
    for (k, w) in [3u64, 2, 1].iter().enumerate() {
        let share = net.sent[k] as f64 / total as f64;
        assert!((share - *w as f64 / 6.0).abs() < 0.005, "connection {k}: share {share} of {:?}", net.sent);
    }
}

#[test]
fn setwt_takes_effect_at_the_next_decision() {
    let mut r = Rig::session(&cfg(r#", "window": 40"#), 2, SessionScheduler::Weighted, true, &[]);
    r.transfer(ms(0), 0, 100_000);
    r.transfer(ms(0), 1, 100_000);
    let mut net = Net::new(2);
    net.take(&mut r);
    for round in 0..10 {
        net.round(&mut r, 100 * (round + 1));
    }
    assert!(net.sent[0].abs_diff(net.sent[1]) <= 1, "equal weights: {:?}", net.sent);
    r.senders.set_weight(1, 10);
    let before = net.sent.clone();
    for round in 10..20 {
        net.round(&mut r, 100 * (round + 1));
    }
    let d: Vec<u64> = (0..2).map(|k| net.sent[k] - before[k]).collect();
    assert!(d[1] >= 9 * d[0] && d[1] <= 11 * d[0], "weight 10 against 1: {d:?}");
    r.senders.reset_weights(0);
    let before = net.sent.clone();
    for round in 20..30 {
        net.round(&mut r, 100 * (round + 1));
    }
    assert!((net.sent[0] - before[0]).abs_diff(net.sent[1] - before[1]) <= 1, "resetwt: equal again");
}

#[test]
fn congestion_avoidance_grows_one_segment_per_rtt_whatever_the_number_of_members() {
    for n in [1u32, 4] {
        // ssthresh 4: congestion avoidance from a window of 4.
        let mut r = session(n, r#", "ssthresh": 4, "window_init": 4, "window": 100"#);
        for k in 0..n {
            r.transfer(ms(0), k, 100_000);
        }
        let mut net = Net::new(n as usize);
        net.take(&mut r);
        let mut t = 100;
        for _ in 0..4 {
            net.round(&mut r, t); // still reaching ssthresh
            t += 100;
        }
        let w0 = r.cwnd(0);
        for _ in 0..10 {
            net.round(&mut r, t);
            t += 100;
        }
        let per_rtt = (r.cwnd(0) - w0) / 10.0;
        assert!((per_rtt - 1.0).abs() < 0.1, "{n} members: {per_rtt} segments per RTT");
    }
}

#[test]
fn members_joining_or_leaving_leave_the_window_unchanged() {
    let mut r = session(3, "");
    r.transfer(ms(0), 0, 1000);
    let mut net = Net::new(3);
    net.take(&mut r);
    for round in 0..4 {
        net.round(&mut r, 100 * (round + 1));
    }
    let w = r.cwnd(0);
    r.transfer(ms(450), 1, 100);
    assert_eq!(r.cwnd(0), w, "a member starting to send");
    net.take(&mut r);
    r.close(ms(460), 0);
    assert_eq!(r.cwnd(0), w, "a member closing");
    assert!(r.block(0).session().unwrap().seglst.iter().all(|s| s.slot != 0), "its records left the session");
}

// ---- integrated loss recovery (spec C.6, E.2 3-5) ----------------------------

/// Session of `n` with window `w` (no growth: window caps) and every member's first
/// `per` segments sent; returns the rig and the segments in send order.
fn loaded(n: u32, w: u32, per: i64, later_acks: bool) -> (Rig, Vec<Sent>) {
    let mut r = Rig::session(
        &cfg(&format!(r#", "window_init": {w}, "window": {w}"#)),
        n,
        SessionScheduler::Rr,
        later_acks,
        &[],
    );
    let all: Vec<(u32, i64)> = (0..n).map(|k| (k, per)).collect();
    r.transfers_together(ms(0), &all);
    let sent = r.sent();
    assert_eq!(sent.len() as u32, w.min(n * per as u32));
    (r, sent)
}

#[test]
fn three_dupacks_fire_rule_1_and_halve_the_session_once() {
    // Send order (RR): c0:0 c1:0 c0:1 c1:1 c0:2 c1:2 c0:3 c1:3. c0's 0 is lost.
    let (mut r, _) = loaded(2, 8, 4, false);
    for _ in 1..=3 {
        r.ack(ms(100), 0, -1); // c0's 1, 2, 3 arrive: duplicate acks
                               // c1's acks are later acks, which session-noilr ignores.
    }
    let out = r.sent();
    assert_eq!(out.iter().map(|s| (s.conn, s.seq)).collect::<Vec<_>>(), vec![(0, 0)], "fast retransmit of c0's 0");
    assert_eq!(stats(&r).rule, [1, 0, 0]);
    assert_eq!(r.cwnd(0), 4.0, "one halving of the whole session");
    assert_eq!(r.ssthresh(0), 4);
}

#[test]
fn session_noilr_waits_for_three_dupacks() {
    let (mut r, _) = loaded(2, 8, 4, false);
    r.ack(ms(100), 0, -1); // one duplicate ack for c0's 0
    for s in 0..=3 {
        r.ack(ms(100), 1, s); // every c1 segment acked: later acks, ignored
    }
    assert!(r.sent().iter().all(|s| s.conn != 0 || s.seq != 0), "no retransmission without later acks");
    assert_eq!(stats(&r).rule, [0, 0, 0]);
}

#[test]
fn one_dupack_and_two_later_acks_fire_rule_2() {
    let (mut r, _) = loaded(2, 8, 4, true);
    r.ack(ms(100), 0, -1); // c0's 1 arrived: one duplicate ack for c0's 0
    r.ack(ms(100), 1, 0); // c1's 0 (sent after c0's 0): a later ack
    assert!(r.sent().iter().all(|s| s.conn != 0), "2 of 3");
    r.ack(ms(100), 1, 1);
    let out = r.sent();
    assert_eq!(out[0], Sent { t_us: 100_000, conn: 0, seq: 0, low_prio: false }, "{out:?}");
    assert_eq!(stats(&r).rule, [0, 1, 0]);
    assert_eq!(r.conn(0).nfastrexmit, 1);
}

#[test]
fn three_later_acks_on_a_lone_segment_are_not_enough() {
    // c0 has one segment (maybe its ack is only delayed); c1's three are acked.
    let mut r = Rig::session(&cfg(r#", "window_init": 4"#), 2, SessionScheduler::Rr, true, &[]);
    r.transfers_together(ms(0), &[(0, 1), (1, 3)]);
    assert_eq!(r.sent().len(), 4);
    for s in 0..3 {
        r.ack(ms(100), 1, s);
    }
    assert!(r.sent().iter().all(|s| s.conn != 0), "no retransmission");
    assert_eq!(stats(&r).rule, [0, 0, 0]);
}

#[test]
fn three_later_acks_on_two_segments_fire_rule_3_on_the_older() {
    // Both of c0's segments lost (or held by a delayed-ack receiver): c1's acks are
    // later acks for both.
    let mut r = Rig::session(&cfg(r#", "window_init": 8, "window": 8"#), 2, SessionScheduler::Rr, true, &[]);
    r.transfers_together(ms(0), &[(0, 2), (1, 6)]);
    // Send order: c0:0 c1:0 c0:1 c1:1 c1:2 c1:3 c1:4 c1:5.
    let order: Vec<(u32, i64)> = r.sent().iter().map(|s| (s.conn, s.seq)).collect();
    assert_eq!(&order[..4], &[(0, 0), (1, 0), (0, 1), (1, 1)]);
    r.ack(ms(100), 1, 0); // later for c0:0 only
    r.ack(ms(100), 1, 1); // later for both
    r.ack(ms(100), 1, 2);
    assert!(r.sent().iter().all(|s| s.conn != 0), "c0:1 has only 2");
    r.ack(ms(100), 1, 3); // c0:0 has 4, c0:1 has 3: rule 3
    let out: Vec<(u32, i64)> = r.sent().iter().map(|s| (s.conn, s.seq)).filter(|s| s.0 == 0).collect();
    assert_eq!(out, vec![(0, 0)], "the older segment is retransmitted");
    assert_eq!(stats(&r).rule, [0, 0, 1]);
}

#[test]
fn fig_b1_one_window_cut_per_loss_window() {
    // Three members, window 12: each member's first segment is lost. All three losses
    // are in one loss window: one cut. A segment sent after the cut is then lost: a
    // second cut.
    let (mut r, sent) = loaded(3, 12, 20, false);
    assert_eq!(sent.len(), 12);
    for k in 0..3 {
        for _ in 0..3 {
            r.ack(ms(100), k, -1);
        }
    }
    let rx: Vec<(u32, i64)> = r.sent().iter().map(|s| (s.conn, s.seq)).filter(|s| s.1 == 0).collect();
    assert_eq!(rx, vec![(0, 0), (1, 0), (2, 0)], "three fast retransmissions");
    assert_eq!(stats(&r).cuts, 1, "losses #1 and #2 (and #3 here) in one loss window: one cut");
    assert_eq!(r.cwnd(0), 6.0);
    let lw = r.block(0).session().unwrap().losswin[0].unwrap();
    // Everything is repaired and acked; new data flows.
    for k in 0..3 {
        r.ack(ms(200), k, 3);
    }
    assert!(!r.sent().is_empty());
    assert_eq!(r.block(0).session().unwrap().losswin[0], Some(lw), "no further cut, no loss-window update");
    // c0's segment 4 was sent after the cut (fast-recovery credit let it out): lose it.
    let s4 = r.block(0).session().unwrap().seglst.iter().find(|x| x.slot == 0 && x.seq == 4).copied().unwrap();
    assert!(s4.serial > lw, "sent beyond the loss window");
    let w = r.cwnd(0);
    for _ in 0..3 {
        r.ack(ms(300), 0, 3);
    }
    assert!(r.sent().iter().any(|s| s.conn == 0 && s.seq == 4));
    assert_eq!(stats(&r).cuts, 2, "a loss beyond the loss window cuts again");
    assert!(r.cwnd(0) < w);
}

#[test]
fn partial_ack_retransmits_the_next_hole_without_a_second_cut() {
    let (mut r, _) = loaded(1, 8, 8, true);
    // Segments 0 and 2 lost: 1, 3..7 arrive -> dupacks for 0.
    for _ in 0..3 {
        r.ack(ms(100), 0, -1);
    }
    assert_eq!(r.sent_seqs()[0], 0);
    r.ack(ms(200), 0, 1); // partial ack: 2 is the next hole
    assert_eq!(r.sent_seqs()[0], 2);
    assert_eq!(stats(&r).partial, 1);
    assert_eq!(stats(&r).cuts, 1);
    r.ack(ms(300), 0, 7); // recovered
    assert!(r.block(0).session().unwrap().members[0].recover.is_none());
}

#[test]
fn the_session_timer_fires_only_when_every_ack_stream_stops() {
    // c0's first segment is lost with no duplicate acks; c1 keeps being acked, which
    // keeps the one session timer from firing.
    let mut r = Rig::session(&cfg(r#", "window_init": 2, "window": 2"#), 2, SessionScheduler::Rr, false, &[]);
    r.transfers_together(ms(0), &[(0, 1), (1, 400)]);
    assert_eq!(r.sent().iter().map(|s| s.conn).collect::<Vec<_>>(), vec![0, 1]);
    let mut t = 100;
    let mut next = 0;
    // The RTO before any sample is 3 s; ack c1 every 500 ms for 6 s.
    while t < 6000 {
        r.ack(ms(t), 1, next);
        next += 1;
        r.sent();
        t += 500;
    }
    assert_eq!(stats(&r).timeouts, 0, "the session's ack stream never stopped");
    assert_eq!(r.conn(0).ctr.timeouts, 0);
    // Now silence: one timeout, 3 s (the RTO: the timed segment was the lost one, so
    // there is no sample) after the last ack at 5.6 s, and everything restarts from
    // one segment.
    let halved = (r.block(0).tcb.window() / 2).max(2) as i32;
    r.run_to(ms(8_599));
    assert_eq!(stats(&r).timeouts, 0);
    r.run_to(ms(8_600));
    assert_eq!(stats(&r).timeouts, 1);
    let s = r.block(0).session().unwrap();
    let (n, at) = (s.seglst.len(), s.seglst[0].sent_at);
    assert_eq!(r.cwnd(0), 1.0);
    assert_eq!(r.ssthresh(0), halved);
    assert_eq!(n, 1, "all records deleted, then one segment under cwnd 1");
    let out = r.sent();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        (out[0].t_us, out[0].conn, out[0].seq),
        (8_600_000, 0, 0),
        "go-back-N: c0's lost segment first (round robin)"
    );
    assert_eq!(out[0].t_us, at.as_nanos() / 1000);
    assert_eq!(r.conn(0).ctr.timeouts, 1, "one timeout, counted on the connection of the oldest segment");
}

// ---- proxy sub-sessions (spec D.3) ---------------------------------------------

#[test]
fn proxy_sub_sessions_grow_per_sub_session_and_cut_one_share() {
    let mut r =
        Rig::session(&cfg(r#", "window_init": 20, "window": 1000, "ssthresh": 2"#), 3, SessionScheduler::Rr, true, &[]);
    for k in 0..3 {
        r.senders.set_subsession(k, k as u16, 3);
    }
    r.transfers_together(ms(0), &[(0, 100_000), (1, 100_000), (2, 100_000)]);
    let mut net = Net::new(3);
    net.take(&mut r);
    let w0 = r.cwnd(0);
    for k in 1..=4 {
        net.round(&mut r, 100 * k);
    }
    let grow = (r.cwnd(0) - w0) / 4.0;
    assert!((grow - 3.0).abs() < 0.3, "three sub-sessions: +3 per RTT, got {grow}");
    // A loss in one sub-session: the window loses half of that sub-session's share.
    let w = r.cwnd(0);
    let first0 = net.inflight.iter().find(|s| s.conn == 0).unwrap().seq;
    for _ in 0..3 {
        r.ack(ms(200), 0, first0 - 1);
    }
    let cut = w - r.cwnd(0);
    assert!(cut > 0.0 && cut < w / 4.0, "cut {cut} of {w}: about a sixth");
}

// ---- whole simulations ------------------------------------------------------

/// 4 connections from `s` to `d` over a 10 Mb/s, 2 x 50 ms path, each limited to a
/// 10-packet window: as one session or as 4 independent connections.
fn four_connections(session: Option<&str>) -> crate::results::RunResults {
    let flows: Vec<String> = (0..4)
        .map(|i| {
            let s = session.map(|x| format!(r#", "session": {x}"#)).unwrap_or_default();
            format!(r#"{{"name": "c{i}", "src": "s", "dst": "d", "tcp": {{"window": 10, "window_init": 1}}{s}}}"#)
        })
        .collect();
    let apps: Vec<String> = (0..4).map(|i| format!(r#"{{"kind": "ftp", "flow": "c{i}"}}"#)).collect();
    let text = format!(
        r#"{{"seed": 3, "duration_s": 20.0, "nodes": ["s", "r1", "r2", "d"],
            "links": [{{"src": "s", "dst": "r1", "rate_bps": 1e8, "delay_s": 0.001}},
                      {{"src": "r1", "dst": "r2", "rate_bps": 1e7, "delay_s": 0.048, "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}},
                      {{"src": "r2", "dst": "d", "rate_bps": 1e8, "delay_s": 0.001}}],
            "flows": [{}], "apps": [{}]}}"#,
        flows.join(","),
        apps.join(",")
    );
    let cfg: SimConfig = serde_json::from_str(&text).unwrap();
    crate::run(&cfg).unwrap()
}

#[test]
fn four_connections_in_a_session_take_one_window_four_independent_take_four() {
    // RTT ~0.1 s; a 10-packet window of 1040 B is ~0.83 Mb/s, far below 10 Mb/s.
    let total = |r: &crate::results::RunResults| r.flows.bytes_acked.iter().sum::<u64>() as f64 * 8.0 / 20.0;
    let sess = four_connections(Some("{}"));
    let indep = four_connections(None);
    let (ts, ti) = (total(&sess), total(&indep));
    eprintln!("session {ts:.0} b/s, independent {ti:.0} b/s");
    let one_window = 10.0 * 1000.0 * 8.0 / 0.1;
    assert!(ts > 0.8 * one_window && ts < 1.05 * one_window, "session: {ts} b/s, one window is {one_window}");
    assert!(ti > 3.2 * one_window && ti < 4.2 * one_window, "independent: {ti} b/s");
    // Round robin: the members share the session's window equally.
    let b = &sess.flows.bytes_acked;
    let (lo, hi) = (*b.iter().min().unwrap() as f64, *b.iter().max().unwrap() as f64);
    assert!(hi / lo < 1.01, "{b:?}");
}

#[test]
fn a_lost_syn_is_resent_by_its_own_timer_while_the_session_runs() {
    // SYN exchange modelled: the SYN leaves at once, outside the window; data follows
    // its ack. c1's SYN is lost while c0's ack stream keeps the session timer from
    // firing: connection set-up is recovered per connection.
    let mut r = Rig::session(&cfg(r#", "syn": true, "delay_growth": true"#), 2, SessionScheduler::Rr, true, &[]);
    r.transfer(ms(0), 0, 5000);
    assert_eq!(r.sent_seqs(), vec![0], "c0's SYN");
    r.ack(ms(100), 0, 0);
    assert_eq!(r.cwnd(0), 1.0, "the SYN's ack sets the initial window, and grows nothing");
    let mut inflight: Vec<Sent> = r.sent();
    assert_eq!(inflight.len(), 1);
    r.transfer(ms(150), 1, 10);
    let syn = r.sent();
    assert_eq!((syn[0].conn, syn[0].seq, syn[0].t_us), (1, 0, 150_000), "c1's SYN leaves at once");
    let mut t = 200;
    let mut resent = None;
    while t < 4000 {
        for s in std::mem::take(&mut inflight) {
            r.ack(ms(t), s.conn, s.seq);
        }
        for s in r.sent() {
            if s.conn == 1 {
                assert_eq!(s.seq, 0, "no data on c1 before its SYN is acked");
                resent.get_or_insert(s.t_us);
            } else {
                inflight.push(s);
            }
        }
        t += 100;
    }
    assert_eq!(resent, Some(3_150_000), "resent after the initial RTO of 3 s");
    assert_eq!(stats(&r).timeouts, 0, "not a session timeout");
}

/// 2 connections of one session over the `four_connections` path, c0's receiving
/// application reading 80 kb/s from an 8 KB buffer (`sink.reader`), or neither throttled.
fn two_with_slow_reader(throttle: bool) -> crate::results::RunResults {
    let sink = if throttle { r#", "sink": {"reader": {"buffer_bytes": 8000, "rate_bps": 80000}}"# } else { "" };
    let text = format!(
        r#"{{"seed": 3, "duration_s": 20.0, "nodes": ["s", "r1", "r2", "d"],
            "links": [{{"src": "s", "dst": "r1", "rate_bps": 1e8, "delay_s": 0.001}},
                      {{"src": "r1", "dst": "r2", "rate_bps": 1e7, "delay_s": 0.048, "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}},
                      {{"src": "r2", "dst": "d", "rate_bps": 1e8, "delay_s": 0.001}}],
            "flows": [{{"name": "c0", "src": "s", "dst": "d", "tcp": {{"window": 10, "window_init": 1, "packet_size": 1000}}, "session": {{}}{sink}}},
                      {{"name": "c1", "src": "s", "dst": "d", "tcp": {{"window": 10, "window_init": 1, "packet_size": 1000}}, "session": {{}}}}],
            "apps": [{{"kind": "ftp", "flow": "c0"}}, {{"kind": "ftp", "flow": "c1"}}]}}"#
    );
    let cfg: SimConfig = serde_json::from_str(&text).unwrap();
    crate::run(&cfg).unwrap()
}

#[test]
fn a_member_throttled_by_its_receiver_leaves_its_share_to_the_others() {
    // One session window of 10 segments per ~0.1 s RTT (~0.8 Mb/s). Unthrottled, round
    // robin splits it equally; with c0's receiver reading 80 kb/s, c0 gets its read
    // rate and the scheduler gives the rest of the window to c1 at once (spec D.1
    // (iii)): the session still carries about one window.
    let bits = |r: &crate::results::RunResults, i: usize| r.flows.bytes_acked[i] as f64 * 8.0 / 20.0;
    let even = two_with_slow_reader(false);
    let slow = two_with_slow_reader(true);
    let (e0, e1) = (bits(&even, 0), bits(&even, 1));
    let (s0, s1) = (bits(&slow, 0), bits(&slow, 1));
    eprintln!("even {e0:.0} / {e1:.0} b/s; c0 throttled {s0:.0} / {s1:.0} b/s");
    assert!((e0 / e1 - 1.0).abs() < 0.01, "round robin: {e0} vs {e1}");
    // c0: at most its 8 KB buffer plus 20 s of reading.
    assert!(s0 <= (8000.0 + 20.0 * 10_000.0) * 8.0 / 20.0 + 1000.0 && s0 > 0.95 * 80_000.0, "c0 {s0}");
    assert!(s0 + s1 > 0.97 * (e0 + e1), "the session carries its window: {} vs {}", s0 + s1, e0 + e1);
    assert!(s1 > 1.6 * e1, "c1 takes c0's unused share: {s1} vs {e1}");
    assert_eq!(slow.flows.timeouts.iter().sum::<u64>(), 0);
}
