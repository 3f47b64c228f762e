//! The cycle-accurate mirror of `AckGenerator`: the table (applied in order,
//! which the RTL's one-entry bypass makes exact), the scanner's copy of the
//! pending/stamp fields and its read register, the hold register of split
//! ACKs, the combinational `in_ready`, and the reset sweep.

use super::*;

/// One cycle of inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgInputs {
    /// Synchronous reset: clears outputs and T, then sweeps the table.
    pub reset: bool,
    /// An event this cycle (taken when `in_ready`).
    pub valid: bool,
    /// 0: a data packet; 1: open the flow at `psn`.
    pub kind: u8,
    /// Flow id, 16 bits.
    pub flow: u32,
    /// PSN, 24 bits.
    pub psn: u32,
    /// The packet arrived with CE.
    pub ce: bool,
    /// The packet ends its message.
    pub last: bool,
    /// Delayed-ACK count m, 4 bits (0 and 1: per-packet ACKs).
    pub m: u32,
    /// Timeout, cycles, 16 bits.
    pub timeout: u32,
}

/// The outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgOutputs {
    /// Events are taken this cycle (combinational from registers).
    pub in_ready: bool,
    /// An ACK this cycle.
    pub ack_valid: bool,
    /// Its flow.
    pub ack_flow: u32,
    /// Its cumulative PSN (next expected).
    pub ack_psn: u32,
    /// ECN-Echo.
    pub ack_ece: bool,
    /// Packets covered.
    pub ack_n: u32,
    /// A NAK.
    pub ack_nak: bool,
    /// The error code of the event computed in the last cycle.
    pub o_err: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Event(AgInputs),
    Flush(usize),
}

/// The RTL's registers and tables, mirrored.
#[derive(Clone, Debug)]
pub struct AckGeneratorModel {
    flows: Vec<AckFlow>,
    s1: Option<Op>,
    hold: Option<Ack>,
    cf_m: u32,
    cf_timeout: u32,
    sc_ptr: usize,
    sc_idx: usize,
    sc_v: bool,
    /// The scanner's read register: (pending, held_since) of `sc_idx`.
    sc_q: (u32, u32),
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
            s1: None,
            hold: None,
            cf_m: 1,
            cf_timeout: 0,
            sc_ptr: 0,
            sc_idx: 0,
            sc_v: false,
            sc_q: (0, 0),
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

    /// What the op in s1 produces, applied to `flows` (a copy when peeking).
    fn compute(flows: &mut [AckFlow], op: Op, m: u32, timeout: u32, t: u32) -> AckOut {
        match op {
            Op::Flush(f) => AckOut {
                first: flows[f].flush(f as u32, timeout, t),
                ..Default::default()
            },
            Op::Event(i) => {
                let f = (i.flow & 0xffff) as usize;
                if f >= flows.len() {
                    return AckOut {
                        err: err::FLOW,
                        ..Default::default()
                    };
                }
                if i.kind & 1 == 1 {
                    flows[f].open(i.psn);
                    AckOut::default()
                } else {
                    flows[f].packet(f as u32, i.psn & PSN_MASK, i.ce, i.last, m, t)
                }
            }
        }
    }

    /// The s1 op needs two ACKs (a split): its result on a copy of its flow.
    fn split_now(&self) -> bool {
        match self.s1 {
            Some(Op::Event(i)) if i.kind & 1 == 0 => {
                let f = (i.flow & 0xffff) as usize;
                self.flows.get(f).is_some_and(|&flow| {
                    let mut copy = flow;
                    let o =
                        copy.packet(f as u32, i.psn & PSN_MASK, i.ce, i.last, self.cf_m, self.t);
                    o.second.is_some()
                })
            }
            _ => false,
        }
    }

    /// The scanner found a flow to flush (from its read register).
    fn hit_now(&self) -> bool {
        let (pending, since) = self.sc_q;
        self.sc_v && pending != 0 && (self.t.wrapping_sub(since) & T_MASK) >= self.cf_timeout
    }

