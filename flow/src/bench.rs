//! `ldcp bench`: the speed of each engine that runs a block (Verilator
//! alone, lock-step cosimulation, RustHDL's own simulator, the golden
//! models), and what the block's RTL does at full rate
//! ([`crate::throughput`]).
//!
//! Every engine runs the same pre-generated stimulus (repeated to the
//! requested length), so the figures compare simulators, not stimulus
//! generators. Timings are the median of `runs` runs on this machine;
//! ratios are taken within one invocation, which is what survives a noisy
//! shared machine.

use crate::FlowError;
use ldcp_sim::cosim::{Cosim, CosimModel};
use ldcp_sim::ports::Ports;
use serde::Serialize;
use std::time::Instant;

/// One engine's speed.
#[derive(Clone, Debug, Serialize)]
pub struct EngineResult {
    /// `verilator`, `cosim`, `rusthdl`, `model` or `model-functional`.
    pub engine: String,
    /// What the engine is.
    pub what: String,
    /// Cycles (or, for a functional model, operations) per run.
    pub cycles: u64,
    /// Median seconds per run.
    pub seconds: f64,
    /// cycles / median seconds.
    pub cycles_per_second: f64,
    /// Each run's cycles per second.
    pub runs_cycles_per_second: Vec<f64>,
}

/// Figures of a block measured by a run of its RTL, what the run offered
/// it, and the design constants they are read against, kept apart.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Figures {
    /// What the run offered the block, set by the run (its length, its
    /// drain, the events presented): the denominators, not measurements.
    pub run: serde_json::Map<String, serde_json::Value>,
    /// Measured by this run: what the RTL accepted at its ports, emitted,
    /// counted, and what conservation found.
    pub measured: serde_json::Map<String, serde_json::Value>,
    /// Properties of the design, not measured (a latency, the absence of a
    /// ready signal, a bound): stated so the measured figures can be read
    /// against them.
    pub design: serde_json::Map<String, serde_json::Value>,
}

impl Figures {
    /// The figures of a run of `cycles` stimulus cycles and `drain` of drain.
    pub fn ran(cycles: u64, drain: u64) -> Self {
        let mut f = Figures::default();
        f.run("cycles", cycles).run("drain_cycles", drain);
        f
    }

    /// Adds a figure of what the run offered.
    pub fn run(&mut self, key: &str, v: impl Into<serde_json::Value>) -> &mut Self {
        self.run.insert(key.into(), v.into());
        self
    }

    /// Adds a measured figure.
    pub fn measured(&mut self, key: &str, v: impl Into<serde_json::Value>) -> &mut Self {
        self.measured.insert(key.into(), v.into());
        self
    }

    /// Adds a design constant.
    pub fn design(&mut self, key: &str, v: impl Into<serde_json::Value>) -> &mut Self {
        self.design.insert(key.into(), v.into());
        self
    }
}

/// `ldcp bench --json`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Block.
    pub block: String,
    /// Runs per engine.
    pub runs: usize,
    /// Each engine's speed.
    pub engines: Vec<EngineResult>,
    /// Speed ratios between the engines, within this invocation.
    pub ratios: serde_json::Map<String, serde_json::Value>,
    /// The full-rate run: what it offered the block.
    pub run: serde_json::Map<String, serde_json::Value>,
    /// The block at full rate on its RTL: measured figures.
    pub measured: serde_json::Map<String, serde_json::Value>,
    /// The design constants those figures are read against.
    pub design: serde_json::Map<String, serde_json::Value>,
}

/// Times `runs` runs of `f` (which simulates `cycles` cycles).
pub fn measure(
    engine: &str,
    what: &str,
    cycles: u64,
    runs: usize,
    mut f: impl FnMut(),
) -> EngineResult {
    let mut secs: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    let runs_cps = secs.iter().map(|s| cycles as f64 / s.max(1e-9)).collect();
    secs.sort_by(|a, b| a.total_cmp(b));
    let median = secs[secs.len() / 2];
    EngineResult {
        engine: engine.to_string(),
        what: what.to_string(),
        cycles,
        seconds: median,
        cycles_per_second: cycles as f64 / median.max(1e-9),
        runs_cycles_per_second: runs_cps,
    }
}

