//! The hardware a simulated NIC and switch port run, behind two small
//! traits so the closed loop can run either the golden models (here) or
//! the Verilated RTL (`ldcp-flow`'s `netsim_rtl`, through the cosim
//! harness) with the same timing:
//! - [`EngineBackend`]: a NIC's window engine. One event per engine clock
//!   (the NIC assigns the cycles); events of one flow within the RTL's merge
//!   window become one Eq. 2 update; each update comes out
//!   [`LATENCY_CYCLES`] after the event that opened it.
//! - [`WredBackend`]: a switch egress port's WRED/ECN block, one step (one
//!   clock of the block) per call: a packet and the bytes the link finished
//!   sending. The block's [`WRED_LATENCY_CYCLES`] are pipeline latency of
//!   the switch, not modelled in time: a decision applies at its packet's
//!   arrival, in both backends.
//!
//! The simulator adds no arithmetic: [`FunctionalEngine`] groups events by
//! the RTL's merge rule and applies each group with `FlowTable` (`set`,
//! `apply`, `pace_interval` of `ldcp_sim::window_engine`);
//! [`FunctionalWred`] calls `WredEcnPort::cycle` once per step (an idle
//! cycle with nothing drained changes nothing in that model: no draw, no
//! occupancy change).

use ldcp_sim::window_engine::{self as we, FlowTable, WindowParams};
use ldcp_sim::wred_ecn::{Decision, WredEcnPort, WredParams};
use std::collections::VecDeque;

pub use ldcp_sim::window_engine::{LATENCY_CYCLES, WINDOW};
/// Cycles from a packet on the WRED block's inputs to its decision.
pub const WRED_LATENCY_CYCLES: u64 = ldcp_sim::wred_ecn::LATENCY_CYCLES as u64;

/// An event for the window engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// An ACK of `n` (1..=15) packets, ECN-Echo or not.
    Ack {
        /// Flow (the NIC's table index).
        flow: u32,
        /// ECN-Echo.
        ece: bool,
        /// Packets acknowledged.
        n: u32,
    },
    /// The fast-start marker's hand-off: cw := `cw` (UQ12.20, clamped).
    Set {
        /// Flow.
        flow: u32,
        /// The window, UQ12.20.
        cw: u32,
    },
}

impl EngineEvent {
    /// The event's flow.
    pub fn flow(&self) -> u32 {
        match *self {
            EngineEvent::Ack { flow, .. } | EngineEvent::Set { flow, .. } => flow,
        }
    }
}

/// One update out of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EngineUpdate {
    /// The engine cycle at which it is on the outputs.
    pub cycle: u64,
    /// Flow.
    pub flow: u32,
    /// The new cw, UQ12.20.
    pub cw: u32,
    /// RTT / cw in cycles when cw < 1, else 0.
    pub interval: u32,
    /// Unmarked packets applied.
    pub n_u: u32,
    /// Marked packets applied.
    pub n_m: u32,
}

/// What merging did: how often, and what it changed against applying the
/// same ACKs one by one.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct MergeStats {
    /// Events taken (ACKs and SETs).
    pub events: u64,
    /// Updates out.
    pub updates: u64,
    /// Updates that merged two or more ACKs.
    pub merged_updates: u64,
    /// ACKs that merged into an earlier event's update.
    pub merged_events: u64,
    /// Merged updates carrying both unmarked and marked packets.
    pub mixed_updates: u64,
    /// Merged updates whose cw differs from the one-by-one result.
    pub differing_updates: u64,
    /// Sum of |merged - one by one| over merged updates, packets.
    pub drift_sum_pkts: f64,
    /// Largest |merged - one by one|, packets.
    pub drift_max_pkts: f64,
}

impl MergeStats {
    /// Adds another engine's figures.
    pub fn add(&mut self, o: &MergeStats) {
        self.events += o.events;
        self.updates += o.updates;
        self.merged_updates += o.merged_updates;
        self.merged_events += o.merged_events;
        self.mixed_updates += o.mixed_updates;
        self.differing_updates += o.differing_updates;
        self.drift_sum_pkts += o.drift_sum_pkts;
        self.drift_max_pkts = self.drift_max_pkts.max(o.drift_max_pkts);
    }
}

/// A NIC's window engine.
pub trait EngineBackend {
    /// Presents `ev` at engine cycle `cycle` (strictly increasing over calls).
    fn push(&mut self, cycle: u64, ev: EngineEvent);
    /// Appends to `out`, in output order, every update on the outputs at a
    /// cycle <= `cycle` not returned before.
    fn advance(&mut self, cycle: u64, out: &mut Vec<EngineUpdate>);
    /// The merge figures (what the golden model counts; the RTL backend
    /// counts merges from its `out_n_*` ports).
    fn merge_stats(&self) -> MergeStats;
    /// Events taken whose update has not come out yet.
    fn in_flight(&self) -> u64;
}

#[derive(Clone, Debug)]
struct Slot {
    open: u64,
    flow: u32,
    set: Option<u32>,
    n_u: u32,
    n_m: u32,
    acks: u32,
    /// The slot's ACKs in arrival order (ece, n), for the one-by-one shadow.
    order: Vec<(bool, u32)>,
}

