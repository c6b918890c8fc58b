//! `shortflow._core`: the thin PyO3 boundary around `shortflow-core`.
//!
//! Everything crosses as JSON text (configurations in, result tables out), plain
//! numbers, or (`run_columns`) the result tables as typed column buffers, so the Python
//! side owns all presentation and the core owns all semantics.
//! Errors: configuration problems become `ValueError("field = value: message")`;
//! a panic inside the core never unwinds into Python: it is caught and reported as
//! `RuntimeError` with the panic message.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use shortflow_core::config::{InfeasiblePolicy, SimConfig};
use shortflow_core::spand::theory;
use shortflow_core::vienna;
use shortflow_core::{SimTime, Simulation};

/// Run `f`, turning a panic into a Python `RuntimeError` that names the operation.
fn guard<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(PyRuntimeError::new_err(format!(
            "shortflow core panicked in {what}: {} (this is a bug; please report it with the configuration)",
            panic_message(&payload)
        ))),
    }
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Parse a configuration, mapping serde errors to `ValueError`.
fn parse_config(config_json: &str) -> PyResult<SimConfig> {
    serde_json::from_str::<SimConfig>(config_json)
        .map_err(|e| PyValueError::new_err(format!("invalid simulation configuration: {e}")))
}

fn parse_policy(policy: &str) -> PyResult<InfeasiblePolicy> {
    match policy {
        "eq2" => Ok(InfeasiblePolicy::Eq2),
        "one" => Ok(InfeasiblePolicy::One),
        other => Err(PyValueError::new_err(format!(
            "policy = {other:?}: unknown infeasible policy (expected \"eq2\" or \"one\")"
        ))),
    }
}

/// Wall time one slice of a run aims at: between slices the run checks for Ctrl-C
/// (`check_signals`) and may report progress, so this bounds the interrupt latency.
const SLICE_WALL: Duration = Duration::from_millis(20);
/// Events in the first slice (later slices are sized from the measured event rate).
const FIRST_SLICE_EVENTS: u64 = 20_000;
/// The progress callback is called at most this often (and once at the end).
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Run `f` with the GIL released, turning a panic into a `RuntimeError` naming `what`.
fn detached_guard<T: Send>(py: Python<'_>, what: &str, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(move || catch_unwind(AssertUnwindSafe(f))).map_err(|p| {
        PyRuntimeError::new_err(format!(
            "shortflow core panicked in {what}: {} (this is a bug; please report it with the configuration)",
            panic_message(&p)
        ))
    })
}

/// Run one simulation. Takes the `SimConfig` JSON, returns the `RunResults` JSON.
///
/// The run goes in slices of about `SLICE_WALL` with the GIL released (threads may run
/// simulations in parallel); between slices it checks for signals, so Ctrl-C raises
/// `KeyboardInterrupt` within a slice, and calls `progress(events, sim_time_s,
/// duration_s)` at most every `PROGRESS_EVERY` and once at the end. Slices pause
/// between two events, so the results equal those of an unsliced run bit for bit.
/// `slice_events` fixes the slice length in events instead (for tests of exactly that).
/// `lookahead`: `Simulation::enable_lookahead` (the same results; `shortflow bench
/// --lookahead`).
#[pyfunction]
#[pyo3(signature = (config_json, progress=None, slice_events=None, lookahead=false))]
fn run(
    py: Python<'_>,
    config_json: &str,
    progress: Option<Bound<'_, PyAny>>,
    slice_events: Option<u64>,
    lookahead: bool,
) -> PyResult<String> {
    let results = simulate(py, config_json, progress, slice_events, lookahead)?;
    detached_guard(py, "run", move || serde_json::to_string(&results))?
        .map_err(|e| PyRuntimeError::new_err(format!("could not serialise results: {e}")))
}

