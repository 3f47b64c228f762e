//! `ldcp`: the LDCP hardware flow. Generates, lints, cosimulates,
//! synthesizes and benchmarks the RustHDL blocks; `ldcp run` does all of it
//! for every block and prints a one-screen summary.

use clap::{Args, Parser, Subcommand};
use ldcp_flow::cosim::CosimReport;
use ldcp_flow::synth::{self, SynthOptions, SynthReport};
use ldcp_flow::FlowError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ldcp",
    version,
    about = "The LDCP SmartNIC hardware flow: Verilog, cosimulation, synthesis, benchmarks",
    long_about = "The LDCP SmartNIC hardware flow.\n\n\
        Every block is a RustHDL module with a bit-accurate golden model. `ldcp` writes its \
        Verilog (unique module name, clean under `verilator --lint-only -Wall`), cosimulates \
        it cycle by cycle against the model with Verilator, synthesizes it for the iCE40 with \
        yosys and nextpnr, and measures simulator speeds.\n\n\
        Build products go under target/ldcp (or $LDCP_WORK_DIR). Progress goes to stderr; \
        with --json, stdout holds exactly one JSON object.\n\n\
        Exit status: 0 success, 1 a failure (tool error, mismatch, timing not met), 2 a bad argument."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the blocks.
    Blocks(JsonArg),
    /// Write one Verilog file per block into a folder, and lint each.
    Verilog(VerilogArgs),
    /// Cosimulate a block's Verilog against its golden model, every output every cycle,
    /// then drain it and check that nothing is left in flight.
    Cosim(CosimArgs),
    /// Synthesize a block with yosys and nextpnr; fail if Fmax is below the target.
    Synth(SynthArgs),
    /// Where a block's cells go: yosys synth_ice40 flat, and again with its sub-blocks
    /// kept, giving each sub-block's LUTs, carries, flip-flops and block RAMs.
    Area(AreaArgs),
    /// Measure simulator speeds (Verilator, lock-step cosim, RustHDL, golden models) and
    /// what the block's RTL does at full rate (measured figures, design constants apart).
    Bench(BenchArgs),
    /// The main job: generate, lint, cosimulate and synthesize every block; print a summary.
    Run(RunArgs),
    /// The closed-loop network simulator: LDCP (the golden models, or the RTL with
    /// --engine rtl) against DCTCP and DCQCN on the same networks and workloads.
    Netsim(Box<ldcp_netsim::cli::NetsimArgs>),
    /// Fuzz every parser of outside input: the drafts' codecs (SRv6, RoCEv2 with CNP and
    /// Fast CNP, ARN, draft 002's tag and notification), the UART bridge's frames at the
    /// board, the host's response reader and parameter values, ldcp's arguments and sweep
    /// specs. Mutated valid inputs must be refused with an error or accepted with the
    /// target's properties (a codec round-trips exactly, a refused value writes no
    /// register, ...), never panic. Deterministic from --seed; exit 1 on a finding.
    Fuzz(FuzzArgs),
    /// Prove a block's invariants formally: each property of its harness in formal/ by a
    /// bounded check from reset (the base case) and k-induction (yosys + yosys-smtbmc +
    /// z3, or Yices where the harness asks); the table blocks' harnesses prove a smaller
    /// build (4 or 8 flows, named in the report), the NIC core's harness its event FIFO,
    /// `uart_bridge` the board cores' bridge alone; prints per property proved (both pass), bounded to depth K (the induction
    /// step fails), or failed with a counterexample VCD (the base case fails).
    /// Exit 1 when a property fails.
    Prove(ProveArgs),
}

