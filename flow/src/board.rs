//! The board builds: `ldcp synth --board NAME` turns a board core (stamped
//! with the source tree's git hash) and the board's top module (PLL, pins)
//! into a bitstream.
//! - iCE40 (`alchitry-cu`, `alchitry-cu-nic`, `alchitry-cu-switch`,
//!   `alchitry-cu-pe`): yosys `synth_ice40`,
//!   nextpnr-ice40 with the board's PCF (the oscillator constrained at its
//!   frequency, nextpnr derives a PLL's output), icepack; Debian's tools.
//! - ECP5 (`ulx3s`): yosys `synth_ecp5`, nextpnr-ecp5 with the board's LPF
//!   (the oscillator constrained, nextpnr derives the EHXPLLL's output),
//!   ecppack; YoWASP's WebAssembly builds from the project's venv
//!   `.venv-yowasp/` (`scripts/bootstrap.sh`), run with the run folder as
//!   their working directory and relative paths (they see no other files).
//!
//! Every tool's exit code is checked; the build fails, and writes no
//! bitstream, when any clock misses its constraint or the core clock's
//! constraint is not the board's clock.

use crate::synth::{self, CellCounts, CriticalPath, SeedResult, SeedRun};
use crate::FlowError;
use ldcp_hdl::nic_core::BuildId;
use ldcp_sim::tools;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The FPGA family of a board: which tools build it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Lattice iCE40: Debian's yosys, nextpnr-ice40, icepack.
    Ice40,
    /// Lattice ECP5: YoWASP's yosys, nextpnr-ecp5, ecppack.
    Ecp5,
}

/// A board the flow can build for.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    /// The `--board` name.
    pub name: &'static str,
    /// Its FPGA, as the report names it.
    pub device: &'static str,
    /// The FPGA's package.
    pub package: &'static str,
    /// The family (the tools).
    pub family: Family,
    /// nextpnr's device flag (`--hx8k`, `--85k`).
    pub nextpnr_device: &'static str,
    /// What it is.
    pub doc: &'static str,
    /// The board core's block (`ldcp blocks`), which is the core module's name.
    pub core: &'static str,
    /// The top module's name.
    pub top: &'static str,
    /// The oscillator, MHz.
    pub oscillator_mhz: f64,
    /// The core clock, MHz (the PLL's output, or the oscillator).
    pub clock_mhz: f64,
    /// The UART line rate.
    pub baud: u32,
    /// Clocks per UART bit.
    pub baud_div: u32,
    /// Flows in the window engine (0: the board has none).
    pub flows: u32,
    /// The bitstream's size in bytes when the family's is fixed.
    pub bitstream_bytes: Option<u64>,
    /// Options added to yosys' synthesis command (`synth_ice40`,
    /// `synth_ecp5`); the report records the command as run.
    pub synth_options: &'static str,
    /// Placement seeds the flow tries by default, in CI and in `ldcp run`
    /// (after [`BoardOptions::first_seed`]), stopping at the first that
    /// meets: the unstamped build meets within them.
    pub seeds: u32,
    core_verilog: fn(BuildId) -> Result<String, ldcp_hdl::verilog::VerilogError>,
    top_verilog: fn() -> String,
    constraints: fn() -> String,
    pll: fn() -> Vec<(&'static str, u32)>,
}

impl Board {
    /// The board core's Verilog, stamped with `build`.
    pub fn core_verilog(&self, build: BuildId) -> Result<String, FlowError> {
        (self.core_verilog)(build).map_err(|e| FlowError::Tool(e.to_string()))
    }

    /// The top module's Verilog.
    pub fn top_verilog(&self) -> String {
        (self.top_verilog)()
    }

    /// The pin constraints (PCF for iCE40, LPF for ECP5).
    pub fn constraints(&self) -> String {
        (self.constraints)()
    }

    /// The PLL's settings, by parameter name (empty: no PLL).
    pub fn pll(&self) -> Vec<(&'static str, u32)> {
        (self.pll)()
    }

    fn constraints_file(&self) -> String {
        match self.family {
            Family::Ice40 => format!("{}.pcf", self.name),
            Family::Ecp5 => format!("{}.lpf", self.name),
        }
    }

