//! The simulated device: the NIC system's register bus driven cycle by cycle
//! through [`SimBus`], over any [`BusDevice`]: here the golden models (the
//! NIC system's, [`model`], and a switch port's, [`switch_model`]); the
//! Verilated RTL is the other `BusDevice`, in the `ldcpctl` crate (this one
//! links no RustHDL). The same accesses happen in the same cycles on every
//! device, so the model and the RTL give bit-identical results.
//!
//! A write takes one bus cycle, a read [`ldcp_regmap::READ_LATENCY_CYCLES`]
//! (its data shows with `bus_rvalid` that many cycles after the strobe; the
//! driver waits for it, where a pipelined master could already issue the
//! next access).

use crate::{DriverError, RegAccess};
use ldcp_regmap::model::{BusIn, BusOut};
use ldcp_sim::nic_system::NicSystemModel;

/// A device whose bus is stepped one cycle at a time.
pub trait BusDevice {
    /// One clock cycle with `bus` on the inputs; the outputs after the edge.
    fn cycle(&mut self, bus: &BusIn) -> BusOut;
    /// `n` idle cycles.
    fn idle(&mut self, n: u64);
    /// Cycles simulated so far.
    fn cycles(&self) -> u64;
    /// What it is.
    fn describe(&self) -> String;
}

/// The golden model of the NIC system.
pub struct Model {
    m: NicSystemModel,
}

/// The golden-model device, reporting this tree's build like the `sim` one.
pub fn model() -> Model {
    let b = ldcp_sim::nic_core::BuildId::current();
    Model {
        m: NicSystemModel::new(b.hash, b.dirty),
    }
}

/// The golden model of a switch port's core at its bus (a P node's or a
/// PE's: [`ldcp_sim::switch_board::SwitchRole`]), for tests and scripts
/// that drive the draft-001 blocks without the UART in front of them.
pub struct SwitchModel {
    m: ldcp_sim::switch_board::SwitchCoreModel,
    cycles: u64,
}

/// The switch port model of `role`, reporting this tree's build.
pub fn switch_model(role: ldcp_sim::switch_board::SwitchRole) -> SwitchModel {
    let b = ldcp_sim::nic_core::BuildId::current();
    SwitchModel {
        m: ldcp_sim::switch_board::SwitchCoreModel::of_role(b.hash, b.dirty, role),
        cycles: 0,
    }
}

impl BusDevice for SwitchModel {
    fn cycle(&mut self, bus: &BusIn) -> BusOut {
        self.m.tick(bus);
        self.cycles += 1;
        ldcp_sim::board_shell::BusCore::bus_out(&self.m)
    }

    fn idle(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle(&BusIn::default());
        }
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }

    fn describe(&self) -> String {
        format!(
            "model: SwitchCoreModel ({:?}), {} cycles simulated",
            self.m.role(),
            self.cycles
        )
    }
}

impl BusDevice for Model {
    fn cycle(&mut self, bus: &BusIn) -> BusOut {
        self.m.tick(bus);
        let o = self.m.outputs();
        BusOut {
            rdata: o.bus_rdata,
            rvalid: o.bus_rvalid,
        }
    }

    fn idle(&mut self, n: u64) {
        let idle = BusIn::default();
        for _ in 0..n {
            self.m.tick(&idle);
        }
    }

    fn cycles(&self) -> u64 {
        self.m.cycles()
    }

    fn describe(&self) -> String {
        format!(
            "model: NicSystemModel, {} cycles simulated",
            self.m.cycles()
        )
    }
}

/// Register access over a stepped bus.
pub struct SimBus {
    dev: Box<dyn BusDevice>,
}

impl SimBus {
    /// The golden model.
    pub fn model() -> Self {
        SimBus {
            dev: Box::new(model()),
        }
    }

    /// Any stepped device.
    pub fn new(dev: Box<dyn BusDevice>) -> Self {
        SimBus { dev }
    }

    /// Cycles simulated so far.
    pub fn cycles(&self) -> u64 {
        self.dev.cycles()
    }
}

impl RegAccess for SimBus {
    fn read32(&mut self, offset: u32) -> Result<u32, DriverError> {
        // the data shows (with rvalid) READ_LATENCY_CYCLES after the
        // strobe: `cycle` returns the outputs after each edge
        let mut o = self.dev.cycle(&BusIn::read(offset));
        for _ in 1..ldcp_regmap::READ_LATENCY_CYCLES {
            o = self.dev.cycle(&BusIn::default());
        }
        if !o.rvalid {
            return Err(DriverError::Sim(format!(
                "read of {offset:#x}: no rvalid {} cycles after the strobe",
                ldcp_regmap::READ_LATENCY_CYCLES
            )));
        }
        Ok(o.rdata)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DriverError> {
        self.dev.cycle(&BusIn::write(offset, value));
        Ok(())
    }

    fn idle(&mut self, cycles: u64) -> Result<(), DriverError> {
        self.dev.idle(cycles);
        Ok(())
    }

    fn describe(&self) -> String {
        self.dev.describe()
    }
}