/// The window engine as the golden model: the RTL's merge rule, then
/// `FlowTable`. An event at cycle `c` of a flow whose last update opened
/// at `c0` with `1 <= c - c0 <= WINDOW - 1` merges into it (a SET replaces
/// what the slot held before it); otherwise it opens a slot. A slot comes
/// out at `c0 + LATENCY_CYCLES`, applied set first, then unmarked, then
/// marked (`FlowTable::set` and `FlowTable::apply`).
pub struct FunctionalEngine {
    table: FlowTable,
    slots: VecDeque<Slot>,
    /// The open cycle of each flow's newest slot (u64::MAX: none).
    newest: Vec<u64>,
    stats: MergeStats,
}

impl FunctionalEngine {
    /// An engine of `flows` flows, each at cw = 1 (the RTL's power-up).
    pub fn new(flows: usize, params: WindowParams) -> Result<Self, we::ParamError> {
        Ok(FunctionalEngine {
            table: FlowTable::new(flows, params, we::CW_ONE)?,
            slots: VecDeque::new(),
            newest: vec![u64::MAX; flows],
            stats: MergeStats::default(),
        })
    }
}

impl EngineBackend for FunctionalEngine {
    fn push(&mut self, cycle: u64, ev: EngineEvent) {
        self.stats.events += 1;
        let f = ev.flow() as usize;
        let c0 = self.newest[f];
        let merge = c0 != u64::MAX && cycle > c0 && cycle - c0 < WINDOW as u64;
        if merge {
            // the newest slot of the flow is the last one with that open cycle
            let s = self
                .slots
                .iter_mut()
                .rev()
                .find(|s| s.flow == ev.flow() && s.open == c0)
                .expect("a flow's newest slot is queued until it comes out");
            match ev {
                EngineEvent::Set { cw, .. } => {
                    s.set = Some(cw);
                    s.n_u = 0;
                    s.n_m = 0;
                    s.acks = 0;
                    s.order.clear();
                }
                EngineEvent::Ack { ece, n, .. } => {
                    if ece {
                        s.n_m += n;
                    } else {
                        s.n_u += n;
                    }
                    s.acks += 1;
                    s.order.push((ece, n));
                    self.stats.merged_events += 1;
                }
            }
        } else {
            self.newest[f] = cycle;
            let mut s = Slot {
                open: cycle,
                flow: ev.flow(),
                set: None,
                n_u: 0,
                n_m: 0,
                acks: 0,
                order: Vec::new(),
            };
            match ev {
                EngineEvent::Set { cw, .. } => s.set = Some(cw),
                EngineEvent::Ack { ece, n, .. } => {
                    if ece {
                        s.n_m = n
                    } else {
                        s.n_u = n
                    }
                    s.acks = 1;
                    s.order.push((ece, n));
                }
            }
            self.slots.push_back(s);
        }
    }

    fn advance(&mut self, cycle: u64, out: &mut Vec<EngineUpdate>) {
        while let Some(s) = self.slots.front() {
            let at = s.open + LATENCY_CYCLES as u64;
            if at > cycle {
                break;
            }
            let s = self.slots.pop_front().expect("front exists");
            let f = s.flow as usize;
            if let Some(v) = s.set {
                self.table.set(f, v);
            }
            let before = self.table.cw(f).expect("flow in the table");
            let cw = self
                .table
                .apply(f, s.n_u, s.n_m)
                .expect("flow in the table");
            self.stats.updates += 1;
            if s.acks > 1 {
                self.stats.merged_updates += 1;
                self.stats.mixed_updates += (s.n_u > 0 && s.n_m > 0) as u64;
                // the same ACKs one by one, from the same starting cw
                let mut shadow = FlowTable::new(1, *self.table.params(), before)
                    .expect("the engine's own parameters");
                for &(ece, n) in &s.order {
                    shadow.ack(0, ece, n);
                }
                let one = shadow.cw(0).expect("one flow");
                let d = (cw as f64 - one as f64).abs() / we::CW_ONE as f64;
                self.stats.differing_updates += (d > 0.0) as u64;
                self.stats.drift_sum_pkts += d;
                self.stats.drift_max_pkts = self.stats.drift_max_pkts.max(d);
            }
            if self.newest[f] == s.open {
                self.newest[f] = u64::MAX;
            }
            out.push(EngineUpdate {
                cycle: at,
                flow: s.flow,
                cw,
                interval: we::pace_interval(cw, self.table.params().rtt_ticks),
                n_u: s.n_u,
                n_m: s.n_m,
            });
        }
    }

    fn merge_stats(&self) -> MergeStats {
        self.stats
    }

    fn in_flight(&self) -> u64 {
        self.slots.len() as u64
    }
}

/// The window engine without its merge window, for comparison: every
/// event is its own update (`FlowTable::set` or `FlowTable::ack`), out
/// [`LATENCY_CYCLES`] after it, as a one-event-per-update engine would be.
/// Not the hardware: `--engine per-ack` runs it to show what merging
/// changes in a closed loop.
pub struct PerAckEngine {
    table: FlowTable,
    pending: VecDeque<(u64, EngineEvent)>,
    stats: MergeStats,
}

