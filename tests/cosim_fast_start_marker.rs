//! Fast-start marker: the generated Verilog against `FastStartModel`, every
//! output, every cycle, over proptest-chosen concatenations of the seeded
//! event streams (in-sequence transmits of short and long messages, ACKs
//! within and beyond the window, NAKs, retransmissions, flow resets, PSNs
//! across the 2^24 wrap, ids beyond the table, non-IPv4 headers, IW 0, 1 and
//! 4,095, idle cycles and block resets with their sweeps).

use ldcp_sim::fast_start_marker::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<FsInputs>> {
    proptest::collection::vec((any::<u64>(), 500usize..5_000), 1..5).prop_map(|segs| {
        segs.into_iter()
            .flat_map(|(seed, n)| stimulus(seed, FPGA_FLOW_BITS as u32).take(n))
            .collect()
    })
}

#[test]
fn fast_start_marker_matches_model() {
    let (cycles, c) = ldcp_tests::cosim_cases(
        "fast_start_marker",
        "cosim_fast_start_marker",
        0x5EED_0004,
        200,
        stream(),
        || FastStartModel::new(FPGA_FLOW_BITS as u32),
        |o, c: &mut [u64; 8]| {
            // in_ready, o_valid, o_kind, o_flow, o_err, o_ecn, .., o_set, .., o_gbn
            c[7] += (o[0] == 0) as u64;
            if o[1] == 1 {
                let tx_ok = o[2] == kind::TX as u64 && o[4] == 0;
                c[0] += (tx_ok && o[5] == ECN_NOT_ECT as u64) as u64;
                c[1] += (tx_ok && o[5] == ECN_ECT0 as u64) as u64;
                c[2] += o[8];
                c[3] += o[10];
                c[3 + o[4] as usize] += (o[4] != 0) as u64;
            }
        },
    );
    eprintln!(
        "fast_start_marker cosim: {cycles} cycles, 0 mismatches; transmits Not-ECT {} ECT {}; \
         window sets {} (of which go-back-N {}); errors flow {} seq {} not-IPv4 {}; sweep cycles {}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
    );
    assert!(
        cycles >= MIN_CYCLES,
        "only {cycles} cycles compared; CI needs at least {MIN_CYCLES}"
    );
    assert!(
        c.iter().all(|&x| x > 100),
        "the streams must reach every outcome: {c:?}"
    );
}
