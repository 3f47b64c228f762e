//! The window engine: the generated Verilog against `WindowEngineModel`,
//! every output every cycle, over proptest streams of random flows,
//! same-flow bursts, all-marked and all-unmarked runs, n up to 15, SETs to
//! gamma, 1 and cw_max, idle cycles and resets; and the 4,096-flow build
//! over the seeded stream.

use ldcp_sim::cosim::{Cosim, CosimFailure};
use ldcp_sim::window_engine::*;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use std::sync::atomic::{AtomicU64, Ordering};

const MIN_EVENTS: u64 = 1_000_000;
const FLOW_BITS: u32 = 8;

fn params() -> impl Strategy<Value = WindowParams> {
    (
        prop_oneof![3 => 1u16..=256, 1 => Just(256u16), 1 => Just(1u16), 1 => 0u16..512],
        prop_oneof![3 => 1u16..=256, 1 => Just(256u16), 1 => 0u16..512],
        prop_oneof![4 => 1u8..=8, 1 => 0u8..16],
        prop_oneof![
            Just(u32::MAX),
            Just(CW_ONE),
            Just(8 * CW_ONE),
            Just(300 * CW_ONE),
            any::<u32>()
        ],
        prop_oneof![Just(1u32), Just(65535u32), 0u32..=65535],
    )
        .prop_map(|(a, b, g, m, r)| WindowParams {
            alpha_raw: a,
            beta_raw: b,
            gamma_shift: g,
            cw_max_raw: m,
            rtt_ticks: r,
        })
}

/// One segment: a flow population, a marking mix, an n range, a SET rate.
fn segment() -> impl Strategy<Value = Vec<WeInputs>> {
    (
        params(),
        0u32..4,
        0u32..4,
        0u32..3,
        0u32..3,
        0u32..3,
        300usize..3000,
    )
        .prop_flat_map(|(p, flows, mark, nk, setk, idle, len)| {
            let flow = match flows {
                0 => Just(5u32).boxed(),
                1 => (0u32..3).boxed(),
                2 => (0u32..40).boxed(),
                _ => (0u32..256).boxed(),
            };
            let ece = match mark {
                0 => Just(false).boxed(),
                1 => Just(true).boxed(),
                2 => proptest::bool::weighted(0.1).boxed(),
                _ => any::<bool>().boxed(),
            };
            let n = match nk {
                0 => Just(1u32).boxed(),
                1 => Just(N_MAX).boxed(),
                _ => (0u32..=N_MAX).boxed(),
            };
            let set_p = [0.0, 0.005, 0.1][setk as usize];
            let idle_p = [0.0, 0.3, 0.8][idle as usize];
            let value = prop_oneof![
                Just(CW_ONE),
                Just(0u32),
                Just(u32::MAX),
                Just(p.cw_max_raw),
                (0u32..(2 * CW_ONE)),
                any::<u32>()
            ];
            let cycle = (
                proptest::bool::weighted(1.0 - idle_p),
                flow,
                proptest::bool::weighted(set_p),
                ece,
                n,
                value,
                0u32..3000,
            )
                .prop_map(move |(v, f, set, ece, n, value, r)| WeInputs {
                    reset: r == 0,
                    ev_valid: v,
                    ev_flow: f,
                    ev_set: set,
                    ev_ece: ece,
                    ev_n: n,
                    ev_value: value,
                    params: p,
                });
            proptest::collection::vec(cycle, len)
        })
}

#[test]
fn window_engine_matches_model() {
    let cosim: Cosim<WindowEngineModel> = ldcp_tests::cosim("window_engine");
    let events = AtomicU64::new(0);
    let updates = AtomicU64::new(0);
    let case = AtomicU64::new(0);
    let mut runner = TestRunner::new(ldcp_tests::proptest_config(
        "cosim_window_engine",
        0x5EED_0003,
        400,
    ));
    let strategy = proptest::collection::vec(segment(), 1..5).prop_map(|s| s.concat());
    let result = runner.run(&strategy, |s| {
        let n = case.fetch_add(1, Ordering::Relaxed);
        let mut up = 0u64;
        let mut observe = |o: &[u64]| up += o[0]; // out_valid
        match cosim.run_observed(
            WindowEngineModel::new(FLOW_BITS),
            || s.iter().cloned(),
            &format!("case-{n}"),
            &mut observe,
        ) {
            Ok(_) => {
                events.fetch_add(
                    s.iter().filter(|i| i.ev_valid).count() as u64,
                    Ordering::Relaxed,
                );
                updates.fetch_add(up, Ordering::Relaxed);
                Ok(())
            }
            Err(CosimFailure::Mismatch(m)) => Err(TestCaseError::fail(m.to_string())),
            Err(e) => panic!("{e}"),
        }
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (events, updates) = (events.into_inner(), updates.into_inner());
    eprintln!("window_engine cosim: {events} events, {updates} updates, 0 mismatches");
    assert!(
        events >= MIN_EVENTS,
        "only {events} events; CI needs at least {MIN_EVENTS}"
    );
    assert!(updates < events, "merging must have happened");
}

#[test]
fn window_engine_4k_matches_model_on_the_seeded_stream() {
    let cosim: Cosim<WindowEngineModel> = ldcp_tests::cosim("window_engine_4k");
    let p = WindowParams::default();
    let st = cosim
        .run_iter(
            WindowEngineModel::new(12),
            || stimulus(11, 12, p).take(200_000),
            "seed-11",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(st.cycles, 200_000);
}
