//! The UART-to-register bridge of the Alchitry Cu board top: its framed
//! protocol, and the golden model of the frame parser
//! (`hdl/src/uart_bridge.rs` mirrors it; the host driver's `uart` backend
//! speaks it).
//!
//! # Frames
//! Request, host to board, 9 bytes:
//! `A5 op a0 a1 d0 d1 d2 d3 crc`: op `52` ('R') reads, `57` ('W') writes;
//! a0 a1 the byte address (little-endian, 12 bits: a1's upper nibble must
//! be 0); d0..d3 the write data (little-endian; ignored by a read);
//! crc = CRC-8 (polynomial 0x07, initial 0, no reflection) of the 7 bytes
//! op..d3.
//!
//! Response, board to host, 7 bytes: `5A st d0 d1 d2 d3 crc`: st 0 done,
//! 1 refused: bad CRC, 2 refused: bad op or address; d0..d3 the read data
//! (0 for a write or a refusal); crc over st..d3.
//!
//! A refused frame touches no register. Bytes before a sync byte are
//! skipped. A frame is dropped without a response when
//! [`IDLE_TIMEOUT_BITS`] bit times pass between two of its bytes' stop bits
//! (a pause of 54 bit times on the line), so a host that lost a byte
//! resynchronises by waiting and resending.

/// The request's sync byte.
pub const REQ_SYNC: u8 = 0xA5;
/// The response's sync byte.
pub const RESP_SYNC: u8 = 0x5A;
/// Read opcode.
pub const OP_READ: u8 = b'R';
/// Write opcode.
pub const OP_WRITE: u8 = b'W';
/// Request length.
pub const REQ_LEN: usize = 9;
/// Response length.
pub const RESP_LEN: usize = 7;
/// Status: done.
pub const ST_OK: u8 = 0;
/// Status: refused, the CRC did not match.
pub const ST_BAD_CRC: u8 = 1;
/// Status: refused, unknown op or an address beyond 12 bits.
pub const ST_BAD_FRAME: u8 = 2;
/// Bit times between two bytes of a frame (stop bit to stop bit) after
/// which it is dropped.
pub const IDLE_TIMEOUT_BITS: u32 = 64;
/// The default line rate: 1 Mbaud, 100 clocks per bit at 100 MHz.
pub const DEFAULT_BAUD: u32 = 1_000_000;

/// CRC-8, polynomial x^8 + x^2 + x + 1 (0x07), initial 0.
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |c, &b| crc8_step(c, b))
}

/// One byte of [`crc8`].
pub fn crc8_step(crc: u8, byte: u8) -> u8 {
    let mut c = crc ^ byte;
    for _ in 0..8 {
        c = if c & 0x80 != 0 {
            (c << 1) ^ 0x07
        } else {
            c << 1
        };
    }
    c
}

/// A request frame.
pub fn request(write: bool, addr: u32, data: u32) -> [u8; REQ_LEN] {
    let mut f = [0u8; REQ_LEN];
    f[0] = REQ_SYNC;
    f[1] = if write { OP_WRITE } else { OP_READ };
    f[2] = addr as u8;
    f[3] = (addr >> 8) as u8;
    f[4..8].copy_from_slice(&data.to_le_bytes());
    f[8] = crc8(&f[1..8]);
    f
}

/// A response frame.
pub fn response(status: u8, data: u32) -> [u8; RESP_LEN] {
    let mut f = [0u8; RESP_LEN];
    f[0] = RESP_SYNC;
    f[1] = status;
    f[2..6].copy_from_slice(&data.to_le_bytes());
    f[6] = crc8(&f[1..6]);
    f
}

/// A response that failed its checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResponseError {
    /// The first byte is not the response sync.
    #[error("response does not start with 0x5A (got {0:#04x})")]
    Sync(u8),
    /// The CRC does not match.
    #[error("response CRC mismatch (got {got:#04x}, computed {want:#04x})")]
    Crc {
        /// In the frame.
        got: u8,
        /// Computed.
        want: u8,
    },
}

/// (status, data) of a response frame, checked.
pub fn parse_response(f: &[u8; RESP_LEN]) -> Result<(u8, u32), ResponseError> {
    if f[0] != RESP_SYNC {
        return Err(ResponseError::Sync(f[0]));
    }
    let want = crc8(&f[1..6]);
    if f[6] != want {
        return Err(ResponseError::Crc { got: f[6], want });
    }
    Ok((f[1], u32::from_le_bytes([f[2], f[3], f[4], f[5]])))
}

