//! `idle_footprint` measures something real: 5 000 idle connections grow the resident
//! set by at least the size of their sender and sink structs. (The memory *target* is
//! a benchmark, `shortflow bench -w c`, not a test.)

use shortflow_core::config::SimConfig;

#[test]
fn footprint_counts_the_connections() {
    let n = 5000;
    let flows: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"name": "t{i}", "src": "s", "dst": "d", "tcp": {{"variant": "newreno"}}}}"#))
        .collect();
    let apps: Vec<String> =
        (0..n).map(|i| format!(r#"{{"kind": "ftp", "flow": "t{i}", "start_s": 1.0, "bytes": 30000}}"#)).collect();
    let text = format!(
        r#"{{"seed": 1, "duration_s": 10.0, "nodes": ["s", "r1", "r2", "d"],
            "links": [{{"src": "s", "dst": "r1", "rate_bps": 1e8, "delay_s": 0.001}},
                      {{"src": "r1", "dst": "r2", "rate_bps": 1e7, "delay_s": 0.01}},
                      {{"src": "r2", "dst": "d", "rate_bps": 1e8, "delay_s": 0.001}}],
            "flows": [{}], "apps": [{}]}}"#,
        flows.join(","),
        apps.join(",")
    );
    let cfg: SimConfig = serde_json::from_str(&text).unwrap();
    let fp = shortflow_core::idle_footprint(&cfg).unwrap();
    if cfg!(target_os = "linux") {
        let fp = fp.expect("VmRSS is readable on Linux");
        assert_eq!(fp.tcp_connections, n);
        let floor = (std::mem::size_of::<shortflow_core::tcp::sender::TcpConn>()
            + std::mem::size_of::<shortflow_core::tcp::control::ControlBlock>()
            + std::mem::size_of::<shortflow_core::tcp::sink::TcpSink>()) as f64;
        assert!(
            fp.bytes_per_connection() >= floor,
            "{} B per connection < {floor} B of structs",
            fp.bytes_per_connection()
        );
    }
}
