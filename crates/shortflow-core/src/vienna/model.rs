//! Heads up! Read spec `fairshare-and-sizebased.md` B.4, B.5, B.10–B.12 before
//! changing this file.
//!
//! The throughput model `B(α, β, γ, d, p, RTT)` of size-based congestion control (TCP
//! Vienna, P4 §4.3): Cardwell, Savage and Anderson's latency model for a transfer of
//! `d` segments, with the expected congestion-avoidance window `E[W]` generalised to
//! an additive increase `α`, a multiplicative decrease that keeps `β` of the window and
//! a slow-start step `γ`. `B = d / E[T]` in segments per second.
//!
//! P4's Eq. 3 is garbled in the text we have (a flow size `d` inside a steady-state
//! window, `α/4` where the algebra needs `α/2`) and, even corrected, it makes the
//! aggressive settings *slower* than Reno, which contradicts P4's Fig. 3. We use the
//! first-principles generalisation of P4's Eq. 1, [`WindowModel::F`] (spec B.4, the
//! default; it reduces exactly to Padhye/Cardwell at (1, 0.5)); the corrected printed
//! form is [`WindowModel::P2`]. Both take the number of rounds per loss period as
//! `E[X] = b(1−β)E[W]/α`, which follows from Eq. 1.
//!
//! Equation numbers in brackets are Cardwell et al.'s.

/// Which generalisation of `E[W]` (spec B.4, B.11 item 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WindowModel {
    /// First-principles generalisation of P4 Eq. 1 (the default).
    #[default]
    F,
    /// P4's Eq. 3 with its two extraction errors corrected (d → β, α/4 → α/2).
    P2,
}

/// The path and receiver quantities the model needs besides `(α, β, γ, d)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathModel {
    /// Loss probability, `0 < p < 1`.
    pub p: f64,
    /// Round-trip time (s).
    pub rtt: f64,
    /// Retransmission timeout (s), `T0`.
    pub t0: f64,
    /// Initial window (segments), `w1`.
    pub w1: f64,
    /// Segments covered by one ack: 2 with delayed acks, else 1.
    pub b: f64,
    /// Receiver window (segments); `f64::INFINITY` for none.
    pub wmax: f64,
    /// SYN timeout (s), `T_s` (3 s).
    pub t_syn: f64,
    /// Delayed-ack timer (s), added once when `b == 2` (0.1 s).
    pub t_delack: f64,
    pub window_model: WindowModel,
}

impl PathModel {
    /// The spec's reference settings (B.10): b = 2, `W_max` = ∞, `T_s` = 3 s,
    /// `T_delack` = 0.1 s, variant F.
    pub fn new(p: f64, rtt: f64, t0: f64, w1: f64) -> PathModel {
        PathModel {
            p,
            rtt,
            t0,
            w1,
            b: 2.0,
            wmax: f64::INFINITY,
            t_syn: 3.0,
            t_delack: 0.1,
            window_model: WindowModel::F,
        }
    }
}

/// A setting of the three adapted parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Additive increase: cwnd += α/cwnd per ack in congestion avoidance.
    pub alpha: f64,
    /// Retained fraction at a fast retransmit: cwnd ← β·flight.
    pub beta: f64,
    /// Slow-start step: cwnd += γ per ack.
    pub gamma: f64,
}

impl Params {
    /// Typical delayed-ack Reno (the lower bounds).
    pub const RENO: Params = Params { alpha: 1.0, beta: 0.5, gamma: 1.0 };
    /// The upper bounds (where a Vienna sender starts).
    pub const MAX: Params = Params { alpha: 8.0, beta: 0.9, gamma: 2.0 };
}

/// P4 §4.4's candidate sets: (α, β) are paired by index, crossed with γ.
pub const ALPHAS: [f64; 5] = [1.0, 2.0, 4.0, 6.0, 8.0];
pub const BETAS: [f64; 5] = [0.5, 0.6, 0.7, 0.8, 0.9];
pub const GAMMAS: [f64; 2] = [1.0, 2.0];

/// The flow length P4 takes as "infinite" for the typical long flow.
pub const LONG_FLOW_SEGMENTS: f64 = 10_000.0;

