//! The Verilator cosimulation harness: every block's generated Verilog runs
//! in lock-step with its golden model, and every output is compared every
//! cycle.
//!
//! # Why this route
//! The crates `verilated` 0.1.x / `verilator` 0.1.x expect Verilator 4's
//! file layout and do not build against Verilator 5. `marlin` needs
//! Verilator >= 5.025, while the project pins Debian bookworm's 5.006 (one
//! `apt-get install`, a stable version string). So the harness does what
//! those crates do, in ~300 lines it owns: it writes a small C++ shim for
//! the block's ports, runs `verilator --cc --build`, links the result into a
//! shared library and loads it with `libloading`. One FFI call moves all
//! inputs and outputs of one cycle (`ldcp_cosim_step`), or of many cycles
//! (`ldcp_cosim_run`, used by the benchmarks).
//!
//! Libraries are cached under `work_dir()/cosim/<module>-<hash>/`, keyed by
//! the Verilog, the port lists, the flags and the Verilator version, so a
//! test run verilates each block once. A second, traced build is made only
//! when a mismatch needs a VCD.

mod build;
mod ports;

pub use build::{verilator_version, BuildSpec, Instance, VerilatedLib};
pub use ports::{parse_ports, PortSpec};

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

/// Errors of the harness itself (not mismatches).
#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    /// A tool the harness needs is missing or failed.
    #[error("{0}")]
    Tool(String),
    /// The model adapter and the Verilog disagree on ports.
    #[error("port mismatch between the model adapter and module `{module}`: {detail}")]
    Ports {
        /// The Verilog module.
        module: String,
        /// What disagrees.
        detail: String,
    },
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// An input value that does not fit its port.
    #[error("input {port} = {value:#x} does not fit its {width} bits (cycle {cycle})")]
    InputRange {
        /// The port.
        port: String,
        /// The value.
        value: u64,
        /// The port width.
        width: u32,
        /// The cycle.
        cycle: u64,
    },
}

/// A golden model that can be cosimulated: its inputs and outputs map, port
/// for port, onto the Verilog module's.
pub trait CosimModel {
    /// One cycle of inputs.
    type Input: Clone + std::fmt::Debug;
    /// Verilog input port names (the clock excluded), in `encode` order.
    fn input_names() -> &'static [&'static str];
    /// Verilog output port names, in `outputs` order.
    fn output_names() -> &'static [&'static str];
    /// The port values of one cycle of inputs.
    fn encode(input: &Self::Input, ports: &mut [u64]);
    /// One rising clock edge.
    fn tick(&mut self, input: &Self::Input);
    /// The outputs after the last edge.
    fn outputs(&self, ports: &mut [u64]);
}

/// What a clean run measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CosimStats {
    /// Cycles simulated and compared.
    pub cycles: u64,
    /// Output ports compared each cycle.
    pub outputs_compared: usize,
}

/// A cycle where the RTL and the model disagree.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// The module.
    pub module: String,
    /// Which run (test case, seed).
    pub label: String,
    /// The cycle (0 = after the first rising edge).
    pub cycle: u64,
    /// The last inputs, oldest first, ending with this cycle's.
    pub recent_inputs: Vec<(u64, String)>,
    /// `(port, model, rtl)` for every output port.
    pub outputs: Vec<(String, u64, u64)>,
    /// The VCD of the RTL up to this cycle, if it could be written.
    pub vcd: Result<PathBuf, String>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "cosim mismatch in `{}` ({}) at cycle {}",
            self.module, self.label, self.cycle
        )?;
        writeln!(f, "recent inputs:")?;
        for (c, i) in &self.recent_inputs {
            writeln!(f, "  cycle {c}: {i}")?;
        }
        writeln!(f, "outputs (port: model / rtl):")?;
        for (p, m, r) in &self.outputs {
            let flag = if m != r { "   <-- differs" } else { "" };
            writeln!(f, "  {p}: {m:#x} / {r:#x}{flag}")?;
        }
        match &self.vcd {
            Ok(p) => write!(f, "VCD of the RTL: {}", p.display()),
            Err(e) => write!(f, "no VCD: {e}"),
        }
    }
}

/// Why a cosimulation run failed.
#[derive(Debug)]
pub enum CosimFailure {
    /// The harness could not run.
    Error(CosimError),
    /// The RTL and the model disagree.
    Mismatch(Box<Mismatch>),
}

