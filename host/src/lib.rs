//! Host driver of the LDCP devices: the NIC core (or system) and the
//! switch port. It links no RustHDL: the hardware's side is the register
//! map (`ldcp_regmap`) and the golden models (`ldcp_sim`).
//!
//! [`RegAccess`] is the one thing a backend provides: 32-bit reads and
//! writes at the byte offsets of the register map, and a way to let device
//! time pass. [`Device`] builds everything else on it (identification,
//! parameters by name, the indirect flow window, counters, the event FIFO
//! and the on-chip generator), so every backend behaves the same:
//! - [`backend::sim`]: a device stepped cycle by cycle through its register
//!   bus: the golden model of the NIC system ([`backend::sim::model`]) or
//!   of a switch port, or any other [`backend::sim::BusDevice`] (the
//!   `ldcpctl` crate's Verilated NIC system is one);
//! - [`backend::pcie`]: a PCIe BAR mapped from sysfs `resource0` (or any
//!   file of the BAR's size);
//! - [`backend::uart`]: the boards' UART bridge (a real board, or the
//!   `ldcpctl` crate's simulated one behind a pseudo-terminal, `ldcpctl
//!   serve-sim`).

pub mod backend;
pub mod device;
pub mod fuzz;
#[rustfmt::skip]
pub mod regs;

pub use device::{
    AckInfo, AgOutcome, CnpDescriptor, Device, DeviceInfo, EgressOutcome, EndConOutcome, ExtStats,
    FsKind, FsOutcome, GenRun, IngressOutcome, LoopRun, PacingState, ParamValue, PushRun, Stats,
    SwitchPacket, SwitchStats, WredOutcome,
};
pub use regs::Param;

/// A value typed by the user: in the unit of the field, or raw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Typed {
    /// In the unit (fixed point: raw / 2^frac).
    Value(f64),
    /// A raw register value.
    Raw(u64),
}

/// Parses `raw:N`, `0xN`, or a number in the unit; `what` names it in errors.
pub fn parse_typed(what: &str, s: &str) -> Result<Typed, DriverError> {
    let s = s.trim();
    let bad = || {
        DriverError::BadValue(format!(
            "{what} = {s:?} is not a number (give a value like 0.5, or a raw register value as raw:128 or 0x80)"
        ))
    };
    if let Some(r) = s.strip_prefix("raw:") {
        r.parse().map(Typed::Raw).map_err(|_| bad())
    } else if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16)
            .map(Typed::Raw)
            .map_err(|_| bad())
    } else {
        s.parse().map(Typed::Value).map_err(|_| bad())
    }
}

/// Parses a `NAME=VALUE` assignment of a parameter (`ldcpctl bench --set`):
/// the parameter by its name (any case) and the value as [`parse_typed`]
/// takes it. The range is the device's to check (`Device::set_param`).
pub fn parse_assignment(kv: &str) -> Result<(Param, Typed), DriverError> {
    let (name, value) = kv.split_once('=').ok_or_else(|| {
        DriverError::BadValue(format!(
            "--set {kv:?}: expected NAME=VALUE (e.g. wred_drain=4000)"
        ))
    })?;
    let p = <Param as clap::ValueEnum>::from_str(name.trim(), true).map_err(|_| {
        let names: Vec<&str> = <Param as clap::ValueEnum>::value_variants()
            .iter()
            .map(|p| p.name())
            .collect();
        DriverError::BadValue(format!(
            "--set {kv:?}: no parameter {name:?}; the parameters are {}",
            names.join(", ")
        ))
    })?;
    Ok((p, parse_typed(p.name(), value)?))
}

/// A field of a register: the map's own definition (the generated
/// accessors in [`regs`] are constants of it).
pub use ldcp_regmap::Field;

