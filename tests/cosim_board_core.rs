//! The Alchitry Cu board core (power-on sequencer, UART bridge, NIC core)
//! against `BoardModel`: the UART line out and the NIC core's bus every
//! cycle, over proptest-chosen UART streams (frames intact, corrupted, cut
//! short, back to back; garbage, glitches, bad stop bits, reset-button
//! pulses) at proptest-chosen bit rates, including the board's 60 clocks
//! per bit and illegal dividers below 4.

use ldcp_sim::board::{stimulus, BoardIn, BoardModel};
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<BoardIn>> {
    let div = prop_oneof![4 => 4u32..=9, 1 => Just(60u32), 1 => 0u32..4, 1 => 10u32..=40];
    (any::<u64>(), div, 20_000usize..60_000)
        .prop_map(|(seed, div, n)| stimulus(seed, div).take(n).collect())
}

#[test]
fn board_core_matches_model() {
    let (cycles, c) = ldcp_tests::cosim_cases(
        "board_core",
        "cosim_board_core",
        0x5EED_0008,
        40,
        stream(),
        || BoardModel::new(0, true),
        |o, c: &mut [u64; 4]| {
            // bus writes, bus reads, read data non-zero, line low (tx bits)
            c[0] += o[3];
            c[1] += o[4];
            c[2] += (o[6] == 1 && o[5] != 0) as u64;
            c[3] += (o[0] == 0) as u64;
        },
    );
    eprintln!(
        "board_core cosim: {cycles} cycles, 0 mismatches; {} bus writes, {} bus reads \
         ({} with non-zero data), {} cycles of tx low",
        c[0], c[1], c[2], c[3]
    );
    assert!(
        cycles >= MIN_CYCLES,
        "only {cycles} cycles compared; CI needs at least {MIN_CYCLES}"
    );
    assert!(
        c[0] > 500 && c[1] > 150 && c[2] > 100 && c[3] > 100_000,
        "{c:?}"
    );
}
