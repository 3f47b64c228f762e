//! The registry of synthesizable blocks: name, one-line description, and
//! the finalized Verilog of each (see [`crate::verilog::finalize`]).

use rust_hdl::prelude::*;

/// A block the flow can generate, lint, cosimulate and synthesize.
#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    /// The `--block` name, also its Verilog module name and file stem.
    pub name: &'static str,
    /// What it is, one line.
    pub doc: &'static str,
    generate: fn() -> Result<String, String>,
}

impl BlockInfo {
    /// The block's finalized Verilog (module `self.name`, lint-clean).
    pub fn verilog(&self) -> Result<String, crate::verilog::VerilogError> {
        let raw = (self.generate)().map_err(crate::verilog::VerilogError::RustHdl)?;
        crate::verilog::finalize(&raw, self.name, self.doc)
    }
}

/// RustHDL's Verilog of a block, after RustHDL's own checks (every signal
/// connected, no combinational loop, no write to an input).
fn raw_verilog<T: Block>(mut uut: T) -> Result<String, String> {
    uut.connect_all();
    check_all(&uut).map_err(|e| format!("RustHDL rejects the block: {e:?}"))?;
    Ok(generate_verilog_unchecked(&uut))
}

/// Every block, in data-path order.
pub const BLOCKS: &[BlockInfo] = &[
    BlockInfo {
        name: "window_engine",
        doc: "NIC window engine, PAWA and the gamma floor, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
        generate: || raw_verilog(crate::window_engine::WindowEngine::<8>::default()),
    },
    BlockInfo {
        name: "window_engine_4k",
        doc: "the window engine with 4,096 flows (simulation size)",
        generate: || raw_verilog(crate::window_engine::WindowEngine::<12>::default()),
    },
    BlockInfo {
        name: "wred_ecn",
        doc: "switch-port WRED/ECN, one packet per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.1, §2.3 Eq. 3)",
        generate: || raw_verilog(crate::wred_ecn::WredEcn::default()),
    },
];

/// Looks a block up by name.
pub fn find(name: &str) -> Option<&'static BlockInfo> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// The block names, for error messages and `--help`.
pub fn names() -> Vec<&'static str> {
    BLOCKS.iter().map(|b| b.name).collect()
}
