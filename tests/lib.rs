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
