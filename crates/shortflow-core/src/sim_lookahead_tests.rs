//! Lookahead (`Network::try_lookahead`; docs/architecture.md, "Lookahead") changes no
//! result: a run whose computed queues take packets ahead of their arrival gives exactly
//! the results of the same run whose arrivals there are events -- every table, the ack
//! and cwnd traces, every statistic but the event count -- at the end, when read at
//! pauses in between (arrivals entered ahead and not yet due are taken off), and after
//! every event, each event firing at the key it has without.

use serde_json::{json, Value};

use super::vqueue_tests::{duplex_link, event_by_event, golden, pareto_udp, random_dumbbell, same_at_pauses};
use crate::config::SimConfig;
use crate::rng::Rng;
use crate::sim::Simulation;

fn build(cfg: &Value, ahead: bool) -> Simulation {
    let cfg: SimConfig = serde_json::from_value(cfg.clone()).expect("config parses");
    let mut sim = Simulation::new(cfg).expect("valid config");
    if ahead {
        sim.enable_lookahead();
    }
    sim
}

/// Arrivals entered ahead (at a busy link, at an idle one).
fn ahead(sim: &Simulation) -> (u64, u64) {
    (sim.sched.lookaheads, sim.sched.lookahead_starts)
}

/// The events `on` (with lookahead) saves on `off` (without) after the same events:
/// each arrival entered ahead that the loop has passed (one at an idle link has a start
/// pass instead, not an event); the folds after them, decided earlier, may differ in
/// number.
fn saved(on: &Simulation, off: &Simulation) -> i64 {
    let (busy, idle) = ahead(on);
    let pos = on.loop_position();
    let due = on.sched.pending_starts().filter(|s| s.arr.1 != 0 && !pos.passed(s.arr.0, s.arr.1)).count();
    (busy + idle) as i64 - due as i64 + on.sched.folded as i64 - off.sched.folded as i64
}

/// Run `cfg` with and without lookahead, comparing the results at `pauses` (seconds)
/// and at the end; returns the arrivals entered ahead.
fn compare(cfg: &Value, pauses: &[f64], what: &str) -> u64 {
    let (mut on, mut off) = (build(cfg, true), build(cfg, false));
    same_at_pauses(&mut on, &mut off, pauses, what);
    assert_eq!(ahead(&off), (0, 0), "{what}");
    let (busy, idle) = ahead(&on);
    assert_eq!(on.sched.fired as i64 + saved(&on, &off), off.sched.fired as i64, "{what}: events");
    busy + idle
}

#[test]
fn lookahead_changes_no_golden_result() {
    let mut n = 0;
    for name in ["bench_a", "bench_b", "bench_c", "dumbbell_newreno_4_delack", "dumbbell_tahoe_4_plain"] {
        let mut cfg = golden(name);
        let d = (cfg["duration_s"].as_f64().expect("a duration")).min(30.0);
        cfg["duration_s"] = json!(d);
        n += compare(&cfg, &[d * 0.13, d * 0.5, d * 0.77], name);
    }
    assert!(n > 50_000, "the goldens' acks are entered ahead ({n})");
}

/// Random dumbbells whose access links on each side are alike (so that arrivals at a
/// router from different hosts tie, at exactly the lookahead window), with round
/// rates and delays (zero included), tiny to large buffers, flows both ways (data and
/// acks share a direction), delayed acks, flows starting together, segments of 20
/// bytes in some (the packet-size bound is then 20: without `tcp.syn` ns-2 sends packet
/// 0 without header bytes; else segments of 40-1000), and, in some, a UDP source (the
/// bound drops to one byte) or a host whose link differs.
fn alike_dumbbell(seed: u64) -> Value {
    let mut g = Rng::new(seed ^ 0x5eed);
    let mut pick = |v: &[f64]| v[(g.next_u64() % v.len() as u64) as usize];
    let rate = pick(&[800e3, 1.6e6, 10e6, 45e6]);
    let delay = pick(&[0.0, 0.001, 0.01]);
    let limit = pick(&[1.0, 2.0, 3.0, 6.0, 30.0]) as u32;
    let n = pick(&[2.0, 3.0, 5.0, 8.0]) as usize;
    let access = pick(&[10e6, 100e6, 450e6]);
    let adelay = pick(&[0.0, 0.001, 0.002]);
    let odd = pick(&[0.0, 0.0, 1.0]) == 1.0;
    let udp = pick(&[0.0, 0.0, 0.0, 1.0]) == 1.0;
    let sizes: &[f64] = if pick(&[0.0, 0.0, 0.0, 1.0]) == 1.0 { &[20.0, 1000.0] } else { &[40.0, 536.0, 1000.0] };
    let mut nodes = vec![json!("r1"), json!("r2")];
    let mut links = vec![duplex_link("r1", "r2", rate, delay, limit)];
    let (mut flows, mut apps) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (s, d) = (format!("s{i}"), format!("d{i}"));
        let (a, ad) = if odd && i == 0 { (access / 2.0, adelay + 0.0005) } else { (access, adelay) };
        nodes.push(json!(s));
        nodes.push(json!(d));
        for (x, y) in [(s.as_str(), "r1"), ("r2", d.as_str())] {
            links.push(duplex_link(x, y, a, ad, 50));
        }
        let reverse = pick(&[0.0, 0.0, 1.0]) == 1.0;
        let (src, dst) = if reverse { (d.clone(), s.clone()) } else { (s.clone(), d.clone()) };
        let name = format!("tcp{i}");
        let variant = ["tahoe", "reno", "newreno"][i % 3];
        flows.push(json!({"name": name, "src": src, "dst": dst,
                          "tcp": {"variant": variant,
                                  "window": pick(&[4.0, 20.0, 64.0]) as u32,
                                  "packet_size": pick(sizes) as u32},
                          "sink": {"delack": pick(&[0.0, 1.0]) == 1.0}}));
        apps.push(json!({"kind": "ftp", "flow": name, "start_s": pick(&[0.0, 0.0, 0.1])}));
    }
    if udp {
        let (flow, app) = pareto_udp("udp", "s1", "d1");
        flows.push(flow);
        apps.push(app);
    }
    json!({"seed": seed, "duration_s": 6.0, "nodes": nodes, "links": links, "flows": flows, "apps": apps,
           "trace": {"acks": true, "cwnd": true}})
}

