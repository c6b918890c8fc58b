//! `shortflow._core`: the thin PyO3 boundary around `shortflow-core`.
//!
//! Everything crosses as JSON text (configurations in, result tables out) or plain
//! numbers, so the Python side owns all presentation and the core owns all semantics.
//! Errors: configuration problems become `ValueError("field = value: message")`;
//! a panic inside the core never unwinds into Python: it is caught and reported as
//! `RuntimeError` with the panic message.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use shortflow_core::config::{InfeasiblePolicy, SimConfig};
use shortflow_core::spand::theory;

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

enum RunError {
    Config(String),
    Panic(String),
    Json(String),
}

/// Run one simulation. Takes the `SimConfig` JSON, returns the `RunResults` JSON.
/// The GIL is released for the whole run, so threads may run simulations in parallel.
#[pyfunction]
fn run(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let cfg = parse_config(config_json)?;
    let out: Result<String, RunError> = py.detach(move || {
        match catch_unwind(AssertUnwindSafe(|| shortflow_core::run(&cfg))) {
            Ok(Ok(results)) => serde_json::to_string(&results).map_err(|e| RunError::Json(e.to_string())),
            Ok(Err(e)) => Err(RunError::Config(e.to_string())),
            Err(p) => Err(RunError::Panic(panic_message(&p))),
        }
    });
    match out {
        Ok(s) => Ok(s),
        Err(RunError::Config(m)) => Err(PyValueError::new_err(m)),
        Err(RunError::Json(m)) => Err(PyRuntimeError::new_err(format!("could not serialise results: {m}"))),
        Err(RunError::Panic(m)) => Err(PyRuntimeError::new_err(format!(
            "shortflow core panicked in run: {m} (this is a bug; please report it with the configuration)"
        ))),
    }
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

/// Version of the compiled core (the Cargo package version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(idle_footprint, m)?)?;
    m.add_function(wrap_pyfunction!(cwnd_opt, m)?)?;
    m.add_function(wrap_pyfunction!(cwnd_opt_detail, m)?)?;
    m.add_function(wrap_pyfunction!(f_e, m)?)?;
    m.add_function(wrap_pyfunction!(ca_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(slow_start_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
