//! The Alchitry Cu NIC board core (board shell, `nic_cu`) against
//! `CuBoardModel`: the UART line out, the LEDs and the bus every cycle,
//! over proptest streams of per-cycle choices that `ShellStimulus` turns
//! into a UART line (frames intact, corrupted, cut short; garbage,
//! glitches, reset-button pulses) carrying the NIC system's bus stimulus,
//! at proptest-chosen bit rates; each case drained (the longest ACK
//! timeout included) and checked empty.

use ldcp_sim::board_shell::{ShellIn, ShellOut, ShellStimulus};
use ldcp_sim::cu_board::CuBoardModel;
use ldcp_sim::nic_cu::NicCuModel;
use ldcp_sim::nic_system::SysStimulus;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 500_000;

fn stream() -> impl Strategy<Value = Vec<ShellIn>> {
    let div = prop_oneof![4 => 4u32..=9, 1 => Just(40u32), 1 => 0u32..4];
    let hold = prop_oneof![Just(1u32), 2u32..2_000];
    (div, hold, ldcp_tests::choices(20_000..50_000)).prop_map(|(div, hold, c)| {
        ldcp_sim::from_choices(ShellStimulus::new(div, hold, SysStimulus::default()), &c)
    })
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    writes: u64,
    reads: u64,
    reads_nonzero: u64,
    error_lit: u64,
}

#[test]
fn cu_board_core_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "cu_board_core",
        "cosim_cu_board_core",
        0x5EED_0029,
        12,
        stream(),
        || CuBoardModel::new(NicCuModel::new(0, true)),
        |_, o: &ShellOut, c: &mut Reached| {
            c.writes += o.obs_bus_we as u64;
            c.reads += o.obs_bus_re as u64;
            c.reads_nonzero += (o.obs_bus_rvalid && o.obs_bus_rdata != 0) as u64;
            c.error_lit += o.led_error as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "cu_board_core cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.writes > 200 && c.reads > 10 && c.reads_nonzero > 3 && c.error_lit > 100,
        "{c:?}"
    );
}
