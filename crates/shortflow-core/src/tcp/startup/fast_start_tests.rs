//! Fast Start on the sender rig (`tcp::rig`): the cached window after an idle period,
//! its marks and burst pacing, the cache (expiry, per host or per network), and the
//! failed fast start: a cached window far too large, recovered without a coarse
//! timeout, without ssthresh halving and without RTO back-off.

use std::collections::VecDeque;

use super::FastStart;
use crate::config::FastStartConfig;
use crate::path::PathRegistry;
use crate::tcp::rig::{ms, tcp, Rig, Sent};
use crate::tcp::startup::AnyStartup;
use crate::time::SimTime;

/// NewReno, no SYN, IW 1, window 100, no limited transmit; `extra` overrides.
fn cfg(extra: &str) -> crate::config::TcpConfig {
    tcp(&format!(
        r#"{{"variant": "newreno", "syn": false, "delay_growth": false, "singledup": 0, "window_init": 1, "window": 100 {extra}}}"#
    ))
}

fn fs(json: &str) -> AnyStartup {
    let c: FastStartConfig = serde_json::from_str(json).unwrap();
    AnyStartup::FastStart(Box::new(FastStart::from_config("startup", &c).unwrap()))
}

fn policy(r: &Rig, k: u32) -> &FastStart {
    match &r.block(k).startup {
        AnyStartup::FastStart(p) => p,
        _ => unreachable!(),
    }
}

/// Ack, in order, every segment connection `k` sends, `rtt_ms` after it left, until
/// segment `last` is acked; `lose` says which first transmissions never arrive (no
/// ack is generated for a lost segment, and the receiver's cumulative ack stays
/// below it: the acks of later arrivals are duplicates). Each ack echoes a timestamp
/// as ns-2.35's sink does (`Acker::update_ts`, RFC 1323): the send time of the newest
/// segment at or left of the first one not yet acked -- the segment that made the
/// ack, unless it arrived out of order.
fn deliver(r: &mut Rig, k: u32, rtt_ms: u64, last: i64, lose: &dyn Fn(&Sent) -> bool) {
    let sent = r.sent();
    deliver_from(r, k, sent, rtt_ms, last, lose)
}

/// As [`deliver`], starting with segments already taken from the rig.
fn deliver_from(r: &mut Rig, k: u32, sent: Vec<Sent>, rtt_ms: u64, last: i64, lose: &dyn Fn(&Sent) -> bool) {
    let mut pending: VecDeque<Sent> = sent.into_iter().filter(|s| s.conn == k).collect();
    let mut got = std::collections::BTreeSet::new();
    let mut cum = r.conn(k).highest_ack;
    let mut echo = SimTime::ZERO;
    while let Some(s) = pending.pop_front() {
        if lose(&s) {
            continue;
        }
        got.insert(s.seq);
        let sent_at = SimTime::from_micros(s.t_us);
        if sent_at >= echo && s.seq <= cum + 1 {
            echo = sent_at;
        }
        while got.contains(&(cum + 1)) {
            cum += 1;
        }
        r.ack_sack_ts(ms(s.t_us / 1000 + rtt_ms), k, cum, &[], echo);
        if cum >= last {
            break;
        }
        pending.extend(r.sent().into_iter().filter(|x| x.conn == k));
    }
}

/// Transfer of `n` segments, every one delivered, 100 ms RTT: slow start from 1.
fn prime(r: &mut Rig, k: u32, t_ms: u64, n: i64) {
    r.transfer(ms(t_ms), k, n);
    let last = r.conn(k).curseq - 1;
    deliver(r, k, 100, last, &|_| false);
    assert_eq!(r.conn(k).highest_ack, last);
}

