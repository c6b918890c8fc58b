//! Sink tests in the style of smoltcp's socket tests: feed data segments at given
//! times, assert exactly which acks leave and when. [`SinkRig`] owns a sink wired to a
//! zero-delay, practically infinite-rate link back to the sender's node, so an ack
//! reaches the far end at the instant it is sent; nothing of the sender is involved.

use super::*;
use crate::config::SinkConfig;
use crate::engine::{Event, Scheduler};
use crate::net::link::{Link, LinkClass, Links};
use crate::net::queue::{AnyQueue, DropTail};
use crate::net::routing::Routes;
use crate::net::Network;
use crate::rng::Rng;
use crate::time::SimTime;
use crate::world::Shared;

/// An ack as it left the sink. Times in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AckOut {
    t_us: u64,
    ackno: i64,
    ecn_echo: bool,
    ect: bool,
    ts_echo_us: u64,
    /// The advertised window (segments) and whether the ack is a window update, for a
    /// sink with a reader.
    rwnd: Option<(u32, bool)>,
}

/// A sink at node 1 acking to agent 0 at node 0.
struct SinkRig {
    sched: Scheduler,
    net: Network,
    shared: Shared,
    sink: TcpSink,
    out: Vec<AckOut>,
}

fn us(t: u64) -> SimTime {
    SimTime::from_micros(t)
}

impl SinkRig {
    /// A rig whose sink is configured by the `SinkConfig` JSON `cfg`.
    fn new(cfg: &str) -> SinkRig {
        SinkRig::with_tcp(cfg, 1000, false)
    }

    /// A rig whose sender sends `seg_bytes` of payload per segment, with or without a
    /// SYN exchange (what a reader's buffer counts).
    fn with_tcp(cfg: &str, seg_bytes: u32, syn: bool) -> SinkRig {
        let cfg: SinkConfig = serde_json::from_str(cfg).expect("SinkConfig JSON");
        let params = SinkParams::from_config("sink", &cfg)
            .and_then(|p| p.with_tcp("sink", seg_bytes, syn))
            .expect("valid sink config");
        let link = Link::new(0, 0, AnyQueue::DropTail(DropTail::new(1000)));
        let routes = Routes::new(2, &[(1, 0)]);
        let net = Network::new(
            Links::from([(1, link)]),
            vec![LinkClass::new(1_000_000_000_000_000, SimTime::ZERO)],
            ["snd", "rcv"].into_iter().collect(),
            routes,
            Rng::new(1),
            None,
        );
        let mut sink = TcpSink::new(1, 0, 1, 0, 0, params);
        sink.first_link = 0;
        SinkRig { sched: Scheduler::new(), net, shared: Shared::default(), sink, out: Vec::new() }
    }

    /// Process every event up to and including `t`: sink timers fire, acks arrive.
    fn run_until(&mut self, t: SimTime) {
        while let Some(ev) = self.sched.pop(t) {
            match ev {
                Event::Arrive { pkt, .. } => {
                    let p = *self.net.pool.get(pkt);
                    assert_eq!((p.kind, p.dst, p.dst_agent, p.size), (PktKind::Ack, 0, 0, 40));
                    self.out.push(AckOut {
                        t_us: self.sched.now().as_nanos() / 1000,
                        ackno: p.seqno,
                        ecn_echo: p.ecn_echo,
                        ect: p.ect,
                        ts_echo_us: p.ts_echo.as_nanos() / 1000,
                        rwnd: self.net.pool.options(pkt).and_then(|o| o.rwnd).map(|w| (w.segs, w.update)),
                    });
                    self.net.pool.free(pkt);
                }
                Event::TxDone { link } => self.net.tx_done(&mut self.sched, link),
                Event::Timer { agent, timer, gen } => {
                    assert_eq!(agent, 1);
                    let mut cx = Ctx { sched: &mut self.sched, net: &mut self.net, shared: &mut self.shared };
                    self.sink.timer(&mut cx, timer, gen);
                }
                other => panic!("unexpected event {other:?}"),
            }
        }
        self.sched.advance_to(t);
    }

    /// Data segment `seq` (1040 bytes, sent at `t_us - 10 ms`) arrives at `t_us`,
    /// after every event due at or before then; `mark` sets its flags.
    fn seg_with(&mut self, t_us: u64, seq: i64, mark: impl FnOnce(&mut Packet)) -> &mut Self {
        self.run_until(us(t_us));
        let mut p = Packet::data(0, 1, 1, 1040, seq, us(t_us.saturating_sub(10_000)));
        mark(&mut p);
        let id = self.net.pool.alloc(p);
        let mut cx = Ctx { sched: &mut self.sched, net: &mut self.net, shared: &mut self.shared };
        self.sink.recv(&mut cx, id);
        self
    }

