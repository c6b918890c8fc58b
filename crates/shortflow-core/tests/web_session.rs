//! The Web workload under a TCP session (thesis ch. 6, spec parts C, E, F.2, F.4, F.5):
//! a pair's HTTP/1.0 connections share one session control block at the server.
//!
//! Path: server `s` — client `c`, one duplex link of 1 Gb/s and 50 ms (D), so
//! serialisation is negligible next to the rounds (a 1040-byte segment takes 8.32 µs):
//! the page times below are counted in one-way delays, with a bound on what
//! serialisation can add. Segments of 1000 bytes, the SYN exchange modelled, one ack per
//! segment, IW 1 (the thesis's), coarse timers never firing (no loss).

use shortflow_core::config::SimConfig;
use shortflow_core::results::RunResults;

const D: f64 = 0.05;
/// Every packet of the pages below serialised once at 1 Gb/s is well under this.
const SER: f64 = 0.5e-3;

/// One pair downloading `pages` (the app's `pages` JSON) over `conns` connections;
/// `session` is the flows' session table (JSON) or "" for independent connections;
/// `extra` adds app fields.
fn cfg(mode: &str, pages: &str, conns: usize, window: u32, session: &str, extra: &str, trace: bool) -> SimConfig {
    let sess = if session.is_empty() { String::new() } else { format!(r#", "session": {session}"#) };
    let flows: Vec<String> = (1..=conns)
        .map(|k| {
            format!(
                r#"{{"name": "w.1.{k}", "src": "s", "dst": "c"{sess},
                    "tcp": {{"variant": "newreno", "window": {window}, "window_init": 1, "packet_size": 1000, "header_size": 40,
                             "tcp_tick_s": 0.5, "minrto_s": 1.0, "rtxcur_init_s": 3.0}}}}"#
            )
        })
        .collect();
    let names: Vec<String> = (1..=conns).map(|k| format!("\"w.1.{k}\"")).collect();
    let tr = if trace { r#", "trace": {"packets": true, "acks": true, "links": ["s->c"]}"# } else { "" };
    let text = format!(
        r#"{{
        "seed": 1, "duration_s": 1000, "stop_when_done": true,
        "nodes": ["s", "c"],
        "links": [{{"src": "s", "dst": "c", "rate_bps": 1e9, "delay_s": {D},
                    "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}}],
        "flows": [{}],
        "apps": [{{"kind": "web", "mode": "{mode}", "pairs": [{{"name": "w.1", "conns": [{}]}}],
                   "pages": {pages}{extra}}}]{tr}
    }}"#,
        flows.join(","),
        names.join(",")
    );
    serde_json::from_str(&text).expect("config")
}

fn run(c: &SimConfig) -> RunResults {
    shortflow_core::run(c).expect("valid config")
}

/// `got` is `rounds` one-way delays plus serialisation.
fn rounds(got: f64, one_way_delays: f64) {
    let want = one_way_delays * D;
    assert!(
        got >= want && got < want + SER,
        "got {got:.6} s, want {one_way_delays} D = {want:.3} s (+ < {SER} s of serialisation)"
    );
}

/// HTML of one segment and 4 images of 10 segments (spec C.9's page shape).
const PAGE4: &str = r#"[{"html_bytes": 1000, "image_bytes": [10000, 10000, 10000, 10000]}]"#;

#[test]
fn page_times_on_a_loss_free_path_count_the_session_rounds() {
    // HTML: SYN at 0, SYN-ACK, ack + request, data: in at 4 D; its ack reaches the
    // server at 5 D (window 1 -> 2) and the server closes it; the image SYNs arrive
    // right behind that ack; their SYN-ACK round ends at 7 D.
    //
    // Independent connections: each image 1, 2, 4, 3 segments: 4 rounds, done at 14 D.
    let r = run(&cfg("conc", PAGE4, 5, 32, "", "", false));
    rounds(r.pages.download_s[0], 14.0);
    // Session, the SCB lingering across the ~0 gap (F.4 default 1 s): the image phase
    // inherits the HTML's window of 2: 40 segments in rounds of 2, 4, 8, 16, 10 -> 16 D.
    let r = run(&cfg("conc", PAGE4, 5, 32, "{}", "", false));
    rounds(r.pages.download_s[0], 16.0);
    // The SCB dies with the HTML connection (linger 0, spec F.4's sensitivity case):
    // 1, 2, 4, 8, 16, 9 -> 18 D.
    let r = run(&cfg("conc", PAGE4, 5, 32, r#"{"linger_s": 0}"#, "", false));
    rounds(r.pages.download_s[0], 18.0);
    // HTTP/1.0 sequential under a session: each object costs 4 D for its first round
    // (SYN, SYN-ACK, ack + request, data) and 2 D per further round, and each image
    // inherits the window the previous objects grew: image 1 from 2 (2, 4, 4: two more
    // rounds), images 2-4 from 12 and more (one round each).
    let r = run(&cfg("seq", PAGE4, 5, 32, "{}", "", false));
    rounds(r.pages.download_s[0], 4.0 + (4.0 + 2.0 * 2.0) + 3.0 * 4.0);
}

#[test]
fn a_page_over_a_session_never_has_more_than_one_window_in_flight() {
    // HTML + 10 images of 10 segments, a 8-segment window (spec F.5: the receiver's
    // window caps the session's window too). Data segments in flight across all the
    // pair's connections, from the server's sends (link s->c) and the acks it received.
    let page = r#"[{"html_bytes": 1000, "image_bytes": [10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000]}]"#;
    let max_flight = |session: &str| -> usize {
        let r = run(&cfg("conc", page, 11, 8, session, "", true));
        assert!(r.pages.download_s[0].is_finite());
        let (p, a) = (&r.packets, &r.acks);
        let n = r.flows.flow.len();
        let (mut sent, mut acked) = (vec![0i64; n], vec![0i64; n]);
        let (mut j, mut most) = (0, 0);
        for i in 0..p.time_ns.len() {
            // Data segments as the server sends them (enqueued on its link); the SYN
            // (seq 0) is a control segment outside the window.
            if p.event[i] != b'+' || p.kind[i] != 0 || p.seqno[i] < 1 {
                continue;
            }
            while j < a.time_ns.len() && a.time_ns[j] <= p.time_ns[i] {
                let f = a.flow[j] as usize;
                acked[f] = acked[f].max(a.ackno[j]);
                j += 1;
            }
            let f = p.flow[i] as usize;
            sent[f] = sent[f].max(p.seqno[i]);
            let flight: i64 = (0..n).map(|k| sent[k] - acked[k].max(0)).sum();
            most = most.max(flight as usize);
        }
        most
    };
    assert_eq!(max_flight("{}"), 8, "one session: never more than one window, and it fills it");
    let indep = max_flight("");
    assert!(indep > 8, "10 independent connections have {indep} segments in flight at most (each its own window of 8)");
}

#[test]
fn the_scb_carries_the_window_across_a_short_think_time_but_not_a_long_one() {
    // Two pages 0.5 s apart: the SCB lingers (1 s) and the session is idle for less
    // than the RTO (1 s minimum), so the second page starts from the first's window
    // and is faster. 5 s apart: the SCB was destroyed, the second page starts afresh
    // and takes exactly as long as the first.
    let two = |think: f64| {
        let r = run(&cfg("conc", PAGE4, 10, 32, "{}", &format!(r#", "n_pages": 2, "think_s": {think}"#), false));
        (r.pages.download_s[0], r.pages.download_s[1])
    };
    let (first, second) = two(0.5);
    rounds(first, 16.0);
    assert!(second < first - 2.0 * D, "0.5 s think: {second:.4} s after {first:.4} s");
    let (first, second) = two(5.0);
    assert!((second - first).abs() < 1e-6, "5 s think: a fresh SCB, the same time: {first:.6} vs {second:.6}");
}

#[test]
fn members_of_one_session_must_agree_on_the_linger() {
    let mut c = cfg("conc", PAGE4, 5, 32, "{}", "", false);
    c.flows[2].session.as_mut().unwrap().linger_s = 2.0;
    let e = shortflow_core::run(&c).unwrap_err().to_string();
    assert!(e.contains("flows[2].session.linger_s") && e.contains("differs"), "{e}");
    let mut c = cfg("conc", PAGE4, 5, 32, "{}", "", false);
    c.flows[0].session.as_mut().unwrap().linger_s = -1.0;
    let e = shortflow_core::run(&c).unwrap_err().to_string();
    assert!(e.contains("flows[0].session.linger_s") && e.contains("-1"), "{e}");
}
