//! Sizes of the per-connection structures (issue 21 item 3: < 1 KB per connection with
//! its hosts and access links). Each bound is the current size: a layout that grows
//! fails here, and the test prints the table (`cargo test -p shortflow-core layout --
//! --nocapture`). Where the bytes of a whole run go: `Simulation::memory` and
//! `run_config CONFIG --memory`.

use std::mem::size_of;

use crate::engine::Timer;
use crate::net::link::Link;
use crate::net::queue::AnyQueue;
use crate::tcp::control::ControlBlock;
use crate::tcp::sender::TcpConn;
use crate::tcp::sink::TcpSink;
use crate::traffic::build::FlowInfo;
use crate::traffic::App;
use crate::world::{PendingQueue, TransferRec};

#[test]
fn per_connection_layouts() {
    // Bounds: the sizes of this build (a test build: `ControlBlock` carries the
    // test-only `Scripted` start-up policy inline, 320 B; 176 B in a release build).
    let rows: [(&str, usize, usize); 10] = [
        ("TcpConn", size_of::<TcpConn>(), 352), // 368 B before `nfastrexmit`, `necnresponses` and `nstartup_resets` became u32s; 416 B before the loss counters became u32s (`count!`, 376) and the pending transfers a `PendingQueue` (24 B, was a 32-byte `VecDeque`); 416 B: 472 B before 472 B before RACK's and TLP's timers moved into `SackRecovery` (440) and three `Option<SimTime>` became 8-byte `OptTime`s; 464 before the boxed socket buffer (webmux, tcp.sndbuf); 496 before the 16-byte Timer (three of them)
        ("ControlBlock", size_of::<ControlBlock>(), 320), // 352 B (208 in a release build) before Linux's RTO, the pacer, the low-priority range, the members and the session shared one pointer (`Rare`); 376 B (232 in a release build) before Linux Reno and sender adaptation were boxed (`AnyCc` 16 B, was 40); 392 B (248 in a release build) before `Tcb::WND_RESTART` became a constant and `wnd_init_option` a byte (`Tcb` 56 B, was 72); 400 B (256 in a release build) before the plan's burst limit became an `Option<NonZeroU32>`; 416 B before the low-priority range was boxed; 448 B before a shared block's members, flight and turn were boxed (`Sharing`); 456 before the 16-byte Timer
        ("TcpSink", size_of::<TcpSink>(), 168), // 176 B before its three parameter flags became one byte (`rules`); 184 B before `EveryD` was boxed (`AckPolicy` 16 B); 200 B before the acker's ring became a boxed slice whose length gives the mask; 208 before the 16-byte Timer
        ("Link", size_of::<Link>(), 64), // one cache line (aligned to 64): 80 B before its source node, element, random loss and counters' high words moved beside it (`Links`), its flags became bits and `bytes_departed` kept 32 bits inline; 88 B before `arrivals` and `drops` kept 32 bits inline (the high words in the boxed hooks); 96 B before DropTail's limit moved into its buffer's padding (AnyQueue 24 B); 112 B before the departures became derived (`Link::departures`, 104) and the queue's ring a thin pointer (`ring::Slots`, 96); 120 B before tracing, the far node's element and random loss were boxed (`ArriveHooks`); 184 before the shared link classes (136), the 24-byte ring (128) and the filtered-ack counter in `Network` (120)
        ("TransferRec", size_of::<TransferRec>(), 88), // 128 B before the loss counters became u32s; 144 B before `end` and `delivered` became `OptTime`s
        ("AnyQueue", size_of::<AnyQueue>(), 24), // 32 B before DropTail's limit moved into `Buffer`; 40 B before the ring's thin pointer (16-byte `Ring`); 48 B before the 24-byte ring (`net::queue::ring`)
        ("Timer", size_of::<Timer>(), 16),       // 24 B before its flags moved into the slot word
        ("FlowInfo", size_of::<FlowInfo>(), 44),
        ("App", size_of::<App>(), 32), // 48 B before FTP's bytes and lifetime shared one field (`FtpWork`); 56 B before Telnet was boxed
        ("PendingQueue", size_of::<PendingQueue>(), 24), // a sender's and a receiver's pending transfers; 32 B (`VecDeque`) and a 16-byte allocation before
    ];
    for (name, size, bound) in rows {
        eprintln!("{name:>14} {size:>5} B");
        assert!(size <= bound, "{name} is {size} B, above its bound of {bound} B");
    }
}
