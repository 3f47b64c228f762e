//! `ldcp netsim`: the command line (its `main` lives in `ldcp-flow`, which
//! supplies the RTL hardware for `--engine rtl`).

use crate::config::Cc;
use crate::engine::{Hardware, Models};
use crate::scenario::{self, Options, Tuning, SCENARIOS};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Which hardware runs the congestion control and the switch ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The golden models (fast).
    Model,
    /// The window engine and every WRED/ECN port as Verilated RTL.
    Rtl,
    /// The golden models with a window engine that applies every ACK on its
    /// own (no merge window): not the hardware, for comparison.
    PerAck,
}

/// `ldcp netsim`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct NetsimArgs {
    /// A subcommand, or none: one scenario run.
    #[command(subcommand)]
    pub cmd: Option<NetsimCmd>,
    /// The run's options.
    #[command(flatten)]
    pub run: RunArgs,
}

/// One scenario run's options.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// List the scenarios and exit.
    #[arg(long)]
    pub list: bool,
    /// The scenario (see --list).
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,
    /// The congestion control of every host.
    #[arg(long, value_enum, default_value_t = Cc::Ldcp)]
    pub cc: Cc,
    /// Seed of every random stream of the run (printed in the report).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What the run changes from the scenario's defaults.
    #[command(flatten)]
    pub tuning: Tuning,
    /// Golden models or the Verilated RTL in the loop.
    #[arg(long, value_enum, default_value_t = Engine::Model)]
    pub engine: Engine,
    /// Print one JSON object on stdout: a function of the seed and the options (byte-identical on a rerun); the wall time goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// Write the series (queue, cw, FCT per flow) as CSV files into DIR.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
    /// Write SVG plots into DIR.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// `ldcp netsim <subcommand>`.
#[derive(Subcommand, Debug)]
pub enum NetsimCmd {
    /// Regenerate the committed report (docs/netsim/): every scenario with LDCP, DCTCP and DCQCN, plots and figures.
    Report(ReportArgs),
    /// Run one share of a sweep (a JSON-lines spec of runs) and write JSON lines.
    Sweep(SweepArgs),
    /// Join the JSON lines of a sweep's shards into one JSON array, in spec order.
    Merge(MergeArgs),
    /// Simulator speed: events and packets per wall second, the incast's cost at 100/1,000/10,000 senders, and ns-3 side by side.
    Bench(BenchArgs),
}

/// `ldcp netsim report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Output folder.
    #[arg(long, default_value = "docs/netsim")]
    pub out: PathBuf,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `ldcp netsim sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The spec: one JSON object per line, the options of one run ({"scenario": ..., "cc": ..., "seed": ..., ...}).
    pub spec: PathBuf,
    /// This shard, I/N (1-based): runs lines I, I+N, I+2N, ...
    #[arg(long, default_value = "1/1")]
    pub shard: String,
    /// Output file for the JSON lines (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `ldcp netsim merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' JSON-lines files.
    pub files: Vec<PathBuf>,
}

/// `ldcp netsim bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Runs per figure (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    /// Skip the ns-3 comparison (it needs `scripts/ns3_env.sh`); the report says it was skipped.
    #[arg(long)]
    pub no_ns3: bool,
}

/// Builds the options of a run from its arguments.
pub fn options(a: &RunArgs) -> Result<Options, String> {
    let name = a
        .scenario
        .clone()
        .ok_or("--scenario NAME is required (see --list)")?;
    let mut o = Options::new(&name, a.cc, a.seed);
    o.tuning = a.tuning.clone();
    Ok(o)
}

/// The list of scenarios, one per line.
pub fn list() -> String {
    SCENARIOS
        .iter()
        .map(|s| format!("{:<18} {}\n", s.name, s.doc))
        .collect()
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn bar(label: &str) -> indicatif::ProgressBar {
    let b = indicatif::ProgressBar::new(1000);
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:40}] {percent}% of simulated time, {elapsed}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    b.set_prefix(label.to_string());
    b
}

/// Runs one scenario with a progress bar.
pub fn run_one(o: &Options, hw: &mut dyn Hardware) -> Result<scenario::Outcome, String> {
    let b = bar(&format!("{} {}", o.scenario, o.cc.name()));
    let r = scenario::run(o, hw, &mut |f| b.set_position((f * 1000.0) as u64));
    b.finish_and_clear();
    r
}

/// The golden models.
pub fn models() -> Box<dyn Hardware> {
    Box::new(Models)
}
