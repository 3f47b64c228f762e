//! The whole system on one ECP5 board, the ULX3S (LFE5U-85F, CABGA381):
//! `SystemBoardCore` (the board shell [`crate::board_shell::BoardShell`]
//! around [`crate::nic_system::NicSystem4k`]: the NIC core with 4,096 flows
//! and the pacing timer, fast-start marker, ACK generator and WRED/ECN port),
//! and the top module and pin constraints that `ldcp synth --board ulx3s`
//! wraps around it. `ldcp_sim::system_board::SystemBoardModel` is its
//! model.
//!
//! # Clock: 50 MHz from the 25 MHz oscillator
//! The target is 100 MHz; the NIC system closes at 57-73 MHz on the
//! LFE5U-85F (seeds 1-3 at a 35 MHz constraint: 63.11, 63.54, 67.18 MHz;
//! at 60 MHz: 57.50, 67.94, 73.19). The critical path is the window
//! engine's reciprocal ROM into its multiplier (13.7-14.9 ns); before the
//! packet-path blocks were pipelined it was the fast-start marker's table
//! read-modify-write and the system closed at 40-45 MHz (the PLL was then
//! 35 MHz). The git hash is a constant of the netlist, so placement moves
//! with every commit: an EHXPLLL makes a **50 MHz** system clock, the
//! setting with an integer UART divider and a margin (15% under the
//! slowest seed seen) a commit's placement cannot eat: 25 MHz / 5 (PFD 5
//! MHz) x 10 (feedback from CLKOP), VCO 600 MHz = 50 MHz x CLKOP_DIV 12,
//! CLKOP_CPHASE (12 - 1) / 2 = 5 as `ecppll` writes it. 50 clocks per bit
//! give the UART exactly 1 Mbaud. The build fails when a placement does
//! not meet 50 MHz; its report gives the Fmax reached.
//!
//! # Pins (emard/ulx3s `doc/constraints/ulx3s_v20.lpf`, boards v2.x/v3.0.x)
//! The 25 MHz oscillator `clk_25mhz` on G2; the FT231X USB-UART: the FPGA
//! receives on `ftdi_txd` M1 and transmits on `ftdi_rxd` L4 (names from
//! the FTDI's side); LEDs `led[0..7]` on B2, C2, C1, D2, D1, E2, E1, H3,
//! active high; the FIRE1 button `btn[1]` on R1 (pull-down, pressed high)
//! is the reset, as LiteX-Boards' `radiona_ulx3s` platform uses it;
//! `wifi_gpio0` on L2 is driven high, as the board's examples do, so the
//! ESP32 does not reboot the board. LED 0: power-on done (PLL locked and
//! the sequencer through); LED 1: bridge traffic; LED 2: a refused frame
//! since the last CORE_RESET; the others off.

use crate::board_shell::BoardShell;
use crate::nic_core::BuildId;
use crate::nic_system::NicSystem;

/// Flow-id bits of the board's NIC system (4,096 flows).
pub const FLOW_BITS: usize = crate::nic_core::FB_4K;
/// The board's NIC system.
type System = NicSystem<FLOW_BITS, { FLOW_BITS + 5 }, { FLOW_BITS + 30 }>;
use ldcp_sim::board_shell::LED_HOLD_BITS;
use rust_hdl::prelude::*;

const HB: usize = LED_HOLD_BITS as usize;

/// The system clock, MHz.
pub const CLOCK_MHZ: f64 = 50.0;
/// The oscillator, MHz.
pub const OSC_MHZ: f64 = 25.0;
/// The UART line rate on the board.
pub const BAUD: u32 = ldcp_sim::uart_bridge::DEFAULT_BAUD;
/// Clocks per UART bit on the board.
pub const BAUD_DIV: u32 = 50;
/// EHXPLLL: CLKI_DIV, CLKFB_DIV, CLKOP_DIV, CLKOP_CPHASE.
pub const PLL: (u32, u32, u32, u32) = (5, 10, 12, 5);
/// The LED pins, LED 0 first.
pub const LED_PINS: [&str; 8] = ["B2", "C2", "C1", "D2", "D1", "E2", "E1", "H3"];

