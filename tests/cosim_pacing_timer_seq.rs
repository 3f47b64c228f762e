//! Sequential pacing timer: the generated Verilog against `PacingTimerSeqModel`,
//! every output, every cycle, over the pipelined timer's proptest streams
//! (`PtStimulus`: one, a few or all flows; intervals below a lap, typical,
//! long and 2^24 - 1; leaves, flow resets, ids beyond the table, bursts of
//! updates that hold `in_ready` low, idle stretches and block resets with
//! their sweeps), each case drained and checked empty.

use ldcp_sim::pacing_timer::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<PtInputs>> {
    ldcp_tests::choices(4_000..16_000)
        .prop_map(|c| ldcp_sim::from_choices(PtStimulus::new(FPGA_FLOW_BITS as u32), &c))
}

/// What the compared cases reached: from the RTL's outputs, and the
/// models' counts.
#[derive(Default, Debug)]
struct Reached {
    grants: u64,
    late: u64,
    late_max: u32,
    beyond_lap: u64,
    beyond_bound: u64,
    refused: u64,
    ready_low: u64,
    updates: u64,
    visits: u64,
}

#[test]
fn pacing_timer_seq_matches_model() {
    let flows = 1u32 << FPGA_FLOW_BITS;
    let bound = seq_lateness_bound_cycles(flows, 1);
    let fast_lap = flows * SEQ_VISIT_CYCLES;
    let (t, c) = ldcp_tests::cosim_cases(
        "pacing_timer_seq",
        "cosim_pacing_timer_seq",
        0x5EED_002A,
        120,
        stream(),
        || PacingTimerSeqModel::new(FPGA_FLOW_BITS as u32),
        |_, o: &PtOutputs, c: &mut Reached| {
            if o.out_valid {
                c.grants += 1;
                c.late += (o.out_late_cycles > 0) as u64;
                c.late_max = c.late_max.max(o.out_late_cycles);
                c.beyond_lap += (o.out_late_cycles >= fast_lap) as u64;
                c.beyond_bound += (o.out_late_cycles > bound) as u64;
            }
            c.refused += o.stat_err_flow_strobe as u64;
            c.ready_low += !o.in_ready as u64;
        },
        |m, c| {
            c.updates += m.stats().updates;
            c.visits += m.stats().visits;
        },
    );
    eprintln!(
        "pacing_timer_seq cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left \
         in flight; {} updates, {} visits, {} grants ({} late, the latest {} cycles, {} later \
         than a lap without updates ({fast_lap}), {} beyond the bound of {bound}); {} refused \
         flow ids; in_ready low {} cycles",
        t.cases,
        t.cycles,
        t.drain_cycles,
        c.updates,
        c.visits,
        c.grants,
        c.late,
        c.late_max,
        c.beyond_lap,
        c.beyond_bound,
        c.refused,
        c.ready_low
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.grants > 10_000 && c.late > 1_000 && c.refused > 100 && c.ready_low > 10_000,
        "{c:?}"
    );
    assert_eq!(c.beyond_bound, 0, "grants later than the bound");
    // updates lengthen the lap: some grants wait longer than 2N cycles
    assert!(
        c.beyond_lap > 0,
        "no grant later than a lap without updates"
    );
}
