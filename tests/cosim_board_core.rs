//! The Alchitry Cu board core (power-on sequencer, UART bridge, LEDs, NIC
//! core) against `BoardModel`: the UART line out, the LEDs and the NIC
//! core's bus every cycle, over proptest streams of per-cycle choices that
//! `BoardStimulus` turns into a UART line (frames intact, corrupted, cut
//! short, back to back; garbage, glitches, bad stop bits, reset-button
//! pulses) at proptest-chosen bit rates, including the board's 100 clocks
//! per bit and illegal dividers below 4; each case drained (the bridge
//! idle, the core empty) and checked empty.

use ldcp_sim::board::{BoardIn, BoardModel, BoardOut, BoardStimulus};
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<BoardIn>> {
    let div = prop_oneof![4 => 4u32..=9, 1 => Just(ldcp_hdl::board::BAUD_DIV), 1 => 0u32..4, 1 => 10u32..=40];
    (div, ldcp_tests::choices(20_000..60_000))
        .prop_map(|(div, c)| ldcp_sim::from_choices(BoardStimulus::new(div), &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    writes: u64,
    reads: u64,
    reads_nonzero: u64,
    tx_low: u64,
    activity_toggles: u64,
    error_lit: u64,
    ready_dark: u64,
    last_activity: bool,
}

#[test]
fn board_core_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "board_core",
        "cosim_board_core",
        0x5EED_0008,
        40,
        stream(),
        || BoardModel::new(0, true),
        |_, o: &BoardOut, c: &mut Reached| {
            c.writes += o.obs_bus_we as u64;
            c.reads += o.obs_bus_re as u64;
            c.reads_nonzero += (o.obs_bus_rvalid && o.obs_bus_rdata != 0) as u64;
            c.tx_low += !o.uart_tx as u64;
            c.activity_toggles += (o.led_activity != c.last_activity) as u64;
            c.last_activity = o.led_activity;
            c.error_lit += o.led_error as u64;
            c.ready_dark += !o.led_ready as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "board_core cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.writes > 500 && c.reads > 150 && c.reads_nonzero > 100 && c.tx_low > 100_000,
        "{c:?}"
    );
    // the LEDs: activity toggled by the traffic, error lit by refusals (and
    // cleared by resets), ready dark through power-on sequences
    assert!(
        c.activity_toggles > 500 && c.error_lit > 10_000 && c.ready_dark > 5_000,
        "{c:?}"
    );
}
