//! Element tests: a pacer at the middle node of a three-node line holds and releases
//! packets at exactly the right times; and the same through a whole simulation.

use super::*;
use crate::config::{PacketSelect, SimConfig};
use crate::engine::Event;
use crate::net::link::{Link, LinkClass, Links};
use crate::net::packet::Packet;
use crate::net::queue::{AnyQueue, DropTail};
use crate::net::routing::Routes;
use crate::net::{Arrival, Network};
use crate::rng::Rng;
use crate::time::SimTime;

/// Nodes 0 -> 1 -> 2, 8 Mb/s and 1 ms per hop (a 40-byte ack: 40 µs + 1 ms per hop),
/// a pacer for acks at node 1 with a 10 ms interval. Acks sent from node 0 at the
/// given times (µs); returns (arrival time at node 2 in µs, ack number).
fn line_with_pacer(sends: &[(u64, i64)]) -> (Vec<(u64, i64)>, Vec<(u64, usize)>) {
    line_with(AnyElement::Pacer(Pacer::new(1, SimTime::from_millis(10), PacketSelect::Acks)), sends)
}

/// The same line with element `elem` at node 1; for a pacer, also (time, packets held)
/// whenever it holds one.
fn line_with(elem: AnyElement, sends: &[(u64, i64)]) -> (Vec<(u64, i64)>, Vec<(u64, usize)>) {
    let mk = |a, b| (a, Link::new(b, 0, AnyQueue::DropTail(DropTail::new(50))));
    let routes = Routes::new(3, &[(0, 1), (1, 2)]);
    let class = LinkClass::new(8_000_000, SimTime::from_millis(1));
    let mut net = Network::new(
        Links::from([mk(0, 1), mk(1, 2)]),
        vec![class],
        ["a", "r", "b"].into_iter().collect(),
        routes,
        Rng::new(1),
        None,
    );
    net.add_element("elements[0]", elem).unwrap();
    let mut sched = crate::engine::Scheduler::new();
    let mut out = Vec::new();
    let mut held = Vec::new();
    let mut pending = sends.to_vec();
    pending.reverse();
    loop {
        let next_send = pending.last().map(|&(t, _)| SimTime::from_micros(t));
        let ev = match next_send {
            Some(t) => sched.pop(t),
            None => sched.pop(SimTime::MAX),
        };
        match ev {
            None => {
                let Some((t, n)) = pending.pop() else { break };
                sched.advance_to(SimTime::from_micros(t));
                let id = net.pool.alloc(Packet::ack(0, 2, 0, 40, n, sched.now()));
                net.send_from(&mut sched, 0, id);
            }
            Some(Event::Arrive { link, pkt }) => match net.arrive(&mut sched, link, pkt) {
                Arrival::Deliver { pkt, .. } => {
                    out.push((sched.now().as_nanos() / 1000, net.pool.get(pkt).seqno));
                    net.pool.free(pkt);
                }
                Arrival::Forwarded => {}
                Arrival::Consumed => {
                    if let AnyElement::Pacer(p) = &net.elements[0] {
                        held.push((sched.now().as_nanos() / 1000, p.held()));
                    }
                }
            },
            Some(Event::TxDone { link }) => net.tx_done(&mut sched, link),
            Some(Event::Element { elem, token }) => {
                let (node, rel) = net.element_timer(&mut sched, elem, token);
                assert_eq!(node, 1);
                for &p in &rel {
                    assert!(matches!(net.release(&mut sched, node, p), Arrival::Forwarded));
                }
                net.recycle_released(rel);
            }
            Some(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(net.pool.live(), 0);
    (out, held)
}

#[test]
fn pacer_holds_and_releases_one_ack_per_interval() {
    // Three acks back to back at t = 0 reach node 1 at 1.04, 1.08, 1.12 ms. The first
    // passes at once (reaching node 2 at 2.08 ms), the others are held and leave node 1
    // at 11.04 and 21.04 ms, 10 ms apart (node 2: +1.04 ms).
    let (out, held) = line_with_pacer(&[(0, 1), (0, 2), (0, 3)]);
    assert_eq!(out, vec![(2_080, 1), (12_080, 2), (22_080, 3)]);
    assert_eq!(held, vec![(1_080, 1), (1_120, 2)]);
    // An ack arriving after the interval has passed and with nothing held goes through.
    let (out, held) = line_with_pacer(&[(0, 1), (50_000, 2), (52_000, 3)]);
    assert_eq!(out, vec![(2_080, 1), (52_080, 2), (62_080, 3)]);
    assert_eq!(held, vec![(53_040, 1)]);
}

/// Ack reconstruction at node 1, delack 2, threshold 2, fixed 10 ms spacing.
fn recons(adaptive: bool) -> AnyElement {
    AnyElement::AckRecons(AckRecons::new(1, 2, 2, SimTime::from_millis(10), adaptive, 0.25))
}

#[test]
fn ack_reconstruction_fills_a_gap_with_evenly_spaced_acks() {
    // Node 1 receives an ack at +1.04 ms after it is sent, node 2 at +2.08 ms.
    // Acks 1 and 2 advance by <= 2: they pass. Ack 11 jumps 9: it is regenerated as
    // 4, 6, 8, 10 and 11 (off the delack grid), leaving node 1 10 ms apart.
    let (out, _) = line_with(recons(false), &[(0, 1), (1_000, 2), (100_000, 11)]);
    let t = |i: u64| 101_040 + i * 10_000 + 1_040;
    assert_eq!(out, vec![(2_080, 1), (3_080, 2), (t(0), 4), (t(1), 6), (t(2), 8), (t(3), 10), (t(4), 11)]);
    // A real ack arriving while generated ones wait takes over: the pending acks it
    // covers are discarded when their time comes; the new gap is filled from the last
    // ack forwarded, starting no earlier than it left.
    let (out, _) = line_with(recons(false), &[(0, 1), (100_000, 11), (115_000, 15)]);
    let u = |i: u64| 101_040 + i * 10_000 + 1_040;
    // 11 -> 3, 5, 7, 9, 11 at u(0..4); at 116.04 ms ack 15 arrives: last forwarded is
    // 5 (at u(1) = 111.04 ms at node 1): 7, 9, 11, 13, 15 from 116.04 ms, 10 ms apart.
    let v = |i: u64| 116_040 + i * 10_000 + 1_040;
    assert_eq!(out, vec![(2_080, 1), (u(0), 3), (u(1), 5), (v(0), 7), (v(1), 9), (v(2), 11), (v(3), 13), (v(4), 15)]);
}

#[test]
fn adaptive_ack_reconstruction_spreads_a_gap_over_the_measured_interarrival() {
    // Real acks every 100 ms, each 8 segments ahead: the estimate of the inter-arrival
    // time moves from 10 ms towards 100 ms (EWMA 0.25), and the 4 acks regenerated
    // from each real ack are spaced by estimate x 2 / 8.
    let sends: Vec<(u64, i64)> = (0..6).map(|k| (k * 100_000, 8 * k as i64 + 1)).collect();
    let (out, _) = line_with(recons(true), &sends);
    let mut est = 0.010_f64;
    let mut expect = vec![(2_080, 1)];
    for k in 1..6u64 {
        est = 0.25 * 0.1 + 0.75 * est;
        let s_ns = SimTime::from_secs_f64(est * 2.0 / 8.0).as_nanos();
        for i in 0..4 {
            let t_ns = k * 100_000_000 + 1_040_000 + i * s_ns + 1_040_000;
            expect.push((t_ns / 1000, 8 * (k as i64 - 1) + 1 + 2 * (i as i64 + 1)));
        }
    }
    assert_eq!(out, expect);
}

fn sim_cfg(elements: &str) -> SimConfig {
    serde_json::from_str(&format!(
        r#"{{"duration_s": 30, "stop_when_done": true, "nodes": ["s", "r", "d"],
            "links": [{{"src": "s", "dst": "r", "rate_bps": 1e7, "delay_s": 0.001}},
                      {{"src": "r", "dst": "d", "rate_bps": 1e7, "delay_s": 0.001}}],
            "flows": [{{"name": "f", "src": "s", "dst": "d"}}],
            "apps": [{{"kind": "ftp", "flow": "f", "bytes": 20000}}],
            "elements": [{elements}]}}"#
    ))
    .unwrap()
}

#[test]
fn a_pacer_in_a_simulation_spaces_the_acks() {
    // 20 segments (+ SYN) over a 2 ms path; acks paced to one per 50 ms at the router:
    // the sender is ack-clocked, so the transfer takes about 21 x 50 ms.
    let fast = crate::run(&sim_cfg("")).unwrap();
    let paced =
        crate::run(&sim_cfg(r#"{"kind": "pacer", "node": "r", "interval_s": 0.05, "packets": "acks"}"#)).unwrap();
    let (t0, t1) = (fast.transfers.completion_s[0], paced.transfers.completion_s[0]);
    assert!(t0 < 0.1, "{t0}");
    assert!((0.9..1.1).contains(&t1), "{t1}");
    assert_eq!(paced.flows.pkts_received, fast.flows.pkts_received);
    // Pacing data instead leaves acks alone but spaces the segments the same way.
    let data =
        crate::run(&sim_cfg(r#"{"kind": "pacer", "node": "r", "interval_s": 0.05, "packets": "data"}"#)).unwrap();
    assert!((0.9..1.1).contains(&data.transfers.completion_s[0]));
}

#[test]
fn element_config_errors_name_the_field() {
    let e = crate::run(&sim_cfg(r#"{"kind": "pacer", "node": "x", "interval_s": 0.05}"#)).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("elements[0].node", "x"));
    let e = crate::run(&sim_cfg(r#"{"kind": "pacer", "node": "r", "interval_s": 0}"#)).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("elements[0].interval_s", "0"));
    let two = r#"{"kind": "pacer", "node": "r", "interval_s": 0.1}, {"kind": "pacer", "node": "r", "interval_s": 0.2}"#;
    let e = crate::run(&sim_cfg(two)).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("elements[1].node", "r"));
}
