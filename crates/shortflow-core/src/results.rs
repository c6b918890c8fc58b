//! What a run produces: columnar tables, ready to become Parquet/polars frames in the
//! front end. Times are seconds (f64) here; the engine itself keeps integer ns.

use serde::Serialize;

use crate::names::Names;

/// One finished (or unfinished at stop time) application-level transfer.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TransferTable {
    pub flow: Names,
    pub round: Vec<u32>,
    pub bytes: Vec<u64>,
    pub start_s: Vec<f64>,
    /// NaN when the transfer had not finished when the run stopped.
    pub end_s: Vec<f64>,
    pub completion_s: Vec<f64>,
    /// The connection's loss-recovery counters between the transfer's start and its
    /// end (`tcp::recovery::LossCounters`, Linux's names; all 0 while unfinished):
    /// `retransmits` (TCPRetransSegs) and `timeouts` (TCPTimeouts), then the others.
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub loss_probes: Vec<u64>,
    pub loss_probe_recoveries: Vec<u64>,
    pub fast_retrans: Vec<u64>,
    pub sack_recoveries: Vec<u64>,
    pub spurious_rtos: Vec<u64>,
    pub loss_undos: Vec<u64>,
    pub dsack_recv: Vec<u64>,
    pub dsack_ofo_recv: Vec<u64>,
    /// Initial window chosen by the start-up policy for this transfer (packets).
    pub initial_cwnd: Vec<f64>,
    /// When the receiver had the transfer's last segment in order (s; NaN if never):
    /// `delivered_s - start_s` is the transfer's time from the request to the last byte.
    pub delivered_s: Vec<f64>,
}

/// Per-connection counters at the end of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowTable {
    pub flow: Names,
    pub transport: Names,
    pub data_pkts_sent: Vec<u64>,
    pub bytes_acked: Vec<u64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub fast_retransmits: Vec<u64>,
    /// Loss-recovery counters with Linux's names (`tcp::recovery::LossCounters`;
    /// `timeouts` above is theirs too, `retransmits` equals `retrans_segs`), 0 for UDP.
    pub retrans_segs: Vec<u64>,
    pub loss_probes: Vec<u64>,
    pub loss_probe_recoveries: Vec<u64>,
    pub fast_retrans: Vec<u64>,
    pub sack_recoveries: Vec<u64>,
    pub spurious_rtos: Vec<u64>,
    pub loss_undos: Vec<u64>,
    pub dsack_recv: Vec<u64>,
    pub dsack_ofo_recv: Vec<u64>,
    pub final_cwnd: Vec<f64>,
    pub final_ssthresh: Vec<f64>,
    pub pkts_received: Vec<u64>,
    /// Data segments the receiver got when it already held them: false (unnecessary)
    /// retransmissions that reached it (`TcpSink::dup_segs`); 0 for UDP.
    pub false_retx: Vec<u64>,
    /// When the application first handed the connection data (s); NaN if never, or UDP.
    pub start_s: Vec<f64>,
    /// Payload packets cumulatively acked within n = 1..=10 s of `start_s` (P3's
    /// initial n-second throughput; marks past the end of the run or the connection's
    /// close hold what was acked by then). Empty for UDP.
    pub acked_by_s: Ragged,
}

/// A column whose rows are lists of integers (`FlowTable::acked_by_s`), stored flat:
/// one allocation for all rows instead of one per row. Written out as a list of lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ragged {
    vals: Vec<u64>,
    /// `ends[i]`: where row `i` ends in `vals`.
    ends: Vec<u32>,
}

impl Ragged {
    pub fn push(&mut self, row: &[u64]) {
        self.vals.extend_from_slice(row);
        self.ends.push(u32::try_from(self.vals.len()).expect("results: more than 2^32 values in a list column"));
    }
    /// Room for `rows` more rows holding `vals` more values in all.
    pub fn reserve(&mut self, rows: usize, vals: usize) {
        self.ends.reserve_exact(rows);
        self.vals.reserve_exact(vals);
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[u64] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.vals[start..self.ends[i] as usize]
    }
}

impl Serialize for Ragged {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.len()).map(|i| self.row(i)))
    }
}

/// Push one row of the loss-recovery columns that `TransferTable` and `FlowTable` share
/// (same names in both): `retransmits` and `timeouts`, then Linux's counters.
macro_rules! push_loss_columns {
    ($t:expr, $c:expr) => {{
        let (t, c) = ($t, $c);
        t.retransmits.push(u64::from(c.retrans_segs));
        t.timeouts.push(u64::from(c.timeouts));
        t.loss_probes.push(u64::from(c.loss_probes));
        t.loss_probe_recoveries.push(u64::from(c.loss_probe_recoveries));
        t.fast_retrans.push(u64::from(c.fast_retrans));
        t.sack_recoveries.push(u64::from(c.sack_recoveries));
        t.spurious_rtos.push(u64::from(c.spurious_rtos));
        t.loss_undos.push(u64::from(c.loss_undos));
        t.dsack_recv.push(u64::from(c.dsack_recv));
        t.dsack_ofo_recv.push(u64::from(c.dsack_ofo_recv));
    }};
}

impl FlowTable {
    /// One row's loss-recovery counters (`retransmits` and `timeouts` included).
    pub fn push_counters(&mut self, c: &crate::tcp::recovery::LossCounters) {
        push_loss_columns!(&mut *self, c);
        self.retrans_segs.push(u64::from(c.retrans_segs));
    }
}

/// Room for `n` more values in each listed column (the result builders size every
/// column before filling it: with 10^5-10^6 rows, doubling growth left up to half of
/// each column's room unused, and its reallocations held two copies at once).
macro_rules! reserve_columns {
    ($t:expr, $n:expr; $($col:ident),+ $(,)?) => {{
        let (t, n) = ($t, $n);
        $(t.$col.reserve_exact(n);)+
    }};
}

