//! Fair-share slow start (Yu & Newman, seed 003 "P3"; spec `fairshare-and-sizebased.md`
//! part A): LISS, ISS, MISS, JS, and P3 §5.4's Cached and Averaged methods.
//!
//! Heads up! Read the spec A.3-A.10 and A.15 before changing this file. The state
//! and the arithmetic are in [`crate::fairshare`]; this file feeds them from the
//! connection's hooks:
//!
//! - the group is the connection's path entry, (server, destination prefix of
//!   `paths.prefix_len` bits): `PathEntry::fair_share`;
//! - at its first `on_transfer_start` (an FTP source's start) the connection decides
//!   its ssthresh and initial cwnd from the group, with the pacer of MISS/JS (the
//!   first `cwnd` packets one every R/cwnd), and joins the group as a [`Member`];
//! - on every ack it refreshes its member's cwnd, ssthresh, srtt, recovery flag and,
//!   on a new ack, `awnd` (after the ack's window update; ns-2 averages in `newack`
//!   before `opencwnd`, a difference of one ack's growth at gain 0.002);
//! - a window-cut loss event (fast retransmit entry, RTO; one per cut) updates the
//!   group's and the member's loss-interval EWMAs (Eqs. 3-4). A fast retransmit's cut
//!   reaches the member at the same dupack (`on_ack` runs after the ack's processing);
//!   an RTO has no ack, and `on_loss` runs before the cut, so the member takes the
//!   timeout's window here: cwnd = the restart window (1), out of recovery, i.e. a slow
//!   starter at 1 from the timeout on, as P3's newcomer reading the agent's `cwnd_` in
//!   ns-2 would see it (spec A.8 reads `x.cwnd` at the newcomer's start). Its ssthresh
//!   (which depends on the congestion control) is refreshed at its next ack; Eqs. 2-5
//!   do not depend on it (cwnd 1 is below any ssthresh ≥ 2), only Cached reads it;
//! - `on_close` (the application tore the connection down) leaves the group; the
//!   Cached method first stores the connection's ssthresh for its destination host.
//!
//! Cached (spec A.10.2): the oldest live connection of the group gives its ssthresh;
//! otherwise the last ssthresh a connection to the same destination host closed with
//! (no expiry); otherwise the default. Averaged (A.10.3): see [`Averaged`].

use super::{StartCtx, StartPlan, StartupPolicy};
use crate::config::{FairShareConfig, FairShareScheme, PaceRtt};
use crate::error::{err, positive_time_s, ConfigError};
use crate::fairshare::{decide_with, Averaged, Decision, Group, Member, Options, Scheme};
use crate::tcp::cc::Tcb;
use crate::tcp::events::{AckSample, LossEvent, LossKind, LossVerdict, Phase};
use crate::tcp::pacing::Pacer;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct FairShare {
    pub scheme: FairShareScheme,
    pub opt: Options,
    pub pacing: bool,
    pub pace_rtt: PaceRtt,
    /// Averaged: sampling period, window and update period.
    pub avg: (SimTime, SimTime, SimTime),
    /// Advertised window (packets): the cap of every estimate.
    pub rwnd: i32,
    /// A member of its group (between the start and the close).
    pub joined: bool,
    /// The decision taken at the start, for tests and traces.
    pub decision: Option<Decision>,
}

impl FairShare {
    /// Validate a flow's `startup = { kind = "fair_share", ... }` table.
    pub fn from_config(field: &str, c: &FairShareConfig, tcp_window: u32) -> Result<FairShare, ConfigError> {
        if c.default_ssthresh < 2 {
            return Err(err(format!("{field}.default_ssthresh"), c.default_ssthresh, "must be at least 2 packets"));
        }
        let sample = positive_time_s(&format!("{field}.avg_sample_s"), c.avg_sample_s)?;
        let window = positive_time_s(&format!("{field}.avg_window_s"), c.avg_window_s)?;
        let update = positive_time_s(&format!("{field}.avg_update_s"), c.avg_update_s)?;
        if window < update {
            return Err(err(
                format!("{field}.avg_window_s"),
                c.avg_window_s,
                format!("must be at least avg_update_s ({})", c.avg_update_s),
            ));
        }
        let rwnd = tcp_window.min(i32::MAX as u32) as i32;
        Ok(FairShare {
            scheme: c.scheme,
            opt: Options { default_ssthresh: (c.default_ssthresh.min(i32::MAX as u32) as i32), plain_w_o: c.plain_w_o },
            pacing: c.pacing,
            pace_rtt: c.pace_rtt,
            avg: (sample, window, update),
            rwnd,
            joined: false,
            decision: None,
        })
    }