    fn bitstream_file(&self) -> String {
        match self.family {
            Family::Ice40 => format!("{}.bin", self.top),
            Family::Ecp5 => format!("{}.bit", self.top),
        }
    }
}

/// The placement seed of `board`'s committed report, when that report is
/// of the same build (`build`'s GIT_HASH and DIRTY, and the core's current
/// Verilog `core_verilog_fnv64`): its placement is then reproduced by one
/// run. `None` for a stale report or another build.
pub fn committed_seed(board: &Board, build: BuildId, core_verilog_fnv64: &str) -> Option<u32> {
    let c = synth::committed_report(board.name)?;
    let same = c["block_verilog_fnv64"].as_str()? == core_verilog_fnv64
        && c["git_hash"].as_str()? == format!("{:08x}", build.hash)
        && c["dirty"].as_bool()? == build.dirty;
    same.then(|| c["seed"].as_u64()).flatten().map(|s| s as u32)
}

/// The boards the flow knows.
pub const BOARDS: &[Board] = &[
    Board {
        name: "alchitry-cu",
        device: "ice40-hx8k",
        package: "cb132",
        family: Family::Ice40,
        nextpnr_device: "--hx8k",
        doc: "Alchitry Cu, the NIC: the NIC core (256 flows) and the UART bridge; iCE40-HX8K cb132, the 100 MHz oscillator's clock (no PLL)",
        core: ldcp_hdl::board::MODULE.name,
        top: ldcp_hdl::board::TOP,
        oscillator_mhz: ldcp_hdl::board::OSC_MHZ,
        clock_mhz: ldcp_hdl::board::CLOCK_MHZ,
        baud: ldcp_hdl::board::BAUD,
        baud_div: ldcp_hdl::board::BAUD_DIV,
        flows: 1 << ldcp_hdl::nic_core::FB_ICE40,
        bitstream_bytes: Some(ICE40_HX8K_BIN_BYTES),
        // `-abc2` (ABC's combinational mapping twice): the board core fills
        // the HX8K. With map 1.3's BLOCKS register plain synth_ice40 gave
        // 7,683 logic cells, 3 more than the device has (-abc2: 7,667);
        // after the engine's cw < 1 became a NOR, plain gives 7,655 cells
        // and 66.76 MHz at seed 1, -abc2 7,637 and 80.68 MHz. `-dff` gave
        // 7,633 (before the NOR), but it passes the flip-flops through
        // ABC's sequential script (register merging, retiming), which may
        // drop their power-up values: not used.
        synth_options: "-abc2",
        seeds: 5,
        core_verilog: ldcp_hdl::board::core_verilog,
        top_verilog: ldcp_hdl::board::top_verilog,
        constraints: ldcp_hdl::board::pcf,
        pll: Vec::new,
    },
    Board {
        name: "alchitry-cu-nic",
        device: "ice40-hx8k",
        package: "cb132",
        family: Family::Ice40,
        nextpnr_device: "--hx8k",
        doc: "Alchitry Cu, the complete NIC: the NIC core with the sequential window engine, the pacing timer, fast-start marker and ACK generator, the on-chip loopback (256 flows) and the UART bridge; iCE40-HX8K cb132, 60 MHz PLL clock from the 100 MHz oscillator",
        core: ldcp_hdl::cu_board::MODULE.name,
        top: ldcp_hdl::cu_board::TOP,
        oscillator_mhz: ldcp_hdl::cu_board::OSC_MHZ,
        clock_mhz: ldcp_hdl::cu_board::CLOCK_MHZ,
        baud: ldcp_hdl::cu_board::BAUD,
        baud_div: ldcp_hdl::cu_board::BAUD_DIV,
        flows: 1 << ldcp_hdl::nic_core::FB_ICE40,
        bitstream_bytes: Some(ICE40_HX8K_BIN_BYTES),
        // `-abc9 -abc2`: the board fills 98% of the HX8K; plain
        // synth_ice40 packs it (map 2.1) into 7,699 cells, these options
        // into 7,577 (`ldcp_hdl::cu_board`'s module doc)
        synth_options: "-abc9 -abc2",
        seeds: 3,
        core_verilog: ldcp_hdl::cu_board::core_verilog,
        top_verilog: ldcp_hdl::cu_board::top_verilog,
        constraints: ldcp_hdl::cu_board::pcf,
        pll: cu_nic_pll,
    },
    Board {
        name: "alchitry-cu-switch",
        device: "ice40-hx8k",
        package: "cb132",
        family: Family::Ice40,
        nextpnr_device: "--hx8k",
        doc: "a second Alchitry Cu as a switch port of a P node: the WRED/ECN port with the Fast CNP trigger behind it (draft 001) and its descriptor queue, the packet staging, their registers and the UART bridge; iCE40-HX8K cb132, the 100 MHz oscillator's clock (no PLL)",
        core: ldcp_hdl::switch_board::MODULE.name,
        top: ldcp_hdl::switch_board::TOP,
        oscillator_mhz: ldcp_hdl::switch_board::OSC_MHZ,
        clock_mhz: ldcp_hdl::switch_board::CLOCK_MHZ,
        baud: ldcp_hdl::switch_board::BAUD,
        baud_div: ldcp_hdl::switch_board::BAUD_DIV,
        flows: 0,
        bitstream_bytes: Some(ICE40_HX8K_BIN_BYTES),
        synth_options: "",
        seeds: 8,
        core_verilog: ldcp_hdl::switch_board::core_verilog,
        top_verilog: ldcp_hdl::switch_board::top_verilog,
        constraints: ldcp_hdl::switch_board::pcf,
        pll: Vec::new,
    },
    Board {
        name: "alchitry-cu-pe",
        device: "ice40-hx8k",
        package: "cb132",
        family: Family::Ice40,
        nextpnr_device: "--hx8k",
        doc: "an Alchitry Cu as a switch port of a PE (draft 001): the WRED/ECN port, tunnel ECN ingress and egress, END.CON, the packet staging, their registers and the UART bridge; iCE40-HX8K cb132, the 100 MHz oscillator's clock (no PLL)",
        core: ldcp_hdl::switch_board::PE_MODULE.name,
        top: ldcp_hdl::switch_board::PE_TOP,
        oscillator_mhz: ldcp_hdl::switch_board::OSC_MHZ,
        clock_mhz: ldcp_hdl::switch_board::CLOCK_MHZ,
        baud: ldcp_hdl::switch_board::BAUD,
        baud_div: ldcp_hdl::switch_board::BAUD_DIV,
        flows: 0,
        bitstream_bytes: Some(ICE40_HX8K_BIN_BYTES),
        synth_options: "",
        seeds: 10,
        core_verilog: ldcp_hdl::switch_board::pe_core_verilog,
        top_verilog: ldcp_hdl::switch_board::pe_top_verilog,
        constraints: ldcp_hdl::switch_board::pe_pcf,
        pll: Vec::new,
    },
    Board {
        name: "ulx3s",
        device: "lfe5u-85f",
        package: "CABGA381",
        family: Family::Ecp5,
        nextpnr_device: "--85k",
        doc: "ULX3S, the whole system: the NIC system (NIC core with 4,096 flows, pacing timer, fast-start marker, ACK generator, WRED/ECN port) and the UART bridge; ECP5 LFE5U-85F CABGA381, 50 MHz PLL clock from the 25 MHz oscillator",
        core: ldcp_hdl::system_board::MODULE.name,
        top: ldcp_hdl::system_board::TOP,
        oscillator_mhz: ldcp_hdl::system_board::OSC_MHZ,
        clock_mhz: ldcp_hdl::system_board::CLOCK_MHZ,
        baud: ldcp_hdl::system_board::BAUD,
        baud_div: ldcp_hdl::system_board::BAUD_DIV,
        flows: 1 << ldcp_hdl::system_board::FLOW_BITS,
        bitstream_bytes: None,
        synth_options: "",
        seeds: 3,
        core_verilog: ldcp_hdl::system_board::core_verilog,
        top_verilog: ldcp_hdl::system_board::top_verilog,
        constraints: ldcp_hdl::system_board::lpf,
        pll: ulx3s_pll,
    },
    Board {
        name: "ulx3s-switch",
        device: "lfe5u-85f",
        package: "CABGA381",
        family: Family::Ecp5,
        nextpnr_device: "--85k",
        doc: "ULX3S as a switch port with every block: the WRED/ECN port, the Fast CNP trigger and its queue, tunnel ECN ingress and egress, END.CON, the staging and the UART bridge (more than one HX8K holds); ECP5 LFE5U-85F CABGA381, 50 MHz PLL clock from the 25 MHz oscillator",
        core: ldcp_hdl::switch_board::FULL_MODULE.name,
        top: ldcp_hdl::switch_board::ULX3S_TOP,
        oscillator_mhz: ldcp_hdl::system_board::OSC_MHZ,
        clock_mhz: ldcp_hdl::system_board::CLOCK_MHZ,
        baud: ldcp_hdl::system_board::BAUD,
        baud_div: ldcp_hdl::system_board::BAUD_DIV,
        flows: 0,
        bitstream_bytes: None,
        synth_options: "",
        seeds: 3,
        core_verilog: ldcp_hdl::switch_board::full_core_verilog,
        top_verilog: ldcp_hdl::switch_board::ulx3s_top_verilog,
        constraints: ldcp_hdl::switch_board::ulx3s_lpf,
        pll: ulx3s_pll,
    },
];

