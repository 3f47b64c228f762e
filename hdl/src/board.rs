//! The Alchitry Cu board: `BoardCore` (power-on sequencer, UART bridge,
//! NIC core; RustHDL, cosimulated against `ldcp_sim::board::BoardModel`),
//! and the board's top module and pin constraints that
//! `ldcp synth --board alchitry-cu` wraps around it.
//!
//! # Clock: the 100 MHz oscillator itself, no PLL
//! The board core runs on the Cu's oscillator (pin P7) directly: no PLL,
//! no derating; the build holds 100 MHz and fails when a placement misses
//! it (the committed report gives the margin over every seed). At one ACK
//! event per clock that is 100 M events/s, about eight times the
//! per-packet ACK rate of a 100 Gb/s link with 1 KB packets (12.2 M
//! packets/s), and 100 clocks per bit give the UART 1 Mbaud. Until the
//! register decoders registered their writes and read in two stages the
//! board ran a 60 MHz PLL clock (`SB_PLL40_CORE` DIVR 4, DIVF 47, DIVQ 4),
//! because the core closed at 74-88 MHz beside the bridge. Reset: the
//! button (active low) holds the core; at configuration every register is
//! zero and the power-on sequencer writes CORE_RESET.
//!
//! # LEDs (two flip-flops: the board is full)
//! - LED 0, ready: the power-on sequence is over (the bridge is live).
//! - LED 1, activity: toggles at every bus access of the bridge and every
//!   refused frame, so each command changes it and sustained traffic makes
//!   it glow. The board shell's LED (lit for 1/16 s after traffic, on the
//!   switch port's board and the ULX3S) needs a 24-bit hold counter; on this
//!   board the shell and its LEDs took the core to 7,645 of the 7,680 cells
//!   and 100 MHz was met at 1 placement seed of 5 (branch
//!   `wip/nic-board-leds`).
//! - LED 2, error: a frame was refused (bad CRC, op or address) since the
//!   core last reset (a CORE_RESET write, the power-on one included).
//!
//! # Pins (ICE40HX8K-CB132, Alchitry Cu)
//! The 100 MHz oscillator is on P7, the reset button (active low, with the
//! pin's pull-up on) on P8; the FTDI USB-UART's line into the FPGA is P14,
//! the FPGA's line out M9 (LiteX-Boards' `alchitry_cu` platform as
//! corrected: serial rx P14, tx M9; an earlier revision of it had them
//! swapped, as does one amaranth-boards copy; a board user's notes, marked
//! hardware-verified, also give usb_rx P14 and usb_tx M9).

use crate::nic_core::{BuildId, NicCoreIce40};
use crate::uart_bridge::UartBridge;
use rust_hdl::prelude::*;

pub use ldcp_sim::board::{BAUD, BAUD_DIV, CLOCK_MHZ, OSC_MHZ};
/// An iCE40 `SB_PLL40_CORE` in SIMPLE feedback: its reference divider,
/// feedback divider, output divider (a power of two) and loop filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ice40Pll {
    /// DIVR: the reference clock over DIVR + 1 is the phase detector's.
    pub divr: u32,
    /// DIVF: the VCO runs at the phase detector's x (DIVF + 1).
    pub divf: u32,
    /// DIVQ: the output is the VCO over 2^DIVQ.
    pub divq: u32,
    /// FILTER_RANGE, for the phase detector's frequency.
    pub filter_range: u32,
}

impl Ice40Pll {
    /// The iCE40's limits (SB_PLL40 datasheet), MHz: the phase detector
    /// 10 to 133, the VCO 533 to 1,066, the output 16 to 275.
    pub const PFD_MHZ: (f64, f64) = (10.0, 133.0);
    /// See [`Ice40Pll::PFD_MHZ`].
    pub const VCO_MHZ: (f64, f64) = (533.0, 1066.0);
    /// See [`Ice40Pll::PFD_MHZ`].
    pub const OUT_MHZ: (f64, f64) = (16.0, 275.0);

