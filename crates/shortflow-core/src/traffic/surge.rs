//! SURGE-like Web user equivalents (Barford & Crovella 1998; P4 Figs. 4–6, spec
//! fairshare-and-sizebased B.7.3).
//!
//! Each user is an ON/OFF source with its own random stream. A page has
//! floor(Pareto(k, α)) objects; its objects are fetched one after another, each by
//!
//! 1. a request: `request_bytes` (default one segment) on the user's request
//!    connection (client → server), a fresh connection each time;
//! 2. when the request is acknowledged at the client, the response: the object on the
//!    user's response connection (server → client), again a fresh connection.
//!
//! This is ns-2's webtraf scheme (a one-way TCP per request and per response, the
//! response starting when the request's transfer is done, agents recycled with
//! `reset`): the request transfer plays the part of the connection set-up and the
//! request, so a lost request is retransmitted like a lost SYN. Between objects of a
//! page the user waits an active OFF time (Weibull), between pages an inactive OFF
//! (think) time (Pareto). Object sizes: lognormal body, Pareto tail above
//! `tail_k_bytes` (the lognormal draw is replaced by a Pareto draw there, so the CDF is
//! continuous), capped at `max_object_bytes`.
//!
//! "Fresh connection" is `TcpSenders::renew`: a new connection's window, RTT estimator
//! and congestion control on the same sequence space (see `TcpConn::renew`).
//!
//! Per object the app records the request time, the response's start and end (the
//! last byte acknowledged at the server, as ns-2's webtraf measures a response); the
//! results' `objects` table (shared with `traffic/web.rs`) holds them.

use std::collections::HashMap;

use crate::config::SurgeConfig;
use crate::engine::{Event, Scheduler};
use crate::error::{err, positive, ConfigError};
use crate::rng::Rng;
use crate::tcp::control::TcpSenders;
use crate::time::SimTime;
use crate::world::Ctx;

/// The validated SURGE distributions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurgeDists {
    pub size_mu: f64,
    pub size_sigma: f64,
    pub tail_k: f64,
    pub tail_alpha: f64,
    pub max_object: u64,
    pub objects_k: f64,
    pub objects_alpha: f64,
    pub active_shape: f64,
    pub active_scale: f64,
    pub think_k: f64,
    pub think_alpha: f64,
}

