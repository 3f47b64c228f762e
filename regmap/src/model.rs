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
    /// Read data (0 when the last cycle was not a read).
    pub rdata: u32,
    /// A read's data is on `rdata`.
    pub rvalid: bool,
}

/// The decoder's registers.
#[derive(Clone, Debug)]
pub struct RegFileModel {
    regs: &'static [Register],
    vals: Vec<u32>,
    out: BusOut,
    /// Per register: its fields' bits and its reset value, computed once
    /// (the models tick this every cycle of a cosimulation).
    masks: Vec<u32>,
    resets: Vec<u32>,
    /// The W1C registers, the only ones an idle bus cycle can change.
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

/// The index of `name` in [`crate::ext_registers`] (panics as [`index`]).
pub fn ext_index(name: &str) -> usize {
    crate::ext_registers()
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no extension register {name} in the map"))
}

/// The index of `name` in [`crate::switch_registers`] (panics as [`index`]).
pub fn switch_index(name: &str) -> usize {
    crate::switch_registers()
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no switch-port register {name} in the map"))
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

    /// The extension decoder ([`crate::ext_registers`]) at power-up.
    pub fn ext() -> Self {
        Self::of(crate::ext_registers())
    }

    /// The switch port's decoder ([`crate::switch_registers`]) at power-up.
    pub fn switch() -> Self {
        Self::of(crate::switch_registers())
    }

    fn of(regs: &'static [Register]) -> Self {
        RegFileModel {
            regs,
            vals: regs
                .iter()
                .map(|r| if r.access == Access::Rw { r.reset() } else { 0 })
                .collect(),
            out: BusOut::default(),
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

    /// A WO register's written fields this cycle, if `bus` writes it.
    pub fn wrote(&self, bus: &BusIn, i: usize) -> Option<u32> {
        (bus.we && hit(bus.addr, &self.regs[i])).then_some(bus.wdata & self.masks[i])
    }

    /// Whether `bus` reads register `i` this cycle.
    pub fn reads(&self, bus: &BusIn, i: usize) -> bool {
        bus.re && hit(bus.addr, &self.regs[i])
    }

    /// The registers it decodes.
    pub fn registers(&self) -> &'static [Register] {
        self.regs
    }

    /// One edge. `ro[i]` is the value the core drives into RO register `i`
    /// (ignored for others), `set[i]` the W1C flags it sets, `reset` the
    /// decoder's synchronous reset.
    pub fn tick(&mut self, bus: &BusIn, reset: bool, ro: &[u32], set: &[u32]) {
        self.out = BusOut {
            rdata: 0,
            rvalid: bus.re,
        };
        if !bus.re && !bus.we && !reset {
            // an idle bus: only the W1C flags the core sets can change
            for &i in &self.w1c {
                self.vals[i] = (self.vals[i] | set[i]) & self.masks[i];
            }
            return;
        }
        for (i, r) in self.regs.iter().enumerate() {
            if self.reads(bus, i) {
                self.out.rdata = match (r.access, r.source) {
                    (Access::Rw | Access::W1c, _) => self.vals[i],
                    (Access::Ro, Source::Const) => self.resets[i],
                    (Access::Ro, _) => ro[i] & self.masks[i],
                    (Access::Wo, _) => 0,
                };
            }
        }
        for (i, r) in self.regs.iter().enumerate() {
            let w = bus.we && hit(bus.addr, r);
            match r.access {
                Access::Rw => {
                    if w {
                        self.vals[i] = bus.wdata & self.masks[i];
                    }
                    if reset {
                        self.vals[i] = self.resets[i];
                    }
                }
                Access::W1c => {
                    let clr = if w { bus.wdata } else { 0 };
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
