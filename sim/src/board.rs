//! The cycle-accurate golden model of the Alchitry Cu board core
//! (`hdl/src/board.rs`): the power-on sequencer, the UART bridge
//! ([`crate::uart_bridge::BridgeModel`]) and the NIC core
//! ([`crate::nic_core::NicCoreModel`]), wired as the RTL wires them.
//!
//! # Power-on
//! `hold` (the PLL not locked, or the reset button pressed) passes a
//! two-flop synchroniser. While it is high an 8-bit counter stays at 0;
//! once it is low the counter runs to 255. At 254 the sequencer writes
//! CORE_RESET.GO on the core's bus, so every flow starts at INIT_CW and
//! every parameter at its reset value whatever the clock did before the
//! PLL locked. Until the counter reaches 255 the bridge is held idle.
//!
//! # LEDs
//! Ready: the power-on sequence is over. Activity: toggles at every bus
//! access of the bridge and every refused frame. Error: set by a refused
//! frame, cleared when the core resets (the core's `core_rst` tap), the
//! refusal first if both came at once.

use crate::nic_core::NicCoreModel;
use crate::uart_bridge::{BridgeIn, BridgeModel, BridgeOut};
use ldcp_regmap::model::BusIn;

/// The board clock, MHz: the oscillator's, no PLL.
pub const CLOCK_MHZ: f64 = OSC_MHZ;
/// The oscillator, MHz.
pub const OSC_MHZ: f64 = 100.0;
/// The UART line rate on the board.
pub const BAUD: u32 = crate::uart_bridge::DEFAULT_BAUD;
/// Clocks per UART bit on the board.
pub const BAUD_DIV: u32 = 100;

/// The counter value at which the sequencer writes CORE_RESET.
pub const POR_WRITE_AT: u32 = 254;
/// The counter value at which the bridge is released.
pub const POR_DONE: u32 = 255;

crate::ports! {
    callback board_core_ports;
    /// One cycle of the board core's inputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct BoardIn {
        /// The UART line from the host (idle high).
        uart_rx: bool = 1,
        /// Clocks per UART bit (below 4 acts as 4).
        cfg_bit_cycles: u32 = 10,
        /// Power-on hold (PLL unlocked or reset button), asynchronous: synchronised, then the power-on sequence runs.
        reset_hold: bool = 1,
    }
    /// The board core's outputs: the UART line to the host and, for
    /// observation, the NIC core's bus and taps (open on the board).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct BoardOut {
        /// The UART line to the host.
        uart_tx: bool = 1,
        /// LED: the power-on sequence is over.
        led_ready: bool = 1,
        /// LED: toggles at every bus access of the bridge and every refused frame.
        led_activity: bool = 1,
        /// LED: a frame was refused since the core last reset.
        led_error: bool = 1,
        /// The NIC core's bus: address.
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
        /// The core's tap `sys_core_rst`.
        obs_sys_core_rst: bool = 1,
        /// The core's tap `sys_upd_valid`.
        obs_sys_upd_valid: bool = 1,
        /// The core's tap `sys_upd_flow`.
        obs_sys_upd_flow: u32 = crate::nic_core::FLOW_BITS,
        /// The core's tap `sys_upd_interval_ticks`.
        obs_sys_upd_interval_ticks: u32 = crate::window_engine::INTERVAL_BITS as u32,
        /// The core's tap `sys_upd_restart`.
        obs_sys_upd_restart: bool = 1,
        /// The core's tap `sys_flow_reset`.
        obs_sys_flow_reset: bool = 1,
        /// The core's tap `sys_flow_reset_id`.
        obs_sys_flow_reset_id: u32 = crate::nic_core::FLOW_BITS,
        /// The core's tap `sys_cnt_clear`.
        obs_sys_cnt_clear: bool = 1,
    }
}

/// The board core model.
#[derive(Clone, Debug)]
pub struct BoardModel {
    hold_s1: bool,
    hold_s2: bool,
    por: u32,
    act: bool,
    err: bool,
    bridge: BridgeModel,
    core: NicCoreModel,
}

impl BoardModel {
    /// The board at configuration, its core reporting `hash` and `dirty`.
    pub fn new(hash: u32, dirty: bool) -> Self {
        BoardModel {
            hold_s1: true,
            hold_s2: true,
            por: 0,
            act: false,
            err: false,
            bridge: BridgeModel::new(),
            core: NicCoreModel::new(hash, dirty),
        }
    }