/// The EHXPLLL's output frequency for its settings, MHz (feedback from CLKOP).
pub fn pll_out_mhz(osc_mhz: f64, pll: (u32, u32, u32, u32)) -> f64 {
    osc_mhz / pll.0 as f64 * pll.1 as f64
}

shell_board_core!(
    /// The whole-system board core (see the module doc).
    SystemBoardCore,
    System
);

/// The board core's module. The system's observation outputs stay open
/// on the board (the bus reaches every block's results).
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "system_board_core",
    doc: "the whole LDCP system on the ULX3S (ECP5): power-on sequencer, UART-to-register bridge (framed, CRC-8), LEDs, and the NIC system (NIC core, pacing timer, fast-start marker, ACK generator, WRED/ECN port)",
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
    subs: &[&crate::nic_system::MODULE_4K],
};

/// The board core's finalized Verilog (module [`MODULE`]), stamped.
pub fn core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    // the marks `nic_system` has as a top, inside it here too (without
    // them Verilator ran this core at half the speed once the fast-start
    // hand-off joined the marker's outputs to the core's inputs)
    let raw = crate::generate::raw_verilog(SystemBoardCore::new(build))
        .map(|v| {
            crate::verilog::isolate_table_inputs(&crate::verilog::isolate_sub_inputs_in(
                &crate::verilog::isolate_sub_inputs(&v),
                "top$sys",
            ))
        })
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, MODULE.name, MODULE.doc, &MODULE.open_all())
}

/// The board's top module name.
pub const TOP: &str = "ldcp_ulx3s";

/// The board's top module: the EHXPLLL, the hold, the LEDs, and
/// `system_board_core` with its divider and LED hold tied. Hand-written
/// Verilog, because RustHDL 0.46 has no ECP5 primitives.
pub fn top_verilog() -> String {
    top_of(TOP, MODULE.name, "the whole LDCP system")
}

