//! `ldcp netsim`: the command line (its `main` lives in `ldcp-flow`, which
//! supplies the RTL hardware for `--engine rtl`).

use crate::config::Cc;
use crate::engine::{Hardware, Models};
use crate::scenario::{self, Options, SCENARIOS};
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
    /// Host link rate, Gb/s, 10..=400 (default: 100; 10 for dumbbell-10g).
    #[arg(long, value_name = "GBPS")]
    pub rate_gbps: Option<u64>,
    /// Buffer per 100 Gb/s switch port, KiB (x1024 bytes), 64..=16383 (scaled with the port's rate, capped at the block's 16 MiB - 1; default 4096).
    #[arg(long, value_name = "KB")]
    pub buf_kb: Option<u32>,
    /// Simulated time before the drain, us, 10..=10^7 (default per scenario).
    #[arg(long, value_name = "US")]
    pub duration_us: Option<u64>,
    /// FCT scenarios' network: leaf-spine (default, CI-sized) or fat-tree (HPCC's 320 hosts).
    #[arg(long, value_name = "KIND")]
    pub topology: Option<String>,
    /// LDCP's gamma = 2^-SHIFT, 1..=8 (default 4, 1/16; 8, 1/256, in the incast scenarios).
    #[arg(long, value_name = "SHIFT")]
    pub gamma_shift: Option<u8>,
    /// The receiver's delayed-ACK count m, 1..=15 (default 1: an ACK per packet).
    #[arg(long, value_name = "M")]
    pub ack_m: Option<u32>,
    /// LDCP's switch: start of the marking ramp K_min on a 100 Gb/s port, KB (x1000 bytes), 0..=16383 (default 5).
    #[arg(long, value_name = "KB")]
    pub ldcp_kmin_kb: Option<u32>,
    /// LDCP's switch: end of the ramp K_max on a 100 Gb/s port, KB, 0..=16383, at least K_min (default 50).
    #[arg(long, value_name = "KB")]
    pub ldcp_kmax_kb: Option<u32>,
    /// LDCP's switch: Eq. 3's K (fast-start packets dropped from here) on a 100 Gb/s port, KB, 0..=16383 (default 20).
    #[arg(long, value_name = "KB")]
    pub ldcp_k_kb: Option<u32>,
    /// LDCP's switch: P_max, 0..=1 (default 1).
    #[arg(long, value_name = "P")]
    pub ldcp_pmax: Option<f64>,
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
    o.rate_gbps = a.rate_gbps;
    o.buf_kb = a.buf_kb;
    o.duration_us = a.duration_us;
    o.topology = a.topology.clone();
    o.gamma_shift = a.gamma_shift;
    o.ack_m = a.ack_m;
    o.ldcp_kmin_kb = a.ldcp_kmin_kb;
    o.ldcp_kmax_kb = a.ldcp_kmax_kb;
    o.ldcp_k_kb = a.ldcp_k_kb;
    o.ldcp_pmax = a.ldcp_pmax;
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
