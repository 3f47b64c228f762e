//! Ideal references, bit-accurate golden models and the Verilator
//! cosimulation harness of the LDCP blocks.
//!
//! Three layers, one truth (see `ARCHITECTURE.md`):
//! 1. `ideal`: the draft's equations in `f64`, never synthesized;
//! 2. the golden models (`wred_ecn::WredEcnModel` and friends): bit-accurate
//!    and cycle-accurate mirrors of the RTL, fast enough to drive a network
//!    simulator;
//! 3. the RTL, checked against (2) every cycle by [`cosim`].
//!
//! This crate does not depend on RustHDL: the network simulator and the host
//! driver use the models without pulling in the HDL toolchain.

pub mod cosim;
pub mod tools;
pub mod wred_ecn;
pub mod xorshift;

/// Where the flow keeps its build products (verilated libraries, VCDs,
/// synthesis runs): `$LDCP_WORK_DIR`, else `$CARGO_TARGET_DIR/ldcp`, else the
/// `target/ldcp` folder of the enclosing Cargo workspace, else `./target/ldcp`.
pub fn work_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("LDCP_WORK_DIR") {
        return dir.into();
    }
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return std::path::PathBuf::from(dir).join("ldcp");
    }
    if let Ok(mut dir) = std::env::current_dir() {
        loop {
            if dir.join("Cargo.lock").is_file() {
                return dir.join("target").join("ldcp");
            }
            if !dir.pop() {
                break;
            }
        }
    }
    std::path::PathBuf::from("target").join("ldcp")
}