    fn ready(&self) -> bool {
        !self.sweep.active() && !self.split_now() && !self.hit_now()
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &AgInputs) {
        let t = self.t;
        let n = self.flows.len();
        let split = self.split_now();
        let hit = self.hit_now();
        let ready = !self.sweep.active() && !split && !hit;
        // the scanner's copy is written with the table, so its read at this
        // edge returns the entry as it was before this edge's write
        let rd = (
            self.flows[self.sc_ptr].pending,
            self.flows[self.sc_ptr].held_since,
        );

        // ---- s1: the op's result, applied to the table (unless reset)
        let mut out = AgOutputs::default();
        let res = match self.s1.take() {
            Some(op) if !i.reset => {
                Self::compute(&mut self.flows, op, self.cf_m, self.cf_timeout, t)
            }
            _ => AckOut::default(),
        };
        let shown = if let Some(h) = self.hold.take() {
            Some(h)
        } else {
            self.hold = res.second;
            res.first
        };
        if let Some(a) = shown {
            out.ack_valid = true;
            out.ack_flow = a.flow;
            out.ack_psn = a.psn;
            out.ack_ece = a.ece;
            out.ack_n = a.n;
            out.ack_nak = a.nak;
        }
        out.o_err = res.err;

        self.sc_q = rd;
        if self.sweep.active() && !i.reset {
            self.flows[self.sweep.ptr()] = AckFlow::default();
        }

        // ---- the next op
        self.s1 = if i.reset || self.sweep.active() || split {
            None
        } else if hit {
            Some(Op::Flush(self.sc_idx))
        } else if i.valid && ready {
            Some(Op::Event(*i))
        } else {
            None
        };

        // ---- registers
        self.cf_m = clamp_m(i.m);
        self.cf_timeout = i.timeout & ((1 << TIMEOUT_BITS) - 1);
        self.sc_idx = self.sc_ptr;
        self.sc_ptr = (self.sc_ptr + 1) % n;
        self.sc_v = !self.sweep.active() && !i.reset;
        self.t = (t + 1) & T_MASK;
        self.sweep.tick(i.reset, n);
        if i.reset {
            self.t = 0;
            self.sc_ptr = 0;
            self.hold = None;
            out = AgOutputs::default();
        }
        self.out = out;
        self.out.in_ready = self.ready();
    }
}

impl crate::cosim::CosimModel for AckGeneratorModel {
    type Input = AgInputs;

    fn input_names() -> &'static [&'static str] {
        &[
            "reset",
            "in_valid",
            "in_kind",
            "in_flow",
            "in_psn",
            "in_ce",
            "in_last",
            "m_pkts",
            "timeout_cycles",
        ]
    }

    fn output_names() -> &'static [&'static str] {
        &[
            "in_ready",
            "ack_valid",
            "ack_flow",
            "ack_psn",
            "ack_ece",
            "ack_n",
            "ack_nak",
            "o_err",
        ]
    }

    fn encode(i: &AgInputs, p: &mut [u64]) {
        p[0] = i.reset as u64;
        p[1] = i.valid as u64;
        p[2] = (i.kind & 1) as u64;
        p[3] = (i.flow & 0xffff) as u64;
        p[4] = (i.psn & PSN_MASK) as u64;
        p[5] = i.ce as u64;
        p[6] = i.last as u64;
        p[7] = (i.m & N_MAX) as u64;
        p[8] = (i.timeout & 0xffff) as u64;
    }

    fn tick(&mut self, i: &AgInputs) {
        AckGeneratorModel::tick(self, i)
    }

    fn outputs(&self, p: &mut [u64]) {
        let o = self.out;
        p[0] = o.in_ready as u64;
        p[1] = o.ack_valid as u64;
        p[2] = o.ack_flow as u64;
        p[3] = o.ack_psn as u64;
        p[4] = o.ack_ece as u64;
        p[5] = o.ack_n as u64;
        p[6] = o.ack_nak as u64;
        p[7] = o.o_err as u64;
    }
}

