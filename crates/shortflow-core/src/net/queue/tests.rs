//! Queue tests on a real link: packets are offered at given times, and the tests
//! assert exactly which packets leave the far end and when, and which are dropped.
//! [`LinkRig`] is one link (node 0 -> node 1, 8 Mb/s: a 1000-byte packet takes 1 ms,
//! a 40-byte ack 40 µs; no propagation delay) with the queue under test, traced.

use super::*;
use crate::config::QueueConfig;
use crate::engine::{Event, Scheduler};
use crate::net::link::{Link, LinkClass, Links};
use crate::net::packet::{Packet, PktKind};
use crate::net::routing::Routes;
use crate::net::{Arrival, Network};
use crate::results::PacketTrace;

struct LinkRig {
    sched: Scheduler,
    net: Network,
    /// (arrival time at node 1 in µs, label) of every delivered packet.
    out: Vec<(u64, String)>,
}

/// `D3` = data segment 3 of flow 0, `A7/1` = ack 7 of flow 1, `*` = low priority.
fn label(p: &Packet) -> String {
    let k = match p.kind {
        PktKind::Data => "D",
        PktKind::Ack => "A",
        PktKind::Udp => "U",
    };
    let flow = if p.flow > 0 { format!("/{}", p.flow) } else { String::new() };
    format!("{k}{}{flow}{}", p.seqno, if p.low_prio { "*" } else { "" })
}

fn data(seq: i64) -> Packet {
    Packet::data(0, 1, 0, 1000, seq, SimTime::ZERO)
}
fn low(seq: i64) -> Packet {
    let mut p = data(seq);
    p.low_prio = true;
    p
}
fn ack(flow: u32, n: i64) -> Packet {
    Packet::ack(flow, 1, 0, 40, n, SimTime::ZERO)
}

impl LinkRig {
    fn new(queue: &str) -> LinkRig {
        let cfg: QueueConfig = serde_json::from_str(queue).expect("QueueConfig JSON");
        let q = build("links[0].queue", &cfg, 8e6, 0.0).expect("valid queue");
        let mut links = Links::from([(0, Link::new(1, 0, q))]);
        links.set_traced(0, true);
        let routes = Routes::new(2, &[(0, 1)]);
        let net = Network::new(
            links,
            vec![LinkClass::new(8_000_000, SimTime::ZERO)],
            ["a", "b"].into_iter().collect(),
            routes,
            Rng::new(1),
            Some(PacketTrace::default()),
        );
        LinkRig { sched: Scheduler::new(), net, out: Vec::new() }
    }

    fn run_until(&mut self, t_us: u64) {
        let t = SimTime::from_micros(t_us);
        while let Some(ev) = self.sched.pop(t) {
            match ev {
                Event::Arrive { link, pkt } => match self.net.arrive(&mut self.sched, link, pkt) {
                    Arrival::Deliver { pkt, .. } => {
                        let p = *self.net.pool.get(pkt);
                        self.out.push((self.sched.now().as_nanos() / 1000, label(&p)));
                        self.net.pool.free(pkt);
                    }
                    Arrival::Forwarded | Arrival::Consumed => panic!("node 1 is the destination, without elements"),
                },
                Event::TxDone { link } => self.net.tx_done(&mut self.sched, link),
                other => panic!("unexpected event {other:?}"),
            }
        }
        self.sched.advance_to(t);
    }

    /// Offer packets to the link at `t_us`, in order.
    fn offer(&mut self, t_us: u64, pkts: &[Packet]) -> &mut Self {
        self.run_until(t_us);
        for &p in pkts {
            let id = self.net.pool.alloc(p);
            self.net.send_from(&mut self.sched, 0, id);
        }
        self
    }

    /// Run to the end; (delivery time µs, label) of every packet that left.
    fn delivered(&mut self) -> Vec<(u64, &str)> {
        self.run_until(10_000_000);
        assert_eq!(self.net.pool.live(), 0, "every packet delivered or freed");
        self.out.iter().map(|(t, l)| (*t, l.as_str())).collect()
    }