    fn clamp(&self, w: f64) -> i32 {
        (w.floor() as i64).clamp(2, self.rwnd.max(2) as i64) as i32
    }

    /// The start of connection `me` in group `g` (before it joins).
    fn decide(&self, g: &mut Group, me: u32, dst_addr: u32, now: SimTime) -> Decision {
        let scheme = match self.scheme {
            FairShareScheme::Liss => Scheme::Liss,
            FairShareScheme::Iss => Scheme::Iss,
            FairShareScheme::Miss => Scheme::Miss,
            FairShareScheme::Js => Scheme::Js,
            FairShareScheme::Cached => {
                let from_live = g.live.iter().find(|m| m.id != me).map(|m| m.ssthresh);
                let cached = || g.closed_ssthresh.iter().find(|c| c.0 == dst_addr).map(|c| c.1);
                let ss = from_live.or_else(cached).map_or(self.opt.default_ssthresh, |s| self.clamp(s as f64));
                return Decision { ssthresh: ss.min(self.rwnd.max(2)), cwnd: 1.0, pace_over_s: None, eq2: None };
            }
            FairShareScheme::Averaged => {
                let (s, w, u) = self.avg;
                let a = g.averaged.get_or_insert_with(|| Averaged::new(s, w, u));
                a.flush(now, &g.live);
                let ss = a.value(now).map_or(self.opt.default_ssthresh, |v| self.clamp(v));
                return Decision { ssthresh: ss.min(self.rwnd.max(2)), cwnd: 1.0, pace_over_s: None, eq2: None };
            }
        };
        decide_with(scheme, g, Some(me), now, self.rwnd, self.opt)
    }

    /// Account the Averaged method's samples up to `now`, before a member changes.
    #[inline]
    fn flush(&self, g: &mut Group, now: SimTime) {
        if self.scheme == FairShareScheme::Averaged {
            if let Some(a) = g.averaged.as_mut() {
                a.flush(now, &g.live);
            }
        }
    }
}

impl StartupPolicy for FairShare {
    fn on_transfer_start(&mut self, cx: &mut StartCtx) -> StartPlan {
        if self.joined || self.decision.is_some() {
            // Only the connection's start is decided; later transfers are plain Reno.
            return StartPlan::default();
        }
        let now = cx.now;
        let me = cx.flow;
        let dst = cx.dst_addr;
        let own_rtt = cx.rtt.srtt_frac_s(cx.rttp);
        let g: &mut Group = cx.path.entry().fair_share.get_or_insert_with(Default::default);
        let mut d = self.decide(g, me, dst, now);
        if self.pace_rtt == PaceRtt::Own && own_rtt > 0.0 && d.pace_over_s.is_some() {
            d.pace_over_s = Some(own_rtt);
        }
        if !self.pacing {
            d.pace_over_s = None;
        }
        self.flush(g, now);
        let mut m = Member::new(me, now, d.cwnd, d.ssthresh);
        m.awnd = cx.tcb.initial_window() / 2.0; // ns-2 resets awnd_ to windowInit_/2
        g.open(m);
        cx.tcb.cwnd = d.cwnd;
        cx.tcb.ssthresh = d.ssthresh;
        self.joined = true;
        self.decision = Some(d);
        let tr = &mut *cx.trace;
        tr.flow.push(cx.flow_name.to_string());
        tr.time_s.push(now.as_secs_f64());
        tr.wc_estimate.push(d.eq2.map_or(f64::NAN, |e| e.s_n));
        tr.rtt_estimate_s.push(d.pace_over_s.unwrap_or(f64::NAN));
        tr.n_samples.push(d.eq2.map_or(0, |e| e.l));
        tr.cwnd.push(d.cwnd);
        tr.fallback_slow_start.push(d.eq2.is_none());
        let pacer = d
            .pace_over_s
            .filter(|r| *r > 0.0 && d.cwnd > 1.0)
            .map(|r| Pacer::new(now, cx.t_seqno, d.cwnd as i64, d.cwnd / r, 1));
        StartPlan { pacer, ..StartPlan::default() }
    }

