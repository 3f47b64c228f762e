//! Every codec target of `ldcp_sim::fuzz::codecs` on each input: a panic
//! (libFuzzer reports it as a crash) or a broken round trip fails.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for t in ldcp_sim::fuzz::codecs::TARGETS {
        if let Err(why) = (t.check)(data) {
            panic!("{}: {why}", t.name);
        }
    }
});
