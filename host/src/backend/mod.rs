//! The backends: where register reads and writes go. The simulated ones
//! here are the golden models (`sim`); the Verilated RTL and the choice of
//! a backend by name (`ldcpctl --backend`) are the `ldcpctl` crate's.

pub mod pcie;
pub mod sim;
pub mod uart;
