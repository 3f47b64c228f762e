//! The golden model of the generated decoder (`hdl/src/regfile.rs`),
//! driven by the same table: what a read returns, what a write holds, and
//! the strobes the core sees. `ldcp_sim::nic_core` builds on it, and
//! `ldcp_sim::nic_system` on its extension twin ([`RegFileModel::ext`]).

use crate::{Access, Register, Source, REGISTERS};

/// One cycle of the bus's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BusIn {
    /// Byte address (12 bits are decoded).
    pub addr: u32,
    /// Write data.
    pub wdata: u32,
    /// Write strobe.
    pub we: bool,
    /// Read strobe.
    pub re: bool,
}

impl BusIn {
    /// A write of `wdata` at byte address `addr`.
    pub const fn write(addr: u32, wdata: u32) -> Self {
        BusIn {
            addr,
            wdata,
            we: true,
            re: false,
        }
    }

    /// A read at byte address `addr`.
    pub const fn read(addr: u32) -> Self {
        BusIn {
            addr,
            wdata: 0,
            we: false,
            re: true,
        }
    }
}

/// The bus's registered outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BusOut {
    /// Read data (0 unless `rvalid`: [`crate::READ_LATENCY_CYCLES`] after a
    /// read's strobe).
    pub rdata: u32,
    /// A read's data is on `rdata`.
    pub rvalid: bool,
}

// the model below has one write register and two read stages, as the
// generated decoders (`crate::gen::rust_hdl_decoder` asserts the same)
const _: () = assert!(crate::WRITE_LATENCY_CYCLES == 1 && crate::READ_LATENCY_CYCLES == 2);

/// The decoder's registers.
#[derive(Clone, Debug)]
pub struct RegFileModel {
    regs: &'static [Register],
    vals: Vec<u32>,
    out: BusOut,
    /// The register whose select flip-flop is set: the one the last cycle's
    /// read strobe decoded (none for an unmapped or unaligned address).
    sel: Option<usize>,
    /// The last cycle's read strobe.
    re_q: bool,
    /// The write (the register's index and the written fields) the last
    /// cycle presented: the decoder's registered strobe and data, acted on
    /// in this cycle.
    cmd: Option<(usize, u32)>,
    /// The last cycle's write data, registered every cycle: the WO fields
    /// are slices of it (what they show without a strobe is this word).
    wdata_q: u32,
    /// Per register: whether this build decodes it (others read as 0 and
    /// ignore writes; [`RegFileModel::ext_of`]).
    decoded: Vec<bool>,
    /// Per register: its fields' bits and its reset value, computed once
    /// (the models tick this every cycle of a cosimulation).
    masks: Vec<u32>,
    resets: Vec<u32>,
    /// The W1C registers, the only ones a cycle without a write or a reset
    /// can change.
    w1c: Vec<usize>,
}

impl Default for RegFileModel {
    fn default() -> Self {
        Self::new()
    }
}

/// The index of `name` in [`REGISTERS`] (panics on a name not in the map:
/// a programming error of the caller, caught by every test). The core's
/// decoder holds a prefix of the map, so this is its index there too.
pub fn index(name: &str) -> usize {
    REGISTERS
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no register {name} in the map"))
}

/// The byte offset of register `name` (panics as [`index`]: a name in
/// code, never an input).
pub fn offset(name: &str) -> u32 {
    REGISTERS[index(name)].offset
}

/// Field `name` of register `reg` (panics as [`index`], or on a field not
/// in it: names in code).
pub fn field(reg: &str, name: &str) -> &'static crate::Field {
    REGISTERS[index(reg)]
        .field(name)
        .unwrap_or_else(|| panic!("no field {reg}.{name}"))
}

fn hit(bus_addr: u32, r: &Register) -> bool {
    let a = bus_addr & 0xfff;
    a & 3 == 0 && a >> 2 == r.offset >> 2
}

impl RegFileModel {
    /// The core's decoder ([`crate::core_registers`]) at power-up: RW
    /// fields at their reset values, flags clear.
    pub fn new() -> Self {
        Self::of(crate::core_registers())
    }

    /// The core's decoder of a NIC holding `blocks` (BLOCKS) at power-up:
    /// a register of a block it lacks (the generator's, in the Alchitry Cu
    /// NIC) reads as 0 and ignores writes, as the generated decoder's
    /// `with_blocks` makes it.
    pub fn core_of(blocks: u32) -> Self {
        let mut m = Self::new();
        m.decoded = m
            .regs
            .iter()
            .map(|r| crate::decoded_by(r, crate::KIND_NIC, false, blocks))
            .collect();
        m
    }

    /// The extension decoder ([`crate::ext_registers`]) at power-up.
    pub fn ext() -> Self {
        Self::of(crate::ext_registers())
    }

    /// The switch port's decoder ([`crate::switch_registers`]) at power-up.
    pub fn switch() -> Self {
        Self::of(crate::switch_registers())
    }

