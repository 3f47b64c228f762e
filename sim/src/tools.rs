//! Running the external EDA tools: one place that checks exit codes and
//! turns a missing tool or a failure into a clear error with the tool's
//! last output lines.

use std::process::{Command, Output};

/// A tool that could not run or failed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

/// Runs `cmd`; `what` names it in errors. Fails on a non-zero exit with
/// the last 40 lines of its output.
pub fn run(cmd: &mut Command, what: &str) -> Result<Output, ToolError> {
    let out = cmd.output().map_err(|e| {
        ToolError(format!(
            "cannot run {what} ({e}): install the tools with scripts/bootstrap.sh"
        ))
    })?;
    if !out.status.success() {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        return Err(ToolError(format!(
            "{what} failed ({}):\n{tail}",
            out.status
        )));
    }
    Ok(out)
}

/// `verilator --lint-only -Wall` on one file whose top module is `top`.
/// Returns the warnings as an error; the file must be warning-free.
pub fn verilator_lint(file: &std::path::Path, top: &str) -> Result<(), ToolError> {
    run(
        Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", top])
            .arg(file),
        "verilator --lint-only -Wall",
    )
    .map(|_| ())
}

/// yosys reads the file, elaborates `top` and checks it (no undriven or
/// multiply-driven nets, no unknown modules).
pub fn yosys_check(file: &std::path::Path, top: &str) -> Result<(), ToolError> {
    let script = format!(
        "read_verilog -sv {}; hierarchy -check -top {top}; proc; opt_clean; check -assert",
        file.display()
    );
    run(
        Command::new("yosys").args(["-q", "-p", &script]),
        "yosys (read, hierarchy -check, check -assert)",
    )
    .map(|_| ())
}
