//! Named TCP profiles (`tcp.profile`) and the sizes derived from `tcp.mtu`, resolved
//! when a flow's configuration is read, before serde fills in ns-2's defaults.
//!
//! A profile is a set of values for the flow's `tcp`, `sink` and `startup` tables.
//! Every field the configuration gives explicitly wins; a nested table (`tcp.cc`,
//! `tcp.rto`, `sink.ack_policy`, `startup`) given with the profile's `kind` is
//! completed key by key from the profile, one of another kind is taken as given. The
//! resolved configuration (what `shortflow resolve` and the run record show) holds
//! every value, so a run says exactly what it simulated.
//!
//! `tcp.mtu` then derives the sizes left out: `packet_size` = MTU − 40 (− 12 with
//! `tcp.timestamps`), `header_size` = 40 (52), and the sink's `ack_size` = the header.
//!
//! The Linux profile's values and their sources are in docs/defaults.md ("Linux
//! profile"); a test keeps that table and [`linux`] equal.

use serde_json::{json, Map, Value};

use crate::error::suggest;

/// Profile names `tcp.profile` accepts.
pub const PROFILES: &[&str] = &["linux"];

/// The Linux profile: (`tcp`, `sink`, `startup`) tables. `cc_kind` is the flow's
/// congestion control after merging (the start-up's slow-start exit follows it: Linux
/// runs HyStart with CUBIC, `tcp_cubic.c hystart = 1`, and nothing with Reno).
pub fn linux(cc_kind: Option<&str>) -> (Value, Value, Value) {
    let tcp = json!({
        "variant": "newreno",
        "window": 10000,
        "window_init": 10,
        "ssthresh": 2147483647u32,
        "maxcwnd": 0,
        "maxburst": 0,
        "numdupacks": 3,
        "singledup": 1,
        "syn": true,
        "delay_growth": true,
        "slow_start_restart": false,
        "ecn": false,
        "timestamps": true,
        "mtu": 1500,
        "cc": {"kind": "linux_reno"},
        "rto": {"kind": "linux", "min_s": 0.2, "max_s": 120.0, "init_s": 1.0},
        "sack": true,
        "sack_max_blocks": 3,
        "recovery": {"kind": "rack_tlp", "prr": true, "frto": true, "dsack_reo_wnd": true},
    });
    let sink = json!({
        "delack": false,
        "ack_policy": {"kind": "linux", "ato_min_s": 0.04, "delack_max_s": 0.5, "quickacks_max": 16,
                       "init_rcv_wnd": 44, "rto_min_s": 0.2, "rto_init_s": 1.0},
    });
    let exit = if cc_kind == Some("cubic") { "hystart" } else { "none" };
    let startup = json!({"kind": "linux", "slow_start_after_idle": true, "exit": exit});
    (tcp, sink, startup)
}

/// Fill `user` with what `profile` has and `user` lacks (see the module doc).
fn merge(user: &mut Value, profile: &Value) {
    let (Value::Object(u), Value::Object(p)) = (user, profile) else { return };
    if let (Some(uk), Some(pk)) = (u.get("kind"), p.get("kind")) {
        if uk != pk {
            return;
        }
    }
    for (k, pv) in p {
        match u.get_mut(k) {
            None => {
                u.insert(k.clone(), pv.clone());
            }
            Some(uv) => merge(uv, pv),
        }
    }
}

