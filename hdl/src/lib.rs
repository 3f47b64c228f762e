//! The RustHDL blocks of the LDCP SmartNIC and switch port, and the
//! generation of their Verilog.
//!
//! Each block lives in its own file with its doc header (what it
//! implements, latency, reset, fixed point); its golden model lives in the
//! file of the same stem in `ldcp-sim`. The flow (`ldcp-flow`'s registry) lists them.

/// `Self { <the fields given>, <every field listed>: Default::default() }`:
/// a block's constructor that gives its constants, ROMs and tables and
/// starts every register, signal and sub-block at its default.
macro_rules! with_defaults {
    ($($f:ident: $v:expr,)* ; $($d:ident),* $(,)?) => {
        Self { $($f: $v,)* $($d: Default::default(),)* }
    };
}

pub mod ack_generator;
pub mod ack_generator_seq;
pub mod board;
pub mod board_shell;
pub mod coord_decision;
pub mod cu_board;
pub mod end_con;
pub mod fast_cnp;
pub mod fast_start_marker;
pub mod fast_start_marker_seq;
pub mod generate;
pub mod mul;
pub mod nic_core;
pub mod nic_cu;
pub mod nic_system;
pub mod pacing_timer;
#[rustfmt::skip]
pub mod ext_regfile;
#[rustfmt::skip]
pub mod regfile;
pub mod stepper;
pub mod switch_board;
#[rustfmt::skip]
pub mod switch_regfile;
pub mod system_board;
pub mod table_sweep;
pub mod tunnel_egress;
pub mod tunnel_ingress;
pub mod uart_bridge;
pub mod verilog;
pub mod window_engine;
pub mod window_engine_seq;
pub mod wred_ecn;