    /// Labels of the dropped packets, in drop order (from the link's packet trace).
    fn dropped(&self) -> Vec<String> {
        let t = self.net.trace.as_ref().unwrap();
        let mut labels = Vec::new();
        for i in 0..t.event.len() {
            if t.event[i] == b'd' {
                let k = if t.kind[i] == PktKind::Ack.code() { "A" } else { "D" };
                let flow = if t.flow[i] > 0 { format!("/{}", t.flow[i]) } else { String::new() };
                labels.push(format!("{k}{}{flow}{}", t.seqno[i], if t.low_prio[i] { "*" } else { "" }));
            }
        }
        assert_eq!(labels.len() as u64, self.net.links.drops(0));
        labels
    }
}

// ---- victim rules under DropTail ---------------------------------------------------

#[test]
fn droptail_tail_drops_the_arrival() {
    // limit 3: one on the wire, two waiting.
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "limit_pkts": 3}"#);
    r.offer(0, &[data(0), data(1), data(2), data(3), data(4)]);
    assert_eq!(r.delivered(), vec![(1000, "D0"), (2000, "D1"), (3000, "D2")]);
    assert_eq!(r.dropped(), ["D3", "D4"]);
}

#[test]
fn droptail_front_drops_the_head_as_ns2_drop_front() {
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "limit_pkts": 3, "victim": "front"}"#);
    r.offer(0, &[data(0), data(1), data(2), data(3), data(4)]);
    assert_eq!(r.delivered(), vec![(1000, "D0"), (2000, "D3"), (3000, "D4")]);
    assert_eq!(r.dropped(), ["D1", "D2"]);
}

#[test]
fn droptail_random_draws_one_uniform_over_queue_and_arrival() {
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "limit_pkts": 3, "victim": "random"}"#);
    r.offer(0, &[data(0), data(1), data(2), data(3), data(4)]);
    // The queue stream of the rig is Rng::new(1): replay its draws.
    let mut rng = Rng::new(1);
    let mut q = vec!["D1", "D2"];
    let mut want_drops = Vec::new();
    for arrival in ["D3", "D4"] {
        q.push(arrival);
        let i = ((rng.uniform() * 3.0) as usize).min(2);
        want_drops.push(q.remove(i));
    }
    let mut want = vec![(1000, "D0")];
    want.extend(q.iter().enumerate().map(|(k, l)| (2000 + 1000 * k as u64, *l)));
    assert_eq!(r.delivered(), want);
    assert_eq!(r.dropped(), want_drops);
}

#[test]
fn droptail_low_priority_first_and_the_drop_priority_alias() {
    for cfg in [
        r#"{"kind": "drop_tail", "limit_pkts": 5, "victim": "low_priority_first"}"#,
        r#"{"kind": "drop_priority", "limit_pkts": 5}"#,
    ] {
        let mut r = LinkRig::new(cfg);
        // On the wire: D0. Waiting: D1, D2*, D3*, D4 (full). A normal arrival evicts the
        // tail-most low-priority packet (D3*); a low-priority arrival is itself the
        // tail-most (D6*); with none left, tail drop.
        r.offer(0, &[data(0), data(1), low(2), low(3), data(4), data(5), low(6), data(7), data(8)]);
        assert_eq!(r.delivered(), vec![(1000, "D0"), (2000, "D1"), (3000, "D4"), (4000, "D5"), (5000, "D7")], "{cfg}");
        assert_eq!(r.dropped(), ["D3*", "D6*", "D2*", "D8"], "{cfg}");
    }
}

// ---- victim rules under RED ---------------------------------------------------------

/// RED in packet mode with thresholds far above the buffer: only overflow (forced)
/// drops happen; `limit_pkts` 3 packets may wait.
fn red(victim: &str) -> String {
    format!(
        r#"{{"kind": "red", "limit_pkts": 3, "queue_in_bytes": false, "bytes": false,
            "thresh": 100, "maxthresh": 200 {victim}}}"#
    )
}