    /// The NIC core inside.
    pub fn core(&self) -> &NicCoreModel {
        &self.core
    }

    /// Whether the power-on sequence is over (the bridge is live).
    pub fn ready(&self) -> bool {
        self.por == POR_DONE
    }

    fn bus(&self) -> BusIn {
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

    /// The outputs after the last edge.
    pub fn outputs(&self) -> BoardOut {
        let bus = self.bus();
        let core = self.core.outputs();
        let t = self.core.taps();
        BoardOut {
            uart_tx: self.bridge.outputs().tx,
            led_ready: self.ready(),
            led_activity: self.act,
            led_error: self.err,
            obs_bus_addr: bus.addr & (ldcp_regmap::WINDOW_BYTES - 1),
            obs_bus_wdata: bus.wdata,
            obs_bus_we: bus.we,
            obs_bus_re: bus.re,
            obs_bus_rdata: core.rdata,
            obs_bus_rvalid: core.rvalid,
            obs_sys_core_rst: t.core_rst,
            obs_sys_upd_valid: t.upd_valid,
            obs_sys_upd_flow: t.upd_flow,
            obs_sys_upd_interval_ticks: t.upd_interval,
            obs_sys_upd_restart: t.upd_restart,
            obs_sys_flow_reset: t.flow_reset,
            obs_sys_flow_reset_id: t.flow_reset_id,
            obs_sys_cnt_clear: t.cnt_clear,
        }
    }

    /// What is in flight: a power-on sequence, a frame the bridge is
    /// receiving, executing or answering, and the NIC core's.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![];
        if !self.ready() {
            v.push(("power-on sequence", 1));
        }
        v.extend(self.bridge.in_flight());
        v.extend(self.core.in_flight());
        v
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &BoardIn) {
        let bus = self.bus();
        let core_out = self.core.outputs();
        let active = self.por != POR_DONE;
        let b = self.bridge.outputs();
        self.act ^= b.bus_we || b.bus_re || b.refused;
        if b.refused {
            self.err = true;
        } else if self.core.taps().core_rst {
            self.err = false;
        }
        self.bridge.tick(&BridgeIn {
            rx: i.uart_rx,
            baud_div: i.cfg_bit_cycles,
            clear: active,
            bus_rdata: core_out.rdata,
            bus_rvalid: core_out.rvalid,
        });
        self.core.tick(&bus);
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

impl crate::cosim::CosimModel for BoardModel {
    type Input = BoardIn;
    type Output = BoardOut;

    fn tick(&mut self, i: &BoardIn) {
        BoardModel::tick(self, i);
    }

    fn outputs(&self) -> BoardOut {
        BoardModel::outputs(self)
    }

    /// As a host ends a session: the line idle (high, no hold) at the last
    /// bit rate, long enough for a power-on sequence, the bridge's idle
    /// timeout on a frame cut short and a response; then the writes of the
    /// NIC core's drain (a generator run a host started is stopped, as a
    /// host would) as frames, each waiting for its response; then the
    /// core's idle cycles (the bridge is then its only source of events).
    fn drain(&self, last: Option<&BoardIn>) -> Vec<BoardIn> {
        let div = last.map_or(crate::uart_bridge::MIN_BAUD_DIV, |i| i.cfg_bit_cycles);
        let idle = BoardIn {
            uart_rx: true,
            cfg_bit_cycles: div,
            reset_hold: false,
        };
        let bit = crate::uart_bridge::effective_div(div) as usize;
        let quiet =
            POR_DONE as usize + 4 + bit * (crate::uart_bridge::IDLE_TIMEOUT_BITS as usize + 100);
        let bus = self.core.drain_bus();
        let stop: Vec<_> = bus.iter().copied().filter(|b| b.we).collect();
        std::iter::repeat_n(true, quiet)
            .chain(crate::uart_bridge::host_writes(&stop, div))
            .chain(std::iter::repeat_n(true, bus.len()))
            .map(|uart_rx| BoardIn { uart_rx, ..idle })
            .collect()
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        BoardModel::in_flight(self)
    }
}

/// A host on the UART line, for tests: frames go out as line bits at
/// `div` clocks per bit; the board's answer is decoded from its line.
#[derive(Clone, Debug)]
pub struct LineHost {
    /// The board model.
    pub board: BoardModel,
    /// Clocks per bit.
    pub div: u32,
    dec: crate::uart_bridge::LineDecoder,
    /// Bytes received from the board.
    pub received: Vec<u8>,
}

impl LineHost {
    /// A powered-up board (power-on sequence done) at `div` clocks per bit.
    pub fn new(div: u32) -> Self {
        let mut h = LineHost {
            board: BoardModel::new(0, true),
            div,
            dec: crate::uart_bridge::LineDecoder::new(crate::uart_bridge::effective_div(div)),
            received: Vec::new(),
        };
        h.idle(300);
        assert!(h.board.ready());
        h
    }

    /// One clock with `rx` on the line.
    pub fn clock(&mut self, rx: bool) {
        self.board.tick(&BoardIn {
            uart_rx: rx,
            cfg_bit_cycles: self.div,
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
}

/// The line-level generator behind the board stimuli, at `baud_div`:
/// power-up with a hold, then the bus operations of the core generator
/// `G` sent as bridge frames, back to back or with gaps, some with a
/// flipped bit (refused: bad CRC), a bad op or address (refused), cut short
/// (timed out), surrounded by garbage bytes, line glitches and bad stop
/// bits; and now and then a hold pulse (the reset button) that restarts
/// the power-on sequence. Each cycle is `(uart_rx, reset_hold)`.
#[derive(Clone, Debug)]
pub struct LineStimulus<G> {
    baud_div: u32,
    core: G,
    queue: std::collections::VecDeque<(bool, bool)>,
    started: bool,
}

impl<G> LineStimulus<G> {
    /// A generator at `baud_div` clocks per bit around the bus generator `core`.
    pub fn new(baud_div: u32, core: G) -> Self {
        LineStimulus {
            baud_div,
            core,
            queue: Default::default(),
            started: false,
        }
    }
}

/// The board input generator at `baud_div`: [`LineStimulus`] carrying the
/// NIC core stimulus's bus operations ([`crate::nic_core::stimulus`]).
#[derive(Clone, Debug)]
pub struct BoardStimulus {
    line: LineStimulus<crate::nic_core::NcStimulus>,
}

impl BoardStimulus {
    /// A generator at `baud_div` clocks per bit.
    pub fn new(baud_div: u32) -> Self {
        BoardStimulus {
            line: LineStimulus::new(baud_div, Default::default()),
        }
    }
}

/// A seeded stream of board inputs at `baud_div`: [`BoardStimulus`] from a
/// seed.
pub fn stimulus(seed: u64, baud_div: u32) -> impl Iterator<Item = BoardIn> + Clone {
    crate::seeded(BoardStimulus::new(baud_div), seed ^ 0xD1B5_4A32_D192_ED03)
}

impl crate::Stimulus for BoardStimulus {
    type Input = BoardIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> BoardIn {
        let (uart_rx, reset_hold) = self.line.cycle(d);
        BoardIn {
            uart_rx,
            cfg_bit_cycles: self.line.baud_div,
            reset_hold,
        }
    }
}

impl<G: crate::Stimulus<Input = BusIn>> crate::Stimulus for LineStimulus<G> {
    type Input = (bool, bool);

    fn cycle(&mut self, d: &mut crate::Draws) -> (bool, bool) {
        use crate::uart_bridge::{effective_div, request, serialize, OP_READ, OP_WRITE};
        let baud_div = self.baud_div;
        let div = effective_div(baud_div);
        let LineStimulus {
            core,
            queue,
            started,
            ..
        } = self;
        let line = |q: &mut std::collections::VecDeque<(bool, bool)>, bits: &[bool]| {
            q.extend(bits.iter().map(|&b| (b, false)));
        };
        let idle = |q: &mut std::collections::VecDeque<(bool, bool)>, n: u64| {
            q.extend(std::iter::repeat_n((true, false), n as usize));
        };
        while queue.is_empty() {
            if !*started {
                *started = true;
                let n = 1 + d.next_u64() % 8;
                queue.extend(std::iter::repeat_n((true, true), n as usize));
                idle(queue, 300);
                continue;
            }
            let r = d.next_u64();
            let op = loop {
                let b = core.cycle(d);
                if b.we || b.re {
                    break b;
                }
            };
            let mut f = request(op.we, op.addr & 0xfff, op.wdata);
            let mut bits = Vec::new();
            let pick = r % 1000;
            match pick {
                0..=49 => {
                    // one flipped bit after the sync byte: refused (bad CRC)
                    let byte = 1 + (r >> 10) as usize % 8;
                    f[byte] ^= 1 << ((r >> 20) % 8);
                    serialize(&f, div, &mut bits);
                }
                50..=79 => {
                    // a bad op or an address above 12 bits, CRC intact: refused
                    if r & 0x400 != 0 {
                        f[1] = (r >> 12) as u8 | 1;
                        if f[1] == OP_READ || f[1] == OP_WRITE {
                            f[1] = 0x01;
                        }
                    } else {
                        f[3] |= 0x10 << ((r >> 12) % 4);
                    }
                    f[8] = crate::uart_bridge::crc8(&f[1..8]);
                    serialize(&f, div, &mut bits);
                }
                80..=109 => {
                    // cut short: the parser times out after 64 bit times
                    let k = 1 + (r >> 10) as usize % 8;
                    serialize(&f[..k], div, &mut bits);
                    line(queue, &bits);
                    idle(queue, (66 + (r >> 20) % 8) * div as u64);
                    continue;
                }
                110..=139 => {
                    // garbage bytes, then long enough for any frame they began to time out
                    let n = 1 + (r >> 10) % 12;
                    let g: Vec<u8> = (0..n)
                        .map(|_| {
                            let x = d.next_u64();
                            if x & 7 == 0 {
                                crate::uart_bridge::REQ_SYNC
                            } else {
                                x as u8
                            }
                        })
                        .collect();
                    serialize(&g, div, &mut bits);
                    line(queue, &bits);
                    idle(queue, 150 * div as u64);
                    continue;
                }
                140..=159 => {
                    // a glitch shorter than half a bit
                    let n = 1 + (r >> 10) % (div as u64 / 2);
                    queue.extend(std::iter::repeat_n((false, false), n as usize - 1));
                    idle(queue, 2 * div as u64);
                    continue;
                }
                160..=169 => {
                    // a byte with a bad stop bit, then silence
                    serialize(&[(r >> 10) as u8], div, &mut bits);
                    let at = bits.len() - div as usize;
                    for b in &mut bits[at..] {
                        *b = false;
                    }
                    line(queue, &bits);
                    idle(queue, 150 * div as u64);
                    continue;
                }
                173..=202 => {
                    // a pause inside the frame, either side of the timeout (a
                    // pause of 54 bit times): the frame completes, or the rest
                    // of it is garbage to the parser
                    let k = 1 + (r >> 10) as usize % 8;
                    serialize(&f[..k], div, &mut bits);
                    line(queue, &bits);
                    idle(queue, (r >> 20) % (90 * div as u64));
                    bits.clear();
                    serialize(&f[k..], div, &mut bits);
                    line(queue, &bits);
                    idle(queue, 150 * div as u64);
                    continue;
                }
                170..=172 => {
                    // the reset button
                    let n = 1 + (r >> 10) % 20;
                    queue.extend(std::iter::repeat_n((true, true), n as usize));
                    idle(queue, 300);
                    continue;
                }
                _ => serialize(&f, div, &mut bits),
            }
            line(queue, &bits);
            // the response takes 70 bit times; sometimes the host does not wait
            let gap = match (r >> 40) % 4 {
                0 => 0,
                1 => (r >> 44) % (4 * div as u64),
                _ => 72 * div as u64 + (r >> 44) % (30 * div as u64),
            };
            idle(queue, gap);
        }
        queue.pop_front().unwrap_or((true, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uart_bridge::{
        parse_response, request, Action, FrameParser, ST_BAD_CRC, ST_BAD_FRAME, ST_OK,
    };

    fn reg(name: &str) -> u32 {
        ldcp_regmap::register(name).unwrap().offset
    }

    #[test]
    fn board_model_answers_frames_as_the_protocol_says() {
        for div in [4u32, 7, 60, 2] {
            let mut h = LineHost::new(div);
            // identify
            h.send(&request(false, reg("MAGIC"), 0));
            let r = h.response(100).expect("a response");
            assert_eq!(
                parse_response(&r),
                Ok((ST_OK, ldcp_regmap::MAGIC)),
                "div {div}"
            );
            // write, read back
            h.send(&request(true, reg("INIT_CW"), 0x0003_0000));
            assert_eq!(parse_response(&h.response(100).unwrap()), Ok((ST_OK, 0)));
            h.send(&request(false, reg("INIT_CW"), 0));
            assert_eq!(
                parse_response(&h.response(100).unwrap()),
                Ok((ST_OK, 0x0003_0000))
            );
            // every single-bit corruption of a write is refused and changes nothing
            let good = request(true, reg("INIT_CW"), 0x0001_8000);
            for byte in 1..9 {
                let mut f = good;
                f[byte] ^= 1 << (byte % 8);
                h.send(&f);
                assert_eq!(
                    parse_response(&h.response(100).unwrap()),
                    Ok((ST_BAD_CRC, 0)),
                    "div {div} byte {byte}"
                );
            }
            h.send(&request(false, reg("INIT_CW"), 0));
            assert_eq!(
                parse_response(&h.response(100).unwrap()),
                Ok((ST_OK, 0x0003_0000))
            );
            // an address above 12 bits is refused
            h.send(&request(false, 0x1004, 0));
            assert_eq!(
                parse_response(&h.response(100).unwrap()),
                Ok((ST_BAD_FRAME, 0))
            );
            // a cut frame times out without an answer; the next frame works
            h.send(&good[..5]);
            assert_eq!(h.response(70), None, "div {div}");
            h.send(&request(false, reg("MAGIC"), 0));
            assert_eq!(
                parse_response(&h.response(100).unwrap()),
                Ok((ST_OK, ldcp_regmap::MAGIC))
            );
            // the timeout is 64 bit times from one byte's stop-bit sample to
            // the next one's, which is the pause plus 10 bits: a pause of
            // just under 54 bit times keeps the frame, just over drops it
            let d = crate::uart_bridge::effective_div(div) as usize;
            h.send(&good[..4]);
            h.idle(54 * d - 1);
            h.send(&good[4..]);
            assert_eq!(
                parse_response(&h.response(100).unwrap()),
                Ok((ST_OK, 0)),
                "div {div}"
            );
            h.send(&good[..4]);
            h.idle(54 * d + 1);
            h.send(&good[4..]);
            assert_eq!(h.response(100), None, "div {div}");
            // twenty frames back to back: twenty answers, in order
            let mut frames = Vec::new();
            for k in 0..20u32 {
                frames.extend_from_slice(&request(true, reg("FLOW_WDATA"), k));
                frames.extend_from_slice(&request(false, reg("FLOW_WDATA"), 0));
            }
            h.send(&frames);
            for k in 0..20u32 {
                assert_eq!(parse_response(&h.response(100).unwrap()), Ok((ST_OK, 0)));
                assert_eq!(
                    parse_response(&h.response(100).unwrap()),
                    Ok((ST_OK, k)),
                    "div {div}"
                );
            }
            assert!(h.response(100).is_none());
        }
    }

    #[test]
    fn board_stimulus_frames_get_the_answers_the_frame_parser_predicts() {
        // the bridge model, fed the stimulus, answers exactly the frames the
        // byte-level parser completes, with the same statuses
        let div = 5;
        let mut h = LineHost::new(div);
        let mut p = FrameParser::default();
        let mut dec = crate::uart_bridge::LineDecoder::new(div);
        let mut want = Vec::new();
        let mut silent = 0u32;
        for i in stimulus(3, div).skip(400).take(400_000) {
            if i.reset_hold {
                break;
            }
            if let Some(b) = dec.push(i.uart_rx) {
                silent = 0;
                if let Some(a) = p.feed(b) {
                    want.push(match a {
                        Action::Refuse(st) => st,
                        _ => ST_OK,
                    });
                }
            } else {
                // the bridge counts every cycle between two bytes' stop
                // bits, whatever the line does meanwhile
                silent += 1;
                if silent == crate::uart_bridge::IDLE_TIMEOUT_BITS * div {
                    p.timeout();
                }
            }
            h.clock(i.uart_rx);
        }
        h.idle(200 * div as usize);
        let got: Vec<u8> = h.received.chunks(7).map(|r| r[1]).collect();
        assert!(want.len() > 100, "{}", want.len());
        assert_eq!(got, want);
        assert!(want.contains(&ST_BAD_CRC) && want.contains(&ST_BAD_FRAME));
    }
}