/// Everything that can go wrong between the host and the device.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// No PCI device at that address.
    #[error("no PCI device at {bdf}: {path} does not exist (is the board in, and the BDF right? see lspci -D)")]
    NoDevice {
        /// The BDF asked for.
        bdf: String,
        /// The path looked at.
        path: String,
    },
    /// The OS refused access.
    #[error("permission denied opening {path}: run as root, or give your user access to it (udev rule, or VFIO)")]
    Permission {
        /// The path.
        path: String,
    },
    /// The BAR is smaller than the register window.
    #[error("BAR {path} is {size} bytes; the LDCP register map needs {need}")]
    BarTooSmall {
        /// The path.
        path: String,
        /// Its size.
        size: u64,
        /// The register window's size.
        need: u64,
    },
    /// The serial port does not exist.
    #[error("serial port {path} does not exist (is the Alchitry Cu plugged in? its FTDI UART is usually /dev/ttyUSB1)")]
    SerialMissing {
        /// The path.
        path: String,
    },
    /// The bridge refused a frame (bad CRC or bad frame) or answered garbage.
    #[error("UART bridge: {0}")]
    Bridge(String),
    /// The bridge did not answer in time.
    #[error("UART bridge: no response within {ms} ms to a {what} (is the bitstream loaded, and the baud rate {baud}?)")]
    BridgeTimeout {
        /// What was sent.
        what: String,
        /// The timeout.
        ms: u64,
        /// The line rate.
        baud: u32,
    },
    /// Not an LDCP core.
    #[error("not an LDCP NIC core: MAGIC reads {found:#010x}, expected {expected:#010x}")]
    NotLdcp {
        /// Read.
        found: u32,
        /// Expected.
        expected: u32,
    },
    /// A register-map version this driver does not know.
    #[error("register-map version {}.{} of the device is not supported by this driver (it knows {}.{}): use a matching ldcpctl or bitstream", .found >> 16, .found & 0xffff, .known >> 16, .known & 0xffff)]
    VersionMismatch {
        /// The device's.
        found: u32,
        /// The driver's.
        known: u32,
    },
    /// A value outside its legal range, or one that does not parse.
    #[error("{0}")]
    BadValue(String),
    /// An extension block's one-event slot was full: the event was dropped.
    #[error("{0}: the block's one-event slot was full, so the event was dropped (XERRORS flag cleared); nothing else changed")]
    Overrun(String),
    /// A CAPS.KIND this driver does not know.
    #[error("CAPS.KIND reads {0}, which this driver does not know (it knows 0 NIC, 1 SWITCH_PORT): use a matching ldcpctl")]
    UnknownKind(u32),
    /// A NIC register asked of a switch port.
    #[error("{0} belongs to the NIC, and this device is a switch port (CAPS.KIND = SWITCH_PORT: the alchitry-cu-switch, alchitry-cu-pe or ulx3s-switch bitstream), which has the id registers, CORE_RESET, the WRED/ECN port and the draft-001 blocks of its role only; use `ldcpctl wred`, `tunnel`, `end-con`, `fast-cnp`, `stats`, `config` (the wred_* parameters, fcnp_interval), `reset`")]
    NotOnSwitchPort(String),
    /// The device does not hold the block a request needs (BLOCKS).
    #[error("{what} needs the {block} block, which this device does not hold (BLOCKS: {has}); `ldcpctl probe` lists what it holds")]
    NoBlock {
        /// The request.
        what: String,
        /// The BLOCKS field of the missing block.
        block: String,
        /// The blocks the device holds.
        has: String,
    },
    /// The device has no extension blocks (CAPS.EXT = 0).
    #[error("{0} belongs to the extension blocks (pacing timer, fast-start marker, ACK generator, WRED/ECN port), which this device does not have (CAPS.EXT = 0, e.g. the Alchitry Cu bitstream, where they do not fit); the sim and model backends have them")]
    NoExt(String),
    /// The device did not finish something in time.
    #[error("{0}")]
    Timeout(String),
    /// A signal stopped the command; what it left on the device is said.
    #[error("{0}")]
    Interrupted(String),
    /// The simulated device could not be built or run.
    #[error("simulated device: {0}")]
    Sim(String),
    /// Another I/O error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

/// 32-bit register access at the byte offsets of the map.
pub trait RegAccess {
    /// Reads the register at byte offset `offset`.
    fn read32(&mut self, offset: u32) -> Result<u32, DriverError>;
    /// Writes `value` to the register at byte offset `offset`.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DriverError>;
    /// Lets about `cycles` device clock cycles pass (a simulated device
    /// steps its clock; hardware sleeps).
    fn idle(&mut self, cycles: u64) -> Result<(), DriverError>;
    /// One line: what this backend is connected to.
    fn describe(&self) -> String;
}

impl<T: RegAccess + ?Sized> RegAccess for Box<T> {
    fn read32(&mut self, offset: u32) -> Result<u32, DriverError> {
        (**self).read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DriverError> {
        (**self).write32(offset, value)
    }
    fn idle(&mut self, cycles: u64) -> Result<(), DriverError> {
        (**self).idle(cycles)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
}
