//! `ldcp netsim report | sweep | merge | bench`.

use crate::FlowError;
use ldcp_netsim::cli::{BenchArgs, MergeArgs, ReportArgs, SweepArgs};

/// `ldcp netsim report`.
pub fn report(_a: &ReportArgs) -> Result<bool, FlowError> {
    Err(FlowError::Tool("not yet".into()))
}
/// `ldcp netsim sweep`.
pub fn sweep(_a: &SweepArgs) -> Result<bool, FlowError> {
    Err(FlowError::Tool("not yet".into()))
}
/// `ldcp netsim merge`.
pub fn merge(_a: &MergeArgs) -> Result<bool, FlowError> {
    Err(FlowError::Tool("not yet".into()))
}
/// `ldcp netsim bench`.
pub fn bench(_a: &BenchArgs) -> Result<bool, FlowError> {
    Err(FlowError::Tool("not yet".into()))
}
