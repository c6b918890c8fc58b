//! Uniform random loss on links and TCP Vienna (size-based congestion control, P4) in
//! whole simulations, on P4 Fig. 3's path: 10 Mb/s, 100 ms, a packet loss probability
//! of 0.025 on the data direction, 500-byte segments, IW 4, delayed acks.

use shortflow_core::config::SimConfig;
use shortflow_core::results::RunResults;

/// `n` transfers of `bytes` each on separate connections, one every `gap_s`, under the
/// congestion control `cc` (JSON).
fn path(cc: &str, n: usize, bytes: u64, gap_s: f64, loss: f64, seed: u64) -> SimConfig {
    let flows: Vec<String> = (0..n)
        .map(|k| {
            format!(
                r#"{{"name": "f{k}", "src": "s", "dst": "d",
                    "tcp": {{"variant": "newreno", "window": 1000, "window_init": 4, "packet_size": 500, "cc": {cc}}},
                    "sink": {{"delack": true}}}}"#
            )
        })
        .collect();
    let apps: Vec<String> = (0..n)
        .map(|k| {
            format!(r#"{{"kind": "ftp", "flow": "f{k}", "start_s": {}, "bytes": {bytes}}}"#, 1.0 + gap_s * k as f64)
        })
        .collect();
    let text = format!(
        r#"{{
        "seed": {seed}, "duration_s": {},
        "nodes": ["s", "d"],
        "links": [{{"src": "s", "dst": "d", "rate_bps": 1e7, "delay_s": 0.1, "loss": {loss}, "reverse_loss": 0.0,
                    "queue": {{"kind": "drop_tail", "limit_pkts": 100}}}}],
        "flows": [{}],
        "apps": [{}]
    }}"#,
        1.0 + gap_s * n as f64 + 200.0,
        flows.join(","),
        apps.join(",")
    );
    serde_json::from_str(&text).expect("config")
}

fn mean_completion(r: &RunResults) -> f64 {
    let c = &r.transfers.completion_s;
    assert!(c.iter().all(|x| x.is_finite()), "every transfer completes: {c:?}");
    c.iter().sum::<f64>() / c.len() as f64
}

