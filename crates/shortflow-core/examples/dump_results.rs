//! Print one line per config: a 64-bit FNV-1a digest of everything a run produces
//! (every result table, with ack, cwnd and packet traces switched on), less the wall
//! time and the structures' bytes (`stats.sim_bytes`, which a layout change moves). Used to check that a refactoring changes no packet time: run it on the same
//! configs before and after and diff the output.
//! `cargo run --release -p shortflow-core --example dump_results -- A.config.json B.config.json ...`
fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let trace = v.as_object_mut().expect("config object").entry("trace").or_insert(serde_json::json!({}));
        let t = trace.as_object_mut().expect("trace object");
        t.insert("acks".into(), true.into());
        t.insert("cwnd".into(), true.into());
        // Packet traces trace every link, and a traced link folds no hop
        // (docs/architecture.md, "Folded hops"): `DUMP_FOLDABLE=1` leaves them off and
        // the digest leaves out the event count, to compare
        // a build that folds hops with one that does not.
        let foldable = std::env::var_os("DUMP_FOLDABLE").is_some();
        if !foldable {
            t.insert("packets".into(), true.into());
        }
        let cfg: shortflow_core::config::SimConfig =
            serde_json::from_value(v).unwrap_or_else(|e| panic!("{path}: {e}"));
        // `DUMP_LOOKAHEAD=1`: with `Simulation::enable_lookahead` (the same digests).
        let run = |cfg: &shortflow_core::config::SimConfig| {
            if std::env::var_os("DUMP_LOOKAHEAD").is_none() {
                return shortflow_core::run(cfg);
            }
            let mut sim = shortflow_core::Simulation::new(cfg.clone())?;
            sim.enable_lookahead();
            sim.run_to_end();
            Ok(sim.results())
        };
        match run(&cfg) {
            Ok(mut r) => {
                r.stats.wall_s = 0.0;
                let events = r.stats.events;
                r.stats.sim_bytes = 0;
                if foldable {
                    r.stats.events = 0;
                }
                let bytes = serde_json::to_vec(&r).expect("serialise");
                let mut h: u64 = 0xcbf29ce484222325;
                for b in &bytes {
                    h ^= *b as u64;
                    h = h.wrapping_mul(0x100000001b3);
                }
                println!("{h:016x} {events} events {} {path}", r.transfers.flow.len());
            }
            Err(e) => {
                println!("error {e} {path}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
