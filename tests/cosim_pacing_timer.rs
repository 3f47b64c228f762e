//! Pacing timer: the generated Verilog against `PacingTimerModel`, every
//! output, every cycle, over proptest streams of per-cycle choices that
//! `PtStimulus` turns into updates (one, a few or all flows; intervals below
//! a pointer sweep, typical, long and 2^24 - 1; leaves, flow resets, ids
//! beyond the table, idle stretches and block resets with their sweeps),
//! each case drained and checked empty.

use ldcp_sim::pacing_timer::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<PtInputs>> {
    ldcp_tests::choices(4_000..16_000)
        .prop_map(|c| ldcp_sim::from_choices(PtStimulus::new(FPGA_FLOW_BITS as u32), &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    grants: u64,
    late: u64,
    at_bound: u64,
    beyond_bound: u64,
    refused: u64,
    sweep_cycles: u64,
}

#[test]
fn pacing_timer_matches_model() {
    let flows = 1u32 << FPGA_FLOW_BITS;
    let bound = lateness_bound_cycles(flows, 1);
    let (t, c) = ldcp_tests::cosim_cases(
        "pacing_timer",
        "cosim_pacing_timer",
        0x5EED_0005,
        120,
        stream(),
        || PacingTimerModel::new(FPGA_FLOW_BITS as u32),
        |_, o: &PtOutputs, c: &mut Reached| {
            if o.out_valid {
                c.grants += 1;
                c.late += (o.out_late_cycles > 0) as u64;
                c.at_bound += (o.out_late_cycles + 1 >= bound) as u64;
                c.beyond_bound += (o.out_late_cycles > bound) as u64;
            }
            c.refused += o.stat_err_flow_strobe as u64;
            c.sweep_cycles += !o.in_ready as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "pacing_timer cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {} grants ({} late, {} of them by the bound of {bound} cycles or one less, {} \
         beyond it); {} refused flow ids; {} sweep cycles",
        t.cases,
        t.cycles,
        t.drain_cycles,
        c.grants,
        c.late,
        c.at_bound,
        c.beyond_bound,
        c.refused,
        c.sweep_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.grants > 10_000 && c.late > 1_000 && c.refused > 100 && c.sweep_cycles > 1_000,
        "{c:?}"
    );
    assert_eq!(c.beyond_bound, 0, "grants later than the bound");
    assert!(c.at_bound > 0, "the streams reach the bound");
}

/// The 4,096-flow build (`pacing_timer_4k`, a simulation size): the same
/// stimulus over 2^12 flows ([`ldcp_tests::cosim_4k`]).
#[test]
fn pacing_timer_4k_matches_model() {
    use ldcp_tests::FLOW_BITS_4K as FB;
    ldcp_tests::cosim_4k(
        "pacing_timer_4k",
        "cosim_pacing_timer_4k",
        0x5EED_000C,
        |c| ldcp_sim::from_choices(PtStimulus::new(FB), c),
        || PacingTimerModel::new(FB),
        |o: &PtOutputs| o.out_valid.then_some(o.out_flow),
    );
}
