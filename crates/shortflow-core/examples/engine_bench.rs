//! Timing of the event queue alone, on a synthetic load shaped like a dumbbell run:
//! packets hopping over links of a few fixed delays (lanes), plus per-flow RTO timers
//! re-armed on every "ack". Prints ns per event. No simulator logic involved.
//!
//!     cargo run --release -p shortflow-core --example engine_bench [-- EVENTS]

use shortflow_core::engine::{Event, Scheduler, Timer};
use shortflow_core::time::SimTime;
use std::time::Instant;

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000_000);
    let flows = 20u32;
    // Hop offsets (ns): access data, bottleneck data, access ack, bottleneck ack.
    let hops = [1_018_489u64, 200_184_889, 1_000_711, 200_007_111];
    let mut s = Scheduler::new();
    let mut timers: Vec<Timer> = (0..flows).map(|_| Timer::default()).collect();
    // Start 100 packets per flow, spread in time.
    let mut pkt = 0u32;
    for f in 0..flows {
        for k in 0..100u64 {
            s.at(SimTime(k * 3_700 + f as u64 * 50), Event::Arrive { link: f * 4, pkt });
            pkt += 1;
        }
    }
    let t0 = Instant::now();
    let mut popped = 0u64;
    while popped < n {
        let Some(ev) = s.pop(SimTime::MAX) else { break };
        popped += 1;
        match ev {
            Event::Arrive { link, pkt } => {
                let f = link / 4;
                let hop = (link % 4 + 1) % 4;
                if hop == 0 {
                    // Ack reached the sender: re-arm its RTO and send the next packet.
                    timers[f as usize].resched(&mut s, SimTime::from_secs(1), f, 0);
                }
                let l = f * 4 + hop;
                s.after(SimTime(hops[hop as usize]), Event::Arrive { link: l, pkt });
            }
            Event::Timer { agent, gen, .. } => {
                let _ = timers[agent as usize].fire(gen);
            }
            _ => {}
        }
    }
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "{popped} events in {dt:.3} s: {:.1} ns/event, {:.1} M events/s, pending {}",
        dt * 1e9 / popped as f64,
        popped as f64 / dt / 1e6,
        s.pending()
    );
}