    /// The phase detector's frequency, MHz, from a reference of `ref_mhz`.
    pub fn pfd_mhz(&self, ref_mhz: f64) -> f64 {
        ref_mhz / (self.divr + 1) as f64
    }

    /// The VCO's frequency, MHz.
    pub fn vco_mhz(&self, ref_mhz: f64) -> f64 {
        self.pfd_mhz(ref_mhz) * (self.divf + 1) as f64
    }

    /// The output frequency, MHz.
    pub fn out_mhz(&self, ref_mhz: f64) -> f64 {
        self.vco_mhz(ref_mhz) / (1u32 << self.divq) as f64
    }

    /// Whether every frequency is within the device's limits.
    pub fn within_limits(&self, ref_mhz: f64) -> bool {
        let inside = |f: f64, (lo, hi): (f64, f64)| (lo..=hi).contains(&f);
        inside(self.pfd_mhz(ref_mhz), Self::PFD_MHZ)
            && inside(self.vco_mhz(ref_mhz), Self::VCO_MHZ)
            && inside(self.out_mhz(ref_mhz), Self::OUT_MHZ)
    }

    /// The settings: parameter name, its width in bits, value.
    pub fn params(&self) -> [(&'static str, u32, u32); 4] {
        [
            ("DIVR", 4, self.divr),
            ("DIVF", 7, self.divf),
            ("DIVQ", 3, self.divq),
            ("FILTER_RANGE", 3, self.filter_range),
        ]
    }
}

/// The LED pins, LED 0 first (J11, K11, K12, K14, L12, L14, M12, N14:
/// Alchitry's Cu pin constraints, as LiteX-Boards' `alchitry_cu` platform
/// lists them), active high.
pub const LED_PINS: [&str; 8] = ["J11", "K11", "K12", "K14", "L12", "L14", "M12", "N14"];

/// The board core: what runs on the board clock.
#[derive(LogicBlock)]
pub struct BoardCore {
    /// The board clock.
    pub clock: Signal<In, Clock>,
    /// The UART line from the host (FTDI), asynchronous.
    pub uart_rx: Signal<In, Bit>,
    /// Clocks per UART bit (the board ties it to [`BAUD_DIV`]).
    pub cfg_bit_cycles: Signal<In, Bits<10>>,
    /// Power-on hold: the reset button pressed; asynchronous.
    pub reset_hold: Signal<In, Bit>,
    /// The UART line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// LED: the power-on sequence is over.
    pub led_ready: Signal<Out, Bit>,
    /// LED: toggles at every bus access of the bridge and every refused frame.
    pub led_activity: Signal<Out, Bit>,
    /// LED: a frame was refused since the core last reset.
    pub led_error: Signal<Out, Bit>,
    /// Observation: the NIC core's bus address.
    pub obs_bus_addr: Signal<Out, Bits<12>>,
    /// Observation: the bus write data.
    pub obs_bus_wdata: Signal<Out, Bits<32>>,
    /// Observation: the bus write strobe.
    pub obs_bus_we: Signal<Out, Bit>,
    /// Observation: the bus read strobe.
    pub obs_bus_re: Signal<Out, Bit>,
    /// Observation: the core's read data.
    pub obs_bus_rdata: Signal<Out, Bits<32>>,
    /// Observation: the core's read-valid.
    pub obs_bus_rvalid: Signal<Out, Bit>,
    /// Observation (the core's tap `core_rst`): the core resets at this edge.
    pub obs_sys_core_rst: Signal<Out, Bit>,
    /// Observation (the core's tap `upd_valid`): the window engine's update.
    pub obs_sys_upd_valid: Signal<Out, Bit>,
    /// Observation (the core's tap `upd_flow`): its flow.
    pub obs_sys_upd_flow: Signal<Out, Bits<8>>,
    /// Observation (the core's tap `upd_interval`): its pacing interval.
    pub obs_sys_upd_interval_ticks: Signal<Out, Bits<24>>,
    /// Observation (the core's tap `upd_restart`): it is a flow reset's result.
    pub obs_sys_upd_restart: Signal<Out, Bit>,
    /// Observation (the core's tap `flow_reset`): a FLOW_CMD RESET is accepted.
    pub obs_sys_flow_reset: Signal<Out, Bit>,
    /// Observation (the core's tap `flow_reset_id`): its flow.
    pub obs_sys_flow_reset_id: Signal<Out, Bits<8>>,
    /// Observation (the core's tap `cnt_clear`): CNT_CLEAR is written.
    pub obs_sys_cnt_clear: Signal<Out, Bit>,
    bridge: UartBridge,
    core: NicCoreIce40,
    hold_s1: DFFWithInit<Bit>,
    hold_s2: DFFWithInit<Bit>,
    por: DFF<Bits<8>>,
    act: DFF<Bit>,
    err: DFF<Bit>,
    c_por_write: Constant<Bits<8>>,
    c_reset_addr: Constant<Bits<12>>,
    one8: Constant<Bits<8>>,
    one32: Constant<Bits<32>>,
    active: Signal<Local, Bit>,
    addr: Signal<Local, Bits<12>>,
    wdata: Signal<Local, Bits<32>>,
    we: Signal<Local, Bit>,
    re: Signal<Local, Bit>,
}

impl BoardCore {
    /// The board core with its NIC core stamped with `build`.
    pub fn new(build: BuildId) -> Self {
        let reset_addr = ldcp_regmap::position::offset::CORE_RESET;
        BoardCore {
            clock: Default::default(),
            uart_rx: Default::default(),
            cfg_bit_cycles: Default::default(),
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
            obs_sys_core_rst: Default::default(),
            obs_sys_upd_valid: Default::default(),
            obs_sys_upd_flow: Default::default(),
            obs_sys_upd_interval_ticks: Default::default(),
            obs_sys_upd_restart: Default::default(),
            obs_sys_flow_reset: Default::default(),
            obs_sys_flow_reset_id: Default::default(),
            obs_sys_cnt_clear: Default::default(),
            bridge: Default::default(),
            core: NicCoreIce40::new(build),
            hold_s1: DFFWithInit::new(true),
            hold_s2: DFFWithInit::new(true),
            por: Default::default(),
            act: Default::default(),
            err: Default::default(),
            c_por_write: Constant::new(bits::<8>(ldcp_sim::board::POR_WRITE_AT as u64)),
            c_reset_addr: Constant::new(bits::<12>(reset_addr as u64)),
            one8: Constant::new(bits::<8>(1)),
            one32: Constant::new(bits::<32>(1)),
            active: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            we: Default::default(),
            re: Default::default(),
        }
    }
}

impl Default for BoardCore {
    /// GIT_HASH 0, CAPS.DIRTY set (tests, the flow's block).
    fn default() -> Self {
        BoardCore::new(BuildId::UNSTAMPED)
    }
}

impl Logic for BoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hold_s1, hold_s2, por, act, err);
        self.bridge.clock.next = self.clock.val();
        self.core.clock.next = self.clock.val();

        // ---- power-on: CORE_RESET once the hold has been low for 254 clocks
        self.hold_s1.d.next = self.reset_hold.val();
        self.hold_s2.d.next = self.hold_s1.q.val();
        self.active.next = !self.por.q.val().all();
        if self.hold_s2.q.val() {
            self.por.d.next = bits::<8>(0);
        } else if self.active.val() {
            self.por.d.next = self.por.q.val() + self.one8.val();
        }

        // ---- the bus: the bridge, or the sequencer's one write
        self.bridge.rx.next = self.uart_rx.val();
        self.bridge.baud_div.next = self.cfg_bit_cycles.val();
        self.bridge.clear.next = self.active.val();
        self.bridge.bus_rdata.next = self.core.bus_rdata.val();
        self.bridge.bus_rvalid.next = self.core.bus_rvalid.val();
        self.addr.next = self.bridge.bus_addr.val();
        self.wdata.next = self.bridge.bus_wdata.val();
        self.we.next = self.bridge.bus_we.val();
        self.re.next = self.bridge.bus_re.val();
        if self.por.q.val() == self.c_por_write.val() {
            self.addr.next = self.c_reset_addr.val();
            self.wdata.next = self.one32.val();
            self.we.next = true;
            self.re.next = false;
        }
        self.core.bus_addr.next = self.addr.val();
        self.core.bus_wdata.next = self.wdata.val();
        self.core.bus_we.next = self.we.val();
        self.core.bus_re.next = self.re.val();
        self.core.sys_sweep_hold.next = false;
        self.core.sys_set_valid.next = false;
        self.core.sys_set_flow.next = bits::<8>(0);
        self.core.sys_set_cw.next = bits::<32>(0);
        self.core.sys_push_valid.next = false;
        self.core.sys_push_event.next = bits::<{ crate::nic_core::PUSH_BITS }>(0);

        // ---- LEDs (see the module doc: two flip-flops, no hold counter)
        self.act.d.next = self.act.q.val()
            ^ (self.bridge.bus_we.val() | self.bridge.bus_re.val() | self.bridge.refused.val());
        if self.bridge.refused.val() {
            self.err.d.next = true;
        } else if self.core.sys_core_rst.val() {
            self.err.d.next = false;
        }

        // ---- outputs
        self.uart_tx.next = self.bridge.tx.val();
        self.led_ready.next = !self.active.val();
        self.led_activity.next = self.act.q.val();
        self.led_error.next = self.err.q.val();
        self.obs_bus_addr.next = self.addr.val();
        self.obs_bus_wdata.next = self.wdata.val();
        self.obs_bus_we.next = self.we.val();
        self.obs_bus_re.next = self.re.val();
        self.obs_bus_rdata.next = self.core.bus_rdata.val();
        self.obs_bus_rvalid.next = self.core.bus_rvalid.val();
        self.obs_sys_core_rst.next = self.core.sys_core_rst.val();
        self.obs_sys_upd_valid.next = self.core.sys_upd_valid.val();
        self.obs_sys_upd_flow.next = self.core.sys_upd_flow.val();
        self.obs_sys_upd_interval_ticks.next = self.core.sys_upd_interval_ticks.val();
        self.obs_sys_upd_restart.next = self.core.sys_upd_restart.val();
        self.obs_sys_flow_reset.next = self.core.sys_flow_reset.val();
        self.obs_sys_flow_reset_id.next = self.core.sys_flow_reset_id.val();
        self.obs_sys_cnt_clear.next = self.core.sys_cnt_clear.val();
    }
}

