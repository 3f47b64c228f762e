//! The backends `ldcpctl --backend` knows, and opening one by name.

use ldcp_host::backend::{pcie, sim, uart};
use ldcp_host::{DriverError, RegAccess};

/// The backends `ldcpctl --backend` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The Verilated NIC system: the core and the extension blocks (default; no hardware needed).
    Sim,
    /// The cycle-accurate golden model of the NIC system.
    Model,
    /// A PCIe board: the BAR at /sys/bus/pci/devices/<BDF>/resource0.
    Pcie,
    /// The Alchitry Cu over its USB-UART bridge.
    Uart,
}

/// Where to find the device.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// PCIe: the BDF (DDDD:BB:DD.F).
    pub bdf: Option<String>,
    /// PCIe: a file to map instead of the sysfs resource (tests, VFIO dumps).
    pub bar_file: Option<std::path::PathBuf>,
    /// UART: the serial port.
    pub port: Option<std::path::PathBuf>,
    /// UART: the line rate.
    pub baud: Option<u32>,
}

/// Opens a backend.
pub fn open(kind: Kind, t: &Target) -> Result<Box<dyn RegAccess>, DriverError> {
    Ok(match kind {
        Kind::Sim => Box::new(crate::verilated::bus()?),
        Kind::Model => Box::new(sim::SimBus::model()),
        Kind::Pcie => Box::new(match (&t.bar_file, &t.bdf) {
            (Some(f), _) => pcie::PcieBar::open_file(f)?,
            (None, Some(b)) => pcie::PcieBar::open_bdf(b)?,
            (None, None) => {
                return Err(DriverError::BadValue(
                    "--backend pcie needs --bdf DDDD:BB:DD.F (or --bar-file PATH)".into(),
                ))
            }
        }),
        Kind::Uart => {
            let port = t
                .port
                .clone()
                .unwrap_or_else(|| std::path::PathBuf::from("/dev/ttyUSB1"));
            Box::new(uart::UartBridge::open(
                &port,
                t.baud.unwrap_or(ldcp_sim::uart_bridge::DEFAULT_BAUD),
            )?)
        }
    })
}