    /// The extension decoder of a NIC holding `blocks` (BLOCKS) at
    /// power-up: the registers of [`crate::ext_registers`], indexed as
    /// there, of which it decodes those [`crate::decoded_by`] selects
    /// (the generated decoder of such a build holds only these, e.g.
    /// [`crate::cu_ext_registers`]); the others read as 0 and ignore writes.
    pub fn ext_of(blocks: u32) -> Self {
        let mut m = Self::of(crate::ext_registers());
        m.decoded = m
            .regs
            .iter()
            .map(|r| crate::decoded_by(r, crate::KIND_NIC, true, blocks))
            .collect();
        m
    }

    fn of(regs: &'static [Register]) -> Self {
        RegFileModel {
            regs,
            vals: regs
                .iter()
                .map(|r| if r.access == Access::Rw { r.reset() } else { 0 })
                .collect(),
            out: BusOut::default(),
            sel: None,
            re_q: false,
            cmd: None,
            wdata_q: 0,
            decoded: vec![true; regs.len()],
            masks: regs.iter().map(Register::mask).collect(),
            resets: regs.iter().map(Register::reset).collect(),
            w1c: (0..regs.len())
                .filter(|&i| regs[i].access == Access::W1c)
                .collect(),
        }
    }

    /// The registered bus outputs.
    pub fn outputs(&self) -> BusOut {
        self.out
    }

    /// The value an RW or W1C register holds.
    pub fn held(&self, i: usize) -> u32 {
        self.vals[i]
    }

    /// WO register `i`'s written fields, if its strobe (`<register>_wr`)
    /// is high this cycle: it was written in the last one
    /// ([`crate::WRITE_LATENCY_CYCLES`]). (For an RW or W1C register: the
    /// write it takes at this cycle's edge.)
    pub fn command(&self, i: usize) -> Option<u32> {
        self.cmd.filter(|c| c.0 == i).map(|c| c.1)
    }

    /// Whether a read samples register `i` this cycle (its strobe was in
    /// the last one): the `<register>_rd` strobe of the decoder.
    pub fn samples(&self, i: usize) -> bool {
        self.sel == Some(i)
    }

    /// The last cycle's write data (the word a WO field is a slice of,
    /// strobed or not).
    pub fn wdata_q(&self) -> u32 {
        self.wdata_q
    }

    /// The registers it decodes.
    pub fn registers(&self) -> &'static [Register] {
        self.regs
    }

    /// One edge. `ro[i]` is the value the core drives into RO register `i`
    /// (ignored for others), `set[i]` the W1C flags it sets, `reset` the
    /// decoder's synchronous reset.
    pub fn tick(&mut self, bus: &BusIn, reset: bool, ro: &[u32], set: &[u32]) {
        // the second stage: the register the last cycle's strobe selected,
        // as it stands in this cycle
        self.out = BusOut {
            rdata: self.sel.map_or(0, |i| {
                let r = &self.regs[i];
                match (r.access, r.source) {
                    (Access::Rw | Access::W1c, _) => self.vals[i],
                    (Access::Ro, Source::Const) => self.resets[i],
                    (Access::Ro, _) => ro[i] & self.masks[i],
                    (Access::Wo, _) => 0,
                }
            }),
            rvalid: self.re_q,
        };
        // the write the decoder acts on in this cycle: the last cycle's
        let wr = self.cmd;
        // the write registers
        self.wdata_q = bus.wdata;
        self.cmd = if bus.we {
            self.regs
                .iter()
                .position(|r| r.access != Access::Ro && hit(bus.addr, r))
                .filter(|&i| self.decoded[i])
                .map(|i| (i, bus.wdata & self.masks[i]))
        } else {
            None
        };
        // the first stage of a read: decode this cycle's strobe
        self.re_q = bus.re;
        self.sel = if bus.re {
            self.regs
                .iter()
                .position(|r| hit(bus.addr, r))
                .filter(|&i| self.decoded[i])
        } else {
            None
        };
        if wr.is_none() && !reset {
            // no write and no reset: only the W1C flags the core sets can change
            for &i in &self.w1c {
                self.vals[i] = (self.vals[i] | set[i]) & self.masks[i];
            }
            return;
        }
        for (i, r) in self.regs.iter().enumerate() {
            let w = wr.filter(|c| c.0 == i).map(|c| c.1);
            match r.access {
                Access::Rw => {
                    if let Some(v) = w {
                        self.vals[i] = v;
                    }
                    if reset {
                        self.vals[i] = self.resets[i];
                    }
                }
                Access::W1c => {
                    let clr = w.unwrap_or(0);
                    self.vals[i] = ((self.vals[i] & !clr) | set[i]) & self.masks[i];
                    if reset {
                        self.vals[i] = 0;
                    }
                }
                _ => {}
            }
        }
    }
}
