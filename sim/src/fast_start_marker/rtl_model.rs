//! The cycle-accurate mirror of `FastStartMarker`'s registers.
//!
//! The RTL's table is block RAM read one edge ahead with a one-entry bypass
//! of the last write, which makes back-to-back events of a flow behave as if
//! applied one after another: the mirror therefore applies each event to a
//! plain table ([`FsFlow`]) in its result cycle. What it mirrors register by
//! register is the timing: the input register, the output registers, the
//! registered IW, `in_ready` and the reset sweep.

use super::*;

/// One cycle of inputs (the RTL's ports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsInputs {
    /// Synchronous reset: clears the outputs, then sweeps the table.
    pub reset: bool,
    /// An event this cycle (taken when `in_ready` is high).
    pub valid: bool,
    /// [`kind`].
    pub kind: u8,
    /// Flow id, 16 bits.
    pub flow: u32,
    /// PSN (transmit) or the expected PSN `e` (ACK, NAK), 24 bits.
    pub psn: u32,
    /// The packet ends its message (transmit).
    pub last: bool,
    /// IPv4 header word 0 (version, IHL, DSCP, ECN).
    pub word0: u16,
    /// IPv4 header checksum.
    pub csum: u16,
    /// IW parameter, packets, 12 bits (0 acts as 1).
    pub iw_pkts: u32,
}

/// The registered outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsOutputs {
    /// Events are taken (low during the reset sweep).
    pub in_ready: bool,
    /// A result this cycle.
    pub o_valid: bool,
    /// Its event's kind.
    pub o_kind: u8,
    /// Its flow id.
    pub o_flow: u32,
    /// [`err`] code.
    pub o_err: u8,
    /// Transmit: the codepoint (0 otherwise).
    pub o_ecn: u8,
    /// Transmit: word 0 rewritten (0 otherwise).
    pub o_word0: u16,
    /// Transmit: the checksum updated (0 otherwise).
    pub o_csum: u16,
    /// ACK/NAK: hand `o_cw_pkts` to the window engine's set.
    pub o_set: bool,
    /// The window, packets (0 without `o_set`).
    pub o_cw_pkts: u32,
    /// ACK/NAK: go-back-N from `o_psn`.
    pub o_gbn: bool,
    /// The event's PSN (transmit) or `e` (ACK, NAK); 0 for a flow reset.
    pub o_psn: u32,
    /// The flow's stage after the event (0 for a refused flow id).
    pub o_stage: u8,
}

/// The RTL's registers, mirrored.
#[derive(Clone, Debug)]
pub struct FastStartModel {
    flows: Vec<FsFlow>,
    s1: Option<FsInputs>,
    s1_iw: u32,
    sweep: crate::Sweep,
    out: FsOutputs,
}

impl FastStartModel {
    /// A table of 2^flow_bits idle flows, at power-up (no sweep pending).
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in 1..=16"
        );
        FastStartModel {
            flows: vec![FsFlow::default(); 1 << flow_bits],
            s1: None,
            s1_iw: 1,
            sweep: crate::Sweep::default(),
            out: FsOutputs {
                in_ready: true,
                ..Default::default()
            },
        }
    }

    /// A flow's state (events in the pipeline not included).
    pub fn flow(&self, flow: usize) -> Option<&FsFlow> {
        self.flows.get(flow)
    }

    /// The registered outputs.
    pub fn outputs(&self) -> FsOutputs {
        self.out
    }

    fn result(&mut self, i: &FsInputs, iw: u32) -> FsOutputs {
        let mut o = FsOutputs {
            o_valid: true,
            o_kind: i.kind & 3,
            o_flow: i.flow & 0xffff,
            ..Default::default()
        };
        let Some(f) = self.flows.get_mut(i.flow as usize & 0xffff) else {
            o.o_err = err::FLOW;
            if o.o_kind == kind::TX {
                o.o_ecn = (i.word0 & 3) as u8;
                o.o_word0 = i.word0;
                o.o_csum = i.csum;
                o.o_psn = i.psn & PSN_MASK;
            } else if o.o_kind != kind::RESET_FLOW {
                o.o_psn = i.psn & PSN_MASK;
            }
            return o;
        };
        match o.o_kind {
            kind::TX => {
                let r = f.tx(i.psn, i.last, i.word0, i.csum, iw);
                o.o_err = r.err;
                o.o_ecn = r.ecn;
                o.o_word0 = r.word0;
                o.o_csum = r.csum;
                o.o_psn = i.psn & PSN_MASK;
            }
            kind::ACK | kind::NAK => {
                let r = f.ack(i.psn, o.o_kind == kind::NAK, iw);
                o.o_err = r.err;
                o.o_set = r.set_cw_pkts.is_some();
                o.o_cw_pkts = r.set_cw_pkts.unwrap_or(0);
                o.o_gbn = r.go_back_n.is_some();
                o.o_psn = i.psn & PSN_MASK;
            }
            _ => *f = FsFlow::default(),
        }
        o.o_stage = f.stage as u8;
        o
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &FsInputs) {
        let ready = self.out.in_ready;
        let mut out = match self.s1.take() {
            Some(op) => self.result(&op, self.s1_iw),
            None => FsOutputs::default(),
        };
        self.s1_iw = clamp_iw(i.iw_pkts);
        if i.reset {
            // the sweep clears every entry before the next event can read one
            self.flows.iter_mut().for_each(|f| *f = FsFlow::default());
            self.sweep.tick(true, self.flows.len());
            self.out = FsOutputs::default();
            return;
        }
        self.sweep.tick(false, self.flows.len());
        if i.valid && ready {
            self.s1 = Some(*i);
        }
        out.in_ready = !self.sweep.active();
        self.out = out;
    }
}

