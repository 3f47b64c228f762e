//! Synthesis of one block for one device: yosys `synth_ice40`, then
//! nextpnr-ice40 with the target clock, every exit code checked, figures
//! read from yosys' statistics and nextpnr's JSON report.
//!
//! nextpnr's placement is seeded: the same netlist and seed give the same
//! result on every machine, but seeds differ by several MHz. The flow tries
//! seeds 1, 2, ... up to `--seeds`, stops at the first that meets the target
//! (or, with `--all-seeds`, tries them all and keeps the fastest), and
//! reports every seed it tried, so the figure is reproducible and the
//! spread is visible.

use crate::FlowError;
use ldcp_sim::tools;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A device the flow can place on.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Device {
    /// The `--device` name.
    pub name: &'static str,
    /// nextpnr-ice40's device flag.
    #[serde(skip)]
    pub nextpnr_flag: &'static str,
    /// Package.
    pub package: &'static str,
    /// Logic cells on the device.
    pub logic_cells: u64,
    /// 4-kbit block RAMs on the device.
    pub bram: u64,
}

/// The devices the flow knows.
pub const DEVICES: &[Device] = &[Device {
    name: "ice40-hx8k",
    nextpnr_flag: "--hx8k",
    package: "cb132",
    logic_cells: 7680,
    bram: 32,
}];

/// Looks a device up, or says which exist.
pub fn device(name: &str) -> Result<&'static Device, FlowError> {
    DEVICES.iter().find(|d| d.name == name).ok_or_else(|| {
        FlowError::BadArg(format!(
            "unknown device {name:?}: known devices are {}",
            DEVICES
                .iter()
                .map(|d| d.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// What to synthesize.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// Block name.
    pub block: String,
    /// Device.
    pub device: &'static Device,
    /// Clock target, MHz.
    pub target_mhz: f64,
    /// Most placement seeds to try.
    pub seeds: u32,
    /// Try every seed up to `seeds`, not only up to the first that meets
    /// the target: the spread of placement, and the fastest.
    pub all_seeds: bool,
    /// A seed to try before 1, 2, ...: [`committed_seed`] (placement is
    /// deterministic, so the committed report's seed reproduces it).
    pub first_seed: Option<u32>,
    /// Where the runs go.
    pub out_dir: PathBuf,
}

/// Where the committed reports are: `flow/reports/` of this
/// source tree.
pub fn reports_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("reports")
}

/// The committed report `flow/reports/<stem>.json`, parsed (`None`
/// when there is none or it does not parse).
pub fn committed_report(stem: &str) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(reports_dir().join(format!("{stem}.json"))).ok()?;
    serde_json::from_str(&text).ok()
}

/// The placement seed of `block`'s committed report on `device`, when
/// that report is of the block's current Verilog (its `verilog_fnv64`):
/// nextpnr places the same netlist with the same seed the same way, so
/// trying it first reproduces the committed figure in one run. `None`
/// when there is no such report or it is stale.
pub fn committed_seed(block: &str, device: &str, verilog: &str) -> Option<u32> {
    let c = committed_report(&format!("{block}.{device}"))?;
    let fresh = c["verilog_fnv64"].as_str()? == ldcp_sim::Fnv64::hex_of(verilog);
    fresh
        .then(|| c["seed"].as_u64())
        .flatten()
        .map(|s| s as u32)
}

/// A clock target, MHz: in (0, 1000] (NaN is refused).
pub fn check_target_mhz(mhz: f64) -> Result<(), FlowError> {
    if mhz > 0.0 && mhz <= 1000.0 {
        Ok(())
    } else {
        Err(FlowError::BadArg(format!(
            "--target-mhz {mhz} is out of range: it must be in (0, 1000]"
        )))
    }
}

/// The seeds to try, in order: `first`, then 1 ..= `seeds` without it.
pub fn seed_order(first: Option<u32>, seeds: u32) -> Vec<u32> {
    first
        .into_iter()
        .chain((1..=seeds).filter(|s| Some(*s) != first))
        .collect()
}

/// One placement seed's result.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct SeedResult {
    /// The seed.
    pub seed: u32,
    /// Its Fmax, MHz.
    pub fmax_mhz: f64,
}

/// The slowest path of the chosen placement.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct CriticalPath {
    /// First cell.
    pub from: String,
    /// Last cell.
    pub to: String,
    /// Delay, ns.
    pub delay_ns: f64,
}

