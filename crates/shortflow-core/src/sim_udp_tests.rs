//! Elided UDP deliveries (`net::udp_rx`): a run whose UDP sinks are credited when a
//! datagram's last hop starts gives exactly the results of the same run delivering every
//! datagram by an arrival event -- every table, trace and statistic but the event count
//! and the memory figure -- whenever the results are read: at the end, after a
//! `run_until` that stops with datagrams in the air, or paused between any two events.
//! A last hop fed by one link is folded into its feeder's transmission as well
//! (`Network::try_fold`): then the hop's start is not an event either, and the pass
//! credits the sink (`Scheduler::folded_credits`).

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::config::SimConfig;
use crate::sim::Simulation;

/// ns-2.35's Pareto golden: one TCP flow and ten Pareto ON/OFF UDP sources crossing
/// a 1.6 Mb/s bottleneck, each UDP flow over three hops (access, bottleneck, access).
fn pareto() -> Value {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/ns2/pareto.config.json");
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

fn build(cfg: &Value, elide: bool) -> Simulation {
    let cfg: SimConfig = serde_json::from_value(cfg.clone()).expect("config parses");
    let mut sim = Simulation::new(cfg).expect("valid config");
    sim.net.udp.elide = elide;
    sim
}

/// The results as text, less wall time, event count and memory (which elision changes;
/// so do computed queues, `sim_vqueue_tests.rs`).
pub(super) fn text(sim: &Simulation) -> String {
    let mut r = sim.results();
    r.stats.wall_s = 0.0;
    r.stats.events = 0;
    r.stats.sim_bytes = 0;
    format!("{r:?}")
}

/// Run `cfg` to the end with and without elision: identical results. Returns (events
/// without, deliveries elided, last hops folded).
fn same_results(what: &str, cfg: &Value) -> (u64, u64, u64) {
    let mut plain = build(cfg, false);
    plain.run_to_end();
    let mut elided = build(cfg, true);
    elided.run_to_end();
    assert_eq!(plain.sched.udp_sinks.elided, 0, "{what}");
    assert_eq!(plain.sched.folded_credits, 0, "{what}");
    assert!(text(&plain) == text(&elided), "{what}: results differ with elided UDP deliveries");
    // Each elided delivery due by the end is one event less, and each folded last hop
    // passed one more.
    let (ev_plain, ev) = (plain.results().stats.events, elided.results().stats.events);
    let n = elided.sched.udp_sinks.elided;
    let folded = elided.sched.folded_credits;
    let ahead = elided.sched.udp_sinks.elided_ahead(&elided.loop_position());
    assert_eq!(
        ev_plain,
        ev + n - ahead + folded,
        "{what}: events {ev_plain} vs {ev} + {n} elided - {ahead} still in the air + {folded} folded"
    );
    (ev_plain, n, folded)
}

fn link_mut<'a>(cfg: &'a mut Value, src: &str, dst: &str) -> &'a mut Value {
    cfg["links"].as_array_mut().unwrap().iter_mut().find(|l| l["src"] == src && l["dst"] == dst).expect("link")
}