    fn on_ack(&mut self, cx: &mut StartCtx, ack: &AckSample) -> Phase {
        if !self.joined {
            return Phase::Stay;
        }
        let (cwnd, ssthresh, rec) = (cx.tcb.cwnd, cx.tcb.ssthresh, cx.tcb.dupwnd > 0);
        let srtt = cx.rtt.srtt_frac_s(cx.rttp);
        let now = cx.now;
        if let Some(g) = cx.path.entry().fair_share.as_deref_mut() {
            self.flush(g, now);
            if let Some(m) = g.member_mut(ack.flow) {
                m.cwnd = cwnd;
                m.ssthresh = ssthresh;
                m.in_recovery = rec;
                m.srtt_s = srtt;
                if ack.newly_acked > 0 {
                    m.on_new_ack();
                }
            }
        }
        Phase::Stay
    }

    fn on_loss(&mut self, cx: &mut StartCtx, loss: &LossEvent) -> LossVerdict {
        if self.joined && matches!(loss.kind, LossKind::DupAckThreshold | LossKind::Rto) {
            let now = cx.now;
            if let Some(g) = cx.path.entry().fair_share.as_deref_mut() {
                self.flush(g, now);
                g.on_loss_event(loss.flow, now);
                if loss.kind == LossKind::Rto {
                    if let Some(m) = g.member_mut(loss.flow) {
                        m.after_rto(Tcb::WND_RESTART);
                    }
                }
            }
        }
        LossVerdict::Cut
    }

    fn on_close(&mut self, cx: &mut StartCtx) {
        if !self.joined {
            return;
        }
        self.joined = false;
        let (now, me, dst, ss) = (cx.now, cx.flow, cx.dst_addr, cx.tcb.ssthresh);
        if let Some(g) = cx.path.entry().fair_share.as_deref_mut() {
            self.flush(g, now);
            if self.scheme == FairShareScheme::Cached {
                match g.closed_ssthresh.iter_mut().find(|c| c.0 == dst) {
                    Some(c) => c.1 = ss,
                    None => g.closed_ssthresh.push((dst, ss)),
                }
            }
            g.close(me);
        }
    }