/// The Cu NIC's SB_PLL40_CORE parameters (60 MHz from the 100 MHz
/// oscillator).
fn cu_nic_pll() -> Vec<(&'static str, u32)> {
    ldcp_hdl::cu_board::PLL
        .params()
        .iter()
        .map(|&(name, _, v)| (name, v))
        .collect()
}

/// The ULX3S's EHXPLLL parameters (both ULX3S boards: 50 MHz from the
/// 25 MHz oscillator).
fn ulx3s_pll() -> Vec<(&'static str, u32)> {
    let (clki, clkfb, clkop, cphase) = ldcp_hdl::system_board::PLL;
    vec![
        ("CLKI_DIV", clki),
        ("CLKFB_DIV", clkfb),
        ("CLKOP_DIV", clkop),
        ("CLKOP_CPHASE", cphase),
    ]
}

/// An iCE40-HX8K bitstream's size, bytes.
pub const ICE40_HX8K_BIN_BYTES: u64 = 135_100;

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
    /// A seed to try before 1, 2, ... ([`synth::seed_order`]).
    pub first_seed: Option<u32>,
    /// Where the run's files go.
    pub out_dir: PathBuf,
    /// The build the core reports (GIT_HASH, CAPS.DIRTY).
    pub build: BuildId,
}