#[derive(Args)]
struct ProveArgs {
    /// Blocks (repeatable); default: every block with a harness.
    #[arg(long = "block", value_name = "NAME")]
    blocks: Vec<String>,
    /// Induction and bounded-check depth, cycles, 1..=100, for every property (default:
    /// the harness's `// depth <property> K` line for that property, else its `// depth K`
    /// line, else 8).
    #[arg(long)]
    depth: Option<u32>,
    /// Only these properties (repeatable; with one --block): the names `ldcp prove
    /// --block NAME` prints; default: all.
    #[arg(long = "property", value_name = "NAME")]
    properties: Vec<String>,
    /// Where the SMT2 files and counterexample traces go (default: target/ldcp/prove).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct FuzzArgs {
    /// Targets (repeatable): the codecs arn, rocev2, srv6, fast_cnp, coord_tag,
    /// coord_notify; the bridge's bridge_frames, bridge_line; the host's uart_responses,
    /// param_values; ldcp_args, sweep_spec; default: all.
    #[arg(long = "target", value_name = "NAME")]
    targets: Vec<String>,
    /// Inputs per target, 1 ..= 10^11.
    #[arg(long, default_value_t = 1_000_000)]
    inputs: u64,
    /// The seed of the mutations (printed; the same seed repeats the run).
    #[arg(long, default_value_t = 0x5EED_F022)]
    seed: u64,
    /// Also write each target's valid seed encodings into DIR/<target>/ (a corpus
    /// for `cargo +nightly fuzz run codecs DIR/<target>` in fuzz/).
    #[arg(long, value_name = "DIR")]
    corpus_out: Option<PathBuf>,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct JsonArg {
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct VerilogArgs {
    /// Folder for the .v files (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Only these blocks (repeatable); default: all.
    #[arg(long = "block", value_name = "NAME")]
    blocks: Vec<String>,
    /// Skip `verilator --lint-only -Wall` on each file.
    #[arg(long)]
    no_lint: bool,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct CosimArgs {
    /// The block (see `ldcp blocks`).
    #[arg(long, value_name = "NAME")]
    block: String,
    /// Cycles to simulate, 1 ..= 10^10.
    #[arg(long, default_value_t = 1_000_000)]
    cycles: u64,
    /// Seed of the stimulus generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct SynthArgs {
    /// The block (see `ldcp blocks`): synthesize it alone, inputs and outputs registered.
    #[arg(long, value_name = "NAME", required_unless_present = "board")]
    block: Option<String>,
    /// Build a board's bitstream instead: the board core with its clock (a
    /// PLL where the board has one) and pins (alchitry-cu: the NIC core, the
    /// UART bridge, the 100 MHz oscillator without a PLL; alchitry-cu-nic:
    /// the complete NIC (window engine, pacing timer, fast-start marker, ACK
    /// generator, on-chip loopback) and the UART bridge at a 60 MHz PLL
    /// clock; alchitry-cu-switch:
    /// a P node's switch port, WRED/ECN with the Fast CNP trigger and its
    /// queue; alchitry-cu-pe: a PE's, WRED/ECN with tunnel ECN and END.CON;
    /// both with the UART bridge at the 100 MHz oscillator without a PLL;
    /// ulx3s: the whole NIC system on the ECP5, 50 MHz from
    /// the 25 MHz oscillator). Writes the bitstream under <out> only if every
    /// clock meets its constraint.
    #[arg(long, value_name = "BOARD", conflicts_with_all = ["block", "target_mhz", "device"])]
    board: Option<String>,
    /// Target device (with --block).
    #[arg(long, default_value = "ice40-hx8k")]
    device: String,
    /// Clock target in MHz, (0, 1000] (with --block; a board's clock is its own):
    /// the run fails if Fmax is below it. Default 100.
    #[arg(long)]
    target_mhz: Option<f64>,
    /// Most nextpnr placement seeds to try (1 ..= 100); stops at the first that meets the target.
    #[arg(long, default_value_t = 5)]
    seeds: u32,
    /// Try every one of the --seeds seeds even after one meets the target, and keep the fastest (the placement spread, in `seeds_tried`).
    #[arg(long)]
    all_seeds: bool,
    /// Folder for the run's files (default: target/ldcp/synth/<block>-<device>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also write the JSON report to this file (e.g. flow/reports/<block>.<device>.json).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct AreaArgs {
    /// The block (see `ldcp blocks`), as it is: no synthesis harness, no pins.
    #[arg(long, value_name = "NAME")]
    block: String,
    /// Target device: its logic cells and block RAMs are the budget.
    #[arg(long, default_value = "ice40-hx8k")]
    device: String,
    /// Sub-block levels to split out, 1 ..= 8 (1: the block's direct sub-blocks).
    #[arg(long, default_value_t = 2)]
    depth: u32,
    /// Folder for the run's files (default: target/ldcp/area/<block>-<device>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also write the JSON report to this file (e.g. flow/reports/<block>.area.<device>.json).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct BenchArgs {
    /// The block (see `ldcp blocks`).
    #[arg(long, value_name = "NAME")]
    block: String,
    /// Cycles per run for the fast engines, 1,000 ..= 10^9 (RustHDL runs a block's fraction of it, 1/200 or 1/400, reported in its `cycles`; the `measured` full-rate run has its own fixed length, reported as `run.cycles`).
    #[arg(long, default_value_t = 4_000_000)]
    cycles: u64,
    /// Runs per engine, 1 ..= 101; the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Args)]
struct RunArgs {
    /// Only these blocks (repeatable; see `ldcp blocks`); default: every block.
    #[arg(long = "block", value_name = "NAME")]
    blocks: Vec<String>,
    /// Cosimulation cycles per block, 1 ..= 10^10.
    #[arg(long, default_value_t = 1_000_000)]
    cycles: u64,
    /// Seed of the cosimulation stimulus.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Clock target in MHz for the blocks synthesized alone, (0, 1000] (a
    /// board's clock is its own).
    #[arg(long, default_value_t = 100.0)]
    target_mhz: f64,
    /// Skip synthesis (generation, lint and cosimulation only).
    #[arg(long, conflicts_with = "full")]
    no_synth: bool,
    /// Synthesize every block and build every board (about 35 minutes on
    /// 2 cores). Without it and without --block, the run synthesizes one
    /// board, the Alchitry Cu's (`board_core`); every block is still
    /// generated, linted and cosimulated. --block NAME synthesizes the
    /// blocks named.
    #[arg(long)]
    full: bool,
    #[command(flatten)]
    json: JsonArg,
}

/// The board `ldcp run` builds without `--full` or `--block`: the first
/// board, placed in about two minutes.
const QUICK_BOARD: &str = "alchitry-cu";

fn progress(step: &str) {
    eprintln!("[ldcp] {step}");
}

/// A run's JSON report: written into its folder (`run_file`), to `--report`
/// if given, and on stdout with `--json`.
fn emit_report<T: serde::Serialize>(
    r: &T,
    run_file: &Path,
    report: Option<&Path>,
    json: bool,
) -> Result<(), FlowError> {
    let text = serde_json::to_string_pretty(r).expect("serializable") + "\n";
    write_file(run_file, &text)?;
    if let Some(path) = report {
        write_file(path, &text)?;
    }
    if json {
        print!("{text}");
    }
    Ok(())
}

fn print_area(r: &ldcp_flow::area::AreaReport) {
    let c = &r.flat;
    println!(
        "{} on the {}, flat (the design's cells): {} LUT4, {} carries, {} flip-flops, {} block RAMs",
        r.block, r.device, c.luts, c.carries, c.flip_flops, c.brams
    );
    println!(
        "  logic cells needed: at least {} (max of LUT4, flip-flops, carries: one of each per cell) of {}; block RAMs {} of {}: {}",
        r.logic_cells_lower_bound,
        r.device_logic_cells,
        c.brams,
        r.device_bram,
        if r.may_fit {
            "within the device (only a placement shows whether it fits)"
        } else {
            "it cannot fit the device"
        }
    );
    println!(
        "with the sub-blocks kept (to depth {}; each row its own cells, without its kept sub-blocks):",
        r.depth
    );
    println!(
        "  {:<34} {:>7} {:>7} {:>7} {:>5} {:>6}",
        "part", "LUT4", "carry", "FF", "BRAM", "FF %"
    );
    let ff = r.kept_total.flip_flops.max(1) as f64;
    for p in &r.parts {
        let name = if p.path.is_empty() {
            format!("{} (own logic)", r.block)
        } else {
            format!("{}{}", "  ".repeat(p.depth as usize - 1), p.path)
        };
        println!(
            "  {:<34} {:>7} {:>7} {:>7} {:>5} {:>5.1}%",
            name,
            p.cells.luts,
            p.cells.carries,
            p.cells.flip_flops,
            p.cells.brams,
            100.0 * p.cells.flip_flops as f64 / ff
        );
    }
    let k = &r.kept_total;
    println!(
        "  {:<34} {:>7} {:>7} {:>7} {:>5}",
        "total, sub-blocks kept", k.luts, k.carries, k.flip_flops, k.brams
    );
}

fn print_json<T: serde::Serialize>(v: &T) {
    println!("{}", serde_json::to_string_pretty(v).expect("serializable"));
}

fn write_file(path: &Path, text: &str) -> Result<(), FlowError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(path, text).map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))
}

#[derive(serde::Serialize)]
struct VerilogFile {
    block: String,
    module: String,
    file: PathBuf,
    lines: usize,
    lint: &'static str,
}

fn verilog(out: &Path, names: &[String], lint: bool) -> Result<Vec<VerilogFile>, FlowError> {
    let blocks: Vec<&ldcp_flow::Block> = if names.is_empty() {
        ldcp_flow::registry::BLOCKS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| ldcp_flow::block(n))
            .collect::<Result<_, _>>()?
    };
    let mut files = Vec::new();
    for b in blocks {
        let text = b.verilog().map_err(|e| FlowError::Tool(e.to_string()))?;
        let file = out.join(format!("{}.v", b.name()));
        write_file(&file, &text)?;
        if lint {
            progress(&format!("verilator --lint-only -Wall {}", file.display()));
            ldcp_sim::tools::verilator_lint(&file, b.name())?;
        }
        files.push(VerilogFile {
            block: b.name().into(),
            module: b.name().into(),
            file,
            lines: text.lines().count(),
            lint: if lint { "clean" } else { "skipped" },
        });
    }
    Ok(files)
}

