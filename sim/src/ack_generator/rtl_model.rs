//! The cycle-accurate mirror of `AckGenerator`: the table (applied in order
//! at each op's update edge, which the RTL's forwarding and bypasses make
//! exact), the op pipeline, the ACK queue, the scanner's copy of the
//! pending/stamp fields and its stages, `in_ready` (from registers), and the
//! reset sweep.

use super::*;

crate::ports! {
    callback ack_generator_ports;
    /// One cycle of inputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct AgInputs {
        /// Synchronous reset: clears outputs and T, then sweeps the table.
        reset: bool = 1,
        /// An event this cycle (taken when `in_ready`).
        in_valid: bool = 1,
        /// 0: a data packet; 1: open the flow, `in_psn` expected next (held packets discarded).
        in_open: bool = 1,
        /// Flow id (ids at or above the table size are refused, error 1).
        in_flow: u32 = FLOW_ID_BITS as u32,
        /// The packet's PSN, UQ24.
        in_psn: u32 = PSN_BITS,
        /// The packet arrived with CE.
        in_ce: bool = 1,
        /// The packet ends its message.
        in_last: bool = 1,
        /// Delayed-ACK count m, packets, 1..=15 (0 acts as 1; 1 is per-packet).
        cfg_m_pkts: u32 = N_BITS as u32,
        /// Timeout of a held ACK, cycles, UQ16.
        cfg_timeout_cycles: u32 = TIMEOUT_BITS as u32,
    }
    /// The outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct AgOutputs {
        /// Events are taken this cycle (combinational from registers).
        in_ready: bool = 1,
        /// An ACK this cycle.
        out_valid: bool = 1,
        /// Its flow.
        out_flow: u32 = FLOW_ID_BITS as u32,
        /// Cumulative: the next expected PSN, UQ24.
        out_psn: u32 = PSN_BITS,
        /// ECN-Echo.
        out_ece: bool = 1,
        /// Packets covered, 0..=15 (0 only on a NAK with nothing held).
        out_n_pkts: u32 = N_BITS as u32,
        /// A NAK: go back to `out_psn`.
        out_nak: bool = 1,
        /// Error of the event computed last cycle: 0 none, 1 flow id beyond the table, 2 duplicate or out-of-window PSN, 3 a gap already NAKed.
        stat_err: u8 = 2,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Event(AgInputs),
    Flush(usize),
}

/// Stages an op spends between its entry edge and its update edge (the
/// table's deep form: read, state chosen, update).
const OP_STAGES: usize = 3;
/// Entries of the ACK queue between the decisions and `out_*`.
pub const ACK_QUEUE: usize = 8;
/// `in_ready` is high while the queue holds at most this many ACKs (after
/// the last edge). Every op adds at most one ACK to the queue beyond the one
/// that leaves per clock, and an op taken while the queue holds `q` ACKs
/// meets at most `q + 5` when its ACKs arrive (the four ops ahead of it and
/// its own): 2 + 5 <= [`ACK_QUEUE`], so no ACK is ever dropped.
pub const READY_MAX_QUEUED: usize = 2;
const _: () = assert!(READY_MAX_QUEUED + OP_STAGES + 2 <= ACK_QUEUE);

/// The RTL's registers and tables, mirrored.
#[derive(Clone, Debug)]
pub struct AckGeneratorModel {
    flows: Vec<AckFlow>,
    /// The ops taken: [s1, s2, s3].
    ops: [Option<Op>; OP_STAGES],
    /// The decisions of the op updated at the last edge.
    decided: AckOut,
    /// ACKs decided and not yet shown, oldest first.
    queue: std::collections::VecDeque<Ack>,
    /// Largest queue length seen (at most [`ACK_QUEUE`]).
    queue_peak: usize,
    ready_q: bool,
    cf_m: u32,
    cf_timeout: u32,
    sc_ptr: usize,
    sc_idx: usize,
    sc_v: bool,
    /// The scanner's read register: (pending, held_since) of `sc_idx`.
    sc_q: (u32, u32),
    /// The scanner's next stage: (index, pending != 0, held_since, T).
    h1: Option<(usize, bool, u32, u32)>,
    /// The scanner's third stage: (index, pending != 0, age).
    h2: Option<(usize, bool, u32)>,
    /// A flow to flush, found by the scanner (enters at the next edge).
    hit: Option<usize>,
    t: u32,
    sweep: crate::Sweep,
    out: AgOutputs,
}

