//! FTP applications' work (`traffic::FtpWork`): a finite transfer, an infinite source
//! that runs to the end, and infinite sources torn down at `stop_s` or `duration_s`
//! after their start: the connection sends nothing after its teardown.

use shortflow_core::config::SimConfig;

/// Four flows from `s` to `c` (10 Mb/s, 20 ms each way, a 1000-packet buffer), each
/// driven by one FTP application started at 1 s.
fn cfg() -> SimConfig {
    let flow = |n: &str| {
        format!(
            r#"{{"name": "{n}", "src": "s", "dst": "c", "tcp": {{"variant": "newreno", "window": 20, "packet_size": 1000}}}}"#
        )
    };
    let text = format!(
        r#"{{"seed": 1, "duration_s": 6.0, "nodes": ["s", "c"],
        "links": [{{"src": "s", "dst": "c", "rate_bps": 1e7, "delay_s": 0.02, "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}}],
        "flows": [{}, {}, {}, {}],
        "apps": [{{"kind": "ftp", "flow": "bytes", "start_s": 1.0, "bytes": 50000}},
                 {{"kind": "ftp", "flow": "forever", "start_s": 1.0}},
                 {{"kind": "ftp", "flow": "stop", "start_s": 1.0, "stop_s": 2.0}},
                 {{"kind": "ftp", "flow": "lifetime", "start_s": 1.0, "duration_s": 0.5}}],
        "trace": {{"acks": true}}}}"#,
        flow("bytes"),
        flow("forever"),
        flow("stop"),
        flow("lifetime")
    );
    serde_json::from_str(&text).expect("config")
}

#[test]
fn ftp_sources_stop_when_their_work_says() {
    let r = shortflow_core::run(&cfg()).expect("valid config");
    let last_ack = |flow: u32| -> f64 {
        let t = &r.acks;
        (0..t.flow.len()).filter(|&i| t.flow[i] == flow).map(|i| t.time_ns[i] as f64 / 1e9).fold(0.0, f64::max)
    };
    let sent = |flow: usize| r.flows.data_pkts_sent[flow];
    // The finite transfer: 50 packets and the SYN (ns-2 counts it in `ndatapack`), one
    // transfer record, finished.
    assert_eq!(r.transfers.bytes, vec![50_000]);
    assert!(r.transfers.end_s[0] > 1.0 && r.transfers.end_s[0] < 2.0, "{:?}", r.transfers.end_s);
    assert_eq!(sent(0), 51);
    // The others record no transfer; each sends until its teardown (acks of what was
    // in flight then come back within about one round trip).
    let (forever, stop, lifetime) = (last_ack(1), last_ack(2), last_ack(3));
    assert!(forever > 5.9, "forever: last ack at {forever}");
    assert!(stop > 1.9 && stop < 2.2, "stop_s 2.0: last ack at {stop}");
    assert!(lifetime > 1.4 && lifetime < 1.7, "duration_s 0.5: last ack at {lifetime}");
    assert!(sent(1) > sent(2) && sent(2) > sent(3) && sent(3) > 0, "{:?}", r.flows.data_pkts_sent);
}
