//! The cycle-accurate golden model of the board shell
//! (`hdl/src/board_shell.rs`): what every board built on it puts around
//! its register-bus core. The power-on sequencer, the UART bridge
//! ([`crate::uart_bridge::BridgeModel`]) and the three board LEDs; and
//! [`ShellBoard`], a shell with a bus core inside (the switch port's board
//! core, the ULX3S's), with the ports and the line-level stimulus those
//! board cores share.
//!
//! # Power-on
//! As the Alchitry Cu NIC board ([`crate::board`]): `reset_hold` passes a
//! two-flop synchroniser; while it is high an 8-bit counter stays at 0,
//! once it is low the counter runs to [`POR_DONE`]; at [`POR_WRITE_AT`]
//! the sequencer writes CORE_RESET.GO on the bus, and until the counter
//! reaches [`POR_DONE`] the bridge is held idle. The bus to the core is
//! registered: what the bridge or the sequencer puts on it reaches the
//! core one cycle later.
//!
//! # LEDs (all registered or decoded from registers)
//! - `led_ready`: the power-on sequence is over (the bridge is live).
//! - `led_activity`: lit for `cfg_led_hold_cycles` cycles after the bridge
//!   last strobed the bus or refused a frame (each one reloads the count),
//!   so a frame of 9 bytes (90 us at 1 Mbaud) is visible.
//! - `led_error`: a frame was refused (bad CRC, bad op or address) since
//!   the last CORE_RESET write (power-on included); sticky.

use crate::uart_bridge::{BridgeIn, BridgeModel, BridgeOut};
use ldcp_regmap::model::{BusIn, BusOut};

pub use crate::board::{POR_DONE, POR_WRITE_AT};

/// Bits of the activity LED's hold counter (`cfg_led_hold_cycles`).
pub const LED_HOLD_BITS: u32 = 24;

/// The activity LED's hold on a board: about 1/16 s at the board clock.
pub fn led_hold_cycles(clock_mhz: f64) -> u32 {
    let c = (clock_mhz * 1e6 / 16.0).round() as u64;
    c.min((1 << LED_HOLD_BITS) - 1) as u32
}

/// One cycle of the shell's own inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShellLine {
    /// The UART line from the host (idle high), asynchronous.
    pub uart_rx: bool,
    /// Clocks per UART bit.
    pub cfg_bit_cycles: u32,
    /// Cycles the activity LED stays lit.
    pub cfg_led_hold_cycles: u32,
    /// Power-on hold, asynchronous.
    pub reset_hold: bool,
}

/// The shell's own outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShellLeds {
    /// The power-on sequence is over.
    pub ready: bool,
    /// Bridge traffic within the hold.
    pub activity: bool,
    /// A frame was refused since the last CORE_RESET.
    pub error: bool,
}

/// The shell's registers.
#[derive(Clone, Debug)]
pub struct ShellModel {
    hold_s1: bool,
    hold_s2: bool,
    por: u32,
    bridge: BridgeModel,
    bus_q: BusIn,
    act: u32,
    err: bool,
}

impl Default for ShellModel {
    fn default() -> Self {
        Self::new()
    }
}

impl ShellModel {
    /// The shell at configuration.
    pub fn new() -> Self {
        ShellModel {
            hold_s1: true,
            hold_s2: true,
            por: 0,
            bridge: BridgeModel::new(),
            bus_q: BusIn::default(),
            act: 0,
            err: false,
        }
    }

    /// Whether the power-on sequence is over (the bridge is live).
    pub fn ready(&self) -> bool {
        self.por == POR_DONE
    }

    /// The bus the core sees this cycle (the register).
    pub fn bus(&self) -> BusIn {
        self.bus_q
    }

    /// What goes into the bus register: the sequencer's CORE_RESET write,
    /// or the bridge's.
    fn bus_next(&self) -> BusIn {
        if self.por == POR_WRITE_AT {
            BusIn::write(ldcp_regmap::position::offset::CORE_RESET, 1)
        } else {
            let b: BridgeOut = self.bridge.outputs();
            BusIn {
                addr: b.bus_addr,
                wdata: b.bus_wdata,
                we: b.bus_we,
                re: b.bus_re,
            }
        }
    }

    /// The UART line to the host.
    pub fn uart_tx(&self) -> bool {
        self.bridge.outputs().tx
    }

    /// The LEDs.
    pub fn leds(&self) -> ShellLeds {
        ShellLeds {
            ready: self.ready(),
            activity: self.act != 0,
            error: self.err,
        }
    }

