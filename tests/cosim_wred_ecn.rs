//! WRED/ECN: the generated Verilog against `WredEcnModel`, every output,
//! every cycle, over proptest streams weighted toward the thresholds, full
//! buffers, idle cycles, resets and parameter changes (legal and illegal).

use ldcp_sim::cosim::{Cosim, CosimFailure, CosimModel};
use ldcp_sim::wred_ecn::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

/// Thresholds near the queue sizes the streams reach, and the extremes.
fn byte_value(scale: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => 0..=scale,
        1 => Just(0u32),
        1 => Just(scale),
        1 => Just(Q_MAX),
        1 => (Q_MAX - 20_000)..=Q_MAX,
    ]
}

/// Mostly legal parameter sets (sorted thresholds), some illegal ones: the
/// hardware must still match the model's documented behaviour.
fn params() -> impl Strategy<Value = WredParams> {
    let scale = prop_oneof![
        Just(3_000u32),
        Just(40_000u32),
        Just(1_000_000u32),
        Just(Q_MAX)
    ];
    (
        scale.prop_flat_map(|s| proptest::collection::vec(byte_value(s), 4)),
        prop_oneof![3 => 0u16..=0x8000, 1 => Just(0x8000u16), 1 => Just(0u16), 1 => 0x8001u16..=0xffff],
        prop_oneof![1 => Just(0u32), 4 => any::<u32>()],
        0u8..8,
    )
        .prop_map(|(mut v, p, seed, shape)| {
            if shape != 0 {
                v.sort_unstable(); // legal: k_min <= k <= k_max <= buf_max, or permuted below
            }
            let (k_min, k, k_max, buf) = match shape {
                1 => (v[0], v[2], v[1], v[3]),
                2 => (v[1], v[0], v[2], v[3]),
                _ => (v[0], v[1], v[2], v[3]),
            };
            WredParams { k_min_bytes: k_min, k_max_bytes: k_max, k_bytes: k, buf_max_bytes: buf, p_max_raw: p, seed }
        })
}

/// One segment of traffic with its own load: arrival probability, length
/// and drain distributions chosen so queues fill, hover and empty.
fn segment() -> impl Strategy<Value = Vec<WredInputs>> {
    (params(), 0u32..=100, 0u32..4, 0u32..4, 200usize..1500).prop_flat_map(
        |(p, load, len_kind, drain_kind, n)| {
            let len = match len_kind {
                0 => prop_oneof![Just(0u32), Just(LEN_MAX), Just(1500u32), Just(64u32)].boxed(),
                1 => (0u32..=LEN_MAX).boxed(),
                2 => (40u32..=2000).boxed(),
                _ => prop_oneof![8 => 1000u32..1600, 1 => Just(LEN_MAX), 1 => Just(0u32)].boxed(),
            };
            let drain = match drain_kind {
                0 => Just(0u32).boxed(),
                1 => (0u32..=DRAIN_MAX).boxed(),
                2 => (0u32..1200).boxed(),
                _ => prop_oneof![Just(0u32), Just(DRAIN_MAX), Just(1000u32)].boxed(),
            };
            let cycle = (0u32..100, 0u32..1000, len, 0u8..4, drain).prop_map(
                move |(v, r, len, ecn, drain)| WredInputs {
                    reset: r == 0,
                    in_valid: v < load,
                    in_len_bytes: len,
                    in_ecn: ecn,
                    egress_drain_bytes: drain,
                    ..WredInputs::idle(&p)
                },
            );
            proptest::collection::vec(cycle, n)
        },
    )
}

fn stream() -> impl Strategy<Value = Vec<WredInputs>> {
    proptest::collection::vec(segment(), 1..6).prop_map(|segs| segs.concat())
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Debug, Default)]
struct Reached {
    decisions: u64,
    marked: u64,
    dropped: u64,
    packets_in: u64,
}

#[test]
fn wred_ecn_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "wred_ecn",
        "cosim_wred_ecn",
        0x5EED_0002,
        500,
        stream(),
        WredEcnModel::new,
        |i: &WredInputs, o: &WredOutputs, c: &mut Reached| {
            // a packet presented with no reset is in flight (the reset
            // drops the ones in the pipeline without a decision)
            c.packets_in += (i.in_valid && !i.reset) as u64;
            if o.out_valid {
                c.decisions += 1;
                c.marked += (o.out_decision == Decision::ForwardMarked as u8) as u64;
                c.dropped += (o.out_decision >= Decision::DropWred as u8) as u64;
            }
        },
        |_, _| {},
    );
    eprintln!(
        "wred_ecn cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in flight; \
         {} decisions ({} marked, {} dropped) for {} packets presented",
        t.cases, t.cycles, t.drain_cycles, c.decisions, c.marked, c.dropped, c.packets_in
    );
    // a reset drops the packets in the pipeline without a decision
    assert!(
        c.decisions <= c.packets_in && c.decisions * 10 >= c.packets_in * 9,
        "{c:?}"
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.marked > 10_000 && c.dropped > 10_000,
        "the streams must reach marking and drops ({}, {})",
        c.marked,
        c.dropped
    );
}

