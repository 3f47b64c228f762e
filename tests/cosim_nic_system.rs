//! NIC system: the generated Verilog (the NIC core with its sweep held for
//! the pacing timer, the extension decoder, the pacing timer, fast-start
//! marker, ACK generator, WRED/ECN port and their glue) against
//! `NicSystemModel`: the bus and every block's registered outputs, every
//! cycle, over proptest-chosen concatenations of seeded bus streams.

use ldcp_regmap::model::BusIn;
use ldcp_sim::nic_system::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 500_000;

fn stream() -> impl Strategy<Value = Vec<BusIn>> {
    proptest::collection::vec((any::<u64>(), 2_000usize..12_000), 1..5).prop_map(|segs| {
        segs.into_iter()
            .flat_map(|(seed, n)| stimulus(seed).take(n))
            .collect()
    })
}

#[test]
fn nic_system_matches_model() {
    let (cycles, c) = ldcp_tests::cosim_cases(
        "nic_system",
        "cosim_nic_system",
        0x5EED_0009,
        50,
        stream(),
        || NicSystemModel::new(0, true),
        |o, c: &mut [u64; 4]| {
            c[0] += o[1]; // reads
            c[1] += o[2]; // grants
            c[2] += o[4]; // ACKs
            c[3] += o[16]; // WRED decisions
        },
    );
    // what the streams reached, from the model (bit-exact with the RTL above)
    let mut m = NicSystemModel::new(0, true);
    for seed in 0..8u64 {
        for b in stimulus(seed).take(40_000) {
            m.tick(&b);
        }
    }
    let st = m.stats();
    eprintln!(
        "nic_system cosim: {cycles} cycles, 0 mismatches; {} reads, {} grants, {} ACKs, {} WRED \
         decisions. Model over 8 x 40,000 cycles of the same streams: {st:?}; core: {:?}",
        c[0],
        c[1],
        c[2],
        c[3],
        m.core().stats()
    );
    assert!(
        cycles >= MIN_CYCLES,
        "only {cycles} cycles compared; CI needs at least {MIN_CYCLES}"
    );
    assert!(
        c[0] > 20_000 && c[1] > 100 && c[2] > 1_500 && c[3] > 10_000,
        "{c:?}"
    );
    assert!(
        st.grants > 500 && st.restarts > 20 && st.fs_results > 5_000 && st.fs_errors > 100,
        "{st:?}"
    );
    assert!(
        st.acks > 400 && st.naks > 50 && st.wred.iter().all(|&d| d > 100),
        "{st:?}"
    );
    assert!(
        st.overruns > 50 && st.flow_resets > 50 && st.held > 1_000,
        "{st:?}"
    );
}
