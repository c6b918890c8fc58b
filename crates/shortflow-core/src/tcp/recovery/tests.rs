//! SACK recovery on the sender rig (`tcp::rig`): hand-built drop patterns, acks with
//! SACK blocks fed at given times, and exactly what leaves.

use crate::tcp::rig::{ms, tcp, Rig};
use crate::tcp::startup::{AnyStartup, Ns2};
use crate::time::SimTime;

/// NewReno base (no SYN, no limited transmit), SACK on, recovery `rec`, plus `extra`.
fn cfg(rec: &str, extra: &str) -> crate::config::TcpConfig {
    tcp(&format!(
        r#"{{"variant": "newreno", "syn": false, "delay_growth": false, "singledup": 0, "sack": true, "recovery": {rec}{extra}}}"#
    ))
}

fn rig(rec: &str, extra: &str) -> Rig {
    Rig::one(&cfg(rec, extra), AnyStartup::Ns2(Ns2))
}

fn sent_at(r: &mut Rig) -> Vec<(u64, i64)> {
    r.sent().iter().map(|s| (s.t_us / 1000, s.seq)).collect()
}

const RFC6675: &str = r#"{"kind": "rfc6675"}"#;
const RACK: &str = r#"{"kind": "rack_tlp"}"#;

#[test]
fn sack_never_resends_sacked_data_in_recovery_or_after_an_rto() {
    // 10 segments at once; 2 and 5 are lost.
    let mut r = rig(RFC6675, r#", "window_init": 10"#);
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), (0..10).collect::<Vec<_>>());
    r.ack(ms(100), 0, 0);
    r.ack(ms(100), 0, 1);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "nothing more to send");
    assert_eq!(r.cwnd(0), 12.0);
    r.ack_sack(ms(101), 0, 1, &[(3, 4)]);
    r.ack_sack(ms(101), 0, 1, &[(3, 5)]);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "two SACKed above 2: not yet lost");
    r.ack_sack(ms(102), 0, 1, &[(6, 7), (3, 5)]);
    // IsLost(2): three SACKed above. cwnd 12 -> 6, pipe 8 - 3 - 1 = 4: the fast
    // retransmit of 2, then NextSeg rule 3 (no new data) resends 5, the unSACKed hole
    // below the highest SACKed segment. Never 3, 4 or 6.
    assert_eq!(sent_at(&mut r), vec![(102, 2), (102, 5)]);
    assert_eq!((r.conn(0).ctr.sack_recoveries, r.conn(0).ctr.fast_retrans), (1, 2));
    r.ack_sack(ms(103), 0, 1, &[(7, 8), (6, 7), (3, 5)]);
    r.ack_sack(ms(103), 0, 1, &[(8, 9), (6, 8), (3, 5)]);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "9 is above every SACKed segment: no rule 3");
    // No more acks (both retransmissions lost too): the RTO fires; every unSACKed
    // segment is lost, the SACKed ones are not resent.
    let mut t = 103;
    while r.conn(0).ctr.timeouts == 0 {
        t += 1;
        r.run_to(ms(t));
    }
    let mut after = r.sent_seqs();
    assert_eq!(after, vec![2], "cwnd 1 after the RTO, lowest unSACKed first");
    // 2 arrives: 3, 4 follow cumulatively, 6..8 still SACKed; cwnd 2 sends 5 and 9.
    r.ack_sack(ms(t + 100), 0, 4, &[(6, 9)]);
    r.ack_sack(ms(t + 200), 0, 8, &[]);
    after.extend(r.sent_seqs());
    assert_eq!(after, vec![2, 5, 9], "never 3, 4, 6, 7, 8 again");
    let c = r.conn(0).ctr;
    assert_eq!((c.timeouts, c.retrans_segs, c.fast_retrans, c.sack_recoveries), (1, 5, 2, 1));
}

#[test]
fn rack_marks_a_segment_lost_one_reordering_window_after_a_later_delivery() {
    // 4 segments at 0 ms; 1 is missing; 0 delivered at 100 ms, 2 SACKed at 101 ms.
    let mut r = rig(RACK, r#", "window_init": 4"#);
    r.transfer(ms(0), 0, 4);
    r.sent();
    r.ack(ms(100), 0, 0);
    r.ack_sack(ms(101), 0, 0, &[(2, 3)]);
    // RACK.rtt = 101 ms (segment 2), min_rtt = 100 ms: reordering window 25 ms. Segment
    // 1 (sent at 0) is lost at 0 + 101 + 25 = 126 ms; Linux's reorder timer adds 2 ms.
    r.run_to(ms(127));
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "still within the reordering window");
    r.run_to(ms(128));
    assert_eq!(sent_at(&mut r), vec![(128, 1)], "lost one reordering window later");
    let c = r.conn(0).ctr;
    assert_eq!((c.sack_recoveries, c.fast_retrans, c.timeouts), (1, 1, 0));
}

