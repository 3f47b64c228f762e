//! `ldcp-netsim`: a closed-loop, packet-level network simulator whose
//! congestion control and switch ports are the project's golden models
//! (`ldcp-sim`), with DCTCP and DCQCN beside LDCP on the same topologies
//! and workloads. With `--engine rtl` (in `ldcp-flow`), the window engine
//! and every WRED/ECN port are the Verilated RTL instead, through the same
//! [`engine::Hardware`] interface.
#![warn(missing_docs)]

pub mod cc;
pub mod cli;
pub mod config;
pub mod coord;
pub mod engine;
pub mod flowctl;
pub mod output;
pub mod packet;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod topo;
pub mod wan;
pub mod workload;