    fn seg(&mut self, t_us: u64, seq: i64) -> &mut Self {
        self.seg_with(t_us, seq, |_| {})
    }

    /// Run to `t_us` and return the (time in µs, ack number) of every ack so far.
    fn acks_until(&mut self, t_us: u64) -> Vec<(u64, i64)> {
        self.run_until(us(t_us));
        self.out.iter().map(|a| (a.t_us, a.ackno)).collect()
    }
}

#[test]
fn every_packet_acks_each_segment_at_once() {
    let mut r = SinkRig::new("{}");
    r.seg(0, 0).seg(10_000, 1).seg(20_000, 2);
    // Segment 3 is lost: 4 and 5 each draw a duplicate ack for 2; 3 then acks 5.
    r.seg(30_000, 4).seg(40_000, 5).seg(50_000, 3);
    assert_eq!(r.acks_until(1_000_000), vec![(0, 0), (10_000, 1), (20_000, 2), (30_000, 2), (40_000, 2), (50_000, 5)]);
    assert_eq!(r.sink.pkts_received, 6);
    assert_eq!(r.sink.bytes, 6 * 1040);
    assert!(r.out.iter().all(|a| !a.ect && !a.ecn_echo));
}

#[test]
fn delayed_ack_holds_one_segment_until_the_next_or_the_timer() {
    // ns-2 DelAck, interval 100 ms.
    let mut r = SinkRig::new(r#"{"delack": true}"#);
    r.seg(0, 0); // SYN: at once (SYN_immediate_ack_)
    r.seg(10_000, 1); // held, timer to 110 ms
    r.seg(15_000, 2); // second segment: ack 2 now, timer cancelled
    r.seg(20_000, 3); // held; nothing arrives: the timer acks it at 120 ms
    assert_eq!(r.acks_until(500_000), vec![(0, 0), (15_000, 2), (120_000, 3)]);
    // 4 is held; 5 is late: 6 draws an immediate (duplicate) ack that also covers the
    // held 4; 5 then moves the cumulative ack past itself to 6: not "the highest
    // in-order segment", so it is acked at once as well.
    r.seg(600_000, 4).seg(610_000, 6).seg(620_000, 5);
    assert_eq!(r.acks_until(2_000_000)[3..], [(610_000, 4), (620_000, 6)]);
    assert_eq!(r.out.len(), 5);
}

#[test]
fn delayed_ack_is_immediate_when_filling_a_hole_and_rfc2581() {
    // 2 and 3 lost, 4 arrives (dup ack 1); 2 arrives: cumulative ack 2 while 4 is
    // already there: a hole-filling segment, acked at once with RFC2581_immediate_ack_.
    let run = |rfc: bool| {
        let mut r = SinkRig::new(&format!(r#"{{"delack": true, "rfc2581_immediate_ack": {rfc}}}"#));
        r.seg(0, 0).seg(10_000, 1).seg(20_000, 4).seg(30_000, 2);
        r.acks_until(1_000_000)
    };
    assert_eq!(run(true), vec![(0, 0), (20_000, 1), (30_000, 2)]);
    // Without it the hole-filler is treated as any in-order segment: held 100 ms.
    assert_eq!(run(false), vec![(0, 0), (20_000, 1), (130_000, 2)]);
}

#[test]
fn every_d_acks_every_third_segment_and_flushes_on_the_timer() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "every_d", "d": 3, "interval_s": 0.05}}"#);
    r.seg(0, 0); // SYN at once
    r.seg(1_000, 1).seg(2_000, 2).seg(3_000, 3); // third in-order segment: ack 3
    r.seg(4_000, 4).seg(5_000, 5); // two held: the timer (armed at 4 ms) acks at 54 ms
    r.seg(100_000, 7); // out of order: at once
    r.seg(101_000, 8); // out of order: at once
    assert_eq!(r.acks_until(1_000_000), vec![(0, 0), (3_000, 3), (54_000, 5), (100_000, 5), (101_000, 5)]);
}

