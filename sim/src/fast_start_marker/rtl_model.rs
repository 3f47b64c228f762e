//! The cycle-accurate mirror of `FastStartMarker`'s registers.
//!
//! The RTL's table is block RAM read one edge ahead, registered once more,
//! with the forwarding of the write in progress and a one-entry bypass of
//! the last write, which makes back-to-back events of a flow behave as if
//! applied one after another: the mirror therefore applies each event to a
//! plain table ([`FsFlow`]) in its result cycle. What it mirrors register by
//! register is the timing: the three input stages, the decision stage, the output registers, the
//! registered IW, `in_ready` and the reset sweep.

use super::*;

crate::ports! {
    callback fast_start_marker_ports;
    /// One cycle of inputs (the RTL's ports).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct FsInputs {
        /// Synchronous reset: clears the outputs, then sweeps the table.
        reset: bool = 1,
        /// An event this cycle (taken when `in_ready` is high).
        in_valid: bool = 1,
        /// Its [`kind`]: 0 transmit, 1 ACK, 2 NAK, 3 flow reset.
        in_kind: u8 = 2,
        /// Flow id (ids at or above the table size are refused with error 1).
        in_flow: u32 = FLOW_ID_BITS as u32,
        /// Transmit: the packet's PSN; ACK/NAK: the receiver's expected PSN `e`. UQ24.
        in_psn: u32 = PSN_BITS,
        /// Transmit: the packet ends its message.
        in_last: bool = 1,
        /// Transmit: IPv4 header word 0 (version, IHL, DSCP, ECN).
        in_word0: u16 = 16,
        /// Transmit: IPv4 header checksum.
        in_csum: u16 = 16,
        /// IW, packets, UQ12 (0 acts as 1); registered.
        cfg_iw_pkts: u32 = COUNT_BITS as u32,
    }
    /// The registered outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct FsOutputs {
        /// Events are taken (low during the reset sweep).
        in_ready: bool = 1,
        /// A result this cycle.
        out_valid: bool = 1,
        /// Its event's kind.
        out_kind: u8 = 2,
        /// Its flow id.
        out_flow: u32 = FLOW_ID_BITS as u32,
        /// [`err`] code: 0 none, 1 flow id beyond the table, 2 PSN out of window (or an ACK for an idle flow), 3 not IPv4.
        out_err: u8 = 2,
        /// Transmit: the ECN codepoint written (00 Not-ECT, 10 ECT(0); 0 otherwise).
        out_ecn: u8 = 2,
        /// Transmit: word 0 with the ECN field rewritten (0 otherwise).
        out_word0: u16 = 16,
        /// Transmit: the checksum updated by RFC 1624 Eq. 3 (0 otherwise).
        out_csum: u16 = 16,
        /// ACK/NAK: hand `out_cw_pkts` to the window engine's per-flow set.
        out_set: bool = 1,
        /// The window for the set, packets, UQ12 (0 without `out_set`).
        out_cw_pkts: u32 = COUNT_BITS as u32,
        /// ACK/NAK: go-back-N from `out_psn` (a loss during fast start).
        out_gbn: bool = 1,
        /// The event's PSN (transmit) or `e` (ACK, NAK); 0 for a flow reset.
        out_psn: u32 = PSN_BITS,
        /// The flow's stage after the event: 0 idle, 1 fast start, 2 stable (0 for a refused flow id).
        out_stage: u8 = 2,
    }
}

/// The RTL's registers, mirrored.
#[derive(Clone, Debug)]
pub struct FastStartMarkerModel {
    flows: Vec<FsFlow>,
    /// The input stages (edges t, t + 1, t + 2).
    stages: [Option<FsInputs>; 3],
    /// The decisions (edge t + 3).
    decided: FsOutputs,
    s1_iw: u32,
    sweep: crate::Sweep,
    out: FsOutputs,
}

