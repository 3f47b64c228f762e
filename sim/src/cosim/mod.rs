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
pub mod rams;

pub use build::{verilator_version, BuildSpec, Instance, VerilatedLib};
pub use ports::{parse_ports, PortSpec};

use crate::ports::Ports;

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
    #[error("port mismatch between the model's declaration and module `{module}`: {detail}")]
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

/// A golden model that can be cosimulated: its input and output structs
/// are the Verilog module's ports, declared once with
/// [`ports!`](crate::ports!).
pub trait CosimModel {
    /// One cycle of inputs, port for port.
    type Input: Ports + Clone + std::fmt::Debug;
    /// The registered outputs, port for port.
    type Output: Ports + Clone + std::fmt::Debug;
    /// One rising clock edge.
    fn tick(&mut self, input: &Self::Input);
    /// The outputs after the last edge.
    fn outputs(&self) -> Self::Output;
    /// The inputs that end every cosimulated stream: idle cycles, at least
    /// the block's latency (and whatever stops its own sources, such as the
    /// NIC core's generator), after which nothing may be in flight. `last`
    /// is the stream's last input (`None` for an empty stream): the drain
    /// keeps its parameters. Called on the model as the stream ends (its
    /// size, such as its number of flows, may set the drain's length).
    fn drain(&self, last: Option<&Self::Input>) -> Vec<Self::Input>;
    /// What the model still holds in flight, by place, non-zero counts
    /// only: events in a pipeline, a FIFO, a merge window, a sweep under
    /// way, a frame half received. Empty after [`CosimModel::drain`]; the
    /// harness checks that it is, as every Corundum testbench ends by
    /// checking its sinks are empty.
    fn in_flight(&self) -> Vec<(&'static str, u64)>;
}

/// What a clean run measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CosimStats {
    /// Cycles simulated and compared, the drain included.
    pub cycles: u64,
    /// Of those, the idle cycles of the drain that ended the run.
    pub drain_cycles: u64,
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

/// A run whose stream and drain matched, but whose model still held
/// something in flight at the end: the drain was too short, or the block
/// loses or strands events.
#[derive(Debug, Clone)]
pub struct NotDrained {
    /// The module.
    pub module: String,
    /// Which run.
    pub label: String,
    /// Cycles compared, the drain included.
    pub cycles: u64,
    /// Idle cycles of the drain.
    pub drain_cycles: u64,
    /// What was still in flight, by place.
    pub in_flight: Vec<(&'static str, u64)>,
    /// The VCD of the RTL's last [`NOT_DRAINED_VCD_CYCLES`] cycles, if it
    /// could be written.
    pub vcd: Result<PathBuf, String>,
}

/// Cycles at the end of a run that did not drain written to its VCD.
pub const NOT_DRAINED_VCD_CYCLES: u64 = 20_000;

impl std::fmt::Display for NotDrained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` ({}) still has events in flight after {} cycles, the last {} of them idle: ",
            self.module, self.label, self.cycles, self.drain_cycles
        )?;
        let parts: Vec<String> = self
            .in_flight
            .iter()
            .map(|(w, n)| format!("{w}: {n}"))
            .collect();
        write!(f, "{}", parts.join(", "))?;
        match &self.vcd {
            Ok(p) => write!(f, "; VCD of the last cycles: {}", p.display()),
            Err(e) => write!(f, "; no VCD: {e}"),
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
    /// Everything matched, but the model did not end empty.
    NotDrained(Box<NotDrained>),
}

impl std::fmt::Display for CosimFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CosimFailure::Error(e) => write!(f, "{e}"),
            CosimFailure::Mismatch(m) => write!(f, "{m}"),
            CosimFailure::NotDrained(d) => write!(f, "{d}"),
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
/// with the declared ports checked against the Verilog.
pub struct Cosim<M: CosimModel> {
    lib: Arc<VerilatedLib>,
    spec: BuildSpec,
    _model: std::marker::PhantomData<fn() -> M>,
}

impl<M: CosimModel> Cosim<M> {
    /// Verilates (or reuses the cached library of) `verilog`'s module
    /// `module`, after checking that the model's declared ports are the
    /// module's: the same names, directions and widths.
    pub fn new(verilog: &str, module: &str) -> Result<Self, CosimError> {
        let spec = BuildSpec::new(verilog, module, M::Input::PORTS, M::Output::PORTS, false)?;
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

    /// Runs `model` and the RTL over `stimulus` from power-up, then over the
    /// model's drain, comparing every output after every edge, and checks
    /// that nothing is left in flight. `label` names the run in a report.
    pub fn run(
        &self,
        model: M,
        stimulus: &[M::Input],
        label: &str,
    ) -> Result<(CosimStats, M), CosimFailure> {
        self.run_observed(model, || stimulus.iter().cloned(), label, &mut |_, _| {})
    }

    /// Like [`Cosim::run`] for a stimulus too long to hold: `stimulus()`
    /// must yield the same sequence each time it is called; it is called a
    /// second time only after a mismatch, to replay it into a VCD.
    pub fn run_iter<I, F>(
        &self,
        model: M,
        stimulus: F,
        label: &str,
    ) -> Result<(CosimStats, M), CosimFailure>
    where
        I: Iterator<Item = M::Input>,
        F: Fn() -> I,
    {
        self.run_observed(model, stimulus, label, &mut |_, _| {})
    }

    /// Like [`Cosim::run_iter`], and `observe` sees every cycle's inputs and
    /// outputs (typed, by port name) once they have been compared, the
    /// drain's included: a test measures what its stream reached (marks,
    /// drops, merges) from the run itself. Returns the model as the run
    /// left it, so its own counts are of the cycles that were compared.
    pub fn run_observed<I, F>(
        &self,
        mut model: M,
        stimulus: F,
        label: &str,
        observe: &mut dyn FnMut(&M::Input, &M::Output),
    ) -> Result<(CosimStats, M), CosimFailure>
    where
        I: Iterator<Item = M::Input>,
        F: Fn() -> I,
    {
        let ni = M::Input::PORTS.len();
        let no = M::Output::PORTS.len();
        let mut inst = self.lib.instance();
        let mut inp = vec![0u64; ni];
        let mut want = vec![0u64; no];
        let mut got = vec![0u64; no];
        let mut recent: std::collections::VecDeque<(u64, M::Input)> =
            std::collections::VecDeque::new();
        let mut cycles = 0u64;
        let mut last: Option<M::Input> = None;
        let mut drain: Option<std::vec::IntoIter<M::Input>> = None;
        // the drain as it began, for a replay into a VCD
        let mut drain_inputs: Vec<M::Input> = Vec::new();
        let mut drain_cycles = 0u64;
        let mut stream = stimulus();
        loop {
            let s = match drain.as_mut() {
                None => match stream.next() {
                    Some(s) => s,
                    None => {
                        drain_inputs = model.drain(last.as_ref());
                        drain = Some(drain_inputs.clone().into_iter());
                        continue;
                    }
                },
                Some(d) => match d.next() {
                    Some(s) => {
                        drain_cycles += 1;
                        s
                    }
                    None => break,
                },
            };
            s.to_ports(&mut inp);
            self.check_ranges(&inp, cycles)?;
            inst.step(&inp, &mut got);
            model.tick(&s);
            let out = model.outputs();
            out.to_ports(&mut want);
            if recent.len() == RECENT_INPUTS {
                recent.pop_front();
            }
            recent.push_back((cycles, s.clone()));
            if want != got {
                let outputs = M::Output::PORTS
                    .iter()
                    .zip(want.iter().zip(&got))
                    .map(|(p, (w, g))| (p.name.to_string(), *w, *g))
                    .collect();
                // the inputs so far: the stream, then the drain if it began
                let replay = stimulus().chain(drain_inputs.iter().cloned());
                let vcd = self.write_vcd(replay.take(cycles as usize + 1), 0, label);
                return Err(CosimFailure::Mismatch(Box::new(Mismatch {
                    module: self.spec.module().to_string(),
                    label: label.to_string(),
                    cycle: cycles,
                    recent_inputs: recent.iter().map(|(c, i)| (*c, format!("{i:?}"))).collect(),
                    outputs,
                    vcd,
                })));
            }
            observe(&s, &out);
            if drain.is_none() {
                last = Some(s);
            }
            cycles += 1;
        }
        let in_flight = model.in_flight();
        if !in_flight.is_empty() {
            // the run's last cycles into a VCD: what still holds events
            let replay = stimulus().chain(drain_inputs.iter().cloned());
            let from = cycles.saturating_sub(NOT_DRAINED_VCD_CYCLES);
            let vcd = self.write_vcd(replay.take(cycles as usize), from, label);
            return Err(CosimFailure::NotDrained(Box::new(NotDrained {
                module: self.spec.module().to_string(),
                label: label.to_string(),
                cycles,
                drain_cycles,
                in_flight,
                vcd,
            })));
        }
        Ok((
            CosimStats {
                cycles,
                drain_cycles,
                outputs_compared: no,
            },
            model,
        ))
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
    /// Replays `stimulus` on the traced build; the VCD holds the cycles
    /// from `from` on (the ones before run untraced).
    fn write_vcd(
        &self,
        stimulus: impl Iterator<Item = M::Input>,
        from: u64,
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
        let mut inp = vec![0u64; M::Input::PORTS.len()];
        let mut out = vec![0u64; M::Output::PORTS.len()];
        for (c, s) in stimulus.enumerate() {
            if c as u64 == from {
                inst.trace_to(&path)?;
            }
            s.to_ports(&mut inp);
            inst.step(&inp, &mut out);
        }
        drop(inst); // flushes and closes the VCD
        Ok(path)
    }
}