/// What a complete request asks of the bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Read `addr`, answer with its value.
    Read(u32),
    /// Write `data` to `addr`, answer done.
    Write(u32, u32),
    /// Touch nothing, answer with this status.
    Refuse(u8),
}

/// The frame parser, byte by byte (the RTL's state machine).
#[derive(Clone, Debug, Default)]
pub struct FrameParser {
    buf: [u8; REQ_LEN],
    len: usize,
}

impl FrameParser {
    /// Bytes of a frame received so far (0: hunting for the sync byte).
    pub fn pending(&self) -> usize {
        self.len
    }

    /// The line was idle for [`IDLE_TIMEOUT_BITS`]: a partial frame is dropped.
    pub fn timeout(&mut self) {
        self.len = 0;
    }

    /// One received byte; a complete frame gives its action.
    pub fn feed(&mut self, b: u8) -> Option<Action> {
        if self.len == 0 {
            if b == REQ_SYNC {
                self.buf[0] = b;
                self.len = 1;
            }
            return None;
        }
        self.buf[self.len] = b;
        self.len += 1;
        if self.len < REQ_LEN {
            return None;
        }
        self.len = 0;
        let f = &self.buf;
        if crc8(&f[1..8]) != f[8] {
            return Some(Action::Refuse(ST_BAD_CRC));
        }
        let addr = f[2] as u32 | (f[3] as u32) << 8;
        let data = u32::from_le_bytes([f[4], f[5], f[6], f[7]]);
        Some(match (f[1], f[3] >> 4) {
            (OP_READ, 0) => Action::Read(addr),
            (OP_WRITE, 0) => Action::Write(addr, data),
            _ => Action::Refuse(ST_BAD_FRAME),
        })
    }
}

/// The smallest clocks-per-bit the RTL takes; a smaller `baud_div` acts as this.
pub const MIN_BAUD_DIV: u32 = 4;
/// The largest clocks-per-bit (10-bit port).
pub const MAX_BAUD_DIV: u32 = 1023;

/// The clocks per bit the RTL uses for a `baud_div` port value: values
/// below [`MIN_BAUD_DIV`] act as it (the documented safe behaviour of an
/// illegal divider), the rest are taken modulo 1024 (10-bit port).
pub fn effective_div(baud_div: u32) -> u32 {
    (baud_div & 0x3ff).max(MIN_BAUD_DIV)
}

/// One cycle of the bridge's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BridgeIn {
    /// The UART receive line (idle high), asynchronous.
    pub rx: bool,
    /// Clocks per bit.
    pub baud_div: u32,
    /// Hold the bridge idle: receiver, frame parser and transmitter.
    pub clear: bool,
    /// The bus's read data.
    pub bus_rdata: u32,
    /// The bus's read-valid.
    pub bus_rvalid: bool,
}

/// The bridge's outputs (all registered).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BridgeOut {
    /// The UART transmit line.
    pub tx: bool,
    /// Bus byte address.
    pub bus_addr: u32,
    /// Bus write data.
    pub bus_wdata: u32,
    /// Bus write strobe.
    pub bus_we: bool,
    /// Bus read strobe.
    pub bus_re: bool,
    /// A frame was refused (bad CRC, bad op or address): a one-clock
    /// strobe as its refusal starts to go out (the board's error LED).
    pub refused: bool,
}

/// Receiver states.
const RX_IDLE: u8 = 0;
const RX_START: u8 = 1;
const RX_DATA: u8 = 2;
const RX_STOP: u8 = 3;
/// Frame states.
const F_HUNT: u8 = 0;
const F_RECV: u8 = 1;
const F_EXEC: u8 = 2;
const F_WAIT: u8 = 3;

/// The registers of the bridge RTL (`hdl/src/uart_bridge.rs`), one field per
/// flip-flop group, with their power-up values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BridgeRegs {
    rx_s1: bool,
    rx_s2: bool,
    rx_state: u8,
    rx_cnt: u32,
    rx_bit: u8,
    rx_shift: u8,
    rx_done: bool,
    f_state: u8,
    f_len: u8,
    f_buf: u64,
    f_crc: u8,
    f_crc_n: u8,
    f_idle: u32,
    f_st: u8,
    f_write: bool,
    bus_we: bool,
    bus_re: bool,
    refused: bool,
    tx_busy: bool,
    tx_shift: u16,
    tx_cnt: u32,
    tx_nbits: u8,
    tx_idx: u8,
    tx_resp: u64,
    tx_crc: u8,
    tx_crc_n: u8,
    tx_line: bool,
}

