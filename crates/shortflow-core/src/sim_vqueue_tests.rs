//! Computed queues (`Network::vq_enqueue`, `Scheduler::at_start`; docs/architecture.md,
//! "Computed queues") change no result: a run with them gives exactly the results of the
//! same run whose links queue in their rings and fire transmission-done events -- every
//! table, the ack and cwnd traces, every statistic but the event count -- at the end and
//! when read at pauses in between (the counters entered ahead for waiting packets are
//! taken off).

use serde_json::{json, Value};

use super::udp_tests::text;
use crate::config::SimConfig;
use crate::rng::Rng;
use crate::sim::Simulation;
use crate::time::SimTime;

fn build(cfg: &Value, computed: bool) -> Simulation {
    let cfg: SimConfig = serde_json::from_value(cfg.clone()).expect("config parses");
    let mut sim = Simulation::new(cfg).expect("valid config");
    if !computed {
        sim.net.drop_virtual_queues();
    }
    sim
}

/// Run `on` and `off` to each of `pauses` (seconds) and then to the end: the results
/// (`text`) are the same at each.
pub(super) fn same_at_pauses(on: &mut Simulation, off: &mut Simulation, pauses: &[f64], what: &str) {
    for &t in pauses {
        let t = SimTime::from_secs_f64(t);
        on.run_until(t);
        off.run_until(t);
        assert_eq!(text(on), text(off), "{what}: results at {t:?}");
    }
    on.run_to_end();
    off.run_to_end();
    assert_eq!(text(on), text(off), "{what}: results at the end");
}

/// Run `cfg` with and without computed queues, comparing the results at `pauses`
/// (seconds) and at the end; returns the start passes done.
fn compare(cfg: &Value, pauses: &[f64], what: &str) -> u64 {
    let (mut on, mut off) = (build(cfg, true), build(cfg, false));
    same_at_pauses(&mut on, &mut off, pauses, what);
    assert_eq!(off.sched.vq_starts, 0, "{what}");
    assert!(on.sched.fired + on.sched.vq_starts >= off.sched.fired, "{what}");
    on.sched.vq_starts
}

pub(super) fn golden(name: &str) -> Value {
    let path = format!("{}/../../tests/golden/ns2/{name}.config.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut v: Value = serde_json::from_str(&text).expect("golden config parses");
    v["trace"] = json!({"acks": true, "cwnd": true});
    v
}

#[test]
fn computed_queues_change_no_golden_result() {
    let mut starts = 0;
    for name in [
        "bench_a",
        "bench_c",
        "dumbbell_newreno_4_delack",
        "dumbbell_reno_1_plain",
        "dumbbell_tahoe_4_plain",
        "pareto",
        "ecn_red_reno_1_delack",
        "spand_baseline_newreno-ssr_6",
    ] {
        let cfg = golden(name);
        let d = cfg["duration_s"].as_f64().expect("a duration");
        starts += compare(&cfg, &[d * 0.13, d * 0.5, d * 0.77], name);
    }
    assert!(starts > 10_000, "the goldens' bottlenecks queue ({starts} start passes)");
}

/// A duplex DropTail link of a test config.
pub(super) fn duplex_link(src: &str, dst: &str, rate: f64, delay: f64, limit: u32) -> Value {
    json!({"src": src, "dst": dst, "rate_bps": rate, "delay_s": delay, "duplex": true,
           "queue": {"kind": "drop_tail", "limit_pkts": limit}})
}

/// Random dumbbells with round rates and delays (many events at equal times), small
/// buffers (drops), flows both ways (a bottleneck direction carries data and acks, of
/// different sizes), delayed acks, flows starting together, and UDP on-off sources
/// into some of the same hosts.
pub(super) fn random_dumbbell(seed: u64) -> Value {
    let mut g = Rng::new(seed);
    let mut pick = |v: &[f64]| v[(g.next_u64() % v.len() as u64) as usize];
    let rate = pick(&[800e3, 1e6, 1.6e6, 2e6]);
    let delay = pick(&[0.0, 0.001, 0.01, 0.05]);
    let limit = pick(&[2.0, 3.0, 5.0, 8.0, 12.0]) as u32;
    let n = pick(&[1.0, 2.0, 3.0, 4.0, 6.0]) as usize;
    let mut nodes = vec![json!("r1"), json!("r2")];
    let mut links = vec![duplex_link("r1", "r2", rate, delay, limit)];
    let (mut flows, mut apps) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (s, d) = (format!("s{i}"), format!("d{i}"));
        let access = pick(&[10e6, 100e6]);
        let adelay = pick(&[0.0, 0.001, 0.002]);
        nodes.push(json!(s));
        nodes.push(json!(d));
        links.push(duplex_link(&s, "r1", access, adelay, 50));
        links.push(duplex_link("r2", &d, access, adelay, 50));
        let reverse = pick(&[0.0, 0.0, 1.0]) == 1.0;
        let (src, dst) = if reverse { (d.clone(), s.clone()) } else { (s.clone(), d.clone()) };
        let variant = ["tahoe", "reno", "newreno"][pick(&[0.0, 1.0, 2.0]) as usize];
        let name = format!("tcp{i}");
        flows.push(json!({"name": name, "src": src, "dst": dst,
                          "tcp": {"variant": variant, "window": pick(&[4.0, 20.0, 64.0]) as u32},
                          "sink": {"delack": pick(&[0.0, 1.0]) == 1.0}}));
        apps.push(json!({"kind": "ftp", "flow": name, "start_s": pick(&[0.0, 0.1, 0.5])}));
        if pick(&[0.0, 0.0, 1.0]) == 1.0 {
            let (flow, app) = pareto_udp(&format!("udp{i}"), &s, &d);
            flows.push(flow);
            apps.push(app);
        }
    }
    json!({"seed": seed, "duration_s": 12.0, "nodes": nodes, "links": links, "flows": flows, "apps": apps,
           "trace": {"acks": true, "cwnd": true}})
}

