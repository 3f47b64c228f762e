//! Where a block's cells go: yosys `synth_ice40` twice, once flat (the
//! figure that counts) and once with its sub-blocks kept as their own
//! modules, so `stat` gives each sub-block's LUTs, carries, flip-flops and
//! block RAMs. `ldcp area` prints both.
//!
//! A kept sub-block is synthesized without its neighbours, so constants and
//! logic that cross its ports are not optimized away: the kept total is a
//! little above the flat one (the report gives both). The split is what a
//! designer needs to decide what to shrink.
//!
//! Every iCE40 logic cell holds one LUT4, one flip-flop and one carry, so
//! max(LUT4, flip-flops, carries) of the flat netlist is a lower bound on
//! the logic cells any placement needs; when it exceeds the device's cells
//! the design cannot fit, whatever nextpnr's packing does.

use crate::synth::{first_line, parse_stat, write, CellCounts, Device};
use crate::FlowError;
use ldcp_sim::tools;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The deepest sub-block level `--depth` accepts.
pub const MAX_DEPTH: u32 = 8;

/// What to measure.
#[derive(Clone, Debug)]
pub struct AreaOptions {
    /// Block name.
    pub block: String,
    /// Device (its cell and BRAM counts).
    pub device: &'static Device,
    /// Sub-block levels kept as their own modules (1: the block's direct
    /// sub-blocks), 1 ..= [`MAX_DEPTH`].
    pub depth: u32,
    /// Where the runs go.
    pub out_dir: PathBuf,
}

/// One kept sub-block: its own cells, without those of its kept
/// sub-blocks (its registers and unkept parts included).
#[derive(Clone, Debug, Serialize)]
pub struct PartArea {
    /// Instance path below the block, `.`-separated (`""`: the block's own
    /// logic outside every kept sub-block).
    pub path: String,
    /// The Verilog module.
    pub module: String,
    /// Its level (0: the block itself).
    pub depth: u32,
    /// Its cells.
    pub cells: CellCounts,
}

/// `ldcp area`'s report (`--json`).
#[derive(Clone, Debug, Serialize)]
pub struct AreaReport {
    /// Block.
    pub block: String,
    /// Device.
    pub device: String,
    /// Logic cells on the device.
    pub device_logic_cells: u64,
    /// Block RAMs on the device.
    pub device_bram: u64,
    /// The flat synthesis: the design's cells.
    pub flat: CellCounts,
    /// max(LUT4, flip-flops, carries) of the flat netlist: no placement
    /// uses fewer logic cells.
    pub logic_cells_lower_bound: u64,
    /// Whether that bound and the flat block RAMs are within the device.
    pub may_fit: bool,
    /// Sub-block levels kept.
    pub depth: u32,
    /// The kept synthesis, part by part, in module order (a part before
    /// its sub-blocks).
    pub parts: Vec<PartArea>,
    /// The kept synthesis' whole design (yosys' `design hierarchy` total,
    /// which the parts sum to).
    pub kept_total: CellCounts,
    /// yosys' version.
    pub yosys: String,
    /// FNV-1a hash of the block's Verilog.
    pub verilog_fnv64: String,
}

/// Modules of RustHDL's Verilog whose ports are not a lone flip-flop's
/// (`d, q, clock`): the block and its sub-blocks, in file order.
pub fn sub_blocks(verilog: &str) -> Vec<String> {
    verilog
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .filter_map(|l| {
            let (name, ports) = l.split_once('(')?;
            let ports = ports.split(')').next().unwrap_or("");
            (ports != "d,q,clock").then(|| name.trim().to_string())
        })
        .collect()
}

fn level(top: &str, module: &str) -> Option<u32> {
    if module == top {
        return Some(0);
    }
    let rest = module.strip_prefix(top)?.strip_prefix('$')?;
    Some(rest.split('$').count() as u32)
}