impl crate::cosim::CosimModel for FastStartModel {
    type Input = FsInputs;

    fn input_names() -> &'static [&'static str] {
        &[
            "reset", "in_valid", "in_kind", "in_flow", "in_psn", "in_last", "in_word0", "in_csum",
            "iw_pkts",
        ]
    }

    fn output_names() -> &'static [&'static str] {
        &[
            "in_ready",
            "o_valid",
            "o_kind",
            "o_flow",
            "o_err",
            "o_ecn",
            "o_word0",
            "o_csum",
            "o_set",
            "o_cw_pkts",
            "o_gbn",
            "o_psn",
            "o_stage",
        ]
    }

    fn encode(i: &FsInputs, p: &mut [u64]) {
        p[0] = i.reset as u64;
        p[1] = i.valid as u64;
        p[2] = (i.kind & 3) as u64;
        p[3] = (i.flow & 0xffff) as u64;
        p[4] = (i.psn & PSN_MASK) as u64;
        p[5] = i.last as u64;
        p[6] = i.word0 as u64;
        p[7] = i.csum as u64;
        p[8] = (i.iw_pkts & COUNT_MAX) as u64;
    }

    fn tick(&mut self, i: &FsInputs) {
        FastStartModel::tick(self, i)
    }

    fn outputs(&self, p: &mut [u64]) {
        let o = self.out;
        p[0] = o.in_ready as u64;
        p[1] = o.o_valid as u64;
        p[2] = o.o_kind as u64;
        p[3] = o.o_flow as u64;
        p[4] = o.o_err as u64;
        p[5] = o.o_ecn as u64;
        p[6] = o.o_word0 as u64;
        p[7] = o.o_csum as u64;
        p[8] = o.o_set as u64;
        p[9] = o.o_cw_pkts as u64;
        p[10] = o.o_gbn as u64;
        p[11] = o.o_psn as u64;
        p[12] = o.o_stage as u64;
    }
}

/// A seeded, endless event stream: phases with a few or many flows whose
/// PSNs start near the 2^24 wrap or anywhere, mostly in-sequence transmits
/// (short and long messages), cumulative ACKs within and beyond the window,
/// NAKs, retransmissions, flow resets, ids beyond the table, non-IPv4
/// headers, odd IW values (0, 1, 4095), idle cycles and a rare block reset.
pub fn stimulus(seed: u64, flow_bits: u32) -> impl Iterator<Item = FsInputs> + Clone {
    let mut rng = crate::SplitMix64::new(seed ^ 0x6a09_e667_f3bc_c908);
    let n = 1usize << flow_bits;
    // the generator's own view of each flow: first and next PSN
    let mut base = vec![0u32; n];
    let mut next = vec![0u32; n];
    let mut left = 0u32;
    let mut phase = (1u64, 0u64, 16u32, 0u64);
    std::iter::from_fn(move || {
        let mut r = || rng.next_u64();
        if left == 0 {
            let flows = [1u64, 2, 5, n as u64][(r() % 4) as usize];
            let first = r() % n as u64;
            let iw = [0u32, 1, 2, 7, 40, COUNT_MAX, (r() % 4096) as u32][(r() % 7) as usize];
            let idle = [0u64, 0, 20, 70][(r() % 4) as usize];
            phase = (flows, first, iw, idle);
            left = 200 + (r() % 3000) as u32;
        }
        left -= 1;
        let (flows, first, iw, idle) = phase;
        let a = r();
        let b = r();
        let f = ((first + (a >> 8) % flows) % n as u64) as usize;
        let mut i = FsInputs {
            reset: a % 25_000 == 0,
            valid: (a >> 20) % 100 >= idle,
            flow: f as u32,
            word0: 0x4500 | (b as u16 & 0xff),
            csum: (b >> 8) as u16,
            iw_pkts: iw,
            ..Default::default()
        };
        let sent = next[f].wrapping_sub(base[f]) & PSN_MASK;
        match (a >> 28) % 100 {
            0..=54 => {
                i.kind = kind::TX;
                i.psn = next[f];
                i.last = (b >> 24) % 16 == 0;
                next[f] = (next[f] + 1) & PSN_MASK;
            }
            55..=59 => {
                i.kind = kind::TX; // retransmission or out of window
                i.psn = (base[f] + (b >> 24) as u32 % (sent + 3)) & PSN_MASK;
            }
            60..=84 => {
                i.kind = kind::ACK;
                i.psn = (base[f] + (b >> 24) as u32 % (sent + 2)) & PSN_MASK;
            }
            85..=89 => {
                i.kind = kind::NAK;
                i.psn = (base[f] + (b >> 24) as u32 % (sent + 2)) & PSN_MASK;
            }
            90..=92 => {
                i.kind = kind::RESET_FLOW;
                base[f] = match (b >> 40) % 3 {
                    0 => PSN_MASK - (b >> 44) as u32 % 64, // near the wrap
                    _ => (b >> 40) as u32 & PSN_MASK,
                };
                next[f] = base[f];
            }
            93..=94 => {
                i.kind = (b >> 50) as u8 & 3;
                i.flow = n as u32 + (b >> 32) as u32 % (0x10000 - n as u32).max(1);
                i.psn = (b >> 8) as u32 & PSN_MASK;
            }
            95..=96 => {
                i.kind = kind::TX;
                i.psn = next[f];
                i.word0 = b as u16; // mostly not IPv4
            }
            _ => {
                i.kind = (b >> 50) as u8 & 3;
                i.psn = (b >> 8) as u32 & PSN_MASK; // anywhere
            }
        }
        if i.flow >= n as u32 {
            i.flow &= 0xffff;
        }
        Some(i)
    })
}
