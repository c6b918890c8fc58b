//! The sender's socket buffer (`tcp.sndbuf`, thesis §7.1.2.2) on the rig: the
//! application's data enters the sender only while unacknowledged + unsent data fit in
//! the buffer, and blocked writes move in as acks free room.

use super::rig::{ms, tcp, Rig};
use crate::tcp::startup::{AnyStartup, Ns2};
use crate::world::Notice;

/// NewReno, no SYN, IW 2, 1000-byte segments, window 20; `extra` adds JSON members.
fn cfg(extra: &str) -> crate::config::TcpConfig {
    tcp(&format!(
        r#"{{"variant": "newreno", "syn": false, "delay_growth": false, "singledup": 0, "window_init": 2{extra}}}"#
    ))
}

/// Unacknowledged + unsent data segments of connection 0, checked against the cap.
fn used(r: &Rig, cap: i64) -> i64 {
    let c = r.conn(0);
    let u = c.sndbuf_used().expect("a socket buffer");
    assert!((0..=cap).contains(&u), "buffer holds {u} segments, cap {cap}");
    assert_eq!(u, c.curseq - (c.highest_ack + 1), "the buffer is exactly what the sender has and has not had acked");
    assert_eq!(c.sndbuf_room(), Some(cap - u));
    u
}

#[test]
fn the_buffer_never_holds_more_than_sndbuf() {
    // 4 segments of buffer, a 10-segment write: the window would allow more from the
    // third ack on, the buffer does not.
    let mut r = Rig::one(&cfg(r#", "sndbuf": 4999"#), AnyStartup::Ns2(Ns2));
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1], "IW 2");
    assert_eq!(used(&r, 4), 4, "the first 4 segments are in the buffer");
    assert_eq!(r.conn(0).blocked(), 6, "the rest of the write waits");
    let mut sent = vec![0, 1];
    for k in 0..10 {
        r.ack(ms(100 * (k as u64 + 1)), 0, k);
        let s = r.sent_seqs();
        for &q in &s {
            assert!(q <= k + 4, "segment {q} sent with ack {k}: beyond the buffer (ack + 4)");
        }
        sent.extend(s);
        used(&r, 4);
    }
    assert_eq!(sent, (0..10).collect::<Vec<_>>(), "every segment once, in order");
    assert_eq!(r.conn(0).blocked(), 0);
    assert_eq!(used(&r, 4), 0);
    // The transfer is done once its last segment (9, not the buffer's first 4) is acked.
    assert!(r.shared.transfers[0].end.is_some());
}

#[test]
fn writes_resume_as_acks_free_room() {
    let mut r = Rig::one(&cfg(r#", "sndbuf": 4000"#), AnyStartup::Ns2(Ns2));
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.sent_seqs(), vec![0, 1]);
    r.ack(ms(100), 0, 0);
    assert_eq!(r.sent_seqs(), vec![2, 3], "cwnd 3: ack 0 frees one segment of room (4 in the buffer)");
    r.ack(ms(100), 0, 1);
    assert_eq!(r.sent_seqs(), vec![4, 5]);
    // cwnd 5 would allow 6 and 7; the buffer holds 3..=6.
    r.ack(ms(200), 0, 2);
    assert_eq!(r.sent_seqs(), vec![6], "one acked segment frees room for one");
    assert_eq!(r.conn(0).blocked(), 3);
    // No ack, no room: a long wait sends nothing new (the RTO resends 3 at most).
    r.run_to(ms(250));
    assert_eq!(r.sent_seqs(), Vec::<i64>::new());
    // Two acked segments free room for two.
    r.ack(ms(300), 0, 4);
    assert_eq!(r.sent_seqs(), vec![7, 8]);
    assert_eq!(r.conn(0).blocked(), 1);
}

#[test]
fn a_buffer_larger_than_the_data_changes_nothing() {
    // The same acks, with a loss (segment 5) and its recovery, against a sender without
    // a buffer: the same segments at the same times.
    let run = |extra: &str| {
        let mut r = Rig::one(&cfg(extra), AnyStartup::Ns2(Ns2));
        r.transfer(ms(0), 0, 40);
        let mut out = r.sent();
        let acks: [i64; 16] = [0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 12, 13, 14, 15, 16, 17];
        for (i, &a) in acks.iter().enumerate() {
            r.ack(ms(100 + 10 * i as u64), 0, a);
            out.extend(r.sent());
        }
        r.run_to(ms(5000));
        out.extend(r.sent());
        out
    };
    let plain = run("");
    assert!(plain.len() > 20, "{plain:?}");
    assert_eq!(run(r#", "sndbuf": 1000000"#), plain);
}

#[test]
fn a_watching_application_hears_of_freed_room() {
    let mut r = Rig::one(&cfg(r#", "sndbuf": 3000"#), AnyStartup::Ns2(Ns2));
    r.write(ms(0), 0, 3);
    assert_eq!(r.sent_seqs(), vec![0, 1]);
    assert_eq!(r.conn(0).sndbuf_room(), Some(0));
    // Not watching: no notice.
    r.ack(ms(100), 0, 0);
    assert!(r.shared.notices.is_empty());
    r.senders.conns[0].watch_sndbuf(true);
    r.ack(ms(200), 0, 1);
    assert_eq!(r.shared.notices, vec![Notice::Writable { flow: 0 }]);
    assert_eq!(r.conn(0).sndbuf_room(), Some(2));
    // A duplicate ack frees nothing.
    r.shared.notices.clear();
    r.ack(ms(210), 0, 1);
    assert!(r.shared.notices.is_empty());
}

#[test]
fn closing_drops_blocked_writes() {
    let mut r = Rig::one(&cfg(r#", "sndbuf": 2000"#), AnyStartup::Ns2(Ns2));
    r.transfer(ms(0), 0, 10);
    assert_eq!(r.conn(0).blocked(), 8);
    r.close(ms(50), 0);
    assert_eq!(r.conn(0).blocked(), 0);
    r.ack(ms(100), 0, 1);
    r.run_to(ms(10_000));
    assert_eq!(r.sent_seqs(), vec![0, 1], "nothing after the close");
}

#[test]
fn a_buffer_smaller_than_a_segment_is_an_error() {
    let e =
        crate::tcp::sender::TcpParams::from_config("flows[0].tcp", &cfg(r#", "sndbuf": 999"#)).unwrap_err().to_string();
    assert!(e.contains("flows[0].tcp.sndbuf") && e.contains("999") && e.contains("at least one segment"), "{e}");
}