/// `run`, with the result tables as typed columns instead of JSON text: returns
/// `(tables, stats_json)`, `tables` a dict from each table's name (in `RunResults`'
/// order, `stats` apart) to its columns, each a tuple `(name, kind, rows, data,
/// offsets, validity)` (`shortflow_core::columns`: `kind` is `Kind::name`, the buffers
/// are `bytes`, little-endian, `offsets` and `validity` `None` when the kind has none).
/// Each column is copied into its `bytes` and freed, and each table as soon as its
/// columns are out, so the run's tables are never held twice.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None, slice_events=None, lookahead=false))]
fn run_columns<'py>(
    py: Python<'py>,
    config_json: &str,
    progress: Option<Bound<'py, PyAny>>,
    slice_events: Option<u64>,
    lookahead: bool,
) -> PyResult<(Bound<'py, PyDict>, String)> {
    let mut results = simulate(py, config_json, progress, slice_events, lookahead)?;
    let stats = serde_json::to_string(&results.stats)
        .map_err(|e| PyRuntimeError::new_err(format!("could not serialise results: {e}")))?;
    let tables = PyDict::new(py);
    let mut current: Option<(&'static str, Vec<Bound<'py, PyTuple>>)> = None;
    let mut done: Vec<(&'static str, Vec<Bound<'py, PyTuple>>)> = Vec::new();
    let bytes = |b: &[u8]| -> Option<Bound<'py, PyBytes>> { (!b.is_empty()).then(|| PyBytes::new(py, b)) };
    guard("run_columns", || {
        results
            .drain_columns(&mut |table, c| {
                if current.as_ref().is_none_or(|(t, _)| *t != table) {
                    done.extend(current.replace((table, Vec::new())));
                }
                let data = PyBytes::new(py, &c.data);
                let offsets = bytes(&c.offsets);
                let validity = bytes(&c.validity);
                let col = (c.name, c.kind.name(), c.len, data, offsets, validity);
                drop(c);
                let tuple = col.into_pyobject(py).expect("a tuple of Python objects");
                current.as_mut().expect("set above").1.push(tuple);
            })
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })?;
    done.extend(current);
    for (table, cols) in done {
        tables.set_item(table, PyList::new(py, cols)?)?;
    }
    Ok((tables, stats))
}

/// Build and run a simulation (see `run`); the simulation is freed as its result tables
/// are built (`Simulation::into_results`): with 10^5 connections it held as much memory
/// again as the tables.
/// `lookahead`: `Simulation::enable_lookahead` (the same results with fewer events;
/// measured slower, for `shortflow bench --lookahead`).
fn simulate(
    py: Python<'_>,
    config_json: &str,
    progress: Option<Bound<'_, PyAny>>,
    slice_events: Option<u64>,
    lookahead: bool,
) -> PyResult<shortflow_core::results::RunResults> {
    if slice_events == Some(0) {
        return Err(PyValueError::new_err("slice_events = 0: a slice must hold at least one event"));
    }
    let cfg = parse_config(config_json)?;
    let duration_s = cfg.duration_s;
    let t0 = Instant::now();
    let mut sim =
        detached_guard(py, "run", move || Simulation::new(cfg))?.map_err(|e| PyValueError::new_err(e.to_string()))?;
    if lookahead {
        sim.enable_lookahead();
    }
    let mut fired = 0u64;
    let mut slice = slice_events.unwrap_or(FIRST_SLICE_EVENTS);
    let mut last_report = t0;
    loop {
        let target = fired.saturating_add(slice);
        let ts = Instant::now();
        let sim_ref = &mut sim;
        let paused = detached_guard(py, "run", move || sim_ref.run_until_events(SimTime::MAX, target))?;
        if !paused {
            break;
        }
        fired = target;
        if slice_events.is_none() {
            // Size the next slice from this one's event rate (at least 1000 events).
            let took = ts.elapsed().as_secs_f64().max(1e-6);
            slice = ((slice as f64) * SLICE_WALL.as_secs_f64() / took).clamp(1_000.0, 1e9) as u64;
        }
        py.check_signals()?;
        if let Some(cb) = &progress {
            if last_report.elapsed() >= PROGRESS_EVERY {
                cb.call1((fired, sim.now().as_secs_f64(), duration_s))?;
                last_report = Instant::now();
            }
        }
    }
    let mut results = sim.into_results();
    results.stats.wall_s = t0.elapsed().as_secs_f64();
    if let Some(cb) = &progress {
        cb.call1((results.stats.events, results.stats.sim_end_s, duration_s))?;
    }
    Ok(results)
}