/// One clock domain's timing.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Bitstream {
    /// Where it is, relative to the work directory (`ldcp_sim::work_dir`)
    /// when it lies under it, so a report names no machine's path.
    pub file: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// FNV-1a of its bytes.
    pub fnv64: String,
}

/// Wall-clock seconds of each tool.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct ToolSeconds {
    /// yosys.
    pub yosys: f64,
    /// nextpnr, every seed tried.
    pub nextpnr: f64,
    /// icepack or ecppack.
    pub pack: f64,
}

/// The board build's report.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct BoardReport {
    /// Board.
    pub board: String,
    /// Device.
    pub device: String,
    /// Package.
    pub package: String,
    /// The FPGA family.
    pub family: Family,
    /// Top module.
    pub top: String,
    /// The board core's module.
    pub core: String,
    /// The oscillator, MHz.
    pub oscillator_mhz: f64,
    /// The core clock the PLL makes (or the oscillator), MHz: the target.
    pub target_mhz: f64,
    /// The PLL's settings by parameter name (EHXPLLL CLKI_DIV, CLKFB_DIV,
    /// CLKOP_DIV, CLKOP_CPHASE; SB_PLL40_CORE DIVR, DIVF, DIVQ,
    /// FILTER_RANGE); empty: no PLL.
    pub pll: BTreeMap<String, u32>,
    /// The UART line rate.
    pub baud: u32,
    /// Clocks per UART bit.
    pub baud_div: u32,
    /// Logic cells placed (iCE40 ICESTORM_LC; ECP5 TRELLIS_COMB, a LUT4
    /// with its carry half).
    pub logic_cells: u64,
    /// Logic cells on the device.
    pub logic_cells_total: u64,
    /// Flip-flops placed (iCE40: in the logic cells; ECP5 TRELLIS_FF).
    pub flip_flops: u64,
    /// Flip-flops on the device (iCE40: one per logic cell).
    pub flip_flops_total: u64,
    /// Block RAMs used (iCE40 4-kbit SB_RAM40_4K; ECP5 18-kbit DP16KD).
    pub bram: u64,
    /// Block RAMs on the device.
    pub bram_total: u64,
    /// Multipliers used (ECP5 MULT18X18D; the HX8K has none).
    pub dsp: u64,
    /// Multipliers on the device.
    pub dsp_total: u64,
    /// PLLs used.
    pub pll_used: u64,
    /// Flows in the window engine (0: none on this board).
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
    /// yosys' synthesis command as run, with the board's options.
    pub synth_command: String,
    /// Tool versions.
    pub nextpnr: String,
    /// The packer.
    pub packer: String,
    /// Wall-clock seconds of each tool (2-core machine, shared).
    pub seconds: ToolSeconds,
}