/// Resolve a flow's profile and MTU-derived sizes in place. `tcp`/`sink` are the
/// flow's tables as given (empty when left out), `startup` its start-up table.
/// Errors are messages naming the field and the value.
pub fn resolve(
    tcp: &mut Map<String, Value>,
    sink: &mut Map<String, Value>,
    startup: &mut Option<Value>,
) -> Result<(), String> {
    // `null` (a resolved configuration read back) is no profile.
    if let Some(p) = tcp.get("profile").filter(|v| !v.is_null()) {
        let name = p.as_str().ok_or_else(|| format!("tcp.profile = {p}: must be a profile name (a string)"))?;
        match name {
            "linux" => {
                let cc_kind = tcp.get("cc").and_then(|c| c.get("kind")).and_then(Value::as_str).map(str::to_owned);
                let (pt, ps, pst) = linux(cc_kind.as_deref());
                let mut t = Value::Object(std::mem::take(tcp));
                merge(&mut t, &pt);
                *tcp = into_map(t);
                let mut s = Value::Object(std::mem::take(sink));
                merge(&mut s, &ps);
                *sink = into_map(s);
                match startup {
                    None => *startup = Some(pst),
                    Some(v) => merge(v, &pst),
                }
            }
            other => {
                let known: Vec<String> = PROFILES.iter().map(|s| s.to_string()).collect();
                return Err(format!(
                    "tcp.profile = {other:?}: unknown profile (known: {}){}",
                    PROFILES.join(", "),
                    suggest(other, known.iter())
                ));
            }
        }
    }
    derive_sizes(tcp, sink)
}