/// Expected window at a loss in the congestion-avoidance steady state, `E[W]`
/// (generalised Cardwell \[23\]).
pub fn expected_window(alpha: f64, beta: f64, b: f64, p: f64, model: WindowModel) -> f64 {
    match model {
        WindowModel::F => {
            let k = 1.0 - beta * beta;
            let c = alpha * (1.0 + b * (1.0 - beta)) / (2.0 * b * k);
            c + (c * c + 2.0 * alpha * (1.0 - p) / (p * b * k)).sqrt()
        }
        WindowModel::P2 => {
            let c = (1.0 + alpha * beta * b) / (beta * b * (4.0 * beta + alpha));
            c + (c * c + 4.0 * (1.0 - p) / (p * b * beta * (4.0 * beta + alpha))).sqrt()
        }
    }
}

/// Probability that a loss in a window of `w` is detected by a timeout [17].
fn q_timeout(p: f64, w: f64) -> f64 {
    if w <= 3.0 {
        return 1.0;
    }
    let q = 1.0 - p;
    let num = 1.0 + q.powi(3) * (1.0 - q.powf(w - 3.0));
    let den = (1.0 - q.powf(w)) / (1.0 - q.powi(3));
    (num / den).min(1.0)
}

/// Back-off factor of a timeout sequence [19].
fn g_backoff(p: f64) -> f64 {
    1.0 + p + 2.0 * p.powi(2) + 4.0 * p.powi(3) + 8.0 * p.powi(4) + 16.0 * p.powi(5) + 32.0 * p.powi(6)
}

/// The terms of `E[T]` for one transfer (s), for plots and tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    /// Connection set-up \[4\].
    pub setup: f64,
    /// Initial slow start \[15\].
    pub slow_start: f64,
    /// The first loss, if any \[20\] (P4 omits it; Cardwell has it).
    pub first_loss: f64,
    /// Congestion avoidance for the rest \[21\], \[24\].
    pub cong_avoid: f64,
    /// Delayed-ack delay of the first segment.
    pub delack: f64,
}

impl Latency {
    pub fn total(&self) -> f64 {
        self.setup + self.slow_start + self.first_loss + self.cong_avoid + self.delack
    }
}

/// `E[T]` of a transfer of `d` segments with parameters `x` over `path`.
pub fn latency(x: Params, d: f64, path: &PathModel) -> Latency {
    let PathModel { p, rtt, t0, w1, b, wmax, .. } = *path;
    let q = 1.0 - p;
    // [4] with p clamped below 1/2 (the SYN back-off series diverges at 1/2).
    let pf = p.min(0.49);
    let setup = rtt + path.t_syn * (2.0 * (1.0 - pf) / (1.0 - 2.0 * pf) - 2.0);
    // Slow start grows the window by a factor g per round: 1 + γ/b.
    let g = 1.0 + x.gamma / b;
    let e_dss = d.min((1.0 - q.powf(d)) * q / p + 1.0); // [5]
    let e_wss = e_dss * (g - 1.0) / g + w1 / g; // [11]
    let slow_start = if e_wss > wmax {
        rtt * ((wmax / w1).ln() / g.ln() + 1.0 + (e_dss - (g * wmax - w1) / (g - 1.0)) / wmax)
    } else {
        rtt * (e_dss * (g - 1.0) / w1 + 1.0).ln() / g.ln()
    }; // [15]
    let l_ss = 1.0 - q.powf(d); // [16]
    let gp = g_backoff(p);
    let e_zto = gp * t0 / q; // [18]
    let q_ss = q_timeout(p, e_wss);
    let first_loss = l_ss * (q_ss * e_zto + (1.0 - q_ss) * rtt); // [20]
    let w = expected_window(x.alpha, x.beta, b, p, path.window_model);
    let r_ca = if w < wmax {
        let rounds = b * (1.0 - x.beta) * w / x.alpha;
        let qw = q_timeout(p, w);
        (q / p + w + qw / q) / (rtt * (rounds + 1.0) + qw * gp * t0 / q)
    } else {
        let qw = q_timeout(p, wmax);
        (q / p + wmax + qw / q) / (rtt * (b / 8.0 * wmax + q / (p * wmax) + 2.0) + qw * gp * t0 / q)
    }; // [22]
    let cong_avoid = (d - e_dss).max(0.0) / r_ca; // [21], [24]
    let delack = if b == 2.0 { path.t_delack } else { 0.0 };
    Latency { setup, slow_start, first_loss, cong_avoid, delack }
}