fn check_cycles(cycles: u64) -> Result<(), FlowError> {
    if !(1..=10_000_000_000).contains(&cycles) {
        return Err(FlowError::BadArg(format!(
            "--cycles {cycles} is out of range: it must be in [1, 10^10]"
        )));
    }
    Ok(())
}

fn synth_opts(
    block: &str,
    device: &str,
    target_mhz: f64,
    seeds: u32,
    all_seeds: bool,
    out: Option<PathBuf>,
) -> Result<SynthOptions, FlowError> {
    let device = synth::device(device)?;
    let out_dir = out.unwrap_or_else(|| {
        ldcp_sim::work_dir()
            .join("synth")
            .join(format!("{block}-{}", device.name))
    });
    let first_seed = ldcp_flow::block(block)
        .ok()
        .and_then(|b| b.verilog().ok())
        .and_then(|v| synth::committed_seed(block, device.name, &v));
    Ok(SynthOptions {
        block: block.to_string(),
        device,
        target_mhz,
        seeds,
        all_seeds,
        first_seed,
        out_dir,
    })
}

fn print_synth(r: &SynthReport) {
    eprintln!(
        "{}: {} logic cells of {} ({} placed with the {}-cell harness), {} BRAM, Fmax {:.2} MHz at seed {} (target {} MHz: {})",
        r.block,
        r.logic_cells,
        r.logic_cells_total,
        r.logic_cells_placed,
        r.harness_cells,
        r.bram,
        r.fmax_mhz,
        r.seed,
        r.target_mhz,
        if r.timing_met { "met" } else { "NOT met" }
    );
    if let Some(p) = &r.critical_path {
        eprintln!(
            "critical path: {} -> {} ({:.2} ns)",
            p.from, p.to, p.delay_ns
        );
    }
}

fn print_board(r: &ldcp_flow::board::BoardReport) {
    eprintln!(
        "{} ({} {}): {} of {} logic cells, {} flip-flops, {} of {} BRAM, {} of {} DSP, {} PLL, {} flows",
        r.board,
        r.device,
        r.package,
        r.logic_cells,
        r.logic_cells_total,
        r.flip_flops,
        r.bram,
        r.bram_total,
        r.dsp,
        r.dsp_total,
        r.pll_used,
        r.flows
    );
    for c in &r.clocks {
        eprintln!(
            "clock {}: Fmax {:.2} MHz, constraint {:.2} MHz: {}",
            c.net,
            c.achieved_mhz,
            c.constraint_mhz,
            if c.met { "met" } else { "NOT met" }
        );
    }
    if let Some(p) = &r.critical_path {
        eprintln!(
            "critical path: {} -> {} ({:.2} ns)",
            p.from, p.to, p.delay_ns
        );
    }
    eprintln!(
        "tools: yosys {:.1} s, nextpnr {:.1} s ({} seed(s)), {} {:.1} s",
        r.seconds.yosys,
        r.seconds.nextpnr,
        r.seeds_tried.len(),
        r.packer,
        r.seconds.pack
    );
    // the report's path is relative to the work directory: show it whole
    let path = |b: &ldcp_flow::board::Bitstream| ldcp_sim::work_dir().join(&b.file);
    match &r.bitstream {
        Some(b) => eprintln!(
            "bitstream: {} ({} bytes; GIT_HASH {}{}); load it with `{} {}`",
            path(b).display(),
            b.bytes,
            r.git_hash,
            if r.dirty { ", dirty tree" } else { "" },
            match r.family {
                ldcp_flow::board::Family::Ice40 => "iceprog",
                ldcp_flow::board::Family::Ecp5 => "openFPGALoader --board ulx3s",
            },
            path(b).display()
        ),
        None => eprintln!("timing NOT met at the board clock: no bitstream written"),
    }
}

