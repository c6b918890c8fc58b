//! `Simulation::into_results` (which frees the simulation as it builds the tables, the
//! path of `run` and of the Python package) gives exactly the tables of
//! `Simulation::results` (which leaves the simulation as it is), at the end of a run and
//! paused part-way (folded hops and computed-queue packets still pending, traces
//! half-filled): every table, including the traces, the pages and objects of Web and
//! SURGE workloads, UDP flows and the congestion-control decisions.

use shortflow_core::config::SimConfig;
use shortflow_core::time::SimTime;
use shortflow_core::Simulation;

fn golden(name: &str, duration_s: Option<f64>, packets: bool) -> SimConfig {
    let path = format!("{}/../../tests/golden/ns2/{name}.config.json", env!("CARGO_MANIFEST_DIR"));
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect(&path)).expect("json");
    if let Some(d) = duration_s {
        v["duration_s"] = d.into();
    }
    v["trace"]["acks"] = true.into();
    v["trace"]["cwnd"] = true.into();
    v["trace"]["packets"] = packets.into();
    serde_json::from_value(v).expect("config")
}

/// A two-node path (10 Mb/s, 100 ms each way) carrying `flows` (JSON objects) and `apps`.
fn two_nodes(flows: &str, apps: &str, duration_s: f64, loss: f64) -> SimConfig {
    let text = format!(
        r#"{{"seed": 3, "duration_s": {duration_s}, "nodes": ["s", "c"],
        "links": [{{"src": "s", "dst": "c", "rate_bps": 1e7, "delay_s": 0.1, "loss": {loss}, "reverse_loss": 0.0,
                    "queue": {{"kind": "drop_tail", "limit_pkts": 30}}}}],
        "flows": [{flows}], "apps": [{apps}], "trace": {{"acks": true, "cwnd": true, "packets": true}}}}"#
    );
    serde_json::from_str(&text).expect("config")
}

fn configs() -> Vec<(&'static str, SimConfig)> {
    let tcp = r#""tcp": {"variant": "newreno", "window": 100, "window_init": 2, "packet_size": 1000}"#;
    let web_flows = format!(
        r#"{{"name": "w.1.1", "src": "s", "dst": "c", {tcp}}}, {{"name": "w.1.2", "src": "s", "dst": "c", {tcp}}}"#
    );
    let web = r#"{"kind": "web", "mode": "persistent", "pairs": [{"name": "w.1", "conns": ["w.1.1", "w.1.2"]}],
                  "pages": [{"html_bytes": 4000, "image_bytes": [3000, 9000, 12000]}, {"html_bytes": 2000, "image_bytes": [5000]}]}"#;
    let surge_flows = format!(
        r#"{{"name": "web.1", "src": "s", "dst": "c", {tcp}}}, {{"name": "web.req.1", "src": "c", "dst": "s", {tcp}}}"#
    );
    let surge = r#"{"kind": "surge", "flows": ["web.1"], "request_flows": ["web.req.1"], "start_s": 0.5}"#;
    let vienna_flows: Vec<String> = (0..3)
        .map(|k| {
            format!(
                r#"{{"name": "v{k}", "src": "s", "dst": "c",
                    "tcp": {{"variant": "newreno", "window": 1000, "packet_size": 500, "cc": {{"kind": "vienna"}}}}}}"#
            )
        })
        .collect();
    let vienna_apps: Vec<String> = (0..3)
        .map(|k| format!(r#"{{"kind": "ftp", "flow": "v{k}", "start_s": {}, "bytes": 40000}}"#, 0.5 * k as f64))
        .collect();
    vec![
        ("bench_a (60 s)", golden("bench_a", Some(60.0), false)),
        ("bench_c (20 s)", golden("bench_c", Some(20.0), false)),
        ("dumbbell_reno_4_delack", golden("dumbbell_reno_4_delack", None, true)),
        ("pareto (UDP)", golden("pareto", None, false)),
        ("red", golden("red", None, false)),
        ("ecn_red_newreno_2_delack", golden("ecn_red_newreno_2_delack", None, false)),
        ("spand_baseline_reno-ssr_6", golden("spand_baseline_reno-ssr_6", None, false)),
        ("web", two_nodes(&web_flows, web, 30.0, 0.0)),
        ("surge", two_nodes(&surge_flows, surge, 60.0, 0.01)),
        ("vienna", two_nodes(&vienna_flows.join(","), &vienna_apps.join(","), 30.0, 0.02)),
    ]
}

fn same_tables(name: &str, cfg: &SimConfig, pause_events: Option<u64>) {
    let run = |sim: &mut Simulation| match pause_events {
        Some(n) => {
            sim.run_until_events(SimTime::MAX, n);
        }
        None => sim.run_to_end(),
    };
    let mut kept = Simulation::new(cfg.clone()).expect(name);
    run(&mut kept);
    let mut consumed = Simulation::new(cfg.clone()).expect(name);
    run(&mut consumed);
    let want = serde_json::to_string(&kept.results()).expect("serialise");
    let got = serde_json::to_string(&consumed.into_results()).expect("serialise");
    assert!(want.len() > 200, "{name}: results too small to mean anything: {want}");
    assert!(got == want, "{name} (pause after {pause_events:?} events): into_results differs from results");
}

#[test]
fn into_results_gives_the_tables_of_results() {
    for (name, cfg) in configs() {
        let mut sim = Simulation::new(cfg.clone()).expect(name);
        sim.run_to_end();
        let r = sim.results();
        let events = r.stats.events;
        assert!(events > 50, "{name}: {events} events");
        // The tables each case is here for are not empty.
        match name {
            "web" => assert!(!r.pages.page.is_empty(), "{name}: pages"),
            "surge" => assert!(!r.objects.object.is_empty(), "{name}: objects"),
            "vienna" => assert!(!r.cc.metric.is_empty(), "{name}: cc decisions"),
            "pareto (UDP)" => assert!(r.flows.transport.iter().any(|t| t == "udp"), "{name}: udp"),
            _ => assert!(!r.acks.ackno.is_empty() && !r.links.link.is_empty(), "{name}: acks and links"),
        }
        for pause in [None, Some(events / 3), Some(events / 2 + 7)] {
            same_tables(name, &cfg, pause);
        }
    }
}
