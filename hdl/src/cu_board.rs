//! The complete NIC on the Alchitry Cu (iCE40-HX8K, cb132): `CuBoardCore`
//! (the board shell [`crate::board_shell::BoardShell`] around
//! [`crate::nic_cu::NicCuIce40`]: the NIC core with the sequential window
//! engine, the pacing timer, the sequential fast-start marker and ACK
//! generator and the on-chip loopback, 256 flows), and the top module and
//! pin constraints of its bitstream. `ldcp_sim::cu_board::CuBoardModel` is
//! its model.
//!
//! `ldcp synth --board alchitry-cu-nic` builds it: yosys `synth_ice40
//! -abc9 -abc2`, nextpnr-ice40, icepack. Committed report
//! (`flow/reports/alchitry-cu-nic.json`, seed 1): 7,517 of the
//! 7,680 logic cells, 29 of 32 block RAMs, the PLL, 62.78 MHz against the
//! 60 MHz clock; the unstamped build CI places (`alchitry_cu_nic_bitstream
//! _builds_and_meets_its_60_mhz_pll_clock`) reached 61.15 MHz at seed 1 by
//! hand. Its Verilog carries the Cu NIC's `no_rw_check` RAMs
//! ([`crate::nic_cu`], "Block RAM reads during a write"); the shell has no
//! RAM.
//!
//! Clock: a 60 MHz PLL clock ([`PLL`]: `SB_PLL40_CORE` from the 100 MHz
//! oscillator; the core is held until it locks), the must; the
//! NIC's loopback sender and its counter bank close at 61-70 MHz (by stamp and seed) on the
//! full HX8K, not 100. The UART at 1 Mbaud (60 clocks per bit). Pins: the
//! Alchitry Cu's ([`crate::board::pcf_of`]). LED 0: power-on done; LED 1:
//! bridge traffic (lit for 1/16 s); LED 2: a refused frame since the last
//! CORE_RESET.

use crate::board_shell::BoardShell;
use crate::nic_core::BuildId;
use crate::nic_cu::NicCuIce40;
use ldcp_sim::board_shell::LED_HOLD_BITS;
use rust_hdl::prelude::*;

const HB: usize = LED_HOLD_BITS as usize;

pub use crate::board::{BAUD, OSC_MHZ};

/// The board clock, MHz: the PLL's ([`PLL`]; the module doc, Clock).
pub const CLOCK_MHZ: f64 = 60.0;
/// 100 MHz x 48 / (5 x 16): phase detector 20 MHz, VCO 960 MHz (`icepll
/// -i 100 -o 60` gives the same).
pub const PLL: crate::board::Ice40Pll = crate::board::Ice40Pll {
    divr: 4,
    divf: 47,
    divq: 4,
    filter_range: 2,
};
/// Clocks per UART bit on the board.
pub const BAUD_DIV: u32 = 60;
/// The board's clock, for its top module.
pub const CLOCK: crate::switch_board::CuClock = crate::switch_board::CuClock {
    mhz: CLOCK_MHZ,
    baud_div: BAUD_DIV,
    pll: Some(PLL),
};

shell_board_core!(
    /// The Cu NIC board core (see the module doc).
    CuBoardCore,
    NicCuIce40
);

/// The board core's module. The NIC's observation outputs stay open on
/// the board (the bus reaches every block's results).
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "cu_board_core",
    doc: "the complete LDCP NIC on the Alchitry Cu: power-on sequencer, UART-to-register bridge (framed, CRC-8), LEDs, and the Cu NIC (NIC core with the sequential window engine, pacing timer, sequential fast-start marker and ACK generator, on-chip loopback; 256 flows)",
    open: &[
        "sys$obs_pt_out_valid",
        "sys$obs_pt_out_flow",
        "sys$obs_pt_stat_err_flow_strobe",
        "sys$obs_ag_out_valid",
        "sys$obs_ag_out_flow",
        "sys$obs_ag_out_psn",
        "sys$obs_ag_out_n_pkts",
        "sys$obs_ag_out_ece",
        "sys$obs_ag_out_nak",
        "sys$obs_fs_out_valid",
        "sys$obs_fs_out_flow",
        "sys$obs_fs_out_err",
        "sys$obs_fs_out_ecn",
        "sys$obs_fs_out_csum",
        "sys$obs_wred_out_valid",
        "sys$obs_wred_out_decision",
    ],
    subs: &[&crate::nic_cu::MODULE],
};