/// A seeded, endless packet stream: phases with one, a few or all flows,
/// in-order packets with a CE ratio from 0 to 100%, losses (skipped PSNs)
/// and the retransmissions that follow, duplicates, far-away PSNs, opens
/// near the 2^24 wrap, ids beyond the table, m from 0 to 15, timeouts from
/// 0 to 65,535 cycles, idle stretches and a rare block reset. The generator
/// keeps its own next PSN per flow; it does not wait for `in_ready` (events
/// presented while it is low are simply not taken, which the model mirrors).
pub fn stimulus(seed: u64, flow_bits: u32) -> impl Iterator<Item = AgInputs> + Clone {
    let mut rng = crate::SplitMix64::new(seed ^ 0x3c6e_f372_fe94_f82b);
    let n = 1usize << flow_bits;
    let mut next = vec![0u32; n];
    let mut exp = vec![0u32; n]; // the generator's guess of the receiver's expected PSN
    let mut left = 0u32;
    let mut phase = (1u64, 0u64, 0u64, 1u32, 0u32, 0u64);
    std::iter::from_fn(move || {
        let mut r = || rng.next_u64();
        if left == 0 {
            let flows = [1u64, 3, 20, n as u64][(r() % 4) as usize];
            let first = r() % n as u64;
            let ce = [0u64, 5, 30, 100][(r() % 4) as usize];
            let m = (r() % 16) as u32;
            let timeout = [0u32, 3, 50, 400, 5000, 65_535][(r() % 6) as usize];
            let idle = [0u64, 10, 60, 95][(r() % 4) as usize];
            phase = (flows, first, ce, m, timeout, idle);
            left = 300 + (r() % 4000) as u32;
        }
        left -= 1;
        let (flows, first, ce, m, timeout, idle) = phase;
        let a = r();
        let b = r();
        let f = ((first + (a >> 8) % flows) % n as u64) as usize;
        let mut i = AgInputs {
            reset: a % 30_000 == 0,
            valid: (a >> 20) % 100 >= idle,
            flow: f as u32,
            ce: (b % 100) < ce,
            last: (b >> 8) % 12 == 0,
            m,
            timeout,
            ..Default::default()
        };
        if i.reset {
            exp.iter_mut().for_each(|e| *e = 0);
        }
        match (a >> 28) % 100 {
            0..=79 => {
                i.psn = next[f];
                next[f] = (next[f] + 1) & PSN_MASK;
            }
            80..=84 => {
                // a loss: skip a few PSNs (the receiver NAKs)
                i.psn = (next[f] + 1 + (b >> 16) as u32 % 5) & PSN_MASK;
                next[f] = (i.psn + 1) & PSN_MASK;
            }
            85..=89 => {
                // go-back-N: the sender rewinds to the receiver's expected PSN
                // (or a few before it: duplicates)
                next[f] = exp[f].wrapping_sub((b >> 16) as u32 % 3) & PSN_MASK;
                i.psn = next[f];
                next[f] = (next[f] + 1) & PSN_MASK;
            }
            90..=92 => {
                i.psn = (b >> 24) as u32 & PSN_MASK; // anywhere
            }
            93..=95 => {
                i.kind = 1;
                i.psn = match (b >> 40) % 2 {
                    0 => PSN_MASK - (b >> 44) as u32 % 16,
                    _ => (b >> 40) as u32 & PSN_MASK,
                };
                next[f] = i.psn;
                exp[f] = i.psn;
            }
            _ => {
                i.flow = (n as u64 + (b >> 32) % (0x1_0000 - n as u64).max(1)) as u32 & 0xffff;
                i.psn = (b >> 8) as u32 & PSN_MASK;
            }
        }
        if i.kind == 0 && i.flow as usize == f && i.psn == exp[f] {
            exp[f] = (exp[f] + 1) & PSN_MASK;
        }
        Some(i)
    })
}