impl Default for BridgeRegs {
    fn default() -> Self {
        BridgeRegs {
            rx_s1: true,
            rx_s2: true,
            rx_state: RX_IDLE,
            rx_cnt: 0,
            rx_bit: 0,
            rx_shift: 0,
            rx_done: false,
            f_state: F_HUNT,
            f_len: 0,
            f_buf: 0,
            f_crc: 0,
            f_crc_n: 0,
            f_idle: 0,
            f_st: 0,
            f_write: false,
            bus_we: false,
            bus_re: false,
            refused: false,
            tx_busy: false,
            tx_shift: 0x3ff,
            tx_cnt: 0,
            tx_nbits: 0,
            tx_idx: 0,
            tx_resp: 0,
            tx_crc: 0,
            tx_crc_n: 0,
            tx_line: true,
        }
    }
}

/// One bit-serial step of [`crc8`] (the RTL runs eight per byte, one per clock).
fn crc_bit_step(c: u8) -> u8 {
    if c & 0x80 != 0 {
        (c << 1) ^ 0x07
    } else {
        c << 1
    }
}

/// The cycle-accurate model of the bridge RTL: a UART receiver (two-flop
/// synchroniser, start bit checked at mid-bit, 8N1, a byte with a bad stop
/// bit discarded), the frame parser of [`FrameParser`] with its idle
/// timeout, the bus master, and the response transmitter. The CRC is
/// computed bit-serially, eight clocks per byte, while the next byte is
/// still on the line.
///
/// Timing of a frame: its bus strobe is on the bus 2 clocks after the
/// stop-bit sample of its CRC byte (1 clock for a write or refusal to
/// start the response); a read's response starts the clock after
/// `bus_rvalid`.
#[derive(Clone, Debug, Default)]
pub struct BridgeModel {
    r: BridgeRegs,
}