    /// What is in flight: a power-on sequence, a frame in the bridge.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![];
        if !self.ready() {
            v.push(("power-on sequence", 1));
        }
        v.extend(self.bridge.in_flight());
        v
    }

    /// One rising edge; `core` is the core's bus outputs before it.
    pub fn tick(&mut self, i: &ShellLine, core: BusOut) {
        let bus = self.bus();
        let bus_next = self.bus_next();
        let b = self.bridge.outputs();
        let active = self.por != POR_DONE;
        let reset_written = bus.we
            && bus.addr & 0xfff == ldcp_regmap::position::offset::CORE_RESET
            && bus.wdata & 1 != 0;
        self.act = if b.bus_we || b.bus_re || b.refused {
            i.cfg_led_hold_cycles & ((1 << LED_HOLD_BITS) - 1)
        } else {
            self.act.saturating_sub(1)
        };
        if b.refused {
            self.err = true;
        } else if reset_written {
            self.err = false;
        }
        self.bus_q = bus_next;
        self.bridge.tick(&BridgeIn {
            rx: i.uart_rx,
            baud_div: i.cfg_bit_cycles,
            clear: active,
            bus_rdata: core.rdata,
            bus_rvalid: core.rvalid,
        });
        self.por = if self.hold_s2 {
            0
        } else if active {
            self.por + 1
        } else {
            self.por
        };
        self.hold_s2 = self.hold_s1;
        self.hold_s1 = i.reset_hold;
    }
}

/// A register-bus core inside the shell: what [`ShellBoard`] needs of it.
pub trait BusCore: Clone {
    /// Its bus outputs after the last edge.
    fn bus_out(&self) -> BusOut;
    /// One rising edge with `bus` on its inputs.
    fn bus_tick(&mut self, bus: &BusIn);
    /// What is in flight in it.
    fn in_flight(&self) -> Vec<(&'static str, u64)>;
    /// The bus cycles that bring the core to rest from the bus: the writes
    /// a host ends a session with (what runs on its own once a host
    /// started it, the NIC's loop or a generator run, stopped; held ACKs
    /// flushed), then idle cycles until nothing is in flight.
    fn drain_bus(&self) -> Vec<BusIn>;
    /// The writes of [`BusCore::drain_bus`]. A core that its stimulus left
    /// running is busy, not stuck: the board's drain sends these writes
    /// over the line, as a host would, and only what is still in flight
    /// [`BusCore::drain_cycles`] after them is a failure.
    fn stop_writes(&self) -> Vec<BusIn> {
        self.drain_bus().into_iter().filter(|b| b.we).collect()
    }
    /// The length of [`BusCore::drain_bus`]: idle cycles enough after
    /// [`BusCore::stop_writes`].
    fn drain_cycles(&self) -> usize {
        self.drain_bus().len()
    }
}

crate::ports! {
    callback shell_board_ports;
    /// One cycle of a shell board core's inputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct ShellIn {
        /// The UART line from the host (idle high).
        uart_rx: bool = 1,
        /// Clocks per UART bit (below 4 acts as 4).
        cfg_bit_cycles: u32 = 10,
        /// Cycles the activity LED stays lit after bridge traffic (the board ties it).
        cfg_led_hold_cycles: u32 = LED_HOLD_BITS,
        /// Power-on hold (PLL unlocked or reset button), asynchronous: synchronised, then the power-on sequence runs.
        reset_hold: bool = 1,
    }
    /// A shell board core's outputs: the UART line, the LEDs and, for
    /// observation, the core's bus (open on the board).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct ShellOut {
        /// The UART line to the host.
        uart_tx: bool = 1,
        /// LED: the power-on sequence is over.
        led_ready: bool = 1,
        /// LED: bridge traffic within the last cfg_led_hold_cycles.
        led_activity: bool = 1,
        /// LED: a frame was refused since the last CORE_RESET (sticky).
        led_error: bool = 1,
        /// The core's bus: address.
        obs_bus_addr: u32 = ldcp_regmap::ADDR_BITS,
        /// Its write data.
        obs_bus_wdata: u32 = 32,
        /// Its write strobe.
        obs_bus_we: bool = 1,
        /// Its read strobe.
        obs_bus_re: bool = 1,
        /// The core's read data.
        obs_bus_rdata: u32 = 32,
        /// The core's read data is valid.
        obs_bus_rvalid: bool = 1,
    }
}

/// A board core: the shell around the bus core `C`.
#[derive(Clone, Debug)]
pub struct ShellBoard<C: BusCore> {
    shell: ShellModel,
    core: C,
}

impl<C: BusCore> ShellBoard<C> {
    /// The board at configuration around `core`.
    pub fn new(core: C) -> Self {
        ShellBoard {
            shell: ShellModel::new(),
            core,
        }
    }

    /// The core inside.
    pub fn core(&self) -> &C {
        &self.core
    }