    fn wants_every_ack(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::PathRegistry;
    use crate::tcp::rig::{ms, tcp, Rig};
    use crate::tcp::startup::AnyStartup;

    /// P3's TCP: Reno, no SYN, IW 1, ssthresh 10, advertised window 100.
    fn reno() -> crate::config::TcpConfig {
        tcp(
            r#"{"variant": "reno", "syn": false, "delay_growth": false, "window_init": 1, "window": 100, "ssthresh": 10}"#,
        )
    }

    fn policy(json: &str) -> AnyStartup {
        let c: FairShareConfig = serde_json::from_str(json).unwrap();
        AnyStartup::FairShare(Box::new(FairShare::from_config("startup", &c, 100).unwrap()))
    }

    /// Ack every outstanding packet of `k` at `t`, one ack each.
    fn round(r: &mut Rig, k: u32, t: SimTime) {
        let (from, to) = (r.conn(k).highest_ack + 1, r.conn(k).t_seqno);
        for a in from..to {
            r.ack(t, k, a);
        }
    }

    /// Connection 0 starts at 0 and is acked in rounds every 100 ms up to `until_ms`.
    fn grow(r: &mut Rig, until_ms: u64) {
        r.infinite(ms(0), 0);
        for i in 1..=until_ms / 100 {
            round(r, 0, ms(100 * i));
        }
    }

    fn group(r: &Rig) -> &Group {
        r.shared.paths.entries()[0].fair_share.as_deref().expect("a group")
    }

    fn decision(r: &Rig, k: u32) -> Decision {
        match &r.block(k).startup {
            AnyStartup::FairShare(f) => f.decision.expect("decided"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn liss_eq2_through_whole_connections_and_closing_leaves_the_group() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "liss"}"#), 4, false);
        grow(&mut r, 600);
        assert_eq!(decision(&r, 0).ssthresh, 10, "alone: P3's default");
        let c0 = r.cwnd(0);
        assert!(c0 > 10.0 && c0 < 13.0 && c0.fract() != 0.0, "in congestion avoidance: {c0}");
        r.infinite(ms(650), 1);
        // L = 1, S = 0: s_n = c0/2.
        assert_eq!((r.ssthresh(1), r.cwnd(1)), ((c0 / 2.0).floor() as i32, 1.0));
        r.infinite(ms(660), 2);
        // Connection 1 slow-starts at cwnd 1: s_n = (1 + c0) / (1 + 1/c0 + 1).
        let s_n = (1.0 + c0) / (2.0 + 1.0 / c0);
        assert_eq!(r.ssthresh(2), s_n.floor() as i32);
        assert_eq!(r.shared.startup_trace.wc_estimate[2], s_n);
        assert_eq!(group(&r).live.iter().map(|m| m.id).collect::<Vec<_>>(), vec![0, 1, 2]);
        r.close(ms(700), 0);
        assert_eq!(group(&r).live.iter().map(|m| m.id).collect::<Vec<_>>(), vec![1, 2]);
        assert!(r.block(0).pace_timer.pending() == false && r.conn(0).torn_down);
        // Closed: later acks are ignored, nothing is sent.
        r.sent();
        r.ack(ms(710), 0, r.conn(0).highest_ack + 1);
        assert!(r.sent().iter().all(|s| s.conn != 0));
        // No steady connection is left: the default.
        r.infinite(ms(720), 3);
        assert_eq!((r.ssthresh(3), r.cwnd(3)), (10, 1.0));
    }

    #[test]
    fn iss_uses_the_averaged_window() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "iss"}"#), 2, false);
        // awnd by hand: 0.5 at the start, then 0.998·awnd + 0.002·cwnd per new ack.
        r.infinite(ms(0), 0);
        let mut awnd = 0.5;
        for i in 1..=6 {
            let (from, to) = (r.conn(0).highest_ack + 1, r.conn(0).t_seqno);
            for a in from..to {
                r.ack(ms(100 * i), 0, a);
                awnd = 0.998 * awnd + 0.002 * r.cwnd(0);
            }
        }
        assert!(r.cwnd(0) >= 10.0);
        r.infinite(ms(650), 1);
        let d = decision(&r, 1);
        assert!((d.eq2.unwrap().w_o - awnd).abs() < 1e-12);
        assert_eq!(d.ssthresh, 2, "awnd/2 ≈ {} is below the floor of 2", awnd / 2.0);
    }