impl BridgeModel {
    /// The bridge at power-up.
    pub fn new() -> Self {
        Self::default()
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> BridgeOut {
        let r = &self.r;
        BridgeOut {
            tx: r.tx_line,
            bus_addr: (r.f_buf >> 8) as u32 & 0xfff,
            bus_wdata: (r.f_buf >> 24) as u32,
            bus_we: r.bus_we,
            bus_re: r.bus_re,
            refused: r.refused,
        }
    }

    /// Whether a frame is being received, executed or answered.
    pub fn busy(&self) -> bool {
        self.r.f_state != F_HUNT || self.r.tx_busy
    }

    /// What is in flight: a byte being received, a frame being parsed or
    /// executed, a response being sent.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let r = &self.r;
        [
            ("UART byte being received", (r.rx_state != RX_IDLE) as u64),
            ("bridge frame in progress", (r.f_state != F_HUNT) as u64),
            ("response being sent", r.tx_busy as u64),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &BridgeIn) {
        let o = self.r;
        let mut n = o;
        let div = effective_div(i.baud_div);
        let half = div >> 1;
        let timeout = div * IDLE_TIMEOUT_BITS;

        // ---- receiver
        n.rx_s1 = i.rx;
        n.rx_s2 = o.rx_s1;
        n.rx_done = false;
        let s2 = o.rx_s2;
        match o.rx_state {
            RX_IDLE => {
                if !s2 {
                    n.rx_state = RX_START;
                    n.rx_cnt = half - 1;
                }
            }
            RX_START => {
                if o.rx_cnt == 0 {
                    if !s2 {
                        n.rx_state = RX_DATA;
                        n.rx_cnt = div - 1;
                        n.rx_bit = 0;
                    } else {
                        n.rx_state = RX_IDLE;
                    }
                } else {
                    n.rx_cnt = o.rx_cnt - 1;
                }
            }
            RX_DATA => {
                if o.rx_cnt == 0 {
                    n.rx_shift = (o.rx_shift >> 1) | if s2 { 0x80 } else { 0 };
                    n.rx_cnt = div - 1;
                    if o.rx_bit == 7 {
                        n.rx_state = RX_STOP;
                    } else {
                        n.rx_bit = o.rx_bit + 1;
                    }
                } else {
                    n.rx_cnt = o.rx_cnt - 1;
                }
            }
            _ => {
                if o.rx_cnt == 0 {
                    n.rx_state = RX_IDLE;
                    n.rx_done = s2;
                } else {
                    n.rx_cnt = o.rx_cnt - 1;
                }
            }
        }

        // ---- frame parser
        let byte = o.rx_shift;
        let got = o.rx_done;
        n.bus_we = false;
        n.bus_re = false;
        n.refused = false;
        if o.f_crc_n != 0 {
            n.f_crc = crc_bit_step(o.f_crc);
            n.f_crc_n = o.f_crc_n - 1;
        }
        let mut start_tx: Option<(u8, u32)> = None;
        match o.f_state {
            F_HUNT => {
                if got && byte == REQ_SYNC {
                    n.f_state = F_RECV;
                    n.f_len = 0;
                    n.f_crc = 0;
                    n.f_crc_n = 0;
                    n.f_idle = 0;
                }
            }
            F_RECV => {
                if got {
                    n.f_idle = 0;
                    if o.f_len != 7 {
                        n.f_buf = (o.f_buf >> 8) | (byte as u64) << 48;
                        n.f_crc = o.f_crc ^ byte;
                        n.f_crc_n = 8;
                        n.f_len = o.f_len + 1;
                    } else {
                        let op = o.f_buf as u8;
                        let a1 = (o.f_buf >> 16) as u8;
                        n.f_write = op == OP_WRITE;
                        n.f_st = if byte != o.f_crc {
                            ST_BAD_CRC
                        } else if (op == OP_READ || op == OP_WRITE) && a1 >> 4 == 0 {
                            ST_OK
                        } else {
                            ST_BAD_FRAME
                        };
                        n.f_state = F_EXEC;
                    }
                } else if o.f_idle == timeout - 1 {
                    n.f_state = F_HUNT;
                } else {
                    n.f_idle = o.f_idle + 1;
                }
            }
            F_EXEC => {
                if !o.tx_busy {
                    if o.f_st == ST_OK && !o.f_write {
                        n.bus_re = true;
                        n.f_state = F_WAIT;
                    } else {
                        n.bus_we = o.f_st == ST_OK;
                        n.refused = o.f_st != ST_OK;
                        start_tx = Some((o.f_st, 0));
                        n.f_state = F_HUNT;
                    }
                }
            }
            _ => {
                if i.bus_rvalid {
                    start_tx = Some((ST_OK, i.bus_rdata));
                    n.f_state = F_HUNT;
                }
            }
        }

        // ---- transmitter
        if o.tx_crc_n != 0 {
            n.tx_crc = crc_bit_step(o.tx_crc);
            n.tx_crc_n = o.tx_crc_n - 1;
        }
        if o.tx_busy {
            if o.tx_cnt == 0 {
                if o.tx_nbits == 0 {
                    if o.tx_idx == 7 {
                        n.tx_busy = false;
                    } else {
                        let b = if o.tx_idx == 6 {
                            o.tx_crc
                        } else {
                            o.tx_resp as u8
                        };
                        if o.tx_idx != 6 {
                            n.tx_resp = o.tx_resp >> 8;
                            n.tx_crc = o.tx_crc ^ b;
                            n.tx_crc_n = 8;
                        }
                        n.tx_shift = 0x200 | (b as u16) << 1;
                        n.tx_nbits = 9;
                        n.tx_cnt = div - 1;
                        n.tx_idx = o.tx_idx + 1;
                    }
                } else {
                    n.tx_shift = 0x200 | o.tx_shift >> 1;
                    n.tx_nbits = o.tx_nbits - 1;
                    n.tx_cnt = div - 1;
                }
            } else {
                n.tx_cnt = o.tx_cnt - 1;
            }
        }
        if let Some((st, data)) = start_tx {
            n.tx_busy = true;
            n.tx_shift = 0x200 | (RESP_SYNC as u16) << 1;
            n.tx_nbits = 9;
            n.tx_cnt = div - 1;
            n.tx_idx = 1;
            n.tx_resp = (data as u64) << 8 | st as u64;
            n.tx_crc = 0;
            n.tx_crc_n = 0;
        }
        n.tx_line = !o.tx_busy || o.tx_shift & 1 != 0;

        // ---- clear: everything idle (a frame in progress is dropped)
        if i.clear {
            n.rx_state = RX_IDLE;
            n.rx_done = false;
            n.f_state = F_HUNT;
            n.bus_we = false;
            n.bus_re = false;
            n.refused = false;
            n.tx_busy = false;
        }
        self.r = n;
    }
}

/// A UART line driven by a host: bytes to bits at a given clocks-per-bit,
/// one `bool` per clock (8N1, LSB first, idle high).
pub fn serialize(bytes: &[u8], div: u32, out: &mut Vec<bool>) {
    for &b in bytes {
        let frame = 0x200u16 | (b as u16) << 1;
        for bit in 0..10 {
            let v = frame >> bit & 1 != 0;
            out.extend(std::iter::repeat_n(v, div as usize));
        }
    }
}

/// Bit times a host waits after a request before the next one: the
/// response (RESP_LEN bytes of 10 bits) and the bus access before it, with
/// slack.
pub const HOST_WAIT_BITS: usize = 10 * RESP_LEN + 30;

/// The line a host drives to make `writes` (bus writes, in order), one
/// `bool` per clock at `div` clocks per bit: each write's request frame,
/// then [`HOST_WAIT_BITS`] of idle line for its response. What a drain
/// sends to stop what a board core runs on its own.
pub fn host_writes(writes: &[ldcp_regmap::model::BusIn], div: u32) -> Vec<bool> {
    let div = effective_div(div);
    let mut line = Vec::new();
    for w in writes {
        serialize(&request(true, w.addr, w.wdata), div, &mut line);
        line.extend(std::iter::repeat_n(true, HOST_WAIT_BITS * div as usize));
    }
    line
}

/// A UART receiver on the host side: samples a line, one `bool` per clock,
/// at mid-bit, and yields the bytes with a good stop bit.
#[derive(Clone, Debug)]
pub struct LineDecoder {
    div: u32,
    /// Clocks into the current byte (0: idle).
    t: u32,
    shift: u16,
    prev: bool,
}

impl LineDecoder {
    /// A decoder for `div` clocks per bit.
    pub fn new(div: u32) -> Self {
        LineDecoder {
            div,
            t: 0,
            shift: 0,
            prev: true,
        }
    }

