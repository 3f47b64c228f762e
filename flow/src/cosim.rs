//! `ldcp cosim`: a block's Verilog against its golden model, every output
//! every cycle, over the block's seeded stimulus, then its drain, then the
//! check that nothing is left in flight.

use crate::FlowError;
use ldcp_sim::cosim::{Cosim, CosimFailure, CosimModel};
use serde::Serialize;
use std::time::Instant;

/// How a cosimulation run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every output matched on every cycle, and the drain left nothing in
    /// flight.
    Match,
    /// An output differed: the run stopped at that cycle.
    Mismatch,
    /// Everything matched, but the model still held events after the drain.
    NotDrained,
}

/// A cosimulation run's figures (`ldcp cosim --json`), all measured by it.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct CosimReport {
    /// Block.
    pub block: String,
    /// Stimulus seed.
    pub seed: u64,
    /// How the run ended.
    pub outcome: Outcome,
    /// Cycles compared, the drain's included (up to and including the
    /// mismatching cycle when there is one: the run stops there).
    pub cycles: u64,
    /// Cycles of the seeded stimulus asked for.
    pub stimulus_cycles: u64,
    /// Of the compared cycles, the drain's idle ones.
    pub drain_cycles: u64,
    /// The first mismatching cycle (0 = after the first rising edge).
    pub first_mismatch_cycle: Option<u64>,
    /// The failure in full: the cycle, the last inputs, both outputs and
    /// the VCD; or what was left in flight.
    pub failure: Option<String>,
    /// Wall time, s.
    pub seconds: f64,
    /// Lock-step cycles per second (RTL, model and compare).
    pub cycles_per_second: f64,
}

impl CosimReport {
    /// Whether the run passed.
    pub fn passed(&self) -> bool {
        self.outcome == Outcome::Match
    }
}

/// Verilates `verilog`'s module `name` against model `M` (cached).
pub fn verilated<M: CosimModel>(verilog: &str, name: &str) -> Result<Cosim<M>, FlowError> {
    Cosim::new(verilog, name).map_err(|e| FlowError::Tool(e.to_string()))
}

/// Runs `cycles` cycles of `stimulus()` from power-up in lock step, then
/// the model's drain, and reports.
pub fn run<M, I, F>(
    name: &str,
    cosim: &Cosim<M>,
    model: M,
    stimulus: F,
    cycles: u64,
    seed: u64,
) -> Result<CosimReport, FlowError>
where
    M: CosimModel,
    I: Iterator<Item = M::Input>,
    F: Fn() -> I,
{
    let t = Instant::now();
    let res = cosim.run_iter(
        model,
        || stimulus().take(cycles as usize),
        &format!("seed-{seed}"),
    );
    let seconds = t.elapsed().as_secs_f64();
    let (outcome, compared, drain, first, failure) = match res {
        Ok((st, _)) => (Outcome::Match, st.cycles, st.drain_cycles, None, None),
        Err(CosimFailure::Mismatch(m)) => (
            Outcome::Mismatch,
            m.cycle + 1,
            (m.cycle + 1).saturating_sub(cycles),
            Some(m.cycle),
            Some(m.to_string()),
        ),
        Err(CosimFailure::NotDrained(d)) => (
            Outcome::NotDrained,
            d.cycles,
            d.drain_cycles,
            None,
            Some(d.to_string()),
        ),
        Err(CosimFailure::Error(e)) => return Err(FlowError::Tool(e.to_string())),
    };
    Ok(CosimReport {
        block: name.to_string(),
        seed,
        outcome,
        cycles: compared,
        stimulus_cycles: cycles,
        drain_cycles: drain,
        first_mismatch_cycle: first,
        failure,
        seconds,
        cycles_per_second: compared as f64 / seconds.max(1e-9),
    })
}