/// yosys `stat` sections (`=== NAME ===`), name and text, the
/// `design hierarchy` summary included.
fn stat_sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|s| s.strip_suffix(" ===")) {
            out.push((name.to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// yosys `synth_ice40` of `top` in `vfile`, after the commands `prelude`:
/// the path of its `stat` file (`<run>-stat.txt`, beside `<run>.log`) and
/// the file's text.
fn synth_stat(
    vfile: &Path,
    top: &str,
    run: &str,
    prelude: &str,
) -> Result<(PathBuf, String), FlowError> {
    let dir = vfile.parent().unwrap_or(Path::new("."));
    let stat = dir.join(format!("{run}-stat.txt"));
    tools::run(
        Command::new("yosys")
            .args(["-q", "-l"])
            .arg(dir.join(format!("{run}.log")))
            .arg("-p")
            .arg(format!(
                "read_verilog -sv {}; {prelude}synth_ice40 -top {top}; tee -o {} stat",
                vfile.display(),
                stat.display()
            )),
        &format!("yosys synth_ice40 ({run})"),
    )?;
    let text = std::fs::read_to_string(&stat)
        .map_err(|e| FlowError::Io(format!("{}: {e}", stat.display())))?;
    Ok((stat, text))
}

fn add(a: &mut CellCounts, b: &CellCounts) {
    a.luts += b.luts;
    a.carries += b.carries;
    a.flip_flops += b.flip_flops;
    a.brams += b.brams;
    a.dsps += b.dsps;
}

/// Measures where `opts.block`'s cells go (see the module doc).
pub fn measure(
    opts: &AreaOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<AreaReport, FlowError> {
    if !(1..=MAX_DEPTH).contains(&opts.depth) {
        return Err(FlowError::BadArg(format!(
            "--depth {} is out of range: it must be in [1, {MAX_DEPTH}]",
            opts.depth
        )));
    }
    let block = crate::block(&opts.block)?;
    let top = block.name();
    let verilog = block
        .verilog()
        .map_err(|e| FlowError::Tool(e.to_string()))?;
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
    let vfile = dir.join(format!("{top}.v"));
    write(&vfile, &verilog)?;
    let yosys = first_line(Command::new("yosys").arg("-V"), "yosys -V")?;

    let kept: Vec<String> = sub_blocks(&verilog)
        .into_iter()
        .filter(|m| level(top, m).is_some_and(|d| (1..=opts.depth).contains(&d)))
        .collect();

    progress(&format!("yosys synth_ice40, flat ({top})"));
    let (flat_stat, flat_text) = synth_stat(&vfile, top, "flat", "")?;
    let flat = parse_stat(&flat_text);
    if flat.luts + flat.flip_flops == 0 {
        return Err(FlowError::Tool(format!(
            "yosys' statistics in {} name no LUT or flip-flop",
            flat_stat.display()
        )));
    }

    progress(&format!(
        "yosys synth_ice40, {} sub-blocks kept to depth {} ({top})",
        kept.len(),
        opts.depth
    ));
    let keep = if kept.is_empty() {
        String::new()
    } else {
        format!("setattr -mod -set keep_hierarchy 1 {}; ", kept.join(" "))
    };
    let (kept_stat, kept_text) = synth_stat(
        &vfile,
        top,
        "kept",
        &format!("hierarchy -top {top}; {keep}"),
    )?;
    let sections = stat_sections(&kept_text);
    let mut parts = Vec::new();
    let mut sum = CellCounts::default();
    for m in std::iter::once(top.to_string()).chain(kept.iter().cloned()) {
        let Some((_, body)) = sections.iter().find(|(n, _)| *n == m) else {
            // a sub-block yosys found empty and removed
            continue;
        };
        let cells = parse_stat(body);
        add(&mut sum, &cells);
        let depth = level(top, &m).unwrap_or(0);
        let path = m
            .strip_prefix(top)
            .unwrap_or("")
            .trim_start_matches('$')
            .replace('$', ".");
        parts.push(PartArea {
            path,
            module: m,
            depth,
            cells,
        });
    }
    if parts.is_empty() {
        return Err(FlowError::Tool(format!(
            "yosys' statistics in {} have no section for {top}",
            kept_stat.display()
        )));
    }
    // one kept module has no `design hierarchy` section: its own is the total
    let kept_total = sections
        .iter()
        .find(|(n, _)| n == "design hierarchy")
        .map_or_else(|| sum.clone(), |(_, body)| parse_stat(body));
    if (sum.luts, sum.flip_flops, sum.carries, sum.brams)
        != (
            kept_total.luts,
            kept_total.flip_flops,
            kept_total.carries,
            kept_total.brams,
        )
    {
        return Err(FlowError::Tool(format!(
            "the parts in {} sum to {sum:?}, yosys' design total is {kept_total:?}: a sub-block is missing",
            kept_stat.display()
        )));
    }
    let bound = flat.luts.max(flat.flip_flops).max(flat.carries);
    Ok(AreaReport {
        block: top.to_string(),
        device: opts.device.name.to_string(),
        device_logic_cells: opts.device.logic_cells,
        device_bram: opts.device.bram,
        logic_cells_lower_bound: bound,
        may_fit: bound <= opts.device.logic_cells && flat.brams <= opts.device.bram,
        flat,
        depth: opts.depth,
        parts,
        kept_total,
        yosys,
        verilog_fnv64: ldcp_sim::Fnv64::hex_of(&verilog),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_blocks_skip_lone_flip_flops_and_levels_count_from_the_block() {
        let v = "module top(clock,a,b);\nendmodule\nmodule top$x(d,q,clock);\nendmodule\n\
                 module top$core(clock,bus_addr);\nendmodule\nmodule top$core$eng(clock,in_valid);\nendmodule\n";
        assert_eq!(sub_blocks(v), ["top", "top$core", "top$core$eng"]);
        assert_eq!(level("top", "top"), Some(0));
        assert_eq!(level("top", "top$core$eng"), Some(2));
        assert_eq!(level("top", "other$core"), None);
    }

    #[test]
    fn stat_sections_split_by_module() {
        let t =
            "=== top ===\n   SB_LUT4 10\n   SB_DFF 4\n   top$a 1\n=== top$a ===\n   SB_LUT4 3\n\
                 === design hierarchy ===\n   SB_LUT4 13\n";
        let s = stat_sections(t);
        assert_eq!(s.len(), 3);
        assert_eq!(s[2].0, "design hierarchy");
        assert_eq!(parse_stat(&s[0].1).luts, 10);
        assert_eq!(parse_stat(&s[0].1).flip_flops, 4);
        assert_eq!(parse_stat(&s[1].1).luts, 3);
    }
}
