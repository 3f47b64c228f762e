//! The board build: `ldcp synth --board alchitry-cu` turns the board core
//! (`ldcp_hdl::board`, stamped with the source tree's git hash) and the
//! board's top module (PLL, pins) into a bitstream: yosys `synth_ice40`,
//! nextpnr-ice40 with the board's pin constraints (the oscillator
//! constrained at 100 MHz, nextpnr derives the PLL's 60 MHz), icepack.
//! Every tool's exit code is checked; the build fails, and writes no
//! bitstream, when any clock misses its constraint.

use crate::synth::{self, CellCounts, CriticalPath, Device, SeedResult};
use crate::FlowError;
use ldcp_hdl::board as hw;
use ldcp_hdl::nic_core::BuildId;
use ldcp_sim::tools;
use serde::Serialize;
use std::path::PathBuf;
use std::process::Command;

/// A board the flow can build for.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    /// The `--board` name.
    pub name: &'static str,
    /// Its FPGA.
    pub device: &'static str,
    /// What it is.
    pub doc: &'static str,
}

/// The boards the flow knows.
pub const BOARDS: &[Board] = &[Board {
    name: "alchitry-cu",
    device: "ice40-hx8k",
    doc: "Alchitry Cu: iCE40-HX8K cb132, 100 MHz oscillator, FTDI USB-UART",
}];

/// Looks a board up, or says which exist.
pub fn board(name: &str) -> Result<&'static Board, FlowError> {
    BOARDS.iter().find(|b| b.name == name).ok_or_else(|| {
        FlowError::BadArg(format!(
            "unknown board {name:?}: known boards are {}",
            BOARDS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
        ))
    })
}

/// What to build.
#[derive(Clone, Debug)]
pub struct BoardOptions {
    /// The board.
    pub board: &'static Board,
    /// Most placement seeds to try.
    pub seeds: u32,
    /// Try every seed up to `seeds` and keep the fastest.
    pub all_seeds: bool,
    /// Where the run's files go.
    pub out_dir: PathBuf,
    /// The build the core reports (GIT_HASH, CAPS.DIRTY).
    pub build: BuildId,
}

/// One clock domain's timing.
#[derive(Clone, Debug, Serialize)]
pub struct ClockTiming {
    /// nextpnr's name of the clock net.
    pub net: String,
    /// Fmax reached, MHz.
    pub achieved_mhz: f64,
    /// The constraint, MHz.
    pub constraint_mhz: f64,
    /// achieved >= constraint.
    pub met: bool,
}

/// The bitstream written.
#[derive(Clone, Debug, Serialize)]
pub struct Bitstream {
    /// Where it is.
    pub file: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// FNV-1a of its bytes.
    pub fnv64: String,
}

/// The board build's report.
#[derive(Clone, Debug, Serialize)]
pub struct BoardReport {
    /// Board.
    pub board: String,
    /// Device.
    pub device: String,
    /// Package.
    pub package: String,
    /// Top module.
    pub top: String,
    /// The oscillator, MHz.
    pub oscillator_mhz: f64,
    /// The core clock the PLL makes, MHz (the target).
    pub target_mhz: f64,
    /// SB_PLL40_CORE DIVR, DIVF, DIVQ, FILTER_RANGE.
    pub pll: [u32; 4],
    /// The UART line rate.
    pub baud: u32,
    /// Logic cells placed (the whole design).
    pub logic_cells: u64,
    /// Logic cells on the device.
    pub logic_cells_total: u64,
    /// Block RAMs used.
    pub bram: u64,
    /// Block RAMs on the device.
    pub bram_total: u64,
    /// PLLs used.
    pub pll_used: u64,
    /// Flows in the window engine.
    pub flows: u32,
    /// The core clock's Fmax, MHz (the slowest clock's, if several).
    pub fmax_mhz: f64,
    /// Whether every clock met its constraint.
    pub timing_met: bool,
    /// Every clock.
    pub clocks: Vec<ClockTiming>,
    /// The chosen seed.
    pub seed: u32,
    /// Every seed tried.
    pub seeds_tried: Vec<SeedResult>,
    /// The chosen placement's critical path.
    pub critical_path: Option<CriticalPath>,
    /// yosys' cell counts.
    pub cells: CellCounts,
    /// GIT_HASH the bitstream reports.
    pub git_hash: String,
    /// CAPS.DIRTY the bitstream reports.
    pub dirty: bool,
    /// The bitstream (none when timing failed).
    pub bitstream: Option<Bitstream>,
    /// FNV-1a of the board core's Verilog as built (stamped with the build).
    pub verilog_fnv64: String,
    /// FNV-1a of the board core's Verilog as the block flow generates it
    /// (GIT_HASH 0, dirty): the same design unless the source changed.
    pub block_verilog_fnv64: String,
    /// Tool versions.
    pub yosys: String,
    /// Tool versions.
    pub nextpnr: String,
}