#[test]
fn cached_window_is_halved_marked_and_paced_in_bursts() {
    let mut r = Rig::one(&cfg(""), fs("{}"));
    prime(&mut r, 0, 0, 20);
    // 20 acks in slow start from 1: cwnd 21 (< ssthresh 100).
    assert_eq!(r.cwnd(0), 21.0);
    assert!((policy(&r, 0).exact.srtt - 0.1).abs() < 1e-9, "every sample was 100 ms");
    r.transfer(ms(5000), 0, 30);
    // A.4: floor(21 / 2) = 10 segments, 20..=29; the first unmarked.
    assert_eq!(r.cwnd(0), 10.0);
    assert_eq!(r.ssthresh(0), 100);
    r.run_to(ms(5099));
    let s = r.sent();
    let seqs: Vec<i64> = s.iter().map(|x| x.seq).collect();
    assert_eq!(seqs, (20..30).collect::<Vec<_>>());
    let marks: Vec<bool> = s.iter().map(|x| x.low_prio).collect();
    assert_eq!(marks, [false, true, true, true, true, true, true, true, true, true], "fs_startseq..fs_endseq only");
    // Bursts of 4, the next 4 * srtt_exact / cwnd = 40 ms later.
    let t: Vec<u64> = s.iter().map(|x| x.t_us).collect();
    assert_eq!(
        t,
        [5_000_000, 5_000_000, 5_000_000, 5_000_000, 5_040_000, 5_040_000, 5_040_000, 5_040_000, 5_080_000, 5_080_000]
    );
    assert_eq!(policy(&r, 0).starts, 1);
    assert!(policy(&r, 0).fs_mode);
    // Acks of the window end the phase; what follows is unmarked and unpaced.
    deliver_from(&mut r, 0, s, 100, 29, &|_| false);
    assert!(!policy(&r, 0).fs_mode);
    assert!(r.sent().iter().all(|x| !x.low_prio));
    assert_eq!(r.shared.startup_trace.cwnd, vec![10.0]);
    assert_eq!(r.shared.startup_trace.wc_estimate, vec![21.0]);
}

