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

/// Runs `cmd` to its end, or kills it once `limit` has passed; `what` names
/// it in errors. Any exit status is returned (the caller reads the
/// verdict); a missing tool and a run past the limit are errors. Its
/// output is read beside the wait, each pipe on its own, so a chatty tool
/// never blocks on a full pipe.
pub fn output_within(
    cmd: &mut Command,
    what: &str,
    limit: std::time::Duration,
) -> Result<Output, ToolError> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            ToolError(format!(
                "cannot run {what} ({e}): install the tools with scripts/bootstrap.sh"
            ))
        })?;
    let drain = |mut p: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = p.read_to_end(&mut b);
            b
        })
    };
    let so = drain(Box::new(child.stdout.take().expect("piped")));
    let se = drain(Box::new(child.stderr.take().expect("piped")));
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child
            .try_wait()
            .map_err(|e| ToolError(format!("{what}: {e}")))?
        {
            break st;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolError(format!(
                "{what} did not finish in {} s",
                limit.as_secs()
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ok(Output {
        status,
        stdout: so.join().unwrap_or_default(),
        stderr: se.join().unwrap_or_default(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A run past the limit is killed and an error; one within it returns
    /// its output and its exit status, failure included; a missing tool
    /// is an error naming the bootstrap.
    #[test]
    fn output_within_kills_at_the_limit_and_keeps_any_status() {
        let e = output_within(
            Command::new("sleep").arg("5"),
            "sleep",
            Duration::from_millis(200),
        )
        .unwrap_err();
        assert!(e.0.contains("did not finish"), "{e}");
        let o = output_within(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            "sh",
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(o.status.code(), Some(3));
        assert_eq!(
            (&o.stdout[..], &o.stderr[..]),
            (&b"out\n"[..], &b"err\n"[..])
        );
        let e = output_within(
            &mut Command::new("no-such-tool-ldcp"),
            "x",
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(e.0.contains("bootstrap"), "{e}");
    }
}
