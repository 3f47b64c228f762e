//! The switch port's board: `SwitchBoardCore` (the board shell
//! [`crate::board_shell::BoardShell`], the generated switch decoder
//! [`crate::switch_regfile::SwitchRegFile`] and the WRED/ECN port
//! [`crate::wred_ecn::WredEcn`]), and the top module and pin constraints
//! that `ldcp synth --board alchitry-cu-switch` wraps around it: the WRED/ECN
//! port on a second Alchitry Cu, a switch egress port beside the NIC.
//! `ldcp_sim::switch_board::SwitchBoardModel` is its model, register for
//! register (the WRED/ECN registers behave as in the NIC system; the
//! model's file says how).
//!
//! # Clock: the 100 MHz oscillator itself, no PLL
//! The board core runs on the Cu's oscillator (pin P7) directly: no PLL,
//! no derating. It used to run a 90 MHz PLL clock because the WRED/ECN
//! port's occupancy loop closed at 97-101 MHz alone and 93-99 MHz on the
//! board; the loop now takes its selects from registers computed a cycle
//! ahead (`crate::wred_ecn`, "The loop") and the build holds 100 MHz, failing
//! when a placement misses it (the committed report gives the margin over
//! every seed). 100 clocks per bit give the UART 1 Mbaud. Reset: the
//! button (active low) holds the core; at configuration every register is
//! zero and the shell's power-on sequencer releases the core.
//!
//! # Pins (ICE40HX8K-CB132, Alchitry Cu)
//! Those of the NIC board, LEDs included ([`crate::board`], which owns the
//! Cu's constraints). LED 0: power-on done; LED 1: bridge traffic; LED 2:
//! a refused frame since the last CORE_RESET; the others off.

use crate::board_shell::BoardShell;
use crate::nic_core::BuildId;
use crate::switch_regfile::SwitchRegFile;
use crate::wred_ecn::WredEcn;
use ldcp_sim::board_shell::LED_HOLD_BITS;
use rust_hdl::prelude::*;

const _: () = assert!(
    ldcp_regmap::BLOCKS_SWITCH_PORT == 1 << ldcp_regmap::BLOCK_WRED_ECN
        && ldcp_regmap::BLOCK_WRED_ECN == 4
);

const HB: usize = LED_HOLD_BITS as usize;

/// The board clock, MHz: the oscillator's, no PLL.
pub const CLOCK_MHZ: f64 = OSC_MHZ;
/// The oscillator, MHz.
pub const OSC_MHZ: f64 = 100.0;
/// The UART line rate on the board.
pub const BAUD: u32 = ldcp_sim::uart_bridge::DEFAULT_BAUD;
/// Clocks per UART bit on the board.
pub const BAUD_DIV: u32 = 100;

/// The switch port's board core (see the module doc).
#[derive(LogicBlock)]
pub struct SwitchBoardCore {
    /// The board clock.
    pub clock: Signal<In, Clock>,
    /// The UART line from the host (FTDI), asynchronous.
    pub uart_rx: Signal<In, Bit>,
    /// Clocks per UART bit (the board ties it to [`BAUD_DIV`]).
    pub cfg_bit_cycles: Signal<In, Bits<10>>,
    /// Cycles the activity LED stays lit after bridge traffic (the board ties it).
    pub cfg_led_hold_cycles: Signal<In, Bits<HB>>,
    /// Power-on hold: PLL not locked, or the reset button pressed; asynchronous.
    pub reset_hold: Signal<In, Bit>,
    /// The UART line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// LED: the power-on sequence is over.
    pub led_ready: Signal<Out, Bit>,
    /// LED: bridge traffic within the hold.
    pub led_activity: Signal<Out, Bit>,
    /// LED: a frame was refused since the last CORE_RESET.
    pub led_error: Signal<Out, Bit>,
    /// Observation: the bus address.
    pub obs_bus_addr: Signal<Out, Bits<12>>,
    /// Observation: the bus write data.
    pub obs_bus_wdata: Signal<Out, Bits<32>>,
    /// Observation: the bus write strobe.
    pub obs_bus_we: Signal<Out, Bit>,
    /// Observation: the bus read strobe.
    pub obs_bus_re: Signal<Out, Bit>,
    /// Observation: the decoder's read data.
    pub obs_bus_rdata: Signal<Out, Bits<32>>,
    /// Observation: the decoder's read-valid.
    pub obs_bus_rvalid: Signal<Out, Bit>,
    shell: BoardShell,
    regs: SwitchRegFile,
    wred: WredEcn,
    // CORE_RESET acts one cycle after its write, as in the NIC core
    reset_q: DFF<Bit>,
    // power-up: one cycle of reset for the port, whose generator state is 0
    // until a reset loads the seed
    por: DFFWithInit<Bit>,
    decision: DFF<Bits<2>>,
    ecn: DFF<Bits<2>>,
    c_hash: Constant<Bits<32>>,
    c_dirty: Constant<Bits<1>>,
    c_kind: Constant<Bits<2>>,
}