/// A cosimulation's result: on stdout, or on stderr when stdout carries
/// the JSON object (`json`).
fn print_cosim(r: &CosimReport, json: bool) {
    let say = |t: &str| {
        if json {
            eprintln!("{t}")
        } else {
            println!("{t}")
        }
    };
    let what = match r.outcome {
        ldcp_flow::cosim::Outcome::Match => {
            "every output matched, nothing left in flight".to_string()
        }
        ldcp_flow::cosim::Outcome::Mismatch => format!(
            "MISMATCH at cycle {}",
            r.first_mismatch_cycle.unwrap_or_default()
        ),
        ldcp_flow::cosim::Outcome::NotDrained => "NOT DRAINED: events left in flight".to_string(),
    };
    say(&format!(
        "{}: {} cycles compared ({} of the seeded stimulus, {} of drain): {what}; {:.0} cycles/s (seed {})",
        r.block, r.cycles, r.stimulus_cycles, r.drain_cycles, r.cycles_per_second, r.seed
    ));
    if let Some(m) = &r.failure {
        say(m);
    }
}

fn cosim_block(name: &str, cycles: u64, seed: u64) -> Result<CosimReport, FlowError> {
    let b = ldcp_flow::block(name)?;
    let v = b.verilog().map_err(|e| FlowError::Tool(e.to_string()))?;
    b.adapter().cosim(&v, b.name(), cycles, seed)
}

fn run(cli: Cli) -> Result<bool, FlowError> {
    match cli.cmd {
        Cmd::Blocks(a) => {
            let clock = |b: &ldcp_flow::Block| match b.clock {
                ldcp_flow::registry::Clock::Held => match b.board {
                    Some(board) => format!("held to the {board} board's clock"),
                    None => "held to 100 MHz on the HX8K".to_string(),
                },
                ldcp_flow::registry::Clock::Reported(why) => {
                    format!("reported, not held: {why}")
                }
            };
            let list: Vec<_> = ldcp_flow::registry::BLOCKS
                .iter()
                .map(|b| {
                    serde_json::json!({"block": b.name(), "doc": b.doc(), "fpga": b.fpga,
                        "board": b.board, "clock": clock(b)})
                })
                .collect();
            if a.json {
                print_json(&serde_json::json!({ "blocks": list }));
            } else {
                // the names in one column, the text wrapped to 100
                let w = ldcp_flow::registry::names()
                    .iter()
                    .map(|n| n.len())
                    .max()
                    .unwrap_or(0);
                for b in ldcp_flow::registry::BLOCKS {
                    let text = format!("{} Clock: {}.", b.doc(), clock(b));
                    for (i, l) in wrap(&text, 100 - w - 1).iter().enumerate() {
                        let name = if i == 0 { b.name() } else { "" };
                        println!("{name:<w$} {l}");
                    }
                }
            }
            Ok(true)
        }
        Cmd::Verilog(a) => {
            let files = verilog(&a.out, &a.blocks, !a.no_lint)?;
            if a.json.json {
                print_json(&serde_json::json!({ "out": a.out, "files": files }));
            } else {
                for f in &files {
                    println!(
                        "{} ({} lines, module {}, lint {})",
                        f.file.display(),
                        f.lines,
                        f.module,
                        f.lint
                    );
                }
            }
            Ok(true)
        }
        Cmd::Cosim(a) => {
            check_cycles(a.cycles)?;
            ldcp_flow::block(&a.block)?;
            progress(&format!(
                "cosimulating {} for {} cycles, seed {}, then the drain",
                a.block, a.cycles, a.seed
            ));
            let r = cosim_block(&a.block, a.cycles, a.seed)?;
            if a.json.json {
                print_json(&r);
            }
            print_cosim(&r, a.json.json);
            Ok(r.passed())
        }
        Cmd::Synth(a) => {
            if let Some(name) = &a.board {
                let b = ldcp_flow::board::board(name)?;
                let opts = ldcp_flow::board::BoardOptions {
                    board: b,
                    seeds: a.seeds,
                    all_seeds: a.all_seeds,
                    first_seed: None,
                    out_dir: a
                        .out
                        .unwrap_or_else(|| ldcp_sim::work_dir().join("board").join(b.name)),
                    build: ldcp_hdl::nic_core::BuildId::current(),
                };
                let r = ldcp_flow::board::build(&opts, &mut |s| progress(s))?;
                emit_report(
                    &r,
                    &opts.out_dir.join("report.json"),
                    a.report.as_deref(),
                    a.json.json,
                )?;
                print_board(&r);
                return Ok(r.timing_met);
            }
            let block = a.block.unwrap_or_default();
            let opts = synth_opts(
                &block,
                &a.device,
                a.target_mhz.unwrap_or(100.0),
                a.seeds,
                a.all_seeds,
                a.out,
            )?;
            let opts = SynthOptions {
                first_seed: None,
                ..opts
            };
            ldcp_flow::block(&block)?;
            let r = synth::synthesize(&opts, &mut |s| progress(s))?;
            emit_report(
                &r,
                &opts.out_dir.join("report.json"),
                a.report.as_deref(),
                a.json.json,
            )?;
            print_synth(&r);
            Ok(r.timing_met)
        }
        Cmd::Area(a) => {
            let opts = ldcp_flow::area::AreaOptions {
                device: synth::device(&a.device)?,
                out_dir: a.out.unwrap_or_else(|| {
                    ldcp_sim::work_dir()
                        .join("area")
                        .join(format!("{}-{}", a.block, a.device))
                }),
                block: a.block,
                depth: a.depth,
            };
            let r = ldcp_flow::area::measure(&opts, &mut |s| progress(s))?;
            emit_report(
                &r,
                &opts.out_dir.join("area.json"),
                a.report.as_deref(),
                a.json.json,
            )?;
            if !a.json.json {
                print_area(&r);
            }
            Ok(true)
        }
        Cmd::Bench(a) => {
            if !(1_000..=1_000_000_000).contains(&a.cycles) {
                return Err(FlowError::BadArg(format!(
                    "--cycles {} is out of range: it must be in [1000, 10^9]",
                    a.cycles
                )));
            }
            if !(1..=101).contains(&a.runs) {
                return Err(FlowError::BadArg(format!(
                    "--runs {} is out of range: it must be in [1, 101]",
                    a.runs
                )));
            }
            let b = ldcp_flow::block(&a.block)?;
            let v = b.verilog().map_err(|e| FlowError::Tool(e.to_string()))?;
            let r = b
                .adapter()
                .bench(&v, b.name(), a.cycles, a.runs, &mut |s| progress(s))?;
            if a.json.json {
                print_json(&r);
            } else {
                println!(
                    "{:<18} {:>12} {:>12} {:>16}",
                    "engine", "cycles", "median s", "cycles/s"
                );
                for e in &r.engines {
                    println!(
                        "{:<18} {:>12} {:>12.4} {:>16.0}",
                        e.engine, e.cycles, e.seconds, e.cycles_per_second
                    );
                }
                println!("ratios: {}", serde_json::Value::Object(r.ratios.clone()));
                println!(
                    "full-rate run: {}",
                    serde_json::Value::Object(r.run.clone())
                );
                println!(
                    "measured at full rate: {}",
                    serde_json::Value::Object(r.measured.clone())
                );
                println!(
                    "design constants: {}",
                    serde_json::Value::Object(r.design.clone())
                );
            }
            Ok(true)
        }
        Cmd::Run(a) => run_all(a),
        Cmd::Netsim(a) => ldcp_flow::netsim::main(*a),
        Cmd::Fuzz(a) => fuzz(a),
        Cmd::Prove(a) => prove(a),
    }
}