/// Memory of a built, idle simulation: JSON with `rss_before_bytes`, `rss_after_bytes`,
/// `tcp_connections` and `bytes_per_connection`, or `null` where the resident set cannot
/// be read (non-Linux). Meant for a fresh process (`shortflow bench` runs it in one).
#[pyfunction]
fn idle_footprint(config_json: &str) -> PyResult<String> {
    guard("idle_footprint", || {
        let cfg = parse_config(config_json)?;
        let fp = shortflow_core::idle_footprint(&cfg).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let v = match fp {
            Some(f) => serde_json::json!({
                "rss_before_bytes": f.rss_before_bytes,
                "rss_after_bytes": f.rss_after_bytes,
                "tcp_connections": f.tcp_connections,
                "bytes_per_connection": f.bytes_per_connection(),
            }),
            None => serde_json::Value::Null,
        };
        Ok(v.to_string())
    })
}

/// Parse a configuration with every serde default filled in and serialise it again:
/// the full effective configuration (the cache key of a sweep task hashes this text).
#[pyfunction]
fn resolve(config_json: &str) -> PyResult<String> {
    guard("resolve", || {
        let cfg = parse_config(config_json)?;
        serde_json::to_string(&cfg).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })
}

/// A flow's `tcp` table (JSON object) with its profile's values filled in for every
/// field it leaves out (`shortflow_core::profile::resolve`, the rule the core applies
/// when it builds the flow), as JSON. Lets the Python checks see what a profile implies
/// without a second copy of the profile. Raises ValueError naming `tcp.profile` for an
/// unknown profile.
#[pyfunction]
fn resolve_tcp_profile(tcp_json: &str) -> PyResult<String> {
    guard("resolve_tcp_profile", || {
        let v: serde_json::Value =
            serde_json::from_str(tcp_json).map_err(|e| PyValueError::new_err(format!("tcp: {e}")))?;
        let serde_json::Value::Object(mut tcp) = v else {
            return Err(PyValueError::new_err("tcp: must be a table"));
        };
        let (mut sink, mut startup) = (serde_json::Map::new(), None);
        shortflow_core::profile::resolve(&mut tcp, &mut sink, &mut startup).map_err(PyValueError::new_err)?;
        serde_json::to_string(&tcp).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })
}

/// TCP/SPAND optimal initial window (packets) for a transfer of `f_pkts` packets
/// given the congestion-window estimate `wc` and `b` packets per ack.
#[pyfunction]
#[pyo3(signature = (f_pkts, wc, b=1.0, shift=true, policy="eq2", max_wnd=0))]
fn cwnd_opt(f_pkts: u64, wc: u32, b: f64, shift: bool, policy: &str, max_wnd: u32) -> PyResult<u32> {
    let pol = parse_policy(policy)?;
    check_model_args(wc, b)?;
    guard("cwnd_opt", || Ok(theory::cwnd_opt(f_pkts, wc, b, shift, pol, max_wnd)))
}

/// Every intermediate quantity of `cwnd_opt` as a dict: cwnd, cwnd_no_shift, m0 (None
/// when Eq. (3) has no solution), delta, f_e, r, feasible.
#[pyfunction]
#[pyo3(signature = (f_pkts, wc, b=1.0, policy="eq2", max_wnd=0))]
fn cwnd_opt_detail<'py>(
    py: Python<'py>,
    f_pkts: u64,
    wc: u32,
    b: f64,
    policy: &str,
    max_wnd: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let pol = parse_policy(policy)?;
    check_model_args(wc, b)?;
    let d = guard("cwnd_opt_detail", || Ok(theory::cwnd_opt_detail(f_pkts, wc, b, pol, max_wnd)))?;
    let out = PyDict::new(py);
    out.set_item("cwnd", d.cwnd)?;
    out.set_item("cwnd_no_shift", d.cwnd_no_shift)?;
    out.set_item("m0", d.m0)?;
    out.set_item("delta", d.delta)?;
    out.set_item("f_e", d.f_e)?;
    out.set_item("r", d.r)?;
    out.set_item("feasible", d.feasible)?;
    Ok(out)
}