impl SwitchBoardCore {
    /// The board core reporting `build` in GIT_HASH and CAPS.DIRTY.
    pub fn new(build: BuildId) -> Self {
        SwitchBoardCore {
            clock: Default::default(),
            uart_rx: Default::default(),
            cfg_bit_cycles: Default::default(),
            cfg_led_hold_cycles: Default::default(),
            reset_hold: Default::default(),
            uart_tx: Default::default(),
            led_ready: Default::default(),
            led_activity: Default::default(),
            led_error: Default::default(),
            obs_bus_addr: Default::default(),
            obs_bus_wdata: Default::default(),
            obs_bus_we: Default::default(),
            obs_bus_re: Default::default(),
            obs_bus_rdata: Default::default(),
            obs_bus_rvalid: Default::default(),
            shell: Default::default(),
            regs: Default::default(),
            wred: Default::default(),
            reset_q: Default::default(),
            por: DFFWithInit::new(true),
            decision: Default::default(),
            ecn: Default::default(),
            c_hash: Constant::new(bits::<32>(build.hash as u64)),
            c_dirty: Constant::new(bits::<1>(build.dirty as u64)),
            c_kind: Constant::new(bits::<2>(ldcp_regmap::KIND_SWITCH_PORT as u64)),
        }
    }
}

impl Default for SwitchBoardCore {
    /// GIT_HASH 0, CAPS.DIRTY set (tests, the flow's block).
    fn default() -> Self {
        SwitchBoardCore::new(BuildId::UNSTAMPED)
    }
}