/// A ULX3S top module `top` around board core `core` (the shell's ports),
/// `what` in its header: the PLL, the hold, the LEDs of [`top_verilog`].
pub fn top_of(top: &str, core: &str, what: &str) -> String {
    use ldcp_sim::ports::Ports;
    let (clki, clkfb, clkop, cphase) = PLL;
    let hold = ldcp_sim::board_shell::led_hold_cycles(CLOCK_MHZ);
    let obs: String = ldcp_sim::board_shell::ShellOut::PORTS
        .iter()
        .filter(|p| p.name.starts_with("obs_"))
        .map(|p| format!(",\n        .{}()", p.name))
        .collect();
    format!(
        "// {top}: {what} on the ULX3S (ECP5 LFE5U-85F, CABGA381).\n\
         // Generated by ldcp-hdl (hdl/src/system_board.rs); do not edit.\n\
         // {OSC_MHZ} MHz oscillator -> EHXPLLL -> {CLOCK_MHZ} MHz system clock;\n\
         // UART {BAUD} baud 8N1 ({BAUD_DIV} clocks per bit) to the FT231X USB-UART;\n\
         // LED 0 power-on done, 1 bridge traffic, 2 a refused frame.\n\
         module {top}(\n\
         \x20   input  wire clk_25mhz,\n\
         \x20   input  wire btn_fire1,\n\
         \x20   input  wire ftdi_txd,\n\
         \x20   output wire ftdi_rxd,\n\
         \x20   output wire [7:0] led,\n\
         \x20   output wire wifi_gpio0\n\
         );\n\
         \x20   wire clk;\n\
         \x20   wire locked;\n\
         \x20   assign wifi_gpio0 = 1'b1;\n\
         \x20   assign led[7:3] = 5'b0;\n\
         \x20   (* FREQUENCY_PIN_CLKI=\"{OSC_MHZ}\" *)\n\
         \x20   (* FREQUENCY_PIN_CLKOP=\"{CLOCK_MHZ}\" *)\n\
         \x20   (* ICP_CURRENT=\"12\" *) (* LPF_RESISTOR=\"8\" *) (* MFG_ENABLE_FILTEROPAMP=\"1\" *) (* MFG_GMCREF_SEL=\"2\" *)\n\
         \x20   EHXPLLL #(\n\
         \x20       .PLLRST_ENA(\"DISABLED\"),\n\
         \x20       .INTFB_WAKE(\"DISABLED\"),\n\
         \x20       .STDBY_ENABLE(\"DISABLED\"),\n\
         \x20       .DPHASE_SOURCE(\"DISABLED\"),\n\
         \x20       .OUTDIVIDER_MUXA(\"DIVA\"),\n\
         \x20       .OUTDIVIDER_MUXB(\"DIVB\"),\n\
         \x20       .OUTDIVIDER_MUXC(\"DIVC\"),\n\
         \x20       .OUTDIVIDER_MUXD(\"DIVD\"),\n\
         \x20       .CLKI_DIV({clki}),\n\
         \x20       .CLKOP_ENABLE(\"ENABLED\"),\n\
         \x20       .CLKOP_DIV({clkop}),\n\
         \x20       .CLKOP_CPHASE({cphase}),\n\
         \x20       .CLKOP_FPHASE(0),\n\
         \x20       .FEEDBK_PATH(\"CLKOP\"),\n\
         \x20       .CLKFB_DIV({clkfb})\n\
         \x20   ) pll (\n\
         \x20       .RST(1'b0),\n\
         \x20       .STDBY(1'b0),\n\
         \x20       .CLKI(clk_25mhz),\n\
         \x20       .CLKOP(clk),\n\
         \x20       .CLKFB(clk),\n\
         \x20       .CLKINTFB(),\n\
         \x20       .PHASESEL0(1'b0),\n\
         \x20       .PHASESEL1(1'b0),\n\
         \x20       .PHASEDIR(1'b1),\n\
         \x20       .PHASESTEP(1'b1),\n\
         \x20       .PHASELOADREG(1'b1),\n\
         \x20       .PLLWAKESYNC(1'b0),\n\
         \x20       .ENCLKOP(1'b0),\n\
         \x20       .LOCK(locked)\n\
         \x20   );\n\
         \x20   {core} core (\n\
         \x20       .clock(clk),\n\
         \x20       .uart_rx(ftdi_txd),\n\
         \x20       .cfg_bit_cycles(10'd{BAUD_DIV}),\n\
         \x20       .cfg_led_hold_cycles({LED_HOLD_BITS}'d{hold}),\n\
         \x20       .reset_hold(~locked | btn_fire1),\n\
         \x20       .uart_tx(ftdi_rxd),\n\
         \x20       .led_ready(led[0]),\n\
         \x20       .led_activity(led[1]),\n\
         \x20       .led_error(led[2]){obs}\n\
         \x20   );\n\
         endmodule\n"
    )
}

/// The board's pin constraints (nextpnr-ecp5 LPF), from emard/ulx3s'
/// `doc/constraints/ulx3s_v20.lpf`.
pub fn lpf() -> String {
    lpf_of(TOP)
}