/// A standard normal draw (Box–Muller, one of the pair; two uniforms per draw so that
/// the stream's use does not depend on earlier draws).
fn std_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.uniform(); // (0, 1]
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl SurgeDists {
    /// Validate the distribution fields of `c` (`field` is the app's path).
    pub fn from_config(field: &str, c: &SurgeConfig) -> Result<SurgeDists, ConfigError> {
        if !c.size_mu.is_finite() {
            return Err(err(format!("{field}.size_mu"), c.size_mu, "must be a finite number (ln bytes)"));
        }
        let d = SurgeDists {
            size_mu: c.size_mu,
            size_sigma: positive(&format!("{field}.size_sigma"), c.size_sigma)?,
            tail_k: positive(&format!("{field}.tail_k_bytes"), c.tail_k_bytes)?,
            tail_alpha: positive(&format!("{field}.tail_alpha"), c.tail_alpha)?,
            max_object: c.max_object_bytes,
            objects_k: positive(&format!("{field}.objects_k"), c.objects_k)?,
            objects_alpha: positive(&format!("{field}.objects_alpha"), c.objects_alpha)?,
            active_shape: positive(&format!("{field}.active_off_shape"), c.active_off_shape)?,
            active_scale: positive(&format!("{field}.active_off_scale_s"), c.active_off_scale_s)?,
            think_k: positive(&format!("{field}.think_k_s"), c.think_k_s)?,
            think_alpha: positive(&format!("{field}.think_alpha"), c.think_alpha)?,
        };
        if c.max_object_bytes < 1 {
            return Err(err(format!("{field}.max_object_bytes"), c.max_object_bytes, "must be at least 1 byte"));
        }
        if c.objects_k < 1.0 {
            return Err(err(
                format!("{field}.objects_k"),
                c.objects_k,
                "must be at least 1 (a page has at least one object)",
            ));
        }
        if d.active_scale > 1e6 || d.think_k > 1e6 {
            let (f, v) =
                if d.active_scale > 1e6 { ("active_off_scale_s", d.active_scale) } else { ("think_k_s", d.think_k) };
            return Err(err(format!("{field}.{f}"), v, "must be at most 1e6 s"));
        }
        Ok(d)
    }

    /// Object size in bytes: lognormal(μ, σ), a draw above `tail_k` replaced by
    /// Pareto(`tail_k`, `tail_alpha`), rounded up, capped at `max_object`.
    pub fn object_bytes(&self, rng: &mut Rng) -> u64 {
        let mut x = (self.size_mu + self.size_sigma * std_normal(rng)).exp();
        if x > self.tail_k {
            x = rng.pareto(self.tail_k, self.tail_alpha);
        }
        let b = if x.is_finite() { x.ceil().max(1.0) } else { f64::MAX };
        if b >= self.max_object as f64 {
            self.max_object
        } else {
            b as u64
        }
    }

    /// P(size <= x) of the uncapped size (for tests and docs): the lognormal CDF up to
    /// `tail_k`, then its mass above `tail_k` spread as the Pareto tail.
    pub fn object_cdf(&self, x: f64) -> f64 {
        let ln_cdf = |v: f64| normal_cdf((v.ln() - self.size_mu) / self.size_sigma);
        if x <= 0.0 {
            0.0
        } else if x <= self.tail_k {
            ln_cdf(x)
        } else {
            let fk = ln_cdf(self.tail_k);
            fk + (1.0 - fk) * (1.0 - (self.tail_k / x).powf(self.tail_alpha))
        }
    }

    /// Objects in a page: floor(Pareto(`objects_k`, `objects_alpha`)), at least 1.
    pub fn objects_per_page(&self, rng: &mut Rng) -> u32 {
        let x = rng.pareto(self.objects_k, self.objects_alpha);
        if x >= u32::MAX as f64 {
            u32::MAX
        } else {
            (x.floor() as u32).max(1)
        }
    }

    /// Active OFF time (s): Weibull with shape `active_shape` and scale `active_scale`.
    pub fn active_off(&self, rng: &mut Rng) -> f64 {
        let u = rng.uniform();
        self.active_scale * (-(-u).ln_1p()).powf(1.0 / self.active_shape)
    }

    /// Inactive OFF (think) time (s): Pareto(`think_k`, `think_alpha`).
    pub fn think(&self, rng: &mut Rng) -> f64 {
        rng.pareto(self.think_k, self.think_alpha)
    }
}

/// Standard normal CDF, from the complementary error function (Numerical Recipes'
/// `erfcc`, fractional error below 1.2e-7 everywhere).
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// One object fetched (or being fetched) by a user.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectRec {
    /// The user's response flow.
    pub flow: u32,
    /// The user's page number (from 0) and the object's index in it.
    pub page: u32,
    pub object: u32,
    pub bytes: u64,
    /// The request was handed to the request connection.
    pub request: SimTime,
    /// The response started (the request was acknowledged), if it has.
    pub response: Option<SimTime>,
    /// The object's last byte was acknowledged at the server.
    pub end: Option<SimTime>,
}

/// One user: its connections, stream and where it is in its page.
#[derive(Clone, Debug)]
pub struct User {
    pub resp_sender: u32,
    pub req_sender: u32,
    pub rng: Rng,
    /// Pages started so far.
    pub pages: u32,
    /// Objects of the current page still to fetch, the current one included.
    pub left: u32,
    /// Index of the current object in its page.
    pub object: u32,
    /// The current object's record (index into `Surge::objects`).
    pub current: Option<u32>,
}

/// Every user of one `surge` application.
pub struct Surge {
    pub users: Vec<User>,
    pub dists: SurgeDists,
    /// Request size in packets and bytes.
    pub request_pkts: i64,
    pub request_bytes: u64,
    /// Payload bytes per packet of the response connections.
    pub packet_size: u64,
    pub stop: Option<SimTime>,
    /// Flow index -> (user, is the request flow).
    pub by_flow: HashMap<u32, (u32, bool)>,
    /// Response flow of each user.
    pub resp_flows: Vec<u32>,
    pub objects: Vec<ObjectRec>,
}

/// Token of a user's event: start its next object (or page), or its response.
const NEXT: u32 = 0;
const RESPONSE: u32 = 1;

pub fn token(user: u32, what: u32) -> u32 {
    user * 2 + what
}

