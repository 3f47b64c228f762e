//! The cycle model of the RTL `WindowEngineSeq` (`ldcp_hdl::
//! window_engine_seq`): the engine for boards the pipelined one does not
//! fit. One event at a time, applied alone: each update is [`update`] of
//! one event (and [`pace_interval`] of its result), so it equals
//! [`FlowTable`] event for event. What the model mirrors of the RTL is the
//! handshake and the timing: the take, the 27 or 7 cycles to the
//! outputs, the reset; the RTL's datapath (a radix-4 shift-and-add multiply, a shared
//! reciprocal ROM) is checked against [`update`] itself by cosimulation.

use super::*;
use crate::ports::FLOW_WIDTH;

/// Cycles from a taken event (cycle t) to its update on the outputs
/// (t + 27) when the update needs the multiply (an increase of cw >= 1, or
/// a new cw below one packet and its pacing interval), and so the
/// engine's longest period: `in_ready` is high again in the cycle the
/// update shows. A design constant of the RTL's schedule (its module doc
/// lists the steps).
pub const SEQ_LATENCY_CYCLES: usize = 27;
/// The same for an update without the multiply (t + 7: the RTL goes from
/// its step 4 to its last step).
pub const SEQ_SHORT_LATENCY_CYCLES: usize = 7;
/// The RTL's last step (step 0 is the cycle after the take): the table
/// write and the outputs' registers load at its edge.
const LAST_STEP: u32 = SEQ_LATENCY_CYCLES as u32 - 2;
/// The edges an update without the multiply spends before its last step's
/// (steps 0..=4, then the last).
const SHORT_LAST: u32 = SEQ_SHORT_LATENCY_CYCLES as u32 - 2;

crate::ports! {
    callback window_engine_seq_ports;
    inputs of window_engine_ports;
    /// The outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct WsOutputs {
        /// The engine takes an offered event this cycle (no update in flight).
        in_ready: bool = 1,
        /// An update completed (one cycle).
        out_valid: bool = 1,
        /// Its flow (the data outputs hold the last update's values).
        out_flow: u32 = FLOW_WIDTH,
        /// The flow's new cw, packets, UQ12.20.
        out_cw: u32 = CW_BITS as u32,
        /// RTT / cw in ticks if cw < 1, else 0.
        out_interval_ticks: u32 = INTERVAL_BITS as u32,
        /// Unmarked packets this update applied.
        out_n_u_pkts: u32 = NSUM_BITS as u32,
        /// Marked packets this update applied.
        out_n_m_pkts: u32 = NSUM_BITS as u32,
    }
}

/// The sequential engine's inputs are the pipelined engine's, port for
/// port (it takes the configuration with each event).
pub type WsInputs = WeInputs;

impl WsInputs {
    /// The parameters as the engine takes them with an event: each port's
    /// bits, clamped to its legal range as the RTL clamps it.
    pub fn clamped_params(&self) -> WindowParams {
        WindowParams {
            alpha_raw: (self.cfg_alpha & 0x1ff).clamp(1, AB_ONE),
            beta_raw: (self.cfg_beta & 0x1ff).clamp(1, AB_ONE),
            gamma_shift: (self.cfg_gamma_shift & 0xf).clamp(GAMMA_SHIFT_MIN, GAMMA_SHIFT_MAX),
            cw_max_raw: self.cfg_cw_max.max(CW_ONE),
            rtt_ticks: self.cfg_rtt_ticks & 0xffff,
        }
    }
}

/// What the sequential engine did, counted by the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WindowEngineSeqStats {
    /// Events taken.
    pub events: u64,
    /// Events offered while the engine was busy (not taken).
    pub refused: u64,
    /// Updates output.
    pub updates: u64,
    /// Of those, updates that needed the increase's multiply.
    pub increases: u64,
    /// Of those, updates without the multiply (the short latency).
    pub short: u64,
    /// Of those, updates that ended below one packet (a pacing interval).
    pub paced: u64,
    /// Events dropped by a reset while in flight.
    pub dropped: u64,
}

impl std::ops::AddAssign for WindowEngineSeqStats {
    /// Sums two runs' figures (every field: a new one must be added here).
    fn add_assign(&mut self, o: WindowEngineSeqStats) {
        let WindowEngineSeqStats {
            events,
            refused,
            updates,
            increases,
            short,
            paced,
            dropped,
        } = o;
        self.events += events;
        self.refused += refused;
        self.updates += updates;
        self.increases += increases;
        self.short += short;
        self.paced += paced;
        self.dropped += dropped;
    }
}

