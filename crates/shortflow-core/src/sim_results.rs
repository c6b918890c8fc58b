//! Collecting a run's result tables ([`RunResults`]). [`Simulation::results`] leaves the
//! simulation as it is; [`Simulation::into_results`] frees each part of it as soon as the
//! tables that read it are built, so that a large run's peak is about the simulation
//! itself rather than the simulation plus every table (issue 21 item 3: at 10^5
//! connections the tables are ~0.6 KB per connection on top of ~1.5 KB). Both fill the
//! same tables the same way, and every column is sized before it is filled.

use std::collections::HashSet;

use super::{FlowAgents, Simulation};
use crate::engine::Scheduler;
use crate::names::Names;
use crate::net::udp_rx::LoopPosition;
use crate::net::Network;
use crate::results::*;
use crate::tcp::control::TcpSenders;
use crate::tcp::sender::ACK_MARKS;
use crate::tcp::sink::TcpSink;
use crate::traffic::{App, Apps};
use crate::world::TransferRec;

impl Simulation {
    /// Collect the result tables; the simulation can go on running afterwards.
    pub fn results(&self) -> RunResults {
        let pos = self.loop_position();
        let mut r = RunResults { stats: self.run_stats(), ..Default::default() };
        r.links = link_table(&self.net, &self.sched, &pos);
        let agents = FlowParts { flows: &self.flows, senders: &self.senders, sinks: &self.sinks, sched: &self.sched };
        flow_rows(&agents, &pos, &self.apps, &self.shared.flow_names, &mut r);
        r.transfers = transfer_table(&self.shared.transfers, &self.shared.flow_names);
        if let Some(a) = &self.shared.ack_trace {
            r.acks = AckTrace::clone(a);
        }
        if let Some(c) = &self.shared.cwnd_trace {
            r.cwnd = CwndTrace::clone(c);
        }
        if let Some(p) = &self.net.trace {
            r.packets = p.clone();
        }
        r.startup = self.shared.startup_trace.clone();
        app_rows(&self.apps, &self.shared.flow_names, &mut r);
        r
    }

    /// The same tables as [`Simulation::results`], consuming the simulation: what no
    /// table reads (queued events, timers, routes, the fold plan, agents, receivers'
    /// pending transfers, addresses, path state) is freed first, the rest of the
    /// network once the link table is built, the event queue and the agents once the
    /// flow table is, the transfer records once theirs is, and the traces are moved,
    /// not copied.
    pub fn into_results(mut self) -> RunResults {
        let pos = self.loop_position();
        let mut r = RunResults { stats: self.run_stats(), ..Default::default() };
        self.sched.free_for_results();
        self.net.free_for_results();
        self.agents = Vec::new();
        self.shared.recv_pending = Vec::new();
        self.shared.node_addr = Vec::new();
        self.shared.paths = Default::default();
        r.links = link_table(&self.net, &self.sched, &pos);
        let Simulation { cfg, sched, mut net, mut shared, senders, sinks, apps, flows, .. } = self;
        r.packets = net.trace.take().unwrap_or_default();
        drop((cfg, net));
        let parts = FlowParts { flows: &flows, senders: &senders, sinks: &sinks, sched: &sched };
        flow_rows(&parts, &pos, &apps, &shared.flow_names, &mut r);
        drop((sched, senders, sinks, flows));
        r.transfers = transfer_table(&shared.transfers, &shared.flow_names);
        shared.transfers = Vec::new();
        r.acks = shared.ack_trace.take().map(|a| *a).unwrap_or_default();
        r.cwnd = shared.cwnd_trace.take().map(|c| *c).unwrap_or_default();
        r.startup = std::mem::take(&mut shared.startup_trace);
        app_rows(&apps, &shared.flow_names, &mut r);
        r
    }

    fn run_stats(&self) -> RunStats {
        RunStats {
            events: self.sched.fired,
            data_pkts_delivered: self.net.delivered_data,
            sim_end_s: self.sched.now().as_secs_f64(),
            wall_s: 0.0,
            tcp_connections: self.tcp_connections() as u64,
            sim_bytes: self.memory().iter().map(|&(_, b)| b as u64).sum(),
        }
    }
}

/// What the flow table reads: each flow's agents and, for UDP, the scheduler's sinks.
struct FlowParts<'a> {
    flows: &'a [FlowAgents],
    senders: &'a TcpSenders,
    sinks: &'a [TcpSink],
    sched: &'a Scheduler,
}