/// Runs the board build; `progress` receives one line per step.
pub fn build(
    opts: &BoardOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<BoardReport, FlowError> {
    if !(1..=100).contains(&opts.seeds) {
        return Err(FlowError::BadArg(format!(
            "--seeds {} is out of range: it must be in [1, 100]",
            opts.seeds
        )));
    }
    let device: &Device = synth::device(opts.board.device)?;
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
    // a bitstream of an earlier run must not outlive a failing one
    let bin = dir.join(format!("{}.bin", hw::TOP));
    if bin.exists() {
        std::fs::remove_file(&bin).map_err(|e| FlowError::Io(format!("{}: {e}", bin.display())))?;
    }
    let core = hw::core_verilog(opts.build).map_err(|e| FlowError::Tool(e.to_string()))?;
    let core_file = dir.join("board_core.v");
    let top_file = dir.join(format!("{}.v", hw::TOP));
    let pcf_file = dir.join(format!("{}.pcf", opts.board.name));
    synth::write(&core_file, &core)?;
    synth::write(&top_file, &hw::top_verilog())?;
    synth::write(&pcf_file, &hw::pcf())?;

    let yosys = synth::first_line(Command::new("yosys").arg("-V"), "yosys -V")?;
    let nextpnr = synth::first_line(
        Command::new("nextpnr-ice40").arg("--version"),
        "nextpnr-ice40 --version",
    )?;
    progress(&format!("yosys synth_ice40 ({})", hw::TOP));
    let netlist = dir.join("design.json");
    let stat = dir.join("stat.txt");
    let script = format!(
        "read_verilog -sv {}; read_verilog -sv {}; synth_ice40 -top {} -json {}; tee -o {} stat",
        core_file.display(),
        top_file.display(),
        hw::TOP,
        netlist.display(),
        stat.display()
    );
    tools::run(
        Command::new("yosys")
            .args(["-q", "-l"])
            .arg(dir.join("yosys.log"))
            .args(["-p", &script]),
        "yosys synth_ice40",
    )?;
    let cells = synth::parse_stat(&std::fs::read_to_string(&stat).unwrap_or_default());

    let placed = synth::place_seeds(
        device,
        &netlist,
        dir,
        opts.seeds,
        opts.all_seeds,
        &["--pcf".into(), pcf_file.display().to_string()],
        &format!(
            "({}): {} MHz oscillator, {} MHz PLL clock",
            device.package,
            hw::OSC_MHZ,
            hw::CLOCK_MHZ
        ),
        &clocks_met,
        progress,
    )?;
    let (seed, p, asc, tried) = (placed.seed, placed.placement, placed.asc, placed.tried);
    let timing_met = clocks_met(&p);
    let clocks: Vec<ClockTiming> = p
        .clocks
        .iter()
        .map(|(net, a, c)| ClockTiming {
            net: net.clone(),
            achieved_mhz: round2(*a),
            constraint_mhz: round2(*c),
            met: a >= c,
        })
        .collect();
    let bitstream = if timing_met {
        progress(&format!("icepack {}", bin.display()));
        tools::run(Command::new("icepack").arg(&asc).arg(&bin), "icepack")?;
        let bytes =
            std::fs::read(&bin).map_err(|e| FlowError::Io(format!("{}: {e}", bin.display())))?;
        if bytes.is_empty() {
            return Err(FlowError::Tool(format!(
                "icepack wrote an empty {}",
                bin.display()
            )));
        }
        Some(Bitstream {
            file: bin,
            bytes: bytes.len() as u64,
            fnv64: ldcp_sim::Fnv64::hex_of_bytes(&bytes),
        })
    } else {
        None
    };
    Ok(BoardReport {
        board: opts.board.name.to_string(),
        device: device.name.to_string(),
        package: device.package.to_string(),
        top: hw::TOP.to_string(),
        oscillator_mhz: hw::OSC_MHZ,
        target_mhz: hw::CLOCK_MHZ,
        pll: [hw::PLL.0, hw::PLL.1, hw::PLL.2, hw::PLL.3],
        baud: hw::BAUD,
        logic_cells: p.lcs,
        logic_cells_total: device.logic_cells,
        bram: p.brams,
        bram_total: device.bram,
        pll_used: p.plls,
        flows: 1 << ldcp_regmap::FLOW_BITS,
        fmax_mhz: round2(p.fmax),
        timing_met,
        clocks,
        seed,
        seeds_tried: tried,
        critical_path: p.critical,
        cells,
        git_hash: format!("{:08x}", opts.build.hash),
        dirty: opts.build.dirty,
        bitstream,
        verilog_fnv64: ldcp_sim::Fnv64::hex_of(&core),
        block_verilog_fnv64: ldcp_sim::Fnv64::hex_of(
            &hw::core_verilog(BuildId {
                hash: 0,
                dirty: true,
            })
            .map_err(|e| FlowError::Tool(e.to_string()))?,
        ),
        yosys,
        nextpnr,
    })
}

impl BoardReport {
    /// The figures in the block flow's report shape (for `ldcp run`'s table).
    pub fn as_synth_report(&self, block: &str) -> synth::SynthReport {
        synth::SynthReport {
            block: block.to_string(),
            device: self.device.clone(),
            package: self.package.clone(),
            logic_cells: self.logic_cells,
            logic_cells_total: self.logic_cells_total,
            logic_cells_placed: self.logic_cells,
            harness_cells: 0,
            bram: self.bram,
            bram_total: self.bram_total,
            fmax_mhz: self.fmax_mhz,
            target_mhz: self.target_mhz,
            timing_met: self.timing_met,
            seed: self.seed,
            seeds_tried: self.seeds_tried.clone(),
            critical_path: self.critical_path.clone(),
            cells: self.cells.clone(),
            yosys: self.yosys.clone(),
            nextpnr: self.nextpnr.clone(),
            verilog_fnv64: self.verilog_fnv64.clone(),
        }
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Whether every clock of a placement met its constraint, and the core
/// clock's constraint is the PLL's frequency (so a constraint nextpnr did
/// not derive, such as its 12 MHz default, never passes for "met").
fn clocks_met(p: &synth::Placement) -> bool {
    !p.clocks.is_empty()
        && p.clocks.iter().all(|(_, a, c)| a >= c && *c > 0.0)
        && p.clocks
            .iter()
            .any(|(_, _, c)| (c - hw::CLOCK_MHZ).abs() < 0.5)
}
