//! The Web workload (`traffic/web.rs`, thesis ch. 4–5, spec part E): every retrieval
//! mode on a hand-checkable loss-free path, with the exact expected page times, and
//! the bad-input cases.
//!
//! Path: server `s` — client `c`, one duplex link of 1 Gb/s and 50 ms, so a 40-byte
//! header takes 320 ns to send, a 340-byte request 2720 ns and a 1040-byte segment
//! 8320 ns. Segments of 1000 bytes payload, the SYN exchange modelled (ns-2 `syn_`),
//! one ack per segment, an initial window of 1 (the thesis's; ns-2.35's default is 2),
//! a window far above what the pages need.
//!
//! A control packet the client sends when a response completes (the next SYN or
//! request) leaves right behind the sink's ack of that response's last segment, so it
//! waits one header's serialisation (H) on the client's link.

use shortflow_core::config::SimConfig;
use shortflow_core::results::RunResults;

const D: f64 = 0.05;
const H: f64 = 40.0 * 8.0 / 1e9; // header (SYN, SYN-ACK, ack)
const Q: f64 = 340.0 * 8.0 / 1e9; // request: header + 300 bytes
const P: f64 = 1040.0 * 8.0 / 1e9; // a full data segment

/// A web workload over the two-node path; `extra` adds fields to the app table.
fn cfg(mode: &str, pages: &str, conns: usize, extra: &str) -> SimConfig {
    let flows: Vec<String> = (1..=conns)
        .map(|k| {
            format!(
                r#"{{"name": "w.1.{k}", "src": "s", "dst": "c",
                    "tcp": {{"variant": "newreno", "window": 100, "window_init": 1, "packet_size": 1000, "header_size": 40}}}}"#
            )
        })
        .collect();
    let names: Vec<String> = (1..=conns).map(|k| format!("\"w.1.{k}\"")).collect();
    let text = format!(
        r#"{{
        "seed": 1, "duration_s": 1000, "stop_when_done": true,
        "nodes": ["s", "c"],
        "links": [{{"src": "s", "dst": "c", "rate_bps": 1e9, "delay_s": {D},
                    "queue": {{"kind": "drop_tail", "limit_pkts": 1000}}}}],
        "flows": [{}],
        "apps": [{{"kind": "web", "mode": "{mode}", "pairs": [{{"name": "w.1", "conns": [{}]}}],
                   "pages": {pages}{extra}}}]
    }}"#,
        flows.join(","),
        names.join(",")
    );
    serde_json::from_str(&text).expect("config")
}

fn run(c: &SimConfig) -> RunResults {
    shortflow_core::run(c).expect("valid config")
}

/// Page download time of the first page.
fn page_time(r: &RunResults, k: usize) -> f64 {
    assert!(r.pages.download_s.len() > k, "page {k} recorded: {:?}", r.pages.download_s);
    r.pages.download_s[k]
}

fn close(got: f64, want: f64) {
    // Times are integer nanoseconds; the sums above round each term once.
    assert!((got - want).abs() < 20e-9, "got {got:.9} s, want {want:.9} s (diff {:.1} ns)", (got - want) * 1e9);
}

/// One object on a fresh connection: the client's SYN, the server's SYN-ACK (the
/// agent's `syn` segment), the client's ack with the request riding on it, one data
/// segment: 2 RTT plus three headers and one segment of serialisation.
const FRESH1: f64 = 4.0 * D + 3.0 * H + P;

const ONE_SEG_PAGE: &str = r#"[{"html_bytes": 1000, "image_bytes": [1000, 1000]}]"#;

#[test]
fn seq_mode_opens_one_connection_per_object_one_after_another() {
    let r = run(&cfg("seq", ONE_SEG_PAGE, 3, ""));
    close(page_time(&r, 0), 3.0 * FRESH1 + 2.0 * H);
    assert_eq!(r.pages.conns_opened, vec![3]);
    // Objects: HTML, image 1, image 2, each on its own connection, each FRESH1 long
    // (the images' SYNs wait behind an ack).
    assert_eq!(r.objects.conn, vec!["w.1.1", "w.1.2", "w.1.3"]);
    close(r.objects.time_s[0], FRESH1);
    for k in 1..3 {
        close(r.objects.time_s[k], FRESH1 + H);
    }
    assert_eq!(r.flows.data_pkts_sent, vec![2, 2, 2], "SYN + one segment each");
    // The run (stop_when_done) ends once the servers hold the last acks: every transfer
    // record is complete, half a round trip after the page.
    assert_eq!(r.transfers.end_s.len(), 3);
    assert!(r.transfers.end_s.iter().all(|e| e.is_finite()), "{:?}", r.transfers.end_s);
    close(r.stats.sim_end_s - r.pages.end_s[0], D + H);
}