    /// One clock of the line; a completed byte.
    pub fn push(&mut self, line: bool) -> Option<u8> {
        let mut out = None;
        if self.t == 0 {
            if self.prev && !line {
                self.t = 1;
                self.shift = 0;
            }
        } else {
            self.t += 1;
            // sample bit k at (k + 0.5) bit times after the falling edge
            let half = self.div / 2;
            if self.t > half && (self.t - half - 1).is_multiple_of(self.div) {
                let k = (self.t - half - 1) / self.div;
                self.shift |= (line as u16) << k;
                if k == 0 && line {
                    // not a start bit: a glitch
                    self.t = 0;
                } else if k == 9 {
                    if self.shift & 1 == 0 && self.shift >> 9 == 1 {
                        out = Some((self.shift >> 1) as u8);
                    }
                    self.t = 0;
                }
            }
        }
        self.prev = line;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc8_matches_the_catalogue_check_value() {
        // CRC-8 (poly 0x07, init 0, no reflection, no xorout): check = 0xF4
        assert_eq!(crc8(b"123456789"), 0xF4);
    }

    #[test]
    fn a_request_round_trips_and_every_single_bit_error_is_refused() {
        let f = request(true, 0x2c, 0xdead_beef);
        let mut p = FrameParser::default();
        let acts: Vec<_> = f.iter().filter_map(|&b| p.feed(b)).collect();
        assert_eq!(acts, vec![Action::Write(0x2c, 0xdead_beef)]);
        for byte in 1..REQ_LEN {
            for bit in 0..8 {
                let mut g = f;
                g[byte] ^= 1 << bit;
                let mut p = FrameParser::default();
                let acts: Vec<_> = g.iter().filter_map(|&b| p.feed(b)).collect();
                assert_eq!(
                    acts,
                    vec![Action::Refuse(ST_BAD_CRC)],
                    "byte {byte} bit {bit}"
                );
            }
        }
    }

    #[test]
    fn responses_are_checked() {
        let r = response(ST_OK, 0x4c44_4350);
        assert_eq!(parse_response(&r), Ok((ST_OK, 0x4c44_4350)));
        let mut bad = r;
        bad[3] ^= 4;
        assert!(matches!(
            parse_response(&bad),
            Err(ResponseError::Crc { .. })
        ));
    }
}