/// The update an event in flight will output.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    flow: u32,
    cw: u32,
    interval: u32,
    nu: u32,
    nm: u32,
    increase: bool,
    /// The model's step count at which the update is output.
    last: u32,
}

/// See the module doc.
#[derive(Clone, Debug)]
pub struct WindowEngineSeqModel {
    flow_mask: u32,
    mem: Vec<u32>,
    busy: bool,
    /// The RTL's step counter while busy (0: the cycle after the take).
    st: u32,
    pending: Pending,
    out: WsOutputs,
    stats: WindowEngineSeqStats,
}

impl WindowEngineSeqModel {
    /// A table of 2^flow_bits flows at power-up: every cw is 1.0.
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} must be in [1, 16]"
        );
        WindowEngineSeqModel {
            flow_mask: (1 << flow_bits) - 1,
            mem: vec![CW_ONE; 1 << flow_bits],
            busy: false,
            st: 0,
            pending: Pending::default(),
            out: WsOutputs {
                in_ready: true,
                ..WsOutputs::default()
            },
            stats: WindowEngineSeqStats::default(),
        }
    }

    /// What the engine did so far.
    pub fn stats(&self) -> WindowEngineSeqStats {
        self.stats
    }

    /// A flow's cw in the table (an update in flight not included).
    pub fn table(&self, flow: usize) -> Option<u32> {
        self.mem.get(flow).copied()
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> WsOutputs {
        self.out
    }

    /// One rising edge.
    pub fn tick(&mut self, inp: &WsInputs) {
        let mut out = WsOutputs {
            out_valid: false,
            ..self.out
        };
        if inp.in_valid && self.busy {
            self.stats.refused += 1;
        }
        if self.busy && inp.reset {
            self.stats.dropped += 1;
        }
        if self.busy && self.st == self.pending.last && !inp.reset {
            let p = self.pending;
            self.mem[p.flow as usize] = p.cw;
            out = WsOutputs {
                in_ready: true,
                out_valid: true,
                out_flow: p.flow,
                out_cw: p.cw,
                out_interval_ticks: p.interval,
                out_n_u_pkts: p.nu,
                out_n_m_pkts: p.nm,
            };
            self.stats.updates += 1;
            self.stats.increases += p.increase as u64;
            self.stats.short += (p.last == SHORT_LAST) as u64;
            self.stats.paced += (p.cw < CW_ONE) as u64;
            self.busy = false;
        } else if self.busy {
            self.st += 1;
        } else if inp.in_valid && !inp.reset {
            // the take: the table as read at this edge (nothing writes it
            // while the event is in flight)
            let p = inp.clamped_params();
            let flow = inp.in_flow & self.flow_mask;
            let cw = self.mem[flow as usize];
            let n = inp.in_n_pkts & N_MAX;
            let (nu, nm) = match (inp.in_set, inp.in_ece) {
                (true, _) => (0, 0),
                (false, false) => (n, 0),
                (false, true) => (0, n),
            };
            let c = if inp.in_set {
                inp.in_cw.clamp(p.gamma_raw(), p.cw_max_raw)
            } else {
                update(cw, nu, nm, &p)
            };
            let increase = nu > 0 && cw >= CW_ONE;
            // the interval's multiply: below one packet, within its range
            let paced = (INTERVAL_MIN_CW..CW_ONE).contains(&c);
            self.pending = Pending {
                flow,
                cw: c,
                interval: pace_interval(c, p.rtt_ticks),
                nu,
                nm,
                increase,
                last: if increase || paced {
                    LAST_STEP
                } else {
                    SHORT_LAST
                },
            };
            self.stats.events += 1;
            self.busy = true;
            self.st = 0;
        }
        if inp.reset {
            self.busy = false;
        }
        out.in_ready = !self.busy;
        self.out = out;
    }

    /// The update in flight, if any.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        if self.busy {
            vec![("update in progress", 1)]
        } else {
            vec![]
        }
    }
}

impl crate::cosim::CosimModel for WindowEngineSeqModel {
    type Input = WsInputs;
    type Output = WsOutputs;

    fn tick(&mut self, i: &WsInputs) {
        WindowEngineSeqModel::tick(self, i)
    }

    fn outputs(&self) -> WsOutputs {
        self.out
    }

    /// [`SEQ_LATENCY_CYCLES`] + 1 idle cycles, the last parameters kept:
    /// the update in flight is out.
    fn drain(&self, last: Option<&WsInputs>) -> Vec<WsInputs> {
        let keep = last.copied().unwrap_or_default();
        let idle = WsInputs {
            reset: false,
            in_valid: false,
            ..keep
        };
        vec![idle; SEQ_LATENCY_CYCLES + 1]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        WindowEngineSeqModel::in_flight(self)
    }
}