/// F_E(W_c, b): the largest transfer (packets) whose congestion-avoidance start beats
/// slow start, Eq. (2) of the TCP/SPAND analysis.
#[pyfunction]
#[pyo3(signature = (wc, b=1.0))]
fn f_e(wc: u32, b: f64) -> PyResult<f64> {
    check_model_args(wc, b)?;
    guard("f_e", || Ok(theory::f_e(wc, b)))
}

/// Packets sent in each RTT when a transfer of `f` packets starts in congestion
/// avoidance at window `start` (model of the TCP/SPAND paper).
#[pyfunction]
#[pyo3(signature = (f, start, wc, b=1.0))]
fn ca_schedule(f: u64, start: u32, wc: u32, b: f64) -> PyResult<Vec<f64>> {
    check_model_args(wc, b)?;
    guard("ca_schedule", || Ok(theory::ca_schedule(f, start, wc, b)))
}

/// Packets sent in each RTT when a transfer of `f` packets starts in slow start with
/// initial window `iw`.
#[pyfunction]
#[pyo3(signature = (f, iw, wc, b=1.0))]
fn slow_start_schedule(f: u64, iw: u32, wc: u32, b: f64) -> PyResult<Vec<f64>> {
    check_model_args(wc, b)?;
    guard("slow_start_schedule", || Ok(theory::slow_start_schedule(f, iw, wc, b)))
}

fn check_model_args(wc: u32, b: f64) -> PyResult<()> {
    if wc == 0 {
        return Err(PyValueError::new_err("wc = 0: the congestion-window estimate must be at least 1 packet"));
    }
    if !(b.is_finite() && b > 0.0) {
        return Err(PyValueError::new_err(format!(
            "b = {b}: packets per ack must be a positive finite number (1 = ack every packet, 2 = delayed acks)"
        )));
    }
    Ok(())
}

/// TCP Vienna's model (P4 §4.3, spec fairshare-and-sizebased B.4): the inputs checked
/// and turned into a `PathModel`.
fn vienna_path(
    p: f64,
    rtt: f64,
    t0: f64,
    w1: f64,
    b: f64,
    wmax: f64,
    window_model: &str,
) -> PyResult<vienna::PathModel> {
    if !(p.is_finite() && p > 0.0 && p < 1.0) {
        return Err(PyValueError::new_err(format!("p = {p}: the loss probability must be in (0, 1)")));
    }
    for (name, v) in [("rtt", rtt), ("t0", t0)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(PyValueError::new_err(format!("{name} = {v}: must be a positive number of seconds")));
        }
    }
    if !(w1.is_finite() && w1 >= 1.0) {
        return Err(PyValueError::new_err(format!("w1 = {w1}: the initial window must be at least 1 segment")));
    }
    if b != 1.0 && b != 2.0 {
        return Err(PyValueError::new_err(format!("b = {b}: segments per ack must be 1 (no delayed acks) or 2")));
    }
    if !(wmax >= 1.0) {
        return Err(PyValueError::new_err(format!(
            "wmax = {wmax}: the receiver window must be at least 1 segment (inf for none)"
        )));
    }
    let window_model = match window_model {
        "F" | "f" => vienna::WindowModel::F,
        "P2" | "p2" => vienna::WindowModel::P2,
        other => return Err(PyValueError::new_err(format!("window_model = {other:?}: use \"F\" (default) or \"P2\""))),
    };
    let mut m = vienna::PathModel::new(p, rtt, t0, w1);
    m.b = b;
    m.wmax = wmax;
    m.window_model = window_model;
    Ok(m)
}

