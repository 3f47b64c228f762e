//! `--engine rtl`: the network simulator's NIC window engines and switch
//! WRED/ECN ports run as their Verilated RTL (the cosim harness's
//! libraries, one instance per NIC and per port), behind the same
//! [`Hardware`] interface as the golden models, with the same timing: an
//! engine event presented at cycle `c` is on the outputs at `c +
//! LATENCY_CYCLES`; a WRED step is one clock, and the idle clocks after a
//! packet until its decision is out change nothing in the block.
//!
//! The engine's idle cycles are ticked only while something is in flight
//! (up to its latency plus two after the last input); beyond that the RTL
//! is quiescent (nothing in its pipelines), so the cycles are skipped, as
//! the golden model skips them.

use crate::FlowError;
use ldcp_netsim::engine::{
    EngineBackend, EngineEvent, EngineUpdate, Hardware, MergeStats, WredBackend, LATENCY_CYCLES,
    WRED_LATENCY_CYCLES,
};
use ldcp_sim::cosim::{Cosim, Instance};
use ldcp_sim::ports::Ports;
use ldcp_sim::window_engine::{WeInputs, WeOutputs, WindowEngineModel, WindowParams};
use ldcp_sim::wred_ecn::{Decision, WredEcnModel, WredInputs, WredOutputs, WredParams};
use std::collections::VecDeque;

/// Cycles ticked after power-up (or reset) before the network's cycle 0,
/// so the configuration registers hold the parameters.
const SETTLE: u64 = 4;

/// The RTL hardware: the window engine (the iCE40 build, 256 flows) and the
/// WRED/ECN port.
pub struct Rtl {
    we: Cosim<WindowEngineModel>,
    wred: Cosim<WredEcnModel>,
    /// Which blocks run as RTL (the others as the golden models).
    pub parts: (bool, bool),
}

impl Rtl {
    /// Verilates both blocks (or reuses the cached libraries).
    pub fn new() -> Result<Self, FlowError> {
        let b = crate::block("window_engine")?;
        let v = b.verilog().map_err(|e| FlowError::Tool(e.to_string()))?;
        let we = Cosim::new(&v, b.name()).map_err(|e| FlowError::Tool(e.to_string()))?;
        let b = crate::block("wred_ecn")?;
        let v = b.verilog().map_err(|e| FlowError::Tool(e.to_string()))?;
        let wred = Cosim::new(&v, b.name()).map_err(|e| FlowError::Tool(e.to_string()))?;
        Ok(Rtl {
            we,
            wred,
            parts: (true, true),
        })
    }
}

impl Hardware for Rtl {
    fn engine(
        &mut self,
        flows: usize,
        params: WindowParams,
    ) -> Result<Box<dyn EngineBackend>, String> {
        if !self.parts.0 {
            return ldcp_netsim::engine::Models.engine(flows, params);
        }
        if flows > 4096 {
            return Err(format!(
                "--engine rtl: the RTL engine holds 4,096 flows per NIC, {flows} asked"
            ));
        }
        params.validate().map_err(|e| e.to_string())?;
        let mut e = RtlEngine {
            inst: self.we.lib().instance(),
            params,
            ibits: vec![0; WeInputs::PORTS.len()],
            obits: vec![0; WeOutputs::PORTS.len()],
            next: 0,
            busy_until: 0,
            out: VecDeque::new(),
            stats: MergeStats::default(),
            last_push: None,
        };
        for _ in 0..SETTLE {
            e.tick_raw(&WeInputs::idle(&params));
        }
        Ok(Box::new(e))
    }

    fn wred(&mut self, params: WredParams) -> Result<Box<dyn WredBackend>, String> {
        if !self.parts.1 {
            return ldcp_netsim::engine::Models.wred(params);
        }
        params.validate().map_err(|e| e.to_string())?;
        let mut w = RtlWred {
            inst: self.wred.lib().instance(),
            params,
            ibits: vec![0; WredInputs::PORTS.len()],
            obits: vec![0; WredOutputs::PORTS.len()],
            occupancy: 0,
        };
        let reset = WredInputs {
            reset: true,
            ..WredInputs::idle(&params)
        };
        // the configuration registers first (a reset loads the seed from
        // the registered seed), then the reset, then the settled config
        for _ in 0..SETTLE {
            w.tick_raw(&WredInputs::idle(&params));
        }
        w.tick_raw(&reset);
        for _ in 0..SETTLE {
            w.tick_raw(&WredInputs::idle(&params));
        }
        Ok(Box::new(w))
    }

    fn name(&self) -> &'static str {
        "rtl"
    }
}