/// The ULX3S pin constraints for top module `top` (as [`lpf`]).
pub fn lpf_of(top: &str) -> String {
    let leds: String = LED_PINS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "LOCATE COMP \"led[{i}]\" SITE \"{p}\";\n\
                 IOBUF PORT \"led[{i}]\" PULLMODE=NONE IO_TYPE=LVCMOS33 DRIVE=4;\n"
            )
        })
        .collect();
    format!(
        "# ULX3S (LFE5U-85F, CABGA381): pins of {top}. Generated by ldcp-hdl; do not edit.\n\
         # Sites and I/O settings from emard/ulx3s doc/constraints/ulx3s_v20.lpf.\n\
         BLOCK RESETPATHS;\n\
         BLOCK ASYNCPATHS;\n\
         # 25 MHz oscillator\n\
         LOCATE COMP \"clk_25mhz\" SITE \"G2\";\n\
         IOBUF PORT \"clk_25mhz\" PULLMODE=NONE IO_TYPE=LVCMOS33;\n\
         FREQUENCY PORT \"clk_25mhz\" {OSC_MHZ} MHZ;\n\
         # FT231X USB-UART: ftdi_txd is the FPGA's input, ftdi_rxd its output\n\
         LOCATE COMP \"ftdi_txd\" SITE \"M1\";\n\
         IOBUF PORT \"ftdi_txd\" PULLMODE=UP IO_TYPE=LVCMOS33;\n\
         LOCATE COMP \"ftdi_rxd\" SITE \"L4\";\n\
         IOBUF PORT \"ftdi_rxd\" PULLMODE=UP IO_TYPE=LVCMOS33 DRIVE=4;\n\
         # FIRE1 (btn[1]): reset, pressed high\n\
         LOCATE COMP \"btn_fire1\" SITE \"R1\";\n\
         IOBUF PORT \"btn_fire1\" PULLMODE=DOWN IO_TYPE=LVCMOS33;\n\
         # ESP32 GPIO0, held high\n\
         LOCATE COMP \"wifi_gpio0\" SITE \"L2\";\n\
         IOBUF PORT \"wifi_gpio0\" PULLMODE=UP IO_TYPE=LVCMOS33 DRIVE=4;\n\
         # LEDs 0..7, active high\n\
         {leds}"
    )
}

ldcp_sim::shell_board_ports!(crate::hand_stepped {
    SystemBoardCore [],
    ldcp_sim::board_shell::ShellIn,
    ldcp_sim::board_shell::ShellOut
});

/// The board core in RustHDL's simulator, stepped by hand.
pub type SystemBoardRustHdl = crate::stepper::RustHdlSim<SystemBoardCore>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulx3s_pll_gives_50_mhz_and_the_uart_1_mbaud() {
        let (clki, clkfb, clkop, cphase) = PLL;
        assert_eq!(pll_out_mhz(OSC_MHZ, PLL), CLOCK_MHZ);
        // ECP5 EHXPLLL limits (Lattice TN1263): PFD 3.125..400 MHz, VCO 400..800 MHz
        let pfd = OSC_MHZ / clki as f64;
        let vco = CLOCK_MHZ * clkop as f64;
        assert!((3.125..=400.0).contains(&pfd) && (400.0..=800.0).contains(&vco));
        assert_eq!(pfd * clkfb as f64, CLOCK_MHZ);
        assert_eq!(cphase, (clkop - 1) / 2);
        assert_eq!(CLOCK_MHZ * 1e6 / BAUD_DIV as f64, BAUD as f64);
        let top = top_verilog();
        assert!(top.contains(".CLKOP_DIV(12)") && top.contains("10'd50"));
        let lpf = lpf();
        assert!(lpf.contains("LOCATE COMP \"clk_25mhz\" SITE \"G2\";"));
        assert!(lpf.contains("LOCATE COMP \"ftdi_txd\" SITE \"M1\";"));
        assert!(lpf.contains("LOCATE COMP \"led[7]\" SITE \"H3\";"));
    }

    #[test]
    fn system_board_rusthdl_simulation_matches_model() {
        use ldcp_sim::board_shell::ShellStimulus;
        use ldcp_sim::system_board::SystemBoardModel;
        let mut sim = SystemBoardRustHdl::new();
        let mut m = SystemBoardModel::new(ldcp_sim::nic_system::NicSystemModel::new_4k(0, true));
        let line = ShellStimulus::new(
            4,
            40,
            ldcp_sim::nic_system::SysStimulus::sized(ldcp_sim::nic_core::FLOW_BITS_4K),
        );
        for (c, i) in ldcp_sim::seeded(line, 7).take(1_500).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
