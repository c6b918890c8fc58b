//! The thesis's ch. 8 workload end to end (spec A.10.2, A.12): one persistent
//! connection per Web pair, a priming 100 KB page, 20 s idle, a 40 KB page; each page
//! an HTML object, then (after the pipelined request) the images; bulk cross traffic
//! started right after the first download (`start_after`). With Fast Start, the second
//! page's images leave in a paced low-priority window.

use shortflow_core::config::SimConfig;

fn config(startup: &str, queue: &str) -> SimConfig {
    let text = format!(
        r#"{{
        "seed": 3, "duration_s": 50.0, "stop_when_done": false,
        "nodes": ["s", "x", "r1", "r2", "c", "y"],
        "links": [
            {{"src": "s", "dst": "r1", "rate_bps": 1.5e7, "delay_s": 0.0, "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}},
            {{"src": "x", "dst": "r1", "rate_bps": 1.5e7, "delay_s": 0.0, "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}},
            {{"src": "r1", "dst": "r2", "rate_bps": 1.5e6, "delay_s": 0.05, "queue": {queue}}},
            {{"src": "r2", "dst": "c", "rate_bps": 1.5e7, "delay_s": 0.0, "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}},
            {{"src": "r2", "dst": "y", "rate_bps": 1.5e7, "delay_s": 0.0, "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}}
        ],
        "flows": [
            {{"name": "web", "src": "s", "dst": "c", "startup": {startup},
              "tcp": {{"variant": "newreno", "window": 100, "window_init": 1, "syn": false}}}},
            {{"name": "bulk", "src": "x", "dst": "y", "tcp": {{"variant": "newreno", "window": 100, "syn": false}}}}
        ],
        "apps": [
            {{"kind": "rounds", "flows": ["web"], "rounds": 2, "size_bytes": 100000, "round_sizes_bytes": [100000, 40000],
              "jitter_s": 0.0, "idle_s": 20.0, "first_center_s": 1.0,
              "page": {{"html_bytes": 1000, "request_gap_s": 0.0016}}}},
            {{"kind": "ftp", "flow": "bulk", "start_s": 30.0, "start_after": ["web"]}}
        ],
        "trace": {{"packets": true, "links": ["s->r1", "x->r1"]}}
    }}"#
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn pages_idle_and_cross_traffic_after_the_first_download() {
    let r = shortflow_core::run(&config(r#"{"kind": "fast_start"}"#, r#"{"kind": "drop_priority", "limit_pkts": 20}"#))
        .unwrap();
    let t = &r.transfers;
    let web: Vec<usize> = (0..t.flow.len()).filter(|&i| &t.flow[i] == "web").collect();
    assert_eq!(web.len(), 4, "HTML + images, twice");
    let b: Vec<u64> = web.iter().map(|&i| t.bytes[i]).collect();
    assert_eq!(b, [1000, 100_000, 1000, 40_000]);
    let rounds: Vec<u32> = web.iter().map(|&i| t.round[i]).collect();
    assert_eq!(rounds, [0, 0, 1, 1]);
    let (h0, i0, h1, i1) = (web[0], web[1], web[2], web[3]);
    assert_eq!(t.start_s[h0], 1.0);
    // The images follow the HTML's last ack by the request gap.
    assert!((t.start_s[i0] - (t.end_s[h0] + 0.0016)).abs() < 1e-9);
    assert!((t.start_s[i1] - (t.end_s[h1] + 0.0016)).abs() < 1e-9);
    // 20 s idle after the first page.
    assert!((t.start_s[h1] - (t.end_s[i0] + 20.0)).abs() < 1e-9);
    // The bulk flow starts 30 s after the first page is complete (after the second page
    // has started: its fast start meets an empty path).
    let pt = &r.packets;
    let bulk_flow = 1;
    let first = (0..pt.time_ns.len()).find(|&i| pt.flow[i] == bulk_flow && pt.event[i] == b'+').unwrap();
    let want = ((t.end_s[i0] + 30.0) * 1e9).round() as u64;
    assert!(pt.time_ns[first].abs_diff(want) <= 1, "{} vs {want}", pt.time_ns[first]);
    // Fast start for the second page: one trace row, marks on the web flow only after it.
    assert_eq!(r.startup.fallback_slow_start, vec![false]);
    assert!((r.startup.time_s[0] - t.start_s[h1]).abs() < 1e-9, "the HTML after the idle period starts it");
    let marked: Vec<usize> = (0..pt.time_ns.len()).filter(|&i| pt.low_prio[i] && pt.event[i] == b'+').collect();
    assert!(!marked.is_empty());
    assert!(marked.iter().all(|&i| pt.flow[i] == 0 && pt.time_ns[i] as f64 >= t.start_s[h1] * 1e9));
}

#[test]
fn tcp_baseline_restarts_slow_start_after_the_idle_period() {
    let r = shortflow_core::run(&config(r#"{"kind": "ns2"}"#, r#"{"kind": "drop_tail", "limit_pkts": 20}"#)).unwrap();
    let t = &r.transfers;
    let web: Vec<usize> = (0..t.flow.len()).filter(|&i| &t.flow[i] == "web").collect();
    assert_eq!(t.initial_cwnd[web[2]], 1.0, "ns-2's timer-driven slow-start restart");
    assert!(r.packets.low_prio.iter().all(|&l| !l));
}