impl AckGeneratorModel {
    /// 2^flow_bits flows expecting PSN 0, at power-up.
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in 1..=16"
        );
        let mut m = AckGeneratorModel {
            flows: vec![AckFlow::default(); 1 << flow_bits],
            ops: [None; OP_STAGES],
            decided: AckOut::default(),
            queue: Default::default(),
            queue_peak: 0,
            ready_q: true,
            cf_m: 1,
            cf_timeout: 0,
            sc_ptr: 0,
            sc_idx: 0,
            sc_v: false,
            sc_q: (0, 0),
            h1: None,
            h2: None,
            hit: None,
            t: 0,
            sweep: crate::Sweep::default(),
            out: AgOutputs::default(),
        };
        m.out.in_ready = m.ready();
        m
    }

    /// A flow's state (events in the pipeline not included).
    pub fn flow(&self, flow: usize) -> Option<&AckFlow> {
        self.flows.get(flow)
    }

    /// The outputs.
    pub fn outputs(&self) -> AgOutputs {
        self.out
    }

    /// The longest the ACK queue has been.
    pub fn queue_peak(&self) -> usize {
        self.queue_peak
    }

    /// What an op produces, applied to `flows`.
    fn compute(flows: &mut [AckFlow], op: Op, m: u32, timeout: u32, t: u32) -> AckOut {
        match op {
            Op::Flush(f) => AckOut {
                first: flows[f].flush(f as u32, timeout, t),
                ..Default::default()
            },
            Op::Event(i) => {
                let f = (i.in_flow & 0xffff) as usize;
                if f >= flows.len() {
                    return AckOut {
                        err: err::FLOW,
                        ..Default::default()
                    };
                }
                if i.in_open {
                    flows[f].open(i.in_psn);
                    AckOut::default()
                } else {
                    flows[f].packet(f as u32, i.in_psn & PSN_MASK, i.in_ce, i.in_last, m, t)
                }
            }
        }
    }

    /// `in_ready`: from registers only.
    fn ready(&self) -> bool {
        !self.sweep.active() && self.hit.is_none() && self.ready_q
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &AgInputs) {
        let t = self.t;
        let n = self.flows.len();
        let ready = self.ready();
        let prev_q = self.sc_q;
        // the scanner's copy is written with the table, so its read at this
        // edge returns the entry as it was before this edge's write
        let rd = (
            self.flows[self.sc_ptr].pending,
            self.flows[self.sc_ptr].held_since,
        );

        // ---- the ACK shown: the oldest of the queue, then the decisions
        // of the last edge, in order; the rest queued
        let mut out = AgOutputs::default();
        let d = std::mem::take(&mut self.decided);
        self.queue.extend(d.first);
        self.queue.extend(d.second);
        if let Some(a) = self.queue.pop_front() {
            out.out_valid = true;
            out.out_flow = a.flow;
            out.out_psn = a.psn;
            out.out_ece = a.ece;
            out.out_n_pkts = a.n;
            out.out_nak = a.nak;
        }
        self.queue_peak = self.queue_peak.max(self.queue.len());
        assert!(
            self.queue.len() <= ACK_QUEUE,
            "the ACK queue overflowed: the ready rule is wrong"
        );
        out.stat_err = d.err;

        // ---- the update: the op leaving s3, applied to the table (unless reset)
        self.decided = match self.ops[OP_STAGES - 1].take() {
            Some(op) if !i.reset => {
                Self::compute(&mut self.flows, op, self.cf_m, self.cf_timeout, t)
            }
            _ => AckOut::default(),
        };
        self.sc_q = rd;
        if self.sweep.active() && !i.reset {
            self.flows[self.sweep.ptr()] = AckFlow::default();
        }

        // ---- the ops move on; the next op: a flush the scanner found, else the input
        self.ops.rotate_right(1);
        self.ops[0] = if i.reset || self.sweep.active() {
            None
        } else if let Some(f) = self.hit {
            Some(Op::Flush(f))
        } else if i.in_valid && ready {
            Some(Op::Event(*i))
        } else {
            None
        };

        // ---- the scanner: read register -> (pending, stamp, T) -> age -> hit
        self.hit = self
            .h2
            .and_then(|(f, nz, age)| (nz && age >= self.cf_timeout).then_some(f));
        self.h2 = self
            .h1
            .map(|(f, nz, since, th)| (f, nz, th.wrapping_sub(since) & T_MASK));
        let (pend, since) = prev_q;
        self.h1 = self.sc_v.then_some((self.sc_idx, pend != 0, since, t));

        // ---- registers
        self.ready_q = self.queue.len() <= READY_MAX_QUEUED;
        self.cf_m = clamp_m(i.cfg_m_pkts);
        self.cf_timeout = i.cfg_timeout_cycles & ((1 << TIMEOUT_BITS) - 1);
        self.sc_idx = self.sc_ptr;
        self.sc_ptr = (self.sc_ptr + 1) % n;
        self.sc_v = !self.sweep.active() && !i.reset;
        self.t = (t + 1) & T_MASK;
        self.sweep.tick(i.reset, n);
        if i.reset {
            self.t = 0;
            self.sc_ptr = 0;
            self.ops = [None; OP_STAGES];
            self.decided = AckOut::default();
            self.queue.clear();
            self.ready_q = true;
            self.h1 = None;
            self.h2 = None;
            self.hit = None;
            out = AgOutputs::default();
        }
        self.out = out;
        self.out.in_ready = self.ready();
    }
}
impl AgInputs {
    /// An idle cycle that keeps `last`'s m and timeout (power-up values
    /// without one): what both ACK generator models drain with.
    pub fn idle_after(last: Option<&AgInputs>) -> AgInputs {
        AgInputs {
            cfg_m_pkts: last.map_or(1, |i| i.cfg_m_pkts),
            cfg_timeout_cycles: last.map_or(0, |i| i.cfg_timeout_cycles),
            ..Default::default()
        }
    }
}

