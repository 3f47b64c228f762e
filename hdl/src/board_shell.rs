//! `BoardShell`: what a board puts around its register-bus core: the
//! power-on sequencer, the UART bridge ([`crate::uart_bridge::UartBridge`])
//! and the board's three LEDs. Used by the switch port's board core
//! ([`crate::switch_board`]) and the ULX3S's ([`crate::system_board`]);
//! `ldcp_sim::board_shell::ShellModel` is its model, register for register.
//! (The Alchitry Cu NIC board core, [`crate::board::BoardCore`], wires the
//! same sequencer and bridge itself, without the bus register, and has
//! LEDs of two flip-flops: the shell's 24-bit activity hold does not fit
//! beside the NIC core at 100 MHz, see [`crate::board`].)
//!
//! # Power-on
//! `reset_hold` (PLL not locked, or the reset button) passes a two-flop
//! synchroniser; while it is high an 8-bit counter stays at 0, once low it
//! runs to 255. At 254 the sequencer writes CORE_RESET.GO on the bus (the
//! bridge's strobes are masked that cycle), so the core starts from its
//! reset values whatever the clock did before the PLL locked; until 255 the
//! bridge is held idle. The bus to the core is registered (one cycle after
//! the bridge's strobe, or the sequencer's count), so the core's decoder
//! starts from flip-flops; the bridge waits for `bus_rvalid` anyway.
//! Latency: CORE_RESET on the bus 257 cycles after the hold falls (two
//! synchroniser flops, 254 counts, the bus register).
//!
//! # LEDs
//! - `led_ready`: the power-on sequence is over (counter at 255).
//! - `led_activity`: a 24-bit counter, reloaded with
//!   `cfg_led_hold_cycles` whenever the bridge strobes the bus or refuses a
//!   frame, counts down to 0; the LED is lit while it is not 0.
//! - `led_error`: set by a refused frame (bad CRC, bad op or address),
//!   cleared by a CORE_RESET.GO write on the bus (the sequencer's at
//!   power-on included); a refusal and a bus write never share a cycle.

use crate::uart_bridge::UartBridge;
use ldcp_sim::board_shell::LED_HOLD_BITS;
use rust_hdl::prelude::*;

const HB: usize = LED_HOLD_BITS as usize;

/// The board shell (see the module doc).
#[derive(LogicBlock)]
pub struct BoardShell {
    /// The board clock.
    pub clock: Signal<In, Clock>,
    /// The UART line from the host, asynchronous.
    pub uart_rx: Signal<In, Bit>,
    /// Clocks per UART bit (the board ties it).
    pub cfg_bit_cycles: Signal<In, Bits<10>>,
    /// Cycles the activity LED stays lit after bridge traffic (the board ties it).
    pub cfg_led_hold_cycles: Signal<In, Bits<HB>>,
    /// Power-on hold: PLL not locked, or the reset button pressed; asynchronous.
    pub reset_hold: Signal<In, Bit>,
    /// The core's read data.
    pub bus_rdata: Signal<In, Bits<32>>,
    /// The core's read-valid.
    pub bus_rvalid: Signal<In, Bit>,
    /// The UART line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// The core's bus: byte address.
    pub bus_addr: Signal<Out, Bits<12>>,
    /// Write data.
    pub bus_wdata: Signal<Out, Bits<32>>,
    /// Write strobe.
    pub bus_we: Signal<Out, Bit>,
    /// Read strobe.
    pub bus_re: Signal<Out, Bit>,
    /// LED: the power-on sequence is over.
    pub led_ready: Signal<Out, Bit>,
    /// LED: bridge traffic within the last `cfg_led_hold_cycles` cycles.
    pub led_activity: Signal<Out, Bit>,
    /// LED: a frame was refused since the last CORE_RESET (sticky).
    pub led_error: Signal<Out, Bit>,
    bridge: UartBridge,
    hold_s1: DFFWithInit<Bit>,
    hold_s2: DFFWithInit<Bit>,
    por: DFF<Bits<8>>,
    addr_q: DFF<Bits<12>>,
    wdata_q: DFF<Bits<32>>,
    we_q: DFF<Bit>,
    re_q: DFF<Bit>,
    act: DFF<Bits<HB>>,
    err: DFF<Bit>,
    c_por_write: Constant<Bits<8>>,
    c_reset_addr: Constant<Bits<12>>,
    one8: Constant<Bits<8>>,
    one_hb: Constant<Bits<HB>>,
    one32: Constant<Bits<32>>,
    active: Signal<Local, Bit>,
    addr: Signal<Local, Bits<12>>,
    wdata: Signal<Local, Bits<32>>,
    we: Signal<Local, Bit>,
    re: Signal<Local, Bit>,
}

