//! shortflow core: a deterministic, integer-time, packet-level simulator of TCP
//! start-up and short transfers, faithful to ns-2.35's one-way TCP agents.
//!
//! Layout (one concept, one place):
//! - [`time`]: `SimTime` (integer ns) and unit helpers.
//! - [`engine`]: the event queue (equal times fire in scheduling order) and timers;
//!   `fifo`: the power-of-two ring its lanes (and the UDP multiplexer's) share.
//! - [`rng`]: one seeded random stream per source.
//! - [`net`]: packets (arena), nodes, links, queues (`net::queue::*`), routing, topology builders.
//! - [`tcp`]: the one-way sender and sinks; `tcp::cc` congestion-avoidance rules,
//!   `tcp::startup` start-up policies (one file each: where a scheme decides its window).
//! - [`traffic`]: applications and traffic sources (FTP, rounds, Telnet, ON/OFF, CBR).
//! - [`spand`]: TCP/SPAND theory (`cwnd_opt`) and the performance gateway.
//! - [`path`]: state that outlives connections (path entries, gateways), one registry.
//! - [`world`]: what an event handler may touch (scheduler, network, shared state).
//! - [`profile`]: named TCP profiles (`tcp.profile = "linux"`) and MTU-derived sizes,
//!   resolved when a flow is read.
//! - [`config`] is the input contract, [`results`] the output tables (written out as JSON,
//!   or as typed column buffers by [`columns`]), [`sim`] ties them.

pub mod columns;
pub mod config;
pub mod engine;
pub mod error;
pub mod fairshare;
mod fifo;
#[cfg(test)]
mod layout_tests;
pub mod names;
pub mod net;
pub mod path;
pub mod prefetch;
pub mod profile;
pub mod results;
pub mod rng;
pub mod sim;
pub mod spand;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod vienna;
pub mod world;

pub use error::ConfigError;
pub use sim::{idle_footprint, run, Footprint, Simulation};
pub use time::SimTime;