#[test]
fn lookahead_changes_no_result_on_random_dumbbells() {
    let mut n = 0;
    for seed in 1..=60 {
        let cfg = if seed % 3 == 0 { random_dumbbell(seed + 100) } else { alike_dumbbell(seed) };
        let pause = 0.3 + (seed % 7) as f64 * 0.71;
        n += compare(&cfg, &[pause, pause + 0.0007, pause + 0.0021], &format!("seed {seed}"));
    }
    assert!(n > 50_000, "arrivals entered ahead ({n})");
}

/// Paused after every event: with lookahead the run fires the other run's events less
/// the arrivals entered ahead, each with the same key `(time, seq)` -- so every
/// sequence number is the same -- and after each the results equal the other run's
/// after the same key.
#[test]
fn lookahead_keeps_every_event_key() {
    let mut total = (0, 0);
    for seed in [2, 4, 5, 7, 10, 13] {
        let mut cfg = alike_dumbbell(seed);
        cfg["duration_s"] = json!(1.5);
        let (mut off, mut on) = (build(&cfg, false), build(&cfg, true));
        let (n, all) = event_by_event(&mut off, &mut on, &format!("seed {seed}"));
        let (busy, idle) = ahead(&on);
        assert_eq!(n as i64 + saved(&on, &off), all as i64, "seed {seed}: one event less per lookahead");
        total = (total.0 + busy, total.1 + idle);
    }
    assert!(total.0 > 200 && total.1 > 500, "arrivals entered ahead at busy and idle links ({total:?})");
}

/// At the window's edge. Host s1's datagrams (1 B on 16 Mb/s, 1 ms) reach r1
/// 1 000 500 ns after they start: with the packet-size bound of one byte, that is the
/// window of host s0 (8 Mb/s, no delay), whose 1000-byte datagrams reach r1 after
/// 1 000 000 ns (entered ahead) and 1001-byte ones after 1 001 000 ns (left events).
/// s1 starts each datagram a fraction of a microsecond after s0 starts a 1001-byte
/// one (the gap drifting across the run), so it arrives first although it started
/// later: a window even a microsecond wider would enter the 1001-byte datagram ahead
/// of it and change which the three-packet bottleneck drops and when r2->d0 (traced)
/// sends what.
#[test]
fn lookahead_window_is_exact() {
    let cbr = |flow: &str, start: f64, interval: f64, size: u32| {
        json!({"kind": "cbr", "flow": flow, "start_s": start, "rate_bps": 8.0 * size as f64 / interval,
               "packet_size": size})
    };
    let cfg = json!({
        "seed": 1, "duration_s": 1.5,
        "nodes": ["s0", "s1", "r1", "r2", "d0", "d1"],
        "links": [duplex_link("r1", "r2", 2e6, 0.001, 3), duplex_link("s0", "r1", 8e6, 0.0, 50),
                  duplex_link("s1", "r1", 16e6, 0.001, 50), duplex_link("r2", "d0", 100e6, 0.0, 50),
                  duplex_link("r2", "d1", 100e6, 0.0, 50)],
        "flows": [{"name": "inside", "src": "s0", "dst": "d0", "transport": "udp"},
                  {"name": "outside", "src": "s0", "dst": "d0", "transport": "udp"},
                  {"name": "late", "src": "s1", "dst": "d1", "transport": "udp"}],
        "apps": [cbr("outside", 0.1, 0.004, 1001), cbr("inside", 0.1015, 0.004, 1000),
                 cbr("late", 0.1000002, 0.004000001, 1)],
        "trace": {"packets": true, "links": ["r2->d0"]}
    });
    let n = compare(&cfg, &[0.4, 0.9001], "window edge");
    assert!(n > 100, "the 1000-byte datagrams are entered ahead ({n})");
}