impl std::fmt::Display for CosimFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CosimFailure::Error(e) => write!(f, "{e}"),
            CosimFailure::Mismatch(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for CosimFailure {}

impl From<CosimError> for CosimFailure {
    fn from(e: CosimError) -> Self {
        CosimFailure::Error(e)
    }
}

/// How many past cycles of inputs a mismatch report shows.
pub const RECENT_INPUTS: usize = 8;

/// A block ready to cosimulate against model `M`: its verilated library,
/// with the adapter's ports checked against the Verilog.
pub struct Cosim<M: CosimModel> {
    lib: Arc<VerilatedLib>,
    spec: BuildSpec,
    _model: std::marker::PhantomData<fn() -> M>,
}

impl<M: CosimModel> Cosim<M> {
    /// Verilates (or reuses the cached library of) `verilog`'s module
    /// `module`, after checking that the adapter drives every input and
    /// reads existing outputs.
    pub fn new(verilog: &str, module: &str) -> Result<Self, CosimError> {
        let spec = BuildSpec::new(verilog, module, M::input_names(), M::output_names(), false)?;
        let lib = VerilatedLib::build(&spec)?;
        Ok(Cosim {
            lib,
            spec,
            _model: std::marker::PhantomData,
        })
    }

    /// The verilated library (for benchmarks).
    pub fn lib(&self) -> &Arc<VerilatedLib> {
        &self.lib
    }

    /// Runs `model` and the RTL over `stimulus` from power-up, comparing
    /// every output after every edge. `label` names the run in a report.
    pub fn run(
        &self,
        model: M,
        stimulus: &[M::Input],
        label: &str,
    ) -> Result<CosimStats, CosimFailure> {
        self.run_iter(model, || stimulus.iter().cloned(), label)
    }

    /// Like [`Cosim::run`] for a stimulus too long to hold: `stimulus()`
    /// must yield the same sequence each time it is called; it is called a
    /// second time only after a mismatch, to replay it into a VCD.
    pub fn run_iter<I, F>(
        &self,
        model: M,
        stimulus: F,
        label: &str,
    ) -> Result<CosimStats, CosimFailure>
    where
        I: Iterator<Item = M::Input>,
        F: Fn() -> I,
    {
        self.run_observed(model, stimulus, label, &mut |_| {})
    }

    /// Like [`Cosim::run_iter`], and `observe` sees every cycle's outputs
    /// once they have been compared: a test measures what its stream
    /// reached (marks, drops, updates) from the run itself.
    pub fn run_observed<I, F>(
        &self,
        mut model: M,
        stimulus: F,
        label: &str,
        observe: &mut dyn FnMut(&[u64]),
    ) -> Result<CosimStats, CosimFailure>
    where
        I: Iterator<Item = M::Input>,
        F: Fn() -> I,
    {
        let ni = M::input_names().len();
        let no = M::output_names().len();
        let mut inst = self.lib.instance();
        let mut inp = vec![0u64; ni];
        let mut want = vec![0u64; no];
        let mut got = vec![0u64; no];
        let mut recent: std::collections::VecDeque<(u64, M::Input)> =
            std::collections::VecDeque::new();
        let mut cycles = 0u64;
        for s in stimulus() {
            M::encode(&s, &mut inp);
            self.check_ranges(&inp, cycles)?;
            inst.step(&inp, &mut got);
            model.tick(&s);
            model.outputs(&mut want);
            if recent.len() == RECENT_INPUTS {
                recent.pop_front();
            }
            recent.push_back((cycles, s));
            if want != got {
                let outputs = M::output_names()
                    .iter()
                    .zip(want.iter().zip(&got))
                    .map(|(n, (w, g))| (n.to_string(), *w, *g))
                    .collect();
                let vcd = self.write_vcd(stimulus().take(cycles as usize + 1), label);
                return Err(CosimFailure::Mismatch(Box::new(Mismatch {
                    module: self.spec.module().to_string(),
                    label: label.to_string(),
                    cycle: cycles,
                    recent_inputs: recent.iter().map(|(c, i)| (*c, format!("{i:?}"))).collect(),
                    outputs,
                    vcd,
                })));
            }
            observe(&got);
            cycles += 1;
        }
        Ok(CosimStats {
            cycles,
            outputs_compared: no,
        })
    }

    fn check_ranges(&self, inp: &[u64], cycle: u64) -> Result<(), CosimError> {
        for (v, p) in inp.iter().zip(self.lib.inputs()) {
            if p.width < 64 && *v >> p.width != 0 {
                return Err(CosimError::InputRange {
                    port: p.name.clone(),
                    value: *v,
                    width: p.width,
                    cycle,
                });
            }
        }
        Ok(())
    }

    /// Replays `stimulus` on a traced build and writes its VCD under
    /// `work_dir()/vcd/`.
    fn write_vcd(
        &self,
        stimulus: impl Iterator<Item = M::Input>,
        label: &str,
    ) -> Result<PathBuf, String> {
        let traced = self.spec.traced().map_err(|e| e.to_string())?;
        let lib = VerilatedLib::build(&traced).map_err(|e| e.to_string())?;
        let dir = crate::work_dir().join("vcd");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut safe = String::new();
        for c in label.chars() {
            let _ = write!(
                safe,
                "{}",
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            );
        }
        let path = dir.join(format!("{}-{}.vcd", self.spec.module(), safe));
        let mut inst = lib.instance();
        inst.trace_to(&path)?;
        let mut inp = vec![0u64; M::input_names().len()];
        let mut out = vec![0u64; M::output_names().len()];
        for s in stimulus {
            M::encode(&s, &mut inp);
            inst.step(&inp, &mut out);
        }
        drop(inst); // flushes and closes the VCD
        Ok(path)
    }
}
