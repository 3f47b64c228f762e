//! The register map of the LDCP devices (the NIC and the switch port),
//! defined once.
//!
//! Every register the host can reach is one [`Register`] in [`REGISTERS`]:
//! its block, byte offset, access, reset value, fields (with fixed-point
//! format and legal range) and a one-line doc. Everything else is generated
//! from this table by [`gen`]:
//! - `hdl/src/regfile.rs`: the RustHDL register decoder of the NIC core;
//! - `hdl/src/ext_regfile.rs`: the NIC system's extension decoder;
//! - `hdl/src/switch_regfile.rs`: the switch port's decoder (the
//!   registers [`in_switch_port`] selects);
//! - `regmap/src/position.rs`: each register's position in its decoder's
//!   list and its offset, as constants the models name registers by;
//! - `host/src/regs.rs`: the driver's typed accessors;
//! - `docs/regmap.md` and `docs/regmap.json`: the documentation;
//! - `docs/ldcp_regs.h`: a C header for people who write their own driver.
//!
//! `cargo run -p ldcp-regmap --bin regmap-gen -- --write` rewrites them; a
//! test fails when a committed one is out of date, when two registers
//! overlap, or when a field does not fit its register.
//!
//! # The bus
//! 32-bit registers at 4-byte aligned byte offsets in a 4 KiB window
//! ([`WINDOW_BYTES`], the size of the PCIe BAR). A write acts
//! [`WRITE_LATENCY_CYCLES`] after its strobe (the decoder registers it): an
//! RW or W1C register takes it at the end of that cycle, a command (a WO
//! register) reaches the device's logic in it. A read samples the register
//! in the cycle after its strobe and returns the data
//! [`READ_LATENCY_CYCLES`] cycles after the strobe (`bus_rvalid`); reads
//! may follow each other every cycle. Unmapped or unaligned offsets read
//! as 0 and ignore writes; bits outside every field read as 0 and ignore
//! writes.

pub mod gen;
pub mod model;
pub mod position;

/// "LDCP" in ASCII: the first register of the map.
pub const MAGIC: u32 = 0x4C44_4350;
/// The register-map version: major in bits 31..16, minor in 15..0. A
/// driver refuses a device whose major differs from the one it was built
/// with, or whose minor is newer. 1.2 added CAPS.KIND and the switch port;
/// 1.3 added BLOCKS (one bit per block); 1.4 the on-chip loopback (LOOP_*,
/// BLOCKS.LOOP, XERRORS.WRED_OVERRUN); 2.0 widened every flow field to
/// [`FLOW_FIELD_BITS`] (4,096 flows), moving the fields above them; 2.1
/// added BLOCKS.GENERATOR (a 2.0 device holds the generator wherever it
/// holds the window engine).
pub const MAP_VERSION: u32 = 0x0002_0001;
/// Cycles from a read's strobe (`bus_re`) to its data (`bus_rdata` with
/// `bus_rvalid`): the decoders decode the address in the strobe's cycle and
/// sample the register in the next (a design constant of the generated
/// decoders; the golden model [`model::RegFileModel`] follows it).
pub const READ_LATENCY_CYCLES: u32 = 2;
/// Cycles from a write's strobe (`bus_we`) to the cycle the decoder acts
/// on it: an RW or W1C register takes the value at that cycle's edge, a
/// command's strobe (`<register>_wr`) and fields reach the device's logic
/// in it. The decoders register every write once (a design constant, like
/// [`READ_LATENCY_CYCLES`]).
pub const WRITE_LATENCY_CYCLES: u32 = 1;
/// The byte size of the register window (the PCIe BAR).
pub const WINDOW_BYTES: u32 = 4096;
/// Address bits of the bus (byte address).
pub const ADDR_BITS: u32 = 12;
/// The first byte offset of the extension blocks (pacing timer, fast-start
/// marker, ACK generator, WRED/ECN port): registers from here on are
/// decoded by the extension decoder, present only in a build with
/// CAPS.EXT set (`nic_system`); in one without (`nic_core`, the Alchitry Cu
/// board) they read as 0 and ignore writes.
pub const EXT_BASE: u32 = 0x100;

/// BLOCKS bit of the window engine (with the core's FIFO, flow window and
/// counters).
pub const BLOCK_WINDOW_ENGINE: u32 = 0;
/// BLOCKS bit of the pacing timer.
pub const BLOCK_PACING_TIMER: u32 = 1;
/// BLOCKS bit of the fast-start marker.
pub const BLOCK_FAST_START: u32 = 2;
/// BLOCKS bit of the ACK generator.
pub const BLOCK_ACK_GEN: u32 = 3;
/// BLOCKS bit of the WRED/ECN port.
pub const BLOCK_WRED_ECN: u32 = 4;
/// BLOCKS bit of the on-chip loopback (a sender and the receiver's ACKs
/// returned to it: `nic_system`).
pub const BLOCK_LOOP: u32 = 5;
/// BLOCKS bit of the core's on-chip event generator (GEN_* registers; map
/// 2.1).
pub const BLOCK_GENERATOR: u32 = 6;
/// The BLOCKS of a NIC core alone (`nic_core`, the `alchitry-cu` bitstream).
pub const BLOCKS_NIC_CORE: u32 = 1 << BLOCK_WINDOW_ENGINE | 1 << BLOCK_GENERATOR;
/// The BLOCKS of the NIC system (the simulated device, the ULX3S).
pub const BLOCKS_NIC_SYSTEM: u32 = 1 << BLOCK_WINDOW_ENGINE
    | 1 << BLOCK_PACING_TIMER
    | 1 << BLOCK_FAST_START
    | 1 << BLOCK_ACK_GEN
    | 1 << BLOCK_WRED_ECN
    | 1 << BLOCK_LOOP
    | 1 << BLOCK_GENERATOR;
/// The BLOCKS of the Alchitry Cu NIC (`nic_cu`): the NIC system without
/// the WRED/ECN port, which belongs to a switch, and without the event
/// generator, whose cells the HX8K does not have to spare (the loopback
/// is its traffic source there).
pub const BLOCKS_NIC_CU: u32 = BLOCKS_NIC_SYSTEM & !(1 << BLOCK_WRED_ECN) & !(1 << BLOCK_GENERATOR);
/// The first byte offset of the switch port's own blocks (draft 001:
/// tunnel ECN, END.CON, Fast CNP, and the packet staging they share):
/// registers from here on are decoded by a switch port only
/// ([`in_switch_port`]). They are outside the NIC decoders'
/// ([`core_registers`], [`ext_registers`]), so adding them changed no NIC
/// build; SW_BLOCKS says which of them a switch port holds, and reads 0
/// where none is (a NIC, or a switch port built before them), which is how
/// a driver tells, without a new map version (see [`MAP_VERSION`]).
pub const SWITCH_BASE: u32 = 0x200;
/// Where the SW_BLOCKS register's bits sit in the 32-bit block set
/// [`decoded_by`] takes: BLOCKS in bits 15..0, SW_BLOCKS from here (a
/// driver ORs `SW_BLOCKS << SW_BLOCKS_SHIFT` into BLOCKS).
pub const SW_BLOCKS_SHIFT: u32 = 16;
/// Block-set bit of the tunnel ECN ingress (SW_BLOCKS.TUNNEL_INGRESS).
pub const BLOCK_TUNNEL_INGRESS: u32 = SW_BLOCKS_SHIFT;
/// Block-set bit of the tunnel ECN egress (SW_BLOCKS.TUNNEL_EGRESS).
pub const BLOCK_TUNNEL_EGRESS: u32 = SW_BLOCKS_SHIFT + 1;
/// Block-set bit of the END.CON match (SW_BLOCKS.END_CON).
pub const BLOCK_END_CON: u32 = SW_BLOCKS_SHIFT + 2;
/// Block-set bit of the Fast CNP trigger and its descriptor queue
/// (SW_BLOCKS.FAST_CNP).
pub const BLOCK_FAST_CNP: u32 = SW_BLOCKS_SHIFT + 3;
/// Block-set bit of the packet staging registers (SW_BLOCKS.PKT).
pub const BLOCK_PKT: u32 = SW_BLOCKS_SHIFT + 4;
/// Block-set bit of draft 002's per-packet decision (SW_BLOCKS.COORD).
pub const BLOCK_COORD: u32 = SW_BLOCKS_SHIFT + 5;
/// The BLOCKS of a switch port (the register's own bits).
pub const BLOCKS_SWITCH_PORT: u32 = 1 << BLOCK_WRED_ECN;
/// The block set of a switch port with every draft-001 block (the
/// `ulx3s-switch` bitstream; the Alchitry Cu ones hold a role's share):
/// BLOCKS = [`BLOCKS_SWITCH_PORT`], and SW_BLOCKS all five.
pub const BLOCKS_SWITCH_PORT_001: u32 = BLOCKS_SWITCH_PORT
    | 1 << BLOCK_TUNNEL_INGRESS
    | 1 << BLOCK_TUNNEL_EGRESS
    | 1 << BLOCK_END_CON
    | 1 << BLOCK_FAST_CNP
    | 1 << BLOCK_PKT;
/// The block set of a switch port with every block, draft 002's decision
/// included (the `ulx3s-switch` bitstream).
pub const BLOCKS_SWITCH_PORT_ALL: u32 = BLOCKS_SWITCH_PORT_001 | 1 << BLOCK_COORD;