impl Surge {
    /// An `Event::App` for this application.
    pub fn event(&mut self, cx: &mut Ctx, senders: &mut TcpSenders, tok: u32) {
        let (u, what) = (tok / 2, tok % 2);
        let now = cx.now();
        let user = &mut self.users[u as usize];
        if what == NEXT {
            if user.left == 0 {
                if self.stop.is_some_and(|s| now >= s) {
                    return;
                }
                user.left = self.dists.objects_per_page(&mut user.rng);
                user.object = 0;
                user.pages += 1;
            }
            let bytes = self.dists.object_bytes(&mut user.rng);
            user.current = Some(self.objects.len() as u32);
            self.objects.push(ObjectRec {
                flow: self.resp_flows[u as usize],
                page: user.pages - 1,
                object: user.object,
                bytes,
                request: now,
                response: None,
                end: None,
            });
            senders.renew(cx, user.req_sender);
            senders.start_transfer(cx, user.req_sender, self.request_pkts, user.pages - 1, self.request_bytes);
        } else {
            let Some(k) = user.current else { return };
            let rec = &mut self.objects[k as usize];
            rec.response = Some(now);
            let (bytes, page) = (rec.bytes, rec.page);
            senders.renew(cx, user.resp_sender);
            senders.start_transfer(cx, user.resp_sender, bytes.div_ceil(self.packet_size) as i64, page, bytes);
        }
    }

    /// The objects as rows of the results' `objects` table (shared with `traffic/web.rs`):
    /// `pair` and `conn` are the user's response flow; `end_s` is the last byte
    /// acknowledged at the server (ns-2 webtraf's response end), `time_s` = `end_s -
    /// request_s`; NaN where not reached.
    pub fn rows(&self, names: &crate::names::Names, out: &mut crate::results::ObjectTable) {
        for rec in &self.objects {
            let name = &names[rec.flow as usize];
            let end = rec.end.map_or(f64::NAN, |t| t.as_secs_f64());
            out.pair.push(name.to_string());
            out.page.push(rec.page);
            out.object.push(rec.object);
            out.bytes.push(rec.bytes);
            out.conn.push(name.to_string());
            out.request_s.push(rec.request.as_secs_f64());
            out.end_s.push(end);
            out.time_s.push(end - rec.request.as_secs_f64());
        }
    }

    /// A transfer of `flow` (one of this app's) completed at `now`.
    pub fn transfer_done(&mut self, app: u32, flow: u32, now: SimTime, sched: &mut Scheduler) {
        let Some(&(u, is_req)) = self.by_flow.get(&flow) else { return };
        if is_req {
            // The request is acknowledged at the client: the server answers.
            sched.at(now, Event::App { app, token: token(u, RESPONSE) });
            return;
        }
        let user = &mut self.users[u as usize];
        if let Some(k) = user.current.take() {
            self.objects[k as usize].end = Some(now);
        }
        user.left = user.left.saturating_sub(1);
        user.object += 1;
        let wait = if user.left > 0 { self.dists.active_off(&mut user.rng) } else { self.dists.think(&mut user.rng) };
        sched.at(now + SimTime::from_secs_f64(wait), Event::App { app, token: token(u, NEXT) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dists() -> SurgeDists {
        let c: SurgeConfig = serde_json::from_str(r#"{"flows": [], "request_flows": []}"#).unwrap();
        SurgeDists::from_config("apps[0]", &c).unwrap()
    }

    #[test]
    fn normal_cdf_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.0) - 0.841_344_746).abs() < 1e-7);
        assert!((normal_cdf(-1.959_963_985) - 0.025).abs() < 1e-7);
        assert!((normal_cdf(3.0) - 0.998_650_102).abs() < 1e-7);
    }

    #[test]
    fn spliced_size_cdf_is_continuous_and_tail_mass_is_the_spec_value() {
        let d = dists();
        // Spec B.7.3: splicing at 133 KB leaves about 3.2 % of the mass in the tail.
        let tail = 1.0 - d.object_cdf(d.tail_k);
        assert!((tail - 0.032).abs() < 0.001, "tail mass {tail}");
        let below = d.object_cdf(d.tail_k * (1.0 - 1e-9));
        let above = d.object_cdf(d.tail_k * (1.0 + 1e-9));
        assert!((above - below).abs() < 1e-9);
        // Median of the body: exp(mu) (the tail starts well above it).
        assert!((d.object_cdf(9.357f64.exp()) - 0.5).abs() < 1e-7);
    }