impl FastStartMarkerModel {
    /// A table of 2^flow_bits idle flows, at power-up (no sweep pending).
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in 1..=16"
        );
        FastStartMarkerModel {
            flows: vec![FsFlow::default(); 1 << flow_bits],
            stages: [None; 3],
            decided: FsOutputs::default(),
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
        result(&mut self.flows, i, iw)
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &FsInputs) {
        let ready = self.out.in_ready;
        // the decisions of the op in s2 are made at this edge, its result
        // shows one edge later
        let decided = match self.stages[2].take() {
            Some(op) => self.result(&op, self.s1_iw),
            None => FsOutputs::default(),
        };
        let mut out = std::mem::replace(&mut self.decided, decided);
        self.s1_iw = clamp_iw(i.cfg_iw_pkts);
        self.stages.rotate_right(1);
        if i.reset {
            self.stages = [None; 3];
            self.decided = FsOutputs::default();
            // the sweep clears every entry before the next event can read one
            self.flows.iter_mut().for_each(|f| *f = FsFlow::default());
            self.sweep.tick(true, self.flows.len());
            self.out = FsOutputs::default();
            return;
        }
        self.sweep.tick(false, self.flows.len());
        if i.in_valid && ready {
            self.stages[0] = Some(*i);
        }
        out.in_ready = !self.sweep.active();
        self.out = out;
    }
}

/// An event's result, applied to `flows` (the functional rules of
/// [`FsFlow`] and the RTL's output conventions: what a refused id, a flow
/// reset and a non-transmit show), with IW `iw`; both marker models use it.
pub(super) fn result(flows: &mut [FsFlow], i: &FsInputs, iw: u32) -> FsOutputs {
    let mut o = FsOutputs {
        out_valid: true,
        out_kind: i.in_kind & 3,
        out_flow: i.in_flow & 0xffff,
        ..Default::default()
    };
    let Some(f) = flows.get_mut(i.in_flow as usize & 0xffff) else {
        o.out_err = err::FLOW;
        if o.out_kind == kind::TX {
            o.out_ecn = (i.in_word0 & 3) as u8;
            o.out_word0 = i.in_word0;
            o.out_csum = i.in_csum;
            o.out_psn = i.in_psn & PSN_MASK;
        } else if o.out_kind != kind::RESET_FLOW {
            o.out_psn = i.in_psn & PSN_MASK;
        }
        return o;
    };
    match o.out_kind {
        kind::TX => {
            let r = f.tx(i.in_psn, i.in_last, i.in_word0, i.in_csum, iw);
            o.out_err = r.err;
            o.out_ecn = r.ecn;
            o.out_word0 = r.word0;
            o.out_csum = r.csum;
            o.out_psn = i.in_psn & PSN_MASK;
        }
        kind::ACK | kind::NAK => {
            let r = f.ack(i.in_psn, o.out_kind == kind::NAK, iw);
            o.out_err = r.err;
            o.out_set = r.set_cw_pkts.is_some();
            o.out_cw_pkts = r.set_cw_pkts.unwrap_or(0);
            o.out_gbn = r.go_back_n.is_some();
            o.out_psn = i.in_psn & PSN_MASK;
        }
        _ => *f = FsFlow::default(),
    }
    o.out_stage = f.stage as u8;
    o
}

impl FsInputs {
    /// An idle cycle that keeps `last`'s IW (1 without one): what both
    /// marker models drain with.
    pub fn idle_after(last: Option<&FsInputs>) -> FsInputs {
        FsInputs {
            cfg_iw_pkts: last.map_or(1, |i| i.cfg_iw_pkts),
            ..Default::default()
        }
    }
}

impl crate::cosim::CosimModel for FastStartMarkerModel {
    type Input = FsInputs;
    type Output = FsOutputs;

    fn tick(&mut self, i: &FsInputs) {
        FastStartMarkerModel::tick(self, i)
    }

    fn outputs(&self) -> FsOutputs {
        self.out
    }