/// The block-set bit a register needs, by its map block (BLOCKS bits, and
/// SW_BLOCKS bits from [`SW_BLOCKS_SHIFT`]): `None` for the id, control and
/// window-engine registers (every NIC has them), for the extension
/// decoder's own XSTATUS/XERRORS (CAPS.EXT) and for SW_BLOCKS itself.
pub fn block_bit(r: &Register) -> Option<u32> {
    match r.block {
        "pacing" => Some(BLOCK_PACING_TIMER),
        "fast_start" => Some(BLOCK_FAST_START),
        "ack_gen" => Some(BLOCK_ACK_GEN),
        "wred" => Some(BLOCK_WRED_ECN),
        "loop" => Some(BLOCK_LOOP),
        "generator" => Some(BLOCK_GENERATOR),
        "tunnel_ingress" => Some(BLOCK_TUNNEL_INGRESS),
        "tunnel_egress" => Some(BLOCK_TUNNEL_EGRESS),
        "end_con" => Some(BLOCK_END_CON),
        "fast_cnp" => Some(BLOCK_FAST_CNP),
        "pkt" => Some(BLOCK_PKT),
        "coord" => Some(BLOCK_COORD),
        _ => None,
    }
}

/// CAPS.KIND codes: what the device is.
pub const KINDS: &[(u32, &str)] = &[(KIND_NIC, "NIC"), (KIND_SWITCH_PORT, "SWITCH_PORT")];
/// CAPS.KIND of a NIC (`nic_core`, `nic_system`).
pub const KIND_NIC: u32 = 0;
/// CAPS.KIND of a switch port (the `alchitry-cu-switch`, `alchitry-cu-pe`
/// and `ulx3s-switch` bitstreams): it decodes only the registers
/// [`in_switch_port`] selects.
pub const KIND_SWITCH_PORT: u32 = 1;

/// How software may access a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Access {
    /// Read only: hardware drives it; writes are ignored.
    Ro,
    /// Read and write: software's value, held in the decoder.
    Rw,
    /// Write one to clear: sticky flags set by hardware, cleared by writing
    /// a one to their bit (a set and a clear in one cycle: the set wins).
    W1c,
    /// Write only: a command; the write is a one-cycle strobe with the
    /// written fields; reads return 0.
    Wo,
}

impl Access {
    /// The short name used in the documentation.
    pub fn name(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::W1c => "W1C",
            Access::Wo => "WO",
        }
    }
}

/// Where a read-only register's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Source {
    /// Writable, command or sticky registers: not read-only.
    NotRo,
    /// A constant of the map itself (the reset value).
    Const,
    /// A value of the build or of the hardware, driven by the core.
    Hw,
}

/// A field's number format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Format {
    /// An unsigned integer.
    Uint,
    /// An unsigned fixed-point number, UQ`int`.`frac`: value = raw / 2^frac.
    Fixed {
        /// Integer bits.
        int: u32,
        /// Fraction bits.
        frac: u32,
    },
    /// One flag bit.
    Flag,
    /// A hexadecimal identifier.
    Hex,
    /// A command code: the legal codes and their names.
    Enum(&'static [(u32, &'static str)]),
}