/// Cells yosys mapped the design (block and harness) to.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct CellCounts {
    /// SB_LUT4 (iCE40), LUT4 (ECP5).
    pub luts: u64,
    /// SB_CARRY (iCE40), CCU2C (ECP5: two bits each).
    pub carries: u64,
    /// SB_DFF* (iCE40), TRELLIS_FF (ECP5).
    pub flip_flops: u64,
    /// SB_RAM40_4K (iCE40, 4 kbit), DP16KD (ECP5, 18 kbit).
    pub brams: u64,
    /// MULT18X18D (ECP5; the iCE40-HX8K has none).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub dsps: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The synthesis report (`--json`), also written to `<out>/report.json`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct SynthReport {
    /// Block.
    pub block: String,
    /// Device.
    pub device: String,
    /// Package.
    pub package: String,
    /// Logic cells of the block: placed cells minus the harness's.
    pub logic_cells: u64,
    /// Logic cells on the device.
    pub logic_cells_total: u64,
    /// Logic cells placed, harness included.
    pub logic_cells_placed: u64,
    /// Logic cells of the synthesis harness (one per input flip-flop).
    pub harness_cells: u64,
    /// Block RAMs used.
    pub bram: u64,
    /// Block RAMs on the device.
    pub bram_total: u64,
    /// Fmax of the chosen placement, MHz.
    pub fmax_mhz: f64,
    /// The requested clock, MHz.
    pub target_mhz: f64,
    /// Whether Fmax >= target.
    pub timing_met: bool,
    /// The chosen seed.
    pub seed: u32,
    /// Every seed tried, in order.
    pub seeds_tried: Vec<SeedResult>,
    /// The chosen placement's critical path.
    pub critical_path: Option<CriticalPath>,
    /// yosys' cell counts (block and harness).
    pub cells: CellCounts,
    /// Tool versions.
    pub yosys: String,
    /// Tool versions.
    pub nextpnr: String,
    /// FNV-1a hash of the block's Verilog, to tell which design a report is of.
    pub verilog_fnv64: String,
}

pub(crate) fn first_line(cmd: &mut Command, what: &str) -> Result<String, FlowError> {
    let out = tools::run(cmd, what)?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

pub(crate) fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text).map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))
}

/// yosys' `stat` cell counts. Yosys 0.23 prints `NAME COUNT`, 0.5x and
/// later `COUNT NAME`; both are read.
pub(crate) fn parse_stat(text: &str) -> CellCounts {
    let mut c = CellCounts::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(a), Some(b), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (name, n) = match (a.parse::<u64>(), b.parse::<u64>()) {
            (Ok(n), Err(_)) => (b, n),
            (Err(_), Ok(n)) => (a, n),
            _ => continue,
        };
        match name {
            "SB_LUT4" | "LUT4" => c.luts += n,
            "SB_CARRY" | "CCU2C" => c.carries += n,
            "SB_RAM40_4K" | "DP16KD" => c.brams += n,
            "MULT18X18D" => c.dsps += n,
            "TRELLIS_FF" => c.flip_flops += n,
            n2 if n2.starts_with("SB_DFF") => c.flip_flops += n,
            _ => {}
        }
    }
    c
}

pub(crate) struct Placement {
    pub(crate) fmax: f64,
    pub(crate) lcs: u64,
    pub(crate) brams: u64,
    pub(crate) critical: Option<CriticalPath>,
    /// Every clock: (net, achieved MHz, constraint MHz).
    pub(crate) clocks: Vec<(String, f64, f64)>,
    /// nextpnr's utilization: bel type -> (used, available).
    pub(crate) utilization: std::collections::BTreeMap<String, (u64, u64)>,
}

impl Placement {
    /// (used, available) of a bel type (0, 0 when the device has none).
    pub(crate) fn used(&self, bel: &str) -> (u64, u64) {
        self.utilization.get(bel).copied().unwrap_or((0, 0))
    }
}

