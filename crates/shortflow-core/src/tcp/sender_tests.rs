//! Sender tests on the rig (`tcp::rig`): feed acks at given times, assert exactly
//! which segments leave and when. Fixtures per sender state: slow start, fast
//! recovery, idle after an RTO, a paced start; then the start-up policy contract
//! (verdict before the cut, low-priority marks, leaving the phase) and a control
//! block shared by two connections.

use super::rig::{ms, tcp, Rig, Sent};
use crate::config::{InfeasiblePolicy, SpandConfig};
use crate::spand::gateway::Gateway;
use crate::tcp::events::{LossKind, LossVerdict, SavedWindow};
use crate::tcp::startup::scripted::Scripted;
use crate::tcp::startup::{AnyStartup, Ns2, Spand};
use crate::time::SimTime;

/// NewReno, no SYN, IW 2, no limited transmit, no delay_growth quirk; `extra` (JSON
/// members after a comma) overrides.
fn newreno(extra: &str) -> crate::config::TcpConfig {
    let mut v: serde_json::Value = serde_json::from_str(
        r#"{"variant": "newreno", "syn": false, "delay_growth": false, "singledup": 0, "window_init": 2}"#,
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

fn sent_at(r: &mut Rig) -> Vec<(u64, i64)> {
    r.sent().iter().map(|s| (s.t_us / 1000, s.seq)).collect()
}

fn ns2() -> AnyStartup {
    AnyStartup::Ns2(Ns2)
}

// ---- slow start ---------------------------------------------------------

#[test]
fn slow_start_doubles_per_round() {
    let mut r = Rig::one(&newreno(""), ns2());
    r.transfer(ms(0), 0, 20);
    assert_eq!(sent_at(&mut r), vec![(0, 0), (0, 1)], "initial window of 2");
    r.ack(ms(100), 0, 0);
    assert_eq!(r.sent_seqs(), vec![2, 3], "cwnd 3: each ack releases two");
    r.ack(ms(100), 0, 1);
    assert_eq!(r.sent_seqs(), vec![4, 5]);
    assert_eq!(r.cwnd(0), 4.0);
    r.ack(ms(200), 0, 2);
    assert_eq!(sent_at(&mut r), vec![(200, 6), (200, 7)]);
    // A duplicate ack sends nothing without limited transmit.
    r.ack(ms(201), 0, 2);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
}

#[test]
fn delay_growth_keeps_the_initial_window_after_the_first_ack() {
    // ns-2.35 quirk: with delay_growth_ the ack of packet 0 resets cwnd to the IW
    // even without a SYN, so it releases one packet, not two.
    let mut r = Rig::one(&newreno(r#", "delay_growth": true"#), ns2());
    r.transfer(ms(0), 0, 10);
    r.sent();
    r.ack(ms(100), 0, 0);
    assert_eq!(r.cwnd(0), 2.0);
    assert_eq!(r.sent_seqs(), vec![2]);
}

#[test]
fn maxburst_limits_one_send_call() {
    let mut r = Rig::one(&newreno(r#", "window_init": 10, "maxburst": 3"#), ns2());
    r.transfer(ms(0), 0, 20);
    assert_eq!(r.sent_seqs(), vec![0, 1, 2]);
}

// ---- fast retransmit and recovery ----------------------------------------

/// IW 8, 20 packets; segments 2 and 6 are lost. Returns the rig after the third
/// duplicate ack (at 105 ms).
fn fast_recovery_fixture(startup: AnyStartup) -> Rig {
    let mut r = Rig::one(&newreno(r#", "window_init": 8"#), startup);
    r.transfer(ms(0), 0, 20);
    assert_eq!(r.sent_seqs(), (0..8).collect::<Vec<_>>());
    r.ack(ms(100), 0, 0);
    r.ack(ms(101), 0, 1);
    assert_eq!(r.sent_seqs(), vec![8, 9, 10, 11], "slow start: cwnd 10");
    r.ack(ms(103), 0, 1); // 3 arrived
    r.ack(ms(104), 0, 1); // 4
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    r.ack(ms(105), 0, 1); // 5: third duplicate
    r
}

#[test]
fn third_dupack_retransmits_and_halves() {
    let mut r = fast_recovery_fixture(ns2());
    assert_eq!(sent_at(&mut r), vec![(105, 2)], "fast retransmit of the first hole only");
    assert_eq!(r.cwnd(0), 5.0);
    assert_eq!(r.ssthresh(0), 5);
    assert_eq!(r.conn(0).nfastrexmit, 1);
    // Further dup acks inflate the window (cwnd 5 + dupwnd 3 + k); new segment 12
    // leaves once highest_ack 1 + window reaches 12, at the third of them.
    for (k, t) in (106..111).enumerate() {
        r.ack(ms(t), 0, 1);
        let s = r.sent_seqs();
        if k < 2 {
            assert!(s.is_empty(), "dupack {k}: {s:?}");
        } else {
            assert_eq!(s.len(), 1, "dupack {k}: one new segment per dupack, {s:?}");
        }
    }
}

#[test]
fn partial_ack_retransmits_the_next_hole_at_once() {
    let mut r = fast_recovery_fixture(ns2());
    r.sent();
    // The retransmitted 2 arrives; 6 is still missing: the ack says 5 (partial).
    r.ack(ms(205), 0, 5);
    let s = sent_at(&mut r);
    assert_eq!(s.first(), Some(&(205, 6)), "partial ack: retransmit 6 at once, {s:?}");
    assert_eq!(r.conn(0).ctr.retrans_segs, 2);
}

// ---- retransmission timeout ------------------------------------------------

#[test]
fn rto_goes_back_n_and_backs_off() {
    let mut r = Rig::one(&newreno(""), ns2());
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1]);
    // No RTT sample yet: the RTO is rtxcur_init = 3 s, then doubles.
    r.run_to(ms(2999));
    assert!(r.sent().is_empty());
    r.run_to(ms(3000));
    assert_eq!(sent_at(&mut r), vec![(3000, 0)], "go back to the first unacked segment, cwnd 1");
    assert_eq!(r.cwnd(0), 1.0);
    assert_eq!(r.ssthresh(0), 2, "half of 2, floored at 2");
    r.run_to(ms(8999));
    assert!(r.sent().is_empty());
    r.run_to(ms(9000));
    assert_eq!(sent_at(&mut r), vec![(9000, 0)], "backed off to 6 s");
    assert_eq!(r.conn(0).ctr.timeouts, 2);
}

/// Two packets acked, then idle: ns-2's retransmission timer stays armed after the
/// last ack (`newtimer`: t_seqno > ackno), fires with nothing outstanding, and the
/// timer-driven slow-start restart (slow_start_restart_, restart_bugfix_) closes
/// cwnd to 1 without touching ssthresh. Policies other than `Ns2` switch it off.
fn idle_then_new_transfer(startup: AnyStartup) -> (Vec<i64>, f64, i32) {
    let mut r = Rig::one(&newreno(""), startup);
    r.transfer(ms(0), 0, 2);
    r.sent();
    r.ack(ms(100), 0, 0);
    r.ack(ms(100), 0, 1);
    assert_eq!(r.cwnd(0), 4.0);
    r.transfer(ms(10_000), 0, 4);
    (r.sent_seqs(), r.cwnd(0), r.ssthresh(0))
}

#[test]
fn idle_timer_restarts_from_one() {
    assert_eq!(idle_then_new_transfer(ns2()), (vec![2], 1.0, 20));
}

#[test]
fn no_restart_carries_the_window_over_idle() {
    use crate::tcp::startup::NoRestart;
    assert_eq!(idle_then_new_transfer(AnyStartup::NoRestart(NoRestart)), (vec![2, 3, 4, 5], 4.0, 20));
}

// ---- paced start (TCP/SPAND) ------------------------------------------------

#[test]
fn spand_paces_its_first_window() {
    let cfg: SpandConfig = serde_json::from_str(r#"{"gateway": "gw", "bucket_depth": 2}"#).unwrap();
    assert_eq!(cfg.infeasible_policy, InfeasiblePolicy::default());
    let mut r = Rig::one(&newreno(r#", "window": 100"#), AnyStartup::Spand(Box::new(Spand::new(&cfg, 0, 100))));
    let mut gw = Gateway::new(SimTime::from_secs(300), 1, 24).unwrap();
    gw.report(0x0A00_0001, ms(0), 8.0, 0.08); // W_c 8, RTT 80 ms
    r.shared.paths.gateways.push(gw);
    r.transfer(ms(1000), 0, 8);
    // cwnd_opt(8, 8) = 8 paced at 8 / 80 ms = one per 10 ms, after a burst of 2.
    assert_eq!(r.cwnd(0), 8.0);
    r.run_to(ms(1100));
    let t: Vec<u64> = r.sent().iter().map(|s: &Sent| s.t_us).collect();
    assert_eq!(t, vec![1_000_000, 1_000_000, 1_010_000, 1_020_000, 1_030_000, 1_040_000, 1_050_000, 1_060_000]);
}

// ---- the start-up policy contract --------------------------------------------

#[test]
fn loss_verdict_is_asked_before_the_cut() {
    let s = Scripted::default();
    let r = fast_recovery_fixture(AnyStartup::Scripted(s));
    let AnyStartup::Scripted(s) = &r.block(0).startup else { unreachable!() };
    // The policy saw the window before the cut (cwnd 10, ssthresh 20), then the
    // default verdict let ns-2's rule halve it.
    assert_eq!(s.losses, vec![(LossKind::DupAckThreshold, 10.0, 20, false)]);
    assert_eq!(r.cwnd(0), 5.0);
}

#[test]
fn undo_verdict_restores_the_saved_window_instead_of_cutting() {
    let s =
        Scripted { verdict: Some(LossVerdict::Undo(SavedWindow { cwnd: 3.0, ssthresh: 12 })), ..Default::default() };
    let mut r = fast_recovery_fixture(AnyStartup::Scripted(s));
    assert_eq!(r.cwnd(0), 3.0);
    assert_eq!(r.ssthresh(0), 12, "no ssthresh halving");
    assert_eq!(r.sent_seqs(), vec![2], "the lost segment is still retransmitted");
}

#[test]
fn restart_verdict_on_timeout_keeps_ssthresh() {
    let s =
        Scripted { verdict: Some(LossVerdict::RestartNoPenalty), start_window: Some((6.0, 30)), ..Default::default() };
    let mut r = Rig::one(&newreno(""), AnyStartup::Scripted(s));
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), (0..6).collect::<Vec<_>>());
    r.ack(ms(100), 0, 0); // one RTT sample of 100 ms: RTO 0.3 s from here
    assert_eq!(r.sent_seqs(), vec![6, 7]);
    r.run_to(ms(399));
    assert!(r.sent().is_empty());
    r.run_to(ms(400));
    assert_eq!(sent_at(&mut r), vec![(400, 1), (400, 2)], "go-back-N from the first unacked, IW 2");
    assert_eq!(r.cwnd(0), 2.0, "back to the initial window");
    assert_eq!(r.ssthresh(0), 30, "without the penalty");
    let AnyStartup::Scripted(s) = &r.block(0).startup else { unreachable!() };
    assert_eq!(s.losses, vec![(LossKind::Rto, 7.0, 30, false)]);
}

#[test]
fn low_priority_range_is_marked_and_reported_on_loss() {
    // Segments 2..=5 of the plan go at low priority; the loss of 2 says so.
    let s = Scripted { low_prio: Some((2, 5)), ..Default::default() };
    let mut r = fast_recovery_fixture(AnyStartup::Scripted(s));
    let AnyStartup::Scripted(s) = &r.block(0).startup else { unreachable!() };
    assert_eq!(s.losses[0].3, true, "the lost segment was low priority");
    assert!(r.block(0).low_prio().is_none(), "a loss ends the plan");
    let retx = r.sent();
    assert_eq!(retx.len(), 1);
    assert!(!retx[0].low_prio, "after the plan, retransmissions go at normal priority");
}

#[test]
fn marks_follow_the_plan_range() {
    let s = Scripted { low_prio: Some((1, 2)), ..Default::default() };
    let mut r = Rig::one(&newreno(r#", "window_init": 4"#), AnyStartup::Scripted(s));
    r.transfer(ms(0), 0, 10);
    let marks: Vec<bool> = r.sent().iter().map(|s| s.low_prio).collect();
    assert_eq!(marks, vec![false, true, true, false]);
}

#[test]
fn leaving_the_phase_ends_marking_and_ack_hooks() {
    let s = Scripted { low_prio: Some((0, 100)), exit_after_acks: Some(1), ..Default::default() };
    let mut r = Rig::one(&newreno(""), AnyStartup::Scripted(s));
    r.transfer(ms(0), 0, 10);
    assert!(r.sent().iter().all(|s| s.low_prio));
    r.ack(ms(100), 0, 0);
    assert!(r.sent().iter().all(|s| !s.low_prio), "phase left on the first ack");
    r.ack(ms(150), 0, 1);
    let AnyStartup::Scripted(s) = &r.block(0).startup else { unreachable!() };
    assert_eq!(s.acks.len(), 1, "on_ack is not called after Exit");
    let a = s.acks[0];
    assert_eq!((a.ackno, a.newly_acked, a.newly_acked_bytes), (0, 1, 1000));
    assert_eq!(a.rtt, Some(ms(100)), "per-ack RTT from the sent log");
    assert!(a.round_done);
}

#[test]
fn ack_samples_count_rounds_and_rate() {
    let s = Scripted { watch: true, ..Default::default() };
    let mut r = Rig::one(&newreno(""), AnyStartup::Scripted(s));
    r.transfer(ms(0), 0, 30);
    // Ack everything 100 ms after it was sent, in order.
    let mut t = 100;
    let mut next = 0;
    for _ in 0..4 {
        let sent: Vec<i64> = r.sent_seqs();
        for _ in &sent {
            r.ack(ms(t), 0, next);
            next += 1;
        }
        t += 100;
    }
    let AnyStartup::Scripted(s) = &r.block(0).startup else { unreachable!() };
    let rounds: Vec<u64> = s.acks.iter().filter(|a| a.round_done).map(|a| a.round).collect();
    assert_eq!(rounds, vec![1, 2, 3, 4], "one round per RTT of slow start");
    let last = s.acks.last().unwrap();
    assert_eq!(last.rtt, Some(ms(100)));
    assert!(last.rate.is_some_and(|x| x.delivered > 0));
    assert!(s.acks.iter().all(|a| a.newly_acked == 1 && a.dupacks == 0));
}

// ---- a control block shared by two connections ----------------------------------

#[test]
fn two_connections_sharing_a_block_never_exceed_one_window() {
    let cfg = newreno(r#", "window_init": 4, "window": 6"#);
    let mut r = Rig::new(&cfg, ns2(), 2, true);
    assert_eq!(r.conn(0).cb, r.conn(1).cb);
    r.transfer(ms(0), 0, 20);
    r.transfer(ms(0), 1, 20);
    let first = r.sent();
    assert_eq!(first.len(), 4, "one initial window for both together: {first:?}");
    let mut acked = [-1i64, -1];
    let mut total = [0usize; 2];
    for s in &first {
        total[s.conn as usize] += 1;
    }
    let mut t = 100;
    let mut inflight: Vec<Sent> = first;
    while acked[0] < 19 || acked[1] < 19 {
        // Ack the oldest outstanding segment of each connection in turn.
        let s = inflight.remove(0);
        acked[s.conn as usize] = s.seq;
        r.ack(ms(t), s.conn, s.seq);
        t += 1;
        let out = r.sent();
        for x in &out {
            total[x.conn as usize] += 1;
        }
        inflight.extend(out);
        let flight = r.senders.block_flight(r.conn(0).cb);
        let win = r.block(0).tcb.window();
        assert!(flight <= win, "at {t} ms: {flight} in flight > window {win}");
        assert!(flight <= 6, "window capped by window_ = 6: {flight}");
    }
    assert_eq!(total, [20, 20], "both transfers completed");
    assert!(r.cwnd(0) > 4.0, "the shared window grew");
}

#[test]
fn a_shared_block_serves_members_round_robin() {
    let cfg = newreno(r#", "window_init": 4"#);
    let mut r = Rig::new(&cfg, ns2(), 2, true);
    // Connection 0 starts first and takes the whole window; once the window opens,
    // connection 1 (which has data waiting) gets its turn.
    r.transfer(ms(0), 0, 10);
    r.transfer(ms(1), 1, 10);
    assert_eq!(r.sent().iter().filter(|s| s.conn == 1).count(), 0);
    r.ack(ms(100), 0, 0); // cwnd 5: two free slots
    let out = r.sent();
    let conns: Vec<u32> = out.iter().map(|s| s.conn).collect();
    assert!(conns.contains(&1), "connection 1 served when the window opened: {conns:?}");
}

// ---- ECN ---------------------------------------------------------------------

#[test]
fn ecn_echo_halves_once_per_window_and_sets_cwr_once() {
    let mut r = Rig::one(&newreno(r#", "window_init": 8, "ecn": true"#), ns2());
    r.transfer(ms(0), 0, 40);
    r.run_to(ms(1));
    // ns-2.35 output(): packet 0 negotiates ECN (ECE, not ECT); the rest is ECT.
    assert!(r.arrived[0].ecn_echo && !r.arrived[0].ect && !r.arrived[0].cwr, "packet 0 negotiates");
    assert!(r.arrived[1..].iter().all(|p| p.ect && !p.cwr), "data is ECN-capable");
    r.ack(ms(100), 0, 0); // cwnd 9; sent up to 9
    r.run_to(ms(101));
    r.arrived.clear();
    // As ns-2: an echo counts only for acks above `recover` (0 at first), so the
    // echo on ack 1 halves cwnd 9 (before this ack's own increase) ...
    r.ack_ecn(ms(101), 0, 1, true);
    assert_eq!(r.ssthresh(0), 4);
    assert!((r.cwnd(0) - (4.5 + 1.0 / 4.5)).abs() < 1e-12, "{}", r.cwnd(0));
    // ... and the next echo in the same window of data does nothing.
    r.ack_ecn(ms(102), 0, 2, true);
    assert_eq!(r.conn(0).necnresponses, 1);
    for k in 3..9 {
        r.ack(ms(100 + k as u64), 0, k); // the window reopens for new data
    }
    r.run_to(ms(110));
    assert!(r.arrived.len() >= 2, "{:?}", r.arrived.len());
    let cwr: Vec<bool> = r.arrived.iter().map(|p| p.cwr).collect();
    assert_eq!(cwr.iter().filter(|&&c| c).count(), 1, "CWR on exactly one packet: {cwr:?}");
    assert!(cwr[0], "the first packet after the reduction carries it");
}

#[test]
fn once_ecn_is_negotiated_echoing_acks_do_not_open_the_window() {
    // ns-2.35 recv_newack_helper: the echo on the ack of packet 0 (the sink's answer
    // to the negotiation) sets ect_; from then on an ack with ECE holds the window.
    let mut r = Rig::one(&newreno(r#", "window_init": 8, "ecn": true"#), ns2());
    r.transfer(ms(0), 0, 40);
    r.ack_ecn(ms(100), 0, 0, true); // negotiation answered: the window still opens
    assert_eq!(r.cwnd(0), 9.0);
    assert_eq!(r.conn(0).necnresponses, 0, "ack 0 is not above recover (0)");
    r.ack_ecn(ms(101), 0, 1, true); // a congestion echo: halve, no increase
    assert_eq!(r.ssthresh(0), 4);
    assert_eq!(r.cwnd(0), 4.5);
    r.ack_ecn(ms(102), 0, 2, true); // same window: no second cut, still no increase
    assert_eq!(r.cwnd(0), 4.5);
    assert_eq!(r.conn(0).necnresponses, 1);
    r.ack(ms(103), 0, 3); // no echo: grows again
    assert!((r.cwnd(0) - (4.5 + 1.0 / 4.5)).abs() < 1e-12, "{}", r.cwnd(0));
}

#[test]
fn without_ecn_echoes_are_ignored_and_data_is_not_ect() {
    let mut r = Rig::one(&newreno(r#", "window_init": 8"#), ns2());
    r.transfer(ms(0), 0, 40);
    r.ack_ecn(ms(100), 0, 0, true);
    r.run_to(ms(101));
    assert!(r.arrived.iter().all(|p| !p.ect && !p.cwr));
    assert_eq!(r.cwnd(0), 9.0);
    assert_eq!(r.conn(0).necnresponses, 0);
}

#[test]
fn ecn_reduction_goes_through_the_startup_verdict() {
    let s = Scripted::default();
    let mut r = Rig::one(&newreno(r#", "window_init": 8, "ecn": true"#), AnyStartup::Scripted(s));
    r.transfer(ms(0), 0, 40);
    r.ack(ms(100), 0, 0);
    r.ack_ecn(ms(101), 0, 1, true);
    let AnyStartup::Scripted(s) = &r.block(0).startup else { unreachable!() };
    assert_eq!(s.losses, vec![(LossKind::Ecn, 9.0, 20, false)]);
}

// ---- TCP/SPAND W_c and RTT samples (paper §5.1; scenarios/spand/common.md) ----------

const SPAND_DST: u32 = 0x0A00_0001;

/// A TCP/SPAND connection (tick 10 ms, window 100, IW 2) with `extra` SpandConfig
/// members, and a gateway holding the samples `(W_c, RTT)` reported at t = 0.
fn spand_rig(extra: &str, samples: &[(f64, f64)]) -> Rig {
    let cfg: SpandConfig = serde_json::from_str(&format!(r#"{{"gateway": "gw"{extra}}}"#)).unwrap();
    let r_tcp = newreno(r#", "window": 100"#);
    let mut r = Rig::one(&r_tcp, AnyStartup::Spand(Box::new(Spand::new(&cfg, 0, 100))));
    let mut gw = Gateway::new(SimTime::from_secs(300), 1, 24).unwrap();
    for &(wc, rtt) in samples {
        gw.report(SPAND_DST, ms(0), wc, rtt);
    }
    r.shared.paths.gateways.push(gw);
    r
}

/// Ack every segment as it leaves, one ack each, 1 ms apart from `t` on, until
/// `last` is acked; returns the time after the last ack.
fn ack_each_until(r: &mut Rig, mut t: u64, last: i64) -> u64 {
    let mut acked = -1;
    while acked < last {
        r.run_to(ms(t));
        for s in r.sent_seqs() {
            if s > acked {
                acked = s;
                r.ack(ms(t), 0, s);
                t += 1;
            }
        }
        t += 1;
    }
    t
}

/// (mean W_c, mean RTT, samples) of the gateway at `t`.
fn gateway_state(r: &mut Rig, t: u64) -> Option<(f64, f64, u32)> {
    r.shared.paths.gateways[0].query(SPAND_DST, ms(t)).map(|e| (e.wc, e.rtt_s, e.n_samples))
}

/// cwnd after `acks` congestion-avoidance acks from `c` (ns-2 windowOption 1).
fn ca_growth(mut c: f64, acks: u32) -> f64 {
    for _ in 0..acks {
        c += 1.0 / c;
    }
    c
}

/// Paper §5.1: a loss-free transfer reports cwnd at its end, real-valued; the gateway
/// mean is floored once, at the next start (A5). Started at cwnd_opt(30, 20) = 15 it
/// ends at 16.88 and reports that, not the next plateau: the downward ratchet.
#[test]
fn spand_loss_free_transfer_reports_its_real_valued_end_cwnd() {
    let mut r = spand_rig("", &[(20.0, 0.1)]);
    r.transfer(ms(1000), 0, 30);
    assert_eq!((r.cwnd(0), r.ssthresh(0)), (15.0, 15), "cwnd_opt(30, 20) = 15, in CA");
    let t = ack_each_until(&mut r, 1200, 29);
    let end = ca_growth(15.0, 30);
    assert!((r.cwnd(0) - end).abs() < 1e-12 && end.fract() > 0.8, "{} vs {end}", r.cwnd(0));
    let (wc, _, n) = gateway_state(&mut r, t).expect("two samples");
    assert_eq!(n, 2);
    assert!((wc - (20.0 + end) / 2.0).abs() < 1e-12, "mean of 20 and {end}: {wc}");
    // The next start floors the mean 18.44 once: W_c 18, cwnd_opt(30, 18) = 15 again.
    r.transfer(ms(t + 1000), 0, 30);
    assert_eq!(r.cwnd(0), 15.0);
}

/// Ablation `floor_samples`: the same transfer reports floor(cwnd) = 16.
#[test]
fn spand_floored_samples_ablation() {
    let mut r = spand_rig(r#", "floor_samples": true"#, &[(20.0, 0.1)]);
    r.transfer(ms(1000), 0, 30);
    let t = ack_each_until(&mut r, 1200, 29);
    assert_eq!(gateway_state(&mut r, t).map(|s| (s.0, s.2)), Some((18.0, 2)), "mean of 20 and 16");
}

/// Ablation `no_decrease` (ours): a loss-free transfer reports at least the estimate
/// it started from.
#[test]
fn spand_no_decrease_ablation_keeps_the_estimate() {
    let mut r = spand_rig(r#", "no_decrease": true"#, &[(20.0, 0.1)]);
    r.transfer(ms(1000), 0, 30);
    let t = ack_each_until(&mut r, 1200, 29);
    assert_eq!(gateway_state(&mut r, t).map(|s| (s.0, s.2)), Some((20.0, 2)));
}

/// The gateway mean is the one floor: samples 15.6 and 16.9 average 16.25 -> W_c 16 ->
/// cwnd_opt(30, 16) = 15, where floored samples (15, 16 -> 15.5 -> 15) would give
/// cwnd_opt(30, 15) = 9.
#[test]
fn spand_floors_the_gateway_mean_once() {
    let mut r = spand_rig("", &[(15.6, 0.1), (16.9, 0.1)]);
    r.transfer(ms(1000), 0, 30);
    assert_eq!(r.cwnd(0), 15.0);
    let mut r = spand_rig("", &[(15.0, 0.1), (16.0, 0.1)]);
    r.transfer(ms(1000), 0, 30);
    assert_eq!(r.cwnd(0), 9.0);
}

/// A fast retransmit entered in congestion avoidance reports cwnd − 1, real-valued,
/// before the cut; the transfer then had a loss and reports nothing at its end.
#[test]
fn spand_ca_loss_reports_cwnd_minus_one_and_no_end_sample() {
    for end_sample in ["loss_free", "no_ca_sample"] {
        let mut r = spand_rig(&format!(r#", "end_sample": "{end_sample}""#), &[(10.0, 0.08)]);
        r.transfer(ms(1000), 0, 20);
        assert_eq!(r.cwnd(0), 6.0, "cwnd_opt(20, 10) = 6");
        r.run_to(ms(1100));
        assert_eq!(r.sent_seqs(), (0..6).collect::<Vec<_>>());
        r.ack(ms(1100), 0, 0);
        r.ack(ms(1101), 0, 1);
        let before = ca_growth(6.0, 2);
        assert!((r.cwnd(0) - before).abs() < 1e-12);
        for k in 0..3 {
            r.ack(ms(1102 + k), 0, 1);
        }
        assert_eq!(r.conn(0).nfastrexmit, 1);
        let (wc, _, n) = gateway_state(&mut r, 1105).expect("samples");
        assert_eq!(n, 2, "{end_sample}");
        assert!(
            (wc - (10.0 + before - 1.0) / 2.0).abs() < 1e-12,
            "{end_sample}: sample {} expected {}",
            2.0 * wc - 10.0,
            before - 1.0
        );
        let t = ack_each_until(&mut r, 1200, 19);
        assert_eq!(gateway_state(&mut r, t).map(|s| s.2), Some(2), "{end_sample}: no end-of-transfer sample");
    }
}

/// Losses in slow start and timeouts give no sample (paper §5.1 defines only the
/// CA-loss and loss-free cases); spec A10's end sample after them is an ablation.
#[test]
fn spand_slow_start_or_timeout_losses_give_no_sample_by_default() {
    for (end_sample, timeout) in
        [("loss_free", false), ("loss_free", true), ("no_ca_sample", false), ("no_ca_sample", true)]
    {
        let mut r = spand_rig(&format!(r#", "end_sample": "{end_sample}""#), &[]);
        r.transfer(ms(1000), 0, 12);
        assert_eq!(r.sent_seqs(), vec![0, 1], "no history: slow start from IW 2");
        let mut t = 1100;
        if timeout {
            // Nothing acked: the 3 s initial RTO fires (a timeout in slow start).
            r.run_to(ms(4000));
            assert_eq!(r.conn(0).ctr.timeouts, 1);
            t = 4100;
        } else {
            r.ack(ms(1100), 0, 0);
            r.ack(ms(1101), 0, 1);
            r.sent();
            assert!(r.cwnd(0) < r.ssthresh(0) as f64, "still in slow start");
            for k in 0..3 {
                r.ack(ms(1102 + k), 0, 1);
            }
            assert_eq!(r.conn(0).nfastrexmit, 1);
        }
        let t = ack_each_until(&mut r, t, 11);
        let got = gateway_state(&mut r, t);
        if end_sample == "loss_free" {
            assert_eq!(got, None, "timeout {timeout}: no sample");
        } else {
            let (wc, _, n) = got.expect("A10 end sample");
            assert_eq!((wc, n), (r.cwnd(0), 1), "timeout {timeout}: A10 reports the end cwnd");
        }
    }
}

/// The RTT sent with a sample is srtt with ns-2's fractional bits (`t_srtt_ / 8 ×
/// tick`), and the gateway RTT is injected at that resolution; `rtt_report = "ticks"`
/// drops the bits on both sides.
#[test]
fn spand_rtt_is_reported_and_injected_at_one_resolution() {
    for (mode, t_srtt) in [("fractional", 70), ("ticks", 72), ("exact", 70)] {
        // 87.5 ms at a 10 ms tick: 8.75 ticks = 70 eighths; whole ticks: 9.
        let mut r = spand_rig(&format!(r#", "rtt_report": "{mode}""#), &[(8.0, 0.0875)]);
        r.transfer(ms(1000), 0, 8);
        assert_eq!(r.block(0).rtt.t_srtt, t_srtt, "{mode}: injected");
        // Segment 0 (timed) acked after 85 ms: a 9-tick sample moves t_srtt by one eighth.
        let t = ack_each_until(&mut r, 1085, 7);
        let rtt = r.block(0).rtt.clone();
        let p = r.conn(0).params().rtt.clone();
        let p = &p;
        let want = match mode {
            "fractional" => rtt.srtt_frac_s(p),
            "ticks" => rtt.srtt_s(p),
            _ => rtt.exact_srtt_s(),
        };
        let (_, mean_rtt, n) = gateway_state(&mut r, t).expect("two samples");
        assert_eq!(n, 2);
        assert!(
            (mean_rtt - (0.0875 + want) / 2.0).abs() < 1e-15,
            "{mode}: reported {} want {want}",
            2.0 * mean_rtt - 0.0875
        );
        if mode == "fractional" {
            assert!(
                rtt.t_srtt % 8 != 0 && want != rtt.srtt_s(p),
                "the fractional bits are kept: t_srtt {}",
                rtt.t_srtt
            );
        }
    }
}

/// Ablation `bucket_starts_full = false`: the first paced segment waits one interval.
#[test]
fn spand_empty_bucket_ablation() {
    let mut r = spand_rig(r#", "bucket_starts_full": false"#, &[(8.0, 0.08)]);
    r.transfer(ms(1000), 0, 8);
    r.run_to(ms(1100));
    let t: Vec<u64> = r.sent().iter().map(|s: &Sent| s.t_us / 1000).collect();
    assert_eq!(t, vec![1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080]);
}

// ---- Linux rules (issue 19): RTO, growth, restart after idle -----------------

fn linux_tcp(extra: &str) -> crate::config::TcpConfig {
    newreno(&format!(
        r#", "rto": {{"kind": "linux"}}, "cc": {{"kind": "linux_reno"}}, "slow_start_restart": false, "ssthresh": 2147483647, "window": 1000{extra}"#
    ))
}

fn linux_start(ssai: bool) -> AnyStartup {
    let c: crate::config::LinuxStartupConfig =
        serde_json::from_str(&format!(r#"{{"slow_start_after_idle": {ssai}}}"#)).unwrap();
    AnyStartup::Linux(Box::new(crate::tcp::startup::LinuxStart::from_config("startup", &c).unwrap()))
}

#[test]
fn linux_rto_is_one_second_then_three_rtts_from_the_first_sample() {
    let mut r = Rig::one(&linux_tcp(""), linux_start(true));
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1]);
    r.run_to(ms(999));
    assert!(r.sent().is_empty());
    r.run_to(ms(1000));
    assert_eq!(sent_at(&mut r), vec![(1000, 0)], "initial RTO 1 s (TCP_TIMEOUT_INIT)");
    r.run_to(ms(3000));
    assert_eq!(sent_at(&mut r), vec![(3000, 0)], "backed off to 2 s");
    // A fresh connection: 0 and 1 acked after 100 ms (one sample from the oldest, 100 ms):
    // RTO = 100 + max(2 x 100, 200) = 300 ms, re-armed at each ack.
    let mut r = Rig::one(&linux_tcp(""), linux_start(true));
    r.transfer(ms(0), 0, 10);
    r.sent();
    r.ack(ms(100), 0, 1);
    assert_eq!(r.sent_seqs(), vec![2, 3, 4, 5], "cwnd 2 + 2 acked: four leave");
    assert_eq!(r.block(0).linux_rtt().unwrap().rto_us(), 300_000);
    r.run_to(ms(399));
    assert!(r.sent().is_empty());
    r.run_to(ms(400));
    assert_eq!(sent_at(&mut r), vec![(400, 2)]);
}

#[test]
fn linux_slow_start_counts_segments_not_acks() {
    // One ack for two segments (a delayed ack) grows cwnd by two, as Linux's ABC.
    let mut r = Rig::one(&linux_tcp(r#", "window_init": 10"#), linux_start(true));
    r.transfer(ms(0), 0, 100);
    assert_eq!(r.sent().len(), 10);
    for (k, t) in (1..=5).zip([100u64, 107, 115, 122, 130]) {
        r.ack(ms(t), 0, 2 * k - 1);
    }
    assert_eq!(r.cwnd(0), 20.0, "IW 10 + 10 segments acked in 5 acks");
}

#[test]
fn linux_restart_after_idle_halves_per_rto_and_ssai_off_keeps_the_window() {
    let run = |ssai: bool| {
        let mut r = Rig::one(&linux_tcp(r#", "window_init": 4"#), linux_start(ssai));
        r.transfer(ms(0), 0, 12);
        r.sent();
        // Every segment acked one by one 100 ms later: cwnd 4 + 12 = 16; RTO 300 ms.
        for s in 0..12 {
            r.ack(ms(100 + 10 * s as u64), 0, s);
        }
        assert_eq!(r.cwnd(0), 16.0);
        r.sent();
        // 1 s idle after the last send (at 180 ms): 3 whole RTOs beyond the first -> 16 -> 8 -> 4.
        r.transfer(ms(1400), 0, 20);
        (r.cwnd(0), r.sent().len())
    };
    assert_eq!(run(true), (4.0, 4), "halved per RTO of idle, not below min(IW, cwnd) = 4");
    assert_eq!(run(false), (16.0, 16), "tcp_slow_start_after_idle = 0: the window carries over");
}