impl Format {
    /// The format as written in the documentation.
    pub fn describe(&self) -> String {
        match self {
            Format::Uint => "uint".into(),
            Format::Fixed { int, frac } => format!("UQ{int}.{frac}"),
            Format::Flag => "flag".into(),
            Format::Hex => "hex".into(),
            Format::Enum(v) => v
                .iter()
                .map(|(c, n)| format!("{c}={n}"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// One field of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Field {
    /// Upper-case name, unique within its register.
    pub name: &'static str,
    /// Lowest bit.
    pub lsb: u32,
    /// Width in bits.
    pub width: u32,
    /// Its number format.
    pub format: Format,
    /// The legal raw values, inclusive.
    pub min: u32,
    /// The legal raw values, inclusive.
    pub max: u32,
    /// Reset value of the field (raw).
    pub reset: u32,
    /// One line: what it is, and what hardware does with an illegal value.
    pub doc: &'static str,
}

impl Field {
    /// The mask of the field within its register.
    pub const fn mask(&self) -> u32 {
        (((1u64 << self.width) - 1) as u32) << self.lsb
    }

    /// The field's raw value in a register value.
    pub const fn get(&self, reg: u32) -> u32 {
        (reg & self.mask()) >> self.lsb
    }

    /// `reg` with the field replaced by `raw` (truncated to the field).
    pub const fn set(&self, reg: u32, raw: u32) -> u32 {
        (reg & !self.mask()) | ((raw << self.lsb) & self.mask())
    }

    /// A register value with only this field set, to `raw` (truncated).
    pub const fn put(&self, raw: u32) -> u32 {
        self.set(0, raw)
    }

    /// The largest raw value the field's bits hold.
    pub const fn bits_max(&self) -> u32 {
        ((1u64 << self.width) - 1) as u32
    }

    /// Fraction bits of the field's format (0 unless fixed point).
    pub const fn frac(&self) -> u32 {
        match self.format {
            Format::Fixed { frac, .. } => frac,
            _ => 0,
        }
    }

    /// A raw value in the field's unit (fixed point: raw / 2^frac).
    pub fn to_value(&self, raw: u32) -> f64 {
        raw as f64 / (1u64 << self.frac()) as f64
    }

    /// The raw value of `value` in the field's unit, if it is in the legal
    /// range and a whole number of steps of 2^-frac; else the reason,
    /// naming the value and the range.
    pub fn from_value(&self, value: f64) -> Result<u32, String> {
        let range = || {
            format!(
                "it must be in [{}, {}]",
                self.to_value(self.min),
                self.to_value(self.max)
            )
        };
        let shown = show_number(value);
        if !value.is_finite() {
            return Err(format!("{shown} is not a number: {}", range()));
        }
        let scaled = value * (1u64 << self.frac()) as f64;
        let r = scaled.round();
        if (scaled - r).abs() > 1e-9 * scaled.abs().max(1.0) {
            let nearest = show_number(r / (1u64 << self.frac()) as f64);
            return Err(match self.frac() {
                0 => format!("{shown} is not a whole number (nearest: {nearest})"),
                f => {
                    format!("{shown} is not a whole number of steps of 2^-{f} (nearest: {nearest})")
                }
            });
        }
        if r < self.min as f64 || r > self.max as f64 {
            return Err(format!("{shown} is out of range: {}", range()));
        }
        Ok(r as u32)
    }

    /// `raw` if it is in the legal range; else the reason, naming the
    /// value and the range.
    pub fn check_raw(&self, raw: u64) -> Result<u32, String> {
        if raw < self.min as u64 || raw > self.max as u64 {
            return Err(format!(
                "raw {raw} is out of range: it must be in [{}, {}] (raw), [{}, {}] in its unit",
                self.min,
                self.max,
                self.to_value(self.min),
                self.to_value(self.max)
            ));
        }
        Ok(raw as u32)
    }

    /// A raw value in the field's format (fixed point as a decimal number
    /// with its raw value).
    pub fn show(&self, raw: u64) -> String {
        match self.format {
            Format::Fixed { frac, .. } => {
                format!("{} (raw {raw:#x})", raw as f64 / (1u64 << frac) as f64)
            }
            Format::Hex => format!("{raw:#010x}"),
            _ => raw.to_string(),
        }
    }
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Register {
    /// The block it belongs to.
    pub block: &'static str,
    /// Upper-case name, unique in the map.
    pub name: &'static str,
    /// Byte offset, 4-byte aligned.
    pub offset: u32,
    /// Its access.
    pub access: Access,
    /// For RO registers: where the value comes from.
    pub source: Source,
    /// A read of it is signalled to the core (a one-cycle strobe).
    pub read_strobe: bool,
    /// Its fields, low bits first.
    pub fields: &'static [Field],
    /// One line: what it is.
    pub doc: &'static str,
    /// For a parameter (an RW register of one field that the host sets by
    /// name): the name, as `ldcpctl config` and the driver's `Param` know
    /// it. Its format, legal range and reset value are the field's.
    pub param: Option<&'static str>,
}

impl Register {
    /// The value after reset: every field at its reset value.
    pub fn reset(&self) -> u32 {
        self.fields.iter().fold(0, |r, f| f.set(r, f.reset))
    }

    /// The bits that belong to a field.
    pub fn mask(&self) -> u32 {
        self.fields.iter().fold(0, |m, f| m | f.mask())
    }

    /// Whether it is a 32-bit event counter: read-only without a read side
    /// effect, one 32-bit field named COUNT (the 48-bit cycle counter's
    /// two words are not: reading the low one latches the high one).
    pub fn is_counter(&self) -> bool {
        self.access == Access::Ro
            && !self.read_strobe
            && self.fields.len() == 1
            && self.fields[0].name == "COUNT"
            && self.fields[0].width == 32
    }

    /// Whether it belongs to an extension block of the NIC system (decoded
    /// from [`EXT_BASE`] up to [`SWITCH_BASE`]).
    pub const fn is_ext(&self) -> bool {
        self.offset >= EXT_BASE && self.offset < SWITCH_BASE
    }

    /// Whether only a switch port decodes it (from [`SWITCH_BASE`] on).
    pub const fn is_switch_only(&self) -> bool {
        self.offset >= SWITCH_BASE
    }

    /// A field by name (case-insensitive).
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(name))
    }
}

const fn uint(name: &'static str, lsb: u32, width: u32, reset: u32, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        format: Format::Uint,
        min: 0,
        max: ((1u64 << width) - 1) as u32,
        reset,
        doc,
    }
}

const fn flag(name: &'static str, lsb: u32, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width: 1,
        format: Format::Flag,
        min: 0,
        max: 1,
        reset: 0,
        doc,
    }
}

const fn ro(
    block: &'static str,
    name: &'static str,
    offset: u32,
    source: Source,
    fields: &'static [Field],
    doc: &'static str,
) -> Register {
    Register {
        block,
        name,
        offset,
        access: Access::Ro,
        source,
        read_strobe: false,
        fields,
        doc,
        param: None,
    }
}

const fn reg(
    block: &'static str,
    name: &'static str,
    offset: u32,
    access: Access,
    fields: &'static [Field],
    doc: &'static str,
) -> Register {
    Register {
        block,
        name,
        offset,
        access,
        source: Source::NotRo,
        read_strobe: false,
        fields,
        doc,
        param: None,
    }
}

/// `r` as the parameter `name` (see [`Register::param`]).
const fn param(name: &'static str, r: Register) -> Register {
    Register {
        param: Some(name),
        ..r
    }
}

const COUNT32: [Field; 1] = [uint("COUNT", 0, 32, 0, "wraps at 2^32")];
const SAT32: [Field; 1] = [uint("COUNT", 0, 32, 0, "saturates at 2^32 - 1")];

const fn counter(name: &'static str, offset: u32, doc: &'static str) -> Register {
    ro("counters", name, offset, Source::Hw, &COUNT32, doc)
}

const WORD32: [Field; 1] = [uint("WORD", 0, 32, 0, "the 32 bits")];

/// A staging word of the next packet's header (WO, held by the switch port).
const fn wo_word(name: &'static str, offset: u32, doc: &'static str) -> Register {
    reg("pkt", name, offset, Access::Wo, &WORD32, doc)
}

/// A word of the END.CON SID (WO: the block holds it).
const fn wo_sid(name: &'static str, offset: u32, doc: &'static str) -> Register {
    reg("end_con", name, offset, Access::Wo, &WORD32, doc)
}

/// A word of the oldest queued Fast CNP descriptor.
const fn ro_word(name: &'static str, offset: u32, doc: &'static str) -> Register {
    ro("fast_cnp", name, offset, Source::Hw, &WORD32, doc)
}

/// FC_INTERVAL's reset value, cycles: 50 us at 100 MHz, the DCQCN paper's
/// CNP interval (COMPANION.md G9); `ldcp_sim::fast_cnp::DEFAULT_INTERVAL_CYCLES`
/// is this.
pub const FC_INTERVAL_RESET: u32 = 5_000;

/// Flow-id bits of the NIC core's iCE40 build (256 flows); a build's own
/// is in CAPS.FLOW_BITS (the ECP5 build carries 4,096 flows).
pub const FLOW_BITS: u32 = 8;
/// The width of every flow field of the map: the most flows a build may
/// carry is 2^FLOW_FIELD_BITS. A build with fewer (CAPS.FLOW_BITS) takes a
/// written flow modulo its flows (the bits above CAPS.FLOW_BITS are
/// ignored; the driver refuses such a flow before it is written); the flows
/// it reports (read-only fields) have those bits 0, and FLOW_ID reads back
/// as written.
pub const FLOW_FIELD_BITS: u32 = 12;
/// log2 of the event FIFO's depth (256 events).
pub const FIFO_DEPTH_LOG2: u32 = 8;
/// The window engine's latency, cycles (see `ldcp_sim::window_engine`).
pub const ENGINE_LATENCY: u32 = 38;

/// FLOW_CMD.OP codes.
pub const FLOW_OPS: &[(u32, &str)] = &[(0, "NOP"), (1, "READ"), (2, "WRITE"), (3, "RESET")];

/// FS_EV.KIND codes.
pub const FS_KINDS: &[(u32, &str)] = &[(0, "TX"), (1, "ACK"), (2, "NAK"), (3, "RESET")];
/// AG_EV.KIND codes.
pub const AG_KINDS: &[(u32, &str)] = &[(0, "DATA"), (1, "OPEN")];

/// UQ12.20, the format of every cw.
const CW: Format = Format::Fixed { int: 12, frac: 20 };
/// UQ1.8, alpha and beta.
const AB: Format = Format::Fixed { int: 1, frac: 8 };

/// Every register of the map, in address order.
pub const REGISTERS: &[Register] = &[
    // ---- id
    ro(
        "id",
        "MAGIC",
        0x000,
        Source::Const,
        &[Field {
            format: Format::Hex,
            ..uint("VALUE", 0, 32, MAGIC, "\"LDCP\" in ASCII")
        }],
        "identifies an LDCP NIC core",
    ),
    ro(
        "id",
        "VERSION",
        0x004,
        Source::Const,
        &[
            uint("MINOR", 0, 16, MAP_VERSION & 0xffff, "compatible additions"),
            uint("MAJOR", 16, 16, MAP_VERSION >> 16, "incompatible changes"),
        ],
        "the register-map version",
    ),
    ro(
        "id",
        "GIT_HASH",
        0x008,
        Source::Hw,
        &[Field {
            format: Format::Hex,
            ..uint("HASH", 0, 32, 0, "first 8 hex digits of the commit")
        }],
        "the git commit the design was generated from",
    ),
    ro(
        "id",
        "CAPS",
        0x00C,
        Source::Hw,
        &[
            uint("FLOW_BITS", 0, 8, FLOW_BITS, "flows = 2^FLOW_BITS"),
            uint(
                "FIFO_LOG2",
                8,
                8,
                FIFO_DEPTH_LOG2,
                "event FIFO depth = 2^FIFO_LOG2",
            ),
            uint(
                "LATENCY",
                16,
                8,
                ENGINE_LATENCY,
                "window engine latency, cycles",
            ),
            flag("DIRTY", 24, "generated from a tree with uncommitted changes"),
            flag("EXT", 25, "the extension blocks (registers from 0x100: pacing timer, fast-start marker, ACK generator, WRED/ECN port) are present; 0: they read as 0 and ignore writes"),
            Field {
                format: Format::Enum(KINDS),
                max: KIND_SWITCH_PORT,
                ..uint("KIND", 26, 2, KIND_NIC, "what the device is: a NIC (the window engine; with EXT the extension blocks), or a switch port (the id registers, CORE_RESET and the WRED/ECN registers only; FLOW_BITS, FIFO_LOG2, LATENCY and EXT read 0)")
            },
        ],
        "what this build holds",
    ),
    // ---- control
    reg(
        "ctrl",
        "CORE_RESET",
        0x010,
        Access::Wo,
        &[flag(
            "GO",
            0,
            "1: reset the core: pipelines, FIFO, generator, counters, every flow's cw to INIT_CW, every parameter to its reset value",
        )],
        "resets the whole core (STATUS.RESETTING while the flow sweep runs: 256 cycles; 512 with the extension blocks, whose pacing timer sweeps first); in a switch port: the WRED/ECN port and its registers, at once",
    ),
    ro(
        "ctrl",
        "STATUS",
        0x014,
        Source::Hw,
        &[
            flag("RESETTING", 0, "the reset sweep is running; events wait"),
            flag("FLOW_BUSY", 1, "a FLOW_CMD is in progress"),
            flag("GEN_BUSY", 2, "the on-chip generator is running"),
            uint("FIFO_LEVEL", 16, 9, 0, "events waiting in the FIFO, 0..=256"),
        ],
        "what the core is doing",
    ),
    reg(
        "ctrl",
        "ERRORS",
        0x018,
        Access::W1c,
        &[
            flag("FIFO_OVERFLOW", 0, "an event was dropped: an EV_PUSH or loopback ACK found the FIFO full, or an EV_PUSH met a loopback push (counted in CNT_DROPPED)"),
            flag("FLOW_CMD_BUSY", 1, "a FLOW_CMD arrived while one was in progress: it was ignored"),
        ],
        "sticky error flags; write 1 to clear",
    ),
    ro(
        "id",
        "BLOCKS",
        0x01C,
        Source::Hw,
        &[
            flag("WINDOW_ENGINE", BLOCK_WINDOW_ENGINE, "the window engine (PAWA, the gamma floor) with its FIFO, flow window and counters: every NIC"),
            flag("PACING_TIMER", BLOCK_PACING_TIMER, "the pacing timer (PT_* registers)"),
            flag("FAST_START", BLOCK_FAST_START, "the fast-start marker (FS_* registers)"),
            flag("ACK_GEN", BLOCK_ACK_GEN, "the ACK generator (AG_* registers)"),
            flag("WRED_ECN", BLOCK_WRED_ECN, "the WRED/ECN port (WRED_* registers)"),
            flag("LOOP", BLOCK_LOOP, "the on-chip loopback: a window-limited sender, and the receiver's ACKs returned to the engine, the marker and the sender (LOOP_* registers)"),
            flag("GENERATOR", BLOCK_GENERATOR, "the on-chip event generator (GEN_* registers; GEN_CYCLES stays 0 without it): every NIC but the Alchitry Cu NIC (map 2.1; a 2.0 device holds it with the window engine)"),
        ],
        "the blocks this build holds, one bit each: a block's registers read as 0 and ignore writes where its bit is 0",
    ),
    // ---- params
    param(
        "alpha",
        reg(
            "params",
            "ALPHA",
            0x020,
            Access::Rw,
            &[Field {
                format: AB,
                min: 1,
                max: 256,
                ..uint("RAW", 0, 9, 256, "PAWA increase factor alpha in (0, 1]; 0 acts as 1/256, above 256 as 1")
            }],
            "alpha (draft Eq. 1)",
        ),
    ),
    param(
        "beta",
        reg(
            "params",
            "BETA",
            0x024,
            Access::Rw,
            &[Field {
                format: AB,
                min: 1,
                max: 256,
                ..uint("RAW", 0, 9, 128, "PAWA decrease factor beta in (0, 1]; 0 acts as 1/256, above 256 as 1")
            }],
            "beta (draft Eq. 1)",
        ),
    ),
    param(
        "gamma_shift",
        reg(
            "params",
            "GAMMA",
            0x028,
            Access::Rw,
            &[Field {
                min: 1,
                max: 8,
                ..uint("SHIFT", 0, 4, 3, "gamma = 2^-SHIFT, the window floor; 0 acts as 1, above 8 as 8")
            }],
            "gamma, the floor of cw below one packet",
        ),
    ),
    param(
        "cw_max",
        reg(
            "params",
            "CW_MAX",
            0x02C,
            Access::Rw,
            &[Field {
                format: CW,
                min: 1 << 20,
                ..uint("CW", 0, 32, 1024 << 20, "cw cap in packets; below 1.0 acts as 1.0")
            }],
            "the largest cw",
        ),
    ),
    param(
        "rtt_ticks",
        reg(
            "params",
            "RTT",
            0x030,
            Access::Rw,
            &[Field {
                min: 1,
                ..uint("TICKS", 0, 16, 1000, "RTT in pacing-timer ticks; 0 acts as 1")
            }],
            "the RTT the pacing interval RTT/cw is computed from",
        ),
    ),
    param(
        "init_cw",
        reg(
            "params",
            "INIT_CW",
            0x034,
            Access::Rw,
            &[Field {
                format: CW,
                min: 1 << 12,
                ..uint("CW", 0, 32, 1 << 20, "cw a flow reset sets; the engine clamps it to [gamma, CW_MAX]")
            }],
            "the initial window of a flow",
        ),
    ),
    // ---- flow window
    reg(
        "flow",
        "FLOW_ID",
        0x040,
        Access::Rw,
        &[uint("ID", 0, FLOW_FIELD_BITS, 0, "the flow FLOW_CMD acts on")],
        "selects a flow for the indirect window",
    ),
    reg(
        "flow",
        "FLOW_CMD",
        0x044,
        Access::Wo,
        &[Field {
            format: Format::Enum(FLOW_OPS),
            max: 3,
            ..uint("OP", 0, 2, 0, "READ cw; WRITE cw := FLOW_WDATA; RESET cw := INIT_CW; each ends with FLOW_CW = the flow's cw")
        }],
        "runs a command on flow FLOW_ID (FLOW_STATUS.DONE when its result is in FLOW_CW)",
    ),
    reg(
        "flow",
        "FLOW_WDATA",
        0x048,
        Access::Rw,
        &[Field {
            format: CW,
            ..uint("CW", 0, 32, 0, "cw for FLOW_CMD WRITE; the engine clamps it to [gamma, CW_MAX]")
        }],
        "data of a flow write",
    ),
    ro(
        "flow",
        "FLOW_CW",
        0x04C,
        Source::Hw,
        &[Field {
            format: CW,
            ..uint("CW", 0, 32, 0, "cw after the last FLOW_CMD")
        }],
        "result of the last FLOW_CMD",
    ),
    ro(
        "flow",
        "FLOW_INTERVAL",
        0x050,
        Source::Hw,
        &[uint("TICKS", 0, 24, 0, "pacing interval RTT/cw if cw < 1, else 0")],
        "pacing interval after the last FLOW_CMD",
    ),
    ro(
        "flow",
        "FLOW_STATUS",
        0x054,
        Source::Hw,
        &[
            flag("DONE", 0, "FLOW_CW and FLOW_INTERVAL hold the result of the last command"),
            flag("BUSY", 1, "a command is in progress"),
            uint("FLOW", 8, FLOW_FIELD_BITS, 0, "the flow of the result"),
        ],
        "state of the indirect window",
    ),
    // ---- events
    reg(
        "events",
        "EV_PUSH",
        0x060,
        Access::Wo,
        &[
            uint("FLOW", 0, FLOW_FIELD_BITS, 0, "the flow acknowledged"),
            uint("N", 12, 4, 0, "packets acknowledged, 0..=15 (0: a read, no change)"),
            flag("ECE", 16, "ECN-Echo"),
        ],
        "pushes one ACK event into the FIFO (full: dropped, ERRORS.FIFO_OVERFLOW and CNT_DROPPED)",
    ),
    // ---- generator
    reg(
        "generator",
        "GEN_COUNT",
        0x070,
        Access::Rw,
        &[uint("EVENTS", 0, 32, 0, "events GEN_CTRL.START produces")],
        "length of a generator run",
    ),
    reg(
        "generator",
        "GEN_SEED",
        0x074,
        Access::Rw,
        &[Field {
            format: Format::Hex,
            ..uint("SEED", 0, 32, 1, "xorshift32 state at START; 0 acts as 2463534242")
        }],
        "seed of the generator's event stream",
    ),
    reg(
        "generator",
        "GEN_CTRL",
        0x078,
        Access::Wo,
        &[
            flag("START", 0, "start a run of GEN_COUNT events, one per clock (ignored while one runs)"),
            flag("STOP", 1, "end the run now"),
        ],
        "starts and stops the on-chip event generator",
    ),
    ro(
        "generator",
        "GEN_REMAINING",
        0x07C,
        Source::Hw,
        &[uint("EVENTS", 0, 32, 0, "events still to produce")],
        "progress of the run",
    ),
    // ---- counters
    Register {
        read_strobe: true,
        ..ro(
            "counters",
            "CYCLES_LO",
            0x080,
            Source::Hw,
            &[uint("COUNT", 0, 32, 0, "bits 31..0")],
            "free-running cycle counter, low word; reading it latches CYCLES_HI",
        )
    },
    ro(
        "counters",
        "CYCLES_HI",
        0x084,
        Source::Hw,
        &[uint("COUNT", 0, 16, 0, "bits 47..32, as of the last CYCLES_LO read")],
        "free-running cycle counter, high word",
    ),
    counter("CNT_EVENTS", 0x088, "ACK events that entered the window engine (FIFO and generator)"),
    counter("CNT_PUSHED", 0x08C, "events the FIFO accepted: EV_PUSH writes, and the receiver's ACKs in loopback"),
    counter("CNT_DROPPED", 0x090, "events dropped: FIFO full, or an EV_PUSH command in a cycle the loopback pushed"),
    counter("CNT_UPDATES", 0x094, "updates the window engine wrote (merged events share one)"),
    counter("CNT_MARKED", 0x098, "ACK events with ECE that entered the engine"),
    counter("GEN_CYCLES", 0x09C, "cycles the generator has been running (events/cycle = CNT_EVENTS / GEN_CYCLES in a generator run)"),
    counter("CNT_PACKETS", 0x0A0, "packets (n) the window engine's updates applied, marked or not"),
    reg(
        "counters",
        "CNT_CLEAR",
        0x0A4,
        Access::Wo,
        &[flag("GO", 0, "1: zero every CNT_* counter and GEN_CYCLES (not CYCLES)")],
        "clears the event counters",
    ),
    // ---- extension blocks (decoded by the extension decoder; CAPS.EXT)
    ro(
        "ext",
        "XSTATUS",
        0x100,
        Source::Hw,
        &[
            flag("FS_PENDING", 0, "an FS_EV or flow reset waits for the fast-start marker (its reset sweep)"),
            flag("AG_PENDING", 1, "an AG_EV or flow reset waits for the ACK generator (a split ACK, a timeout flush or its reset sweep)"),
        ],
        "events waiting at the extension blocks' ports (one slot each)",
    ),
    reg(
        "ext",
        "XERRORS",
        0x104,
        Access::W1c,
        &[
            flag("FS_OVERRUN", 0, "an FS_EV or flow reset arrived while the marker's slot was full: it was dropped"),
            flag("AG_OVERRUN", 1, "an AG_EV or flow reset arrived while the ACK generator's slot was full: it was dropped"),
            flag("WRED_OVERRUN", 2, "a WRED_PKT write arrived in the cycle a loop packet reached the port: the write was dropped"),
        ],
        "sticky error flags of the extension blocks; write 1 to clear",
    ),
    // ---- pacing timer: fed by the window engine's updates
    ro(
        "pacing",
        "PT_GRANTS",
        0x110,
        Source::Hw,
        &COUNT32,
        "send credits the pacing timer granted to flows with cw < 1 (cleared by CNT_CLEAR)",
    ),
    ro(
        "pacing",
        "PT_LAST",
        0x114,
        Source::Hw,
        &[
            uint("FLOW", 0, FLOW_FIELD_BITS, 0, "the flow of the last grant"),
            uint("LATE", 16, 16, 0, "its lateness, cycles (T - due at the visit)"),
        ],
        "the last send credit",
    ),
    ro(
        "pacing",
        "PT_MAX_LATE",
        0x118,
        Source::Hw,
        &[uint("LATE", 0, 16, 0, "the largest grant lateness, cycles, since CORE_RESET or CNT_CLEAR")],
        "worst pacing lateness seen",
    ),
    // ---- fast-start marker
    param(
        "fs_iw",
        reg(
            "fast_start",
            "FS_IW",
            0x120,
            Access::Rw,
            &[Field {
                min: 1,
                ..uint("PKTS", 0, 12, 64, "IW, packets: the fast-start burst; 0 acts as 1")
            }],
            "the initial window of fast start",
        ),
    ),
    reg(
        "fast_start",
        "FS_PSN",
        0x124,
        Access::Rw,
        &[uint("PSN", 0, 24, 0, "TX: the packet's PSN; ACK/NAK: the receiver's expected PSN")],
        "PSN of the next FS_EV",
    ),
    reg(
        "fast_start",
        "FS_HDR",
        0x128,
        Access::Rw,
        &[
            Field {
                format: Format::Hex,
                ..uint("WORD0", 0, 16, 0x4500, "IPv4 header word 0 (version, IHL, DSCP, ECN); not IPv4: error 3")
            },
            Field {
                format: Format::Hex,
                ..uint("CSUM", 16, 16, 0, "IPv4 header checksum")
            },
        ],
        "header of the next FS_EV TX",
    ),
    reg(
        "fast_start",
        "FS_EV",
        0x12C,
        Access::Wo,
        &[
            Field {
                format: Format::Enum(FS_KINDS),
                max: 3,
                ..uint("KIND", 0, 2, 0, "the event, with FS_PSN and (TX) FS_HDR")
            },
            flag("LAST", 2, "TX: the packet ends its message"),
            uint("FLOW", 8, FLOW_FIELD_BITS, 0, "the flow"),
        ],
        "presents one event to the fast-start marker (slot full: dropped, XERRORS.FS_OVERRUN)",
    ),
    ro(
        "fast_start",
        "FS_RESULT",
        0x130,
        Source::Hw,
        &[
            uint("KIND", 0, 2, 0, "the event's kind"),
            uint("ERR", 2, 2, 0, "0 none, 1 flow id, 2 PSN out of window or ACK for an idle flow, 3 not IPv4"),
            uint("ECN", 4, 2, 0, "TX: the codepoint written (0 Not-ECT, 2 ECT(0))"),
            uint("STAGE", 6, 2, 0, "the flow after the event: 0 idle, 1 fast start, 2 stable"),
            flag("SET", 8, "ACK/NAK: the window engine's cw of the flow should become FS_RESULT_CW"),
            flag("GBN", 9, "go back to FS_RESULT_PSN (a loss during fast start)"),
            uint("FLOW", 16, FLOW_FIELD_BITS, 0, "the event's flow"),
        ],
        "result of the last fast-start event",
    ),
    ro(
        "fast_start",
        "FS_RESULT_HDR",
        0x134,
        Source::Hw,
        &[
            Field {
                format: Format::Hex,
                ..uint("WORD0", 0, 16, 0, "TX: header word 0 with the ECN written")
            },
            Field {
                format: Format::Hex,
                ..uint("CSUM", 16, 16, 0, "TX: the checksum updated (RFC 1624)")
            },
        ],
        "rewritten header of the last fast-start event",
    ),
    ro(
        "fast_start",
        "FS_RESULT_PSN",
        0x138,
        Source::Hw,
        &[uint("PSN", 0, 24, 0, "the event's PSN (0 for a flow reset)")],
        "PSN of the last fast-start result",
    ),
    ro(
        "fast_start",
        "FS_RESULT_CW",
        0x13C,
        Source::Hw,
        &[uint("PKTS", 0, 12, 0, "the window for the engine's set, packets")],
        "window of the last fast-start result",
    ),
    ro("fast_start", "FS_EVENTS", 0x140, Source::Hw, &COUNT32, "fast-start results (cleared by CNT_CLEAR)"),
    ro("fast_start", "FS_ERRORS", 0x144, Source::Hw, &COUNT32, "fast-start results with an error (cleared by CNT_CLEAR)"),
    // ---- ACK generator
    param(
        "ag_m",
        reg(
            "ack_gen",
            "AG_M",
            0x150,
            Access::Rw,
            &[Field {
                min: 1,
                max: 15,
                ..uint("PKTS", 0, 4, 1, "delayed-ACK count m (1: an ACK per packet); 0 acts as 1")
            }],
            "packets per delayed ACK",
        ),
    ),
    param(
        "ag_timeout",
        reg(
            "ack_gen",
            "AG_TIMEOUT",
            0x154,
            Access::Rw,
            &[Field {
                min: 1,
                ..uint("CYCLES", 0, 16, 1000, "a held ACK leaves after this many cycles; 0 flushes at the next visit")
            }],
            "timeout of a held ACK",
        ),
    ),
    reg(
        "ack_gen",
        "AG_PSN",
        0x158,
        Access::Rw,
        &[uint("PSN", 0, 24, 0, "DATA: the packet's PSN; OPEN: the PSN expected next")],
        "PSN of the next AG_EV",
    ),
    reg(
        "ack_gen",
        "AG_EV",
        0x15C,
        Access::Wo,
        &[
            Field {
                format: Format::Enum(AG_KINDS),
                max: 1,
                ..uint("KIND", 0, 1, 0, "a data packet, or open the flow")
            },
            flag("CE", 1, "DATA: the packet arrived with CE"),
            flag("LAST", 2, "DATA: the packet ends its message"),
            uint("FLOW", 8, FLOW_FIELD_BITS, 0, "the flow"),
        ],
        "presents one packet to the ACK generator (slot full: dropped, XERRORS.AG_OVERRUN)",
    ),
    ro(
        "ack_gen",
        "AG_ACK",
        0x160,
        Source::Hw,
        &[
            uint("PSN", 0, 24, 0, "cumulative: the next expected PSN"),
            uint("N", 24, 4, 0, "packets covered"),
            flag("ECE", 28, "ECN-Echo"),
            flag("NAK", 29, "a NAK: go back to PSN"),
        ],
        "the last ACK the generator sent",
    ),
    ro(
        "ack_gen",
        "AG_ACK_FLOW",
        0x164,
        Source::Hw,
        &[uint("FLOW", 0, FLOW_FIELD_BITS, 0, "the flow of the last ACK")],
        "flow of the last ACK",
    ),
    ro("ack_gen", "AG_ACKS", 0x168, Source::Hw, &COUNT32, "ACKs and NAKs sent (cleared by CNT_CLEAR)"),
    ro("ack_gen", "AG_NAKS", 0x16C, Source::Hw, &COUNT32, "NAKs sent (cleared by CNT_CLEAR)"),
    ro("ack_gen", "AG_ERRORS", 0x170, Source::Hw, &COUNT32, "packets refused: bad flow, duplicate or out of window, repeated gap (cleared by CNT_CLEAR)"),
    ro(
        "ack_gen",
        "AG_ERR",
        0x174,
        Source::Hw,
        &[uint("CODE", 0, 2, 0, "1 flow id, 2 duplicate or out-of-window PSN, 3 a gap already NAKed")],
        "error code of the last refused packet",
    ),
    // ---- WRED/ECN switch port
    param(
        "wred_k_min",
        reg(
            "wred",
            "WRED_K_MIN",
            0x180,
            Access::Rw,
            &[uint("BYTES", 0, 24, 20_000, "start of the marking ramp; above K_MAX the ramp is empty (a step at K_MAX)")],
            "K_min (draft §2.1)",
        ),
    ),
    param(
        "wred_k_max",
        reg(
            "wred",
            "WRED_K_MAX",
            0x184,
            Access::Rw,
            &[uint("BYTES", 0, 24, 200_000, "end of the ramp: p = 1 from here")],
            "K_max (draft §2.1)",
        ),
    ),
    param(
        "wred_k",
        reg(
            "wred",
            "WRED_K",
            0x188,
            Access::Rw,
            &[uint("BYTES", 0, 24, 100_000, "Not-ECT packets are dropped when q >= K (Eq. 3)")],
            "K of Eq. 3",
        ),
    ),
    param(
        "wred_buf_max",
        reg(
            "wred",
            "WRED_BUF_MAX",
            0x18C,
            Access::Rw,
            &[uint("BYTES", 0, 24, 1 << 20, "buffer size: a packet that does not fit is dropped")],
            "the queue's buffer",
        ),
    ),
    param(
        "wred_p_max",
        reg(
            "wred",
            "WRED_P_MAX",
            0x190,
            Access::Rw,
            &[Field {
                format: Format::Fixed { int: 1, frac: 15 },
                max: 0x8000,
                ..uint("P", 0, 16, 6554, "marking probability at K_MAX; above 1.0 acts as 1.0")
            }],
            "P_max (draft §2.1)",
        ),
    ),
    param(
        "wred_seed",
        reg(
            "wred",
            "WRED_SEED",
            0x194,
            Access::Rw,
            &[Field {
                format: Format::Hex,
                ..uint("SEED", 0, 32, 1, "xorshift32 seed: CORE_RESET loads the value held when it is written (and returns this register to 1); 0 loads 2463534242, as does power-up")
            }],
            "seed of the marking draws",
        ),
    ),
    param(
        "wred_drain",
        reg(
            "wred",
            "WRED_DRAIN",
            0x198,
            Access::Rw,
            &[uint("BYTES", 0, 14, 16, "bytes the egress link sends per cycle (the port's line rate)")],
            "egress rate",
        ),
    ),
    reg(
        "wred",
        "WRED_PKT",
        0x19C,
        Access::Wo,
        &[
            uint("LEN", 0, 14, 0, "the packet's length, bytes"),
            uint("ECN", 16, 2, 0, "its codepoint: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE"),
        ],
        "one packet arrives at the queue (a decision per packet, no back-pressure)",
    ),
    ro(
        "wred",
        "WRED_LAST",
        0x1A0,
        Source::Hw,
        &[
            uint("DECISION", 0, 2, 0, "0 forwarded, 1 forwarded marked CE, 2 dropped by Eq. 3, 3 dropped: no room"),
            uint("ECN", 2, 2, 0, "the codepoint it left with"),
        ],
        "decision on the last packet",
    ),
    ro(
        "wred",
        "WRED_OCC",
        0x1A4,
        Source::Hw,
        &[uint("BYTES", 0, 24, 0, "bytes in the queue")],
        "queue occupancy",
    ),
    ro("wred", "WRED_FORWARDED", 0x1A8, Source::Hw, &SAT32, "packets forwarded, marked or not (saturating; cleared by CORE_RESET)"),
    ro("wred", "WRED_MARKED", 0x1AC, Source::Hw, &SAT32, "packets marked CE (saturating; cleared by CORE_RESET)"),
    ro("wred", "WRED_DROPPED_WRED", 0x1B0, Source::Hw, &SAT32, "Not-ECT packets dropped by Eq. 3 (saturating; cleared by CORE_RESET)"),
    ro("wred", "WRED_DROPPED_FULL", 0x1B4, Source::Hw, &SAT32, "packets dropped: no room in the buffer (saturating; cleared by CORE_RESET)"),
    // ---- the on-chip loopback (nic_system): sender -> marker -> port -> receiver -> back
    reg(
        "loop",
        "LOOP_CTRL",
        0x1C0,
        Access::Rw,
        &[
            flag("LOOPBACK", 0, "the receiver's ACKs and NAKs return to this NIC: into the engine (through the FIFO), the marker and the sender"),
            flag("SEND", 1, "the sender runs (with LOOPBACK): one flow visited per free cycle, round robin; to stop cleanly clear SEND, then LOOPBACK once LOOP_STATUS.IN_PIPE is 0 and the last ACKs are in"),
            Field {
                min: 1,
                max: 1 << FLOW_FIELD_BITS,
                ..uint("FLOWS", 8, FLOW_FIELD_BITS + 1, 16, "the sender's flows, 0..FLOWS-1; 0 acts as 1, above the build's flows (2^CAPS.FLOW_BITS) as all of them")
            },
        ],
        "the loopback's mode",
    ),
    param(
        "loop_rto",
        reg(
            "loop",
            "LOOP_RTO",
            0x1C4,
            Access::Rw,
            &[uint("CYCLES", 0, 16, 4000, "a flow with packets in flight and no progress for this many cycles goes back to its last acknowledged PSN; 0: never")],
            "the sender's retransmission timeout",
        ),
    ),
    param(
        "loop_len",
        reg(
            "loop",
            "LOOP_LEN",
            0x1C8,
            Access::Rw,
            &[uint("BYTES", 0, 14, 1000, "the length the port's queue counts for each loop packet")],
            "length of a loop packet",
        ),
    ),
    ro(
        "loop",
        "LOOP_STATUS",
        0x1CC,
        Source::Hw,
        &[uint("IN_PIPE", 0, 6, 0, "packets sent and not yet taken by the receiver or dropped by the port (at most 32)")],
        "the loop's packets in flight on chip",
    ),
    ro("loop", "LOOP_SENT", 0x1D0, Source::Hw, &COUNT32, "packets the sender sent, retransmissions included (cleared by CNT_CLEAR)"),
    ro("loop", "LOOP_DELIVERED", 0x1D4, Source::Hw, &COUNT32, "loop packets the receiver took (cleared by CNT_CLEAR)"),
    ro("loop", "LOOP_REWINDS", 0x1D8, Source::Hw, &COUNT32, "go-back-N rewinds of a flow: a NAK or a timeout (cleared by CNT_CLEAR)"),
    ro("loop", "LOOP_TIMEOUTS", 0x1DC, Source::Hw, &COUNT32, "of them, by the retransmission timeout (cleared by CNT_CLEAR)"),
    ro("loop", "LOOP_LOST", 0x1E0, Source::Hw, &COUNT32, "returned ACKs that reached the engine and the sender but not the fast-start marker: its queue (4 entries, the Alchitry Cu build's, whose marker takes an event per 7 cycles) was full; the pipelined build loses none, and a build before this register reads 0 (cleared by CNT_CLEAR)"),

    // ---- the switch port's own blocks (draft 001), from SWITCH_BASE: only
    // a switch port decodes them
    ro(
        "switch",
        "SW_BLOCKS",
        0x200,
        Source::Hw,
        &[
            flag("TUNNEL_INGRESS", BLOCK_TUNNEL_INGRESS - SW_BLOCKS_SHIFT, "the tunnel ECN ingress (TI_* registers)"),
            flag("TUNNEL_EGRESS", BLOCK_TUNNEL_EGRESS - SW_BLOCKS_SHIFT, "the tunnel ECN egress (TE_* registers)"),
            flag("END_CON", BLOCK_END_CON - SW_BLOCKS_SHIFT, "the END.CON match (EC_* registers)"),
            flag("FAST_CNP", BLOCK_FAST_CNP - SW_BLOCKS_SHIFT, "the Fast CNP trigger behind the WRED/ECN port, and its descriptor queue (FC_* registers)"),
            flag("PKT", BLOCK_PKT - SW_BLOCKS_SHIFT, "the packet staging registers (PKT_*) the blocks' packets take their header fields from"),
            flag("COORD", BLOCK_COORD - SW_BLOCKS_SHIFT, "draft 002's per-packet decision (CD_* registers)"),
        ],
        "the draft-001 blocks this switch port holds, one bit each (0 in a build without them)",
    ),
    // the header fields of the next packet, held until written again (or CORE_RESET)
    wo_word("PKT_OUTER_SRC0", 0x210, "outer IPv6 source (the ingress PE's END.CON SID: a Fast CNP's destination), bits 127..96"),
    wo_word("PKT_OUTER_SRC1", 0x214, "outer IPv6 source, bits 95..64"),
    wo_word("PKT_OUTER_SRC2", 0x218, "outer IPv6 source, bits 63..32"),
    wo_word("PKT_OUTER_SRC3", 0x21C, "outer IPv6 source, bits 31..0"),
    wo_word("PKT_OUTER_DST0", 0x220, "outer IPv6 destination (END.CON compares it with its SID), bits 127..96"),
    wo_word("PKT_OUTER_DST1", 0x224, "outer IPv6 destination, bits 95..64"),
    wo_word("PKT_OUTER_DST2", 0x228, "outer IPv6 destination, bits 63..32"),
    wo_word("PKT_OUTER_DST3", 0x22C, "outer IPv6 destination, bits 31..0"),
    wo_word("PKT_INNER_SRC0", 0x230, "inner source address (IPv4: in word 3, words 0-2 zero), bits 127..96"),
    wo_word("PKT_INNER_SRC1", 0x234, "inner source address, bits 95..64"),
    wo_word("PKT_INNER_SRC2", 0x238, "inner source address, bits 63..32"),
    wo_word("PKT_INNER_SRC3", 0x23C, "inner source address, bits 31..0"),
    wo_word("PKT_INNER_DST0", 0x240, "inner destination address (IPv4: in word 3, words 0-2 zero), bits 127..96"),
    wo_word("PKT_INNER_DST1", 0x244, "inner destination address, bits 95..64"),
    wo_word("PKT_INNER_DST2", 0x248, "inner destination address, bits 63..32"),
    wo_word("PKT_INNER_DST3", 0x24C, "inner destination address, bits 31..0"),
    reg(
        "pkt",
        "PKT_BTH",
        0x250,
        Access::Wo,
        &[
            uint("DEST_QP", 0, 24, 0, "the BTH's DestQP"),
            flag("PARSED", 24, "the parser found the inner RoCEv2 data packet (else Fast CNP counts it unparsed)"),
            flag("IPV6", 25, "the inner header is IPv6 (ECN in word 0 bits 5..4, no checksum); 0: IPv4"),
        ],
        "the next packet's inner transport fields",
    ),
    reg(
        "pkt",
        "PKT_UDP",
        0x254,
        Access::Wo,
        &[
            uint("PKEY", 0, 16, 0, "the BTH's P_Key"),
            uint("UDP_SRC", 16, 16, 0, "the inner UDP source port"),
        ],
        "the next packet's P_Key and UDP source port",
    ),
    reg(
        "pkt",
        "PKT_SRH",
        0x258,
        Access::Wo,
        &[
            uint("NEXT_HEADER", 0, 8, 0, "the outer Next Header (43: an SRH follows)"),
            uint("SRH_NEXT_HEADER", 8, 8, 0, "the SRH's Next Header"),
            uint("SEGMENTS_LEFT", 16, 8, 0, "the SRH's Segments Left"),
            uint("EXT_LEN", 24, 8, 0, "the SRH's Hdr Ext Len"),
        ],
        "the next packet's outer next-header chain",
    ),
    reg(
        "pkt",
        "PKT_INNER",
        0x25C,
        Access::Wo,
        &[
            uint("WORD0", 0, 16, 0, "the inner header's first 16-bit word (its ECN field: IPv4 bits 1..0, IPv6 bits 5..4)"),
            uint("CSUM", 16, 16, 0, "the inner IPv4 header checksum"),
        ],
        "the next packet's inner header word 0 and checksum",
    ),
    // ---- tunnel ECN at the ingress PE (RFC 6040 Figure 3)
    reg(
        "tunnel_ingress",
        "TI_MODE",
        0x260,
        Access::Wo,
        &[
            uint("TUNNEL", 0, 6, 0, "the tunnel, 0..63"),
            flag("COMPAT", 8, "1 compatibility mode (outer Not-ECT), 0 normal (outer = inner): applies to packets from the next cycle"),
        ],
        "sets a tunnel's mode (CORE_RESET returns every tunnel to normal; read one back with a TI_PKT: TI_LAST.COMPAT)",
    ),
    reg(
        "tunnel_ingress",
        "TI_PKT",
        0x264,
        Access::Wo,
        &[uint("TUNNEL", 0, 6, 0, "its tunnel, 0..63")],
        "one packet is encapsulated (inner word 0 and IPV6 from PKT_INNER and PKT_BTH)",
    ),
    ro(
        "tunnel_ingress",
        "TI_LAST",
        0x268,
        Source::Hw,
        &[
            uint("OUTER_ECN", 0, 2, 0, "the outer header's ECN field"),
            flag("COMPAT", 2, "its tunnel's mode (1 compatibility)"),
            uint("TUNNEL", 8, 6, 0, "its tunnel"),
        ],
        "the last encapsulation",
    ),
    // ---- tunnel ECN at the egress PE (RFC 6040 Figure 4)
    reg(
        "tunnel_egress",
        "TE_PKT",
        0x270,
        Access::Wo,
        &[uint("OUTER_ECN", 0, 2, 0, "the outer ECN field as it arrived")],
        "one packet is decapsulated (inner word 0, checksum and IPV6 from PKT_INNER and PKT_BTH)",
    ),
    ro(
        "tunnel_egress",
        "TE_LAST",
        0x274,
        Source::Hw,
        &[
            flag("DROP", 0, "dropped: a Not-ECT inner under a CE outer"),
            uint("FLAG", 1, 2, 0, "0 in use, 1 (!) currently unused, 2 (!!!) potentially dangerous"),
            uint("ECN", 4, 2, 0, "the inner ECN field leaving"),
        ],
        "the last decapsulation",
    ),
    ro(
        "tunnel_egress",
        "TE_WORDS",
        0x278,
        Source::Hw,
        &[
            uint("WORD0", 0, 16, 0, "inner word 0 leaving"),
            uint("CSUM", 16, 16, 0, "the inner checksum leaving (RFC 1624 for IPv4)"),
        ],
        "the last decapsulation's inner header word 0 and checksum",
    ),
    ro("tunnel_egress", "TE_FORWARDED", 0x27C, Source::Hw, &SAT32, "packets decapsulated and forwarded (saturating; cleared by CORE_RESET)"),
    ro("tunnel_egress", "TE_DROPPED", 0x280, Source::Hw, &SAT32, "packets dropped: Not-ECT inner, CE outer (saturating; cleared by CORE_RESET)"),
    ro("tunnel_egress", "TE_DANGEROUS", 0x284, Source::Hw, &SAT32, "packets of a (!!!) cell, the drops included (saturating; cleared by CORE_RESET)"),
    ro("tunnel_egress", "TE_UNUSED", 0x288, Source::Hw, &SAT32, "packets of the (!) cell (saturating; cleared by CORE_RESET)"),
    // ---- END.CON at the PE
    wo_sid("EC_SID0", 0x290, "END.CON SID, bits 127..96: applies to packets from the next cycle"),
    wo_sid("EC_SID1", 0x294, "END.CON SID, bits 95..64"),
    wo_sid("EC_SID2", 0x298, "END.CON SID, bits 63..32"),
    wo_sid("EC_SID3", 0x29C, "END.CON SID, bits 31..0"),
    reg(
        "end_con",
        "EC_PKT",
        0x2A0,
        Access::Wo,
        &[flag("GO", 0, "1: one packet is matched (outer destination and next headers from PKT_OUTER_DST and PKT_SRH)")],
        "one packet at the PE's END.CON match",
    ),
    ro(
        "end_con",
        "EC_LAST",
        0x2A4,
        Source::Hw,
        &[
            uint("ACTION", 0, 2, 0, "0 forward, 1 decapsulate, 2 punt, 3 drop"),
            uint("STRIP_BYTES", 8, 12, 0, "bytes a decapsulation strips (0 otherwise)"),
        ],
        "the last END.CON decision",
    ),
    ro("end_con", "EC_FORWARDED", 0x2A8, Source::Hw, &SAT32, "packets not for END.CON, forwarded (saturating; cleared by CORE_RESET)"),
    ro("end_con", "EC_DECAP", 0x2AC, Source::Hw, &SAT32, "packets decapsulated (saturating; cleared by CORE_RESET)"),
    ro("end_con", "EC_PUNTED", 0x2B0, Source::Hw, &SAT32, "ICMPv6 packets to END.CON punted (saturating; cleared by CORE_RESET)"),
    ro("end_con", "EC_DROPPED", 0x2B4, Source::Hw, &SAT32, "packets to END.CON dropped (saturating; cleared by CORE_RESET)"),
    // ---- Fast CNP behind the WRED/ECN port
    param(
        "fcnp_interval",
        reg(
            "fast_cnp",
            "FC_INTERVAL",
            0x2C0,
            Access::Rw,
            &[uint("CYCLES", 0, 24, FC_INTERVAL_RESET, "the per-flow minimum interval between Fast CNPs, cycles; 0: every candidate is sent")],
            "Fast CNP rate limit (COMPANION.md G9)",
        ),
    ),
    ro(
        "fast_cnp",
        "FC_STATUS",
        0x2C4,
        Source::Hw,
        &[
            flag("TABLE_READY", 0, "the last-sent table's reset sweep is over (256 cycles after CORE_RESET)"),
            uint("LEVEL", 8, 9, 0, "descriptors waiting in the queue, 0..=256, as of the cycle before (a descriptor it counts can be read at once)"),
        ],
        "the trigger's table and descriptor queue",
    ),
    ro(
        "fast_cnp",
        "FC_LAST",
        0x2C8,
        Source::Hw,
        &[
            flag("EMIT", 0, "a Fast CNP was emitted (its descriptor queued)"),
            flag("SUPPRESSED", 1, "a candidate was rate-limited"),
            flag("UNPARSED", 2, "a candidate had no parsable RoCEv2 inner packet"),
        ],
        "the trigger's decision on the last packet through the WRED/ECN port (all 0: not a candidate)",
    ),
    reg(
        "fast_cnp",
        "FC_POP",
        0x2CC,
        Access::Wo,
        &[flag("GO", 0, "1: drop the oldest descriptor (none waiting: ignored); the next one reads from the following cycle")],
        "removes the head of the descriptor queue",
    ),
    ro(
        "fast_cnp",
        "FC_DSC_QP",
        0x2D0,
        Source::Hw,
        &[
            uint("DEST_QP", 0, 24, 0, "the CNP's DestQP (the data packet's)"),
            flag("IPV6", 24, "the CNP is IPv6"),
        ],
        "the oldest queued descriptor (meaningful when FC_STATUS.LEVEL > 0): DestQP",
    ),
    ro(
        "fast_cnp",
        "FC_DSC_UDP",
        0x2D4,
        Source::Hw,
        &[
            uint("PKEY", 0, 16, 0, "P_Key"),
            uint("UDP_SRC", 16, 16, 0, "UDP source port"),
        ],
        "the oldest queued descriptor: P_Key and UDP source port",
    ),
    ro_word("FC_DSC_SRC0", 0x2E0, "the oldest queued descriptor: the CNP's source (the data packet's inner destination), bits 127..96"),
    ro_word("FC_DSC_SRC1", 0x2E4, "the CNP's source, bits 95..64"),
    ro_word("FC_DSC_SRC2", 0x2E8, "the CNP's source, bits 63..32"),
    ro_word("FC_DSC_SRC3", 0x2EC, "the CNP's source, bits 31..0"),
    ro_word("FC_DSC_DST0", 0x2F0, "the oldest queued descriptor: the CNP's destination (the data packet's inner source), bits 127..96"),
    ro_word("FC_DSC_DST1", 0x2F4, "the CNP's destination, bits 95..64"),
    ro_word("FC_DSC_DST2", 0x2F8, "the CNP's destination, bits 63..32"),
    ro_word("FC_DSC_DST3", 0x2FC, "the CNP's destination, bits 31..0"),
    ro_word("FC_DSC_END_CON0", 0x300, "the oldest queued descriptor: the END.CON SID it returns through, bits 127..96"),
    ro_word("FC_DSC_END_CON1", 0x304, "the END.CON SID, bits 95..64"),
    ro_word("FC_DSC_END_CON2", 0x308, "the END.CON SID, bits 63..32"),
    ro_word("FC_DSC_END_CON3", 0x30C, "the END.CON SID, bits 31..0"),
    ro("fast_cnp", "FC_MARKED", 0x310, Source::Hw, &SAT32, "candidates: packets the WRED/ECN port forwarded marked CE (saturating; cleared by CORE_RESET)"),
    ro("fast_cnp", "FC_SENT", 0x314, Source::Hw, &SAT32, "Fast CNPs emitted (saturating; cleared by CORE_RESET)"),
    ro("fast_cnp", "FC_SUPPRESSED", 0x318, Source::Hw, &SAT32, "candidates rate-limited (saturating; cleared by CORE_RESET)"),
    ro("fast_cnp", "FC_UNPARSED", 0x31C, Source::Hw, &SAT32, "candidates without a parsable RoCEv2 inner packet (saturating; cleared by CORE_RESET)"),
    ro("fast_cnp", "FC_LOST", 0x320, Source::Hw, &SAT32, "descriptors emitted while the queue was full, lost (saturating; cleared by CORE_RESET)"),
    // ---- draft 002's per-packet decision (COMPANION.md C9)
    reg(
        "coord",
        "CD_PKT",
        0x340,
        Access::Wo,
        &[
            flag("CONGESTED", 0, "its egress queue is at K_min or more (H2)"),
            flag("CC", 1, "its tag's CC indicator"),
            uint("LIGHT", 2, 2, 0, "light-loaded candidate paths, 0-3 (3: three or more)"),
            flag("ARV", 4, "its tag's AR indicator is valid"),
            flag("LAST_HOP", 5, "its egress faces the destination host"),
        ],
        "one packet's inputs to the decision (every write is a packet)",
    ),
    ro(
        "coord",
        "CD_LAST",
        0x344,
        Source::Hw,
        &[
            flag("REROUTE", 0, "re-route onto a light candidate"),
            flag("WRITE_INDICATOR", 1, "write this switch into the AR indicator"),
            flag("TYPE3", 2, "send a type 3 to the AR point (the packet unmarked)"),
            flag("MARK_ALLOWED", 3, "WRED/ECN may mark it"),
            flag("INCAST", 4, "an incast flow's packet (a type 1 candidate)"),
        ],
        "the last decision",
    ),
    ro("coord", "CD_REROUTES", 0x348, Source::Hw, &SAT32, "packets re-routed (saturating; cleared by CORE_RESET)"),
    ro("coord", "CD_TYPE3", 0x34C, Source::Hw, &SAT32, "type 3 notifications decided (saturating; cleared by CORE_RESET)"),
    ro("coord", "CD_MARKS", 0x350, Source::Hw, &SAT32, "congested packets left to congestion control (saturating; cleared by CORE_RESET)"),
    ro("coord", "CD_INCAST", 0x354, Source::Hw, &SAT32, "incast packets (saturating; cleared by CORE_RESET)"),
];

/// The registers of the NIC core's own decoder (below [`EXT_BASE`]).
pub fn core_registers() -> &'static [Register] {
    let n = REGISTERS.iter().take_while(|r| r.offset < EXT_BASE).count();
    &REGISTERS[..n]
}

