//! NIC core: the generated Verilog (register decoder, window engine, FIFO,
//! generator, flow window, counters) against `NicCoreModel`, the bus outputs
//! every cycle, over proptest-chosen concatenations of seeded bus streams.

use ldcp_regmap::model::BusIn;
use ldcp_sim::nic_core::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<BusIn>> {
    proptest::collection::vec((any::<u64>(), 2_000usize..12_000), 1..5).prop_map(|segs| {
        segs.into_iter()
            .flat_map(|(seed, n)| stimulus(seed).take(n))
            .collect()
    })
}

#[test]
fn nic_core_matches_model() {
    // the block as the flow generates it: GIT_HASH 0, CAPS.DIRTY set
    let build = ldcp_hdl::nic_core::BuildId {
        hash: 0,
        dirty: true,
    };
    let (cycles, c) = ldcp_tests::cosim_cases(
        "nic_core",
        "cosim_nic_core",
        0x5EED_0007,
        100,
        stream(),
        || NicCoreModel::new(build.hash, build.dirty),
        |o, c: &mut [u64; 2]| {
            c[0] += o[1];
            c[1] += (o[1] == 1 && o[0] != 0) as u64;
        },
    );
    // what the streams reached, from the model (bit-exact with the RTL above)
    let mut m = NicCoreModel::new(build.hash, build.dirty);
    for seed in 0..8u64 {
        for b in stimulus(seed).take(60_000) {
            m.tick(&b);
        }
    }
    let st = m.stats();
    eprintln!(
        "nic_core cosim: {cycles} cycles, 0 mismatches; {} reads ({} non-zero). \
         Model over 8 x 60,000 cycles of the same streams: {:?}",
        c[0], c[1], st
    );
    assert!(
        cycles >= MIN_CYCLES,
        "only {cycles} cycles compared; CI needs at least {MIN_CYCLES}"
    );
    assert!(c[0] > 50_000 && c[1] > 20_000, "{c:?}");
    assert!(
        st.events > 100_000 && st.flow_results > 1_000 && st.dropped > 100,
        "{st:?}"
    );
    assert!(st.resets > 5 && st.gen_cycles > 10_000, "{st:?}");
}
