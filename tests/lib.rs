//! Shared pieces of the cross-crate tests: one verilated library per block
//! for the whole test binary, and the fixed proptest configuration.

use ldcp_sim::cosim::{Cosim, CosimModel};
use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, RngSeed};

/// The cosimulation of block `name` against model `M`, verilated once.
pub fn cosim<M: CosimModel>(name: &str) -> Cosim<M> {
    let block = ldcp_hdl::blocks::find(name).unwrap_or_else(|| panic!("no block {name}"));
    let verilog = block
        .verilog()
        .unwrap_or_else(|e| panic!("Verilog of {name}: {e}"));
    Cosim::new(&verilog, name).unwrap_or_else(|e| panic!("verilating {name}: {e}"))
}

/// A proptest configuration with a fixed, printed seed: override with
/// `LDCP_PROPTEST_SEED`, and the number of cases with `LDCP_PROPTEST_CASES`.
/// Failures are persisted in `tests/proptest-regressions/<test>.txt`
/// (committed) and replayed first on the next run.
pub fn proptest_config(test: &'static str, default_seed: u64, default_cases: u32) -> Config {
    let seed = std::env::var("LDCP_PROPTEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_seed);
    let cases = std::env::var("LDCP_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_cases);
    eprintln!(
        "proptest: seed {seed}, {cases} cases (LDCP_PROPTEST_SEED / LDCP_PROPTEST_CASES to change)"
    );
    Config {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(Box::leak(
            format!(
                "{}/proptest-regressions/{test}.txt",
                env!("CARGO_MANIFEST_DIR")
            )
            .into_boxed_str(),
        )))),
        ..Config::default()
    }
}

/// Runs a proptest of lock-step cosimulation: each case is a stimulus
/// vector; `observe` sees every cycle's compared outputs and counts what the
/// stream reached into `counts`. Returns the cycles compared and the counts;
/// panics (failing the test) on the first mismatch, after shrinking.
pub fn cosim_cases<M, S, const K: usize>(
    block: &str,
    test: &'static str,
    seed: u64,
    cases: u32,
    strategy: S,
    new_model: impl Fn() -> M,
    observe: impl Fn(&[u64], &mut [u64; K]),
) -> (u64, [u64; K])
where
    M: CosimModel,
    S: proptest::strategy::Strategy<Value = Vec<M::Input>>,
{
    use ldcp_sim::cosim::CosimFailure;
    use proptest::test_runner::{TestCaseError, TestRunner};
    use std::cell::{Cell, RefCell};
    let cosim: Cosim<M> = self::cosim(block);
    let cycles = Cell::new(0u64);
    let counts = RefCell::new([0u64; K]);
    let case = Cell::new(0u64);
    let mut runner = TestRunner::new(proptest_config(test, seed, cases));
    let result = runner.run(&strategy, |s| {
        let n = case.get();
        case.set(n + 1);
        let mut local = [0u64; K];
        let mut see = |o: &[u64]| observe(o, &mut local);
        match cosim.run_observed(
            new_model(),
            || s.iter().cloned(),
            &format!("case-{n}"),
            &mut see,
        ) {
            Ok(st) => {
                cycles.set(cycles.get() + st.cycles);
                let mut c = counts.borrow_mut();
                for (a, b) in c.iter_mut().zip(local) {
                    *a += b;
                }
                Ok(())
            }
            Err(CosimFailure::Mismatch(m)) => Err(TestCaseError::fail(m.to_string())),
            Err(e) => panic!("{e}"),
        }
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    (cycles.get(), counts.into_inner())
}