/// The registers of the extension decoder (from [`EXT_BASE`] up to
/// [`SWITCH_BASE`]).
pub fn ext_registers() -> &'static [Register] {
    let n = REGISTERS.iter().take_while(|r| !r.is_switch_only()).count();
    &REGISTERS[core_registers().len()..n]
}

/// The registers of the extension decoder of the Alchitry Cu NIC
/// (`nic_cu`, BLOCKS = [`BLOCKS_NIC_CU`]): those of [`ext_registers`] that
/// [`decoded_by`] selects for it (no WRED/ECN port's).
pub fn cu_ext_registers() -> &'static [Register] {
    static REGS: std::sync::OnceLock<Vec<Register>> = std::sync::OnceLock::new();
    REGS.get_or_init(|| {
        ext_registers()
            .iter()
            .copied()
            .filter(|r| decoded_by(r, KIND_NIC, true, BLOCKS_NIC_CU))
            .collect()
    })
}

/// Whether a switch port (CAPS.KIND = SWITCH_PORT) decodes `r`: the id
/// registers, CORE_RESET and the WRED/ECN port's registers, at the same
/// offsets as in the NIC system, so one driver drives both; and its own
/// (from [`SWITCH_BASE`]).
pub fn in_switch_port(r: &Register) -> bool {
    r.block == "id" || r.name == "CORE_RESET" || r.block == "wred" || r.is_switch_only()
}

