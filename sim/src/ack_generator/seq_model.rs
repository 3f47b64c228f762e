//! The cycle-accurate mirror of `AckGeneratorSeq` (the ACK generator in
//! the fewest cells, one op at a time; its timing is documented with the
//! RTL, `ldcp_hdl::ack_generator_seq`). Each op is applied by the golden
//! [`AckFlow`] functions themselves, so cosimulation checks the RTL's
//! rules against them directly.

use super::*;

/// Cycles from an op's take to its first ACK, and between two takes: the
/// read, the compares, the rules and the write (a design constant of the
/// RTL; a split's second ACK follows one cycle later).
pub const SEQ_OP_CYCLES: usize = 4;

/// An op: an event from the port, or a flush the scanner found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Event(AgInputs),
    Flush(usize),
}

/// Counts of what the model did (for tests and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckGeneratorSeqStats {
    /// Events taken from the port.
    pub events: u64,
    /// Flushes the scanner found and took (due or not when applied).
    pub flush_ops: u64,
    /// Flushes that sent an ACK.
    pub flushed: u64,
    /// Cycles the scanner stalled behind a waiting flush.
    pub stalls: u64,
    /// Ops dropped by a reset.
    pub dropped: u64,
}

/// The RTL's registers and tables, mirrored.
#[derive(Clone, Debug)]
pub struct AckGeneratorSeqModel {
    flows: Vec<AckFlow>,
    /// The op in flight, the step it is in (0..=2 after its take), and m
    /// and the timeout as registered in step 1 (its rules use them).
    op: Option<(Op, usize, (u32, u32))>,
    /// A split's second ACK, shown next cycle.
    a2: Option<Ack>,
    cf_m: u32,
    cf_timeout: u32,
    t: u32,
    sweep: crate::Sweep,
    sc_ptr: usize,
    sc_idx: usize,
    sc_v: bool,
    /// The scanner's read register: (pending, held_since).
    sc_q: (u32, u32),
    /// (index, pending != 0, held_since, T).
    h1: Option<(usize, bool, u32, u32)>,
    /// (index, pending != 0, age).
    h2: Option<(usize, bool, u32)>,
    hit: Option<usize>,
    stats: AckGeneratorSeqStats,
    out: AgOutputs,
}