fn prove(a: ProveArgs) -> Result<bool, FlowError> {
    use ldcp_flow::prove;
    if !a.properties.is_empty() && a.blocks.len() != 1 {
        return Err(FlowError::BadArg(format!(
            "--property names a property of one block: give exactly one --block ({})",
            match a.blocks.len() {
                0 => "none given".to_string(),
                n => format!("given {n}"),
            }
        )));
    }
    let blocks: Vec<String> = if a.blocks.is_empty() {
        prove::HARNESSES
            .iter()
            .map(|h| h.block.to_string())
            .collect()
    } else {
        a.blocks.clone()
    };
    for b in &blocks {
        prove::harness(b)?;
    }
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| ldcp_sim::work_dir().join("prove"));
    // the result on stdout, or on stderr when stdout carries the JSON
    let say = |t: &str| {
        if a.json.json {
            eprintln!("{t}")
        } else {
            println!("{t}")
        }
    };
    let mut reports = Vec::new();
    for b in &blocks {
        let r = prove::prove(b, a.depth, &a.properties, &dir, &mut |m| {
            eprintln!("[ldcp] prove {m}")
        })?;
        for p in &r.properties {
            let what = match p.status.as_str() {
                "proved" => format!(
                    "proved (base case from reset and k-induction, depth {})",
                    p.depth
                ),
                "bounded" => format!(
                    "bounded to depth {} (induction fails: {})",
                    p.depth,
                    p.bounded_why
                        .as_deref()
                        .unwrap_or("it needs a strengthening invariant, not stated")
                ),
                _ => format!(
                    "FAILED: {} (counterexample: {})",
                    p.failed_assert.as_deref().unwrap_or("?"),
                    p.vcd
                        .as_ref()
                        .map_or("-".into(), |v| v.display().to_string())
                ),
            };
            say(&format!(
                "{} {}: {what}, {:.2} s",
                r.block, p.name, p.seconds
            ));
        }
        say(&format!(
            "{}: {} ({}), solver {}, {:.1} s",
            r.block, r.harness, r.build, r.solver, r.seconds
        ));
        reports.push(r);
    }
    let ok = reports.iter().all(|r| r.ok());
    if a.json.json {
        print_json(&serde_json::json!({ "prove": reports, "ok": ok }));
    }
    Ok(ok)
}

/// Every fuzz target: the codecs, the bridge at the board, the host's
/// response reader and parameter values, `ldcp`'s arguments and sweep
/// specs (`ldcpctl`'s arguments are fuzzed by its own tests).
fn fuzz_targets() -> Vec<ldcp_sim::fuzz::Target> {
    let mut t = ldcp_sim::fuzz::codecs::TARGETS.to_vec();
    t.extend(ldcp_sim::fuzz::BRIDGE_TARGETS);
    t.extend(ldcp_host::fuzz::TARGETS);
    t.extend(cli_fuzz::TARGETS);
    t
}

