//! The Alchitry Cu over its FTDI USB-UART: register accesses as bridge
//! frames (`ldcp_sim::uart_bridge` defines the protocol), 8N1, raw mode.
//! Each access waits for its response; a refused frame (bad CRC) or a
//! response that fails its own CRC is an error, and so is silence beyond
//! the timeout. The port may also be the pty of `ldcpctl serve-sim` (the
//! board simulated, `ldcpctl::sim_board`): every termios call below works
//! on a pty slave, where the rate is only stored (the simulated board reads
//! it back to time the line).

use crate::{DriverError, RegAccess};
use ldcp_sim::uart_bridge::{self as br, RESP_LEN};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// Response timeout.
pub const TIMEOUT: Duration = Duration::from_millis(200);

/// The bridge, over a serial port (or any byte stream in tests).
pub struct UartBridge {
    port: std::fs::File,
    name: String,
    baud: u32,
}

/// The line rates the driver offers (`--baud`), with their termios codes.
const SUPPORTED: [(u32, libc::speed_t); 7] = [
    (115_200, libc::B115200),
    (230_400, libc::B230400),
    (460_800, libc::B460800),
    (921_600, libc::B921600),
    (1_000_000, libc::B1000000),
    (2_000_000, libc::B2000000),
    (3_000_000, libc::B3000000),
];

/// Other termios rates a tty can be left at (a pty starts at 38400), for
/// [`baud_of`]: the simulated board reads the line rate its client set.
const OTHER: [(u32, libc::speed_t); 16] = [
    (300, libc::B300),
    (600, libc::B600),
    (1_200, libc::B1200),
    (2_400, libc::B2400),
    (4_800, libc::B4800),
    (9_600, libc::B9600),
    (19_200, libc::B19200),
    (38_400, libc::B38400),
    (57_600, libc::B57600),
    (500_000, libc::B500000),
    (576_000, libc::B576000),
    (1_152_000, libc::B1152000),
    (1_500_000, libc::B1500000),
    (2_500_000, libc::B2500000),
    (3_500_000, libc::B3500000),
    (4_000_000, libc::B4000000),
];

fn speed(baud: u32) -> Option<libc::speed_t> {
    SUPPORTED.iter().find(|s| s.0 == baud).map(|s| s.1)
}

/// The line rate, in baud, of a termios speed code (`cfgetospeed`).
pub fn baud_of(code: libc::speed_t) -> Option<u32> {
    SUPPORTED
        .iter()
        .chain(OTHER.iter())
        .find(|s| s.1 == code)
        .map(|s| s.0)
}

fn unsupported(baud: u32) -> String {
    let list: Vec<String> = SUPPORTED
        .iter()
        .map(|s| {
            if s.0 == br::DEFAULT_BAUD {
                format!("{} (the bitstream's default)", s.0)
            } else {
                s.0.to_string()
            }
        })
        .collect();
    let (last, rest) = list.split_last().expect("SUPPORTED is not empty");
    format!("{baud} is not supported: use {} or {last}", rest.join(", "))
}

/// Puts a tty in raw 8N1 mode at `baud`, reads returning after 10 ms of silence.
pub fn make_raw(f: &std::fs::File, baud: u32) -> std::io::Result<()> {
    let sp = speed(baud).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("baud rate {}", unsupported(baud)),
        )
    })?;
    // SAFETY: termios calls on an open descriptor with a zeroed struct
    // filled by tcgetattr.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(f.as_raw_fd(), &mut t) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::cfmakeraw(&mut t);
        t.c_cflag |= libc::CLOCAL | libc::CREAD;
        t.c_cflag &= !(libc::CSTOPB | libc::PARENB | libc::CRTSCTS);
        t.c_cc[libc::VMIN] = 0;
        t.c_cc[libc::VTIME] = 1;
        libc::cfsetispeed(&mut t, sp);
        libc::cfsetospeed(&mut t, sp);
        if libc::tcsetattr(f.as_raw_fd(), libc::TCSANOW, &t) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::tcflush(f.as_raw_fd(), libc::TCIOFLUSH);
    }
    Ok(())
}