/// The harness catches a wrong model: flip one output bit at one cycle and
/// the report names the cycle, the inputs, both values and a VCD.
#[test]
fn wred_ecn_cosim_reports_a_mismatch_with_a_vcd() {
    #[derive(Clone)]
    struct Wrong(WredEcnModel, u64);
    impl CosimModel for Wrong {
        type Input = WredInputs;
        type Output = WredOutputs;
        fn tick(&mut self, i: &WredInputs) {
            self.0.tick(i);
            self.1 += 1;
        }
        fn outputs(&self) -> WredOutputs {
            let mut o = self.0.outputs();
            if self.1 == 40 {
                o.stat_occupancy_bytes ^= 1;
            }
            o
        }
        fn drain(&self, last: Option<&WredInputs>) -> Vec<WredInputs> {
            CosimModel::drain(&self.0, last)
        }
        fn in_flight(&self) -> Vec<(&'static str, u64)> {
            CosimModel::in_flight(&self.0)
        }
    }
    let cosim: Cosim<Wrong> = ldcp_tests::cosim("wred_ecn");
    let p = WredParams::default();
    let s: Vec<WredInputs> = (0..100)
        .map(|c| WredInputs {
            in_valid: c % 3 == 0,
            in_len_bytes: 1000 + c,
            in_ecn: 2,
            ..WredInputs::idle(&p)
        })
        .collect();
    match cosim.run(Wrong(WredEcnModel::new(), 0), &s, "deliberate") {
        Err(CosimFailure::Mismatch(m)) => {
            assert_eq!(m.cycle, 39);
            let text = m.to_string();
            assert!(
                text.contains("at cycle 39")
                    && text.contains("stat_occupancy_bytes")
                    && text.contains("<-- differs"),
                "{text}"
            );
            assert_eq!(m.recent_inputs.len(), ldcp_sim::cosim::RECENT_INPUTS);
            let vcd = m.vcd.clone().expect("a VCD");
            let body = std::fs::read_to_string(&vcd).unwrap();
            assert!(
                body.contains("stat_occupancy_bytes") && body.contains("$enddefinitions"),
                "{}",
                vcd.display()
            );
        }
        Err(e) => panic!("expected a mismatch, got {e}"),
        Ok(_) => panic!("expected a mismatch, the run passed"),
    }
}

/// The harness catches a block that does not end empty: a drain shorter
/// than the block's latency leaves packets in the decision pipeline, and
/// the run fails naming them, after every compared cycle matched.
#[test]
fn wred_ecn_cosim_fails_a_run_that_does_not_drain() {
    #[derive(Clone)]
    struct ShortDrain(WredEcnModel);
    impl CosimModel for ShortDrain {
        type Input = WredInputs;
        type Output = WredOutputs;
        fn tick(&mut self, i: &WredInputs) {
            self.0.tick(i);
        }
        fn outputs(&self) -> WredOutputs {
            self.0.outputs()
        }
        fn drain(&self, last: Option<&WredInputs>) -> Vec<WredInputs> {
            let mut d = CosimModel::drain(&self.0, last);
            d.truncate(LATENCY_CYCLES - 2);
            d
        }
        fn in_flight(&self) -> Vec<(&'static str, u64)> {
            CosimModel::in_flight(&self.0)
        }
    }
    let cosim: Cosim<ShortDrain> = ldcp_tests::cosim("wred_ecn");
    let p = WredParams::default();
    let s = vec![
        WredInputs {
            in_valid: true,
            in_len_bytes: 500,
            in_ecn: 2,
            ..WredInputs::idle(&p)
        };
        20
    ];
    match cosim.run(ShortDrain(WredEcnModel::new()), &s, "short-drain") {
        Err(CosimFailure::NotDrained(d)) => {
            assert_eq!(d.drain_cycles, LATENCY_CYCLES as u64 - 2);
            assert!(
                d.in_flight
                    .iter()
                    .any(|(w, n)| *w == "packets in the decision pipeline" && *n > 0),
                "{d}"
            );
            assert!(d.to_string().contains("still has events in flight"), "{d}");
            // and a VCD of its last cycles, as a mismatch has
            let vcd = d.vcd.as_ref().expect("a VCD");
            let text = std::fs::read_to_string(vcd).unwrap();
            assert!(
                text.contains("$enddefinitions") && text.contains("in_len_bytes"),
                "{}",
                vcd.display()
            );
            assert!(d.to_string().contains(&vcd.display().to_string()), "{d}");
        }
        Err(e) => panic!("expected an undrained run, got {e}"),
        Ok(_) => panic!("expected an undrained run, the run passed"),
    }
    // the full drain passes
    let cosim: Cosim<WredEcnModel> = ldcp_tests::cosim("wred_ecn");
    let (st, _) = cosim.run(WredEcnModel::new(), &s, "full-drain").unwrap();
    assert_eq!(st.drain_cycles, COUNTER_LATENCY_CYCLES as u64);
}
