//! What the flow's integration tests share.

use std::process::Command;

/// Runs the `ldcp` binary: (exit status, stdout, stderr).
pub fn ldcp(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ldcp"))
        .args(args)
        .output()
        .expect("run ldcp");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