/// One nextpnr run of a seed sweep: the command, and the files it writes.
pub(crate) struct SeedRun {
    /// The nextpnr command for the seed.
    pub(crate) cmd: Command,
    /// What to call it in messages.
    pub(crate) tool: &'static str,
    /// Its JSON report.
    pub(crate) report: PathBuf,
    /// Its log.
    pub(crate) log: PathBuf,
    /// Its placed and routed output (`.asc`, `.config`).
    pub(crate) out: PathBuf,
}

pub(crate) fn read_report(path: &Path) -> Result<Placement, FlowError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| FlowError::Tool(format!("{}: not JSON: {e}", path.display())))?;
    let fmax = v["fmax"]
        .as_object()
        .and_then(|m| {
            m.values()
                .filter_map(|c| c["achieved"].as_f64())
                .reduce(f64::min)
        })
        .ok_or_else(|| FlowError::Tool(format!("{}: no fmax", path.display())))?;
    let used = |k: &str| v["utilization"][k]["used"].as_u64().unwrap_or(0);
    let critical = v["critical_paths"]
        .as_array()
        .and_then(|a| a.first())
        .and_then(|p| {
            let steps = p["path"].as_array()?;
            Some(CriticalPath {
                from: steps.first()?["from"]["cell"].as_str()?.to_string(),
                to: steps.last()?["to"]["cell"].as_str()?.to_string(),
                delay_ns: steps.iter().filter_map(|s| s["delay"].as_f64()).sum(),
            })
        });
    let clocks = v["fmax"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, c)| {
                    (
                        k.clone(),
                        c["achieved"].as_f64().unwrap_or(0.0),
                        c["constraint"].as_f64().unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let utilization = v["utilization"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, u)| {
                    (
                        k.clone(),
                        (
                            u["used"].as_u64().unwrap_or(0),
                            u["available"].as_u64().unwrap_or(0),
                        ),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Placement {
        fmax,
        lcs: used("ICESTORM_LC"),
        brams: used("ICESTORM_RAM"),
        critical,
        clocks,
        utilization,
    })
}

/// The placement a seed sweep chose.
pub(crate) struct Placed {
    pub(crate) seed: u32,
    pub(crate) placement: Placement,
    pub(crate) tried: Vec<SeedResult>,
    /// The chosen seed's `.asc` (nextpnr writes one per seed).
    pub(crate) asc: PathBuf,
}

/// nextpnr-ice40 on `netlist` with `args`, the `seeds` in order
/// ([`place_seed_runs`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn place_seeds(
    device: &Device,
    netlist: &Path,
    dir: &Path,
    seeds: &[u32],
    all: bool,
    args: &[String],
    what: &str,
    met: &dyn Fn(&Placement) -> bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Placed, FlowError> {
    let run = |seed: u32| {
        let report = dir.join(format!("nextpnr-seed{seed}.json"));
        let log = dir.join(format!("nextpnr-seed{seed}.log"));
        let asc = dir.join(format!("seed{seed}.asc"));
        let mut cmd = Command::new("nextpnr-ice40");
        cmd.arg(device.nextpnr_flag)
            .args(["--package", device.package, "--json"])
            .arg(netlist)
            .args(args)
            .arg("--asc")
            .arg(&asc)
            .args(["--seed", &seed.to_string(), "--report"])
            .arg(&report)
            .arg("--log")
            .arg(&log);
        SeedRun {
            cmd,
            tool: "nextpnr-ice40",
            report,
            log,
            out: asc,
        }
    };
    place_seed_runs(
        seeds,
        all,
        &format!("{} {what}", device.name),
        met,
        progress,
        &run,
    )
}

/// nextpnr on the `seeds` in order ([`seed_order`]; `run` makes a seed's
/// command): stops at the first placement `met` accepts (unless `all`),
/// keeps the fastest, and reports every seed tried. A run that exits
/// non-zero because timing failed is a figure, not an error, when it
/// still wrote its report.
pub(crate) fn place_seed_runs(
    seeds: &[u32],
    all: bool,
    what: &str,
    met: &dyn Fn(&Placement) -> bool,
    progress: &mut dyn FnMut(&str),
    run: &dyn Fn(u32) -> SeedRun,
) -> Result<Placed, FlowError> {
    let mut tried = Vec::new();
    let mut best: Option<(u32, Placement, PathBuf)> = None;
    for &seed in seeds {
        let mut r = run(seed);
        progress(&format!("{} seed {seed} {what}", r.tool));
        let _ = std::fs::remove_file(&r.report);
        if let Err(e) = tools::run(&mut r.cmd, r.tool) {
            let text = std::fs::read_to_string(&r.log).unwrap_or_default();
            if !(r.report.is_file() && text.contains("FAIL at")) {
                return Err(e.into());
            }
        }
        let p = read_report(&r.report)?;
        tried.push(SeedResult {
            seed,
            fmax_mhz: (p.fmax * 100.0).round() / 100.0,
        });
        let ok = met(&p);
        if best.as_ref().is_none_or(|(_, b, _)| p.fmax > b.fmax) {
            best = Some((seed, p, r.out));
        }
        if ok && !all {
            break;
        }
    }
    let (seed, placement, asc) = best.expect("at least one seed");
    Ok(Placed {
        seed,
        placement,
        tried,
        asc,
    })
}

/// Runs the flow; `progress` receives one line per step.
pub fn synthesize(
    opts: &SynthOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<SynthReport, FlowError> {
    check_target_mhz(opts.target_mhz)?;
    if !(1..=100).contains(&opts.seeds) {
        return Err(FlowError::BadArg(format!(
            "--seeds {} is out of range: it must be in [1, 100]",
            opts.seeds
        )));
    }
    let block = crate::block(&opts.block)?;
    if !block.fpga {
        return Err(FlowError::BadArg(format!(
            "block {} is a simulation size and does not fit {}; synthesize one of: {}",
            block.name(),
            opts.device.name,
            crate::registry::BLOCKS
                .iter()
                .filter(|b| b.fpga && b.board.is_none())
                .map(|b| b.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if let Some(board) = block.board {
        return Err(FlowError::BadArg(format!(
            "block {} is synthesized in its board, with the PLL and pins: run `ldcp synth --board {board}`",
            block.name(),
        )));
    }
    let verilog = block
        .verilog()
        .map_err(|e| FlowError::Tool(e.to_string()))?;
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
    let vfile = dir.join(format!("{}.v", block.name()));
    write(&vfile, &verilog)?;
    let ports = ldcp_sim::cosim::parse_ports(&verilog, block.name())
        .map_err(|e| FlowError::Tool(e.to_string()))?;
    let harness = crate::harness::wrap(block.name(), &ports);
    let hfile = dir.join("harness.v");
    write(&hfile, &harness.verilog)?;

    let yosys = first_line(Command::new("yosys").arg("-V"), "yosys -V")?;
    let nextpnr = first_line(
        Command::new("nextpnr-ice40").arg("--version"),
        "nextpnr-ice40 --version",
    )?;

    progress(&format!("yosys synth_ice40 ({})", block.name()));
    let netlist = dir.join("design.json");
    let stat = dir.join("stat.txt");
    let script = format!(
        "read_verilog -sv {}; read_verilog -sv {}; synth_ice40 -top {} -json {}; tee -o {} stat",
        vfile.display(),
        hfile.display(),
        harness.top,
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
    let cells = parse_stat(&std::fs::read_to_string(&stat).unwrap_or_default());

    let target = opts.target_mhz;
    let placed = place_seeds(
        opts.device,
        &netlist,
        dir,
        &seed_order(opts.first_seed, opts.seeds),
        opts.all_seeds,
        &["--freq".into(), format!("{target}")],
        &format!("at {target} MHz"),
        &|p| p.fmax >= target,
        progress,
    )?;
    let (seed, p, tried) = (placed.seed, placed.placement, placed.tried);
    let harness_cells = harness.flip_flops as u64;
    Ok(SynthReport {
        block: block.name().to_string(),
        device: opts.device.name.to_string(),
        package: opts.device.package.to_string(),
        logic_cells: p.lcs.saturating_sub(harness_cells),
        logic_cells_total: opts.device.logic_cells,
        logic_cells_placed: p.lcs,
        harness_cells,
        bram: p.brams,
        bram_total: opts.device.bram,
        fmax_mhz: (p.fmax * 100.0).round() / 100.0,
        target_mhz: opts.target_mhz,
        timing_met: p.fmax >= opts.target_mhz,
        seed,
        seeds_tried: tried,
        critical_path: p.critical,
        cells,
        yosys,
        nextpnr,
        verilog_fnv64: ldcp_sim::Fnv64::hex_of(&verilog),
    })
}
