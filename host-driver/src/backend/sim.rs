//! The simulated device: the NIC system's register bus driven cycle by cycle,
//! either the Verilated RTL (`sim`) or its golden model (`model`). Both go
//! through [`SimBus`], so the same accesses happen in the same cycles and
//! the two give bit-identical results.
//!
//! A write takes one bus cycle, a read [`ldcp_regmap::READ_LATENCY_CYCLES`]
//! (its data shows with `bus_rvalid` that many cycles after the strobe; the
//! driver waits for it, where a pipelined master could already issue the
//! next access).

use crate::{DriverError, RegAccess};
use ldcp_regmap::model::{BusIn, BusOut};
use ldcp_sim::cosim::{BuildSpec, Instance, VerilatedLib};
use ldcp_sim::nic_system::NicSystemModel;
use ldcp_sim::nic_system::{SysIn, SysOut};
use ldcp_sim::ports::Ports;

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

/// The Verilated NIC system.
pub struct Verilated {
    inst: Instance,
    ins: Vec<u64>,
    outs: Vec<u64>,
    idle_in: Vec<u64>,
    idle_out: Vec<u64>,
    cycles: u64,
    hash: u32,
}

const IDLE_CHUNK: usize = 4096;

impl Verilated {
    /// Generates the NIC system's Verilog (with this tree's git hash), and
    /// verilates it (cached under the work directory: the first call takes
    /// a minute or two).
    pub fn build() -> Result<Self, DriverError> {
        let build = ldcp_hdl::nic_core::BuildId::current();
        let v =
            ldcp_hdl::nic_system::verilog(build).map_err(|e| DriverError::Sim(e.to_string()))?;
        let spec = BuildSpec::new(
            &v,
            ldcp_hdl::nic_system::MODULE.name,
            SysIn::PORTS,
            SysOut::PORTS,
            false,
        )
        .map_err(|e| DriverError::Sim(e.to_string()))?;
        let lib = VerilatedLib::build(&spec).map_err(|e| DriverError::Sim(e.to_string()))?;
        let ni = lib.inputs().len();
        let no = lib.outputs().len();
        Ok(Verilated {
            inst: lib.instance(),
            ins: vec![0; ni],
            outs: vec![0; no],
            idle_in: vec![0; ni * IDLE_CHUNK],
            idle_out: vec![0; no * IDLE_CHUNK],
            cycles: 0,
            hash: build.hash,
        })
    }
}

impl BusDevice for Verilated {
    fn cycle(&mut self, bus: &BusIn) -> BusOut {
        SysIn::from(*bus).to_ports(&mut self.ins);
        self.inst.step(&self.ins, &mut self.outs);
        self.cycles += 1;
        let o = SysOut::from_ports(&self.outs);
        BusOut {
            rdata: o.bus_rdata,
            rvalid: o.bus_rvalid,
        }
    }

    fn idle(&mut self, mut n: u64) {
        while n > 0 {
            let k = n.min(IDLE_CHUNK as u64) as usize;
            let ni = self.ins.len();
            let no = self.outs.len();
            self.inst
                .run(k, &self.idle_in[..k * ni], &mut self.idle_out[..k * no]);
            n -= k as u64;
            self.cycles += k as u64;
        }
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }

    fn describe(&self) -> String {
        format!(
            "sim: Verilated nic_system (git {:08x}), {} cycles simulated",
            self.hash, self.cycles
        )
    }
}

/// The golden model of the NIC system.
pub struct Model {
    m: NicSystemModel,
}

/// The golden-model device, reporting this tree's build like the `sim` one.
pub fn model() -> Model {
    let b = ldcp_hdl::nic_core::BuildId::current();
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
    let b = ldcp_hdl::nic_core::BuildId::current();
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
    /// The Verilated NIC system (the core and the extension blocks).
    pub fn verilated() -> Result<Self, DriverError> {
        // the first build verilates and compiles (about 40 s): say so on
        // stderr when it takes more than a second (a cached one does not)
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let d = done.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(1));
            if !d.load(std::sync::atomic::Ordering::Relaxed) {
                eprintln!(
                    "ldcpctl: building the simulated device (Verilator; about 40 s the first time, cached after)..."
                );
            }
        });
        let dev = Verilated::build();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(SimBus {
            dev: Box::new(dev?),
        })
    }

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
