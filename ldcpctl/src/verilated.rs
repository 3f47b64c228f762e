//! The Verilated NIC system as a [`BusDevice`]: its Verilog generated with
//! this tree's build stamp, verilated (cached), and stepped cycle by cycle
//! behind [`SimBus`] exactly as the golden model is
//! ([`ldcp_host::backend::sim`]), so the two give bit-identical results.

use ldcp_host::backend::sim::{BusDevice, SimBus};
use ldcp_host::DriverError;
use ldcp_regmap::model::{BusIn, BusOut};
use ldcp_sim::cosim::{BuildSpec, Instance, VerilatedLib};
use ldcp_sim::nic_system::{SysIn, SysOut};
use ldcp_sim::ports::Ports;

/// The Verilated NIC system (the core and the extension blocks).
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

/// The Verilated NIC system behind a [`SimBus`] (verilated on the first
/// call, cached after).
pub fn bus() -> Result<SimBus, DriverError> {
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
    Ok(SimBus::new(Box::new(dev?)))
}
