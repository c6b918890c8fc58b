//! Run a `SimConfig` JSON file and print the ack trace (flow time_s ackno) and a
//! summary: a debugging aid for comparing against ns-2 by hand.
//!
//!     cargo run --release -p shortflow-core --example run_json -- config.json

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_json CONFIG.json");
    let text = std::fs::read_to_string(&path).expect("read config");
    let cfg: shortflow_core::config::SimConfig = match serde_json::from_str(&text) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match shortflow_core::run(&cfg) {
        Ok(r) => {
            for i in 0..r.acks.flow.len() {
                println!("{} {:.9} {}", r.acks.flow[i], r.acks.time_ns[i] as f64 * 1e-9, r.acks.ackno[i]);
            }
            for i in 0..r.links.link.len() {
                eprintln!("link {} drops {} departures {}", &r.links.link[i], r.links.drops[i], r.links.departures[i]);
            }
            for i in 0..r.flows.flow.len() {
                eprintln!(
                    "flow {} sent {} retx {} timeouts {} acked_bytes {}",
                    &r.flows.flow[i],
                    r.flows.data_pkts_sent[i],
                    r.flows.retransmits[i],
                    r.flows.timeouts[i],
                    r.flows.bytes_acked[i]
                );
            }
            for i in 0..r.transfers.flow.len() {
                eprintln!(
                    "transfer {} round {} start {:.6} completion {:.6} retx {} timeouts {}",
                    &r.transfers.flow[i],
                    r.transfers.round[i],
                    r.transfers.start_s[i],
                    r.transfers.completion_s[i],
                    r.transfers.retransmits[i],
                    r.transfers.timeouts[i]
                );
            }
            eprintln!("events {} wall {:.3}s", r.stats.events, r.stats.wall_s);
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    }
}
