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
    /// Whether it is meant for the iCE40-HX8K (false: a simulation size,
    /// such as the 4,096-flow window engine, whose table alone exceeds the
    /// device's 32 block RAMs).
    pub fpga: bool,
    /// Whether CI and `ldcp run` hold the block to its clock: 100 MHz for
    /// a block alone, the board's PLL clock (60 MHz) for a board block.
    /// The packet-path blocks (issue 4) are not yet: their single-cycle
    /// read-modify-write stage closes at 35-50 MHz on the HX8K; pipelining
    /// it (or a PLL-derived core clock) is part of the board build (issue 5).
    /// The NIC core (issue 5) closes at 77-86 MHz at 94% of the HX8K
    /// alone; on the board (`board_core`) it runs at the PLL's 60 MHz.
    /// Their figures are measured and reported either way.
    pub timing_enforced: bool,
    /// The board whose build synthesizes this block, with its PLL and pins
    /// (`ldcp synth --board <name>`), instead of the block flow's harness.
    pub board: Option<&'static str>,
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
pub(crate) fn raw_verilog<T: Block>(mut uut: T) -> Result<String, String> {
    uut.connect_all();
    check_all(&uut).map_err(|e| format!("RustHDL rejects the block: {e:?}"))?;
    Ok(generate_verilog_unchecked(&uut))
}

/// Every block, in data-path order.
pub const BLOCKS: &[BlockInfo] = &[
    BlockInfo {
        name: "window_engine",
        timing_enforced: true,
        doc: "NIC window engine, PAWA and the gamma floor, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
        fpga: true,
        board: None,
        generate: || raw_verilog(crate::window_engine::WindowEngine::<8>::default()),
    },
    BlockInfo {
        name: "window_engine_4k",
        timing_enforced: true,
        doc: "the window engine with 4,096 flows (simulation size)",
        fpga: false,
        board: None,
        generate: || raw_verilog(crate::window_engine::WindowEngine::<12>::default()),
    },
    BlockInfo {
        name: "fast_start_marker",
        timing_enforced: false,
        doc: "sender fast-start ECN marker with the IPv4 ECN rewrite and RFC 1624 checksum update, 256 flows, one event per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1)",
        fpga: true,
        board: None,
        generate: || raw_verilog(crate::fast_start_marker::FastStartMarker::default()),
    },
    BlockInfo {
        name: "pacing_timer",
        timing_enforced: false,
        doc: "pacing timer of the gamma floor: one send credit per clock to flows with cw < 1 every RTT/cw, 256 flows (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
        fpga: true,
        board: None,
        generate: || raw_verilog(crate::pacing_timer::PacingTimer::default()),
    },
    BlockInfo {
        name: "ack_generator",
        timing_enforced: false,
        doc: "receiver ACK generator: per-packet or delayed ACKs with exact ECE counts, NAK once per gap, timeout flush, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1)",
        fpga: true,
        board: None,
        generate: || raw_verilog(crate::ack_generator::AckGenerator::default()),
    },
    BlockInfo {
        name: "nic_core",
        timing_enforced: false,
        doc: "the LDCP NIC core: window engine (256 flows), event FIFO, on-chip event generator, indirect flow window, counters, behind the register map of docs/regmap.md",
        fpga: true,
        board: None,
        // the block as the flow reports it: GIT_HASH 0, CAPS.DIRTY set, so
        // its Verilog (and the committed report's hash) does not change with
        // every commit; `nic_core::verilog` stamps a real build
        generate: || raw_verilog(crate::nic_core::NicCore::default()),
    },
    BlockInfo {
        name: "nic_system",
        timing_enforced: false,
        doc: "the LDCP NIC system: the NIC core plus the pacing timer (fed by the window engine), fast-start marker, ACK generator and WRED/ECN port behind the extension registers of docs/regmap.md (simulation size: more than the HX8K holds)",
        fpga: false,
        board: None,
        generate: || crate::nic_system::raw_verilog(crate::nic_system::NicSystem::default()),
    },
    BlockInfo {
        name: "board_core",
        timing_enforced: true,
        doc: "the Alchitry Cu board core: power-on sequencer, UART-to-register bridge (framed, CRC-8), and the NIC core; the board top adds the 60 MHz PLL",
        fpga: true,
        board: Some("alchitry-cu"),
        generate: || raw_verilog(crate::board::BoardCore::default()),
    },
    BlockInfo {
        name: "wred_ecn",
        timing_enforced: true,
        doc: "switch-port WRED/ECN, one packet per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.1, §2.3 Eq. 3)",
        fpga: true,
        board: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block's Verilog has its own module name, passes
    /// `verilator --lint-only -Wall`, and elaborates in yosys.
    #[test]
    fn every_block_generates_lint_clean_verilog_that_yosys_accepts() {
        let dir = ldcp_sim::work_dir().join("hdl-test");
        std::fs::create_dir_all(&dir).unwrap();
        for b in BLOCKS {
            let v = b.verilog().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(
                v.contains(&format!("module {}(", b.name)) && !v.contains("module top("),
                "{}",
                b.name
            );
            let file = dir.join(format!("{}.v", b.name));
            std::fs::write(&file, &v).unwrap();
            ldcp_sim::tools::verilator_lint(&file, b.name)
                .unwrap_or_else(|e| panic!("{}: {e}", b.name));
            ldcp_sim::tools::yosys_check(&file, b.name)
                .unwrap_or_else(|e| panic!("{}: {e}", b.name));
        }
        let mut unique = names();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), BLOCKS.len(), "block names are unique");
    }
}