/// The board core's module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "board_core",
    doc: "the Alchitry Cu board core: power-on sequencer, UART-to-register bridge (framed, CRC-8), three LEDs, and the NIC core; the board top runs it on the 100 MHz oscillator (no PLL)",
    open: &[
        "core$sys_sweeping",
        "core$sys_upd_cw_pkts",
        "core$sys_set_ready",
        "core$sys_fifo_level",
    ],
    subs: &[&crate::nic_core::MODULE],
};

/// The board core's finalized Verilog (module [`MODULE`]), stamped.
pub fn core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, BoardCore::new(build))
}

/// The board's top module name.
pub const TOP: &str = "ldcp_alchitry_cu";

/// The board's top module: the hold, and `board_core` on the oscillator's
/// clock with its divider tied to [`BAUD_DIV`]. Hand-written Verilog (the
/// pins' names are the board's); it has no logic but one inverter.
pub fn top_verilog() -> String {
    use ldcp_sim::ports::Ports;
    // the observation ports (the core's bus and taps) stay open on the board
    let obs: String = ldcp_sim::board::BoardOut::PORTS
        .iter()
        .filter(|p| p.name.starts_with("obs_"))
        .map(|p| format!(",\n        .{}()", p.name))
        .collect();
    format!(
        "// {TOP}: the LDCP NIC core on the Alchitry Cu (iCE40-HX8K, cb132).\n\
         // Generated by ldcp-hdl (hdl/src/board.rs); do not edit.\n\
         // {OSC_MHZ} MHz oscillator -> {CLOCK_MHZ} MHz core clock (no PLL);\n\
         // UART {BAUD} baud 8N1 ({BAUD_DIV} clocks per bit) to the FTDI USB-UART;\n\
         // LED 0 power-on done, 1 toggles with bridge traffic, 2 a refused frame.\n\
         module {TOP}(\n\
         \x20   input  wire clk_100mhz,\n\
         \x20   input  wire rst_n,\n\
         \x20   input  wire usb_rx,\n\
         \x20   output wire usb_tx,\n\
         \x20   output wire [7:0] led\n\
         );\n\
         \x20   assign led[7:3] = 5'b0;\n\
         \x20   board_core core (\n\
         \x20       .clock(clk_100mhz),\n\
         \x20       .uart_rx(usb_rx),\n\
         \x20       .cfg_bit_cycles(10'd{BAUD_DIV}),\n\
         \x20       .reset_hold(~rst_n),\n\
         \x20       .uart_tx(usb_tx),\n\
         \x20       .led_ready(led[0]),\n\
         \x20       .led_activity(led[1]),\n\
         \x20       .led_error(led[2]){obs}\n\
         \x20   );\n\
         endmodule\n"
    )
}