/// The registers of the switch port's decoder ([`in_switch_port`]), in
/// address order.
pub fn switch_registers() -> &'static [Register] {
    static REGS: std::sync::OnceLock<Vec<Register>> = std::sync::OnceLock::new();
    REGS.get_or_init(|| REGISTERS.iter().copied().filter(in_switch_port).collect())
}

/// Whether a device of CAPS.KIND `kind`, CAPS.EXT `ext` and BLOCKS
/// `blocks` decodes `r` (others read as 0 and ignore writes): a block's
/// registers need its BLOCKS bit ([`block_bit`]), the extension decoder's
/// own need CAPS.EXT, a switch port decodes [`in_switch_port`].
pub fn decoded_by(r: &Register, kind: u32, ext: bool, blocks: u32) -> bool {
    let block = block_bit(r).is_none_or(|b| blocks >> b & 1 != 0);
    match kind {
        KIND_SWITCH_PORT => in_switch_port(r) && block,
        _ => !r.is_switch_only() && (!r.is_ext() || ext) && block,
    }
}

/// Which builds decode `r`, for the documentation.
pub fn devices(r: &Register) -> &'static str {
    if r.is_switch_only() {
        return "switch port";
    }
    match (r.is_ext(), in_switch_port(r)) {
        (false, true) => "all",
        (false, false) => "NIC",
        (true, true) => "NIC system, switch port",
        (true, false) => "NIC system",
    }
}