    #[test]
    fn js_starts_in_congestion_avoidance_paced_over_the_oldest_srtt() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "js"}"#), 2, false);
        grow(&mut r, 900);
        let c0 = r.cwnd(0);
        let rtt = group(&r).live[0].srtt_s;
        assert!(rtt > 0.05 && rtt < 0.15, "srtt {rtt}");
        r.sent();
        r.infinite(ms(950), 1);
        let w = (c0 / 2.0).floor();
        assert_eq!((r.cwnd(1), r.ssthresh(1) as f64), (w, w));
        r.run_to(ms(950) + SimTime::from_secs_f64(rtt));
        let times: Vec<u64> = r.sent().iter().filter(|s| s.conn == 1).map(|s| s.t_us).collect();
        let gap = SimTime::from_secs_f64(rtt / w);
        let want: Vec<u64> = (0..w as u64).map(|i| (ms(950).0 + i * gap.0) / 1000).collect();
        assert_eq!(times, want, "{w} packets one every R/cwnd");
        // Congestion avoidance from the first ack.
        r.ack(ms(1100), 1, 0);
        assert_eq!(r.cwnd(1), w + 1.0 / w);
    }

    #[test]
    fn miss_from_loss_timing_and_without_history_like_liss() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "miss"}"#), 3, false);
        grow(&mut r, 600);
        r.infinite(ms(650), 1);
        let d = decision(&r, 1);
        assert_eq!((d.cwnd, d.pace_over_s), (1.0, None), "no loss history: LISS");
        assert_eq!(d.ssthresh, (r.cwnd(0) / 2.0).floor() as i32);
        // Loss events of connection 0 (three dupacks: fast retransmit) at 1, 3, 5 s.
        for i in 7..=50u64 {
            let t = ms(100 * i);
            if i % 20 == 10 {
                let h = r.conn(0).highest_ack;
                for _ in 0..3 {
                    r.ack(t, 0, h);
                }
            } else {
                round(&mut r, 0, t);
            }
            if i % 10 == 5 {
                round(&mut r, 1, t);
            }
        }
        let g = group(&r);
        assert_eq!((g.losses.events, g.losses.mean_s), (3, Some(2.0)));
        let o = g.live[0];
        assert_eq!(o.losses.mean_s, Some(2.0));
        // Eq. 5 at 5.1 s: γ·(τ − (5.1 − 5)) / (τ·R) = 1.9 / R. (Connection 0 is in fast
        // recovery since 5 s; its retransmission timer, at least 0.2 s, has not fired yet:
        // after it, connection 0 would be a slow starter at cwnd 1 and no longer o.)
        let want = (2.0 * (2.0 - 0.1) / (2.0 * o.srtt_s)).floor();
        let liss = crate::fairshare::eq2(g, None, false).unwrap().s_n.floor() as i32;
        r.infinite(ms(5100), 2);
        assert_eq!(r.conn(0).ctr.timeouts, 0);
        let d = decision(&r, 2);
        assert_eq!(d.cwnd, want);
        assert_eq!(d.ssthresh, liss.max(want as i32));
        assert_eq!(d.pace_over_s, Some(o.srtt_s));
    }

    /// One scripted group for every scheme: connections 0, 1, 2 start at 0, 10, 20 ms and
    /// are acked in rounds every 100 ms; loss events (three dupacks) of 0 at 1.0 and 2.0 s
    /// and of 1 at 1.5 s; the last round at 3.0 s; connection 3 starts at 3.01 s and gets
    /// one round at 3.04 s; connection 0 enters fast recovery at 3.06 s; connection 4 starts
    /// at 3.08 s (before any retransmission timer, at least 0.2 s, can fire). Returns
    /// the rig and connection 0's `awnd` tracked by hand (0.5, then
    /// 0.998·awnd + 0.002·cwnd per new ack).
    fn scripted_group(scheme: &str) -> (Rig, f64) {
        let mut r = Rig::new(&reno(), policy(&format!(r#"{{"scheme": "{scheme}"}}"#)), 5, false);
        r.infinite(ms(0), 0);
        r.infinite(ms(10), 1);
        r.infinite(ms(20), 2);
        let mut awnd = 0.5;
        let dupacks = |r: &mut Rig, k: u32, t: SimTime| {
            let h = r.conn(k).highest_ack;
            for _ in 0..3 {
                r.ack(t, k, h);
            }
        };
        for i in 1..=30u64 {
            let t = ms(100 * i);
            for k in 0..3 {
                if (k == 0 && (i == 10 || i == 20)) || (k == 1 && i == 15) {
                    dupacks(&mut r, k, t);
                    continue;
                }
                let (from, to) = (r.conn(k).highest_ack + 1, r.conn(k).t_seqno);
                for a in from..to {
                    r.ack(t, k, a);
                    if k == 0 {
                        awnd = 0.998 * awnd + 0.002 * r.cwnd(0);
                    }
                }
            }
        }
        r.infinite(ms(3010), 3);
        round(&mut r, 3, ms(3040));
        dupacks(&mut r, 0, ms(3060));
        r.sent();
        r.infinite(ms(3080), 4);
        (r, awnd)
    }

    /// Eq. 2 recomputed from the connections' own TCP state (P3 §3: steady = in AIMD,
    /// cwnd ≥ ssthresh; a connection in fast recovery counts with its ssthresh, spec
    /// A.15 item 10): (L, S, w_o, s_n) over connections 0..=3, the oldest steady one's
    /// window being `w_o` (or `awnd` for ISS).
    fn eq2_from_tcp_state(r: &Rig, awnd0: Option<f64>) -> (u32, f64, f64, f64) {
        let (mut l, mut s, mut w_o) = (0, 0.0, None);
        for k in 0..4 {
            let b = r.block(k);
            let w = if b.tcb.dupwnd > 0 { b.tcb.ssthresh as f64 } else { b.tcb.cwnd };
            if w >= b.tcb.ssthresh as f64 {
                l += 1;
                w_o = w_o.or(Some(if k == 0 { awnd0.unwrap_or(w) } else { w }));
            } else {
                s += w;
            }
        }
        let w_o = w_o.unwrap();
        (l, s, w_o, (s + l as f64 * w_o) / (l as f64 + s / w_o + 1.0))
    }

    #[test]
    fn every_scheme_by_hand_on_one_scripted_group() {
        // LISS: three steady connections (the oldest in fast recovery, counted with its
        // ssthresh) and one slow starter.
        let (r, _) = scripted_group("liss");
        assert!(r.block(0).tcb.dupwnd > 0 && r.cwnd(3) == 2.0 && r.ssthresh(3) > 2);
        let (l, s, w_o, s_n) = eq2_from_tcp_state(&r, None);
        assert_eq!((l, s, w_o), (3, 2.0, r.ssthresh(0) as f64));
        let d = decision(&r, 4);
        let e = d.eq2.unwrap();
        assert_eq!((e.l, e.s, e.w_o, e.oldest), (l, s, w_o, 0));
        assert!((e.s_n - s_n).abs() < 1e-12);
        assert_eq!((r.ssthresh(4), r.cwnd(4), d.pace_over_s), (s_n.floor() as i32, 1.0, None));

        // ISS: w_o is connection 0's awnd as tracked by hand, in recovery or not.
        let (r, awnd) = scripted_group("iss");
        assert!(awnd > 2.0, "awnd {awnd}");
        let (l, s, w_o, s_n) = eq2_from_tcp_state(&r, Some(awnd));
        let e = decision(&r, 4).eq2.unwrap();
        assert_eq!((e.l, e.s), (l, s));
        assert!((e.w_o - w_o).abs() < 1e-12 && (e.s_n - s_n).abs() < 1e-12, "{e:?} vs {w_o} {s_n}");
        assert_eq!((r.ssthresh(4), r.cwnd(4)), ((s_n.floor() as i32).max(2), 1.0));

        // JS: cwnd = ssthresh = LISS's s_n (connection 3, started the same way, counts as
        // steady: spec A.15 item 9), the first window paced one every R/cwnd with R the
        // oldest connection's srtt.
        let (mut r, _) = scripted_group("js");
        let (_, _, _, s_n) = eq2_from_tcp_state(&r, None);
        let w = s_n.floor();
        let rtt = group(&r).live[0].srtt_s;
        assert_eq!(rtt, r.block(0).rtt.srtt_frac_s(&r.conn(0).params().rtt));
        assert_eq!((r.cwnd(4), r.ssthresh(4) as f64, decision(&r, 4).pace_over_s), (w, w, Some(rtt)));
        r.run_to(ms(3080) + SimTime::from_secs_f64(rtt));
        let gap = SimTime::from_secs_f64(rtt / w);
        let times: Vec<u64> = r.sent().iter().filter(|x| x.conn == 4).map(|x| x.t_us).collect();
        assert_eq!(times, (0..w as u64).map(|i| (ms(3080).0 + i * gap.0) / 1000).collect::<Vec<_>>());

        // MISS: group loss events at 1.0, 1.5, 2.0, 3.06 s give τ = 0.5, 0.5, then
        // 0.875·0.5 + 0.125·1.06 = 0.57; the oldest's at 1.0, 2.0, 3.06 s give γ = 1.0,
        // then 0.875·1.0 + 0.125·1.06 = 1.0075. Eq. 5 at t_c = 3.08 s (t_l = 3.06 s):
        // γ(τ − 0.02)/(τ R).
        let (mut r, _) = scripted_group("miss");
        let g = group(&r);
        let (tau, gamma) = (g.losses.mean_s.unwrap(), g.live[0].losses.mean_s.unwrap());
        assert!((tau - 0.57).abs() < 1e-9 && (gamma - 1.0075).abs() < 1e-9, "τ {tau} γ {gamma}");
        let rtt = g.live[0].srtt_s;
        let cw = (1.0075 * (0.57 - 0.02) / (0.57 * rtt)).floor();
        assert!(cw > 2.0, "Eq. 5 gives {cw}");
        let (_, _, _, s_n) = eq2_from_tcp_state(&r, None);
        assert_eq!((r.cwnd(4), r.ssthresh(4)), (cw, (s_n.floor() as i32).max(cw as i32)));
        assert_eq!(decision(&r, 4).pace_over_s, Some(rtt));
        r.run_to(ms(3080) + SimTime::from_secs_f64(rtt));
        let gap = SimTime::from_secs_f64(rtt / cw);
        let times: Vec<u64> = r.sent().iter().filter(|x| x.conn == 4).map(|x| x.t_us).collect();
        assert_eq!(times, (0..cw as u64).map(|i| (ms(3080).0 + i * gap.0) / 1000).collect::<Vec<_>>());
    }

    /// A member whose retransmission timer fired counts as what its TCP state is at
    /// once (spec A.8 reads `x.cwnd` at the newcomer's start; in ns-2 the agent's
    /// `cwnd_` is 1 right after `timeout`): a slow starter at cwnd 1, not its
    /// pre-timeout window until its next ack. Connections 0 and 1 are acked in rounds
    /// every 100 ms up to 0.9 s; then only connection 1 is acked (every 100 ms), until
    /// connection 0's timer fires; connection 2 starts 1 ms later, before any ack of 0.
    #[test]
    fn a_timed_out_member_counts_with_its_restart_window_at_once() {
        for scheme in ["liss", "iss", "js", "miss"] {
            let mut r = Rig::new(&reno(), policy(&format!(r#"{{"scheme": "{scheme}"}}"#)), 3, false);
            r.infinite(ms(0), 0);
            r.infinite(ms(10), 1);
            for i in 1..=9u64 {
                round(&mut r, 0, ms(100 * i));
                round(&mut r, 1, ms(100 * i + 10));
            }
            let before = r.cwnd(0);
            assert!(before > 10.0 && r.cwnd(1) > 10.0, "both steady: {before} {}", r.cwnd(1));
            let mut t = ms(900);
            while r.conn(0).ctr.timeouts == 0 {
                t = t + ms(10);
                if t.0 % ms(100).0 == ms(10).0 {
                    round(&mut r, 1, t);
                } else {
                    r.run_to(t);
                }
                assert!(t < ms(5000), "no timeout of connection 0");
            }
            let acked0 = r.conn(0).highest_ack;
            r.infinite(t + ms(1), 2);
            assert_eq!(r.conn(0).highest_ack, acked0, "no ack of 0 since its timeout");
            assert_eq!((r.cwnd(0), r.block(0).tcb.dupwnd), (1.0, 0), "the timeout's window");
            let m0 = group(&r).live[0];
            assert_eq!((m0.id, m0.cwnd, m0.in_recovery, m0.steady()), (0, 1.0, false, false));
            // Eq. 2 from the TCP state: L = 1 (connection 1, the oldest steady one), S = 1.
            let c1 = r.cwnd(1);
            assert!(c1 >= r.ssthresh(1) as f64);
            let e = decision(&r, 2).eq2.expect("connection 1 is steady");
            assert_eq!((e.l, e.s, e.oldest), (1, 1.0, 1), "{scheme}");
            if scheme != "iss" {
                assert_eq!(e.w_o, c1);
                let s_n = (1.0 + c1) / (1.0 + 1.0 / c1 + 1.0);
                assert!((e.s_n - s_n).abs() < 1e-12, "{scheme}: {} vs {s_n}", e.s_n);
                // Before the fix the stale window (L = 2, w_o = connection 0's) gave c0·2/3.
                assert!(s_n < before * 2.0 / 3.0);
            }
        }
    }

    #[test]
    fn groups_by_prefix() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "liss"}"#), 3, false);
        r.shared.paths = PathRegistry::new(24).unwrap();
        r.senders.conns[1].dst_addr = 0x0A00_0007; // the same /24 as 10.0.0.1
        r.senders.conns[2].dst_addr = 0x0A00_0101; // another stub
        grow(&mut r, 600);
        r.infinite(ms(650), 1);
        r.infinite(ms(650), 2);
        assert_eq!(r.ssthresh(1), (r.cwnd(0) / 2.0).floor() as i32);
        assert_eq!(r.ssthresh(2), 10);
        assert_eq!(r.shared.paths.entries().len(), 2);
    }

    #[test]
    fn cached_takes_a_live_connection_then_the_host_cache() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "cached"}"#), 4, false);
        r.shared.paths = PathRegistry::new(24).unwrap();
        r.senders.conns[3].dst_addr = 0x0A00_0002; // same group, another host
        grow(&mut r, 700);
        let h = r.conn(0).highest_ack;
        for _ in 0..3 {
            r.ack(ms(750), 0, h);
        }
        let s0 = r.ssthresh(0);
        assert!(s0 != 10 && s0 >= 2, "cut ssthresh {s0}");
        r.infinite(ms(760), 1);
        assert_eq!((r.ssthresh(1), r.cwnd(1)), (s0, 1.0));
        r.close(ms(770), 0);
        r.close(ms(780), 1);
        assert!(group(&r).live.is_empty());
        r.infinite(ms(790), 2);
        assert_eq!(r.ssthresh(2), s0, "the host's cache");
        r.close(ms(795), 2);
        r.infinite(ms(800), 3);
        assert_eq!(r.ssthresh(3), 10, "nothing cached for this host");
    }

    #[test]
    fn averaged_uses_the_last_update_of_periodic_samples() {
        let p = r#"{"scheme": "averaged", "avg_sample_s": 1, "avg_window_s": 1, "avg_update_s": 1}"#;
        let mut r = Rig::new(&reno(), policy(p), 3, false);
        r.infinite(ms(0), 0);
        r.infinite(ms(50), 1);
        assert_eq!(r.ssthresh(1), 10, "before the first update");
        let mut at_1s = 0.0;
        for i in 1..=20 {
            round(&mut r, 0, ms(100 * i));
            if i == 9 {
                at_1s = r.cwnd(0) + r.cwnd(1); // the sample at 1 s sees the 0.9 s windows
            }
        }
        r.infinite(ms(2050), 2);
        // At 2.05 s the value recomputed at 2 s: the samples of [1, 2), i.e. at 1 s.
        assert_eq!(r.ssthresh(2), (at_1s / 2.0).floor() as i32);
    }

    #[test]
    fn acked_marks_count_from_the_connections_start() {
        let mut r = Rig::new(&reno(), policy(r#"{"scheme": "liss"}"#), 1, false);
        r.infinite(ms(500), 0);
        let mut acked_at = vec![];
        for i in 6..=40u64 {
            round(&mut r, 0, ms(100 * i));
            acked_at.push((100 * i, r.conn(0).acked_pkts()));
        }
        let m = r.conn(0).acked_by_s();
        let by = |lim: u64| acked_at.iter().filter(|x| x.0 <= lim).map(|x| x.1).max().unwrap();
        assert_eq!(m[0], by(1500));
        assert_eq!(m[1], by(2500));
        assert_eq!(m[2], by(3500));
        // Marks past the last ack hold the total.
        assert_eq!(m[9], r.conn(0).acked_pkts());
    }
}