#[test]
fn bursts_never_exceed_maxburst_and_spread_the_window_over_one_rtt() {
    let mut r = Rig::one(&cfg(""), fs(r#"{"maxburst": 3}"#));
    prime(&mut r, 0, 0, 60); // cwnd 61 -> 30 after the idle period
    r.transfer(ms(5000), 0, 100);
    assert_eq!(r.cwnd(0), 30.0);
    r.run_to(ms(5099));
    let s = r.sent();
    assert_eq!(s.len(), 30, "the whole window within one RTT");
    let mut per_instant = std::collections::BTreeMap::<u64, u32>::new();
    for x in &s {
        *per_instant.entry(x.t_us).or_default() += 1;
    }
    assert!(per_instant.values().all(|&n| n <= 3), "{per_instant:?}");
    let times: Vec<u64> = per_instant.keys().copied().collect();
    // 3 * 100 ms / 30 = 10 ms between bursts.
    assert!(times.windows(2).all(|w| w[1] - w[0] == 10_000), "{times:?}");
}

#[test]
fn maxburst_zero_sends_the_cached_window_at_once() {
    let mut r = Rig::one(&cfg(""), fs(r#"{"maxburst": 0, "priority_marking": false}"#));
    prime(&mut r, 0, 0, 20);
    r.transfer(ms(5000), 0, 30);
    let s = r.sent();
    assert_eq!(s.len(), 10);
    assert!(s.iter().all(|x| x.t_us == 5_000_000 && !x.low_prio));
}

#[test]
fn short_idle_is_plain_tcp_and_stale_cache_is_slow_start_restart() {
    // Idle shorter than the RTO (0.2 s): the window carries over, nothing marked.
    let mut r = Rig::one(&cfg(""), fs("{}"));
    prime(&mut r, 0, 0, 20);
    let last_ack = policy(&r, 0).last_activity.unwrap();
    r.transfer(last_ack + ms(150), 0, 30);
    assert_eq!(r.cwnd(0), 21.0);
    assert_eq!(r.sent().len(), 21);
    assert_eq!(policy(&r, 0).starts, 0);

    // Idle at least max_idle (300 s): the cache is stale.
    let mut r = Rig::one(&cfg(""), fs("{}"));
    prime(&mut r, 0, 0, 20);
    let last_ack = policy(&r, 0).last_activity.unwrap();
    r.transfer(last_ack + crate::time::SimTime::from_secs(300), 0, 30);
    assert_eq!(r.cwnd(0), 1.0);
    assert_eq!(r.sent_seqs(), vec![20]);
    let p = policy(&r, 0);
    assert_eq!((p.starts, p.stale_restarts), (0, 1));
    assert_eq!(p.exact.srtt, 0.0, "the fine estimator starts afresh");
    assert_eq!(r.shared.startup_trace.fallback_slow_start, vec![true]);

    // Just below it: fast start.
    let mut r = Rig::one(&cfg(""), fs(r#"{"max_idle_s": 10}"#));
    prime(&mut r, 0, 0, 20);
    let last_ack = policy(&r, 0).last_activity.unwrap();
    r.transfer(last_ack + crate::time::SimTime::from_millis(9_999), 0, 30);
    assert_eq!(r.cwnd(0), 10.0);
    assert_eq!(policy(&r, 0).starts, 1);
}

/// Two connections from host 0: c0 to 10.0.0.1, c1 to 10.0.0.2. c0 transfers; then c1,
/// new, starts 5 s later.
fn second_host(prefix_len: u8) -> (Vec<Sent>, f64) {
    let mut r = Rig::new(&cfg(""), fs("{}"), 2, false);
    r.shared.paths = PathRegistry::new(prefix_len).unwrap();
    r.senders.conns[1].dst_addr = 0x0A00_0002;
    prime(&mut r, 0, 0, 20);
    r.transfer(ms(7000), 1, 30);
    r.run_to(ms(7099));
    (r.sent(), r.cwnd(1))
}

#[test]
fn the_cache_is_per_host_by_default_and_per_network_with_a_shorter_prefix() {
    // /32: another host is another path entry: no history, slow start from 1.
    let (s, cwnd) = second_host(32);
    assert_eq!(cwnd, 1.0);
    assert_eq!(s.len(), 1);
    // /24: both hosts are one network: c1 fast-starts from c0's cached window.
    let (s, cwnd) = second_host(24);
    assert_eq!(cwnd, 10.0);
    assert_eq!(s.iter().filter(|x| x.low_prio).count(), 9, "{s:?}");
    // Same host, new connection, per-host cache: fast start too.
    let mut r = Rig::new(&cfg(""), fs("{}"), 2, false);
    prime(&mut r, 0, 0, 20);
    r.transfer(ms(7000), 1, 30);
    assert_eq!(r.cwnd(1), 10.0);
}

#[test]
fn the_path_cache_expires() {
    let mut r = Rig::new(&cfg(""), fs(r#"{"max_idle_s": 60}"#), 2, false);
    prime(&mut r, 0, 0, 20);
    let at = r.shared.paths.entries()[0].cache.unwrap().at;
    r.transfer(at + crate::time::SimTime::from_secs(61), 1, 30);
    assert_eq!(r.cwnd(1), 1.0, "cache older than max_idle: no history");
    assert_eq!(r.sent_seqs(), vec![0]);
}

/// Connection primed with 60 segments (cwnd 61, ssthresh 100), idle, then 100 more:
/// a fast start of 30 segments (60..=89) of which only 60, 61 and 62 get through.
fn failed_fast_start(startup: AnyStartup) -> Rig {
    let mut r = Rig::one(&cfg(""), startup);
    prime(&mut r, 0, 0, 60);
    r.transfer(ms(5000), 0, 100);
    assert_eq!(r.cwnd(0), 30.0);
    deliver(&mut r, 0, 100, 62, &|s| s.seq > 62);
    assert_eq!(r.conn(0).highest_ack, 62);
    // The acks of 60..=62 (at 5100 ms) released new segments, lost too.
    assert!(r.sent().iter().all(|x| x.seq >= 90));
    r
}

fn rto(r: &Rig) -> u64 {
    (r.block(0).rtt.timeout(&r.conn(0).params().rtt) * 1000.0).round() as u64
}

#[test]
fn a_failed_fast_start_resets_without_timeout_penalty() {
    let mut r = failed_fast_start(fs("{}"));
    // The last ack (of 62, sent at 5000 ms) came at 5100 ms; the reset timer is
    // srtt_exact + max(tick, 4 rttvar_exact) = 110 ms (every sample was 100 ms, tick
    // 10 ms), below the RTO.
    assert!(rto(&r) > 110);
    r.run_to(ms(5209));
    assert!(r.sent().is_empty());
    r.run_to(ms(5210));
    let s = r.sent();
    assert_eq!(s.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![63], "go-back-N from the first hole, cwnd 1: {s:?}");
    assert!(!s[0].low_prio, "a retransmission is never marked");
    assert_eq!(r.cwnd(0), 1.0);
    assert_eq!(r.ssthresh(0), 100, "ssthresh restored, not halved");
    let c = r.conn(0);
    assert_eq!((c.ctr.timeouts, c.nstartup_resets), (0, 1), "no coarse timeout");
    assert_eq!(r.block(0).rtt.t_backoff, 1, "RTO not backed off");
    assert!(!policy(&r, 0).fs_mode);
    // Then plain slow start: 1, 2, 4 ...
    r.ack(ms(5310), 0, 63);
    assert_eq!(r.sent_seqs(), vec![64, 65]);
}

#[test]
fn coarse_reset_timer_waits_for_the_rto_but_still_without_penalty() {
    let mut r = failed_fast_start(fs(r#"{"fine_reset_timer": false}"#));
    let t = 5100 + rto(&r);
    r.run_to(ms(t - 1));
    assert!(r.sent().is_empty(), "the RTO has not expired");
    r.run_to(ms(t));
    assert_eq!(r.sent_seqs(), vec![63]);
    assert_eq!((r.cwnd(0), r.ssthresh(0)), (1.0, 100));
    assert_eq!((r.conn(0).ctr.timeouts, r.block(0).rtt.t_backoff), (0, 1));
}

#[test]
fn without_fast_loss_recovery_the_failure_costs_a_coarse_timeout() {
    let mut r = failed_fast_start(fs(r#"{"fast_loss_recov": false}"#));
    let t = 5100 + rto(&r);
    r.run_to(ms(t));
    assert_eq!(r.sent_seqs(), vec![63]);
    assert_eq!(r.cwnd(0), 1.0);
    assert_eq!(r.ssthresh(0), 16, "ssthresh halved from the window (30 + the 3 acks)");
    assert_eq!((r.conn(0).ctr.timeouts, r.conn(0).nstartup_resets), (1, 0));
    assert_eq!(r.block(0).rtt.t_backoff, 2, "RTO backed off");
}

#[test]
fn if_even_the_unmarked_first_segment_is_lost_it_is_an_ordinary_timeout() {
    let mut r = Rig::one(&cfg(""), fs("{}"));
    prime(&mut r, 0, 0, 60);
    r.transfer(ms(5000), 0, 100);
    r.sent(); // everything lost
    r.run_to(ms(5500));
    assert_eq!(r.conn(0).ctr.timeouts, 1);
    assert_eq!(r.conn(0).nstartup_resets, 0);
    assert_eq!(r.ssthresh(0), 15);
}

#[test]
fn partial_ack_during_fast_start_resets_at_once() {
    // Fast-start window 60..=89; 63 and 70 are lost, the rest arrive: duplicate acks
    // of 62 trigger a fast retransmit of 63 (as NewReno), whose ack (69) is partial.
    let mut r = Rig::one(&cfg(""), fs("{}"));
    prime(&mut r, 0, 0, 60);
    r.transfer(ms(5000), 0, 100);
    let mut lost_once = std::collections::HashSet::new();
    let lose = move |s: &Sent| (s.seq == 63 || s.seq == 70) && lost_once.insert(s.seq);
    let lose = std::cell::RefCell::new(lose);
    // Deliver until the fast retransmission of 63 is acked.
    deliver(&mut r, 0, 100, 69, &|s| (lose.borrow_mut())(s));
    let c = r.conn(0);
    assert_eq!(c.nfastrexmit, 1);
    assert_eq!(c.highest_ack, 69);
    assert_eq!(c.nstartup_resets, 1, "the partial ack reset the connection");
    assert_eq!(c.ctr.timeouts, 0);
    assert_eq!(r.cwnd(0), 1.0);
    assert_eq!(r.ssthresh(0), 100, "the saved ssthresh, not the fast retransmit's halving");
    assert!(!policy(&r, 0).fs_mode);
    let s = r.sent();
    assert_eq!(s.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![70], "slow start from the next hole");
}

#[test]
fn outside_fast_start_a_partial_ack_is_newreno() {
    // Same losses, but the window was built without an idle period: no fast start.
    let mut r = Rig::one(&cfg(""), fs("{}"));
    r.transfer(ms(0), 0, 200);
    let mut lost_once = std::collections::HashSet::new();
    let lose = std::cell::RefCell::new(move |s: &Sent| (s.seq == 20 || s.seq == 24) && lost_once.insert(s.seq));
    deliver(&mut r, 0, 100, 23, &|s| (lose.borrow_mut())(s));
    let c = r.conn(0);
    assert_eq!((c.nfastrexmit, c.nstartup_resets), (1, 0));
    assert_eq!(r.sent().first().map(|x| x.seq), Some(24), "NewReno retransmits the next hole");
}

#[test]
fn count_acked_opens_the_window_per_packet_a_cumulative_ack_covers() {
    // After the reset of a failed fast start, the first ack of the go-back-N slow start
    // covers the retransmitted hole and everything after it that had arrived.
    for (count, want) in [(true, 1.0 + 27.0), (false, 2.0)] {
        let mut r = failed_fast_start(fs(&format!(r#"{{"count_acked": {count}}}"#)));
        r.run_to(ms(5210));
        assert_eq!(r.sent_seqs(), vec![63]);
        assert_eq!(r.cwnd(0), 1.0);
        // Had 64..=89 arrived, the ack of 63 would jump to 89: 27 packets.
        r.ack(ms(5310), 0, 89);
        assert_eq!(r.cwnd(0), want, "count_acked = {count}");
    }
}

#[test]
fn an_ecn_echo_on_the_last_ack_halves_the_cached_window() {
    // Spec A.7.5: a fast-start packet marked CE, echoed on the ack that ends the
    // transfer: the sender still halves the window it caches, so the next fast start
    // is tamer.
    let mut r = Rig::one(&cfg(r#", "ecn": true"#), fs("{}"));
    prime(&mut r, 0, 0, 20);
    r.transfer(ms(5000), 0, 10);
    assert_eq!(r.cwnd(0), 10.0);
    r.run_to(ms(5099)); // the paced window
    let sent = r.sent();
    assert_eq!(sent.len(), 10);
    for s in &sent[..9] {
        r.ack(ms(s.t_us / 1000 + 100), 0, s.seq);
    }
    let before = r.cwnd(0);
    r.ack_ecn(ms(sent[9].t_us / 1000 + 100), 0, sent[9].seq, true);
    let cache = r.shared.paths.entries()[0].cache.expect("written at the end of the transfer");
    assert_eq!(r.conn(0).necnresponses, 1);
    assert!(cache.cwnd < before / 2.0 + 1.0, "cached {} after {before} before the echo", cache.cwnd);
    assert_eq!(cache.cwnd, r.cwnd(0));
}

#[test]
fn srtt_exact_is_timed_by_the_timestamp_echo_not_by_segments_waiting_for_a_retransmission() {
    // A priming transfer of 20 segments whose segment 17 is lost; 18 and 19 arrive
    // (two duplicate acks, no fast retransmit), so 17 is resent on the RTO, and its ack
    // covers 18 and 19, which were sent a whole RTO earlier and waited for it at the
    // receiver. Timed by the newest of them (the sent log's sample, `AckSample::rtt`)
    // that round trip lasts RTO + 100 ms; the ack's timestamp echo (the
    // retransmission's send time) says 100 ms, the path's round trip (ns-2.35
    // tcp-fs.cc: tao = now - ts_echo). An inflated srtt_exact stretched the next fast
    // start's burst pacing far beyond the path's round trip (docs/faststart-full: L1,
    // 15.41 s instead of the link-bound 12.39 s).
    let mut r = Rig::one(&cfg(""), fs("{}"));
    r.transfer(ms(0), 0, 20);
    deliver(&mut r, 0, 100, 19, &|s| s.seq == 17);
    assert_eq!(r.conn(0).highest_ack, 16);
    assert!((policy(&r, 0).exact.srtt - 0.1).abs() < 1e-9);
    let mut t = 500;
    let s = loop {
        r.run_to(ms(t));
        let s = r.sent();
        if !s.is_empty() || t > 5000 {
            break s;
        }
        t += 1;
    };
    assert_eq!(s.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![17], "the RTO's retransmission");
    assert_eq!(r.conn(0).ctr.timeouts, 1);
    let resent = SimTime::from_micros(s[0].t_us);
    let sent_19 = 400; // ms: the fifth round of slow start
    assert!(s[0].t_us / 1000 > sent_19 + 200, "the RTO came long after 19 left");
    r.ack_sack_ts(resent + ms(100), 0, 19, &[], resent);
    assert_eq!(r.conn(0).highest_ack, 19);
    assert!((policy(&r, 0).exact.srtt - 0.1).abs() < 1e-9, "srtt_exact {} s", policy(&r, 0).exact.srtt);
    // A loss-free transfer right after it grows the window (no idle period, no fast
    // start); the fast start after the idle period that follows spreads its window
    // over that 100 ms.
    let t = resent.as_nanos() / 1_000_000 + 100;
    r.transfer(ms(t), 0, 60);
    let last = r.conn(0).curseq - 1;
    deliver(&mut r, 0, 100, last, &|_| false);
    assert!((policy(&r, 0).exact.srtt - 0.1).abs() < 1e-9);
    r.transfer(ms(10_000), 0, 100);
    let w = r.block(0).tcb.window();
    assert!(w > 4, "a window of several bursts: {w}");
    r.run_to(ms(10_099));
    let s = r.sent();
    assert_eq!(s.len() as i64, w, "the whole window within one RTT");
    let gap_ns = SimTime::from_secs_f64(4.0 * 0.1 / w as f64).as_nanos();
    for (i, x) in s.iter().enumerate() {
        let want_ns = 10_000_000_000 + (i as u64 / 4) * gap_ns;
        assert_eq!(x.t_us, want_ns / 1000, "segment {i} at {} us, want {} us", x.t_us, want_ns / 1000);
    }
}
