//! `ldcp netsim`: the network simulator's command (`ldcp-netsim`, whose
//! `report` module writes the report, sweeps and benches), with the RTL
//! hardware for `--engine rtl` ([`crate::netsim_rtl`]).

use crate::FlowError;
use ldcp_netsim::cli::{self, Engine, NetsimArgs, NetsimCmd, RunArgs};
use ldcp_netsim::engine::Hardware;
use ldcp_netsim::report;

/// The hardware a run asks for.
pub fn hardware(e: Engine) -> Result<Box<dyn Hardware>, FlowError> {
    match e {
        Engine::Model => Ok(cli::models()),
        Engine::PerAck => Ok(Box::new(ldcp_netsim::engine::PerAckModels)),
        Engine::Rtl => {
            let mut r = crate::netsim_rtl::Rtl::new()?;
            // diagnosis: LDCP_NETSIM_RTL=engine or wred runs only that block as RTL
            match std::env::var("LDCP_NETSIM_RTL").as_deref() {
                Ok("engine") => r.parts = (true, false),
                Ok("wred") => r.parts = (false, true),
                _ => {}
            }
            Ok(Box::new(r))
        }
    }
}

/// The RTL hardware, for the report and the bench.
fn rtl() -> Result<Box<dyn Hardware>, String> {
    hardware(Engine::Rtl).map_err(|e| e.to_string())
}

/// Runs `ldcp netsim ...`; Ok(false) when the run failed its own checks.
pub fn main(a: NetsimArgs) -> Result<bool, FlowError> {
    match a.cmd {
        None => run(&a.run),
        Some(NetsimCmd::Report(r)) => Ok(report::report(&r, &rtl)?),
        Some(NetsimCmd::Sweep(s)) => Ok(report::sweep(&s)?),
        Some(NetsimCmd::Merge(m)) => Ok(report::merge(&m)?),
        Some(NetsimCmd::Bench(b)) => Ok(report::bench(&b, &rtl)?),
    }
}

fn run(a: &RunArgs) -> Result<bool, FlowError> {
    if a.list {
        print!("{}", cli::list());
        return Ok(true);
    }
    let o = cli::options(a).map_err(FlowError::BadArg)?;
    ldcp_netsim::scenario::check(&o).map_err(FlowError::BadArg)?;
    // the output folders first: a bad path is refused before the run
    for (flag, d) in [("--csv", &a.csv), ("--plots", &a.plots)] {
        if let Some(d) = d {
            report::output_dir(flag, d)?;
        }
    }
    let mut hw = hardware(a.engine)?;
    // an error that names an option (`--duration-us = 10 is too short for
    // wan-arn`, found once the network is built) is a bad argument: exit 2
    let out = cli::run_one(&o, hw.as_mut()).map_err(|e| {
        if e.starts_with("--") {
            FlowError::BadArg(e)
        } else {
            FlowError::Tool(e)
        }
    })?;
    if let Some(d) = &a.csv {
        ldcp_netsim::output::write_csv(&out, d)
            .map_err(|e| FlowError::Io(format!("{}: {e}", d.display())))?;
    }
    if let Some(d) = &a.plots {
        ldcp_netsim::output::write_plots(&out, d).map_err(FlowError::Io)?;
    }
    if a.json {
        // the wall time goes to stderr: the JSON is a function of the seed and options
        println!(
            "{}",
            serde_json::to_string_pretty(&out.json).expect("serializable")
        );
        eprintln!(
            "{} events in {:.3} s of wall time",
            out.json["events"], out.wall_s
        );
    } else {
        print!("{}", ldcp_netsim::output::summary(&out.json, out.wall_s));
    }
    Ok(out.json["packets"]["conserved"] == true)
}
