//! SURGE-like Web users (`traffic/surge.rs`) in whole simulations: the per-object
//! records on a hand-checked loss-free path, a fresh connection per object, and the
//! validation of the app's fields.

use shortflow_core::config::SimConfig;

/// One user on a single 10 Mb/s, 10 ms link (server `s`, client `c`), every-packet
/// acks, no SYN, `window_init` segments of 500 B. `surge` is extra JSON for the app.
fn one_user(window_init: u32, surge: &str, duration_s: f64) -> SimConfig {
    let tcp = format!(
        r#"{{"variant": "newreno", "window": 1000, "window_init": {window_init}, "packet_size": 500, "syn": false}}"#
    );
    let text = format!(
        r#"{{
        "seed": 1, "duration_s": {duration_s},
        "nodes": ["s", "c"],
        "links": [{{"src": "s", "dst": "c", "rate_bps": 1e7, "delay_s": 0.01, "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}}],
        "flows": [
            {{"name": "web.1", "src": "s", "dst": "c", "tcp": {tcp}, "sink": {{"delack": false}}}},
            {{"name": "web.req.1", "src": "c", "dst": "s", "tcp": {tcp}, "sink": {{"delack": false}}}}
        ],
        "apps": [{{"kind": "surge", "flows": ["web.1"], "request_flows": ["web.req.1"], "start_s": 1.0 {surge}}}]
    }}"#
    );
    serde_json::from_str(&text).expect("config")
}

/// Objects of exactly 5000 B (10 segments; σ tiny, e^μ = 4999.5 rounds up to 5000), two per page (floor(Pareto(2,
/// 1000)) = 2), one page in the run (think times of 1000 s).
const TWO_FIXED_OBJECTS: &str = r#", "size_mu": 8.517093186415904, "size_sigma": 1e-9, "objects_k": 2.0, "objects_alpha": 1000.0,
    "think_k_s": 1000.0, "active_off_shape": 1000.0, "active_off_scale_s": 0.5"#;

#[test]
fn object_times_on_a_loss_free_path_are_the_hand_computed_ones() {
    let r = shortflow_core::run(&one_user(10, TWO_FIXED_OBJECTS, 30.0)).unwrap();
    let o = &r.objects;
    assert_eq!(o.pair, vec!["web.1", "web.1"]);
    assert_eq!(o.conn, vec!["web.1", "web.1"]);
    assert_eq!(o.page, vec![0, 0]);
    assert_eq!(o.object, vec![0, 1]);
    assert_eq!(o.bytes, vec![5000, 5000]);
    // Object 0. Request: segment 0 (500 B on the wire: ns-2 sends packet 0 without
    // header bytes when there is no SYN), 0.4 ms + 10 ms; its 40-B ack 0.032 ms + 10 ms.
    let req0 = 0.0004 + 0.01 + 0.000032 + 0.01;
    // Response: all 10 segments at once (IW 10): 500 + 9 * 540 B = 4.288 ms, + 10 ms;
    // the last one's ack 0.032 ms + 10 ms.
    let resp0 = 0.004288 + 0.01 + 0.000032 + 0.01;
    assert!((o.request_s[0] - 1.0).abs() < 1e-9);
    // The response starts when the request's ack is back (the transfers table: request
    // of object 0, its response, request of object 1, its response).
    let t = &r.transfers;
    assert_eq!(t.flow.iter().collect::<Vec<_>>(), vec!["web.req.1", "web.1", "web.req.1", "web.1"]);
    assert!((t.start_s[1] - (1.0 + req0)).abs() < 1e-8, "{}", t.start_s[1]);
    assert!((o.time_s[0] - (req0 + resp0)).abs() < 1e-8, "{}", o.time_s[0]);
    // Object 1: every segment now carries its 40 header bytes (sequence numbers go on).
    let req1 = 0.000432 + 0.01 + 0.000032 + 0.01;
    let resp1 = 0.00432 + 0.01 + 0.000032 + 0.01;
    assert!((o.time_s[1] - (req1 + resp1)).abs() < 1e-8, "{}", o.time_s[1]);
    // The active OFF time between them: Weibull(shape 1000, scale 0.5) ~ 0.5 s.
    let gap = o.request_s[1] - o.end_s[0];
    assert!((gap - 0.5).abs() < 0.01, "active off {gap}");
}

#[test]
fn every_object_starts_on_a_fresh_connection() {
    // IW 2: without the renewal the second object would start with the window the
    // first one grew to.
    let r = shortflow_core::run(&one_user(2, TWO_FIXED_OBJECTS, 30.0)).unwrap();
    let t = &r.transfers;
    let resp: Vec<f64> = (0..t.flow.len()).filter(|&i| &t.flow[i] == "web.1").map(|i| t.initial_cwnd[i]).collect();
    assert_eq!(resp, vec![2.0, 2.0]);
    // 10 segments from IW 2 with an ack per segment take three round trips (2, 4, 4
    // segments; RTT ~ 20.5 ms) for both objects; a connection that kept the first
    // object's window (12 segments) would send the second in one.
    let d0 = t.completion_s[1];
    let d1 = t.completion_s[3];
    assert!(d0 > 0.06 && d1 > 0.06 && (d1 - d0).abs() < 0.001, "{d0} vs {d1}");
}

#[test]
fn users_keep_fetching_pages_with_the_default_distributions() {
    let r = shortflow_core::run(&one_user(4, "", 600.0)).unwrap();
    let o = &r.objects;
    let pages = o.page.iter().max().copied().unwrap_or(0) + 1;
    // Mean page cycle ~ 3 s think + a few tenths: well over 50 pages in 600 s.
    assert!(pages > 50, "{pages} pages");
    // Objects follow each other: a request never starts before the previous object ended.
    for k in 1..o.pair.len() {
        assert!(o.request_s[k] >= o.end_s[k - 1], "object {k}");
    }
    // Every object but possibly the last one finished.
    let unfinished = o.end_s.iter().filter(|e| e.is_nan()).count();
    assert!(unfinished <= 1);
}

#[test]
fn surge_fields_are_validated() {
    let cases: [(&str, &str); 4] = [
        (r#", "tail_alpha": -1.0"#, "apps[0].tail_alpha"),
        (r#", "max_object_bytes": 0"#, "apps[0].max_object_bytes"),
        (r#", "request_bytes": 0"#, "apps[0].request_bytes"),
        (r#", "stop_s": 0.5"#, "apps[0].stop_s"),
    ];
    for (extra, field) in cases {
        let cfg = one_user(4, extra, 10.0);
        let e = shortflow_core::Simulation::new(cfg).err().expect("rejected");
        assert_eq!(e.field, field, "{extra}: {e}");
    }
    // Two request flows for one user.
    let mut cfg = one_user(4, "", 10.0);
    if let shortflow_core::config::AppConfig::Surge(s) = &mut cfg.apps[0] {
        s.request_flows.push("web.req.1".into());
    }
    let e = shortflow_core::Simulation::new(cfg).err().expect("rejected");
    assert_eq!(e.field, "apps[0].request_flows", "{e}");
    // A request flow that does not run back from the client to the server.
    let mut cfg = one_user(4, "", 10.0);
    if let shortflow_core::config::AppConfig::Surge(s) = &mut cfg.apps[0] {
        s.request_flows = vec!["web.1".into()];
    }
    let e = shortflow_core::Simulation::new(cfg).err().expect("rejected");
    assert!(e.field == "apps[0].request_flows[0]", "{e}");
}
