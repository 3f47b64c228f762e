//! The switch port's board cores, the P node's (board shell, switch
//! decoder, WRED/ECN port, Fast CNP trigger and its descriptor queue, the
//! packet staging) and the PE's (the same shell, decoder, port and staging,
//! tunnel ECN ingress and egress, END.CON), against `SwitchBoardModel` of
//! their role: the UART line out, the LEDs and the bus every cycle, over proptest streams of per-cycle choices that
//! `ShellStimulus` turns into a UART line (frames intact, corrupted, cut
//! short, back to back; garbage, glitches, bad stop bits, reset-button
//! pulses) carrying `SwitchStimulus`'s bus operations (packet bursts,
//! parameters legal and not, reads of every offset, CORE_RESET, staged
//! headers, SIDs, tunnel modes, the draft-001 blocks' packets, Fast CNP
//! intervals, descriptor pops), at
//! proptest-chosen bit rates and LED holds; each case drained and checked
//! empty.

use ldcp_sim::board_shell::{ShellIn, ShellOut, ShellStimulus};
use ldcp_sim::switch_board::{
    Draft001Counts, SwitchBoardModel, SwitchCoreModel, SwitchRole, SwitchStimulus,
};
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<ShellIn>> {
    let div = prop_oneof![4 => 4u32..=9, 1 => Just(100u32), 1 => 0u32..4, 1 => 10u32..=40];
    let hold = prop_oneof![Just(0u32), Just(1), 2u32..2_000, Just((1 << 24) - 1)];
    (div, hold, ldcp_tests::choices(20_000..60_000)).prop_map(|(div, hold, c)| {
        ldcp_sim::from_choices(ShellStimulus::new(div, hold, SwitchStimulus::default()), &c)
    })
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    writes: u64,
    reads: u64,
    reads_nonzero: u64,
    error_lit: u64,
    activity_lit: u64,
    activity_dark_ready: u64,
    /// The draft-001 blocks' counters at each case's end, summed.
    draft001: Draft001Counts,
}

fn role_matches_model(role: SwitchRole, block: &str, test: &'static str, seed: u64) -> Reached {
    let (t, c) = ldcp_tests::cosim_cases(
        block,
        test,
        seed,
        80,
        stream(),
        || SwitchBoardModel::new(SwitchCoreModel::of_role(0, true, role)),
        |_, o: &ShellOut, c: &mut Reached| {
            c.writes += o.obs_bus_we as u64;
            c.reads += o.obs_bus_re as u64;
            c.reads_nonzero += (o.obs_bus_rvalid && o.obs_bus_rdata != 0) as u64;
            c.error_lit += o.led_error as u64;
            c.activity_lit += o.led_activity as u64;
            c.activity_dark_ready += (o.led_ready && !o.led_activity) as u64;
        },
        |m, c| c.draft001 += m.core().draft001_counts(),
    );
    eprintln!(
        "{block} cosim ({role:?}): {} cases, {} cycles ({} of drain), 0 mismatches, nothing left \
         in flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.writes > 500 && c.reads > 150 && c.reads_nonzero > 10,
        "{c:?}"
    );
    assert!(
        c.error_lit > 1_000 && c.activity_lit > 1_000 && c.activity_dark_ready > 1_000,
        "{c:?}"
    );
    c
}

#[test]
fn switch_board_core_matches_model() {
    let c = role_matches_model(
        SwitchRole::P,
        "switch_board_core",
        "cosim_switch_board_core",
        0x5EED_000A,
    );
    // through the bridge: the Fast CNP trigger emitted and a descriptor was
    // popped (the bus-level test, cosim_switch_port_core, covers the blocks
    // at millions of bus cycles; this one the bridge in front of them)
    let d = c.draft001;
    assert!(d.fc_sent > 10 && d.fc_popped > 0, "{d:?}");
    assert_eq!((d.ti_packets, d.te_forwarded, d.ec_actions), (0, 0, [0; 4]));
}

#[test]
fn pe_board_core_matches_model() {
    let c = role_matches_model(
        SwitchRole::Pe,
        "pe_board_core",
        "cosim_pe_board_core",
        0x5EED_000B,
    );
    let d = c.draft001;
    assert!(
        d.ti_packets > 10 && d.te_forwarded > 10 && d.ec_actions[0] > 10,
        "{d:?}"
    );
    assert_eq!((d.fc_sent, d.fc_suppressed, d.fc_popped), (0, 0, 0));
}