impl UartBridge {
    /// Opens `path` at `baud`.
    pub fn open(path: &Path, baud: u32) -> Result<Self, DriverError> {
        let disp = path.display().to_string();
        if speed(baud).is_none() {
            return Err(DriverError::BadValue(format!(
                "--baud {}",
                unsupported(baud)
            )));
        }
        if !path.exists() {
            return Err(DriverError::SerialMissing { path: disp });
        }
        let port = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::PermissionDenied => {
                    DriverError::Permission { path: disp.clone() }
                }
                _ => DriverError::Io {
                    context: format!("opening {disp}"),
                    source: e,
                },
            })?;
        make_raw(&port, baud).map_err(|e| DriverError::Io {
            context: format!("configuring {disp} (is it a serial port?)"),
            source: e,
        })?;
        Ok(UartBridge {
            port,
            name: disp,
            baud,
        })
    }

    fn transact(&mut self, write: bool, addr: u32, data: u32) -> Result<u32, DriverError> {
        let what = if write {
            format!("write of {data:#x} to {addr:#x}")
        } else {
            format!("read of {addr:#x}")
        };
        if addr >= ldcp_regmap::WINDOW_BYTES {
            return Err(DriverError::BadValue(format!(
                "register offset {addr:#x} is beyond the {}-byte window",
                ldcp_regmap::WINDOW_BYTES
            )));
        }
        let name = self.name.clone();
        let io = |e: std::io::Error| DriverError::Io {
            context: format!("serial port {name}"),
            source: e,
        };
        self.port
            .write_all(&br::request(write, addr, data))
            .map_err(io)?;
        let mut rd = ResponseReader::default();
        let mut chunk = [0u8; RESP_LEN];
        let t0 = Instant::now();
        let resp = loop {
            if let Some(f) = rd.frame() {
                break f;
            }
            if t0.elapsed() > TIMEOUT {
                return Err(DriverError::BridgeTimeout {
                    what,
                    ms: TIMEOUT.as_millis() as u64,
                    baud: self.baud,
                });
            }
            let n = self.port.read(&mut chunk[..rd.room()]).map_err(io)?;
            rd.push(&chunk[..n]);
        };
        let (st, d) =
            br::parse_response(&resp).map_err(|e| DriverError::Bridge(format!("{what}: {e}")))?;
        match st {
            br::ST_OK => Ok(d),
            br::ST_BAD_CRC => Err(DriverError::Bridge(format!(
                "{what}: the board refused the frame (CRC mismatch on the line); nothing was executed"
            ))),
            br::ST_BAD_FRAME => Err(DriverError::Bridge(format!(
                "{what}: the board refused the frame (bad op or address); nothing was executed"
            ))),
            s => Err(DriverError::Bridge(format!("{what}: unknown status {s}"))),
        }
    }
}

/// A response as its bytes arrive: anything before its sync byte is
/// skipped; the frame is the sync byte and the six bytes after it.
#[derive(Clone, Debug, Default)]
pub struct ResponseReader {
    buf: [u8; RESP_LEN],
    got: usize,
}

impl ResponseReader {
    /// How many bytes the next read may take (the frame's rest: never a
    /// byte of the next response).
    pub fn room(&self) -> usize {
        RESP_LEN - self.got
    }

    /// Takes bytes read from the line, at most [`Self::room`] of them
    /// (more is a caller's error: the excess is ignored).
    pub fn push(&mut self, chunk: &[u8]) {
        let chunk = &chunk[..chunk.len().min(self.room())];
        let chunk = if self.got == 0 {
            match chunk.iter().position(|&b| b == br::RESP_SYNC) {
                Some(p) => &chunk[p..],
                None => return,
            }
        } else {
            chunk
        };
        self.buf[self.got..self.got + chunk.len()].copy_from_slice(chunk);
        self.got += chunk.len();
    }

    /// The complete frame, once all its bytes arrived (unchecked: see
    /// `ldcp_sim::uart_bridge::parse_response`).
    pub fn frame(&self) -> Option<[u8; RESP_LEN]> {
        (self.got == RESP_LEN).then_some(self.buf)
    }
}

impl RegAccess for UartBridge {
    fn read32(&mut self, offset: u32) -> Result<u32, DriverError> {
        self.transact(false, offset, 0)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DriverError> {
        self.transact(true, offset, value).map(|_| ())
    }

    fn idle(&mut self, cycles: u64) -> Result<(), DriverError> {
        // cycles of the board's clock
        std::thread::sleep(Duration::from_secs_f64(
            cycles as f64 / (ldcp_sim::board::CLOCK_MHZ * 1e6),
        ));
        Ok(())
    }

    fn describe(&self) -> String {
        format!("uart: {} at {} baud", self.name, self.baud)
    }
}
