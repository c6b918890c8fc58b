//! The columns read back equal the JSON the same tables write, table by table.

use serde_json::{json, Value};

use super::{table_columns, Column, Kind};
use crate::results::{FlowTable, RunResults};

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap())
}

fn le_i64(b: &[u8]) -> i64 {
    i64::from_le_bytes(b.try_into().unwrap())
}

fn bit(bits: &[u8], i: usize) -> bool {
    bits[i / 8] >> (i % 8) & 1 == 1
}

/// A column read back as the JSON values the table's `Serialize` writes for it.
fn values(c: &Column) -> Vec<Value> {
    let offsets = |i: usize| le_i64(&c.offsets[8 * i..8 * i + 8]) as usize;
    (0..c.len)
        .map(|i| match c.kind {
            Kind::Empty => unreachable!("an empty column has no rows"),
            Kind::U8 => json!(c.data[i]),
            Kind::U32 => json!(u32::from_le_bytes(c.data[4 * i..4 * i + 4].try_into().unwrap())),
            Kind::U64 => json!(le_u64(&c.data[8 * i..8 * i + 8])),
            Kind::I64 => json!(le_i64(&c.data[8 * i..8 * i + 8])),
            Kind::F64 => {
                let v = f64::from_le_bytes(c.data[8 * i..8 * i + 8].try_into().unwrap());
                assert_eq!(c.validity.is_empty() || bit(&c.validity, i), v.is_finite(), "row {i} of {}", c.name);
                json!(v)
            }
            Kind::Bool => json!(bit(&c.data, i)),
            Kind::Str => json!(std::str::from_utf8(&c.data[offsets(i)..offsets(i + 1)]).unwrap()),
            Kind::ListU64 => {
                Value::Array((offsets(i)..offsets(i + 1)).map(|k| json!(le_u64(&c.data[8 * k..8 * k + 8]))).collect())
            }
        })
        .collect()
}

/// Every table of `r` as columns, read back, against its JSON.
fn check(r: &RunResults) -> usize {
    let want = serde_json::to_value(r).unwrap();
    let mut got = serde_json::Map::new();
    let mut rows = 0;
    let mut r = r.clone();
    r.drain_columns(&mut |table, c| {
        let t = got.entry(table).or_insert_with(|| json!({})).as_object_mut().unwrap();
        assert!(t.insert(c.name.to_string(), Value::Array(values(&c))).is_none(), "{table}.{} twice", c.name);
        match c.kind {
            Kind::Str | Kind::ListU64 => assert_eq!(c.offsets.len(), 8 * (c.len + 1), "{table}.{}", c.name),
            _ => assert!(c.offsets.is_empty(), "{table}.{}", c.name),
        }
        rows += c.len;
    })
    .unwrap();
    got.insert("stats".into(), want["stats"].clone());
    // Same tables, same columns in the same order, same values.
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&Value::Object(got.clone())).len(), keys(&want).len());
    for (table, cols) in want.as_object().unwrap() {
        assert_eq!(keys(cols), keys(&got[table]), "{table}: columns");
        assert_eq!(cols, &got[table], "{table}");
    }
    rows
}

fn config(path: &str, traces: bool) -> crate::config::SimConfig {
    let p = format!("{}/../../tests/golden/ns2/{path}", env!("CARGO_MANIFEST_DIR"));
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    if traces {
        v["trace"] = json!({"acks": true, "cwnd": true, "packets": true});
    }
    serde_json::from_value(v).unwrap()
}

#[test]
fn a_runs_tables_as_columns_equal_its_json() {
    for (path, traces) in [("dumbbell_newreno_4_delack.config.json", true), ("bench_c.config.json", false)] {
        let r = crate::run(&config(path, traces)).unwrap();
        assert!(!r.flows.flow.is_empty() && (!traces || !r.packets.time_ns.is_empty()));
        assert!(traces || !r.transfers.flow.is_empty());
        assert!(check(&r) > 0, "{path}");
    }
}

#[test]
fn non_finite_floats_are_null_and_empty_lists_stay_lists() {
    let mut r = RunResults::default();
    let t = &mut r.transfers;
    for (i, end) in [1.5, f64::NAN, f64::INFINITY, -0.0, f64::NEG_INFINITY].into_iter().enumerate() {
        t.flow.push(&format!("f.{i}é"));
        t.round.push(i as u32);
        t.bytes.push(u64::MAX - i as u64);
        t.start_s.push(0.25);
        t.end_s.push(end);
        t.completion_s.push(end);
        t.push_counters(&Default::default());
        t.initial_cwnd.push(2.0);
        t.delivered_s.push(f64::NAN);
    }
    let f: &mut FlowTable = &mut r.flows;
    f.flow.push("a");
    f.transport.push("udp");
    f.acked_by_s.push(&[]);
    f.acked_by_s.push(&[3, u64::MAX]);
    r.startup.fallback_slow_start.extend([true, false, true, true, false, false, false, false, true]);
    r.packets.seqno.extend([-1, i64::MIN, i64::MAX]);
    r.cc.push("v.1", 0.5, 3, &[("alpha", 1.0), ("beta", f64::NAN)]);
    check(&r);
    let mut cols = Vec::new();
    table_columns(&r.transfers, &mut |c| cols.push(c)).unwrap();
    let end = cols.iter().find(|c| c.name == "end_s").unwrap();
    assert_eq!(end.validity, vec![0b01001]);
    let round = cols.iter().find(|c| c.name == "round").unwrap();
    assert!(round.validity.is_empty());
    let mut links = Vec::new();
    table_columns(&r.links, &mut |c| links.push(c)).unwrap();
    assert!(links.iter().all(|c| c.kind == Kind::Empty && c.len == 0 && c.data.is_empty()));
}

#[test]
fn a_table_that_is_not_columns_is_an_error() {
    #[derive(serde::Serialize)]
    struct T {
        a: Vec<u32>,
        b: Vec<Option<u32>>,
    }
    let e = table_columns(&T { a: vec![1], b: vec![Some(1)] }, &mut |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "results as columns: column b: an option where a value was expected");
    #[derive(serde::Serialize)]
    struct U {
        a: Vec<i32>,
    }
    let e = table_columns(&U { a: vec![1] }, &mut |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "results as columns: column a: i32 where a value was expected");
}