/// The tools of a family: how to find and run them.
struct Tools {
    yosys: Command,
    nextpnr: &'static str,
    nextpnr_cmd: Box<dyn Fn() -> Command>,
    packer: &'static str,
    pack_cmd: Box<dyn Fn() -> Command>,
    synth: &'static str,
    /// The tools see only the run folder (YoWASP): relative paths.
    local: bool,
}

/// Where the project's YoWASP tools are: `$LDCP_YOWASP_BIN`, or the venv
/// `scripts/bootstrap.sh` makes in the workspace.
pub fn yowasp_bin() -> PathBuf {
    std::env::var_os("LDCP_YOWASP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(".venv-yowasp")
                .join("bin")
        })
}

fn yowasp(tool: &str) -> Result<PathBuf, FlowError> {
    let p = yowasp_bin().join(format!("yowasp-{tool}"));
    if p.is_file() {
        Ok(p)
    } else {
        Err(FlowError::Tool(format!(
            "{} is missing: the ECP5 tools are YoWASP's, installed by scripts/bootstrap.sh into .venv-yowasp/ (or set LDCP_YOWASP_BIN)",
            p.display()
        )))
    }
}

fn tools_of(family: Family, dir: &Path) -> Result<Tools, FlowError> {
    Ok(match family {
        Family::Ice40 => Tools {
            yosys: Command::new("yosys"),
            nextpnr: "nextpnr-ice40",
            nextpnr_cmd: Box::new(|| Command::new("nextpnr-ice40")),
            packer: "icepack",
            pack_cmd: Box::new(|| Command::new("icepack")),
            synth: "synth_ice40",
            local: false,
        },
        Family::Ecp5 => {
            let (y, n, p) = (
                yowasp("yosys")?,
                yowasp("nextpnr-ecp5")?,
                yowasp("ecppack")?,
            );
            let here = |tool: PathBuf| {
                let dir = dir.to_path_buf();
                Box::new(move || {
                    let mut c = Command::new(&tool);
                    c.current_dir(&dir);
                    c
                }) as Box<dyn Fn() -> Command>
            };
            let mut yosys = Command::new(y);
            yosys.current_dir(dir);
            Tools {
                yosys,
                nextpnr: "nextpnr-ecp5",
                nextpnr_cmd: here(n),
                packer: "ecppack",
                pack_cmd: here(p),
                synth: "synth_ecp5",
                local: true,
            }
        }
    })
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
    let b = opts.board;
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
    let dir = &dir
        .canonicalize()
        .map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
    let mut t = tools_of(b.family, dir)?;
    let local = t.local;
    // a path as the tools see it: relative to the run folder for YoWASP
    let rel = |name: &str| -> String {
        if local {
            name.to_string()
        } else {
            dir.join(name).display().to_string()
        }
    };
    // a bitstream of an earlier run must not outlive a failing one
    let bin = dir.join(b.bitstream_file());
    if bin.exists() {
        std::fs::remove_file(&bin).map_err(|e| FlowError::Io(format!("{}: {e}", bin.display())))?;
    }
    let core = b.core_verilog(opts.build)?;
    let core_name = format!("{}.v", b.core);
    let top_name = format!("{}.v", b.top);
    let cons_name = b.constraints_file();
    synth::write(&dir.join(&core_name), &core)?;
    synth::write(&dir.join(&top_name), &b.top_verilog())?;
    synth::write(&dir.join(&cons_name), &b.constraints())?;

    let yosys = synth::first_line(Command::new(t.yosys.get_program()).arg("-V"), "yosys -V")?;
    let nextpnr = nextpnr_version(&t)?;
    progress(&format!("yosys {} ({})", t.synth, b.top));
    let t0 = Instant::now();
    let synth_command = format!("{} {}", t.synth, b.synth_options)
        .trim()
        .to_string();
    let script = format!(
        "read_verilog -sv {}; read_verilog -sv {}; {} -top {} -json {}; tee -o {} stat",
        rel(&core_name),
        rel(&top_name),
        synth_command,
        b.top,
        rel("design.json"),
        rel("stat.txt"),
    );
    tools::run(
        t.yosys.args(["-q", "-l", &rel("yosys.log"), "-p", &script]),
        &format!("yosys {}", t.synth),
    )?;
    let yosys_s = t0.elapsed().as_secs_f64();
    let stat = std::fs::read_to_string(dir.join("stat.txt"))
        .map_err(|e| FlowError::Tool(format!("yosys wrote no statistics: {e}")))?;
    let cells = synth::parse_stat(&stat);

    let t1 = Instant::now();
    let run = |seed: u32| seed_run(b, &t, dir, &rel, seed);
    let what = if b.pll().is_empty() {
        format!(
            "({} {}): {} MHz oscillator, no PLL",
            b.device, b.package, b.oscillator_mhz
        )
    } else {
        format!(
            "({} {}): {} MHz oscillator, {} MHz PLL clock",
            b.device, b.package, b.oscillator_mhz, b.clock_mhz
        )
    };
    let met = |p: &synth::Placement| clocks_met(p, b.clock_mhz);
    let order = synth::seed_order(opts.first_seed, opts.seeds);
    let placed = synth::place_seed_runs(&order, opts.all_seeds, &what, &met, progress, &run)?;
    let nextpnr_s = t1.elapsed().as_secs_f64();
    let (seed, p, routed, tried) = (placed.seed, placed.placement, placed.asc, placed.tried);
    let timing_met = clocks_met(&p, b.clock_mhz);
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
    let t2 = Instant::now();
    let bitstream = if timing_met {
        progress(&format!("{} {}", t.packer, bin.display()));
        Some(pack(b, &t, &routed, &bin, &rel)?)
    } else {
        None
    };
    let pack_s = t2.elapsed().as_secs_f64();
    let [lc_bel, ff_bel, ram_bel, dsp_bel, pll_bel] = bels(b.family);
    // the unstamped core's hash, which the committed reports key on (the
    // core already is that Verilog when the build is unstamped)
    let block_verilog_fnv64 = if opts.build == BuildId::UNSTAMPED {
        ldcp_sim::Fnv64::hex_of(&core)
    } else {
        ldcp_sim::Fnv64::hex_of(&b.core_verilog(BuildId::UNSTAMPED)?)
    };
    let (lcs, lcs_total) = p.used(lc_bel);
    let (_, ff_total) = p.used(ff_bel);
    let (bram, bram_total) = p.used(ram_bel);
    let (dsp, dsp_total) = p.used(dsp_bel);
    Ok(BoardReport {
        board: b.name.to_string(),
        device: b.device.to_string(),
        package: b.package.to_string(),
        family: b.family,
        top: b.top.to_string(),
        core: b.core.to_string(),
        oscillator_mhz: b.oscillator_mhz,
        target_mhz: b.clock_mhz,
        pll: b
            .pll()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        baud: b.baud,
        baud_div: b.baud_div,
        logic_cells: lcs,
        logic_cells_total: lcs_total,
        flip_flops: cells.flip_flops,
        flip_flops_total: ff_total,
        bram,
        bram_total,
        dsp,
        dsp_total,
        pll_used: p.used(pll_bel).0,
        flows: b.flows,
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
        block_verilog_fnv64,
        yosys,
        synth_command,
        nextpnr,
        packer: t.packer.to_string(),
        seconds: ToolSeconds {
            yosys: round2(yosys_s),
            nextpnr: round2(nextpnr_s),
            pack: round2(pack_s),
        },
    })
}