    /// A reset sweep (one cycle per flow) plus [`LATENCY_CYCLES`] idle
    /// cycles, the last IW kept.
    fn drain(&self, last: Option<&FsInputs>) -> Vec<FsInputs> {
        let idle = FsInputs::idle_after(last);
        vec![idle; self.flows.len() + LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![];
        let stages = self.stages.iter().filter(|s| s.is_some()).count() as u64
            + self.decided.out_valid as u64;
        if stages > 0 {
            v.push(("events in the input stages", stages));
        }
        if self.sweep.active() {
            v.push((
                "reset sweep entries left",
                self.sweep.left(self.flows.len()),
            ));
        }
        v
    }
}

/// The seeded, endless event stream of the CLI's cosimulation and the
/// benchmarks: [`FsStimulus`] from a seed.
pub fn stimulus(seed: u64, flow_bits: u32) -> impl Iterator<Item = FsInputs> + Clone {
    crate::seeded(FsStimulus::new(flow_bits), seed ^ 0x6a09_e667_f3bc_c908)
}

/// The event stream generator: phases with a few or many flows whose PSNs
/// start near the 2^24 wrap or anywhere, mostly in-sequence transmits
/// (short and long messages), cumulative ACKs within and beyond the window,
/// NAKs, retransmissions, flow resets, ids beyond the table, non-IPv4
/// headers, odd IW values (0, 1, 4095), idle cycles and a rare block reset.
#[derive(Clone, Debug)]
pub struct FsStimulus {
    n: usize,
    // the generator's own view of each flow: first and next PSN
    base: Vec<u32>,
    next: Vec<u32>,
    left: u32,
    phase: (u64, u64, u32, u64),
}

impl FsStimulus {
    /// A generator for a table of 2^flow_bits flows.
    pub fn new(flow_bits: u32) -> Self {
        let n = 1usize << flow_bits;
        FsStimulus {
            n,
            base: vec![0; n],
            next: vec![0; n],
            left: 0,
            phase: (1, 0, 16, 0),
        }
    }
}

impl crate::Stimulus for FsStimulus {
    type Input = FsInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> FsInputs {
        let n = self.n;
        let (base, next) = (&mut self.base, &mut self.next);
        let mut r = || d.next_u64();
        let a = r();
        let b = r();
        if self.left == 0 {
            let flows = [1u64, 2, 5, n as u64][(r() % 4) as usize];
            let first = r() % n as u64;
            let iw = [0u32, 1, 2, 7, 40, COUNT_MAX, (r() % 4096) as u32][(r() % 7) as usize];
            let idle = [0u64, 0, 20, 70][(r() % 4) as usize];
            self.phase = (flows, first, iw, idle);
            self.left = 200 + (r() % 3000) as u32;
        }
        self.left -= 1;
        let (flows, first, iw, idle) = self.phase;
        let f = ((first + (a >> 8) % flows) % n as u64) as usize;
        let mut i = FsInputs {
            reset: a % 25_000 == 0,
            in_valid: (a >> 20) % 100 >= idle,
            in_flow: f as u32,
            in_word0: 0x4500 | (b as u16 & 0xff),
            in_csum: (b >> 8) as u16,
            cfg_iw_pkts: iw,
            ..Default::default()
        };
        let sent = next[f].wrapping_sub(base[f]) & PSN_MASK;
        match (a >> 28) % 100 {
            0..=54 => {
                i.in_kind = kind::TX;
                i.in_psn = next[f];
                i.in_last = (b >> 24) % 16 == 0;
                next[f] = (next[f] + 1) & PSN_MASK;
            }
            55..=59 => {
                i.in_kind = kind::TX; // retransmission or out of window
                i.in_psn = (base[f] + (b >> 24) as u32 % (sent + 3)) & PSN_MASK;
            }
            60..=84 => {
                i.in_kind = kind::ACK;
                i.in_psn = (base[f] + (b >> 24) as u32 % (sent + 2)) & PSN_MASK;
            }
            85..=89 => {
                i.in_kind = kind::NAK;
                i.in_psn = (base[f] + (b >> 24) as u32 % (sent + 2)) & PSN_MASK;
            }
            90..=92 => {
                i.in_kind = kind::RESET_FLOW;
                base[f] = match (b >> 40) % 3 {
                    0 => PSN_MASK - (b >> 44) as u32 % 64, // near the wrap
                    _ => (b >> 40) as u32 & PSN_MASK,
                };
                next[f] = base[f];
            }
            93..=94 => {
                i.in_kind = (b >> 50) as u8 & 3;
                i.in_flow = n as u32 + (b >> 32) as u32 % (0x10000 - n as u32).max(1);
                i.in_psn = (b >> 8) as u32 & PSN_MASK;
            }
            95..=96 => {
                i.in_kind = kind::TX;
                i.in_psn = next[f];
                i.in_word0 = b as u16; // mostly not IPv4
            }
            _ => {
                i.in_kind = (b >> 50) as u8 & 3;
                i.in_psn = (b >> 8) as u32 & PSN_MASK; // anywhere
            }
        }
        i.in_flow &= 0xffff;
        i
    }
}
