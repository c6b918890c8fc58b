//! Parked retransmission timers (`TcpConn::park_rtx_timer`, `engine::Timer::park`):
//! a run that parks idle connections' no-op timer firings gives exactly the results
//! of the same run delivering every firing (every table, trace and statistic but the
//! event count), and fires fewer events.

use serde_json::{json, Value};

use crate::config::SimConfig;
use crate::sim::Simulation;

fn golden(name: &str) -> Value {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/ns2").join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// Results (less wall time, event count and the simulation's bytes: the park lanes are
/// memory of their own), events fired, parked re-arms.
fn run(cfg: &SimConfig, park: bool) -> (String, u64, u64) {
    let mut sim = Simulation::new(cfg.clone()).expect("valid config");
    sim.sched_mut().park_timers = park;
    sim.run_to_end();
    let mut r = sim.results();
    let events = r.stats.events;
    r.stats.wall_s = 0.0;
    r.stats.events = 0;
    r.stats.sim_bytes = 0;
    (format!("{r:?}"), events, sim.sched_mut().parked_rearms)
}

/// Run `cfg` with and without parking: identical results; returns (events without,
/// events with, re-arms done by the scheduler).
fn same_results(what: &str, cfg: Value) -> (u64, u64, u64) {
    let cfg: SimConfig = serde_json::from_value(cfg).expect("config parses");
    let (plain, ev_plain, rearms_plain) = run(&cfg, false);
    let (parked, ev_parked, rearms) = run(&cfg, true);
    assert_eq!(rearms_plain, 0);
    assert!(plain == parked, "{what}: results differ with parked timers");
    // Each re-arm is one timer event less.
    assert_eq!(ev_plain, ev_parked + rearms, "{what}: events {ev_plain} vs {ev_parked} + {rearms} re-arms");
    (ev_plain, ev_parked, rearms)
}

/// Set `tcp.<key> = v` on every flow.
fn with_tcp(mut cfg: Value, key: &str, v: Value) -> Value {
    for f in cfg["flows"].as_array_mut().unwrap() {
        f["tcp"][key] = v.clone();
    }
    cfg
}

#[test]
fn rounds_and_telnet_over_idle_connections_are_unchanged() {
    // TCP/SPAND's baseline: 6 connections with 40 rounds of 30 KB, 120 s idle between
    // rounds, beside 5 Telnet connections; a 10-packet bottleneck queue (losses, RTOs,
    // late duplicate acks on connections that went idle).
    let base = golden("spand_baseline_reno-ssr_6.config.json");
    let mut cases = vec![
        ("reno, slow-start restart", base.clone()),
        ("newreno, no restart", golden("spand_baseline_newreno-nssr_6.config.json")),
        ("tahoe", with_tcp(base.clone(), "variant", json!("tahoe"))),
        ("restart_bugfix off (RTO back-off while idle)", with_tcp(base.clone(), "restart_bugfix", json!(false))),
        ("slow_start_restart off", with_tcp(base.clone(), "slow_start_restart", json!(false))),
        ("ecn", with_tcp(base.clone(), "ecn", json!(true))),
        ("window_init 4, maxburst 2", with_tcp(with_tcp(base.clone(), "window_init", json!(4)), "maxburst", json!(2))),
    ];
    let mut delack = base.clone();
    for f in delack["flows"].as_array_mut().unwrap() {
        f["sink"] = json!({"delack": true});
    }
    cases.push(("delayed acks", delack));
    let mut tight = base.clone();
    tight["links"][0]["queue"]["limit_pkts"] = json!(3);
    cases.push(("3-packet queue (many losses)", tight));
    for (what, cfg) in cases {
        let (plain, parked, rearms) = same_results(what, cfg);
        eprintln!("{what}: {plain} events delivering every firing, {parked} parked ({rearms} re-arms)");
        if what.starts_with("restart_bugfix") {
            // Every idle firing backs the RTO off: never a no-op, never parked.
            assert_eq!(rearms, 0, "{what}");
        } else {
            assert!(rearms > 0, "{what}: nothing was parked");
        }
    }
}

#[test]
fn many_short_connections_are_unchanged() {
    // Workload c cut to 300 connections over 20 s: each finishes its 30 KB early and
    // its timer fires every RTO afterwards.
    let mut c = golden("bench_c.config.json");
    let n = 300;
    let keep: std::collections::HashSet<String> = (0..n).flat_map(|i| [format!("s{i}"), format!("d{i}")]).collect();
    c["nodes"] = json!(c["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            let x = x.as_str().unwrap();
            x == "r1" || x == "r2" || keep.contains(x)
        })
        .cloned()
        .collect::<Vec<_>>());
    c["links"] = json!(c["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| {
            [l["src"].as_str().unwrap(), l["dst"].as_str().unwrap()]
                .iter()
                .all(|x| *x == "r1" || *x == "r2" || keep.contains(*x))
        })
        .cloned()
        .collect::<Vec<_>>());
    c["flows"] = json!(c["flows"].as_array().unwrap()[..n].to_vec());
    c["apps"] = json!(c["apps"].as_array().unwrap()[..n].to_vec());
    c["duration_s"] = json!(20.0);
    let (plain, parked, rearms) = same_results("bench c, 300 connections", c);
    eprintln!("bench c, {n} connections: {plain} events delivering every firing, {parked} parked ({rearms} re-arms)");
    // Every connection idles for most of the 20 s, its timer firing every RTO.
    assert!(rearms >= 10 * n as u64, "{rearms} re-arms for {n} connections");
}