/// The nextpnr run of `seed` on the synthesized design in `dir` (`rel`: a
/// path as the tools see it): its command and the files it writes.
fn seed_run(b: &Board, t: &Tools, dir: &Path, rel: &dyn Fn(&str) -> String, seed: u32) -> SeedRun {
    let report = format!("nextpnr-seed{seed}.json");
    let log = format!("nextpnr-seed{seed}.log");
    let (out_flag, out) = match b.family {
        Family::Ice40 => ("--asc", format!("seed{seed}.asc")),
        Family::Ecp5 => ("--textcfg", format!("seed{seed}.config")),
    };
    let cons_flag = match b.family {
        Family::Ice40 => "--pcf",
        Family::Ecp5 => "--lpf",
    };
    let mut cmd = (t.nextpnr_cmd)();
    cmd.arg(b.nextpnr_device)
        .args(["--package", b.package, "--json", &rel("design.json")])
        .args([cons_flag, &rel(&b.constraints_file())])
        .args([out_flag, &rel(&out)])
        .args(["--seed", &seed.to_string()])
        .args(["--report", &rel(&report), "--log", &rel(&log)]);
    if b.family == Family::Ecp5 {
        // the ULX3S's LFE5U-85F-6BG381C: speed grade 6
        cmd.args(["--speed", "6"]);
    }
    SeedRun {
        cmd,
        tool: t.nextpnr,
        report: dir.join(report),
        log: dir.join(log),
        out: dir.join(out),
    }
}

