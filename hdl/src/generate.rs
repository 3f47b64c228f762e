//! A block's Verilog: RustHDL's own checks, then the finalization that
//! names the module after the block ([`crate::verilog::finalize`]).
//!
//! Each block file names its module once ([`Module`]: the name every tool
//! sees, and the line that heads its Verilog) and offers `verilog()`. The
//! list of blocks the flow knows, with what it needs of each, is
//! `ldcp_flow::registry`: the one registry.

use rust_hdl::prelude::*;

/// A block's Verilog module: its name (the `--block` name, the module name
/// and the file stem of its report) and what it is, one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Module {
    /// The module name.
    pub name: &'static str,
    /// What it is, one line (the Verilog file's header comment).
    pub doc: &'static str,
    /// Signals it leaves unused on purpose: outputs of shared sub-blocks
    /// (wire names such as `ts$sweep_ptr`), inputs and decoded fields
    /// whose bits above the build's flows it ignores: waived from
    /// Verilator's UNUSEDSIGNAL by name ([`crate::verilog::finalize_open`]).
    pub open: &'static [&'static str],
    /// The blocks it embeds: their open outputs are waived in its Verilog
    /// too, named where each block is defined.
    pub subs: &'static [&'static Module],
}

impl Module {
    /// The open outputs of this module and of every block it embeds, each
    /// name once.
    pub fn open_all(&self) -> Vec<&'static str> {
        let mut all: Vec<&'static str> = self.open.to_vec();
        for s in self.subs {
            for w in s.open_all() {
                if !all.contains(&w) {
                    all.push(w);
                }
            }
        }
        all
    }
}

/// RustHDL's Verilog of a block, after RustHDL's own checks (every signal
/// connected, no combinational loop, no write to an input).
pub(crate) fn raw_verilog<T: Block>(mut uut: T) -> Result<String, String> {
    uut.connect_all();
    check_all(&uut).map_err(|e| format!("RustHDL rejects the block: {e:?}"))?;
    Ok(generate_verilog_unchecked(&uut))
}

/// The finalized Verilog of `uut` as module `m`.
/// Flow bits of the formal-size builds (4 flows): the table blocks'
/// property harnesses (`formal/`) prove the block generated with this
/// size (the pacing timer with its own floor, `pacing_timer::FB_FORMAL`),
/// the same RTL as the 256-flow build with a narrower flow index, so that
/// a bounded check from reset (the tables' reset sweep) and an induction
/// over a whole scanner lap fit CI's budget.
pub const FB_FORMAL: usize = 2;

pub(crate) fn finalized<T: Block>(
    m: &Module,
    uut: T,
) -> Result<String, crate::verilog::VerilogError> {
    let raw = raw_verilog(uut).map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, m.name, m.doc, &m.open_all())
}