/// A UDP flow `name` from `src` to `dst` and its Pareto on-off source (64 kb/s,
/// 210-byte datagrams), as a flow and an application of a config.
pub(super) fn pareto_udp(name: &str, src: &str, dst: &str) -> (Value, Value) {
    (
        json!({"name": name, "src": src, "dst": dst, "transport": "udp"}),
        json!({"kind": "on_off", "flow": name, "dist": "pareto", "start_s": 0.0, "rate_bps": 64000.0,
               "packet_size": 210, "on_s": 0.5, "off_s": 0.5, "shape": 1.5}),
    )
}

#[test]
fn computed_queues_change_no_result_on_random_dumbbells() {
    let mut starts = 0;
    for seed in 1..=40 {
        let cfg = random_dumbbell(seed);
        let pause = 0.5 + (seed % 7) as f64 * 1.37;
        starts += compare(&cfg, &[pause, pause + 0.0015], &format!("seed {seed}"));
    }
    assert!(starts > 10_000, "the random bottlenecks queue ({starts} start passes)");
}

/// Run `off` pausing after every event, then `on`: each of `on`'s events fires at a key
/// `(time, seq)` one of `off`'s fired at, and the results after it are `off`'s after
/// that event. Returns the events `on` and `off` fired.
pub(super) fn event_by_event(off: &mut Simulation, on: &mut Simulation, what: &str) -> (usize, usize) {
    use std::collections::HashMap;
    let mut at_key: HashMap<(u64, u64), String> = HashMap::new();
    while off.run_until_events(SimTime::MAX, off.sched.fired + 1) {
        at_key.insert((off.sched.now().0, off.sched.current_seq()), text(off));
    }
    let mut n = 0;
    while on.run_until_events(SimTime::MAX, on.sched.fired + 1) {
        let key = (on.sched.now().0, on.sched.current_seq());
        let want = at_key.get(&key).unwrap_or_else(|| panic!("{what}: event {key:?} does not fire without"));
        assert!(*want == text(on), "{what}: results differ after the event at {key:?}");
        n += 1;
    }
    (n, at_key.len())
}

/// Paused after every event: the run with computed queues fires the other run's events
/// less its transmission-done events, each with the same key `(time, seq)` -- so every
/// sequence number is the same -- and after each the results equal the other run's
/// after the same key.
#[test]
fn computed_queues_keep_every_event_key() {
    let mut pauses = 0;
    for seed in [3, 8, 11, 19, 26] {
        let mut cfg = random_dumbbell(seed);
        cfg["duration_s"] = json!(2.5);
        let (mut off, mut on) = (build(&cfg, false), build(&cfg, true));
        let (n, all) = event_by_event(&mut off, &mut on, &format!("seed {seed}"));
        assert_eq!(n + on.sched.vq_starts as usize, all, "seed {seed}: one event less per start pass");
        pauses += n;
    }
    assert!(pauses > 1000);
}

/// Packet traces of some links (a traced link is no computed queue and takes no fold,
/// its neighbours still may): every trace row the same, with and without.
#[test]
fn computed_queues_keep_the_traces_of_other_links() {
    let mut starts = 0;
    for seed in 41..=52 {
        let mut cfg = random_dumbbell(seed);
        let links: &[&str] = match seed % 3 {
            0 => &["s0->r1", "r1->s0", "r2->d0", "d0->r2"],
            1 => &["r1->r2"],
            _ => &["r2->r1", "r2->d0"],
        };
        cfg["trace"] = json!({"acks": true, "cwnd": true, "packets": true, "links": links});
        starts += compare(&cfg, &[3.3], &format!("seed {seed}, traced {links:?}"));
        let mut on = build(&cfg, true);
        on.run_until(SimTime::from_secs_f64(3.3));
        assert!(!on.results().packets.time_ns.is_empty(), "seed {seed}: a trace");
    }
    assert!(starts > 1_000, "the untraced bottlenecks queue ({starts} start passes)");
}
