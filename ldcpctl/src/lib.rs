//! The `ldcpctl` command's crate: the driver's command line (`main.rs`,
//! over [`ldcp_host`]) and the simulated devices it drives when no board is
//! at hand, which are the RTL itself and so link RustHDL (the driver
//! library, `ldcp_host`, does not):
//! - [`verilated`]: the Verilated NIC system stepped through its register
//!   bus (`ldcpctl --backend sim`, the default);
//! - [`sim_board`]: a board's core behind a pseudo-terminal, its UART line
//!   driven bit by bit (`ldcpctl serve-sim`), the far end of
//!   [`ldcp_host::backend::uart`];
//! - [`backend`]: a backend chosen by name (`--backend`).

pub mod backend;
pub mod sim_board;
pub mod verilated;