#[test]
fn rack_with_dupthresh_sacks_marks_at_once() {
    let mut r = rig(RACK, r#", "window_init": 6"#);
    r.transfer(ms(0), 0, 6);
    r.sent();
    r.ack(ms(100), 0, 0);
    r.ack_sack(ms(101), 0, 0, &[(2, 3)]);
    r.ack_sack(ms(102), 0, 0, &[(2, 4)]);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    r.ack_sack(ms(103), 0, 0, &[(2, 5)]);
    assert_eq!(sent_at(&mut r), vec![(103, 1)], "three SACKed, no reordering seen: reo_wnd 0");
}

#[test]
fn a_lost_tail_is_repaired_by_one_probe_and_no_rto() {
    // 10 segments; the last is lost. Acks of 0..=8 at 100 ms.
    let mut r = rig(RACK, r#", "window_init": 10"#);
    r.transfer(ms(0), 0, 10);
    r.sent();
    for a in 0..9 {
        r.ack(ms(100), 0, a);
    }
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    let mut t = 100;
    while r.conn(0).ctr.loss_probes == 0 && t < 3000 {
        t += 1;
        r.run_to(ms(t));
    }
    let probes = sent_at(&mut r);
    assert_eq!(probes.len(), 1, "one probe: {probes:?}");
    assert_eq!(probes[0].1, 9, "no new data: the last segment again");
    // PTO = 2 SRTT + 200 ms (one segment outstanding), capped by the RTO.
    let srtt = r.block(0).srtt_s(&r.conn(0).params().rtt);
    let rto = r.block(0).rto_s(&r.conn(0).params().rtt);
    let pto_ms = (2.0 * srtt * 1000.0 + 200.0).min(rto * 1000.0);
    assert!((probes[0].0 as f64 - (100.0 + pto_ms)).abs() <= 1.0, "probe at {} ms, PTO {pto_ms} ms", probes[0].0);
    // The probe's ack ends the transfer; the RTO never fires.
    r.ack(ms(probes[0].0 + 100), 0, 9);
    r.run_to(ms(10_000));
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    let c = r.conn(0).ctr;
    assert_eq!((c.loss_probes, c.timeouts, c.retrans_segs, c.fast_retrans), (1, 0, 1, 0));
}

#[test]
fn a_probe_sends_new_data_when_there_is_some() {
    // cwnd 4 of a 10-segment transfer: 0..3 sent; all acks but 3's are lost...
    // nothing comes back: the probe sends new data (segment 4) beyond cwnd.
    let mut r = rig(RACK, r#", "window_init": 4"#);
    r.transfer(ms(0), 0, 10);
    r.sent();
    r.run_to(ms(1500));
    let s = sent_at(&mut r);
    // No RTT sample yet: PTO = 1 s (TCP_TIMEOUT_INIT), below the initial RTO (3 s).
    assert_eq!(s, vec![(1000, 4)]);
    assert_eq!(r.conn(0).ctr.loss_probes, 1);
}

#[test]
fn prr_sends_one_segment_per_two_delivered() {
    // RFC 6937's example shape: a window of 20 in congestion avoidance, one loss.
    let mut r = rig(r#"{"kind": "rfc6675", "prr": true}"#, r#", "window_init": 20, "ssthresh": 20, "window": 100"#);
    r.transfer(ms(0), 0, 100);
    assert_eq!(r.sent().len(), 20);
    // Segment 0 is lost; 1.. arrive, each acked with SACK blocks.
    let mut per_ack = Vec::new();
    for k in 1..=16i64 {
        r.ack_sack(ms(100 + k as u64), 0, -1, &[(1, k + 1)]);
        per_ack.push(r.sent_seqs());
    }
    // Before recovery (two dup acks) pipe falls by one per ack: one new segment each
    // (RFC 3042-like, from pipe). At the third SACK recovery starts: ssthresh 10,
    // RecoverFS 20; PRR sends ceil(delivered * 10 / 20) - sent: R, -, N, -, N, ...
    assert_eq!(per_ack[0], vec![20]);
    assert_eq!(per_ack[1], vec![21]);
    assert_eq!(per_ack[2], vec![0], "the fast retransmit");
    let counts: Vec<usize> = per_ack[3..].iter().map(|v| v.len()).collect();
    assert_eq!(counts, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(r.ssthresh(0), 10);
    // The ack of everything sent before recovery ends it with cwnd = ssthresh.
    let maxseq = r.conn(0).maxseq;
    r.ack(ms(200), 0, maxseq);
    assert_eq!(r.cwnd(0), 10.0, "cwnd = ssthresh (Linux tcp_end_cwnd_reduction)");
}

#[test]
fn dsack_is_counted_with_every_recovery_kind() {
    for rec in [RFC6675, RACK, r#"{"kind": "ns2"}"#] {
        let mut r = rig(rec, r#", "window_init": 4"#);
        r.transfer(ms(0), 0, 4);
        r.ack(ms(100), 0, 1);
        r.ack_sack(ms(101), 0, 1, &[(1, 2)]); // a duplicate of 1 arrived
        r.ack_sack(ms(102), 0, 1, &[(3, 4), (2, 4)]); // a duplicate of 3, inside (2, 4)
        let c = r.conn(0).ctr;
        assert_eq!((c.dsack_recv, c.dsack_ofo_recv), (1, 1), "{rec}: TCPDSACKRecv, TCPDSACKOfoRecv");
    }
}

#[test]
fn ns2_recovery_reports_fast_retransmits_and_timeouts() {
    // NewReno without SACK: segments 2 and 6 of 8 lost (the sender_tests fixture).
    let mut r = Rig::one(
        &tcp(r#"{"variant": "newreno", "syn": false, "delay_growth": false, "singledup": 0, "window_init": 8}"#),
        AnyStartup::Ns2(Ns2),
    );
    r.transfer(ms(0), 0, 8);
    r.sent();
    r.ack(ms(100), 0, 0);
    r.ack(ms(101), 0, 1);
    for t in 102..105 {
        r.ack(ms(t), 0, 1);
    }
    assert_eq!(r.sent_seqs()[0], 2, "fast retransmit");
    r.ack(ms(200), 0, 5); // partial ack: 6 resent at once
    assert!(r.sent_seqs().contains(&6));
    let c = r.conn(0).ctr;
    assert_eq!((c.fast_retrans, c.sack_recoveries, c.timeouts, c.loss_probes), (2, 0, 0, 0));
    assert_eq!(c.retrans_segs, 2);
    // Then nothing: the RTO fires for 7 (the window's tail was never acked).
    r.run_to(ms(5000));
    assert!(r.conn(0).ctr.timeouts >= 1);
}

#[test]
fn an_rto_whose_original_was_delivered_is_spurious() {
    let mut r = rig(RFC6675, r#", "window_init": 2"#);
    r.transfer(ms(0), 0, 2);
    r.sent();
    // No ack for 3 s: the RTO (3 s initially) fires and resends 0.
    r.run_to(ms(3001));
    assert_eq!(r.sent_seqs(), vec![0]);
    assert_eq!(r.conn(0).ctr.timeouts, 1);
    // The original's ack arrives, echoing its timestamp (0): spurious.
    r.ack_sack_ts(ms(3010), 0, 1, &[], SimTime::ZERO);
    assert_eq!(r.conn(0).ctr.spurious_rtos, 1);
}

/// With Linux's RTO (`rto.kind = "linux"`), the probe timeout is computed from Linux's
/// smoothed RTT in µs (`tcp_schedule_loss_probe`: 2 srtt + `TCP_TIMEOUT_MIN` with two
/// segments out), not from ns-2's coarse estimator the block also keeps.
#[test]
fn the_probe_timeout_reads_linux_srtt_with_the_linux_rto() {
    let mut r = rig(RACK, r#", "window_init": 10, "rto": {"kind": "linux"}"#);
    r.transfer(ms(0), 0, 10);
    r.sent();
    // Segments 0..=7 acked one by one at 100, 110, ..., 170 ms: RTT samples 100..170 ms.
    for a in 0..8 {
        r.ack(ms(100 + 10 * a as u64), 0, a);
    }
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    // srtt: 100, then += (m - srtt)/8 for m = 110..170: 127.49 ms. PTO = 2 srtt + 2 ms
    // = 256.98 ms after the last ack (below the RTO, srtt + 200 ms): the probe at 426.98 ms.
    let srtt = r.block(0).srtt_s(&r.conn(0).params().rtt);
    assert!((srtt * 1000.0 - 127.4887).abs() < 0.01, "Linux srtt {srtt}");
    r.run_to(ms(426));
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "not before 2 srtt + 2 ms");
    r.run_to(ms(427));
    assert_eq!(sent_at(&mut r), vec![(426, 9)], "the probe resends the last segment at 426.98 ms");
    assert_eq!(r.conn(0).ctr.loss_probes, 1);
}

/// Linux `tcp_xmit_retransmit_queue`: resending the first unacknowledged segment
/// restarts the RTO. Segments 1..=4 are lost; the probe (new segment 5, at 302 ms)
/// arms the RTO for 602 ms; its SACK comes back late (552 ms, a long queue), RACK marks
/// 1..=4 lost and recovery resends 1 at once. The RTO now runs from 552 ms, so the
/// ack of the retransmission at 702 ms arrives first: no timeout.
#[test]
fn resending_the_first_hole_restarts_the_rto() {
    let mut r = rig(RACK, r#", "window_init": 5, "rto": {"kind": "linux"}"#);
    r.transfer(ms(0), 0, 9);
    r.sent();
    // Segment 0 acked at 100 ms: srtt 100 ms, RTO 100 + 200 = 300 ms.
    r.ack(ms(100), 0, 0);
    assert_eq!(sent_at(&mut r), vec![(100, 5), (100, 6)], "slow start: the acked one and one more");
    // The probe sends new segment 7 at 300 ms: 2 srtt + 2 ms after the last send,
    // capped by what is left of the RTO of segment 1 (sent at 0; tcp_rto_delta_us).
    r.run_to(ms(302));
    assert_eq!(sent_at(&mut r), vec![(300, 7)]);
    // The SACK of 5..=7 arrives at 552 ms: 1..=4 are lost; recovery resends from 1
    // (PRR: ssthresh 3, pipe 0, three delivered: 1, 2, 3).
    r.ack_sack(ms(552), 0, 0, &[(5, 8)]);
    assert_eq!(sent_at(&mut r), vec![(552, 1), (552, 2), (552, 3)]);
    r.run_to(ms(700));
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "the RTO armed at the probe (600 ms) was restarted at 552 ms");
    r.ack_sack(ms(702), 0, 1, &[(5, 8)]);
    r.run_to(ms(800));
    let c = r.conn(0).ctr;
    assert_eq!((c.timeouts, c.loss_probes, c.sack_recoveries), (0, 1, 1));
}

const FRTO: &str = r#"{"kind": "rfc6675", "frto": true}"#;

/// F-RTO (RFC 5682 with SACK, Linux `sysctl_tcp_frto` = 2), a spurious RTO: the four
/// segments sent at 10 ms are only delayed. The RTO (Linux's initial 1 s) resends 0;
/// its ack releases new data (4, 5) instead of resending 1..=3; the ack of segment 1,
/// never retransmitted, then shows the RTO spurious: the cut is undone and 1..=3 are
/// never resent.
#[test]
fn frto_undoes_a_spurious_rto() {
    let mut r = rig(FRTO, r#", "window_init": 4, "rto": {"kind": "linux"}"#);
    r.transfer(ms(10), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1, 2, 3]);
    let ssthresh_before = r.ssthresh(0);
    r.run_to(ms(1100));
    assert_eq!(sent_at(&mut r), vec![(1010, 0)], "the RTO resends the first segment");
    assert_eq!((r.cwnd(0), r.conn(0).ctr.timeouts), (1.0, 1));
    // Step 2b: the first ack advancing the cumulative ack sends new data (cwnd 2).
    r.ack(ms(1110), 0, 0);
    assert_eq!(sent_at(&mut r), vec![(1110, 4), (1110, 5)], "new data, not segments 1..=3");
    // Step 3b: segment 1 (never retransmitted) is acked: the RTO was spurious.
    r.ack(ms(1120), 0, 1);
    let c = r.conn(0).ctr;
    assert_eq!((c.spurious_rtos, c.loss_undos, c.retrans_segs), (1, 1, 1));
    // Undone: cwnd = max(cwnd, 4 before the RTO), then this ack's slow-start growth;
    // ssthresh as before the RTO.
    assert_eq!((r.cwnd(0), r.ssthresh(0)), (5.0, ssthresh_before));
    assert_eq!(sent_at(&mut r), vec![(1120, 6)], "pipe 4 (2, 3, 4, 5) + 1: new data, no retransmission");
    r.ack(ms(1121), 0, 3);
    assert_eq!(r.sent_seqs(), vec![7, 8, 9]);
    assert_eq!(r.conn(0).ctr.retrans_segs, 1, "segments 1..=3 were never resent");
}

/// F-RTO, a real loss: segments 1..=3 are lost. After the RTO's retransmission of 0 and
/// its ack, new data 4 and 5 go out; their SACK (a duplicate ack) shows the loss real:
/// F-RTO ends and the lost segments are resent under the cut window, nothing undone.
#[test]
fn frto_keeps_the_cut_when_the_loss_was_real() {
    let mut r = rig(FRTO, r#", "window_init": 4, "rto": {"kind": "linux"}"#);
    r.transfer(ms(10), 0, 10);
    r.sent();
    r.run_to(ms(1100));
    assert_eq!(sent_at(&mut r), vec![(1010, 0)]);
    r.ack(ms(1110), 0, 0);
    assert_eq!(sent_at(&mut r), vec![(1110, 4), (1110, 5)]);
    r.ack_sack(ms(1120), 0, 0, &[(4, 5)]);
    assert_eq!(sent_at(&mut r), vec![(1120, 1)], "step 3a: the loss was real, 1 is resent");
    r.ack_sack(ms(1121), 0, 0, &[(4, 6)]);
    assert_eq!(sent_at(&mut r), vec![(1121, 2)]);
    let c = r.conn(0).ctr;
    assert_eq!((c.spurious_rtos, c.loss_undos, c.retrans_segs), (0, 0, 3));
    assert_eq!((r.cwnd(0), r.ssthresh(0)), (2.0, 2), "the RTO's cut stays");
}

/// With timestamps, an ack after the RTO echoing a timestamp older than the RTO's
/// retransmission undoes the cut at once (Linux `tcp_try_undo_loss(sk, false)`:
/// `TCPLossUndo`, not counted as a spurious RTO, which Linux counts for F-RTO only).
#[test]
fn an_ack_of_the_original_undoes_the_rto_with_timestamps() {
    let mut r = rig(FRTO, r#", "window_init": 4, "rto": {"kind": "linux"}, "timestamps": true"#);
    r.transfer(ms(10), 0, 10);
    r.sent();
    r.run_to(ms(1100));
    assert_eq!(sent_at(&mut r), vec![(1010, 0)]);
    r.ack_sack_ts(ms(1110), 0, 0, &[], ms(10));
    let c = r.conn(0).ctr;
    assert_eq!((c.spurious_rtos, c.loss_undos), (0, 1));
    assert_eq!(r.cwnd(0), 5.0, "cwnd back to 4 before the RTO, then slow start");
    assert_eq!(r.sent_seqs(), vec![4, 5], "pipe 3 (1..=3 in flight again) + 2: new data, no retransmission");
}

/// Without F-RTO nothing is undone (the ns-2-style count of a spurious RTO stays).
#[test]
fn without_frto_the_rto_cut_stays() {
    let mut r = rig(RFC6675, r#", "window_init": 4, "rto": {"kind": "linux"}"#);
    r.transfer(ms(10), 0, 10);
    r.sent();
    r.run_to(ms(1100));
    r.ack(ms(1110), 0, 0);
    assert_eq!(r.sent_seqs(), vec![0, 1, 2], "the RTO's 0, then the lost-marked 1 and 2");
    r.ack(ms(1120), 0, 1);
    assert_eq!(r.conn(0).ctr.loss_undos, 0);
    assert_eq!(r.ssthresh(0), 2);
}

/// RACK's reordering window grown by a DSACK (Linux `tcp_rack_update_reo_wnd`,
/// `recovery.dsack_reo_wnd`). Segment 1 arrives after 2 (reordering seen); segment 3
/// is delayed past RACK's window (0 + 106 + 25 ms), resent at 133 ms, and its
/// original arrives: the DSACK of the spurious retransmission (at 233 ms) is counted
/// and, with `dsack_reo_wnd`, doubles the window (min_rtt/4 x 2 = 50 ms). The next
/// hole (7, with 8 SACKed at 240 ms: RACK.rtt 240 ms) is marked lost at 0 + 240 + 50
/// (+ 2 ms timer slack) = 292 ms instead of 267 ms.
#[test]
fn a_dsack_widens_rack_reordering_window() {
    for (rec, lost_at) in [(RACK, 267), (r#"{"kind": "rack_tlp", "dsack_reo_wnd": true}"#, 292)] {
        let mut r = rig(rec, r#", "window_init": 10"#);
        r.transfer(ms(0), 0, 10);
        r.sent();
        r.ack(ms(100), 0, 0);
        r.ack_sack(ms(101), 0, 0, &[(2, 3)]);
        r.ack(ms(105), 0, 2); // 1 arrived after 2: reordering
        r.ack_sack(ms(106), 0, 2, &[(4, 5)]);
        r.run_to(ms(140));
        assert_eq!(sent_at(&mut r), vec![(133, 3)], "{rec}: 3 lost at 0 + 106 + 25 ms (+ 2)");
        r.ack(ms(141), 0, 5); // the original 3 arrives
        r.ack_sack(ms(233), 0, 6, &[(3, 4)]); // then the retransmission: DSACK
        assert_eq!(r.conn(0).ctr.dsack_recv, 1, "{rec}");
        r.ack_sack(ms(240), 0, 6, &[(8, 9)]);
        r.run_to(ms(400));
        assert_eq!(sent_at(&mut r), vec![(lost_at, 7)], "{rec}");
    }
}

/// Per-transfer counters: a connection carrying two transfers splits its counters at
/// the second's start (the first transfer's loss is not the second's).
#[test]
fn counters_are_split_per_transfer() {
    let mut r = rig(RACK, r#", "window_init": 4"#);
    r.transfer(ms(0), 0, 4);
    r.sent();
    // 1 is lost: 0 acked, 2 and 3 SACKed (three SACKed: RACK marks 1 at once).
    r.ack(ms(100), 0, 0);
    r.ack_sack(ms(101), 0, 0, &[(2, 3)]);
    r.ack_sack(ms(102), 0, 0, &[(2, 4)]);
    r.run_to(ms(140));
    assert!(r.sent_seqs().contains(&1), "1 resent");
    r.ack(ms(200), 0, 3);
    assert_eq!(r.shared.transfers[0].end.get(), Some(ms(200)));
    // The second transfer, loss-free.
    r.transfer(ms(2000), 0, 2);
    r.ack(ms(2100), 0, 4);
    r.ack(ms(2101), 0, 5);
    let (a, b) = (r.shared.transfers[0].ctr, r.shared.transfers[1].ctr);
    assert_eq!((a.retrans_segs, a.fast_retrans, a.sack_recoveries), (1, 1, 1));
    assert_eq!(b, crate::tcp::recovery::LossCounters::default(), "the second transfer had no loss");
    assert_eq!(r.conn(0).ctr.retrans_segs, 1, "the connection's counters hold both");
}

/// Linux `tcp_ack` runs `tcp_fastretrans_alert` (which ends recovery: cwnd = ssthresh,
/// state Open) before `tcp_cong_control`, so the ack that ends recovery also grows the
/// window, by the segments it newly delivers (`tcp_newly_delivered`: those SACKed
/// earlier were counted when SACKed, not again). Linux Reno, IW 4; segment 0 is lost.
#[test]
fn the_ack_ending_recovery_grows_the_window_by_what_it_delivers() {
    let mut r = rig(r#"{"kind": "rack_tlp", "prr": true}"#, r#", "window_init": 4, "cc": {"kind": "linux_reno"}"#);
    r.transfer(ms(0), 0, 20);
    assert_eq!(r.sent_seqs(), vec![0, 1, 2, 3]);
    // 1..=3 SACKed at 100 ms: three SACKed (DupThresh), reordering window 0: 0 is lost.
    // ssthresh max(4 / 2, 2) = 2; PRR: pipe 0, three delivered -> cwnd 2: the fast
    // retransmit of 0 and new segment 4.
    r.ack_sack(ms(100), 0, -1, &[(1, 4)]);
    assert_eq!(r.sent_seqs(), vec![0, 4]);
    assert_eq!(r.ssthresh(0), 2);
    // The retransmission's ack (cumulative 3) ends recovery: cwnd = ssthresh = 2, then
    // congestion avoidance counts the one segment delivered (0; 1..=3 were counted when
    // SACKed): snd_cwnd_cnt 1 of 2. Pipe 1 (segment 4): one new segment.
    r.ack(ms(200), 0, 3);
    assert_eq!(r.cwnd(0), 2.0);
    assert_eq!(r.sent_seqs(), vec![5]);
    // The next ack completes the count: cwnd 3 (without the exit ack's growth it would
    // stay 2 until one more ack), pipe 1: two new segments.
    r.ack(ms(300), 0, 4);
    assert_eq!(r.cwnd(0), 3.0);
    assert_eq!(r.sent_seqs(), vec![6, 7]);
}

/// Linux `tcp_rack_reo_timeout`: when the reorder timer marks a segment lost in the open
/// state, recovery starts and `tcp_cwnd_reduction(sk, 1, ...)` runs as if one segment
/// had been delivered, so PRR's forced fast retransmit (`prr_out` 0) sends the lost
/// segment at once although pipe is above the new ssthresh. Linux Reno, IW 8 of a
/// 20-segment transfer; segment 1 is lost, 0 is acked and 2 SACKed, then nothing.
#[test]
fn the_reorder_timer_retransmits_at_once_when_pipe_is_above_ssthresh() {
    let mut r = rig(r#"{"kind": "rack_tlp", "prr": true}"#, r#", "window_init": 8, "cc": {"kind": "linux_reno"}"#);
    r.transfer(ms(0), 0, 20);
    assert_eq!(r.sent_seqs(), (0..8).collect::<Vec<_>>());
    // Segment 0 acked at 100 ms: cwnd 9, pipe 7: 8 and 9 leave.
    r.ack(ms(100), 0, 0);
    assert_eq!(r.sent_seqs(), vec![8, 9]);
    // Segment 2 SACKed at 101 ms (RTT 101): one SACKed segment, below DupThresh, so
    // RACK waits min_rtt / 4 = 25 ms: 1 is lost at 0 + 101 + 25 = 126 ms, the timer
    // fires 2 ms later. Pipe 8 (3..=9) against cwnd 9: one new segment.
    r.ack_sack(ms(101), 0, 0, &[(2, 3)]);
    assert_eq!(r.sent_seqs(), vec![10]);
    r.run_to(ms(127));
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "still within the reordering window");
    // At 128 ms: 1 is lost, recovery starts with ssthresh max(9 / 2, 2) = 4 and pipe 8
    // (3..=10). PRR with one delivery credited: ceil(4 * 1 / 9) - 0 = 1 -> cwnd = pipe + 1:
    // the fast retransmit of 1 now, not at the next ack that delivers something.
    r.run_to(ms(128));
    assert_eq!(sent_at(&mut r), vec![(128, 1)]);
    assert_eq!((r.ssthresh(0), r.cwnd(0)), (4, 9.0));
    let c = r.conn(0).ctr;
    assert_eq!((c.sack_recoveries, c.fast_retrans, c.timeouts), (1, 1, 0));
    // Nothing more until an ack: PRR's proportional part, ceil(4 * 2 / 9) - 1 = 0 for the
    // next SACKed segment, 1 for the one after (ceil(4 * 3 / 9) - 1).
    r.ack_sack(ms(200), 0, 0, &[(2, 4)]);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    r.ack_sack(ms(201), 0, 0, &[(2, 5)]);
    assert_eq!(r.sent_seqs(), vec![11]);
}

/// Linux `tcp_enter_loss` cuts ssthresh only "if it has not yet been made inside this
/// window": an RTO during fast recovery keeps the recovery's ssthresh instead of halving
/// the window PRR has already shrunk (`SackRecovery::rto_cuts`); a backed-off RTO of the
/// same loss keeps it too. Set-up as in the reorder-timer test: recovery at 128 ms with
/// ssthresh 4; SACKs of 3..=9 shrink the window to 5 (halved: 2), then nothing arrives.
#[test]
fn an_rto_during_fast_recovery_keeps_the_recovery_ssthresh() {
    let mut r = rig(r#"{"kind": "rack_tlp", "prr": true}"#, r#", "window_init": 8, "cc": {"kind": "linux_reno"}"#);
    r.transfer(ms(0), 0, 20);
    r.ack(ms(100), 0, 0);
    r.ack_sack(ms(101), 0, 0, &[(2, 3)]);
    r.run_to(ms(128));
    r.ack_sack(ms(200), 0, 0, &[(2, 4)]);
    for (i, top) in (5..=10).enumerate() {
        r.ack_sack(ms(201 + i as u64), 0, 0, &[(2, top)]);
    }
    assert_eq!(r.ssthresh(0), 4);
    let cwnd_at_rto = r.cwnd(0);
    assert_eq!(cwnd_at_rto, 5.0, "PRR shrank the window: halving it would give 2");
    let mut t = 206;
    while r.conn(0).ctr.timeouts == 0 {
        t += 1;
        r.run_to(ms(t));
    }
    assert_eq!((r.cwnd(0), r.ssthresh(0)), (1.0, 4), "the RTO inside the recovery's window keeps ssthresh");
    while r.conn(0).ctr.timeouts == 1 {
        t += 1;
        r.run_to(ms(t));
    }
    assert_eq!((r.cwnd(0), r.ssthresh(0)), (1.0, 4), "so does the backed-off one");
}

// ---- the receiver's advertised window (a sink with a slow reader) on the SACK paths ----

/// The tail-loss probe sends a new segment only within the receiver's advertised
/// window (Linux `tcp_send_loss_probe`: `tcp_snd_wnd_test`); beyond it, the highest
/// segment sent goes again.
#[test]
fn a_probe_stays_within_the_receivers_window() {
    let mut r = rig(RACK, r#", "window_init": 4"#);
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1, 2, 3]);
    // Segment 0 acked with 3 segments of window: the receiver takes up to 0 + 3.
    r.ack_rwnd(ms(100), 0, 0, 3);
    assert_eq!(r.sent_seqs(), Vec::<i64>::new(), "cwnd 5 but the receiver's edge is 3");
    let mut t = 100;
    while r.conn(0).ctr.loss_probes == 0 && t < 5000 {
        t += 1;
        r.run_to(ms(t));
    }
    let s = sent_at(&mut r);
    assert_eq!(s.iter().map(|x| x.1).collect::<Vec<_>>(), vec![3], "the probe resends 3, not new segment 4: {s:?}");
    assert_eq!(r.conn(0).ctr.loss_probes, 1);
}

/// F-RTO's step 2b releases new data only if the receiver's window has room (Linux
/// `tcp_process_loss`: `after(tcp_wnd_end(tp), tp->snd_nxt)`); otherwise F-RTO ends and
/// the lost segments are resent. (Before the windows test was shared, step 2b ignored
/// the receiver's edge and `send_sack`'s "nothing new went out" fallback ended F-RTO
/// instead: the same segments.)
#[test]
fn frto_ends_when_the_receivers_window_is_closed() {
    let mut r = rig(FRTO, r#", "window_init": 4, "rto": {"kind": "linux"}"#);
    r.transfer(ms(10), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1, 2, 3]);
    r.run_to(ms(1100));
    assert_eq!(sent_at(&mut r), vec![(1010, 0)], "the RTO resends the first segment");
    // The ack of 0 advertises 3 segments: the edge is 3, every new segment is beyond it.
    r.ack_rwnd(ms(1110), 0, 0, 3);
    assert_eq!(sent_at(&mut r), vec![(1110, 1), (1110, 2)], "F-RTO ends: resend under cwnd 2, no new data");
    assert_eq!(r.conn(0).ctr.spurious_rtos, 0);
}

/// An RTO inside a window already reduced for an ECN echo: Linux is in CWR until
/// `high_seq` is acked, and `tcp_enter_loss` does not cut ssthresh again ("if it has not
/// yet been made inside this window"); the RTO is counted and backs off as any other.
/// (ns-2.35's `timeout` has its own rule for this case, `CLOSE_CWND_ONE` without
/// counting the timeout, which the ns-2 recoveries keep.)
#[test]
fn an_rto_inside_an_ecn_reduced_window_keeps_the_reduced_ssthresh() {
    let mut r =
        rig(r#"{"kind": "rack_tlp", "prr": true}"#, r#", "window_init": 8, "ecn": true, "cc": {"kind": "linux_reno"}"#);
    r.transfer(ms(0), 0, 40);
    r.ack(ms(100), 0, 0);
    r.ack_ecn(ms(101), 0, 1, true);
    assert_eq!(r.conn(0).necnresponses, 1, "the echo reduced the window");
    let reduced = r.ssthresh(0);
    assert!(reduced > 2, "the test needs a reduced ssthresh a second cut would change: {reduced}");
    let mut t = 101;
    while r.cwnd(0) > 1.0 && t < 10_000 {
        t += 1;
        r.run_to(ms(t));
    }
    assert_eq!(r.cwnd(0), 1.0, "the RTO fired");
    assert_eq!(r.ssthresh(0), reduced, "no second cut inside the ECN-reduced window");
    assert_eq!(r.conn(0).ctr.timeouts, 1, "counted as a timeout");
}