/// Model throughput `B = d / E[T]` (segments per second).
pub fn throughput(x: Params, d: f64, path: &PathModel) -> f64 {
    d / latency(x, d, path).total()
}

/// `B_max`: the throughput of a typical long delayed-ack Reno flow on this path.
pub fn long_flow_throughput(path: &PathModel) -> f64 {
    throughput(Params::RENO, LONG_FLOW_SEGMENTS, path)
}

/// The outcome of one parameter selection (for traces and Fig. 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selection {
    pub params: Params,
    /// Model throughput with the chosen parameters.
    pub b: f64,
    /// `B_max`.
    pub b_max: f64,
    /// No candidate stayed strictly below `B_max`: the fallback (Reno) was taken.
    pub fallback: bool,
}

/// P4 Fig. 2: the candidate whose throughput for `d` segments is closest to `B_max`
/// from strictly below; ties go to the less aggressive candidate; none below →
/// (1, 0.5, 1). `full_grid` crosses every α with every β (spec B.11 item 6) instead of
/// pairing them by index.
pub fn select(d: f64, path: &PathModel, full_grid: bool) -> Selection {
    let b_max = long_flow_throughput(path);
    let mut best: Option<(f64, Params, f64)> = None;
    // Candidates in increasing aggressiveness (γ outer so that, with equal
    // throughput, an earlier candidate is the less aggressive one and wins the tie).
    for &gamma in &GAMMAS {
        for (i, &alpha) in ALPHAS.iter().enumerate() {
            let betas: &[f64] = if full_grid { &BETAS } else { std::slice::from_ref(&BETAS[i]) };
            for &beta in betas {
                let x = Params { alpha, beta, gamma };
                let bx = throughput(x, d, path);
                let diff = b_max - bx;
                if diff > 0.0 && best.map_or(true, |(bd, _, _)| diff < bd) {
                    best = Some((diff, x, bx));
                }
            }
        }
    }
    match best {
        Some((_, params, b)) => Selection { params, b, b_max, fallback: false },
        None => Selection { params: Params::RENO, b: throughput(Params::RENO, d, path), b_max, fallback: true },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn expected_window_reference_values() {
        // Spec B.10 (computed with variant F).
        let w = expected_window(1.0, 0.5, 2.0, 0.025, WindowModel::F);
        assert!(close(w, 7.9085, 5e-5), "{w}");
        // ... which is Padhye's E[W] at (1, 0.5).
        let (b, p) = (2.0f64, 0.025f64);
        let padhye = (2.0 + b) / (3.0 * b) + (8.0 * (1.0 - p) / (3.0 * b * p) + ((2.0 + b) / (3.0 * b)).powi(2)).sqrt();
        assert!(close(w, padhye, 1e-12));
        assert!(close(expected_window(1.0, 0.5, 1.0, 0.025, WindowModel::F), 11.2470, 5e-5));
        assert!(close(expected_window(8.0, 0.9, 2.0, 0.025, WindowModel::F), 55.078, 5e-4));
        // P2 also reduces to Padhye at (1, 0.5) (spec B.4 (ii)).
        assert!(close(expected_window(1.0, 0.5, 2.0, 0.025, WindowModel::P2), padhye, 1e-12));
    }

    #[test]
    fn long_flow_reference_values() {
        for (p, rtt, t0, want) in [(0.01, 0.1, 0.3, 79.577), (0.025, 0.2, 0.4, 24.050), (0.1, 0.2, 0.4, 9.717)] {
            let got = long_flow_throughput(&PathModel::new(p, rtt, t0, 4.0));
            assert!(close(got, want, 5e-4), "p={p}: {got} vs {want}");
        }
    }

    #[test]
    fn throughput_and_selection_reference_table() {
        let path = PathModel::new(0.025, 0.2, 0.4, 4.0);
        let table = [
            (10.0, 10.704, 11.305, Params::MAX),
            (20.0, 15.706, 18.841, Params::MAX),
            (40.0, 20.679, 31.069, Params { alpha: 2.0, beta: 0.6, gamma: 1.0 }),
            (80.0, 23.573, 50.135, Params::RENO),
        ];
        for (d, reno, max, chosen) in table {
            assert!(close(throughput(Params::RENO, d, &path), reno, 5e-4), "d={d}");
            assert!(close(throughput(Params::MAX, d, &path), max, 5e-4), "d={d}");
            let s = select(d, &path, false);
            assert_eq!(s.params, chosen, "d={d}");
            assert!(!s.fallback);
            assert!(s.b < s.b_max);
        }
        // At 160 segments and beyond no candidate stays strictly below B_max.
        for d in [160.0, 1000.0, 10_000.0] {
            let s = select(d, &path, false);
            assert!(s.fallback, "d={d}");
            assert_eq!(s.params, Params::RENO);
        }
    }

    #[test]
    fn aggressive_settings_reach_b_max_near_28_segments() {
        // Spec B.10: B(8, 0.9, 2) first reaches B_max at d ≈ 28.
        let path = PathModel::new(0.025, 0.2, 0.4, 4.0);
        let b_max = long_flow_throughput(&path);
        let first = (1..200).find(|&d| throughput(Params::MAX, d as f64, &path) >= b_max).unwrap();
        assert!((27..=29).contains(&first), "{first}");
    }

    #[test]
    fn ties_go_to_the_less_aggressive_candidate() {
        // A transfer that ends in slow start: α and β have no effect, so the γ = 1
        // candidates tie among themselves (and the γ = 2 ones among themselves).
        let path = PathModel::new(0.001, 0.1, 0.3, 4.0);
        let s = select(3.0, &path, false);
        assert_eq!(s.params.alpha, 1.0);
        assert_eq!(s.params.beta, 0.5);
    }

    #[test]
    fn model_is_monotone_in_alpha_and_beta_for_long_flows() {
        // Spec B.12, variant F: steady-state ratios to Reno at RTT 0.2 s.
        let path = PathModel::new(0.025, 0.2, 0.4, 4.0);
        let d = 1e9; // steady state
        let reno = throughput(Params::RENO, d, &path);
        let mut last = reno;
        for i in 1..5 {
            let x = Params { alpha: ALPHAS[i], beta: BETAS[i], gamma: 1.0 };
            let bx = throughput(x, d, &path);
            assert!(bx > last, "{x:?}");
            last = bx;
        }
        let ratio = last / reno;
        assert!(close(ratio, 7.20, 0.01), "{ratio}");
    }

    #[test]
    fn throughput_saturates_with_flow_length() {
        // P4 Fig. 1 (γ = 1, IW = 1, p = 0.1, RTT = 0.2 s): B rises with d and levels off.
        let path = PathModel::new(0.1, 0.2, 0.4, 1.0);
        for x in [Params::RENO, Params { alpha: 8.0, beta: 0.9, gamma: 1.0 }] {
            let b: Vec<f64> = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5].iter().map(|&d| throughput(x, d, &path)).collect();
            assert!(b.windows(2).all(|w| w[0] < w[1]), "{b:?}");
            // From 100 segments on (past slow start), each tenfold longer flow gains
            // less than the one before, and the last decade adds under 2 %.
            assert!(b[2..].windows(3).all(|w| w[2] - w[1] < w[1] - w[0]), "{b:?}");
            assert!((b[5] - b[4]) / b[5] < 0.02, "{b:?}");
        }
    }

    #[test]
    fn receiver_window_caps_the_window() {
        let mut path = PathModel::new(0.001, 0.1, 0.3, 4.0);
        let free = throughput(Params::RENO, 5000.0, &path);
        path.wmax = 8.0;
        let capped = throughput(Params::RENO, 5000.0, &path);
        assert!(capped < free);
        // At most one window per round trip.
        assert!(capped <= 8.0 / 0.1 + 1e-9, "{capped}");
    }
}