impl crate::cosim::CosimModel for AckGeneratorModel {
    type Input = AgInputs;
    type Output = AgOutputs;

    fn tick(&mut self, i: &AgInputs) {
        AckGeneratorModel::tick(self, i)
    }

    fn outputs(&self) -> AgOutputs {
        self.out
    }

    /// Idle cycles, the last m and timeout kept, long enough for a reset
    /// sweep to finish and for the scanner to flush every held ACK: the
    /// timeout, plus two passes of the scanner (one to reach a flow, one
    /// for a flow whose stamp was taken just after its visit), plus the
    /// pipeline and the ACK queue.
    fn drain(&self, last: Option<&AgInputs>) -> Vec<AgInputs> {
        let cfg = AgInputs::idle_after(last);
        let timeout = (cfg.cfg_timeout_cycles & ((1 << TIMEOUT_BITS) - 1)) as usize;
        vec![cfg; timeout + 3 * self.flows.len() + 8 + ACK_QUEUE]
    }

    /// The ops in the pipeline, decided ACKs not yet shown, a sweep under
    /// way, and ACKs held for a delayed ACK (the timeout must flush them).
    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let held = self.flows.iter().filter(|f| f.pending != 0).count() as u64;
        let decided = self.decided.first.is_some() as u64 + self.decided.second.is_some() as u64;
        [
            (
                "ops in the pipeline",
                self.ops.iter().flatten().count() as u64,
            ),
            (
                "ACKs decided, not yet shown",
                decided + self.queue.len() as u64,
            ),
            ("a flush found by the scanner", self.hit.is_some() as u64),
            (
                "reset sweep entries left",
                self.sweep.left(self.flows.len()),
            ),
            ("flows holding a delayed ACK", held),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }
}

/// The seeded, endless packet stream of the CLI's cosimulation and the
/// benchmarks: [`AgStimulus`] from a seed.
pub fn stimulus(seed: u64, flow_bits: u32) -> impl Iterator<Item = AgInputs> + Clone {
    crate::seeded(AgStimulus::new(flow_bits), seed ^ 0x3c6e_f372_fe94_f82b)
}

