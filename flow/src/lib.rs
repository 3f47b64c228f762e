//! The LDCP hardware flow behind the `ldcp` command: Verilog generation
//! with lint, cosimulation, synthesis and benchmarks, for every block.

pub mod area;
pub mod bench;
pub mod board;
pub mod cosim;
pub mod doc_tables;
pub mod harness;
pub mod netsim;
pub mod netsim_rtl;
pub mod prove;
pub mod registry;
pub mod synth;
pub mod throughput;

pub use registry::Block;

/// An error of the flow, with a message for the user.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    /// A bad command-line value: the message names it and its legal range.
    #[error("{0}")]
    BadArg(String),
    /// A tool that is missing or failed.
    #[error("{0}")]
    Tool(String),
    /// A file that could not be read or written.
    #[error("{0}")]
    Io(String),
    /// The RTL and the golden model disagree.
    #[error("{0}")]
    Mismatch(String),
}

impl From<ldcp_sim::tools::ToolError> for FlowError {
    fn from(e: ldcp_sim::tools::ToolError) -> Self {
        FlowError::Tool(e.0)
    }
}

impl From<ldcp_netsim::report::Error> for FlowError {
    fn from(e: ldcp_netsim::report::Error) -> Self {
        use ldcp_netsim::report::Error as E;
        match e {
            E::BadArg(m) => FlowError::BadArg(m),
            E::Tool(m) => FlowError::Tool(m),
            E::Io(m) => FlowError::Io(m),
        }
    }
}

/// Looks a block up, or says which exist.
pub fn block(name: &str) -> Result<&'static Block, FlowError> {
    registry::find(name).ok_or_else(|| {
        FlowError::BadArg(format!(
            "unknown block {name:?}: known blocks are {}",
            registry::names().join(", ")
        ))
    })
}
