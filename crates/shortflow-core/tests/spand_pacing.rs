//! TCP/SPAND paces its initial window (spec tcp-spand §2.6): seen in a packet trace of a
//! whole simulation. One connection sends two 30-packet transfers; the first has no
//! gateway history and slow-starts, the second gets cwnd_opt from the gateway and must
//! leave as a token-bucket burst of `bucket_depth` segments followed by one segment per
//! `rtt / cwnd_opt`, exactly (the pacing timer is not quantised, spec A6).

use shortflow_core::config::SimConfig;
use shortflow_core::SimTime;

fn config(bucket_depth: u32) -> SimConfig {
    let text = format!(
        r#"{{
        "seed": 1, "duration_s": 60.0, "stop_when_done": true,
        "nodes": ["s", "r1", "r2", "d"],
        "links": [
            {{"src": "s", "dst": "r1", "rate_bps": 1e8, "delay_s": 0.001}},
            {{"src": "r1", "dst": "r2", "rate_bps": 1.6e6, "delay_s": 0.05,
              "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}},
            {{"src": "r2", "dst": "d", "rate_bps": 1e8, "delay_s": 0.001}}
        ],
        "flows": [{{"name": "f", "src": "s", "dst": "d",
                    "tcp": {{"variant": "newreno", "packet_size": 1000, "window": 100, "window_init": 1,
                             "syn": false, "tcp_tick_s": 0.05, "minrto_s": 0.0}},
                    "startup": {{"kind": "spand", "gateway": "gw", "bucket_depth": {bucket_depth}}}}}],
        "apps": [{{"kind": "rounds", "flows": ["f"], "rounds": 2, "size_bytes": 30000,
                   "jitter_s": 0.0, "idle_s": 5.0, "first_center_s": 1.0}}],
        "gateways": [{{"name": "gw"}}],
        "trace": {{"packets": true, "links": ["s->r1"]}}
    }}"#
    );
    serde_json::from_str(&text).unwrap()
}

/// (cwnd_opt, rtt estimate, enqueue times on s->r1 of the paced segments).
fn second_start(bucket_depth: u32) -> (usize, f64, Vec<u64>) {
    let r = shortflow_core::run(&config(bucket_depth)).unwrap();
    let st = &r.startup;
    assert_eq!(st.flow.len(), 2, "two transfer starts");
    assert!(st.fallback_slow_start[0], "no history before the first transfer: slow start");
    assert!(!st.fallback_slow_start[1], "the second transfer uses the gateway's estimate");
    let c = st.cwnd[1] as usize;
    let rtt = st.rtt_estimate_s[1];
    let pt = &r.packets;
    let mut times = Vec::new();
    for seq in 30..30 + c as i64 {
        let i = (0..pt.time_ns.len())
            .find(|&i| pt.event[i] == b'+' && pt.seqno[i] == seq)
            .unwrap_or_else(|| panic!("segment {seq} never enqueued on s->r1"));
        times.push(pt.time_ns[i]);
    }
    (c, rtt, times)
}

#[test]
fn paced_initial_window_leaves_as_burst_then_one_per_interval() {
    for depth in [4u32, 1] {
        let (c, rtt, t) = second_start(depth);
        // First transfer: slow start from 1 ends with cwnd 31 and no loss -> W_c 31,
        // cwnd_opt(30, 31, b = 1, shift) = 30: the whole transfer in one paced round.
        assert_eq!(c, 30, "cwnd_opt");
        let interval = SimTime::from_secs_f64(rtt / c as f64).as_nanos();
        let burst = depth as usize;
        for (k, &tk) in t.iter().enumerate() {
            let expect = t[0] + (k.saturating_sub(burst - 1) as u64) * interval;
            assert_eq!(tk, expect, "depth {depth}: segment {k} of the paced window at {tk} ns, expected {expect} ns");
        }
        // The paced round is slower than the bottleneck would force on a burst
        // (1000 B at 100 Mb/s = 80 µs apart), which is the point of pacing.
        assert!(interval > 1_000_000, "interval {interval} ns");
    }
}
