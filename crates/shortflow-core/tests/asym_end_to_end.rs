//! Thesis ch. 9 end to end: one bulk transfer over an asymmetric access link (10 Mb/s
//! down, 28.8 Kb/s up, 18-byte acks, k ~ 6). The upstream queue is RED with ECN marking
//! (without `wait`, so marks reach the receiver while the queue fills; see
//! scenarios/asym/common.md). With ACC (ECN-capable acks, sender adaptation) the receiver
//! raises its delayed-ack factor on the echoed marks: far fewer acks, fewer ack drops,
//! and the transfer is faster than with plain delayed acks behind the same queue.

use shortflow_core::config::SimConfig;
use shortflow_core::results::RunResults;

fn asym(acc: bool) -> SimConfig {
    let (tcp, sink) = if acc {
        (
            r#"{"window": 100, "window_init": 1, "syn": false, "delay_growth": false, "ecn": true, "maxburst": 4, "cc": {"kind": "sender_adaptation"}}"#,
            r#"{"ack_size": 18, "ack_policy": {"kind": "acc"}, "ect_acks": true}"#,
        )
    } else {
        (
            r#"{"window": 100, "window_init": 1, "syn": false, "delay_growth": false, "ecn": true}"#,
            r#"{"ack_size": 18, "ack_policy": {"kind": "delayed"}}"#,
        )
    };
    let text = format!(
        r#"{{
        "seed": 1, "duration_s": 100.0, "stop_when_done": true,
        "nodes": ["s", "r1", "r2", "c"],
        "links": [
            {{"src": "s", "dst": "r1", "rate_bps": 1e7, "delay_s": 0.001}},
            {{"src": "r1", "dst": "r2", "rate_bps": 1e7, "delay_s": 0.005,
              "queue": {{"kind": "drop_tail", "limit_pkts": 20}},
              "reverse_rate_bps": 28800, "reverse_delay_s": 0.085,
              "reverse_queue": {{"kind": "red", "limit_pkts": 20, "thresh": 3, "maxthresh": 12, "q_weight": 0.02,
                                "bytes": false, "queue_in_bytes": false, "setbit": true, "use_mark_p": false, "wait": false}}}},
            {{"src": "r2", "dst": "c", "rate_bps": 1e7, "delay_s": 0.001}}
        ],
        "flows": [{{"name": "down", "src": "s", "dst": "c", "tcp": {tcp}, "sink": {sink}}}],
        "apps": [{{"kind": "ftp", "flow": "down", "bytes": 2000000}}],
        "trace": {{"acks": true}}
    }}"#
    );
    serde_json::from_str(&text).expect("config")
}

fn upstream(r: &RunResults) -> usize {
    r.links.link.iter().position(|l| l == "r2->r1").unwrap()
}

#[test]
fn acc_thins_the_acks_on_a_congested_upstream_link() {
    let plain = shortflow_core::run(&asym(false)).unwrap();
    let acc = shortflow_core::run(&asym(true)).unwrap();
    let (up_p, up_a) = (upstream(&plain), upstream(&acc));
    let segs = 2000;
    let (acks_p, acks_a) = (plain.links.arrivals[up_p], acc.links.arrivals[up_a]);
    let (t_p, t_a) = (plain.transfers.completion_s[0], acc.transfers.completion_s[0]);
    eprintln!(
        "acks offered upstream {acks_p} -> {acks_a}, dropped {} -> {}, completion {t_p:.2} -> {t_a:.2} s",
        plain.links.drops[up_p], acc.links.drops[up_a]
    );
    // Delayed acks: about one ack per two segments.
    assert!(acks_p * 5 > segs * 2, "{acks_p}");
    // ACC: d grows on the echoed marks, beyond 3 segments per ack on average (measured:
    // 495 acks for 2000 segments).
    assert!(acks_a * 3 < segs, "ACC sent {acks_a} acks for {segs} segments");
    assert!(acc.links.drops[up_a] * 2 < plain.links.drops[up_p].max(1));
    assert!(t_a < t_p, "ACC {t_a} s vs delayed acks {t_p} s");
}

#[test]
fn the_reverse_direction_has_its_own_rate_and_delay() {
    let r = shortflow_core::run(&asym(false)).unwrap();
    // An 18-byte ack takes 5 ms at 28.8 Kb/s: the upstream link carries at most 200/s.
    let up = upstream(&r);
    let t = r.transfers.completion_s[0];
    assert!((r.links.departures[up] as f64) <= 200.0 * t + 1.0);
    // ... and bounds the downstream rate: B_down x d / k with d = 2, k = 10e6/28.8e3 / (1040/18).
    let k = 1e7 / 28.8e3 / (1040.0 / 18.0);
    let bound = 1e7 * 2.0 / k;
    let rate = 2000.0 * 8000.0 / t;
    assert!(rate < bound * 1.05, "{rate} vs bound {bound}");
    // A simplex link cannot have a reverse direction.
    let mut cfg = asym(false);
    cfg.links[1].duplex = false;
    let e = shortflow_core::run(&cfg).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("links[1].reverse_rate_bps", "set"));
    let mut cfg = asym(false);
    cfg.links[1].reverse_rate_bps = Some(0.0);
    let e = shortflow_core::run(&cfg).unwrap_err();
    assert_eq!(e.field, "links[1].reverse_rate_bps");
    let mut cfg = asym(false);
    cfg.links[1].reverse_delay_s = Some(-1.0);
    assert_eq!(shortflow_core::run(&cfg).unwrap_err().field, "links[1].reverse_delay_s");
}