impl AckGeneratorSeqModel {
    /// 2^flow_bits flows expecting PSN 0, at power-up.
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in 1..=16"
        );
        let mut m = AckGeneratorSeqModel {
            flows: vec![AckFlow::default(); 1 << flow_bits],
            op: None,
            a2: None,
            cf_m: 1,
            cf_timeout: 0,
            t: 0,
            sweep: crate::Sweep::default(),
            sc_ptr: 0,
            sc_idx: 0,
            sc_v: false,
            sc_q: (0, 0),
            h1: None,
            h2: None,
            hit: None,
            stats: AckGeneratorSeqStats::default(),
            out: AgOutputs::default(),
        };
        m.out.in_ready = m.ready();
        m
    }

    /// A flow's state (the op in flight not included).
    pub fn flow(&self, flow: usize) -> Option<&AckFlow> {
        self.flows.get(flow)
    }

    /// The outputs.
    pub fn outputs(&self) -> AgOutputs {
        self.out
    }

    /// What the model has done since power-up.
    pub fn stats(&self) -> AckGeneratorSeqStats {
        self.stats
    }

    fn ready(&self) -> bool {
        !self.sweep.active() && self.op.is_none() && self.hit.is_none()
    }

    /// The op's outcome, applied to the table: `t` is T in its rules'
    /// cycle (the stamp of a first held packet; the age was taken two
    /// cycles earlier), `(m, timeout)` the parameters of step 1.
    fn apply(&mut self, op: Op, t: u32, (m, timeout): (u32, u32)) -> AckOut {
        match op {
            Op::Flush(f) => {
                self.stats.flush_ops += 1;
                let t1 = t.wrapping_sub(2) & T_MASK;
                let a = self.flows[f].flush(f as u32, timeout, t1);
                self.stats.flushed += a.is_some() as u64;
                AckOut {
                    first: a,
                    ..Default::default()
                }
            }
            Op::Event(i) => {
                let f = (i.in_flow & 0xffff) as usize;
                if f >= self.flows.len() {
                    return AckOut {
                        err: err::FLOW,
                        ..Default::default()
                    };
                }
                if i.in_open {
                    self.flows[f].open(i.in_psn);
                    AckOut::default()
                } else {
                    let psn = i.in_psn & PSN_MASK;
                    self.flows[f].packet(f as u32, psn, i.in_ce, i.in_last, m, t)
                }
            }
        }
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &AgInputs) {
        let n = self.flows.len();
        let t = self.t;
        let ready = self.ready();
        let busy = self.op.is_some();
        let take_hit = self.hit.is_some() && !busy && !self.sweep.active() && !i.reset;
        let stall = self.hit.is_some() && !take_hit;
        // the scanner's copy is read before this edge's write
        let rd_at = if stall { self.sc_idx } else { self.sc_ptr };
        let rd = (self.flows[rd_at].pending, self.flows[rd_at].held_since);

        // ---- the op in flight: its rules at step 2 (nothing in a reset
        // cycle); the last ACK's fields hold until the next
        let mut out = AgOutputs {
            out_valid: false,
            stat_err: 0,
            ..self.out
        };
        let shown_a2 = self.a2.take();
        match self.op {
            Some((op, 2, cfg)) => {
                self.op = None;
                if i.reset {
                    self.stats.dropped += 1;
                } else {
                    let d = self.apply(op, t, cfg);
                    out.stat_err = d.err;
                    if let Some(a) = d.first {
                        show(&mut out, a);
                    }
                    self.a2 = d.second;
                }
            }
            Some((op, s, cfg)) => {
                let cfg = if s == 1 {
                    (self.cf_m, self.cf_timeout)
                } else {
                    cfg
                };
                self.op = Some((op, s + 1, cfg));
            }
            None => {}
        }
        if let Some(a) = shown_a2 {
            show(&mut out, a);
        }
        if self.sweep.active() && !i.reset {
            self.flows[self.sweep.ptr()] = AckFlow::default();
        }

        // ---- the take: a flush found by the scanner, else the input
        if take_hit {
            self.op = Some((Op::Flush(self.hit.take().unwrap_or_default()), 0, (1, 0)));
        } else if i.in_valid && ready && !i.reset {
            self.stats.events += 1;
            self.op = Some((Op::Event(*i), 0, (1, 0)));
        }

        // ---- the scanner (stalled while a hit waits)
        if stall {
            self.stats.stalls += 1;
        } else {
            self.hit = self
                .h2
                .and_then(|(f, nz, age)| (nz && age >= self.cf_timeout).then_some(f));
            self.h2 = self
                .h1
                .map(|(f, nz, since, th)| (f, nz, th.wrapping_sub(since) & T_MASK));
            let (pend, since) = self.sc_q;
            self.h1 = self.sc_v.then_some((self.sc_idx, pend != 0, since, t));
            self.sc_idx = self.sc_ptr;
            self.sc_ptr = (self.sc_ptr + 1) % n;
            self.sc_v = !self.sweep.active();
        }
        self.sc_q = rd;

        // ---- registers
        self.cf_m = clamp_m(i.cfg_m_pkts);
        self.cf_timeout = i.cfg_timeout_cycles & ((1 << TIMEOUT_BITS) - 1);
        self.t = (t + 1) & T_MASK;
        self.sweep.tick(i.reset, n);
        if i.reset {
            if self.op.take().is_some() {
                self.stats.dropped += 1;
            }
            self.a2 = None;
            self.t = 0;
            self.sc_ptr = 0;
            self.sc_v = false;
            self.h1 = None;
            self.h2 = None;
            self.hit = None;
            out = AgOutputs::default();
        }
        self.out = out;
        self.out.in_ready = self.ready();
    }
}

fn show(out: &mut AgOutputs, a: Ack) {
    out.out_valid = true;
    out.out_flow = a.flow;
    out.out_psn = a.psn;
    out.out_ece = a.ece;
    out.out_n_pkts = a.n;
    out.out_nak = a.nak;
}

impl crate::cosim::CosimModel for AckGeneratorSeqModel {
    type Input = AgInputs;
    type Output = AgOutputs;

    fn tick(&mut self, i: &AgInputs) {
        AckGeneratorSeqModel::tick(self, i)
    }

    fn outputs(&self) -> AgOutputs {
        self.out
    }

    /// Idle cycles, the last m and timeout kept, long enough for a reset
    /// sweep to finish and for the scanner to flush every held ACK: the
    /// timeout, then two laps (one to reach a flow, one for a flow stamped
    /// just after its visit), each lap N cycles plus SEQ_OP_CYCLES per
    /// flush it waits for, plus the op and the scanner's stages.
    fn drain(&self, last: Option<&AgInputs>) -> Vec<AgInputs> {
        let cfg = AgInputs::idle_after(last);
        let timeout = (cfg.cfg_timeout_cycles & ((1 << TIMEOUT_BITS) - 1)) as usize;
        let n = self.flows.len();
        vec![cfg; n + timeout + 2 * n * (1 + SEQ_OP_CYCLES) + 16]
    }

    /// The op in flight, a split's second ACK not yet shown, a flush the
    /// scanner found, a sweep under way, and ACKs held for a delayed ACK.
    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let held = self.flows.iter().filter(|f| f.pending != 0).count() as u64;
        [
            ("an op in flight", self.op.is_some() as u64),
            (
                "a split's second ACK, not yet shown",
                self.a2.is_some() as u64,
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
