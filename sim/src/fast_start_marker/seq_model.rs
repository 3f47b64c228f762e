//! The cycle-accurate mirror of `FastStartMarkerSeq` (the fast-start
//! marker in the fewest cells, one event at a time; its timing is
//! documented with the RTL, `ldcp_hdl::fast_start_marker_seq`). Each event
//! is applied by the pipelined model's result function, the golden
//! [`FsFlow`] rules, so cosimulation checks the RTL against them directly.

use super::rtl_model::result;
use super::*;

/// Cycles from an event's take to its result, and between two takes (a
/// design constant of the RTL: the read, the differences, the compares,
/// the rules and the write, the checksum's sum, its folds).
pub const SEQ_LATENCY_CYCLES: usize = 7;

/// The step (after the take) whose edge applies the rules and writes.
const RULES_STEP: usize = 3;

/// Counts of what the model did (for tests and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FastStartMarkerSeqStats {
    /// Events taken.
    pub events: u64,
    /// Events offered while busy (not taken; the source holds them).
    pub refused: u64,
    /// Events dropped by a reset.
    pub dropped: u64,
}

/// The RTL's registers and table, mirrored.
#[derive(Clone, Debug)]
pub struct FastStartMarkerSeqModel {
    flows: Vec<FsFlow>,
    /// The event in flight, its step (0..=5 after the take), and its result
    /// once the rules are applied.
    op: Option<(FsInputs, usize, Option<FsOutputs>)>,
    cf_iw: u32,
    sweep: crate::Sweep,
    stats: FastStartMarkerSeqStats,
    out: FsOutputs,
}

impl FastStartMarkerSeqModel {
    /// A table of 2^flow_bits idle flows, at power-up (no sweep pending).
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in 1..=16"
        );
        FastStartMarkerSeqModel {
            flows: vec![FsFlow::default(); 1 << flow_bits],
            op: None,
            cf_iw: 1,
            sweep: crate::Sweep::default(),
            stats: FastStartMarkerSeqStats::default(),
            out: FsOutputs {
                in_ready: true,
                ..Default::default()
            },
        }
    }

    /// A flow's state (the event in flight included once its rules ran).
    pub fn flow(&self, flow: usize) -> Option<&FsFlow> {
        self.flows.get(flow)
    }

    /// The registered outputs.
    pub fn outputs(&self) -> FsOutputs {
        self.out
    }

    /// What the model has done since power-up.
    pub fn stats(&self) -> FastStartMarkerSeqStats {
        self.stats
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &FsInputs) {
        let ready = self.out.in_ready;
        // the last result's fields hold until the next result
        let mut out = FsOutputs {
            out_valid: false,
            ..self.out
        };
        match self.op.take() {
            Some((e, RULES_STEP, None)) if !i.reset => {
                let r = result(&mut self.flows, &e, self.cf_iw);
                self.op = Some((e, RULES_STEP + 1, Some(r)));
            }
            Some((_, s, Some(r))) if s == SEQ_LATENCY_CYCLES - 2 && !i.reset => out = r,
            Some((e, s, r)) if !i.reset => self.op = Some((e, s + 1, r)),
            Some(_) => self.stats.dropped += 1,
            None => {}
        }
        if i.in_valid && !i.reset {
            if ready {
                self.stats.events += 1;
                self.op = Some((*i, 0, None));
            } else {
                self.stats.refused += 1;
            }
        }
        self.cf_iw = clamp_iw(i.cfg_iw_pkts);
        if i.reset {
            // the sweep clears every entry before the next event can read one
            self.flows.iter_mut().for_each(|f| *f = FsFlow::default());
            out = FsOutputs::default();
        }
        self.sweep.tick(i.reset, self.flows.len());
        out.in_ready = !self.sweep.active() && self.op.is_none();
        self.out = out;
    }
}

impl crate::cosim::CosimModel for FastStartMarkerSeqModel {
    type Input = FsInputs;
    type Output = FsOutputs;

    fn tick(&mut self, i: &FsInputs) {
        FastStartMarkerSeqModel::tick(self, i)
    }

    fn outputs(&self) -> FsOutputs {
        self.out
    }

    /// A reset sweep (one cycle per flow) plus the event in flight, the
    /// last IW kept.
    fn drain(&self, last: Option<&FsInputs>) -> Vec<FsInputs> {
        let idle = FsInputs::idle_after(last);
        vec![idle; self.flows.len() + SEQ_LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![];
        if self.op.is_some() {
            v.push(("an event in flight", 1));
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