    /// The shell.
    pub fn shell(&self) -> &ShellModel {
        &self.shell
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> ShellOut {
        let bus = self.shell.bus();
        let c = self.core.bus_out();
        let l = self.shell.leds();
        ShellOut {
            uart_tx: self.shell.uart_tx(),
            led_ready: l.ready,
            led_activity: l.activity,
            led_error: l.error,
            obs_bus_addr: bus.addr & (ldcp_regmap::WINDOW_BYTES - 1),
            obs_bus_wdata: bus.wdata,
            obs_bus_we: bus.we,
            obs_bus_re: bus.re,
            obs_bus_rdata: c.rdata,
            obs_bus_rvalid: c.rvalid,
        }
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &ShellIn) {
        let bus = self.shell.bus();
        let c = self.core.bus_out();
        self.shell.tick(
            &ShellLine {
                uart_rx: i.uart_rx,
                cfg_bit_cycles: i.cfg_bit_cycles,
                cfg_led_hold_cycles: i.cfg_led_hold_cycles,
                reset_hold: i.reset_hold,
            },
            c,
        );
        self.core.bus_tick(&bus);
    }
}

impl<C: BusCore> crate::cosim::CosimModel for ShellBoard<C> {
    type Input = ShellIn;
    type Output = ShellOut;

    fn tick(&mut self, i: &ShellIn) {
        ShellBoard::tick(self, i);
    }

    fn outputs(&self) -> ShellOut {
        ShellBoard::outputs(self)
    }

    /// As a host ends a session: the line idle at the last bit rate and
    /// hold, long enough for a power-on sequence, the bridge's timeout on
    /// a cut frame and a response; then the core's
    /// [`BusCore::stop_writes`] as frames, each waiting for its response;
    /// then the core's drain (a lit activity LED is not in flight: its
    /// count-down is compared every cycle, not waited for).
    fn drain(&self, last: Option<&ShellIn>) -> Vec<ShellIn> {
        let div = last.map_or(crate::uart_bridge::MIN_BAUD_DIV, |i| i.cfg_bit_cycles);
        let hold = last.map_or(0, |i| i.cfg_led_hold_cycles);
        let idle = ShellIn {
            uart_rx: true,
            cfg_bit_cycles: div,
            cfg_led_hold_cycles: hold,
            reset_hold: false,
        };
        let bit = crate::uart_bridge::effective_div(div) as usize;
        let quiet =
            POR_DONE as usize + 4 + bit * (crate::uart_bridge::IDLE_TIMEOUT_BITS as usize + 100);
        let stop = crate::uart_bridge::host_writes(&self.core.stop_writes(), div);
        std::iter::repeat_n(true, quiet)
            .chain(stop)
            .chain(std::iter::repeat_n(true, self.core.drain_cycles()))
            .map(|uart_rx| ShellIn { uart_rx, ..idle })
            .collect()
    }

    /// The shell's and the core's; a lit activity LED is not work in flight.
    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = self.shell.in_flight();
        v.extend(self.core.in_flight());
        v
    }
}

/// A host on the line of a shell board, for tests: frames out as line
/// bits at `div` clocks per bit; the board's answers decoded.
#[derive(Clone, Debug)]
pub struct ShellHost<C: BusCore> {
    /// The board.
    pub board: ShellBoard<C>,
    /// Clocks per bit.
    pub div: u32,
    /// The activity LED's hold.
    pub led_hold: u32,
    dec: crate::uart_bridge::LineDecoder,
    /// Bytes received from the board.
    pub received: Vec<u8>,
}

impl<C: BusCore> ShellHost<C> {
    /// A powered-up board around `core` (power-on sequence done).
    pub fn new(core: C, div: u32, led_hold: u32) -> Self {
        let mut h = ShellHost {
            board: ShellBoard::new(core),
            div,
            led_hold,
            dec: crate::uart_bridge::LineDecoder::new(crate::uart_bridge::effective_div(div)),
            received: Vec::new(),
        };
        h.idle(300);
        assert!(h.board.shell().ready());
        h
    }

    /// One clock with `rx` on the line.
    pub fn clock(&mut self, rx: bool) {
        self.board.tick(&ShellIn {
            uart_rx: rx,
            cfg_bit_cycles: self.div,
            cfg_led_hold_cycles: self.led_hold,
            reset_hold: false,
        });
        if let Some(b) = self.dec.push(self.board.outputs().uart_tx) {
            self.received.push(b);
        }
    }