impl PerAckEngine {
    /// An engine of `flows` flows, each at cw = 1.
    pub fn new(flows: usize, params: WindowParams) -> Result<Self, we::ParamError> {
        Ok(PerAckEngine {
            table: FlowTable::new(flows, params, we::CW_ONE)?,
            pending: VecDeque::new(),
            stats: MergeStats::default(),
        })
    }
}

impl EngineBackend for PerAckEngine {
    fn push(&mut self, cycle: u64, ev: EngineEvent) {
        self.stats.events += 1;
        self.pending.push_back((cycle, ev));
    }

    fn advance(&mut self, cycle: u64, out: &mut Vec<EngineUpdate>) {
        while let Some(&(c, ev)) = self.pending.front() {
            let at = c + LATENCY_CYCLES as u64;
            if at > cycle {
                break;
            }
            self.pending.pop_front();
            let (flow, n_u, n_m) = match ev {
                EngineEvent::Set { flow, cw } => {
                    self.table.set(flow as usize, cw);
                    (flow, 0, 0)
                }
                EngineEvent::Ack { flow, ece, n } => {
                    self.table.ack(flow as usize, ece, n);
                    (flow, if ece { 0 } else { n }, if ece { n } else { 0 })
                }
            };
            let cw = self.table.cw(flow as usize).expect("flow in the table");
            self.stats.updates += 1;
            out.push(EngineUpdate {
                cycle: at,
                flow,
                cw,
                interval: we::pace_interval(cw, self.table.params().rtt_ticks),
                n_u,
                n_m,
            });
        }
    }

    fn merge_stats(&self) -> MergeStats {
        self.stats
    }

    fn in_flight(&self) -> u64 {
        self.pending.len() as u64
    }
}

/// The golden models with the per-ACK engine ([`PerAckEngine`]).
pub struct PerAckModels;

impl Hardware for PerAckModels {
    fn engine(
        &mut self,
        flows: usize,
        params: WindowParams,
    ) -> Result<Box<dyn EngineBackend>, String> {
        Ok(Box::new(
            PerAckEngine::new(flows, params).map_err(|e| e.to_string())?,
        ))
    }
    fn wred(&mut self, params: WredParams) -> Result<Box<dyn WredBackend>, String> {
        Models.wred(params)
    }
    fn name(&self) -> &'static str {
        "per-ack"
    }
}

/// A switch egress port's WRED/ECN block, one step at a time. A step is
/// one clock of the block: an optional packet and the bytes the link
/// finished sending since the last step (the drain). The simulator presents
/// every arrival as its own step, at its arrival, after a step carrying the
/// drain so far (the block decides on the occupancy before its step's
/// drain). Idle clocks change nothing in the block, so they are not
/// presented; the RTL backend ticks idle clocks after a packet until its
/// decision is out, which changes nothing either.
pub trait WredBackend {
    /// One step; the packet's decision and outgoing codepoint.
    fn step(&mut self, pkt: Option<(u32, u8)>, drain: u32) -> Option<(Decision, u8)>;
    /// Queue occupancy in bytes as the block counts it.
    fn occupancy_bytes(&self) -> u32;
}

/// The WRED/ECN port as the golden model (`WredEcnPort`).
pub struct FunctionalWred {
    port: WredEcnPort,
}

impl FunctionalWred {
    /// A port with an empty queue.
    pub fn new(params: WredParams) -> Result<Self, ldcp_sim::wred_ecn::ParamError> {
        Ok(FunctionalWred {
            port: WredEcnPort::new(params)?,
        })
    }
}

impl WredBackend for FunctionalWred {
    fn step(&mut self, pkt: Option<(u32, u8)>, drain: u32) -> Option<(Decision, u8)> {
        self.port.cycle(pkt, drain)
    }

    fn occupancy_bytes(&self) -> u32 {
        self.port.occupancy_bytes()
    }
}

/// Makes the engines and ports of a run: the golden models, or the RTL.
pub trait Hardware {
    /// A NIC's window engine with `flows` flows.
    fn engine(
        &mut self,
        flows: usize,
        params: WindowParams,
    ) -> Result<Box<dyn EngineBackend>, String>;
    /// A switch egress port's WRED/ECN block.
    fn wred(&mut self, params: WredParams) -> Result<Box<dyn WredBackend>, String>;
    /// `"model"` or `"rtl"`.
    fn name(&self) -> &'static str;
}

/// The golden models.
pub struct Models;

impl Hardware for Models {
    fn engine(
        &mut self,
        flows: usize,
        params: WindowParams,
    ) -> Result<Box<dyn EngineBackend>, String> {
        Ok(Box::new(
            FunctionalEngine::new(flows, params).map_err(|e| e.to_string())?,
        ))
    }
    fn wred(&mut self, params: WredParams) -> Result<Box<dyn WredBackend>, String> {
        Ok(Box::new(
            FunctionalWred::new(params).map_err(|e| e.to_string())?,
        ))
    }
    fn name(&self) -> &'static str {
        "model"
    }
}