impl Logic for SwitchBoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, reset_q, por, decision, ecn);
        self.shell.clock.next = self.clock.val();
        self.regs.clock.next = self.clock.val();
        self.wred.clock.next = self.clock.val();

        // ---- the shell: UART, power-on, LEDs; it masters the bus
        self.shell.uart_rx.next = self.uart_rx.val();
        self.shell.cfg_bit_cycles.next = self.cfg_bit_cycles.val();
        self.shell.cfg_led_hold_cycles.next = self.cfg_led_hold_cycles.val();
        self.shell.reset_hold.next = self.reset_hold.val();
        self.shell.bus_rdata.next = self.regs.bus_rdata.val();
        self.shell.bus_rvalid.next = self.regs.bus_rvalid.val();
        self.regs.bus_addr.next = self.shell.bus_addr.val();
        self.regs.bus_wdata.next = self.shell.bus_wdata.val();
        self.regs.bus_we.next = self.shell.bus_we.val();
        self.regs.bus_re.next = self.shell.bus_re.val();

        // ---- id and reset
        self.regs.git_hash_hash.next = self.c_hash.val();
        self.regs.caps_flow_bits.next = bits::<8>(0);
        self.regs.caps_fifo_log2.next = bits::<8>(0);
        self.regs.caps_latency.next = bits::<8>(0);
        self.regs.caps_dirty.next = self.c_dirty.val();
        self.regs.caps_ext.next = bits::<1>(0);
        self.regs.caps_kind.next = self.c_kind.val();
        // BLOCKS: the WRED/ECN port only (ldcp_regmap::BLOCKS_SWITCH_PORT)
        self.regs.blocks_window_engine.next = bits::<1>(0);
        self.regs.blocks_pacing_timer.next = bits::<1>(0);
        self.regs.blocks_fast_start.next = bits::<1>(0);
        self.regs.blocks_ack_gen.next = bits::<1>(0);
        self.regs.blocks_wred_ecn.next = bits::<1>(1);
        self.regs.blocks_loop.next = bits::<1>(0);
        self.reset_q.d.next = self.regs.core_reset_wr.val() & self.regs.core_reset_go.val().any();
        self.regs.reset.next = self.reset_q.q.val();

        // ---- the WRED/ECN port (the packet fields are the decoder's registered
        // WRED_PKT word)
        self.por.d.next = false;
        self.wred.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.wred.in_valid.next = self.regs.wred_pkt_wr.val();
        self.wred.in_len_bytes.next = self.regs.wred_pkt_len.val();
        self.wred.in_ecn.next = self.regs.wred_pkt_ecn.val();
        self.wred.egress_drain_bytes.next = self.regs.wred_drain_bytes.val();
        self.wred.cfg_k_min_bytes.next = self.regs.wred_k_min_bytes.val();
        self.wred.cfg_k_max_bytes.next = self.regs.wred_k_max_bytes.val();
        self.wred.cfg_k_bytes.next = self.regs.wred_k_bytes.val();
        self.wred.cfg_buf_max_bytes.next = self.regs.wred_buf_max_bytes.val();
        self.wred.cfg_p_max.next = self.regs.wred_p_max_p.val();
        self.wred.cfg_seed.next = self.regs.wred_seed_seed.val();
        if self.wred.out_valid.val() {
            self.decision.d.next = self.wred.out_decision.val();
            self.ecn.d.next = self.wred.out_ecn.val();
        }
        if self.reset_q.q.val() {
            self.decision.d.next = bits::<2>(0);
            self.ecn.d.next = bits::<2>(0);
        }
        self.regs.wred_last_decision.next = self.decision.q.val();
        self.regs.wred_last_ecn.next = self.ecn.q.val();
        self.regs.wred_occ_bytes.next = self.wred.stat_occupancy_bytes.val();
        self.regs.wred_forwarded_count.next = self.wred.stat_forwarded_pkts.val();
        self.regs.wred_marked_count.next = self.wred.stat_marked_pkts.val();
        self.regs.wred_dropped_wred_count.next = self.wred.stat_dropped_wred_pkts.val();
        self.regs.wred_dropped_full_count.next = self.wred.stat_dropped_overflow_pkts.val();

        // ---- outputs
        self.uart_tx.next = self.shell.uart_tx.val();
        self.led_ready.next = self.shell.led_ready.val();
        self.led_activity.next = self.shell.led_activity.val();
        self.led_error.next = self.shell.led_error.val();
        self.obs_bus_addr.next = self.shell.bus_addr.val();
        self.obs_bus_wdata.next = self.shell.bus_wdata.val();
        self.obs_bus_we.next = self.shell.bus_we.val();
        self.obs_bus_re.next = self.shell.bus_re.val();
        self.obs_bus_rdata.next = self.regs.bus_rdata.val();
        self.obs_bus_rvalid.next = self.regs.bus_rvalid.val();
    }
}

/// The board core's module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "switch_board_core",
    doc: "the switch port's board core (alchitry-cu-switch): power-on sequencer, UART-to-register bridge (framed, CRC-8), LEDs, the switch register decoder and the WRED/ECN port",
    open: &[],
    subs: &[&crate::wred_ecn::MODULE],
};

/// The board core's finalized Verilog (module [`MODULE`]), stamped.
pub fn core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    let raw = crate::generate::raw_verilog(SwitchBoardCore::new(build))
        .map(|v| crate::verilog::isolate_sub_inputs(&v))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, MODULE.name, MODULE.doc, &MODULE.open_all())
}

/// The board's top module name.
pub const TOP: &str = "ldcp_switch_alchitry_cu";