/// The board's pin constraints (nextpnr-ice40 PCF).
pub fn pcf() -> String {
    pcf_of(TOP)
}

/// The Alchitry Cu's pin constraints for the top module `top` (this
/// board's, or the switch port's on a second Cu: the same pins).
pub fn pcf_of(top: &str) -> String {
    let leds: String = LED_PINS
        .iter()
        .enumerate()
        .map(|(i, p)| format!("set_io led[{i}] {p}\n"))
        .collect();
    format!(
        "# Alchitry Cu (ICE40HX8K-CB132): pins of {top}. Generated by ldcp-hdl; do not edit.\n\
         # 100 MHz oscillator\n\
         set_io clk_100mhz P7\n\
         set_frequency clk_100mhz {OSC_MHZ}\n\
         # reset button, active low\n\
         set_io -pullup yes rst_n P8\n\
         # FTDI USB-UART (FT2232 channel B): the host's line into the FPGA, the FPGA's line out\n\
         set_io usb_rx P14\n\
         set_io usb_tx M9\n\
         # LEDs 0..7, active high\n\
         {leds}"
    )
}

ldcp_sim::board_core_ports!(crate::hand_stepped {
    BoardCore [],
    ldcp_sim::board::BoardIn,
    ldcp_sim::board::BoardOut
});

/// The board core in RustHDL's simulator, stepped by hand.
pub type BoardCoreRustHdl = crate::stepper::RustHdlSim<BoardCore>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_core_rusthdl_simulation_matches_model() {
        // power-on, then frames at 4 clocks per bit
        let mut sim = BoardCoreRustHdl::new();
        let mut m = ldcp_sim::board::BoardModel::new(0, true);
        for (c, i) in ldcp_sim::board::stimulus(5, 4).take(2_500).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }

    #[test]
    fn board_runs_on_the_oscillator_and_the_uart_at_1_mbaud() {
        assert_eq!(CLOCK_MHZ * 1e6 / BAUD_DIV as f64, BAUD as f64);
        let top = top_verilog();
        assert!(top.contains("10'd100") && !top.contains("SB_PLL40"));
        assert!(top.contains(".clock(clk_100mhz)") && top.contains(".reset_hold(~rst_n)"));
        assert!(top.contains(".led_ready(led[0])") && top.contains(".led_error(led[2])"));
        let pcf = pcf();
        assert!(pcf.contains("set_io usb_rx P14") && pcf.contains("set_io clk_100mhz P7"));
        assert!(pcf.contains("set_io led[0] J11") && pcf.contains("set_io led[7] N14"));
    }
}
