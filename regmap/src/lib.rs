//! The register map of the LDCP NIC core, defined once.
//!
//! Every register the host can reach is one [`Register`] in [`REGISTERS`]:
//! its block, byte offset, access, reset value, fields (with fixed-point
//! format and legal range) and a one-line doc. Everything else is generated
//! from this table by [`gen`]:
//! - `hdl/src/regfile.rs`: the RustHDL register decoder of the NIC core;
//! - `host-driver/src/regs.rs`: the driver's typed accessors;
//! - `docs/regmap.md` and `docs/regmap.json`: the documentation;
//! - `docs/ldcp_regs.h`: a C header for people who write their own driver.
//!
//! `cargo run -p ldcp-regmap --bin regmap-gen -- --write` rewrites them; a
//! test fails when a committed one is out of date, when two registers
//! overlap, or when a field does not fit its register.
//!
//! # The bus
//! 32-bit registers at 4-byte aligned byte offsets in a 4 KiB window
//! ([`WINDOW_BYTES`], the size of the PCIe BAR). A write takes effect at the
//! clock edge it is presented on; a read returns its data one cycle later
//! (`bus_rvalid`). Unmapped or unaligned offsets read as 0 and ignore
//! writes; bits outside every field read as 0 and ignore writes.

pub mod gen;
pub mod model;

/// "LDCP" in ASCII: the first register of the map.
pub const MAGIC: u32 = 0x4C44_4350;
/// The register-map version: major in bits 31..16, minor in 15..0. A
/// driver refuses a device whose major differs from the one it was built
/// with, or whose minor is newer.
pub const MAP_VERSION: u32 = 0x0001_0000;
/// The byte size of the register window (the PCIe BAR).
pub const WINDOW_BYTES: u32 = 4096;
/// Address bits of the bus (byte address).
pub const ADDR_BITS: u32 = 12;

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

    /// Checks a raw value against the legal range, naming both.
    pub fn check(&self, reg: &Register, raw: u64) -> Result<u32, String> {
        if raw < self.min as u64 || raw > self.max as u64 {
            return Err(format!(
                "{}.{} = {} is out of range: it must be in [{}, {}] ({})",
                reg.name,
                self.name,
                self.show(raw),
                self.show(self.min as u64),
                self.show(self.max as u64),
                self.format.describe()
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
    }
}

const COUNT32: [Field; 1] = [uint("COUNT", 0, 32, 0, "wraps at 2^32")];

const fn counter(name: &'static str, offset: u32, doc: &'static str) -> Register {
    ro("counters", name, offset, Source::Hw, &COUNT32, doc)
}

/// Flow-id bits of the NIC core (256 flows).
pub const FLOW_BITS: u32 = 8;
/// log2 of the event FIFO's depth (256 events).
pub const FIFO_DEPTH_LOG2: u32 = 8;
/// The window engine's latency, cycles (see `ldcp_sim::window_engine`).
pub const ENGINE_LATENCY: u32 = 38;

/// FLOW_CMD.OP codes.
pub const FLOW_OPS: &[(u32, &str)] = &[(0, "NOP"), (1, "READ"), (2, "WRITE"), (3, "RESET")];

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
        "resets the whole core (STATUS.RESETTING while the 256-cycle flow sweep runs)",
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
            flag("FIFO_OVERFLOW", 0, "an EV_PUSH found the FIFO full: that event was dropped (counted in CNT_DROPPED)"),
            flag("FLOW_CMD_BUSY", 1, "a FLOW_CMD arrived while one was in progress: it was ignored"),
        ],
        "sticky error flags; write 1 to clear",
    ),
    // ---- params
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
    // ---- flow window
    reg(
        "flow",
        "FLOW_ID",
        0x040,
        Access::Rw,
        &[uint("ID", 0, FLOW_BITS, 0, "the flow FLOW_CMD acts on")],
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
            uint("FLOW", 8, FLOW_BITS, 0, "the flow of the result"),
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
            uint("FLOW", 0, FLOW_BITS, 0, "the flow acknowledged"),
            uint("N", 8, 4, 0, "packets acknowledged, 0..=15 (0: a read, no change)"),
            flag("ECE", 12, "ECN-Echo"),
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
    counter("CNT_PUSHED", 0x08C, "EV_PUSH writes the FIFO accepted"),
    counter("CNT_DROPPED", 0x090, "EV_PUSH writes dropped: FIFO full"),
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
];

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