/// The board's top module: the hold, the LEDs, and `switch_board_core`
/// on the oscillator's clock with its divider and LED hold tied.
/// Hand-written Verilog, like the NIC board's; it has no logic but one
/// inverter.
pub fn top_verilog() -> String {
    use ldcp_sim::ports::Ports;
    let hold = ldcp_sim::board_shell::led_hold_cycles(CLOCK_MHZ);
    let obs: String = ldcp_sim::board_shell::ShellOut::PORTS
        .iter()
        .filter(|p| p.name.starts_with("obs_"))
        .map(|p| format!(",\n        .{}()", p.name))
        .collect();
    format!(
        "// {TOP}: the LDCP switch port (WRED/ECN) on the Alchitry Cu (iCE40-HX8K, cb132).\n\
         // Generated by ldcp-hdl (hdl/src/switch_board.rs); do not edit.\n\
         // {OSC_MHZ} MHz oscillator -> {CLOCK_MHZ} MHz core clock (no PLL);\n\
         // UART {BAUD} baud 8N1 ({BAUD_DIV} clocks per bit) to the FTDI USB-UART;\n\
         // LED 0 power-on done, 1 bridge traffic, 2 a refused frame.\n\
         module {TOP}(\n\
         \x20   input  wire clk_100mhz,\n\
         \x20   input  wire rst_n,\n\
         \x20   input  wire usb_rx,\n\
         \x20   output wire usb_tx,\n\
         \x20   output wire [7:0] led\n\
         );\n\
         \x20   assign led[7:3] = 5'b0;\n\
         \x20   switch_board_core core (\n\
         \x20       .clock(clk_100mhz),\n\
         \x20       .uart_rx(usb_rx),\n\
         \x20       .cfg_bit_cycles(10'd{BAUD_DIV}),\n\
         \x20       .cfg_led_hold_cycles({LED_HOLD_BITS}'d{hold}),\n\
         \x20       .reset_hold(~rst_n),\n\
         \x20       .uart_tx(usb_tx),\n\
         \x20       .led_ready(led[0]),\n\
         \x20       .led_activity(led[1]),\n\
         \x20       .led_error(led[2]){obs}\n\
         \x20   );\n\
         endmodule\n"
    )
}

/// The board's pin constraints (nextpnr-ice40 PCF): the Alchitry Cu's,
/// as the NIC board's ([`crate::board::pcf_of`]).
pub fn pcf() -> String {
    crate::board::pcf_of(TOP)
}

ldcp_sim::shell_board_ports!(crate::hand_stepped {
    SwitchBoardCore [],
    ldcp_sim::board_shell::ShellIn,
    ldcp_sim::board_shell::ShellOut
});

/// The board core in RustHDL's simulator, stepped by hand.
pub type SwitchBoardRustHdl = crate::stepper::RustHdlSim<SwitchBoardCore>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::switch_board::{SwitchBoardModel, SwitchCoreModel, SwitchStimulus};

    #[test]
    fn switch_board_rusthdl_simulation_matches_model() {
        let mut sim = SwitchBoardRustHdl::new();
        let mut m = SwitchBoardModel::new(SwitchCoreModel::new(0, true));
        let line = ldcp_sim::board_shell::ShellStimulus::new(4, 40, SwitchStimulus::default());
        for (c, i) in ldcp_sim::seeded(line, 5).take(3_000).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }

    #[test]
    fn switch_board_pins_and_clock() {
        assert_eq!(CLOCK_MHZ * 1e6 / BAUD_DIV as f64, BAUD as f64);
        let top = top_verilog();
        assert!(top.contains("10'd100") && !top.contains("SB_PLL40"));
        assert!(top.contains(".clock(clk_100mhz)") && top.contains(".reset_hold(~rst_n)"));
        assert!(top.contains(".led_error(led[2])"));
        let pcf = pcf();
        assert!(pcf.contains("set_io usb_rx P14") && pcf.contains("set_io led[0] J11"));
        assert!(pcf.contains("set_frequency clk_100mhz 100"));
    }
}
