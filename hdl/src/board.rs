//! The Alchitry Cu board: `BoardCore` (power-on sequencer, UART bridge,
//! NIC core; RustHDL, cosimulated against `ldcp_sim::board::BoardModel`),
//! and the board's top module, pin constraints and PLL settings that
//! `ldcp synth --board alchitry-cu` wraps around it.
//!
//! # Clock: a 60 MHz PLL clock from the 100 MHz oscillator
//! The NIC core places at 94% of the HX8K and closes at 77-86 MHz with a
//! 100 MHz target (its engine-port priority mux is the critical path), so
//! the board clock is a PLL-derived 60 MHz: 100 MHz x 48 / (5 x 16) with
//! `SB_PLL40_CORE` (DIVR 4, DIVF 47, DIVQ 4, FILTER_RANGE 2: PFD 20 MHz,
//! VCO 960 MHz; `icepll -i 100 -o 60` gives the same). At one ACK event per
//! clock that is 60 M events/s, about five times the per-packet ACK rate
//! of a 100 Gb/s link with 1 KB packets (12.2 M packets/s), and 60 clocks
//! per bit give the UART exactly 1 Mbaud.
//!
//! # Pins (ICE40HX8K-CB132, Alchitry Cu)
//! The 100 MHz oscillator is on P7, the reset button (active low, with the
//! pin's pull-up on) on P8; the FTDI USB-UART's line into the FPGA is P14,
//! the FPGA's line out M9 (LiteX-Boards' `alchitry_cu` platform as
//! corrected: serial rx P14, tx M9; an earlier revision of it had them
//! swapped, as does one amaranth-boards copy; a board user's notes, marked
//! hardware-verified, also give usb_rx P14 and usb_tx M9).

use crate::nic_core::{BuildId, NicCore};
use crate::uart_bridge::UartBridge;
use rust_hdl::prelude::*;

/// The board clock, MHz.
pub const CLOCK_MHZ: f64 = 60.0;
/// The oscillator, MHz.
pub const OSC_MHZ: f64 = 100.0;
/// The UART line rate on the board.
pub const BAUD: u32 = ldcp_sim::uart_bridge::DEFAULT_BAUD;
/// Clocks per UART bit on the board.
pub const BAUD_DIV: u32 = 60;
/// SB_PLL40_CORE: DIVR, DIVF, DIVQ, FILTER_RANGE.
pub const PLL: (u32, u32, u32, u32) = (4, 47, 4, 2);

/// The PLL's output frequency for its settings, MHz (SIMPLE feedback).
pub fn pll_out_mhz(osc_mhz: f64, pll: (u32, u32, u32, u32)) -> f64 {
    osc_mhz * (pll.1 + 1) as f64 / ((pll.0 + 1) as f64 * (1u32 << pll.2) as f64)
}

/// The board core: what runs on the PLL clock.
#[derive(LogicBlock)]
pub struct BoardCore {
    /// The PLL clock.
    pub clock: Signal<In, Clock>,
    /// The UART line from the host (FTDI), asynchronous.
    pub uart_rx: Signal<In, Bit>,
    /// Clocks per UART bit (the board ties it to 60).
    pub baud_div: Signal<In, Bits<10>>,
    /// Power-on hold: PLL not locked, or the reset button pressed.
    pub hold: Signal<In, Bit>,
    /// The UART line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// Observation: the NIC core's bus address.
    pub dbg_addr: Signal<Out, Bits<12>>,
    /// Observation: the bus write data.
    pub dbg_wdata: Signal<Out, Bits<32>>,
    /// Observation: the bus write strobe.
    pub dbg_we: Signal<Out, Bit>,
    /// Observation: the bus read strobe.
    pub dbg_re: Signal<Out, Bit>,
    /// Observation: the core's read data.
    pub dbg_rdata: Signal<Out, Bits<32>>,
    /// Observation: the core's read-valid.
    pub dbg_rvalid: Signal<Out, Bit>,
    /// Observation (the core's tap `core_rst`): the core resets at this edge.
    pub dbg_core_rst: Signal<Out, Bit>,
    /// Observation (the core's tap `upd_valid`): the window engine's update.
    pub dbg_upd_valid: Signal<Out, Bit>,
    /// Observation (the core's tap `upd_flow`): its flow.
    pub dbg_upd_flow: Signal<Out, Bits<8>>,
    /// Observation (the core's tap `upd_interval`): its pacing interval.
    pub dbg_upd_interval: Signal<Out, Bits<24>>,
    /// Observation (the core's tap `upd_restart`): it is a flow reset's result.
    pub dbg_upd_restart: Signal<Out, Bit>,
    /// Observation (the core's tap `flow_reset`): a FLOW_CMD RESET is accepted.
    pub dbg_flow_reset: Signal<Out, Bit>,
    /// Observation (the core's tap `flow_reset_id`): its flow.
    pub dbg_flow_reset_id: Signal<Out, Bits<8>>,
    /// Observation (the core's tap `cnt_clear`): CNT_CLEAR is written.
    pub dbg_cnt_clear: Signal<Out, Bit>,
    bridge: UartBridge,
    core: NicCore,
    hold_s1: DFFWithInit<Bit>,
    hold_s2: DFFWithInit<Bit>,
    por: DFF<Bits<8>>,
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
        let reset_addr = ldcp_regmap::register("CORE_RESET").map_or(0, |r| r.offset);
        BoardCore {
            clock: Default::default(),
            uart_rx: Default::default(),
            baud_div: Default::default(),
            hold: Default::default(),
            uart_tx: Default::default(),
            dbg_addr: Default::default(),
            dbg_wdata: Default::default(),
            dbg_we: Default::default(),
            dbg_re: Default::default(),
            dbg_rdata: Default::default(),
            dbg_rvalid: Default::default(),
            dbg_core_rst: Default::default(),
            dbg_upd_valid: Default::default(),
            dbg_upd_flow: Default::default(),
            dbg_upd_interval: Default::default(),
            dbg_upd_restart: Default::default(),
            dbg_flow_reset: Default::default(),
            dbg_flow_reset_id: Default::default(),
            dbg_cnt_clear: Default::default(),
            bridge: Default::default(),
            core: NicCore::new(build),
            hold_s1: DFFWithInit::new(true),
            hold_s2: DFFWithInit::new(true),
            por: Default::default(),
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
        BoardCore::new(BuildId {
            hash: 0,
            dirty: true,
        })
    }
}