fn fuzz(a: FuzzArgs) -> Result<bool, FlowError> {
    use ldcp_sim::fuzz as f;
    if !(1..=100_000_000_000).contains(&a.inputs) {
        return Err(FlowError::BadArg(format!(
            "--inputs {} is out of range: it must be in [1, 10^11]",
            a.inputs
        )));
    }
    let all = fuzz_targets();
    let names: Vec<&str> = all.iter().map(|t| t.name).collect();
    let targets = if a.targets.is_empty() {
        all.clone()
    } else {
        a.targets
            .iter()
            .map(|n| {
                all.iter().copied().find(|t| t.name == n).ok_or_else(|| {
                    FlowError::BadArg(format!(
                        "--target {n} is not a fuzz target: it must be one of {}",
                        names.join(", ")
                    ))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut reports = Vec::new();
    for t in &targets {
        if let Some(dir) = &a.corpus_out {
            let d = dir.join(t.name);
            std::fs::create_dir_all(&d)
                .map_err(|e| FlowError::Io(format!("{}: {e}", d.display())))?;
            for (i, b) in (t.corpus)().iter().enumerate() {
                let p = d.join(format!("seed-{i}"));
                std::fs::write(&p, b)
                    .map_err(|e| FlowError::Io(format!("{}: {e}", p.display())))?;
            }
        }
        eprintln!(
            "fuzz {}: {} inputs from seed {:#x}",
            t.name, a.inputs, a.seed
        );
        let start = std::time::Instant::now();
        let total = a.inputs;
        let r = f::run(t, a.seed, a.inputs, |n| {
            if n % (1 << 20) == 0 {
                progress(&format!("fuzz {}: {n} of {total} inputs", t.name))
            }
        });
        let secs = start.elapsed().as_secs_f64();
        // the result on stdout, or on stderr when stdout carries the JSON
        let say = |t: &str| {
            if a.json.json {
                eprintln!("{t}")
            } else {
                println!("{t}")
            }
        };
        say(&format!(
            "fuzz {}: {} inputs in {secs:.1} s ({:.0}/s): {} accepted, refused {:?}, {} distinct refusals, {} panics, {} broken properties",
            t.name,
            r.inputs,
            r.inputs as f64 / secs.max(1e-9),
            r.accepted,
            r.refused,
            r.distinct_errors,
            r.panics,
            r.broken
        ));
        if let Some(w) = &r.first_failure {
            say(&format!("fuzz {}: first finding: {w}", t.name));
        }
        reports.push((r, secs));
    }
    let clean = reports.iter().all(|(r, _)| r.clean());
    if a.json.json {
        let list: Vec<_> = reports
            .iter()
            .map(|(r, s)| serde_json::json!({"report": r, "seconds": s}))
            .collect();
        print_json(&serde_json::json!({ "fuzz": list, "clean": clean }));
    }
    Ok(clean)
}

#[derive(serde::Serialize)]
struct Summary {
    block: String,
    verilog: String,
    lint: String,
    cosim: Option<CosimReport>,
    synth: Option<SynthReport>,
    /// A board core's bitstream build, in full (its `synth` is the summary).
    board: Option<ldcp_flow::board::BoardReport>,
    /// Whether a missed clock target fails the run (see `ldcp blocks`).
    timing_held: bool,
    /// What was done to this block: "synthesized", "not synthesized: ...".
    synthesis: String,
    error: Option<String>,
}

fn run_all(a: RunArgs) -> Result<bool, FlowError> {
    check_cycles(a.cycles)?;
    synth::check_target_mhz(a.target_mhz)?;
    let blocks: Vec<&ldcp_flow::Block> = if a.blocks.is_empty() {
        ldcp_flow::registry::BLOCKS.iter().collect()
    } else {
        a.blocks
            .iter()
            .map(|n| ldcp_flow::block(n))
            .collect::<Result<_, _>>()?
    };
    let vdir = ldcp_sim::work_dir().join("verilog");
    let quick = a.blocks.is_empty() && !a.full;
    let mut rows = Vec::new();
    for b in blocks {
        let name = b.name();
        let no_synth = a.no_synth || (quick && b.board != Some(QUICK_BOARD));
        let mut row = Summary {
            block: name.into(),
            verilog: "-".into(),
            lint: "-".into(),
            cosim: None,
            synth: None,
            board: None,
            timing_held: b.timing_held(),
            synthesis: if a.no_synth {
                "skipped (--no-synth)".into()
            } else if no_synth && b.fpga {
                "not synthesized in this run: `ldcp run --full` (or --block NAME) synthesizes it"
                    .into()
            } else if !b.fpga {
                match b.clock {
                    ldcp_flow::registry::Clock::Reported(why) => format!("not synthesized alone: {why}"),
                    _ => "not synthesized: a simulation size, more than the HX8K holds (the ULX3S board carries it)".into(),
                }
            } else {
                "not reached".into()
            },
            error: None,
        };
        let step = (|| -> Result<(), FlowError> {
            progress(&format!("{name}: Verilog and lint"));
            let f = verilog(&vdir, &[name.to_string()], false)?;
            row.verilog = f[0].file.display().to_string();
            ldcp_sim::tools::verilator_lint(&f[0].file, name)?;
            row.lint = "clean".into();
            progress(&format!(
                "{name}: cosimulation, {} cycles, then the drain",
                a.cycles
            ));
            let c = cosim_block(name, a.cycles, a.seed)?;
            let failure = (!c.passed()).then(|| {
                c.failure
                    .clone()
                    .unwrap_or_else(|| "cosimulation failed".into())
            });
            row.cosim = Some(c);
            if let Some(f) = failure {
                return Err(FlowError::Mismatch(f));
            }
            if let (false, Some(board)) = (no_synth, b.board) {
                let bd = ldcp_flow::board::board(board)?;
                // the unstamped build CI places (`ldcp synth --board` stamps
                // the commit, which moves the placement), its committed
                // seed first, then the board's seeds
                let build = ldcp_hdl::nic_core::BuildId::UNSTAMPED;
                let core = ldcp_sim::Fnv64::hex_of(
                    &b.verilog().map_err(|e| FlowError::Tool(e.to_string()))?,
                );
                let opts = ldcp_flow::board::BoardOptions {
                    board: bd,
                    seeds: bd.seeds,
                    all_seeds: false,
                    first_seed: ldcp_flow::board::committed_seed(bd, build, &core),
                    out_dir: ldcp_sim::work_dir().join("board").join(bd.name),
                    build,
                };
                let r = ldcp_flow::board::build(&opts, &mut |s| progress(&format!("{name}: {s}")))?;
                row.synth = Some(r.as_synth_report(name));
                row.synthesis = if r.timing_met {
                    format!("synthesized in its board ({board}), bitstream built")
                } else {
                    format!("synthesized in its board ({board}): timing NOT met, no bitstream")
                };
                row.board = Some(r);
            } else if !no_synth && b.fpga {
                // its committed seed first (synth_opts), then seeds 1-5
                let opts = synth_opts(name, "ice40-hx8k", a.target_mhz, 5, false, None)?;
                row.synth = Some(synth::synthesize(&opts, &mut |s| {
                    progress(&format!("{name}: {s}"))
                })?);
                row.synthesis = "synthesized, placed and routed".into();
            }
            Ok(())
        })();
        if let Err(e) = step {
            row.error = Some(e.to_string());
        }
        rows.push(row);
    }
    let ok = rows.iter().all(|r| {
        r.error.is_none() && (!r.timing_held || r.synth.as_ref().is_none_or(|s| s.timing_met))
    });
    if a.json.json {
        print_json(&serde_json::json!({ "ok": ok, "blocks": rows }));
    } else {
        let scope = if a.no_synth {
            "skipped (--no-synth)".to_string()
        } else if quick {
            format!(
                "one board ({QUICK_BOARD});\n`ldcp run --full` synthesizes every block and board"
            )
        } else {
            "the FPGA blocks (alone, or in their board)".to_string()
        };
        print_summary(&rows, &scope, ok, &vdir);
    }
    Ok(ok)
}

/// `ldcp run`'s table, 100 columns wide: a row per block, then each
/// failure in full under its row.
fn print_summary(rows: &[Summary], scope: &str, ok: bool, vdir: &Path) {
    use ldcp_flow::cosim::Outcome;
    println!();
    println!(
        "LDCP hardware flow: every block generated, linted and cosimulated (stimulus, drain,\n\
         nothing left in flight); synthesis: {scope}"
    );
    let line = |c: [&str; 9]| {
        println!(
            "{:<22} {:<5} {:>8} {:>11} {:>7} {:>9} {:>4} {:>7}  {}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
        )
    };
    line([
        "block", "lint", "cycles", "cosim", "c/s", "cells", "BRAM", "MHz", "timing",
    ]);
    for r in rows {
        let (cyc, res, cps) = r.cosim.as_ref().map_or(("-".into(), "-", "-".into()), |c| {
            let res = match c.outcome {
                Outcome::Match => "match",
                Outcome::Mismatch => "MISMATCH",
                Outcome::NotDrained => "NOT DRAINED",
            };
            (
                c.cycles.to_string(),
                res,
                format!("{:.1e}", c.cycles_per_second),
            )
        });
        let (lc, bram, fmax, timing) = match &r.synth {
            Some(s) => (
                format!("{}/{}", s.logic_cells, s.logic_cells_total),
                s.bram.to_string(),
                format!("{:.2}", s.fmax_mhz),
                format!(
                    "{} (seed {})",
                    match (s.timing_met, r.timing_held) {
                        (true, _) => "met",
                        (false, true) => "MISSED",
                        (false, false) => "missed, not held",
                    },
                    s.seed
                ),
            ),
            None => {
                let why = if r.synthesis.starts_with("skipped") {
                    "skipped"
                } else if r.synthesis.starts_with("not synthesized in this run") {
                    "--full"
                } else if r.synthesis.starts_with("not synthesized") {
                    "sim only"
                } else {
                    "not reached"
                };
                ("-".into(), "-".into(), "-".into(), why.to_string())
            }
        };
        line([
            &r.block, &r.lint, &cyc, res, &cps, &lc, &bram, &fmax, &timing,
        ]);
        if let Some(e) = &r.error {
            for l in e.lines() {
                println!("  {l}");
            }
        }
    }
    println!();
    println!("timing: each target met at the seed shown (blocks alone at --target-mhz, boards at");
    println!("their clock); sim only: a simulation size or synthesized inside its board's row;");
    println!("--full: synthesized by `ldcp run --full`");
    println!("Verilog: {}", vdir.display());
    println!("runs:    {}", ldcp_sim::work_dir().display());
    println!(
        "{}",
        if ok {
            "all blocks pass"
        } else {
            "FAILED: see the errors above"
        }
    );
}

/// `text` in lines of at most `width` characters, broken at spaces (a
/// longer word stands on a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let cur = lines.last_mut().expect("one line");
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
    }
    lines
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                FlowError::BadArg(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
    }
}

/// The fuzz targets of `ldcp` itself: its arguments and the sweep spec
/// files of `ldcp netsim sweep` (the engine and the other targets are
/// `ldcp_sim::fuzz`'s).
mod cli_fuzz {
    use clap::Parser;
    use ldcp_sim::fuzz::{argv_bytes, argv_of, Refusal, Target, Verdict};

    /// `ldcp`'s own targets.
    pub const TARGETS: [Target; 2] = [
        Target {
            name: "ldcp_args",
            corpus: args_corpus,
            fixup: |_| {},
            check: check_args,
        },
        Target {
            name: "sweep_spec",
            corpus: spec_corpus,
            fixup: fix_spec,
            check: check_spec,
        },
    ];

    fn args_corpus() -> Vec<Vec<u8>> {
        [
            &[
                "netsim",
                "--scenario",
                "incast",
                "--cc",
                "dctcp",
                "--seed",
                "7",
            ][..],
            &[
                "netsim",
                "--scenario",
                "coord-collision",
                "--coord",
                "coordinated",
                "--topology",
                "fat-tree",
            ],
            &[
                "netsim",
                "--scenario",
                "wan-fast-cnp",
                "--rate-gbps",
                "100",
                "--buf-kb",
                "4096",
                "--duration-us",
                "2000",
            ],
            &["netsim", "sweep", "spec.jsonl", "--shard", "2/8"],
            &[
                "synth",
                "--block",
                "wred_ecn",
                "--seeds",
                "3",
                "--all-seeds",
                "--target-mhz",
                "100",
            ],
            &[
                "cosim", "--block", "fast_cnp", "--cycles", "20000", "--seed", "4",
            ],
            &[
                "bench", "--block", "nic_core", "--cycles", "1000000", "--runs", "3", "--json",
            ],
            &["prove", "--block", "coord_decision", "--depth", "8"],
            &[
                "fuzz", "--target", "arn", "--inputs", "1000", "--seed", "0x5EED",
            ],
        ]
        .iter()
        .map(|a| argv_bytes(a))
        .collect()
    }

    /// The arguments (NUL-separated, lossy UTF-8) through clap and, for a
    /// network simulator run, through the run's own checks: refused with a
    /// message or accepted, never a panic (clap's own debug assertions on
    /// the command's definition run here too, in a debug build).
    fn check_args(b: &[u8]) -> Verdict {
        let argv = std::iter::once("ldcp".to_string()).chain(argv_of(b));
        let cli = match super::Cli::try_parse_from(argv) {
            Err(e) => {
                let kind = match e.kind() {
                    clap::error::ErrorKind::UnknownArgument => "unknown argument",
                    clap::error::ErrorKind::InvalidValue => "invalid value",
                    clap::error::ErrorKind::ValueValidation => "value validation",
                    clap::error::ErrorKind::InvalidSubcommand => "invalid subcommand",
                    clap::error::ErrorKind::MissingRequiredArgument => "missing argument",
                    clap::error::ErrorKind::DisplayHelp
                    | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                    | clap::error::ErrorKind::DisplayVersion => "help",
                    _ => "other",
                };
                return Ok(Err(Refusal::new(kind, e.to_string())));
            }
            Ok(c) => c,
        };
        if let super::Cmd::Netsim(a) = &cli.cmd {
            if a.cmd.is_none() && !a.run.list {
                let o = ldcp_netsim::cli::options(&a.run)
                    .and_then(|o| ldcp_netsim::scenario::check(&o).map(|()| o));
                if let Err(e) = o {
                    return Ok(Err(Refusal::new("netsim options", e)));
                }
            }
        }
        Ok(Ok(()))
    }

    fn spec_corpus() -> Vec<Vec<u8>> {
        [
            "{\"scenario\": \"incast\", \"cc\": \"dctcp\", \"seed\": 3}\n",
            "# a comment\n{\"scenario\": \"incast\"}\n\n{\"scenario\": \"incast\", \"cc\": \"dcqcn\", \"rate_gbps\": 25}\n",
            "{\"scenario\": \"wan-fast-cnp\", \"wan_delay_us\": 1000, \"tunnel_mode\": \"normal\"}\n",
            "{\"scenario\": \"incast\", \"ldcp_kmin_kb\": 20, \"ldcp_kmax_kb\": 200, \"ldcp_pmax\": 0.2, \"gamma_shift\": 6}\n",
            "{\"scenario\":\"incast\",\"seed\":12}",
            "{\"scenario\":\"incast\",\"buf_kb\":512}",
            "{\"scenario\":\"incast\",\"ack_m\":2}",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect()
    }

    /// Bytes after a line's last `}` become spaces (appended garbage would
    /// make most inputs bad JSON, never reaching the values).
    fn fix_spec(b: &mut [u8]) {
        let mut closed = false;
        for x in b.iter_mut() {
            match *x {
                b'\n' => closed = false,
                b'}' => closed = true,
                _ if closed => *x = b' ',
                _ => {}
            }
        }
    }

    /// A spec file's text (lossy UTF-8): refused with a message naming the
    /// line, or accepted with every run passing the run's checks.
    fn check_spec(b: &[u8]) -> Verdict {
        let text = String::from_utf8_lossy(b);
        let path = std::path::Path::new("spec.jsonl");
        match ldcp_netsim::report::parse_spec(&text, path) {
            Err(e) => {
                let m = e.to_string();
                if !m.contains("spec.jsonl") {
                    return Err(format!("a refusal that names no file: {m}"));
                }
                let kind = if m.contains("no runs") {
                    "empty"
                } else if m.contains("unknown field") {
                    "unknown key"
                } else if m.contains("no \"scenario\"") || m.contains("JSON object") {
                    "shape"
                } else if m.contains("line ") && m.contains("column") {
                    "json"
                } else {
                    "value"
                };
                Ok(Err(Refusal::new(kind, m)))
            }
            Ok(runs) => {
                let lines = text.lines().count();
                for (line, _, o) in &runs {
                    if *line == 0 || *line > lines {
                        return Err(format!("a run from line {line} of {lines}"));
                    }
                    ldcp_netsim::scenario::check(o)
                        .map_err(|e| format!("line {line} accepted but fails its check: {e}"))?;
                }
                Ok(Ok(()))
            }
        }
    }

    #[cfg(test)]
    mod tests {
        /// The bounded run CI makes: fixed seeds (printed), no panic, no
        /// broken property, inputs accepted and refused in two ways or more.
        #[test]
        fn fuzz_ldcps_arguments_and_specs_for_a_bounded_run() {
            for (i, t) in super::TARGETS.iter().enumerate() {
                let seed = 0x5EED_F050 + i as u64;
                // a spec is accepted only if every byte of it is still good
                // JSON of legal options: about 1 input in 1,000 is
                let least = if t.name == "sweep_spec" { 5 } else { 100 };
                ldcp_sim::fuzz::assert_bounded_run(t, seed, 20_000, least);
            }
        }
    }
}
