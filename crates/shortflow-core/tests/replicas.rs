//! Replicated connections (`SimConfig::replicas`): a replica runs exactly as the same
//! configuration written out copy by copy (nodes, links, flows and apps appended in
//! the documented order), with every trace on; bad replica fields are errors naming
//! the field and the value.

use serde_json::{json, Value};
use shortflow_core::config::SimConfig;

/// The base: a dumbbell, one explicit flow from an explicit host, and two replicas
/// (the second with its own destination access links and no application).
fn compact() -> Value {
    json!({
        "seed": 7, "duration_s": 20.0,
        "nodes": ["r1", "r2", "h", "k"],
        "links": [
            {"src": "r1", "dst": "r2", "rate_bps": 2e6, "delay_s": 0.02, "queue": {"kind": "drop_tail", "limit_pkts": 12}},
            {"src": "h", "dst": "r1", "rate_bps": 1e7, "delay_s": 0.001},
            {"src": "r2", "dst": "k", "rate_bps": 1e7, "delay_s": 0.001}
        ],
        "flows": [{"name": "bulk", "src": "h", "dst": "k", "tcp": {"variant": "reno"}}],
        "apps": [{"kind": "ftp", "flow": "bulk", "start_s": 0.5, "start_after": ["c.2"]}],
        "replicas": [
            {"name": "c", "count": 6, "src": "r1", "dst": "r2",
             "access": {"rate_bps": 1e7, "delay_s": 0.002},
             "tcp": {"variant": "newreno", "window": 40},
             "sink": {"delack": true},
             "app": {"kind": "ftp", "start_s": 0.1, "stagger_s": 0.0173, "bytes": 30000, "start_jitter_s": 0.05}},
            {"name": "e", "count": 3, "src": "r1", "dst": "r2",
             "access": {"rate_bps": 5e6, "delay_s": 0.003, "queue": {"kind": "drop_tail", "limit_pkts": 7}},
             "dst_access": {"rate_bps": 2e6, "delay_s": 0.004, "reverse_rate_bps": 1e6},
             "startup": {"kind": "idle_restart"}}
        ]
    })
}

/// The replicas written out as the documented expansion: per copy i (1-based) nodes
/// X.s<i>, X.d<i>, links X.s<i> -> src and dst -> X.d<i>, flow X.<i>, its app.
fn written_out(mut v: Value) -> Value {
    let reps = v["replicas"].as_array().cloned().unwrap_or_default();
    let o = v.as_object_mut().unwrap();
    o.remove("replicas");
    for r in reps {
        let name = r["name"].as_str().unwrap();
        let count = r["count"].as_u64().unwrap();
        for i in 1..=count {
            let (s, d) = (format!("{name}.s{i}"), format!("{name}.d{i}"));
            o.get_mut("nodes").unwrap().as_array_mut().unwrap().extend([json!(s), json!(d)]);
            let mut a = r["access"].clone();
            a["src"] = json!(s);
            a["dst"] = r["src"].clone();
            let mut b = r.get("dst_access").cloned().unwrap_or_else(|| r["access"].clone());
            b["src"] = r["dst"].clone();
            b["dst"] = json!(d);
            o.get_mut("links").unwrap().as_array_mut().unwrap().extend([a, b]);
            let mut f = json!({"name": format!("{name}.{i}"), "src": s, "dst": d});
            for k in ["tcp", "sink", "startup"] {
                if let Some(x) = r.get(k) {
                    f[k] = x.clone();
                }
            }
            o.get_mut("flows").unwrap().as_array_mut().unwrap().push(f);
            if let Some(app) = r.get("app") {
                let mut a = app.clone();
                let ao = a.as_object_mut().unwrap();
                let stagger = ao.remove("stagger_s").and_then(|x| x.as_f64()).unwrap_or(0.0);
                let start = ao.get("start_s").and_then(|x| x.as_f64()).unwrap_or(0.0);
                // As the Python expansion writes it: 15 significant digits.
                let t: f64 = format!("{:.14e}", start + (i - 1) as f64 * stagger).parse().unwrap();
                ao.insert("start_s".into(), json!(t));
                ao.insert("flow".into(), json!(format!("{name}.{i}")));
                o.get_mut("apps").unwrap().as_array_mut().unwrap().push(a);
            }
        }
    }
    v
}

fn traced(mut v: Value) -> SimConfig {
    v["trace"] = json!({"acks": true, "cwnd": true, "packets": true});
    serde_json::from_value(v).expect("config")
}

fn results(cfg: &SimConfig) -> String {
    let mut r = shortflow_core::run(cfg).expect("run");
    r.stats.wall_s = 0.0;
    serde_json::to_string(&r).unwrap()
}