impl Logic for BoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hold_s1, hold_s2, por);
        self.bridge.clock.next = self.clock.val();
        self.core.clock.next = self.clock.val();

        // ---- power-on: CORE_RESET once the hold has been low for 254 clocks
        self.hold_s1.d.next = self.hold.val();
        self.hold_s2.d.next = self.hold_s1.q.val();
        self.active.next = !self.por.q.val().all();
        if self.hold_s2.q.val() {
            self.por.d.next = bits::<8>(0);
        } else if self.active.val() {
            self.por.d.next = self.por.q.val() + self.one8.val();
        }

        // ---- the bus: the bridge, or the sequencer's one write
        self.bridge.rx.next = self.uart_rx.val();
        self.bridge.baud_div.next = self.baud_div.val();
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
        self.core.sweep_hold.next = false;

        // ---- outputs
        self.uart_tx.next = self.bridge.tx.val();
        self.dbg_addr.next = self.addr.val();
        self.dbg_wdata.next = self.wdata.val();
        self.dbg_we.next = self.we.val();
        self.dbg_re.next = self.re.val();
        self.dbg_rdata.next = self.core.bus_rdata.val();
        self.dbg_rvalid.next = self.core.bus_rvalid.val();
        self.dbg_core_rst.next = self.core.core_rst.val();
        self.dbg_upd_valid.next = self.core.upd_valid.val();
        self.dbg_upd_flow.next = self.core.upd_flow.val();
        self.dbg_upd_interval.next = self.core.upd_interval.val();
        self.dbg_upd_restart.next = self.core.upd_restart.val();
        self.dbg_flow_reset.next = self.core.flow_reset.val();
        self.dbg_flow_reset_id.next = self.core.flow_reset_id.val();
        self.dbg_cnt_clear.next = self.core.cnt_clear.val();
    }
}

/// The board core's finalized Verilog (module `board_core`), stamped.
pub fn core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    let info = crate::blocks::find("board_core").expect("board_core is a block");
    let raw = crate::blocks::raw_verilog(BoardCore::new(build))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize(&raw, info.name, info.doc)
}

/// The board's top module name.
pub const TOP: &str = "ldcp_alchitry_cu";