#[test]
fn random_loss_drops_the_configured_fraction_of_one_direction() {
    let r = shortflow_core::run(&path(r#"{"kind": "ns2"}"#, 1, 5_000_000, 1.0, 0.025, 7)).unwrap();
    let fwd = r.links.link.iter().position(|l| l == "s->d").unwrap();
    let rev = r.links.link.iter().position(|l| l == "d->s").unwrap();
    let (drops, sent) = (r.links.drops[fwd] as f64, r.links.departures[fwd] as f64);
    let (p, sigma) = (drops / sent, (0.025f64 * 0.975 / sent).sqrt());
    eprintln!("{drops} of {sent} packets lost: {p:.4}");
    assert!(sent > 5000.0);
    assert!((p - 0.025).abs() < 4.0 * sigma, "loss fraction {p} vs 0.025 (sigma {sigma})");
    assert_eq!(r.links.drops[rev], 0, "reverse_loss = 0: no ack is lost");
    // Another seed draws other losses.
    let r2 = shortflow_core::run(&path(r#"{"kind": "ns2"}"#, 1, 5_000_000, 1.0, 0.025, 8)).unwrap();
    assert_ne!(r2.links.drops[fwd], r.links.drops[fwd]);
}

#[test]
fn bad_loss_probabilities_are_named() {
    for (loss, field) in [(-0.1, "links[0].loss"), (1.0, "links[0].loss"), (f64::NAN, "links[0].loss")] {
        let mut cfg = path(r#"{"kind": "ns2"}"#, 1, 10_000, 1.0, 0.0, 1);
        cfg.links[0].loss = loss;
        let e = shortflow_core::Simulation::new(cfg.clone()).err().expect("rejected");
        assert_eq!(e.field, field, "{e}");
    }
    let mut cfg = path(r#"{"kind": "ns2"}"#, 1, 10_000, 1.0, 0.0, 1);
    cfg.links[0].reverse_loss = Some(2.0);
    assert_eq!(shortflow_core::Simulation::new(cfg.clone()).err().expect("rejected").field, "links[0].reverse_loss");
}

#[test]
fn vienna_shortens_short_transfers_under_loss_and_leaves_loss_free_ones_alone() {
    // 60 transfers of 20 KB (40 segments) one after another: Vienna starts at its
    // upper bounds (γ = 2: a doubling slow start with delayed acks; β = 0.9), which
    // the model allows for flows this short, so they finish sooner than NewReno's.
    let reno = shortflow_core::run(&path(r#"{"kind": "ns2"}"#, 60, 20_000, 3.0, 0.025, 11)).unwrap();
    let v2 = shortflow_core::run(&path(r#"{"kind": "vienna"}"#, 60, 20_000, 3.0, 0.025, 11)).unwrap();
    let v1 = shortflow_core::run(&path(r#"{"kind": "vienna", "size": "known"}"#, 60, 20_000, 3.0, 0.025, 11)).unwrap();
    let (tr, t2, t1) = (mean_completion(&reno), mean_completion(&v2), mean_completion(&v1));
    eprintln!("mean completion: NewReno {tr:.3} s, Vienna V2 {t2:.3} s, V1 {t1:.3} s");
    assert!(t2 < 0.9 * tr, "V2 {t2} vs NewReno {tr}");
    assert!(t1 < 0.9 * tr, "V1 {t1} vs NewReno {tr}");
    // Without loss there is nothing to estimate: γ = 2 from the start still speeds up
    // slow start, but a single transfer's packets are the same.
    let reno0 = shortflow_core::run(&path(r#"{"kind": "ns2"}"#, 3, 20_000, 3.0, 0.0, 11)).unwrap();
    let v0 = shortflow_core::run(&path(r#"{"kind": "vienna"}"#, 3, 20_000, 3.0, 0.0, 11)).unwrap();
    assert!(mean_completion(&v0) < mean_completion(&reno0));
    assert_eq!(v0.transfers.retransmits.iter().sum::<u64>(), 0);
}

#[test]
fn vienna_config_is_validated() {
    for (cc, field) in [
        (r#"{"kind": "vienna", "max_interval": 0}"#, "flows[0].tcp.cc.max_interval"),
        (r#"{"kind": "vienna", "loss_weight": 1.5}"#, "flows[0].tcp.cc.loss_weight"),
        (r#"{"kind": "vienna", "model_b": 3}"#, "flows[0].tcp.cc.model_b"),
    ] {
        let e = shortflow_core::Simulation::new(path(cc, 1, 10_000, 1.0, 0.0, 1)).err().expect("rejected");
        assert_eq!(e.field, field, "{e}");
    }
}

/// The `cc` table's value of `metric` at each decision of the first flow.
fn decisions(r: &RunResults, metric: &str) -> Vec<f64> {
    let t = &r.cc;
    (0..t.metric.len()).filter(|&i| t.metric[i] == metric).map(|i| t.value[i]).collect()
}

#[test]
fn a_long_vienna_flow_starts_at_the_bounds_and_ends_as_reno() {
    // P4 Fig. 3: one long Vienna flow; its parameters start at (8, 0.9, 2) and fall to
    // (1, 0.5, 1) as the data sent grows past what a short flow may take.
    let r = shortflow_core::run(&path(r#"{"kind": "vienna"}"#, 1, 1_000_000, 1.0, 0.025, 5)).unwrap();
    let (alpha, beta, gamma) = (decisions(&r, "alpha"), decisions(&r, "beta"), decisions(&r, "gamma"));
    let sent = decisions(&r, "sent");
    let (b, b_max) = (decisions(&r, "model_b"), decisions(&r, "model_b_max"));
    eprintln!("decisions at N = {sent:?}\nalpha {alpha:?}\nbeta {beta:?}\ngamma {gamma:?}\nB {b:?}\nB_max {b_max:?}");
    assert!(sent.len() >= 4, "the start and evaluations after 1, 3, 11, 611, ... segments");
    assert_eq!((alpha[0], beta[0], gamma[0]), (8.0, 0.9, 2.0));
    assert_eq!(sent[0], 0.0);
    let last = sent.len() - 1;
    assert_eq!((alpha[last], beta[last], gamma[last]), (1.0, 0.5, 1.0));
    // Every evaluation that chose a setting other than the fallback keeps B below B_max.
    for i in 1..sent.len() {
        if (alpha[i], beta[i], gamma[i]) != (1.0, 0.5, 1.0) {
            assert!(b[i] < b_max[i], "decision {i}: B {} >= B_max {}", b[i], b_max[i]);
        }
    }
    assert!(r.cc.flow.iter().all(|f| f == "f0"));
}
