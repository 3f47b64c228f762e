#!/usr/bin/env bash
# The main job: installs the tools if missing, then generates, lints,
# cosimulates and synthesizes every block and prints a one-screen summary.
# Extra arguments go to `ldcp run` (see `ldcp run --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cargo build --release --locked -q -p ldcp-flow --bin ldcp
exec target/release/ldcp run "$@"
