//! ACK generator: the generated Verilog against `AckGeneratorModel`, every
//! output (`in_ready` included), every cycle, over proptest-chosen
//! concatenations of the seeded packet streams (in-order packets with 0 to
//! 100% CE, losses and the go-back-N retransmissions after them, duplicates,
//! far PSNs, opens near the 2^24 wrap, ids beyond the table, m 0..=15,
//! timeouts 0..=65,535, idle stretches and block resets with their sweeps).

use ldcp_sim::ack_generator::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<AgInputs>> {
    proptest::collection::vec((any::<u64>(), 1_000usize..8_000), 1..5).prop_map(|segs| {
        segs.into_iter()
            .flat_map(|(seed, n)| stimulus(seed, FPGA_FLOW_BITS as u32).take(n))
            .collect()
    })
}

#[test]
fn ack_generator_matches_model() {
    let (cycles, c) = ldcp_tests::cosim_cases(
        "ack_generator",
        "cosim_ack_generator",
        0x5EED_0006,
        120,
        stream(),
        || AckGeneratorModel::new(FPGA_FLOW_BITS as u32),
        |o, c: &mut [u64; 8]| {
            // in_ready, ack_valid, ack_flow, ack_psn, ack_ece, ack_n, ack_nak, o_err
            c[0] += (o[0] == 0) as u64;
            if o[1] == 1 {
                c[1] += 1;
                c[2] += o[4];
                c[3] += o[6];
                c[4] += (o[5] > 1) as u64;
            }
            if o[7] != 0 {
                c[4 + o[7] as usize] += 1;
            }
        },
    );
    eprintln!(
        "ack_generator cosim: {cycles} cycles, 0 mismatches; {} ACKs ({} ECE, {} NAK, {} covering n > 1); \
         {} cycles with in_ready low; errors flow {} seq {} gap-repeat {}",
        c[1], c[2], c[3], c[4], c[0], c[5], c[6], c[7]
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