#[test]
fn red_forced_drop_victims() {
    let arrivals = [data(0), data(1), low(2), data(3), data(4)];
    let run = |v: &str| {
        let mut r = LinkRig::new(&red(v));
        r.offer(0, &arrivals);
        let d = r.delivered().into_iter().map(|(t, l)| (t, l.to_string())).collect::<Vec<_>>();
        (d, r.dropped())
    };
    let d = |v: &[(u64, &str)]| v.iter().map(|&(t, l)| (t, l.to_string())).collect::<Vec<_>>();
    // Waiting D1 D2* D3 when D4 arrives (qlen 3 >= limit 3: forced).
    assert_eq!(run(""), (d(&[(1000, "D0"), (2000, "D1"), (3000, "D2*"), (4000, "D3")]), vec!["D4".to_string()]));
    // ns-2.35 drop_front_: index 1 of [D1 D2* D3 D4], the second waiting packet.
    let front = (d(&[(1000, "D0"), (2000, "D1"), (3000, "D3"), (4000, "D4")]), vec!["D2*".to_string()]);
    assert_eq!(run(r#", "drop_front": true"#), front);
    assert_eq!(run(r#", "victim": "front""#), front);
    // Low priority first (spec A.8 with RED): D2* goes, D4 stays.
    assert_eq!(run(r#", "victim": "low_priority_first""#), front);
    let mut r = LinkRig::new(&red(r#", "victim": "low_priority_first""#));
    r.offer(0, &[data(0), data(1), data(2), data(3), data(4)]);
    r.delivered();
    assert_eq!(r.dropped(), ["D4"], "no low-priority packet: the tail");
}

#[test]
fn red_forced_drops_evict_the_tail_most_low_priority_packet() {
    // Spec A.8 under RED: waiting D1* D2 D3* when D4 arrives (forced): the tail-most
    // low-priority packet, D3*, goes before any normal one; then waiting D1* D2 D4 when
    // L5* arrives: the arrival itself is the tail-most low-priority packet; then D6
    // evicts D1*; with no low-priority packet left, D7 is tail-dropped.
    let mut r = LinkRig::new(&red(r#", "victim": "low_priority_first""#));
    r.offer(0, &[data(0), low(1), data(2), low(3), data(4), low(5), data(6), data(7)]);
    assert_eq!(r.delivered(), vec![(1000, "D0"), (2000, "D2"), (3000, "D4"), (4000, "D6")]);
    assert_eq!(r.dropped(), ["D3*", "D5*", "D1*", "D7"]);
}

#[test]
fn red_random_victim_is_ns2_drop_rand() {
    let a = {
        let mut r = LinkRig::new(&red(r#", "drop_rand": true"#));
        r.offer(0, &[data(0), data(1), data(2), data(3), data(4), data(5)]);
        let d: Vec<_> = r.delivered().into_iter().map(|(t, l)| (t, l.to_string())).collect();
        (d, r.dropped())
    };
    let mut r = LinkRig::new(&red(r#", "victim": "random""#));
    r.offer(0, &[data(0), data(1), data(2), data(3), data(4), data(5)]);
    let d: Vec<_> = r.delivered().into_iter().map(|(t, l)| (t, l.to_string())).collect();
    assert_eq!((d, r.dropped()), a);
    assert_eq!(a.1.len(), 2);
}

// ---- ack filter ---------------------------------------------------------------------

#[test]
fn ack_filter_removes_older_acks_of_the_connection() {
    // Spec C.9: queue [A5, D, A7] of flow 0, arrival A9 -> [D, A9]; an ack of another
    // flow is untouched; a duplicate A9 after A9 is kept.
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "stages": [{"kind": "ack_filter"}]}"#);
    r.offer(0, &[data(100), ack(0, 5), data(1), ack(0, 7), ack(1, 3), ack(0, 9), ack(0, 9)]);
    assert_eq!(r.delivered(), vec![(1000, "D100"), (2000, "D1"), (2040, "A3/1"), (2080, "A9"), (2120, "A9")]);
    assert_eq!(r.dropped(), Vec::<String>::new());
    assert_eq!((r.net.filtered(0), r.net.links.drops(0)), (2, 0));
}

#[test]
fn ack_filter_replace_head_puts_the_new_ack_first() {
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "stages": [{"kind": "ack_filter", "replace_head": true}]}"#);
    r.offer(0, &[data(100), ack(0, 5), data(1), ack(0, 7), ack(0, 9), ack(0, 9)]);
    // A9 takes A5's place; the second A9 (equal number) replaces the first.
    assert_eq!(r.delivered(), vec![(1000, "D100"), (1040, "A9"), (2040, "D1")]);
    assert_eq!(r.net.filtered(0), 3);
}

#[test]
fn ack_filter_runs_before_the_buffer_is_checked() {
    // limit 4: three wait. A9 finds the buffer full, but its filter frees two places.
    let offered = [data(100), ack(0, 5), data(1), ack(0, 7), ack(0, 9)];
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "limit_pkts": 4, "stages": [{"kind": "ack_filter"}]}"#);
    r.offer(0, &offered);
    assert_eq!(r.delivered(), vec![(1000, "D100"), (2000, "D1"), (2040, "A9")]);
    assert!(r.dropped().is_empty());
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "limit_pkts": 4}"#);
    r.offer(0, &offered);
    assert_eq!(r.delivered(), vec![(1000, "D100"), (1040, "A5"), (2040, "D1"), (2080, "A7")]);
    assert_eq!(r.dropped(), ["A9"]);
}

#[test]
fn ack_filter_under_red_keeps_its_byte_count() {
    // Byte-mode RED (default): the filtered acks' bytes leave RED's queue length too;
    // a stale count would show as a forced drop below (limit 3 x 500 = 1500 bytes).
    let mut r = LinkRig::new(
        r#"{"kind": "red", "limit_pkts": 3, "thresh": 100, "maxthresh": 200, "stages": [{"kind": "ack_filter"}]}"#,
    );
    let mut offered = vec![data(100), data(1)];
    offered.extend((1..=20).map(|n| ack(0, n)));
    r.offer(0, &offered);
    assert_eq!(r.delivered(), vec![(1000, "D100"), (2000, "D1"), (2040, "A20")]);
    assert_eq!((r.net.filtered(0), r.net.links.drops(0)), (19, 0));
    match &r.net.links[0].queue {
        AnyQueue::Red(q) => assert_eq!(q.byte_len(), 0),
        _ => unreachable!(),
    }
}

// ---- acks-first ---------------------------------------------------------------------

#[test]
fn acks_first_sends_a_queued_ack_before_data() {
    // Spec C.10: an ack enqueued behind 5 data packets is sent next when the link frees.
    for q in [
        r#"{"kind": "drop_tail", "stages": [{"kind": "acks_first"}]}"#,
        r#"{"kind": "red", "stages": [{"kind": "acks_first"}]}"#,
    ] {
        let mut r = LinkRig::new(q);
        r.offer(0, &[data(0), data(1), data(2), data(3), data(4), data(5), ack(1, 1)]);
        r.offer(1500, &[ack(1, 2)]); // arrives while D1 is on the wire
        assert_eq!(
            r.delivered(),
            vec![
                (1000, "D0"),
                (1040, "A1/1"),
                (2040, "D1"),
                (2080, "A2/1"),
                (3080, "D2"),
                (4080, "D3"),
                (5080, "D4"),
                (6080, "D5")
            ],
            "{q}"
        );
    }
}

#[test]
fn without_stages_acks_wait_their_turn() {
    let mut r = LinkRig::new(r#"{"kind": "drop_tail"}"#);
    r.offer(0, &[data(0), data(1), ack(1, 1)]);
    assert_eq!(r.delivered(), vec![(1000, "D0"), (2000, "D1"), (2040, "A1/1")]);
}

#[test]
fn ack_filter_leaves_one_ack_per_flow_in_a_full_queue() {
    // Issue 16: a 5-packet DropTail (4 wait) kept full by a stream of acks of three
    // connections behind one data packet: whatever arrives, each connection has at
    // most one ack waiting, and only the newest of each leaves.
    let mut r = LinkRig::new(r#"{"kind": "drop_tail", "limit_pkts": 5, "stages": [{"kind": "ack_filter"}]}"#);
    let mut offered = vec![data(100), data(101)];
    for n in 1..=30 {
        offered.push(ack(n as u32 % 3, n));
    }
    r.offer(0, &offered);
    match &r.net.links[0].queue {
        AnyQueue::DropTail(q) => {
            let waiting: Vec<String> = q.buffer().q.iter().map(|id| label(r.net.pool.get(id))).collect();
            assert_eq!(waiting, ["D101", "A28/1", "A29/2", "A30"]);
        }
        _ => unreachable!(),
    }
    assert_eq!(r.delivered(), vec![(1000, "D100"), (2000, "D101"), (2040, "A28/1"), (2080, "A29/2"), (2120, "A30")]);
    assert!(r.dropped().is_empty());
    assert_eq!(r.net.filtered(0), 27);
}

#[test]
fn acks_first_starves_data_while_acks_arrive_faster_than_they_drain() {
    // Thesis 9.4.2.1 (`af-afirst`): an ack takes 40 µs; one arrives every 30 µs, so
    // whenever the link frees an ack is waiting -- the ack filter keeps one per
    // connection but does not slow the arrivals -- and the queued data packet waits
    // until the ack stream stops at 3 ms. FIFO sends it after the first ack.
    let run = |stages: &str| {
        let mut r = LinkRig::new(&format!(r#"{{"kind": "drop_tail", "stages": {stages}}}"#));
        r.offer(0, &[ack(1, 0), data(1)]);
        for k in 1..=100u64 {
            r.offer(30 * k, &[ack(1, k as i64)]);
        }
        let out = r.delivered();
        let d = out.iter().find(|(_, l)| *l == "D1").map(|&(t, _)| t).unwrap();
        let acks = out.iter().filter(|(_, l)| l.starts_with('A')).count();
        (d, acks)
    };
    let (fifo_t, _) = run("[]");
    assert_eq!(fifo_t, 1040);
    let (af_first_t, af_acks) = run(r#"[{"kind": "ack_filter"}, {"kind": "acks_first"}]"#);
    assert!(af_first_t > 3000, "data left at {af_first_t} µs, while acks still arrived");
    assert!(af_acks < 101, "the filter removed some acks");
    let (first_t, _) = run(r#"[{"kind": "acks_first"}]"#);
    assert!(first_t > 3000, "{first_t}");
}

// ---- configuration ------------------------------------------------------------------

#[test]
fn queue_config_errors_name_the_field() {
    let cases = [
        (r#"{"kind": "drop_tail", "limit_pkts": 0}"#, "links[0].queue.limit_pkts", "0"),
        (r#"{"kind": "drop_priority", "limit_pkts": 0}"#, "links[0].queue.limit_pkts", "0"),
        (
            r#"{"kind": "drop_tail", "stages": [{"kind": "acks_first"}, {"kind": "acks_first"}]}"#,
            "links[0].queue.stages[1].kind",
            "acks_first",
        ),
        (r#"{"kind": "red", "victim": "random", "drop_front": true}"#, "links[0].queue.victim", "random"),
        (r#"{"kind": "red", "q_weight": 7}"#, "links[0].queue", "red"),
    ];
    for (json, field, value) in cases {
        let cfg: QueueConfig = serde_json::from_str(json).expect(json);
        let e = build("links[0].queue", &cfg, 1e6, 0.01).err().unwrap_or_else(|| panic!("{json} accepted"));
        assert_eq!((e.field.as_str(), e.value.as_str()), (field, value), "{json}: {e}");
    }
    assert!(serde_json::from_str::<QueueConfig>(r#"{"kind": "drop_tail", "victim": "head"}"#).is_err());
    assert!(serde_json::from_str::<QueueConfig>(
        r#"{"kind": "drop_tail", "stages": [{"kind": "ack_filter", "x": 1}]}"#
    )
    .is_err());
}