/// The flow size `d` of TCP Vienna's model: at least one segment.
fn check_flow_size(d: f64) -> PyResult<()> {
    if !(d.is_finite() && d >= 1.0) {
        return Err(PyValueError::new_err(format!("d = {d}: the flow size must be at least 1 segment")));
    }
    Ok(())
}

/// TCP Vienna's model throughput B(α, β, γ, d, p, RTT) in segments per second, with the
/// latency terms (s) and B_max (a long delayed-ack Reno flow on the same path).
#[pyfunction]
#[pyo3(signature = (alpha, beta, gamma, d, p, rtt, t0, w1=4.0, b=2.0, wmax=f64::INFINITY, window_model="F"))]
#[allow(clippy::too_many_arguments)]
fn vienna_throughput<'py>(
    py: Python<'py>,
    alpha: f64,
    beta: f64,
    gamma: f64,
    d: f64,
    p: f64,
    rtt: f64,
    t0: f64,
    w1: f64,
    b: f64,
    wmax: f64,
    window_model: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let path = vienna_path(p, rtt, t0, w1, b, wmax, window_model)?;
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(PyValueError::new_err(format!("alpha = {alpha}: the additive increase must be positive")));
    }
    if !(beta > 0.0 && beta < 1.0) {
        return Err(PyValueError::new_err(format!("beta = {beta}: the retained fraction must be in (0, 1)")));
    }
    if !(gamma.is_finite() && gamma > 0.0) {
        return Err(PyValueError::new_err(format!("gamma = {gamma}: the slow-start step must be positive")));
    }
    check_flow_size(d)?;
    let x = vienna::Params { alpha, beta, gamma };
    let (l, b_max) =
        guard("vienna_throughput", || Ok((vienna::latency(x, d, &path), vienna::long_flow_throughput(&path))))?;
    let out = PyDict::new(py);
    out.set_item("b", d / l.total())?;
    out.set_item("b_max", b_max)?;
    out.set_item("latency", l.total())?;
    out.set_item("setup", l.setup)?;
    out.set_item("slow_start", l.slow_start)?;
    out.set_item("first_loss", l.first_loss)?;
    out.set_item("cong_avoid", l.cong_avoid)?;
    out.set_item("delack", l.delack)?;
    out.set_item("expected_window", vienna::expected_window(alpha, beta, path.b, p, path.window_model))?;
    Ok(out)
}

/// P4's parameter selection for a transfer of `d` segments: the chosen (alpha, beta,
/// gamma), its model throughput, B_max and whether the Reno fallback was taken.
#[pyfunction]
#[pyo3(signature = (d, p, rtt, t0, w1=4.0, b=2.0, wmax=f64::INFINITY, window_model="F", full_grid=false))]
#[allow(clippy::too_many_arguments)]
fn vienna_select<'py>(
    py: Python<'py>,
    d: f64,
    p: f64,
    rtt: f64,
    t0: f64,
    w1: f64,
    b: f64,
    wmax: f64,
    window_model: &str,
    full_grid: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let path = vienna_path(p, rtt, t0, w1, b, wmax, window_model)?;
    check_flow_size(d)?;
    let s = guard("vienna_select", || Ok(vienna::select(d, &path, full_grid)))?;
    let out = PyDict::new(py);
    out.set_item("alpha", s.params.alpha)?;
    out.set_item("beta", s.params.beta)?;
    out.set_item("gamma", s.params.gamma)?;
    out.set_item("b", s.b)?;
    out.set_item("b_max", s.b_max)?;
    out.set_item("fallback", s.fallback)?;
    Ok(out)
}

/// Version of the compiled core (the Cargo package version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_columns, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_tcp_profile, m)?)?;
    m.add_function(wrap_pyfunction!(idle_footprint, m)?)?;
    m.add_function(wrap_pyfunction!(cwnd_opt, m)?)?;
    m.add_function(wrap_pyfunction!(cwnd_opt_detail, m)?)?;
    m.add_function(wrap_pyfunction!(f_e, m)?)?;
    m.add_function(wrap_pyfunction!(ca_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(slow_start_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(vienna_throughput, m)?)?;
    m.add_function(wrap_pyfunction!(vienna_select, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
