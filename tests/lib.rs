//! Shared pieces of the cross-crate tests: one verilated library per block
//! for the whole test binary, the fixed-seed proptest configuration, the
//! per-cycle choice strategy, and the proptest cosimulation loop.

use ldcp_sim::cosim::{Cosim, CosimFailure, CosimModel};
use ldcp_sim::window_engine::{WeInputs, WindowParams, CW_ONE, N_MAX};
use ldcp_sim::{Choice, CHOICE_WORDS};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// The cosimulation of block `name` (see `ldcp blocks`) against model `M`,
/// verilated once.
pub fn cosim<M: CosimModel>(name: &str) -> Cosim<M> {
    let block = ldcp_flow::registry::find(name).unwrap_or_else(|| panic!("no block {name}"));
    let verilog = block
        .verilog()
        .unwrap_or_else(|e| panic!("Verilog of {name}: {e}"));
    Cosim::new(&verilog, name).unwrap_or_else(|e| panic!("verilating {name}: {e}"))
}

/// The proptest configuration of test `test`: a fixed seed, printed
/// (`LDCP_PROPTEST_SEED` / `LDCP_PROPTEST_CASES` override), failures
/// persisted in `tests/proptest-regressions/<test>.txt`.
fn proptest_config(test: &'static str, default_seed: u64, default_cases: u32) -> Config {
    ldcp_sim::testing::proptest_config(
        env!("CARGO_MANIFEST_DIR"),
        test,
        default_seed,
        default_cases,
    )
}

/// A source behind a ready/valid handshake: each event of `events` is
/// offered until the block takes it, found by running `model` ahead (the
/// outputs after the edge before show the block's ready, which `ready`
/// reads); an input that `offers` says offers nothing (an idle cycle, a
/// reset) passes once. The sequential blocks' held-source tests use it.
pub fn held<M: CosimModel>(
    mut model: M,
    events: &[M::Input],
    ready: impl Fn(&M::Output) -> bool,
    offers: impl Fn(&M::Input) -> bool,
) -> Vec<M::Input> {
    let mut v = Vec::with_capacity(events.len() * 8);
    for e in events {
        loop {
            let r = ready(&model.outputs());
            v.push(e.clone());
            model.tick(e);
            if r || !offers(e) {
                break;
            }
        }
    }
    v
}

/// Streams of `len` per-cycle choices for a [`ldcp_sim::Stimulus`]
/// generator: each cycle has its own drawn words, so a failure shrinks to
/// a shorter stream (cycles removed, choices toward zero), not to another
/// seed's stream.
pub fn choices(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Choice>> {
    proptest::collection::vec(any::<[u64; CHOICE_WORDS]>(), len)
}

/// What a proptest cosimulation compared, over all its cases.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    /// Cases run.
    pub cases: u64,
    /// Cycles compared, drains included.
    pub cycles: u64,
    /// Of those, idle cycles of the drains that ended each case.
    pub drain_cycles: u64,
}

/// Runs a proptest of lock-step cosimulation: each case is a stimulus
/// vector, which the harness runs, drains and checks empty. `observe` sees
/// every compared cycle's inputs and outputs (by port name) and counts what
/// the cases reached into `C`; `finish` adds what the model counted over
/// each compared case (its own statistics). Panics (failing the test) on
/// the first mismatch or undrained case, after shrinking; the counts are
/// only read when every case passed, so each counts once.
#[allow(clippy::too_many_arguments)]
pub fn cosim_cases<M, S, C>(
    block: &str,
    test: &'static str,
    seed: u64,
    cases: u32,
    strategy: S,
    new_model: impl Fn() -> M,
    observe: impl Fn(&M::Input, &M::Output, &mut C),
    finish: impl Fn(&M, &mut C),
) -> (Totals, C)
where
    M: CosimModel,
    S: Strategy<Value = Vec<M::Input>>,
    C: Default,
{
    use proptest::test_runner::{TestCaseError, TestRunner};
    use std::cell::RefCell;
    let cosim: Cosim<M> = self::cosim(block);
    let totals = RefCell::new(Totals::default());
    let counts = RefCell::new(C::default());
    let mut runner = TestRunner::new(proptest_config(test, seed, cases));
    let result = runner.run(&strategy, |s| {
        let n = totals.borrow().cases;
        let mut see = |i: &M::Input, o: &M::Output| observe(i, o, &mut counts.borrow_mut());
        match cosim.run_observed(
            new_model(),
            || s.iter().cloned(),
            &format!("case-{n}"),
            &mut see,
        ) {
            Ok((st, model)) => {
                finish(&model, &mut counts.borrow_mut());
                let mut t = totals.borrow_mut();
                t.cases += 1;
                t.cycles += st.cycles;
                t.drain_cycles += st.drain_cycles;
                Ok(())
            }
            Err(CosimFailure::Error(e)) => panic!("{e}"),
            Err(f) => Err(TestCaseError::fail(f.to_string())),
        }
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    (totals.into_inner(), counts.into_inner())
}

/// Flow bits of the simulation-size blocks (`*_4k`).
pub const FLOW_BITS_4K: u32 = 12;

/// The lock-step cosimulation of a packet-path block's 4,096-flow build
/// (`block`, a simulation size) against its model: 12 cases of its seeded
/// stimulus over 2^12 flows (`stimulus` of the choices), each long enough
/// for its reset sweeps (4,096 cycles each); `flow` gives an output's flow
/// when the output is valid. Asserts at least 200,000 cycles compared and
/// over 1,000 outputs for flows above the iCE40's 255.
pub fn cosim_4k<M>(
    block: &str,
    test: &'static str,
    seed: u64,
    stimulus: impl Fn(&[Choice]) -> Vec<M::Input>,
    new_model: impl Fn() -> M,
    flow: impl Fn(&M::Output) -> Option<u32>,
) where
    M: CosimModel,
{
    let stream = choices(8_000..24_000).prop_map(move |c| stimulus(&c));
    let (t, above) = cosim_cases(
        block,
        test,
        seed,
        12,
        stream,
        new_model,
        |_, o: &M::Output, above: &mut u64| {
            *above += flow(o).is_some_and(|f| (256..1 << FLOW_BITS_4K).contains(&f)) as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "{block} cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {above} outputs for flows 256..4095",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= 200_000, "only {} cycles compared", t.cycles);
    assert!(above > 1_000, "{above} outputs for flows above 255");
}

/// The window engines' parameters, legal, at their limits and illegal
/// (the RTL clamps them).
pub fn window_params() -> impl Strategy<Value = WindowParams> {
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

/// One segment of window-engine inputs: a flow population, a marking mix, an n range, a SET rate.
pub fn window_segment() -> impl Strategy<Value = Vec<WeInputs>> {
    (
        window_params(),
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
                    in_valid: v,
                    in_flow: f,
                    in_set: set,
                    in_ece: ece,
                    in_n_pkts: n,
                    in_cw: value,
                    ..WeInputs::idle(&p)
                });
            proptest::collection::vec(cycle, len)
        })
}