struct RtlEngine {
    inst: Instance,
    params: WindowParams,
    ibits: Vec<u64>,
    obits: Vec<u64>,
    /// The network cycle the next tick is.
    next: u64,
    busy_until: u64,
    out: VecDeque<EngineUpdate>,
    stats: MergeStats,
    last_push: Option<u64>,
}

impl RtlEngine {
    fn tick_raw(&mut self, i: &WeInputs) -> WeOutputs {
        i.to_ports(&mut self.ibits);
        self.inst.step(&self.ibits, &mut self.obits);
        WeOutputs::from_ports(&self.obits)
    }

    /// Ticks network cycle `self.next` with `i`, collecting an update.
    fn tick(&mut self, i: &WeInputs) {
        let o = self.tick_raw(i);
        let c = self.next;
        self.next += 1;
        if o.out_valid {
            self.stats.updates += 1;
            self.out.push_back(EngineUpdate {
                cycle: c + 1,
                flow: o.out_flow,
                cw: o.out_cw,
                interval: o.out_interval_ticks,
                n_u: o.out_n_u_pkts,
                n_m: o.out_n_m_pkts,
            });
        }
    }

    /// Ticks idle cycles up to (not including) `cycle`, skipping quiescent ones.
    fn idle_to(&mut self, cycle: u64) {
        let idle = WeInputs::idle(&self.params);
        while self.next < cycle {
            if self.next > self.busy_until {
                self.next = cycle;
                break;
            }
            self.tick(&idle);
        }
    }
}

impl EngineBackend for RtlEngine {
    fn push(&mut self, cycle: u64, ev: EngineEvent) {
        self.idle_to(cycle);
        let i = match ev {
            EngineEvent::Ack { flow, ece, n } => WeInputs::ack(&self.params, flow, ece, n),
            EngineEvent::Set { flow, cw } => WeInputs::set(&self.params, flow, cw),
        };
        self.stats.events += 1;
        self.last_push = Some(cycle);
        self.busy_until = cycle + LATENCY_CYCLES as u64 + 2;
        self.tick(&i);
    }

    fn advance(&mut self, cycle: u64, out: &mut Vec<EngineUpdate>) {
        self.idle_to(cycle);
        while let Some(u) = self.out.front() {
            if u.cycle > cycle {
                break;
            }
            out.push(self.out.pop_front().expect("front"));
        }
    }

    fn merge_stats(&self) -> MergeStats {
        // the RTL's ports show updates, not the events each merged: once
        // nothing is in flight, the events that made no update of their own
        // are the merged ones
        MergeStats {
            merged_events: if self.in_flight() == 0 {
                self.stats.events - self.stats.updates
            } else {
                0
            },
            ..self.stats
        }
    }

    fn in_flight(&self) -> u64 {
        let pipe = self
            .last_push
            .is_some_and(|c| self.next < c + LATENCY_CYCLES as u64) as u64;
        pipe + self.out.len() as u64
    }
}

struct RtlWred {
    inst: Instance,
    params: WredParams,
    ibits: Vec<u64>,
    obits: Vec<u64>,
    occupancy: u32,
}

impl RtlWred {
    fn tick_raw(&mut self, i: &WredInputs) -> WredOutputs {
        i.to_ports(&mut self.ibits);
        self.inst.step(&self.ibits, &mut self.obits);
        WredOutputs::from_ports(&self.obits)
    }
}

impl WredBackend for RtlWred {
    fn step(&mut self, pkt: Option<(u32, u8)>, drain: u32) -> Option<(Decision, u8)> {
        let mut i = WredInputs::idle(&self.params);
        i.egress_drain_bytes = drain;
        if let Some((len, ecn)) = pkt {
            i.in_valid = true;
            i.in_len_bytes = len;
            i.in_ecn = ecn;
        }
        let o = self.tick_raw(&i);
        self.occupancy = o.stat_occupancy_bytes;
        pkt?;
        // idle clocks until the decision is out (they change nothing)
        let idle = WredInputs::idle(&self.params);
        for _ in 0..WRED_LATENCY_CYCLES + 2 {
            let o = self.tick_raw(&idle);
            self.occupancy = o.stat_occupancy_bytes;
            if o.out_valid {
                return Some((Decision::from_bits(o.out_decision), o.out_ecn));
            }
        }
        panic!(
            "the WRED/ECN RTL gave no decision within {} cycles",
            WRED_LATENCY_CYCLES + 2
        )
    }

    fn occupancy_bytes(&self) -> u32 {
        self.occupancy
    }
}
