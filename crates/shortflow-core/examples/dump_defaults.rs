//! Print every default of the configuration as JSON (section -> field -> value).
//! `docs/defaults.md` is checked against the same values by a unit test in config.rs.
use shortflow_core::config::*;
fn main() {
    let gw: GatewayConfig = serde_json::from_str(r#"{"name":"gw"}"#).unwrap();
    let sp: SpandConfig = serde_json::from_str(r#"{"gateway":"gw"}"#).unwrap();
    let v = serde_json::json!({
        "tcp": TcpConfig::default(),
        "sink": SinkConfig::default(),
        "queue": QueueConfig::default(),
        "red": RedConfig::default(),
        "gateway": gw,
        "spand": sp,
    });
    println!("{}", serde_json::to_string_pretty(&v).unwrap());
}
