#!/usr/bin/env bash
# The whole test suite: installs the tools if missing, then runs every test
# of the workspace (unit, property, cosimulation, synthesis, CLI). Tests
# that need an EDA tool fail when it is missing; none is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec cargo test --workspace --locked "$@"
