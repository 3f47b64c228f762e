#!/usr/bin/env bash
# The main job: installs the tools if missing, builds `ldcp`, then
# `ldcp run`: every block generated, linted and cosimulated against its
# golden model, one board (the Alchitry Cu) synthesized, placed and packed,
# a summary table; then, with no arguments, a short network-simulator run
# (LDCP and DCTCP on the 8-flow dumbbell). About 10 minutes after the
# installs on 2 cores. Arguments go to `ldcp run` instead: `--full`
# synthesizes every block and board (see `ldcp run --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cargo build --release --locked -q -p ldcp-flow -p ldcpctl --bin ldcp --bin ldcpctl
target/release/ldcp run "$@"
if [ $# -eq 0 ]; then
    for cc in ldcp dctcp; do
        echo
        target/release/ldcp netsim --scenario stable-8 --cc "$cc"
    done
fi