    /// Empirical CDF of draws against the formula at several quantiles (body and tail).
    #[test]
    fn object_size_draws_follow_the_spliced_distribution() {
        let d = SurgeDists { max_object: u64::MAX, ..dists() };
        let mut rng = Rng::new(7);
        let n = 200_000;
        let mut v: Vec<u64> = (0..n).map(|_| d.object_bytes(&mut rng)).collect();
        v.sort_unstable();
        // Binomial standard error of an empirical CDF at n = 2e5 is at most 0.0011.
        for x in [2_000.0, 11_577.0, 40_000.0, 133_000.0, 300_000.0, 2_000_000.0] {
            let emp = v.partition_point(|&b| (b as f64) <= x) as f64 / n as f64;
            let th = d.object_cdf(x);
            assert!((emp - th).abs() < 0.005, "x = {x}: empirical {emp}, formula {th}");
        }
    }

    #[test]
    fn object_sizes_are_capped() {
        let d = SurgeDists { max_object: 200_000, ..dists() };
        let mut rng = Rng::new(3);
        let v: Vec<u64> = (0..100_000).map(|_| d.object_bytes(&mut rng)).collect();
        assert_eq!(*v.iter().max().unwrap(), 200_000);
        // P(size > 200 KB) uncapped = 1 - F(200 KB) ~ 2.1 %: that share sits at the cap.
        let at_cap = v.iter().filter(|&&b| b == 200_000).count() as f64 / v.len() as f64;
        let th = 1.0 - d.object_cdf(200_000.0);
        assert!((at_cap - th).abs() < 0.002, "{at_cap} vs {th}");
    }

    /// floor(Pareto(1, 2.43)): P(N >= n) = n^-2.43, so P(N = 1) = 1 - 2^-2.43.
    #[test]
    fn objects_per_page_law() {
        let d = dists();
        let mut rng = Rng::new(11);
        let n = 200_000;
        let v: Vec<u32> = (0..n).map(|_| d.objects_per_page(&mut rng)).collect();
        for k in [1u32, 2, 3, 5] {
            let emp = v.iter().filter(|&&x| x >= k).count() as f64 / n as f64;
            let th = (k as f64).powf(-2.43);
            assert!((emp - th).abs() < 0.004, "P(N >= {k}): {emp} vs {th}");
        }
        // E[N] = sum_{n>=1} n^-2.43 = zeta(2.43) = 1.3633 (the floor of a mean-1.70 draw).
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        assert!((mean - 1.3633).abs() < 0.01, "mean {mean}");
    }

    /// Weibull(shape 1.46, scale 0.382): mean scale * Gamma(1 + 1/shape) = 0.3459 s,
    /// median scale * ln2^(1/shape) = 0.3019 s.
    #[test]
    fn active_off_moments() {
        let d = dists();
        let mut rng = Rng::new(5);
        let n = 200_000;
        let mut v: Vec<f64> = (0..n).map(|_| d.active_off(&mut rng)).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        assert!((mean - 0.3459).abs() < 0.002, "mean {mean}");
        v.sort_by(f64::total_cmp);
        let median = v[n / 2];
        assert!((median - 0.382 * std::f64::consts::LN_2.powf(1.0 / 1.46)).abs() < 0.003, "median {median}");
    }

    /// Pareto(1, 1.5): mean 3 s, P(T > t) = t^-1.5.
    #[test]
    fn think_time_law() {
        let d = dists();
        let mut rng = Rng::new(9);
        let n = 200_000;
        let v: Vec<f64> = (0..n).map(|_| d.think(&mut rng)).collect();
        assert!(v.iter().all(|&t| t >= 1.0));
        for t in [1.5, 3.0, 10.0] {
            let emp = v.iter().filter(|&&x| x > t).count() as f64 / n as f64;
            let th: f64 = (t as f64).powf(-1.5);
            assert!((emp - th).abs() < 0.004, "P(T > {t}): {emp} vs {th}");
        }
    }

    #[test]
    fn bad_distribution_parameters_name_the_field() {
        let mut c: SurgeConfig = serde_json::from_str(r#"{"flows": [], "request_flows": []}"#).unwrap();
        c.tail_alpha = 0.0;
        let e = SurgeDists::from_config("apps[2]", &c).unwrap_err().to_string();
        assert!(e.contains("apps[2].tail_alpha"), "{e}");
        c.tail_alpha = 1.1;
        c.objects_k = 0.5;
        let e = SurgeDists::from_config("apps[2]", &c).unwrap_err().to_string();
        assert!(e.contains("apps[2].objects_k"), "{e}");
    }
}