/// The family's bel types of logic cells, flip-flops, block RAMs, DSPs
/// and PLLs, as nextpnr's report names them.
fn bels(f: Family) -> [&'static str; 5] {
    match f {
        Family::Ice40 => [
            "ICESTORM_LC",
            "ICESTORM_LC",
            "ICESTORM_RAM",
            "ICESTORM_DSP",
            "ICESTORM_PLL",
        ],
        Family::Ecp5 => [
            "TRELLIS_COMB",
            "TRELLIS_FF",
            "DP16KD",
            "MULT18X18D",
            "EHXPLLL",
        ],
    }
}

/// nextpnr's version line.
fn nextpnr_version(t: &Tools) -> Result<String, FlowError> {
    let mut c = (t.nextpnr_cmd)();
    c.arg("--version");
    let out = tools::run(&mut c, &format!("{} --version", t.nextpnr))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // YoWASP prints a "Preparing to run" line first
    Ok(text
        .lines()
        .find(|l| l.contains("nextpnr"))
        .unwrap_or("")
        .trim()
        .to_string())
}

/// Packs the routed design `routed` into the bitstream `bin` with the
/// family's packer (`rel`: a path as the tools see it) and describes it.
fn pack(
    b: &Board,
    t: &Tools,
    routed: &Path,
    bin: &Path,
    rel: &dyn Fn(&str) -> String,
) -> Result<Bitstream, FlowError> {
    let routed_name = routed
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut c = (t.pack_cmd)();
    match b.family {
        Family::Ice40 => c.arg(routed).arg(bin),
        Family::Ecp5 => c.args([
            "--compress",
            "--input",
            &rel(&routed_name),
            "--bit",
            &rel(&b.bitstream_file()),
        ]),
    };
    tools::run(&mut c, t.packer)?;
    let bytes = std::fs::read(bin).map_err(|e| FlowError::Io(format!("{}: {e}", bin.display())))?;
    if bytes.is_empty() {
        return Err(FlowError::Tool(format!(
            "{} wrote an empty {}",
            t.packer,
            bin.display()
        )));
    }
    let wd = ldcp_sim::work_dir();
    Ok(Bitstream {
        file: bin
            .strip_prefix(&wd)
            .map_or(bin.to_path_buf(), Path::to_path_buf),
        bytes: bytes.len() as u64,
        fnv64: ldcp_sim::Fnv64::hex_of_bytes(&bytes),
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

/// Whether every clock of a placement met its constraint, and some clock's
/// constraint is the board's core clock (so a constraint nextpnr did not
/// derive, such as its 12 MHz default, never passes for "met").
fn clocks_met(p: &synth::Placement, clock_mhz: f64) -> bool {
    !p.clocks.is_empty()
        && p.clocks.iter().all(|(_, a, c)| a >= c && *c > 0.0)
        && p.clocks.iter().any(|(_, _, c)| (c - clock_mhz).abs() < 0.5)
}
