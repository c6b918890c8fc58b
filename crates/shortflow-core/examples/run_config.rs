//! Run a `SimConfig` JSON (e.g. `tests/golden/ns2/bench_a.config.json`) `N` times and
//! print the run statistics; handy under `perf record`:
//! `cargo run --release -p shortflow-core --example run_config -- CONFIG.json [N]`
//!
//! With `--footprint` instead of `N`, build the simulation once and print the memory it
//! holds before the first event (what `shortflow bench` reports for workload c):
//! `cargo run --release -p shortflow-core --example run_config -- tests/golden/ns2/bench_c.config.json --footprint`
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_config CONFIG.json [REPEAT | --footprint]");
        std::process::exit(2);
    };
    let mode = args.next();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let cfg: shortflow_core::config::SimConfig = serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    if mode.as_deref() == Some("--footprint") {
        footprint(&cfg);
        return;
    }
    let repeat: usize = mode.and_then(|s| s.parse().ok()).unwrap_or(1);
    for _ in 0..repeat {
        match shortflow_core::run(&cfg) {
            Ok(r) => {
                let s = &r.stats;
                println!(
                    "{} events, {} data packets delivered, {:.3} s simulated, {:.4} s wall, {:.3} M pkts/s",
                    s.events,
                    s.data_pkts_delivered,
                    s.sim_end_s,
                    s.wall_s,
                    s.data_pkts_delivered as f64 / s.wall_s / 1e6
                );
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1)
            }
        }
    }
}

fn footprint(cfg: &shortflow_core::config::SimConfig) {
    match shortflow_core::idle_footprint(cfg) {
        Ok(Some(f)) => println!(
            "{} TCP connections: resident set {} -> {} bytes, {:.0} bytes per connection",
            f.tcp_connections,
            f.rss_before_bytes,
            f.rss_after_bytes,
            f.bytes_per_connection()
        ),
        Ok(None) => println!("resident set not readable on this system"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
