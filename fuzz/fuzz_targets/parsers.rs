//! The other parsers of outside input, coverage-guided: the board's side
//! of the UART bridge (frames and the raw line, `ldcp_sim::fuzz`) and the
//! host's (responses read off the line, parameter values a user gives
//! `ldcpctl`, `ldcp_host::fuzz`): each target's check on each input. A
//! panic, or a check that finds a broken property, is a crash; a refusal
//! (a bad CRC, a value out of range) is the parser doing its job.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let targets = ldcp_sim::fuzz::BRIDGE_TARGETS
        .iter()
        .chain(ldcp_host::fuzz::TARGETS.iter());
    for t in targets {
        if let Err(why) = (t.check)(data) {
            panic!("{}: {why}", t.name);
        }
    }
});
