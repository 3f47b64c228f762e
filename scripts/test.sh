#!/usr/bin/env bash
# The whole test suite: installs the tools if missing, then runs every test
# of the workspace (unit, property, cosimulation, synthesis, the main job on
# every block, formal proofs, CLI) with cargo-nextest, two at a time across
# all test binaries, then the doc tests (nextest does not run them). Tests
# that need an EDA tool fail when it is missing; none is skipped. Extra
# arguments go to `cargo nextest run` (a filter, say).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cargo nextest run --workspace --locked --profile ldcp "$@"
cargo test --workspace --locked --doc