/// The packet stream generator: phases with one, a few or all flows,
/// in-order packets with a CE ratio from 0 to 100%, losses (skipped PSNs)
/// and the retransmissions that follow, duplicates, far-away PSNs, opens
/// near the 2^24 wrap, ids beyond the table, m from 0 to 15, timeouts from
/// 0 to 65,535 cycles, idle stretches and a rare block reset. The generator
/// keeps its own next PSN per flow; it does not wait for `in_ready` (events
/// presented while it is low are simply not taken, which the model mirrors).
#[derive(Clone, Debug)]
pub struct AgStimulus {
    n: usize,
    next: Vec<u32>,
    // the generator's guess of the receiver's expected PSN
    exp: Vec<u32>,
    left: u32,
    phase: (u64, u64, u64, u32, u32, u64),
}

impl AgStimulus {
    /// A generator for a table of 2^flow_bits flows.
    pub fn new(flow_bits: u32) -> Self {
        let n = 1usize << flow_bits;
        AgStimulus {
            n,
            next: vec![0; n],
            exp: vec![0; n],
            left: 0,
            phase: (1, 0, 0, 1, 0, 0),
        }
    }
}

impl crate::Stimulus for AgStimulus {
    type Input = AgInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> AgInputs {
        let n = self.n;
        let (next, exp) = (&mut self.next, &mut self.exp);
        let mut r = || d.next_u64();
        let a = r();
        let b = r();
        if self.left == 0 {
            let flows = [1u64, 3, 20, n as u64][(r() % 4) as usize];
            let first = r() % n as u64;
            let ce = [0u64, 5, 30, 100][(r() % 4) as usize];
            let m = (r() % 16) as u32;
            let timeout = [0u32, 3, 50, 400, 5000, 65_535][(r() % 6) as usize];
            let idle = [0u64, 10, 60, 95][(r() % 4) as usize];
            self.phase = (flows, first, ce, m, timeout, idle);
            self.left = 300 + (r() % 4000) as u32;
        }
        self.left -= 1;
        let (flows, first, ce, m, timeout, idle) = self.phase;
        let f = ((first + (a >> 8) % flows) % n as u64) as usize;
        let mut i = AgInputs {
            reset: a % 30_000 == 0,
            in_valid: (a >> 20) % 100 >= idle,
            in_flow: f as u32,
            in_ce: (b % 100) < ce,
            in_last: (b >> 8) % 12 == 0,
            cfg_m_pkts: m,
            cfg_timeout_cycles: timeout,
            ..Default::default()
        };
        if i.reset {
            exp.iter_mut().for_each(|e| *e = 0);
        }
        match (a >> 28) % 100 {
            0..=79 => {
                i.in_psn = next[f];
                next[f] = (next[f] + 1) & PSN_MASK;
            }
            80..=84 => {
                // a loss: skip a few PSNs (the receiver NAKs)
                i.in_psn = (next[f] + 1 + (b >> 16) as u32 % 5) & PSN_MASK;
                next[f] = (i.in_psn + 1) & PSN_MASK;
            }
            85..=89 => {
                // go-back-N: the sender rewinds to the receiver's expected PSN
                // (or a few before it: duplicates)
                next[f] = exp[f].wrapping_sub((b >> 16) as u32 % 3) & PSN_MASK;
                i.in_psn = next[f];
                next[f] = (next[f] + 1) & PSN_MASK;
            }
            90..=92 => {
                i.in_psn = (b >> 24) as u32 & PSN_MASK; // anywhere
            }
            93..=95 => {
                i.in_open = true;
                i.in_psn = match (b >> 40) % 2 {
                    0 => PSN_MASK - (b >> 44) as u32 % 16,
                    _ => (b >> 40) as u32 & PSN_MASK,
                };
                next[f] = i.in_psn;
                exp[f] = i.in_psn;
            }
            _ => {
                i.in_flow = (n as u64 + (b >> 32) % (0x1_0000 - n as u64).max(1)) as u32 & 0xffff;
                i.in_psn = (b >> 8) as u32 & PSN_MASK;
            }
        }
        if !i.in_open && i.in_flow as usize == f && i.in_psn == exp[f] {
            exp[f] = (exp[f] + 1) & PSN_MASK;
        }
        i
    }
}