#[test]
fn conc_mode_fetches_the_images_in_parallel_after_the_html() {
    // HTML, then three image connections at once: their SYNs leave back to back, and
    // the three data segments share the link.
    let page = r#"[{"html_bytes": 1000, "image_bytes": [1000, 1000, 1000]}]"#;
    let r = run(&cfg("conc", page, 4, ""));
    close(page_time(&r, 0), FRESH1 + H + 4.0 * D + 3.0 * H + 3.0 * P);
    assert_eq!(r.pages.conns_opened, vec![4]);
}

#[test]
fn conc_mode_with_k_connections_batches_the_images() {
    // parallel = 1 behaves as sequential.
    let page = r#"[{"html_bytes": 1000, "image_bytes": [1000, 1000, 1000]}]"#;
    let r = run(&cfg("conc", page, 4, r#", "parallel": 1"#));
    close(page_time(&r, 0), 4.0 * FRESH1 + 3.0 * H);
    // parallel = 2: images 1 and 2 together (image 2's segment queues behind image
    // 1's); image 3's connection opens when image 1 is in, and nothing competes with it.
    let r = run(&cfg("conc", page, 4, r#", "parallel": 2"#));
    close(r.objects.end_s[1] - r.objects.end_s[0], H + FRESH1);
    close(r.objects.end_s[2] - r.objects.end_s[0], H + FRESH1 + P);
    close(r.objects.request_s[3], r.objects.end_s[1]);
    close(page_time(&r, 0), 3.0 * FRESH1 + 2.0 * H);
}

#[test]
fn persistent_mode_sends_one_request_per_object_on_one_connection() {
    let r = run(&cfg("persistent", ONE_SEG_PAGE, 1, ""));
    // HTML on the fresh connection, then per image: request (340 B) + one segment.
    close(page_time(&r, 0), FRESH1 + 2.0 * (H + 2.0 * D + Q + P));
    assert_eq!(r.pages.conns_opened, vec![1]);
    assert_eq!(r.objects.conn, vec!["w.1.1", "w.1.1", "w.1.1"]);
}

#[test]
fn getlist_pipelines_the_image_requests() {
    let r = run(&cfg("getlist", ONE_SEG_PAGE, 1, ""));
    // Both requests leave when the HTML is in; the second response queues behind the
    // first on the link.
    close(page_time(&r, 0), FRESH1 + H + 2.0 * D + Q + 2.0 * P);
}

#[test]
fn getall_returns_the_page_in_one_stream() {
    let r = run(&cfg("getall", ONE_SEG_PAGE, 1, ""));
    // One request on the SYN; three segments: 1, then 2 in slow start.
    close(page_time(&r, 0), 6.0 * D + 4.0 * H + 3.0 * P);
    // The HTML arrives with the first segment, the images with the next two.
    close(r.objects.end_s[0], FRESH1);
}

#[test]
fn getall_coalesces_objects_into_full_segments() {
    // 500 + 500 + 1000 bytes = 2 segments in one stream (the HTML and image 1 share
    // the first), not 3.
    let page = r#"[{"html_bytes": 500, "image_bytes": [500, 1000]}]"#;
    let r = run(&cfg("getall", page, 1, ""));
    assert_eq!(r.flows.data_pkts_sent, vec![3], "SYN + 2 segments");
    close(r.objects.end_s[0], FRESH1);
    close(r.objects.end_s[1], FRESH1);
    close(page_time(&r, 0), FRESH1 + 2.0 * D + H + P);
}

#[test]
fn pages_repeat_after_the_think_time_on_the_open_connection() {
    let r = run(&cfg("persistent", r#"[{"html_bytes": 1000}]"#, 1, r#", "n_pages": 3, "think_s": 0.5"#));
    assert_eq!(r.pages.page, vec![0, 1, 2]);
    close(page_time(&r, 0), FRESH1);
    // Later pages: one request on the open connection, no SYN.
    close(page_time(&r, 1), 2.0 * D + Q + P);
    close(r.pages.start_s[1] - r.pages.end_s[0], 0.5);
    assert_eq!(r.pages.conns_opened, vec![1, 0, 0]);
}

#[test]
fn idle_close_makes_the_next_page_open_a_fresh_connection() {
    let r =
        run(&cfg("persistent", r#"[{"html_bytes": 1000}]"#, 2, r#", "n_pages": 2, "think_s": 2, "idle_close_s": 1"#));
    assert_eq!(r.pages.conns_opened, vec![1, 1]);
    close(page_time(&r, 1), FRESH1);
    assert_eq!(r.objects.conn, vec!["w.1.1", "w.1.2"]);
}

#[test]
fn server_think_time_delays_each_response() {
    let r = run(&cfg("persistent", ONE_SEG_PAGE, 1, r#", "server_think_s": 0.01"#));
    close(page_time(&r, 0), FRESH1 + 0.01 + 2.0 * (H + 2.0 * D + Q + P + 0.01));
}

#[test]
fn random_pages_come_from_the_apps_own_stream() {
    let rp = r#"[], "random_page": {"html": {"kind": "fixed", "bytes": 2000},
                  "image": {"kind": "pareto", "mean_bytes": 5000, "shape": 1.5}, "images_min": 1, "images_max": 3},
                  "n_pages": 4"#;
    let a = run(&cfg("getlist", rp, 1, ""));
    let b = run(&cfg("getlist", rp, 1, ""));
    assert_eq!(a.objects.bytes, b.objects.bytes, "same seed, same pages");
    assert_eq!(a.pages.page.len(), 4);
    assert!(a.objects.bytes.iter().zip(&a.objects.object).all(|(&b, &o)| if o == 0 { b == 2000 } else { b >= 1667 }));
    assert!(a.pages.objects.iter().all(|&n| (2..=4).contains(&n)));
}

#[test]
fn a_page_cut_short_by_the_run_is_reported_unfinished() {
    let mut c = cfg("seq", ONE_SEG_PAGE, 3, "");
    c.duration_s = 0.3;
    let r = run(&c);
    assert_eq!(r.pages.page, vec![0]);
    assert!(r.pages.end_s[0].is_nan());
    assert!(r.objects.end_s[0].is_finite() && r.objects.end_s[2].is_nan());
}

fn bad(c: SimConfig) -> String {
    match shortflow_core::run(&c) {
        Ok(_) => panic!("accepted a bad config"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_inputs_name_the_field_and_value() {
    let e = bad(cfg("pipelned", ONE_SEG_PAGE, 1, ""));
    assert!(e.contains("apps[0].mode") && e.contains("pipelned") && e.contains("getlist"), "{e}");
    let e = bad(cfg("getlst", ONE_SEG_PAGE, 1, ""));
    assert!(e.contains("did you mean") && e.contains("getlist"), "{e}");
    let e = bad(cfg("conc", ONE_SEG_PAGE, 3, r#", "parallel": 0"#));
    assert!(e.contains("apps[0].parallel") && e.contains("at least 1"), "{e}");
    let e = bad(cfg("seq", ONE_SEG_PAGE, 3, r#", "parallel": 2"#));
    assert!(e.contains("apps[0].parallel") && e.contains("conc"), "{e}");
    let e = bad(cfg("seq", "[]", 3, ""));
    assert!(e.contains("apps[0].pages") && e.contains("at least one page"), "{e}");
    let e = bad(cfg("seq", r#"[{"html_bytes": 0}]"#, 3, ""));
    assert!(e.contains("apps[0].pages[0].html_bytes"), "{e}");
    let e = bad(cfg("seq", r#"[{"html_bytes": 10, "image_bytes": [5, 0]}]"#, 3, ""));
    assert!(e.contains("apps[0].pages[0].image_bytes[1]"), "{e}");
    let e = bad(cfg("seq", ONE_SEG_PAGE, 2, ""));
    assert!(e.contains("apps[0].pairs[0].conns") && e.contains("at least 3"), "{e}");
    let e = bad(cfg("seq", ONE_SEG_PAGE, 3, r#", "idle_close_s": 1"#));
    assert!(e.contains("apps[0].idle_close_s"), "{e}");
    let e = bad(cfg("getall", ONE_SEG_PAGE, 1, r#", "n_pages": 0"#));
    assert!(e.contains("apps[0].n_pages"), "{e}");
    let e = bad(cfg("getall", ONE_SEG_PAGE, 1, r#", "think_s": -1"#));
    assert!(e.contains("apps[0].think_s"), "{e}");
    let rp = r#"[], "random_page": {"html": {"kind": "fixed", "bytes": 2000},
                  "image": {"kind": "pareto", "mean_bytes": 5000, "shape": 1.0}, "images_min": 1, "images_max": 3}"#;
    let e = bad(cfg("getall", rp, 1, ""));
    assert!(e.contains("apps[0].random_page.image.shape"), "{e}");
    let rp = r#"[], "random_page": {"html": {"kind": "fixed", "bytes": 2000},
                  "image": {"kind": "fixed", "bytes": 5}, "images_min": 4, "images_max": 3}"#;
    let e = bad(cfg("getall", rp, 1, ""));
    assert!(e.contains("apps[0].random_page.images_max"), "{e}");
    // A negative size does not parse (sizes are unsigned).
    let text = serde_json::to_string(&cfg("seq", ONE_SEG_PAGE, 3, ""))
        .unwrap()
        .replace("\"html_bytes\":1000", "\"html_bytes\":-5");
    assert!(serde_json::from_str::<SimConfig>(&text).is_err());
}
