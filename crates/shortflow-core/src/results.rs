//! What a run produces: columnar tables, ready to become Parquet/polars frames in the
//! front end. Times are seconds (f64) here; the engine itself keeps integer ns.

use serde::Serialize;

/// One finished (or unfinished at stop time) application-level transfer.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TransferTable {
    pub flow: Vec<String>,
    pub round: Vec<u32>,
    pub bytes: Vec<u64>,
    pub start_s: Vec<f64>,
    /// NaN when the transfer had not finished when the run stopped.
    pub end_s: Vec<f64>,
    pub completion_s: Vec<f64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    /// Initial window chosen by the start-up policy for this transfer (packets).
    pub initial_cwnd: Vec<f64>,
    /// When the receiver had the transfer's last segment in order (s; NaN if never):
    /// `delivered_s - start_s` is the transfer's time from the request to the last byte.
    pub delivered_s: Vec<f64>,
}

/// Per-connection counters at the end of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowTable {
    pub flow: Vec<String>,
    pub transport: Vec<String>,
    pub data_pkts_sent: Vec<u64>,
    pub bytes_acked: Vec<u64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub fast_retransmits: Vec<u64>,
    pub final_cwnd: Vec<f64>,
    pub final_ssthresh: Vec<f64>,
    pub pkts_received: Vec<u64>,
    /// When the application first handed the connection data (s); NaN if never, or UDP.
    pub start_s: Vec<f64>,
    /// Payload packets cumulatively acked within n = 1..=10 s of `start_s` (P3's
    /// initial n-second throughput; marks past the end of the run or the connection's
    /// close hold what was acked by then). Empty for UDP.
    pub acked_by_s: Vec<Vec<u64>>,
}

/// Per-simplex-link counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkTable {
    pub link: Vec<String>,
    pub arrivals: Vec<u64>,
    pub departures: Vec<u64>,
    pub drops: Vec<u64>,
    pub bytes_departed: Vec<u64>,
}

/// Every ack a TCP sender received (trace.acks).
#[derive(Clone, Debug, Default, Serialize)]
pub struct AckTrace {
    pub flow: Vec<u32>,
    pub time_ns: Vec<u64>,
    pub ackno: Vec<i64>,
}

/// Per-packet link events (trace.packets). `event` is ns-2's letter: + - d r.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PacketTrace {
    pub time_ns: Vec<u64>,
    pub event: Vec<u8>,
    pub link: Vec<u32>,
    pub flow: Vec<u32>,
    pub kind: Vec<u8>,
    pub seqno: Vec<i64>,
    pub size: Vec<u32>,
    pub uid: Vec<u64>,
    pub low_prio: Vec<bool>,
}

/// cwnd/ssthresh/srtt samples (trace.cwnd), one per ack.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CwndTrace {
    pub flow: Vec<u32>,
    pub time_ns: Vec<u64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt_s: Vec<f64>,
}

/// Start-up decisions made by policies that consult shared state (TCP/SPAND).
#[derive(Clone, Debug, Default, Serialize)]
pub struct StartupTrace {
    pub flow: Vec<String>,
    pub time_s: Vec<f64>,
    pub wc_estimate: Vec<f64>,
    pub rtt_estimate_s: Vec<f64>,
    pub n_samples: Vec<u32>,
    pub cwnd: Vec<f64>,
    pub fallback_slow_start: Vec<bool>,
}

/// What congestion-control rules with internal decisions report (long format: one row
/// per metric of a decision). TCP Vienna: one decision per parameter evaluation, with
/// `sent` (N), `size` (d), `loss_estimate` (p), `srtt_s`, `alpha`, `beta`, `gamma`,
/// `model_b` (B) and `model_b_max` (B_max).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CcTrace {
    pub flow: Vec<String>,
    pub time_s: Vec<f64>,
    /// Index of the decision within its flow (rows of one decision share it).
    pub decision: Vec<u32>,
    pub metric: Vec<String>,
    pub value: Vec<f64>,
}

impl CcTrace {
    /// One decision of `flow` at `time_s`.
    pub fn push(&mut self, flow: &str, time_s: f64, decision: u32, metrics: &[(&'static str, f64)]) {
        for &(m, v) in metrics {
            self.flow.push(flow.to_string());
            self.time_s.push(time_s);
            self.decision.push(decision);
            self.metric.push(m.to_string());
            self.value.push(v);
        }
    }
}

/// Engine counters, for benchmarks and sanity.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunStats {
    pub events: u64,
    pub data_pkts_delivered: u64,
    pub sim_end_s: f64,
    pub wall_s: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct RunResults {
    pub transfers: TransferTable,
    pub flows: FlowTable,
    pub links: LinkTable,
    pub acks: AckTrace,
    pub packets: PacketTrace,
    pub cwnd: CwndTrace,
    pub startup: StartupTrace,
    pub cc: CcTrace,
    pub stats: RunStats,
}