    /// `n` clocks of idle line.
    pub fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.clock(true);
        }
    }

    /// Sends bytes (no gap between them).
    pub fn send(&mut self, bytes: &[u8]) {
        let mut bits = Vec::new();
        crate::uart_bridge::serialize(
            bytes,
            crate::uart_bridge::effective_div(self.div),
            &mut bits,
        );
        for b in bits {
            self.clock(b);
        }
    }

    /// Waits up to `bits` bit times for a whole response; takes it.
    pub fn response(&mut self, bits: usize) -> Option<[u8; crate::uart_bridge::RESP_LEN]> {
        use crate::uart_bridge::RESP_LEN;
        let div = crate::uart_bridge::effective_div(self.div) as usize;
        for _ in 0..bits * div {
            if self.received.len() >= RESP_LEN {
                break;
            }
            self.clock(true);
        }
        if self.received.len() < RESP_LEN {
            return None;
        }
        let r: Vec<u8> = self.received.drain(..RESP_LEN).collect();
        r.try_into().ok()
    }

    /// A read through the bridge: the status and data of the response.
    pub fn read(&mut self, addr: u32) -> Option<(u8, u32)> {
        self.send(&crate::uart_bridge::request(false, addr, 0));
        self.response(100)
            .and_then(|r| crate::uart_bridge::parse_response(&r).ok())
    }

    /// A write through the bridge: the status of the response.
    pub fn write(&mut self, addr: u32, data: u32) -> Option<u8> {
        self.send(&crate::uart_bridge::request(true, addr, data));
        self.response(100)
            .and_then(|r| crate::uart_bridge::parse_response(&r).ok())
            .map(|(st, _)| st)
    }
}

/// The line-level stimulus of a shell board:
/// [`crate::board::LineStimulus`] (frames good, corrupted, cut short,
/// garbage, glitches, the reset button) carrying the bus operations of the
/// core's generator `G`, at `baud_div` clocks per bit, with the activity
/// LED's hold `led_hold`.
#[derive(Clone, Debug)]
pub struct ShellStimulus<G> {
    line: crate::board::LineStimulus<G>,
    baud_div: u32,
    led_hold: u32,
}

impl<G> ShellStimulus<G> {
    /// A generator around the core's bus generator `core`.
    pub fn new(baud_div: u32, led_hold: u32, core: G) -> Self {
        ShellStimulus {
            line: crate::board::LineStimulus::new(baud_div, core),
            baud_div,
            led_hold,
        }
    }
}

impl<G: crate::Stimulus<Input = BusIn>> crate::Stimulus for ShellStimulus<G> {
    type Input = ShellIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> ShellIn {
        let (uart_rx, reset_hold) = self.line.cycle(d);
        ShellIn {
            uart_rx,
            cfg_bit_cycles: self.baud_div,
            cfg_led_hold_cycles: self.led_hold,
            reset_hold,
        }
    }
}

/// A seeded stream of a shell board's inputs: [`ShellStimulus`] around
/// the core's bus generator `core`.
pub fn stimulus<G>(
    seed: u64,
    baud_div: u32,
    led_hold: u32,
    core: G,
) -> impl Iterator<Item = ShellIn> + Clone
where
    G: crate::Stimulus<Input = BusIn>,
{
    crate::seeded(
        ShellStimulus::new(baud_div, led_hold, core),
        seed ^ 0x5E11_B0A2_D5EE_D001,
    )
}

/// For the board cores' tests: a host starts the NIC's loop over the line
/// (8 flows sending, LOOPBACK on) and leaves it running. Idle line alone,
/// as long as the drain, does not bring the core to rest (the loop is
/// busy, not stuck); the drain, which stops it with the core's
/// [`BusCore::stop_writes`] as a host would, does. Returns the
/// in-flight list after the idle line.
#[cfg(test)]
pub(crate) fn loop_left_running_drains<C: BusCore + std::fmt::Debug>(
    core: C,
) -> Vec<(&'static str, u64)> {
    use crate::cosim::CosimModel;
    use ldcp_regmap::model::offset;
    let mut h = ShellHost::new(core, crate::uart_bridge::MIN_BAUD_DIV, 300);
    for (name, v) in [("FS_IW", 4), ("LOOP_RTO", 3000), ("LOOP_CTRL", 3 | 8 << 8)] {
        assert_eq!(
            h.write(offset(name), v),
            Some(crate::uart_bridge::ST_OK),
            "{name}"
        );
    }
    h.idle(20_000);
    let last = ShellIn {
        uart_rx: true,
        cfg_bit_cycles: h.div,
        cfg_led_hold_cycles: h.led_hold,
        reset_hold: false,
    };
    let drain = h.board.drain(Some(&last));
    let mut idle_only = h.board.clone();
    for _ in 0..drain.len() {
        idle_only.tick(&last);
    }
    let left = idle_only.in_flight();
    for i in &drain {
        h.board.tick(i);
    }
    assert!(
        h.board.in_flight().is_empty(),
        "after the drain's {} cycles: {:?}",
        drain.len(),
        h.board.in_flight()
    );
    left
}