/// The board core's finalized Verilog (module [`MODULE`]), stamped.
pub fn core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    // the marks `nic_cu` has as a top, inside it here too (as the ULX3S
    // board core's), and its RAMs' `no_rw_check` (the shell has none)
    let raw = crate::generate::raw_verilog(CuBoardCore::new(build))
        .map(|v| {
            crate::nic_cu::mark_rams(&crate::verilog::isolate_table_inputs(
                &crate::verilog::isolate_sub_inputs_in(
                    &crate::verilog::isolate_sub_inputs(&v),
                    "top$sys",
                ),
            ))
        })
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, MODULE.name, MODULE.doc, &MODULE.open_all())
}

/// The board's top module name.
pub const TOP: &str = "ldcp_nic_alchitry_cu";

/// The board's top module: the hold, the LEDs, and `cu_board_core` on the
/// oscillator's clock with its divider and LED hold tied (as the switch
/// port's Cu boards: [`crate::switch_board::cu_top_of`]).
pub fn top_verilog() -> String {
    crate::switch_board::cu_top_of(
        TOP,
        MODULE.name,
        "the complete LDCP NIC (window engine, pacing timer, fast-start marker, ACK generator, loopback)",
        "hdl/src/cu_board.rs",
        CLOCK,
    )
}

/// The board's pin constraints: the Alchitry Cu's ([`crate::board::pcf_of`]).
pub fn pcf() -> String {
    crate::board::pcf_of(TOP)
}

ldcp_sim::shell_board_ports!(crate::hand_stepped {
    CuBoardCore [],
    ldcp_sim::board_shell::ShellIn,
    ldcp_sim::board_shell::ShellOut
});

/// The board core in RustHDL's simulator, stepped by hand.
pub type CuBoardRustHdl = crate::stepper::RustHdlSim<CuBoardCore>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cu_board_rusthdl_simulation_matches_model() {
        use ldcp_sim::board_shell::ShellStimulus;
        use ldcp_sim::cu_board::CuBoardModel;
        let mut sim = CuBoardRustHdl::new();
        let mut m = CuBoardModel::new(ldcp_sim::nic_cu::NicCuModel::new(0, true));
        let line = ShellStimulus::new(4, 40, ldcp_sim::nic_system::SysStimulus::default());
        for (c, i) in ldcp_sim::seeded(line, 7).take(1_500).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }

    #[test]
    fn cu_board_pll_gives_60_mhz_and_the_uart_1_mbaud() {
        assert_eq!(PLL.out_mhz(OSC_MHZ), CLOCK_MHZ);
        assert!(PLL.within_limits(OSC_MHZ), "{PLL:?}");
        assert_eq!(CLOCK_MHZ * 1e6 / BAUD_DIV as f64, BAUD as f64);
        let top = top_verilog();
        assert!(top.contains("cu_board_core core") && top.contains(".clock(clk)"));
        assert!(top.contains("SB_PLL40_CORE") && top.contains(".DIVF(7'd47)"));
        assert!(top.contains(".reset_hold(~locked | ~rst_n)"));
        assert!(top.contains("10'd60,") || top.contains("10'd60)"));
        let hold = ldcp_sim::board_shell::led_hold_cycles(CLOCK_MHZ);
        assert!(top.contains(&format!("'d{hold})")));
        assert!(pcf().contains("set_io clk_100mhz P7"));
        // the oscillator's boards keep no PLL
        assert!(!crate::switch_board::top_verilog().contains("SB_PLL40"));
    }
}
