//! ECN end to end in a whole simulation: senders send ECT data, RED (setbit) marks CE
//! instead of dropping early, sinks echo, senders halve without a retransmission.
//! Against the same dumbbell without ECN, early drops become marks: fewer drops and
//! fewer retransmissions, while the link stays as busy.

use shortflow_core::config::SimConfig;

fn dumbbell(ecn: bool) -> SimConfig {
    let flows: Vec<String> = (0..4)
        .map(|k| format!(r#"{{"name": "f{k}", "src": "s", "dst": "d", "tcp": {{"ecn": {ecn}, "window": 100}}}}"#))
        .collect();
    let apps: Vec<String> =
        (0..4).map(|k| format!(r#"{{"kind": "ftp", "flow": "f{k}", "start_s": {}}}"#, 0.1 * k as f64)).collect();
    let text = format!(
        r#"{{
        "seed": 3, "duration_s": 60.0,
        "nodes": ["s", "r1", "r2", "d"],
        "links": [
            {{"src": "s", "dst": "r1", "rate_bps": 1e8, "delay_s": 0.001}},
            {{"src": "r1", "dst": "r2", "rate_bps": 1.5e6, "delay_s": 0.02,
              "queue": {{"kind": "red", "limit_pkts": 50, "setbit": true, "queue_in_bytes": false, "bytes": false}}}},
            {{"src": "r2", "dst": "d", "rate_bps": 1e8, "delay_s": 0.001}}
        ],
        "flows": [{}],
        "apps": [{}]
    }}"#,
        flows.join(","),
        apps.join(",")
    );
    serde_json::from_str(&text).expect("config")
}

#[test]
fn red_marks_replace_early_drops() {
    let plain = shortflow_core::run(&dumbbell(false)).unwrap();
    let ecn = shortflow_core::run(&dumbbell(true)).unwrap();
    let bottleneck = |r: &shortflow_core::results::RunResults| r.links.link.iter().position(|l| l == "r1->r2").unwrap();
    let (bp, be) = (bottleneck(&plain), bottleneck(&ecn));
    let (drops_plain, drops_ecn) = (plain.links.drops[bp], ecn.links.drops[be]);
    let rtx = |r: &shortflow_core::results::RunResults| r.flows.retransmits.iter().sum::<u64>();
    eprintln!(
        "drops {drops_plain} -> {drops_ecn}, retransmits {} -> {}, final cwnd {:?}",
        rtx(&plain),
        rtx(&ecn),
        ecn.flows.final_cwnd
    );
    assert!(drops_plain > 20, "RED drops early without ECN: {drops_plain}");
    assert!(drops_ecn * 4 < drops_plain, "with ECN most early drops become marks: {drops_ecn} vs {drops_plain}");
    assert!(rtx(&ecn) * 4 < rtx(&plain), "and retransmissions fall: {} vs {}", rtx(&ecn), rtx(&plain));
    // The window still reacts: the link is as busy, and no flow runs away with it.
    let sent = |r: &shortflow_core::results::RunResults, l: usize| r.links.bytes_departed[l] as f64;
    assert!(sent(&ecn, be) > 0.95 * sent(&plain, bp), "{} vs {}", sent(&ecn, be), sent(&plain, bp));
    let cw = &ecn.flows.final_cwnd;
    assert!(cw.iter().all(|&c| c < 60.0), "windows are held down by marks: {cw:?}");
}
