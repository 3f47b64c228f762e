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
//! skipped. A frame whose bytes stop for [`IDLE_TIMEOUT_BITS`] bit times is
//! dropped without a response, so a host that lost a byte resynchronises by
//! waiting and resending.

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
/// Bit times of silence inside a frame after which it is dropped.
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
