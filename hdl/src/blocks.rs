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
    generate: fn() -> String,
}

impl BlockInfo {
    /// The block's finalized Verilog (module `self.name`, lint-clean).
    pub fn verilog(&self) -> Result<String, crate::verilog::VerilogError> {
        crate::verilog::finalize(&(self.generate)(), self.name, self.doc)
    }
}

fn raw_verilog<T: Block>(mut uut: T) -> String {
    uut.connect_all();
    generate_verilog(&uut)
}

/// Every block, in data-path order.
pub const BLOCKS: &[BlockInfo] = &[BlockInfo {
    name: "wred_ecn",
    doc: "switch-port WRED/ECN, one packet per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.1, §2.3 Eq. 3)",
    generate: || raw_verilog(crate::wred_ecn::WredEcn::default()),
}];

/// Looks a block up by name.
pub fn find(name: &str) -> Option<&'static BlockInfo> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// The block names, for error messages and `--help`.
pub fn names() -> Vec<&'static str> {
    BLOCKS.iter().map(|b| b.name).collect()
}