/// The board's top module: the PLL, the hold, and `board_core` with its
/// divider tied to [`BAUD_DIV`]. Hand-written Verilog, because RustHDL 0.46
/// has no iCE40 PLL primitive; it has no logic but one OR gate.
pub fn top_verilog() -> String {
    let (divr, divf, divq, filter) = PLL;
    format!(
        "// {TOP}: the LDCP NIC core on the Alchitry Cu (iCE40-HX8K, cb132).\n\
         // Generated by ldcp-hdl (hdl/src/board.rs); do not edit.\n\
         // {OSC_MHZ} MHz oscillator -> SB_PLL40_CORE -> {CLOCK_MHZ} MHz core clock;\n\
         // UART {BAUD} baud 8N1 ({BAUD_DIV} clocks per bit) to the FTDI USB-UART.\n\
         module {TOP}(\n\
         \x20   input  wire clk_100mhz,\n\
         \x20   input  wire rst_n,\n\
         \x20   input  wire usb_rx,\n\
         \x20   output wire usb_tx\n\
         );\n\
         \x20   wire clk;\n\
         \x20   wire locked;\n\
         \x20   SB_PLL40_CORE #(\n\
         \x20       .FEEDBACK_PATH(\"SIMPLE\"),\n\
         \x20       .DIVR(4'd{divr}),\n\
         \x20       .DIVF(7'd{divf}),\n\
         \x20       .DIVQ(3'd{divq}),\n\
         \x20       .FILTER_RANGE(3'd{filter})\n\
         \x20   ) pll (\n\
         \x20       .REFERENCECLK(clk_100mhz),\n\
         \x20       .PLLOUTGLOBAL(clk),\n\
         \x20       .LOCK(locked),\n\
         \x20       .RESETB(1'b1),\n\
         \x20       .BYPASS(1'b0)\n\
         \x20   );\n\
         \x20   board_core core (\n\
         \x20       .clock(clk),\n\
         \x20       .uart_rx(usb_rx),\n\
         \x20       .baud_div(10'd{BAUD_DIV}),\n\
         \x20       .hold(~locked | ~rst_n),\n\
         \x20       .uart_tx(usb_tx),\n\
         \x20       .dbg_addr(),\n\
         \x20       .dbg_wdata(),\n\
         \x20       .dbg_we(),\n\
         \x20       .dbg_re(),\n\
         \x20       .dbg_rdata(),\n\
         \x20       .dbg_rvalid(),\n\
         \x20       .dbg_core_rst(),\n\
         \x20       .dbg_upd_valid(),\n\
         \x20       .dbg_upd_flow(),\n\
         \x20       .dbg_upd_interval(),\n\
         \x20       .dbg_upd_restart(),\n\
         \x20       .dbg_flow_reset(),\n\
         \x20       .dbg_flow_reset_id(),\n\
         \x20       .dbg_cnt_clear()\n\
         \x20   );\n\
         endmodule\n"
    )
}

/// The board's pin constraints (nextpnr-ice40 PCF).
pub fn pcf() -> String {
    format!(
        "# Alchitry Cu (ICE40HX8K-CB132): pins of {TOP}. Generated by ldcp-hdl; do not edit.\n\
         # 100 MHz oscillator\n\
         set_io clk_100mhz P7\n\
         set_frequency clk_100mhz {OSC_MHZ}\n\
         # reset button, active low\n\
         set_io -pullup yes rst_n P8\n\
         # FTDI USB-UART (FT2232 channel B): the host's line into the FPGA, the FPGA's line out\n\
         set_io usb_rx P14\n\
         set_io usb_tx M9\n"
    )
}

impl crate::stepper::HandStepped for BoardCore {
    type Inputs = ldcp_sim::board::BoardIn;
    type Outputs = ldcp_sim::board::BoardOut;

    fn set_clock(&mut self, high: bool) {
        self.clock.next = Clock::from(high);
    }

    fn set_inputs(&mut self, i: &Self::Inputs) {
        self.uart_rx.next = i.rx;
        self.baud_div.next = ((i.baud_div & 0x3ff) as u64).into();
        self.hold.next = i.hold;
    }

    fn outputs(&self) -> Self::Outputs {
        use ldcp_regmap::model::{BusIn, BusOut};
        ldcp_sim::board::BoardOut {
            tx: self.uart_tx.val(),
            bus: BusIn {
                addr: self.dbg_addr.val().to_u32(),
                wdata: self.dbg_wdata.val().to_u32(),
                we: self.dbg_we.val(),
                re: self.dbg_re.val(),
            },
            core: BusOut {
                rdata: self.dbg_rdata.val().to_u32(),
                rvalid: self.dbg_rvalid.val(),
            },
            taps: ldcp_sim::nic_core::Taps {
                core_rst: self.dbg_core_rst.val(),
                upd_valid: self.dbg_upd_valid.val(),
                upd_flow: self.dbg_upd_flow.val().to_u32(),
                upd_interval: self.dbg_upd_interval.val().to_u32(),
                upd_restart: self.dbg_upd_restart.val(),
                flow_reset: self.dbg_flow_reset.val(),
                flow_reset_id: self.dbg_flow_reset_id.val().to_u32(),
                cnt_clear: self.dbg_cnt_clear.val(),
            },
        }
    }
}

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
    fn board_pll_gives_60_mhz_and_the_uart_1_mbaud() {
        assert_eq!(pll_out_mhz(OSC_MHZ, PLL), CLOCK_MHZ);
        let (divr, divf, divq, _) = PLL;
        // iCE40 limits (SB_PLL40 datasheet): PFD 10..133 MHz, VCO 533..1066 MHz
        let pfd = OSC_MHZ / (divr + 1) as f64;
        let vco = pfd * (divf + 1) as f64;
        assert!((10.0..=133.0).contains(&pfd) && (533.0..=1066.0).contains(&vco));
        assert_eq!(vco / (1u32 << divq) as f64, CLOCK_MHZ);
        assert_eq!(CLOCK_MHZ * 1e6 / BAUD_DIV as f64, BAUD as f64);
        let top = top_verilog();
        assert!(top.contains("10'd60") && top.contains(".DIVF(7'd47)"));
        assert!(pcf().contains("set_io usb_rx P14") && pcf().contains("set_io clk_100mhz P7"));
    }
}