fn into_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `tcp.mtu`: the sizes left out follow from it (see the module doc).
fn derive_sizes(tcp: &mut Map<String, Value>, sink: &mut Map<String, Value>) -> Result<(), String> {
    let Some(mtu) = tcp.get("mtu").filter(|v| !v.is_null()) else { return Ok(()) };
    let mtu = mtu.as_u64().ok_or_else(|| format!("tcp.mtu = {mtu}: must be a whole number of bytes"))?;
    let ts = match tcp.get("timestamps") {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| format!("tcp.timestamps = {v}: must be true or false"))?,
    };
    let hdr = 40 + if ts { 12 } else { 0 };
    if mtu <= hdr || mtu > u32::MAX as u64 {
        return Err(format!(
            "tcp.mtu = {mtu}: must be larger than the {hdr}-byte TCP/IP header{}",
            if ts { " with timestamps" } else { "" }
        ));
    }
    tcp.entry("packet_size").or_insert(json!(mtu - hdr));
    tcp.entry("header_size").or_insert(json!(hdr));
    sink.entry("ack_size").or_insert(json!(hdr));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{AckPolicyConfig, CcConfig, FlowConfig, RtoConfig, StartupConfig};

    fn flow(tcp: &str, extra: &str) -> Result<FlowConfig, serde_json::Error> {
        serde_json::from_str(&format!(r#"{{"name": "f", "src": "a", "dst": "b", "tcp": {tcp}{extra}}}"#))
    }

    #[test]
    fn linux_profile_sets_everything_and_explicit_fields_win() {
        let f = flow(r#"{"profile": "linux"}"#, "").unwrap();
        assert_eq!(f.tcp.window_init, 10);
        assert_eq!((f.tcp.packet_size, f.tcp.header_size, f.sink.ack_size), (1448, 52, 52));
        assert_eq!(f.tcp.cc, CcConfig::LinuxReno);
        assert!(matches!(f.tcp.rto, RtoConfig::Linux { min_s, .. } if min_s == 0.2));
        assert!(matches!(f.sink.ack_policy, Some(AckPolicyConfig::Linux { quickacks_max: 16, .. })));
        assert!(matches!(f.startup, StartupConfig::Linux(ref l) if l.slow_start_after_idle));
        assert!(f.tcp.sack && f.tcp.sack_max_blocks == 3);
        assert_eq!((f.tcp.recovery.kind, f.tcp.recovery.prr), (crate::config::RecoveryKind::RackTlp, true));
        assert!(f.tcp.recovery.frto && f.tcp.recovery.dsack_reo_wnd);
        // Explicit values win, nested tables of the same kind are completed.
        let f = flow(
            r#"{"profile": "linux", "window_init": 4, "timestamps": false, "rto": {"kind": "linux", "min_s": 0.05}}"#,
            r#", "startup": {"kind": "linux", "slow_start_after_idle": false}"#,
        )
        .unwrap();
        assert_eq!(f.tcp.window_init, 4);
        assert_eq!((f.tcp.packet_size, f.tcp.header_size, f.sink.ack_size), (1460, 40, 40));
        assert!(matches!(f.tcp.rto, RtoConfig::Linux { min_s, max_s, .. } if min_s == 0.05 && max_s == 120.0));
        assert!(matches!(f.startup, StartupConfig::Linux(ref l) if !l.slow_start_after_idle));
        // A table of another kind is taken as given.
        let f = flow(r#"{"profile": "linux", "rto": {"kind": "ns2"}}"#, "").unwrap();
        assert_eq!(f.tcp.rto, RtoConfig::Ns2);
        // The resolved configuration keeps every value (and the profile's name).
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["tcp"]["profile"], "linux");
        assert_eq!(v["tcp"]["window_init"], 10);
        assert_eq!(v["sink"]["ack_policy"]["kind"], "linux");
    }

    #[test]
    fn without_a_profile_nothing_changes() {
        let f = flow("{}", "").unwrap();
        let d = FlowConfig { ..f.clone() };
        assert_eq!(
            serde_json::to_value(&f.tcp).unwrap(),
            serde_json::to_value(crate::config::TcpConfig::default()).unwrap()
        );
        assert_eq!(d.tcp.packet_size, 1000);
        // mtu alone derives the sizes.
        let f = flow(r#"{"mtu": 1500}"#, "").unwrap();
        assert_eq!((f.tcp.packet_size, f.tcp.header_size, f.sink.ack_size), (1460, 40, 40));
        let f = flow(r#"{"mtu": 1500, "timestamps": true, "packet_size": 1000}"#, "").unwrap();
        assert_eq!((f.tcp.packet_size, f.tcp.header_size, f.sink.ack_size), (1000, 52, 52));
    }

    #[test]
    fn bad_profiles_and_mtus_are_named() {
        let e = flow(r#"{"profile": "linx"}"#, "").unwrap_err().to_string();
        assert!(e.contains("tcp.profile = \"linx\"") && e.contains("did you mean \"linux\""), "{e}");
        let e = flow(r#"{"profile": 3}"#, "").unwrap_err().to_string();
        assert!(e.contains("tcp.profile = 3"), "{e}");
        // A resolved configuration read back (profile and mtu null) is accepted as is,
        // and a resolved Linux flow resolves to itself.
        let plain = serde_json::to_string(&flow("{}", "").unwrap()).unwrap();
        let again: FlowConfig = serde_json::from_str(&plain).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), plain);
        let lin = serde_json::to_string(&flow(r#"{"profile": "linux"}"#, "").unwrap()).unwrap();
        let again: FlowConfig = serde_json::from_str(&lin).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), lin);
        let e = flow(r#"{"mtu": 40}"#, "").unwrap_err().to_string();
        assert!(e.contains("tcp.mtu = 40"), "{e}");
        let e = flow(r#"{"mtu": 1500, "timestamps": "yes"}"#, "").unwrap_err().to_string();
        assert!(e.contains("tcp.timestamps"), "{e}");
        let e = flow(r#"{"profile": "linux", "windw": 3}"#, "").unwrap_err().to_string();
        assert!(e.contains("windw"), "{e}");
        // packet_size + header_size above the MTU: the sender's validation names it.
        let f = flow(r#"{"mtu": 1500, "packet_size": 1461}"#, "").unwrap();
        let e = crate::tcp::sender::TcpParams::from_config("flows[0].tcp", &f.tcp).unwrap_err();
        assert_eq!(e.field, "flows[0].tcp.packet_size");
    }

    /// docs/defaults.md lists every value of the Linux profile as it is here.
    #[test]
    fn docs_list_the_linux_profile() {
        let doc = include_str!("../../../docs/defaults.md");
        let (t, s, st) = linux(None);
        fn rows(prefix: &str, v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    for (k, x) in m {
                        rows(&format!("{prefix}.{k}"), x, out);
                    }
                }
                x => out.push(format!("| `{prefix}` | `{x}` |")),
            }
        }
        let mut want = Vec::new();
        rows("tcp", &t, &mut want);
        rows("sink", &s, &mut want);
        rows("startup", &st, &mut want);
        for r in want {
            assert!(doc.contains(&r), "docs/defaults.md (Linux profile) lacks or disagrees with: {r}");
        }
    }
}