/// The parameters: the registers a host sets by name, in address order.
pub fn params() -> impl Iterator<Item = &'static Register> {
    REGISTERS.iter().filter(|r| r.param.is_some())
}

/// A register by name (case-insensitive).
pub fn register(name: &str) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.name.eq_ignore_ascii_case(name))
}

/// A register by offset.
pub fn at(offset: u32) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.offset == offset)
}

/// Every structural problem of a map: overlaps, misalignment, fields that
/// do not fit, overlapping fields, illegal reset values, duplicate names.
pub fn check(regs: &[Register]) -> Vec<String> {
    let mut errs = Vec::new();
    for (i, r) in regs.iter().enumerate() {
        if i > 0 && regs[i - 1].offset >= r.offset {
            errs.push(format!(
                "{} at {:#x} is not in address order (after {} at {:#x})",
                r.name,
                r.offset,
                regs[i - 1].name,
                regs[i - 1].offset
            ));
        }
        if r.offset % 4 != 0 {
            errs.push(format!(
                "{} at {:#x} is not 4-byte aligned",
                r.name, r.offset
            ));
        }
        if r.offset >= WINDOW_BYTES {
            errs.push(format!(
                "{} at {:#x} is outside the {WINDOW_BYTES}-byte window",
                r.name, r.offset
            ));
        }
        for q in &regs[..i] {
            if q.offset == r.offset {
                errs.push(format!(
                    "{} and {} overlap at {:#x}",
                    q.name, r.name, r.offset
                ));
            }
            if q.name == r.name {
                errs.push(format!("two registers are named {}", r.name));
            }
        }
        if r.fields.is_empty() {
            errs.push(format!("{} has no field", r.name));
        }
        if let Some(p) = r.param {
            if r.access != Access::Rw || r.fields.len() != 1 {
                errs.push(format!(
                    "{}: parameter {p} must be an RW register of one field",
                    r.name
                ));
            }
            if regs[..i].iter().any(|q| q.param == Some(p)) {
                errs.push(format!("two registers are parameter {p}"));
            }
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                errs.push(format!(
                    "{}: parameter name {p:?} is not lower_snake_case",
                    r.name
                ));
            }
        }
        if (r.access == Access::Ro) != (r.source != Source::NotRo) {
            errs.push(format!("{}: only RO registers have a source", r.name));
        }
        if r.read_strobe && r.access != Access::Ro {
            errs.push(format!(
                "{}: only RO registers may have a read strobe",
                r.name
            ));
        }
        let mut used = 0u64;
        for (j, f) in r.fields.iter().enumerate() {
            if f.width == 0 || f.lsb + f.width > 32 {
                errs.push(format!(
                    "{}.{} (bits {}..{}) does not fit a 32-bit register",
                    r.name,
                    f.name,
                    f.lsb + f.width.max(1) - 1,
                    f.lsb
                ));
                continue;
            }
            let m = ((1u64 << f.width) - 1) << f.lsb;
            if used & m != 0 {
                errs.push(format!("{}.{} overlaps another field", r.name, f.name));
            }
            used |= m;
            if f.max as u64 > f.bits_max() as u64 || f.min > f.max {
                errs.push(format!(
                    "{}.{}: legal range [{}, {}] does not fit {} bits",
                    r.name, f.name, f.min, f.max, f.width
                ));
            }
            if f.reset > f.bits_max() {
                errs.push(format!(
                    "{}.{}: reset {} does not fit",
                    r.name, f.name, f.reset
                ));
            }
            if r.access == Access::Rw && (f.reset < f.min || f.reset > f.max) {
                errs.push(format!(
                    "{}.{}: reset {} is outside its legal range",
                    r.name, f.name, f.reset
                ));
            }
            if r.fields[..j].iter().any(|g| g.name == f.name) {
                errs.push(format!("{} has two fields named {}", r.name, f.name));
            }
        }
    }
    errs
}

/// A number as a person reads it in a message: whole numbers below 10^15
/// as integers, fractions in their shortest form, and the very large or
/// small with an exponent (1e-300, not three hundred digits).
pub fn show_number(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if v.fract() == 0.0 && a < 1e15 {
        format!("{}", v as i64)
    } else if a != 0.0 && !(1e-6..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}
