//! Run a `SimConfig` JSON (e.g. `tests/golden/ns2/bench_a.config.json`) `N` times and
//! print the run statistics; handy under `perf record`:
//! `cargo run --release -p shortflow-core --example run_config -- CONFIG.json [N]`
//!
//! With `--footprint` instead of `N`, build the simulation once and print the memory it
//! holds before the first event (what `shortflow bench` reports for workload c):
//! `cargo run --release -p shortflow-core --example run_config -- tests/golden/ns2/bench_c.config.json --footprint`
//!
//! With `--memory`, count every allocation (a counting global allocator) while the
//! simulation is built, run, its results collected and written out as JSON, and print
//! the bytes per TCP connection live after each phase and at each phase's peak, with
//! `Simulation::memory`'s breakdown by structure after building and after the run.
//!
//! With `--phases`, print the CPU time of each phase per delivered packet. A last
//! argument `--lookahead` (with `N` or `--phases`) runs with `Simulation::enable_lookahead`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Live and peak bytes allocated through the global allocator.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            LIVE.fetch_sub(l.size(), Relaxed);
            grew(new);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_config CONFIG.json [REPEAT | --footprint | --memory | --phases] [--lookahead]");
        std::process::exit(2);
    };
    let mode = args.next();
    let lookahead = args.next().as_deref() == Some("--lookahead") || mode.as_deref() == Some("--lookahead");
    let mode = mode.filter(|m| m != "--lookahead");
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
    if mode.as_deref() == Some("--memory") {
        memory(cfg);
        return;
    }
    if mode.as_deref() == Some("--phases") {
        phases(cfg, lookahead);
        return;
    }
    let repeat: usize = mode.and_then(|s| s.parse().ok()).unwrap_or(1);
    for _ in 0..repeat {
        let run = |cfg: &shortflow_core::config::SimConfig| {
            if !lookahead {
                return shortflow_core::run(cfg);
            }
            let t0 = std::time::Instant::now();
            let mut sim = shortflow_core::Simulation::new(cfg.clone())?;
            sim.enable_lookahead();
            sim.run_to_end();
            let mut r = sim.results();
            r.stats.wall_s = t0.elapsed().as_secs_f64();
            Ok(r)
        };
        match run(&cfg) {
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

/// See the module docs (`--memory`).
fn memory(cfg: shortflow_core::config::SimConfig) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut sim = shortflow_core::Simulation::new(cfg).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let n = sim.tcp_connections().max(1) as f64;
    let per = |b: usize| b.saturating_sub(base) as f64 / n;
    let mut phases = vec![("built", LIVE.load(Relaxed), PEAK.load(Relaxed))];
    let built = sim.memory();
    let built_sched = sim.scheduler_memory();
    sim.run_to_end();
    phases.push(("run", LIVE.load(Relaxed), PEAK.load(Relaxed)));
    let ran = sim.memory();
    let ran_sched = sim.scheduler_memory();
    let results = sim.into_results();
    phases.push(("results (simulation freed)", LIVE.load(Relaxed), PEAK.load(Relaxed)));
    let json = serde_json::to_string(&results).expect("results serialise");
    phases.push(("json", LIVE.load(Relaxed), PEAK.load(Relaxed)));
    println!(
        "{} TCP connections, {} bytes of results JSON ({:.0} per connection)",
        n,
        json.len(),
        json.len() as f64 / n
    );
    println!("{:<40} {:>12} {:>12}", "bytes per connection after", "live", "peak so far");
    for (name, live, peak) in phases {
        println!("{name:<40} {:>12.1} {:>12.1}", per(live), per(peak));
    }
    println!("{:<40} {:>12} {:>12}", "by structure (per connection)", "built", "after run");
    let (mut tb, mut tr) = (0, 0);
    for ((name, b), (_, r)) in built.iter().zip(&ran) {
        println!("{name:<40} {:>12.1} {:>12.1}", *b as f64 / n, *r as f64 / n);
        tb += b;
        tr += r;
    }
    println!("{:<40} {:>12.1} {:>12.1}", "sum of the structures", tb as f64 / n, tr as f64 / n);
    println!("{:<40} {:>12} {:>12}", "event queue by part (per connection)", "built", "after run");
    for ((name, b), (_, r)) in built_sched.iter().zip(&ran_sched) {
        println!("  {name:<38} {:>12.1} {:>12.1}", *b as f64 / n, *r as f64 / n);
    }
}

/// This thread's CPU time (user + system), seconds.
fn thread_cpu_s() -> f64 {
    let mut ts = libc_timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes one `timespec` through the valid pointer it gets.
    unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
#[repr(C)]
struct libc_timespec {
    tv_sec: i64,
    tv_nsec: i64,
}
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
extern "C" {
    fn clock_gettime(clk: i32, ts: *mut libc_timespec) -> i32;
}

/// See the module docs (`--phases`).
fn phases(cfg: shortflow_core::config::SimConfig, lookahead: bool) {
    let c0 = thread_cpu_s();
    let mut sim = shortflow_core::Simulation::new(cfg).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    if lookahead {
        sim.enable_lookahead();
    }
    let c1 = thread_cpu_s();
    sim.run_to_end();
    let c2 = thread_cpu_s();
    let r = sim.results();
    let c3 = thread_cpu_s();
    drop(sim);
    let c4 = thread_cpu_s();
    let pk = r.stats.data_pkts_delivered.max(1) as f64;
    println!(
        "{} events, {} data packets delivered, {} TCP connections; CPU ns per delivered packet: build {:.0}, run {:.0}, results {:.0}, free {:.0}, all {:.0} (s: {:.3} {:.3} {:.3} {:.3})",
        r.stats.events,
        r.stats.data_pkts_delivered,
        r.stats.tcp_connections,
        (c1 - c0) * 1e9 / pk,
        (c2 - c1) * 1e9 / pk,
        (c3 - c2) * 1e9 / pk,
        (c4 - c3) * 1e9 / pk,
        (c4 - c0) * 1e9 / pk,
        c1 - c0,
        c2 - c1,
        c3 - c2,
        c4 - c3
    );
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