#[test]
fn udp_cross_traffic_results_are_unchanged() {
    let base = pareto();
    let mut cases = vec![("pareto golden", base.clone())];
    let mut c = base.clone();
    c["seed"] = json!(7);
    cases.push(("seed 7", c));
    // A slow, short last hop: datagrams queue there (their hop starts at a
    // transmission-done) and some are dropped.
    let mut c = base.clone();
    *link_mut(&mut c, "r2", "e0") = json!({"src": "r2", "dst": "e0", "rate_bps": 40000.0, "delay_s": 0.002, "duplex": true, "queue": {"kind": "drop_tail", "limit_pkts": 3}});
    cases.push(("queued last hop", c));
    // A long last hop: dozens of datagrams in flight on it (the sink's ring grows).
    let mut c = base.clone();
    link_mut(&mut c, "r2", "e5")["delay_s"] = json!(0.8);
    cases.push(("long last hop", c));
    // Random loss on one last hop and a pacer at another destination: those arrivals
    // have work to do and stay events.
    let mut c = base.clone();
    link_mut(&mut c, "r2", "e1")["loss"] = json!(0.1);
    c["elements"] = json!([{"kind": "pacer", "node": "e2", "interval_s": 0.004}]);
    cases.push(("loss and element", c));
    // Packet traces of two last hops (their arrivals write a line) and acks and cwnd.
    let mut c = base.clone();
    c["trace"] = json!({"acks": true, "cwnd": true, "packets": true, "links": ["r2->e3", "r2->e4", "r1->r2"]});
    cases.push(("traced links", c));
    for (what, cfg) in &cases {
        let (events, elided, folded) = same_results(what, cfg);
        eprintln!("{what}: {events} events delivering every datagram, {elided} deliveries elided, {folded} of their hops folded");
        assert!(elided > 0, "{what}: nothing elided");
        assert!(folded <= elided, "{what}: {folded} of {elided} elided last hops folded");
        // The bottleneck feeds every last hop; traced, it folds none (`plan_folds`).
        assert_eq!(folded > 0, *what != "traced links", "{what}: {folded} last hops folded");
    }
    // Every link traced: every arrival writes a line, nothing is elided.
    let mut c = base.clone();
    c["trace"] = json!({"packets": true});
    let (_, elided, folded) = same_results("all traced", &c);
    assert_eq!((elided, folded), (0, 0));
}

#[test]
fn results_read_with_datagrams_in_the_air_are_unchanged() {
    // `run_until` stops at times datagrams are in flight on their last hop: the sinks
    // count only what has arrived. The stop times include event times of the run (an
    // elided arrival due exactly at the stop counts: events at the stop time fire).
    let mut cfg = pareto();
    cfg["duration_s"] = json!(20.0);
    link_mut(&mut cfg, "r2", "e5")["delay_s"] = json!(0.8);
    let mut plain = build(&cfg, false);
    let mut times = Vec::new();
    while plain.run_until_events(crate::time::SimTime::MAX, plain.sched.fired + 1) {
        if plain.sched.fired % 211 == 0 {
            times.push(plain.sched.now());
        }
    }
    assert!(times.len() > 20);
    let (mut plain, mut elided) = (build(&cfg, false), build(&cfg, true));
    for (i, &t) in times.iter().enumerate() {
        // Alternately the event time itself and one nanosecond before it.
        let t = if i % 2 == 0 { t } else { crate::time::SimTime(t.0 - 1) };
        plain.run_until(t);
        elided.run_until(t);
        assert!(text(&plain) == text(&elided), "results differ at {t:?}");
    }
    assert!(elided.sched.udp_sinks.elided > 0);
    assert!(elided.sched.folded_credits > 0);
    assert!(elided.sched.udp_sinks.grown > 0, "the long hop's sink never held more than a ring");
}

#[test]
fn results_read_between_any_two_events_are_unchanged() {
    // Paused after every event (several events share a nanosecond): the run with
    // elided deliveries fires a subset of the other run's events, with the same keys
    // `(time, seq)`, and at each of its pauses the results equal the other run's at
    // the same key.
    let mut cfg = pareto();
    cfg["duration_s"] = json!(1.5);
    let mut at_key: HashMap<(u64, u64), String> = HashMap::new();
    let mut plain = build(&cfg, false);
    while plain.run_until_events(crate::time::SimTime::MAX, plain.sched.fired + 1) {
        at_key.insert((plain.sched.now().0, plain.sched.current_seq()), text(&plain));
    }
    let mut elided = build(&cfg, true);
    let mut pauses = 0;
    while elided.run_until_events(crate::time::SimTime::MAX, elided.sched.fired + 1) {
        let key = (elided.sched.now().0, elided.sched.current_seq());
        let want = at_key.get(&key).unwrap_or_else(|| panic!("event {key:?} does not fire without elision"));
        assert!(*want == text(&elided), "results differ after the event at {key:?}");
        pauses += 1;
    }
    let n = elided.sched.udp_sinks.elided;
    let folded = elided.sched.folded_credits;
    assert!(n > 100 && folded > 50, "{n} elided, {folded} of their hops folded");
    let ahead = elided.sched.udp_sinks.elided_ahead(&elided.loop_position());
    assert_eq!(pauses + (n - ahead + folded) as usize, at_key.len());
    assert!(text(&plain) == text(&elided));
}
