//! What the report's sections, the sweep and the bench share: the error,
//! running one set of options, the figures kept of a run, plots, and the
//! output paths' checks.

use crate::cli;
use crate::config::Cc;
use crate::engine::{Hardware, Models};
use crate::output::{self, Series};
use crate::scenario::{self, Options, Outcome};
use serde_json::Value;
use std::path::Path;

/// Builds the RTL hardware (the Verilated window engine and WRED/ECN
/// block) for the report's RTL section and the bench's RTL loop; an error
/// is its message.
pub type RtlHardware<'a> = &'a dyn Fn() -> Result<Box<dyn Hardware>, String>;

/// Why a report, sweep, merge or bench stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad command-line value or input file: the message names it and
    /// its legal range.
    #[error("{0}")]
    BadArg(String),
    /// A run that could not go on, or the RTL that could not be built.
    #[error("{0}")]
    Tool(String),
    /// A file that could not be written.
    #[error("{0}")]
    Io(String),
}

pub(super) fn io(e: impl std::fmt::Display) -> Error {
    Error::Io(e.to_string())
}

/// A figure as f64 (NaN when absent).
pub(super) fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// Runs one set of options on the golden models, with a progress bar.
pub(super) fn go(o: &Options) -> Result<Outcome, Error> {
    scenario::check(o).map_err(Error::BadArg)?;
    cli::run_one(o, &mut Models).map_err(Error::Tool)
}

pub(super) fn opts(name: &str, cc: Cc, seed: u64) -> Options {
    Options::new(name, cc, seed)
}

/// The figures of a run that the report keeps (no wall time: the report is
/// the same whenever it is regenerated).
pub(super) fn keep(o: &Outcome) -> Value {
    o.json.clone()
}

/// A run's FCT slowdown, "p50 / p95 / p99".
pub(super) fn slowdowns(fct: &Value) -> String {
    format!(
        "{:.2} / {:.2} / {:.2}",
        f(&fct["slowdown_p50"]),
        f(&fct["slowdown_p95"]),
        f(&fct["slowdown_p99"])
    )
}

/// Data packets a run's switches dropped, for any reason.
pub(super) fn network_drops(packets: &Value) -> u64 {
    [
        "dropped_wred_not_ect",
        "dropped_overflow_ect",
        "dropped_overflow_not_ect",
    ]
    .iter()
    .map(|k| packets[k].as_u64().unwrap_or(0))
    .sum()
}

pub(super) fn watch0(j: &Value) -> &Value {
    &j["watched"][0]
}

pub(super) fn plot(
    dir: &Path,
    file: &str,
    title: &str,
    ylabel: &str,
    series: Vec<Series>,
    log: bool,
) -> Result<String, Error> {
    plot_x(dir, file, title, "time (us)", ylabel, series, log)
}

/// A line plot with its x label, and the Markdown that shows it.
pub(super) fn plot_x(
    dir: &Path,
    file: &str,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: Vec<Series>,
    log: bool,
) -> Result<String, Error> {
    output::line_plot(&dir.join(file), title, xlabel, ylabel, &series, log).map_err(Error::Io)?;
    Ok(format!("![{title}]({file})\n"))
}

/// An output folder given as `flag`: made if missing, and refused (a bad
/// argument, exit 2) with its path when it cannot be, or is a file.
pub fn output_dir(flag: &str, d: &std::path::Path) -> Result<(), Error> {
    if d.exists() && !d.is_dir() {
        return Err(Error::BadArg(format!(
            "{flag} {}: not a directory (give a folder; it is made if missing)",
            d.display()
        )));
    }
    std::fs::create_dir_all(d).map_err(|e| {
        Error::BadArg(format!(
            "{flag} {}: cannot make the folder: {e}",
            d.display()
        ))
    })
}

/// An output file given as `flag`, checked before the work: it can be
/// opened for writing (a new one is made and removed again, an old one is
/// left as it is until the result replaces it whole), so a bad path is
/// refused (exit 2) before anything runs.
pub fn output_file(flag: &str, p: &std::path::Path) -> Result<(), Error> {
    if p.is_dir() {
        return Err(Error::BadArg(format!(
            "{flag} {}: is a directory (give a file)",
            p.display()
        )));
    }
    let existed = p.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(p)
        .map_err(|e| Error::BadArg(format!("{flag} {}: cannot write it: {e}", p.display())))?;
    if !existed {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}
