// STAND-IN written by the lead so the crate compiles; helper replaces this file.
use crate::rng::Rng;
pub fn tcplib_telnet_interarrival(rng: &mut Rng) -> f64 { rng.exponential(1.0) }
pub enum OnOffKind { Pareto { shape: f64 }, Exponential }
pub struct OnOffParams { pub kind: OnOffKind, pub rate_bps: f64, pub packet_size: u32, pub on_s: f64, pub off_s: f64 }
pub struct OnOff { p: OnOffParams }
impl OnOff {
    pub fn new(p: OnOffParams) -> Result<OnOff, String> { Ok(OnOff { p }) }
    pub fn next(&mut self, _rng: &mut Rng) -> (f64, u32) { (self.p.packet_size as f64 * 8.0 / self.p.rate_bps, self.p.packet_size) }
}
pub struct Cbr { interval: f64, size: u32 }
impl Cbr {
    pub fn new(rate_bps: f64, size: u32) -> Result<Cbr, String> { Ok(Cbr { interval: size as f64 * 8.0 / rate_bps, size }) }
    pub fn next(&mut self) -> (f64, u32) { (self.interval, self.size) }
}
