//! Pacing timer: the generated Verilog against `PacingTimerModel`, every
//! output, every cycle, over proptest-chosen concatenations of the seeded
//! update streams (one, a few or all flows; intervals below a pointer sweep,
//! typical, long and 2^24 - 1; leaves, flow resets, ids beyond the table,
//! idle stretches and block resets with their sweeps).

use ldcp_sim::pacing_timer::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<PtInputs>> {
    proptest::collection::vec((any::<u64>(), 1_000usize..8_000), 1..5).prop_map(|segs| {
        segs.into_iter()
            .flat_map(|(seed, n)| stimulus(seed, FPGA_FLOW_BITS as u32).take(n))
            .collect()
    })
}

#[test]
fn pacing_timer_matches_model() {
    let flows = 1u32 << FPGA_FLOW_BITS;
    let (cycles, c) = ldcp_tests::cosim_cases(
        "pacing_timer",
        "cosim_pacing_timer",
        0x5EED_0005,
        120,
        stream(),
        || PacingTimerModel::new(FPGA_FLOW_BITS as u32),
        |o, c: &mut [u64; 6]| {
            // in_ready, grant_valid, grant_flow, grant_late, o_err_flow
            let bound = lateness_bound_cycles(flows, 1) as u64;
            c[0] += o[1];
            c[1] += (o[1] == 1 && o[3] > bound) as u64;
            c[5] += (o[1] == 1 && o[3] >= bound - 1) as u64;
            c[2] += (o[1] == 1 && o[3] > 0) as u64;
            c[3] += o[4];
            c[4] += (o[0] == 0) as u64;
        },
    );
    eprintln!(
        "pacing_timer cosim: {cycles} cycles, 0 mismatches; {} grants ({} late, {} of them by the bound of {} cycles or one less, {} beyond it); \
         {} refused flow ids; {} sweep cycles",
        c[0], c[2], c[5], lateness_bound_cycles(flows, 1), c[1], c[3], c[4]
    );
    assert!(
        cycles >= MIN_CYCLES,
        "only {cycles} cycles compared; CI needs at least {MIN_CYCLES}"
    );
    assert!(
        c[0] > 10_000 && c[2] > 1_000 && c[3] > 100 && c[4] > 1_000,
        "{c:?}"
    );
    assert_eq!(c[1], 0, "grants later than the bound");
    assert!(c[5] > 0, "the streams reach the bound");
}
