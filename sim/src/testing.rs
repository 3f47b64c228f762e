//! The property-test configuration every test of the workspace uses: a
//! fixed seed, printed, so a failure is reproduced by rerunning the test.

use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, RngSeed};

/// A proptest configuration for test `test` with a fixed seed that it
/// prints: `LDCP_PROPTEST_SEED` overrides the seed and
/// `LDCP_PROPTEST_CASES` the number of cases. Failures found are persisted
/// in `proptest-regressions/<test>.txt` under `crate_dir` (committed) and
/// replayed first on the next run.
pub fn proptest_config(
    crate_dir: &str,
    test: &'static str,
    default_seed: u64,
    default_cases: u32,
) -> Config {
    let seed = std::env::var("LDCP_PROPTEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_seed);
    let cases = std::env::var("LDCP_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_cases);
    eprintln!(
        "proptest {test}: seed {seed:#x}, {cases} cases (LDCP_PROPTEST_SEED / LDCP_PROPTEST_CASES to change)"
    );
    Config {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(Box::leak(
            format!("{crate_dir}/proptest-regressions/{test}.txt").into_boxed_str(),
        )))),
        ..Config::default()
    }
}
