//! Memory of a built, idle simulation (what `shortflow bench` reports for workload c):
//! `cargo run --release -p shortflow-core --example footprint -- tests/golden/ns2/bench_c.config.json`
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: footprint CONFIG.json");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let cfg: shortflow_core::config::SimConfig = serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    match shortflow_core::idle_footprint(&cfg) {
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