impl Default for BoardShell {
    fn default() -> Self {
        let reset_addr = ldcp_regmap::position::offset::CORE_RESET;
        BoardShell {
            clock: Default::default(),
            uart_rx: Default::default(),
            cfg_bit_cycles: Default::default(),
            cfg_led_hold_cycles: Default::default(),
            reset_hold: Default::default(),
            bus_rdata: Default::default(),
            bus_rvalid: Default::default(),
            uart_tx: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_we: Default::default(),
            bus_re: Default::default(),
            led_ready: Default::default(),
            led_activity: Default::default(),
            led_error: Default::default(),
            bridge: Default::default(),
            hold_s1: DFFWithInit::new(true),
            hold_s2: DFFWithInit::new(true),
            por: Default::default(),
            addr_q: Default::default(),
            wdata_q: Default::default(),
            we_q: Default::default(),
            re_q: Default::default(),
            act: Default::default(),
            err: Default::default(),
            c_por_write: Constant::new(bits::<8>(ldcp_sim::board::POR_WRITE_AT as u64)),
            c_reset_addr: Constant::new(bits::<12>(reset_addr as u64)),
            one8: Constant::new(bits::<8>(1)),
            one_hb: Constant::new(bits::<HB>(1)),
            one32: Constant::new(bits::<32>(1)),
            active: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            we: Default::default(),
            re: Default::default(),
        }
    }
}

impl Logic for BoardShell {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hold_s1, hold_s2, por, addr_q, wdata_q, we_q, re_q, act, err);
        self.bridge.clock.next = self.clock.val();

        // ---- power-on: CORE_RESET once the hold has been low for 254 clocks
        self.hold_s1.d.next = self.reset_hold.val();
        self.hold_s2.d.next = self.hold_s1.q.val();
        self.active.next = !self.por.q.val().all();
        if self.hold_s2.q.val() {
            self.por.d.next = bits::<8>(0);
        } else if self.active.val() {
            self.por.d.next = self.por.q.val() + self.one8.val();
        }

        // ---- the bus, registered: the bridge, or the sequencer's one write
        self.bridge.rx.next = self.uart_rx.val();
        self.bridge.baud_div.next = self.cfg_bit_cycles.val();
        self.bridge.clear.next = self.active.val();
        self.bridge.bus_rdata.next = self.bus_rdata.val();
        self.bridge.bus_rvalid.next = self.bus_rvalid.val();
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
        self.addr_q.d.next = self.addr.val();
        self.wdata_q.d.next = self.wdata.val();
        self.we_q.d.next = self.we.val();
        self.re_q.d.next = self.re.val();
        self.bus_addr.next = self.addr_q.q.val();
        self.bus_wdata.next = self.wdata_q.q.val();
        self.bus_we.next = self.we_q.q.val();
        self.bus_re.next = self.re_q.q.val();
        self.uart_tx.next = self.bridge.tx.val();

        // ---- LEDs
        if self.bridge.bus_we.val() | self.bridge.bus_re.val() | self.bridge.refused.val() {
            self.act.d.next = self.cfg_led_hold_cycles.val();
        } else if self.act.q.val().any() {
            self.act.d.next = self.act.q.val() - self.one_hb.val();
        }
        if self.bridge.refused.val() {
            self.err.d.next = true;
        } else if self.we_q.q.val()
            & (self.addr_q.q.val() == self.c_reset_addr.val())
            & self.wdata_q.q.val().get_bit(0)
        {
            self.err.d.next = false;
        }
        self.led_ready.next = self.por.q.val().all();
        self.led_activity.next = self.act.q.val().any();
        self.led_error.next = self.err.q.val();
    }
}