/// One row per simplex link. Folded hops count on their link when folded, and a
/// computed queue's packets when they join it; those the loop has not passed are taken
/// off (their arrival or transmission has not happened).
fn link_table(net: &Network, sched: &Scheduler, pos: &LoopPosition) -> LinkTable {
    let mut pending = net.pending_fold_counts(sched, pos).into_iter().peekable();
    let links = &net.links;
    let mut t = LinkTable::default();
    t.reserve(links.len(), (0..links.len()).map(|l| net.link_label_len(l)).sum());
    for l in 0..links.len() {
        let (n, d, bytes) = pending.next_if(|&(pl, _)| pl as usize == l).map_or((0, 0, 0), |(_, c)| c);
        t.link.push_fmt(format_args!("{}", net.link_label(l)));
        t.arrivals.push(links.arrivals(l) - n);
        t.departures.push(links.departures(l, net.filtered(l)) - d);
        t.drops.push(links.drops(l));
        t.bytes_departed.push(links.bytes_departed(l) - bytes);
    }
    t
}

/// One row per flow (`r.flows`), and each congestion-control block's decisions
/// (`r.cc`): a block shared by several connections reports once, under its first.
fn flow_rows(p: &FlowParts, pos: &LoopPosition, apps: &Apps, names: &Names, r: &mut RunResults) {
    let tcp = p.flows.iter().filter(|f| matches!(f, FlowAgents::Tcp { .. })).count();
    let ft = &mut r.flows;
    // One row per flow, in flow order: the name column is the flow names.
    assert_eq!(p.flows.len(), names.len(), "one name per flow");
    ft.flow = names.clone();
    ft.reserve(p.flows.len(), tcp * ACK_MARKS);
    let mut reported_cbs = HashSet::new();
    for (i, &fa) in p.flows.iter().enumerate() {
        match fa {
            FlowAgents::Tcp { sender: s, sink: k } => {
                let (s, cb) = p.senders.get(s);
                let k = &p.sinks[k as usize];
                ft.transport.push("tcp");
                ft.data_pkts_sent.push(s.ndatapack);
                // Payload acked: packets 0..=highest_ack, less the SYN (seq 0) when modelled.
                ft.bytes_acked.push(s.acked_pkts() * s.params().size as u64);
                ft.push_counters(&s.ctr);
                ft.fast_retransmits.push(s.nfastrexmit.into());
                ft.final_cwnd.push(cb.tcb.cwnd);
                if reported_cbs.insert(s.cb) {
                    cb.cc.report(&names[i], &mut r.cc);
                }
                ft.final_ssthresh.push(cb.tcb.ssthresh as f64);
                ft.pkts_received.push(k.pkts_received);
                ft.false_retx.push(k.dup_segs);
                ft.start_s.push(s.conn_start.get().map_or(f64::NAN, |t| t.as_secs_f64()));
                ft.acked_by_s.push(&s.acked_by_s());
            }
            FlowAgents::Udp { sink: u } => {
                let (u_pkts, u_bytes) = p.sched.udp_sinks.received(u, pos);
                ft.transport.push("udp");
                ft.data_pkts_sent.push(apps.udp_sent(i));
                ft.bytes_acked.push(u_bytes);
                ft.push_counters(&Default::default());
                ft.fast_retransmits.push(0);
                ft.final_cwnd.push(f64::NAN);
                ft.final_ssthresh.push(f64::NAN);
                ft.pkts_received.push(u_pkts);
                ft.false_retx.push(0);
                ft.start_s.push(f64::NAN);
                ft.acked_by_s.push(&[]);
            }
        }
    }
}

/// One row per application-level transfer.
fn transfer_table(transfers: &[TransferRec], names: &Names) -> TransferTable {
    let mut tt = TransferTable::default();
    tt.reserve(transfers.len(), transfers.iter().map(|t| names[t.flow as usize].len()).sum());
    for t in transfers {
        tt.flow.push(&names[t.flow as usize]);
        tt.round.push(t.round);
        tt.bytes.push(t.bytes);
        let start = t.start.as_secs_f64();
        tt.start_s.push(start);
        match t.end.get() {
            Some(e) => {
                tt.end_s.push(e.as_secs_f64());
                tt.completion_s.push(e.as_secs_f64() - start);
            }
            None => {
                tt.end_s.push(f64::NAN);
                tt.completion_s.push(f64::NAN);
            }
        }
        tt.push_counters(&t.counters());
        tt.initial_cwnd.push(t.initial_cwnd);
        tt.delivered_s.push(t.delivered.get().map_or(f64::NAN, |d| d.as_secs_f64()));
    }
    tt
}

/// The page and object rows of Web, SURGE and multiplexed-Web applications.
fn app_rows(apps: &Apps, names: &Names, r: &mut RunResults) {
    for app in &apps.list {
        match app {
            App::Web(w) => {
                let rows = w.rows(names);
                r.pages.extend(&rows.pages);
                r.objects.extend(&rows.objects);
            }
            App::Surge(sg) => sg.rows(names, &mut r.objects),
            App::Mux(m) => m.rows(names, &mut r.objects),
            _ => {}
        }
    }
}