#[test]
fn every_d_with_d_1_is_every_packet_and_with_d_2_is_ns2_delack() {
    // Random arrival patterns (losses, reordering, duplicates, idle gaps): the ack
    // traces must be identical.
    let mut rng = Rng::for_source(11, "sink-rig");
    for case in 0..50 {
        let mut arrivals = Vec::new();
        let (mut t, mut next) = (0u64, 0i64);
        let mut late = Vec::new();
        for _ in 0..200 {
            t +=
                1 + (rng.uniform() * 150_000.0) as u64 * (rng.uniform() < 0.3) as u64 + (rng.uniform() * 3000.0) as u64;
            let u = rng.uniform();
            let s = if u < 0.1 && !late.is_empty() {
                late.remove(0)
            } else if u < 0.13 && next > 2 {
                next - 2
            } else {
                next += 1;
                if rng.uniform() < 0.08 {
                    late.push(next - 1);
                    continue;
                }
                next - 1
            };
            arrivals.push((t, s));
        }
        let trace = |cfg: &str| {
            let mut r = SinkRig::new(cfg);
            for &(t, s) in &arrivals {
                r.seg(t, s);
            }
            r.acks_until(t + 1_000_000)
        };
        assert_eq!(
            trace(r#"{"delack": true}"#),
            trace(r#"{"ack_policy": {"kind": "every_d", "d": 2}}"#),
            "case {case}"
        );
        assert_eq!(trace("{}"), trace(r#"{"ack_policy": {"kind": "every_d", "d": 1}}"#), "case {case}");
        assert_eq!(
            trace(r#"{"delack": true, "delack_interval_s": 0.2}"#),
            trace(r#"{"ack_policy": {"kind": "delayed", "interval_s": 0.2}}"#),
            "case {case}"
        );
    }
}

#[test]
fn ecn_echo_from_a_ce_mark_until_cwr() {
    let mut r = SinkRig::new("{}");
    let ect = |p: &mut Packet| p.ect = true;
    r.seg_with(0, 0, ect).seg_with(1_000, 1, ect);
    r.seg_with(2_000, 2, |p| {
        p.ect = true;
        p.ce = true;
    });
    r.seg_with(3_000, 3, ect).seg_with(4_000, 4, ect);
    // The sender reduced its window: CWR on segment 5 stops the echo.
    r.seg_with(5_000, 5, |p| {
        p.ect = true;
        p.cwr = true;
    });
    r.seg_with(6_000, 6, ect);
    // CE without ECT (a non-ECN packet cannot carry a mark): ignored.
    r.seg_with(7_000, 7, |p| p.ce = true);
    r.seg_with(8_000, 8, ect);
    r.run_until(us(1_000_000));
    let echo: Vec<bool> = r.out.iter().map(|a| a.ecn_echo).collect();
    assert_eq!(echo, vec![false, false, true, true, true, false, false, false, false]);
    assert!(r.out.iter().all(|a| !a.ect), "acks are not ECN-capable unless ect_acks");
}

#[test]
fn ecn_echo_with_delayed_acks_sees_the_held_segment() {
    // ns-2 looks at the held segment (save_) too: a CE mark on the held segment is
    // echoed by the ack the next segment triggers, and by the timer's ack.
    let mut r = SinkRig::new(r#"{"delack": true, "ect_acks": true}"#);
    let ect = |p: &mut Packet| p.ect = true;
    let ce = |p: &mut Packet| {
        p.ect = true;
        p.ce = true;
    };
    r.seg_with(0, 0, ect);
    r.seg_with(10_000, 1, ce).seg_with(11_000, 2, ect); // ack 2, echo
    r.seg_with(20_000, 3, |p| {
        p.ect = true;
        p.cwr = true;
    }); // held; the timer's ack at 120 ms: echo cleared
    r.seg_with(200_000, 4, ce); // held; the timer's ack at 300 ms echoes
    r.run_until(us(1_000_000));
    let got: Vec<(u64, i64, bool)> = r.out.iter().map(|a| (a.t_us, a.ackno, a.ecn_echo)).collect();
    assert_eq!(got, vec![(0, 0, false), (11_000, 2, true), (120_000, 3, false), (300_000, 4, true)]);
    assert!(r.out.iter().all(|a| a.ect), "ect_acks: every ack is ECN-capable");
}

#[test]
fn ts_echo_every_packet_echoes_each_segment() {
    let mut r = SinkRig::new("{}");
    r.seg(50_000, 0).seg(60_000, 1).seg(75_000, 2);
    r.run_until(us(1_000_000));
    let echo: Vec<u64> = r.out.iter().map(|a| a.ts_echo_us).collect();
    assert_eq!(echo, vec![40_000, 50_000, 65_000]); // each segment was sent 10 ms before
}

#[test]
fn ts_echo_with_delayed_acks_oldest_unacked_or_triggering_segment() {
    let run = |bugfix: bool| {
        let mut r = SinkRig::new(&format!(r#"{{"delack": true, "ts_echo_bugfix": {bugfix}}}"#));
        r.seg(50_000, 0); // ack 0 at once
        r.seg(60_000, 1).seg(70_000, 2); // ack 2 when 2 arrives
        r.seg(80_000, 3); // ack 3 by the timer at 180 ms
        r.run_until(us(1_000_000));
        r.out.iter().map(|a| (a.t_us, a.ackno, a.ts_echo_us)).collect::<Vec<_>>()
    };
    // ns-2.35 default (ts_echo_bugfix_): the oldest unacknowledged segment's timestamp.
    assert_eq!(run(true), vec![(50_000, 0, 40_000), (70_000, 2, 50_000), (180_000, 3, 70_000)]);
    // Without it: the timestamp of the segment that triggered the ack (the held one
    // when the timer fires).
    assert_eq!(run(false), vec![(50_000, 0, 40_000), (70_000, 2, 60_000), (180_000, 3, 70_000)]);
}

#[test]
fn sink_config_errors_name_the_field() {
    let cases = [
        (r#"{"ack_size": 0}"#, "flows[4].sink.ack_size", "0"),
        (r#"{"delack": true, "delack_interval_s": 0}"#, "flows[4].sink.delack_interval_s", "0"),
        (r#"{"delack": true, "ack_policy": {"kind": "every_packet"}}"#, "flows[4].sink.delack", "true"),
        (r#"{"ack_policy": {"kind": "every_d", "d": 0}}"#, "flows[4].sink.ack_policy.d", "0"),
        (
            r#"{"ack_policy": {"kind": "every_d", "d": 3, "interval_s": -1}}"#,
            "flows[4].sink.ack_policy.interval_s",
            "-1",
        ),
    ];
    for (json, field, value) in cases {
        let cfg: SinkConfig = serde_json::from_str(json).expect(json);
        let e = SinkParams::from_config("flows[4].sink", &cfg).expect_err(json);
        assert_eq!((e.field.as_str(), e.value.as_str()), (field, value), "{json}: {e}");
    }
    assert!(serde_json::from_str::<SinkConfig>(r#"{"ack_policy": {"kind": "every_d"}}"#).is_err(), "d is required");
}

// ---- ack congestion control (thesis ch. 9 ACC) ---------------------------------------

impl SinkRig {
    /// Segment `seq` at `t_us` echoing our ack timestamp `ts_echo_us`, with the
    /// sender's ECN echo `ece` and, if given, a tcp-asym header.
    fn seg_acc(
        &mut self,
        t_us: u64,
        seq: i64,
        ts_echo_us: u64,
        ece: bool,
        hdr: Option<crate::net::packet::AsymHeader>,
    ) -> &mut Self {
        self.run_until(us(t_us));
        let mut p = Packet::data(0, 1, 1, 1040, seq, us(t_us.saturating_sub(10_000)));
        p.ts_echo = us(ts_echo_us);
        p.ecn_echo = ece;
        let id = self.net.pool.alloc(p);
        if let Some(h) = hdr {
            self.net.pool.set_options(id, crate::net::packet::PktOptions { asym: Some(h), ..Default::default() });
        }
        let mut cx = Ctx { sched: &mut self.sched, net: &mut self.net, shared: &mut self.shared };
        self.sink.recv(&mut cx, id);
        self
    }

    fn acc(&self) -> &super::Acc {
        match &self.sink.policy {
            AckPolicy::Acc(a) => a,
            other => panic!("not ACC: {other:?}"),
        }
    }
}

#[test]
fn acc_d_doubles_on_marks_at_most_once_per_rtt_and_decays_without() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "acc", "d_init": 2, "d_max": 8}, "ect_acks": true}"#);
    r.seg_acc(0, 0, 0, false, None); // SYN at 0: acked at once; round-trip clocks start at 0
    assert_eq!(r.acc().d, 2);
    // The sender echoes a CE-marked ack; it has seen our ack of t = 0: an RTT has
    // passed since the clocks started -> d = 4. Marks within the same RTT (echoes of
    // acks sent before 20 ms) change nothing.
    r.seg_acc(20_000, 1, 0, true, None);
    assert_eq!(r.acc().d, 4);
    r.seg_acc(21_000, 2, 0, true, None).seg_acc(22_000, 3, 15_000, true, None);
    assert_eq!((r.acc().d, r.acc().increases), (4, 1));
    r.seg_acc(23_000, 4, 0, false, None); // fourth held segment: ack now
    assert_eq!(r.acks_until(23_000), vec![(0, 0), (23_000, 4)]);
    // A mark echoing an ack sent after 20 ms: the next RTT -> d = 8, then capped at d_max.
    r.seg_acc(40_000, 5, 23_000, true, None);
    assert_eq!(r.acc().d, 8);
    for (i, seq) in (6..=12).enumerate() {
        r.seg_acc(41_000 + i as u64 * 1000, seq, 23_000, false, None);
    }
    assert_eq!(r.acks_until(47_000).last(), Some(&(47_000, 12)), "8 segments per ack");
    r.seg_acc(60_000, 13, 45_000, true, None);
    assert_eq!((r.acc().d, r.acc().increases), (8, 3), "never above d_max");
    // Without marks: -1 once per RTT (echo past both the last increase and decrease).
    r.seg_acc(80_000, 14, 65_000, false, None);
    assert_eq!(r.acc().d, 7);
    r.seg_acc(81_000, 15, 66_000, false, None); // same RTT
    assert_eq!(r.acc().d, 7);
    let mut t = 100_000;
    for seq in 16..40 {
        r.seg_acc(t, seq, t - 10_000, false, None); // every segment echoes a fresh ack
        t += 20_000;
    }
    assert_eq!((r.acc().d, r.acc().decreases), (1, 7), "never below 1");
    // Every ack is ECN-capable, so an ECN-marking RED queue marks rather than drops it.
    assert!(r.out.iter().all(|a| a.ect));
}

#[test]
fn acc_acks_out_of_order_at_once_and_never_holds_half_the_senders_window() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "acc", "d_init": 8, "d_max": 8}}"#);
    // Echoes of nothing newer than the clocks' start (5 ms): d stays put.
    r.seg_acc(5_000, 0, 0, false, None).seg_acc(10_000, 1, 0, false, None);
    assert_eq!(r.acc().d, 8);
    // 3 is out of order: ack 1 at once (a duplicate), and the held 1 goes with it.
    r.seg_acc(11_000, 3, 0, false, None);
    assert_eq!(r.acks_until(11_000), vec![(5_000, 0), (11_000, 1)]);
    // 2 fills the hole: the cumulative ack jumps to 3; acked at once.
    r.seg_acc(12_000, 2, 0, false, None);
    assert_eq!(r.acks_until(12_000).last(), Some(&(12_000, 3)));
    // The sender (tcp-asym header) can send only 4 more after segment 4 is acked:
    // lim = min(d, 4 / 2) = 2, so every second segment is acked.
    let hdr = |seq: i64| crate::net::packet::AsymHeader { win: 0, highest_ack: seq - 4, max_left_to_send: 100 };
    for seq in 4..=9 {
        r.seg_acc(13_000 + (seq as u64 - 4) * 1000, seq, 0, false, Some(hdr(seq)));
    }
    assert_eq!(r.acks_until(20_000)[3..], [(14_000, 5), (16_000, 7), (18_000, 9)]);
    // A partial count is flushed by the 100 ms timer.
    r.seg_acc(30_000, 10, 0, false, None);
    assert_eq!(r.acks_until(200_000).last(), Some(&(130_000, 10)));
}

#[test]
fn acc_config_errors_name_the_field() {
    for (json, field, value) in [
        (r#"{"ack_policy": {"kind": "acc", "d_max": 0}}"#, "sink.ack_policy.d_max", "0"),
        (r#"{"ack_policy": {"kind": "acc", "d_init": 30, "d_max": 25}}"#, "sink.ack_policy.d_init", "30"),
        (r#"{"ack_policy": {"kind": "acc", "d_init": 0}}"#, "sink.ack_policy.d_init", "0"),
        (r#"{"ack_policy": {"kind": "acc", "interval_s": -1}}"#, "sink.ack_policy.interval_s", "-1"),
    ] {
        let cfg: SinkConfig = serde_json::from_str(json).unwrap();
        let e = SinkParams::from_config("sink", &cfg).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), (field, value), "{json}: {e}");
    }
}

/// Linux's rule on a fresh connection: the SYN at once; the first data segment 100 ms
/// later gives the receiver's RTT (100 ms, RTO 300 ms) and a quick-ack budget of
/// rcv_wnd / 2 = 10 / 2 = 5 segments (a 10-segment initial window: Linux before 4.19, or
/// a route's `initrwnd`); then every second segment, a lone segment held on the 40 ms
/// timer; out-of-order data and the filled hole at once.
#[test]
fn linux_quickacks_five_then_every_second_segment() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "linux", "init_rcv_wnd": 10}}"#);
    r.seg(0, 0);
    // Five quick acks, one per segment, even 1 ms apart.
    for k in 1..=5 {
        r.seg(100_000 + k as u64 * 1_000 - 1_000, k);
    }
    let AckPolicy::Linux(l) = &r.sink.policy else { panic!() };
    assert_eq!(l.quick(), 0, "the budget is spent");
    assert_eq!(l.ato(), SimTime::from_millis(40), "spending the last quick ack deflates ato");
    // 6 held (timer 40 ms), 7 acks 6 and 7 at once.
    r.seg(110_000, 6).seg(111_000, 7);
    // 8 alone: held on the timer. Its gap m = 10 ms <= ato_min/2 keeps
    // ato = ato/2 + ato_min/2 = 40 ms.
    r.seg(121_000, 8);
    let acks = r.acks_until(400_000);
    assert_eq!(
        acks,
        vec![(0, 0), (100_000, 1), (101_000, 2), (102_000, 3), (103_000, 4), (104_000, 5), (111_000, 7), (161_000, 8)]
    );
    // The timer fired: ato inflates to 80 ms (below the 300 ms RTO). Out of order: 10
    // then 11 at once (duplicate acks of 8); 9 fills the hole: at once.
    let AckPolicy::Linux(l) = &r.sink.policy else { panic!() };
    assert_eq!(l.ato(), SimTime::from_millis(80));
    r.seg(500_000, 10).seg(501_000, 11).seg(502_000, 9);
    assert_eq!(r.acks_until(900_000)[8..], [(500_000, 8), (501_000, 8), (502_000, 11)]);
}

/// The default (Linux since 4.19): the initial window is 44 segments (64 KB), so a fresh
/// connection quick-acks rcv_wnd / 2 = 22, capped at 16, segments; the 17th is the first
/// one held. With IW 10 this acks the 10th segment at once, where a budget of 5 held it
/// on the 40 ms timer.
#[test]
fn linux_quickacks_sixteen_on_a_fresh_connection_by_default() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "linux"}}"#);
    r.seg(0, 0);
    for k in 1..=17 {
        r.seg(100_000 + (k as u64 - 1) * 7_500, k);
    }
    let acks: Vec<i64> = r.acks_until(100_000 + 16 * 7_500).iter().map(|a| a.1).collect();
    assert_eq!(acks, (0..=16).collect::<Vec<i64>>(), "the SYN, then 16 quick acks; 17 is held");
    let AckPolicy::Linux(l) = &r.sink.policy else { panic!() };
    assert_eq!(l.quick(), 0, "the budget is spent");
}

/// After an idle period longer than the receiver's RTO the budget is refilled; by then
/// the advertised window has grown by two segments per segment received, so the budget
/// is the cap, 16 (tcp_incr_quickack after a 2 s gap, as before Linux's second
/// response on a kept-alive connection), even from a 10-segment initial window.
#[test]
fn linux_quickacks_again_after_idle_up_to_sixteen() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "linux", "init_rcv_wnd": 10}}"#);
    r.seg(0, 0);
    for k in 1..=20 {
        r.seg(100_000 + k as u64 * 7_500, k);
    }
    let before = r.acks_until(1_000_000).len();
    // 2 s later (RTO 300 ms): 16 segments acked one by one, the 17th held.
    for k in 21..=37 {
        r.seg(2_500_000 + (k as u64 - 21) * 7_500, k);
    }
    let acks = r.acks_until(2_500_000 + 16 * 7_500);
    let after: Vec<i64> = acks[before..].iter().map(|a| a.1).collect();
    assert_eq!(after, (21..=36).collect::<Vec<i64>>(), "16 quick acks, then 37 is held");
    // 37 (at 2.62 s) is held on the timer. A gap shorter than the RTO (180 ms < 300 ms)
    // does not refill the budget: 38 and 39 draw one ack.
    let n = r.acks_until(2_800_000).len();
    r.seg(2_800_000, 38).seg(2_810_000, 39);
    let acks = r.acks_until(3_600_000);
    assert_eq!(
        acks[n..].iter().map(|a| a.1).collect::<Vec<_>>(),
        vec![39],
        "38 and 39: one ack (every second segment)"
    );
}

/// A duplicate segment (a spurious retransmission) is acked at once and re-enters
/// quick-ack mode; ato adapts to the inter-arrival time.
#[test]
fn linux_duplicate_enters_quickack_and_ato_adapts() {
    let mut r = SinkRig::new(r#"{"ack_policy": {"kind": "linux", "init_rcv_wnd": 2}}"#);
    r.seg(0, 0);
    r.seg(100_000, 1); // budget max(2 / 2, ...) = 1: acked at once, budget spent
    r.seg(130_000, 2); // m = 30 ms < ato 40: ato = 20 + 30 = 50 ms; held 50 ms (srtt 100 ms bound)
    assert_eq!(r.acks_until(300_000), vec![(0, 0), (100_000, 1), (180_000, 2)]);
    r.seg(300_000, 2); // duplicate: at once, quick mode again
    r.seg(301_000, 3); // quick-acked
    assert_eq!(r.acks_until(400_000)[3..], [(300_000, 2), (301_000, 3)]);
}

#[test]
fn linux_ack_rule_rejects_bad_values_naming_the_field() {
    for (cfg, field) in [
        (r#"{"kind": "linux", "ato_min_s": 0}"#, "sink.ack_policy.ato_min_s"),
        (r#"{"kind": "linux", "ato_min_s": 0.05, "delack_max_s": 0.01}"#, "sink.ack_policy.delack_max_s"),
        (r#"{"kind": "linux", "quickacks_max": 0}"#, "sink.ack_policy.quickacks_max"),
        (r#"{"kind": "linux", "init_rcv_wnd": 0}"#, "sink.ack_policy.init_rcv_wnd"),
        (r#"{"kind": "linux", "rto_min_s": -1}"#, "sink.ack_policy.rto_min_s"),
    ] {
        let c: SinkConfig = serde_json::from_str(&format!(r#"{{"ack_policy": {cfg}}}"#)).unwrap();
        let e = SinkParams::from_config("sink", &c).unwrap_err();
        assert_eq!(e.field, field, "{e}");
    }
}

// ---- a slowly reading application (sink.reader) ---------------------------------------

impl SinkRig {
    /// (time in µs, ack number, window, update) of every ack so far.
    fn windows_until(&mut self, t_us: u64) -> Vec<(u64, i64, u32, bool)> {
        self.run_until(us(t_us));
        self.out
            .iter()
            .map(|a| {
                let (w, u) = a.rwnd.expect("a reader's acks carry a window");
                (a.t_us, a.ackno, w, u)
            })
            .collect()
    }
}

#[test]
fn reader_advertises_the_free_buffer_and_updates_when_the_window_doubles() {
    // 4 segments of buffer, read at 1000 B/s; the SYN takes no room.
    let mut r = SinkRig::with_tcp(r#"{"reader": {"buffer_bytes": 4000, "rate_bps": 8000}}"#, 1000, true);
    r.seg(0, 0).seg(10_000, 1).seg(20_000, 2).seg(30_000, 3).seg(40_000, 4);
    // unread after each arrival: 1000, 1990, 2980, 3970 B: windows 3, 2, 1, 0; the
    // right edge (ack + window) stays at 4.
    let head = r.windows_until(40_000);
    assert_eq!(
        head,
        vec![
            (0, 0, 4, false),
            (10_000, 1, 3, false),
            (20_000, 2, 2, false),
            (30_000, 3, 1, false),
            (40_000, 4, 0, false)
        ]
    );
    // Window updates: to 1 segment once 970 B more are read (1.01 s), then each time
    // the window can double what is left of the last one: 2 at 2.01 s, 4 at 4.01 s
    // (the whole buffer), then none.
    let ups = r.windows_until(20_000_000)[5..].to_vec();
    assert_eq!(ups, vec![(1_010_000, 4, 1, true), (2_010_000, 4, 2, true), (4_010_000, 4, 4, true)]);
    let rd = r.sink.reader().unwrap();
    assert!(
        (rd.read_bytes - 4000.0).abs() < 1e-6 && rd.unread().abs() < 1e-6,
        "all read: {} {}",
        rd.read_bytes,
        rd.unread()
    );
}

#[test]
fn reader_right_edge_never_moves_back_and_new_data_replaces_updates() {
    // Data keeps coming at exactly the read rate after a burst: the edge only grows.
    let mut r = SinkRig::with_tcp(r#"{"reader": {"buffer_bytes": 3000, "rate_bps": 8000}}"#, 1000, false);
    let mut t = 0;
    for seq in 0..12 {
        r.seg(t, seq);
        t += if seq < 3 { 1_000 } else { 1_000_000 };
    }
    let w = r.windows_until(t);
    let edges: Vec<i64> = w.iter().map(|&(_, a, win, _)| a + win as i64).collect();
    assert!(edges.windows(2).all(|e| e[1] >= e[0]), "{w:?}");
    // Without a SYN, segment 0 is data: three segments fill the buffer at once.
    assert_eq!(w[2].2, 0, "{w:?}");
    // Every window the receiver gives is used by a data arrival or read within 1 s:
    // never more than one update per second of reading.
    let updates = w.iter().filter(|x| x.3).count();
    assert!(updates <= 12, "{w:?}");
}

#[test]
fn reader_throttles_only_from_its_start_time() {
    // Before 1 s the application reads on arrival: the full 2-segment window on every
    // ack; from 1 s it reads 1000 B/s.
    let mut r =
        SinkRig::with_tcp(r#"{"reader": {"buffer_bytes": 2000, "rate_bps": 8000, "start_s": 1.0}}"#, 1000, false);
    r.seg(0, 0).seg(500_000, 1).seg(999_000, 2).seg(1_000_000, 3).seg(1_100_000, 4);
    let w = r.windows_until(1_100_000);
    assert_eq!(
        w,
        vec![
            (0, 0, 2, false),
            (500_000, 1, 2, false),
            (999_000, 2, 2, false),
            (1_000_000, 3, 1, false),
            (1_100_000, 4, 0, false)
        ]
    );
    // unread at 1.1 s: 2000 - 100 = 1900 B: one segment free after 0.9 s more.
    assert_eq!(r.windows_until(5_000_000)[5..6], [(2_000_000, 4, 1, true)]);
}

#[test]
fn reader_config_errors_name_the_field() {
    let bad = |json: &str, seg: u32| {
        let cfg: SinkConfig = serde_json::from_str(json).unwrap();
        SinkParams::from_config("flows[1].sink", &cfg)
            .and_then(|p| p.with_tcp("flows[1].sink", seg, true))
            .unwrap_err()
            .to_string()
    };
    let e = bad(r#"{"reader": {"buffer_bytes": 8000, "rate_bps": 0}}"#, 1000);
    assert!(e.contains("flows[1].sink.reader.rate_bps"), "{e}");
    let e = bad(r#"{"reader": {"buffer_bytes": 0, "rate_bps": 8000}}"#, 1000);
    assert!(e.contains("flows[1].sink.reader.buffer_bytes"), "{e}");
    let e = bad(r#"{"reader": {"buffer_bytes": 999, "rate_bps": 8000}}"#, 1000);
    assert!(e.contains("flows[1].sink.reader.buffer_bytes") && e.contains("one segment"), "{e}");
    let e = bad(r#"{"reader": {"buffer_bytes": 8000, "rate_bps": 8000, "start_s": -1}}"#, 1000);
    assert!(e.contains("flows[1].sink.reader.start_s"), "{e}");
    assert!(serde_json::from_str::<SinkConfig>(r#"{"reader": {"buffer_bytes": 8000, "rate": 8000}}"#).is_err());
}

/// One FTP connection over a 10 Mb/s, 2 x 50 ms path to a sink whose application
/// reads `rate_bps` from a `buffer`-byte buffer (None: no reader).
fn throttled_run(reader: Option<(u64, f64)>, delack: bool) -> crate::results::RunResults {
    let sink = match reader {
        Some((b, r)) => format!(r#"{{"delack": {delack}, "reader": {{"buffer_bytes": {b}, "rate_bps": {r}}}}}"#),
        None => format!(r#"{{"delack": {delack}}}"#),
    };
    let text = format!(
        r#"{{"seed": 1, "duration_s": 20.0, "nodes": ["s", "r1", "r2", "d"],
            "links": [{{"src": "s", "dst": "r1", "rate_bps": 1e8, "delay_s": 0.001}},
                      {{"src": "r1", "dst": "r2", "rate_bps": 1e7, "delay_s": 0.048, "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}},
                      {{"src": "r2", "dst": "d", "rate_bps": 1e8, "delay_s": 0.001}}],
            "flows": [{{"name": "c", "src": "s", "dst": "d", "tcp": {{"window": 32, "packet_size": 1000, "syn": true}}, "sink": {sink}}}],
            "apps": [{{"kind": "ftp", "flow": "c"}}]}}"#
    );
    let cfg: crate::config::SimConfig = serde_json::from_str(&text).unwrap();
    crate::run(&cfg).unwrap()
}

#[test]
fn a_slow_reader_limits_the_sender_to_its_read_rate_without_false_recovery() {
    // 80 kb/s of reading against a 32-segment window on a 10 Mb/s path (2.6 Mb/s).
    for delack in [false, true] {
        let free = throttled_run(None, delack);
        let slow = throttled_run(Some((8000, 80_000.0)), delack);
        let acked = |r: &crate::results::RunResults| r.flows.bytes_acked[0] as f64;
        // In 20 s: 8 KB of buffer plus at most 20 s x 10 KB/s read.
        let (lo, hi) = (0.95 * 20.0 * 10_000.0, 8000.0 + 20.0 * 10_000.0 + 2000.0);
        assert!(acked(&slow) >= lo && acked(&slow) <= hi, "delack {delack}: {} B acked", acked(&slow));
        assert!(acked(&free) > 10.0 * acked(&slow), "unthrottled {} B", acked(&free));
        // Window updates are not duplicate acks; nothing is lost on this path.
        assert_eq!(slow.flows.retransmits[0], 0, "delack {delack}");
        assert_eq!(slow.flows.timeouts[0], 0, "delack {delack}");
    }
}