/// The engines every block has: Verilator alone (batched, inputs encoded
/// beforehand), lock-step cosimulation against the cycle model, and the
/// cycle model alone.
pub fn bench_verilated<M: CosimModel + Clone>(
    cosim: &Cosim<M>,
    model: &M,
    stim: &[M::Input],
    cycles: u64,
    runs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<EngineResult>, FlowError> {
    let ni = M::Input::PORTS.len();
    let no = M::Output::PORTS.len();
    let mut encoded = vec![0u64; stim.len() * ni];
    for (row, s) in encoded.chunks_mut(ni).zip(stim) {
        s.to_ports(row);
    }
    progress("verilator (batched, one FFI call per stimulus chunk)");
    let mut outs = vec![0u64; stim.len() * no];
    let verilator = measure(
        "verilator",
        "Verilator 5 model alone, inputs pre-encoded",
        cycles,
        runs,
        || {
            let mut inst = cosim.lib().instance();
            let mut left = cycles as usize;
            while left > 0 {
                let n = left.min(stim.len());
                inst.run(n, &encoded[..n * ni], &mut outs[..n * no]);
                left -= n;
            }
            std::hint::black_box(&outs);
        },
    );
    progress("cosim (Verilator + cycle model + compare, one FFI call per cycle)");
    let cs = cycles.min(20_000_000);
    // a run is the stimulus and then the model's drain after its last input
    let drain = model
        .drain(stim.iter().cycle().take(cs as usize).last())
        .len() as u64;
    let mut failure = None;
    let lockstep = measure(
        "cosim",
        "lock-step: Verilator, cycle-accurate model, every output compared, then the drain",
        cs + drain,
        runs,
        || {
            if let Err(e) = cosim.run_iter(
                model.clone(),
                || stim.iter().cloned().cycle().take(cs as usize),
                "bench",
            ) {
                failure = Some(e.to_string());
            }
        },
    );
    if let Some(f) = failure {
        return Err(FlowError::Mismatch(f));
    }
    progress("model (cycle-accurate golden model)");
    let model_only = measure(
        "model",
        "the RTL's registers mirrored in Rust",
        cycles,
        runs,
        || {
            let mut m = model.clone();
            for s in stim.iter().cycle().take(cycles as usize) {
                m.tick(s);
            }
            std::hint::black_box(m.outputs());
        },
    );
    Ok(vec![verilator, lockstep, model_only])
}

/// One cycle of RustHDL's simulation: false if it did not settle.
pub type Stepper<I> = Box<dyn FnMut(&I) -> bool>;

/// RustHDL's own simulator, stepped by hand over `cycles` cycles of `stim`
/// (building the block is part of each timed run).
pub fn bench_rusthdl<I>(
    name: &str,
    stim: &[I],
    cycles: u64,
    runs: usize,
    progress: &mut dyn FnMut(&str),
    new_stepper: impl Fn() -> Stepper<I>,
) -> Result<EngineResult, FlowError> {
    progress("rusthdl (RustHDL's simulator, stepped by hand)");
    let mut settled = true;
    let r = measure(
        "rusthdl",
        "RustHDL 0.46 simulation stepped by hand (update_all until settled)",
        cycles,
        runs,
        || {
            let mut step = new_stepper();
            for s in stim.iter().cycle().take(cycles as usize) {
                settled &= std::hint::black_box(step(s));
            }
        },
    );
    if settled {
        Ok(r)
    } else {
        Err(FlowError::Tool(format!(
            "RustHDL's simulation of {name} did not settle"
        )))
    }
}

/// The speed ratios between the engines a block has.
pub fn ratios(engines: &[EngineResult]) -> serde_json::Map<String, serde_json::Value> {
    let speed = |e: &str| {
        engines
            .iter()
            .find(|r| r.engine == e)
            .map(|r| r.cycles_per_second)
            .unwrap_or(f64::NAN)
    };
    let mut out = serde_json::Map::new();
    for (key, a, b) in [
        ("verilator_over_rusthdl", "verilator", "rusthdl"),
        ("model_over_verilator", "model", "verilator"),
        (
            "model_functional_over_verilator",
            "model-functional",
            "verilator",
        ),
        ("verilator_over_cosim", "verilator", "cosim"),
    ] {
        let r = speed(a) / speed(b);
        if r.is_finite() {
            out.insert(key.into(), r.into());
        }
    }
    out
}