impl FlowTable {
    /// Room for `rows` rows (but their names: the builder sets `flow` whole) whose
    /// `acked_by_s` lists hold `list_vals` values in all.
    pub fn reserve(&mut self, rows: usize, list_vals: usize) {
        self.transport.reserve(rows, 3 * rows);
        reserve_columns!(&mut *self, rows; data_pkts_sent, bytes_acked, retransmits, timeouts, fast_retransmits,
            retrans_segs, loss_probes, loss_probe_recoveries, fast_retrans, sack_recoveries, spurious_rtos,
            loss_undos, dsack_recv, dsack_ofo_recv, final_cwnd, final_ssthresh, pkts_received, false_retx, start_s);
        self.acked_by_s.reserve(rows, list_vals);
    }
}

impl TransferTable {
    /// Room for `rows` rows whose flow names take `name_bytes` bytes in all.
    pub fn reserve(&mut self, rows: usize, name_bytes: usize) {
        self.flow.reserve(rows, name_bytes);
        reserve_columns!(&mut *self, rows; round, bytes, start_s, end_s, completion_s, retransmits, timeouts,
            loss_probes, loss_probe_recoveries, fast_retrans, sack_recoveries, spurious_rtos, loss_undos,
            dsack_recv, dsack_ofo_recv, initial_cwnd, delivered_s);
    }

    /// One transfer's loss-recovery counters.
    pub fn push_counters(&mut self, c: &crate::tcp::recovery::LossCounters) {
        push_loss_columns!(self, c);
    }
}

/// Per-simplex-link counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkTable {
    pub link: Names,
    pub arrivals: Vec<u64>,
    pub departures: Vec<u64>,
    pub drops: Vec<u64>,
    pub bytes_departed: Vec<u64>,
}

impl LinkTable {
    /// Room for `rows` rows whose names take `name_bytes` bytes in all.
    pub fn reserve(&mut self, rows: usize, name_bytes: usize) {
        self.link.reserve(rows, name_bytes);
        reserve_columns!(&mut *self, rows; arrivals, departures, drops, bytes_departed);
    }
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

impl PageTable {
    /// Append every row of `o`.
    pub fn extend(&mut self, o: &PageTable) {
        self.pair.extend_from_slice(&o.pair);
        self.page.extend_from_slice(&o.page);
        self.start_s.extend_from_slice(&o.start_s);
        self.end_s.extend_from_slice(&o.end_s);
        self.download_s.extend_from_slice(&o.download_s);
        self.objects.extend_from_slice(&o.objects);
        self.bytes.extend_from_slice(&o.bytes);
        self.conns_opened.extend_from_slice(&o.conns_opened);
    }
}

impl ObjectTable {
    /// Append every row of `o`.
    pub fn extend(&mut self, o: &ObjectTable) {
        self.pair.extend_from_slice(&o.pair);
        self.page.extend_from_slice(&o.page);
        self.object.extend_from_slice(&o.object);
        self.bytes.extend_from_slice(&o.bytes);
        self.conn.extend_from_slice(&o.conn);
        self.request_s.extend_from_slice(&o.request_s);
        self.end_s.extend_from_slice(&o.end_s);
        self.time_s.extend_from_slice(&o.time_s);
    }
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

/// Web workloads (`traffic/web.rs`): one row per page of a client–server pair. A page
/// still under way when the run stopped has `end_s`/`download_s` NaN.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageTable {
    pub pair: Vec<String>,
    /// Index of the page within its pair (0-based).
    pub page: Vec<u32>,
    /// The client's first action (its SYN or request for the HTML).
    pub start_s: Vec<f64>,
    /// The last byte of the last object reached the client.
    pub end_s: Vec<f64>,
    pub download_s: Vec<f64>,
    /// Objects of the page (the HTML and its images).
    pub objects: Vec<u32>,
    pub bytes: Vec<u64>,
    /// Fresh connections the page opened (SYN exchanges).
    pub conns_opened: Vec<u32>,
}

/// Web workloads: one row per object of a page (object 0 is the HTML).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObjectTable {
    pub pair: Vec<String>,
    pub page: Vec<u32>,
    pub object: Vec<u32>,
    pub bytes: Vec<u64>,
    /// The connection (flow name) it travelled on.
    pub conn: Vec<String>,
    /// The client sent its request (or the SYN carrying it).
    pub request_s: Vec<f64>,
    /// Its last byte reached the client (NaN: not yet).
    pub end_s: Vec<f64>,
    pub time_s: Vec<f64>,
}

/// Engine counters, for benchmarks and sanity.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunStats {
    pub events: u64,
    pub data_pkts_delivered: u64,
    pub sim_end_s: f64,
    pub wall_s: f64,
    pub tcp_connections: u64,
    /// Bytes the simulation's structures held when the results were collected
    /// (`Simulation::memory`: every table by capacity; allocator overhead and boxed
    /// policies' contents not counted). The result tables come on top.
    pub sim_bytes: u64,
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
    pub pages: PageTable,
    pub objects: ObjectTable,
    pub stats: RunStats,
}

#[cfg(test)]
mod tests {
    use super::Ragged;

    #[test]
    fn ragged_rows_write_out_as_lists() {
        let mut r = Ragged::default();
        r.push(&[1, 2, 3]);
        r.push(&[]);
        r.push(&[7]);
        assert_eq!(r.len(), 3);
        assert_eq!(r.row(0), &[1, 2, 3]);
        assert_eq!(r.row(1), &[] as &[u64]);
        assert_eq!(serde_json::to_string(&r).unwrap(), "[[1,2,3],[],[7]]");
    }
}