#[test]
fn a_replica_runs_as_its_copies_written_out() {
    let a = results(&traced(compact()));
    let b = results(&traced(written_out(compact())));
    assert!(a.len() > 10_000, "the run produced its tables");
    assert_eq!(a, b, "every table, every trace row equal");
    let r: Value = serde_json::from_str(&a).unwrap();
    // 1 explicit + 6 + 3 flows; the replicas' names in order; the waiting app ran.
    let flows: Vec<&str> = r["flows"]["flow"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert_eq!(flows, ["bulk", "c.1", "c.2", "c.3", "c.4", "c.5", "c.6", "e.1", "e.2", "e.3"]);
    assert!(r["links"]["link"].as_array().unwrap().iter().any(|l| l == "r2->e.d3"));
    assert!(r["flows"]["data_pkts_sent"][0].as_u64().unwrap() > 0, "bulk started after c.2's transfer");
}

#[test]
fn copies_of_lossy_red_access_links_run_as_written_out() {
    // Copies 2.. of a replica's access links are made like copy 1's
    // (`LinkSet::add_like`): the same queue settings (RED with its state), the same
    // loss probabilities, each direction with its own random stream.
    let mut v = compact();
    v["replicas"][0]["access"] = json!({"rate_bps": 1e7, "delay_s": 0.002, "loss": 0.01, "reverse_loss": 0.02,
        "queue": {"kind": "red", "limit_pkts": 20, "thresh": 3, "maxthresh": 12, "q_weight": 0.02}});
    v["replicas"][1]["dst_access"]["loss"] = json!(0.03);
    let a = results(&traced(v.clone()));
    let b = results(&traced(written_out(v)));
    assert_eq!(a, b, "every table, every trace row equal");
    let r: Value = serde_json::from_str(&a).unwrap();
    let drops: u64 = r["links"]["drops"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum();
    assert!(drops > 0, "random loss on the access links");
}

#[test]
fn replica_hosts_and_flows_are_named_like_nodes() {
    // An address and a traced link may name a replica's host.
    let mut v = compact();
    v["addresses"] = json!({"c.d4": "10.9.0.4"});
    v["trace"] = json!({"packets": true, "links": ["c.s2->r1"]});
    let cfg: SimConfig = serde_json::from_value(v).unwrap();
    let r = shortflow_core::run(&cfg).unwrap();
    assert!(!r.packets.time_ns.is_empty(), "packets of c.s2 -> r1 traced");
}

fn error_of(v: Value) -> String {
    match serde_json::from_value::<SimConfig>(v) {
        Err(e) => e.to_string(),
        Ok(cfg) => match shortflow_core::run(&cfg) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted"),
        },
    }
}

#[test]
fn bad_replicas_are_errors_naming_field_and_value() {
    let cases: Vec<(Box<dyn Fn(&mut Value)>, &[&str])> = vec![
        (Box::new(|v| v["replicas"][0]["count"] = json!(0)), &["replicas[0].count", "0"]),
        (Box::new(|v| v["replicas"][0]["src"] = json!("r9")), &["replicas[0].src", "r9", "unknown node"]),
        (Box::new(|v| v["replicas"][1]["name"] = json!("c")), &["replicas[1].name", "duplicate replica name"]),
        (Box::new(|v| v["replicas"][0]["name"] = json!("")), &["replicas[0].name", "must not be empty"]),
        (Box::new(|v| v["replicas"][0]["access"]["rate_bps"] = json!(-3.0)), &["replicas[0].access.rate_bps", "-3"]),
        (Box::new(|v| v["replicas"][1]["dst_access"]["delay_s"] = json!(-1.0)), &["replicas[1].dst_access.delay_s"]),
        (
            Box::new(|v| v["replicas"][0]["access"]["queue"] = json!({"kind": "drop_tail", "limit_pkts": 0})),
            &["replicas[0].access.queue.limit_pkts"],
        ),
        (Box::new(|v| v["replicas"][0]["app"]["bytes"] = json!(0)), &["replicas[0].app.bytes", "0"]),
        (Box::new(|v| v["replicas"][0]["app"]["stagger_s"] = json!(-0.5)), &["replicas[0].app.stagger_s", "-0.5"]),
        (Box::new(|v| v["replicas"][0]["tcp"]["window"] = json!(0)), &["replicas[0].tcp.window", "0"]),
        (Box::new(|v| v["replicas"][0]["tcp"]["windw"] = json!(3)), &["replica \"c\"", "windw"]),
        (Box::new(|v| v["replicas"][0]["acces"] = json!({})), &["acces"]),
        (Box::new(|v| v["nodes"].as_array_mut().unwrap().push(json!("c.s3"))), &["nodes[4]", "c.s3", "replicas[0]"]),
        (Box::new(|v| v["flows"][0]["name"] = json!("e.2")), &["flows[0].name", "e.2", "replicas[1]"]),
        (
            Box::new(|v| v["apps"].as_array_mut().unwrap().push(json!({"kind": "ftp", "flow": "c.4"}))),
            &["replicas[0].app", "c.4", "already driven"],
        ),
        (
            Box::new(|v| v["apps"][0]["start_after"] = json!(["c.7"])),
            &["apps[0].start_after[0]", "c.7", "unknown flow"],
        ),
    ];
    for (edit, want) in cases {
        let mut v = compact();
        edit(&mut v);
        let e = error_of(v);
        for w in want {
            assert!(e.contains(w), "{e:?} should contain {w:?}");
        }
    }
}
