//! Heads up! Read tcp-spand spec §1 / paper §4 before changing this file (placeholder).
use crate::time::SimTime;
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate { pub wc: f64, pub rtt_s: f64, pub n_samples: u32 }
pub struct Gateway { v: Vec<(SimTime, f64, f64)> }
