//! SACK recovery in a whole simulation, on the shape of the Linux reference's ssai=0
//! case (`../shared/linux/README.md`): a window of 30 segments sent at once into a
//! drop-tail queue where 10 packets may wait (ns-2 `limit` 11), 1.6 Mb/s, 50 ms one
//! way. Most of the burst is lost, the tail included, so no duplicate acks come back.
//! ns-2's NewReno has nothing to go on but its RTO; RACK-TLP with SACK repairs the
//! tail with a probe and SACK fast retransmits, without an RTO (as Linux does).

use shortflow_core::config::SimConfig;
use shortflow_core::results::RunResults;

fn burst(recovery: &str, sack: bool) -> RunResults {
    let link = |a: &str, b: &str, rate: f64, delay: f64, limit: u32| {
        format!(
            r#"{{"src": "{a}", "dst": "{b}", "rate_bps": {rate}, "delay_s": {delay}, "queue": {{"kind": "drop_tail", "limit_pkts": {limit}}}}}"#
        )
    };
    let text = format!(
        r#"{{
        "seed": 1, "duration_s": 30.0,
        "nodes": ["s", "r", "d"],
        "links": [{}, {}],
        "flows": [{{"name": "f", "src": "s", "dst": "d",
                   "tcp": {{"window": 100, "window_init": 30, "syn": false, "delay_growth": false,
                            "packet_size": 1448, "header_size": 52, "sack": {sack}, "recovery": {recovery}}}}}],
        "apps": [{{"kind": "ftp", "flow": "f", "start_s": 0.0, "bytes": {}}}]
    }}"#,
        link("s", "r", 1e9, 0.0, 1000),
        link("r", "d", 1.6e6, 0.05, 11),
        30 * 1448
    );
    let cfg: SimConfig = serde_json::from_str(&text).expect("config");
    shortflow_core::run(&cfg).expect("run")
}

#[test]
fn a_burst_into_a_small_queue_is_repaired_without_an_rto_by_rack_tlp() {
    let ns2 = burst(r#"{"kind": "ns2"}"#, false);
    let rack = burst(r#"{"kind": "rack_tlp", "prr": true}"#, true);
    let drops = |r: &RunResults| r.links.drops[r.links.link.iter().position(|l| l == "r->d").unwrap()];
    let f = |r: &RunResults| {
        (
            r.transfers.completion_s[0],
            r.flows.timeouts[0],
            r.flows.loss_probes[0],
            r.flows.fast_retrans[0],
            r.flows.sack_recoveries[0],
            r.flows.retrans_segs[0],
        )
    };
    eprintln!(
        "ns2: drops {} (completion, timeouts, probes, fast_retrans, sack_recoveries, retrans) {:?}",
        drops(&ns2),
        f(&ns2)
    );
    eprintln!("rack_tlp: drops {} {:?}", drops(&rack), f(&rack));
    assert_eq!(drops(&ns2), drops(&rack), "the same burst, the same drops");
    assert!(drops(&rack) >= 15, "most of the burst is lost: {}", drops(&rack));
    assert!(ns2.flows.timeouts[0] >= 1, "ns-2 recovery needs an RTO");
    assert_eq!(rack.flows.timeouts[0], 0, "RACK-TLP with SACK: no RTO");
    assert_eq!(rack.flows.loss_probes[0], 1, "one probe for the lost tail");
    assert_eq!(rack.flows.sack_recoveries[0], 1, "then one SACK recovery");
    assert_eq!(rack.flows.retrans_segs[0], drops(&rack), "every lost segment resent once, nothing else");
    assert!(rack.transfers.completion_s[0] < ns2.transfers.completion_s[0]);
}
