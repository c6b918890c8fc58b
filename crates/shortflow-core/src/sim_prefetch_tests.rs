//! Prefetching (`Simulation::prefetch_ahead`, `crate::prefetch`) is a hint: a run with it
//! gives exactly the results of the same run without it -- every table, trace and
//! statistic, the event count included -- whether it runs to the end or in slices.

use serde_json::{json, Value};

use crate::config::SimConfig;
use crate::sim::{Simulation, PREFETCH_MIN_CONNS};

/// The scale workload's shape (`shortflow.bench.scale_scenario`) with `n` connections:
/// a dumbbell whose bottleneck grows with `n`, each connection with its own host pair and
/// access links (a replica), NewReno, 30 KB each, starting 1/n s apart; ack and cwnd
/// traces on.
fn scale(n: u32, duration_s: f64) -> Value {
    json!({
        "seed": 1, "duration_s": duration_s, "stop_when_done": true,
        "nodes": ["r1", "r2"],
        "links": [{"src": "r1", "dst": "r2", "rate_bps": 4500.0 * n as f64, "delay_s": 0.05,
                   "queue": {"kind": "drop_tail", "limit_pkts": (n / 20).max(10)}}],
        "replicas": [{"name": "c", "count": n, "src": "r1", "dst": "r2",
                      "access": {"rate_bps": 450e6, "delay_s": 0.001},
                      "tcp": {"window": 1000, "packet_size": 1000, "variant": "newreno"},
                      "app": {"kind": "ftp", "start_s": 0.0, "stagger_s": 1.0 / n as f64, "bytes": 30000}}],
        "trace": {"acks": true, "cwnd": true}
    })
}

fn build(cfg: &Value, prefetch: bool) -> Simulation {
    let cfg: SimConfig = serde_json::from_value(cfg.clone()).expect("config parses");
    let mut sim = Simulation::new(cfg).expect("valid config");
    sim.set_prefetch(prefetch);
    sim
}

fn text(sim: &Simulation) -> String {
    let mut r = sim.results();
    r.stats.wall_s = 0.0;
    format!("{r:?}")
}

/// `text` without `sim_bytes` (the far timers' buckets are memory of their own).
fn text_but_memory(sim: &Simulation) -> String {
    let mut r = sim.results();
    r.stats.wall_s = 0.0;
    r.stats.sim_bytes = 0;
    format!("{r:?}")
}

#[test]
fn prefetching_changes_no_result() {
    for (n, d) in [(300, 30.0), (2500, 5.0)] {
        let cfg = scale(n, d);
        let mut on = build(&cfg, true);
        let mut off = build(&cfg, false);
        on.run_to_end();
        off.run_to_end();
        assert!(on.sched.fired > 10_000, "the run does something");
        assert_eq!(on.sched.fired, off.sched.fired);
        assert_eq!(text(&on), text(&off), "n = {n}");
        // In slices (the Python binding's way): paused between events, the same results.
        let mut sliced = build(&cfg, true);
        let mut k = 0;
        while sliced.run_until_events(crate::time::SimTime::MAX, k * 7919 + 1) {
            k += 1;
        }
        assert_eq!(text(&sliced), text(&off), "n = {n}, in slices");
    }
    // Far timers (`Scheduler::enable_far_timers`, on with prefetching) change nothing
    // either: off in the large run, on in a small one.
    for (n, d, far) in [(300, 30.0, true), (2500, 5.0, false)] {
        let cfg = scale(n, d);
        let mut a = build(&cfg, true);
        if far {
            a.sched_mut().enable_far_timers(20, 4096);
        } else {
            a.sched_mut().disable_far_timers();
        }
        let mut b = build(&cfg, true);
        a.run_to_end();
        b.run_to_end();
        assert_eq!(a.sched.fired, b.sched.fired);
        assert_eq!(text_but_memory(&a), text_but_memory(&b), "n = {n}, far timers {far}");
    }
    // A large run switches it on by itself, a small one not.
    assert!(build(&scale(PREFETCH_MIN_CONNS as u32, 1.0), false).prefetch_default());
    assert!(!build(&scale(300, 1.0), false).prefetch_default());
}
