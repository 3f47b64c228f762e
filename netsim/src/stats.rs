//! What a run measures: counters for conservation, drops by reason and
//! codepoint, queue samples of watched ports (a histogram for percentiles,
//! a time series for plots), the cw of traced flows over time.

use crate::config::Cc;
use crate::packet::DropReason;
use hdrhistogram::Histogram;

/// A watched port.
pub struct Watch {
    /// The port.
    pub port: u32,
    /// What it is.
    pub label: String,
    /// (time ps, queue bytes, data bytes sent so far).
    pub series: Vec<(u64, u64, u64)>,
}

impl Watch {
    /// A new watch.
    pub fn new(port: u32, label: &str) -> Self {
        Watch {
            port,
            label: label.to_string(),
            series: Vec::new(),
        }
    }

    /// One sample.
    pub fn sample(&mut self, t: u64, q: u64, tx: u64) {
        self.series.push((t, q, tx));
    }

    /// The samples taken at or after `from_ps`, as a histogram.
    pub fn hist_from(&self, from_ps: u64) -> Histogram<u64> {
        self.hist_between(from_ps, u64::MAX)
    }

    /// The samples taken in `[from_ps, to_ps)`, as a histogram.
    pub fn hist_between(&self, from_ps: u64, to_ps: u64) -> Histogram<u64> {
        let mut h = Histogram::<u64>::new(3).expect("3 significant digits is legal");
        for &(t, q, _) in &self.series {
            if t >= from_ps && t < to_ps {
                h.record(q).expect("auto-resizing histogram");
            }
        }
        h
    }

    /// Data bytes sent between two times (from the samples).
    pub fn sent_between(&self, from_ps: u64, to_ps: u64) -> (u64, u64) {
        let a = self.series.iter().find(|s| s.0 >= from_ps);
        let b = self.series.iter().rev().find(|s| s.0 <= to_ps);
        match (a, b) {
            (Some(a), Some(b)) if b.0 > a.0 => (b.2 - a.2, b.0 - a.0),
            _ => (0, 0),
        }
    }
}

/// Counters and series of a run.
pub struct Stats {
    /// The algorithm.
    pub cc: Cc,
    /// Data packets sent by hosts (retransmissions included).
    pub data_sent: u64,
    /// Of those, sent Not-ECT (LDCP's fast start).
    pub not_ect_sent: u64,
    /// Data packets that reached their receiver.
    pub data_delivered: u64,
    /// Of those, accepted in order.
    pub goodput_pkts: u64,
    /// Marked CE by a switch.
    pub marked: u64,
    /// Dropped by WRED (Eq. 3), Not-ECT.
    pub drop_wred: u64,
    /// Dropped by overflow, ECT (or CE).
    pub drop_overflow_ect: u64,
    /// Dropped by overflow, Not-ECT.
    pub drop_overflow_not_ect: u64,
    /// Discarded at the receiver (go-back-N: out of order or duplicate).
    pub drop_receiver: u64,
    /// Dropped at a tunnel's egress PE (RFC 6040).
    pub drop_tunnel_egress: u64,
    /// ACKs and NAKs sent.
    pub acks_sent: u64,
    /// DCQCN CNPs sent for discarded CE packets.
    pub cnps_sent: u64,
    /// Flows completed.
    pub flows_done: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Pacing grants.
    pub grants: u64,
    /// Window-engine updates applied.
    pub engine_updates: u64,
    /// Flow starts that waited for a free NIC table entry.
    pub slot_waits: u64,
    /// Packet transmissions on links (every hop, every kind): Fujimoto's PTS count.
    pub link_tx: u64,
    /// Watched ports.
    pub watches: Vec<Watch>,
    /// Flows whose cw is traced (the first `traced` flow indices).
    pub traced: u32,
    /// cw traces: (time ps, cw UQ12.20) per traced flow.
    pub cw: Vec<Vec<(u64, u32)>>,
}

impl Stats {
    /// Empty.
    pub fn new(cc: Cc) -> Self {
        Stats {
            cc,
            data_sent: 0,
            not_ect_sent: 0,
            data_delivered: 0,
            goodput_pkts: 0,
            marked: 0,
            drop_wred: 0,
            drop_overflow_ect: 0,
            drop_overflow_not_ect: 0,
            drop_receiver: 0,
            drop_tunnel_egress: 0,
            acks_sent: 0,
            cnps_sent: 0,
            flows_done: 0,
            timeouts: 0,
            grants: 0,
            engine_updates: 0,
            link_tx: 0,
            slot_waits: 0,
            watches: Vec::new(),
            traced: 0,
            cw: Vec::new(),
        }
    }

    /// Counts a drop.
    pub fn drop(&mut self, ecn: u8, why: DropReason) {
        let not_ect = ecn == ldcp_sim::wred_ecn::ecn::NOT_ECT;
        match why {
            DropReason::Wred => self.drop_wred += 1,
            DropReason::Overflow if not_ect => self.drop_overflow_not_ect += 1,
            DropReason::Overflow => self.drop_overflow_ect += 1,
            DropReason::Receiver => self.drop_receiver += 1,
            DropReason::TunnelEgress => self.drop_tunnel_egress += 1,
        }
    }

    /// Dropped inside the network (not at receivers).
    pub fn dropped_in_network(&self) -> u64 {
        self.drop_wred
            + self.drop_overflow_ect
            + self.drop_overflow_not_ect
            + self.drop_tunnel_egress
    }

    /// Traces the first `n` flows' cw.
    pub fn trace_flows(&mut self, n: u32) {
        self.traced = n;
        self.cw = vec![Vec::new(); n as usize];
    }

    /// Records a window of flow `f` (if traced): LDCP's cw from the engine,
    /// DCTCP's cwnd after each ACK, both as UQ12.20 packets.
    #[inline]
    pub fn cw_trace(&mut self, f: u32, t: u64, cw: u32) {
        if f < self.traced {
            self.cw[f as usize].push((t, cw));
        }
    }
}
